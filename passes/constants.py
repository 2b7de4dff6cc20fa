"""Weights as constants: the table a compiled program binds to its ml_program globals, the
fold-constants pass that evaluates weight-only computations at compile time, and cleanup.

A model's weights are extern globals (`ml_program.global private @"model...q_a_proj.weight"
(#ml_program.extern : tensor<1536x7168xbf16>)`, loaded with ml_program.global_load_const);
`ascend_mla.compile(..., weights=...)` binds their values (`WeightTable`). fold-constants then
computes, once, every value that depends on weights only and is consumed by an op that does not
(a transposed weight, W_uk sliced from kv_b_proj, a FRACTAL_NZ-packed weight, the causal mask
template) and replaces it with a new global holding the result: a compiled program packs each
weight once. Without a table (mla-opt on text) there is nothing to evaluate and the pass does
nothing. cleanup erases what no one uses: side-effect-free ops (the mla primitives, tensor and
arith ops, constant loads) and the globals no load refers to (their values leave the table).
"""
from __future__ import annotations

from typing import Optional

import numpy as np
from mlir import ir

from ..dialect.dialect import opdef_of
from ..dialect.primitive import PURE
from ..dialect.types import describe_type
from ..runtime.backend import run_kernel
from ..runtime.formats import NZTensor
from ..runtime.kernels.upstream import prepare
from .pattern import CONSTANT_OPS, defining_op
from .registry import UNCHANGED, register_pass


class WeightTable(dict):
    """name -> array (NumPy, or NZTensor for a FRACTAL_NZ global), active for the passes while
    used as a context manager. Values are made read-only: they are constants."""

    def __enter__(self):
        _tables.append(self)
        return self

    def __exit__(self, *exc):
        _tables.remove(self)
        return False

    def bind(self, name, value):
        if isinstance(value, np.ndarray) and value.flags.writeable:
            value = value.view()
            value.flags.writeable = False
        self[name] = value


_tables: list[WeightTable] = []


def active_table() -> Optional[WeightTable]:
    return _tables[-1] if _tables else None


def _ops(block) -> list:
    """The block's ops as Operations (an OpView's `.name` may be its symbol, not its op name)."""
    return [op.operation for op in block.operations]


def _foldable(op) -> bool:
    name = op.name
    return name in PURE or name.startswith(("tensor.", "arith.")) or name in CONSTANT_OPS


def _constant_ops(block) -> set:
    """The ops of `block` whose results depend on constants only."""
    constant = set()
    for op in block.operations:
        op = op.operation
        if op.name in CONSTANT_OPS or _foldable(op) and op.operands and all(
                defining_op(v) is not None and defining_op(v).operation in constant for v in op.operands):
            constant.add(op.operation)
    return constant


_SUFFIX = {"mla.transpose": "T", "mla.format_cast": "cast", "tensor.extract_slice": "slice",
           "tensor.expand_shape": "view", "tensor.collapse_shape": "view", "arith.truncf": "trunc",
           "arith.extf": "ext"}


class _Evaluator:
    def __init__(self, table):
        self.table = table
        self.values = {}

    def value(self, v):
        if v not in self.values:
            op = defining_op(v)
            results = self.run(op)
            for r, out in zip(op.results, results):
                self.values[r] = out
        return self.values[v]

    def run(self, op):
        name = op.name
        operands = [self.value(v) for v in op.operands]
        opdef = opdef_of(op)
        if opdef is None:
            return prepare(op, self.table)(*operands)
        snapshot = opdef.snapshot(op)
        named = dict(zip([o.name for o in opdef.operands], _regroup(opdef, op, operands)))
        return run_kernel(name, {o.name: named.get(o.name) for o in opdef.kernel_operands},
                          snapshot.attributes, {r: getattr(snapshot, r) for r in opdef.result_names})

    def name(self, op) -> str:
        """A readable name for the global holding op's result: its first weight + suffixes."""
        parts = []
        while op.name not in CONSTANT_OPS:
            parts.append(_SUFFIX.get(op.name, op.name.split(".")[-1]))
            op = defining_op(op.operands[0])
        base = op.attributes["global"].value if op.name == "ml_program.global_load_const" else op.name
        return ".".join([base, *reversed(parts)])


def _regroup(opdef, op, flat):
    groups, start = [], 0
    for spec, values in zip(opdef.operands, opdef.operand_groups(op)):
        part = flat[start:start + len(values)]
        start += len(values)
        groups.append(part if spec.kind == "variadic" else (part[0] if part else None))
    return groups


def declare_global(module, name: str, t: ir.Type):
    """`ml_program.global private @name(#ml_program.extern : t) : t` at the top of the module."""
    return ir.Operation.create(
        "ml_program.global", attributes={
            "sym_name": ir.StringAttr.get(name), "type": ir.TypeAttr.get(t),
            "value": ir.Attribute.parse(f"#ml_program.extern : {t}"),
            "sym_visibility": ir.StringAttr.get("private")},
        ip=ir.InsertionPoint.at_block_begin(module.regions[0].blocks[0]))


def _unique(name, taken):
    if name not in taken:
        return name
    n = 1
    while f"{name}.{n}" in taken:
        n += 1
    return f"{name}.{n}"


@register_pass("fold-constants", "Evaluate weight-only computations once, at compile time (needs bound weights)")
def fold_constants(module):
    table = active_table()
    if table is None:
        return UNCHANGED
    evaluator = _Evaluator(table)
    taken = {op.attributes["sym_name"].value for op in _ops(module.regions[0].blocks[0])
             if op.name == "ml_program.global"}
    for fn in _ops(module.regions[0].blocks[0]):
        if fn.name != "func.func":
            continue
        block = fn.regions[0].blocks[0]
        constant = _constant_ops(block)
        for op in _ops(block):
            if op not in constant or op.name == "ml_program.global_load_const":
                continue
            # The frontier: a constant value some non-constant op consumes.
            if not any(u.owner.operation not in constant for r in op.results for u in r.uses):
                continue
            for r in op.results:
                if not any(u.owner.operation not in constant for u in r.uses):
                    continue
                name = _unique(evaluator.name(op), taken)
                taken.add(name)
                declare_global(module, name, r.type)
                table.bind(name, evaluator.value(r))
                load = ir.Operation.create(
                    "ml_program.global_load_const", results=[r.type],
                    attributes={"global": ir.FlatSymbolRefAttr.get(name)}, loc=op.location,
                    ip=ir.InsertionPoint(op))
                for use in list(r.uses):
                    if use.owner.operation not in constant:
                        use.owner.operands[use.operand_number] = load.result


@register_pass("cleanup", "Erase unused side-effect-free ops and unreferenced globals")
def cleanup(module):
    body = module.regions[0].blocks[0]
    erased = 0
    for fn in _ops(body):
        if fn.name != "func.func":
            continue
        for op in reversed(_ops(fn.regions[0].blocks[0])):
            if _foldable(op) and all(not list(r.uses) for r in op.results):
                op.erase()
                erased += 1
    used = set()
    module.walk(lambda op: (used.add(op.attributes["global"].value)
                            if op.operation.name == "ml_program.global_load_const" else None,
                            ir.WalkResult.ADVANCE)[1])
    table = active_table()
    for op in _ops(body):
        if op.name == "ml_program.global" and op.attributes["sym_name"].value not in used:
            if table is not None:
                table.pop(op.attributes["sym_name"].value, None)
            op.erase()
            erased += 1
    return None if erased else UNCHANGED


def check_bound(module, table: WeightTable) -> list[str]:
    """Problems binding `table` to the module's extern globals: a global without a value, or a
    value whose type is not the global's. Empty when every global is bound."""
    problems = []
    for op in _ops(module.body):
        if op.name != "ml_program.global":
            continue
        name = op.attributes["sym_name"].value
        declared = describe_type(op.attributes["type"].value)
        if name not in table:
            problems.append(f"weight {name!r}: no value given for this global ({declared})")
            continue
        value = table[name]
        from ..runtime.formats import describe_value
        try:
            actual = describe_value(name, value)
        except ValueError as e:
            problems.append(f"weight {e}")
            continue
        if isinstance(value, NZTensor) != declared.is_nz or (actual.shape, actual.dtype) != (declared.shape, declared.dtype):
            problems.append(f"weight {name!r}: the global is {declared}, the value is {actual}")
    return problems

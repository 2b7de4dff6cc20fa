"""Weights as constants: the table a compiled program binds to its ml_program globals, the
fold-constants pass that evaluates weight-only computations at compile time, and cleanup.

A model's weights are extern globals (`ml_program.global private @"model...q_a_proj.weight"
(#ml_program.extern : tensor<1536x7168xbf16>)`, loaded with ml_program.global_load_const);
`ascend_mla.compile(..., weights=...)` binds their values (`WeightTable`, `bind_globals`).
fold-constants then computes, once, every value that depends on constants only and is consumed
by an op that does not (a transposed weight, W_uk sliced from kv_b_proj, a FRACTAL_NZ-packed
weight, the causal mask template) and replaces it with a new global holding the result: a
compiled program packs each weight once, and the same computation on the same weight (a weight
two ops use) gives one global. Without a table (mla-opt on text) there is nothing to evaluate
and the pass does nothing. cleanup erases what no one uses: side-effect-free ops (the mla
primitives, tensor and arith ops, constant loads) and the private globals no symbol refers to
(their values leave the table).
"""
from __future__ import annotations

from typing import Optional

import numpy as np
from mlir import ir

from ..dialect.dialect import opdef_of
from ..dialect.types import describe_type, numpy_dtype
from ..runtime.backend import run_kernel
from ..runtime.formats import NZTensor, describe_value
from ..runtime.kernels.upstream import prepare
from .pattern import defining_op, is_constant, side_effect_free
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


def _bodies(module) -> list:
    """The entry blocks of the module's functions that have a body (not declarations)."""
    return [fn.regions[0].blocks[0] for fn in _ops(module.regions[0].blocks[0])
            if fn.name == "func.func" and len(fn.regions[0].blocks)]


# --- fold-constants ------------------------------------------------------------------------------

_SUFFIX = {"mla.transpose": "T", "mla.format_cast": "cast", "tensor.extract_slice": "slice",
           "tensor.expand_shape": "view", "tensor.collapse_shape": "view", "arith.truncf": "trunc",
           "arith.extf": "ext"}


class _Evaluator:
    """Computes constant values with the CPU kernels, each once."""

    def __init__(self, table):
        self.table = table
        self.values = {}

    def value(self, v):
        if v not in self.values:
            op = defining_op(v)
            for r, out in zip(op.results, self.run(op)):
                self.values[r] = out
        return self.values[v]

    def run(self, op):
        operands = [self.value(v) for v in op.operands]
        opdef = opdef_of(op)
        if opdef is None:
            return prepare(op, self.table)(*operands)
        snapshot = opdef.snapshot(op)
        named = dict(zip([o.name for o in opdef.operands], _regroup(opdef, op, operands)))
        return run_kernel(op.name, {o.name: named.get(o.name) for o in opdef.kernel_operands},
                          snapshot.attributes, {r: getattr(snapshot, r) for r in opdef.result_names})


def _regroup(opdef, op, flat):
    groups, start = [], 0
    for spec, values in zip(opdef.operands, opdef.operand_groups(op)):
        part = flat[start:start + len(values)]
        start += len(values)
        groups.append(part if spec.kind == "variadic" else (part[0] if part else None))
    return groups


def _structure(value, memo) -> tuple:
    """What a constant value is computed from, as a key: equal keys, equal values (the same ops
    with the same attributes on the same globals)."""
    if value not in memo:
        op = defining_op(value)
        if op.name == "ml_program.global_load_const":
            key = ("global", op.attributes["global"].value)
        else:
            attributes = tuple(sorted((name, str(op.attributes[name])) for name in op.attributes))
            key = (op.name, attributes, str(value.type), value.result_number,
                   tuple(_structure(v, memo) for v in op.operands))
        memo[value] = key
    return memo[value]


def _name(value) -> str:
    """A readable name for the global holding a folded value: the first weight it is computed
    from, then a suffix per op on the way (`...kv_b_proj.weight.view.slice.T`)."""
    parts, op = [], defining_op(value)
    if op.name == "arith.constant":
        return "constant"
    while op.name != "ml_program.global_load_const":
        parts.append(_SUFFIX.get(op.name, op.name.split(".")[-1]))
        loads = [v for v in op.operands if defining_op(v) is not None]
        if not loads:
            break
        # prefer the operand that leads to a weight
        op = next((defining_op(v) for v in loads if _reaches_global(v)), defining_op(loads[0]))
    base = op.attributes["global"].value if op.name == "ml_program.global_load_const" else op.name
    return ".".join([base, *reversed(parts)])


def _reaches_global(value) -> bool:
    op = defining_op(value)
    return op is not None and (op.name == "ml_program.global_load_const"
                               or any(_reaches_global(v) for v in op.operands))


def declare_global(module, name: str, t: ir.Type):
    """`ml_program.global private @name(#ml_program.extern : t) : t` at the top of the module."""
    return ir.Operation.create(
        "ml_program.global", attributes={
            "sym_name": ir.StringAttr.get(name), "type": ir.TypeAttr.get(t),
            "value": ir.Attribute.parse(f"#ml_program.extern : {t}"),
            "sym_visibility": ir.StringAttr.get("private")},
        ip=ir.InsertionPoint.at_block_begin(module.regions[0].blocks[0]))


def _symbols(module) -> set:
    """Every symbol name defined at the top of the module (globals, functions)."""
    # value_bytes: a name need not be UTF-8 (@"\FF")
    return {bytes(op.attributes["sym_name"].value_bytes).decode("utf-8", "replace")
            for op in _ops(module.regions[0].blocks[0]) if "sym_name" in op.attributes}


def _unique(name, taken):
    candidate, n = name, 1
    while candidate in taken:
        candidate, n = f"{name}.{n}", n + 1
    return candidate


def _leaf(op) -> bool:
    """A constant that stays as it is: a weight's own load, and a splat (cheap, and clearer in
    IR). Other arith.constants (a block table) become globals, as the C++ host program and the
    device want their bytes."""
    if op.name == "arith.constant":
        attr = op.attributes["value"]
        return not isinstance(attr, ir.DenseElementsAttr) or attr.is_splat
    return op.name == "ml_program.global_load_const"


@register_pass("fold-constants", "Evaluate weight-only computations once, at compile time (needs bound weights)")
def fold_constants(module):
    table = active_table()
    if table is None:
        return UNCHANGED
    evaluator, taken, folded, structures, memo = _Evaluator(table), _symbols(module), {}, {}, {}
    for block in _bodies(module):
        for op in _ops(block):
            if _leaf(op) or not op.results or not side_effect_free(op) or \
                    not all(is_constant(r, memo) for r in op.results):
                continue
            for r in op.results:
                outside = [u for u in r.uses if not all(is_constant(x, memo) for x in u.owner.results)
                           or not u.owner.results]
                if not outside:
                    continue                    # only feeds other constants: folded with them
                key = _structure(r, structures)
                if key not in folded:
                    folded[key] = _unique(_name(r), taken)
                    taken.add(folded[key])
                    declare_global(module, folded[key], r.type)
                    table.bind(folded[key], evaluator.value(r))
                load = ir.Operation.create(
                    "ml_program.global_load_const", results=[r.type],
                    attributes={"global": ir.FlatSymbolRefAttr.get(folded[key])}, loc=op.location,
                    ip=ir.InsertionPoint(op))
                for use in outside:
                    use.owner.operands[use.operand_number] = load.result
    return None if folded else UNCHANGED


# --- cleanup -----------------------------------------------------------------------------------------

def _referenced_symbols(module) -> set:
    names = set()

    def visit(op):
        for name in op.attributes:
            attr = op.attributes[name]
            if isinstance(attr, ir.FlatSymbolRefAttr):
                names.add(attr.value)
        return ir.WalkResult.ADVANCE
    module.walk(visit)
    return names


def _erase_unused(block) -> int:
    erased = 0
    for op in reversed(_ops(block)):
        for region in op.regions:
            for inner in region.blocks:
                erased += _erase_unused(inner)
        if op.results and side_effect_free(op) and all(not list(r.uses) for r in op.results):
            op.erase()
            erased += 1
    return erased


@register_pass("cleanup", "Erase unused side-effect-free ops and unreferenced private globals")
def cleanup(module):
    body = module.regions[0].blocks[0]
    erased = sum(_erase_unused(block) for block in _bodies(module))
    used = _referenced_symbols(module)
    table = active_table()
    for op in _ops(body):
        if op.name != "ml_program.global" or op.attributes["sym_name"].value in used:
            continue
        if "sym_visibility" not in op.attributes or op.attributes["sym_visibility"].value != "private":
            continue                        # public: someone outside may use it
        if table is not None:
            table.pop(op.attributes["sym_name"].value, None)
        op.erase()
        erased += 1
    return None if erased else UNCHANGED


# --- binding values to the globals --------------------------------------------------------------------

def bind_globals(module, table: WeightTable, given=()) -> list[str]:
    """Bind the module's globals: extern ones from `table` (checked against their type), ones
    with a splat initializer from it. Returns the problems (a global without a value, a value
    whose type is not the global's, a name in `given` that is no global of the module); empty
    when every global is bound."""
    names = {bytes(op.attributes["sym_name"].value_bytes).decode("utf-8", "replace")
             for op in _ops(module.body) if op.name == "ml_program.global"}
    problems = [f"weight {name!r}: the module has no global of this name"
                + (f" (its globals: {', '.join(sorted(names)[:6])}{' ...' if len(names) > 6 else ''})"
                   if names else " (it has no ml_program.global)")
                for name in given if name not in names]
    for op in _ops(module.body):
        if op.name != "ml_program.global":
            continue
        name = op.attributes["sym_name"].value
        declared = describe_type(op.attributes["type"].value)
        initial = op.attributes["value"]
        if isinstance(initial, ir.DenseElementsAttr):
            if not initial.is_splat:
                problems.append(f"global {name!r}: only splat initializers are supported; bind "
                                "other values as weights (an extern global)")
                continue
            value = np.full(declared.shape, float(initial.get_splat_value().value), numpy_dtype(declared.dtype))
            table.bind(name, value)
            continue
        if name not in table:
            problems.append(f"weight {name!r}: no value given for this global ({declared})")
            continue
        value = table[name]
        try:
            actual = describe_value(name, value)
        except ValueError as e:
            problems.append(f"weight {name!r}: {e}")
            continue
        if isinstance(value, NZTensor) != declared.is_nz or (actual.shape, actual.dtype) != (declared.shape, declared.dtype):
            problems.append(f"weight {name!r}: the global is {declared}, the value is {actual}")
    return problems

"""fold-constants: weight-only computations evaluated once, at compile time.

The pass computes, once, every value that depends on constants only and is consumed by an op
that does not (a transposed weight, W_uk sliced from kv_b_proj, a FRACTAL_NZ-packed weight, the
causal mask template) and replaces it with a new global holding the result: a compiled program
packs each weight once, and the same computation on the same weight (a weight two ops use)
gives one global. A value an op writes in place (a cache the graph itself made: torch.zeros,
padded by a concat) is state, not a constant: it is computed at run time, into a buffer of
its own, never folded into a read-only global that every call would share. Its inputs (PassInputs): the weight table (`weights`, the values of the
globals; the folded values are added to it) and the op evaluator (`evaluate`, the runtime's
CPU evaluation of one op, wired in by the API layer and mla-opt). Without either, or for a
value computed from a weight the table has no value for, there is nothing to evaluate and the
IR stays as it is. mla-opt hands the globals' initial values as the table and prints the
folded globals with theirs.
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..dialect.dialect import is_pure, is_reshape, opdef_of, symbol_text
from .pattern import defining_op, is_constant
from .registry import UNCHANGED, ModulePass, register_pass
from .weights import bodies, declare_global, ops_of, symbols

_SUFFIX = {"mla.transpose": "T", "mla.format_cast": "cast", "tensor.extract_slice": "slice",
           "tensor.expand_shape": "view", "tensor.collapse_shape": "view", "arith.truncf": "trunc",
           "arith.extf": "ext"}


class _Values:
    """Constant values computed with the evaluator handed to the pass, each once."""

    def __init__(self, evaluate, table):
        self.evaluate, self.table = evaluate, table
        self.values = {}

    def value(self, v):
        if v not in self.values:
            op = defining_op(v)
            outputs = self.evaluate(op, [self.value(x) for x in op.operands], self.table)
            for r, out in zip(op.results, outputs):
                self.values[r] = out
        return self.values[v]


def _structure(value, memo) -> tuple:
    """What a constant value is computed from, as a key: equal keys, equal values (the same ops
    with the same attributes on the same globals)."""
    if value not in memo:
        op = defining_op(value)
        if op.name == "ml_program.global_load_const":
            key = ("global", symbol_text(op.attributes["global"]))
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
    base = symbol_text(op.attributes["global"]) if op.name == "ml_program.global_load_const" else op.name
    return ".".join([base, *reversed(parts)])


def _reaches_global(value) -> bool:
    op = defining_op(value)
    return op is not None and (op.name == "ml_program.global_load_const"
                               or any(_reaches_global(v) for v in op.operands))


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


def _written_in_place(block) -> set:
    """The values of `block` an op writes in place (its in-place trait's operands), with every
    value they are reshapes of."""
    written = set()
    for op in ops_of(block):
        opdef = opdef_of(op)
        if opdef is None or not opdef.inplace:
            continue
        groups = dict(zip((o.name for o in opdef.operands), opdef.operand_groups(op)))
        for operand in opdef.inplace.values():
            for v in groups.get(operand, ()):
                while v is not None:
                    written.add(v)
                    owner = defining_op(v)
                    v = owner.operands[0] if owner is not None and is_reshape(owner) else None
    return written


def _has_values(value, table, memo) -> bool:
    """Every weight `value` is computed from has a value in the table."""
    if value not in memo:
        op = defining_op(value)
        if op.name == "ml_program.global_load_const":
            memo[value] = symbol_text(op.attributes["global"]) in table
        else:
            memo[value] = all(_has_values(v, table, memo) for v in op.operands)
    return memo[value]


@register_pass
@dataclass
class FoldConstants(ModulePass):
    name = "fold-constants"
    summary = "Evaluate weight-only computations once, at compile time (needs bound weights)"

    def apply(self, module, inputs):
        table, evaluate = inputs.weights, inputs.evaluate
        if table is None or evaluate is None:
            return UNCHANGED
        evaluator, taken, folded, structures, memo, known = _Values(evaluate, table), symbols(module), {}, {}, {}, {}
        for block in bodies(module):
            written = _written_in_place(block)
            for op in ops_of(block):
                if _leaf(op) or not op.results or not is_pure(op) or \
                        not all(is_constant(r, memo) and r not in written for r in op.results):
                    continue
                for r in op.results:
                    outside = [u for u in r.uses if not all(is_constant(x, memo) for x in u.owner.results)
                               or not u.owner.results]
                    if not outside:
                        continue                    # only feeds other constants: folded with them
                    if not _has_values(r, table, known):
                        continue                    # reads a weight with no value here (extern)
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



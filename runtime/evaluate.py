"""The op-level evaluator: one op of a (not lowered) program run on the CPU, from its operand
values to its result values. An mla op runs its CPU kernel (operands by name, attributes with
the OpDef's defaults); an upstream op (slices, casts, constant loads) its CPU step
(kernels/upstream.py). fold-constants is handed this function by the API layer (passes do not
import the runtime); the tests' op-by-op reference (test/python/kernel_walk.py) runs it too."""
from __future__ import annotations

from typing import Mapping, Sequence

from ..dialect.dialect import opdef_of
from .kernels import run_kernel
from .kernels.upstream import prepare


def evaluate_op(op, operands: Sequence, weights: Mapping) -> tuple:
    """The results of `op` for the operand values `operands` (in IR order; a variadic operand's
    values one after the other); `weights`: the values of the ml_program globals by name."""
    opdef = opdef_of(op)
    if opdef is None:
        return tuple(prepare(op, weights)(*operands))
    snapshot = opdef.snapshot(op)
    named = dict(zip([o.name for o in opdef.operands], _regroup(opdef, op, list(operands))))
    # a host operand (per-step lengths as an i64 tensor) gives its attribute's value
    attributes = (snapshot.with_values(named).attributes
                  if any(named.get(o) is not None for o in opdef.host_operands) else snapshot.attributes)
    return run_kernel(opdef, {o.name: named.get(o.name) for o in opdef.kernel_operands},
                      attributes, {r: getattr(snapshot, r) for r in opdef.result_names})


def _regroup(opdef, op, flat):
    groups, start = [], 0
    for spec, values in zip(opdef.operands, opdef.operand_groups(op)):
        part = flat[start:start + len(values)]
        start += len(values)
        groups.append(part if spec.kind == "variadic" else (part[0] if part else None))
    return groups

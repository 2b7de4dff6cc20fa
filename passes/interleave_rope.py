"""interleave-rope: a rotate-half RoPE of a constant projection -> the interleaved RoPE of the
same projection with its rope columns reordered.

The fused MLA prolog rotates interleaved pairs (mla.rope mode "interleave": de-interleave x's
pairs, then rotate-half, the output de-interleaved; numerics.md 4). Models written with the
plain rotate-half RoPE (mode "half", Llama/NeoX style) rotate (x[i], x[h + i]) instead. When x
is a column slice of a product with a constant weight, x = (a @ W)[..., cols], reordering those
columns of W so that column cols[2i] holds W's cols[i] and cols[2i + 1] holds cols[h + i] makes
the product's slice the interleaved x' with x'[2i] = x[i], x'[2i + 1] = x[h + i]; then

    rope_interleave(x') = rope_half(x)      exactly (the same float32 products and sums)

and fuse-prolog sees the form it fuses. The reordering is IR on the constant weight (transpose,
mla.gather of the rows at a constant index, transpose back; the per-channel scale of a
quant_matmul gathered alike), so fold-constants evaluates it once at compile time.

Applies when every other reader of the product (through reshapes) is a last-axis slice whose
columns do not meet the reordered ones: nothing else sees the new column order.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from ..dialect.dialect import attributes_of, is_reshape, opdef_of
from ..dialect.primitive import Rope, Transpose
from ..dialect.types import ND, TensorInfo
from .pattern import defining_op, is_constant, last_axis_slice, operand_at
from .registry import UNCHANGED, ModulePass, register_pass
from .rewrite import Builder, info, rewrite_anchors

PROJECTIONS = ("mla.matmul", "mla.quant_matmul")


def _trace(x):
    """(projection, chain) when x is the result of a chain of reshapes and last-axis slices
    (`chain`, from x's producer back) of an mla.matmul / quant_matmul, each value from the
    first slice on read only by the next link; else None."""
    chain, v = [], x
    while True:
        op = defining_op(v)
        if op is None:
            return None
        if op.name in PROJECTIONS:
            break
        if not is_reshape(op) and last_axis_slice(op) is None:
            return None
        chain.append(op)
        v = op.operands[0]
    slices = [i for i, op in enumerate(chain) if not is_reshape(op)]
    if not slices or any(len(list(op.results[0].uses)) != 1 for op in chain[:slices[-1] + 1]):
        return None
    return op, chain


def _columns(projection, chain) -> np.ndarray | None:
    """For each element of the chain's result, the column of the projection's result y (..., n)
    it is (reshapes are row-major, slices take columns)."""
    y = info(projection.results[0])
    if any(d is None or d < 0 for d in y.shape):
        return None
    index = np.arange(int(np.prod(y.shape)), dtype=np.int64).reshape(y.shape)
    for op in reversed(chain):
        if is_reshape(op):
            index = index.reshape(info(op.results[0]).shape)
        else:
            start, size = last_axis_slice(op)
            index = index[..., start:start + size]
    return index % y.shape[-1]


def _readers(value):
    """(reader, chain) for each op reading `value` through reshapes; chain: the reshapes and
    the reader, from the reader back."""
    for use in value.uses:
        owner = use.owner.operation
        if is_reshape(owner):
            for reader, chain in _readers(owner.results[0]):
                yield reader, chain + [owner]
        else:
            yield owner, [owner]


def rope_columns(rope) -> tuple | None:
    """(projection, (groups, width, start, d)) when rope (mode "half") reads, per token, the
    columns g * width + start + [0, d) of each group g of a constant-weight projection's result
    (groups * width columns: one group per head, or one group), and nothing else reads them;
    else None."""
    traced = _trace(operand_at(rope, "x"))
    if traced is None:
        return None
    projection, chain = traced
    w = operand_at(projection, "w")
    cols = _columns(projection, chain)
    if not is_constant(w) or info(w).format != ND or cols is None or cols.shape[-1] % 2:
        return None
    n, d = info(projection.results[0]).shape[-1], cols.shape[-1]
    vectors = np.unique(cols.reshape(-1, d), axis=0)                # one per group, shared by tokens
    groups = len(vectors)
    width = n // groups
    start = int(vectors[0, 0])
    expected = np.arange(groups)[:, None] * width + start + np.arange(d)[None, :]
    if n % groups or start + d > width or not np.array_equal(vectors, expected):
        return None
    # every other reader is a slice that leaves these columns alone
    for reader, path in _readers(projection.results[0]):
        if reader in chain:
            continue
        seen = _columns(projection, path) if last_axis_slice(reader) is not None else None
        if seen is None or np.isin(seen, vectors).any():
            return None
    return projection, (groups, width, start, d)


def _reorder(build: Builder, value, groups: int, width: int, start: int, d: int):
    """value (..., groups * width) with, in each group of `width` columns, the `d` columns from
    `start` interleaved: [a_0 .. a_{h-1}, b_0 .. b_{h-1}] -> [a_0, b_0, a_1, b_1 ..]. Reshapes,
    slices, one transpose and a concat: no data in the IR, folded at compile time."""
    t = info(value)
    lead, h = t.shape[:-1], d // 2
    grouped = build.reshape(value, lead + (groups, width))
    parts = [build.last_axis_slice(grouped, a, b - a) for a, b in ((0, start), (start, start + d), (start + d, width))
             if b > a]
    rope = build.reshape(parts[0 if start == 0 else 1], lead + (groups, 2, h))
    rank = len(lead) + 3
    swapped = build.op(Transpose, {"x": rope}, {"permutation": list(range(rank - 2)) + [rank - 1, rank - 2]},
                       [TensorInfo(lead + (groups, h, 2), t.dtype)]).result
    parts[0 if start == 0 else 1] = build.reshape(swapped, lead + (groups, d))
    whole = parts[0] if len(parts) == 1 else build.concat(parts, len(lead) + 1)
    return build.reshape(whole, t.shape)


def rewrite(rope, projection, layout):
    build = Builder(ir.InsertionPoint(projection), projection.location)
    opdef = opdef_of(projection)
    operands = {o.name: operand_at(projection, o.name) for o in opdef.operands}
    groups, width = layout[:2]
    for name in ("w", "w_scale"):                 # the weight's columns, a per-channel scale
        if name in operands and info(operands[name]).shape[-1] == groups * width:
            operands[name] = _reorder(build, operands[name], *layout)
    new = build.op(opdef, operands, {}, [info(r) for r in projection.results])
    projection.results[0].replace_all_uses_with(new.results[0])
    projection.erase()
    at = Builder(ir.InsertionPoint(rope), rope.location)
    y = rope.results[0]
    interleaved = at.op(Rope, {n: operand_at(rope, n) for n in ("x", "cos", "sin")}, {"mode": "interleave"},
                        [info(y)]).result
    y.replace_all_uses_with(interleaved)
    rope.erase()


@register_pass
@dataclass
class InterleaveRope(ModulePass):
    name = "interleave-rope"
    summary = "Rotate-half RoPE of a constant projection -> interleaved RoPE with the projection's rope columns reordered (what fuse-prolog fuses)"

    def apply(self, module, inputs):
        def find(rope):
            found = rope_columns(rope) if attributes_of(rope)["mode"] == "half" else None
            return None if found is None else ((), (rope, found))
        changed = rewrite_anchors(module, (Rope.name,), find, lambda found: rewrite(found[0], *found[1]),
                                  pass_name=self.name, log=inputs.log)
        return None if changed else UNCHANGED

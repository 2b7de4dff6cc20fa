"""raise-rms-norm, raise-rope: written-out RmsNorm and RoPE -> mla.rms_norm, mla.rope.

Model code writes these two as a handful of elementwise ops, and that is what an importer
(frontend/aten.py, one converter per ATen op) or a hand-written graph holds. fuse-prolog
recognises mla.rms_norm and mla.rope, so these passes come first in the default pipeline and
make the one op of each written-out form; imported and hand-written IR then meet the same
fusion code.

    raise-rms-norm   gamma * cast(x32 * rsqrt(mean(x32 * x32) + eps))         x32 = extf(x) or x
                     (Hugging Face's DeepseekV3RMSNorm/LlamaRMSNorm; casts and gamma optional,
                     products and sums in either order) -> mla.rms_norm(x, gamma, epsilon = eps)
    raise-rope       xd * cos + concat(-xd[..., d/2:], xd[..., :d/2]) * sin     (rotate_half)
                     -> mla.rope(x, cos, sin, mode = "interleave") when xd is x with its pairs
                        de-interleaved (view (..., d/2, 2), swap the last two axes, view back:
                        Hugging Face's rope_interleave), else mode = "half" with x = xd
                     concat([a*c - b*s, a*s + b*c], -1) with a, b = x[..., 0:1], x[..., 1:2] and
                        c, s = f[..., 0:1], f[..., 1:2] (the complex product x * f of DeepSeek's
                        view_as_complex RoPE, on (..., k, 2) pairs)
                     -> mla.rope(x as (..., 2k), [c, c], [s, s], "interleave"), its de-interleaved
                        output put back into pairs (view (..., 2, k), transpose, view): the
                        complex form keeps the pairs interleaved, mla.rope writes them apart

The raised op rounds once (float32 inside) where the written-out form rounds after each op it
was written with: the values differ by bf16 rounding, never more (docs/frontend.md). A float32
result followed by its one arith.truncf is raised with the cast's type (the w8a8 module's f32
RmsNorm and RoPE, rounded to bf16 for the cache): the same one rounding.

A chain is raised only if its intermediate values have no other users: the pass then erases it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from ..dialect.dialect import attributes_of
from ..dialect.primitive import RmsNorm, Rope, Transpose
from ..dialect.types import TensorInfo
from .pattern import Pattern, defining_op, last_axis_slice, match, origin
from .registry import UNCHANGED, ModulePass, register_pass
from .rewrite import DECLINED, Builder, info, rewrite_anchors

# --- IR helpers ----------------------------------------------------------------------------------

def producer(value, *names):
    """The op computing `value` if its name is one of `names`, else None."""
    op = defining_op(value)
    return op if op is not None and op.name in names else None


def splat(value):
    """The float of a splat arith.constant (of any shape), else None."""
    op = producer(value, "arith.constant")
    if op is None:
        return None
    attr = op.attributes["value"]
    if not isinstance(attr, ir.DenseElementsAttr) or not attr.is_splat:
        return None
    value = attr.get_splat_value().value
    # an f32 constant written as 1e-06 holds 9.99999997e-07: its shortest f32 spelling is meant
    return float(str(np.float32(value))) if str(attr.type.element_type) == "f32" else float(value)


def commuted(op):
    """The operand pairs of a commutative binary op, both orders."""
    a, b = op.operands[0], op.operands[1]
    return [(a, b), (b, a)]


def only_users(value, allowed) -> bool:
    """Every user of `value` is one of the ops `allowed`."""
    return all(use.owner.operation in allowed for use in value.uses)


def is_slice(op, start: int, size: int) -> bool:
    """`op` slices [start, start + size) of its source's last axis."""
    return last_axis_slice(op) == (start, size)


def trailing_cast(value):
    """The arith.truncf that is the one user of `value`, else None. A raised op computes in
    float32 and rounds once to its result type, so a float32 result rounded by a cast is the
    op with the cast's type, bit for bit: the raise passes take the cast in."""
    users = [u.owner for u in value.uses]
    return users[0].operation if len(users) == 1 and users[0].name == "arith.truncf" else None


def erase_chain(ops):
    """Erase `ops` (a dead chain), users first, then the constants only they used."""
    remaining = list(dict.fromkeys(op.operation for op in ops))
    constants = []
    while remaining:
        for i, op in enumerate(remaining):
            if all(not list(r.uses) for r in op.results):
                constants += [c for c in (producer(v, "arith.constant") for v in op.operands)
                              if c is not None and c.operation not in constants and c.operation not in remaining]
                del remaining[i]
                op.erase()
                break
        else:
            break
    for c in constants:
        if not list(c.results[0].uses):
            c.erase()


# --- raise-rms-norm ------------------------------------------------------------------------------

def _rms_norm_at(rsqrt):
    """The RmsNorm around an mla.rsqrt: (ops of the chain, x, gamma or None, eps, the result)."""
    add = producer(rsqrt.operands[0], "mla.add")
    if add is None:
        return None
    for m, e in commuted(add):
        mean, eps = producer(m, "mla.mean"), splat(e)
        if mean is not None and eps is not None:
            break
    else:
        return None
    square = producer(mean.operands[0], "mla.mul")
    if square is None or square.operands[0] != square.operands[1]:
        return None
    x32 = square.operands[0]
    users = [u.owner for u in rsqrt.results[0].uses]
    if len(users) != 1 or users[0].name != "mla.mul" or x32 not in list(users[0].operands):
        return None
    normed = users[0]
    chain, y = [rsqrt, add, mean, square, normed, defining_op(e)], normed.results[0]
    cast = producer(x32, "arith.extf")
    x = cast.operands[0] if cast is not None else x32
    if cast is not None:
        chain.append(cast)
    users = [u.owner for u in y.uses]
    if len(users) == 1 and users[0].name == "arith.truncf":
        chain.append(users[0])
        y = users[0].results[0]
        users = [u.owner for u in y.uses]
    gamma = None
    if len(users) == 1 and users[0].name == "mla.mul":
        other = [v for v in users[0].operands if v != y]
        if len(other) == 1 and info(other[0]).shape == (info(x).shape[-1],):
            gamma = other[0]
            chain.append(users[0])
            y = users[0].results[0]
    cast = trailing_cast(y)
    if cast is not None:
        chain.append(cast)
        y = cast.results[0]
    inside = {op.operation for op in chain}
    for op in chain[:5] + chain[6:]:          # the epsilon constant may be shared
        for r in op.results:
            if r != y and not only_users(r, inside):
                return None
    return chain, x, gamma, eps, y


@register_pass
@dataclass
class RaiseRmsNorm(ModulePass):
    name = "raise-rms-norm"
    summary = "Make mla.rms_norm of written-out RmsNorms (x * rsqrt(mean(x^2) + eps) * gamma)"

    def apply(self, module, inputs):
        def find(rsqrt):
            found = _rms_norm_at(rsqrt)
            return None if found is None else (found[0], found)
        changed = rewrite_anchors(module, ("mla.rsqrt",), find, _raise_rms_norm, pass_name=self.name,
                                  log=inputs.log)
        return None if changed else UNCHANGED


def _raise_rms_norm(found):
    """Replace a written-out RmsNorm (what _rms_norm_at found) by one mla.rms_norm."""
    chain, x, gamma, eps, y = found
    out = info(y)
    build = Builder(ir.InsertionPoint(y.owner.operation), y.owner.location)
    if gamma is None:
        gamma = ir.Operation.create(
            "arith.constant", results=[_type((out.shape[-1],), out.dtype)],
            attributes={"value": ir.DenseElementsAttr.get_splat(
                _type((out.shape[-1],), out.dtype), ir.FloatAttr.get(_type((), out.dtype).element_type, 1.0))},
            loc=build.loc, ip=build.ip).result
    normed = build.op(RmsNorm, {"x": x, "gamma": gamma}, {"epsilon": eps}, [out]).result
    y.replace_all_uses_with(normed)
    erase_chain(chain)


def _type(shape, dtype):
    from ..dialect.types import tensor_type
    return tensor_type(tuple(shape), dtype)


# --- raise-rope ----------------------------------------------------------------------------------

def _negation(value):
    """x for a value computed as x * -1 (either order), else None."""
    op = producer(value, "mla.mul")
    if op is None:
        return None, None
    for a, b in commuted(op):
        if splat(b) == -1.0:
            return a, op
    return None, None


def _deinterleaved(xd):
    """(x, ops) when xd = view(transpose(view(x, (..., d/2, 2)), swap last two), (..., d))."""
    collapse = producer(xd, "tensor.collapse_shape")
    swap = producer(collapse.operands[0], "mla.transpose") if collapse else None
    expand = producer(swap.operands[0], "tensor.expand_shape") if swap else None
    if expand is None:
        return None, []
    x, pairs = expand.operands[0], info(expand.results[0]).shape
    rank = len(pairs)
    perm = list(attributes_of(swap)["permutation"])
    if (perm != list(range(rank - 2)) + [rank - 1, rank - 2] or pairs[-1] != 2
            or pairs[:-2] != info(x).shape[:-1] or pairs[-2] * 2 != info(x).shape[-1]):
        return None, []
    return x, [collapse, swap, expand]


def _rotate_half_at(add):
    """The rotate-half RoPE whose final sum is `add`: (chain, x, cos, sin, mode) or None."""
    y = add.results[0]
    for left, right in commuted(add):
        first, second = producer(left, "mla.mul"), producer(right, "mla.mul")
        if first is None or second is None:
            continue
        for xd, cos in commuted(first):
            for rotated, sin in commuted(second):
                cat = producer(rotated, "tensor.concat")
                if cat is None or len(cat.operands) != 2:
                    continue
                d = info(xd).shape[-1] if info(xd).rank else 0
                if d % 2 or cat.attributes["dim"].value != info(rotated).rank - 1:
                    continue
                hi, neg = _negation(cat.operands[0])
                lo = defining_op(cat.operands[1])
                hi_op = defining_op(hi) if hi is not None else None
                if not (is_slice(hi_op, d // 2, d // 2) and is_slice(lo, 0, d // 2)
                        and hi_op.operands[0] == xd and lo.operands[0] == xd):
                    continue
                if info(cos).shape[-1:] != (d,) or info(sin).shape[-1:] != (d,):
                    continue
                chain = [add, first, second, cat, neg, hi_op, lo]
                x, view_ops = _deinterleaved(xd)
                mode = "interleave" if x is not None else "half"
                x = x if x is not None else xd
                inside = {op.operation for op in chain + view_ops}
                if all(only_users(r, inside) for op in chain + view_ops for r in op.results if r != y):
                    return chain + view_ops, x, cos, sin, mode
                if all(only_users(r, inside - {o.operation for o in view_ops}) for op in chain
                       for r in op.results if r != y):
                    return chain, xd, cos, sin, "half"     # the de-interleaved x is used elsewhere
    return None


def _complex_at(cat):
    """The complex product of DeepSeek's RoPE ending in `cat`: (chain, X, cos slice, sin slice)
    or None. X holds the pairs of x, F those of the table: cat([X0*F0 - X1*F1, X0*F1 + X1*F0])."""
    out = info(cat.results[0])
    if len(cat.operands) != 2 or out.rank < 2 or out.shape[-1] != 2 or cat.attributes["dim"].value != out.rank - 1:
        return None
    re_, im = producer(cat.operands[0], "mla.add"), producer(cat.operands[1], "mla.add")
    if re_ is None or im is None:
        return None
    slices = {}

    def product(v):
        """{(source, index), (source, index)} of v = source[..., i:i+1] * source'[..., j:j+1]."""
        op = producer(v, "mla.mul")
        if op is None:
            return None
        parts = []
        for operand in op.operands:
            s = defining_op(operand)
            index = next((i for i in (0, 1) if is_slice(s, i, 1)), None)
            if index is None or info(s.operands[0]).shape[-1] != 2:
                return None
            slices[(s.operands[0], index)] = s
            parts.append((s.operands[0], index))
        return frozenset(parts), op

    for ac_v, negated in commuted(re_):
        bd_v, neg = _negation(negated)
        ac, bd = product(ac_v), product(bd_v) if bd_v is not None else None
        if ac and bd:
            break
    else:
        return None
    terms = [product(v) for v in im.operands]
    if not all(terms):
        return None
    # The product commutes: x is the operand with the result's shape (the table broadcasts),
    # else the first factor of a*c.
    sources = [defining_op(v).operands[0] for v in ac[1].operands]
    if len(set(sources)) != 2:
        return None
    sources.sort(key=lambda s: info(s).shape != out.shape)
    for x, f in ((sources[0], sources[1]), (sources[1], sources[0])):
        if (ac[0] == {(x, 0), (f, 0)} and bd[0] == {(x, 1), (f, 1)}
                and {terms[0][0], terms[1][0]} == {frozenset({(x, 0), (f, 1)}), frozenset({(x, 1), (f, 0)})}):
            break
    else:
        return None
    chain = [cat, re_, im, neg, ac[1], bd[1], terms[0][1], terms[1][1]] + list(slices.values())
    inside = {op.operation for op in chain}
    if not all(only_users(r, inside) for op in chain for r in op.results if r != cat.results[0]):
        return None
    return chain, x, slices[(f, 0)], slices[(f, 1)]


# --- the strided-pairs form (transformers 5's apply_rotary_pos_emb_interleave) ---------------------
#   a, b = x[..., 0::2], x[..., 1::2];  c, s = cos[..., :d/2], sin[..., :d/2] (viewed; the halves
#   are checked in the rewrite, as both RoPEs of a layer read the same ones)
#   cat([a * c - b * s, b * c + a * s], -1)
# with cos = cat(freqs, freqs).cos(): the rotate-half RoPE of x's pairs de-interleaved, i.e.
# mla.rope(x, cos, sin, mode="interleave") with cos and sin given the view c and s have.

def _strided(start):
    """A slice of the last axis with stride 2 from `start` (x[..., start::2])."""
    def check(op):
        t, offsets = info(op.operands[0]), list(op.attributes["static_offsets"])
        sizes, strides = list(op.attributes["static_sizes"]), list(op.attributes["static_strides"])
        return (t.rank == len(sizes) and t.shape[-1] % 2 == 0 and strides == [1] * (t.rank - 1) + [2]
                and offsets == [0] * (t.rank - 1) + [start] and sizes == list(t.shape[:-1]) + [t.shape[-1] // 2])
    return check


def _first_half(op) -> bool:
    part = last_axis_slice(op)
    return part is not None and part[0] == 0 and 2 * part[1] == info(op.operands[0]).shape[-1]


def _minus_one(op) -> bool:
    return splat(op.operands[1]) == -1.0


def _strided_rope_pattern() -> Pattern:
    p = Pattern("RoPE of strided pairs", root="rope")
    x = p.input("x")
    a = p.op("tensor.extract_slice", x, name="even", where=_strided(0))
    b = p.op("tensor.extract_slice", x, name="odd", where=_strided(1))
    # the table halves are inputs: both RoPEs of a layer (query and key) read the same slices
    c, s = p.view(p.input("cos_half")), p.view(p.input("sin_half"))
    bs = p.op("mla.mul", x=p.op("mla.mul", x=b, y=s, name="bs"), y=p.input("minus_one"), where=_minus_one,
              name="negated")
    low = p.op("mla.add", x=p.op("mla.mul", x=a, y=c, name="ac"), y=bs)
    high = p.op("mla.add", x=p.op("mla.mul", x=b, y=c), y=p.op("mla.mul", x=a, y=s))
    p.output("y", p.op("tensor.concat", low, high, name="rope", where=lambda op: len(op.operands) == 2 and
                       op.attributes["dim"].value == info(op.results[0]).rank - 1))
    return p


STRIDED_ROPE = _strided_rope_pattern()


def _rope_from_strided(m):
    """mla.rope(x, cos, sin) with the tables viewed as the halves were (same leading shape)."""
    cat = m.op("rope")
    y = cat.results[0]
    build = Builder(ir.InsertionPoint(cat), cat.location)
    tables = []
    for name, product in (("cos_half", "ac"), ("sin_half", "bs")):
        half_op = defining_op(origin(m.value(name)))
        if half_op is None or half_op.name != "tensor.extract_slice" or not _first_half(half_op):
            return False                        # not the first half of a (..., d) table
        half = info(half_op.results[0]).shape
        used = info(m.op(product).operands[1]).shape            # the half as the product reads it
        table = half_op.operands[0]
        full = used[:-1] + (info(table).shape[-1],)
        if half[:-1] != info(table).shape[:-1] or 2 * used[-1] != full[-1]:
            return False
        tables.append(build.reshape(table, full))
    chain = list(m.operations)
    cast = trailing_cast(y)
    result = info(y)
    if cast is not None:
        chain, y, result = chain + [cast], cast.results[0], info(cast.results[0])
    rope = build.op(Rope, {"x": m.value("x"), "cos": tables[0], "sin": tables[1]}, {"mode": "interleave"},
                    [result]).result
    y.replace_all_uses_with(rope)
    erase_chain([op for op in chain])
    return True


@register_pass
@dataclass
class RaiseRope(ModulePass):
    name = "raise-rope"
    summary = "Make mla.rope of written-out RoPEs (rotate-half, interleaved, strided pairs, complex)"

    def apply(self, module, inputs):
        def find(anchor):
            if anchor.name == "tensor.concat":
                m = match(STRIDED_ROPE, anchor)
                if m is not None and not m.escapes:
                    return m, ("strided", anchor, m)
            rotate_half = anchor.name == "mla.add"
            found = _rotate_half_at(anchor) if rotate_half else _complex_at(anchor)
            return None if found is None else (found[0], ("rotate_half" if rotate_half else "complex", anchor, found))

        def rewrite(found):
            form, anchor, found = found
            if form == "strided":
                return None if _rope_from_strided(found) else DECLINED
            (_rope_from_rotate_half if form == "rotate_half" else _rope_from_complex)(anchor, *found)
        changed = rewrite_anchors(module, ("mla.add", "tensor.concat"), find, rewrite, pass_name=self.name,
                                  log=inputs.log)
        return None if changed else UNCHANGED


def _rope_from_rotate_half(add, chain, x, cos, sin, mode):
    y = add.results[0]
    cast = trailing_cast(y)
    if cast is not None:
        chain, y = chain + [cast], cast.results[0]
    build = Builder(ir.InsertionPoint(add), add.location)
    rope = build.op(Rope, {"x": x, "cos": cos, "sin": sin}, {"mode": mode}, [info(y)]).result
    y.replace_all_uses_with(rope)
    erase_chain(chain)


def _rope_from_complex(cat, chain, x, cos_slice, sin_slice):
    y = cat.results[0]
    out = info(y)
    k = out.shape[-2]
    build = Builder(ir.InsertionPoint(cat), cat.location)
    flat = build.reshape(x, info(x).shape[:-2] + (2 * k,))

    def table(slice_op):          # c (..., k, 1) -> [c, c] (..., 2k): the table per output
        half = build.reshape(slice_op.results[0], info(slice_op.results[0]).shape[:-2] + (k,))
        t = info(half)
        return build.concat([half, half], t.rank - 1)
    cos, sin = table(cos_slice), table(sin_slice)
    rope = build.op(Rope, {"x": flat, "cos": cos, "sin": sin}, {"mode": "interleave"},
                    [TensorInfo(out.shape[:-2] + (2 * k,), out.dtype)]).result
    halves = build.reshape(rope, out.shape[:-2] + (2, k))
    rank = len(out.shape)
    pairs = build.op(Transpose, {"x": halves}, {"permutation": list(range(rank - 2)) + [rank - 1, rank - 2]},
                     [out]).result
    y.replace_all_uses_with(pairs)
    erase_chain(chain)

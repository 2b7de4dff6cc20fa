"""ATen -> mla: one small converter per ATen op (the table `CONVERTERS`), in the manner of
torch-mlir's TorchToLinalg.

A converter receives the importer (`cx`) and one FX node of the functionalized export graph and
writes the node's value with the GraphWriter `cx.g`: mla primitive ops (dialect/primitive.py),
upstream `tensor` slices/reshapes/concatenations and `arith` casts. It converts the one op it is
registered for and recognises nothing across ops: a written-out RmsNorm becomes mla.mul /
mla.mean / mla.rsqrt, a RoPE slices, products and a concatenation; the raise passes
(passes/raise_primitives.py) make mla.rms_norm and mla.rope of them, on the IR, for imported and
hand-written graphs alike. A form a converter cannot express raises through `cx.fail`, which
names the op and the module's source line.

Complex tensors (DeepSeek's RoPE: view_as_complex(x) * freqs_cis) are carried as real tensors
with a trailing axis of 2 (re, im), float32: `cx.info(node)` gives that form, and the complex
product is written with real ops.
"""
from __future__ import annotations

import operator
import re
from typing import Callable

import torch

from ..dialect.primitive import (
    Add,
    Amax,
    Attention,
    Div,
    Gather,
    HeadMatmul,
    Matmul,
    Mean,
    Mul,
    PagedAttention,
    RmsNorm,
    Rsqrt,
    ScatterCache,
)
from ..dialect.types import TensorInfo

aten = torch.ops.aten
CONVERTERS: dict[object, Callable] = {}


def converts(*targets):
    def register(fn):
        for target in targets:
            CONVERTERS[target] = fn
        return fn
    return register


def _size(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _axis(dim: int, rank: int) -> int:
    return dim + rank if dim < 0 else dim


# --- no computation -----------------------------------------------------------------------------

@converts(aten._assert_tensor_metadata.default, aten._assert_scalar.default)
def assertion(cx, node):
    return None


@converts(aten.clone.default, aten.alias.default, aten.contiguous.default, aten.lift_fresh_copy.default)
def identity(cx, node):
    return cx.value(node.args[0])


@converts(operator.getitem)
def getitem(cx, node):
    return cx.value(node.args[0])[node.args[1]]


# --- casts --------------------------------------------------------------------------------------

@converts(aten._to_copy.default, aten.to.dtype, aten.type_as.default)
def to_copy(cx, node):
    x, t = cx.value(node.args[0]), cx.info(node)
    if x.dtype == t.dtype:
        return x
    floats = ("bf16", "f16", "f32", "f64")
    if x.dtype in floats and t.dtype in floats:
        return cx.g.cast(x, t.dtype, node.name)
    op = INT_CASTS.get((x.dtype in floats, t.dtype in floats, x.dtype in INTS and t.dtype in INTS
                        and INTS.index(x.dtype) < INTS.index(t.dtype)))
    if op is None or not {x.dtype, t.dtype} <= set(floats + INTS):       # no bool, no unsigned
        cx.fail(f"a cast from {x.dtype} to {t.dtype} (float casts, float <-> signed integer "
                "and widening integer casts are converted)")
    return cx.g.elementwise(op, [x], t, node.name)


# The casts of written-out int8 quantization (torch: float -> int truncates toward zero, as
# fptosi; quantized values are whole numbers by then): (from float, to float, widening) -> op.
INTS = ("i8", "i32", "i64")
INT_CASTS = {(True, False, False): "arith.fptosi", (False, True, False): "arith.sitofp",
             (False, False, True): "arith.extsi"}


# --- shapes -------------------------------------------------------------------------------------

@converts(aten.view.default, aten._unsafe_view.default, aten.reshape.default, aten.unsqueeze.default,
          aten.squeeze.dim, aten.squeeze.dims, aten.flatten.using_ints, aten.view_as_complex.default,
          aten.view_as_real.default)
def reshape(cx, node):
    """A reshape (a view: no data moves). Complex views keep the real (..., 2) form, so
    view_as_complex / view_as_real are reshapes of it too."""
    return cx.reshape(cx.value(node.args[0]), cx.info(node).shape, node.name)


@converts(aten.slice.Tensor)
def slice_(cx, node):
    x = cx.value(node.args[0])
    dim = _axis(node.args[1] if len(node.args) > 1 else 0, cx.rank(node.args[0]))
    start, end, step = (list(node.args[2:]) + [None, None, None])[:3]
    start, end, step = start or 0, end, step or 1
    size = cx.shape(node.args[0])[dim]
    start = max(start + size, 0) if start < 0 else min(start, size)
    t = cx.info(node)
    if step == 1:
        return cx.slice(x, dim, start, start + t.shape[dim], node.name)
    offsets = [0] * len(t.shape)
    offsets[dim] = start
    strides = [1] * len(t.shape)
    strides[dim] = step
    return cx.g.extract_slice(x, offsets, t.shape, node.name, strides)


@converts(aten.select.int)
def select(cx, node):
    x, dim, index = cx.value(node.args[0]), node.args[1], node.args[2]
    shape = list(cx.shape(node.args[0]))
    dim = _axis(dim, len(shape))
    index = index + shape[dim] if index < 0 else index
    offsets = [0] * len(shape)
    offsets[dim] = index
    shape[dim] = 1
    one = cx.g.extract_slice(x, offsets, shape, node.name + "_row")
    return cx.reshape(one, cx.info(node).shape, node.name)


@converts(aten.split_with_sizes.default, aten.split.Tensor)
def split(cx, node):
    x, sizes = cx.value(node.args[0]), node.args[1]
    shape = list(cx.shape(node.args[0]))
    dim = _axis(node.args[2] if len(node.args) > 2 else 0, len(shape))
    if isinstance(sizes, int):
        sizes = [min(sizes, shape[dim] - start) for start in range(0, shape[dim], sizes)]
    parts, start = [], 0
    for i, size in enumerate(sizes):
        offsets = [0] * len(shape)
        offsets[dim] = start
        part = list(shape)
        part[dim] = size
        parts.append(cx.g.extract_slice(x, offsets, part, f"{node.name}_{i}"))
        start += size
    return parts


@converts(aten.expand.default)
def expand(cx, node):
    """x broadcast along its size-1 axes (k_pe over the heads): copies concatenated, so no
    broadcast op is needed (expand's result is a view; its copies read the same values)."""
    x, t = cx.value(node.args[0]), cx.info(node)
    source = cx.shape(node.args[0])
    if len(source) != len(t.shape):
        cx.fail("an expand that adds axes (unsqueeze first)")
    for axis, (a, b) in enumerate(zip(source, t.shape)):
        if a != b:
            x = cx.g.concat([x] * b, axis, f"{node.name}_{axis}")
    return x


@converts(aten.transpose.int)
def transpose(cx, node):
    rank = cx.rank(node.args[0])
    a, b = _axis(node.args[1], rank), _axis(node.args[2], rank)
    permutation = list(range(rank))
    permutation[a], permutation[b] = permutation[b], permutation[a]
    return cx.permute(cx.value(node.args[0]), permutation, node.name)


@converts(aten.permute.default)
def permute(cx, node):
    rank = cx.rank(node.args[0])
    return cx.permute(cx.value(node.args[0]), [_axis(d, rank) for d in node.args[1]], node.name)


@converts(aten.t.default)
def t(cx, node):
    return cx.permute(cx.value(node.args[0]), [1, 0], node.name)


@converts(aten.cat.default)
def cat(cx, node):
    values = [cx.value(v) for v in node.args[0]]
    dim = _axis(node.args[1] if len(node.args) > 1 else 0, len(cx.info(node).shape))
    if cx.is_complex(node) and dim == len(cx.info(node).shape) - 1:
        cx.fail("a concatenation along the last axis of complex tensors")
    return cx.concat(values, dim, node.name)


# --- elementwise --------------------------------------------------------------------------------

FLOATS = ("bf16", "f16", "f32", "f64")
ARITHMETIC = ("bf16", "f16", "f32")  # what the dialect computes as torch does: float32, one rounding
INTEGERS = ("i32", "i64")            # mla.add / mla.mul of one integer type: exact, wrapping


def _operand(cx, arg, t: TensorInfo, integers: bool = False):
    """A tensor operand, or a Python number as a splat constant, of the result's type `t`.
    Float arithmetic is modelled for bf16, f16 and f32 (float32, one rounding: torch's CPU
    kernels' order); float64 stays PyTorch's (float32 would round where torch does not).
    Integer arithmetic (`integers`: add, sub, mul) is exact in the result's integer type; a
    narrower integer operand is widened (arith.extsi, exact)."""
    if t.dtype in INTEGERS and integers:
        if isinstance(arg, bool) or not isinstance(arg, (int, torch.fx.Node)):
            cx.fail(f"integer arithmetic with {arg!r}")
        if isinstance(arg, int):
            if not -2 ** (int(t.dtype[1:]) - 1) <= arg < 2 ** (int(t.dtype[1:]) - 1):
                cx.fail(f"an integer constant {arg} out of the range of {t.dtype}")
            return cx.g.constant(arg, TensorInfo((), t.dtype), "cst")
        v = cx.value(arg)
        if v.dtype not in INTEGERS or INTEGERS.index(v.dtype) > INTEGERS.index(t.dtype):
            cx.fail(f"a {t.dtype} result of a {v.dtype} operand")
        return v if v.dtype == t.dtype else cx.g.elementwise("arith.extsi", [v], TensorInfo(v.shape, t.dtype),
                                                            f"{arg.name}_{t.dtype}")
    if t.dtype not in ARITHMETIC or (isinstance(arg, torch.fx.Node) and cx.info(arg).dtype not in ARITHMETIC):
        what = t.dtype if t.dtype not in ARITHMETIC else cx.info(arg).dtype
        cx.fail(f"arithmetic on {what} tensors (the dialect computes bf16, f16 and f32 in float32"
                + (", integers exactly in add, sub and mul)" if what in INTEGERS else ")"))
    if isinstance(arg, (int, float)) and not isinstance(arg, bool):
        return cx.g.constant(float(arg), TensorInfo((), t.dtype), "cst")
    if not isinstance(arg, torch.fx.Node):
        cx.fail(f"an operand {arg!r}")
    return cx.value(arg)


def _scaled(cx, node, v, factor, t, name):
    """v * factor (alpha, or -alpha for a subtraction) in t's type; v itself when factor is 1."""
    if factor == 1:
        return v
    factor = int(factor) if t.dtype in INTEGERS else float(factor)
    return cx.g.op(Mul, x=v, y=cx.g.constant(factor, TensorInfo((), t.dtype)), name=name,
                   result={"z": TensorInfo(v.shape, t.dtype)})


def _binary(opdef, integers=False):
    def convert(cx, node):
        t = cx.info(node)
        if cx.is_complex(node):
            cx.fail(f"{node.target} of complex tensors (only their product is converted)")
        x, y = (_operand(cx, a, t, integers) for a in node.args[:2])
        y = _scaled(cx, node, y, node.kwargs.get("alpha", 1), t, node.name + "_alpha")
        return cx.g.op(opdef, x=x, y=y, name=node.name, result={"z": t})
    return convert


converts(aten.add.Tensor, aten.add.Scalar)(_binary(Add, integers=True))
converts(aten.div.Tensor, aten.div.Scalar)(_binary(Div))


@converts(aten.mul.Tensor, aten.mul.Scalar)
def mul(cx, node):
    if cx.is_complex(node):
        return _complex_product(cx, node)
    return _binary(Mul, integers=True)(cx, node)


def _negated(cx, v, name):
    return cx.g.op(Mul, x=v, y=cx.g.constant(-1.0, TensorInfo((), v.dtype)), name=name)


@converts(aten.neg.default)
def neg(cx, node):
    t = cx.info(node)
    return _scaled(cx, node, _operand(cx, node.args[0], t, integers=True), -1, t, node.name)


@converts(aten.sub.Tensor)
def sub(cx, node):
    """x - alpha * y as x + (-alpha) * y (the negation is exact: the same one rounding; for
    integers, exact and wrapping as torch's)."""
    t = cx.info(node)
    x, y = (_operand(cx, a, t, integers=True) for a in node.args[:2])
    y = _scaled(cx, node, y, -node.kwargs.get("alpha", 1), t, node.name + "_neg")
    return cx.g.op(Add, x=x, y=y, name=node.name, result={"z": t})


@converts(aten.pow.Tensor_Scalar)
def pow_(cx, node):
    x, exponent = _float_operand(cx, node), node.args[1]
    if exponent == 1:
        return x
    if exponent != 2:
        cx.fail(f"pow with exponent {exponent} (x ** 2, as RmsNorm writes it, is converted)")
    return cx.g.op(Mul, x=x, y=x, name=node.name, result={"z": cx.info(node)})


@converts(aten.rsqrt.default)
def rsqrt(cx, node):
    return cx.g.op(Rsqrt, x=_float_operand(cx, node), name=node.name, result={"y": cx.info(node)})


@converts(aten.mean.dim)
def mean(cx, node):
    x, dims = _float_operand(cx, node), node.args[1]
    keepdim = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
    if dims is None or [_axis(d, len(x.shape)) for d in dims] != [len(x.shape) - 1]:
        cx.fail(f"mean over dims {dims} (the mean over the last axis is converted)")
    t = cx.info(node)
    y = cx.g.op(Mean, x=x, name=node.name, result={"y": TensorInfo(x.shape[:-1] + (1,), t.dtype)})
    return y if keepdim else cx.reshape(y, t.shape, node.name + "_squeeze")


# --- written-out int8 quantization: the pieces raise-quant recognises (passes/raise_quant.py) ---

def _float_operand(cx, node):
    x = cx.value(node.args[0])
    if x.dtype not in ARITHMETIC:
        cx.fail(f"{x.dtype} operands (bf16, f16 and f32 tensors are converted)")
    return x


@converts(aten.abs.default)
def abs_(cx, node):
    return cx.g.elementwise("math.absf", [_float_operand(cx, node)], cx.info(node), node.name)


@converts(aten.round.default)
def round_(cx, node):
    """torch.round rounds half to even: math.roundeven."""
    return cx.g.elementwise("math.roundeven", [_float_operand(cx, node)], cx.info(node), node.name)


@converts(aten.clamp.default)
def clamp(cx, node):
    """clamp(x, lo, hi) with numbers: arith.maximumf(x, lo), then arith.minimumf(., hi) (both
    propagate NaN, as torch.clamp)."""
    y, t = _float_operand(cx, node), cx.info(node)
    bounds = (list(node.args[1:3]) + [None, None])[:2]
    bounds = [node.kwargs.get(k, b) for k, b in zip(("min", "max"), bounds)]
    for op, bound in zip(("arith.maximumf", "arith.minimumf"), bounds):
        if bound is not None:
            y = cx.g.elementwise(op, [y, cx.g.constant(float(bound), t, "bound")], t, node.name)
    return y


@converts(aten.amax.default, aten.max.dim)
def amax(cx, node):
    """amax(x, dims, keepdim), or max(x, dim, keepdim) whose values (not indices) are read."""
    x, dims = cx.value(node.args[0]), node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", [])
    keepdim = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
    dims = [dims] if isinstance(dims, int) else dims
    if [_axis(d, len(x.shape)) for d in dims] != [len(x.shape) - 1]:
        cx.fail(f"the maximum over dims {dims} (the maximum over the last axis is converted)")
    values = node.meta["val"][0] if node.target == aten.max.dim else node.meta["val"]
    shape, dtype = tuple(int(d) for d in values.shape), cx.info(node.args[0]).dtype
    y = cx.g.op(Amax, x=x, name=node.name, result={"y": TensorInfo(x.shape[:-1] + (1,), dtype)})
    y = y if keepdim else cx.reshape(y, shape, node.name + "_squeeze")
    return [y, None] if node.target == aten.max.dim else y      # max.dim's indices: not converted


@converts(aten.rms_norm.default)
def rms_norm(cx, node):
    x, shape = cx.value(node.args[0]), node.args[1]
    weight = node.args[2] if len(node.args) > 2 else node.kwargs.get("weight")
    eps = node.args[3] if len(node.args) > 3 else node.kwargs.get("eps")
    if len(shape) != 1 or weight is None:
        cx.fail("rms_norm over more than the last axis, or without a weight")
    if eps is None:                      # torch's default: the epsilon of the input's type
        eps = torch.finfo(cx.torch_dtype(node.args[0])).eps
    return cx.g.op(RmsNorm, x=x, gamma=cx.value(weight), epsilon=float(eps), name=node.name,
                   result={"y": cx.info(node)})


def _complex_product(cx, node):
    """(a + ib)(c + id) = (ac - bd) + i(ad + bc) on the (..., 2) form, float32."""
    x, y = cx.value(node.args[0]), cx.value(node.args[1])
    if not (cx.is_complex(node.args[0]) and cx.is_complex(node.args[1])):
        cx.fail("a product of a complex and a real tensor")
    g, t = cx.g, cx.info(node)

    def part(v, i, name):
        return g.extract_slice(v, [0] * (len(v.shape) - 1) + [i], v.shape[:-1] + (1,), f"{node.name}_{name}")
    a, b, c, d = part(x, 0, "xre"), part(x, 1, "xim"), part(y, 0, "yre"), part(y, 1, "yim")
    half = TensorInfo(t.shape[:-1] + (1,), t.dtype)

    def product(u, v, name):
        return g.op(Mul, x=u, y=v, name=f"{node.name}_{name}", result={"z": half})
    bd = product(b, d, "bd")
    re_ = g.op(Add, x=product(a, c, "ac"), y=_negated(cx, bd, f"{node.name}_neg_bd"), name=f"{node.name}_re",
               result={"z": half})
    im = g.op(Add, x=product(a, d, "ad"), y=product(b, c, "bc"), name=f"{node.name}_im", result={"z": half})
    return g.concat([re_, im], len(t.shape) - 1, node.name)


# --- linear algebra -----------------------------------------------------------------------------

@converts(aten.linear.default)
def linear(cx, node):
    """x @ W.T (+ b): the IR keeps nn.Linear's (out, in) weight and transposes it, as the model
    builders do (a constant transpose that fold-constants evaluates once)."""
    x, w = cx.value(node.args[0]), cx.value(node.args[1])
    bias = node.args[2] if len(node.args) > 2 else node.kwargs.get("bias")
    t = cx.info(node)
    wt = cx.permute(w, [1, 0], node.name + "_wt")
    y = cx.g.op(Matmul, x=x, w=wt, name=node.name, result={"y": t})
    if bias is not None:
        y = cx.g.op(Add, x=y, y=cx.value(bias), name=node.name + "_bias", result={"z": t})
    return y


@converts(aten.mm.default, aten.matmul.default, aten.bmm.default)
def matmul(cx, node):
    if cx.rank(node.args[1]) != 2:
        cx.fail("a product whose second operand is not a matrix (batched products of two activations, "
                "as an eager attention's q @ k^T, have no mla form: SDPA converts)")
    return cx.g.op(Matmul, x=cx.value(node.args[0]), w=cx.value(node.args[1]), name=node.name,
                   result={"y": cx.info(node)})


EINSUM = re.compile(r"^([a-z]+),([a-z]+)->([a-z]+)$")


@converts(aten.einsum.default)
def einsum(cx, node):
    """The two products of absorbed MLA and plain linears: x with subscripts P+h+k and a weight
    with h, k, n in any order -> mla.head_matmul (P+h+n); x P+k and a weight with k, n ->
    mla.matmul (P+n). The weight is transposed into (h, k, n) / (k, n) when needed."""
    equation = node.args[0].replace(" ", "")
    m = EINSUM.match(equation)
    if not m or len(node.args[1]) != 2:
        cx.fail(f"einsum {equation!r} (two operands, explicit output, no ellipsis, are converted)")
    a, b, out = m.groups()
    x, w = (cx.value(v) for v in node.args[1])
    contracted = [c for c in a if c in b and c not in out]
    if len(contracted) != 1 or a[-1] != contracted[0]:
        cx.fail(f"einsum {equation!r}: expected one contracted subscript, the last of the first operand")
    k = contracted[0]
    shared = [c for c in a if c in b and c in out]
    new = [c for c in b if c not in a]
    if len(new) != 1 or len(shared) > 1 or (shared and a[-2:] != shared[0] + k) or \
            len(b) != 2 + len(shared) or out != a[:-1 - len(shared)] + "".join(shared) + new[0]:
        cx.fail(f"einsum {equation!r}: has no mla form (supported: '...hk,hkn->...hn' with the weight's "
                "subscripts in any order, '...k,kn->...n')")
    order = "".join(shared) + k + new[0]
    if b != order:
        w = cx.permute(w, [b.index(c) for c in order], node.name + "_w")
    opdef = HeadMatmul if shared else Matmul
    return cx.g.op(opdef, x=x, w=w, name=node.name, result={"y": cx.info(node)})


# --- indexing, caches ---------------------------------------------------------------------------

@converts(aten.index.Tensor)
def index(cx, node):
    """table[indices]: rows of a table (the rope tables by position)."""
    indices = node.args[1]
    if len(indices) != 1 or indices[0] is None:
        cx.fail("indexing with more than one index tensor, or not along the first axis")
    return cx.g.op(Gather, table=cx.value(node.args[0]), indices=cx.value(indices[0]), name=node.name,
                   result={"out": cx.info(node)})


@converts(aten.embedding.default)
def embedding(cx, node):
    return cx.g.op(Gather, table=cx.value(node.args[0]), indices=cx.value(node.args[1]), name=node.name,
                   result={"out": cx.info(node)})


@converts(aten.index_copy.default, aten.index_put.default)
def index_copy(cx, node):
    """cache.index_copy(0, slots, rows) / cache[slots] = rows -> mla.scatter_cache. The cache is
    taken in the paged form (BlockNum, BlockSize, Nkv, H) it is a view of (rows of the flat
    view are slots block * BlockSize + offset), else as (R, 1, 1, F). Along axis 2 of a
    (B, 1, L, H) cache (transformers' StaticCache: cache.index_copy_(2, positions, x)), see
    `_token_axis_copy`."""
    if node.target == aten.index_copy.default:
        target, dim, index, source = node.args[:4]
        if _axis(dim, cx.rank(target)) != 0:
            return _token_axis_copy(cx, node, target, _axis(dim, cx.rank(target)), index, source)
    else:
        target, indices, source = node.args[:3]
        accumulate = node.args[3] if len(node.args) > 3 else node.kwargs.get("accumulate", False)
        if accumulate or len(indices) != 1 or indices[0] is None:
            cx.fail("index_put with accumulate or with more than one index tensor")
        index = indices[0]
    flat = cx.value(target)
    if flat.dtype not in ("bf16", "f16", "i8"):
        cx.fail(f"a write into a {flat.dtype} tensor (caches of bf16, f16 or i8 are converted)")
    rows, width = flat.shape[0], _size(flat.shape[1:])
    cache = next((v for v in cx.view_chain(flat) if len(v.shape) == 4 and v.shape[0] * v.shape[1] == rows
                  and _size(v.shape[2:]) == width), None)
    if cache is None:
        cache = cx.reshape(flat, (rows, 1, 1, width), node.name + "_rows")
    slots = cx.value(index)
    update = cx.reshape(cx.value(source), slots.shape + cache.shape[2:], node.name + "_update")
    out = cx.g.op(ScatterCache, cache=cache, slot_mapping=slots, update=update, name=node.name)
    return cx.reshape(out, flat.shape, node.name + "_view")


PAGE_SIZES = (128, 16)      # the block sizes mla.prolog_v2 and FIA's MLA mode take


def _token_axis_copy(cx, node, target, dim, index, source):
    """cache (B, 1, L, H).index_copy(2, positions (S,), x (B, 1, S, H)): the rows of batch b
    are b * L + position, contiguous (one head), so the cache is a paged cache read in place:
    (B * L / BlockSize, BlockSize, 1, H) with BlockSize 128 or 16 when one divides L, and the
    slots b * L + positions[s] are gathered from a constant table (the lookup is exact).
    When neither divides L, each batch's rows are padded to whole 16-row pages (a copy of the
    cache with zero rows after each batch's L, written and then sliced back: the fused ops
    read pages; the caller's tensor gets the L real rows), slots b * Lp + position."""
    shape = cx.shape(target)
    if len(shape) != 4 or dim != 2 or shape[1] != 1:
        cx.fail(f"index_copy along axis {dim} of a {shape} tensor (along axis 0, or along the tokens "
                "of a (B, 1, L, H) cache are converted)")
    t = cx.info(target)
    if t.dtype not in ("bf16", "f16", "i8"):
        cx.fail(f"a write into a {t.dtype} tensor (caches of bf16, f16 or i8 are converted)")
    batch, length, width = shape[0], shape[2], shape[3]
    if cx.info(index).dtype not in ("i32", "i64") or cx.rank(index) != 1:
        cx.fail("index_copy with an index that is not a 1-D integer tensor")
    block = next((b for b in PAGE_SIZES if length % b == 0), PAGE_SIZES[-1])
    padded = -(-length // block) * block
    rows = cx.value(target)
    if padded != length:
        rows = cx.reshape(rows, (batch, length, width), node.name + "_rows")
        zeros = cx.splat(0, TensorInfo((batch, padded - length, width), t.dtype), node.name + "_pad")
        rows = cx.concat([rows, zeros], 1, node.name + "_padded")
    cache = cx.reshape(rows, (batch * padded // block, block, 1, width), node.name + "_paged")
    steps = cx.shape(index)[0]
    key = ("slots", index, batch, padded)
    if key not in cx.memo:        # one slot mapping for every cache written at these positions
        table = cx.g.integers([[b * padded + position for b in range(batch)] for position in range(length)],
                              TensorInfo((length, batch), "i64"), node.name + "_rows")     # the prolog's cache_index is i64
        picked = cx.g.op(Gather, table=table, indices=cx.value(index), name=node.name + "_picked",
                         result={"out": TensorInfo((steps, batch), "i64")})
        cx.memo[key] = cx.reshape(cx.permute(picked, [1, 0], node.name + "_by_batch"), (batch * steps,),
                                  node.name + "_slots")
    slots = cx.memo[key]
    update = cx.reshape(cx.value(source), (batch * steps, 1, width), node.name + "_update")
    out = cx.g.op(ScatterCache, cache=cache, slot_mapping=slots, update=update, name=node.name)
    if padded != length:
        out = cx.slice(cx.reshape(out, (batch, padded, width), node.name + "_written"), 1, 0, length,
                       node.name + "_unpadded")
    return cx.reshape(out, shape, node.name + "_view")


@converts(aten.arange.default, aten.arange.start, aten.arange.start_step)
def arange(cx, node):
    """A constant (the shapes are static): integer ranges only."""
    t = cx.info(node)
    if t.dtype not in ("i32", "i64"):
        cx.fail(f"an arange of {t.dtype} (integer ranges are converted)")
    args = list(node.args) + [None, None]
    start, end, step = (0, args[0], 1) if node.target == aten.arange.default else \
        (args[0], args[1], args[2] if node.target == aten.arange.start_step else 1)
    if not all(isinstance(v, int) for v in (start, end, step)):
        cx.fail("an arange with symbolic bounds")
    return cx.g.integers(list(range(start, end, step)), t, node.name)


# --- values built piece by piece: new_empty + copy_ into slices (transformers' expand_kv) -------

@converts(aten.new_empty.default, aten.new_zeros.default, aten.zeros.default, aten.empty.memory_format,
          aten.full.default, aten.new_full.default)
def filled(cx, node):
    """A tensor of one value (new_empty's values are undefined: 0 is as good as any). Slices of
    it stay constants (Importer.slice), so a tensor written whole by copies into its slices
    (slice_scatter below) keeps none of it."""
    t = cx.info(node)
    value = 0.0
    if node.target in (aten.full.default, aten.new_full.default):
        value = float(node.args[1] if node.target == aten.full.default else node.args[2])
    if t.dtype not in ("bf16", "f16", "f32", "f64"):
        cx.fail(f"a {t.dtype} tensor of one value (float tensors are converted)")
    return cx.splat(value, t, node.name)


@converts(aten.copy.default)
def copy(cx, node):
    """copy(dst, src): src broadcast to dst's shape and cast to its type (the functional form of
    dst.copy_(src))."""
    t, src = cx.info(node), cx.value(node.args[1])
    if src.dtype != t.dtype:
        floats = ("bf16", "f16", "f32", "f64")
        if src.dtype not in floats or t.dtype not in floats:
            cx.fail(f"a copy from {src.dtype} to {t.dtype}")
        src = cx.g.cast(src, t.dtype, node.name + "_cast")
    if src.shape != t.shape:
        src = cx.broadcast(src, t.shape, node.name)
    return src


@converts(aten.slice_scatter.default)
def slice_scatter(cx, node):
    """base with base[..., start:end] (along dim) replaced by src: the pieces of base around it
    and src, concatenated (Importer.slice takes a piece of an earlier concatenation or of a
    constant exactly, so new_empty + two slice_scatters that cover it become concat(a, b))."""
    base = cx.value(node.args[0])
    src = cx.value(node.args[1])
    dim = _axis(node.args[2] if len(node.args) > 2 else node.kwargs.get("dim", 0), len(base.shape))
    start = node.args[3] if len(node.args) > 3 else node.kwargs.get("start")
    end = node.args[4] if len(node.args) > 4 else node.kwargs.get("end")
    step = node.args[5] if len(node.args) > 5 else node.kwargs.get("step", 1)
    size = base.shape[dim]
    start = 0 if start is None else (max(start + size, 0) if start < 0 else min(start, size))
    end = size if end is None else (max(end + size, 0) if end < 0 else min(end, size))
    if step != 1:
        cx.fail("slice_scatter with a step")
    parts = ([cx.slice(base, dim, 0, start, node.name + "_head")] if start > 0 else []) + [src] + \
        ([cx.slice(base, dim, end, size, node.name + "_tail")] if end < size else [])
    return cx.concat(parts, dim, node.name) if len(parts) > 1 else src


# --- attention ----------------------------------------------------------------------------------

@converts(torch.ops.ascend_mla.paged_attention.default)
def paged_attention(cx, node):
    names = ("query", "key_cache", "value_cache", "block_table", "seq_lengths", "query_rope", "key_rope_cache")
    args = dict(zip(names + ("scale",), node.args))
    args.update(node.kwargs)
    operands = {n: cx.value(args[n]) for n in names if args.get(n) is not None}
    return cx.g.op(PagedAttention, **operands, scale_value=float(args.get("scale", 1.0)), name=node.name,
                   result={"attention_out": cx.info(node)})


@converts(torch.ops.ascend_mla.attention.default)
def dense_attention(cx, node):
    """Attention over dense caches (B, L, Nkv, D) with per-batch lengths -> mla.paged_attention
    over the same tensors read as B blocks of L rows, block table [[0], [1], ...] (a constant):
    mla.attention takes one (S, Skv) mask, not a length per batch."""
    names = ("query", "key", "value", "seq_lengths")
    args = dict(zip(names + ("scale",), node.args))
    args.update(node.kwargs)
    batch = cx.shape(args["query"])[0]
    blocks = cx.g.integers([[b] for b in range(batch)], TensorInfo((batch, 1), "i32"), node.name + "_blocks")
    return cx.g.op(PagedAttention, query=cx.value(args["query"]), key_cache=cx.value(args["key"]),
                   value_cache=cx.value(args["value"]), block_table=blocks,
                   seq_lengths=cx.value(args["seq_lengths"]), scale_value=float(args.get("scale", 1.0)),
                   name=node.name, result={"attention_out": cx.info(node)})


@converts(aten.scaled_dot_product_attention.default)
def scaled_dot_product_attention(cx, node):
    """SDPA over BNSD query (B, N, S, D), key (B, Nkv, L, D), value (B, Nkv, L, Dv):
    - attn_mask a boolean (B or 1, 1, S, L) (True: attend), as transformers' masks for a static
      cache, or an additive float one (0: attend; eager attention's, rewritten to SDPA by
      frontend/canonicalize.py): mla.paged_attention over the key and value read as B blocks of L rows (block table
      [[0], [1], ...]), with per-batch lengths that the caller computes from the mask at each
      call (Importer.mask_lengths: the keys the last query row sees). This is exact when the
      mask is the causal mask of those lengths (row s sees keys [0, length - S + s]), which the
      caller checks at each call (frontend/importer.py `mask_lengths`); another mask (left padding)
      runs the PyTorch graph instead.
    - no mask: mla.attention (dense), causal when is_causal (the bottom-right aligned mask is
      SDPA's top-left one when S = L).
    The output is transposed back to BNSD."""
    args = dict(zip(("query", "key", "value", "attn_mask", "dropout_p", "is_causal"), node.args))
    args.update(node.kwargs)
    query, key, value = (args[k] for k in ("query", "key", "value"))
    mask, causal = args.get("attn_mask"), bool(args.get("is_causal", False))
    if args.get("dropout_p", 0.0) or args.get("enable_gqa", False):
        cx.fail("attention with dropout or enable_gqa")
    if any(cx.rank(v) != 4 for v in (query, key, value)):
        cx.fail("attention of tensors that are not (B, N, S, D)")
    b, n, s_len, d = cx.shape(query)
    length = cx.shape(key)[2]
    scale = args.get("scale")
    scale = float(scale) if scale is not None else 1.0 / d ** 0.5
    q = cx.permute(cx.value(query), [0, 2, 1, 3], node.name + "_q")
    k = cx.permute(cx.value(key), [0, 2, 1, 3], node.name + "_k")
    v = cx.permute(cx.value(value), [0, 2, 1, 3], node.name + "_v")
    out_bsnd = TensorInfo((b, s_len, n, cx.shape(value)[3]), cx.info(node).dtype)
    if mask is not None:
        if causal:
            cx.fail("attention with both a mask and is_causal")
        m = cx.info(mask)
        if m.dtype not in ("i1",) + ARITHMETIC or len(m.shape) != 4 or m.shape[1] != 1 \
                or m.shape[2:] != (s_len, length) or m.shape[0] not in (1, b):
            cx.fail(f"an attention mask {m} (a boolean or additive (B, 1, S, L) mask is converted)")
        lengths = cx.mask_lengths(mask, b)
        blocks = cx.g.integers([[i] for i in range(b)], TensorInfo((b, 1), "i32"), node.name + "_blocks")
        out = cx.g.op(PagedAttention, query=q, key_cache=k, value_cache=v, block_table=blocks,
                      seq_lengths=lengths, scale_value=scale, name=node.name, result={"attention_out": out_bsnd})
    else:
        if causal and s_len != length:
            cx.fail(f"is_causal with {s_len} queries and {length} keys (SDPA's causal mask is top-left "
                    "aligned, the dialect's bottom-right: the same only for a square mask)")
        out = cx.g.op(Attention, query=q, key=k, value=v, scale_value=scale, causal=causal, name=node.name,
                      result={"attention_out": out_bsnd})
    return cx.permute(out, [0, 2, 1, 3], node.name + "_bnsd")

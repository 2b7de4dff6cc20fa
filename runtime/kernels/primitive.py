"""CPU kernels of the primitive mla ops (dialect/primitive.py): NumPy, float32 arithmetic, one
rounding to each result's declared type. They share the prolog kernel's helpers (gemm.py,
common.py), so an unfused graph computes what the fused mla.prolog_v2 computes, bit for bit,
wherever the graph's result types put the rounding points where the fused kernel has them.
"""
from __future__ import annotations

import numpy as np

from ...dialect.primitive import (
    Add,
    Amax,
    Attention,
    CausalMask,
    Div,
    DynamicQuant,
    FormatCast,
    Gather,
    HeadMatmul,
    MaskedPagedAttention,
    Matmul,
    Mean,
    Mul,
    NzCacheView,
    PagedAttention,
    Quantize,
    QuantMatmul,
    RmsNorm,
    Rope,
    Rsqrt,
    ScatterCache,
    Transpose,
)
from ...dialect.types import numpy_dtype
from ..formats import FRACTAL_NZ, NZTensor, c0_for, format_cast, nz_cache_view
from . import jit_attention, jit_glue, kernel, prepares
from .common import (
    bfloat16,
    f32,
    last_writers,
    mlir_kernels,
    rope_deinterleaved,
    round_half_away,
    saturate_int8,
    scatter_paged_cache,
)
from .common import rms_norm as rms_norm_f32
from .gemm import bf16_product, float_matmul, int8_matmul, prepare
from .gemm import head_matmul as head_matmul_f32


def _out(result_types, name, fallback):
    """The NumPy dtype of result `name` (the IR's type; `fallback` in a call without types)."""
    return numpy_dtype(result_types[name].dtype) if result_types else np.dtype(fallback)


@kernel(RmsNorm)
def rms_norm(x, gamma, epsilon, result_types=None):
    nz = isinstance(x, NZTensor)
    xs = x.to_nd() if nz else x
    y = rms_norm_f32(xs, gamma, epsilon, _out(result_types, "y", xs.dtype))
    return (format_cast(y, FRACTAL_NZ) if nz else y,)


def _rows(x, inner=1):
    """x as (rows, *its last `inner` dims); -1 would not do for an empty last dim."""
    return x.reshape(int(np.prod(x.shape[:-inner])), *x.shape[-inner:])


@kernel(Matmul)
def matmul(x, w, result_types=None):
    out = _out(result_types, "y", x.dtype)
    if x.dtype == np.int32:                 # torch.matmul of int32: exact, wrapping modulo 2^32
        rows = _rows(x).astype(np.int64)
        return ((rows @ np.asarray(w, np.int64)).astype(np.int32).reshape(*x.shape[:-1], w.shape[1]),)
    rows = _rows(x)
    y = float_matmul(rows, w, rounds_to_bf16=out == bfloat16 and x.dtype == out)
    return (y.astype(out).reshape(*x.shape[:-1], w.shape[1]),)


@prepares(Matmul)
def _prepare_matmul(weights, types):
    if "w" in weights and types["x"].dtype != "i32":     # int32: exact int64 products, no form
        prepare(weights["w"], "matmul", rounds_to_bf16=bf16_product(types))


@kernel(HeadMatmul)
def head_matmul(x, w, result_types=None):
    out = _out(result_types, "y", x.dtype)
    rows = _rows(x, 2)
    y = head_matmul_f32(rows, w, rounds_to_bf16=out == bfloat16 and x.dtype == out)
    return (y.astype(out).reshape(*x.shape[:-1], w.shape[2]),)


@prepares(HeadMatmul)
def _prepare_head_matmul(weights, types):
    if "w" in weights:
        prepare(weights["w"], "heads", rounds_to_bf16=bf16_product(types))


@kernel(QuantMatmul)
def quant_matmul(x, w, x_scale, w_scale, result_types=None):
    """float(acc_int32) * x_scale[t] * w_scale[n], in that order (numerics.md 7)."""
    rows = _rows(x)
    y = int8_matmul(rows, w) * f32(x_scale).reshape(-1, 1) * f32(w_scale).reshape(1, -1)
    return (y.astype(_out(result_types, "y", np.float32)).reshape(*x.shape[:-1], w.shape[1]),)


@prepares(QuantMatmul)
def _prepare_quant_matmul(weights, types):
    if "w" in weights:
        prepare(weights["w"], "matmul")


@kernel(Rope)
def rope(x, cos, sin, mode, result_types=None):
    if mode == "interleave":
        y = rope_deinterleaved(x, cos, sin)
    else:                                   # rotate-half
        xf, h = f32(x), x.shape[-1] // 2
        y = xf * f32(cos) + np.concatenate([-xf[..., h:], xf[..., :h]], axis=-1) * f32(sin)
    return (y.astype(_out(result_types, "y", x.dtype)),)


@kernel(DynamicQuant)
def dynamic_quant(x, smooth_scales=None, *, rounding):
    """Per row: scale = max|z| / 127 with z = x * smooth; a zero row gives scale 0 and zeros."""
    z = f32(x) if smooth_scales is None else f32(x) * f32(smooth_scales).reshape(-1)
    row_max = np.max(np.abs(z), axis=-1, keepdims=True, initial=0)    # empty rows: 0
    if rounding == "half_even":             # npu_dynamic_quant: rint(z / scale)
        scale = row_max / np.float32(127)
        y = saturate_int8(np.divide(z, scale, out=np.zeros_like(z), where=scale > 0))
    else:                                   # the prolog's query quant (numerics.md 9)
        ratio = np.divide(z * np.float32(127), row_max, out=np.zeros_like(z), where=row_max > 0)
        y = np.clip(round_half_away(ratio), -128, 127).astype(np.int8)
        scale = row_max / np.float32(127)
    return y, scale[..., 0].astype(np.float32)


@kernel(Quantize)
def quantize(x, scale):
    return (saturate_int8(f32(x) * f32(scale)),)


def _elementwise(opdef, name, fn):
    @kernel(opdef)
    def run(x, y, result_types=None):
        out = _out(result_types, "z", x.dtype)
        if np.asarray(x).dtype.kind == "i":         # integers: exact, wrapping in their type
            with np.errstate(over="ignore"):
                return (fn(np.asarray(x), np.asarray(y)).astype(out),)
        if mlir_kernels() and isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
            z = jit_glue.binary(name, x, y, out)
            if z is not None:
                return (z,)
        return (fn(f32(x), f32(y)).astype(out),)
    return run


_elementwise(Add, "add", np.add)
_elementwise(Mul, "mul", np.multiply)
_elementwise(Div, "div", np.divide)


@kernel(Mean)
def mean(x, result_types=None):
    return (np.mean(f32(x), axis=-1, keepdims=True, dtype=np.float32).astype(_out(result_types, "y", x.dtype)),)


@kernel(Amax)
def amax(x, result_types=None):
    return (np.max(x, axis=-1, keepdims=True).astype(_out(result_types, "y", x.dtype)),)


@kernel(Rsqrt)
def rsqrt(x, result_types=None):
    return ((np.float32(1) / np.sqrt(f32(x))).astype(_out(result_types, "y", x.dtype)),)


@kernel(ScatterCache)
def scatter_cache(cache, slot_mapping, update, cache_mode):
    """In place; of duplicate slots the last row wins, negative slots are skipped."""
    slots = np.asarray(slot_mapping, np.int64).reshape(-1)
    rows = update.reshape(slots.size, cache.shape[2] * cache.shape[3])
    writers = last_writers(slots)
    scatter_paged_cache(cache, slots[writers], rows[writers], cache_mode)
    return (cache,)


@kernel(Gather)
def gather(table, indices):
    return (np.take(table, np.asarray(indices, np.int64), axis=0),)


@kernel(FormatCast)
def format_cast_kernel(x, result_types=None):
    nz = result_types is not None and result_types["y"].format == "FRACTAL_NZ"
    return (format_cast(x, 29 if nz else 2),)


@kernel(Transpose)
def transpose(x, permutation):
    return (np.transpose(x, permutation),)


@kernel(CausalMask)
def causal_mask(result_types=None):
    info = result_types["mask"]
    size = info.shape[0]
    return (np.triu(np.ones((size, size), numpy_dtype(info.dtype)), 1),)


@kernel(NzCacheView)
def nz_cache_view_kernel(cache):
    return (nz_cache_view(cache),)


# --- attention -------------------------------------------------------------------------------

def _softmax_pv(scores, v, prob_dtype):
    """softmax(scores) . v with the FIA kernels' order: P = round(exp(s - max)) to prob_dtype
    (the 16-bit type P.V is computed in), P.V accumulated in float32, then divided by the
    float32 row sum. -inf rows give 0. scores (Nkv, R, L), v (Nkv, L, Dv): one BLAS product per
    kv head."""
    row_max = scores.max(axis=-1, keepdims=True, initial=-np.inf)      # no keys: -inf
    row_max = np.where(np.isneginf(row_max), np.float32(0), row_max)
    e = np.exp(scores - row_max)
    row_sum = e.sum(axis=-1, keepdims=True)
    p = e.astype(prob_dtype).astype(np.float32)
    return np.matmul(p, v) / np.maximum(row_sum, np.float32(1e-30))


def _attend(q, k, v, scale, masked, prob_dtype, q_rope=None, k_rope=None, q_scale=None):
    """One sequence: q (S, N, D), k (L, Nkv, D), v (L, Nkv, Dv), masked (S, L) or None,
    q_scale (S, N, 1) or None: a factor per query row and head. Returns (S, N, Dv) float32.
    Query head n reads kv head n // (N / Nkv). The products are BLAS matmuls per kv head (a
    prompt's attention is S x L x N products: NumPy's einsum loops would take seconds)."""
    s_len, n, _ = q.shape
    nkv = k.shape[1]
    g = n // nkv

    def heads_first(x):                                  # (S, N, D) -> (Nkv, G * S, D)
        return np.ascontiguousarray(f32(x).reshape(s_len, nkv, g, -1).transpose(1, 2, 0, 3)).reshape(nkv, g * s_len, -1)
    scores = np.matmul(heads_first(q), f32(k).transpose(1, 2, 0))         # (Nkv, G * S, L)
    if q_rope is not None:
        scores += np.matmul(heads_first(q_rope), f32(k_rope).transpose(1, 2, 0))
    scores = scores.reshape(nkv, g, s_len, -1)
    if q_scale is not None:
        scores *= f32(q_scale).reshape(s_len, nkv, g).transpose(1, 2, 0)[..., None]
    scores *= np.float32(scale)
    if masked is not None:
        scores = np.where(masked, np.float32(-np.inf), scores)
    values = np.ascontiguousarray(f32(v).transpose(1, 0, 2))                # (Nkv, L, Dv)
    out = _softmax_pv(scores.reshape(nkv, g * s_len, -1), values, prob_dtype)
    return out.reshape(nkv, g, s_len, -1).transpose(2, 0, 1, 3).reshape(s_len, n, -1)


def _causal(s_len, length):
    """Query row s sits at position length - s_len + s and sees keys up to it."""
    return np.arange(length)[None, :] > (length - s_len + np.arange(s_len))[:, None]


def _cache_rows(cache, blocks, cache_mode):
    """The rows (len(blocks) * BlockSize, Nkv, H) of the given blocks of a paged cache."""
    _, block_size, nkv, h = cache.shape
    if cache_mode == "PA_NZ":                # blocks stored as [Nkv*H / C0, BlockSize, C0]
        c0 = c0_for(cache.dtype)
        physical = cache.reshape(cache.shape[0], nkv * h // c0, block_size, c0)[blocks]
        return physical.transpose(0, 2, 1, 3).reshape(-1, nkv, h)
    return cache[blocks].reshape(-1, nkv, h)


def _compiled_mla(query, key_cache, value_cache, query_rope, key_rope_cache, key_dequant_scale, cache_mode,
                  out_dtype) -> bool:
    """Does the MLIR-compiled MLA attention (jit_attention.py: the same formulas, rounding points
    and causal rule) serve this call? One latent head in one bf16 PA_BSND cache for keys and
    values, a bf16 result, no dequantization."""
    return (cache_mode == "PA_BSND" and key_cache is value_cache and key_dequant_scale is None
            and query_rope is not None and out_dtype == bfloat16 and key_cache.shape[2] == 1
            and jit_attention.serves(query, query_rope, key_cache, key_rope_cache, key_cache.shape[1]))


@kernel(MaskedPagedAttention)
@kernel(PagedAttention)
def paged_attention(query, key_cache, value_cache, block_table, seq_lengths, query_rope=None,
                    key_rope_cache=None, dequant_scale_query=None, key_dequant_scale=None, atten_mask=None,
                    *, scale_value, cache_mode, result_types=None):
    batch, s_len, n, _ = query.shape
    block_size = key_cache.shape[1]
    out_dtype = _out(result_types, "attention_out", query.dtype)
    if atten_mask is None and _compiled_mla(query, key_cache, value_cache, query_rope, key_rope_cache,
                                            key_dequant_scale, cache_mode, out_dtype):   # no key mask (DSA's)
        out, _ = jit_attention.attention(query, query_rope, key_cache, key_rope_cache, block_table,
                                         np.asarray(seq_lengths).reshape(-1), float(scale_value), block_size, False)
        return (out,)
    # P.V runs in the values' type, as in FIA; int8 values are dequantized: the result's type.
    prob_dtype = out_dtype if query.dtype == np.int8 else query.dtype
    k_scale = None if key_dequant_scale is None else f32(key_dequant_scale).reshape(-1)[0]
    out = np.zeros(query.shape[:3] + value_cache.shape[3:], np.float32)
    for b, length in enumerate(np.asarray(seq_lengths).reshape(-1).tolist()):
        blocks = np.asarray(block_table[b, :-(-length // block_size)], np.int64)
        k = _cache_rows(key_cache, blocks, cache_mode)[:length]
        v = k if value_cache is key_cache else _cache_rows(value_cache, blocks, cache_mode)[:length]
        kr = None if key_rope_cache is None else _cache_rows(key_rope_cache, blocks, cache_mode)[:length]
        q_scale = None
        if k_scale is not None:        # int8: one factor for q.k + q_rope.k_rope, v dequantized
            q_scale = f32(dequant_scale_query[b]) * k_scale
            v = f32(v) * k_scale
        masked = _causal(s_len, length) if s_len > 1 else None
        if atten_mask is not None:       # the keys not selected (DSA): hidden as well
            unselected = np.asarray(atten_mask[b, :, :length], bool)
            masked = unselected if masked is None else masked | unselected
        out[b] = _attend(query[b], k, v, scale_value, masked, prob_dtype,
                         None if query_rope is None else query_rope[b], kr, q_scale)
    return (out.astype(out_dtype),)


@kernel(Attention)
def attention(query, key, value, atten_mask=None, *, scale_value, causal, result_types=None):
    s_len, length = query.shape[1], key.shape[1]
    masked = None
    if atten_mask is not None:
        masked = np.asarray(atten_mask) != 0
    if causal:
        masked = _causal(s_len, length) if masked is None else masked | _causal(s_len, length)
    out = np.stack([_attend(query[b], key[b], value[b], scale_value, masked, query.dtype)
                    for b in range(query.shape[0])])
    return (out.astype(_out(result_types, "attention_out", query.dtype)),)

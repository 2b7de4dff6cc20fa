"""CPU kernels of the serving primitives (dialect/primitive/cache.py, matmul.py). They reuse the MLA helpers of the
fused kernels (common.py: RmsNorm, interleaved RoPE, paged-cache writes; gemm.py: the per-head
product), so the client's unfused chain computes what mla.prolog_v2 computes wherever its
result types put the same rounding points.
"""
from __future__ import annotations

import numpy as np

from ...dialect.primitive import KvRmsNormRopeCache, TransposeBatchMatmul
from ...dialect.types import numpy_dtype
from . import kernel, prepares
from .common import bfloat16, f32, last_writers, rms_norm, rope_deinterleaved, saturate_int8, write_paged_caches
from .gemm import bf16_product, prepare
from .gemm import head_matmul as head_matmul_f32

KV_RMS = 512


@kernel(KvRmsNormRopeCache)
def kv_rmsnorm_rope_cache(kv, gamma, cos, sin, index, k_cache, ckv_cache, k_rope_scale=None,
                          c_kv_scale=None, k_rope_offset=None, c_kv_offset=None, *, epsilon,
                          cache_mode, is_output_kv):
    """c_kv = RmsNorm(kv[..., :512]) * gamma, k_rope = the interleaved RoPE of kv[..., 512:]
    (float32), each written to its cache at the token's slot: rounded to a float cache, or
    saturate(rint(x * scale)) into an int8 one. Negative slots skip; of repeated slots the last
    token wins (the device leaves it undefined). Caches in place; is_output_kv: the float values
    in kv's type, else zeros (the device leaves them unwritten)."""
    kv = np.asarray(kv)
    c_kv = rms_norm(kv[..., :KV_RMS], gamma, epsilon)
    k_rope = rope_deinterleaved(kv[..., KV_RMS:], cos, sin)
    slots = np.asarray(index, np.int64).reshape(-1)
    writers = last_writers(slots)
    mode = "PA_NZ" if cache_mode == "PA_NZ" else "PA_BSND"

    def rows(values, cache, scale):
        flat = values.reshape(slots.size, -1)[writers]
        if scale is not None:
            return saturate_int8(flat * f32(scale).reshape(1, -1))
        return flat.astype(cache.dtype)

    write_paged_caches([(k_cache, slots[writers], rows(k_rope, k_cache, k_rope_scale)),
                        (ckv_cache, slots[writers], rows(c_kv, ckv_cache, c_kv_scale))], mode)
    if is_output_kv:
        k_embed, y = k_rope.astype(kv.dtype), c_kv.astype(kv.dtype)
    else:
        k_embed, y = np.zeros(k_rope.shape, kv.dtype), np.zeros(c_kv.shape, kv.dtype)
    return k_cache, ckv_cache, k_embed, y


@prepares(TransposeBatchMatmul)
def _prepare_transpose_batchmatmul(weights, types):
    if "w" in weights:
        prepare(weights["w"], "heads", rounds_to_bf16=bf16_product(types))


@kernel(TransposeBatchMatmul)
def transpose_batchmatmul(x, w, *, perm_x1, perm_x2, perm_y, batch_split_factor, result_types=None):
    """(x^perm_x1 @ w)^[1, 0, 2]: x as (M, B, K) rows over B heads -- the per-head product of
    mla.head_matmul, float32 sums, one rounding (bf16 rounded like the prolog's W_uk product)."""
    x = np.asarray(x)
    rows = x if list(perm_x1) == [1, 0, 2] else x.transpose(1, 0, 2)      # (M, B, K)
    out = numpy_dtype(result_types["y"].dtype) if result_types else x.dtype
    y = head_matmul_f32(np.ascontiguousarray(rows), w, rounds_to_bf16=out == bfloat16 and x.dtype == out)
    f = int(batch_split_factor)
    if f > 1:                       # (M, B*N) cut into f column blocks, stacked in front
        y = np.ascontiguousarray(y.reshape(y.shape[0], f, -1).transpose(1, 0, 2))
    return (y.astype(out),)

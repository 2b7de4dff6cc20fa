"""CPU kernel of `mla.prolog_v3` (aclnnMlaPrologV3WeightNz): mla.prolog_v2's stages
(runtime/kernels/prolog.py, the same rounding points: docs/numerics.md "MLA prolog") plus

  - c_q = qc_qr_scale * RmsNorm(x @ W_dq) (the factor after the gamma, as the reference test
    multiplies), and c_kv = kc_scale * RmsNorm(...);
  - query_norm = c_q rounded to bf16 (weight_quant_mode 0), or, in the quantized weight modes,
    the per-token int8 form that enters the W_uq_qr product (z = c_q [* smooth_scales_cq],
    scale = max|z| / 127, rint(z / scale)) with that scale as dequant_scale_q_norm (T, 1);
  - the cache modes: PA_BSND / PA_NZ (a slot per token), PA_BLK_BSND / PA_BLK_NZ (cache_index
    holds a block id per BlockSize tokens of each sequence; merged tokens split by
    actual_seq_len), BSND / TND (each token's own row; no cache_index);
  - kv_cache_quant_mode 1 (per tensor: int8 = sat(rint(c_kv * quant_scale_ckv))), 2 (per
    channel, the rope too), 3 (the per-tile packed 656-byte row, below).

The packed row (kv_cache_quant_mode 3): for each token, c_kv's four tiles of 128 values
    a_t = max(max|x_t|, 1e-4) * k_nope_clip_alpha (1 when absent);  x_t = clamp(x_t, -a_t, a_t)
    s_t = a_t / 127;  q_t = sat(rint(x_t / s_t))
    row = [q (512 int8) | bf16(RoPE(k_r)) (64 values, 128 bytes) | s_0 .. s_3 (fp32, 16 bytes)]
(the reference golden; round half to even, as the device's float -> int8 cast).

Every result is computed before a cache is written, the last step (write_paged_caches puts a
cache back should the other write fail): a failing call changes no caller buffer.
"""
from __future__ import annotations

import numpy as np

from ...dialect.dsa import PrologV3
from . import kernel, prepares
from .common import bf16, bfloat16, f32, last_writers, rms_norm, rope_deinterleaved, saturate_int8, write_paged_caches
from .gemm import head_matmul_bf16, prepare
from .prolog import DR, HCKV, _down_projection, _dynamic_quant_query, _query_rope, _Scenario, _up_projection

TILE = 128
CLAMP_MIN = 1e-4


@kernel(PrologV3)
def mla_prolog_v3(*, token_x, weight_dq, weight_uq_qr, weight_uk, weight_dkv_kr, rmsnorm_gamma_cq,
                  rmsnorm_gamma_ckv, rope_sin, rope_cos, kv_cache, kr_cache, cache_index=None,
                  dequant_scale_x=None, dequant_scale_w_dq=None, dequant_scale_w_uq_qr=None,
                  dequant_scale_w_dkv_kr=None, quant_scale_ckv=None, quant_scale_ckr=None,
                  smooth_scales_cq=None, actual_seq_len=None, k_nope_clip_alpha=None,
                  rmsnorm_epsilon_cq, rmsnorm_epsilon_ckv, cache_mode, query_norm_flag,
                  weight_quant_mode, kv_cache_quant_mode, query_quant_mode, ckvkr_repo_mode,
                  quant_scale_repo_mode, tile_size, qc_qr_scale, kc_scale, token_x_dtype,
                  weight_dq_dtype, weight_uq_qr_dtype, weight_dkv_kr_dtype, kv_cache_dtype,
                  result_types=None):
    """Returns (query, query_rope, dequant_scale_q_nope, query_norm, dequant_scale_q_norm,
    kv_cache, kr_cache); the caches are the operands, updated in place. query_norm is computed
    with query_norm_flag, or when the call passes its output (aclnnMlaPrologV3WeightNz has no
    flag: a non-null queryNormOutOptional asks for it; `result_types` names the outputs given)."""
    wq, kvq = weight_quant_mode, kv_cache_quant_mode
    sc = _Scenario(full_quant=wq == 2, uq_qr_int8=wq in (1, 2), kv_int8=kvq in (1, 2),
                   kr_int8=kvq == 2)
    tokens = token_x.shape[:-1]
    x = token_x.reshape(-1, token_x.shape[-1])
    t = x.shape[0]
    n = weight_uk.shape[0]
    d = weight_uk.shape[1]
    cos, sin = f32(rope_cos).reshape(t, DR), f32(rope_sin).reshape(t, DR)
    x_scale = None if dequant_scale_x is None else f32(dequant_scale_x).reshape(t, 1)

    # query path: c_q (fp32, times alpha_q), the up projection, W_uk, RoPE
    mm1 = _down_projection(x, weight_dq, x_scale, dequant_scale_w_dq, sc)
    c_q = rms_norm(mm1, rmsnorm_gamma_cq, rmsnorm_epsilon_cq) * np.float32(qc_qr_scale)
    mm2 = _up_projection(c_q, weight_uq_qr, dequant_scale_w_uq_qr, smooth_scales_cq, sc)
    heads = mm2.reshape(t, n, d + DR)
    query = head_matmul_bf16(heads[..., :d].astype(bfloat16, copy=False), weight_uk)
    query_rope = _query_rope(heads[..., d:], cos[:, None, :], sin[:, None, :])

    # key path
    mm3 = _down_projection(x, weight_dkv_kr, x_scale, dequant_scale_w_dkv_kr, sc)
    kv = rms_norm(mm3[:, :HCKV], rmsnorm_gamma_ckv, rmsnorm_epsilon_ckv) * np.float32(kc_scale)
    k_rope = bf16(rope_deinterleaved(mm3[:, HCKV:], cos, sin))

    if query_quant_mode == 1:        # with the per-tensor kv cache: V2's FQ-KVQ (numerics 9)
        query, dequant_scale_q_nope = _dynamic_quant_query(f32(query))
        with np.errstate(divide="ignore", invalid="ignore"):
            factor = f32(quant_scale_ckv).flat[0] / dequant_scale_q_nope
            query_rope = (f32(query_rope) * factor).astype(bfloat16)
    else:
        dequant_scale_q_nope = np.zeros((0,), np.float32)

    wanted = query_norm_flag or (result_types is not None and "query_norm" in result_types)
    query_norm, dequant_scale_q_norm = _query_norm(c_q, smooth_scales_cq, wanted, wq)

    rows = _cache_rows(kv, k_rope, kvq, quant_scale_ckv, quant_scale_ckr, k_nope_clip_alpha)
    writes = _cache_writes(rows, kv_cache, kr_cache, cache_mode, cache_index, actual_seq_len,
                           tokens, ckvkr_repo_mode)
    # Last, the only step that writes caller memory.
    write_paged_caches(writes, "PA_NZ" if cache_mode in ("PA_NZ", "PA_BLK_NZ") else "PA_BSND")
    return (np.ascontiguousarray(np.asarray(query).reshape(*tokens, n, HCKV)),
            np.ascontiguousarray(query_rope.reshape(*tokens, n, DR)),
            dequant_scale_q_nope, query_norm if query_norm.size == 0 else query_norm.reshape(*tokens, -1),
            dequant_scale_q_norm, kv_cache, kr_cache)


@prepares(PrologV3)
def _prepare_prolog_v3(weights, types):
    for name in ("weight_dq", "weight_uq_qr", "weight_dkv_kr"):
        if name in weights:
            prepare(weights[name], "matmul")
    if "weight_uk" in weights:
        prepare(weights["weight_uk"], "heads")


def _query_norm(c_q, smooth, flag: bool, wq: int):
    """(query_norm, dequant_scale_q_norm): empty without the flag; bf16 c_q in weight mode 0;
    else c_q's per-token int8 form (the W_uq_qr product's input) and its scale (T, 1)."""
    if not flag:
        return np.zeros((0,), bfloat16), np.zeros((0,), np.float32)
    if wq == 0:
        return c_q.astype(bfloat16), np.zeros((0,), np.float32)
    z = c_q if smooth is None else c_q * f32(smooth).reshape(1, -1)
    scale = np.max(np.abs(z), axis=-1, keepdims=True) / np.float32(127)
    z_int8 = saturate_int8(np.divide(z, scale, out=np.zeros_like(z), where=scale > 0))
    return z_int8, scale.astype(np.float32)


def pack_tiles(kv, k_rope, clip_alpha=None) -> np.ndarray:
    """The 656-byte rows (T, 656) int8 of kv (T, 512) fp32 and k_rope (T, 64) bf16 (module doc)."""
    t = kv.shape[0]
    x = f32(kv).reshape(t, HCKV // TILE, TILE)
    alpha = np.float32(1.0) if clip_alpha is None else f32(clip_alpha).reshape(-1)[0]
    a = np.maximum(np.max(np.abs(x), axis=-1, keepdims=True), np.float32(CLAMP_MIN)) * alpha
    s = a / np.float32(127)
    q = saturate_int8(np.clip(x, -a, a) / s).reshape(t, HCKV)
    rope = np.ascontiguousarray(np.asarray(k_rope).astype(bfloat16)).view(np.int8).reshape(t, 2 * DR)
    scales = np.ascontiguousarray(s.reshape(t, HCKV // TILE).astype(np.float32)).view(np.int8)
    return np.concatenate([q, rope, scales], axis=1)


def _cache_rows(kv, k_rope, kvq, quant_scale_ckv, quant_scale_ckr, clip_alpha):
    """(kv rows, kr rows or None) in the caches' types."""
    if kvq == 3:
        return pack_tiles(kv, k_rope, clip_alpha), None
    if kvq == 1:
        return saturate_int8(kv * f32(quant_scale_ckv).flat[0]), k_rope.astype(bfloat16)
    if kvq == 2:
        return (saturate_int8(kv * f32(quant_scale_ckv).reshape(1, -1)),
                saturate_int8(k_rope * f32(quant_scale_ckr).reshape(1, -1)))
    return kv.astype(bfloat16), k_rope.astype(bfloat16)


def token_slots(cache_mode, cache_index, actual_seq_len, tokens, block_size) -> np.ndarray | None:
    """Each token's slot in a (blocks, block_size, ...) view of the cache; None: no write.
    BSND / TND caches are their own (B, S) / (T, 1) blocks: a token's slot is its row."""
    t = int(np.prod(tokens))
    if cache_mode in ("BSND", "TND"):
        return np.arange(t, dtype=np.int64)
    if cache_index is None:
        return None
    index = np.asarray(cache_index, np.int64)
    if cache_mode in ("PA_BSND", "PA_NZ"):
        return index.reshape(t)
    # PA_BLK_*: sequence i's token j goes to block index[i][j // block_size], offset j % block_size
    if len(tokens) == 2:
        b, s = tokens
        j = np.arange(s)
        blocks = index.reshape(b, -1)[:, j // block_size]
        return (blocks * block_size + (j % block_size)[None, :]).reshape(-1)
    ends = np.asarray(actual_seq_len, np.int64).reshape(-1)
    starts = np.concatenate([[0], ends[:-1]])
    first_block = np.concatenate([[0], np.cumsum(-(-(ends - starts) // block_size))[:-1]])
    slots = np.empty(t, np.int64)
    for start, end, first in zip(starts.tolist(), ends.tolist(), first_block.tolist()):
        j = np.arange(end - start)
        slots[start:end] = index[first + j // block_size] * block_size + j % block_size
    return slots


def _cache_view(cache, cache_mode, tokens):
    """The cache as (blocks, block_size, Nkv, D) without a copy."""
    if cache_mode == "TND":
        return cache[:, None]                       # (T, 1, Nkv, D)
    return cache                                    # paged, or BSND (B, S, Nkv, D)


def _cache_writes(rows, kv_cache, kr_cache, cache_mode, cache_index, actual_seq_len, tokens,
                  ckvkr_repo_mode):
    kv_rows, kr_rows = rows
    kv_view = _cache_view(kv_cache, cache_mode, tokens)
    if kv_view.size == 0 or kv_view.shape[0] == 0:
        return []
    slots = token_slots(cache_mode, cache_index, actual_seq_len, tokens, kv_view.shape[1])
    if slots is None or slots.size == 0:
        return []
    writers = last_writers(slots)
    writes = [(kv_view, slots[writers], kv_rows[writers])]
    if kr_rows is not None and ckvkr_repo_mode == 0:
        writes.append((_cache_view(kr_cache, cache_mode, tokens), slots[writers], kr_rows[writers]))
    return writes

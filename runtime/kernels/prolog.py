"""CPU kernels of `mla.prolog` (aclnnMlaProlog) and `mla.prolog_v2` (aclnnMlaPrologV2WeightNz,
torch_npu.npu_mla_prolog_v2): the MLA pre-processing of one layer, per token t and head n

    query path  c_q = RmsNorm(x @ W_dq);  [q_c | q_r] = c_q @ W_uq_qr (per head: D then Dr columns)
                query[t, n] = q_c[t, n] @ W_uk[n];  query_rope[t, n] = RoPE(q_r[t, n])
    key path    [c_kv | k_r] = x @ W_dkv_kr;  kv = RmsNorm(c_kv);  k_rope = RoPE(k_r)
                kv, k_rope -> paged caches at slot cache_index[t] (in place)

with the rounding points of docs/numerics.md ("MLA prolog", points 1-9), which the code follows
line by line. The quant scenario comes from the dtypes (spec A5.6): token_x int8 = full quant
(FQ), weight_uq_qr int8 = partial quant (PQ, or FQ), kv_cache int8 = quantized kv cache (KVQ).
The kernel assumes the verifier accepted the call; it only rejects a cache_index beyond the
cache (numerics 5) and a strided PA_NZ cache, before anything is written. Every result is
computed before the caches are written, which is the last step (write_paged_caches, which also
puts a cache back should the other one fail): a call that fails changes no caller buffer.

Choices where numerics.md leaves the exact arithmetic open, after the Ascend kernels
(ops-transformer mla_prolog, NON-SEED EVIDENCE):
  - c_q is quantized per token as rint(z / s), s = max|z| / 127, z = c_q * smooth: the kernel's
    float -> int8 cast rounds half to even. (numerics.md's division; the device multiplies by a
    reciprocal, which can differ only within a float32 ulp of a rounding tie.)
  - A quantized kv cache takes the float32 RmsNorm result; a quantized kr cache takes the
    bf16-rounded RoPE result (the kernel ropes into a bf16 buffer, then quantizes).
  - In FQ-KVQ a zero query row has dequant scale 0; the query_rope rescale then divides by 0
    like the device's float unit (inf/nan): the seeds say nothing about that case.
  - Duplicate cache_index values: the highest token wins. Negative values skip the token.

The products (bf16 with float32 accumulation, exact int8, the per-head W_uk product) and the
once-per-weight conversions are runtime/kernels/gemm.py's, shared with the primitive kernels, so
a fused and an unfused program compute the same bits.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dialect.prolog import Prolog, PrologV2
from . import kernel, prepares
from .common import (
    bf16,
    bfloat16,
    f32,
    last_writers,
    rms_norm,
    rope_deinterleaved,
    rope_halves,
    round_half_away,
    saturate_int8,
    torch_module,
    write_paged_caches,
)
from .gemm import bf16_matmul, head_matmul_bf16, int8_matmul, numpy_bf16, prepare, torch_bf16, torch_glue

HCQ, HCKV, D, DR = 1536, 512, 128, 64


# --------------------------------------------------------------------------------------------
# the op
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Scenario:
    full_quant: bool    # token_x, weight_dq, weight_dkv_kr int8 (FQ-KVNQ, FQ-KVQ)
    uq_qr_int8: bool    # weight_uq_qr int8 (PQ-*, FQ-*)
    kv_int8: bool       # kv cache quantized (PQ-KVQ: per channel, FQ-KVQ: per tensor)
    kr_int8: bool       # kr cache quantized (PQ-KVQ only)

    @property
    def query_int8(self) -> bool:   # FQ-KVQ: dynamic per-(token, head) quant of the query
        return self.full_quant and self.kv_int8


def _scenario(token_x, weight_uq_qr, kv_cache, kr_cache) -> _Scenario:
    return _Scenario(full_quant=token_x.dtype == np.int8, uq_qr_int8=weight_uq_qr.dtype == np.int8,
                     kv_int8=kv_cache.dtype == np.int8, kr_int8=kr_cache.dtype == np.int8)


@kernel(PrologV2)
def mla_prolog_v2(*, token_x, weight_dq, weight_uq_qr, weight_uk, weight_dkv_kr, rmsnorm_gamma_cq,
                  rmsnorm_gamma_ckv, rope_sin, rope_cos, cache_index, kv_cache, kr_cache,
                  dequant_scale_x=None, dequant_scale_w_dq=None, dequant_scale_w_uq_qr=None,
                  dequant_scale_w_dkv_kr=None, quant_scale_ckv=None, quant_scale_ckr=None,
                  smooth_scales_cq=None, rmsnorm_epsilon_cq, rmsnorm_epsilon_ckv,
                  cache_mode, result_types=None):
    """Returns (query, query_rope, kv_cache, kr_cache, dequant_scale_q_nope); the caches are
    the operands, updated in place. `result_types` (the IR's, when given) only matters for
    dequant_scale_q_nope outside FQ-KVQ: zeros of shape (1,), or (T_eff, N, 1) when the IR
    declares that form (V2 allows it in FQ-KVNQ)."""
    sc = _scenario(token_x, weight_uq_qr, kv_cache, kr_cache)
    tokens = token_x.shape[:-1]                     # (T,) or (B, S): flattened row-major
    x = token_x.reshape(-1, token_x.shape[-1])      # bf16 or int8: the products convert it
    t = x.shape[0]
    slots = np.asarray(cache_index, dtype=np.int64).reshape(t)
    _check_cache_index(slots, kv_cache)
    _check_nz_caches_contiguous(cache_mode, kv_cache=kv_cache, kr_cache=kr_cache)
    cos = f32(rope_cos).reshape(t, DR)
    sin = f32(rope_sin).reshape(t, DR)
    x_scale = None if dequant_scale_x is None else f32(dequant_scale_x).reshape(t, 1)

    # query path
    mm1 = _down_projection(x, weight_dq, x_scale, dequant_scale_w_dq, sc)
    # c_q rounded to bf16 where it enters the bf16 W_uq_qr product; float32 for the int8 one
    c_q = rms_norm(mm1, rmsnorm_gamma_cq, rmsnorm_epsilon_cq, np.float32 if sc.uq_qr_int8 else bfloat16)
    mm2 = _up_projection(c_q, weight_uq_qr, dequant_scale_w_uq_qr, smooth_scales_cq, sc)
    heads = mm2.reshape(t, weight_uk.shape[0], D + DR)
    q_c = heads[..., :D].astype(bfloat16, copy=False)   # rounded where it enters the bf16 W_uk matmul
    # the bf16 results, each rounded once
    query = head_matmul_bf16(q_c, weight_uk)
    query_rope = _query_rope(heads[..., D:], cos[:, None, :], sin[:, None, :])

    # key path
    mm3 = _down_projection(x, weight_dkv_kr, x_scale, dequant_scale_w_dkv_kr, sc)
    kv = rms_norm(mm3[:, :HCKV], rmsnorm_gamma_ckv, rmsnorm_epsilon_ckv, np.float32 if sc.kv_int8 else bfloat16)
    k_rope = bf16(rope_deinterleaved(mm3[:, HCKV:], cos, sin))

    if sc.query_int8:           # FQ-KVQ (numerics 9)
        query, dequant_scale_q_nope = _dynamic_quant_query(f32(query))
        with np.errstate(divide="ignore", invalid="ignore"):
            # The device's order (MulQr): one float32 factor per (t, n), then the product.
            factor = f32(quant_scale_ckv).flat[0] / dequant_scale_q_nope
            rescaled = f32(query_rope) * factor
        query_rope = rescaled.astype(bfloat16)
    else:
        declared = (result_types or {}).get("dequant_scale_q_nope")
        per_token_head = declared is not None and declared.rank == 3
        dequant_scale_q_nope = np.zeros((t, weight_uk.shape[0], 1) if per_token_head else (1,),
                                        np.float32)

    # Last, the only step that writes caller memory: every result is computed by now.
    writes = _cache_writes(kv, k_rope, slots, kv_cache, kr_cache, quant_scale_ckv, quant_scale_ckr, sc)
    write_paged_caches(writes, cache_mode)
    n = weight_uk.shape[0]
    # contiguous, as torch_npu's outputs are (FIA's eager call rejects strided views, FIA-014)
    return (np.ascontiguousarray(query.reshape(*tokens, n, HCKV)),
            np.ascontiguousarray(query_rope.reshape(*tokens, n, DR)),
            kv_cache, kr_cache, dequant_scale_q_nope)


@prepares(PrologV2)
@prepares(Prolog)
def _prepare_prolog(weights, types):
    """The three projections (bf16 products, or int8 ones for int8 weights) and W_uk's
    per-head product, as the stages below call them."""
    for name in ("weight_dq", "weight_uq_qr", "weight_dkv_kr"):
        if name in weights:
            prepare(weights[name], "matmul")
    if "weight_uk" in weights:
        prepare(weights["weight_uk"], "heads")


@kernel(Prolog)
def mla_prolog_v1(**operands):
    """V1: no full-quant scenarios and no dequant_scale_q_nope result."""
    return mla_prolog_v2(**operands)[:4]


# --------------------------------------------------------------------------------------------
# stages
# --------------------------------------------------------------------------------------------

def _down_projection(x, weight, x_scale, w_scale, sc):
    """x @ W_dq or x @ W_dkv_kr (numerics 2, 7).

    bf16: the product rounded to bf16 (a bfloat16 array). Full quant: the exact int8 product
    dequantized per token and per channel, float(acc) * x_scale[t] * w_scale[c], left unrounded
    (float32) for RmsNorm / RoPE.
    """
    if sc.full_quant:
        return int8_matmul(x, weight) * x_scale * f32(w_scale).reshape(1, -1)
    return bf16_matmul(x, weight)


def _up_projection(c_q, weight_uq_qr, w_scale, smooth, sc):
    """c_q @ W_uq_qr (numerics 2, 8).

    bf16: bf16(bf16(c_q) @ W), a bfloat16 array. int8 weight: z = c_q (float32, not rounded) *
    smooth is quantized per token, z_int8 = rint(z / s) with s = max|z| / 127, and the exact
    int8 product is dequantized as float(acc) * s[t] * w_scale[c] (float32). A zero row has
    s = 0 and z_int8 = 0.
    """
    if not sc.uq_qr_int8:
        return bf16_matmul(c_q.astype(bfloat16, copy=False), weight_uq_qr)
    z = c_q if smooth is None else c_q * f32(smooth).reshape(1, -1)
    scale = np.max(np.abs(z), axis=-1, keepdims=True) / np.float32(127)
    z_int8 = saturate_int8(np.divide(z, scale, out=np.zeros_like(z), where=scale > 0))
    return int8_matmul(z_int8, weight_uq_qr) * scale * f32(w_scale).reshape(1, -1)


def _query_rope(q_r, cos, sin):
    """RoPE of the query's rope columns (numerics 4), rounded to bf16. The largest elementwise
    stage (T x N x Dr): in torch, on every core, when torch imports; the same float32 operations
    as NumPy's, so the same bits."""
    if q_r.dtype != bfloat16 or not torch_glue():
        return rope_deinterleaved(q_r, cos, sin).astype(bfloat16)
    torch = torch_module()
    x = torch_bf16(torch, q_r, strided=True).float()
    cos, sin = (torch.from_numpy(np.require(a, requirements="W")) for a in (cos, sin))   # torch warns on read-only
    rotated = rope_halves(x, cos, sin, torch.cat)
    return numpy_bf16(rotated.to(torch.bfloat16))


def _dynamic_quant_query(query):
    """Per (token, head) over Hckv (numerics 9): scale = max|q| / 127, q8 = round(q * 127 / max),
    ties away from zero; an all-zero row gives scale 0 and zeros. Returns (int8, (T, N, 1))."""
    row_max = np.max(np.abs(query), axis=-1, keepdims=True)
    # q * 127 is exact in float32 (bf16 values), so the division rounds only once.
    ratio = np.divide(query * np.float32(127), row_max, out=np.zeros_like(query), where=row_max > 0)
    return (np.clip(round_half_away(ratio), -128, 127).astype(np.int8),
            row_max / np.float32(127))


def _check_cache_index(slots, kv_cache):
    """An index >= BlockNum * BlockSize is undefined on the device: reject the call up front.
    BlockNum = 0 (Skv = 0) means "caches not updated", so nothing is checked then (spec A7)."""
    capacity = kv_cache.shape[0] * kv_cache.shape[1]
    if capacity and slots.size and slots.max() >= capacity:
        t = int(np.argmax(slots >= capacity))
        raise ValueError(f"cache_index: value {int(slots[t])} of token {t} is outside "
                         f"[0, BlockNum*BlockSize) = [0, {capacity}) (negative values skip a token)")


def _check_nz_caches_contiguous(cache_mode, **caches):
    """PA_NZ addresses a cache's memory in NZ order, which a strided view does not have: reject
    it before either cache is written (a failure between the two scatters would leave one written)."""
    if cache_mode != "PA_NZ":
        return
    for name, cache in caches.items():
        if not cache.flags.c_contiguous:
            raise ValueError(f"{name}: a PA_NZ cache must be C-contiguous (its memory is addressed "
                             f"in NZ order), got strides {cache.strides}")


def _cache_writes(kv, k_rope, slots, kv_cache, kr_cache, quant_scale_ckv, quant_scale_ckr, sc):
    """The rows each cache receives, as (cache, slots, rows) (numerics 5, 6). Skipped: negative
    slots, every token when BlockNum = 0; of duplicate slots the highest token wins."""
    if kv_cache.shape[0] == 0:
        return []
    tokens = last_writers(slots)
    kv, k_rope, slots = kv[tokens], k_rope[tokens], slots[tokens]
    if sc.kv_int8:      # FQ-KVQ: per tensor (the first element); PQ-KVQ: per channel
        scale = f32(quant_scale_ckv)
        scale = scale.flat[0] if sc.full_quant else scale.reshape(1, -1)
        kv_rows = saturate_int8(kv * scale)
    else:
        kv_rows = kv.astype(bfloat16, copy=False)
    if sc.kr_int8:
        kr_rows = saturate_int8(k_rope * f32(quant_scale_ckr).reshape(1, -1))
    else:
        kr_rows = k_rope.astype(bfloat16)
    return [(kv_cache, slots, kv_rows), (kr_cache, slots, kr_rows)]

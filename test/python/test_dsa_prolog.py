"""mla.prolog_v3 (npu_mla_prolog_v3): mla.prolog_v2 plus query_norm, the scale corrections, the
cache modes and the per-tile packed int8 cache.

V3's query path and its non-packed caches are V2's arithmetic (runtime/kernels/prolog.py, tested
against its own independent reference in test_prolog_numerics.py): the scenarios V2 has are
checked bit for bit against the V2 kernel on the same inputs. What V3 adds is checked against
float64 computations written here: query_norm = bf16(alpha_q * RmsNorm(x @ W_dq)), the kc_scale
on the latent, and the 656-byte rows, unpacked byte by byte and compared with an independent
quantization of each tile (float64; a value within 1e-6 of a rounding tie may land either way).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ascend_mla import ops
from ascend_mla.runtime.formats import format_cast
from ascend_mla.runtime.kernels import get_kernel

BF16 = np.dtype(ml_dtypes.bfloat16)
HE, HCQ, N, D, DR, HCKV = 1024, 1536, 2, 128, 64, 512


@pytest.fixture(autouse=True)
def numpy_matmuls(monkeypatch):
    monkeypatch.setenv("ASCEND_MLA_MATMUL", "numpy")


def weights(rng, int8_uq=False):
    def w(shape, scale):
        return (rng.standard_normal(shape) * scale).astype(np.float32)
    wdq = w((HE, HCQ), HE ** -0.5).astype(BF16)
    wuq = w((HCQ, N * (D + DR)), HCQ ** -0.5)
    wuq_scale = None
    if int8_uq:
        wuq_scale = (np.abs(wuq).max(0, keepdims=True) / 127).astype(np.float32)
        wuq = np.clip(np.rint(wuq / wuq_scale), -127, 127).astype(np.int8)
    else:
        wuq = wuq.astype(BF16)
    return dict(token_x=w((4, HE), 1).astype(BF16), weight_dq=wdq, weight_uq_qr=wuq,
                weight_uk=w((N, D, HCKV), D ** -0.5).astype(BF16),
                weight_dkv_kr=w((HE, HCKV + DR), HE ** -0.5).astype(BF16),
                rmsnorm_gamma_cq=rng.uniform(0.8, 1.2, HCQ).astype(BF16),
                rmsnorm_gamma_ckv=rng.uniform(0.8, 1.2, HCKV).astype(BF16),
                rope_sin=w((4, DR), 0.5).astype(BF16), rope_cos=w((4, DR), 0.5).astype(BF16)), wuq_scale


def nz(arguments):
    out = dict(arguments)
    for name in ("weight_dq", "weight_uq_qr", "weight_dkv_kr"):
        out[name] = format_cast(out[name], 29)
    return out


def caches(dtype=BF16, blocks=2, block=16, width=HCKV, kr=True):
    kv = np.zeros((blocks, block, 1, width), dtype)
    return kv, (np.zeros((blocks, block, 1, DR), BF16) if kr else np.zeros((0,), BF16))


SLOTS = np.array([5, 17, 0, 30], np.int64)


def v2(arguments, kv, kr, **scales):
    """mla.prolog_v2's kernel on the same inputs (its scenario from the dtypes)."""
    kernel = get_kernel("mla.prolog_v2")
    return kernel(**nz(arguments), cache_index=SLOTS, kv_cache=kv, kr_cache=kr, **scales,
                  rmsnorm_epsilon_cq=1e-6, rmsnorm_epsilon_ckv=1e-6, cache_mode="PA_BSND")


def ref_c_q(arguments, alpha=1.0):
    """float64 alpha * RmsNorm(bf16(x @ W_dq)) (the product rounded to bf16: numerics 2)."""
    mm = np.asarray(arguments["token_x"], np.float32) @ np.asarray(arguments["weight_dq"], np.float32)
    mm = mm.astype(BF16).astype(np.float64)
    rms = np.sqrt((mm * mm).mean(-1, keepdims=True) + 1e-6)
    return alpha * mm / rms * np.asarray(arguments["rmsnorm_gamma_cq"], np.float64)


def test_nq_is_v2_plus_query_norm():
    rng = np.random.default_rng(1)
    arguments, _ = weights(rng)
    kv, kr = caches()
    kv2, kr2 = caches()
    query, query_rope, dq_nope, query_norm, dq_norm = ops.npu_mla_prolog_v3(
        **nz(arguments), kv_cache=kv, kr_cache=kr, cache_index=SLOTS, query_norm_flag=True,
        rmsnorm_epsilon_cq=1e-6, rmsnorm_epsilon_ckv=1e-6)
    q2, qr2, kv2, kr2, _ = v2(arguments, kv2, kr2)
    np.testing.assert_array_equal(query.view(np.uint16), q2.view(np.uint16))
    np.testing.assert_array_equal(query_rope.view(np.uint16), qr2.view(np.uint16))
    np.testing.assert_array_equal(kv.view(np.uint16), kv2.view(np.uint16))
    np.testing.assert_array_equal(kr.view(np.uint16), kr2.view(np.uint16))
    assert dq_nope.shape == (0,) and dq_norm.shape == (0,)
    assert query_norm.shape == (4, HCQ) and query_norm.dtype == BF16
    expected = ref_c_q(arguments)
    np.testing.assert_allclose(query_norm.astype(np.float64), expected, rtol=2.0 ** -8, atol=1e-6)


def test_scale_corrections_and_no_query_norm():
    """qc_qr_scale multiplies c_q after the gamma (query_norm and the query path), kc_scale the
    latent written to the cache; without query_norm_flag both norm outputs are empty."""
    rng = np.random.default_rng(2)
    arguments, _ = weights(rng)
    kv, kr = caches()
    kv1, kr1 = caches()
    _, _, _, qn, _ = ops.npu_mla_prolog_v3(**nz(arguments), kv_cache=kv, kr_cache=kr, cache_index=SLOTS,
                                           query_norm_flag=True, qc_qr_scale=0.5, kc_scale=2.0,
                                           rmsnorm_epsilon_cq=1e-6, rmsnorm_epsilon_ckv=1e-6)
    np.testing.assert_allclose(qn.astype(np.float64), ref_c_q(arguments, 0.5), rtol=2.0 ** -8, atol=1e-6)
    *_, qn1, dn1 = ops.npu_mla_prolog_v3(**nz(arguments), kv_cache=kv1, kr_cache=kr1, cache_index=SLOTS,
                                         rmsnorm_epsilon_cq=1e-6, rmsnorm_epsilon_ckv=1e-6)
    assert qn1.shape == (0,) and dn1.shape == (0,)
    # kc_scale 2 doubles the latent exactly (a power of two), the rope part is unchanged
    written = kv.reshape(-1, HCKV)[SLOTS].astype(np.float32)
    plain = kv1.reshape(-1, HCKV)[SLOTS].astype(np.float32)
    np.testing.assert_array_equal(written, 2 * plain)
    np.testing.assert_array_equal(kr.view(np.uint16), kr1.view(np.uint16))


def unpack(rows):
    """Byte-exact reading of (n, 656) int8 rows: (int8 (n, 512), bf16 (n, 64), fp32 (n, 4))."""
    rows = np.ascontiguousarray(rows).view(np.uint8)
    return (rows[:, :512].view(np.int8), rows[:, 512:640].copy().view(BF16),
            rows[:, 640:656].copy().view(np.float32))


def test_per_tile_packed_cache():
    """(1, 3, 0), vLLM-Ascend's C8 prolog: int8 W_uq_qr, the 656-byte rows in a PA_BSND cache,
    an empty kr_cache, k_nope_clip_alpha; query_norm int8 with its per-token scale."""
    rng = np.random.default_rng(3)
    arguments, wuq_scale = weights(rng, int8_uq=True)
    kv, kr = caches(np.int8, width=656, kr=False)
    alpha = np.float32([0.9])
    query, query_rope, _, qn, dqn = ops.npu_mla_prolog_v3(
        **nz(arguments), kv_cache=kv, kr_cache=kr, cache_index=SLOTS, dequant_scale_w_uq_qr=wuq_scale,
        k_nope_clip_alpha=alpha, query_norm_flag=True, weight_quant_mode=1, kv_cache_quant_mode=3,
        ckvkr_repo_mode=1, quant_scale_repo_mode=1, rmsnorm_epsilon_cq=1e-6, rmsnorm_epsilon_ckv=1e-6)
    assert kr.shape == (0,)
    # the V2 kernel's PQ-KVNQ on the same inputs: its latent (bf16 cache) and rope rows
    kv2, kr2 = caches()
    q2, qr2, kv2, kr2, _ = v2(arguments, kv2, kr2, dequant_scale_w_uq_qr=wuq_scale)
    np.testing.assert_array_equal(query.view(np.uint16), q2.view(np.uint16))
    np.testing.assert_array_equal(query_rope.view(np.uint16), qr2.view(np.uint16))
    latent_int8, rope, scales = unpack(kv.reshape(-1, 656)[SLOTS])
    np.testing.assert_array_equal(rope.view(np.uint16), kr2.reshape(-1, DR)[SLOTS].view(np.uint16))
    # the latent before rounding: recomputed in float64 from the bf16 product (kernel's fp32)
    mm = (np.asarray(arguments["token_x"], np.float32) @ np.asarray(arguments["weight_dkv_kr"], np.float32))
    c = mm.astype(BF16).astype(np.float64)[:, :HCKV]
    c = c / np.sqrt((c * c).mean(-1, keepdims=True) + 1e-6) * np.asarray(arguments["rmsnorm_gamma_ckv"], np.float64)
    tiles = c.reshape(4, 4, 128)
    a = np.maximum(np.abs(tiles).max(-1), 1e-4) * 0.9
    np.testing.assert_allclose(scales, a / 127, rtol=1e-6)
    x = np.clip(tiles, -a[..., None], a[..., None]) / (a / 127)[..., None]
    expected = np.clip(np.rint(x), -128, 127).reshape(4, 512)
    near_tie = np.abs(np.abs(x - np.floor(x)) - 0.5).reshape(4, 512) < 1e-4
    diff = latent_int8.astype(np.int64) - expected
    assert (np.abs(diff) <= near_tie).all() and np.abs(latent_int8).max() <= 127
    # query_norm: the per-token int8 c_q and its scale (the W_uq_qr product's input)
    cq = ref_c_q(arguments)
    np.testing.assert_allclose(dqn[:, 0], np.abs(cq).max(-1) / 127, rtol=1e-5)
    np.testing.assert_allclose(qn.astype(np.float64) * dqn, cq, atol=float(dqn.max()) * 0.51 + 1e-5)
    assert qn.dtype == np.int8 and dqn.shape == (4, 1)


def test_full_quant_kv_per_tensor_is_v2_fq_kvq():
    """(2, 1, 1): int8 weights and token_x, kv per tensor, the query per token and head: the V2
    FQ-KVQ arithmetic, bit for bit."""
    rng = np.random.default_rng(4)
    arguments, _ = weights(rng)

    def q8(w):
        w = np.asarray(w, np.float32)
        s = (np.abs(w).max(0, keepdims=True) / 127).astype(np.float32)
        return np.clip(np.rint(w / s), -127, 127).astype(np.int8), s
    x = np.asarray(arguments["token_x"], np.float32)
    xs = (np.abs(x).max(1, keepdims=True) / 127).astype(np.float32)
    arguments["token_x"] = np.clip(np.rint(x / xs), -127, 127).astype(np.int8)
    scales = {"dequant_scale_x": xs}
    for name, scale in (("weight_dq", "dequant_scale_w_dq"), ("weight_uq_qr", "dequant_scale_w_uq_qr"),
                        ("weight_dkv_kr", "dequant_scale_w_dkv_kr")):
        arguments[name], scales[scale] = q8(arguments[name])
    scales["quant_scale_ckv"] = np.float32([12.0])
    kv, kr = caches(np.int8)
    kv2, kr2 = caches(np.int8)
    kr2 = np.zeros(kr2.shape, BF16)
    query, query_rope, dq_nope, _, dqn = ops.npu_mla_prolog_v3(
        **nz(arguments), kv_cache=kv, kr_cache=np.zeros(kr.shape, BF16), cache_index=SLOTS, **scales,
        weight_quant_mode=2, kv_cache_quant_mode=1, query_quant_mode=1, query_norm_flag=True,
        rmsnorm_epsilon_cq=1e-6, rmsnorm_epsilon_ckv=1e-6)
    q2, qr2, kv2, _, dq2 = v2(arguments, kv2, kr2, **scales)
    np.testing.assert_array_equal(query, q2)
    np.testing.assert_array_equal(query_rope.view(np.uint16), qr2.view(np.uint16))
    np.testing.assert_array_equal(dq_nope, dq2)
    np.testing.assert_array_equal(kv, kv2)
    assert dqn.shape == (4, 1)


def read_nz(cache, width, block=16):
    """The rows of SLOTS in a PA_NZ cache: each block is (width / C0, block, C0) in memory."""
    c0 = 32 // cache.itemsize
    flat = cache.reshape(-1)
    b, o = SLOTS[:, None] // block, SLOTS[:, None] % block
    h = np.arange(width)[None, :]
    return flat[b * block * width + (h // c0) * block * c0 + o * c0 + h % c0]


@pytest.mark.parametrize("mode", ["BSND", "TND", "PA_BLK_BSND", "PA_NZ"])
def test_cache_modes_place_the_rows(mode):
    """BSND / TND: token t's own row; PA_BLK_BSND: cache_index holds block ids (merged tokens,
    split by actual_seq_len); PA_NZ: NZ-ordered blocks. The rows equal PA_BSND's."""
    rng = np.random.default_rng(5)
    arguments, _ = weights(rng)
    kv_ref, kr_ref = caches()
    ops.npu_mla_prolog_v3(**nz(arguments), kv_cache=kv_ref, kr_cache=kr_ref, cache_index=SLOTS,
                          rmsnorm_epsilon_cq=1e-6, rmsnorm_epsilon_ckv=1e-6)
    rows_kv = kv_ref.reshape(-1, HCKV)[SLOTS]
    rows_kr = kr_ref.reshape(-1, DR)[SLOTS]
    extra = {}
    args = nz(arguments)
    if mode == "BSND":
        for name in ("token_x", "rope_sin", "rope_cos"):
            args[name] = arguments[name].reshape(2, 2, -1)
        kv, kr = np.zeros((2, 2, 1, HCKV), BF16), np.zeros((2, 2, 1, DR), BF16)
        where = lambda c, w: c.reshape(4, w)               # noqa: E731
    elif mode == "TND":
        kv, kr = np.zeros((4, 1, HCKV), BF16), np.zeros((4, 1, DR), BF16)
        where = lambda c, w: c.reshape(4, w)               # noqa: E731
    elif mode == "PA_BLK_BSND":
        # two sequences of 3 and 1 tokens, a block id each: sequence 0 -> block 3, 1 -> block 1
        kv, kr = caches(blocks=4)
        extra = dict(cache_index=np.int64([3, 1]), actual_seq_len=np.int32([3, 4]))
        slots = np.array([48, 49, 50, 16])
        where = lambda c, w: c.reshape(-1, w)[slots]        # noqa: E731
    else:
        kv, kr = caches()
        extra = dict(cache_index=SLOTS)
        where = read_nz
    ops.npu_mla_prolog_v3(**args, kv_cache=kv, kr_cache=kr, cache_mode=mode, **extra,
                          rmsnorm_epsilon_cq=1e-6, rmsnorm_epsilon_ckv=1e-6)
    np.testing.assert_array_equal(where(kv, HCKV).view(np.uint16), rows_kv.view(np.uint16))
    np.testing.assert_array_equal(where(kr, DR).view(np.uint16), rows_kr.view(np.uint16))

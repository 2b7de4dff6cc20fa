"""mla.prolog / mla.prolog_v2 CPU kernels against an independent NumPy reference.

The reference below re-derives docs/numerics.md ("MLA prolog", points 1-9) from the formulas and
shares no code with the kernels: float32 throughout with the same bf16 / int8 rounding points,
bf16 products as float32 matmuls, int8 products exactly (float64). Every test goes through
`run_prolog`, the one entry point.

The dimensions the op fixes (He 7168, Hcq 1536, Hckv 512, D 128, Dr 64) are used as is; the
token count T and the head count N stay small so that a case runs in tens of milliseconds.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla import eager
from ascend_mla.dialect.prolog import Prolog, PrologV2
from ascend_mla.runtime.formats import NZTensor, format_cast, nd_to_nz
from ascend_mla.runtime.kernels import get_kernel

BF16 = np.dtype(ml_dtypes.bfloat16)
HE, HCQ, HCKV, D, DR = 7168, 1536, 512, 128, 64
SCENARIOS = ["NQ", "PQ-KVNQ", "PQ-KVQ", "FQ-KVNQ", "FQ-KVQ"]
# Duplicate cache indices are deliberate here; the advisory warning about them is tested in
# test_prolog_eager.py.
pytestmark = pytest.mark.filterwarnings("ignore:.*\\[MLA-191\\]")

OPTIONAL = dict(dequant_scale_x=None, dequant_scale_w_dq=None, dequant_scale_w_uq_qr=None,
                dequant_scale_w_dkv_kr=None, quant_scale_ckv=None, quant_scale_ckr=None,
                smooth_scales_cq=None, rmsnorm_epsilon_cq=1e-5, rmsnorm_epsilon_ckv=1e-5,
                cache_mode="PA_BSND")


def run_prolog(version=2, **operands):
    """mla.prolog (version 1) or mla.prolog_v2 run eagerly, verified against the aclnn document
    the op mirrors (profiles V1E / V2: N = 1..128, empty tensors allowed), then the CPU kernel.
    The torch_npu profile of ascend_mla.ops.npu_mla_prolog_v2 (N >= 8) is tested in
    test_prolog_eager.py."""
    opdef, profile = (PrologV2, "V2") if version == 2 else (Prolog, "V1E")
    arguments = {**OPTIONAL, **operands}
    return eager.call(opdef, {o.name: arguments[o.name] for o in opdef.operands},
                      {a.name: arguments[a.name] for a in opdef.attributes}, profile=profile)


@pytest.fixture(autouse=True)
def numpy_matmuls(monkeypatch):
    """The numpy backend unless a test asks for `backend` (the tolerances depend on it)."""
    monkeypatch.setenv("ASCEND_MLA_MATMUL", "numpy")


# ----------------------------------------------------------------------------------------------
# the reference
# ----------------------------------------------------------------------------------------------

def to_bf16(v):
    """Round (float32 or float64) to bf16 once, half to even; back as float32."""
    return np.asarray(v).astype(BF16).astype(np.float32)


def ref_rms_norm(v, gamma, eps):
    v = v.astype(np.float32)
    rms = np.sqrt(np.sum(v * v, axis=-1, keepdims=True) / np.float32(v.shape[-1]) + np.float32(eps))
    return v / rms * gamma.astype(np.float32)


def ref_rope(v, cos, sin):
    """De-interleave, then x * cos + rotate_half(x) * sin (numerics 4, first form)."""
    xd = np.concatenate([v[..., 0::2], v[..., 1::2]], axis=-1).astype(np.float32)
    rotated = np.concatenate([-xd[..., DR // 2:], xd[..., :DR // 2]], axis=-1)
    return xd * cos + rotated * sin


def ref_round_away(v):
    return np.sign(v) * np.floor(np.abs(v.astype(np.float64)) + 0.5)


def ref_quant(v):
    return np.clip(np.rint(v), -128, 127).astype(np.int8)


def ref_nz_offset(slot, h, block_size, head_dim, c0):
    """numerics 5, PA_NZ: element h of slot p in a cache of [H/C0, BlockSize, C0] blocks."""
    return ((slot // block_size) * block_size * head_dim + (h // c0) * block_size * c0
            + (slot % block_size) * c0 + h % c0)


def ref_scatter(cache, slots, rows, cache_mode):
    """Sequential writes in token order (the last token of a slot wins), negative = skip.
    Returns the expected cache and a mask of the elements written."""
    out, written = cache.copy(), np.zeros(cache.shape, bool)
    if cache.shape[0] == 0:
        return out, written
    block_size, head_dim = cache.shape[1], cache.shape[3]
    c0 = 32 // cache.dtype.itemsize
    flat_out, flat_written = out.reshape(-1), written.reshape(-1)
    for slot, row in zip(slots, rows):
        if slot < 0:
            continue
        if cache_mode == "PA_NZ":
            where = ref_nz_offset(slot, np.arange(head_dim), block_size, head_dim, c0)
        else:
            where = slot * head_dim + np.arange(head_dim)
        flat_out[where] = row
        flat_written[where] = True
    return out, written


def reference(op):
    """Expected (query, query_rope, kv_cache, kr_cache, dequant_scale_q_nope, kv_mask, kr_mask)."""
    full_quant = op["token_x"].dtype == np.int8
    x = op["token_x"].reshape(-1, HE).astype(np.float32)
    t = x.shape[0]
    cos = op["rope_cos"].reshape(t, DR).astype(np.float32)
    sin = op["rope_sin"].reshape(t, DR).astype(np.float32)
    w = op["logical"]

    def down(weight, w_scale):
        if full_quant:      # exact int32 product, dequantized per token x per channel, unrounded
            acc = (x.astype(np.float64) @ weight).astype(np.float32)
            return acc * op["dequant_scale_x"].reshape(t, 1) * w_scale
        return to_bf16(x @ weight)

    mm1 = down(w["dq"], op["dequant_scale_w_dq"])
    c_q = ref_rms_norm(mm1, op["rmsnorm_gamma_cq"], op["rmsnorm_epsilon_cq"])
    if op["weight_uq_qr"].dtype == np.int8:
        smooth = op["smooth_scales_cq"]
        z = c_q * (smooth if smooth is not None else np.float32(1))
        s = np.max(np.abs(z), axis=-1, keepdims=True) / np.float32(127)
        z_int8 = ref_quant(z / s)
        mm2 = (z_int8.astype(np.float64) @ w["uq_qr"]).astype(np.float32) * s * op["dequant_scale_w_uq_qr"]
    else:
        mm2 = to_bf16(to_bf16(c_q) @ w["uq_qr"])
    heads = mm2.reshape(t, w["uk"].shape[0], D + DR)
    q_c = to_bf16(heads[..., :D])
    query = to_bf16(np.einsum("tnd,ndc->tnc", q_c, w["uk"]))
    query_rope = to_bf16(ref_rope(heads[..., D:], cos[:, None], sin[:, None]))

    mm3 = down(w["dkv_kr"], op["dequant_scale_w_dkv_kr"])
    kv = ref_rms_norm(mm3[:, :HCKV], op["rmsnorm_gamma_ckv"], op["rmsnorm_epsilon_ckv"])
    k_rope = to_bf16(ref_rope(mm3[:, HCKV:], cos, sin))
    if op["kv_cache"].dtype == np.int8:
        scale = op["quant_scale_ckv"].reshape(-1)[0] if full_quant else op["quant_scale_ckv"]
        kv_rows = ref_quant(kv * scale)
    else:
        kv_rows = kv.astype(BF16)
    if op["kr_cache"].dtype == np.int8:
        kr_rows = ref_quant(k_rope * op["quant_scale_ckr"])
    else:
        kr_rows = k_rope.astype(BF16)
    slots = op["cache_index"].reshape(-1)
    kv_cache, kv_mask = ref_scatter(op["kv_cache"], slots, kv_rows, op["cache_mode"])
    kr_cache, kr_mask = ref_scatter(op["kr_cache"], slots, kr_rows, op["cache_mode"])

    dequant_scale_q_nope = np.zeros((1,), np.float32)
    if full_quant and op["kv_cache"].dtype == np.int8:
        row_max = np.max(np.abs(query), axis=-1, keepdims=True)
        dequant_scale_q_nope = row_max / np.float32(127)
        query = ref_round_away(query * np.float32(127) / row_max).astype(np.int8)
        query_rope = to_bf16(query_rope * op["quant_scale_ckv"].reshape(-1)[0] / dequant_scale_q_nope)
    lead = op["token_x"].shape[:-1]
    n = heads.shape[1]
    return (query.reshape(*lead, n, HCKV), query_rope.reshape(*lead, n, DR), kv_cache, kr_cache,
            dequant_scale_q_nope, kv_mask, kr_mask)


# ----------------------------------------------------------------------------------------------
# comparisons
# ----------------------------------------------------------------------------------------------

def bf16_ulp(v):
    """Spacing of bf16 numbers at |v| (8 significant bits); the smallest normal's for tiny v."""
    exponent = np.floor(np.log2(np.maximum(np.abs(v.astype(np.float64)), 2.0 ** -126)))
    return 2.0 ** (exponent - 7)


def assert_bf16_close(actual, expected, what, same_sums=True):
    """bf16 results against the reference, which rounds at the same points.

    With the numpy backend (`same_sums`) both sides sum the same float32 products through the
    same BLAS calls, so they agree bit for bit save where a product is summed in another order
    (W_uk: einsum vs matmul): at most 1% of the elements may differ (measured: < 0.3%; a
    missing or extra rounding point changes 25-60% of them).
    Any backend: another summation order changes a float32 sum by ~2^-20 relative; now and then
    that flips a bf16 rounding (interval 2^-8) of an intermediate, which moves the later values
    of the token by a fraction of an ulp of their row's largest term (and so by many ulps of a
    value that cancels to near zero). Every element must lie within one bf16 ulp of itself
    plus 2^-8 of the largest magnitude in its row (measured worst with torch: 1 ulp + 0.45 *
    2^-8 of the row maximum)."""
    a = np.asarray(actual).astype(np.float64)
    e = np.asarray(expected).astype(np.float64)
    assert a.shape == e.shape, f"{what}: shape {a.shape} != {e.shape}"
    if e.size == 0:
        return
    err = np.abs(a - e)
    if same_sums:
        differing = np.count_nonzero(err)
        assert differing <= max(2, 0.01 * e.size), f"{what}: {differing} of {e.size} elements differ"
    bound = bf16_ulp(e) + 2.0 ** -8 * np.max(np.abs(e), axis=-1, keepdims=True)
    worst = np.unravel_index(np.argmax(err - bound), err.shape)
    assert np.all(err <= bound), f"{what}: {a[worst]} vs {e[worst]} at {worst}"


def assert_int8_close(actual, expected, what):
    """int8 results quantize bf16-close values: a one-ulp (2^-8 relative) change of a value near
    the top of the int8 range moves it by 0.5, so +-1 happens and must stay rare (<= 1%)."""
    assert actual.dtype == np.int8 and actual.shape == expected.shape, what
    diff = np.abs(actual.astype(np.int32) - expected.astype(np.int32))
    assert diff.max(initial=0) <= 1, f"{what}: difference {diff.max()}"
    assert diff.sum() <= max(2, 0.01 * diff.size), f"{what}: {np.count_nonzero(diff)} off by one"


def assert_cache(actual, expected, written, what, same_sums):
    """Untouched elements must be bit-identical; written ones as close as their dtype allows."""
    assert actual.shape == expected.shape and actual.dtype == expected.dtype, what
    a, e = actual.reshape(-1), expected.reshape(-1)
    keep = ~written.reshape(-1)
    assert np.array_equal(a[keep].view(np.uint8), e[keep].view(np.uint8)), f"{what}: untouched rows changed"
    if expected.dtype == np.int8:
        assert_int8_close(a[~keep], e[~keep], what)
    else:
        assert_bf16_close(a[~keep].reshape(-1, 16), e[~keep].reshape(-1, 16), what, same_sums)


def check_against_reference(op, before, results, same_sums=True):
    """results of the call on `op` against the reference on `before`, its inputs' snapshot;
    `same_sums`: the kernel ran with the numpy backend (see assert_bf16_close)."""
    query, query_rope, kv_cache, kr_cache, dequant_scale_q_nope = results
    exp_query, exp_rope, exp_kv, exp_kr, exp_scale, kv_mask, kr_mask = reference(before)
    assert kv_cache is op["kv_cache"] and kr_cache is op["kr_cache"], "caches are updated in place"
    if exp_query.dtype == np.int8:
        assert_int8_close(query, exp_query, "query")
        np.testing.assert_allclose(dequant_scale_q_nope, exp_scale, rtol=2.0 ** -7)
        assert dequant_scale_q_nope.dtype == np.float32
    else:
        assert query.dtype == BF16
        assert_bf16_close(query, exp_query, "query", same_sums)
        assert dequant_scale_q_nope.shape == (1,) and dequant_scale_q_nope[0] == 0
    assert query_rope.dtype == BF16
    assert_bf16_close(query_rope, exp_rope, "query_rope", same_sums)
    assert_cache(kv_cache, exp_kv, kv_mask, "kv_cache", same_sums)
    assert_cache(kr_cache, exp_kr, kr_mask, "kr_cache", same_sums)


# ----------------------------------------------------------------------------------------------
# inputs
# ----------------------------------------------------------------------------------------------

_WEIGHTS: dict = {}


def reference_matrix(w):
    """int8 as float64 (its products are then exact), bf16 as float32 (exact values)."""
    return w.astype(np.float64 if w.dtype == np.int8 else np.float32)


def weights(heads, int8_dq, int8_uq_qr):
    """(NZ weights, their logical matrices, weight_uk, per-channel dequant scales), made
    once per combination so the kernels' converted weights are reused across tests."""
    key = (heads, int8_dq, int8_uq_qr)
    if key not in _WEIGHTS:
        rng = np.random.default_rng(hash(key) % 2**32)

        def matrix(rows, cols, int8):
            if int8:      # int8 values and a per-channel dequant scale ~ 1 / (127 sqrt(rows))
                m = rng.integers(-128, 128, (rows, cols)).astype(np.int8)
                return m, (rng.uniform(0.5, 1.5, (1, cols)) / (127 * np.sqrt(rows))).astype(np.float32)
            return (rng.standard_normal((rows, cols), np.float32) / np.sqrt(rows)).astype(BF16), None

        dq, dq_scale = matrix(HE, HCQ, int8_dq)
        uq_qr, uq_qr_scale = matrix(HCQ, heads * (D + DR), int8_uq_qr)
        dkv_kr, dkv_kr_scale = matrix(HE, HCKV + DR, int8_dq)
        uk = (rng.standard_normal((heads, D, HCKV), np.float32) / np.sqrt(D)).astype(BF16)
        _WEIGHTS[key] = dict(
            nz=dict(weight_dq=format_cast(dq, 29), weight_uq_qr=format_cast(uq_qr, 29),
                    weight_dkv_kr=format_cast(dkv_kr, 29)),
            logical=dict(dq=reference_matrix(dq), uq_qr=reference_matrix(uq_qr),
                         dkv_kr=reference_matrix(dkv_kr), uk=reference_matrix(uk)),
            weight_uk=uk, scales=dict(dequant_scale_w_dq=dq_scale, dequant_scale_w_uq_qr=uq_qr_scale,
                                      dequant_scale_w_dkv_kr=dkv_kr_scale))
    return _WEIGHTS[key]


def make_op(scenario, heads=8, tokens=(5,), block_size=16, block_num=3, cache_mode="PA_BSND",
            cache_index=None, seed=0):
    """Operands of one call (kernel keyword names)."""
    full, partial = scenario.startswith("FQ"), scenario.startswith("PQ")
    kv_quant = scenario.endswith("KVQ")
    w = weights(heads, full, full or partial)
    rng = np.random.default_rng(seed)
    t = int(np.prod(tokens))
    if full:
        token_x = rng.integers(-128, 128, (*tokens, HE)).astype(np.int8)
    else:
        token_x = rng.standard_normal((*tokens, HE)).astype(BF16)
    angles = rng.uniform(0, 2 * np.pi, (*tokens, DR // 2))
    kv_dtype = np.int8 if kv_quant else BF16
    kr_dtype = np.int8 if scenario == "PQ-KVQ" else BF16
    if cache_index is None:
        cache_index = rng.permutation(block_num * block_size)[:t]
        if t >= 3:
            cache_index[1] = -1                   # skipped token
            cache_index[-1] = cache_index[0]      # duplicate: the last token wins
    op = dict(
        token_x=token_x, **w["nz"], weight_uk=w["weight_uk"],
        rmsnorm_gamma_cq=rng.uniform(0.5, 1.5, HCQ).astype(BF16),
        rmsnorm_gamma_ckv=rng.uniform(0.5, 1.5, HCKV).astype(BF16),
        rope_sin=np.sin(np.concatenate([angles, angles], -1)).astype(BF16),
        rope_cos=np.cos(np.concatenate([angles, angles], -1)).astype(BF16),
        cache_index=np.asarray(cache_index, np.int64).reshape(tokens),
        # random sentinels, so that an unaddressed row that changes is caught
        kv_cache=rng.integers(-100, 100, (block_num, block_size, 1, HCKV)).astype(kv_dtype),
        kr_cache=rng.integers(-100, 100, (block_num, block_size, 1, DR)).astype(kr_dtype),
        # epsilons large enough to matter (mean squares are ~1), different so a swap shows
        cache_mode=cache_mode, rmsnorm_epsilon_cq=0.1, rmsnorm_epsilon_ckv=0.25,
        dequant_scale_x=None, dequant_scale_w_dq=None, dequant_scale_w_uq_qr=None,
        dequant_scale_w_dkv_kr=None, quant_scale_ckv=None, quant_scale_ckr=None,
        smooth_scales_cq=None)
    if full:
        op["dequant_scale_x"] = (rng.uniform(0.5, 1.5, (t, 1)) / 127).astype(np.float32)
        op["dequant_scale_w_dq"] = w["scales"]["dequant_scale_w_dq"]
        op["dequant_scale_w_dkv_kr"] = w["scales"]["dequant_scale_w_dkv_kr"]
    if full or partial:
        op["dequant_scale_w_uq_qr"] = w["scales"]["dequant_scale_w_uq_qr"]
    if full or scenario == "PQ-KVQ":      # optional: PQ-KVNQ runs without (smooth = 1)
        op["smooth_scales_cq"] = rng.uniform(0.5, 1.5, (1, HCQ)).astype(np.float32)
    if kv_quant:      # scales large enough that the largest values saturate
        op["quant_scale_ckv"] = rng.uniform(20, 60, (1, HCKV)).astype(np.float32)
    if scenario == "PQ-KVQ":
        op["quant_scale_ckr"] = rng.uniform(20, 60, (1, DR)).astype(np.float32)
    return op


def call(op, version=2):
    return run_prolog(version, **op)


def snapshot(op):
    """What the reference reads: the inputs before the in-place update, plus the logical weights."""
    key = (op["weight_uk"].shape[0], op["token_x"].dtype == np.int8, op["weight_uq_qr"].dtype == np.int8)
    return {**op, "kv_cache": op["kv_cache"].copy(), "kr_cache": op["kr_cache"].copy(),
            "logical": _WEIGHTS[key]["logical"]}


# ----------------------------------------------------------------------------------------------
# tests
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("cache_mode", ["PA_BSND", "PA_NZ"])
@pytest.mark.parametrize("heads, block_size, tokens", [(1, 128, (5,)), (8, 16, (2, 3)), (32, 16, (5,))],
                         ids=["N1-BS128-T", "N8-BS16-BxS", "N32-BS16-T"])
def test_v2_matches_reference(scenario, cache_mode, heads, block_size, tokens):
    op = make_op(scenario, heads, tokens, block_size, block_num=3, cache_mode=cache_mode)
    check_against_reference(op, snapshot(op), call(op))


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("cache_mode, tokens", [("PA_BSND", (4,)), ("PA_NZ", (2, 2))])
def test_both_matmul_backends(backend, scenario, cache_mode, tokens):
    op = make_op(scenario, heads=8, tokens=tokens, block_size=128, block_num=1,
                 cache_mode=cache_mode, seed=7)
    check_against_reference(op, snapshot(op), call(op), same_sums=backend == "numpy")


@pytest.mark.parametrize("scenario", ["NQ", "PQ-KVNQ", "PQ-KVQ"])
@pytest.mark.parametrize("cache_mode", ["PA_BSND", "PA_NZ"])
def test_v1_matches_reference(scenario, cache_mode):
    op = make_op(scenario, heads=8, tokens=(4,), block_size=16, cache_mode=cache_mode, seed=3)
    before = snapshot(op)
    results = call(op, version=1)
    assert len(results) == 4
    check_against_reference(op, before, (*results, np.zeros((1,), np.float32)))


def test_quantized_cache_test_data_saturates():
    """Guards the test data: the int8 cache cases do reach the saturation bounds."""
    op = make_op("PQ-KVQ", heads=8, tokens=(8,), block_size=16)
    _, _, kv, kr, _, kv_mask, kr_mask = reference(snapshot(op))
    assert np.isin(kv[kv_mask], [-128, 127]).any() and np.isin(kr[kr_mask], [-128, 127]).any()


@pytest.mark.parametrize("block_size", [16, 128])
@pytest.mark.parametrize("cache_mode", ["PA_BSND", "PA_NZ"])
def test_duplicate_and_negative_indices(block_size, cache_mode):
    b = block_size
    op = make_op("PQ-KVQ", heads=1, tokens=(8,), block_size=b, block_num=2, cache_mode=cache_mode,
                 cache_index=[3, -1, b + 5, 3, -7, 3, 2 * b - 1, b + 5], seed=11)
    check_against_reference(op, snapshot(op), call(op))
    # the highest token of a slot wins: the same call with only the winners writing is identical
    winners = make_op("PQ-KVQ", heads=1, tokens=(8,), block_size=b, block_num=2,
                      cache_mode=cache_mode, cache_index=[-1, -1, -1, -1, -1, 3, 2 * b - 1, b + 5],
                      seed=11)
    call(winners)
    assert np.array_equal(winners["kv_cache"], op["kv_cache"])
    assert np.array_equal(winners["kr_cache"], op["kr_cache"])


@pytest.mark.parametrize("scenario", ["NQ", "PQ-KVQ", "FQ-KVQ"])
def test_nz_cache_blocks_are_fractal_nz_of_the_logical_blocks(scenario):
    """A PA_NZ cache block is the FRACTAL_NZ packing (formats.nd_to_nz) of the PA_BSND block that
    the same call writes: an independent check of the NZ address formula, bf16 (C0 = 16) and
    int8 (C0 = 32) alike."""
    results = {}
    for mode in ["PA_BSND", "PA_NZ"]:
        op = make_op(scenario, heads=1, tokens=(6,), block_size=16, block_num=2, cache_mode=mode,
                     seed=5)
        op["kv_cache"][...] = 0
        op["kr_cache"][...] = 0
        results[mode] = call(op)
    for cache in (2, 3):
        nd, nz = results["PA_BSND"][cache], results["PA_NZ"][cache]
        for block in range(nd.shape[0]):
            packed = nd_to_nz(np.ascontiguousarray(nd[block, :, 0, :]))    # (H/C0, 1, 16, C0)
            assert np.array_equal(packed.reshape(-1), nz[block].reshape(-1))


def test_index_beyond_the_cache_is_rejected_before_writing():
    op = make_op("NQ", heads=1, tokens=(3,), block_size=16, block_num=2, cache_index=[0, 32, 1])
    before = op["kv_cache"].copy(), op["kr_cache"].copy()
    with pytest.raises(ValueError, match="cache_index"):
        call(op)
    assert np.array_equal(before[0], op["kv_cache"]) and np.array_equal(before[1], op["kr_cache"])


def test_kernel_rejects_a_strided_pa_nz_cache_before_writing():
    """A PA_NZ cache's memory is addressed in NZ order, so a strided view cannot hold it. The
    verifier rejects it (MLA-X01, test_prolog_eager.py); the kernel, called directly, must also
    fail before writing the other (contiguous) cache, which it scatters first."""
    op = make_op("NQ", heads=1, tokens=(3,), block_size=16, block_num=2, cache_mode="PA_NZ")
    wide = np.zeros(op["kr_cache"].shape[:-1] + (2 * DR,), BF16)
    op["kr_cache"] = wide[..., :DR]                        # a strided (non-contiguous) view
    op["kr_cache"][...] = 7
    before = op["kv_cache"].copy(), op["kr_cache"].copy()
    with pytest.raises(ValueError, match="kr_cache: .*PA_NZ.*contiguous"):
        get_kernel("mla.prolog_v2")(**op)
    assert np.array_equal(before[0], op["kv_cache"]) and np.array_equal(before[1], op["kr_cache"])


def ir_type(value):
    """The MLIR tensor type of an operand (NZ weights carry the FRACTAL_NZ encoding)."""
    shape = "x".join(str(d) for d in value.shape)
    element = {BF16: "bf16", np.dtype(np.int8): "i8", np.dtype(np.int64): "i64",
               np.dtype(np.float32): "f32"}[np.dtype(value.dtype)]
    nz = ', #mla.format<"FRACTAL_NZ">' if isinstance(value, NZTensor) else ""
    return f"tensor<{shape}x{element}{nz}>"


@pytest.mark.parametrize("tokens", [(3,), (0,)])
def test_fq_kvnq_takes_the_per_token_head_scale_shape_in_ir(tokens):
    """aclnnMlaPrologV2WeightNz: "全量化场景下，dequantScaleQNopeOutOptional的shape为(T, N, 1)" --
    full quant includes FQ-KVNQ, whose table column says only "need not be assigned". So IR may
    declare (T, N, 1) there as well as the (1) placeholder; the query is bf16, nothing was
    quantized, and the interpreter returns zeros of the declared shape."""
    op = make_op("FQ-KVNQ", heads=1, tokens=tokens, cache_index=[2, -1, 5][:tokens[0]])
    before = snapshot(op)
    given = [o.name for o in PrologV2.operands if op[o.name] is not None]
    t = tokens[0]
    result_types = ", ".join([f"tensor<{t}x1x{HCKV}xbf16>", f"tensor<{t}x1x{DR}xbf16>",
                              ir_type(op["kv_cache"]), ir_type(op["kr_cache"]), f"tensor<{t}x1x1xf32>"])
    operand_types = ", ".join(ir_type(op[n]) for n in given)
    arguments = ", ".join(f"%arg{i}" for i in range(len(given)))
    segments = ", ".join("1" if op[o.name] is not None else "0" for o in PrologV2.operands)
    text = f"""
      func.func @f({", ".join(f"%arg{i}: {ir_type(op[n])}" for i, n in enumerate(given))}) -> ({result_types}) {{
        %0:5 = "mla.prolog_v2"({arguments}) {{operandSegmentSizes = array<i32: {segments}>,
            rmsnorm_epsilon_cq = 0.1 : f64, rmsnorm_epsilon_ckv = 0.25 : f64}}
            : ({operand_types}) -> ({result_types})
        return %0#0, %0#1, %0#2, %0#3, %0#4 : {result_types}
      }}"""
    query, query_rope, kv_cache, kr_cache, scale = ascend_mla.compile(text)(*(op[n] for n in given))
    assert scale.dtype == np.float32 and scale.shape == (t, 1, 1) and not scale.any()
    check_against_reference(op, before, (query, query_rope, kv_cache, kr_cache, np.zeros(1, np.float32)))


@pytest.mark.parametrize("scenario", ["NQ", "FQ-KVQ"])
@pytest.mark.parametrize("tokens", [(0,), (0, 3), (2, 0)])
def test_empty_tokens(backend, scenario, tokens):
    """B, S or T = 0: empty query outputs, caches not updated (spec A7 rule 2)."""
    op = make_op(scenario, heads=8, tokens=tokens, cache_mode="PA_NZ", cache_index=[])
    before = op["kv_cache"].copy(), op["kr_cache"].copy()
    query, query_rope, kv, kr, scale = call(op)
    assert query.shape == (*tokens, 8, HCKV) and query_rope.shape == (*tokens, 8, DR)
    assert query.dtype == (np.int8 if scenario == "FQ-KVQ" else BF16)
    assert scale.shape == ((0, 8, 1) if scenario == "FQ-KVQ" else (1,))
    assert np.array_equal(before[0], kv) and np.array_equal(before[1], kr)


@pytest.mark.parametrize("scenario", ["NQ", "PQ-KVQ", "FQ-KVQ"])
def test_empty_cache_still_computes_the_queries(scenario):
    """BlockNum = 0 (Skv = 0): queries as usual, caches stay empty (spec A7 rule 3)."""
    op = make_op(scenario, heads=8, tokens=(2, 2), block_num=0, cache_index=[0, 5, 9, 100])
    before = snapshot(op)
    results = call(op)
    assert results[2].shape == (0, 16, 1, HCKV) and results[3].shape == (0, 16, 1, DR)
    check_against_reference(op, before, results)


def test_zero_query_row_gives_zero_scale_and_zeros():
    """FQ-KVQ with a head whose W_uk is zero: scale 0 and an all-zero int8 row (numerics 9)."""
    op = make_op("FQ-KVQ", heads=8, tokens=(2,))
    op["weight_uk"] = op["weight_uk"].copy()
    op["weight_uk"][3] = 0
    query, _, _, _, scale = call(op)
    assert np.all(scale[:, 3, 0] == 0) and np.all(query[:, 3] == 0)
    assert np.all(scale[:, [0, 1, 2, 4], 0] > 0)


def test_dynamic_query_quant_rounds_ties_away_from_zero():
    """numerics 9: query_int8 = round(query * 127 / max), ties away from zero. A row whose max is
    127 * 2^k (representable in bf16) puts q * 127 / max exactly on q / 2^k, so every x.5 value is
    a tie; random data almost never hits one, hence this direct check of the FQ-KVQ stage."""
    from ascend_mla.runtime.kernels import prolog
    ties = np.array([127, 126.5, -126.5, 2.5, -2.5, 0.5, -0.5, 1.5, 3.25, -0.25], np.float32)
    rows = np.zeros((3, 2, HCKV), np.float32)
    rows[0, 0, :ties.size] = ties
    rows[1, 1, :ties.size] = ties * 2.0 ** -9               # max = 127 / 512
    rows[2, 0, :3] = [1.0, -0.75, 0.1]                       # no tie; row [2, 1] is all zero
    query = rows.astype(BF16)
    q = query.astype(np.float32)
    row_max = np.max(np.abs(q), axis=-1, keepdims=True)
    expected = ref_round_away(np.divide(q * np.float32(127), row_max, out=np.zeros_like(q),
                                        where=row_max > 0)).astype(np.int8)
    assert list(expected[0, 0, :ties.size]) == [127, 127, -127, 3, -3, 1, -1, 2, 3, 0]

    query_int8, scale = prolog._dynamic_quant_query(q)
    assert query_int8.dtype == np.int8 and np.array_equal(query_int8, expected)
    assert scale.shape == (3, 2, 1) and np.array_equal(scale, row_max / np.float32(127))
    assert scale[0, 0, 0] == 1 and scale[2, 1, 0] == 0


def test_weight_uk_conversion_cache_follows_the_array():
    """A read-only weight_uk is converted once; a writeable one is read afresh on every call."""
    op = make_op("NQ", heads=8, tokens=(3,), cache_index=[-1, -1, -1])
    first = call(op)[0].copy()
    frozen = op["weight_uk"].copy()
    frozen.flags.writeable = False
    assert np.array_equal(call({**op, "weight_uk": frozen})[0], first)
    assert np.array_equal(call({**op, "weight_uk": frozen})[0], first)      # cached copy
    from ascend_mla.runtime.kernels import gemm
    assert any(k[0] == id(frozen) and k[-1] == "gemm/f32" for k in gemm._CONSTANTS)
    changed = op["weight_uk"].copy()
    changed[0] *= 2
    doubled = call({**op, "weight_uk": changed})[0]
    assert not np.array_equal(doubled[:, 0], first[:, 0])
    changed[0] /= 2                                                           # in place
    assert np.array_equal(call({**op, "weight_uk": changed})[0], first)


def test_int8_products_accumulate_exactly():
    """The int32 accumulator of an int8 product must be exact although its partial sums exceed
    2^24 (where float32 steps by 2 or more): compare with an integer matmul, through the FQ
    mm1 path of the kernel module."""
    from ascend_mla.runtime.kernels import gemm
    rng = np.random.default_rng(1)
    a = np.full((3, HE), -128, np.int8)
    a[1, 1::2] = 1
    a[2] = rng.choice(np.array([-128, 127, 1, -1], np.int8), HE)
    w = np.full((HE, 64), -128, np.int8)
    w[1::2, 1] = 1
    w[:, 2:] = rng.choice(np.array([-128, 127, 1], np.int8), (HE, 62))
    exact = a.astype(np.int64) @ w.astype(np.int64)
    assert np.abs(exact).max() > 2 ** 26
    got = gemm.int8_matmul(a, format_cast(w, 29))
    assert np.array_equal(got, exact.astype(np.float32))      # float(acc_int32): one rounding


def test_bf16_products_round_once(backend):
    """The rounding contract of both backends: bf16 inputs, float32 accumulation, one rounding.
    Against the exact product rounded once, a float32 sum differs by at most one ulp, and only
    where the exact value lies within the float32 error of a rounding midpoint (rare)."""
    from ascend_mla.runtime.kernels import gemm
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, HE)).astype(BF16)
    w = (rng.standard_normal((HE, 256)) / np.sqrt(HE)).astype(BF16)
    got = to_bf16(gemm.float_matmul(x.astype(np.float32), format_cast(w, 29), rounds_to_bf16=True))
    exact = to_bf16(x.astype(np.float64) @ w.astype(np.float64))
    diff = np.abs(got.astype(np.float64) - exact)
    assert np.all(diff <= bf16_ulp(exact))
    assert np.count_nonzero(diff) <= max(2, 1e-3 * diff.size)


@pytest.mark.parametrize("cache_mode", ["PA_BSND", "PA_NZ"])
@pytest.mark.parametrize("dtype", [BF16, np.int8])
def test_paged_cache_helpers_round_trip(cache_mode, dtype):
    """common.scatter_paged_cache agrees with the reference address formula, and the rows read
    back through the view attention uses (nz_cache_view for PA_NZ)."""
    from ascend_mla.runtime.formats import nz_cache_view
    from ascend_mla.runtime.kernels.common import scatter_paged_cache
    rng = np.random.default_rng(4)
    cache = np.zeros((3, 16, 1, 64), dtype)
    slots = np.array([0, 17, 47, 20])
    rows = rng.integers(-100, 100, (4, 64)).astype(dtype)
    scatter_paged_cache(cache, slots, rows, cache_mode)
    expected, _ = ref_scatter(np.zeros_like(cache), slots, rows, cache_mode)
    assert np.array_equal(cache, expected)
    blocks = nz_cache_view(cache).to_nd() if cache_mode == "PA_NZ" else cache[:, :, 0, :]
    assert np.array_equal(blocks[slots // 16, slots % 16], rows)

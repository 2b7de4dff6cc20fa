"""The CPU kernels of the primitive mla ops against independent float64 NumPy references.

Each test writes a one-op program with GraphWriter (operands as function arguments), compiles
it with the verifier only and runs it: the op is checked by its rules and run by the
interpreter, as in an unfused model. The references below are written from the formulas in
dialect/primitive.py and docs/numerics.md, in float64, and share no code with the kernels.

Tolerances: a kernel computes in float32 and rounds once to its result type, so against a
float64 reference rounded to the same type it agrees exactly except where float32 noise (about
2^-24 relative) moves a value across a rounding boundary of the 16-bit type (2^-8 relative for
bf16): a fraction of order 1e-4 of the elements, each off by one unit in the last place (ulp).
The tests allow one ulp on at most 1% of the elements -- a kernel that rounds twice (an f16
intermediate before a bf16 result) misses on about 6%, one that rounds inputs or partial sums
on far more.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla.dialect.primitive import (
    Add,
    Amax,
    Attention,
    CausalMask,
    Div,
    DynamicQuant,
    FormatCast,
    Gather,
    HeadMatmul,
    Matmul,
    Mul,
    PagedAttention,
    Quantize,
    QuantMatmul,
    Rope,
    ScatterCache,
    Transpose,
)
from ascend_mla.dialect.types import TensorInfo
from ascend_mla.models.graph import GraphWriter
from ascend_mla.runtime.formats import NZTensor, describe_value

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)


def run(opdef, operands: dict, result: dict | None = None, **attributes):
    """Compile the one-op program `opdef(operands, attributes)` (result types inferred, or
    given as {name: TensorInfo}) with pipeline verify and run it; returns the results."""
    g = GraphWriter("f")
    args = {name: g.arg(name, describe_value(name, value)) for name, value in operands.items()
            if value is not None}
    out = g.op(opdef, result=result, **args, **attributes)
    g.ret(*(out if isinstance(out, tuple) else (out,)))
    program = ascend_mla.compile(g, pipeline="builtin.module(verify)")
    return program(*[v for v in operands.values() if v is not None])


def ulp_steps(a, b) -> np.ndarray:
    """How many representable 16-bit floats (bf16 or f16) lie between a and b (0: equal)."""
    def ordered(x):
        bits = np.asarray(x).view(np.int16).astype(np.int64)
        return np.where(bits < 0, -(bits + 32768), bits)     # sign-magnitude -> monotonic
    return np.abs(ordered(a) - ordered(b))


def assert_rounded_once(actual, reference64, dtype):
    """actual (16-bit) equals the float64 reference rounded to dtype, but for float32 noise:
    at most one ulp apart, on at most 1% of the elements (see the module doc)."""
    assert actual.dtype == dtype
    expected = np.asarray(reference64, np.float64).astype(np.float32).astype(dtype)
    steps = ulp_steps(actual, expected)
    assert steps.max(initial=0) <= 1, f"{int(steps.max())} ulps apart"
    assert np.count_nonzero(steps) <= 0.01 * steps.size, f"{np.count_nonzero(steps)} of {steps.size} differ"


def randn(rng, shape, dtype=BF16, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(dtype)


# --- matmul, head_matmul, quant_matmul ----------------------------------------------------------

def test_matmul_rounds_once_to_bf16(backend):
    rng = np.random.default_rng(0)
    x, w = randn(rng, (2, 5, 96)), randn(rng, (96, 48), scale=0.1)
    (y,) = run(Matmul, dict(x=x, w=w))
    assert y.shape == (2, 5, 48)
    assert_rounded_once(y, np.einsum("bsk,kn->bsn", x.astype(np.float64), w.astype(np.float64)), BF16)


def test_matmul_f16_in_bf16_out_is_one_rounding():
    """Not rounded to f16 (x's type) first: that double rounding would differ on ~6%."""
    rng = np.random.default_rng(1)
    x, w = randn(rng, (64, 64), F16), randn(rng, (64, 64), F16, 0.1)
    (y,) = run(Matmul, dict(x=x, w=w), result={"y": TensorInfo((64, 64), "bf16")})
    assert_rounded_once(y, x.astype(np.float64) @ w.astype(np.float64), BF16)


def test_matmul_f32_result_is_not_rounded():
    rng = np.random.default_rng(2)
    x, w = randn(rng, (7, 256)), randn(rng, (256, 16))
    (y,) = run(Matmul, dict(x=x, w=w), result={"y": TensorInfo((7, 16), "f32")})
    reference = x.astype(np.float64) @ w.astype(np.float64)
    # float32 sums of 256 exact products: error <= 256 * 2^-24 * sum|x||w|, far below bf16's 2^-9.
    bound = 256 * 2.0**-24 * (np.abs(x.astype(np.float64)) @ np.abs(w.astype(np.float64)))
    assert y.dtype == np.float32 and np.all(np.abs(y - reference) <= bound)
    assert np.any(y != y.astype(BF16).astype(np.float32))          # not bf16 values in disguise


def test_matmul_of_int32_is_exact_and_wraps_as_torch():
    """int32 x int32 -> int32 (torch.matmul of int32 tensors): exact sums; a sum beyond 2^31
    wraps modulo 2^32, as torch's."""
    rng = np.random.default_rng(9)
    x, w = rng.integers(-128, 128, (3, 7168)).astype(np.int32), rng.integers(-128, 128, (7168, 5)).astype(np.int32)
    big = np.full((1, 2), 2 ** 30, np.int32), np.full((2, 1), 2, np.int32)     # 2^32: wraps to 0
    (y,) = run(Matmul, dict(x=x, w=w))
    assert y.dtype == np.int32 and np.array_equal(y, (x.astype(np.int64) @ w.astype(np.int64)))
    (wrapped,) = run(Matmul, dict(x=big[0], w=big[1]))
    assert wrapped.tolist() == [[0]]


def test_amax_over_the_last_axis_is_exact():
    rng = np.random.default_rng(10)
    x = randn(rng, (2, 3, 50), np.float32)
    x[1, 2] = -7.0                                        # a row whose largest value is negative
    (y,) = run(Amax, dict(x=x))
    assert y.shape == (2, 3, 1) and np.array_equal(y[..., 0], x.max(axis=-1))
    (b,) = run(Amax, dict(x=np.abs(x).astype(BF16)), result={"y": TensorInfo((2, 3, 1), "f32")})
    assert np.array_equal(b[..., 0], np.abs(x).astype(BF16).astype(np.float32).max(axis=-1))


def test_matmul_nz_weight_is_the_same_product():
    rng = np.random.default_rng(3)
    x, w = randn(rng, (3, 40)), randn(rng, (40, 24))                  # padded fractals (40 rows)
    (nd,) = run(Matmul, dict(x=x, w=w))
    (nz,) = run(Matmul, dict(x=x, w=ascend_mla.format_cast(w, ascend_mla.FRACTAL_NZ)))
    np.testing.assert_array_equal(nz.view(np.int16), nd.view(np.int16))


def test_head_matmul_per_head(backend):
    rng = np.random.default_rng(4)
    x, w = randn(rng, (2, 3, 4, 32)), randn(rng, (4, 32, 24), scale=0.2)
    (y,) = run(HeadMatmul, dict(x=x, w=w))
    reference = np.zeros((2, 3, 4, 24))
    for h in range(4):                     # head h's rows times head h's matrix, nothing shared
        reference[:, :, h] = x[:, :, h].astype(np.float64) @ w[h].astype(np.float64)
    assert_rounded_once(y, reference, BF16)


def test_quant_matmul_exact_int32_sums_and_dequant_order():
    """K = 2048 with +-127/-128 values: sums reach 2^25, beyond float32's exact integers, so a
    float32 accumulation would lose bits. The dequantization is float32(acc) * x_scale[t] *
    w_scale[n], in that order, then one rounding (numerics.md 7): with an f32 result the
    kernel must match that expression bit for bit."""
    rng = np.random.default_rng(5)
    k = 2048
    x = rng.choice(np.array([-128, -127, 127], np.int8), (2, 3, k))
    w = rng.choice(np.array([-128, 127], np.int8), (k, 16))
    w[:, :8] = np.where(x[0, 0] < 0, -128, 127)[:, None]     # token (0, 0) x these: large sums
    x_scale = rng.uniform(0.001, 0.1, (2, 3)).astype(np.float32)
    w_scale = rng.uniform(0.001, 0.1, 16).astype(np.float32)
    acc = np.einsum("bsk,kn->bsn", x.astype(np.int64), w.astype(np.int64))   # exact
    assert np.abs(acc).max() > 2**24
    (y,) = run(QuantMatmul, dict(x=x, w=w, x_scale=x_scale, w_scale=w_scale),
               result={"y": TensorInfo((2, 3, 16), "f32")})
    expected = (acc.astype(np.float32) * x_scale[..., None]) * w_scale
    np.testing.assert_array_equal(y, expected)
    # and as a bf16 result: the same value rounded once
    (yb,) = run(QuantMatmul, dict(x=x, w=ascend_mla.format_cast(w, ascend_mla.FRACTAL_NZ),
                                  x_scale=x_scale[..., None], w_scale=w_scale[None]),
                result={"y": TensorInfo((2, 3, 16), "bf16")})
    assert_rounded_once(yb, acc * x_scale[..., None].astype(np.float64) * w_scale.astype(np.float64), BF16)


# --- rope ---------------------------------------------------------------------------------------

def _rotate_half(v):
    h = v.shape[-1] // 2
    return np.concatenate([-v[..., h:], v[..., :h]], axis=-1)


def test_rope_interleave_output_is_deinterleaved():
    """numerics.md 4: xd = [x0, x2, ..., x1, x3, ...]; out = xd * cos + rotate_half(xd) * sin,
    left in the de-interleaved order. cos/sin broadcast over the heads."""
    rng = np.random.default_rng(6)
    x = randn(rng, (2, 3, 4, 64))
    angles = rng.uniform(0, 2 * np.pi, (2, 3, 1, 32))
    cos = np.cos(np.concatenate([angles, angles], -1)).astype(BF16)
    sin = np.sin(np.concatenate([angles, angles], -1)).astype(BF16)
    (y,) = run(Rope, dict(x=x, cos=cos, sin=sin))
    x64 = x.astype(np.float64)
    xd = np.concatenate([x64[..., 0::2], x64[..., 1::2]], axis=-1)
    reference = xd * cos.astype(np.float64) + _rotate_half(xd) * sin.astype(np.float64)
    assert_rounded_once(y, reference, BF16)


def test_rope_interleave_is_a_permutation_at_angle_zero():
    """cos = 1, sin = 0: the output is x de-interleaved, exactly (no re-interleaving)."""
    x = np.arange(2 * 8, dtype=np.float32).reshape(2, 8).astype(BF16)
    (y,) = run(Rope, dict(x=x, cos=np.ones(8, BF16), sin=np.zeros(8, BF16)))
    np.testing.assert_array_equal(y.astype(np.float32), x.astype(np.float32)[:, [0, 2, 4, 6, 1, 3, 5, 7]])


def test_rope_rotate_half_f32():
    rng = np.random.default_rng(7)
    x = randn(rng, (5, 3, 16), np.float32)
    cos, sin = randn(rng, (5, 1, 16), np.float32), randn(rng, (5, 1, 16), np.float32)
    (y,) = run(Rope, dict(x=x, cos=cos, sin=sin), mode="half")
    reference = x.astype(np.float64) * cos + _rotate_half(x.astype(np.float64)) * sin
    # float32: two products and a sum, each rounded once: within 3 float32 ulps of the terms
    np.testing.assert_allclose(y, reference, rtol=0, atol=3 * 2.0**-23 * (np.abs(x) * (np.abs(cos) + np.abs(sin))).max())


# --- dynamic_quant, quantize --------------------------------------------------------------------

def _dynamic_quant_reference(x, smooth, rounding):
    z = np.asarray(x, np.float64) * (1.0 if smooth is None else np.asarray(smooth, np.float64).reshape(-1))
    row_max = np.abs(z).max(axis=-1, keepdims=True)
    ratio = np.divide(z * 127, row_max, out=np.zeros_like(z), where=row_max > 0)
    if rounding == "half_even":
        q = np.round(ratio)                                      # NumPy rounds half to even
    else:
        q = np.sign(ratio) * np.floor(np.abs(ratio) + 0.5)       # exact in float64 for |ratio| <= 127
    return q.astype(np.int8), (row_max[..., 0] / 127)


@pytest.mark.parametrize("rounding", ["half_even", "half_away"])
def test_dynamic_quant_random_rows_with_smooth_scales(rounding):
    rng = np.random.default_rng(8)
    x = randn(rng, (3, 4, 64))
    smooth = (2.0 ** rng.integers(-2, 3, 64)).astype(np.float32)   # powers of 2: z exact
    x[1, 2] = 0                                                        # an all-zero row
    y, scale = run(DynamicQuant, dict(x=x, smooth_scales=smooth), rounding=rounding)
    expected_y, expected_scale = _dynamic_quant_reference(x, smooth, rounding)
    assert y.dtype == np.int8 and scale.dtype == np.float32 and scale.shape == (3, 4)
    # scale: max|z| / 127 in float32 (one division, one rounding)
    np.testing.assert_allclose(scale, expected_scale, rtol=2.0**-23)
    assert scale[1, 2] == 0 and not y[1, 2].any()
    # y: float32 ratios may land on the other side of a .5 only when the float64 ratio is
    # within float32 noise of one: +-1 on a few elements at most
    diff = np.abs(y.astype(int) - expected_y)
    assert diff.max() <= 1 and np.count_nonzero(diff) <= 0.01 * diff.size


def test_dynamic_quant_ties_per_rounding_mode():
    """A row whose max is 127 has scale 1, so its values are the ratios themselves: exact .5
    ties. half_even (npu_dynamic_quant) and half_away (the prolog's query quant) differ."""
    x = np.array([[127, 2.5, -2.5, 3.5, 0.5, -0.5, 1.5]], np.float32)
    even, scale = run(DynamicQuant, dict(x=x))
    away, _ = run(DynamicQuant, dict(x=x), rounding="half_away")
    assert scale.tolist() == [1.0]
    assert even.tolist() == [[127, 2, -2, 4, 0, 0, 2]]
    assert away.tolist() == [[127, 3, -3, 4, 1, -1, 2]]


def test_quantize_saturates_and_rounds_half_to_even():
    x = np.array([[0.5, 1.5, 2.5, -0.5, -1.5, 200.0, -300.0, 127.4, -128.4]], np.float32)
    (y,) = run(Quantize, dict(x=x, scale=np.ones((1, 1), np.float32)))
    assert y.tolist() == [[0, 2, 2, 0, -2, 127, -128, 127, -128]]


def test_quantize_per_channel_scale():
    rng = np.random.default_rng(9)
    x = randn(rng, (2, 3, 32), scale=20)
    scale = rng.uniform(0.5, 8, 32).astype(np.float32)                # broadcast over (2, 3)
    (y,) = run(Quantize, dict(x=x, scale=scale))
    expected = np.clip(np.round(x.astype(np.float64) * scale), -128, 127)
    # x * scale in float32 rounds once; it can only move an exact-.5 float64 product, and
    # products of a bf16 and an f32 are exact in float64: at most a few elements differ by 1
    diff = np.abs(y.astype(int) - expected)
    assert y.dtype == np.int8 and diff.max() <= 1 and np.count_nonzero(diff) <= 2
    assert (y == 127).any() and (y == -128).any()                     # the saturation ran


# --- elementwise --------------------------------------------------------------------------------

@pytest.mark.parametrize("opdef, fn", [(Add, np.add), (Mul, np.multiply), (Div, np.divide)])
def test_elementwise_broadcasts_and_rounds_once(opdef, fn):
    rng = np.random.default_rng(10)
    x, y = randn(rng, (4, 1, 16)), rng.uniform(0.5, 2, (3, 1)).astype(np.float32)
    (z,) = run(opdef, dict(x=x, y=y))
    assert z.shape == (4, 3, 16)
    assert_rounded_once(z, fn(x.astype(np.float64), y.astype(np.float64)), BF16)


# --- scatter_cache, gather ----------------------------------------------------------------------

def _nz_blocks(logical):
    """A (BlockNum, BlockSize, Nkv, H) cache as PA_NZ memory: each block's (BlockSize, Nkv*H)
    matrix stored as [Nkv*H / C0, BlockSize, C0] (numerics.md 5), C0 = 32 bytes / element."""
    blocks, block_size, nkv, h = logical.shape
    c0 = 32 // logical.dtype.itemsize
    tiles = logical.reshape(blocks, block_size, nkv * h // c0, c0).transpose(0, 2, 1, 3)
    return np.ascontiguousarray(tiles).reshape(logical.shape)


def _from_nz_blocks(memory):
    blocks, block_size, nkv, h = memory.shape
    c0 = 32 // memory.dtype.itemsize
    tiles = memory.reshape(blocks, nkv * h // c0, block_size, c0).transpose(0, 2, 1, 3)
    return np.ascontiguousarray(tiles).reshape(memory.shape)


@pytest.mark.parametrize("cache_mode", ["PA_BSND", "PA_NZ"])
@pytest.mark.parametrize("dtype, nkv, h", [(BF16, 1, 64), (BF16, 2, 32), (np.dtype(np.int8), 2, 48)])
def test_scatter_cache(cache_mode, dtype, nkv, h):
    """Rows land at slot p = block * BlockSize + offset; negative slots skip their row; of
    duplicate slots the last row wins; other rows keep their contents; in place."""
    rng = np.random.default_rng(11)
    blocks, block_size = 3, 16
    logical = rng.integers(-100, 100, (blocks, block_size, nkv, h)).astype(dtype)
    slots = np.array([[5, -1, 17], [40, 5, -7]], np.int64)          # 5 twice: row (1, 1) wins
    update = rng.integers(-100, 100, (2, 3, nkv, h)).astype(dtype)
    expected = logical.copy()
    for i in range(2):
        for j in range(3):
            if slots[i, j] >= 0:
                expected[slots[i, j] // block_size, slots[i, j] % block_size] = update[i, j]
    cache = _nz_blocks(logical) if cache_mode == "PA_NZ" else logical.copy()
    (out,) = run(ScatterCache, dict(cache=cache, slot_mapping=slots, update=update), cache_mode=cache_mode)
    assert out is cache                                              # the caller's buffer
    written = _from_nz_blocks(cache) if cache_mode == "PA_NZ" else cache
    np.testing.assert_array_equal(written.view(np.uint8), expected.view(np.uint8))


def test_scatter_cache_without_slots_writes_nothing():
    cache = np.arange(2 * 16 * 1 * 16, dtype=np.float32).reshape(2, 16, 1, 16).astype(BF16)
    before = cache.copy()
    run(ScatterCache, dict(cache=cache, slot_mapping=np.zeros((0,), np.int32),
                           update=np.zeros((0, 1, 16), BF16)), cache_mode="PA_NZ")
    np.testing.assert_array_equal(cache.view(np.int16), before.view(np.int16))


def test_gather_rows():
    rng = np.random.default_rng(12)
    table = randn(rng, (10, 4, 6))
    indices = np.array([[9, 0, 3], [3, 3, 1]], np.int32)
    (out,) = run(Gather, dict(table=table, indices=indices))
    assert out.shape == (2, 3, 4, 6)
    for i in range(2):
        for j in range(3):
            np.testing.assert_array_equal(out[i, j].view(np.int16), table[indices[i, j]].view(np.int16))


# --- format_cast, transpose, causal_mask --------------------------------------------------------

@pytest.mark.parametrize("dtype", [BF16, np.dtype(np.int8), np.dtype(np.float32)])
def test_format_cast_round_trip_and_fractal_layout(dtype):
    h, w = 20, 40                                    # both padded: 32 rows, a partial fractal column
    nd = (np.arange(2 * h * w) % 97 - 48).reshape(2, h, w).astype(dtype)
    nz_type = TensorInfo((2, h, w), describe_value("x", nd).dtype, "FRACTAL_NZ")
    (nz,) = run(FormatCast, dict(x=nd), result={"y": nz_type})
    assert isinstance(nz, NZTensor)
    c0 = 32 // dtype.itemsize
    for b, i, j in [(0, 0, 0), (1, 19, 39), (0, 17, 5), (1, 3, c0), (0, 16, c0 - 1)]:
        # ND (h, w) -> NZ [w // C0, h // 16, h % 16, w % C0]
        assert nz.data[b, j // c0, i // 16, i % 16, j % c0] == nd[b, i, j]
    assert not nz.data[:, :, 1, 4:].any()            # rows 20..31 are zero padding
    (back,) = run(FormatCast, dict(x=nz), result={"y": TensorInfo((2, h, w), nz_type.dtype)})
    np.testing.assert_array_equal(back.view(np.uint8), nd.view(np.uint8))


def test_transpose():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4).astype(BF16)
    (y,) = run(Transpose, dict(x=x), permutation=[2, 0, 1])
    assert y.shape == (4, 2, 3)
    for i, j, k in np.ndindex(4, 2, 3):
        assert y[i, j, k] == x[j, k, i]              # y[i0, i1, i2] = x[..] with axis p[d] -> d


@pytest.mark.parametrize("dtype", ["i1", "i8", "ui8"])
def test_causal_mask(dtype):
    (mask,) = run(CausalMask, {}, result={"mask": TensorInfo((5, 5), dtype)})
    expected = [[1 if j > i else 0 for j in range(5)] for i in range(5)]   # 1 = masked (future)
    assert mask.tolist() == [[bool(v) if dtype == "i1" else v for v in row] for row in expected]


# --- attention ----------------------------------------------------------------------------------

def _attention_reference(q, k, v, scale, visible, q_rope=None, k_rope=None, score_factor=None):
    """float64 softmax attention of one sequence: q (S, N, D), k (L, Nkv, D), v (L, Nkv, Dv),
    visible (S, L) bool; head n reads kv head n // (N / Nkv); a row with no visible key is 0.
    score_factor (S, N): an extra factor on the scores (int8 dequantization)."""
    s_len, n, _ = q.shape
    group = n // k.shape[1]
    out = np.zeros((s_len, n, v.shape[2]))
    for h in range(n):
        kh = h // group
        scores = q[:, h] @ k[:, kh].T
        if q_rope is not None:
            scores = scores + q_rope[:, h] @ k_rope[:, kh].T
        if score_factor is not None:
            scores = scores * score_factor[:, h:h + 1]
        scores = np.where(visible, scores * scale, -np.inf)
        for s in range(s_len):
            if visible[s].any():
                p = np.exp(scores[s] - scores[s].max())
                out[s, h] = (p / p.sum()) @ v[:, kh]
    return out


def _assert_attention_close(actual, reference, v_max):
    """P is rounded to the values' 16-bit type before P.V (relative error <= 2^-9 on each
    probability, so <= 2^-9 * max|V| on an output), then the output once more (2^-9 of it):
    allow twice that."""
    np.testing.assert_allclose(actual.astype(np.float64), reference, rtol=2**-8, atol=2**-8 * v_max)


def _f64(a):
    return np.asarray(a, np.float64)


def _paged_case(rng, *, batch, s_len, n, nkv, d, dv, block_size, lengths, rope, dtype=BF16):
    blocks_per_row = max(-(-length // block_size) for length in lengths) + 1   # a spare column
    num_blocks = batch * blocks_per_row + 1
    table = rng.permutation(num_blocks)[:batch * blocks_per_row].reshape(batch, blocks_per_row).astype(np.int32)
    case = dict(query=randn(rng, (batch, s_len, n, d), dtype),
                key_cache=randn(rng, (num_blocks, block_size, nkv, d), dtype),
                value_cache=randn(rng, (num_blocks, block_size, nkv, dv), dtype),
                block_table=table, seq_lengths=np.array(lengths, np.int64),
                query_rope=randn(rng, (batch, s_len, n, 16), dtype) if rope else None,
                key_rope_cache=randn(rng, (num_blocks, block_size, nkv, 16), dtype) if rope else None)
    return case


def _paged_reference(case, scale, v_cache=None, score_factor=None, v_factor=1.0):
    """The logical (PA_BSND) caches; each batch row's keys are its blocks' first L slots."""
    out = []
    block_size = case["key_cache"].shape[1]
    for b, length in enumerate(case["seq_lengths"]):
        rows = [case["block_table"][b, p // block_size] * block_size + p % block_size for p in range(length)]

        def keys(cache):
            flat = _f64(cache).reshape(-1, *cache.shape[2:])
            return flat[rows]
        s_len = case["query"].shape[1]
        positions = length - s_len + np.arange(s_len)                 # the query's own tokens
        visible = np.arange(length)[None, :] <= positions[:, None]
        rope = case.get("query_rope") is not None
        out.append(_attention_reference(
            _f64(case["query"][b]), keys(case["key_cache"]),
            keys(case["value_cache"] if v_cache is None else v_cache) * v_factor, scale, visible,
            _f64(case["query_rope"][b]) if rope else None, keys(case["key_rope_cache"]) if rope else None,
            None if score_factor is None else score_factor[b]))
    return np.stack(out)


@pytest.mark.parametrize("s_len, lengths", [(1, [5, 33]), (3, [3, 40])])
def test_paged_attention_gqa_causal(s_len, lengths):
    """8 query heads over 2 kv heads, Dv != D; with S = 3 the rows see keys up to their own
    position (length - S + s); the lengths end inside blocks."""
    rng = np.random.default_rng(13)
    case = _paged_case(rng, batch=2, s_len=s_len, n=8, nkv=2, d=32, dv=16, block_size=16,
                       lengths=lengths, rope=False)
    (out,) = run(PagedAttention, case, scale_value=0.2)
    assert out.shape == (2, s_len, 8, 16) and out.dtype == BF16
    _assert_attention_close(out, _paged_reference(case, 0.2), np.abs(_f64(case["value_cache"])).max())


@pytest.mark.parametrize("cache_mode", ["PA_BSND", "PA_NZ"])
def test_paged_attention_mla_rope_part(cache_mode):
    """MLA decode: key = value = one latent cache, plus the rope part; a PA_NZ cache gives the
    same bits as the PA_BSND one it packs."""
    rng = np.random.default_rng(14)
    case = _paged_case(rng, batch=2, s_len=2, n=4, nkv=1, d=64, dv=64, block_size=16,
                       lengths=[18, 7], rope=True)
    case["value_cache"] = case["key_cache"]
    expected = _paged_reference(case, 0.1)
    if cache_mode == "PA_NZ":
        nz = _nz_blocks(case["key_cache"])
        case.update(key_cache=nz, value_cache=nz, key_rope_cache=_nz_blocks(case["key_rope_cache"]))
    (out,) = run(PagedAttention, case, scale_value=0.1, cache_mode=cache_mode)
    _assert_attention_close(out, expected, np.abs(expected).max())
    if cache_mode == "PA_NZ":
        logical = dict(case, key_cache=_from_nz_blocks(nz), value_cache=_from_nz_blocks(nz),
                       key_rope_cache=_from_nz_blocks(case["key_rope_cache"]))
        logical["value_cache"] = logical["key_cache"]
        (bsnd,) = run(PagedAttention, logical, scale_value=0.1)
        np.testing.assert_array_equal(out.view(np.int16), bsnd.view(np.int16))


def test_paged_attention_int8_with_dequant_scales():
    """i8 query (per token-head scale dq) and i8 caches (per-tensor d_k):
    scores = scale * dq * d_k * (q . k + q_rope . k_rope), v = v_i8 * d_k (primitive.py)."""
    rng = np.random.default_rng(15)
    batch, s_len, n, d = 2, 1, 4, 64
    case = _paged_case(rng, batch=batch, s_len=s_len, n=n, nkv=1, d=d, dv=d, block_size=16,
                       lengths=[20, 9], rope=True)
    q8 = rng.integers(-127, 128, (batch, s_len, n, d)).astype(np.int8)
    kv8 = rng.integers(-127, 128, case["key_cache"].shape).astype(np.int8)
    dq = rng.uniform(0.001, 0.01, (batch, s_len, n, 1)).astype(np.float32)
    dk = np.array([0.02], np.float32)
    case.update(query=q8, key_cache=kv8, value_cache=kv8, dequant_scale_query=dq, key_dequant_scale=dk)
    (out,) = run(PagedAttention, case, scale_value=0.125)
    assert out.dtype == BF16
    expected = _paged_reference(case, 0.125, score_factor=_f64(dq[..., 0]) * float(dk[0]), v_factor=float(dk[0]))
    _assert_attention_close(out, expected, 127 * float(dk[0]))


def test_attention_dense_mask_and_causal():
    """An explicit mask and causal (bottom-right aligned: row s sees keys up to Skv - S + s)
    together; query row 0 sees no key at all and is 0."""
    rng = np.random.default_rng(16)
    b, s_len, skv, n, nkv, d, dv = 2, 3, 5, 4, 2, 16, 8
    q, k, v = randn(rng, (b, s_len, n, d)), randn(rng, (b, skv, nkv, d)), randn(rng, (b, skv, nkv, dv))
    mask = rng.integers(0, 2, (s_len, skv)).astype(np.int8)
    mask[0, :3] = 1                                      # with causal, row 0 sees keys 0..2 only
    (out,) = run(Attention, dict(query=q, key=k, value=v, atten_mask=mask), scale_value=0.25, causal=True)
    causal_ok = np.arange(skv)[None, :] <= (skv - s_len + np.arange(s_len))[:, None]
    visible = causal_ok & (mask == 0)
    expected = np.stack([_attention_reference(_f64(q[i]), _f64(k[i]), _f64(v[i]), 0.25, visible)
                         for i in range(b)])
    assert not out[:, 0].astype(np.float32).any()
    _assert_attention_close(out, expected, np.abs(_f64(v)).max())
    (plain,) = run(Attention, dict(query=q, key=k, value=v, atten_mask=None), scale_value=0.25)
    expected = np.stack([_attention_reference(_f64(q[i]), _f64(k[i]), _f64(v[i]), 0.25,
                                              np.ones((s_len, skv), bool)) for i in range(b)])
    _assert_attention_close(plain, expected, np.abs(_f64(v)).max())


# --- an unfused model ---------------------------------------------------------------------------
# The numbers of the DeepSeek graphs against a float64 model are tested with the passes; here:
# the unfused graph verifies and runs on these kernels, step after step, in every quantization
# and cache mode, and writes exactly its tokens' cache slots.

TINY = dict(hidden_size=256, num_attention_heads=4, q_lora_rank=64)     # MLA dims as DeepSeek-V3's


@pytest.mark.parametrize("quant, cache_mode", [("bf16", "PA_BSND"), ("w8a8", "PA_NZ"), ("w8a8c8", "PA_BSND"),
                                               ("w8a8c8", "PA_NZ")])
def test_unfused_deepseek_graph_runs(quant, cache_mode):
    from ascend_mla.models import deepseek
    config = dict(deepseek.CONFIGS["deepseek-v3"], **TINY)
    model = deepseek.build("deepseek-v3", config=config, layers=2, batch=2, seq=2, quant=quant,
                           cache_mode=cache_mode, block_size=16)
    program = ascend_mla.compile(model, pipeline="builtin.module(verify)")
    assert "mla.paged_attention" in program.ir and "mla.prolog" not in program.ir   # nothing fused
    caches = model.new_caches()
    written = set()
    for step in range(2):
        inputs = model.inputs(step, caches=caches)
        hidden, *outs = program(**inputs)
        assert hidden.shape == (2, 2, 256) and hidden.dtype == BF16
        assert np.isfinite(hidden.astype(np.float32)).all()
        assert all(o is caches[name] for o, name in zip(outs, model.cache_names))   # in place
        written |= set(inputs["slot_mapping"].reshape(-1).tolist())
        for name, cache in caches.items():
            assert cache.dtype == (np.int8 if quant == "w8a8c8" and name.startswith("kv") else BF16)
            logical = _from_nz_blocks(cache) if cache_mode == "PA_NZ" else cache
            rows = logical.reshape(-1, logical.shape[2] * logical.shape[3])
            assert set(np.flatnonzero(rows.view(np.uint8).reshape(len(rows), -1).any(axis=1)).tolist()) == written

"""The serving engines' torch_npu ops (ascend_mla.ops: npu_interleave_rope,
npu_kv_rmsnorm_rope_cache, npu_transpose_batchmatmul, npu_dynamic_quant, npu_format_cast):
each against an independent float64 NumPy reference, with vLLM-Ascend's DeepSeek-V3 tp-16 decode
shapes (N = 8, batch 16, block 128); the rules only a call can break (torch_npu's profile, data);
and torch_npu's own op-plugin test cases run through a torch_npu stand-in (torch_npu_standin.py).

Tolerances, from the rounding points: every op computes in float32 and rounds once to its
result type, so a float result is within half a unit in the last place of the float64 value
(2^-8 relative for bf16 -- 8 significant bits --, 2^-11 for f16) plus the float32 error of its few operations; int8
results (rint of a float32 quotient) may differ from the float64 rint by 1 where the float32
and float64 quotients fall on either side of a .5 tie.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from torch_npu_standin import install_standin  # noqa: F401  (a fixture)

import ascend_mla
from ascend_mla import VerificationError, ops
from ascend_mla.runtime.formats import nd_to_nz

BF16 = np.dtype(ml_dtypes.bfloat16)

B, N, BLOCK, BLOCKS = 16, 8, 128, 40       # DeepSeek-V3 tp 16 decode as vLLM-Ascend runs it


def f64(a):
    return np.asarray(a).astype(np.float64)


def rand(rng, shape, scale=1.0, dtype=BF16):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def rope_tables(rng, tokens):
    """cos/sin (T, 1, 1, 64) as vLLM-Ascend builds them for the interleaved RoPE: each angle
    twice (first and second half)."""
    ang = rng.random((tokens, 32)) * 6.0
    full = np.concatenate([ang, ang], axis=-1).reshape(tokens, 1, 1, 64)
    return np.cos(full).astype(BF16), np.sin(full).astype(BF16)


def ref_interleave_rope(x, cos, sin):
    """torch_npu's formula: q = x's pairs de-interleaved, q*cos + RotateHalf(q)*sin (float64)."""
    x = f64(x)
    q = np.concatenate([x[..., 0::2], x[..., 1::2]], axis=-1)
    h = q.shape[-1] // 2
    rotated = np.concatenate([-q[..., h:], q[..., :h]], axis=-1)
    return q * f64(cos) + rotated * f64(sin)


def ref_rms_norm(x, gamma, eps):
    x = f64(x)
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * f64(gamma)


def within(got, want, rel, atol=0.0):
    got, want = f64(got), f64(want)
    bound = rel * np.abs(want) + atol
    return np.all(np.abs(got - want) <= bound), float(np.max(np.abs(got - want) - bound))


# --- npu_interleave_rope -----------------------------------------------------------------------

def test_interleave_rope_vllm_decode():
    """vLLM's rope_single: q_pe (B, N, 64) viewed (B, N, 1, 64), cos/sin (B, 1, 1, 64)."""
    rng = np.random.default_rng(1)
    x = rand(rng, (B, N, 1, 64))
    cos, sin = rope_tables(rng, B)
    y = ops.npu_interleave_rope(x, cos, sin)
    assert y.shape == x.shape and y.dtype == BF16
    # one bf16 rounding (2^-8 relative) of a float32 value whose error is a few 2^-24 of the
    # products' magnitudes (|x| |cos| + |x| |sin| <= 2 max|x|)
    ok, excess = within(y, ref_interleave_rope(x, cos, sin), 2.0**-8, 2.0**-20 * np.abs(f64(x)).max())
    assert ok, excess


def test_interleave_rope_torch_npu_rules():
    rng = np.random.default_rng(2)
    x, (cos, sin) = rand(rng, (B, N, 1, 64)), rope_tables(rng, B)
    with pytest.raises(VerificationError, match=r"x: expected a \(B, N, S, 64\) f16 or bf16 tensor \(torch_npu\), got .* \[ROPE-008\]"):
        ops.npu_interleave_rope(rand(rng, (B, N, 64)), cos[:, 0], sin[:, 0])
    with pytest.raises(VerificationError, match=r"cos: expected \(16, 1, 1 or 1, 64\) of bf16 \(torch_npu\), got .* \[ROPE-009\]"):
        ops.npu_interleave_rope(x, np.repeat(cos, N, axis=1), np.repeat(sin, N, axis=1))
    # ROPE-010 guards the profile: the eager call always asks for the interleaved mode
    from ascend_mla.dialect.primitive import Rope
    from ascend_mla.eager import call
    with pytest.raises(VerificationError, match=r"mode: npu_interleave_rope computes mode \"interleave\", got 'half' \[ROPE-010\]"):
        call(Rope, {"x": x, "cos": cos, "sin": sin}, {"mode": "half"}, profile="PT")


# --- npu_kv_rmsnorm_rope_cache -----------------------------------------------------------------

def _kv_inputs(rng, batch=B):
    kv = rand(rng, (batch, 1, 1, 576), 2.0)
    gamma = (1 + 0.2 * rng.standard_normal(512)).astype(BF16)
    cos, sin = rope_tables(rng, batch)
    slots = rng.permutation(BLOCKS * BLOCK)[:batch].astype(np.int64)
    return kv, gamma, cos, sin, slots


def _nz_rows(cache, slots, c0):
    """Rows of a PA_NZ cache read back through the documented layout: each block stored as
    [D/C0, BlockSize, C0] (torch_npu: (block_num, D//C0, block_size, 1, C0))."""
    blocks, bs, _, d = cache.shape
    tiles = cache.reshape(blocks, d // c0, bs, c0)
    return np.stack([tiles[s // bs, :, s % bs, :].reshape(d) for s in slots])


@pytest.mark.parametrize("mode", ["PA", "PA_NZ"])
def test_kv_rmsnorm_rope_cache_vllm_decode(mode):
    """vLLM's exec_kv_decode: kv (B, 1, 1, 576), int64 slots, caches (blocks, 128, 1, 64) and
    (blocks, 128, 1, 512), epsilon 1e-6, cache_mode PA or PA_NZ; returns the caches."""
    rng = np.random.default_rng(3)
    kv, gamma, cos, sin, slots = _kv_inputs(rng)
    k_cache = rand(rng, (BLOCKS, BLOCK, 1, 64))
    ckv_cache = rand(rng, (BLOCKS, BLOCK, 1, 512))
    before_k, before_ckv = k_cache.copy(), ckv_cache.copy()
    k_pe, k_nope, k_embed, y = ops.npu_kv_rmsnorm_rope_cache(kv, gamma, cos, sin, slots, k_cache, ckv_cache,
                                                             epsilon=1e-6, cache_mode=mode)
    assert k_pe is k_cache and k_nope is ckv_cache
    assert k_embed.shape == (B, 1, 1, 64) and y.shape == (B, 1, 1, 512)
    assert not np.any(f64(k_embed)) and not np.any(f64(y))     # is_output_kv False
    want_c = ref_rms_norm(kv[..., :512], gamma, 1e-6).reshape(B, 512)
    want_k = ref_interleave_rope(kv[..., 512:], cos, sin).reshape(B, 64)
    if mode == "PA":
        got_k = k_cache[slots // BLOCK, slots % BLOCK, 0]
        got_c = ckv_cache[slots // BLOCK, slots % BLOCK, 0]
    else:
        got_k, got_c = _nz_rows(k_cache, slots, 16), _nz_rows(ckv_cache, slots, 16)
    # RmsNorm in float32 (the mean of 512 squares: relative error ~2^-17) then one bf16 rounding
    assert within(got_c, want_c, 2.0**-8 + 2.0**-16)[0]
    assert within(got_k, want_k, 2.0**-8, 2.0**-20 * np.abs(f64(kv)).max())[0]
    # every other row is as it was
    written = np.zeros(BLOCKS * BLOCK, bool)
    written[slots] = True
    if mode == "PA":
        flat_k, flat_b = k_cache.reshape(-1, 64), before_k.reshape(-1, 64)
        assert np.array_equal(flat_k[~written].view(np.uint16), flat_b[~written].view(np.uint16))
    changed = (ckv_cache.view(np.uint16) != before_ckv.view(np.uint16)).reshape(BLOCKS, -1).any(axis=1)
    assert set(np.flatnonzero(changed)) <= set((slots // BLOCK).tolist())


def test_kv_rmsnorm_rope_cache_outputs_and_int8_cache():
    """is_output_kv: the unquantized values in kv's type. c_kv_scale alone (vLLM-Ascend's A5
    path): the latent cache int8 = saturate(rint(c_kv * scale)), the rope cache stays bf16."""
    rng = np.random.default_rng(4)
    kv, gamma, cos, sin, slots = _kv_inputs(rng)
    k_cache = np.zeros((BLOCKS, BLOCK, 1, 64), BF16)
    ckv_cache = np.zeros((BLOCKS, BLOCK, 1, 512), np.int8)
    scale = (rng.random(512) * 40 + 10).astype(np.float32)
    _, _, k_embed, y = ops.npu_kv_rmsnorm_rope_cache(kv, gamma, cos, sin, slots, k_cache, ckv_cache,
                                                     c_kv_scale=scale, cache_mode="PA_NZ",
                                                     is_output_kv=True)
    want_c = ref_rms_norm(kv[..., :512], gamma, 1e-5)
    assert within(y, want_c, 2.0**-8 + 2.0**-16)[0]
    assert within(k_embed, ref_interleave_rope(kv[..., 512:], cos, sin), 2.0**-8,
                  2.0**-20 * np.abs(f64(kv)).max())[0]
    want_q = np.clip(np.rint(want_c.reshape(B, 512) * f64(scale)), -128, 127)
    got_q = f64(_nz_rows(ckv_cache, slots, 32))            # int8 NZ: C0 = 32
    assert np.abs(got_q - want_q).max() <= 1 and np.mean(got_q == want_q) > 0.99
    assert np.abs(want_q).max() > 100                       # the scale reaches the int8 range


def test_kv_rmsnorm_rope_cache_rules():
    rng = np.random.default_rng(5)
    kv, gamma, cos, sin, slots = _kv_inputs(rng)
    k_cache, ckv_cache = rand(rng, (BLOCKS, BLOCK, 1, 64)), rand(rng, (BLOCKS, BLOCK, 1, 512))
    saved = k_cache.copy(), ckv_cache.copy()
    bad = slots.copy()
    bad[3] = BLOCKS * BLOCK
    with pytest.raises(VerificationError, match=r"index: value 5120 is outside \[-1, BlockNum\*BlockSize\) = \[-1, 5120\) \[KVR-012\]"):
        ops.npu_kv_rmsnorm_rope_cache(kv, gamma, cos, sin, bad, k_cache, ckv_cache, cache_mode="PA")
    assert np.array_equal(k_cache.view(np.uint16), saved[0].view(np.uint16))    # untouched
    assert np.array_equal(ckv_cache.view(np.uint16), saved[1].view(np.uint16))
    repeated = slots.copy()
    repeated[1] = repeated[0]
    with pytest.warns(ascend_mla.VerificationWarning, match=r"index: repeated slots: .* \[KVR-013\]"):
        ops.npu_kv_rmsnorm_rope_cache(kv, gamma, cos, sin, repeated, k_cache, ckv_cache, cache_mode="PA")
    with pytest.raises(VerificationError, match=r"v: not supported: .* \[KVR-015\]"):
        ops.npu_kv_rmsnorm_rope_cache(kv, gamma, cos, sin, slots, k_cache, ckv_cache, v=kv, cache_mode="PA")


# --- npu_transpose_batchmatmul -----------------------------------------------------------------

def test_transpose_batchmatmul_vllm_v_up_proj():
    """vLLM's _v_up_proj: the attention output (N, B, 512) times W_uv (N, 512, 128), perm_y
    (1, 0, 2) -> (B, N, 128)."""
    rng = np.random.default_rng(6)
    x, w = rand(rng, (N, B, 512)), rand(rng, (N, 512, 128), 0.05)
    y = ops.npu_transpose_batchmatmul(x, w, perm_y=(1, 0, 2))
    assert y.shape == (B, N, 128) and y.dtype == BF16
    want = np.einsum("nbk,nkd->bnd", f64(x), f64(w))
    # float32 sums of 512 products (<= 512 * 2^-24 * sum|x||w|) then one bf16 rounding
    mags = np.einsum("nbk,nkd->bnd", np.abs(f64(x)), np.abs(f64(w)))
    assert within(y, want, 2.0**-8, 2.0**-15 * mags)[0]


def test_transpose_batchmatmul_rules():
    rng = np.random.default_rng(7)
    x, w = rand(rng, (N, B, 512)), rand(rng, (N, 512, 128))
    with pytest.raises(VerificationError, match=r"scale: not supported .* \[TBMM-009\]"):
        ops.npu_transpose_batchmatmul(x, w, scale=np.ones(N * 128, np.int64))
    with pytest.raises(VerificationError, match=r"perm_x2: expected \[0, 1, 2\] .* \[TBMM-003\]"):
        ops.npu_transpose_batchmatmul(x, w, perm_x2=[0, 2, 1])


# --- npu_dynamic_quant ---------------------------------------------------------------------------

@pytest.mark.parametrize("smooth", [False, True])
def test_dynamic_quant_per_token(smooth):
    """vLLM-Ascend's W8A8C8 decode quantizes the hidden states (B, 7168) per token, int8."""
    rng = np.random.default_rng(8)
    x = rand(rng, (B, 7168), 3.0)
    s = (rng.random(7168) + 0.5).astype(BF16) if smooth else None
    y, scale = ops.npu_dynamic_quant(x, smooth_scales=s)
    assert y.dtype == np.int8 and scale.dtype == np.float32 and scale.shape == (B,)
    z = f64(x) * (f64(s) if smooth else 1.0)
    want_scale = np.abs(z).max(axis=-1) / 127
    # float32 products and one float32 division: a few 2^-24 relative
    assert np.all(np.abs(f64(scale) - want_scale) <= 2.0**-21 * want_scale)
    want_y = np.rint(z / want_scale[:, None])
    assert np.abs(f64(y) - want_y).max() <= 1 and np.mean(f64(y) == want_y) > 0.999


def test_dynamic_quant_rules():
    rng = np.random.default_rng(9)
    x = rand(rng, (B, 256))
    with pytest.raises(VerificationError, match=r"x: expected an f16 or bf16 tensor of rank > 1 \(torch_npu\), got .* \[DQ-008\]"):
        ops.npu_dynamic_quant(rand(rng, (256,)))
    with pytest.raises(VerificationError, match=r"smooth_scales: expected a 1-D f16 or bf16 tensor \(256,\) .* \[DQ-009\]"):
        ops.npu_dynamic_quant(x, smooth_scales=np.ones((1, 256), np.float32))
    with pytest.raises(VerificationError, match=r"dst_type: not supported: .*, got 'float8_e4m3fn' \[DQ-010\]"):
        ops.npu_dynamic_quant(x, dst_type="float8_e4m3fn")
    with pytest.raises(VerificationError, match=r"group_index: not supported: .*, got a tensor \[DQ-010\]"):
        ops.npu_dynamic_quant(x, group_index=np.array([B], np.int32))
    for int8 in (None, np.int8, "int8"):
        assert ops.npu_dynamic_quant(x, dst_type=int8)[0].dtype == np.int8


# --- npu_format_cast -----------------------------------------------------------------------------

def test_format_cast_round_trip_and_rules():
    """vLLM-Ascend packs its prolog weights with npu_format_cast(w, 29) and reads kv_b_proj back
    with npu_format_cast(w, 2): the NZ data are the documented fractal order, the round trip
    exact."""
    rng = np.random.default_rng(10)
    w = rand(rng, (1536, 576))
    nz = ops.npu_format_cast(w, 29)
    assert ascend_mla.get_format(nz) == 29 and nz.shape == w.shape
    assert np.array_equal(nz.data.view(np.uint16), nd_to_nz(w).view(np.uint16))
    assert np.array_equal(ops.npu_format_cast(nz, 2).view(np.uint16), w.view(np.uint16))
    assert ascend_mla.get_format(ops.npu_format_cast(w, nz)) == 29        # the .Tensor overload
    with pytest.raises(VerificationError, match=r"acl_format: expected 2 \(ND\) or 29 .* \[FC-004\]"):
        ops.npu_format_cast(w, 3)
    with pytest.raises(VerificationError, match=r"\[FC-003\]"):
        ops.npu_format_cast(np.ones((32, 32), np.int32), 29)
    with pytest.raises(VerificationError, match=r"\[FC-002\]"):
        ops.npu_format_cast(rand(rng, (64,)), 29)


# --- torch_npu's own op-plugin tests, through the stand-in ---------------------------------------
# The cases of Ascend/op-plugin test/test_custom_ops/test_npu_kv_rms_norm_rope_cache.py,
# test_npu_transpose_batchmatmul.py and test_npu_dynamic_quant.py, written again here (their
# shapes, dtypes, value ranges and tolerances; the goldens are this file's float64 formulas).

def test_op_plugin_kv_rmsnorm_rope_cache(install_standin):
    """PA_BNSD and PA_NZ, bf16, batch 64, seq 1, 576 pages of 128, slots 0..63, scaled inputs as
    the test draws them; the test compares the caches with rtol 0.04 (bf16)."""
    torch, torch_npu = install_standin
    for mode in ("PA_BNSD", "PA_NZ"):
        gen = torch.Generator().manual_seed(11)
        kv = (torch.randn(64, 1, 1, 576, generator=gen) * 8 - 10).to(torch.bfloat16)
        gamma = (torch.randn(512, generator=gen) * 990 - 1000).to(torch.bfloat16)
        cos = torch.randn(64, 1, 1, 64, generator=gen).to(torch.bfloat16)
        sin = (torch.randn(64, 1, 1, 64, generator=gen) * 0.02 - 0.01).to(torch.bfloat16)
        index = torch.arange(64, dtype=torch.int64)
        k_cache = torch.ones(576, 128, 1, 64, dtype=torch.bfloat16) * 9
        ckv_cache = torch.ones(576, 128, 1, 512, dtype=torch.bfloat16) * 9
        out = torch_npu.npu_kv_rmsnorm_rope_cache(kv.npu(), gamma.npu(), cos.npu(), sin.npu(), index.npu(),
                                                  k_cache.npu(), ckv_cache.npu(), epsilon=1e-5,
                                                  cache_mode=mode)
        got_k, got_c = (t.float().numpy() for t in out[:2])
        slots = np.arange(64)
        want_c = ref_rms_norm(kv[..., :512].float().numpy(), gamma.float().numpy(), 1e-5).reshape(64, 512)
        want_k = ref_interleave_rope(kv[..., 512:].float().numpy(), cos.float().numpy(),
                                     sin.float().numpy()).reshape(64, 64)
        if mode == "PA_NZ":
            got_k, got_c = _nz_rows(got_k, slots, 16), _nz_rows(got_c, slots, 16)
        else:
            got_k, got_c = got_k.reshape(-1, 64)[:64], got_c.reshape(-1, 512)[:64]
        for got, want in ((got_k, want_k), (got_c, want_c)):
            assert np.all(np.abs(got - want) <= 0.04 * np.maximum(np.abs(want), 1.0))


def test_op_plugin_transpose_batchmatmul(install_standin):
    """M 32, K 512, N 128, batch 32, float16, perm_x1 [1, 0, 2]: without scale (rtol 0.001
    against a float32 golden rounded to f16), and with batch_split_factor."""
    torch, torch_npu = install_standin
    gen = torch.Generator().manual_seed(12)
    x1 = torch.randn((32, 32, 512), dtype=torch.float16, generator=gen)
    x2 = torch.randn((32, 512, 128), dtype=torch.float16, generator=gen)
    want = np.einsum("mbk,bkn->mbn", f64(x1.numpy()), f64(x2.numpy()))
    got = torch_npu.npu_transpose_batchmatmul(x1.npu(), x2.npu(), scale=None, perm_x1=[1, 0, 2],
                                              perm_x2=[0, 1, 2], perm_y=[1, 0, 2]).to("cpu")
    assert got.dtype == torch.float16
    assert np.all(np.abs(f64(got.numpy()) - want) <= 0.001 * np.abs(want) + 2.0**-11 * np.abs(want).max())
    split = torch_npu.npu_transpose_batchmatmul(x1.npu(), x2.npu(), scale=None, perm_x1=[1, 0, 2],
                                                perm_x2=[0, 1, 2], perm_y=[1, 0, 2], batch_split_factor=4)
    assert tuple(split.shape) == (4, 32, 32 * 128 // 4)
    assert np.array_equal(split.numpy(), got.numpy().reshape(32, 4, -1).transpose(1, 0, 2))


def test_op_plugin_dynamic_quant(install_standin):
    """(2, 32, 256) float16 and bfloat16 inputs, no smooth scales."""
    torch, torch_npu = install_standin
    for dtype in (torch.float16, torch.bfloat16):
        x = torch.randn((2, 32, 256), dtype=dtype, generator=torch.Generator().manual_seed(13))
        y, scale = torch_npu.npu_dynamic_quant(x.npu())
        assert y.dtype == torch.int8 and tuple(scale.shape) == (2, 32)
        z = f64(x.float().numpy())
        want = np.rint(z / (np.abs(z).max(axis=-1, keepdims=True) / 127))
        assert np.abs(f64(y.numpy()) - want).max() <= 1

"""mla.fused_infer_attention_score (FIA V2 + MLA mode) against an independent float32 reference.

Every test builds the *logical* attention problem first (per batch row: the query rows, the key
and value rows each query head sees, which pairs are masked) and runs the plain softmax
attention below on it; the operator's inputs (layouts, paged caches, padding, quantized
tensors) are then derived from that problem. The reference shares no code with the kernel.

Rounding points (docs/numerics.md; runtime/kernels/fia.py docstring): scores and softmax in
float32, exp(s - max) rounded to the 16-bit query dtype before P.V, output rounded once. The
reference applies the same points, so kernel and reference differ only by float32 summation
order. That can move a pre-rounding value across a rounding boundary of P or of the output:
at most 1 ulp of the output dtype (2^-7 relative for bf16, 2^-10 for fp16) plus, near zero, an
absolute error of a few float32 ulps of the P.V sum. Hence BF16_TOL = rtol 2^-7, atol 2^-9
(values here are O(1)), and FP16_TOL = rtol 2^-9, atol 2^-11. INT8 outputs may differ by 1
(a rounding boundary), float32 lse by float32 noise (rtol 1e-5).
"""
from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla.runtime import formats
from ascend_mla.runtime.kernels import get_kernel

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
BF16_TOL = dict(rtol=2.0**-7, atol=2.0**-9)
FP16_TOL = dict(rtol=2.0**-9, atol=2.0**-11)
LSE_TOL = dict(rtol=1e-5, atol=1e-5)


def fia(**kwargs):
    """The operator under test: the public eager API (verification, then the CPU kernel)."""
    return ascend_mla.ops.npu_fused_infer_attention_score(**kwargs)


def fia_kernel(**kwargs):
    """The CPU kernel alone, for inputs the verifier rejects but the kernel defines (seed UB
    cases, NZ caches outside the MLA mode): what the interpreter does with them is still tested."""
    return get_kernel("mla.fused_infer_attention_score")(**kwargs)


# ------------------------------------------------------------------------------------------
# the independent reference
# ------------------------------------------------------------------------------------------

def rnd(x, dtype):
    """Round float32 values to dtype and back (None: keep float32)."""
    x = np.asarray(x, np.float32)
    return x if dtype is None else x.astype(dtype).astype(np.float32)


def attention_rows(q, k, v, scale, masked=None, bias=None, p_dtype=None):
    """Plain softmax attention of one head: q (S1, D), k (L, D), v (L, Dv).

    Returns out (S1, Dv) and lse (S1,); a row with no unmasked key gives 0 and -inf.
    """
    q, k, v = (np.asarray(a, np.float32) for a in (q, k, v))
    out = np.zeros((q.shape[0], v.shape[1]), np.float32)
    lse = np.full(q.shape[0], -np.inf, np.float32)
    for i in range(q.shape[0]):
        logits = k @ q[i]
        if bias is not None:
            logits = logits + bias[i]
        logits = logits * np.float32(scale)
        keep = np.ones(k.shape[0], bool) if masked is None else ~masked[i]
        if not keep.any():
            continue
        top = logits[keep].max()
        w = np.where(keep, np.exp(logits - top), 0).astype(np.float32)
        total = w.sum(dtype=np.float32)
        out[i] = (rnd(w, p_dtype) @ v) / total
        lse[i] = top + np.log(total)
    return out, lse


def reference(q, ks, vs, scale, rows=None, masked=None, bias=None, p_dtype=None):
    """q (B, N, Q_S, D); ks[b], vs[b] (KV_N, L_b, D[v]); rows[b] the valid query rows.

    masked[b] (S1_b, L_b) and bias[b] (N, S1_b, L_b) are given for the valid rows.
    Query head n reads kv head n // (N / KV_N). Rows outside `rows` give 0 and lse -inf.
    """
    batch, heads, q_s, _ = q.shape
    out = np.zeros((batch, heads, q_s, vs[0].shape[-1]), np.float32)
    lse = np.full((batch, heads, q_s), -np.inf, np.float32)
    for b in range(batch):
        r = np.arange(q_s) if rows is None else np.asarray(rows[b])
        group = heads // ks[b].shape[0]
        for n in range(heads):
            o, l_ = attention_rows(
                q[b, n, r], ks[b][n // group], vs[b][n // group], scale,
                None if masked is None or masked[b] is None else masked[b],
                None if bias is None else bias[b][n], p_dtype)
            out[b, n, r], lse[b, n, r] = o, l_
    return out, lse


# ------------------------------------------------------------------------------------------
# building inputs
# ------------------------------------------------------------------------------------------

def rand(rng, shape, dtype=BF16, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32).astype(dtype)


def to_layout(x, layout):
    """(B, N, S, D) -> the layout's shape (BNSD_BSND inputs are BNSD)."""
    if layout == "BSH":
        b, n, s, d = x.shape
        return np.ascontiguousarray(x.transpose(0, 2, 1, 3).reshape(b, s, n * d))
    if layout == "BSND":
        return np.ascontiguousarray(x.transpose(0, 2, 1, 3))
    return np.ascontiguousarray(x)


def out_to_bnsd(out, layout, heads):
    out = np.asarray(out, np.float32)
    if layout == "BSH":
        b, s, h = out.shape
        return out.reshape(b, s, heads, h // heads).transpose(0, 2, 1, 3)
    if layout in ("BSND", "BNSD_BSND"):
        return out.transpose(0, 2, 1, 3)
    return out


def f32(x):
    return np.asarray(x, np.float32)


def page(kv_per_batch, block_size, rng, extra_blocks=3):
    """Scatter per-batch (KV_N, L_b, D) rows into a BnNBsD pool with a shuffled block table."""
    kv_heads, d = kv_per_batch[0].shape[0], kv_per_batch[0].shape[2]
    need = [-(-x.shape[1] // block_size) for x in kv_per_batch]
    width = max(need) + 1
    total = sum(need) + extra_blocks
    ids = rng.permutation(total)             # same rng seed -> same table for K, V, rope
    pool = rand(rng, (total, kv_heads, block_size, d), kv_per_batch[0].dtype)  # junk rows
    table = np.full((len(kv_per_batch), width), -1, np.int32)
    used = 0
    for b, x in enumerate(kv_per_batch):
        for j in range(need[b]):
            blk = ids[used]
            used += 1
            table[b, j] = blk
            part = x[:, j * block_size:(j + 1) * block_size]
            pool[blk, :, :part.shape[1]] = part
        table[b, need[b]:] = ids[used % total]          # unused entries: any valid id
    return pool, table


def bnbsh(pool):
    """BnNBsD pool -> BnBsH (block_num, block_size, KV_N * D)."""
    nb, kv, bs, d = pool.shape
    return np.ascontiguousarray(pool.transpose(0, 2, 1, 3).reshape(nb, bs, kv * d))


def nz_pool(pool_bnbsh):
    """BnBsH ND pool -> PA_NZ memory (numerics.md point 5), in the prolog's (nb, bs, 1, H):
    element h of slot p sits at flat offset
    (p // bs) * bs * H + (h // C0) * bs * C0 + (p % bs) * C0 + h % C0."""
    nb, bs, h = pool_bnbsh.shape
    c0 = 32 // pool_bnbsh.dtype.itemsize
    flat = np.zeros(nb * bs * h, pool_bnbsh.dtype)
    for p in range(nb * bs):
        for col in range(0, h, c0):                     # one C0-wide run at a time
            at = (p // bs) * bs * h + (col // c0) * bs * c0 + (p % bs) * c0
            flat[at:at + c0] = pool_bnbsh[p // bs, p % bs, col:col + c0]
    return flat.reshape(nb, bs, 1, h)


def nz_tensor(pool_bnbsh):
    """The same PA_NZ bytes wrapped as an NZTensor of logical shape (nb, bs, H)."""
    nb, bs, h = pool_bnbsh.shape
    c0 = 32 // pool_bnbsh.dtype.itemsize
    return formats.NZTensor(nz_pool(pool_bnbsh).reshape(nb, h // c0, bs // 16, 16, c0),
                            (nb, bs, h))


def check(out, expected, tol):
    np.testing.assert_allclose(f32(out), expected, **tol)


# ------------------------------------------------------------------------------------------
# basic: the seed's example, layouts, branches, GQA, lse
# ------------------------------------------------------------------------------------------

def test_seed_example_all_ones():
    q = np.ones((1, 2, 1, 128), F16)
    kv = np.ones((1, 2, 512, 128), F16)
    out, lse = fia(query=q, key=[kv], value=[kv], num_heads=2, num_key_value_heads=2,
                   scale_value=1 / np.sqrt(128), input_layout="BNSD",
                   pre_tokens=65535, next_tokens=65535)
    assert out.dtype == F16 and out.shape == (1, 2, 1, 128)
    assert np.all(out == 1)
    assert lse.shape == (1,) and lse.dtype == np.float32 and lse[0] == 0


@pytest.mark.parametrize("layout,q_s", [(layout, q_s) for layout in ("BSH", "BSND", "BNSD")
                                          for q_s in (1, 5)] + [("BNSD_BSND", 5)])
def test_layouts_branches_gqa_lse(layout, q_s):
    rng = np.random.default_rng(1)
    b, n, kvn, d, kv_s = 2, 4, 2, 32, 37
    q = rand(rng, (b, n, q_s, d))
    k = rand(rng, (b, kvn, kv_s, d))
    v = rand(rng, (b, kvn, kv_s, d))
    out, lse = fia(query=to_layout(q, layout), key=to_layout(k, layout),
                   value=to_layout(v, layout), num_heads=n, num_key_value_heads=kvn,
                   scale_value=0.17, input_layout=layout, softmax_lse_flag=True)
    exp_out, exp_lse = reference(f32(q), list(f32(k)), list(f32(v)), 0.17, p_dtype=BF16)
    assert out.dtype == BF16
    expected_shape = to_layout(np.zeros((b, n, q_s, d)), "BSND" if layout == "BNSD_BSND"
                               else layout).shape
    assert out.shape == expected_shape
    check(out_to_bnsd(out, layout, n), rnd(exp_out, BF16), BF16_TOL)
    assert lse.shape == (b, n, q_s, 1) and lse.dtype == np.float32
    np.testing.assert_allclose(lse[..., 0], exp_lse, **LSE_TOL)


@pytest.mark.parametrize("dtype", [BF16, F16])
def test_p_enters_pv_rounded_to_query_dtype(dtype):
    """The rounding point of P: kernel and the rounded-P reference agree bit for bit almost
    everywhere (float32 summation order flips a rare output rounding), while an unrounded P
    disagrees in a large share of the outputs, so this check can tell the two apart."""
    rng = np.random.default_rng(30)
    b, n, d, kv_s = 2, 8, 64, 300
    q, k, v = rand(rng, (b, n, 4, d), dtype), rand(rng, (b, 1, kv_s, d), dtype), \
        rand(rng, (b, 1, kv_s, d), dtype)
    out, _ = fia(query=q, key=k, value=v, num_heads=n, num_key_value_heads=1,
                 input_layout="BNSD", scale_value=0.125)
    rounded_p, _ = reference(f32(q), list(f32(k)), list(f32(v)), 0.125, p_dtype=dtype)
    exact_p, _ = reference(f32(q), list(f32(k)), list(f32(v)), 0.125, p_dtype=None)
    assert np.mean(f32(out) == rnd(rounded_p, dtype)) > 0.97
    assert np.mean(f32(out) == rnd(exact_p, dtype)) < 0.9

def test_empty_kv_batch_gives_zeros():
    rng = np.random.default_rng(2)
    q, k = rand(rng, (2, 2, 1, 16)), rand(rng, (2, 2, 9, 16))
    out, lse = fia(query=q, key=k, value=k, num_heads=2, input_layout="BNSD",
                   actual_seq_lengths_kv=[0, 5], softmax_lse_flag=True)
    exp_out, exp_lse = reference(f32(q), [f32(k[0, :, :0]), f32(k[1, :, :5])],
                                 [f32(k[0, :, :0]), f32(k[1, :, :5])], 1.0, p_dtype=BF16)
    assert np.all(f32(out[0]) == 0) and np.all(np.isneginf(lse[0]))
    check(out, rnd(exp_out, BF16), BF16_TOL)
    np.testing.assert_allclose(lse[..., 0], exp_lse, **LSE_TOL)


# ------------------------------------------------------------------------------------------
# masks and sparse modes
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("mask_dtype", [bool, np.int8, np.uint8])
def test_incre_mask_ignores_sparse_mode_and_tokens(mask_dtype):
    rng = np.random.default_rng(3)
    b, n, d, kv_s = 2, 4, 16, 40
    q, k, v = rand(rng, (b, n, 1, d)), rand(rng, (b, 1, kv_s, d)), rand(rng, (b, 1, kv_s, d))
    mask = (rng.random((b, 1, 1, 48)) < 0.4).astype(mask_dtype)       # KV_S padded to 48
    mask[:, ..., 0] = 0
    out, _ = fia(query=q, key=k, value=v, atten_mask=mask, num_heads=n, num_key_value_heads=1,
                 input_layout="BNSD", sparse_mode=3, pre_tokens=0, next_tokens=0,
                 scale_value=0.3)
    masked = [mask[i, 0, 0, :kv_s][None].astype(bool) for i in range(b)]
    exp_out, _ = reference(f32(q), list(f32(k)), list(f32(v)), 0.3, masked=masked,
                           p_dtype=BF16)
    check(out, rnd(exp_out, BF16), BF16_TOL)


def band(s1, length, lo_off, hi_off):
    """masked[i, j] = j < i + lo_off or j > i + hi_off, by explicit loops."""
    m = np.zeros((s1, length), bool)
    for i in range(s1):
        for j in range(length):
            m[i, j] = j < i + lo_off or j > i + hi_off
    return m


@pytest.mark.parametrize("mask_dtype,mask_rank", [(bool, 2), (np.int8, 4), (np.uint8, 3)])
def test_prompt_sparse0_mask_with_band(mask_dtype, mask_rank):
    rng = np.random.default_rng(4)
    b, n, d, q_s, kv_s, pre, nxt = 2, 2, 16, 6, 20, 3, 2
    q, k, v = rand(rng, (b, n, q_s, d)), rand(rng, (b, n, kv_s, d)), rand(rng, (b, n, kv_s, d))
    m2 = (rng.random((q_s + 2, kv_s + 4)) < 0.3).astype(mask_dtype)    # padded mask dims
    mask = {2: m2, 3: m2[None], 4: np.broadcast_to(m2, (b, 1) + m2.shape).copy()}[mask_rank]
    out, _ = fia(query=to_layout(q, "BSND"), key=to_layout(k, "BSND"),
                 value=to_layout(v, "BSND"), atten_mask=mask, num_heads=n,
                 input_layout="BSND", sparse_mode=0, pre_tokens=pre, next_tokens=nxt)
    masked = m2[:q_s, :kv_s].astype(bool) | band(q_s, kv_s, -pre, nxt)
    exp_out, _ = reference(f32(q), list(f32(k)), list(f32(v)), 1.0, masked=[masked] * b,
                           p_dtype=BF16)
    check(out_to_bnsd(out, "BSND", n), rnd(exp_out, BF16), BF16_TOL)


def test_prompt_sparse0_without_mask_ignores_tokens_and_sparse1_uses_mask_only():
    rng = np.random.default_rng(5)
    b, n, d, q_s, kv_s = 1, 2, 16, 4, 12
    q, k, v = rand(rng, (b, n, q_s, d)), rand(rng, (b, n, kv_s, d)), rand(rng, (b, n, kv_s, d))
    common = dict(query=q, key=k, value=v, num_heads=n, input_layout="BNSD",
                  pre_tokens=0, next_tokens=0)
    out0, _ = fia(**common, sparse_mode=0)
    exp0, _ = reference(f32(q), list(f32(k)), list(f32(v)), 1.0, p_dtype=BF16)
    check(out0, rnd(exp0, BF16), BF16_TOL)
    mask = (rng.random((b, 1, q_s, kv_s)) < 0.5)
    mask[..., 0] = False
    out1, _ = fia(**common, atten_mask=mask, sparse_mode=1)
    exp1, _ = reference(f32(q), list(f32(k)), list(f32(v)), 1.0, masked=[mask[0, 0]],
                        p_dtype=BF16)
    check(out1, rnd(exp1, BF16), BF16_TOL)


@pytest.mark.parametrize("mode", [2, 3, 4])
def test_prompt_compressed_mask_modes(mode):
    rng = np.random.default_rng(6)
    b, n, d, q_s, kv_s, pre, nxt = 2, 2, 16, 6, 16, 4, 1
    q, k, v = rand(rng, (b, n, q_s, d)), rand(rng, (b, n, kv_s, d)), rand(rng, (b, n, kv_s, d))
    asl, askv = [6, 4], [9, 16]
    template = np.triu(np.ones((2048, 2048), np.int8), 1)[None, None]
    out, lse = fia(query=q, key=k, value=v, atten_mask=template, num_heads=n,
                   input_layout="BNSD", sparse_mode=mode, pre_tokens=pre, next_tokens=nxt,
                   actual_seq_lengths=asl, actual_seq_lengths_kv=askv, softmax_lse_flag=True)
    masked = []
    for s1, length in zip(asl, askv):
        diag = length - s1
        masked.append({2: band(s1, length, -10**6, 0), 3: band(s1, length, -10**6, diag),
                       4: band(s1, length, diag - pre, diag + nxt)}[mode])
    exp_out, exp_lse = reference(f32(q), [f32(k[i, :, :askv[i]]) for i in range(b)],
                                 [f32(v[i, :, :askv[i]]) for i in range(b)], 1.0,
                                 rows=[range(s) for s in asl], masked=masked, p_dtype=BF16)
    check(out, rnd(exp_out, BF16), BF16_TOL)
    np.testing.assert_allclose(lse[..., 0], exp_lse, **LSE_TOL)


@pytest.mark.parametrize("inner_precise", [0, 1, 2, 3])
def test_fully_masked_rows_give_zeros(inner_precise):
    rng = np.random.default_rng(7)
    b, n, d, q_s, kv_s = 1, 2, 16, 4, 8
    q, k, v = rand(rng, (b, n, q_s, d)), rand(rng, (b, n, kv_s, d)), rand(rng, (b, n, kv_s, d))
    mask = np.zeros((q_s, kv_s), np.int8)
    mask[1] = 1                                         # row 1 sees no key at all
    out, lse = fia(query=q, key=k, value=v, atten_mask=mask, num_heads=n, input_layout="BNSD",
                   sparse_mode=1, inner_precise=inner_precise, softmax_lse_flag=True)
    assert np.all(f32(out[:, :, 1]) == 0) and np.all(np.isneginf(lse[:, :, 1]))
    exp_out, _ = reference(f32(q), list(f32(k)), list(f32(v)), 1.0, masked=[mask == 1],
                           p_dtype=BF16)
    check(out, rnd(exp_out, BF16), BF16_TOL)
    # sparse 3 with more query rows than keys: the first rows have no key either
    out3, lse3 = fia(query=q, key=k, value=v, atten_mask=np.triu(np.ones((2048, 2048), bool), 1),
                     num_heads=n, input_layout="BNSD", sparse_mode=3, inner_precise=inner_precise,
                     actual_seq_lengths_kv=[2], softmax_lse_flag=True)
    assert np.all(f32(out3[:, :, :2]) == 0) and np.all(np.isneginf(lse3[:, :, :2]))
    exp3, _ = reference(f32(q), [f32(k[0, :, :2])], [f32(v[0, :, :2])], 1.0,
                        masked=[band(q_s, 2, -10**6, 2 - q_s)], p_dtype=BF16)
    check(out3, rnd(exp3, BF16), BF16_TOL)


# ------------------------------------------------------------------------------------------
# pse_shift, lengths, left padding
# ------------------------------------------------------------------------------------------

def test_pse_shift_prompt_and_incre():
    rng = np.random.default_rng(8)
    b, n, d, kv_s = 2, 4, 16, 37
    for q_s, dtype, tol in ((5, BF16, BF16_TOL), (1, F16, FP16_TOL)):
        q = rand(rng, (b, n, q_s, d), dtype)
        k, v = rand(rng, (b, 2, kv_s, d), dtype), rand(rng, (b, 2, kv_s, d), dtype)
        pse = rand(rng, (1 if q_s > 1 else b, n, q_s + (3 if q_s > 1 else 0), 48), dtype)
        out, _ = fia(query=to_layout(q, "BSH"), key=to_layout(k, "BSH"),
                     value=to_layout(v, "BSH"), pse_shift=pse, num_heads=n,
                     num_key_value_heads=2, scale_value=0.25, input_layout="BSH")
        bias = [f32(pse[i if pse.shape[0] > 1 else 0, :, :q_s, :kv_s]) for i in range(b)]
        exp_out, _ = reference(f32(q), list(f32(k)), list(f32(v)), 0.25, bias=bias,
                               p_dtype=dtype)
        assert out.dtype == dtype
        check(out_to_bnsd(out, "BSH", n), rnd(exp_out, dtype), tol)


def test_actual_seq_lengths_broadcast_and_incre_ignores_them():
    rng = np.random.default_rng(9)
    b, n, d, q_s, kv_s = 2, 2, 16, 5, 37
    q, k, v = rand(rng, (b, n, q_s, d)), rand(rng, (b, n, kv_s, d)), rand(rng, (b, n, kv_s, d))
    out, lse = fia(query=q, key=k, value=v, num_heads=n, input_layout="BNSD",
                   actual_seq_lengths=[3], actual_seq_lengths_kv=[20, 37], softmax_lse_flag=True)
    exp_out, exp_lse = reference(f32(q), [f32(k[0, :, :20]), f32(k[1])],
                                 [f32(v[0, :, :20]), f32(v[1])], 1.0, rows=[range(3)] * 2,
                                 p_dtype=BF16)
    assert np.all(f32(out[:, :, 3:]) == 0) and np.all(np.isneginf(lse[:, :, 3:]))
    check(out, rnd(exp_out, BF16), BF16_TOL)
    np.testing.assert_allclose(lse[..., 0], exp_lse, **LSE_TOL)
    out1, _ = fia(query=np.ascontiguousarray(q[:, :, :1]), key=k, value=v, num_heads=n,
                  input_layout="BNSD",
                  actual_seq_lengths=[0], actual_seq_lengths_kv=[11])
    exp1, _ = reference(f32(q[:, :, :1]), list(f32(k[:, :, :11])), list(f32(v[:, :, :11])),
                        1.0, p_dtype=BF16)
    check(out1, rnd(exp1, BF16), BF16_TOL)


def test_prompt_left_padding_with_physical_mask():
    rng = np.random.default_rng(10)
    b, n, d, q_s, kv_s = 2, 2, 16, 6, 30
    q, k, v = rand(rng, (b, n, q_s, d)), rand(rng, (b, n, kv_s, d)), rand(rng, (b, n, kv_s, d))
    asl, askv, q_pad, kv_pad = [2, 4], [10, 25], 1, 3
    mask = rng.random((b, 1, q_s, kv_s)) < 0.3
    out, lse = fia(query=to_layout(q, "BSND"), key=to_layout(k, "BSND"),
                   value=to_layout(v, "BSND"), atten_mask=mask, num_heads=n,
                   input_layout="BSND", actual_seq_lengths=asl, actual_seq_lengths_kv=askv,
                   query_padding_size=np.array([q_pad], np.int64),
                   kv_padding_size=np.array([kv_pad], np.int64),
                   pre_tokens=0, next_tokens=0, softmax_lse_flag=True)   # tokens ignored
    rows = [range(q_s - q_pad - s, q_s - q_pad) for s in asl]
    cols = [range(kv_s - kv_pad - s, kv_s - kv_pad) for s in askv]
    exp_out, exp_lse = reference(
        f32(q), [f32(k[i][:, cols[i]]) for i in range(b)],
        [f32(v[i][:, cols[i]]) for i in range(b)], 1.0, rows=rows, masked=[mask[i, 0][np.ix_(rows[i], cols[i])] for i in range(b)],
        p_dtype=BF16)
    check(out_to_bnsd(out, "BSND", n), rnd(exp_out, BF16), BF16_TOL)
    np.testing.assert_allclose(lse[..., 0], exp_lse, **LSE_TOL)


def test_incre_kv_left_padding_out_of_range_gives_zeros():
    rng = np.random.default_rng(11)
    b, n, d, kv_s = 3, 2, 16, 30
    q, k, v = rand(rng, (b, n, 1, d)), rand(rng, (b, n, kv_s, d)), rand(rng, (b, n, kv_s, d))
    askv = [10, 31, 28]
    out, _ = fia_kernel(query=q, key=k, value=v, num_heads=n, input_layout="BNSD",
                 actual_seq_lengths_kv=askv, kv_padding_size=np.array([2], np.int64))
    cols = [range(kv_s - 2 - s, kv_s - 2) for s in (10, 0, 28)]
    exp_out, _ = reference(f32(q), [f32(k[i][:, cols[i]]) for i in range(b)],
                           [f32(v[i][:, cols[i]]) for i in range(b)], 1.0, p_dtype=BF16)
    assert np.all(f32(out[1]) == 0)                      # start 30 - 2 - 31 < 0
    check(out, rnd(exp_out, BF16), BF16_TOL)
    neg, _ = fia_kernel(query=q, key=k, value=v, num_heads=n, input_layout="BNSD",
                 actual_seq_lengths_kv=[12], kv_padding_size=np.array([-4], np.int64))
    exp_neg, _ = reference(f32(q), list(f32(k[:, :, 18:])), list(f32(v[:, :, 18:])), 1.0,
                           p_dtype=BF16)                # a negative padding counts as 0
    check(neg, rnd(exp_neg, BF16), BF16_TOL)


# ------------------------------------------------------------------------------------------
# page attention, tensor list, shared prefix
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout,cache,q_s,block", [
    ("BSH", "BnBsH", 1, 16), ("BNSD", "BnNBsD", 1, 32), ("BSND", "BnBsH", 4, 128),
    ("BNSD", "BnNBsD", 4, 128), ("BNSD", "BnBsH", 1, 16), ("BSH", "BnBsH-NZ", 1, 16),
    ("BNSD", "BnNBsD-NZ", 4, 128)])
def test_page_attention(layout, cache, q_s, block):
    rng = np.random.default_rng(12)
    b, n, kvn, d = 2, 4, 2, 16
    askv = [33, 150]
    q = rand(rng, (b, n, q_s, d))
    ks = [rand(rng, (kvn, s, d)) for s in askv]
    vs = [rand(rng, (kvn, s, d)) for s in askv]
    k_pool, table = page(ks, block, np.random.default_rng(0))
    v_pool, _ = page(vs, block, np.random.default_rng(0))
    if cache.startswith("BnBsH"):
        k_pool, v_pool = bnbsh(k_pool), bnbsh(v_pool)
    if cache.endswith("-NZ"):        # FRACTAL_NZ of each block's (bs, H) or (bs, D) matrix
        k_pool, v_pool = formats.format_cast(k_pool, 29), formats.format_cast(v_pool, 29)
    width = table.shape[1] * block
    mask = rng.random((b, 1, q_s, width)) < 0.2
    mask[..., 0] = False
    # The op takes NZ caches only in the MLA mode (FIA-011); the kernel reads them anywhere.
    run = fia_kernel if cache.endswith("NZ") else fia
    out, lse = run(query=to_layout(q, layout), key=k_pool, value=v_pool, atten_mask=mask,
                   block_table=table, block_size=block, actual_seq_lengths_kv=askv,
                   num_heads=n, num_key_value_heads=kvn, input_layout=layout, scale_value=0.2,
                   sparse_mode=1 if q_s > 1 else 0, softmax_lse_flag=True)
    masked = [mask[i, 0, :, :askv[i]] for i in range(b)]
    exp_out, exp_lse = reference(f32(q), [f32(x) for x in ks], [f32(x) for x in vs], 0.2,
                                 masked=masked, p_dtype=BF16)
    check(out_to_bnsd(out, layout, n), rnd(exp_out, BF16), BF16_TOL)
    np.testing.assert_allclose(lse[..., 0], exp_lse, **LSE_TOL)


def test_bnbsh_cache_with_as_many_kv_heads_as_block_rows():
    """A rank-3 BnBsH cache is (block_num, block_size, KV_N * D) whatever KV_N is: with
    KV_N == block_size its (nb, bs, KV_N, D) reading must not be taken for BnNBsD."""
    rng = np.random.default_rng(31)
    b, n, kvn, d, block = 2, 16, 16, 16, 16
    askv = [20, 33]
    q = rand(rng, (b, n, 1, d))
    ks = [rand(rng, (kvn, s, d)) for s in askv]
    vs = [rand(rng, (kvn, s, d)) for s in askv]
    k_pool, table = page(ks, block, np.random.default_rng(0))
    v_pool, _ = page(vs, block, np.random.default_rng(0))
    out, _ = fia(query=q, key=bnbsh(k_pool), value=bnbsh(v_pool), block_table=table,
                 block_size=block, actual_seq_lengths_kv=askv, num_heads=n,
                 num_key_value_heads=kvn, input_layout="BNSD", scale_value=0.25)
    exp_out, _ = reference(f32(q), [f32(x) for x in ks], [f32(x) for x in vs], 0.25,
                           p_dtype=BF16)
    check(out, rnd(exp_out, BF16), BF16_TOL)


@pytest.mark.parametrize("q_s", [1, 3])
def test_tensor_list_kv(q_s):
    rng = np.random.default_rng(13)
    n, kvn, d, lengths = 4, 1, 16, [20, 33, 7]
    q = rand(rng, (3, n, q_s, d))
    ks = [rand(rng, (1, kvn, s, d)) for s in lengths]
    vs = [rand(rng, (1, kvn, s, d)) for s in lengths]
    askv = [15, 33, 7]
    out, _ = fia(query=q, key=ks, value=vs, num_heads=n, num_key_value_heads=kvn,
                 input_layout="BNSD", actual_seq_lengths_kv=askv)
    exp_out, _ = reference(f32(q), [f32(x[0, :, :s]) for x, s in zip(ks, askv)],
                           [f32(x[0, :, :s]) for x, s in zip(vs, askv)], 1.0, p_dtype=BF16)
    check(out, rnd(exp_out, BF16), BF16_TOL)


def test_shared_prefix_prompt_causal_and_incre_mask():
    rng = np.random.default_rng(14)
    b, n, kvn, d, kv_s, sp, p = 2, 4, 2, 16, 20, 12, 9
    kp, vp = rand(rng, (1, sp, kvn, d)), rand(rng, (1, sp, kvn, d))
    k, v = rand(rng, (b, kv_s, kvn, d)), rand(rng, (b, kv_s, kvn, d))
    askv = [20, 14]
    keys = [np.concatenate([kp[0, :p], k[i, :askv[i]]]).transpose(1, 0, 2) for i in range(b)]
    vals = [np.concatenate([vp[0, :p], v[i, :askv[i]]]).transpose(1, 0, 2) for i in range(b)]
    common = dict(key=k, value=v, key_shared_prefix=kp, value_shared_prefix=vp,
                  actual_shared_prefix_len=[p], actual_seq_lengths_kv=askv, num_heads=n,
                  num_key_value_heads=kvn, input_layout="BSND")
    q = rand(rng, (b, n, 5, d))
    out, _ = fia(query=to_layout(q, "BSND"), atten_mask=np.triu(np.ones((2048, 2048), bool), 1),
                 sparse_mode=3, **common)
    masked = [band(5, p + s, -10**6, p + s - 5) for s in askv]
    exp_out, _ = reference(f32(q), [f32(x) for x in keys], [f32(x) for x in vals], 1.0,
                           masked=masked, p_dtype=BF16)
    check(out_to_bnsd(out, "BSND", n), rnd(exp_out, BF16), BF16_TOL)
    q1 = rand(rng, (b, n, 1, d))
    mask = rng.random((b, 1, 1, sp + kv_s)) < 0.3     # columns run over [prefix ; kv]
    mask[..., 0] = False
    out1, _ = fia(query=to_layout(q1, "BSND"), atten_mask=mask, **common)
    exp1, _ = reference(f32(q1), [f32(x) for x in keys], [f32(x) for x in vals], 1.0,
                        masked=[mask[i, 0, :, :p + askv[i]] for i in range(b)], p_dtype=BF16)
    check(out_to_bnsd(out1, "BSND", n), rnd(exp1, BF16), BF16_TOL)


# ------------------------------------------------------------------------------------------
# INT8 full quant and output post-quant
# ------------------------------------------------------------------------------------------

def sat_round(x):
    return np.clip(np.rint(x), -128, 127)


def half(x):
    return np.asarray(x, np.float32).astype(np.float16).astype(np.float32)


def float19(x):
    """A float32 scale with its low 13 mantissa bits cleared (the fixpipe's dequant form)."""
    return (np.array(x, np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


def full_quant_reference(q8, k8, v8, deq1, qs1, deq2, scale):
    """The device's order for int8 query, key and value, per (b, n), written from the kernel's
    description: half scores s = half(half(q8.k8^T * deq1) * scale); e = exp(s - max), rounded
    to half; P8 = sat(rint(half(e * qs1))) from the UNNORMALIZED e; O = P8.v8 * deq2 divided by
    the row sum (of the unrounded e, in half) after P.V. deq1/deq2 as 19-bit floats.
    Returns O in float32, not yet rounded to the output dtype."""
    batch, heads, q_s, _ = q8.shape
    out = np.zeros((batch, heads, q_s, v8.shape[-1]), np.float32)
    for b in range(batch):
        for n in range(heads):
            kv = n // (heads // k8.shape[1])
            ints = q8[b, n].astype(np.int64) @ k8[b, kv].astype(np.int64).T
            s = half(half(ints * float19(deq1)) * half(scale))
            e = np.exp(s - s.max(axis=1, keepdims=True))
            p8 = sat_round(half(half(e) * half(qs1)))
            o32 = p8.astype(np.int64) @ v8[b, kv].astype(np.int64)
            out[b, n] = o32 * float19(deq2) / half(e.sum(axis=1, keepdims=True))
    return out


def as_uint64_scale(x):
    """The UINT64 form of a float32 scale: its bit pattern in the low 32 bits."""
    return np.array([x], np.float32).view(np.uint32).astype(np.uint64)


@pytest.mark.parametrize("scale_dtype", ["float32", "uint64"])
def test_full_quant_int8(scale_dtype):
    rng = np.random.default_rng(15)
    b, n, kvn, d, q_s, kv_s = 2, 4, 2, 32, 3, 40
    q8 = rng.integers(-128, 128, (b, n, q_s, d), dtype=np.int8)
    k8 = rng.integers(-128, 128, (b, kvn, kv_s, d), dtype=np.int8)
    v8 = rng.integers(-128, 128, (b, kvn, kv_s, d), dtype=np.int8)
    deq1, qs1, deq2, scale = 1.5e-4, 127.0, 1 / 127, 0.2
    enc = as_uint64_scale if scale_dtype == "uint64" else (lambda x: np.array([x], np.float32))
    common = dict(query=q8, key=k8, value=v8, dequant_scale1=enc(deq1),
                  quant_scale1=np.array([qs1], np.float32), dequant_scale2=enc(deq2),
                  num_heads=n, num_key_value_heads=kvn, input_layout="BNSD", scale_value=scale)
    expected = full_quant_reference(q8, k8, v8, deq1, qs1, deq2, scale)
    out, _ = fia(**common)
    # Same rounding points; float32 summation order may move one P8 across a rounding boundary
    # (rarely): one step moves O by |v| <= 128 times deq2 / rowsum (rowsum >= 1).
    step = 128 * deq2
    assert out.dtype == F16
    np.testing.assert_allclose(f32(out), rnd(expected, F16), atol=step, rtol=2.0**-10)
    assert np.mean(np.abs(f32(out) - rnd(expected, F16)) <= 2.0**-10 * np.abs(expected)) > 0.95
    out8, _ = fia(**common, quant_scale2=np.array([20.0], np.float32),
                  quant_offset2=np.array([3.0], np.float32))
    assert out8.dtype == np.int8
    np.testing.assert_allclose(f32(out8), sat_round(expected * 20 + 3), atol=1 + step * 20)


def test_full_quant_with_realistic_scales_matches_float64_attention():
    """quant_scale1 = 127 (P in [0, 1] onto int8) and dequant_scale2 = 1/127 (back): the output
    is the attention of the dequantized inputs, computed here in float64 without any
    quantization. The normalized order quantized every weight below 0.5/127 to 0 and returned
    ~0 for long rows; the device quantizes exp(s - max) <= 1 and divides by the row sum last.

    Bound, per output element, from the data: P8_j / 127 differs from e_j by at most 0.5/127
    (rounding) + 2^-9 e_j (half rounding of e and of the product; half scores move e by
    |s| 2^-11 relative, |s| <= 4 here), so O differs from the float64 attention by at most
    sum_j (0.5/127 + 2^-9 e_j) |v_j| / sum_j e_j, plus 2^-10 of |O| for the half row sum and
    the half output."""
    rng = np.random.default_rng(41)
    b, n, d, q_s, kv_s = 1, 2, 64, 4, 512
    q8 = rng.integers(-127, 128, (b, n, q_s, d), dtype=np.int8)
    k8 = rng.integers(-127, 128, (b, n, kv_s, d), dtype=np.int8)
    v8 = rng.integers(-3, 4, (b, n, kv_s, d), dtype=np.int8)       # V values -3 .. 3
    deq1 = 1.0 / (127 * 127)                                        # q, k in [-1, 1]
    scale = 1 / np.sqrt(d)
    out, _ = fia(query=q8, key=k8, value=v8, dequant_scale1=np.array([deq1], np.float32),
                 quant_scale1=np.array([127.0], np.float32),
                 dequant_scale2=np.array([1 / 127], np.float32),
                 num_heads=n, input_layout="BNSD", scale_value=scale)
    for i_b in range(b):
        for i_n in range(n):
            s = (q8[i_b, i_n].astype(np.float64) @ k8[i_b, i_n].astype(np.float64).T
                 * float19(deq1) * half(scale))
            e = np.exp(s - s.max(axis=1, keepdims=True))
            v = v8[i_b, i_n].astype(np.float64)
            want = e @ v / e.sum(axis=1, keepdims=True)
            bound = ((0.5 / 127 + 2.0**-9 * e) @ np.abs(v)) / e.sum(axis=1, keepdims=True) \
                + 2.0**-10 * np.abs(want) + 1e-6
            got = f32(out[i_b, i_n]).astype(np.float64)
            assert np.all(np.abs(got - want) <= bound)
            assert np.abs(want).max() > 0.05 and np.abs(got).max() > 0.05   # not ~0


def test_full_quant_all_ones_gives_ones():
    """int8 ones everywhere with all scales 1 (torch_npu's own v3_fullquant case): every score
    is equal, exp(s - max) = 1, P8 = 1, P8.V8 = KV_S, divided by the row sum KV_S = 1; the int8
    output of quant_scale2 = 1 is all ones."""
    ones = np.ones((1,), np.float32)
    q = np.ones((1, 4, 2, 128), np.int8)
    kv = np.ones((1, 4, 2048, 128), np.int8)
    out, _ = fia(query=q, key=kv, value=kv, dequant_scale1=ones, quant_scale1=ones,
                 dequant_scale2=ones, quant_scale2=ones, num_heads=4, input_layout="BNSD",
                 scale_value=1 / 0.0078125)
    assert out.dtype == np.int8 and np.all(out == 1)


@pytest.mark.parametrize("layout,shape,dtype,offset", [
    ("BSH", (1, 1, 128), np.float32, True), ("BNSD", (4, 32), BF16, True),
    ("BSND", (1,), np.float32, True), ("BSND", (1, 1, 4, 32), np.float32, False),
    ("BSH", (128,), BF16, False)])
def test_post_quant_bf16_to_int8(layout, shape, dtype, offset):
    """Per-tensor and per-channel quant_scale2, with quant_offset2 or without it (offset 0:
    per-channel without an offset once crashed in the kernel)."""
    rng = np.random.default_rng(16)
    # D = 32: an INT8 output needs D % 32 == 0 (FIA-051).
    b, n, d, q_s, kv_s = 2, 4, 32, 1 if layout == "BNSD" else 3, 25
    q, k, v = rand(rng, (b, n, q_s, d)), rand(rng, (b, 2, kv_s, d)), rand(rng, (b, 2, kv_s, d))
    qs2 = (rng.random(shape) * 60 + 20).astype(dtype)
    qo2 = rng.integers(-5, 6, shape).astype(dtype) if offset else None
    out, _ = fia(query=to_layout(q, layout), key=to_layout(k, layout),
                 value=to_layout(v, layout), quant_scale2=qs2, quant_offset2=qo2, num_heads=n,
                 num_key_value_heads=2, input_layout=layout)
    exp_out, _ = reference(f32(q), list(f32(k)), list(f32(v)), 1.0, p_dtype=BF16)
    per_channel = lambda x: f32(x).reshape(-1)[0] if np.size(x) == 1 else \
        f32(x).reshape(1, n, 1, d)
    expected = sat_round(exp_out * per_channel(qs2) + (per_channel(qo2) if offset else 0))
    assert out.dtype == np.int8
    np.testing.assert_allclose(out_to_bnsd(out, layout, n), expected, atol=1)


def test_post_quant_rows_without_keys_are_zero():
    """A query row that sees no key has output 0 in the output dtype (catalog 1.22: such rows
    are never written; seed L667: an empty key/value gives zeros), not sat(0 * scale +
    offset): both an empty batch row (incre, askv 0) and a fully masked row (prompt)."""
    rng = np.random.default_rng(32)
    n, d = 2, 32
    qs2, qo2 = np.array([20.0], np.float32), np.array([3.0], np.float32)
    q, k = rand(rng, (2, n, 1, d)), rand(rng, (2, n, 9, d))
    out, _ = fia(query=q, key=k, value=k, num_heads=n, input_layout="BNSD",
                 actual_seq_lengths_kv=[0, 5], quant_scale2=qs2, quant_offset2=qo2)
    exp_out, _ = reference(f32(q[1:]), [f32(k[1, :, :5])], [f32(k[1, :, :5])], 1.0,
                           p_dtype=BF16)
    assert np.all(out[0] == 0)
    np.testing.assert_allclose(f32(out[1:]), sat_round(exp_out * 20 + 3), atol=1)
    q, k = rand(rng, (1, n, 4, d)), rand(rng, (1, n, 8, d))
    mask = np.zeros((4, 8), np.int8)
    mask[1] = 1                                         # row 1 sees no key
    out, _ = fia(query=q, key=k, value=k, atten_mask=mask, num_heads=n, input_layout="BNSD",
                 sparse_mode=1, quant_scale2=qs2, quant_offset2=qo2)
    exp_out, _ = reference(f32(q), list(f32(k)), list(f32(k)), 1.0, masked=[mask == 1],
                           p_dtype=BF16)
    expected = sat_round(exp_out * 20 + 3)
    expected[:, :, 1] = 0
    assert np.all(out[:, :, 1] == 0)
    np.testing.assert_allclose(f32(out), expected, atol=1)


# ------------------------------------------------------------------------------------------
# antiquant (INT8 / INT4 key and value)
# ------------------------------------------------------------------------------------------

def dequant(x8, scale, offset, dtype):
    """(x + offset) * scale in float32, rounded to the query dtype; params broadcastable."""
    return rnd((f32(x8) + offset) * scale, dtype)


def int8_kv(rng, shape):
    return rng.integers(-128, 128, shape, dtype=np.int8)


def test_combined_antiquant_per_channel_tensor_token():
    rng = np.random.default_rng(17)
    b, n, kvn, d, kv_s = 2, 4, 2, 32, 24   # D % 32 == 0 for INT8 K/V (FIA-051)
    k8, v8 = int8_kv(rng, (b, kvn, kv_s, d)), int8_kv(rng, (b, kvn, kv_s, d))
    q = rand(rng, (b, n, 1, d), F16, 0.05)
    cases = []
    ch_s, ch_o = (rng.random((2, kvn, 1, d)) * 0.02).astype(F16), \
        rng.integers(-3, 4, (2, kvn, 1, d)).astype(F16)
    cases.append((dict(antiquant_scale=ch_s, antiquant_offset=ch_o),
                  lambda i, b_: (f32(ch_s[i]), f32(ch_o[i]))))
    t_s = np.array([0.01, 0.03], F16)
    cases.append((dict(antiquant_scale=t_s), lambda i, b_: (f32(t_s[i]), 0.0)))
    tok_s = (rng.random((2, b, kv_s + 8)) * 0.02).astype(np.float32)   # S' >= KV_S
    tok_o = rng.integers(-3, 4, (2, b, kv_s + 8)).astype(np.float32)
    cases.append((dict(antiquant_scale=tok_s, antiquant_offset=tok_o, antiquant_mode=1),
                  lambda i, b_: (tok_s[i, b_, :kv_s, None], tok_o[i, b_, :kv_s, None])))
    for params, index in cases:
        out, _ = fia(query=q, key=k8, value=v8, num_heads=n, num_key_value_heads=kvn,
                     input_layout="BNSD", scale_value=0.5, **params)
        ks = [dequant(k8[i], *index(0, i), F16) for i in range(b)]
        vs = [dequant(v8[i], *index(1, i), F16) for i in range(b)]
        exp_out, _ = reference(f32(q), ks, vs, 0.5, p_dtype=F16)
        assert out.dtype == F16
        check(out, rnd(exp_out, F16), FP16_TOL)


def test_combined_antiquant_prompt_per_channel_bsh():
    rng = np.random.default_rng(18)
    b, n, kvn, d, q_s, kv_s = 2, 4, 2, 32, 4, 20
    k8, v8 = int8_kv(rng, (b, kvn, kv_s, d)), int8_kv(rng, (b, kvn, kv_s, d))
    q = rand(rng, (b, n, q_s, d), F16, 0.05)
    sc = (rng.random((2, kvn * d)) * 0.02).astype(F16)
    out, _ = fia(query=to_layout(q, "BSH"), key=to_layout(k8, "BSH"), value=to_layout(v8, "BSH"),
                 antiquant_scale=sc, num_heads=n, num_key_value_heads=kvn, input_layout="BSH")
    chan = lambda i: f32(sc[i]).reshape(kvn, 1, d)
    exp_out, _ = reference(f32(q), [dequant(x, chan(0), 0.0, F16) for x in k8],
                           [dequant(x, chan(1), 0.0, F16) for x in v8], 1.0, p_dtype=F16)
    check(out_to_bnsd(out, "BSH", n), rnd(exp_out, F16), FP16_TOL)


def separate_case(mode, rng, b, kvn, d, kv_s, dtype, blocks=None):
    """(key scale, key offset, per-batch (scale, offset) broadcastable to (KV_N, L, D))."""
    if mode == "channel":
        s = (rng.random((1, kvn, 1, d)) * 0.02).astype(dtype)
        o = rng.integers(-3, 4, s.shape).astype(dtype)
        return s, o, lambda i: (f32(s[0]), f32(o[0]))
    if mode == "tensor":
        s, o = np.array([0.015], dtype), np.array([2], dtype)
        return s, o, lambda i: (f32(s[0]), f32(o[0]))
    if mode == "token":
        s = (rng.random((1, b, kv_s + 5)) * 0.02).astype(np.float32)
        o = rng.integers(-3, 4, s.shape).astype(np.float32)
        return s, o, lambda i: (s[0, i, :kv_s, None], o[0, i, :kv_s, None])
    if mode == "head":
        s = (rng.random(kvn) * 0.02).astype(dtype)
        o = rng.integers(-3, 4, kvn).astype(dtype)
        return s, o, lambda i: (f32(s)[:, None, None], f32(o)[:, None, None])
    if mode == "token_head":
        s = (rng.random((b, kvn, kv_s + 3)) * 0.02).astype(np.float32)
        o = rng.integers(-3, 4, s.shape).astype(np.float32)
        return s, o, lambda i: (s[i, :, :kv_s, None], o[i, :, :kv_s, None])
    table, bs, nb = blocks
    if mode == "pa_token":
        s = (rng.random((nb, bs)) * 0.02).astype(np.float32)
        o = rng.integers(-3, 4, s.shape).astype(np.float32)
        rows = lambda x, i: np.concatenate([x[blk] for blk in table[i]])[None, :kv_s, None]
    else:                                                     # pa_token_head
        s = (rng.random((nb, kvn, bs)) * 0.02).astype(np.float32)
        o = rng.integers(-3, 4, s.shape).astype(np.float32)
        rows = lambda x, i: np.concatenate([x[blk] for blk in table[i]], axis=1)[:, :kv_s, None]
    return s, o, lambda i: (rows(s, i), rows(o, i))


MODE_NUMBER = {"channel": 0, "tensor": 0, "token": 1, "head": 2, "token_head": 3,
               "pa_token": 4, "pa_token_head": 5}


@pytest.mark.parametrize("mode", ["channel", "tensor", "token", "head", "token_head",
                                  "pa_token", "pa_token_head"])
def test_separate_antiquant_incre(mode):
    rng = np.random.default_rng(19)
    b, n, kvn, d, kv_s, bs = 2, 4, 2, 16, 40, 16
    k8, v8 = int8_kv(rng, (b, kvn, kv_s, d)), int8_kv(rng, (b, kvn, kv_s, d))
    q = rand(rng, (b, n, 1, d), BF16, 0.05)
    paged = mode.startswith("pa_")
    kw = {}
    if paged:
        k_pool, table = page(list(k8), bs, np.random.default_rng(1))
        v_pool, _ = page(list(v8), bs, np.random.default_rng(1))
        kw = dict(key=k_pool, value=v_pool, block_table=table, block_size=bs,
                  actual_seq_lengths_kv=[kv_s])
        blocks = (table, bs, k_pool.shape[0])
    else:
        kw = dict(key=k8, value=v8)
        blocks = None
    ks_, ko_, kidx = separate_case(mode, rng, b, kvn, d, kv_s, BF16, blocks)
    vs_, vo_, vidx = separate_case(mode, rng, b, kvn, d, kv_s, BF16, blocks)
    # the combined parameters are ignored when the separate ones are present
    junk = np.full((2,), 100.0, BF16)
    out, _ = fia(query=q, key_antiquant_scale=ks_, key_antiquant_offset=ko_,
                 value_antiquant_scale=vs_, value_antiquant_offset=vo_,
                 key_antiquant_mode=MODE_NUMBER[mode], value_antiquant_mode=MODE_NUMBER[mode],
                 antiquant_scale=junk, num_heads=n, num_key_value_heads=kvn,
                 input_layout="BNSD", **kw)
    ks = [dequant(k8[i], *kidx(i), BF16) for i in range(b)]
    vs = [dequant(v8[i], *vidx(i), BF16) for i in range(b)]
    exp_out, _ = reference(f32(q), ks, vs, 1.0, p_dtype=BF16)
    check(out, rnd(exp_out, BF16), BF16_TOL)


def test_separate_antiquant_key_channel_value_token_and_prompt_modes():
    rng = np.random.default_rng(20)
    b, n, kvn, d, kv_s = 2, 4, 2, 32, 24   # D % 32 == 0 for INT8 K/V (FIA-051)
    k8, v8 = int8_kv(rng, (b, kvn, kv_s, d)), int8_kv(rng, (b, kvn, kv_s, d))
    q = rand(rng, (b, n, 1, d), F16, 0.05)
    ks_, ko_, kidx = separate_case("channel", rng, b, kvn, d, kv_s, F16)
    vs_, vo_, vidx = separate_case("token", rng, b, kvn, d, kv_s, F16)
    out, _ = fia(query=q, key=k8, value=v8, key_antiquant_scale=ks_, key_antiquant_offset=ko_,
                 value_antiquant_scale=vs_, value_antiquant_offset=vo_, key_antiquant_mode=0,
                 value_antiquant_mode=1, num_heads=n, num_key_value_heads=kvn,
                 input_layout="BNSD")
    exp_out, _ = reference(f32(q), [dequant(k8[i], kidx(i)[0], kidx(i)[1], F16) for i in range(b)],
                           [dequant(v8[i], vidx(i)[0], vidx(i)[1], F16) for i in range(b)],
                           1.0, p_dtype=F16)
    check(out, rnd(exp_out, F16), FP16_TOL)
    # prompt branch: per-channel (KV_N, D) BF16 and per-token (B, S') FP32, Q_S <= 16
    qp = rand(rng, (b, n, 3, d), BF16, 0.05)
    ch = (rng.random((kvn, d)) * 0.02).astype(BF16)
    tok = (rng.random((b, kv_s)) * 0.02).astype(np.float32)
    for mode, s, idx in ((0, ch, lambda i: f32(ch)[:, None, :]),
                         (1, tok, lambda i: tok[i, :, None])):
        out, _ = fia(query=qp, key=k8, value=v8, key_antiquant_scale=s, value_antiquant_scale=s,
                     key_antiquant_mode=mode, value_antiquant_mode=mode, num_heads=n,
                     num_key_value_heads=kvn, input_layout="BNSD")
        exp_out, _ = reference(f32(qp), [dequant(x, idx(i), 0.0, BF16) for i, x in enumerate(k8)],
                               [dequant(x, idx(i), 0.0, BF16) for i, x in enumerate(v8)], 1.0,
                               p_dtype=BF16)
        check(out, rnd(exp_out, BF16), BF16_TOL)


def pack_int4(x):
    """int values in [-8, 7], last dim a multiple of 8 -> INT32, element k in bits [4k, 4k+3]."""
    nib = (x.astype(np.int64) & 0xF).reshape(*x.shape[:-1], x.shape[-1] // 8, 8)
    word = sum(nib[..., k] << (4 * k) for k in range(8))
    return word.astype(np.uint32).view(np.int32)


@pytest.mark.parametrize("mode", ["channel", "token"])
def test_int4_packed_in_int32(mode):
    rng = np.random.default_rng(21)
    b, n, kvn, d, kv_s = 2, 4, 2, 64, 20
    k4 = rng.integers(-8, 8, (b, kvn, kv_s, d))
    v4 = rng.integers(-8, 8, (b, kvn, kv_s, d))
    q = rand(rng, (b, n, 1, d), BF16, 0.1)
    s, o, idx = separate_case(mode, rng, b, kvn, d, kv_s, BF16)
    out, _ = fia(query=to_layout(q, "BSH"), key=pack_int4(to_layout(k4, "BSH")),
                 value=pack_int4(to_layout(v4, "BSH")), key_antiquant_scale=s,
                 key_antiquant_offset=o, value_antiquant_scale=s, value_antiquant_offset=o,
                 key_antiquant_mode=MODE_NUMBER[mode], value_antiquant_mode=MODE_NUMBER[mode],
                 num_heads=n, num_key_value_heads=kvn, input_layout="BSH")
    exp_out, _ = reference(f32(q), [dequant(k4[i], *idx(i), BF16) for i in range(b)],
                           [dequant(v4[i], *idx(i), BF16) for i in range(b)], 1.0, p_dtype=BF16)
    check(out_to_bnsd(out, "BSH", n), rnd(exp_out, BF16), BF16_TOL)


# ------------------------------------------------------------------------------------------
# MLA mode: latent cache (N_kv = 1, D = 512) + rope cache (64), paged, PA_BSND or PA_NZ
# ------------------------------------------------------------------------------------------

def mla_problem(rng, b, n, q_s, askv, block):
    """Prolog-shaped inputs: query (T, N, 512), query_rope (T, N, 64), T = B * Q_S, and the
    per-batch latent rows c_kv (L, 512), k_rope (L, 64) scattered into paged caches."""
    query = rand(rng, (b * q_s, n, 512), BF16, 0.3)
    query_rope = rand(rng, (b * q_s, n, 64), BF16, 0.3)
    ckv = [rand(rng, (1, s, 512)) for s in askv]
    kr = [rand(rng, (1, s, 64)) for s in askv]
    kv_pool, table = page(ckv, block, np.random.default_rng(5))
    kr_pool, _ = page(kr, block, np.random.default_rng(5))
    return query, query_rope, ckv, kr, bnbsh(kv_pool), bnbsh(kr_pool), table


def mla_cache(pool_bnbsh, cache_mode):
    """The cache as the prolog leaves it: (block_num, block_size, 1, H); PA_NZ as NZTensor."""
    if cache_mode == "PA_NZ":
        return nz_tensor(pool_bnbsh)
    nb, bs, h = pool_bnbsh.shape
    return pool_bnbsh.reshape(nb, bs, 1, h)


def mla_reference(query, query_rope, ckv, kr, b, n, q_s, scale, masked=None):
    q = np.concatenate([f32(query), f32(query_rope)], -1).reshape(b, q_s, n, 576)
    keys = [np.concatenate([f32(c), f32(r)], -1) for c, r in zip(ckv, kr)]
    return reference(q.transpose(0, 2, 1, 3), keys, [f32(c) for c in ckv], scale,
                     masked=masked, p_dtype=BF16)


@pytest.mark.parametrize("cache_mode", ["PA_BSND", "PA_NZ"])
@pytest.mark.parametrize("block", [16, 128])
def test_mla_decode(cache_mode, block):
    rng = np.random.default_rng(22)
    b, n, askv = 3, 8, [70, 200, 1]
    query, query_rope, ckv, kr, kv_pool, kr_pool, table = mla_problem(rng, b, n, 1, askv, block)
    kv_cache = mla_cache(kv_pool, cache_mode)
    scale = 1 / np.sqrt(192)
    out, lse = fia(query=query.reshape(b, 1, n, 512), key=kv_cache, value=kv_cache,
                   query_rope=query_rope.reshape(b, 1, n, 64),
                   key_rope=mla_cache(kr_pool, cache_mode), block_table=table,
                   block_size=block, actual_seq_lengths_kv=askv, num_heads=n,
                   num_key_value_heads=1, scale_value=scale, input_layout="BSND",
                   softmax_lse_flag=True)
    exp_out, exp_lse = mla_reference(query, query_rope, ckv, kr, b, n, 1, scale)
    assert out.shape == (b, 1, n, 512) and out.dtype == BF16
    check(out_to_bnsd(out, "BSND", n), rnd(exp_out, BF16), BF16_TOL)
    np.testing.assert_allclose(lse[..., 0], exp_lse, **LSE_TOL)


@pytest.mark.parametrize("cache_mode,layout", [("PA_BSND", "BSH"), ("PA_NZ", "BNSD")])
def test_mla_mtp_causal(cache_mode, layout):
    rng = np.random.default_rng(23)
    b, n, q_s, askv, block = 2, 4, 3, [130, 20], 128
    query, query_rope, ckv, kr, kv_pool, kr_pool, table = mla_problem(rng, b, n, q_s, askv,
                                                                      block)
    as_bnsd = lambda x: x.reshape(b, q_s, n, -1).transpose(0, 2, 1, 3)
    kv_cache = mla_cache(kv_pool, cache_mode)
    out, _ = fia(query=to_layout(as_bnsd(query), layout), key=kv_cache, value=kv_cache,
                 query_rope=to_layout(as_bnsd(query_rope), layout),
                 key_rope=mla_cache(kr_pool, cache_mode), block_table=table, block_size=block,
                 actual_seq_lengths_kv=askv, num_heads=n, num_key_value_heads=1,
                 scale_value=0.07, input_layout=layout, sparse_mode=3,
                 atten_mask=np.triu(np.ones((2048, 2048), np.int8), 1))
    masked = [band(q_s, s, -10**6, s - q_s) for s in askv]
    exp_out, _ = mla_reference(query, query_rope, ckv, kr, b, n, q_s, 0.07, masked=masked)
    check(out_to_bnsd(out, layout, n), rnd(exp_out, BF16), BF16_TOL)


def test_pa_nz_cache_wraps_prolog_array_without_copy():
    rng = np.random.default_rng(24)
    b, n, askv, block = 2, 4, [40, 17], 16
    query, query_rope, ckv, kr, kv_pool, kr_pool, table = mla_problem(rng, b, n, 1, askv, block)
    kv_nz, kr_nz = nz_pool(kv_pool), nz_pool(kr_pool)       # ordinary (nb, bs, 1, H) arrays
    kv_cache = ascend_mla.nz_cache_view(kv_nz)
    assert np.shares_memory(kv_cache.data, kv_nz)
    out, _ = fia(query=query.reshape(b, 1, n, 512), key=kv_cache, value=kv_cache,
                 query_rope=query_rope.reshape(b, 1, n, 64), key_rope=ascend_mla.nz_cache_view(kr_nz),
                 block_table=table, block_size=block, actual_seq_lengths_kv=askv, num_heads=n,
                 num_key_value_heads=1, scale_value=0.1, input_layout="BSND")
    exp_out, _ = mla_reference(query, query_rope, ckv, kr, b, n, 1, 0.1)
    check(out_to_bnsd(out, "BSND", n), rnd(exp_out, BF16), BF16_TOL)


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_bf16_pages_through_the_reused_workspace(backend, monkeypatch):
    """bf16 caches are gathered into float32 buffers kept between calls, writing only the upper
    16 bits of each float: calls of other shapes in between (GQA BnNBsD with its own V, a
    read-only PA_NZ cache) must not spoil the next call, on either backend."""
    if backend == "torch":
        pytest.importorskip("torch", reason="the torch matmul path is only offered when torch is installed")
    monkeypatch.setenv("ASCEND_MLA_MATMUL", backend)
    rng = np.random.default_rng(33)

    def mla_call(b, askv, block, cache_mode, read_only=False):
        query, query_rope, ckv, kr, kv_pool, kr_pool, table = mla_problem(rng, b, 4, 1, askv,
                                                                          block)
        kv, kr_ = mla_cache(kv_pool, cache_mode), mla_cache(kr_pool, cache_mode)
        for cache in (kv, kr_) if read_only else ():
            (cache.data if cache_mode == "PA_NZ" else cache).setflags(write=False)
        out, _ = fia_kernel(query=query.reshape(b, 1, 4, 512), key=kv, value=kv,
                            query_rope=query_rope.reshape(b, 1, 4, 64), key_rope=kr_,
                            block_table=table, block_size=block, actual_seq_lengths_kv=askv,
                            num_heads=4, num_key_value_heads=1, scale_value=0.1,
                            input_layout="BSND")
        exp_out, _ = mla_reference(query, query_rope, ckv, kr, b, 4, 1, 0.1)
        check(out_to_bnsd(out, "BSND", 4), rnd(exp_out, BF16), BF16_TOL)

    mla_call(3, [300, 129, 5], 128, "PA_BSND")
    ks = [rand(rng, (2, s, 16)) for s in (40, 7)]
    vs = [rand(rng, (2, s, 16)) for s in (40, 7)]
    k_pool, table = page(ks, 16, np.random.default_rng(3))
    v_pool, _ = page(vs, 16, np.random.default_rng(3))
    q = rand(rng, (2, 4, 1, 16))
    out, _ = fia(query=q, key=k_pool, value=v_pool, block_table=table, block_size=16,
                 actual_seq_lengths_kv=[40, 7], num_heads=4, num_key_value_heads=2,
                 input_layout="BNSD", scale_value=0.3)
    exp_out, _ = reference(f32(q), ks, vs, 0.3, p_dtype=BF16)
    check(out, rnd(exp_out, BF16), BF16_TOL)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*not writable")
        mla_call(2, [33, 20], 16, "PA_NZ", read_only=True)
    mla_call(2, [70, 1], 16, "PA_BSND")


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_matmul_backends_agree_with_reference(backend, monkeypatch):
    if backend == "torch":
        pytest.importorskip("torch", reason="the torch matmul path is only offered when torch is installed")
    monkeypatch.setenv("ASCEND_MLA_MATMUL", backend)
    rng = np.random.default_rng(25)
    b, n, askv, block = 2, 16, [300, 129], 128
    query, query_rope, ckv, kr, kv_pool, kr_pool, table = mla_problem(rng, b, n, 1, askv, block)
    kv_cache = mla_cache(kv_pool, "PA_BSND")
    out, lse = fia(query=query.reshape(b, 1, n, 512), key=kv_cache, value=kv_cache,
                   query_rope=query_rope.reshape(b, 1, n, 64),
                   key_rope=mla_cache(kr_pool, "PA_BSND"), block_table=table, block_size=block,
                   actual_seq_lengths_kv=askv, num_heads=n, num_key_value_heads=1,
                   scale_value=0.05, input_layout="BSND", softmax_lse_flag=True)
    exp_out, exp_lse = mla_reference(query, query_rope, ckv, kr, b, n, 1, 0.05)
    check(out_to_bnsd(out, "BSND", n), rnd(exp_out, BF16), BF16_TOL)
    np.testing.assert_allclose(lse[..., 0], exp_lse, **LSE_TOL)


# ------------------------------------------------------------------------------------------
# TND layouts: batches packed along T, cumulative actual lengths
# ------------------------------------------------------------------------------------------

def packed_reference(q_tokens, q_lens, ks, vs, scale, masked=None):
    """q_tokens (T, N, D) with batch b's tokens after those of b - 1; ks[b], vs[b] (L_b, KV_N,
    D[v]); masked[b] (q_len_b, L_b). Returns out (T, N, Dv) and lse (T, N), head n reading kv
    head n // G."""
    t, heads, _ = q_tokens.shape
    out = np.zeros((t, heads, vs[0].shape[-1]), np.float32)
    lse = np.full((t, heads), -np.inf, np.float32)
    start = 0
    for b, q_len in enumerate(q_lens):
        group = heads // ks[b].shape[1]
        rows = slice(start, start + q_len)
        for n in range(heads):
            out[rows, n], lse[rows, n] = attention_rows(
                q_tokens[rows, n], ks[b][:, n // group], vs[b][:, n // group], scale,
                None if masked is None else masked[b], p_dtype=BF16)
        start += q_len
    return out, lse


def cumulative(lengths):
    return [int(x) for x in np.cumsum(lengths)]


def test_tnd_prefill_with_value_d_smaller_than_key_d():
    """TND without rope, key D 192 and value D 128 (the non-absorbed DeepSeek prefill), GQA,
    a batch with no query token, softmax_lse (T, N, 1)."""
    rng = np.random.default_rng(51)
    q_lens, kv_lens, n, kvn = [3, 0, 4, 2], [5, 2, 4, 6], 4, 2
    q = rand(rng, (sum(q_lens), n, 192))
    ks = [rand(rng, (s, kvn, 192)) for s in kv_lens]
    vs = [rand(rng, (s, kvn, 128)) for s in kv_lens]
    out, lse = fia(query=q, key=np.concatenate(ks), value=np.concatenate(vs),
                   actual_seq_lengths=cumulative(q_lens), actual_seq_lengths_kv=cumulative(kv_lens),
                   num_heads=n, num_key_value_heads=kvn, input_layout="TND", scale_value=0.07,
                   softmax_lse_flag=True)
    exp_out, exp_lse = packed_reference(f32(q), q_lens, [f32(k) for k in ks],
                                        [f32(v) for v in vs], 0.07)
    assert out.shape == (9, n, 128) and out.dtype == BF16 and lse.shape == (9, n, 1)
    check(out, rnd(exp_out, BF16), BF16_TOL)
    np.testing.assert_allclose(lse[..., 0], exp_lse, **LSE_TOL)


@pytest.mark.parametrize("mode", [3, 4])
def test_ntd_tnd_causal_and_band(mode):
    """NTD_TND (query and key/value (N, T, D), output TND): rightDownCausal puts each batch's
    query tokens last among its keys; band keeps pre_tokens before and next_tokens after that
    diagonal."""
    rng = np.random.default_rng(52 + mode)
    q_lens, kv_lens, n, d, pre, nxt = [3, 5, 1], [4, 5, 7], 2, 128, 2, 1
    q = rand(rng, (n, sum(q_lens), d))
    ks = [rand(rng, (n, s, d)) for s in kv_lens]
    vs = [rand(rng, (n, s, d)) for s in kv_lens]
    out, _ = fia(query=q, key=np.concatenate(ks, axis=1), value=np.concatenate(vs, axis=1),
                 actual_seq_lengths=cumulative(q_lens), actual_seq_lengths_kv=cumulative(kv_lens),
                 num_heads=n, input_layout="NTD_TND", scale_value=0.09, sparse_mode=mode,
                 pre_tokens=pre, next_tokens=nxt, atten_mask=np.triu(np.ones((2048, 2048), bool), 1))
    if mode == 3:
        masked = [band(ql, kl, -10**6, kl - ql) for ql, kl in zip(q_lens, kv_lens)]
    else:
        masked = [band(ql, kl, kl - ql - pre, kl - ql + nxt) for ql, kl in zip(q_lens, kv_lens)]
    exp_out, _ = packed_reference(f32(q).transpose(1, 0, 2), q_lens,
                                  [f32(k).transpose(1, 0, 2) for k in ks],
                                  [f32(v).transpose(1, 0, 2) for v in vs], 0.09, masked)
    assert out.shape == (sum(q_lens), n, d)
    check(out, rnd(exp_out, BF16), BF16_TOL)


def test_tnd_paged_decode_without_rope():
    """TND over a paged BnBsH cache (lengths per batch, not cumulative), one query token per
    batch, key D 192 and value D 128 in two caches of the same block table."""
    rng = np.random.default_rng(54)
    kv_lens, n, block = [100, 5, 260], 16, 128
    q = rand(rng, (3, n, 192))
    ks = [rand(rng, (1, s, 192)) for s in kv_lens]             # (KV_N = 1, L, D) per batch
    vs = [rand(rng, (1, s, 128)) for s in kv_lens]
    k_pool, table = page(ks, block, np.random.default_rng(6))
    v_pool, _ = page(vs, block, np.random.default_rng(6))
    out, _ = fia(query=q, key=bnbsh(k_pool), value=bnbsh(v_pool), block_table=table,
                 block_size=block, actual_seq_lengths=[1, 2, 3], actual_seq_lengths_kv=kv_lens,
                 num_heads=n, num_key_value_heads=1, input_layout="TND", scale_value=0.07)
    exp_out, _ = packed_reference(f32(q), [1, 1, 1], [f32(k).transpose(1, 0, 2) for k in ks],
                                  [f32(v).transpose(1, 0, 2) for v in vs], 0.07)
    check(out, rnd(exp_out, BF16), BF16_TOL)


@pytest.mark.parametrize("layout", ["TND", "TND_NTD"])
def test_tnd_mla_mtp_over_the_prolog_cache(layout):
    """MLA mode in TND: batches of 2, 3 and 1 query tokens (the prolog's (T, N, 512) query as
    it is), the paged latent cache with per-batch lengths, rightDownCausal. TND_NTD writes
    (N, T, 512)."""
    rng = np.random.default_rng(55)
    q_lens, askv, n, block = [2, 3, 1], [40, 17, 9], 4, 16
    t = sum(q_lens)
    query, query_rope = rand(rng, (t, n, 512), BF16, 0.3), rand(rng, (t, n, 64), BF16, 0.3)
    ckv = [rand(rng, (1, s, 512)) for s in askv]
    kr = [rand(rng, (1, s, 64)) for s in askv]
    kv_pool, table = page(ckv, block, np.random.default_rng(7))
    kr_pool, _ = page(kr, block, np.random.default_rng(7))
    kv_cache = mla_cache(bnbsh(kv_pool), "PA_BSND")
    out, _ = fia(query=query, key=kv_cache, value=kv_cache, query_rope=query_rope,
                 key_rope=mla_cache(bnbsh(kr_pool), "PA_BSND"), block_table=table,
                 block_size=block, actual_seq_lengths=cumulative(q_lens), actual_seq_lengths_kv=askv,
                 num_heads=n, num_key_value_heads=1, scale_value=0.07, input_layout=layout,
                 sparse_mode=3, atten_mask=np.triu(np.ones((2048, 2048), np.int8), 1))
    masked = [band(ql, s, -10**6, s - ql) for ql, s in zip(q_lens, askv)]
    keys = [np.concatenate([f32(c), f32(r)], -1).transpose(1, 0, 2) for c, r in zip(ckv, kr)]
    exp_out, _ = packed_reference(np.concatenate([f32(query), f32(query_rope)], -1), q_lens,
                                  keys, [f32(c).transpose(1, 0, 2) for c in ckv], 0.07, masked)
    got = f32(out).transpose(1, 0, 2) if layout == "TND_NTD" else f32(out)
    assert out.shape == ((n, t, 512) if layout == "TND_NTD" else (t, n, 512))
    check(got, rnd(exp_out, BF16), BF16_TOL)


def test_tnd_equals_bsnd_when_every_batch_has_the_same_length():
    """With equal lengths TND is BSND with B and S merged: the same bits."""
    rng = np.random.default_rng(56)
    b, s, n, d = 3, 4, 2, 128
    q, k, v = rand(rng, (b, s, n, d)), rand(rng, (b, 6, n, d)), rand(rng, (b, 6, n, d))
    common = dict(num_heads=n, scale_value=0.1, softmax_lse_flag=True)
    bsnd, bsnd_lse = fia(query=q, key=k, value=v, input_layout="BSND", **common)
    tnd, tnd_lse = fia(query=q.reshape(b * s, n, d), key=k.reshape(b * 6, n, d),
                       value=v.reshape(b * 6, n, d), input_layout="TND",
                       actual_seq_lengths=[4, 8, 12], actual_seq_lengths_kv=[6, 12, 18], **common)
    assert np.array_equal(f32(tnd), f32(bsnd).reshape(b * s, n, d))
    assert np.array_equal(tnd_lse[..., 0], bsnd_lse[..., 0].transpose(0, 2, 1).reshape(b * s, n))

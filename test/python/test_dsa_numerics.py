"""DeepSeek Sparse Attention's kernels against independent float64 implementations of the DSA
reference's math (written here; they share no code with runtime/kernels/dsa*.py).

Indices are compared as sets per row: the kernel sums in float32, the reference in float64, so
two scores closer than the float32 error of a 64-head sum may swap across the k-th place;
`assert_same_selection` accepts a difference only among such near-ties (at most 1e-4 of the
row's score scale apart from the k-th score: a 64-term float32 sum of O(1) products has a
relative error below 64 * 2^-24 ~ 4e-6).

Attention outputs are compared with the tolerance the project uses for FIA
(test_fia_numerics.py): the float64 reference applies the device's rounding points (P rounded
to the query's type before P.V, the output rounded once), so kernel and reference differ only
in float32-vs-float64 arithmetic, which moves a value across a rounding boundary by at most
one ulp of bf16 (rtol 2^-7) and, near zero, by a few float32 ulps of the P.V sum (atol 2^-9 for
O(1) values). The same tolerance bounds sparse attention against FIA's MLA mode (the property
test): the two round P at different points (normalized P vs exp(x - max)), each P element by at
most half a bf16 ulp, which moves the output by at most 2^-8 relative when P is concentrated on
one key and by O(2^-9 / sqrt(L)) absolute when it is spread over L keys.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla import ops
from ascend_mla.runtime.kernels import get_kernel

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
BF16_TOL = dict(rtol=2.0 ** -7, atol=2.0 ** -9)
LSE_TOL = dict(rtol=1e-5, atol=1e-5)


def f64(x):
    return np.asarray(x, np.float64)


def rnd(x, dtype):
    return np.asarray(x, np.float64).astype(np.float32).astype(dtype).astype(np.float64)


def normal(rng, shape, dtype=BF16, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32).astype(dtype)


# ------------------------------------------------------------------------------------------
# a paged problem: per-batch logical key rows, and the PA_BSND cache holding them
# ------------------------------------------------------------------------------------------

def paged(rng, rows_per_batch, width, block, dtype=BF16, extra_blocks=1):
    """Logical rows (list of (L_b, width) arrays) placed into a PA_BSND cache through a
    shuffled block table. Returns (rows, cache (nb, block, 1, width), table (B, M) int32)."""
    per_batch = [math.ceil(max(len(r), 1) / block) for r in rows_per_batch]
    width_blocks = max(per_batch)
    nb = sum(per_batch) + extra_blocks
    order = rng.permutation(nb)
    cache = normal(rng, (nb, block, 1, width), dtype)        # garbage outside the rows
    table = np.zeros((len(rows_per_batch), width_blocks), np.int32)
    used = 0
    for b, rows in enumerate(rows_per_batch):
        for j in range(per_batch[b]):
            table[b, j] = order[used]
            used += 1
        for p, row in enumerate(rows):
            cache[table[b, p // block], p % block, 0] = row
    return cache, table


def tnd_ends(counts):
    return np.cumsum(counts).astype(np.int32)


# ------------------------------------------------------------------------------------------
# the lightning indexer: reference and comparison
# ------------------------------------------------------------------------------------------

def ref_scores(q, keys, w):
    """float64 sum_h w_h * relu(q_h . k_j): q (N1, D), keys (L, D), w (N1,) -> (L,)."""
    return (f64(w)[:, None] * np.maximum(f64(q) @ f64(keys).T, 0)).sum(axis=0)


def visible_count(mode, act_q, act_k, i):
    return act_k if mode == 0 else max(0, min(act_k, act_k - act_q + i + 1))


def assert_same_selection(got, scores, k, row=""):
    """got: the kernel's row (k,) int32; scores: the reference's visible scores (L_vis,)."""
    n = min(k, len(scores))
    assert (got[n:] == -1).all(), f"{row}: entries past {n} must be -1, got {got[n:][got[n:] != -1][:5]}"
    chosen = got[:n]
    assert (chosen >= 0).all() and len(set(chosen.tolist())) == n, f"{row}: {n} distinct indices expected"
    assert chosen.max(initial=-1) < len(scores), f"{row}: an index past the visible keys"
    if n == 0:
        return
    ranked = np.sort(scores)[::-1]
    threshold = ranked[n - 1]
    tol = 1e-4 * max(1.0, np.abs(scores).max())
    expected_sure = set(np.flatnonzero(scores > threshold + tol).tolist())
    allowed = set(np.flatnonzero(scores >= threshold - tol).tolist())
    got_set = set(chosen.tolist())
    assert expected_sure <= got_set, f"{row}: missing {sorted(expected_sure - got_set)[:5]}"
    assert got_set <= allowed, f"{row}: unexpected {sorted(got_set - allowed)[:5]}"
    # descending order of the kernel's own picks (by the reference's scores, up to near-ties)
    picked = scores[chosen]
    assert (np.diff(picked) <= tol).all(), f"{row}: not in descending order"


def check_indexer(indices, rows, k):
    """rows: list of (output row index, reference visible scores)."""
    flat = indices.reshape(-1, k)
    for r, scores in rows:
        assert_same_selection(flat[r], scores, k, row=f"row {r}")


def test_indexer_vllm_tnd_paged_prefill_and_decode():
    """vLLM-Ascend's call: TND query with cumulative lengths, PA_BSND key of block 128 with
    per-batch lengths, sparse_mode 3. Batch 0 decodes one token after 300; batch 1 is a prefill
    of 5 tokens (MTP-like rows at the diagonal); batch 2 has more visible keys than sparse_count."""
    rng = np.random.default_rng(1)
    n1, k = 16, 64
    act_q, act_k = [1, 5, 2], [301, 5, 180]
    keys = [normal(rng, (L, 128)) for L in act_k]
    cache, table = paged(rng, keys, 128, 128)
    t1 = sum(act_q)
    q = normal(rng, (t1, n1, 128))
    w = normal(rng, (t1, n1))
    indices, values = ops.npu_lightning_indexer(
        q, cache, w, actual_seq_lengths_query=tnd_ends(act_q), actual_seq_lengths_key=np.int32(act_k),
        block_table=table, layout_query="TND", layout_key="PA_BSND", sparse_count=k, sparse_mode=3)
    assert indices.shape == (t1, 1, k) and indices.dtype == np.int32 and values.shape == (0,)
    rows, start = [], 0
    for b in range(3):
        for i in range(act_q[b]):
            vis = visible_count(3, act_q[b], act_k[b], i)
            rows.append((start + i, ref_scores(q[start + i], keys[b][:vis], w[start + i])))
        start += act_q[b]
    check_indexer(indices, rows, k)
    # batch 1's first row sees one key: [0, -1, -1, ...]
    assert indices[1, 0, 0] == 0 and (indices[1, 0, 1:] == -1).all()


@pytest.mark.parametrize("mode", [0, 3])
def test_indexer_bsnd_values_and_padding_rows(mode):
    """BSND query and key with query lengths below S1: rows past act_q are all -1; the values
    (return_value) are the float32 scores rounded to the query's type, -inf at -1; fp32 weights."""
    rng = np.random.default_rng(2)
    b, s1, s2, n1, k = 2, 4, 40, 8, 16
    act_q, act_k = [3, 4], [30, 12]
    q, key = normal(rng, (b, s1, n1, 128), F16), normal(rng, (b, s2, 1, 128), F16)
    w = rng.standard_normal((b, s1, n1)).astype(np.float32)
    indices, values = ops.npu_lightning_indexer(
        q, key, w, actual_seq_lengths_query=np.int32(act_q), actual_seq_lengths_key=np.int32(act_k),
        sparse_count=k, sparse_mode=mode, return_value=True)
    assert values.shape == (b, s1, 1, k) and values.dtype == F16
    for bb in range(b):
        for i in range(s1):
            got, val = indices[bb, i, 0], values[bb, i, 0].astype(np.float64)
            if i >= act_q[bb]:
                assert (got == -1).all() and np.isneginf(val).all()
                continue
            vis = visible_count(mode, act_q[bb], act_k[bb], i)
            scores = ref_scores(q[bb, i], key[bb, :vis, 0], w[bb, i])
            assert_same_selection(got, scores, k, row=f"({bb}, {i})")
            n = min(k, vis)
            np.testing.assert_allclose(val[:n], rnd(scores[got[:n]], F16), rtol=2.0 ** -10, atol=1e-3)
            assert np.isneginf(val[n:]).all()


def test_indexer_rows_that_see_nothing_and_ties():
    """Mode 3 rows i < act_q - act_k see no key (all -1). Equal scores keep the lower index
    first (the documented tie order: a stable descending sort)."""
    n1, k = 4, 8
    key = np.zeros((1, 6, 1, 128), np.float32)
    key[0, :, 0, 0] = [1, 2, 2, 1, 2, 0]          # scores 1, 2, 2, 1, 2, 0 for q = e0, w = 1
    q = np.zeros((1, 4, n1, 128), np.float32)
    q[..., 0] = 1
    w = np.full((1, 4, n1), 0.25, np.float32)
    # act_q 4 > act_k 3: rows 0 sees nothing; row 1 sees key 0; rows 2, 3 see keys 0..1, 0..2
    idx, _ = ops.npu_lightning_indexer(q.astype(BF16), key.astype(BF16), w.astype(BF16),
                                       actual_seq_lengths_key=np.int32([3]), sparse_count=k)
    assert (idx[0, 0, 0] == -1).all()
    assert idx[0, 1, 0].tolist() == [0] + [-1] * 7
    assert idx[0, 3, 0].tolist()[:3] == [1, 2, 0]
    idx, _ = ops.npu_lightning_indexer(q.astype(BF16), key.astype(BF16), w.astype(BF16),
                                       sparse_count=k, sparse_mode=0)
    assert idx[0, 0, 0].tolist() == [1, 2, 4, 0, 3, 5, -1, -1]


def test_quant_indexer_against_float64():
    """int8 q/k, fp16 weights and scales (Atlas A2/A3; vLLM-Ascend's LI C8 call): score =
    sum_h fp16(w_h * sq_h) * relu(q8 . k8) * sk_j; the fp16 product is the device's rounding point."""
    rng = np.random.default_rng(4)
    n1, k = 64, 32
    act_q, act_k = [2, 1], [150, 40]
    keys = [rng.integers(-127, 128, (L, 128)).astype(np.int8) for L in act_k]
    kscales = [rng.uniform(0.001, 0.02, L).astype(F16) for L in act_k]
    cache, table = paged(rng, keys, 128, 128, np.int8)
    scale_cache = np.zeros(cache.shape[:3], F16)            # (blocks, 128, 1), the same table
    for b, s in enumerate(kscales):
        for p in range(len(s)):
            scale_cache[table[b, p // 128], p % 128, 0] = s[p]
    t1 = sum(act_q)
    q = rng.integers(-127, 128, (t1, n1, 128)).astype(np.int8)
    qs = rng.uniform(0.001, 0.02, (t1, n1)).astype(F16)
    w = normal(rng, (t1, n1), F16)
    idx = ops.npu_quant_lightning_indexer(
        q, cache, w, qs, scale_cache, 0, 0, actual_seq_lengths_query=tnd_ends(act_q),
        actual_seq_lengths_key=np.int32(act_k), block_table=table, layout_query="TND",
        layout_key="PA_BSND", sparse_count=k)
    rows, start = [], 0
    for b in range(2):
        for i in range(act_q[b]):
            r = start + i
            vis = visible_count(3, act_q[b], act_k[b], i)
            wq = rnd(f64(w[r]) * f64(qs[r]), F16)
            dots = np.maximum(f64(q[r]) @ f64(keys[b][:vis]).T, 0)
            rows.append((r, (wq[:, None] * dots).sum(0) * f64(kscales[b][:vis])))
        start += act_q[b]
    check_indexer(idx, rows, k)


# ------------------------------------------------------------------------------------------
# sparse flash attention: reference
# ------------------------------------------------------------------------------------------

def ref_positions(row, t, act_kv, sbs):
    """The positions one query row attends (the reference's reading of the algorithm)."""
    out = []
    if t <= 0:
        return out
    for e in list(row)[:min(len(row), -(-t // sbs))]:
        if e == -1:
            break
        lo = e * sbs
        if lo >= t:
            continue
        out.extend(range(lo, min(lo + sbs, act_kv, t)))
    return out


def ref_attention(q, qr, k, kr, v, scale, dtype, sink=None):
    """float64 MLA attention of one query row over the given key rows, with the device's
    rounding points: P rounded to `dtype`, the output rounded to `dtype`. q (N, 512),
    qr (N, 64), k (L, 512), kr (L, 64), v (L, Dv). Returns (out, max, sum)."""
    n = q.shape[0]
    if len(k) == 0:
        m = np.full(n, -np.inf) if sink is None else f64(sink)
        return np.zeros((n, v.shape[1])), m, np.zeros(n) if sink is None else np.ones(n)
    x = scale * (f64(q) @ f64(k).T + f64(qr) @ f64(kr).T)
    m = x.max(1) if sink is None else np.maximum(x.max(1), f64(sink))
    e = np.exp(x - m[:, None])
    s = e.sum(1) + (0 if sink is None else np.exp(f64(sink) - m))
    p = rnd(e / s[:, None], dtype)
    return rnd(p @ f64(v), dtype), m, s


def sfa_reference(query, qrope, indices, kv_rows, kr_rows, act_q, act_kv, scale, sbs=1, mode=3,
                  v_rows=None, sink=None):
    """Per batch (flattened query rows in order): out (rows, N, 512), max, sum."""
    outs, maxes, sums, r = [], [], [], 0
    for b in range(len(act_q)):
        for i in range(act_q[b]):
            t = min(act_kv[b], act_kv[b] if mode == 0 else act_kv[b] - act_q[b] + i + 1)
            pos = ref_positions(indices[r], t, act_kv[b], sbs)
            v = (kv_rows[b] if v_rows is None else v_rows[b])[pos]
            o, m, s = ref_attention(query[r], qrope[r], kv_rows[b][pos], kr_rows[b][pos], v, scale,
                                    query.dtype, sink)
            outs.append(o), maxes.append(m), sums.append(s)
            r += 1
    return np.stack(outs), np.stack(maxes), np.stack(sums)


def test_sfa_vllm_tnd_paged():
    """vLLM-Ascend's call: TND query, PA_BSND latent/rope caches of block 128 (value = key),
    sparse_count 2048 with fewer visible tokens (-1 tails), sparse_mode 3, attention_mode 2;
    the indices are the indexer's own."""
    rng = np.random.default_rng(5)
    n, scale = 16, 0.07
    act_q, act_kv = [1, 3], [260, 90]
    kv_rows = [normal(rng, (L, 512)) for L in act_kv]
    kr_rows = [normal(rng, (L, 64)) for L in act_kv]
    kv, table = paged(rng, kv_rows, 512, 128)
    kr = np.zeros(kv.shape[:3] + (64,), BF16)
    for b, rows in enumerate(kr_rows):
        for p, row in enumerate(rows):
            kr[table[b, p // 128], p % 128, 0] = row
    t1 = sum(act_q)
    q, qr = normal(rng, (t1, n, 512)), normal(rng, (t1, n, 64))
    idx_q, idx_w = normal(rng, (t1, 8, 128)), normal(rng, (t1, 8))
    idx_k = [normal(rng, (L, 128)) for L in act_kv]
    idx_cache = np.zeros((kv.shape[0], 128, 1, 128), BF16)
    for b, rows in enumerate(idx_k):
        for p, row in enumerate(rows):
            idx_cache[table[b, p // 128], p % 128, 0] = row
    lengths = dict(actual_seq_lengths_query=tnd_ends(act_q), block_table=table)
    indices, _ = ops.npu_lightning_indexer(idx_q, idx_cache, idx_w, actual_seq_lengths_key=np.int32(act_kv),
                                           layout_query="TND", layout_key="PA_BSND", sparse_count=2048,
                                           **lengths)
    out, smax, ssum = ops.npu_sparse_flash_attention(
        q, kv, kv, indices, scale, actual_seq_lengths_kv=np.int32(act_kv), query_rope=qr, key_rope=kr,
        layout_query="TND", layout_kv="PA_BSND", sparse_mode=3, attention_mode=2, **lengths)
    assert out.shape == q.shape and out.dtype == BF16 and smax.shape == (0,) and ssum.shape == (0,)
    expected, _, _ = sfa_reference(q, qr, indices.reshape(t1, -1), kv_rows, kr_rows, act_q, act_kv, scale)
    np.testing.assert_allclose(f64(out), expected, **BF16_TOL)


def test_sfa_blocks_clipping_break_zero_rows_and_lse():
    """BSND with sparse blocks of 4: blocks clipped at the causal limit t and at act_kv, entries
    at or past t skipped, only the first ceil(t / 4) entries read, the -1 break, a row that sees
    nothing (i < act_q - act_kv: zeros) and a row with an empty selection; the fp32 softmax
    statistics (return_softmax_lse)."""
    rng = np.random.default_rng(6)
    b, s1, s2, n, sbs, scale = 1, 5, 24, 4, 4, 0.09
    act_q, act_kv = [5], [18]          # rows 0..4 see t = 14 .. 18 keys
    q, qr = normal(rng, (b, s1, n, 512), F16), normal(rng, (b, s1, n, 64), F16)
    kv, kr = normal(rng, (b, s2, 1, 512), F16), normal(rng, (b, s2, 1, 64), F16)
    indices = np.full((b, s1, 1, 8), -1, np.int32)
    indices[0, 0, 0, :6] = [3, 0, 4, 1, 2, 5]       # block 3 (12..15) clipped at t = 14; 4, 5 skipped
    indices[0, 1, 0, :3] = [4, 2, 1]               # block 4 = 16..19 >= t = 15: skipped
    indices[0, 2, 0, :2] = [4, 4]                  # t = 16: both skipped -> empty selection, zeros
    indices[0, 3, 0, :] = [0, 1, 2, 3, 4, 5, 5, 5]  # t = 17: only the first ceil(17/4) = 5 read
    indices[0, 4, 0, :3] = [4, 0, 3]               # t = 18: block 4 clipped to 16..17
    out, smax, ssum = ops.npu_sparse_flash_attention(
        q, kv, kv, indices, scale, actual_seq_lengths_query=np.int32(act_q),
        actual_seq_lengths_kv=np.int32(act_kv), query_rope=qr, key_rope=kr, sparse_block_size=sbs,
        attention_mode=2, return_softmax_lse=True)
    assert smax.shape == (b, 1, s1, n) and ssum.dtype == np.float32
    exp, em, es = sfa_reference(q.reshape(-1, n, 512), qr.reshape(-1, n, 64), indices.reshape(s1, -1),
                                [kv[0, :, 0]], [kr[0, :, 0]], act_q, act_kv, scale, sbs=sbs)
    np.testing.assert_allclose(f64(out).reshape(-1, n, 512), exp, rtol=2.0 ** -10, atol=2.0 ** -11)
    assert (f64(out)[0, 2] == 0).all()
    np.testing.assert_allclose(smax[0, 0][[0, 1, 3, 4]], em[[0, 1, 3, 4]], **LSE_TOL)
    np.testing.assert_allclose(ssum[0, 0][[0, 1, 3, 4]], es[[0, 1, 3, 4]], **LSE_TOL)
    assert np.isneginf(smax[0, 0, 2]).all() and (ssum[0, 0, 2] == 0).all()
    # a row whose causal limit is <= 0 (act_q 5 > act_kv 3: rows 0, 1) is zero
    out2, _, _ = ops.npu_sparse_flash_attention(
        q, kv, kv, np.zeros_like(indices), scale, actual_seq_lengths_kv=np.int32([3]),
        query_rope=qr, key_rope=kr, attention_mode=2)
    assert (f64(out2)[0, :2] == 0).all() and (f64(out2)[0, 2:] != 0).any()


def test_sfa_reads_up_to_the_first_minus_one():
    """The -1 break, on the kernel itself (the eager call rejects a valid entry after a -1,
    SFA-10): entries after the first -1 are never read."""
    rng = np.random.default_rng(7)
    n, s2 = 2, 8
    q, qr = normal(rng, (1, 1, n, 512)), normal(rng, (1, 1, n, 64))
    kv, kr = normal(rng, (1, s2, 1, 512)), normal(rng, (1, s2, 1, 64))
    kernel = get_kernel("mla.sparse_flash_attention")
    common = dict(query=q, key=kv, value=kv, query_rope=qr, key_rope=kr, scale_value=0.1,
                  attention_mode=2)
    a = kernel(sparse_indices=np.int32([[[[2, 5, -1, 7, 1, 0, 0, 0]]]]), **common)[0]
    b = kernel(sparse_indices=np.int32([[[[2, 5, -1, -1, -1, -1, -1, -1]]]]), **common)[0]
    np.testing.assert_array_equal(f64(a), f64(b))
    exp, _, _ = sfa_reference(q.reshape(1, n, 512), qr.reshape(1, n, 64), [[2, 5, -1]], [kv[0, :, 0]],
                              [kr[0, :, 0]], [1], [s2], 0.1)
    np.testing.assert_allclose(f64(a).reshape(1, n, 512), exp, **BF16_TOL)


def test_sfa_sinks_on_ascend950():
    """V2's sinks (Ascend 950; aclnnSparseFlashAttentionV2): exp(sink_h - m) joins the softmax
    denominator. Rejected on Atlas A2/A3 [SFA-14]."""
    rng = np.random.default_rng(8)
    n, s2 = 8, 50
    q, qr = normal(rng, (2, 1, n, 512)), normal(rng, (2, 1, n, 64))
    kv, kr = normal(rng, (2, s2, 1, 512)), normal(rng, (2, s2, 1, 64))
    indices = np.stack([rng.permutation(s2)[:20] for _ in range(2)]).astype(np.int32).reshape(2, 1, 1, 20)
    sinks = rng.uniform(-1, 3, n).astype(np.float32)
    call = dict(query_rope=qr, key_rope=kr, attention_mode=2, sinks=sinks)
    with pytest.raises(ascend_mla.VerificationError, match=r"sinks: must be absent on Atlas A2/A3.*\[SFA-14\]"):
        ops.npu_sparse_flash_attention(q, kv, kv, indices, 0.05, **call)
    with ascend_mla.eager.profile("ASCEND950"):
        out, _, _ = ops.npu_sparse_flash_attention(q, kv, kv, indices, 0.05, **call)
    for b in range(2):
        exp, _, _ = ref_attention(q[b, 0], qr[b, 0], kv[b, indices[b, 0, 0], 0], kr[b, indices[b, 0, 0], 0],
                                  kv[b, indices[b, 0, 0], 0], 0.05, BF16, sink=sinks)
        np.testing.assert_allclose(f64(out[b, 0]), exp, **BF16_TOL)


# ------------------------------------------------------------------------------------------
# the KV-quantized sparse attention: the 656-byte rows
# ------------------------------------------------------------------------------------------

def pack_row(latent_int8, rope_bf16, scales_f32):
    """One 656-byte row, byte by byte: 512 int8, 64 bf16 (little-endian), 4 fp32."""
    return np.concatenate([latent_int8.view(np.uint8), np.ascontiguousarray(rope_bf16).view(np.uint8),
                           np.ascontiguousarray(scales_f32).view(np.uint8)]).view(np.int8)


def test_kv_quant_sfa_unpacks_the_packed_rows():
    rng = np.random.default_rng(9)
    n, scale = 16, 0.06
    act_q, act_kv = [2, 1], [140, 33]
    lat = [rng.integers(-127, 128, (L, 512)).astype(np.int8) for L in act_kv]
    rope = [normal(rng, (L, 64)) for L in act_kv]
    sc = [rng.uniform(0.005, 0.05, (L, 4)).astype(np.float32) for L in act_kv]
    rows = [np.stack([pack_row(lat[b][p], rope[b][p], sc[b][p]) for p in range(L)]) for b, L in enumerate(act_kv)]
    cache, table = paged(rng, rows, 656, 128, np.int8)
    t1 = sum(act_q)
    query = normal(rng, (t1, n, 576))
    indices = np.full((t1, 1, 64), -1, np.int32)
    r = 0
    for b in range(2):
        for i in range(act_q[b]):
            t = act_kv[b] - act_q[b] + i + 1
            chosen = rng.permutation(t)[:min(64, t)]
            indices[r, 0, :len(chosen)] = chosen
            r += 1
    out = ops.npu_kv_quant_sparse_flash_attention(
        query, cache, cache, indices, scale, 2, 2, block_table=table,
        actual_seq_lengths_query=tnd_ends(act_q), actual_seq_lengths_kv=np.int32(act_kv),
        layout_query="TND", layout_kv="PA_BSND", attention_mode=2)
    assert out.shape == (t1, n, 512) and out.dtype == BF16
    # the reference dequantizes each tile of 128 with its own scale, rounded to bf16
    deq = [rnd((f64(lat[b]).reshape(-1, 4, 128) * f64(sc[b])[:, :, None]).reshape(-1, 512), BF16)
           for b in range(2)]
    exp, _, _ = sfa_reference(query[..., :512], query[..., 512:], indices.reshape(t1, -1), deq, rope,
                              act_q, act_kv, scale)
    np.testing.assert_allclose(f64(out), exp, **BF16_TOL)


# ------------------------------------------------------------------------------------------
# the property: with every token selected, sparse attention is dense MLA attention (FIA)
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("q_s", [1, 3])
def test_sfa_with_every_token_selected_equals_fia_mla_mode(q_s):
    """DSA with top-k >= the sequence length selects every visible token, so it must equal
    dense MLA attention on the same paged caches: FIA's MLA mode (query_rope / key_rope, the
    causal sparse_mode 3 for Q_S > 1), decode and MTP."""
    rng = np.random.default_rng(10 + q_s)
    b, n, block, scale = 3, 8, 128, 1 / math.sqrt(192)
    act_kv = [200, 70, 129]
    kv_rows = [normal(rng, (L, 512)) for L in act_kv]
    kr_rows = [normal(rng, (L, 64)) for L in act_kv]
    kv, table = paged(rng, kv_rows, 512, block)
    kr = np.zeros(kv.shape[:3] + (64,), BF16)
    for bb, rows in enumerate(kr_rows):
        for p, row in enumerate(rows):
            kr[table[bb, p // block], p % block, 0] = row
    q, qr = normal(rng, (b, q_s, n, 512)), normal(rng, (b, q_s, n, 64))
    top = 256                                   # >= every sequence length
    indices = np.full((b, q_s, 1, top), -1, np.int32)
    for bb in range(b):
        indices[bb, :, 0, :act_kv[bb]] = np.arange(act_kv[bb])
    sparse, _, _ = ops.npu_sparse_flash_attention(
        q, kv, kv, indices, scale, block_table=table, actual_seq_lengths_kv=np.int32(act_kv),
        query_rope=qr, key_rope=kr, layout_kv="PA_BSND", sparse_mode=3, attention_mode=2)
    mask = dict(sparse_mode=3, atten_mask=np.triu(np.ones((2048, 2048), np.int8), 1)) if q_s > 1 else {}
    dense, _ = ops.npu_fused_infer_attention_score(
        q, kv, kv, query_rope=qr, key_rope=kr, block_table=table, block_size=block,
        actual_seq_lengths_kv=act_kv, num_heads=n, num_key_value_heads=1, scale_value=scale,
        input_layout="BSND", **mask)
    np.testing.assert_allclose(f64(sparse), f64(dense), **BF16_TOL)
    # and a top-k below the length is dense attention with the unselected keys masked
    # (DeepSeek's MLA.forward: an index mask of -inf)
    few = indices.copy()
    few[..., 40:] = -1
    sparse_few, _, _ = ops.npu_sparse_flash_attention(
        q, kv, kv, few, scale, block_table=table, actual_seq_lengths_kv=np.int32(act_kv),
        query_rope=qr, key_rope=kr, layout_kv="PA_BSND", sparse_mode=3, attention_mode=2)
    exp, _, _ = sfa_reference(q.reshape(-1, n, 512), qr.reshape(-1, n, 64), few.reshape(b * q_s, -1),
                              kv_rows, kr_rows, [q_s] * b, act_kv, scale)
    np.testing.assert_allclose(f64(sparse_few).reshape(-1, n, 512), exp, **BF16_TOL)

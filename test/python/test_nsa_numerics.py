"""mla.nsa_compress_attention_infer against an independent NumPy reference.

The reference (`reference` below) follows the seed's formulas literally, one query token and
one query head at a time (the prolog/NSA constraint catalog; rules in docs/rules.md B3, docs/numerics.md
"NsaCompressAttentionInfer"); it shares no code with the kernel. The points the seed leaves
open are taken as the kernel documents them (runtime/kernels/nsa.py): slot s holds the
formula's P_slc[s + 1], nSel = ceil(((L-1)d + l) / l'), slots 0, nSel-2, nSel-1 forced, ties to
the lower index, the last compressed window masked for early tokens when a mask is given.

Test data poison everything the op must not read with NaN: the cache rows past each sequence,
the spare cache blocks and the padding query rows of BSND. Unused block-table entries point
past the cache, so reading them raises.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import ascend_mla

BF16 = np.dtype(ml_dtypes.bfloat16)
FP16 = np.dtype(np.float16)

# Every legal (compress_block_size l, compress_stride d, select_block_size l') of the seed:
# l, l' in {16..128 step 16}, d in {16, 32, 48, 64}, l >= d, l' >= l, l' % d == 0 (63 triples).
GRID = [(l, d, s) for l in range(16, 129, 16) for d in (16, 32, 48, 64)
        for s in range(16, 129, 16) if l >= d and s >= l and s % d == 0]


# The op under test is the public eager API: verification, then the CPU kernel.
nsa_compress_attention_infer = ascend_mla.ops.npu_nsa_compress_attention_infer


# ------------------------------------------------------------------------- reference

def reference(query, key, value, scale_value, head_num, key_value_head_num, select_block_size,
              select_block_count, page_block_size, compress_block_size, compress_stride, *,
              atten_mask=None, block_table=None, actual_seq_qlen=None, actual_cmp_seq_kvlen=None,
              actual_sel_seq_kvlen=None, layout="TND", **_reserved):
    """Returns the expected output and top-K, a per-element output tolerance and the
    importance scores of every (token row, kv head), in float64, for the tie checks."""
    l, d, l_sel, k = compress_block_size, compress_stride, select_block_size, select_block_count
    n1, n2 = head_num, key_value_head_num
    group = n1 // n2
    dtype = query.dtype
    ulp = 2.0 ** -7 if dtype == BF16 else 2.0 ** -10  # relative spacing at worst (8 / 11 bits)
    d1 = query.shape[-1]
    d2 = value.shape[-1] // n2
    rows = query.astype(np.float32).reshape(-1, n1, d1)
    expected_out = np.zeros((rows.shape[0], n1, d2), np.float32)
    tolerance = np.zeros_like(expected_out)
    expected_topk = np.full((rows.shape[0], n2, k), -1, np.int64)
    scores_by_row = {}
    # Q_S, the most tokens of one batch: BSND without actual_seq_qlen has S1 in every batch.
    q_s = max(actual_seq_qlen) if actual_seq_qlen is not None else \
        query.shape[1] if layout == "BSND" else 1
    multi_token = q_s > 1

    for b, row, i, q_len in token_rows(layout, query.shape, actual_seq_qlen,
                                       len(actual_cmp_seq_kvlen)):
        length = actual_cmp_seq_kvlen[b]
        cache_rows = [(block_table[b][p // page_block_size], p % page_block_size)
                      for p in range(length)]
        keys = np.array([key[blk, off] for blk, off in cache_rows], np.float32)
        values = np.array([value[blk, off] for blk, off in cache_rows], np.float32)
        hide_last = False
        if atten_mask is not None and multi_token:
            token_position = actual_sel_seq_kvlen[b] - q_len + i
            last_window_end = (length - 1) * d + l   # exclusive
            hide_last = last_window_end - 1 > token_position

        for h2 in range(n2):
            k_head = keys[:, h2 * d1:(h2 + 1) * d1]
            v_head = values[:, h2 * d2:(h2 + 1) * d2]
            group_score = 0.0
            for h in range(h2 * group, (h2 + 1) * group):
                logits = (k_head @ rows[row, h]) * np.float32(scale_value)
                if hide_last:
                    logits[-1] = np.float32(-3e38)  # the device's mask value, not -inf
                p = np.exp(logits - logits.max())
                p = p / p.sum()
                p_low = p.astype(dtype).astype(np.float32)
                exact = p_low @ v_head
                expected_out[row, h] = exact.astype(dtype).astype(np.float32)
                # fp32 accumulation order differs from the kernel's by ~1e-6 relative. That can
                # (a) move the final rounding to the neighbouring value: one ulp of the result;
                # (b) flip the rounding of a probability that sits on a rounding midpoint: one ulp
                # of that P * V term; such flips are rare, allow two at the largest term.
                largest_term = np.max(p[:, None] * np.abs(v_head), axis=0)
                tolerance[row, h] = ulp * np.abs(exact) + 2 * ulp * largest_term
                group_score = group_score + selection_scores(p, length, l, d, l_sel)
            scores_by_row[row, h2] = group_score
            expected_topk[row, h2] = top_k(group_score, k)
    return expected_out, tolerance, expected_topk, scores_by_row


def token_rows(layout, query_shape, actual_seq_qlen, batch):
    """(batch, row of the query flattened to tokens, token index i, tokens of that batch)."""
    q_lens = list(actual_seq_qlen) if actual_seq_qlen is not None else \
        [1 if layout == "TND" else query_shape[1]] * batch
    next_row = 0
    for b, q_len in enumerate(q_lens):
        first = next_row if layout == "TND" else b * query_shape[1]
        for i in range(q_len):
            yield b, first + i, i, q_len
        next_row += q_len


def selection_scores(p, length, l, d, l_sel):
    """P_slc[j] = sum_{m < l'/d} sum_{n < l/d} P_cmp[(l'/d) j - m - n], slot s = formula j = s+1;
    indices outside [0, L) contribute nothing. float64."""
    n_sel = math.ceil(((length - 1) * d + l) / l_sel)
    scores = np.zeros(n_sel)
    for s in range(n_sel):
        j = s + 1
        for m in range(l_sel // d):
            for n in range(l // d):
                index = (l_sel // d) * j - m - n
                if 0 <= index < length:
                    scores[s] += float(p[index])
    return scores


def top_k(scores, k):
    """Block 0 and the last two always; then the best scores; ties to the lower index."""
    n_sel = len(scores)
    forced = sorted({0, max(n_sel - 2, 0), n_sel - 1})
    rest = sorted((s for s in range(n_sel) if s not in forced), key=lambda s: (-scores[s], s))
    return (forced + rest)[:k]


# ------------------------------------------------------------------------- test data

def make_inputs(rng, *, l, d, l_sel, k, cmp_lens, n1=4, n2=2, d1=32, d2=16, page=16,
                dtype=BF16, layout="TND", q_lens=None, sel_tails=None, mask=False,
                scale=None, keys=None, values=None, queries=None):
    """Keyword arguments of the op. keys/values: per batch (L_b, N2*D) float arrays (random
    normal when None); queries: (tokens, N1, D1) in token order; q_lens turns on Q_S > 1 with
    actual_sel_seq_kvlen[b] = (L_b - 1) d + l + sel_tails[b] (consistent with L_b)."""
    batch = len(cmp_lens)
    if keys is None:
        keys = [rng.standard_normal((n, n2 * d1)) for n in cmp_lens]
    if values is None:
        values = [rng.standard_normal((n, n2 * d2)) for n in cmp_lens]
    key_cache, table = paginate(keys, page, dtype, rng)
    value_cache, _ = paginate(values, page, dtype, rng, table)

    tokens = sum(q_lens) if q_lens is not None else batch
    if queries is None:
        queries = rng.standard_normal((tokens, n1, d1))
    if layout == "TND":
        query = queries
    else:
        per_batch = q_lens if q_lens is not None else [1] * batch
        s1 = max(per_batch)
        query = np.full((batch, s1, n1, d1), np.nan)
        starts = np.cumsum([0, *per_batch])
        for b, q_len in enumerate(per_batch):
            query[b, :q_len] = queries[starts[b]:starts[b] + q_len]
    inputs = dict(
        query=query.astype(dtype), key=key_cache, value=value_cache,
        scale_value=1.0 / math.sqrt(d1) if scale is None else scale,
        head_num=n1, key_value_head_num=n2, select_block_size=l_sel, select_block_count=k,
        page_block_size=page, compress_block_size=l, compress_stride=d,
        block_table=table, actual_cmp_seq_kvlen=list(cmp_lens), layout=layout)
    if q_lens is not None:
        tails = sel_tails if sel_tails is not None else [0] * batch
        inputs["actual_seq_qlen"] = list(q_lens)
        inputs["actual_sel_seq_kvlen"] = [(n - 1) * d + l + t for n, t in zip(cmp_lens, tails)]
    if mask:  # content is not read (SEED SILENT); shape chosen as (Q_S, 2048) bool
        inputs["atten_mask"] = np.ones((4, 2048), bool)
    return inputs


def paginate(sequences, page, dtype, rng, table=None):
    """Scatter (L_b, H) sequences into a NaN-filled (blocks, page, H) cache through a shuffled
    block table (two spare blocks); reuses `table` when given (value cache next to its key
    cache). Unused table entries point one past the last block."""
    needed = [-(-len(seq) // page) for seq in sequences]
    blocks = sum(needed) + 2
    if table is None:
        physical = rng.permutation(blocks)
        table = np.full((len(sequences), max(needed)), blocks, np.int32)
        starts = np.cumsum([0, *needed])
        for b, n in enumerate(needed):
            table[b, :n] = physical[starts[b]:starts[b] + n]
    cache = np.full((blocks, page, sequences[0].shape[1]), np.nan)
    for b, seq in enumerate(sequences):
        for p, row in enumerate(seq):
            cache[table[b, p // page], p % page] = row
    return cache.astype(dtype), table


def min_length_for(n_blocks, l, d, l_sel):
    """Smallest compressed length whose selection-block count is at least n_blocks."""
    return max(1, math.ceil((n_blocks * l_sel - l) / d) + 1)


def max_legal_length(l, d, l_sel):
    """Largest L <= 8192 with ceil(((L-1)d + l) / l') <= 4096 (constraints C19, C26)."""
    length = 8192
    while math.ceil(((length - 1) * d + l) / l_sel) > 4096:
        length -= 1
    return length


# ------------------------------------------------------------------------- checks

def check(inputs):
    """Run the op and the reference on the same inputs and compare; returns both results."""
    output, topk = nsa_compress_attention_infer(**inputs)
    expected_out, tolerance, expected_topk, scores = reference(**inputs)
    query = inputs["query"]
    n2, k = inputs["key_value_head_num"], inputs["select_block_count"]
    assert output.dtype == query.dtype and topk.dtype == np.int32
    assert output.shape == (*query.shape[:-1], inputs["value"].shape[-1] // n2)
    assert topk.shape == (*query.shape[:-2], n2, k)

    got_out = output.astype(np.float32).reshape(expected_out.shape)
    err = np.abs(got_out - expected_out)
    assert np.all(err <= tolerance), f"output off by {err.max()} (tolerance {tolerance.max()})"
    for row_scores in scores.values():
        assert_decisive(row_scores, k)
    np.testing.assert_array_equal(topk.reshape(expected_topk.shape), expected_topk)
    return output, topk


def assert_decisive(scores, k):
    """The expected top-K must not hinge on a near-tie. The kernel's float32 scores differ from
    these float64 ones by the probabilities' error (~1e-6 relative: logits carry ~D1 * 2^-24)
    plus the float32 sums of <= r + c weighted terms and G heads (<= (r + c + G) * 2^-24, 8e-6
    at G = 128); measured at most 7.4e-7 over the grid. Adjacent ranked scores up to the K-th
    boundary are either exactly equal (constructed ties, exact in any order) or apart by more
    than 1e-5 relative."""
    n_sel = len(scores)
    forced = {0, max(n_sel - 2, 0), n_sel - 1}
    ranked = sorted((scores[s] for s in range(n_sel) if s not in forced), reverse=True)
    ranked = ranked[:max(k - len(forced), 0) + 1]
    for a, b in zip(ranked, ranked[1:]):
        assert a == b or a - b > 1e-5 * abs(a), f"near-tie in the test data: {a!r} vs {b!r}"


# ------------------------------------------------------------------------- tests

@pytest.mark.parametrize("l, d, l_sel", GRID)
def test_every_legal_block_geometry(l, d, l_sel):
    rng = np.random.default_rng(1000 + GRID.index((l, d, l_sel)))
    base = min_length_for(7, l, d, l_sel)
    layout, dtype = [("TND", BF16), ("BSND", FP16)][GRID.index((l, d, l_sel)) % 2]
    check(make_inputs(rng, l=l, d=d, l_sel=l_sel, k=7, cmp_lens=[base, base + 17, 2 * base + 33],
                      layout=layout, dtype=dtype))


@pytest.mark.parametrize("l, d, l_sel", GRID)
def test_smallest_legal_length_selects_block_zero(l, d, l_sel):
    """The smallest L with K = 1 legal: K * l' <= (L - 1) d + l (NSA-077, the seed's exact
    bound). The top-1 block is the forced block 0; with l = l' that L is 1, where the softmax
    of one score is exactly 1 and the output copies V[0]."""
    rng = np.random.default_rng(2000 + GRID.index((l, d, l_sel)))
    length = min_length_for(1, l, d, l_sel)
    inputs = make_inputs(rng, l=l, d=d, l_sel=l_sel, k=1, cmp_lens=[length, length], page=16)
    output, topk = check(inputs)
    assert np.all(topk == 0)
    if length == 1:
        for b in range(2):
            first_value = inputs["value"][inputs["block_table"][b, 0], 0].reshape(2, 16)
            np.testing.assert_array_equal(output[b].reshape(2, 2, 16),
                                          np.broadcast_to(first_value[:, None], (2, 2, 16)))


def test_one_block_more_than_the_exact_quotient_is_rejected():
    """NSA-077 bounds K by NoCmpKvSeqlenCeil / l' itself (seed L163): with L = 3, l = 32, d = 16,
    l' = 32 that is 64 / 32 = 2, and L = 4 gives 80 / 32 = 2.5, whose ceiling 3 the device's
    tiling would accept; K = 3 is rejected there and K = 2 runs."""
    rng = np.random.default_rng(2400)
    accepted = make_inputs(rng, l=32, d=16, l_sel=32, k=2, cmp_lens=[4], page=16)
    check(accepted)
    with pytest.raises(ascend_mla.VerificationError,
                       match=r"= \(3 \* 16 \+ 32\) / 32 = 2\.5 for batch 0, got 3 \[NSA-077\]"):
        nsa_compress_attention_infer(**dict(accepted, select_block_count=3))


def test_smallest_length_with_its_only_window_masked():
    """L = 1 and Q_S = 4 with a mask: tokens 0..2 precede the end of the only window, whose score
    becomes the device's -3e38 (not -inf): the softmax of a single score is still exactly 1, so
    the output is V[0], not NaN."""
    rng = np.random.default_rng(2500)
    inputs = make_inputs(rng, l=64, d=16, l_sel=64, k=1, cmp_lens=[1], q_lens=[4],
                         sel_tails=[0], mask=True, n1=2, n2=1, d1=16, d2=16)
    output, topk = check(inputs)
    first_value = inputs["value"][inputs["block_table"][0, 0], 0].astype(np.float32)
    np.testing.assert_array_equal(output.astype(np.float32), np.tile(first_value, (4, 2, 1)))
    assert np.all(topk == 0)


def largest_length_case(l, d, l_sel):
    """L = 8192 where nSel <= 4096 allows it, else the largest L with nSel <= 4096; a second
    batch is short, so that the two batches have different selection-block counts."""
    rng = np.random.default_rng(3000 + GRID.index((l, d, l_sel)))
    length = max_legal_length(l, d, l_sel)
    short = min_length_for(16, l, d, l_sel) + 3
    return make_inputs(rng, l=l, d=d, l_sel=l_sel, k=16, cmp_lens=[length, short], n1=2, n2=1,
                       d1=16, d2=16, page=128)


@pytest.mark.parametrize("l, d, l_sel", GRID)
def test_largest_legal_length(l, d, l_sel):
    check(largest_length_case(l, d, l_sel))


@pytest.mark.parametrize("group", [1, 2, 4, 8, 16, 32, 64, 128])
def test_gqa_group_sizes(group):
    """G = N1 / N2 takes every legal value (G <= 128, 128 % G == 0); the group sum adds G heads."""
    rng = np.random.default_rng(4000 + group)
    n2 = 2 if group <= 32 else 1
    check(make_inputs(rng, l=32, d=16, l_sel=64, k=5, cmp_lens=[45, 90], n1=group * n2, n2=n2,
                      d1=16, d2=16, layout="BSND" if group % 4 else "TND"))


@pytest.mark.parametrize("layout", ["TND", "BSND"])
@pytest.mark.parametrize("dtype", [BF16, FP16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("mask", [False, True], ids=["no_mask", "mask"])
def test_multi_token_queries(layout, dtype, mask):
    """Q_S up to 4 with actual_seq_qlen / actual_sel_seq_kvlen; TND packs sum(q_lens) tokens,
    BSND pads every batch to S1 = 4 (padding rows: output 0, topk -1)."""
    rng = np.random.default_rng(5000 + 2 * (layout == "TND") + (dtype == BF16))
    q_lens = [1, 4, 2, 3]
    inputs = make_inputs(rng, l=48, d=32, l_sel=96, k=6, cmp_lens=[30, 41, 19, 64],
                         q_lens=q_lens, sel_tails=[0, 1, 31, 2], mask=mask,
                         layout=layout, dtype=dtype, n1=8, n2=2)
    output, topk = check(inputs)
    if layout == "BSND":
        for b, q_len in enumerate(q_lens):
            assert np.all(output[b, q_len:].astype(np.float32) == 0)
            assert np.all(topk[b, q_len:] == -1)


@pytest.mark.parametrize("mask", [False, True], ids=["no_mask", "mask"])
def test_bsnd_without_actual_seq_qlen_has_s1_tokens_per_batch(mask):
    """BSND without actual_seq_qlen: every row of the S axis is a token (Q_S = S1 = 3 > 1), so
    the results equal those of actual_seq_qlen = [3, 3], and a mask hides the last window from
    the early tokens (sel_tails 0 and 1: tokens 0-1 of batch 0, token 0 of batch 1)."""
    rng = np.random.default_rng(5100 + mask)
    inputs = make_inputs(rng, l=32, d=16, l_sel=64, k=4, cmp_lens=[40, 30], q_lens=[3, 3],
                         sel_tails=[0, 1], mask=mask, layout="BSND")
    with_lengths = nsa_compress_attention_infer(**inputs)
    del inputs["actual_seq_qlen"]
    output, topk = check(inputs)
    np.testing.assert_array_equal(output.view(np.uint16), with_lengths[0].view(np.uint16))
    np.testing.assert_array_equal(topk, with_lengths[1])


@pytest.mark.parametrize("tail, masked_tokens", [(0, [0, 1, 2]), (1, [0, 1]), (2, [0]),
                                                 (3, []), (15, [])])
def test_mask_hides_the_last_window_from_earlier_tokens(tail, masked_tokens):
    """Four query tokens end the uncompressed sequence (positions sel-4 .. sel-1); the last
    compressed window ends `tail` positions before sel, so token i sees it only when
    3 - i <= tail. Keys make the last window win the softmax outright (logit 128 vs 0), so an
    unmasked token outputs exactly V[L-1] and a masked one the mean of the other values."""
    l, d, l_sel, length, d1 = 32, 16, 64, 40, 16
    keys = np.zeros((length, d1))
    keys[-1] = 8.0
    rng = np.random.default_rng(6000 + tail)
    values = rng.standard_normal((length, 16))
    inputs = make_inputs(rng, l=l, d=d, l_sel=l_sel, k=4, cmp_lens=[length], q_lens=[4],
                         sel_tails=[tail], mask=True, n1=1, n2=1, d1=d1, d2=16,
                         scale=1.0, keys=[keys], values=[values],
                         queries=np.ones((4, 1, d1)))
    output, _ = check(inputs)
    v = values.astype(BF16).astype(np.float32)
    for i in range(4):
        got = output[i, 0].astype(np.float32)
        if i in masked_tokens:
            assert not np.array_equal(got, v[-1])
            p_low = np.float32(1 / 39)  # uniform over the 39 visible keys, then bf16
            expected = (np.full(39, p_low).astype(BF16).astype(np.float32) @ v[:-1])
            np.testing.assert_allclose(got, expected, rtol=2 ** -7, atol=2 ** -8)
        else:
            np.testing.assert_array_equal(got, v[-1])

    unmasked, _ = nsa_compress_attention_infer(**{**inputs, "atten_mask": None})
    np.testing.assert_array_equal(unmasked[:, 0].astype(np.float32), np.tile(v[-1], (4, 1)))


# Geometry l = 32, d = 16, l' = 64: r = l'/d = 4, c = l/d = 2, the double sum weights index
# offsets i = m + n = 0..4 by [1, 2, 2, 2, 1]; slot s reads P_cmp[4(s+1) - i]. With L = 40,
# nSel = ceil((39*16 + 32) / 64) = 11, forced slots 0, 9, 10.
@pytest.mark.parametrize("hot, expected", [
    ([9], [0, 9, 10, 2, 1]),       # 9 = 4*3 - 3: slot 2 only (weight 2); zero slots: lowest first
    ([14], [0, 9, 10, 3, 1]),      # 14 = 4*4 - 2: slot 3 only
    ([8], [0, 9, 10, 1, 2]),       # 8 = 4*2 - 0 = 4*3 - 4: slots 1 and 2, weight 1 each: a tie
    ([10, 12], [0, 9, 10, 2, 3]),  # slot 2 gets (2 + 1)/2, slot 3 gets 1/2 (12 = 4*4 - 4)
    ([0, 3], [0, 9, 10, 1, 2]),    # 3 = 4*1 - 1 (slot 0, forced anyway); slots 1.. get nothing
])
def test_probability_mass_lands_in_the_documented_slots(hot, expected):
    length, d1 = 40, 16
    keys = np.zeros((length, d1))
    keys[hot] = 8.0  # logit 128 against 0: exp(-128) is 0 in float32, P is exactly one-hot
    rng = np.random.default_rng(7000)
    inputs = make_inputs(rng, l=32, d=16, l_sel=64, k=5, cmp_lens=[length], n1=4, n2=1,
                         d1=d1, d2=16, scale=1.0, keys=[keys], queries=np.ones((1, 4, d1)))
    _, topk = check(inputs)
    assert topk[0, 0].tolist() == expected


@pytest.mark.parametrize("k, expected", [(1, [0]), (2, [0, 9]), (3, [0, 9, 10])])
def test_fewer_picks_than_forced_blocks_keep_the_lowest_forced(k, expected):
    """K <= 3: the forced slots 0, nSel-2, nSel-1 tie at +inf, so the stable order keeps the
    lowest of them; slot 3, the best unforced one (hot key 14, as above), is left out."""
    length, d1 = 40, 16
    keys = np.zeros((length, d1))
    keys[14] = 8.0
    rng = np.random.default_rng(7100)
    inputs = make_inputs(rng, l=32, d=16, l_sel=64, k=k, cmp_lens=[length], n1=4, n2=1,
                         d1=d1, d2=16, scale=1.0, keys=[keys], queries=np.ones((1, 4, d1)))
    _, topk = check(inputs)
    assert topk[0, 0].tolist() == expected


@pytest.mark.parametrize("l, d, l_sel, length, k", [
    (32, 16, 64, 300, 20), (16, 16, 16, 50, 50), (48, 32, 96, 77, 12), (128, 64, 128, 500, 40)])
def test_equal_scores_go_to_the_lower_index(l, d, l_sel, length, k):
    """Identical keys give identical logits, so P_cmp is exactly uniform and every selection
    block s >= 1 whose indices (l'/d)(s+1) - i all lie below L has the same score, in any order
    of summation. Expected: the forced 0, nSel-2, nSel-1, then 1, 2, 3, ... (K = nSel for
    (16, 16, 16): the whole ranking)."""
    rng = np.random.default_rng(8000 + length)
    keys = np.tile(rng.standard_normal((1, 2 * 32)), (length, 1))
    inputs = make_inputs(rng, l=l, d=d, l_sel=l_sel, k=k, cmp_lens=[length, length],
                         keys=[keys, keys])
    _, topk = check(inputs)
    n_sel = math.ceil(((length - 1) * d + l) / l_sel)
    assert (l_sel // d) * (k - 2) <= length - 1  # blocks 1 .. k-3 are full
    expected = [0, n_sel - 2, n_sel - 1, *range(1, k - 2)]
    assert np.all(topk == np.array(expected))


def test_periodic_keys_tie_every_full_block():
    """Keys repeating with period l'/d make P_cmp periodic for each head (different heads see
    different patterns), so every full selection block sums the same values in the same order:
    the blocks after the forced ones are 1, 2, 3, ... and the partial blocks near the end lose."""
    l, d, l_sel, length = 64, 32, 128, 200
    period = l_sel // d
    rng = np.random.default_rng(9000)
    pattern = rng.standard_normal((period, 2 * 32))
    keys = np.tile(pattern, (length // period + 1, 1))[:length]
    inputs = make_inputs(rng, l=l, d=d, l_sel=l_sel, k=10, cmp_lens=[length], keys=[keys])
    _, topk = check(inputs)
    n_sel = math.ceil(((length - 1) * d + l) / l_sel)
    assert topk[0].tolist() == [[0, n_sel - 2, n_sel - 1, 1, 2, 3, 4, 5, 6, 7]] * 2


def test_largest_head_dims_fp16():
    """D1 = 192, D2 = 128 (the largest legal), block size 128, G = 16."""
    rng = np.random.default_rng(10000)
    check(make_inputs(rng, l=64, d=32, l_sel=128, k=9, cmp_lens=[300, 129], n1=32, n2=2,
                      d1=192, d2=128, page=128, dtype=FP16, scale=0.07))


def test_reserved_parameters_change_nothing():
    rng = np.random.default_rng(11000)
    inputs = make_inputs(rng, l=32, d=16, l_sel=64, k=5, cmp_lens=[50, 70])
    output, topk = nsa_compress_attention_infer(**inputs)
    output2, topk2 = nsa_compress_attention_infer(
        **inputs, topk_mask=np.zeros((2, 1, 100), bool), sparse_mode=3)
    np.testing.assert_array_equal(output.astype(np.float32), output2.astype(np.float32))
    np.testing.assert_array_equal(topk, topk2)


def test_seed_example_c4():
    """The seed's call example (catalog C4): every input 1.0 (fp16), every block-table entry 1,
    L = 4096 for 20 batches, N1 = 64, N2 = 4, D1 = 192, D2 = 128, l = 32, d = 16, l' = 64, K = 16.
    Uniform P gives output 1.0 and nSel = ceil(65552 / 64) = 1025 blocks whose full ones tie."""
    batch, n1, n2, d1, d2, length = 20, 64, 4, 192, 128, 4096
    inputs = dict(
        query=np.ones((batch, n1, d1), np.float16),
        key=np.ones((640, 128, n2 * d1), np.float16),
        value=np.ones((640, 128, n2 * d2), np.float16),
        scale_value=0.088388, head_num=n1, key_value_head_num=n2, select_block_size=64,
        select_block_count=16, page_block_size=128, compress_block_size=32, compress_stride=16,
        block_table=np.ones((batch, 32), np.int32), actual_cmp_seq_kvlen=[length] * batch,
        layout="TND", sparse_mode=0)
    output, topk = nsa_compress_attention_infer(**inputs)
    assert output.shape == (batch, n1, d2) and output.dtype == np.float16
    assert np.all(output == 1.0)
    assert topk.shape == (batch, n2, 16)
    assert np.all(topk == np.array([0, 1023, 1024, *range(1, 14)], np.int32))

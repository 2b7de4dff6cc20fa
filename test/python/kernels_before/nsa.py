"""CPU kernel of `mla.nsa_compress_attention_infer` (aclnnNsaCompressAttentionInfer, seed 003).

The compressed-attention branch of Native Sparse Attention at decode, fused with the
selection-block importance score and top-K. Symbols: l = compress_block_size,
d = compress_stride, l' = select_block_size, K = select_block_count, G = head_num /
key_value_head_num, L = actual_cmp_seq_kvlen[b] (compressed keys of batch b). Per query token
and query head h, over the L compressed keys of the batch (seed formulas):

    P_cmp     = softmax(scale_value * q . K^T)
    output    = P_cmp . V
    P_slc[j]  = sum_{m < l'/d} sum_{n < l/d} P_cmp[(l'/d) * j - m - n]
    P_slc'    = sum over the G query heads h of one kv head of P_slc^h
    topk      = indices of the K largest P_slc'

Choices where the seed is silent (spec/mla_prolog_and_nsa.md B3.3 and B8; "device" means the
public Ascend kernel, NON-SEED EVIDENCE, which spec/numerics.md asks us to follow):

- Symbols (B8 N1): l, l', d as above. GQA (N7): query head h uses kv head h // G. The key and
  value last axis (N2*D) is head-major (N8).
- Selection blocks (N4): nSel = ceil(((L - 1) * d + l) / l').
- Index base (N2): output slot s holds the formula's P_slc[s + 1] (device); terms whose P_cmp
  index falls outside [0, L) are dropped. l/d is floored when d does not divide l (N3).
- Accumulation order (N12): the double sum is evaluated as the device does, in float32: index
  offset i = m + n occurs conv(ones(l'/d), ones(l/d))[i] times, and slot s accumulates
  weight_i * P_cmp[(l'/d)(s+1) - i] for i = 0, 1, ... in that order; the G heads of a group are
  then added one after the other. The scores come from the float32 probabilities (before the
  rounding that feeds P . V).
- Forced blocks (N5): slots 0, nSel - 2 and nSel - 1 score +inf before the top-K, so they are
  always selected (the initial block and the two local ones).
- Top-K order (N6): descending score; ties go to the lower index (a stable sort). The forced
  slots therefore come first, in increasing index order. Slots beyond nSel (only if K > nSel,
  which the constraints forbid) hold -1.
- Precision (N12): q . K^T accumulates in float32 from the bf16/fp16 inputs, then is multiplied
  by scale_value rounded to float32 (the device's Muls); softmax in float32; the probabilities
  are rounded to the input dtype (round half to even) before P . V, which accumulates in
  float32; the output is rounded half to even to the output's type: FLOAT16 or BFLOAT16, the
  query's by default (N18's "output dtype = query dtype" is NON-SEED EVIDENCE, so IR may choose
  the other one; the kernel receives the result types).
- Query tokens (N9): Q_S = max(actual_seq_qlen), or 1 when it is absent. actual_seq_qlen holds
  per-batch lengths (not cumulative). TND: T = sum(actual_seq_qlen) (T = B when absent), the
  tokens of batch b packed after those of batch b - 1. BSND: the first actual_seq_qlen[b] rows
  of batch b are the tokens (all S1 rows when absent).
- Unused BSND rows (rows at or beyond actual_seq_qlen[b]; the device leaves them unwritten):
  output 0 and topk_indices -1. BSND topk_indices has shape (B, S1, N2, K) (N10).
- Attention mask (N11): its content is never read (device). When it is given and Q_S > 1, the
  implicit causal rule applies: token i of the q_len tokens of batch b sits at position
  actual_sel_seq_kvlen[b] - q_len + i of the uncompressed sequence, and the last compressed
  key, whose window ends at (L - 1) * d + l, is masked (its score set to -3e38 after scaling,
  the device's constant) when that window ends after the token. Earlier windows end at least
  d >= 16 positions sooner and are always visible since Q_S <= 4.
  Without a mask nothing is masked, as the device does: its tiling sets attenMaskFlag only for
  a non-null mask (ops-transformer nsa_compress_attention_infer_tiling.cpp, CheckAttenMask) and
  the kernel applies MaskApply only under that flag (nsa_compress_attention_infer.h,
  SoftmaxCompute); the seed says the mask "takes effect only when Q_S > 1" (003 L71). CANN's ST
  golden masks whenever Q_S > 1 because it hard-codes mask_type = 1, but its case list passes
  attentionMaskOptional in all 191 cases, so it never compares the maskless case.
- Reserved parameters: topk_mask and sparse_mode are ignored (N20). scale_value is used as
  given, whatever head dim it was derived from (N19).
- The kernel assumes verified input (dialect verifier): L >= 1 for every batch, valid
  block_table entries, K <= nSel.
"""
from __future__ import annotations

import math

import numpy as np

from ascend_mla.dialect.types import numpy_dtype

from . import kernel
from .common import f32, mm, round_to

MASKED_SCORE = np.float32(-3e38)  # the device writes this score into a masked position
FORCED_SCORE = np.float32(np.inf)  # the device forces the initial and local blocks with +inf
UNUSED_INDEX = -1


@kernel("mla.nsa_compress_attention_infer")
def nsa_compress_attention_infer(*, query, key, value, atten_mask, block_table, topk_mask,
                                 scale_value, head_num, key_value_head_num, select_block_size,
                                 select_block_count, page_block_size, compress_block_size,
                                 compress_stride, actual_seq_qlen, actual_cmp_seq_kvlen,
                                 actual_sel_seq_kvlen, layout, sparse_mode, result_types=None):
    del topk_mask, sparse_mode  # reserved by the seed ("预留参数，暂未使用")
    io_dtype = query.dtype      # P is rounded to the input dtype before P . V
    # The output may be FLOAT16 or BFLOAT16 whatever the query is (seed parameter table).
    out_dtype = numpy_dtype(result_types["output"].dtype) if result_types else query.dtype
    batch = len(actual_cmp_seq_kvlen)
    n2 = key_value_head_num
    d1 = query.shape[-1]
    d2 = value.shape[-1] // n2
    q_lens = _tokens_per_batch(layout, query.shape, batch, actual_seq_qlen)
    masking = atten_mask is not None and max(q_lens) > 1
    blocks = _SelectionBlocks(compress_block_size, compress_stride, select_block_size)

    q_rows = f32(query).reshape(-1, head_num, d1)          # one row per (padded) token
    out_rows = np.zeros((q_rows.shape[0], head_num, d2), np.float32)
    topk_rows = np.full((q_rows.shape[0], n2, select_block_count), UNUSED_INDEX, np.int32)

    for b, first_row in enumerate(_first_rows(layout, query.shape, q_lens)):
        tokens = slice(first_row, first_row + q_lens[b])
        cmp_len = actual_cmp_seq_kvlen[b]
        keys = _gather_paged(key, block_table[b], cmp_len, page_block_size, n2)
        values = _gather_paged(value, block_table[b], cmp_len, page_block_size, n2)
        masked = _last_window_masked(q_lens[b], actual_sel_seq_kvlen[b], cmp_len, blocks) \
            if masking else np.zeros(q_lens[b], bool)

        probs = _attention_probs(q_rows[tokens], keys, scale_value, masked)  # (N2, q, G, L)
        out_rows[tokens] = _merge_heads(_probs_times_values(probs, values, io_dtype))
        group_scores = _group_sum(blocks.importance_scores(probs, cmp_len))  # (N2, q, nSel)
        topk_rows[tokens] = _top_k(group_scores, select_block_count).transpose(1, 0, 2)

    out_shape = (*query.shape[:-1], d2)
    topk_shape = (*query.shape[:-2], n2, select_block_count)
    output = out_rows.astype(out_dtype)  # round half to even
    return output.reshape(out_shape), topk_rows.reshape(topk_shape)


# ---------------------------------------------------------------- tokens and paged caches

def _tokens_per_batch(layout, query_shape, batch, actual_seq_qlen) -> list[int]:
    if actual_seq_qlen is not None:
        return [int(n) for n in actual_seq_qlen]
    return [1 if layout == "TND" else query_shape[1]] * batch


def _first_rows(layout, query_shape, q_lens) -> list[int]:
    """Row of the first token of each batch in the query flattened to (rows, N1, D1)."""
    if layout == "TND":
        return [int(r) for r in np.cumsum([0, *q_lens[:-1]])]
    return [b * query_shape[1] for b in range(len(q_lens))]


def _gather_paged(cache, table_row, length, block_size, n2) -> np.ndarray:
    """Positions [0, length) of one sequence from a (blockNum, blockSize, N2*D) paged cache,
    as (N2, length, D) float32: position p lives in block table_row[p // blockSize]."""
    positions = np.arange(length)
    rows = cache[table_row[positions // block_size], positions % block_size]
    return np.ascontiguousarray(f32(rows).reshape(length, n2, -1).transpose(1, 0, 2))


def _last_window_masked(q_len, sel_len, cmp_len, blocks) -> np.ndarray:
    """Per token of the batch: does the last compressed window end after the token? The q_len
    tokens are the last ones of the sel_len uncompressed positions."""
    token_positions = sel_len - q_len + np.arange(q_len)
    last_window_end = (cmp_len - 1) * blocks.stride + blocks.size
    return last_window_end > token_positions + 1


# ---------------------------------------------------------------- attention

def _attention_probs(q, keys, scale_value, masked) -> np.ndarray:
    """softmax(scale * q . K^T) in float32, as (N2, tokens, G, L).

    q: (tokens, N1, D1); keys: (N2, L, D1); masked: (tokens,) bool for the last key."""
    tokens, n1, d1 = q.shape
    n2, length, _ = keys.shape
    group = n1 // n2
    q_by_kv_head = q.reshape(tokens, n2, group, d1).transpose(1, 0, 2, 3).reshape(n2, -1, d1)
    scores = mm(q_by_kv_head, keys.transpose(0, 2, 1))
    scores = scores.reshape(n2, tokens, group, length) * np.float32(scale_value)
    scores[:, masked, :, length - 1] = MASKED_SCORE
    return _softmax(scores)


def _softmax(x) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _probs_times_values(probs, values, io_dtype) -> np.ndarray:
    """P . V with P rounded to the input dtype first: (N2, tokens, G, L) x (N2, L, D2)."""
    n2, tokens, group, length = probs.shape
    p = round_to(probs, io_dtype).reshape(n2, tokens * group, length)
    return mm(p, values).reshape(n2, tokens, group, -1)


def _merge_heads(per_kv_head) -> np.ndarray:
    """(N2, tokens, G, D) -> (tokens, N1, D): query head h2 * G + g belongs to kv head h2."""
    n2, tokens, group, dim = per_kv_head.shape
    return per_kv_head.transpose(1, 0, 2, 3).reshape(tokens, n2 * group, dim)


# ---------------------------------------------------------------- importance and top-K

class _SelectionBlocks:
    """The geometry of compression windows (size l, stride d) and selection blocks (size l')."""

    def __init__(self, size, stride, select_size):
        self.size, self.stride, self.select_size = size, stride, select_size
        self.windows_per_block = select_size // stride      # l'/d, exact by constraint
        windows_per_window = size // stride                 # l/d, floored (N3)
        # sum_m sum_n f(m + n) = sum_i weight[i] * f(i): weight[i] counts the (m, n) with m+n = i
        self.offset_weights = np.convolve(np.ones(self.windows_per_block, np.int64),
                                          np.ones(windows_per_window, np.int64))

    def count(self, cmp_len) -> int:
        uncompressed_ceil = (cmp_len - 1) * self.stride + self.size
        return math.ceil(uncompressed_ceil / self.select_size)

    def importance_scores(self, probs, cmp_len) -> np.ndarray:
        """P_slc[..., s] = sum_i weight[i] * P_cmp[..., (l'/d)(s+1) - i], float32, in the device's
        order; out-of-range indices are dropped."""
        slots = np.arange(self.count(cmp_len))
        scores = np.zeros((*probs.shape[:-1], slots.size), np.float32)
        for offset, weight in enumerate(self.offset_weights):
            index = self.windows_per_block * (slots + 1) - offset
            inside = (index >= 0) & (index < cmp_len)
            scores[..., inside] += np.float32(weight) * probs[..., index[inside]]
        return scores


def _group_sum(scores) -> np.ndarray:
    """(N2, tokens, G, nSel) -> (N2, tokens, nSel), adding the G heads one after the other."""
    total = np.zeros_like(scores[:, :, 0])
    for head in range(scores.shape[2]):
        total += scores[:, :, head]
    return total


def _top_k(scores, k) -> np.ndarray:
    """Indices of the k best slots (+ the forced ones), descending, ties to the lower index."""
    n_sel = scores.shape[-1]
    scores = scores.copy()
    scores[..., [0, max(n_sel - 2, 0), n_sel - 1]] = FORCED_SCORE
    order = np.argsort(-scores, axis=-1, kind="stable")[..., :k].astype(np.int32)
    if k > n_sel:  # not reachable with verified input (select_block_count <= nSel)
        pad = np.full((*order.shape[:-1], k - n_sel), UNUSED_INDEX, np.int32)
        order = np.concatenate([order, pad], axis=-1)
    return order

"""CPU kernels of DeepSeek Sparse Attention's indexers and sparse attentions (dialect/dsa/):
`mla.lightning_indexer`, `mla.quant_lightning_indexer`, `mla.sparse_flash_attention` (with V2's
sinks) and `mla.kv_quant_sparse_flash_attention`. The arithmetic follows the DSA reference's
math and the device's rounding points (docs/dsa.md, "Numerics"):

Lightning indexer, per batch b, query row i, and the visible keys j:
    score[j] = sum_h w[i,h] * relu(q[i,h,:] . k[j,:])     q, k, w upcast to fp32; fp32 sums
    visible: j < act_k (sparse_mode 0), j <= act_k - act_q + i (3)
    sparse_indices[i] = the min(sparse_count, |visible|) highest scores, in descending order;
                        ties: the lower index first (a stable descending sort); then -1
    sparse_values = the scores at those indices rounded to the query's type, -inf at -1
  Query rows past act_q (BSND padding) and rows that see nothing are all -1.
Quantized indexer: score[j] = sum_h fp16(w_h * sq_h) * relu(q8 . k8) * sk_j, the int8 products
  exact (fp32 holds 128 * 127 * 127 exactly), the rest fp32.

Sparse flash attention, per query row i (t = act_kv, or act_kv - act_q + i + 1 in mode 3):
    a row with t <= 0 (mode 3: i < act_q - act_kv) is 0;
    the row's first min(sparse_size, ceil(t / sbs)) indices e are read up to the first -1;
    each names tokens [e*sbs, min(e*sbs + sbs, act_kv)) clipped at t (duplicates count twice);
    no token: the row is 0;
    x = scale * [q | q_rope] . [k | k_rope]^T  (fp32); m = max(x[, sink]);
    P = exp(x - m) / (sum exp(x - m) [+ exp(sink - m)])   (fp32)
    out = round_q(P) . V   (P rounded to the query's type, fp32 sums), rounded to the query's type
    softmax_max = m, softmax_sum = the denominator; an empty row: (-inf, 0), with a sink (sink, 1)
KV-quantized: each 656-byte key row is [512 int8 | 64 bf16 rope | 4 fp32 scales]; the latent
  k = int8 * scale[tile of 128], rounded to the query's type; K = [k | rope], V = k.

The kernels assume the verifier accepted the call (layouts, shapes, lengths, block table).
"""
from __future__ import annotations

import math

import numpy as np

from ...dialect.dsa import KvQuantSparseFlashAttention, LightningIndexer, QuantLightningIndexer, SparseFlashAttention
from . import kernel
from .common import bfloat16, f32, round_to

ROW_CHUNK = 64           # query rows scored at once (bounds the (rows, N1, T) fp32 product)


# --------------------------------------------------------------------------------------------
# layouts: which query rows and which key rows belong to a batch
# --------------------------------------------------------------------------------------------

class Layout:
    """The batches of one call: query rows (into the (rows, N, D) flattened query) and the kv
    positions of each batch, through the kv layout (BSND, TND or PA_BSND with a block table)."""

    def __init__(self, query, key, layout_query, layout_kv, lengths_q, lengths_kv, block_table):
        self.tnd = layout_query == "TND"
        self.layout_kv = layout_kv
        if self.tnd:
            ends = np.asarray(lengths_q, np.int64).reshape(-1)
            starts = np.concatenate([[0], ends[:-1]])
            self.q_rows = [np.arange(s, e) for s, e in zip(starts.tolist(), ends.tolist())]
            self.q_rows_total = query.shape[0]
        else:
            batch, s1 = query.shape[:2]
            counts = [s1] * batch if lengths_q is None else np.asarray(lengths_q, np.int64).reshape(-1).tolist()
            self.q_rows = [b * s1 + np.arange(n) for b, n in enumerate(counts)]
            self.q_rows_total = batch * s1
        self.batch = len(self.q_rows)
        if layout_kv == "TND":
            ends = np.asarray(lengths_kv, np.int64).reshape(-1)
            self.kv_start = np.concatenate([[0], ends[:-1]])
            self.kv_len = ends - self.kv_start
            self.kv_flat = key.reshape(key.shape[0], -1)
        elif layout_kv == "BSND":
            s2 = key.shape[1]
            self.kv_len = (np.full(key.shape[0], s2, np.int64) if lengths_kv is None
                           else np.asarray(lengths_kv, np.int64).reshape(-1))
            self.kv_start = np.arange(key.shape[0], dtype=np.int64) * s2
            self.kv_flat = key.reshape(key.shape[0] * s2, -1)
        else:
            self.kv_len = np.asarray(lengths_kv, np.int64).reshape(-1)
            self.block_size = key.shape[1]
            self.block_table = np.asarray(block_table, np.int64)
            self.kv_flat = key.reshape(key.shape[0] * key.shape[1], -1)

    def kv_index(self, b: int, positions) -> np.ndarray:
        """Rows of the flattened key (tokens, N2*D) of batch b's logical positions."""
        positions = np.asarray(positions, np.int64)
        if self.layout_kv == "PA_BSND":
            blocks = self.block_table[b, positions // self.block_size]
            return blocks * self.block_size + positions % self.block_size
        return self.kv_start[b] + positions

    def rows(self, tensor, b: int, positions) -> np.ndarray:
        """tensor's rows (flattened like the key) at batch b's positions."""
        flat = tensor.reshape(self.kv_flat.shape[0], -1)
        return flat[self.kv_index(b, positions)]


def _flat_query(x):
    """(rows, N, D) of a BSND (B, S, N, D) or TND (T, N, D) tensor."""
    return x.reshape(-1, *x.shape[-2:])


def _visible_limit(mode: int, act_q: int, act_kv: int, i):
    """The number of visible keys of query row i (may be <= 0)."""
    return act_kv if mode == 0 else act_kv - act_q + i + 1


# --------------------------------------------------------------------------------------------
# the lightning indexers
# --------------------------------------------------------------------------------------------

def top_k(scores: np.ndarray, counts: np.ndarray, k: int):
    """Per row of `scores` (rows, T, masked entries -inf), the indices of the min(k, counts[r])
    largest entries in descending order, ties lower index first, -1 after them; and the scores
    at them (-inf at -1)."""
    rows, width = scores.shape
    indices = np.full((rows, k), -1, np.int32)
    values = np.full((rows, k), -np.inf, np.float32)
    if width == 0 or rows == 0:
        return indices, values
    take = min(k, width)
    order = np.argsort(-scores, axis=1, kind="stable")[:, :take]
    picked = np.take_along_axis(scores, order, axis=1)
    valid = np.arange(take)[None, :] < np.minimum(counts, take)[:, None]
    indices[:, :take] = np.where(valid, order, -1)
    values[:, :take] = np.where(valid, picked, -np.inf)
    return indices, values


def _index_scores(q, k, w, k_scale=None):
    """(rows, N1, D) x (T, D) -> (rows, T): sum_h w[r,h] * relu(q[r,h] . k[j]) [* k_scale[j]],
    fp32 (the products of the quantized indexer's int8 values are exact in fp32)."""
    rows, heads, d = q.shape
    s = q.reshape(rows * heads, d) @ k.T                      # (rows*N1, T)
    np.maximum(s, 0, out=s)
    score = np.matmul(w[:, None, :], s.reshape(rows, heads, -1))[:, 0, :]
    if k_scale is not None:
        score *= k_scale[None, :]
    return score


def _indexer(query, key, weights, layout, *, sparse_count, sparse_mode, q_scale=None, k_scale=None):
    """(indices (rows, N2=1, K) int32, scores (rows, 1, K) fp32) of every query row."""
    q = _flat_query(query)
    rows_total = q.shape[0]
    w = f32(weights).reshape(rows_total, -1)
    if q_scale is not None:        # the quantized form: fp16(w * sq)
        w = round_to(w * f32(q_scale).reshape(rows_total, -1), np.float16)
    indices = np.full((rows_total, 1, sparse_count), -1, np.int32)
    values = np.full((rows_total, 1, sparse_count), -np.inf, np.float32)
    for b in range(layout.batch):
        rows = layout.q_rows[b]
        act_q, act_k = len(rows), int(layout.kv_len[b])
        if act_q == 0 or act_k <= 0:
            continue
        keys = f32(layout.rows(key, b, np.arange(act_k)))                 # (act_k, D)
        ks = None if k_scale is None else f32(layout.rows(k_scale, b, np.arange(act_k))).reshape(-1)
        for lo in range(0, act_q, ROW_CHUNK):
            chunk = rows[lo:lo + ROW_CHUNK]
            i = np.arange(lo, lo + len(chunk))
            score = _index_scores(f32(q[chunk]), keys, w[chunk], ks)
            limit = np.clip(np.broadcast_to(_visible_limit(sparse_mode, act_q, act_k, i), i.shape), 0, act_k)
            score[np.arange(act_k)[None, :] >= limit[:, None]] = -np.inf
            idx, val = top_k(score, limit, sparse_count)
            indices[chunk, 0] = idx
            values[chunk, 0] = val
    return indices, values


def _rows_shape(query, layout_query, k):
    return (*query.shape[:(1 if layout_query == "TND" else 2)], 1, k)


@kernel(LightningIndexer)
def lightning_indexer(*, query, key, weights, actual_seq_lengths_query=None,
                      actual_seq_lengths_key=None, block_table=None, layout_query, layout_key,
                      sparse_count, sparse_mode, pre_tokens, next_tokens, return_value):
    layout = Layout(query, key, layout_query, layout_key, actual_seq_lengths_query,
                    actual_seq_lengths_key, block_table)
    indices, scores = _indexer(query, key, weights, layout, sparse_count=sparse_count,
                               sparse_mode=sparse_mode)
    shape = _rows_shape(query, layout_query, sparse_count)
    if return_value:
        values = scores.reshape(shape).astype(query.dtype)
    else:
        values = np.zeros((0,), query.dtype)
    return indices.reshape(shape), values


@kernel(QuantLightningIndexer)
def quant_lightning_indexer(*, query, key, weights, query_dequant_scale, key_dequant_scale,
                            actual_seq_lengths_query=None, actual_seq_lengths_key=None,
                            block_table=None, query_quant_mode, key_quant_mode, layout_query,
                            layout_key, sparse_count, sparse_mode, pre_tokens, next_tokens,
                            query_dtype, key_dtype):
    layout = Layout(query, key, layout_query, layout_key, actual_seq_lengths_query,
                    actual_seq_lengths_key, block_table)
    indices, _ = _indexer(query, key, weights, layout, sparse_count=sparse_count,
                          sparse_mode=sparse_mode, q_scale=query_dequant_scale,
                          k_scale=key_dequant_scale)
    return (indices.reshape(_rows_shape(query, layout_query, sparse_count)),)


# --------------------------------------------------------------------------------------------
# the sparse flash attentions
# --------------------------------------------------------------------------------------------

def selected_positions(indices, t: int, act_kv: int, sparse_block_size: int) -> np.ndarray:
    """The kv positions one query row attends: its first min(sparse_size, ceil(t / sbs))
    entries up to the first -1, each a block [e*sbs, min(e*sbs + sbs, act_kv)) clipped at t
    (entries at or past t skipped; duplicates kept)."""
    if t <= 0:
        return np.zeros((0,), np.int64)
    n_valid = min(len(indices), math.ceil(t / sparse_block_size))
    entries = np.asarray(indices[:n_valid], np.int64)
    stop = np.flatnonzero(entries == -1)
    if stop.size:
        entries = entries[:stop[0]]
    lo = entries * sparse_block_size
    entries, lo = entries[lo < t], lo[lo < t]
    if sparse_block_size == 1:
        return lo
    hi = np.minimum(np.minimum(lo + sparse_block_size, act_kv), t)
    return np.concatenate([np.arange(a, b) for a, b in zip(lo.tolist(), hi.tolist())] or
                          [np.zeros((0,), np.int64)])


class KvSource:
    """K = [k | k_rope] and V rows of a batch's positions, fp32 (values of the query's type)."""

    def __init__(self, layout, key, value, key_rope=None):
        self.layout, self.key, self.value, self.key_rope = layout, key, value, key_rope

    def kv(self, b, positions, compute_dtype):
        k = f32(self.layout.rows(self.key, b, positions))
        v = k if self.value is self.key else f32(self.layout.rows(self.value, b, positions))
        if self.key_rope is not None:
            k = np.concatenate([k, f32(self.layout.rows(self.key_rope, b, positions))], axis=-1)
        return k, v


class PackedKvSource(KvSource):
    """The 656-byte rows of the KV-quantized cache: [512 int8 | 64 bf16 | 4 fp32 scales]."""

    def kv(self, b, positions, compute_dtype):
        rows = np.ascontiguousarray(self.layout.rows(self.key, b, positions)).view(np.int8)
        nope = unpack_latent(rows, compute_dtype)
        rope = f32(rows[:, 512:640].copy().view(bfloat16))
        v = nope if self.value is self.key else unpack_latent(
            np.ascontiguousarray(self.layout.rows(self.value, b, positions)).view(np.int8), compute_dtype)
        return np.concatenate([nope, rope], axis=-1), v


def unpack_latent(rows: np.ndarray, compute_dtype) -> np.ndarray:
    """The dequantized 512-value latent of packed rows (n, 656) int8: int8 * the scale of its
    tile of 128, rounded to the compute dtype (float32 values)."""
    scales = rows[:, 640:656].copy().view(np.float32)                 # (n, 4)
    values = rows[:, :512].astype(np.float32).reshape(-1, 4, 128) * scales[:, :, None]
    return round_to(values.reshape(-1, 512), compute_dtype)


def _sparse_attention(query, query_rope, indices, source: KvSource, layout, *, scale_value,
                      sparse_block_size, sparse_mode, sinks, lse, d_out):
    """(out (rows, N1, d_out) fp32 already rounded, softmax_max, softmax_sum (rows, N1))."""
    compute_dtype = query.dtype
    q = f32(_flat_query(query))
    if query_rope is not None:
        q = np.concatenate([q, f32(_flat_query(query_rope))], axis=-1)
    rows_total, heads, _ = q.shape
    idx = np.asarray(indices).reshape(rows_total, -1)
    out = np.zeros((rows_total, heads, d_out), np.float32)
    row_max = np.full((rows_total, heads), -np.inf, np.float32)
    row_sum = np.zeros((rows_total, heads), np.float32)
    sink = None if sinks is None else f32(sinks).reshape(heads)
    if sink is not None:
        row_max[:], row_sum[:] = sink[None, :], 1.0
    for b in range(layout.batch):
        rows = layout.q_rows[b]
        act_q, act_kv = len(rows), int(layout.kv_len[b])
        for i, r in enumerate(rows.tolist()):
            t = _visible_limit(sparse_mode, act_q, act_kv, i)
            positions = selected_positions(idx[r], min(t, act_kv), act_kv, sparse_block_size)
            if positions.size == 0:
                continue
            k, v = source.kv(b, positions, compute_dtype)
            x = (q[r] @ k.T) * np.float32(scale_value)                        # (N1, |S|)
            m = x.max(axis=1)
            if sink is not None:
                m = np.maximum(m, sink)
            e = np.exp(x - m[:, None])
            denominator = e.sum(axis=1)
            if sink is not None:
                denominator = denominator + np.exp(sink - m)
            p = round_to(e / denominator[:, None], compute_dtype)
            out[r] = p @ v
            row_max[r], row_sum[r] = m, denominator
    return round_to(out, compute_dtype), row_max, row_sum


def _lse(values, query, layout_query):
    """(rows, N1) -> (B, N2=1, S1, G) or (N2=1, T1, G)."""
    if layout_query == "TND":
        return values[None]
    batch, s1 = query.shape[:2]
    return values.reshape(batch, s1, -1)[:, None]


@kernel(SparseFlashAttention)
def sparse_flash_attention(*, query, key, value, sparse_indices, block_table=None,
                           actual_seq_lengths_query=None, actual_seq_lengths_kv=None,
                           query_rope=None, key_rope=None, sinks=None, scale_value,
                           sparse_block_size, layout_query, layout_kv, sparse_mode, pre_tokens,
                           next_tokens, attention_mode, return_softmax_lse):
    layout = Layout(query, key, layout_query, layout_kv, actual_seq_lengths_query,
                    actual_seq_lengths_kv, block_table)
    source = KvSource(layout, key, value, key_rope)
    out, row_max, row_sum = _sparse_attention(
        query, query_rope, sparse_indices, source, layout, scale_value=scale_value,
        sparse_block_size=sparse_block_size, sparse_mode=sparse_mode, sinks=sinks,
        lse=return_softmax_lse, d_out=value.shape[-1])
    attention_out = out.reshape(query.shape).astype(query.dtype)
    if not return_softmax_lse:
        empty = np.zeros((0,), np.float32)
        return attention_out, empty, empty.copy()
    return (attention_out, _lse(row_max, query, layout_query),
            _lse(row_sum, query, layout_query))


@kernel(KvQuantSparseFlashAttention)
def kv_quant_sparse_flash_attention(*, query, key, value, sparse_indices, key_dequant_scale=None,
                                    value_dequant_scale=None, block_table=None,
                                    actual_seq_lengths_query=None, actual_seq_lengths_kv=None,
                                    sinks=None, scale_value, key_quant_mode, value_quant_mode,
                                    sparse_block_size, layout_query, layout_kv, sparse_mode,
                                    pre_tokens, next_tokens, attention_mode, quant_scale_repo_mode,
                                    tile_size, rope_head_dim, key_dtype, value_dtype):
    layout = Layout(query, key, layout_query, layout_kv, actual_seq_lengths_query,
                    actual_seq_lengths_kv, block_table)
    source = PackedKvSource(layout, key, value)
    d_out = query.shape[-1] - rope_head_dim
    out, _, _ = _sparse_attention(
        query, None, sparse_indices, source, layout, scale_value=scale_value,
        sparse_block_size=sparse_block_size, sparse_mode=sparse_mode, sinks=sinks, lse=False,
        d_out=d_out)
    return (out.reshape(*query.shape[:-1], d_out).astype(query.dtype),)

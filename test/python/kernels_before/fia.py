"""CPU kernel of `mla.fused_infer_attention_score` (aclnnFusedInferAttentionScoreV2 + MLA mode).

    out = softmax(s) . V,   s = (Q . K^T [* dequant_scale1] + pse_shift) * scale_value, masked

for every batch row b and key/value head h at once for the G = N / KV_N query heads sharing h:
batch rows with the same query rows and kv length form a group, and a group's scores are one
batched matmul (Bg*KV_N, G*S1, D) x (Bg*KV_N, D, L). In MLA mode (query_rope / key_rope given)
the rope parts are concatenated to the head dim, so with the single latent head the scores are
the absorbed form (B, N*S1, 576) x (B, 576, L), and V is the first 512 columns of the same
gathered latent rows. Page attention gathers (and converts to float32) the blocks of a batch row
once; a contiguous run of block ids is read as a view. bf16 caches without antiquant (the MLA
decode case) are gathered for a whole group with one index per cache, straight into a float32
workspace kept between calls (_gather_bf16_pages). The hot matmuls and the softmax run in
torch when it can be imported, NumPy otherwise; ASCEND_MLA_MATMUL=numpy|torch forces one.

Spec: shared/spec/fused_infer_attention_score_v2.md (section 1.22 is the interpreter this follows)
and spec/numerics.md ("FIA in MLA mode"). The kernel assumes the verifier has accepted the call.

Layouts: BSH, BSND, BNSD, BNSD_BSND, and the TND layouts (TND, TND_NTD, NTD_TND; S2), computed
as a packing of BNSD (class _Tnd): batch b's tokens padded into a (B, N, Q_S, D) query, a
packed key/value split into a per-batch tensor list, output and lse packed back; their masks
and query rows are those of the prompt branch whatever the longest batch.

Resolutions of the SEED SILENT register (section 9), all as Recommended:
  S3  query head n uses kv head n // G.
  S4  s = (Q.K^T * dequant_scale1 + pse_shift) * scale_value, then the mask.
  S5  mask value 1 / True = masked.
  S6  sparse_mode 2/3/4: the 2048 x 2048 template's values are not read; the band comes from
      positions (2: j > i, 3: j > i + L - S1, 4: bottom-right band of pre/next_tokens).
  S8  mask and pse_shift are indexed physically: row q_start + i, column kv_start + j.
  S9, S10  sparse 0 with a mask adds the top-left band j < i - pre_tokens or j > i + next_tokens
      (not under left padding); sparse 1 uses the mask alone.
  S11 with a shared prefix the band and mask columns run over [prefix ; kv], L = P + askv.
  S12 query rows outside the valid range (actual_seq_lengths, left padding) are zero.
  S13 a row with no unmasked key (or askv + P == 0) gives output 0 and lse -inf. This is done
      for every inner_precise value (S15): the uncorrected device output is undefined, so the
      correction of inner_precise 2/3 is the reference definition and inner_precise has no
      further effect.
  S17 query_padding_size / kv_padding_size: element 0 is the padding of every batch row;
      negative values count as 0.
  S18 incre kv left padding uses actual_seq_lengths_kv; a start or end below 0 zeroes the row.
      In the prompt branch the same out-of-range case (UB in the seed) also gives zeros.
  S24 BNSD_BSND reads like BNSD (query, prefix) and writes BSND.
  S25 block_size is ignored without block_table.
  S27 tensor-list KV: each batch row uses its own S; mask / pse columns are indexed from 0.
  S30 the shared prefix comes first: K_b = [prefix[:P] ; K_b valid rows].
  S31 softmax_lse = logsumexp of the final logits (after dequant, pse, scale and mask), float32
      (B, N, Q_S, 1). With softmax_lse_flag False the second result is float32 zeros of shape
      (1,), what the seed returns for a null softmaxLse.
  S33 quantization rounds half to even and saturates to [-128, 127].
  S34 post-quant: out_int8 = sat(rint(O * quant_scale2[c] + quant_offset2[c])), c = n*D + d,
      applied to the float32 O; query rows outside the valid range or with no key stay 0.
  S35 full quant quantizes the UNNORMALIZED exp(s - rowmax) and divides by the row sum after
      P.V: P8 = sat(rint(exp(s - max) * quant_scale1)), O = P8.V8 * deq2 / rowsum. NON-SEED
      EVIDENCE (the device's kernel and CANN's golden; fia_quant.FullQuant lists the sources)
      over the catalog's Recommended "normalized", which quantizes every weight below
      0.5 / quant_scale1 to 0: with quant_scale1 = 127 and a long row the output was ~0.
  S36 a uint64 dequant_scale1/2 holds the float32 bit pattern in its low 32 bits.
  S37 a one-element quant_scale2 (any shape) is per-tensor.
  S42 antiquant: x = (x_int + offset) * scale (offset absent: 0).
  S43 the combined antiquant_scale/offset: index 0 = key, 1 = value.
  S44-S46 per-token scales may be longer than KV_S and are indexed by physical position (PA:
      the logical position); mode 3 is (B, KV_N, S'), mode 4 (block_num, block_size), mode 5
      (block_num, KV_N, block_size), all float32. Mode 6 raises NotImplementedError (S47).
  S51 when separate key/value antiquant parameters are given, the combined ones are ignored.
  S52-S54 INT4 packed in INT32: the innermost dim holds 8 signed nibbles per int32, element k at
      bits [4k, 4k+3]; per-channel scales use the logical (unpacked) D.

Numerics (kernel-faithful choices not fixed by the spec):
  - Scores, softmax and accumulation are float32 (products of bf16/fp16 values are exact).
  - The exponentials exp(s - rowmax) enter P.V rounded to the 16-bit compute dtype (the query
    dtype), as the Cube unit takes 16-bit inputs; the division by the float32 row sum (of the
    unrounded exponentials) follows P.V. The row max is the global one: the device's KV tiling
    only changes which max is subtracted, i.e. the result by about one bf16 ulp.
  - Antiquantized K/V are rounded to the compute dtype after (x + offset) * scale.
  - Full quant (int8 query, key, value): Q8.K8^T and P8.V8 are exact integer products; the scores,
    exp(s - max) and P8's product run in half and deq1/deq2 are 19-bit floats, as the device's
    int8 path does (fia_quant.FullQuant).
  - The output is rounded once (half to even) to the query dtype, FP16 for an INT8 query, INT8
    with quant_scale2; float32 inputs (a convenience for tests) give float32 with no rounding.

Cache formats under page attention (the query layout does not describe K/V there):
  - rank 3 (block_num, block_size, KV_N*D): BnBsH;
  - rank 4 (block_num, KV_N, block_size, D): BnNBsD; rank 4 (block_num, block_size, KV_N, D):
    the prolog's PA_BSND cache, the same memory as BnBsH (the two are told apart by which of
    dims 1 and 2 equals block_size; BnNBsD wins when both do);
  - NZ caches (the prolog's PA_NZ) are recognised by the operand being an NZTensor, the FRACTAL_NZ
    encoding on the key type: logical (block_num, block_size, KV_N*D), each block the NZ form of
    its (block_size, H) matrix, i.e. memory [H/C0, block_size, C0] per block exactly as
    numerics.md point 5 writes; or logical (block_num, KV_N, block_size, D) with [D/C0, bs, C0]
    per block and head. `ascend_mla.nz_cache_view` wraps a prolog PA_NZ array without copying.
"""
from __future__ import annotations

import sys
import threading

import numpy as np

from ascend_mla.runtime.formats import NZTensor, c0_for

from . import kernel
from .common import bfloat16, matmul_choice, mm, torch_module
from .fia_quant import FullQuant, KvDequant, MlaFullQuant, dequantize, post_quantize, unpack_int4

_BIG = 1 << 40  # pre/next_tokens beyond any sequence length (avoids int64 overflow)


# --------------------------------------------------------------------------------------------
# the kernel
# --------------------------------------------------------------------------------------------

@kernel("mla.fused_infer_attention_score")
def fused_infer_attention_score(
        *, query, key, value, pse_shift=None, atten_mask=None, actual_seq_lengths=None,
        actual_seq_lengths_kv=None, dequant_scale1=None, quant_scale1=None, dequant_scale2=None,
        quant_scale2=None, quant_offset2=None, antiquant_scale=None, antiquant_offset=None,
        block_table=None, query_padding_size=None, kv_padding_size=None,
        key_antiquant_scale=None, key_antiquant_offset=None, value_antiquant_scale=None,
        value_antiquant_offset=None, key_shared_prefix=None, value_shared_prefix=None,
        actual_shared_prefix_len=None, query_rope=None, key_rope=None, dequant_scale_query=None,
        num_heads=1, scale_value=1.0, pre_tokens=2147483647, next_tokens=2147483647,
        input_layout="BSH", num_key_value_heads=0, sparse_mode=0, inner_precise=0, block_size=0,
        antiquant_mode=0, softmax_lse_flag=False, key_antiquant_mode=0, value_antiquant_mode=0,
        query_quant_mode=0):
    layout = input_layout
    n_heads = int(num_heads)
    kv_heads = int(num_key_value_heads) or n_heads
    tnd = _Tnd(layout, actual_seq_lengths, actual_seq_lengths_kv, block_table is not None) \
        if layout in _Tnd.LAYOUTS else None
    # the MLA full-quant mode: per-(token, head) query scales, the query's shape without D
    mla_quant = dequant_scale_query is not None
    if mla_quant:
        dequant_scale_query = np.asarray(dequant_scale_query, np.float32)
        if layout != "BSH":
            dequant_scale_query = dequant_scale_query[..., None]
    if tnd is not None:                   # unpacked into BNSD: padded query, a key/value list
        query, query_rope = tnd.query(query), tnd.query(query_rope)
        dequant_scale_query = tnd.query(dequant_scale_query)
        if block_table is None:
            value = tnd.kv(value) if not _same_operand(value, key) else None
            key = tnd.kv(key)
            value = key if value is None else value
        layout, actual_seq_lengths, actual_seq_lengths_kv = "BNSD", tnd.q_lens, tnd.kv_lens
    q = _to_bnsd(np.asarray(query), layout, n_heads)               # (B, N, Q_S, D)
    batch, _, q_seq, _ = q.shape
    lse = np.full((batch, n_heads, q_seq, 1), -np.inf, np.float32)
    out_dtype = np.dtype(bfloat16) if mla_quant else _output_dtype(query.dtype, quant_scale2)
    if q.size == 0:
        return _finish(_NUMPY, np.zeros(q.shape, np.float32), lse, layout, out_dtype,
                       softmax_lse_flag, tnd=tnd)
    # TND decides masks and query rows as the prompt branch does, whatever its longest batch
    incre = q_seq == 1 and tnd is None
    full_quant = dequant_scale1 is not None
    exact = full_quant or mla_quant           # integer products: exact float64 sums
    compute_dtype = _compute_dtype(query.dtype)
    ops = _NUMPY if exact else _ops()
    q = _float_query(ops, q, None if query_rope is None else
                     _to_bnsd(np.asarray(query_rope), layout, n_heads), exact)

    keys = _kv_source(key, layout, kv_heads, block_table, block_size)
    values = keys if _same_operand(value, key) else \
        _kv_source(value, layout, kv_heads, block_table, block_size)
    ropes = None if key_rope is None else \
        _kv_source(key_rope, layout, kv_heads, block_table, block_size)

    q_rows, q_left = _query_rows(actual_seq_lengths, query_padding_size, batch, q_seq, incre)
    kv_rows, kv_left = _kv_rows(actual_seq_lengths_kv, kv_padding_size, keys, batch)
    prefix_k, prefix_v = _shared_prefix(key_shared_prefix, value_shared_prefix,
                                        actual_shared_prefix_len, layout, kv_heads)

    mla_q = MlaFullQuant(_to_bnsd(dequant_scale_query, layout, n_heads), key_antiquant_scale,
                         value_antiquant_scale, scale_value) if mla_quant else None
    if mla_quant:                         # the scales are the mode's, not an antiquant
        key_antiquant_scale = value_antiquant_scale = None
    deq_k, deq_v = KvDequant.pair(
        antiquant_scale, antiquant_offset, antiquant_mode, key_antiquant_scale,
        key_antiquant_offset, key_antiquant_mode, value_antiquant_scale,
        value_antiquant_offset, value_antiquant_mode, incre=incre, kv_heads=kv_heads,
        block_table=block_table, block_size=block_size)

    masks = _Masks(atten_mask, sparse_mode, pre_tokens, next_tokens, incre,
                   left_padding=q_left or kv_left)
    quant = FullQuant(dequant_scale1, quant_scale1, dequant_scale2) if full_quant else None

    d_v = values.head_dim
    o = np.zeros((batch, n_heads, q_seq, d_v), np.float32)
    valid_rows = np.zeros((batch, q_seq), bool)      # rows that see a key; others are 0 (S13)
    p = 0 if prefix_k is None else prefix_k.shape[1]
    live = [b for b in range(batch) if min(kv_rows[b]) >= 0]   # else left padding: row is 0
    for group in _same_shape_groups(live, q_rows, kv_rows, p, keys.head_dim):
        rows, sel = q_rows[group[0]], _batch_index(group)
        length = p + kv_rows[group[0]][1] - kv_rows[group[0]][0]
        if length == 0 or rows.stop == rows.start:
            continue
        k_g, v_g = _gather_kv(ops, keys, values, ropes, group, kv_rows, deq_k, deq_v, prefix_k,
                              prefix_v, compute_dtype, exact)
        masked = _stack([masks.for_batch(b, rows.stop - rows.start, length, rows.start,
                                         kv_rows[b][0]) for b in group])
        bias = _stack([_pse_for_batch(pse_shift, b, rows, kv_rows[b][0], length)
                       for b in group])
        valid_rows[sel, rows] = True if masked is None else ~masked.all(axis=-1)
        o[sel, :, rows], lse[sel, :, rows] = _attend(
            ops, q[sel, :, rows], k_g, v_g, masked, bias, float(scale_value),
            quant if mla_q is None else mla_q.for_rows(sel, rows), compute_dtype, d_v)
    return _finish(ops, o, lse, layout, out_dtype, softmax_lse_flag, valid_rows, quant_scale2,
                   quant_offset2, tnd)


def _attend(ops, q, k, v, masked, bias, scale, quant, compute_dtype, d_v):
    """softmax((q.k^T [* deq1] + bias) * scale, masked) . v for batch rows of equal shapes.

    q (Bg, N, S1, Dk), k (Bg, KV_N, L, Dk), v (Bg, KV_N, L, Dv) or None (= k[..., :Dv]),
    masked (Bg, S1, L) bool or None, bias (Bg, N, S1, L) or None.
    Returns o (Bg, N, S1, Dv) and lse (Bg, N, S1, 1) as NumPy arrays.
    """
    bg, n, s1, _ = q.shape
    _, kv_heads, length, _ = k.shape
    pairs = bg * kv_heads                  # (batch row, kv head) pairs: one matmul each
    shared = n // kv_heads * s1            # the query rows of one pair: G heads x S1
    qt = ops.tensor(q).reshape(pairs, shared, -1)
    kt = ops.tensor(k).reshape(pairs, length, -1)
    vt = kt[..., :d_v] if v is None else ops.tensor(v).reshape(pairs, length, -1)
    s = ops.bmm(qt, ops.swap_last(kt)).reshape(bg, n, s1, length)
    if quant is not None:                 # exact integer scores -> the half scores (FullQuant)
        s = quant.scores(s, bias, scale)
    else:
        if bias is not None:
            s = s + ops.tensor(bias)
        s = ops.scale_(s, scale)
    if masked is not None:
        s = ops.masked_fill(s, ops.tensor(masked[:, None]), -np.inf)
    row_max = ops.rowmax(s)
    empty = ops.isneginf(row_max)                      # fully masked rows
    row_max = ops.masked_fill(row_max, empty, 0.0)
    e = ops.exp_sub_(s, row_max)                       # s is reused for exp(s - max)
    row_sum = ops.rowsum(e)
    if quant is None:
        p = ops.round_to_(e, compute_dtype)
        o = ops.bmm(p.reshape(pairs, shared, length), vt).reshape(bg, n, s1, d_v)
        o = ops.numpy(ops.div_(o, ops.clamp_min(row_sum, 1e-30)))
    else:
        o = quant.pv(e, row_sum, vt)
    lse = ops.numpy(ops.log(ops.clamp_min(row_sum, 1e-30)) + row_max)
    if masked is None:                    # every row has a key: nothing is empty
        return o, lse
    empty = ops.numpy(empty)
    return np.where(empty, 0.0, o), np.where(empty, -np.inf, lse)


def _float_query(ops, q, q_rope, full_quant):
    """[q ; q_rope] (B, N, Q_S, D [+ Dr]) in float32 (float64 for exact int8 products)."""
    d_rope = 0 if q_rope is None else q_rope.shape[-1]
    out = np.empty(q.shape[:3] + (q.shape[3] + d_rope,), np.float64 if full_quant else np.float32)
    ops.fill(out[..., :q.shape[3]], q)
    if q_rope is not None:
        ops.fill(out[..., q.shape[3]:], q_rope)
    return out


def _batch_index(group):
    """Index of a group's batch rows (increasing): a slice (views, not copies) if consecutive."""
    return slice(group[0], group[-1] + 1) if group[-1] - group[0] == len(group) - 1 else group


def _same_shape_groups(live, q_rows, kv_rows, prefix_len, width, max_elements=1 << 26):
    """Batch rows with the same query rows and kv length, so that one batched matmul serves
    them all; a group's gathered K stays under max_elements floats."""
    groups = {}
    for b in live:
        key = (q_rows[b].start, q_rows[b].stop, kv_rows[b][1] - kv_rows[b][0])
        groups.setdefault(key, []).append(b)
    for (_, _, length), members in groups.items():
        step = max(1, max_elements // max(1, (prefix_len + length) * width))
        for i in range(0, len(members), step):
            yield members[i:i + step]


def _stack(per_batch):
    """Stack per-batch masks or biases (None when no batch row has one)."""
    if all(x is None for x in per_batch):
        return None
    like = next(x for x in per_batch if x is not None)
    return np.stack([np.zeros_like(like) if x is None else x for x in per_batch])


# --------------------------------------------------------------------------------------------
# NumPy / torch for the hot path
# --------------------------------------------------------------------------------------------

class _NumpyOps:
    def tensor(self, a):
        return a if a.dtype in (np.float32, np.float64, bool) else a.astype(np.float32)

    def numpy(self, a):
        return a

    def bmm(self, a, b):
        # one 2-D BLAS call per kv head: NumPy's stacked matmul is much slower than BLAS
        return np.stack([mm(x, y) for x, y in zip(a, b)])

    def swap_last(self, a):
        return a.transpose(0, 2, 1)

    def fill(self, dst, src):
        """dst[...] = src, converting to dst's float dtype."""
        dst[...] = src

    def gather_blocks(self, dst, blocks, ids):
        """dst[b, j] = blocks[ids[b, j]]; dst may be any strided view."""
        dst[...] = blocks[ids]

    def scale_(self, s, scale):
        s *= np.asarray(scale, s.dtype)
        return s

    def masked_fill(self, s, masked, value):
        return np.where(masked, s.dtype.type(value), s)

    def rowmax(self, s):
        return s.max(axis=-1, keepdims=True)

    def isneginf(self, a):
        return np.isneginf(a)

    def exp_sub_(self, s, m):
        s -= m
        return np.exp(s, out=s)

    def rowsum(self, e):
        return e.sum(axis=-1, keepdims=True)

    def div_(self, a, b):
        a /= b
        return a

    def cast(self, a, dtype):
        return a.astype(dtype)

    def round_to_(self, a, dtype):
        """a rounded to dtype (and back), in place."""
        if dtype is not None:
            a[...] = a.astype(dtype)
        return a

    def clamp_min(self, a, lo):
        return np.maximum(a, a.dtype.type(lo))

    def log(self, a):
        return np.log(a)


class _TorchOps(_NumpyOps):
    def __init__(self, torch):
        self.t = torch
        self.dtypes = {np.dtype(np.float16): torch.float16, bfloat16: torch.bfloat16}

    def tensor(self, a):
        if not a.flags.aligned or a.dtype not in (np.float32, np.float64, bool):
            a = np.asarray(a, np.float32)
        return self.t.from_numpy(a)

    def numpy(self, a):
        return a.numpy()

    def bmm(self, a, b):
        return self.t.matmul(a, b)

    def swap_last(self, a):
        return a.transpose(1, 2)

    def fill(self, dst, src):
        # torch converts bf16/fp16 -> float32 on all threads (the gather's main cost)
        src_type = self.dtypes.get(src.dtype)
        if src_type is None or dst.dtype != np.float32 or src.strides[-1] != src.itemsize:
            dst[...] = src
            return
        bits = self.t.from_numpy(np.asarray(src).view(np.int16)).view(src_type)
        self.t.from_numpy(dst).copy_(bits)

    def gather_blocks(self, dst, blocks, ids):
        # index_select writes into the strided dst directly, on all threads: one call when
        # the (batch row, block) axes of dst merge into one (one kv head), else one per row
        if not blocks.flags.writeable:                   # torch would warn on every call
            return super().gather_blocks(dst, blocks, ids)
        t = self.t
        src, out, idx = t.from_numpy(blocks), t.from_numpy(dst), t.from_numpy(ids)
        if out.shape[0] == 1 or out.stride(0) == out.shape[1] * out.stride(1):
            t.index_select(src, 0, idx.reshape(-1), out=out.view(-1, *out.shape[2:]))
            return
        for b in range(out.shape[0]):
            t.index_select(src, 0, idx[b], out=out[b])

    def scale_(self, s, scale):
        return s.mul_(scale)

    def masked_fill(self, s, masked, value):
        return s.masked_fill(masked, value)

    def rowmax(self, s):
        return s.amax(dim=-1, keepdim=True)

    def isneginf(self, a):
        return self.t.isneginf(a)

    def exp_sub_(self, s, m):
        return s.sub_(m).exp_()

    def rowsum(self, e):
        return e.sum(dim=-1, keepdim=True)

    def div_(self, a, b):
        return a.div_(b)

    def cast(self, a, dtype):
        # float32 -> bf16 / fp16 on all threads; rounds half to even like NumPy and ml_dtypes
        # (a NaN may come out with another payload)
        target = self.dtypes.get(np.dtype(dtype))
        if target is None or a.dtype != np.float32:
            return a.astype(dtype)
        return self.t.from_numpy(a).to(target).view(self.t.int16).numpy().view(dtype)

    def round_to_(self, a, dtype):
        return a if dtype is None else a.copy_(a.to(self.dtypes[np.dtype(dtype)]))

    def clamp_min(self, a, lo):
        return a.clamp_min(lo)

    def log(self, a):
        return self.t.log(a)


_NUMPY = _NumpyOps()
_TORCH = None


def _ops():
    """torch (float32 matmuls and softmax) when importable, unless ASCEND_MLA_MATMUL=numpy."""
    global _TORCH
    if matmul_choice() == "numpy" or torch_module() is None:
        return _NUMPY
    if _TORCH is None:
        _TORCH = _TorchOps(torch_module())
    return _TORCH


# --------------------------------------------------------------------------------------------
# layouts, lengths, output
# --------------------------------------------------------------------------------------------

def _to_bnsd(x, layout, heads):
    """query-like (BSH, BSND, BNSD, BNSD_BSND) -> a (B, N, S, D) view."""
    if layout == "BSH":
        b, s, h = x.shape
        return x.reshape(b, s, heads, h // heads).transpose(0, 2, 1, 3)
    if layout == "BSND":
        return x.transpose(0, 2, 1, 3)
    return x


def _from_bnsd(o, layout):
    if layout == "BSH":
        b, n, s, d = o.shape
        return o.transpose(0, 2, 1, 3).reshape(b, s, n * d)
    if layout in ("BSND", "BNSD_BSND"):
        return o.transpose(0, 2, 1, 3)
    return o


def _per_batch(values, default, batch):
    if values is None:
        return list(default)
    values = [int(v) for v in values]
    return values * batch if len(values) == 1 else values[:batch]


def _query_rows(actual_seq_lengths, query_padding_size, batch, q_seq, incre):
    """Valid query rows per batch row (slices), and whether query left padding is on."""
    if incre:                                        # actual_seq_lengths is ignored
        return [slice(0, 1)] * batch, False
    lengths = _per_batch(actual_seq_lengths, [q_seq] * batch, batch)
    left = query_padding_size is not None and actual_seq_lengths is not None
    if not left:
        return [slice(0, n) for n in lengths], False
    end = q_seq - _padding(query_padding_size)       # right-aligned, `pad` rows after
    return [slice(end - n, end) for n in lengths], True


def _kv_rows(actual_seq_lengths_kv, kv_padding_size, keys, batch):
    """(lo, hi) physical kv rows per batch row, and whether kv left padding is on."""
    physical = [keys.length(b) for b in range(batch)]
    lengths = _per_batch(actual_seq_lengths_kv, physical, batch)
    left = (kv_padding_size is not None and actual_seq_lengths_kv is not None
            and not keys.is_paged and not keys.is_list)    # else: right padding (S18)
    if not left:
        return [(0, n) for n in lengths], False
    pad = _padding(kv_padding_size)
    return [(s - pad - n, s - pad) for s, n in zip(physical, lengths)], True


def _padding(size):
    return max(int(np.asarray(size).reshape(-1)[0]), 0)


def _shared_prefix(key_prefix, value_prefix, prefix_len, layout, kv_heads):
    """The first P rows (KV_N, P, D) of the shared prefix, or (None, None)."""
    if key_prefix is None:
        return None, None
    keys = _kv_source(key_prefix, layout, kv_heads, None, 0)
    values = _kv_source(value_prefix, layout, kv_heads, None, 0)
    p = keys.length(0) if prefix_len is None else int(prefix_len[0])
    return keys.rows(0, 0, p), values.rows(0, 0, p)


def _compute_dtype(query_dtype):
    """The 16-bit type the kernel feeds to P.V and antiquant results (None: no rounding)."""
    dt = np.dtype(query_dtype)
    if dt == bfloat16:
        return bfloat16
    if dt in (np.float16, np.int8):
        return np.dtype(np.float16)
    return None


def _output_dtype(query_dtype, quant_scale2):
    if quant_scale2 is not None:
        return np.dtype(np.int8)
    dt = np.dtype(query_dtype)
    return np.dtype(np.float16) if dt == np.int8 else dt


def _finish(ops, o, lse, layout, out_dtype, lse_flag, valid_rows=None, quant_scale2=None,
            quant_offset2=None, tnd=None):
    if quant_scale2 is not None:
        out = post_quantize(o, quant_scale2, quant_offset2)
    else:
        out = ops.cast(o, out_dtype)
    if valid_rows is not None and not valid_rows.all():
        out[~np.broadcast_to(valid_rows[:, None, :], out.shape[:3])] = 0
    out = _from_bnsd(out, layout)
    if tnd is not None:
        out, lse = tnd.out(out), tnd.lse(lse)
    return np.ascontiguousarray(out), (lse if lse_flag else np.zeros((1,), np.float32))


class _Tnd:
    """The TND layouts as a packing of BNSD. Batch b's query tokens are rows
    [ends[b-1], ends[b]) of the packed T axis (actual_seq_lengths: cumulative ends); they become
    rows 0.. of a zero-padded (B, N, Q_S, D) query, Q_S the longest batch, and the output and
    lse rows are packed back. A packed key/value becomes a tensor list of per-batch
    (1, KV_N, L_b, D) tensors; a paged cache stays as it is (its lengths are per batch).
    NTD_TND reads (N, T, D) and writes TND; TND_NTD reads TND and writes (N, T, D)."""

    LAYOUTS = ("TND", "TND_NTD", "NTD_TND")

    def __init__(self, layout, q_ends, kv_lengths, paged):
        self.layout = layout
        self.q_starts, self.q_lens = _starts_and_spans(q_ends)
        self.q_seq = max(self.q_lens, default=0)
        if paged:
            self.kv_lens = [int(v) for v in kv_lengths]
        else:
            self.kv_starts, spans = _starts_and_spans(kv_lengths)
            self.kv_spans, self.kv_lens = spans, None     # the list elements have the spans

    def _tokens_first(self, x):
        """(T, N, D) view of a packed tensor."""
        x = np.asarray(x)
        return x.transpose(1, 0, 2) if self.layout == "NTD_TND" else x

    def query(self, x):
        if x is None:
            return None
        x = self._tokens_first(x)
        out = np.zeros((len(self.q_lens), x.shape[1], self.q_seq, x.shape[2]), x.dtype)
        for b, (start, n) in enumerate(zip(self.q_starts, self.q_lens)):
            out[b, :, :n] = x[start:start + n].transpose(1, 0, 2)
        return out

    def kv(self, x):
        x = self._tokens_first(_logical(_tensor(x)))
        return [x[start:start + n].transpose(1, 0, 2)[None]
                for start, n in zip(self.kv_starts, self.kv_spans)]

    def out(self, o):
        """(B, N, Q_S, Dv) -> (T, N, Dv), or (N, T, Dv) for TND_NTD."""
        rows = np.concatenate([o[b, :, :n].transpose(1, 0, 2) for b, n in enumerate(self.q_lens)]
                              + [np.zeros((0, o.shape[1], o.shape[3]), o.dtype)])
        return rows.transpose(1, 0, 2) if self.layout == "TND_NTD" else rows

    def lse(self, lse):
        """(B, N, Q_S, 1) -> (T, N, 1)."""
        return np.concatenate([lse[b, :, :n].transpose(1, 0, 2) for b, n in enumerate(self.q_lens)]
                              + [np.zeros((0, lse.shape[1], 1), lse.dtype)])


def _starts_and_spans(ends):
    ends = [int(v) for v in ends]
    starts = [0] + ends[:-1]
    return starts, [e - s for s, e in zip(starts, ends)]


def _tensor(x):
    """One array of a tensor-list operand."""
    return x[0] if isinstance(x, (list, tuple)) else x


# --------------------------------------------------------------------------------------------
# key / value sources
# --------------------------------------------------------------------------------------------

def _same_operand(a, b):
    if a is b:
        return True
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(x is y for x, y in zip(a, b))
    return False


class _Dense:
    """K or V given per batch row: one (B, ...) tensor, or a tensor list with one per row."""

    is_paged = False

    def __init__(self, tensors, layout, kv_heads):
        self.is_list = len(tensors) > 1
        self.per_batch = [t for arr in tensors
                          for t in _to_bnsd(_logical(arr), layout, kv_heads)]
        self.head_dim = self.per_batch[0].shape[-1]

    def length(self, b):
        return self.per_batch[b].shape[1]

    def kv_heads(self, b):
        return self.per_batch[b].shape[0]

    def rows(self, b, lo, hi):
        return self.per_batch[b][:, lo:hi]           # (KV_N, hi - lo, D), a view


class _Paged:
    """A paged cache: block_table[b] lists the blocks of batch row b (section 1.12)."""

    is_paged = True
    is_list = False

    def __init__(self, cache, block_table, block_size, kv_heads):
        self.table = np.asarray(block_table)
        self.block_size = bs = int(block_size)
        self.blocks = _nz_blocks(cache, bs, kv_heads) if isinstance(cache, NZTensor) else None
        self.nz = self.blocks is not None
        if self.nz:
            self.head_dim = self.blocks.shape[2] * self.blocks.shape[4]
            return
        cache = _logical(cache)
        if cache.ndim == 3:                                      # BnBsH: never BnNBsD
            nb, _, h = cache.shape
            self.blocks = cache.reshape(nb, bs, kv_heads, h // kv_heads).transpose(0, 2, 1, 3)
        elif cache.shape[1] == kv_heads and cache.shape[2] == bs:
            self.blocks = cache                                  # BnNBsD
        else:
            self.blocks = cache.transpose(0, 2, 1, 3)            # BnBsND (PA_BSND) view
        self.head_dim = self.blocks.shape[-1]

    def length(self, b):
        return self.table.shape[1] * self.block_size

    def kv_heads(self, b):
        return self.blocks.shape[1]

    def bits(self):
        """The blocks' 16-bit patterns (a view)."""
        return self.blocks.view(np.int16)

    def rows(self, b, lo, hi):
        n_blocks = -(-hi // self.block_size)
        ids = self.table[b, :n_blocks]
        g = self.blocks[_as_slice(ids)]
        if self.nz:                           # (nblk, KV_N, D/C0, bs, C0) -> (KV_N, nblk*bs, D)
            kv, w1, c0 = g.shape[1], g.shape[2], g.shape[4]
            g = g.transpose(1, 0, 3, 2, 4).reshape(kv, -1, w1 * c0)
        else:                                 # (nblk, KV_N, bs, D) -> (KV_N, nblk*bs, D)
            g = g.transpose(1, 0, 2, 3).reshape(g.shape[1], -1, g.shape[3])
        return g[:, lo:hi]


def _kv_source(operand, layout, kv_heads, block_table, block_size):
    tensors = list(operand) if isinstance(operand, (list, tuple)) else [operand]
    if block_table is not None:
        return _Paged(tensors[0], block_table, block_size, kv_heads)
    return _Dense(tensors, layout, kv_heads)


def _logical(arr):
    """The logical array: NZ unpacked, INT4 (native or packed in INT32) widened to int8."""
    if isinstance(arr, NZTensor):
        arr = arr.to_nd()
    arr = np.asarray(arr)
    if arr.dtype == np.int32:
        return unpack_int4(arr)
    if arr.dtype.name == "int4":
        return arr.astype(np.int8)
    return arr


def _nz_blocks(cache, bs, kv_heads):
    """(block_num, KV_N, D/C0, block_size, C0) view of an NZ paged cache, or None when its
    fractals are padded (block_size % 16 or D % C0): that cache is read through to_nd()."""
    c0 = c0_for(cache.dtype)
    if len(cache.shape) == 3:
        nb, _, h = cache.shape
        d = h // kv_heads
    else:
        nb, _, _, d = cache.shape
    if bs % 16 or d % c0:
        return None
    return cache.data.reshape(nb, kv_heads, d // c0, bs, c0)


def _as_slice(ids):
    """Consecutive block ids -> a slice (a view); otherwise the id array (a gather)."""
    if len(ids) and ids[-1] - ids[0] == len(ids) - 1 and np.all(np.diff(ids) == 1):
        return slice(int(ids[0]), int(ids[-1]) + 1)
    return ids


def _gather_kv(ops, keys, values, ropes, group, kv_rows, deq_k, deq_v, prefix_k, prefix_v,
               compute_dtype, full_quant):
    """K = [prefix ; kv rows lo:hi] (+ rope columns) and V of each batch row of the group,
    dequantized, as float arrays (Bg, KV_N, L, D). V is None when value is the key operand:
    it is then the first Dv columns of K."""
    if (prefix_k is None and deq_k is None and deq_v is None
            and _bf16_pages(keys, values, ropes)):
        return _gather_bf16_pages(ops, keys, values, ropes, group, kv_rows[group[0]][1])
    dtype = np.float64 if full_quant else np.float32
    d, d_rope = keys.head_dim, 0 if ropes is None else ropes.head_dim
    p = 0 if prefix_k is None else prefix_k.shape[1]
    lo, hi = kv_rows[group[0]]
    k_g = np.empty((len(group), keys.kv_heads(group[0]), p + hi - lo, d + d_rope), dtype)
    k_g[:, :, :p, d:] = 0                                # a shared prefix has no rope part
    share_v = values is keys and deq_v is deq_k and prefix_v is prefix_k
    v_g = None if share_v else np.empty(k_g.shape[:3] + (values.head_dim,), dtype)
    for i, b in enumerate(group):
        lo, hi = kv_rows[b]
        if p:
            k_g[i, :, :p, :d] = dequantize(prefix_k, deq_k, None, 0, p, compute_dtype)
        ops.fill(k_g[i, :, p:, :d],
                 dequantize(keys.rows(b, lo, hi), deq_k, b, lo, hi, compute_dtype))
        if ropes is not None:
            ops.fill(k_g[i, :, p:, d:], ropes.rows(b, lo, hi))
        if v_g is not None:
            if p:
                v_g[i, :, :p] = dequantize(prefix_v, deq_v, None, 0, p, compute_dtype)
            v_g[i, :, p:] = dequantize(values.rows(b, lo, hi), deq_v, b, lo, hi, compute_dtype)
    return k_g, v_g


def _bf16_pages(keys, values, ropes):
    """Are K, V and the rope part all paged bf16 caches (read from row 0: no left padding)?"""
    return _LITTLE_ENDIAN and all(
        s is None or (s.is_paged and s.blocks.dtype == bfloat16) for s in (keys, values, ropes))


def _gather_bf16_pages(ops, keys, values, ropes, group, length):
    """_gather_kv for bf16 page attention: one block gather per cache, converting on the way.

    A bf16 value is exactly the float32 with its 16 bits on top and 16 zero bits below. The
    workspace's lower halves are zero and only its upper halves are ever written, so copying
    the cache's 16-bit patterns into the upper halves is the gather and the conversion at once.
    """
    n_blocks = -(-length // keys.block_size)
    ids = keys.table[group, :n_blocks]
    shape = (len(group), keys.kv_heads(group[0]), n_blocks * keys.block_size)
    d = keys.head_dim
    k_g = _WORKSPACE.zeros("k", shape + (d + (0 if ropes is None else ropes.head_dim),))
    ops.gather_blocks(_upper_halves(k_g[..., :d], keys), keys.bits(), ids)
    if ropes is not None:
        ops.gather_blocks(_upper_halves(k_g[..., d:], ropes), ropes.bits(), ids)
    if values is keys:                                   # V = K[..., :Dv]
        return k_g[:, :, :length], None
    v_g = _WORKSPACE.zeros("v", shape + (values.head_dim,))
    ops.gather_blocks(_upper_halves(v_g, values), values.bits(), ids)
    return k_g[:, :, :length], v_g[:, :, :length]


def _upper_halves(dst, pages):
    """The upper 16 bits of each float32 of dst (Bg, KV_N, n_blocks * bs, D), as an int16 view
    shaped (Bg, n_blocks) + the shape of one of the cache's blocks."""
    bg, kv_heads, rows, d = dst.shape
    bs = pages.block_size
    upper = dst.view(np.int16)[..., 1::2].reshape(bg, kv_heads, rows // bs, bs, d)
    if not pages.nz:                                     # block (KV_N, bs, D)
        return upper.transpose(0, 2, 1, 3, 4)
    c0 = pages.blocks.shape[4]                           # block (KV_N, D/C0, bs, C0)
    return upper.reshape(bg, kv_heads, rows // bs, bs, d // c0, c0).transpose(0, 2, 1, 4, 3, 5)


class _Workspace(threading.local):
    """Float32 buffers kept between calls (one set per thread), allocated zeroed. Only the
    bf16 gather writes into them, and only upper halves: their lower halves stay zero."""

    max_bytes = 1 << 29                                  # larger ones are not kept

    def __init__(self):
        self.buffers = {}

    def zeros(self, name, shape):
        size = int(np.prod(shape))
        buf = self.buffers.get(name)
        if buf is None or buf.size < size:
            buf = _aligned_zeros(size)
            if buf.nbytes <= self.max_bytes:
                self.buffers[name] = buf
        return buf[:size].reshape(shape)


def _aligned_zeros(size, dtype=np.float32, alignment=64):
    """Zeros whose data starts on a cache line (NumPy only guarantees 16 bytes; BLAS reads
    aligned operands faster)."""
    itemsize = np.dtype(dtype).itemsize
    raw = np.zeros(size + alignment // itemsize, dtype)
    skip = (-raw.ctypes.data % alignment) // itemsize
    return raw[skip:skip + size]


_WORKSPACE = _Workspace()
_LITTLE_ENDIAN = sys.byteorder == "little"            # the upper half is the second int16


# --------------------------------------------------------------------------------------------
# masks and pse_shift
# --------------------------------------------------------------------------------------------

class _Masks:
    """masked(i, j) for the S1 valid query rows and L = P + askv keys of a batch row."""

    def __init__(self, mask, sparse_mode, pre_tokens, next_tokens, incre, left_padding):
        self.incre = incre
        self.mode = int(sparse_mode)
        self.pre = int(np.clip(pre_tokens, -_BIG, _BIG))
        self.next = int(np.clip(next_tokens, -_BIG, _BIG))
        self.left_padding = left_padding
        self.mask = None
        if mask is not None:
            m = np.asarray(mask)
            if incre:                                     # (B, KV_S) / (B,1,KV_S) / (B,1,1,KV_S)
                m = m.reshape(m.shape[0], 1, m.shape[-1])
            elif m.ndim == 2:                             # (Q_S, KV_S)
                m = m[None]
            elif m.ndim == 4:                             # (B|1, 1, Q_S, KV_S)
                m = m[:, 0]
            self.mask = m

    def _user(self, b, rows, cols):
        m = self.mask[b if self.mask.shape[0] > 1 else 0]
        return m[rows, cols] != 0

    def for_batch(self, b, s1, length, q_start, kv_start):
        cols = slice(kv_start, kv_start + length)
        if self.incre:
            return None if self.mask is None else self._user(b, slice(0, 1), cols)
        i = np.arange(s1)[:, None]
        j = np.arange(length)[None, :]
        diag = length - s1                       # bottom-right alignment of modes 3 and 4
        if self.mode == 0:
            if self.mask is None:
                return None
            masked = self._user(b, slice(q_start, q_start + s1), cols)
            if not self.left_padding:
                masked = masked | (j < i - self.pre) | (j > i + self.next)
            return masked
        if self.mode == 1:
            return self._user(b, slice(q_start, q_start + s1), cols)
        if self.mode == 2:
            return j > i
        if self.mode == 3:
            return j > i + diag
        return (j < i + diag - self.pre) | (j > i + diag + self.next)


def _pse_for_batch(pse, b, rows, kv_start, length):
    if pse is None:
        return None
    p = np.asarray(pse)
    p = p[b if p.shape[0] > 1 else 0]                    # (N, Q_S', KV_S')
    if p.shape[1] == 1:                                  # incre
        rows = slice(0, 1)
    return p[:, rows, kv_start:kv_start + length].astype(np.float32)

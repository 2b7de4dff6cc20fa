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
workspace kept between calls (fia_kv.gather_bf16_pages). The hot matmuls and the softmax run in
torch when it can be imported, NumPy otherwise; ASCEND_MLA_MATMUL=numpy|torch forces one. The
MLA decode / MTP call itself (bf16, one latent head in page caches, no mask but sparse 3's band)
runs MLIR-compiled where MLIR's ExecutionEngine does (_compiled_mla, jit_attention.py).

This file is the kernel (the walk over groups of batch rows, and the attention of a group); its
pieces: fia_layouts.py (layouts, TND packing, valid rows, output), fia_kv.py (dense, paged and
NZ key/value sources, the gathers), fia_masks.py (sparse modes, masks, pse_shift), fia_ops.py
(the NumPy / torch array operations, buffers kept between calls), fia_quant.py (antiquant,
full quant, the MLA full-quant mode, post-quant).

Numerics: docs/attention.md and docs/numerics.md ("FusedInferAttentionScore in MLA mode"). The kernel assumes the verifier has accepted the call.

Layouts: BSH, BSND, BNSD, BNSD_BSND, and the TND layouts (TND, TND_NTD, NTD_TND; S2), computed
as a packing of BNSD (fia_layouts.Tnd): batch b's tokens padded into a (B, N, Q_S, D) query, a
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

import numpy as np

from ...dialect.fia import FusedInferAttentionScore
from . import jit_attention, kernel
from .common import bfloat16
from .fia_kv import gather_kv, kv_source, same_operand, shared_prefix
from .fia_layouts import (
    Tnd,
    compute_dtype_of,
    finish,
    output_dtype,
    per_batch,
    to_bnsd,
    valid_kv_rows,
    valid_query_rows,
)
from .fia_masks import Masks, pse_for_batch
from .fia_ops import NUMPY, WORKSPACE, array_ops
from .fia_quant import FullQuant, KvDequant, MlaFullQuant

# --------------------------------------------------------------------------------------------
# the kernel
# --------------------------------------------------------------------------------------------

@kernel(FusedInferAttentionScore)
def fused_infer_attention_score(
        *, query, key, value, pse_shift=None, atten_mask=None, actual_seq_lengths,
        actual_seq_lengths_kv, dequant_scale1=None, quant_scale1=None, dequant_scale2=None,
        quant_scale2=None, quant_offset2=None, antiquant_scale=None, antiquant_offset=None,
        block_table=None, query_padding_size=None, kv_padding_size=None,
        key_antiquant_scale=None, key_antiquant_offset=None, value_antiquant_scale=None,
        value_antiquant_offset=None, key_shared_prefix=None, value_shared_prefix=None,
        actual_shared_prefix_len, query_rope=None, key_rope=None, dequant_scale_query=None,
        num_heads, scale_value, pre_tokens, next_tokens,
        input_layout, num_key_value_heads, sparse_mode, inner_precise, block_size,
        antiquant_mode, softmax_lse_flag, key_antiquant_mode, value_antiquant_mode,
        query_quant_mode):
    # BNSD_NBSD / BSND_NBSD: the input layout's attention, the output head-major (N, B, S, D)
    layout, nbsd = (input_layout[:4], True) if input_layout.endswith("_NBSD") else (input_layout, False)
    n_heads = int(num_heads)
    kv_heads = int(num_key_value_heads) or n_heads
    if all(x is None for x in (pse_shift, dequant_scale1, quant_scale1, dequant_scale2, quant_scale2,
                               quant_offset2, antiquant_scale, antiquant_offset, query_padding_size,
                               kv_padding_size, key_antiquant_scale, key_antiquant_offset,
                               value_antiquant_scale, value_antiquant_offset, key_shared_prefix,
                               dequant_scale_query)) and not nbsd and kv_heads == 1:
        done = _compiled_mla(query, query_rope, key, value, key_rope, block_table, block_size,
                             actual_seq_lengths, actual_seq_lengths_kv, layout, n_heads, sparse_mode,
                             atten_mask, float(scale_value), softmax_lse_flag)
        if done is not None:
            return done
    tnd = Tnd(layout, actual_seq_lengths, actual_seq_lengths_kv, block_table is not None) \
        if layout in Tnd.LAYOUTS else None
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
            value = tnd.kv(value) if not same_operand(value, key) else None
            key = tnd.kv(key)
            value = key if value is None else value
            key_rope = None if key_rope is None else tnd.kv(key_rope)   # MLA prefill (D 128)
        layout, actual_seq_lengths, actual_seq_lengths_kv = "BNSD", tnd.q_lens, tnd.kv_lens
    q = to_bnsd(np.asarray(query), layout, n_heads)               # (B, N, Q_S, D)
    batch, _, q_seq, _ = q.shape
    lse = np.full((batch, n_heads, q_seq, 1), -np.inf, np.float32)
    out_dtype = np.dtype(bfloat16) if mla_quant else output_dtype(query.dtype, quant_scale2)
    if q.size == 0:
        return _nbsd(finish(NUMPY, np.zeros(q.shape, np.float32), lse, "BNSD" if nbsd else layout,
                            out_dtype, softmax_lse_flag, tnd=tnd), nbsd)
    # TND decides masks and query rows as the prompt branch does, whatever its longest batch
    incre = q_seq == 1 and tnd is None
    full_quant = dequant_scale1 is not None
    exact = full_quant or mla_quant           # integer products: exact float64 sums
    compute_dtype = compute_dtype_of(query.dtype)
    ops = NUMPY if exact else array_ops()
    q = _float_query(ops, q, None if query_rope is None else
                     to_bnsd(np.asarray(query_rope), layout, n_heads), exact)

    keys = kv_source(key, layout, kv_heads, block_table, block_size)
    values = keys if same_operand(value, key) else \
        kv_source(value, layout, kv_heads, block_table, block_size)
    ropes = None if key_rope is None else \
        kv_source(key_rope, layout, kv_heads, block_table, block_size)

    q_rows, q_left = valid_query_rows(actual_seq_lengths, query_padding_size, batch, q_seq, incre)
    kv_rows, kv_left = valid_kv_rows(actual_seq_lengths_kv, kv_padding_size, keys, batch)
    prefix_k, prefix_v = shared_prefix(key_shared_prefix, value_shared_prefix,
                                        actual_shared_prefix_len, layout, kv_heads)

    mla_q = MlaFullQuant(to_bnsd(dequant_scale_query, layout, n_heads), key_antiquant_scale,
                         value_antiquant_scale, scale_value) if mla_quant else None
    if mla_quant:                         # the scales are the mode's, not an antiquant
        key_antiquant_scale = value_antiquant_scale = None
    deq_k, deq_v = KvDequant.pair(
        antiquant_scale, antiquant_offset, antiquant_mode, key_antiquant_scale,
        key_antiquant_offset, key_antiquant_mode, value_antiquant_scale,
        value_antiquant_offset, value_antiquant_mode, incre=incre, kv_heads=kv_heads,
        block_table=block_table, block_size=block_size)

    masks = Masks(atten_mask, sparse_mode, pre_tokens, next_tokens, incre,
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
        k_g, v_g = gather_kv(ops, keys, values, ropes, group, kv_rows, deq_k, deq_v, prefix_k,
                              prefix_v, compute_dtype, exact)
        masked = _stack([masks.for_batch(b, rows.stop - rows.start, length, rows.start,
                                         kv_rows[b][0]) for b in group])
        bias = _stack([pse_for_batch(pse_shift, b, rows, kv_rows[b][0], length)
                       for b in group])
        valid_rows[sel, rows] = True if masked is None else ~masked.all(axis=-1)
        o[sel, :, rows], lse[sel, :, rows] = _attend(
            ops, q[sel, :, rows], k_g, v_g, masked, bias, float(scale_value),
            quant if mla_q is None else mla_q.for_rows(sel, rows), compute_dtype, d_v)
    return _nbsd(finish(ops, o, lse, "BNSD" if nbsd else layout, out_dtype, softmax_lse_flag,
                        valid_rows, quant_scale2, quant_offset2, tnd), nbsd)


def _compiled_mla(query, query_rope, key, value, key_rope, block_table, block_size, q_lengths,
                  kv_lengths, layout, n_heads, sparse_mode, atten_mask, scale, lse_flag):
    """The MLA decode / MTP call (bf16 query and rope, one latent kv head in bf16 page caches,
    no mask but the causal band of sparse mode 3, no quantization) on the MLIR-compiled
    attention (jit_attention.py: the same formulas and rounding points, no gather); None where
    it does not apply or the compiled kernels do not run."""
    # key, value, key_rope: a tensor list of one cache each (the op's form) or the cache
    key, value, key_rope = (x[0] if isinstance(x, (list, tuple)) and len(x) == 1 else x for x in (key, value, key_rope))
    if not isinstance(query, np.ndarray) or not isinstance(query_rope, np.ndarray) or key_rope is None \
            or block_table is None or kv_lengths is None or layout not in ("BSND", "BSH") \
            or not same_operand(key, value):
        return None
    batch, q_seq = query.shape[:2]
    q = query.reshape(batch, q_seq, n_heads, -1)
    q_rope = query_rope.reshape(batch, q_seq, n_heads, -1)
    if not jit_attention.serves(q, q_rope, key, key_rope, int(block_size)):
        return None
    # which keys each query row sees: all (one row, no mask) or the band of sparse mode 3
    if not (sparse_mode == 3 or (q_seq == 1 and sparse_mode == 0 and atten_mask is None)):
        return None
    if q_seq > 1 and q_lengths is not None and any(int(n) != q_seq for n in per_batch(q_lengths, [], batch)):
        return None
    lengths = per_batch(kv_lengths, [], batch)
    if len(lengths) != batch:
        return None
    out, lse = jit_attention.attention(q, q_rope, key, key_rope, block_table, np.asarray(lengths), scale,
                                       int(block_size), lse_flag)
    return out.reshape(query.shape), (lse if lse_flag else np.zeros((1,), np.float32))


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
    # the scores go to a buffer kept between calls: a fresh one costs its page faults each call
    s = ops.bmm(qt, ops.swap_last(kt), out=WORKSPACE.empty("scores", (pairs, shared, length),
                                                               ops.float_dtype(qt)))
    s = s.reshape(bg, n, s1, length)
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


def _nbsd(result, nbsd):
    """(out, lse), out made head-major (N, B, S, D) from the (B, N, S, D) `finish` wrote."""
    out, lse = result
    return (np.ascontiguousarray(out.transpose(1, 0, 2, 3)), lse) if nbsd else result

"""Conversions of the attention ops: FusedInferAttentionScore (seed 004), NSA (seed 003), and
the attention primitives (mla.paged_attention, mla.attention) to FusedInferAttentionScoreV4."""
from __future__ import annotations

import numpy as np
from mlir import ir

from ..dialect import aclnn as A
from ..dialect.aclnn_functions import FIA_V2, FIA_V3, FIA_V4, LOGICAL_OR, NSA
from ..dialect.fia import FusedInferAttentionScore
from ..dialect.nsa import NsaCompressAttentionInfer
from ..dialect.primitive import Attention, MaskedPagedAttention, PagedAttention
from ..dialect.types import FRACTAL_NZ, TensorInfo, tensor_type
from .lower_to_aclnn import LoweringError, info, lowers


@lowers(FusedInferAttentionScore)
def fused_infer_attention_score(op, b):
    # The MLA mode (query_rope/key_rope) is V3's, its full-quant form (dequant_scale_query,
    # queryQuantMode) V4's; everything else is V2 as the seed documents.
    a = b.adaptor
    function = (FIA_V4 if a.dequant_scale_query is not None else
                FIA_V3 if a.query_rope is not None else FIA_V2)
    # softmaxLse is written only with softmax_lse_flag; otherwise nullptr, as in the seed's
    # example, and the (1,) result is the zeros the CPU kernel gives.
    absent = () if b.adaptor.softmax_lse_flag else ("softmaxLse",)
    # Per-step lengths may come as host i64 tensors (run-time values, not attributes): they are
    # read at run time and phase one is re-run when they change.
    return b.call_bound(function, absent_outputs=absent,
                        host_operands={"actualSeqLengthsOptional": "actual_seq_qlen",
                                       "actualSeqLengthsKvOptional": "actual_seq_kvlen"})


@lowers(NsaCompressAttentionInfer)
def nsa_compress_attention_infer(op, b):
    return b.call_bound(NSA)


# --- the attention primitives: aclnnFusedInferAttentionScoreV4 ------------------------------
# torch_npu.npu_fused_infer_attention_score_v2 is the attention call of NPU serving code (MLA
# decode in vLLM-Ascend's mla backend); op-plugin runs it as aclnnFusedInferAttentionScoreV4
# (FusedInferAttentionScoreV2KernelNpuOpApi.cpp). _npu_paged_attention(_mla) are ATB
# operations, not aclnn functions. V4 is V3 plus the full-quant MLA query dequantization
# (dequantScaleQueryOptional, queryQuantMode 3 = per token and head), which an int8 query of
# mla.paged_attention needs. The CPU backend runs the primitive's own kernel for these calls
# (runtime/cpu_calls.py), so results are the primitive's bit for bit. An int8 primitive's call
# is not the documented full-quant form (its scales and ND caches are the primitive's, and so
# are its numerics): it carries the variant `mla.numerics = "mla.paged_attention"`, which the
# CPU backend runs and the NPU backend and the C++ emitter refuse, as for the prolog's
# half-away query quant.

MASK = 2048              # FIA's sparse_mode 2/3 causal template is 2048 x 2048
ALL_TOKENS = 2147483647  # pre/nextTokens: no band limit


def _v4(b, query, key, value, out, *, num_heads, num_kv_heads, scale, sparse_mode=0, mask=None,
        block_table=None, kv_lengths=None, block_size=0, query_rope=None, key_rope=None,
        query_scale=None, kv_scale=None):
    """One aclnnFusedInferAttentionScoreV4 call, BSND, with everything else nullptr/default."""
    no = b.null()
    i64 = lambda v: b.host(A.I64, v)          # noqa: E731
    args = {p.c_name: no for p in FIA_V4.params if p.kind in (A.OPT_TENSOR, A.OPT_OUT, A.INT_ARRAY)}
    args.update({
        "query": query, "key": b.tensor_list([key]), "value": b.tensor_list([value]),
        "attenMaskOptional": mask or no, "blockTableOptional": block_table or no,
        "actualSeqLengthsKvOptional": kv_lengths or no, "queryRopeOptional": query_rope or no,
        "keyRopeOptional": key_rope or no, "dequantScaleQueryOptional": query_scale or no,
        "keyAntiquantScaleOptional": kv_scale or no, "valueAntiquantScaleOptional": kv_scale or no,
        "numHeads": i64(num_heads), "scaleValue": b.host(A.F64, scale),
        "preTokens": i64(ALL_TOKENS), "nextTokens": i64(ALL_TOKENS),
        "inputLayout": b.host(A.STRING, "BSND"), "numKeyValueHeads": i64(num_kv_heads),
        "sparseMode": i64(sparse_mode), "innerPrecise": i64(0), "blockSize": i64(block_size),
        "antiquantMode": i64(0), "softmaxLseFlag": b.host(A.BOOL, False),
        "keyAntiquantMode": i64(0), "valueAntiquantMode": i64(0),
        "queryQuantMode": i64(3 if query_scale is not None else 0), "attentionOut": out})
    int8 = query_scale is not None or kv_scale is not None
    b.call(FIA_V4, args, variant={"numerics": "mla.paged_attention"} if int8 else None)


def _causal_template(b):
    """The (2048, 2048) sparse_mode 3 template: triu(ones, 1) (as mla.causal_mask lowers), one
    per function: every attention layer of a prefill reads the same one."""
    from ..dialect.aclnn_functions import INPLACE_ONE, TRIU

    def build(b):
        t = TensorInfo((MASK, MASK), "i8")
        ones, mask = b.alloc(t), b.alloc(t)
        b.call(INPLACE_ONE, {"selfRef": ones})
        b.call(TRIU, {"self": ones, "diagonal": b.host(A.I64, 1), "out": mask})
        return mask
    return b.once("causal template", build)


@lowers(MaskedPagedAttention)
@lowers(PagedAttention)
def paged_attention(op, b):
    """mla.paged_attention -> V4 over the paged caches: BSND query, key/value lists of one
    cache each, blockTable, the kv lengths as a host list read from seq_lengths at run time
    (phase one re-runs when they change), causal rows as sparse_mode 3 with the template.
    MLA (query_rope/key_rope_cache): the latent cache is key and value; PA_BSND caches go as
    (BlockNum, BlockSize, Nkv, D) (the MLA layout) or (BlockNum, BlockSize, Nkv*D), PA_NZ as the
    FRACTAL_NZ view of their bytes (what fuse-attention builds for FIA). int8 (an i8 query with
    dequant_scale_query, i8 caches with key_dequant_scale): the full-quant MLA mode,
    dequantScaleQuery (B, S, N, 1) with queryQuantMode 3, and the per-tensor kv scale as key and
    value antiquant scales, with the variant mla.numerics (the V4 document requires (B, S, N)
    scales and 5-D NZ caches with BlockSize 128 for it, and the device computes P in its own
    order: the call is the CPU's only)."""
    a = b.adaptor
    q, k = info(a.query), info(a.key_cache)
    batch, s_len, heads, _ = q.shape
    blocks, block_size, kv_heads, _ = k.shape
    nz, mla = a.cache_mode == "PA_NZ", a.query_rope is not None

    def cache(value):
        t = info(value)
        if None in t.shape:
            raise LoweringError(f"{t}: a dynamic shape has no (BlockNum, BlockSize, N*D) view")
        flat = (t.shape[0], t.shape[1], t.shape[2] * t.shape[3])
        if nz:
            return b.view(value, TensorInfo(flat, t.dtype, FRACTAL_NZ))
        return value if mla else b.reshape(value, flat)

    key = cache(a.key_cache)
    value = key if a.value_cache == a.key_cache else cache(a.value_cache)
    out = b.alloc(op.results[0].type)
    sparse, mask = (3, _causal_template(b)) if s_len > 1 else (0, None)
    if getattr(a, "atten_mask", None) is not None:     # mla.masked_paged_attention
        # the keys not selected (DSA) and the causal rows as one (B, S, T) mask, sparse_mode 0
        t = info(a.atten_mask)
        causal = length_mask_value(b, a.seq_lengths, batch, s_len, t.shape[2])
        mask, sparse = b.alloc(t), 0
        b.call(LOGICAL_OR, {"self": a.atten_mask, "other": causal, "out": mask})
    _v4(b, a.query, key, value, out, num_heads=heads, num_kv_heads=kv_heads, scale=a.scale_value,
        sparse_mode=sparse, mask=mask,
        block_table=a.block_table, kv_lengths=b.read_int_array(a.seq_lengths), block_size=block_size,
        query_rope=a.query_rope, key_rope=cache(a.key_rope_cache) if mla else None,
        query_scale=a.dequant_scale_query, kv_scale=a.key_dequant_scale)
    return {"attention_out": out}


def length_mask_value(b, seq_lengths, batch: int, s: int, t: int):
    """(B, S, T) i1, True where key j comes after query row i's position seq_lengths[b] - S + i,
    i.e. j - i + S > seq_lengths[b]: aclnnGtTensor of a constant (1, S, T) grid of j - i + S
    (one per function and shape) against the lengths viewed (B, 1, 1)."""
    from mlir.dialects import arith

    from ..dialect.aclnn_functions import GT_TENSOR

    def grid(b):
        values = (np.arange(t)[None, None, :] - np.arange(s)[None, :, None] + s).astype(np.int64)
        ty = tensor_type((1, s, t), "i64")
        return arith.ConstantOp(ty, ir.DenseElementsAttr.get(values, type=ty), loc=b.op.location,
                                ip=ir.InsertionPoint(b.op)).result
    constant = b.once(("length grid", s, t), grid)
    mask = b.alloc(TensorInfo((batch, s, t), "i1"))
    b.call(GT_TENSOR, {"self": constant, "other": b.reshape(seq_lengths, (batch, 1, 1)), "out": mask})
    return mask


@lowers(Attention)
def attention(op, b):
    """mla.attention (dense, BSND) -> V4 with key/value as they are. atten_mask alone:
    sparse_mode 0 with the (S, Skv) mask; causal alone: sparse_mode 3 with the template; both:
    one mask, atten_mask OR the bottom-right causal mask triu(ones(S, Skv), Skv - S + 1)
    (aclnnInplaceOne, aclnnTriu, aclnnLogicalOr), sparse_mode 0."""
    from ..dialect.aclnn_functions import INPLACE_ONE, TRIU
    a = b.adaptor
    q, k = info(a.query), info(a.key)
    mask, sparse = a.atten_mask, 0
    if a.causal and mask is None:
        mask, sparse = _causal_template(b), 3
    elif a.causal:
        m = info(mask)
        ones, causal, both = b.alloc(m), b.alloc(m), b.alloc(m)
        b.call(INPLACE_ONE, {"selfRef": ones})
        b.call(TRIU, {"self": ones, "diagonal": b.host(A.I64, k.shape[1] - q.shape[1] + 1), "out": causal})
        b.call(LOGICAL_OR, {"self": mask, "other": causal, "out": both})
        mask = both
    out = b.alloc(op.results[0].type)
    _v4(b, a.query, a.key, a.value, out, num_heads=q.shape[2], num_kv_heads=k.shape[2],
        scale=a.scale_value, sparse_mode=sparse, mask=mask)
    return {"attention_out": out}

"""Every aclnn operator API the compiler calls, declared once (the import table).

The argument order and C types are the documented prototypes; `binds` names the mla operand,
attribute or result an argument carries. From these declarations come the aclnn dialect's ops,
the C prototypes (headers for the tests and the C++ emitter), the NPU backend's ctypes calls and
the CPU backend's dispatch to the kernels (through `binds`, or runtime/cpu_calls.py).
"""
from __future__ import annotations

from .aclnn import (
    ACLNN,
    CallArguments,
    Cost,
    Function,
    boolean,
    dtype,
    f64,
    i8,
    i32,
    i64,
    int_array,
    opt_out,
    opt_tensor,
    opt_tensor_list,
    out,
    out_tensor_list,
    ref,
    scalar,
    string,
    tensor,
    tensor_bytes,
    tensor_list,
)
from .decoder import MoeFinalizeRouting, MoeInitRouting, SwiGlu
from .dsa import KvQuantSparseFlashAttention, LightningIndexer, PrologV3, QuantLightningIndexer, SparseFlashAttention
from .fia import FusedInferAttentionScore
from .moe_distribute import MoeDistributeCombine, MoeDistributeDispatch
from .nsa import NsaCompressAttentionInfer
from .primitive import (
    Add,
    Amax,
    Div,
    DynamicQuant,
    FormatCast,
    KvRmsNormRopeCache,
    Mean,
    Mul,
    Quantize,
    Rope,
    Rsqrt,
    Transpose,
    TransposeBatchMatmul,
)
from .primitive.indexer import BatchMatmul, LayerNorm, Relu, TopK
from .prolog import Prolog, PrologV2

# --- cost formulas (the roofline, ascend_mla/cost.py) ------------------------------------------
# Cube FLOPs: 2*M*N*K per product. Bytes: every tensor whole, except the rows of a paged cache a
# call writes (cache_index / slot_mapping) or reads (the kv lengths under a block table) and the
# rows an embedding gathers.

def _per_row(cache) -> int:
    """Bytes of one token's row of a paged cache (BlockNum, BlockSize, ...)."""
    return tensor_bytes(cache) // (cache.shape[0] * cache.shape[1])


def _prolog_cost(call: CallArguments) -> Cost:
    """The four projections for each token; one cache row written per token."""
    rows = call.info("cacheIndex").numel
    for cache in ("kvCacheRef", "krCacheRef"):
        call.touch(cache, rows * _per_row(call.info(cache)))
    x = call.info("tokenX")
    weights = ("weightDq", "weightUqQr", "weightUk", "weightDkvKr")
    return Cost(2 * (x.numel // x.shape[-1]) * sum(call.info(w).numel for w in weights),
                call.info("weightUqQr").dtype == "i8")


def _scatter_cost(call: CallArguments) -> Cost:
    """One row written per slot of each cache given (a 0-d placeholder is no cache)."""
    rows = call.info("slotMapping").numel
    for cache in ("keyCacheRef", "valueCacheRef"):
        if call.info(cache).rank >= 2:
            call.touch(cache, rows * _per_row(call.info(cache)))
    return Cost()


def _embedding_cost(call: CallArguments) -> Cost:
    """The rows gathered, not the table."""
    call.touch("weight", tensor_bytes(call.info("out")))
    return Cost()


def _matmul_cost(call: CallArguments) -> Cost:
    """2*M*N*K: K from x (transposed or not)."""
    x = call.info("self") if call.info("self") is not None else call.info("x1")
    transposed = bool(call.host("transposeX1"))
    return Cost(2 * call.info("out").numel * (x.shape[-2] if transposed else x.shape[-1]), x.dtype == "i8")


def _attention_cost(call: CallArguments) -> Cost:
    """QK^T and PV per query row and head over the mean kv length; under a block table, the
    key/value rows of the kv lengths are what is read."""
    query, out_ = call.info("query"), call.info("attentionOut")
    heads = call.host("numHeads") or 1
    layout = call.host("inputLayout") or "BSH"
    per_head = (lambda info: info.shape[-1] // heads) if layout in ("BSH", "SH") else (lambda info: info.shape[-1])
    d_qk, d_v = per_head(query), per_head(out_)
    if call.info("queryRopeOptional") is not None:
        d_qk += per_head(call.info("queryRopeOptional"))
    rows = out_.numel // d_v                                   # query tokens x heads
    kv = [t for name in ("key", "value", "keyRopeOptional") for t in call.tensors(name)]
    table = call.info("blockTableOptional")
    if table is not None:
        block_size = call.host("blockSize") or 1
        lengths = call.kv_lengths("actualSeqLengthsKvOptional", [table.shape[1] * block_size] * table.shape[0])
        for t in kv:
            call.touch(t, sum(lengths) * tensor_bytes(t.info) // (t.info.shape[0] * block_size))
        mean_length = sum(lengths) / max(len(lengths), 1)
    else:
        lengths = call.int_list("actualSeqLengthsKvOptional")
        if lengths:
            mean_length = sum(lengths) / len(lengths)
        else:                                                  # the key's sequence axis
            mean_length = kv[0].info.shape[2 if layout.startswith("BN") else 1]
    return Cost(int(2 * rows * mean_length * (d_qk + d_v)), query.dtype == "i8")


# --- MLA prolog (seeds 001 and 000) ---------------------------------------------------------

_PROLOG_INPUTS = (
    tensor("tokenX", "token_x"), tensor("weightDq", "weight_dq"),
    tensor("weightUqQr", "weight_uq_qr"), tensor("weightUk", "weight_uk"),
    tensor("weightDkvKr", "weight_dkv_kr"), tensor("rmsnormGammaCq", "rmsnorm_gamma_cq"),
    tensor("rmsnormGammaCkv", "rmsnorm_gamma_ckv"), tensor("ropeSin", "rope_sin"),
    tensor("ropeCos", "rope_cos"), tensor("cacheIndex", "cache_index"),
    ref("kvCacheRef", "kv_cache"), ref("krCacheRef", "kr_cache"),
    opt_tensor("dequantScaleXOptional", "dequant_scale_x"),
    opt_tensor("dequantScaleWDqOptional", "dequant_scale_w_dq"),
    opt_tensor("dequantScaleWUqQrOptional", "dequant_scale_w_uq_qr"),
    opt_tensor("dequantScaleWDkvKrOptional", "dequant_scale_w_dkv_kr"),
    opt_tensor("quantScaleCkvOptional", "quant_scale_ckv"),
    opt_tensor("quantScaleCkrOptional", "quant_scale_ckr"),
    opt_tensor("smoothScalesCqOptional", "smooth_scales_cq"),
    f64("rmsnormEpsilonCq", "rmsnorm_epsilon_cq"), f64("rmsnormEpsilonCkv", "rmsnorm_epsilon_ckv"),
    string("cacheModeOptional", "cache_mode"),
    out("queryOut", "query"), out("queryRopeOut", "query_rope"))

MLA_PROLOG = ACLNN.add(Function(
    "aclnnMlaProlog", _PROLOG_INPUTS,
    kernel=Prolog, source="seed 001", cost=_prolog_cost))

MLA_PROLOG_V2 = ACLNN.add(Function(
    "aclnnMlaPrologV2WeightNz",
    _PROLOG_INPUTS + (opt_out("dequantScaleQNopeOutOptional", "dequant_scale_q_nope"),),
    kernel=PrologV2, source="seed 000", cost=_prolog_cost))

# --- FusedInferAttentionScore (seed 004; V3 adds the MLA rope inputs) -----------------------

_FIA_HEAD = (
    tensor("query", "query"), tensor_list("key", "key"), tensor_list("value", "value"),
    opt_tensor("pseShiftOptional", "pse_shift"), opt_tensor("attenMaskOptional", "atten_mask"),
    int_array("actualSeqLengthsOptional", "actual_seq_lengths"),
    int_array("actualSeqLengthsKvOptional", "actual_seq_lengths_kv"),
    opt_tensor("deqScale1Optional", "dequant_scale1"),
    opt_tensor("quantScale1Optional", "quant_scale1"),
    opt_tensor("deqScale2Optional", "dequant_scale2"),
    opt_tensor("quantScale2Optional", "quant_scale2"),
    opt_tensor("quantOffset2Optional", "quant_offset2"),
    opt_tensor("antiquantScaleOptional", "antiquant_scale"),
    opt_tensor("antiquantOffsetOptional", "antiquant_offset"),
    opt_tensor("blockTableOptional", "block_table"),
    opt_tensor("queryPaddingSizeOptional", "query_padding_size"),
    opt_tensor("kvPaddingSizeOptional", "kv_padding_size"),
    opt_tensor("keyAntiquantScaleOptional", "key_antiquant_scale"),
    opt_tensor("keyAntiquantOffsetOptional", "key_antiquant_offset"),
    opt_tensor("valueAntiquantScaleOptional", "value_antiquant_scale"),
    opt_tensor("valueAntiquantOffsetOptional", "value_antiquant_offset"),
    opt_tensor("keySharedPrefixOptional", "key_shared_prefix"),
    opt_tensor("valueSharedPrefixOptional", "value_shared_prefix"),
    int_array("actualSharedPrefixLenOptional", "actual_shared_prefix_len"))
_FIA_TAIL = (
    i64("numHeads", "num_heads"), f64("scaleValue", "scale_value"),
    i64("preTokens", "pre_tokens"), i64("nextTokens", "next_tokens"),
    string("inputLayout", "input_layout"), i64("numKeyValueHeads", "num_key_value_heads"),
    i64("sparseMode", "sparse_mode"), i64("innerPrecise", "inner_precise"),
    i64("blockSize", "block_size"), i64("antiquantMode", "antiquant_mode"),
    boolean("softmaxLseFlag", "softmax_lse_flag"), i64("keyAntiquantMode", "key_antiquant_mode"),
    i64("valueAntiquantMode", "value_antiquant_mode"),
    out("attentionOut", "attention_out"), opt_out("softmaxLse", "softmax_lse"))

FIA_V2 = ACLNN.add(Function(
    "aclnnFusedInferAttentionScoreV2",
    _FIA_HEAD + _FIA_TAIL, kernel=FusedInferAttentionScore, source="seed 004", cost=_attention_cost))

# NON-SEED: seed 004 (V2) has no rope inputs; the MLA mode (query_rope/key_rope, the catalog's
# "Option B") is the public CANN aclnnFusedInferAttentionScoreV3 prototype: V2's arguments with
# queryRopeOptional, keyRopeOptional, keyRopeAntiquantScaleOptional after actualSharedPrefixLen.
FIA_V3 = ACLNN.add(Function(
    "aclnnFusedInferAttentionScoreV3",
    _FIA_HEAD + (opt_tensor("queryRopeOptional", "query_rope"),
                 opt_tensor("keyRopeOptional", "key_rope"),
                 opt_tensor("keyRopeAntiquantScaleOptional")) + _FIA_TAIL,
    kernel=FusedInferAttentionScore, cost=_attention_cost,
    source="NON-SEED: public CANN aclnnFusedInferAttentionScoreV3 (MLA rope inputs)"))

# --- NsaCompressAttentionInfer (seed 003) ---------------------------------------------------

NSA = ACLNN.add(Function(
    "aclnnNsaCompressAttentionInfer",
    (tensor("query", "query"), tensor("key", "key"), tensor("value", "value"),
     opt_tensor("attentionMaskOptional", "atten_mask"),
     opt_tensor("blockTableOptional", "block_table"),
     int_array("actualQSeqLenOptional", "actual_seq_qlen"),
     int_array("actualCmpKvSeqLenOptional", "actual_cmp_seq_kvlen"),
     int_array("actualSelKvSeqLenOptional", "actual_sel_seq_kvlen"),
     opt_tensor("topKMaskOptional", "topk_mask"),
     i64("numHeads", "head_num"), i64("numKeyValueHeads", "key_value_head_num"),
     i64("selectBlockSize", "select_block_size"), i64("selectBlockCount", "select_block_count"),
     i64("compressBlockSize", "compress_block_size"),
     i64("compressBlockStride", "compress_stride"), f64("scaleValue", "scale_value"),
     string("layoutOptional", "layout"), i64("pageBlockSize", "page_block_size"),
     i64("sparseMode", "sparse_mode"),
     out("output", "output"), out("topKOutput", "topk_indices")),
    kernel=NsaCompressAttentionInfer, source="seed 003"))

# --- DeepSeek Sparse Attention (docs/dsa.md; the DSA reference's prototypes) ------------------
# The actual lengths and the block table are device tensors here (not host int arrays as in
# FIA): vLLM-Ascend's cumulative lengths stay on the device between steps.

_LENGTHS = (opt_tensor("actualSeqLengthsQueryOptional", "actual_seq_lengths_query"),)

LIGHTNING_INDEXER = ACLNN.add(Function(
    "aclnnLightningIndexer",
    (tensor("query", "query"), tensor("key", "key"), tensor("weights", "weights"),
     *_LENGTHS, opt_tensor("actualSeqLengthsKeyOptional", "actual_seq_lengths_key"),
     opt_tensor("blockTableOptional", "block_table"),
     string("layoutQueryOptional", "layout_query"), string("layoutKeyOptional", "layout_key"),
     i64("sparseCount", "sparse_count"), i64("sparseMode", "sparse_mode"),
     i64("preTokens", "pre_tokens"), i64("nextTokens", "next_tokens"),
     boolean("returnValues", "return_value"),
     out("sparseIndicesOut", "sparse_indices"), out("sparseValuesOut", "sparse_values")),
    kernel=LightningIndexer, source="NON-SEED: aclnnLightningIndexer (hicann ops-transformer docs)"))

QUANT_LIGHTNING_INDEXER = ACLNN.add(Function(
    "aclnnQuantLightningIndexer",
    (tensor("query", "query"), tensor("key", "key"), tensor("weights", "weights"),
     tensor("queryDequantScale", "query_dequant_scale"),
     tensor("keyDequantScale", "key_dequant_scale"),
     *_LENGTHS, opt_tensor("actualSeqLengthsKeyOptional", "actual_seq_lengths_key"),
     opt_tensor("blockTableOptional", "block_table"),
     i64("queryQuantMode", "query_quant_mode"), i64("keyQuantMode", "key_quant_mode"),
     string("layoutQueryOptional", "layout_query"), string("layoutKeyOptional", "layout_key"),
     i64("sparseCount", "sparse_count"), i64("sparseMode", "sparse_mode"),
     i64("preTokens", "pre_tokens"), i64("nextTokens", "next_tokens"),
     out("out", "sparse_indices")),
    kernel=QuantLightningIndexer,
    source="NON-SEED: aclnnQuantLightningIndexer (hicann ops-transformer op_api header)"))

_SFA_HEAD = (
    tensor("query", "query"), tensor("key", "key"), tensor("value", "value"),
    tensor("sparseIndices", "sparse_indices"), opt_tensor("blockTableOptional", "block_table"),
    *_LENGTHS, opt_tensor("actualSeqLengthsKvOptional", "actual_seq_lengths_kv"),
    opt_tensor("queryRopeOptional", "query_rope"), opt_tensor("keyRopeOptional", "key_rope"))
_SFA_TAIL = (
    f64("scaleValue", "scale_value"), i64("sparseBlockSize", "sparse_block_size"),
    string("layoutQuery", "layout_query"), string("layoutKv", "layout_kv"),
    i64("sparseMode", "sparse_mode"), i64("preTokens", "pre_tokens"),
    i64("nextTokens", "next_tokens"), i64("attentionMode", "attention_mode"),
    boolean("returnSoftmaxLse", "return_softmax_lse"),
    out("attentionOutOut", "attention_out"), out("softmaxMaxOut", "softmax_max"),
    out("softmaxSumOut", "softmax_sum"))

SPARSE_FLASH_ATTENTION = ACLNN.add(Function(
    "aclnnSparseFlashAttention", _SFA_HEAD + _SFA_TAIL, kernel=SparseFlashAttention,
    source="NON-SEED: aclnnSparseFlashAttention (hicann ops-transformer docs)"))

# V2: sinksOptional after keyRopeOptional (Ascend 950's learnable sinks).
SPARSE_FLASH_ATTENTION_V2 = ACLNN.add(Function(
    "aclnnSparseFlashAttentionV2", _SFA_HEAD + (opt_tensor("sinksOptional", "sinks"),) + _SFA_TAIL,
    kernel=SparseFlashAttention,
    source="NON-SEED: aclnnSparseFlashAttentionV2 (hicann ops-transformer docs)"))

KV_QUANT_SPARSE_FLASH_ATTENTION = ACLNN.add(Function(
    "aclnnKvQuantSparseFlashAttention",
    (tensor("query", "query"), tensor("key", "key"), tensor("value", "value"),
     tensor("sparseIndices", "sparse_indices"),
     opt_tensor("keyDequantScaleOptional", "key_dequant_scale"),
     opt_tensor("valueDequantScaleOptional", "value_dequant_scale"),
     opt_tensor("blockTableOptional", "block_table"), *_LENGTHS,
     opt_tensor("actualSeqLengthsKvOptional", "actual_seq_lengths_kv"),
     f64("scaleValue", "scale_value"), i64("keyQuantMode", "key_quant_mode"),
     i64("valueQuantMode", "value_quant_mode"), i64("sparseBlockSize", "sparse_block_size"),
     string("layoutQueryOptional", "layout_query"), string("layoutKvOptional", "layout_kv"),
     i64("sparseMode", "sparse_mode"), i64("preTokens", "pre_tokens"),
     i64("nextTokens", "next_tokens"), i64("attentionMode", "attention_mode"),
     i64("quantScaleRepoMode", "quant_scale_repo_mode"), i64("tileSize", "tile_size"),
     i64("ropeHeadDim", "rope_head_dim"), out("out", "attention_out")),
    kernel=KvQuantSparseFlashAttention,
    source="NON-SEED: aclnnKvQuantSparseFlashAttention (ops-transformer generated header)"))

# The 2025-12 header (H-PV3): no queryNormFlag argument; query_norm / dequant_scale_q_norm are
# passed (queryNormOutOptional, ...) only when torch_npu's query_norm_flag is set.
MLA_PROLOG_V3 = ACLNN.add(Function(
    "aclnnMlaPrologV3WeightNz",
    (tensor("tokenX", "token_x"), tensor("weightDq", "weight_dq"),
     tensor("weightUqQr", "weight_uq_qr"), tensor("weightUk", "weight_uk"),
     tensor("weightDkvKr", "weight_dkv_kr"), tensor("rmsnormGammaCq", "rmsnorm_gamma_cq"),
     tensor("rmsnormGammaCkv", "rmsnorm_gamma_ckv"), tensor("ropeSin", "rope_sin"),
     tensor("ropeCos", "rope_cos"), ref("kvCacheRef", "kv_cache", ctype="aclTensor *"),
     ref("krCacheRef", "kr_cache", ctype="aclTensor *"),
     opt_tensor("cacheIndexOptional", "cache_index"),
     opt_tensor("dequantScaleXOptional", "dequant_scale_x"),
     opt_tensor("dequantScaleWDqOptional", "dequant_scale_w_dq"),
     opt_tensor("dequantScaleWUqQrOptional", "dequant_scale_w_uq_qr"),
     opt_tensor("dequantScaleWDkvKrOptional", "dequant_scale_w_dkv_kr"),
     opt_tensor("quantScaleCkvOptional", "quant_scale_ckv"),
     opt_tensor("quantScaleCkrOptional", "quant_scale_ckr"),
     opt_tensor("smoothScalesCqOptional", "smooth_scales_cq"),
     opt_tensor("actualSeqLenOptional", "actual_seq_len"),
     opt_tensor("kNopeClipAlphaOptional", "k_nope_clip_alpha"),
     f64("rmsnormEpsilonCq", "rmsnorm_epsilon_cq"), f64("rmsnormEpsilonCkv", "rmsnorm_epsilon_ckv"),
     string("cacheModeOptional", "cache_mode"), i64("weightQuantMode", "weight_quant_mode"),
     i64("kvCacheQuantMode", "kv_cache_quant_mode"), i64("queryQuantMode", "query_quant_mode"),
     i64("ckvkrRepoMode", "ckvkr_repo_mode"), i64("quantScaleRepoMode", "quant_scale_repo_mode"),
     i64("tileSize", "tile_size"), f64("qcQrScale", "qc_qr_scale"), f64("kcScale", "kc_scale"),
     out("queryOut", "query"), out("queryRopeOut", "query_rope"),
     opt_out("dequantScaleQNopeOutOptional", "dequant_scale_q_nope"),
     opt_out("queryNormOutOptional", "query_norm"),
     opt_out("dequantScaleQNormOutOptional", "dequant_scale_q_norm")),
    kernel=PrologV3, source="NON-SEED: aclnn_mla_prolog_v3_weight_nz.h (ops-transformer, 2025-12)"))

# --- FusedInferAttentionScoreV4: the interface torch_npu.npu_fused_infer_attention_score_v2
# calls (op-plugin FusedInferAttentionScoreV2KernelNpuOpApi.cpp); V3's arguments plus the
# query's dequantization (dequantScaleQueryOptional, queryQuantMode) of the full-quant MLA mode.
# mla.fused_infer_attention_score's MLA full-quant mode lowers to it through the binds; the
# attention primitives lower to it too (lowering/attention.py _v4). Its one CPU path is its CPU
# implementation (runtime/cpu_calls.py), not a `kernel`: it runs the op's kernel through the
# binds for the op's calls and the primitive's kernel for the primitives' (floating-point, or
# marked with the mla.numerics variant).

_V4_TENSORS = _FIA_HEAD + (
    opt_tensor("queryRopeOptional", "query_rope"), opt_tensor("keyRopeOptional", "key_rope"),
    opt_tensor("keyRopeAntiquantScaleOptional"),
    opt_tensor("dequantScaleQueryOptional", "dequant_scale_query"))
_V4_HOST = _FIA_TAIL[:-2] + (i64("queryQuantMode", "query_quant_mode"),)
FIA_V4 = ACLNN.add(Function(
    "aclnnFusedInferAttentionScoreV4",
    _V4_TENSORS + _V4_HOST + (out("attentionOut", "attention_out"),
                              opt_out("softmaxLse", "softmax_lse")),
    source="NON-SEED: public CANN aclnnFusedInferAttentionScoreV4 (ops-transformer docs)", cost=_attention_cost))

# --- primitives: the standard kernels torch_npu calls (evidence in lowering/primitive.py) ------
# NON-SEED prototypes, from the public CANN operator documents (hicann ops-nn / ops-math /
# ops-transformer docs/aclnn*.md). `strided`: the document accepts non-contiguous tensors.

_OUT = "aclTensor *"          # outputs the documents declare without const

RMS_NORM = ACLNN.add(Function(
    "aclnnRmsNorm",
    (tensor("x", "x"), tensor("gamma", "gamma"), f64("epsilon", "epsilon"),
     out("yOut", "y"), out("rstdOut")),
    source="NON-SEED: public CANN aclnnRmsNorm", strided=True))

MATMUL = ACLNN.add(Function(
    "aclnnMatmul",
    (tensor("self"), tensor("mat2"), out("out", ctype=_OUT), i8("cubeMathType")),
    source="NON-SEED: public CANN aclnnMatmul", strided=True, cost=_matmul_cost))

MATMUL_WEIGHT_NZ = ACLNN.add(Function(
    "aclnnMatmulWeightNz",
    (tensor("self"), tensor("mat2"), out("out", ctype=_OUT), i8("cubeMathType")),
    source="NON-SEED: public CANN aclnnMatmulWeightNz", cost=_matmul_cost))

QUANT_MATMUL_V4 = ACLNN.add(Function(
    "aclnnQuantMatmulV4",
    (tensor("x1"), tensor("x2"), tensor("scale"), opt_tensor("offset"),
     opt_tensor("pertokenScaleOptional"), opt_tensor("bias"), boolean("transposeX1"),
     boolean("transposeX2"), out("out")),
    source="NON-SEED: public CANN aclnnQuantMatmulV4", cost=_matmul_cost))

QUANT_MATMUL_WEIGHT_NZ = ACLNN.add(Function(
    "aclnnQuantMatmulWeightNz",
    (tensor("x1"), tensor("x2"), opt_tensor("x1Scale"), tensor("x2Scale"), opt_tensor("yScale"),
     opt_tensor("x1Offset"), opt_tensor("x2Offset"), opt_tensor("yOffset"), opt_tensor("bias"),
     boolean("transposeX1"), boolean("transposeX2"), i64("groupSize"), out("out", ctype=_OUT)),
    source="NON-SEED: public CANN aclnnQuantMatmulWeightNz", cost=_matmul_cost))

INTERLEAVE_ROPE = ACLNN.add(Function(
    "aclnnInterleaveRope",
    (tensor("x", "x", "const aclTensor *"), tensor("cos", "cos"), tensor("sin", "sin"),
     out("out", "y", _OUT)),
    kernel=Rope, source="NON-SEED: ops-transformer aclnn_interleave_rope.h"))

ROTARY_POSITION_EMBEDDING = ACLNN.add(Function(
    "aclnnRotaryPositionEmbedding",
    (tensor("x"), tensor("cos"), tensor("sin"), i64("mode"), out("out", ctype=_OUT)),
    source="NON-SEED: public CANN aclnnRotaryPositionEmbedding"))

DYNAMIC_QUANT = ACLNN.add(Function(
    "aclnnDynamicQuant",
    (tensor("x", "x"), opt_tensor("smoothScalesOptional", "smooth_scales"),
     out("yOut", "y"), out("scaleOut", "scale")),
    kernel=DynamicQuant, source="NON-SEED: public CANN aclnnDynamicQuant", strided=True))

ASCEND_QUANT_V3 = ACLNN.add(Function(
    "aclnnAscendQuantV3",
    (tensor("x", "x"), tensor("scale", "scale"), opt_tensor("offset"), boolean("sqrtMode"),
     string("roundMode", ctype="const char *"), i32("dstType"), i32("axis"), out("y", "y")),
    kernel=Quantize, source="NON-SEED: public CANN aclnnAscendQuantV3"))

ADD = ACLNN.add(Function(
    "aclnnAdd",
    (tensor("self", "x"), tensor("other", "y"), scalar("alpha"), out("out", "z", _OUT)),
    kernel=Add, source="NON-SEED: public CANN aclnnAdd", strided=True))

MUL = ACLNN.add(Function(
    "aclnnMul",
    (tensor("self", "x"), tensor("other", "y"), out("out", "z", _OUT)),
    kernel=Mul, source="NON-SEED: public CANN aclnnMul", strided=True))

DIV = ACLNN.add(Function(
    "aclnnDiv",
    (tensor("self", "x"), tensor("other", "y"), out("out", "z", _OUT)),
    kernel=Div, source="NON-SEED: public CANN aclnnDiv", strided=True))

SCATTER_PA_KV_CACHE = ACLNN.add(Function(
    "aclnnScatterPaKvCache",
    (tensor("key"), ref("keyCacheRef", ctype=_OUT), tensor("slotMapping"), tensor("value"),
     ref("valueCacheRef", ctype=_OUT), opt_tensor("compressLensOptional"),
     opt_tensor("compressSeqOffsetOptional"), opt_tensor("seqLensOptional"),
     string("cacheModeOptional"), string("scatterModeOptional"),
     int_array("stridesOptional"), int_array("offsetsOptional")),
    source="NON-SEED: public CANN aclnnScatterPaKvCache", strided=True, cost=_scatter_cost))

EMBEDDING = ACLNN.add(Function(
    "aclnnEmbedding",
    (tensor("weight"), tensor("indices"), out("out")),
    source="NON-SEED: public CANN aclnnEmbedding", cost=_embedding_cost))

NPU_FORMAT_CAST = ACLNN.add(Function(
    "aclnnNpuFormatCast",
    (tensor("srcTensor", "x"), out("dstTensor", "y", _OUT)),
    kernel=FormatCast, source="NON-SEED: public CANN aclnnNpuFormatCast"))

PERMUTE = ACLNN.add(Function(
    "aclnnPermute",
    (tensor("self", "x"), int_array("dims", "permutation"), out("out", "y", _OUT)),
    kernel=Transpose, source="NON-SEED: public CANN aclnnPermute", strided=True))

INPLACE_COPY = ACLNN.add(Function(
    "aclnnInplaceCopy",
    (ref("selfRef", ctype=_OUT), tensor("src")),
    source="NON-SEED: public CANN aclnnInplaceCopy", strided=True))

CAST = ACLNN.add(Function(
    "aclnnCast",
    (tensor("self"), dtype("dtype", ctype="const aclDataType"), out("out", ctype=_OUT)),
    source="NON-SEED: public CANN aclnnCast", strided=True))

CAT = ACLNN.add(Function(
    "aclnnCat",
    (tensor_list("tensors"), i64("dim"), out("out", ctype=_OUT)),
    source="NON-SEED: public CANN aclnnCat", strided=True))

INPLACE_ONE = ACLNN.add(Function(
    "aclnnInplaceOne", (ref("selfRef"),), source="NON-SEED: public CANN aclnnInplaceOne"))

TRIU = ACLNN.add(Function(
    "aclnnTriu",
    (tensor("self"), i64("diagonal"), out("out", ctype=_OUT)),
    source="NON-SEED: public CANN aclnnTriu"))

LOGICAL_OR = ACLNN.add(Function(
    "aclnnLogicalOr",
    (tensor("self"), tensor("other"), out("out", ctype=_OUT)),
    source="NON-SEED: public CANN aclnnLogicalOr", strided=True))

# --- DSA's indexer primitives (dialect/primitive/indexer.py; lowering/dsa.py) ------------------

LAYER_NORM = ACLNN.add(Function(
    "aclnnLayerNorm",
    (tensor("input", "x"), int_array("normalizedShape"), opt_tensor("weightOptional", "gamma"),
     opt_tensor("biasOptional", "beta"), f64("eps", "epsilon"), out("out", "y", _OUT),
     opt_out("meanOutOptional", ctype=_OUT), opt_out("rstdOutOptional", ctype=_OUT)),
    kernel=LayerNorm, source="NON-SEED: public CANN aclnnLayerNorm"))

RELU = ACLNN.add(Function(
    "aclnnRelu", (tensor("self", "x"), out("out", "y", _OUT)),
    kernel=Relu, source="NON-SEED: public CANN aclnnRelu", strided=True))

BATCH_MATMUL = ACLNN.add(Function(
    "aclnnBatchMatMul",
    (tensor("self", "x"), tensor("mat2", "y"), out("out", "z", _OUT), i8("cubeMathType")),
    kernel=BatchMatmul, source="NON-SEED: public CANN aclnnBatchMatMul", strided=True))

INDEX_SELECT = ACLNN.add(Function(
    "aclnnIndexSelect",
    (tensor("self"), i64("dim"), tensor("index"), out("out", ctype=_OUT)),
    source="NON-SEED: public CANN aclnnIndexSelect"))

GT_TENSOR = ACLNN.add(Function(
    "aclnnGtTensor", (tensor("self"), tensor("other"), out("out", ctype=_OUT)),
    source="NON-SEED: public CANN aclnnGtTensor", strided=True))

INPLACE_MASKED_FILL_SCALAR = ACLNN.add(Function(
    "aclnnInplaceMaskedFillScalar", (ref("selfRef", ctype=_OUT), tensor("mask"), scalar("value")),
    source="NON-SEED: public CANN aclnnInplaceMaskedFillScalar"))

TOPK = ACLNN.add(Function(
    "aclnnTopk",
    (tensor("self", "x"), i64("k", "k"), i64("dim"), boolean("largest"), boolean("sorted"),
     out("valuesOut", "values", _OUT), out("indicesOut", "indices", _OUT)),
    kernel=TopK, source="NON-SEED: public CANN aclnnTopk"))

SCATTER_VALUE = ACLNN.add(Function(
    "aclnnScatterValue",
    (tensor("self"), i64("dim"), tensor("index"), scalar("value"), i64("reduction"), out("out", ctype=_OUT)),
    source="NON-SEED: public CANN aclnnScatterValue"))

MEAN = ACLNN.add(Function(
    "aclnnMean",
    (tensor("self", "x"), int_array("dim", ctype="const aclIntArray *"), boolean("keepDim"),
     dtype("dtype"), out("out", "y", _OUT)),
    kernel=Mean, source="NON-SEED: public CANN aclnnMean", strided=True))

RSQRT = ACLNN.add(Function(
    "aclnnRsqrt",
    (tensor("self", "x"), out("out", "y", _OUT)),
    kernel=Rsqrt, source="NON-SEED: public CANN aclnnRsqrt", strided=True))

# The pieces of a written-out dynamic quant that raise-quant did not raise (passes/raise_quant.py).
AMAX = ACLNN.add(Function(
    "aclnnAmax",
    (tensor("self", "x"), int_array("dim", ctype="const aclIntArray *"), boolean("keepDim"),
     out("out", "y", _OUT)),
    kernel=Amax, source="NON-SEED: public CANN aclnnAmax", strided=True))

ABS = ACLNN.add(Function(
    "aclnnAbs", (tensor("self"), out("out", ctype=_OUT)),
    source="NON-SEED: public CANN aclnnAbs", strided=True))

ROUND = ACLNN.add(Function(
    "aclnnRound", (tensor("self"), out("out", ctype=_OUT)),
    source="NON-SEED: public CANN aclnnRound", strided=True))

MAXIMUM = ACLNN.add(Function(
    "aclnnMaximum", (tensor("self"), tensor("other"), out("out", ctype=_OUT)),
    source="NON-SEED: public CANN aclnnMaximum", strided=True))

MINIMUM = ACLNN.add(Function(
    "aclnnMinimum", (tensor("self"), tensor("other"), out("out", ctype=_OUT)),
    source="NON-SEED: public CANN aclnnMinimum", strided=True))

# --- the decoder's MLP and MoE (dialect/decoder.py; evidence in lowering/decoder.py) ------------
# NON-SEED prototypes from the public CANN / ops-transformer documents, checked against the
# torch_npu schemas (npu_native_functions_by_codegen.yaml) whose op-plugin calls them.

SWI_GLU = ACLNN.add(Function(
    "aclnnSwiGlu",
    (tensor("x", "x"), i64("dim", "dim"), out("out", "y")),
    kernel=SwiGlu, source="NON-SEED: public CANN aclnnSwiGlu"))

MOE_GATING_TOP_K = ACLNN.add(Function(
    "aclnnMoeGatingTopK",
    (tensor("x"), opt_tensor("biasOptional"), i64("k"), i64("kGroup"), i64("groupCount"),
     i64("groupSelectMode"), i64("renorm"), i64("normType"), boolean("outFlag"),
     f64("routedScalingFactor"), f64("eps"), out("yOut"), out("expertIdxOut"), out("outOut")),
    source="NON-SEED: ops-transformer aclnnMoeGatingTopK", strided=True))

MOE_INIT_ROUTING_V2 = ACLNN.add(Function(
    "aclnnMoeInitRoutingV2",
    (tensor("x", "x"), tensor("expertIdx", "expert_idx"), i64("activeNum"), i64("expertCapacity"),
     i64("expertNum", "expert_num"), i64("dropPadMode"), i64("expertTokensCountOrCumsumFlag"),
     boolean("expertTokensBeforeCapacityFlag"), out("expandedXOut", "expanded_x"),
     out("expandedRowIdxOut", "expanded_row_idx"),
     out("expertTokensCountOrCumsumOut", "expert_tokens"), opt_out("expertTokensBeforeCapacityOut")),
    kernel=MoeInitRouting, source="NON-SEED: ops-transformer aclnnMoeInitRoutingV2"))

GROUPED_MATMUL_V4 = ACLNN.add(Function(
    "aclnnGroupedMatmulV4",
    (tensor_list("x"), tensor_list("weight"), opt_tensor_list("biasOptional"),
     opt_tensor_list("scaleOptional"), opt_tensor_list("offsetOptional"),
     opt_tensor_list("antiquantScaleOptional"), opt_tensor_list("antiquantOffsetOptional"),
     opt_tensor_list("perTokenScaleOptional"), opt_tensor("groupListOptional"),
     opt_tensor_list("activationInputOptional"), opt_tensor_list("activationQuantScaleOptional"),
     opt_tensor_list("activationQuantOffsetOptional"), i64("splitItem"), i64("groupType"),
     i64("groupListType"), i64("actType"), out_tensor_list("out"),
     # outputs of the activation/quantization modes this compiler never asks for: always nullptr
     opt_tensor_list("activationFeatureOutOptional", ctype="aclTensorList *"),
     opt_tensor_list("dynQuantScaleOutOptional", ctype="aclTensorList *")),
    source="NON-SEED: ops-transformer aclnnGroupedMatmulV4"))

MOE_FINALIZE_ROUTING_V2 = ACLNN.add(Function(
    "aclnnMoeFinalizeRoutingV2",
    (tensor("expandedX", "expanded_x"), tensor("expandedRowIdx", "expanded_row_idx"),
     opt_tensor("x1Optional", "x1"), opt_tensor("x2Optional", "x2"), opt_tensor("biasOptional"),
     opt_tensor("scalesOptional", "scales"), opt_tensor("expertIdxOptional"), i64("dropPadMode"),
     out("out", "out")),
    kernel=MoeFinalizeRouting, source="NON-SEED: ops-transformer aclnnMoeFinalizeRoutingV2",
     strided=True))

# --- the serving primitives (dialect/primitive/cache.py, matmul.py; op-plugin KvRmsNormRopeCacheNpuOpApi.cpp and
# TransposeBatchMatMulKernelNpuOpApi.cpp make these calls) ----------------------------------------

KV_RMS_NORM_ROPE_CACHE = ACLNN.add(Function(
    "aclnnKvRmsNormRopeCache",
    (tensor("kv", "kv"), tensor("gamma", "gamma"), tensor("cos", "cos"), tensor("sin", "sin"),
     tensor("index", "index"), ref("kCacheRef", "k_cache", _OUT), ref("ckvCacheRef", "ckv_cache", _OUT),
     opt_tensor("kRopeScaleOptional", "k_rope_scale"), opt_tensor("ckvScaleOptional", "c_kv_scale"),
     opt_tensor("kRopeOffsetOptional", "k_rope_offset"), opt_tensor("cKvOffsetOptional", "c_kv_offset"),
     f64("epsilon", "epsilon"), string("cacheModeOptional", "cache_mode", "char *"),
     boolean("isOutputKv", "is_output_kv"), out("kRopeOut", "k_embed_out", _OUT),
     out("cKvOut", "y_out", _OUT)),
    kernel=KvRmsNormRopeCache,
    source="NON-SEED: hicann ops-nn norm/kv_rms_norm_rope_cache docs/aclnnKvRmsNormRopeCache.md"))

TRANSPOSE_BATCH_MATMUL = ACLNN.add(Function(
    "aclnnTransposeBatchMatMul",
    (tensor("x1", "x"), tensor("x2", "w"), opt_tensor("bias"), opt_tensor("scale"),
     int_array("permX1", "perm_x1"), int_array("permX2", "perm_x2"), int_array("permY", "perm_y"),
     i8("cubeMathType"), i32("batchSplitFactor", "batch_split_factor", "const int32_t"),
     out("out", "y", _OUT)),
    kernel=TransposeBatchMatmul,
    source="NON-SEED: ops-transformer TransposeBatchMatMul docs/aclnnTransposeBatchMatMul.md",
    strided=True))

# --- expert parallelism (dialect/moe_distribute.py; torch_npu's npu_moe_distribute_dispatch_v2 /
# npu_moe_distribute_combine_v2 make these calls, op-plugin MoeDistributeDispatchV2KernelOpApi.cpp) --
# groupEp is the EP communicator's name (HcclGetCommName) and epRankId its rank (HcclGetRankId),
# both read from the communicator at run time: the program text is the same on every rank.

MOE_DISTRIBUTE_DISPATCH_V2 = ACLNN.add(Function(
    "aclnnMoeDistributeDispatchV2",
    (tensor("x", "x"), tensor("expertIds", "expert_ids"), opt_tensor("scalesOptional", "scales"),
     opt_tensor("xActiveMaskOptional", "x_active_mask"), opt_tensor("expertScalesOptional", "expert_scales"),
     string("groupEp", "group", "const char *"), i64("epWorldSize", "ep_world_size"), i64("epRankId"),
     i64("moeExpertNum", "moe_expert_num"), string("groupTp", None, "const char *"),
     i64("tpWorldSize", "tp_world_size"), i64("tpRankId"), i64("expertShardType", "expert_shard_type"),
     i64("sharedExpertNum", "shared_expert_num"), i64("sharedExpertRankNum", "shared_expert_rank_num"),
     i64("quantMode", "quant_mode"), i64("globalBs", "global_bs"),
     i64("expertTokenNumsType", "expert_token_nums_type"), string("commAlg", "comm_alg", "const char *"),
     out("expandXOut", "expand_x", _OUT), out("dynamicScalesOut", "dynamic_scales", _OUT),
     out("assistInfoForCombineOut", "assist_info_for_combine", _OUT),
     out("expertTokenNumsOut", "expert_token_nums", _OUT), out("epRecvCountsOut", "ep_recv_counts", _OUT),
     out("tpRecvCountsOut", None, _OUT), out("expandScalesOut", "expand_scales", _OUT)),
    kernel=MoeDistributeDispatch, strided=True,
    source="NON-SEED: hicann ops-transformer mc2/moe_distribute_dispatch_v2/docs/aclnnMoeDistributeDispatchV2.md"))

MOE_DISTRIBUTE_COMBINE_V2 = ACLNN.add(Function(
    "aclnnMoeDistributeCombineV2",
    (tensor("expandX", "expand_x"), tensor("expertIds", "expert_ids"),
     tensor("assistInfoForCombine", "assist_info_for_combine"), tensor("epSendCounts", "ep_send_counts"),
     tensor("expertScales", "expert_scales"), opt_tensor("tpSendCountsOptional"),
     opt_tensor("xActiveMaskOptional", "x_active_mask"), opt_tensor("activationScaleOptional"),
     opt_tensor("weightScaleOptional"), opt_tensor("groupListOptional"),
     opt_tensor("expandScalesOptional", "expand_scales"), opt_tensor("sharedExpertXOptional", "shared_expert_x"),
     string("groupEp", "group", "const char *"), i64("epWorldSize", "ep_world_size"), i64("epRankId"),
     i64("moeExpertNum", "moe_expert_num"), string("groupTp", None, "const char *"),
     i64("tpWorldSize", "tp_world_size"), i64("tpRankId"), i64("expertShardType", "expert_shard_type"),
     i64("sharedExpertNum", "shared_expert_num"), i64("sharedExpertRankNum", "shared_expert_rank_num"),
     i64("globalBs", "global_bs"), i64("outDtype"), i64("commQuantMode", "comm_quant_mode"),
     i64("groupListType"), string("commAlg", "comm_alg", "const char *"), out("xOut", "x", _OUT)),
    kernel=MoeDistributeCombine, strided=True,
    source="NON-SEED: hicann ops-transformer mc2/moe_distribute_combine_v2/docs/aclnnMoeDistributeCombineV2.md"))

"""Every aclnn operator API the compiler calls, declared once (the import table).

The argument order and C types are the documented prototypes; `binds` names the mla operand,
attribute or result an argument carries. From these declarations come the aclnn dialect's ops,
the C prototypes (headers for the tests and the C++ emitter), the NPU backend's ctypes calls and
the CPU backend's dispatch to the interpreter's kernels. test_lowering_imports.py checks each
seed-documented prototype against the seed text itself.
"""
from __future__ import annotations

import numpy as np

from .aclnn import (ACLNN, Function, boolean, f64, i64, int_array, opt_out, opt_tensor, out, ref,
                    string, tensor, tensor_list)

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
    kernel="mla.prolog", source="seed 001"))

MLA_PROLOG_V2 = ACLNN.add(Function(
    "aclnnMlaPrologV2WeightNz",
    _PROLOG_INPUTS + (opt_out("dequantScaleQNopeOutOptional", "dequant_scale_q_nope"),),
    kernel="mla.prolog_v2", source="seed 000"))

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
    _FIA_HEAD + _FIA_TAIL, kernel="mla.fused_infer_attention_score", source="seed 004"))

# NON-SEED: seed 004 (V2) has no rope inputs; the MLA mode (query_rope/key_rope, the catalog's
# "Option B") is the public CANN aclnnFusedInferAttentionScoreV3 prototype: V2's arguments with
# queryRopeOptional, keyRopeOptional, keyRopeAntiquantScaleOptional after actualSharedPrefixLen.
FIA_V3 = ACLNN.add(Function(
    "aclnnFusedInferAttentionScoreV3",
    _FIA_HEAD + (opt_tensor("queryRopeOptional", "query_rope"),
                 opt_tensor("keyRopeOptional", "key_rope"),
                 opt_tensor("keyRopeAntiquantScaleOptional")) + _FIA_TAIL,
    kernel="mla.fused_infer_attention_score",
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
    kernel="mla.nsa_compress_attention_infer", source="seed 003"))

# --- primitives -----------------------------------------------------------------------------


def _rms_norm_cpu(call):
    """aclnnRmsNorm on the CPU: y from the mla.rms_norm kernel, rstd = 1/sqrt(mean(x^2)+eps) in
    float32 (the kernel's own intermediate; the op does not return it)."""
    from ..runtime.formats import NZTensor
    x, eps = call.args["x"], call.args["epsilon"]
    (y,) = call.kernel("mla.rms_norm", {"x": x, "gamma": call.args["gamma"]}, {"epsilon": eps},
                       {"y": call.types["yOut"]})
    xf = np.asarray(x.to_nd() if isinstance(x, NZTensor) else x, np.float32)
    rstd = 1.0 / np.sqrt(np.mean(xf * xf, axis=-1, keepdims=True) + np.float32(eps))
    return {"yOut": y, "rstdOut": rstd.astype(np.float32)}


# NON-SEED: the public CANN aclnnRmsNorm (the norm torch_npu.npu_rms_norm calls); rstdOut is
# float32 with the normalised axis reduced to 1.
RMS_NORM = ACLNN.add(Function(
    "aclnnRmsNorm",
    (tensor("x", "x"), tensor("gamma", "gamma"), f64("epsilon", "epsilon"),
     out("yOut", "y"), out("rstdOut")),
    cpu=_rms_norm_cpu, source="NON-SEED: public CANN aclnnRmsNorm"))

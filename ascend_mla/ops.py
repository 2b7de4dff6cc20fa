"""Eager ops, torch_npu style (docs/api.md section 2).

Each function builds a one-op mla module, verifies it and runs it on the selected backend
(ascend_mla/eager.py). Keyword names, defaults and result order are the public contract.
"""
from __future__ import annotations

import inspect
import warnings

import numpy as np

from .errors import VerificationError, VerificationWarning
from .eager import call
from .dialect.primitive import RmsNorm
from .dialect.nsa import NsaCompressAttentionInfer
from .dialect.prolog import Prolog, PrologV2
from .dialect.fia import FusedInferAttentionScore


def rms_norm(x, gamma, *, epsilon=1e-5):
    """`mla.rms_norm` eagerly: x / sqrt(mean(x^2, -1) + epsilon) * gamma (float32 arithmetic)."""
    return call(RmsNorm, {"x": x, "gamma": gamma}, {"epsilon": epsilon})[0]


def npu_nsa_compress_attention_infer(query, key, value, scale_value, head_num, key_value_head_num,
                                     select_block_size, select_block_count, page_block_size,
                                     compress_block_size, compress_stride, *, atten_mask=None,
                                     block_table=None, topk_mask=None, actual_seq_qlen=None,
                                     actual_cmp_seq_kvlen=None, actual_sel_seq_kvlen=None,
                                     layout="TND", sparse_mode=0):
    """`mla.nsa_compress_attention_infer` eagerly: NSA compressed attention over the paged
    key/value, with the top-K selection blocks of each kv head. Returns (output, topk_indices).

    The host int arrays may be lists, tuples, NumPy arrays or torch tensors."""
    operands = {"query": query, "key": key, "value": value, "atten_mask": atten_mask,
                "block_table": block_table, "topk_mask": topk_mask}
    attributes = {"scale_value": scale_value, "head_num": head_num,
                  "key_value_head_num": key_value_head_num,
                  "select_block_size": select_block_size,
                  "select_block_count": select_block_count, "page_block_size": page_block_size,
                  "compress_block_size": compress_block_size, "compress_stride": compress_stride,
                  "actual_seq_qlen": actual_seq_qlen,
                  "actual_cmp_seq_kvlen": actual_cmp_seq_kvlen,
                  "actual_sel_seq_kvlen": actual_sel_seq_kvlen,
                  "layout": layout, "sparse_mode": sparse_mode}
    return call(NsaCompressAttentionInfer, operands, _torch_style_ints(NsaCompressAttentionInfer,
                                                                       attributes))


def npu_mla_prolog(token_x, weight_dq, weight_uq_qr, weight_uk, weight_dkv_kr, rmsnorm_gamma_cq,
                   rmsnorm_gamma_ckv, rope_sin, rope_cos, cache_index, kv_cache, kr_cache, *,
                   dequant_scale_x=None, dequant_scale_w_dq=None, dequant_scale_w_uq_qr=None,
                   dequant_scale_w_dkv_kr=None, quant_scale_ckv=None, quant_scale_ckr=None,
                   smooth_scales_cq=None, rmsnorm_epsilon_cq=1e-05, rmsnorm_epsilon_ckv=1e-05,
                   cache_mode="PA_BSND"):
    """`mla.prolog` eagerly, checked against the aclnnMlaProlog document (scenarios NQ, PQ-KVNQ,
    PQ-KVQ). weight_dq, weight_uq_qr and weight_dkv_kr are NZ tensors (format_cast(w, 29)).
    Returns (query, query_rope, kv_cache_out, kr_cache_out); the caches are updated in place and
    returned themselves."""
    return _mla_prolog(Prolog, locals(), profile="V1E")


def npu_mla_prolog_v2(token_x, weight_dq, weight_uq_qr, weight_uk, weight_dkv_kr, rmsnorm_gamma_cq,
                      rmsnorm_gamma_ckv, rope_sin, rope_cos, cache_index, kv_cache, kr_cache, *,
                      dequant_scale_x=None, dequant_scale_w_dq=None, dequant_scale_w_uq_qr=None,
                      dequant_scale_w_dkv_kr=None, quant_scale_ckv=None, quant_scale_ckr=None,
                      smooth_scales_cq=None, rmsnorm_epsilon_cq=1e-05, rmsnorm_epsilon_ckv=1e-05,
                      cache_mode="PA_BSND"):
    """`mla.prolog_v2` eagerly, checked against torch_npu.npu_mla_prolog_v2's document (all five
    scenarios; He = 7168, N >= 8, no empty tensors). Returns (query, query_rope, kv_cache_out,
    kr_cache_out, dequant_scale_q_nope); the caches are updated in place and returned themselves."""
    return _mla_prolog(PrologV2, locals(), profile="PT")


def _mla_prolog(opdef, arguments, profile):
    operands = {o.name: arguments[o.name] for o in opdef.kernel_operands}
    attributes = {a.name: arguments[a.name] for a in opdef.attributes}
    return call(opdef, operands, attributes, profile=profile)


def npu_fused_infer_attention_score(
        query, key, value, *, pse_shift=None, atten_mask=None, actual_seq_lengths=None,
        actual_seq_lengths_kv=None, dequant_scale1=None, quant_scale1=None, dequant_scale2=None,
        quant_scale2=None, quant_offset2=None, antiquant_scale=None, antiquant_offset=None,
        block_table=None, query_padding_size=None, kv_padding_size=None,
        key_antiquant_scale=None, key_antiquant_offset=None, value_antiquant_scale=None,
        value_antiquant_offset=None, key_shared_prefix=None, value_shared_prefix=None,
        actual_shared_prefix_len=None, query_rope=None, key_rope=None,
        key_rope_antiquant_scale=None, num_heads=1, scale_value=1.0, pre_tokens=2147483647,
        next_tokens=2147483647, input_layout="BSH", num_key_value_heads=0, sparse_mode=0,
        inner_precise=0, block_size=0, antiquant_mode=0, softmax_lse_flag=False,
        key_antiquant_mode=0, value_antiquant_mode=0, scale=None):
    """`mla.fused_infer_attention_score` eagerly (aclnnFusedInferAttentionScoreV2; with
    query_rope/key_rope its MLA mode). Returns (attention_out, softmax_lse).

    key and value are an array or a list of arrays (the tensor list: one (1, ...) tensor per
    batch row); value may be the very array given as key (the MLA latent cache). `scale` is an
    alias of `scale_value`. A PA_NZ cache is passed as an NZTensor (docs/attention.md).
    softmax_lse is float32 (B, N, Q_S, 1) ((T, N, 1) in TND) with softmax_lse_flag, else a (1,)
    zero tensor. key_rope_antiquant_scale is torch_npu's reserved keyword (every document:
    "reserved, no effect"): ignored with a warning [FIA-API-1]. The MLA full-quant mode has no
    keywords here (dequant_scale_query is npu_fused_infer_attention_score_v2's)."""
    _reserved({"key_rope_antiquant_scale": key_rope_antiquant_scale})
    if scale is not None:
        if not _same(scale_value, 1.0) and not _same(scale_value, scale):
            raise TypeError("npu_fused_infer_attention_score: got both scale_value and its alias "
                            "scale; give one")
        scale_value = scale     # its kind is checked with the other arguments (ARG-004)
    return _fia(locals())


def _fia(arguments: dict):
    """Call the op with the parameters named in `arguments` (the others: absent / default)."""
    operands = {o.name: arguments.get(o.name) for o in FusedInferAttentionScore.kernel_operands}
    operands["key"] = _tensor_list(arguments["key"])
    operands["value"] = _tensor_list(arguments["value"])
    attributes = {a.name: arguments.get(a.name, a.default)
                  for a in FusedInferAttentionScore.attributes}
    return call(FusedInferAttentionScore, operands,
                _torch_style_ints(FusedInferAttentionScore, attributes), profile="PT")


def npu_fused_infer_attention_score_v2(
        query, key, value, *, query_rope=None, key_rope=None, pse_shift=None, atten_mask=None,
        actual_seq_qlen=None, actual_seq_kvlen=None, block_table=None, dequant_scale_query=None,
        dequant_scale_key=None, dequant_offset_key=None, dequant_scale_value=None,
        dequant_offset_value=None, dequant_scale_key_rope=None, quant_scale_out=None,
        quant_offset_out=None, quant_scale_p=None, learnable_sink=None, num_query_heads=1,
        num_key_value_heads=0, softmax_scale=1.0, pre_tokens=2147483647,
        next_tokens=2147483647, input_layout="BSH", sparse_mode=0, block_size=0,
        query_quant_mode=0, key_quant_mode=0, value_quant_mode=0, inner_precise=0,
        return_softmax_lse=False, query_dtype=None, key_dtype=None, value_dtype=None,
        query_rope_dtype=None, key_rope_dtype=None, key_shared_prefix_dtype=None,
        value_shared_prefix_dtype=None, dequant_scale_query_dtype=None,
        dequant_scale_key_dtype=None, dequant_scale_value_dtype=None,
        dequant_scale_key_rope_dtype=None, out_dtype=None):
    """torch_npu 2.14's spelling of the same op, `mla.fused_infer_attention_score`: the
    keywords map onto npu_fused_infer_attention_score's (table V2_NAMES; actual_seq_qlen and
    actual_seq_kvlen are the lists actual_seq_lengths / actual_seq_lengths_kv). Returns
    (attention_out, softmax_lse); a rejected call names the v2 keyword the caller passed.

    The MLA full-quant mode (an int8 query and latent cache: dequant_scale_query with
    query_quant_mode 3, dequant_scale_key / dequant_scale_value per tensor) is the op's
    (FIA-MLAQ-*, docs/attention.md). What the op does not model is rejected [FIA-API-2]:
    learnable_sink, out_dtype. The reserved keywords (dequant_scale_key_rope, quant_scale_p,
    the *_dtype ones) are ignored with a warning [FIA-API-1]."""
    arguments = locals()
    _reserved({name: arguments[name] for name in V2_RESERVED})
    for name, why in V2_NOT_MODELLED.items():
        default = _V2_DEFAULTS[name]
        if arguments[name] is not None if default is None else not _same(arguments[name], default):
            raise VerificationError(f"'{FusedInferAttentionScore.name}' op {name}: not "
                                    f"supported: {why} [FIA-API-2]")
    mapped = {V2_NAMES.get(name, name): value for name, value in arguments.items()
              if name not in V2_RESERVED and name not in V2_NOT_MODELLED}
    try:
        return _fia(mapped)
    except VerificationError as error:
        raise VerificationError(_v2_spelling(str(error)), error.findings) from None


# npu_fused_infer_attention_score_v2 keyword -> npu_fused_infer_attention_score keyword
V2_NAMES = {
    "actual_seq_qlen": "actual_seq_lengths", "actual_seq_kvlen": "actual_seq_lengths_kv",
    "dequant_scale_key": "key_antiquant_scale", "dequant_offset_key": "key_antiquant_offset",
    "dequant_scale_value": "value_antiquant_scale",
    "dequant_offset_value": "value_antiquant_offset", "quant_scale_out": "quant_scale2",
    "quant_offset_out": "quant_offset2", "num_query_heads": "num_heads",
    "softmax_scale": "scale_value", "key_quant_mode": "key_antiquant_mode",
    "value_quant_mode": "value_antiquant_mode", "return_softmax_lse": "softmax_lse_flag"}
# torch_npu's document: "reserved, not used yet" (预留参数，暂未使用)
V2_RESERVED = ("dequant_scale_key_rope", "quant_scale_p", "query_dtype", "key_dtype",
               "value_dtype", "query_rope_dtype", "key_rope_dtype", "key_shared_prefix_dtype",
               "value_shared_prefix_dtype", "dequant_scale_query_dtype", "dequant_scale_key_dtype",
               "dequant_scale_value_dtype", "dequant_scale_key_rope_dtype")
V2_NOT_MODELLED = {
    "learnable_sink": "the op has no sink operand (aclnn V4's learnable sink)",
    "out_dtype": "the output dtype follows the inputs (int8 with quant_scale_out, bfloat16 "
                 "in the MLA full-quant mode, float16 for another int8 query, else the query's)"}


_V2_DEFAULTS = {p.name: p.default for p in
                inspect.signature(npu_fused_infer_attention_score_v2).parameters.values()}


def _v2_spelling(message: str) -> str:
    """A diagnostic about an op parameter, led by the v2 keyword the caller passed."""
    for v2_name, name in V2_NAMES.items():
        message = message.replace(f" op {name}:", f" op {v2_name} ({name}):")
    return message


def _reserved(arguments: dict):
    """torch_npu's reserved keywords: accepted, ignored, and said so."""
    for name, value in arguments.items():
        if value is not None:
            warnings.warn(f"'{FusedInferAttentionScore.name}' op {name}: reserved by the "
                          f"operator (no effect in this version) and ignored [FIA-API-1]",
                          VerificationWarning, stacklevel=3)


def _same(a, b) -> bool:
    """a == b, False for values without one truth value (arrays)."""
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _tensor_list(tensors) -> list:
    """An aclTensorList argument: one array, or a list/tuple of them (None: empty)."""
    if tensors is None:
        return []
    return list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]



def _torch_style_ints(opdef, attributes: dict) -> dict:
    """An int parameter given as a one-element integral tensor (NumPy or torch, any rank) is
    its value, as torch's argument parser takes it (torch_npu's own tests pass e.g.
    key_antiquant_mode that way). Anything else is left to the host-parameter kind check."""
    return {name: _one_element_int(value) if opdef.attribute_by_name[name].kind == "i64" else value
            for name, value in attributes.items()}


def _one_element_int(value):
    if isinstance(value, (int, np.integer)) or not hasattr(value, "item"):
        return value
    size = value.numel() if callable(getattr(value, "numel", None)) else getattr(value, "size", None)
    if size != 1:
        return value
    item = value.item()
    return item if isinstance(item, int) and not isinstance(item, bool) else value

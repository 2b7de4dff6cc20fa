"""Eager ops, torch_npu style (API.md section 2).

Each function builds a one-op mla module, verifies it and runs it on the selected backend
(ascend_mla/eager.py). Keyword names, defaults and result order are the public contract.
"""
from __future__ import annotations

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
    return call(NsaCompressAttentionInfer, operands, attributes)


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
    operands = {o.name: arguments[o.name] for o in opdef.operands}
    attributes = {a.name: arguments[a.name] for a in opdef.attributes}
    return call(opdef, operands, attributes, profile=profile)


def npu_fused_infer_attention_score(
        query, key, value, *, pse_shift=None, atten_mask=None, actual_seq_lengths=None,
        actual_seq_lengths_kv=None, dequant_scale1=None, quant_scale1=None, dequant_scale2=None,
        quant_scale2=None, quant_offset2=None, antiquant_scale=None, antiquant_offset=None,
        block_table=None, query_padding_size=None, kv_padding_size=None,
        key_antiquant_scale=None, key_antiquant_offset=None, value_antiquant_scale=None,
        value_antiquant_offset=None, key_shared_prefix=None, value_shared_prefix=None,
        actual_shared_prefix_len=None, query_rope=None, key_rope=None, num_heads=1,
        scale_value=1.0, pre_tokens=2147483647, next_tokens=2147483647, input_layout="BSH",
        num_key_value_heads=0, sparse_mode=0, inner_precise=0, block_size=0, antiquant_mode=0,
        softmax_lse_flag=False, key_antiquant_mode=0, value_antiquant_mode=0, scale=None):
    """`mla.fused_infer_attention_score` eagerly (aclnnFusedInferAttentionScoreV2; with
    query_rope/key_rope its MLA mode). Returns (attention_out, softmax_lse).

    key and value are an array or a list of arrays (the tensor list: one (1, ...) tensor per
    batch row); value may be the very array given as key (the MLA latent cache). `scale` is an
    alias of `scale_value`. A PA_NZ cache is passed as an NZTensor (docs/attention.md).
    softmax_lse is float32 (B, N, Q_S, 1) with softmax_lse_flag, else a (1,) zero tensor."""
    if scale is not None:
        if not _same(scale_value, 1.0) and not _same(scale_value, scale):
            raise TypeError("npu_fused_infer_attention_score: got both scale_value and its alias "
                            "scale; give one")
        scale_value = scale     # its kind is checked with the other arguments (ARG-004)
    arguments = locals()
    operands = {o.name: arguments[o.name] for o in FusedInferAttentionScore.operands}
    operands["key"], operands["value"] = _tensor_list(key), _tensor_list(value)
    attributes = {a.name: arguments[a.name] for a in FusedInferAttentionScore.attributes}
    return call(FusedInferAttentionScore, operands, attributes)


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


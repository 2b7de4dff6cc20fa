"""Eager ops, torch_npu style (API.md section 2).

Each function builds a one-op mla module, verifies it and runs it on the selected backend
(ascend_mla/eager.py). Keyword names, defaults and result order are the public contract.
"""
from __future__ import annotations

from .eager import call
from .dialect.nsa import NsaCompressAttentionInfer
from .dialect.primitive import RmsNorm


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

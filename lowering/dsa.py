"""Conversions of DeepSeek Sparse Attention's ops to their aclnn functions (docs/dsa.md): one
two-phase call each, every argument through `Param.binds` (dialect/aclnn_functions.py)."""
from __future__ import annotations

from ..dialect.aclnn_functions import (
    KV_QUANT_SPARSE_FLASH_ATTENTION,
    LIGHTNING_INDEXER,
    MLA_PROLOG_V3,
    QUANT_LIGHTNING_INDEXER,
    SPARSE_FLASH_ATTENTION,
    SPARSE_FLASH_ATTENTION_V2,
)
from ..dialect.dsa import (
    KvQuantSparseFlashAttention,
    LightningIndexer,
    PrologV3,
    QuantLightningIndexer,
    SparseFlashAttention,
)
from ..dialect.types import describe_type
from .lower_to_aclnn import LoweringError, lowers


@lowers(LightningIndexer)
def lightning_indexer(op, b):
    # sparseValuesOut is torch_npu's (0,) tensor without return_value, passed as it is.
    return b.call_bound(LIGHTNING_INDEXER)


@lowers(QuantLightningIndexer)
def quant_lightning_indexer(op, b):
    return b.call_bound(QUANT_LIGHTNING_INDEXER)


@lowers(SparseFlashAttention)
def sparse_flash_attention(op, b):
    # torch_npu calls V2 exactly when sinks are given (op-plugin's wrapper).
    return b.call_bound(SPARSE_FLASH_ATTENTION_V2 if b.adaptor.sinks is not None else SPARSE_FLASH_ATTENTION)


@lowers(KvQuantSparseFlashAttention)
def kv_quant_sparse_flash_attention(op, b):
    if b.adaptor.sinks is not None:
        raise LoweringError("sinks: aclnnKvQuantSparseFlashAttention has no sinks argument (Ascend 950's "
                            "sinks form has no published aclnn prototype)")
    return b.call_bound(KV_QUANT_SPARSE_FLASH_ATTENTION)


@lowers(PrologV3)
def prolog_v3(op, b):
    # The optional outputs the call does not produce ((0,) results) are nullptr, as torch_npu
    # passes them: dequantScaleQNope outside query_quant_mode 1, queryNorm without
    # query_norm_flag, dequantScaleQNorm without it or in weight_quant_mode 0.
    absent = tuple(c for c, result in (("dequantScaleQNopeOutOptional", "dequant_scale_q_nope"),
                                       ("queryNormOutOptional", "query_norm"),
                                       ("dequantScaleQNormOutOptional", "dequant_scale_q_norm"))
                   if describe_type(getattr(b.adaptor, result).type).shape == (0,))
    return b.call_bound(MLA_PROLOG_V3, absent_outputs=absent)

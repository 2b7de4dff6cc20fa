"""DeepSeek Sparse Attention's operators (DeepSeek-V3.2, GLM-5): the lightning indexers, the
sparse flash attentions and MlaPrologV3 (docs/dsa.md). One module per family:

    indexer.py           mla.lightning_indexer, mla.quant_lightning_indexer
    sparse_attention.py  mla.sparse_flash_attention, mla.kv_quant_sparse_flash_attention
    prolog_v3.py         mla.prolog_v3
    common.py            the layouts, lengths and block-table rules the first four share
"""
from .indexer import LightningIndexer, QuantLightningIndexer
from .prolog_v3 import PrologV3
from .sparse_attention import KvQuantSparseFlashAttention, SparseFlashAttention

__all__ = ["LightningIndexer", "QuantLightningIndexer", "SparseFlashAttention",
           "KvQuantSparseFlashAttention", "PrologV3"]

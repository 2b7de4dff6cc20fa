"""Primitive (pre-fusion) ops of the mla dialect: the pieces unfused MLA code is written in.

Each op mirrors a torch_npu primitive that DeepSeek-style attention calls today, and each is
declared once in its family's module here (norm, matmul, rope, quant, elementwise, cache, layout,
attention; the shared rule checks in checks.py); its CPU kernel is in runtime/kernels/primitive.py and the fusion passes
(passes/fuse_prolog.py, passes/fuse_attention.py) recognise graphs of them. Slices, reshapes
and concatenations are upstream `tensor` ops; casts are upstream `arith.truncf`/`arith.extf`;
weights are upstream `ml_program` globals. Guide: docs/dialect.md ("Primitive ops").

    op                    torch_npu / torch                      rule IDs
    mla.rms_norm          npu_rms_norm                           RMS-
    mla.matmul            torch.matmul(x, w), w (K, N); int32 too MM-
    mla.head_matmul       einsum("...hk,hkn->...hn")             HMM-
    mla.quant_matmul      npu_quant_matmul(pertoken_scale=)      QMM-
    mla.transpose_batchmatmul  npu_transpose_batchmatmul         TBMM-
    mla.rope              npu_interleave_rope / rotate-half      ROPE-
    mla.dynamic_quant     npu_dynamic_quant(smooth_scales=)      DQ-
    mla.quantize          npu_quantize (static, symmetric)       QNT-
    mla.scatter_cache     npu_scatter_pa_kv_cache (one cache)    SC-
    mla.kv_rmsnorm_rope_cache  npu_kv_rmsnorm_rope_cache (PA, PA_NZ)  KVR-
    mla.gather            index_select / embedding rows          GTH-
    mla.format_cast       npu_format_cast                        FC-
    mla.transpose         permute                                TR-
    mla.add/mul/div       torch add/mul/div (broadcasting)       EW-
    mla.mean, mla.rsqrt   torch.mean(x, -1, True), torch.rsqrt    MEAN-, RSQ-
    mla.amax              torch.amax(x, -1, True)                AMAX-
    mla.paged_attention   _npu_paged_attention(_mla), GQA        PA-
    mla.masked_paged_attention  the same, keys also masked (DSA)  PA-
    mla.attention         scaled_dot_product_attention           ATT-
    mla.causal_mask       triu(ones(S, S), 1)                    CM-
    mla.nz_cache_view     (a PA_NZ cache seen as FRACTAL_NZ)     NZV-
    mla.layer_norm, relu, batch_matmul, paged_gather, length_mask, masked_fill, top_k,
    index_mask            DSA's indexer as transformers writes it (indexer.py)   LN-, RELU-, BMM-,
                                                                          PG-, LM-, MF-, TK-, IM-

Float arithmetic is float32 and each op rounds once, to its declared result type: the result
types of a graph are its rounding points (docs/numerics.md, "MLA prolog" 2 and 7).
"""
from __future__ import annotations

# One line per family, in declaration order (the order of the ops in the dialect).
# isort: off
from .checks import CACHE_MODES, FLOAT_TYPES, INDEX_TYPES, cache_writer  # noqa: F401
from .norm import RmsNorm  # noqa: F401
from .matmul import HeadMatmul, Matmul, QuantMatmul, TransposeBatchMatmul  # noqa: F401
from .rope import ROPE_MODES, Rope  # noqa: F401
from .quant import DQ_ROUNDING, DynamicQuant, Quantize  # noqa: F401
from .elementwise import Add, Amax, Div, Mean, Mul, Rsqrt  # noqa: F401
from .cache import KvRmsNormRopeCache, ScatterCache  # noqa: F401
from .layout import FormatCast, Gather, NzCacheView, Transpose  # noqa: F401
from .attention import Attention, CausalMask, MaskedPagedAttention, PagedAttention  # noqa: F401
from .indexer import (  # noqa: F401
    BatchMatmul,
    IndexMask,
    LayerNorm,
    LengthMask,
    MaskedFill,
    PagedGather,
    Relu,
    TopK,
)
# isort: on

__all__ = ["CACHE_MODES", "FLOAT_TYPES", "INDEX_TYPES", "cache_writer", "RmsNorm", "HeadMatmul", "Matmul",
           "QuantMatmul", "TransposeBatchMatmul", "KvRmsNormRopeCache", "ROPE_MODES", "Rope", "DQ_ROUNDING", "DynamicQuant", "Quantize", "Add", "Amax",
           "Div", "Mean", "Mul", "Rsqrt", "ScatterCache", "FormatCast", "Gather", "NzCacheView",
           "Transpose", "Attention", "CausalMask", "MaskedPagedAttention", "PagedAttention", "BatchMatmul", "IndexMask",
           "LayerNorm", "LengthMask", "MaskedFill", "PagedGather", "Relu", "TopK"]

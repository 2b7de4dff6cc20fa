"""Conversions of DeepSeek Sparse Attention's ops to their aclnn functions (docs/dsa.md): one
two-phase call each, every argument through `Param.binds` (dialect/aclnn_functions.py); and of
the indexer's primitives (dialect/primitive/indexer.py)."""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from ..dialect import aclnn as A
from ..dialect.aclnn_functions import (
    BATCH_MATMUL,
    INDEX_SELECT,
    INPLACE_MASKED_FILL_SCALAR,
    KV_QUANT_SPARSE_FLASH_ATTENTION,
    LAYER_NORM,
    LIGHTNING_INDEXER,
    MLA_PROLOG_V3,
    QUANT_LIGHTNING_INDEXER,
    RELU,
    SCATTER_VALUE,
    SPARSE_FLASH_ATTENTION,
    SPARSE_FLASH_ATTENTION_V2,
    TOPK,
)
from ..dialect.dsa import (
    KvQuantSparseFlashAttention,
    LightningIndexer,
    PrologV3,
    QuantLightningIndexer,
    SparseFlashAttention,
)
from ..dialect.primitive.indexer import (
    BatchMatmul,
    IndexMask,
    LayerNorm,
    LengthMask,
    MaskedFill,
    PagedGather,
    Relu,
    TopK,
)
from ..dialect.types import TensorInfo, describe_type, tensor_type
from .attention import length_mask_value
from .lower_to_aclnn import LoweringError, info, lowers


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
# --- the indexer's primitives (dialect/primitive/indexer.py) --------------------------------------

@lowers(LayerNorm)
def layer_norm(op, b):
    """aclnnLayerNorm over the last axis (normalizedShape [H]); mean / rstd not asked for."""
    a = b.adaptor
    y = b.alloc(op.results[0].type)
    no = b.null()
    b.call(LAYER_NORM, {"input": a.x, "normalizedShape": b.host(A.INT_ARRAY, [info(a.x).shape[-1]]),
                        "weightOptional": a.gamma, "biasOptional": a.beta,
                        "eps": b.host(A.F64, a.epsilon), "out": y, "meanOutOptional": no,
                        "rstdOutOptional": no})
    return {"y": y}


@lowers(Relu)
def relu(op, b):
    return b.call_bound(RELU)


@lowers(BatchMatmul)
def batch_matmul(op, b):
    # cubeMathType 0 (KEEP_DTYPE): float32 operands multiply in float32
    return b.call_bound(BATCH_MATMUL, given={"cubeMathType": b.host(A.I8, 0)})


@lowers(PagedGather)
def paged_gather(op, b):
    """aclnnIndexSelect of whole blocks: the cache as (BlockNum, BlockSize*Nkv*D) rows, the block
    table flattened as the index; the (B*M, BlockSize*Nkv*D) result is the dense (B, T, Nkv, D)."""
    a = b.adaptor
    cache, table = info(a.cache), info(a.block_table)
    row = cache.shape[1] * cache.shape[2] * cache.shape[3]
    rows = b.alloc(TensorInfo((table.shape[0] * table.shape[1], row), cache.dtype))
    b.call(INDEX_SELECT, {"self": b.reshape(a.cache, (cache.shape[0], row)), "dim": b.host(A.I64, 0),
                          "index": b.reshape(a.block_table, (table.shape[0] * table.shape[1],)), "out": rows})
    out = b.reshape(rows, info(op.results[0]).shape)
    return {"y": out}


@lowers(LengthMask)
def length_mask(op, b):
    batch, s, t = info(op.results[0]).shape
    return {"mask": length_mask_value(b, b.adaptor.seq_lengths, batch, s, t)}


@lowers(MaskedFill)
def masked_fill(op, b):
    """A copy of x, then aclnnInplaceMaskedFillScalar with the value."""
    a = b.adaptor
    y = b.copy(a.x)
    b.call(INPLACE_MASKED_FILL_SCALAR, {"selfRef": y, "mask": a.mask,
                                         "value": b.host(A.SCALAR, (info(a.x).dtype, a.value))})
    return {"y": y}


@lowers(TopK)
def top_k(op, b):
    """aclnnTopk over the last axis, largest, sorted (int64 indices)."""
    return b.call_bound(TOPK, given={"dim": b.host(A.I64, -1), "largest": b.host(A.BOOL, True),
                                     "sorted": b.host(A.BOOL, True)})


@lowers(IndexMask)
def index_mask(op, b):
    """aclnnScatterValue of false into a constant all-true (..., T) mask at the indices."""
    a = b.adaptor
    t = info(op.results[0])
    ones = _splat(b, t, ir.BoolAttr.get(True))
    mask = b.alloc(t)
    b.call(SCATTER_VALUE, {"self": ones, "dim": b.host(A.I64, -1), "index": a.indices,
                           "value": b.host(A.SCALAR, ("i1", 0)), "reduction": b.host(A.I64, 0),
                           "out": mask})
    return {"mask": mask}


def _splat(b, t: TensorInfo, attr) -> ir.Value:
    """A constant tensor of one value (uploaded once, like a weight)."""
    ty = tensor_type(t.shape, t.dtype)
    return arith.ConstantOp(ty, ir.DenseElementsAttr.get_splat(ty, attr), loc=b.op.location,
                            ip=ir.InsertionPoint(b.op)).result

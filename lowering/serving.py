"""Conversions of the serving primitives (dialect/serving.py) to the aclnn calls torch_npu
makes for them (op-plugin op_plugin/ops/opapi/KvRmsNormRopeCacheNpuOpApi.cpp,
TransposeBatchMatMulKernelNpuOpApi.cpp). The CPU backend runs each call through the binds, with
the op's own kernel."""
from __future__ import annotations

from . import aclnn as A
from .convert import lowers
from .imports import KV_RMS_NORM_ROPE_CACHE, TRANSPOSE_BATCH_MATMUL

KEEP_DTYPE = 0          # cubeMathType: compute in the inputs' type (float32 accumulation)


@lowers("mla.kv_rmsnorm_rope_cache")
def kv_rmsnorm_rope_cache(op, b):
    """npu_kv_rmsnorm_rope_cache -> aclnnKvRmsNormRopeCache(kv, gamma, cos, sin, index,
    kCacheRef, ckvCacheRef, kRopeScale, ckvScale, kRopeOffset, cKvOffset, epsilon, cacheMode,
    isOutputKv, kRopeOut, cKvOut): the caches in place (a PA_NZ cache passed as the 4-D tensor
    whose bytes are NZ blocks, as torch_npu passes it), the two outputs always allocated."""
    return b.call_bound(KV_RMS_NORM_ROPE_CACHE)


@lowers("mla.transpose_batchmatmul")
def transpose_batchmatmul(op, b):
    """npu_transpose_batchmatmul -> aclnnTransposeBatchMatMul(x1, x2, bias = nullptr, scale =
    nullptr, permX1, permX2, permY, cubeMathType, batchSplitFactor, out) (the ND weight path;
    aclnnTransposeBatchMatMulWeightNz takes an NZ weight, which the primitive does not)."""
    return b.call_bound(TRANSPOSE_BATCH_MATMUL, given={"cubeMathType": b.host(A.I8, KEEP_DTYPE)})

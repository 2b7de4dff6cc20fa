"""Conversions of the primitive ops to the standard aclnn kernels torch_npu uses for them.

Each conversion names its evidence: the torch_npu function the primitive mirrors
(dialect/primitive.py), the aclnn call op-plugin makes for it (Ascend/op-plugin,
op_plugin/ops/opapi/<X>KernelNpuOpApi.cpp, `EXEC_NPU_CMD(aclnn..., ...)`), and the prototype
from the public CANN operator document (dialect/aclnn_functions.py). All of it is NON-SEED: the seeds
document the four fused operators only.

The CPU backend carries each call out with the primitive's own kernel (through `binds`, or
runtime/cpu_calls.py when the arguments are views of the operands), so a lowered program
computes what the mla op computes, bit for bit. Where the primitive allows more than the
device kernel documents (an f32 input to aclnnInterleaveRope, an f32 result of
aclnnQuantMatmulV4), the call is emitted as it is and the device reports it (161002); the
docstrings say so.
"""
from __future__ import annotations

import math

from ..dialect import aclnn as A
from ..dialect.aclnn_functions import (
    ADD,
    AMAX,
    ASCEND_QUANT_V3,
    DIV,
    DYNAMIC_QUANT,
    EMBEDDING,
    INPLACE_ONE,
    INTERLEAVE_ROPE,
    KV_RMS_NORM_ROPE_CACHE,
    MATMUL,
    MATMUL_WEIGHT_NZ,
    MEAN,
    MUL,
    NPU_FORMAT_CAST,
    PERMUTE,
    QUANT_MATMUL_V4,
    QUANT_MATMUL_WEIGHT_NZ,
    RMS_NORM,
    ROTARY_POSITION_EMBEDDING,
    RSQRT,
    SCATTER_PA_KV_CACHE,
    TRANSPOSE_BATCH_MATMUL,
    TRIU,
)
from ..dialect.primitive import (
    INDEX_TYPES,
    Add,
    Amax,
    CausalMask,
    Div,
    DynamicQuant,
    FormatCast,
    Gather,
    HeadMatmul,
    KvRmsNormRopeCache,
    Matmul,
    Mean,
    Mul,
    Quantize,
    QuantMatmul,
    RmsNorm,
    Rope,
    Rsqrt,
    ScatterCache,
    Transpose,
    TransposeBatchMatmul,
)
from ..dialect.types import TensorInfo, numpy_dtype, tensor_type
from .lower_to_aclnn import LoweringError, info, lowers

KEEP_DTYPE = 0          # cubeMathType: compute in the inputs' type (float32 accumulation)
ACL_INT8 = 2            # aclDataType of AscendQuantV3's dstType


def _rows(b, value, width):
    """`value` (..., width) seen as a matrix (T, width)."""
    shape = info(value).shape
    if None in shape:
        raise LoweringError(f"{info(value)}: a dynamic shape has no (T, {width}) matrix view")
    return b.reshape(value, (math.prod(shape[:-1]), width))


@lowers(RmsNorm)
def rms_norm(op, b):
    """npu_rms_norm -> aclnnRmsNorm(x, gamma, epsilon, yOut, rstdOut) (RmsNormKernelOpApi.cpp);
    rstdOut is float32 with the normalised axis reduced to 1: a scratch buffer here."""
    x = info(b.adaptor.x)
    return b.call_bound(RMS_NORM, scratch={"rstdOut": tensor_type(x.shape[:-1] + (1,), "f32")})


@lowers(Matmul)
def matmul(op, b):
    """torch.matmul(x, w) -> aclnnMatmul(self, mat2, out, cubeMathType), or
    aclnnMatmulWeightNz when w is FRACTAL_NZ (MatmulKernelNpuOpApi.cpp, is_nd_nz_format).
    x is passed as the (T, K) matrix torch folds its leading dimensions into. The device
    documents float types: an int32 product (a written-out w8a8 linear raise-quant did not
    raise) is the CPU's."""
    x, w = b.adaptor.x, b.adaptor.w
    y = info(op.results[0])
    if None in y.shape:
        raise LoweringError(f"{y}: a dynamic shape has no (T, N) matrix view")
    out = b.alloc(TensorInfo((math.prod(y.shape[:-1]), y.shape[-1]), y.dtype))
    function = MATMUL_WEIGHT_NZ if info(w).is_nz else MATMUL
    b.call(function, {"self": _rows(b, x, info(x).shape[-1]), "mat2": w, "out": out,
                      "cubeMathType": b.host(A.I8, KEEP_DTYPE)})
    return {"y": b.reshape(out, y.shape)}


@lowers(HeadMatmul)
def head_matmul(op, b):
    """einsum("...hk,hkn->...hn") is torch.matmul(x[..., :, None, :], w): aclnnMatmul
    broadcasts the batch dimensions (up to 6) and op-plugin routes the one-row batched product
    there (BmmKernelNpuOpApi.cpp: "aclnnMatmul internally optimizes away the dim-1 slice").
    No transpose, no copy: x viewed (..., H, 1, K), the result (..., H, 1, N) viewed back."""
    x, w = b.adaptor.x, b.adaptor.w
    xs, y = info(x).shape, info(op.results[0])
    out = b.alloc(TensorInfo(y.shape[:-1] + (1, y.shape[-1]), y.dtype))
    b.call(MATMUL, {"self": b.reshape(x, xs[:-1] + (1, xs[-1])), "mat2": w, "out": out,
                    "cubeMathType": b.host(A.I8, KEEP_DTYPE)})
    return {"y": b.reshape(out, y.shape)}


@lowers(QuantMatmul)
def quant_matmul(op, b):
    """npu_quant_matmul(x, w, scale=w_scale, pertoken_scale=x_scale): the per-token x
    per-channel form is aclnnQuantMatmulV4 (its document: "pertoken无bias: out = x1@x2 * scale
    * pertokenScaleOptional"; op-plugin calls the V5 successor with the same arguments) and
    aclnnQuantMatmulWeightNz for a FRACTAL_NZ weight (QuantMatmulKernelNpuOpApi.cpp). x1 is
    the (T, K) matrix, the scales 1-D (T,) and (N,). The device documents bf16/f16 results
    with a per-token scale; an f32 result (the unfused w8a8 graphs) is the CPU's."""
    a = b.adaptor
    k, y = info(a.x).shape[-1], info(op.results[0])
    tokens, n = math.prod(y.shape[:-1]), y.shape[-1]
    out = b.alloc(TensorInfo((tokens, n), y.dtype))
    x1, x_scale, w_scale = _rows(b, a.x, k), b.reshape(a.x_scale, (tokens,)), b.reshape(a.w_scale, (n,))
    no, false = b.null(), b.host(A.BOOL, False)
    if info(a.w).is_nz:
        b.call(QUANT_MATMUL_WEIGHT_NZ, {
            "x1": x1, "x2": a.w, "x1Scale": x_scale, "x2Scale": w_scale, "yScale": no, "x1Offset": no,
            "x2Offset": no, "yOffset": no, "bias": no, "transposeX1": false, "transposeX2": false,
            "groupSize": b.host(A.I64, 0), "out": out})
    else:
        b.call(QUANT_MATMUL_V4, {
            "x1": x1, "x2": a.w, "scale": w_scale, "offset": no, "pertokenScaleOptional": x_scale,
            "bias": no, "transposeX1": false, "transposeX2": false, "out": out})
    return {"y": b.reshape(out, y.shape)}


def _bnsd(x_shape, table_shape):
    """(B, N, S) with x = (B, N, S, D) and the cos/sin table = (B, 1, S, D): the 4-D form the
    RoPE kernels take. The table broadcasts over one run of x's leading dims (N), matches
    x before (B) and after it (S)."""
    lead = x_shape[:-1]
    table = (1,) * (len(x_shape) - len(table_shape)) + tuple(table_shape)
    kinds = ["b" if t == 1 and d != 1 else "m" for d, t in zip(lead, table[:-1])]
    text = "".join(kinds)
    first, last = text.find("b"), text.rfind("b")
    if first < 0:
        return 1, 1, math.prod(lead)
    if "m" in text[first:last + 1]:
        raise LoweringError(f"cos/sin {tuple(table_shape)} broadcast over non-adjacent dims of x {tuple(x_shape)}")
    return math.prod(lead[:first]), math.prod(lead[first:last + 1]), math.prod(lead[last + 1:])


@lowers(Rope)
def rope(op, b):
    """mode "interleave": npu_interleave_rope -> aclnnInterleaveRope(x, cos, sin, out)
    (InterleaveRopeNpuOpApi.cpp; ops-transformer interleave_rope: q = x's pairs de-interleaved,
    q*cos + RotateHalf(q)*sin, the output stays de-interleaved, as numerics.md 4).
    mode "half": npu_rotary_mul -> aclnnRotaryPositionEmbedding(x, cos, sin, mode=0 "half", out)
    (RotaryMulKernelNpuOpApi.cpp). Both take x (B, N, S, D) with cos/sin (B, 1, S, D): x and the
    tables are viewed so (no copy). The kernels document f16/bf16 x; an f32 x (the unfused
    w8a8 graphs' slice of a float32 projection) is the CPU's."""
    a = b.adaptor
    x, y = info(a.x), info(op.results[0])
    if None in x.shape + info(a.cos).shape:
        # A dynamic shape has no 4-D view: the operands go as they are (the CPU kernel
        # broadcasts; the device documents the 4-D form only).
        args, out, shape = {"x": a.x, "cos": a.cos, "sin": a.sin}, b.alloc(op.results[0].type), y.shape
    else:
        bb, n, s = _bnsd(x.shape, info(a.cos).shape)
        shape = (bb, n, s, x.shape[-1])
        args = {"x": b.reshape(a.x, shape), "cos": b.reshape(a.cos, (bb, 1, s, shape[-1])),
                "sin": b.reshape(a.sin, (bb, 1, s, shape[-1]))}
        out = b.alloc(TensorInfo(shape, y.dtype))
    if a.mode == "interleave":
        b.call(INTERLEAVE_ROPE, {**args, "out": out})
    else:
        b.call(ROTARY_POSITION_EMBEDDING, {**args, "mode": b.host(A.I64, 0), "out": out})
    return {"y": b.reshape(out, y.shape)}


@lowers(DynamicQuant)
def dynamic_quant(op, b):
    """npu_dynamic_quant(x, smooth_scales=) -> aclnnDynamicQuant(x, smoothScalesOptional,
    yOut, scaleOut) (DynamicQuantKernelNpuOpApi.cpp: npu_dynamic_quant_v0): scale =
    row_max(|x|)/127, y = round(x/scale). rounding "half_away" is the MLA prolog's internal
    query quant (numerics.md 9, y = round(x*127/row_max) ties away): no standalone kernel
    computes it, so the call carries `mla.rounding = "half_away"`: the CPU backend keeps the
    op's numerics and the NPU backend refuses the call (fuse the prolog to run it there)."""
    rounding = b.adaptor.rounding
    return b.call_bound(DYNAMIC_QUANT, variant={} if rounding == "half_even" else {"rounding": rounding})


@lowers(Quantize)
def quantize(op, b):
    """npu_quantize(x, scales, None, qint8, -1, div_mode=False) -> aclnnAscendQuantV3(x,
    scale, offset=nullptr, sqrtMode=false, roundMode="round", dstType=2 (INT8), axis=-1, y)
    (QuantizeKernelNpuOpApi.cpp: the multiplying form y = round(x*scale + offset); div_mode
    True would be aclnnQuantize, which divides). The scale is passed 1-D: (1,) per tensor or
    (H,) per channel. The document wants the scale in x's type; an f32 scale with a bf16 x is
    the CPU's."""
    a = b.adaptor
    x, scale = info(a.x), info(a.scale)
    if scale.numel == 1:
        shape = (1,)
    elif scale.shape[-1] == x.shape[-1] and scale.numel == x.shape[-1]:
        shape = (x.shape[-1],)
    else:
        raise LoweringError(f"scale {scale} is neither per tensor nor per channel of x {x}")
    return b.call_bound(ASCEND_QUANT_V3, given={
        "scale": b.reshape(a.scale, shape), "offset": b.null(), "sqrtMode": b.host(A.BOOL, False),
        "roundMode": b.host(A.STRING, "round"), "dstType": b.host(A.I32, ACL_INT8),
        "axis": b.host(A.I32, -1)})


@lowers(Add)
def add(op, b):
    """torch.add(x, y) -> aclnnAdd(self, other, alpha=1, out) (AddKernelNpuOpApi.cpp); type
    promotion to float32 and one rounding to out, as the kernel; integers exactly, alpha an
    integer of their type."""
    dtype = info(op.operands[0]).dtype
    alpha = (dtype, 1) if dtype in INDEX_TYPES else ("f32", 1.0)
    return b.call_bound(ADD, given={"alpha": b.host(A.SCALAR, alpha)})


@lowers(Mul)
def mul(op, b):
    """torch.mul -> aclnnMul(self, other, out) (MulKernelNpuOpApi.cpp)."""
    return b.call_bound(MUL)


@lowers(Div)
def div(op, b):
    """torch.div -> aclnnDiv(self, other, out) (DivKernelNpuOpApi.cpp)."""
    return b.call_bound(DIV)


@lowers(Mean)
def mean(op, b):
    """torch.mean(x, -1, keepdim=True) -> aclnnMean(self, dim = [-1], keepDim = true, dtype, out)
    (MeanKernelNpuOpApi.cpp: EXEC_NPU_CMD(aclnnMean, self, dimArray, keepdim, dstType, out);
    dtype: the result's type, the sum in float32)."""
    y = info(op.results[0])
    return b.call_bound(MEAN, given={"dim": b.host(A.INT_ARRAY, [-1]), "keepDim": b.host(A.BOOL, True),
                                     "dtype": b.host(A.DTYPE, y.dtype)})


@lowers(Amax)
def amax(op, b):
    """torch.amax(x, -1, keepdim=True) -> aclnnAmax(self, dim = [-1], keepDim = true, out)
    (op-plugin AmaxKernelNpuOpApi.cpp: EXEC_NPU_CMD(aclnnAmax, self, dimArray, keepdim, out))."""
    return b.call_bound(AMAX, given={"dim": b.host(A.INT_ARRAY, [-1]), "keepDim": b.host(A.BOOL, True)})


@lowers(Rsqrt)
def rsqrt(op, b):
    """torch.rsqrt -> aclnnRsqrt(self, out) (op-plugin op_plugin_functions.yaml: rsqrt exec:
    aclnnRsqrt)."""
    return b.call_bound(RSQRT)


@lowers(ScatterCache)
def scatter_cache(op, b):
    """npu_scatter_pa_kv_cache -> aclnnScatterPaKvCache(key, keyCacheRef, slotMapping, value,
    valueCacheRef, compressLens, compressSeqOffset, seqLens, cacheMode, scatterMode, strides,
    offsets) (ScatterPaKvCacheNpuOpApi.cpp). One cache: the document's scenario 6 (value and
    valueCacheRef 0-dimensional, cacheMode "Norm"); key (T, Nkv, H), slotMapping (T,). PA_NZ
    passes keyCacheRef as the document's scenario 1 shape (BlockNum, Nkv*H/C0, BlockSize, C0),
    the very bytes of the cache; the document lists one-cache calls for "Norm" only (silent on
    PA_NZ). It also asks for unique slots in range; the primitive skips negative slots and lets
    the last duplicate win (its CPU kernel), which the device does not promise."""
    a = b.adaptor
    cache, update = info(a.cache), info(a.update)
    blocks, block_size, nkv, h = cache.shape
    tokens = math.prod(info(a.slot_mapping).shape)
    key_cache = a.cache
    if a.cache_mode == "PA_NZ":
        c0 = 32 // numpy_dtype(cache.dtype).itemsize
        key_cache = b.reshape(a.cache, (blocks, nkv * h // c0, block_size, c0))
    empty = b.alloc(TensorInfo((), update.dtype))
    b.call(SCATTER_PA_KV_CACHE, {
        "key": b.reshape(a.update, (tokens, nkv, h)), "keyCacheRef": key_cache,
        "slotMapping": b.reshape(a.slot_mapping, (tokens,)), "value": empty, "valueCacheRef": empty,
        "compressLensOptional": b.null(), "compressSeqOffsetOptional": b.null(),
        "seqLensOptional": b.null(),
        "cacheModeOptional": b.host(A.STRING, "PA_NZ" if a.cache_mode == "PA_NZ" else "Norm"),
        "scatterModeOptional": b.host(A.STRING, "None"), "stridesOptional": b.null(),
        "offsetsOptional": b.null()})
    return {"cache_out": a.cache}       # in place


@lowers(Gather)
def gather(op, b):
    """Rows of a table at integer indices: F.embedding(indices, table) -> aclnnEmbedding(
    weight, indices, out) (EmbeddingKernelNpuOpApi.cpp); indices of any rank, where
    aclnnIndexSelect takes a 1-D index. The table is viewed (rows, rest)."""
    a = b.adaptor
    table, out_info = info(a.table), info(op.results[0])
    rest = math.prod(table.shape[1:])
    out = b.alloc(TensorInfo(info(a.indices).shape + (rest,), out_info.dtype))
    b.call(EMBEDDING, {"weight": b.reshape(a.table, (table.shape[0], rest)), "indices": a.indices,
                       "out": out})
    return {"out": b.reshape(out, out_info.shape)}


@lowers(FormatCast)
def format_cast(op, b):
    """npu_format_cast(x, 29 | 2) -> aclnnNpuFormatCast(srcTensor, dstTensor) (ops-math
    npu_format_cast: ND <-> NZ; the dstTensor's NZ storage shape (W/C0, H/16, 16, C0) is what
    aclnnNpuFormatCastCalculateSizeAndFormat gives, computed here at compile time).
    fold-constants packs constant weights at compile time, so this runs only on run-time data."""
    return b.call_bound(NPU_FORMAT_CAST)


@lowers(Transpose)
def transpose(op, b):
    """x.permute(dims).contiguous() -> aclnnPermute(self, dims, out) (ops-math transpose)."""
    return b.call_bound(PERMUTE)


@lowers(CausalMask)
def causal_mask(op, b):
    """torch.triu(torch.ones(S, S), diagonal=1): aclnnInplaceOne on a new buffer, then
    aclnnTriu(self, diagonal=1, out). (fold-constants makes the template a constant in a
    compiled program; this runs when it is not folded.)"""
    mask = op.results[0].type
    ones = b.alloc(mask)
    b.call(INPLACE_ONE, {"selfRef": ones})
    out = b.alloc(mask)
    b.call(TRIU, {"self": ones, "diagonal": b.host(A.I64, 1), "out": out})
    return {"mask": out}


@lowers(KvRmsNormRopeCache)
def kv_rmsnorm_rope_cache(op, b):
    """npu_kv_rmsnorm_rope_cache -> aclnnKvRmsNormRopeCache(kv, gamma, cos, sin, index,
    kCacheRef, ckvCacheRef, kRopeScale, ckvScale, kRopeOffset, cKvOffset, epsilon, cacheMode,
    isOutputKv, kRopeOut, cKvOut): the caches in place (a PA_NZ cache passed as the 4-D tensor
    whose bytes are NZ blocks, as torch_npu passes it), the two outputs always allocated."""
    return b.call_bound(KV_RMS_NORM_ROPE_CACHE)


@lowers(TransposeBatchMatmul)
def transpose_batchmatmul(op, b):
    """npu_transpose_batchmatmul -> aclnnTransposeBatchMatMul(x1, x2, bias = nullptr, scale =
    nullptr, permX1, permX2, permY, cubeMathType, batchSplitFactor, out) (the ND weight path;
    aclnnTransposeBatchMatMulWeightNz takes an NZ weight, which the primitive does not)."""
    return b.call_bound(TRANSPOSE_BATCH_MATMUL, given={"cubeMathType": b.host(A.I8, KEEP_DTYPE)})

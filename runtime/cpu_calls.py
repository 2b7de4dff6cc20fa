"""CPU implementations of the aclnn functions whose arguments are not the mla op's own.

A kernel call whose Function binds an mla op (`Function.kernel`) runs that op's kernel with
the arguments matched by name (runtime/backend.py). The functions here receive views of the
op's operands instead (aclnnMatmul with x as (T, K), aclnnScatterPaKvCache with (T, Nkv, H)
rows...): each implementation maps its C arguments back onto the mla op whose lowering emits
it and runs that op's kernel through `call.run` (which first checks the op's data rules in
checked mode). So the CPU backend computes exactly what the op computes, whatever views the
lowering chose, and the numerics stay in one place: runtime/kernels.

An implementation gets a `CpuCall` (arguments by C name: NumPy arrays or NZTensors, host
values; `call.types` the TensorInfo of each tensor argument) and returns the values of the
buffers it writes, by C name. In-place caches are written where they are.
"""
from __future__ import annotations

import numpy as np

from ..dialect.aclnn_functions import (
    ABS,
    CAST,
    CAT,
    EMBEDDING,
    FIA_V4,
    GT_TENSOR,
    INDEX_SELECT,
    INPLACE_COPY,
    INPLACE_MASKED_FILL_SCALAR,
    INPLACE_ONE,
    LOGICAL_OR,
    MATMUL,
    MATMUL_WEIGHT_NZ,
    MAXIMUM,
    MINIMUM,
    QUANT_MATMUL_V4,
    QUANT_MATMUL_WEIGHT_NZ,
    RMS_NORM,
    ROTARY_POSITION_EMBEDDING,
    ROUND,
    SCATTER_PA_KV_CACHE,
    SCATTER_VALUE,
    TRIU,
)
from ..dialect.fia import FusedInferAttentionScore
from ..dialect.primitive import (
    Attention,
    Gather,
    HeadMatmul,
    MaskedPagedAttention,
    Matmul,
    PagedAttention,
    QuantMatmul,
    RmsNorm,
    Rope,
    ScatterCache,
)
from ..dialect.types import TensorInfo, numpy_dtype
from .cpu_call_registry import CPU_CALLS, cpu_call  # noqa: F401 (CPU_CALLS: the complete table, once this module is loaded)


def _out(call, name):
    """The result type of an op whose one result is `y`, from the C output `name`."""
    return {"y": call.types[name]}


@cpu_call(RMS_NORM)
def rms_norm(call):
    """y from the mla.rms_norm kernel; rstd = 1/sqrt(mean(x^2)+eps) in float32 (the kernel's
    own intermediate, which the op does not return; a scratch buffer nothing reads, as the
    lowering makes it, is left alone)."""
    x, eps = call.args["x"], call.args["epsilon"]
    (y,) = call.run(RmsNorm, {"x": x, "gamma": call.args["gamma"]}, {"epsilon": eps},
                    _out(call, "yOut"))
    if "rstdOut" in call.unread:
        return {"yOut": y}
    xf = np.asarray(x.to_nd() if hasattr(x, "to_nd") else x, np.float32)
    rstd = 1.0 / np.sqrt(np.mean(xf * xf, axis=-1, keepdims=True) + np.float32(eps))
    return {"yOut": y, "rstdOut": rstd.astype(np.float32)}


def _matmul(call):
    """torch.matmul semantics for the two forms the lowering emits: (T, K) @ (K, N), and the
    per-head (..., H, 1, K) @ (H, K, N)."""
    a, w = call.args["self"], call.args["mat2"]
    out = call.types["out"]
    if len(w.shape) == 2:
        (y,) = call.run(Matmul, {"x": a, "w": w}, {}, {"y": out})
        return {"out": y}
    if len(w.shape) == 3 and a.shape[-2] == 1 and a.shape[-3] == w.shape[0]:
        x = a.reshape(a.shape[:-2] + a.shape[-1:])
        (y,) = call.run(HeadMatmul, {"x": x, "w": w}, {},
                        {"y": TensorInfo(out.shape[:-2] + out.shape[-1:], out.dtype)})
        return {"out": y.reshape(out.shape)}
    raise NotImplementedError(f"{call.name}: self {a.shape} @ mat2 {w.shape} (the lowering emits "
                              "(T, K) @ (K, N) and (..., H, 1, K) @ (H, K, N))")


cpu_call(MATMUL)(_matmul)
cpu_call(MATMUL_WEIGHT_NZ)(_matmul)


def _quant_matmul(x_scale, w_scale):
    """The per-token x per-channel product, whichever names the function gives the scales."""
    def run(call):
        a = call.args
        (y,) = call.run(QuantMatmul, {"x": a["x1"], "w": a["x2"], "x_scale": a[x_scale],
                                             "w_scale": a[w_scale]}, {}, _out(call, "out"))
        return {"out": y}
    return run


cpu_call(QUANT_MATMUL_V4)(_quant_matmul("pertokenScaleOptional", "scale"))
cpu_call(QUANT_MATMUL_WEIGHT_NZ)(_quant_matmul("x1Scale", "x2Scale"))


@cpu_call(ROTARY_POSITION_EMBEDDING)
def rotary_position_embedding(call):
    a = call.args
    if a["mode"] != 0:
        raise NotImplementedError(f"{call.name}: mode {a['mode']} (the lowering emits mode 0, half)")
    (y,) = call.run(Rope, {"x": a["x"], "cos": a["cos"], "sin": a["sin"]}, {"mode": "half"},
                    _out(call, "out"))
    return {"out": y}


@cpu_call(SCATTER_PA_KV_CACHE)
def scatter_pa_kv_cache(call):
    """key (T, Nkv, H) into keyCacheRef: the (BlockNum, BlockSize, Nkv, H) cache ("Norm"), or
    the same bytes as (BlockNum, Nkv*H/C0, BlockSize, C0) ("PA_NZ"); value is 0-dimensional
    (one cache)."""
    a = call.args
    key, cache, mode = a["key"], a["keyCacheRef"], a["cacheModeOptional"]
    if np.ndim(a["value"]) != 0:
        raise NotImplementedError(f"{call.name}: a value cache (the lowering writes one cache per call)")
    if mode == "PA_NZ":
        blocks, _, block_size, _ = cache.shape
        cache = cache.reshape(blocks, block_size, *key.shape[1:])      # the same memory
        if not np.shares_memory(cache, a["keyCacheRef"]):
            raise ValueError(f"{call.name}: keyCacheRef must be contiguous")
    call.run(ScatterCache, {"cache": cache, "slot_mapping": a["slotMapping"], "update": key},
             {"cache_mode": "PA_NZ" if mode == "PA_NZ" else "PA_BSND"}, {"cache_out": call.types["keyCacheRef"]})
    return {}


@cpu_call(EMBEDDING)
def embedding(call):
    (out,) = call.run(Gather, {"table": call.args["weight"], "indices": call.args["indices"]}, {},
                      {"out": call.types["out"]})
    return {"out": out}


@cpu_call(INPLACE_COPY)
def inplace_copy(call):
    src = call.args["src"]
    return {"selfRef": np.ascontiguousarray(src).reshape(call.types["selfRef"].shape)}


@cpu_call(CAST)
def cast(call):
    # Round to nearest even (as arith.truncf and the CPU step of the upstream op).
    return {"out": np.asarray(call.args["self"]).astype(numpy_dtype(call.args["dtype"]))}


@cpu_call(CAT)
def cat(call):
    out = call.types["out"]
    return {"out": np.concatenate(call.args["tensors"], axis=call.args["dim"]).astype(numpy_dtype(out.dtype))}


@cpu_call(INPLACE_ONE)
def inplace_one(call):
    t = call.types["selfRef"]
    return {"selfRef": np.ones(t.shape, numpy_dtype(t.dtype))}


@cpu_call(TRIU)
def triu(call):
    out = call.types["out"]
    return {"out": np.triu(call.args["self"], call.args["diagonal"]).astype(numpy_dtype(out.dtype))}


@cpu_call(LOGICAL_OR)
def logical_or(call):
    out = call.types["out"]
    both = np.logical_or(np.asarray(call.args["self"]) != 0, np.asarray(call.args["other"]) != 0)
    return {"out": both.astype(numpy_dtype(out.dtype))}


@cpu_call(FIA_V4, variants=("numerics",))
def fused_infer_attention_score_v4(call):
    """Two callers. mla.fused_infer_attention_score in its MLA full-quant mode (the documented
    dequantScaleQuery): run by the op's kernel. The attention primitives (lowering/attention.py
    _v4: float calls, and int8 ones marked with the numerics variant): run by the primitive's
    kernel, with a blockTable mla.paged_attention, else mla.attention."""
    a = call.args
    primitive = call.variant.get("numerics")
    if primitive not in (None, "mla.paged_attention"):         # the one variant value there is
        raise NotImplementedError(f"{call.name}: numerics variant {call.variant}")
    if a["dequantScaleQueryOptional"] is not None and primitive is None:
        return call.run_bound(FusedInferAttentionScore)
    out = {"attention_out": call.types["attentionOut"]}
    query, kv_heads = a["query"], a["numKeyValueHeads"]
    if a["blockTableOptional"] is None:
        mask, causal = a["attenMaskOptional"], a["sparseMode"] == 3
        (y,) = call.run(Attention, {"query": query, "key": a["key"][0], "value": a["value"][0],
                                          "atten_mask": None if causal else mask},
                        {"scale_value": a["scaleValue"], "causal": causal}, out)
        return {"attentionOut": y}

    def cache(index_name, i=0):
        """The (BlockNum, BlockSize, Nkv, D) cache an argument views (ND or FRACTAL_NZ)."""
        value = a[index_name][i] if isinstance(a[index_name], list) else a[index_name]
        if value is None:
            return None
        if hasattr(value, "to_nd"):            # the FRACTAL_NZ view of a PA_NZ cache's bytes
            blocks, block_size, width = value.shape
            return value.data.reshape(blocks, block_size, kv_heads, width // kv_heads)
        if value.ndim == 3:
            return value.reshape(*value.shape[:2], kv_heads, -1)
        return value

    key = cache("key")
    value = key if call.same("key", "value") else cache("value")
    nz = hasattr(a["key"][0], "to_nd")
    lengths = np.asarray(a["actualSeqLengthsKvOptional"], np.int64)
    # sparse_mode 3 takes the causal template; sparse_mode 0 with a mask is the lowering's
    # (B, S, T) mask of the keys the attention does not read (causal rows included)
    user_mask = a["attenMaskOptional"] if a["sparseMode"] == 0 else None
    masked = {} if user_mask is None else {"atten_mask": user_mask}
    (y,) = call.run(MaskedPagedAttention if masked else PagedAttention, {
        "query": query, "key_cache": key, "value_cache": value, "block_table": a["blockTableOptional"],
        "seq_lengths": lengths, "query_rope": a["queryRopeOptional"],
        "key_rope_cache": cache("keyRopeOptional"), "dequant_scale_query": a["dequantScaleQueryOptional"],
        "key_dequant_scale": a["keyAntiquantScaleOptional"], **masked},
        {"scale_value": a["scaleValue"], "cache_mode": "PA_NZ" if nz else "PA_BSND"}, out)
    return {"attentionOut": y}


@cpu_call(INDEX_SELECT)
def index_select(call):
    """Rows of `self` at `index` along `dim`: the lowering's whole-block gather of a paged
    cache (mla.paged_gather), any dim."""
    a = call.args
    picked = np.take(np.asarray(a["self"]), np.asarray(a["index"], np.int64), axis=a["dim"])
    return {"out": picked.astype(numpy_dtype(call.types["out"].dtype))}


@cpu_call(GT_TENSOR)
def gt_tensor(call):
    out = np.greater(np.asarray(call.args["self"]), np.asarray(call.args["other"]))
    return {"out": out.astype(numpy_dtype(call.types["out"].dtype))}


@cpu_call(INPLACE_MASKED_FILL_SCALAR)
def inplace_masked_fill_scalar(call):
    a = call.args
    target = np.asarray(a["selfRef"])
    _, value = a["value"]                 # an aclScalar: (dtype, number)
    return {"selfRef": np.where(np.asarray(a["mask"], bool), np.asarray(value, target.dtype), target)}


@cpu_call(SCATTER_VALUE)
def scatter_value(call):
    """out = self with `value` written at `index` along `dim` (reduction 0: replace)."""
    a = call.args
    if a["reduction"] != 0:
        raise NotImplementedError(f"{call.name}: reduction {a['reduction']} (the lowering emits 0)")
    out = np.array(a["self"], dtype=numpy_dtype(call.types["out"].dtype), copy=True)
    np.put_along_axis(out, np.asarray(a["index"], np.int64), a["value"][1], axis=a["dim"])
    return {"out": out}


def _elementwise(fn):
    """An elementwise call of the written-out quant pieces (lowering/upstream.py): NumPy's
    function, the result in the output's type (abs, rounding and max/min are exact)."""
    def run(call):
        operands = [np.asarray(call.args[n]) for n in ("self", "other") if n in call.args]
        return {"out": fn(*operands).astype(numpy_dtype(call.types["out"].dtype))}
    return run


cpu_call(ABS)(_elementwise(np.abs))
cpu_call(ROUND)(_elementwise(np.rint))            # half to even, as torch.round
cpu_call(MAXIMUM)(_elementwise(np.maximum))       # NaN propagates, as torch.maximum
cpu_call(MINIMUM)(_elementwise(np.minimum))



# The CPU calls of other modules (each registers with cpu_call_registry), loaded with this one:
from . import cpu_calls_decoder  # noqa: E402,F401   the decoder's MoE calls (lowering/decoder.py)

"""CPU kernels of the decoder ops (dialect/decoder.py): the SwiGLU MLP and DeepSeek's MoE.

NumPy, float32 arithmetic, one rounding to each result's declared type (the device kernels
compute in float32 internally and round their outputs once). Ties in the top-k selections go
to the lower index (a stable sort), which is what torch.topk gives on CPU for distinct values;
exact ties between float32 router scores do not occur in practice. The int8 grouped matmul
sums exactly in int32 and dequantizes in float32 (docs/numerics.md).
"""
from __future__ import annotations

import numpy as np

from ...dialect.decoder import GroupedMatmul, MoeFinalizeRouting, MoeGatingTopK, MoeInitRouting, SwiGlu
from ...dialect.types import numpy_dtype
from . import jit_glue, kernel, prepares
from .common import bfloat16, f32, mlir_kernels
from .gemm import bf16_product, float_matmul, int8_matmul, prepare


def _out(result_types, name, fallback):
    return numpy_dtype(result_types[name].dtype) if result_types else np.dtype(fallback)


def _sigmoid(x):
    return np.float32(1) / (np.float32(1) + np.exp(-x))


@kernel(SwiGlu)
def swiglu(x, dim, result_types=None):
    out = _out(result_types, "y", x.dtype)
    if mlir_kernels() and dim in (-1, x.ndim - 1):
        y = jit_glue.swiglu(np.asarray(x), out)
        if y is not None:
            return (y,)
    a, b = np.split(f32(x), 2, axis=dim)
    return ((a * _sigmoid(a) * b).astype(out),)


def _top(values, count):
    """Indices of the `count` largest values per row, best first; ties to the lower index."""
    return np.argsort(-values, axis=-1, kind="stable")[..., :count]


@kernel(MoeGatingTopK)
def moe_gating_top_k(x, bias, k, k_group, group_count, group_select_mode, renorm, norm_type,
                     routed_scaling_factor, eps, result_types=None):
    logits = f32(x)
    if norm_type == 1:
        scores = _sigmoid(logits)
    else:
        shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
        scores = shifted / shifted.sum(axis=-1, keepdims=True)
    choice = scores if bias is None else scores + f32(bias).reshape(1, -1)
    tokens, experts = choice.shape
    grouped = choice.reshape(tokens, group_count, experts // group_count)
    if group_select_mode == 1:
        group_score = np.sort(grouped, axis=-1)[..., -2:].sum(axis=-1)
    else:
        group_score = grouped.max(axis=-1)
    keep = np.zeros((tokens, group_count), bool)
    np.put_along_axis(keep, _top(group_score, k_group), True, axis=-1)
    masked = np.where(np.repeat(keep, experts // group_count, axis=-1), choice, -np.inf).astype(np.float32)
    idx = _top(masked, k)
    y = np.take_along_axis(scores, idx, axis=-1)
    if norm_type == 1 or renorm:
        y = y / (y.sum(axis=-1, keepdims=True) + np.float32(eps))
    y = y * np.float32(routed_scaling_factor)
    return y.astype(_out(result_types, "y", x.dtype)), idx.astype(np.int32)


@kernel(MoeInitRouting)
def moe_init_routing(x, expert_idx, expert_num):
    k = expert_idx.shape[1]
    flat = np.asarray(expert_idx, np.int64).reshape(-1)
    order = np.argsort(flat, kind="stable")              # sortedRowIdx: pair index per position
    expanded_row_idx = np.empty(flat.size, np.int32)
    expanded_row_idx[order] = np.arange(flat.size, dtype=np.int32)
    counts = np.bincount(flat, minlength=expert_num).astype(np.int64)
    return np.ascontiguousarray(x[order // k]), expanded_row_idx, counts


@kernel(GroupedMatmul)
def grouped_matmul(x, w, group_list, scale=None, per_token_scale=None, result_types=None):
    """Float form: float32 sums, one rounding. int8 form: exact int32 sums (gemm.int8_matmul),
    times the row's scale, times the group's channel scales, in float32; one rounding."""
    out = _out(result_types, "y", x.dtype if scale is None else bfloat16)
    y = np.zeros((x.shape[0], w.shape[2]), out)
    bf16_result = out == bfloat16 and x.dtype == out
    start = 0
    for group, count in enumerate(np.asarray(group_list, np.int64).reshape(-1)):
        if count:
            rows = x[start:start + count]
            if scale is None:
                y[start:start + count] = float_matmul(rows, w[group], rounds_to_bf16=bf16_result).astype(out)
            else:
                acc = int8_matmul(rows, w[group])
                acc = acc * f32(per_token_scale[start:start + count]).reshape(-1, 1)
                y[start:start + count] = (acc * f32(scale[group]).reshape(1, -1)).astype(out)
        start += int(count)
    return (y,)


@prepares(GroupedMatmul)
def _prepare_grouped_matmul(weights, types):
    """Each expert's weight, as the kernel slices it (w[group])."""
    w = weights.get("w")
    if w is None or not isinstance(w, np.ndarray):
        return
    int8 = "scale" in types                          # the int8 form: exact int32 sums
    for group in range(w.shape[0]):
        prepare(w[group], "matmul", rounds_to_bf16=bf16_product(types) and not int8)


@kernel(MoeFinalizeRouting)
def moe_finalize_routing(expanded_x, expanded_row_idx, scales, x1, x2, result_types=None):
    tokens, k = scales.shape
    index = np.asarray(expanded_row_idx, np.int64).reshape(tokens, k)
    out = _out(result_types, "out", expanded_x.dtype)
    if mlir_kernels() and index.size and index.min() >= 0 and index.max() < expanded_x.shape[0]:
        y = jit_glue.moe_finalize(np.asarray(expanded_x), index, np.asarray(scales), x1, x2, out)
        if y is not None:
            return (y,)
    rows = f32(expanded_x)[index]                                                         # (T, k, H)
    acc = np.einsum("tk,tkh->th", f32(scales), rows, dtype=np.float32)
    if x1 is not None:
        acc = acc + f32(x1)
    if x2 is not None:
        acc = acc + f32(x2)
    return (acc.astype(out),)

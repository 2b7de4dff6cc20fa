"""CPU kernels of the DSA indexer's primitive ops (dialect/primitive/indexer.py): NumPy, float32
arithmetic, one rounding to each result's declared type. The top-k is the same stable
descending selection as mla.lightning_indexer's (runtime/kernels/dsa.py top_k), so the fused and
the unfused program pick the same indices from the same scores."""
from __future__ import annotations

import numpy as np

from ...dialect.primitive.indexer import (
    BatchMatmul,
    IndexMask,
    LayerNorm,
    LengthMask,
    MaskedFill,
    PagedGather,
    Relu,
    TopK,
)
from ...dialect.types import numpy_dtype
from . import kernel
from .common import f32


def _out(result_types, name, fallback):
    return numpy_dtype(result_types[name].dtype) if result_types else np.dtype(fallback)


@kernel(LayerNorm)
def layer_norm(x, gamma, beta, epsilon, result_types=None):
    v = f32(x)
    mean = v.mean(axis=-1, keepdims=True)
    centred = v - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    y = centred / np.sqrt(var + np.float32(epsilon)) * f32(gamma) + f32(beta)
    return (y.astype(_out(result_types, "y", x.dtype)),)


@kernel(Relu)
def relu(x, result_types=None):
    return (np.maximum(f32(x), 0).astype(_out(result_types, "y", x.dtype)),)


@kernel(BatchMatmul)
def batch_matmul(x, y, result_types=None):
    return (np.matmul(f32(x), f32(y)).astype(_out(result_types, "z", x.dtype)),)


@kernel(PagedGather)
def paged_gather(cache, block_table):
    blocks = cache[np.asarray(block_table, np.int64)]             # (B, M, BlockSize, Nkv, D)
    b, m, bs = blocks.shape[:3]
    return (blocks.reshape(b, m * bs, *cache.shape[2:]),)


@kernel(LengthMask)
def length_mask(seq_lengths, result_types=None):
    _, s, t = result_types["mask"].shape
    lengths = np.asarray(seq_lengths, np.int64).reshape(-1, 1, 1)
    limit = lengths - s + np.arange(s).reshape(1, s, 1)            # the row's own position
    return (np.arange(t).reshape(1, 1, t) > limit,)


@kernel(MaskedFill)
def masked_fill(x, mask, value):
    return (np.where(np.asarray(mask, bool), np.asarray(value, x.dtype), x).astype(x.dtype),)


@kernel(TopK)
def top_k(x, k):
    order = np.argsort(-f32(x), axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, axis=-1), order.astype(np.int64)


@kernel(IndexMask)
def index_mask(indices, result_types=None):
    t = result_types["mask"].shape[-1]
    idx = np.asarray(indices, np.int64)
    mask = np.ones(idx.shape[:-1] + (t + 1,), bool)
    # a negative index selects nothing: it goes to the extra column T, dropped after
    np.put_along_axis(mask, np.where(idx < 0, t, idx), False, axis=-1)
    return (mask[..., :t],)

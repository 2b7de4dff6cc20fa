"""Storage-layout arithmetic every stage shares: row-major strides, the FRACTAL_NZ storage
shape, byte sizes. Pure functions of shapes and element types (no data): the lowering composes
views with them, the memory plan sizes buffers, the backends and the C++ emitter describe
tensors with them, the CPU kernels pack NZ data (runtime/formats.py).

FRACTAL_NZ stores an (H, W) matrix (leading batch dims pass through) padded with zeros to
(ceil16(H), ceilC0(W)) and cut into 16 x C0 fractals, fractal-column-major:
    ND (h, w)  ->  NZ [w // C0, h // 16, h % 16, w % C0]
with C0 = 32 bytes / itemsize (16 for bf16/fp16, 32 for int8); docs/numerics.md.
"""
from __future__ import annotations

import numpy as np

from .types import numpy_dtype


def c0_for(dtype) -> int:
    """Fractal width in elements: one fractal row is 32 bytes."""
    return 32 // np.dtype(dtype).itemsize


def contiguous_strides(shape) -> list:
    """Row-major strides, in elements, of a tensor of `shape`."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= int(d)
    return strides[::-1]


def nz_physical_shape(shape, dtype) -> tuple[int, ...]:
    """The (..., W/C0, H/16, 16, C0) storage shape of a FRACTAL_NZ tensor of logical `shape`."""
    *batch, h, w = shape
    c0 = c0_for(dtype)
    return (*batch, -(-w // c0), -(-h // 16), 16, c0)


def storage_shape(info) -> tuple:
    """The storage shape of a buffer of type `info` (a TensorInfo): the NZ fractal shape for
    FRACTAL_NZ (a 4-D type already ending in (16, C0) is that shape, as the prolog examples
    give weights), the shape itself otherwise."""
    if info.format != "FRACTAL_NZ":
        return tuple(info.shape)
    c0 = 32 // numpy_dtype(info.dtype).itemsize
    if info.rank >= 4 and tuple(info.shape[-2:]) == (16, c0):
        return tuple(info.shape)
    return nz_physical_shape(info.shape, numpy_dtype(info.dtype))


def nbytes(shape, dtype: str) -> int:
    """Bytes of a dense tensor of `shape` and element type `dtype` ("bf16"...)."""
    if dtype == "i4":
        raise NotImplementedError("int4 tensors on the NPU backend (packed storage) are not supported yet")
    return int(np.prod(shape, dtype=np.int64)) * numpy_dtype(dtype).itemsize

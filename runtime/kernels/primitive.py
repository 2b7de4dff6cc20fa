"""Kernels of the primitive mla ops."""
from __future__ import annotations

import numpy as np

from ..formats import FRACTAL_NZ, NZTensor, format_cast, nz_cache_view
from . import kernel
from .common import f32


@kernel("mla.rms_norm")
def rms_norm(x, gamma, epsilon=1e-5):
    nz = isinstance(x, NZTensor)
    xs = x.to_nd() if nz else x
    v = f32(xs)
    # A true division by the square root, as the Ascend kernel does (numerics.md 3).
    y = (v / np.sqrt(np.mean(v * v, axis=-1, keepdims=True) + np.float32(epsilon)) * f32(gamma)).astype(xs.dtype)
    return (format_cast(y, FRACTAL_NZ) if nz else y,)


@kernel("mla.nz_cache_view")
def nz_cache_view_kernel(cache):
    return (nz_cache_view(cache),)

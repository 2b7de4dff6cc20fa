"""Kernels of the primitive mla ops."""
from __future__ import annotations

from ..formats import FRACTAL_NZ, NZTensor, format_cast, nz_cache_view
from . import kernel
from .common import rms_norm as rms_norm_f32


@kernel("mla.rms_norm")
def rms_norm(x, gamma, epsilon=1e-5):
    nz = isinstance(x, NZTensor)
    xs = x.to_nd() if nz else x
    y = rms_norm_f32(xs, gamma, epsilon).astype(xs.dtype)
    return (format_cast(y, FRACTAL_NZ) if nz else y,)


@kernel("mla.nz_cache_view")
def nz_cache_view_kernel(cache):
    return (nz_cache_view(cache),)

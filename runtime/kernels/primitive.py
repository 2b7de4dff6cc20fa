"""Kernels of the primitive mla ops."""
from __future__ import annotations

from ...dialect.types import numpy_dtype
from ..formats import FRACTAL_NZ, NZTensor, format_cast, nz_cache_view
from . import kernel
from .common import rms_norm as rms_norm_f32


@kernel("mla.rms_norm")
def rms_norm(x, gamma, epsilon=1e-5, result_types=None):
    nz = isinstance(x, NZTensor)
    xs = x.to_nd() if nz else x
    # The result type may differ from x's (RMS-006 allows any float type): round once to it.
    out_dtype = numpy_dtype(result_types["y"].dtype) if result_types else xs.dtype
    y = rms_norm_f32(xs, gamma, epsilon).astype(out_dtype)
    return (format_cast(y, FRACTAL_NZ) if nz else y,)


@kernel("mla.nz_cache_view")
def nz_cache_view_kernel(cache):
    return (nz_cache_view(cache),)

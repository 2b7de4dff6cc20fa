"""Tensor storage formats as data: ND and FRACTAL_NZ (ACL format enums 2 and 29), NZTensor, packing.

The layout arithmetic (strides, NZ storage shapes) is dialect/layout.py.

FRACTAL_NZ stores an (H, W) matrix (leading batch dims pass through) padded with zeros to
(ceil16(H), ceilC0(W)) and cut into 16 x C0 fractals, fractal-column-major:
    ND (h, w)  ->  NZ [w // C0, h // 16, h % 16, w % C0]
with C0 = 32 bytes / itemsize (16 for bf16/fp16, 32 for int8).
"""
from __future__ import annotations

import numpy as np

from ..dialect.layout import c0_for, contiguous_strides, nz_physical_shape  # noqa: F401 (re-exported)

ND = 2
FRACTAL_NZ = 29
FORMAT_NAMES = {ND: "ND", FRACTAL_NZ: "FRACTAL_NZ"}


def nd_to_nz(nd: np.ndarray) -> np.ndarray:
    """Pack a (..., H, W) array into its (..., W/C0, H/16, 16, C0) fractal form, zero padded."""
    *batch, h, w = nd.shape
    c0 = c0_for(nd.dtype)
    hp, wp = -(-h // 16) * 16, -(-w // c0) * c0
    if (hp, wp) == (h, w):
        padded = nd                         # whole fractals: no padded copy
    else:
        padded = np.zeros((*batch, hp, wp), dtype=nd.dtype)
        padded[..., :h, :w] = nd
    # (..., H/16, 16, W/C0, C0) -> (..., W/C0, H/16, 16, C0)
    tiled = padded.reshape(*batch, hp // 16, 16, wp // c0, c0)
    nb = len(batch)
    axes = (*range(nb), nb + 2, nb + 0, nb + 1, nb + 3)
    # a copy even where the transpose is already contiguous (W == C0): NZ data never aliases
    # the array it was packed from
    return np.array(tiled.transpose(axes), order="C", copy=True) if padded is nd \
        else np.ascontiguousarray(tiled.transpose(axes))


def nz_to_nd(nz: np.ndarray, logical_shape) -> np.ndarray:
    """Inverse of nd_to_nz: drop the padding and return the logical (..., H, W) array."""
    *batch, h, w = logical_shape
    nb = len(batch)
    w1, h1, _, c0 = nz.shape[nb:]
    axes = (*range(nb), nb + 1, nb + 2, nb + 0, nb + 3)
    full = nz.transpose(axes).reshape(*batch, h1 * 16, w1 * c0)
    return np.ascontiguousarray(full[..., :h, :w])


class NZTensor:
    """A tensor in FRACTAL_NZ format, as `torch_npu.npu_format_cast(x, 29)` gives.

    `.shape` is the logical (ND) shape, `.dtype` the element type and `.data` the physical
    fractal array. Kernels that need the matrix in another form cache it on the object
    (`kernel_cache`), so a weight set is converted once, not on every call.
    """

    __slots__ = ("shape", "dtype", "data", "kernel_cache", "__weakref__")

    def __init__(self, data: np.ndarray, logical_shape):
        self.data = data
        self.shape = tuple(int(s) for s in logical_shape)
        self.dtype = data.dtype
        self.kernel_cache: dict = {}
        if tuple(data.shape) != nz_physical_shape(self.shape, self.dtype):
            raise ValueError(
                f"NZ data shape {tuple(data.shape)} does not match logical shape {self.shape}")

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def to_nd(self) -> np.ndarray:
        return nz_to_nd(self.data, self.shape)

    def __repr__(self) -> str:
        return f"NZTensor(shape={self.shape}, dtype={self.dtype}, physical={self.data.shape})"


def format_cast(x, fmt: int):
    """Mirror of torch_npu.npu_format_cast: 29 packs to FRACTAL_NZ, 2 returns ND."""
    if fmt == FRACTAL_NZ:
        if isinstance(x, NZTensor):
            return x
        from .interop import is_torch, torch_to_numpy
        nd = torch_to_numpy(x) if is_torch(x) else np.asarray(x)
        if nd.ndim < 2:
            raise ValueError(f"format_cast: FRACTAL_NZ needs a tensor of rank >= 2, got shape {nd.shape}")
        return NZTensor(nd_to_nz(nd), nd.shape)
    if fmt == ND:
        return x.to_nd() if isinstance(x, NZTensor) else x
    raise ValueError(f"format_cast: unsupported format {fmt} (expected 2 = ND or 29 = FRACTAL_NZ)")


def get_format(x) -> int:
    return FRACTAL_NZ if isinstance(x, NZTensor) else ND


def describe_value(param: str, value):
    """The TensorInfo (shape, element type, format) of a NumPy array or NZTensor; KindError
    [ARG-002] naming `param` for anything else."""
    from ..dialect.opdef import KindError
    from ..dialect.types import TensorInfo, dtype_name
    if not (hasattr(value, "dtype") and hasattr(value, "shape")):
        raise KindError("tensor", f"expected a tensor (NumPy array, NZTensor or CPU torch.Tensor), "
                                  f"got {type(value).__name__}", param)
    try:
        dtype = dtype_name(value.dtype)
    except (ValueError, TypeError):
        raise KindError("tensor", f"expected a tensor with a supported element type "
                                  f"(bf16, f16, f32, f64, int4, int8, int16, int32, int64, uint8, "
                                  f"uint64, bool), got {value.dtype}", param) from None
    fmt = "FRACTAL_NZ" if isinstance(value, NZTensor) else "ND"
    return TensorInfo(tuple(int(d) for d in value.shape), dtype, fmt)


def nz_cache_view(cache: np.ndarray) -> NZTensor:
    """A PA_NZ paged cache (BlockNum, BlockSize, Nkv, H), as mla.prolog writes it, seen as the
    FRACTAL_NZ tensor (BlockNum, BlockSize, Nkv*H) that attention reads. No copy: the memory
    already holds each block as [Nkv*H / C0, BlockSize, C0] (numerics.md point 5)."""
    arr = np.asarray(cache)
    if arr.ndim != 4 or not arr.flags.c_contiguous:
        raise ValueError(f"nz_cache_view: expected a contiguous (BlockNum, BlockSize, Nkv, H) cache, "
                         f"got shape {arr.shape}")
    blocks, block_size = arr.shape[:2]
    width = arr.shape[2] * arr.shape[3]
    c0 = c0_for(arr.dtype)
    if block_size % 16 or width % c0:
        raise ValueError(f"nz_cache_view: BlockSize must be a multiple of 16 and Nkv*H of {c0}, "
                         f"got {block_size} and {width}")
    return NZTensor(arr.reshape(blocks, width // c0, block_size // 16, 16, c0), (blocks, block_size, width))

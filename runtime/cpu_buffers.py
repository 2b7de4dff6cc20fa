"""The CPU backend's buffers: a cell per buffer (stable across calls, as device addresses are)
and views of them, read when a kernel needs the data. What the CPU backend (runtime/backend.py),
its CPU implementations of aclnn calls (runtime/cpu_calls.py) and its collectives
(runtime/collective.py) share."""
from __future__ import annotations

import math

import numpy as np

from .formats import NZTensor, contiguous_strides, nz_physical_shape


class CpuBuffer:
    """A CPU 'device buffer': a cell holding the array (or NZTensor) written into it. Cells are
    stable per function (like device addresses), so a phase-one executor bound to them stays
    valid across calls."""
    __slots__ = ("info", "value")

    def __init__(self, info):
        self.info = info
        self.value = None


class CpuView:
    """`base`'s memory seen with another description; resolved when read."""
    __slots__ = ("base", "info", "offset", "strides", "count")

    def __init__(self, base, info, offset, strides):
        self.base, self.info, self.offset, self.strides = base, info, offset, strides
        # element count of a contiguous ND view (read as a slice and a reshape), else None
        self.count = (math.prod(info.shape) if info.format == "ND"
                      and list(strides) == contiguous_strides(info.shape) else None)

    @property
    def value(self):
        return view_array(resolve(self.base), self.info, self.offset, self.strides, self.count)


def resolve(buffer):
    return buffer.value if isinstance(buffer, (CpuBuffer, CpuView)) else buffer


def view_array(base, info, offset: int, strides, count=None):
    """A NumPy view of `base` described by (info, offset, strides) in elements of its row-major
    order; a FRACTAL_NZ description gives the NZTensor over the same memory. A base that is
    not contiguous (a kernel may return a transposed view) is read through a copy."""
    if isinstance(base, NZTensor):
        raise NotImplementedError("a view of a FRACTAL_NZ buffer")
    base = np.asarray(base)
    flat = base.reshape(-1)
    if info.format == "FRACTAL_NZ":
        physical = nz_physical_shape(info.shape, base.dtype)
        count = int(np.prod(physical))
        return NZTensor(flat[offset:offset + count].reshape(physical), info.shape)
    if count is not None:              # a reshape or a leading slice: no stride tricks
        return flat[offset:offset + count].reshape(info.shape)
    item = base.itemsize
    return np.lib.stride_tricks.as_strided(flat[offset:], shape=info.shape,
                                           strides=[s * item for s in strides])


def store(buffer, value):
    """A kernel's output written into its buffer (a view cannot be written here)."""
    if not isinstance(buffer, CpuBuffer):
        raise NotImplementedError("a kernel output written into a view")
    buffer.value = value

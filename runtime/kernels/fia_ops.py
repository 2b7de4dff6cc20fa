"""The array operations of the FIA kernel's hot path (runtime/kernels/fia.py), in NumPy or in
torch (ASCEND_MLA_MATMUL: torch when it imports, unless "numpy"), and the buffers kept between
calls. Both run the same formulas; each keeps its own library's arithmetic, so a given backend
always gives the same bits."""
from __future__ import annotations

import threading

import numpy as np

from .common import bfloat16, matmul_choice, torch_module


class NumpyOps:
    def tensor(self, a):
        return a if a.dtype in (np.float32, np.float64, bool) else a.astype(np.float32)

    def numpy(self, a):
        return a

    def float_dtype(self, a):
        return a.dtype

    def bmm(self, a, b, out=None):
        # one 2-D BLAS call per kv head: NumPy's stacked matmul is much slower than BLAS
        if out is None:
            return np.stack([x @ y for x, y in zip(a, b)])
        for i, (x, y) in enumerate(zip(a, b)):
            np.matmul(x, y, out=out[i])
        return out

    def swap_last(self, a):
        return a.transpose(0, 2, 1)

    def fill(self, dst, src):
        """dst[...] = src, converting to dst's float dtype."""
        dst[...] = src

    def gather_blocks(self, dst, blocks, ids):
        """dst[b, j] = blocks[ids[b, j]]; dst may be any strided view."""
        dst[...] = blocks[ids]

    def scale_(self, s, scale):
        s *= np.asarray(scale, s.dtype)
        return s

    def masked_fill(self, s, masked, value):
        return np.where(masked, s.dtype.type(value), s)

    def rowmax(self, s):
        return s.max(axis=-1, keepdims=True)

    def isneginf(self, a):
        return np.isneginf(a)

    def exp_sub_(self, s, m):
        s -= m
        return np.exp(s, out=s)

    def rowsum(self, e):
        return e.sum(axis=-1, keepdims=True)

    def div_(self, a, b):
        a /= b
        return a

    def cast(self, a, dtype):
        return a.astype(dtype)

    def round_to_(self, a, dtype):
        """a rounded to dtype (and back), in place."""
        if dtype is not None:
            a[...] = a.astype(dtype)
        return a

    def clamp_min(self, a, lo):
        return np.maximum(a, a.dtype.type(lo))

    def log(self, a):
        return np.log(a)


class TorchOps(NumpyOps):
    def __init__(self, torch):
        self.t = torch
        self.dtypes = {np.dtype(np.float16): torch.float16, bfloat16: torch.bfloat16}

    def tensor(self, a):
        if not a.flags.aligned or a.dtype not in (np.float32, np.float64, bool):
            a = np.asarray(a, np.float32)
        return self.t.from_numpy(a)

    def numpy(self, a):
        return a.numpy()

    def float_dtype(self, a):
        return np.float64 if a.dtype == self.t.float64 else np.float32

    def bmm(self, a, b, out=None):
        # NumPy's BLAS, one 2-D product per pair (it splits rows and columns among threads,
        # never k). Not torch's MKL: it splits k among threads for some shapes (one (8, 576) x
        # (576, 200) product differs between 1 and 2 threads), which the rounding contract rules
        # out, and its reproducibility mode is a process-wide setting MKL takes only before its
        # first call: not ours to change in the user's process
        a_np, b_np = a.numpy(), b.numpy()
        if out is None:
            out = np.empty(a_np.shape[:-1] + b_np.shape[-1:], np.result_type(a_np, b_np))
        return self.t.from_numpy(NUMPY.bmm(a_np, b_np, out=out))

    def swap_last(self, a):
        return a.transpose(1, 2)


    def fill(self, dst, src):
        # torch converts bf16/fp16 -> float32 on all threads
        src_type = self.dtypes.get(src.dtype)
        if src_type is None or dst.dtype != np.float32 or src.strides[-1] != src.itemsize:
            dst[...] = src
            return
        bits = self.t.from_numpy(np.asarray(src).view(np.int16)).view(src_type)
        self.t.from_numpy(dst).copy_(bits)

    def gather_blocks(self, dst, blocks, ids):
        # index_select writes into the strided dst directly, on all threads: one call when
        # the (batch row, block) axes of dst merge into one (one kv head), else one per row
        if not blocks.flags.writeable:                   # torch would warn on every call
            return super().gather_blocks(dst, blocks, ids)
        t = self.t
        src, out, idx = t.from_numpy(blocks), t.from_numpy(dst), t.from_numpy(ids)
        if out.shape[0] == 1 or out.stride(0) == out.shape[1] * out.stride(1):
            t.index_select(src, 0, idx.reshape(-1), out=out.view(-1, *out.shape[2:]))
            return
        for b in range(out.shape[0]):
            t.index_select(src, 0, idx[b], out=out[b])

    def scale_(self, s, scale):
        return s.mul_(scale)

    def masked_fill(self, s, masked, value):
        return s.masked_fill(masked, value)

    def rowmax(self, s):
        return s.amax(dim=-1, keepdim=True)

    def isneginf(self, a):
        return self.t.isneginf(a)

    def exp_sub_(self, s, m):
        return s.sub_(m).exp_()

    def rowsum(self, e):
        # torch splits one long row's sum among threads when there are fewer rows than threads,
        # and its bits would then depend on the thread count (the contract: they may not). So
        # few rows are summed by NumPy, whatever the thread count (the choice may not depend on
        # it either); 256 rows or more keep every thread of a 256-thread machine on whole rows.
        if e.numel() // max(1, e.shape[-1]) < 256:
            return self.t.from_numpy(e.numpy().sum(axis=-1, keepdims=True))
        return e.sum(dim=-1, keepdim=True)

    def div_(self, a, b):
        return a.div_(b)

    def cast(self, a, dtype):
        # float32 -> bf16 / fp16 on all threads; rounds half to even like NumPy and ml_dtypes
        # (a NaN may come out with another payload)
        target = self.dtypes.get(np.dtype(dtype))
        if target is None or a.dtype != np.float32:
            return a.astype(dtype)
        return self.t.from_numpy(a).to(target).view(self.t.int16).numpy().view(dtype)

    def round_to_(self, a, dtype):
        return a if dtype is None else a.copy_(a.to(self.dtypes[np.dtype(dtype)]))

    def clamp_min(self, a, lo):
        return a.clamp_min(lo)

    def log(self, a):
        return self.t.log(a)


NUMPY = NumpyOps()
_TORCH = None


def array_ops():
    """torch (float32 matmuls and softmax) when importable, unless ASCEND_MLA_MATMUL=numpy."""
    global _TORCH
    if matmul_choice() == "numpy" or torch_module() is None:
        return NUMPY
    if _TORCH is None:
        _TORCH = TorchOps(torch_module())
    return _TORCH


class Workspace(threading.local):
    """Buffers kept between calls (one set per thread), allocated zeroed, by name and dtype.
    The float32 "k" and "v" ones are written only by the bf16 gather, and only in their upper
    halves: their lower halves stay zero (zeros()). Others ("scores") are scratch (empty())."""

    max_bytes = 1 << 29                                  # larger ones are not kept

    def __init__(self):
        self.buffers = {}

    def zeros(self, name, shape):
        """A float32 buffer whose lower halves are zero (only the bf16 gather writes it)."""
        return self.empty(name, shape, np.float32)

    def empty(self, name, shape, dtype=np.float32):
        """A buffer of `shape` with what the last user left in it (allocated zeroed)."""
        size = int(np.prod(shape))
        buf = self.buffers.get((name, np.dtype(dtype)))
        if buf is None or buf.size < size:
            buf = aligned_zeros(size, dtype)
            if buf.nbytes <= self.max_bytes:
                self.buffers[(name, np.dtype(dtype))] = buf
        return buf[:size].reshape(shape)


def aligned_zeros(size, dtype=np.float32, alignment=64):
    """Zeros whose data starts on a cache line (NumPy only guarantees 16 bytes; BLAS reads
    aligned operands faster)."""
    itemsize = np.dtype(dtype).itemsize
    raw = np.zeros(size + alignment // itemsize, dtype)
    skip = (-raw.ctypes.data % alignment) // itemsize
    return raw[skip:skip + size]


WORKSPACE = Workspace()

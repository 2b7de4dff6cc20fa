"""Numeric helpers shared by the CPU kernels (docs/numerics.md)."""
from __future__ import annotations

import functools
import os

import ml_dtypes
import numpy as np

bfloat16 = np.dtype(ml_dtypes.bfloat16)


# --- which library runs the hot products -------------------------------------------------

MATMUL_CHOICES = ("numpy", "torch", "jit", "auto")


def matmul_choice() -> str:
    """ASCEND_MLA_MATMUL = numpy | torch | jit | auto (default), read on every call so tests can
    switch it. Each kernel decides what "auto" means for its products (gemm.bf16_engine)."""
    choice = os.environ.get("ASCEND_MLA_MATMUL", "auto").lower()
    if choice not in MATMUL_CHOICES:
        raise ValueError(f"ASCEND_MLA_MATMUL: expected one of {MATMUL_CHOICES}, got {choice!r}")
    return choice


@functools.lru_cache(maxsize=None)
def torch_module():
    """The torch module, or None when it is not installed (imported once, on first use). The
    kernels change no process-wide setting of torch or its libraries (MKL's reproducibility
    mode, thread counts): the user's own torch and NumPy calls run as they would without us."""
    try:
        import torch
    except ImportError:
        return None
    return torch


# oneDNN's ISA caps (ONEDNN_MAX_CPU_ISA) below its first one with bf16 dot products
_ISAS_WITHOUT_BF16 = {"SSE41", "AVX", "AVX2", "AVX2_VNNI", "AVX512_CORE", "AVX512_CORE_VNNI"}


@functools.lru_cache(maxsize=None)
def native_bf16_cpu() -> bool:
    """Does the CPU compute bf16 natively (x86 AVX512-BF16 / AMX-BF16, Arm BF16)? Read from
    /proc/cpuinfo, so the check does not import torch. ONEDNN_MAX_CPU_ISA capped below bf16
    (e.g. AVX2: how the benchmarks stand in for a CPU without bf16) counts as no."""
    if os.environ.get("ONEDNN_MAX_CPU_ISA", "").upper() in _ISAS_WITHOUT_BF16:
        return False
    try:
        with open("/proc/cpuinfo") as f:
            words = set(f.read().split())
    except OSError:
        return False
    return bool(words & {"avx512_bf16", "amx_bf16", "bf16"})


def bf16(x) -> np.ndarray:
    """Round to bfloat16 (half to even) and return the value as float32 again."""
    return np.asarray(x, dtype=np.float32).astype(bfloat16).astype(np.float32)


def f32(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float32)


def saturate_int8(x) -> np.ndarray:
    """round-half-even then saturate to [-128, 127]."""
    return np.clip(np.rint(x), -128, 127).astype(np.int8)


def round_to(x, dtype) -> np.ndarray:
    """Round to `dtype` (bfloat16 or float16: half to even) and return the value as float32."""
    return np.asarray(x, dtype=np.float32).astype(dtype).astype(np.float32)


# --- MLA helpers: RmsNorm, RoPE, rounding, paged caches (docs/numerics.md, "MLA prolog") ---

def mlir_kernels() -> bool:
    """Do the MLIR-compiled kernels run (the glue stages, jit_glue.py; FIA's MLA attention,
    jit_attention.py)? With the compiled products (ASCEND_MLA_MATMUL auto or jit, where MLIR's
    ExecutionEngine runs); NumPy / torch else."""
    if matmul_choice() not in ("auto", "jit"):
        return False
    from . import jit
    return jit.available()


def rms_norm(x, gamma, eps: float, dtype=np.float32) -> np.ndarray:
    """x / sqrt(mean(x^2) + eps) * gamma over the last axis, in float32 (numerics 3), rounded
    once to `dtype` (float32: unrounded)."""
    if mlir_kernels() and isinstance(x, np.ndarray):
        from . import jit_glue
        y = jit_glue.rms_norm(x, np.asarray(gamma), eps, dtype)
        if y is not None:
            return y
    x = f32(x)
    mean_square = np.mean(x * x, axis=-1, keepdims=True)
    return (x / np.sqrt(mean_square + np.float32(eps)) * f32(gamma)).astype(dtype, copy=False)


def rope_deinterleaved(x, cos, sin) -> np.ndarray:
    """RoPE of interleaved pairs (x[2i], x[2i+1]), output in de-interleaved order (numerics 4).

    out[i] = x[2i] cos[i] - x[2i+1] sin[i],  out[h+i] = x[2i+1] cos[h+i] + x[2i] sin[h+i],
    h = Dr/2; cos and sin are full Dr-wide rows that broadcast against x. float32.
    """
    return rope_halves(f32(x), f32(cos), f32(sin), np.concatenate)


def rope_halves(x, cos, sin, concatenate):
    """rope_deinterleaved's arithmetic on float32 arrays of any library with NumPy's slicing
    and operators (NumPy, torch: `concatenate` is np.concatenate or torch.cat). Each product and
    sum is one IEEE float32 operation, so every library gives the same bits."""
    h = x.shape[-1] // 2
    even, odd = x[..., 0::2], x[..., 1::2]
    first = even * cos[..., :h] - odd * sin[..., :h]
    second = odd * cos[..., h:] + even * sin[..., h:]
    return concatenate([first, second], -1)


def round_half_away(x) -> np.ndarray:
    """Round to the nearest integer, ties away from zero (exact: no `floor(x + 0.5)`)."""
    x = np.asarray(x)
    whole = np.trunc(x)
    return np.where(np.abs(x - whole) == 0.5, whole + np.sign(x), np.rint(x))


def nz_slot_offsets(slots, block_size: int, head_dim: int, dtype) -> np.ndarray:
    """Flat element offsets of the rows of `slots` in a PA_NZ paged cache (numerics 5).

    The cache has logical shape (BlockNum, BlockSize, 1, H); each block is stored as
    [H / C0, BlockSize, C0] with C0 = 32 bytes / itemsize (16 bf16, 32 int8). Element h of slot
    p = block * BlockSize + offset lives at
        block * BlockSize * H + (h // C0) * BlockSize * C0 + offset * C0 + h % C0.
    Returns an int64 array of shape (len(slots), H).
    """
    c0 = 32 // np.dtype(dtype).itemsize
    p = np.asarray(slots, dtype=np.int64).reshape(-1, 1)
    h = np.arange(head_dim, dtype=np.int64).reshape(1, -1)
    block, offset = p // block_size, p % block_size
    return block * block_size * head_dim + (h // c0) * block_size * c0 + offset * c0 + h % c0


def _flat_view(cache: np.ndarray) -> np.ndarray:
    flat = cache.reshape(-1)
    if flat.size and not np.shares_memory(flat, cache):
        raise ValueError("a PA_NZ cache must be C-contiguous: its memory is addressed in NZ order")
    return flat


def last_writers(slots) -> np.ndarray:
    """Indices of the rows that write a cache: non-negative slots, the last row of each slot."""
    slots = np.asarray(slots)
    reversed_slots = slots[::-1]
    _, first_in_reversed = np.unique(reversed_slots, return_index=True)
    last = len(slots) - 1 - first_in_reversed
    return np.sort(last[slots[last] >= 0])


def _paged_rows(cache: np.ndarray, slots, cache_mode: str):
    """(the array to index, the index of the rows of `slots`, the shape rows take there) in a
    (BlockNum, BlockSize, Nkv, H) cache: the cache itself, or its flat NZ-ordered memory for
    "PA_NZ"."""
    _, block_size, nkv, head_dim = cache.shape
    if cache_mode == "PA_NZ":
        offsets = nz_slot_offsets(slots, block_size, nkv * head_dim, cache.dtype)
        return _flat_view(cache), offsets, (slots.size, nkv * head_dim)
    return cache, (slots // block_size, slots % block_size), (slots.size, nkv, head_dim)


def scatter_paged_cache(cache: np.ndarray, slots, rows, cache_mode: str) -> None:
    """Write rows[i] (Nkv*H values) into slot slots[i] of a (BlockNum, BlockSize, Nkv, H) cache,
    in place.

    The caller has removed skipped (negative) slots and resolved duplicates; `rows` already has
    the cache's dtype. cache_mode "PA_BSND": plain row-major slots; "PA_NZ": NZ blocks of the
    (BlockSize, Nkv*H) matrix.
    """
    write_paged_caches([(cache, slots, rows)], cache_mode)


def write_paged_caches(writes, cache_mode: str) -> None:
    """Scatter each (cache, slots, rows) in turn (as scatter_paged_cache): a kernel's last step,
    after every result is computed. Should a write fail, the caches written before it get their
    old rows back, so a failing call leaves the caller's caches as they were."""
    done = []
    try:
        for cache, slots, rows in writes:
            slots = np.asarray(slots, dtype=np.int64).reshape(-1)
            if slots.size == 0:
                continue
            target, index, shape = _paged_rows(cache, slots, cache_mode)
            done.append((target, index, target[index]))     # fancy indexing: a copy
            target[index] = np.asarray(rows).reshape(shape)
    except BaseException:
        for target, index, old in reversed(done):
            target[index] = old
        raise
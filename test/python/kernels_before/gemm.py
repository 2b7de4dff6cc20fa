"""The matrix products every kernel shares: bf16/f16/f32 x weight with float32 accumulation,
int8 x int8 with exact int32 accumulation, and the per-head product of MLA's absorbed form.

Weights are constants in practice (a compiled program's globals, an eager call's NZ weights),
so their float32 (or torch) forms are converted once: an NZTensor keeps them in its
`kernel_cache`, a read-only ND array in a cache keyed by its identity while it lives. A
writeable array is converted on every call (it may change between calls).

Matmul backends (the hot bf16 products; env ASCEND_MLA_MATMUL=numpy|torch|auto, read per call):
  numpy  float32 BLAS on float32 copies of the weights: bf16 values are exact in float32, the
         accumulation is float32 and the caller rounds once to bf16 -- the rounding contract.
  torch  torch bf16 matmul (oneDNN): bf16 inputs, float32 accumulation, one rounding to bf16.
         Used only where the result is rounded to bf16 anyway. Fast on CPUs with native bf16
         (AVX512-BF16/AMX, Arm BF16); on an AVX2-only CPU it runs 3-80x slower than sgemm.
  auto   (default) torch when the CPU has native bf16 and torch imports, numpy otherwise.
"""
from __future__ import annotations

import warnings
import weakref

import numpy as np

from ascend_mla.runtime.formats import NZTensor

from .common import bfloat16, f32, matmul_choice, mm, native_bf16_cpu, torch_module


def converted(weight, key: str, build):
    """build(the weight as an ND array), cached for a constant weight (see the module doc)."""
    if isinstance(weight, NZTensor):
        cache = weight.kernel_cache
        if key not in cache:
            cache[key] = build(weight.to_nd())
        return cache[key]
    return _cached_constant(np.asarray(weight), key, build)


def weight_f32(weight) -> np.ndarray:
    """The logical weight as float32 (exact for bf16, f16 and int8)."""
    return converted(weight, "before/gemm/f32", lambda a: a.astype(np.float32))


# float32 sums of int8 x int8 products are exact while every partial sum stays below 2**24 in
# magnitude; a K-chunk of 1024 rows bounds it by 1024 * 128 * 128 = 2**24 whatever order BLAS
# adds in. The chunk sums are then added in float64 (exact: |acc| < 2**31).
_INT8_K_CHUNK = 1024


def int8_matmul(a, weight) -> np.ndarray:
    """int8 a (T, K) @ int8 weight (K, N) with exact int32 accumulation, as float32."""
    w = weight_f32(weight)
    a = f32(a)                                  # exact: int8 values
    acc = np.zeros((a.shape[0], w.shape[1]), np.float64)
    for k in range(0, w.shape[0], _INT8_K_CHUNK):
        acc += a[:, k:k + _INT8_K_CHUNK] @ w[k:k + _INT8_K_CHUNK]
    return acc.astype(np.float32)


def float_matmul(a, weight, *, rounds_to_bf16: bool) -> np.ndarray:
    """a (T, K) (values exact in float32) @ weight (K, N): float32 accumulation. With
    `rounds_to_bf16` the caller rounds the result to bf16 (so the torch backend, which rounds
    once to bf16 itself, may serve); the numpy backend returns it unrounded."""
    if rounds_to_bf16 and use_torch():
        torch = torch_module()
        w = converted(weight, "before/gemm/torch_bf16_nk", lambda nd: torch_bf16(torch, np.ascontiguousarray(nd.T)))
        x = torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32)).to(torch.bfloat16)
        return torch.nn.functional.linear(x, w).float().numpy()
    return mm(f32(a), weight_f32(weight))


def head_matmul(x, weight, *, rounds_to_bf16: bool) -> np.ndarray:
    """out[t, h] = x[t, h] @ weight[h]: (T, H, K) x (H, K, N) -> (T, H, N), float32 accumulation
    (unrounded for numpy, rounded once to bf16 for torch; see float_matmul)."""
    heads = np.ascontiguousarray(np.swapaxes(x, 0, 1))                 # (H, T, K)
    if rounds_to_bf16 and use_torch() and np.asarray(weight).dtype == bfloat16:
        torch = torch_module()
        w = torch_bf16(torch, weight)                                  # no copy
        q = torch.from_numpy(heads.astype(np.float32)).to(torch.bfloat16)
        out = torch.matmul(q, w).float().numpy()
    else:
        out = mm(f32(heads), weight_f32(weight))
    return np.swapaxes(out, 0, 1)


def use_torch() -> bool:
    """torch for the bf16 products: when asked, or under "auto" on a CPU with native bf16
    (elsewhere torch's bf16 GEMM is far slower than float32 BLAS)."""
    choice = matmul_choice()
    if choice == "torch" and torch_module() is None:
        raise RuntimeError("ASCEND_MLA_MATMUL=torch but torch cannot be imported")
    if choice == "auto":
        return native_bf16_cpu() and torch_module() is not None
    return choice == "torch"


def torch_bf16(torch, array):
    """A torch bf16 tensor sharing the bits of a bfloat16 NumPy array."""
    bits = np.ascontiguousarray(array).view(np.int16)
    with warnings.catch_warnings():             # read-only constants: torch only reads them
        warnings.simplefilter("ignore", UserWarning)
        return torch.from_numpy(bits).view(torch.bfloat16)


# --- constant conversions, keyed by id(array) while the array lives ---------------------------

_CONSTANTS: dict = {}


def _cached_constant(array: np.ndarray, key: str, build):
    """build(array), cached while `array`'s memory lives if it cannot change: read-only, and so
    is every array it views. A view (a transposed weight) is cached by its memory and layout,
    so a new view of the same constant each call still hits. A writeable array is converted on
    every call."""
    if not _is_frozen(array):
        return build(array)
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    # `build` must not keep a reference to `array`, or the entry would keep it alive.
    entry_key = (id(root), array.__array_interface__["data"][0], array.shape, array.strides,
                 array.dtype.str, key)
    entry = _CONSTANTS.get(entry_key)
    if entry is None or entry[0]() is not root:
        ref = weakref.ref(root, lambda _, k=entry_key: _CONSTANTS.pop(k, None))
        entry = _CONSTANTS[entry_key] = (ref, build(array))
    return entry[1]


def _is_frozen(array) -> bool:
    while isinstance(array, np.ndarray):
        if array.flags.writeable:
            return False
        array = array.base
    return True

"""NumPy <-> torch.Tensor at the public API boundary (torch is optional).

CPU torch tensors are viewed, not copied, as NumPy arrays (bf16 through an int16 view), so an
op that updates a cache in place updates the caller's tensor. A tensor NumPy cannot view (on
another device, a meta tensor, a complex, float8 or quantized element type, a sparse layout) is
an argument of the wrong kind: KindError [ARG-002] naming it.
"""
from __future__ import annotations

import numpy as np

from ..dialect.opdef import KindError
from .kernels.common import bfloat16


def is_torch(x) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "detach")


def _torch_dtypes():
    """torch element types with a NumPy view, and the view's dtype."""
    import torch
    return {torch.bool: np.bool_, torch.uint8: np.uint8, torch.int8: np.int8,
            torch.int16: np.int16, torch.int32: np.int32, torch.int64: np.int64,
            torch.float16: np.float16, torch.bfloat16: bfloat16, torch.float32: np.float32,
            torch.float64: np.float64}


def torch_to_numpy(t, param: str | None = None) -> np.ndarray:
    import torch
    if t.device.type != "cpu":
        raise KindError("tensor", f"expected a CPU tensor, got one on {t.device}", param)
    if t.layout != torch.strided:
        raise KindError("tensor", f"expected a dense (strided) tensor, got layout {t.layout}", param)
    if t.dtype not in _torch_dtypes():
        raise KindError("tensor", f"expected a tensor with a supported element type, got {t.dtype}", param)
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(bfloat16)
    return t.numpy()


def numpy_to_torch(a: np.ndarray):
    import torch
    if a.dtype == bfloat16:
        return torch.from_numpy(np.ascontiguousarray(a).view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(a))


def readable(a, in_place: bool = False):
    """An operand as kernels may read it: a view with a negative stride (`x[::-1]`; torch has
    none) becomes a contiguous copy, unless the op writes into it (a cache: the kernels write
    through any view)."""
    if isinstance(a, np.ndarray) and not in_place and any(s < 0 for s in a.strides):
        return np.ascontiguousarray(a)
    return a


def to_numpy_arguments(arguments: dict, in_place=()):
    """Convert torch tensors among the arguments; returns (arrays, convert_result). `in_place`
    names the operands the op writes into."""
    saw_torch = False

    def convert(v, name):
        nonlocal saw_torch
        if isinstance(v, (list, tuple)):
            return [convert(x, f"{name}[{i}]") for i, x in enumerate(v)]
        if is_torch(v):
            saw_torch = True
            v = torch_to_numpy(v, name)
        return readable(v, name in in_place)

    arrays = {k: convert(v, k) for k, v in arguments.items()}

    def back(result):
        if saw_torch and isinstance(result, np.ndarray):
            return numpy_to_torch(result)
        return result
    return arrays, back

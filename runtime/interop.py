"""NumPy <-> torch.Tensor at the public API boundary (torch is optional).

CPU torch tensors are viewed, not copied, as NumPy arrays (bf16 through an int16 view), so an
op that updates a cache in place updates the caller's tensor.
"""
from __future__ import annotations

import numpy as np

from .kernels.common import bfloat16


def is_torch(x) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "detach")


def torch_to_numpy(t) -> np.ndarray:
    import torch
    if t.device.type != "cpu":
        raise ValueError(f"expected a CPU tensor, got one on {t.device}")
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(bfloat16)
    return t.numpy()


def numpy_to_torch(a: np.ndarray):
    import torch
    if a.dtype == bfloat16:
        return torch.from_numpy(np.ascontiguousarray(a).view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(a))


def to_numpy_arguments(arguments: dict):
    """Convert torch tensors among the arguments; returns (arrays, convert_result)."""
    saw_torch = False

    def convert(v):
        nonlocal saw_torch
        if isinstance(v, (list, tuple)):
            return [convert(x) for x in v]
        if is_torch(v):
            saw_torch = True
            return torch_to_numpy(v)
        return v

    arrays = {k: convert(v) for k, v in arguments.items()}

    def back(result):
        if saw_torch and isinstance(result, np.ndarray):
            return numpy_to_torch(result)
        return result
    return arrays, back

"""Run a kernel of runtime/kernels and its frozen predecessor (kernels_before/) on the same
inputs and compare every result and every in-place operand bit for bit.

Used by test_kernels_bit_exact.py, and by conftest.py's oracle mode
(ASCEND_MLA_KERNEL_ORACLE=1), which routes every kernel call of any test through `compare`.
"""
from __future__ import annotations

import kernels_before
import numpy as np

from ascend_mla.runtime.formats import NZTensor


def _copy_mutable(value):
    """Writeable arrays (caches, which kernels update in place) are copied; constants (read-only
    arrays, NZ weights) are shared, so both kernels also see their converted-once forms."""
    if isinstance(value, np.ndarray) and value.flags.writeable:
        return _copy_with_layout(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_copy_mutable(v) for v in value)
    if isinstance(value, NZTensor) and value.data.flags.writeable:
        return NZTensor(value.data.copy(), value.shape)
    return value


def _copy_with_layout(a):
    """A copy with a's strides (a kernel may treat a strided view differently): a copy of the
    memory a views, viewed the same way."""
    if a.flags.c_contiguous or not isinstance(a.base, np.ndarray):
        return a.copy()
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    root = np.ascontiguousarray(root)
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if not 0 <= offset < root.nbytes:
        return a.copy()
    return np.ndarray(a.shape, a.dtype, buffer=root.copy(), offset=offset, strides=a.strides)


def _arrays(value):
    if isinstance(value, NZTensor):
        return [value.data]
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in _arrays(v)]
    return []


def same_bits(a, b) -> str | None:
    """None when a and b hold the same dtype, shape and bits; NaNs match NaNs whatever their
    payload (a float32 -> bf16 cast in torch and one in NumPy may give different NaN payloads).
    Otherwise what differs."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return f"dtype/shape {a.dtype}{a.shape} != {b.dtype}{b.shape}"
    if a.size == 0:
        return None
    if a.dtype == bool:
        a, b = a.view(np.uint8), b.view(np.uint8)
    raw_a = np.ascontiguousarray(a).view(np.uint8).reshape(a.shape + (-1,))
    raw_b = np.ascontiguousarray(b).view(np.uint8).reshape(b.shape + (-1,))
    differ = (raw_a != raw_b).any(axis=-1)
    if differ.any() and a.dtype.kind in "fV":          # V: bfloat16 is a void-kind dtype to NumPy
        both_nan = np.isnan(a.astype(np.float32)) & np.isnan(b.astype(np.float32))
        differ &= ~both_nan
    if not differ.any():
        return None
    at = tuple(int(i) for i in np.argwhere(differ)[0])
    return f"{int(differ.sum())} of {differ.size} elements differ, first at {at}: {a[at]!r} != {b[at]!r}"


def compare(op_name, new_kernel, operands: dict):
    """Run `new_kernel(**operands)` and the frozen kernel of `op_name` on copies of the mutable
    operands; raise AssertionError naming the first result or operand whose bits differ.
    Returns the new kernel's results (the call's, as if it had run alone)."""
    old_kernel = kernels_before.get_kernel(op_name)
    old_operands = {k: _copy_mutable(v) for k, v in operands.items()}
    try:
        old = old_kernel(**old_operands)
        old_error = None
    except Exception as e:                              # the new kernel must fail alike
        old, old_error = None, e
    try:
        new = new_kernel(**operands)
    except Exception as e:
        if old_error is None:
            raise AssertionError(f"{op_name}: the new kernel raises {e!r}, the old one did not") from e
        assert type(e) is type(old_error), f"{op_name}: raises {e!r}, the old one {old_error!r}"
        raise
    if old_error is not None:
        raise AssertionError(f"{op_name}: the old kernel raised {old_error!r}, the new one did not")
    assert len(new) == len(old), f"{op_name}: {len(new)} results, before {len(old)}"
    for i, (x, y) in enumerate(zip(new, old)):
        for ax, ay in zip(_arrays(x), _arrays(y)):
            why = same_bits(ax, ay)
            assert why is None, f"{op_name} result {i}: {why}"
    for name, value in operands.items():
        for ax, ay in zip(_arrays(value), _arrays(old_operands[name])):
            why = same_bits(ax, ay)
            assert why is None, f"{op_name} operand {name} after the call: {why}"
    return new

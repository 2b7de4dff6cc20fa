"""The CPU backend's rounding contract (docs/numerics.md, "The CPU backend's rounding contract"),
as a check of one kernel call:

- within the bound of the reference: the same formula with the device's rounding points,
  every float product summed exactly (float64) and rounded once to float32 -- the frozen
  kernels of kernels_before/ with EXACT_SUMS set. Each result element may differ from the
  reference by at most BOUND[dtype] "units", a unit being one ulp of the reference element in
  the result's type plus the type's rounding step (2^-8 bf16, 2^-11 fp16, 2^-24 float32) times
  the largest magnitude of the element's row (a one-ulp flip of a rounded intermediate moves a
  later product by a fraction of its row's scale, not of its own value); int8 results by
  BOUND["int8"] steps;
- deterministic: the same call again, with another intra-op thread count, gives the same bits.

Used by test_kernel_contract.py, and by conftest.py's oracle mode (ASCEND_MLA_KERNEL_ORACLE=1),
which routes every kernel call of any test through `check`.
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import os

import kernels_before
import ml_dtypes
import numpy as np
from kernels_before import common as before_common

from ascend_mla.runtime.formats import NZTensor

BF16 = np.dtype(ml_dtypes.bfloat16)

# units (see the module doc) by result dtype. The kernels before the contract (oneDNN's bf16
# GEMMs, float32 BLAS) were at most 0.84 (bf16), 0.45 (fp16), 21 (float32: FIA's lse) and 1
# (int8) units from the reference on test_kernel_contract.py's calls (docs/numerics.md)
BOUND = {"bfloat16": 1.0, "float16": 1.0, "float32": 32.0, "float64": 32.0, "int8": 1}
STEP = {"bfloat16": 2.0 ** -8, "float16": 2.0 ** -11, "float32": 2.0 ** -24, "float64": 2.0 ** -24}
MANTISSA = {"bfloat16": 8, "float16": 11, "float32": 24, "float64": 24}


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
    payload. Otherwise what differs."""
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


def error_units(actual, reference) -> float:
    """The largest difference of actual from reference in the contract's units (module doc);
    0 for equal bits, inf where one is NaN/inf and the other is not the same."""
    a, r = np.asarray(actual), np.asarray(reference)
    assert a.dtype == r.dtype and a.shape == r.shape, f"{a.dtype}{a.shape} != {r.dtype}{r.shape}"
    if a.size == 0 or same_bits(a, r) is None:
        return 0.0
    name = a.dtype.name
    if a.dtype.kind in "iub":
        return float(np.max(np.abs(a.astype(np.int64) - r.astype(np.int64))))
    a64, r64 = a.astype(np.float64), r.astype(np.float64)
    finite = np.isfinite(r64)
    if np.any((np.isnan(a64) != np.isnan(r64)) | (~finite & (a64 != r64) & ~np.isnan(r64))):
        return float("inf")
    a64, r64 = np.where(finite, a64, 0.0), np.where(finite, r64, 0.0)
    exponent = np.floor(np.log2(np.maximum(np.abs(r64), 2.0 ** -126)))
    ulp = 2.0 ** (exponent - (MANTISSA[name] - 1))
    row = np.max(np.abs(r64), axis=-1, keepdims=True) if r64.ndim else np.abs(r64)
    units = np.abs(a64 - r64) / (ulp + STEP[name] * row)
    return float(units.max())


def run(kernel, operands):
    """kernel(**operands) on copies of the mutable operands: (results, operands after). An
    operand given twice (FIA's key and value: one MLA cache) stays one object."""
    copies = {}
    mine = {k: copies[id(v)] if id(v) in copies else copies.setdefault(id(v), _copy_mutable(v))
            for k, v in operands.items()}
    return kernel(**mine), mine


@contextlib.contextmanager
def exact_sums():
    before_common.EXACT_SUMS = True
    try:
        yield
    finally:
        before_common.EXACT_SUMS = False


def reference(op_name, operands):
    """The contract's reference of one call: (results, operands after)."""
    with exact_sums():
        return run(kernels_before.get_kernel(op_name), operands)


def outputs(results, operands_after):
    """Every array of a call: its results, then its operands after the call (the caches)."""
    named = [(f"result {i}", a) for i, r in enumerate(results) for a in _arrays(r)]
    named += [(f"operand {k}", a) for k, v in operands_after.items() for a in _arrays(v)]
    return named


def errors(results, after, ref_results, ref_after):
    """{output name: error units} of one call against the reference's."""
    got, want = outputs(results, after), outputs(ref_results, ref_after)
    assert [n for n, _ in got] == [n for n, _ in want]
    return {name: (a.dtype.name, error_units(a, r)) for (name, a), (_, r) in zip(got, want)}


def _openblas():
    """NumPy's OpenBLAS, for its thread count (None when NumPy's BLAS is another)."""
    import glob
    for path in glob.glob(os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs", "*openblas*")):
        lib = ctypes.CDLL(path)
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", ""):
                get = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                put = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                if get is not None and put is not None:
                    return get, put
    return None


@contextlib.contextmanager
def threads(count):
    """torch's intra-op threads and NumPy's OpenBLAS threads set to `count` inside (where
    those libraries are), and the MLIR-compiled products' (ASCEND_MLA_NUM_THREADS)."""
    undo = []
    try:
        import torch
        undo.append(functools.partial(torch.set_num_threads, torch.get_num_threads()))
        torch.set_num_threads(count)
    except ImportError:
        pass
    blas = _openblas()
    if blas is not None:
        undo.append(functools.partial(blas[1], blas[0]()))
        blas[1](count)
    old = os.environ.get("ASCEND_MLA_NUM_THREADS")
    os.environ["ASCEND_MLA_NUM_THREADS"] = str(count)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("ASCEND_MLA_NUM_THREADS", None)
        else:
            os.environ["ASCEND_MLA_NUM_THREADS"] = old
        for fn in undo:
            fn()


def check(op_name, kernel, operands, thread_counts=(1, 3)):
    """Run `kernel(**operands)` (in place on the caller's operands, as a call would) and check
    the contract: within BOUND of the reference, and the same bits when run again with each of
    `thread_counts` threads. Returns the call's results."""
    ref_results, ref_after = reference(op_name, operands)
    reruns = []
    for count in thread_counts:
        with threads(count):
            reruns.append((count, run(kernel, operands)))
    results = kernel(**operands)
    for name, (dtype, units) in errors(results, operands, ref_results, ref_after).items():
        bound = BOUND.get(dtype, 0)
        assert units <= bound, f"{op_name} {name} ({dtype}): {units:.3g} units from the reference, bound {bound}"
    mine = outputs(results, operands)
    for count, (again, after) in reruns:
        for (name, a), (_, b) in zip(mine, outputs(again, after)):
            why = same_bits(a, b)
            assert why is None, f"{op_name} {name}: not deterministic with {count} threads: {why}"
    return results

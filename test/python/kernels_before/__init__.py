"""The CPU kernels as they were before the speed work of issue 24 (runtime/kernels at commit
470df83), frozen. Two uses:
- the reference of the rounding contract (test_kernel_contract.py, docs/numerics.md "The CPU
  backend's rounding contract"): with common.EXACT_SUMS set, every float product is summed
  exactly (float64) and rounded once to float32, and the rest of each formula runs as written,
  with the device's rounding points;
- the "before" column of the benchmarks (bench/), and the error today's kernels had when the
  contract was written (measured against that reference in the same test).
Only the imports from outside runtime/kernels, the kernel_cache keys (prefixed "before/") and the
EXACT_SUMS switch (common.mm, common.einsum) differ from that commit. Do not edit the numerics.

Below, the original docstring: one registered function per `mla` op.

A kernel is called with each operand by its declared name (a NumPy array, an NZTensor for a
FRACTAL_NZ operand, None for an absent optional operand, a list for a variadic one) and
each attribute by name (defaults applied). It returns the op's results as a tuple, in the
declared order. In-out operands (paged caches) are updated in place and returned.
"""
from __future__ import annotations

from typing import Callable

KERNELS: dict[str, Callable] = {}


def kernel(op_name: str):
    def register(fn):
        if op_name in KERNELS:
            raise ValueError(f"a kernel for {op_name} is already registered")
        KERNELS[op_name] = fn
        return fn
    return register


def get_kernel(op_name: str) -> Callable:
    found = KERNELS.get(op_name)
    if found is not None:
        return found
    _load_all()
    try:
        return KERNELS[op_name]
    except KeyError:
        raise NotImplementedError(f"no CPU kernel for {op_name}") from None


def _load_all():
    # Importing the modules registers their kernels.
    from . import (
        fia,  # noqa: F401
        nsa,  # noqa: F401
        primitive,  # noqa: F401
        prolog,  # noqa: F401
    )

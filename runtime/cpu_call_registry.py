"""The registry of the CPU implementations of aclnn functions (runtime/cpu_calls.py and the
modules it loads): its own module, so that a module of implementations imports it and
cpu_calls.py imports that module, with no cycle."""
from __future__ import annotations

from typing import Callable

CPU_CALLS: dict[str, Callable] = {}     # aclnn function name -> its CPU implementation


def cpu_call(function, variants: tuple = ()):
    """Register the CPU implementation of the aclnn Function `function` (its declaration in
    dialect/aclnn_functions.py); `variants`: the keys of the numerics variants (`mla.<key>` on
    the call) it implements, which it reads from `call.variant`."""
    if isinstance(function, str):
        raise TypeError(f"cpu_call({function!r}): register by the Function, not its name")

    def register(fn):
        if function.name in CPU_CALLS:
            raise ValueError(f"a CPU implementation of {function.name} is already registered")
        fn.variants = frozenset(variants)
        CPU_CALLS[function.name] = fn
        return fn
    return register

"""CPU kernels, one registered function per `mla` op (what the CPU backend runs for a call).

A kernel is registered with the op's OpDef (`@kernel(RmsNorm)`) and called with each operand
by its declared name (a NumPy array, an NZTensor for a FRACTAL_NZ operand, None for an absent
optional operand, a list for a variadic one) and each attribute by name. Attribute defaults
come from the OpDef (the registry fills in what a call leaves out): a kernel's signature does
not repeat them. It returns the op's results as a tuple, in the declared order. In-out
operands (paged caches) are updated in place and returned.
"""
from __future__ import annotations

import functools
import importlib
import inspect
from typing import Callable

KERNELS: dict[str, Callable] = {}      # op name -> the kernel, OpDef defaults applied

# The modules holding kernels: loading them registers every kernel.
MODULES = ("primitive", "nsa", "fia", "prolog", "decoder")


def kernel(opdef):
    """Register the CPU kernel of the mla op `opdef` (its OpDef). The kernel's own signature
    gives no attribute defaults: the registered function takes them from the OpDef."""
    if isinstance(opdef, str):
        raise TypeError(f"kernel({opdef!r}): register a kernel by its op's OpDef, not its name")

    def register(fn):
        defaults = {a.name: a.default for a in opdef.attributes if not a.required}
        repeated = [p.name for p in inspect.signature(fn).parameters.values()
                    if p.name in defaults and p.default is not inspect.Parameter.empty]
        if repeated:
            raise ValueError(f"the kernel of {opdef.name} repeats the OpDef's defaults of {repeated}")
        if opdef.name in KERNELS:
            raise ValueError(f"a kernel for {opdef.name} is already registered")

        @functools.wraps(fn)
        def with_defaults(**arguments):
            return fn(**{**defaults, **arguments})
        with_defaults.opdef = opdef
        KERNELS[opdef.name] = with_defaults
        return fn
    return register


def get_kernel(op) -> Callable:
    """The kernel of an op (its OpDef or its name), defaults applied."""
    name = op if isinstance(op, str) else op.name
    found = KERNELS.get(name)
    if found is not None:
        return found
    load_kernels()
    try:
        return KERNELS[name]
    except KeyError:
        raise NotImplementedError(f"no CPU kernel for {name}") from None


def load_kernels() -> dict:
    """Every kernel (import the kernel modules, once); returns KERNELS."""
    for module in MODULES:
        importlib.import_module(f"{__package__}.{module}")
    return KERNELS

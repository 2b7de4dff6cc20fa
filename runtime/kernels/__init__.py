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
PREPARES: dict[str, Callable] = {}     # op name -> what converts its constant weights (prepares)

# The modules holding kernels: loading them registers every kernel.
MODULES = ("primitive", "nsa", "fia", "prolog", "decoder", "serving", "collective", "dsa", "dsa_prolog",
           "dsa_primitives", "moe_distribute")


def run_kernel(op, operands: dict, attributes: dict, result_types: dict | None = None):
    """Execute one op's CPU kernel (`op`: its OpDef or name); returns its results as a tuple.
    Attributes left out take the OpDef's defaults. A kernel that takes `result_types` (name ->
    TensorInfo) gets the op's result types, for ops whose result element type is a choice of
    the IR rather than a function of the operands."""
    fn = get_kernel(op)
    extra = {"result_types": result_types} if result_types is not None and _wants_result_types(fn) else {}
    return fn(**operands, **attributes, **extra)


@functools.lru_cache(maxsize=None)
def _wants_result_types(fn) -> bool:
    return "result_types" in inspect.signature(fn).parameters


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


def prepares(opdef):
    """Register what converts the constant weights of an mla op's kernel ahead of its first
    call: fn(constants, types), `constants` the op's operands that are bound globals (name ->
    value), `types` the TensorInfo of each operand and result by name. It calls the same
    conversions the kernel would (gemm.prepare), so a compiled program's first call runs as
    fast as the next ones."""
    def register(fn):
        PREPARES[opdef.name] = fn
        return fn
    return register


def prepare_weights(fn, constants) -> int:
    """Convert, for the CPU kernels, every weight the mla-level func.func `fn` reads from a
    bound global (compile() calls this): returns how many ops had weights prepared."""
    from ...dialect.dialect import opdef_of, symbol_text
    from ...dialect.types import describe_type
    load_kernels()
    loaded, count = {}, 0
    if not fn.regions[0].blocks:                    # a declaration: no ops
        return 0
    for op in fn.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "ml_program.global_load_const":
            value = constants.get(symbol_text(op.attributes["global"]))
            if value is not None:
                loaded[op.results[0]] = value
            continue
        opdef = opdef_of(op)
        prepare = opdef is not None and PREPARES.get(opdef.name)
        if not prepare:
            continue
        names = [spec.name for spec in opdef.operands]
        groups = opdef.operand_groups(op)
        weights = {name: loaded[vs[0]] for name, vs in zip(names, groups) if len(vs) == 1 and vs[0] in loaded}
        if weights:
            types = {name: describe_type(vs[0].type) for name, vs in zip(names, groups) if len(vs) == 1}
            types.update((name, describe_type(r.type)) for name, r in zip(opdef.result_names, op.results))
            prepare(weights, types)
            count += 1
    return count


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


def load_all() -> None:
    """Every kernel, and the library the hot products will run in (torch, unless
    ASCEND_MLA_MATMUL=numpy), imported: no kernel call pays an import after this. Call it
    before timing a compiled program's first step (torch takes about a second to import)."""
    load_kernels()
    from .common import matmul_choice, torch_module
    if matmul_choice() != "numpy":
        torch_module()

"""Backends: how one kernel call of a lowered function is carried out.

`set_backend("cpu" | "npu" | "auto")`; "auto" (the default) uses the NPU when the CANN runtime
and a device are present and the CPU otherwise, and says which once. "npu" without them raises
`ascend_mla.BackendUnavailable` naming what is missing.

`Backend` (runtime/interface.py) is the interface both backends implement (CpuBackend here,
NpuBackend in runtime/npu.py) and the executor (runtime/executor.py, which owns the two-phase
protocol) calls; test/python/test_backend.py checks that each implements all of it.
"""
from __future__ import annotations

import functools
import logging
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..dialect.errors import VerificationError
from .cpu_buffers import CpuBuffer, CpuView, resolve, store, view_array  # noqa: F401 (also the backend's API)
from .formats import describe_value
from .interface import Backend
from .kernels import run_kernel  # noqa: F401 (also the backend's API)

log = logging.getLogger("ascend_mla")


class BackendFallbackWarning(RuntimeWarning):
    """`auto` runs on the CPU because a CANN install that is configured here does not work
    (issued once per selection of `auto`; the reason is the NPU backend's)."""


BACKENDS = ("cpu", "npu", "auto")
_selected = "auto"
_announced = False


def cann_runtime_path() -> str | None:
    """Where the CANN runtime is, if this machine has one."""
    from .npu import find_libraries
    found = find_libraries()
    return found.get("libascendcl.so")


def set_backend(name: str):
    global _selected, _announced
    if name not in BACKENDS:
        raise ValueError(f"backend: expected one of {BACKENDS}, got {name!r}")
    if name == "npu":
        from .npu import npu_backend
        npu_backend()        # BackendUnavailable, saying what is missing
    _selected, _announced = name, False


def get_backend() -> str:
    """The backend calls run on now ("cpu" or "npu")."""
    return backend_instance(None).name


def backend_instance(name=None):
    """The Backend object for a name (None: the selected one); "auto" resolves once."""
    global _announced
    if name is not None and not isinstance(name, str):
        return name                                   # already a Backend
    name = name or _selected
    if name == "cpu":
        return CPU
    from .npu import npu_backend, unavailable_reason
    if name == "npu":
        return npu_backend()
    why = unavailable_reason()          # not an exception: "auto" asks on every call
    if why is not None:
        if not _announced:
            _announced = True
            from .npu import broken_install_reason
            if broken_install_reason() is not None:      # a CANN install that does not work: said once
                warnings.warn(f"backend 'auto': running on the CPU backend because the CANN install here does "
                              f"not work: {why}", BackendFallbackWarning, stacklevel=2)
                log.warning("backend 'auto': running on the CPU backend (%s)", why)
            else:                                        # no CANN at all: the CPU is the expected backend
                log.info("backend 'auto': running on the CPU backend (%s)", why)
        return CPU
    if not _announced:
        log.info("backend 'auto': running on the NPU")
        _announced = True
    return npu_backend()


@functools.lru_cache(maxsize=None)
def _has_data_rules(opdef) -> bool:
    from ..dialect.rules import RUNTIME
    return any(r.kind == RUNTIME for r in opdef.rules)


# --- the CPU backend -------------------------------------------------------------------------

class CpuExecutor:
    """Phase one on the CPU: the call bound to its buffers and host values (and, once
    checked, the snapshot of its op's types and attributes, which only a new phase one changes)."""
    __slots__ = ("call", "args", "snapshots")

    def __init__(self, call, args):
        self.call, self.args, self.snapshots = call, args, {}


class CpuCall:
    """What a CPU implementation (runtime/cpu_calls.py) gets: `args` by C name (resolved
    values), `types` (the TensorInfo of each tensor argument), and `run(op, operands,
    attributes, result_types)`, which runs an mla op's kernel after its data rules (in
    checked mode)."""

    def __init__(self, fn, values, types, buffers, checked, snapshots, unread=frozenset(), variant=None):
        self.fn, self.name, self.args, self.types = fn, fn.name, values, types
        self.variant = dict(variant or {})     # the call's numerics variant (mla.<key> attributes)
        self._buffers, self._checked, self._snapshots = buffers, checked, snapshots
        self.unread = unread          # outputs nothing reads later: they need not be computed

    def run(self, opdef, operands, attributes, result_types=None):
        """Run the kernel of the mla op `opdef` (its OpDef), after its data rules in checked
        mode; attributes left out take their defaults."""
        if wants_check(self._checked, opdef.name):
            given = {k: v for k, v in attributes.items()
                     if opdef.attribute_by_name[k].required or v != opdef.attribute_by_name[k].default}
            _check_data(opdef, operands, given, self._snapshots, _rules_left(self._checked, opdef.name))
        return run_kernel(opdef, operands, attributes, result_types)

    def run_bound(self, opdef) -> dict:
        """Run the call as the mla op `opdef` through the binds (what calls of a Function with
        a `kernel` do); the outputs are stored: nothing is left to return."""
        _run_bound_kernel(self.fn, [self._buffers[n] for n in _param_names(self.fn)], self.args, self.types,
                          self._checked, None, self._snapshots, opdef)
        return {}

    def buffer(self, name: str):
        """The buffer (or list of buffers) passed as argument `name`: where an output list's
        tensors are written."""
        return self._buffers[name]

    def same(self, a: str, b: str) -> bool:
        """Whether two arguments are the same buffer (a cache passed as key and value)."""
        return _same(self._buffers[a], self._buffers[b])


def _same(x, y) -> bool:
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(_same(p, q) for p, q in zip(x, y))
    return x is y


@dataclass
class CpuState:
    """A function's cells on the CPU backend, stable across calls (as device addresses are)."""
    args: dict = field(default_factory=dict)        # input index -> CpuBuffer
    allocs: dict = field(default_factory=dict)      # slot -> CpuBuffer (allocations, constants)
    scratch: list = field(default_factory=list)     # the allocations: emptied after each call


class CpuBackend(Backend):
    """Each kernel call runs the CPU kernel of the mla op it comes from (runtime/kernels):
    through the Function's binds, or its implementation in runtime/cpu_calls.py."""
    name = "cpu"

    def new_state(self, lowered) -> CpuState:
        return CpuState()

    def argument(self, state, index, value, info):
        cell = state.args.get(index)
        if cell is None:
            cell = state.args[index] = CpuBuffer(info)
        cell.value = value
        cell.info = info
        return cell

    def alloc(self, state, slot, info):
        cell = state.allocs.get(slot)
        if cell is None:
            cell = state.allocs[slot] = CpuBuffer(info)
            state.scratch.append(cell)
        return cell

    def constant(self, state, slot, array, info):
        cell = state.allocs.get(slot)
        if cell is None:
            cell = state.allocs[slot] = CpuBuffer(info)
            cell.value = array
        return cell

    def view(self, base, info, offset, strides):
        return CpuView(base, info, offset, strides)

    def workspace(self, state, size):
        return None                      # the CPU kernels need no workspace (size 0)

    def tensor_key(self, buffer):
        if isinstance(buffer, CpuView):
            return ("view", self.tensor_key(buffer.base), buffer.info, buffer.offset, buffer.strides)
        if isinstance(buffer, CpuBuffer):
            return (id(buffer), buffer.info)
        return (id(buffer), describe_value("constant", buffer))

    def phase_one(self, call, args):
        return 0, CpuExecutor(call, args)

    def release(self, executor):
        pass

    def launch(self, callee, workspace, size, executor, *, checked=True):
        call, args = executor.call, executor.args
        fn = call.function
        values, types = {}, {}
        for name, a in zip(_param_names(fn), args):
            if isinstance(a, list):
                values[name] = [resolve(x) for x in a]
            elif isinstance(a, (CpuBuffer, CpuView)):
                values[name] = a.value
                types[name] = a.info
            else:
                values[name] = a
        implementation = _cpu_call(fn.name)
        if implementation is not None:
            if not set(call.variant or ()) <= implementation.variants:
                raise NotImplementedError(f"{fn.name}: numerics variant {call.variant}")
            buffers = dict(zip(_param_names(fn), args))
            written = implementation(CpuCall(fn, values, types, buffers, checked, executor.snapshots,
                                             call.unread, call.variant))
            for name, value in written.items():
                store(buffers[name], value)
            return
        if fn.kernel is None:
            raise NotImplementedError(f"{fn.name}: no CPU implementation")
        _run_bound_kernel(fn, args, values, types, checked, call.variant, executor.snapshots)

    def communicator(self, group, world_size):
        from .collective import CpuCommunicator
        return CpuCommunicator(group, world_size)

    def collective(self, function, args):
        from .collective import cpu_collective
        cpu_collective(function, args)

    def comm_query(self, comm, what):
        from .collective import cpu_comm_query
        return cpu_comm_query(comm, what)

    def synchronize(self):
        pass

    def finish(self, state):
        """After a call: the buffers drop their arrays (results are the caller's now), so the
        next call's kernels reuse the freed memory, as a device reuses its arena."""
        for cell in state.scratch:
            cell.value = None
        for cell in state.args.values():
            cell.value = None

    def host_value(self, buffer):
        return resolve(buffer)

    def result(self, buffer, info, caller):
        value = resolve(buffer)
        return caller if caller is not None else value


def _run_bound_kernel(fn, args, values, types, checked, variant=None, snapshots=None, opdef=None):
    """Call the kernel of `opdef` (default: fn.kernel) with the arguments matched to the mla
    op's names through Param.binds; `variant`: attributes of the op the function does not take
    (e.g. a rounding)."""
    binding = _binding(fn, opdef or fn.kernel)
    opdef = binding.opdef
    operands = dict(binding.operands)
    attributes = dict(binding.attributes)
    given, result_types, outputs = {}, {}, {}
    for p, a in zip(fn.params, args):
        role = binding.role[p.c_name]
        if role == "scratch":       # an output buffer the op has no result for: not written here
            continue
        if role is None:
            if a is not None:
                raise NotImplementedError(f"{fn.name}: {p.c_name} is always nullptr in this compiler")
            continue
        value = values[p.c_name]
        if role == "out":
            if a is not None:
                result_types[p.binds] = types[p.c_name]
                outputs[p.binds] = a
        elif role == "host":
            value = list(value) if isinstance(value, tuple) else value
            attributes[p.binds] = value
            spec = opdef.attribute_by_name[p.binds]
            if value is not None and (spec.required or value != spec.default):
                given[p.binds] = value
        elif role == "operand":
            operands[p.binds] = value
    for name, value in (variant or {}).items():
        attributes[name] = given[name] = value
    if wants_check(checked, opdef.name):
        _check_data(opdef, operands, given, snapshots, _rules_left(checked, opdef.name))
    results = run_kernel(opdef, operands, attributes, result_types)
    for name, value in zip(opdef.result_names, results):
        if name in outputs:
            store(outputs[name], value)


class _Binding:
    """How a Function's arguments map onto its mla op (once per Function): each parameter's
    role ("operand", "out", "host", "fixed": a host value the lowering fixes, such as alpha = 1,
    "scratch": an output buffer the op has no result for, or None: a tensor that is always
    nullptr), the op's operand slots and attribute defaults."""

    def __init__(self, fn, opdef):
        from ..dialect import aclnn as A
        self.opdef = opdef
        self.operands = {o.name: ([] if o.kind == "variadic" else None) for o in self.opdef.kernel_operands}
        self.attributes = {a.name: (None if a.required else a.default) for a in self.opdef.attributes}
        self.role = {}
        for p in fn.params:
            if p.binds is None:
                self.role[p.c_name] = "fixed" if p.kind in A.HOST else "scratch" if p.kind == A.OUT else None
            elif p.kind in (A.OUT, A.OPT_OUT):
                self.role[p.c_name] = "out"
            elif p.kind in A.HOST:
                self.role[p.c_name] = "host"
            else:
                self.role[p.c_name] = "operand"


@functools.lru_cache(maxsize=None)
def _binding(fn, opdef) -> _Binding:
    return _Binding(fn, opdef)


@functools.lru_cache(maxsize=None)
def _param_names(fn) -> tuple:
    return tuple(p.c_name for p in fn.params)


@functools.lru_cache(maxsize=None)
def _cpu_call(name):
    from .cpu_calls import CPU_CALLS
    return CPU_CALLS.get(name)


@functools.lru_cache(maxsize=None)
def mla_opdef(name):
    from ..dialect.dialect import MLA, _load_op_modules
    _load_op_modules()
    return MLA.ops[name]


def wants_check(checked, op_name) -> bool:
    """`checked`: True (every op, all its rules: a program given lowered), False (none), the
    names of the ops whose data rules run before their kernels, or a mapping op name -> the
    rules to run (what a program's checks before the call left: the rules that read computed
    data; runtime/checks.py)."""
    return checked is True or bool(checked) and op_name in checked


ALL_RULES = "all"


def _rules_left(checked, op_name):
    """The rules to run before the op's kernel: ALL_RULES for a program given lowered (no
    verifier saw its mla ops, and the aclnn calls are checked against their prototypes' kinds
    only), those a mapping names, or None: the op's data rules."""
    if checked is True:
        return ALL_RULES
    return checked[op_name] if isinstance(checked, Mapping) else None


def _check_data(opdef, operands, given, snapshots=None, rules=None):
    """The op's rules on the actual values (checked mode): its data rules (rules None), all of
    them (ALL_RULES) or only `rules`; nothing to do when none are left. The snapshot of the
    op's types and attributes is built once per signature (`snapshots`: the call site's own
    cache, checked first)."""
    nothing_left = (not _has_data_rules(opdef)) if rules is None else (rules is not ALL_RULES and not rules)
    if nothing_left:
        return
    snapshot = snapshots.get(opdef.name) if snapshots is not None else None
    if snapshot is None:
        key = (opdef.name, tuple((k, _signature(v)) for k, v in operands.items()),
               tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in given.items()))
        snapshot = _SNAPSHOTS.get(key)
        if snapshot is None:
            infos = {}
            for name, value in operands.items():
                if isinstance(value, list):
                    infos[name] = [describe_value(f"{name}[{i}]", v) for i, v in enumerate(value)]
                elif value is not None:
                    infos[name] = describe_value(name, value)
            snapshot = opdef.snapshot_from_parts(infos, given)
            if len(_SNAPSHOTS) > 4096:
                _SNAPSHOTS.clear()
            _SNAPSHOTS[key] = snapshot
        if snapshots is not None:
            snapshots[opdef.name] = snapshot
    only = None if rules is ALL_RULES else rules
    verdict = opdef.check(snapshot.with_values(operands), phase="runtime" if rules is None else "all", rules=only)
    if not verdict.ok:
        raise VerificationError("\n".join(f.text(opdef.name) for f in verdict.errors), verdict.errors)


_SNAPSHOTS: dict = {}


def _signature(value):
    if value is None:
        return None
    if isinstance(value, list):
        return tuple(_signature(v) for v in value)
    return (type(value), tuple(value.shape), value.dtype)


CPU = CpuBackend()

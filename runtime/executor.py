"""The one execution path: run a lowered (aclnn kernel-call) function on a backend.

    lowered = executor.load(module)                 # decode once (lowering/program.py)
    outputs = lowered(inputs)                       # or executor.execute(module, inputs)

A backend only says how a kernel call is carried out (runtime/backend.py: the CPU backend runs
the mla ops' CPU kernels; runtime/npu.py: ACL/aclnn through ctypes). The protocol itself lives
here: buffers are allocated where the IR allocates them, views alias their base, and phase one
(`GetWorkspaceSize`) is re-run exactly when something it reads changes — a host value (lengths,
block size, cache mode...), a tensor's description or its buffer — and its executor is reused
otherwise. Buffers are stable across calls of one LoweredFunction (per-function state), so a
decode loop with fixed shapes and lengths runs phase one once per call site.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from ..dialect import aclnn as A
from ..dialect.errors import ExecutionError
from ..dialect.opdef import KindError
from ..dialect.types import TensorInfo
from ..lowering.program import (  # noqa: F401
    NULL,
    Alloc,
    Call,
    Collective,
    CommQuery,
    Communicator,
    Constant,
    DecodedFunction,
    Host,
    Launch,
    PhaseOne,
    ReadIntArray,
    Synchronize,
    TensorList,
    View,
    Workspace,
    decode,
    dense_value,
    find_function,
    symbol_name,
)
from .formats import NZTensor, describe_value


@dataclass
class SiteState:
    key: Any = None
    executor: Any = None
    workspace_size: int = 0


@dataclass
class Stats:
    """What the executor did, per call site: phase-one runs and executor reuses."""
    phase_one: list = field(default_factory=list)
    reused: list = field(default_factory=list)


@dataclass
class BackendRun:
    """What a function keeps per backend across calls: the backend's state (its buffers), each
    call site's phase-one executor, the stats, and after the first call the values that cannot
    change (`template`: (slot, value)) and the instructions left to run (`program`)."""
    state: Any
    sites: list
    stats: Stats
    template: Optional[list] = None
    program: Optional[list] = None


class LoweredFunction(DecodedFunction):
    """A decoded lowered function (lowering/program.py) that runs: per-backend state (buffers,
    call sites' executors) across calls."""

    def __init__(self, fn, constants: Optional[Mapping] = None):
        super().__init__(fn, constants)
        self._states: dict = {}
        self._lock = threading.Lock()         # one call at a time (see __call__)

    # --- running ---------------------------------------------------------------------------
    def run_state(self, backend) -> BackendRun:
        if backend not in self._states:
            self._states[backend] = BackendRun(backend.new_state(self), [SiteState() for _ in self.calls],
                                               Stats([0] * len(self.calls), [0] * len(self.calls)))
        return self._states[backend]

    # Values that cannot change between calls on one backend state (host values, buffers,
    # constants and views of them) are computed by the first call; later calls start from
    # them and run the rest (no ACL call is skipped: these make none after the first time).
    _FIXABLE = (Host, Alloc, Constant, View, TensorList)

    def _phase_one(self, backend, env, sites, stats, size_slot, exec_slot, call):
        """Reuse the call site's executor unless an argument that can change did."""
        args = [env[s] for s in call.args]
        params = call.function.params
        key = tuple(_key(backend, params[i].kind, args[i]) for i in call.varying)
        site = sites[call.site]
        if site.executor is None or site.key != key:
            if site.executor is not None:
                backend.release(site.executor)
            site.workspace_size, site.executor = backend.phase_one(call, args)
            site.key = key
            stats.phase_one[call.site] += 1
        else:
            stats.reused[call.site] += 1
        env[size_slot], env[exec_slot] = site.workspace_size, site.executor

    def _remember(self, run: BackendRun, env):
        fixed = {i for i, inst in enumerate(self.instructions)
                 if isinstance(inst, self._FIXABLE) and inst.slot not in self._varying}
        run.template = [(self.instructions[i].slot, env[self.instructions[i].slot]) for i in sorted(fixed)]
        run.program = _fuse_calls([inst for i, inst in enumerate(self.instructions) if i not in fixed])

    def stats(self, backend=None) -> Stats:
        return self.run_state(_resolve_backend(backend)).stats

    def __call__(self, inputs: Sequence, *, backend=None, checked: bool = True,
                 inputs_checked: bool = False) -> list:
        """Run the function. `checked`: the data rules of each op run before its CPU kernel
        (True), of none (False), of the mla ops named in a set, or the rules a mapping op name
        -> rules gives (runtime/backend.py wants_check); `inputs_checked`: the caller has
        checked the inputs against the argument types.

        Calls from several threads run one at a time: a function's backend state is one set of
        stable buffers (device addresses on the NPU) that the call sites' phase-one executors
        are bound to and reused with, and one stream; per-call buffers would re-run phase one
        on every call and multiply device memory. The lock costs well under a microsecond a
        call (bench/bench_threads.py); the CPU kernels hold the GIL most of the time anyway."""
        with self._lock:
            return self._run(inputs, backend, checked, inputs_checked)

    def _run(self, inputs, backend, checked, inputs_checked) -> list:
        backend = _resolve_backend(backend)
        if len(inputs) != len(self.arg_slots):
            raise ExecutionError(f"@{self.name} takes {len(self.arg_slots)} inputs, got {len(inputs)}")
        run = self.run_state(backend)
        state, sites, stats = run.state, run.sites, run.stats
        env = [None] * self.slot_count
        program = run.program if run.program is not None else self.instructions
        for slot, value in run.template or ():
            env[slot] = value
        for index, (slot, info, value) in enumerate(zip(self.arg_slots, self.arg_types, inputs)):
            static = inputs_checked and None not in info.shape and not isinstance(value, NZTensor)
            actual = info if static else _check_input(self.name, index, info, value)
            env[slot] = backend.argument(state, index, value, actual)
        for inst in program:
            match inst:
                case _Call(size_slot, exec_slot, call, workspace_slot):   # phase one, workspace, launch
                    self._phase_one(backend, env, sites, stats, size_slot, exec_slot, call)
                    env[workspace_slot] = backend.workspace(state, env[size_slot])
                    backend.launch(call.function.name, env[workspace_slot], env[size_slot], env[exec_slot],
                                   checked=checked)
                case PhaseOne(size_slot, exec_slot, call):
                    self._phase_one(backend, env, sites, stats, size_slot, exec_slot, call)
                case Workspace(slot, size_slot):
                    env[slot] = backend.workspace(state, env[size_slot])
                case Launch(callee, workspace_slot, size_slot, exec_slot):
                    backend.launch(callee, env[workspace_slot], env[size_slot], env[exec_slot], checked=checked)
                case Communicator(slot, group, world_size):
                    env[slot] = backend.communicator(group, world_size)
                case Collective(function, args):
                    backend.collective(function, [env[s] for s in args])
                case CommQuery(slot, comm, what):
                    env[slot] = backend.comm_query(env[comm], what)
                case Synchronize():
                    backend.synchronize()
                case _:
                    self._value(inst, env, backend, state)
        if run.program is None:
            self._remember(run, env)
        outputs = []
        for index, (slot, info) in enumerate(zip(self.result_slots, self.result_types)):
            caller = inputs[self.inplace[index]] if index in self.inplace else None
            outputs.append(backend.result(env[slot], info, caller))
        backend.finish(state)
        return outputs


    def _value(self, inst, env, backend, state):
        """The instructions that make a value: host values, buffers, views, lists, constants."""
        match inst:
            case Host(slot, value):
                env[slot] = value
            case Alloc(slot, info):
                env[slot] = backend.alloc(state, slot, info)
            case View(slot, base, info, offset, strides):
                env[slot] = backend.view(env[base], info, offset, strides)
            case TensorList(slot, elements):
                env[slot] = [env[s] for s in elements]
            case ReadIntArray(slot, source):
                env[slot] = tuple(int(v) for v in np.asarray(backend.host_value(env[source])).reshape(-1))
            case Constant(slot, value, info, symbol):
                if value is None:
                    raise ExecutionError(f"@{self.name}: no value is bound to the global @{symbol} "
                                         "(compile the program with weights={...})")
                env[slot] = backend.constant(state, slot, value, info)
            case _:
                raise ExecutionError(f"@{self.name}: cannot execute {inst}")

    def workspace_size(self, inputs: Sequence, *, backend=None) -> int:
        """Phase one (GetWorkspaceSize) of every call site on `inputs`, nothing launched: the
        largest workspace a call asks for (what torch_npu's `_get_max_workspace` getters give
        graph capture). The sites keep their executors: the next call with these arguments
        reuses them, as after a run."""
        backend = _resolve_backend(backend)
        if len(inputs) != len(self.arg_slots):
            raise ExecutionError(f"@{self.name} takes {len(self.arg_slots)} inputs, got {len(inputs)}")
        run = self.run_state(backend)
        state, sites, stats = run.state, run.sites, run.stats
        env = [None] * self.slot_count
        for index, (slot, info, value) in enumerate(zip(self.arg_slots, self.arg_types, inputs)):
            env[slot] = backend.argument(state, index, value, _check_input(self.name, index, info, value))
        size = 0
        for inst in self.instructions:
            match inst:
                case PhaseOne(size_slot, exec_slot, call):
                    self._phase_one(backend, env, sites, stats, size_slot, exec_slot, call)
                    size = max(size, int(env[size_slot]))
                case Communicator(slot, group, world_size):
                    env[slot] = backend.communicator(group, world_size)
                case CommQuery(slot, comm, what):
                    env[slot] = backend.comm_query(env[comm], what)
                case Workspace() | Launch() | Synchronize() | Collective():
                    pass
                case _:
                    self._value(inst, env, backend, state)
        return size


@dataclass(frozen=True, slots=True)
class _Call:
    """The executor's step for a phase one directly followed by its workspace and launch."""
    size_slot: int
    executor_slot: int
    call: Call
    workspace_slot: int


def _fuse_calls(instructions):
    """A phase one followed by its workspace and launch becomes one _Call step."""
    out, i = [], 0
    while i < len(instructions):
        inst = instructions[i]
        if isinstance(inst, PhaseOne) and i + 2 < len(instructions):
            ws, launch = instructions[i + 1], instructions[i + 2]
            if isinstance(ws, Workspace) and ws.size_slot == inst.size_slot and isinstance(launch, Launch) \
                    and (launch.workspace_slot, launch.size_slot, launch.executor_slot) == \
                    (ws.slot, inst.size_slot, inst.executor_slot) and launch.callee == inst.call.function.name:
                out.append(_Call(inst.size_slot, inst.executor_slot, inst.call, ws.slot))
                i += 3
                continue
        out.append(inst)
        i += 1
    return out


def _key(backend, kind, value):
    """What phase one reads of one argument: host values as they are, tensors as the backend
    describes them (description and buffer)."""
    if value is None or kind in A.HOST:
        return value
    if kind in (A.TENSOR_LIST, A.OPT_TENSOR_LIST):     # an optional list given is a list too
        return tuple(backend.tensor_key(v) for v in value)
    return backend.tensor_key(value)


def _check_input(fn_name, index, declared: TensorInfo, value):
    try:
        actual = describe_value(f"input {index}", value)
    except KindError as e:
        raise ExecutionError(f"@{fn_name}: {e.text()}") from None
    if isinstance(value, NZTensor) and declared.rank == value.data.ndim and declared.rank != actual.rank:
        actual = TensorInfo(tuple(value.data.shape), actual.dtype, actual.format)   # 4-D NZ weights
    if (declared.dtype != actual.dtype or declared.format != actual.format or declared.rank != actual.rank
            or any(d is not None and d != a for d, a in zip(declared.shape, actual.shape))):
        raise ExecutionError(f"@{fn_name}: input {index} has type {actual}, the IR says {declared}")
    return actual


def _resolve_backend(backend):
    from .backend import backend_instance
    return backend_instance(backend)


def load(lowered, function: Optional[str] = None, constants: Optional[Mapping] = None) -> LoweredFunction:
    """Decode a lowered module (or one of its func.func ops) for repeated execution;
    `constants`: the values of its ml_program globals, by symbol name."""
    if isinstance(lowered, DecodedFunction) and not isinstance(lowered, LoweredFunction):
        return LoweredFunction(lowered.fn, lowered._constants)
    return decode(lowered, function, constants, cls=LoweredFunction)


def execute(lowered, inputs: Sequence, backend=None, *, function: Optional[str] = None,
            checked: bool = True) -> list:
    """Run a lowered function (a module after lower-to-aclnn, a func.func, or a LoweredFunction
    from `load`) on `backend` ("cpu", "npu", "auto" or None for the selected one). In-place
    buffers (caches) are the caller's arrays, updated and returned; other results are new
    arrays. `checked` runs the ops' data rules before each CPU kernel. Decoding happens on every call unless a LoweredFunction is given."""
    return load(lowered, function)(inputs, backend=backend, checked=checked)

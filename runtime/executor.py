"""The one execution path: run a lowered (aclnn kernel-call) function on a backend.

    lowered = executor.load(module)                 # decode once (a module after lower-to-aclnn)
    outputs = lowered(inputs)                       # or executor.execute(module, inputs)

A backend only says how a kernel call is carried out (runtime/backend.py: the CPU backend runs
the interpreter's kernels; runtime/npu.py: ACL/aclnn through ctypes). The protocol itself lives
here: buffers are allocated where the IR allocates them, views alias their base, and phase one
(`GetWorkspaceSize`) is re-run exactly when something it reads changes — a host value (lengths,
block size, cache mode...), a tensor's description or its buffer — and its executor is reused
otherwise. Buffers are stable across calls of one LoweredFunction (per-function state), so a
decode loop with fixed shapes and lengths runs phase one once per call site.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

import numpy as np
from mlir import ir

from ..dialect.types import TensorInfo, describe_type
from ..lowering import aclnn as A
from ..lowering.aclnn import ACLNN, Function
from .formats import NZTensor, describe_value


class ExecutionError(RuntimeError):
    """A lowered function cannot run: a bad input, or IR this executor does not know."""


NULL = None   # the value of an `aclnn.null` (nullptr)


@dataclass
class Call:
    """One phase-one site: the Function and the slots of its arguments, in C order."""
    function: Function
    args: tuple
    site: int


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


class LoweredFunction:
    """A lowered func.func decoded once into a flat list of instructions over value slots."""

    def __init__(self, fn):
        fn = fn.operation
        ACLNN.load(fn.context)
        self.name = fn.attributes["sym_name"].value
        block = fn.regions[0].blocks[0]
        self._slots: dict = {}
        self.arg_types = [describe_type(a.type) for a in block.arguments]
        self.arg_slots = [self._slot(a) for a in block.arguments]
        self.instructions: list[tuple] = []
        self.calls: list[Call] = []
        self.allocs: list[tuple] = []         # (slot, TensorInfo, op index) of each aclnn.alloc
        self.result_slots: list[int] = []
        self.result_types: list[TensorInfo] = []
        self.ops = list(block.operations)     # kept for memory planning (liveness by op index)
        for index, op in enumerate(self.ops):
            self._decode(op.operation, index)
        self.slot_count = len(self._slots)
        # results that are arguments: in-place buffers (caches) handed back to the caller
        self.inplace = {i: self.arg_slots.index(s) for i, s in enumerate(self.result_slots)
                        if s in self.arg_slots}
        self._states: dict = {}

    def _slot(self, value) -> int:
        return self._slots.setdefault(value, len(self._slots))

    def slot_of(self, value) -> int:
        return self._slots[value]

    def _decode(self, op, index):
        name = op.name
        res = [self._slot(r) for r in op.results]
        src = [self._slots[v] for v in op.operands]
        emit = self.instructions.append
        if name == "arith.constant":
            attr = op.attributes["value"]
            if isinstance(attr, ir.DenseElementsAttr):
                emit(("constant_tensor", res[0], _dense_value(attr), describe_type(op.results[0].type)))
            elif isinstance(attr, ir.BoolAttr):
                emit(("host", res[0], bool(attr.value)))
            elif isinstance(attr, ir.FloatAttr):
                emit(("host", res[0], float(attr.value)))
            else:
                emit(("host", res[0], int(attr.value)))
        elif name == "aclnn.null":
            emit(("host", res[0], NULL))
        elif name == "aclnn.string":
            emit(("host", res[0], op.attributes["value"].value))
        elif name == "aclnn.create_int_array":
            emit(("host", res[0], tuple(op.attributes["value"])))
        elif name == "aclnn.read_int_array":
            emit(("read_int_array", res[0], src[0]))
        elif name == "aclnn.create_tensor_list":
            emit(("tensor_list", res[0], tuple(src)))
        elif name == "aclnn.alloc":
            info = describe_type(op.results[0].type)
            if None in info.shape:
                raise ExecutionError(f"aclnn.alloc of a dynamic shape {info} is not supported")
            self.allocs.append((res[0], info, index))
            emit(("alloc", res[0], info))
        elif name == "aclnn.view":
            emit(("view", res[0], src[0], describe_type(op.results[0].type),
                  int(op.attributes["offset"].value), tuple(op.attributes["strides"])))
        elif name in ACLNN.phase_one_ops:
            call = Call(ACLNN.phase_one_ops[name], tuple(src), len(self.calls))
            self.calls.append(call)
            emit(("phase_one", res[0], res[1], call))
        elif name == "aclnn.workspace":
            emit(("workspace", res[0], src[0]))
        elif name == "aclnn.launch":
            emit(("launch", op.attributes["callee"].value, src[0], src[1], src[2]))
        elif name == "aclnn.current_stream":
            emit(("host", res[0], "stream"))
        elif name == "aclnn.synchronize":
            emit(("synchronize",))
        elif name == "func.return":
            self.result_slots = src
            self.result_types = [describe_type(v.type) for v in op.operands]
        else:
            raise ExecutionError(f"@{self.name}: cannot execute {name} (lower the module with "
                                 f"lower-to-aclnn first)")

    # --- running ---------------------------------------------------------------------------
    def state(self, backend):
        if backend not in self._states:
            self._states[backend] = (backend.new_state(self), [SiteState() for _ in self.calls], Stats(
                [0] * len(self.calls), [0] * len(self.calls)))
        return self._states[backend]

    def stats(self, backend=None) -> Stats:
        return self.state(_resolve_backend(backend))[2]

    def __call__(self, inputs: Sequence, *, backend=None, checked: bool = True) -> list:
        backend = _resolve_backend(backend)
        if len(inputs) != len(self.arg_slots):
            raise ExecutionError(f"@{self.name} takes {len(self.arg_slots)} inputs, got {len(inputs)}")
        state, sites, stats = self.state(backend)
        env = [None] * self.slot_count
        for index, (slot, info, value) in enumerate(zip(self.arg_slots, self.arg_types, inputs)):
            actual = _check_input(self.name, index, info, value)
            env[slot] = backend.argument(state, index, value, actual)
        for inst in self.instructions:
            kind = inst[0]
            if kind == "host":
                env[inst[1]] = inst[2]
            elif kind == "alloc":
                env[inst[1]] = backend.alloc(state, inst[1], inst[2])
            elif kind == "phase_one":
                _, size_slot, exec_slot, call = inst
                args = [env[s] for s in call.args]
                key = tuple(_key(backend, p.kind, a) for p, a in zip(call.function.params, args))
                site = sites[call.site]
                if site.executor is None or site.key != key:
                    if site.executor is not None:
                        backend.release(site.executor)
                    site.workspace_size, site.executor = backend.phase_one(call.function, args)
                    site.key = key
                    stats.phase_one[call.site] += 1
                else:
                    stats.reused[call.site] += 1
                env[size_slot], env[exec_slot] = site.workspace_size, site.executor
            elif kind == "workspace":
                env[inst[1]] = backend.workspace(state, env[inst[2]])
            elif kind == "launch":
                backend.launch(inst[1], env[inst[2]], env[inst[3]], env[inst[4]], checked=checked)
            elif kind == "view":
                _, slot, base, info, offset, strides = inst
                env[slot] = backend.view(env[base], info, offset, strides)
            elif kind == "tensor_list":
                env[inst[1]] = [env[s] for s in inst[2]]
            elif kind == "read_int_array":
                env[inst[1]] = tuple(int(v) for v in np.asarray(backend.host_value(env[inst[2]])).reshape(-1))
            elif kind == "constant_tensor":
                env[inst[1]] = backend.constant(state, inst[1], inst[2], inst[3])
            elif kind == "synchronize":
                backend.synchronize()
        outputs = []
        for index, (slot, info) in enumerate(zip(self.result_slots, self.result_types)):
            caller = inputs[self.inplace[index]] if index in self.inplace else None
            outputs.append(backend.result(env[slot], info, caller))
        return outputs


def _key(backend, kind, value):
    """What phase one reads of one argument: host values as they are, tensors as the backend
    describes them (description and buffer)."""
    if value is None or kind in A.HOST:
        return value
    if kind == A.TENSOR_LIST:
        return tuple(backend.tensor_key(v) for v in value)
    return backend.tensor_key(value)


def _check_input(fn_name, index, declared: TensorInfo, value):
    try:
        actual = describe_value(f"input {index}", value)
    except ValueError as e:
        raise ExecutionError(f"@{fn_name}: {e}") from None
    if isinstance(value, NZTensor) and declared.rank == value.data.ndim and declared.rank != actual.rank:
        actual = TensorInfo(tuple(value.data.shape), actual.dtype, actual.format)   # 4-D NZ weights
    if (declared.dtype != actual.dtype or declared.format != actual.format or declared.rank != actual.rank
            or any(d is not None and d != a for d, a in zip(declared.shape, actual.shape))):
        raise ExecutionError(f"@{fn_name}: input {index} has type {actual}, the IR says {declared}")
    return actual


def _dense_value(attr: ir.DenseElementsAttr) -> np.ndarray:
    info = describe_type(attr.type)
    from ..dialect.types import numpy_dtype
    if attr.is_splat:
        splat = attr.get_splat_value()
        value = splat.value if hasattr(splat, "value") else float(splat)
        return np.full(info.shape, value, dtype=numpy_dtype(info.dtype))
    return np.array(attr, dtype=numpy_dtype(info.dtype)).reshape(info.shape)


def _resolve_backend(backend):
    from .backend import backend_instance
    return backend_instance(backend)


def load(lowered, function: Optional[str] = None) -> LoweredFunction:
    """Decode a lowered module (or one of its func.func ops) for repeated execution."""
    if isinstance(lowered, LoweredFunction):
        return lowered
    op = lowered.operation
    if op.name == "func.func":
        return LoweredFunction(op)
    functions = [o for o in op.regions[0].blocks[0].operations if o.operation.name == "func.func"]
    if function is not None:
        functions = [f for f in functions if f.operation.attributes["sym_name"].value == function]
    if not functions:
        raise ExecutionError(f"no function {'@' + function if function else ''} to run in the module")
    return LoweredFunction(functions[0])


def execute(lowered, inputs: Sequence, backend=None, *, function: Optional[str] = None,
            checked: bool = True) -> list:
    """Run a lowered function (a module after lower-to-aclnn, a func.func, or a LoweredFunction
    from `load`) on `backend` ("cpu", "npu", "auto" or None for the selected one). In-place
    buffers (caches) are the caller's arrays, updated and returned; other results are new
    arrays. `checked` runs the ops' data rules before each CPU kernel (the interpreter's
    checked mode). Decoding happens on every call unless a LoweredFunction is given."""
    return load(lowered, function)(inputs, backend=backend, checked=checked)

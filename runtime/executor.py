"""The one execution path: run a lowered (aclnn kernel-call) function on a backend.

    lowered = executor.load(module)                 # decode once (a module after lower-to-aclnn)
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
from mlir import ir

from ..dialect.opdef import KindError
from ..dialect.types import TensorInfo, TypeDescriptionError, describe_type
from ..lowering import aclnn as A
from ..lowering.aclnn import ACLNN, Function
from .formats import NZTensor, describe_value


def symbol_name(fn) -> str:
    """A function's name (bytes that are not UTF-8 as U+FFFD)."""
    return bytes(fn.attributes["sym_name"].value_bytes).decode("utf-8", "replace")


class ExecutionError(RuntimeError):
    """A lowered function cannot run: a bad input, or IR this executor does not know."""


NULL = None   # the value of an `aclnn.null` (nullptr)


@dataclass
class Call:
    """One phase-one site: the Function, the slots of its arguments in C order, and the
    numerics variant the lowering recorded (`mla.<name>` attributes; see CallBuilder.call)."""
    function: Function
    args: tuple
    site: int
    variant: dict = field(default_factory=dict)
    # the arguments that may differ between calls (inputs, host lists read at run time, views
    # of them): phase one's key is made of these; the others are fixed for a function's state
    varying: tuple = ()
    # outputs nothing reads afterwards (scratch such as aclnnRmsNorm's rstdOut): the CPU
    # backend need not compute them
    unread: frozenset = frozenset()


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
    """A lowered func.func decoded once into a flat list of instructions over value slots.
    `constants`: the values of the ml_program globals it loads (a compiled program's weights),
    uploaded once per backend state (device-resident across calls)."""

    def __init__(self, fn, constants: Optional[Mapping] = None):
        fn = fn.operation
        ACLNN.load(fn.context)
        self._constants = constants if constants is not None else {}
        self.name = symbol_name(fn)
        block = fn.regions[0].blocks[0]
        self._slots: dict = {}
        self._lists: dict = {}                # tensor-list slot -> its element slots
        self._varying: set = set()            # slots whose value may change between calls
        try:
            self.arg_types = [describe_type(a.type) for a in block.arguments]
        except TypeDescriptionError as e:         # a scalar, a memref...: no buffer to pass
            raise ExecutionError(f"@{self.name}: an argument is not a tensor: {e}") from None
        self.arg_slots = [self._slot(a) for a in block.arguments]
        self._varying.update(self.arg_slots)
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
        self._find_unread_outputs()
        self._states: dict = {}
        self._lock = threading.Lock()         # one call at a time (see __call__)

    def _find_unread_outputs(self):
        reads: dict = {}
        for inst in self.instructions:
            used = {"phase_one": lambda i: i[3].args, "view": lambda i: (i[2],),
                    "tensor_list": lambda i: i[2], "read_int_array": lambda i: (i[2],)}.get(inst[0])
            for slot in (used(inst) if used else ()):
                reads[slot] = reads.get(slot, 0) + 1
        for slot in self.result_slots:
            reads[slot] = reads.get(slot, 0) + 1
        for call in self.calls:
            call.unread = frozenset(p.c_name for p, slot in zip(call.function.params, call.args)
                                    if p.kind in (A.OUT, A.OPT_OUT) and reads.get(slot, 0) == 1)

    def _vary_with(self, slot, sources):
        if any(s in self._varying for s in sources):
            self._varying.add(slot)

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
                emit(("constant_tensor", res[0], dense_value(attr), describe_type(op.results[0].type), None))
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
        elif name == "aclnn.create_scalar":
            attr = op.attributes["value"]
            dtype = str(attr.type)
            emit(("host", res[0], (dtype, float(attr.value) if dtype.startswith(("f", "bf")) else int(attr.value))))
        elif name == "aclnn.dtype":
            emit(("host", res[0], str(ir.TypeAttr(op.attributes["type"]).value)))
        elif name == "ml_program.global_load_const":
            # A weight: its value comes with the function (None: unbound, an error when run).
            symbol = op.attributes["global"].value
            emit(("constant_tensor", res[0], self._constants.get(symbol), describe_type(op.results[0].type), symbol))
        elif name == "aclnn.read_int_array":
            self._varying.add(res[0])
            emit(("read_int_array", res[0], src[0]))
        elif name == "aclnn.create_tensor_list":
            self._vary_with(res[0], src)
            self._lists[res[0]] = tuple(src)
            emit(("tensor_list", res[0], tuple(src)))
        elif name == "aclnn.tensor_list_append":
            self._vary_with(res[0], src)
            self._lists[res[0]] = self._lists[src[0]] + (src[1],)
            emit(("tensor_list", res[0], self._lists[res[0]]))
        elif name == "aclnn.alloc":
            info = describe_type(op.results[0].type)     # dynamic dims: the CPU backend only
            self.allocs.append((res[0], info, index))
            emit(("alloc", res[0], info))
        elif name == "aclnn.view":
            self._vary_with(res[0], src)
            emit(("view", res[0], src[0], describe_type(op.results[0].type),
                  int(op.attributes["offset"].value), tuple(op.attributes["strides"])))
        elif name in ACLNN.phase_one_ops:
            variant = {key[len("mla."):]: ir.StringAttr(op.attributes[key]).value
                       for key in op.attributes if key.startswith("mla.")}
            call = Call(ACLNN.phase_one_ops[name], tuple(src), len(self.calls), variant,
                        tuple(i for i, slot in enumerate(src) if slot in self._varying))
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
                [0] * len(self.calls), [0] * len(self.calls)), {})
        return self._states[backend][:3]

    # Values that cannot change between calls on one backend state (host values, buffers,
    # constants and views of them) are computed by the first call; later calls start from
    # them and run the rest (no ACL call is skipped: these make none after the first time).
    _FIXABLE = ("host", "alloc", "constant_tensor", "view", "tensor_list")

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

    def _remember(self, cache, env):
        fixed = {i for i, inst in enumerate(self.instructions)
                 if inst[0] in self._FIXABLE and inst[1] not in self._varying}
        cache["template"] = [(self.instructions[i][1], env[self.instructions[i][1]]) for i in sorted(fixed)]
        cache["program"] = _fuse_calls([inst for i, inst in enumerate(self.instructions) if i not in fixed])

    def stats(self, backend=None) -> Stats:
        return self.state(_resolve_backend(backend))[2]

    def __call__(self, inputs: Sequence, *, backend=None, checked: bool = True,
                 inputs_checked: bool = False) -> list:
        """Run the function. `checked`: the data rules of each op run before its CPU kernel
        (True), of none (False), or of the mla ops named in a set; `inputs_checked`: the
        caller has checked the inputs against the argument types.

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
        state, sites, stats = self.state(backend)
        cache = self._states[backend][3]
        env = [None] * self.slot_count
        program = cache.get("program", self.instructions)
        for slot, value in cache.get("template", ()):
            env[slot] = value
        for index, (slot, info, value) in enumerate(zip(self.arg_slots, self.arg_types, inputs)):
            static = inputs_checked and None not in info.shape and not isinstance(value, NZTensor)
            actual = info if static else _check_input(self.name, index, info, value)
            env[slot] = backend.argument(state, index, value, actual)
        for inst in program:
            kind = inst[0]
            if kind == "host":
                env[inst[1]] = inst[2]
            elif kind == "alloc":
                env[inst[1]] = backend.alloc(state, inst[1], inst[2])
            elif kind == "call":               # phase one, workspace and launch in a row
                _, size_slot, exec_slot, call, workspace_slot = inst
                self._phase_one(backend, env, sites, stats, size_slot, exec_slot, call)
                env[workspace_slot] = backend.workspace(state, env[size_slot])
                backend.launch(call.function.name, env[workspace_slot], env[size_slot], env[exec_slot],
                               checked=checked)
            elif kind == "phase_one":
                self._phase_one(backend, env, sites, stats, *inst[1:])
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
                if inst[2] is None:
                    raise ExecutionError(f"@{self.name}: no value is bound to the global @{inst[4]} "
                                         "(compile the program with weights={...})")
                env[inst[1]] = backend.constant(state, inst[1], inst[2], inst[3])
            elif kind == "synchronize":
                backend.synchronize()
        if "program" not in cache:
            self._remember(cache, env)
        outputs = []
        for index, (slot, info) in enumerate(zip(self.result_slots, self.result_types)):
            caller = inputs[self.inplace[index]] if index in self.inplace else None
            outputs.append(backend.result(env[slot], info, caller))
        backend.finish(state)
        return outputs


def _fuse_calls(instructions):
    """A phase one followed by its workspace and launch becomes one ("call", ...) step."""
    out, i = [], 0
    while i < len(instructions):
        inst = instructions[i]
        if inst[0] == "phase_one" and i + 2 < len(instructions):
            ws, launch = instructions[i + 1], instructions[i + 2]
            _, size_slot, exec_slot, call = inst
            if ws[0] == "workspace" and ws[2] == size_slot and launch[0] == "launch" \
                    and launch[2:] == (ws[1], size_slot, exec_slot) and launch[1] == call.function.name:
                out.append(("call", size_slot, exec_slot, call, ws[1]))
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
    if kind == A.TENSOR_LIST:
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


def dense_value(attr: ir.DenseElementsAttr) -> np.ndarray:
    info = describe_type(attr.type)
    from ..dialect.types import NUMPY_DTYPES
    if info.dtype not in NUMPY_DTYPES or None in info.shape:
        raise ExecutionError(f"a constant of type {info}: no host array for it "
                             f"(element types: {', '.join(NUMPY_DTYPES)}; static shapes)")
    dtype = NUMPY_DTYPES[info.dtype]
    if attr.is_splat:
        splat = attr.get_splat_value()
        value = splat.value if hasattr(splat, "value") else float(splat)
        return np.full(info.shape, value, dtype=dtype)
    if info.dtype == "bf16":        # the bindings' buffer protocol has no bf16: the raw bytes
        return np.frombuffer(_raw_data(attr, info.numel * dtype.itemsize), dtype).reshape(info.shape).copy()
    return np.array(attr, dtype=dtype).reshape(info.shape)


def _raw_data(attr, nbytes: int) -> bytes:
    """The storage of a (non-splat) dense attribute, through the MLIR C API the bindings ship."""
    import ctypes
    from mlir import _mlir_libs
    global _GET_RAW
    if _GET_RAW is None:
        import os
        lib = ctypes.CDLL(os.path.join(os.path.dirname(_mlir_libs.__file__), "libMLIRPythonCAPI.so"))
        _GET_RAW = lib.mlirDenseElementsAttrGetRawData
        _GET_RAW.restype, _GET_RAW.argtypes = ctypes.c_void_p, [ctypes.c_void_p]   # MlirAttribute{ptr}
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return ctypes.string_at(_GET_RAW(get(attr._CAPIPtr, b"mlir.ir.Attribute._CAPIPtr")), nbytes)


_GET_RAW = None


def _resolve_backend(backend):
    from .backend import backend_instance
    return backend_instance(backend)


def load(lowered, function: Optional[str] = None, constants: Optional[Mapping] = None) -> LoweredFunction:
    """Decode a lowered module (or one of its func.func ops) for repeated execution;
    `constants`: the values of its ml_program globals, by symbol name."""
    if isinstance(lowered, LoweredFunction):
        return lowered
    op = lowered.operation
    if op.name == "func.func":
        return LoweredFunction(op, constants)
    functions = [o for o in op.regions[0].blocks[0].operations if o.operation.name == "func.func"]
    if function is not None:
        functions = [f for f in functions if symbol_name(f.operation) == function]
    if not functions:
        raise ExecutionError(f"no function {'@' + function if function else ''} to run in the module")
    return LoweredFunction(functions[0], constants)


def execute(lowered, inputs: Sequence, backend=None, *, function: Optional[str] = None,
            checked: bool = True) -> list:
    """Run a lowered function (a module after lower-to-aclnn, a func.func, or a LoweredFunction
    from `load`) on `backend` ("cpu", "npu", "auto" or None for the selected one). In-place
    buffers (caches) are the caller's arrays, updated and returned; other results are new
    arrays. `checked` runs the ops' data rules before each CPU kernel. Decoding happens on every call unless a LoweredFunction is given."""
    return load(lowered, function)(inputs, backend=backend, checked=checked)

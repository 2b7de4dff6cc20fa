"""The lowered program's decoded form: a lowered func.func (aclnn kernel calls, after
lower-to-aclnn) read once into a flat list of instructions over value slots.

    decoded = decode(module)                   # the first function (or function="name")
    decoded.instructions                       # Alloc(slot, info), PhaseOne(...), Launch(...)...
    decoded.calls                              # one Call per phase-one site

The executor (runtime/executor.py) runs this form, the memory plan (lowering/memory_plan.py)
and the C++ emitter (lowering/emit_cpp.py) walk it: one reading of the IR for all three.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

import numpy as np
from mlir import ir

from ..dialect import aclnn as A
from ..dialect.aclnn import ACLNN, Function
from ..dialect.dialect import argument_name, load_dialects, symbol_text
from ..dialect.errors import ExecutionError
from ..dialect.types import NUMPY_DTYPES, TensorInfo, TypeDescriptionError, describe_type


def symbol_name(fn) -> str:
    """A function's name (bytes that are not UTF-8 as U+FFFD)."""
    return symbol_text(fn.attributes["sym_name"])


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


# --- the instructions -------------------------------------------------------------------------
# One dataclass per kind, each knowing the slots it defines and reads (`reads`: the tensors and
# host values the instruction uses; a phase one reads its call's arguments).

@dataclass(frozen=True, slots=True)
class Host:
    """A host value known when the program is decoded (a number, a string, a host list,
    nullptr as None, the stream)."""
    slot: int
    value: Any
    reads = ()


@dataclass(frozen=True, slots=True)
class Constant:
    """A device-resident constant: an arith.constant's value, or a global's (`symbol`; value
    None when nothing is bound to it)."""
    slot: int
    value: Any
    info: TensorInfo
    symbol: Optional[str]
    reads = ()


@dataclass(frozen=True, slots=True)
class Alloc:
    """A device buffer of type `info` (a kernel's output or scratch)."""
    slot: int
    info: TensorInfo
    reads = ()


@dataclass(frozen=True, slots=True)
class View:
    """`base`'s memory seen as `info`, at an element offset with element strides (no copy)."""
    slot: int
    base: int
    info: TensorInfo
    offset: int
    strides: tuple

    @property
    def reads(self):
        return (self.base,)


@dataclass(frozen=True, slots=True)
class TensorList:
    """An aclTensorList of the tensors in `elements`."""
    slot: int
    elements: tuple

    @property
    def reads(self):
        return self.elements


@dataclass(frozen=True, slots=True)
class ReadIntArray:
    """An aclIntArray read at run time from the host i64 tensor in `source`."""
    slot: int
    source: int

    @property
    def reads(self):
        return (self.source,)


@dataclass(frozen=True, slots=True)
class PhaseOne:
    """`<function>GetWorkspaceSize` of `call`: defines the workspace size and the executor."""
    size_slot: int
    executor_slot: int
    call: "Call"

    @property
    def reads(self):
        return self.call.args


@dataclass(frozen=True, slots=True)
class Workspace:
    """The workspace of one launch, `size_slot` bytes."""
    slot: int
    size_slot: int

    @property
    def reads(self):
        return (self.size_slot,)


@dataclass(frozen=True, slots=True)
class Launch:
    """`<callee>(workspace, size, executor, stream)`."""
    callee: str
    workspace_slot: int
    size_slot: int
    executor_slot: int

    @property
    def reads(self):
        return (self.workspace_slot, self.size_slot, self.executor_slot)


@dataclass(frozen=True, slots=True)
class Communicator:
    """The HCCL communicator of `group`, `world_size` ranks (lowering/collective.py), made once
    by the backend."""
    slot: int
    group: str
    world_size: int
    reads = ()


@dataclass(frozen=True, slots=True)
class CommQuery:
    """What a call reads of the communicator in `comm` at run time: `what` "name" (its name,
    HcclGetCommName) or "rank" (this process's rank in it, HcclGetRankId)."""
    slot: int
    comm: int
    what: str

    @property
    def reads(self):
        return (self.comm,)


@dataclass(frozen=True, slots=True)
class Collective:
    """One HCCL call (HcclAllReduce, HcclAllGather): its argument slots in C order (sendBuf,
    recvBuf, count, dataType, [op,] comm; the stream is the backend's)."""
    function: str
    args: tuple

    @property
    def reads(self):
        return self.args


@dataclass(frozen=True, slots=True)
class Synchronize:
    """Wait for the stream."""
    reads = ()


class DecodedFunction:
    """A lowered func.func decoded once into a flat list of instructions over value slots
    (what the executor runs, the memory plan and the C++ emitter walk).
    `constants`: the values of the ml_program globals it loads (a compiled program's weights),
    uploaded once per backend state (device-resident across calls)."""

    def __init__(self, fn, constants: Optional[Mapping] = None):
        fn = fn.operation
        self.fn = fn
        load_dialects(fn.context)
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
        with fn.context:
            self.arg_names = [argument_name(fn, i) for i in range(len(block.arguments))]
        self._varying.update(self.arg_slots)
        self.instructions: list = []          # Instruction values, in program order
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
        self.written = self._written_arguments()
        self._find_unread_outputs()

    def _written_arguments(self) -> frozenset:
        """The arguments some call writes (an out or in-place parameter given the argument, a
        view of it or a list holding it): the caches, returned or not."""
        base = {}
        for inst in self.instructions:
            if isinstance(inst, View):
                base[inst.slot] = base.get(inst.base, inst.base)
        written = set()
        for call in self.calls:
            for p, slot in zip(call.function.params, call.args):
                if p.kind in (A.OUT, A.OPT_OUT, A.REF, A.OUT_TENSOR_LIST):
                    written.update(base.get(s, s) for s in self._lists.get(slot, (slot,)))
        return frozenset(i for i, s in enumerate(self.arg_slots) if s in written)

    def _find_unread_outputs(self):
        reads: dict = {}
        for inst in self.instructions:
            for slot in inst.reads:
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
                emit(Constant(res[0], dense_value(attr), describe_type(op.results[0].type), None))
            elif isinstance(attr, ir.BoolAttr):
                emit(Host(res[0], bool(attr.value)))
            elif isinstance(attr, ir.FloatAttr):
                emit(Host(res[0], float(attr.value)))
            else:
                emit(Host(res[0], int(attr.value)))
        elif name == "aclnn.null":
            emit(Host(res[0], NULL))
        elif name == "aclnn.string":
            emit(Host(res[0], symbol_text(op.attributes["value"])))
        elif name == "aclnn.create_int_array":
            emit(Host(res[0], tuple(op.attributes["value"])))
        elif name == "aclnn.create_scalar":
            attr = op.attributes["value"]
            dtype = str(attr.type)
            emit(Host(res[0], (dtype, float(attr.value) if dtype.startswith(("f", "bf")) else int(attr.value))))
        elif name == "aclnn.dtype":
            emit(Host(res[0], str(ir.TypeAttr(op.attributes["type"]).value)))
        elif name == "ml_program.global_load_const":
            # A weight: its value comes with the function (None: unbound, an error when run).
            symbol = symbol_text(op.attributes["global"])
            emit(Constant(res[0], self._constants.get(symbol), describe_type(op.results[0].type), symbol))
        elif name == "aclnn.read_int_array":
            self._varying.add(res[0])
            emit(ReadIntArray(res[0], src[0]))
        elif name == "aclnn.create_tensor_list":
            self._vary_with(res[0], src)
            self._lists[res[0]] = tuple(src)
            emit(TensorList(res[0], tuple(src)))
        elif name == "aclnn.tensor_list_append":
            self._vary_with(res[0], src)
            self._lists[res[0]] = self._lists[src[0]] + (src[1],)
            emit(TensorList(res[0], self._lists[res[0]]))
        elif name == "aclnn.alloc":
            info = describe_type(op.results[0].type)     # dynamic dims: the CPU backend only
            self.allocs.append((res[0], info, index))
            emit(Alloc(res[0], info))
        elif name == "aclnn.view":
            self._vary_with(res[0], src)
            emit(View(res[0], src[0], describe_type(op.results[0].type),
                      int(op.attributes["offset"].value), tuple(op.attributes["strides"])))
        elif name in ACLNN.phase_one_ops:
            variant = {key[len("mla."):]: ir.StringAttr(op.attributes[key]).value
                       for key in op.attributes if key.startswith("mla.")}
            call = Call(ACLNN.phase_one_ops[name], tuple(src), len(self.calls), variant,
                        tuple(i for i, slot in enumerate(src) if slot in self._varying))
            self.calls.append(call)
            emit(PhaseOne(res[0], res[1], call))
        elif name == "aclnn.workspace":
            emit(Workspace(res[0], src[0]))
        elif name == "aclnn.launch":
            emit(Launch(symbol_text(op.attributes["callee"]), src[0], src[1], src[2]))
        elif name == "aclnn.hccl_communicator":
            emit(Communicator(res[0], op.attributes["group"].value, int(op.attributes["world_size"].value)))
        elif name in ("aclnn.hccl_comm_name", "aclnn.hccl_comm_rank"):
            emit(CommQuery(res[0], src[0], name[len("aclnn.hccl_comm_"):]))
        elif name == "aclnn.hccl_reduce_op":
            emit(Host(res[0], op.attributes["op"].value))
        elif name in ("aclnn.hccl_all_reduce", "aclnn.hccl_all_gather"):
            emit(Collective(symbol_text(op.attributes["callee"]), tuple(src[:-1])))
        elif name == "aclnn.current_stream":
            emit(Host(res[0], "stream"))
        elif name == "aclnn.synchronize":
            emit(Synchronize())
        elif name == "func.return":
            self.result_slots = src
            self.result_types = [describe_type(v.type) for v in op.operands]
        else:
            raise ExecutionError(f"@{self.name}: cannot execute {name} (lower the module with "
                                 f"lower-to-aclnn first)")


def dense_value(attr: ir.DenseElementsAttr) -> np.ndarray:
    info = describe_type(attr.type)
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


def find_function(module, name: Optional[str] = None):
    """The func.func `name` of a module (an ir.Module or its op; the first function when None),
    with a body."""
    body = module.body if isinstance(module, ir.Module) else module.operation.regions[0].blocks[0]
    functions = [op for op in body.operations if op.operation.name == "func.func"]
    if not functions:
        raise ExecutionError("the module has no func.func to run")
    for fn in functions:
        if name is None or symbol_name(fn) == name:
            if not fn.regions[0].blocks:
                raise ExecutionError(f"@{symbol_name(fn)} is a declaration (it has no body to run)")
            return fn
    raise ExecutionError(f"no function @{name} in the module")


def decode(lowered, function: Optional[str] = None, constants: Optional[Mapping] = None,
           cls=None) -> DecodedFunction:
    """Decode a lowered module (or one of its func.func ops); `constants`: the values of its
    ml_program globals, by symbol name. A DecodedFunction is returned as it is. `cls`: the
    class to build (the executor's runnable subclass)."""
    cls = cls or DecodedFunction
    if isinstance(lowered, DecodedFunction):
        return lowered
    op = lowered.operation
    if op.name != "func.func":
        op = find_function(lowered, function).operation
    return cls(op, constants)


__all__ = ["Alloc", "Call", "Collective", "CommQuery", "Communicator", "Constant", "DecodedFunction", "Host", "Launch", "NULL", "PhaseOne", "ReadIntArray",
           "Synchronize", "TensorList", "View", "Workspace", "decode", "dense_value", "find_function", "symbol_name"]

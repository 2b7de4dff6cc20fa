"""The lowered program's decoded form: a lowered func.func (aclnn kernel calls, after
lower-to-aclnn) read once into a flat list of instructions over value slots.

    decoded = decode(module)                   # the first function (or function="name")
    decoded.instructions                       # ("alloc", slot, info), ("phase_one", ...)...
    decoded.calls                              # one Call per phase-one site

The executor (runtime/executor.py) runs this form, the memory plan (lowering/memory_plan.py)
and the C++ emitter (lowering/emit_cpp.py) walk it: one reading of the IR for all three.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

import numpy as np
from mlir import ir

from ..dialect import aclnn as A
from ..dialect.aclnn import ACLNN, Function
from ..dialect.dialect import argument_name
from ..dialect.errors import ExecutionError
from ..dialect.types import TensorInfo, describe_type, numpy_dtype


def symbol_name(fn) -> str:
    """A function's name (bytes that are not UTF-8 as U+FFFD)."""
    return bytes(fn.attributes["sym_name"].value_bytes).decode("utf-8", "replace")


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


class DecodedFunction:
    """A lowered func.func decoded once into a flat list of instructions over value slots
    (what the executor runs, the memory plan and the C++ emitter walk).
    `constants`: the values of the ml_program globals it loads (a compiled program's weights),
    uploaded once per backend state (device-resident across calls)."""

    def __init__(self, fn, constants: Optional[Mapping] = None):
        fn = fn.operation
        self.fn = fn
        ACLNN.load(fn.context)
        self._constants = constants if constants is not None else {}
        self.name = symbol_name(fn)
        block = fn.regions[0].blocks[0]
        self._slots: dict = {}
        self._lists: dict = {}                # tensor-list slot -> its element slots
        self._varying: set = set()            # slots whose value may change between calls
        self.arg_types = [describe_type(a.type) for a in block.arguments]
        self.arg_slots = [self._slot(a) for a in block.arguments]
        with fn.context:
            self.arg_names = [argument_name(fn, i) for i in range(len(block.arguments))]
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


def dense_value(attr: ir.DenseElementsAttr) -> np.ndarray:
    info = describe_type(attr.type)
    if attr.is_splat:
        splat = attr.get_splat_value()
        value = splat.value if hasattr(splat, "value") else float(splat)
        return np.full(info.shape, value, dtype=numpy_dtype(info.dtype))
    return np.array(attr, dtype=numpy_dtype(info.dtype)).reshape(info.shape)




def find_function(module, name: Optional[str] = None):
    """The func.func `name` of a module (the first one when None), with a body."""
    functions = [op for op in module.body.operations if op.operation.name == "func.func"]
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


__all__ = ["Call", "DecodedFunction", "NULL", "decode", "dense_value", "find_function", "symbol_name"]

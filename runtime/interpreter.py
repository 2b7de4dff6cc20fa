"""The CPU interpreter: runs a function of a verified module, one kernel per op.

A function is prepared once (`Plan`): its ops become steps that read and write numbered value
slots, with everything static about them (snapshot, attributes, result types, kernel) looked
up at preparation, so a decode loop pays only for the kernels and the data checks.

Values are NumPy arrays (NZTensor for a FRACTAL_NZ value). Inputs are checked against the
argument types. Data-dependent rules (kind="runtime": cache slots, lengths, block tables) run
before any op does, for every op whose data are program inputs or constants, and again right
before an op whose data are computed — so a bad cache slot or length stops the program before
anything is written (docs/errors.md). Host lists given as tensors (FIA's actual_seq_kvlen)
become the attribute's values at run time, and every rule of the op then runs.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from mlir import ir

from ..dialect.dialect import opdef_of
from ..dialect.opdef import VARIADIC, KindError, StructuralError
from ..dialect.rules import DynamicDim
from ..dialect.types import TensorInfo, describe_type
from ..errors import VerificationError
from .backend import run_kernel
from .formats import NZTensor, describe_value
from .interop import readable
from .kernels.upstream import UnsupportedOp, prepare


class InterpreterError(RuntimeError):
    pass


def symbol_name(fn) -> str:
    """A function's name (bytes that are not UTF-8, which `.value` cannot convert, as U+FFFD)."""
    return bytes(fn.attributes["sym_name"].value_bytes).decode("utf-8", "replace")


def find_function(module: ir.Module, name: str | None):
    functions = [op for op in module.body.operations if op.operation.name == "func.func"]
    if not functions:
        raise InterpreterError("the module has no func.func to run")
    for fn in functions:
        if name is None or symbol_name(fn) == name:
            if not fn.regions[0].blocks:
                raise InterpreterError(f"@{symbol_name(fn)} is a declaration (it has no body to run)")
            return fn
    raise InterpreterError(f"no function @{name} in the module")


def run_function(fn, inputs: Sequence, globals_: Mapping | None = None) -> list:
    """Prepare and run once (a Program keeps its Plan instead)."""
    return Plan(fn, globals_ or {}).run(inputs)


def _conforms(declared: TensorInfo, actual: TensorInfo) -> bool:
    return (declared.dtype == actual.dtype and declared.format == actual.format
            and declared.rank == actual.rank
            and all(d is None or d == a for d, a in zip(declared.shape, actual.shape)))


class _Unknown:
    """The data of a value not computed yet: a runtime rule that reads it holds for now."""

    def __getattr__(self, name):
        raise DynamicDim()

    def __array__(self, *args, **kwargs):
        raise DynamicDim()

    def _unknown(self, *args):
        raise DynamicDim()

    # what a rule may do with its data: index it, size it, compare it, convert it
    __getitem__ = __len__ = __iter__ = __bool__ = __int__ = __float__ = __index__ = _unknown
    __lt__ = __le__ = __gt__ = __ge__ = _unknown


_UNKNOWN = _Unknown()


class MlaStep:
    """One mla op: its kernel, and the checks its data need at run time."""

    def __init__(self, op, opdef, slot_of):
        self.op_name = opdef.name
        self.opdef = opdef
        self.location = op.location
        groups = opdef.operand_groups(op)
        self.operands = [(spec, [slot_of[v] for v in values]) for spec, values in zip(opdef.operands, groups)]
        self.results = [slot_of[r] for r in op.results]
        try:
            self.snapshot = opdef.snapshot(op)
        except StructuralError as e:
            raise InterpreterError(f"{self.op_name}: {e.param}: {e.message}") from None
        self.result_types = {r: getattr(self.snapshot, r) for r in opdef.result_names}
        # The rules need the real types when the IR left a dimension dynamic, and the values
        # when a host list comes as a tensor.
        declared = [getattr(self.snapshot, s.name) for s, _ in self.operands]
        self.dynamic = any(None in t.shape for d in declared if d is not None
                           for t in (d if isinstance(d, list) else [d]))
        self.host = any(values for spec, values in self.operands if spec.name in opdef.host_operands)
        self.prechecked = False      # set by the Plan when all its data are known up front

    def values(self, slots) -> dict:
        out = {}
        for spec, indices in self.operands:
            if spec.kind == VARIADIC:
                out[spec.name] = [slots[i] for i in indices]
            else:
                out[spec.name] = slots[indices[0]] if indices else None
        return out

    def check(self, values: dict, *, phase_for_static: str = "runtime"):
        """The op's rules that need data (all its rules when types or host lists were unknown
        in IR). VerificationError naming the parameter and rule."""
        snapshot = self._actual_snapshot(values) if self.dynamic else self.snapshot
        phase = "all" if self.dynamic or self.host else phase_for_static
        verdict = self.opdef.check(snapshot.with_values(values), phase=phase)
        if not verdict.ok:
            raise VerificationError("\n".join(f.text(self.op_name) for f in verdict.errors), verdict.errors)

    def _actual_snapshot(self, values):
        exact = {}
        for spec, _ in self.operands:
            declared, value = getattr(self.snapshot, spec.name), values[spec.name]
            if declared is None or value is _UNKNOWN or isinstance(value, list) and any(v is _UNKNOWN for v in value):
                exact[spec.name] = declared
                continue
            pairs = zip(declared, value) if isinstance(declared, list) else [(declared, value)]
            infos = [_describe(self.op_name, spec.name, v, d) for d, v in pairs]
            exact[spec.name] = infos if isinstance(declared, list) else infos[0]
        given = {name: getattr(self.snapshot, name) for name in self.opdef.attribute_by_name
                 if self.snapshot.present(name)}
        return self.opdef.snapshot_from_parts(exact, given, self.result_types)

    def run(self, slots):
        values = self.values(slots)
        if not self.prechecked:
            self.check(values)
        attributes = self.snapshot.with_values(values).attributes if self.host else self.snapshot.attributes
        kernel_operands = {o.name: values[o.name] for o in self.opdef.kernel_operands}
        for slot, value in zip(self.results, run_kernel(self.op_name, kernel_operands, attributes,
                                                        self.result_types)):
            slots[slot] = value


def _describe(op_name, param, value, declared: TensorInfo) -> TensorInfo:
    try:
        actual = describe_value(param, value)
    except KindError as e:
        raise InterpreterError(f"{op_name}: {e.text()}") from None
    if declared.is_nz and isinstance(value, NZTensor) and declared.rank == value.data.ndim \
            and declared.rank != actual.rank:
        # The IR gave the NZ storage shape (the prolog weights may): match the data.
        actual = TensorInfo(tuple(value.data.shape), actual.dtype, actual.format)
    if not _conforms(declared, actual):
        raise InterpreterError(f"{op_name}: operand {param} has type {actual}, the IR says {declared}")
    return actual


class UpstreamStep:
    def __init__(self, op, slot_of, globals_):
        self.op_name = op.operation.name
        try:
            self.fn = prepare(op, globals_)
        except UnsupportedOp as e:
            raise InterpreterError(str(e)) from None
        self.operands = [slot_of[v] for v in op.operands]
        self.results = [slot_of[r] for r in op.results]

    def run(self, slots):
        for slot, value in zip(self.results, self.fn(*[slots[i] for i in self.operands])):
            slots[slot] = value


class Plan:
    """A function prepared for repeated runs."""

    def __init__(self, fn, globals_: Mapping):
        self.name = symbol_name(fn)
        block = fn.regions[0].blocks[0]
        slot_of: dict = {}
        for arg in block.arguments:
            slot_of[arg] = len(slot_of)
        self.arg_types = [describe_type(a.type) for a in block.arguments]
        self.steps = []
        self.outputs = None
        for op in block.operations:
            name = op.operation.name
            if name == "func.return":
                self.outputs = [slot_of[v] for v in op.operands]
                break
            for r in op.results:
                slot_of[r] = len(slot_of)
            opdef = opdef_of(op)
            self.steps.append(MlaStep(op, opdef, slot_of) if opdef is not None
                              else UpstreamStep(op, slot_of, globals_))
        if self.outputs is None:
            raise InterpreterError(f"@{self.name}: the function body has no func.return")
        self.slot_count = len(slot_of)
        # Slots known before any step runs: the arguments and the constant loads (which have
        # no operands). Steps reading only those have their data rules checked up front.
        known = set(range(len(block.arguments)))
        for step in self.steps:
            if isinstance(step, UpstreamStep) and not step.operands:
                known.update(step.results)
        self.precheck = [s for s in self.steps if isinstance(s, MlaStep)]
        # Inputs the ops write in place (caches): kernels write through the caller's view.
        self.written = {i for s in self.precheck for spec, indices in s.operands
                        if spec.name in s.opdef.inplace.values() for i in indices}
        self.known = known
        for step in self.precheck:
            step.prechecked = all(i in known for _, indices in step.operands for i in indices)

    def run(self, inputs: Sequence) -> list:
        if len(inputs) != len(self.arg_types):
            raise InterpreterError(f"@{self.name} takes {len(self.arg_types)} inputs, got {len(inputs)}")
        # A read input viewed with negative strides goes to the kernels as a contiguous copy.
        inputs = [readable(v, i in self.written) for i, v in enumerate(inputs)]
        for i, (value, declared) in enumerate(zip(inputs, self.arg_types)):
            _describe(f"@{self.name}", f"input {i}", value, declared)
        slots = [None] * self.slot_count
        slots[:len(inputs)] = list(inputs)
        constants = [s for s in self.steps if isinstance(s, UpstreamStep) and not s.operands]
        for step in constants:
            step.run(slots)
        # Every op's data rules on what is known now, before the first op writes anything.
        view = [value if i in self.known else _UNKNOWN for i, value in enumerate(slots)]
        for step in self.precheck:
            step.check(step.values(view))
        for step in self.steps:
            if not (isinstance(step, UpstreamStep) and not step.operands):
                step.run(slots)
        return [slots[i] for i in self.outputs]

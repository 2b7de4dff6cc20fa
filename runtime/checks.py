"""The data checks of a compiled program: everything a call is checked for before the first
kernel writes anything.

Built once per function from its mla-level IR (before lower-to-aclnn: the rules belong to the
mla ops), a `DataChecks` runs on each call's inputs:
  1. every input against its argument type (shape, element type, format);
  2. every op's data-dependent rules (kind="runtime": cache slots, lengths, block tables) on
     the data known before the program runs: the inputs and the constants. A rule that reads
     a computed value holds for now (DynamicDim). An op whose types the IR left dynamic gets
     all its rules on the actual values; one whose host lists come as tensors (FIA's
     actual_seq_kvlen), the static rules that read them (those the IR could not decide).
So a bad cache slot or length stops the call before any write (docs/errors.md). The rules that
read data computed inside the program run right before their op's kernel (the executor's
checked mode, with the rules each call leaves: DataChecks.__call__'s result). Static rules the
verified IR already decided do not run again.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from mlir import ir

from ..dialect.dialect import is_constant_like, opdef_of, symbol_text
from ..dialect.errors import VerificationError
from ..dialect.opdef import VARIADIC, KindError, StructuralError
from ..dialect.rules import RUNTIME, STATIC, DynamicDim
from ..dialect.types import TensorInfo, describe_type
from .executor import dense_value, symbol_name
from .formats import NZTensor, describe_value


class InputError(RuntimeError):
    """An input does not match its argument type (or cannot be described)."""


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


UNKNOWN = _Unknown()


def conforms(declared: TensorInfo, actual: TensorInfo) -> bool:
    return (declared.dtype == actual.dtype and declared.format == actual.format
            and declared.rank == actual.rank
            and all(d is None or d == a for d, a in zip(declared.shape, actual.shape)))


def describe(where: str, param: str, value, declared: TensorInfo) -> TensorInfo:
    """The type of `value`, checked against `declared`; InputError naming `param`."""
    try:
        actual = describe_value(param, value)
    except KindError as e:
        raise InputError(f"{where}: {e.text()}") from None
    if declared.is_nz and isinstance(value, NZTensor) and declared.rank == value.data.ndim \
            and declared.rank != actual.rank:
        # The IR gave the NZ storage shape (the prolog weights may): match the data.
        actual = TensorInfo(tuple(value.data.shape), actual.dtype, actual.format)
    if not conforms(declared, actual):
        raise InputError(f"{where}: {param} has type {actual}, the IR says {declared}")
    return actual


class OpCheck:
    """The data rules of one mla op, with its operands as value slots."""

    def __init__(self, op, opdef, slot_of):
        self.op_name = opdef.name
        self.opdef = opdef
        groups = opdef.operand_groups(op)
        self.operands = [(spec, [slot_of.get(v) for v in values]) for spec, values in zip(opdef.operands, groups)]
        try:
            self.snapshot = opdef.snapshot(op)
        except StructuralError as e:
            raise InputError(f"{self.op_name}: {e.param}: {e.message}") from None
        self.result_types = {r: getattr(self.snapshot, r) for r in opdef.result_names}
        declared = [getattr(self.snapshot, s.name) for s, _ in self.operands]
        self.dynamic = any(None in t.shape for d in declared if d is not None
                           for t in (d if isinstance(d, list) else [d]))
        self.host = any(values for spec, values in self.operands if spec.name in opdef.host_operands)
        # The rules a call runs: the error rules that read data, and those of the static rules
        # whose verdict the verified IR could not give (they read a host list given as a tensor,
        # or a dynamic dimension). Every other static rule held when the IR was verified and
        # reads nothing a call changes; warnings never stop a call.
        phase = "all" if self.dynamic or self.host else RUNTIME
        open_rules = []
        decided = opdef.check(self.snapshot, phase=STATIC, deferred=open_rules).ok   # else: all of them
        open_rules = {id(r) for r in open_rules}
        errors = [r for r in opdef.rules if r.severity == "error"]
        self.rules = [r for r in errors if r.applies(opdef.default_profile, phase)
                      and (r.kind == RUNTIME or self.dynamic or not decided or id(r) in open_rules)]
        # An op whose operands are computed inside the program: its data rules run again on
        # them right before its kernel.
        complete = all(i is not None for _, indices in self.operands for i in indices)
        self.late = [] if complete else [r for r in errors if r.applies(opdef.default_profile, RUNTIME)]

    def values(self, slots) -> dict:
        out = {}
        for spec, indices in self.operands:
            pick = [UNKNOWN if i is None else slots[i] for i in indices]
            out[spec.name] = pick if spec.kind == VARIADIC else (pick[0] if pick else None)
        return out

    def check(self, values: dict) -> list:
        """The op's rules that need data (see __init__). VerificationError naming the parameter
        and rule; returns the rules left for right before the kernel: the data rules of an op
        with computed operands, and the rules that read a value not known yet."""
        snapshot = self._actual_snapshot(values) if self.dynamic else self.snapshot
        deferred = []
        verdict = self.opdef.check(snapshot.with_values(values), phase="all", rules=self.rules, deferred=deferred)
        if not verdict.ok:
            raise VerificationError("\n".join(f.text(self.op_name) for f in verdict.errors), verdict.errors)
        return self.late + deferred if deferred else self.late

    def _actual_snapshot(self, values):
        exact = {}
        for spec, _ in self.operands:
            declared, value = getattr(self.snapshot, spec.name), values[spec.name]
            if declared is None or value is UNKNOWN or isinstance(value, list) and any(v is UNKNOWN for v in value):
                exact[spec.name] = declared
                continue
            pairs = zip(declared, value) if isinstance(declared, list) else [(declared, value)]
            infos = [describe(self.op_name, spec.name, v, d) for d, v in pairs]
            exact[spec.name] = infos if isinstance(declared, list) else infos[0]
        given = {name: getattr(self.snapshot, name) for name in self.opdef.attribute_by_name
                 if self.snapshot.present(name)}
        return self.opdef.snapshot_from_parts(exact, given, self.result_types)


class DataChecks:
    """The checks of one mla-level func.func (see the module doc). `constants`: the values of
    its ml_program globals."""

    def __init__(self, fn, constants: Mapping = None):
        fn = fn.operation
        self.name = symbol_name(fn)
        block = fn.regions[0].blocks[0]
        slot_of = {arg: i for i, arg in enumerate(block.arguments)}
        self.arg_types = [describe_type(a.type) for a in block.arguments]
        self.constants = []                      # (slot, value) known before any op runs
        self.ops = []
        for op in block.operations:
            op = op.operation
            if is_constant_like(op) and len(op.results) == 1 and isinstance(op.results[0].type, ir.RankedTensorType):
                value = _constant_value(op, constants or {})
                if value is not None:
                    slot_of[op.results[0]] = len(slot_of)
                    self.constants.append((slot_of[op.results[0]], value))
                    continue
            opdef = opdef_of(op)
            if opdef is not None:
                check = OpCheck(op, opdef, slot_of)
                if check.dynamic or check.host or any(r.kind == RUNTIME for r in opdef.rules):
                    self.ops.append(check)
        self.slot_count = len(slot_of)

    def check_inputs(self, inputs: Sequence):
        if len(inputs) != len(self.arg_types):
            raise InputError(f"@{self.name} takes {len(self.arg_types)} inputs, got {len(inputs)}")
        for i, (value, declared) in enumerate(zip(inputs, self.arg_types)):
            describe(f"@{self.name}", f"input {i}", value, declared)

    def __call__(self, inputs: Sequence) -> dict:
        """Check the inputs and every op's data rules on what is known before the program
        runs; raises InputError or VerificationError, having written nothing. Returns what is
        left for the ops' kernels to check (the executor's `checked`): op name -> the rules
        that read a computed value, in the op's order (for every op of that name)."""
        self.check_inputs(inputs)
        slots = [UNKNOWN] * self.slot_count
        slots[:len(inputs)] = list(inputs)
        for slot, value in self.constants:
            slots[slot] = value
        late = {}
        for op in self.ops:
            deferred = op.check(op.values(slots))
            if deferred:
                late.setdefault(op.opdef, set()).update(map(id, deferred))
        return {opdef.name: [r for r in opdef.rules if id(r) in rules] for opdef, rules in late.items()}


def _constant_value(op, constants):
    """The value of a constant-like op when it is held here (a weight's, an arith.constant's);
    None otherwise (a causal mask is computed by its kernel)."""
    if "global" in op.attributes:                   # ml_program.global_load_const
        return constants.get(symbol_text(op.attributes["global"]))
    attr = op.attributes["value"] if "value" in op.attributes else None
    return dense_value(attr) if isinstance(attr, ir.DenseElementsAttr) else None

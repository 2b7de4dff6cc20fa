"""The CPU interpreter: runs a function of a verified module, one registered kernel per op.

Values are NumPy arrays (NZTensor for a FRACTAL_NZ operand). Before the first op runs, the
inputs are checked against the argument types and every op's data-dependent rules
(kind="runtime") against the inputs it reads (check_inputs); before each op runs, its runtime
rules again on all its values. So a bad cache index or block table stops the program before
anything is written.
"""
from __future__ import annotations

from typing import Sequence

from mlir import ir

from ..dialect.dialect import opdef_of
from ..dialect.opdef import VARIADIC, KindError
from ..errors import VerificationError
from .backend import run_kernel
from ..dialect.types import TensorInfo, TypeDescriptionError, describe_type
from .formats import NZTensor, describe_value
from .interop import readable


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


def _conforms(declared, actual) -> bool:
    return (declared.dtype == actual.dtype and declared.format == actual.format
            and declared.rank == actual.rank
            and all(d is None or d == a for d, a in zip(declared.shape, actual.shape)))


def _actual_snapshot(opdef, snapshot, operands, op_name):
    """The snapshot with the values' exact types when the IR types leave dims dynamic (the
    same snapshot otherwise). InterpreterError when a value does not fit its IR type."""
    dynamic = False
    exact = {}
    for spec in opdef.operands:
        declared, value = getattr(snapshot, spec.name), operands[spec.name]
        if declared is None:
            continue
        pairs = zip(declared, value) if isinstance(declared, list) else [(declared, value)]
        infos = []
        for d, v in pairs:
            try:
                a = _as_declared(d, v, describe_value(spec.name, v))
            except KindError as e:
                raise InterpreterError(e.finding().text(op_name)) from None
            if not _conforms(d, a):
                raise InterpreterError(f"{op_name}: operand {spec.name} has type {a}, the IR says {d}")
            dynamic = dynamic or None in d.shape
            infos.append(a)
        exact[spec.name] = infos if isinstance(declared, list) else infos[0]
    if not dynamic:
        return snapshot
    given = {name: getattr(snapshot, name) for name in opdef.attribute_by_name if snapshot.present(name)}
    return opdef.snapshot_from_parts(exact, given, {r: getattr(snapshot, r) for r in opdef.result_names})


def check_inputs(fn, inputs: Sequence) -> list:
    """What can be checked before the first op runs, so that a bad input stops the program
    before any op writes a cache: each input against its argument's type, then the runtime
    rules of every mla op on its operands that are inputs (cache slots, lengths, block tables;
    a rule holds while a value it reads is not known yet). Returns the inputs as kernels read
    them (a view with negative strides copied, unless an op writes into it)."""
    block = fn.regions[0].blocks[0]
    name = f"@{symbol_name(fn)}"
    if len(inputs) != len(block.arguments):
        raise InterpreterError(f"{name} takes {len(block.arguments)} inputs, got {len(inputs)}")
    written = set()
    for op in block.operations:
        opdef = opdef_of(op)
        if opdef is not None and opdef.inplace:
            for spec, values in zip(opdef.operands, opdef.operand_groups(op)):
                if spec.name in opdef.inplace.values():
                    written.update(values)
    inputs = [readable(v, arg in written) for arg, v in zip(block.arguments, inputs)]
    for i, (arg, value) in enumerate(zip(block.arguments, inputs)):
        try:
            declared = describe_type(arg.type)
        except TypeDescriptionError:
            continue                    # not a tensor: the op that reads it checks it
        try:
            actual = _as_declared(declared, value, describe_value(f"input #{i}", value))
        except KindError as e:
            raise InterpreterError(f"{name}: {e.text()}") from None
        if not _conforms(declared, actual):
            raise InterpreterError(f"{name}: input #{i} has type {actual}, the function takes {declared}")
    env = dict(zip(block.arguments, inputs))
    for op in block.operations:
        opdef = opdef_of(op)
        if opdef is None:
            continue
        known = {}
        for spec, values in zip(opdef.operands, opdef.operand_groups(op)):
            if spec.kind == VARIADIC:
                known[spec.name] = [env.get(v) for v in values]
            elif values and values[0] in env:
                known[spec.name] = env[values[0]]
        verdict = opdef.check(opdef.snapshot(op).with_values(known), phase="runtime")
        if not verdict.ok:
            raise VerificationError("\n".join(f.text(opdef.name) for f in verdict.errors), verdict.errors)
    return inputs


def _as_declared(declared, value, actual):
    """An NZ input given in the 4-D storage form the IR declares (the prolog weights may) is
    described by its data's shape."""
    if declared.is_nz and isinstance(value, NZTensor) and declared.rank == value.data.ndim != actual.rank:
        return TensorInfo(tuple(value.data.shape), actual.dtype, actual.format)
    return actual


def run_function(fn, inputs: Sequence) -> list:
    inputs = check_inputs(fn, inputs)
    block = fn.regions[0].blocks[0]
    env = {arg: value for arg, value in zip(block.arguments, inputs)}
    for op in block.operations:
        name = op.operation.name
        if name == "func.return":
            return [env[v] for v in op.operands]
        opdef = opdef_of(op)
        if opdef is None:
            raise InterpreterError(f"the CPU interpreter cannot run {name} "
                                   f"(supported: func.return and the mla ops)")
        groups = opdef.operand_groups(op)
        operands = {}
        for spec, values in zip(opdef.operands, groups):
            if spec.kind == VARIADIC:
                operands[spec.name] = [env[v] for v in values]
            else:
                operands[spec.name] = env[values[0]] if values else None
        snapshot = opdef.snapshot(op)
        actual = _actual_snapshot(opdef, snapshot, operands, name)
        # Data rules always; every rule again when the IR left a dimension dynamic.
        phase = "all" if actual is not snapshot else "runtime"
        verdict = opdef.check(actual.with_values(operands), phase=phase)
        if not verdict.ok:
            raise VerificationError("\n".join(f.text(name) for f in verdict.errors), verdict.errors)
        result_types = {r: getattr(snapshot, r) for r in opdef.result_names}
        results = run_kernel(name, operands, snapshot.attributes, result_types)
        for result, value in zip(op.results, results):
            env[result] = value
    raise InterpreterError("function body has no func.return")

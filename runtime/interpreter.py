"""The CPU interpreter: runs a function of a verified module, one registered kernel per op.

Values are NumPy arrays (NZTensor for a FRACTAL_NZ operand). Before each op runs, its
data-dependent rules (kind="runtime") are checked on the actual values, so a bad cache index
stops the program before anything is written.
"""
from __future__ import annotations

from typing import Sequence

from mlir import ir

from ..dialect.dialect import opdef_of
from ..dialect.opdef import VARIADIC, KindError
from ..errors import VerificationError
from .backend import run_kernel
from ..dialect.types import TensorInfo
from .formats import NZTensor, describe_value


class InterpreterError(RuntimeError):
    pass


def find_function(module: ir.Module, name: str | None):
    functions = [op for op in module.body.operations if op.operation.name == "func.func"]
    if not functions:
        raise InterpreterError("the module has no func.func to run")
    if name is None:
        return functions[0]
    for fn in functions:
        if fn.attributes["sym_name"].value == name:
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
                a = describe_value(spec.name, v)
            except KindError as e:
                raise InterpreterError(f"{op_name}: {e.finding().text(op_name)}") from None
            if d.is_nz and isinstance(v, NZTensor) and d.rank == v.data.ndim and d.rank != a.rank:
                # The IR gave the NZ storage shape (the prolog weights may): match the data.
                a = TensorInfo(tuple(v.data.shape), a.dtype, a.format)
            if not _conforms(d, a):
                raise InterpreterError(f"{op_name}: operand {spec.name} has type {a}, the IR says {d}")
            dynamic = dynamic or None in d.shape
            infos.append(a)
        exact[spec.name] = infos if isinstance(declared, list) else infos[0]
    if not dynamic:
        return snapshot
    given = {name: getattr(snapshot, name) for name in opdef.attribute_by_name if snapshot.present(name)}
    return opdef.snapshot_from_parts(exact, given, {r: getattr(snapshot, r) for r in opdef.result_names})


def run_function(fn, inputs: Sequence) -> list:
    block = fn.regions[0].blocks[0]
    if len(inputs) != len(block.arguments):
        raise InterpreterError(f"@{fn.attributes['sym_name'].value} takes {len(block.arguments)} "
                               f"inputs, got {len(inputs)}")
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

"""The `lower-to-aclnn` pass: each mla op becomes explicit aclnn two-phase calls.

One conversion function per op, registered with `@lowers("mla.<op>")` in its family's file
(prolog.py, attention.py, primitive.py, views.py). A conversion gets the op and a `CallBuilder`
positioned before it, and returns the values that replace the op's results, by result name:

    @lowers("mla.rms_norm")
    def rms_norm(op, b):
        return b.call_bound(RMS_NORM, scratch={"rstdOut": ...})

`call_bound` fills every argument of an aclnn Function from the op through `Param.binds`
(operands, attributes with their defaults, results as new device buffers, in-place caches as
the operands themselves), so most conversions are one line. View ops return `b.view(...)` and
make no call. The imports (lowering/imports.py) are declared once; the pass only emits them.
"""
from __future__ import annotations

from typing import Callable, Mapping

from mlir import ir
from mlir.dialects import arith

from ..dialect.dialect import opdef_of
from ..dialect.types import describe_type, tensor_type
from ..passes.registry import PassFailure, register_pass
from . import aclnn as A
from .aclnn import ACLNN, Function, verify_calls

LOWERINGS: dict[str, Callable] = {}


def lowers(op_name: str):
    """Register the conversion of `op_name` (one per op)."""
    def register(fn):
        if op_name in LOWERINGS:
            raise ValueError(f"a lowering of {op_name} is already registered")
        LOWERINGS[op_name] = fn
        return fn
    return register


def _load_families():
    # Importing a family module registers its conversions. One line per family.
    from . import prolog, attention, primitive, views  # noqa: F401


class CallBuilder:
    """Builds the kernel-call IR for one op, inserted before it."""

    def __init__(self, op, stream: ir.Value):
        self.op = op.operation
        self.stream = stream
        self.opdef = opdef_of(op)
        self.adaptor = self.opdef.wrap(op) if self.opdef else None
        self._ip = ir.InsertionPoint(self.op)
        self._loc = self.op.location
        self._null = None

    def _create(self, name, result_types, operands=(), attributes=None):
        return ir.Operation.create(name, results=list(result_types), operands=list(operands),
                                   attributes=attributes or {}, loc=self._loc, ip=self._ip)

    # host values -------------------------------------------------------------------------
    def null(self) -> ir.Value:
        if self._null is None:
            self._null = self._create("aclnn.null", [ir.Type.parse("!aclnn.nullptr")]).result
        return self._null

    def host(self, kind: str, value) -> ir.Value:
        """A host argument of `kind` with a compile-time value."""
        if kind == A.STRING:
            return self._create("aclnn.string", [A.host_type(kind)],
                                attributes={"value": ir.StringAttr.get(value)}).result
        if kind == A.INT_ARRAY:
            return self._create("aclnn.create_int_array", [A.host_type(kind)],
                                attributes={"value": ir.DenseI64ArrayAttr.get([int(v) for v in value])}).result
        attr = {A.F64: lambda: ir.FloatAttr.get(ir.F64Type.get(), float(value)),
                A.I64: lambda: ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value)),
                A.BOOL: lambda: ir.BoolAttr.get(bool(value))}[kind]()
        return arith.ConstantOp(A.host_type(kind), attr, loc=self._loc, ip=self._ip).result

    def read_int_array(self, host_tensor: ir.Value) -> ir.Value:
        """An aclIntArray read, at run time, from a host i64 tensor (a per-step value)."""
        return self._create("aclnn.read_int_array", [A.host_type(A.INT_ARRAY)], [host_tensor]).result

    # device buffers ----------------------------------------------------------------------
    def alloc(self, t: ir.Type) -> ir.Value:
        return self._create("aclnn.alloc", [t]).result

    def zeros(self, t: ir.Type) -> ir.Value:
        """A constant zero tensor: a result the kernel does not write (e.g. softmax_lse
        without softmax_lse_flag), given the value the CPU kernels give."""
        info = describe_type(t)
        element = ir.RankedTensorType(t).element_type
        zero = (ir.FloatAttr.get(element, 0.0) if info.dtype in ("bf16", "f16", "f32", "f64")
                else ir.IntegerAttr.get(element, 0))
        return arith.ConstantOp(t, ir.DenseElementsAttr.get_splat(t, zero), loc=self._loc,
                                ip=self._ip).result

    def view(self, base: ir.Value, t: ir.Type, *, offset: int = 0, strides=None) -> ir.Value:
        """`base`'s memory seen as `t` (no copy, no kernel): offset and strides in elements;
        default strides are the contiguous ones of t's shape."""
        shape = describe_type(t).shape
        if strides is None:
            strides = contiguous_strides(shape)
        attrs = {"offset": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), offset),
                 "strides": ir.DenseI64ArrayAttr.get(list(strides))}
        return self._create("aclnn.view", [t], [base], attrs).result

    def tensor_list(self, values) -> ir.Value:
        return self._create("aclnn.create_tensor_list", [ir.Type.parse("!aclnn.tensor_list")],
                            list(values)).result

    # the call ----------------------------------------------------------------------------
    def call(self, function: Function, args: Mapping[str, ir.Value]):
        """Phase one with `args` (C name -> Value, in any order), the workspace, the launch."""
        missing = [p.c_name for p in function.params if p.c_name not in args]
        if missing:
            raise TypeError(f"{function.name}: no value for {missing}")
        operands = [args[p.c_name] for p in function.params]
        i64_type = ir.IntegerType.get_signless(64)
        phase_one = self._create(function.op_name, [i64_type, ir.Type.parse("!aclnn.executor")],
                                 operands, {"callee": ir.StringAttr.get(function.phase_one)})
        size, executor = phase_one.results
        workspace = self._create("aclnn.workspace", [tensor_type((None,), "i8")], [size]).result
        self._create("aclnn.launch", [], [workspace, size, executor, self.stream],
                     {"callee": ir.StringAttr.get(function.name)})

    def call_bound(self, function: Function, *, absent_outputs=(), scratch: Mapping[str, ir.Type] = None,
                   host_operands: Mapping[str, str] = None) -> dict:
        """Call `function` with every argument taken from the op through `Param.binds`.

        absent_outputs: optional outputs passed as nullptr; their results become zeros.
        scratch: C name -> type of an output buffer no result of the op carries.
        host_operands: int-array C name -> name of an optional host i64 tensor operand that,
        when present, gives the list at run time instead of the attribute.
        Returns the values replacing the op's results, by result name."""
        scratch, host_operands = dict(scratch or {}), dict(host_operands or {})
        a, results, args = self.adaptor, {}, {}
        result_types = {name: r.type for name, r in zip(self.opdef.result_names, self.op.results)}
        for p in function.params:
            if p.kind in A.DEVICE_TENSORS and p.kind not in (A.OUT, A.OPT_OUT):
                value = getattr(a, p.binds) if p.binds else None
                if value is None and p.kind != A.OPT_TENSOR:
                    raise TypeError(f"{function.name}: {p.c_name} ({p.binds}) is required")
                args[p.c_name] = self.null() if value is None else value
            elif p.kind in (A.OUT, A.OPT_OUT):
                if p.c_name in absent_outputs:
                    args[p.c_name] = self.null()
                    results[p.binds] = self.zeros(result_types[p.binds])
                elif p.binds is None:
                    args[p.c_name] = self.alloc(scratch[p.c_name])
                else:
                    args[p.c_name] = results[p.binds] = self.alloc(result_types[p.binds])
            elif p.kind == A.TENSOR_LIST:
                args[p.c_name] = self.tensor_list(getattr(a, p.binds))
            elif p.kind == A.INT_ARRAY:
                operand = host_operands.get(p.c_name)
                if operand and operand in self.opdef.operand_by_name and getattr(a, operand) is not None:
                    args[p.c_name] = self.read_int_array(getattr(a, operand))
                    continue
                value = getattr(a, p.binds) if p.binds else None
                args[p.c_name] = self.null() if value is None else self.host(A.INT_ARRAY, value)
            else:
                args[p.c_name] = self.host(p.kind, getattr(a, p.binds))
        self.call(function, args)
        for result, operand in self.opdef.inplace.items():
            results[result] = getattr(a, operand)      # the cache itself, updated in place
        return results


def contiguous_strides(shape) -> list:
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= int(d)
    return strides[::-1]


def lower_function(fn) -> bool:
    """Lower every mla op of one func.func; errors are diagnostics. True on success."""
    block = fn.regions[0].blocks[0]
    first = block.operations[0]
    stream = ir.Operation.create("aclnn.current_stream", results=[ir.Type.parse("!aclnn.stream")],
                                 loc=fn.location, ip=ir.InsertionPoint(first)).result
    ok = True
    for op in list(block.operations):
        op = op.operation
        name = op.name
        if name == "func.return":
            ir.Operation.create("aclnn.synchronize", operands=[stream], loc=op.location,
                                ip=ir.InsertionPoint(op))
            continue
        convert = LOWERINGS.get(name)
        if convert is None:
            if name.startswith("mla."):
                op.location.emit_error(f"'{name}' op has no lowering to aclnn calls")
                ok = False
            continue
        replacements = convert(op, CallBuilder(op, stream))
        for result_name, result in zip(opdef_of(op).result_names, op.results):
            result.replace_all_uses_with(replacements[result_name])
        op.erase()
    return ok


@register_pass("lower-to-aclnn", "Lower every mla op to explicit aclnn two-phase kernel calls "
               "(GetWorkspaceSize, workspace, launch), with in-place caches and nullptr arguments")
def lower_to_aclnn(module):
    _load_families()
    ACLNN.load(module.context)
    ok = True
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func":
            ok = lower_function(op.operation) and ok
    if not ok or not verify_calls(module):
        raise PassFailure()


def lower_module(module: ir.Module) -> ir.Module:
    """Lower a verified mla module in place (Python entry point; needs an active context and a
    DiagnosticCollector for the errors). Returns the module."""
    from ..passes.registry import run_pipeline
    if not run_pipeline(module, "builtin.module(lower-to-aclnn)"):
        raise PassFailure()
    return module


__all__ = ["lowers", "CallBuilder", "lower_to_aclnn", "lower_module", "LOWERINGS",
           "contiguous_strides"]

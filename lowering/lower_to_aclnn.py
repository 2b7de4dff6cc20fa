"""The `lower-to-aclnn` pass: each op of a program becomes explicit aclnn two-phase calls
(the pass, its conversion registry and CallBuilder, the helper conversions use).

One conversion function per op, registered with `@lowers(<its OpDef>)` in its family's file
(FAMILIES: prolog.py, attention.py, primitive.py, views.py, upstream.py; an upstream op, which
has no OpDef, by its name). A conversion gets the op and a
`CallBuilder` positioned before it, and returns the values that replace the op's results: a
dict by result name (mla ops) or a list (upstream ops).

    @lowers(RmsNorm)
    def rms_norm(op, b):
        return b.call_bound(RMS_NORM, scratch={"rstdOut": ...})

`call_bound` fills every argument of an aclnn Function from the op through `Param.binds`
(operands, attributes with their defaults, results as new device buffers, in-place caches as
the operands themselves), so most conversions are one line. Others build the arguments with
`b.call(...)` from views of the operands (`b.reshape`, `b.slice`, `b.permute`).

Memory is explicit after the lowering: every tensor value is a device buffer (a function
argument, an `aclnn.alloc`, a constant) or an `aclnn.view` of one, with an element offset and
strides. Views always point at a buffer, never at another view (offsets and strides are
composed here), so a reader and the executor see where every byte lives. A reshape that no
strides can express, or a strided view passed to a function whose document does not accept
non-contiguous tensors, becomes a contiguous copy (aclnnInplaceCopy, as torch's
`.contiguous()`). Constants (`arith.constant`, `ml_program.global_load_const` of a weight)
stay: they are device-resident buffers the executor uploads once.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Optional

from mlir import ir
from mlir.dialects import arith

from ..dialect import aclnn as A
from ..dialect.aclnn import Function, verify_calls
from ..dialect.dialect import load_dialects, opdef_of
from ..dialect.layout import contiguous_strides
from ..dialect.rules import DynamicDim
from ..dialect.types import TensorInfo, TypeDescriptionError, describe_type, tensor_type
from ..passes.registry import ModulePass, PassFailure, register_pass

LOWERINGS: dict[str, Callable] = {}      # op name -> conversion

# The modules holding conversions, one per op family: loading them registers every conversion.
FAMILIES = ("prolog", "attention", "primitive", "views", "upstream", "decoder", "collective", "dsa", "moe_distribute")


def lowers(op):
    """Register the conversion of `op`: an mla op's OpDef (`@lowers(RmsNorm)`), or the name of
    an upstream op (`@lowers("tensor.concat")`: upstream ops have no OpDef). One per op."""
    if isinstance(op, str):
        if op.startswith("mla."):
            raise TypeError(f"lowers({op!r}): register an mla op by its OpDef, not its name")
        name = op
    else:
        name = op.name
    def register(fn):
        if name in LOWERINGS:
            raise ValueError(f"a lowering of {name} is already registered")
        LOWERINGS[name] = fn
        return fn
    return register


def load_lowerings() -> dict:
    """Every conversion (import the family modules, once); returns LOWERINGS."""
    import importlib
    for family in FAMILIES:
        importlib.import_module(f"{__package__}.{family}")
    return LOWERINGS


# Ops that stay in the lowered IR as they are: device-resident constants and host values.
KEPT = ("arith.constant", "ml_program.global_load_const", "func.return")


class LoweringError(Exception):
    """An op this lowering cannot express as kernel calls; the message says why."""


def info(value: ir.Value) -> TensorInfo:
    return describe_type(value.type)


def view_strides(shape, strides, new_shape) -> Optional[list]:
    """Strides that let memory laid out as (shape, strides) be read as `new_shape` (same
    element count) without a copy, or None when there are none (torch's view rule: each run
    of merged or split dimensions must be contiguous within itself)."""
    shape, new_shape = [int(d) for d in shape], [int(d) for d in new_shape]
    if not shape or 0 in shape:
        return contiguous_strides(new_shape)
    out = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    base = strides[-1]
    tensor_numel = view_numel = 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != tensor_numel * base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                out[view_d] = view_numel * base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                base, tensor_numel, view_numel = strides[d - 1], 1, 1
    return out if view_d == -1 else None


class Layout:
    """Where a tensor value lives: its buffer, element offset and strides."""
    __slots__ = ("buffer", "offset", "strides", "info")

    def __init__(self, buffer, offset, strides, info):
        self.buffer, self.offset, self.info = buffer, offset, info
        self.strides = None if strides is None else list(strides)

    @property
    def contiguous(self) -> bool:
        if self.strides is None:               # a dynamic shape: only whole buffers
            return True
        return self.info.format != "ND" or all(
            d == 1 or s == c for d, s, c in zip(self.info.shape, self.strides,
                                                contiguous_strides(self.info.shape)))


def layout(value: ir.Value) -> Layout:
    owner = value.owner
    if isinstance(owner, ir.OpView):
        owner = owner.operation
    if isinstance(owner, ir.Operation) and owner.name == "aclnn.view":
        return Layout(owner.operands[0], int(owner.attributes["offset"].value),
                      list(owner.attributes["strides"]), info(value))
    shape = info(value).shape
    return Layout(value, 0, None if None in shape else contiguous_strides(shape), info(value))


class CallBuilder:
    """Builds the kernel-call IR for one op, inserted before it."""

    def __init__(self, op, stream: ir.Value, shared: dict | None = None):
        self.op = op.operation
        self.stream = stream
        self._shared = {} if shared is None else shared      # the function's (see `once`)
        self.opdef = opdef_of(op)
        self.adaptor = self.opdef.wrap(op) if self.opdef else None
        self._ip = ir.InsertionPoint(self.op)
        self._loc = self.op.location
        self._null = None

    def create(self, name, result_types, operands=(), attributes=None):
        return ir.Operation.create(name, results=list(result_types), operands=list(operands),
                                   attributes=attributes or {}, loc=self._loc, ip=self._ip)

    def result_type(self, name_or_index) -> ir.Type:
        if isinstance(name_or_index, str):
            return self.op.results[self.opdef.result_names.index(name_or_index)].type
        return self.op.results[name_or_index].type

    def once(self, key, build) -> ir.Value:
        """build(self) the first time an op of the function asks for `key`, that value
        afterwards: a buffer every call computes alike and nothing writes again (the 2048 x
        2048 causal template of each attention layer) is computed once per call of the
        function, not once per op. Built before the first op that asks, so it dominates the
        others."""
        if key not in self._shared:
            self._shared[key] = build(self)
        return self._shared[key]

    # host values -------------------------------------------------------------------------
    def null(self) -> ir.Value:
        if self._null is None:
            self._null = self.create("aclnn.null", [ir.Type.parse("!aclnn.nullptr")]).result
        return self._null

    def host(self, kind: str, value) -> ir.Value:
        """A host argument of `kind` with a compile-time value. A SCALAR is (dtype, number);
        a DTYPE an element type name ("bf16")."""
        if kind == A.STRING:
            return self.create("aclnn.string", [A.host_type(kind)],
                                attributes={"value": ir.StringAttr.get(value)}).result
        if kind == A.INT_ARRAY:
            return self.create("aclnn.create_int_array", [A.host_type(kind)],
                                attributes={"value": ir.DenseI64ArrayAttr.get([int(v) for v in value])}).result
        if kind == A.SCALAR:
            dtype, number = value
            element = ir.Type.parse(dtype)
            attr = (ir.FloatAttr.get(element, float(number)) if dtype.startswith(("f", "bf"))
                    else ir.IntegerAttr.get(element, int(number)))
            return self.create("aclnn.create_scalar", [A.host_type(kind)], attributes={"value": attr}).result
        if kind == A.DTYPE:
            return self.create("aclnn.dtype", [A.host_type(kind)],
                                attributes={"type": ir.TypeAttr.get(ir.Type.parse(value))}).result
        attr = {A.F64: lambda: ir.FloatAttr.get(ir.F64Type.get(), float(value)),
                A.I64: lambda: ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value)),
                A.I32: lambda: ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(value)),
                A.I8: lambda: ir.IntegerAttr.get(ir.IntegerType.get_signless(8), int(value)),
                A.BOOL: lambda: ir.BoolAttr.get(bool(value))}[kind]()
        return arith.ConstantOp(A.host_type(kind), attr, loc=self._loc, ip=self._ip).result

    def read_int_array(self, host_tensor: ir.Value) -> ir.Value:
        """An aclIntArray read, at run time, from a host i64 tensor (a per-step value)."""
        return self.create("aclnn.read_int_array", [A.host_type(A.INT_ARRAY)],
                            [self.contiguous(host_tensor)]).result

    # device buffers and views ------------------------------------------------------------
    def alloc(self, t) -> ir.Value:
        if isinstance(t, TensorInfo):
            t = tensor_type(t.shape, t.dtype, t.format)
        return self.create("aclnn.alloc", [t]).result

    def zeros(self, t: ir.Type) -> ir.Value:
        """A constant zero tensor: a result the kernel does not write (e.g. softmax_lse
        without softmax_lse_flag), given the value the CPU kernels give."""
        i = describe_type(t)
        element = ir.RankedTensorType(t).element_type
        zero = (ir.FloatAttr.get(element, 0.0) if i.dtype in ("bf16", "f16", "f32", "f64")
                else ir.IntegerAttr.get(element, 0))
        return arith.ConstantOp(t, ir.DenseElementsAttr.get_splat(t, zero), loc=self._loc,
                                ip=self._ip).result

    def view(self, base: ir.Value, t, *, offset: int = 0, strides=None) -> ir.Value:
        """`base`'s memory seen as `t` (no copy, no kernel): offset and strides in elements
        of `base`'s buffer (views compose); default strides are the contiguous ones of t."""
        t = t if isinstance(t, TensorInfo) else describe_type(t)
        src = layout(base)
        if None in t.shape:
            raise LoweringError(f"a view as {t} (a dynamic shape has no strides)")
        if not src.contiguous:
            raise LoweringError(f"a {t.format} view of the strided view {src.info}")
        if strides is None:
            strides = contiguous_strides(t.shape)
        return self._strided(src, t, src.offset + offset, strides)

    def reshape(self, value: ir.Value, shape) -> ir.Value:
        """`value` read as `shape` (same elements, row-major): a view when strides can say
        it, else a view of a contiguous copy."""
        src = layout(value)
        if tuple(shape) == tuple(src.info.shape):
            return value
        if src.strides is None or None in shape or src.info.format != "ND":
            raise LoweringError(f"a reshape of {src.info} to {tuple(shape)} (dynamic or FRACTAL_NZ)")
        new = TensorInfo(tuple(int(d) for d in shape), src.info.dtype, src.info.format)
        strides = view_strides(src.info.shape, src.strides, new.shape)
        if strides is None:
            src = layout(self.copy(value))
            strides = contiguous_strides(new.shape)
        return self._strided(src, new, src.offset, strides)

    def slice(self, value: ir.Value, offsets, sizes, steps, result: TensorInfo) -> ir.Value:
        """The sub-tensor at `offsets` with `sizes` and `steps` per dimension; unit
        dimensions the result type drops are dropped (rank-reducing slices)."""
        src = layout(value)
        if src.strides is None or src.info.format != "ND":
            raise LoweringError(f"a slice of {src.info} (dynamic or FRACTAL_NZ)")
        offset = src.offset + sum(int(o) * s for o, s in zip(offsets, src.strides))
        strides = [int(t) * s for t, s in zip(steps, src.strides)]
        sizes = [int(d) for d in sizes]
        want, drop, keep = list(result.shape), len(sizes) - result.rank, []
        for axis, size in enumerate(sizes):       # the unit dims a rank-reducing slice drops
            if drop and size == 1 and (len(keep) >= len(want) or want[len(keep)] != 1):
                drop -= 1
                continue
            keep.append(axis)
        if [sizes[a] for a in keep] != want:
            raise LoweringError(f"cannot match slice sizes {sizes} to the result {result}")
        return self._strided(src, result, offset, [strides[a] for a in keep])

    def permute(self, value: ir.Value, permutation) -> ir.Value:
        """`value` with its axes permuted (a strided view)."""
        src = layout(value)
        if src.strides is None:
            raise LoweringError(f"a permutation of {src.info} (dynamic)")
        shape = tuple(src.info.shape[p] for p in permutation)
        return self._strided(src, TensorInfo(shape, src.info.dtype), src.offset,
                             [src.strides[p] for p in permutation])

    def _strided(self, src: Layout, t: TensorInfo, offset, strides) -> ir.Value:
        base_shape = describe_type(src.buffer.type).shape
        if offset == 0 and list(strides) == contiguous_strides(t.shape) and tuple(t.shape) == tuple(base_shape) \
                and t.dtype == src.info.dtype and src.buffer.type == tensor_type(t.shape, t.dtype, t.format):
            return src.buffer
        attrs = {"offset": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(offset)),
                 "strides": ir.DenseI64ArrayAttr.get([int(s) for s in strides])}
        return self.create("aclnn.view", [tensor_type(t.shape, t.dtype, t.format)], [src.buffer],
                            attrs).result

    def copy(self, value: ir.Value) -> ir.Value:
        """A contiguous copy of `value` (aclnnInplaceCopy into a new buffer)."""
        from ..dialect.aclnn_functions import INPLACE_COPY
        target = self.alloc(value.type)
        self.call(INPLACE_COPY, {"selfRef": target, "src": value})
        return target

    def contiguous(self, value: ir.Value) -> ir.Value:
        return value if layout(value).contiguous else self.copy(value)

    def tensor_list(self, values) -> ir.Value:
        """An aclTensorList: the elements of the first one's type, then the others appended."""
        values = list(values)
        list_type = ir.Type.parse("!aclnn.tensor_list")
        if all(v.type == values[0].type for v in values):
            return self.create("aclnn.create_tensor_list", [list_type], values).result
        result = self.create("aclnn.create_tensor_list", [list_type], values[:1]).result
        for value in values[1:]:
            result = self.create("aclnn.tensor_list_append", [list_type], [result, value]).result
        return result

    # the call ----------------------------------------------------------------------------
    def call(self, function: Function, args: Mapping[str, ir.Value], variant: Mapping[str, str] = None):
        """Phase one with `args` (C name -> Value, in any order), the workspace, the launch.
        Strided views become contiguous copies unless the function takes them. `variant`:
        numerics of the mla op the function does not have (attributes `mla.<name>` on the
        phase-one op: the CPU backend honours them, the NPU backend refuses the call)."""
        missing = [p.c_name for p in function.params if p.c_name not in args]
        if missing:
            raise TypeError(f"{function.name}: no value for {missing}")
        operands = []
        for p in function.params:
            value = args[p.c_name]
            if not function.strided and p.kind in (A.TENSOR, A.OPT_TENSOR) and isinstance(value.type, ir.RankedTensorType):
                value = self.contiguous(value)
            operands.append(value)
        i64_type = ir.IntegerType.get_signless(64)
        attributes = {"callee": ir.StringAttr.get(function.phase_one)}
        attributes.update({f"mla.{k}": ir.StringAttr.get(v) for k, v in (variant or {}).items()})
        phase_one = self.create(function.op_name, [i64_type, ir.Type.parse("!aclnn.executor")],
                                 operands, attributes)
        size, executor = phase_one.results
        workspace = self.create("aclnn.workspace", [tensor_type((None,), "i8")], [size]).result
        self.create("aclnn.launch", [], [workspace, size, executor, self.stream],
                     {"callee": ir.StringAttr.get(function.name)})
        return phase_one

    def call_bound(self, function: Function, *, absent_outputs=(), scratch: Mapping[str, ir.Type] = None,
                   host_operands: Mapping[str, str] = None, given: Mapping[str, ir.Value] = None,
                   variant: Mapping[str, str] = None) -> dict:
        """Call `function` with every argument taken from the op through `Param.binds`.

        absent_outputs: optional outputs passed as nullptr; their results become zeros.
        scratch: C name -> type of an output buffer no result of the op carries.
        host_operands: int-array C name -> name of an optional host i64 tensor operand that,
        when present, gives the list at run time instead of the attribute.
        given: C name -> a value to pass instead of the bound one.
        variant: see `call`.
        Returns the values replacing the op's results, by result name."""
        scratch, host_operands, given = dict(scratch or {}), dict(host_operands or {}), dict(given or {})
        a, results, args = self.adaptor, {}, {}
        result_types = {name: r.type for name, r in zip(self.opdef.result_names, self.op.results)}
        for p in function.params:
            if p.c_name in given:
                args[p.c_name] = given[p.c_name]
            elif p.kind in A.DEVICE_TENSORS and p.kind not in (A.OUT, A.OPT_OUT):
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
        self.call(function, args, variant)
        for result, operand in self.opdef.inplace.items():
            results[result] = getattr(a, operand)      # the cache itself, updated in place
        return results


def lower_function(fn) -> bool:
    """Lower every op of one func.func; errors are diagnostics. True on success."""
    block = fn.regions[0].blocks[0]
    first = block.operations[0]
    stream = ir.Operation.create("aclnn.current_stream", results=[ir.Type.parse("!aclnn.stream")],
                                 loc=fn.location, ip=ir.InsertionPoint(first)).result
    ok, shared = True, {}
    for op in list(block.operations):
        op = op.operation
        name = op.name
        convert = _return if name == "func.return" else LOWERINGS.get(name)
        if convert is None:
            if not (name in KEPT or name.startswith("aclnn.")):
                op.location.emit_error(f"'{name}' op has no lowering to aclnn calls")
                ok = False
            continue
        try:
            replacements = convert(op, CallBuilder(op, stream, shared))
            if replacements is None:
                continue
        except (LoweringError, TypeDescriptionError) as e:
            op.location.emit_error(f"'{name}' op cannot be lowered to aclnn calls: {e}")
            ok = False
            continue
        except DynamicDim:          # a conversion needs a size the type leaves dynamic (`?`)
            op.location.emit_error(f"'{name}' op cannot be lowered to aclnn calls: a dynamic shape "
                                   "where the call needs a static size")
            ok = False
            continue
        opdef = opdef_of(op)
        if isinstance(replacements, dict):
            replacements = [replacements[r] for r in opdef.result_names]
        for result, replacement in zip(op.results, replacements):
            result.replace_all_uses_with(replacement)
        op.erase()
    _erase_unused_views(block)
    return ok


def _erase_unused_views(block):
    """Views nobody reads (intermediate shapes of a chain of reshapes) describe nothing."""
    for op in reversed(list(block.operations)):
        op = op.operation
        if op.name == "aclnn.view" and not list(op.results[0].uses):
            op.erase()


def _return(ret, b):
    """Results leave the device as contiguous buffers (a strided view is copied first), after
    the stream is synchronized. The op stays: None."""
    for i, value in enumerate(ret.operands):
        if isinstance(value.type, ir.RankedTensorType) and not layout(value).contiguous:
            ret.operands[i] = b.copy(value)
    ir.Operation.create("aclnn.synchronize", operands=[b.stream], loc=ret.location,
                        ip=ir.InsertionPoint(ret))


@register_pass
@dataclass
class LowerToAclnn(ModulePass):
    name = "lower-to-aclnn"
    summary = ("Lower every op to explicit aclnn two-phase kernel calls (GetWorkspaceSize, workspace, "
               "launch) over device buffers and views, with in-place caches and nullptr arguments")

    def apply(self, module, inputs):
        load_lowerings()
        load_dialects(module.context)
        ok = True
        for op in module.regions[0].blocks[0].operations:
            if op.operation.name == "func.func" and op.operation.regions[0].blocks:   # not a declaration
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


def is_lowered(module: ir.Module) -> bool:
    """Whether a module is already at the kernel-call level (it holds aclnn ops)."""
    found = False

    def visit(op):
        nonlocal found
        if op.operation.name.startswith("aclnn."):
            found = True
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


__all__ = ["lowers", "CallBuilder", "LowerToAclnn", "lower_module", "LOWERINGS",
           "contiguous_strides", "view_strides", "layout", "info", "LoweringError", "is_lowered"]

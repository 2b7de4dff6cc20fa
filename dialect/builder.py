"""The one way to make IR: builders that create ops in an MLIR context, over `OpDef.build`.

    b = Builder(ip, loc)                          # at an insertion point, with a location
    y = b.op(RmsNorm, {"x": x, "gamma": g}, {"epsilon": 1e-6}).result     # result types inferred
    v = b.reshape(y, (4, 128))                    # tensor.expand_shape / collapse_shape
    b.nz(w), b.extract_slice(...), b.last_axis_slice(...), b.concat(...), b.cast(...)
    b.splat(1.0, TensorInfo((1,), "f32")), b.dense([[0, 1]], TensorInfo((1, 2), "i32"))

    f = FunctionBuilder("forward", context)       # a module holding one func.func, built op by op
    x = f.arg("hidden_states", TensorInfo((2, 7168), "bf16"))
    w = f.weight("model.norm.weight", TensorInfo((7168,), "bf16"))   # an extern ml_program global
    f.ret([f.builder.op(RmsNorm, {"x": x, "gamma": w}).result])

The passes (passes/rewrite.py), the eager calls (ascend_mla/eager.py), the models
(ascend_mla/models/graph.py GraphWriter) and the PyTorch importer (frontend/importer.py) all
build with these: no IR is written as text to be parsed again (text is an input format, and
`str(module)` what a stage prints).
"""
from __future__ import annotations

from typing import Mapping, Optional, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import func

from .opdef import OpDef
from .types import FRACTAL_NZ, TensorInfo, describe_type, numpy_dtype, reshape_groups, tensor_type


def info(value) -> TensorInfo:
    return describe_type(value.type)


def _types(results) -> list:
    return [r if isinstance(r, ir.Type) else tensor_type(r.shape, r.dtype, r.format) for r in results]


def _at_loc(method):
    """Run a Builder method with its location (and so its context) active: types and
    attributes are made in that context."""
    def run(self, *args, **kwargs):
        with self.loc:
            return method(self, *args, **kwargs)
    run.__name__, run.__doc__ = method.__name__, method.__doc__
    return run


class Builder:
    """Creates ops at one insertion point, with one location (both may be changed: `ip`, `loc`),
    in the location's context."""

    def __init__(self, ip: ir.InsertionPoint, loc: ir.Location):
        self.ip, self.loc = ip, loc

    @_at_loc
    def create(self, name: str, results: Sequence, operands: Sequence = (), attributes: Optional[dict] = None):
        """An op by its name (an upstream op); results as ir.Types or TensorInfos."""
        return ir.Operation.create(name, results=_types(results), operands=list(operands),
                                   attributes=attributes or {}, loc=self.loc, ip=self.ip)

    @_at_loc
    def op(self, opdef: OpDef, operands: Mapping, attributes: Optional[Mapping] = None,
           results: Optional[Sequence] = None) -> ir.Operation:
        """An op of its OpDef, operands and attributes by their declared names (an optional
        operand None or absent, a variadic one a list). `results`: the result types (TensorInfo
        or ir.Type, in declared order); None infers them (OpDef.infer_results)."""
        attributes = {k: v for k, v in (attributes or {}).items() if v is not None}
        if results is None:
            results = self.infer(opdef, operands, attributes)
        return opdef.build(operands, attributes, _types(results), loc=self.loc, ip=self.ip)

    @staticmethod
    def infer(opdef: OpDef, operands: Mapping, attributes: Mapping) -> list:
        """The op's result types from its operands' types and its attributes."""
        infos = {k: ([info(x) for x in v] if isinstance(v, (list, tuple)) else info(v))
                 for k, v in operands.items() if v is not None}
        inferred = opdef.result_infos(opdef.snapshot_from_parts(infos, attributes))
        return [inferred[r] for r in opdef.result_names]

    # --- the upstream ops every stage writes ------------------------------------------------------
    @_at_loc
    def nz(self, value) -> ir.Value:
        """value as FRACTAL_NZ (mla.format_cast; folded at compile time for a constant)."""
        from .primitive import FormatCast
        t = info(value)
        if t.format == FRACTAL_NZ:
            return value
        return self.op(FormatCast, {"x": value}, {}, [TensorInfo(t.shape, t.dtype, FRACTAL_NZ)]).result

    @_at_loc
    def reshape(self, value, shape) -> ir.Value:
        """value with another shape of the same size (row-major), with upstream tensor ops
        (views: no data moves): one expand or collapse when the reshape splits or merges
        consecutive axes, else a collapse to 1-D and an expand."""
        t = info(value)
        shape = tuple(shape)
        if t.shape == shape:
            return value
        if t.rank == 0 or not shape:     # to or from a scalar: unit axes only, no groups
            return self._reshape_op(value, shape, [])
        groups = reshape_groups(t.shape, shape)
        if groups is None or len(shape) == len(t.shape):
            size = int(np.prod(t.shape, dtype=np.int64))
            flat = self._reshape_op(value, (size,), [list(range(t.rank))]) if t.rank != 1 else value
            return flat if len(shape) == 1 else self._reshape_op(flat, shape, [list(range(len(shape)))])
        return self._reshape_op(value, shape, groups)

    @_at_loc
    def _reshape_op(self, value, shape, groups):
        t = info(value)
        attributes = {"reassociation": ir.ArrayAttr.get([_index_array(g) for g in groups])}
        if len(shape) > t.rank:
            name = "tensor.expand_shape"
            attributes["static_output_shape"] = ir.DenseI64ArrayAttr.get(list(shape))
        else:
            name = "tensor.collapse_shape"
        return self.create(name, [TensorInfo(tuple(shape), t.dtype)], [value], attributes).result

    @_at_loc
    def extract_slice(self, value, offsets, sizes, strides=None) -> ir.Value:
        """value[offsets : offsets + sizes : strides] (static tensor.extract_slice, rank kept)."""
        t = info(value)
        strides = list(strides or [1] * len(sizes))
        i64 = lambda values: ir.DenseI64ArrayAttr.get([int(v) for v in values])  # noqa: E731
        attributes = {"static_offsets": i64(offsets), "static_sizes": i64(sizes), "static_strides": i64(strides),
                      "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 0, 0, 0])}
        return self.create("tensor.extract_slice", [TensorInfo(tuple(sizes), t.dtype)], [value], attributes).result

    @_at_loc
    def last_axis_slice(self, value, start: int, size: int) -> ir.Value:
        """value[..., start:start + size]."""
        t = info(value)
        return self.extract_slice(value, [0] * (t.rank - 1) + [start], t.shape[:-1] + (size,))

    @_at_loc
    def concat(self, values, axis: int) -> ir.Value:
        """tensor.concat of `values` along `axis`."""
        t = info(values[0])
        shape = list(t.shape)
        shape[axis] = sum(info(v).shape[axis] for v in values)
        return self.create("tensor.concat", [TensorInfo(tuple(shape), t.dtype)], values,
                           {"dim": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), axis)}).result

    @_at_loc
    def cast(self, value, dtype: str) -> ir.Value:
        """A float cast to `dtype` (arith.truncf to a narrower type, arith.extf to a wider one)."""
        t = info(value)
        widths = {"f64": 64, "f32": 32, "f16": 16, "bf16": 16}
        if widths[dtype] == widths[t.dtype]:
            raise ValueError(f"no float cast between {t.dtype} and {dtype} of the same width")
        name = "arith.truncf" if widths[dtype] < widths[t.dtype] else "arith.extf"
        return self.create(name, [TensorInfo(t.shape, dtype)], [value]).result

    @_at_loc
    def elementwise(self, name: str, values, result: TensorInfo) -> ir.Value:
        """An upstream elementwise op on tensors (math.absf, arith.maximumf, arith.fptosi...)."""
        return self.create(name, [result], values).result

    @_at_loc
    def splat(self, value: float, t: TensorInfo) -> ir.Value:
        """arith.constant dense<value> of type t (integer element types take whole numbers)."""
        rtype = tensor_type(t.shape, t.dtype)
        if t.dtype == "i1":
            element = ir.BoolAttr.get(bool(value))
        elif t.dtype.startswith(("i", "ui")):
            if value != int(value):
                raise ValueError(f"a constant {value} of integer type {t.dtype}")
            element = ir.IntegerAttr.get(rtype.element_type, int(value))
        else:
            element = ir.FloatAttr.get(rtype.element_type, float(value))
        return self.create("arith.constant", [rtype], [],
                           {"value": ir.DenseElementsAttr.get_splat(rtype, element)}).result

    @_at_loc
    def dense(self, values, t: TensorInfo) -> ir.Value:
        """arith.constant of an array (nested lists of t's shape, or a NumPy array)."""
        rtype = tensor_type(t.shape, t.dtype)
        array = np.ascontiguousarray(np.asarray(values, dtype=numpy_dtype(t.dtype)).reshape(t.shape))
        if t.dtype == "i1":
            array = np.packbits(array, bitorder="little")
            attr = ir.DenseElementsAttr.get(array, type=rtype)
        else:
            attr = ir.DenseElementsAttr.get(array, type=rtype)
        return self.create("arith.constant", [rtype], [], {"value": attr}).result


def _index_array(values) -> ir.ArrayAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.IntegerAttr.get(i64, v) for v in values])


def clone_module(module: ir.Module) -> ir.Module:
    """A copy of `module` in its context (what a compilation transforms, the caller's module
    staying as it is)."""
    copy = module.operation.clone()
    with module.context, module.operation.location:
        new = ir.Module.create()
        for name in copy.attributes:
            new.operation.attributes[name] = copy.attributes[name]
        ip = ir.InsertionPoint(new.body)
        for op in list(copy.regions[0].blocks[0].operations):
            op.operation.detach_from_parent()
            ip.insert(op.operation)
    copy.erase()
    return new


def _symbol(op) -> str:
    from .diagnostics import symbol_text
    return symbol_text(op.operation.attributes["sym_name"])


def declare_global(module, name: str, t: ir.Type, ip: Optional[ir.InsertionPoint] = None):
    """`ml_program.global private @name(#ml_program.extern : t) : t` at the top of the module
    (its value bound when the program is compiled: a weight), or at `ip`."""
    body = module.body if isinstance(module, ir.Module) else module.regions[0].blocks[0]
    return ir.Operation.create(
        "ml_program.global", attributes={
            "sym_name": ir.StringAttr.get(name), "type": ir.TypeAttr.get(t),
            # the extern marker has no Python constructor: built from its (fixed) spelling
            "value": ir.Attribute.parse(f"#ml_program.extern : {t}"),
            "sym_visibility": ir.StringAttr.get("private")},
        ip=ip or ir.InsertionPoint.at_block_begin(body))


class FunctionBuilder:
    """A func.func built op by op in `context` (a new one by default), in a new module or at the
    end of `module` (one module of several functions, sharing the weights' globals): arguments
    as they come (`arg`), extern globals loaded where first used (`weight`), ops through
    `builder` (a Builder at the end of the body, with the current `loc`), `ret` last (it fixes
    the function's type)."""

    def __init__(self, name: str = "forward", context: Optional[ir.Context] = None,
                 module: Optional[ir.Module] = None):
        if module is not None:
            context = module.context
        if context is None:
            from .dialect import make_context
            context = make_context()
        self.context = context
        with context, ir.Location.unknown() as unknown:
            self.module = module if module is not None else ir.Module.create()
            self.fn = func.FuncOp(name, ([], []), ip=ir.InsertionPoint(self.module.body))
            self.block = self.fn.add_entry_block()
            self.builder = Builder(ir.InsertionPoint(self.block), unknown)
        self._arg_attrs: list = []
        self._globals: dict = {          # name -> its type (the module's globals so far)
            _symbol(op): ir.TypeAttr(op.attributes["type"]).value for op in self.module.body.operations
            if op.operation.name == "ml_program.global"}
        self._loads: dict = {}            # name -> the loaded value
        self.returned = False

    @property
    def loc(self) -> ir.Location:
        return self.builder.loc

    @loc.setter
    def loc(self, loc: ir.Location):
        self.builder.loc = loc

    def arg(self, name: Optional[str], t, attributes: Optional[Mapping[str, ir.Attribute]] = None) -> ir.Value:
        """A new argument of type t (TensorInfo or ir.Type), named `name` (its `mla.name`)."""
        with self.loc:
            rtype = _types([t])[0]
            value = self.block.add_argument(rtype, self.loc)
            attrs = dict(attributes or {})
            if name is not None:
                attrs["mla.name"] = ir.StringAttr.get(name)
            self._arg_attrs.append(attrs)
        return value

    def weight(self, name: str, t) -> ir.Value:
        """The value of the extern global `name` (declared and loaded once)."""
        with self.loc:
            rtype = _types([t])[0]
            if name in self._globals and self._globals[name] != rtype:
                raise ValueError(f"weight {name} declared as {self._globals[name]} and {rtype}")
            if name not in self._loads:
                if name not in self._globals:
                    declare_global(self.module, name, rtype, ir.InsertionPoint(self.fn))
                    self._globals[name] = rtype
                self._loads[name] = self.builder.create(
                    "ml_program.global_load_const", [rtype], [],
                    {"global": ir.FlatSymbolRefAttr.get(name)}).result
        return self._loads[name]

    def forget_load(self, name: str):
        """The load of `name` was erased (unused): the next `weight(name)` loads it again."""
        self._loads.pop(name, None)

    def ret(self, values: Sequence[ir.Value]):
        """`return values`: fixes the function's type and its arguments' attributes."""
        with self.loc:
            func.ReturnOp(list(values), loc=self.loc, ip=ir.InsertionPoint(self.block))
            inputs = [a.type for a in self.block.arguments]
            self.fn.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get(inputs, [v.type for v in values]))
            if any(self._arg_attrs):
                self.fn.attributes["arg_attrs"] = ir.ArrayAttr.get(
                    [ir.DictAttr.get(a) for a in self._arg_attrs])
        self.returned = True
        return self.module

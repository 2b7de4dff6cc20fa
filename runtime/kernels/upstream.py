"""The upstream MLIR ops a program of the mla dialect may contain, as CPU steps: slices,
reshapes and concatenations (`tensor`), casts (`arith.truncf`/`extf`/`fptosi`/`sitofp`/`extsi`),
the elementwise pieces of a written-out quant (`math.absf`, `math.roundeven`,
`arith.maximumf`/`minimumf`) and constant loads (`ml_program.global_load_const`).

Their meaning is in their attributes, so each is prepared once from the op: `prepare(op,
globals)` returns a function from operand values to result values. On the device slices and
reshapes are views and a weight load is a resident buffer; here they are NumPy views.
"""
from __future__ import annotations

from typing import Callable, Mapping

import numpy as np
from mlir import ir

from ...dialect.dialect import symbol_text
from ...dialect.types import describe_type, numpy_dtype

PREPARERS: dict[str, Callable] = {}


class UnsupportedOp(Exception):
    """The op (or this form of it) has no CPU step; the message says what is missing."""


def upstream(name: str):
    def register(fn):
        PREPARERS[name] = fn
        return fn
    return register


def prepare(op, globals_: Mapping[str, object]) -> Callable:
    name = op.operation.name
    if name not in PREPARERS:
        raise UnsupportedOp(f"no CPU step for {name} (there are steps for the mla ops, "
                            f"{', '.join(sorted(PREPARERS))} and func.return)")
    return PREPARERS[name](op.operation, globals_)


def _static(op, attribute: str) -> list[int]:
    values = list(op.attributes[attribute])
    if ir.ShapedType.get_dynamic_size() in values or len(op.operands) > 1:
        raise UnsupportedOp(f"{op.name} with dynamic {attribute.replace('static_', '')} "
                            "(the CPU steps take static slices)")
    return values


def _result_shape(op, index=0) -> tuple:
    return describe_type(op.results[index].type).shape


def _nd_operand(op):
    if describe_type(op.operands[0].type).format != "ND":
        raise UnsupportedOp(f"{op.name} of a FRACTAL_NZ tensor (cast it to ND first)")


@upstream("tensor.extract_slice")
def extract_slice(op, globals_):
    _nd_operand(op)
    offsets, sizes, strides = (_static(op, a) for a in ("static_offsets", "static_sizes", "static_strides"))
    index = tuple(slice(o, o + s * t, t) for o, s, t in zip(offsets, sizes, strides))
    shape = _result_shape(op)                     # rank-reducing slices drop unit dims
    return lambda x: (x[index].reshape(shape),)


def _reshape(op, globals_):
    _nd_operand(op)
    shape = _result_shape(op)
    if shape.count(None) > 1:
        raise UnsupportedOp(f"{op.name} with more than one dynamic result dimension")
    target = tuple(-1 if d is None else d for d in shape)
    return lambda x: (np.reshape(x, target),)


upstream("tensor.expand_shape")(_reshape)
upstream("tensor.collapse_shape")(_reshape)


@upstream("tensor.concat")
def concat(op, globals_):
    axis = op.attributes["dim"].value
    return lambda *xs: (np.concatenate(xs, axis=axis),)


def _cast(op, globals_):
    _nd_operand(op)
    dtype = numpy_dtype(str(op.results[0].type.element_type))
    return lambda x: (np.asarray(x).astype(dtype),)   # round to nearest even (truncf's default)


for _name in ("arith.truncf", "arith.extf", "arith.fptosi", "arith.sitofp", "arith.extsi", "arith.trunci"):
    upstream(_name)(_cast)          # float -> int truncates toward zero, as fptosi


def _elementwise(fn):
    def prepare_op(op, globals_):
        _nd_operand(op)
        dtype = numpy_dtype(str(op.results[0].type.element_type))
        return lambda *xs: (fn(*xs).astype(dtype),)
    return prepare_op


upstream("math.absf")(_elementwise(np.abs))
upstream("math.roundeven")(_elementwise(np.rint))
upstream("arith.maximumf")(_elementwise(np.maximum))      # NaN propagates, as maximumf
upstream("arith.minimumf")(_elementwise(np.minimum))


@upstream("arith.constant")
def constant(op, globals_):
    attr = op.attributes["value"]
    t = describe_type(op.results[0].type)
    if not isinstance(attr, ir.DenseElementsAttr):
        raise UnsupportedOp("arith.constant of a value that is not a dense tensor")
    if attr.is_splat:
        value = np.full(t.shape, attr.get_splat_value().value, numpy_dtype(t.dtype))
    else:                 # a table (fold-constants makes it a global for the lowered program)
        from ...lowering.program import dense_value  # bf16 too (the bindings' buffers have no bf16)
        value = dense_value(attr)
    value.flags.writeable = False
    return lambda: (value,)


@upstream("ml_program.global_load_const")
def global_load_const(op, globals_):
    name = symbol_text(op.attributes["global"])
    if name not in globals_:
        raise UnsupportedOp(f"ml_program.global_load_const @{name}: no value is bound to this "
                            "global (compile the program with weights={...})")
    value = globals_[name]
    return lambda: (value,)

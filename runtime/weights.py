"""Values of a module's ml_program globals: binding them (what `ascend_mla.compile(weights=...)`
does before the passes run; each value checked against its global's type), and reading and
writing them as initializers (what mla-opt does around fold-constants)."""
from __future__ import annotations

import numpy as np
from mlir import ir

from ..dialect.dialect import symbol_text
from ..dialect.types import TypeDescriptionError, describe_type, numpy_dtype
from ..lowering.program import dense_value
from ..passes.weights import WeightTable, ops_of
from .formats import NZTensor, describe_value


def bind_globals(module, table: WeightTable, given=()) -> list[str]:
    """Bind the module's globals: extern ones from `table` (checked against their type), ones
    with a splat initializer from it. Returns the problems (a global without a value, a value
    whose type is not the global's, a name in `given` that is no global of the module); empty
    when every global is bound."""
    names = {symbol_text(op.attributes["sym_name"])
             for op in ops_of(module.body) if op.name == "ml_program.global"}
    problems = [f"weight {name!r}: the module has no global of this name"
                + (f" (its globals: {', '.join(sorted(names)[:6])}{' ...' if len(names) > 6 else ''})"
                   if names else " (it has no ml_program.global)")
                for name in given if name not in names]
    for op in ops_of(module.body):
        if op.name != "ml_program.global":
            continue
        name = symbol_text(op.attributes["sym_name"])
        try:
            declared = describe_type(op.attributes["type"].value)
        except TypeDescriptionError as e:           # an unranked or foreign-encoded global
            problems.append(f"global {name!r}: {e}")
            continue
        initial = op.attributes["value"]
        if isinstance(initial, ir.DenseElementsAttr):
            if not initial.is_splat:
                problems.append(f"global {name!r}: only splat initializers are supported; bind "
                                "other values as weights (an extern global)")
                continue
            value = np.full(declared.shape, float(initial.get_splat_value().value), numpy_dtype(declared.dtype))
            table.bind(name, value)
            continue
        if name not in table:
            problems.append(f"weight {name!r}: no value given for this global ({declared})")
            continue
        value = table[name]
        try:
            actual = describe_value(name, value)
        except ValueError as e:
            problems.append(f"weight {name!r}: {e}")
            continue
        if isinstance(value, NZTensor) != declared.is_nz or (actual.shape, actual.dtype) != (declared.shape, declared.dtype):
            problems.append(f"weight {name!r}: the global is {declared}, the value is {actual}")
    return problems


def initial_values(module) -> WeightTable:
    """The values of the module's globals that have a dense initializer, by name: the weights
    mla-opt hands the passes when it runs on text (fold-constants evaluates with them)."""
    table = WeightTable()
    for op in ops_of(module.body):
        if op.name == "ml_program.global" and "is_mutable" not in op.attributes \
                and isinstance(op.attributes["value"], ir.DenseElementsAttr):
            table.bind(symbol_text(op.attributes["sym_name"]), dense_value(op.attributes["value"]))
    return table


def write_initial_values(module, table: WeightTable):
    """Give each extern global whose value the table holds (a global fold-constants made) that
    value as its initializer, so that the printed IR carries what was computed."""
    for op in ops_of(module.body):
        if op.name != "ml_program.global" or isinstance(op.attributes["value"], ir.DenseElementsAttr):
            continue
        name = symbol_text(op.attributes["sym_name"])
        if name not in table:
            continue
        value = table[name]
        array = np.ascontiguousarray(value.to_nd() if isinstance(value, NZTensor) else value)
        op.attributes["value"] = ir.DenseElementsAttr.get(array, type=op.attributes["type"].value)

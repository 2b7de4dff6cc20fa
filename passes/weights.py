"""Weights as constants: the table of values a compiled program binds to its ml_program
globals, and the small module-walking helpers the constant passes share.

A model's weights are extern globals (`ml_program.global private @"model...q_a_proj.weight"
(#ml_program.extern : tensor<1536x7168xbf16>)`, loaded with ml_program.global_load_const);
`ascend_mla.compile(..., weights=...)` binds their values (a WeightTable, checked against the
globals' types by runtime/weights.py bind_globals) and hands the table to the passes
(PassInputs.weights): fold-constants adds the globals it computes, cleanup drops the ones no one
uses.
"""
from __future__ import annotations

import numpy as np
from mlir import ir

from ..dialect.dialect import symbol_text


class WeightTable(dict):
    """name -> array (NumPy, or NZTensor for a FRACTAL_NZ global): the values of a program's
    ml_program globals, handed to the passes that read or add them (PassInputs.weights).
    Values are made read-only: they are constants."""

    def bind(self, name, value):
        if isinstance(value, np.ndarray) and value.flags.writeable:
            value = value.view()
            value.flags.writeable = False
        self[name] = value


def ops_of(block) -> list:
    """The block's ops as Operations (an OpView's `.name` may be its symbol, not its op name)."""
    return [op.operation for op in block.operations]


def bodies(module) -> list:
    """The entry blocks of the module's functions that have a body (not declarations)."""
    return [fn.regions[0].blocks[0] for fn in ops_of(module.regions[0].blocks[0])
            if fn.name == "func.func" and len(fn.regions[0].blocks)]


def declare_global(module, name: str, t: ir.Type):
    """`ml_program.global private @name(#ml_program.extern : t) : t` at the top of the module."""
    return ir.Operation.create(
        "ml_program.global", attributes={
            "sym_name": ir.StringAttr.get(name), "type": ir.TypeAttr.get(t),
            "value": ir.Attribute.parse(f"#ml_program.extern : {t}"),
            "sym_visibility": ir.StringAttr.get("private")},
        ip=ir.InsertionPoint.at_block_begin(module.regions[0].blocks[0]))


def symbols(module) -> set:
    """Every symbol name defined at the top of the module (globals, functions)."""
    return {symbol_text(op.attributes["sym_name"]) for op in ops_of(module.regions[0].blocks[0])
            if "sym_name" in op.attributes}

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

from ..dialect.builder import declare_global  # noqa: F401 (fold-constants declares with it)
from ..dialect.dialect import symbol_text


class WeightTable(dict):
    """name -> array (NumPy, or NZTensor for a FRACTAL_NZ global): the values of a program's
    ml_program globals, handed to the passes that read or add them (PassInputs.weights).

    Values are the program's constants: an ND array is bound as a read-only array over the
    same memory (no copy) whose bases are all read-only too, so the kernels may keep forms
    converted from it once (a weight packed for the GEMM; runtime/kernels/gemm.py
    `is_constant`), as they do for NZ weights. The contract (docs/api.md 5): a bound weight
    does not change; writing into the caller's array after compile() has no defined effect on
    the program (compile again to change weights)."""

    def bind(self, name, value):
        if isinstance(value, np.ndarray):
            value = constant_array(value)
        self[name] = value


def constant_array(array: np.ndarray) -> np.ndarray:
    """`array` as a read-only array over the same memory whose every base is read-only (a
    writeable base would let the memory change under a converted form). A layout that cannot
    be seen as one block of memory (a strided slice) stays a read-only view of the caller's
    array: the kernels then convert it on each call, as before."""
    if is_frozen(array):
        return array
    if array.flags.c_contiguous:
        block, transposed = array, False
    elif array.flags.f_contiguous:
        block, transposed = array.T, True
    else:
        view = array.view()
        view.flags.writeable = False
        return view
    memory = memoryview(block.reshape(-1).view(np.uint8)).toreadonly()
    frozen = np.frombuffer(memory, np.uint8).view(block.dtype).reshape(block.shape)
    return frozen.T if transposed else frozen


def is_frozen(array) -> bool:
    """Can the memory of `array` not change: it and every array it views are read-only? (What
    makes a weight a constant whose converted forms the kernels may keep.)"""
    while isinstance(array, np.ndarray):
        if array.flags.writeable:
            return False
        array = array.base
    return True


def ops_of(block) -> list:
    """The block's ops as Operations (an OpView's `.name` may be its symbol, not its op name)."""
    return [op.operation for op in block.operations]


def bodies(module) -> list:
    """The entry blocks of the module's functions that have a body (not declarations)."""
    return [fn.regions[0].blocks[0] for fn in ops_of(module.regions[0].blocks[0])
            if fn.name == "func.func" and len(fn.regions[0].blocks)]


def symbols(module) -> set:
    """Every symbol name defined at the top of the module (globals, functions)."""
    return {symbol_text(op.attributes["sym_name"]) for op in ops_of(module.regions[0].blocks[0])
            if "sym_name" in op.attributes}

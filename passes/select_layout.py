"""select-layout: storage formats for the weights.

The fused ops take the FRACTAL_NZ weights their documents require (the fusion passes put an
mla.format_cast in front of each, since the op is not valid without it). This pass chooses the
rest, as a deployment on the device does at load time (torch_npu.npu_format_cast(w, 29) on the
linear weights): a constant weight of an unfused mla.matmul / mla.quant_matmul is read as
FRACTAL_NZ, and casts that undo each other disappear. fold-constants then packs every constant
cast once, at compile time.

Patterns (one op each, applied by MLIR's greedy driver):
  matmul(x, w constant ND)          -> matmul(x, format_cast<NZ>(w))       option matmul-nz
  format_cast(format_cast(x)) where the result has x's format -> x
  format_cast(x) to x's own format  -> x
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import rewrite

from ..dialect.dialect import opdef_of
from ..dialect.primitive import FormatCast
from ..dialect.types import FRACTAL_NZ
from .pattern import defining_op, is_constant, operand_at
from .registry import ModulePass, option, register_pass
from .rewrite import Builder, info


def weight_to_nz(op, rewriter):
    """A constant ND weight of a matmul -> FRACTAL_NZ (the device's matmul reads NZ weights)."""
    w = operand_at(op, "w")
    t = info(w)
    if t.format == FRACTAL_NZ or t.rank != 2 or not is_constant(w):
        return True                                   # no match
    build = Builder(rewriter.ip, op.location)
    opdef = opdef_of(op)
    operands = {o.name: operand_at(op, o.name) for o in opdef.operands}
    operands["w"] = build.nz(w)
    new = build.op(opdef, operands, {}, [info(r) for r in op.results])
    rewriter.replace_op(op, new.results)
    return None


def cancel_casts(op, rewriter):
    """format_cast of a value to its own format, or back to the format it was cast from."""
    x = op.operands[0]
    source = defining_op(x) if defining_op(x) is not None and defining_op(x).name == "mla.format_cast" else None
    if info(x).format == info(op.results[0]).format:
        rewriter.replace_op(op, [x])
        return None
    if source is not None and info(source.operands[0]) == info(op.results[0]):
        rewriter.replace_op(op, [source.operands[0]])
        return None
    return True


@register_pass
@dataclass
class SelectLayout(ModulePass):
    name = "select-layout"
    summary = "Choose storage formats: FRACTAL_NZ weights, no casts that cancel"
    matmul_nz: bool = option(True, "read constant weights of unfused matmuls as FRACTAL_NZ")

    def apply(self, module, inputs):
        matmul_nz = self.matmul_nz
        patterns = rewrite.RewritePatternSet()
        patterns.add(FormatCast.name, cancel_casts)
        if matmul_nz:
            patterns.add("mla.matmul", weight_to_nz)
            patterns.add("mla.quant_matmul", weight_to_nz)
        rewrite.apply_patterns_and_fold_greedily(module, patterns.freeze())

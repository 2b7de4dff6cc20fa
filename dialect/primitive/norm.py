"""Primitive ops: mla.rms_norm."""
from __future__ import annotations

from ..opdef import OpDef, f64, operand
from ..registry import MLA
from ..rules import RuleSet
from ..traits import PURE
from ..types import TensorInfo
from .checks import FLOAT_TYPES, differs, nd_only

# --- mla.rms_norm ----------------------------------------------------------------------------
# y = x / sqrt(mean(x^2, last axis) + epsilon) * gamma, computed in float32 (numerics.md 3).

rms_norm_rules = RuleSet()


@rms_norm_rules.rule("RMS-001", "x")
def x_rank(op, s):
    if op.x.rank < 1:
        return "expected a tensor of rank >= 1 (the normalised axis is the last one)"


@rms_norm_rules.rule("RMS-002", "x")
def x_dtype(op, s):
    if op.x.dtype not in FLOAT_TYPES:
        return f"expected element type bf16, f16 or f32, got {op.x.dtype}"


@rms_norm_rules.rule("RMS-003", "gamma")
def gamma_shape(op, s):
    if differs(op.gamma.shape, (s.H,)):
        return f"expected shape ({s.H},) (the last dimension of x), got {op.gamma.shape}"


@rms_norm_rules.rule("RMS-004", "gamma")
def gamma_dtype(op, s):
    if op.gamma.dtype not in FLOAT_TYPES:
        return f"expected element type bf16, f16 or f32, got {op.gamma.dtype}"


rms_norm_rules.rule("RMS-007", "gamma")(nd_only("gamma"))   # x may be FRACTAL_NZ (normalised row by row)


@rms_norm_rules.rule("RMS-005", "epsilon")
def epsilon_positive(op, s):
    if not op.epsilon > 0:
        return f"must be > 0, got {op.epsilon}"
    if op.epsilon == float("inf"):       # every output would be 0
        return f"must be finite, got {op.epsilon}"


@rms_norm_rules.rule("RMS-006", "y")
def result_type(op, s):
    if differs(op.y.shape, op.x.shape) or op.y.format != op.x.format:
        return f"expected the shape of x {op.x}, got {op.y}"
    if op.y.dtype not in FLOAT_TYPES:
        return f"expected element type bf16, f16 or f32, got {op.y.dtype}"


RmsNorm = MLA.add(OpDef(
    "mla.rms_norm",
    traits=(PURE,),
    operands=[operand("x"), operand("gamma")],
    attributes=[f64("epsilon", default=1e-5)],
    results=["y"],
    rules=rms_norm_rules,
    symbols={"H": lambda op, s: op.x.shape[-1]},
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape, op.x.dtype, op.x.format)},
    summary="RmsNorm over the last axis, float32 arithmetic, result rounded to its type",
))

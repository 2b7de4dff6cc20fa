"""Primitive ops: mla.add, mla.mul, mla.div (elementwise) and mla.mean, mla.amax, mla.rsqrt (the pieces of a written-out RmsNorm and dynamic quant)."""
from __future__ import annotations

from ..opdef import OpDef, operand
from ..registry import MLA
from ..rules import RuleSet, shape_text
from ..traits import PURE
from ..types import TensorInfo
from .checks import FLOAT_TYPES, INDEX_TYPES, broadcast, dtype_in, nd_only, rank_at_least, result_is

# --- elementwise: mla.add, mla.mul, mla.div ----------------------------------------------------
# NumPy broadcasting, float32 arithmetic, one rounding to the result type. mla.add and mla.mul
# also take two integer operands of one type (i32, i64: positions, lengths, counters) and then
# compute exactly in that type, wrapping on overflow as torch and aclnnAdd/aclnnMul do.

def _elementwise(name, formula, integers=()):
    rules = RuleSet()
    rules.rule("EW-001", "x")(dtype_in("x", FLOAT_TYPES + integers))
    rules.rule("EW-001", "y")(dtype_in("y", FLOAT_TYPES + integers))

    @rules.rule("EW-002", "y")
    def operands_broadcast(op, s):
        if broadcast(op.x.shape, op.y.shape) is None:
            return f"expected a shape that broadcasts with x {shape_text(op.x.shape)}, got {shape_text(op.y.shape)}"

    rules.rule("EW-003", "x")(nd_only("x"))
    rules.rule("EW-003", "y")(nd_only("y"))

    rules.rule("EW-004", "z")(result_is("z", lambda op, s: broadcast(op.x.shape, op.y.shape), FLOAT_TYPES + integers))
    if integers:
        @rules.rule("EW-005", "y")
        def one_kind(op, s):
            if (op.x.dtype in integers or op.y.dtype in integers) and op.x.dtype != op.y.dtype:
                return f"expected {op.x.dtype} (integer operands have one type), got {op.y.dtype}"

        @rules.rule("EW-006", "z")
        def integer_result(op, s):
            if (op.x.dtype in integers) != (op.z.dtype in integers) or (op.x.dtype in integers and op.z.dtype != op.x.dtype):
                return f"expected {op.x.dtype if op.x.dtype in integers else 'a float type'} (integer arithmetic " \
                       f"stays in its type, float arithmetic in floats), got {op.z.dtype}"
    return MLA.add(OpDef(
        name, traits=(PURE,), operands=[operand("x"), operand("y")], results=["z"], rules=rules,
        infer_results=lambda op, s: {"z": TensorInfo(broadcast(op.x.shape, op.y.shape), op.x.dtype)},
        summary=f"{formula} with NumPy broadcasting, float32 arithmetic, one rounding"
                + (" (integers: exact, in their type)" if integers else "")))


Add = _elementwise("mla.add", "x + y", INDEX_TYPES)
Mul = _elementwise("mla.mul", "x * y", INDEX_TYPES)
Div = _elementwise("mla.div", "x / y")


# --- mla.mean, mla.rsqrt, mla.amax ------------------------------------------------------------
# The two pieces of a written-out RmsNorm (Hugging Face's DeepseekV3RMSNorm: x * rsqrt(mean(x^2) +
# eps)) that are not elementwise products: imported PyTorch code holds them until raise-rms-norm
# makes one mla.rms_norm of the whole (passes/raise_primitives.py). float32, one rounding.
#   mla.mean   y = mean(x, last axis, keepdim): (..., H) -> (..., 1)       torch.mean(x, -1, True)
#   mla.rsqrt  y = 1 / sqrt(x)                                             torch.rsqrt
#   mla.amax   y = max(x, last axis, keepdim): (..., H) -> (..., 1)        torch.amax(x, -1, True)
# mla.amax is the row maximum of a written-out dynamic quant (max |x| / 127), until raise-quant
# makes one mla.dynamic_quant of it (passes/raise_quant.py); exact, rounded only to its type.

def _last_axis_reduction(name, prefix, summary):
    rules = RuleSet()
    rules.rule(f"{prefix}-001", "x")(rank_at_least("x", 1, " (the reduced axis is the last one)"))
    rules.rule(f"{prefix}-002", "x")(dtype_in("x", FLOAT_TYPES))
    rules.rule(f"{prefix}-003", "x")(nd_only("x"))
    rules.rule(f"{prefix}-004", "y")(result_is("y", lambda op, s: op.x.shape[:-1] + (1,), FLOAT_TYPES))
    return MLA.add(OpDef(
        name, traits=(PURE,), operands=[operand("x")], results=["y"], rules=rules,
        infer_results=lambda op, s: {"y": TensorInfo(op.x.shape[:-1] + (1,), op.x.dtype)},
        summary=summary))


Mean = _last_axis_reduction("mla.mean", "MEAN",
                            "mean over the last axis, kept as a dimension of 1, float32 sum, one rounding")
Amax = _last_axis_reduction("mla.amax", "AMAX", "maximum over the last axis, kept as a dimension of 1")

rsqrt_rules = RuleSet()
rsqrt_rules.rule("RSQ-001", "x")(dtype_in("x", FLOAT_TYPES))
rsqrt_rules.rule("RSQ-002", "x")(nd_only("x"))
rsqrt_rules.rule("RSQ-003", "y")(result_is("y", lambda op, s: op.x.shape, FLOAT_TYPES))

Rsqrt = MLA.add(OpDef(
    "mla.rsqrt",
    traits=(PURE,),
    operands=[operand("x")],
    results=["y"],
    rules=rsqrt_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape, op.x.dtype)},
    summary="1 / sqrt(x) elementwise, float32, one rounding",
))

"""Primitive ops: mla.dynamic_quant (and npu_dynamic_quant's torch_npu rules, profile PT), mla.quantize."""
from __future__ import annotations

from ..opdef import OpDef, operand, optional, string
from ..registry import MLA
from ..rules import RuleSet, shape_text
from ..traits import PURE
from ..types import TensorInfo
from .checks import FLOAT_TYPES, broadcasts_to, differs, dtype_in, nd_only, rank_at_least, result_is

# --- mla.dynamic_quant -------------------------------------------------------------------------
# Per row over the last axis: z = x * smooth (smooth optional), scale = max|z| / 127,
#   rounding "half_even" (npu_dynamic_quant): y = rint(z / scale)
#   rounding "half_away" (the MLA prolog's query quant, numerics.md 9): y = round(z * 127 / max|z|)
# A zero row gives scale 0 and y 0. y is i8 (x's shape), scale f32 (x's shape without the last).

DQ_ROUNDING = ("half_even", "half_away")
dynamic_quant_rules = RuleSet()
dynamic_quant_rules.rule("DQ-001", "x")(rank_at_least("x", 1))
dynamic_quant_rules.rule("DQ-002", "x")(dtype_in("x", FLOAT_TYPES))


@dynamic_quant_rules.rule("DQ-003", "smooth_scales")
def dq_smooth(op, s):
    h = op.x.shape[-1]
    if op.smooth_scales is not None and (op.smooth_scales.dtype not in FLOAT_TYPES or (
            differs(op.smooth_scales.shape, (h,)) and differs(op.smooth_scales.shape, (1, h)))):
        return f"expected a float tensor of shape ({h},) or (1, {h}) (one factor per column), got {op.smooth_scales}"


@dynamic_quant_rules.rule("DQ-004", "rounding")
def dq_rounding(op, s):
    if op.rounding not in DQ_ROUNDING:
        return f"expected \"half_even\" or \"half_away\", got {op.rounding!r}"


dynamic_quant_rules.rule("DQ-005", "x")(nd_only("x"))
dynamic_quant_rules.rule("DQ-005", "smooth_scales")(nd_only("smooth_scales"))
dynamic_quant_rules.rule("DQ-006", "y")(result_is("y", lambda op, s: op.x.shape, ("i8",)))
dynamic_quant_rules.rule("DQ-007", "scale")(result_is("scale", lambda op, s: op.x.shape[:-1], ("f32",)))

PT, HALF_TYPES = "PT", ("bf16", "f16")    # torch_npu's profile (ascend_mla.ops)

# npu_dynamic_quant (torch_npu-npu_dynamic_quant.md): x f16/bf16 of rank > 1; smooth_scales a 1-D
# tensor of x's last dim, f16/bf16. (group_index, int4 and the other quant modes: ascend_mla.ops
# refuses them, DQ-010.)

@dynamic_quant_rules.rule("DQ-008", "x", profiles=PT)
def torch_dynamic_quant_x(op, s):
    if op.x.rank < 2 or op.x.dtype not in HALF_TYPES:
        return f"expected an f16 or bf16 tensor of rank > 1 (torch_npu), got {op.x}"


@dynamic_quant_rules.rule("DQ-009", "smooth_scales", profiles=PT)
def torch_dynamic_quant_smooth(op, s):
    t = op.smooth_scales
    if t is not None and (t.shape != op.x.shape[-1:] or t.dtype not in HALF_TYPES):
        return (f"expected a 1-D f16 or bf16 tensor ({op.x.shape[-1]},) (torch_npu, without "
                f"group_index), got {t}")


DynamicQuant = MLA.add(OpDef(
    "mla.dynamic_quant",
    traits=(PURE,),
    operands=[operand("x"), optional("smooth_scales")],
    attributes=[string("rounding", default="half_even")],
    results=["y", "scale"],
    rules=dynamic_quant_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape, "i8"),
                                 "scale": TensorInfo(op.x.shape[:-1], "f32")},
    summary="symmetric per-row int8 quantization with a computed scale (max|x| / 127)",
))


# --- mla.quantize ------------------------------------------------------------------------------
# y = saturate_int8(rint(x * scale)): static symmetric quantization, the scale multiplies
# (numerics.md 6). scale broadcasts against x: per tensor (1,) or per channel (..., H).

quantize_rules = RuleSet()
quantize_rules.rule("QNT-001", "x")(dtype_in("x", FLOAT_TYPES))
quantize_rules.rule("QNT-002", "scale")(dtype_in("scale", ("f32",)))


@quantize_rules.rule("QNT-003", "scale")
def quantize_scale_broadcast(op, s):
    if not broadcasts_to(op.scale.shape, op.x.shape):
        return f"expected a shape that broadcasts to x {shape_text(op.x.shape)}, got {shape_text(op.scale.shape)}"


quantize_rules.rule("QNT-004", "x")(nd_only("x"))
quantize_rules.rule("QNT-004", "scale")(nd_only("scale"))
quantize_rules.rule("QNT-005", "y")(result_is("y", lambda op, s: op.x.shape, ("i8",)))

Quantize = MLA.add(OpDef(
    "mla.quantize",
    traits=(PURE,),
    operands=[operand("x"), operand("scale")],
    results=["y"],
    rules=quantize_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape, "i8")},
    summary="static symmetric int8 quantization: saturate(rint(x * scale))",
))

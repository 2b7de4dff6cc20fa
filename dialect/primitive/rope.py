"""Primitive ops: mla.rope."""
from __future__ import annotations

from ..dialect import MLA
from ..opdef import OpDef, operand, string
from ..rules import RuleSet, shape_text
from ..types import TensorInfo
from .checks import FLOAT_TYPES, broadcasts_to, differs, dtype_in, nd_only, result_is


# --- mla.rope ----------------------------------------------------------------------------------
# mode "interleave" (npu_interleave_rope; DeepSeek): de-interleave x's pairs, then
#   out = xd * cos + rotate_half(xd) * sin   -- the output stays de-interleaved (numerics.md 4).
# mode "half" (rotate_half RoPE, npu_rotary_mul): out = x * cos + rotate_half(x) * sin.
# cos, sin broadcast against x (NumPy rules). float32, one rounding.

ROPE_MODES = ("interleave", "half")
rope_rules = RuleSet()
rope_rules.rule("ROPE-001", "x")(dtype_in("x", FLOAT_TYPES))


@rope_rules.rule("ROPE-002", "x")
def rope_even(op, s):
    if op.x.rank < 1 or op.x.shape[-1] is not None and op.x.shape[-1] % 2:
        return f"expected rank >= 1 and an even last dimension (pairs of features), got {op.x}"


rope_rules.rule("ROPE-003", "cos")(dtype_in("cos", FLOAT_TYPES))
rope_rules.rule("ROPE-003", "sin")(dtype_in("sin", FLOAT_TYPES))


@rope_rules.rule("ROPE-004", "cos")
def rope_tables_broadcast(op, s):
    if differs(op.cos.shape, op.sin.shape) or op.cos.dtype != op.sin.dtype:
        return f"expected the type of sin ({op.sin}), got {op.cos}"
    if op.cos.rank < 1 or differs(op.cos.shape[-1:], op.x.shape[-1:]) or not broadcasts_to(op.cos.shape, op.x.shape):
        return (f"expected a shape that broadcasts to x {shape_text(op.x.shape)} with the same "
                f"last dimension, got {shape_text(op.cos.shape)}")


@rope_rules.rule("ROPE-005", "mode")
def rope_mode(op, s):
    if op.mode not in ROPE_MODES:
        return f"expected \"interleave\" or \"half\", got {op.mode!r}"


for _name in ("x", "cos", "sin"):
    rope_rules.rule("ROPE-006", _name)(nd_only(_name))
rope_rules.rule("ROPE-007", "y")(result_is("y", lambda op, s: op.x.shape, FLOAT_TYPES))

Rope = MLA.add(OpDef(
    "mla.rope",
    operands=[operand("x"), operand("cos"), operand("sin")],
    attributes=[string("mode", default="interleave")],
    results=["y"],
    rules=rope_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape, op.x.dtype)},
    summary="rotary position embedding (interleaved pairs, de-interleaved output; or rotate-half)",
))

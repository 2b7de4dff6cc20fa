"""Primitive ops: mla.rope (and npu_interleave_rope's torch_npu rules, profile PT)."""
from __future__ import annotations

from ..opdef import OpDef, operand, string
from ..registry import MLA
from ..rules import RuleSet, shape_text
from ..traits import PURE
from ..types import TensorInfo
from .checks import FLOAT_TYPES, broadcasts_to, differs, dtype_in, nd_only, result_is

# --- mla.rope ----------------------------------------------------------------------------------
# mode "interleave" (npu_interleave_rope; DeepSeek): de-interleave x's pairs, then
#   out = xd * cos + rotate_half(xd) * sin   -- the output stays de-interleaved (numerics.md 4).
# mode "half" (rotate_half RoPE, npu_rotary_mul): out = x * cos + rotate_half(x) * sin.
# cos, sin broadcast against x (NumPy rules). float32, one rounding.

ROPE_PT_D = 64              # npu_interleave_rope: D is 64 (torch_npu-npu_interleave_rope.md)

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


# torch_npu's profile: rules an eager call of the torch_npu function adds (ascend_mla.ops)
PT = "PT"
HALF_TYPES = ("bf16", "f16")

# npu_interleave_rope (torch_npu-npu_interleave_rope.md): x (B, N, S, 64) f16/bf16, cos/sin
# (B, 1, S or 1, 64) of x's type.

@rope_rules.rule("ROPE-008", "x", profiles=PT)
def interleave_rope_x(op, s):
    if op.x.rank != 4 or op.x.shape[-1] != ROPE_PT_D or op.x.dtype not in HALF_TYPES:
        return f"expected a (B, N, S, {ROPE_PT_D}) f16 or bf16 tensor (torch_npu), got {op.x}"


@rope_rules.rule("ROPE-009", "cos", profiles=PT)
def interleave_rope_tables(op, s):
    b, _, seq, d = op.x.shape
    t = op.cos
    if t.rank != 4 or t.shape[0] != b or t.shape[1] != 1 or t.shape[2] not in (1, seq) \
            or t.shape[3] != d or t.dtype != op.x.dtype:
        return f"expected ({b}, 1, 1 or {seq}, {d}) of {op.x.dtype} (torch_npu), got {t}"


@rope_rules.rule("ROPE-010", "mode", profiles=PT)
def interleave_rope_mode(op, s):
    if op.mode != "interleave":
        return f"npu_interleave_rope computes mode \"interleave\", got {op.mode!r}"


Rope = MLA.add(OpDef(
    "mla.rope",
    traits=(PURE,),
    operands=[operand("x"), operand("cos"), operand("sin")],
    attributes=[string("mode", default="interleave")],
    results=["y"],
    rules=rope_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape, op.x.dtype)},
    summary="rotary position embedding (interleaved pairs, de-interleaved output; or rotate-half)",
))

"""Primitive ops: mla.matmul, mla.head_matmul, mla.quant_matmul."""
from __future__ import annotations

from ..dialect import MLA
from ..opdef import OpDef, operand
from ..rules import RuleSet, shape_text
from ..types import TensorInfo
from .checks import FLOAT_TYPES, differs, dtype_in, nd_only, rank_at_least, rank_is, result_is, same_dtype


# --- mla.matmul --------------------------------------------------------------------------------
# y[..., n] = sum_k x[..., k] w[k, n]: a linear layer with its weight as (in, out) = (K, N), i.e.
# nn.Linear.weight.T. w may be FRACTAL_NZ (a packed weight). float32 accumulation, one rounding.
# i32 x i32 -> i32 (torch.matmul of int32 tensors: exact sums, wrapping modulo 2^32): the integer
# product of a written-out w8a8 linear, which raise-quant makes an mla.quant_matmul of.

matmul_rules = RuleSet()
matmul_rules.rule("MM-001", "x")(rank_at_least("x", 1))
matmul_rules.rule("MM-002", "x")(dtype_in("x", FLOAT_TYPES + ("i32",)))
matmul_rules.rule("MM-003", "w")(rank_is("w", 2, " (K, N): the weight as (in, out)"))
matmul_rules.rule("MM-004", "w")(same_dtype("w", "x"))


@matmul_rules.rule("MM-005", "w")
def matmul_inner(op, s):
    if differs((op.w.shape[0],), (op.x.shape[-1],)):
        return f"expected K = {op.x.shape[-1]} rows (the last dimension of x), got {op.w}"


matmul_rules.rule("MM-006", "x")(nd_only("x"))


@matmul_rules.rule("MM-007", "y")
def matmul_result(op, s):
    integer = op.x.dtype == "i32"
    return result_is("y", lambda op, s: op.x.shape[:-1] + op.w.shape[1:],
                     ("i32",) if integer else FLOAT_TYPES)(op, s)


Matmul = MLA.add(OpDef(
    "mla.matmul",
    operands=[operand("x"), operand("w")],
    results=["y"],
    rules=matmul_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape[:-1] + op.w.shape[1:], op.x.dtype)},
    summary="x @ w with w (K, N), float32 accumulation, result rounded to its type",
))


# --- mla.head_matmul ---------------------------------------------------------------------------
# y[..., h, n] = sum_k x[..., h, k] w[h, k, n]: one matrix per head, the absorbed W_uk / W_uv
# products of MLA (DeepSeek: einsum("bshd,hdc->bshc")).

head_matmul_rules = RuleSet()
head_matmul_rules.rule("HMM-001", "x")(rank_at_least("x", 2, " (..., heads, K)"))
head_matmul_rules.rule("HMM-002", "x")(dtype_in("x", FLOAT_TYPES))
head_matmul_rules.rule("HMM-003", "w")(rank_is("w", 3, " (heads, K, N)"))
head_matmul_rules.rule("HMM-004", "w")(same_dtype("w", "x"))


@head_matmul_rules.rule("HMM-005", "w")
def head_matmul_dims(op, s):
    if differs(op.w.shape[:2], op.x.shape[-2:]):
        return (f"expected (heads, K) = {shape_text(op.x.shape[-2:])} (the last two dimensions "
                f"of x), got {op.w}")


head_matmul_rules.rule("HMM-006", "x")(nd_only("x"))
head_matmul_rules.rule("HMM-006", "w")(nd_only("w"))
head_matmul_rules.rule("HMM-007", "y")(result_is("y", lambda op, s: op.x.shape[:-1] + op.w.shape[2:], FLOAT_TYPES))

HeadMatmul = MLA.add(OpDef(
    "mla.head_matmul",
    operands=[operand("x"), operand("w")],
    results=["y"],
    rules=head_matmul_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape[:-1] + op.w.shape[2:], op.x.dtype)},
    summary="per-head x[..., h, :] @ w[h], float32 accumulation, result rounded to its type",
))


# --- mla.quant_matmul --------------------------------------------------------------------------
# y[..., n] = float(sum_k x[..., k] w[k, n]) * x_scale[...] * w_scale[n]: int8 x int8 with exact
# int32 accumulation, dequantized per token and per channel (numerics.md 7), one rounding.

quant_matmul_rules = RuleSet()
quant_matmul_rules.rule("QMM-001", "x")(rank_at_least("x", 1))
quant_matmul_rules.rule("QMM-002", "x")(dtype_in("x", ("i8",)))
quant_matmul_rules.rule("QMM-003", "w")(rank_is("w", 2, " (K, N): the weight as (in, out)"))
quant_matmul_rules.rule("QMM-004", "w")(dtype_in("w", ("i8",)))


@quant_matmul_rules.rule("QMM-005", "w")
def quant_matmul_inner(op, s):
    if differs((op.w.shape[0],), (op.x.shape[-1],)):
        return f"expected K = {op.x.shape[-1]} rows (the last dimension of x), got {op.w}"


@quant_matmul_rules.rule("QMM-006", "x_scale")
def quant_matmul_x_scale(op, s):
    tokens = op.x.shape[:-1]
    if op.x_scale.dtype != "f32" or differs(op.x_scale.shape, tokens) and \
            differs(op.x_scale.shape, tokens + (1,)):
        return (f"expected a per-token f32 scale of shape {shape_text(tokens)} or "
                f"{shape_text(tokens + (1,))}, got {op.x_scale}")


@quant_matmul_rules.rule("QMM-007", "w_scale")
def quant_matmul_w_scale(op, s):
    n = op.w.shape[1]
    if op.w_scale.dtype != "f32" or differs(op.w_scale.shape, (n,)) and differs(op.w_scale.shape, (1, n)):
        return f"expected a per-channel f32 scale of shape ({n},) or (1, {n}), got {op.w_scale}"


quant_matmul_rules.rule("QMM-008", "x")(nd_only("x"))
quant_matmul_rules.rule("QMM-008", "x_scale")(nd_only("x_scale"))
quant_matmul_rules.rule("QMM-008", "w_scale")(nd_only("w_scale"))
quant_matmul_rules.rule("QMM-009", "y")(result_is("y", lambda op, s: op.x.shape[:-1] + op.w.shape[1:], FLOAT_TYPES))

QuantMatmul = MLA.add(OpDef(
    "mla.quant_matmul",
    operands=[operand("x"), operand("w"), operand("x_scale"), operand("w_scale")],
    results=["y"],
    rules=quant_matmul_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape[:-1] + op.w.shape[1:], "f32")},
    summary="int8 x @ int8 w, exact int32 sums dequantized per token x per channel",
))

"""Primitive ops: mla.matmul, mla.head_matmul, mla.quant_matmul, mla.transpose_batchmatmul."""
from __future__ import annotations

from ..opdef import OpDef, i64, i64_array, operand
from ..registry import MLA
from ..rules import RuleSet, dim, shape_text
from ..traits import PURE
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
    traits=(PURE,),
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
    traits=(PURE,),
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
    traits=(PURE,),
    operands=[operand("x"), operand("w"), operand("x_scale"), operand("w_scale")],
    results=["y"],
    rules=quant_matmul_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape[:-1] + op.w.shape[1:], "f32")},
    summary="int8 x @ int8 w, exact int32 sums dequantized per token x per channel",
))


# --- mla.transpose_batchmatmul -------------------------------------------------------------------
# y = (x^perm_x1 @ w)^perm_y: a batched product over the batch axis 0 of x^perm_x1 (B, M, K) and
# w (B, K, N), float32 sums, one rounding, output (M, B, N) -- perm_y is [1, 0, 2], the only
# value documented. perm_x1 [0, 1, 2] reads x as (B, M, K), [1, 0, 2] as (M, B, K) (vLLM-Ascend:
# the attention output (N, B, 512) times W_uv (N, 512, 128) -> (B, N, 128)). Sources:
# torch_npu-npu_transpose_batchmatmul.md (perm_x2 only [0, 1, 2], perm_y only [1, 0, 2], K and N
# multiples of 16, bias "not supported yet"), TransposeBatchMatMulKernelNpuOpApi.cpp (output
# (M, B, N), with batch_split_factor f > 1 (f, M, B*N/f); aclnnTransposeBatchMatMul). The int8
# output of `scale` is not modelled (ascend_mla.ops refuses it, TBMM-009).

TBMM_TYPES = ("bf16", "f16", "f32")
tbmm_rules = RuleSet()
tbmm_rules.rule("TBMM-001", "x")(rank_is("x", 3, " (B, M, K) or (M, B, K)"))
tbmm_rules.rule("TBMM-002", "x")(dtype_in("x", TBMM_TYPES))
tbmm_rules.rule("TBMM-001", "w")(rank_is("w", 3, " (B, K, N)"))
tbmm_rules.rule("TBMM-002", "w")(same_dtype("w", "x"))


@tbmm_rules.rule("TBMM-003", "perm_x1")
def tbmm_perm_x1(op, s):
    if list(op.perm_x1) not in ([0, 1, 2], [1, 0, 2]):
        return f"expected [0, 1, 2] or [1, 0, 2], got {list(op.perm_x1)}"


@tbmm_rules.rule("TBMM-003", "perm_x2")
def tbmm_perm_x2(op, s):
    if list(op.perm_x2) != [0, 1, 2]:
        return f"expected [0, 1, 2] (the only value documented), got {list(op.perm_x2)}"


@tbmm_rules.rule("TBMM-003", "perm_y")
def tbmm_perm_y(op, s):
    if list(op.perm_y) != [1, 0, 2]:
        return f"expected [1, 0, 2] (the only value documented), got {list(op.perm_y)}"


def _bmk(op):
    """x read as (B, M, K) through perm_x1."""
    x = op.x.shape
    return (x[1], x[0], x[2]) if list(op.perm_x1) == [1, 0, 2] else x


@tbmm_rules.rule("TBMM-004", "w")
def tbmm_dims(op, s):
    b, _, k = _bmk(op)
    if differs(op.w.shape[:2], (b, k)):
        return (f"expected (B, K) = ({b}, {k}) (x's batch and reduce dims through perm_x1), "
                f"got {op.w}")


@tbmm_rules.rule("TBMM-005", "w")
def tbmm_alignment(op, s):
    k, n = dim(op.w, 1), dim(op.w, 2)
    if k % 16 or n % 16:
        return f"expected K and N multiples of 16, got K = {k}, N = {n}"


tbmm_rules.rule("TBMM-006", "x")(nd_only("x"))
tbmm_rules.rule("TBMM-006", "w")(nd_only("w"))


@tbmm_rules.rule("TBMM-007", "batch_split_factor")
def tbmm_split(op, s):
    n, f = dim(op.w, 2), op.batch_split_factor
    if not 1 <= f <= n or n % f:
        return f"expected a divisor of N = {n} in [1, {n}], got {f}"


def _tbmm_shape(op, s):
    """(M, B, N); split: (factor, M, B*N / factor), the (M, B*N) rows cut in `factor` column
    blocks stacked in front (op-plugin's test golden: reshape (M, factor, -1), transpose)."""
    b, m, _ = _bmk(op)
    n, f = op.w.shape[2], op.batch_split_factor
    return (m, b, n) if f == 1 else (f, m, b * n // f)


tbmm_rules.rule("TBMM-008", "y")(result_is("y", _tbmm_shape, TBMM_TYPES))

TransposeBatchMatmul = MLA.add(OpDef(
    "mla.transpose_batchmatmul",
    traits=(PURE,),
    operands=[operand("x"), operand("w")],
    attributes=[i64_array("perm_x1", default=(0, 1, 2)), i64_array("perm_x2", default=(0, 1, 2)),
                i64_array("perm_y", default=(1, 0, 2)), i64("batch_split_factor", default=1)],
    results=["y"],
    rules=tbmm_rules,
    infer_results=lambda op, s: {"y": TensorInfo(_tbmm_shape(op, s), op.x.dtype)},
    summary="batched x @ w over the batch axis, x read through perm_x1, output (M, B, N)",
))

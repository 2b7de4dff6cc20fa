"""Primitive ops of the rest of a decoder layer: the SwiGLU MLP and DeepSeek's MoE.

The attention half of a layer is written in the ops of dialect/primitive.py; these are the
pieces of the other half, each the standard kernel an Ascend serving stack calls for it
(torch_npu schema / aclnn function, lowering/decoder.py):

    op                       torch_npu                           aclnn                       IDs
    mla.swiglu               npu_swiglu(x, dim)                  aclnnSwiGlu                 SWI-
    mla.moe_gating_top_k     npu_moe_gating_top_k(x, k, bias=..) aclnnMoeGatingTopK          MGT-
    mla.moe_init_routing     npu_moe_init_routing_v2(x, idx)     aclnnMoeInitRoutingV2       MIR-
    mla.grouped_matmul       npu_grouped_matmul([x], [w],        aclnnGroupedMatmulV4        GMM-
                               group_list=, group_list_type=1,
                               [scale=, per_token_scale=])
    mla.moe_finalize_routing npu_moe_finalize_routing(...)       aclnnMoeFinalizeRoutingV2   MFR-

The embedding lookup is mla.gather (aclnnEmbedding), the linear layers mla.matmul, the norms
mla.rms_norm, the residual adds mla.add. A MoE layer (DeepSeek-V3, T tokens, E experts, k per
token) reads:

    logits = f32(x) @ W_gate.T                                  mla.matmul (float32, as HF)
    weights, experts = moe_gating_top_k(logits, bias)           sigmoid, group-limited top-k
    rows, row_idx, counts = moe_init_routing(x, experts)        token copies sorted by expert
    act = swiglu(grouped_matmul(rows, W_gate_up, counts))       each expert's rows x its weight
    routed = grouped_matmul(act, W_down, counts)

Under w8a8 the expert rows are quantized per row (mla.dynamic_quant) before each grouped
matmul, whose int8 form takes the weight's per-channel scales and the rows' scales.
    h = moe_finalize_routing(routed, row_idx, weights, x1 = shared, x2 = residual)

Float arithmetic is float32 with one rounding to each result's type, as everywhere in the
dialect (the device kernels compute in float32 internally and round their outputs).
"""
from __future__ import annotations

from .opdef import OpDef, f64, i64, operand, optional
from .primitive.checks import FLOAT_TYPES, differs, dtype_in, nd_only, rank_is, result_is
from .registry import MLA
from .rules import RuleSet, shape_text
from .traits import PURE
from .types import TensorInfo


def _dims_known(*values) -> bool:
    return all(d is not None for v in values for d in v)


# --- mla.swiglu ------------------------------------------------------------------------------
# y = silu(a) * b with a, b the first and second halves of x along `dim` (aclnnSwiGlu:
# "Swish(A) * B", A the front half). float32 arithmetic, one rounding.

swiglu_rules = RuleSet()
rule = swiglu_rules.rule
rule("SWI-001", "x")(dtype_in("x", FLOAT_TYPES))
rule("SWI-002", "x")(nd_only("x"))


@rule("SWI-003", "dim")
def swiglu_dim(op, s):
    if not -op.x.rank <= op.dim < op.x.rank:
        return f"expected an axis of x in [{-op.x.rank}, {op.x.rank}), got {op.dim}"


@rule("SWI-004", "x")
def swiglu_even(op, s):
    size = op.x.shape[op.dim]
    if size is not None and size % 2:
        return f"expected an even size along dim {op.dim} (two halves), got {op.x}"


def _half(op, s):
    shape = list(op.x.shape)
    d = op.dim % len(shape)
    shape[d] = None if shape[d] is None else shape[d] // 2
    return tuple(shape)


rule("SWI-005", "y")(result_is("y", _half, FLOAT_TYPES))

SwiGlu = MLA.add(OpDef(
    "mla.swiglu",
    traits=(PURE,),
    operands=[operand("x")],
    attributes=[i64("dim", default=-1)],
    results=["y"],
    rules=swiglu_rules,
    infer_results=lambda op, s: {"y": TensorInfo(_half(op, s), op.x.dtype)},
    summary="silu(first half of x) * second half, along dim; float32, one rounding",
))


# --- mla.moe_gating_top_k ----------------------------------------------------------------------
# DeepSeek-V3's router on its logits x (T, E): scores = sigmoid(x) (norm_type 1; softmax for
# 0); choice = scores + bias; the experts split into group_count groups, each group scored by
# its maximum (group_select_mode 0) or the sum of its two best choices (1); the k_group best
# groups stay, the others are masked; the k best choices among them are the experts; their
# (unbiased) scores, divided by their sum + eps (always for sigmoid, for softmax with renorm),
# times routed_scaling_factor, are the weights y. Ties go to the lower index.

gating_rules = RuleSet()
rule = gating_rules.rule
rule("MGT-001", "x")(rank_is("x", 2, " (tokens, experts)"))
rule("MGT-002", "x")(dtype_in("x", FLOAT_TYPES))
rule("MGT-003", "x")(nd_only("x"))


@rule("MGT-004", "bias")
def gating_bias(op, s):
    if op.bias is not None and (differs(op.bias.shape, (s.E,)) or op.bias.dtype != "f32"):
        return f"expected an f32 tensor of shape ({s.E},) (one per expert), got {op.bias}"


@rule("MGT-005", "group_count")
def gating_groups(op, s):
    if op.group_count < 1 or s.E is not None and s.E % op.group_count:
        return f"expected a divisor of the {s.E} experts, got {op.group_count}"


@rule("MGT-006", "k_group")
def gating_k_group(op, s):
    if not 1 <= op.k_group <= op.group_count:
        return f"expected 1 <= k_group <= group_count ({op.group_count}), got {op.k_group}"


@rule("MGT-007", "k")
def gating_k(op, s):
    if s.E is None:
        return None
    reachable = op.k_group * (s.E // op.group_count)
    if not 1 <= op.k <= reachable:
        return (f"expected 1 <= k <= k_group * experts per group ({reachable}: the experts of "
                f"the kept groups), got {op.k}")


@rule("MGT-008", "norm_type")
def gating_norm(op, s):
    if op.norm_type not in (0, 1):
        return f"expected 0 (softmax) or 1 (sigmoid), got {op.norm_type}"


@rule("MGT-009", "group_select_mode")
def gating_select(op, s):
    if op.group_select_mode not in (0, 1):
        return f"expected 0 (group maximum) or 1 (sum of the group's top 2), got {op.group_select_mode}"
    if op.group_select_mode == 1 and s.E is not None and s.E // op.group_count < 2:
        return f"the sum of the top 2 needs >= 2 experts per group, got {s.E // op.group_count}"


@rule("MGT-010", "renorm")
def gating_renorm(op, s):
    if op.renorm not in (0, 1):
        return f"expected 0 or 1, got {op.renorm}"


@rule("MGT-011", "eps")
def gating_eps(op, s):
    if not op.eps >= 0:
        return f"must be >= 0, got {op.eps}"


rule("MGT-012", "y")(result_is("y", lambda op, s: (op.x.shape[0], op.k), FLOAT_TYPES))
rule("MGT-013", "expert_idx")(result_is("expert_idx", lambda op, s: (op.x.shape[0], op.k), ("i32",)))

MoeGatingTopK = MLA.add(OpDef(
    "mla.moe_gating_top_k",
    traits=(PURE,),
    operands=[operand("x"), optional("bias")],
    attributes=[i64("k"), i64("k_group", default=1), i64("group_count", default=1),
                i64("group_select_mode", default=0), i64("renorm", default=0),
                i64("norm_type", default=0), f64("routed_scaling_factor", default=1.0),
                f64("eps", default=1e-20)],
    results=["y", "expert_idx"],
    rules=gating_rules,
    symbols={"E": lambda op, s: op.x.shape[1]},
    infer_results=lambda op, s: {"y": TensorInfo((op.x.shape[0], op.k), op.x.dtype),
                                 "expert_idx": TensorInfo((op.x.shape[0], op.k), "i32")},
    summary="MoE router: sigmoid/softmax scores, group-limited top-k, normalized scaled weights",
))


# --- mla.moe_init_routing ----------------------------------------------------------------------
# Dropless routing (aclnnMoeInitRoutingV2, dropPadMode 0): the T*k (token, choice) pairs,
# flattened row-major (i = t*k + j), sorted stably by expert; expanded_x[p] is the token row of
# the p-th pair in that order, expanded_row_idx[i] the position p of pair i, expert_tokens[e]
# the number of pairs routed to expert e (expertTokensCountOrCumsumFlag 2: counts).

routing_rules = RuleSet()
rule = routing_rules.rule
rule("MIR-001", "x")(rank_is("x", 2, " (tokens, hidden)"))
rule("MIR-002", "x")(dtype_in("x", FLOAT_TYPES))
rule("MIR-003", "expert_idx")(rank_is("expert_idx", 2, " (tokens, k)"))
rule("MIR-004", "expert_idx")(dtype_in("expert_idx", ("i32",)))


@rule("MIR-005", "expert_idx")
def routing_rows(op, s):
    if differs(op.expert_idx.shape[:1], op.x.shape[:1]):
        return f"expected {op.x.shape[0]} rows (the tokens of x), got {op.expert_idx}"


@rule("MIR-006", "expert_num")
def routing_experts(op, s):
    if op.expert_num < 1:
        return f"must be >= 1, got {op.expert_num}"


def _pairs(op):
    t, k = op.expert_idx.shape
    return None if t is None or k is None else t * k


rule("MIR-007", "expanded_x")(result_is("expanded_x", lambda op, s: (_pairs(op), op.x.shape[1]),
                                        dtype_of=lambda op: op.x.dtype))
rule("MIR-008", "expanded_row_idx")(result_is("expanded_row_idx", lambda op, s: (_pairs(op),), ("i32",)))
rule("MIR-009", "expert_tokens")(result_is("expert_tokens", lambda op, s: (op.expert_num,), ("i64",)))


@rule("MIR-010", "expert_idx", kind="runtime")
def routing_ids_in_range(op, s):
    values = op.expert_idx.value
    if values.size and (values.min() < 0 or values.max() >= op.expert_num):
        bad = int(values.min()) if values.min() < 0 else int(values.max())
        return f"value {bad} is outside [0, expert_num) = [0, {op.expert_num})"


MoeInitRouting = MLA.add(OpDef(
    "mla.moe_init_routing",
    traits=(PURE,),
    operands=[operand("x"), operand("expert_idx")],
    attributes=[i64("expert_num")],
    results=["expanded_x", "expanded_row_idx", "expert_tokens"],
    rules=routing_rules,
    infer_results=lambda op, s: {"expanded_x": TensorInfo((_pairs(op), op.x.shape[1]), op.x.dtype),
                                 "expanded_row_idx": TensorInfo((_pairs(op),), "i32"),
                                 "expert_tokens": TensorInfo((op.expert_num,), "i64")},
    summary="dropless MoE routing: token copies sorted by expert, their positions, per-expert counts",
))


# --- mla.grouped_matmul ------------------------------------------------------------------------
# y[r] = x[r] @ w[e] for the rows r of group e: the groups are consecutive runs of rows of the
# sizes group_list[e] (groupListType 1: counts); rows past the last group are zeros.
# The int8 form (W8A8 dynamic: aclnnGroupedMatmulV4's "pertoken + perchannel" quantization) has
# i8 x and w, each group's per-output-channel weight scale (groups, N) and the per-row scale of
# x (rows,) that mla.dynamic_quant gives: y[r, n] = float(sum_k x[r, k] w[e, k, n]) *
# per_token_scale[r] * scale[e, n], exact int32 sums, float32 dequantization, one rounding.
# The document's two combinations with a per-token scale: bf16 scale -> bf16 y, f32 -> f16.

INT8_SCALE = {"bf16": "bf16", "f16": "f32"}      # y's type -> the weight scale's type (int8 form)

gmm_rules = RuleSet()
rule = gmm_rules.rule
rule("GMM-001", "x")(rank_is("x", 2, " (rows, K)"))
rule("GMM-002", "x")(dtype_in("x", FLOAT_TYPES + ("i8",)))
rule("GMM-003", "x")(nd_only("x"))
rule("GMM-004", "w")(rank_is("w", 3, " (groups, K, N)"))


@rule("GMM-005", "w")
def gmm_weight(op, s):
    if op.w.dtype != op.x.dtype or op.w.format != "ND":
        return f"expected an ND tensor of the element type of x ({op.x.dtype}), got {op.w}"
    if differs(op.w.shape[1:2], op.x.shape[1:]):
        return f"expected K = {op.x.shape[1]} (the columns of x) as dimension 1, got {op.w}"


@rule("GMM-006", "group_list")
def gmm_groups(op, s):
    if differs(op.group_list.shape, op.w.shape[:1]) or op.group_list.dtype != "i64":
        return f"expected an i64 tensor of shape ({op.w.shape[0]},) (one count per group), got {op.group_list}"


def _gmm_y(op, s):
    return (op.x.shape[0], op.w.shape[2])


rule("GMM-007", "y")(result_is("y", _gmm_y, FLOAT_TYPES))


@rule("GMM-008", "group_list", kind="runtime")
def gmm_counts(op, s):
    counts = op.group_list.value
    if counts.size and (counts.min() < 0 or counts.sum() > op.x.shape[0]):
        return (f"expected counts >= 0 summing to at most {op.x.shape[0]} (the rows of x), "
                f"got {[int(c) for c in counts.reshape(-1)]}")


@rule("GMM-009", "scale")
def gmm_scale(op, s):
    if op.x.dtype != "i8":
        if op.scale is not None:
            return f"given with {op.x.dtype} x: only the int8 form (i8 x and w) dequantizes"
        return None
    if op.scale is None:
        return "missing: i8 x needs each group's per-channel weight scale (groups, N)"
    want = INT8_SCALE.get(op.y.dtype, "bf16")
    expected = (op.w.shape[0], op.w.shape[2])
    if differs(op.scale.shape, expected) or op.scale.dtype != want or op.scale.format != "ND":
        return (f"expected an ND {want} tensor of shape {shape_text(expected)} (one factor per group and "
                f"output column; {want} for a {op.y.dtype} y), got {op.scale}")


@rule("GMM-010", "per_token_scale")
def gmm_per_token_scale(op, s):
    if op.x.dtype != "i8":
        if op.per_token_scale is not None:
            return f"given with {op.x.dtype} x: only the int8 form (i8 x and w) dequantizes"
        return None
    t = op.per_token_scale
    if t is None:
        return "missing: i8 x needs the per-row scale of its quantization (rows,)"
    if differs(t.shape, op.x.shape[:1]) or t.dtype != "f32" or t.format != "ND":
        return f"expected an ND f32 tensor of shape ({op.x.shape[0]},) (one factor per row of x), got {t}"


@rule("GMM-011", "y")
def gmm_int8_y(op, s):
    if op.x.dtype == "i8" and op.y.dtype not in INT8_SCALE:
        return f"expected element type bf16 or f16 for i8 x (the dequantized product), got {op.y.dtype}"


def _gmm_infer(op, s):
    if op.x.dtype != "i8":
        dtype = op.x.dtype
    else:
        dtype = "f16" if op.scale is not None and op.scale.dtype == "f32" else "bf16"
    return {"y": TensorInfo(_gmm_y(op, s), dtype)}


GroupedMatmul = MLA.add(OpDef(
    "mla.grouped_matmul",
    traits=(PURE,),
    operands=[operand("x"), operand("w"), operand("group_list"), optional("scale"), optional("per_token_scale")],
    results=["y"],
    rules=gmm_rules,
    infer_results=_gmm_infer,
    summary="per-group x rows @ w[group], groups as consecutive row counts; float32, one rounding "
            "(int8 form: exact int32 sums dequantized per row and per channel)",
))


# --- mla.moe_finalize_routing ------------------------------------------------------------------
# out[t] = x1[t] + x2[t] + sum_j scales[t, j] * expanded_x[expanded_row_idx[t*k + j]]
# (aclnnMoeFinalizeRoutingV2 with dropPadMode 2: row-major row indices, as moe_init_routing
# makes them): the routed experts' outputs weighted back onto their tokens, plus the shared
# expert (x1) and the residual (x2), in float32 with one rounding.

finalize_rules = RuleSet()
rule = finalize_rules.rule
rule("MFR-001", "expanded_x")(rank_is("expanded_x", 2, " (tokens*k, hidden)"))
rule("MFR-002", "expanded_x")(dtype_in("expanded_x", FLOAT_TYPES))
rule("MFR-003", "scales")(rank_is("scales", 2, " (tokens, k)"))
rule("MFR-004", "scales")(dtype_in("scales", FLOAT_TYPES))


@rule("MFR-005", "expanded_row_idx")
def finalize_rows(op, s):
    t, k = op.scales.shape
    pairs = None if t is None or k is None else t * k
    if differs(op.expanded_row_idx.shape, (pairs,)) or op.expanded_row_idx.dtype != "i32":
        return f"expected an i32 tensor of shape ({pairs},) (tokens*k of scales), got {op.expanded_row_idx}"
    if differs(op.expanded_x.shape[:1], (pairs,)):
        return f"expanded_x has {op.expanded_x.shape[0]} rows, scales asks for tokens*k = {pairs}"


def _residual(name):
    def check(op, s):
        v = getattr(op, name)
        expected = (op.scales.shape[0], op.expanded_x.shape[1])
        if v is not None and (differs(v.shape, expected) or v.dtype != op.expanded_x.dtype):
            return (f"expected {shape_text(expected)} of element type {op.expanded_x.dtype} "
                    f"(tokens, hidden), got {v}")
    return check


rule("MFR-006", "x1")(_residual("x1"))
rule("MFR-006", "x2")(_residual("x2"))


@rule("MFR-007", "x2")
def finalize_x2_needs_x1(op, s):
    if op.x2 is not None and op.x1 is None:
        return "x2 without x1 (the kernel reads x2 only after x1)"


rule("MFR-008", "out")(result_is("out", lambda op, s: (op.scales.shape[0], op.expanded_x.shape[1]),
                                 dtype_of=lambda op: op.expanded_x.dtype))


@rule("MFR-009", "expanded_row_idx", kind="runtime")
def finalize_idx_in_range(op, s):
    values, rows = op.expanded_row_idx.value, op.expanded_x.shape[0]
    if values.size and (values.min() < 0 or values.max() >= rows):
        bad = int(values.min()) if values.min() < 0 else int(values.max())
        return f"value {bad} is outside [0, {rows}) (the rows of expanded_x)"


MoeFinalizeRouting = MLA.add(OpDef(
    "mla.moe_finalize_routing",
    traits=(PURE,),
    operands=[operand("expanded_x"), operand("expanded_row_idx"), operand("scales"), optional("x1"),
              optional("x2")],
    results=["out"],
    rules=finalize_rules,
    infer_results=lambda op, s: {"out": TensorInfo((op.scales.shape[0], op.expanded_x.shape[1]),
                                                   op.expanded_x.dtype)},
    summary="weighted sum of each token's routed rows, plus x1 and x2; float32, one rounding",
))

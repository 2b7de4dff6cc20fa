"""FIA rules of the TND layouts (FIA-TND-*): the packed key/value, excluded features, head dims."""
from __future__ import annotations

from ..rules import dim
from .common import (
    ANTIQUANT_OPERANDS,
    FLOATS,
    LATENT,
    QUANT_OPERANDS,
    TND_HEAD_DIMS,
    TND_MAX_T,
    FiaRules,
    one_of,
    seq_axis,
)
from .layout import cumulative_ends

rules = FiaRules()


# =============================================================================================
# TND layouts: the packed key/value, excluded features, head dims, masks
# =============================================================================================
# The V2 seed names TND in its softmax_lse shape (L797) and page-attention rules (L880, L954)
# but lists four layouts (L719); what TND means comes from the later FIA documents
# (aclnnFusedInferAttentionScoreV3/V4, torch_npu's npu_fused_infer_attention_score(_v2)) and the
# device's tiling checks (PromptFlashAttention CheckInputShapeWhenLayoutIsTND /
# CheckActSeqWhenLayoutIsTND, FIA CheckLseShape): query (T, N, D) (NTD_TND: (N, T, D)),
# key/value (T_kv, KV_N, D) or a paged cache, actual_seq_lengths(_kv) the cumulative ends of
# each batch (per-batch lengths for a paged cache), output (T, N, Dv) (TND_NTD: (N, T, Dv)).

@rules.rule("FIA-TND-4", ("query", "key"), tnd=True)
def tnd_token_limit(op, s, name):
    """T <= 1M for the query, and for a packed (not paged) key."""
    if name == "key" and s.paged:
        return None
    tokens = getattr(op, name)
    tokens = tokens[0] if isinstance(tokens, list) else tokens
    t = dim(tokens, seq_axis(op.input_layout))
    if t > TND_MAX_T:
        return f"expected T <= {TND_MAX_T} with input_layout {op.input_layout!r}, got {t}"


TND_EXCLUDED = (("query_padding_size", "left padding"), ("kv_padding_size", "left padding"),
                ("pse_shift", "pse_shift"), ("key_shared_prefix", "a shared prefix")) + tuple(
    (name, "quantization") for name in QUANT_OPERANDS + ANTIQUANT_OPERANDS)


@rules.rule("FIA-TND-5", ("key",) + tuple(name for name, _ in TND_EXCLUDED), tnd=True)
def tnd_excluded_features(op, s, name):
    """Not with TND (FIA V3/V4: no left padding, tensor list, pse, prefix, antiquant, full
    quant, post-quant)."""
    if name == "key":
        if s.is_list:
            return f"a tensor list is not supported with input_layout {op.input_layout!r}"
        return None
    if op.present(name):
        feature = dict(TND_EXCLUDED)[name]
        return f"{feature} is not supported with input_layout {op.input_layout!r}"


@rules.rule("FIA-TND-6", "actual_seq_lengths_kv", tnd=True)
def tnd_kv_ends(op, s):
    values = [int(v) for v in op.actual_seq_lengths_kv]
    if len(values) != s.B:
        return (f"expected B = {s.B} values (as many as actual_seq_lengths), got "
                f"{len(values)}")
    if s.paged:
        if min(values) < 0:
            return f"expected per-batch lengths >= 0 with page attention, got {values}"
        return None
    return cumulative_ends(values, dim(op.key[0], seq_axis(op.input_layout)), "the key's T")


@rules.rule("FIA-TND-7", "input_layout", tnd=True)
def tnd_layout_in_mode(op, s):
    """MLA (query D 512) takes TND and TND_NTD; without rope, and in MLA mode with query D 128
    (the prefill over per-head keys), the PFA path takes TND and NTD_TND."""
    allowed = ("TND", "TND_NTD") if s.latent else ("TND", "NTD_TND")
    if op.input_layout not in allowed:
        mode = ("in MLA mode with query D 512" if s.latent else "in MLA mode with query D 128"
                if s.mla else "without query_rope/key_rope")
        return f"expected {one_of(allowed)} {mode}, got {op.input_layout!r}"


@rules.rule("FIA-TND-8", "query", tnd=True, mla=False)
def tnd_float(op, s):
    """A float16 or bfloat16 query. Loosened from "bfloat16 only" (torch_npu v1's TND note,
    which vLLM-Ascend repeats): torch_npu's own device test test_npu_infer_attention_score_PA
    (op-plugin test/test_custom_ops/test_npu_fused_infer_attention_score.py, 910B) runs TND
    page attention in float16 with key D 192 / value D 128 against a float32 golden, and the
    torch_npu v2 document's TND constraints list float16 and bfloat16 (MHA: "仅支持数据类型为
    float16、bfloat16")."""
    if op.query.dtype not in FLOATS:
        return (f"expected element type f16 or bf16 with input_layout {op.input_layout!r} "
                f"(without query_rope/key_rope), got {op.query.dtype}")


@rules.rule("FIA-TND-9", "value", tnd=True, mla=False)
def tnd_head_dims(op, s):
    dims_ = (s.Dk, s.Dv)
    if dims_ not in TND_HEAD_DIMS:
        return (f"expected (key D, value D) in {', '.join(map(str, TND_HEAD_DIMS))} with "
                f"input_layout {op.input_layout!r}, got {dims_}")
    if s.Dv == 192 and s.G > 1:
        return f"value D 192 needs num_heads == num_key_value_heads, got G = {s.G}"
    if s.Dv == 192 and op.input_layout == "NTD_TND":
        return "value D 192 is not supported with input_layout 'NTD_TND'"


@rules.rule("FIA-TND-10", "softmax_lse_flag", tnd=True, mla=LATENT)
def tnd_mla_no_lse(op, s):
    if op.softmax_lse_flag:
        return f"softmax_lse is not supported in MLA mode with input_layout {op.input_layout!r}"

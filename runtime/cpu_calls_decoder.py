"""CPU implementations of the decoder's aclnn calls whose arguments are not the op's own
(lowering/decoder.py): the router's scratch output and the grouped matmul's tensor lists. Each
maps its C arguments back onto the mla op and runs that op's kernel (runtime/kernels/decoder.py)."""
from __future__ import annotations

from ..dialect.aclnn_functions import GROUPED_MATMUL_V4, MOE_GATING_TOP_K
from ..dialect.decoder import GroupedMatmul, MoeGatingTopK
from .cpu_buffers import store
from .cpu_call_registry import cpu_call


@cpu_call(MOE_GATING_TOP_K)
def moe_gating_top_k(call):
    """yOut and expertIdxOut from the mla.moe_gating_top_k kernel; outOut (outFlag false) is a
    scratch buffer nothing reads, left alone."""
    a = call.args
    if a["outFlag"]:
        raise NotImplementedError("aclnnMoeGatingTopK: outFlag true (the lowering never sets it)")
    attributes = {"k": a["k"], "k_group": a["kGroup"], "group_count": a["groupCount"],
                  "group_select_mode": a["groupSelectMode"], "renorm": a["renorm"],
                  "norm_type": a["normType"], "routed_scaling_factor": a["routedScalingFactor"],
                  "eps": a["eps"]}
    y, idx = call.run(MoeGatingTopK, {"x": a["x"], "bias": a["biasOptional"]}, attributes,
                      {"y": call.types["yOut"], "expert_idx": call.types["expertIdxOut"]})
    return {"yOut": y, "expertIdxOut": idx}


@cpu_call(GROUPED_MATMUL_V4)
def grouped_matmul_v4(call):
    """The forms the lowering emits: one x, one weight (E, K, N), counts, one out (splitItem 3,
    groupType 0, groupListType 1, no activation); either no quantization or the int8 one (one
    scale and one per-token scale, nothing else)."""
    a = call.args
    form = (len(a["x"]), len(a["weight"]), len(a["out"]), a["splitItem"], a["groupType"], a["groupListType"],
            a["actType"])
    scale, per_token = a["scaleOptional"], a["perTokenScaleOptional"]
    quantized = scale is not None and per_token is not None and len(scale) == len(per_token) == 1
    if form != (1, 1, 1, 3, 0, 1, 0) or (scale is not None or per_token is not None) and not quantized or any(
            a[n] is not None for n in ("biasOptional", "offsetOptional", "antiquantScaleOptional",
                                       "antiquantOffsetOptional", "activationInputOptional")):
        raise NotImplementedError(f"aclnnGroupedMatmulV4: only the lowering's single-tensor forms, got {form}")
    (out,) = call.buffer("out")
    operands = {"x": a["x"][0], "w": a["weight"][0], "group_list": a["groupListOptional"]}
    if quantized:
        operands.update(scale=scale[0], per_token_scale=per_token[0])
    (y,) = call.run(GroupedMatmul, operands, {}, {"y": out.info})
    store(out, y)
    return {}

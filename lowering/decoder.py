"""Conversions of the decoder ops (dialect/decoder.py) to the aclnn functions torch_npu calls.

Evidence for each choice: the torch_npu schema (torch_npu/csrc/aten/
npu_native_functions_by_codegen.yaml of the torch-npu 2.14 wheel) names the op-plugin entry,
and the public ops-transformer / CANN documents give the aclnn prototype (dialect/aclnn_functions.py).
All NON-SEED.

    mla.swiglu                npu_swiglu(Tensor self, int dim=-1)
                              -> aclnnSwiGlu(x, dim, out)
    mla.moe_gating_top_k      npu_moe_gating_top_k(x, k, *, bias, k_group, group_count,
                              group_select_mode, renorm, norm_type, out_flag,
                              routed_scaling_factor, eps) -> aclnnMoeGatingTopK (same order)
    mla.moe_init_routing      npu_moe_init_routing_v2(x, expert_idx, *, active_num,
                              expert_capacity, expert_num, drop_pad_mode, ...)
                              -> aclnnMoeInitRoutingV2
    mla.grouped_matmul        npu_grouped_matmul(Tensor[] x, Tensor[] weight, *, group_list,
                              split_item, group_type, group_list_type, act_type)
                              -> aclnnGroupedMatmulV4 (tensor lists); int8 form:
                              + scale=[...], per_token_scale=[...] (Tensor[]? keywords
                              of the same schema) -> scaleOptional, perTokenScaleOptional
    mla.moe_finalize_routing  npu_moe_finalize_routing(expanded_permuted_rows, skip1, skip2,
                              bias, scales, expanded_src_to_dst_row, export_for_source_row,
                              drop_pad_mode) -> aclnnMoeFinalizeRoutingV2

Why these and not others: aclnnMoeGatingTopK is the one documented router with DeepSeek's
sigmoid scores, correction bias and group-limited top-k (aclnnMoeGatingTopKSoftmax has none of
them); aclnnMoeInitRoutingV2 without quantization is the dropless routing whose row indices
aclnnMoeFinalizeRoutingV2 reads with dropPadMode 2 ("按行排列", the V2 layout);
aclnnGroupedMatmulV4 is the first version whose groupListOptional may hold per-group counts
(groupListType 1), which is what the routing's expertTokensCountOrCumsumOut gives with flag 2.
"""
from __future__ import annotations

from ..dialect import aclnn as A
from ..dialect.aclnn_functions import (
    GROUPED_MATMUL_V4,
    MOE_FINALIZE_ROUTING_V2,
    MOE_GATING_TOP_K,
    MOE_INIT_ROUTING_V2,
    SWI_GLU,
)
from ..dialect.decoder import GroupedMatmul, MoeFinalizeRouting, MoeGatingTopK, MoeInitRouting, SwiGlu
from ..dialect.types import TensorInfo
from .lower_to_aclnn import info, lowers

COUNTS = 2           # expertTokensCountOrCumsumFlag: 0 none, 1 cumulative sums, 2 counts
DROPLESS = 0         # dropPadMode of the routing: every (token, choice) pair is kept
ROW_MAJOR = 2        # dropPadMode of the finalize: dropless, row indices in the V2 (row) layout
SINGLE_TENSOR = 3    # splitItem: x and out are single tensors (the groups' rows concatenated)
GROUP_M = 0          # groupType: the groups split the rows (m axis)
GROUP_COUNTS = 1     # groupListType: group_list holds each group's size, not cumulative sums
NO_ACTIVATION = 0    # actType


@lowers(SwiGlu)
def swiglu(op, b):
    """npu_swiglu -> aclnnSwiGlu(x, dim, out): out = Swish(front half) * back half."""
    return b.call_bound(SWI_GLU)


@lowers(MoeGatingTopK)
def moe_gating_top_k(op, b):
    """npu_moe_gating_top_k -> aclnnMoeGatingTopK. outFlag false: the third output (the
    normalized scores) is not produced; the prototype still takes a tensor, given a scratch
    buffer (T, E) float32 nothing reads."""
    a = b.adaptor
    x = info(a.x)
    y, idx = b.alloc(op.results[0].type), b.alloc(op.results[1].type)
    b.call(MOE_GATING_TOP_K, {
        "x": a.x, "biasOptional": b.null() if a.bias is None else a.bias,
        "k": b.host(A.I64, a.k), "kGroup": b.host(A.I64, a.k_group),
        "groupCount": b.host(A.I64, a.group_count), "groupSelectMode": b.host(A.I64, a.group_select_mode),
        "renorm": b.host(A.I64, a.renorm), "normType": b.host(A.I64, a.norm_type),
        "outFlag": b.host(A.BOOL, False), "routedScalingFactor": b.host(A.F64, a.routed_scaling_factor),
        "eps": b.host(A.F64, a.eps), "yOut": y, "expertIdxOut": idx,
        "outOut": b.alloc(TensorInfo(x.shape, "f32"))})
    return {"y": y, "expert_idx": idx}


@lowers(MoeInitRouting)
def moe_init_routing(op, b):
    """npu_moe_init_routing_v2 -> aclnnMoeInitRoutingV2, dropless (dropPadMode 0, capacity 0),
    activeNum = every pair (T*k), per-expert counts (flag 2); no before-capacity output."""
    pairs = info(op.results[1]).shape[0]
    return b.call_bound(MOE_INIT_ROUTING_V2, given={
        "activeNum": b.host(A.I64, pairs), "expertCapacity": b.host(A.I64, 0),
        "dropPadMode": b.host(A.I64, DROPLESS), "expertTokensCountOrCumsumFlag": b.host(A.I64, COUNTS),
        "expertTokensBeforeCapacityFlag": b.host(A.BOOL, False),
        "expertTokensBeforeCapacityOut": b.null()})


@lowers(GroupedMatmul)
def grouped_matmul(op, b):
    """npu_grouped_matmul([x], [w], group_list=counts, split_item=3, group_type=0,
    group_list_type=1) -> aclnnGroupedMatmulV4 with one-element tensor lists: x (M, K) single
    tensor, weight (E, K, N) a single tensor of all groups, out (M, N) single tensor. The int8
    form adds scale=[scale (E, N)] and per_token_scale=[per_token_scale (M,)] (torch_npu's
    keyword names; scaleOptional and perTokenScaleOptional, the 4th and 8th tensor lists of
    the prototype), the document's dynamic-quant case: INT8 x and weight, BFLOAT16 scale with
    FLOAT32 perTokenScale -> BFLOAT16 out (FLOAT32 scale -> FLOAT16 out)."""
    a = b.adaptor
    y = b.alloc(op.results[0].type)
    no = b.null()
    args = {p.c_name: no for p in GROUPED_MATMUL_V4.params if p.kind in A.NULLABLE}
    args.update({
        "x": b.tensor_list([a.x]), "weight": b.tensor_list([a.w]), "groupListOptional": a.group_list,
        "splitItem": b.host(A.I64, SINGLE_TENSOR), "groupType": b.host(A.I64, GROUP_M),
        "groupListType": b.host(A.I64, GROUP_COUNTS), "actType": b.host(A.I64, NO_ACTIVATION),
        "out": b.tensor_list([y])})
    if a.scale is not None:
        args.update({"scaleOptional": b.tensor_list([a.scale]),
                     "perTokenScaleOptional": b.tensor_list([a.per_token_scale])})
    b.call(GROUPED_MATMUL_V4, args)
    return {"y": y}


@lowers(MoeFinalizeRouting)
def moe_finalize_routing(op, b):
    """npu_moe_finalize_routing -> aclnnMoeFinalizeRoutingV2(expandedX, expandedRowIdx, x1, x2,
    bias = nullptr, scales, expertIdx = nullptr (only read with a bias), dropPadMode 2, out).
    The document allows float32 scales with bf16 rows (its mixed-precision mode)."""
    return b.call_bound(MOE_FINALIZE_ROUTING_V2, given={"dropPadMode": b.host(A.I64, ROW_MAJOR)})


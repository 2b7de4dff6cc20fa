"""The MoE token exchange -> aclnnMoeDistributeDispatchV2 / aclnnMoeDistributeCombineV2.

    npu_moe_distribute_dispatch_v2(x, expert_ids, group_ep, ep_world_size, ep_rank_id,
        moe_expert_num, *, scales, x_active_mask, expert_scales, group_tp, tp_world_size,
        tp_rank_id, expert_shard_type, shared_expert_num, shared_expert_rank_num, quant_mode,
        global_bs, expert_token_nums_type, comm_alg)
        -> aclnnMoeDistributeDispatchV2 (the same arguments, the seven outputs last)
    npu_moe_distribute_combine_v2(expand_x, expert_ids, assist_info_for_combine, ep_send_counts,
        expert_scales, group_ep, ep_world_size, ep_rank_id, moe_expert_num, *, ...)
        -> aclnnMoeDistributeCombineV2

Both are two-phase aclnn calls (GetWorkspaceSize, workspace, launch on the stream) that talk to
the other ranks themselves, through the HCCL communicator whose name they take as groupEp. The
lowering makes the EP group's communicator (lowering/collective.py: made once per backend, as for
the all-reduce) and reads its name (`aclnn.hccl_comm_name`, HcclGetCommName) and this process's
rank in it (`aclnn.hccl_comm_rank`, HcclGetRankId) at run time, so one program text serves every
rank. No TP group (tpWorldSize 0): groupTp "", tpRankId 0; tpRecvCountsOut is a scratch buffer of
one element, the reserved combine inputs (activation/weight scales, group list) nullptr, outDtype
and groupListType 0 as the documents ask.
"""
from __future__ import annotations

from ..dialect import aclnn as A
from ..dialect.aclnn_functions import MOE_DISTRIBUTE_COMBINE_V2, MOE_DISTRIBUTE_DISPATCH_V2
from ..dialect.moe_distribute import MoeDistributeCombine, MoeDistributeDispatch
from ..dialect.types import TensorInfo
from .collective import comm_name, comm_rank, communicator
from .lower_to_aclnn import lowers


def _group(b):
    """groupEp, epRankId, groupTp, tpRankId: the EP communicator's name and rank (read once per
    function, before its first exchange), no TP group."""
    a = b.adaptor

    def read(b):
        comm = communicator(b, a.group, a.ep_world_size)
        return comm_name(b, comm), comm_rank(b, comm)
    name, rank = b.once(("hccl_comm", a.group, a.ep_world_size), read)
    return {"groupEp": name, "epRankId": rank, "groupTp": b.host(A.STRING, ""), "tpRankId": b.host(A.I64, 0)}


@lowers(MoeDistributeDispatch)
def moe_distribute_dispatch(op, b):
    """aclnnMoeDistributeDispatchV2; tpRecvCountsOut (no TP group here) into a scratch buffer."""
    return b.call_bound(MOE_DISTRIBUTE_DISPATCH_V2, given=_group(b),
                        scratch={"tpRecvCountsOut": TensorInfo((max(b.adaptor.tp_world_size, 1),), "i32")})


@lowers(MoeDistributeCombine)
def moe_distribute_combine(op, b):
    """aclnnMoeDistributeCombineV2; outDtype and groupListType 0 (reserved)."""
    return b.call_bound(MOE_DISTRIBUTE_COMBINE_V2, given={
        **_group(b), "outDtype": b.host(A.I64, 0), "groupListType": b.host(A.I64, 0)})

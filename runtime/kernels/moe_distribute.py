"""CPU kernels of the MoE token exchange (dialect/moe_distribute.py), through torch.distributed.

Dispatch on rank r: the (token, k) pairs of its tokens, ordered by expert (stably, so within an
expert by token then k), go to the rank holding the expert: first each rank's counts per
(destination rank, local expert) with one all_to_all_single, then the rows (as bytes: gloo
moves uint8 exactly, whatever the element type) and each row's (token, k) with a second and
third. Rank r's expand_x lists what it received by local expert, then source rank, then the
source's pair order (the order the device kernel documents: epRecvCounts is the (expert,
source) matrix's prefix sums); rows past them are zeros.

Combine is the way back: rank r sends each source's rows (its experts' outputs, found through
ep_send_counts) to that source, which receives them in the order it sent its pairs and sums
them per token with the routing weights in float32, with shared_expert_x, then rounds once.

In a world of one (no process group: `ascend-mla run --ep N` alone) the process is rank 0 of
ep_world_size ranks that do not exist: its pairs routed to other ranks' experts are not sent
(they contribute nothing to the combine), as an all-reduce there gives the rank's own part.

quant_mode 2 quantizes each sent pair's row: z = float32(x) (times the expert's row of `scales`
when given), ratio = 127 / max|z|, int8 = round-half-even(z * ratio) saturated, and the row's
scale is 1 / ratio (the documents' formula; a zero row: scale 0, zeros).
"""
from __future__ import annotations

import numpy as np

from ...dialect.moe_distribute import ASSIST_ROW, MoeDistributeCombine, MoeDistributeDispatch, local_experts, moe_ranks
from ..distributed import CollectiveError, check_world, failed
from . import kernel
from .common import f32, saturate_int8


def _refuse_unbuilt(op, shared_expert_rank_num, tp_world_size):
    if shared_expert_rank_num:
        raise CollectiveError(f"{op}: shared_expert_rank_num {shared_expert_rank_num}: which shared-expert rank a "
                              "token's copy goes to is not documented, so the CPU backend does not exchange "
                              "with shared-expert ranks (run the shared experts on every rank: shared_expert_x)")
    if tp_world_size > 1:
        raise CollectiveError(f"{op}: tp_world_size {tp_world_size}: the TP group's all-gather inside the "
                              "exchange is not built on the CPU backend")


def _start(op, expert_ids, x_active_mask, ep_world_size, moe_expert_num, group, shared_expert_rank_num,
           tp_world_size):
    """(world, experts per rank, BS, K, the sent pairs in expert order, their experts)."""
    _refuse_unbuilt(op, shared_expert_rank_num, tp_world_size)
    w = check_world(op, group, ep_world_size)
    bs, k = np.shape(expert_ids)
    return (w, moe_expert_num // ep_world_size, bs, k) + _pairs(expert_ids, x_active_mask)


def _pairs(expert_ids, x_active_mask):
    """The sent pairs: (flat pair indices sorted by expert, their experts); inactive tokens or
    pairs (x_active_mask false) are not sent."""
    ids = np.asarray(expert_ids, np.int64)
    bs, k = ids.shape
    keep = np.ones((bs, k), bool)
    if x_active_mask is not None:
        mask = np.asarray(x_active_mask).astype(bool)
        keep = np.broadcast_to(mask[:, None], (bs, k)) if mask.ndim == 1 else mask
    flat = np.flatnonzero(keep.reshape(-1))
    order = flat[np.argsort(ids.reshape(-1)[flat], kind="stable")]
    return order, ids.reshape(-1)[order]


def _exchange(w, op, send: np.ndarray, send_rows, recv_rows) -> np.ndarray:
    """all_to_all_single of the rows of `send` (any dtype: moved as bytes), `send_rows[d]` to
    rank d, `recv_rows[s]` from rank s."""
    import torch
    import torch.distributed as dist
    send = np.ascontiguousarray(send)
    row_shape, dtype = send.shape[1:], send.dtype
    width = int(np.prod(row_shape, dtype=np.int64)) * dtype.itemsize
    out = torch.empty((int(sum(recv_rows)), width), dtype=torch.uint8)
    try:
        dist.all_to_all_single(out, torch.from_numpy(send.view(np.uint8).reshape(len(send), width)),
                               [int(n) for n in recv_rows], [int(n) for n in send_rows])
    except Exception as e:
        raise failed(op, w, e) from None
    return out.numpy().view(dtype).reshape((-1,) + row_shape)


@kernel(MoeDistributeDispatch)
def moe_distribute_dispatch(x, expert_ids, scales, x_active_mask, expert_scales, *, ep_world_size, moe_expert_num,
                            group, tp_world_size, expert_shard_type, shared_expert_num, shared_expert_rank_num,
                            global_bs, comm_alg, product, quant_mode, expert_token_nums_type, result_types=None):
    op, ep = "mla.moe_distribute_dispatch", ep_world_size
    w, local, bs, k, order, experts = _start(op, expert_ids, x_active_mask, ep, moe_expert_num, group,
                                             shared_expert_rank_num, tp_world_size)
    tokens, slots = order // k, order % k
    counts = np.bincount(experts, minlength=moe_expert_num).reshape(ep, local)     # (destination, expert)
    rows = np.asarray(x)[tokens]
    if quant_mode == 2:
        z = f32(rows) if scales is None else f32(rows) * f32(scales)[experts]
        top = np.max(np.abs(z), axis=-1, keepdims=True, initial=0)
        ratio = np.divide(np.float32(127), top, out=np.zeros_like(top), where=top > 0)
        rows = saturate_int8(z * ratio)
        row_scales = np.divide(np.float32(1), ratio, out=np.zeros_like(ratio), where=ratio > 0)[:, 0]
    else:
        row_scales = np.zeros(len(rows), np.float32)
    weights = (np.zeros(len(rows), np.float32) if expert_scales is None
               else f32(expert_scales).reshape(-1)[order])
    meta = np.stack([tokens, slots], axis=1).astype(np.int32)
    if w.alone:          # rank 0 of ranks that do not exist: only its own experts' pairs
        mine = counts[0].sum()
        received = (counts[:1], rows[:mine], meta[:mine], row_scales[:mine], weights[:mine])
    else:
        import torch
        import torch.distributed as dist
        incoming = torch.empty(ep * local, dtype=torch.int64)
        try:
            dist.all_to_all_single(incoming, torch.from_numpy(counts.reshape(-1).astype(np.int64)))
        except Exception as e:
            raise failed(op, w, e) from None
        recv_counts = incoming.numpy().reshape(ep, local)                           # (source, expert)
        send_rows, recv_rows = counts.sum(1), recv_counts.sum(1)
        received = (recv_counts,
                    _exchange(w, op, rows, send_rows, recv_rows), _exchange(w, op, meta, send_rows, recv_rows),
                    _exchange(w, op, row_scales[:, None], send_rows, recv_rows)[:, 0],
                    _exchange(w, op, weights[:, None], send_rows, recv_rows)[:, 0])
    recv_counts, got, got_meta, got_scales, got_weights = received
    sources = recv_counts.shape[0]
    # received by source, each source's rows by expert -> by expert, then source
    start = np.concatenate([[0], np.cumsum(recv_counts.reshape(-1))])[:-1].reshape(sources, local)
    picks = np.concatenate([np.arange(start[s, e], start[s, e] + recv_counts[s, e])
                            for e in range(local) for s in range(sources)] or [np.zeros(0, np.int64)]).astype(np.int64)
    a = result_types["expand_x"].shape[0] if result_types else max(len(picks), 1)
    if len(picks) > a:
        raise CollectiveError(f"{op}: {len(picks)} rows arrived at rank {w.rank}, expand_x holds A = {a} "
                              "(a rank sent more tokens than global_bs / ep_world_size)")
    n = len(picks)
    expand_x = np.zeros((a,) + np.shape(x)[1:], rows.dtype)
    expand_x[:n] = got[picks]
    dynamic_scales = np.zeros(a, np.float32)
    dynamic_scales[:n] = got_scales[picks]
    expand_scales = np.zeros(result_types["expand_scales"].shape[0] if result_types else a, np.float32)
    expand_scales[:n] = got_weights[picks]
    assist = np.zeros(a * ASSIST_ROW, np.int32)
    source_of = np.concatenate([np.full(recv_counts[s, e], s) for e in range(local) for s in range(sources)]
                               or [np.zeros(0, np.int64)])
    cells = assist[:n * ASSIST_ROW].reshape(n, ASSIST_ROW)
    cells[:, 0], cells[:, 1], cells[:, 2] = source_of, got_meta[picks, 0], got_meta[picks, 1]
    full = np.zeros((ep, local), np.int64)
    full[:sources] = recv_counts
    per_expert = full.sum(0)
    expert_token_nums = (np.cumsum(per_expert) if expert_token_nums_type == 0 else per_expert).astype(np.int64)
    prefix = np.cumsum(full.T.reshape(-1)).astype(np.int32)              # (expert, source), prefix sums
    size = result_types["ep_recv_counts"].shape[0] if result_types else prefix.size
    ep_recv_counts = np.zeros(size, np.int32)
    ep_recv_counts[:prefix.size] = prefix
    return expand_x, dynamic_scales, assist, expert_token_nums, ep_recv_counts, expand_scales


@kernel(MoeDistributeCombine)
def moe_distribute_combine(expand_x, expert_ids, assist_info_for_combine, ep_send_counts, expert_scales,
                           x_active_mask, expand_scales, shared_expert_x, *, ep_world_size, moe_expert_num, group,
                           tp_world_size, expert_shard_type, shared_expert_num, shared_expert_rank_num, global_bs,
                           comm_alg, product, comm_quant_mode, result_types=None):
    op, ep = "mla.moe_distribute_combine", ep_world_size
    w, local, bs, k, order, experts = _start(op, expert_ids, x_active_mask, ep, moe_expert_num, group,
                                             shared_expert_rank_num, tp_world_size)
    prefix = np.asarray(ep_send_counts, np.int64)[:ep * local]
    held = np.diff(np.concatenate([[0], prefix])).reshape(local, ep)        # (expert, source): my rows
    start = np.concatenate([[0], prefix])[:-1].reshape(local, ep)
    rows = np.asarray(expand_x)
    if comm_quant_mode == 2:         # int8 in transit, per row, as dispatch's quant_mode 2
        z = f32(rows)
        top = np.max(np.abs(z), axis=-1, keepdims=True, initial=0)
        ratio = np.divide(np.float32(127), top, out=np.zeros_like(top), where=top > 0)
        rows = (f32(saturate_int8(z * ratio)) * np.divide(np.float32(1), ratio, out=np.zeros_like(ratio),
                                                           where=ratio > 0)).astype(rows.dtype)
    sent = np.bincount(experts // local, minlength=ep)                      # my pairs per destination
    if w.alone:
        mine = np.concatenate([np.arange(start[e, 0], start[e, 0] + held[e, 0]) for e in range(local)]
                              or [np.zeros(0, np.int64)]).astype(np.int64)
        back = np.zeros((len(order),) + rows.shape[1:], rows.dtype)
        back[:sent[0]] = rows[mine]
    else:
        picks = np.concatenate([np.arange(start[e, s], start[e, s] + held[e, s]) for s in range(ep)
                                for e in range(local)] or [np.zeros(0, np.int64)]).astype(np.int64)
        back = _exchange(w, op, rows[picks], held.sum(0), sent)
    gathered = np.zeros((bs * k,) + rows.shape[1:], np.float32)
    gathered[order] = f32(back)
    acc = np.einsum("tk,tkh->th", f32(expert_scales), gathered.reshape(bs, k, -1), dtype=np.float32)
    if shared_expert_x is not None:
        acc = acc + f32(shared_expert_x).reshape(bs, -1)
    return (acc.astype(np.asarray(expand_x).dtype),)


__all__ = ["moe_distribute_dispatch", "moe_distribute_combine", "local_experts", "moe_ranks"]

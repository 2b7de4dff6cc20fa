"""CPU kernels of the collectives (dialect/collective.py), through torch.distributed.

The sum is float32 (int64 for integers) and rounds once to x's type: the bf16 partial sums of
two ranks give their correctly rounded sum. gloo's ring all-reduce ends with the same bits on
every rank. In a world of one (no process group) an all-reduce is the identity; an all-gather
over several ranks has no meaning there and is refused.
"""
from __future__ import annotations

import numpy as np

from ...dialect.collective import AllGather, AllReduce
from ..distributed import CollectiveError, check_world, failed
from . import kernel


def _torch_of(x: np.ndarray):
    """x widened for the sum (float32, or int64 for integers) as a torch tensor."""
    import torch
    return torch.from_numpy(np.ascontiguousarray(x, dtype=np.int64 if x.dtype.kind in "iu" else np.float32))


@kernel(AllReduce)
def all_reduce(x, world_size, reduction, group):
    w = check_world("mla.all_reduce", group, world_size)
    if w.alone:
        return (np.array(x, copy=True),)
    import torch.distributed as dist
    t = _torch_of(np.asarray(x))
    try:
        dist.all_reduce(t, op=dist.ReduceOp.SUM)
    except Exception as e:
        raise failed("mla.all_reduce", w, e) from None
    return (t.numpy().astype(np.asarray(x).dtype),)


@kernel(AllGather)
def all_gather(x, world_size, dim, group):
    w = check_world("mla.all_gather", group, world_size)
    x = np.asarray(x)
    if w.alone:
        if world_size != 1:
            raise CollectiveError(f"mla.all_gather over {world_size} ranks in a world of one: the other ranks' "
                                  f"parts do not exist (run with torchrun --nproc-per-node {world_size})")
        return (x.copy(),)
    import torch
    import torch.distributed as dist
    t = _torch_of(x)
    parts = [torch.empty_like(t) for _ in range(w.size)]
    try:
        dist.all_gather(parts, t)
    except Exception as e:
        raise failed("mla.all_gather", w, e) from None
    return (np.concatenate([p.numpy() for p in parts], axis=dim).astype(x.dtype),)

"""The ranks a program runs on: torch.distributed's default process group, or a world of one.

Tensor parallelism runs on the engines users already run: `torchrun --nproc-per-node N` starts
N processes with RANK / WORLD_SIZE / MASTER_ADDR / MASTER_PORT in their environment, and
`init_from_environment()` joins them in torch.distributed's default process group (gloo on the
CPU backend), with a timeout, so that a rank whose peer died or never came fails with one
clear error instead of waiting forever. Without torchrun (no WORLD_SIZE) a process is a world of
one: every collective is the identity on its own data.

The CPU kernels of mla.all_reduce / mla.all_gather (runtime/kernels/collective.py) and the NPU
backend's HCCL communicator (runtime/hccl.py: the root info is broadcast through this group)
both ask `world()`.
"""
from __future__ import annotations

import atexit
import datetime
import hashlib
import json
import os
import threading
from dataclasses import dataclass

from ..dialect.errors import ExecutionError

DEFAULT_TIMEOUT_S = 120.0       # a collective (or the rendezvous) waits this long for its peers
GROUPS = ("tp", "ep")           # the communicators programs name: each is every rank of the job


class CollectiveError(ExecutionError):
    """A collective cannot run or failed: the program's world size is not the job's, or a peer
    rank ended or timed out. The message names the op, the group and the ranks."""


@dataclass(frozen=True)
class World:
    rank: int
    size: int
    backend: str          # "gloo", "hccl", ... or "none" (a world of one without torch.distributed)

    @property
    def alone(self) -> bool:
        return self.size == 1


def _dist():
    try:
        import torch.distributed as dist
    except ImportError:
        return None
    return dist if dist.is_available() else None


def world() -> World:
    """This process's rank and the number of ranks: the default process group's when one is
    initialised, else a world of one."""
    dist = _dist()
    if dist is not None and dist.is_initialized():
        return World(dist.get_rank(), dist.get_world_size(), str(dist.get_backend()))
    return World(0, 1, "none")


def environment_world() -> tuple[int, int]:
    """(rank, world size) that torchrun put in the environment ((0, 1) without it)."""
    def number(name, default):
        text = os.environ.get(name, "")
        try:
            return int(text) if text else default
        except ValueError:
            raise CollectiveError(f"{name}: expected an integer (as torchrun sets it), got {text!r}") from None
    size, rank = number("WORLD_SIZE", 1), number("RANK", 0)
    if size < 1 or not 0 <= rank < size:
        raise CollectiveError(f"RANK {rank} / WORLD_SIZE {size}: expected 0 <= RANK < WORLD_SIZE")
    return rank, size


def init_from_environment(timeout_s: float = DEFAULT_TIMEOUT_S, backend: str = "gloo") -> World:
    """Join the default process group of the job torchrun started (RANK, WORLD_SIZE, MASTER_ADDR,
    MASTER_PORT), once; a world of one when WORLD_SIZE is absent or 1. Collectives and the
    rendezvous time out after `timeout_s` seconds with a CollectiveError naming the rank."""
    rank, size = environment_world()
    dist = _dist()
    if size == 1 or dist is None:
        if size > 1:
            raise CollectiveError(f"WORLD_SIZE {size}: tensor parallelism over several processes needs "
                                  "torch.distributed (pip install ascend-mla[torch])")
        return world()
    if not dist.is_initialized():
        _rendezvous(dist, backend, rank, size, timeout_s)
        atexit.register(_leave, dist)
    return world()


def _rendezvous(dist, backend: str, rank: int, size: int, timeout_s: float):
    """init_process_group within `timeout_s` on every rank. torch's store client does not time
    out when MASTER_PORT is held by a program that accepts the connection and never answers
    (it waits forever, whatever the timeout says): the call runs in a daemon thread, and a rank
    that has not joined when the time is up raises (the thread is left behind, blocked)."""
    box = {}

    def join():
        try:
            dist.init_process_group(backend, rank=rank, world_size=size, timeout=datetime.timedelta(seconds=timeout_s))
            box["ok"] = True
        except BaseException as e:      # noqa: BLE001 - handed to the caller's thread
            box["error"] = e
    where = f"{os.environ.get('MASTER_ADDR', '?')}:{os.environ.get('MASTER_PORT', '?')}"
    thread = threading.Thread(target=join, name="ascend-mla rendezvous", daemon=True)
    thread.start()
    thread.join(timeout_s + 5)            # torch's own timeout first, when it applies
    if "error" in box:
        raise CollectiveError(f"rank {rank} of {size}: joining the process group ({backend}) at {where} failed: "
                              f"{_first_line(box['error'])}") from None
    if "ok" not in box:
        raise CollectiveError(f"rank {rank} of {size}: joining the process group ({backend}) at {where} did not "
                              f"complete in {timeout_s:g} s: no answer from the rank-0 store (a peer that never came, "
                              f"or MASTER_PORT held by another program)")


def _leave(dist):
    """Leave the process group before the interpreter exits: a group left to the C++ static
    destructors can end the process with std::terminate ("terminate called without an active
    exception", seen once on a rank that had finished its work) instead of exit status 0."""
    if dist.is_initialized():
        try:
            dist.destroy_process_group()
        except Exception:           # a peer already gone: nothing left to tell it
            pass


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"


def check_world(op: str, group: str, world_size: int) -> World:
    """The world a collective of `world_size` ranks runs in: the job's, which must have that
    many ranks, or a world of one (the collective is then the identity)."""
    if group not in GROUPS:
        raise CollectiveError(f"{op}: unknown group {group!r} (the programs use 'tp' and 'ep': every rank of the job)")
    w = world()
    if not w.alone and w.size != world_size:
        raise CollectiveError(f"{op}: the program is sharded over {world_size} ranks, the process group "
                              f"has {w.size} (run it with torchrun --nproc-per-node {world_size})")
    return w


def failed(op: str, w: World, e: BaseException) -> CollectiveError:
    """The error of a collective that did not complete (a peer ended, a timeout)."""
    return CollectiveError(f"{op} over {w.size} ranks failed on rank {w.rank}: a peer rank ended or timed "
                           f"out ({_first_line(e)})")


def agree_max(value: int, what: str) -> int:
    """The largest `value` of every rank of the job (the value itself in a world of one): a
    host-side agreement through the default process group, e.g. the prefill chunk every rank's
    MoE exchange is sized for."""
    w = world()
    if w.alone:
        return int(value)
    import torch
    import torch.distributed as dist
    cell = torch.tensor([int(value)], dtype=torch.int64)
    try:
        dist.all_reduce(cell, op=dist.ReduceOp.MAX)
    except Exception as e:
        raise failed(f"agreeing on {what}", w, e) from None
    return int(cell.item())


def any_rank(flag: bool, what: str) -> bool:
    """Whether any rank of the job says `flag` (this rank's own in a world of one)."""
    return bool(agree_max(int(bool(flag)), what))


def agree(description: dict, what: str):
    """Every rank of the job must hold the same `description` (JSON-able: arguments, shapes, a
    checkpoint's fingerprint) before the collectives that depend on it: a collective over tensors
    of different shapes on different ranks can abort the process inside gloo. The ranks exchange
    a fixed-size digest (32 bytes, the same shape everywhere); when the digests differ they
    exchange the descriptions, and every rank raises the same CollectiveError naming the first
    key that differs and each rank's value. A world of one agrees with itself."""
    w = world()
    if w.alone:
        return
    import torch
    import torch.distributed as dist
    data = json.dumps(description, sort_keys=True, default=str).encode()
    try:
        digests = _gather(dist, torch, torch.frombuffer(bytearray(hashlib.sha256(data).digest()), dtype=torch.uint8), w)
        if all(torch.equal(d, digests[0]) for d in digests):
            return
        lengths = _gather(dist, torch, torch.tensor([len(data)], dtype=torch.int64), w)
        longest = max(int(n) for n in lengths)
        mine = torch.zeros(longest, dtype=torch.uint8)
        mine[:len(data)] = torch.frombuffer(bytearray(data), dtype=torch.uint8)
        texts = [bytes(t[:int(n)].tolist()) for t, n in zip(_gather(dist, torch, mine, w), lengths)]
    except CollectiveError:
        raise
    except Exception as e:       # noqa: BLE001 - a peer ended or timed out
        raise failed(f"agreeing on the {what}", w, e) from None
    raise CollectiveError(f"the {w.size} ranks disagree on the {what} before the first collective: "
                          f"{_difference([json.loads(t) for t in texts])} (every rank must run the same call on "
                          f"the same checkpoint)")


def _gather(dist, torch, t, w: World) -> list:
    parts = [torch.empty_like(t) for _ in range(w.size)]
    dist.all_gather(parts, t)
    return parts


def _difference(descriptions: list, prefix: str = "") -> str:
    """The first key whose value differs between the ranks' descriptions, with each rank's."""
    first = descriptions[0]
    if all(isinstance(d, dict) for d in descriptions):
        for key in sorted(set().union(*descriptions)):
            values = [d.get(key) for d in descriptions]
            if any(v != values[0] for v in values):
                return _difference(values, f"{prefix}{key}.")
    shown = ", ".join(f"rank {r} has {json.dumps(d)[:60]}" for r, d in enumerate(descriptions)
                      if r == 0 or d != first)
    return f"{prefix.rstrip('.') or 'the value'}: {shown}"

"""Memory planning over a lowered function: liveness-based reuse of device buffers.

Every `aclnn.alloc` (kernel outputs, scratch such as aclnnRmsNorm's rstd) is live from its
allocation to its last use (a view or tensor list extends its base's life; a returned buffer
lives to the end). Buffers whose lives do not overlap share memory: greedy first fit, largest
first, offsets aligned to 512 bytes. That is safe on one stream, where launches run in order.
Workspaces are sized by phase one at run time; each lives for one launch, so all of them share
one region of the largest size (reported after a run by the NPU backend, not here). Inputs are
the caller's (staged or resident), not planned.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dialect.layout import nbytes as buffer_bytes
from ..dialect.layout import storage_shape
from .program import Alloc, View, decode

ALIGNMENT = 512


@dataclass
class PlannedBuffer:
    slot: int
    type: str
    nbytes: int
    first: int          # op index of the allocation
    last: int           # op index of the last use
    offset: int = 0
    returned: bool = False


@dataclass
class MemoryPlan:
    buffers: list
    peak_bytes: int          # the arena: every planned buffer fits in it
    unplanned_bytes: int     # the same buffers without reuse (one allocation each)
    workspace_sites: int     # launches, each with a run-time sized workspace in one shared region

    @property
    def offsets(self) -> dict:
        return {b.slot: b.offset for b in self.buffers}

    def __str__(self):
        lines = [f"memory plan: {len(self.buffers)} device buffers, peak {self.peak_bytes} bytes "
                 f"({self.unplanned_bytes} without reuse), {self.workspace_sites} workspaces in one "
                 f"shared region sized at run time"]
        for b in self.buffers:
            lines.append(f"  offset {b.offset:>10}  {b.nbytes:>10} B  ops {b.first}..{b.last}"
                         f"{'  (result)' if b.returned else ''}  {b.type}")
        return "\n".join(lines)


def _align(n: int) -> int:
    return -(-n // ALIGNMENT) * ALIGNMENT


def plan(lowered) -> MemoryPlan:
    """The plan of a decoded lowered function (lowering/program.py; or a lowered module /
    func.func)."""
    lowered = decode(lowered)
    alias = {}                                 # view slot -> base slot
    last_use = {}
    for index, inst in enumerate(lowered.instructions):
        if isinstance(inst, View):
            alias[inst.slot] = alias.get(inst.base, inst.base)
        for slot in inst.reads:             # every instruction says what it reads
            last_use[alias.get(slot, slot)] = index
    end = len(lowered.instructions)
    for slot in lowered.result_slots:
        last_use[alias.get(slot, slot)] = end
    position = {}
    for index, inst in enumerate(lowered.instructions):
        if isinstance(inst, Alloc):
            position[inst.slot] = index
    buffers = []
    dynamic = [str(info) for _, info, _ in lowered.allocs if None in info.shape]
    if dynamic:
        raise ValueError(f"@{lowered.name}: no static memory plan for buffers of dynamic shape "
                         f"({', '.join(dynamic)}); the CPU backend runs them, the NPU backend needs static shapes")
    for slot, info, _ in lowered.allocs:
        nbytes = buffer_bytes(storage_shape(info), info.dtype)
        first = position[slot]
        buffers.append(PlannedBuffer(slot, str(info), nbytes, first, last_use.get(slot, first),
                                     returned=last_use.get(slot) == end))
    placed = []
    for b in sorted(buffers, key=lambda b: (-b.nbytes, b.first)):
        offset = 0
        for other in sorted((o for o in placed if o.first <= b.last and b.first <= o.last),
                            key=lambda o: o.offset):
            if offset + _align(b.nbytes) <= other.offset:
                break
            offset = max(offset, other.offset + _align(other.nbytes))
        b.offset = offset
        placed.append(b)
    peak = max((b.offset + _align(b.nbytes) for b in buffers), default=0)
    return MemoryPlan(sorted(buffers, key=lambda b: b.first), peak,
                      sum(_align(b.nbytes) for b in buffers), len(lowered.calls))

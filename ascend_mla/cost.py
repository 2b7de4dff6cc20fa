"""Roofline of a compiled program: bytes and FLOPs per kernel call, and the time they need at
least on an Atlas A2 or A3.

    program = ascend_mla.compile(model)
    r = ascend_mla.roofline(program, model.inputs(step=3))   # or program.roofline(inputs)
    print(r)                       # one row per kernel call; totals; the bound per device
    r.seconds(ATLAS_A2)            # the sum of the per-call bounds

Each kernel call of the lowered program (one aclnn launch) must move its bytes through HBM and
do its cube FLOPs, so it takes at least max(bytes / bandwidth, FLOPs / cube throughput); the
calls run one after another on one stream, so a step takes at least their sum. This is a lower
bound: launch overhead, vector work, tiling and caches are not modelled.

The roofline walks the decoded lowered program (lowering/program.py), the instructions the
executor runs. Bytes are the tensors a call reads and writes, each buffer once, except where
the call's aclnn Function says it touches only part of one (its `cost` formula,
dialect/aclnn_functions.py: the rows of a paged cache it writes or reads, the rows an embedding
gathers); FLOPs are the cube FLOPs the formula gives (2·M·N·K per matmul, the four projections
of the MLA prolog, QK^T and PV of attention). The kv lengths are read from `inputs` (the host
list the attention reads at run time); without inputs every row is taken at the block table's
capacity.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
from mlir import ir

from .dialect import aclnn as A
from .dialect.aclnn import tensor_bytes
from .lowering.program import (
    NULL,
    Alloc,
    Collective,
    CommQuery,
    Communicator,
    Constant,
    DecodedFunction,
    Host,
    Launch,
    PhaseOne,
    ReadIntArray,
    Synchronize,
    TensorList,
    View,
    Workspace,
    decode,
)


@dataclass(frozen=True)
class Device:
    """One NPU as a roofline sees it: HBM bandwidth and dense cube throughput per device (a
    device is what one tensor-parallel rank runs on)."""
    name: str
    hbm_bytes_per_second: float
    cube_flops: float            # bf16 / fp16
    cube_int8_ops: float
    source: str

    def seconds(self, nbytes: float, flops: float, int8: bool = False) -> float:
        return max(nbytes / self.hbm_bytes_per_second,
                   flops / (self.cube_int8_ops if int8 else self.cube_flops))


# Public figures (no vendor datasheet gives both numbers; these are the ones widely reported).
# HBM: 1.6 TB/s per Ascend 910B (the figure of the performance model, docs/architecture.md); an Ascend 910C
# package is two 910B-class dies with 3.2 TB/s in all, and CANN shows each die as one device.
# Cube: ~320 TFLOPS fp16/bf16 per 910B (public reports of the 910B; with 1.6 TB/s it puts the
# prolog's compute/memory crossover at ~200 tokens, as docs/architecture.md says); 780 TFLOPS bf16 per
# 910C package (TechPowerUp, 2025-04-21, citing DigiTimes), 390 per die. Int8 is twice fp16:
# a Da Vinci cube does 4096 fp16 or 8192 int8 MACs per cycle (Huawei, Hot Chips 31, 2019).
ATLAS_A2 = Device("Atlas A2", 1.6e12, 320e12, 640e12,
                  "Ascend 910B: 1.6 TB/s HBM2e, ~320 TFLOPS fp16 (public reports)")
ATLAS_A3 = Device("Atlas A3", 1.6e12, 390e12, 780e12,
                  "one die of an Ascend 910C (3.2 TB/s, 780 TFLOPS bf16 per package: "
                  "TechPowerUp/DigiTimes 2025)")
DEVICES = (ATLAS_A2, ATLAS_A3)


@dataclass
class KernelCost:
    index: int                   # launch order
    callee: str                  # the aclnn function
    nbytes: int
    flops: int
    int8: bool = False
    weight_bytes: int = 0        # of nbytes: the weight operands (WEIGHT_PARAMS)

    def seconds(self, device: Device) -> float:
        return device.seconds(self.nbytes, self.flops, self.int8)

    def bound(self, device: Device) -> str:
        memory = self.nbytes / device.hbm_bytes_per_second
        return "memory" if memory >= self.seconds(device) else "compute"


@dataclass
class Roofline:
    calls: list
    devices: tuple = DEVICES
    kv_lengths: str = ""                  # where the attention's kv lengths came from
    notes: list = field(default_factory=list)

    @property
    def launches(self) -> int:
        return len(self.calls)

    @property
    def nbytes(self) -> int:
        return sum(c.nbytes for c in self.calls)

    @property
    def flops(self) -> int:
        return sum(c.flops for c in self.calls)

    def seconds(self, device: Device) -> float:
        return sum(c.seconds(device) for c in self.calls)

    def find(self, prefix: str) -> list:
        """The calls of the aclnn functions whose name starts with `prefix`."""
        return [c for c in self.calls if c.callee.startswith(prefix)]

    def __str__(self):
        heads = "".join(f" {d.name + ' us':>12}" for d in self.devices)
        lines = [f"{'#':>3}  {'kernel call':<34} {'MB':>9} {'GFLOP':>9}{heads}  bound ({self.devices[0].name})"]
        for c in self.calls:
            times = "".join(f" {c.seconds(d) * 1e6:>12.2f}" for d in self.devices)
            lines.append(f"{c.index:>3}  {c.callee:<34} {c.nbytes / 1e6:>9.3f} {c.flops / 1e9:>9.3f}"
                         f"{times}  {c.bound(self.devices[0])}")
        totals = "".join(f" {self.seconds(d) * 1e6:>12.2f}" for d in self.devices)
        lines.append(f"{'':>3}  {f'total: {self.launches} launches':<34} {self.nbytes / 1e6:>9.3f} "
                     f"{self.flops / 1e9:>9.3f}{totals}")
        lines += [f"  {d.name}: {d.hbm_bytes_per_second / 1e12:g} TB/s, {d.cube_flops / 1e12:g} TFLOPS "
                  f"bf16 ({d.source})" for d in self.devices]
        if self.kv_lengths:
            lines.append(f"  kv lengths: {self.kv_lengths}")
        lines += [f"  {n}" for n in self.notes]
        return "\n".join(lines)


def roofline(source, inputs=None, *, function: str | None = None, devices: Sequence[Device] = DEVICES) -> Roofline:
    """The roofline of a compiled Program (or a lowered `ir.Module`, or a decoded function):
    see the module docstring. `inputs`: the call's inputs (a dict by argument name, or a
    sequence), for the kv lengths."""
    if callable(getattr(source, "executable", None)):        # a compiled Program
        decoded = source.executable(function)
    elif isinstance(source, ir.Module):
        with source.context:
            decoded = decode(source, function)
    elif isinstance(source, DecodedFunction):
        decoded = source
    else:
        raise TypeError(f"roofline: expected an ascend_mla.Program or a lowered ir.Module, got {type(source).__name__}")
    values = {}
    if inputs is not None:
        given = inputs if not isinstance(inputs, Mapping) else [inputs.get(n) for n in decoded.arg_names]
        values = {slot: v for slot, v in zip(decoded.arg_slots, given) if v is not None}
    walk = _Walk(decoded, values)
    result = Roofline(walk.calls, tuple(devices))
    if walk.read_lengths:
        result.kv_lengths = ("the inputs' lengths" if not walk.capacity_used
                             else "the block table's capacity (no inputs given)")
    return result


# --- per-call bytes and FLOPs ------------------------------------------------------------------

# The arguments that carry a model's weights: the prolog's projections and norm weights, the
# right-hand side of a matmul, a norm's gamma.
WEIGHT_PARAMS = frozenset(("weightDq", "weightUqQr", "weightUk", "weightDkvKr", "rmsnormGammaCq",
                           "rmsnormGammaCkv", "mat2", "x2", "gamma"))


@dataclass(frozen=True)
class _Tensor:
    slot: int
    info: object


class _Walk:
    """The decoded instructions in order: what each slot holds (a tensor's type, a host value, a
    list's elements), and the cost of each phase one (one launch)."""

    def __init__(self, decoded, inputs: dict):
        self.inputs = inputs          # argument slot -> its value in this call
        self.read_lengths = False
        self.capacity_used = False
        self.types = dict(zip(decoded.arg_slots, decoded.arg_types))
        self.hosts, self.lists, self.read_from = {}, {}, {}
        self.calls = []
        for inst in decoded.instructions:
            match inst:
                case Alloc(slot, info) | Constant(slot, _, info, _) | View(slot, _, info, _, _):
                    self.types[slot] = info
                case Host(slot, value):
                    self.hosts[slot] = value
                case TensorList(slot, elements):
                    self.lists[slot] = elements
                case ReadIntArray(slot, source):
                    self.read_from[slot] = source
                case PhaseOne(_, _, call):
                    self.calls.append(self.cost(len(self.calls), call))
                case Workspace() | Launch() | Communicator() | CommQuery() | Collective() | Synchronize():
                    pass                # the launch of a phase one counted above; HCCL: not modelled
                case _:
                    raise TypeError(f"roofline: no cost for {inst}")

    def cost(self, index, call) -> KernelCost:
        function = call.function
        view = _Arguments(self, function, call.args)
        cost = function.cost(view)
        seen, nbytes, weights = set(), 0, 0
        for p, slot in zip(function.params, call.args):
            if p.kind not in A.DEVICE_TENSORS + A.LIST_KINDS:
                continue
            for t in view.tensors(p.c_name):
                if t.slot not in seen:
                    seen.add(t.slot)
                    n = view.touched.get(t.slot, tensor_bytes(t.info))
                    nbytes += n
                    weights += n if p.c_name in WEIGHT_PARAMS else 0
        return KernelCost(index, function.name, nbytes, cost.flops, cost.int8, weights)


class _Arguments:
    """One call's arguments as its Function's cost formula reads them (dialect/aclnn.py
    CallArguments): by C name; an argument the function does not have is absent (None, [])."""

    def __init__(self, walk: _Walk, function, slots):
        self.walk = walk
        self.slots = {p.c_name: s for p, s in zip(function.params, slots)}
        self.touched = {}            # tensor slot -> bytes the call moves of it

    def tensors(self, name) -> list:
        slot = self.slots.get(name)
        if slot is None:
            return []
        elements = self.walk.lists.get(slot, (slot,))
        return [_Tensor(s, self.walk.types[s]) for s in elements if s in self.walk.types]

    def info(self, name):
        tensors = self.tensors(name)
        return tensors[0].info if tensors else None

    def host(self, name):
        slot = self.slots.get(name)
        value = self.walk.hosts.get(slot) if slot is not None else None
        return None if value is NULL else value

    def int_list(self, name):
        slot = self.slots.get(name)
        if slot is None:
            return None
        if isinstance(self.walk.hosts.get(slot), tuple):
            return [int(v) for v in self.walk.hosts[slot]]
        source = self.walk.read_from.get(slot)
        if source is not None and source in self.walk.inputs:
            return [int(v) for v in np.asarray(self.walk.inputs[source]).reshape(-1)]
        return None

    def kv_lengths(self, name, capacity):
        self.walk.read_lengths = True
        lengths = self.int_list(name)
        if lengths is None:
            self.walk.capacity_used = True
            return list(capacity)
        return lengths

    def touch(self, tensor, nbytes):
        slot = tensor.slot if isinstance(tensor, _Tensor) else self.tensors(tensor)[0].slot
        self.touched[slot] = int(nbytes)


__all__ = ["roofline", "Roofline", "KernelCost", "Device", "ATLAS_A2", "ATLAS_A3", "DEVICES"]

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

Bytes are the tensors a call reads and writes, each buffer once, except where a call touches
only part of a buffer: the rows of a paged cache it writes (cache_index / slot_mapping) or
reads (the kv lengths under a block table), the rows an embedding gathers. FLOPs are cube
FLOPs: 2·M·N·K per matmul, the four projections of the MLA prolog, QK^T and PV of attention.
The kv lengths are read from `inputs` (the host list the attention reads at run time); without
inputs every row is taken at the block table's capacity.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
from mlir import ir

from .dialect.types import TensorInfo, describe_type, numpy_dtype
from .dialect import aclnn as A


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
    """The roofline of a compiled Program (or a lowered `ir.Module`): see the module docstring.
    `inputs`: the call's inputs (a dict by argument name, or a sequence), for the kv lengths."""
    from .compiler import Program, argument_names, find_function
    if isinstance(source, Program):
        context, module = source.context, source.module
    elif isinstance(source, ir.Module):
        context, module = source.context, source
    else:
        raise TypeError(f"roofline: expected an ascend_mla.Program or a lowered ir.Module, got {type(source).__name__}")
    with context:
        fn = find_function(module, function)
        block = fn.regions[0].blocks[0]
        values = {}
        if inputs is not None:
            names = argument_names(fn)
            by_position = inputs if not isinstance(inputs, Mapping) else [inputs.get(n) for n in names]
            values = {arg: v for arg, v in zip(block.arguments, by_position) if v is not None}
        walker = _Calls(values)
        calls = [walker.cost(len(walker.costs), op.operation) for op in block.operations
                 if op.operation.name in A.ACLNN.phase_one_ops]
    result = Roofline(calls, tuple(devices))
    if walker.read_lengths:
        result.kv_lengths = ("the inputs' lengths" if not walker.capacity_used
                             else "the block table's capacity (no inputs given)")
    return result


# --- per-call bytes and FLOPs ------------------------------------------------------------------

# The arguments that carry a model's weights: the prolog's projections and norm weights, the
# right-hand side of a matmul, a norm's gamma.
WEIGHT_PARAMS = frozenset(("weightDq", "weightUqQr", "weightUk", "weightDkvKr", "rmsnormGammaCq",
                           "rmsnormGammaCkv", "mat2", "x2", "gamma"))


def _bits(info: TensorInfo) -> int:
    return 4 if info.dtype == "i4" else numpy_dtype(info.dtype).itemsize * 8


def _nbytes(info: TensorInfo) -> int:
    return info.numel * _bits(info) // 8


def _owner(value):
    owner = value.owner
    return owner if isinstance(owner, (ir.Operation, ir.OpView)) else None


class _Calls:
    def __init__(self, inputs: dict):
        self.inputs = inputs          # block argument -> its value in this call
        self.costs = []
        self.read_lengths = False
        self.capacity_used = False

    # values ---------------------------------------------------------------------------------
    @staticmethod
    def info(value) -> TensorInfo | None:
        return describe_type(value.type) if isinstance(value.type, ir.RankedTensorType) else None

    def tensors(self, value) -> list:
        """The tensors an operand stands for: one, the elements of a tensor list, or none."""
        owner = _owner(value)
        if owner is not None and owner.name in ("aclnn.create_tensor_list", "aclnn.tensor_list_append"):
            return [t for v in owner.operands for t in self.tensors(v)]
        return [value] if isinstance(value.type, ir.RankedTensorType) else []

    def host(self, value):
        """A compile-time host value (an arith.constant), else None."""
        owner = _owner(value)
        if owner is not None and owner.name == "arith.constant":
            attr = owner.attributes["value"]
            if isinstance(attr, (ir.IntegerAttr, ir.FloatAttr, ir.BoolAttr)):
                return attr.value
        if owner is not None and owner.name == "aclnn.string":
            return owner.attributes["value"].value
        return None

    def int_list(self, value):
        """An aclIntArray's values: a constant list, or a host tensor read at run time from an
        input (None when the input was not given)."""
        owner = _owner(value)
        if owner is None:
            return None
        if owner.name == "aclnn.create_int_array":
            return [int(v) for v in owner.attributes["value"]]
        if owner.name == "aclnn.read_int_array":
            source = owner.operands[0]
            if source in self.inputs:
                return [int(v) for v in np.asarray(self.inputs[source]).reshape(-1)]
        return None

    # calls ----------------------------------------------------------------------------------
    def cost(self, index, op) -> KernelCost:
        function = A.ACLNN.phase_one_ops[op.name]
        args = dict(zip((p.c_name for p in function.params), op.operands))
        kinds = {p.c_name: p.kind for p in function.params}
        partial = {}                    # tensor -> bytes touched, where less than all of it
        flops, int8 = 0, False
        name = function.name
        if name.startswith("aclnnMlaProlog"):
            rows = self.info(args["cacheIndex"]).numel
            for ref in ("kvCacheRef", "krCacheRef"):
                partial[args[ref]] = rows * _per_row(self.info(args[ref]))
            tokens = self.info(args["tokenX"]).numel // self.info(args["tokenX"]).shape[-1]
            weights = ("weightDq", "weightUqQr", "weightUk", "weightDkvKr")
            flops = 2 * tokens * sum(self.info(args[w]).numel for w in weights)
            int8 = self.info(args["weightUqQr"]).dtype == "i8"
        elif name == "aclnnScatterPaKvCache":
            rows = self.info(args["slotMapping"]).numel
            for ref in ("keyCacheRef", "valueCacheRef"):       # a 0-d placeholder: no cache
                if self.info(args[ref]).rank >= 2:
                    partial[args[ref]] = rows * _per_row(self.info(args[ref]))
        elif name == "aclnnEmbedding":
            partial[args["weight"]] = _nbytes(self.info(args["out"]))
        elif name.startswith("aclnnFusedInferAttentionScore"):
            flops, int8 = self.attention(args, partial)
        elif name.startswith(("aclnnMatmul", "aclnnQuantMatmul")):
            x = self.info(args.get("self") or args["x1"])
            out = self.info(args["out"])
            transposed = self.host(args["transposeX1"]) if "transposeX1" in args else False
            flops = 2 * out.numel * (x.shape[-2] if transposed else x.shape[-1])
            int8 = x.dtype == "i8"
        seen, nbytes, weights = set(), 0, 0
        for c_name, value in args.items():
            if kinds[c_name] not in A.DEVICE_TENSORS + A.LIST_KINDS:
                continue
            for t in self.tensors(value):
                if t not in seen:
                    seen.add(t)
                    n = partial.get(t, _nbytes(self.info(t)))
                    nbytes += n
                    weights += n if c_name in WEIGHT_PARAMS else 0
        cost = KernelCost(index, name, nbytes, flops, int8, weights)
        self.costs.append(cost)
        return cost

    def attention(self, args, partial) -> tuple:
        """FLOPs of QK^T and PV; the paged key/value rows read (the kv lengths)."""
        query, out = self.info(args["query"]), self.info(args["attentionOut"])
        heads = self.host(args["numHeads"]) or 1
        layout = self.host(args["inputLayout"]) or "BSH"
        per_head = (lambda info: info.shape[-1] // heads) if layout in ("BSH", "SH") else (lambda info: info.shape[-1])
        d_qk, d_v = per_head(query), per_head(out)
        rope = self.info(args["queryRopeOptional"]) if "queryRopeOptional" in args else None
        if rope is not None:
            d_qk += per_head(rope)
        rows = out.numel // d_v                                   # query tokens x heads
        kv = [t for key in ("key", "value", "keyRopeOptional") if key in args for t in self.tensors(args[key])]
        table = self.info(args["blockTableOptional"]) if "blockTableOptional" in args else None
        lengths = self.int_list(args["actualSeqLengthsKvOptional"])
        if table is not None:
            block_size = self.host(args["blockSize"]) or 1
            self.read_lengths = True
            if lengths is None:
                self.capacity_used = True
                lengths = [table.shape[1] * block_size] * table.shape[0]
            for t in kv:
                info = self.info(t)
                partial[t] = sum(lengths) * _nbytes(info) // (info.shape[0] * block_size)
            mean_length = sum(lengths) / max(len(lengths), 1)
        elif lengths:
            mean_length = sum(lengths) / len(lengths)
        else:                                                     # the key's sequence axis
            mean_length = self.info(kv[0]).shape[2 if layout.startswith("BN") else 1]
        flops = int(2 * rows * mean_length * (d_qk + d_v))
        return flops, query.dtype == "i8"


def _per_row(cache: TensorInfo) -> int:
    """Bytes of one token's row of a paged cache (BlockNum, BlockSize, ...)."""
    return _nbytes(cache) // (cache.shape[0] * cache.shape[1])


__all__ = ["roofline", "Roofline", "KernelCost", "Device", "ATLAS_A2", "ATLAS_A3", "DEVICES"]

"""How the backends carry out the HCCL calls of a lowered program (lowering/collective.py).

CPU: the call runs the mla op's CPU kernel (runtime/kernels/collective.py: torch.distributed,
or the identity in a world of one) on the send buffer and stores the result in the receive
buffer, as the aclnn calls run their ops' kernels.

NPU: ctypes over libhccl.so. The communicator of a group is made once per backend:
HcclGetRootInfo on rank 0, its 4108 bytes broadcast to the other ranks through the default
process group (runtime/distributed.py; a world of one needs none), HcclCommInitRootInfo(nRanks,
&rootInfo, rank, &comm) on every rank; HcclCommDestroy when the backend closes. Collectives are
queued on the backend's stream: HcclAllReduce(sendBuf, recvBuf, count, dataType, op, comm,
stream), HcclAllGather(sendBuf, recvBuf, sendCount, dataType, comm, stream). The C++ host code
makes the same calls (lowering/emit_cpp.py), in the same order.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

from ..dialect.collective import AllGather, AllReduce
from ..lowering.collective import (
    HCCL_API,
    HCCL_COMM_NAME_BYTES,
    HCCL_DTYPE_ENUM,
    HCCL_REDUCE_ENUM,
    HCCL_RESULT,
    HCCL_ROOT_INFO_BYTES,
)
from .cpu_buffers import resolve, store
from .distributed import CollectiveError, check_world, world
from .kernels import run_kernel

# --- CPU --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CpuCommunicator:
    group: str
    world_size: int


def cpu_collective(function: str, args: list):
    """HcclAllReduce / HcclAllGather on the CPU backend: the op's kernel on the send buffer's
    `count` elements, the result stored in the receive buffer."""
    send, recv, count, comm = args[0], args[1], int(args[2]), args[-1]
    x = np.asarray(resolve(send)).reshape(-1)[:count]
    if function == "HcclAllReduce":
        (y,) = run_kernel(AllReduce, {"x": x}, {"world_size": comm.world_size, "reduction": args[4],
                                                       "group": comm.group})
    elif function == "HcclAllGather":
        # HCCL writes the ranks' buffers one after the other: a gather along a new leading axis
        (y,) = run_kernel(AllGather, {"x": x.reshape(1, count)}, {"world_size": comm.world_size,
                                                                         "dim": 0, "group": comm.group})
    else:
        raise NotImplementedError(f"{function} on the CPU backend")
    store(recv, np.asarray(y).reshape(recv.info.shape))


def cpu_comm_query(comm: CpuCommunicator, what: str):
    """A CPU communicator's name is its group's; the rank is this process's in the job (0 in a
    world of one)."""
    return comm.group if what == "name" else world().rank


# --- NPU (HCCL through ctypes) --------------------------------------------------------------------

_CTYPES = {"HcclResult": ctypes.c_int, "uint32_t": ctypes.c_uint32, "uint64_t": ctypes.c_uint64,
           "void *": ctypes.c_void_p, "HcclDataType": ctypes.c_int, "HcclReduceOp": ctypes.c_int,
           "HcclComm": ctypes.c_void_p, "HcclComm *": ctypes.POINTER(ctypes.c_void_p),
           "aclrtStream": ctypes.c_void_p, "HcclRootInfo *": ctypes.c_void_p,
           "const HcclRootInfo *": ctypes.c_void_p, "char *": ctypes.c_void_p,
           "uint32_t *": ctypes.POINTER(ctypes.c_uint32)}


class HcclError(RuntimeError):
    """An HCCL call failed: `.function`, `.status` and its HcclResult name."""

    def __init__(self, function: str, status: int):
        self.function, self.status = function, status
        super().__init__(f"{function} failed: {status} {HCCL_RESULT.get(status, 'unknown HcclResult')}")


class Hccl:
    """libhccl.so bound with the prototypes of lowering/collective.py HCCL_API."""

    def __init__(self, lookup):
        self.fn = {}
        for name, (ret, params) in HCCL_API.items():
            f = lookup(name)
            f.restype = _CTYPES[ret]
            f.argtypes = [_CTYPES[t] for t, _ in params]
            self.fn[name] = f

    def check(self, function: str, status: int):
        if status != 0:
            raise HcclError(function, status)


@dataclass
class NpuCommunicator:
    group: str
    world_size: int
    handle: ctypes.c_void_p


def npu_communicator(backend, group: str, world_size: int) -> NpuCommunicator:
    """The backend's communicator of `group`, made on first use (see the module docstring)."""
    comms = backend.communicators
    if group in comms:
        return comms[group]
    w = check_world("HcclCommInitRootInfo", group, world_size)
    if backend.hccl is None:
        backend.hccl = Hccl(backend.lookup_hccl)
    hccl = backend.hccl
    root = ctypes.create_string_buffer(HCCL_ROOT_INFO_BYTES)
    if w.rank == 0:
        hccl.check("HcclGetRootInfo", hccl.fn["HcclGetRootInfo"](ctypes.addressof(root)))
    if not w.alone:
        import torch
        import torch.distributed as dist
        cell = torch.frombuffer(bytearray(root.raw), dtype=torch.uint8)
        try:
            dist.broadcast(cell, src=0)
        except Exception as e:
            from .distributed import failed
            raise failed("broadcasting the HCCL root info", w, e) from None
        ctypes.memmove(root, bytes(cell.numpy()), HCCL_ROOT_INFO_BYTES)
    handle = ctypes.c_void_p()
    hccl.check("HcclCommInitRootInfo", hccl.fn["HcclCommInitRootInfo"](w.size, ctypes.addressof(root), w.rank,
                                                                       ctypes.byref(handle)))
    comms[group] = NpuCommunicator(group, world_size, handle)
    return comms[group]


def npu_collective(backend, function: str, args: list):
    """HcclAllReduce / HcclAllGather on the backend's stream."""
    from ..dialect.types import numpy_dtype
    hccl = backend.hccl
    send, recv, count, dtype, comm = args[0], args[1], int(args[2]), args[3], args[-1]
    if function == "HcclAllGather" and world().alone and comm.world_size != 1:
        raise CollectiveError(f"HcclAllGather over {comm.world_size} ranks in a world of one: the other ranks' "
                              f"parts do not exist (run with torchrun --nproc-per-node {comm.world_size})")

    def address(buffer):
        return buffer.address + buffer.offset * numpy_dtype(buffer.info.dtype).itemsize
    head = [address(send), address(recv), count, HCCL_DTYPE_ENUM[dtype]]
    if function == "HcclAllReduce":
        status = hccl.fn[function](*head, HCCL_REDUCE_ENUM[args[4]], comm.handle, backend.stream)
    else:
        status = hccl.fn[function](*head, comm.handle, backend.stream)
    hccl.check(function, status)


def npu_comm_query(backend, comm: NpuCommunicator, what: str):
    """HcclGetCommName (the name the MoE-distribute calls take as groupEp) or HcclGetRankId."""
    if world().alone and comm.world_size != 1:
        raise CollectiveError(f"the MoE exchange over {comm.world_size} ranks of group {comm.group!r} in a world of "
                              f"one: the other ranks' experts do not exist on the device (run with torchrun "
                              f"--nproc-per-node {comm.world_size})")
    hccl = backend.hccl
    if what == "name":
        cell = ctypes.create_string_buffer(HCCL_COMM_NAME_BYTES)
        hccl.check("HcclGetCommName", hccl.fn["HcclGetCommName"](comm.handle, ctypes.addressof(cell)))
        return cell.value.decode()
    rank = ctypes.c_uint32(0)
    hccl.check("HcclGetRankId", hccl.fn["HcclGetRankId"](comm.handle, ctypes.byref(rank)))
    return int(rank.value)


def npu_close(backend):
    """Destroy the backend's communicators (before the device is reset)."""
    for comm in backend.communicators.values():
        backend.hccl.check("HcclCommDestroy", backend.hccl.fn["HcclCommDestroy"](comm.handle))
    backend.communicators.clear()


# --- the report ---------------------------------------------------------------------------------

# the phase-one ops of the MoE-distribute calls (their groupEp argument names the communicator)
MOE_EXCHANGES = {"aclnn.moe_distribute_dispatch_v2_get_workspace_size": "aclnnMoeDistributeDispatchV2",
                 "aclnn.moe_distribute_combine_v2_get_workspace_size": "aclnnMoeDistributeCombineV2"}


def collectives_of(module, source: str = "") -> list:
    """{"op", "location", "detail"} of each HCCL call of a lowered module, saying what it does in
    this process's world (a world of one: the identity)."""
    from mlir import ir

    from ..dialect.diagnostics import location_text
    from ..lowering.collective import CALLS
    found = []
    w = world()

    def visit(op):
        op = op.operation
        exchange = MOE_EXCHANGES.get(op.name)
        if op.name in CALLS or exchange:
            if exchange:
                from ..dialect.aclnn import ACLNN
                params = [p.c_name for p in ACLNN.functions[exchange].params]
                comm = op.operands[params.index("groupEp")].owner.operation.operands[0].owner
            else:
                comm = op.operands[-2].owner
            size, group = int(comm.attributes["world_size"].value), comm.attributes["group"].value
            if not w.alone:
                here = f"rank {w.rank} of {w.size} ({w.backend})"
            elif exchange:
                here = ("here a world of one: rank 0's experts only (the pairs routed to the other ranks' "
                        "experts are not sent)")
            elif op.name.endswith("all_reduce") or size == 1:
                here = "here a world of one: the identity"
            else:
                here = "here a world of one: refused when run (the other ranks' parts do not exist)"
            found.append({"op": exchange or CALLS[op.name], "location": location_text(op.location, source),
                          "detail": f"over {size} ranks of group {group!r}; {here}"})
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found

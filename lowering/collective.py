"""Collectives -> HCCL calls: the HCCL functions the compiler calls, declared once, and the
conversions of mla.all_reduce / mla.all_gather.

HCCL's collectives are one-phase calls queued on the stream (no workspace, no executor):

    %comm = "aclnn.hccl_communicator"() {group = "tp", world_size = 2 : i64} : () -> !aclnn.hccl_comm
    %sum = "aclnn.hccl_reduce_op"() {op = "sum"} : () -> !aclnn.reduce_op
    "aclnn.hccl_all_reduce"(%send, %recv, %count, %dtype, %sum, %comm, %stream)
        {callee = "HcclAllReduce"} : (tensor<..>, tensor<..>, i64, !aclnn.data_type,
                                      !aclnn.reduce_op, !aclnn.hccl_comm, !aclnn.stream) -> ()

one operand per C argument of the documented prototype. `aclnn.hccl_comm` is the communicator
of a group: a backend creates it once (HcclGetRootInfo on rank 0, the root info shared with the
other ranks, HcclCommInitRootInfo on every rank) and reuses it; `world_size` is the number of
ranks the program was sharded for.

The prototypes are those of the CANN HCCL API reference ("集合通信算子": HcclAllReduce,
HcclAllGather; "通信域管理": HcclGetRootInfo, HcclCommInitRootInfo, HcclCommDestroy), whose
header is hccl/hccl.h with the types of hccl/hccl_types.h. The tests check these declarations
against that header as the torch-npu wheel ships it.
"""
from __future__ import annotations

import math

from mlir import ir

from ..dialect import aclnn as A
from ..dialect.collective import AllGather, AllReduce
from ..dialect.types import TensorInfo
from .lower_to_aclnn import info, lowers

# name -> (return type, [(C type, parameter name)]): the HCCL functions the NPU backend and
# the C++ host code call.
HCCL_API = {
    "HcclGetRootInfo": ("HcclResult", [("HcclRootInfo *", "rootInfo")]),
    "HcclCommInitRootInfo": ("HcclResult", [("uint32_t", "nRanks"), ("const HcclRootInfo *", "rootInfo"),
                                            ("uint32_t", "rank"), ("HcclComm *", "comm")]),
    "HcclAllReduce": ("HcclResult", [("void *", "sendBuf"), ("void *", "recvBuf"), ("uint64_t", "count"),
                                     ("HcclDataType", "dataType"), ("HcclReduceOp", "op"),
                                     ("HcclComm", "comm"), ("aclrtStream", "stream")]),
    "HcclAllGather": ("HcclResult", [("void *", "sendBuf"), ("void *", "recvBuf"), ("uint64_t", "sendCount"),
                                     ("HcclDataType", "dataType"), ("HcclComm", "comm"),
                                     ("aclrtStream", "stream")]),
    "HcclCommDestroy": ("HcclResult", [("HcclComm", "comm")]),
    # what the MoE-distribute calls read of the EP communicator (their groupEp and epRankId)
    "HcclGetCommName": ("HcclResult", [("HcclComm", "comm"), ("char *", "commName")]),
    "HcclGetRankId": ("HcclResult", [("HcclComm", "comm"), ("uint32_t *", "rank")]),
}
HCCL_COMM_NAME_BYTES = 128      # groupEp's documented length: [1, 128) characters
# the collective call ops and the function each calls
CALLS = {"aclnn.hccl_all_reduce": "HcclAllReduce", "aclnn.hccl_all_gather": "HcclAllGather"}

# HcclDataType / HcclReduceOp / HcclResult (hccl_types.h)
HCCL_DTYPE_ENUM = {"i8": 0, "i32": 2, "f16": 3, "f32": 4, "i64": 5, "bf16": 11}
HCCL_DTYPE_NAMES = {"i8": "HCCL_DATA_TYPE_INT8", "i32": "HCCL_DATA_TYPE_INT32", "f16": "HCCL_DATA_TYPE_FP16",
                    "f32": "HCCL_DATA_TYPE_FP32", "i64": "HCCL_DATA_TYPE_INT64", "bf16": "HCCL_DATA_TYPE_BFP16"}
HCCL_REDUCE_ENUM = {"sum": 0, "prod": 1, "max": 2, "min": 3}
HCCL_REDUCE_NAMES = {"sum": "HCCL_REDUCE_SUM", "prod": "HCCL_REDUCE_PROD", "max": "HCCL_REDUCE_MAX",
                     "min": "HCCL_REDUCE_MIN"}
HCCL_RESULT = {0: "HCCL_SUCCESS", 1: "HCCL_E_PARA", 2: "HCCL_E_PTR", 3: "HCCL_E_MEMORY", 4: "HCCL_E_INTERNAL",
               5: "HCCL_E_NOT_SUPPORT", 6: "HCCL_E_NOT_FOUND", 7: "HCCL_E_UNAVAIL", 8: "HCCL_E_SYSCALL",
               9: "HCCL_E_TIMEOUT", 11: "HCCL_E_TCP_CONNECT", 15: "HCCL_E_RUNTIME", 19: "HCCL_E_NETWORK"}
HCCL_ROOT_INFO_BYTES = 4108


def _c_declaration(name: str) -> str:
    ret, params = HCCL_API[name]
    args = ", ".join(f"{t}{'' if t.endswith('*') else ' '}{n}" for t, n in params)
    return f"{ret} {name}({args});"


def hccl_header() -> str:
    """hccl/hccl.h as far as this compiler uses it: the types and the functions, written
    from the HCCL API reference (for the tests and the recording double; a user builds the
    emitted C++ against CANN's own header)."""
    enums = "\n".join([
        "typedef enum { HCCL_SUCCESS = 0, HCCL_E_PARA = 1, HCCL_E_TIMEOUT = 9, HCCL_E_RESERVED } HcclResult;",
        "typedef void *HcclComm;",
        "typedef enum { " + ", ".join(f"{HCCL_REDUCE_NAMES[k]} = {v}" for k, v in HCCL_REDUCE_ENUM.items())
        + ", HCCL_REDUCE_RESERVED = 255 } HcclReduceOp;",
        "typedef enum { " + ", ".join(f"{HCCL_DTYPE_NAMES[k]} = {v}" for k, v in sorted(
            HCCL_DTYPE_ENUM.items(), key=lambda kv: kv[1])) + ", HCCL_DATA_TYPE_RESERVED = 255 } HcclDataType;",
        f"#define HCCL_ROOT_INFO_BYTES {HCCL_ROOT_INFO_BYTES}",
        "typedef struct HcclRootInfoDef { char internal[HCCL_ROOT_INFO_BYTES]; } HcclRootInfo;"])
    body = "\n".join(_c_declaration(n) for n in HCCL_API)
    return ("// hccl/hccl.h (ascend-mla): HCCL's types and the functions the emitted code calls, from\n"
            "// the CANN HCCL API reference\n#ifndef ASCEND_MLA_HCCL_H_\n#define ASCEND_MLA_HCCL_H_\n"
            '#include <stdint.h>\n#include "acl/acl.h"\n#ifdef __cplusplus\nextern "C" {\n#endif\n'
            f"{enums}\n{body}\n#ifdef __cplusplus\n}}\n#endif\n#endif\n")


def declarations() -> str:
    """Just the prototypes (checked against CANN's hccl.h by redeclaring them after it)."""
    return "\n".join(_c_declaration(n) for n in HCCL_API) + "\n"


# --- the conversions ------------------------------------------------------------------------

def communicator(b, group: str, world_size: int) -> ir.Value:
    """The communicator of `group` (`world_size` ranks): an `aclnn.hccl_communicator`."""
    i64 = ir.IntegerType.get_signless(64)
    return b.create("aclnn.hccl_communicator", [ir.Type.parse("!aclnn.hccl_comm")], attributes={
        "group": ir.StringAttr.get(group), "world_size": ir.IntegerAttr.get(i64, int(world_size))}).result


def _communicator(b, a) -> ir.Value:
    return communicator(b, a.group, a.world_size)


def comm_name(b, comm: ir.Value) -> ir.Value:
    """The communicator's name, read at run time (HcclGetCommName): a `const char *` argument."""
    return b.create("aclnn.hccl_comm_name", [ir.Type.parse("!aclnn.cstring")], [comm]).result


def comm_rank(b, comm: ir.Value) -> ir.Value:
    """This process's rank in the communicator, read at run time (HcclGetRankId), as an int64_t."""
    return b.create("aclnn.hccl_comm_rank", [ir.IntegerType.get_signless(64)], [comm]).result


def _call(b, op_name, operands):
    b.create(op_name, [], operands, {"callee": ir.StringAttr.get(CALLS[op_name])})


@lowers(AllReduce)
def all_reduce(op, b):
    """HcclAllReduce(sendBuf = x, recvBuf = a new buffer, count = x's elements, dataType, op,
    comm, stream): x as one contiguous buffer (a strided view is copied first)."""
    a = b.adaptor
    x = b.contiguous(a.x)
    y = b.alloc(op.results[0].type)
    reduce_op = b.create("aclnn.hccl_reduce_op", [ir.Type.parse("!aclnn.reduce_op")],
                          attributes={"op": ir.StringAttr.get(a.reduction)}).result
    _call(b, "aclnn.hccl_all_reduce", [x, y, b.host(A.I64, math.prod(info(x).shape)),
                                       b.host(A.DTYPE, info(x).dtype), reduce_op, _communicator(b, a), b.stream])
    return {"y": y}


@lowers(AllGather)
def all_gather(op, b):
    """HcclAllGather(sendBuf = x, recvBuf, sendCount = x's elements, dataType, comm, stream)
    writes the ranks' buffers one after the other: (world_size, *x.shape). Gathered along
    dim 0 (or after unit dimensions only) that is y itself; along another dim, y is that
    buffer with the rank axis moved next to dim (a permuted view, copied contiguous:
    aclnnInplaceCopy) and merged into it."""
    a = b.adaptor
    x, y = b.contiguous(a.x), info(op.results[0])
    shape, world = info(x).shape, int(a.world_size)
    axis = int(a.dim) % len(shape)
    direct = all(d == 1 for d in shape[:axis])
    recv = b.alloc(op.results[0].type if direct else TensorInfo((world,) + tuple(shape), y.dtype))
    _call(b, "aclnn.hccl_all_gather", [x, recv, b.host(A.I64, math.prod(shape)), b.host(A.DTYPE, y.dtype),
                                       _communicator(b, a), b.stream])
    if direct:
        return {"y": recv}
    permutation = list(range(1, axis + 1)) + [0] + list(range(axis + 1, len(shape) + 1))
    moved = b.copy(b.permute(recv, permutation))
    return {"y": b.reshape(moved, y.shape)}

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

from ..dialect.collective import AllGather, AllReduce
from ..dialect.types import TensorInfo
from ..dialect import aclnn as A
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
    return b._create("aclnn.hccl_communicator", [ir.Type.parse("!aclnn.hccl_comm")], attributes={
        "group": ir.StringAttr.get(group), "world_size": ir.IntegerAttr.get(i64, int(world_size))}).result


def _communicator(b, a) -> ir.Value:
    return communicator(b, a.group, a.world_size)


def comm_name(b, comm: ir.Value) -> ir.Value:
    """The communicator's name, read at run time (HcclGetCommName): a `const char *` argument."""
    return b._create("aclnn.hccl_comm_name", [ir.Type.parse("!aclnn.cstring")], [comm]).result


def comm_rank(b, comm: ir.Value) -> ir.Value:
    """This process's rank in the communicator, read at run time (HcclGetRankId), as an int64_t."""
    return b._create("aclnn.hccl_comm_rank", [ir.IntegerType.get_signless(64)], [comm]).result


def _call(b, op_name, operands):
    b._create(op_name, [], operands, {"callee": ir.StringAttr.get(CALLS[op_name])})


@lowers(AllReduce)
def all_reduce(op, b):
    """HcclAllReduce(sendBuf = x, recvBuf = a new buffer, count = x's elements, dataType, op,
    comm, stream): x as one contiguous buffer (a strided view is copied first)."""
    a = b.adaptor
    x = b.contiguous(a.x)
    y = b.alloc(op.results[0].type)
    reduce_op = b._create("aclnn.hccl_reduce_op", [ir.Type.parse("!aclnn.reduce_op")],
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


# --- C++ host code (lowering/emit_cpp.py) --------------------------------------------------------

CPP_PRELUDE = r'''#include <chrono>
#include <thread>
// this process's rank / the job's world size, as torchrun (or mpirun's wrapper) sets them
static inline uint32_t ascend_mla_env_u32(const char *name, uint32_t fallback) {
  const char *text = std::getenv(name);
  return text != nullptr && *text != '\0' ? static_cast<uint32_t>(std::strtoul(text, nullptr, 10)) : fallback;
}
// a program sharded over `ranks` runs in a job of that many ranks, or alone (a world of one,
// unless it gathers: the other ranks' parts do not exist there)
static inline int ascend_mla_check_world(uint32_t world, uint32_t ranks, bool alone_ok) {
  if (world == ranks || (world == 1 && alone_ok)) return 0;
  std::fprintf(stderr, "the program is sharded over %u ranks, WORLD_SIZE is %u\n", ranks, world);
  return 1;
}
// HCCL's root info: made by rank 0 (HcclGetRootInfo), given to the other ranks through the file
// $ASCEND_MLA_HCCL_ROOT_INFO (rank 0 writes it, the others wait for it, 120 s at most); 0 on success
static inline int ascend_mla_root_info(HcclRootInfo *root, uint32_t rank, uint32_t world) {
  if (rank == 0) {
    HcclResult status = HcclGetRootInfo(root);
    if (status != HCCL_SUCCESS) { std::fprintf(stderr, "HcclGetRootInfo failed: %d\n", (int)status); return 1; }
  }
  if (world == 1) return 0;
  const char *path = std::getenv("ASCEND_MLA_HCCL_ROOT_INFO");
  if (path == nullptr) { std::fprintf(stderr, "WORLD_SIZE %u: set ASCEND_MLA_HCCL_ROOT_INFO to a file every rank can read\n", world); return 1; }
  if (rank == 0) {
    char partial[4096];
    std::snprintf(partial, sizeof(partial), "%s.partial", path);
    FILE *f = std::fopen(partial, "wb");
    if (f == nullptr || std::fwrite(root, sizeof(*root), 1, f) != 1) { std::fprintf(stderr, "cannot write %s\n", partial); return 1; }
    std::fclose(f);
    return std::rename(partial, path) == 0 ? 0 : 1;
  }
  for (int tenths = 0; tenths < 1200; ++tenths) {
    FILE *f = std::fopen(path, "rb");
    if (f != nullptr) {
      size_t got = std::fread(root, sizeof(*root), 1, f);
      std::fclose(f);
      if (got == 1) return 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::fprintf(stderr, "rank %u: no HCCL root info in %s after 120 s (rank 0 ended?)\n", rank, path);
  return 1;
}
'''

_HCCL_STATUS = '!emitc.opaque<"HcclResult">'
_COMM = '!emitc.opaque<"HcclComm">'
_ROOT = '!emitc.opaque<"HcclRootInfo">'


def emit_communicator(e, group: str, world_size: int):
    """The communicator of `group`, made once per program (the NPU backend's calls, in its
    order): rank and world from the environment, the root info, HcclCommInitRootInfo; destroyed
    after the results are back. `e`: the emitter (lowering/emit_cpp.py _Emitter)."""
    made = e.__dict__.setdefault("communicators", {})
    if group in made:
        return made[group]
    b = e.b
    b.comment(f"HCCL: the communicator of group {group!r} ({world_size} ranks, or a world of one)")
    rank = b.call("ascend_mla_env_u32", [b.literal('"RANK"', '!emitc.ptr<!emitc.opaque<"const char">>'),
                                         b.literal("0", "ui32")], ['!emitc.ptr<!emitc.opaque<"const char">>', "ui32"], "ui32")
    world = b.call("ascend_mla_env_u32", [b.literal('"WORLD_SIZE"', '!emitc.ptr<!emitc.opaque<"const char">>'),
                                          b.literal("1", "ui32")], ['!emitc.ptr<!emitc.opaque<"const char">>', "ui32"], "ui32")
    from .program import Collective
    # a gather, or an MoE exchange, needs every rank: the other ranks' parts (experts) exist
    # nowhere in a world of one
    gathers = any(isinstance(i, Collective) and i.function == "HcclAllGather" for i in e.fn.instructions) or any(
        c.function.name.startswith("aclnnMoeDistribute") for c in e.fn.calls)
    alone_ok = "false" if gathers and world_size > 1 else "true"
    status = b.call("ascend_mla_check_world", [world, b.literal(str(world_size), "ui32"), b.literal(alone_ok, "i1")],
                    ["ui32", "ui32", "i1"], "i32")
    b.check(status, "i32", "the world size")
    root = b.variable(f"!emitc.lvalue<{_ROOT}>")
    where = b.address(root, _ROOT)
    status = b.call("ascend_mla_root_info", [where, rank, world], [f"!emitc.ptr<{_ROOT}>", "ui32", "ui32"], "i32")
    b.check(status, "i32", "the HCCL root info")
    cell = b.variable(f"!emitc.lvalue<{_COMM}>", "nullptr")
    status = b.call("HcclCommInitRootInfo", [world, where, rank, b.address(cell, _COMM)],
                    ["ui32", f"!emitc.ptr<{_ROOT}>", "ui32", f"!emitc.ptr<{_COMM}>"], _HCCL_STATUS)
    b.check(status, _HCCL_STATUS, "HcclCommInitRootInfo")
    made[group] = (b.load(cell, _COMM), world_size)
    e.__dict__.setdefault("after_results", []).append(
        lambda: b.check(b.call("HcclCommDestroy", [made[group][0]], [_COMM], _HCCL_STATUS), _HCCL_STATUS,
                        "HcclCommDestroy"))
    return made[group]


def emit_comm_query(e, comm, what):
    """HcclGetCommName into a char[128] (a `const char *` argument) or HcclGetRankId into a
    uint32_t widened to the int64_t the call takes: ("runtime_string" | "runtime_i64", value)."""
    b = e.b
    if what == "name":
        at = f'!emitc.array<{HCCL_COMM_NAME_BYTES}x!emitc.opaque<"char">>'
        cells = b.variable(at, "{0}")
        status = b.call("HcclGetCommName", [comm[0], cells], [_COMM, at], _HCCL_STATUS)
        b.check(status, _HCCL_STATUS, "HcclGetCommName")
        return ("runtime_string", cells, at)
    cell = b.variable("!emitc.lvalue<ui32>", "0")
    status = b.call("HcclGetRankId", [comm[0], b.address(cell, "ui32")], [_COMM, "!emitc.ptr<ui32>"], _HCCL_STATUS)
    b.check(status, _HCCL_STATUS, "HcclGetRankId")
    wide = b.call("static_cast<int64_t>", [b.load(cell, "ui32")], ["ui32"], "i64")
    return ("runtime_i64", wide, "i64")


def emit_collective(e, call):
    """HcclAllReduce / HcclAllGather on the stream, on the buffers' device addresses."""
    from .emit_cpp import _VOID, _Buffer, _nbytes
    b = e.b
    env = [e.env[s] for s in call.args]
    send, recv, count, dtype, comm = env[0], env[1], env[2], env[3], env[-1]

    def address(buf):
        return e.address_of(_Buffer(buf.base, buf.byte_offset + buf.offset * _nbytes((), buf.info.dtype),
                                    buf.info, buf.strides, 0, buf.storage))
    args = [address(send), address(recv), b.literal(str(int(count)), "ui64"),
            b.literal(HCCL_DTYPE_NAMES[dtype], '!emitc.opaque<"HcclDataType">')]
    types = [_VOID, _VOID, "ui64", '!emitc.opaque<"HcclDataType">']
    if call.function == "HcclAllReduce":
        args.append(b.literal(HCCL_REDUCE_NAMES[env[4]], '!emitc.opaque<"HcclReduceOp">'))
        types.append('!emitc.opaque<"HcclReduceOp">')
    b.comment(f"{call.function} over {comm[1]} ranks")
    status = b.call(call.function, args + [comm[0], e.stream], types + [_COMM, '!emitc.opaque<"aclrtStream">'],
                    _HCCL_STATUS)
    b.check(status, _HCCL_STATUS, call.function)

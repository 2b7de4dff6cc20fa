"""Backends: how one kernel call of a lowered function is carried out.

`set_backend("cpu" | "npu" | "auto")`; "auto" (the default) uses the NPU when the CANN runtime
and a device are present and the CPU otherwise, and says which once. "npu" without them raises
`ascend_mla.BackendUnavailable` naming what is missing.

The interface (used by runtime/executor.py, which owns the two-phase protocol):
    new_state(lowered)                      per-function state (stable buffers across calls)
    argument(state, index, value, info)     an input as a buffer (NPU: copied to the device)
    alloc(state, slot, info) / view(base, info, offset, strides) / constant(state, slot, array, info)
    workspace(state, size)                  the workspace of one launch
    tensor_key(buffer)                      what phase one binds of a tensor (description, buffer)
    phase_one(function, args) -> (workspace_size, executor);  release(executor)
    launch(callee, workspace, size, executor, checked)
    synchronize();  host_value(buffer);  result(buffer, info, caller) -> a host value
"""
from __future__ import annotations

import functools
import inspect
import logging

import numpy as np

from ..errors import BackendUnavailable, VerificationError
from .formats import NZTensor, describe_value, nz_physical_shape
from .kernels import get_kernel

log = logging.getLogger("ascend_mla")

BACKENDS = ("cpu", "npu", "auto")
_selected = "auto"
_announced = False


def cann_runtime_path() -> str | None:
    """Where the CANN runtime is, if this machine has one."""
    from .npu import find_libraries
    found = find_libraries()
    return found.get("libascendcl.so")


def set_backend(name: str):
    global _selected, _announced
    if name not in BACKENDS:
        raise ValueError(f"backend: expected one of {BACKENDS}, got {name!r}")
    if name == "npu":
        from .npu import npu_backend
        npu_backend()        # BackendUnavailable, saying what is missing
    _selected, _announced = name, False


def get_backend() -> str:
    """The backend calls run on now ("cpu" or "npu")."""
    return backend_instance(None).name


def backend_instance(name=None):
    """The Backend object for a name (None: the selected one); "auto" resolves once."""
    global _announced
    if name is not None and not isinstance(name, str):
        return name                                   # already a Backend
    name = name or _selected
    if name == "cpu":
        return CPU
    from .npu import npu_backend
    if name == "npu":
        return npu_backend()
    try:
        backend = npu_backend()
    except BackendUnavailable as why:
        if not _announced:
            log.info("backend 'auto': running on the CPU interpreter (%s)", why)
            _announced = True
        return CPU
    if not _announced:
        log.info("backend 'auto': running on the NPU")
        _announced = True
    return backend


def run_kernel(op_name: str, operands: dict, attributes: dict, result_types: dict | None = None):
    """Execute one op's CPU kernel; returns its results as a tuple. A kernel that takes
    `result_types` (name -> TensorInfo) gets the op's result types, for ops whose result
    element type is a choice of the IR rather than a function of the operands."""
    fn = get_kernel(op_name)
    extra = {"result_types": result_types} if result_types is not None and _wants_result_types(fn) else {}
    return fn(**operands, **attributes, **extra)


@functools.lru_cache(maxsize=None)
def _wants_result_types(fn) -> bool:
    return "result_types" in inspect.signature(fn).parameters


# --- the CPU backend -------------------------------------------------------------------------

class CpuBuffer:
    """A CPU 'device buffer': a cell holding the array (or NZTensor) written into it. Cells are
    stable per function (like device addresses), so a phase-one executor bound to them stays
    valid across calls."""
    __slots__ = ("info", "value")

    def __init__(self, info):
        self.info = info
        self.value = None


class CpuView:
    """`base`'s memory seen with another description; resolved when read."""
    __slots__ = ("base", "info", "offset", "strides")

    def __init__(self, base, info, offset, strides):
        self.base, self.info, self.offset, self.strides = base, info, offset, strides

    @property
    def value(self):
        return view_array(resolve(self.base), self.info, self.offset, self.strides)


def resolve(buffer):
    return buffer.value if isinstance(buffer, (CpuBuffer, CpuView)) else buffer


def view_array(base, info, offset: int, strides):
    """A NumPy view of `base` (ND, contiguous) described by (info, offset, strides) in elements;
    a FRACTAL_NZ description gives the NZTensor over the same memory."""
    if isinstance(base, NZTensor) or not base.flags.c_contiguous:
        raise NotImplementedError("a view of an NZ or non-contiguous buffer")
    flat = base.reshape(-1)
    if info.format == "FRACTAL_NZ":
        physical = nz_physical_shape(info.shape, base.dtype)
        count = int(np.prod(physical))
        return NZTensor(flat[offset:offset + count].reshape(physical), info.shape)
    item = base.itemsize
    return np.lib.stride_tricks.as_strided(flat[offset:], shape=info.shape,
                                           strides=[s * item for s in strides])


class CpuExecutor:
    """Phase one on the CPU: the call bound to its buffers and host values."""
    __slots__ = ("function", "args")

    def __init__(self, function, args):
        self.function, self.args = function, args


class CpuCall:
    """What a Function's own CPU implementation gets: arguments by C name (resolved values),
    their buffers' TensorInfos, and `kernel(op, operands, attributes, result_types)`."""

    def __init__(self, values, types):
        self.args, self.types = values, types

    @staticmethod
    def kernel(op_name, operands, attributes, result_types=None):
        return run_kernel(op_name, operands, attributes, result_types)


class CpuBackend:
    """Each kernel call runs the interpreter's kernel for it (runtime/kernels)."""
    name = "cpu"

    def new_state(self, lowered):
        return {"args": {}, "allocs": {}}

    def argument(self, state, index, value, info):
        cell = state["args"].get(index)
        if cell is None:
            cell = state["args"][index] = CpuBuffer(info)
        cell.value = value
        cell.info = info
        return cell

    def alloc(self, state, slot, info):
        cell = state["allocs"].get(slot)
        if cell is None:
            cell = state["allocs"][slot] = CpuBuffer(info)
        return cell

    def constant(self, state, slot, array, info):
        return array

    def view(self, base, info, offset, strides):
        return CpuView(base, info, offset, strides)

    def workspace(self, state, size):
        return None                      # the CPU kernels need no workspace (size 0)

    def tensor_key(self, buffer):
        if isinstance(buffer, CpuView):
            return ("view", self.tensor_key(buffer.base), buffer.info, buffer.offset, buffer.strides)
        if isinstance(buffer, CpuBuffer):
            return (id(buffer), buffer.info)
        return (id(buffer), describe_value("constant", buffer))

    def phase_one(self, function, args):
        return 0, CpuExecutor(function, args)

    def release(self, executor):
        pass

    def launch(self, callee, workspace, size, executor, *, checked=True):
        fn, args = executor.function, executor.args
        values, types = {}, {}
        for p, a in zip(fn.params, args):
            if isinstance(a, list):
                values[p.c_name] = [resolve(x) for x in a]
            else:
                values[p.c_name] = resolve(a)
            if isinstance(a, (CpuBuffer, CpuView)):
                types[p.c_name] = a.info
        if fn.cpu is not None:
            written = fn.cpu(CpuCall(values, types))
            for name, value in written.items():
                _store(args[fn.params.index(fn.param_by_name[name])], value)
            return
        _run_bound_kernel(fn, args, values, types, checked)

    def synchronize(self):
        pass

    def host_value(self, buffer):
        return resolve(buffer)

    def result(self, buffer, info, caller):
        value = resolve(buffer)
        return caller if caller is not None else value


def _store(buffer, value):
    if not isinstance(buffer, CpuBuffer):
        raise NotImplementedError("a kernel output written into a view")
    buffer.value = value


def _run_bound_kernel(fn, args, values, types, checked):
    """Call fn.kernel with the arguments matched to the mla op's names through Param.binds."""
    from ..dialect.dialect import MLA, _load_op_modules
    from ..lowering import aclnn as A
    _load_op_modules()
    opdef = MLA.ops[fn.kernel]
    operands = {o.name: ([] if o.kind == "variadic" else None) for o in opdef.kernel_operands}
    attributes = {a.name: (None if a.required else a.default) for a in opdef.attributes}
    given, result_types, outputs = {}, {}, {}
    for p, a in zip(fn.params, args):
        value = values[p.c_name]
        if p.binds is None:
            if a is not None:
                raise NotImplementedError(f"{fn.name}: {p.c_name} is always nullptr in this compiler")
            continue
        if p.kind in (A.OUT, A.OPT_OUT):
            if a is not None:
                result_types[p.binds] = types[p.c_name]
                outputs[p.binds] = a
        elif p.kind in A.HOST:
            value = list(value) if isinstance(value, tuple) else value
            attributes[p.binds] = value
            spec = opdef.attribute_by_name[p.binds]
            if value is not None and (spec.required or value != spec.default):
                given[p.binds] = value
        else:
            operands[p.binds] = value
    if checked:
        _check_data(opdef, operands, given)
    results = run_kernel(fn.kernel, operands, attributes, result_types)
    for name, value in zip(opdef.result_names, results):
        if name in outputs:
            _store(outputs[name], value)


def _check_data(opdef, operands, given):
    """The op's data rules on the actual values (the interpreter's checked mode)."""
    infos = {}
    for name, value in operands.items():
        if isinstance(value, list):
            infos[name] = [describe_value(f"{name}[{i}]", v) for i, v in enumerate(value)]
        elif value is not None:
            infos[name] = describe_value(name, value)
    snapshot = opdef.snapshot_from_parts(infos, given)
    verdict = opdef.check(snapshot.with_values(operands), phase="runtime")
    if not verdict.ok:
        raise VerificationError("\n".join(f.text(opdef.name) for f in verdict.errors), verdict.errors)


CPU = CpuBackend()

"""Backend selection: the CPU interpreter, or an Ascend NPU through the CANN runtime.

`set_backend("cpu" | "npu" | "auto")`; "auto" (the default) uses the NPU when the CANN runtime
is present and the CPU interpreter otherwise, and says which once.
"""
from __future__ import annotations

import ctypes.util
import functools
import inspect
import logging
import os

from .kernels import get_kernel

log = logging.getLogger("ascend_mla")

BACKENDS = ("cpu", "npu", "auto")
_selected = "auto"
_announced = False


def cann_runtime_path() -> str | None:
    """Where the CANN toolkit is, if this machine has one."""
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        root = os.environ.get(var)
        if root and os.path.isdir(root):
            return root
    return ctypes.util.find_library("ascendcl")


def set_backend(name: str):
    global _selected, _announced
    if name not in BACKENDS:
        raise ValueError(f"backend: expected one of {BACKENDS}, got {name!r}")
    if name == "npu":
        _npu_unavailable()
    _selected, _announced = name, False


def get_backend() -> str:
    """The backend calls run on now ("cpu" or "npu")."""
    global _announced
    if _selected == "cpu":
        return "cpu"
    if not _announced:
        where = cann_runtime_path()
        if where:
            log.warning("CANN runtime found at %s, but the NPU backend is not available in this "
                        "version; running on the CPU interpreter", where)
        else:
            log.info("no CANN runtime found; running on the CPU interpreter")
        _announced = True
    return "cpu"


def _npu_unavailable():
    raise RuntimeError(
        "backend 'npu': NPU execution is not available in this version of ascend-mla "
        "(the kernel-call lowering and the ACL/aclnn bindings are not built yet); "
        "use set_backend('cpu') or 'auto'")


def run_kernel(op_name: str, operands: dict, attributes: dict, result_types: dict | None = None):
    """Execute one op on the current backend; returns its results as a tuple. A kernel that
    takes `result_types` (name -> TensorInfo) gets the op's result types, for ops whose result
    element type is a choice of the IR rather than a function of the operands."""
    get_backend()
    fn = get_kernel(op_name)
    extra = {"result_types": result_types} if result_types is not None and _wants_result_types(fn) else {}
    return fn(**operands, **attributes, **extra)


@functools.lru_cache(maxsize=None)
def _wants_result_types(fn) -> bool:
    return "result_types" in inspect.signature(fn).parameters

"""The interface of a backend: what the executor (runtime/executor.py) asks of the CPU backend
(runtime/backend.py CpuBackend) and the NPU backend (runtime/npu.py NpuBackend) alike. Both
subclass `Backend`; test/python/test_backend.py checks each implements every method with these
parameters, and that the executor calls nothing else."""
from __future__ import annotations

from typing import Any, Protocol, Sequence, runtime_checkable


@runtime_checkable
class Backend(Protocol):
    """How one kernel call of a lowered function is carried out. A buffer is what the backend
    hands back for a tensor (a CPU cell, a device address); `state` is the backend's
    per-function state, made once by `new_state` and given back to every call."""
    name: str

    def new_state(self, lowered) -> Any:
        """Per-function state (stable buffers across calls) for a decoded function."""

    def argument(self, state, index: int, value, info) -> Any:
        """Input `index` as a buffer (NPU: copied to the device)."""

    def alloc(self, state, slot: int, info) -> Any:
        """The buffer of an aclnn.alloc (the same one at every call of a function)."""

    def constant(self, state, slot: int, array, info) -> Any:
        """A constant (a weight) as a buffer, made once per function state."""

    def view(self, base, info, offset: int, strides: Sequence[int]) -> Any:
        """`base`'s memory seen as `info` (element offset and strides): no copy."""

    def workspace(self, state, size: int) -> Any:
        """The workspace of one launch, `size` bytes."""

    def tensor_key(self, buffer) -> Any:
        """What phase one binds of a tensor (its description and buffer): equal keys, the
        same executor may be reused."""

    def phase_one(self, call, args: list) -> tuple:
        """`<function>GetWorkspaceSize` of a Call on its arguments: (workspace size, executor)."""

    def release(self, executor) -> None:
        """An executor phase one made and no call will launch again."""

    def launch(self, callee: str, workspace, size: int, executor, *, checked=True) -> None:
        """`<callee>(workspace, size, executor, stream)`; `checked`: the ops' data rules before
        their CPU kernels (runtime/executor.py)."""

    def communicator(self, group: str, world_size: int) -> Any:
        """The HCCL communicator of a group (runtime/collective.py), made once."""

    def collective(self, function: str, args: list) -> None:
        """One HCCL call (HcclAllReduce, HcclAllGather) on its arguments in C order."""

    def comm_query(self, comm, what: str) -> Any:
        """What a call reads of a communicator at run time: "name" (its name, HcclGetCommName:
        the MoE-distribute calls' groupEp) or "rank" (this process's rank in it, HcclGetRankId)."""

    def synchronize(self) -> None:
        """Wait for the stream."""

    def finish(self, state) -> None:
        """After a call (the CPU drops its intermediate arrays)."""

    def host_value(self, buffer) -> Any:
        """A buffer's contents on the host (a host list read at run time)."""

    def result(self, buffer, info, caller) -> Any:
        """A result as a host value: the caller's own array for an in-place cache (`caller`)."""

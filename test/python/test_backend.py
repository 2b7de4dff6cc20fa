"""The backends implement one interface: runtime/interface.py `Backend`, the methods the
executor calls. Each backend class defines every method itself (a Protocol's stub inherited in
place of one would do nothing), with the protocol's parameters, and the executor calls no method
outside the protocol."""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from ascend_mla.runtime import executor
from ascend_mla.runtime.backend import CPU, CpuBackend
from ascend_mla.runtime.interface import Backend
from ascend_mla.runtime.npu import NpuBackend

METHODS = sorted(name for name, value in vars(Backend).items()
                 if callable(value) and not name.startswith("_"))


def _parameters(fn) -> list:
    return [(p.name, p.kind) for p in inspect.signature(fn).parameters.values()]


def test_the_protocol_is_what_the_executor_uses():
    assert len(METHODS) >= 16
    tree = ast.parse(Path(executor.__file__).read_text())
    called = {node.func.attr for node in ast.walk(tree)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and isinstance(node.func.value, ast.Name) and node.func.value.id == "backend"}
    assert called and called <= set(METHODS), sorted(called - set(METHODS))


@pytest.mark.parametrize("cls", [CpuBackend, NpuBackend], ids=lambda c: c.__name__)
@pytest.mark.parametrize("method", METHODS)
def test_each_backend_implements_each_method(cls, method):
    assert Backend in cls.__mro__
    own = next((c.__dict__[method] for c in cls.__mro__ if c is not Backend and method in c.__dict__), None)
    assert own is not None, f"{cls.__name__} does not implement {method}"
    assert _parameters(own) == _parameters(getattr(Backend, method)), \
        f"{cls.__name__}.{method}{inspect.signature(own)} differs from Backend.{method}{inspect.signature(getattr(Backend, method))}"


def test_the_cpu_backend_is_a_backend_at_run_time():
    assert isinstance(CPU, Backend) and CPU.name == "cpu" and NpuBackend.name == "npu"

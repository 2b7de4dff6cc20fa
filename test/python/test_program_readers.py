"""The readers of the decoded lowered program (lowering/program.py) each handle every kind of
instruction or refuse one they do not know: the executor, the C++ emitter and the roofline end
their `match` with a case that raises, so an instruction added to the program cannot be left
out of one of them silently."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from mlir import ir

from ascend_mla.compiler import parse_and_transform
from ascend_mla.cost import roofline
from ascend_mla.dialect.diagnostics import DiagnosticCollector
from ascend_mla.dialect.dialect import make_context
from ascend_mla.dialect.errors import ExecutionError
from ascend_mla.lowering.emit_cpp import EmitError, emitc_module
from ascend_mla.runtime.executor import load

MATMUL = """func.func @f(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %0 = "mla.matmul"(%x, %w) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}"""


@dataclass(frozen=True)
class Unheard:
    """An instruction kind no reader knows."""
    slot: int = 0
    reads = ()


@pytest.fixture
def decoded():
    context = make_context()
    with context, ir.Location.unknown(), DiagnosticCollector(context):
        module = parse_and_transform(MATMUL, "builtin.module(verify,lower-to-aclnn)")
        fn = load(module)
    return context, fn, module           # the module outlives the function's ops


def test_each_reader_knows_the_program_as_decoded(decoded):
    context, fn, _ = decoded
    x, w = np.ones((2, 8), np.float32), np.ones((8, 4), np.float32)
    with context:
        (y,) = fn([x, w], backend="cpu")
        assert "aclnnMatmul" in emitc_module(fn, fn.arg_names)
    np.testing.assert_array_equal(y, np.full((2, 4), 8, np.float32))
    assert [c.callee for c in roofline(fn).calls] == ["aclnnMatmul"]


def test_each_reader_refuses_an_instruction_it_does_not_know(decoded):
    context, fn, _ = decoded
    fn.instructions.append(Unheard())
    with context:
        with pytest.raises(ExecutionError, match="cannot execute"):
            fn([np.ones((2, 8), np.float32), np.ones((8, 4), np.float32)], backend="cpu")
        with pytest.raises(EmitError, match="no C\\+\\+ for"):
            emitc_module(fn, fn.arg_names)
    with pytest.raises(TypeError, match="no cost for"):
        roofline(fn)

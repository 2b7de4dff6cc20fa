"""The pass registry: pipeline text, options, verify-each."""
import pytest
from mlir import ir

from ascend_mla.dialect import make_context
from ascend_mla.dialect.diagnostics import DiagnosticCollector
from ascend_mla.passes import PASSES, PassFailure, PassOption, parse_pipeline, register_pass, run_pipeline

VALID = """
func.func @f(%x: tensor<4x8xbf16>, %g: tensor<8xbf16>) -> tensor<4x8xbf16> {
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x8xbf16>, tensor<8xbf16>) -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}"""


@pytest.fixture(scope="module", autouse=True)
def test_passes():
    @register_pass("test-set-epsilon", "set epsilon on every rms_norm",
                   options=[PassOption("value", float, 0.5, "the new epsilon")])
    def set_epsilon(module, value):
        def visit(op):
            if op.operation.name == "mla.rms_norm":
                op.operation.attributes["epsilon"] = ir.FloatAttr.get(ir.F64Type.get(), value)
            return ir.WalkResult.ADVANCE
        module.walk(visit)

    @register_pass("test-fail", "always fails")
    def fail(module):
        module.location.emit_error("test-fail: refusing")
        raise PassFailure()
    yield
    del PASSES["test-set-epsilon"], PASSES["test-fail"]


def test_parse_pipeline_separates_ours_from_upstream():
    assert parse_pipeline("builtin.module(verify,test-set-epsilon{value=2.0},canonicalize,func.func(cse))") == [
        ("verify", ""), ("test-set-epsilon", "value=2.0"), ("canonicalize", None), ("func.func(cse)", None)]


def run(pipeline):
    context = make_context()
    with context, ir.Location.unknown(), DiagnosticCollector(context) as diags:
        module = ir.Module.parse(VALID)
        ok = run_pipeline(module, pipeline)
        return ok, str(module), [d.message for d in diags.diagnostics]


def test_options_reach_the_pass():
    ok, text, _ = run("builtin.module(test-set-epsilon{value=0.25},canonicalize)")
    assert ok and "epsilon = 2.500000e-01" in text


def test_verify_each_catches_a_pass_that_breaks_a_rule():
    ok, _, messages = run("builtin.module(test-set-epsilon{value=-1.0})")
    assert not ok
    assert any("epsilon: must be > 0, got -1.0 [RMS-005]" in m for m in messages)


def test_a_failing_pass_reports_its_diagnostic():
    ok, _, messages = run("builtin.module(test-fail)")
    assert not ok and "test-fail: refusing" in messages


def test_bad_option_values_are_errors():
    with pytest.raises(ValueError, match="option value: expected float, got 'abc'"):
        run("builtin.module(test-set-epsilon{value=abc})")
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['nope'\]"):
        run("builtin.module(test-set-epsilon{nope=1})")

"""mla-translate --emit-cpp: the C++ host program of a lowered function compiles against the
real acl/acl.h (torch-npu wheel) and the aclnn prototypes, and, linked against the recording
ACL TEST DOUBLE and run on the same data, makes the very calls the Python NPU backend makes
(every malloc, copy, aclCreateTensor with its view, strides, offset and storage, host list,
phase one, repeatable executor, workspace and launch, the synchronisation and the copies
back)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import acl_double  # noqa: E402

import ascend_mla  # noqa: E402
from ascend_mla.dialect.diagnostics import DiagnosticCollector  # noqa: E402
from ascend_mla.lowering.emit_cpp import EmitError, emit_cpp  # noqa: E402
from ascend_mla.models import deepseek  # noqa: E402
from ascend_mla.runtime import npu  # noqa: E402

UNFUSED = "builtin.module(verify)"


def model(quant="bf16"):
    return deepseek.build("deepseek-v3", tp=16, layers=1, batch=2, block_size=16, quant=quant)


def cpp_of(program) -> str:
    with program.context, DiagnosticCollector(program.context):
        return emit_cpp(program.module)


def data_files(directory: Path, program, inputs):
    """The program's inputs and weights as the C++ program reads them (device layout)."""
    directory.mkdir(exist_ok=True)
    for name, value in [*inputs.items(), *program.weights.items()]:
        data = value.data if hasattr(value, "to_nd") else value
        (directory / f"{name}.bin").write_bytes(np.ascontiguousarray(data).tobytes())


def run_python_backend(program, inputs, log: Path):
    saved = {k: os.environ.get(k) for k in ("ASCEND_HOME_PATH", "ACL_DOUBLE_LOG")}
    os.environ["ACL_DOUBLE_LOG"] = str(log)
    npu.reset()
    try:
        ascend_mla.set_backend("npu")
        program.run(**inputs)
    finally:
        ascend_mla.set_backend("cpu")
        npu.reset()
        ascend_mla.set_backend("auto")
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def same_calls(program, inputs, toolchain, tmp_path, monkeypatch) -> list:
    """Build the C++ program of `program`, run it and the Python NPU backend on `inputs`, both
    against the recording double; assert they make the same calls. Returns the launched aclnn
    functions."""
    include, root = toolchain
    source = tmp_path / "layer.cpp"
    source.write_text(cpp_of(program))
    built = acl_double.compile_cpp(source, include, root, tmp_path / "layer")
    assert built.returncode == 0, built.stderr[-3000:]
    data_files(tmp_path / "data", program, inputs)

    monkeypatch.setenv("ASCEND_HOME_PATH", str(root))
    python_log = tmp_path / "python.jsonl"
    run_python_backend(program, dict(inputs), python_log)
    cpp_log = tmp_path / "cpp.jsonl"
    done = subprocess.run([str(tmp_path / "layer"), str(tmp_path / "data"), str(tmp_path)],
                          env={**os.environ, "ACL_DOUBLE_LOG": str(cpp_log)}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    python_calls = acl_double.program_calls(acl_double.read_log(python_log))
    cpp_calls = acl_double.program_calls(acl_double.read_log(cpp_log))
    assert [c["fn"] for c in cpp_calls] == [c["fn"] for c in python_calls]
    assert cpp_calls == python_calls
    return [c["fn"] for c in cpp_calls if c["fn"].startswith("aclnn") and "GetWorkspaceSize" not in c["fn"]]


@pytest.mark.parametrize("pipeline", ["default", pytest.param(UNFUSED, marks=pytest.mark.slow)],
                         ids=["fused", "unfused"])
def test_the_cpp_program_makes_the_python_backends_calls(pipeline, toolchain, tmp_path, monkeypatch):
    m = model()
    program = ascend_mla.compile(m, pipeline=pipeline)
    launches = same_calls(program, m.inputs(0), toolchain, tmp_path, monkeypatch)
    expected = {"default": {"aclnnMlaPrologV2WeightNz", "aclnnFusedInferAttentionScoreV3"},
                UNFUSED: {"aclnnScatterPaKvCache", "aclnnFusedInferAttentionScoreV4", "aclnnInterleaveRope"}}
    assert expected[pipeline] <= set(launches)
    # the results came back: the double copies each launch's first input into its outputs
    assert (tmp_path / "result0.bin").stat().st_size == 2 * 1 * 7168 * 2


WRITTEN_OUT = """
func.func @f(%x: tensor<4x64xf32> {mla.name = "x"}, %w: tensor<64x32xi8> {mla.name = "w"})
    -> (tensor<4x1xf32>, tensor<4x64xi8>, tensor<4x32xf32>) {
  %sq = "mla.mul"(%x, %x) : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %mean = "mla.mean"(%sq) : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %r = "mla.rsqrt"(%mean) : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %a = math.absf %x : tensor<4x64xf32>
  %m = "mla.amax"(%a) : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %ratio = "mla.div"(%x, %m) : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %rounded = math.roundeven %ratio : tensor<4x64xf32>
  %lo = arith.constant dense<-128.0> : tensor<4x64xf32>
  %clamped = arith.maximumf %rounded, %lo : tensor<4x64xf32>
  %hi = arith.constant dense<127.0> : tensor<4x64xf32>
  %c = arith.minimumf %clamped, %hi : tensor<4x64xf32>
  %y = arith.fptosi %c : tensor<4x64xf32> to tensor<4x64xi8>
  %x32 = arith.extsi %y : tensor<4x64xi8> to tensor<4x64xi32>
  %w32 = arith.extsi %w : tensor<64x32xi8> to tensor<64x32xi32>
  %acc = "mla.matmul"(%x32, %w32) : (tensor<4x64xi32>, tensor<64x32xi32>) -> tensor<4x32xi32>
  %f = arith.sitofp %acc : tensor<4x32xi32> to tensor<4x32xf32>
  return %r, %y, %f : tensor<4x1xf32>, tensor<4x64xi8>, tensor<4x32xf32>
}"""


def test_the_written_out_rms_norm_and_quant_pieces_make_the_same_calls(toolchain, tmp_path, monkeypatch):
    """An imported program the raise passes did not touch: aclnnMean, aclnnRsqrt and the quant
    pieces (Abs, Amax, Round, Maximum, Minimum, Cast, an int32 Matmul) through the C++ emitter."""
    program = ascend_mla.compile(WRITTEN_OUT, pipeline=UNFUSED)
    rng = np.random.default_rng(0)
    inputs = {"x": rng.standard_normal((4, 64)).astype(np.float32),
              "w": rng.integers(-127, 128, (64, 32)).astype(np.int8)}
    launches = same_calls(program, inputs, toolchain, tmp_path, monkeypatch)
    assert {"aclnnMean", "aclnnRsqrt", "aclnnAbs", "aclnnAmax", "aclnnRound", "aclnnMaximum", "aclnnMinimum",
            "aclnnCast", "aclnnMatmul"} <= set(launches)


def test_generated_code_checks_every_status_and_compiles_against_the_real_headers(toolchain, tmp_path):
    include, root = toolchain
    program = ascend_mla.compile(model("w8a8"), pipeline=UNFUSED)
    code = cpp_of(program)
    source = tmp_path / "layer.cpp"
    source.write_text(code)
    built = acl_double.compile_cpp(source, include, root, None, syntax_only=True)
    assert built.returncode == 0, built.stderr[-3000:]
    assert '#include "acl/acl.h"' in code and '#include "aclnnop/aclnn_quant_matmul_v4.h"' in code
    # every ACL/aclnn call returning a status is checked on the next line
    lines = code.splitlines()
    for i, line in enumerate(lines):
        if (" = acl" in line) and ("aclError " in line or "aclnnStatus " in line):
            assert lines[i + 1].strip().startswith("ASCEND_MLA_CHECK("), line
        if "aclTensor* " in line and "aclCreateTensor(" in line:
            assert lines[i + 1].strip().startswith("ASCEND_MLA_CHECK_PTR("), line


def test_the_fused_w8a8c8_layer_is_the_documented_full_quant_call(toolchain, tmp_path, monkeypatch):
    """Where the unfused int8 attention cannot be emitted (below), the fused one over PA_NZ
    caches of block size 128 is FIA's MLA full-quant mode: the documented V4 call, which the
    C++ program makes as the Python NPU backend does."""
    m = deepseek.build("deepseek-v3", tp=16, layers=1, batch=2, block_size=128, quant="w8a8c8",
                       cache_mode="PA_NZ")
    program = ascend_mla.compile(m)
    launches = same_calls(program, m.inputs(0), toolchain, tmp_path, monkeypatch)
    assert {"aclnnMlaPrologV2WeightNz", "aclnnFusedInferAttentionScoreV4"} <= set(launches)
    assert "aclnnScatterPaKvCache" not in launches


def test_a_call_the_device_cannot_make_is_an_error(tmp_path):
    program = ascend_mla.compile(model("w8a8c8"), pipeline=UNFUSED)      # half_away query quant
    with pytest.raises(EmitError, match=r"aclnnDynamicQuant with \{'rounding': 'half_away'\}"):
        cpp_of(program)
    # the int8 attention primitive: V4 with the primitive's scales and numerics, not the
    # documented full-quant call
    text = (Path(__file__).parents[1] / "lit" / "lowering" / "attention-primitives.mlir").read_text()
    int8 = next(s for s in text.split("// -----") if "@paged_mla_int8" in s)
    with pytest.raises(EmitError, match=r"aclnnFusedInferAttentionScoreV4 with \{'numerics': 'mla.paged_attention'\}"):
        cpp_of(ascend_mla.compile(int8))

"""HCCL on the NPU backend and in the C++ host code: the HCCL declarations of
lowering/collective.py agree with CANN's hccl.h (as the torch-npu wheel ships it), the C++ of a
tp 2 layer type-checks against them, and, linked against the recording double, makes the calls
the Python NPU backend makes (communicator set-up, HcclAllReduce on the stream, on the very
buffers), in a world of one as a test process is."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import acl_double  # noqa: E402
from test_emit_cpp import cpp_of, same_calls  # noqa: E402

import ascend_mla  # noqa: E402
from ascend_mla.lowering.collective import HCCL_API, declarations  # noqa: E402
from ascend_mla.models import deepseek  # noqa: E402


def test_the_hccl_declarations_are_canns(toolchain, tmp_path):
    """Redeclaring a function with another prototype is an error in C++: the prototypes,
    after CANN's own header, compile only if they are the same."""
    include, _ = toolchain
    source = tmp_path / "check.cpp"
    source.write_text(f'#include "{acl_double.REAL_HCCL}"\nextern "C" {{\n{declarations()}}}\n')
    done = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Werror", "-I", str(include), str(source)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    # and a prototype that differs is caught (the check can fail)
    wrong = declarations().replace("uint64_t count", "uint32_t count")
    source.write_text(f'#include "{acl_double.REAL_HCCL}"\nextern "C" {{\n{wrong}}}\n')
    done = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-I", str(include), str(source)],
                          capture_output=True, text=True)
    assert done.returncode != 0 and "HcclAllReduce" in done.stderr
    assert set(HCCL_API) == {"HcclGetRootInfo", "HcclCommInitRootInfo", "HcclAllReduce", "HcclAllGather",
                             "HcclCommDestroy", "HcclGetCommName", "HcclGetRankId"}


def test_a_tp2_layer_calls_hccl_as_the_python_backend_does(toolchain, tmp_path, monkeypatch):
    monkeypatch.delenv("RANK", raising=False)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    m = deepseek.build("deepseek-v3", tp=2, layers=1, batch=2, block_size=16)
    program = ascend_mla.compile(m)
    include, root = toolchain
    source = tmp_path / "layer.cpp"
    code = cpp_of(program)
    source.write_text(code)
    checked = acl_double.compile_cpp(source, include, root, None, syntax_only=True)
    assert checked.returncode == 0, checked.stderr[-3000:]
    assert '#include "hccl/hccl.h"' in code and "HcclAllReduce(" in code and "HcclCommInitRootInfo(" in code

    same_calls(program, m.inputs(0), toolchain, tmp_path, monkeypatch)
    calls = acl_double.program_calls(acl_double.read_log(tmp_path / "cpp.jsonl"))
    hccl = [c for c in calls if c["fn"].startswith("Hccl")]
    assert [c["fn"] for c in hccl] == ["HcclGetRootInfo", "HcclCommInitRootInfo", "HcclAllReduce"]
    init, reduce = hccl[1], hccl[2]
    assert init == {"fn": "HcclCommInitRootInfo", "nRanks": 1, "rank": 0, "root_ok": True}
    # o_proj's (2, 1, 7168) bf16 partial sum, summed into another buffer of the arena, on the stream
    assert reduce["count"] == 2 * 1 * 7168 and reduce["dataType"] == 11 and reduce["op"] == 0
    assert reduce["comm_ok"] and reduce["stream_ok"]
    assert reduce["sendBuf"] != reduce["recvBuf"]
    # HcclAllReduce comes after o_proj's launch, before the residual add's
    launched = [c["fn"] for c in calls if c["fn"].startswith(("aclnn", "HcclAll")) and "GetWorkspaceSize" not in c["fn"]]
    at = launched.index("HcclAllReduce")
    assert launched[at - 1] == "aclnnMatmulWeightNz" and launched[at + 1] == "aclnnAdd", launched


def test_an_all_gather_in_the_cpp_code(toolchain, tmp_path):
    """The all-gather along the last axis: HcclAllGather into (world, ...), then the permuted copy."""
    include, root = toolchain
    program = ascend_mla.compile("""
func.func @f(%x: tensor<2x3xf32> {mla.name = "x"}) -> tensor<2x6xf32> {
  %y = "mla.all_gather"(%x) {world_size = 2 : i64, dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %y : tensor<2x6xf32>
}""")
    code = cpp_of(program)
    source = tmp_path / "gather.cpp"
    source.write_text(code)
    checked = acl_double.compile_cpp(source, include, root, None, syntax_only=True)
    assert checked.returncode == 0, checked.stderr[-3000:]
    assert "HcclAllGather(" in code and "HCCL_DATA_TYPE_FP32" in code and "aclnnInplaceCopy(" in code
    # a gathering program needs its ranks: alone it stops before any call
    assert "ascend_mla_check_world(" in code and ", 2, false)" in code


def test_a_failing_hccl_call_is_one_clear_error(toolchain, tmp_path, monkeypatch):
    """HCCL_E_TIMEOUT (9) from HcclAllReduce: the Python NPU backend raises HcclError naming the
    function and the status; the C++ program prints the same and exits 1."""
    import os

    from test_emit_cpp import data_files

    from ascend_mla.runtime import npu
    from ascend_mla.runtime.collective import HcclError
    monkeypatch.delenv("RANK", raising=False)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    include, root = toolchain
    m = deepseek.build("deepseek-v2-lite", tp=2, layers=1, batch=1, block_size=16)
    program = ascend_mla.compile(m)
    monkeypatch.setenv("ASCEND_HOME_PATH", str(root))
    monkeypatch.setenv("ACL_DOUBLE_LOG", str(tmp_path / "python.jsonl"))
    monkeypatch.setenv("ACL_DOUBLE_FAIL", "HcclAllReduce:9")
    npu.reset()
    try:
        ascend_mla.set_backend("npu")
        with pytest.raises(HcclError, match=r"HcclAllReduce failed: 9 HCCL_E_TIMEOUT"):
            program.run(**m.inputs(0))
    finally:
        ascend_mla.set_backend("cpu")
        npu.reset()
        ascend_mla.set_backend("auto")
    source = tmp_path / "layer.cpp"
    source.write_text(cpp_of(program))
    built = acl_double.compile_cpp(source, include, root, tmp_path / "layer")
    assert built.returncode == 0, built.stderr[-3000:]
    data_files(tmp_path / "data", program, m.inputs(0))
    done = subprocess.run([str(tmp_path / "layer"), str(tmp_path / "data")], capture_output=True, text=True,
                          env={**os.environ, "ACL_DOUBLE_LOG": str(tmp_path / "cpp.jsonl")})
    assert done.returncode == 1 and done.stderr.strip() == "HcclAllReduce failed: 9", done.stderr

"""mla-opt, mla-run and mla-translate as a new user first meets them: a wrong path, a folder, a
file that is not MLIR, an op its rules reject, a flag that does not exist, an NPU that is not
there. Each ends with one error line naming the problem: status 1 for what the tool could not
do, argparse's usage and status 2 for a command line it cannot parse; never a traceback.
(test_tool_errors.py and the fuzzers in test/fuzz cover the harder cases.)"""
import pytest

from ascend_mla.tools import mla_opt, mla_run, mla_translate

TOOLS = {"mla-opt": mla_opt.main, "mla-run": mla_run.main, "mla-translate": mla_translate.main}
FLAGS = {"mla-opt": [], "mla-run": [], "mla-translate": ["--emit-cpp"]}
NORM = """func.func @norm(%x: tensor<2x64xbf16>, %g: tensor<64xbf16>) -> tensor<2x64xbf16> {
  %0 = "mla.rms_norm"(%x, %g) : (tensor<2x64xbf16>, tensor<64xbf16>) -> tensor<2x64xbf16>
  return %0 : tensor<2x64xbf16>
}
"""
BAD_GAMMA = NORM.replace("%g: tensor<64xbf16>", "%g: tensor<63xbf16>").replace(
    "(tensor<2x64xbf16>, tensor<64xbf16>)", "(tensor<2x64xbf16>, tensor<63xbf16>)")
NO_LOWERING = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def last_line(status, err, wanted_status):
    assert status == wanted_status, err
    assert "Traceback" not in err and err.endswith("\n")
    return err.strip().splitlines()[-1]


def call(tool, argv, capsys):
    try:
        status = TOOLS[tool](argv)
    except SystemExit as exit:                   # argparse
        status = exit.code
    return status, capsys.readouterr().err


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("case", ["missing", "folder", "not-mlir", "not-utf8", "rule"])
def test_an_input_the_tool_cannot_use_is_one_line_and_status_1(tool, case, tmp_path, capsys):
    path = tmp_path / "in.mlir"
    if case == "folder":
        path = tmp_path
    elif case == "not-mlir":
        path.write_text("func.func @f(")
    elif case == "not-utf8":
        path.write_bytes(b"\xff\xfe")
    elif case == "rule":
        path.write_text(BAD_GAMMA)
    line = last_line(*call(tool, [*FLAGS[tool], str(path)], capsys), 1)
    expected = {
        "missing": f"{tool}: error: cannot read {path}: No such file or directory",
        "folder": f"{tool}: error: cannot read {path}: Is a directory",
        "not-mlir": f"{path}:1:13: error: expected non-function type",
        "not-utf8": f"{path}:1:1: error: unexpected character",
        "rule": f"{path}:2:8: error: 'mla.rms_norm' op gamma: expected shape (64,) (the last "
                f"dimension of x), got (63,) [RMS-003]",
    }[case]
    assert line.endswith(expected)       # mla-run prefixes a diagnostic with "mla-run: error: "


@pytest.mark.parametrize("tool", TOOLS)
def test_an_unknown_flag_is_a_usage_error(tool, tmp_path, capsys):
    (tmp_path / "f.mlir").write_text(NORM)
    line = last_line(*call(tool, [*FLAGS[tool], str(tmp_path / "f.mlir"), "--frobnicate"], capsys), 2)
    assert line == f"{tool}: error: unrecognized arguments: --frobnicate"


def test_mla_run_on_an_npu_that_is_not_there(tmp_path, capsys, monkeypatch):
    for name in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "LD_LIBRARY_PATH"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "f.mlir").write_text(NORM)
    line = last_line(*call("mla-run", [str(tmp_path / "f.mlir"), "--backend", "npu"], capsys), 1)
    assert line.startswith("mla-run: error: backend 'npu': the CANN runtime is missing") and "libascendcl.so" in line


@pytest.mark.parametrize("argv,message", [
    ([], "the following arguments are required: --emit-cpp"),
    (["--emit-cpp", "--function", "nope"], "mla-translate: error: no function @nope in the module"),
    (["--emit-cpp", "-o", "{tmp}/no/such/dir/out.cpp"], "mla-translate: error: cannot write {tmp}/no/such/dir/out.cpp: No such file or directory"),
], ids=["no-emit-cpp", "unknown-function", "unwritable-output"])
def test_mla_translate_mistakes(argv, message, tmp_path, capsys):
    (tmp_path / "f.mlir").write_text(NORM)
    argv = [a.format(tmp=tmp_path) for a in argv] + [str(tmp_path / "f.mlir")]
    line = last_line(*call("mla-translate", argv, capsys), 2 if not argv[0].startswith("--") else 1)
    assert line.endswith(message.format(tmp=tmp_path))


def test_mla_translate_an_op_with_no_aclnn_call(tmp_path, capsys):
    (tmp_path / "f.mlir").write_text(NO_LOWERING)
    line = last_line(*call("mla-translate", ["--emit-cpp", str(tmp_path / "f.mlir")], capsys), 1)
    assert line == f"{tmp_path / 'f.mlir'}:2:8: error: 'arith.addf' op has no lowering to aclnn calls"

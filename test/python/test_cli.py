"""`ascend-mla run` (docs/api.md 7) as a new user meets it: what it prints, and every way a command
line can go wrong ending in one line on stderr with exit status 2 (the command line) or 1
(compiling, running, a check), never a traceback unless --debug.

The default command itself (`ascend-mla run`, no options) is the README's first command: CI runs
it (.ci/run) and test_docs.py runs it and checks the README's sample of its output. docs/cli.md's
commands, run and checked the same way, cover a config the fused ops refuse (the last line names
the rules, exit 0), `--report` at the default size (the 77 us prolog figure) and `--from-torch`."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ascend_mla.tools import ascend_mla_cli as cli

BIN = Path(sys.executable).parent
SMALL = ["--layers", "1", "--batch", "2", "--steps", "2"]


def run(argv, capsys):
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def one_line(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ascend-mla: error: "), err
    assert "Traceback" not in err
    return lines[0]


def test_a_small_run_prints_fusions_calls_memory_times_errors_and_writes_ir_and_cpp(tmp_path, capsys):
    status, out, err = run(["run", *SMALL, "--report", "--dump-ir", str(tmp_path / "ir"),
                            "--emit-cpp", str(tmp_path / "decode.cpp")], capsys)
    assert status == 0, err
    assert "fused (2):" in out and "mla.prolog_v2" in out and "mla.fused_infer_attention_score" in out
    assert "refused (0):" in out
    # one layer: 6 calls, and the two rope-table lookups the layers share
    assert "kernel calls per step: 8 fused (8 per layer), 24 unfused (24 per layer)" in out
    assert "memory plan:" in out and "time per step: fused" in out and "max error: fused vs unfused" in out
    assert out.rstrip().endswith("ok")
    # --report: the roofline table, fused against unfused per layer, the prolog figure
    assert "aclnnMlaPrologV2WeightNz" in out and "total: 8 launches" in out
    assert "unfused, weights pre-packed" in out and "unfused, as written" in out
    assert "at N = 128 (tp 1):" in out and "at 1.6 TB/s -> 7" in out
    # --dump-ir: every stage, in order, each a module mla-opt reads back
    files = sorted(os.listdir(tmp_path / "ir"))
    assert files[0] == "00-input.mlir" and files[-1].endswith("-lower-to-aclnn.mlir")
    assert any("fuse-prolog" in f for f in files)
    done = subprocess.run([str(BIN / "mla-opt"), str(tmp_path / "ir" / files[0])], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # --emit-cpp: the host program of the fused kernel calls
    code = (tmp_path / "decode.cpp").read_text()
    assert '#include "aclnnop/aclnn_mla_prolog_v2_weight_nz.h"' in code
    assert "aclnnMlaPrologV2WeightNzGetWorkspaceSize(" in code


@pytest.mark.parametrize("argv,message", [
    ([], "expected a command: ascend-mla run"),
    (["frob"], "argument COMMAND: invalid choice: 'frob'"),
    (["run", "--tp", "x"], "argument --tp: expected an integer, got 'x'"),
    (["run", "--tp", "0"], "argument --tp: expected an integer >= 1, got 0"),
    (["run", "--tp", "3"], "--tp: must divide the 128 attention heads of deepseek-v3, got 3"),
    (["run", "--layers", "62"], "--layers: deepseek-v3 has 61 layers, got 62"),
    (["run", "--steps", "-1"], "argument --steps: expected an integer >= 1, got -1"),
    (["run", "--model", "llama"], "argument --model: invalid choice: 'llama'"),
    (["run", "--quant", "fp8"], "argument --quant: invalid choice: 'fp8'"),
    (["run", "--cache-mode", "NZ"], "argument --cache-mode: invalid choice: 'NZ'"),
    (["run", "--target", "gpu"], "argument --target: invalid choice: 'gpu'"),
    (["run", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    (["run", "--from-torch", "--quant", "w8a8c8"], "--from-torch: the PyTorch reference module is bf16 or w8a8"),
    (["run", "--naive"], "--naive: the naive form is a PyTorch module (add --from-torch)"),
    (["run", "--from-torch", "--naive", "--quant", "w8a8"], "--naive: the naive PyTorch module is bf16"),
    (["run", "--tp", "1", "--layers", "61"], "this run needs about"),
], ids=["no-command", "unknown-command", "tp-not-a-number", "tp-zero", "tp-not-a-divisor", "too-many-layers",
        "negative-steps", "unknown-model", "unknown-quant", "unknown-cache-mode", "unknown-target",
        "unknown-flag", "from-torch-quant", "naive-without-torch", "naive-quant", "more-memory-than-here"])
def test_a_bad_command_line_is_one_line_and_status_2(argv, message, capsys):
    status, out, err = run(argv, capsys)
    assert status == 2
    assert message in one_line(err)


def test_target_npu_without_an_npu_says_what_is_missing(capsys, monkeypatch):
    for name in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "LD_LIBRARY_PATH"):
        monkeypatch.delenv(name, raising=False)
    status, out, err = run(["run", "--target", "npu"], capsys)
    assert status == 1
    line = one_line(err)
    assert "--target npu:" in line and "libascendcl.so" in line


def test_an_output_it_cannot_write_is_status_1(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    status, out, err = run(["run", *SMALL, "--dump-ir", str(blocker / "ir")], capsys)
    assert status == 1 and "cannot write" in one_line(err) and str(blocker) in err
    status, out, err = run(["run", *SMALL, "--emit-cpp", str(tmp_path / "no" / "such" / "x.cpp")], capsys)
    assert status == 1 and "cannot write" in one_line(err)


def test_a_failed_check_is_status_1(capsys, monkeypatch):
    """The checks can fail: with a zero tolerance the bf16 differences from the float64
    reference fail them."""
    monkeypatch.setitem(cli.TOLERANCE, "bf16", 0.0)
    status, out, err = run(["run", *SMALL], capsys)
    assert status == 1
    assert "check failed: the fused program differs from the float64 reference by" in one_line(err)


def test_an_unexpected_error_is_one_line_and_debug_shows_the_traceback(capsys, monkeypatch):
    def broken(self):
        raise KeyError("boom")
    monkeypatch.setattr(cli.Run, "main", broken)
    status, out, err = run(["run"], capsys)
    assert status == 1 and "run with --debug for the traceback" in one_line(err)
    with pytest.raises(KeyError):
        cli.main(["run", "--debug"])


def test_the_console_script_is_installed_and_a_bad_value_is_one_line():
    done = subprocess.run([str(BIN / "ascend-mla"), "run", "--batch", "many"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "ascend-mla: error: argument --batch: expected an integer, got 'many' " \
                          "(see ascend-mla run --help)\n"

"""mla-opt and mla-run on input they cannot use: exit 1 with an error line, never a traceback
(issue 13's classes, each of which used to end in a traceback)."""
import io
import sys

import numpy as np
import pytest

from ascend_mla.tools import mla_opt, mla_run

NORM = """func.func @norm(%x: tensor<2x64xbf16>, %g: tensor<64xbf16>) -> tensor<2x64xbf16> {
  %0 = "mla.rms_norm"(%x, %g) : (tensor<2x64xbf16>, tensor<64xbf16>) -> tensor<2x64xbf16>
  return %0 : tensor<2x64xbf16>
}
"""


def run(main, argv, capsys, stdin=b""):
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        status = main(argv)
    finally:
        sys.stdin = saved
    return status, capsys.readouterr().err


@pytest.mark.parametrize("tool", [mla_opt.main, mla_run.main])
def test_bytes_that_are_not_utf8_are_an_error_at_their_position(tool, tmp_path, capsys):
    path = tmp_path / "bad.mlir"
    path.write_bytes(b"func.func @f() {\n  \xff return\n}\n")
    status, err = run(tool, [str(path)], capsys)
    assert status == 1 and f"{path}:2:3: error: unexpected character" in err


def test_mla_opt_reads_raw_bytes_from_stdin_too(capsys):
    status, err = run(mla_opt.main, ["-"], capsys, stdin=b"\xfe\xff")
    assert (status, err.strip()) == (1, "<stdin>:1:1: error: unexpected character")


def test_a_diagnostic_quoting_bytes_that_are_not_utf8(tmp_path, capsys):
    # The op name holds the byte: the message cannot be converted to text, the error remains.
    path = tmp_path / "bad.mlir"
    path.write_bytes(b'func.func @f() {\n  "mla.rms\xffnorm"() : () -> ()\n  return\n}\n')
    status, err = run(mla_opt.main, [str(path)], capsys)
    assert status == 1 and f"{path}:2:3: error: " in err


def test_mla_opt_cannot_write_its_output(tmp_path, capsys):
    path = tmp_path / "norm.mlir"
    path.write_text(NORM)
    status, err = run(mla_opt.main, [str(path), "-o", str(tmp_path / "no" / "out.mlir")], capsys)
    assert status == 1 and "mla-opt: error: cannot write" in err


DYNAMIC = NORM.replace("tensor<2x64xbf16>", "tensor<?x64xbf16>")
SCALAR_ARGUMENT = NORM.replace("@norm(%x", "@norm(%n: i32, %x")
F8_ARGUMENT = "func.func @f(%a: tensor<2xf8E4M3FN>) -> tensor<2xf8E4M3FN> {\n  return %a : tensor<2xf8E4M3FN>\n}\n"
DECLARATION = "func.func private @f(%a: tensor<2xf32>) -> tensor<2xf32>\n"
RANK1_NZ = ('func.func @f(%a: tensor<16xbf16, #mla.format<"FRACTAL_NZ">>) -> tensor<16xbf16, #mla.format<"FRACTAL_NZ">> {\n'
            '  return %a : tensor<16xbf16, #mla.format<"FRACTAL_NZ">>\n}\n')


@pytest.mark.parametrize("source,extra,message", [
    (DYNAMIC, [], "has a dynamic dimension: give its value with --inputs"),
    (SCALAR_ARGUMENT, [], "argument #0: expected a ranked tensor, got i32"),
    (F8_ARGUMENT, [], "argument #0: element type f8E4M3FN has no NumPy equivalent"),
    (DECLARATION, [], "@f is a declaration (it has no body to run)"),
    (RANK1_NZ, [], "FRACTAL_NZ needs a tensor of rank >= 2"),
    (NORM, ["--pass-pipeline", "bogus("], "unbalanced parentheses"),
    (NORM, ["--pass-pipeline", "builtin.module(no-such-pass)"], "'no-such-pass' does not refer to a registered pass"),
    (NORM, ["--seed", "-1"], "--seed: expected a non-negative integer, got -1"),
], ids=["dynamic-dims", "scalar-argument", "f8-argument", "declaration", "rank1-nz",
        "unbalanced-pipeline", "unknown-pass", "negative-seed"])
def test_mla_run_refuses_what_it_cannot_run(source, extra, message, tmp_path, capsys):
    path = tmp_path / "f.mlir"
    path.write_text(source)
    status, err = run(mla_run.main, [str(path), *extra], capsys)
    assert status == 1 and err.startswith("mla-run: error: ") and message in err


@pytest.mark.parametrize("content,message", [
    (b"garbage", "cannot read inputs from"),
    ("npy", "expected an .npz archive"),
    ("objects", "Object arrays cannot be loaded"),
    ("three", "holds 3 arrays, the function takes 2"),
    ("complex", "has element type complex64, the function takes bf16"),
])
def test_mla_run_inputs_it_cannot_use(content, message, tmp_path, capsys):
    (tmp_path / "f.mlir").write_text(NORM)
    inputs = tmp_path / "in.npz"
    if content == "npy":
        np.save(tmp_path / "in.npy", np.ones(3))
        inputs = tmp_path / "in.npy"
    elif content == "objects":
        np.savez(inputs, np.array([object()]), np.ones(64))
    elif content == "three":
        np.savez(inputs, np.ones((2, 64)), np.ones(64), np.ones(1))
    elif content == "complex":
        np.savez(inputs, np.ones((2, 64), np.complex64), np.ones(64))
    else:
        inputs.write_bytes(content)
    status, err = run(mla_run.main, [str(tmp_path / "f.mlir"), "--inputs", str(inputs)], capsys)
    assert status == 1 and err.startswith("mla-run: error: ") and message in err


def test_mla_run_inputs_of_the_wrong_shape_stop_before_the_first_op(tmp_path, capsys):
    (tmp_path / "f.mlir").write_text(NORM)
    np.savez(tmp_path / "in.npz", np.ones((3, 64), np.float32), np.ones(64, np.float32))
    status, err = run(mla_run.main, [str(tmp_path / "f.mlir"), "--inputs", str(tmp_path / "in.npz")], capsys)
    assert status == 1 and "input 0 has type tensor<3x64xbf16>, the IR says tensor<2x64xbf16>" in err


def test_mla_run_cannot_write_its_output(tmp_path, capsys):
    (tmp_path / "f.mlir").write_text(NORM)
    status, err = run(mla_run.main, [str(tmp_path / "f.mlir"), "-o", str(tmp_path / "no" / "o.npz")], capsys)
    assert status == 1 and "mla-run: error: cannot write" in err


def test_mla_run_a_function_whose_name_is_not_utf8(tmp_path, capsys):
    path = tmp_path / "f.mlir"
    path.write_text(NORM.replace("@norm", '@"\\FF"'))
    status, err = run(mla_run.main, [str(path)], capsys)
    assert status == 0 and err == ""

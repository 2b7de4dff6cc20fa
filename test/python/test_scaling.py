"""Costs that must stay linear or flat (issue 13): these failed before their fixes.

Times are compared as ratios within one run (best of three), never against absolute budgets:
a linear cost grows ~4x when its input grows 4x, a quadratic one ~16x. The absolute numbers
are in bench/bench_tools.py.
"""
import gc
import time

from mlir import ir

from ascend_mla.dialect.diagnostics import Diagnostic
from ascend_mla.dialect.types import describe_type
from ascend_mla.tools import mla_opt
from ascend_mla.tools.verify_diagnostics import DiagnosticVerifier


def best_time(fn, repeat=3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def growth(make_work, n) -> float:
    """time(4n) / time(n)."""
    small, large = make_work(n), make_work(4 * n)
    return best_time(large) / best_time(small)


def test_split_input_file_keeps_no_context_alive(tmp_path, capsys):
    chunk = "func.func @f(%x: tensor<2x64xbf16>) -> tensor<2x64xbf16> {\n  return %x : tensor<2x64xbf16>\n}\n"
    path = tmp_path / "many.mlir"
    path.write_text("// -----\n".join([chunk] * 40))
    gc.collect()
    before = ir.Context._get_live_count()
    assert mla_opt.main([str(path), "--split-input-file", "-o", str(tmp_path / "out.mlir")]) == 0
    gc.collect()
    assert ir.Context._get_live_count() == before   # was: one more context per split


def test_verify_diagnostics_matching_is_linear():
    def work(n):
        text = "\n".join(f"op // expected-error {{{{message {i}}}}}" for i in range(n))
        diagnostics = [Diagnostic("error", f"the message {i}", i + 1, 1) for i in range(n)]

        def run():
            verifier = DiagnosticVerifier(text, "f.mlir")
            for d in diagnostics:
                verifier.process(d)
            assert verifier.finish() == []
        return run
    assert growth(work, 4000) < 8


def test_describing_a_tensor_type_is_linear_in_its_rank():
    context = ir.Context()

    def work(rank):
        with context, ir.Location.unknown():
            t = ir.RankedTensorType.get([1] * rank, ir.F32Type.get())
        return lambda: describe_type(t)
    assert growth(work, 4000) < 8

"""Benchmark: mla-opt's costs that must grow linearly (or not at all) with the input.

    python bench/bench_tools.py [--quick] [--mla-opt PATH]

  1. --split-input-file: peak RSS (the child's ru_maxrss) and time for 1000 and 5000 small
     splits, and the memory each further split costs; baseline in the same run: upstream
     mlir-opt (the venv's, given the mla IRDL) on the same files.
  2. --verify-diagnostics: a file of N functions, each with one error and its annotation, for
     N = 10 000 and 40 000 (time grows 4x when linear, 16x when quadratic); the same baseline.
  3. The Python verifier against the rank of the tensors it describes: rank 2000 and 8000
     (parsing excluded: MLIR's own parser is not linear in the rank either, see the baseline).
`--mla-opt` times another build's mla-opt (e.g. an older checkout's) with the same inputs.
Times are best of three. Not a test.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mlir import ir

from ascend_mla.dialect.dialect import irdl_module_text, make_context, verify_ops

CHUNK = """func.func @f{i}(%x: tensor<2x64xbf16>, %g: tensor<64xbf16>) -> tensor<2x64xbf16> {{
  %0 = "mla.rms_norm"(%x, %g) : (tensor<2x64xbf16>, tensor<64xbf16>) -> tensor<2x64xbf16>
  return %0 : tensor<2x64xbf16>
}}
"""
ANNOTATED = "func.func @f{i}() -> i32 {{\n  return // expected-error {{{{has 0 operands}}}}\n}}\n"


def cpu_flags() -> str:
    try:
        words = set(open("/proc/cpuinfo").read().split())
    except OSError:
        return "unknown"
    wanted = ["avx2", "avx512f", "avx512_bf16", "amx_bf16"]
    return ", ".join(f"{w}={'yes' if w in words else 'no'}" for w in wanted) + f", {os.cpu_count()} cores"


def run(argv) -> tuple[float, float, int]:
    """(seconds, peak RSS in MB, exit status) of one child process."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def best(argv, repeat=3):
    runs = [run(argv) for _ in range(repeat)]
    return min(r[0] for r in runs), max(r[1] for r in runs), runs[0][2]


def upstream_mlir_opt() -> str:
    import mlir
    return os.path.join(list(mlir.__path__)[0], "bin", "mlir-opt")


def both(ours: str, irdl: Path, path: Path, flag: str, repeat: int):
    """(ours, upstream mlir-opt's) best runs on one file."""
    return (best([ours, str(path), flag], repeat),
            best([upstream_mlir_opt(), f"--irdl-file={irdl}", str(path), flag], repeat))


def split_memory(tmp: Path, ours: str, irdl: Path, sizes):
    print("\n1. --split-input-file, peak RSS")
    rows = {}
    for n in sizes:
        path = tmp / f"split{n}.mlir"
        path.write_text("// -----\n".join(CHUNK.format(i=i) for i in range(n)))
        rows[n] = mine, up = both(ours, irdl, path, "--split-input-file", repeat=1)
        print(f"  {n:5d} splits: mla-opt {mine[1]:7.0f} MB {mine[0]:6.2f} s | upstream mlir-opt "
              f"{up[1]:5.0f} MB {up[0]:5.2f} s | RSS ratio {mine[1] / up[1]:.2f}x")
    small, large = sizes
    per_split = (rows[large][0][1] - rows[small][0][1]) / (large - small) * 1024
    print(f"  memory per further split: {per_split:.1f} KB (upstream "
          f"{(rows[large][1][1] - rows[small][1][1]) / (large - small) * 1024:.1f} KB)")


def verify_diagnostics(tmp: Path, ours: str, irdl: Path, sizes):
    print("\n2. --verify-diagnostics, N annotated errors")
    times = {}
    for n in sizes:
        path = tmp / f"annotated{n}.mlir"
        path.write_text("".join(ANNOTATED.format(i=i) for i in range(n)))
        mine, up = both(ours, irdl, path, "--verify-diagnostics", repeat=3)
        assert mine[2] == up[2] == 0, (mine, up)
        times[n] = (mine[0], up[0])
        print(f"  {n:6d}: mla-opt {mine[0]:6.2f} s | upstream mlir-opt {up[0]:5.2f} s | ratio {mine[0] / up[0]:.1f}x")
    small, large = sizes
    print(f"  growth {small} -> {large} ({large // small}x the input): mla-opt "
          f"{times[large][0] / times[small][0]:.1f}x, upstream {times[large][1] / times[small][1]:.1f}x")


def verifier_rank(ranks):
    print("\n3. the Python verifier against tensor rank (parsing excluded)")
    times = {}
    for rank in ranks:
        dims = "x".join(["1"] * (rank - 1) + ["8"])
        text = (f'func.func @f(%x: tensor<{dims}xf32>, %g: tensor<8xf32>) -> tensor<{dims}xf32> {{\n'
                f'  %0 = "mla.rms_norm"(%x, %g) : (tensor<{dims}xf32>, tensor<8xf32>) -> tensor<{dims}xf32>\n'
                f'  return %0 : tensor<{dims}xf32>\n}}\n')
        with make_context():
            module = ir.Module.parse(text)
            seconds = min(_timed(lambda: verify_ops(module.operation)) for _ in range(3))
        times[rank] = seconds
        print(f"  rank {rank:5d}: {seconds * 1e3:8.2f} ms")
    small, large = ranks
    print(f"  growth {small} -> {large} ({large // small}x the rank): {times[large] / times[small]:.1f}x")


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smaller inputs")
    p.add_argument("--mla-opt", default=str(Path(sys.executable).parent / "mla-opt"),
                   help="the mla-opt to time (default: this venv's)")
    args = p.parse_args()
    print(f"CPU: {cpu_flags()}")
    print(f"mla-opt: {args.mla_opt}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        irdl = tmp / "mla.irdl.mlir"
        irdl.write_text(irdl_module_text())
        split_memory(tmp, args.mla_opt, irdl, (200, 1000) if args.quick else (1000, 5000))
        verify_diagnostics(tmp, args.mla_opt, irdl, (2500, 10000) if args.quick else (10000, 40000))
    verifier_rank((2000, 8000))


if __name__ == "__main__":
    main()

"""int8 x int8 products (w8a8) on the CPU backend: torch's int8 GEMM against float32 BLAS (not a test).

    python bench/bench_int8.py [--quick] [--cpu-time]

gemm.int8_matmul's sums are exact whatever the order, so two routes give the same bits:
  int_mm   torch._int_mm, int8 x int8 -> int32 (what the kernels use when torch runs the
           products), on the int8 weight itself;
  blas     the float32 route it replaced: NumPy (OpenBLAS) sgemm on a float32 copy of the int8
           weight, in K-chunks of 1024 that keep every partial sum exact (the baseline; what
           ASCEND_MLA_MATMUL=numpy runs).
Shapes: DeepSeek-V3's int8 projections (He 7168, Hcq 1536, Hckv 512 + 64, 128 heads' q_b
(1536 x 24576), an expert's gate_up/down at moe_intermediate 2048) at decode (8 rows) and a
prefill chunk (128 rows). Both routes' weights are converted once (read-only weights), as in a
compiled program. Prints the machine, the medians, blas / int_mm, the weight bytes each reads,
and that the outputs are equal.
"""
from __future__ import annotations

import argparse

import numpy as np
from timing import CPU_TIME_HELP, machine, median_times  # first: sets threads

from ascend_mla.runtime.kernels import gemm

SHAPES = [("W_dq", 7168, 1536), ("W_dkv_kr", 7168, 576), ("W_uq_qr, 128 heads", 1536, 24576),
          ("expert gate_up", 7168, 4096), ("expert down", 2048, 7168)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--cpu-time", action="store_true", help=CPU_TIME_HELP)
    args = parser.parse_args()
    repeats = 5 if args.quick else 15
    print(machine())
    print(f"medians of {repeats} interleaved runs (ms)")
    header = f"{'product':<20} {'rows':>5} {'K x N':>12} | {'int_mm':>8} {'blas':>8} | {'blas/int_mm':>11} | weight MB read: int_mm, blas | equal"
    print(header)
    print("-" * len(header))
    rng = np.random.default_rng(0)
    cases = []
    for name, k, n in SHAPES:
        w = rng.integers(-128, 128, (k, n)).astype(np.int8)
        w.flags.writeable = False                       # a constant: converted once, as compiled
        for rows in (8, 128):
            x = rng.integers(-128, 128, (rows, k)).astype(np.int8)
            cases.append((name, rows, k, n, (lambda x=x, w=w: gemm.int8_matmul(x, w)),
                          (lambda x=x, w=w, rows=rows, k=k, n=n: blas(x, w, rows, k, n))))
    # every int_mm run first, then every BLAS run: OpenBLAS's workers spin for a while after
    # each call and take the cores from a torch call that follows (measured: 2-8x slower)
    int_mm = [median_times({"int_mm": c[4]}, repeats)["int_mm"][0] for c in cases]
    baseline = [median_times({"blas": c[5]}, repeats)["blas"][0] for c in cases]
    for (name, rows, k, n, ours, theirs), a, b in zip(cases, int_mm, baseline):
        equal = np.array_equal(ours(), theirs())
        print(f"{name:<20} {rows:>5} {f'{k}x{n}':>12} | {a * 1e3:8.2f} {b * 1e3:8.2f} | "
              f"{b / a:11.2f} | {k * n / 1e6:.1f}, {4 * k * n / 1e6:.1f} | {equal}")


def blas(x, w, rows, k, n):
    """The float32 route (gemm.int8_matmul_blas) on the weight's float32 copy, made once."""
    return gemm.int8_matmul_blas(x, gemm.weight_f32(w))

if __name__ == "__main__":
    main()

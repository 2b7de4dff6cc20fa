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

from timing import CPU_TIME_HELP, machine, median_times   # first: sets threads

import numpy as np

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
    for name, k, n in SHAPES:
        w = rng.integers(-128, 128, (k, n)).astype(np.int8)
        w.flags.writeable = False                       # a constant: converted once, as compiled
        for rows in (8, 128):
            x = rng.integers(-128, 128, (rows, k)).astype(np.int8)

            def blas():
                wf = gemm.weight_f32(w)
                acc = np.zeros((rows, n), np.float64)
                for start in range(0, k, gemm._INT8_K_CHUNK):
                    acc += x[:, start:start + gemm._INT8_K_CHUNK].astype(np.float32) @ wf[start:start + gemm._INT8_K_CHUNK]
                return acc.astype(np.float32)
            equal = np.array_equal(gemm.int8_matmul(x, w), blas())
            t = median_times({"int_mm": lambda: gemm.int8_matmul(x, w)}, repeats)
            # timed apart: OpenBLAS's spinning workers would slow the torch run after them
            t.update(median_times({"blas": blas}, repeats))
            ms = {key: v[0] * 1e3 for key, v in t.items()}
            print(f"{name:<20} {rows:>5} {f'{k}x{n}':>12} | {ms['int_mm']:8.2f} {ms['blas']:8.2f} | "
                  f"{ms['blas'] / ms['int_mm']:11.2f} | {k * n / 1e6:.1f}, {4 * k * n / 1e6:.1f} | {equal}")


if __name__ == "__main__":
    main()

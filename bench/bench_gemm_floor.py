"""What bounds the decode prolog against its weight-read floor: its four bf16 products (not a test).

    python bench/bench_gemm_floor.py [--quick]

The prolog's decode (T = 8) products run in the MLIR-compiled bf16 kernels (runtime/kernels/jit.py,
the default under the rounding contract of docs/numerics.md), reading the weights as bf16 in
16-column panels. This prints, in one run on this machine:
  1. memory read rates: np.copyto (read + write bytes per second: the floor bench_prolog.py
     divides by) and a pure read (torch sum) with 1 and 2 threads;
  2. each of the four decode products alone, its weight streamed from memory (the caches are
     flushed before each call by writing a 256 MB buffer): ms and GB/s of weight read, the
     compiled kernels with 1 and 2 threads, oneDNN's bf16 GEMM on a packed weight (what the
     kernels called before the contract) and torch eager's F.linear with 2 threads, their sums
     against the floor (the "mm/read" bench_prolog.py prints);
  3. whether each gives the same bits with 1 and 2 threads (the contract's determinism).
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import ml_dtypes
import numpy as np
import torch
from timing import machine  # first: the machine line

from ascend_mla.runtime.kernels import gemm

BF16 = np.dtype(ml_dtypes.bfloat16)
HE, HCQ, HCKV, D, DR, T = 7168, 1536, 512, 128, 64, 8


def flushed_median(fn, flush, repeats):
    """Median wall time of fn with the caches flushed before each call."""
    fn()
    times = []
    for _ in range(repeats):
        flush.add_(1.0)
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def read_rates(flush, repeats):
    src = np.ones(64 * 2**20, np.float32)
    dst = np.zeros_like(src)
    rates = {"np.copyto r+w": 2 * src.nbytes / flushed_median(lambda: np.copyto(dst, src), flush, repeats)}
    big = torch.ones(64 * 2**20)
    for threads in (1, 2):
        torch.set_num_threads(threads)
        rates[f"read, {threads} thread{'s' * (threads > 1)}"] = \
            big.numel() * 4 / flushed_median(big.sum, flush, repeats)
    return rates


def products(heads, rng):
    """The four decode products: name -> ({candidate: call}, weight bytes)."""
    def weight(k, n):
        w = (rng.standard_normal((k, n), np.float32) / np.sqrt(k)).astype(BF16)
        w.flags.writeable = False                      # a constant: its forms are made once
        return w
    x = rng.standard_normal((T, HE), np.float32).astype(BF16)
    c_q = rng.standard_normal((T, HCQ), np.float32).astype(BF16)
    q_nope = rng.standard_normal((T, heads, D), np.float32).astype(BF16)
    uk = (rng.standard_normal((heads, D, HCKV), np.float32) / np.sqrt(D)).astype(BF16)
    uk.flags.writeable = False
    t = lambda a: torch.from_numpy(np.array(a, order="C").view(np.int16)).view(torch.bfloat16)   # noqa: E731
    out = {}
    for name, a, w in (("W_dq", x, weight(HE, HCQ)), ("W_uq_qr", c_q, weight(HCQ, heads * (D + DR))),
                       ("W_dkv_kr", x, weight(HE, HCKV + DR))):
        nk = t(w.T)
        packed = torch.ops.mkldnn._reorder_linear_weight(nk)
        ta = t(a)
        out[name] = ({"jit": lambda a=a, w=w: gemm.bf16_matmul(a, w),
                      "oneDNN packed": lambda a=ta, p=packed: torch.ops.mkldnn._linear_pointwise(a, p, None, "none", [], ""),
                      "F.linear": lambda a=ta, w=nk: torch.nn.functional.linear(a, w)}, w.size * 2)
    tq, tuk = t(q_nope).transpose(0, 1), t(uk)
    out["W_uk (per head)"] = ({"jit": lambda: gemm.head_matmul_bf16(q_nope, uk),
                               "oneDNN packed": lambda: torch.matmul(tq, tuk),
                               "F.linear": lambda: torch.matmul(tq, tuk)}, uk.size * 2)
    return out


def bits(result):
    r = result if isinstance(result, np.ndarray) else result.contiguous().view(torch.int16).numpy()
    return np.ascontiguousarray(r).view(np.int16).copy()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    repeats = 7 if args.quick else 21
    os.environ["ASCEND_MLA_MATMUL"] = "jit"
    print(machine())
    flush = torch.ones(64 * 2**20)
    rates = read_rates(flush, repeats)
    floor_rate = rates["np.copyto r+w"]
    print("memory: " + ", ".join(f"{k} {v / 1e9:.1f} GB/s" for k, v in rates.items()))
    print(f"\ndecode products (T = {T}), weights streamed from memory, medians of {repeats} (ms; GB/s of weight read)")
    columns = (("jit", 1), ("jit", 2), ("oneDNN packed", 2), ("F.linear", 2))
    header = f"{'N':>4} {'product':<16} {'MB':>6} | " + " ".join(f"{f'{c}, {n}':>17}" for c, n in columns)
    print(header)
    print("-" * len(header))
    rng = np.random.default_rng(0)
    deterministic = {c: True for c, _ in columns}
    for heads in (32, 128):
        total = {c: 0.0 for c in columns}
        total_bytes = 0
        for name, (calls, nbytes) in products(heads, rng).items():
            cells = []
            for column in columns:
                candidate, threads = column
                torch.set_num_threads(threads)
                os.environ["ASCEND_MLA_NUM_THREADS"] = str(threads)
                t = flushed_median(calls[candidate], flush, repeats)
                total[column] += t
                cells.append(f"{t * 1e3:6.2f} {nbytes / t / 1e9:5.1f} GB/s")
            for candidate, _ in columns:
                got = []
                for threads in (1, 2, 3):
                    torch.set_num_threads(threads)
                    os.environ["ASCEND_MLA_NUM_THREADS"] = str(threads)
                    got.append(bits(calls[candidate]()))
                deterministic[candidate] &= all(np.array_equal(g, got[0]) for g in got)
            total_bytes += nbytes
            print(f"{heads:>4} {name:<16} {nbytes / 2**20:6.1f} | " + " ".join(f"{c:>17}" for c in cells))
        floor = total_bytes / floor_rate
        print(f"{heads:>4} {'sum / floor':<16} {total_bytes / 2**20:6.1f} | "
              + " ".join(f"{f'{total[c] * 1e3:6.2f} {total[c] / floor:5.2f}x':>17}" for c in columns)
              + f"   (read floor {floor * 1e3:.2f} ms)")
    torch.set_num_threads(2)
    os.environ["ASCEND_MLA_NUM_THREADS"] = "2"
    print("\nthe same bits with 1, 2 and 3 threads: "
          + ", ".join(f"{c} {'yes' if ok else 'no'}" for c, ok in deterministic.items()))


if __name__ == "__main__":
    main()

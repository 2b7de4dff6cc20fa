"""What bounds the decode prolog against its weight-read floor: the bf16 GEMM library (not a test).

    python bench/bench_gemm_floor.py [--quick]

The prolog's decode (T = 8) products are oneDNN's bf16 GEMMs on weights packed once (the
kernel's own calls, runtime/kernels/gemm.py). Their bits pin the kernel's outputs, so whatever
rate oneDNN reads a weight at is the rate a bit-identical kernel reads it at. This prints, in
one run on this machine:
  1. memory read rates: np.copyto (read + write bytes per second: the floor bench_prolog.py
     divides by) and a pure read (torch sum) with 1 and 2 threads;
  2. each of the four decode products alone, its weight streamed from memory (the caches are
     flushed before each call by writing a 256 MB buffer): ms and GB/s of weight read, with 1
     and 2 threads, their sum against the floor (the "mm/read" bench_prolog.py prints), and
     torch eager's F.linear (unpacked weights) beside them;
  3. how often simpler summation orders give oneDNN's bf16 bits at 8 rows: float32 BLAS
     (NumPy) rounded once, and a sequential float32 fold over the pairs of K in the order of the
     VDPBF16PS instruction. Neither gives every bit, so a faster GEMV written here (MLIR's
     x86vector dot, or a float32 GEMM) would change outputs that the bit-identity contract of
     docs/performance.md keeps.
"""
from __future__ import annotations

import argparse
import statistics
import time

import ml_dtypes
import numpy as np
import torch
from timing import machine  # first: the machine line

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
    """The four decode products: name -> (call on the packed weight, call of F.linear, bytes)."""
    def weight(k, n):
        return torch.from_numpy(rng.standard_normal((n, k), np.float32) / np.sqrt(k)).bfloat16()
    x = torch.from_numpy(rng.standard_normal((T, HE), np.float32)).bfloat16()
    c_q = torch.from_numpy(rng.standard_normal((T, HCQ), np.float32)).bfloat16()
    q_nope = torch.from_numpy(rng.standard_normal((heads, T, D), np.float32)).bfloat16()
    uk = torch.from_numpy(rng.standard_normal((heads, D, HCKV), np.float32) / np.sqrt(D)).bfloat16()
    out = {}
    for name, a, w in (("W_dq", x, weight(HE, HCQ)), ("W_uq_qr", c_q, weight(HCQ, heads * (D + DR))),
                       ("W_dkv_kr", x, weight(HE, HCKV + DR))):
        packed = torch.ops.mkldnn._reorder_linear_weight(w)
        out[name] = (lambda a=a, p=packed: torch.ops.mkldnn._linear_pointwise(a, p, None, "none", [], ""),
                     lambda a=a, w=w: torch.nn.functional.linear(a, w), w.numel() * 2)
    head = lambda: torch.matmul(q_nope, uk)                                    # noqa: E731
    out["W_uk (per head)"] = (head, head, uk.numel() * 2)
    return out


def order_agreement(rng, k=HE, n=1536):
    """Share of oneDNN's bf16 outputs (8 rows) that two simpler summation orders reproduce."""
    x = rng.standard_normal((T, k)).astype(BF16)
    w = (rng.standard_normal((k, n)) / np.sqrt(k)).astype(BF16)
    tx = torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)
    tw = torch.from_numpy(np.ascontiguousarray(w.T).view(np.int16)).view(torch.bfloat16)
    packed = torch.ops.mkldnn._reorder_linear_weight(tw)
    ref = torch.ops.mkldnn._linear_pointwise(tx, packed, None, "none", [], "").view(torch.int16).numpy()
    xf, wf = x.astype(np.float32), w.astype(np.float32)
    blas = (xf @ wf).astype(BF16).view(np.int16)
    acc = np.zeros((T, n), np.float32)
    for i in range(0, k, 2):                    # VDPBF16PS: the odd product, then the even one
        acc += xf[:, i + 1:i + 2] * wf[i + 1]
        acc += xf[:, i:i + 1] * wf[i]
    fold = acc.astype(BF16).view(np.int16)
    return (blas == ref).mean(), (fold == ref).mean(), ref.size


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    repeats = 7 if args.quick else 21
    print(machine())
    flush = torch.ones(64 * 2**20)
    rates = read_rates(flush, repeats)
    floor_rate = rates["np.copyto r+w"]
    print("memory: " + ", ".join(f"{k} {v / 1e9:.1f} GB/s" for k, v in rates.items()))
    print(f"\ndecode products (T = {T}), weights streamed from memory, medians of {repeats} (ms; GB/s of weight read)")
    header = f"{'N':>4} {'product':<16} {'MB':>6} | {'1 thread':>15} {'2 threads':>15} | {'F.linear, 2':>15}"
    print(header)
    print("-" * len(header))
    rng = np.random.default_rng(0)
    for heads in (32, 128):
        total = {1: 0.0, 2: 0.0}
        total_bytes = 0
        for name, (packed, linear, nbytes) in products(heads, rng).items():
            cells = []
            for threads in (1, 2):
                torch.set_num_threads(threads)
                t = flushed_median(packed, flush, repeats)
                total[threads] += t
                cells.append(f"{t * 1e3:6.2f} {nbytes / t / 1e9:5.1f} GB/s")
            t = flushed_median(linear, flush, repeats)
            total_bytes += nbytes
            print(f"{heads:>4} {name:<16} {nbytes / 2**20:6.1f} | {cells[0]:>15} {cells[1]:>15} | "
                  f"{t * 1e3:6.2f} {nbytes / t / 1e9:5.1f} GB/s")
        floor = total_bytes / floor_rate
        print(f"{heads:>4} {'sum':<16} {total_bytes / 2**20:6.1f} | {total[1] * 1e3:6.2f} ({total[1] / floor:.2f}x floor)"
              f" {total[2] * 1e3:6.2f} ({total[2] / floor:.2f}x floor) | read floor {floor * 1e3:.2f} ms")
    torch.set_num_threads(2)
    blas, fold, size = order_agreement(rng)
    print(f"\noneDNN bf16 bits at {T} rows (K {HE}, {size} outputs) reproduced by: float32 BLAS rounded once "
          f"{blas:.4%}, a sequential float32 fold over K pairs {fold:.4%}")


if __name__ == "__main__":
    main()

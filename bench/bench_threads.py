"""The cost of a Program's call lock (runtime/executor.py LoweredFunction.__call__).

    python bench/bench_threads.py [--calls 2000] [--steps 8]

1. Per call, uncontended: a small program (one rms_norm over 4x64) called through the lock
   and, interleaved with it in the same run, through the unlocked body (LoweredFunction._run):
   the difference is what the lock costs a single-threaded caller.
2. One DeepSeek-V3 layer program (tp 32, batch 2) called `steps` times by each of 3 threads,
   against the same calls made one after another: the wall-time ratio (the lock serializes the
   calls; the CPU kernels hold the GIL most of the time, so threads gained little before either).
"""
import argparse
import platform
import threading
import time

import numpy as np

import ascend_mla
from ascend_mla.models import deepseek

SMALL = """
func.func @norm(%x: tensor<4x64xf32>, %gamma: tensor<64xf32>) -> tensor<4x64xf32> {
  %y = "mla.rms_norm"(%x, %gamma) {epsilon = 1.0e-06 : f64} : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}
"""


def cpu_flags() -> str:
    try:
        words = set(open("/proc/cpuinfo").read().split())
    except OSError:
        return platform.processor()
    return " ".join(f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f in words) or "none of avx2/avx512"


def per_call_cost(calls: int):
    program = ascend_mla.compile(SMALL, target="cpu")
    lowered = program.executable()
    x, gamma = np.ones((4, 64), np.float32), np.ones(64, np.float32)
    backend = ascend_mla.runtime.backend.backend_instance("cpu")
    locked = lambda: lowered([x, gamma], backend=backend)                    # noqa: E731
    unlocked = lambda: lowered._run([x, gamma], backend, True, False)        # noqa: E731
    times = {"locked": [], "unlocked": []}
    pair = [("locked", locked), ("unlocked", unlocked)]
    for r in range(10):                    # interleaved rounds, alternating order: the machine is noisy
        for name, fn in (pair if r % 2 else pair[::-1]):
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            times[name].append((time.perf_counter() - start) / calls)
    a, b = min(times["locked"]), min(times["unlocked"])
    lock = threading.Lock()
    start = time.perf_counter()
    for _ in range(calls):
        with lock:
            pass
    alone = (time.perf_counter() - start) / calls
    print(f"small program, per call (best of 10 rounds of {calls}): locked {a * 1e6:.2f} us, "
          f"unlocked {b * 1e6:.2f} us, difference {(a - b) * 1e6:+.2f} us ({a / b:.3f}x); "
          f"an uncontended lock alone {alone * 1e9:.0f} ns")


def threads_vs_sequential(steps: int):
    model = deepseek.build("deepseek-v3", tp=32, layers=1, batch=2, block_size=16)
    program = ascend_mla.compile(model, target="cpu")
    caches = [model.new_caches() for _ in range(3)]
    program(**model.inputs(0, caches=caches[0]))          # warm: phase one, first-call work

    def work(t):
        for s in range(steps):
            program(**model.inputs(s, caches=caches[t]))
    rounds = {"sequential": [], "3 threads": []}
    for _ in range(3):
        caches = [model.new_caches() for _ in range(3)]
        start = time.perf_counter()
        for t in range(3):
            work(t)
        rounds["sequential"].append(time.perf_counter() - start)
        caches = [model.new_caches() for _ in range(3)]
        workers = [threading.Thread(target=work, args=(t,)) for t in range(3)]
        start = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        rounds["3 threads"].append(time.perf_counter() - start)
    seq, par = min(rounds["sequential"]), min(rounds["3 threads"])
    print(f"deepseek-v3 layer (tp 32, batch 2), 3 x {steps} calls: sequential {seq:.3f} s, "
          f"3 threads {par:.3f} s (threads / sequential {par / seq:.2f}x; best of 3 rounds)")


def main():
    import os
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--steps", type=int, default=8)
    args = p.parse_args()
    print(f"CPU: {platform.machine()} {cpu_flags()}; "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')} (a BLAS pool spinning on a "
          "loaded machine distorts the thread figures: run with 1 to compare)")
    per_call_cost(args.calls)
    threads_vs_sequential(args.steps)


if __name__ == "__main__":
    main()

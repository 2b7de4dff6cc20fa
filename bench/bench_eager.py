"""Eager overhead of the one execution path (verify -> lower -> execute), and the memory plan of
a DeepSeek-V3 decode layer (fused: mla.prolog_v2 -> FIA in MLA mode; N=128, B=8, 4k context).

    python bench/bench_eager.py [--quick]

Per call after the first, `ascend_mla.ops.*` pays argument description, the signature-cache
lookup (build + verify + lower happen once per signature) and the executor's walk; all three
are timed against the kernel alone (the interpreter's kernel called directly), in the same run.
"""
from __future__ import annotations

import argparse
import string
import time
from pathlib import Path

import ml_dtypes
import numpy as np
from mlir import ir

import ascend_mla
from ascend_mla import eager
from ascend_mla.dialect.dialect import make_context
from ascend_mla.dialect.diagnostics import DiagnosticCollector
from ascend_mla.dialect.primitive import RmsNorm
from ascend_mla.lowering.convert import lower_module
from ascend_mla.runtime import executor
from ascend_mla.runtime.backend import run_kernel
from ascend_mla.runtime.memory import plan

bf16 = ml_dtypes.bfloat16


def cpu_flags() -> str:
    try:
        flags = next(line for line in open("/proc/cpuinfo") if line.startswith("flags")).split()
    except (OSError, StopIteration):
        return "unknown"
    return " ".join(f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f in flags) or "none of avx2/avx512"


def median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def eager_overhead(repeat):
    x, g = np.ones((1, 512), bf16), np.ones(512, bf16)
    ascend_mla.set_backend("cpu")
    cold = time.perf_counter()
    ascend_mla.ops.rms_norm(x, g, epsilon=1e-6)
    cold = time.perf_counter() - cold

    def front_end():          # everything eager.call does before executing: describe, verify (cached), lower (cached)
        infos = {"x": eager.tensor_info("x", x), "gamma": eager.tensor_info("gamma", g)}
        attrs = eager._host_parameters(RmsNorm, {"epsilon": 1e-6})
        snap = RmsNorm.snapshot_from_parts(infos, attrs)
        eager._verify_signature(RmsNorm, snap, infos, attrs, None)
        RmsNorm.check(snap.with_values({"x": x, "gamma": g}), phase="runtime")

    kernel = median_time(lambda: run_kernel("mla.rms_norm", {"x": x, "gamma": g}, {"epsilon": 1e-6}), repeat)
    front = median_time(front_end, repeat)
    total = median_time(lambda: ascend_mla.ops.rms_norm(x, g, epsilon=1e-6), repeat)
    print(f"rms_norm (1, 512) bf16, CPU backend, median of {repeat}:")
    print(f"  first call (build + verify + lower + decode + run): {cold * 1e3:8.2f} ms")
    print(f"  build + verify + lower per call after the first:   {front * 1e3:8.3f} ms   (target < 1 ms)")
    print(f"  whole eager call:                                   {total * 1e3:8.3f} ms")
    print(f"  kernel alone:                                       {kernel * 1e3:8.3f} ms")
    print(f"  -> eager call / kernel = {total / kernel:.1f}x; front end = {front / total:.0%} of the call")


def layer_plan(batch=8, heads=128, context=4096, block=128):
    template = string.Template((Path(__file__).parents[1] / "examples" / "mla_decode_step.mlir.in").read_text())
    blocks_per_seq = context // block
    text = template.substitute(B=batch, N=heads, NQ=heads * 192, BLOCKS=batch * blocks_per_seq, BS=block,
                               MAXB=blocks_per_seq, SCALE="0.0723", KV_LENGTHS=", ".join([str(context)] * batch))
    ctx = make_context()
    with ctx, ir.Location.unknown(), DiagnosticCollector(ctx):
        module = lower_module(ir.Module.parse(text))
        fn = executor.load(module)
        p = plan(fn)
        inputs = sum(int(np.prod(t.shape)) * 2 for t in module.body.operations[0].type.inputs)
    print(f"\nDeepSeek-V3 decode layer (fused: prolog_v2 -> FIA MLA), B={batch}, N={heads}, "
          f"context {context}, block {block}:")
    print(f"  {p}")
    print(f"  inputs (weights, caches, tables; resident or staged, not planned): {inputs / 2**20:.1f} MiB")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args(argv)
    print(f"CPU flags: {cpu_flags()}")
    eager_overhead(200 if args.quick else 2000)
    layer_plan()


if __name__ == "__main__":
    main()

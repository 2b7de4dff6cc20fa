"""Compiled DeepSeek-V3 programs on the one execution path (lower -> execute): decode-step time
on the CPU backend, kernel calls per step, and the memory plan.

    python bench/bench_program.py [--quick] [--cpu-time] [--baseline-python PATH]

A 2-layer DeepSeek-V3 attention block at tp=8 (N=16 heads), batch 4, block 128, fused (the
default pipeline) and unfused (verify only), runs decode steps; the median step time is
printed, and fused / unfused; then compile() and the first step with and without the weights
prepared at compile time. --cpu-time: one thread per library and each step's process CPU
time (robust on a loaded machine). With --baseline-python (the interpreter of another checkout of ascend-mla, e.g. the
commit before compiled programs ran lowered), the same steps run there too, interleaved with
ours in the same run, and the ratio is printed. The memory plan is that of one DeepSeek-V3 layer
at full width (tp=1: N=128), batch 8, 4k context.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

STEP = r"""
import json, os, sys, time, statistics
import ascend_mla
from ascend_mla.models import deepseek
ascend_mla.set_backend("cpu")
pipeline, steps, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
model = deepseek.build("deepseek-v3", tp=8, layers=2, batch=batch, block_size=128)
program = ascend_mla.compile(model, pipeline=pipeline)
program(**model.inputs(0))
inputs = [model.inputs(s) for s in range(1, steps + 1)]
clock = time.process_time if os.environ.get("BENCH_CPU_TIME") else time.perf_counter
inside = [0.0]
if os.environ.get("BENCH_SPLIT"):        # each kernel call timed: the rest is dispatch
    from ascend_mla.runtime import kernels
    def timed(fn):
        def run(**kw):
            t = clock()
            try:
                return fn(**kw)
            finally:
                inside[0] += clock() - t
        run.__wrapped__ = fn
        import inspect
        run.__signature__ = inspect.signature(fn)
        return run
    for name, fn in list(kernels.KERNELS.items()):
        kernels.KERNELS[name] = timed(fn)
times, kernel_times = [], []
for x in inputs:
    inside[0] = 0.0
    t = clock()
    program(**x)
    times.append(clock() - t)
    kernel_times.append(inside[0])
print(json.dumps([times, kernel_times] if os.environ.get("BENCH_SPLIT") else times))
"""


def step_times(python: str, pipeline: str, steps: int, batch: int, cpu_time: bool = False,
               split: bool = False) -> list:
    """One process's decode steps (its first step untimed): their times, and with `split` the
    time inside kernel calls too. `cpu_time`: one thread per library, process CPU time."""
    # cwd: not a checkout (python -c puts the working directory first on sys.path)
    env = dict(os.environ)
    if cpu_time:
        from timing import ONE_THREAD
        env.update(ONE_THREAD, BENCH_CPU_TIME="1")
    if split:
        env.update(BENCH_SPLIT="1")
    done = subprocess.run([python, "-c", STEP, pipeline, str(steps), str(batch)], capture_output=True,
                          text=True, check=True, cwd=tempfile.gettempdir(), env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def dispatch_split(steps: int, batch: int, cpu_time: bool):
    """The fused and unfused decode steps split into kernel time (each kernel call timed) and
    the rest (executor, argument handling, checks: Python dispatch), medians over the steps,
    on the clock the steps were timed by (--cpu-time: one thread, process CPU time)."""
    for name, pipeline in (("fused", "default"), ("unfused", "builtin.module(verify)")):
        times, kernel_times = step_times(sys.executable, pipeline, steps, batch, cpu_time, split=True)
        step, inside = statistics.median(times), statistics.median(kernel_times)
        print(f"  {name:8s} step {step * 1e3:7.2f} ms: kernels {inside * 1e3:7.2f} ms ({inside / step:.0%}), "
              f"dispatch and the rest {(step - inside) * 1e3:6.2f} ms ({1 - inside / step:.0%})")


def decode_steps(args):
    from timing import machine
    print(machine())
    steps, rounds = (8, 2) if args.quick else (16, args.rounds)
    print(f"DeepSeek-V3, 2 layers, tp=8 (N=16), batch {args.batch}, block 128: decode step, median of "
          f"{steps * rounds} steps in {rounds} interleaved rounds (CPU backend; each process's "
          "first step, which imports and prepares, is not timed)")
    pipelines = (("fused", "default"), ("unfused", "builtin.module(verify)"))
    ours = {name: [] for name, _ in pipelines}
    base = {name: [] for name, _ in pipelines}
    for _ in range(rounds):
        for name, pipeline in pipelines:
            ours[name] += step_times(sys.executable, pipeline, steps, args.batch, args.cpu_time)
            if args.baseline_python:
                base[name] += step_times(args.baseline_python, pipeline, steps, args.batch, args.cpu_time)
    for name, _ in pipelines:
        line = f"  {name:8s} lowered + executor: {statistics.median(ours[name]) * 1e3:7.2f} ms"
        if base[name]:
            line += (f" | baseline: {statistics.median(base[name]) * 1e3:7.2f} ms"
                     f" -> {statistics.median(ours[name]) / statistics.median(base[name]):.2f}x")
        print(line)
    line = f"  fused / unfused: {statistics.median(ours['fused']) / statistics.median(ours['unfused']):.2f}"
    if args.baseline_python:
        line += f" | baseline: {statistics.median(base['fused']) / statistics.median(base['unfused']):.2f}"
    print(line)
    print(f"where a step's time goes (one more process each, kernel calls timed, "
          f"{'process CPU time, one thread' if args.cpu_time else 'wall clock'}):")
    dispatch_split(steps, args.batch, args.cpu_time)


def calls_and_plans():
    import ascend_mla
    from ascend_mla.models import deepseek
    from ascend_mla.runtime.formats import NZTensor
    model = deepseek.build("deepseek-v3", tp=8, layers=2, batch=4, block_size=128)
    for name, pipeline in (("fused", "default"), ("unfused", "builtin.module(verify)")):
        program = ascend_mla.compile(model, pipeline=pipeline)
        calls = [c.function.name for c in program.executable().calls]
        print(f"  {name:8s} kernel calls per step (2 layers): {len(calls)}")
    print("\nMemory plan of one DeepSeek-V3 attention layer, tp=1 (N=128), batch 8, 4k context, "
          "block 128 (weights packed at compile time):")
    model = deepseek.build("deepseek-v3", tp=1, layers=1, batch=8, block_size=128, max_positions=4096)
    for name, pipeline in (("fused", "default"), ("unfused", "builtin.module(verify)"),
                           ("unfused, weights folded", "builtin.module(verify,fold-constants,cleanup)")):
        t = time.perf_counter()
        program = ascend_mla.compile(model, pipeline=pipeline)
        compile_s = time.perf_counter() - t
        plan = program.memory_plan()
        weights = sum((v.data if isinstance(v, NZTensor) else v).nbytes for v in program.weights.values())
        inputs = sum(v.nbytes for v in model.inputs(0).values())
        print(f"  {name}: {len(program.executable().calls)} kernel calls, {len(plan.buffers)} planned buffers, peak {plan.peak_bytes / 2**20:.2f} MiB "
              f"({plan.unplanned_bytes / 2**20:.2f} MiB without reuse, "
              f"{plan.peak_bytes / plan.unplanned_bytes:.0%}), {plan.workspace_sites} workspaces in one "
              f"region; weights resident {weights / 2**20:.1f} MiB, inputs staged {inputs / 2**20:.1f} MiB "
              f"(compiled in {compile_s:.1f} s)")
        if name == "fused":
            print("    " + str(plan).replace("\n", "\n    "))


def first_steps(rounds: int):
    """compile() and the first step of the fused program, with the weights prepared by compile()
    (the default) and without (the kernels convert them on the first call), interleaved."""
    import ascend_mla
    from ascend_mla import compiler
    from ascend_mla.models import deepseek
    from ascend_mla.runtime.kernels import load_all
    load_all()                                    # imports outside the timed calls
    model = deepseek.build("deepseek-v3", tp=8, layers=2, batch=4, block_size=128)
    model.weights
    prepare = compiler.prepare_weights
    times = {"prepared": ([], []), "not prepared": ([], [])}
    try:
        for _ in range(rounds):
            for name, (compiles, steps) in times.items():
                compiler.prepare_weights = prepare if name == "prepared" else (lambda fn, constants: 0)
                start = time.perf_counter()
                program = ascend_mla.compile(model, target="cpu")
                compiles.append(time.perf_counter() - start)
                inputs = model.inputs(0)
                start = time.perf_counter()
                program(**inputs)
                steps.append(time.perf_counter() - start)
    finally:
        compiler.prepare_weights = prepare
    print(f"\ncompile() and the first fused step, medians of {rounds} interleaved rounds (s):")
    for name, (compiles, steps) in times.items():
        print(f"  weights {name:12s}: compile {statistics.median(compiles):.3f}, first step {statistics.median(steps):.3f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--cpu-time", action="store_true", help="one thread per library, process CPU time")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=4, help="interleaved rounds of 16 steps")
    parser.add_argument("--baseline-python", help="a Python whose ascend_mla is the baseline checkout")
    parser.add_argument("--plans-only", action="store_true", help="only the call counts and memory plans")
    args = parser.parse_args(argv)
    if not args.plans_only:
        decode_steps(args)
        first_steps(2 if args.quick else 4)
    calls_and_plans()


if __name__ == "__main__":
    sys.path.insert(0, __import__("os").path.dirname(__file__))
    main()

"""Tensor parallelism on the CPU backend: step time and memory per rank, tp 1 against tp 2 (gloo),
measured in the same run, interleaved (tp 1, tp 2, tp 1, tp 2, ...: the machine is shared).

    python bench/bench_tp.py [--model deepseek-v2-lite] [--layers 2] [--batch 4] [--steps 6] [--rounds 2]

Each configuration runs in fresh processes started as torchrun starts its workers (RANK,
WORLD_SIZE, MASTER_ADDR, MASTER_PORT): tp 1 one process, tp 2 two processes on gloo, each
holding its own heads' slice of the same seeded weights. Per rank: the weights its program
holds (bytes), the memory plan's peak, the process's resident memory after the run and at its
peak (VmRSS / VmHWM), and the median decode-step time of steps 2.. (step 1 also runs every
phase one). The two processes of tp 2 share the machine's cores with each other: on 2 cores
the collective's cost and the halved per-rank work are what the ratio shows.
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _status(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return 0


def lm_worker(out: str, checkpoint: str, steps: int):
    """CausalLM.from_pretrained(tp = the job's world size): this rank reads its part only."""
    import numpy as np

    from ascend_mla.models import deepseek
    from ascend_mla.runtime.distributed import init_from_environment
    w = init_from_environment(timeout_s=120)
    start = time.perf_counter()
    lm = deepseek.CausalLM.from_pretrained(checkpoint, tp=w.size, max_positions=128)
    load_s = time.perf_counter() - start
    weight_bytes = sum(np.asarray(v).nbytes for v in lm.weights.values())
    rss_loaded = _status("VmRSS")
    ids = np.array([[5, 17, 42]], np.int64)
    token = np.asarray(lm(ids))[:, -1:].argmax(-1)
    times = []
    for _ in range(steps):
        begin = time.perf_counter()
        token = np.asarray(lm(token))[:, -1:].argmax(-1)
        times.append(time.perf_counter() - begin)
    record = {"rank": w.rank, "world": w.size, "weight_bytes": int(weight_bytes), "load_s": load_s,
              "plan_peak": lm.programs["decoder"].memory_plan(function="decode").peak_bytes, "rss": rss_loaded,
              "rss_peak": _status("VmHWM"), "step_s": float(np.median(times[1:] or times))}
    Path(out, f"rank{w.rank}.json").write_text(json.dumps(record))


def worker(out: str, model: str, layers: int, batch: int, steps: int):
    import numpy as np

    import ascend_mla
    from ascend_mla.models import deepseek
    from ascend_mla.runtime.distributed import init_from_environment
    w = init_from_environment(timeout_s=120)
    shape = dict(name=model, layers=layers, batch=batch, block_size=16, seed=1)
    full = deepseek.build(**shape).weights
    built = deepseek.build(**shape, tp=w.size, rank=w.rank, weights=full)
    del full
    program = ascend_mla.compile(built)
    weight_bytes = sum((v.data if hasattr(v, "to_nd") else np.asarray(v)).nbytes for v in program.weights.values())
    times = []
    for step in range(steps):
        inputs = built.inputs(step)
        start = time.perf_counter()
        program(**inputs)
        times.append(time.perf_counter() - start)
    record = {"rank": w.rank, "world": w.size, "weight_bytes": int(weight_bytes),
              "plan_peak": program.memory_plan().peak_bytes, "rss": _status("VmRSS"), "rss_peak": _status("VmHWM"),
              "step_s": float(np.median(times[1:]))}
    Path(out, f"rank{w.rank}.json").write_text(json.dumps(record))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(world: int, args) -> list[dict]:
    with tempfile.TemporaryDirectory() as out:
        port = str(_free_port())
        what = ["--checkpoint", args.checkpoint] if args.checkpoint else [
            "--model", args.model, "--layers", str(args.layers), "--batch", str(args.batch)]
        procs = [subprocess.Popen(
            [sys.executable, __file__, "--worker", out, *what, "--steps", str(args.steps)],
            env={**os.environ, "RANK": str(r), "WORLD_SIZE": str(world), "MASTER_ADDR": "127.0.0.1",
                 "MASTER_PORT": port}) for r in range(world)]
        for p in procs:
            if p.wait(timeout=900) != 0:
                raise SystemExit(f"tp {world}: a rank failed ({p.returncode})")
        return [json.loads(Path(out, f"rank{r}.json").read_text()) for r in range(world)]


def cpu_flags() -> str:
    flags = next((line.split(":", 1)[1].split() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("flags")), [])
    wanted = [f for f in flags if f.startswith(("avx512", "avx2", "amx", "fma"))]
    return " ".join(wanted) or "(none of avx2/avx512/amx/fma)"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="deepseek-v2-lite")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--checkpoint", help="a Hugging Face checkpoint directory: the whole model through "
                   "CausalLM.from_pretrained(tp=...) instead of random attention blocks")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker and args.checkpoint:
        return lm_worker(args.worker, args.checkpoint, args.steps)
    if args.worker:
        return worker(args.worker, args.model, args.layers, args.batch, args.steps)
    print(f"cpu flags: {cpu_flags()}; {os.cpu_count()} cores")
    if args.checkpoint:
        print(f"CausalLM.from_pretrained({args.checkpoint}), batch 1, a 3-token prompt, {args.steps} decode steps")
    else:
        print(f"{args.model} attention blocks, {args.layers} layers, batch {args.batch}, bf16, {args.steps} decode steps")
    results = {1: [], 2: []}
    for _ in range(args.rounds):
        for world in (1, 2):
            results[world].append(run(world, args))
    mib = 2 ** 20
    for world, rounds in results.items():
        for rank in range(world):
            last = rounds[-1][rank]
            steps = sorted(r[rank]["step_s"] for r in rounds)
            print(f"tp {world} rank {rank}: weights {last['weight_bytes'] / mib:.1f} MiB, memory plan peak "
                  f"{last['plan_peak'] / 1024:.1f} KiB, RSS {last['rss'] / mib:.0f} MiB (peak {last['rss_peak'] / mib:.0f} MiB), "
                  f"step {steps[len(steps) // 2] * 1e3:.1f} ms (median of {len(steps)} rounds)")
    t1 = sorted(r[0]["step_s"] for r in results[1])
    t2 = sorted(max(x["step_s"] for x in r) for r in results[2])
    w1, w2 = results[1][-1][0]["weight_bytes"], results[2][-1][0]["weight_bytes"]
    print(f"ratios: step tp2/tp1 {t2[len(t2) // 2] / t1[len(t1) // 2]:.2f} (slower rank of tp 2), "
          f"weights per rank tp2/tp1 {w2 / w1:.2f}")


if __name__ == "__main__":
    main()

"""Tensor and expert parallelism on the CPU backend: step time and memory per rank, tp 1 against
tp 2 (gloo) and, for a whole model (--checkpoint), ep 2, measured in the same run, interleaved
(tp 1, tp 2, ep 2, tp 1, ...: the machine is shared).

    python bench/bench_tp.py [--model deepseek-v2-lite] [--layers 2] [--batch 4] [--steps 6] [--rounds 2]
    python bench/bench_tp.py --checkpoint DIR [--steps 6] [--rounds 2]

Each configuration runs in fresh processes started as torchrun starts its workers (RANK,
WORLD_SIZE, MASTER_ADDR, MASTER_PORT): tp 1 one process, tp 2 two processes on gloo, each
holding its own heads' slice of the same seeded weights. Per rank: the weights its program
holds (bytes), the memory plan's peak, the process's resident memory after the run and at its
peak (VmRSS / VmHWM), and the median decode-step time of steps 2.. (step 1 also runs every
phase one). The two processes of tp 2 share the machine's cores with each other: on 2 cores
the collective's cost and the halved per-rank work are what the ratio shows. ep 2 (expert
parallelism, attention data-parallel): each rank holds half of the routed experts and decodes
its own row (here the same prompt on both), so one ep 2 step decodes two rows where tp 1 and
tp 2 decode one; the random attention blocks have no MoE layer, so ep runs with --checkpoint.
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


def lm_worker(out: str, checkpoint: str, steps: int, kind: str = "tp"):
    """CausalLM.from_pretrained(tp or ep = the job's world size): this rank reads its part only."""
    import numpy as np

    from ascend_mla.models import deepseek
    from ascend_mla.runtime.distributed import init_from_environment
    w = init_from_environment(timeout_s=120)
    start = time.perf_counter()
    lm = deepseek.CausalLM.from_pretrained(checkpoint, max_positions=128, **{kind: w.size})
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
    experts = sum(np.asarray(v).nbytes for k, v in lm.weights.items() if ".mlp.experts." in k)
    record = {"rank": w.rank, "world": w.size, "weight_bytes": int(weight_bytes), "load_s": load_s,
              "expert_bytes": int(experts),
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


def run(kind: str, world: int, args) -> list[dict]:
    with tempfile.TemporaryDirectory() as out:
        port = str(_free_port())
        what = ["--checkpoint", args.checkpoint, "--kind", kind] if args.checkpoint else [
            "--model", args.model, "--layers", str(args.layers), "--batch", str(args.batch)]
        procs = [subprocess.Popen(
            [sys.executable, __file__, "--worker", out, *what, "--steps", str(args.steps)],
            env={**os.environ, "RANK": str(r), "WORLD_SIZE": str(world), "MASTER_ADDR": "127.0.0.1",
                 "MASTER_PORT": port}) for r in range(world)]
        for p in procs:
            if p.wait(timeout=900) != 0:
                raise SystemExit(f"{kind} {world}: a rank failed ({p.returncode})")
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
    p.add_argument("--kind", default="tp", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker and args.checkpoint:
        return lm_worker(args.worker, args.checkpoint, args.steps, args.kind)
    if args.worker:
        return worker(args.worker, args.model, args.layers, args.batch, args.steps)
    print(f"cpu flags: {cpu_flags()}; {os.cpu_count()} cores")
    if args.checkpoint:
        print(f"CausalLM.from_pretrained({args.checkpoint}), batch 1, a 3-token prompt, {args.steps} decode steps")
    else:
        print(f"{args.model} attention blocks, {args.layers} layers, batch {args.batch}, bf16, {args.steps} decode steps")
    configurations = [("tp", 1), ("tp", 2)] + ([("ep", 2)] if args.checkpoint else [])
    results = {c: [] for c in configurations}
    for _ in range(args.rounds):
        for kind, world in configurations:
            results[(kind, world)].append(run(kind, world, args))
    mib = 2 ** 20
    for (kind, world), rounds in results.items():
        for rank in range(world):
            last = rounds[-1][rank]
            steps = sorted(r[rank]["step_s"] for r in rounds)
            experts = f", routed experts {last['expert_bytes'] / mib:.1f} MiB" if "expert_bytes" in last else ""
            print(f"{kind} {world} rank {rank}: weights {last['weight_bytes'] / mib:.1f} MiB{experts}, memory plan peak "
                  f"{last['plan_peak'] / 1024:.1f} KiB, RSS {last['rss'] / mib:.0f} MiB (peak {last['rss_peak'] / mib:.0f} MiB), "
                  f"step {steps[len(steps) // 2] * 1e3:.1f} ms (median of {len(steps)} rounds)")

    def median_step(config):        # the slower rank of each round
        steps = sorted(max(x["step_s"] for x in r) for r in results[config])
        return steps[len(steps) // 2]
    base, w1 = median_step(("tp", 1)), results[("tp", 1)][-1][0]
    for kind, world in configurations[1:]:
        last = results[(kind, world)][-1][0]
        line = (f"ratios {kind} {world} / tp 1: step {median_step((kind, world)) / base:.2f} (slower rank), "
                f"weights per rank {last['weight_bytes'] / w1['weight_bytes']:.2f}")
        if "expert_bytes" in last and w1.get("expert_bytes"):
            line += f", routed-expert bytes per rank {last['expert_bytes'] / w1['expert_bytes']:.2f}"
        if kind == "ep":
            line += f"; rows decoded per step: {world} (tp: 1)"
        print(line)


if __name__ == "__main__":
    main()

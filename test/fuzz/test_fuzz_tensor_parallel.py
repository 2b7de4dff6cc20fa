"""Fuzzer of tensor-parallel faults: two ranks (test/python/tp_worker.py, as torchrun starts
them) on tiny checkpoints, where one rank differs (batch, prompt, new tokens, checkpoint,
quantization), ends in the middle of the generation, or the job's MASTER_PORT is held by a
program that never answers. Oracle (docs/parallel.md): every rank ends within the rendezvous
and collective timeout (TP_TIMEOUT, plus start-up), with exit status 0 and the tokens of a
world of one when nothing differs, else every surviving rank with exit status 1 and one error
line; never a signal (gloo's SIGABRT), never a hang."""
import json
import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from fuzzing import SEED, budgets

pytest.importorskip("torch")
WORKER = Path(__file__).resolve().parents[1] / "python" / "tp_worker.py"
TIMEOUT = 20           # TP_TIMEOUT: the rendezvous and every collective
FAULTS = [{}, {"batch": 2}, {"prompt": [0, 5, 7]}, {"prompt": [1, 5, 7, 9]}, {"max_new_tokens": 5},
          {"checkpoint": True}, {"quant": "w8a8"}, {"die_at": 0}, {"die_at": 1}, {"rank": 0, "die_at": 0},
          {"silent": True}]


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    sys.path.insert(0, str(WORKER.parent))
    from tiny_checkpoints import write_tiny
    root = tmp_path_factory.mktemp("tp-fuzz")
    return write_tiny(root / "a", seed=0), write_tiny(root / "b", seed=1)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _case(fault, checkpoints, out):
    import contextlib
    sys.path.insert(0, str(WORKER.parent))
    from tp_worker import silent_listener
    with silent_listener() if fault.get("silent") else contextlib.nullcontext(_free_port()) as port:
        return _launch(fault, checkpoints, out, port)


def _launch(fault, checkpoints, out, port):
    procs = []
    start = time.monotonic()
    try:
        for rank in range(2):
            env = {**os.environ, "RANK": str(rank), "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1",
                   "MASTER_PORT": str(port), "TP_TIMEOUT": str(TIMEOUT), "OMP_NUM_THREADS": "1",
                   "TP_CHECKPOINT": checkpoints[0], "TP_CHECKPOINT_1": checkpoints[1], "TP_FAULT": json.dumps(fault)}
            procs.append(subprocess.Popen([sys.executable, str(WORKER), str(out), "lm_fault"], env=env,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        results = []
        for p in procs:
            try:
                _, err = p.communicate(timeout=600)
            except subprocess.TimeoutExpired:
                p.kill()
                _, err = p.communicate()
                err = f"HANG (killed after 600 s)\n{err}"
            results.append((p.returncode, err, time.monotonic() - start))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    return results


def _verdict(fault, results, out, alone) -> str | None:
    dead = fault.get("rank", 1) if "die_at" in fault else None
    if not fault:
        if [r[0] for r in results] != [0, 0]:
            return f"no fault, but exit {[r[0] for r in results]}: {results}"
        got = np.load(out / "rank0.npz")["tokens"].reshape(-1)[4:]       # the new tokens
        return None if np.array_equal(got, alone) else f"tokens {got} differ from one rank's {alone}"
    for rank, (code, err, _) in enumerate(results):
        if rank == dead:
            if code != 3:
                return f"rank {rank} was to end with 3, got {code}: {err[-2000:]}"
            continue
        lines = [line for line in err.strip().splitlines() if line.strip()]
        if code != 1 or len(lines) != 1 or not lines[0].startswith(f"rank {rank}: error: "):
            return f"rank {rank}: exit {code}, stderr:\n{err[-3000:]}"
    return None


@pytest.mark.parametrize("cases", budgets(ci=1, large=40))
def test_tensor_parallel_faults(cases, checkpoints, tmp_path):
    from ascend_mla.models import deepseek
    rng = random.Random(SEED + 14)
    alone = deepseek.CausalLM.from_pretrained(checkpoints[0], target="cpu").generate(
        [[0, 5, 7, 9]], max_new_tokens=3, eos_token_id=None).reshape(-1)[4:]
    failures = []
    for case in range(cases):
        fault = FAULTS[case % len(FAULTS)] if cases >= len(FAULTS) else rng.choice(FAULTS)
        out = tmp_path / f"case{case}"
        out.mkdir()
        results = _case(fault, checkpoints, out)
        problem = _verdict(fault, results, out, alone)
        slowest = max(r[2] for r in results)
        print(f"case {case} {fault}: {[r[0] for r in results]} in {slowest:.0f} s"
              + (f"\n{problem}" if problem else ""), flush=True)
        if problem:
            failures.append(f"case {case} {fault}: {problem}")
    print(f"tensor-parallel fault fuzz: {cases} cases, {len(failures)} failures")
    assert not failures, failures[0]

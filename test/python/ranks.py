"""Start the ranks of a small job as torchrun starts its workers (RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT), for the multi-process tests. Bounded in time: the workers' process group times out
after 60 s (TP_TIMEOUT), the launcher waits DEADLINE_S at most and kills what is left."""
from __future__ import annotations

import os
import socket
import subprocess
import sys

DEADLINE_S = 180


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(worker, tmp_path, mode, world=2, env=None, port=None):
    """Start `world` ranks of `worker` (a script: worker OUT MODE; `port`: the MASTER_PORT, a
    free one by default); [(returncode, stderr)] in rank order."""
    port = str(port or free_port())
    procs = []
    for rank in range(world):
        rank_env = {**os.environ, "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(world),
                    "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port, "TP_TIMEOUT": "60", "OMP_NUM_THREADS": "1",
                    **(env or {})}
        procs.append(subprocess.Popen([sys.executable, str(worker), str(tmp_path), mode], env=rank_env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    results = []
    try:
        for p in procs:
            _, err = p.communicate(timeout=DEADLINE_S)
            results.append((p.returncode, err))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    return results


def worker_main(main):
    """Run a worker's main(OUT, MODE) from the command line: a failing rank prints one line
    (`rank R: error: Type: message`) and exits 1."""
    try:
        main(sys.argv[1], sys.argv[2])
    except Exception as e:
        print(f"rank {os.environ.get('RANK')}: error: {type(e).__name__}: {str(e).splitlines()[0]}",
              file=sys.stderr)
        sys.exit(1)

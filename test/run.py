"""Run the whole test suite: the linter (ruff, configured in pyproject.toml), the lit IR tests,
then the pytest suite (test/python and the fuzzers' small budgets, test/fuzz). Fails if any
part fails.

    python test/run.py [pytest arguments...]      e.g.  python test/run.py -m slow

Use the project's Python (`.venv/bin/python`): ruff, lit, mla-opt and FileCheck are beside it.

The pytest files run in groups, each group in its own process, one after the other: what one
group's tests keep alive (models, weights, compiled programs) is gone before the next starts,
so the suite's peak memory is its largest group's, not the sum of all. At the end a table gives
each part's CPU time and peak memory (its process and the processes it waited for).
"""
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
GROUP_SIZE = 5          # test files per pytest process


def run(name: str, argv: list, results: list) -> int:
    """Run one part; record (name, exit status, CPU seconds, peak RSS MB, wall seconds)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    results.append((name, proc.returncode, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
                    time.perf_counter() - start))
    return proc.returncode


def groups() -> list:
    files = sorted(str(p) for p in (HERE / "python").glob("test_*.py"))
    parts = [files[i:i + GROUP_SIZE] for i in range(0, len(files), GROUP_SIZE)]
    return parts + [[str(HERE / "fuzz")]]


def main() -> int:
    results = []
    lint = run("ruff check", [str(BIN / "ruff"), "check", str(HERE.parent)], results)
    lit = run("lit test/lit", [str(BIN / "lit"), "-sv", str(HERE / "lit")], results)
    failed = []
    for files in groups():
        name = "pytest " + " ".join(Path(f).name for f in files)
        status = run(name, [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *files,
                            *sys.argv[1:]], results)
        if status not in (0, 5):          # 5: every test of the group deselected (-k, -m)
            failed.append(name)
    print("\npart                                                      status    CPU s  peak MB   wall s")
    for name, status, cpu, peak, wall in results:
        print(f"{name[:56]:56} {status:8d} {cpu:8.1f} {peak:8.0f} {wall:8.1f}")
    print(f"{'total (parts run one after the other)':56} {'':8} {sum(r[2] for r in results):8.1f} "
          f"{max(r[3] for r in results):8.0f} {sum(r[4] for r in results):8.1f}")
    if lint != 0:
        print("ruff check FAILED (see above; `.venv/bin/ruff check --fix` sorts imports)")
    if lit != 0:
        print("lit IR tests FAILED (see above)")
    for name in failed:
        print(f"FAILED: {name}")
    return 1 if lint != 0 or lit != 0 or failed else 0


if __name__ == "__main__":
    sys.exit(main())

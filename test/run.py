"""Run the whole test suite: the lit IR tests, then the pytest suite (test/python and the
fuzzers' small budgets, test/fuzz). Fails if either fails.

    python test/run.py [pytest arguments...]      e.g.  python test/run.py -m slow

Use the project's Python (`.venv/bin/python`): lit finds mla-opt and FileCheck beside it.
"""
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent


def main() -> int:
    lit = subprocess.call([str(BIN / "lit"), "-sv", str(HERE / "lit")])
    tests = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             str(HERE / "python"), str(HERE / "fuzz"), *sys.argv[1:]])
    if lit != 0:
        print("lit IR tests FAILED (see above)")
    return 1 if lit != 0 or tests != 0 else 0


if __name__ == "__main__":
    sys.exit(main())

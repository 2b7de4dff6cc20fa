# The fuzzers start from the valid calls of test/python/valid_calls.py.
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

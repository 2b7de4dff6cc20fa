"""The PyTorch path end to end: DeepSeek-V3's attention block written in PyTorch (TorchMLA, or
with --naive Hugging Face's naive form TorchMLANaive), captured with torch.export, imported into
the mla dialect, compiled and run for three decode steps beside eager PyTorch.

    .venv/bin/python examples/torch_frontend.py [--naive]

It prints what was fused and, per step, the largest difference from eager PyTorch next to the
size of the attention's contribution. `ascend-mla run --from-torch` runs the same harness
(ascend_mla/tools/torch_example.py) with more options.
"""
from __future__ import annotations

import sys

from ascend_mla.tools.torch_example import deepseek_example


def main(argv) -> int:
    form = "naive" if "--naive" in argv else "absorbed"
    result = deepseek_example("deepseek-v3", tp=16, layers=1, batch=2, steps=3, form=form)
    print(result["report"])
    for index, step in enumerate(result["steps"]):
        print(f"step {index}: max |compiled - eager| {step['max_error']:.3g} "
              f"(the attention's contribution: up to {result['scale']:.3g})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

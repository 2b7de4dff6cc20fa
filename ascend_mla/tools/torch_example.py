"""The PyTorch path end to end, next to eager PyTorch: what `ascend-mla run --from-torch` runs
and examples/torch_frontend.py shows. A built model's reference PyTorch module (TorchMLA, or
TorchMLANaive) compiled by the frontend (frontend/torch.py compile_module) and run step by step
beside the module itself."""
from __future__ import annotations

import time

import torch

from ..frontend.torch import compile_module
from ..models import deepseek
from ..models.torch_mla import cache_tensors, torch_inputs


def deepseek_example(name: str = "deepseek-v3", *, tp: int = 16, layers: int = 1, batch: int = 2,
                     seq: int = 1, steps: int = 3, block_size: int = 16, rope: str = "interleave",
                     form: str = "absorbed", seed: int = 0, pipeline: str = "default", target: str = "auto",
                     quant: str = "bf16") -> dict:
    """The PyTorch path end to end: the reference module TorchMLA (form "absorbed", bf16 or
    w8a8) or TorchMLANaive (form "naive", bf16: Hugging Face's naive attention over a static K/V
    cache, which absorb-kv rewrites) with a built model's (random) weights, compiled by
    compile_module, run for `steps` decode steps of `seq` tokens next to the eager module, each
    with its own caches. Returns {"program", "module" (the compiled one), "report", "steps":
    [{"max_error", "cache_max_error", "eager_seconds", "compiled_seconds"}], "compile_seconds",
    "scale"} where max_error is max|compiled - eager| of the block's output, scale max|eager -
    input| (the attention's contribution, what the error is relative to) and cache_max_error
    that of the caches (None for the naive form: its program keeps latent caches instead of the
    module's K/V cache)."""
    if form not in ("absorbed", "naive"):
        raise ValueError(f"form: expected \"absorbed\" or \"naive\", got {form!r}")
    if form == "naive" and quant != "bf16":
        raise ValueError(f"quant: the naive form is bf16, got {quant!r}")
    model = deepseek.build(name, tp=tp, layers=layers, batch=batch, seq=seq, block_size=block_size, seed=seed,
                           quant=quant)
    if form == "naive":
        module = deepseek.TorchMLANaive(model.config).load_weights(model.weights)
        eager_module = deepseek.TorchMLANaive(model.config).load_weights(model.weights)
        eager_caches, compiled_caches = None, None

        def inputs(step, caches):
            return module.inputs(model, step)
    else:
        module = eager_module = deepseek.TorchMLA(model.config, rope=rope).load_weights(model.weights)
        eager_caches = [torch.zeros_like(t) for t in cache_tensors(model)]
        compiled_caches = [t.clone() for t in eager_caches]

        def inputs(step, caches):
            return torch_inputs(model, step, caches)
    start = time.perf_counter()
    example = inputs(0, None if compiled_caches is None else [t.clone() for t in compiled_caches])
    program = compile_module(module, example, pipeline=pipeline, target=target)
    result = {"program": program, "module": module, "report": program.report(),
              "compile_seconds": time.perf_counter() - start, "steps": [], "scale": 0.0}
    for step in range(steps):
        start = time.perf_counter()
        with torch.no_grad():
            expected = eager_module(*inputs(step, eager_caches))
        eager = time.perf_counter() - start
        start = time.perf_counter()
        got = program(*inputs(step, compiled_caches))
        compiled = time.perf_counter() - start
        hidden = inputs(step, [])[0].float()
        result["scale"] = max(result["scale"], (expected.float() - hidden).abs().max().item())
        result["steps"].append({
            "max_error": (got.float() - expected.float()).abs().max().item(),
            "cache_max_error": None if eager_caches is None else max(
                (a.float() - b.float()).abs().max().item() for a, b in zip(eager_caches, compiled_caches)),
            "eager_seconds": eager, "compiled_seconds": compiled})
    return result

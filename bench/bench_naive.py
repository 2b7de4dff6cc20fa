"""What absorb-kv buys a naive Hugging Face MLA module: the same TorchMLANaive compiled with the
default pipeline (absorbed: latent caches the program owns, one prolog_v2 + one FIA per layer)
and without absorb-kv (naive: per-head K/V caches, unfused attention), in one run.

    python bench/bench_naive.py [--quick]

DeepSeek-V3 at tp=8 (N=16 heads), 1 layer, batch 4, decode, static cache of 256 positions:
cache bytes per layer (the module's K/V buffers against the latent caches), kernel calls per
step, device memory plan, roofline bytes per step on Atlas A2 (ascend_mla/cost.py, kv lengths
at the cache capacity), and the decode-step time on the CPU backend (median, steps of the two
programs interleaved). Ratios are naive / absorbed.
"""
from __future__ import annotations

import argparse
import statistics
import time


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer steps")
    args = p.parse_args(argv)
    import torch
    from bench_eager import cpu_flags

    import ascend_mla
    from ascend_mla.frontend import torch as frontend
    from ascend_mla.models import deepseek
    from ascend_mla.passes.registry import PIPELINES

    print(f"CPU flags: {cpu_flags()}")
    ascend_mla.set_backend("cpu")
    steps = 4 if args.quick else 12
    model = deepseek.build("deepseek-v3", tp=8, layers=1, batch=4, block_size=128, max_positions=256)
    without = PIPELINES["default"].replace("absorb-kv,", "")
    programs, modules = {}, {}
    for name, pipeline in (("absorbed", "default"), ("naive", without)):
        modules[name] = deepseek.TorchMLANaive(model.config).load_weights(model.weights)
        programs[name] = frontend.compile_module(modules[name], modules[name].inputs(model, 0), pipeline=pipeline)
    attention = modules["naive"].model.layers[0].self_attn
    cache = {"naive": attention.k_cache.nbytes + attention.v_cache.nbytes,
             "absorbed": sum(a.nbytes for a in programs["absorbed"].states().values())}
    print(f"DeepSeek-V3 tp=8 (N=16), 1 layer, batch 4, decode, static cache of {modules['naive'].max_len} positions")
    print(f"{'':<28}{'naive':>14}{'absorbed':>14}{'ratio':>8}")

    def row(what, naive, absorbed, unit=""):
        print(f"{what:<28}{naive:>13.4g}{unit}{absorbed:>13.4g}{unit}{naive / absorbed:>8.2f}")
    row("cache per layer (MiB)", cache["naive"] / 2**20, cache["absorbed"] / 2**20)
    row("kernel calls per step", *(len(programs[n].executable().calls) for n in ("naive", "absorbed")))
    row("memory plan peak (KiB)", *(programs[n].memory_plan().peak_bytes / 1024 for n in ("naive", "absorbed")))
    costs = {n: ascend_mla.roofline(programs[n]) for n in programs}
    row("roofline MB per step", *(costs[n].nbytes / 1e6 for n in ("naive", "absorbed")))
    a2 = costs["naive"].devices[0]
    row(f"roofline us ({a2.name})", *(costs[n].seconds(a2) * 1e6 for n in ("naive", "absorbed")))
    times = {n: [] for n in programs}
    for step in range(1, steps + 1):
        for n in programs:
            inputs = modules[n].inputs(model, step)
            t = time.perf_counter()
            with torch.no_grad():
                programs[n](*inputs)
            times[n].append(time.perf_counter() - t)
    row(f"CPU step (ms, median of {steps})", *(statistics.median(times[n]) * 1e3 for n in ("naive", "absorbed")))


if __name__ == "__main__":
    main()

"""transformers' DeepseekV3ForCausalLM decode step: eager transformers against
torch.compile(backend=AscendBackend()), in one run, steps interleaved.

    python bench/bench_torch_compile.py [--quick] [--layers L] [--heads N] [--batch B]

The model is transformers' own code at the fused ops' dimensions (He 7168, Hcq 1536, Hckv 512,
D 128, Dr 64), N heads, L layers (a dense MLP, then MoE layers), a small vocabulary and random
bf16 weights, with a StaticCache of 128 positions. Both copies share the weights and get the
same tokens (teacher forcing) and each its own cache; a step is one forward of one token per
batch row with the 4-D mask generate() would pass. The compiled step runs, per layer, one
mla.prolog_v2 and one FIA on the CPU backend (the kernels emulated op by op in NumPy) and the
rest (MLP, router, experts, rotary tables) as PyTorch partitions. Reported: the median step
time of each, their ratio, the compile time, and the largest logit difference.
"""
from __future__ import annotations

import argparse
import statistics
import time


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer steps")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("-v", "--verbose", action="store_true", help="print the decode graph's report")
    args = p.parse_args(argv)
    import torch
    import transformers
    from bench_eager import cpu_flags

    import ascend_mla
    from ascend_mla.frontend.torch import AscendBackend

    ascend_mla.set_backend("cpu")
    print(f"transformers {transformers.__version__}, torch {torch.__version__}, {torch.get_num_threads()} threads")
    print(f"CPU flags: {cpu_flags()}")
    config = transformers.DeepseekV3Config(
        vocab_size=256, hidden_size=7168, intermediate_size=256, moe_intermediate_size=64,
        num_hidden_layers=args.layers, num_attention_heads=args.heads, num_key_value_heads=args.heads,
        n_shared_experts=1, n_routed_experts=8, routed_scaling_factor=1.0, kv_lora_rank=512, q_lora_rank=1536,
        qk_rope_head_dim=64, v_head_dim=128, qk_nope_head_dim=128, n_group=1, topk_group=1,
        num_experts_per_tok=2, first_k_dense_replace=1, max_position_embeddings=512)
    torch.manual_seed(0)
    model = transformers.DeepseekV3ForCausalLM(config).to(torch.bfloat16).eval()
    length, prompt = 128, 8
    steps = 4 if args.quick else 16
    backend = AscendBackend()
    compiled = torch.compile(model.forward, backend=backend, dynamic=False)     # one graph per shape
    caches = {name: transformers.StaticCache(config=config, max_cache_len=length) for name in ("eager", "compiled")}
    tokens = torch.randint(0, config.vocab_size, (args.batch, prompt + steps + 1))

    def step(forward, cache, start, size):
        positions = torch.arange(start, start + size)
        mask = (torch.arange(length)[None, :] <= positions[:, None])[None, None].expand(args.batch, 1, size, length)
        with torch.no_grad():
            return forward(input_ids=tokens[:, start:start + size], attention_mask=mask,
                           position_ids=positions[None].expand(args.batch, size), cache=caches_of[cache],
                           use_cache=True).logits

    caches_of = caches
    for name, forward in (("eager", model.forward), ("compiled", compiled)):
        step(forward, name, 0, prompt)                     # the prefill (compiles the prefill graph)
    start = time.perf_counter()
    step(compiled, "compiled", prompt, 1)                  # compiles the decode graph
    compile_seconds = time.perf_counter() - start
    step(model.forward, "eager", prompt, 1)
    times = {"eager": [], "compiled": []}
    error = 0.0
    for i in range(1, steps):
        logits = {}
        for name, forward in (("eager", model.forward), ("compiled", compiled)):
            t = time.perf_counter()
            logits[name] = step(forward, name, prompt + i, 1)
            times[name].append(time.perf_counter() - t)
        error = max(error, (logits["eager"].float() - logits["compiled"].float()).abs().max().item())
    decode = backend.reports[-1]
    if args.verbose:
        print(decode)
    fused = [f["op"] for f in decode["fused"]]
    print(f"DeepSeek-V3 dims, {args.layers} layers, N = {args.heads}, batch {args.batch}, StaticCache {length}: "
          f"{fused.count('mla.prolog_v2')} prolog_v2 + {fused.count('mla.fused_infer_attention_score')} FIA fused, "
          f"{sum(p['kind'] == 'pytorch' for p in decode['partitions'])} PyTorch partitions, "
          f"{backend.fallbacks} fallbacks, graphs compiled: {len(backend.reports)}")
    eager, ours = statistics.median(times["eager"]), statistics.median(times["compiled"])
    print(f"decode step (median of {steps - 1}): eager transformers {eager * 1e3:.1f} ms, "
          f"torch.compile(ascend_mla) {ours * 1e3:.1f} ms, ratio compiled/eager {ours / eager:.2f}")
    print(f"decode graph compile: {compile_seconds:.1f} s; max |logits difference| {error:.3g} "
          f"(largest logit {logits['eager'].float().abs().max().item():.3g})")


if __name__ == "__main__":
    main()

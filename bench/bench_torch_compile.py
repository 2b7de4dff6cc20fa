"""torch.compile(backend="ascend_mla") against eager PyTorch and torch.compile(backend="inductor"),
in one run, steps interleaved: transformers' DeepSeek-V3 decode and a non-DeepSeek model.

    python bench/bench_torch_compile.py [--quick] [--layers L] [--heads N] [--batch B] [--model M]

DeepSeek-V3: transformers' own DeepseekV3ForCausalLM at the fused ops' dimensions (He 7168, Hcq
1536, Hckv 512, D 128, Dr 64), N heads, L layers (a dense MLP, then MoE layers), a small vocabulary
and random bf16 weights, a StaticCache of 128 positions. Each of the three gets the same tokens
(teacher forcing) and its own cache; a step is one forward of one token per batch row with the
4-D mask generate() would pass. The ascend_mla step runs, per layer, one mla.prolog_v2 and one FIA
on the CPU backend and the rest (MLP, router, experts, rotary tables) as inductor-compiled
partitions. Also printed: each one's largest logit difference from the same model in float32
(the numerics bound of docs/frontend.md, for eager, inductor and ascend_mla on the same steps).

The non-DeepSeek model (--model: llama by default, qwen2, gpt2, mistral): transformers' model in
float32, a forward of a batch of token ids (no cache), where nothing fuses: ascend_mla hands the
graph to inductor, so its time is inductor's plus the backend's per-call cost.

Reported: the median step time of each, the ratios to eager and to inductor, compile times.
"""
from __future__ import annotations

import argparse
import copy
import statistics
import time


def interleaved(steps, functions):
    """Median seconds of each function over `steps` calls, the calls interleaved (a shared
    machine's load moves all of them alike)."""
    times = {name: [] for name in functions}
    for i in range(steps):
        for name, fn in functions.items():
            start = time.perf_counter()
            fn(i)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def line(label, medians):
    eager, inductor, ours = medians["eager"], medians["inductor"], medians["ascend_mla"]
    return (f"{label}: eager {eager * 1e3:.1f} ms, inductor {inductor * 1e3:.1f} ms, ascend_mla {ours * 1e3:.1f} ms; "
            f"ascend_mla/eager {ours / eager:.2f}, ascend_mla/inductor {ours / inductor:.2f}, "
            f"inductor/eager {inductor / eager:.2f}")


def deepseek(args, torch, transformers):
    from ascend_mla.frontend.torch import AscendBackend
    config = transformers.DeepseekV3Config(
        vocab_size=256, hidden_size=7168, intermediate_size=256, moe_intermediate_size=64,
        num_hidden_layers=args.layers, num_attention_heads=args.heads, num_key_value_heads=args.heads,
        n_shared_experts=1, n_routed_experts=8, routed_scaling_factor=1.0, kv_lora_rank=512, q_lora_rank=1536,
        qk_rope_head_dim=64, v_head_dim=128, qk_nope_head_dim=128, n_group=1, topk_group=1,
        num_experts_per_tok=2, first_k_dense_replace=1, max_position_embeddings=512)
    torch.manual_seed(0)
    model = transformers.DeepseekV3ForCausalLM(config).to(torch.bfloat16).eval()
    reference = copy.deepcopy(model).float()
    length, prompt = 128, 8
    steps = 4 if args.quick else 16
    backend = AscendBackend()
    forwards = {"eager": model.forward, "inductor": torch.compile(model.forward),
                "ascend_mla": torch.compile(model.forward, backend=backend), "float32": reference.forward}
    caches = {name: transformers.StaticCache(config=config, max_cache_len=length) for name in forwards}
    tokens = torch.randint(0, config.vocab_size, (args.batch, prompt + steps + 1))
    logits = {}

    def step(name, start, size):
        positions = torch.arange(start, start + size)
        mask = (torch.arange(length)[None, :] <= positions[:, None])[None, None].expand(args.batch, 1, size, length)
        with torch.no_grad():
            logits[name] = forwards[name](
                input_ids=tokens[:, start:start + size], attention_mask=mask,
                position_ids=positions[None].expand(args.batch, size), cache=caches[name], use_cache=True).logits.float()

    compile_seconds = {}
    for name in forwards:
        start = time.perf_counter()
        step(name, 0, prompt)                     # the prefill (compiles the prefill graph)
        step(name, prompt, 1)                     # the first decode step (compiles the decode graph)
        compile_seconds[name] = time.perf_counter() - start
    errors = {name: 0.0 for name in forwards if name != "float32"}

    def decode(name):
        def run(i):
            step(name, prompt + 1 + i, 1)
            if name == "float32":
                scale = logits["float32"].abs().max().item()
                for other in errors:
                    errors[other] = max(errors[other], (logits[other] - logits["float32"]).abs().max().item() / scale)
        return run
    medians = interleaved(steps - 1, {name: decode(name) for name in forwards})
    decode_report = backend.reports[-1]
    fused = [f["op"] for f in decode_report["fused"]]
    if args.verbose:
        print(decode_report)
    print(f"DeepSeek-V3 dims, {args.layers} layers, N = {args.heads}, batch {args.batch}, StaticCache {length}: "
          f"{fused.count('mla.prolog_v2')} prolog_v2 + {fused.count('mla.fused_infer_attention_score')} FIA fused, "
          f"partitions {[p['kind'] for p in decode_report['partitions']]}, {backend.fallbacks} fallbacks, "
          f"graphs compiled: {len(backend.reports)}")
    print(line(f"decode step (median of {steps - 1})", medians))
    print("first two calls (prefill + decode, compiling both graphs): "
          + ", ".join(f"{n} {compile_seconds[n]:.1f} s" for n in ("eager", "inductor", "ascend_mla")))
    print("largest |logits - float32 model's| / largest float32 logit over the decode steps: "
          + ", ".join(f"{n} {errors[n] * 100:.2f}%" for n in ("eager", "inductor", "ascend_mla")))


def other(args, torch, transformers):
    from ascend_mla.frontend.torch import AscendBackend
    small = dict(vocab_size=1024, hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=8,
                 num_key_value_heads=4, max_position_embeddings=512)
    torch.manual_seed(0)
    if args.model == "gpt2":
        model = transformers.GPT2LMHeadModel(transformers.GPT2Config(vocab_size=1024, n_embd=256, n_layer=2, n_head=8))
    else:
        config = {"llama": transformers.LlamaConfig, "qwen2": transformers.Qwen2Config,
                  "mistral": transformers.MistralConfig}[args.model](**small)
        model = transformers.AutoModelForCausalLM.from_config(config)
    model.eval()
    ids = torch.randint(0, 1024, (args.batch, 64))
    backend = AscendBackend()
    forwards = {"eager": model, "inductor": torch.compile(model), "ascend_mla": torch.compile(model, backend=backend)}
    compile_seconds = {}
    outputs = {}
    with torch.no_grad():
        for name, fn in forwards.items():
            start = time.perf_counter()
            outputs[name] = fn(ids).logits
            compile_seconds[name] = time.perf_counter() - start
        medians = interleaved(8 if args.quick else 30, {name: (lambda i, fn=fn: fn(ids)) for name, fn in forwards.items()})
    kinds = sorted({p["kind"] for r in backend.reports for p in r["partitions"]})
    print(f"{args.model} (float32, 2 layers, hidden 256, batch {args.batch} x 64 tokens, no cache): ascend_mla runs "
          f"{kinds}; max |ascend_mla - eager| {(outputs['ascend_mla'] - outputs['eager']).abs().max().item():.2g}")
    print(line(f"forward (median of {8 if args.quick else 30})", medians))
    print("first call (compiling): " + ", ".join(f"{n} {compile_seconds[n]:.1f} s" for n in ("inductor", "ascend_mla")))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer steps")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--model", default="llama", choices=["llama", "qwen2", "gpt2", "mistral"],
                   help="the non-DeepSeek model")
    p.add_argument("-v", "--verbose", action="store_true", help="print the decode graph's report")
    args = p.parse_args(argv)
    import logging
    import warnings

    import torch
    import transformers
    from bench_eager import cpu_flags

    import ascend_mla

    warnings.filterwarnings("ignore")       # the prefill's unfused attention says so (FusionWarning)
    logging.getLogger("ascend_mla").setLevel(logging.ERROR)
    ascend_mla.set_backend("cpu")
    print(f"transformers {transformers.__version__}, torch {torch.__version__}, {torch.get_num_threads()} threads")
    print(f"CPU flags: {cpu_flags()}")
    deepseek(args, torch, transformers)
    other(args, torch, transformers)


if __name__ == "__main__":
    main()

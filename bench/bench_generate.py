"""Tokens/s of AutoCausalLM on the CPU backend against transformers' eager model of the same
checkpoint (DeepseekV3 or the family's own class), in one run: prefill and decode apart, greedy,
runs of the two interleaved.

    python bench/bench_generate.py [--quick] [--checkpoint DIR] [--families F,..] [--batch 1,8]
                                   [--prompt 16,128,1024] [--new N]
    python bench/bench_generate.py --family minicpm3          # any MLA family's small checkpoint

Without --checkpoint it writes, per family, a small checkpoint with transformers (timing.FAMILIES:
DeepSeek-V3's dims are the tests' SMALL: hidden 7168, q_lora 1536, 8 heads; DeepSeek-V2's hidden
5120, q_lora 1536, 8 heads, grouped softmax router; DeepSeek-V2-Lite's hidden 2048, no q_lora,
16 heads; each a dense and a MoE layer, vocab 512, random init) to a temporary directory, and
runs each at every batch and prompt length. Both sides run the checkpoint in bf16.
transformers: `model(prompt)` then one `model(token, cache=...)` per new token with its
DynamicCache (what its greedy `generate` does, taken apart to time prefill and decode); the
ascend-mla: `lm(prompt)` then `lm(token)` per new token (what `CausalLM.generate` does), compiled
by a first call before timing (its time is printed). Prints the CPU flags, torch's thread count,
the load average, tokens/s of prefill and decode and the speed-up of ascend-mla over
transformers (their time / ours: > 1 is faster), and whether both gave the same tokens.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from timing import FAMILIES, family_checkpoint, small_checkpoint  # noqa: E402


def cpu_flags() -> str:
    try:
        flags = next(line for line in open("/proc/cpuinfo") if line.startswith("flags")).split()
    except (OSError, StopIteration):
        return "unknown"
    return " ".join(f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f in flags) or "none of avx2/avx512"


def ours(lm, prompt, new):
    """(tokens, prefill seconds, decode seconds) of CausalLM: the steps of lm.generate."""
    lm.reset()
    start = time.perf_counter()
    token = np.asarray(lm(prompt))[:, -1].argmax(-1)[:, None]
    prefill = time.perf_counter() - start
    out = [token]
    start = time.perf_counter()
    for _ in range(new - 1):
        token = np.asarray(lm(token))[:, -1].argmax(-1)[:, None]
        out.append(token)
    return np.concatenate(out, 1), prefill, time.perf_counter() - start


def theirs(model, prompt, new):
    """(tokens, prefill seconds, decode seconds) of transformers' eager model with its cache."""
    import torch
    from transformers import DynamicCache
    ids = torch.from_numpy(prompt)
    with torch.no_grad():
        start = time.perf_counter()
        cache = DynamicCache(config=model.config)
        out = model(ids, cache=cache, use_cache=True)
        token = out.logits[:, -1].argmax(-1, keepdim=True)
        prefill = time.perf_counter() - start
        tokens = [token]
        start = time.perf_counter()
        for _ in range(new - 1):
            out = model(token, cache=cache, use_cache=True)
            token = out.logits[:, -1].argmax(-1, keepdim=True)
            tokens.append(token)
        decode = time.perf_counter() - start
    return torch.cat(tokens, 1).numpy(), prefill, decode


def transformers_model(path, model_type):
    """transformers' bf16 eager model of the checkpoint: its Auto class, else the family's own
    class (Mistral 4 and Kimi-K2.5 are not AutoModelForCausalLM models)."""
    import torch
    import transformers
    sys.path.insert(0, os.path.join(HERE, os.pardir, "examples"))
    from write_checkpoint import FAMILIES as WRITTEN
    cls = transformers.AutoModelForCausalLM
    if model_type in ("mistral4", "kimi_k25"):
        cls = getattr(transformers, WRITTEN[model_type][1])
    return cls.from_pretrained(path, dtype=torch.bfloat16, attn_implementation="eager").eval()


def measure(path, batch, prompt_len, new, repeat):
    """One checkpoint at one shape: both sides loaded, warmed, timed interleaved. Returns a
    dict of medians and whether the greedy tokens agreed."""
    from ascend_mla.models import AutoCausalLM, checkpoint
    lm = AutoCausalLM.from_pretrained(path, batch=batch, target="cpu", max_positions=128 * -(-(prompt_len + new) // 128))
    model = transformers_model(path, checkpoint.read_config(path).model_type)
    rng = np.random.default_rng(0)
    prompt = rng.integers(2, model.config.get_text_config().vocab_size, (batch, prompt_len)).astype(np.int64)
    start = time.perf_counter()
    ours(lm, prompt, 2)                          # compiles what is not compiled yet
    compile_s = time.perf_counter() - start
    theirs(model, prompt, 2)                     # warm-up
    runs = {"ascend-mla": [], "transformers": []}
    for _ in range(repeat):
        runs["ascend-mla"].append(ours(lm, prompt, new))
        runs["transformers"].append(theirs(model, prompt, new))
    median = {k: (statistics.median(r[1] for r in v), statistics.median(r[2] for r in v)) for k, v in runs.items()}
    same = all(np.array_equal(runs["ascend-mla"][0][0], r[0]) for r in runs["transformers"])
    return dict(median=median, same=same, compile=compile_s, config=model.config)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="prompts 16 and 128, batch 1 and 8, 4 new tokens, 2 repeats")
    p.add_argument("--checkpoint", help="a Hugging Face DeepSeek checkpoint directory (default: each family's small one)")
    p.add_argument("--families", "--family", default=",".join(FAMILIES), help=f"comma-separated, of {', '.join(FAMILIES)} "
                   "or examples/write_checkpoint.FAMILIES' names (deepseek_v3, minicpm3, ...)")
    p.add_argument("--batch", default="1,8", help="batch sizes, comma-separated (default 1,8)")
    p.add_argument("--prompt", help="prompt tokens per row, comma-separated (default 16,128,1024)")
    p.add_argument("--new", type=int, help="new tokens per row (default 16, --quick 4)")
    p.add_argument("--repeat", type=int, help="timed runs of each (default 3, --quick 2)")
    args = p.parse_args(argv)
    prompts = [int(v) for v in (args.prompt or ("16,128" if args.quick else "16,128,1024")).split(",")]
    batches = [int(v) for v in args.batch.split(",")]
    new = args.new or (4 if args.quick else 16)
    repeat = args.repeat or (2 if args.quick else 3)

    import torch
    from transformers.utils import logging

    import ascend_mla
    logging.disable_progress_bar()
    print(f"CPU flags: {cpu_flags()}; {os.cpu_count()} CPUs; torch {torch.__version__} with "
          f"{torch.get_num_threads()} threads; ASCEND_MLA_MATMUL={os.environ.get('ASCEND_MLA_MATMUL', '(default)')}; "
          f"load average {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    print(f"{new} new tokens per row, medians of {repeat} interleaved runs; tok/s (ascend-mla / transformers eager bf16 "
          f"= the speed-up: > 1 is faster)")
    ascend_mla.set_backend("cpu")
    header = (f"{'family':<18}{'batch':>6}{'prompt':>7} | {'prefill tok/s':>22}{'x':>6} | {'decode tok/s':>20}{'x':>6}"
              f" | {'compile s':>9} same tokens")
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        for family in (["checkpoint"] if args.checkpoint else args.families.split(",")):
            path = args.checkpoint or (family_checkpoint(tmp, family) if family in FAMILIES
                                       else small_checkpoint(tmp, family))
            for batch in batches:
                for prompt_len in prompts:
                    r = measure(path, batch, prompt_len, new, repeat)
                    (op, od), (tp, td) = r["median"]["ascend-mla"], r["median"]["transformers"]
                    pre = batch * prompt_len
                    dec = batch * (new - 1)
                    print(f"{family:<18}{batch:>6}{prompt_len:>7} | {pre / op:10.1f} {pre / tp:10.1f}{tp / op:6.2f} |"
                          f" {dec / od:9.1f} {dec / td:9.1f}{td / od:6.2f} | {r['compile']:9.1f} "
                          f"{'yes' if r['same'] else 'no'}", flush=True)
    print("same tokens: greedy tokens equal transformers' (random weights have near-ties: a difference is a bf16 "
          "rounding flipping one, not a measure of error)")
    print(f"load average at the end {' '.join(f'{v:.1f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()

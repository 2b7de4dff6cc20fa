"""Tokens/s of AutoCausalLM on the CPU backend against transformers' eager model of the same
checkpoint (DeepseekV3 or the family's own class), in one run: prefill and decode apart, greedy,
runs of the two interleaved.

    python bench/bench_generate.py [--quick] [--family NAME | --checkpoint DIR] [--batch B] [--prompt P] [--new N]

Without --checkpoint it writes a small DeepSeek-V3 checkpoint with transformers (the tests'
test/python/hf_checkpoints.SMALL: the MLA prolog's dims, 8 heads, a dense and a MoE layer,
vocab 512; random init) to a temporary directory; with --family NAME, the small checkpoint of
that MLA family (examples/write_checkpoint.FAMILIES, what test_families.py runs). Both sides run the checkpoint in bf16.
transformers: `model(prompt)` then one `model(token, cache=...)` per new token with its
DynamicCache (what its greedy `generate` does, taken apart to time prefill and decode); the
`generate` calls of both are timed too, in the same interleaved runs. ascend-mla: `lm(prompt)` then `lm(token)` per new token (what
`CausalLM.generate` does), compiled by a first call before timing. Prints the CPU flags, torch's
thread count, the median times, tokens/s and the speed-up of ascend-mla over transformers
(their time / ours: > 1 is faster), and whether both gave the same tokens.
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
from timing import small_checkpoint   # noqa: E402


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
    from write_checkpoint import FAMILIES
    cls = transformers.AutoModelForCausalLM
    if model_type in ("mistral4", "kimi_k25"):
        cls = getattr(transformers, FAMILIES[model_type][1])
    return cls.from_pretrained(path, dtype=torch.bfloat16, attn_implementation="eager").eval()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a short prompt, few tokens, two repeats")
    p.add_argument("--checkpoint", help="a Hugging Face checkpoint directory of an MLA family (default: write a small one)")
    p.add_argument("--family", default="deepseek_v3", help="the family of the small checkpoint written without "
                   "--checkpoint (a model_type of examples/write_checkpoint.FAMILIES; default deepseek_v3)")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--prompt", type=int, help="prompt tokens per row (default 32, --quick 8)")
    p.add_argument("--new", type=int, help="new tokens per row (default 32, --quick 8)")
    p.add_argument("--repeat", type=int, help="timed runs of each (default 3, --quick 2)")
    args = p.parse_args(argv)
    prompt_len = args.prompt or (8 if args.quick else 32)
    new = args.new or (8 if args.quick else 32)
    repeat = args.repeat or (2 if args.quick else 3)

    import torch
    import ascend_mla
    from ascend_mla.models import AutoCausalLM, checkpoint

    print(f"CPU flags: {cpu_flags()}; {os.cpu_count()} CPUs; torch {torch.__version__} with "
          f"{torch.get_num_threads()} threads; ASCEND_MLA_MATMUL={os.environ.get('ASCEND_MLA_MATMUL', '(default)')}")
    ascend_mla.set_backend("cpu")
    with tempfile.TemporaryDirectory() as tmp:
        path = args.checkpoint or small_checkpoint(tmp, args.family)
        start = time.perf_counter()
        lm = AutoCausalLM.from_pretrained(path, batch=args.batch, target="cpu",
                                          max_positions=128 * -(-(prompt_len + new) // 128))
        load_ours = time.perf_counter() - start
        start = time.perf_counter()
        family = checkpoint.read_config(path).model_type
        model = transformers_model(path, family)
        load_theirs = time.perf_counter() - start
        c = model.config.get_text_config()
        rng = np.random.default_rng(0)
        prompt = rng.integers(2, c.vocab_size, (args.batch, prompt_len)).astype(np.int64)
        print(f"checkpoint: {os.path.basename(os.path.normpath(path))} ({family}): {lm.config['num_hidden_layers']} layers, hidden "
              f"{c.hidden_size}, {c.num_attention_heads} heads, vocab {c.vocab_size}, bf16; batch {args.batch}, "
              f"prompt {prompt_len}, {new} new tokens, median of {repeat} interleaved runs")
        print(f"load: ascend-mla {load_ours:.1f} s, transformers {load_theirs:.1f} s")
        start = time.perf_counter()
        ours(lm, prompt, 2)                          # compiles what is not compiled yet
        print(f"first call: ascend-mla compiles its programs: {time.perf_counter() - start:.1f} s (with one run)")
        theirs(model, prompt, 2)                     # warm-up
        runs = {"ascend-mla": [], "transformers": []}
        generate_times = {"ascend-mla": [], "transformers": []}
        ids = torch.from_numpy(prompt)
        for _ in range(repeat):
            runs["ascend-mla"].append(ours(lm, prompt, new))
            runs["transformers"].append(theirs(model, prompt, new))
            start = time.perf_counter()
            lm_generated = np.asarray(lm.generate(prompt, max_new_tokens=new, eos_token_id=None))   # all tokens, as min_new_tokens below
            generate_times["ascend-mla"].append(time.perf_counter() - start)
            with torch.no_grad():
                start = time.perf_counter()
                generated = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=new,
                                           min_new_tokens=new, do_sample=False, pad_token_id=0)
                generate_times["transformers"].append(time.perf_counter() - start)
        lm_generate, hf_generate = (statistics.median(generate_times[k]) for k in ("ascend-mla", "transformers"))

    rows = args.batch
    median = {k: (statistics.median(r[1] for r in v), statistics.median(r[2] for r in v)) for k, v in runs.items()}
    print(f"{'':<12}{'ascend-mla':>26}{'transformers':>26}{'speed-up':>10}")

    def row(what, tokens, ours_s, theirs_s):
        cell = lambda t: f"{t:.3f} s {tokens / t:8.2f} tok/s"          # noqa: E731
        print(f"{what:<12}{cell(ours_s):>26}{cell(theirs_s):>26}{theirs_s / ours_s:>10.2f}")
    row("prefill", rows * prompt_len, median["ascend-mla"][0], median["transformers"][0])
    row("decode", rows * (new - 1), median["ascend-mla"][1], median["transformers"][1])
    row("generate()", rows * new, lm_generate, hf_generate)
    same = all(np.array_equal(runs["ascend-mla"][0][0], r[0]) for r in runs["transformers"])
    same_generate = np.array_equal(lm_generated[:, prompt_len:], generated[:, prompt_len:].numpy())
    first = int(np.argmax(runs["ascend-mla"][0][0] != runs["transformers"][0][0], axis=1).min()) if not same else new
    print(f"same greedy tokens: {'yes' if same and same_generate else f'no (first difference at new token {first})'}"
          f" (random weights have near-ties: a difference is a bf16 rounding flipping one, not a measure of error)")


if __name__ == "__main__":
    main()

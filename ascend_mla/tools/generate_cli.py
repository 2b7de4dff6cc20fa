"""`ascend-mla generate`: greedy tokens from a Hugging Face checkpoint directory.

    ascend-mla generate CHECKPOINT [--prompt-ids 1,2,3 | --prompt TEXT] [--max-new-tokens N]
                        [--ignore-eos] [--batch B] [--quant Q] [--cache-mode M] [--target T] [--tp N | --ep N]
                        [--report]

Greedy generation through AutoCausalLM (any supported MLA family: DeepSeek-V3/R1, Kimi-K2/K2.5,
DeepSeek-V2, MiniCPM3, GLM-4.7-Flash, LongCat-Flash, Mistral 4, Youtu, A.X-K1, Sarvam; docs/guide.md
"Model families"): the checkpoint is read and its programs compiled
(progress bars on a TTY), the prompt runs as one prefill step, then one decode step per new
token, up to N or until every row has produced the checkpoint's end-of-sequence token (as
transformers' generate: a finished row is padded with the pad token). stdout: what was loaded (and the MiB of weights it holds: --quant w8a8 about halves them), the prefill and decode speeds (tokens/s), with --prompt the
text, and last the generated token ids, space separated (all rows' new tokens, row after row).
The prompt is the same for every row of --batch. Without --prompt-ids or --prompt it is the
checkpoint's BOS token. Exit status 0; 2 with one line on stderr for a bad command line or a
checkpoint the compiler refuses (CKPT-* rules); 1 when running fails. --debug: tracebacks.
Under torchrun (--tp N or --ep N, N processes) every rank computes and rank 0 prints; with --ep
every rank generates the same prompt (each rank its own rows, its own caches, 1/N of the routed
experts), so rank 0's tokens are one process's.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import warnings

import numpy as np

QUANTS = ("bf16", "w8a8", "w8a8c8")
CACHE_MODES = ("PA_BSND", "PA_NZ")
TARGETS = ("auto", "cpu", "npu")


def add_parser(commands, count):
    """The `generate` subcommand on ascend-mla's parser (count: its integer-option type)."""
    g = commands.add_parser("generate", help="greedy tokens from a Hugging Face checkpoint directory",
                            description=__doc__.split("\n\n")[0])
    g.add_argument("checkpoint", metavar="CHECKPOINT", help="directory with config.json and *.safetensors")
    prompt = g.add_mutually_exclusive_group()
    prompt.add_argument("--prompt-ids", metavar="IDS", type=_ids, help="prompt token ids, comma separated: 1,2,3")
    prompt.add_argument("--prompt", metavar="TEXT", help="prompt text (needs the checkpoint's tokenizer.json)")
    g.add_argument("--max-new-tokens", metavar="N", type=count("--max-new-tokens", 0), default=16,
                   help="tokens to generate per row (default 16)")
    g.add_argument("--ignore-eos", action="store_true",
                   help="generate all N tokens: do not stop at the checkpoint's end-of-sequence token")
    g.add_argument("--batch", metavar="B", type=count("--batch"), default=1, help="rows generated together (default 1)")
    g.add_argument("--quant", choices=QUANTS, help="quantize at load (default: the checkpoint's weights as bf16); "
                   "w8a8c8 calibrates its latent cache's int8 scale on 64 seeded random tokens first")
    g.add_argument("--cache-mode", choices=CACHE_MODES, default="PA_BSND", help="paged cache layout (default PA_BSND)")
    g.add_argument("--target", choices=TARGETS, default="auto",
                   help="backend: auto = the NPU when present, else the CPU")
    g.add_argument("--tp", metavar="N", type=count("--tp"), default=1, help="tensor-parallel size (one rank without torchrun)")
    g.add_argument("--ep", metavar="N", type=count("--ep"), default=1,
                   help="expert-parallel size: each of N ranks (torchrun) holds 1/N of the routed experts and "
                        "runs its own rows")
    g.add_argument("--report", action="store_true", help="what the compiler fused and refused in every program")
    g.add_argument("--allow-nonfinite", action="store_true",
                   help="load weights holding NaN or Inf (refused by default: the model would compute NaN)")
    g.add_argument("--debug", action="store_true", help="show tracebacks")
    return g


def _ids(text):
    try:
        ids = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated token ids, got {text!r}") from None
    if not ids or min(ids) < 0:
        raise argparse.ArgumentTypeError(f"expected one or more token ids >= 0, got {text!r}")
    return ids


class Generate:
    """One `ascend-mla generate`; `usage` is the exception type of a bad value (exit 2)."""

    def __init__(self, args, out, usage):
        self.args, self.out, self.usage = args, out, usage
        self.bar = None

    def say(self, text=""):
        if self.bar is not None:
            self.bar.clear()
        print(text, file=self.out)
        self.out.flush()

    @contextlib.contextmanager
    def progress(self, total, unit):
        from tqdm import tqdm
        self.bar = tqdm(total=total, file=sys.stderr, leave=False, dynamic_ncols=True, unit=unit,
                        unit_scale=unit == "B", disable=not sys.stderr.isatty())
        try:
            yield self.bar
        finally:
            self.bar.close()
            self.bar = None

    # --- the pieces ------------------------------------------------------------------------------
    def tokenizer(self):
        from ..models.checkpoint_files import CheckpointDir
        try:             # a regular file inside the checkpoint, as every file read from it
            data = CheckpointDir(self.args.checkpoint).read_bytes("tokenizer.json", required=False)
        except ValueError as e:
            raise self.usage(" ".join(str(e).split())) from None
        if data is None:
            raise self.usage(f"--prompt: {self.args.checkpoint} has no tokenizer.json; give the prompt as "
                             f"--prompt-ids instead")
        from tokenizers import Tokenizer
        try:
            return Tokenizer.from_str(data.decode("utf-8"))
        except Exception as e:      # noqa: BLE001 - the tokenizers library's own error
            raise self.usage(f"{os.path.join(self.args.checkpoint, 'tokenizer.json')}: not a tokenizer "
                             f"({' '.join(str(e).split())[:200]})") from None

    def prompt(self, config, tokenizer):
        a = self.args
        if a.prompt is not None:
            ids = tokenizer.encode(a.prompt).ids
            if not ids:
                raise self.usage("--prompt: the text encodes to no tokens")
        elif a.prompt_ids is not None:
            ids = a.prompt_ids
        else:
            if config.bos_token_id is None:
                raise self.usage("the checkpoint names no BOS token: give --prompt-ids or --prompt")
            ids = [int(config.bos_token_id)]
        bad = [i for i in ids if i >= config.vocab_size]
        if bad:
            who = "--prompt-ids" if a.prompt_ids is not None else (
                "--prompt" if a.prompt is not None else "config.json bos_token_id (the default prompt)")
            raise self.usage(f"{who}: token id {bad[0]} is outside the vocabulary (size {config.vocab_size})")
        return np.array([ids] * a.batch, np.int64)

    def load(self, config):
        """CausalLM.from_pretrained with a progress bar over the bytes of tensors read (the
        checkpoint module reports them)."""
        from ..models import AutoCausalLM, checkpoint
        a = self.args
        with self.progress(None, "B") as bar:
            bar.set_description_str("loading")

            def read(done, total):
                if bar.total != total:
                    bar.total = total
                bar.n = done
                bar.refresh()
            with checkpoint.reporting(read):
                try:
                    with warnings.catch_warnings():      # the notes are printed, as note: lines
                        warnings.simplefilter("ignore", checkpoint.CheckpointNote)
                        lm = AutoCausalLM.from_pretrained(
                            a.checkpoint, batch=a.batch, quant=a.quant, cache_mode=a.cache_mode, tp=a.tp,
                            target=a.target, allow_nonfinite=a.allow_nonfinite, ep=a.ep)
                    # the caches' positions as the API sizes them (the config's, capped by memory),
                    # and the API's refusal of a generation that does not fit them
                    lm.check_length(self.prompt_length, a.max_new_tokens)
                    return lm
                except ValueError as e:         # a bad value or a refusal (CompileError is one too)
                    raise self.usage(" ".join(str(e).split())) from None

    # --- the run ---------------------------------------------------------------------------------
    def main(self) -> int:
        from ..models import checkpoint
        a = self.args
        if not os.path.isdir(a.checkpoint):
            raise self.usage(f"CHECKPOINT: {a.checkpoint} is not a directory")
        try:
            config = checkpoint.read_config(a.checkpoint)
        except ValueError as e:
            raise self.usage(" ".join(str(e).split())) from None
        tokenizer = self.tokenizer() if a.prompt is not None else None
        ids = self.prompt(config, tokenizer)
        self.prompt_length = ids.shape[1]
        from ..models.causal_lm import check_length
        try:                         # before the checkpoint is read; again once the caches are sized
            check_length(self.prompt_length, a.max_new_tokens, config.max_position_embeddings)
        except ValueError as e:
            raise self.usage(str(e)) from None
        start = time.perf_counter()
        lm = self.load(config)
        load_seconds = time.perf_counter() - start
        if a.tp > 1 or a.ep > 1:     # under torchrun: every rank computes, rank 0 prints
            from ..runtime.distributed import world
            lm._agree("generate's arguments", prompt=ids.tolist(), max_new_tokens=a.max_new_tokens,
                      ignore_eos=a.ignore_eos)
            if world().rank != 0:
                self.out = open(os.devnull, "w")
        heads = config.num_attention_heads // a.tp
        split = f" (tp {a.tp})" if a.tp > 1 else ""
        if a.ep > 1:
            split = f", ep {a.ep}: {config.n_routed_experts // a.ep} of {config.n_routed_experts} routed experts per rank"
        self.say(f"ascend-mla generate: {os.path.basename(os.path.normpath(a.checkpoint))} ({config.model_type}, "
                 f"{config.num_hidden_layers} layers, {heads} heads{split}, "
                 f"vocab {config.vocab_size}), {a.quant or 'bf16'}, {a.cache_mode} caches, batch {a.batch}")
        weight_bytes = sum(np.asarray(v).nbytes for v in lm.weights.values())
        self.say(f"loaded in {load_seconds:.1f} s ({weight_bytes / 2**20:.1f} MiB of weights)")
        notes = list(lm.notes)
        if a.target == "auto":
            from ..runtime.npu import broken_install_reason
            broken = broken_install_reason()
            if broken:           # said once, here (the CLI keeps library warnings quiet)
                notes.append(f"backend 'auto': running on the CPU backend because the CANN install here does not "
                             f"work: {broken}")
        for note in notes:
            self.say(f"note: {' '.join(note.split())}")
        if a.tp > 1 and os.environ.get("WORLD_SIZE") != str(a.tp):
            self.say(f"note: --tp {a.tp} outside torchrun is rank 0 alone (its collectives are the identity): "
                     f"its tokens are not the model's; run it under torchrun --nproc-per-node {a.tp}")
        new, prefill, decode = self.generate(lm, ids)
        if self.compile_seconds:
            self.say(f"compiled on the first call: {self.compile_seconds:.1f} s (compile + one run of the prompt)")
        rows = a.batch
        self.say(f"prefill: {ids.shape[1]} tokens x {rows} row{'s' * (rows > 1)} in {prefill:.3f} s "
                 f"({ids.size / prefill:.1f} tokens/s)")
        if new.shape[1] > 1:
            steps = new.shape[1] - 1
            self.say(f"decode: {steps} step{'s' * (steps > 1)} x {rows} row{'s' * (rows > 1)} in {decode:.3f} s "
                     f"({steps * rows / decode:.1f} tokens/s)")
        if a.report:
            self.say(str(lm.report()))
        if tokenizer is not None:                      # each row's prompt and continuation
            for prompt, row in zip(ids, new):
                self.say(tokenizer.decode([int(t) for t in prompt] + [int(t) for t in row]))
        self.say(" ".join(str(int(t)) for t in new.reshape(-1)))
        return 0

    @staticmethod
    def done(lm, stop) -> bool:
        """Every row finished; with ep, on every rank (each call of the model is a step of all
        ranks: a rank that finished first keeps stepping, its rows padded, until the others are)."""
        if lm.ep == 1:
            return stop.done
        from ..runtime.distributed import any_rank
        return not any_rank(not stop.done, "whether generation continues")

    def generate(self, lm, ids):
        """Greedy tokens (rows, new <= max_new_tokens), the prefill and the decode seconds. The
        same steps as lm.generate (reset, the prompt, then argmax tokens one step at a time,
        stopping when every row has produced the end-of-sequence token unless --ignore-eos),
        taken one by one to time prefill and decode apart and to show progress; the programs
        are compiled by a first run of the prompt, outside the timing."""
        a = self.args
        new = []
        prefill = decode = self.compile_seconds = 0.0
        if not a.max_new_tokens:
            return np.zeros((ids.shape[0], 0), np.int64), 1e-9, 0.0
        stop = lm.stopping(None) if a.ignore_eos else lm.stopping()
        with self.progress(a.max_new_tokens, "token") as bar:
            if not lm.programs:                      # CausalLM compiles at its first call
                bar.set_description_str("compiling")
                start = time.perf_counter()
                lm.reset()
                lm(ids)
                self.compile_seconds = time.perf_counter() - start
            bar.set_description_str("prefill")
            lm.reset()
            start = time.perf_counter()
            new.append(stop.next(np.asarray(lm(ids))[:, -1]))
            prefill = time.perf_counter() - start
            bar.update(1)
            bar.set_description_str("decode")
            start = time.perf_counter()
            while len(new) < a.max_new_tokens and not self.done(lm, stop):
                new.append(stop.next(np.asarray(lm(new[-1]))[:, -1]))
                bar.update(1)
            decode = time.perf_counter() - start
        return np.concatenate(new, axis=1), prefill, decode

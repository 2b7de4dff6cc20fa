"""ascend-mla: the front door. `ascend-mla run` builds a DeepSeek-class MLA attention block,
compiles it once, runs decode steps into paged caches, checks the result and says what the
compiler did (docs/api.md 7).

    ascend-mla run [--model NAME] [--tp N | --ep N] [--layers L] [--batch B] [--seq S] [--steps K]
                   [--quant Q] [--cache-mode M] [--target T] [--dump-ir DIR]
                   [--emit-cpp FILE] [--report] [--from-torch [--naive]] [--debug]
    ascend-mla generate CHECKPOINT [--prompt-ids 1,2,3 | --prompt TEXT] [--max-new-tokens N] ...
                   (tools/generate_cli.py: tokens from a Hugging Face checkpoint)

Exit status: 0 when the run and its checks pass; 2 for a bad command line (one line on stderr);
1 when compiling, running or a check fails (one line on stderr). `--debug` shows tracebacks.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings

import numpy as np

from . import generate_cli

NAMES = ("deepseek-v3", "deepseek-r1", "kimi-k2", "deepseek-v2", "deepseek-v2-lite", "deepseek-v3.2")   # deepseek.CONFIGS
QUANTS = ("bf16", "w8a8", "w8a8c8")
CACHE_MODES = ("PA_BSND", "PA_NZ")
TARGETS = ("auto", "cpu", "npu")
# The defaults run in a few seconds on 2 cores: 8 heads (tp 16 of DeepSeek-V3's 128) keep every
# projection but W_uq/W_uk/W_uv/o_proj at full size, two layers show the per-layer structure
# repeats, batch 4 makes the block table and the kv lengths non-trivial.
DEFAULTS = dict(model="deepseek-v3", tp=16, layers=2, batch=4, seq=1, steps=4, quant="bf16",
                cache_mode="PA_BSND", target="auto")
BLOCK_SIZE = 128               # the fused ops' paged-cache block size (MLA-099: 16-aligned, <= 1024...)
UNFUSED = "builtin.module(verify)"                            # the model's primitives as written
UNFUSED_FOLDED = "builtin.module(verify,fold-constants,cleanup)"   # ...with weights pre-packed
# Errors, relative to max |attention contribution| (the block's output minus its input): the
# bounds of test/python/test_deepseek_models.py, where they are derived (bf16: a dozen rounding
# stages in series give ~1%; int8: per-token activation quant adds ~0.4% per projection).
TOLERANCE = {"bf16": 2.0 ** -5, "w8a8": 2.0 ** -4, "w8a8c8": 2.0 ** -4}


class Usage(Exception):
    """A bad command line: exit status 2."""


class Failure(Exception):
    """Compiling, running or a check failed: exit status 1."""


class _Parser(argparse.ArgumentParser):
    """argparse with one error line and no usage dump (the problem is the last thing printed)."""

    def error(self, message):
        raise Usage(f"{message} (see {self.prog} --help)")


def _count(flag, low=1):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {value}")
        return value
    parse.__name__ = flag
    return parse


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="ascend-mla", description="Compile and run DeepSeek MLA attention for Ascend NPUs.")
    commands = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    run = commands.add_parser("run", help="build, compile and run a model for a few decode steps",
                              description=__doc__.split("\n\n")[0])
    run.add_argument("--model", choices=NAMES, help=f"model preset (default {DEFAULTS['model']})")
    run.add_argument("--tp", type=_count("--tp"), help="tensor-parallel size: this rank runs heads/tp heads (default 16)")
    run.add_argument("--ep", type=_count("--ep"),
                     help="expert-parallel size: MoE layers (the model's first ones) whose rank holds 1/ep of the "
                          "routed experts, attention data-parallel (all heads); alone: rank 0 of ep")
    run.add_argument("--layers", type=_count("--layers"), help="decoder layers (default 2)")
    run.add_argument("--batch", type=_count("--batch"), help="sequences decoded together (default 4)")
    run.add_argument("--seq", type=_count("--seq"), help="new tokens per sequence per step (default 1)")
    run.add_argument("--steps", type=_count("--steps"), help="decode steps (default 4)")
    run.add_argument("--quant", choices=QUANTS, help="weights/activations/cache quantization (default bf16)")
    run.add_argument("--cache-mode", choices=CACHE_MODES, help="paged cache layout (default PA_BSND)")
    run.add_argument("--target", choices=TARGETS, help="backend: auto = the NPU when present, else the CPU")
    run.add_argument("--dump-ir", metavar="DIR", help="write the IR of every compiler stage to DIR")
    run.add_argument("--emit-cpp", metavar="FILE", help="write the C++ host program (aclnn calls) to FILE")
    run.add_argument("--report", action="store_true",
                     help="roofline (bytes, FLOPs and bounds per kernel call on Atlas A2/A3), fused vs unfused")
    run.add_argument("--from-torch", action="store_true",
                     help="compile the PyTorch reference module (TorchMLA) through the frontend instead")
    run.add_argument("--naive", action="store_true",
                     help="with --from-torch: the naive Hugging Face form (TorchMLANaive), rewritten by absorb-kv")
    run.add_argument("--debug", action="store_true", help="show tracebacks")
    generate_cli.add_parser(commands, _count)
    return p


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in argv
    try:
        args = build_parser().parse_args(argv)
        if args.command is None:
            raise Usage("expected a command: ascend-mla run [options] (see ascend-mla --help)")
        if args.command == "generate":
            with warnings.catch_warnings():
                if not debug:
                    warnings.simplefilter("ignore")
                return generate_cli.Generate(args, sys.stdout, Usage).main()
        if args.ep is not None and args.tp is not None and args.tp > 1 and args.ep > 1:
            raise Usage("--tp with --ep: not built (expert parallelism runs attention data-parallel; "
                        "docs/parallel.md)")
        if args.ep is not None:
            args.tp = args.tp or 1
        else:
            args.ep = 1
        for key, value in DEFAULTS.items():
            if getattr(args, key) is None:
                setattr(args, key, value)
        with warnings.catch_warnings():
            if not debug:
                warnings.simplefilter("ignore")        # library deprecation notices are not the user's
            return Run(args, sys.stdout).main()
    except Usage as e:
        print(f"ascend-mla: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ascend-mla: interrupted", file=sys.stderr)
        return 130
    except Exception as e:                     # noqa: BLE001  (every failure is one line)
        if debug:
            raise
        print(f"ascend-mla: error: {_describe(e)}", file=sys.stderr)
        return 1


def _describe(e: BaseException) -> str:
    from ..compiler import CompileError
    from ..dialect.errors import BackendUnavailable, VerificationError
    text = " ".join(str(e).split()) or type(e).__name__
    if isinstance(e, (Failure, CompileError, VerificationError, BackendUnavailable)):
        return text
    if isinstance(e, OSError) and e.filename:
        return f"{e.filename}: {e.strerror}"
    return f"{text} ({type(e).__name__}; run with --debug for the traceback)"


def _ratio(error: float, scale: float) -> str:
    return f"{error / scale:.2%}" if scale else "n/a"


class Run:
    """One `ascend-mla run`: build, compile, run, check, report (stdout), progress (stderr)."""

    def __init__(self, args, out):
        self.args, self.out = args, out
        self.bar = None

    def say(self, text=""):
        if self.bar is not None:
            self.bar.clear()
        print(text, file=self.out)
        self.out.flush()

    # --- the pieces ------------------------------------------------------------------------
    def progress(self, total):
        from tqdm import tqdm
        self.bar = tqdm(total=total, file=sys.stderr, leave=False, dynamic_ncols=True,
                        disable=not sys.stderr.isatty(), bar_format="{desc}: {n}/{total} {bar} {elapsed}")
        return self.bar

    def stage(self, text):
        if self.bar is not None:
            self.bar.set_description_str(text)

    def advance(self):
        if self.bar is not None:
            self.bar.update(1)

    def resolve_target(self) -> tuple:
        """("cpu" | "npu", what to print): --target auto is the NPU when the CANN runtime and a
        device are here, else the CPU (the runtime says what is missing)."""
        from ..dialect.errors import BackendUnavailable
        from ..runtime.npu import broken_install_reason, npu_backend
        if self.args.target == "cpu":
            return "cpu", "cpu"
        try:
            npu_backend()
        except BackendUnavailable as why:
            if self.args.target == "npu":
                raise Failure(f"--target npu: {' '.join(str(why).split())}") from None
            broken = broken_install_reason()        # a CANN install that does not work: say why, once
            return "cpu", f"cpu (auto: {' '.join(broken.split())})" if broken else "cpu (auto: no NPU here)"
        return "npu", "npu"

    def build(self):
        from ..models import deepseek
        a = self.args
        # room for every step's tokens in the caches, in whole blocks
        positions = max(2, -(-a.steps * a.seq // BLOCK_SIZE)) * BLOCK_SIZE
        moe = {}
        if a.ep > 1:         # the model's first MoE layers, each rank's experts its 1/ep of them
            from ..models.decoder import PRESETS
            moe = dict(ep=a.ep, feed_forward=True, first_layer=PRESETS[a.model]["first_k_dense_replace"])
        try:
            return deepseek.build(a.model, tp=a.tp, layers=a.layers, batch=a.batch, seq=a.seq,
                                  quant=a.quant, cache_mode=a.cache_mode, block_size=BLOCK_SIZE,
                                  max_positions=positions, **moe)
        except ValueError as e:                # "tp: must divide the 128 attention heads ..."
            raise Usage(f"--{str(e).replace('_', '-')}") from None

    def check_memory(self, model):
        """Refuse, before allocating, a run this machine cannot hold (the weights are made
        in float32, kept in bf16, packed once more, and converted to float64 by the reference
        check; two sets of caches): measured ~0.6 GB + 3x the weights (tp 4, 1 layer: 1.0 GB)."""
        from ..dialect.types import numpy_dtype
        from ..models import deepseek
        c = model.config
        weights = sum(spec.numel * numpy_dtype(spec.dtype).itemsize for spec in deepseek.weight_specs(c).values())
        caches = model.num_blocks * c["block_size"] * (c["kv_lora_rank"] + 2 * c["qk_rope_head_dim"]) * 2 * c["layers"]
        need = 0.7e9 + 6 * weights + 3 * caches
        from ..models.config_keys import available_memory
        available = available_memory()
        if available is not None and need > available:
            raise Usage(f"this run needs about {need / 2 ** 30:.1f} GiB of memory ({weights / 2 ** 30:.1f} GiB of "
                        f"weights), {available / 2 ** 30:.1f} GiB are available: raise --tp or lower "
                        f"--layers/--batch")

    def check_outputs(self):
        """Fail before the run, not after it, when an output cannot be written."""
        a = self.args
        try:
            if a.dump_ir:
                os.makedirs(a.dump_ir, exist_ok=True)
        except OSError as e:
            raise Failure(f"cannot write {a.dump_ir}: {e.strerror}") from None
        if a.emit_cpp:
            parent = os.path.dirname(os.path.abspath(a.emit_cpp))
            if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
                raise Failure(f"cannot write {a.emit_cpp}: "
                              f"{'no such directory' if not os.path.isdir(parent) else 'permission denied'}")

    def write_outputs(self, program):
        try:
            self._write_outputs(program)
        except OSError as e:
            raise Failure(f"cannot write {e.filename}: {e.strerror}") from None

    def _write_outputs(self, program):
        a = self.args
        if a.dump_ir:
            os.makedirs(a.dump_ir, exist_ok=True)
            for i, (name, text) in enumerate(program.stages.items()):
                with open(os.path.join(a.dump_ir, f"{i:02d}-{name.replace('#', '-')}.mlir"), "w") as f:
                    f.write(text)
            self.say(f"IR of {len(program.stages)} stages written to {a.dump_ir}/ "
                     f"(00-input.mlir ... {len(program.stages) - 1:02d}-lower-to-aclnn.mlir)")
        if a.emit_cpp:
            from ..lowering.emit_cpp import EmitError, emit_cpp
            try:
                with program.context:
                    code = emit_cpp(program.module)
            except EmitError as e:
                raise Failure(f"--emit-cpp: {' '.join(str(e).split())}") from None
            with open(a.emit_cpp, "w") as f:
                f.write(code)
            self.say(f"C++ host program ({code.count(chr(10))} lines) written to {a.emit_cpp}")

    # --- the run ---------------------------------------------------------------------------
    def main(self) -> int:
        a = self.args
        self.check_outputs()
        if a.naive and not a.from_torch:
            raise Usage("--naive: the naive form is a PyTorch module (add --from-torch)")
        if a.from_torch:
            return self.from_torch()
        import ascend_mla
        target, backend = self.resolve_target()
        model = self.build()
        self.check_memory(model)
        c = model.config
        if a.ep > 1:
            ids = c["layer_ids"]
            self.say(f"ascend-mla run: {a.model} MLA attention + MoE, ep {a.ep} (rank 0: {c['n_routed_experts'] // a.ep} "
                     f"of {c['n_routed_experts']} routed experts; attention data-parallel, {c['heads']} heads), "
                     f"{_plural(a.layers, 'layer')} ({', '.join(map(str, ids))}), batch {a.batch}, seq {a.seq}, "
                     f"{a.quant}, {a.cache_mode} caches (block {BLOCK_SIZE}), {_plural(a.steps, 'decode step')}")
        else:
            kind = "DSA (MLA over the indexer's top-k)" if c.get("attention") == "dsa" else "MLA"
            self.say(f"ascend-mla run: {a.model} {kind} attention, tp {a.tp} ({c['heads']} of "
                     f"{c['num_attention_heads']} heads), {a.layers} layer{'s' * (a.layers > 1)}, batch {a.batch}, "
                     f"seq {a.seq}, {a.quant}, {a.cache_mode} caches (block {BLOCK_SIZE}), "
                     f"{_plural(a.steps, 'decode step')}")
        self.say(f"backend: {backend}")
        with self.progress(3 + a.steps * 2 + 1):
            self.stage("making random weights")
            model.weights                                   # made on first use; not compile time
            self.advance()
            self.stage("compiling")
            start = time.perf_counter()
            fused = ascend_mla.compile(model, target=target)
            compile_seconds = time.perf_counter() - start
            self.advance()
            self.stage("compiling the unfused program")
            unfused = ascend_mla.compile(model, pipeline=UNFUSED, target=target)
            self.advance()
            if target == "cpu":         # imports (the kernels, torch) outside the timed steps
                from ..runtime.kernels import load_all
                load_all()
            fused_caches, unfused_caches = model.new_caches(), model.new_caches()
            fused_times, unfused_times, history, outputs = [], [], [], []
            check_error = scale = 0.0
            for step in range(a.steps):
                self.stage(f"decode step {step + 1}/{a.steps}")
                inputs = model.inputs(step, fused_caches)
                start = time.perf_counter()
                got = fused(**inputs)[0]
                fused_times.append(time.perf_counter() - start)
                self.advance()
                start = time.perf_counter()
                expected = unfused(**model.inputs(step, unfused_caches))[0]
                unfused_times.append(time.perf_counter() - start)
                self.advance()
                hidden = inputs["hidden_states"].astype(np.float64)
                history.append(inputs["hidden_states"])
                outputs.append(got)
                check_error = max(check_error, float(np.abs(got.astype(np.float64) - expected.astype(np.float64)).max()))
                scale = max(scale, float(np.abs(expected.astype(np.float64) - hidden).max()))
            self.stage("float64 reference")
            # the float64 reference is the attention block's: with MoE layers (--ep) the check is
            # the unfused program (the same MoE ops, the attention as written)
            reference_error, reference_scale = self.reference(model, history, outputs) if a.ep == 1 else (0.0, 0.0)
            self.advance()
        self.report_compile(fused, unfused, compile_seconds, model)
        self.say(_times({"fused": fused_times, "unfused": unfused_times}))
        tolerance = TOLERANCE[a.quant]
        versus = (f"fused vs float64 reference {_ratio(reference_error, reference_scale)}" if a.ep == 1 else
                  "no float64 reference of the MoE layers")
        self.say(f"max error: fused vs unfused {check_error:.3g} = {_ratio(check_error, scale)} of "
                 f"max|{'attention' if a.ep == 1 else 'layer output'}| {scale:.3g}; {versus} (tolerance {tolerance:.2%})")
        if a.report:
            self.roofline(model, fused, unfused)
        self.write_outputs(fused)
        for what, error, s in (("the unfused program", check_error, scale),
                               ("the float64 reference", reference_error, reference_scale)):
            if s and error / s > tolerance:
                raise Failure(f"check failed: the fused program differs from {what} by {_ratio(error, s)} "
                              f"of max|attention| (tolerance {tolerance:.2%})")
        self.say(_verdict(fused.report()))
        return 0

    def reference(self, model, history, outputs):
        """Max error of the last step's outputs against the float64 MLA over every token so
        far (ascend_mla/models/reference.py: not the absorbed form), relative to max|attention|."""
        from ..models.reference import attention_block
        tokens = np.concatenate(history, axis=1)                 # (batch, steps*seq, He)
        seq = model.config["seq"]
        error = scale = 0.0
        for b in range(tokens.shape[0]):
            expected = attention_block(model.config, model.weights, tokens[b])[-seq:]
            hidden = history[-1][b].astype(np.float64)
            error = max(error, float(np.abs(outputs[-1][b].astype(np.float64) - expected).max()))
            scale = max(scale, float(np.abs(expected - hidden).max()))
        return error, scale

    def report_compile(self, fused, unfused, seconds, model):
        layers = model.config["layers"]
        report = fused.report()
        stages = [s for s in fused.stages if s != "input"]
        self.say(f"compiled in {seconds:.2f} s: {', '.join(stages)}")
        self.say("\n".join("  " + line for line in str(report).splitlines()))
        calls, plain = len(fused.executable().calls), len(unfused.executable().calls)
        self.say(f"kernel calls per step: {calls} fused ({calls / layers:g} per layer), "
                 f"{plain} unfused ({plain / layers:g} per layer)")
        plan, plain_plan = fused.memory_plan(), unfused.memory_plan()
        self.say(f"memory plan: {_size(plan.peak_bytes)} of device buffers at peak, {len(plan.buffers)} buffers "
                 f"({_size(plan.unplanned_bytes)} without reuse); unfused {_size(plain_plan.peak_bytes)}")

    def roofline(self, model, fused, unfused):
        import ascend_mla

        from ..cost import ATLAS_A2, DEVICES
        a, layers = self.args, model.config["layers"]
        inputs = model.inputs(a.steps - 1)          # the last step's kv lengths
        self.say("")
        self.say(f"roofline of the fused program at step {a.steps} (each call: max(bytes / HBM bandwidth, "
                 f"FLOPs / cube throughput)):")
        fused_roof = ascend_mla.roofline(fused, inputs)
        self.say(str(fused_roof))
        folded = ascend_mla.compile(model, pipeline=UNFUSED_FOLDED, target=fused.target)
        rows = [("fused (default pipeline)", fused_roof),
                ("unfused, weights pre-packed", ascend_mla.roofline(folded, inputs)),
                ("unfused, as written", ascend_mla.roofline(unfused, inputs))]
        self.say("")
        self.say(f"per layer ({layers} layer{'s' * (layers > 1)}; shared calls divided evenly):")
        self.say(f"  {'program':<30} {'launches':>8} {'HBM MB':>9}" + "".join(f" {d.name + ' us':>12}" for d in DEVICES))
        for name, r in rows:
            self.say(f"  {name:<30} {r.launches / layers:>8g} {r.nbytes / layers / 1e6:>9.2f}"
                     + "".join(f" {r.seconds(d) / layers * 1e6:>12.2f}" for d in DEVICES))
        self.say("")
        self.say(self.prolog_bound(model, fused_roof, ATLAS_A2))
        self.say("")
        self.say(str(fused.memory_plan()))

    def prolog_bound(self, model, roof, device) -> str:
        """The MLA prolog's bound here, and at all heads on one device (tp 1), from the same
        cost model over the model lowered at tp 1 (no weights needed: only the IR)."""
        prologs = roof.find("aclnnMlaProlog")
        if not prologs:
            return "prolog: not fused here (see the refusals above), no MLA prolog bound to show"
        here = prologs[0]
        full = full_heads_prolog(model)
        c = model.config
        text = (f"MLA prolog per layer: {here.nbytes / 1e6:.1f} MB at N = {c['heads']} -> "
                f"{here.seconds(device) * 1e6:.1f} us on {device.name}")
        if full is not None:
            text += (f"; at N = {c['num_attention_heads']} (tp 1): {full.nbytes / 1e6:.1f} MB "
                     f"({full.weight_bytes / 1e6:.1f} MB of weights) at {device.hbm_bytes_per_second / 1e12:g} TB/s "
                     f"-> {full.seconds(device) * 1e6:.1f} us")
        return text

    # --- the PyTorch path ------------------------------------------------------------------
    def from_torch(self) -> int:
        a = self.args
        if a.quant not in ("bf16", "w8a8") or a.cache_mode != "PA_BSND":
            raise Usage("--from-torch: the PyTorch reference module is bf16 or w8a8 with PA_BSND caches "
                        "(drop --cache-mode; --quant bf16 or w8a8)")
        if a.naive and a.quant != "bf16":
            raise Usage("--naive: the naive PyTorch module is bf16 (drop --quant)")
        try:
            from .torch_example import deepseek_example
        except ImportError:
            raise Failure("--from-torch needs PyTorch: pip install 'ascend-mla[torch]'") from None
        target, backend = self.resolve_target()
        form = "naive" if a.naive else "absorbed"
        self.say(f"ascend-mla run --from-torch: {a.model} {'TorchMLANaive' if a.naive else 'TorchMLA'} (PyTorch), "
                 f"tp {a.tp}, {a.layers} layer{'s' * (a.layers > 1)}, batch {a.batch}, seq {a.seq}, {a.quant}, "
                 f"{_plural(a.steps, 'decode step')}")
        self.say(f"backend: {backend}")
        with self.progress(1):
            self.stage("torch.export, import, compile, run against eager PyTorch")
            try:
                result = deepseek_example(a.model, tp=a.tp, layers=a.layers, batch=a.batch, seq=a.seq,
                                          steps=a.steps, target=target, quant=a.quant, form=form)
            except ValueError as e:
                if str(e).split(":")[0] in ("tp", "layers", "batch", "seq", "name"):
                    raise Usage(f"--{e}") from None
                raise
            self.advance()
        program = result["program"]
        layers = a.layers
        self.say(f"captured, imported and compiled in {result['compile_seconds']:.2f} s: "
                 f"{', '.join(s for s in program.stages if s != 'input')}")
        self.say("\n".join("  " + line for line in str(result["report"]).splitlines()))
        calls = len(program.executable().calls)
        self.say(f"kernel calls per step: {calls} ({calls / layers:g} per layer)")
        plan = program.memory_plan()
        self.say(f"memory plan: {_size(plan.peak_bytes)} of device buffers at peak, {len(plan.buffers)} buffers")
        if a.naive:
            kv = sum(b.nbytes for n, b in result["module"].named_buffers() if n.endswith(("k_cache", "v_cache")))
            latent = sum(s.nbytes for s in program.states().values())
            self.say(f"caches: {_size(latent)} of latent caches owned by the program "
                     f"({len(program.states())}), for {_size(kv)} of the module's K/V buffers"
                     f"{', no longer written' if program.states() else ''}")
        steps = result["steps"]
        self.say(_times({"compiled": [s["compiled_seconds"] for s in steps],
                         "eager PyTorch": [s["eager_seconds"] for s in steps]}))
        error = max(s["max_error"] for s in steps)
        tolerance = TOLERANCE["bf16"]        # w8a8 too: test_torch_quant.py says why
        self.say(f"max error: compiled vs eager PyTorch {error:.3g} = {_ratio(error, result['scale'])} of "
                 f"max|attention| {result['scale']:.3g} (tolerance {tolerance:.2%})")
        if a.report:
            import ascend_mla
            self.say("")
            self.say(str(ascend_mla.roofline(program)))
        self.write_outputs(program)
        if result["scale"] and error / result["scale"] > tolerance:
            raise Failure(f"check failed: the compiled module differs from eager PyTorch by "
                          f"{_ratio(error, result['scale'])} of max|attention| (tolerance {tolerance:.2%})")
        self.say(_verdict(result["report"]))
        return 0


def full_heads_prolog(model):
    """The MLA prolog's cost at all heads (tp 1, one layer, the same batch): the model's IR
    lowered without weights (fold-constants leaves unbound weights alone), one call costed."""
    from mlir import ir

    from ..compiler import transform
    from ..cost import roofline
    from ..dialect.diagnostics import DiagnosticCollector
    from ..dialect.dialect import make_context
    from ..models import deepseek
    from ..passes.registry import PIPELINES
    c = model.config
    full = deepseek.build(model.name, tp=1, layers=1, batch=c["batch"], seq=c["seq"], quant=c["quant"],
                          cache_mode=c["cache_mode"], block_size=c["block_size"])
    pipeline = PIPELINES["default"][:-1] + ",lower-to-aclnn)"
    context = make_context()
    with context, ir.Location.unknown(), DiagnosticCollector(context):
        module = transform(full.build(context), pipeline)
        if module is None:
            return None
        prologs = roofline(module).find("aclnnMlaProlog")
    return prologs[0] if prologs else None


def _times(runs: dict) -> str:
    """'time per step: fused 0.055 s, unfused 0.027 s (median of steps 2-4; step 1, which
    also runs every phase one and uploads the weights: fused 1.45 s, unfused 0.06 s)'."""
    later = {name: statistics.median(t[1:]) if len(t) > 1 else t[0] for name, t in runs.items()}
    text = "time per step: " + ", ".join(f"{name} {t:.3f} s" for name, t in later.items())
    count = len(next(iter(runs.values())))
    if count > 1:
        steps = "step 2" if count == 2 else f"median of steps 2-{count}"
        firsts = ", ".join(f"{name} {t[0]:.2f} s" for name, t in runs.items())
        text += f" ({steps}; step 1, which also runs every phase one: {firsts})"
    return text


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _verdict(report) -> str:
    """The last line: ok, and which rules kept a fusion from being made (the graph then ran
    unfused, correctly: a refusal is not an error)."""
    rules = sorted({r["reason"].rsplit("[", 1)[-1].rstrip("]") for r in report["refused"] if "[" in r["reason"]})
    if not report["refused"]:
        return "ok"
    return (f"ok, with {len(report['refused'])} fusion{'s' * (len(report['refused']) > 1)} refused "
            f"({', '.join(rules) or 'see above'}): those ops ran unfused")


def _size(n: int) -> str:
    for unit, scale in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


if __name__ == "__main__":
    sys.exit(main())

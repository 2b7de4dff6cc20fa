"""Named Python passes with options, shared by `mla-opt` and the Python API.

A pass is a dataclass whose fields are its options (xDSL's ModulePass); what it needs besides
the IR comes in explicitly, as the PassInputs the pipeline's caller hands it (the weights, the
op evaluator, the fusion log): nothing is found on a global.

    @register_pass
    @dataclass
    class MyPass(ModulePass):
        name = "my-pass"
        summary = "what it does"
        level: int = option(1, "how hard to try")

        def apply(self, module: ir.Operation, inputs: PassInputs):
            ...                   # rewrite; report problems with loc.emit_error + raise PassFailure

`register_pass("my-pass", "what it does", options=[...])` on a function `fn(module, **options)`
(with a parameter `inputs` to get them) registers the same thing, for a pass without state.

A pipeline is the upstream textual form, `builtin.module(verify,my-pass{level=2},canonicalize)`:
elements registered here run as Python passes, anything else is handed to MLIR's own pass
registry. Every Python pass is followed by the mla verifier (verify-each); the pipeline as a
whole is followed by it too, so an upstream pass cannot leave an invalid mla op behind.
"""
from __future__ import annotations

import dataclasses
import inspect
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping, Optional, Sequence

from mlir import ir, passmanager

from ..dialect.diagnostics import record_mlir_error
from ..dialect.dialect import verify_ops
from .report import FusionLog


class PassFailure(Exception):
    """Raised by a pass after it has emitted its error diagnostics."""


@dataclass(frozen=True)
class PassOption:
    name: str
    type: type
    default: Any
    help: str = ""

    def parse(self, text: str):
        if self.type is bool:
            if text.lower() in ("1", "true", "on", ""):
                return True
            if text.lower() in ("0", "false", "off"):
                return False
            raise ValueError(f"option {self.name}: expected true/false, got {text!r}")
        try:
            return self.type(text)
        except ValueError:
            raise ValueError(f"option {self.name}: expected {self.type.__name__}, got {text!r}") from None


@dataclass
class PassInputs:
    """What a pipeline's caller hands the passes besides the IR.

    weights: the values of the module's ml_program globals by name (passes/weights.py
        WeightTable); fold-constants adds the globals it computes, cleanup drops unused ones.
    evaluate: `evaluate(op, operand_values, weights) -> result values`, one op run on the CPU
        (the runtime's runtime/evaluate.py evaluate_op, wired in by the API layer: passes do
        not import the runtime).
    log: the FusionLog the rewriting passes record fusions and refusals in.
    """
    weights: Optional[Mapping] = None
    evaluate: Optional[Callable] = None
    log: FusionLog = field(default_factory=FusionLog)


class ModulePass:
    """A pass over a module: subclasses are dataclasses whose fields are the options (declared
    with `option`), set `name` (the pipeline element) and `summary`, and define `apply`."""
    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""

    def apply(self, module: ir.Operation, inputs: PassInputs):
        """Rewrite `module` in place. Return UNCHANGED when nothing changed (the verifier need
        not run again); raise PassFailure after emitting errors."""
        raise NotImplementedError

    @classmethod
    def pass_options(cls) -> tuple:
        """The options, from the dataclass fields: `level` is the pipeline's `level`, `matmul_nz`
        its `matmul-nz`."""
        hints = typing.get_type_hints(cls)
        return tuple(PassOption(f.name.replace("_", "-"), hints[f.name], f.default, f.metadata.get("help", ""))
                     for f in dataclasses.fields(cls))


def option(default, help: str = ""):
    """A pass option: a dataclass field with its default and help text."""
    return field(default=default, metadata={"help": help})


class _FunctionPass:
    """A pass registered as a function `fn(module, **options[, inputs])`."""

    def __init__(self, fn, options: dict):
        self.fn, self.options = fn, options

    def apply(self, module, inputs):
        if "inputs" in inspect.signature(self.fn).parameters:
            return self.fn(module, **self.options, inputs=inputs)
        return self.fn(module, **self.options)


@dataclass
class PassInfo:
    argument: str
    description: str
    make: Callable                       # option values (Python names) -> the pass (apply)
    options: Sequence[PassOption] = field(default_factory=tuple)
    cls: Optional[type] = None           # the ModulePass class (None: a function pass)

    def resolve_options(self, given: dict[str, str]) -> dict[str, Any]:
        known = {o.name: o for o in self.options}
        unknown = set(given) - set(known)
        if unknown:
            raise ValueError(f"pass {self.argument}: unknown option(s) {sorted(unknown)}; "
                             f"known: {sorted(known) or 'none'}")
        values = {o.name: o.default for o in self.options}
        values.update({k: known[k].parse(v) for k, v in given.items()})
        return values


PASSES: dict[str, PassInfo] = {}

# Named pipelines: `ascend_mla.compile(pipeline="default")` and `mla-opt --pass-pipeline=default`.
PIPELINES = {
    "default": "builtin.module(verify,raise-rms-norm,raise-rope,raise-quant,interleave-rope,absorb-kv,absorb-latent-kv,fuse-prolog,fuse-sparse-attention,fuse-attention,select-layout,fold-constants,cleanup)",
}


def register_pass(argument, description: str = "", options: Sequence[PassOption] = ()):
    """`@register_pass` on a ModulePass dataclass, or `@register_pass(name, description,
    options)` on a function."""
    if isinstance(argument, type):
        cls = argument
        _add(PassInfo(cls.name, cls.summary, lambda values: cls(**values), cls.pass_options(), cls))
        return cls

    def add(fn):
        _add(PassInfo(argument, description, lambda values: _FunctionPass(fn, values), tuple(options)))
        return fn
    return add


def _add(info: PassInfo):
    if info.argument in PASSES:
        raise ValueError(f"pass {info.argument} registered twice")
    PASSES[info.argument] = info


# --- pipeline text ------------------------------------------------------------------------

def _split_top_level(text: str) -> list[str]:
    """The comma-separated elements of a pipeline (nested parentheses and braces kept);
    ValueError for unbalanced ones."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
            if depth < 0:
                raise ValueError(f"pipeline {text!r}: unbalanced parentheses (an extra closing '{ch}' "
                                 f"at character {i + 1})")
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if depth:
        raise ValueError(f"pipeline {text!r}: unbalanced parentheses (a closing ')' or '}}' is missing)")
    parts.append(text[start:].strip())
    return parts


def parse_pipeline(text: str) -> list[tuple[str, str]]:
    """`builtin.module(a,b{x=1},func.func(cse))` -> [("a", ""), ("b", "x=1"), ("func.func(cse)", None)].

    The second element is the option text of a registered pass, or None for an element that is
    passed to MLIR as it is. As upstream, an empty pipeline text and an empty element
    (`,,`, `builtin.module(,)`) are errors; `builtin.module()` is the pipeline of no pass.
    """
    if not isinstance(text, str):
        raise TypeError(f"pipeline: expected a pass-pipeline string such as 'builtin.module(verify)' "
                        f"or 'default', got {type(text).__name__}")
    text = text.strip()
    if text in PIPELINES:
        text = PIPELINES[text]
    if not text:
        raise ValueError("expected pass pipeline to be wrapped with the anchor operation type, "
                         "e.g. 'builtin.module(...)' (or 'default')")
    if text.startswith("builtin.module(") and text.endswith(")"):
        text = text[len("builtin.module("):-1]
        if not text.strip():
            return []
    elements = []
    for element in _split_top_level(text):
        if not element:
            raise ValueError("'' does not refer to a registered pass or pass pipeline "
                             f"(an empty element in {text!r})")
        name, _, rest = element.partition("{")
        if name in PASSES:
            if rest and not rest.endswith("}"):
                raise ValueError(f"malformed options in pipeline element {element!r}")
            elements.append((name, rest[:-1] if rest else ""))
        else:
            elements.append((element, None))
    return elements


def parse_options(text: str) -> dict[str, str]:
    options = {}
    for item in text.replace(",", " ").split():
        key, _, value = item.partition("=")
        options[key] = value
    return options


# --- running ------------------------------------------------------------------------------

# A pass that returns UNCHANGED says it left the IR as it found it: the verifier (which ran after
# the pass that made the IR) need not run again (MLIR's markAllAnalysesPreserved).
UNCHANGED = "unchanged"


def _python_pass(info: PassInfo, options: dict[str, Any], verify_each: bool, inputs: PassInputs,
                 escaped: list):
    instance = info.make({name.replace("-", "_"): value for name, value in options.items()})

    def run(op, pass_):
        try:
            result = instance.apply(op, inputs)
        except PassFailure:
            pass_.signal_pass_failure()
            return
        except BaseException as e:      # noqa: BLE001 - handed to PipelineRunner.run's caller
            escaped.append(e)
            pass_.signal_pass_failure()
            return
        if verify_each and result is not UNCHANGED and not verify_ops(op):
            pass_.signal_pass_failure()
    run.__name__ = _pass_class_name(info.argument)
    return run


class PipelineRunner:
    """An MLIR PassManager (its other methods pass through) whose Python passes hand an
    exception they did not mean to raise to the caller of `run`: raised through MLIR's pass
    manager after a pass emitted an error, it aborted the process (the bindings assert that
    every error they captured was handled)."""

    def __init__(self, pm: passmanager.PassManager):
        self.pm, self.escaped = pm, []

    def run(self, op):
        try:
            self.pm.run(op)
        except ir.MLIRError:
            if not self.escaped:
                raise
        if self.escaped:
            raise self.escaped[0]

    def __getattr__(self, name):
        return getattr(self.pm, name)


def build_pass_manager(pipeline: str | Sequence[tuple[str, str | None]], *, verify_each: bool = True,
                       print_ir_after_all: bool = False, inputs: PassInputs | None = None) -> PipelineRunner:
    """A PassManager for `pipeline` (text, or the parsed element list); needs an active context.
    `inputs`: what the passes are handed besides the IR (PassInputs; default: none but a fresh
    fusion log)."""
    inputs = inputs if inputs is not None else PassInputs()
    elements = parse_pipeline(pipeline) if isinstance(pipeline, str) else pipeline
    pm = PipelineRunner(passmanager.PassManager("builtin.module"))
    pm.enable_verifier(verify_each)
    for name, option_text in elements:
        if option_text is None:
            pm.add(name)          # upstream pass (ValueError if MLIR does not know it)
            continue
        info = PASSES[name]
        options = info.resolve_options(parse_options(option_text))
        pm.add(_python_pass(info, options, verify_each, inputs, pm.escaped), name=_pass_class_name(name), argument=name,
               description=info.description)
    if print_ir_after_all:
        pm.enable_ir_printing(print_after_all=True)
    return pm


def _pass_class_name(argument: str) -> str:
    return "".join(part.capitalize() for part in argument.split("-")) + "Pass"


def run_pipeline(module: ir.Module, pipeline: str, **kwargs) -> bool:
    """Run a pipeline on a module (errors become diagnostics); True on success."""
    pm = build_pass_manager(pipeline, **kwargs)
    try:
        pm.run(module.operation)
    except ir.MLIRError as error:
        record_mlir_error(error)
        return False
    return verify_ops(module.operation)


@register_pass
@dataclass
class Verify(ModulePass):
    name = "verify"
    summary = "Run the mla verifier (every documented rule) on every mla op"

    def apply(self, module, inputs):
        if not verify_ops(module):
            raise PassFailure()
        return UNCHANGED


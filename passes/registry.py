"""Named Python passes with options, shared by `mla-opt` and the Python API.

    @register_pass("my-pass", "what it does", options=[PassOption("level", int, 1, "...")])
    def my_pass(module: ir.Operation, level: int):
        ...                       # rewrite; report problems with loc.emit_error + raise PassFailure

A pass that needs more than the IR declares a parameter `inputs` and gets the PassInputs the
caller handed to the pipeline (the weights, the op evaluator): nothing is found on a global.

A pipeline is the upstream textual form, `builtin.module(verify,my-pass{level=2},canonicalize)`:
elements registered here run as Python passes, anything else is handed to MLIR's own pass
registry. Every Python pass is followed by the mla verifier (verify-each); the pipeline as a
whole is followed by it too, so an upstream pass cannot leave an invalid mla op behind.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import inspect
from typing import Any, Callable, Mapping, Optional, Sequence

from mlir import ir, passmanager

from ..dialect.dialect import verify_ops
from ..dialect.diagnostics import record_mlir_error


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
class PassInfo:
    argument: str
    description: str
    run: Callable
    options: Sequence[PassOption] = field(default_factory=tuple)

    def resolve_options(self, given: dict[str, str]) -> dict[str, Any]:
        known = {o.name: o for o in self.options}
        unknown = set(given) - set(known)
        if unknown:
            raise ValueError(f"pass {self.argument}: unknown option(s) {sorted(unknown)}; "
                             f"known: {sorted(known) or 'none'}")
        values = {o.name: o.default for o in self.options}
        values.update({k: known[k].parse(v) for k, v in given.items()})
        return values


@dataclass
class PassInputs:
    """What a pipeline's caller hands the passes besides the IR.

    weights: the values of the module's ml_program globals by name (passes/weights.py
        WeightTable); fold-constants adds the globals it computes, cleanup drops unused ones.
    evaluate: `evaluate(op, operand_values, weights) -> result values`, one op run on the CPU
        (the runtime's runtime/evaluate.py evaluate_op, wired in by the API layer: passes do
        not import the runtime).
    """
    weights: Optional[Mapping] = None
    evaluate: Optional[Callable] = None


NO_INPUTS = PassInputs()

PASSES: dict[str, PassInfo] = {}

# Named pipelines: `ascend_mla.compile(pipeline="default")` and `mla-opt --pass-pipeline=default`.
PIPELINES = {
    "default": "builtin.module(verify,raise-rms-norm,raise-rope,raise-quant,interleave-rope,absorb-kv,fuse-prolog,fuse-attention,select-layout,fold-constants,cleanup)",
}


def register_pass(argument: str, description: str, options: Sequence[PassOption] = ()):
    def add(fn):
        if argument in PASSES:
            raise ValueError(f"pass {argument} registered twice")
        PASSES[argument] = PassInfo(argument, description, fn, tuple(options))
        return fn
    return add


# --- pipeline text ------------------------------------------------------------------------

def _split_top_level(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


def parse_pipeline(text: str) -> list[tuple[str, str]]:
    """`builtin.module(a,b{x=1},func.func(cse))` -> [("a", ""), ("b", "x=1"), ("func.func(cse)", None)].

    The second element is the option text of a registered pass, or None for an element that is
    passed to MLIR as it is.
    """
    text = text.strip()
    if text in PIPELINES:
        text = PIPELINES[text]
    if text.startswith("builtin.module(") and text.endswith(")"):
        text = text[len("builtin.module("):-1]
    elements = []
    for element in _split_top_level(text):
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


def _python_pass(info: PassInfo, options: dict[str, Any], verify_each: bool, inputs: PassInputs):
    arguments = {name.replace("-", "_"): value for name, value in options.items()}
    if "inputs" in inspect.signature(info.run).parameters:
        arguments["inputs"] = inputs

    def run(op, pass_):
        try:
            result = info.run(op, **arguments)
        except PassFailure:
            pass_.signal_pass_failure()
            return
        if verify_each and result is not UNCHANGED and not verify_ops(op):
            pass_.signal_pass_failure()
    run.__name__ = info.run.__name__
    return run


def build_pass_manager(pipeline: str | Sequence[tuple[str, str | None]], *, verify_each: bool = True,
                       print_ir_after_all: bool = False, inputs: PassInputs = NO_INPUTS) -> passmanager.PassManager:
    """A PassManager for `pipeline` (text, or the parsed element list); needs an active context.
    `inputs`: what the passes are handed besides the IR (PassInputs)."""
    elements = parse_pipeline(pipeline) if isinstance(pipeline, str) else pipeline
    pm = passmanager.PassManager("builtin.module")
    pm.enable_verifier(verify_each)
    for name, option_text in elements:
        if option_text is None:
            pm.add(name)          # upstream pass (ValueError if MLIR does not know it)
            continue
        info = PASSES[name]
        options = info.resolve_options(parse_options(option_text))
        pm.add(_python_pass(info, options, verify_each, inputs), name=_pass_class_name(name), argument=name,
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


@register_pass("verify", "Run the mla verifier (every documented rule) on every mla op")
def verify_pass(module):
    if not verify_ops(module):
        raise PassFailure()
    return UNCHANGED


"""`ascend_mla.compile`: IR text, an `ir.Module` or a model in; a runnable program out.

    from ascend_mla.models import deepseek
    model = deepseek.build("deepseek-v3", tp=8, layers=2)
    program = ascend_mla.compile(model)              # weights bound, pipeline "default"
    print(program.report())                          # fusions made, and refused with the rule
    outputs = program(**model.inputs(step=0))        # caches are updated in place
    program.stages["fuse-prolog"]                    # the IR after each pass

The default pipeline (passes/registry.py PIPELINES) fuses the prolog and the attention, selects
layouts and folds the weights: a compiled program packs each weight once, at compile time.
Whatever the pipeline, the result is then lowered to aclnn kernel calls (lower-to-aclnn, the
last stage) and every call runs them through the one executor (runtime/executor.py) on the
selected backend; `program.memory_plan()` is the device memory those calls use.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

import numpy as np
from mlir import ir

from .dialect.builder import clone_module
from .dialect.diagnostics import DiagnosticCollector, parse_module, record_mlir_error
from .dialect.dialect import argument_attributes, argument_name, load_dialects, make_context, verify_ops
from .dialect.types import numpy_dtype
from .errors import VerificationError
from .lowering.lower_to_aclnn import is_lowered  # (also registers the lower-to-aclnn pass)
from .lowering.memory_plan import plan as plan_memory
from .lowering.program import find_function, symbol_name
from .passes.registry import PassInputs, build_pass_manager, parse_pipeline
from .passes.report import FusionLog
from .passes.weights import WeightTable
from .runtime import interop
from .runtime.backend import BACKENDS, backend_instance, set_backend
from .runtime.checks import DataChecks, InputError
from .runtime.evaluate import evaluate_op
from .runtime.executor import load as load_lowered
from .runtime.kernels import prepare_weights
from .runtime.weights import bind_globals

LOWERING = "lower-to-aclnn"


class CompileError(VerificationError):
    """The module does not parse, verify, or survive its pipeline. The message holds the
    diagnostics, one per line (`<source>:LINE:COL: error: ...`)."""


class Report(dict):
    """{"fused": [{"op", "location", "detail"}], "refused": [{"pattern", "location", "reason"}],
    "collectives" (a sharded program: its HCCL calls and the world they run in here),
    "rewritten": [{"pass", "location", "detail"}]} (rewritten: other rewrites, e.g. absorb-kv,
    whose records also name the module buffers the program no longer reads: "replaces")"""

    def __str__(self):
        lines = [f"rewritten ({len(self['rewritten'])}):"] if self.get("rewritten") else []
        lines += [f"  {r['pass']} at {r['location']}: {r['detail']}" for r in self.get("rewritten", ())]
        lines += [f"fused ({len(self['fused'])}):"]
        lines += [f"  {f['op']} at {f['location']}" + (f" ({f['detail']})" if f["detail"] else "")
                  for f in self["fused"]]
        lines.append(f"refused ({len(self['refused'])}):")
        lines += [f"  {r['pattern']} at {r['location']}: {r['reason']}" for r in self["refused"]]
        if self.get("collectives"):
            lines.append(f"collectives ({len(self['collectives'])}):")
            lines += [f"  {c['op']} at {c['location']}: {c['detail']}" for c in self["collectives"]]
        return "\n".join(lines)


@dataclass
class CompiledFunction:
    """One function of a Program as calls use it: the lowered function the executor runs, the
    data checks of its mla-level IR (None for a program given lowered), the names of its
    arguments (`mla.name`), and the buffers the program owns (argument index -> array)."""
    lowered: object                      # runtime/executor.py LoweredFunction
    checks: Optional[DataChecks]
    argument_names: list
    states: dict

    @property
    def input_names(self) -> list:
        """The arguments a call gives (the program's own buffers aside)."""
        return [n for i, n in enumerate(self.argument_names) if i not in self.states]


class Program:
    """A compiled module: call it with the function's inputs (positional, or by the names of
    its arguments' `mla.name` attributes). `module` is the lowered module (kernel calls);
    `ir` the IR before the lowering (the pipeline's result)."""

    def __init__(self, context, module, weights: WeightTable, stages, log: FusionLog, remarks,
                 target: str, mla_level):
        self.context = context
        self.module = module
        self.weights = weights
        self.stages = stages
        self.target = target
        self.diagnostics = remarks          # warnings and remarks of the compilation, as text
        self._log = log
        # the data checks come from the IR before lowering: a copy of that module (None for a
        # program given lowered). A copy, not the printed text parsed again: some IR MLIR
        # prints does not parse back (a function named @"").
        self._mla_module = mla_level
        self._functions = {}
        self._lock = threading.Lock()       # the functions are decoded once, whichever thread asks

    @property
    def ir(self) -> str:
        """The IR the pipeline produced (before lower-to-aclnn)."""
        names = [k for k in self.stages if k != LOWERING]
        return self.stages[names[-1]] if names else str(self.module)

    @property
    def lowered_ir(self) -> str:
        return str(self.module)

    def report(self) -> Report:
        report = Report(fused=list(self._log.fused), refused=list(self._log.refused),
                        rewritten=list(self._log.rewritten))
        from .runtime.collective import collectives_of
        found = collectives_of(self.module, self._log.source)
        if found:
            report["collectives"] = found       # {"op", "location", "detail"}: the HCCL calls
        return report

    def input_names(self, function: str | None = None) -> list[str]:
        """The names of the inputs a call takes (the arguments but the program's own state)."""
        return self._function(function).input_names

    def input_types(self, function: str | None = None) -> list:
        """The TensorInfo of each input a call takes."""
        f = self._function(function)
        return [t for i, t in enumerate(f.lowered.arg_types) if i not in f.states]

    def states(self, function: str | None = None) -> dict:
        """The buffers the program owns (arguments marked `mla.state`, e.g. the latent caches
        absorb-kv makes): name -> array, zeros when first used, updated in place by each call."""
        f = self._function(function)
        return {f.argument_names[i]: a for i, a in f.states.items()}

    def executable(self, function: str | None = None):
        """The function as the executor runs it (runtime/executor.py LoweredFunction): its
        decoded kernel calls, and `stats(backend)`, the phase-one runs and executor reuses per
        call site."""
        return self._function(function).lowered

    def memory_plan(self, function: str | None = None):
        """The device memory of one call (lowering/memory_plan.py MemoryPlan): peak bytes of the
        arena that holds every intermediate and output buffer, with liveness-based reuse, and
        the buffers with their offsets; `str()` of it is readable."""
        return plan_memory(self._function(function).lowered)

    def roofline(self, inputs=None, *, function: str | None = None):
        """Bytes, FLOPs and the lower bound on an Atlas A2 / A3 of each kernel call of one call
        (ascend_mla/cost.py); `inputs` give the kv lengths the attention reads."""
        from .cost import roofline
        return roofline(self, inputs, function=function)

    def _function(self, function) -> CompiledFunction:
        if function in self._functions:
            return self._functions[function]
        with self._lock, self.context:
            if function not in self._functions:
                fn = find_function(self.module, function)
                name = symbol_name(fn)
                if name not in self._functions:     # one entry (and one state) per function, however named
                    lowered = load_lowered(fn, constants=self.weights)
                    owned = state_arguments(fn)
                    states = {i: np.zeros(t.shape, numpy_dtype(t.dtype))
                              for i, t in enumerate(lowered.arg_types) if i in owned}
                    self._functions[name] = CompiledFunction(lowered, self._data_checks(name),
                                                             argument_names(fn), states)
                self._functions[function] = self._functions[name]
        return self._functions[function]

    def _data_checks(self, name):
        """The checks of a function, from its mla-level IR (`ir`; None for a program given
        lowered: it has no mla ops whose rules could run)."""
        if self._mla_module is None:
            return None
        return DataChecks(find_function(self._mla_module, name), self.weights)

    def run(self, *inputs, function: str | None = None, **named):
        f = self._function(function)
        lowered, checks, all_names, states = f.lowered, f.checks, f.argument_names, f.states
        names = f.input_names
        if named:
            if inputs:
                raise TypeError("give the inputs either by position or by name, not both")
            missing = [n for n in names if n not in named]
            unknown = sorted(set(named) - set(names))
            if missing or unknown:
                raise TypeError(f"@{lowered.name} takes inputs {names}; missing {missing}, unknown {unknown}")
            inputs = [named[n] for n in names]
        if states:          # the program's own buffers go where their arguments are
            if len(inputs) != len(names):
                raise TypeError(f"@{lowered.name} takes {len(names)} inputs {names}, got {len(inputs)}")
            given = iter(inputs)
            inputs = [states[i] if i in states else next(given) for i in range(len(all_names))]
        # read inputs viewed with negative strides go to the kernels as contiguous copies
        arrays, back = interop.to_numpy_arguments(dict(enumerate(inputs)),
                                                  in_place=set(lowered.written) | set(states))
        values = [arrays[i] for i in range(len(inputs))]
        for i in sorted(lowered.written):      # a cache the program updates in place (returned or not)
            if isinstance(values[i], np.ndarray) and not values[i].flags.writeable:
                raise InputError(f"@{lowered.name}: input {i} ({all_names[i]}) is updated in place, "
                                 "but the array is read-only")
        # Types and data rules first: nothing is written when a call is rejected. The rules
        # that read computed data run before their op's kernel (checked mode).
        late = True          # a program given lowered: every rule of every op before its kernel
        if checks is not None:
            late = checks(values)
        # Checked as given; run on C-contiguous copies of the read inputs: BLAS sums a
        # Fortran-order matrix in another order, so the layout would change the result's bits.
        written = set(lowered.written) | set(states)
        values = [np.ascontiguousarray(v) if isinstance(v, np.ndarray) and i not in written
                  and not v.flags.c_contiguous else v for i, v in enumerate(values)]
        with self.context:
            outputs = lowered(values, backend=self.target if self.target != "auto" else None,
                              checked=late, inputs_checked=checks is not None)
        # An in-place cache comes back as the caller's own object.
        originals = {id(a): inputs[i] for i, a in arrays.items()}
        return [originals[id(o)] if id(o) in originals else back(o) for o in outputs]

    __call__ = run


def state_arguments(fn) -> set:
    """The indices of the arguments marked `mla.state` (buffers the program owns)."""
    return {i for i, a in enumerate(argument_attributes(fn)) if "mla.state" in a}


def argument_names(fn) -> list[str]:
    """The `mla.name` of each argument of func.func `fn` (arg<i> where it has none)."""
    return [argument_name(fn, i) for i in range(len(fn.regions[0].blocks[0].arguments))]


def runtime_inputs(weights: Mapping | None = None, log: FusionLog | None = None) -> PassInputs:
    """The pass inputs the API layer hands a pipeline: the weight table, the runtime's op
    evaluator (what fold-constants computes with) and the fusion log (a new one by default)."""
    return PassInputs(weights=weights, evaluate=evaluate_op, log=log if log is not None else FusionLog())


def parse_and_transform(source: str, pipeline: str | Sequence | None, *,
                        print_ir_after_all: bool = False, inputs: PassInputs | None = None) -> ir.Module | None:
    """Parse, verify, run the pipeline, verify again. Needs an active context and a
    DiagnosticCollector, which receives every error; returns None when there was one."""
    try:
        module = parse_module(source)
    except ir.MLIRError as error:
        record_mlir_error(error)
        return None
    return transform(module, pipeline, print_ir_after_all=print_ir_after_all, inputs=inputs)


def transform(module: ir.Module, pipeline: str | Sequence | None, *, print_ir_after_all: bool = False,
              stages: dict | None = None, verify: bool = True, inputs: PassInputs | None = None) -> ir.Module | None:
    """Verify, run the pipeline, verify again (see parse_and_transform). With `stages`, the IR
    before and after each pipeline element is recorded there (name -> text); `verify=False`
    continues a verified module; `inputs`: what the passes are handed (default: the runtime's
    op evaluator, no weights)."""
    inputs = inputs if inputs is not None else runtime_inputs()
    if verify and not verify_ops(module.operation):
        return None
    if stages is not None and "input" not in stages:
        stages["input"] = str(module)
    if pipeline:
        elements = parse_pipeline(pipeline) if isinstance(pipeline, str) else list(pipeline)
        # One pass manager per element when the stages are wanted, one for all otherwise.
        groups = [[e] for e in elements] if stages is not None else [elements]
        for group in groups:
            try:
                build_pass_manager(group, print_ir_after_all=print_ir_after_all, inputs=inputs).run(module.operation)
            except ir.MLIRError as error:
                record_mlir_error(error)
                return None
            if stages is not None:
                name = group[0][0]
                key, n = name, 2
                while key in stages:
                    key, n = f"{name}#{n}", n + 1
                stages[key] = str(module)
        if not verify_ops(module.operation):
            return None
    return module


def compile(source, *, weights: Mapping | None = None, pipeline: str | Sequence = "default",
            target: str = "auto", source_name: str = "<source>") -> Program:
    """Compile IR text, an `ir.Module`, a model from ascend_mla.models or a GraphWriter
    (docs/api.md 5). Text is parsed (the one input format); an ir.Module is compiled in its
    own context, as a copy; any other source is asked to build its IR into a context
    (`source.build(context)`, into its own `source.context` when it has one), and brings its
    weights (`source.weights`) and name."""
    if target not in BACKENDS:
        raise ValueError(f"target: expected one of {BACKENDS}, got {target!r}")
    if target == "npu":
        set_backend("npu")          # raises, saying what is missing, when there is no NPU
    bound = {}
    if not isinstance(source, (str, bytes, ir.Module)):
        if not callable(getattr(source, "build", None)):
            raise TypeError(f"source: expected IR text (str or bytes), an mlir.ir.Module, a model from "
                            f"ascend_mla.models or a GraphWriter, got {type(source).__name__}")
        bound.update(getattr(source, "weights", None) or {})
        source_name = getattr(source, "name", source_name)
    if not isinstance(pipeline, str) and not (isinstance(pipeline, (list, tuple)) and all(
            isinstance(e, tuple) and len(e) == 2 for e in pipeline)):
        raise TypeError(f"pipeline: expected a pass-pipeline string such as 'builtin.module(verify)' "
                        f"or 'default', got {type(pipeline).__name__}")
    if weights is not None and not isinstance(weights, Mapping):
        raise TypeError(f"weights: expected a mapping name -> array, got {type(weights).__name__}")
    bound.update(weights or {})
    if isinstance(source, ir.Module):
        context = source.context
        load_dialects(context)
    else:
        context = getattr(source, "context", None) or make_context()
    table = WeightTable()
    for name, value in bound.items():
        table.bind(name, interop.to_numpy_arguments({0: value})[0][0])
    log = FusionLog(source_name)
    stages = OrderedDict()
    mla_level = None
    with context, ir.Location.unknown(), DiagnosticCollector(context) as diags:
        module = None
        try:
            if isinstance(source, (str, bytes)):
                parsed = parse_module(source)
            else:       # built, not parsed: MLIR's own checks (IRDL, SSA dominance) first
                parsed = clone_module(source) if isinstance(source, ir.Module) else source.build(context)
                parsed.operation.verify()
        except ir.MLIRError as error:
            record_mlir_error(error)
        else:
            problems = bind_globals(parsed, table, given=list(weights or ()))
            if problems:
                raise CompileError("\n".join(f"{source_name}: error: {p}" for p in problems))
            elements = parse_pipeline(pipeline) if isinstance(pipeline, str) else list(pipeline or [])
            lowering = [e for e in elements if e[0] == LOWERING]
            elements = [e for e in elements if e[0] != LOWERING]
            inputs = runtime_inputs(table, log)
            module = transform(parsed, elements, stages=stages, inputs=inputs)
            if module is not None and not diags.has_errors:
                # The data checks come from the mla level, the code from the kernel-call level.
                if not is_lowered(module):
                    mla_level = module.operation.clone()
                    module = transform(module, lowering or [(LOWERING, "")], stages=stages, verify=False,
                                       inputs=inputs)
    if module is None or diags.has_errors:
        raise CompileError("\n".join(d.format(source_name) for d in diags.diagnostics if d.severity == "error"))
    remarks = [d.format(source_name) for d in diags.diagnostics if d.severity != "error"]
    if mla_level is not None and backend_instance(None if target == "auto" else target).name == "cpu":
        # the CPU kernels' forms of the weights (oneDNN-packed, float32...) made now, not by
        # the first call (it took 0.3-0.8 s of a 2-layer decode step)
        with context:
            for op in mla_level.regions[0].blocks[0].operations:
                if op.operation.name == "func.func":
                    prepare_weights(op.operation, table)
    return Program(context, module, table, stages, log, remarks, target, mla_level)

"""`ascend_mla.compile`: text or a module in, a runnable program out.

    program = ascend_mla.compile(open("model.mlir").read(), pipeline="builtin.module(verify)")
    outputs = program(*inputs)          # CPU interpreter (or the NPU when available)
    print(program.ir)                   # the IR after the pipeline
"""
from __future__ import annotations

from typing import Sequence

from mlir import ir

from .dialect.dialect import make_context, verify_ops
from .dialect.diagnostics import DiagnosticCollector, parse_module, record_mlir_error
from .errors import VerificationError
from .passes.registry import build_pass_manager
from .runtime.interpreter import find_function, run_function


class CompileError(VerificationError):
    """The module does not parse, verify, or survive its pipeline. The message holds the
    diagnostics, one per line (`<source>:LINE:COL: error: ...`)."""


class Program:
    def __init__(self, context: ir.Context, module: ir.Module):
        self.context = context
        self.module = module

    @property
    def ir(self) -> str:
        return str(self.module)

    def run(self, *inputs, function: str | None = None) -> list:
        with self.context:
            return run_function(find_function(self.module, function), inputs)

    __call__ = run


def parse_and_transform(source: str, pipeline: str | Sequence | None, *,
                        print_ir_after_all: bool = False) -> ir.Module | None:
    """Parse, verify, run the pipeline, verify again. Needs an active context and a
    DiagnosticCollector, which receives every error; returns None when there was one."""
    try:
        module = parse_module(source)
    except ir.MLIRError as error:
        record_mlir_error(error)
        return None
    if not verify_ops(module.operation):
        return None
    if pipeline:
        try:
            build_pass_manager(pipeline, print_ir_after_all=print_ir_after_all).run(module.operation)
        except ir.MLIRError as error:
            record_mlir_error(error)
            return None
        if not verify_ops(module.operation):
            return None
    return module


def compile(source: str, *, pipeline: str | Sequence = "builtin.module(verify)",
            source_name: str = "<source>") -> Program:
    context = make_context()
    with context, ir.Location.unknown(), DiagnosticCollector(context) as diags:
        module = parse_and_transform(source, pipeline)
    if module is None or diags.has_errors:
        raise CompileError("\n".join(d.format(source_name) for d in diags.diagnostics if d.severity == "error"))
    return Program(context, module)

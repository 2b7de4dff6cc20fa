"""`ascend_mla.compile`: text or a module in, a runnable program out.

    program = ascend_mla.compile(open("model.mlir").read(), pipeline="builtin.module(verify)")
    outputs = program(*inputs)          # CPU interpreter (or the NPU when available)
    print(program.ir)                   # the IR after the pipeline
"""
from __future__ import annotations

from typing import Sequence

from mlir import ir

from .dialect.dialect import make_context, verify_ops
from .dialect.diagnostics import DiagnosticCollector, record_mlir_error
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


def compile(source: str, *, pipeline: str | Sequence = "builtin.module(verify)",
            source_name: str = "<source>") -> Program:
    context = make_context()
    with context, ir.Location.unknown(), DiagnosticCollector(context) as diags:
        module = None
        try:
            module = ir.Module.parse(source)
        except ir.MLIRError as error:
            record_mlir_error(error)
        ok = module is not None and verify_ops(module.operation)
        if ok and pipeline:
            try:
                build_pass_manager(pipeline).run(module.operation)
            except ir.MLIRError as error:
                record_mlir_error(error)
                ok = False
            ok = ok and verify_ops(module.operation)
    if not ok or diags.has_errors:
        raise CompileError("\n".join(d.format(source_name) for d in diags.diagnostics if d.severity == "error"))
    return Program(context, module)

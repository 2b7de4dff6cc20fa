"""The reference the lowered path is compared with: the mla-level IR run op by op, each op by
its own CPU kernel (upstream ops by their CPU steps; runtime/evaluate.py, the evaluator
fold-constants uses), values passed straight from op to op --
no lowering, no views, no executor. This is what the CPU interpreter did before compiled
programs ran through the one executor; the tests assert that lowering + executor change no
bit of it."""
from __future__ import annotations

from mlir import ir

from ascend_mla.dialect.dialect import make_context
from ascend_mla.runtime.evaluate import evaluate_op


def run_ops(text: str, inputs, weights=None, function=None) -> list:
    ctx = make_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(text)
        fns = [op for op in module.body.operations if op.operation.name == "func.func"]
        fn = fns[0] if function is None else next(
            f for f in fns if f.attributes["sym_name"].value == function)
        block = fn.regions[0].blocks[0]
        env = dict(zip(block.arguments, inputs))
        for op in block.operations:
            op = op.operation
            if op.name == "func.return":
                return [env[v] for v in op.operands]
            env.update(zip(op.results, evaluate_op(op, [env[v] for v in op.operands], weights or {})))
    raise AssertionError("no func.return")

"""The reference the lowered path is compared with: the mla-level IR run op by op, each op by
its own CPU kernel (upstream ops by their CPU steps), values passed straight from op to op --
no lowering, no views, no executor. This is what the CPU interpreter did before compiled
programs ran through the one executor; the tests assert that lowering + executor change no
bit of it."""
from __future__ import annotations

from mlir import ir

from ascend_mla.dialect.dialect import make_context, opdef_of
from ascend_mla.dialect.opdef import VARIADIC
from ascend_mla.runtime.backend import run_kernel
from ascend_mla.runtime.kernels.upstream import prepare


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
            opdef = opdef_of(op)
            if opdef is None:
                results = prepare(op, weights or {})(*[env[v] for v in op.operands])
            else:
                values = {}
                for spec, group in zip(opdef.operands, opdef.operand_groups(op)):
                    picked = [env[v] for v in group]
                    values[spec.name] = picked if spec.kind == VARIADIC else (picked[0] if picked else None)
                snapshot = opdef.snapshot(op)
                attributes = (snapshot.with_values(values).attributes
                              if any(values.get(o) is not None for o in opdef.host_operands)
                              else snapshot.attributes)
                results = run_kernel(opdef.name, {o.name: values[o.name] for o in opdef.kernel_operands},
                                     attributes, {r: getattr(snapshot, r) for r in opdef.result_names})
            env.update(zip(op.results, results))
    raise AssertionError("no func.return")

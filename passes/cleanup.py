"""cleanup: erase what no one uses — ops with the PURE trait (dialect/traits.py: the mla ops
that declare it, tensor/arith/math ops, constant loads) and the private globals no symbol refers to
(their values leave the weight table, PassInputs.weights, when one is handed in)."""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..dialect.dialect import is_pure, symbol_text
from .registry import UNCHANGED, ModulePass, register_pass
from .weights import bodies, ops_of


def _referenced_symbols(module) -> set:
    names = set()

    def visit(op):
        for name in op.attributes:
            attr = op.attributes[name]
            if isinstance(attr, ir.FlatSymbolRefAttr):
                names.add(symbol_text(attr))
        return ir.WalkResult.ADVANCE
    module.walk(visit)
    return names


def erase_unused(block) -> int:
    """Erase the block's PURE ops (and those of nested blocks) whose results nothing uses, users
    before what they use; returns how many."""
    erased = 0
    for op in reversed(ops_of(block)):
        for region in op.regions:
            for inner in region.blocks:
                erased += erase_unused(inner)
        if op.results and is_pure(op) and all(not list(r.uses) for r in op.results):
            op.erase()
            erased += 1
    return erased


@register_pass
@dataclass
class Cleanup(ModulePass):
    name = "cleanup"
    summary = "Erase unused side-effect-free ops and unreferenced private globals"

    def apply(self, module, inputs):
        body = module.regions[0].blocks[0]
        erased = sum(erase_unused(block) for block in bodies(module))
        used = _referenced_symbols(module)
        table = inputs.weights
        for op in ops_of(body):
            if op.name != "ml_program.global" or symbol_text(op.attributes["sym_name"]) in used:
                continue
            if "sym_visibility" not in op.attributes or op.attributes["sym_visibility"].value != "private":
                continue                        # public: someone outside may use it
            if table is not None:
                table.pop(symbol_text(op.attributes["sym_name"]), None)
            op.erase()
            erased += 1
        return None if erased else UNCHANGED



"""What the rewriting passes share: the one driver that tries a pass at its anchor ops
(`rewrite_anchors`), building the replacement op with the IR builder (dialect/builder.py
Builder: the op, the layout casts and reshapes it needs),
checking it against the fused op's verifier before anything changes (`legality`: the verifier's
finding), replacing the matched subgraph. Refusals and the report: report.py.
"""
from __future__ import annotations

from typing import Optional

from mlir import ir

from ..dialect.builder import Builder, info  # noqa: F401 (the passes build with it)
from ..dialect.dialect import is_constant_like
from ..dialect.opdef import OpDef
from ..dialect.rules import Finding
from ..dialect.types import ND, TensorInfo
from .pattern import Anchors, Match, defining_op
from .report import Refusal  # noqa: F401 (the fusion passes import it with the rest)

# --- the driver ------------------------------------------------------------------------------------

REWRITTEN = True     # a rewrite's outcome: the match was replaced (None means the same)
DECLINED = False     # the match stays as it is, without a remark (a form the pass leaves alone)


def rewrite_anchors(module, anchor_names, find, rewrite, *, pass_name: str, log) -> bool:
    """The one driver of the rewriting passes.

    Each op named in `anchor_names`, in walk order and skipping the ones an earlier match
    consumed, goes to `find(anchor)`: None (nothing there), a Refusal (a near miss: reported at
    the anchor), or (consumed, found) -- the Match, or the ops, the rewrite replaces, and what
    `rewrite(found)` needs. The consumed ops are set aside first (a later anchor among them is
    skipped, whatever the outcome); `rewrite` returns REWRITTEN (or None), DECLINED, or a
    Refusal, reported at the anchor naming the pattern. Returns whether anything changed."""
    anchors = Anchors(module, tuple(anchor_names))
    changed = False
    for anchor in anchors:
        found = find(anchor)
        if found is None:
            continue
        if isinstance(found, Refusal):
            log.refuse(pass_name, anchor.location, found)
            continue
        consumed, found = found
        if isinstance(consumed, Match):
            anchors.erased(consumed.operations)
        else:
            anchors.erased(op.operation for op in consumed)
        outcome = rewrite(found)
        if isinstance(outcome, Refusal):
            log.refuse(pass_name, anchor.location, outcome,
                       pattern=consumed.pattern.name if isinstance(consumed, Match) else None)
        elif outcome is not DECLINED:
            changed = True
    return changed


# --- checking a fused op before building it ----------------------------------------------------------

def legality(opdef: OpDef, operands: dict, attributes: dict, results: dict, profile=None) -> Optional[Finding]:
    """The first verifier finding (an error) the fused op would have, or None. `operands` map
    names to TensorInfo (or lists of them). `Refusal.of(finding, opdef.name)` refuses with it."""
    snapshot = opdef.snapshot_from_parts(operands, attributes, results)
    verdict = opdef.check(snapshot, profile=profile)
    return None if verdict.ok else verdict.errors[0]


# --- where to put the fused op, and replacing the match ---------------------------------------

def insertion_point(values: list, match: Match, *, after_users_of=()) -> Optional[ir.InsertionPoint]:
    """Where the fused op goes: right after the last definition among `values` (its operands)
    and after every op outside the match that uses one of `after_users_of` (the caches the fused
    op updates in place: their readers must see the old contents), provided every user outside
    the match of an output comes after it; None otherwise. A constant operand (a weight load,
    an arith.constant: no operands, no effects) does not hold the fused op back: it moves to the
    top of the block when it comes too late."""
    inside = match.operations
    block = next(iter(match.ops.values())).block
    anchors = [defining_op(v) for v in values]
    constants = [op for op in anchors if op is not None and is_constant_like(op) and _in_block(op, block) is op]
    anchors = [op for op in anchors if op is None or op not in constants]
    anchors += [u.owner.operation for v in after_users_of for u in v.uses if u.owner.operation not in inside]
    last = None
    for op in anchors:
        op = op and _in_block(op, block)
        if op is not None and (last is None or last.is_before_in_block(op)):
            last = op
    if last is not None:
        for pv in match.pattern.outputs.values():
            for use in match.values[pv].uses:
                owner = _in_block(use.owner.operation, block)
                if owner is not None and owner not in inside and not last.is_before_in_block(owner):
                    return None
    for op in constants:
        if last is None or last.is_before_in_block(op):
            op.move_before(block.operations[0])
    if last is None:       # after the constants, now at the top (the other operands: arguments)
        tops = [op for op in constants if not any(op.is_before_in_block(o) for o in constants)]
        return ir.InsertionPoint.after(tops[0]) if tops else ir.InsertionPoint.at_block_begin(block)
    return ir.InsertionPoint.after(last)


def _in_block(op, block):
    """`op`, or the ancestor of it that is in `block`; None when it is outside the block (in an
    enclosing one, whose ops come before the whole block)."""
    while op is not None and op.block != block:
        op = op.parent.operation if op.parent is not None else None
    return op


def replace(match: Match, replacements: dict, builder: Builder):
    """Replace each output of the match by its new value (reshaped to the old type if the fused
    op's form differs), then erase the matched ops, users first."""
    for name, new in replacements.items():
        old = match.output(name)
        if new.type != old.type:
            new = builder.reshape(new, info(old).shape)
        old.replace_all_uses_with(new)
    ops = sorted(match.operations, key=_BlockOrder)
    for op in reversed(ops):
        op.erase()


class _BlockOrder:
    """Sort key: block order through Operation.is_before_in_block."""

    def __init__(self, op):
        self.op = op

    def __lt__(self, other):
        return self.op.is_before_in_block(other.op)


def fused_location(match: Match, pass_name: str) -> ir.Location:
    locs = [op.location for op in match.ops.values()]
    return ir.Location.fused(locs, ir.StringAttr.get(pass_name))


def nd(t: TensorInfo) -> TensorInfo:
    return TensorInfo(t.shape, t.dtype, ND)

"""Op traits: what passes, the cleanup and the runtime checks may assume about an op, declared
once with the op (as MLIR's ODS traits are), never in a list of names kept by the reader.

    PURE           computes its results and nothing else: no buffer written in place, no
                   communication. The cleanup erases it when unused; fold-constants evaluates
                   it when its operands are constants; a pattern's `weight` may be computed by it.
    CONSTANT_LIKE  its result is a constant: no operands, a value known at compile time (a weight
                   load, arith.constant, a causal mask). Implies PURE.
    RESHAPE        its result holds its operand's elements in row-major order with another shape
                   (a view: no data moves; the patterns look through it). Implies PURE.

Results written in place (a paged cache: the caller's buffer at run time) are the op's
`OpDef(inplace={result: operand})`, its in-place trait.

An mla op declares its traits on its OpDef (`OpDef(..., traits=(PURE,))`; `traits=()` for an op
with effects); test/python/test_registries.py fails on an op that declares none. The upstream
ops a program may hold (tensor, arith, math, ml_program) have no OpDef here: theirs are
declared below, per dialect and per op, the one place an upstream op's properties are written.
"""
from __future__ import annotations

from enum import Enum
from typing import Iterable, Optional


class Trait(Enum):
    PURE = "pure"
    CONSTANT_LIKE = "constant-like"
    RESHAPE = "reshape"

    def __repr__(self):
        return self.name


PURE, CONSTANT_LIKE, RESHAPE = Trait.PURE, Trait.CONSTANT_LIKE, Trait.RESHAPE

# What a trait implies (declaring CONSTANT_LIKE is declaring PURE too).
_IMPLIES = {CONSTANT_LIKE: {PURE}, RESHAPE: {PURE}}


def closure(traits: Iterable[Trait]) -> frozenset:
    """The traits with what they imply; TypeError for something that is not a Trait."""
    out = set()
    for t in traits:
        if not isinstance(t, Trait):
            raise TypeError(f"traits: expected dialect.traits.Trait values (PURE, CONSTANT_LIKE, "
                            f"RESHAPE), got {t!r}")
        out |= {t} | _IMPLIES.get(t, set())
    return frozenset(out)


# --- the upstream ops --------------------------------------------------------------------------
# Every op of these dialects computes its results only (value semantics), as upstream declares.
UPSTREAM_DIALECTS = {
    "tensor": closure([PURE]),
    "arith": closure([PURE]),
    "math": closure([PURE]),
}
# Ops with more than their dialect's traits (or of a dialect not listed above).
UPSTREAM_OPS = {
    "arith.constant": closure([CONSTANT_LIKE]),
    "ml_program.global_load_const": closure([CONSTANT_LIKE]),
    "tensor.expand_shape": closure([RESHAPE]),
    "tensor.collapse_shape": closure([RESHAPE]),
}


def upstream_traits(name: str) -> Optional[frozenset]:
    """The declared traits of the upstream op `name`; None when it is not declared here."""
    if name in UPSTREAM_OPS:
        return UPSTREAM_OPS[name]
    return UPSTREAM_DIALECTS.get(name.split(".", 1)[0])

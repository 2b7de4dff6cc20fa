"""What a rewriting pass reports: the fusions and rewrites it made and the ones it refused.

A refusal is a value (`Refusal`: the rule that decides and the reason) that a pattern's checks
return as soon as one fails, as torch-mlir's notifyMatchFailure; `FusionLog.refuse` reports it
as an MLIR remark at the subgraph's root op and records it. The log is a pass input
(PassInputs.log): ascend_mla.compile hands one per program (`program.report()`), mla-opt a
fresh one. Nothing reads a rule back out of a message.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from mlir import ir

from ..dialect.diagnostics import emit, location_text


@dataclass(frozen=True)
class Refusal:
    """Why a rewrite is not made: `rule` (FUSE-00x, or the rule of the fused op's verifier that
    would fail; None for a near miss that names no rule) and `reason`. `str()` is the remark's
    text: the reason, then the rule in brackets."""
    rule: Optional[str]
    reason: str

    def __str__(self):
        return f"{self.reason} [{self.rule}]" if self.rule else self.reason

    @classmethod
    def of(cls, finding, op_name: str) -> "Refusal":
        """The refusal a verifier finding (dialect/rules.py Finding) of op `op_name` makes."""
        return cls(finding.rule.id if finding.rule else None,
                   f"'{op_name}' op {finding.param}: {finding.message}")


@dataclass
class FusionLog:
    source: str = ""                                # the source's name, for locations
    fused: list = field(default_factory=list)       # {"op", "location", "detail"}
    refused: list = field(default_factory=list)     # {"pattern", "location", "reason", "rule"}
    rewritten: list = field(default_factory=list)   # {"pass", "location", "detail"}: other rewrites

    def location_text(self, loc: ir.Location) -> str:
        """SOURCE:LINE:COL, as diagnostics print it (an op's own file first: imported code), or
        SOURCE:NAME for an op of built IR (a model's module path)."""
        return location_text(loc, self.source)

    def record_fused(self, op_name: str, loc: ir.Location, detail: str = ""):
        self.fused.append({"op": op_name, "location": self.location_text(loc), "detail": detail})

    def record_rewritten(self, pass_name: str, loc: ir.Location, detail: str, **fields):
        """A rewrite the report names though it fuses nothing (absorb-kv: naive -> absorbed
        MLA); `fields`: more entries of the record (absorb-kv's "replaces")."""
        self.rewritten.append({"pass": pass_name, "location": self.location_text(loc), "detail": detail}
                              | fields)

    def refuse(self, pass_name: str, loc: ir.Location, refusal: Refusal, *, pattern: str | None = None):
        """Leave the subgraph as it is and say why: a remark at `loc` naming the rule, and a
        record. `pattern` names what was not made (default: the pass)."""
        emit(loc, "remark", f"{pass_name}: not fused: {refusal}")
        self.refused.append({"pattern": pattern or pass_name, "location": self.location_text(loc),
                             "reason": str(refusal), "rule": refusal.rule})

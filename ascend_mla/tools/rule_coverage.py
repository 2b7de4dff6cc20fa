"""Which verifier rules no test mentions, and which checklist items no rule handles.

    python -m ascend_mla.tools.rule_coverage [--spec DIR]

A rule counts as tested when its ID (e.g. `MLA-117`) appears in a file under test/ (an
`expected-error {{... [MLA-117]}}` line or a pytest assertion). A checklist item of the spec
catalogs counts as handled when it is a rule or is waived (`dialect.rules.waive`) with a reason.
Exit status 1 when anything is missing.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..dialect.dialect import MLA, _load_op_modules
from ..dialect.opdef import KIND_RULES
from ..dialect.rules import WAIVED

REPO = Path(__file__).resolve().parents[2]
TEST_DIR = REPO / "test"
DEFAULT_SPEC = REPO.parent / "shared" / "spec"
SELF = "test_rule_coverage.py"


def rule_ids() -> set[str]:
    """Every op's rules, and the argument-kind rules all ops share."""
    _load_op_modules()
    return {r.id for op in MLA.ops.values() for r in op.rules} | {r.id for r in KIND_RULES.values()}


def mentioned_ids(ids, test_dir: Path = TEST_DIR) -> set[str]:
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace")
                     for p in test_dir.rglob("*") if p.is_file() and p.suffix in (".py", ".mlir")
                     and p.name != SELF and "Output" not in p.parts)
    return {i for i in ids if re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", text)}


def checklist_ids(spec_dir: Path) -> set[str]:
    """IDs of the numbered checklists: D1/D2 ([MLA-nnn], [NSA-nnn]), FIA section 6 (FIA-nnn) and
    the DSA reference's constraint lists (LI-nn, QLI-nn, SFA-nn, KQSFA-nn, PV3-nn)."""
    ids = set()
    prolog = (spec_dir / "mla_prolog_and_nsa.md").read_text(encoding="utf-8")
    ids |= set(re.findall(r"^\d+\. \[((?:MLA|NSA)-\d+)\]", prolog, re.M))
    fia = (spec_dir / "fused_infer_attention_score_v2.md").read_text(encoding="utf-8")
    section6 = fia[fia.index("## 6. Verifier checklist"):fia.index("## 7.")]
    ids |= {f"FIA-{int(n):03d}" for n in re.findall(r"^(\d+)\. \*\*\[", section6, re.M)}
    dsa = spec_dir / "dsa_ops.md"
    if dsa.is_file():
        ids |= set(re.findall(r"^\d+\. ((?:LI|QLI|SFA|KQSFA|PV3)-\d+):", dsa.read_text(encoding="utf-8"), re.M))
    return ids


def report(spec_dir: Path | None) -> tuple[list[str], list[str]]:
    """(rule IDs that no test mentions, checklist IDs that are neither a rule nor waived)."""
    rules = rule_ids()
    ids = rules | set(WAIVED)
    untested = sorted(rules - mentioned_ids(rules))
    unhandled = sorted(checklist_ids(spec_dir) - ids) if spec_dir else []
    return untested, unhandled


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC, help="the spec/ catalogs folder")
    args = parser.parse_args(argv)
    spec = args.spec if args.spec.is_dir() else None
    untested, unhandled = report(spec)
    print(f"{len(rule_ids())} rules, {len(WAIVED)} waived checklist items")
    if spec is None:
        print(f"(no spec catalogs at {args.spec}: checklist completeness not checked)")
    for rule_id in untested:
        print(f"untested rule: {rule_id}")
    for rule_id in unhandled:
        print(f"checklist item with no rule and no waiver: {rule_id}")
    return 1 if untested or unhandled else 0


if __name__ == "__main__":
    sys.exit(main())

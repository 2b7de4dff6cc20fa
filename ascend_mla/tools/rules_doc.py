"""Generate docs/rules.md, the catalog of every verifier rule, from the rules themselves.

    python -m ascend_mla.tools.rules_doc            # rewrite docs/rules.md
    python -m ascend_mla.tools.rules_doc --check    # exit 1 when docs/rules.md is not current

For each op (in declaration order) a table of its rules in the order they run: ID, parameter,
kind (static, runtime: on tensor data, dataflow: on the ops around it, argument: eager calls
only), severity and profiles when not the defaults, and the message, taken from the check's
docstring or else from the text it returns (placeholders as written in the source). Then the
argument-kind rules every op shares and the waived checklist IDs with their reasons.
"""
from __future__ import annotations

import argparse
import ast
import inspect
import sys
import textwrap
from pathlib import Path

from ..dialect.dialect import MLA, load_op_definitions
from ..dialect.opdef import KIND_RULES
from ..dialect.rules import STATIC, WAIVED

OUTPUT = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def message(check) -> str:
    """What a rule says: its check's docstring (first paragraph), else the first string it
    returns, else the name of the check."""
    doc = inspect.getdoc(check)
    if doc:
        return " ".join(doc.split("\n\n")[0].split())
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(check)))
    except (OSError, TypeError, SyntaxError):
        tree = None
    if tree is not None:
        # a rule made by a helper (dtype_in("x", ...)) says what the helper was given
        bound = dict(zip(check.__code__.co_freevars, (c.cell_contents for c in check.__closure__ or ())))
        for node in ast.walk(tree):
            if isinstance(node, ast.Return) and node.value is not None:
                text = _literal_text(node.value, check.__globals__, bound)
                if text:
                    return text
    return check.__name__.replace("_", " ")


def _literal_text(node, scope: dict, bound: dict) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                parts.append(_placeholder(value.value, scope, bound))
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal_text(node.left, scope, bound), _literal_text(node.right, scope, bound)
        return (left or "") + (right or "") if left or right else None
    if isinstance(node, ast.IfExp):
        return _literal_text(node.orelse, scope, bound) or _literal_text(node.body, scope, bound)
    return None


def _placeholder(expression, scope: dict, bound: dict) -> str:
    """The value of a placeholder that reads only what the rule was made with (a helper's
    arguments), else the placeholder as written."""
    names = {n.id for n in ast.walk(expression) if isinstance(n, ast.Name)}
    if names and names <= set(bound) | {n for n in names if n in scope and callable(scope[n])}:
        try:
            return str(eval(compile(ast.Expression(expression), "<rule>", "eval"), dict(scope), dict(bound)))
        except Exception:       # noqa: BLE001  (a placeholder that needs the op stays one)
            pass
    return "{" + ast.unparse(expression) + "}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def generate() -> str:
    load_op_definitions()
    lines = ["# Verifier rules", "",
             "Generated from the rules themselves by `python -m ascend_mla.tools.rules_doc` (a test "
             "checks it is current); do not edit by hand. Each op's rules in the order they run: "
             "verification stops at the first failed error rule. A diagnostic reads "
             "`'<op>' op <parameter>: <message> [<ID>]`; the message here is the rule's text with its "
             "placeholders as the source writes them.", ""]
    for opdef in MLA.ops.values():
        lines += [f"## {opdef.name}", ""]
        if opdef.summary:
            lines += [opdef.summary, ""]
        lines += ["| ID | parameter | kind | message |", "|----|-----------|------|---------|"]
        for rule in opdef.rules:
            kind = rule.kind if rule.kind != STATIC else ""
            if rule.severity != "error":
                kind = f"{kind} {rule.severity}".strip()
            if rule.profiles:
                kind = f"{kind} ({', '.join(sorted(rule.profiles))})".strip()
            lines.append(f"| {rule.id} | {_cell(rule.param)} | {_cell(kind)} | {_cell(message(rule.check))} |")
        lines.append("")
    lines += ["## Arguments of eager calls (every op)", "",
              "| ID | rule |", "|----|------|"]
    lines += [f"| {r.id} | {_cell(r.param)} |" for r in KIND_RULES.values()]
    lines.append("")
    if WAIVED:
        lines += ["## Waived checklist IDs", "", "IDs of the operator documents' checklists that are "
                  "not rules here, and why.", "", "| ID | reason |", "|----|--------|"]
        lines += [f"| {rule_id} | {_cell(reason)} |" for rule_id, reason in sorted(WAIVED.items())]
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ascend_mla.tools.rules_doc", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the file is not current")
    parser.add_argument("-o", dest="output", type=Path, default=OUTPUT, help="the file (default: docs/rules.md)")
    args = parser.parse_args(argv)
    text = generate()
    if args.check:
        current = args.output.read_text() if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is not current: run python -m ascend_mla.tools.rules_doc", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

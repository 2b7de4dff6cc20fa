"""`--verify-diagnostics`: check the diagnostics a file produces against its annotations.

Upstream semantics (mlir/docs/Diagnostics.md): `// expected-error {{text}}` on the line of the
diagnostic, `@+N` / `@-N` for a relative line, `@above` / `@below` for the closest line that
carries no annotation, `expected-warning|note|remark` alike, several per line, `{{...}}` is a
substring match, `-re` variants take regexes in nested `{{...}}`. Every expectation must be met
and every diagnostic expected.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_DIRECTIVE = re.compile(r"expected-(error|warning|note|remark)(-re)?"
                        r"(?:\s*@(?P<where>[+-]\d+|above|below))?\s*\{\{")


@dataclass
class Expectation:
    severity: str
    line: int           # the diagnostic's line
    written_at: int     # where the annotation is
    pattern: str
    regex: bool
    met: bool = False

    def matches(self, message: str) -> bool:
        if not self.regex:
            return self.pattern in message
        return re.search(_regex_of(self.pattern), message) is not None


def _regex_of(pattern: str) -> str:
    """Literal text with `{{regex}}` islands -> one Python regex."""
    out, pos = [], 0
    while True:
        start = pattern.find("{{", pos)
        if start < 0:
            out.append(re.escape(pattern[pos:]))
            return "".join(out)
        end = pattern.find("}}", start + 2)
        if end < 0:
            raise ValueError(f"unterminated regex in {pattern!r}")
        out.append(re.escape(pattern[pos:start]))
        out.append(f"(?:{pattern[start + 2:end]})")
        pos = end + 2


def _pattern_end(line: str, start: int, regex: bool) -> int:
    """Index of the `}}` closing a pattern that starts at `start` (after the opening `{{`)."""
    if not regex:
        return line.find("}}", start)
    depth, i = 0, start
    while i < len(line) - 1:
        pair = line[i:i + 2]
        if pair == "{{":
            depth += 1
            i += 2
            continue
        if pair == "}}":
            if depth == 0:
                return i
            depth -= 1
            i += 2
            continue
        i += 1
    return -1


class AnnotationError(ValueError):
    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line


def parse_expectations(lines: list[str], first_line: int = 1) -> list[Expectation]:
    """Expectations written in `lines` (numbered from `first_line`)."""
    found, pending_below = [], []
    last_plain_line = None
    for offset, text in enumerate(lines):
        number = first_line + offset
        directives = list(_DIRECTIVE.finditer(text))
        if not directives:
            for e in pending_below:
                e.line = number
            pending_below = []
            last_plain_line = number
            continue
        for m in directives:
            regex = bool(m.group(2))
            end = _pattern_end(text, m.end(), regex)
            if end < 0:
                raise AnnotationError(number, "expected '}}' to close the expected diagnostic text")
            where = m.group("where")
            e = Expectation(m.group(1), number, number, text[m.end():end], regex)
            if where is None:
                pass
            elif where == "above":
                if last_plain_line is None:
                    raise AnnotationError(number, "'@above' with no line above it")
                e.line = last_plain_line
            elif where == "below":
                pending_below.append(e)
            else:
                e.line = number + int(where)
            found.append(e)
    if pending_below:
        raise AnnotationError(pending_below[0].written_at, "'@below' with no line below it")
    return found


def check(diagnostics, expectations: list[Expectation], filename: str) -> list[str]:
    """Messages for unexpected diagnostics and unmet expectations (empty when all is well)."""
    problems = []
    flat = []
    for d in diagnostics:
        flat.append(d)
        flat.extend(d.notes)
    for d in flat:
        for e in expectations:
            if not e.met and e.severity == d.severity and e.line == d.line and e.matches(d.message):
                e.met = True
                break
        else:
            where = f"{filename}:{d.line}:{d.col}" if d.line is not None else filename
            problems.append(f"{where}: error: unexpected {d.severity}: {d.message}")
    for e in expectations:
        if not e.met:
            problems.append(f"{filename}:{e.written_at}:1: error: expected {e.severity} "
                            f"\"{e.pattern}\" was not produced (on line {e.line})")
    return problems

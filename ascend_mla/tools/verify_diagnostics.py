"""`--verify-diagnostics`: check the diagnostics of a file against its `expected-*` annotations,
as upstream mlir-opt 22 does (mlir/docs/Diagnostics.md; the reference is the `mlir-opt` in the
venv, and test/python/test_verify_diagnostics_upstream.py compares the two).

    // expected-error {{substring}}           on the line of the diagnostic
    // expected-warning @+2 {{...}}           @+N / @-N lines away, @above / @below: the nearest
    // expected-note @below {{...}}           line without an annotation, @unknown: a diagnostic
    // expected-remark-re {{a {{[0-9]+}} b}}  without a file location; -re: LLVM regexes in {{}}

Upstream's rules, which differ from a naive reading:
  - One annotation per line: the text runs from the first `{{` to the last `}}`, which must end
    the line; a line with text after its last `}}` carries no annotation.
  - The annotations of the whole file are read once, before any split is processed.
  - A diagnostic matches an annotation for its line whose text it contains (or whose regex
    matches), and the first such annotation takes it even if it already matched; a diagnostic
    in another file (a `loc("other.mlir":...)`) matches nothing.
  - Regexes are LLVM's (ascend_mla/tools/llvm_regex.py); an invalid one is an error at the
    annotation, and its annotation is dropped.
Where upstream has no defined behaviour we report an error at the annotation: a line offset that
is not a number (upstream reads an uninitialised integer), an `@unknown` annotation that nothing
matched (upstream aborts on an assertion).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Optional

from . import llvm_regex

ANNOTATION = re.compile(r"expected-(error|note|remark|warning)(-re)? *"
                        r"(@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}$")
_TRAILING = " \t\n\v\f\r"       # what StringRef::rtrim removes


def raw(text: str) -> bytes:
    """Text read with surrogateescape back to its bytes (diagnostic columns count bytes)."""
    return text.encode("utf-8", "surrogateescape")


@dataclass
class Expectation:
    severity: str
    line: Optional[int]          # the diagnostic's line; None for @unknown
    written_at: int              # the annotation's line...
    col: int                     # ...and the column of its `expected-`
    text: str
    matches: Callable[[bytes], bool]
    met: bool = False


class DiagnosticVerifier:
    """The expectations of one input file, and the diagnostics checked against them.

    `problems` starts with the annotation errors; `process` returns the problems one diagnostic
    causes (it and its notes), `finish` those of unmet expectations. The file passes when no
    problem was reported.
    """

    def __init__(self, text: str, filename: str):
        self.filename = filename
        self.problems: list[str] = []
        self.expectations: list[Expectation] = []
        self._by_line: dict[int, list[Expectation]] = {}
        self._unknown: list[Expectation] = []
        self._read(text.split("\n"))

    def _at(self, line: int, col: int) -> str:
        return f"{self.filename}:{line}:{col}: error: "

    def _read(self, lines: list[str]):
        last_plain = 0                  # index of the last line without an annotation
        waiting_below: list[Expectation] = []
        for index, line in enumerate(lines):
            m = ANNOTATION.search(line.rstrip(_TRAILING))
            if m is None:
                for e in waiting_below:
                    e.line = index + 1
                waiting_below = []
                last_plain = index
                continue
            col = len(raw(line[:m.start()])) + 1
            severity, is_regex, where, text = m.group(1), m.group(2), m.group(4), m.group(5)
            try:
                matches = _regex_matcher(text) if is_regex else _substring_matcher(text)
                target = self._target_line(where, index + 1, last_plain + 1, len(lines))
            except ValueError as error:
                self.problems.append(self._at(index + 1, col) + str(error))
                continue
            e = Expectation(severity, target, index + 1, col, text, matches)
            self.expectations.append(e)
            if where == "unknown":
                self._unknown.append(e)
            elif where == "below":
                waiting_below.append(e)
        # @below annotations without a plain line after them keep the dangling line number
        # upstream gives them (one past the last line).
        for e in self.expectations:
            if e.line is not None:
                self._by_line.setdefault(e.line, []).append(e)

    @staticmethod
    def _target_line(where: Optional[str], line: int, above: int, line_count: int) -> Optional[int]:
        if where is None:
            return line
        if where == "unknown":
            return None
        if where == "above":
            return above
        if where == "below":
            return line_count           # until a plain line follows
        digits = where[1:]
        try:                            # llvm getAsInteger(radix 0): a leading 0 is octal
            offset = int(digits, 8) if len(digits) > 1 and digits[0] == "0" else int(digits)
        except ValueError:
            raise ValueError(f"invalid line offset '{where}'") from None
        if offset >= 2**31:
            raise ValueError(f"invalid line offset '{where}'")
        return line + offset if where[0] == "+" else line - offset

    def process(self, diagnostic) -> list[str]:
        """Check a diagnostic and its notes; the problems they cause."""
        problems = []
        for d in [diagnostic, *diagnostic.notes]:
            problem = self._process_one(d)
            if problem:
                problems.append(problem)
        self.problems += problems
        return problems

    def _process_one(self, d) -> Optional[str]:
        if d.file is not None:
            candidates = []                 # another file: upstream has no annotations for it
        elif d.line is None:
            candidates = self._unknown
        else:
            candidates = self._by_line.get(d.line, [])
        message = raw(d.message)
        near_miss = None
        for e in candidates:
            if e.matches(message):
                if e.severity == d.severity:
                    e.met = True
                    return None
                near_miss = e
        if near_miss is not None:
            return (self._at(near_miss.written_at, near_miss.col) + f"'{d.severity}' diagnostic "
                    f"emitted when expecting a '{near_miss.severity}'")
        return f"{d.where(self.filename)}: error: unexpected {d.severity}: {d.message}"

    def finish(self) -> list[str]:
        problems = [self._at(e.written_at, e.col) + f'expected {e.severity} "{e.text}" was not produced'
                    for e in self.expectations if not e.met]
        self.problems += problems
        return problems


def _substring_matcher(text: str) -> Callable[[bytes], bool]:
    needle = raw(text)
    return lambda message: needle in message


def _regex_matcher(text: str) -> Callable[[bytes], bool]:
    """Upstream's regex: literal text escaped, each `{{...}}` island a group. Each island must
    be valid alone (ValueError "invalid regex: ..." otherwise); the whole regex can still be
    invalid (a back-reference renumbered by the groups around islands), and then, as in LLVM,
    it matches nothing."""
    rest, whole = raw(text), []
    while rest:
        start = rest.find(b"{{")
        if start < 0:
            whole.append(llvm_regex.escape(rest))
            break
        whole.append(llvm_regex.escape(rest[:start]))
        rest = rest[start + 2:]
        end = rest.find(b"}}")
        if end < 0:
            raise ValueError("found start of regex with no end '}}'")
        island = rest[:end]
        try:
            llvm_regex.translate(island)
        except llvm_regex.RegexError as error:
            raise ValueError(f"invalid regex: {error}") from None
        whole.append(b"(" + island + b")")
        rest = rest[end + 2:]
    try:
        pattern = llvm_regex.compile(b"".join(whole))
    except llvm_regex.RegexError:
        return lambda message: False
    return lambda message: pattern.search(message) is not None

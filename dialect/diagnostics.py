"""Collecting MLIR diagnostics (and the verifier's warnings) and printing them like mlir-opt.

MLIR's Python bindings can emit errors at a location (`Location.emit_error`) but not warnings or
remarks, so advisory findings of the Python verifier are appended to the active collector
directly. Everything a tool prints goes through `Diagnostic.format`.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Optional

from mlir import ir

_SEVERITY = {"DiagnosticSeverity.ERROR": "error", "DiagnosticSeverity.WARNING": "warning",
             "DiagnosticSeverity.NOTE": "note", "DiagnosticSeverity.REMARK": "remark"}


@dataclass
class Diagnostic:
    severity: str          # error | warning | note | remark
    message: str
    line: Optional[int]    # 1-based; None for an unknown location
    col: Optional[int]
    notes: list = field(default_factory=list)
    file: Optional[str] = None   # None: the parsed input itself; else the file a loc() names

    def where(self, filename: str) -> str:
        """The location as mlir-opt prints it (`<unknown>:0` when there is none)."""
        if self.line is None:
            return "<unknown>:0"
        return f"{self.file or filename}:{self.line}:{self.col}"

    def format(self, filename: str) -> str:
        text = f"{self.where(filename)}: {self.severity}: {self.message}"
        for note in self.notes:
            text += "\n" + note.format(filename)
        return text


# The name MLIR gives a buffer parsed from Python (ir.Module.parse): locations in that file
# are the tool's input, whatever its name. (A `loc("-":...)` written in the IR is taken for it.)
PARSED_BUFFER = "-"


def file_position(loc: ir.Location) -> tuple[Optional[int], Optional[int]]:
    """(line, col) of the first file location inside `loc` (fused/callsite/name unwrap)."""
    return source_position(loc)[:2]


def source_position(loc: ir.Location) -> tuple[Optional[int], Optional[int], Optional[str]]:
    """(line, col, file) of the first file location inside `loc` (fused/callsite/name
    unwrap); file is None for the parsed buffer."""
    try:
        if loc.is_a_file():
            name = loc.filename
            return loc.start_line, loc.start_col, None if name == PARSED_BUFFER else name
        if loc.is_a_name():
            return source_position(loc.child_loc)
        if loc.is_a_callsite():
            return source_position(loc.callee)
        if loc.is_a_fused():
            for inner in loc.locations:
                pos = source_position(inner)
                if pos[0] is not None:
                    return pos
    except Exception:  # an exotic location kind: report without a position
        pass
    return None, None, None


def _is_printed_op_note(message: str) -> bool:
    # The bindings attach the failing op's text as a note; mlir-opt does not print it in
    # --verify-diagnostics mode and neither do we.
    return message.startswith("see current operation")


def from_mlir(d) -> Diagnostic:
    """Convert an ir.Diagnostic or ir.DiagnosticInfo."""
    line, col, file = source_position(d.location)
    notes = [from_mlir(n) for n in d.notes if not _is_printed_op_note(n.message)]
    return Diagnostic(_SEVERITY.get(str(d.severity), "error"), d.message, line, col, notes, file)


_active: list["DiagnosticCollector"] = []


class DiagnosticCollector:
    """Captures every diagnostic of a context while active (a context manager)."""

    def __init__(self, context: ir.Context):
        self.context = context
        self.diagnostics: list[Diagnostic] = []
        self._handler = None

    def __enter__(self):
        self._handler = self.context.attach_diagnostic_handler(self._handle)
        _active.append(self)
        return self

    def __exit__(self, *exc):
        _active.remove(self)
        self._handler.detach()
        # The handler holds our bound method and we hold the context: a cycle through C++
        # that Python's GC cannot see, which kept every context alive (2 MB per
        # --split-input-file chunk).
        self._handler = self.context = None
        return False

    def _handle(self, d) -> bool:
        self.diagnostics.append(from_mlir(d))
        return True

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)


def emit(loc: ir.Location, severity: str, message: str):
    """A warning or remark at `loc` (MLIR's Python API can only emit errors): to the active
    collector, or as a Python warning when none is active."""
    line, col, file = source_position(loc)
    if _active:
        _active[-1].diagnostics.append(Diagnostic(severity, message, line, col, file=file))
    else:
        warnings.warn(f"{severity}: {message}", stacklevel=2)


def record_mlir_error(error: ir.MLIRError) -> list[Diagnostic]:
    """Hand the diagnostics an MLIRError carries (MLIR catches them during parse and pass-manager
    runs) to the active collector; returns them."""
    found = [from_mlir(d) for d in error.error_diagnostics] or [Diagnostic("error", str(error), None, None)]
    if _active:
        _active[-1].diagnostics.extend(found)
    return found


def parse_module(source) -> ir.Module:
    """`ir.Module.parse` (text or bytes). The bindings must turn an error's message into text:
    when it quotes input bytes that are not UTF-8 (an op name...), they fail to, and the input
    is read again with each such byte as `?` so that the error keeps its position."""
    try:
        return ir.Module.parse(source)
    except RuntimeError as error:
        if not isinstance(source, bytes) or "conversion error" not in str(error):
            raise
    text = source.decode("utf-8", "surrogateescape")
    cleaned = "".join("?" if "\udc80" <= c <= "\udcff" else c for c in text)
    ir.Module.parse(cleaned)            # MLIRError with the diagnostics, as a rule
    raise ir.MLIRError("the input has bytes that are not UTF-8 where MLIR quotes them", [])

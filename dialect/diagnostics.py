"""Collecting MLIR diagnostics (and the verifier's warnings) and printing them like mlir-opt.

MLIR's Python bindings can emit errors at a location (`Location.emit_error`) but not warnings or
remarks, so advisory findings of the Python verifier are appended to the active collector
directly. Everything a tool prints goes through `Diagnostic.format`.
"""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
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
    name: Optional[str] = None   # built IR without a position: the name its location gives

    def where(self, filename: str) -> str:
        """The location as mlir-opt prints it (`<unknown>:0` when there is none); an op of
        built IR located by a name (a model's module path): `<source>:<name>`."""
        if self.line is None:
            return f"{self.file or filename}:{self.name}" if self.name else "<unknown>:0"
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


def location_name(loc: ir.Location) -> Optional[str]:
    """The name of the innermost name location inside `loc` (fused and call-site locations
    unwrapped): where built IR says an op comes from (a model's module path); None without one."""
    try:
        if loc.is_a_name():
            return location_name(loc.child_loc) or loc.name_str
        if loc.is_a_callsite():
            return location_name(loc.callee)
        if loc.is_a_fused():
            return next((n for n in (location_name(inner) for inner in loc.locations) if n), None)
    except Exception:  # an exotic location kind: no name
        pass
    return None


def location_text(loc: ir.Location, source: str = "") -> str:
    """SOURCE:LINE:COL as diagnostics print it (an op's own file first: imported code), or
    SOURCE:NAME for built IR located by a name, else the location as MLIR prints it."""
    line, col, file = source_position(loc)
    if line is not None:
        where = f"{line}:{col}"
    else:
        where = location_name(loc) or str(loc)
    source = file or source
    return f"{source}:{where}" if source else where


def _is_printed_op_note(message: str) -> bool:
    # The bindings attach the failing op's text as a note; mlir-opt does not print it in
    # --verify-diagnostics mode and neither do we.
    return message.startswith("see current operation")


def from_mlir(d) -> Diagnostic:
    """Convert an ir.Diagnostic or ir.DiagnosticInfo."""
    line, col, file = source_position(d.location)
    notes = [from_mlir(n) for n in d.notes if not _is_printed_op_note(n.message)]
    return Diagnostic(_SEVERITY.get(str(d.severity), "error"), d.message, line, col, notes, file,
                      location_name(d.location) if line is None else None)


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
        _active[-1].diagnostics.append(Diagnostic(severity, message, line, col, file=file,
                                                  name=location_name(loc) if line is None else None))
    else:
        warnings.warn(f"{severity}: {message}", stacklevel=2)


def record_mlir_error(error: ir.MLIRError) -> list[Diagnostic]:
    """Hand the diagnostics an MLIRError carries (MLIR catches them during parse and pass-manager
    runs) to the active collector; returns them."""
    found = ([error.diagnostic] if isinstance(error, RefusedInput) else
             [from_mlir(d) for d in error.error_diagnostics] or [Diagnostic("error", str(error), None, None)])
    if _active:
        _active[-1].diagnostics.extend(found)
    return found


class RefusedInput(ir.MLIRError):
    """Input refused before MLIR parses it, because MLIR would abort the process on it."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message, [])
        self.diagnostic = diagnostic


# MLIR 22 aborts the whole process (not a diagnostic) on some input; these are refused first
# (docs/errors.md, "Limits"):
#   - a generic op whose name is a dialect's name alone (`"func"()`, `"mla."()`): LLVM ERROR
#     "created with unregistered dialect";
#   - nesting deeper than the parser's recursion survives (a few thousand brackets or regions
#     overflow the stack): refused past MAX_NESTING;
#   - a static shape of 2^63 elements or more (an assertion in ShapedType::getNumElements when
#     a dense attribute of that type is built);
#   - a reshape's reassociation index that is negative or huge (`tensor.expand_shape %x [[-1],
#     ...]`, custom or generic form, on the op's line): an assertion in AffineMap::get;
#   - an arith cast op (extf, truncf, sitofp...) with an unranked tensor on the op's line
#     (directly or through a type alias): an assertion in llvm::cast<RankedTensorType>;
#   - a dense array of `index` (`array<index: 1>`, directly or through a type alias): the
#     parser asks the bit width of its element type, an assertion in Type::getIntOrFloatBitWidth.
MAX_NESTING = 512
_COMMENT_OR_STRING = re.compile(rb'"(?:[^"\\\n]|\\.)*"|//[^\n]*')
_GENERIC_OP = re.compile(rb'(?:^|[=({;])[ \t]*"((?:[^"\\\n]|\\.)*)"[ \t]*\(', re.M)
_SHAPE = re.compile(rb"(?:tensor|memref|vector)<((?:(?:\d+|\?)[ \t]*x[ \t]*)+)")
_ESCAPE = re.compile(rb"\\([0-9a-fA-F]{2}|.)")
_RESHAPE = re.compile(rb"(?:expand|collapse)_shape\b")
_NESTED_LIST = re.compile(rb"\[(?:\s*\[[^\[\]]*\]\s*,?)+\s*\]")    # [[0], [1, 2]]
_INDEX = re.compile(rb"(?<![\w.])-?\d+")
_ARITH_CAST = re.compile(rb"arith\.(?:extf|truncf|extsi|extui|trunci|sitofp|uitofp|fptosi|fptoui|index_castui|"
                         rb"index_cast|bitcast|scaling_extf|scaling_truncf)\b")
_UNRANKED_ALIAS = re.compile(rb"^[ \t]*(![\w.$-]+)[ \t]*=[ \t]*tensor<[ \t]*\*", re.M)
_ESCAPE_STR = re.compile(r"\\([89a-fA-F][0-9a-fA-F]|.)")
_DENSE_ARRAY = re.compile(rb"array\s*<\s*(index\b|![\w.$-]+)")
_TYPE_ALIAS = re.compile(rb"^[ \t]*(![\w.$-]+)[ \t]*=[ \t]*(index\b|![\w.$-]+)", re.M)


def unescape(name: bytes) -> bytes:
    """The bytes an MLIR string literal's body stands for (\\XX, \\n, \\t, \\\\, \\")."""
    named = {b"n": b"\n", b"t": b"\t", b"\\": b"\\", b'"': b'"'}
    return _ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]) if len(m.group(1)) == 2
                       else named.get(m.group(1), m.group(1)), name)


def refuse_aborting_input(source) -> Diagnostic | None:
    """The error for input MLIR would abort on (see above), else None."""
    data = source if isinstance(source, bytes) else source.encode("utf-8", "surrogateescape")
    if b'"' in data:
        # comments blanked (positions kept), strings kept: the op names are strings
        code = _COMMENT_OR_STRING.sub(lambda m: b" " * len(m.group()) if m.group().startswith(b"//")
                                      else m.group(), data)
        for m in _GENERIC_OP.finditer(code):
            name = unescape(m.group(1))
            if not name.partition(b".")[2]:
                line, col = _line_col(data, m.start(1) - 1)
                return Diagnostic("error", f"'{name.decode('utf-8', 'replace')}' is not an op name "
                                  "(expected 'dialect.op'; MLIR would abort on it)", line, col)
    if b"x" in data:
        for m in _SHAPE.finditer(data):
            count = 1
            for d in m.group(1).split(b"x")[:-1]:
                if d != b"?":
                    count *= int(d)
            if count >= 1 << 63:
                line, col = _line_col(data, m.start())
                return Diagnostic("error", "a shape of more than 2^63 - 1 elements (MLIR's element "
                                  "count would overflow)", line, col)
    if b"_shape" in data:
        for m in _RESHAPE.finditer(data):
            line_end = data.find(b"\n", m.end())
            lists = _NESTED_LIST.search(data, m.end(), len(data) if line_end < 0 else line_end)
            for index in _INDEX.finditer(lists.group() if lists else b""):
                if not 0 <= int(index.group()) < 1 << 31:
                    line, col = _line_col(data, lists.start() + index.start())
                    return Diagnostic("error", f"reassociation index {int(index.group())} is outside "
                                      "[0, 2^31) (MLIR would abort on it)", line, col)
    if b"arith." in data and b"*" in data:
        names = [rb"tensor<[ \t]*\*"] + [re.escape(a) + rb"(?![\w.$-])" for a in _UNRANKED_ALIAS.findall(data)]
        unranked = re.compile(b"|".join(names))
        for m in _ARITH_CAST.finditer(data):
            line_end = data.find(b"\n", m.end())
            if unranked.search(data, m.end(), len(data) if line_end < 0 else line_end):
                line, col = _line_col(data, m.start())
                return Diagnostic("error", f"'{m.group().decode()}' on an unranked tensor (MLIR would "
                                  "abort on it)", line, col)
    if b"array" in data and b"index" in data:
        code = _COMMENT_OR_STRING.sub(lambda m: b" " * len(m.group()), data)
        indexes, aliases = {b"index"}, dict(_TYPE_ALIAS.findall(code))
        for _ in range(len(aliases)):                   # aliases of aliases of index
            indexes |= {a for a, target in aliases.items() if target.rstrip() in indexes}
        for m in _DENSE_ARRAY.finditer(code):
            if m.group(1) in indexes:
                line, col = _line_col(data, m.start())
                return Diagnostic("error", "a dense array of index elements (array<index: ...>): its elements "
                                  "need a bit width; use array<i64: ...> (MLIR would abort on it)", line, col)
    if data.count(b"(") + data.count(b"[") + data.count(b"{") > MAX_NESTING:
        blank = np.frombuffer(_COMMENT_OR_STRING.sub(lambda m: b" " * len(m.group()), data), np.uint8)
        step = np.zeros(256, np.int8)
        step[list(b"([{")], step[list(b")]}")] = 1, -1
        depth = np.cumsum(step[blank], dtype=np.int64)
        if depth.size and depth.max() > MAX_NESTING:
            line, col = _line_col(data, int(np.argmax(depth > MAX_NESTING)))
            return Diagnostic("error", f"nesting deeper than {MAX_NESTING} brackets, braces and "
                              "parentheses (MLIR's parser would overflow its stack)", line, col)
    return None


def _line_col(data: bytes, offset: int) -> tuple[int, int]:
    return data.count(b"\n", 0, offset) + 1, offset - (data.rfind(b"\n", 0, offset) + 1) + 1


def parse_module(source) -> ir.Module:
    """`ir.Module.parse` (text or bytes), after refusing what MLIR would abort on (RefusedInput,
    an MLIRError). The bindings must turn an error's message into text: when it quotes input
    bytes that are not UTF-8 (an op name...), they fail to, and the input is read again with
    each such byte as `?` so that the error keeps its position."""
    refused = refuse_aborting_input(source)
    if refused is not None:
        raise RefusedInput(refused)
    try:
        return ir.Module.parse(source)
    except RuntimeError as error:
        if "conversion error" not in str(error):
            raise
    text = source.decode("utf-8", "surrogateescape") if isinstance(source, bytes) else source
    cleaned = "".join("?" if "\udc80" <= c <= "\udcff" else c for c in text)
    # and such bytes escaped in a string (@"\FF"), which some messages quote unescaped
    cleaned = _ESCAPE_STR.sub(lambda m: "\\3F" if len(m.group(1)) == 2 else m.group(), cleaned)
    ir.Module.parse(cleaned)            # MLIRError with the diagnostics, as a rule
    raise ir.MLIRError("the input has bytes that are not UTF-8 where MLIR quotes them", [])


# --- symbols ----------------------------------------------------------------------------------

def symbol_text(attr) -> str:
    """The name a `sym_name` (or any StringAttr) or a symbol reference (FlatSymbolRefAttr) holds,
    with bytes that are not UTF-8 as U+FFFD: @"\\FF" is legal IR, but the bindings' `.value` cannot
    convert it (nanobind's "conversion error")."""
    if isinstance(attr, ir.StringAttr):
        return bytes(attr.value_bytes).decode("utf-8", "replace")
    try:
        return attr.value
    except RuntimeError:        # no value_bytes here: its printed form, @"..." with \\XX escapes
        return unescape(str(attr)[2:-1].encode()).decode("utf-8", "replace")

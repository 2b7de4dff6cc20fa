"""The --verify-diagnostics verifier (upstream semantics; test_verify_diagnostics_upstream.py
compares whole files with the real mlir-opt) and its LLVM regexes."""
import pytest

from ascend_mla.dialect.diagnostics import Diagnostic
from ascend_mla.tools import llvm_regex
from ascend_mla.tools.verify_diagnostics import DiagnosticVerifier


def targets(text):
    v = DiagnosticVerifier(text, "f.mlir")
    return [(e.severity, e.line, e.text) for e in v.expectations], v.problems


def test_designators():
    text = "\n".join([
        "op1",                                              # 1
        "// expected-remark @above {{r}}",                  # 2 -> 1
        "// expected-note @-1 {{n}}",                       # 3 -> 2
        "// expected-warning @+2 {{w}}",                    # 4 -> 6
        "// expected-error @below {{b1}}",                  # 5 -> 6
        "op2",                                              # 6
        "// expected-error-re {{x {{[0-9]+}} y}}",          # 7
        "// expected-error @unknown {{u}}",                 # 8 -> no line
        "// expected-error @below {{dangling}}",            # 9 -> 9 (one past the last line)
    ])
    assert targets(text) == ([("remark", 1, "r"), ("note", 2, "n"), ("warning", 6, "w"),
                              ("error", 6, "b1"), ("error", 7, "x {{[0-9]+}} y"),
                              ("error", None, "u"), ("error", 9, "dangling")], [])


def test_one_annotation_per_line_from_the_first_braces_to_the_last():
    assert targets("x // expected-error {{a}} expected-error {{b}}")[0] == [
        ("error", 1, "a}} expected-error {{b")]
    assert targets("x // expected-error {{a}} and text after it")[0] == []


def test_matching_by_severity_line_and_substring_or_regex():
    v = DiagnosticVerifier("// expected-error-re {{op {{[a-z]+}} failed}}\n// expected-remark {{slow}}", "f")
    assert v.process(Diagnostic("error", "'mla.x' op weight failed [A-1]", 1, 4)) == []
    assert v.process(Diagnostic("remark", "this is slow", 2, 1)) == []
    assert v.finish() == []


def test_unexpected_missing_and_wrong_severity():
    v = DiagnosticVerifier("  // expected-warning {{careful}}", "f.mlir")
    assert v.process(Diagnostic("error", "be careful", 1, 3)) == [
        "f.mlir:1:6: error: 'error' diagnostic emitted when expecting a 'warning'"]
    assert v.process(Diagnostic("error", "boom", 1, 3)) == ["f.mlir:1:3: error: unexpected error: boom"]
    assert v.finish() == ['f.mlir:1:6: error: expected warning "careful" was not produced']


def test_an_annotation_takes_every_diagnostic_it_matches():
    v = DiagnosticVerifier("// expected-error {{x}}\n// expected-error @-1 {{x}}", "f")
    assert v.process(Diagnostic("error", "x", 1, 1)) == []
    assert v.process(Diagnostic("error", "x", 1, 1)) == []
    assert v.finish() == ['f:2:4: error: expected error "x" was not produced']


def test_notes_unknown_and_foreign_locations():
    v = DiagnosticVerifier("// expected-error {{bad}}\n// expected-error @unknown {{lost}}", "f")
    note = Diagnostic("note", "because", 1, 1)
    assert v.process(Diagnostic("error", "bad", 1, 1, notes=[note])) == ["f:1:1: error: unexpected note: because"]
    assert v.process(Diagnostic("error", "lost", None, None)) == []
    assert v.process(Diagnostic("error", "bad", 1, 1, file="other.mlir")) == [
        "other.mlir:1:1: error: unexpected error: bad"]
    assert v.process(Diagnostic("error", "nowhere", None, None)) == ["<unknown>:0: error: unexpected error: nowhere"]


@pytest.mark.parametrize("line,problem", [
    ("  // expected-error-re {{a {{b}}", "f.mlir:1:6: error: found start of regex with no end '}}'"),
    ("  // expected-error-re {{a {{(b}} c}}", "f.mlir:1:6: error: invalid regex: parentheses not balanced"),
    ("  // expected-error @+099 {{x}}", "f.mlir:1:6: error: invalid line offset '+099'"),
    ("  // expected-error @-99999999999 {{x}}", "f.mlir:1:6: error: invalid line offset '-99999999999'"),
])
def test_malformed_annotations_are_errors_at_the_annotation(line, problem):
    assert targets(line) == ([], [problem])


def test_columns_count_bytes():
    assert DiagnosticVerifier("é // expected-error {{x}}", "f").expectations[0].col == 7   # é is two bytes


@pytest.mark.parametrize("pattern,subject,found", [
    (rb"\d", b"1", False), (rb"\d", b"d", True),                 # an escaped letter is itself
    (rb"[[:digit:]]+", b"a12", True), (rb"^a", b"ba", False), (rb"a$", b"a\n", False),
    (rb"a.b", b"a\nb", True), (rb"(ab|cd)\1", b"cdcd", True), (rb"(ab|cd)\1", b"abcd", False),
    (rb"x{2,3}", b"xx", True), (rb"x{2}y", b"xy", False), (rb"a{", b"a{", True),
    (rb"[]a]", b"]", True), (rb"[^]a]", b"b", True), (rb"[a-]", b"-", True),
    (rb"[[.space.]]", b" ", True), (rb"[[=a=]]", b"a", True), (rb"[[:<:]]ab", b"cab", False),
    (rb"[[:<:]]ab", b"c ab", True), (rb"ab[[:>:]]", b"abc", False), (rb"()", b"", True),
    (rb"[\d]", b"\\", True),
    # LLVM steps a position's ^ and $ before its one word boundary
    (rb"^^a", b"a", True), (rb"a$$", b"a", True), (rb"a$[[:>:]]", b"a", True),
    (rb"a[[:>:]]$", b"a", False), (rb"a[[:>:]][[:>:]]", b"a b", False),
    (rb"a([[:>:]])()([[:>:]])", b"a b", False), (rb"[[:<:]][[:<:]]a", b" a", False),
])
def test_llvm_regex_semantics(pattern, subject, found):
    assert (llvm_regex.compile(pattern).search(subject) is not None) == found


@pytest.mark.parametrize("pattern,message", [
    (b"", llvm_regex.EMPTY), (b"a|", llvm_regex.EMPTY), (b"(|a)", llvm_regex.EMPTY),
    (b"*a", llvm_regex.BADRPT), (b"a**", llvm_regex.BADRPT), (b"a*?", llvm_regex.BADRPT),
    (b"^*", llvm_regex.BADRPT), (b"{1}", llvm_regex.BADRPT), (b"a{2,1}", llvm_regex.BADBR),
    (b"a{256}", llvm_regex.BADBR), (b"a{1", llvm_regex.EBRACE), (b"a{1x}", llvm_regex.BADBR),
    (b"[a", llvm_regex.EBRACK), (b"(a", llvm_regex.EPAREN), (b"a)", llvm_regex.EPAREN),
    (b"(?:a)", llvm_regex.BADRPT), (b"[z-a]", llvm_regex.ERANGE), (b"[a-\xc3]", llvm_regex.ERANGE),
    (b"[[:word:]]", llvm_regex.ECTYPE), (b"[[.ab.]]", llvm_regex.ECOLLATE), (b"a\\", llvm_regex.EESCAPE),
    (b"\\1(a)", llvm_regex.ESUBREG), (b"(a\\1)", llvm_regex.ESUBREG),
])
def test_llvm_regex_errors(pattern, message):
    with pytest.raises(llvm_regex.RegexError) as error:
        llvm_regex.translate(pattern)
    assert str(error.value) == message

"""The --verify-diagnostics annotation parser and matcher (upstream semantics)."""
import pytest

from ascend_mla.dialect.diagnostics import Diagnostic
from ascend_mla.tools.verify_diagnostics import AnnotationError, check, parse_expectations


def expectations(text):
    return [(e.severity, e.line, e.pattern, e.regex) for e in parse_expectations(text.split("\n"))]


def test_designators():
    text = "\n".join([
        "op1",                                              # 1
        "// expected-remark @above {{r}}",                  # 2 -> 1
        "// expected-note @-1 {{n}}",                       # 3 -> 2
        "// expected-warning @+2 {{w}} expected-error {{e}}",  # 4 -> 6, 4
        "// expected-error @below {{b1}}",                  # 5 -> 6
        "op2",                                              # 6
        "// expected-error-re {{x {{[0-9]+}} y}}",          # 7
    ])
    assert expectations(text) == [("remark", 1, "r", False), ("note", 2, "n", False),
                                  ("warning", 6, "w", False), ("error", 4, "e", False),
                                  ("error", 6, "b1", False), ("error", 7, "x {{[0-9]+}} y", True)]


def test_matching_is_by_severity_line_and_substring_or_regex():
    exp = parse_expectations(["// expected-error-re {{op {{[a-z]+}} failed}}", "// expected-remark {{slow}}"])
    diags = [Diagnostic("error", "'mla.x' op weight failed [A-1]", 1, 4),
             Diagnostic("remark", "this is slow", 2, 1)]
    assert check(diags, exp, "f.mlir") == []


def test_unexpected_and_missing_are_reported():
    exp = parse_expectations(["// expected-warning {{careful}}"])
    problems = check([Diagnostic("error", "boom", 1, 3)], exp, "f.mlir")
    assert problems == ["f.mlir:1:3: error: unexpected error: boom",
                        'f.mlir:1:1: error: expected warning "careful" was not produced (on line 1)']


def test_a_note_must_be_expected_too():
    d = Diagnostic("error", "bad", 1, 1, notes=[Diagnostic("note", "because", 1, 1)])
    assert check([d], parse_expectations(["// expected-error {{bad}}"]), "f") == [
        "f:1:1: error: unexpected note: because"]


@pytest.mark.parametrize("lines,message", [
    (["// expected-error {{never closed"], "expected '}}'"),
    (["// expected-error @above {{x}}"], "'@above' with no line above it"),
    (["x", "// expected-error @below {{x}}"], "'@below' with no line below it"),
])
def test_malformed_annotations(lines, message):
    with pytest.raises(AnnotationError, match=message):
        parse_expectations(lines)

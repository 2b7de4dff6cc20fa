"""mla-opt --verify-diagnostics against the real upstream mlir-opt (the venv's, MLIR 22).

Each case is a file whose diagnostics both tools produce themselves (parser and core verifier
errors, notes, unknown and foreign locations); both run it with --split-input-file
--verify-diagnostics and must agree on the exit status and on every reported line
(`FILE:LINE:COL: error: ...`, in order). Upstream also prints the source line and a caret
under each; those lines are not compared.
"""
import os
import re
import subprocess

import pytest

from ascend_mla.tools import mla_opt


def upstream_mlir_opt() -> str:
    import mlir
    return os.path.join(list(mlir.__path__)[0], "bin", "mlir-opt")


RET = "func.func @f() -> i32 {\n"          # its `return` below has no operand: an error
BAD = "  return\n}\n"
MSG = "has 0 operands"

CASES = {
    # designators
    "same-line": RET + f"  return // expected-error {{{{{MSG}}}}}\n}}\n",
    "plus": RET + f"  // expected-error @+1 {{{{{MSG}}}}}\n" + BAD,
    "plus-octal": RET + f"  // expected-error @+010 {{{{{MSG}}}}}\n" + "\n" * 7 + BAD,
    "minus": RET + f"  return\n  // expected-error @-1 {{{{{MSG}}}}}\n}}\n",
    "above": RET + f"  return\n  // expected-note @above {{{{x}}}}\n  // expected-error @above {{{{{MSG}}}}}\n}}\n",
    "below": RET + f"  // expected-error @below {{{{{MSG}}}}}\n  // expected-note @below {{{{x}}}}\n" + BAD,
    "below-dangling": "// expected-error @below {{never}}",
    "above-at-top": f"// expected-error @above {{{{{MSG}}}}}\n" + RET + BAD,
    "no-spaces": RET + f"  // expected-error@+1{{{{{MSG}}}}}\n" + BAD,
    "many-spaces": RET + f"  // expected-error   @+1   {{{{{MSG}}}}}\n" + BAD,
    "tab-is-not-a-space": RET + f"  // expected-error\t@+1 {{{{{MSG}}}}}\n" + BAD,
    "inside-a-word": RET + f"  // unexpected-error @+1 {{{{{MSG}}}}}\n" + BAD,
    "two-on-one-line": RET + f"  // expected-error @+1 {{{{{MSG}}}}} expected-error @+1 {{{{x}}}}\n" + BAD,
    "text-after-braces": RET + f"  return // expected-error {{{{{MSG}}}}} trailing\n}}\n",
    "trailing-space-and-cr": RET + f"  return // expected-error {{{{{MSG}}}}} \t\r\n}}\n",
    "braces-inside-text": RET + f"  return // expected-error {{{{{{{{{MSG}}}}}}}}}\n}}\n",
    "empty-text": RET + "  return // expected-error {{}}\n}\n",
    "duplicate-expectations": RET + f"  // expected-error @+2 {{{{{MSG}}}}}\n  // expected-error @+1 {{{{{MSG}}}}}\n" + BAD,
    "wrong-severity": RET + f"  // expected-warning @+1 {{{{{MSG}}}}}\n" + BAD,
    "missing": RET + "  // expected-error @+1 {{not this}}\n" + BAD,
    "unexpected": RET + BAD,
    "remark-and-note-missing": "// expected-remark {{r}}\n// expected-note {{n}}\nfunc.func @g() { return }\n",
    "non-ascii-before": RET + "  return // é expected-error {{x}}\n}\n",
    # notes, unknown and foreign locations
    "note": "// expected-note @+1 {{see existing symbol definition here}}\nfunc.func @t() { return }\n"
            "// expected-error @+1 {{redefinition of symbol named 't'}}\nfunc.func @t() { return }\n",
    "note-unexpected": "func.func @t() { return }\n"
                       "// expected-error @+1 {{redefinition of symbol named 't'}}\nfunc.func @t() { return }\n",
    "unknown-matched": f"// expected-error @unknown {{{{{MSG}}}}}\n" + RET + "  return loc(unknown)\n}\n",
    "unknown-unexpected": RET + "  return loc(unknown)\n}\n",
    "foreign-file": RET + f"  return loc(\"other.mlir\":3:4) // expected-error {{{{{MSG}}}}}\n}}\n",
    "foreign-file-same-line": RET + f"  return loc(\"other.mlir\":2:3) // expected-error {{{{{MSG}}}}}\n}}\n",
    "parse-error": "// expected-error @+1 {{custom op 'nope' is unknown}}\nnope\n",
    # LLVM regexes
    "re-literal-without-islands": RET + "  return // expected-error-re {{has (0 operands}}\n}\n",
    "re-digit-class": RET + "  return // expected-error-re {{has {{[[:digit:]]+}} operands}}\n}\n",
    "re-backslash-d-is-d": RET + "  return // expected-error-re {{has {{\\d}} operands}}\n}\n",
    "re-alternation": RET + "  return // expected-error-re {{has {{(0|1)}} operands}}\n}\n",
    "re-bound": RET + "  return // expected-error-re {{h{{a{1,2}}}s 0}}\n}\n",
    "re-anchors": RET + "  return // expected-error-re {{{{^}}'func.return' op{{.*}}returns 1{{$}}}}\n}\n",
    "re-anchor-not-at-start": RET + "  return // expected-error-re {{op{{^}}}}\n}\n",
    "re-backreference": RET + "  return // expected-error-re {{{{(e)\\1}}nclosing}}\n}\n",
    "re-word-boundary": RET + "  return // expected-error-re {{{{[[:<:]]}}operands}}\n}\n",
    "re-bracket-specials": RET + "  return // expected-error-re {{{{[]a-z[.space.]]+}}function}}\n}\n",
    "re-word-boundary-then-end": RET + "  return // expected-error-re {{returns 1{{[[:>:]]$}}}}\n}\n",
    "re-end-then-word-boundary": RET + "  return // expected-error-re {{returns 1{{$[[:>:]]}}}}\n}\n",
    "re-two-word-boundaries": RET + "  return // expected-error-re {{returns 1{{[[:>:]]}}{{[[:>:]]}}}}\n}\n",
    "re-python-lazy": RET + "  return // expected-error-re {{has {{.*?}} operands}}\n}\n",
    "re-python-group": RET + "  return // expected-error-re {{has {{(?:0)}} operands}}\n}\n",
    "re-unbalanced-paren": RET + "  return // expected-error-re {{has {{(0}} operands}}\n}\n",
    "re-unbalanced-bracket": RET + "  return // expected-error-re {{has {{[0}} operands}}\n}\n",
    "re-bad-class": RET + "  return // expected-error-re {{has {{[[:nope:]]}} operands}}\n}\n",
    "re-bad-range": RET + "  return // expected-error-re {{has {{[9-0]}} operands}}\n}\n",
    "re-bad-count": RET + "  return // expected-error-re {{has {{0{3,1}}} operands}}\n}\n",
    "re-big-count": RET + "  return // expected-error-re {{has {{0{256}}} operands}}\n}\n",
    "re-unclosed-brace": RET + "  return // expected-error-re {{has {{0{1,}} operands}}\n}\n",
    "re-empty-alternative": RET + "  return // expected-error-re {{has {{0|}} operands}}\n}\n",
    "re-empty-island": RET + "  return // expected-error-re {{has {{}} operands}}\n}\n",
    "re-bad-backreference": RET + "  return // expected-error-re {{has {{\\1}} operands}}\n}\n",
    "re-no-end": RET + "  return // expected-error-re {{has {{0 operands}}\n}\n",
    "re-dangling-backslash": RET + "  return // expected-error-re {{has {{0\\}} operands}}\n}\n",
    # splitting
    "split-whole-file-annotations": f"// expected-error @unknown {{{{{MSG}}}}}\n" + RET + "  return loc(unknown)\n}\n"
                                    "// -----\n" + RET + "  return loc(unknown)\n}\n",
    "split-above-across-marker": RET + "  return\n}\n// -----\n// expected-error @above {{x}}\n",
    "split-mid-line": "func.func @a() { return } // ----- " + RET + "  return // expected-error {{has 0}}\n}\n",
    "split-near-miss": "func.func @a() { return }\n// ----\n" + RET + BAD,
    "split-six-dashes": "func.func @a() { return }\n// ------\nfunc.func @b() { return }\n",
    "split-leading-marker": "// -----\nfunc.func @a() { return }\n",
}

HEADER = re.compile(r"^(\S+:\d+:\d+|<unknown>:0|\S+): (error|warning|note|remark): ")


def reported(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if HEADER.match(line)]


def upstream(path):
    result = subprocess.run([upstream_mlir_opt(), str(path), "--split-input-file", "--verify-diagnostics"],
                            capture_output=True, timeout=60)
    return result.returncode, reported(result.stderr.decode("utf-8", "replace"))


def ours(path, capsys):
    status = mla_opt.main([str(path), "--split-input-file", "--verify-diagnostics", "-o", os.devnull])
    return status, reported(capsys.readouterr().err)


@pytest.mark.parametrize("name", CASES)
def test_same_verdict_and_messages_as_upstream(name, tmp_path, capsys):
    path = tmp_path / f"{name}.mlir"
    path.write_bytes(CASES[name].encode("utf-8"))
    expected = upstream(path)
    assert expected[0] in (0, 1), f"upstream mlir-opt crashed on {name}"
    assert ours(path, capsys) == expected

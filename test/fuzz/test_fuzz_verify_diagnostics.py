"""Differential fuzzer for `--verify-diagnostics` regexes: random `expected-error-re` patterns,
checked by mla-opt and by the real upstream mlir-opt (the venv's), must give the same verdicts
and messages: invalid regex (LLVM's message), match, or no match."""
import os
import random
import re
import subprocess

import pytest
from fuzzing import SEED, budgets, run_tool

from ascend_mla.tools import mla_opt

PIECES = ["a", "b", "o", "p", "0", "1", " ", "'", "(", ")", "[", "]", "|", "*", "+", "?", ".",
          "^", "$", "{", "}", ",", "-", ":", "\\", "2", "{1,2}", "{0}", "{2,}", "[[:digit:]]",
          "[[:alpha:]]+", "[^a-z]", "[]a]", "[a-]", "\\1", "\\d", "\\.", "(a|b)", "()", ".*",
          "[[.space.]]", "[[=a=]]", "[[:<:]]", "[[:>:]]", "[z-a]", "{256}", "*?", "(?:", "op",
          "has", "operands", "returns", "@f"]
MESSAGE_WORDS = ["'func.return'", "op", "has 0", "operands", "but", "enclosing", "function",
                 "returns 1", "", "(@f", ")"]


MESSAGE = "'func.return' op has 0 operands, but enclosing function (@f{}) returns 1"


def regexified(text: str, rng: random.Random) -> str:
    """A regex that matches `text`, or nearly does: characters become classes, wildcards,
    optional or repeated atoms, escapes, groups, a wrong character now and then."""
    out = []
    for c in text:
        r = rng.random()
        if r < 0.1:
            out.append(".")
        elif r < 0.15:
            out.append("[[:digit:]]" if c.isdigit() else "[[:alpha:]]" if c.isalpha() else "[[:punct:][:space:]]")
        elif r < 0.2:
            out.append(f"({c}|x)" if c not in "()[]{}|*+?.^$\\" else f"\\{c}")
        elif r < 0.25:
            out.append(rng.choice([f"{c}?", f"{c}*", f"{c}+", f"{c}{{1}}", f"{c}{{0,2}}"])
                       if c.isalnum() else c)
        elif r < 0.27:
            out.append(rng.choice(["[^a]", "z", "\\d", "[0-9]", ".*"]))
        elif c in "()[]{}|*+?.^$\\":
            out.append("\\" + c)
        else:
            out.append(c)
    return "".join(out)


def random_annotation(rng: random.Random, index: int) -> str:
    if rng.random() < 0.5:          # noise: mostly invalid, or matching nothing
        island = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 5)))
        before, after = rng.choice(MESSAGE_WORDS), rng.choice(MESSAGE_WORDS)
    else:                           # built from the message: mostly matching
        message = MESSAGE.format(index)
        i = rng.randrange(len(message))
        j = rng.randrange(i, len(message) + 1)
        k = rng.randrange(j, len(message) + 1)
        before, island, after = message[i:j], regexified(message[j:k], rng) or ".", message[k:k + rng.randrange(4)]
        if "}}" in before + after or "{{" in before + after:
            before = after = ""
    return f"// expected-error-re @+1 {{{{{before}{{{{{island}}}}}{after}}}}}"


def batch(rng: random.Random, count: int) -> str:
    cases = []
    for i in range(count):
        cases.append(f"func.func @f{i}() -> i32 {{\n  {random_annotation(rng, i)}\n  return\n}}\n")
    return "// -----\n".join(cases)


HEADER = re.compile(r"^(\S+:\d+:\d+|<unknown>:0|\S+): (error|warning|note|remark): ")


def upstream_mlir_opt() -> str:
    import mlir
    return os.path.join(list(mlir.__path__)[0], "bin", "mlir-opt")


def reported(text: str) -> list[str]:
    return [line for line in text.splitlines() if HEADER.match(line)]


@pytest.mark.parametrize("batches", budgets(ci=1, large=50))
def test_regex_annotations_agree_with_upstream(batches, tmp_path):
    rng = random.Random(SEED)
    compared = 0
    for b in range(batches):
        path = tmp_path / f"batch{b}.mlir"
        path.write_text(batch(rng, 100))
        result = subprocess.run([upstream_mlir_opt(), str(path), "--split-input-file", "--verify-diagnostics"],
                                capture_output=True, timeout=120)
        if result.returncode not in (0, 1):
            continue        # upstream crashed: nothing to compare against
        expected = reported(result.stderr.decode("utf-8", "replace"))
        status, _, err = run_tool(mla_opt.main, [str(path), "--split-input-file", "--verify-diagnostics",
                                                 "-o", os.devnull])
        got = reported(err)
        if (status, got) != (result.returncode, expected):
            first = next((i for i, (x, y) in enumerate(zip(got, expected)) if x != y), min(len(got), len(expected)))
            line = (expected + got + ["?"])[first]
            number = int(re.match(r"\S+?:(\d+):", line).group(1)) if re.match(r"\S+?:(\d+):", line) else 1
            source = path.read_text().splitlines()[max(number - 2, 0):number + 1]
            pytest.fail(f"batch {b}: status {status} vs upstream {result.returncode}\n"
                        f"ours:     {got[first] if first < len(got) else None}\n"
                        f"upstream: {expected[first] if first < len(expected) else None}\n"
                        f"near: {source}")
        compared += 100
    print(f"regex fuzz: {compared} annotations compared with upstream")
    assert compared

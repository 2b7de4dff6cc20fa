"""Every fenced block of README.md and docs/*.md runs, so none rots. By the block's info string:

- `python`: executed, the blocks of one file in order in one namespace, from the repository's
  root (like a doctest session); its stdout is kept for the next `output` block.
- `mlir`: read and verified by mla-opt (`--split-input-file` when it has `// -----`, its
  `// RUN: mla-opt %s ...` flags when it has such a line, `--verify-diagnostics` when it has
  expected-* annotations). `mlir file=PATH`: also equal to the file PATH of the repository.
- `shell`: one command per line, each from a known family (SHELL below says how it is checked:
  run for real; a benchmark or a test run the suite makes anyway, its paths and options checked;
  one of .ci/run's own commands); an unknown command fails.
  A trailing `# exit N` says the command must fail with status N (its stderr is then output).
- `<lang> output` (mlir, cpp, text): an excerpt of the output of the block before it: each
  non-blank line must match a line of that output, in order; `...` inside a line matches
  anything, a line that is only `...` skips any number of lines.
- `<lang> from=PATH`: an excerpt of the source file PATH, checked the same way (a comment the
  doc adds after two spaces is not compared).
- `text`: prose in a box (a file tree, a formula); not code, not run.

Any other label, or none, fails: say what the block is.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from ascend_mla.tools import mla_opt

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
DOCS = ["README.md"] + sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))
CI = (ROOT / ".ci" / "run").read_text()


@dataclass
class Block:
    path: str
    line: int            # of the opening fence
    lang: str
    options: dict
    text: str

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def blocks(path: str) -> list[Block]:
    out, lines, i = [], (ROOT / path).read_text().splitlines(), 0
    while i < len(lines):
        fence = re.match(r"^(\s*)```(.*)$", lines[i])
        if fence:
            indent, words = fence.group(1), fence.group(2).split()
            start, body = i + 1, []
            i += 1
            while not lines[i].strip().startswith("```"):
                body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
                i += 1
            options = dict(w.split("=", 1) if "=" in w else (w, True) for w in words[1:])
            out.append(Block(path, start, words[0] if words else "", options, "\n".join(body) + "\n"))
        i += 1
    return out


# --- excerpts ---------------------------------------------------------------------------------

def _pattern(line: str) -> str:
    return ".*".join(re.escape(part) for part in line.split("..."))


def check_excerpt(excerpt: str, text: str, where: str, source: bool = False):
    """Each line of `excerpt` matches a line of `text`, in order (see the module docstring).
    In an excerpt of a source file a comment the doc adds (after two spaces) is not compared."""
    lines = [line.strip() for line in text.splitlines()]
    position = 0
    for wanted in (w.strip() for w in excerpt.splitlines()):
        if not wanted or wanted == "...":
            continue
        pattern = _pattern(wanted)
        if source and "  #" in wanted:
            pattern = f"(?:{pattern})|(?:{_pattern(wanted.split('  #')[0].rstrip())}(?:\\s+#.*)?)"
        pattern = re.compile(pattern)
        for j in range(position, len(lines)):
            if pattern.fullmatch(lines[j]):
                position = j + 1
                break
        else:
            raise AssertionError(f"{where}: the line {wanted!r} is not in the {'source' if source else 'output'} "
                                 f"(in this order); it was:\n{text if not source else ''}")


# --- shell commands ---------------------------------------------------------------------------

def venv(command: str) -> str:
    """The command with `.venv/bin/` meaning the venv this test runs in."""
    return re.sub(r"(^|\s)\.venv/bin/", lambda m: m.group(1) + str(BIN) + "/", command)


def run_command(command: str, where: str, status: int = 0) -> str:
    """Run it; its stdout (its stderr too when it is expected to fail)."""
    done = subprocess.run(venv(command), shell=True, cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"})
    assert done.returncode == status, \
        f"{where}: `{command}` exited {done.returncode}, not {status}:\n{done.stdout}\n{done.stderr}"
    return done.stdout + (done.stderr if status else "")


def in_ci(command: str, where: str) -> str:
    assert command in CI.splitlines(), f"{where}: `{command}` must be one of .ci/run's commands"
    return ""


def install_line(command: str, where: str) -> str:
    """The README's install line is .ci/run's (CI runs it on a fresh venv); what it runs after
    the install is run here too."""
    in_ci(command, where)
    parts = command.split(" && ")
    rest = [p for p in parts if not p.startswith(("python3 -m venv", ".venv/bin/pip install"))]
    return "".join(run_known(p, where) for p in rest)


def help_of(command: str, where: str) -> str:
    """A command the suite need not run: a benchmark (minutes; the options it is given are
    its own), tests the suite runs anyway or a large test run (the paths it names exist)."""
    words = shlex.split(command)
    paths = [w for w in words if w.startswith(("bench/", "test/"))]
    for path in paths:
        assert (ROOT / path).exists(), f"{where}: {path} does not exist"
    if paths and paths[0].startswith("bench/"):
        source = (ROOT / paths[0]).read_text()
        for flag in (w for w in words if w.startswith("--")):
            assert f'"{flag}"' in source, f"{where}: {paths[0]} has no option {flag}"
    return ""


# command pattern -> how a doc's command is checked
SHELL = [
    (r"python3 -m venv \.venv && .*", install_line),
    (r"\.venv/bin/python test/run\.py", in_ci),                     # the whole suite
    (r"(\.venv/bin/)?ascend-mla (run|generate).*", run_command),
    (r"(\.venv/bin/)?mla-(opt|run|translate) .*", run_command),
    (r"(\.venv/bin/)?lit -v test/lit/\S+( test/lit/\S+)*", run_command),
    (r"\.venv/bin/python -m ascend_mla\.tools\.rule_coverage", run_command),
    (r"\.venv/bin/python bench/\S+\.py.*", help_of),
    (r"\.venv/bin/python examples/\S+\.py.*", run_command),
    (r"(ASCEND_MLA_\w+=\S+ )*\.venv/bin/python (test/run\.py|-m pytest) .*-m slow.*", help_of),
    (r"\.venv/bin/python -m pytest -q( test/python/\S+\.py)+", help_of),
]


def run_known(command: str, where: str, status: int = 0) -> str:
    for pattern, how in SHELL:
        if re.fullmatch(pattern, command):
            if status:
                assert how is run_command, f"{where}: `{command}` is not run here, it cannot fail"
                return run_command(command, where, status)
            return how(command, where)
    raise AssertionError(f"{where}: no rule in test_docs.SHELL for `{command}`")


def check_shell(block: Block) -> str:
    """Each line: a command, then an optional comment; `# exit N` says it must fail with N."""
    output = ""
    for line in block.text.splitlines():
        command, _, comment = line.partition(" #")
        command = command.strip()
        if command and not command.startswith("#"):
            status = re.match(r"\s*exit (\d+)", comment)
            output += run_known(command, block.where, int(status.group(1)) if status else 0)
    return output


# --- mlir ------------------------------------------------------------------------------------

def check_mlir(block: Block, tmp_path: Path, capsys):
    if "file" in block.options:
        assert block.text.strip() == (ROOT / block.options["file"]).read_text().strip(), \
            f"{block.where}: differs from {block.options['file']}"
    source = tmp_path / "block.mlir"
    source.write_text(block.text)
    flags = []
    run = re.search(r"// RUN: mla-opt %s(.*)", block.text)
    if run:
        flags = [f for f in shlex.split(run.group(1)) if f not in ("|",)]
        flags = flags[:flags.index("FileCheck")] if "FileCheck" in flags else flags
    else:
        if "// -----" in block.text:
            flags.append("--split-input-file")
        if "expected-" in block.text:
            flags.append("--verify-diagnostics")
    capsys.readouterr()
    status = mla_opt.main([str(source), *flags, "-o", str(tmp_path / "out.mlir")])
    err = capsys.readouterr().err
    assert status == 0, f"{block.where}: mla-opt {' '.join(flags)} failed:\n{err}"


# --- the test ------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", DOCS)
def test_every_block_runs(path, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    namespace = {"__name__": f"doc:{path}"}
    output = None                   # what the last run block printed
    found = blocks(path)
    for block in found:
        if "output" in block.options:
            assert output is not None, f"{block.where}: an output block with nothing run before it"
            check_excerpt(block.text, output, block.where)
        elif "from" in block.options:
            check_excerpt(block.text, (ROOT / block.options["from"]).read_text(), block.where, source=True)
        elif block.lang == "python":
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                exec(compile(block.text, block.where, "exec"), namespace)
            output = buffer.getvalue()
        elif block.lang == "mlir":
            check_mlir(block, tmp_path, capsys)
        elif block.lang == "shell":
            output = check_shell(block)
        elif block.lang != "text":
            raise AssertionError(f"{block.where}: label the block (python, mlir, shell, text, "
                                 f"'<lang> output', '<lang> from=PATH'), got {block.lang!r}")


def test_the_readme_starts_with_the_two_commands_ci_runs():
    """The README's first block is the newcomer's two commands, and .ci/run runs exactly them."""
    first = blocks("README.md")[0]
    assert first.lang == "shell"
    commands = [line for line in first.text.splitlines() if line.strip()]
    assert len(commands) == 2 and commands[0].endswith("&& .venv/bin/ascend-mla run")
    assert commands[1] == ".venv/bin/python test/run.py"
    ci = [line for line in CI.splitlines() if line and not line.startswith(("#", "set ", "cd ", "rm "))]
    assert ci == commands


def test_the_excerpt_check_can_fail():
    check_excerpt("a ... c\n...\nz", "a b c\nx\nz", "t")
    with pytest.raises(AssertionError, match="is not in the output"):
        check_excerpt("z\na", "a\nz", "t")                      # out of order
    with pytest.raises(AssertionError, match="is not in the output"):
        check_excerpt("a b", "a b c", "t")                      # a whole line, not a prefix
    check_excerpt("x = 1  # the doc's note", "x = 1\ny = 2  # its own", "t", source=True)
    check_excerpt("y = 2  # the doc's note", "x = 1\ny = 2  # its own", "t", source=True)
    with pytest.raises(AssertionError, match="is not in the source"):
        check_excerpt("x = 2  # the doc's note", "x = 1", "t", source=True)

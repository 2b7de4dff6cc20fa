"""Shared pieces of the fuzzers: budgets, the tool oracle, and the .mlir mutator.

Budgets: every fuzzer runs a small seeded budget in the default suite (seconds in all) and a
large one under the `slow` marker (`python test/run.py -m slow`, or `pytest test/fuzz -m slow`).
ASCEND_MLA_FUZZ_SCALE multiplies the large budget; ASCEND_MLA_FUZZ_SEED moves the seeded
fuzzers to other cases. A failure message holds what reproduces it (the case, its input, the
traceback).
"""
from __future__ import annotations

import contextlib
import io
import os
import random
import re
import signal
import sys
import traceback
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LIT = REPO / "test" / "lit"
SCALE = int(os.environ.get("ASCEND_MLA_FUZZ_SCALE", "1"))
SEED = int(os.environ.get("ASCEND_MLA_FUZZ_SEED", "0"))
TIME_LIMIT = 60          # seconds for one case: longer is a hang


def budgets(ci: int, large: int):
    """pytest parameters: the CI budget, and the large one marked slow."""
    return [pytest.param(ci, id="ci"),
            pytest.param(large * SCALE, id="large", marks=pytest.mark.slow)]


def isolated_budgets(ci: int, large: int):
    """pytest parameters (cases, isolated): the CI budget in this process, the large one (slow)
    in child processes (Worker)."""
    return [pytest.param(ci, False, id="ci"),
            pytest.param(large * SCALE, True, id="large", marks=pytest.mark.slow)]


class Hang(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: int):
    def expire(signum, frame):
        raise Hang(f"no answer after {seconds} s")
    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# --- command-line tools, in process ------------------------------------------------------------

# What a failing tool may print: a diagnostic at a location, or the tool's own error line.
DIAGNOSTIC = re.compile(r"^(\S.*:\d+:\d+|<unknown>:0): error: |^(mla-opt|mla-run|mla-translate): error: ", re.M)


def run_tool(main, argv, stdin: bytes = b"") -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of a tool's main() run in this process. A traceback or a
    hang is returned as exit status -1 with the traceback as stderr."""
    out, err = io.StringIO(), io.StringIO()
    stdin_stream = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    saved_stdin = sys.stdin
    sys.stdin = stdin_stream
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), time_limit(TIME_LIMIT):
            try:
                status = main(argv)
            except SystemExit as e:     # argparse
                status = e.code if isinstance(e.code, int) else 1
    except BaseException:  # noqa: BLE001 - a traceback is the finding
        return -1, out.getvalue(), traceback.format_exc()
    finally:
        sys.stdin = saved_stdin
    return status, out.getvalue(), err.getvalue()


def tool_verdict(status: int, stderr: str) -> str | None:
    """None when the run obeys the contract (exit 0, or 1 with a diagnostic or an error line);
    otherwise what went wrong."""
    if status == 0:
        return None
    if status == 1:
        return None if DIAGNOSTIC.search(stderr) else "exit 1 without an error diagnostic"
    return f"exit status {status}"


# --- the corpus --------------------------------------------------------------------------------

def lit_chunks(pattern: str = "*.mlir") -> list[str]:
    """Every split of the lit tests' .mlir files, RUN and CHECK lines dropped."""
    chunks = []
    for path in sorted(LIT.rglob(pattern)):
        text = path.read_text(encoding="utf-8")
        for chunk in text.split("// -----"):
            lines = [line for line in chunk.split("\n")
                     if not re.match(r"\s*//\s*(RUN|CHECK|[A-Z0-9]+:|[A-Z]+-[A-Z-]+:)", line)]
            chunk = "\n".join(lines).strip("\n")
            if "func.func" in chunk:
                chunks.append(chunk + "\n")
    return chunks


# --- the .mlir mutator ---------------------------------------------------------------------------

NUMBERS = ["0", "1", "-1", "2", "3", "7", "8", "16", "17", "64", "127", "128", "255", "256",
           "65535", "2147483647", "2147483648", "4294967296", "9223372036854775807",
           "9223372036854775808", "18446744073709551616", "99999999999999999999999"]
ELEMENT_TYPES = ["bf16", "f16", "f32", "f64", "i1", "i2", "i4", "i8", "i16", "i32", "i64", "ui4",
                 "ui8", "ui64", "si8", "index", "f8E4M3FN", "f8E5M2", "f4E2M1FN", "complex<f32>",
                 "tf32", "none", "i0"]
ENCODINGS = [', #mla.format<"FRACTAL_NZ">', ', #mla.format<"ND">', ', #mla.format<"NZ">',
             ", #mla.format<3>", ', "FRACTAL_NZ"', ", 1 : i64", ""]
ATTRIBUTE_VALUES = ["1 : i64", "0 : i64", "-1 : i64", "2 : i64", "128 : i64", "1 : i32", "1 : i1",
                    "0.5 : f64", "-0.0 : f64", "0x7FF8000000000000 : f64",
                    "0x7FF0000000000000 : f64", "1.0e-300 : f64", "1.0 : f32", '"BSND"', '"BNSD"',
                    '"BSH"', '"TND"', '"PA_NZ"', '"PA_BSND"', '"bogus"', '""', "true", "false",
                    "unit", "array<i64: 1, 2>", "array<i64>", "array<i64: -1>",
                    "array<i64: 9223372036854775807, 1>", "array<i32: 1>",
                    "dense<1> : tensor<2xi64>", "[1, 2]", '"\\FF"', "@sym", "i64", "{}"]
ATTRIBUTE_NAMES = ["num_heads", "scale_value", "pre_tokens", "next_tokens", "input_layout",
                   "num_key_value_heads", "sparse_mode", "inner_precise", "block_size",
                   "antiquant_mode", "softmax_lse_flag", "actual_seq_lengths",
                   "actual_seq_lengths_kv", "cache_mode", "rmsnorm_epsilon_cq", "epsilon",
                   "head_num", "layout", "actual_cmp_seq_kvlen", "actual_seq_qlen",
                   "operandSegmentSizes", "key_antiquant_mode", "compress_stride"]
OP_NAMES = ["mla.rms_norm", "mla.nz_cache_view", "mla.prolog", "mla.prolog_v2",
            "mla.fused_infer_attention_score", "mla.nsa_compress_attention_infer", "mla.nope",
            "func.return", "arith.constant"]
BYTES = ["\udcff", "\x00", "\udcc3(", "{", "}", "(", ")", "%", "@", '"', "<", ">", ",", ":",
         " loc(unknown)", "\n// -----\n", " // expected-error {{x}}", "\n", "#", "!", "^bb1:",
         'loc("other.mlir":1:1)', "\t", "\r"]
ARGUMENT_TYPES = ["i32", "index", "f32", "tensor<*xf32>", "memref<2xf32>", "tensor<2xf32>",
                  "tensor<f32>", "tensor<0xbf16>", "tensor<16xbf16, #mla.format<\"FRACTAL_NZ\">>",
                  "tensor<2x?xbf16>", "vector<4xf32>", "!mla.nope"]

_INT = re.compile(r"(?<![\w.%#@])-?\d+(?![\w.])")
_DIMS = re.compile(r"tensor<((?:\d+|\?)(?:x(?:\d+|\?))*)x")
_ETYPE = re.compile(r"(?<=x)(bf16|f16|f32|f64|i1|i4|i8|i32|i64|ui8|ui64|f8E5M2)(?=[,>])")
_ATTR = re.compile(r"(\w+) = ([^,{}]+?)(?=[,}])")
_OPNAME = re.compile(r'"(mla\.\w+|func\.\w+)"')
_ARGTYPE = re.compile(r"(%\w+: )(tensor<[^>]*>>?)")
_SSA = re.compile(r"%\w+")


def _sub_one(pattern, text, rng, replace):
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    m = rng.choice(matches)
    return text[:m.start()] + replace(m) + text[m.end():]


def _mutations(rng):
    return [
        lambda t: _sub_one(_INT, t, rng, lambda m: rng.choice(NUMBERS)),
        lambda t: _sub_one(_DIMS, t, rng, lambda m: "tensor<" + _change_dims(m.group(1), rng) + "x"),
        lambda t: _sub_one(_ETYPE, t, rng, lambda m: rng.choice(ELEMENT_TYPES)),
        lambda t: _sub_one(re.compile(r"(?<=[a-z0-9])(>)"), t, rng, lambda m: rng.choice(ENCODINGS) + ">"),
        lambda t: _sub_one(re.compile(r', #mla\.format<"\w+">'), t, rng, lambda m: rng.choice(ENCODINGS)),
        *[lambda t: _sub_one(_ATTR, t, rng, lambda m: f"{m.group(1)} = {rng.choice(ATTRIBUTE_VALUES)}")] * 3,
        lambda t: _sub_one(re.compile(r"\w+ = [^,{}]+?(, |(?=\}))"), t, rng, lambda m: ""),
        *[lambda t: _retype(t, rng)] * 6,
        lambda t: _sub_one(re.compile(r"\{(?=\w+ =)"), t, rng,
                           lambda m: f"{{{rng.choice(ATTRIBUTE_NAMES)} = {rng.choice(ATTRIBUTE_VALUES)}, "),
        lambda t: _sub_one(_OPNAME, t, rng, lambda m: f'"{rng.choice(OP_NAMES)}"'),
        lambda t: _sub_one(_ARGTYPE, t, rng, lambda m: m.group(1) + rng.choice(ARGUMENT_TYPES)),
        lambda t: _sub_one(_SSA, t, rng, lambda m: rng.choice(["%nope", "%0", "%arg0", "%x"])),
        lambda t: _sub_one(re.compile(r"@\w+"), t, rng, lambda m: rng.choice(['@"\\FF"', '@""', "@f"])),
        lambda t: _line_edit(t, rng),
        lambda t: t[:rng.randrange(len(t) + 1)],
        lambda t: _insert(t, rng, rng.choice(BYTES)),
    ]


_TENSOR = re.compile(r'tensor<[^<>]*(?:<[^<>]*>[^<>]*)?>')


def _retype(text: str, rng) -> str:
    """Change one tensor type everywhere it occurs (function signature, op types, results), so
    that the IR still parses and the verifier rules see the change."""
    types = sorted(set(_TENSOR.findall(text)))
    if not types:
        return text
    old = rng.choice(types)
    new = mutate_type(old, rng)
    return text.replace(old, new)


def mutate_type(t: str, rng) -> str:
    how = rng.randrange(4)
    if how == 0:
        return _sub_one(re.compile(r"(?<=tensor<)((?:\d+|\?)(?:x(?:\d+|\?))*)(?=x)"), t, rng,
                        lambda m: _change_dims(m.group(1), rng))
    if how == 1:
        return _sub_one(re.compile(r"(?<=x)[a-z0-9]+(?=[,>])|(?<=<)[a-z]+\d+(?=[,>])"), t, rng,
                        lambda m: rng.choice(ELEMENT_TYPES))
    if how == 2:
        if "#mla.format" in t:
            return re.sub(r', #mla\.format<"\w+">', rng.choice(ENCODINGS), t)
        return t[:-1] + rng.choice(ENCODINGS) + ">"
    return rng.choice(ARGUMENT_TYPES)


def _change_dims(dims: str, rng) -> str:
    parts = dims.split("x")
    i = rng.randrange(len(parts))
    how = rng.randrange(3)
    if how == 0:
        parts[i] = rng.choice(["?", "0", "1", "2", "15", "16", "17", "33", "4097", "2147483648"])
    elif how == 1 and len(parts) > 1:
        del parts[i]
    else:
        parts.insert(i, rng.choice(["1", "2", "?"]))
    return "x".join(parts)


def _line_edit(text: str, rng) -> str:
    lines = text.split("\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    how = rng.randrange(3)
    if how == 0:
        del lines[i]
    elif how == 1:
        lines.insert(i, lines[j])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def _insert(text: str, rng, piece: str) -> str:
    at = rng.randrange(len(text) + 1)
    return text[:at] + piece + text[at:]


def mutate(text: str, rng: random.Random, count: int) -> str:
    """`count` random edits of `text` (a str whose lone surrogates stand for raw bytes)."""
    mutations = _mutations(rng)
    for _ in range(count):
        text = rng.choice(mutations)(text)
    return text


def to_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


# --- cases in a child interpreter ----------------------------------------------------------------

class Worker:
    """A child interpreter (fuzz_worker.py) that runs cases one by one: `call("module:function",
    args)` -> ("ok", its JSON result) | ("died", why) | ("hang", why). An MLIR abort or a hang
    kills only the child: the case is reported and a fresh child takes the next one. The large
    budgets run their cases here, so that MLIR's own aborts (docs/errors.md, "Limits") cannot
    take the test run with them."""

    def __init__(self):
        self.proc = None
        self.started = 0

    def _start(self):
        import subprocess
        import tempfile
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("fuzz_worker.py"))],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
                                     cwd=str(REPO))
        self.started += 1
        # the child says it is ready once its imports are done: their time (long on a busy
        # machine) is not a case's
        import select
        ready, _, _ = select.select([self.proc.stdout], [], [], 900)
        if not ready or not self.proc.stdout.readline():
            raise RuntimeError("the fuzz worker did not start")

    def call(self, target: str, *args):
        import json
        import select
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        self.proc.stdin.write((json.dumps({"target": target, "args": list(args)}) + "\n").encode())
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], TIME_LIMIT + 60)
        if not ready:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
            return "hang", f"no answer after {TIME_LIMIT + 60} s"
        line = self.proc.stdout.readline()
        if not line:
            status = self.proc.wait()
            self.err.seek(0)
            tail = self.err.read()[-3000:].decode("utf-8", "replace")
            self.proc = None
            return "died", f"the child died (exit status {status}):\n{tail}"
        return "ok", json.loads(line)["result"]

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
        self.proc = None


def tool_case(tool: str, argv: list, stdin: str = "") -> list:
    """A tool's run as a JSON-able result: [status, stdout tail, stderr] (a traceback or a hang
    is status -1, see run_tool)."""
    import importlib
    main = importlib.import_module(f"ascend_mla.tools.{tool}").main
    status, out, err = run_tool(main, argv, stdin.encode("utf-8", "surrogateescape"))
    return [status, out[-2000:], err[-6000:]]


def run_cases(cases: int, one_case, isolated: bool):
    """Run `one_case(case, call)` for each case, where `call(target, *args)` runs a function of
    a module: in this process, or (isolated) in a Worker. `one_case` returns None or a failure
    text. Returns the failures."""
    import importlib
    worker = Worker() if isolated else None
    last = []

    def call(target, *args):
        last[:] = [target, args]
        if worker is None:
            module, name = target.split(":")
            return getattr(importlib.import_module(module), name)(*args)
        how, result = worker.call(target, *args)
        if how != "ok":
            raise ChildFailure(f"{how}: {result}")
        return result
    failures = []
    try:
        for case in range(cases):
            try:
                problem = one_case(case, call)
            except ChildFailure as e:       # the child died or hung: what it was running
                problem = f"{e}\n--- the call\n{last[0]}{last[1]!r:.6000}"
            if problem:
                failures.append(f"case {case}: {problem}")
                # in full: the assertion shows the first failure only
                print(f"=== FAILED case {case}:\n{problem.strip()}\n===", flush=True)
    finally:
        if worker is not None:
            worker.close()
            print(f"{worker.started} child interpreter(s) started (one more after each death or hang)")
    return failures


class ChildFailure(Exception):
    pass

"""mla-opt: parse, verify, transform and print mla IR, following mlir-opt's conventions.

    mla-opt [FILE|-] [-o OUT] [--split-input-file] [--verify-diagnostics]
            [--pass-pipeline='builtin.module(...)'] [--<pass-name>[=options]...]
            [--mlir-print-ir-after-all] [--mlir-print-op-generic] [--emit-irdl]

Exit status 0 on success, 1 on any error diagnostic (or, with --verify-diagnostics, on any
unexpected or missing diagnostic).
"""
from __future__ import annotations

import argparse
import re
import sys

from mlir import ir

from ..compiler import parse_and_transform
from ..dialect.dialect import irdl_module_text, make_context
from ..dialect.diagnostics import DiagnosticCollector
from ..passes import registry
from .verify_diagnostics import AnnotationError, check, parse_expectations

SPLIT_MARKER = re.compile(r"^\s*// -----")
# Upstream passes offered as flags for convenience; any other upstream pass works in
# --pass-pipeline.
UPSTREAM_PASS_FLAGS = {"canonicalize": "Canonicalize operations", "cse": "Eliminate common sub-expressions",
                       "symbol-dce": "Eliminate dead symbols"}


class _PipelineFlag(argparse.Action):
    """`--<pass>[=options]` flags, kept in command-line order."""

    def __call__(self, parser, namespace, value, option_string=None):
        steps = getattr(namespace, "steps", None) or []
        name = option_string.lstrip("-")
        steps.append((name, value or "") if name in registry.PASSES else (name, None))
        namespace.steps = steps


def build_parser() -> argparse.ArgumentParser:
    _load_passes()
    p = argparse.ArgumentParser(prog="mla-opt", description="Optimizer driver for the mla dialect")
    p.add_argument("input", nargs="?", default="-", help="input .mlir file, or - for stdin")
    p.add_argument("-o", dest="output", default="-", help="output file (default: stdout)")
    p.add_argument("--split-input-file", action="store_true",
                   help="split the input at '// -----' and process each chunk on its own")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check diagnostics against expected-* annotations in the input")
    p.add_argument("--pass-pipeline", help="textual pipeline, e.g. 'builtin.module(verify)'")
    p.add_argument("--mlir-print-ir-after-all", action="store_true", help="print IR after each pass")
    p.add_argument("--mlir-print-op-generic", action="store_true", help="print the generic op form")
    p.add_argument("--emit-irdl", action="store_true",
                   help="print the IRDL of the mla dialect (for mlir-opt --irdl-file) and exit")
    group = p.add_argument_group("passes (run in command-line order)")
    for name, info in sorted(registry.PASSES.items()):
        opts = ", ".join(f"{o.name}={o.default}" for o in info.options)
        group.add_argument(f"--{name}", nargs="?", const="", action=_PipelineFlag, dest="steps",
                           metavar="OPTIONS", help=info.description + (f" (options: {opts})" if opts else ""))
    for name, help_text in UPSTREAM_PASS_FLAGS.items():
        group.add_argument(f"--{name}", nargs=0, action=_PipelineFlag, dest="steps",
                           help=help_text + " (upstream)")
    return p


def _load_passes():
    import ascend_mla.passes  # noqa: F401  (registers the passes)


def split_chunks(text: str, split: bool) -> list[tuple[int, str]]:
    """(first line number, chunk text) pairs. Each chunk keeps its lines' original numbers."""
    lines = text.split("\n")
    if not split:
        return [(1, text)]
    chunks, start = [], 0
    for i, line in enumerate(lines):
        if SPLIT_MARKER.match(line):
            chunks.append((start + 1, "\n".join(lines[start:i])))
            start = i + 1
    chunks.append((start + 1, "\n".join(lines[start:])))
    return chunks


def process_chunk(first_line: int, chunk: str, args, filename: str, steps, out, err) -> bool:
    """Parse, verify, run the pipeline and print one chunk. Returns True on success."""
    context = make_context()
    # Blank lines in front keep line numbers those of the whole file.
    padded = "\n" * (first_line - 1) + chunk
    with context, ir.Location.unknown(), DiagnosticCollector(context) as diags:
        module = parse_and_transform(padded, steps, print_ir_after_all=args.mlir_print_ir_after_all)
        ok = module is not None
        if ok:
            out.append(module.operation.get_asm(print_generic_op_form=args.mlir_print_op_generic,
                                                assume_verified=True) + "\n")

    if args.verify_diagnostics:
        try:
            expectations = parse_expectations(chunk.split("\n"), first_line)
        except AnnotationError as e:
            err.append(f"{filename}:{e.line}:1: error: {e}")
            return False
        problems = check(diags.diagnostics, expectations, filename)
        err.extend(problems)
        return not problems
    err.extend(d.format(filename) for d in diags.diagnostics)
    return ok and not diags.has_errors


def _check_pipeline(steps):
    """Reject an unknown pass or option before reading any input (ValueError)."""
    if steps:
        with make_context():
            registry.build_pass_manager(steps)


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.emit_irdl:
        _write(args.output, irdl_module_text())
        return 0
    steps = list(getattr(args, "steps", None) or [])
    try:
        if args.pass_pipeline:
            steps = registry.parse_pipeline(args.pass_pipeline) + steps
    except ValueError as e:
        print(f"mla-opt: error: {e}", file=sys.stderr)
        return 1
    try:
        _check_pipeline(steps)
    except ValueError as e:
        print(f"mla-opt: error: {e}", file=sys.stderr)
        return 1
    filename = "<stdin>" if args.input == "-" else args.input
    try:
        text = sys.stdin.read() if args.input == "-" else open(args.input, encoding="utf-8").read()
    except OSError as e:
        print(f"mla-opt: error: cannot read {filename}: {e.strerror}", file=sys.stderr)
        return 1

    out, err, ok = [], [], True
    for first_line, chunk in split_chunks(text, args.split_input_file):
        ok = process_chunk(first_line, chunk, args, filename, steps, out, err) and ok
    if err:
        print("\n".join(err), file=sys.stderr)
    separator = "// -----\n" if args.split_input_file else ""
    _write(args.output, separator.join(out))
    return 0 if ok else 1


def _write(path: str, text: str):
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    sys.exit(main())

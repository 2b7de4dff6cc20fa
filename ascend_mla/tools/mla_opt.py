"""mla-opt: parse, verify, transform and print mla IR, following mlir-opt's conventions.

    mla-opt [FILE|-] [-o OUT] [--split-input-file] [--verify-diagnostics]
            [--pass-pipeline='builtin.module(...)'] [--<pass-name>[="opt=v ..."]...]
            [--mlir-print-ir-after-all] [--mlir-print-op-generic] [--emit-irdl]

Exit status 0 on success, 1 on any error diagnostic (or, with --verify-diagnostics, on any
unexpected or missing diagnostic).
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from mlir import ir

from ..compiler import runtime_inputs, transform
from ..dialect.diagnostics import Diagnostic, DiagnosticCollector, parse_module, record_mlir_error
from ..dialect.dialect import irdl_module_text, make_context
from ..passes import registry
from ..runtime.weights import initial_values, write_initial_values
from .verify_diagnostics import DiagnosticVerifier

# Upstream passes offered as flags for convenience; any other upstream pass works in
# --pass-pipeline.
UPSTREAM_PASS_FLAGS = {"canonicalize": "Canonicalize operations", "cse": "Eliminate common sub-expressions",
                       "symbol-dce": "Eliminate dead symbols"}


PASS_OPTIONS_HELP = ("Passes run in command-line order. As with mlir-opt, a pass takes its options only "
                     "after '=': --<pass>=OPTIONS, e.g. --fuse-prolog=\"opt=v\" or "
                     "--fuse-prolog=\"a=1 b=2\"; a word after a bare --<pass> is the input file.")


def pass_flags(argv: list[str]) -> tuple[list, list[str]]:
    """The pass flags of a command line, in order, as pipeline elements, and the other
    arguments. `--<pass>` or `--<pass>=OPTIONS` (mlir-opt's form): never the next word, which
    stays an argument (`mla-opt --fuse-prolog FILE` reads FILE)."""
    steps, rest = [], []
    for i, arg in enumerate(argv):
        if arg == "--":
            rest += argv[i:]
            break
        name, eq, options = arg[2:].partition("=") if arg.startswith("--") else ("", "", "")
        if name in registry.PASSES:
            steps.append((name, options))
        elif name in UPSTREAM_PASS_FLAGS:
            if eq:
                raise ValueError(f"--{name} takes no options here (use --pass-pipeline='builtin.module({name}{{...}})')")
            steps.append((name, None))
        else:
            rest.append(arg)
    return steps, rest


def build_parser() -> argparse.ArgumentParser:
    _load_passes()
    p = argparse.ArgumentParser(prog="mla-opt", description="Optimizer driver for the mla dialect")
    p.add_argument("input", nargs="?", default="-", help="input .mlir file, or - for stdin")
    p.add_argument("-o", dest="output", default="-", help="output file (default: stdout)")
    p.add_argument("--split-input-file", action="store_true",
                   help="split the input at '// -----' and process each chunk on its own")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check diagnostics against expected-* annotations in the input")
    p.add_argument("--pass-pipeline", help="textual pipeline, e.g. 'builtin.module(verify)', or 'default'")
    p.add_argument("--mlir-print-ir-after-all", action="store_true", help="print IR after each pass")
    p.add_argument("--mlir-print-op-generic", action="store_true", help="print the generic op form")
    p.add_argument("--emit-irdl", action="store_true",
                   help="print the IRDL of the mla dialect (for mlir-opt --irdl-file) and exit")
    # Listed for --help; pass_flags takes them off the command line before argparse sees it.
    group = p.add_argument_group("passes", PASS_OPTIONS_HELP)
    for name, info in sorted(registry.PASSES.items()):
        opts = ", ".join(f"{o.name}={o.default}" for o in info.options)
        group.add_argument(f"--{name}", action="store_true", dest=f"_flag_{name}",
                           help=info.description + (f" (options: {opts})" if opts else ""))
    for name, help_text in UPSTREAM_PASS_FLAGS.items():
        group.add_argument(f"--{name}", action="store_true", dest=f"_flag_{name}", help=help_text + " (upstream)")
    return p


def _load_passes():
    import ascend_mla.passes  # noqa: F401  (registers the passes)


SPLIT_MARKER = b"// -----"


@dataclass
class Chunk:
    line: int      # where the chunk starts in the file (1-based line, byte column)
    col: int
    text: bytes

    def padded(self) -> bytes:
        """The chunk behind blank lines and spaces, so its diagnostics carry the positions of
        the whole file."""
        return b"\n" * (self.line - 1) + b" " * (self.col - 1) + self.text


def split_chunks(data: bytes, split: bool, filename: str, err: list) -> list[Chunk]:
    """The chunks of the input, as mlir-opt 22 splits it: at every `// -----`, even inside a
    line. Upstream cuts at `// ---` and checks what follows: `--` and then a character other
    than `0` completes the marker; anything else is a near miss (a warning; the pieces stay
    joined). An empty piece is replaced by the next one unchecked, so a file that starts with
    the marker gets a first chunk starting with `--`: upstream's quirks, kept."""
    if not split:
        return [Chunk(1, 1, data)]
    cut = SPLIT_MARKER[:-2]
    spans = []                          # (offset, length) of each chunk in data
    start, length, at = 0, 0, 0
    for piece in data.split(cut):
        piece_at, at = at, at + len(piece) + len(cut)
        if length == 0:
            start, length = piece_at, len(piece)
        elif piece.startswith(b"--") and len(piece) > 2 and piece[2] != ord("0"):
            spans.append((start, length))
            start, length = piece_at + 2, len(piece) - 2
        else:
            line, col = _position(data, piece_at)
            err.append(f"{filename}:{line}:{col}: warning: near miss with file split marker")
            length += len(cut) + len(piece)
    if length:
        spans.append((start, length))
    return [Chunk(*_position(data, offset), data[offset:offset + size]) for offset, size in spans]


def _position(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


class Contexts:
    """The MLIR context the next split is processed in. A context costs tens of milliseconds
    (the upstream dialects registered, the mla and aclnn IRDL loaded): 1000 splits in 1000
    contexts took 28 s. Splits share one, renewed after RENEW_BYTES of input: a context keeps
    what was uniqued in it (types, attributes: a large constant's data) until it dies."""
    RENEW_BYTES = 16 << 20

    def __init__(self):
        self.context, self.used = None, 0

    def next(self, size: int) -> ir.Context:
        if self.context is None or self.used + size > self.RENEW_BYTES:
            self.context, self.used = None, 0          # the old one dies with its last module
            self.context = make_context()
        self.used += size
        return self.context


def process_chunk(chunk: Chunk, args, steps, out, context=None) -> list[Diagnostic]:
    """Parse, verify, run the pipeline and print one chunk. Returns its diagnostics."""
    context = context or make_context()
    with context, ir.Location.unknown(), DiagnosticCollector(context) as diags:
        try:
            module = parse_module(chunk.padded())
        except ir.MLIRError as error:
            record_mlir_error(error)
            module = None
        if module is not None:
            # The passes' inputs: the globals' initial values as the weights and the runtime's op
            # evaluator (fold-constants computes with them); what it folds is printed as the new
            # globals' initial values.
            weights = initial_values(module)
            module = transform(module, steps, print_ir_after_all=args.mlir_print_ir_after_all,
                               inputs=runtime_inputs(weights))
            if module is not None:
                write_initial_values(module, weights)
        if module is not None:
            out.append(module.operation.get_asm(print_generic_op_form=args.mlir_print_op_generic,
                                                assume_verified=True) + "\n")
    return diags.diagnostics


def check_pipeline(steps):
    """Reject an unknown pass or option (text or parsed steps) before reading any input
    (ValueError)."""
    if steps:
        with make_context():
            registry.build_pass_manager(steps)


def main(argv=None) -> int:
    parser = build_parser()
    try:
        steps, rest = pass_flags(list(sys.argv[1:] if argv is None else argv))
    except ValueError as e:
        print(f"mla-opt: error: {e}", file=sys.stderr)
        return 1
    args = parser.parse_args(rest)
    if args.emit_irdl:
        return _write(args.output, irdl_module_text())
    try:
        if args.pass_pipeline is not None:
            steps = registry.parse_pipeline(args.pass_pipeline) + steps
        check_pipeline(steps)
    except ValueError as e:
        print(f"mla-opt: error: {e}", file=sys.stderr)
        return 1
    filename = "<stdin>" if args.input == "-" else args.input
    try:
        if args.input == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args.input, "rb") as f:
                data = f.read()
    except OSError as e:
        print(f"mla-opt: error: cannot read {filename}: {e.strerror}", file=sys.stderr)
        return 1

    # Bytes throughout: MLIR reports bytes it cannot read (`unexpected character`) at their
    # position; annotations are read from the text with undecodable bytes kept as they are.
    out, err = [], []
    chunks = split_chunks(data, args.split_input_file, filename, err)
    verifier = None
    if args.verify_diagnostics:
        verifier = DiagnosticVerifier(data.decode("utf-8", "surrogateescape"), filename)
        err.extend(verifier.problems)
    ok = True
    contexts = Contexts()
    for chunk in chunks:
        diagnostics = process_chunk(chunk, args, steps, out, contexts.next(len(chunk.text)))
        if verifier is not None:
            for d in diagnostics:
                err.extend(verifier.process(d))
        else:
            err.extend(d.format(filename) for d in diagnostics)
            ok = ok and not any(d.severity == "error" for d in diagnostics)
    if verifier is not None:
        err.extend(verifier.finish())
        ok = not verifier.problems
    if err:
        print("\n".join(err), file=sys.stderr)
    separator = "// -----\n" if args.split_input_file else ""
    if _write(args.output, separator.join(out)) != 0:
        return 1
    return 0 if ok else 1


def _write(path: str, text: str) -> int:
    """Write the output; 1 (with a message) when the file cannot be written."""
    try:
        if path == "-":
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    except OSError as e:
        print(f"mla-opt: error: cannot write {path}: {e.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

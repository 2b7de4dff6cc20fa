"""mla-translate: translate a lowered module out of MLIR.

    mla-translate --emit-cpp FILE [-o OUT] [--function NAME]

--emit-cpp: the C++ host program of one function (the first by default): the aclnn two-phase
calls of the lowered module, in the seeds' call-example form, through upstream emitc and
`mlir-translate --mlir-to-cpp` (lowering/emit_cpp.py). A module at the mla level is lowered
first (lower-to-aclnn). It includes `acl/acl.h` and the `aclnnop/aclnn_<op>.h` headers of the
CANN toolkit; build it against CANN (`-lascendcl -lopapi -lnnopbase`). Exit status 1 on any
error (a diagnostic, or a call this emitter cannot express).
"""
from __future__ import annotations

import argparse
import sys

from mlir import ir

from ..dialect.diagnostics import DiagnosticCollector, parse_module, record_mlir_error
from ..dialect.dialect import make_context, verify_ops
from ..lowering.emit_cpp import EmitError, emit_cpp
from ..passes.registry import PassFailure


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="mla-translate", description=__doc__.splitlines()[0])
    p.add_argument("input", nargs="?", default="-", help="input .mlir file, or - for stdin")
    p.add_argument("-o", dest="output", default="-", help="output file (default: stdout)")
    p.add_argument("--emit-cpp", action="store_true", required=True, help="emit C++ host code")
    p.add_argument("--function", help="the function to emit (default: the first one)")
    args = p.parse_args(argv)
    name = "<stdin>" if args.input == "-" else args.input
    try:
        if args.input == "-":
            source = sys.stdin.buffer.read()
        else:
            with open(args.input, "rb") as f:
                source = f.read()        # bytes: MLIR reports what is not UTF-8 where it is
    except OSError as e:
        print(f"mla-translate: error: cannot read {name}: {e.strerror}", file=sys.stderr)
        return 1
    context = make_context()
    with context, ir.Location.unknown(), DiagnosticCollector(context) as diags:
        try:
            module = parse_module(source)
            if not verify_ops(module.operation):
                raise PassFailure()
            code = emit_cpp(module, args.function)
        except ir.MLIRError as error:
            record_mlir_error(error)
            code = None
        except PassFailure:
            code = None
        except (EmitError, RuntimeError, ValueError) as e:     # ValueError: an argument attribute
            print(f"mla-translate: error: {e}", file=sys.stderr)
            return 1
    if code is None or diags.has_errors:
        for d in diags.diagnostics:
            if d.severity == "error":
                print(d.format(name), file=sys.stderr)
        return 1
    try:
        if args.output == "-":
            sys.stdout.write(code)
        else:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(code)
    except OSError as e:
        print(f"mla-translate: error: cannot write {args.output}: {e.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

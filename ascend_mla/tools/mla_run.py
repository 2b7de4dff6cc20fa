"""mla-run: execute a function of an mla module on the selected backend (compiled, lowered to
aclnn kernel calls and run by the executor, like every program).

    mla-run FILE [--function NAME] [--inputs IN.npz | --seed N] [-o OUT.npz]
            [--pass-pipeline 'builtin.module(...)'] [--backend cpu|npu|auto]

Inputs come from an .npz (arrays in argument order, or named arg0, arg1, ...) or are seeded
random values of the argument types. Outputs are summarised on stdout and saved with -o.
"""
from __future__ import annotations

import argparse
import sys
import zipfile

import numpy as np

from ..compiler import CompileError, compile, find_function, state_arguments
from ..dialect.errors import VerificationError
from ..dialect.types import NUMPY_DTYPES, TypeDescriptionError, describe_type, numpy_dtype
from ..runtime.backend import set_backend
from ..runtime.formats import FRACTAL_NZ, NZTensor, c0_for, format_cast
from .mla_opt import check_pipeline


class UsageError(Exception):
    """A run that cannot start: its message is the reason (mla-run: error: ...)."""


def random_value(info, rng):
    if None in info.shape:
        raise UsageError(f"an argument of type {info} has a dynamic dimension: give its value "
                         f"with --inputs")
    dtype = numpy_dtype(info.dtype)
    if np.issubdtype(dtype, np.floating) or info.dtype == "bf16":
        value = (rng.standard_normal(info.shape) * 0.5).astype(dtype)
    elif info.dtype == "i1":
        value = rng.integers(0, 2, info.shape).astype(bool)
    else:
        value = rng.integers(0, 2, info.shape).astype(dtype)
    return value


def nz_input(value, info):
    """An NZ argument from an ND array. A rank-4 NZ type whose inner dims are (16, C0) is the
    storage form (W/C0, H/16, 16, C0) the prolog weights may use: the array already holds the
    physical fractal data of the (H, W) matrix."""
    if info.rank == 4 and info.shape[2] == 16 and info.shape[3] == c0_for(value.dtype):
        return NZTensor(value, (info.shape[1] * 16, info.shape[0] * info.shape[3]))
    if value.ndim < 2:
        raise UsageError(f"an argument of type {info}: FRACTAL_NZ needs a tensor of rank >= 2")
    return format_cast(value, FRACTAL_NZ)


def argument_infos(program, function):
    """The TensorInfo of each argument the caller gives (not the program's own state, mla.state);
    UsageError for one mla-run cannot make (not a tensor, an element type without a NumPy dtype)."""
    with program.context:
        fn = find_function(program.module, function)
        infos, states = [], state_arguments(fn)
        for i, arg in enumerate(fn.regions[0].blocks[0].arguments):
            if i in states:
                continue
            try:
                info = describe_type(arg.type)
            except TypeDescriptionError as e:
                raise UsageError(f"argument #{i}: {e} (mla-run passes tensors)") from None
            if info.dtype not in NUMPY_DTYPES:
                raise UsageError(f"argument #{i}: element type {info.dtype} has no NumPy "
                                 f"equivalent (supported: {', '.join(NUMPY_DTYPES)})")
            infos.append(info)
        return infos


def load_inputs(path, infos):
    try:
        data = np.load(path)
    except OSError:
        raise
    except (ValueError, EOFError, zipfile.BadZipFile) as e:
        raise UsageError(f"cannot read inputs from {path}: {e}") from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise UsageError(f"cannot read inputs from {path}: expected an .npz archive (np.savez)")
    names = [f"arg{i}" for i in range(len(infos))]
    keys = names if all(n in data.files for n in names) else data.files
    if len(keys) != len(infos):
        raise UsageError(f"{path} holds {len(keys)} arrays, the function takes {len(infos)}")
    try:
        return [as_argument_type(data[k], info, k) for k, info in zip(keys, infos)]
    except (ValueError, EOFError, zipfile.BadZipFile) as e:
        raise UsageError(f"cannot read inputs from {path}: {e}") from None


def as_argument_type(array, info, name):
    """An .npz array as the argument's element type. NumPy saves bfloat16 as raw 2-byte
    records (dtype V2): those are reinterpreted; other types must convert without loss."""
    dtype = numpy_dtype(info.dtype)
    if array.dtype == dtype:
        return array
    if array.dtype.kind == "V" and array.dtype.itemsize == dtype.itemsize:
        return array.view(dtype)
    if array.dtype.kind in "biuf" and np.can_cast(array.dtype, dtype, "same_kind"):
        return array.astype(dtype)
    raise UsageError(f"input {name} has element type {array.dtype}, the function takes {info.dtype}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="mla-run", description=__doc__.splitlines()[0])
    p.add_argument("input", help="the .mlir file")
    p.add_argument("--function", help="function to run (default: the first one)")
    p.add_argument("--inputs", help=".npz file with the inputs")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (without --inputs)")
    p.add_argument("-o", dest="output", help="save the outputs to this .npz")
    p.add_argument("--pass-pipeline", default="builtin.module(verify)")
    p.add_argument("--backend", default="auto", choices=("cpu", "npu", "auto"))
    args = p.parse_args(argv)
    try:
        if args.seed < 0:
            raise UsageError(f"--seed: expected a non-negative integer, got {args.seed}")
        check_pipeline(args.pass_pipeline)
        set_backend(args.backend)
        with open(args.input, "rb") as f:
            source = f.read()        # bytes: MLIR reports what is not UTF-8 where it is
        program = compile(source, pipeline=args.pass_pipeline, source_name=args.input)
        infos = argument_infos(program, args.function)
        values = (load_inputs(args.inputs, infos) if args.inputs
                  else [random_value(i, np.random.default_rng(args.seed + n)) for n, i in enumerate(infos)])
        values = [nz_input(v, info) if info.is_nz and not isinstance(v, NZTensor) else v
                  for v, info in zip(values, infos)]
        outputs = program(*values, function=args.function)
    except (UsageError, ValueError, CompileError, VerificationError, NotImplementedError,
            RuntimeError) as e:
        # ValueError: a pass pipeline MLIR cannot parse (check_pipeline).
        print(f"mla-run: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:         # the input files (an OSError without a file name is not ours to word)
        what = f"cannot read {e.filename}: {e.strerror}" if e.filename else str(e) or type(e).__name__
        print(f"mla-run: error: {what}", file=sys.stderr)
        return 1
    for i, out in enumerate(outputs):
        arr = out.to_nd() if isinstance(out, NZTensor) else np.asarray(out)
        f = arr.astype(np.float64)
        stats = f"min {f.min():.6g} max {f.max():.6g} mean {f.mean():.6g}" if arr.size else "empty"
        print(f"output {i}: {arr.shape} {arr.dtype}  {stats}")
    if args.output:
        try:          # a file object: np.savez would add .npz to a name without it
            with open(args.output, "wb") as f:
                np.savez(f, **{f"out{i}": (o.to_nd() if isinstance(o, NZTensor) else o)
                               for i, o in enumerate(outputs)})
        except OSError as e:
            print(f"mla-run: error: cannot write {args.output}: {e.strerror}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

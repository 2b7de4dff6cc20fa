"""Mutation fuzzer for mla-run: small programs of the lit tests (valid ones, which mla-opt
accepts), with their text edited, or run on broken input files (an array of another type or
shape, one too many or too few, a truncated archive, NaN and huge values, another file kind),
must give exit 0 or exit 1 with an error line; never a traceback, a signal or a hang."""
import random

import numpy as np
import pytest
from fuzzing import SEED, isolated_budgets, lit_chunks, mutate, run_cases, to_bytes, tool_verdict

from ascend_mla.tools import mla_run

MAX_ELEMENTS = 1 << 21       # keep the programs small: their random inputs are generated per case
_PROGRAMS = []


def programs() -> list[str]:
    """The valid lit programs whose inputs are small (their static shapes, summed)."""
    if not _PROGRAMS:
        import ascend_mla
        from ascend_mla.tools.mla_run import argument_infos
        for chunk in lit_chunks():
            if "expected-" in chunk:
                continue
            try:
                infos = argument_infos(ascend_mla.compile(chunk), None)
            except Exception:  # noqa: BLE001 - not a runnable program (mla-opt rejects it)
                continue
            if all(None not in i.shape for i in infos) and sum(i.numel for i in infos) <= MAX_ELEMENTS:
                _PROGRAMS.append(chunk)
    return _PROGRAMS


def broken_inputs(path, text, rng: random.Random, tmp_path) -> str:
    """An .npz for the program, made from its seeded random inputs and then broken."""
    import ascend_mla
    infos = mla_run.argument_infos(ascend_mla.compile(text), None)
    nprng = np.random.default_rng(rng.randrange(1 << 30))
    arrays = [mla_run.random_value(i, nprng) for i in infos]
    how = rng.choice(["dtype", "shape", "drop", "extra", "values", "truncate", "npy", "names"])
    if arrays and how in ("dtype", "shape", "values"):
        i = rng.randrange(len(arrays))
        a = arrays[i]
        if how == "dtype":
            arrays[i] = a.astype(rng.choice([np.float64, np.int64, np.complex64, np.bool_, np.uint16]))
        elif how == "shape":
            arrays[i] = np.zeros(a.shape[1:] if a.ndim else (2,), a.dtype)
        else:
            with np.errstate(all="ignore"):
                arrays[i] = np.full(a.shape, rng.choice([np.nan, np.inf, -1, 1e30, 2**40])).astype(a.dtype)
    elif how == "drop" and arrays:
        arrays.pop(rng.randrange(len(arrays)))
    elif how == "extra":
        arrays.append(np.ones(3, np.float32))
    target = tmp_path / "inputs.npz"
    if how == "npy":
        np.save(tmp_path / "inputs.npy", arrays[0] if arrays else np.ones(1))
        return str(tmp_path / "inputs.npy")
    if how == "names":
        np.savez(target, **{f"x{i}": a for i, a in enumerate(arrays)})
    else:
        np.savez(target, *arrays)
    if how == "truncate":
        data = target.read_bytes()
        target.write_bytes(data[:rng.randrange(len(data))])
    return str(target)


@pytest.mark.parametrize("cases,isolated", isolated_budgets(ci=12, large=300))
def test_mla_run_on_mutated_programs_and_inputs(cases, isolated, tmp_path):
    corpus = programs()
    assert corpus, "no small runnable program among the lit tests"
    rng = random.Random(SEED)

    def one_case(case, call):
        text = rng.choice(corpus)
        path = tmp_path / "case.mlir"
        argv = [str(path), "-o", str(tmp_path / "out.npz")]
        mode = rng.choice(["text", "inputs", "flags"])
        if mode == "text":
            text = mutate(text, rng, rng.randint(1, 2))
            argv += ["--seed", str(rng.randrange(100))]
        elif mode == "inputs":
            argv += ["--inputs", broken_inputs(path, text, rng, tmp_path)]
        else:
            argv += rng.choice([["--function", "nope"], ["--seed", str(2**70)],
                                ["--pass-pipeline", "builtin.module(canonicalize,cse)"],
                                ["--pass-pipeline", "builtin.module(func.func(canonicalize))"],
                                ["--backend", "cpu"]])
        path.write_bytes(to_bytes(text))
        status, _, err = call("fuzzing:tool_case", "mla_run", argv)
        problem = tool_verdict(status, err)
        return problem and f"({mode}, {argv[3:]}): {problem}\n--- program\n{text}\n--- stderr\n{err[-3000:]}"
    failures = run_cases(cases, one_case, isolated)
    print(f"mla-run fuzz: {cases} cases, {len(failures)} failures")
    assert not failures, f"{len(failures)} of {cases} cases failed; the first:\n" + failures[0]

"""Mutation fuzzer for mla-opt: lit-test IR, edited at random, must give exit 0, or exit 1
with an error diagnostic; never a traceback, a signal or a hang."""
import random

import pytest
from fuzzing import SEED, isolated_budgets, lit_chunks, mutate, run_cases, to_bytes, tool_verdict

FLAGS = [[], ["--verify-diagnostics"], ["--split-input-file"], ["--mlir-print-op-generic"],
         ["--pass-pipeline=builtin.module(verify)"], ["--canonicalize"], ["--cse"],
         ["--split-input-file", "--verify-diagnostics"]]


@pytest.mark.parametrize("cases,isolated", isolated_budgets(ci=120, large=5000))
def test_mla_opt_on_mutated_ir(cases, isolated, tmp_path):
    corpus = lit_chunks()
    rng = random.Random(SEED)

    def one_case(case, call):
        text = mutate(rng.choice(corpus), rng, rng.randint(1, 3))
        flags = rng.choice(FLAGS)
        path = tmp_path / "case.mlir"
        path.write_bytes(to_bytes(text))
        status, _, err = call("fuzzing:tool_case", "mla_opt", [str(path), *flags, "-o", str(tmp_path / "out.mlir")])
        problem = tool_verdict(status, err)
        return problem and f"(flags {flags}): {problem}\n--- input\n{text}\n--- stderr\n{err[-3000:]}"
    failures = run_cases(cases, one_case, isolated)
    print(f"mla-opt fuzz: {cases} cases, {len(failures)} failures")
    assert not failures, f"{len(failures)} of {cases} cases failed; the first:\n" + failures[0]

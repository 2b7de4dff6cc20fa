"""Fuzzers of what a user hands the whole-model API: broken checkpoints (checkpoint_cases.py:
config keys, the index's names, safetensors headers and offsets, file lengths, NaN data, FIFOs,
devices and links out of the directory) and odd arguments of generate / __call__ / `ascend-mla
generate` on a compiled model. Oracle: docs/guide.md "What is checked" and docs/errors.md.
The CI budgets run in this process; the large ones in child interpreters (fuzzing.Worker)."""
import random

import pytest
from fuzzing import SEED, isolated_budgets, run_cases


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    from checkpoint_cases import base_checkpoint
    return base_checkpoint(str(tmp_path_factory.mktemp("ckpt-fuzz")))


@pytest.mark.parametrize("cases,isolated", isolated_budgets(ci=30, large=1500))
def test_broken_checkpoints(cases, isolated, base, tmp_path):
    rng = random.Random(SEED + 11)

    def one_case(case, call):
        return call("checkpoint_cases:checkpoint_case", base, str(tmp_path / f"case{case % 4}" / "ckpt"),
                    rng.randrange(1 << 30))
    failures = run_cases(cases, one_case, isolated)
    print(f"checkpoint fuzz: {cases} cases, {len(failures)} failures")
    assert not failures, f"{len(failures)} of {cases} cases failed; the first:\n" + failures[0]


@pytest.mark.parametrize("cases,isolated", isolated_budgets(ci=20, large=800))
def test_generate_on_odd_arguments(cases, isolated, base):
    rng = random.Random(SEED + 12)

    def one_case(case, call):
        return call("checkpoint_cases:generate_case", base, rng.randrange(1 << 30))
    failures = run_cases(cases, one_case, isolated)
    print(f"generate-arguments fuzz: {cases} cases, {len(failures)} failures")
    assert not failures, f"{len(failures)} of {cases} cases failed; the first:\n" + failures[0]


@pytest.mark.parametrize("cases,isolated", isolated_budgets(ci=6, large=300))
def test_generate_cli_on_odd_arguments(cases, isolated, base):
    rng = random.Random(SEED + 13)

    def one_case(case, call):
        return call("checkpoint_cases:cli_case", base, rng.randrange(1 << 30))
    failures = run_cases(cases, one_case, isolated)
    print(f"ascend-mla generate fuzz: {cases} cases, {len(failures)} failures")
    assert not failures, f"{len(failures)} of {cases} cases failed; the first:\n" + failures[0]

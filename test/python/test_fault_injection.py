"""A call that fails changes no caller buffer (docs/errors.md).

The prolog kernel computes every result before its first write into a cache, and puts a cache
back should the other one's write fail. Shown here by injecting a failure into each stage of the
kernel in turn (every call of it: the stages that run twice fail on either run), on the eager and
the compiled path, in the bf16, partial- and full-quant scenarios and both cache modes; the
caches must come out bit-identical. For a compiled program, a bad input that an op far down the
program reads (a block table) stops it before the first op writes anything.
"""
from pathlib import Path

import numpy as np
import pytest
from test_prolog_eager import REQUIRED, cache_copies, make_args, run, weights  # noqa: F401 (fixture)

import ascend_mla
from ascend_mla import VerificationError
from ascend_mla.runtime.kernels import common
from ascend_mla.runtime.kernels import prolog as prolog_kernel

# The stages of runtime/kernels/prolog.py's mla_prolog_v2, in the order it runs them, and the
# write itself (common._paged_rows indexes each cache just before it is written).
STAGES = [(prolog_kernel, name) for name in (
    "_check_cache_index", "_down_projection", "rms_norm", "_up_projection", "bf16",
    "head_matmul_bf16", "rope_deinterleaved", "_dynamic_quant_query", "_cache_writes",
    "last_writers", "saturate_int8")] + [(common, "_paged_rows")]


class InjectedFault(Exception):
    pass


def failing_on_call(function, n):
    calls = []

    def wrapper(*args, **kwargs):
        calls.append(1)
        if len(calls) == n:
            raise InjectedFault(f"{function.__name__}, call {n}")
        return function(*args, **kwargs)
    return wrapper


def inject_everywhere(monkeypatch, call, caches):
    """Fail each stage on each of its calls; every time, the caches must be as before. Returns
    how many failures were injected."""
    injected = 0
    for module, name in STAGES:
        original = getattr(module, name)
        n = 1
        while True:
            before = {k: v.copy() for k, v in caches().items()}
            monkeypatch.setattr(module, name, failing_on_call(original, n))
            try:
                call()
            except InjectedFault:
                injected += 1
                for k, v in caches().items():
                    assert v.tobytes() == before[k].tobytes(), f"{k} changed when {name} failed (call {n})"
                n += 1
                continue
            finally:
                monkeypatch.setattr(module, name, original)
            break                       # the stage ran fewer than n times: all covered
    return injected


@pytest.mark.parametrize("scenario,cache_mode", [
    ("NQ", "PA_BSND"), ("FQ-KVQ", "PA_NZ"),    # bf16; int8 kv cache, query quant, NZ scatter
    pytest.param("NQ", "PA_NZ", marks=pytest.mark.slow),
    pytest.param("PQ-KVQ", "PA_BSND", marks=pytest.mark.slow)])
def test_eager_prolog_failing_at_any_stage_leaves_the_caches(weights, monkeypatch, scenario, cache_mode):  # noqa: F811
    args = make_args(weights, scenario, tokens=(3,))
    args["cache_mode"] = cache_mode
    pristine = cache_copies(args)
    injected = inject_everywhere(monkeypatch, lambda: run("v2", args),
                                 lambda: {k: args[k] for k in ("kv_cache", "kr_cache")})
    assert injected >= 12
    # Between the faults, the calls that ran to the end did write (so the comparisons above
    # were between caches a call writes, not between untouched ones).
    assert args["kv_cache"].tobytes() != pristine["kv_cache"].tobytes()


CHAIN = (Path(__file__).parents[1] / "lit" / "dialect" / "mla-chain.mlir").read_text().split("// -----")[0]


def chain_inputs(weights, block_table):  # noqa: F811
    args = make_args(weights, "NQ", tokens=(2, 1))
    args["cache_index"] = np.array([[3], [24]], np.int64)
    inputs = [args[name] for name in REQUIRED]
    return inputs + [np.asarray(block_table, np.int32)]


def test_compiled_prolog_failing_at_any_stage_leaves_the_caches(weights, monkeypatch):  # noqa: F811
    program = ascend_mla.compile(CHAIN)
    inputs = chain_inputs(weights, [[2, 0], [1, 3]])
    caches = lambda: {"kv_cache": inputs[10], "kr_cache": inputs[11]}   # noqa: E731
    assert inject_everywhere(monkeypatch, lambda: program(*inputs), caches) >= 12


def test_a_bad_block_table_stops_the_program_before_the_prolog_writes(weights):  # noqa: F811
    # Block 7 does not exist (4 blocks), and batch 1 reads it (its 9 positions are in its first
    # block): FIA-180 is a rule of the second op, on a program input.
    program = ascend_mla.compile(CHAIN)
    inputs = chain_inputs(weights, [[2, 0], [7, 3]])
    before = {i: inputs[i].copy() for i in (10, 11)}
    with pytest.raises(VerificationError, match=r"block_table: .*\[FIA-180\]"):
        program(*inputs)
    for i, old in before.items():
        assert inputs[i].tobytes() == old.tobytes()


def test_a_read_only_cache_is_rejected_before_either_cache_is_written(weights):  # noqa: F811
    args = make_args(weights, "NQ", tokens=(3,))
    args["kr_cache"].setflags(write=False)
    before = cache_copies(args)
    with pytest.raises(VerificationError, match=r"kr_cache: expected a writeable array.*\[MLA-X02\]"):
        run("v2", args)
    assert args["kv_cache"].tobytes() == before["kv_cache"].tobytes()



def test_runtime_rules_hold_while_their_values_are_unknown():
    """A compiled program runs every op's runtime rules before the first kernel, when the operands
    other ops produce do not exist yet (runtime/checks.py's UNKNOWN): each rule must hold
    (not fail, not raise) while a value it reads is unknown, for every op of the lit tests."""
    from mlir import ir

    from ascend_mla.dialect.dialect import make_context, opdef_of
    from ascend_mla.runtime.checks import UNKNOWN as _UNKNOWN
    lit = Path(__file__).parents[1] / "lit" / "dialect"
    checked = 0
    for path in sorted(lit.glob("*.mlir")):
        if "invalid" in path.name:
            continue
        for chunk in path.read_text().split("// -----"):
            with make_context():
                module = ir.Module.parse(chunk)
                for fn in module.body.operations:
                    if fn.operation.name != "func.func":
                        continue
                    for op in fn.regions[0].blocks[0].operations:
                        opdef = opdef_of(op)
                        if opdef is None:
                            continue
                        unknown = {spec.name: [_UNKNOWN] * len(values) if spec.kind == "variadic" else _UNKNOWN
                                   for spec, values in zip(opdef.operands, opdef.operand_groups(op)) if values}
                        assert opdef.check(opdef.snapshot(op).with_values(unknown), phase="runtime").ok, op
                        checked += 1
    assert checked > 50

"""Fuzzers of the surfaces beyond the tools and the eager calls: compile() and the programs it
makes (mutated lit IR, then odd inputs), deepseek.build (odd arguments), the PyTorch frontend
(small modules), the NPU loader (broken CANN installs), mla-translate (mutated lowered IR) and
one program called from several threads. The cases are in surface_cases.py; the large budgets
run them in child processes (fuzzing.Worker). Oracles: docs/errors.md.
"""
import random

import pytest
from fuzzing import SEED, isolated_budgets, lit_chunks, mutate, run_cases, to_bytes, tool_verdict

_CHUNKS, _PROGRAMS, _LOWERED = [], [], []


def chunks():
    if not _CHUNKS:
        _CHUNKS.extend(c for c in lit_chunks() if "expected-" not in c)
    return _CHUNKS


def programs():
    """The lit programs compile() accepts (the starting points of the mutations)."""
    if not _PROGRAMS:
        import ascend_mla
        for chunk in chunks():
            try:
                ascend_mla.compile(chunk, target="cpu")
            except Exception:  # noqa: BLE001 - not a program
                continue
            _PROGRAMS.append(chunk)
    return _PROGRAMS


def lowered():
    if not _LOWERED:
        from surface_cases import lowered_corpus
        _LOWERED.extend(lowered_corpus(programs()))
    return _LOWERED


@pytest.mark.parametrize("cases,isolated", isolated_budgets(ci=15, large=1500))
def test_compile_and_programs_on_mutated_ir_and_odd_inputs(cases, isolated):
    rng = random.Random(SEED + 1)
    corpus = programs() + chunks()

    def one_case(case, call):
        text = rng.choice(corpus)
        if rng.random() < 0.8:
            text = mutate(text, rng, rng.randint(1, 3))
        problem = call("surface_cases:compile_case", text, rng.randrange(1 << 30))
        return problem and f"{problem}\n--- input\n{text}"
    failures = run_cases(cases, one_case, isolated)
    print(f"compile()/program fuzz: {cases} cases, {len(failures)} failures")
    assert not failures, f"{len(failures)} of {cases} cases failed; the first:\n" + failures[0]


@pytest.mark.parametrize("cases,isolated", isolated_budgets(ci=40, large=2000))
def test_deepseek_build_on_odd_arguments(cases, isolated):
    from ascend_mla.models.deepseek import CONFIGS
    rng = random.Random(SEED + 2)
    odd = [None, True, -1, 0, 1, 2, 3, 7, 16, 17, 128, 513, 2 ** 31, 2 ** 63, 1.5, "1", float("nan"), [1], {}]
    v3 = CONFIGS["deepseek-v3"]
    choices = dict(
        tp=odd, layers=odd, batch=odd, seq=odd, block_size=odd, seed=odd, max_positions=odd,
        quant=["bf16", "w8a8", "w8a8c8", "int4", None, 1], cache_mode=["PA_NZ", "PA_BSND", "x", None],
        rope=["half", "interleave", None, 3], name=["deepseek-v3", "deepseek-v2-lite", None, 3, "nope"],
        config=[None, {}, "x", [1], {"hidden_size": 7168}] + [
            dict(v3, **{key: value}) for key in ("hidden_size", "num_attention_heads", "kv_lora_rank",
                                                  "q_lora_rank", "rms_norm_eps", "max_position_embeddings",
                                                  "qk_rope_head_dim")
            for value in (0, -1, 1.5, "a", None, 2 ** 40)])

    def one_case(case, call):
        arguments = {k: rng.choice(v) for k, v in rng.sample(sorted(choices.items()), rng.randint(1, 3))}
        problem = call("surface_cases:build_case", dict(arguments))
        return problem and f"deepseek.build({arguments!r:.500}): {problem}"
    failures = run_cases(cases, one_case, isolated)
    print(f"deepseek.build fuzz: {cases} cases, {len(failures)} failures")
    assert not failures, f"{len(failures)} of {cases} cases failed; the first:\n" + failures[0]


@pytest.mark.parametrize("cases,isolated", isolated_budgets(ci=4, large=120))
def test_npu_loader_on_broken_installs(cases, isolated, tmp_path):
    """Always in a child for the large budget: dlopen of a truncated library is the C loader's
    business."""
    from surface_cases import LIBRARY_KINDS
    rng = random.Random(SEED + 3)
    devices = ["0", "abc", "-1", "99999999999999999999", " 1", "", "1.5", "\u0661"]

    def one_case(case, call):
        kind = LIBRARY_KINDS[case % len(LIBRARY_KINDS)] if case < len(LIBRARY_KINDS) else rng.choice(LIBRARY_KINDS)
        root = tmp_path / f"cann{case}"
        env = {"ASCEND_HOME_PATH": str(root), "ASCEND_MLA_DEVICE": rng.choice(devices)}
        if rng.random() < 0.2:
            env["ASCEND_TOOLKIT_HOME"] = "/" + "x" * rng.choice([255, 256, 5000])
        if rng.random() < 0.2:
            env["LD_LIBRARY_PATH"] = rng.choice([":::", "/nonexistent", str(root / "lib64") + ":/" + "y" * 4097])
        problem = call("surface_cases:loader_case", str(root), kind, rng.randrange(1 << 30), env)
        return problem and f"{kind} libraries, {env}: {problem}"
    failures = run_cases(cases, one_case, isolated)
    print(f"NPU loader fuzz: {cases} cases, {len(failures)} failures")
    assert not failures, f"{len(failures)} of {cases} cases failed; the first:\n" + failures[0]


@pytest.mark.parametrize("cases,isolated", isolated_budgets(ci=15, large=1500))
def test_mla_translate_on_mutated_lowered_ir(cases, isolated, tmp_path):
    corpus = lowered()
    assert corpus
    rng = random.Random(SEED + 4)

    def one_case(case, call):
        text = mutate(rng.choice(corpus), rng, rng.randint(0, 3))
        path = tmp_path / "case.mlir"
        path.write_bytes(to_bytes(text))
        status, _, err = call("fuzzing:tool_case", "mla_translate",
                              ["--emit-cpp", str(path), "-o", str(tmp_path / "out.cpp")])
        problem = tool_verdict(status, err)
        return problem and f"{problem}\n--- input\n{text}\n--- stderr\n{err[-3000:]}"
    failures = run_cases(cases, one_case, isolated)
    print(f"mla-translate fuzz: {cases} cases, {len(failures)} failures")
    assert not failures, f"{len(failures)} of {cases} cases failed; the first:\n" + failures[0]


@pytest.mark.parametrize("cases,isolated", isolated_budgets(ci=3, large=150))
def test_programs_called_from_three_threads(cases, isolated):
    rng = random.Random(SEED + 5)

    def one_case(case, call):
        text = rng.choice(programs())
        problem = call("surface_cases:threads_case", text, rng.randrange(1 << 30))
        return problem and f"{problem}\n--- program\n{text}"
    failures = run_cases(cases, one_case, isolated)
    print(f"threads fuzz: {cases} cases, {len(failures)} failures")
    assert not failures, f"{len(failures)} of {cases} cases failed; the first:\n" + failures[0]


@pytest.mark.parametrize("cases,isolated", isolated_budgets(ci=2, large=60))
def test_frontend_on_small_modules(cases, isolated):
    pytest.importorskip("torch")
    rng = random.Random(SEED + 6)

    def one_case(case, call):
        ops = [rng.choice(FRONTEND_OPS) for _ in range(rng.randint(1, 3))]
        dtype = rng.choice(["float32", "bfloat16", "int64", "float16", "bool"])
        shape = rng.choice([[2, 8], [1, 4, 16], [3], [0, 4]])
        problem = call("test_fuzz_surfaces:frontend_case", ops, dtype, shape)
        return problem and f"ops {ops} on {dtype}{shape}: {problem}"
    failures = run_cases(cases, one_case, isolated)
    print(f"frontend fuzz: {cases} cases, {len(failures)} failures")
    assert not failures, f"{len(failures)} of {cases} cases failed; the first:\n" + failures[0]


FRONTEND_OPS = ["x + 1", "x * 2.5", "x - x", "x / 3", "torch.rsqrt(x * x + 1)", "x.mean(-1, keepdim=True) + x",
                "x.transpose(0, -1)", "x.reshape(-1)", "x @ x.transpose(-1, -2)", "torch.softmax(x, -1)",
                "x[..., :1]", "x.to(torch.float32)", "x.sum()", "None", "1", "(x, x)", "x.float().sum(-1)"]


def frontend_case(ops, dtype, shape):
    """A module applying `ops` in turn, compiled by the frontend and run: the result, or a
    documented error."""
    import torch
    from surface_cases import _verdict

    import ascend_mla.frontend.torch as frontend

    class Module(torch.nn.Module):
        def forward(self, x):
            for op in ops:
                x = eval(op, {"torch": torch, "x": x})      # noqa: S307 - the fuzzer's own strings
            return x
    x = torch.ones(shape, dtype=getattr(torch, dtype))
    try:
        Module()(x)
    except Exception:  # noqa: BLE001 - the module itself fails in PyTorch: nothing to compile
        return None
    try:
        program = frontend.compile_module(Module(), (x,))
        program(x)
    except BaseException as e:  # noqa: BLE001
        if type(e).__module__.startswith("torch"):
            return None           # torch.export's own refusal of the module
        return _verdict(e)
    return None

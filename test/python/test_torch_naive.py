"""The naive Hugging Face MLA form (TorchMLANaive: k_nope and v per token from kv_b_proj, a
static per-head K/V cache the module owns) through the PyTorch frontend: absorb-kv rewrites it
to the absorbed form over latent caches the program owns, which fuse-prolog and fuse-attention
fuse like TorchMLA; the compiled program against the eager naive module over decode and
multi-token steps; the refusal when the caches are the caller's."""
import pytest

torch = pytest.importorskip("torch")

from test_deepseek_models import op_counts as counts  # noqa: E402

from ascend_mla.frontend import torch as frontend  # noqa: E402
from ascend_mla.models import deepseek  # noqa: E402
from ascend_mla.models.torch_mla import cache_tensors, torch_inputs  # noqa: E402

# Output tolerance, relative to max |eager - input| (the attention's contribution), as for
# TorchMLA (test_torch_frontend.py): bf16 rounding at other points, through a dozen bf16 stages.
# The absorbed order adds rounding points of its own: the module rounds k_nope = W_uk c_kv and
# v = W_uv c_kv to bf16 and the attention output P.V, the program rounds q_nope W_uk, P c_kv and
# then (P c_kv) W_uv instead. Each is one bf16 rounding (2^-9 relative) of a different product;
# measured 0.7-1.3% of max|attention| over decode and multi-token steps. A wrong head, slot,
# W_uk/W_uv slice or rotation errs by order 1.
TOLERANCE = 2.0 ** -5
# The latent caches against the eager K/V cache they replace: k_nope rebuilt as W_uk c_kv and the
# rope rows, each element within 2^-5 of its row's largest (c_kv is RmsNorm'd once in the fused
# prolog where the module rounds twice, and W_uk c_kv is rounded here in float32 -> bf16 once).
CACHE_TOLERANCE = 2.0 ** -5


def naive(model=None, *, layers=1, seq=1):
    """A built model (DeepSeek-V3 tp=16: N = 8, batch 2) and two naive modules with its weights."""
    model = model or deepseek.build("deepseek-v3", tp=16, layers=layers, batch=2, seq=seq, block_size=16)
    make = lambda: deepseek.TorchMLANaive(model.config).load_weights(model.weights)   # noqa: E731
    return model, make(), make()


@pytest.fixture(scope="module")
def decode():
    """One layer, decode: the model, eager module, compiled module, program."""
    model, eager, compiled = naive()
    return model, eager, compiled, frontend.compile_module(compiled, compiled.inputs(model, 0))


def run_both(model, eager, program, compiled, steps, caches=None):
    """The eager module and the program side by side; returns the per-step relative errors."""
    errors = []
    for step in range(steps):
        inputs = eager.inputs(model, step)
        extra = () if caches is None else (caches[0],)
        with torch.no_grad():
            expected = eager(*inputs, *extra)
        got = program(*inputs, *(() if caches is None else (caches[1],)))
        scale = (expected.float() - inputs[0].float()).abs().max().item()
        error = (got.float() - expected.float()).abs().max().item() / scale
        assert got.dtype == torch.bfloat16 and got.shape == expected.shape
        assert error < TOLERANCE, f"step {step}: error {error:.2e} of max|attention| > {TOLERANCE:.2e}"
        errors.append(error)
    return errors


def test_naive_module_equals_the_absorbed_module_eagerly(decode):
    """TorchMLANaive and TorchMLA are the same attention (absorbed = naive by associativity):
    with the same weights their eager outputs agree to bf16 rounding over decode steps."""
    model, eager, _, _ = decode
    eager.reset()
    absorbed = deepseek.TorchMLA(model.config).load_weights(model.weights)
    caches = cache_tensors(model)
    for step in range(3):
        with torch.no_grad():
            a = absorbed(*torch_inputs(model, step, caches))
            inputs = eager.inputs(model, step)
            b = eager(*inputs)
        scale = (a.float() - inputs[0].float()).abs().max().item()
        assert (a.float() - b.float()).abs().max().item() / scale < TOLERANCE


def test_naive_module_is_rewritten_and_fused(decode):
    model, _, compiled, program = decode
    report = program.report()
    (rewrite,) = report["rewritten"]
    assert rewrite["pass"] == "absorb-kv" and "no longer written" in rewrite["detail"]
    assert "model.layers.0.self_attn.k_cache" in rewrite["detail"]
    assert [f["op"] for f in report["fused"]] == ["mla.prolog_v2", "mla.fused_infer_attention_score"]
    assert report["refused"] == []
    assert "rewritten (1):" in str(report)
    # as TorchMLA's program: the input RmsNorm, W_uv, o_proj, the residual, two table lookups
    assert counts(program.ir) == {"prolog_v2": 1, "fused_infer_attention_score": 1, "rms_norm": 1,
                                  "head_matmul": 1, "matmul": 1, "add": 1, "gather": 2}, counts(program.ir)
    # the latent caches are the program's, not the caller's: identity paging, BlockSize 16
    states = program.states()
    assert {k: tuple(v.shape) for k, v in states.items()} == {
        "model.layers.0.self_attn.kv_latent": (4, 16, 1, 512), "model.layers.0.self_attn.kr_latent": (4, 16, 1, 64)}
    assert not set(states) & set(program.input_names())
    # the block table is a global (its bytes uploaded once), so the host program can be written
    assert "arith.constant dense<[[" not in program.ir
    from ascend_mla.lowering.emit_cpp import emit_cpp
    assert "kv_latent" in emit_cpp(program.module)


def test_compiled_naive_equals_eager_over_decode_steps(decode):
    model, eager, compiled, program = decode
    eager.reset()
    for state in program.states().values():
        state[...] = 0
    run_both(model, eager, program, compiled, 3)
    attention = compiled.model.layers[0].self_attn
    assert not attention.k_cache.any() and not attention.v_cache.any(), "the module's K/V buffers were written"
    # the latent caches hold what the eager K cache holds, in latent form
    states = program.states()
    rows = model.config["batch"] * eager.max_len
    latent = torch.from_numpy(states["model.layers.0.self_attn.kv_latent"].astype("float32")).reshape(rows, 512)
    rope = torch.from_numpy(states["model.layers.0.self_attn.kr_latent"].astype("float32")).reshape(rows, 64)
    k_cache = eager.model.layers[0].self_attn.k_cache.float().reshape(rows, 8, 192)
    w_kvb = eager.model.layers[0].self_attn.kv_b_proj.weight.float().view(8, 256, 512)
    k_nope = torch.einsum("rc,hdc->rhd", latent, w_kvb[:, :128]).to(torch.bfloat16).float()
    for got, want in ((k_nope, k_cache[..., :128]), (rope[:, None, :].expand(rows, 8, 64), k_cache[..., 128:])):
        bound = CACHE_TOLERANCE * want.abs().amax(-1, keepdim=True)
        assert bool(((got - want).abs() <= bound).all())
    written = k_cache.abs().amax((1, 2)) > 0
    assert written.sum().item() == 2 * 3 and bool((latent[~written] == 0).all())


def test_compiled_naive_equals_eager_over_multi_token_steps():
    """Two layers, two tokens a step (causal within the step: FIA sparse_mode 3)."""
    model, eager, compiled = naive(layers=2, seq=2)
    program = frontend.compile_module(compiled, compiled.inputs(model, 0))
    assert len(program.report()["rewritten"]) == 2
    assert [f["op"] for f in program.report()["fused"]] == \
        ["mla.prolog_v2"] * 2 + ["mla.fused_infer_attention_score"] * 2
    assert "sparse_mode = 3" in program.ir
    run_both(model, eager, program, compiled, 3)


def test_caller_owned_caches_are_not_absorbed(decode):
    """Caches passed in by the caller (HF's past_key_value) are inputs of the program: absorb-kv
    refuses, naming the cache and the rule, and the naive program still equals eager."""
    model, eager, compiled = naive(decode[0])
    buffers = [t for layer in eager.model.layers for t in (layer.self_attn.k_cache, layer.self_attn.v_cache)]
    eager_caches, compiled_caches = [t.clone() for t in buffers], [t.clone() for t in buffers]
    program = frontend.compile_module(compiled, compiled.inputs(model, 0) + (compiled_caches,))
    report = program.report()
    assert report["rewritten"] == [] and program.states() == {}
    (refusal,) = [r for r in report["refused"] if r["pattern"] == "naive MLA attention"]
    assert "[ABSORB-001]" in refusal["reason"] and '"caches_0"' in refusal["reason"]
    run_both(model, eager, program, compiled, 2, caches=(eager_caches, compiled_caches))
    for a, b in zip(eager_caches, compiled_caches):       # the caller's caches, written as eagerly
        a, b = a.float(), b.float()
        assert bool((a != 0).any()) and bool(((a - b).abs() <= CACHE_TOLERANCE * a.abs().amax(-1, keepdim=True)).all())


def test_rows_at_different_lengths(decode):
    """Per-batch kv lengths: row 1 runs three positions ahead of row 0 (its first rows unwritten,
    zeros, read by both); the identity paging puts each row's tokens in its own blocks."""
    model, eager, compiled, program = decode
    eager.reset()
    for state in program.states().values():
        state[...] = 0
    for step in range(3):
        hidden = eager.inputs(model, step)[0]
        positions = torch.tensor([[step], [step + 3]])
        inputs = (hidden, positions, eager.cache_rows(positions), positions[:, 0] + 1)
        with torch.no_grad():
            expected = eager(*inputs)
        got = program(*inputs)
        scale = (expected.float() - hidden.float()).abs().max().item()
        assert (got.float() - expected.float()).abs().max().item() / scale < TOLERANCE
    kv = program.states()["model.layers.0.self_attn.kv_latent"].astype("float32").reshape(2, 32, 512)
    written = [[int(i) for i in (abs(kv[b]).max(-1) > 0).nonzero()[0]] for b in range(2)]
    assert written == [[0, 1, 2], [3, 4, 5]]


def test_expand_that_adds_axes_names_the_op_and_the_line():
    class Broadcast(torch.nn.Module):
        def forward(self, x):
            return x.expand(2, 3, 4) * 2
    with pytest.raises(frontend.UnsupportedOperatorError, match=r"aten.expand is not supported: an expand that adds "
                                                                 r"axes .* at .*test_torch_naive.py:\d+"):
        frontend.compile_module(Broadcast(), (torch.ones(3, 4, dtype=torch.bfloat16),))


def test_module_caches_filled_before_compiling_are_refused():
    """The latent caches start at zeros: a module whose K/V buffers already hold tokens (eager
    steps before compile_module) would be compiled into a program that does not see them (62%
    of max|attention| off at the next step). compile_module refuses, naming the buffer."""
    model, _, compiled = naive()
    with torch.no_grad():
        compiled(*compiled.inputs(model, 0))
    before = compiled.model.layers[0].self_attn.k_cache.clone()
    with pytest.raises(frontend.CompileError, match=r"model\.layers\.0\.self_attn\.k_cache: holds values .* "
                                                    r"\[ABSORB-003\]"):
        frontend.compile_module(compiled, compiled.inputs(model, 1))
    assert torch.equal(compiled.model.layers[0].self_attn.k_cache, before)
    compiled.reset()                        # emptied: it compiles (the absorbed program)
    program = frontend.compile_module(compiled, compiled.inputs(model, 0))
    assert program.report()["rewritten"][0]["replaces"] == ["model.layers.0.self_attn.k_cache",
                                                            "model.layers.0.self_attn.v_cache"]


def test_a_w8a8_config_is_refused_by_name():
    """The naive form is bf16: a w8a8 model's config is refused at construction, not by a dtype
    mismatch inside kv_b_proj at the first call."""
    model = deepseek.build("deepseek-v3", tp=16, layers=1, batch=2, seq=1, block_size=16, quant="w8a8")
    with pytest.raises(ValueError, match=r"config: quant 'w8a8': the naive form is bf16"):
        deepseek.TorchMLANaive(model.config)

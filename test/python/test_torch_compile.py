"""transformers' own DeepSeek-V3 through torch.compile(backend=AscendBackend()) (docs/api.md 10), and
compile_module on its attention module with a StaticCache (docs/api.md 8).

The model is DeepseekV3ForCausalLM as transformers writes it, at the fused ops' dimensions (He 7168,
Hcq 1536, Hckv 512, D 128, Dr 64) with few heads, two layers (a dense MLP, then a MoE), a small
vocabulary and random weights, in bf16. The reference is eager transformers in the same process.
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from ascend_mla.frontend.torch import AscendBackend, compile_module, mask_lengths  # noqa: E402

PROMPT = [[3, 17, 42, 7, 99]]
NEW = 4


def tiny_config(layers=2, heads=2, **dims):
    """The fused ops' dimensions unless `dims` say otherwise."""
    dims = {"hidden_size": 7168, "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_rope_head_dim": 64,
            "v_head_dim": 128, "qk_nope_head_dim": 128} | dims
    return transformers.DeepseekV3Config(
        vocab_size=128, intermediate_size=64, moe_intermediate_size=32, num_hidden_layers=layers,
        num_attention_heads=heads, num_key_value_heads=heads, n_shared_experts=1, n_routed_experts=4,
        routed_scaling_factor=1.0, n_group=1, topk_group=1, num_experts_per_tok=2, first_k_dense_replace=1,
        max_position_embeddings=256, **dims)


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(1)           # a seed whose reference has clear top-2 margins at every step
    m = transformers.DeepseekV3ForCausalLM(tiny_config()).to(torch.bfloat16).eval()
    # Random init gives logits within a few bf16 ulps of each other; a larger lm_head spreads
    # them so the greedy choice is decided by the model, not by rounding (margins checked below).
    with torch.no_grad():
        m.lm_head.weight.mul_(64)
    return m


def generate(model, forward=None, **kwargs):
    original = model.forward
    if forward is not None:
        model.forward = forward
    try:
        with torch.no_grad():
            return model.generate(torch.tensor(PROMPT), max_new_tokens=NEW, do_sample=False,
                                  return_dict_in_generate=True, output_logits=True, **kwargs)
    finally:
        model.forward = original


@pytest.fixture(scope="module")
def static_runs(model):
    # a cache of 32 positions: BlockSize 16 pages (the fused ops take 16 or 128)
    eager = generate(model, cache_implementation="static", max_cache_len=32)
    backend = AscendBackend()
    compiled = generate(model, torch.compile(model.forward, backend=backend), cache_implementation="static",
                        max_cache_len=32)
    return eager, compiled, backend


def assert_same_greedy(eager, compiled, bound):
    """The compiled tokens are eager's at every step whose reference top-2 margin exceeds
    `bound` (twice the logits' error bound: a smaller margin may be decided by rounding, and the
    steps after it continue from another token); the first step must be clear."""
    clear = 0
    for step in eager.logits:
        top = step.float().topk(2, dim=-1).values
        if (top[..., 0] - top[..., 1]).min().item() <= bound:
            break
        clear += 1
    assert clear >= 1, "the reference's first step is a near tie: choose another seed"
    start = len(PROMPT[0])
    assert compiled.sequences[:, :start + clear].tolist() == eager.sequences[:, :start + clear].tolist()


def test_static_cache_greedy_tokens(static_runs):
    eager, compiled, _ = static_runs
    scale = max(step.float().abs().max().item() for step in eager.logits)
    # the logits' error bound of test_static_cache_logits (measured 2^-6.5 of the largest logit)
    assert_same_greedy(eager, compiled, 2 * scale * 2 ** -6)
    assert compiled.sequences.tolist() == eager.sequences.tolist()      # all steps are clear here


def test_static_cache_logits(static_runs):
    eager, compiled, _ = static_runs
    for step, (a, b) in enumerate(zip(eager.logits, compiled.logits)):
        scale = a.float().abs().max().item()
        error = (a.float() - b.float()).abs().max().item()
        # The compiled attention rounds at other points (absorbed order q_nope W_uk and P c_kv,
        # one rounding per raised RmsNorm/RoPE) and the CPU kernels accumulate in another
        # order: bf16 keeps 8 bits, so each layer moves the logits by an ulp or two of their
        # largest (measured over these steps: 4.0 at 374, 2^-6.5); 2^-6 of the largest logit
        # bounds it, the margin check above relies on that bound.
        assert error <= scale * 2 ** -6, (step, error, scale)


def test_static_cache_fuses_every_layer(static_runs):
    _, _, backend = static_runs
    # one graph for the prefill, one for every decode step (the static cache keeps shapes)
    assert len(backend.reports) == 2
    decode = backend.reports[1]
    ops = [f["op"] for f in decode["fused"]]
    layers = tiny_config().num_hidden_layers
    assert ops.count("mla.prolog_v2") == layers, str(decode)
    assert ops.count("mla.fused_infer_attention_score") == layers, str(decode)
    assert sum(r["pass"] == "absorb-latent-kv" for r in decode["rewritten"]) == layers
    kinds = {p["kind"] for p in decode["partitions"]}
    assert kinds == {"mla", "pytorch"}              # the MLP's silu, the router, the experts stay
    assert any("silu" in p["reason"] for p in decode["partitions"] if p["kind"] == "pytorch")
    assert backend.fallbacks == 0


def test_dynamic_cache_same_tokens():
    # Nothing fuses over a DynamicCache (below), so small dimensions test the same: that every
    # graph still runs, as partitions, and gives eager transformers' tokens.
    torch.manual_seed(3)           # a seed whose reference has clear margins (seed 0 starts with a tie)
    model = transformers.DeepseekV3ForCausalLM(tiny_config(
        hidden_size=64, kv_lora_rank=32, q_lora_rank=48, qk_rope_head_dim=16, v_head_dim=16,
        qk_nope_head_dim=16)).to(torch.bfloat16).eval()
    with torch.no_grad():
        model.lm_head.weight.mul_(64)
    eager = generate(model)
    backend = AscendBackend()
    compiled = generate(model, torch.compile(model.forward, backend=backend))
    # What runs as PyTorch computes eager's bits; the programs (norms, projections, attention)
    # round once where eager rounds twice: measured 2^-7.7 of the largest logit (one bf16 ulp);
    # 2^-6 bounds it with room, and a top-2 margin above twice that decides the same token.
    scale = max(step.float().abs().max().item() for step in eager.logits)
    assert_same_greedy(eager, compiled, 2 * scale * 2 ** -6)
    assert compiled.sequences.tolist() == eager.sequences.tolist()      # all steps are clear here
    assert backend.reports
    reasons = [p["reason"] for r in backend.reports for p in r["partitions"] if p["kind"] == "pytorch"]
    assert reasons, "a DynamicCache graph has PyTorch partitions"
    # the growing cache is torch.cat: no converter keeps it in a program, so no attention fuses over it
    assert not any(f["op"] == "mla.prolog_v2" for r in backend.reports for f in r["fused"])


def test_mask_lengths():
    s, length = 2, 8
    lengths = torch.tensor([5, 8])
    rows = torch.arange(length)[None, None, :] < (lengths[:, None, None] - s + 1 + torch.arange(s)[None, :, None])
    mask = rows[:, None]
    assert mask_lengths(mask).tolist() == [5, 8]
    padded = mask.clone()
    padded[0, 0, :, 0] = False                       # left padding: a cached key hidden
    assert mask_lengths(padded) is None
    assert mask_lengths(mask[:1], 3).tolist() == [5, 5, 5]


def test_compile_module_attention_with_static_cache(model):
    from transformers import StaticCache
    config = model.config
    attention = model.model.layers[0].self_attn
    rotary = model.model.rotary_emb
    cache = StaticCache(config=config, max_cache_len=32)
    torch.manual_seed(1)
    hidden = torch.randn(1, 3, config.hidden_size, dtype=torch.bfloat16)

    def inputs(hidden, start):
        s = hidden.shape[1]
        positions = torch.arange(start, start + s)[None]
        cos, sin = rotary(hidden, positions)
        mask = (torch.arange(32)[None, :] <= positions[0][:, None])[None, None]
        return hidden, (cos, sin), mask

    with torch.no_grad():
        attention(*inputs(hidden, 0), cache)                 # allocates the cache (eager prefill)
        reference = StaticCache(config=config, max_cache_len=32)
        attention(*inputs(hidden, 0), reference)
        step = torch.randn(1, 1, config.hidden_size, dtype=torch.bfloat16)
        program = compile_module(attention, inputs(step, 3) + (cache,))
        fused = [f["op"] for f in program.report()["fused"]]
        assert fused == ["mla.prolog_v2", "mla.fused_infer_attention_score"], str(program.report())
        for position in (3, 4):
            step = torch.randn(1, 1, config.hidden_size, dtype=torch.bfloat16)
            expected, _ = attention(*inputs(step, position), reference)
            got = program(*inputs(step, position), cache)
            got = got[0] if isinstance(got, (tuple, list)) else got
            scale = expected.float().abs().max().item()
            # bf16 rounding at other points (absorbed order): 2^-5 of the output's largest
            assert (got.float() - expected.float()).abs().max().item() <= scale * 2 ** -5
        for a, b in zip(cache.layers[:1], reference.layers[:1]):      # the layer this attention writes
            assert int(a.cumulative_length) == int(b.cumulative_length)
            written = slice(0, int(b.cumulative_length))
            assert torch.allclose(a.keys[:, :, written].float(), b.keys[:, :, written].float(), atol=2 ** -5, rtol=2 ** -5)


def test_compile_module_names_the_failing_line():
    from ascend_mla.frontend.torch import UnsupportedOperatorError

    class Softmax(torch.nn.Module):
        def forward(self, x):
            y = x * 2
            return torch.special.erf(y)      # no converter

    with pytest.raises(UnsupportedOperatorError, match=r"test_torch_compile.py:\d+: `return torch.special.erf\(y\)"):
        compile_module(Softmax(), (torch.randn(2, 4),))


def small_model(seed):
    """DeepSeek-V3's structure at small dimensions (nothing the prolog takes: the attention runs
    as the primitive mla.paged_attention, which is what the mask check guards)."""
    torch.manual_seed(seed)
    m = transformers.DeepseekV3ForCausalLM(tiny_config(
        hidden_size=64, kv_lora_rank=32, q_lora_rank=48, qk_rope_head_dim=16, v_head_dim=16,
        qk_nope_head_dim=16)).to(torch.bfloat16).eval()
    with torch.no_grad():
        m.lm_head.weight.mul_(64)
    return m


@pytest.mark.slow              # ~15 s of CPU: two generates of a batch of 2
def test_left_padding_runs_as_pytorch():
    # Batch 2, the first row left-padded: its mask hides cached keys, which the compiled
    # attention (lengths from the mask) cannot express. Those calls run the region's PyTorch
    # graph (counted in backend.fallbacks [TORCH-001]); the tokens are eager's, bit for bit.
    model = small_model(3)
    ids = torch.tensor([[0, 0, 17, 42, 7], [3, 17, 42, 7, 99]])
    mask = torch.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]])

    def run(forward=None, backend=None):
        original = model.forward
        if forward is not None:
            model.forward = forward
        try:
            with torch.no_grad():
                return model.generate(ids, attention_mask=mask, max_new_tokens=3, do_sample=False,
                                      cache_implementation="static", max_cache_len=16, pad_token_id=0)
        finally:
            model.forward = original
    eager = run()
    backend = AscendBackend()
    compiled = run(torch.compile(model.forward, backend=backend, dynamic=False))
    assert compiled.tolist() == eager.tolist()
    assert backend.fallbacks > 0


def test_no_region_returns_a_weight(model, monkeypatch):
    """An op computed from weights alone whose value a PyTorch op reads stays in PyTorch (a view
    there): a region returned o_proj's weight viewed per head, copied into a new 14 MB tensor on
    every decode step (a third of the compiled step). No value a program hands back to torch
    is the program's constant memory."""
    from ascend_mla.runtime import interop
    handed = []
    original = interop.numpy_to_torch

    def spy(a):
        base = a
        while isinstance(base.base, np.ndarray):
            base = base.base
        handed.append(not base.flags.writeable)           # a bound weight's memory is read-only
        return original(a)
    monkeypatch.setattr(interop, "numpy_to_torch", spy)
    backend = AscendBackend()
    generate(model, torch.compile(model.forward, backend=backend), cache_implementation="static",
             max_cache_len=32)
    assert handed and not any(handed)

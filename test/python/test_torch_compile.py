"""transformers' own DeepSeek-V3 (and V2) through torch.compile(backend=AscendBackend()) with the
default torch.compile arguments (docs/api.md 10), and compile_module on its attention module with
a StaticCache (docs/api.md 8).

The model is DeepseekV3ForCausalLM as transformers writes it, at the fused ops' dimensions (He 7168,
Hcq 1536, Hckv 512, D 128, Dr 64) with few heads, a small vocabulary and random weights, in bf16.
The reference is eager transformers in the same process. The backends here keep the PyTorch
partitions eager (`inductor=False`): what fuses, and the programs' numerics, do not depend on
it, and inductor's compilations would cost the suite minutes (test_torch_compile_models.py runs
the inductor path).
"""
from __future__ import annotations

import copy
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from ascend_mla.frontend.dynamo import FusionWarning  # noqa: E402
from ascend_mla.frontend.torch import AscendBackend, compile_module, mask_lengths  # noqa: E402

PROMPT = [3, 17, 22, 7, 29]
NEW = 4
# The bound between the compiled and eager logits, relative to the largest eager logit: bf16
# keeps 8 bits, and eager transformers and the fused programs round at other points (absorbed
# order q_nope W_uk and P c_kv where eager rounds k_nope, v and P V; one rounding per raised
# RmsNorm / RoPE; the CPU kernels' float32 sums in another order). Each of the two is about 1%
# of the largest logit away from the same model in float32, in its own direction (measured on
# this file's first run: eager 0.6-0.9%, compiled 0.8-1.3%; docs/frontend.md "Numerics" gives
# inductor's next to them), so they may differ by up to the sum: 2^-5 (3.1%) bounds it
# (measured 0.6-0.7%), and bounds each one's distance from the float32 model (checked below).
BOUND = 2 ** -5


def tiny_config(layers=2, heads=2, attn="sdpa", version=3, **dims):
    """The fused ops' dimensions unless `dims` say otherwise."""
    dims = {"hidden_size": 7168, "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_rope_head_dim": 64,
            "v_head_dim": 128, "qk_nope_head_dim": 128} | dims
    config = transformers.DeepseekV3Config if version == 3 else transformers.DeepseekV2Config
    return config(
        vocab_size=32, intermediate_size=64, moe_intermediate_size=32, num_hidden_layers=layers,
        num_attention_heads=heads, num_key_value_heads=heads, n_shared_experts=1, n_routed_experts=4,
        routed_scaling_factor=1.0, n_group=1, topk_group=1, num_experts_per_tok=2, first_k_dense_replace=1,
        max_position_embeddings=256, attn_implementation=attn, **dims)


def build(config, seed):
    torch.manual_seed(seed)
    m = transformers.AutoModelForCausalLM.from_config(config).to(torch.bfloat16).eval()
    # Random init gives logits within a few bf16 ulps of each other; a larger lm_head spreads
    # them so the greedy choice is decided by the model, not by rounding (margins checked below).
    with torch.no_grad():
        m.lm_head.weight.mul_(64)
    return m


SMALL = dict(hidden_size=64, kv_lora_rank=32, q_lora_rank=48, qk_rope_head_dim=16, v_head_dim=16, qk_nope_head_dim=16)


@pytest.fixture(scope="module")
def model():
    # a seed whose reference has clear top-2 margins at every step (at least 16% of the largest
    # logit with 32 tokens; the greedy check needs 2 * BOUND)
    return build(tiny_config(), 2)


def generate(model, forward=None, batch=1, **kwargs):
    original = model.forward
    if forward is not None:
        model.forward = forward
    try:
        with torch.no_grad():
            return model.generate(torch.tensor([PROMPT] * batch), max_new_tokens=NEW, do_sample=False,
                                  return_dict_in_generate=True, output_logits=True, **kwargs)
    finally:
        model.forward = original


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
    start = len(PROMPT)
    assert compiled.sequences[:, :start + clear].tolist() == eager.sequences[:, :start + clear].tolist()


def assert_logits_within(eager, compiled, bound=BOUND):
    for step, (a, b) in enumerate(zip(eager.logits, compiled.logits)):
        scale = a.float().abs().max().item()
        error = (a.float() - b.float()).abs().max().item()
        assert error <= scale * bound, (step, error, scale)


def float32_logits(model, sequences):
    """The same model in float32 on the same tokens (teacher forcing, no cache): the exact
    reference both bf16 runs are measured from."""
    reference = copy.deepcopy(model).float()
    with torch.no_grad():
        logits = reference(sequences[:, :-1]).logits
    return [logits[:, len(PROMPT) - 1 + step] for step in range(NEW)]


def spy_weights(monkeypatch):
    """Records, for each tensor a program hands back to torch, whether its memory is a bound
    weight's (read-only)."""
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
    return handed


# (attention implementation, static cache length, batch, torch.compile's dynamic): eager and SDPA,
# a cache length that pages of 128 divide and one that none divides (13: padded to a 16-row
# page), batch 1 and 2; dynamic=None (the default) and True (every graph symbolic, its floats
# too: the backend specializes it at its first call per sizes and values)
RUNS = [("sdpa", 128, 1, None), ("eager", 13, 2, True)]
SLOW_RUNS = [("sdpa", 13, 2, None), ("eager", 128, 1, None), ("eager", 13, 2, None)]


@pytest.fixture(scope="module")
def static_run(model):
    """The first run, shared: SDPA, a cache of 128, batch 1, with the default backend's
    arguments but inductor; and the programs' hand-backs spied on."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        handed = spy_weights(monkeypatch)
        return run_static(model, "sdpa", 128, 1, None) + (handed,)


def fresh_dynamo():
    """Dynamo's caches and its automatic-dynamic memory reset: transformers' forward methods
    share one decorator's code object, and Dynamo recompiles a code object at most
    recompile_limit (8) times per process, then runs it eagerly."""
    torch._dynamo.reset()


def run_static(model, attn, length, batch, dynamic):
    fresh_dynamo()
    model.config._attn_implementation = attn
    for layer in model.model.layers:
        layer.self_attn.config._attn_implementation = attn
    eager = generate(model, batch=batch, cache_implementation="static", max_cache_len=length)
    backend = AscendBackend(inductor=False)
    forward = torch.compile(model.forward, backend=backend, dynamic=dynamic)     # None: the default
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = generate(model, forward, batch=batch, cache_implementation="static", max_cache_len=length)
    return eager, compiled, backend, forward, caught


def check_static(eager, compiled, backend, layers):
    scale = max(step.float().abs().max().item() for step in eager.logits)
    assert_same_greedy(eager, compiled, 2 * scale * BOUND)
    assert compiled.sequences.tolist() == eager.sequences.tolist()      # all steps are clear here
    assert_logits_within(eager, compiled)
    # one graph (or specialization) for the prefill, one for every decode step: no compilation per token
    assert len(backend.reports) == 2, [r["graph"] for r in backend.reports]
    decode = backend.reports[1]
    ops = [f["op"] for f in decode["fused"]]
    assert ops.count("mla.prolog_v2") == layers and ops.count("mla.fused_infer_attention_score") == layers, str(decode)
    assert backend.fallbacks == 0 and backend.rebuilds == 0


def test_static_cache_fuses_every_layer_with_eager_tokens(static_run, model):
    eager, compiled, backend, _, caught, handed = static_run
    check_static(eager, compiled, backend, model.config.num_hidden_layers)
    # both within the bound of the float32 model too: the compiled program is as close to the
    # exact logits as eager bf16 is (docs/frontend.md "Numerics")
    exact = float32_logits(model, eager.sequences)
    for reference in (eager, compiled):
        assert_logits_within(SimpleNamespace(logits=exact), reference)
    decode = backend.reports[1]
    assert sum(r["pass"] == "absorb-latent-kv" for r in decode["rewritten"]) == model.config.num_hidden_layers
    kinds = {p["kind"] for p in decode["partitions"]}
    assert kinds == {"mla", "pytorch"}              # the MLP's silu, the router, the experts stay
    assert any("silu" in p["reason"] for p in decode["partitions"] if p["kind"] == "pytorch")
    # no value a program hands back to torch is the program's constant memory (a region
    # returned o_proj's weight view: a 14 MB copy per decode step)
    assert handed and not any(handed)
    # the decode graph fused: only the prefill's attention (its own cache writes) warns
    fusion = [str(w.message) for w in caught if issubclass(w.category, FusionWarning)]
    assert all("graph_0" in m for m in fusion), fusion


def test_changed_weights_are_seen(static_run, model):
    """Parameters are live inputs: after an in-place change (what optimizer.step() and
    load_state_dict do) the compiled model computes with the new values, its programs rebuilt
    once; frozen, it keeps the values it was compiled with."""
    eager, compiled, backend, forward, _, _ = static_run
    attention = model.model.layers[0].self_attn
    saved = {n: p.detach().clone() for n, p in attention.named_parameters()}
    try:
        backend.freeze = True
        with torch.no_grad():
            attention.kv_b_proj.weight.mul_(-1.0)              # W_uk and W_uv change sign
            attention.o_proj.weight.mul_(0.5)
        frozen = generate(model, forward, cache_implementation="static", max_cache_len=128)
        assert backend.rebuilds == 0
        changed = generate(model, cache_implementation="static", max_cache_len=128)
        # frozen: the decode programs still compute with the weights they were built from
        assert any((a.float() - b.float()).abs().max().item() > 0.1 * a.float().abs().max().item()
                   for a, b in zip(changed.logits[1:], frozen.logits[1:]))
        backend.freeze = False
        live = generate(model, forward, cache_implementation="static", max_cache_len=128)
        # the programs that read the changed weights were rebuilt, once, and nothing recompiled
        assert 1 <= backend.rebuilds < len(backend.programs) and len(backend.reports) == 2
        assert_logits_within(changed, live)
        assert live.sequences.tolist() == changed.sequences.tolist()
    finally:
        with torch.no_grad():
            for n, p in attention.named_parameters():
                p.copy_(saved[n])
        backend.freeze = False


@pytest.mark.parametrize("attn, length, batch, dynamic",
                         RUNS[1:] + [pytest.param(*r, marks=pytest.mark.slow) for r in SLOW_RUNS])
def test_static_cache_any_length_both_attentions(model, attn, length, batch, dynamic):
    eager, compiled, backend, _, _ = run_static(model, attn, length, batch, dynamic)
    if dynamic:                     # symbolic graphs, each specialized once for its sizes
        assert all("[" in r["graph"] for r in backend.reports), [r["graph"] for r in backend.reports]
    try:
        check_static(eager, compiled, backend, model.config.num_hidden_layers)
    finally:
        run_static_reset(model)


def run_static_reset(model):
    model.config._attn_implementation = "sdpa"
    for layer in model.model.layers:
        layer.self_attn.config._attn_implementation = "sdpa"


def test_dynamic_cache_refused_once():
    # Nothing fuses over a DynamicCache (a cache grown by torch.cat: a new shape every step), so
    # small dimensions test the same: refused once with its rule, no compilation per token,
    # and eager transformers' tokens.
    fresh_dynamo()
    model = build(tiny_config(**SMALL), 3)
    eager = generate(model)
    backend = AscendBackend(inductor=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = generate(model, torch.compile(model.forward, backend=backend))
    # What runs as PyTorch computes eager's bits
    assert compiled.sequences.tolist() == eager.sequences.tolist()
    assert_logits_within(eager, compiled, 2 ** -7)
    assert len(backend.reports) <= 3            # prefill, first decode (static), decode (dynamic)
    growing = [p for r in backend.reports for p in r["partitions"] if "TORCH-003" in p["reason"]]
    assert growing and not any(f["op"] == "mla.prolog_v2" for r in backend.reports for f in r["fused"])
    fusion = [str(w.message) for w in caught if issubclass(w.category, FusionWarning)]
    assert sum("TORCH-003" in m for m in fusion) == 1, fusion


@pytest.mark.parametrize("kwargs", [{"cache_implementation": "static", "max_cache_len": 32},
                                    pytest.param({}, marks=pytest.mark.slow)],     # DynamicCache: ~25 s more
                         ids=["static", "dynamic"])
def test_deepseek_v2_runs(kwargs):
    """DeepSeek-V2: complex RoPE (a complex64 freqs_cis crosses the graph), no q_lora. Its
    regions take complex values as (..., 2) float pairs; static and dynamic caches run and give
    eager's tokens."""
    model = build(tiny_config(version=2, **(SMALL | {"q_lora_rank": None})), 0)
    fresh_dynamo()
    eager = generate(model, **kwargs)
    backend = AscendBackend(inductor=False)
    compiled = generate(model, torch.compile(model.forward, backend=backend), **kwargs)
    assert compiled.sequences.tolist() == eager.sequences.tolist()
    assert_logits_within(eager, compiled)
    assert backend.reports


@pytest.mark.slow              # a second model at the fused ops' dimensions: ~1 min of CPU
def test_deepseek_v2_fuses_the_attention():
    """At the fused ops' dimensions DeepSeek-V2's decode attention fuses into FIA (MLA mode) over
    transformers' caches; the prolog does not (no q_lora, and the complex RoPE writes the rotated
    pairs interleaved where mla.prolog_v2 writes them apart: MLA-009)."""
    fresh_dynamo()
    model = build(tiny_config(version=2, q_lora_rank=None), 2)
    eager = generate(model, cache_implementation="static", max_cache_len=32)
    backend = AscendBackend(inductor=False)
    compiled = generate(model, torch.compile(model.forward, backend=backend), cache_implementation="static",
                        max_cache_len=32)
    assert_logits_within(eager, compiled)
    assert compiled.sequences.tolist() == eager.sequences.tolist()
    decode = backend.reports[-1]
    ops = [f["op"] for f in decode["fused"]]
    assert ops.count("mla.fused_infer_attention_score") == model.config.num_hidden_layers, str(decode)
    assert any("MLA-009" in r["reason"] for r in decode["refused"])


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
    # eager attention's additive masks: 0 attends, finfo.min (or -inf) hides
    additive = torch.zeros(mask.shape, dtype=torch.bfloat16).masked_fill(~mask, torch.finfo(torch.bfloat16).min)
    assert mask_lengths(additive).tolist() == [5, 8]
    assert mask_lengths(additive.float().masked_fill(~mask, float("-inf"))).tolist() == [5, 8]
    assert mask_lengths(additive.masked_fill(~mask, -100.0)) is None     # not hidden: exp(-100) is not 0 in a row
    bias = additive.clone()
    bias[0, 0, 0, 0] = 0.5                           # an additive bias (ALiBi-like) is not a mask of lengths
    assert mask_lengths(bias) is None


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


@pytest.mark.slow              # ~40 s of CPU: two generates of a batch of 2 and a compilation
def test_left_padding_runs_as_pytorch(model):
    # Batch 2, the first row left-padded: its mask hides cached keys, which the compiled
    # attention (lengths from the mask) cannot express. Those calls run the region's PyTorch
    # graph (counted in backend.fallbacks [TORCH-001]); the tokens are eager's.
    ids = torch.tensor([[0, 0, 17, 22, 7], [3, 17, 22, 7, 29]])
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
    fresh_dynamo()
    eager = run()
    backend = AscendBackend(inductor=False)
    compiled = run(torch.compile(model.forward, backend=backend))
    assert compiled.tolist() == eager.tolist()
    assert backend.fallbacks > 0

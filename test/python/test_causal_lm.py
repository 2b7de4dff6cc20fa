"""deepseek.CausalLM against transformers itself: small DeepSeek-V3-architecture models (the
prolog's dims, 8 heads, a dense and a MoE layer, vocabulary 256, random init) written by
transformers' save_pretrained, read back by CausalLM.from_pretrained, compared with
transformers' forward (bf16 and fp32) and its greedy generate."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import ascend_mla
from ascend_mla.compiler import CompileError
from ascend_mla.models import deepseek

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

SMALL = dict(vocab_size=256, hidden_size=7168, intermediate_size=256, moe_intermediate_size=128,
             num_hidden_layers=2, num_attention_heads=8, num_key_value_heads=8, n_shared_experts=1,
             n_routed_experts=8, num_experts_per_tok=2, n_group=4, topk_group=2, first_k_dense_replace=1,
             q_lora_rank=1536, kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128,
             max_position_embeddings=4096, tie_word_embeddings=False)
PROMPT = [[160, 82, 160, 20, 161, 113, 30, 158]]   # transformers' top-2 margin >= 0.47 at each of 12 steps
MARGIN = 0.25           # > twice the largest logit difference to transformers' bf16 run (asserted below)


def save_model(path, seed=0, **overrides):
    """A random bf16 DeepseekV3ForCausalLM saved by transformers; returns the model."""
    torch.manual_seed(seed)
    config = transformers.DeepseekV3Config(**{**SMALL, **overrides})
    model = transformers.DeepseekV3ForCausalLM(config).to(torch.bfloat16).eval()
    with torch.no_grad():                      # a correction bias that matters for the routing
        for name, b in [*model.named_buffers(), *model.named_parameters()]:
            if name.endswith("e_score_correction_bias"):
                b.normal_(0, 0.05)
    model.save_pretrained(path)
    return model


def relative(a, b) -> float:
    return float(torch.linalg.norm(a - b) / torch.linalg.norm(b))


def transformers_logits(model, ids):
    """transformers' logits of `ids` in bf16 (the checkpoint's dtype) and in fp32 (the same
    weights, exact in fp32)."""
    with torch.no_grad():
        bf16 = model(ids).logits.float()
        fp32 = copy.deepcopy(model).float()(ids).logits
    return bf16, fp32


@pytest.fixture(scope="module")
def v3(tmp_path_factory):
    path = tmp_path_factory.mktemp("v3")
    return path, save_model(path)


@pytest.fixture(scope="module")
def lm(v3):
    return deepseek.CausalLM.from_pretrained(v3[0], block_size=16, max_positions=64, target="cpu")


def test_logits_equal_transformers_forward(v3, lm):
    """Prefill (8 tokens, one chunk) then two decode steps from the model's caches, against
    transformers' forward over the same 10 tokens. The tolerance is transformers' own noise:
    its bf16 run is ~1.4 % (relative L2) from its fp32 run on this model; ours rounds at other
    points (fused SwiGLU, MoE finalize, the fused prolog and attention), so it may differ from
    fp32 by up to twice that, never more."""
    _, model = v3
    ids = torch.tensor(PROMPT)
    lm.reset()
    steps = [lm(ids), lm(torch.tensor([[5]])), lm(torch.tensor([[250]]))]
    assert lm.position == 10 and steps[0].shape == (1, 8, 256) and steps[0].dtype == torch.float32
    ours = torch.cat(steps, dim=1)
    bf16, fp32 = transformers_logits(model, torch.cat([ids, torch.tensor([[5, 250]])], dim=1))
    noise = relative(bf16, fp32)
    assert 1e-3 < noise < 0.05, noise                        # the reference itself is sane
    assert relative(ours, fp32) < 2 * noise, (relative(ours, fp32), noise)
    assert float((ours - bf16).abs().max()) < MARGIN / 2       # what makes MARGIN a safe greedy margin
    # every layer's attention fused, in both programs; nothing refused
    report = lm.report()
    assert set(lm.programs) == {"decode", "prefill"}
    fused = [f["op"] for f in report["fused"]]
    assert fused.count("mla.prolog_v2") == 2 * 2 and fused.count("mla.fused_infer_attention_score") == 2 * 2
    assert report["refused"] == []


def test_greedy_tokens_equal_transformers_generate(v3, lm):
    """Greedy tokens equal transformers' generate for as long as its top-2 margin is clear:
    a random model has near-ties, where bf16 noise may pick either; compared up to the first
    step whose margin is below MARGIN (twice our largest logit difference to transformers)."""
    _, model = v3
    ids = torch.tensor(PROMPT)
    new = 8
    eos, model.generation_config.eos_token_id = model.generation_config.eos_token_id, None
    try:                                       # CausalLM.generate has no early stop
        with torch.no_grad():
            ref = model.generate(ids, max_new_tokens=new, do_sample=False, pad_token_id=0, output_logits=True,
                                 return_dict_in_generate=True)
    finally:
        model.generation_config.eos_token_id = eos
    assert ref.sequences.shape == (1, 8 + new)
    margins = [float(torch.topk(step[0].float(), 2).values.diff().abs()) for step in ref.logits]
    clear = next((i for i, m in enumerate(margins) if m < MARGIN), new)
    assert clear >= 3, f"the reference has a near-tie within 3 steps (margins {margins}); pick another prompt"
    ours = lm.generate(ids, max_new_tokens=new)
    assert isinstance(ours, torch.Tensor) and ours.dtype == torch.int64 and ours.shape == (1, 8 + new)
    assert ours[0, :8 + clear].tolist() == ref.sequences[0, :8 + clear].tolist(), (ours, ref.sequences, margins)
    assert lm.generate(ids, max_new_tokens=2).tolist() == ours[:, :10].tolist()     # generate starts afresh


def test_rope_half_moe_layer_equals_transformers(tmp_path):
    """rope_interleave false (Llama-style rotate-half RoPE) on a one-layer model whose only
    layer is MoE: logits of a 5-token prefill (padded to a chunk of 8) and one decode step."""
    model = save_model(tmp_path, seed=1, num_hidden_layers=1, first_k_dense_replace=0, rope_interleave=False)
    lm = deepseek.CausalLM.from_pretrained(tmp_path, block_size=16, max_positions=32, target="cpu")
    ids = torch.tensor([[11, 22, 33, 44, 55]])
    ours = torch.cat([lm(ids), lm(torch.tensor([[66]]))], dim=1)
    bf16, fp32 = transformers_logits(model, torch.tensor([[11, 22, 33, 44, 55, 66]]))
    noise = relative(bf16, fp32)
    assert relative(ours, fp32) < 2 * noise, (relative(ours, fp32), noise)
    assert "mode = \"half\"" in lm.programs["decode"].stages["input"]


def tiny_config(**overrides):
    return dict(deepseek.CONFIGS["deepseek-v3"], num_attention_heads=8, num_hidden_layers=2,
                **{k: SMALL[k] for k in ("vocab_size", "intermediate_size", "moe_intermediate_size", "n_routed_experts",
                                         "n_shared_experts", "num_experts_per_tok", "n_group", "topk_group",
                                         "first_k_dense_replace")}, **overrides)


def test_a_tp_slice_of_one_chosen_moe_layer_compiles_and_runs():
    """Rank 0 of tp=2 for layer 1 alone (the MoE layer): 4 heads, half of every MLP's
    intermediate dimension; weight and cache names keep the layer's index."""
    model = deepseek.build("tiny", config=tiny_config(), tp=2, layer=1, batch=2, seq=1, block_size=16, decoder=True)
    assert model.cache_names == ["kv_cache.1", "kr_cache.1"]
    names = set(model.weights)
    assert "model.layers.1.mlp.experts.gate_up_proj" in names and not any(".layers.0." in n for n in names)
    assert model.weights["model.layers.1.mlp.experts.gate_up_proj"].shape == (8, 128, 7168)   # 2 x 128 / 2
    program = ascend_mla.compile(model, target="cpu")
    fused = [f["op"] for f in program.report()["fused"]]
    assert fused == ["mla.prolog_v2", "mla.fused_infer_attention_score"] or \
        sorted(fused) == ["mla.fused_infer_attention_score", "mla.prolog_v2"]
    logits = program(**model.inputs(0))[0]
    assert logits.shape == (2, 1, 256) and logits.dtype == np.float32 and np.isfinite(logits).all()


def test_refusals_name_what_they_refuse(lm):
    with pytest.raises(CompileError, match="norm_topk_prob"):
        deepseek.build("tiny", config=tiny_config(norm_topk_prob=False), decoder=True)
    with pytest.raises(CompileError, match="scoring_func"):
        deepseek.build("tiny", config=tiny_config(scoring_func="relu"), decoder=True)
    with pytest.raises(ValueError, match="layer: expected an index in"):
        deepseek.build("tiny", config=tiny_config(), layer=2)
    with pytest.raises(ValueError, match=r"input_ids: the model was compiled for batch 1"):
        lm(torch.tensor([[1], [2]]))
    with pytest.raises(ValueError, match="max_new_tokens"):
        lm.generate(torch.tensor(PROMPT), max_new_tokens=100)

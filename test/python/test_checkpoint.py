"""Hugging Face checkpoints as shipped (models/checkpoint.py), checked against transformers itself:
the config formats (transformers 4.x and 5.x, DeepseekV2/V3, Kimi-K2) give transformers' rotary
tables and softmax scale; bf16, fp32, sharded, 4.x-config and block-FP8 checkpoints load the
same tensors; the attention blocks `deepseek.from_pretrained` compiles (fused: one prolog and
one FIA per layer) agree with transformers' DeepseekV3Attention; what cannot be honoured is a
CompileError naming it. The checkpoints are written by transformers (fixtures in conftest.py)."""
import json
import os
import shutil

import ml_dtypes
import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import hf_checkpoints as hf  # noqa: E402

import ascend_mla  # noqa: E402
from ascend_mla.models import checkpoint, deepseek  # noqa: E402

BF16 = ml_dtypes.bfloat16


# --- configs ----------------------------------------------------------------------------------------

def small_hf_config(**overrides):
    """A DeepseekV3Config with small attention dims (the rotary and scale checks build no weights
    of consequence)."""
    base = dict(vocab_size=32, hidden_size=64, intermediate_size=32, moe_intermediate_size=16, num_hidden_layers=1,
                num_attention_heads=2, num_key_value_heads=2, q_lora_rank=32, kv_lora_rank=16,
                qk_nope_head_dim=16, qk_rope_head_dim=64, v_head_dim=16, n_routed_experts=4, n_group=1,
                topk_group=1, num_experts_per_tok=2, max_position_embeddings=8192)
    return transformers.DeepseekV3Config(**dict(base, **overrides))


ROPES = {
    "v3 yarn": dict(rope_type="yarn", rope_theta=10000.0, factor=40.0, original_max_position_embeddings=4096,
                    beta_fast=32, beta_slow=1, mscale=1.0, mscale_all_dim=1.0),
    "kimi-k2 yarn": dict(rope_type="yarn", rope_theta=50000.0, factor=32.0, original_max_position_embeddings=4096,
                         beta_fast=1, beta_slow=1, mscale=1.0, mscale_all_dim=1.0),
    "v2 yarn 0.707": dict(rope_type="yarn", rope_theta=10000.0, factor=40.0, original_max_position_embeddings=4096,
                          beta_fast=32, beta_slow=1, mscale=0.707, mscale_all_dim=0.707),
    "yarn mscale only": dict(rope_type="yarn", rope_theta=10000.0, factor=16.0, original_max_position_embeddings=2048,
                             mscale=0.8),
    "yarn attention_factor": dict(rope_type="yarn", rope_theta=10000.0, factor=8.0,
                                  original_max_position_embeddings=1024, attention_factor=1.25, mscale_all_dim=0.5),
    "default": dict(rope_type="default", rope_theta=10000.0),
}


@pytest.mark.parametrize("rope", ROPES)
def test_rotary_tables_and_softmax_scale_are_transformers(rope):
    """inv_freq, the cos/sin tables and the attention's scaling as transformers' DeepseekV3
    computes them, for YaRN variants (DeepSeek-V3, Kimi-K2, V2's mscale 0.707, transformers'
    fallbacks) and plain RoPE; from the 5.x config and its 4.x spelling alike."""
    from transformers.models.deepseek_v3 import modeling_deepseek_v3 as m
    hf_config = small_hf_config(rope_parameters=dict(ROPES[rope]))
    rotary = m.DeepseekV3RotaryEmbedding(hf_config)
    scaling = m.DeepseekV3Attention(hf_config, 0).scaling
    ours = checkpoint.read_config(hf_config.to_dict())
    legacy = dict(hf_config.to_dict())
    params = dict(legacy.pop("rope_parameters"))
    legacy["rope_theta"] = params.pop("rope_theta")
    legacy["rope_scaling"] = dict(params, type=params.pop("rope_type"))
    assert checkpoint.read_config(legacy) == ours
    np.testing.assert_allclose(ours.rope_inv_freq(), rotary.inv_freq.numpy(), rtol=2e-7)
    assert ours.rope_attention_factor == pytest.approx(rotary.attention_scaling, rel=1e-12)
    assert ours.softmax_scale == pytest.approx(scaling, rel=1e-12)
    positions = 3000
    cos, sin = ours.rope_tables(positions)
    x = torch.zeros(1, positions, 64, dtype=torch.bfloat16)
    ref_cos, ref_sin = rotary(x, torch.arange(positions)[None])
    for a, b in ((cos, ref_cos), (sin, ref_sin)):
        # NumPy's float32 pow and torch's differ in the last bit of 2-9 of the 32 frequencies
        # (inv_freq within 1 float32 ulp above); at positions up to 3000 that moves a few angles
        # across a bf16 rounding boundary: at most one bf16 step (of values up to the attention
        # factor: 2^-7 in [1, 2)), in under 0.2% of the entries
        ref = b[0].float().numpy()
        diff = np.abs(a.astype(np.float32) - ref)
        assert diff.max() <= 2.0 ** -7 and (diff > 0).mean() < 2e-3


def test_the_5x_and_4x_config_of_a_transformers_checkpoint_read_the_same(hf_checkpoint):
    new, old = checkpoint.read_config(hf_checkpoint("bf16")), checkpoint.read_config(hf_checkpoint("legacy"))
    assert old == new
    with open(os.path.join(hf_checkpoint("legacy"), "config.json")) as f:
        raw = json.load(f)
    assert "rope_parameters" not in raw and raw["rope_scaling"]["type"] == "yarn"
    assert (new.hidden_size, new.q_lora_rank, new.kv_lora_rank, new.num_attention_heads) == (7168, 1536, 512, 8)
    assert new.rope_type == "yarn" and new.rope_factor == 40 and new.rope == "interleave"
    assert [new.is_moe_layer(i) for i in range(2)] == [False, True]
    assert new.num_nextn_predict_layers == 1 and new.torch_dtype == "bfloat16"


KIMI_K2 = {   # Kimi-K2's config.json (4.x format, DeepseekV3 code under its own model_type)
    "architectures": ["DeepseekV3ForCausalLM"], "model_type": "kimi_k2", "vocab_size": 163840, "hidden_size": 7168,
    "intermediate_size": 18432, "moe_intermediate_size": 2048, "num_hidden_layers": 61, "num_attention_heads": 64,
    "num_key_value_heads": 64, "n_shared_experts": 1, "n_routed_experts": 384, "routed_scaling_factor": 2.827,
    "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_rope_head_dim": 64, "v_head_dim": 128, "qk_nope_head_dim": 128,
    "topk_method": "noaux_tc", "n_group": 1, "topk_group": 1, "num_experts_per_tok": 8, "moe_layer_freq": 1,
    "first_k_dense_replace": 1, "norm_topk_prob": True, "scoring_func": "sigmoid", "hidden_act": "silu",
    "max_position_embeddings": 131072, "rms_norm_eps": 1e-06, "rope_theta": 50000.0,
    "rope_scaling": {"beta_fast": 1.0, "beta_slow": 1.0, "factor": 32.0, "mscale": 1.0, "mscale_all_dim": 1.0,
                     "original_max_position_embeddings": 4096, "type": "yarn"},
    "attention_bias": False, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "num_nextn_predict_layers": 0,
    "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                            "weight_block_size": [128, 128]}}
V2_LITE = {   # DeepSeek-V2-Lite's config.json (4.x format; no q_lora_rank, softmax router)
    "architectures": ["DeepseekV2ForCausalLM"], "model_type": "deepseek_v2", "vocab_size": 102400, "hidden_size": 2048,
    "intermediate_size": 10944, "moe_intermediate_size": 1408, "num_hidden_layers": 27, "num_attention_heads": 16,
    "n_shared_experts": 2, "n_routed_experts": 64, "routed_scaling_factor": 1.0, "kv_lora_rank": 512,
    "q_lora_rank": None, "qk_rope_head_dim": 64, "v_head_dim": 128, "qk_nope_head_dim": 128,
    "topk_method": "greedy", "n_group": 1, "topk_group": 1, "num_experts_per_tok": 6, "first_k_dense_replace": 1,
    "norm_topk_prob": False, "scoring_func": "softmax", "max_position_embeddings": 163840, "rms_norm_eps": 1e-06,
    "rope_theta": 10000, "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 0.707,
                                          "mscale_all_dim": 0.707, "original_max_position_embeddings": 4096,
                                          "type": "yarn"},
    "attention_bias": False, "torch_dtype": "bfloat16"}


def test_kimi_k2_and_v2_lite_configs():
    kimi = checkpoint.read_config(KIMI_K2)
    assert kimi.model_type == "kimi_k2" and kimi.n_routed_experts == 384 and kimi.fp8_block == (128, 128)
    assert (kimi.rope_theta, kimi.rope_factor, kimi.rope_beta_fast, kimi.rope_attention_factor) == (50000, 32, 1, 1.0)
    assert kimi.rope == "interleave" and kimi.latent_norm_eps == 1e-6
    lite = checkpoint.read_config(V2_LITE)
    assert lite.q_lora_rank is None and lite.scoring_func == "softmax" and lite.topk_method == "greedy"
    assert lite.rope_mscale == lite.rope_mscale_all_dim == 0.707 and lite.rope_attention_factor == 1.0
    assert lite.softmax_scale == pytest.approx(192 ** -0.5 * (0.1 * 0.707 * np.log(40) + 1) ** 2)
    assert checkpoint.read_config(lite.build_config()) == lite        # build_config round-trips
    for preset in deepseek.CONFIGS.values():                          # the presets read as configs
        assert checkpoint.read_config(preset).rope_type == "yarn"


REFUSED = [
    (dict(rope_scaling=dict(type="linear", factor=2.0)), "unknown rope type 'linear'", "CKPT-ROPE"),
    (dict(rope_scaling=dict(type="dynamic", factor=2.0)), "unknown rope type 'dynamic'", "CKPT-ROPE"),
    (dict(rope_scaling=dict(type="yarn", original_max_position_embeddings=4096)), "YaRN without factor", "CKPT-ROPE"),
    (dict(rope_scaling=None, rope_parameters=dict(rope_type="yarn", factor=4.0)),
     "YaRN without original_max_position_embeddings", "CKPT-ROPE"),
    (dict(partial_rotary_factor=0.5), "partial_rotary_factor", "CKPT-ROPE"),
    (dict(attention_bias=True), "attention_bias", "CKPT-BIAS"),
    (dict(mlp_bias=True), "mlp_bias", "CKPT-BIAS"),
    (dict(hidden_act="gelu"), "hidden_act: 'gelu'", "CKPT-ACT"),
    (dict(quantization_config=dict(quant_method="awq", bits=4)), "quant_method 'awq'", "CKPT-QUANT"),
    (dict(quantization_config=dict(quant_method="fp8", fmt="e5m2")), "fmt 'e5m2'", "CKPT-QUANT"),
    (dict(model_type="llama", architectures=["LlamaForCausalLM"]), "model_type: 'llama'", "CKPT-CONFIG"),
]


@pytest.mark.parametrize("edit,words,rule", REFUSED, ids=[r[1] for r in REFUSED])
def test_configs_the_compiler_cannot_honour_are_refused_by_name(edit, words, rule):
    with pytest.raises(ascend_mla.CompileError, match=rf"{words}.*\[{rule}\]"):
        checkpoint.read_config(dict(KIMI_K2, **edit))


def test_a_directory_without_config_json_is_refused(tmp_path):
    with pytest.raises(ascend_mla.CompileError, match=r"no config.json .*\[CKPT-CONFIG\]"):
        checkpoint.read_config(tmp_path)
    with pytest.raises(ascend_mla.CompileError, match=r"no \*\.safetensors .*\[CKPT-FILES\]"):
        checkpoint.load_tensors(tmp_path, checkpoint.read_config(KIMI_K2))


# --- tensors ----------------------------------------------------------------------------------------

def test_bf16_fp32_sharded_and_4x_checkpoints_load_the_same_bf16_tensors(hf_checkpoint):
    """The same weights in every container: bit-identical to safetensors' torch reader of the
    bf16 files (fp32 -> bf16 is exact for values that were bf16); the router stays float32."""
    expected = hf._tensors(hf_checkpoint("bf16"))
    for kind in ("bf16", "fp32", "sharded", "legacy"):
        loaded = checkpoint.load_tensors(hf_checkpoint(kind))
        assert set(loaded) == set(expected), kind
        for name, value in loaded.items():
            ref = expected[name].float().numpy()
            if checkpoint.FLOAT32_TENSORS.match(name):
                assert value.dtype == np.float32, name
            else:
                assert value.dtype == BF16, (kind, name)
            assert np.array_equal(value.astype(np.float32), ref), (kind, name)


def test_fp8_checkpoint_dequantizes_block_by_block(hf_checkpoint):
    """The FP8 copy holds float8_e4m3fn weights + per-128x128-block weight_scale_inv (as the
    hub's DeepSeek-V3); load_tensors gives torch's dequantization of them, rounded to bf16."""
    path = hf_checkpoint("fp8")
    from safetensors import safe_open
    with safe_open(os.path.join(path, "model.safetensors"), "pt") as f:
        w = f.get_tensor("model.layers.0.self_attn.q_a_proj.weight")
        assert w.dtype == torch.float8_e4m3fn and f.get_tensor(
            "model.layers.0.self_attn.q_a_proj.weight_scale_inv").shape == (12, 56)
    reference = hf.fp8_dequantized(path)
    loaded = checkpoint.load_tensors(path)
    assert set(loaded) == set(reference)
    for name, value in loaded.items():
        assert np.array_equal(value.astype(np.float32), reference[name].astype(BF16).astype(np.float32)
                              if value.dtype == BF16 else reference[name]), name
    # and FP8 is what it claims: within e4m3's 2^-4 relative step of the bf16 original
    original = hf._tensors(hf_checkpoint("bf16"))["model.layers.1.mlp.experts.3.down_proj.weight"].float().numpy()
    dq = loaded["model.layers.1.mlp.experts.3.down_proj.weight"].astype(np.float32)
    assert np.abs(dq - original).max() <= 2.0 ** -4 * np.abs(original).max()


def test_w8a8_from_fp8_quantizes_per_output_channel(hf_checkpoint):
    path = hf_checkpoint("fp8")
    loaded = checkpoint.load_tensors(path, quant="w8a8")
    reference = hf.fp8_dequantized(path)
    for name in ("model.layers.0.self_attn.q_a_proj.weight", "model.layers.1.mlp.experts.5.up_proj.weight",
                 "model.layers.0.mlp.down_proj.weight"):
        q, scale = loaded[name], loaded[name + "_scale"]
        assert q.dtype == np.int8 and scale.shape == (q.shape[0], 1) and scale.dtype == np.float32
        assert np.abs(q).max() == 127
        # half a step, and float32 rounding of q * scale at the many exact ties of FP8 values
        assert np.all(np.abs(q * scale - reference[name]) <= scale / 2 * (1 + 1e-5)), name
    assert loaded["model.layers.0.self_attn.kv_b_proj.weight"].dtype == BF16       # absorbed: stays bf16
    assert loaded["lm_head.weight"].dtype == BF16
    c8 = checkpoint.load_tensors(path, quant="w8a8c8", names=lambda n: "kv_a_layernorm" in n, ignore=lambda n: True)
    assert sorted(c8) == [f"model.layers.{i}.self_attn.{n}" for i in (0, 1) for n in ("kv_a_layernorm.weight", "kv_scale")]


def test_tp_slices_split_heads_and_mlp(hf_checkpoint, tmp_path):
    full = checkpoint.load_tensors(hf_checkpoint("bf16"))
    parts = [checkpoint.load_tensors(hf_checkpoint("bf16"), tp=4, rank=r) for r in range(4)]
    for name, axis in (("model.layers.0.self_attn.q_b_proj.weight", 0), ("model.layers.0.self_attn.kv_b_proj.weight", 0),
                       ("model.layers.0.self_attn.o_proj.weight", 1), ("model.layers.0.mlp.gate_proj.weight", 0),
                       ("model.layers.0.mlp.down_proj.weight", 1), ("model.layers.1.mlp.experts.2.up_proj.weight", 0),
                       ("model.layers.1.mlp.shared_experts.down_proj.weight", 1),
                       ("model.embed_tokens.weight", 0), ("lm_head.weight", 0)):       # vocabulary rows
        assert np.array_equal(np.concatenate([p[name] for p in parts], axis), full[name]), name
    for name in ("model.layers.0.self_attn.q_a_proj.weight", "model.layers.1.mlp.gate.weight"):
        assert all(np.array_equal(p[name], full[name]) for p in parts)
    assert parts[1]["model.layers.0.self_attn.q_b_proj.weight"].shape == (2 * 192, 1536)   # 2 of 8 heads
    with pytest.raises(ascend_mla.CompileError, match=r"tp=3 does not divide the 8 attention heads \[CKPT-TP\]"):
        checkpoint.load_tensors(hf_checkpoint("bf16"), tp=3)
    from safetensors.numpy import save_file
    shutil.copy(os.path.join(hf_checkpoint("bf16"), "config.json"), tmp_path)
    save_file({"model.layers.0.mlp.down_proj.weight": np.zeros((4, 6), np.float32)}, tmp_path / "model.safetensors")
    with pytest.raises(ascend_mla.CompileError, match=r"tp: 4 does not divide model\.layers\.0\.mlp\.down_proj\.weight's columns \(6\) \[CKPT-TP\]"):
        checkpoint.load_tensors(tmp_path, tp=4)


def test_load_progress_is_reported_in_bytes(hf_checkpoint):
    """checkpoint.reporting: the callback sees the bytes read grow to the total of the tensors
    asked for (what the generate command's loading bar shows)."""
    path = hf_checkpoint("sharded")
    names = checkpoint.attention_names(checkpoint.read_config(path), [1])
    seen = []
    with checkpoint.reporting(lambda done, total: seen.append((done, total))):
        loaded = checkpoint.load_tensors(path, names=names, ignore=lambda n: True)
    total = sum(v.nbytes for v in loaded.values())                     # bf16 in, bf16 out
    assert seen[0] == (0, total) and seen[-1] == (total, total) and len(seen) == len(names) + 1
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))
    checkpoint.load_tensors(path, names=names, ignore=lambda n: True)
    assert len(seen) == len(names) + 1                                 # only inside the block


def _copy(src, dst):
    shutil.copytree(src, dst)
    return str(dst)


def test_tensors_nothing_consumes_and_tensors_missing_are_refused(hf_checkpoint, tmp_path):
    from safetensors.numpy import save_file
    path = _copy(hf_checkpoint("sharded"), tmp_path / "ckpt")
    with open(os.path.join(path, "model.safetensors.index.json")) as f:
        index = json.load(f)
    extra = {"model.layers.0.self_attn.o_proj.bias": np.zeros(7168, np.float32),   # a bias the config hides
             "model.layers.2.embed_tokens.weight": np.zeros((4, 4), np.float32),    # MTP layer: skipped
             "model.layers.0.self_attn.rotary_emb.inv_freq": np.zeros(32, np.float32)}
    save_file(extra, os.path.join(path, "extra.safetensors"))
    index["weight_map"].update({k: "extra.safetensors" for k in extra})
    with open(os.path.join(path, "model.safetensors.index.json"), "w") as f:
        json.dump(index, f)
    consumed = set(index["weight_map"]) - set(extra)     # what a whole-model builder reads
    with pytest.raises(ascend_mla.CompileError,
                       match=r"checkpoint tensor model\.layers\.0\.self_attn\.o_proj\.bias would be ignored.*\[CKPT-UNUSED\]"):
        checkpoint.load_tensors(path, names=consumed)
    # from_pretrained builds the attention of layer 0: the bias is inside it, refused; layer 1's is not read
    with pytest.raises(ascend_mla.CompileError, match=r"o_proj\.bias .*\[CKPT-UNUSED\]"):
        deepseek.from_pretrained(path, layers=1)
    config = checkpoint.read_config(path)
    with pytest.raises(ascend_mla.CompileError, match=r"no tensor model\.layers\.0\.self_attn\.q_proj\.weight .*\[CKPT-MISSING\]"):
        checkpoint.load_tensors(path, config, names={"model.layers.0.self_attn.q_proj.weight"}, ignore=lambda n: True)
    del index["weight_map"]["model.layers.0.self_attn.o_proj.bias"]
    index["weight_map"]["model.norm.weight"] = "model-00009-of-00009.safetensors"
    with open(os.path.join(path, "model.safetensors.index.json"), "w") as f:
        json.dump(index, f)
    with pytest.raises(ascend_mla.CompileError, match=r"names shard model-00009-of-00009\.safetensors, which is not in"):
        checkpoint.load_tensors(path)


def test_an_fp8_weight_without_its_scale_is_refused(hf_checkpoint, tmp_path):
    from safetensors.torch import load_file, save_file
    path = _copy(hf_checkpoint("fp8"), tmp_path / "fp8")
    file = os.path.join(path, "model.safetensors")
    tensors = load_file(file)
    del tensors["model.layers.1.self_attn.kv_b_proj.weight_scale_inv"]
    save_file(tensors, file)
    with pytest.raises(ascend_mla.CompileError, match=r"kv_b_proj\.weight is float8_e4m3fn without .*_scale_inv .*\[CKPT-QUANT\]"):
        checkpoint.load_tensors(path)


# --- the attention blocks against transformers --------------------------------------------------------

def run_compiled(model, program, steps, seed=0):
    """Run `steps` steps of the compiled block on random hidden states (scale 0.3, so the
    residual does not drown the attention's contribution); returns all hidden states and
    outputs, (batch, steps * seq, hidden) float32."""
    rng = np.random.default_rng(seed)
    caches, hidden, outputs = model.new_caches(), [], []
    for step in range(steps):
        inputs = model.inputs(step, caches)
        inputs["hidden_states"] = (rng.standard_normal(inputs["hidden_states"].shape) * 0.3).astype(BF16)
        hidden.append(inputs["hidden_states"].astype(np.float32))
        outputs.append(np.asarray(program(**inputs)[0], np.float32))
    return np.concatenate(hidden, 1), np.concatenate(outputs, 1)


def transformers_attention(model, hidden, layers, heads=None):
    """transformers' own layers 0..layers-1, attention half only (input_layernorm, its
    DeepseekV3Attention with the model's rotary embedding and a causal mask, the residual), on
    the whole sequence at once. heads: only the first `heads` heads reach o_proj (rank 0 of a
    tp slice: the other heads' o_proj columns zeroed, then restored)."""
    b, t, _ = hidden.shape
    with torch.no_grad():
        h = torch.tensor(hidden).to(model.dtype)
        positions = torch.arange(t)[None].expand(b, t)
        rope = model.model.rotary_emb(h, positions)
        mask = torch.full((t, t), float("-inf")).triu(1)[None, None].to(model.dtype)
        for i in range(layers):
            layer = model.model.layers[i]
            o_proj = layer.self_attn.o_proj.weight
            saved = o_proj.clone()
            if heads is not None:
                o_proj[:, heads * model.config.v_head_dim:] = 0
            try:
                h = h + layer.self_attn(layer.input_layernorm(h), rope, mask)[0]
            finally:
                o_proj.copy_(saved)
    return h.float().numpy()


def errors(ours, bf16_ref, fp32_ref, hidden):
    """Max errors relative to max |attention contribution| of the fp32 reference: ours vs fp32,
    ours vs transformers' bf16, and transformers' own bf16 vs fp32 (the noise floor)."""
    scale = np.abs(fp32_ref - hidden).max()
    return (np.abs(ours - fp32_ref).max() / scale, np.abs(ours - bf16_ref).max() / scale,
            np.abs(bf16_ref - fp32_ref).max() / scale)


def assert_fused(program, layers):
    fused = [f["op"] for f in program.report()["fused"]]
    assert fused.count("mla.prolog_v2") == layers and fused.count("mla.fused_infer_attention_score") == layers
    assert program.report()["refused"] == []


# Tolerance: the compiled block rounds at the same points as an unfused bf16 model, so it may
# differ from the fp32 reference by about as much as transformers' own bf16 run does (measured:
# 0.7% both, two layers), and from transformers' bf16 by the two noises combined; twice the
# measured noise floor of the same inputs leaves room for where our roundings fall and still
# fails on any real error (a wrong rotation, scale or eps errs by 10-90%).
NOISE_FACTOR = 2.0


@pytest.mark.parametrize("kind", ["bf16", pytest.param("legacy", marks=pytest.mark.slow)])
def test_attention_matches_transformers(kind, hf_checkpoint, hf_model):
    """Both layers (dense and MoE layer's attention) of the 5.x checkpoint and its 4.x-config
    twin, prefill chunks of 3 tokens then the next chunk from the cache, batch 2, fused."""
    path = hf_checkpoint(kind)
    model = deepseek.from_pretrained(path, layers=2, batch=2, seq=3, block_size=128)
    program = ascend_mla.compile(model)
    assert_fused(program, 2)
    hidden, ours = run_compiled(model, program, steps=2)
    ref16 = transformers_attention(hf_model(hf_checkpoint("bf16")), hidden, 2)
    ref32 = transformers_attention(hf_model(hf_checkpoint("fp32"), "float32"), hidden, 2)
    e32, e16, noise = errors(ours, ref16, ref32, hidden)
    assert noise < 2 ** -6
    assert e32 <= NOISE_FACTOR * noise and e16 <= NOISE_FACTOR * noise, (e32, e16, noise)


HALF = dict(rope_interleave=False, rms_norm_eps=0.25,
            rope_parameters=dict(rope_type="yarn", rope_theta=50000.0, factor=32.0, original_max_position_embeddings=4096,
                                 beta_fast=1, beta_slow=1, mscale=1.0, mscale_all_dim=1.0))


def test_rope_interleave_false_and_the_latent_norms_eps(hf_checkpoint, hf_model):
    """rope_interleave false (the "half" rotation), Kimi-K2's YaRN parameters, and rms_norm_eps
    0.25: transformers uses it for input_layernorm only, the q_a/kv_a norms keep 1e-6 (an eps
    of 0.25 there moves the result by ~10%). The same block with the interleaved rotation
    forced on this checkpoint is far off: the comparison can fail."""
    path = hf_checkpoint("bf16", **HALF)
    config = checkpoint.read_config(path)
    assert config.rope == "half" and config.rms_norm_eps == 0.25 and config.latent_norm_eps == 1e-6
    model = deepseek.from_pretrained(path, layers=1, batch=1, seq=4, block_size=128)
    program = ascend_mla.compile(model)
    assert_fused(program, 1)
    hidden, ours = run_compiled(model, program, steps=2, seed=1)
    ref16 = transformers_attention(hf_model(path), hidden, 1)
    ref32 = transformers_attention(hf_model(path, "float32"), hidden, 1)
    e32, e16, noise = errors(ours, ref16, ref32, hidden)
    assert e32 <= NOISE_FACTOR * noise and e16 <= NOISE_FACTOR * noise, (e32, e16, noise)
    wrong = deepseek.build("wrong", config=config.build_config(), weights=deepseek.load_weights(path, [0]),
                           layers=1, batch=1, seq=4, block_size=128, rope="interleave")
    _, off = run_compiled(wrong, ascend_mla.compile(wrong), steps=2, seed=1)
    assert errors(off, ref16, ref32, hidden)[0] > 10 * NOISE_FACTOR * noise
    with pytest.raises(ValueError, match="rope: the checkpoint's rope_interleave says 'half'"):
        deepseek.from_pretrained(path, rope="interleave")


def test_a_tp_slice_is_rank_0s_heads_of_transformers_attention(hf_checkpoint, hf_model):
    """tp=4: heads 0-1 of 8; o_proj's output is the partial sum over them (the all-reduce is
    outside the block); transformers' attention with the other heads' o_proj columns zeroed."""
    path = hf_checkpoint("bf16")
    model = deepseek.from_pretrained(path, tp=4, layers=1, batch=2, seq=1, block_size=128)
    program = ascend_mla.compile(model)
    assert model.config["heads"] == 2
    assert_fused(program, 1)
    hidden, ours = run_compiled(model, program, steps=3, seed=2)
    ref16 = transformers_attention(hf_model(path), hidden, 1, heads=2)
    ref32 = transformers_attention(hf_model(hf_checkpoint("fp32"), "float32"), hidden, 1, heads=2)
    e32, e16, noise = errors(ours, ref16, ref32, hidden)
    assert e32 <= NOISE_FACTOR * noise and e16 <= NOISE_FACTOR * noise, (e32, e16, noise)


@pytest.fixture(scope="module")
def fp8_reference(hf_checkpoint):
    """transformers' fp32 and bf16 models carrying the FP8 checkpoint's dequantized weights."""
    models = {}
    for dtype in ("float32", "bfloat16"):
        model = hf.load_transformers(hf_checkpoint("bf16"), dtype)
        weights = {k: torch.tensor(v) for k, v in hf.fp8_dequantized(hf_checkpoint("fp8")).items()}
        model.load_state_dict(weights, strict=False)
        models[dtype] = model
    return models


# int8 tolerance: per-token activation quantization before each projection and per-channel int8
# weights add ~0.4% of a row's max per stage (the model tests measure 2-3% over two layers);
# 2^-4 of max|attention|, as test_deepseek_models' TOLERANCE, against the fp32 reference.
@pytest.mark.parametrize("quant,tolerance", [("bf16", None), ("w8a8", 2.0 ** -4), ("w8a8c8", 2.0 ** -4)])
def test_an_fp8_checkpoint_runs_as_bf16_or_w8a8(quant, tolerance, hf_checkpoint, fp8_reference):
    path = hf_checkpoint("fp8")
    model = deepseek.from_pretrained(path, quant=quant, layers=1, batch=2, seq=1, block_size=128,
                                     cache_mode="PA_NZ" if quant == "w8a8c8" else "PA_BSND")
    assert model.weights["model.layers.0.self_attn.q_b_proj.weight"].dtype == (BF16 if quant == "bf16" else np.int8)
    program = ascend_mla.compile(model)
    assert_fused(program, 1)
    hidden, ours = run_compiled(model, program, steps=3, seed=3)
    ref16 = transformers_attention(fp8_reference["bfloat16"], hidden, 1)
    ref32 = transformers_attention(fp8_reference["float32"], hidden, 1)
    e32, e16, noise = errors(ours, ref16, ref32, hidden)
    if tolerance is None:
        assert e32 <= NOISE_FACTOR * noise and e16 <= NOISE_FACTOR * noise, (e32, e16, noise)
    else:
        assert e32 <= tolerance, (e32, noise)

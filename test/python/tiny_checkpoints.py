"""Tiny DeepSeek-V3-architecture checkpoints written without transformers, in a second (the
fuzzers' and the untrusted-input tests' starting points): deepseek.build's seeded random weights
under their Hugging Face names, float32 safetensors, a transformers-5-style config.json. The
dims are far below the fused operators' (the prolog and FIA are refused by rule and the graph
runs unfused), which keeps a compile to a few seconds."""
from __future__ import annotations

import json
import os

import numpy as np

TINY = dict(model_type="deepseek_v3", architectures=["DeepseekV3ForCausalLM"], vocab_size=64, hidden_size=64,
            intermediate_size=32, moe_intermediate_size=16, num_hidden_layers=2, num_attention_heads=2,
            num_key_value_heads=2, q_lora_rank=32, kv_lora_rank=32, qk_nope_head_dim=16, qk_rope_head_dim=16,
            v_head_dim=16, n_routed_experts=4, n_shared_experts=1, num_experts_per_tok=2, n_group=2, topk_group=1,
            first_k_dense_replace=1, routed_scaling_factor=2.5, norm_topk_prob=True, scoring_func="sigmoid",
            topk_method="noaux_tc", max_position_embeddings=256, rms_norm_eps=1e-6, rope_interleave=True,
            tie_word_embeddings=False, bos_token_id=0, eos_token_id=1, hidden_act="silu",
            rope_parameters=dict(rope_type="yarn", rope_theta=10000.0, factor=4.0,
                                 original_max_position_embeddings=64, beta_fast=32, beta_slow=1, mscale=1.0,
                                 mscale_all_dim=1.0))


def tiny_weights(config=None, seed=0) -> dict:
    """name -> float32 array of every tensor of the model (Hugging Face names; the routed experts
    stacked as transformers 5 saves them)."""
    from ascend_mla.models import checkpoint, deepseek
    c = checkpoint.read_config(dict(TINY, **(config or {}))).build_config()
    model = deepseek.build("tiny", config=c, layers=c["num_hidden_layers"], decoder=True, seed=seed)
    return {k: np.asarray(v, np.float32) for k, v in model.weights.items()
            if not k.startswith(("model.rotary_emb.", "tp."))}


def write_tiny(path, config=None, tensors=None, seed=0, shards=1) -> str:
    """The directory: config.json (TINY + `config`), the tensors (default tiny_weights) in one
    model.safetensors or `shards` files with an index."""
    from safetensors.numpy import save_file
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(dict(TINY, **(config or {})), f, indent=1)
    tensors = tiny_weights(config, seed) if tensors is None else tensors
    names = sorted(tensors)
    if shards == 1:
        save_file({n: np.ascontiguousarray(tensors[n]) for n in names}, os.path.join(path, "model.safetensors"))
        return str(path)
    weight_map = {}
    for k in range(shards):
        file = f"model-{k + 1:05d}-of-{shards:05d}.safetensors"
        save_file({n: np.ascontiguousarray(tensors[n]) for n in names[k::shards]}, os.path.join(path, file))
        weight_map.update({n: file for n in names[k::shards]})
    with open(os.path.join(path, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f, indent=1)
    return str(path)

"""Write a small DeepSeek-V3-architecture checkpoint with transformers, as a Hugging Face
directory (config.json + model.safetensors, transformers 5's format), to try `ascend-mla
generate` and `deepseek.CausalLM` without downloading a model.

    .venv/bin/python examples/write_checkpoint.py DIR
    .venv/bin/python examples/write_checkpoint.py --family minicpm3 DIR

With --family, a small checkpoint of another MLA family, written by that family's own
transformers class (FAMILIES below: the family's real attention dimensions, 2 layers, a few
experts, vocab 512; hidden 7168 where the fused prolog's rules depend on it, 256 elsewhere).

The attention has DeepSeek-V3's own dimensions (hidden 7168, q_lora_rank 1536, kv_lora_rank
512, rope 64, nope 128, v 128: what the fused Ascend operators take), the rest is small: 8
heads, 2 layers (layer 0 a dense MLP, layer 1 a MoE of 8 routed experts in 2 groups, 2 per
token, plus a shared one), vocab 512, YaRN as DeepSeek-V3 ships it. Weights are random
(transformers' init, seeded; the norms' gammas, the router's correction bias and the lm_head
scale perturbed so each matters); about 160 MB. A real checkpoint directory (DeepSeek-V3/R1,
Kimi-K2, DeepSeek-V2, from the hub) is used the same way.
"""
from __future__ import annotations

import os
import sys

YARN = dict(rope_type="yarn", rope_theta=10000.0, factor=40.0, original_max_position_embeddings=4096,
            beta_fast=32, beta_slow=1, mscale=1.0, mscale_all_dim=1.0)
SMALL = dict(vocab_size=512, hidden_size=7168, intermediate_size=256, moe_intermediate_size=64,
             num_hidden_layers=2, num_attention_heads=8, num_key_value_heads=8, q_lora_rank=1536,
             kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128,
             n_routed_experts=8, n_shared_experts=1, num_experts_per_tok=2, n_group=2, topk_group=1,
             first_k_dense_replace=1, routed_scaling_factor=2.5, norm_topk_prob=True,
             max_position_embeddings=4096, rms_norm_eps=1e-6, rope_parameters=YARN, rope_interleave=True,
             tie_word_embeddings=False, bos_token_id=0, eos_token_id=1)


# The other families: (transformers' config class, its causal-LM class, the small config). Each
# keeps the family's own attention dims (q_lora_rank, kv_lora_rank, nope, rope, v); the rest is
# small: 4 heads, hidden 256 (7168 and 8 heads where the fused prolog can take the model: its
# rules fix He), 2 layers (the first dense, the second MoE where the family has both), 4 routed
# experts, vocab 512, token ids 0/1 for BOS/EOS.
_SMALL = dict(vocab_size=512, hidden_size=256, intermediate_size=256, num_hidden_layers=2, num_attention_heads=4,
              num_key_value_heads=4, max_position_embeddings=4096, bos_token_id=0, eos_token_id=1,
              tie_word_embeddings=False)
_MOE = dict(moe_intermediate_size=64, n_routed_experts=4, n_shared_experts=1, num_experts_per_tok=2, n_group=1,
            topk_group=1)
_V3_ATTENTION = dict(q_lora_rank=1536, kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128)
FAMILIES = {
    "deepseek_v3": ("DeepseekV3Config", "DeepseekV3ForCausalLM", SMALL),
    "deepseek_v2": ("DeepseekV2Config", "DeepseekV2ForCausalLM",
                    dict(_SMALL, **_MOE, **dict(_V3_ATTENTION, q_lora_rank=None), first_k_dense_replace=1,
                         topk_method="greedy", norm_topk_prob=False, routed_scaling_factor=1.0)),
    "minicpm3": ("MiniCPM3Config", "MiniCPM3ForCausalLM",
                 dict(_SMALL, q_lora_rank=768, kv_lora_rank=256, qk_nope_head_dim=64, qk_rope_head_dim=32,
                      v_head_dim=64, scale_emb=12, scale_depth=1.4, dim_model_base=64, tie_word_embeddings=True)),
    "glm4_moe_lite": ("Glm4MoeLiteConfig", "Glm4MoeLiteForCausalLM",
                      dict(_SMALL, **_MOE, q_lora_rank=768, kv_lora_rank=512, qk_nope_head_dim=192,
                           qk_rope_head_dim=64, v_head_dim=256, routed_scaling_factor=1.8)),
    "longcat_flash": ("LongcatFlashConfig", "LongcatFlashForCausalLM",
                      dict({k: v for k, v in _SMALL.items() if k not in ("num_hidden_layers", "intermediate_size")},
                           **_V3_ATTENTION, head_dim=64, num_layers=2, ffn_hidden_size=256, expert_ffn_hidden_size=64,
                           n_routed_experts=4, zero_expert_num=2, moe_topk=2, routed_scaling_factor=6.0)),
    "mistral4": ("Mistral4Config", "Mistral4ForCausalLM",
                 dict(_SMALL, **dict(_MOE, n_group=2), q_lora_rank=1024, kv_lora_rank=256, qk_nope_head_dim=64,
                      qk_rope_head_dim=64, v_head_dim=128, first_k_dense_replace=1, pad_token_id=2,
                      max_position_embeddings=2048,
                      # Llama 4 query scaling past position 16 (the real model: past 8192)
                      rope_parameters=dict(type="yarn", rope_theta=10000.0, factor=128.0, original_max_position_embeddings=16,
                                           beta_fast=32.0, beta_slow=1.0, mscale=1.0, mscale_all_dim=1.0,
                                           llama_4_scaling_beta=0.1, partial_rotary_factor=0.5))),
    "youtu": ("YoutuConfig", "YoutuForCausalLM", dict(_SMALL, **_V3_ATTENTION, tie_word_embeddings=True)),
    "axk1": ("AXK1Config", "AXK1ForCausalLM",
             dict(_SMALL, **dict(_MOE, n_group=2), **_V3_ATTENTION, **dict(hidden_size=7168, num_attention_heads=8,
                  num_key_value_heads=8), first_k_dense_replace=1)),
    "sarvam_mla": ("SarvamMLAConfig", "DeepseekV3ForCausalLM",
                   dict(_SMALL, **_MOE, **dict(_V3_ATTENTION, q_lora_rank=None), first_k_dense_replace=1,
                        initializer_range=0.02)),
    # DSA: the indexer's real sizes (64 or 32 heads of 128) and a top-6 that is sparse from the 7th token on
    "deepseek_v32": ("DeepseekV32Config", "DeepseekV32ForCausalLM",
                     dict({k: v for k, v in SMALL.items() if k != "rope_interleave"}, index_n_heads=64,
                          index_head_dim=128, index_topk=6)),
    "glm_moe_dsa": ("GlmMoeDsaConfig", "GlmMoeDsaForCausalLM",
                    dict(_SMALL, **_MOE, q_lora_rank=2048, kv_lora_rank=512, qk_nope_head_dim=192, qk_rope_head_dim=64,
                         v_head_dim=256, first_k_dense_replace=1, index_n_heads=32, index_head_dim=128, index_topk=6)),
    "kimi_k25": ("Kimi_K25Config", "Kimi_K25ForConditionalGeneration",
                 dict(text_config=dict(_SMALL, **_MOE, **_V3_ATTENTION, model_type="deepseek_v3", first_k_dense_replace=1),
                      vision_config=dict(num_attention_heads=2, num_hidden_layers=1, hidden_size=32, intermediate_size=32,
                                         pos_emb_height=4, pos_emb_width=4),
                      projection_hidden_size=32, tie_word_embeddings=False)),
}


def write_family_checkpoint(family, path, *, seed=0, lm_head_scale=8.0, **overrides):
    """(directory, transformers' bf16 model) of a small checkpoint of `family` (FAMILIES), random
    init, save_pretrained; overrides go into its config."""
    import torch
    import transformers
    config_class, model_class, small = FAMILIES[family]
    config = getattr(transformers, config_class)(**dict(small, **overrides))
    torch.manual_seed(seed)
    return str(path), _written(getattr(transformers, model_class)(config), seed, lm_head_scale, path)


def write_checkpoint(path, *, seed=0, lm_head_scale=8.0, **overrides) -> str:
    """A DeepseekV3ForCausalLM of SMALL (+ overrides) in bf16, random init, save_pretrained."""
    import torch
    from transformers import DeepseekV3Config, DeepseekV3ForCausalLM
    config = DeepseekV3Config(**dict(SMALL, **overrides))
    torch.manual_seed(seed)
    _written(DeepseekV3ForCausalLM(config), seed, lm_head_scale, path)
    return str(path)


def _written(model, seed, lm_head_scale, path):
    """The model (built after torch.manual_seed(seed)) with its norms, router bias and lm_head
    perturbed, saved in bf16 to `path`; returned in bf16, eval mode."""
    import torch
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name and p.dim() == 1 and name.endswith("bias"):     # a LayerNorm's (the DSA indexer's)
                p.copy_(torch.empty_like(p).uniform_(-0.1, 0.1, generator=generator))
            elif "norm" in name and p.dim() == 1:      # gammas of ones would hide a wrong norm
                p.copy_(torch.empty_like(p).uniform_(0.7, 1.3, generator=generator))
        for name, b in model.named_buffers():
            if name.endswith("e_score_correction_bias"):
                b.copy_(torch.randn(b.shape, generator=generator) * 0.05)
        model.lm_head.weight.mul_(lm_head_scale)    # clearer top-1 margins for greedy comparisons
    model = model.to(torch.bfloat16).eval()
    model.save_pretrained(path)
    return model


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    family = None
    if len(argv) == 3 and argv[0] == "--family" and argv[1] in FAMILIES:
        family, argv = argv[1], argv[2:]
    if len(argv) != 1:
        print(f"usage: write_checkpoint.py [--family {{{','.join(FAMILIES)}}}] DIR", file=sys.stderr)
        return 2
    path = argv[0]
    from transformers.utils import logging
    logging.disable_progress_bar()
    if family is None or family == "deepseek_v3":
        write_checkpoint(path)
        what = "DeepSeek-V3 architecture, 2 layers, 8 heads"
    else:
        write_family_checkpoint(family, path)
        what = f"{family} ({FAMILIES[family][1]}), small"
    size = sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))
    print(f"wrote {path}: {what}, vocab 512, bf16 ({size / 2 ** 20:.0f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

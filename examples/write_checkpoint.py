"""Write a small DeepSeek-V3-architecture checkpoint with transformers, as a Hugging Face
directory (config.json + model.safetensors, transformers 5's format), to try `ascend-mla
generate` and `deepseek.CausalLM` without downloading a model.

    .venv/bin/python examples/write_checkpoint.py DIR

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


def write_checkpoint(path, *, seed=0, lm_head_scale=8.0, **overrides) -> str:
    """A DeepseekV3ForCausalLM of SMALL (+ overrides) in bf16, random init, save_pretrained."""
    import torch
    from transformers import DeepseekV3Config, DeepseekV3ForCausalLM
    config = DeepseekV3Config(**dict(SMALL, **overrides))
    torch.manual_seed(seed)
    model = DeepseekV3ForCausalLM(config)
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):         # gammas of ones would hide a wrong norm
                p.copy_(torch.empty_like(p).uniform_(0.7, 1.3, generator=generator))
        for name, b in model.named_buffers():
            if name.endswith("e_score_correction_bias"):
                b.copy_(torch.randn(b.shape, generator=generator) * 0.05)
        model.lm_head.weight.mul_(lm_head_scale)    # clearer top-1 margins for greedy comparisons
    model.to(torch.bfloat16).save_pretrained(path)
    return str(path)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: write_checkpoint.py DIR", file=sys.stderr)
        return 2
    path = argv[0]
    from transformers.utils import logging
    logging.disable_progress_bar()
    write_checkpoint(path)
    size = sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))
    print(f"wrote {path}: DeepSeek-V3 architecture, 2 layers, 8 heads, vocab 512, bf16 ({size / 2 ** 20:.0f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

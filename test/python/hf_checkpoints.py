"""Small DeepSeek-V3-architecture checkpoints written by transformers itself (the tests'
independent reference), and the copies a user meets on the hub: fp32, sharded, a transformers
4.x config, block FP8. Used through the fixtures in conftest.py (`hf_checkpoint`, `hf_model`).

The model is examples/write_checkpoint.py's (SMALL): the MLA prolog's dims (hidden 7168,
q_lora_rank 1536, kv_lora_rank 512, rope 64, nope 128, v 128: what the fused operators accept),
everything else small: 8 heads, 2 layers (layer 0 dense, layer 1 MoE with 8 routed experts in 2
groups, 2 per token, 1 shared), vocab 512. Random init by transformers, then the norms' gammas,
the router's correction bias and the lm_head scale perturbed so that each matters."""
from __future__ import annotations

import json
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
from write_checkpoint import SMALL, YARN  # noqa: E402,F401
from write_checkpoint import write_checkpoint as write_transformers_checkpoint  # noqa: E402,F401


def _tensors(path) -> dict:
    """name -> torch tensor of every safetensors file of a directory."""
    from safetensors.torch import load_file
    out = {}
    for f in sorted(os.listdir(path)):
        if f.endswith(".safetensors"):
            out.update(load_file(os.path.join(path, f)))
    return out


def _copy_config(src, dst, edit=None):
    os.makedirs(dst, exist_ok=True)
    with open(os.path.join(src, "config.json")) as f:
        config = json.load(f)
    if edit:
        config = edit(config)
    with open(os.path.join(dst, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    for extra in ("generation_config.json", "tokenizer.json", "tokenizer_config.json"):
        if os.path.exists(os.path.join(src, extra)):
            shutil.copy(os.path.join(src, extra), dst)


def fp32_copy(src, dst) -> str:
    """The same weights stored as float32 (config dtype float32)."""
    import torch
    from safetensors.torch import save_file
    _copy_config(src, dst, lambda c: dict(c, dtype="float32"))
    save_file({k: v.to(torch.float32) for k, v in _tensors(src).items()}, os.path.join(dst, "model.safetensors"),
              metadata={"format": "pt"})
    return str(dst)


def sharded_copy(src, dst, shards=3) -> str:
    """The same tensors over `shards` files with a model.safetensors.index.json, as the hub has."""
    from safetensors.torch import save_file
    _copy_config(src, dst)
    tensors = _tensors(src)
    names = sorted(tensors)
    weight_map = {}
    for k in range(shards):
        file = f"model-{k + 1:05d}-of-{shards:05d}.safetensors"
        part = names[k::shards]
        save_file({n: tensors[n].contiguous() for n in part}, os.path.join(dst, file), metadata={"format": "pt"})
        weight_map.update({n: file for n in part})
    with open(os.path.join(dst, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f, indent=2)
    return str(dst)


def legacy_config_copy(src, dst) -> str:
    """The transformers 4.x config format: rope_theta and rope_scaling (type yarn), torch_dtype."""
    def legacy(c):
        c = dict(c)
        rope = dict(c.pop("rope_parameters"))
        c["rope_theta"] = rope.pop("rope_theta")
        kind = rope.pop("rope_type")
        c["rope_scaling"] = None if kind == "default" else dict(rope, type=kind)
        c["torch_dtype"] = c.pop("dtype", "bfloat16")
        c["transformers_version"] = "4.46.3"
        return c
    _copy_config(src, dst, legacy)
    for f in os.listdir(src):
        if f.endswith(".safetensors"):
            os.link(os.path.join(src, f), os.path.join(dst, f))
    return str(dst)


FP8_MAX = 448.0          # largest finite float8_e4m3fn


def fp8_quantize(w, block=128):
    """DeepSeek's block FP8 of a 2-D float tensor: per (block x block) tile scale = amax / 448,
    weight = float8_e4m3fn(w / scale), weight_scale_inv = scale (float32, tiles ceil-divided)."""
    import torch
    w = w.to(torch.float32)
    rows, cols = w.shape
    tr, tc = -(-rows // block), -(-cols // block)
    padded = torch.zeros(tr * block, tc * block)
    padded[:rows, :cols] = w
    tiles = padded.view(tr, block, tc, block)
    scale = tiles.abs().amax(dim=(1, 3)).clamp(min=1e-12) / FP8_MAX
    q = (tiles / scale[:, None, :, None]).view(tr * block, tc * block)[:rows, :cols]
    return q.to(torch.float8_e4m3fn), scale.to(torch.float32)


def fp8_copy(src, dst, block=128) -> str:
    """The hub's FP8 format of DeepSeek-V3/R1 and Kimi-K2: every linear weight inside the
    decoder layers float8_e4m3fn with `<name>_scale_inv`; embeddings, lm_head, norms and the
    router as they were; quantization_config quant_method fp8, 128x128 blocks."""
    from safetensors.torch import save_file
    _copy_config(src, dst, lambda c: dict(c, quantization_config=dict(
        activation_scheme="dynamic", fmt="e4m3", quant_method="fp8", weight_block_size=[block, block])))
    out = {}
    for name, t in _tensors(src).items():
        if name.startswith("model.layers.") and name.endswith("proj.weight") or ".proj_with_mqa." in name:
            out[name], out[name + "_scale_inv"] = fp8_quantize(t, block)
        else:
            out[name] = t
    save_file(out, os.path.join(dst, "model.safetensors"), metadata={"format": "pt"})
    return str(dst)


def fp8_dequantized(path) -> dict:
    """name -> float32 NumPy of an FP8 copy, dequantized by torch (the tests' reference)."""
    import torch
    out = {}
    tensors = _tensors(path)
    for name, t in tensors.items():
        if name.endswith("_scale_inv"):
            continue
        if t.dtype == torch.float8_e4m3fn:
            s = tensors[name + "_scale_inv"]
            full = s.repeat_interleave(128, 0).repeat_interleave(128, 1)[:t.shape[0], :t.shape[1]]
            out[name] = (t.to(torch.float32) * full).numpy()
        else:
            out[name] = t.to(torch.float32).numpy()
    return out


def load_transformers(path, dtype="bfloat16"):
    """transformers' own model of a checkpoint directory, eager attention, eval mode."""
    import torch
    from transformers import AutoModelForCausalLM
    model = AutoModelForCausalLM.from_pretrained(path, dtype=getattr(torch, dtype), attn_implementation="eager")
    return model.eval()


def reference_weights(path) -> dict:
    """name -> float32 NumPy of a (non-FP8) checkpoint, read by safetensors' torch reader."""
    return {k: v.float().numpy() for k, v in _tensors(path).items()}


def np_bf16(x):
    import ml_dtypes
    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16)

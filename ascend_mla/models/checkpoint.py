"""Hugging Face checkpoints of the MLA families as they are shipped (docs/api.md).

    from ascend_mla.models import checkpoint
    config = checkpoint.read_config(path)              # a frozen ModelConfig
    weights = checkpoint.load_tensors(path, config, names=wanted, quant=None)

`read_config` reads config.json in the formats transformers 4.x (`rope_theta`, `rope_scaling`)
and 5.x (`rope_parameters`) write, for every MLA family of families.py (DeepseekV2/V3, Kimi-K2,
MiniCPM3, GLM-4.7-Flash, LongCat-Flash, ...), through the family's description, checking every
key against its row of the family's key table (config_keys.family_keys): what a config leaves
out takes transformers' defaults for its model type. `load_tensors` reads safetensors files (one,
or shards through model.safetensors.index.json) as untrusted input (checkpoint_files.py: only
regular files inside the directory, every header checked) over a memory map, so float8 tensors
come in as ml_dtypes.float8_e4m3fn (safetensors' NumPy reader has no float8) and only the
tensors asked for are touched. Every refusal is a CompileError naming what it refuses and a
rule ID (CKPT-*, listed in docs/errors.md):

    CKPT-CONFIG   config.json missing, unreadable, not an MLA model family (families.py), or a
                  key of the wrong type, out of bounds, or inconsistent with another
    CKPT-FAMILY   an MLA family with layers the compiler has no ops for (families.REFUSED)
    CKPT-ROPE     a rope type other than default/yarn, YaRN without factor or
                  original_max_position_embeddings, a partial rotary factor
    CKPT-BIAS     attention_bias / mlp_bias: the compiled graph has no bias
    CKPT-ACT      hidden_act other than silu (the MLP is SwiGLU)
    CKPT-QUANT    a quantization method other than block FP8, an FP8 weight without its
                  weight_scale_inv, a tensor dtype we cannot read
    CKPT-FILES    no safetensors, an index naming a missing shard, a tensor in two files
    CKPT-MISSING  a tensor the caller consumes is not in the checkpoint
    CKPT-UNUSED   a checkpoint tensor nobody consumes (it would be dropped silently)
    CKPT-TP       a tensor-parallel split that does not divide a dimension
    CKPT-PATH     a file name that leaves the directory (absolute, `..`, a link outside),
                  or a file that is not a regular file (a FIFO, a device, a directory)
    CKPT-HEADER   a safetensors header the format does not allow (length, JSON, dtypes,
                  shapes, offsets out of bounds, overlapping, not shape x dtype size)
    CKPT-NONFINITE  a floating weight holding NaN or Inf (allow_nonfinite=True loads it)
    CKPT-MEMORY   the weights of what is built do not fit the memory available
"""
from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import hashlib
import math
import os
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

import ml_dtypes
import numpy as np

from .checkpoint_files import CheckpointDir, Mapped, library_check, open_regular, read_header
from .config_keys import MLA_KEYS, QUANT_KEYS, ROPE_KEYS, family_keys

BF16 = ml_dtypes.bfloat16
F8E4M3 = ml_dtypes.float8_e4m3fn

# q_a_layernorm and kv_a_layernorm: transformers' DeepseekV2/V3Attention and DeepSeek's own code
# build them with the RMSNorm default eps 1e-6, whatever config.rms_norm_eps says.
LATENT_NORM_EPS = 1e-6


class CheckpointNote(UserWarning):
    """Something about a checkpoint a user should know that is not an error: a layer skipped
    (multi-token prediction), keys nobody reads, the positions capped by memory. Issued once
    through `warnings` by from_pretrained, and kept in `CausalLM.notes`; `ascend-mla generate`
    prints each as a `note:` line."""


def _error(message: str, rule: str):
    from .. import CompileError  # the package's, wherever it lives
    return CompileError(f"{message} [{rule}]")


# --- the config -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class ModelConfig:
    """What a DeepSeek V2/V3/Kimi-K2 decoder needs from config.json (Hugging Face names).

    rope_*: the rotary embedding, normalized from either config format; rope_attention_factor is
    the cos/sin multiplier YaRN applies (transformers' attention_scaling), softmax_scale the
    attention's (with YaRN's mscale_all_dim). MoE fields are None/0 for a dense model."""
    model_type: str
    architectures: tuple
    vocab_size: int
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    q_lora_rank: int | None
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int
    intermediate_size: int
    moe_intermediate_size: int | None
    n_routed_experts: int | None
    n_shared_experts: int | None
    num_experts_per_tok: int | None
    n_group: int | None
    topk_group: int | None
    routed_scaling_factor: float
    norm_topk_prob: bool
    scoring_func: str
    topk_method: str
    first_k_dense_replace: int
    moe_layer_freq: int
    hidden_act: str
    rms_norm_eps: float
    rope_theta: float
    rope_type: str                                   # "default" or "yarn"
    rope_factor: float | None
    rope_original_max_position_embeddings: int | None
    rope_beta_fast: float | None
    rope_beta_slow: float | None
    rope_mscale: float | None
    rope_mscale_all_dim: float | None
    rope_attention_factor: float
    rope_truncate: bool
    rope_interleave: bool
    attention_bias: bool
    tie_word_embeddings: bool
    max_position_embeddings: int
    torch_dtype: str | None
    quantization_config: dict | None = field(default=None, hash=False)
    num_nextn_predict_layers: int = 0
    bos_token_id: int | None = None
    eos_token_id: int | tuple | None = None
    latent_norm_eps: float = LATENT_NORM_EPS
    # -- how the family (model_type) differs from DeepSeek-V3 (families.py); defaults: DeepSeek's --
    layer_kind: str = "pre_norm"                     # or "dual" (LongCat)
    mlp_layer_types: tuple = ()                      # per layer "dense"/"sparse"; (): first_k_dense_replace
    router_weight: str = "gate"                      # mlp.<router_weight>.weight
    score_bias: bool | None = None                   # e_score_correction_bias in the choice (None: sigmoid)
    group_score: str | None = None                   # "top2" / "max" (None: sigmoid top2, softmax max)
    zero_experts: int = 0                            # identity experts after the routed ones (LongCat)
    moe_output_norm: bool = False                    # RmsNorm on the MoE output (A.X-K1)
    embedding_scale: float | None = None             # MiniCPM3
    residual_scale: float | None = None              # MiniCPM3
    logits_divisor: float | None = None              # MiniCPM3
    q_lora_scale: float | None = None                # LongCat
    kv_lora_scale: float | None = None               # LongCat
    query_scale_beta: float | None = None            # Mistral 4 (Llama 4 query scaling)
    attention: str = "mla"                           # the attention block (deepseek.ATTENTIONS)
    index_n_heads: int | None = None                 # DSA (attention "dsa"): the indexer's heads,
    index_head_dim: int | None = None                # their dim, its top-k, and its RoPE ("half":
    index_topk: int | None = None                    # rotate-half, DeepSeek-V3.2; "interleave": GLM-5)
    indexer_rope: str = "half"
    rope_short_factor: tuple | None = None           # LongRoPE (MiniCPM3): per-frequency divisors
    rope_long_factor: tuple | None = None            # (past the original context; refused there)
    notes: tuple = field(default=(), compare=False, hash=False)    # what reading it found to say

    # -- derived --
    @property
    def rope(self) -> str:
        """The Rope primitive's mode: "interleave" (pairs, DeepSeek's layout) or "half"."""
        return "interleave" if self.rope_interleave else "half"

    @property
    def softmax_scale(self) -> float:
        scale = (self.qk_nope_head_dim + self.qk_rope_head_dim) ** -0.5
        if self.rope_type == "yarn" and self.rope_mscale_all_dim:
            m = _yarn_mscale(self.rope_factor, self.rope_mscale_all_dim)
            scale *= m * m
        return scale

    @property
    def fp8_block(self) -> tuple | None:
        """(rows, cols) of one FP8 scale block, or None for an unquantized checkpoint."""
        q = self.quantization_config
        return tuple(q.get("weight_block_size") or (128, 128)) if q else None

    def is_moe_layer(self, i: int) -> bool:
        """Layer i has a routed MoE (else a dense SwiGLU MLP), as transformers decides."""
        if self.mlp_layer_types:
            return bool(self.n_routed_experts) and self.mlp_layer_types[i] == "sparse"
        return bool(self.n_routed_experts) and i >= self.first_k_dense_replace \
            and i % max(self.moe_layer_freq, 1) == 0

    def rope_inv_freq(self) -> np.ndarray:
        """The rotary frequencies (Dr/2,) float32, YaRN-blended as transformers computes them."""
        dim, base = self.qk_rope_head_dim, self.rope_theta
        pos_freqs = np.float32(base) ** (np.arange(0, dim, 2, dtype=np.float32) / np.float32(dim))
        if self.rope_type == "longrope":        # the short factors: positions within the original context
            return (np.float32(1.0) / (np.asarray(self.rope_short_factor, np.float32) * pos_freqs)).astype(np.float32)
        if self.rope_type != "yarn":
            return (1.0 / pos_freqs).astype(np.float32)
        extrapolation = np.float32(1.0) / pos_freqs
        interpolation = np.float32(1.0) / (np.float32(self.rope_factor) * pos_freqs)
        original = self.rope_original_max_position_embeddings

        def correction_dim(rotations):
            return dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))
        low, high = correction_dim(self.rope_beta_fast), correction_dim(self.rope_beta_slow)
        if self.rope_truncate:
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, dim - 1)
        if low == high:
            high += 0.001
        ramp = np.clip((np.arange(dim // 2, dtype=np.float32) - np.float32(low)) / np.float32(high - low), 0, 1)
        keep = (np.float32(1.0) - ramp).astype(np.float32)   # 1: extrapolate (high frequencies)
        return (interpolation * (1 - keep) + extrapolation * keep).astype(np.float32)

    def rope_tables(self, positions: int, dtype=BF16):
        """cos, sin (positions, Dr): concat(freqs, freqs) times the attention factor, computed
        in float32 and rounded to `dtype` (the model's rotary embedding)."""
        freqs = np.outer(np.arange(positions, dtype=np.float32), self.rope_inv_freq())
        emb = np.concatenate([freqs, freqs], axis=-1)
        factor = np.float32(self.rope_attention_factor)
        return (np.cos(emb) * factor).astype(dtype), (np.sin(emb) * factor).astype(dtype)

    def build_config(self) -> dict:
        """The hyper-parameter dict `deepseek.build(config=...)` takes (4.x-style rope keys,
        complete: reading it back gives this config)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
               if not f.name.startswith("rope_") and f.name != "notes"}
        out["rope_theta"] = self.rope_theta
        out["rope_interleave"] = self.rope_interleave
        out["rope_scaling"] = None if self.rope_type == "default" else {
            "type": "longrope", "factor": self.rope_factor, "attention_factor": self.rope_attention_factor,
            "original_max_position_embeddings": self.rope_original_max_position_embeddings,
            "short_factor": list(self.rope_short_factor), "long_factor": list(self.rope_long_factor),
        } if self.rope_type == "longrope" else {
            "type": self.rope_type, "factor": self.rope_factor,
            "original_max_position_embeddings": self.rope_original_max_position_embeddings,
            "beta_fast": self.rope_beta_fast, "beta_slow": self.rope_beta_slow, "mscale": self.rope_mscale,
            "mscale_all_dim": self.rope_mscale_all_dim, "attention_factor": self.rope_attention_factor,
            "truncate": self.rope_truncate}
        out["architectures"] = list(self.architectures)
        out["rotary_head_dim"] = self.qk_rope_head_dim       # the rope width, whatever derived it
        return out


def _yarn_mscale(scale: float, mscale: float) -> float:
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


ROPE_TYPES = ("default", "yarn", "longrope")
FAMILY_FIELDS = ("layer_kind", "mlp_layer_types", "router_weight", "score_bias", "group_score",
                 "zero_experts", "moe_output_norm", "embedding_scale", "residual_scale", "logits_divisor",
                 "q_lora_scale", "kv_lora_scale", "query_scale_beta", "attention", "index_n_heads",
                 "index_head_dim", "index_topk", "indexer_rope")
_FIELD_TYPES = {"zero_experts": int, "moe_output_norm": bool, "mlp_layer_types": tuple,
                "layer_kind": str, "attention": str, "router_weight": str, "group_score": str, "score_bias": bool,
                "index_n_heads": int, "index_head_dim": int, "index_topk": int, "indexer_rope": str}


def _field(c: dict, name: str):
    """A family field of the config dict, typed (absent: the dataclass default, DeepSeek's)."""
    if c.get(name) is None:
        return ModelConfig.__dataclass_fields__[name].default
    return _FIELD_TYPES.get(name, float)(c[name])


def read_config(path, keys=None) -> ModelConfig:
    """The ModelConfig of a checkpoint directory, a config.json file, or a config dict: the
    config read through its family's description (families.py: defaults, renamed keys, derived
    fields; a multimodal checkpoint's text model), checked before anything is built: every key
    against its row of the family's key table (config_keys.family_keys, or `keys`: exact JSON
    types, bounds, choices; one CompileError naming the key), then the rules across keys. The
    config's `notes` name the keys nobody knows (ignored)."""
    from . import families
    raw, where = _raw_config(path)
    MLA_KEYS.check_types({k: raw[k] for k in ("model_type", "architectures") if k in raw}, where)
    model_type = raw.get("model_type")
    family, refused = families.resolve(raw)
    if model_type is not None and model_type not in families.FAMILIES:     # model_type decides, not architectures
        family, refused = None, families.REFUSED.get(model_type)
    if family is None:
        if refused:
            raise _error(f"{where}: model_type {model_type!r}: {refused}", "CKPT-FAMILY")
        raise _error(f"{where}: model_type: {model_type!r} is not an MLA model family the compiler knows "
                     f"(supported: {', '.join(families.FAMILIES)}; architectures "
                     f"{', '.join(families.ARCHITECTURES)})", "CKPT-CONFIG")
    outer = raw
    text = raw[family.text_config] if family.text_config and isinstance(raw.get(family.text_config), dict) else raw
    keys = keys or family_keys(family)
    named = {family.renamed.get(k, k): v for k, v in text.items()}       # the family's renamed keys
    keys.check_types(named, where)
    family, c = families.read(raw)
    keys.check_rules(c, where)
    model_type = family.name
    raw = text

    if c.get("attention_bias") or c.get("mlp_bias"):
        which = "attention_bias" if c.get("attention_bias") else "mlp_bias"
        raise _error(f"{where}: {which}: true: the compiled attention and MLP have no bias terms; "
                     f"refusing rather than dropping the biases", "CKPT-BIAS")
    if c["hidden_act"] != "silu":
        raise _error(f"{where}: hidden_act: {c['hidden_act']!r}: the MLP is SwiGLU (silu) only", "CKPT-ACT")
    rope = _rope(raw, c, where)
    quant = raw.get("quantization_config") or outer.get("quantization_config")
    if quant is not None:
        QUANT_KEYS.check_types(quant, f"{where}: quantization_config")
        method = quant.get("quant_method")
        block = quant.get("weight_block_size") or [128, 128]
        if method != "fp8" or quant.get("fmt", "e4m3") != "e4m3" or len(block) != 2:
            raise _error(f"{where}: quantization_config: quant_method {method!r} (fmt {quant.get('fmt')!r}, "
                         f"weight_block_size {block}): only the block-wise FP8 e4m3 format is read", "CKPT-QUANT")
        if not all(isinstance(b, int) and not isinstance(b, bool) and 1 <= b <= 4096 for b in block):
            raise _error(f"{where}: quantization_config: weight_block_size: expected two integers in [1, 4096], "
                         f"got {block!r}", "CKPT-QUANT")
        quant = dict(quant)
    notes = tuple(keys.unknown(named, where)) if where != "config" else ()
    eos = c.get("eos_token_id")
    try:
        return ModelConfig(
            model_type=model_type, architectures=tuple(raw.get("architectures") or ()),
            vocab_size=int(c["vocab_size"]), hidden_size=int(c["hidden_size"]),
            num_hidden_layers=int(c["num_hidden_layers"]), num_attention_heads=int(c["num_attention_heads"]),
            q_lora_rank=None if c.get("q_lora_rank") is None else int(c["q_lora_rank"]),
            kv_lora_rank=int(c["kv_lora_rank"]), qk_nope_head_dim=int(c["qk_nope_head_dim"]),
            qk_rope_head_dim=int(c["qk_rope_head_dim"]), v_head_dim=int(c["v_head_dim"]),
            intermediate_size=int(c["intermediate_size"]),
            moe_intermediate_size=_int_or_none(c.get("moe_intermediate_size")),
            n_routed_experts=_int_or_none(c.get("n_routed_experts")),
            n_shared_experts=_int_or_none(c.get("n_shared_experts")),
            num_experts_per_tok=_int_or_none(c.get("num_experts_per_tok")),
            n_group=_int_or_none(c.get("n_group")), topk_group=_int_or_none(c.get("topk_group")),
            routed_scaling_factor=float(c["routed_scaling_factor"]), norm_topk_prob=bool(c["norm_topk_prob"]),
            scoring_func=str(c["scoring_func"]), topk_method=str(c["topk_method"]),
            first_k_dense_replace=int(c["first_k_dense_replace"]), moe_layer_freq=int(c["moe_layer_freq"]),
            hidden_act=c["hidden_act"], rms_norm_eps=float(c["rms_norm_eps"]),
            rope_interleave=bool(c["rope_interleave"]), attention_bias=False,
            tie_word_embeddings=bool(c["tie_word_embeddings"]),
            max_position_embeddings=int(c["max_position_embeddings"]),
            torch_dtype=raw.get("dtype") or raw.get("torch_dtype"), quantization_config=quant,
            num_nextn_predict_layers=int(c.get("num_nextn_predict_layers") or 0),
            bos_token_id=c.get("bos_token_id"), eos_token_id=tuple(eos) if isinstance(eos, list) else eos,
            latent_norm_eps=float(raw.get("latent_norm_eps", LATENT_NORM_EPS)), notes=notes,
            **{f: _field(c, f) for f in FAMILY_FIELDS}, **rope)
    except (TypeError, ValueError) as e:
        raise _error(f"{where}: {e}", "CKPT-CONFIG") from None


def generation_tokens(path) -> tuple[tuple, int | None]:
    """(end-of-sequence ids, pad id) the way transformers' generate finds them:
    generation_config.json when the checkpoint has one, else config.json. No EOS id: ()."""
    found = {}
    files = CheckpointDir(path)
    for name in ("config.json", "generation_config.json"):        # the second one wins
        raw = files.read_json(name, required=False)
        if raw is None:
            continue
        if not isinstance(raw, dict):
            raise _error(f"{files.label(name)}: expected a JSON object", "CKPT-CONFIG")
        found.update({k: raw[k] for k in ("eos_token_id", "pad_token_id") if raw.get(k) is not None})
    eos = found.get("eos_token_id", ())
    eos = tuple(eos) if isinstance(eos, (list, tuple)) else (eos,)
    if not all(isinstance(e, int) and not isinstance(e, bool) for e in eos):
        raise _error(f"{path}: eos_token_id: expected token ids, got {found.get('eos_token_id')!r}", "CKPT-CONFIG")
    pad = found.get("pad_token_id")
    return eos, pad if isinstance(pad, int) and not isinstance(pad, bool) else None


def _int_or_none(v):
    return None if v is None else int(v)


def _raw_config(path):
    if isinstance(path, dict):
        return path, "config"
    path = os.fspath(path)
    root, name = (path, "config.json") if os.path.isdir(path) else os.path.split(path)
    files = CheckpointDir(root or ".")
    label = files.label(name)
    raw = files.read_json(name, required=False)
    if raw is None:
        raise _error(f"{label}: no config.json (a Hugging Face checkpoint directory has one)", "CKPT-CONFIG")
    if not isinstance(raw, dict):
        raise _error(f"{label}: expected a JSON object", "CKPT-CONFIG")
    return raw, label


def _rope(raw: dict, c: dict, where: str) -> dict:
    """The rope_* fields from rope_parameters (5.x) or rope_theta + rope_scaling (4.x)."""
    params = raw.get("rope_parameters")
    key = "rope_parameters"
    if not params:
        params, key = dict(raw.get("rope_scaling") or {}), "rope_scaling"
    else:
        params = dict(params)
    if params and all(isinstance(v, dict) for v in params.values()):
        raise _error(f"{where}: {key}: per-layer-type rope parameters are not a DeepSeek config", "CKPT-ROPE")
    ROPE_KEYS.check_types(params, f"{where}: {key}")
    kind = params.get("rope_type", params.get("type")) or "default"
    kind = {"deepseek_yarn": "yarn"}.get(kind, kind)           # Sarvam's name for YaRN
    theta = params.get("rope_theta", raw.get("rope_theta", c["rope_theta"]))
    if kind not in ROPE_TYPES:
        raise _error(f"{where}: {key}: unknown rope type {kind!r} (supported: {', '.join(ROPE_TYPES)})", "CKPT-ROPE")
    partial = params.get("partial_rotary_factor", raw.get("partial_rotary_factor", 1.0))
    head = c.get("rotary_head_dim") or c["qk_rope_head_dim"]
    if int(head * (1.0 if partial is None else partial)) != c["qk_rope_head_dim"]:
        raise _error(f"{where}: partial_rotary_factor: {partial}: the rotary embedding's width (its head dim {head} "
                     f"x {partial}) must be the rope part of the head, qk_rope_head_dim {c['qk_rope_head_dim']}",
                     "CKPT-ROPE")
    out = dict(rope_theta=float(theta), rope_type=kind, rope_factor=None, rope_original_max_position_embeddings=None,
               rope_beta_fast=None, rope_beta_slow=None, rope_mscale=None, rope_mscale_all_dim=None,
               rope_attention_factor=1.0, rope_truncate=True)
    if kind == "longrope":
        return _longrope(raw, c, params, key, where, out)
    if kind == "yarn":
        original = raw.get("original_max_position_embeddings", params.get("original_max_position_embeddings"))
        missing = [n for n, v in (("factor", params.get("factor")), ("original_max_position_embeddings", original))
                   if v is None]
        if missing:
            raise _error(f"{where}: {key}: YaRN without {' and '.join(missing)}; refusing to run it as plain RoPE",
                         "CKPT-ROPE")
        factor = float(params["factor"])
        mscale, mscale_all_dim = params.get("mscale"), params.get("mscale_all_dim")
        attention = params.get("attention_factor")
        if attention is None:                        # transformers' _compute_yarn_parameters
            attention = (_yarn_mscale(factor, mscale) / _yarn_mscale(factor, mscale_all_dim)
                         if mscale and mscale_all_dim else _yarn_mscale(factor, 1.0))
        out.update(rope_factor=factor, rope_original_max_position_embeddings=int(original),
                   rope_beta_fast=float(params.get("beta_fast") or 32), rope_beta_slow=float(params.get("beta_slow") or 1),
                   rope_mscale=None if mscale is None else float(mscale),
                   rope_mscale_all_dim=None if mscale_all_dim is None else float(mscale_all_dim),
                   rope_attention_factor=float(attention), rope_truncate=bool(params.get("truncate", True)))
    return out


def _longrope(raw, c, params, key, where, out) -> dict:
    """LongRoPE (MiniCPM3): the rotary frequencies divided by short_factor (long_factor past
    original_max_position_embeddings), cos/sin times the attention factor, as transformers'
    _compute_longrope_parameters. transformers switches every position to the long factors once
    a sequence passes the original context; the compiled tables hold the short ones, so a model
    built past that length is refused (causal_lm.CausalLM)."""
    original = params.get("original_max_position_embeddings", raw.get("original_max_position_embeddings"))
    half = c["qk_rope_head_dim"] // 2
    for name in ("short_factor", "long_factor"):
        factors = params.get(name)
        if not isinstance(factors, (list, tuple)) or len(factors) != half:
            raise _error(f"{where}: {key}: LongRoPE's {name}: expected {half} numbers (one per rotary frequency), "
                         f"got {factors!r}", "CKPT-ROPE")
    if original is None:
        raise _error(f"{where}: {key}: LongRoPE without original_max_position_embeddings", "CKPT-ROPE")
    factor = params.get("factor") or c["max_position_embeddings"] / original
    attention = params.get("attention_factor")
    if attention is None:
        attention = 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(original))
    out.update(rope_factor=float(factor), rope_original_max_position_embeddings=int(original),
               rope_attention_factor=float(attention),
               rope_short_factor=tuple(float(v) for v in params["short_factor"]),
               rope_long_factor=tuple(float(v) for v in params["long_factor"]))
    return out


# --- reading safetensors ----------------------------------------------------------------------------

_DTYPES = {"BF16": BF16, "F16": np.float16, "F32": np.float32, "F64": np.float64, "F8_E4M3": F8E4M3,
           "I8": np.int8, "U8": np.uint8, "I16": np.int16, "I32": np.int32, "I64": np.int64, "BOOL": np.bool_}


def _read(entry, maps: Mapped) -> np.ndarray:
    """The tensor as a read-only view of its checked file's memory map (nothing is read until used)."""
    if entry.dtype not in _DTYPES:
        raise _error(f"{entry.file}: tensor {entry.name}: dtype {entry.dtype} cannot be read (readable: "
                     f"{', '.join(_DTYPES)})", "CKPT-QUANT")
    return np.frombuffer(maps.view(entry), _DTYPES[entry.dtype]).reshape(entry.shape)


INDEX = "model.safetensors.index.json"


def tensor_index(path, config: ModelConfig | None = None) -> dict:
    """name -> Entry of every tensor of the checkpoint directory (sharded or not), every file
    checked (checkpoint_files.py: confined to the directory, regular, a valid header). With the
    config of a family whose text model is part of a larger checkpoint (Kimi-K2.5), the text
    model's tensors by the decoder's names, the others left out (families.Family.rename)."""
    entries = _tensor_index(path)
    family = _family(config)
    if family is None or not (family.tensor_names or family.skipped_tensors):
        return entries
    renamed = {}
    for name, entry in entries.items():
        new = family.rename(name)
        if new is not None:
            renamed[new] = entry
    return renamed


def _family(config):
    from .families import FAMILIES
    return None if config is None else FAMILIES.get(config.model_type)


def _tensor_index(path) -> dict:
    files = CheckpointDir(path)
    index = files.read_json(INDEX, required=False)
    if index is not None:
        weight_map = index.get("weight_map") if isinstance(index, dict) else None
        if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
            raise _error(f"{files.label(INDEX)}: expected {{\"weight_map\": {{tensor name: shard file name}}}}",
                         "CKPT-FILES")
        shards = sorted(set(weight_map.values()))
        for name in shards:
            files.resolve(name, f"{files.label(INDEX)}: shard")
            if not os.path.lexists(files.label(name)):
                raise _error(f"{files.label(INDEX)}: names shard {name}, which is not in {files.path}", "CKPT-FILES")
    else:
        weight_map = None
        shards = sorted(f for f in os.listdir(files.path) if f.endswith(".safetensors")) \
            if os.path.isdir(files.path) else []
    if not shards:
        raise _error(f"{files.path}: no *.safetensors files", "CKPT-FILES")
    entries = {}
    for name in shards:
        what = f"{files.label(INDEX)}: shard" if weight_map is not None else None
        fd = files.open(name, what)
        try:
            header = read_header(fd, files.label(name), files.resolve(name, what))
            library_check(fd, files.label(name))
        finally:
            os.close(fd)
        for key, entry in header.items():
            if key in entries:
                raise _error(f"{files.path}: tensor {key} is in both {os.path.basename(entries[key].file)} and {name}",
                             "CKPT-FILES")
            if weight_map is not None and weight_map.get(key) != name:
                raise _error(f"{files.label(name)}: holds tensor {key}, which {INDEX} "
                             f"{'puts in ' + repr(weight_map[key]) if key in weight_map else 'does not list'}",
                             "CKPT-FILES")
            entries[key] = entry
    if weight_map is not None:
        lost = sorted(set(weight_map) - set(entries))
        if lost:
            raise _error(f"{files.label(INDEX)}: names tensor {lost[0]} in {weight_map[lost[0]]}, which does not "
                         f"hold it{f' ({len(lost) - 1} more)' if len(lost) > 1 else ''}", "CKPT-FILES")
    return entries


def fingerprint(path, index: dict | None = None, samples: int = 16, block: int = 4096) -> str:
    """A digest of a checkpoint that tensor-parallel ranks compare before their first
    collective: config.json, generation_config.json, the index, and of each shard its size, its
    header and `samples` blocks of `block` bytes spread evenly over its data. A sample, not a
    checksum: two checkpoints with the same header that differ only between the samples agree."""
    files = CheckpointDir(path)
    digest = hashlib.sha256()
    for name in ("config.json", "generation_config.json", INDEX):
        fd = files.open(name, required=False)
        if fd is not None:
            try:
                digest.update(name.encode() + b"\0" + os.pread(fd, 1 << 26, 0))
            finally:
                os.close(fd)
    by_file = {}
    for entry in (tensor_index(path) if index is None else index).values():
        by_file.setdefault(entry.real, []).append(entry)
    for real in sorted(by_file):
        entries = by_file[real]
        size, data = entries[0].size, min(e.start for e in entries)
        fd = open_regular(real, entries[0].file)
        try:
            digest.update(str(size).encode() + os.pread(fd, data, 0))
            span = size - data
            for k in range(samples if span > 0 else 0):
                digest.update(os.pread(fd, block, data + span * k // samples))
        finally:
            os.close(fd)
    return digest.hexdigest()


# --- loading ---------------------------------------------------------------------------------------

_LAYER = re.compile(r"model\.layers\.(\d+)\.")
_ATTN_INT8 = ("q_a_proj", "q_b_proj", "q_proj", "kv_a_proj_with_mqa", "o_proj")
# tensors kept in float32: transformers' router computes its logits and choice in float32
FLOAT32_TENSORS = re.compile(r".*\.mlp\.(gate|router\.classifier|router)\.(weight|e_score_correction_bias)$")



def w8a8_int8(name: str) -> bool:
    """Which weights quant="w8a8"/"w8a8c8" turns into int8 (per output channel) by default: the
    attention's projections except kv_b_proj (absorbed into the query and output, bf16 in the
    prolog) and every MLP/expert linear (per-expert tensors, or transformers 5's stacked
    `experts.gate_up_proj` / `experts.down_proj`); embeddings, lm_head, norms and the router stay."""
    m = re.fullmatch(r"model\.layers\.\d+\.(self_attn\.(?:\d+\.)?(\w+)\.weight|(?:mlp\.(experts\.\d+\.|shared_experts\.)?|"
                     r"mlps\.\d+\.)(gate_proj|up_proj|down_proj)\.weight|mlp\.experts\.(gate_up_proj|down_proj))", name)
    return bool(m) and (m.group(2) is None or m.group(2) in _ATTN_INT8)


def attention_names(config: ModelConfig, layers: Iterable[int]) -> set:
    """The checkpoint tensors the attention blocks of `layers` consume (with their input norms)."""
    from .families import blocks
    out = set()
    for block in (b for i in layers for b in blocks(config.layer_kind, i)):
        a = block.attention
        out |= {block.input_norm, a + "kv_a_proj_with_mqa.weight", a + "kv_a_layernorm.weight", a + "kv_b_proj.weight",
                a + "o_proj.weight"}
        out |= ({a + "q_a_proj.weight", a + "q_a_layernorm.weight", a + "q_b_proj.weight"}
                if config.q_lora_rank else {a + "q_proj.weight"})
        if config.attention == "dsa":                # DeepSeek Sparse Attention's indexer (models/dsa.py)
            out |= {f"{a}indexer.{p}" for p in ("wq_b.weight", "wk.weight", "k_norm.weight", "k_norm.bias",
                                                "weights_proj.weight")}
    return out


def _mtp_layer(config: ModelConfig | None):
    """The multi-token-prediction layers' tensors: the num_nextn_predict_layers layers after the
    last decoder layer (DeepSeek-V3's hub checkpoints ship one; transformers does not load it)."""
    def mtp(name):
        m = _LAYER.match(name)
        return bool(m and config is not None and config.num_nextn_predict_layers
                    and config.num_hidden_layers <= int(m.group(1)) < config.num_hidden_layers + config.num_nextn_predict_layers)
    return mtp


def _always_ignored(config: ModelConfig | None):
    """Tensors that are in shipped checkpoints but no part of the causal LM's forward: the
    multi-token-prediction layers (_mtp_layer) and saved rotary buffers (recomputed from the config)."""
    mtp = _mtp_layer(config)
    return lambda name: name.endswith("rotary_emb.inv_freq") or mtp(name)


_REPORT = contextvars.ContextVar("checkpoint_progress", default=None)


@contextlib.contextmanager
def reporting(callback):
    """Within the block, load_tensors calls callback(bytes_read, bytes_total) after each tensor
    (a progress bar: `ascend-mla generate` shows one while a model loads)."""
    token = _REPORT.set(callback)
    try:
        yield
    finally:
        _REPORT.reset(token)


def _predicate(names):
    if names is None:
        return lambda n: True
    if callable(names):
        return names
    wanted = set(names)
    return wanted.__contains__


def load_tensors(path, config: ModelConfig | None = None, *, names=None, ignore=None, quant: str | None = None,
                 int8: Callable[[str], bool] | None = None, tp: int = 1, rank: int = 0, ep: int = 1,
                 allow_nonfinite: bool = False, notes: list | None = None, index: dict | None = None) -> dict:
    """The checkpoint's tensors as NumPy arrays, by their Hugging Face names.

    names: what the caller consumes (a set of names or a predicate; None: everything). Every
    other tensor of the checkpoint must be matched by `ignore` (a predicate: what the caller
    chooses to skip, e.g. layers it does not build) or be one of the always-ignored ones (the
    MTP layers, saved rotary buffers), else CKPT-UNUSED names it. A name in a `names` set the
    checkpoint lacks is CKPT-MISSING.
    dtypes: floating tensors come out bf16 (fp32/fp16 cast, FP8 dequantized with its
    weight_scale_inv blocks), except the MoE router's weight and e_score_correction_bias, which
    stay float32; integer tensors unchanged.
    quant: None/"bf16", or "w8a8"/"w8a8c8": the weights `int8` selects (default w8a8_int8) become
    int8 with a float32 per-output-channel `<name>_scale` ("...weight" -> "...weight_scale",
    (out, 1); a stacked expert tensor (E, out, in) -> (E, out, 1)), symmetric, from the
    dequantized values; "w8a8c8" adds each loaded layer's
    `self_attn.kv_scale` (1, kv_lora_rank) float32, the static int8 scale of the latent cache.
    tp, rank: this rank's slice of the column-parallel linears' rows (q_b/q/kv_b_proj by heads,
    gate/up projections) and the row-parallel ones' columns (o_proj, down projections); the
    rest is replicated. ep, rank: expert parallelism, this rank's routed experts of the stacked
    expert tensors (the caller names only its own per-expert tensors); the rest is replicated.
    allow_nonfinite: load floating tensors holding NaN or Inf (refused by default, CKPT-NONFINITE:
    the model would compute NaN). notes: a list that receives what the load skipped and should
    be said (the multi-token-prediction layers). index: tensor_index(path), when the caller has it."""
    if quant not in (None, "bf16", "w8a8", "w8a8c8"):
        raise ValueError(f"quant: expected None, \"bf16\", \"w8a8\" or \"w8a8c8\", got {quant!r}")
    if not (isinstance(tp, int) and tp >= 1 and isinstance(ep, int) and ep >= 1 and isinstance(rank, int)
            and 0 <= rank < tp * ep):
        raise ValueError(f"tp, ep, rank: expected 0 <= rank < tp * ep, got tp={tp!r} ep={ep!r} rank={rank!r}")
    if config is None:
        config = read_config(path)
    if config.num_attention_heads % tp:
        raise _error(f"{path}: tp={tp} does not divide the {config.num_attention_heads} attention heads", "CKPT-TP")
    entries = tensor_index(path, config) if index is None else index
    scales = {n[:-len("_scale_inv")]: n for n in entries        # FP8 weight -> its scale blocks
              if n.endswith(".weight_scale_inv") and n[:-len("_scale_inv")] in entries}
    owner = {s: w for w, s in scales.items()}
    wanted, skip, builtin = _predicate(names), _predicate(ignore or (lambda n: False)), _always_ignored(config)
    logical = [n for n in entries if n not in owner]
    selected = [n for n in logical if wanted(n)]
    chosen = set(selected)
    unused = [n for n in entries if owner.get(n, n) not in chosen and not skip(n) and not builtin(n)]
    if unused:
        raise _error(f"{path}: checkpoint tensor{'s' if len(unused) > 1 else ''} {', '.join(sorted(unused)[:6])}"
                     f"{f' (and {len(unused) - 6} more)' if len(unused) > 6 else ''} would be ignored: nothing in the "
                     f"model built consumes {'them' if len(unused) > 1 else 'it'}", "CKPT-UNUSED")
    if names is not None and not callable(names):
        missing = sorted(set(names) - set(logical))
        if missing:
            raise _error(f"{path}: the checkpoint has no tensor {', '.join(missing[:6])}"
                         f"{' ...' if len(missing) > 6 else ''}", "CKPT-MISSING")
    mtp = sorted(n for n in entries if _mtp_layer(config)(n))
    if mtp and notes is not None:
        layers = sorted({int(_LAYER.match(n).group(1)) for n in mtp})
        notes.append(f"{path}: num_nextn_predict_layers {config.num_nextn_predict_layers}: the multi-token-prediction "
                     f"layer{'s' * (len(layers) > 1)} {', '.join(map(str, layers))} ({len(mtp)} tensors) "
                     f"{'are' if len(layers) > 1 else 'is'} skipped: tokens come from the main model alone "
                     f"(no speculative decoding)")
    to_int8 = (int8 or w8a8_int8) if quant in ("w8a8", "w8a8c8") else (lambda n: False)
    maps, out, sliced = Mapped(), {}, set()
    report, done = _REPORT.get(), 0
    total = sum(entries[n].end - entries[n].start for n in selected)
    for name in selected:
        if report is not None:
            report(done, total)
            done += entries[name].end - entries[name].start
        value = _read(entries[name], maps)
        # the rank's part of the memory map: only its bytes are read (int8 of an expert's rows is
        # that expert's alone, so ep slices before quantizing; tp's row-parallel scales need whole rows)
        early = (tp > 1 or ep > 1) and value.dtype != F8E4M3 and (ep > 1 or not to_int8(name))
        if early:
            value = _tp_slice(name, value, config, tp, rank, path, ep)
            sliced.add(name)
        if value.dtype == F8E4M3:
            if name not in scales:
                raise _error(f"{path}: {name} is float8_e4m3fn without {name}_scale_inv", "CKPT-QUANT")
            if value.ndim != 2:
                raise _error(f"{entries[name].file}: tensor {name}: an FP8 weight of shape {value.shape}; block FP8 "
                             f"scales 2-D matrices", "CKPT-QUANT")
            scale = np.asarray(_read(entries[scales[name]], maps), np.float32)
            value = _dequantize_fp8(name, value, scale, config.fp8_block or (128, 128), path,
                                    np.float32 if to_int8(name) else BF16)   # int8 from the exact values
        if not _is_float(value):
            out[name] = np.array(value)                # integers as stored (a copy, not the map)
            continue
        if to_int8(name) and value.ndim in (2, 3):
            if not allow_nonfinite:
                _check_finite(entries[name], value)
            out[name], out[name + "_scale"] = _int8_per_channel(value)
            continue
        out[name] = np.asarray(value).astype(np.float32 if FLOAT32_TENSORS.match(name) else BF16)
        if not allow_nonfinite:          # after the cast: an fp32 value past bf16's range is Inf too
            _check_finite(entries[name], out[name])
    if report is not None:
        report(total, total)
    if quant == "w8a8c8":
        for name in [n for n in out if n.endswith(".kv_a_layernorm.weight")]:
            out[name.replace("kv_a_layernorm.weight", "kv_scale")] = kv_cache_scale(out[name])
    if tp > 1 or ep > 1:    # what was read whole: FP8 (its scale blocks) and int8 (per-channel scales of whole rows)
        out = {n: v if n in sliced or n[:-len("_scale")] in sliced else _tp_slice(n, v, config, tp, rank, path, ep)
               for n, v in out.items()}
    return out


# the exponent bits that make a value NaN or Inf, by dtype (checked as integers: no float copy)
_NONFINITE = {np.dtype(BF16): (np.uint16, 0x7F80), np.dtype(np.float16): (np.uint16, 0x7C00),
              np.dtype(np.float32): (np.uint32, 0x7F800000), np.dtype(np.float64): (np.uint64, 0x7FF0000000000000)}


def _check_finite(entry, value):
    """CompileError [CKPT-NONFINITE] naming the file and tensor when `value` holds NaN or Inf."""
    a = np.ascontiguousarray(value)
    bits, mask = _NONFINITE[a.dtype]
    flat = a.reshape(-1).view(bits)
    step = 1 << 24
    for start in range(0, flat.size, step):
        bad = np.flatnonzero((flat[start:start + step] & bits(mask)) == bits(mask))
        if bad.size:
            count = sum(int(np.count_nonzero((flat[s:s + step] & bits(mask)) == bits(mask)))
                        for s in range(start, flat.size, step))
            where = tuple(int(i) for i in np.unravel_index(start + int(bad[0]), a.shape))
            raise _error(f"{entry.file}: tensor {entry.name}: {count} NaN or Inf value{'s' * (count > 1)} (the first "
                         f"at {where}); a model with them computes NaN (allow_nonfinite=True loads it anyway)",
                         "CKPT-NONFINITE")


def _is_float(a) -> bool:
    return a.dtype == BF16 or np.issubdtype(a.dtype, np.floating)


def _dequantize_fp8(name, value, scale_inv, block, path, dtype=BF16) -> np.ndarray:
    """An FP8 weight as `dtype`: each (block) tile times its weight_scale_inv, a band of rows
    at a time (no float32 copy of a whole bf16 result)."""
    rows, cols = value.shape
    br, bc = block
    if scale_inv.shape != (-(-rows // br), -(-cols // bc)):
        raise _error(f"{path}: {name}_scale_inv has shape {scale_inv.shape}, expected "
                     f"{(-(-rows // br), -(-cols // bc))} for {value.shape} in {br}x{bc} blocks", "CKPT-QUANT")
    out = np.empty((rows, cols), dtype)
    for r in range(0, rows, br):
        per_col = np.repeat(scale_inv[r // br], bc)[:cols]
        out[r:r + br] = (value[r:r + br].astype(np.float32) * per_col).astype(dtype)
    return out


def _int8_per_channel(w) -> tuple:
    """Symmetric int8 per output row (the last axis is the input): scale = max|row| / 127
    (float32, (out, 1), or (E, out, 1) for stacked experts)."""
    w = np.asarray(w, np.float32)
    scale = np.abs(w).max(axis=-1, keepdims=True) / 127
    scale = np.where(scale == 0, np.float32(1), scale).astype(np.float32)
    return np.clip(np.rint(w / scale), -127, 127).astype(np.int8), scale


def kv_cache_scale(kv_a_gamma) -> np.ndarray:
    """The weights-only static per-tensor int8 scale of the latent cache (w8a8c8), (1,
    kv_lora_rank) float32: after the RmsNorm an element is |x_hat * gamma| with |x_hat| < 8 for
    all but extreme rows, so 127 / (8 max|gamma|) keeps it in range. A bound, not a measurement:
    typical latents reach about half of it, which doubles the cache's rounding error, so
    CausalLM.from_pretrained replaces it by a calibrated scale (causal_lm.calibrated_kv_scales);
    the attention blocks alone (deepseek.from_pretrained) keep it."""
    g = float(np.abs(np.asarray(kv_a_gamma, np.float32)).max()) or 1.0
    return np.full((1, np.shape(kv_a_gamma)[0]), 127.0 / (8.0 * g), np.float32)


def _tp_slice(name, value, config, tp, rank, path, ep=1):
    """Rank `rank`'s part of a tensor (models/sharding.py: one table for every tensor)."""
    from .sharding import ShardError, take
    try:
        return take(name, value, tp, rank, ep)
    except ShardError as e:
        raise _error(f"{path}: {e}", "CKPT-TP") from None

"""An independent float64 DeepSeek MLA attention block, written from the textbook formulas
(the check of `ascend-mla run` and test/python/test_deepseek_models.py; it shares no code
with the compiler, the kernels or the model builder).

Not the absorbed form the compiler fuses: keys and values are expanded per head from the latent
(k_nope = W_uk c_kv, v = W_uv c_kv), RoPE rotates interleaved pairs (x[2i], x[2i+1]) in place,
the YaRN tables are recomputed here in float64, attention is causal softmax over every token so
far. Weights are the model's (HF names, (out, in)); int8 ones are dequantized (w * weight_scale),
activations are never quantized.

A DSA block (config attention "dsa": DeepSeek-V3.2) attends only to the keys its indexer selects:
the indexer's scores relu(q_i . k_i / sqrt(D)) weighted per head, the causal top-k of them.
"""
from __future__ import annotations

import math

import numpy as np


def _yarn_inv_freq(config):
    dim, base = config["qk_rope_head_dim"], config["rope_theta"]
    inv_freq = base ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)
    scaling = config.get("rope_scaling") or {}
    if scaling.get("type", scaling.get("rope_type")) != "yarn":
        return inv_freq, 1.0
    factor, original = scaling["factor"], scaling["original_max_position_embeddings"]

    def dim_for(rotations):       # the dimension whose wavelength makes `rotations` turns
        return dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))
    low = max(math.floor(dim_for(scaling["beta_fast"])), 0)
    high = min(math.ceil(dim_for(scaling["beta_slow"])), dim - 1)
    keep = 1 - np.clip((np.arange(dim // 2) - low) / max(high - low, 1e-3), 0, 1)   # 1: extrapolate

    def mscale(m):
        return 0.1 * m * math.log(factor) + 1.0 if factor > 1 else 1.0
    return inv_freq * keep + inv_freq / factor * (1 - keep), mscale(scaling["mscale"]) / mscale(scaling["mscale_all_dim"])


def _rope(x, positions, config):
    """Rotate pairs (x[..., 2i], x[..., 2i+1]) by positions * inv_freq[i] (times YaRN's mscale);
    with config["rope"] == "half" the pairs are (x[..., i], x[..., i + Dr/2]) (rotate-half)."""
    if config.get("rope") == "half":           # the same rotation of the other pairs, in place
        h = x.shape[-1] // 2
        pairs = np.stack([x[..., :h], x[..., h:]], axis=-1).reshape(x.shape)
        out = _rope(pairs, positions, dict(config, rope="interleave"))
        return np.concatenate([out[..., 0::2], out[..., 1::2]], axis=-1)
    inv_freq, m = _yarn_inv_freq(config)
    theta = positions[:, None] * inv_freq[None, :]                     # (P, Dr/2)
    c, s = np.cos(theta) * m, np.sin(theta) * m
    if x.ndim == 3:                                                    # (P, N, Dr)
        c, s = c[:, None], s[:, None]
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = a * c - b * s, b * c + a * s
    return out


def _rms(x, gamma, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * gamma


def _linear(weights, key, x):
    w = weights[key + ".weight"].astype(np.float64)
    if key + ".weight_scale" in weights:
        w = w * weights[key + ".weight_scale"].astype(np.float64)
    return x @ w.T


def _layer_norm(x, gamma, beta, eps):
    mean = x.mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + eps) * gamma + beta


def selected(config, weights, a, x, c_q, positions, causal):
    """DSA: (P, P) bool, True where the indexer of block `a` selects key p for query s (the
    causal top-index_topk of its scores; every earlier key while there are fewer)."""
    c, f = config, weights
    h, d, dr = c["index_n_heads"], c["index_head_dim"], c["qk_rope_head_dim"]
    rope = dict(c, rope=c.get("indexer_rope", "half"))

    def rope_first(v):
        return np.concatenate([_rope(v[..., :dr], positions, rope), v[..., dr:]], axis=-1)
    q = rope_first(_linear(f, f"{a}.indexer.wq_b", c_q).reshape(len(x), h, d))
    k = rope_first(_layer_norm(_linear(f, f"{a}.indexer.wk", x), f[f"{a}.indexer.k_norm.weight"].astype(np.float64),
                               f[f"{a}.indexer.k_norm.bias"].astype(np.float64), 1e-6))
    w = _linear(f, f"{a}.indexer.weights_proj", x) * h ** -0.5                   # (P, H)
    index = np.einsum("sh,shp->sp", w, np.maximum(np.einsum("shd,pd->shp", q, k) * d ** -0.5, 0))
    index = np.where(causal, index, -np.inf)
    top = np.argsort(-index, axis=-1, kind="stable")[:, :min(c["index_topk"], len(x))]
    chosen = np.zeros_like(causal)
    np.put_along_axis(chosen, top, True, axis=-1)
    return chosen & causal


def attention_block(config, weights, hidden):
    """hidden (P, He) for the tokens 0..P-1 of one sequence -> the block's output (P, He)."""
    c = config
    f = {k: np.asarray(v) for k, v in weights.items()}
    g = {k: v.astype(np.float64) for k, v in f.items() if k.endswith("layernorm.weight")}
    n, nope, dr, dv, lora = c["heads"], c["qk_nope_head_dim"], c["qk_rope_head_dim"], c["v_head_dim"], c["kv_lora_rank"]
    eps = c["rms_norm_eps"]
    scale = (nope + dr) ** -0.5
    scaling = c.get("rope_scaling") or {}
    if scaling.get("mscale_all_dim"):
        m = 0.1 * scaling["mscale_all_dim"] * math.log(scaling["factor"]) + 1.0
        scale *= m * m
    h = hidden.astype(np.float64)
    positions = np.arange(len(h), dtype=np.float64)
    causal = np.tril(np.ones((len(h), len(h)), bool))
    for i in range(c["layers"]):
        a = f"model.layers.{i}.self_attn"
        x = _rms(h, g[f"model.layers.{i}.input_layernorm.weight"], eps)
        if c["q_lora_rank"]:
            c_q = _rms(_linear(f, f"{a}.q_a_proj", x), g[f"{a}.q_a_layernorm.weight"], eps)
            q = _linear(f, f"{a}.q_b_proj", c_q)
        else:
            q = _linear(f, f"{a}.q_proj", x)
        q = q.reshape(len(h), n, nope + dr)
        kv = _linear(f, f"{a}.kv_a_proj_with_mqa", x)
        c_kv = _rms(kv[:, :lora], g[f"{a}.kv_a_layernorm.weight"], eps)
        k_pe = _rope(kv[:, lora:], positions, c)                      # shared by all heads
        q_pe = _rope(q[..., nope:], positions, c)
        kv_b = f[f"{a}.kv_b_proj.weight"].astype(np.float64).reshape(n, nope + dv, lora)
        k_nope = np.einsum("hdc,pc->phd", kv_b[:, :nope], c_kv)                   # (P, N, nope)
        v = np.einsum("hdc,pc->phd", kv_b[:, nope:], c_kv)                        # (P, N, dv)
        scores = scale * (np.einsum("shd,phd->hsp", q[..., :nope], k_nope) + np.einsum("shd,pd->hsp", q_pe, k_pe))
        seen = selected(c, f, a, x, c_q, positions, causal) if c.get("attention") == "dsa" else causal
        scores = np.where(seen, scores, -np.inf)
        p = np.exp(scores - scores.max(-1, keepdims=True))
        o = np.einsum("hsp,phd->shd", p / p.sum(-1, keepdims=True), v).reshape(len(h), n * dv)
        h = h + _linear(f, f"{a}.o_proj", o)
    return h

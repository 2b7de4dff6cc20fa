"""TorchMLA: a DeepSeek-V3 MLA attention block as a bf16 PyTorch module (docs/api.md 8); and
TorchMLANaive, the same block in Hugging Face's naive form (keys and values per head, a static
K/V cache the module owns), which the compiler's absorb-kv pass turns into TorchMLA's form.

Structured like the public DeepSeek-V3 modeling code, in the absorbed form serving engines run
(vLLM-Ascend, torchair), one `DecoderLayer` (its attention half) per layer:

    x = input_layernorm(h)
    q = q_b_proj(q_a_layernorm(q_a_proj(x))).view(B, S, N, 192);  q_nope, q_pe = split(128, 64)
    c_kv, k_pe = split(kv_a_proj_with_mqa(x), 512, 64);  c_kv = kv_a_layernorm(c_kv)
    q_pe, k_pe = RoPE(q_pe), RoPE(k_pe)               interleaved pairs, YaRN tables by position
    kv_cache[slot_mapping] = c_kv;  kr_cache[slot_mapping] = k_pe        the paged latent cache
    query = einsum(q_nope, W_uk)                      absorbed: W_uk, W_uv are views of kv_b_proj
    o = paged_attention(query, kv_cache, kv_cache, ..., q_pe, kr_cache)  over the latent cache
    h = h + o_proj(einsum(o, W_uv))

Its parameters and buffers carry the Hugging Face checkpoint names that `deepseek.build` uses
(`model.layers.{i}.self_attn.q_a_proj.weight`, ..., `model.rotary_emb.cos_cached`), so
`load_state_dict(model.weights)` of a built model loads the same weights (its tp slice).
`forward(hidden_states, positions, slot_mapping, block_table, seq_lengths, caches)` takes the
inputs of `deepseek.Model.inputs` (caches: [kv_cache.0, kr_cache.0, kv_cache.1, ...]), writes
the caches in place and returns the new hidden states.

The RMSNorm is written as the Hugging Face DeepseekV3RMSNorm (float32 x * rsqrt(mean(x^2) +
eps), rounded, times the weight). `rope="interleave"` is Hugging Face's rope_interleave form
(de-interleave the pairs by view/transpose, then x * cos + rotate_half(x) * sin, bf16 tables
cos_cached/sin_cached); `rope="complex"` is DeepSeek's own form (view_as_complex(x) *
freqs_cis, float32): the same rotation, but its output keeps the pairs interleaved, so the
rope cache holds another order (the fused prolog writes the de-interleaved one). `rope="half"`
is the plain rotate-half RoPE of Llama-style code (x * cos + rotate_half(x) * sin, no
de-interleave): another model (it rotates (x[i], x[i + Dr/2])), which the compiler fuses by
reordering the projection's rope columns (passes/interleave_rope.py).

`quant="w8a8"` writes the int8 projections out in PyTorch (`dynamic_quant`, `QuantLinear`: abs,
amax, round, clamp, an int32 matmul, the scales) as torch_npu's npu_dynamic_quant and
npu_quant_matmul compute them; raise-quant makes those two ops of them again.
"""
from __future__ import annotations

import math

import torch
from torch import nn

from ..frontend import torch_ops  # noqa: F401   (torch.ops.ascend_mla.paged_attention)
from . import blocks


class RMSNorm(nn.Module):
    def __init__(self, size: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size, dtype=torch.bfloat16))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


def dynamic_quant(x):
    """Per-token symmetric int8 quantization, as torch_npu.npu_dynamic_quant computes it:
    scale = max|x| / 127 over the last axis (float32), y = round(x / scale), ties to even."""
    x = x.float()
    scale = x.abs().amax(dim=-1, keepdim=True) / 127
    return torch.round(x / scale).clamp(-128, 127).to(torch.int8), scale


class QuantLinear(nn.Module):
    """A w8a8 linear (npu_quant_matmul with a per-token scale) written in PyTorch: int8 weight
    (out, in) and its per-output-channel `weight_scale` (out, 1), the names and layout of
    `deepseek.build(quant="w8a8")`. Takes activations (quantized here) or (int8 x, its scale):
    the exact int32 product, converted to float32, times the token's scale, then the channel's."""

    def __init__(self, in_features: int, out_features: int, out_dtype=torch.float32):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(out_features, in_features, dtype=torch.int8), requires_grad=False)
        self.weight_scale = nn.Parameter(torch.ones(out_features, 1), requires_grad=False)
        self.out_dtype = out_dtype

    def forward(self, x):
        xq, scale = x if isinstance(x, tuple) else dynamic_quant(x)
        acc = torch.matmul(xq.to(torch.int32), self.weight.t().to(torch.int32))
        return (acc.float() * scale * self.weight_scale.view(-1)).to(self.out_dtype)


def _yarn_get_mscale(scale: float, mscale: float) -> float:
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


class YarnRotaryEmbedding(nn.Module):
    """cos/sin tables (max_positions, Dr) of YaRN-scaled frequencies, as HF's
    DeepseekV3YarnRotaryEmbedding computes them; `freqs_cis` the same angles as unit complex
    numbers (DeepSeek's precompute_freqs_cis) for the complex RoPE form."""

    def __init__(self, config: dict, max_positions: int):
        super().__init__()
        dim, base = config["qk_rope_head_dim"], config["rope_theta"]
        scaling = config.get("rope_scaling") or {}
        freq_extra = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
        mscale = 1.0
        inv_freq = freq_extra
        if scaling.get("type", scaling.get("rope_type")) == "yarn":
            factor, original = scaling["factor"], scaling["original_max_position_embeddings"]
            freq_inter = freq_extra / factor

            def correction_dim(rotations):
                return (dim * math.log(original / (rotations * 2 * math.pi))) / (2 * math.log(base))
            low = max(math.floor(correction_dim(scaling["beta_fast"])), 0)
            high = min(math.ceil(correction_dim(scaling["beta_slow"])), dim - 1)
            ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / max(high - low, 0.001), 0, 1)
            extra_mask = 1.0 - ramp
            inv_freq = freq_inter * (1 - extra_mask) + freq_extra * extra_mask
            mscale = _yarn_get_mscale(factor, scaling["mscale"]) / _yarn_get_mscale(factor, scaling["mscale_all_dim"])
        freqs = torch.outer(torch.arange(max_positions, dtype=torch.float32), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", (emb.cos() * mscale).to(torch.bfloat16))
        self.register_buffer("sin_cached", (emb.sin() * mscale).to(torch.bfloat16))
        self.register_buffer("freqs_cis", torch.polar(torch.full_like(freqs, mscale), freqs), persistent=False)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rope_interleave(x, cos, sin):
    """Hugging Face's rope_interleave: de-interleave the pairs, then rotate-half RoPE."""
    *lead, d = x.shape
    x = x.view(*lead, d // 2, 2).transpose(-1, -2).reshape(*lead, d)
    return (x * cos) + (rotate_half(x) * sin)


def rope_half(x, cos, sin):
    """The rotate-half RoPE (Llama, NeoX): pairs (x[i], x[i + d/2])."""
    return (x * cos) + (rotate_half(x) * sin)


def rope_complex(x, freqs_cis):
    """DeepSeek's apply_rotary_emb: pairs as complex numbers times e^{i theta}, float32."""
    dtype = x.dtype
    xc = torch.view_as_complex(x.float().view(*x.shape[:-1], -1, 2))
    return torch.view_as_real(xc * freqs_cis).flatten(-2).to(dtype)


class Attention(nn.Module):
    def __init__(self, c: dict, rope: str):
        super().__init__()
        he, n, lora = c["hidden_size"], c["heads"], c["kv_lora_rank"]
        self.heads, self.nope, self.dr, self.dv, self.lora = n, c["qk_nope_head_dim"], c["qk_rope_head_dim"], \
            c["v_head_dim"], lora
        self.rope = rope
        self.softmax_scale = blocks.softmax_scale(c)
        linear = dict(bias=False, dtype=torch.bfloat16)
        self.q_a_proj = nn.Linear(he, c["q_lora_rank"], **linear)
        self.q_a_layernorm = RMSNorm(c["q_lora_rank"], c["rms_norm_eps"])
        self.q_b_proj = nn.Linear(c["q_lora_rank"], n * (self.nope + self.dr), **linear)
        self.kv_a_proj_with_mqa = nn.Linear(he, lora + self.dr, **linear)
        self.kv_a_layernorm = RMSNorm(lora, c["rms_norm_eps"])
        self.kv_b_proj = nn.Linear(lora, n * (self.nope + self.dv), **linear)
        self.o_proj = nn.Linear(n * self.dv, he, **linear)
        self.quant = c.get("quant") == "w8a8"
        if self.quant:      # the projections deepseek.QUANTIZED: float32 out, o_proj bf16
            for name in ("q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "o_proj"):
                proj = getattr(self, name)
                setattr(self, name, QuantLinear(proj.in_features, proj.out_features,
                                                torch.bfloat16 if name == "o_proj" else torch.float32))

    def forward(self, x, rotary, positions, slot_mapping, block_table, seq_lengths, kv_cache, kr_cache):
        b, s, _ = x.shape
        bf16 = torch.bfloat16       # w8a8: the float32 projections rounded where bf16 is read
        x = dynamic_quant(x) if self.quant else x       # one quantization for both down-projections
        q = self.q_b_proj(self.q_a_layernorm(self.q_a_proj(x))).view(b, s, self.heads, self.nope + self.dr)
        q_nope, q_pe = torch.split(q, [self.nope, self.dr], dim=-1)
        q_nope = q_nope.to(bf16)
        c_kv, k_pe = torch.split(self.kv_a_proj_with_mqa(x), [self.lora, self.dr], dim=-1)
        c_kv = self.kv_a_layernorm(c_kv).to(bf16)
        if self.rope == "complex":
            freqs = rotary.freqs_cis[positions]                          # (B, S, Dr/2)
            q_pe, k_pe = rope_complex(q_pe, freqs.unsqueeze(2)), rope_complex(k_pe, freqs)
        else:
            cos, sin = rotary.cos_cached[positions], rotary.sin_cached[positions]   # (B, S, Dr)
            rotate = rope_half if self.rope == "half" else rope_interleave
            q_pe = rotate(q_pe, cos.unsqueeze(2), sin.unsqueeze(2))
            k_pe = rotate(k_pe, cos, sin)
        q_pe, k_pe = q_pe.to(bf16), k_pe.to(bf16)
        # the paged latent cache: rows written at their slots (block * BlockSize + offset)
        slots = slot_mapping.reshape(-1)
        kv_cache.view(-1, self.lora).index_copy_(0, slots, c_kv.reshape(-1, self.lora))
        kr_cache.view(-1, self.dr).index_copy_(0, slots, k_pe.reshape(-1, self.dr))
        # absorbed attention over the latent cache
        kv_b = self.kv_b_proj.weight.view(self.heads, self.nope + self.dv, self.lora)
        w_uk, w_uv = kv_b[:, :self.nope], kv_b[:, self.nope:]
        query = torch.einsum("bshd,hdc->bshc", q_nope, w_uk)
        latent = torch.ops.ascend_mla.paged_attention(query, kv_cache, kv_cache, block_table, seq_lengths,
                                                      q_pe, kr_cache, self.softmax_scale)
        o = torch.einsum("bshc,hdc->bshd", latent, w_uv)
        return self.o_proj(o.reshape(b, s, self.heads * self.dv))


class NaiveAttention(Attention):
    """Hugging Face DeepseekV3Attention's naive form over a static K/V cache (TorchMLANaive)."""

    def __init__(self, c: dict, batch: int, max_len: int):
        super().__init__(c, "interleave")
        n = self.heads
        # HF StaticCache: fixed (batch, max_len) K/V buffers, written at the token rows; BSND
        self.register_buffer("k_cache", torch.zeros(batch, max_len, n, self.nope + self.dr, dtype=torch.bfloat16),
                             persistent=False)
        self.register_buffer("v_cache", torch.zeros(batch, max_len, n, self.dv, dtype=torch.bfloat16),
                             persistent=False)

    def forward(self, x, rotary, positions, cache_rows, seq_lengths, k_cache=None, v_cache=None):
        b, s, _ = x.shape
        n, dk = self.heads, self.nope + self.dr
        k_cache = self.k_cache if k_cache is None else k_cache
        v_cache = self.v_cache if v_cache is None else v_cache
        q = self.q_b_proj(self.q_a_layernorm(self.q_a_proj(x))).view(b, s, n, dk)
        q_nope, q_pe = torch.split(q, [self.nope, self.dr], dim=-1)
        c_kv, k_pe = torch.split(self.kv_a_proj_with_mqa(x), [self.lora, self.dr], dim=-1)
        kv = self.kv_b_proj(self.kv_a_layernorm(c_kv)).view(b, s, n, self.nope + self.dv)
        k_nope, value = torch.split(kv, [self.nope, self.dv], dim=-1)     # per token, per head
        cos, sin = rotary.cos_cached[positions], rotary.sin_cached[positions]   # (B, S, Dr)
        q_pe = rope_interleave(q_pe, cos.unsqueeze(2), sin.unsqueeze(2))
        k_pe = rope_interleave(k_pe, cos, sin)
        query = torch.cat([q_nope, q_pe], dim=-1)
        key = torch.cat([k_nope, k_pe.unsqueeze(2).expand(b, s, n, self.dr)], dim=-1)
        rows = cache_rows.reshape(-1)
        k_cache.view(-1, n, dk).index_copy_(0, rows, key.reshape(-1, n, dk))
        v_cache.view(-1, n, self.dv).index_copy_(0, rows, value.reshape(-1, n, self.dv))
        o = torch.ops.ascend_mla.attention(query, k_cache, v_cache, seq_lengths, self.softmax_scale)
        return self.o_proj(o.reshape(b, s, n * self.dv))


class DecoderLayer(nn.Module):
    """The attention half of a DeepseekV3DecoderLayer: input_layernorm, self_attn, residual."""

    def __init__(self, c: dict, attention: nn.Module):
        super().__init__()
        self.input_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.self_attn = attention

    def forward(self, h, *args):
        return h + self.self_attn(self.input_layernorm(h), *args)


class _Model(nn.Module):
    def __init__(self, c: dict, attention):
        super().__init__()
        self.rotary_emb = YarnRotaryEmbedding(c, c["max_positions"])
        self.layers = nn.ModuleList(DecoderLayer(c, attention()) for _ in range(c["layers"]))


def _config(config, tp: int, layers: int, max_positions: int) -> dict:
    """A built model's config, or a preset name of deepseek.CONFIGS with tp, layers and
    max_positions, normalised (heads per tp rank, layers, max_positions)."""
    if isinstance(config, str):
        if config not in blocks.CONFIGS:
            raise ValueError(f"config: unknown model {config!r}; known: {', '.join(blocks.CONFIGS)}")
        config = dict(blocks.CONFIGS[config], tp=tp, layers=layers, max_positions=max_positions)
        config["heads"] = config["num_attention_heads"] // tp
    c = dict(config)
    c.setdefault("heads", c["num_attention_heads"] // c.get("tp", 1))
    c.setdefault("layers", 1)
    c.setdefault("max_positions", max_positions)
    if not c.get("q_lora_rank"):
        raise ValueError("config: q_lora_rank is required (the model has a query down-projection)")
    return c


def _load_weights(module: nn.Module, weights: dict):
    """Load HF-named weights (NumPy arrays, bf16 as ml_dtypes, or tensors), strictly."""
    from ..runtime.interop import numpy_to_torch
    state = {k: v if isinstance(v, torch.Tensor) else numpy_to_torch(v) for k, v in weights.items()}
    missing, unexpected = module.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.startswith("model.rotary_emb.")]
    if missing or unexpected:
        raise ValueError(f"weights: missing {missing[:4]}, unexpected {unexpected[:4]}")
    return module


class TorchMLA(nn.Module):
    """The reference DeepSeek-style MLA attention block (see the module docstring).

    `config`: a built model's `config` (`deepseek.build(...).config`: its tp slice, layer count
    and max_positions), or a preset name of `deepseek.CONFIGS` (then tp, layers, max_positions
    from the keywords). Weights start as zeros/ones: load them (`load_state_dict`).
    `quant`: "bf16" or "w8a8" (default: the config's, as `deepseek.build(..., quant=)` sets it):
    w8a8 makes q_a_proj, q_b_proj, kv_a_proj_with_mqa and o_proj QuantLinears (int8 weight and
    weight_scale) with the activations quantized per token (`dynamic_quant`), as the w8a8 graph
    of `deepseek.build` computes them."""

    def __init__(self, config, *, tp: int = 1, layers: int = 1, max_positions: int = 256,
                 rope: str = "interleave", quant: str | None = None):
        super().__init__()
        c = _config(config, tp, layers, max_positions)
        if rope not in ("interleave", "complex", "half"):
            raise ValueError(f"rope: expected \"interleave\", \"complex\" or \"half\", got {rope!r}")
        quant = c.get("quant", "bf16") if quant is None else quant
        if quant not in ("bf16", "w8a8"):
            raise ValueError(f"quant: expected \"bf16\" or \"w8a8\" (an int8 latent cache, w8a8c8, is not "
                             f"written in PyTorch here), got {quant!r}")
        c["quant"] = quant
        self.config = c
        self.model = _Model(c, lambda: Attention(c, rope))

    def forward(self, hidden_states, positions, slot_mapping, block_table, seq_lengths, caches):
        h = hidden_states
        for i, layer in enumerate(self.model.layers):
            h = layer(h, self.model.rotary_emb, positions, slot_mapping, block_table, seq_lengths,
                      caches[2 * i], caches[2 * i + 1])
        return h

    def load_weights(self, weights: dict):
        """Load HF-named weights (NumPy arrays, bf16 as ml_dtypes, or tensors), strictly."""
        return _load_weights(self, weights)


class TorchMLANaive(nn.Module):
    """The same attention block in Hugging Face's naive form (DeepseekV3Attention): k_nope and v
    computed from kv_b_proj per token and head, kept in a static K/V cache the module owns,
    attention over full keys [k_nope, k_pe] and values:

        q_nope, q_pe = split(q_b_proj(RMSNorm(q_a_proj(x))))       as TorchMLA
        c_kv, k_pe = split(kv_a_proj_with_mqa(x));  k_nope, v = split(kv_b_proj(RMSNorm(c_kv)))
        q_pe, k_pe = RoPE(q_pe), RoPE(k_pe)                          interleaved (rope_interleave)
        k_cache[rows] = cat(k_nope, k_pe over the heads);  v_cache[rows] = v     index_copy_
        o = attention(cat(q_nope, q_pe), k_cache, v_cache, seq_lengths)     per-batch kv lengths
        h = h + o_proj(o)

    Each layer's `self_attn.k_cache` (batch, max_len, N, D + Dr) and `v_cache` (batch, max_len,
    N, Dv) are bf16 buffers of fixed size, as Hugging Face's StaticCache (so torch.export sees
    one shape for every step), laid out BSND (HF keeps BNSD: a transpose, not another form).
    `forward(hidden_states, positions, cache_rows, seq_lengths)`: cache_rows (B, S) are the rows
    of the flat cache the tokens go to, b * max_len + position (`cache_rows(positions)`; a
    module-side computation would need integer arithmetic the mla dialect does not have);
    seq_lengths (B,) the kv lengths after this step; `caches` ([k_cache.0, v_cache.0, ...], the
    buffers' shapes) replaces the module's own buffers by the caller's (then the compiled program
    cannot absorb them: absorb-kv refuses). The attention is one call,
    `torch.ops.ascend_mla.attention` (frontend/torch_ops.py), as serving code calls FIA with
    actual_seq_lengths_kv. Weight names as TorchMLA's (`load_weights(model.weights)`)."""

    def __init__(self, config, *, batch: int | None = None, max_len: int | None = None, tp: int = 1,
                 layers: int = 1, max_positions: int = 256):
        super().__init__()
        c = _config(config, tp, layers, max_positions)
        if c.get("quant", "bf16") != "bf16":      # NaiveAttention does not quantize its activations
            raise ValueError(f"config: quant {c['quant']!r}: the naive form is bf16 (TorchMLA(quant=\"w8a8\") "
                             f"is the w8a8 module)")
        batch = batch if batch is not None else c.get("batch", 1)
        max_len = max_len if max_len is not None else c["max_positions"]
        for arg, value in (("batch", batch), ("max_len", max_len)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{arg}: expected an integer >= 1, got {value!r}")
        self.config, self.batch, self.max_len = c, batch, max_len
        self.model = _Model(c, lambda: NaiveAttention(c, batch, max_len))

    def forward(self, hidden_states, positions, cache_rows, seq_lengths, caches=None):
        h = hidden_states
        for i, layer in enumerate(self.model.layers):
            given = () if caches is None else (caches[2 * i], caches[2 * i + 1])
            h = layer(h, self.model.rotary_emb, positions, cache_rows, seq_lengths, *given)
        return h

    def cache_rows(self, positions: torch.Tensor) -> torch.Tensor:
        """The rows of the flat static cache of tokens at `positions` (B, S): b * max_len + p."""
        if positions.shape[0] != self.batch or int(positions.max()) >= self.max_len:
            raise ValueError(f"positions: expected {self.batch} rows of positions < {self.max_len}, "
                             f"got {tuple(positions.shape)} up to {int(positions.max())}")
        return positions + torch.arange(self.batch, dtype=positions.dtype)[:, None] * self.max_len

    def inputs(self, model, step: int) -> tuple:
        """forward's arguments for decode step `step` of a built model (deepseek.Model.inputs)."""
        from ..runtime.interop import numpy_to_torch
        given = model.inputs(step, caches={})
        positions = numpy_to_torch(given["positions"])
        return (numpy_to_torch(given["hidden_states"]), positions, self.cache_rows(positions),
                numpy_to_torch(given["seq_lengths"]))

    def reset(self):
        """Zero the K/V caches (a new batch of sequences)."""
        for layer in self.model.layers:
            layer.self_attn.k_cache.zero_()
            layer.self_attn.v_cache.zero_()
        return self

    def load_weights(self, weights: dict):
        """Load HF-named weights (NumPy arrays, bf16 as ml_dtypes, or tensors), strictly."""
        return _load_weights(self, weights)


# --- TorchMLA's arguments from a built model (deepseek.Model.inputs) -----------------------------

INPUT_NAMES = ("hidden_states", "positions", "slot_mapping", "block_table", "seq_lengths")


def torch_inputs(model, step: int, caches: list) -> tuple:
    """TorchMLA's arguments for decode step `step` of a built model (deepseek.Model.inputs),
    with `caches` ([kv_cache.0, kr_cache.0, ...] torch tensors) as the caches."""
    from ..runtime.interop import numpy_to_torch
    inputs = model.inputs(step, caches={})
    return tuple(numpy_to_torch(inputs[k]) for k in INPUT_NAMES) + (caches,)


def cache_tensors(model) -> list:
    """Zeroed caches of a built model as torch tensors, in TorchMLA's order."""
    from ..runtime.interop import numpy_to_torch
    return [numpy_to_torch(a) for a in model.new_caches().values()]

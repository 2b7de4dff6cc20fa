"""DeepSeek-class MLA attention blocks as primitive-level mla graphs (docs/api.md 5), and with
decoder=True the whole decoder around them (models/decoder.py). The public names are
models/deepseek.py's.

    from ascend_mla.models import deepseek
    model = deepseek.build("deepseek-v3", tp=8, layers=2, batch=4, seq=1)
    program = ascend_mla.compile(model)
    for step in range(4):
        hidden, *caches = program(**model.inputs(step))

`build` writes `func.func @forward` the way unfused model code computes one decoder layer's
attention half, per layer (Hugging Face DeepseekV3Attention in its absorbed form, as serving
engines run it):

    x = RmsNorm(h)                                         input_layernorm
    c_q = RmsNorm(x @ W_q_a);  q = c_q @ W_q_b             q_a_proj, q_a_layernorm, q_b_proj
                                                           (V2-Lite: q = x @ W_q, q_proj)
    q_nope, q_pe = split(q.view(.., N, 192), [128, 64])
    query = q_nope @ W_uk  (per head; W_uk from kv_b_proj)  the absorbed form
    query_rope = RoPE(q_pe)                                interleaved, YaRN-scaled tables
    c_kv, k_pe = split(x @ W_kv_a, [512, 64]);  kv = RmsNorm(c_kv);  k_rope = RoPE(k_pe)
    scatter kv, k_rope into the paged caches at slot_mapping
    o = paged_attention(query, kv cache, kv cache, query_rope, kr cache) @ W_uv (per head)
    h = h + o.view(.., N*128) @ W_o                        o_proj, residual

with every rounding point an unfused bf16 program has (each op rounds to its result type), and
for quant="w8a8" int8 projections with per-token dynamic quant of their inputs (the prolog's
full-quant path), quant="w8a8c8" an int8 latent cache too (the query then quantized per token
and head, as mla.prolog_v2 does in FQ-KVQ). The weights carry the Hugging Face checkpoint names
and layouts ((out, in) linears; int8 ones with a per-output-channel `weight_scale` (out, 1)), so
a real checkpoint maps onto them (`from_pretrained`). A tensor-parallel slice (tp > 1) is rank
`rank`'s (default 0): heads [rank*N/tp, (rank+1)*N/tp) of q_b_proj, kv_b_proj and o_proj's
columns; o_proj's output is then a partial sum, and an `mla.all_reduce` over the tp ranks
(dialect/collective.py) makes it the full projection before the residual add.
"""
from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

from ..compiler import CompileError
from ..dialect.collective import AllReduce
from ..dialect.primitive import (
    Div,
    DynamicQuant,
    Gather,
    HeadMatmul,
    MaskedPagedAttention,
    Matmul,
    Mul,
    PagedAttention,
    Quantize,
    QuantMatmul,
    RmsNorm,
    Rope,
    ScatterCache,
    Transpose,
)
from ..dialect.types import TensorInfo
from . import checkpoint, dsa
from .decoder import attention_ids, layer_blocks, layer_ids
from .graph import GraphWriter

BF16 = ml_dtypes.bfloat16

_YARN_V3 = dict(type="yarn", factor=40, original_max_position_embeddings=4096, beta_fast=32,
                beta_slow=1, mscale=1.0, mscale_all_dim=1.0)
_YARN_V2 = dict(_YARN_V3, mscale=0.707, mscale_all_dim=0.707)
_MLA = dict(kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128,
            rms_norm_eps=1e-6)

# The attention hyper-parameters of each model's config.json (Hugging Face).
CONFIGS = {
    "deepseek-v3": dict(_MLA, hidden_size=7168, num_attention_heads=128, q_lora_rank=1536,
                        num_hidden_layers=61, rope_theta=10000.0, max_position_embeddings=163840,
                        rope_scaling=_YARN_V3),
    "deepseek-r1": dict(_MLA, hidden_size=7168, num_attention_heads=128, q_lora_rank=1536,
                        num_hidden_layers=61, rope_theta=10000.0, max_position_embeddings=163840,
                        rope_scaling=_YARN_V3),
    "kimi-k2": dict(_MLA, hidden_size=7168, num_attention_heads=64, q_lora_rank=1536,
                    num_hidden_layers=61, rope_theta=50000.0, max_position_embeddings=131072,
                    rope_scaling=dict(_YARN_V3, factor=32, beta_fast=1, beta_slow=1)),
    "deepseek-v2": dict(_MLA, hidden_size=5120, num_attention_heads=128, q_lora_rank=1536,
                        num_hidden_layers=60, rope_theta=10000.0, max_position_embeddings=163840,
                        rope_scaling=_YARN_V2),
    "deepseek-v2-lite": dict(_MLA, hidden_size=2048, num_attention_heads=16, q_lora_rank=None,
                             num_hidden_layers=27, rope_theta=10000.0, max_position_embeddings=163840,
                             rope_scaling=_YARN_V2),
    # DeepSeek-V3.2(-Exp): V3's attention with DSA's indexer (64 heads of 128, top-2048, rotate-half RoPE)
    "deepseek-v3.2": dict(_MLA, hidden_size=7168, num_attention_heads=128, q_lora_rank=1536,
                          num_hidden_layers=61, rope_theta=10000.0, max_position_embeddings=163840,
                          rope_scaling=_YARN_V3, attention="dsa", index_n_heads=64, index_head_dim=128,
                          index_topk=2048, indexer_rope="half"),
}
QUANTS = ("bf16", "w8a8", "w8a8c8")
CACHE_MODES = ("PA_BSND", "PA_NZ")
KV_SCALE = 127.0 / 8.0     # the random models' per-tensor int8 kv-cache scale (|kv| < 8 after RmsNorm)


# --- RoPE with YaRN (the Hugging Face DeepseekV3 rotary embedding; checkpoint.ModelConfig) --------

def rope_tables(config: dict, positions: int):
    """cos, sin (positions, Dr) bf16 as the model's rotary embedding computes them (YaRN's
    blended frequencies and attention factor included): checkpoint.ModelConfig.rope_tables."""
    return checkpoint.read_config(config).rope_tables(positions)


def softmax_scale(config: dict) -> float:
    """1/sqrt(nope + rope), times YaRN's mscale(factor, mscale_all_dim)^2."""
    return checkpoint.read_config(config).softmax_scale


# --- the model ---------------------------------------------------------------------------------------

@dataclass
class Model:
    """A built attention block: `build(context)` writes its @forward into an MLIR context (what
    ascend_mla.compile asks of it), `module` is that IR as text, `weights` (HF names), `config`.
    Random weights are made on first use of `weights` (the IR needs only their types)."""
    name: str
    config: dict
    graph: object = field(repr=False)        # (context, into, function) -> ir.Module: writes @forward
    block_table: np.ndarray = field(repr=False, default=None)
    num_blocks: int = 0
    max_positions: int = 0
    _weights: object = field(default=None, repr=False)      # a dict, or a function making it
    _caches: dict = field(default=None, repr=False)
    # the weights and the model's own caches are made on first use, once, whichever thread asks
    _lock: object = field(default_factory=threading.Lock, repr=False, compare=False)
    _text: str = field(default=None, repr=False)

    def build(self, context=None, *, into=None, function: str = "forward"):
        """The model's function (@forward, or `function`) as an ir.Module in `context` (a new
        one when None), or added to the module `into` (its weights' globals shared)."""
        return self.graph(context, into, function)

    @property
    def module(self) -> str:
        """The primitive-level IR of @forward, as text (docs/api.md 5)."""
        if self._text is None:
            self._text = str(self.build())
        return self._text

    @property
    def weights(self) -> dict:
        with self._lock:
            if callable(self._weights):
                self._weights = self._weights()
            return self._weights

    @property
    def cache_names(self) -> list[str]:
        return [f"{kind}_cache.{i}" for i in attention_ids(self.config) for kind in cache_kinds(self.config)]

    def new_caches(self) -> dict:
        """Zeroed paged caches, one kv (latent) and one kr (rope) cache per attention block (one
        per layer; LongCat's layers have two); a DSA block has its indexer's keys too (index)."""
        c = self.config
        kv_dtype = np.int8 if c["quant"] == "w8a8c8" else BF16
        out = {}
        for i in attention_ids(c):
            out[f"kv_cache.{i}"] = np.zeros((self.num_blocks, c["block_size"], 1, c["kv_lora_rank"]), kv_dtype)
            out[f"kr_cache.{i}"] = np.zeros((self.num_blocks, c["block_size"], 1, c["qk_rope_head_dim"]), BF16)
            if "index" in cache_kinds(c):
                out[f"index_cache.{i}"] = np.zeros(dsa.index_cache_info(c, self.num_blocks).shape, BF16)
        return out

    def inputs(self, step: int = 0, caches: dict | None = None) -> dict:
        """The inputs of decode step `step`: each row's `seq` new tokens at positions
        [step*seq, (step+1)*seq), their cache slots through the (shuffled) block table, the kv
        lengths after this step, and the caches (the model's own set unless `caches` is given;
        the program updates them in place, so consecutive steps see earlier tokens)."""
        c = self.config
        batch, seq, block_size = c["batch"], c["seq"], c["block_size"]
        if not 0 <= step or (step + 1) * seq > self.max_positions:
            raise ValueError(f"step: {step} is outside [0, {self.max_positions // seq}) "
                             f"(max_positions {self.max_positions} / seq {seq})")
        if caches is None:
            with self._lock:
                if self._caches is None:
                    self._caches = self.new_caches()
                caches = self._caches
        rng = np.random.default_rng([c["seed"], 1, step])
        positions = np.broadcast_to(np.arange(step * seq, (step + 1) * seq), (batch, seq)).astype(np.int64)
        slots = self.block_table[np.arange(batch)[:, None], positions // block_size].astype(np.int64) \
            * block_size + positions % block_size
        if c.get("decoder"):
            first = {"input_ids": rng.integers(0, c["vocab_size"], (batch, seq), dtype=np.int64)}
        else:
            first = {"hidden_states": rng.standard_normal((batch, seq, c["hidden_size"]), np.float32).astype(BF16)}
        return {**first,
                "positions": np.ascontiguousarray(positions), "slot_mapping": slots,
                "block_table": self.block_table,
                "seq_lengths": np.full((batch,), (step + 1) * seq, np.int64), **caches}


def build(name: str = "deepseek-v3", *, tp: int = 1, layers: int = 1, batch: int = 1, seq: int = 1,
          quant: str = "bf16", cache_mode: str = "PA_BSND", block_size: int = 128, seed: int = 0,
          max_positions: int | None = None, weights: dict | None = None,
          config: dict | None = None, rope: str = "interleave", layer: int | None = None,
          decoder: bool = False, rank: int = 0, sharded: bool = False, ep: int = 1,
          max_tokens: int | None = None, feed_forward: bool = False, first_layer: int = 0) -> Model:
    """The attention block of `layers` layers of model `name` at tensor-parallel slice `tp`.

    Weights are random (seeded) unless `weights` gives a checkpoint's (HF names, full size: the
    tp slice is taken here); `config` overrides the preset's hyper-parameters (a config.json).
    `layer`: build that one layer (its index in the model: weight and cache names keep it)
    instead of layers 0..layers-1. `rank`: which tensor-parallel rank's slice (0 <= rank < tp);
    `sharded`: `weights` are that slice already (a loader read only it). `decoder`: the whole decoder (ascend_mla/models/decoder.py):
    token ids in, the embedding, each layer's MLP or MoE after its attention, the final norm
    and lm_head; the first result is then the logits (batch, seq, vocab) float32.
    `ep`: expert parallelism (docs/parallel.md): rank `rank` of `ep` holds the routed experts
    [rank E/ep, (rank+1) E/ep) and everything else whole (attention data-parallel: its own
    rows); each MoE layer sends its tokens to their experts' ranks and back
    (mla.moe_distribute_dispatch / combine). `max_tokens`: the most tokens one call of any
    function of the rank's program has (default batch * seq; a module of decode and prefill
    functions gives batch * its largest prefill), which sizes every exchange alike.
    `feed_forward`: each layer's MLP or MoE after its attention, hidden states in and out (the
    decoder's layers without the embedding and lm_head); `first_layer`: the index of the first
    layer built (weight and cache names keep it; a MoE layer of DeepSeek-V3 is 3 or later)."""
    if config is None:
        if not isinstance(name, str) or name not in CONFIGS:
            raise ValueError(f"name: unknown model {name!r}; known: {', '.join(CONFIGS)}")
        config = CONFIGS[name]
    _check_build_arguments(name, config, tp=tp, layers=layers, batch=batch, seq=seq, block_size=block_size,
                           seed=seed, max_positions=max_positions)
    c = dict(config)
    heads = c["num_attention_heads"]
    if heads % tp:
        raise ValueError(f"tp: must divide the {heads} attention heads of {name}, got {tp}")
    if not _is_int(ep) or not 1 <= ep <= _LIMITS["tp"]:
        raise ValueError(f"ep: expected an integer in [1, {_LIMITS['tp']}], got {ep!r}")
    if tp > 1 and ep > 1:
        raise ValueError(f"tp {tp} with ep {ep}: not built. Expert parallelism runs attention data-parallel "
                         "(each rank its own requests, the whole latent cache); splitting those heads too needs "
                         "the MoE exchange's TP group (Atlas A3, tpWorldSize 2, one expert per rank), which "
                         "no CPU exchange carries (docs/parallel.md)")
    ranks = max(tp, ep)
    if not isinstance(rank, int) or not 0 <= rank < ranks:
        what = "tp" if tp > 1 or ep == 1 else "ep"
        raise ValueError(f"rank: expected an integer in [0, {what}) = [0, {ranks}), got {rank!r}")
    tokens = batch * seq if max_tokens is None else max_tokens
    if not _is_int(tokens) or not batch * seq <= tokens <= _LIMITS["seq"]:
        raise ValueError(f"max_tokens: expected an integer >= batch * seq = {batch * seq}, got {max_tokens!r}")
    if not _is_int(first_layer) or first_layer < 0 or layers + first_layer > c.get("num_hidden_layers", layers):
        raise ValueError(f"layers: {name} has {c.get('num_hidden_layers')} layers, got {layers} from layer "
                         f"{first_layer!r}")
    if layer is not None:
        if not isinstance(layer, int) or not 0 <= layer < c.get("num_hidden_layers", layer + 1):
            raise ValueError(f"layer: expected an index in [0, {c.get('num_hidden_layers')}), got {layer!r}")
        if layers != 1:
            raise ValueError(f"layers: one chosen layer (layer={layer}) builds 1 layer, got layers={layers}")
    if quant not in QUANTS:
        raise ValueError(f"quant: expected one of {', '.join(QUANTS)}, got {quant!r}")
    if cache_mode not in CACHE_MODES:
        raise ValueError(f"cache_mode: expected PA_BSND or PA_NZ, got {cache_mode!r}")
    if rope not in ("interleave", "half"):
        raise ValueError(f"rope: expected \"interleave\" or \"half\", got {rope!r}")
    if max_positions is None:
        max_positions = block_size * max(2, -(-32 * seq // block_size))
    blocks_per_row = -(-max_positions // block_size)
    c.update(name=name, tp=tp, ep=ep, max_tokens=tokens, rank=rank, heads=heads // tp, layers=layers, batch=batch,
             seq=seq, quant=quant, cache_mode=cache_mode, block_size=block_size, seed=seed,
             max_positions=max_positions, rope=rope, softmax_scale=softmax_scale(c), decoder=decoder,
             feed_forward=feed_forward or decoder,
             layer_ids=[layer] if layer is not None else list(range(first_layer, first_layer + layers)))
    if decoder or feed_forward:
        from .decoder import check_config
        check_config(c)
    if c.get("attention") == "dsa":
        dsa.check_config(c)
    rng = np.random.default_rng(seed)
    num_blocks = batch * blocks_per_row + 1                  # one spare block nobody uses
    block_table = rng.permutation(num_blocks)[:batch * blocks_per_row].reshape(batch, blocks_per_row).astype(np.int32)
    specs = weight_specs(c)
    if weights is not None:
        weights = weights if sharded else shard(weights, c)
        missing = sorted(n for n in set(specs) - set(weights) if not n.startswith(("model.rotary_emb", "tp.")))
        if missing:
            raise ValueError(f"weights: missing {', '.join(missing[:4])}{' ...' if len(missing) > 4 else ''}")

    def make():
        values = weights if weights is not None else random_weights(c, np.random.default_rng([seed, 0]))
        cos, sin = rope_tables(c, max_positions)
        extra = {QUERY_SCALE: query_scale_table(c, max_positions)} if query_scaled(c) else {}
        if decoder and tp > 1:
            from .decoder import vocab_tables
            extra.update(vocab_tables(c))
        return {**values, **extra, "model.rotary_emb.cos_cached": cos, "model.rotary_emb.sin_cached": sin}
    return Model(name, c, lambda context=None, into=None, function="forward": _forward(
        c, num_blocks, blocks_per_row, specs, context, into, function), block_table, num_blocks, max_positions, make)


# The hyper-parameters build reads from a config (config.json names), each a positive integer.
CONFIG_SIZES = ("hidden_size", "num_attention_heads", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
                "v_head_dim")
# Bounds that keep a typo from allocating the machine: FIA's B <= 65536 and blockSize <= 512
# (the seed); positions up to the config's max_position_embeddings (at most 2^20).
_MAX_SIZE = 1 << 16          # a config's sizes (DeepSeek-V3's largest: hidden_size 7168)
_LIMITS = {"tp": 1 << 16, "layers": 1 << 10, "batch": 65536, "seq": 1 << 20, "block_size": 512}


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_build_arguments(name, config, *, max_positions, seed, **sizes):
    """ValueError naming the argument (or the config key) and the rule, before any is used."""
    if not isinstance(config, dict):
        raise ValueError(f"config: expected a dict of hyper-parameters (a config.json), got {type(config).__name__}")
    for key in CONFIG_SIZES:
        if not _is_int(config.get(key)) or not 1 <= config[key] <= _MAX_SIZE:
            raise ValueError(f"config[{key!r}]: expected an integer in [1, {_MAX_SIZE}], got {config.get(key)!r}")
    lora = config.get("q_lora_rank")
    if lora is not None and (not _is_int(lora) or not 1 <= lora <= _MAX_SIZE):
        raise ValueError(f"config['q_lora_rank']: expected an integer in [1, {_MAX_SIZE}] or None, got {lora!r}")
    eps = config.get("rms_norm_eps", 1e-6)
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 < eps < 1:
        raise ValueError(f"config['rms_norm_eps']: expected a number in (0, 1), got {eps!r}")
    for arg, value in sizes.items():
        if not _is_int(value) or not 1 <= value <= _LIMITS[arg]:
            raise ValueError(f"{arg}: expected an integer in [1, {_LIMITS[arg]}], got {value!r}")
    if not _is_int(seed) or seed < 0:
        raise ValueError(f"seed: expected a non-negative integer, got {seed!r}")
    # a bound on the caches' size, not the model's max_position_embeddings: a cache may hold a
    # padded prefill chunk past it (CausalLM rounds its capacity up to whole chunks and blocks)
    most = 1 << 20
    if max_positions is not None and (not _is_int(max_positions) or not sizes["seq"] <= max_positions <= most):
        raise ValueError(f"max_positions: expected an integer in [seq = {sizes['seq']}, {most}], got {max_positions!r}")


def from_pretrained(path: str, **build_args) -> Model:
    """The attention blocks of a Hugging Face checkpoint directory (config.json + safetensors,
    sharded or not; bf16, fp32 or block FP8; transformers 4.x or 5.x config): the rope mode,
    YaRN and the norms' eps come from the config; quant="w8a8"/"w8a8c8" quantizes the
    checkpoint's weights at load. What the graph cannot honour is a CompileError (checkpoint.py)."""
    config = checkpoint.read_config(path)
    rope = build_args.pop("rope", config.rope)
    if rope != config.rope:
        raise ValueError(f"rope: the checkpoint's rope_interleave says {config.rope!r}, got {rope!r}")
    layers = build_args.get("layers", 1)
    if not isinstance(layers, int) or not 1 <= layers <= config.num_hidden_layers:
        raise ValueError(f"layers: expected an integer in [1, {config.num_hidden_layers}], got {layers!r}")
    weights = load_weights(path, layers=range(layers), quant=build_args.get("quant", "bf16"), config=config)
    name = os.path.basename(os.path.normpath(path))
    return build(name, config=config.build_config(), weights=weights, rope=rope, **build_args)


# --- weights ---------------------------------------------------------------------------------------

def _attn(i, name):
    return f"model.layers.{i}.self_attn.{name}"


def projections(c) -> dict:
    """HF name suffix -> (out, in) of the attention's linear layers (full size, all heads)."""
    heads, he = c["num_attention_heads"], c["hidden_size"]
    nope, rope, v, lora = c["qk_nope_head_dim"], c["qk_rope_head_dim"], c["v_head_dim"], c["kv_lora_rank"]
    out = {"kv_a_proj_with_mqa": (lora + rope, he), "kv_b_proj": (heads * (nope + v), lora),
           "o_proj": (he, heads * v)}
    if c["q_lora_rank"]:
        out.update(q_a_proj=(c["q_lora_rank"], he), q_b_proj=(heads * (nope + rope), c["q_lora_rank"]))
    else:
        out["q_proj"] = (heads * (nope + rope), he)
    return out


QUANTIZED = ("q_a_proj", "q_b_proj", "q_proj", "kv_a_proj_with_mqa", "o_proj")   # int8 in w8a8


def weight_specs(c) -> dict:
    """name -> TensorInfo of every weight of the tp slice (what the IR declares)."""
    specs = {}
    if "max_positions" in c:
        for table in ("cos_cached", "sin_cached"):
            specs[f"model.rotary_emb.{table}"] = TensorInfo((c["max_positions"], c["qk_rope_head_dim"]), "bf16")
        if query_scaled(c):
            specs[QUERY_SCALE] = TensorInfo((c["max_positions"], 1), "f32")
    for block in (b for i in layer_ids(c) for b in layer_blocks(c, i)):
        a = block.attention
        specs[block.input_norm] = TensorInfo((c["hidden_size"],), "bf16")
        if c["q_lora_rank"]:
            specs[a + "q_a_layernorm.weight"] = TensorInfo((c["q_lora_rank"],), "bf16")
        specs[a + "kv_a_layernorm.weight"] = TensorInfo((c["kv_lora_rank"],), "bf16")
        for proj, (rows, cols) in projections(c).items():
            rows, cols = _sliced(c, proj, rows, cols)
            int8 = c["quant"] != "bf16" and proj in QUANTIZED
            specs[a + f"{proj}.weight"] = TensorInfo((rows, cols), "i8" if int8 else "bf16")
            if int8:
                specs[a + f"{proj}.weight_scale"] = TensorInfo((rows, 1), "f32")
        if c["quant"] == "w8a8c8":
            specs[a + "kv_scale"] = TensorInfo((1, c["kv_lora_rank"]), "f32")
        if c.get("attention") == "dsa":
            for suffix, (shape, dtype) in dsa.indexer_names(c).items():
                specs[a + dsa.INDEXER + suffix] = TensorInfo(shape, dtype)
    if c.get("feed_forward"):
        from .decoder import decoder_specs
        specs.update(decoder_specs(c))
    return specs


def random_weights(c, rng) -> dict:
    """Random weights of the tp slice, with HF names (bf16; int8 + weight_scale for w8a8)."""
    weights = {}
    for name, spec in weight_specs(c).items():
        if name.startswith(("model.rotary_emb", "tp.")) or name.endswith((".weight_scale", "_proj_scale")):
            continue                                # tables: rope_tables; scales: with their weight
        if re.search(r"norm(\.\d+)?\.weight$", name):        # a gamma (LongCat's input_layernorm.{0,1} too)
            weights[name] = _gamma(rng, spec.shape[0])
        elif name.endswith("kv_scale"):
            weights[name] = np.full(spec.shape, KV_SCALE, np.float32)
        elif name.endswith("e_score_correction_bias"):
            weights[name] = (rng.standard_normal(spec.shape, np.float32) * 0.01).astype(np.float32)
        else:
            fan_in = spec.shape[0] if name.endswith("embed_tokens.weight") else spec.shape[-1]
            w = rng.standard_normal(spec.shape, np.float32) / np.float32(np.sqrt(fan_in))
            if spec.dtype == "f32":
                weights[name] = w
                continue
            if spec.dtype == "i8":                  # symmetric per output channel (the last axis is the input)
                scale = np.abs(w).max(axis=-1, keepdims=True) / 127
                weights[name] = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
                weights[name + "_scale"] = scale.astype(np.float32)
            else:
                weights[name] = w.astype(BF16)
    return weights


def _gamma(rng, n):
    return rng.uniform(0.8, 1.2, n).astype(BF16)


def _sliced(c, proj, rows, cols):
    heads = c["heads"]
    per_head = {"q_b_proj": c["qk_nope_head_dim"] + c["qk_rope_head_dim"],
                "q_proj": c["qk_nope_head_dim"] + c["qk_rope_head_dim"],
                "kv_b_proj": c["qk_nope_head_dim"] + c["v_head_dim"]}
    if proj in per_head:
        return heads * per_head[proj], cols
    if proj == "o_proj":
        return rows, heads * c["v_head_dim"]
    return rows, cols


def shard(weights: dict, c) -> dict:
    """Rank c["rank"]'s tensor-parallel slice of full checkpoint weights (for the layers built):
    its heads' rows of q_b_proj / q_proj / kv_b_proj, its heads' columns of o_proj
    (ascend_mla/models/sharding.py says what each tensor splits into)."""
    from .sharding import take
    out = {}
    names = []
    if c.get("feed_forward"):
        from .decoder import decoder_specs
        names = [n for n in decoder_specs(c) if n in weights]
    for i in layer_ids(c):
        names += [k for k in weights if k.startswith((f"model.layers.{i}.self_attn.", f"model.layers.{i}.input_layernorm."))]
    for key in names:
        out[key] = np.ascontiguousarray(take(key, np.asarray(weights[key]), c["tp"], c.get("rank", 0),
                                             c.get("ep", 1)))
    return out


def load_weights(path: str, layers=None, *, quant: str | None = None, config=None) -> dict:
    """The attention weights (with each layer's input_layernorm) of a Hugging Face checkpoint
    directory, by their checkpoint names (bf16 as ml_dtypes.bfloat16; int8 + weight_scale for
    quant="w8a8"/"w8a8c8"). `layers`: which layer indices (default all). The checkpoint's other
    tensors are skipped; one inside an attention block that the graph would not read (a bias)
    is refused (CKPT-UNUSED)."""
    config = config or checkpoint.read_config(path)
    layers = range(config.num_hidden_layers) if layers is None else [int(i) for i in layers]
    names = checkpoint.attention_names(config, layers)
    built = tuple(f"model.layers.{i}.{part}" for i in layers for part in ("self_attn.", "input_layernorm."))
    return checkpoint.load_tensors(path, config, names=names, ignore=lambda n: not n.startswith(built), quant=quant)


# --- the graph -------------------------------------------------------------------------------------

def _forward(c, num_blocks, blocks_per_row, specs, context=None, into=None, function="forward"):
    """@forward (or `function`) written into `context`, or added to the module `into`; each
    op's location is the model's module path it belongs to (model.layers.{i}.self_attn...)."""
    from . import decoder as whole
    g = GraphWriter(function, context, into)
    b, s, he = c["batch"], c["seq"], c["hidden_size"]
    dr, lora = c["qk_rope_head_dim"], c["kv_lora_rank"]
    kv_int8 = c["quant"] == "w8a8c8"

    def t(shape, dtype):
        return TensorInfo(tuple(shape), dtype)

    def w(key):
        return g.weight(key, specs[key])

    if c.get("decoder"):
        g.location = "model.embed_tokens"
        h = whole.embedding(g, w, g.arg("input_ids", t((b, s), "i64")), c)
    else:
        h = g.arg("hidden_states", t((b, s, he), "bf16"))
    positions = g.arg("positions", t((b, s), "i64"))
    slots = g.arg("slot_mapping", t((b, s), "i64"))
    block_table = g.arg("block_table", t((b, blocks_per_row), "i32"))
    lengths = g.arg("seq_lengths", t((b,), "i64"))
    caches = {a: (g.arg(f"kv_cache.{a}", t((num_blocks, c["block_size"], 1, lora), "i8" if kv_int8 else "bf16")),
                  g.arg(f"kr_cache.{a}", t((num_blocks, c["block_size"], 1, dr), "bf16")))
              + ((g.arg(f"index_cache.{a}", dsa.index_cache_info(c, num_blocks)),) if "index" in cache_kinds(c) else ())
              for a in attention_ids(c)}
    g.location = "model.rotary_emb"
    cos = g.op(Gather, table=w("model.rotary_emb.cos_cached"), indices=positions, name="cos")
    sin = g.op(Gather, table=w("model.rotary_emb.sin_cached"), indices=positions, name="sin")
    kind = c.get("attention") or "mla"
    if kind not in ATTENTIONS:
        raise CompileError(f"config: attention {kind!r}: no attention block of that kind is built "
                           f"(known: {', '.join(ATTENTIONS)})")
    run = ATTENTIONS[kind](g, w, c, dict(positions=positions, slots=slots, block_table=block_table, lengths=lengths,
                                   cos=cos, sin=sin, cos_heads=g.reshape(cos, (b, s, 1, dr), "cos_heads"),
                                   sin_heads=g.reshape(sin, (b, s, 1, dr), "sin_heads")), caches)
    for i in layer_ids(c):
        g.location = f"model.layers.{i}"
        if c.get("decoder"):
            h = whole.layer(g, w, c, i, h, run)
            continue
        if c.get("layer_kind", "pre_norm") != "pre_norm":
            raise ValueError(f"decoder: a {c['layer_kind']} layer's attention blocks are built with the whole "
                             f"decoder (decoder=True)")
        for block in layer_blocks(c, i):
            x = g.op(RmsNorm, x=h, gamma=w(block.input_norm), epsilon=c["rms_norm_eps"], name=f"{block.tag}_x")
            h = whole.residual(g, c, h, run(block, x), f"{block.tag}_h")
        if c.get("feed_forward"):         # the layer's MLP or MoE too (hidden states in and out)
            h = whole.feed_forward(g, w, c, i, h)
    if c.get("decoder"):
        g.location = "lm_head"
        h = whole.logits(g, w, c, h)
    g.ret(h, *[v for a in attention_ids(c) for v in run.new_caches[a]])
    return g.module


class _Attention:
    """The MLA attention block as unfused model code computes it (the module doc), one call per
    attention block: run(block, x) with x the block's normed input gives o_proj's output (the
    ranks' sum when tp > 1); the updated caches are kept in new_caches by cache index."""

    def __init__(self, g, w, c, inputs, caches):
        self.g, self.w, self.c, self.inputs, self.caches, self.new_caches = g, w, c, inputs, caches, {}
        self.query_scale = None
        if query_scaled(c):            # Mistral 4: one factor per position (the table: rope_tables' caller)
            b, s = c["batch"], c["seq"]
            scale = g.op(Gather, table=w(QUERY_SCALE), indices=inputs["positions"], name="query_scale")
            self.query_scale = g.reshape(scale, (b, s, 1, 1), "query_scale_heads")

    def linear(self, x, key, x_scale=None, out="bf16", name=""):
        """x @ W.T for an HF (out, in) weight; int8 weights take the int8 x and its scale."""
        g, w = self.g, self.w
        wt = g.op(Transpose, x=w(key + ".weight"), permutation=[1, 0], name=f"{name}_wt")
        if x_scale is None:
            return g.op(Matmul, x=x, w=wt, name=name, result={"y": TensorInfo(x.shape[:-1] + wt.shape[1:], out)})
        scale = w(key + ".weight_scale")
        return g.op(QuantMatmul, x=x, w=wt, x_scale=x_scale, w_scale=g.reshape(scale, scale.shape[:1], f"{name}_ws"),
                    name=name, result={"y": TensorInfo(x.shape[:-1] + wt.shape[1:], out)})

    def gamma(self, key, scale, name):
        """A latent norm's gamma; LongCat's LoRA scale (q_lora_scale, kv_lora_scale) folded into
        it (weight-only: computed once at compile time; the product is linear in the norm's
        output, so the query or latent comes out scaled as transformers scales it)."""
        gamma = self.w(key)
        if not scale:
            return gamma
        return self.g.op(Mul, x=gamma, y=self.g.constant(scale, TensorInfo((1,), "f32"), f"{name}_lora_scale"),
                         name=f"{name}_gamma")

    def __call__(self, block, x):
        """The block's ops, located at its attention's module path (model.layers.{i}.self_attn)."""
        around, self.g.location = self.g.location, block.attention.rstrip(".")
        try:
            return self._write(block, x)
        finally:
            self.g.location = around

    def _write(self, block, x):
        g, w, c, ins = self.g, self.w, self.c, self.inputs
        b, s = c["batch"], c["seq"]
        n, nope, dr, dv, lora = c["heads"], c["qk_nope_head_dim"], c["qk_rope_head_dim"], c["v_head_dim"], c["kv_lora_rank"]
        quant, kv_int8 = c["quant"], c["quant"] == "w8a8c8"
        latent_eps = c.get("latent_norm_eps", checkpoint.LATENT_NORM_EPS)
        rope_mode = {} if c.get("rope", "interleave") == "interleave" else {"mode": c["rope"]}
        cos, sin, cos_heads, sin_heads = ins["cos"], ins["sin"], ins["cos_heads"], ins["sin_heads"]
        kv_cache, kr_cache = self.caches[block.cache][:2]
        a, tag, linear = block.attention, block.tag, self.linear

        def t(shape, dtype):
            return TensorInfo(tuple(shape), dtype)
        int8 = quant != "bf16"
        xq, xs = (g.op(DynamicQuant, x=x, name=f"{tag}_xq") if int8 else (x, None))
        f32_or_bf16 = "f32" if int8 else "bf16"
        # query path
        c_q = None
        if c["q_lora_rank"]:
            q_a = linear(xq, a + "q_a_proj", xs, f32_or_bf16, f"{tag}_q_a")
            c_q = g.op(RmsNorm, x=q_a, gamma=self.gamma(a + "q_a_layernorm.weight", c.get("q_lora_scale"), f"{tag}_c_q"),
                       epsilon=latent_eps, name=f"{tag}_c_q", result={"y": t(q_a.shape, f32_or_bf16)})
            if int8:
                cqq, cqs = g.op(DynamicQuant, x=c_q, name=f"{tag}_c_q_quant")
                q = linear(cqq, a + "q_b_proj", cqs, "f32", f"{tag}_q")
            else:
                q = linear(c_q, a + "q_b_proj", None, "bf16", f"{tag}_q")
        else:
            q = linear(xq, a + "q_proj", xs, f32_or_bf16, f"{tag}_q")
        heads = g.reshape(q, (b, s, n, nope + dr), f"{tag}_q_heads")
        q_nope = g.extract_slice(heads, (0, 0, 0, 0), (b, s, n, nope), f"{tag}_q_nope")
        if int8:
            q_nope = g.cast(q_nope, "bf16", f"{tag}_q_nope_bf16")
        kv_b = g.reshape(w(a + "kv_b_proj.weight"), (n, nope + dv, lora), f"{tag}_kv_b")
        w_uk = g.extract_slice(kv_b, (0, 0, 0), (n, nope, lora), f"{tag}_w_uk")
        query = g.op(HeadMatmul, x=q_nope, w=w_uk, name=f"{tag}_query")
        q_pe = g.extract_slice(heads, (0, 0, 0, nope), (b, s, n, dr), f"{tag}_q_pe")
        query_rope = g.op(Rope, x=q_pe, cos=cos_heads, sin=sin_heads, **rope_mode, name=f"{tag}_query_rope",
                          result={"y": t(q_pe.shape, "bf16")})
        if self.query_scale is not None:
            query = g.op(Mul, x=query, y=self.query_scale, name=f"{tag}_query_scaled")
            query_rope = g.op(Mul, x=query_rope, y=self.query_scale, name=f"{tag}_query_rope_scaled")
        # key path
        kv = linear(xq, a + "kv_a_proj_with_mqa", xs, f32_or_bf16, f"{tag}_kv")
        c_kv = g.extract_slice(kv, (0, 0, 0), (b, s, lora), f"{tag}_c_kv")
        k_pe = g.extract_slice(kv, (0, 0, lora), (b, s, dr), f"{tag}_k_pe")
        kv_norm = g.op(RmsNorm, x=c_kv, gamma=self.gamma(a + "kv_a_layernorm.weight", c.get("kv_lora_scale"), f"{tag}_kv"),
                       epsilon=latent_eps, name=f"{tag}_kv_norm", result={"y": t(c_kv.shape, "f32" if kv_int8 else "bf16")})
        k_rope = g.op(Rope, x=k_pe, cos=cos, sin=sin, **rope_mode, name=f"{tag}_k_rope", result={"y": t(k_pe.shape, "bf16")})
        attention_extra = {}
        if kv_int8:
            kv_scale = g.extract_slice(w(a + "kv_scale"), (0, 0), (1, 1), f"{tag}_kv_scale")
            kv_rows = g.op(Quantize, x=kv_norm, scale=kv_scale, name=f"{tag}_kv_int8")
            query, q_scale = g.op(DynamicQuant, x=query, rounding="half_away", name=f"{tag}_query_int8")
            q_scale = g.reshape(q_scale, (b, s, n, 1), f"{tag}_query_scale")
            factor = g.op(Div, x=kv_scale, y=q_scale, name=f"{tag}_rope_factor", result={"z": t((b, s, n, 1), "f32")})
            query_rope = g.op(Mul, x=query_rope, y=factor, name=f"{tag}_query_rope_scaled")
            one = g.constant(1.0, t((1, 1), "f32"), f"{tag}_one")
            kv_dequant = g.op(Div, x=one, y=w(a + "kv_scale"), name=f"{tag}_kv_dequant")
            kv_dequant = g.extract_slice(kv_dequant, (0, 0), (1, 1), f"{tag}_kv_dequant_scale")
            attention_extra = {"dequant_scale_query": q_scale, "key_dequant_scale": kv_dequant}
        else:
            kv_rows = kv_norm
        kv_cache = g.op(ScatterCache, cache=kv_cache, slot_mapping=ins["slots"],
                        update=g.reshape(kv_rows, (b, s, 1, lora), f"{tag}_kv_rows"),
                        cache_mode=c["cache_mode"], name=f"{tag}_kv_cache")
        kr_cache = g.op(ScatterCache, cache=kr_cache, slot_mapping=ins["slots"],
                        update=g.reshape(k_rope, (b, s, 1, dr), f"{tag}_kr_rows"),
                        cache_mode=c["cache_mode"], name=f"{tag}_kr_cache")
        self.new_caches[block.cache] = (kv_cache, kr_cache)
        # attention over the latent cache, then W_uv and o_proj
        latent = self.attend(block, x, c_q, dict(query=query, key_cache=kv_cache, value_cache=kv_cache,
                                                 block_table=ins["block_table"], seq_lengths=ins["lengths"],
                                                 query_rope=query_rope, key_rope_cache=kr_cache, **attention_extra))
        w_uv = g.op(Transpose, x=g.extract_slice(kv_b, (0, nope, 0), (n, dv, lora), f"{tag}_w_uv_t"),
                    permutation=[0, 2, 1], name=f"{tag}_w_uv")
        o = g.reshape(g.op(HeadMatmul, x=latent, w=w_uv, name=f"{tag}_o_heads"), (b, s, n * dv), f"{tag}_o_flat")
        if int8:
            oq, os_ = g.op(DynamicQuant, x=o, name=f"{tag}_o_quant")
            out = linear(oq, a + "o_proj", os_, "bf16", f"{tag}_o")
        else:
            out = linear(o, a + "o_proj", None, "bf16", f"{tag}_o")
        if c["tp"] > 1:      # row-parallel o_proj: the ranks' partial sums, summed
            out = g.op(AllReduce, x=out, world_size=c["tp"], name=f"{tag}_o_sum")
        return out

    def attend(self, block, x, c_q, operands):
        """The attention over the latent cache (B, S, N, kv_lora_rank): MLA's paged attention
        of every cached token. x: the block's normed input; c_q: its query latent (None without
        a query down-projection); operands: the paged attention's."""
        c = self.c
        return self.g.op(PagedAttention, **operands, scale_value=c["softmax_scale"], cache_mode=c["cache_mode"],
                         name=f"{block.tag}_latent", result={"attention_out": TensorInfo(
                             (c["batch"], c["seq"], c["heads"], c["kv_lora_rank"]), "bf16")})


class _SparseAttention(_Attention):
    """DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5): MLA whose attention sees only the keys
    its indexer selects (dsa.py writes the indexer; its keys are one more paged cache per block,
    `index_cache.{id}`)."""

    def attend(self, block, x, c_q, operands):
        c, g = self.c, self.g
        mask, index_cache = dsa.selection(g, self.w, c, block, x, c_q, self.inputs, self.caches[block.cache][2])
        self.new_caches[block.cache] += (index_cache,)
        return g.op(MaskedPagedAttention, **operands, atten_mask=mask, scale_value=c["softmax_scale"],
                    cache_mode=c["cache_mode"], name=f"{block.tag}_latent", result={"attention_out": TensorInfo(
                        (c["batch"], c["seq"], c["heads"], c["kv_lora_rank"]), "bf16")})


# The attention block of each kind a family names (families.Family.attention): a class built
# with (g, w, c, inputs, caches) whose call (block, x) writes one block and returns its output.
ATTENTIONS = {"mla": _Attention, "dsa": _SparseAttention}


def cache_kinds(c) -> tuple:
    """The paged caches of each attention block, in the order @forward takes and returns them."""
    return ("kv", "kr", "index") if c.get("attention") == "dsa" else ("kv", "kr")
QUERY_SCALE = "model.rotary_emb.query_scale"


def query_scaled(c) -> bool:
    """Mistral 4's Llama 4 query scaling changes the query at the positions built: 1 + beta
    log(1 + floor(position / original_max_position_embeddings)) is 1 below the original context."""
    original = (c.get("rope_scaling") or {}).get("original_max_position_embeddings")
    return bool(c.get("query_scale_beta")) and "max_positions" in c and (
        original is None or c["max_positions"] > original)


def query_scale_table(c, positions: int) -> np.ndarray:
    """(positions, 1) float32: transformers' get_llama_4_attn_scale at each position."""
    original = (c.get("rope_scaling") or {}).get("original_max_position_embeddings")
    if original is None:
        raise CompileError("config: llama_4_scaling_beta without original_max_position_embeddings: the query "
                            "scale is undefined (transformers divides the position by it)")
    pos = np.arange(positions, dtype=np.float32)
    return (1 + np.float32(c["query_scale_beta"]) * np.log1p(np.floor(pos / np.float32(original))))[:, None] \
        .astype(np.float32)

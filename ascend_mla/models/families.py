"""The MLA model families transformers ships, each a description of how it differs from
DeepSeek-V3 (docs/guide.md, "Model families"). Nothing here writes a graph: the checkpoint
reader (checkpoint.read_config) turns a config.json into a ModelConfig through its family's
description, and the decoder builder (deepseek.py, decoder.py) reads the ModelConfig's fields.

    family = FAMILIES["minicpm3"]
    family.defaults          transformers' defaults of the keys a config.json may leave out
    family.renamed           config keys under other names (LongCat's ffn_hidden_size ...)
    family.derived(c)        the generic fields the family sets (scales, layer kinds, router ...)

What a family can differ in, and the ModelConfig field each difference becomes (the default is
DeepSeek-V3's behaviour):

    dims                 the config's own (q_lora_rank None: a single q_proj)
    norms                rms_norm_eps for the layer norms; the latent norms (q_a, kv_a) 1e-6
    rope                 rope_interleave (True: pairs, False: rotate-half); rotary_head_dim, the
                         head dim transformers' rotary embedding derives its width from (times
                         partial_rotary_factor it must be the rope part, qk_rope_head_dim)
    layer_kind           "pre_norm" (norm, attention, residual; norm, MLP, residual) or "dual"
                         (LongCat: two attention + MLP blocks per layer, the MoE a shortcut of
                         the first block's normed input added at the end)
    mlp_layer_types      per layer "dense" or "sparse" (from first_k_dense_replace / moe_layer_freq,
                         the config's mlp_layer_types, all dense, all sparse)
    router               scoring_func sigmoid/softmax, score_bias (e_score_correction_bias in
                         the choice), group_score ("top2": groups by the sum of their two best
                         scores, "max"), norm_topk_prob, routed_scaling_factor, router_weight
                         (the tensor under mlp.: "gate" or LongCat's "router.classifier"),
                         zero_experts (LongCat's identity experts after the routed ones)
    moe_output_norm      A.X-K1: an RmsNorm (post_mlp_layernorm) on the MoE's output
    embedding_scale      MiniCPM3: embeddings times scale_emb
    residual_scale       MiniCPM3: each branch times scale_depth / sqrt(layers) before its residual
    logits_divisor       MiniCPM3: the final hidden state divided by hidden_size / dim_model_base
    q_lora_scale,        LongCat: the query times sqrt(hidden / q_lora_rank), the latent times
    kv_lora_scale        sqrt(hidden / kv_lora_rank)
    query_scale_beta     Mistral 4 (Llama 4 scaling): the query times 1 + beta log(1 + floor(pos /
                         original_max_position_embeddings)) (1 below that position)
    tie_word_embeddings  lm_head is the embedding
    attention            "mla", or "dsa" (DeepSeek-V3.2, GLM-5: MLA over the keys a lightning
                         indexer selects, models/dsa.py): index_n_heads, index_head_dim,
                         index_topk, indexer_rope ("half" V3.2, "interleave" GLM-5)

A multimodal checkpoint's language model (Kimi-K2.5) is read through `text_config` and
`tensor_names` (its text tensors' names as the decoder's; the vision tower and projector are
not the text model and are skipped). A family the compiler cannot build is in REFUSED with the
reason; reading its config raises CompileError [CKPT-FAMILY] naming the model type and what is
missing.

Adding a family (see also the DSA hook `attention`): one Family entry, its defaults, renamed
keys and derived fields; a new kind of difference is one ModelConfig field with DeepSeek's
behaviour as its default, read where the builder builds that part.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable

from .config_keys import INERT, INT, LIST, TEXT_OR_LIST, Key, json_kind

# transformers' defaults (its *Config classes) for the keys a config.json may leave out.
DEEPSEEK_V3 = dict(vocab_size=129280, hidden_size=7168, intermediate_size=18432, moe_intermediate_size=2048,
                   num_hidden_layers=61, num_attention_heads=128, n_shared_experts=1, n_routed_experts=256,
                   routed_scaling_factor=2.5, kv_lora_rank=512, q_lora_rank=1536, qk_rope_head_dim=64,
                   v_head_dim=128, qk_nope_head_dim=128, n_group=8, topk_group=4, num_experts_per_tok=8,
                   first_k_dense_replace=3, norm_topk_prob=True, hidden_act="silu", max_position_embeddings=4096,
                   rms_norm_eps=1e-6, tie_word_embeddings=False, rope_interleave=True, attention_bias=False,
                   scoring_func="sigmoid", topk_method="noaux_tc", moe_layer_freq=1, rope_theta=10000.0,
                   num_nextn_predict_layers=0, bos_token_id=0, eos_token_id=1)
DEEPSEEK_V2 = dict(DEEPSEEK_V3, vocab_size=102400, hidden_size=4096, intermediate_size=11008,
                   moe_intermediate_size=1407, num_hidden_layers=32, num_attention_heads=32, n_shared_experts=2,
                   n_routed_experts=64, routed_scaling_factor=1.0, n_group=None, topk_group=None,
                   num_experts_per_tok=None, first_k_dense_replace=0, norm_topk_prob=False,
                   max_position_embeddings=2048, scoring_func="softmax", topk_method="greedy",
                   bos_token_id=1, eos_token_id=2)
_NO_MOE = dict(n_routed_experts=None, n_shared_experts=None, num_experts_per_tok=None, moe_intermediate_size=None,
               n_group=None, topk_group=None, first_k_dense_replace=0)


def _first_k_dense(c):
    """DeepSeek's rule: MoE from layer first_k_dense_replace on, every moe_layer_freq-th."""
    first, freq = c.get("first_k_dense_replace") or 0, c.get("moe_layer_freq") or 1
    return ["sparse" if c.get("n_routed_experts") and i >= first and i % freq == 0 else "dense"
            for i in range(c["num_hidden_layers"])]


def _mlp_layer_types(fallback):
    """The config's mlp_layer_types, else `fallback` (a rule of the config)."""
    def types(c):
        given = c.get("mlp_layer_types")
        return list(given) if given is not None else fallback(c)
    return types


@dataclass(frozen=True)
class Family:
    """One model family: what its config.json means in DeepSeek-V3's terms (module doc)."""
    name: str                                    # the model_type transformers dispatches on
    architectures: tuple = ()                    # architectures that mean this family
    defaults: dict = field(default_factory=dict, hash=False)
    renamed: dict = field(default_factory=dict, hash=False)     # config key -> DeepSeek name
    derive: Callable = None                      # c -> {ModelConfig field: value}
    rotary_dim: Callable = None                  # c -> the head dim its rotary embedding derives (before
                                                 # partial_rotary_factor); default qk_rope_head_dim
    text_config: str | None = None               # a multimodal config: the key of its text model's
    tensor_names: tuple = ()                     # (checkpoint regex, decoder name) renames, in order
    skipped_tensors: str | None = None           # checkpoint tensors transformers does not load either
                                                 # (a vision tower, an MTP module)
    optional_tensors: tuple = ()                 # tensor suffixes transformers fills with zeros when absent
    attention: str = "mla"                       # the attention builder (deepseek.py); "dsa": issue 30's
    summary: str = ""
    keys: tuple = field(default=(), hash=False)  # config_keys.Key rows of the keys only this family reads

    def rename(self, name: str) -> str | None:
        """A checkpoint tensor's name in the decoder (None: not the text model's)."""
        if self.skipped_tensors and re.match(self.skipped_tensors, name):
            return None
        for pattern, repl in self.tensor_names:
            name = re.sub(pattern, repl, name)
        return name


def _deepseek(c):
    return {"mlp_layer_types": tuple(_first_k_dense(c))}


def _minicpm3(c):
    layers = c["num_hidden_layers"]
    depth = c.get("scale_depth")
    base = c.get("dim_model_base")
    return {"mlp_layer_types": ("dense",) * layers, "rope_interleave": False,
            "embedding_scale": float(c.get("scale_emb", 1)),
            "residual_scale": float(depth) / math.sqrt(layers) if depth is not None else None,
            "logits_divisor": c["hidden_size"] / base if base is not None else None}


def _longcat(c):
    he = c["hidden_size"]
    if c.get("router_bias"):
        from ..compiler import CompileError
        raise CompileError("config: router_bias: true: LongCat's router classifier with a bias is not built "
                           "(the compiled router has no bias term) [CKPT-BIAS]")
    return {"layer_kind": "dual", "mlp_layer_types": ("sparse",) * c["num_hidden_layers"],
            "rope_interleave": True, "scoring_func": "softmax", "topk_method": "noaux_tc", "score_bias": True,
            "router_weight": "router.classifier", "norm_topk_prob": False, "n_group": 1, "topk_group": 1,
            "zero_experts": int(c.get("zero_expert_num") or 0), "n_shared_experts": 0,
            "q_lora_scale": math.sqrt(he / c["q_lora_rank"]), "kv_lora_scale": math.sqrt(he / c["kv_lora_rank"])}


def _mistral4(c):
    rope = c.get("rope_parameters") or c.get("rope_scaling") or {}
    beta = rope.get("llama_4_scaling_beta")
    return {"mlp_layer_types": tuple(_first_k_dense(c)), "scoring_func": "softmax",
            "topk_method": "group_limited_greedy", "group_score": "top2", "score_bias": False,
            "query_scale_beta": None if beta is None else float(beta)}


def _axk1(c):
    return {"mlp_layer_types": tuple(_mlp_layer_types(_first_k_dense_axk1)(c)), "moe_output_norm": True}


def _dsa(indexer_rope):
    """DeepSeek-V3.2 / GLM-5: DeepSeek-V3's decoder with DSA attention (models/dsa.py): MLA over
    the keys a lightning indexer selects; transformers' mlp_layer_types (first_k_dense_replace
    dense layers, the rest MoE); the main attention's RoPE interleaved, the indexer's `indexer_rope`."""
    def derive(c):
        shared = [i for i, kind in enumerate(_indexer_types(c)) if kind != "full"]
        if shared:
            from ..compiler import CompileError
            raise CompileError(f"config: indexer_types: layers {shared[:4]}{' ...' if len(shared) > 4 else ''} "
                               f"are 'shared' (they reuse an earlier layer's top-k): the decoder builds an indexer "
                               f"per layer [CKPT-FAMILY]")
        return {"mlp_layer_types": tuple(_mlp_layer_types(_first_k_dense_only)(c)), "rope_interleave": True,
                "indexer_rope": indexer_rope}
    return derive


_DSA_KEYS = (
    Key("index_n_heads", INT, low=1, high=1024, meaning="the indexer's heads"),
    Key("index_head_dim", INT, low=1, high=4096, meaning="the indexer's head dim"),
    Key("index_topk", INT, low=1, high=1 << 24, meaning="keys the indexer selects"),
    Key("indexer_types", LIST, nullable=True, meaning='per layer "full" or "shared"'),
    Key("index_topk_pattern", TEXT_OR_LIST, nullable=True, meaning='per layer F or S ("full" or "shared")'),
    Key("index_topk_freq", INT, low=1, high=1 << 16, nullable=True, meaning="a full indexer every N layers"),
    Key("index_skip_topk_offset", INT, low=0, high=1 << 16, nullable=True, meaning="the first layers' offset"),
    Key("layer_types", LIST, nullable=True, role=INERT, meaning="transformers' attention kind per layer"),
)


def _first_k_dense_only(c):
    """transformers' DeepseekV32Config: first_k_dense_replace dense layers, then every layer MoE."""
    first = min(c.get("first_k_dense_replace") or 0, c["num_hidden_layers"])
    return ["dense"] * first + ["sparse" if c.get("n_routed_experts") else "dense"] * (c["num_hidden_layers"] - first)


def _indexer_types(c) -> list:
    """GlmMoeDsaConfig's indexer_types: given, or from index_topk_pattern ("FSSF..."), or from
    index_topk_freq / index_skip_topk_offset (default: every layer "full"). The keys' types are
    checked before (_DSA_KEYS); the pattern's letters and the list's words here."""
    from ..compiler import CompileError
    if c.get("indexer_types") is not None:
        key, types = "indexer_types", list(c["indexer_types"])
    elif c.get("index_topk_pattern") is not None:
        key, pattern = "index_topk_pattern", c["index_topk_pattern"]
        if not isinstance(pattern, (str, list)):
            raise CompileError(f"config: index_topk_pattern: expected a string of F/S or a list of \"full\"/\"shared\", "
                               f"got {json_kind(pattern)} [CKPT-CONFIG]")
        types = [{"F": "full", "S": "shared"}.get(p, p) for p in pattern] if isinstance(pattern, str) else pattern
    else:
        key, types = None, None
    if key is not None:
        bad = next((t for t in types if t not in ("full", "shared")), None)
        if bad is not None or len(types) != c["num_hidden_layers"]:
            raise CompileError(f"config: {key}: expected one of \"full\"/\"shared\" (F/S) per layer "
                               f"({c['num_hidden_layers']}), got " + (f"{json_kind(bad)}" if bad is not None
                                                                     else f"{len(types)} entries") + " [CKPT-CONFIG]")
        return types
    freq, offset = max(c.get("index_topk_freq") or 1, 1), c.get("index_skip_topk_offset")
    offset = 2 if offset is None else offset
    return ["full" if max(i - offset + 1, 0) % freq == 0 else "shared" for i in range(c["num_hidden_layers"])]


def _first_k_dense_axk1(c):
    return _first_k_dense(dict(c, first_k_dense_replace=c.get("first_k_dense_replace", 1)))


FAMILIES = {f.name: f for f in [
    Family("deepseek_v3", ("DeepseekV3ForCausalLM",), DEEPSEEK_V3, derive=_deepseek,
           summary="DeepSeek-V3/R1: the reference"),
    Family("kimi_k2", (), DEEPSEEK_V3, derive=_deepseek, summary="Kimi-K2: DeepSeek-V3's code"),
    Family("deepseek_v2", ("DeepseekV2ForCausalLM",), DEEPSEEK_V2, derive=_deepseek,
           summary="DeepSeek-V2 / V2-Lite: softmax router, greedy or group-limited"),
    Family("sarvam_mla", (), dict(DEEPSEEK_V3, vocab_size=262144, hidden_size=4096, intermediate_size=16384,
                                  num_hidden_layers=32, num_attention_heads=64, n_routed_experts=128,
                                  q_lora_rank=None, n_group=1, topk_group=1, first_k_dense_replace=1),
           renamed={"num_experts": "n_routed_experts", "num_shared_experts": "n_shared_experts",
                    "num_mtp_layers": "num_nextn_predict_layers"},
           derive=_deepseek, summary="Sarvam: DeepSeek-V3's code without a query down-projection"),
    Family("glm4_moe_lite", ("Glm4MoeLiteForCausalLM",),
           dict(DEEPSEEK_V3, vocab_size=154880, hidden_size=2048, intermediate_size=10240, moe_intermediate_size=1536,
                num_hidden_layers=47, num_attention_heads=20, n_routed_experts=64, routed_scaling_factor=1.8,
                q_lora_rank=768, v_head_dim=256, qk_nope_head_dim=192, n_group=1, topk_group=1,
                num_experts_per_tok=4, max_position_embeddings=202752, rms_norm_eps=1e-5,
                num_nextn_predict_layers=1),                      # layer 47 of the hub's: MTP, skipped
           derive=lambda c: {"mlp_layer_types": tuple(_mlp_layer_types(
               lambda c: ["dense"] + ["sparse"] * (c["num_hidden_layers"] - 1))(c))},
           summary="GLM-4.7-Flash: DeepSeek-V3's attention and router, its own dims, mlp_layer_types"),
    Family("axk1", ("AXK1ForCausalLM",),
           dict(DEEPSEEK_V3, vocab_size=163840, num_attention_heads=64, n_routed_experts=192,
                max_position_embeddings=32768, bos_token_id=163691, eos_token_id=163691),
           derive=_axk1, optional_tensors=("mlp.gate.e_score_correction_bias",),
           skipped_tensors=None, summary="A.X-K1: DeepSeek-V3 with an RmsNorm on the MoE output"),
    Family("youtu", ("YoutuForCausalLM",),
           dict(DEEPSEEK_V3, **_NO_MOE, vocab_size=128256, hidden_size=2048, intermediate_size=6144,
                num_hidden_layers=32, num_attention_heads=16, max_position_embeddings=131072,
                tie_word_embeddings=True, bos_token_id=128000, eos_token_id=128001),
           derive=lambda c: {"mlp_layer_types": ("dense",) * c["num_hidden_layers"]},
           summary="Youtu-LLM: DeepSeek-V3's attention in a dense Llama decoder, tied embeddings"),
    Family("mistral4", ("Mistral4ForCausalLM",),
           dict(DEEPSEEK_V3, vocab_size=131072, hidden_size=4096, intermediate_size=12288, num_hidden_layers=36,
                num_attention_heads=32, n_routed_experts=128, routed_scaling_factor=1.0, kv_lora_rank=256,
                q_lora_rank=1024, qk_nope_head_dim=64, n_group=1, topk_group=1, num_experts_per_tok=4,
                first_k_dense_replace=0, max_position_embeddings=1048576, bos_token_id=1, eos_token_id=2),
           derive=_mistral4, rotary_dim=lambda c: c["qk_nope_head_dim"] + c["qk_rope_head_dim"],
           summary="Mistral 4: softmax router over groups, Llama 4 query scaling past the original context"),
    Family("minicpm3", ("MiniCPM3ForCausalLM",),
           dict(DEEPSEEK_V3, **_NO_MOE, vocab_size=73448, hidden_size=2560, intermediate_size=6400,
                num_hidden_layers=62, num_attention_heads=40, kv_lora_rank=256, q_lora_rank=768,
                qk_nope_head_dim=64, qk_rope_head_dim=32, v_head_dim=None, max_position_embeddings=32768,
                rms_norm_eps=1e-5, tie_word_embeddings=True, bos_token_id=1, eos_token_id=2,
                scale_emb=12, scale_depth=1.4, dim_model_base=256),
           derive=_minicpm3, summary="MiniCPM3: rotate-half RoPE, scaled embeddings, residuals and logits"),
    Family("longcat_flash", ("LongcatFlashForCausalLM",),
           dict(DEEPSEEK_V3, vocab_size=131072, hidden_size=6144, intermediate_size=12288, num_hidden_layers=28,
                num_attention_heads=64, n_routed_experts=512, routed_scaling_factor=6.0, num_experts_per_tok=12,
                zero_expert_num=256, max_position_embeddings=131072, rms_norm_eps=1e-5, rope_theta=10000000.0,
                head_dim=64, bos_token_id=1, eos_token_id=2),
           renamed={"num_layers": "num_hidden_layers", "ffn_hidden_size": "intermediate_size",
                    "expert_ffn_hidden_size": "moe_intermediate_size", "moe_topk": "num_experts_per_tok"},
           derive=_longcat, rotary_dim=lambda c: c.get("head_dim") or c["qk_rope_head_dim"],
           skipped_tensors=r"^model\.mtp\.",                   # its multi-token-prediction module, as transformers
           summary="LongCat-Flash: two attention blocks per layer, a shortcut MoE with identity experts"),
    Family("deepseek_v32", ("DeepseekV32ForCausalLM",),
           dict(DEEPSEEK_V3, max_position_embeddings=163840, index_topk=2048, index_head_dim=128, index_n_heads=64),
           derive=_dsa("half"), attention="dsa", keys=_DSA_KEYS,
           summary="DeepSeek-V3.2: DeepSeek-V3 with DSA (a lightning indexer per layer, rotate-half RoPE)"),
    Family("glm_moe_dsa", ("GlmMoeDsaForCausalLM",),
           dict(DEEPSEEK_V3, vocab_size=154880, hidden_size=6144, intermediate_size=12288, num_hidden_layers=78,
                num_attention_heads=64, q_lora_rank=2048, v_head_dim=256, qk_nope_head_dim=192, n_group=1,
                topk_group=1, max_position_embeddings=202752, rms_norm_eps=1e-5, index_topk=2048,
                index_head_dim=128, index_n_heads=32),
           derive=_dsa("interleave"), attention="dsa", keys=_DSA_KEYS,
           summary="GLM-5: DSA with an interleaved-RoPE indexer, its own dims (shared-indexer layers refused)"),
    Family("kimi_k25", ("Kimi_K25ForConditionalGeneration",), DEEPSEEK_V3, derive=_deepseek,
           text_config="text_config",
           tensor_names=((r"^language_model\.model\.", "model."), (r"^model\.language_model\.", "model."),
                         (r"^language_model\.lm_head\.", "lm_head."), (r"^model\.blocks\.", "model.layers.")),
           skipped_tensors=r"^(model\.)?(vision_tower|mm_projector)\.",
           summary="Kimi-K2.5: its text model (DeepSeek-V3's code); the vision tower is skipped"),
]}

# Families transformers ships with MLA whose other parts the compiler has no ops for.
REFUSED = {
    "kimi_linear": "its linear-attention layers (Kimi Delta Attention, layer_types 'linear_attention') have no "
                   "ops in the compiler; only its MLA layers do",
    "bailing_hybrid": "its linear-attention layers (layer_types 'linear_attention') have no ops in the compiler; "
                      "only its MLA layers do",
    "axk2": "its DSA indexer and gated attention output are not built by the decoder",
    "mistral_large4": "its DSA indexer and the layers that share another layer's latent cache are not built by "
                      "the decoder",
    "hy_v4": "its hyper-connections (several residual streams mixed per layer) and DSA indexer are not built by "
             "the decoder",
    "glm5_next": "its linear-attention layers, hyper-connections and DSA indexer are not built by the decoder",
    "dots3_note": "its sliding-window attention layers (with their own MLA dims) are not built by the decoder",
}
ARCHITECTURES = {a: f.name for f in FAMILIES.values() for a in f.architectures}


def resolve(raw: dict):
    """The Family of a config dict (its model_type, else its architectures; a bare dict of
    DeepSeek hyper-parameters is deepseek_v3), or (None, why) for a refused one, or (None, None)."""
    model_type = raw.get("model_type")
    if model_type in FAMILIES:
        return FAMILIES[model_type], None
    if model_type in REFUSED:
        return None, REFUSED[model_type]
    for a in raw.get("architectures") or ():
        if a in ARCHITECTURES:
            return FAMILIES[ARCHITECTURES[a]], None
    if model_type is None and not raw.get("architectures") and "kv_lora_rank" in raw:
        return FAMILIES["deepseek_v3"], None
    return None, None


def read(raw: dict):
    """(family, c): c is the config in DeepSeek-V3's names, the family's defaults filled, its
    renamed keys renamed, its derived fields set (a field the config already has wins: a
    ModelConfig's build_config reads back as itself). None for a family that is not known."""
    family, _ = resolve(raw)
    if family is None:
        return None, None
    outer = raw
    if family.text_config and isinstance(raw.get(family.text_config), dict):    # else already the text model's
        raw = dict(raw[family.text_config])
        raw["tie_word_embeddings"] = outer.get("tie_word_embeddings", True)       # the outer model ties (its default)
    c = dict(family.defaults)
    for key, value in raw.items():
        if value is not None or key == "q_lora_rank":
            c[family.renamed.get(key, key)] = value
    if c.get("v_head_dim") is None:                     # MiniCPM3: hidden_size / heads
        c["v_head_dim"] = c["hidden_size"] // c["num_attention_heads"]
    for key, value in (family.derive(c) if family.derive else {}).items():
        if key not in raw:
            c[key] = value
    c["model_type"] = family.name
    c.setdefault("attention", family.attention)
    if "rotary_head_dim" not in raw:
        c["rotary_head_dim"] = int(family.rotary_dim(c)) if family.rotary_dim else c["qk_rope_head_dim"]
    return family, c


# --- where each part of a layer is (the checkpoint's names) --------------------------------------

@dataclass(frozen=True)
class Block:
    """One attention block of a layer and the MLP after it: the checkpoint's names and the
    attention's cache index (transformers' layer_idx of the attention)."""
    attention: str            # prefix of the attention's tensors
    input_norm: str           # the norm before the attention
    post_norm: str            # the norm before the MLP
    mlp: str                  # prefix of the dense MLP's tensors (a sparse layer's MoE: moe_prefix)
    cache: int
    tag: str                  # the prefix of its values' names in the IR (l3, l3_1)


def blocks(layer_kind: str, i: int) -> list:
    """Layer i's attention blocks: one (pre_norm), or LongCat's two (dual; caches 2i, 2i + 1)."""
    layer = f"model.layers.{i}."
    if layer_kind == "dual":
        return [Block(f"{layer}self_attn.{j}.", f"{layer}input_layernorm.{j}.weight",
                      f"{layer}post_attention_layernorm.{j}.weight", f"{layer}mlps.{j}.", 2 * i + j, f"l{i}_{j}")
                for j in (0, 1)]
    return [Block(f"{layer}self_attn.", f"{layer}input_layernorm.weight", f"{layer}post_attention_layernorm.weight",
                  f"{layer}mlp.", i, f"l{i}")]


def moe_prefix(i: int) -> str:
    """The prefix of layer i's MoE tensors (router, experts, shared experts)."""
    return f"model.layers.{i}.mlp."


def attention_ids(layer_kind: str, layers) -> list:
    """The cache index of every attention block of `layers`, in order."""
    return [b.cache for i in layers for b in blocks(layer_kind, i)]


def unused(config, name: str) -> bool:
    """Checkpoint tensors that transformers holds (or skips at load) but never computes with:
    LongCat's projections of its identity experts (experts.{j} with j >= n_routed_experts),
    A.X-K1's post_mlp_layernorm of a dense layer."""
    m = re.match(r"model\.layers\.(\d+)\.(mlp\.experts\.(\d+)\.|post_mlp_layernorm\.)", name)
    if not m:
        return False
    if m.group(3) is not None:
        return config.zero_experts > 0 and int(m.group(3)) >= (config.n_routed_experts or 0)
    return config.moe_output_norm and not config.is_moe_layer(int(m.group(1)))

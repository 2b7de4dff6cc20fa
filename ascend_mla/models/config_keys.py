"""config.json checked before anything is built: a declarative table of its keys.

A checkpoint's config.json is untrusted input: every key the reader knows has a `Key` row (its
exact JSON type, its bounds or choices, what it means, whether it changes the model), and
`Schema.check_types(raw, where)` refuses the first value outside its row with one CompileError
naming the key [CKPT-CONFIG]; `check_rules` then runs the checks across keys (the router's
groups, token ids inside the vocabulary...) on the values with defaults filled. Exact types: an integer key takes a JSON integer (not `true`,
not `"2"`, not `2.5` or `2.0`), a number key an integer or a finite float, a flag `true` or
`false`. Keys nobody knows are not an error (hub configs carry training-only keys) but are
named in a note (`unknown`), so that a key that changes the model is never dropped silently.

A model family extends the table rather than copying it:

    MINICPM3_KEYS = DEEPSEEK_KEYS.extend(
        Key("scale_emb", NUMBER, low=0, meaning="embedding output multiplier"),
        rules=[...], without=("n_group",))

Bounds are what the compiled ops and a machine's memory allow, generous enough for every MLA
model released (DeepSeek-V3: hidden 7168, 61 layers, 128 heads, 256 experts, vocab 129280,
163840 positions): they keep a typo or a hostile file from building for minutes or allocating
the machine; `estimated_bytes` then checks the actual weights and caches against the memory
available before anything is allocated.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

INT, NUMBER, FLAG, TEXT, OBJECT, LIST, IDS = "int", "number", "flag", "text", "object", "list", "ids"
TEXT_OR_LIST = "text or list"      # a key read either way (its reader checks the contents)
_KIND_WORDS = {INT: "an integer", NUMBER: "a number", FLAG: "true or false", TEXT: "a string",
               OBJECT: "an object", LIST: "a list", IDS: "a token id or a list of token ids",
               TEXT_OR_LIST: "a string or a list"}

MODEL, INERT = "model", "inert"      # a key the model reads / one that does not change inference


def _error(message: str, rule: str = "CKPT-CONFIG"):
    from ..compiler import CompileError
    return CompileError(f"{message} [{rule}]")


def json_kind(value) -> str:
    """How a value reads in an error: `true (a flag)`, `'2' (a string)`, `2.5 (a number)`."""
    if isinstance(value, bool):
        return f"{str(value).lower()} (a flag)"
    if isinstance(value, str):
        return f"{value[:40]!r} (a string)"
    if isinstance(value, float):
        return f"{value!r} (a number)"
    if _is_int(value):
        text = str(value)
        return text if len(text) <= 24 else f"an integer of {len(text)} digits"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    if value is None:
        return "null"
    return repr(value)[:40]


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return _is_int(v) or isinstance(v, float) and math.isfinite(v)


@dataclass(frozen=True)
class Key:
    """One config.json key: its JSON kind, bounds (inclusive) or choices, whether null is
    allowed, what it means, and its role: MODEL (read, changes the model) or INERT (checked for
    its type, no effect on inference: training settings, transformers' bookkeeping)."""
    name: str
    kind: str
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    nullable: bool = False
    meaning: str = ""
    role: str = MODEL

    def problem(self, value) -> str | None:
        """Why `value` is not acceptable for this key, or None."""
        if value is None:
            return None if self.nullable else f"expected {self._expected()}, got null"
        ok = {INT: _is_int, NUMBER: _is_number, FLAG: lambda v: isinstance(v, bool),
              TEXT: lambda v: isinstance(v, str), OBJECT: lambda v: isinstance(v, dict),
              LIST: lambda v: isinstance(v, (list, tuple)), TEXT_OR_LIST: lambda v: isinstance(v, (str, list, tuple)),
              IDS: lambda v: _is_int(v) or isinstance(v, (list, tuple)) and all(_is_int(e) for e in v)}[self.kind]
        if not ok(value):
            if self.kind == IDS and isinstance(value, (list, tuple)):
                bad = next(e for e in value if not _is_int(e))
                return f"expected {self._expected()}, got a list holding {json_kind(bad)}"
            return f"expected {self._expected()}, got {json_kind(value)}"
        if self.choices and value not in self.choices:
            return f"expected one of {', '.join(map(repr, self.choices))}, got {json_kind(value)}"
        values = value if isinstance(value, (list, tuple)) else [value]
        if self.kind in (INT, NUMBER, IDS):
            for v in values:
                if self.low is not None and v < self.low or self.high is not None and v > self.high:
                    return f"expected {self._expected()}, got {json_kind(v)}"
        return None

    def _expected(self) -> str:
        text = _KIND_WORDS[self.kind]
        if self.low is not None and self.high is not None:
            text += f" in [{_number(self.low)}, {_number(self.high)}]"
        elif self.low is not None:
            text += f" >= {_number(self.low)}"
        elif self.high is not None:
            text += f" <= {_number(self.high)}"
        if self.meaning:
            text += f" ({self.meaning})"
        return text + (" or null" if self.nullable else "")


def _number(x) -> str:
    if isinstance(x, int) and x >= 1 << 16 and x & (x - 1) == 0:
        return f"2^{x.bit_length() - 1}"
    return f"{x:g}" if isinstance(x, float) else str(x)


@dataclass(frozen=True)
class Rule:
    """A check across keys: `check(values)` (the config with defaults filled) returns None, the
    reason (reported against `key`), or (the key at fault, the reason); with `rule_id`."""
    key: str
    check: Callable[[dict], str | None]
    rule_id: str = "CKPT-CONFIG"


@dataclass(frozen=True)
class Schema:
    """The keys of one family's config.json and the rules across them."""
    keys: dict = field(default_factory=dict)          # name -> Key
    rules: tuple = ()

    @classmethod
    def of(cls, *keys: Key, rules=()) -> "Schema":
        return cls({k.name: k for k in keys}, tuple(rules))

    def extend(self, *keys: Key, rules=(), without=()) -> "Schema":
        """This table with `keys` added (a key of the same name replaced), `without` removed,
        and `rules` added after the existing ones."""
        table = {n: k for n, k in self.keys.items() if n not in without}
        table.update({k.name: k for k in keys})
        return Schema(table, self.rules + tuple(rules))

    def check_types(self, raw: dict, where: str):
        """Refuse (CompileError naming the key) the first value of `raw` outside its row."""
        for name, value in raw.items():
            key = self.keys.get(name)
            why = key.problem(value) if key is not None else None
            if why:
                raise _error(f"{where}: {name}: {why}")

    def check_rules(self, values: dict, where: str):
        """Refuse the first rule across keys that fails on `values` (the config, defaults filled)."""
        for rule in self.rules:
            why = rule.check(values)
            if why:
                key, why = why if isinstance(why, tuple) else (rule.key, why)
                raise _error(f"{where}: {key}: {why}", rule.rule_id)

    def unknown(self, raw: dict, where: str) -> list[str]:
        """A note naming the keys of `raw` no row knows (none: [])."""
        names = sorted(str(n) for n in raw if n not in self.keys)
        if not names:
            return []
        shown = ", ".join(names[:12]) + (f" (and {len(names) - 12} more)" if len(names) > 12 else "")
        return [f"{where}: key{'s' * (len(names) > 1)} this reader does not know, ignored: {shown}"]


# --- the DeepSeek V2/V3 / Kimi-K2 family ------------------------------------------------------------

_DIM = 1 << 16            # any one dimension (DeepSeek-V3's largest: hidden 7168)
_HEAD_DIM = 4096
_TOKENS = 1 << 24         # vocabulary (Kimi-K2: 163840)


def _positive(name, high, meaning, nullable=False, low=1):
    return Key(name, INT, low=low, high=high, meaning=meaning, nullable=nullable)


def _inert(name, kind, nullable=True, **kw):
    return Key(name, kind, nullable=nullable, role=INERT, **kw)


MLA_KEYS = Schema.of(
    Key("model_type", TEXT, meaning="the model family"),
    Key("architectures", LIST, nullable=True, meaning="transformers class names"),
    _positive("vocab_size", _TOKENS, "the vocabulary"),
    _positive("hidden_size", _DIM, "the model dimension He"),
    _positive("num_hidden_layers", 1024, "decoder layers"),
    _positive("num_attention_heads", 1024, "attention heads N"),
    _positive("q_lora_rank", _DIM, "the query's down-projection rank; null: a direct q_proj", nullable=True),
    _positive("kv_lora_rank", _DIM, "the latent cache's width"),
    _positive("qk_nope_head_dim", _HEAD_DIM, "per-head query/key width without rope"),
    _positive("qk_rope_head_dim", _HEAD_DIM, "per-head rope width", low=2),
    _positive("v_head_dim", _HEAD_DIM, "per-head value width"),
    _positive("max_position_embeddings", _TOKENS, "positions the model was trained for"),
    Key("rms_norm_eps", NUMBER, low=1e-30, high=0.5, meaning="the RmsNorm epsilon"),
    Key("latent_norm_eps", NUMBER, low=1e-30, high=0.5, meaning="the q_a/kv_a RmsNorm epsilon"),
    Key("rope_theta", NUMBER, low=1e-6, high=1e15, meaning="the rope base"),
    Key("rope_scaling", OBJECT, nullable=True, meaning="transformers 4.x rope parameters"),
    Key("rope_parameters", OBJECT, nullable=True, meaning="transformers 5.x rope parameters"),
    Key("rope_interleave", FLAG, meaning="rope on interleaved pairs (DeepSeek) or halves"),
    Key("partial_rotary_factor", NUMBER, nullable=True, meaning="must be 1: the rope covers the rope head"),
    Key("original_max_position_embeddings", INT, low=1, high=_TOKENS, nullable=True,
        meaning="YaRN's original context"),
    Key("tie_word_embeddings", FLAG, meaning="lm_head shares the embedding"),
    Key("hidden_act", TEXT, meaning="the MLP activation"),
    Key("attention_bias", FLAG, meaning="must be false: the graph has no bias"),
    Key("mlp_bias", FLAG, meaning="must be false: the graph has no bias"),
    Key("quantization_config", OBJECT, nullable=True, meaning="the checkpoint's weight format"),
    Key("bos_token_id", IDS, low=0, high=_TOKENS, nullable=True, meaning="beginning of sequence"),
    Key("eos_token_id", IDS, low=0, high=_TOKENS, nullable=True, meaning="end of sequence"),
    Key("pad_token_id", IDS, low=0, high=_TOKENS, nullable=True, meaning="padding", role=INERT),
    Key("num_nextn_predict_layers", INT, low=0, high=16, nullable=True,
        meaning="multi-token-prediction layers after the last decoder layer"),
    Key("mlp_layer_types", LIST, nullable=True, meaning="per layer 'dense' or 'sparse'"),
    Key("router_bias", FLAG, nullable=True, meaning="must be false: the router has no bias"),
    # transformers' bookkeeping and training settings: checked for their type, no effect here
    _inert("dtype", TEXT), _inert("torch_dtype", TEXT), _inert("transformers_version", TEXT),
    _inert("num_key_value_heads", INT, low=1, high=1024), _inert("head_dim", INT, low=1, high=_HEAD_DIM),
    _inert("qk_head_dim", INT, low=1, high=2 * _HEAD_DIM), _inert("initializer_range", NUMBER),
    _inert("embedding_initializer_range", NUMBER),
    _inert("use_cache", FLAG), _inert("pretraining_tp", INT), _inert("attention_dropout", NUMBER),
    _inert("output_router_logits", FLAG), _inert("aux_loss_alpha", NUMBER), _inert("seq_aux", FLAG),
    _inert("ep_size", INT), _inert("auto_map", OBJECT), _inert("_name_or_path", TEXT),
    _inert("id2label", OBJECT), _inert("label2id", OBJECT), _inert("return_dict", FLAG),
    _inert("output_hidden_states", FLAG), _inert("output_attentions", FLAG),
    _inert("chunk_size_feed_forward", INT), _inert("is_encoder_decoder", FLAG), _inert("problem_type", TEXT),
    _inert("router_aux_loss_coef", NUMBER), _inert("use_sliding_window", FLAG), _inert("bias", FLAG),
)


def _router(c: dict) -> str | None:
    """The router's groups and top-k as aclnnMoeGatingTopK takes them (MGT-005..007)."""
    experts = c.get("n_routed_experts")
    if not experts:
        return None
    experts += c.get("zero_experts") or 0          # LongCat's identity experts are scored too
    groups, kept, k = c.get("n_group") or 1, c.get("topk_group") or 1, c.get("num_experts_per_tok")
    if experts % groups:
        return "n_group", f"{groups} must divide the {experts} experts the router scores"
    if kept > groups:
        return "topk_group", f"{kept} must be at most n_group {groups}"
    if k is None or not 1 <= k <= kept * (experts // groups):
        return "num_experts_per_tok", (f"{k} must be in [1, {kept * (experts // groups)}] (the experts of the "
                                       f"topk_group kept groups)")
    return None


# The routers the decoder builds: scoring function -> the expert choices it has for it
# (decoder.check_config refuses the others too).
ROUTERS = {"sigmoid": ("noaux_tc",), "softmax": ("greedy", "group_limited_greedy", "noaux_tc")}


def _router_pair(c: dict) -> str | None:
    if not c.get("n_routed_experts"):
        return None
    scoring, method = c.get("scoring_func"), c.get("topk_method")
    if method not in ROUTERS.get(scoring, ()):
        return (f"{method!r} with {scoring} scores is not a router this compiler has ("
                + "; ".join(f"{s}: {', '.join(m)}" for s, m in ROUTERS.items()) + ")")
    return None


def _rope_even(c: dict) -> str | None:
    d = c.get("qk_rope_head_dim")
    return None if d is None or d % 2 == 0 else f"{d}: the rope rotates pairs, an even width is needed"


def _token_ids(c: dict) -> str | None:
    """End-of-sequence ids inside the vocabulary (generation could never stop on another; the
    BOS id is checked where it is used, as the CLI's default prompt)."""
    for key in ("eos_token_id",):
        ids = c.get(key)
        for i in ids if isinstance(ids, (list, tuple)) else [ids]:
            if i is not None and not 0 <= i < c["vocab_size"]:
                return key, f"{i} is outside the vocabulary [0, {c['vocab_size']})"
    return None


DEEPSEEK_KEYS = MLA_KEYS.extend(
    _positive("intermediate_size", 1 << 18, "the dense MLP's width"),
    _positive("moe_intermediate_size", 1 << 18, "each expert's width", nullable=True),
    _positive("n_routed_experts", 4096, "routed experts; null: a dense model", nullable=True),
    Key("n_shared_experts", INT, low=0, high=64, nullable=True, meaning="shared experts"),
    _positive("num_experts_per_tok", 4096, "experts per token", nullable=True),
    _positive("n_group", 4096, "expert groups", nullable=True),
    _positive("topk_group", 4096, "groups kept per token", nullable=True),
    Key("routed_scaling_factor", NUMBER, low=0, high=1e4, meaning="the routed experts' weight multiplier"),
    Key("norm_topk_prob", FLAG, meaning="renormalize the top-k weights"),
    Key("scoring_func", TEXT, choices=("sigmoid", "softmax"), meaning="the router's scores"),
    Key("topk_method", TEXT, choices=("noaux_tc", "greedy", "group_limited_greedy"),
        meaning="the router's expert choice"),
    Key("first_k_dense_replace", INT, low=0, high=1024, meaning="leading dense layers"),
    Key("moe_layer_freq", INT, low=1, high=1024, meaning="every k-th layer is MoE"),
    rules=[Rule("qk_rope_head_dim", _rope_even), Rule("n_group", _router), Rule("topk_method", _router_pair),
           Rule("eos_token_id", _token_ids)],
)

_KIND_OF = {bool: FLAG, int: INT, float: NUMBER, str: TEXT, dict: OBJECT, list: LIST, tuple: LIST}


def family_keys(family) -> Schema:
    """The key table of a model family (families.Family): DEEPSEEK_KEYS, the family's own
    `keys` when its description gives them, and for each key its defaults name that the table
    lacks a row typed like its default (a number stays a number, a flag a flag), so that a
    family's keys are checked and never reported unknown."""
    own = tuple(getattr(family, "keys", ()) or ())
    table = DEEPSEEK_KEYS.extend(*own)
    extra = [Key(name, _KIND_OF[type(value)], nullable=True, meaning=f"a {family.name} key")
             for name, value in family.defaults.items()
             if name not in table.keys and type(value) in _KIND_OF]
    table = table.extend(*extra)
    if family.text_config:
        table = table.extend(Key(family.text_config, OBJECT, nullable=True, meaning="the text model's config"))
    return table


# the rope parameters (rope_scaling / rope_parameters), checked the same way
ROPE_KEYS = Schema.of(
    Key("rope_type", TEXT), Key("type", TEXT), Key("rope_theta", NUMBER, low=1e-6, high=1e15),
    Key("factor", NUMBER, low=1.0, high=1e6, meaning="YaRN's context multiplier"),
    Key("original_max_position_embeddings", INT, low=1, high=_TOKENS),
    Key("beta_fast", NUMBER, low=1e-6, high=1e6), Key("beta_slow", NUMBER, low=1e-6, high=1e6),
    Key("mscale", NUMBER, low=0, high=1e3, nullable=True), Key("mscale_all_dim", NUMBER, low=0, high=1e3, nullable=True),
    Key("attention_factor", NUMBER, low=1e-6, high=1e3, nullable=True), Key("truncate", FLAG),
    Key("partial_rotary_factor", NUMBER, nullable=True),
)

QUANT_KEYS = Schema.of(
    Key("quant_method", TEXT), Key("fmt", TEXT), Key("activation_scheme", TEXT, nullable=True),
    Key("weight_block_size", LIST, nullable=True),
)


# --- memory -----------------------------------------------------------------------------------------

def parameter_counts(c: dict, layers: int) -> dict:
    """Parameters of the first `layers` layers of a DeepSeek-family config (values filled):
    {"embedding": .., "attention": .., "mlp": .., "router": ..}: what the weights hold."""
    he, n, v = c["hidden_size"], c["num_attention_heads"], c["vocab_size"]
    nope, rope, vd, kv, ql = (c["qk_nope_head_dim"], c["qk_rope_head_dim"], c["v_head_dim"], c["kv_lora_rank"],
                              c.get("q_lora_rank"))
    query = he * ql + ql * n * (nope + rope) + ql if ql else he * n * (nope + rope)
    attention = query + he * (kv + rope) + kv + kv * n * (nope + vd) + n * vd * he + he
    counts = {"embedding": v * he * (1 if c.get("tie_word_embeddings") else 2) + he,
              "attention": attention * layers, "mlp": 0, "router": 0}
    experts = c.get("n_routed_experts") or 0
    kinds = c.get("mlp_layer_types") or ()
    if c.get("layer_kind") == "dual":               # LongCat: two attention blocks per layer
        counts["attention"] *= 2
    for i in range(layers):
        moe = experts and (kinds[i] == "sparse" if i < len(kinds) else
                           i >= (c.get("first_k_dense_replace") or 0) and i % (c.get("moe_layer_freq") or 1) == 0)
        if moe:
            inter = c.get("moe_intermediate_size") or c["intermediate_size"]
            counts["mlp"] += 3 * he * inter * (experts + (c.get("n_shared_experts") or 0)) + he
            counts["router"] += experts * he + experts
        else:
            counts["mlp"] += 3 * he * c["intermediate_size"] + he
    return counts


def estimated_bytes(c: dict, layers: int, quant: str | None = None) -> int:
    """Bytes the loaded weights of `layers` layers hold: bf16 (2 per parameter), the router in
    float32, int8 linears (1 per parameter) under w8a8/w8a8c8."""
    counts = parameter_counts(c, layers)
    linear = 1 if quant in ("w8a8", "w8a8c8") else 2
    return 2 * counts["embedding"] + linear * (counts["attention"] + counts["mlp"]) + 4 * counts["router"]


def cache_bytes_per_position(c: dict, layers: int, quant: str | None = None) -> int:
    """Bytes of the paged caches per position of one row: each layer's latent (bf16, int8 under
    w8a8c8) and rope (bf16) entries."""
    latent = 1 if quant == "w8a8c8" else 2
    return layers * (latent * c["kv_lora_rank"] + 2 * c["qk_rope_head_dim"])


def available_memory() -> int | None:
    """MemAvailable in bytes (Linux), else None (then nothing is refused for memory)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def size_text(n: float) -> str:
    """Bytes as people read them: 1.5 GiB, 12.0 MiB, 300 B."""
    for unit, scale in (("TiB", 2 ** 40), ("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{int(n)} B"

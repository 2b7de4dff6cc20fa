"""Primitive ops: mla.paged_attention, mla.masked_paged_attention, mla.attention, mla.causal_mask."""
from __future__ import annotations

from ..opdef import OpDef, f64, i1, operand, optional, string
from ..registry import MLA
from ..rules import DATAFLOW, RuleSet, dim, shape_text
from ..traits import CONSTANT_LIKE, PURE
from ..types import ND, TensorInfo
from .checks import (
    CACHE_MODES,
    FLOAT_TYPES,
    INDEX_TYPES,
    differs,
    dtype_in,
    nd_only,
    pa_nz_blocks,
    rank_is,
    read_in_written_mode,
    result_is,
    same_dtype,
)

# --- mla.paged_attention -------------------------------------------------------------------------
# Attention of query (B, S, N, D) over paged caches (BlockNum, BlockSize, Nkv, D): batch b's keys
# are the first seq_lengths[b] slots of its blocks block_table[b, :]; query row s sits at
# position seq_lengths[b] - S + s and sees keys up to it (causal when S > 1). GQA: head n reads kv
# head n // (N / Nkv). With query_rope/key_rope_cache the scores add the rope part (MLA):
#   scores = scale * (q . k + q_rope . k_rope);  out = softmax(scores) . v
# float32 scores and softmax; the probabilities are rounded to the values' type before P.V (the
# FIA kernels' order; int8 caches are dequantized: to the result type); the result is rounded to
# its type. value may be key's very cache (MLA: v = the latent cache, Dv = D). cache_mode tells
# how the cache memory is laid out (PA_NZ: numerics.md 5; a cache is read in the mode its writer
# used, PA-019).
# int8 (the MLA prolog's FQ-KVQ outputs): an i8 query with dequant_scale_query (B, S, N, 1) and
# i8 key/value caches with the per-tensor key_dequant_scale d_k give
#   scores = scale * dequant_scale_query * d_k * (q . k + q_rope . k_rope),  v = v_int8 * d_k
# -- the rope part shares the dequantization factor, which is why the prolog rescales
# query_rope by quant_scale_ckv / dequant_scale_q_nope in FQ-KVQ.

paged_rules = RuleSet()
paged_rules.rule("PA-001", "query")(rank_is("query", 4, " (B, S, N, D)"))
paged_rules.rule("PA-002", "query")(dtype_in("query", ("bf16", "f16", "i8")))
for _name in ("key_cache", "value_cache", "key_rope_cache"):
    paged_rules.rule("PA-003", _name)(rank_is(_name, 4, " (BlockNum, BlockSize, Nkv, D)"))
# A PA_NZ cache too is an ND tensor: its blocks hold NZ-ordered bytes (cache_mode says so).
for _name in ("query", "key_cache", "value_cache", "block_table", "seq_lengths", "query_rope",
              "key_rope_cache", "dequant_scale_query", "key_dequant_scale"):
    paged_rules.rule("PA-005", _name)(nd_only(_name))
paged_rules.rule("PA-004", "key_cache")(same_dtype("key_cache", "query"))
paged_rules.rule("PA-004", "value_cache")(same_dtype("value_cache", "query"))


@paged_rules.rule("PA-006", "key_cache")
def paged_key_dims(op, s):
    if differs(op.key_cache.shape[3:], op.query.shape[3:]):
        return f"expected head size D = {op.query.shape[3]} (query's), got {op.key_cache}"
    n, nkv = dim(op.query, 2), dim(op.key_cache, 2)
    if nkv == 0 or n % nkv:
        return f"expected Nkv dividing the {n} query heads (GQA), got Nkv = {nkv}"


@paged_rules.rule("PA-007", "value_cache")
def paged_value_dims(op, s):
    if differs(op.value_cache.shape[:3], op.key_cache.shape[:3]):
        return f"expected (BlockNum, BlockSize, Nkv) = {shape_text(op.key_cache.shape[:3])} (key_cache's), got {op.value_cache}"


@paged_rules.rule("PA-008", "query_rope")
def paged_rope_pair(op, s):
    if (op.query_rope is None) != (op.key_rope_cache is None):
        return ("given without key_rope_cache" if op.key_rope_cache is None else
                "absent while key_rope_cache is given") + \
            ": the rope parts of the query and of the keys come together"
    t = op.query_rope
    if t is not None and (t.rank != 4 or differs(t.shape[:3], op.query.shape[:3])
                          or t.dtype not in ("bf16", "f16")
                          or op.query.dtype != "i8" and t.dtype != op.query.dtype):
        return (f"expected (B, S, N, Dr) with (B, S, N) = {shape_text(op.query.shape[:3])} (query's) "
                f"and bf16 or f16 (query's type unless it is i8), got {t}")


@paged_rules.rule("PA-017", "key_rope_cache")
def paged_key_rope(op, s):
    t = op.key_rope_cache
    if t is None:
        return None
    expected = TensorInfo(op.key_cache.shape[:3] + op.query_rope.shape[3:], op.query_rope.dtype)
    if differs(t.shape, expected.shape) or t.dtype != expected.dtype:
        return (f"expected {expected} ((BlockNum, BlockSize, Nkv) of key_cache, Dr and element "
                f"type of query_rope), got {t}")


@paged_rules.rule("PA-009", "block_table")
def paged_block_table(op, s):
    t = op.block_table
    if t.rank != 2 or t.dtype != "i32" or differs(t.shape[:1], op.query.shape[:1]):
        return f"expected an i32 tensor (B, max blocks per sequence) with B = {op.query.shape[0]}, got {t}"


@paged_rules.rule("PA-010", "seq_lengths")
def paged_seq_lengths(op, s):
    t = op.seq_lengths
    if t.rank != 1 or t.dtype not in INDEX_TYPES or differs(t.shape, op.query.shape[:1]):
        return f"expected an i32 or i64 tensor (B,) with B = {op.query.shape[0]}, got {t}"


@paged_rules.rule("PA-011", "cache_mode")
def paged_cache_mode(op, s):
    if op.cache_mode not in CACHE_MODES:
        return f"expected \"PA_BSND\" or \"PA_NZ\", got {op.cache_mode!r}"


for _name in ("key_cache", "value_cache", "key_rope_cache"):
    paged_rules.rule("PA-018", _name)(pa_nz_blocks(_name))
    paged_rules.rule("PA-019", _name, kind=DATAFLOW)(read_in_written_mode(_name))


@paged_rules.rule("PA-015", "dequant_scale_query")
def paged_query_scale(op, s):
    t, int8 = op.dequant_scale_query, op.query.dtype == "i8"
    if int8 != (t is not None):
        return ("is required with an i8 query (its per-token-head dequantization), got none" if int8
                else f"must be absent with a {op.query.dtype} query, got {t}")
    if t is not None and (t.dtype != "f32" or differs(t.shape, op.query.shape[:3] + (1,))):
        return f"expected an f32 tensor (B, S, N, 1) = {shape_text(op.query.shape[:3] + (1,))}, got {t}"


@paged_rules.rule("PA-016", "key_dequant_scale")
def paged_key_scale(op, s):
    t, int8 = op.key_dequant_scale, op.key_cache.dtype == "i8"
    if int8 != (t is not None):
        return ("is required with i8 caches (their per-tensor dequantization), got none" if int8
                else f"must be absent with {op.key_cache.dtype} caches, got {t}")
    if t is not None and (t.dtype != "f32" or t.numel != 1):
        return f"expected an f32 tensor of one element, got {t}"


paged_rules.rule("PA-012", "attention_out")(result_is(
    "attention_out", lambda op, s: op.query.shape[:3] + op.value_cache.shape[3:], ("bf16", "f16")))


@paged_rules.rule("PA-013", "seq_lengths", kind="runtime")
def paged_lengths_in_range(op, s):
    lengths = op.seq_lengths.value.reshape(-1)
    capacity = op.block_table.shape[1] * op.key_cache.shape[1]
    q_seq = op.query.shape[1]
    for b, n in enumerate(lengths.tolist()):
        if not q_seq <= n <= capacity:
            return (f"value {n} of batch {b} is outside [S, max blocks * BlockSize] = "
                    f"[{q_seq}, {capacity}] (the query's tokens are the last S keys)")


@paged_rules.rule("PA-014", "block_table", kind="runtime")
def paged_blocks_in_range(op, s):
    block_size, blocks = op.key_cache.shape[1], op.key_cache.shape[0]
    for b, n in enumerate(op.seq_lengths.value.reshape(-1).tolist()):
        used = op.block_table.value[b, :-(-n // block_size)]
        if used.size and (used.min() < 0 or used.max() >= blocks):
            return f"row {b} uses block {int(used.min() if used.min() < 0 else used.max())} outside [0, {blocks})"


def _paged_out(op, s):
    dtype = op.query_rope.dtype if op.query.dtype == "i8" and op.query_rope is not None else (
        "bf16" if op.query.dtype == "i8" else op.query.dtype)
    return {"attention_out": TensorInfo(op.query.shape[:3] + op.value_cache.shape[3:], dtype)}


PagedAttention = MLA.add(OpDef(
    "mla.paged_attention",
    traits=(PURE,),
    operands=[operand("query"), operand("key_cache"), operand("value_cache"),
              operand("block_table"), operand("seq_lengths"),
              optional("query_rope"), optional("key_rope_cache"),
              optional("dequant_scale_query"), optional("key_dequant_scale")],
    attributes=[f64("scale_value", default=1.0), string("cache_mode", default="PA_BSND")],
    results=["attention_out"],
    rules=paged_rules,
    infer_results=_paged_out,
    summary="causal attention over paged kv caches, GQA, with an optional rope part (MLA)",
))


# --- mla.masked_paged_attention ------------------------------------------------------------------
# mla.paged_attention whose keys are also hidden where atten_mask (B, S, T) is true, T = blocks
# per sequence * BlockSize (the logical positions): DeepSeek Sparse Attention's MLA attention
# over the keys its indexer selected (transformers masks the others with -inf). The same
# operands, rules and numerics as mla.paged_attention, the mask after them.

masked_paged_rules = RuleSet(paged_rules)        # a rule set of its own, paged attention's rules first
masked_paged_rules.rule("PA-005", "atten_mask")(nd_only("atten_mask"))


@masked_paged_rules.rule("PA-020", "atten_mask")
def paged_mask(op, s):
    t = op.atten_mask
    blocks = op.block_table.shape[1:] + op.key_cache.shape[1:2]
    expected = op.query.shape[:2] + (None if None in blocks else blocks[0] * blocks[1],)
    if t.dtype != "i1" or differs(t.shape, expected):
        return (f"expected an i1 tensor (B, S, blocks per sequence * BlockSize) = {shape_text(expected)} "
                f"(True: a key the attention does not read), got {t}")


MaskedPagedAttention = MLA.add(OpDef(
    "mla.masked_paged_attention",
    traits=(PURE,),
    operands=[operand("query"), operand("key_cache"), operand("value_cache"),
              operand("block_table"), operand("seq_lengths"), operand("atten_mask"),
              optional("query_rope"), optional("key_rope_cache"),
              optional("dequant_scale_query"), optional("key_dequant_scale")],
    attributes=[f64("scale_value", default=1.0), string("cache_mode", default="PA_BSND")],
    results=["attention_out"],
    rules=masked_paged_rules,
    infer_results=_paged_out,
    summary="causal paged attention with a mask of keys not read (DSA's selection)",
))


# --- mla.attention -------------------------------------------------------------------------------
# Dense attention, BSND: query (B, S, N, D), key (B, Skv, Nkv, D), value (B, Skv, Nkv, Dv);
# scores = scale * q . k, plus -inf where atten_mask (S, Skv) is nonzero; with `causal` query
# row s sees keys up to Skv - S + s (the bottom-right aligned mask). Numerics as paged_attention.

attention_rules = RuleSet()
attention_rules.rule("ATT-001", "query")(rank_is("query", 4, " (B, S, N, D)"))
attention_rules.rule("ATT-002", "query")(dtype_in("query", ("bf16", "f16")))
for _name in ("key", "value"):
    attention_rules.rule("ATT-003", _name)(rank_is(_name, 4, " (B, Skv, Nkv, D)"))
    attention_rules.rule("ATT-004", _name)(same_dtype(_name, "query"))
for _name in ("query", "key", "value", "atten_mask"):
    attention_rules.rule("ATT-005", _name)(nd_only(_name))


@attention_rules.rule("ATT-006", "key")
def attention_key_dims(op, s):
    if differs(op.key.shape[:1] + op.key.shape[3:], op.query.shape[:1] + op.query.shape[3:]):
        return f"expected B and D of query ({op.query.shape[0]}, {op.query.shape[3]}), got {op.key}"
    n, nkv = dim(op.query, 2), dim(op.key, 2)
    if nkv == 0 or n % nkv:
        return f"expected Nkv dividing the {n} query heads (GQA), got Nkv = {nkv}"


@attention_rules.rule("ATT-007", "value")
def attention_value_dims(op, s):
    if differs(op.value.shape[:3], op.key.shape[:3]):
        return f"expected (B, Skv, Nkv) = {shape_text(op.key.shape[:3])} (key's), got {op.value}"


@attention_rules.rule("ATT-008", "atten_mask")
def attention_mask(op, s):
    m = op.atten_mask
    if m is not None and (m.dtype not in ("i1", "i8", "ui8") or
                          differs(m.shape, (op.query.shape[1], op.key.shape[1]))):
        return f"expected an i1/i8/ui8 tensor (S, Skv) = ({op.query.shape[1]}, {op.key.shape[1]}), got {m}"


attention_rules.rule("ATT-009", "attention_out")(result_is(
    "attention_out", lambda op, s: op.query.shape[:3] + op.value.shape[3:], FLOAT_TYPES))

Attention = MLA.add(OpDef(
    "mla.attention",
    traits=(PURE,),
    operands=[operand("query"), operand("key"), operand("value"), optional("atten_mask")],
    attributes=[f64("scale_value", default=1.0), i1("causal", default=False)],
    results=["attention_out"],
    rules=attention_rules,
    infer_results=lambda op, s: {"attention_out": TensorInfo(
        op.query.shape[:3] + op.value.shape[3:], op.query.dtype)},
    summary="dense scaled dot-product attention (BSND), GQA, optional mask or causal",
))


# --- mla.causal_mask -----------------------------------------------------------------------------
# The (S, S) mask with 1 strictly above the diagonal (masked) and 0 elsewhere: the 2048 x 2048
# template FIA's sparse_mode 2/3 take.

causal_mask_rules = RuleSet()


@causal_mask_rules.rule("CM-001", "mask")
def causal_mask_type(op, s):
    m = op.mask
    if m.rank != 2 or m.shape[0] != m.shape[1] or None in m.shape or m.dtype not in ("i1", "i8", "ui8") \
            or m.format != ND:
        return f"expected a static square ND i1, i8 or ui8 tensor (S, S), got {m}"


CausalMask = MLA.add(OpDef(
    "mla.causal_mask",
    traits=(CONSTANT_LIKE,),
    operands=[],
    results=["mask"],
    rules=causal_mask_rules,
    summary="triu(ones(S, S), 1): 1 marks a masked (future) position",
))

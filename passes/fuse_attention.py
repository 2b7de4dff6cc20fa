"""fuse-attention: attention primitives -> mla.fused_infer_attention_score (FIA).

    mla.paged_attention with query_rope/key_rope_cache over one latent cache (key = value)
        -> FIA in MLA mode: key = value = the latent cache, key_rope the rope cache, BSND,
           num_key_value_heads = Nkv, block_size, and the per-step kv lengths as the host tensor
           operand actual_seq_kvlen (so a compiled decode step takes them at call time)
    mla.paged_attention without a rope part -> FIA page attention over (BlockNum, BlockSize, Nkv*D)
    mla.attention (dense, BSND) -> FIA with key/value as they are

Causal attention with more than one query row (multi-token decode, prefill) becomes
sparse_mode 3 (the bottom-right aligned causal mask) with the 2048 x 2048 template
(mla.causal_mask); a single row needs no mask (sparse_mode 0). A PA_NZ cache is read through
mla.nz_cache_view (the FRACTAL_NZ tensor its memory already is, FIA-MLA-20).

An int8 query and latent cache (mla.prolog_v2's FQ-KVQ outputs) become FIA's MLA full-quant
mode: the (B, S, N, 1) dequant_scale_query reshaped to (B, S, N), query_quant_mode 3, the
per-tensor key_dequant_scale as key_antiquant_scale and value_antiquant_scale (1,). The mode
takes only NZ caches with block size 128 (FIA-MLAQ-5, -6), and a rope part (without one an
int8 query stays: FIA-MLAQ-1). Its numerics differ from the
primitive's within int8 error (the device quantizes P to int8 per 512-key tile).

The fused op is checked against FIA's verifier first; a failing rule leaves the primitive in
place with a remark naming the rule.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dialect.dialect import attributes_of
from ..dialect.fia import FusedInferAttentionScore as FIA
from ..dialect.primitive import CausalMask, NzCacheView
from ..dialect.types import FRACTAL_NZ, TensorInfo
from .pattern import Pattern, match
from .registry import UNCHANGED, ModulePass, register_pass
from .rewrite import Builder, Refusal, fused_location, info, insertion_point, legality, replace, rewrite_anchors

PASS = "fuse-attention"
MASK = 2048          # FIA's sparse_mode 2/3 mask template is 2048 x 2048
STATIC = "FUSE-004"  # FIA's rules and its call need static shapes


def _paged_pattern() -> Pattern:
    p = Pattern("mla.paged_attention", root="attention")
    p.output("attention_out", p.op(
        "mla.paged_attention", query=p.input("query"), key_cache=p.input("key_cache"),
        value_cache=p.input("value_cache"), block_table=p.input("block_table"),
        seq_lengths=p.input("seq_lengths"), query_rope=p.optional("query_rope"),
        key_rope_cache=p.optional("key_rope_cache"), dequant_scale_query=p.optional("dequant_scale_query"),
        key_dequant_scale=p.optional("key_dequant_scale"), name="attention"))
    return p


def _dense_pattern() -> Pattern:
    p = Pattern("mla.attention", root="attention")
    p.output("attention_out", p.op(
        "mla.attention", query=p.input("query"), key=p.input("key"), value=p.input("value"),
        atten_mask=p.optional("atten_mask"), name="attention"))
    return p


PAGED, DENSE = _paged_pattern(), _dense_pattern()


class Call:
    """The FIA op to build: each operand's type (for the legality check) and how to make its
    value at the insertion point (a cache view, a mask...), each made once."""

    def __init__(self, attributes):
        self.attributes = attributes
        self.types, self._makers = {}, {}

    def add(self, name, t, make):
        """`make(build)` gives the value; a list operand (key, value) takes one per element."""
        self.types[name] = t
        self._makers[name] = make

    def values(self, build) -> dict:
        made = {}

        def once(make):
            if make not in made:
                made[make] = make(build)
            return made[make]
        return {name: [once(m) for m in make] if isinstance(make, list) else once(make)
                for name, make in self._makers.items()}


def _given(value):
    return lambda build: value


def _dynamic(m, *names) -> bool:
    """Whether a tensor the call is made of (those of `names` the match has) has a dynamic dim."""
    return any(m.value(n) is not None and None in info(m.value(n)).shape for n in names)


def _paged_call(m) -> tuple[Call | None, Refusal | None]:
    op = m.op("attention")
    q, k = info(m.value("query")), info(m.value("key_cache"))
    if _dynamic(m, "query", "key_cache", "value_cache", "query_rope", "key_rope_cache"):
        return None, Refusal(STATIC, "dynamic shapes: FIA takes static ones")
    batch, s_len, heads, _ = q.shape
    blocks, block_size, kv_heads, _ = k.shape
    nz = attributes_of(op)["cache_mode"] == "PA_NZ"
    mla = m.value("query_rope") is not None
    call = Call({"num_heads": heads, "num_key_value_heads": kv_heads,
                 "scale_value": attributes_of(op)["scale_value"], "input_layout": "BSND",
                 "block_size": block_size})

    def cache(value):
        t = info(value)
        flat = (t.shape[0], t.shape[1], t.shape[2] * t.shape[3])
        if nz:        # the PA_NZ memory is the FRACTAL_NZ (BlockNum, BlockSize, Nkv*H) tensor
            view = TensorInfo(flat, t.dtype, FRACTAL_NZ)
            return view, _memo(("nz", value), lambda b: b.op(NzCacheView, {"cache": value}, {}, [view]).result)
        if mla:       # MLA mode takes the (BlockNum, BlockSize, 1, D) cache as it is
            return t, _given(value)
        return TensorInfo(flat, t.dtype), _memo(("flat", value), lambda b: b.reshape(value, flat))

    call.add("query", q, _given(m.value("query")))
    key = cache(m.value("key_cache"))
    value = key if m.value("value_cache") == m.value("key_cache") else cache(m.value("value_cache"))
    call.add("key", [key[0]], [key[1]])
    call.add("value", [value[0]], [value[1]])
    call.add("block_table", info(m.value("block_table")), _given(m.value("block_table")))
    if mla:
        call.add("query_rope", info(m.value("query_rope")), _given(m.value("query_rope")))
        call.add("key_rope", *cache(m.value("key_rope_cache")))
    if m.value("dequant_scale_query") is not None:
        if not mla:
            return None, Refusal("FIA-MLAQ-1", "an int8 query without a rope part: FIA dequantizes a "
                                               "query per token and head only in MLA mode (the full-quant mode)")
        _full_quant(call, m.value("dequant_scale_query"), m.value("key_dequant_scale"))
    call.add("actual_seq_kvlen", info(m.value("seq_lengths")), _given(m.value("seq_lengths")))
    _causal(call, s_len)
    return call, None


def _full_quant(call, query_scale, kv_scale):
    """An i8 query and latent cache: FIA's MLA full-quant mode. The primitive's (B, S, N, 1)
    query scale is the op's (B, S, N) one (FIA-MLAQ-1), its one-element kv scale dequantizes
    the latent cache as key and as value (FIA-MLAQ-3: (1,) each, per tensor). Over caches the
    mode does not take (PA_BSND, block size 16) the verifier says which FIA-MLAQ rule refuses."""
    q = info(query_scale)
    q_shape, kv_shape = q.shape[:3], (1,)
    call.add("dequant_scale_query", TensorInfo(q_shape, q.dtype),
             _memo(("reshape", query_scale), lambda b: b.reshape(query_scale, q_shape)))
    scale = (TensorInfo(kv_shape, info(kv_scale).dtype),
             _memo(("reshape", kv_scale), lambda b: b.reshape(kv_scale, kv_shape)))
    call.add("key_antiquant_scale", *scale)
    call.add("value_antiquant_scale", *scale)
    call.attributes["query_quant_mode"] = 3


def _dense_call(m) -> tuple[Call | None, Refusal | None]:
    op = m.op("attention")
    q, k = info(m.value("query")), info(m.value("key"))
    if _dynamic(m, "query", "key", "value"):
        return None, Refusal(STATIC, "dynamic shapes: FIA takes static ones")
    attributes = attributes_of(op)
    call = Call({"num_heads": q.shape[2], "num_key_value_heads": k.shape[2],
                 "scale_value": attributes["scale_value"], "input_layout": "BSND"})
    call.add("query", q, _given(m.value("query")))
    call.add("key", [k], [_given(m.value("key"))])
    call.add("value", [info(m.value("value"))], [_given(m.value("value"))])
    if m.value("atten_mask") is not None:
        if attributes["causal"]:
            return None, Refusal("FUSE-001", "a dense attention with both a mask and causal has no single "
                                             "FIA sparse mode")
        call.add("atten_mask", info(m.value("atten_mask")), _given(m.value("atten_mask")))
    elif attributes["causal"]:
        _causal(call, q.shape[1])
    return call, None


def _causal(call, s_len):
    if s_len > 1:     # rightDownCausal: row s sees keys up to kv_len - S + s
        mask = TensorInfo((MASK, MASK), "i8")
        call.add("atten_mask", mask, _memo("mask", lambda b: b.op(CausalMask, {}, {}, [mask]).result))
        call.attributes["sparse_mode"] = 3


def _memo(key, make):
    """A maker equal to every other with the same key: operands that are the same view
    (key = value of one latent cache) are made once."""
    return _Keyed(key, make)


class _Keyed:
    def __init__(self, key, make):
        self.key, self.make = key, make

    def __call__(self, build):
        return self.make(build)

    def __hash__(self):
        return hash(self.key)

    def __eq__(self, other):
        return isinstance(other, _Keyed) and other.key == self.key



def _fuse(m, call: Call, log) -> Refusal | None:
    results = FIA.result_infos(FIA.snapshot_from_parts(call.types, call.attributes))
    results["attention_out"] = info(m.output("attention_out"))
    finding = legality(FIA, call.types, call.attributes, results)
    if finding:
        return Refusal.of(finding, FIA.name)
    sources = [m.value(n) for n in m.pattern.inputs if m.value(n) is not None]
    ip = insertion_point(sources, m)
    if ip is None:
        return Refusal("FUSE-002", "a user of the attention's result comes before one of its inputs is defined")
    build = Builder(ip, fused_location(m, PASS))
    fia = build.op(FIA, call.values(build), call.attributes, [results[r] for r in FIA.result_names])
    where = m.op("attention").location
    replace(m, {"attention_out": fia.results[0]}, build)
    mode = "MLA full-quant mode" if "dequant_scale_query" in call.types else "MLA mode"
    log.record_fused(FIA.name, where, mode if "query_rope" in call.types else "")
    return None


@register_pass
@dataclass
class FuseAttention(ModulePass):
    name = PASS
    summary = "Fuse attention primitives into mla.fused_infer_attention_score (remarks say why not)"

    def apply(self, module, inputs):
        def find(anchor):
            m = match(PAGED if anchor.name == "mla.paged_attention" else DENSE, anchor)
            return None if m is None else (m, m)

        def rewrite(m):
            call, problem = (_paged_call if m.pattern is PAGED else _dense_call)(m)
            return problem or _fuse(m, call, inputs.log)
        changed = rewrite_anchors(module, ("mla.paged_attention", "mla.attention"), find, rewrite,
                                  pass_name=PASS, log=inputs.log)
        return None if changed else UNCHANGED

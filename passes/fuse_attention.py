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

The fused op is checked against FIA's verifier first; a failing rule leaves the primitive in
place with a remark naming the rule (an int8 latent cache: FIA's MLA mode takes f16/bf16).
"""
from __future__ import annotations

from ..dialect.fia import FusedInferAttentionScore as FIA
from ..dialect.primitive import CausalMask, NzCacheView
from ..dialect.types import FRACTAL_NZ, TensorInfo
from .pattern import Anchors, Pattern, match
from .registry import UNCHANGED, register_pass
from .rewrite import Builder, fused_location, info, insertion_point, legality, record_fused, refuse, replace

PASS = "fuse-attention"
MASK = 2048          # FIA's sparse_mode 2/3 mask template is 2048 x 2048


def _paged_pattern() -> Pattern:
    p = Pattern("mla.paged_attention", root="attention")
    p.output("attention_out", p.op(
        "mla.paged_attention", query=p.input("query"), key_cache=p.input("key_cache"),
        value_cache=p.input("value_cache"), block_table=p.input("block_table"),
        seq_lengths=p.input("seq_lengths"), query_rope=p.optional("query_rope"),
        key_rope_cache=p.optional("key_rope_cache"), name="attention"))
    return p


def _dense_pattern() -> Pattern:
    p = Pattern("mla.attention", root="attention")
    p.output("attention_out", p.op(
        "mla.attention", query=p.input("query"), key=p.input("key"), value=p.input("value"),
        atten_mask=p.optional("atten_mask"), name="attention"))
    return p


PAGED, DENSE = _paged_pattern(), _dense_pattern()


def _attr(op, name, default):
    return op.attributes[name].value if name in op.attributes else default


class _Plan:
    """The FIA op to build: operand values (or a recipe to make them) and their types."""

    def __init__(self):
        self.operands, self.types, self.attributes = {}, {}, {}

    def add(self, name, value, t=None, make=None):
        self.operands[name] = (value, make)
        self.types[name] = t if t is not None else info(value)


def _paged_plan(m):
    op = m.op("attention")
    q, k, v = info(m.value("query")), info(m.value("key_cache")), info(m.value("value_cache"))
    batch, s_len, heads, _ = q.shape
    blocks, block_size, kv_heads, _ = k.shape
    nz = _attr(op, "cache_mode", "PA_BSND") == "PA_NZ"
    plan = _Plan()
    plan.add("query", m.value("query"))
    mla = m.value("query_rope") is not None

    def cache(name, value):
        t = info(value)
        if nz:        # the prolog's PA_NZ memory is the FRACTAL_NZ (BlockNum, BlockSize, Nkv*H) tensor
            return value, TensorInfo((t.shape[0], t.shape[1], t.shape[2] * t.shape[3]), t.dtype, FRACTAL_NZ), \
                lambda b, val: b.op(NzCacheView, {"cache": val}, {}, [TensorInfo(
                    (t.shape[0], t.shape[1], t.shape[2] * t.shape[3]), t.dtype, FRACTAL_NZ)]).result
        if mla:       # MLA mode takes the prolog's (BlockNum, BlockSize, 1, D) cache as it is
            return value, t, None
        return value, TensorInfo((t.shape[0], t.shape[1], t.shape[2] * t.shape[3]), t.dtype), \
            lambda b, val: b.reshape(val, (t.shape[0], t.shape[1], t.shape[2] * t.shape[3]))

    key = cache("key", m.value("key_cache"))
    plan.operands["key"], plan.types["key"] = [(key[0], key[2])], [key[1]]
    same = m.value("value_cache") == m.value("key_cache")
    value = key if same else cache("value", m.value("value_cache"))
    plan.operands["value"], plan.types["value"] = [(value[0], value[2])], [value[1]]
    plan.add("block_table", m.value("block_table"))
    if mla:
        plan.add("query_rope", m.value("query_rope"))
        kr = cache("key_rope", m.value("key_rope_cache"))
        plan.operands["key_rope"], plan.types["key_rope"] = (kr[0], kr[2]), kr[1]
    plan.add("actual_seq_kvlen", m.value("seq_lengths"))
    plan.attributes = {"num_heads": heads, "num_key_value_heads": kv_heads,
                       "scale_value": _attr(op, "scale_value", 1.0), "input_layout": "BSND",
                       "block_size": block_size}
    _causal(plan, s_len)
    return plan


def _dense_plan(m):
    op = m.op("attention")
    q, k = info(m.value("query")), info(m.value("key"))
    plan = _Plan()
    plan.add("query", m.value("query"))
    plan.operands["key"], plan.types["key"] = [(m.value("key"), None)], [k]
    plan.operands["value"], plan.types["value"] = [(m.value("value"), None)], [info(m.value("value"))]
    plan.attributes = {"num_heads": q.shape[2], "num_key_value_heads": k.shape[2],
                       "scale_value": _attr(op, "scale_value", 1.0), "input_layout": "BSND"}
    if m.value("atten_mask") is not None:
        plan.add("atten_mask", m.value("atten_mask"))
        if _attr(op, "causal", False):
            return None, "a dense attention with both a mask and causal has no single FIA sparse mode"
    elif _attr(op, "causal", False):
        _causal(plan, q.shape[1])
    return plan, None


def _causal(plan, s_len):
    if s_len > 1:     # rightDownCausal: row s sees keys up to kv_len - S + s
        mask = TensorInfo((MASK, MASK), "i8")
        plan.operands["atten_mask"] = (None, lambda b, _: b.op(CausalMask, {}, {}, [mask]).result)
        plan.types["atten_mask"] = mask
        plan.attributes["sparse_mode"] = 3


def _fuse(m, plan):
    result = info(m.output("attention_out"))
    results = FIA.result_infos(FIA.snapshot_from_parts(plan.types, plan.attributes))
    results["attention_out"] = result
    problem = legality(FIA, plan.types, plan.attributes, results)
    if problem:
        return problem
    sources = [v for entry in plan.operands.values()
               for v, _ in (entry if isinstance(entry, list) else [entry]) if v is not None]
    ip = insertion_point(sources, m)
    if ip is None:
        return "a user of the attention's result comes before one of its inputs is defined"
    build = Builder(ip, fused_location(m, PASS))
    made = {}

    def materialize(value, make):
        if make is None:
            return value
        key = (value, make.__code__)
        if key not in made:
            made[key] = make(build, value)
        return made[key]

    operands = {name: [materialize(v, mk) for v, mk in entry] if isinstance(entry, list)
                else materialize(*entry) for name, entry in plan.operands.items()}
    fia = build.op(FIA, operands, plan.attributes, [results[r] for r in FIA.result_names])
    where = m.op("attention").location
    replace(m, {"attention_out": fia.results[0]}, build)
    record_fused(FIA.name, where, "MLA mode" if "query_rope" in operands else "")
    return None


@register_pass(PASS, "Fuse attention primitives into mla.fused_infer_attention_score (remarks say why not)")
def fuse_attention(module):
    changed = False
    for anchor in Anchors(module, ("mla.paged_attention", "mla.attention")):
        if anchor.name == "mla.paged_attention":
            m = match(PAGED, anchor)
            plan, problem = _paged_plan(m), None
        else:
            m = match(DENSE, anchor)
            plan, problem = _dense_plan(m)
        problem = problem or _fuse(m, plan)
        if problem:
            refuse(PASS, anchor.location, problem)
        changed = changed or not problem
    return None if changed else UNCHANGED

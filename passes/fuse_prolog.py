"""fuse-prolog: the MLA pre-processing subgraph -> mla.prolog_v2 (docs/numerics.md, "MLA prolog").

One pattern per quant scenario, built by `prolog_pattern` from the same few lines (the scenario
is a property of the dtypes, so the pattern for each is fixed):

    query path   c_q = RmsNorm(x @ W_dq)                                   [FQ: int8 x, W_dq]
                 q = c_q @ W_uq_qr, viewed (..., N, D + Dr)               [PQ/FQ: dynamic quant
                                                                           of c_q, int8 W_uq_qr]
                 query = q[..., :D] @ W_uk (per head);  query_rope = RoPE(q[..., D:])
    key path     kv = x @ W_dkv_kr;  c_kv = RmsNorm(kv[..., :Hckv]);  k_rope = RoPE(kv[..., Hckv:])
                 scatter c_kv and k_rope into the paged caches at cache_index    [KVQ: quantized]
    FQ-KVQ       query -> dynamic quant (ties away), query_rope rescaled by qs_ckv / scale

Serving engines write two pieces with their own torch_npu ops (vLLM-Ascend's bf16 decode):
the key path is one mla.kv_rmsnorm_rope_cache (RmsNorm, interleaved RoPE and both cache stores,
its caches written as the prolog writes them: PA is PA_BSND, PA_NZ is PA_NZ), and the absorbed
product is mla.transpose_batchmatmul(q_nope, W_uk, perm_x1 = [1, 0, 2]) -- the same per-head
product as mla.head_matmul (its result (T, N, 512), same kernel numerics). `prolog_pattern`
takes each form as a variant; the client's query RoPE reads a (T, N, 1, 64) view of q_pe with
(T, 1, 1, 64) tables (npu_interleave_rope's 4-D form), which the cos/sin check accepts.

When the query latent c_q also feeds ops outside the prolog (DeepSeek Sparse Attention's
indexer reads it: transformers' q_resid), the prolog becomes mla.prolog_v3 with query_norm_flag
and its query_norm (c_q rounded to bf16, the graph's own rounding of it) takes c_q's place
there; only unquantized (NQ), where query_norm is that very value.

The match is rooted at the kv cache store and checked against mla.prolog_v2's verifier before
anything changes: where a documented constraint fails (He = 5120, N = 3, BlockSize 64...) the
graph stays as it is and a remark names the rule. A graph that has the key path of MLA but not
the rest gets a remark naming the piece that is missing (DeepSeek-V2-Lite has no query
down-projection: weight_dq, MLA-002).

Option `v1` (default false): emit mla.prolog (aclnnMlaProlog) instead where the scenario allows
it (NQ, PQ-KVNQ, PQ-KVQ; the V2-only result dequant_scale_q_nope is then never used).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from ..dialect.dialect import attributes_of
from ..dialect.dsa import PrologV3
from ..dialect.prolog import FQ_KVNQ, FQ_KVQ, MAX_S, NQ, PQ_KVNQ, PQ_KVQ, Prolog, PrologV2
from ..dialect.types import FRACTAL_NZ, TensorInfo
from .pattern import Pattern, Progress, last_axis_slice, match
from .registry import UNCHANGED, ModulePass, option, register_pass
from .rewrite import Builder, Refusal, fused_location, info, insertion_point, legality, replace, rewrite_anchors

SCENARIOS = (NQ, PQ_KVNQ, PQ_KVQ, FQ_KVNQ, FQ_KVQ)
# The key path as one mla.kv_rmsnorm_rope_cache: the scenarios whose caches are not quantized
# (its int8 caches quantize per channel, the prolog's KVQ scenarios otherwise).
CLIENT_KEY_SCENARIOS = (NQ, PQ_KVNQ, FQ_KVNQ)
KEY_PATHS = ("primitives", "kv_rmsnorm_rope_cache")
UK_PRODUCTS = ("mla.head_matmul", "mla.transpose_batchmatmul")
# mla.kv_rmsnorm_rope_cache's cache modes as mla.prolog_v2 names the same cache layouts
CLIENT_CACHE_MODES = {"PA": "PA_BSND", "PA_BNSD": "PA_BSND", "PA_NZ": "PA_NZ"}
PASS = "fuse-prolog"


# --- predicates on the matched ops -----------------------------------------------------------

def leading(op) -> bool:
    """A slice of the last axis starting at 0 (q_nope, c_kv)."""
    part = last_axis_slice(op)
    return part is not None and part[0] == 0


def trailing(op) -> bool:
    """A slice of the last axis ending at its end (q_pe, k_pe)."""
    part = last_axis_slice(op)
    return part is not None and sum(part) == info(op.operands[0]).shape[-1]


def first_element(op) -> bool:
    """scale[0, 0]: a (1, 1) slice at the origin of a 2-D scale (FQ-KVQ's per-tensor kv scale)."""
    return (len(op.operands) == 1 and info(op.operands[0]).rank == 2
            and list(op.attributes["static_offsets"]) == [0, 0] and list(op.attributes["static_sizes"]) == [1, 1])


def attr_is(name, value):
    """The op's attribute `name` (its declared default when absent) is `value`."""
    return lambda op: attributes_of(op)[name] == value


def per_head_product(op) -> bool:
    """mla.transpose_batchmatmul computing mla.head_matmul: x read (T, N, D) (perm_x1 [1, 0, 2]),
    output (T, N, Hckv) (perm_y [1, 0, 2]), not split."""
    a = attributes_of(op)
    return (list(a["perm_x1"]) == [1, 0, 2] and list(a["perm_x2"]) == [0, 1, 2]
            and list(a["perm_y"]) == [1, 0, 2] and a["batch_split_factor"] == 1)


# --- the pattern ---------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def prolog_pattern(scenario: str, key_path: str = "primitives", uk: str = "mla.head_matmul") -> Pattern:
    full = scenario in (FQ_KVNQ, FQ_KVQ)
    uq_int8 = scenario != NQ
    client = key_path == "kv_rmsnorm_rope_cache"
    variant = "".join([" (kv_rmsnorm_rope_cache)" if client else "",
                       " (transpose_batchmatmul)" if uk != "mla.head_matmul" else ""])
    p = Pattern(f"mla.prolog_v2 {scenario}{variant}", root="kv_store")
    x, slots = p.input("token_x"), p.input("cache_index")
    cos, sin = p.input("rope_cos"), p.input("rope_sin")

    def down_projection(weight, scale, name, role, rule):
        if full:
            return p.op("mla.quant_matmul", x=x, w=p.weight(weight), x_scale=p.view(p.input("dequant_scale_x")),
                        w_scale=p.view(p.weight(scale)), name=name, role=role, rule=rule)
        return p.op("mla.matmul", x=x, w=p.weight(weight), name=name, role=role, rule=rule)

    # key path (the root is its cache store)
    kv = down_projection("weight_dkv_kr", "dequant_scale_w_dkv_kr", "kv_down", "the kv down-projection x @ weight_dkv_kr", "MLA-005")
    if client:
        store = p.op("mla.kv_rmsnorm_rope_cache", kv=p.view(kv), gamma=p.weight("rmsnorm_gamma_ckv"),
                     cos=p.view(cos), sin=p.view(sin), index=p.view(slots), k_cache=p.input("kr_cache"),
                     ckv_cache=p.input("kv_cache"), name="kv_store")
        kv_store, kr_store = store["ckv_cache_out"], store["k_cache_out"]
    else:
        kv_store, kr_store = _key_path(p, kv, scenario, cos, sin, slots)
    _query_path(p, scenario, down_projection, uq_int8, uk, cos, sin)
    # c_q may also feed ops outside the prolog (DSA's indexer reads it): mla.prolog_v3's query_norm
    p.output("query_latent", p.by_name("norm_cq")[0])
    p.output("kv_cache_out", kv_store)
    p.output("kr_cache_out", kr_store)
    return p


def _key_path(p, kv, scenario, cos, sin, slots):
    """RmsNorm and RoPE of the kv projection's two parts, each stored in its cache (quantized
    in the KVQ scenarios): the primitive graph's key path."""
    c_kv = p.op("mla.rms_norm", x=p.op("tensor.extract_slice", kv, name="c_kv", where=leading),
                gamma=p.weight("rmsnorm_gamma_ckv"), name="norm_ckv")
    k_rope = p.op("mla.rope", x=p.op("tensor.extract_slice", kv, name="k_pe", where=trailing),
                  cos=cos, sin=sin, where=attr_is("mode", "interleave"), name="k_rope",
                  role="the interleaved RoPE of the key's rope part", rule="MLA-009")
    if scenario == PQ_KVQ:
        kv_rows = p.op("mla.quantize", x=c_kv, scale=p.view(p.input("quant_scale_ckv")), name="kv_quant")
        kr_rows = p.op("mla.quantize", x=k_rope, scale=p.view(p.input("quant_scale_ckr")), name="kr_quant")
    elif scenario == FQ_KVQ:
        kv_scale = p.op("tensor.extract_slice", p.input("quant_scale_ckv"), name="kv_scale", where=first_element)
        kv_rows, kr_rows = p.op("mla.quantize", x=c_kv, scale=p.view(kv_scale)), k_rope
    else:
        kv_rows, kr_rows = c_kv, k_rope
    kv_store = p.op("mla.scatter_cache", cache=p.input("kv_cache"), slot_mapping=slots,
                    update=p.view(kv_rows), name="kv_store")
    kr_store = p.op("mla.scatter_cache", cache=p.input("kr_cache"), slot_mapping=slots,
                    update=p.view(kr_rows), name="kr_store",
                    role="the store of the key's rope part in the rope cache", rule="MLA-012")
    return kv_store, kr_store


def _query_path(p, scenario, down_projection, uq_int8, uk, cos, sin):
    """x @ W_dq, RmsNorm, @ W_uq_qr, split into q_nope (times W_uk per head) and q_pe (RoPE)."""
    c_q = p.op("mla.rms_norm", x=down_projection("weight_dq", "dequant_scale_w_dq", "q_down",
                                                "the query down-projection x @ weight_dq", "MLA-002"),
               gamma=p.weight("rmsnorm_gamma_cq"), name="norm_cq",
               role="the RmsNorm of the query down-projection", rule="MLA-006")
    if uq_int8:
        quant = p.op("mla.dynamic_quant", x=c_q, smooth_scales=p.optional("smooth_scales_cq"),
                     where=attr_is("rounding", "half_even"))
        q = p.op("mla.quant_matmul", x=quant["y"], w=p.weight("weight_uq_qr"), x_scale=p.view(quant["scale"]),
                 w_scale=p.view(p.weight("dequant_scale_w_uq_qr")), name="q")
    else:
        q = p.op("mla.matmul", x=c_q, w=p.weight("weight_uq_qr"), name="q",
                 role="the query up-projection c_q @ weight_uq_qr", rule="MLA-003")
    q_nope = p.op("tensor.extract_slice", p.view(q), name="q_nope", where=leading)
    if uq_int8:                     # the float32 product is rounded where it enters W_uk
        q_nope = p.op("arith.truncf", q_nope)
    query = p.op(uk, x=q_nope, w=p.weight("weight_uk"), name="query",
                 where=per_head_product if uk == "mla.transpose_batchmatmul" else None,
                 role="the absorbed per-head product q_nope @ weight_uk", rule="MLA-004")
    query_rope = p.op("mla.rope", x=p.view(p.op("tensor.extract_slice", p.view(q), name="q_pe", where=trailing)),
                      cos=p.view(cos), sin=p.view(sin), where=attr_is("mode", "interleave"),
                      name="query_rope", role="the interleaved RoPE of the query's rope part")
    if scenario == FQ_KVQ:
        qq = p.op("mla.dynamic_quant", x=query, where=attr_is("rounding", "half_away"), name="query_quant")
        factor = p.op("mla.div", x=p.view(p.by_name("kv_scale")), y=p.view(qq["scale"]), name="rope_factor")
        query_rope = p.op("mla.mul", x=query_rope, y=p.view(factor), name="query_rope_rescaled")
        p.output("query", qq["y"])
        p.output("dequant_scale_q_nope", qq["scale"])
    else:
        p.output("query", query)
    p.output("query_rope", query_rope)


# --- the rewrite ------------------------------------------------------------------------------------

# The result types of the primitive graph are its rounding points (numerics.md 2, 7, 8): the
# fused kernel rounds where these say bf16 and keeps float32 where they say f32.
ROUNDING = {  # op name in the pattern -> element type, per scenario
    NQ: dict(q_down="bf16", norm_cq="bf16", q="bf16", kv_down="bf16", norm_ckv="bf16"),
    PQ_KVNQ: dict(q_down="bf16", norm_cq="f32", q="f32", kv_down="bf16", norm_ckv="bf16"),
    PQ_KVQ: dict(q_down="bf16", norm_cq="f32", q="f32", kv_down="bf16", norm_ckv="f32"),
    FQ_KVNQ: dict(q_down="f32", norm_cq="f32", q="f32", kv_down="f32", norm_ckv="bf16"),
    FQ_KVQ: dict(q_down="f32", norm_cq="f32", q="f32", kv_down="f32", norm_ckv="f32", rope_factor="f32"),
}
ALWAYS_BF16 = ("query", "query_rope", "k_rope")
SEMANTICS = "FUSE-001"       # the graph computes something else than the fused op would
STATIC = "FUSE-004"          # the fused op takes static shapes


def _semantics_problem(m, scenario) -> Refusal | None:
    """Facts the fused op relies on that its verifier cannot see (they are in the primitive
    graph): the head split of q, adjacent slices, the broadcasts of cos/sin and of the scales,
    one cache mode, the rounding points. A graph that differs computes something else."""
    if any(None in info(v).shape for op in m.operations for v in list(op.operands) + list(op.results)):
        return Refusal(STATIC, "dynamic shapes: mla.prolog_v2's rules and call take static ones")
    q, heads = info(m.op("q").results[0]), info(m.op("q_nope").operands[0])
    tokens = info(m.value("token_x")).shape[:-1]
    n = heads.shape[-2]
    if heads.shape[:-2] != q.shape[:-1] or heads.shape[-2] * heads.shape[-1] != q.shape[-1]:
        return Refusal(SEMANTICS, "q is not viewed as (..., N, D + Dr)")
    if m.op("q_pe").operands[0] != m.op("q_nope").operands[0]:
        return Refusal(SEMANTICS, "q_nope and q_pe are slices of different values")
    if list(m.op("q_pe").attributes["static_offsets"])[-1] != info(m.op("q_nope").results[0]).shape[-1]:
        return Refusal(SEMANTICS, "q_nope and q_pe are not adjacent")
    client = "kr_store" not in m.pattern_ops      # the key path is one mla.kv_rmsnorm_rope_cache
    if not client and list(m.op("k_pe").attributes["static_offsets"])[-1] != info(m.op("c_kv").results[0]).shape[-1]:
        return Refusal(SEMANTICS, "c_kv and k_pe are not adjacent")
    rope_x, query_cos = info(m.op("query_rope").operands[0]).shape, info(m.op("query_rope").operands[1]).shape
    lead = len(tokens)
    # one table row per token, broadcast over the heads (and a unit axis: the 4-D form)
    if rope_x[:lead] != tokens or query_cos[:lead] != tokens or any(d != 1 for d in query_cos[lead:-1]):
        return Refusal(SEMANTICS, "the query's cos/sin do not broadcast one row per token over the heads")
    if not client and len({attributes_of(m.op(s))["cache_mode"] for s in ("kv_store", "kr_store")}) != 1:
        return Refusal(SEMANTICS, "the two caches use different cache modes")
    for name in ("kv_quant", "kr_quant"):
        if name in m.pattern_ops:
            scale = info(m.op(name).operands[1]).shape
            if scale[-1:] != info(m.op(name).operands[0]).shape[-1:] or any(d != 1 for d in scale[:-1]):
                return Refusal(SEMANTICS, f"the {name[:2]} cache's quant scale {scale} is not one factor "
                                          "per channel")
    if scenario == FQ_KVQ:
        for op in (m.op("rope_factor"), m.op("query_rope_rescaled")):
            if info(op.operands[1]).shape != tokens + (n, 1):
                return Refusal(SEMANTICS, "the query_rope rescale is not one factor per token and head "
                                          f"{tokens + (n, 1)}")
    for name, dtype in ROUNDING[scenario].items():
        if name not in m.pattern_ops:        # inside mla.kv_rmsnorm_rope_cache: its caches' types
            continue
        got = info(m.op(name).results[0]).dtype
        if got != dtype:
            return Refusal(SEMANTICS, f"the graph rounds {name} to {got} where mla.prolog_v2 ({scenario}) "
                                      f"keeps {dtype} (docs/numerics.md, MLA prolog 2, 7, 8)")
    for name in ALWAYS_BF16:
        if name in m.pattern_ops and info(m.op(name).results[0]).dtype != "bf16":
            return Refusal(SEMANTICS, f"the graph's {name} is {info(m.op(name).results[0]).dtype}, "
                                      "mla.prolog_v2's is bf16")
    return None


def _fuse(m, scenario, v1: bool, log) -> Refusal | None:
    """Build the fused op and replace the match; the refusal when the fused op would not verify
    or has no place."""
    root = m.op("kv_store")
    where = root.location
    x = info(m.value("token_x"))
    tokens, t_eff = x.shape[:-1], math.prod(x.shape[:-1])
    # More than 16 tokens per sequence (a prefill chunk; MLA-102 bounds S) go to the op as
    # T = B * S tokens, as vLLM-Ascend's prefill calls it: the prolog treats every token alike
    # (its products, norms and RoPE are per row, each token is stored at its own cache_index),
    # so the merged call computes the same values; the query results are viewed back as (B, S).
    op_tokens = (t_eff,) if len(tokens) == 2 and tokens[1] > MAX_S else tokens
    n, d, hckv = info(m.value("weight_uk")).shape
    dr = info(m.value("rope_cos")).shape[-1]
    hcq = info(m.value("weight_dq")).shape[1]
    nq = info(m.value("weight_uq_qr")).shape[1]
    opdef = Prolog if v1 and scenario in (NQ, PQ_KVNQ, PQ_KVQ) else PrologV2

    # The operands the fused op takes, in the shapes its document gives.
    shapes = {"token_x": op_tokens + x.shape[-1:], "rope_sin": op_tokens + (dr,),
              "rope_cos": op_tokens + (dr,), "cache_index": op_tokens,
              "dequant_scale_x": (t_eff, 1), "dequant_scale_w_dq": (1, hcq),
              "dequant_scale_w_uq_qr": (1, nq), "dequant_scale_w_dkv_kr": (1, hckv + dr),
              "quant_scale_ckv": (1, hckv), "quant_scale_ckr": (1, dr), "smooth_scales_cq": (1, hcq)}
    operands = _operand_views(m, opdef, shapes)
    if isinstance(operands, Refusal):
        return operands
    values, infos = operands
    attributes = _prolog_attributes(m, root)
    query = info(m.output("query"))
    results = {"query": TensorInfo(op_tokens + (n, hckv), query.dtype),
               "query_rope": TensorInfo(op_tokens + (n, dr), info(m.output("query_rope")).dtype),
               "kv_cache_out": infos["kv_cache"], "kr_cache_out": infos["kr_cache"]}
    if opdef is PrologV2:
        results["dequant_scale_q_nope"] = TensorInfo((t_eff, n, 1) if scenario == FQ_KVQ else (1,), "f32")
    built = _build(m, opdef, values, infos, attributes, results)
    if isinstance(built, Refusal):
        return built
    fused, build = built
    new = dict(zip(opdef.result_names, fused.results))
    replace(m, {name: new[name] for name in m.pattern.outputs if name != QUERY_LATENT}, build)  # (T, N, D) viewed as (B, S, N, D)
    log.record_fused(opdef.name, where, scenario)
    return None


def _prolog_attributes(m, root) -> dict:
    """The epsilons and cache mode every prolog version takes from the matched graph."""
    key = attributes_of(root if "norm_ckv" not in m.pattern_ops else m.op("norm_ckv"))
    mode = attributes_of(root)["cache_mode"]
    return {"rmsnorm_epsilon_cq": attributes_of(m.op("norm_cq"))["epsilon"],
            "rmsnorm_epsilon_ckv": key["epsilon"], "cache_mode": CLIENT_CACHE_MODES.get(mode, mode)}


def _build(m, opdef, values, infos, attributes, results):
    """(the fused op, its builder), or the refusal: the op would not verify, or no place in the
    block comes after its inputs and before the readers of the caches it writes in place."""
    finding = legality(opdef, infos, attributes, results)
    if finding:
        return Refusal.of(finding, opdef.name)
    ip = insertion_point(list(values.values()), m, after_users_of=(values["kv_cache"], values["kr_cache"]))
    if ip is None:
        return Refusal("FUSE-002", "a user of the subgraph's results comes before one of its inputs is "
                               "defined, or before a reader of the caches it updates in place")
    build = Builder(ip, fused_location(m, PASS))
    operands = {name: build.nz(v) if name in NZ_WEIGHTS else build.reshape(v, infos[name].shape)
                for name, v in values.items()}
    return build.op(opdef, operands, attributes, [results[r] for r in opdef.result_names]), build


# The weights the prologs read as FRACTAL_NZ.
NZ_WEIGHTS = ("weight_dq", "weight_uq_qr", "weight_dkv_kr")


def _operand_views(m, opdef, shapes):
    """(values, infos) of the fused op's operands the match found: each value viewed in the shape
    `shapes` gives it (else its own), the NZ weights as FRACTAL_NZ; a Refusal when a value cannot
    be viewed so."""
    values = {name: m.value(name) for name in [o.name for o in opdef.operands] if name in m.pattern.inputs}
    values = {k: v for k, v in values.items() if v is not None}
    infos = {}
    for name, v in values.items():
        t = info(v)
        shape = shapes.get(name, t.shape)
        if math.prod(shape) != math.prod(t.shape):
            return Refusal(SEMANTICS, f"{name}: {t} cannot be viewed as {TensorInfo(shape, t.dtype)}")
        infos[name] = TensorInfo(shape, t.dtype, FRACTAL_NZ if name in NZ_WEIGHTS else t.format)
    return values, infos


# --- the query latent also feeds something else: mla.prolog_v3 with query_norm ------------------

QUERY_LATENT = "query_latent"


def _latent_used_outside(m) -> bool:
    return any(use.owner.operation not in m.operations for use in m.output(QUERY_LATENT).uses)


def _fuse_v3(m, scenario, log) -> Refusal | None:
    """mla.prolog_v3 with query_norm_flag: the prolog, and its query_norm (c_q, bf16: the graph's
    own rounding of it in NQ) for c_q's other users: DeepSeek Sparse Attention's indexer reads
    it (transformers' q_resid)."""
    if scenario != NQ:
        return Refusal(ESCAPES, f"the query latent c_q feeds ops outside the prolog; mla.prolog_v3's "
                                f"query_norm is c_q rounded to bf16 only without quantization (NQ), not {scenario}")
    root = m.op("kv_store")
    where = root.location
    tokens = info(m.value("token_x")).shape[:-1]
    dr = info(m.value("rope_cos")).shape[-1]
    shapes = {"rope_sin": tokens + (dr,), "rope_cos": tokens + (dr,), "cache_index": tokens}
    operands = _operand_views(m, PrologV3, shapes)
    if isinstance(operands, Refusal):
        return operands
    values, infos = operands
    attributes = {**_prolog_attributes(m, root), "query_norm_flag": True}
    results = PrologV3.result_infos(PrologV3.snapshot_from_parts(infos, attributes))
    built = _build(m, PrologV3, values, infos, attributes, results)
    if isinstance(built, Refusal):
        return built
    fused, build = built
    new = dict(zip(PrologV3.result_names, fused.results), query_latent=fused.results[3])
    replace(m, {name: new[name] for name in m.pattern.outputs}, build)
    log.record_fused(PrologV3.name, where, f"{scenario}, query_norm")
    return None


# --- the pass -----------------------------------------------------------------------------------------

# Every (scenario, key path, W_uk product) form the pass fuses.
VARIANTS = tuple((s, k, uk) for k in KEY_PATHS for s in SCENARIOS for uk in UK_PRODUCTS
                 if k == "primitives" or s in CLIENT_KEY_SCENARIOS)

# A near miss worth a remark: the best attempt matched at least the kv store, its update, the
# RmsNorm and the slice of a projection -- the key path of MLA -- and then found no more.
NEAR_MISS = 4
ESCAPES = "FUSE-003"


def _escapes(m) -> Refusal | None:
    if m.escapes:
        names = ", ".join(sorted({e.owner.name for e in m.escapes}))
        return Refusal(ESCAPES, f"intermediate results ({names}) also feed ops outside the subgraph: "
                                "the fused op does not produce them")
    return None


@register_pass
@dataclass
class FuseProlog(ModulePass):
    name = PASS
    summary = "Fuse the MLA pre-processing graph into mla.prolog_v2 (remarks say why not)"
    v1: bool = option(False, "emit mla.prolog where the scenario allows it")

    def apply(self, module, inputs):
        def find(anchor):
            progress = Progress()
            for scenario, key_path, uk in VARIANTS:   # at most one matches: they differ in op kinds
                m = match(prolog_pattern(scenario, key_path, uk), anchor, progress)
                if m is not None:
                    return m, (m, scenario)
            if progress.matched >= NEAR_MISS and progress.missing is not None:
                missing = progress.missing
                what = missing.role or f"the {missing.op_name} of {missing.name}"
                return Refusal(missing.rule or None, f"the key path of MLA is here but not {what}; "
                                                     "mla.prolog_v2 needs it")
            return None

        def rewrite(found):
            m, scenario = found
            fuse = _fuse_v3 if _latent_used_outside(m) else (lambda m, s, log: _fuse(m, s, self.v1, log))
            return _semantics_problem(m, scenario) or _escapes(m) or fuse(m, scenario, inputs.log)
        changed = rewrite_anchors(module, ("mla.scatter_cache", "mla.kv_rmsnorm_rope_cache"), find, rewrite,
                                  pass_name=PASS, log=inputs.log)
        return None if changed else UNCHANGED

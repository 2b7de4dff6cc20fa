"""fuse-sparse-attention: DeepSeek Sparse Attention as transformers writes it -> the lightning
indexer and sparse flash attention (docs/dsa.md).

The match is rooted at the MLA attention whose keys are masked to the indexer's selection:

    scores  = relu((q_idx.float() @ gather(index_cache).float()^T) * d^-0.5)   (B, S*H, T)
    index   = weights @ scores                       weights (B, S, H) f32, per token (1, H) @ (H, T)
    index   = masked_fill(index, length_mask(seq_lengths), -inf)              causal
    _, sel  = top_k(index, k)
    out     = masked_paged_attention(query, kv_cache, kv_cache, block_table, seq_lengths,
                                     atten_mask = index_mask(sel), query_rope, kr_cache)

and becomes

    idx = mla.lightning_indexer(q_idx, index_cache, weights * d^-0.5, lengths, block_table)
          {layout BSND / PA_BSND, sparse_count k, sparse_mode 3}
    out = mla.sparse_flash_attention(query, kv_cache, kv_cache, idx, scale, block_table,
          lengths, query_rope, kr_cache) {attention_mode 2, sparse_mode 3}

with lengths = seq_lengths as int32. The two are one rewrite because the indexer's -1 padding
differs from top-k's: where a row sees fewer than k keys, top-k also returns masked (future)
positions, which only the attention's causal rule hides; so the indexer replaces top-k exactly
only where its selection feeds the causal attention, which this match proves. The weights
scale is positive (d^-0.5), so moving it from the scores onto the weights leaves the ReLU, the
weighted sum's sign and the top-k unchanged (the fp32 sums round at other points: a near-tie
may swap, as between any two summation orders).

Each fused op is checked against its verifier before anything changes; a failing rule leaves
the graph as it is with a remark naming the rule (N1 > 64 indexer heads: LI-05; 48 attention
heads: SFA-04; a top-k of 3000: LI-11...). A match whose pieces are used elsewhere (the top-k
values, the gathered keys...) is refused (FUSE-003): the fused ops do not produce them.
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..dialect.dialect import attributes_of
from ..dialect.dsa import LightningIndexer, SparseFlashAttention
from ..dialect.primitive import Mul
from ..dialect.types import TensorInfo, tensor_type
from .pattern import Pattern, defining_op, match
from .registry import UNCHANGED, ModulePass, register_pass
from .rewrite import Builder, Refusal, fused_location, info, insertion_point, legality, replace, rewrite_anchors

PASS = "fuse-sparse-attention"
SEMANTICS, ESCAPES, STATIC = "FUSE-001", "FUSE-003", "FUSE-004"


def _pattern() -> Pattern:
    p = Pattern("DSA indexer + sparse attention", root="attention")
    block_table, lengths = p.input("block_table"), p.input("seq_lengths")
    keys = p.op("mla.paged_gather", cache=p.input("index_cache"), block_table=block_table, name="gather")
    keys_t = p.op("mla.transpose", x=p.view(keys), name="keys_t")
    raw = p.op("mla.batch_matmul", x=p.op("arith.extf", p.view(p.input("index_query")), name="q_f32"),
               y=p.op("arith.extf", keys_t, name="keys_f32"), name="scores",
               role="the indexer's scores q . k^T", rule="LI-01")
    scaled = p.op("mla.mul", x=raw, y=p.view(p.weight("score_scale")), name="scaled")
    relu = p.op("mla.relu", x=scaled, name="relu", role="the ReLU of the indexer's scores", rule="LI-01")
    index = p.op("mla.batch_matmul", x=p.view(p.input("index_weights")), y=p.view(relu), name="index",
                 role="the weighted sum over the indexer heads")
    masked = p.op("mla.masked_fill", x=p.view(index), mask=p.op("mla.length_mask", seq_lengths=lengths, name="causal"),
                  name="masked", role="the causal mask of the index scores", rule="LI-12")
    top = p.op("mla.top_k", x=masked, name="top_k", role="the top-k of the index scores", rule="LI-11")
    selection = p.op("mla.index_mask", indices=top["indices"], name="selection")
    p.output("attention_out", p.op(
        "mla.masked_paged_attention", query=p.input("query"), key_cache=p.input("key_cache"),
        value_cache=p.input("value_cache"), block_table=block_table, seq_lengths=lengths,
        query_rope=p.input("query_rope"), key_rope_cache=p.input("key_rope_cache"),
        atten_mask=selection, name="attention"))
    return p


PATTERN = _pattern()


def splat_value(value) -> float | None:
    """The one value of a constant splat (arith.constant dense<v>), else None."""
    op = defining_op(value)
    if op is None or op.name != "arith.constant":
        return None
    attr = op.attributes["value"]
    if not isinstance(attr, ir.DenseElementsAttr) or not attr.is_splat:
        return None
    return float(ir.FloatAttr(attr.get_splat_value()).value)


def _constant(build: Builder, v: float, t: TensorInfo) -> ir.Value:
    ty = tensor_type(t.shape, t.dtype)
    element = ir.RankedTensorType(ty).element_type
    attr = ir.DenseElementsAttr.get_splat(ty, ir.FloatAttr.get(element, v))
    return ir.Operation.create("arith.constant", results=[ty], attributes={"value": attr},
                               loc=build.loc, ip=build.ip).result


def _int32(build: Builder, value) -> ir.Value:
    t = info(value)
    if t.dtype == "i32":
        return value
    return ir.Operation.create("arith.trunci", results=[tensor_type(t.shape, "i32")], operands=[value],
                               loc=build.loc, ip=build.ip).result


def _problem(m) -> Refusal | None:
    """What the fused ops rely on that their verifiers cannot see (it is in the graph)."""
    if any(None in info(v).shape for op in m.operations for v in list(op.operands) + list(op.results)):
        return Refusal(STATIC, "dynamic shapes: the DSA operators take static ones")
    if m.escapes:
        names = ", ".join(sorted({e.owner.name for e in m.escapes}))
        return Refusal(ESCAPES, f"intermediate results ({names}) also feed ops outside the subgraph: the "
                                "fused operators do not produce them")
    q = info(m.value("index_query"))
    w = info(m.value("index_weights"))
    if q.rank != 4:
        return Refusal(SEMANTICS, f"the indexer's query is {q}, not (B, S, H, D)")
    b, s, h, d = q.shape
    if info(m.op("scores").operands[0]).shape != (b, s * h, d):
        return Refusal(SEMANTICS, "the scores' query is not the indexer query viewed (B, S*H, D)")
    if w.shape != (b, s, h) or w.dtype != "f32":
        return Refusal(SEMANTICS, f"the head weights are {w}, not f32 (B, S, H) = ({b}, {s}, {h})")
    if info(m.op("index").operands[0]).shape != (b * s, 1, h) or info(m.op("index").operands[1]).shape[:2] != (b * s, h):
        return Refusal(SEMANTICS, "the weighted head sum is not (1, H) @ (H, T) per token")
    gathered = info(m.op("gather").results[0])
    if gathered.shape[2] != 1 or info(m.op("keys_t").results[0]).shape != (b, d, gathered.shape[1]):
        return Refusal(SEMANTICS, "the indexer's keys are not the gathered (B, T, D) cache transposed")
    if list(attributes_of(m.op("keys_t"))["permutation"]) != [0, 2, 1]:
        return Refusal(SEMANTICS, "the indexer's keys are not transposed (0, 2, 1)")
    scale = splat_value(m.value("score_scale"))
    if scale is None or not scale > 0:
        return Refusal(SEMANTICS, "the scores' scale is not one positive constant: it cannot move to the weights")
    if attributes_of(m.op("masked"))["value"] != float("-inf"):
        return Refusal(SEMANTICS, "the causal mask does not fill -inf")
    if m.value("key_cache") != m.value("value_cache"):
        return Refusal(SEMANTICS, "the attention's value is not its key (MLA's latent cache, attention_mode 2)")
    if attributes_of(m.op("attention"))["cache_mode"] != "PA_BSND":
        return Refusal("SFA-05", "a PA_NZ cache: sparse flash attention reads PA_BSND caches")
    return None


def _fuse(m, log) -> Refusal | None:
    q = info(m.value("index_query"))
    query = info(m.value("query"))
    k = attributes_of(m.op("top_k"))["k"]
    scale = splat_value(m.value("score_scale"))
    lengths = info(m.value("seq_lengths"))
    lengths32 = TensorInfo(lengths.shape, "i32")
    li_operands = {"query": q, "key": info(m.value("index_cache")),
                   "weights": info(m.value("index_weights")), "actual_seq_lengths_key": lengths32,
                   "block_table": info(m.value("block_table"))}
    li_attributes = {"layout_query": "BSND", "layout_key": "PA_BSND", "sparse_count": k, "sparse_mode": 3}
    li_results = LightningIndexer.result_infos(LightningIndexer.snapshot_from_parts(li_operands, li_attributes))
    finding = legality(LightningIndexer, li_operands, li_attributes, li_results)
    if finding:
        return Refusal.of(finding, LightningIndexer.name)
    attention = attributes_of(m.op("attention"))
    sfa_operands = {"query": query, "key": info(m.value("key_cache")), "value": info(m.value("key_cache")),
                    "sparse_indices": li_results["sparse_indices"], "block_table": info(m.value("block_table")),
                    "actual_seq_lengths_kv": lengths32, "query_rope": info(m.value("query_rope")),
                    "key_rope": info(m.value("key_rope_cache"))}
    sfa_attributes = {"scale_value": attention["scale_value"], "layout_query": "BSND", "layout_kv": "PA_BSND",
                      "sparse_mode": 3, "attention_mode": 2}
    sfa_results = SparseFlashAttention.result_infos(SparseFlashAttention.snapshot_from_parts(sfa_operands, sfa_attributes))
    sfa_results["attention_out"] = info(m.output("attention_out"))
    finding = legality(SparseFlashAttention, sfa_operands, sfa_attributes, sfa_results)
    if finding:
        return Refusal.of(finding, SparseFlashAttention.name)

    sources = [m.value(n) for n in m.pattern.inputs if m.value(n) is not None]
    ip = insertion_point(sources, m)
    if ip is None:
        return Refusal("FUSE-002", "a user of the attention's result comes before one of its inputs is defined")
    build = Builder(ip, fused_location(m, PASS))
    where_indexer, where_attention = m.op("top_k").location, m.op("attention").location
    weights_t = info(m.value("index_weights"))
    factor = _constant(build, scale, TensorInfo((1,), "f32"))
    weights = build.op(Mul, {"x": m.value("index_weights"), "y": factor}, {}, [weights_t]).result
    lengths_i32 = _int32(build, m.value("seq_lengths"))
    li = build.op(LightningIndexer, {"query": m.value("index_query"), "key": m.value("index_cache"),
                                     "weights": weights, "actual_seq_lengths_key": lengths_i32,
                                     "block_table": m.value("block_table")}, li_attributes,
                  [li_results[r] for r in LightningIndexer.result_names])
    sfa = build.op(SparseFlashAttention, {
        "query": m.value("query"), "key": m.value("key_cache"), "value": m.value("key_cache"),
        "sparse_indices": li.results[0], "block_table": m.value("block_table"),
        "actual_seq_lengths_kv": lengths_i32, "query_rope": m.value("query_rope"),
        "key_rope": m.value("key_rope_cache")}, sfa_attributes,
        [sfa_results[r] for r in SparseFlashAttention.result_names])
    replace(m, {"attention_out": sfa.results[0]}, build)
    log.record_fused(LightningIndexer.name, where_indexer, f"top-{k} of {q.shape[2]} heads")
    log.record_fused(SparseFlashAttention.name, where_attention, "MLA absorb, PA_BSND")
    return None


@register_pass
@dataclass
class FuseSparseAttention(ModulePass):
    name = PASS
    summary = ("Fuse DSA's indexer and its masked MLA attention into mla.lightning_indexer + "
               "mla.sparse_flash_attention (remarks say why not)")

    def apply(self, module, inputs):
        def find(anchor):
            m = match(PATTERN, anchor)
            if m is None:
                return Refusal(SEMANTICS, "the attention is masked, but not by an indexer's top-k selection "
                                          "this pass recognises")
            return m, m

        def rewrite(m):
            return _problem(m) or _fuse(m, inputs.log)
        changed = rewrite_anchors(module, ("mla.masked_paged_attention",), find, rewrite, pass_name=PASS,
                                  log=inputs.log)
        return None if changed else UNCHANGED

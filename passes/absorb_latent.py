"""absorb-latent-kv: MLA that caches the latent and expands K/V after the read (transformers 5's
DeepseekV3Attention over a StaticCache) -> absorbed attention over the same caches.

transformers 5 caches what MLA needs per token -- the normed latent c_kv (B, 1, L, Hckv) and the
rotated k_pe (B, 1, L, Dr), written by StaticCache at `cache_position` with index_copy_ -- and
then expands every cached row into per-head keys and values (`expand_kv`):

    kv = cache_kv @ W_kvb^T viewed (B, L, N, D + Dv), transposed;  k_nope, v = split
    key = [k_nope, k_pe copied over the heads];  query = [q_nope, RoPE(q_pe)]     (BNSD)
    out = SDPA(query, key, v, mask)

The importer makes this (frontend/aten.py): each cache write an mla.scatter_cache into the cache
read as BlockSize-row pages (the identity paging: rows b * L + position), SDPA with the causal
mask of per-batch lengths an mla.paged_attention over key and v read as one block per batch.
Since k_nope = W_uk c_kv and v = W_uv c_kv per head, the attention can read the caches
themselves (as absorb-kv does for a per-head cache):

    o = head_matmul(paged_attention(head_matmul(q_nope, W_uk), kv_cache, kv_cache, table,
                                    lengths, RoPE(q_pe), kr_cache), W_uv)

over transformers' own cache tensors (no second cache: the block table is the identity
[[b * L / BlockSize + j for j]]; a cache length no block size divides is read in the importer's
padded copy, L rounded up to whole pages per batch), in BSND, with the key's RoPE applied to its slice of the kv
down-projection and the query's to its slice of q viewed (B, S, N, D + Dr): the graph
fuse-prolog and fuse-attention make one mla.prolog_v2 and one FIA (MLA mode) of.

The query's rotated part may be any value (DeepSeek-V2's complex RoPE: view_as_complex(x) *
freqs_cis, which writes the rotated pairs interleaved): q_pe . k_pe is the same whatever rotated
them, so the attention reads the rotated query and the rope cache as the model computed them.
Only when both RoPEs are the interleaved mla.rope of their slices with one pair of tables (the
form mla.prolog_v2 computes) are they recomputed in BSND next to the cache stores, so that
fuse-prolog can take them; otherwise the prolog refuses (MLA-009) and FIA still fuses.

Refused with a remark (the graph stays as written, its attention primitive runs): a cache
read that is not the cache write of the same layer's c_kv / k_pe at the same slots, a cache
length no block size of the fused ops divides (ABSORB-002: the importer pads such caches to
whole pages, so this is hand-written IR's), K/V not the per-head halves of c_kv @ W_kvb, other
element types (FUSE-001), intermediate values used elsewhere (FUSE-003).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from ..dialect.dialect import attributes_of, is_constant_like, is_reshape
from ..dialect.primitive import HeadMatmul, PagedAttention, Rope, ScatterCache, Transpose
from ..dialect.types import TensorInfo, tensor_type
from .absorb_kv import BLOCK_SIZES, BLOCKS, _erase_dead_views, _is_rows_table, copies, last_axis_concat
from .fuse_prolog import leading, trailing
from .pattern import Pattern, defining_op, match, origin
from .registry import UNCHANGED, ModulePass, register_pass
from .rewrite import Builder, Refusal, _BlockOrder, info, insertion_point, replace, rewrite_anchors

PASS = "absorb-latent-kv"


def heads_first(op) -> bool:
    """A transpose swapping axes 1 and 2 of a rank-4 tensor (BSND <-> BNSD)."""
    return list(attributes_of(op)["permutation"]) == [0, 2, 1, 3]


def interleaved(op) -> bool:
    return attributes_of(op)["mode"] == "interleave"


def latent_pattern(interleaved_rope: bool) -> Pattern:
    """The query's rotated part: mla.rope (interleave) of q's slice -- the form the prolog takes
    -- or, with `interleaved_rope` False, any value (the complex RoPE of DeepSeek-V2's code)."""
    p = Pattern("MLA over a latent cache, K/V expanded after the read"
                + ("" if interleaved_rope else " (any RoPE)"), root="attention")
    kv = p.op("mla.matmul", x=p.view(p.input("kv_read")), w=p.weight("weight_kv_b"), name="kv_b")
    heads = p.op("mla.transpose", x=p.view(kv), name="kv_heads", where=heads_first)
    k_nope = p.op("tensor.extract_slice", heads, name="k_nope", where=leading)
    value = p.op("tensor.extract_slice", heads, name="value", where=trailing)
    k_rope_heads = p.op("tensor.concat", p.view(p.input("kr_read")), name="k_rope_heads", where=copies)
    key = p.op("tensor.concat", k_nope, k_rope_heads, name="key", where=last_axis_concat)
    if interleaved_rope:
        q_heads = p.op("mla.transpose", x=p.view(p.input("q")), name="q_heads", where=heads_first)
        q_rope = p.op("mla.rope", x=p.op("tensor.extract_slice", q_heads, name="q_pe", where=trailing),
                      cos=p.input("q_cos"), sin=p.input("q_sin"), name="q_rope", where=interleaved)
        q_nope = p.op("tensor.extract_slice", q_heads, name="q_nope", where=leading)
    else:                       # the two halves of the query (BNSD) as the model computed them
        q_nope, q_rope = p.input("q_nope"), p.input("q_rope")
    query = p.op("tensor.concat", q_nope, q_rope, name="query", where=last_axis_concat)
    p.output("attention_out", p.op(
        "mla.paged_attention",
        query=p.op("mla.transpose", x=query, name="query_bsnd", where=heads_first),
        key_cache=p.op("mla.transpose", x=key, name="key_bsnd", where=heads_first),
        value_cache=p.op("mla.transpose", x=value, name="value_bsnd", where=heads_first),
        block_table=p.input("block_table"), seq_lengths=p.input("seq_lengths"), name="attention"))
    return p


LATENT = latent_pattern(True)
LATENT_ANY_ROPE = latent_pattern(False)


def _store(value):
    """The mla.scatter_cache whose result `value` is -- directly, or as the first L rows of each
    batch of a cache padded to whole pages (the importer's form of a cache length no block size
    divides: reshape (B, Lp, H), slice [:, :L], reshape) -- else None."""
    op = defining_op(value)
    if op is not None and op.name == "tensor.extract_slice":
        rows = info(op.operands[0])
        prefix = info(op.results[0])
        if rows.rank == 3 and prefix.shape[0] == rows.shape[0] and prefix.shape[2] == rows.shape[2] \
                and list(op.attributes["static_offsets"]) == [0, 0, 0] \
                and list(op.attributes["static_strides"]) == [1, 1, 1]:
            op = defining_op(origin(op.operands[0]))
    return op if op is not None and op.name == "mla.scatter_cache" else None


def _problem(m) -> Refusal | None:
    """Why the match is not the latent MLA this pass rewrites (the rule in brackets), else None."""
    kv_store, kr_store = _store(m.value("kv_read")), _store(m.value("kr_read"))
    if kv_store is None or kr_store is None:
        return Refusal("FUSE-001", "the attention does not read the caches right after this step's writes (mla.scatter_cache)")
    if kv_store.operands[1] != kr_store.operands[1]:
        return Refusal("FUSE-001", "the latent and the rope caches are written at different slots")
    if m.escapes:
        names = ", ".join(sorted({e.owner.name for e in m.escapes}))
        return Refusal("FUSE-003", f"intermediate results ({names}) also feed ops outside the attention")
    cache, rope_cache = info(kv_store.operands[0]), info(kr_store.operands[0])
    heads = info(m.op("kv_heads").results[0])                  # (B, N, L, D + Dv)
    batch, n, length, _ = heads.shape
    padded = cache.shape[0] * cache.shape[1] // batch          # rows per batch: L, or L padded to pages
    d, dv = (info(m.op(x).results[0]).shape[-1] for x in ("k_nope", "value"))
    dr = _rope_width(m)
    q = _query_bsnd(m, d, dr)                                  # (B, S, N, D + Dr)
    if q.rank != 4 or q.shape[0] != batch or q.shape[2] != n or q.shape[3] != d + dr \
            or heads.shape[3] != d + dv or cache.shape[2] != 1 or cache.shape[0] * cache.shape[1] != batch * padded \
            or not length <= padded < length + cache.shape[1] \
            or rope_cache.shape[:3] != cache.shape[:3] or rope_cache.shape[3] != dr \
            or info(m.value("weight_kv_b")).shape != (cache.shape[3], n * (d + dv)):
        return Refusal("FUSE-001", "the keys and values are not the per-head halves of the cached latent times "
                       "W_kvb, with the query (B, S, N, D + Dr)")
    if cache.shape[1] not in BLOCK_SIZES:
        return Refusal(BLOCKS, f"the cache length {length} is not a multiple of a block size the fused ops take "
                               f"({' or '.join(map(str, BLOCK_SIZES))})")
    if not _is_rows_table(m.value("block_table"), batch):
        return Refusal("FUSE-001", "the attention does not read row b of the keys for batch b")
    dtypes = {info(v).dtype for v in (m.value("kv_read"), m.value("kr_read"), m.value("weight_kv_b"))} | {q.dtype}
    if len(dtypes) != 1 or dtypes.pop() not in ("bf16", "f16"):
        return Refusal("FUSE-001", "the absorbed form computes in one element type (bf16 or f16)")
    return None


def _query_bsnd(m, d, dr) -> TensorInfo:
    """The query's type as (B, S, N, D + Dr): q itself, or its two BNSD halves (any-RoPE form)
    when they agree (else a rank the checks refuse)."""
    if m.pattern is LATENT:
        return info(m.op("q_heads").operands[0])
    nope, rope = info(m.value("q_nope")), info(m.value("q_rope"))
    if nope.rank != 4 or rope.shape[:3] != nope.shape[:3] or nope.dtype != rope.dtype:
        return TensorInfo((), nope.dtype)
    b, n, s_len, _ = nope.shape
    return TensorInfo((b, s_len, n, d + dr), nope.dtype)


def _rope_width(m) -> int:
    return info(m.op("q_pe").results[0] if m.pattern is LATENT else m.value("q_rope")).shape[-1]


def _rope_problem(m) -> Refusal | None:
    """Why the RoPEs are not the form mla.prolog_v2 computes (interleaved, the key's on its slice
    of the kv down-projection, one pair of tables), else None. The absorbed attention does not
    need it -- q_pe . k_pe is the same whatever rotated them -- the prolog does."""
    if m.pattern is not LATENT:
        return Refusal("FUSE-001", "the query's RoPE is not the interleaved mla.rope of its slice")
    kr_store = _store(m.value("kr_read"))
    rope = defining_op(origin(kr_store.operands[2]))
    if rope is None or rope.name != "mla.rope" or not interleaved(rope):
        return Refusal("FUSE-001", "the rope cache does not hold the interleaved RoPE of the key")
    k_pe = defining_op(origin(rope.operands[0]))
    if k_pe is None or k_pe.name != "tensor.extract_slice" or not trailing(k_pe):
        return Refusal("FUSE-001", "the key's RoPE is not applied to a slice of the kv down-projection")
    if any(origin(a) != origin(b) for a, b in zip(rope.operands[1:3], (m.value("q_cos"), m.value("q_sin")))):
        return Refusal("FUSE-001", "the query and the key are rotated with different tables")
    return None


def _rewrite(m, log) -> Refusal | None:
    """The absorbed attention in place of the match. When the RoPEs are the prolog's form
    (`_rope_problem`), both are recomputed in BSND next to the stores (the key's written anew)
    so that fuse-prolog can take them; else the attention reads the rotated query and the rope
    cache as the model computed them (the prolog then stays unfused, FIA fuses)."""
    attention = m.op("attention")
    kv_store, kr_store = _store(m.value("kv_read")), _store(m.value("kr_read"))
    prolog_form = _rope_problem(m) is None
    heads = info(m.op("kv_heads").results[0])
    batch, n, length, _ = heads.shape
    d, dv = (info(m.op(x).results[0]).shape[-1] for x in ("k_nope", "value"))
    dr = _rope_width(m)
    s_len = _query_bsnd(m, d, dr).shape[1]
    hckv, block_size = info(kv_store.operands[0]).shape[3], info(kv_store.operands[0]).shape[1]
    padded = info(kv_store.operands[0]).shape[0] * block_size // batch
    query_inputs = ("q", "q_cos", "q_sin") if m.pattern is LATENT else ("q_nope", "q_rope")
    sources = [m.value(x) for x in ("kv_read", "kr_read", "seq_lengths", "weight_kv_b") + query_inputs]
    ip = insertion_point(sources, m)
    if ip is None:
        return Refusal("FUSE-002", "a user of the attention's result comes before one of its inputs is defined")
    build = Builder(ip, attention.location)
    dtype = _query_bsnd(m, d, dr).dtype
    key_rope_cache = kr_store.results[0]
    if prolog_form:
        # the RoPEs in BSND: the key's on its slice of the kv down-projection (where its store
        # was), the query's on q viewed (B, S, N, D + Dr)
        old_rope = defining_op(origin(kr_store.operands[2]))
        at_store = ir.InsertionPoint(kr_store)
        rope_at = Builder(at_store, old_rope.location)
        tables = [rope_at.reshape(m.value(x), (batch, s_len, dr)) for x in ("q_cos", "q_sin")]
        k_rope = rope_at.op(Rope, {"x": origin(old_rope.operands[0]), "cos": tables[0], "sin": tables[1]},
                            {"mode": "interleave"}, [TensorInfo((batch, s_len, dr), info(old_rope.results[0]).dtype)]).result
        # the latent store and its reshapes move next to the rope store, so that the prolog's
        # inputs (the rope cache is written second in transformers' code) all precede its results' readers
        for op in [kv_store] + _views_after(kv_store.results[0]):
            op.move_before(kr_store)
        key_rope_cache = Builder(at_store, kr_store.location).op(
            ScatterCache, {"cache": kr_store.operands[0], "slot_mapping": kr_store.operands[1],
                           "update": rope_at.reshape(k_rope, (batch * s_len, 1, dr))},
            {"cache_mode": attributes_of(kr_store)["cache_mode"]}, [info(kr_store.results[0])]).result
    if m.pattern is LATENT:            # the query's RoPE on q viewed BSND (the prolog's form)
        q = build.reshape(m.value("q"), (batch, s_len, n, d + dr))
        q_nope = build.last_axis_slice(q, 0, d)
        q_rope = Builder(ip, m.op("q_rope").location).op(
            Rope, {"x": build.last_axis_slice(q, d, dr),
                   "cos": build.reshape(m.value("q_cos"), (batch, s_len, 1, dr)),
                   "sin": build.reshape(m.value("q_sin"), (batch, s_len, 1, dr))}, {"mode": "interleave"},
            [TensorInfo((batch, s_len, n, dr), dtype)]).result
    else:                              # the model's two halves, BNSD -> BSND
        q_nope, q_rope = (build.op(Transpose, {"x": m.value(x)}, {"permutation": [0, 2, 1, 3]},
                                   [TensorInfo((batch, s_len, n, width), dtype)]).result
                          for x, width in (("q_nope", d), ("q_rope", dr)))
    # W_kvb (Hckv, N * (D + Dv)) -> W_uk (N, D, Hckv), W_uv (N, Hckv, Dv): constants, computed
    # where the weight is (hoisted next to its load): fuse-prolog puts the prolog after its last
    # operand, which must precede the readers of the caches it writes
    weight = _hoisted(m.value("weight_kv_b"))
    at_weight = Builder(ir.InsertionPoint.after(defining_op(weight)), attention.location)
    w = at_weight.reshape(weight, (hckv, n, d + dv))
    w_uk = at_weight.op(Transpose, {"x": at_weight.last_axis_slice(w, 0, d)}, {"permutation": [1, 2, 0]},
                        [TensorInfo((n, d, hckv), dtype)]).result
    w_uv = at_weight.op(Transpose, {"x": at_weight.last_axis_slice(w, d, dv)}, {"permutation": [1, 0, 2]},
                        [TensorInfo((n, hckv, dv), dtype)]).result
    query = build.op(HeadMatmul, {"x": q_nope, "w": w_uk}, {},
                     [TensorInfo((batch, s_len, n, hckv), dtype)]).result
    pages = padded // block_size
    table = np.arange(batch * pages, dtype=np.int32).reshape(batch, pages)
    table_type = tensor_type(table.shape, "i32")
    block_table = ir.Operation.create("arith.constant", results=[table_type], attributes={
        "value": ir.DenseElementsAttr.get(table, type=table_type)}, loc=build.loc, ip=build.ip).result
    latent = build.op(PagedAttention, {"query": query, "key_cache": kv_store.results[0],
                                       "value_cache": kv_store.results[0], "block_table": block_table,
                                       "seq_lengths": m.value("seq_lengths"), "query_rope": q_rope,
                                       "key_rope_cache": key_rope_cache},
                      {"scale_value": attributes_of(attention)["scale_value"]},
                      [TensorInfo((batch, s_len, n, hckv), dtype)]).result
    out = build.op(HeadMatmul, {"x": latent, "w": w_uv}, {}, [info(m.output("attention_out"))]).result
    where = attention.location
    replace(m, {"attention_out": out}, build)
    read = [m.value(x) for x in m.pattern.inputs if x != "kr_read" and m.value(x) is not None]
    erased_reads = []
    if prolog_form:
        # the rope cache's other readers (the function's result: the cache the caller keeps) read the new write
        kr_store.results[0].replace_all_uses_with(key_rope_cache)
        old_rope = defining_op(origin(kr_store.operands[2]))
        erased_reads = list(old_rope.operands)
        update = kr_store.operands[2]
        if not list(kr_store.results[0].uses):
            kr_store.erase()
            _erase_if_dead(update)                  # the reshape of the old RoPE it stored
            if not list(old_rope.results[0].uses):
                old_rope.erase()
    # what only the erased ops read (their reshapes) goes too: fuse-prolog refuses values with
    # users outside its match, dead ones included
    for value in erased_reads + read:
        _erase_dead_views(value)
        _erase_if_dead(value)
    log.record_rewritten(PASS, where,
                     f"attention over K/V expanded from the latent cache -> absorbed attention over the same "
                     f"caches (BlockSize {block_size}, identity block table; W_uk, W_uv from W_kvb"
                     + ("" if prolog_form else f"; the RoPEs as the model computed them: {_rope_problem(m).reason}")
                     + ")")
    return None


def _hoisted(value):
    """`value` (computed from constants only) with the ops computing it moved to just after
    their operands: a weight's transpose written where the model first used it moves up to the
    weight's load."""
    op = defining_op(value)
    if op is None or is_constant_like(op):
        return value
    definitions = [defining_op(_hoisted(v)) for v in op.operands]
    definitions = [d for d in definitions if d is not None and d.block == op.block]
    if definitions:
        op.move_after(max(definitions, key=_BlockOrder))
    return value


def _views_after(value) -> list:
    """The reshapes of `value` (through chains, and through the slice that takes the real rows
    of a padded cache: `_store`), in block order."""
    ops, stack = [], [value]
    while stack:
        for use in stack.pop().uses:
            op = use.owner.operation
            padded_rows = op.name == "tensor.extract_slice" and _store(op.results[0]) is not None
            if (is_reshape(op) or padded_rows) and op not in ops:
                ops.append(op)
                stack.append(op.results[0])
    return sorted(ops, key=_BlockOrder)


def _erase_if_dead(value):
    """Erase the reshape computing `value` when nothing reads it, then what it reshaped."""
    op = defining_op(value)
    while op is not None and is_reshape(op) and not list(op.results[0].uses):
        source = op.operands[0]
        op.erase()
        op = defining_op(source)


@register_pass
@dataclass
class AbsorbLatentKv(ModulePass):
    name = PASS
    summary = ("Rewrite MLA that expands K/V from a latent cache after the read (transformers 5) to absorbed "
               "attention over the same caches (remarks say why not)")

    def apply(self, module, inputs):
        def find(anchor):
            m = match(LATENT, anchor) or match(LATENT_ANY_ROPE, anchor)
            return None if m is None else (m, m)
        changed = rewrite_anchors(module, ("mla.paged_attention",), find,
                                  lambda m: _problem(m) or _rewrite(m, inputs.log), pass_name=PASS, log=inputs.log)
        return None if changed else UNCHANGED

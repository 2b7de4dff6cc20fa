"""absorb-kv: naive MLA attention over a per-head K/V cache -> absorbed attention over a latent
cache the program owns.

Hugging Face's DeepseekV3Attention computes keys and values per token and head from the latent:

    kv = c_kv @ W_kvb;  k_nope, v = split(view(kv, (..., N, D + Dv)))
    key = concat(k_nope, k_rope copied over the heads);  query = concat(q_nope, q_rope)
    k_cache[slots] = key;  v_cache[slots] = v                    (per-head K/V caches)
    o = paged_attention(query, k_cache, v_cache, block_table, seq_lengths)

With W_uk[h] = W_kvb[:, h, :D]^T and W_uv[h] = W_kvb[:, h, D:]^T (per head), k_nope = W_uk c_kv
and v = W_uv c_kv, so q . k = (q_nope W_uk) . c_kv + q_rope . k_rope and P V = (P c_kv) W_uv^T:
the attention can read one latent row (Hckv) and one rope row (Dr) per token instead of N
keys and values. The rewrite:

    kv_cache[slots] = c_kv;  kr_cache[slots] = k_rope              (latent and rope caches)
    o = head_matmul(paged_attention(head_matmul(q_nope, W_uk), kv_cache, kv_cache, table,
                                    seq_lengths, q_rope, kr_cache), W_uv)

which is the graph fuse-prolog and fuse-attention fuse (one mla.prolog_v2 and one FIA per
layer). W_uk and W_uv are views of the constant W_kvb (fold-constants evaluates them once).

The latent caches are new arguments of the function marked `mla.state`: the Program allocates
them once (zeros), passes them at every call and hides them from the caller
(ascend_mla/compiler.py). Paging is the identity: the K/V caches (B, L, N, *) are written at
rows b * L + position, so the latent caches are (B * L / BlockSize, BlockSize, 1, *) with the
same slots and block table [[b * L / BlockSize + j for j]] (BlockSize 128 if it divides L,
else 16: the sizes the fused ops take). The old K/V caches are no longer written (their
arguments stay, returned unchanged).

This is valid only when nothing else reads the K/V caches: the pass rewrites only caches that
are the module's own buffers (arguments marked `mla.buffer` by the importer) and refuses,
with a remark, a cache that is an input of the caller (ABSORB-001), a cache length no
block size divides (ABSORB-002), or a graph whose pieces do not compose to this form
(FUSE-001 / FUSE-003).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from ..dialect.dialect import argument_attributes, argument_name, attributes_of, is_reshape
from ..dialect.primitive import HeadMatmul, PagedAttention, ScatterCache, Transpose
from ..dialect.types import TensorInfo, tensor_type
from .fuse_prolog import leading, trailing
from .pattern import Pattern, match
from .registry import UNCHANGED, ModulePass, register_pass
from .rewrite import Builder, Refusal, info, insertion_point, replace, rewrite_anchors

PASS = "absorb-kv"
EXTERNAL = "ABSORB-001"     # the K/V cache is the caller's: the rewrite would change what it sees
BLOCKS = "ABSORB-002"       # no block size of the fused ops divides the cache length
BLOCK_SIZES = (128, 16)     # mla.prolog_v2 / FIA MLA mode (MLA-0xx, FIA-MLA-12)


def last_axis_concat(op) -> bool:
    """concat(a, b) along the last axis."""
    return len(op.operands) == 2 and op.attributes["dim"].value == info(op.results[0]).rank - 1


def copies(op) -> bool:
    """concat(x, x, ..., x) along an axis where x has size 1 (x broadcast: expand)."""
    axis = op.attributes["dim"].value
    return len(set(op.operands)) == 1 and info(op.operands[0]).shape[axis] == 1


def naive_pattern() -> Pattern:
    p = Pattern("naive MLA attention", root="attention")
    kv = p.op("mla.matmul", x=p.input("c_kv"), w=p.weight("weight_kv_b"), name="kv_b")
    k_nope = p.op("tensor.extract_slice", p.view(kv), name="k_nope", where=leading)
    value = p.op("tensor.extract_slice", p.view(kv), name="value", where=trailing)
    k_rope_heads = p.op("tensor.concat", p.view(p.input("k_rope")), name="k_rope_heads", where=copies)
    key = p.op("tensor.concat", k_nope, k_rope_heads, name="key", where=last_axis_concat)
    query = p.op("tensor.concat", p.input("q_nope"), p.input("q_rope"), name="query", where=last_axis_concat)
    slots = p.input("slots")
    k_store = p.op("mla.scatter_cache", cache=p.input("k_cache"), slot_mapping=slots, update=p.view(key),
                   name="k_store")
    v_store = p.op("mla.scatter_cache", cache=p.input("v_cache"), slot_mapping=slots, update=p.view(value),
                   name="v_store")
    p.output("attention_out", p.op(
        "mla.paged_attention", query=query, key_cache=p.view(k_store), value_cache=p.view(v_store),
        block_table=p.input("block_table"), seq_lengths=p.input("seq_lengths"), name="attention"))
    p.output("k_cache_out", k_store)
    p.output("v_cache_out", v_store)
    return p


NAIVE = naive_pattern()


# --- the function's arguments ------------------------------------------------------------------------

def _argument_name(value) -> str:
    if not isinstance(value, ir.BlockArgument):
        return "(a computed value)"
    attrs = argument_attributes(value.owner.owner)[value.arg_number]
    return f'"{ir.StringAttr(attrs["mla.name"]).value}"' if "mla.name" in attrs else f"%arg{value.arg_number}"


def module_buffer(value) -> str | None:
    """The name of the module buffer `value` is (an argument marked mla.buffer), else None."""
    if not isinstance(value, ir.BlockArgument):
        return None
    fn = value.owner.owner
    if "mla.buffer" not in argument_attributes(fn)[value.arg_number]:
        return None
    return argument_name(fn, value.arg_number)


def add_state(fn, name: str, t: TensorInfo) -> ir.Value:
    """A new argument of `fn` marked mla.state: a buffer the Program allocates and keeps."""
    block = fn.regions[0].blocks[0]
    attrs = argument_attributes(fn)
    arg = block.add_argument(tensor_type(t.shape, t.dtype), fn.location)
    function_type = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    fn.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get([a.type for a in block.arguments], function_type.results))
    attrs.append(ir.DictAttr.get({"mla.name": ir.StringAttr.get(name), "mla.state": ir.UnitAttr.get()}))
    fn.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)
    return arg


# --- checks and the rewrite ----------------------------------------------------------------------------

def _problem(m) -> Refusal | None:
    """Why the matched graph is not the naive form this pass rewrites, or None."""
    for which, name in (("K", "k_cache"), ("V", "v_cache")):
        if module_buffer(m.value(name)) is None:
            return Refusal(EXTERNAL, f"the {which} cache {_argument_name(m.value(name))} is not a buffer of "
                                     "the module (an input of the program, or computed in it): its users may "
                                     "read it, so it cannot be replaced by a latent cache")
    if m.escapes:
        names = ", ".join(sorted({e.owner.name for e in m.escapes}))
        return Refusal("FUSE-003", f"intermediate results ({names}) also feed ops outside the naive "
                                   "attention")
    q_nope, q_rope, c_kv = (info(m.value(n)) for n in ("q_nope", "q_rope", "c_kv"))
    heads = info(m.op("k_nope").operands[0])          # kv viewed (B, S, N, D + Dv)
    batch, s_len, n, d = q_nope.shape
    k_nope, value, k_rope = (info(m.op(n).results[0]) for n in ("k_nope", "value", "k_rope_heads"))
    kv = info(m.op("kv_b").results[0])
    if heads.shape[:-2] != c_kv.shape[:-1] or heads.shape[-2] * heads.shape[-1] != kv.shape[-1] \
            or m.op("value").operands[0] != m.op("k_nope").operands[0] \
            or k_nope.shape[-1] + value.shape[-1] != heads.shape[-1]:        # overlapping halves
        return Refusal("FUSE-001", "k_nope and v are not the per-head halves of c_kv @ W_kvb viewed "
                                   "(..., N, D + Dv)")
    copied = info(m.op("k_rope_heads").operands[0])      # k_rope viewed (B, S, 1, Dr): copied over heads
    if k_nope.shape != (batch, s_len, n, d) or k_rope.shape != q_rope.shape \
            or info(m.value("k_rope")).shape != (batch, s_len, q_rope.shape[-1]) \
            or copied.shape != (batch, s_len, 1, q_rope.shape[-1]):
        return Refusal("FUSE-001", "the keys are not (k_nope, k_rope of each token over the heads)")
    cache, v_cache = info(m.value("k_cache")), info(m.value("v_cache"))
    if cache.shape[:3] != (batch, cache.shape[1], n) or v_cache.shape[:3] != cache.shape[:3] \
            or value.shape[-1] != v_cache.shape[-1]:
        return Refusal("FUSE-001", "the K/V caches are not (B, L, N, *) per batch row")
    if not any(cache.shape[1] % b == 0 for b in BLOCK_SIZES):
        return Refusal(BLOCKS, f"the cache length {cache.shape[1]} is not a multiple of a block size the "
                               f"fused ops take ({' or '.join(map(str, BLOCK_SIZES))})")
    dtypes = {n: info(m.value(n)).dtype for n in ("q_nope", "q_rope", "c_kv", "k_rope", "weight_kv_b", "k_cache")}
    if len(set(dtypes.values())) != 1 or dtypes["k_cache"] not in ("bf16", "f16"):
        return Refusal("FUSE-001", "the absorbed form computes in one element type (bf16 or f16), the graph "
                                   f"has {', '.join(f'{k} {v}' for k, v in dtypes.items())}")
    table = m.value("block_table")
    if not _is_rows_table(table, batch):
        return Refusal("FUSE-001", "the attention does not read row b of the caches for batch b "
                                   "(block table [[0], [1], ...])")
    return None


def _is_rows_table(value, batch: int) -> bool:
    op = value.owner.operation if isinstance(value, ir.OpResult) else None
    if op is None or op.name != "arith.constant" or not isinstance(op.attributes["value"], ir.DenseElementsAttr):
        return False
    return np.array_equal(np.asarray(op.attributes["value"]).reshape(-1), np.arange(batch)) \
        and info(value).shape == (batch, 1)


def _erase_dead_views(value):
    """Erase the reshapes of `value` that nothing uses any more (later passes see true users)."""
    for use in list(value.uses):
        op = use.owner.operation
        if is_reshape(op):
            _erase_dead_views(op.results[0])
            if not list(op.results[0].uses):
                op.erase()


def _rewrite(m, log) -> Refusal | None:
    attention = m.op("attention")
    fn = attention.parent
    q_nope, c_kv, k_rope = (info(m.value(n)) for n in ("q_nope", "c_kv", "k_rope"))
    batch, s_len, n, d = q_nope.shape
    k_cache, v_cache = info(m.value("k_cache")), info(m.value("v_cache"))
    length, dv, hckv, dr = k_cache.shape[1], v_cache.shape[-1], c_kv.shape[-1], k_rope.shape[-1]
    block_size = next(b for b in BLOCK_SIZES if length % b == 0)
    blocks = batch * length // block_size
    sources = [m.value(x) for x in ("q_nope", "q_rope", "c_kv", "k_rope", "slots", "seq_lengths", "weight_kv_b")]
    ip = insertion_point(sources, m)
    if ip is None:
        return Refusal("FUSE-002", "a user of the attention's result comes before one of its inputs is defined")
    name = module_buffer(m.value("k_cache")).rsplit(".", 1)[0]          # ...layers.0.self_attn
    kv_state = add_state(fn, f"{name}.kv_latent", TensorInfo((blocks, block_size, 1, hckv), k_cache.dtype))
    kr_state = add_state(fn, f"{name}.kr_latent", TensorInfo((blocks, block_size, 1, dr), k_cache.dtype))
    build = Builder(ip, attention.location)
    slots = m.value("slots")
    rows = info(slots).shape
    store = Builder(ip, m.op("k_store").location)          # the latent stores: where the key store was
    kv_store = store.op(ScatterCache, {"cache": kv_state, "slot_mapping": slots,
                                       "update": store.reshape(m.value("c_kv"), rows + (1, hckv))}, {},
                        [info(kv_state)]).result
    kr_store = store.op(ScatterCache, {"cache": kr_state, "slot_mapping": slots,
                                       "update": store.reshape(m.value("k_rope"), rows + (1, dr))}, {},
                        [info(kr_state)]).result
    # W_kvb (Hckv, N * (D + Dv)) -> W_uk (N, D, Hckv) and W_uv (N, Hckv, Dv): constants
    w = build.reshape(m.value("weight_kv_b"), (hckv, n, d + dv))
    dtype = info(w).dtype
    w_uk = build.op(Transpose, {"x": build.last_axis_slice(w, 0, d)}, {"permutation": [1, 2, 0]},
                    [TensorInfo((n, d, hckv), dtype)]).result
    w_uv = build.op(Transpose, {"x": build.last_axis_slice(w, d, dv)}, {"permutation": [1, 0, 2]},
                    [TensorInfo((n, hckv, dv), dtype)]).result
    query = build.op(HeadMatmul, {"x": m.value("q_nope"), "w": w_uk}, {},
                     [TensorInfo((batch, s_len, n, hckv), q_nope.dtype)]).result
    table = np.arange(blocks, dtype=np.int32).reshape(batch, length // block_size)
    table_type = tensor_type(table.shape, "i32")
    block_table = ir.Operation.create("arith.constant", results=[table_type], attributes={
        "value": ir.DenseElementsAttr.get(table, type=table_type)}, loc=build.loc, ip=build.ip).result
    scale = attributes_of(attention)["scale_value"]
    latent = build.op(PagedAttention, {"query": query, "key_cache": kv_store, "value_cache": kv_store,
                                       "block_table": block_table, "seq_lengths": m.value("seq_lengths"),
                                       "query_rope": m.value("q_rope"), "key_rope_cache": kr_store},
                      {"scale_value": scale},
                      [TensorInfo((batch, s_len, n, hckv), info(m.output("attention_out")).dtype)]).result
    out = build.op(HeadMatmul, {"x": latent, "w": w_uv}, {}, [info(m.output("attention_out"))]).result
    where = attention.location
    replace(m, {"attention_out": out, "k_cache_out": m.value("k_cache"), "v_cache_out": m.value("v_cache")}, build)
    for input_name in m.pattern.inputs:      # reshapes of the inputs that only the match read
        _erase_dead_views(m.value(input_name))
    log.record_rewritten(PASS, where,
                     f"naive attention over {module_buffer(m.value('k_cache'))}, "
                     f"{module_buffer(m.value('v_cache'))} -> absorbed attention over program-owned latent caches "
                     f"{name}.kv_latent, {name}.kr_latent (BlockSize {block_size}); the module's K/V buffers "
                     "are no longer written",
                     replaces=[module_buffer(m.value("k_cache")), module_buffer(m.value("v_cache"))])
    return None


@register_pass
@dataclass
class AbsorbKv(ModulePass):
    name = PASS
    summary = "Rewrite naive MLA attention over a module's K/V cache to absorbed attention over a program-owned latent cache (remarks say why not)"

    def apply(self, module, inputs):
        def find(anchor):
            m = match(NAIVE, anchor)
            return None if m is None else (m, m)
        changed = rewrite_anchors(module, ("mla.paged_attention",), find,
                                  lambda m: _problem(m) or _rewrite(m, inputs.log), pass_name=PASS, log=inputs.log)
        return None if changed else UNCHANGED

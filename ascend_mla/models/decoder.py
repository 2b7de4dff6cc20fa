"""The rest of a DeepSeek decoder around the attention blocks (deepseek.build(decoder=True)).

    h = embed_tokens[input_ids]                                 mla.gather (aclnnEmbedding)
    for each layer i:
        h = attention block (deepseek.py: input norm, MLA, o_proj, residual)
        x = RmsNorm(h)                                          post_attention_layernorm
        dense layer:  h = h + down(swiglu(x @ [gate | up]))     mla.matmul, mla.swiglu
        MoE layer:    weights, experts = router(f32(x) @ W_gate.T, e_score_correction_bias)
                      routed = experts' SwiGLU MLPs on the routed copies of x
                      h = finalize(routed, weights) + shared_experts(x) + h
    logits = f32(RmsNorm(h) @ lm_head.T)                        model.norm, lm_head

Hugging Face's names and layouts throughout (DeepseekV3ForCausalLM in transformers 5): the
dense MLP `mlp.{gate,up,down}_proj.weight` (out, in), the router `mlp.gate.weight` (E, He) and
`mlp.gate.e_score_correction_bias` (E,), the routed experts stacked as transformers 5 holds
them, `mlp.experts.gate_up_proj` (E, 2*I, He) and `mlp.experts.down_proj` (E, He, I) (a
checkpoint with per-expert tensors is stacked at load, causal_lm.py), the shared experts
`mlp.shared_experts.*`. A layer is MoE when it has routed experts, its index is at least
`first_k_dense_replace` and a multiple of `moe_layer_freq` (DeepSeek's rule; transformers' V3
model has no moe_layer_freq, i.e. 1).

Rounding points as transformers' bf16 model has them, except where a fused kernel computes in
float32 and rounds once: SwiGLU (silu(gate) * up), and the MoE finalize, which adds the
weighted routed rows, the shared experts and the residual in float32 (transformers rounds the
routed sum, then + shared, then + residual). The router is float32 end to end, as in
transformers. The gate/up concatenation and every transpose are weight-only: fold-constants
computes them once, at compile time.

quant="w8a8"/"w8a8c8" (docs/compiler.md, "w8a8: int8 MLPs and experts"): every MLP and expert
linear is int8 with a float32 scale per output channel (`<weight name>_scale`; the stacked
experts' `experts.gate_up_proj_scale` (E, 2I, 1), `experts.down_proj_scale` (E, He, 1)), its
input quantized per token (mla.dynamic_quant): the dense MLP and the shared experts through
mla.quant_matmul, the routed experts through the int8 mla.grouped_matmul, whose scales are bf16
(aclnnGroupedMatmulV4's combination for a bf16 result; the cast is weight-only). Outputs bf16.

A tensor-parallel slice (tp > 1, rank r; docs/parallel.md) is rank r's part of every MLP's
intermediate dimension (dense, shared and routed experts alike: gate/up rows, down columns),
whose partial down-projections an `mla.all_reduce` sums before the residual (a MoE layer: the
weighted routed rows and the shared experts combined per rank, all-reduced, then the residual);
the rows [r V/tp, (r+1) V/tp) of the vocabulary in the embedding (each rank looks up the tokens
it holds, the others' rows are zeroed by a 0/1 mask, an all-reduce assembles them: exact) and
in lm_head (each rank's logits for its vocabulary slice, all-gathered along the last axis).
The router is replicated: every rank routes every token alike.

Expert parallelism (ep > 1, rank r; docs/parallel.md) keeps the routed experts [r E/ep,
(r+1) E/ep) on rank r and everything else whole; each rank runs its own rows (data-parallel
attention, its own caches). A MoE layer routes the rank's tokens, sends each (token, expert)
pair to the expert's rank (mla.moe_distribute_dispatch: an all-to-all in the EP group), runs
the rank's experts on what it received (the same two grouped matmuls, grouped by local
expert), sends the rows back and sums them with the routing weights and the shared experts,
which every rank computes on its own tokens (mla.moe_distribute_combine), then adds the
residual. Every exchange has global_bs = max_tokens * ep: a rank may have fewer tokens in a
call than another (a decode step beside a prefill chunk).
"""
from __future__ import annotations

import numpy as np
from ml_dtypes import bfloat16 as BF16_TYPE

from ..compiler import CompileError
from ..dialect.collective import AllGather, AllReduce
from ..dialect.decoder import GroupedMatmul, MoeFinalizeRouting, MoeGatingTopK, MoeInitRouting, SwiGlu
from ..dialect.moe_distribute import MoeDistributeCombine, MoeDistributeDispatch
from ..dialect.primitive import Add, Div, DynamicQuant, Gather, Matmul, Mul, QuantMatmul, RmsNorm, Transpose
from ..dialect.types import TensorInfo
from . import families
from .families import moe_prefix


def layer_ids(c) -> list:
    """The indices of the layers built: build(layer=i) builds [i], else 0..layers-1."""
    return c.get("layer_ids") or list(range(c["layers"]))


def layer_blocks(c, i) -> list:
    """Layer i's attention blocks (families.blocks: their tensors' names and caches)."""
    return families.blocks(c.get("layer_kind") or "pre_norm", i)


def attention_ids(c) -> list:
    """The cache index of every attention block built (one per layer; LongCat: two)."""
    return families.attention_ids(c.get("layer_kind") or "pre_norm", layer_ids(c))


# The MLP/MoE hyper-parameters of each preset's config.json (the attention's are in blocks.py).
_V3 = dict(vocab_size=129280, intermediate_size=18432, moe_intermediate_size=2048, n_routed_experts=256,
           n_shared_experts=1, num_experts_per_tok=8, n_group=8, topk_group=4, first_k_dense_replace=3,
           routed_scaling_factor=2.5, norm_topk_prob=True, scoring_func="sigmoid", topk_method="noaux_tc",
           hidden_act="silu", tie_word_embeddings=False)
PRESETS = {
    "deepseek-v3": _V3, "deepseek-r1": _V3,
    "kimi-k2": dict(_V3, vocab_size=163840, n_routed_experts=384, n_group=1, topk_group=1,
                    first_k_dense_replace=1, routed_scaling_factor=2.827),
    "deepseek-v2": dict(_V3, vocab_size=102400, intermediate_size=12288, moe_intermediate_size=1536,
                        n_routed_experts=160, n_shared_experts=2, num_experts_per_tok=6, n_group=8,
                        topk_group=3, first_k_dense_replace=1, routed_scaling_factor=16.0,
                        norm_topk_prob=False, scoring_func="softmax", topk_method="group_limited_greedy"),
    "deepseek-v2-lite": dict(_V3, vocab_size=102400, intermediate_size=10944, moe_intermediate_size=1408,
                             n_routed_experts=64, n_shared_experts=2, num_experts_per_tok=6, n_group=1,
                             topk_group=1, first_k_dense_replace=1, routed_scaling_factor=1.0,
                             norm_topk_prob=False, scoring_func="softmax", topk_method="greedy"),
}
_REQUIRED = ("vocab_size", "intermediate_size")


def check_config(c: dict):
    """Fill the MLP/MoE keys of a preset, and refuse (CompileError naming the key) what the
    decoder cannot compute as the checkpoint's model does."""
    for key, value in PRESETS.get(c.get("name"), {}).items():
        c.setdefault(key, value)
    missing = [k for k in _REQUIRED if c.get(k) is None]
    if missing:
        raise CompileError(f"config: {', '.join(missing)} missing (the whole decoder needs them)")
    if c.get("hidden_act", "silu") != "silu":
        raise CompileError(f"config: hidden_act {c['hidden_act']!r} is not supported (the MLPs are SwiGLU: silu)")
    for key in ("mlp_bias", "attention_bias"):
        if c.get(key):
            raise CompileError(f"config: {key} true: the decoder has no bias terms")
    tp, ep = c["tp"], c.get("ep", 1)
    for key in ("intermediate_size", "moe_intermediate_size", "vocab_size"):
        if c.get(key) and c[key] % tp:
            raise CompileError(f"tp: {tp} must divide {key} ({c[key]})")
    if ep > 1 and c.get("zero_experts"):
        raise CompileError(f"ep: {ep} with {c['zero_experts']} zero-computation experts (LongCat): not built (their "
                           "router rows would be split with the routed experts')")
    if ep > 1 and c.get("n_routed_experts") and c["n_routed_experts"] % ep:
        raise CompileError(f"ep: {ep} must divide n_routed_experts ({c['n_routed_experts']}): each rank holds "
                           "as many routed experts")
    if c.get("n_routed_experts"):
        scoring = c.get("scoring_func", "sigmoid")
        if scoring not in ("sigmoid", "softmax"):
            raise CompileError(f"config: scoring_func {scoring!r} is not supported (sigmoid or softmax)")
        if scoring == "sigmoid" and not c.get("norm_topk_prob", True):
            raise CompileError("config: norm_topk_prob false with sigmoid scores: aclnnMoeGatingTopK always "
                               "normalizes sigmoid weights (normType 1)")
        method = c.get("topk_method", "noaux_tc" if scoring == "sigmoid" else "greedy")
        from .config_keys import ROUTERS
        known = ROUTERS[scoring]
        if method not in known:
            raise CompileError(f"config: topk_method {method!r} with {scoring} scores is not supported "
                               f"({' or '.join(known)})")
        experts, groups = c["n_routed_experts"] + (c.get("zero_experts") or 0), c.get("n_group") or 1
        if experts % groups:
            raise CompileError(f"config: n_group {groups} must divide the {experts} experts the router scores")
    if c.get("query_scale_beta") and not (c.get("rope_scaling") or {}).get("original_max_position_embeddings"):
        raise CompileError("config: llama_4_scaling_beta without original_max_position_embeddings: the query scale "
                           "1 + beta log(1 + floor(position / original)) is undefined")


def is_moe(c: dict, i: int) -> bool:
    """Layer i has the routed MoE (its family's mlp_layer_types, else DeepSeek's rule)."""
    if c.get("mlp_layer_types"):
        return bool(c.get("n_routed_experts")) and c["mlp_layer_types"][i] == "sparse"
    return bool(c.get("n_routed_experts")) and i >= (c.get("first_k_dense_replace") or 0) \
        and i % (c.get("moe_layer_freq") or 1) == 0


def _mlp(i, name):
    return moe_prefix(i) + name


def router_names(c, i) -> tuple:
    """(the router's weight, its e_score_correction_bias or None) of MoE layer i: mlp.gate.* in
    DeepSeek's names, mlp.router.classifier.weight / mlp.router.e_score_correction_bias in LongCat's."""
    weight = c.get("router_weight") or "gate"
    bias = score_bias(c) and _mlp(i, weight.split(".")[0] + ".e_score_correction_bias")
    return _mlp(i, weight + ".weight"), bias or None


def score_bias(c) -> bool:
    """The router adds e_score_correction_bias to the scores it chooses by (sigmoid routers
    always; a softmax one when its family says so: LongCat)."""
    given = c.get("score_bias")
    return c.get("scoring_func", "sigmoid") == "sigmoid" if given is None else bool(given)


def _lm_head(c) -> str:
    return "model.embed_tokens.weight" if c.get("tie_word_embeddings") else "lm_head.weight"


def decoder_specs(c: dict) -> dict:
    """name -> TensorInfo of the decoder's weights beyond the attention blocks (the rank's part:
    tp slices, ep's own routed experts)."""
    he, tp, int8 = c["hidden_size"], c["tp"], c["quant"] != "bf16"
    specs = {}
    if c.get("decoder"):                # not for the layers alone (build(feed_forward=True))
        specs = {"model.embed_tokens.weight": TensorInfo((c["vocab_size"] // tp, he), "bf16"),
                 "model.norm.weight": TensorInfo((he,), "bf16"),
                 _lm_head(c): TensorInfo((c["vocab_size"] // tp, he), "bf16")}
    if tp > 1 and c.get("decoder"):     # the vocabulary-parallel embedding's lookup tables (vocab_tables)
        specs[TP_ROWS] = TensorInfo((c["vocab_size"],), "i32")
        specs[TP_MASK] = TensorInfo((c["vocab_size"], 1), "bf16")
    for i in layer_ids(c):
        for block in layer_blocks(c, i):
            specs[block.post_norm] = TensorInfo((he,), "bf16")
            if not is_moe(c, i) or len(layer_blocks(c, i)) > 1:     # LongCat: dense MLPs and the MoE
                specs.update(_mlp_specs(block.mlp, c["intermediate_size"] // tp, he, int8))
        if not is_moe(c, i):
            continue
        experts, inter = c["n_routed_experts"], c["moe_intermediate_size"] // tp
        weight, bias = router_names(c, i)
        specs[weight] = TensorInfo((experts + (c.get("zero_experts") or 0), he), "f32")
        if bias:
            specs[bias] = TensorInfo((experts + (c.get("zero_experts") or 0),), "f32")
        experts //= c.get("ep", 1)          # the stacked experts: the rank's own
        specs.update(_linear_spec(_mlp(i, "experts.gate_up_proj"), (experts, 2 * inter, he), int8))
        specs.update(_linear_spec(_mlp(i, "experts.down_proj"), (experts, he, inter), int8))
        if c.get("n_shared_experts"):
            specs.update(_mlp_specs(_mlp(i, "shared_experts."), c["moe_intermediate_size"] * c["n_shared_experts"] // tp,
                                    he, int8))
        if c.get("moe_output_norm"):
            specs[moe_output_norm(i)] = TensorInfo((he,), "bf16")
    return specs


def moe_output_norm(i) -> str:
    """A.X-K1's RmsNorm of layer i's MoE output, by its checkpoint name (transformers renames it
    mlp.post_mlp_layernorm when it loads)."""
    return f"model.layers.{i}.post_mlp_layernorm.weight"


def _linear_spec(name, shape, int8):
    """A linear weight ((out, in), or (E, out, in) stacked): bf16, or under w8a8 int8 with its
    float32 per-output-channel scale `<name>_scale` (out, 1) / (E, out, 1)."""
    if not int8:
        return {name: TensorInfo(shape, "bf16")}
    return {name: TensorInfo(shape, "i8"), name + "_scale": TensorInfo(shape[:-1] + (1,), "f32")}


def _mlp_specs(prefix, inter, he, int8):
    return {**_linear_spec(f"{prefix}gate_proj.weight", (inter, he), int8),
            **_linear_spec(f"{prefix}up_proj.weight", (inter, he), int8),
            **_linear_spec(f"{prefix}down_proj.weight", (he, inter), int8)}


TP_ROWS, TP_MASK = "tp.embed_tokens.rows", "tp.embed_tokens.mask"


def vocab_tables(c: dict) -> dict:
    """For rank r of tp: token id -> its row in the rank's embedding slice (0 for another
    rank's token), and 1 for the rank's own tokens, 0 for the others'."""
    vocab, tp, rank = c["vocab_size"], c["tp"], c.get("rank", 0)
    part = vocab // tp
    ids = np.arange(vocab)
    mine = (ids // part) == rank
    return {TP_ROWS: np.where(mine, ids - rank * part, 0).astype(np.int32),
            TP_MASK: mine.astype(np.float32).astype(BF16_TYPE)[:, None]}


# --- the graph ----------------------------------------------------------------------------------

def embedding(g, w, input_ids, c=None):
    """embed_tokens[input_ids]: (batch, seq) token ids -> (batch, seq, hidden) bf16. tp > 1:
    the rank's rows looked up, other ranks' tokens zeroed, the ranks' parts all-reduced."""
    if c is None or c["tp"] == 1:
        out = g.op(Gather, table=w("model.embed_tokens.weight"), indices=input_ids, name="embed")
    else:
        rows = g.op(Gather, table=w(TP_ROWS), indices=input_ids, name="embed_rows")
        mask = g.op(Gather, table=w(TP_MASK), indices=input_ids, name="embed_mask")
        part = g.op(Mul, x=g.op(Gather, table=w("model.embed_tokens.weight"), indices=rows, name="embed_part"),
                    y=mask, name="embed_mine")
        out = g.op(AllReduce, x=part, world_size=c["tp"], name="embed")
    if c is not None and c.get("embedding_scale"):          # MiniCPM3: times scale_emb, one rounding
        out = g.op(Mul, x=out, y=_scalar(g, c["embedding_scale"], "embed_scale"), name="embed_scaled")
    return out


def _scalar(g, value, name):
    """A float32 constant (1,): a scale broadcast over a tensor (the product rounds once, as
    transformers' bf16 tensor times a Python float does)."""
    return g.constant(float(value), TensorInfo((1,), "f32"), name)


def residual(g, c, h, out, name):
    """h + out: a branch's output added to the residual stream (MiniCPM3: the branch times
    residual_scale first, rounded, as transformers computes it)."""
    if c.get("residual_scale"):
        out = g.op(Mul, x=out, y=_scalar(g, c["residual_scale"], f"{name}_scale"), name=f"{name}_branch")
    return g.op(Add, x=h, y=out, name=name)


def _norm(g, w, c, x, key, name):
    return g.op(RmsNorm, x=x, gamma=w(key), epsilon=c["rms_norm_eps"], name=name)


def layer(g, w, c, i, h, attend):
    """Decoder layer i as its family lays it out (families.blocks). pre_norm: x = norm(h),
    h += attention(x); x = post_norm(h), h += MLP or MoE(x). dual (LongCat): the same twice,
    each block with its own dense MLP, and the MoE of the first block's normed input (the
    shortcut) added after the second. attend(block, x): the attention block (deepseek.py)."""
    blocks = layer_blocks(c, i)
    if len(blocks) == 1:
        block = blocks[0]
        x = _norm(g, w, c, h, block.input_norm, f"{block.tag}_x")
        h = residual(g, c, h, attend(block, x), f"{block.tag}_h")
        return feed_forward(g, w, c, i, h)
    shortcut = None
    for block in blocks:
        x = _norm(g, w, c, h, block.input_norm, f"{block.tag}_x")
        h = residual(g, c, h, attend(block, x), f"{block.tag}_h")
        x = _norm(g, w, c, h, block.post_norm, f"{block.tag}_post_norm")
        if shortcut is None and is_moe(c, i):
            shortcut = moe(g, w, c, i, x)
        mlp = _reduce(g, c, _swiglu_mlp(g, w, x, block.mlp, f"{block.tag}_mlp", c["quant"] != "bf16"), f"{block.tag}_mlp_sum")
        h = residual(g, c, h, mlp, f"{block.tag}_out")
    return h if shortcut is None else g.op(Add, x=h, y=shortcut, name=f"l{i}_out")


def _reduce(g, c, x, name):
    """The ranks' partial sums of a row-parallel product, summed (tp > 1)."""
    return g.op(AllReduce, x=x, world_size=c["tp"], name=name) if c["tp"] > 1 else x


def _swiglu_mlp(g, w, x, prefix, name, int8=False):
    """down(silu(x @ gate.T) * (x @ up.T)) with gate and up as one (He, 2I) product. int8
    (w8a8): each product's input quantized per token (mla.dynamic_quant), int8 weights with
    their per-channel scales (mla.quant_matmul), bf16 out."""
    gate = g.op(Transpose, x=w(f"{prefix}gate_proj.weight"), permutation=[1, 0], name=f"{name}_gate_t")
    up = g.op(Transpose, x=w(f"{prefix}up_proj.weight"), permutation=[1, 0], name=f"{name}_up_t")
    gate_up_w = g.concat([gate, up], 1, f"{name}_gate_up_w")
    down = g.op(Transpose, x=w(f"{prefix}down_proj.weight"), permutation=[1, 0], name=f"{name}_down_t")
    if not int8:
        gate_up = g.op(Matmul, x=x, w=gate_up_w, name=f"{name}_gate_up")
        return g.op(Matmul, x=g.op(SwiGlu, x=gate_up, name=f"{name}_act"), w=down, name=f"{name}_down")
    gate_up_scale = g.concat([_channel_scale(g, w, f"{prefix}{p}_proj.weight", f"{name}_{p}") for p in ("gate", "up")],
                             0, f"{name}_gate_up_scale")
    gate_up = _quant_linear(g, x, gate_up_w, gate_up_scale, f"{name}_gate_up")
    act = g.op(SwiGlu, x=gate_up, name=f"{name}_act")
    return _quant_linear(g, act, down, _channel_scale(g, w, f"{prefix}down_proj.weight", f"{name}_down"),
                         f"{name}_down")


def _channel_scale(g, w, key, name):
    """The (out, 1) float32 scale of an int8 weight as the (out,) vector mla.quant_matmul reads."""
    scale = w(key + "_scale")
    return g.reshape(scale, scale.shape[:1], f"{name}_ws")


def _quant_linear(g, x, wt, w_scale, name):
    """x (bf16) @ wt (int8, (in, out)): x quantized per token, the int32 sums dequantized by
    the token's and the channel's scales, bf16 out (npu_dynamic_quant + npu_quant_matmul)."""
    xq, xs = g.op(DynamicQuant, x=x, name=f"{name}_xq")
    return g.op(QuantMatmul, x=xq, w=wt, x_scale=xs, w_scale=w_scale, name=name,
                result={"y": TensorInfo(x.shape[:-1] + wt.shape[1:], "bf16")})


def _experts(g, w, i, rows, counts, int8):
    """The routed experts' SwiGLU MLPs on their rows: two grouped matmuls around SwiGLU. int8
    (w8a8): the rows quantized per row before each, the int8 grouped matmul with each
    expert's per-channel scales (bf16, as aclnnGroupedMatmulV4 takes them for a bf16 out)."""
    def grouped(x, key, name):
        wt = g.op(Transpose, x=w(_mlp(i, key)), permutation=[0, 2, 1], name=f"{name}_t")
        if not int8:
            return g.op(GroupedMatmul, x=x, w=wt, group_list=counts, name=name)
        scale = w(_mlp(i, key + "_scale"))
        scale = g.cast(g.reshape(scale, scale.shape[:2], f"{name}_ws"), "bf16", f"{name}_ws_bf16")
        xq, xs = g.op(DynamicQuant, x=x, name=f"{name}_xq")
        return g.op(GroupedMatmul, x=xq, w=wt, group_list=counts, scale=scale, per_token_scale=xs, name=name)
    act = g.op(SwiGlu, x=grouped(rows, "experts.gate_up_proj", f"l{i}_experts_gate_up"), name=f"l{i}_experts_act")
    return grouped(act, "experts.down_proj", f"l{i}_experts_down")


def feed_forward(g, w, c, i, h):
    """post_attention_layernorm, then the dense MLP or the MoE, with the residual."""
    block = layer_blocks(c, i)[0]
    x = _norm(g, w, c, h, block.post_norm, f"l{i}_post_norm")
    int8 = c["quant"] != "bf16"
    if not is_moe(c, i):
        return residual(g, c, h, _reduce(g, c, _swiglu_mlp(g, w, x, block.mlp, f"l{i}_mlp", int8), f"l{i}_mlp_sum"),
                        f"l{i}_out")
    return moe(g, w, c, i, x, h)


def moe(g, w, c, i, x, h=None):
    """Layer i's MoE on its normed input x (batch, seq, hidden), plus the residual h (None: the
    MoE's output alone, LongCat's shortcut). The router's scores (sigmoid or softmax, with or
    without the correction bias in the choice, groups by their top-2 sum or maximum), the routed
    experts, the shared experts, LongCat's identity experts, A.X-K1's output norm, as the
    family says (module doc of families.py)."""
    b, s, he = x.shape
    tokens, experts, zero = b * s, c["n_routed_experts"], c.get("zero_experts") or 0
    int8 = c["quant"] != "bf16"
    xt = g.reshape(x, (tokens, he), f"l{i}_tokens")
    weight, bias = router_names(c, i)
    router = g.op(Transpose, x=w(weight), permutation=[1, 0], name=f"l{i}_router_t")
    logits = g.op(Matmul, x=g.cast(xt, "f32", f"l{i}_tokens_f32"), w=router, name=f"l{i}_router")
    sigmoid = c.get("scoring_func", "sigmoid") == "sigmoid"
    top2 = (c.get("group_score") or ("top2" if sigmoid else "max")) == "top2"
    weights, chosen = g.op(
        MoeGatingTopK, x=logits, bias=w(bias) if bias else None,
        k=c["num_experts_per_tok"], k_group=c.get("topk_group") or 1, group_count=c.get("n_group") or 1,
        group_select_mode=1 if top2 else 0, norm_type=1 if sigmoid else 0,
        renorm=0 if sigmoid else int(bool(c.get("norm_topk_prob"))),
        routed_scaling_factor=float(c.get("routed_scaling_factor") or 1.0), name=f"l{i}_route")
    identity = None
    if zero:
        weights, chosen, identity = _identity_experts(g, c, i, xt, weights, chosen)
    residual_rows = None if h is None else g.reshape(h, (tokens, he), f"l{i}_residual")
    if c.get("ep", 1) > 1:          # the tokens to their experts' ranks and back, + the shared experts
        out = _expert_parallel(g, w, c, i, x, xt, weights, chosen, int8)
    else:
        rows, row_idx, counts = g.op(MoeInitRouting, x=xt, expert_idx=chosen, expert_num=experts,
                                     name=f"l{i}_dispatch")
        routed = _experts(g, w, i, rows, counts, int8)
        shared = None
        if c.get("n_shared_experts"):
            shared = g.reshape(_swiglu_mlp(g, w, x, _mlp(i, "shared_experts."), f"l{i}_shared", int8), (tokens, he),
                               f"l{i}_shared_rows")
        if c["tp"] == 1 and identity is not None and shared is None:      # one operand of the combine
            shared, identity = identity, None
        if residual_rows is not None and c["tp"] == 1 and identity is None and not c.get("moe_output_norm") \
                and not c.get("residual_scale"):
            # the weighted routed rows, the shared experts and the residual in one float32 sum
            extra = dict(x1=shared, x2=residual_rows) if shared is not None else dict(x1=residual_rows)
            out = g.op(MoeFinalizeRouting, expanded_x=routed, expanded_row_idx=row_idx, scales=weights, **extra,
                       name=f"l{i}_combine")
            return g.reshape(out, (b, s, he), f"l{i}_out")
        # each rank's routed and shared parts combined, summed over the ranks; then what every
        # rank holds whole (the identity experts), the output norm, the residual
        out = g.op(MoeFinalizeRouting, expanded_x=routed, expanded_row_idx=row_idx, scales=weights, x1=shared,
                   name=f"l{i}_combine")
        out = _reduce(g, c, out, f"l{i}_moe_sum")
    if identity is not None:
        out = g.op(Add, x=out, y=identity, name=f"l{i}_moe_identity")
    if c.get("moe_output_norm"):
        out = _norm(g, w, c, out, moe_output_norm(i), f"l{i}_moe_norm")
    if residual_rows is not None:
        out = residual(g, c, residual_rows, out, f"l{i}_moe_out")
    return g.reshape(out, (b, s, he), f"l{i}_out")


def _expert_parallel(g, w, c, i, x, xt, weights, chosen, int8):
    """The MoE over the EP ranks: the rank's tokens to their experts' ranks, the rank's experts
    on the rows it received (grouped by local expert: dispatch's expert_token_nums are the
    grouped matmuls' counts), the rows back, weighted and summed with the shared experts (which
    every rank computes on its own tokens: shared_expert_x)."""
    ep, experts = c["ep"], c["n_routed_experts"]
    exchange = dict(ep_world_size=ep, moe_expert_num=experts, global_bs=c["max_tokens"] * ep)
    rows, _, assist, counts, recv_counts, _ = g.op(MoeDistributeDispatch, x=xt, expert_ids=chosen, **exchange,
                                                   name=f"l{i}_ep_dispatch")
    routed = _experts(g, w, i, rows, counts, int8)
    shared = None
    if c.get("n_shared_experts"):
        shared = g.reshape(_swiglu_mlp(g, w, x, _mlp(i, "shared_experts."), f"l{i}_shared", int8), xt.shape,
                           f"l{i}_shared_rows")
    return g.op(MoeDistributeCombine, expand_x=routed, expert_ids=chosen, assist_info_for_combine=assist,
                ep_send_counts=recv_counts, expert_scales=weights, shared_expert_x=shared, **exchange,
                name=f"l{i}_ep_combine")


def _identity_experts(g, c, i, xt, weights, chosen):
    """LongCat's zero-computation experts, ids [E, E + Z): each adds its weight times the
    token (transformers' nn.Identity expert). Their (token, choice) pairs go to expert 0 with
    weight 0 (the routed rows stay tokens x k, as serving engines run them), and the token times
    the sum of their weights is returned to be added to the output. Three tables indexed by
    the expert id: the routed id (0 for an identity expert), 1 for routed / identity."""
    experts, zero, k = c["n_routed_experts"], c["zero_experts"], c["num_experts_per_tok"]
    tokens = xt.shape[0]
    ids = range(experts + zero)

    def table(values, dtype, name):
        return g.integers([[v] for v in values], TensorInfo((experts + zero, 1), dtype), name)

    def look_up(values, dtype, name):
        found = g.op(Gather, table=table(values, dtype, f"{name}_table"), indices=chosen, name=f"{name}_rows")
        return g.reshape(found, (tokens, k), name)
    routed_ids = look_up([e if e < experts else 0 for e in ids], "i32", f"l{i}_routed_ids")
    routed_weights = g.op(Mul, x=weights, y=look_up([float(e < experts) for e in ids], "f32", f"l{i}_routed_mask"),
                          name=f"l{i}_routed_weights")
    identity_weights = g.op(Mul, x=weights, y=look_up([float(e >= experts) for e in ids], "f32", f"l{i}_identity_mask"),
                            name=f"l{i}_identity_weights")
    ones = g.constant(1.0, TensorInfo((k, 1), "f32"), f"l{i}_ones")
    total = g.op(Matmul, x=identity_weights, w=ones, name=f"l{i}_identity_weight")          # (tokens, 1)
    return routed_weights, routed_ids, g.op(Mul, x=xt, y=total, name=f"l{i}_identity")


def logits(g, w, c, h):
    """model.norm, lm_head (bf16 as transformers computes it), then float32 logits."""
    x = g.op(RmsNorm, x=h, gamma=w("model.norm.weight"), epsilon=c["rms_norm_eps"], name="final_norm")
    if c.get("logits_divisor"):           # MiniCPM3: divided by hidden_size / dim_model_base, rounded
        x = g.op(Div, x=x, y=_scalar(g, c["logits_divisor"], "logits_divisor"), name="final_scaled")
    head = g.op(Transpose, x=w(_lm_head(c)), permutation=[1, 0], name="lm_head_t")
    out = g.op(Matmul, x=x, w=head, name="lm_head")
    if c["tp"] > 1:          # each rank's vocabulary slice, in rank order along the last axis
        out = g.op(AllGather, x=out, world_size=c["tp"], dim=-1, name="lm_head_all")
    return g.cast(out, "f32", "logits")

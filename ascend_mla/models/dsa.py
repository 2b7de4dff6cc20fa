"""DeepSeek Sparse Attention's indexer as unfused model code writes it (transformers'
DeepseekV32Indexer and GlmMoeDsaIndexer), for the decoder builder (deepseek.py's DSA attention
block; docs/dsa.md). Nothing here is fused: fuse-sparse-attention makes
mla.lightning_indexer + mla.sparse_flash_attention of the graph written here and the MLA
attention it masks.

Per attention block, from the block's normed input x and the query latent c_q (transformers'
q_resid = q_a_layernorm(q_a_proj(x))):

    q = (c_q @ wq_b).view(B, S, H, D)                         H index heads of D = 128
    q = cat(rope(q[..., :Dr]), q[..., Dr:])                    rotate-half (V3.2) or interleaved
    k = LayerNorm(x @ wk)                                      (GLM-5) RoPE on the first Dr dims,
    k = cat(rope(k[..., :Dr]), k[..., Dr:])                    as the query's
    index cache[slot] = k                                      (blocks, block_size, 1, D) bf16
    w = (x @ weights_proj).float() * H^-0.5                   (B, S, H)
    scores = relu(q.float() @ K.float()^T * D^-0.5)            K: the cache's keys (B, T, D)
    index = w @ scores                                         per token (1, H) @ (H, T)
    index = masked_fill(index, future keys, -inf)              the causal mask at the kv lengths
    selection = topk(index, min(index_topk, T)).indices
    attention mask = True where a key is not selected

T is the block table's capacity (blocks per row x block size), the positions the masks index;
transformers' T is the tokens so far, which the causal mask makes the same selection of.
"""
from __future__ import annotations

from ..dialect.primitive import (
    BatchMatmul,
    IndexMask,
    LayerNorm,
    LengthMask,
    MaskedFill,
    Matmul,
    Mul,
    PagedGather,
    Relu,
    Rope,
    ScatterCache,
    TopK,
    Transpose,
)
from ..dialect.types import TensorInfo

INDEXER = "indexer."             # the indexer's tensors, under the attention block's prefix
K_NORM_EPS = 1e-6                # transformers' nn.LayerNorm(head_dim, eps=1e-6)


def indexer_names(c) -> dict:
    """indexer tensor suffix -> (shape, dtype) (full size: the indexer is not split by tp)."""
    he, h, d = c["hidden_size"], c["index_n_heads"], c["index_head_dim"]
    return {"wq_b.weight": ((h * d, c["q_lora_rank"]), "bf16"), "wk.weight": ((d, he), "bf16"),
            "k_norm.weight": ((d,), "bf16"), "k_norm.bias": ((d,), "bf16"),
            "weights_proj.weight": ((h, he), "bf16")}


def index_cache_info(c, num_blocks: int) -> TensorInfo:
    """One block's index cache: the indexer's keys, PA_BSND (blocks, block_size, 1, D) bf16."""
    return TensorInfo((num_blocks, c["block_size"], 1, c["index_head_dim"]), "bf16")


def check_config(c):
    """ValueError naming what a DSA block cannot be built with."""
    for key in ("index_n_heads", "index_head_dim", "index_topk"):
        v = c.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"config[{key!r}]: a DSA model needs a positive integer, got {v!r}")
    if not c.get("q_lora_rank"):
        raise ValueError("config['q_lora_rank']: DSA's indexer reads the query latent; a model without a query "
                         "down-projection has none")
    if c["index_head_dim"] < c["qk_rope_head_dim"]:
        raise ValueError(f"config['index_head_dim']: {c['index_head_dim']} is narrower than the rope part "
                         f"qk_rope_head_dim = {c['qk_rope_head_dim']}")
    if c.get("quant") == "w8a8c8":
        raise ValueError("quant: w8a8c8 with DSA: an int8 latent cache is kv-quant sparse attention's packed "
                         "656-byte rows, which the decoder does not write (w8a8 keeps a bf16 cache)")
    if c.get("indexer_rope", "half") not in ("half", "interleave"):
        raise ValueError(f"config['indexer_rope']: expected \"half\" or \"interleave\", got {c['indexer_rope']!r}")


def selection(g, w, c, block, x, c_q, ins, index_cache):
    """(mask, updated index cache): the indexer of one attention block (module doc); mask is
    (B, S, T) i1, True at the keys the attention must not see (not selected)."""
    b, s = c["batch"], c["seq"]
    h, d, dr = c["index_n_heads"], c["index_head_dim"], c["qk_rope_head_dim"]
    a, tag = block.attention + INDEXER, block.tag + "_idx"
    rope_mode = {} if c.get("indexer_rope", "half") == "interleave" else {"mode": "half"}

    def linear(v, key, out="bf16", name=""):
        wt = g.op(Transpose, x=w(a + key + ".weight"), permutation=[1, 0], name=f"{name}_wt")
        return g.op(Matmul, x=v, w=wt, name=name, result={"y": TensorInfo(v.shape[:-1] + wt.shape[1:], out)})

    def rope_first(v, cos, sin, name):
        """v with RoPE on its first Dr values of the last axis, the rest as they are."""
        shape = v.shape
        rot = g.extract_slice(v, (0,) * len(shape), shape[:-1] + (dr,), f"{name}_rot")
        rest = g.extract_slice(v, (0,) * (len(shape) - 1) + (dr,), shape[:-1] + (d - dr,), f"{name}_pass")
        rot = g.op(Rope, x=rot, cos=cos, sin=sin, **rope_mode, name=f"{name}_rope", result={"y": rot.type})
        return g.concat([rot, rest], len(shape) - 1, f"{name}_cat")

    if c_q.dtype != "bf16":                     # w8a8: the float32 latent, as bf16 (transformers' q_resid)
        c_q = g.cast(c_q, "bf16", f"{tag}_c_q")
    q = g.reshape(linear(c_q, "wq_b", name=f"{tag}_q"), (b, s, h, d), f"{tag}_q_heads")
    q = rope_first(q, ins["cos_heads"], ins["sin_heads"], f"{tag}_q")
    k = g.op(LayerNorm, x=linear(x, "wk", name=f"{tag}_k"), gamma=w(a + "k_norm.weight"), beta=w(a + "k_norm.bias"),
             epsilon=K_NORM_EPS, name=f"{tag}_k_norm")
    k = rope_first(k, ins["cos"], ins["sin"], f"{tag}_k")
    index_cache = g.op(ScatterCache, cache=index_cache, slot_mapping=ins["slots"],
                       update=g.reshape(k, (b, s, 1, d), f"{tag}_k_rows"), cache_mode="PA_BSND",
                       name=f"{tag}_cache")
    weights = linear(x, "weights_proj", "f32", f"{tag}_w")
    weights = g.op(Mul, x=weights, y=g.constant(h ** -0.5, TensorInfo((1,), "f32"), f"{tag}_w_scale"),
                   name=f"{tag}_weights")
    # the scores against every cached key of the row (T positions)
    keys = g.op(PagedGather, cache=index_cache, block_table=ins["block_table"], name=f"{tag}_keys")
    t = keys.shape[1]
    keys_t = g.op(Transpose, x=g.reshape(keys, (b, t, d), f"{tag}_keys3"), permutation=[0, 2, 1], name=f"{tag}_keys_t")
    scores = g.op(BatchMatmul, x=g.cast(g.reshape(q, (b, s * h, d), f"{tag}_q3"), "f32", f"{tag}_q_f32"),
                  y=g.cast(keys_t, "f32", f"{tag}_keys_f32"), name=f"{tag}_scores")
    scores = g.op(Mul, x=scores, y=g.constant(d ** -0.5, TensorInfo((1,), "f32"), f"{tag}_score_scale"),
                  name=f"{tag}_scaled")
    relu = g.op(Relu, x=scores, name=f"{tag}_relu")
    index = g.op(BatchMatmul, x=g.reshape(weights, (b * s, 1, h), f"{tag}_w3"),
                 y=g.reshape(relu, (b * s, h, t), f"{tag}_relu3"), name=f"{tag}_index")
    index = g.reshape(index, (b, s, t), f"{tag}_index3")
    future = g.op(LengthMask, seq_lengths=ins["lengths"], name=f"{tag}_causal",
                  result={"mask": TensorInfo((b, s, t), "i1")})
    index = g.op(MaskedFill, x=index, mask=future, value=float("-inf"), name=f"{tag}_masked")
    _, chosen = g.op(TopK, x=index, k=min(c["index_topk"], t), name=f"{tag}_top_k")
    mask = g.op(IndexMask, indices=chosen, name=f"{tag}_selection", result={"mask": TensorInfo((b, s, t), "i1")})
    return mask, index_cache

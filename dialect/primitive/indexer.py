"""Primitive ops of DeepSeek Sparse Attention's indexer and token selection, as transformers'
DeepseekV32Indexer / GlmMoeDsaIndexer writes them (fuse-sparse-attention makes
mla.lightning_indexer and mla.sparse_flash_attention of them; docs/dsa.md):

    k = LayerNorm(x @ wk)                                   mla.layer_norm
    scores = relu(q.float() @ k.float()^T * d^-0.5)         mla.batch_matmul, mla.mul, mla.relu
    index = weights.float() @ scores                        mla.batch_matmul (per token: (1, H) @ (H, T))
    index = index masked where key j is in row i's future   mla.masked_fill(mla.length_mask)
    top-k                                                   mla.top_k
    attention mask = True where a key is not selected       mla.index_mask -> paged_attention(atten_mask)

The indexer's keys live in a paged cache; mla.paged_gather reads a batch's blocks as one dense
(B, T, Nkv, D) tensor (T = blocks per sequence x BlockSize), the positions the masks index.

    op                torch                                                  rule IDs
    mla.layer_norm    nn.LayerNorm (weight and bias)                         LN-
    mla.relu          torch.relu                                             RELU-
    mla.batch_matmul  torch.matmul of (..., M, K) and (..., K, N)            BMM-
    mla.paged_gather  cache[block_table] (a batch's blocks in order)         PG-
    mla.length_mask   the causal mask anchored at the kv lengths             LM-
    mla.masked_fill   Tensor.masked_fill                                     MF-
    mla.top_k         torch.topk(largest, sorted), ties: the lower index     TK-
    mla.index_mask    ones(...).scatter(-1, indices, False)                  IM-

Float arithmetic is float32, one rounding to the result type.
"""
from __future__ import annotations

import numpy as np

from ..opdef import OpDef, f64, i64, operand
from ..registry import MLA
from ..rules import RuleSet, dim, shape_text
from ..traits import PURE
from ..types import TensorInfo
from .checks import FLOAT_TYPES, INDEX_TYPES, broadcast, differs, dtype_in, nd_only, rank_at_least, rank_is, result_is

# --- mla.layer_norm ----------------------------------------------------------------------------
# y = (x - mean(x)) / sqrt(var(x) + epsilon) * gamma + beta over the last axis (biased
# variance), float32, one rounding (nn.LayerNorm; the indexer's k_norm, eps 1e-6).

layer_norm_rules = RuleSet()
layer_norm_rules.rule("LN-001", "x")(rank_at_least("x", 1, " (the normalised axis is the last one)"))
layer_norm_rules.rule("LN-001", "x")(dtype_in("x", FLOAT_TYPES))
for _name in ("gamma", "beta"):
    @layer_norm_rules.rule("LN-002", _name)
    def affine_shape(op, s, _name=_name):
        t = getattr(op, _name)
        if differs(t.shape, op.x.shape[-1:]) or t.dtype not in FLOAT_TYPES:
            return f"expected a float tensor ({op.x.shape[-1]},) (the last dimension of x), got {t}"
for _name in ("x", "gamma", "beta"):
    layer_norm_rules.rule("LN-003", _name)(nd_only(_name))


@layer_norm_rules.rule("LN-004", "epsilon")
def layer_norm_epsilon(op, s):
    if not 0 < op.epsilon < float("inf"):
        return f"must be a finite number > 0, got {op.epsilon}"


layer_norm_rules.rule("LN-005", "y")(result_is("y", lambda op, s: op.x.shape, FLOAT_TYPES))

LayerNorm = MLA.add(OpDef(
    "mla.layer_norm",
    traits=(PURE,),
    operands=[operand("x"), operand("gamma"), operand("beta")],
    attributes=[f64("epsilon", default=1e-5)],
    results=["y"],
    rules=layer_norm_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape, op.x.dtype)},
    summary="LayerNorm over the last axis with weight and bias, float32, one rounding",
))


# --- mla.relu ------------------------------------------------------------------------------------

relu_rules = RuleSet()
relu_rules.rule("RELU-001", "x")(dtype_in("x", FLOAT_TYPES))
relu_rules.rule("RELU-002", "x")(nd_only("x"))
relu_rules.rule("RELU-003", "y")(result_is("y", lambda op, s: op.x.shape, FLOAT_TYPES))

Relu = MLA.add(OpDef(
    "mla.relu",
    traits=(PURE,),
    operands=[operand("x")],
    results=["y"],
    rules=relu_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape, op.x.dtype)},
    summary="max(x, 0) elementwise",
))


# --- mla.batch_matmul ----------------------------------------------------------------------------
# z[..., m, n] = sum_k x[..., m, k] y[..., k, n]: the same batch dimensions on both sides (no
# broadcast), float32 accumulation, one rounding.

bmm_rules = RuleSet()
bmm_rules.rule("BMM-001", "x")(rank_at_least("x", 3, " (..., M, K)"))
bmm_rules.rule("BMM-001", "y")(rank_at_least("y", 3, " (..., K, N)"))
bmm_rules.rule("BMM-002", "x")(dtype_in("x", FLOAT_TYPES))


@bmm_rules.rule("BMM-002", "y")
def bmm_same_type(op, s):
    if op.y.dtype != op.x.dtype:
        return f"expected the element type of x ({op.x.dtype}), got {op.y.dtype}"


@bmm_rules.rule("BMM-003", "y")
def bmm_dims(op, s):
    expected = (*op.x.shape[:-2], op.x.shape[-1], op.y.shape[-1])
    if differs(op.y.shape, expected):
        return (f"expected x's batch dimensions {shape_text(op.x.shape[:-2])} and K = {op.x.shape[-1]}: "
                f"{shape_text(expected)}, got {op.y}")


bmm_rules.rule("BMM-004", "x")(nd_only("x"))
bmm_rules.rule("BMM-004", "y")(nd_only("y"))
bmm_rules.rule("BMM-005", "z")(result_is("z", lambda op, s: op.x.shape[:-1] + op.y.shape[-1:], FLOAT_TYPES))

BatchMatmul = MLA.add(OpDef(
    "mla.batch_matmul",
    traits=(PURE,),
    operands=[operand("x"), operand("y")],
    results=["z"],
    rules=bmm_rules,
    infer_results=lambda op, s: {"z": TensorInfo(op.x.shape[:-1] + op.y.shape[-1:], op.x.dtype)},
    summary="batched x @ y over equal batch dimensions, float32 accumulation, one rounding",
))


# --- mla.paged_gather ----------------------------------------------------------------------------
# y[b, m * BlockSize + o] = cache[block_table[b, m], o]: each batch's blocks in table order, as
# one dense (B, M * BlockSize, Nkv, D) tensor (logical position p of batch b at row p).

gather_rules = RuleSet()
gather_rules.rule("PG-001", "cache")(rank_is("cache", 4, " (BlockNum, BlockSize, Nkv, D)"))
gather_rules.rule("PG-002", "block_table")(rank_is("block_table", 2, " (B, blocks per sequence)"))
gather_rules.rule("PG-002", "block_table")(dtype_in("block_table", ("i32",)))
gather_rules.rule("PG-003", "cache")(nd_only("cache"))
gather_rules.rule("PG-003", "block_table")(nd_only("block_table"))


def _gathered(op, s) -> tuple:
    b, m = op.block_table.shape
    return (b, None if m is None or op.cache.shape[1] is None else m * op.cache.shape[1], *op.cache.shape[2:])


gather_rules.rule("PG-004", "y")(result_is("y", _gathered, dtype_of=lambda op: op.cache.dtype))


@gather_rules.rule("PG-005", "block_table", kind="runtime")
def gather_blocks_in_range(op, s):
    table = op.block_table.value
    if table is None:
        return None
    blocks = op.cache.shape[0]
    bad = np.argwhere((table < 0) | (table >= blocks))
    if bad.size:
        b, j = (int(v) for v in bad[0])
        return f"block_table[{b}, {j}] = {int(table[b, j])} is not a block of the cache (0 <= id < {blocks})"


PagedGather = MLA.add(OpDef(
    "mla.paged_gather",
    traits=(PURE,),
    operands=[operand("cache"), operand("block_table")],
    results=["y"],
    rules=gather_rules,
    infer_results=lambda op, s: {"y": TensorInfo(_gathered(op, s), op.cache.dtype)},
    summary="a paged cache's blocks of each sequence, in block-table order, as one dense tensor",
))


# --- mla.length_mask -----------------------------------------------------------------------------
# mask[b, i, j] = j > seq_lengths[b] - S + i: query row i of batch b sits at position
# seq_lengths[b] - S + i (the last S positions) and does not see the keys after it. S and T come
# from the result type (B, S, T); True means masked (as mla.causal_mask).

length_rules = RuleSet()


@length_rules.rule("LM-001", "seq_lengths")
def lengths_type(op, s):
    t = op.seq_lengths
    if t.rank != 1 or t.dtype not in INDEX_TYPES:
        return f"expected a 1-D i32 or i64 tensor (B,), got {t}"


length_rules.rule("LM-002", "seq_lengths")(nd_only("seq_lengths"))


@length_rules.rule("LM-003", "mask")
def length_mask_type(op, s):
    t = op.mask
    if t.rank != 3 or t.dtype != "i1" or differs(t.shape[:1], op.seq_lengths.shape) or None in t.shape[1:]:
        return f"expected an i1 tensor (B, S, T) with B = {op.seq_lengths.shape[0]} and static S, T, got {t}"


LengthMask = MLA.add(OpDef(
    "mla.length_mask",
    traits=(PURE,),
    operands=[operand("seq_lengths")],
    results=["mask"],
    rules=length_rules,
    summary="the causal mask of the last S positions of each sequence (True: a future key)",
))


# --- mla.masked_fill -----------------------------------------------------------------------------

fill_rules = RuleSet()
fill_rules.rule("MF-001", "x")(dtype_in("x", FLOAT_TYPES))


@fill_rules.rule("MF-002", "mask")
def fill_mask(op, s):
    if op.mask.dtype != "i1" or broadcast(op.mask.shape, op.x.shape) != tuple(op.x.shape):
        return f"expected an i1 tensor that broadcasts to x {shape_text(op.x.shape)}, got {op.mask}"


fill_rules.rule("MF-003", "x")(nd_only("x"))
fill_rules.rule("MF-003", "mask")(nd_only("mask"))
fill_rules.rule("MF-004", "y")(result_is("y", lambda op, s: op.x.shape, dtype_of=lambda op: op.x.dtype))

MaskedFill = MLA.add(OpDef(
    "mla.masked_fill",
    traits=(PURE,),
    operands=[operand("x"), operand("mask")],
    attributes=[f64("value")],
    results=["y"],
    rules=fill_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape, op.x.dtype)},
    summary="value where mask is true, x elsewhere",
))


# --- mla.top_k -------------------------------------------------------------------------------------
# The k largest entries along the last axis, in descending order; equal values keep the lower
# index first (a stable sort: the lightning indexer's documented tie order). indices are i64
# (torch.topk's and aclnnTopk's).

topk_rules = RuleSet()
topk_rules.rule("TK-001", "x")(rank_at_least("x", 1))
topk_rules.rule("TK-001", "x")(dtype_in("x", FLOAT_TYPES))
topk_rules.rule("TK-002", "x")(nd_only("x"))


@topk_rules.rule("TK-003", "k")
def topk_k(op, s):
    if not 1 <= op.k <= dim(op.x, -1):
        return f"expected 1 <= k <= {op.x.shape[-1]} (the last dimension of x), got {op.k}"


topk_rules.rule("TK-004", "values")(result_is("values", lambda op, s: op.x.shape[:-1] + (op.k,),
                                              dtype_of=lambda op: op.x.dtype))
topk_rules.rule("TK-004", "indices")(result_is("indices", lambda op, s: op.x.shape[:-1] + (op.k,), ("i64",)))

TopK = MLA.add(OpDef(
    "mla.top_k",
    traits=(PURE,),
    operands=[operand("x")],
    attributes=[i64("k")],
    results=["values", "indices"],
    rules=topk_rules,
    infer_results=lambda op, s: {"values": TensorInfo(op.x.shape[:-1] + (op.k,), op.x.dtype),
                                 "indices": TensorInfo(op.x.shape[:-1] + (op.k,), "i64")},
    summary="the k largest entries of the last axis, descending, ties: the lower index first",
))


# --- mla.index_mask ----------------------------------------------------------------------------------
# mask[..., j] = j is not among indices[..., :]: True at every position the selection leaves out
# (the attention's mask of the unselected keys); a negative index (the indexer's -1 padding)
# selects nothing. T comes from the result type.

index_rules = RuleSet()
index_rules.rule("IM-001", "indices")(dtype_in("indices", INDEX_TYPES))
index_rules.rule("IM-001", "indices")(rank_at_least("indices", 1))
index_rules.rule("IM-002", "indices")(nd_only("indices"))


@index_rules.rule("IM-003", "mask")
def index_mask_type(op, s):
    t = op.mask
    if t.dtype != "i1" or t.rank != op.indices.rank or differs(t.shape[:-1], op.indices.shape[:-1]) \
            or t.shape[-1] is None:
        return f"expected an i1 tensor of indices' shape with a static last dimension T, got {t}"


@index_rules.rule("IM-004", "indices", kind="runtime")
def index_mask_in_range(op, s):
    data = op.indices.value
    if data is None:
        return None
    t = op.mask.shape[-1]
    if data.size and data.max() >= t:
        return f"expected indices < T = {t} (negative ones select nothing), got {int(data.max())}"


IndexMask = MLA.add(OpDef(
    "mla.index_mask",
    traits=(PURE,),
    operands=[operand("indices")],
    results=["mask"],
    rules=index_rules,
    summary="True at every position of the last axis the indices do not name",
))

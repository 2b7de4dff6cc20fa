"""`mla.lightning_indexer` (aclnnLightningIndexer, torch_npu.npu_lightning_indexer) and
`mla.quant_lightning_indexer` (aclnnQuantLightningIndexer): DeepSeek Sparse Attention's
token selection. For each query token, the positions of the `sparse_count` visible context
tokens with the highest index score

    score[j] = sum_h w[b,i,h] * max(0, q[b,i,h,:] . k[b,j,n2,:])          (fp32)
    visible(i) = { j < act_k }                        sparse_mode 0
               = { j <= act_k - act_q + i }           sparse_mode 3 (right-down causal)

padded with -1 (docs/dsa.md; the kernel is runtime/kernels/dsa_indexer.py).

    "mla.lightning_indexer"(query, key, weights, [actual_seq_lengths_query],
                            [actual_seq_lengths_key], [block_table])
        {[layout_query = "BSND"], [layout_key = "BSND"], [sparse_count = 2048],
         [sparse_mode = 3], [pre_tokens = 2^63-1], [next_tokens = 2^63-1], [return_value = false]}
        -> (sparse_indices, sparse_values)

sparse_values is the score of each selected index in the query's type (-inf at -1) when
return_value is set, else an empty (0,) tensor of the query's type (what torch_npu returns).

Rule IDs are the DSA reference's (LI-01 .. LI-18, QLI-01 .. QLI-04); LI-19/LI-20 and QLI-05 ..
QLI-09 number what its tables state outside the numbered list (output types and shapes, the
quant modes, the quant variant's ranges); LI-X01 (ND formats) and LI-X02 (block-table entries
name blocks of the cache) are not in the sources: what the CPU kernel must be able to rely on.

Profiles, where the sources disagree between CANN releases:
  ACLNN     the aclnn and torch_npu documents of 2026 (the default: IR is verified with it):
            sparse_count in [1, 2048] or one of 3072 .. 8192, N1 <= 64, fp32 weights allowed;
  PT        the eager call, torch_npu's wrapper on top of ACLNN: no empty query/key (LI-17);
  CANN2512  the 2025-12 tiling code and README: sparse_count <= 2048, N1 = 64 only, weights of
            the query's type (no fp32).
A module attribute `mla.profile = "CANN2512"` checks IR against the older release.
"""
from __future__ import annotations

import numpy as np

from ..opdef import OpDef, i1, i64, operand, optional, string
from ..registry import MLA
from ..rules import RuleSet, waive
from ..traits import PURE
from ..types import TensorInfo
from . import common as C

ACLNN, PT, CANN2512 = "ACLNN", "PT", "CANN2512"
NEWEST = (ACLNN, PT)
HEAD_DIM = 128
MAX_N1 = 64
SPARSE_COUNTS_2026 = (3072, 4096, 5120, 6144, 7168, 8192)
MAX_SPARSE_COUNT = 2048

NAMES = C.Names(key="key", layout_kv="layout_key", lengths_kv="actual_seq_lengths_key")
SYMBOLS = C.symbols(NAMES)


def _indices_shape(op, s) -> tuple:
    """(B, S1, N2, sparse_count) for a BSND query, (T1, N2, sparse_count) for TND."""
    rows = op.query.shape[:1] if op.layout_query == "TND" else op.query.shape[:2]
    return (*rows, op.key.shape[-2], op.sparse_count)


def _common_rules(rules: RuleSet, *, quant: bool):
    """The layout, length, paging and mode rules both indexers have (QLI-04: LI-06 .. LI-13)."""
    C.layout_rules(rules, NAMES, "LI-07")
    C.nd_rule(rules, "LI-X01", ("query", "key", "weights", "actual_seq_lengths_query",
                                "actual_seq_lengths_key", "block_table")
              + (("query_dequant_scale", "key_dequant_scale") if quant else ()))


# =============================================================================================
# mla.lightning_indexer
# =============================================================================================

rules = RuleSet()
rule = rules.rule
_common_rules(rules, quant=False)


@rule("LI-01", "query")
def query_dtype(op, s):
    if op.query.dtype not in C.FLOATS:
        return f"expected element type f16 or bf16, got {op.query.dtype}"


C.same_dtype_rule(rules, "LI-01", "key", "query")


@rule("LI-02", "weights", profiles=NEWEST)
def weights_dtype(op, s):
    if op.weights.dtype not in (op.query.dtype, "f32"):
        return f"expected the element type of query ({op.query.dtype}) or f32, got {op.weights.dtype}"


@rule("LI-02", "weights", profiles=CANN2512)
def weights_dtype_2512(op, s):
    """The 2025-12 tiling code: weights of the query's element type (no fp32)."""
    if op.weights.dtype != op.query.dtype:
        return (f"expected the element type of query ({op.query.dtype}) (CANN 2025-12: no f32 "
                f"weights), got {op.weights.dtype}")


C.not_empty_rule(rules, "LI-17", ("query", "key"), profiles=PT)


@rule("LI-03", "query")
def query_head_dim(op, s):
    if s.D != HEAD_DIM:
        return f"expected head dim D = {HEAD_DIM} (last dimension), got {s.D}"


@rule("LI-03", "key")
def key_head_dim(op, s):
    if s.D_kv != HEAD_DIM:
        return f"expected head dim D = {HEAD_DIM} (last dimension), got {s.D_kv}"


@rule("LI-04", "key")
def key_heads(op, s):
    if s.N2 != 1:
        return f"expected N2 = 1 key head (dimension -2), got {s.N2}"


@rule("LI-05", "query", profiles=NEWEST)
def query_heads(op, s):
    if not 1 <= s.N1 <= MAX_N1:
        return f"expected N1 in [1, {MAX_N1}] query heads (dimension -2), got {s.N1}"


@rule("LI-05", "query", profiles=CANN2512)
def query_heads_2512(op, s):
    """The 2025-12 README: N1 = 64 only."""
    if s.N1 != MAX_N1:
        return f"expected N1 = {MAX_N1} query heads (CANN 2025-12), got {s.N1}"


C.block_rules(rules, NAMES, "LI-06")
C.length_presence_rules(rules, NAMES, "LI-08", "LI-09")
C.block_table_rules(rules, NAMES, "LI-10")
C.batch_consistency_rules(rules, NAMES, "LI-15")


@rule("LI-15", "weights")
def weights_shape(op, s):
    expected = (*s.query_rows, s.N1)
    if C.differs(op.weights.shape, expected):
        return f"expected the query's {'(T1, N1)' if s.tnd else '(B, S1, N1)'} = {C.expected_shape_text(expected)}, got {op.weights}"


@rule("LI-11", "sparse_count", profiles=NEWEST)
def sparse_count(op, s):
    k = op.sparse_count
    if not (1 <= k <= MAX_SPARSE_COUNT or k in SPARSE_COUNTS_2026):
        return (f"expected a value in [1, {MAX_SPARSE_COUNT}] or one of "
                f"{C.one_of(SPARSE_COUNTS_2026)}, got {k}")


@rule("LI-11", "sparse_count", profiles=CANN2512)
def sparse_count_2512(op, s):
    """The 2025-12 tiling code: sparse_count in (0, 2048]."""
    if not 1 <= op.sparse_count <= MAX_SPARSE_COUNT:
        return f"expected a value in [1, {MAX_SPARSE_COUNT}] (CANN 2025-12), got {op.sparse_count}"


C.sparse_mode_rule(rules, "LI-12")
C.tokens_rule(rules, "LI-13", "pre_tokens")


@rule("LI-14", "return_value")
def return_value_paged(op, s):
    if op.return_value and s.paged:
        return "must be false with layout_key PA_BSND (the values are a training-only output)"


@rule("LI-19", "sparse_indices")
def indices_type(op, s):
    expected = _indices_shape(op, s)
    t = op.sparse_indices
    if t.dtype != "i32" or C.differs(t.shape, expected):
        form = "(T1, N2, sparse_count)" if s.tnd else "(B, S1, N2, sparse_count)"
        return f"expected an i32 tensor {form} = {C.expected_shape_text(expected)}, got {t}"


@rule("LI-20", "sparse_values")
def values_type(op, s):
    expected = _indices_shape(op, s) if op.return_value else (0,)
    t = op.sparse_values
    if t.dtype != op.query.dtype or C.differs(t.shape, expected):
        what = "the shape of sparse_indices" if op.return_value else "an empty (0,) tensor without return_value"
        return (f"expected a {op.query.dtype} tensor (the query's type), {what} = "
                f"{C.expected_shape_text(expected)}, got {t}")


C.length_value_rules(rules, NAMES, "LI-08", "LI-09", "LI-10", "LI-X02")
C.contiguous_rule(rules, "LI-16", ("query", "weights", "key"))

waive("LI-18", "graph-mode support (torchair's GE converter) is a statement about torch_npu, not "
               "a constraint on a call")


def _infer_indexer(op, s) -> dict:
    shape = _indices_shape(op, s)
    return {"sparse_indices": TensorInfo(shape, "i32"),
            "sparse_values": TensorInfo(shape if op.return_value else (0,), op.query.dtype)}


LENGTH_OPERANDS = [optional("actual_seq_lengths_query"), optional("actual_seq_lengths_key"),
                   optional("block_table")]
TOKENS = [i64("pre_tokens", default=C.INT64_MAX), i64("next_tokens", default=C.INT64_MAX)]

LightningIndexer = MLA.add(OpDef(
    "mla.lightning_indexer",
    traits=(PURE,),
    operands=[operand("query"), operand("key"), operand("weights"), *LENGTH_OPERANDS],
    attributes=[string("layout_query", default="BSND"), string("layout_key", default="BSND"),
                i64("sparse_count", default=2048), i64("sparse_mode", default=3), *TOKENS,
                i1("return_value", default=False)],
    results=["sparse_indices", "sparse_values"],
    rules=rules,
    symbols=SYMBOLS,
    infer_results=_infer_indexer,
    profiles=(ACLNN, PT, CANN2512),
    summary="DSA lightning indexer: per query token the top-k visible tokens by ReLU-weighted "
            "index score (aclnnLightningIndexer)",
))


# =============================================================================================
# mla.quant_lightning_indexer
# =============================================================================================
# The same selection over int8 q and k with per-(token, head) dequant scales:
#   score[j] = sum_h fp16(w_h * sq_h) * relu(q8 . k8) * sk_j     (int32 products, fp32 sums)
# A2/A3 (QLI-01): int8 q/k, fp16 weights and scales. Ascend 950's fp8 / hifloat8 forms
# (QLI-02) are not modelled: the compiler targets A2/A3.

quant_rules = RuleSet()
qrule = quant_rules.rule
_common_rules(quant_rules, quant=True)


@qrule("QLI-01", "query")
def quant_query_dtype(op, s):
    if op.query.dtype != "i8":
        return f"expected element type i8 (Atlas A2/A3), got {op.query.dtype}"


C.same_dtype_rule(quant_rules, "QLI-01", "key", "query")
for _name in ("weights", "query_dequant_scale", "key_dequant_scale"):
    C.dtype_rule(quant_rules, "QLI-01", _name, ("f16",))


@qrule("QLI-05", "query_quant_mode")
def query_quant_mode(op, s):
    if op.query_quant_mode != 0:
        return f"expected 0 (per token and head), got {op.query_quant_mode}"


@qrule("QLI-05", "key_quant_mode")
def key_quant_mode(op, s):
    if op.key_quant_mode != 0:
        return f"expected 0 (per token and head), got {op.key_quant_mode}"


for _name in ("query_dtype", "key_dtype"):
    @qrule("QLI-08", _name)
    def hifloat_dtype(op, s, _name=_name):
        if getattr(op, _name) is not None:
            return (f"must be absent on Atlas A2/A3 (it names hifloat8 travelling as uint8, an "
                    f"Ascend 950 form), got {getattr(op, _name)}")


@qrule("QLI-06", "query")
def quant_query_shape(op, s):
    if s.D != HEAD_DIM or not 1 <= s.N1 <= MAX_N1:
        return f"expected N1 in [1, {MAX_N1}] heads of D = {HEAD_DIM}, got {op.query}"


@qrule("QLI-06", "key")
def quant_key_shape(op, s):
    if s.D_kv != HEAD_DIM or s.N2 != 1:
        return f"expected N2 = 1 head of D = {HEAD_DIM} (the last two dimensions), got {op.key}"


C.block_rules(quant_rules, NAMES, "LI-06")
C.length_presence_rules(quant_rules, NAMES, "LI-08", "LI-09")
C.block_table_rules(quant_rules, NAMES, "LI-10")
C.batch_consistency_rules(quant_rules, NAMES, "QLI-06")


for _name in ("weights", "query_dequant_scale"):
    @qrule("QLI-06", _name)
    def per_query_head(op, s, _name=_name):
        expected = (*s.query_rows, s.N1)
        t = getattr(op, _name)
        if C.differs(t.shape, expected):
            return f"expected the query's {'(T1, N1)' if s.tnd else '(B, S1, N1)'} = {C.expected_shape_text(expected)}, got {t}"


@qrule("QLI-06", "key_dequant_scale")
def key_scale_shape(op, s):
    expected = op.key.shape[:-1]
    if C.differs(op.key_dequant_scale.shape, expected):
        return f"expected the key's shape without D = {C.expected_shape_text(expected)}, got {op.key_dequant_scale}"


@qrule("QLI-07", "sparse_count")
def quant_sparse_count(op, s):
    if not 1 <= op.sparse_count <= MAX_SPARSE_COUNT:
        return f"expected a value in [1, {MAX_SPARSE_COUNT}], got {op.sparse_count}"


C.sparse_mode_rule(quant_rules, "LI-12")
C.tokens_rule(quant_rules, "LI-13", "pre_tokens")


@qrule("QLI-09", "sparse_indices")
def quant_indices_type(op, s):
    expected = _indices_shape(op, s)
    t = op.sparse_indices
    if t.dtype != "i32" or C.differs(t.shape, expected):
        form = "(T1, N2, sparse_count)" if s.tnd else "(B, S1, N2, sparse_count)"
        return f"expected an i32 tensor {form} = {C.expected_shape_text(expected)}, got {t}"


C.length_value_rules(quant_rules, NAMES, "LI-08", "LI-09", "LI-10", "LI-X02")
C.contiguous_rule(quant_rules, "QLI-03", ("query", "weights", "query_dequant_scale"))


for _name in ("key", "key_dequant_scale"):
    @qrule("QLI-03", _name, kind="runtime")
    def inner_contiguous(op, s, _name=_name):
        """key and key_dequant_scale may be strided in axis 0 with PA_BSND; every other axis is
        contiguous."""
        data = getattr(op, _name).value
        if data is None or data.flags.c_contiguous:
            return None
        inner_ok = s.paged and data[0:1].flags.c_contiguous if data.shape[0] else False
        if not inner_ok:
            return (f"expected a contiguous tensor{' (or strided in axis 0 only, with PA_BSND)' if s.paged else ''}, "
                    f"got strides {data.strides}")


@qrule("QLI-10", "weights", kind="runtime")
def weights_times_scale_fit_fp16(op, s):
    """w * query_dequant_scale must fit in fp16 (the kernel casts the product to FP16)."""
    w, sq = op.weights.value, op.query_dequant_scale.value
    if w is None or sq is None:
        return None
    product = np.abs(np.asarray(w, np.float32) * np.asarray(sq, np.float32))
    too_large = ~(product <= 65504)          # NaN and inf too
    if too_large.any():
        return f"expected |weights * query_dequant_scale| <= 65504 (fp16), got {float(product[too_large].flat[0])}"


waive("QLI-02", "Ascend 950's fp8 / hifloat8 dtype combinations: the compiler targets Atlas A2/A3, "
                "where QLI-01 allows only int8 q/k with fp16 weights and scales")
waive("QLI-04", "the layout, length, block-table and sparse_mode rules of the indexer apply: "
                "registered on this op under their own IDs (LI-06 .. LI-13)")


QuantLightningIndexer = MLA.add(OpDef(
    "mla.quant_lightning_indexer",
    traits=(PURE,),
    operands=[operand("query"), operand("key"), operand("weights"), operand("query_dequant_scale"),
              operand("key_dequant_scale"), *LENGTH_OPERANDS],
    attributes=[i64("query_quant_mode"), i64("key_quant_mode"),
                string("layout_query", default="BSND"), string("layout_key", default="BSND"),
                i64("sparse_count", default=2048), i64("sparse_mode", default=3), *TOKENS,
                i64("query_dtype", default=None), i64("key_dtype", default=None)],
    results=["sparse_indices"],
    rules=quant_rules,
    symbols=SYMBOLS,
    infer_results=lambda op, s: {"sparse_indices": TensorInfo(_indices_shape(op, s), "i32")},
    summary="DSA lightning indexer over int8 q/k with per-token-head dequant scales "
            "(aclnnQuantLightningIndexer)",
))

"""`mla.sparse_flash_attention` (aclnnSparseFlashAttention, V2 with `sinks`;
torch_npu.npu_sparse_flash_attention) and `mla.kv_quant_sparse_flash_attention`
(aclnnKvQuantSparseFlashAttention): MLA-absorbed attention over only the kv positions the
lightning indexer selected (docs/dsa.md; kernels in runtime/kernels/dsa_attention.py).

With attention_mode 2 (the only one): Q = [query | query_rope] (512 + 64), K = [key | key_rope],
V = key. For query row i of batch b, t = act_kv (sparse_mode 0) or act_kv - act_q + i + 1
(mode 3); the first min(sparse_size, ceil(t / sparse_block_size)) entries of the row's
sparse_indices name blocks of sparse_block_size tokens, read up to the first -1 and clipped at
t; softmax in fp32 (plus exp(sinks_h - m) in the denominator with sinks), P rounded to the
query's type before P.V.

    "mla.sparse_flash_attention"(query, key, value, sparse_indices, [block_table],
        [actual_seq_lengths_query], [actual_seq_lengths_kv], [query_rope], [key_rope], [sinks])
        {scale_value, [sparse_block_size = 1], [layout_query = "BSND"], [layout_kv = "BSND"],
         [sparse_mode = 3], [pre_tokens], [next_tokens], [attention_mode = 0],
         [return_softmax_lse = false]}
        -> (attention_out, softmax_max, softmax_sum)

    "mla.kv_quant_sparse_flash_attention"(query, key, value, sparse_indices, [key_dequant_scale],
        [value_dequant_scale], [block_table], [actual_seq_lengths_query], [actual_seq_lengths_kv],
        [sinks])
        {scale_value, key_quant_mode, value_quant_mode, [sparse_block_size = 1], [layout_query],
         [layout_kv], [sparse_mode = 3], [pre_tokens], [next_tokens], [attention_mode = 0],
         [quant_scale_repo_mode = 1], [tile_size = 128], [rope_head_dim = 64], [key_dtype],
         [value_dtype]}
        -> (attention_out)

The quantized form's key rows are 656 bytes: 512 int8 latent values, the 64 bf16 rope values
(128 bytes) and four fp32 scales (one per 128-value tile); query is [q_nope | q_rope] (576).

softmax_max / softmax_sum are (B, N2, S1, G) (TND: (N2, T1, G)) f32 with return_softmax_lse, an
empty (0,) f32 tensor otherwise (torch_npu's).

Rule IDs: the DSA reference's SFA-01 .. SFA-15, KQSFA-01 .. KQSFA-06; SFA-16 / SFA-17 and
KQSFA-07 .. KQSFA-14 number what its tables state outside the numbered lists (output types
and shapes, the quant variant's fixed parameters); SFA-X01 (ND formats), SFA-X02 (the rope
parts' shapes) and SFA-X03 (block-table entries name blocks) are what the kernel relies on.

Profiles (Ascend products; both documents are the 2026 ones):
  ACLNN      Atlas A2/A3, the aclnn document (IR's default);
  PT         the eager call on A2/A3 (torch_npu's document: the same rules);
  ASCEND950  Ascend 950: `sinks` allowed (SFA-14), sparse_block_size 1 only, any N1 in 1..128,
             key/value strided in axis 0 with PA_BSND; KQSFA: Q_N 48, sinks.
`module attributes {mla.profile = "ASCEND950"}` checks IR for that product; an eager call takes it from
`ascend_mla.eager.profile("ASCEND950")`.
"""
from __future__ import annotations

import numpy as np

from ..opdef import OpDef, f64, i1, i64, operand, optional, string
from ..registry import MLA
from ..rules import RuleSet, dim, waive
from ..traits import PURE
from ..types import TensorInfo
from . import common as C

ACLNN, PT, ASCEND950 = "ACLNN", "PT", "ASCEND950"
A3 = (ACLNN, PT)
D_LATENT, D_ROPE = 512, 64
D_QUANT_QUERY, D_QUANT_KEY = 576, 656
HEADS_A3 = (1, 2, 4, 8, 16, 32, 64, 128)
QUANT_HEADS = (1, 2, 4, 8, 16, 32, 48, 64, 128)
MAX_HEADS = 128

NAMES = C.Names(key="key", layout_kv="layout_kv", lengths_kv="actual_seq_lengths_kv")
SYMBOLS = {**C.symbols(NAMES), "G": lambda op, s: s.N1 // s.N2}


def _lse_shape(op, s) -> tuple:
    n2 = op.key.shape[-2]
    g = None if None in (op.query.shape[-2], n2) or not n2 else op.query.shape[-2] // n2
    if op.layout_query == "TND":
        return (n2, op.query.shape[0], g)
    return (op.query.shape[0], n2, op.query.shape[1], g)


def _out_shape(op, s, d=D_LATENT) -> tuple:
    return (*op.query.shape[:-1], d)


# --- the rules both ops share: layouts, paging, lengths, indices, modes -----------------------

def _shared_rules(rules: RuleSet, *, quant: bool):
    C.layout_rules(rules, NAMES, "SFA-05")
    C.nd_rule(rules, "SFA-X01", ("query", "key", "value", "sparse_indices", "block_table",
                                 "actual_seq_lengths_query", "actual_seq_lengths_kv")
              + (() if quant else ("query_rope", "key_rope", "sinks")))


def _paging_rules(rules: RuleSet, max_sparse_block: int, sparse_block_id: str):
    C.block_rules(rules, NAMES, "SFA-06")

    @rules.rule("SFA-06", "sparse_block_size")
    def divides_block_size(op, s):
        if s.paged and op.sparse_block_size >= 1 and s.block_size % op.sparse_block_size:
            return (f"expected a divisor of block_size ({s.block_size}) under page attention, "
                    f"got {op.sparse_block_size}")

    @rules.rule(sparse_block_id, "sparse_block_size", profiles=A3)
    def sparse_block_size(op, s):
        sbs = op.sparse_block_size
        if not (1 <= sbs <= max_sparse_block and sbs & (sbs - 1) == 0):
            return f"expected a power of 2 in [1, {max_sparse_block}] (Atlas A2/A3), got {sbs}"

    @rules.rule(sparse_block_id, "sparse_block_size", profiles=ASCEND950)
    def sparse_block_size_950(op, s):
        """Ascend 950: sparse_block_size 1 only."""
        if op.sparse_block_size != 1:
            return f"expected 1 (Ascend 950), got {op.sparse_block_size}"

    C.length_presence_rules(rules, NAMES, "SFA-09", "SFA-09")
    C.block_table_rules(rules, NAMES, "SFA-06")
    C.batch_consistency_rules(rules, NAMES, "SFA-09")


def _indices_rules(rules: RuleSet):
    @rules.rule("SFA-10", "sparse_indices")
    def indices_shape(op, s):
        t = op.sparse_indices
        if t.dtype != "i32":
            return f"expected element type i32, got {t.dtype}"
        rows = s.query_rows
        expected = (*rows, s.N2, t.shape[-1] if t.rank else None)
        if t.rank != len(rows) + 2 or C.differs(t.shape, expected):
            form = "(T1, N2, sparse_size)" if s.tnd else "(B, S1, N2, sparse_size)"
            return f"expected {form} with {'T1' if s.tnd else '(B, S1)'} of the query and N2 = {s.N2}, got {t}"
        if t.shape[-1] == 0:
            return "expected sparse_size (the last dimension) > 0, got 0"

    @rules.rule("SFA-10", "sparse_indices", kind="runtime")
    def indices_values(op, s):
        """Each row holds its valid entries (>= 0) first, then -1."""
        data = op.sparse_indices.value
        if data is None:
            return None
        rows = np.asarray(data).reshape(-1, data.shape[-1])
        if (rows < -1).any():
            bad = np.argwhere(rows < -1)[0]
            return f"expected entries >= -1, got {int(rows[tuple(bad)])} in row {int(bad[0])}"
        valid = rows >= 0
        after = np.cumsum(~valid, axis=1) > 0          # at or after the first -1
        late = valid & after
        if late.any():
            r, c = (int(v) for v in np.argwhere(late)[0])
            return (f"expected the valid entries of a row first, then -1: row {r} has {int(rows[r, c])} "
                    f"at {c} after a -1")

    C.sparse_mode_rule(rules, "SFA-08")
    C.tokens_rule(rules, "SFA-08", "pre_tokens")


def _attention_mode_rule(rules: RuleSet, rule_id: str):
    @rules.rule(rule_id, "attention_mode")
    def attention_mode(op, s):
        if op.attention_mode != 2:
            return f"expected 2 (MLA absorb: value = the latent key; the only mode), got {op.attention_mode}"


# =============================================================================================
# mla.sparse_flash_attention
# =============================================================================================

rules = RuleSet()
rule = rules.rule
_shared_rules(rules, quant=False)
_attention_mode_rule(rules, "SFA-01")


@rule("SFA-01", "query_rope")
def rope_pair(op, s):
    if op.query_rope is None or op.key_rope is None:
        missing = " and ".join(n for n in ("query_rope", "key_rope") if getattr(op, n) is None)
        return f"query_rope and key_rope are required with attention_mode 2 (MLA), got no {missing}"


@rule("SFA-02", "query")
def sfa_query_dtype(op, s):
    if op.query.dtype not in C.FLOATS:
        return f"expected element type f16 or bf16, got {op.query.dtype}"


for _name in ("key", "value", "query_rope", "key_rope"):
    C.same_dtype_rule(rules, "SFA-02", _name, "query")


@rule("SFA-03", "query")
def sfa_query_d(op, s):
    if s.D != D_LATENT:
        return f"expected head dim D = {D_LATENT} (the latent; last dimension), got {s.D}"


@rule("SFA-03", "key")
def sfa_key_d(op, s):
    if s.D_kv != D_LATENT:
        return f"expected head dim D = {D_LATENT} (the latent; last dimension), got {s.D_kv}"


@rule("SFA-03", "value")
def sfa_value_shape(op, s):
    if C.differs(op.value.shape, op.key.shape):
        return f"expected the key's shape {op.key} (value is the latent key), got {op.value}"


for _rope, _base in (("query_rope", "query"), ("key_rope", "key")):
    @rule("SFA-03", _rope)
    def rope_d(op, s, _rope=_rope):
        if dim(getattr(op, _rope), -1) != D_ROPE:
            return f"expected Dr = {D_ROPE} (last dimension), got {getattr(op, _rope)}"

    @rule("SFA-11" if _rope == "query_rope" else "SFA-X02", _rope)
    def rope_shape(op, s, _rope=_rope, _base=_base):
        base = getattr(op, _base)
        expected = (*base.shape[:-1], D_ROPE)
        if C.differs(getattr(op, _rope).shape, expected):
            return f"expected {_base}'s rank and shape with D = {D_ROPE}: {C.expected_shape_text(expected)}, got {getattr(op, _rope)}"


@rule("SFA-04", "key")
def sfa_kv_heads(op, s):
    if s.N2 != 1:
        return f"expected N2 = 1 kv head (dimension -2), got {s.N2}"


@rule("SFA-04", "query", profiles=A3)
def sfa_heads(op, s):
    if s.N1 not in HEADS_A3:
        return f"expected N1 in {{{', '.join(map(str, HEADS_A3))}}} (Atlas A2/A3), got {s.N1}"


@rule("SFA-04", "query", profiles=ASCEND950)
def sfa_heads_950(op, s):
    """Ascend 950: N1 in 1..128."""
    if not 1 <= s.N1 <= MAX_HEADS:
        return f"expected N1 in [1, {MAX_HEADS}] (Ascend 950), got {s.N1}"


C.not_empty_rule(rules, "SFA-12", ("query",))
_paging_rules(rules, 128, "SFA-07")
_indices_rules(rules)


@rule("SFA-13", "return_softmax_lse")
def lse_paged(op, s):
    if op.return_softmax_lse and s.paged:
        return "must be false with layout_kv PA_BSND (a training-only output)"


@rule("SFA-14", "sinks", profiles=A3)
def sinks_a3(op, s):
    if op.sinks is not None:
        return f"must be absent on Atlas A2/A3 (Ascend 950 only; verify with profile ASCEND950), got {op.sinks}"


@rule("SFA-14", "sinks", profiles=ASCEND950)
def sinks_shape(op, s):
    """Ascend 950: sinks is an f32 (N1,) tensor, one per query head."""
    t = op.sinks
    if t is not None and (t.dtype != "f32" or C.differs(t.shape, (s.N1,))):
        return f"expected an f32 tensor (N1,) = ({s.N1},), got {t}"


@rule("SFA-16", "attention_out")
def attention_out_type(op, s):
    expected = _out_shape(op, s)
    t = op.attention_out
    if t.dtype != op.query.dtype or C.differs(t.shape, expected):
        return f"expected a {op.query.dtype} tensor of the query's shape {C.expected_shape_text(expected)}, got {t}"


for _name in ("softmax_max", "softmax_sum"):
    @rule("SFA-17", _name)
    def lse_type(op, s, _name=_name):
        expected = _lse_shape(op, s) if op.return_softmax_lse else (0,)
        t = getattr(op, _name)
        if t.dtype != "f32" or C.differs(t.shape, expected):
            form = ("(N2, T1, G)" if s.tnd else "(B, N2, S1, G)") if op.return_softmax_lse else \
                "(0,) without return_softmax_lse"
            return f"expected an f32 tensor {form} = {C.expected_shape_text(expected)}, got {t}"


C.length_value_rules(rules, NAMES, "SFA-09", "SFA-09", "SFA-06", "SFA-X03")
C.contiguous_rule(rules, "SFA-15", ("query", "sparse_indices"))
C.contiguous_rule(rules, "SFA-15", ("key", "value", "key_rope"), profiles=A3)


def _infer_sfa(op, s) -> dict:
    lse = _lse_shape(op, s) if op.return_softmax_lse else (0,)
    return {"attention_out": TensorInfo(_out_shape(op, s), op.query.dtype),
            "softmax_max": TensorInfo(lse, "f32"), "softmax_sum": TensorInfo(lse, "f32")}


LENGTH_OPERANDS = [optional("block_table"), optional("actual_seq_lengths_query"),
                   optional("actual_seq_lengths_kv")]
MODES = [i64("sparse_block_size", default=1), string("layout_query", default="BSND"),
         string("layout_kv", default="BSND"), i64("sparse_mode", default=3),
         i64("pre_tokens", default=C.INT64_MAX), i64("next_tokens", default=C.INT64_MAX),
         i64("attention_mode", default=0)]

SparseFlashAttention = MLA.add(OpDef(
    "mla.sparse_flash_attention",
    traits=(PURE,),
    operands=[operand("query"), operand("key"), operand("value"), operand("sparse_indices"),
              *LENGTH_OPERANDS, optional("query_rope"), optional("key_rope"), optional("sinks")],
    attributes=[f64("scale_value"), *MODES, i1("return_softmax_lse", default=False)],
    results=["attention_out", "softmax_max", "softmax_sum"],
    rules=rules,
    symbols=SYMBOLS,
    infer_results=_infer_sfa,
    profiles=(ACLNN, PT, ASCEND950),
    summary="DSA sparse flash attention: MLA-absorbed attention over the selected kv tokens "
            "(aclnnSparseFlashAttention; V2 with sinks)",
))


# =============================================================================================
# mla.kv_quant_sparse_flash_attention
# =============================================================================================

quant_rules = RuleSet()
qrule = quant_rules.rule
_shared_rules(quant_rules, quant=True)


@qrule("KQSFA-07", "query")
def kq_query_dtype(op, s):
    if op.query.dtype not in C.FLOATS:
        return f"expected element type f16 or bf16, got {op.query.dtype}"


@qrule("KQSFA-04", "key", profiles=A3)
def kq_key_int8(op, s):
    if op.key.dtype != "i8":
        return f"expected element type i8 (the packed int8 rows; Atlas A2/A3), got {op.key.dtype}"


@qrule("KQSFA-04", "key", profiles=ASCEND950)
def kq_key_950(op, s):
    """Ascend 950: int8, or float8_e4m3fn rows."""
    if op.key.dtype not in ("i8", "f8E4M3FN"):
        return f"expected element type i8 or f8E4M3FN, got {op.key.dtype}"


@qrule("KQSFA-07", "value")
def kq_value_is_key(op, s):
    if op.value.dtype != op.key.dtype or C.differs(op.value.shape, op.key.shape):
        return f"expected the key's type {op.key} (value is the same packed cache), got {op.value}"


@qrule("KQSFA-02", "query")
def kq_query_d(op, s):
    if s.D != D_QUANT_QUERY:
        return f"expected D = {D_QUANT_QUERY} ([q_nope 512 | q_rope 64]; last dimension), got {s.D}"


@qrule("KQSFA-02", "key")
def kq_key_d(op, s):
    if s.D_kv != D_QUANT_KEY:
        return (f"expected D = {D_QUANT_KEY} bytes (512 int8 values, 64 bf16 rope values, 4 fp32 "
                f"scales; last dimension), got {s.D_kv}")


@qrule("KQSFA-07", "key")
def kq_kv_heads(op, s):
    if s.N2 != 1:
        return f"expected KV_N = 1 (dimension -2), got {s.N2}"


@qrule("KQSFA-04", "query", profiles=A3)
def kq_heads_a3(op, s):
    allowed = tuple(h for h in QUANT_HEADS if h != 48)
    if s.N1 not in allowed:
        return f"expected Q_N in {{{', '.join(map(str, allowed))}}} (Atlas A2/A3: no 48), got {s.N1}"


@qrule("KQSFA-07", "query", profiles=ASCEND950)
def kq_heads_950(op, s):
    """Ascend 950: Q_N in {1, 2, 4, 8, 16, 32, 48, 64, 128}."""
    if s.N1 not in QUANT_HEADS:
        return f"expected Q_N in {{{', '.join(map(str, QUANT_HEADS))}}}, got {s.N1}"


C.not_empty_rule(quant_rules, "SFA-12", ("query",))
for _name in ("key_quant_mode", "value_quant_mode"):
    @qrule("KQSFA-08", _name)
    def quant_mode(op, s, _name=_name):
        if getattr(op, _name) != 2:
            return f"expected 2 (per token, tile of 128), got {getattr(op, _name)}"

for _name in ("key_dequant_scale", "value_dequant_scale"):
    @qrule("KQSFA-09", _name)
    def reserved_scale(op, s, _name=_name):
        if getattr(op, _name) is not None:
            return f"reserved: must be absent (the scales travel in the packed rows), got {getattr(op, _name)}"

_attention_mode_rule(quant_rules, "KQSFA-10")


@qrule("KQSFA-11", "quant_scale_repo_mode")
def repo_mode(op, s):
    if op.quant_scale_repo_mode != 1:
        return f"expected 1 (the scales stored in the rows), got {op.quant_scale_repo_mode}"


@qrule("KQSFA-11", "tile_size")
def tile_size(op, s):
    if op.tile_size != 128:
        return f"expected 128, got {op.tile_size}"


@qrule("KQSFA-11", "rope_head_dim")
def rope_head_dim(op, s):
    if op.rope_head_dim != D_ROPE:
        return f"expected {D_ROPE}, got {op.rope_head_dim}"


_paging_rules(quant_rules, 16, "KQSFA-12")


@qrule("KQSFA-13", "value_dtype")
def dtypes_agree(op, s):
    if op.key_dtype != op.value_dtype:
        return f"expected key_dtype ({op.key_dtype}) and value_dtype to agree, got {op.value_dtype}"


@qrule("KQSFA-04", "key_dtype", profiles=A3)
def no_hifloat8(op, s):
    if op.key_dtype is not None:
        return (f"must be absent on Atlas A2/A3 (it names hifloat8 rows travelling as int8, an "
                f"Ascend 950 form), got {op.key_dtype}")


_indices_rules(quant_rules)


@qrule("KQSFA-06", "sparse_indices", profiles=ASCEND950)
def hifloat8_sparse_size(op, s):
    """hifloat8 rows (key_dtype given): sparse_size 2048."""
    if op.key_dtype is not None and dim(op.sparse_indices, -1) != 2048:
        return f"expected sparse_size 2048 with hifloat8 rows (key_dtype), got {op.sparse_indices.shape[-1]}"


@qrule("KQSFA-04", "sinks", profiles=A3)
def kq_sinks_a3(op, s):
    if op.sinks is not None:
        return f"must be absent on Atlas A2/A3 (Ascend 950 only), got {op.sinks}"


@qrule("KQSFA-04", "sinks", profiles=ASCEND950)
def kq_sinks_950(op, s):
    """Ascend 950: sinks is an f32 (Q_N,) tensor."""
    t = op.sinks
    if t is not None and (t.dtype != "f32" or C.differs(t.shape, (s.N1,))):
        return f"expected an f32 tensor (Q_N,) = ({s.N1},), got {t}"


@qrule("KQSFA-14", "attention_out")
def kq_out_type(op, s):
    expected = _out_shape(op, s, D_QUANT_QUERY - op.rope_head_dim)
    t = op.attention_out
    if t.dtype != op.query.dtype or C.differs(t.shape, expected):
        return (f"expected a {op.query.dtype} tensor of the query's shape with D = 576 - rope_head_dim "
                f"= {C.expected_shape_text(expected)}, got {t}")


C.length_value_rules(quant_rules, NAMES, "SFA-09", "SFA-09", "SFA-06", "SFA-X03")
C.contiguous_rule(quant_rules, "SFA-15", ("query", "sparse_indices"))
C.contiguous_rule(quant_rules, "KQSFA-04", ("key", "value"), profiles=A3)


@qrule("KQSFA-05", "key", kind="runtime", profiles=ASCEND950)
def kq_key_strided_950(op, s):
    """Ascend 950: the packed cache may be strided in axis 0 only, with PA_BSND."""
    data = op.key.value
    if data is None or data.flags.c_contiguous:
        return None
    if not (s.paged and data.shape[0] and data[0:1].flags.c_contiguous):
        return f"expected a contiguous tensor (or strided in axis 0 only, with PA_BSND), got strides {data.strides}"


waive("KQSFA-01", "the sparse attention's layout, paging, length, mode and index rules apply: "
                  "registered on this op under their own IDs (SFA-05, SFA-06, SFA-08, SFA-09, SFA-10)")
waive("KQSFA-03", "without page attention layout_query = layout_kv: the SFA-05 rule this op shares")


KvQuantSparseFlashAttention = MLA.add(OpDef(
    "mla.kv_quant_sparse_flash_attention",
    traits=(PURE,),
    operands=[operand("query"), operand("key"), operand("value"), operand("sparse_indices"),
              optional("key_dequant_scale"), optional("value_dequant_scale"), *LENGTH_OPERANDS,
              optional("sinks")],
    attributes=[f64("scale_value"), i64("key_quant_mode"), i64("value_quant_mode"), *MODES,
                i64("quant_scale_repo_mode", default=1), i64("tile_size", default=128),
                i64("rope_head_dim", default=64), i64("key_dtype", default=None),
                i64("value_dtype", default=None)],
    results=["attention_out"],
    rules=quant_rules,
    symbols=SYMBOLS,
    infer_results=lambda op, s: {"attention_out": TensorInfo(
        _out_shape(op, s, op.query.shape[-1] - op.rope_head_dim if op.query.shape[-1] else None),
        op.query.dtype)},
    profiles=(ACLNN, PT, ASCEND950),
    summary="DSA sparse flash attention over a per-tile int8 latent cache of packed 656-byte "
            "rows (aclnnKvQuantSparseFlashAttention)",
))

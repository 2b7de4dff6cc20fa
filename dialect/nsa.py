"""`mla.nsa_compress_attention_infer`: the compressed-attention branch of Native Sparse
Attention at inference, fused with the selection-block importance score and top-K
(aclnnNsaCompressAttentionInfer, seed 003; catalog the prolog/NSA constraint catalog; rules in docs/rules.md Part B, checklist
D2). Its kernel is runtime/kernels/nsa.py.

    "mla.nsa_compress_attention_infer"(query, key, value, [atten_mask], [block_table], [topk_mask])
        {scale_value, head_num, key_value_head_num, select_block_size, select_block_count,
         page_block_size, compress_block_size, compress_stride, [actual_seq_qlen],
         [actual_cmp_seq_kvlen], [actual_sel_seq_kvlen], [layout = "TND"], [sparse_mode = 0]}
        -> (output, topk_indices)

Symbols: B batch, N1 = head_num, N2 = key_value_head_num, G = N1 / N2, D1 = query head dim
(= key.shape[2] / N2), D2 = value.shape[2] / N2, Q_S query tokens per batch, L_b =
actual_cmp_seq_kvlen[b], l = compress_block_size, d = compress_stride, l' = select_block_size,
K = select_block_count. key/value are paged: (blockNum, blockSize, N2 * D).

The op mirrors the aclnn interface; where the graph prototype (REG_OP, catalog B5) differs, the
aclnn document wins:
- I1/I2: actual_seq_qlen, actual_cmp_seq_kvlen, actual_sel_seq_kvlen are host int arrays
  (array<i64> attributes, absent = nullptr), not device tensors; REG_OP's extra
  actualKvSeqLenOptional does not exist.
- I3/I4: aclnn gives atten_mask and topk_mask no dtype, so any dtype is accepted; REG_OP's BOOL is
  only a warning (NSA-017).
- I5: two results, `output` (query dtype) and `topk_indices` (i32); REG_OP's float
  `topkIndicesOut` is not modelled.
- I6/I7: the REG_OP defaults (numHeads = 1, the others 0) are not used: the eight scalar
  parameters are required attributes, and scale_value is a double (f64), not a float.
- I8/I15: `layout` defaults to "TND" (docs/api.md), and compressBlockStride is named `compress_stride`.

Resolutions of what the seed leaves open (catalog B8), each as the kernel computes it:
- B and T (N9). BSND: B = query.shape[0], Q_S <= S1 = query.shape[1]. TND without
  actual_seq_qlen: one token per batch, T = B (the seed's query "(B, N1, D1)"). TND with
  actual_seq_qlen (per-batch token counts, not cumulative): T = sum(actual_seq_qlen) and B is the
  number of block_table rows. Q_S = max(actual_seq_qlen) when given, else 1 (TND) or S1 (BSND).
- actual_seq_qlen values lie in [1, 4], and in BSND also <= S1 (NSA-062; >= 1 is SEED SILENT).
- BSND topk_indices is (B, S1, N2, K) (N10); the output is f16 or bf16 whatever the query (the seed's table; N18 is NON-SEED EVIDENCE), inferred as the query's dtype.
- L_b >= 1 (N14); "key/value S axis <= 8192" bounds L_b (N15); block_table may have more
  columns than the longest sequence needs (N16, ">=": the seed's "blocks the longest sequence
  needs" is read as the columns that must exist).
- The number of selection blocks is nSel_b = ceil(NoCmp_b / l') with NoCmp_b = (L_b - 1) * d + l
  (N4): NSA-076 asks nSel_b <= 4096 (the same as the exact quotient <= 4096) and NSA-077 asks
  K <= NoCmp_b / l' for every batch, the exact quotient of the seed's inequality (L163; its floor
  reading gives the same bound for an integer K). The device's tiling checks K against the
  ceiling nSel_b (nsa_compress_attention_infer_tiling.cpp, CheckTopK) and so accepts K = 3
  where NoCmp_b / l' = 80 / 32 = 2.5: the seed wins, the kernel still scores all nSel_b blocks.
- block_table entries are checked at call time (N13, NSA-059); non-contiguous eager arguments
  are rejected at call time (NSA-019: IR values have no strides).
- sparse_mode accepts any value (N20), topk_mask any tensor: both reserved and ignored
  (warning NSA-090); atten_mask's content is not read, and it has no effect when Q_S = 1
  (warning NSA-091).

A rule that needs a dynamic (`?`) dimension holds until the shape is known (an eager call always
has static shapes).
"""
from __future__ import annotations

import math

import numpy as np

from .opdef import OpDef, f64, i64, i64_array, operand, optional, string
from .registry import MLA
from .rules import ARGUMENT, RuleSet, dim, shape_text, waive
from .traits import PURE
from .types import TensorInfo

FLOAT_TYPES = ("f16", "bf16")
LAYOUTS = ("TND", "BSND")
MAX_BATCH = 10000
MAX_GROUP = 128                 # G <= 128 and 128 % G == 0
MAX_D1, MAX_D2 = 192, 128
MAX_PAGE_BLOCK = 128            # page_block_size <= 128, multiple of 16
MAX_Q_S = 4
MAX_CMP_KV_LEN = 8192
MAX_SELECT_BLOCKS = 4096
COMPRESS_BLOCK_SIZES = (16, 32, 48, 64, 80, 96, 112, 128)
COMPRESS_STRIDES = (16, 32, 48, 64)
SELECT_BLOCK_SIZES = (16, 32, 48, 64, 80, 96, 112, 128)
HOST_ARRAYS = ("actual_seq_qlen", "actual_cmp_seq_kvlen", "actual_sel_seq_kvlen")
INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1

rules = RuleSet()


rule = rules.rule


# --- symbols -----------------------------------------------------------------------------

def _batch(op, s) -> int:
    if op.layout == "TND" and op.present("actual_seq_qlen"):
        return dim(op.block_table, 0)  # the query axis is T = sum(actual_seq_qlen)
    return dim(op.query, 0)


def _query_tokens(op, s) -> int:
    """Q_S: the most query tokens of one batch."""
    if op.actual_seq_qlen:
        return max(op.actual_seq_qlen)
    return dim(op.query, 1) if op.layout == "BSND" else 1


def _uncompressed_ceil(op, s) -> list[int]:
    """NoCmpKvSeqlenCeil_b = (L_b - 1) * d + l: the longest uncompressed sequence of batch b."""
    return [(length - 1) * op.compress_stride + op.compress_block_size
            for length in op.actual_cmp_seq_kvlen]


SYMBOLS = {
    "B": _batch,
    "Q_S": _query_tokens,
    "N1": lambda op, s: op.head_num,
    "N2": lambda op, s: op.key_value_head_num,
    "G": lambda op, s: op.head_num // op.key_value_head_num,
    "D1": lambda op, s: dim(op.query, -1),
    "D2": lambda op, s: dim(op.value, 2) // op.key_value_head_num,
    "num_blocks": lambda op, s: dim(op.key, 0),
    "no_cmp_ceil": _uncompressed_ceil,
    "n_sel": lambda op, s: [math.ceil(c / op.select_block_size) for c in s.no_cmp_ceil],
}


# --- pointers / presence -----------------------------------------------------------------
# In IR the three inputs always exist (IRDL); an eager call may still pass None.

def _required(name):
    def check(op, s):
        if getattr(op, name) is None:
            return "is required, got none"
    return check


rule("NSA-001", "query", kind=ARGUMENT)(_required("query"))
rule("NSA-002", "key", kind=ARGUMENT)(_required("key"))
rule("NSA-003", "value", kind=ARGUMENT)(_required("value"))


@rule("NSA-004", "block_table")
def block_table_given(op, s):
    if op.block_table is None:
        return "is required (the operator supports paged attention only), got none"


@rule("NSA-005", "actual_cmp_seq_kvlen")
def cmp_lengths_given(op, s):
    if not op.present("actual_cmp_seq_kvlen"):
        return "is required (the operator supports paged attention only), got none"


waive("NSA-006", "output and topk_indices are the op's results: IRDL fixes two of them and the "
                 "call allocates them, so there is no null output tensor")
waive("NSA-007", "workspaceSize/executor are aclnn call plumbing, not IR operands or attributes")
waive("NSA-008", "layout has the default \"TND\" (docs/api.md); an absent attribute means TND and "
                 "IR has no null string")


# --- host arrays, formats, dtypes ----------------------------------------------------------

def _host_array_of_int64(name):
    # IR attributes are array<i64> by construction; an eager call may pass anything.
    def check(op, s):
        values = getattr(op, name)
        if values is None:
            return None
        if not isinstance(values, (list, tuple)):
            return f"expected a list of INT64 values, got {type(values).__name__}"
        for i, v in enumerate(values):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                return f"expected INT64 values, got {v!r} at index {i}"
            if not INT64_MIN <= v <= INT64_MAX:
                return f"expected INT64 values, got {v} at index {i} (out of range)"
    return check


for _name in HOST_ARRAYS:
    rule("NSA-016", _name, kind=ARGUMENT)(_host_array_of_int64(_name))


def _nd_format(name):
    def check(op, s):
        tensor = getattr(op, name)
        if tensor is not None and tensor.format != "ND":
            return f"expected format ND, got {tensor.format}"
    return check


for _name in ("query", "key", "value", "atten_mask", "block_table", "topk_mask"):
    rule("NSA-018", _name)(_nd_format(_name))


@rule("NSA-010", "query")
def query_dtype(op, s):
    if op.query.dtype not in FLOAT_TYPES:
        return f"expected element type f16 or bf16, got {op.query.dtype}"


@rule("NSA-011", "key")
def key_dtype(op, s):
    if op.key.dtype != op.query.dtype:
        return f"expected the element type of query ({op.query.dtype}), got {op.key.dtype}"


@rule("NSA-012", "value")
def value_dtype(op, s):
    if op.value.dtype != op.query.dtype:
        return f"expected the element type of query ({op.query.dtype}), got {op.value.dtype}"


@rule("NSA-013", "block_table")
def block_table_dtype(op, s):
    if op.block_table.dtype != "i32":
        return f"expected element type i32, got {op.block_table.dtype}"


def _bool_mask(name):
    def check(op, s):
        mask = getattr(op, name)
        if mask is not None and mask.dtype != "i1":
            return (f"element type {mask.dtype} accepted (the aclnn interface states none), "
                    f"but the graph prototype (REG_OP) declares i1")
    return check


rule("NSA-017", "atten_mask", severity="warning")(_bool_mask("atten_mask"))
rule("NSA-017", "topk_mask", severity="warning")(_bool_mask("topk_mask"))


# --- layout and ranks ----------------------------------------------------------------------

@rule("NSA-020", "layout")
def layout_value(op, s):
    if op.layout not in LAYOUTS:
        return f"expected \"TND\" or \"BSND\", got \"{op.layout}\""


@rule("NSA-021", "query")
def query_rank_tnd(op, s):
    if op.layout == "TND" and op.query.rank != 3:
        return f"expected a 3-D tensor (T, N1, D1) for layout TND, got rank {op.query.rank}"


@rule("NSA-022", "query")
def query_rank_bsnd(op, s):
    if op.layout == "BSND" and op.query.rank != 4:
        return f"expected a 4-D tensor (B, S1, N1, D1) for layout BSND, got rank {op.query.rank}"


@rule("NSA-023", "key")
def key_rank(op, s):
    if op.key.rank != 3:
        return f"expected a 3-D paged tensor (blockNum, blockSize, N2*D1), got rank {op.key.rank}"


@rule("NSA-024", "value")
def value_rank(op, s):
    if op.value.rank != 3:
        return f"expected a 3-D paged tensor (blockNum, blockSize, N2*D2), got rank {op.value.rank}"


@rule("NSA-025", "block_table")
def block_table_rank(op, s):
    if op.block_table.rank != 2:
        return f"expected a 2-D tensor (B, maxBlockPerQuery), got rank {op.block_table.rank}"


# --- heads and head dims -------------------------------------------------------------------

@rule("NSA-030", "head_num")
def head_num_positive(op, s):
    if op.head_num < 1:
        return f"expected at least 1, got {op.head_num}"


@rule("NSA-030", "key_value_head_num")
def kv_head_num_positive(op, s):
    if op.key_value_head_num < 1:
        return f"expected at least 1, got {op.key_value_head_num}"


@rule("NSA-031", "query")
def query_heads(op, s):
    heads = dim(op.query, -2)
    if heads != s.N1:
        return f"expected the N axis to equal head_num ({s.N1}), got {heads}"


@rule("NSA-032", "head_num")
def heads_grouped(op, s):
    if s.N1 % s.N2:
        return f"expected a multiple of key_value_head_num ({s.N2}), got {s.N1}"


@rule("NSA-033", "head_num")
def group_at_most_128(op, s):
    if s.G > MAX_GROUP:
        return f"expected a group size head_num / key_value_head_num <= {MAX_GROUP}, got {s.G}"


@rule("NSA-034", "head_num")
def group_divides_128(op, s):
    if MAX_GROUP % s.G:
        return (f"expected a group size head_num / key_value_head_num that divides {MAX_GROUP}, "
                f"got {s.G}")


@rule("NSA-035", "key")
def key_heads_split(op, s):
    if dim(op.key, 2) % s.N2:
        return (f"expected the last dimension (N2*D1) to be a multiple of key_value_head_num "
                f"({s.N2}), got {op.key.shape[2]}")


@rule("NSA-036", "value")
def value_heads_split(op, s):
    if dim(op.value, 2) % s.N2:
        return (f"expected the last dimension (N2*D2) to be a multiple of key_value_head_num "
                f"({s.N2}), got {op.value.shape[2]}")


@rule("NSA-037", "key")
def key_head_dim(op, s):
    key_d = dim(op.key, 2) // s.N2
    if key_d != s.D1:
        return (f"expected last dimension / key_value_head_num to equal the query head dim "
                f"{s.D1}, got {op.key.shape[2]} / {s.N2} = {key_d}")


@rule("NSA-039", "query")
def d1_at_most_192(op, s):
    if s.D1 > MAX_D1:
        return f"expected a head dim D1 <= {MAX_D1}, got {s.D1}"


@rule("NSA-040", "value")
def d2_at_most_128(op, s):
    if s.D2 > MAX_D2:
        return (f"expected a head dim D2 = last dimension / key_value_head_num <= {MAX_D2}, "
                f"got {s.D2}")


@rule("NSA-041", "value")
def d2_at_most_d1(op, s):
    if s.D2 > s.D1:
        return f"expected a head dim D2 <= the query/key head dim D1 ({s.D1}), got {s.D2}"


# --- batch, blocks, paging -----------------------------------------------------------------

@rule("NSA-056", "page_block_size")
def page_block_size_range(op, s):
    if not 0 < op.page_block_size <= MAX_PAGE_BLOCK:
        return f"expected a value in [1, {MAX_PAGE_BLOCK}], got {op.page_block_size}"


@rule("NSA-057", "page_block_size")
def page_block_size_multiple_of_16(op, s):
    if op.page_block_size % 16:
        return f"expected a multiple of 16, got {op.page_block_size}"


@rule("NSA-053", "value")
def same_block_count(op, s):
    if dim(op.value, 0) != s.num_blocks:
        return (f"expected as many blocks as key (dimension 0 = {s.num_blocks}), "
                f"got {op.value.shape[0]}")


@rule("NSA-054", "value")
def same_block_size(op, s):
    if dim(op.value, 1) != dim(op.key, 1):
        return (f"expected the block size of key (dimension 1 = {op.key.shape[1]}), "
                f"got {op.value.shape[1]}")


@rule("NSA-055", "page_block_size")
def page_block_size_matches(op, s):
    if dim(op.key, 1) != op.page_block_size:
        return (f"expected the block size of key and value (dimension 1 = {op.key.shape[1]}), "
                f"got {op.page_block_size}")


@rule("NSA-050", "query")
def batch_range(op, s):
    if not 1 <= s.B <= MAX_BATCH:
        where = ("block_table dimension 0" if op.layout == "TND" and op.present("actual_seq_qlen")
                 else "query dimension 0")
        return f"expected a batch B in [1, {MAX_BATCH}], got B = {s.B} ({where})"


@rule("NSA-051", "block_table")
def block_table_rows(op, s):
    if dim(op.block_table, 0) != s.B:
        return f"expected B = {s.B} rows (the batch of query), got {op.block_table.shape[0]}"


@rule("NSA-052", "actual_cmp_seq_kvlen")
def cmp_lengths_count(op, s):
    if not op.actual_cmp_seq_kvlen:  # wrong for any B >= 1, even a dynamic one
        return "expected B >= 1 values (one per batch), got none"
    if len(op.actual_cmp_seq_kvlen) != s.B:
        return f"expected B = {s.B} values (one per batch), got {len(op.actual_cmp_seq_kvlen)}"


# --- query sequence lengths ----------------------------------------------------------------

@rule("NSA-060", "query")
def bsnd_q_s_at_most_4(op, s):
    if op.layout == "BSND" and dim(op.query, 1) > MAX_Q_S:
        return f"expected an S axis (Q_S) <= {MAX_Q_S}, got {op.query.shape[1]}"


@rule("NSA-061", "actual_seq_qlen")
def q_lengths_count(op, s):
    if op.present("actual_seq_qlen") and not op.actual_seq_qlen:  # wrong for any B >= 1
        return "expected B >= 1 values (one per batch), got none"
    if op.present("actual_seq_qlen") and len(op.actual_seq_qlen) != s.B:
        return f"expected B = {s.B} values (one per batch), got {len(op.actual_seq_qlen)}"


@rule("NSA-062", "actual_seq_qlen")
def q_lengths_range(op, s):
    if not op.present("actual_seq_qlen"):
        return None
    s1 = op.query.shape[1] if op.layout == "BSND" else None  # None: TND or a dynamic S axis
    top = MAX_Q_S if s1 is None else min(MAX_Q_S, s1)
    for b, n in enumerate(op.actual_seq_qlen):
        if not 1 <= n <= top:
            bound = f"Q_S <= {MAX_Q_S}" + ("" if s1 is None else " and <= the query S axis")
            return f"expected values in [1, {top}] ({bound}), got {n} for batch {b}"


@rule("NSA-066", "query")
def tnd_tokens(op, s):
    if op.layout == "TND" and op.present("actual_seq_qlen"):
        tokens = sum(op.actual_seq_qlen)
        if dim(op.query, 0) != tokens:
            return (f"expected T = sum(actual_seq_qlen) = {tokens} rows for layout TND, "
                    f"got {op.query.shape[0]}")


@rule("NSA-009", "actual_sel_seq_kvlen")
def sel_lengths_given(op, s):
    if s.Q_S > 1 and not op.present("actual_sel_seq_kvlen"):
        return f"is required when Q_S > 1, got none (Q_S = {s.Q_S})"


@rule("NSA-063", "actual_sel_seq_kvlen")
def sel_lengths_count(op, s):
    if s.Q_S > 1 and not op.actual_sel_seq_kvlen:  # wrong for any B >= 1
        return "expected B >= 1 values when Q_S > 1, got none"
    if s.Q_S > 1 and len(op.actual_sel_seq_kvlen) != s.B:
        return f"expected B = {s.B} values when Q_S > 1, got {len(op.actual_sel_seq_kvlen)}"


# --- compressed kv lengths -----------------------------------------------------------------

@rule("NSA-064", "actual_cmp_seq_kvlen")
def cmp_lengths_at_most_8192(op, s):
    for b, length in enumerate(op.actual_cmp_seq_kvlen):
        if length > MAX_CMP_KV_LEN:
            return f"expected values <= {MAX_CMP_KV_LEN}, got {length} for batch {b}"


@rule("NSA-065", "actual_cmp_seq_kvlen")
def cmp_lengths_positive(op, s):
    for b, length in enumerate(op.actual_cmp_seq_kvlen):
        if length < 1:
            return f"expected values >= 1, got {length} for batch {b}"


@rule("NSA-058", "block_table")
def block_table_width(op, s):
    needed = math.ceil(max(op.actual_cmp_seq_kvlen) / op.page_block_size)
    if dim(op.block_table, 1) < needed:
        return (f"expected at least ceil(max(actual_cmp_seq_kvlen) / page_block_size) = "
                f"{needed} columns, got {op.block_table.shape[1]}")


# --- compression and selection parameters ----------------------------------------------------

def _listed(values) -> str:
    return ", ".join(map(str, values))


@rule("NSA-070", "compress_block_size")
def compress_block_size_value(op, s):
    if op.compress_block_size not in COMPRESS_BLOCK_SIZES:
        return f"expected one of {_listed(COMPRESS_BLOCK_SIZES)}, got {op.compress_block_size}"


@rule("NSA-071", "compress_stride")
def compress_stride_value(op, s):
    if op.compress_stride not in COMPRESS_STRIDES:
        return f"expected one of {_listed(COMPRESS_STRIDES)}, got {op.compress_stride}"


@rule("NSA-072", "select_block_size")
def select_block_size_value(op, s):
    if op.select_block_size not in SELECT_BLOCK_SIZES:
        return f"expected one of {_listed(SELECT_BLOCK_SIZES)}, got {op.select_block_size}"


@rule("NSA-073", "compress_block_size")
def window_covers_stride(op, s):
    if op.compress_block_size < op.compress_stride:
        return (f"expected at least compress_stride ({op.compress_stride}), "
                f"got {op.compress_block_size}")


@rule("NSA-074", "select_block_size")
def select_covers_window(op, s):
    if op.select_block_size < op.compress_block_size:
        return (f"expected at least compress_block_size ({op.compress_block_size}), "
                f"got {op.select_block_size}")


@rule("NSA-075", "select_block_size")
def select_multiple_of_stride(op, s):
    if op.select_block_size % op.compress_stride:
        return (f"expected a multiple of compress_stride ({op.compress_stride}), "
                f"got {op.select_block_size}")


@rule("NSA-078", "select_block_count")
def select_count_positive(op, s):
    if op.select_block_count < 1:
        return f"expected at least 1, got {op.select_block_count}"


def _ceil_formula(op, s, b) -> str:
    return (f"ceil(((L - 1) * compress_stride + compress_block_size) / select_block_size) = "
            f"ceil(({op.actual_cmp_seq_kvlen[b] - 1} * {op.compress_stride} + "
            f"{op.compress_block_size}) / {op.select_block_size}) = {s.n_sel[b]}")


@rule("NSA-076", "actual_cmp_seq_kvlen")
def select_blocks_at_most_4096(op, s):
    for b, n_sel in enumerate(s.n_sel):
        if n_sel > MAX_SELECT_BLOCKS:
            return (f"expected at most {MAX_SELECT_BLOCKS} selection blocks per batch, "
                    f"got {_ceil_formula(op, s, b)} for batch {b}")


@rule("NSA-077", "select_block_count")
def select_count_fits(op, s):
    """selectBlockCount <= NoCmpKvSeqlenCeil / selectBlockSize (seed L163), the exact quotient:
    K * l' <= NoCmp_b. The device's tiling (CheckTopK) compares K with the ceiling instead and
    accepts one block more when l' does not divide NoCmp_b; the seed's bound wins."""
    k, size = op.select_block_count, op.select_block_size
    b = min(range(len(s.no_cmp_ceil)), key=lambda i: s.no_cmp_ceil[i])
    if k * size > s.no_cmp_ceil[b]:
        quotient = s.no_cmp_ceil[b] / size
        return (f"expected at most NoCmpKvSeqlenCeil / select_block_size of every batch, "
                f"((L - 1) * compress_stride + compress_block_size) / select_block_size = "
                f"({op.actual_cmp_seq_kvlen[b] - 1} * {op.compress_stride} + "
                f"{op.compress_block_size}) / {size} = {quotient:g} for batch {b}, got {k}")


@rule("NSA-X01", "actual_sel_seq_kvlen", severity="warning")
def sel_lengths_match_compressed_lengths(op, s):
    # Declared after NSA-070..077: it divides by compress_stride, which they validate.
    # NON-SEED EVIDENCE (catalog B3.3, newer document): the device runs Q_S > 1 only when
    # L_b == (actual_sel_seq_kvlen[b] - l) // d + 1 for every batch, and otherwise silently
    # falls back to one query token. The seed does not say so: a warning, never an error.
    if s.Q_S <= 1 or not op.present("actual_cmp_seq_kvlen"):
        return None
    l, d = op.compress_block_size, op.compress_stride
    for b, (length, sel) in enumerate(zip(op.actual_cmp_seq_kvlen, op.actual_sel_seq_kvlen)):
        if length != (sel - l) // d + 1:
            return (f"batch {b}: actual_cmp_seq_kvlen {length} != (actual_sel_seq_kvlen - "
                    f"compress_block_size) // compress_stride + 1 = {(sel - l) // d + 1}; the "
                    f"device then falls back to single-token mode")
    return None


# --- reserved / informational ----------------------------------------------------------------

@rule("NSA-090", "topk_mask", severity="warning")
def topk_mask_reserved(op, s):
    if op.topk_mask is not None:
        return "reserved by the operator and ignored"


@rule("NSA-090", "sparse_mode", severity="warning")
def sparse_mode_reserved(op, s):
    if op.sparse_mode != 0:
        return f"reserved by the operator and ignored (got {op.sparse_mode})"


@rule("NSA-091", "atten_mask", severity="warning")
def mask_without_effect(op, s):
    if op.atten_mask is not None and s.Q_S == 1:
        return "has no effect when Q_S = 1 (one query token per batch)"


waive("NSA-092", "scale_value is a free scalar (the seed's \"reciprocal of sqrt(d)\" leaves d "
                 "open, and its own example passes 1/sqrt(128) with D1 = 192): no value is "
                 "detectably wrong")


# --- results -----------------------------------------------------------------------------------

def _expected_output_shape(op, s) -> tuple:
    return (*op.query.shape[:-2], s.N1, s.D2)


def _expected_topk_shape(op, s) -> tuple:
    return (*op.query.shape[:-2], s.N2, op.select_block_count)


def _same_shape(actual, expected) -> bool:
    """Equal ranks and equal dimensions where both are known."""
    return len(actual) == len(expected) and all(
        a is None or e is None or a == e for a, e in zip(actual, expected))


@rule("NSA-014", "output")
def output_dtype(op, s):
    # The seed's parameter table gives output FLOAT16/BFLOAT16 on its own ("完全相同" binds
    # query, key and value only); N18's output = query dtype is NON-SEED EVIDENCE, so it does
    # not reject IR. Eager calls infer the query's type.
    if op.output.dtype not in ("f16", "bf16"):
        return f"expected element type f16 or bf16, got {op.output.dtype}"


@rule("NSA-015", "topk_indices")
def topk_dtype(op, s):
    if op.topk_indices.dtype != "i32":
        return f"expected element type i32, got {op.topk_indices.dtype}"


for _name in ("output", "topk_indices"):
    rule("NSA-018", _name)(_nd_format(_name))


@rule("NSA-026", "output")
def output_rank(op, s):
    if op.output.rank != op.query.rank:
        return f"expected the rank of query ({op.query.rank}), got {op.output.rank}"


@rule("NSA-027", "topk_indices")
def topk_rank(op, s):
    if op.topk_indices.rank != op.query.rank:
        return f"expected the rank of query ({op.query.rank}), got {op.topk_indices.rank}"


@rule("NSA-038", "output")
def output_head_dim(op, s):
    got = op.output.shape[-1]
    if got is not None and got != s.D2:
        return (f"expected the head dim D2 = value last dimension / key_value_head_num = "
                f"{s.D2}, got {got}")


def _shape_rule(rule_id, result, layout, expected_shape, formula):
    def check(op, s):
        actual = getattr(op, result).shape
        expected = expected_shape(op, s)
        if op.layout == layout and not _same_shape(actual, expected):
            return f"expected {formula} = {shape_text(expected)}, got {shape_text(actual)}"
    rule(rule_id, result)(check)


_shape_rule("NSA-080", "output", "TND", _expected_output_shape, "(T, N1, D2)")
_shape_rule("NSA-081", "output", "BSND", _expected_output_shape, "(B, S1, N1, D2)")
_shape_rule("NSA-082", "topk_indices", "TND", _expected_topk_shape, "(T, N2, select_block_count)")
_shape_rule("NSA-083", "topk_indices", "BSND", _expected_topk_shape,
            "(B, S1, N2, select_block_count)")


# --- call-time rules (tensor data) -------------------------------------------------------------

def _contiguous(name):
    def check(op, s):
        data = getattr(op, name).value
        if data is not None and not data.flags.c_contiguous:
            return ("expected a contiguous tensor, got a strided view "
                    "(non-contiguous tensors are not supported)")
    return check


for _name in ("query", "key", "value", "block_table"):
    rule("NSA-019", _name, kind="runtime")(_contiguous(_name))


@rule("NSA-059", "block_table", kind="runtime")
def block_table_entries(op, s):
    table = op.block_table.value
    if table is None:
        return None         # not known yet (a compiled program checks it when it is)
    for b, length in enumerate(op.actual_cmp_seq_kvlen):
        used = table[b, :math.ceil(length / op.page_block_size)]
        bad = np.flatnonzero((used < 0) | (used >= s.num_blocks))
        if bad.size:
            j = int(bad[0])
            return (f"block_table[{b}, {j}] = {int(used[j])} is not a block of key/value "
                    f"(expected 0 <= entry < {s.num_blocks}) for the {length} positions of "
                    f"batch {b}")


# --- the op ------------------------------------------------------------------------------------

def _infer_results(op, s) -> dict:
    return {"output": TensorInfo(_expected_output_shape(op, s), op.query.dtype),
            "topk_indices": TensorInfo(_expected_topk_shape(op, s), "i32")}


NsaCompressAttentionInfer = MLA.add(OpDef(
    "mla.nsa_compress_attention_infer",
    traits=(PURE,),
    operands=[operand("query"), operand("key"), operand("value"), optional("atten_mask"),
              optional("block_table"), optional("topk_mask")],
    attributes=[f64("scale_value"), i64("head_num"), i64("key_value_head_num"),
                i64("select_block_size"), i64("select_block_count"), i64("page_block_size"),
                i64("compress_block_size"), i64("compress_stride"),
                i64_array("actual_seq_qlen"), i64_array("actual_cmp_seq_kvlen"),
                i64_array("actual_sel_seq_kvlen"), string("layout", default="TND"),
                i64("sparse_mode", default=0)],
    results=["output", "topk_indices"],
    rules=rules,
    symbols=SYMBOLS,
    infer_results=_infer_results,
    summary="NSA compressed attention over paged key/value with importance-score top-K",
))

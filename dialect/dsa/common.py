"""What the four DSA attention-side ops share: the query / key layouts (BSND, TND, PA_BSND),
the actual-length operands, the block table, and the rules about them.

The lightning indexers and the sparse flash attentions take their inputs in the same forms:
a query in BSND (B, S1, N1, D) or TND (T1, N1, D) with cumulative lengths, a key (or key/value)
in BSND, TND or paged PA_BSND (block_count, block_size, N2, D) through a block table. The names
differ between the two families (indexer: `key`, `layout_key`, `actual_seq_lengths_key`; sparse
attention: `key`, `layout_kv`, `actual_seq_lengths_kv`), so every rule here is a factory that
takes the family's `Names` and the rule IDs the family's spec section gives them.

Symbols (Shapes.symbols): tnd (query layout TND), paged (kv layout PA_BSND), tnd_kv, B (batch:
query dim 0 in BSND, the number of actual query lengths in TND, else block_table rows / key
lengths), S1 / T1, N1, D, N2, block_size, block_count.

The actual lengths are device tensors (int32, torch_npu's `Tensor?`), so their values are
read by rules of kind "runtime" (eager calls, and a compiled program before each call).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..rules import ARGUMENT, RuleSet, dim, shape_text
from ..types import ND

INT64_MAX = 2 ** 63 - 1
QUERY_LAYOUTS = ("BSND", "TND")
KV_LAYOUTS = ("PA_BSND", "BSND", "TND")
FLOATS = ("f16", "bf16")
PAGED = "PA_BSND"
MAX_BLOCK_SIZE = 1024


def differs(shape, expected) -> bool:
    """A known dimension of `shape` differs from `expected` (or the ranks differ)."""
    return len(shape) != len(expected) or any(
        a is not None and e is not None and a != e for a, e in zip(shape, expected))


def one_of(values) -> str:
    values = [str(v) for v in values]
    return ", ".join(values[:-1]) + " or " + values[-1] if len(values) > 1 else values[0]


@dataclass(frozen=True)
class Names:
    """How a family spells the kv side: the key operand, its layout attribute, its lengths."""
    key: str                     # "key"
    layout_kv: str               # "layout_key" | "layout_kv"
    lengths_kv: str              # "actual_seq_lengths_key" | "actual_seq_lengths_kv"
    lengths_q: str = "actual_seq_lengths_query"


def symbols(n: Names) -> dict:
    def batch(op, s):
        if s.tnd:
            lengths = getattr(op, n.lengths_q)
            return dim(lengths, 0) if lengths is not None else None
        return dim(op.query, 0)
    return {
        "tnd": lambda op, s: op.layout_query == "TND",
        "paged": lambda op, s: getattr(op, n.layout_kv) == PAGED,
        "tnd_kv": lambda op, s: getattr(op, n.layout_kv) == "TND",
        "B": batch,
        "S1": lambda op, s: dim(op.query, 1),
        "T1": lambda op, s: dim(op.query, 0),
        "N1": lambda op, s: dim(op.query, -2),
        "D": lambda op, s: dim(op.query, -1),
        "N2": lambda op, s: dim(getattr(op, n.key), -2),
        "D_kv": lambda op, s: dim(getattr(op, n.key), -1),
        "S2": lambda op, s: dim(getattr(op, n.key), 1),
        "T2": lambda op, s: dim(getattr(op, n.key), 0),
        "block_count": lambda op, s: dim(getattr(op, n.key), 0),
        "block_size": lambda op, s: dim(getattr(op, n.key), 1),
        "query_rows": lambda op, s: op.query.shape[:2] if op.layout_query == "BSND" else op.query.shape[:1],
    }


# --- layouts and ranks ------------------------------------------------------------------------

def layout_rules(rules: RuleSet, n: Names, rule_id: str):
    """layout_query in {BSND, TND}; the kv layout in {PA_BSND, BSND, TND}; without page
    attention the kv layout equals the query's; each tensor has its layout's rank."""
    @rules.rule(rule_id, "layout_query")
    def query_layout(op, s):
        if op.layout_query not in QUERY_LAYOUTS:
            return f"expected {one_of(QUERY_LAYOUTS)}, got {op.layout_query!r}"

    @rules.rule(rule_id, n.layout_kv)
    def kv_layout(op, s):
        layout = getattr(op, n.layout_kv)
        if layout not in KV_LAYOUTS:
            return f"expected {one_of(KV_LAYOUTS)}, got {layout!r}"
        if layout != PAGED and layout != op.layout_query:
            return (f"expected {layout_kv_text(n)} = layout_query ({op.layout_query!r}) without page "
                    f"attention (PA_BSND), got {layout!r}")

    @rules.rule(rule_id, "query")
    def query_rank(op, s):
        rank = 3 if s.tnd else 4
        if op.query.rank != rank:
            form = "(T1, N1, D)" if s.tnd else "(B, S1, N1, D)"
            return f"expected rank {rank} {form} for layout_query {op.layout_query}, got {op.query}"

    @rules.rule(rule_id, n.key)
    def key_rank(op, s):
        key = getattr(op, n.key)
        rank = 3 if s.tnd_kv else 4
        if key.rank != rank:
            form = {"TND": "(T2, N2, D)", "BSND": "(B, S2, N2, D)",
                    PAGED: "(block_count, block_size, N2, D)"}[getattr(op, n.layout_kv)]
            return f"expected rank {rank} {form} for {n.layout_kv} {getattr(op, n.layout_kv)}, got {key}"


def layout_kv_text(n: Names) -> str:
    return n.layout_kv


def nd_rule(rules: RuleSet, rule_id: str, names):
    for name in names:
        @rules.rule(rule_id, name)
        def nd(op, s, name=name):
            t = getattr(op, name)
            if t is not None and t.format != ND:
                return f"expected format ND, got {t}"


def same_dtype_rule(rules: RuleSet, rule_id: str, name: str, other: str, family=None):
    @rules.rule(rule_id, name)
    def same(op, s):
        a, b = getattr(op, name), getattr(op, other)
        if a is not None and a.dtype != b.dtype:
            return f"expected the element type of {other} ({b.dtype}), got {a.dtype}"


def dtype_rule(rules: RuleSet, rule_id: str, name: str, allowed, profiles=None):
    @rules.rule(rule_id, name, profiles=profiles)
    def dtype(op, s):
        t = getattr(op, name)
        if t is not None and t.dtype not in allowed:
            return f"expected element type {one_of(allowed)}, got {t.dtype}"


def not_empty_rule(rules: RuleSet, rule_id: str, names, profiles=None):
    for name in names:
        @rules.rule(rule_id, name, profiles=profiles)
        def not_empty(op, s, name=name):
            t = getattr(op, name)
            if t is not None and any(d == 0 for d in t.shape):
                return f"expected no empty dimension, got {t}"


# --- paging -------------------------------------------------------------------------------------

def block_rules(rules: RuleSet, n: Names, rule_id: str, *, extra=None):
    """PA_BSND: block_size = key.shape[1], a multiple of 16 in (0, 1024]; block_count != 0."""
    @rules.rule(rule_id, n.key)
    def block_shape(op, s):
        if not s.paged:
            return None
        if not (0 < s.block_size <= MAX_BLOCK_SIZE and s.block_size % 16 == 0):
            return (f"expected a block_size (dimension 1) that is a multiple of 16 in (0, "
                    f"{MAX_BLOCK_SIZE}], got {s.block_size}")
        if s.block_count == 0:
            return "expected block_count (dimension 0) != 0, got 0"


# --- actual lengths and the block table ------------------------------------------------------

def length_presence_rules(rules: RuleSet, n: Names, q_id: str, kv_id: str):
    """TND needs actual_seq_lengths_query; PA_BSND or a TND kv needs the kv lengths; each is a
    rank-1 int32 tensor of B values."""
    @rules.rule(q_id, n.lengths_q)
    def query_lengths(op, s):
        t = getattr(op, n.lengths_q)
        if t is None:
            if s.tnd:
                return "is required with layout_query TND (cumulative token counts), got none"
            return None
        return _lengths_type(t, s, "query")

    @rules.rule(kv_id, n.lengths_kv)
    def kv_lengths(op, s):
        t = getattr(op, n.lengths_kv)
        if t is None:
            if s.paged or s.tnd_kv:
                return (f"is required with {n.layout_kv} {getattr(op, n.layout_kv)} "
                        f"({'per-batch lengths' if s.paged else 'cumulative token counts'}), got none")
            return None
        return _lengths_type(t, s, "key")


def _lengths_type(t, s, what):
    if t.rank != 1 or t.dtype != "i32" or t.format != ND:
        return f"expected a 1-D i32 ND tensor (B,), got {t}"
    if s.B is not None and t.shape[0] is not None and t.shape[0] != s.B:
        source = "query dimension 0" if not s.tnd else "actual_seq_lengths_query"
        return f"expected B = {s.B} values ({source}), got {t.shape[0]}"


def block_table_rules(rules: RuleSet, n: Names, rule_id: str):
    """PA_BSND requires block_table, int32, 2-D, dim 0 = B; no block_table otherwise."""
    @rules.rule(rule_id, "block_table")
    def block_table(op, s):
        t = op.block_table
        if not s.paged:
            if t is not None:
                return f"must be absent without page attention ({n.layout_kv} {getattr(op, n.layout_kv)}), got {t}"
            return None
        if t is None:
            return f"is required with {n.layout_kv} PA_BSND, got none"
        if t.rank != 2 or t.dtype != "i32" or t.format != ND:
            return f"expected a 2-D i32 ND tensor (B, max blocks per sequence), got {t}"
        batch = s.B if s.B is not None else dim(getattr(op, n.lengths_kv), 0)
        if t.shape[0] is not None and t.shape[0] != batch:
            return f"expected B = {batch} rows, got {t.shape[0]}"
        if t.shape[1] == 0:
            return "expected at least one column (max blocks per sequence > 0), got 0"


def batch_consistency_rules(rules: RuleSet, n: Names, rule_id: str):
    """BSND without page attention: the key has the query's batch in dimension 0. (The lengths'
    counts and the block table's rows are checked against B by their own rules.)"""
    @rules.rule(rule_id, n.key)
    def key_batch(op, s):
        if s.tnd or s.paged:
            return None
        key = getattr(op, n.key)
        if dim(key, 0) != s.B:
            return f"expected batch B = {s.B} (query dimension 0) in dimension 0, got {key}"


def tokens_rule(rules: RuleSet, rule_id: str, param: str, pre_next=("pre_tokens", "next_tokens")):
    for name in pre_next:
        @rules.rule(rule_id, name)
        def tokens(op, s, name=name):
            if getattr(op, name) != INT64_MAX:
                return f"expected {INT64_MAX} (no band), got {getattr(op, name)}"


def sparse_mode_rule(rules: RuleSet, rule_id: str):
    @rules.rule(rule_id, "sparse_mode")
    def sparse_mode(op, s):
        if op.sparse_mode not in (0, 3):
            return f"expected 0 (no mask) or 3 (right-down causal), got {op.sparse_mode}"


# --- call-time rules (the lengths' and block table's values) -----------------------------------

def value_of(t):
    return None if t is None else t.value


def length_value_rules(rules: RuleSet, n: Names, q_id: str, kv_id: str, table_id: str, entries_id: str):
    """Cumulative TND lengths are non-decreasing and end within the token count; BSND lengths
    lie in [0, S]; the block table has a column for every block a batch uses, and those entries
    name blocks of the cache."""
    @rules.rule(q_id, n.lengths_q, kind="runtime")
    def query_length_values(op, s):
        values = value_of(getattr(op, n.lengths_q))
        if values is None:
            return None
        values = np.asarray(values).reshape(-1).astype(np.int64)
        return _check_lengths(values, s.tnd, s.T1 if s.tnd else s.S1, "T1" if s.tnd else "S1")

    @rules.rule(kv_id, n.lengths_kv, kind="runtime")
    def kv_length_values(op, s):
        values = value_of(getattr(op, n.lengths_kv))
        if values is None:
            return None
        values = np.asarray(values).reshape(-1).astype(np.int64)
        if s.paged:
            bad = np.flatnonzero(values < 0)
            if bad.size:
                return f"expected values >= 0, got {int(values[bad[0]])} for batch {int(bad[0])}"
            return None
        return _check_lengths(values, s.tnd_kv, s.T2 if s.tnd_kv else s.S2, "T2" if s.tnd_kv else "S2")

    @rules.rule(table_id, "block_table", kind="runtime")
    def block_table_width(op, s):
        lengths = value_of(getattr(op, n.lengths_kv))
        if not s.paged or lengths is None or op.block_table is None or not np.size(lengths):
            return None
        longest = int(np.max(lengths))
        needed = math.ceil(longest / s.block_size)
        if dim(op.block_table, 1) < needed:
            return (f"expected at least ceil(max {n.lengths_kv} / block_size) = ceil({longest} / "
                    f"{s.block_size}) = {needed} columns, got {op.block_table.shape[1]}")

    @rules.rule(entries_id, "block_table", kind="runtime")
    def block_table_entries(op, s):
        lengths, table = value_of(getattr(op, n.lengths_kv)), value_of(op.block_table)
        if not s.paged or lengths is None or table is None:
            return None
        for b, length in enumerate(np.asarray(lengths).reshape(-1).tolist()):
            used = np.asarray(table)[b, :math.ceil(length / s.block_size)]
            bad = np.flatnonzero((used < 0) | (used >= s.block_count))
            if bad.size:
                j = int(bad[0])
                return (f"block_table[{b}, {j}] = {int(used[j])} is not a block of {n.key} (expected "
                        f"0 <= entry < {s.block_count}) for the {length} tokens of batch {b}")


def _check_lengths(values, cumulative: bool, bound: int, bound_name: str):
    if cumulative:
        previous = 0
        for b, v in enumerate(values.tolist()):
            if v < previous:
                return (f"expected cumulative token counts (non-decreasing, from 0), got {v} after "
                        f"{previous} at batch {b}")
            previous = v
        if values.size and values[-1] > bound:
            return f"expected a last (total) value <= {bound_name} = {bound}, got {int(values[-1])}"
        return None
    bad = np.flatnonzero((values < 0) | (values > bound))
    if bad.size:
        b = int(bad[0])
        return f"expected values in [0, {bound_name}] = [0, {bound}], got {int(values[b])} for batch {b}"


def contiguous_rule(rules: RuleSet, rule_id: str, names, profiles=None):
    """Eager arrays must be contiguous. Only a call can break it (kind "argument"): IR values
    have no strides, and a compiled program hands the function contiguous copies of strided
    views (lower-to-aclnn), whatever views the CPU backend computes on the way."""
    for name in names:
        @rules.rule(rule_id, name, kind=ARGUMENT, profiles=profiles)
        def contiguous(op, s, name=name):
            t = getattr(op, name)
            data = None if t is None else t.value
            if isinstance(data, np.ndarray) and not data.flags.c_contiguous:
                return f"expected a contiguous tensor, got a strided view (strides {data.strides})"


def required_rule(rules: RuleSet, rule_id: str, names):
    """An eager call's None for a required tensor names the spec's rule."""
    for name in names:
        @rules.rule(rule_id, name, kind=ARGUMENT)
        def required(op, s, name=name):
            if getattr(op, name) is None:
                return "is required, got None"


def expected_shape_text(shape) -> str:
    return shape_text(shape)

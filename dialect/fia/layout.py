"""FIA rules 6.B (layout, heads, key/value and output shapes) and 6.P (softmax_lse)."""
from __future__ import annotations

from .common import LAYOUTS, MLA_D, NBSD_LAYOUTS, TND_LAYOUTS, TND_MAX_BATCH, FiaRules, dims, heads_axis, logical_last
from .operands import element
from .paging import kv_shape_mismatch

head_rules = FiaRules()
kv_shape_rules = FiaRules()
lse_rules = FiaRules()


# =============================================================================================
# 6.B layout, heads
# =============================================================================================

@head_rules.rule("FIA-017", "input_layout")
def layout_supported(op, s):
    if op.input_layout not in LAYOUTS:
        return f"expected one of {', '.join(LAYOUTS)}, got {op.input_layout!r}"


@head_rules.rule("FIA-TND-1", ("actual_seq_lengths", "actual_seq_lengths_kv"), tnd=True)
def tnd_lengths_given(op, s, name):
    if getattr(op, name) is None:
        return (f"required with input_layout {op.input_layout!r} (it gives the batches: each "
                f"batch's end in the packed T), got none")


@head_rules.rule("FIA-019", "query")
def query_rank(op, s):
    want = 3 if op.input_layout in ("BSH",) + TND_LAYOUTS else 4
    if op.query.rank != want:
        return f"expected rank {want} for input_layout {op.input_layout!r}, got {op.query}"


@head_rules.rule("FIA-MLA-22", "input_layout")
def nbsd_needs_latent_mla(op, s):
    """The NBSD outputs are documented for the MLA mode with query D 512 only (torch_npu v2,
    "MLA场景约束": BSH, BSND, BNSD, BNSD_NBSD, BSND_NBSD, BSH_NBSD, TND, TND_NTD)."""
    if op.input_layout in NBSD_LAYOUTS and not s.latent:
        return (f"{op.input_layout!r} (an NBSD output) needs the MLA mode with query D "
                f"{MLA_D} (query_rope/key_rope given)")


def cumulative_ends(values, total, what):
    """Cumulative ends of packed batches: 1..4096 values, non-decreasing, >= 0, the last one the
    packed axis' length (reading a RuntimeList holds the rule until run time)."""
    values = [int(v) for v in values]
    if not 1 <= len(values) <= TND_MAX_BATCH:
        return f"expected 1 to {TND_MAX_BATCH} values (one per batch), got {len(values)}"
    if values[0] < 0 or any(b < a for a, b in zip(values, values[1:])):
        return (f"expected non-decreasing values >= 0 (each batch's end in {what}, "
                f"cumulative), got {values}")
    if values[-1] != total:
        return f"expected the last value to be {what} = {total}, got {values[-1]}"


@head_rules.rule("FIA-TND-2", "actual_seq_lengths", tnd=True)
def tnd_query_ends(op, s):
    return cumulative_ends(op.actual_seq_lengths, s.T, "the query's T")


@head_rules.rule("FIA-TND-3", "num_heads", tnd=True)
def tnd_heads(op, s):
    axis = heads_axis(op.input_layout)
    if op.query.shape[axis] != op.num_heads:
        return f"expected the N axis of query ({op.query.shape[axis]}), got {op.num_heads}"


@head_rules.rule("FIA-018", "input_layout")
def bnsd_bsnd_prompt_only(op, s):
    if op.input_layout == "BNSD_BSND" and s.Q_S <= 1:
        return f"'BNSD_BSND' needs Q_S > 1 (the prompt branch), got Q_S = {s.Q_S}"


@head_rules.rule("FIA-022", "num_heads")
def heads_positive(op, s):
    if op.num_heads < 1:
        return f"expected >= 1, got {op.num_heads}"


@head_rules.rule("FIA-026", "num_key_value_heads")
def kv_heads_non_negative(op, s):
    if op.num_key_value_heads < 0:
        return f"expected >= 0 (0 means num_heads), got {op.num_key_value_heads}"


@head_rules.rule("FIA-023", "num_heads")
def heads_bnsd(op, s):
    if op.input_layout in ("BNSD", "BNSD_BSND", "BNSD_NBSD") and op.query.shape[1] != op.num_heads:
        return f"expected the N axis of query ({op.query.shape[1]}), got {op.num_heads}"


@head_rules.rule("FIA-024", "num_heads")
def heads_bsnd(op, s):
    if op.input_layout in ("BSND", "BSND_NBSD") and op.query.shape[2] != op.num_heads:
        return f"expected the N axis of query ({op.query.shape[2]}), got {op.num_heads}"


@head_rules.rule("FIA-025", "num_heads")
def heads_divide_hidden(op, s):
    if op.input_layout == "BSH" and op.query.shape[2] % op.num_heads:
        return f"expected a divisor of the query's H ({op.query.shape[2]}), got {op.num_heads}"


@head_rules.rule("FIA-027", "num_key_value_heads")
def heads_multiple_of_kv_heads(op, s):
    if s.N % s.KV_N:
        return f"expected a divisor of num_heads ({s.N}), got {s.KV_N}"


@head_rules.rule("FIA-028", "num_key_value_heads", mla=False)
def group_at_most_64(op, s):
    if s.G > 64:
        return f"num_heads / num_key_value_heads must be <= 64, got {s.N} / {s.KV_N} = {s.G}"


@head_rules.rule("FIA-020", "attention_out")
def out_rank(op, s):
    if op.attention_out.rank != op.query.rank:
        return f"expected the rank of query ({op.query.rank}), got {op.attention_out}"


@head_rules.rule("FIA-021", ("key", "value"))
def kv_rank(op, s, name):
    if s.paged:
        return None
    for t in getattr(op, name):
        if t.rank != op.query.rank:
            return f"expected the rank of query ({op.query.rank}) without page attention, got {t}"


# =============================================================================================
# 6.B key/value shapes
# =============================================================================================

@kv_shape_rules.rule("FIA-029", "num_key_value_heads")
def kv_heads_match_n_axis(op, s):
    if s.paged or op.input_layout == "BSH":
        return None
    axis = heads_axis(op.input_layout)
    for name in ("key", "value"):
        for i, t in enumerate(getattr(op, name)):
            if t.shape[axis] != s.KV_N:
                return f"expected the N axis of {name}[{i}] ({t.shape[axis]}), got {s.KV_N}"


@kv_shape_rules.rule("FIA-030", ("key", "value"))
def bsh_kv_hidden(op, s, name):
    if s.paged or op.input_layout != "BSH":
        return None
    for t in getattr(op, name):
        if logical_last(t) != s.H_kv:
            return f"expected H = KV_N*D = {s.KV_N}*{s.D} = {s.H_kv}, got {t}"


@kv_shape_rules.rule("FIA-031", "key")
def key_head_dim(op, s):
    if s.Dk != s.D:
        return f"expected the head dim D of query ({s.D}), got {s.Dk} in {op.key[0]}"


@kv_shape_rules.rule("FIA-032", "value")
def kv_same_shape(op, s):
    if s.paged:
        return None
    for i, (k, v) in enumerate(zip(op.key, op.value)):
        mismatch = kv_shape_mismatch(op, k, v)
        if mismatch:
            return mismatch + element(i, op.key)


@kv_shape_rules.rule("FIA-034", "key")
def key_batch(op, s):
    if not s.paged and not s.is_list and not s.tnd and op.key[0].shape[0] != s.B:
        return f"expected batch B = {s.B} (the query's), got {op.key[0]}"


def expected_out_shape(op, s):
    if s.tnd:
        t, n, dv = s.T, s.N, s.Dv
        return (n, t, dv) if op.input_layout == "TND_NTD" else (t, n, dv)
    b, q_s, n, dv = s.B, s.Q_S, s.N, s.Dv
    return {"BSH": (b, q_s, n * dv), "BSND": (b, q_s, n, dv), "BNSD": (b, n, q_s, dv),
            "BNSD_BSND": (b, q_s, n, dv), "BNSD_NBSD": (n, b, q_s, dv),
            "BSND_NBSD": (n, b, q_s, dv)}[op.input_layout]


@kv_shape_rules.rule("FIA-033", "attention_out")
def out_shape(op, s):
    want = expected_out_shape(op, s)
    if op.attention_out.shape != want:
        order = {"BNSD_BSND": ", BSND order", "BNSD_NBSD": ", NBSD order",
                 "BSND_NBSD": ", NBSD order", "TND_NTD": ", NTD order",
                 "NTD_TND": ", TND order"}.get(op.input_layout, "")
        return (f"expected {dims(want)} (query shape with the value's D{order}), "
                f"got {op.attention_out}")


# =============================================================================================
# 6.P softmax_lse (result types, used by every later configuration)
# =============================================================================================

@lse_rules.rule("FIA-214", "softmax_lse")
def lse_dtype(op, s):
    if op.softmax_lse_flag and op.softmax_lse.dtype != "f32":
        return f"expected element type f32 with softmax_lse_flag, got {op.softmax_lse.dtype}"


def expected_lse_shape(op, s):
    """[B, N, Q_S, 1]; [T, N, 1] for the TND layouts (seed L797)."""
    return (s.T, s.N, 1) if s.tnd else (s.B, s.N, s.Q_S, 1)


@lse_rules.rule("FIA-215", "softmax_lse")
def lse_shape(op, s):
    want = expected_lse_shape(op, s)
    if op.softmax_lse_flag and op.softmax_lse.shape != want:
        what = "[T, N, 1]" if s.tnd else "[B, N, Q_S, 1]"
        return f"expected {what} = {dims(want)} with softmax_lse_flag, got {op.softmax_lse}"


@lse_rules.rule("FIA-216", "softmax_lse")
def lse_placeholder(op, s):
    """softmax_lse_flag false: the seed returns "a {1} tensor of 0" (L798)."""
    if not op.softmax_lse_flag and (op.softmax_lse.shape != (1,) or op.softmax_lse.dtype != "f32"):
        return f"expected tensor<1xf32> without softmax_lse_flag, got {op.softmax_lse}"

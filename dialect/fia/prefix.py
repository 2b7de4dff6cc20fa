"""FIA rules 6.O: the shared prefix (key/value_shared_prefix, actual_shared_prefix_len)."""
from __future__ import annotations

from .common import INT4, S_LIMIT, FiaRules, dims, one_of, paired, seq_axis
from .kv_list import head_axes

rules = FiaRules()


# =============================================================================================
# 6.O shared prefix
# =============================================================================================

PREFIXES = ("key_shared_prefix", "value_shared_prefix")


@rules.rule("FIA-198", PREFIXES)
def prefix_paired(op, s, name):
    return paired(op, name)


@rules.rule("FIA-201", PREFIXES)
def prefix_dtype(op, s, name):
    allowed = ("f16", "bf16", "i8") + (INT4 if s.incre else ())   # incre INT4: L948
    t = getattr(op, name)
    if t is not None and t.dtype not in allowed:
        return f"expected element type {one_of(allowed)}, got {t.dtype}"


@rules.rule("FIA-199", PREFIXES)
def prefix_rank(op, s, name):
    t = getattr(op, name)
    if t is not None and t.rank != op.key[0].rank:
        return f"expected the rank of key ({op.key[0].rank}), got {t}"


@rules.rule("FIA-200", PREFIXES)
def prefix_same_dtype(op, s, name):
    t = getattr(op, name)
    if t is not None and t.dtype != op.key[0].dtype:
        return f"expected the key's element type {op.key[0].dtype}, got {t.dtype}"


@rules.rule("FIA-202", PREFIXES)
def prefix_batch_one(op, s, name):
    t = getattr(op, name)
    if t is not None and t.shape[0] != 1:
        return f"expected batch 1, got {t}"


def _prefix_heads(op, name, layouts):
    t = getattr(op, name)
    if t is None or op.input_layout not in layouts:
        return None
    want = head_axes(op.key[0], op.input_layout)
    if head_axes(t, op.input_layout) != want:
        what = "H" if op.input_layout == "BSH" else "N and D"
        return f"expected the {what} of key {dims(want)}, got {t}"


@rules.rule("FIA-203", PREFIXES)
def prefix_heads(op, s, name):
    return _prefix_heads(op, name, ("BSND", "BNSD", "BNSD_BSND"))


@rules.rule("FIA-204", PREFIXES)
def prefix_hidden(op, s, name):
    return _prefix_heads(op, name, ("BSH",))


@rules.rule("FIA-205", "value_shared_prefix")
def prefix_same_length(op, s):
    kp, vp = op.key_shared_prefix, op.value_shared_prefix
    axis = seq_axis(op.input_layout)
    if kp is not None and vp.shape[axis] != kp.shape[axis]:
        return f"expected the S of key_shared_prefix ({kp.shape[axis]}), got {vp}"


@rules.rule("FIA-209", "actual_shared_prefix_len", severity="warning")
def prefix_length_without_prefix(op, s):
    """A DERIVED item (not in the seed). The device reads actualSharedPrefixLen only when the
    prefix tensors exist (PromptFlashAttention tiling: isKVHasPrefix guards it) and CANN's ATK
    case list for aclnnFusedInferAttentionScoreV2 passes it without them in all 201 cases:
    accepted and ignored, with this warning. FIA-206/207/208 check it only with a prefix."""
    if op.actual_shared_prefix_len is not None and op.key_shared_prefix is None:
        return ("ignored without key_shared_prefix and value_shared_prefix (there is no shared "
                "prefix to shorten)")


def _prefix_length(op):
    """actual_shared_prefix_len when it has an effect (a prefix is given), else None."""
    return None if op.key_shared_prefix is None else op.actual_shared_prefix_len


@rules.rule("FIA-206", "actual_shared_prefix_len")
def prefix_length_count(op, s):
    lengths = _prefix_length(op)
    if lengths is not None and len(lengths) != 1:
        return f"expected exactly 1 value, got {len(lengths)}"


@rules.rule("FIA-208", "actual_shared_prefix_len")
def prefix_length_non_negative(op, s):
    lengths = _prefix_length(op)
    if lengths is not None and lengths[0] < 0:
        return f"expected a value >= 0, got {lengths[0]}"


@rules.rule("FIA-207", "actual_shared_prefix_len")
def prefix_length_bound(op, s):
    if _prefix_length(op) is None:
        return None
    limit = op.key_shared_prefix.shape[seq_axis(op.input_layout)]
    if op.actual_shared_prefix_len[0] > limit:
        return f"expected a value <= the prefix S ({limit}), got {op.actual_shared_prefix_len[0]}"


@rules.rule("FIA-210", "key_shared_prefix", branch="prompt")
def prefix_total_length(op, s):
    kp = op.key_shared_prefix
    if kp is None or s.paged:
        return None
    total = kp.shape[seq_axis(op.input_layout)] + s.KV_S
    if total > S_LIMIT:
        return f"prefix S + KV_S must be <= {S_LIMIT} (20M), got {total}"


@rules.rule("FIA-211", "key_shared_prefix", branch="prompt")
def prefix_not_all_int8(op, s):
    all_int8 = op.query.dtype == op.key[0].dtype == op.value[0].dtype == "i8"
    if op.key_shared_prefix is not None and all_int8:
        return "a shared prefix is not supported with int8 query, key and value"


@rules.rule("FIA-197", "key_shared_prefix")
def left_padding_no_prefix(op, s):
    if s.left_pad and op.key_shared_prefix is not None:
        return "a shared prefix is not supported with left padding"

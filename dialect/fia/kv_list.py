"""FIA rules 6.C: key/value given as a tensor list (non-contiguous KV)."""
from __future__ import annotations

from .common import FiaRules, dims, seq_axis
from .operands import element

rules = FiaRules()


# =============================================================================================
# 6.C tensor list (non-contiguous KV)
# =============================================================================================

@rules.rule("FIA-036", "key")
def list_length_is_batch(op, s):
    if s.is_list and len(op.key) != s.B:
        return f"expected one tensor per batch ({s.B}) in a tensor list, got {len(op.key)}"


@rules.rule("FIA-037", ("key", "value"))
def list_batch_one(op, s, name):
    if not s.is_list:
        return None
    for i, t in enumerate(getattr(op, name)):
        if t.shape[0] != 1:
            return f"expected batch 1 in a tensor list, got {t}{element(i, op.key)}"


def head_axes(t, layout):
    """The dims of a key-like tensor other than B and S: (N, D), or (H,) for BSH."""
    axis = seq_axis(layout)
    return tuple(d for i, d in enumerate(t.shape) if i not in (0, axis))


@rules.rule("FIA-038", ("key", "value"))
def list_same_heads(op, s, name):
    """N and D (BSH: H) are equal across the tensor list."""
    if not s.is_list:
        return None
    first = head_axes(op.key[0], op.input_layout)
    for i, t in enumerate(getattr(op, name)):
        if head_axes(t, op.input_layout) != first:
            return (f"expected the N and D (BSH: H) of key[0] {dims(first)} in every element, "
                    f"got {t} (element {i})")


@rules.rule("FIA-039", "key")
def list_batch_limit(op, s):
    if s.is_list and s.B > 256:
        return f"a tensor list allows B <= 256, got {s.B}"


@rules.rule("FIA-040", "block_table")
def list_not_paged(op, s):
    if s.is_list and s.paged:
        return "page attention is not supported with a key tensor list"


@rules.rule("FIA-041", "key_shared_prefix")
def list_no_prefix(op, s):
    if s.is_list and op.key_shared_prefix is not None:
        return "a shared prefix is not supported with a key tensor list"


@rules.rule("FIA-042", "key_antiquant_scale", branch="prompt")
def list_no_separate_antiquant(op, s):
    if s.is_list and op.key_antiquant_scale is not None:
        return "separate key/value antiquant is not supported with a key tensor list"

"""Primitive ops: mla.scatter_cache."""
from __future__ import annotations

from ..dialect import MLA
from ..opdef import OpDef, operand, string
from ..rules import RuleSet, shape_text
from ..types import ND
from .checks import (CACHE_MODES, INDEX_TYPES, differs, dtype_in, nd_only, pa_nz_blocks, rank_is,
                     result_is, same_dtype)


# --- mla.scatter_cache -------------------------------------------------------------------------
# cache[slot_mapping[i]] = update[i] for a paged cache (BlockNum, BlockSize, Nkv, H), slot
# p = block * BlockSize + offset (numerics.md 5): PA_BSND row-major blocks, PA_NZ blocks stored
# as [Nkv*H / C0, BlockSize, C0]. A negative slot skips its row; of duplicate slots the last
# row wins. In place: the result is the updated cache.

scatter_rules = RuleSet()
scatter_rules.rule("SC-001", "cache")(rank_is("cache", 4, " (BlockNum, BlockSize, Nkv, H)"))
scatter_rules.rule("SC-002", "cache")(dtype_in("cache", ("bf16", "f16", "i8")))
scatter_rules.rule("SC-003", "cache")(nd_only("cache"))
scatter_rules.rule("SC-004", "slot_mapping")(dtype_in("slot_mapping", INDEX_TYPES))
scatter_rules.rule("SC-003", "slot_mapping")(nd_only("slot_mapping"))


@scatter_rules.rule("SC-005", "update")
def scatter_update_shape(op, s):
    expected = op.slot_mapping.shape + op.cache.shape[2:]
    if differs(op.update.shape, expected) or op.update.format != ND:
        return f"expected shape slot_mapping + (Nkv, H) = {shape_text(expected)}, got {op.update}"


scatter_rules.rule("SC-006", "update")(same_dtype("update", "cache"))


@scatter_rules.rule("SC-007", "cache_mode")
def scatter_cache_mode(op, s):
    if op.cache_mode not in CACHE_MODES:
        return f"expected \"PA_BSND\" or \"PA_NZ\", got {op.cache_mode!r}"


scatter_rules.rule("SC-008", "cache")(pa_nz_blocks("cache"))


scatter_rules.rule("SC-009", "cache_out")(result_is("cache_out", lambda op, s: op.cache.shape, dtype_of=lambda op: op.cache.dtype))


@scatter_rules.rule("SC-010", "slot_mapping", kind="runtime")
def scatter_slots_in_range(op, s):
    capacity = op.cache.shape[0] * op.cache.shape[1]
    slots = op.slot_mapping.value.reshape(-1)
    if slots.size and slots.max() >= capacity:
        return (f"value {int(slots.max())} is outside [0, BlockNum*BlockSize) = [0, {capacity}) "
                "(negative values skip a row)")


ScatterCache = MLA.add(OpDef(
    "mla.scatter_cache",
    operands=[operand("cache"), operand("slot_mapping"), operand("update")],
    attributes=[string("cache_mode", default="PA_BSND")],
    results=["cache_out"],
    rules=scatter_rules,
    inplace={"cache_out": "cache"},
    infer_results=lambda op, s: {"cache_out": op.cache},
    summary="write rows into a paged cache at slots (in place; negative slots skip)",
))

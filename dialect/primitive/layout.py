"""Primitive ops: mla.gather, mla.format_cast, mla.transpose, mla.nz_cache_view (data movement and views)."""
from __future__ import annotations

from ..opdef import Attribute, OpDef, operand
from ..registry import MLA
from ..rules import RuleSet
from ..traits import PURE
from ..types import FRACTAL_NZ, ND, TensorInfo
from .checks import INDEX_TYPES, differs, dtype_in, nd_only, nz_block_tiles, rank_at_least, result_is

# --- mla.gather ----------------------------------------------------------------------------------
# out[i...] = table[indices[i...]]: rows of a table (the rope cos/sin tables by position).

gather_rules = RuleSet()
gather_rules.rule("GTH-001", "table")(rank_at_least("table", 1))
gather_rules.rule("GTH-002", "table")(nd_only("table"))
gather_rules.rule("GTH-002", "indices")(nd_only("indices"))
gather_rules.rule("GTH-003", "indices")(dtype_in("indices", INDEX_TYPES))
gather_rules.rule("GTH-004", "out")(result_is("out", lambda op, s: op.indices.shape + op.table.shape[1:],
                                 dtype_of=lambda op: op.table.dtype))


@gather_rules.rule("GTH-005", "indices", kind="runtime")
def gather_in_range(op, s):
    rows = op.table.shape[0]
    values = op.indices.value
    if values.size and (values.min() < 0 or values.max() >= rows):
        bad = int(values.min()) if values.min() < 0 else int(values.max())
        return f"value {bad} is outside [0, {rows}) (the rows of table)"


Gather = MLA.add(OpDef(
    "mla.gather",
    traits=(PURE,),
    operands=[operand("table"), operand("indices")],
    results=["out"],
    rules=gather_rules,
    infer_results=lambda op, s: {"out": TensorInfo(op.indices.shape + op.table.shape[1:], op.table.dtype)},
    summary="rows of a table at integer indices",
))


# --- mla.format_cast -----------------------------------------------------------------------------
# npu_format_cast: the same logical tensor in another storage format (the result type's
# encoding): ND <-> FRACTAL_NZ (rank >= 2: the last two dims are the matrix).

format_cast_rules = RuleSet()
format_cast_rules.rule("FC-003", "x")(dtype_in("x", ("bf16", "f16", "f32", "i8")))   # the types with a fractal width


@format_cast_rules.rule("FC-001", "y")
def format_cast_type(op, s):
    if differs(op.y.shape, op.x.shape) or op.y.dtype != op.x.dtype:
        return f"expected the shape and element type of x {op.x}, got {op.y}"


@format_cast_rules.rule("FC-002", "y")
def format_cast_rank(op, s):
    if FRACTAL_NZ in (op.x.format, op.y.format) and op.x.rank < 2:
        return f"FRACTAL_NZ needs rank >= 2 (the last two dimensions form the matrix), got {op.x}"

FormatCast = MLA.add(OpDef(
    "mla.format_cast",
    traits=(PURE,),
    operands=[operand("x")],
    results=["y"],
    rules=format_cast_rules,
    summary="the same tensor in the storage format of the result type (ND <-> FRACTAL_NZ)",
))


# --- mla.transpose -------------------------------------------------------------------------------

transpose_rules = RuleSet()
transpose_rules.rule("TR-001", "x")(nd_only("x"))


@transpose_rules.rule("TR-002", "permutation")
def transpose_permutation(op, s):
    if sorted(op.permutation) != list(range(op.x.rank)):
        return f"expected a permutation of 0..{op.x.rank - 1}, got {list(op.permutation)}"


transpose_rules.rule("TR-003", "y")(result_is("y", lambda op, s: tuple(op.x.shape[p] for p in op.permutation),
                              dtype_of=lambda op: op.x.dtype))

Transpose = MLA.add(OpDef(
    "mla.transpose",
    traits=(PURE,),
    operands=[operand("x")],
    attributes=[Attribute("permutation", "i64_array")],   # required
    results=["y"],
    rules=transpose_rules,
    infer_results=lambda op, s: {"y": TensorInfo(tuple(op.x.shape[p] for p in op.permutation), op.x.dtype)},
    summary="permute the axes (y.shape[i] = x.shape[permutation[i]])",
))


# --- mla.nz_cache_view ---------------------------------------------------------------------
# A paged cache written in PA_NZ mode is an ND tensor (BlockNum, BlockSize, Nkv, H) whose blocks
# hold NZ-ordered bytes. This op names that: the same bytes as the FRACTAL_NZ tensor
# (BlockNum, BlockSize, Nkv*H), the form attention reads. No data moves.

nz_cache_view_rules = RuleSet()


@nz_cache_view_rules.rule("NZV-001", "cache")
def cache_form(op, s):
    if op.cache.rank != 4 or op.cache.format != ND:
        return f"expected an ND paged cache (BlockNum, BlockSize, Nkv, H), got {op.cache}"


nz_cache_view_rules.rule("NZV-004", "cache")(dtype_in("cache", ("bf16", "f16", "i8")))   # the cache types


@nz_cache_view_rules.rule("NZV-002", "cache")
def cache_tiles(op, s):
    problem = nz_block_tiles(op.cache)
    return None if problem is None else f"expected {problem}"


@nz_cache_view_rules.rule("NZV-003", "view")
def view_type(op, s):
    expected = _nz_view_info(op)
    if (op.view.shape, op.view.dtype, op.view.format) != (expected.shape, expected.dtype, expected.format):
        return f"expected {expected}, got {op.view}"


def _nz_view_info(op) -> TensorInfo:
    blocks, block_size, nkv, h = op.cache.shape
    width = None if None in (nkv, h) else nkv * h
    return TensorInfo((blocks, block_size, width), op.cache.dtype, FRACTAL_NZ)


NzCacheView = MLA.add(OpDef(
    "mla.nz_cache_view",
    traits=(PURE,),
    operands=[operand("cache")],
    results=["view"],
    rules=nz_cache_view_rules,
    infer_results=lambda op, s: {"view": _nz_view_info(op)},
    summary="a PA_NZ paged cache seen as the FRACTAL_NZ (BlockNum, BlockSize, Nkv*H) tensor; no copy",
))

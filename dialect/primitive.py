"""Primitive (pre-fusion) ops of the mla dialect.

These are the pieces the fusion passes recognise (DESIGN.md, "primitive level"). Each is
declared once here; its kernel is in runtime/kernels/primitive.py.
"""
from __future__ import annotations

from .dialect import MLA
from .opdef import OpDef, f64, operand
from .rules import RuleSet, dim
from .types import FRACTAL_NZ, ND, TensorInfo, numpy_dtype

FLOAT_TYPES = ("bf16", "f16", "f32")

# --- mla.rms_norm ------------------------------------------------------------------------
# y = x / sqrt(mean(x^2, last axis) + epsilon) * gamma, computed in float32 (numerics.md 3).

rms_norm_rules = RuleSet()
rule = rms_norm_rules.rule


@rule("RMS-001", "x")
def x_rank(op, s):
    if op.x.rank < 1:
        return "expected a tensor of rank >= 1 (the normalised axis is the last one)"


@rule("RMS-002", "x")
def x_dtype(op, s):
    if op.x.dtype not in FLOAT_TYPES:
        return f"expected element type bf16, f16 or f32, got {op.x.dtype}"


@rule("RMS-003", "gamma")
def gamma_shape(op, s):
    if op.gamma.shape != (s.H,):
        return f"expected shape ({s.H},) (the last dimension of x), got {op.gamma.shape}"


@rule("RMS-004", "gamma")
def gamma_dtype(op, s):
    if op.gamma.dtype not in FLOAT_TYPES:
        return f"expected element type bf16, f16 or f32, got {op.gamma.dtype}"


@rule("RMS-005", "epsilon")
def epsilon_positive(op, s):
    if not op.epsilon > 0:
        return f"must be > 0, got {op.epsilon}"


@rule("RMS-006", "y")
def result_type(op, s):
    if op.y.shape != op.x.shape or op.y.format != op.x.format:
        return f"expected the shape of x {op.x}, got {op.y}"
    if op.y.dtype not in FLOAT_TYPES:
        return f"expected element type bf16, f16 or f32, got {op.y.dtype}"


RmsNorm = MLA.add(OpDef(
    "mla.rms_norm",
    operands=[operand("x"), operand("gamma")],
    attributes=[f64("epsilon", default=1e-5)],
    results=["y"],
    rules=rms_norm_rules,
    symbols={"H": lambda op, s: op.x.shape[-1]},
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape, op.x.dtype, op.x.format)},
    summary="RmsNorm over the last axis, float32 arithmetic, result rounded to its type",
))


# --- mla.nz_cache_view ---------------------------------------------------------------------
# A paged cache written in PA_NZ mode is an ND tensor (BlockNum, BlockSize, Nkv, H) whose blocks
# hold NZ-ordered bytes. This op names that: the same bytes as the FRACTAL_NZ tensor
# (BlockNum, BlockSize, Nkv*H), the form attention reads. No data moves.

nz_cache_view_rules = RuleSet()
view_rule = nz_cache_view_rules.rule


@view_rule("NZV-001", "cache")
def cache_form(op, s):
    if op.cache.rank != 4 or op.cache.format != ND:
        return f"expected an ND paged cache (BlockNum, BlockSize, Nkv, H), got {op.cache}"


@view_rule("NZV-002", "cache")
def cache_tiles(op, s):
    c0 = 32 // numpy_dtype(op.cache.dtype).itemsize
    block_size, width = dim(op.cache, 1), dim(op.cache, 2) * dim(op.cache, 3)
    if block_size % 16 or width % c0:
        return (f"expected BlockSize % 16 == 0 and Nkv*H % {c0} == 0 (whole {16}x{c0} fractals), "
                f"got BlockSize {block_size}, Nkv*H {width}")


@view_rule("NZV-003", "view")
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
    operands=[operand("cache")],
    results=["view"],
    rules=nz_cache_view_rules,
    infer_results=lambda op, s: {"view": _nz_view_info(op)},
    summary="a PA_NZ paged cache seen as the FRACTAL_NZ (BlockNum, BlockSize, Nkv*H) tensor; no copy",
))

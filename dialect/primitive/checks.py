"""The checks the primitive ops' rules are built from (shape, type, format and cache-mode
predicates, broadcasting), and the element-type groups they share."""
from __future__ import annotations

import itertools

from mlir import ir

from ..registry import MLA
from ..rules import dim
from ..types import ND, TensorInfo, numpy_dtype

FLOAT_TYPES = ("bf16", "f16", "f32")
INDEX_TYPES = ("i32", "i64")
CACHE_MODES = ("PA_BSND", "PA_NZ")


def _one_of(values) -> str:
    values = list(values)
    return ", ".join(values[:-1]) + " or " + values[-1] if len(values) > 1 else values[0]


def dtype_in(name, allowed):
    def check(op, s):
        t = getattr(op, name)
        if t is not None and t.dtype not in allowed:
            return f"expected element type {_one_of(allowed)}, got {t.dtype}"
    return check


def nd_only(name):
    def check(op, s):
        t = getattr(op, name)
        if t is not None and t.format != ND:
            return f"expected an ND tensor, got {t}"
    return check


def rank_at_least(name, low, what=""):
    def check(op, s):
        t = getattr(op, name)
        if t is not None and t.rank < low:
            return f"expected rank >= {low}{what}, got {t}"
    return check


def rank_is(name, rank, what=""):
    def check(op, s):
        t = getattr(op, name)
        if t is not None and t.rank != rank:
            return f"expected rank {rank}{what}, got {t}"
    return check


def same_dtype(name, other):
    def check(op, s):
        a, b = getattr(op, name), getattr(op, other)
        if a is not None and b is not None and a.dtype != b.dtype:
            return f"expected the element type of {other} ({b.dtype}), got {a.dtype}"
    return check


def differs(shape, expected) -> bool:
    """A known dimension of `shape` differs from `expected` (None: not known yet)."""
    return len(shape) != len(expected) or any(
        a is not None and e is not None and a != e for a, e in zip(shape, expected))


def result_is(name, shape_of, dtypes=None, fmt=ND, dtype_of=None):
    """The result `name` has shape shape_of(op, s), format `fmt` and an element type in
    `dtypes` (or exactly dtype_of(op))."""
    def check(op, s):
        t = getattr(op, name)
        shape = tuple(shape_of(op, s))
        if differs(t.shape, shape) or t.format != fmt:
            return f"expected {TensorInfo(shape, t.dtype, fmt)}, got {t}"
        if dtype_of is not None and t.dtype != dtype_of(op):
            return f"expected element type {dtype_of(op)}, got {t.dtype}"
        if dtypes is not None and t.dtype not in dtypes:
            return f"expected element type {_one_of(dtypes)}, got {t.dtype}"
    return check


def nz_block_tiles(t) -> str | None:
    """Why a paged cache t (BlockNum, BlockSize, Nkv, H) cannot hold NZ-ordered blocks (each
    block a (BlockSize, Nkv*H) matrix of whole 16 x C0 fractals, numerics.md 5), or None."""
    c0 = 32 // numpy_dtype(t.dtype).itemsize
    block_size, width = dim(t, 1), dim(t, 2) * dim(t, 3)
    if block_size % 16 or width % c0:
        return (f"BlockSize % 16 == 0 and Nkv*H % {c0} == 0 (whole 16x{c0} fractals), "
                f"got BlockSize {block_size}, Nkv*H {width}")
    return None


def pa_nz_blocks(name):
    """With cache_mode PA_NZ the cache `name` holds whole fractals (after its rank/type rules)."""
    def check(op, s):
        t = getattr(op, name)
        if op.cache_mode == "PA_NZ" and t is not None:
            problem = nz_block_tiles(t)
            return None if problem is None else f"PA_NZ needs {problem}"
    return check


def cache_writer(value):
    """(the op, its cache_mode) when `value` is a paged cache an mla op wrote in place (a result
    of its in-place trait, OpDef.inplace) in one of CACHE_MODES (mla.scatter_cache, the kv/kr
    caches of mla.prolog/prolog_v2...); else None."""
    owner = value.owner if isinstance(value, ir.OpResult) else None
    opdef = None if owner is None else MLA.ops.get(owner.operation.name)
    if opdef is None or opdef.result_names[value.result_number] not in opdef.inplace \
            or "cache_mode" not in opdef.attribute_by_name:
        return None
    attr = owner.attributes["cache_mode"] if "cache_mode" in owner.attributes else None
    if attr is not None and not isinstance(attr, ir.StringAttr):
        return None         # an attribute of the wrong kind: the writer's own rules report it
    # value_bytes: `.value` cannot convert a string that is not UTF-8 (ARG-006 at the writer)
    mode = bytes(attr.value_bytes).decode("utf-8", "replace") if attr is not None \
        else opdef.attribute_by_name["cache_mode"].default
    return (owner, mode) if mode in CACHE_MODES else None


def read_in_written_mode(name):
    """Dataflow: the cache `name` is read in the cache_mode its writer used (a PA_NZ cache read
    as PA_BSND, or the reverse, would verify and read the bytes in the wrong order)."""
    def check(op, s):
        value = getattr(op, name)
        writer = None if value is None else cache_writer(value)
        if writer is not None and writer[1] != op.cache_mode:
            return (f"written by '{writer[0].name}' in cache_mode {writer[1]}, read here as "
                    f"{op.cache_mode}")
    return check


def broadcasts_to(shape, target) -> bool:
    """`shape` broadcasts to `target` (NumPy rules) as far as the known dimensions tell."""
    if len(shape) > len(target):
        return False
    return all(d is None or t is None or d in (1, t) for d, t in zip(reversed(shape), reversed(target)))


def broadcast(*shapes):
    """NumPy broadcasting of shapes with unknown (None) dims; None if they do not broadcast."""
    rank = max(len(s) for s in shapes)
    out = []
    for dims in itertools.zip_longest(*[tuple(reversed(s)) for s in shapes], fillvalue=1):
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            return None
        out.append(known.pop() if known else (None if None in dims else 1))
    return tuple(reversed(out[:rank]))

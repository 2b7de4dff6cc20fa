"""FIA rules 6.A: which operands are present, their dtype sets and formats."""
from __future__ import annotations

import numpy as np
from mlir import ir

from ..primitive import cache_writer
from ..rules import ARGUMENT, DATAFLOW, RUNTIME
from .common import (
    FLOATS,
    KV_TYPES,
    KV_TYPES_A2,
    MASK_TYPES,
    OPTIONAL_TENSORS,
    OUT_TYPES,
    PT,
    QUERY_TYPES,
    FiaRules,
    one_of,
    seq_axis,
)

rules = FiaRules()


# =============================================================================================
# 6.A presence, dtype sets, formats
# =============================================================================================

@rules.rule("FIA-001", "query", kind=ARGUMENT)
def query_present(op, s):
    if op.query is None:
        return "required operand is absent (null)"


@rules.rule("FIA-002", "key")
def key_present(op, s):
    if not op.key:
        return "expected a tensor list with at least one tensor, got none (null)"


@rules.rule("FIA-003", "value")
def value_present(op, s):
    if not op.value:
        return "expected a tensor list with at least one tensor, got none (null)"


@rules.rule("FIA-005", "query")
def query_dtype(op, s):
    if op.query.dtype not in QUERY_TYPES:
        return f"expected element type {one_of(QUERY_TYPES)}, got {op.query.dtype}"


def element(i, tensors) -> str:
    """Which tensor of a tensor list a message is about (nothing for a single tensor)."""
    return f" (element {i})" if len(tensors) > 1 else ""


def _list_dtype(tensors, allowed):
    for i, t in enumerate(tensors):
        if t.dtype not in allowed:
            return f"expected element type {one_of(allowed)}, got {t.dtype}{element(i, tensors)}"


@rules.rule("FIA-006", "key")
def key_dtype(op, s):
    return _list_dtype(op.key, KV_TYPES)


@rules.rule("FIA-007", "value")
def value_dtype(op, s):
    return _list_dtype(op.value, KV_TYPES)


@rules.rule("FIA-008", ("key", "value"))
def kv_dtype_a2(op, s, name):
    """A2: key/value are FLOAT16, BFLOAT16, INT8 or INT4(INT32) (L673)."""
    return _list_dtype(getattr(op, name), KV_TYPES_A2)


@rules.rule("FIA-009", "value")
def kv_one_dtype(op, s):
    dtypes = {t.dtype for t in op.key + op.value}
    if len(dtypes) > 1:
        return f"expected key and value tensors of one element type, got {sorted(dtypes)}"


@rules.rule("FIA-035", "value")
def list_lengths(op, s):
    if len(op.key) != len(op.value):
        return f"expected as many tensors as key ({len(op.key)}), got {len(op.value)}"


@rules.rule("FIA-010", "attention_out")
def out_dtype(op, s):
    if op.attention_out.dtype not in OUT_TYPES:
        return f"expected element type {one_of(OUT_TYPES)}, got {op.attention_out.dtype}"


@rules.rule("FIA-011", ("query", "key", "value", "attention_out"))
def main_formats(op, s, name):
    """ND only; in MLA mode a paged latent cache may be FRACTAL_NZ (the prolog's PA_NZ)."""
    value = getattr(op, name)
    if name in ("key", "value"):
        if s.mla and s.paged:
            return None
        if any(t.is_nz for t in value):
            return ("expected format ND (FRACTAL_NZ only for the paged cache of the MLA mode), "
                    "got FRACTAL_NZ")
    elif value.is_nz:
        return "expected format ND, got FRACTAL_NZ"


@rules.rule("FIA-012", "pse_shift")
def pse_kind(op, s):
    pse = op.pse_shift
    if pse is None:
        return None
    if pse.dtype not in FLOATS:
        return f"expected element type f16 or bf16, got {pse.dtype}"
    if pse.is_nz:
        return "expected format ND, got FRACTAL_NZ"
    if pse.rank != 4:
        return f"expected rank 4, got {pse}"


@rules.rule("FIA-013", "atten_mask")
def mask_kind(op, s):
    mask = op.atten_mask
    if mask is None:
        return None
    if mask.dtype not in MASK_TYPES:
        return f"expected element type {one_of(MASK_TYPES)}, got {mask.dtype}"
    if mask.is_nz:
        return "expected format ND, got FRACTAL_NZ"
    if mask.rank not in (2, 3, 4):
        return f"expected rank 2, 3 or 4, got {mask}"


@rules.rule("FIA-015", OPTIONAL_TENSORS + ("query_rope", "dequant_scale_query"))
def optional_formats(op, s, name):
    """Every optional tensor is ND (parameter table); key_rope follows key (FIA-MLA-7)."""
    t = getattr(op, name)
    if t is not None and t.is_nz:
        return "expected format ND, got FRACTAL_NZ"


@rules.rule("FIA-014", ("query", "key", "value", "pse_shift", "atten_mask"), kind=RUNTIME,
      profiles=PT)
def contiguous(op, s, name):
    """The seed's parameter table marks these tensors "non-contiguous: x" (L124, L134, L144,
    L155, L166). IR values have no strides (a compiled program's intermediates are the
    runtime's business), so this is a call-time rule of the eager calls on the caller's arrays."""
    value = getattr(op, name)
    tensors = value if isinstance(value, list) else [value]
    for i, t in enumerate(tensors):
        data = None if t is None else t.value
        if isinstance(data, np.ndarray) and not data.flags.c_contiguous:
            return (f"expected a contiguous tensor, got a strided view{element(i, tensors)} "
                    f"(the operator does not support non-contiguous tensors)")


@rules.rule("FIA-STATIC", ("query", "key", "value") + OPTIONAL_TENSORS
      + ("query_rope", "key_rope", "dequant_scale_query"))
def static_shapes(op, s, name):
    """Every operand has a static shape: the seed's rules are about sizes. The one exception is
    the S axis of a tensor list's elements: IRDL gives every value of a variadic operand one
    type, so a list whose elements differ in S (section 1.11) has a dynamic S in IR; the
    rules that need each S hold until the values are known (eager calls and the interpreter
    check them with the actual shapes)."""
    value = getattr(op, name)
    is_list = isinstance(value, list) and len(value) > 1
    for t in value if isinstance(value, list) else [value]:
        if t is None:
            continue
        dynamic = [i for i, d in enumerate(t.shape) if d is None]
        if is_list and dynamic == [seq_axis(op.input_layout)]:
            continue
        if dynamic:
            return f"expected a static shape, got {t}"


@rules.rule("FIA-MLA-20", ("key", "value", "key_rope"), mla=True, kind=DATAFLOW)
def cache_read_in_its_written_layout(op, s, name):
    """A paged cache is read in the layout its producer wrote: mla.prolog(_v2) in PA_NZ mode
    writes NZ-ordered blocks into an ND-typed tensor, which attention must read through
    mla.nz_cache_view (and a PA_BSND cache must not be viewed as NZ). Without this check the
    program would verify and silently read the bytes in the wrong order."""
    values = getattr(op, name)
    for value in values if isinstance(values, list) else [values]:
        source, mode, viewed = _cache_producer(value)
        if source is None:
            continue
        if mode == "PA_NZ" and not viewed:
            return (f"this is a PA_NZ cache written by '{source.name}' (NZ-ordered blocks); read it "
                    f"through 'mla.nz_cache_view' to get the FRACTAL_NZ tensor attention expects")
        if mode == "PA_BSND" and viewed:
            return (f"'mla.nz_cache_view' of a PA_BSND cache written by '{source.name}': its blocks "
                    f"are row-major, not NZ")


def _cache_producer(value):
    """(the op that wrote this paged cache in place -- mla.prolog/prolog_v2 or
    mla.scatter_cache --, its cache_mode, whether it went through mla.nz_cache_view), or
    (None, None, False)."""
    viewed = False
    owner = value.owner if isinstance(value, ir.OpResult) else None
    if owner is not None and owner.name == "mla.nz_cache_view":
        viewed = True
        value = owner.operands[0]
    writer = cache_writer(value)
    return (*writer, viewed) if writer is not None else (None, None, False)

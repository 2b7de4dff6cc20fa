"""Element types, tensor formats and the plain-Python view of a tensor type that rules read.

The FRACTAL_NZ format is the tensor encoding `#mla.format<"FRACTAL_NZ">` on the logical shape;
no encoding means ND (docs/api.md section 3).
"""
from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from typing import Optional

import ml_dtypes
import numpy as np
from mlir import ir

from .rules import DynamicDim

ND = "ND"
FRACTAL_NZ = "FRACTAL_NZ"
FORMATS = (ND, FRACTAL_NZ)

# Short dtype names used in rules and messages <-> NumPy dtypes. The names are MLIR's own
# element-type spellings, so a message reads the same as the IR it is about.
NUMPY_DTYPES = {
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "ui8": np.dtype(np.uint8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "ui64": np.dtype(np.uint64),   # FIA dequant scales: a float32 bit pattern in the low 32 bits
    "i4": np.dtype(ml_dtypes.int4),
}
_DTYPE_NAMES = {v: k for k, v in NUMPY_DTYPES.items()}

_FORMAT_ENCODING = re.compile(r'^#mla\.format<"([A-Za-z_0-9]+)">$')


def dtype_name(dtype) -> str:
    """The MLIR element-type name of a NumPy dtype (ValueError for an unsupported one)."""
    try:
        return _DTYPE_NAMES[np.dtype(dtype)]
    except KeyError:
        raise ValueError(f"unsupported element type {np.dtype(dtype)}") from None


def numpy_dtype(name: str) -> np.dtype:
    return NUMPY_DTYPES[name]


@dataclass(frozen=True)
class TensorInfo:
    """What a verifier rule sees of one tensor: logical shape, element type, format.

    `value` is the tensor's data when it is known (an eager call); rules of kind "runtime"
    read it. A dynamic dimension is None.
    """

    shape: tuple
    dtype: str
    format: str = ND
    value: Optional[np.ndarray] = None

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def is_nz(self) -> bool:
        return self.format == FRACTAL_NZ

    @property
    def is_empty(self) -> bool:
        return any(d == 0 for d in self.shape)

    @property
    def numel(self) -> int:
        """The number of elements; reading it for a dynamic shape raises DynamicDim (a rule
        that needs it holds until the shape is known, as with `rules.dim`)."""
        if None in self.shape:
            raise DynamicDim()
        return int(np.prod(self.shape)) if self.shape else 1

    def __str__(self) -> str:
        dims = "x".join("?" if d is None else str(d) for d in self.shape)
        text = f"{dims}x{self.dtype}" if dims else self.dtype
        return f"tensor<{text}>" if self.format == ND else f"tensor<{text}, {self.format}>"

    def with_value(self, value) -> "TensorInfo":
        return TensorInfo(self.shape, self.dtype, self.format, value)


def format_encoding(fmt: str) -> Optional[ir.Attribute]:
    """The encoding attribute for a format (None for ND). Needs a context with `mla` loaded."""
    if fmt == ND:
        return None
    return ir.Attribute.parse(f'#mla.format<"{fmt}">')


def tensor_type(shape, dtype: str, fmt: str = ND) -> ir.RankedTensorType:
    element = ir.Type.parse(dtype)
    dims = [ir.ShapedType.get_dynamic_size() if d is None else int(d) for d in shape]
    return ir.RankedTensorType.get(dims, element, format_encoding(fmt))


class TypeDescriptionError(ValueError):
    """A type the mla verifiers cannot describe (unranked, foreign encoding...)."""


# Types are uniqued per context and hashed by identity: the memo is per context, and goes with it.
_described: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def describe_type(t: ir.Type) -> TensorInfo:
    memo = _described.get(t.context)
    if memo is None:
        memo = _described[t.context] = {}
    info = memo.get(t)
    if info is None:
        info = memo[t] = _describe_type(t)
    return info


def _describe_type(t: ir.Type) -> TensorInfo:
    if not isinstance(t, ir.RankedTensorType):
        raise TypeDescriptionError(f"expected a ranked tensor, got {t}")
    rt = t
    # `rt.shape` builds the whole list on every access: read it once (linear in the rank).
    dynamic = ir.ShapedType.get_dynamic_size()
    shape = tuple(None if d == dynamic else d for d in rt.shape)
    fmt = ND
    if rt.encoding is not None:
        m = _FORMAT_ENCODING.match(str(rt.encoding))
        if not m or m.group(1) not in FORMATS:
            raise TypeDescriptionError(
                f"unsupported tensor encoding {rt.encoding} (expected #mla.format<\"FRACTAL_NZ\">)")
        fmt = m.group(1)
    return TensorInfo(shape, str(rt.element_type), fmt)


def reshape_groups(source, target):
    """The reassociation of a reshape that only splits or merges consecutive axes: for each
    axis of the shorter shape, the axes of the longer one it is made of; None when the reshape
    is not of that form (then it goes through a 1-D collapse)."""
    long, short = (source, target) if len(source) >= len(target) else (target, source)
    groups, i = [], 0
    for k, d in enumerate(short):
        if i >= len(long):
            return None
        group, size = [i], long[i]
        i += 1
        # unit axes at the end belong to the last group
        while size != d or (k == len(short) - 1 and i < len(long)):
            if i >= len(long):
                return None
            group.append(i)
            size *= long[i]
            i += 1
        groups.append(group)
    return groups if i == len(long) and short else None

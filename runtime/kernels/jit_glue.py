"""The elementwise and row stages between the products, compiled by MLIR (jit.py): RmsNorm, the
residual add, SwiGLU, MoE's weighted sum. Each reads its operands in their own type (bf16,
f16 or f32), computes in float32 and rounds once to the result's type (arith.truncf), as
docs/numerics.md writes the formulas; one pass over the rows, no float32 temporaries. Rows
are split among threads (jit.parallel): every output element is computed by one thread in one
order, so the bits do not depend on the thread count. Sums along a row (RmsNorm's mean of
squares) run over 16 lanes, then across them in a fixed order.

Each function takes C-contiguous NumPy arrays and returns None when it does not apply (another
layout or dtype): the caller then computes the same formula in NumPy.
"""
from __future__ import annotations

import functools

import numpy as np

from . import jit
from .jit import MLIR_TYPES, VF, Text, memref

_HEAD = """  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>"""


def _mlir(*arrays) -> tuple | None:
    """The MLIR element types of the arrays, or None if one has no kernel (or is not
    C-contiguous)."""
    names = []
    for a in arrays:
        if not isinstance(a, np.ndarray) or not a.flags.c_contiguous or a.dtype.name not in ("bfloat16", "float16", "float32"):
            return None
        names.append(MLIR_TYPES[a.dtype.name])
    return tuple(names)


def _row_loop(t: Text, width: str, body) -> None:
    """for h in [0, width) by 16 lanes: body(t, index_in_row, mask or None); the last
    width % 16 lanes masked (%full, %tail_mask: _tail(width))."""
    t("scf.for %h = %c0 to %full step %c16 {")
    body(t, "%h", None)
    t("}")
    t("scf.if %has_tail {")
    body(t, "%full", "%tail_mask")
    t("}")


def _tail(width: str) -> str:
    return (f"  %c15 = arith.constant 15 : index\n"
            f"  %tail_n = arith.andi {width}, %c15 : index\n"
            f"  %full = arith.subi {width}, %tail_n : index\n"
            f"  %tail_mask = vector.create_mask %tail_n : vector<16xi1>\n"
            f"  %has_tail = arith.cmpi ne, %tail_n, %c0 : index")


# --- RmsNorm -------------------------------------------------------------------------------------

def _rms_norm_text(xt, gt, yt) -> str:
    """y[r] = x[r] / sqrt(sum(x[r]^2) / H + eps) * gamma, per row r in [r0, r1)."""
    t = Text()
    t("%xo = arith.muli %r, %ldx : index")
    t("%yo = arith.muli %r, %H : index")
    # the sum of squares: 16 lanes, each a running sum (x^2 exact for 16-bit inputs), then the lanes
    t("%acc = scf.for %h = %c0 to %full step %c16 iter_args(%a = %zero) -> (vector<16xf32>) {")
    i = t.let("arith.addi %xo, %h : index")
    v = t.load("%x", i, xt)
    t(f"%a2 = vector.fma {v}, {v}, %a : {VF}")
    t(f"scf.yield %a2 : {VF}")
    t("}")
    i = t.let("arith.addi %xo, %full : index")
    v = t.load("%x", i, xt, "%tail_mask")
    t(f"%acc2 = vector.fma {v}, {v}, %acc : {VF}")
    t(f"%s = vector.reduction <add>, %acc2 : {VF} into f32")
    t("%mean = arith.divf %s, %Hf : f32")
    t("%me = arith.addf %mean, %eps : f32")
    t("%d = math.sqrt %me : f32")
    t(f"%dv = vector.broadcast %d : f32 to {VF}")

    def write(t, h, mask):
        x = t.load("%x", t.let(f"arith.addi %xo, {h} : index"), xt, mask)
        g = t.load("%g", h, gt, mask)
        q = t.let(f"arith.divf {x}, %dv : {VF}")
        t.store(t.let(f"arith.mulf {q}, {g} : {VF}"), "%y", t.let(f"arith.addi %yo, {h} : index"), yt, mask)
    _row_loop(t, "%H", write)
    return (f"func.func @kernel(%x: {memref(xt)}, %g: {memref(gt)}, %y: {memref(yt)}, %H: index, "
            f"%ldx: index, %r0: index, %r1: index, %eps: f32) attributes {{llvm.emit_c_interface}} {{\n{_HEAD}\n{_tail('%H')}\n"
            "  %Hi = arith.index_cast %H : index to i64\n  %Hf = arith.uitofp %Hi : i64 to f32\n"
            "  scf.for %r = %r0 to %r1 step %c1 {\n" + t.text(4) + "\n  }\n  return\n}")


def rms_norm(x: np.ndarray, gamma: np.ndarray, eps: float, out_dtype) -> np.ndarray | None:
    """x / sqrt(mean(x^2) + eps) * gamma over the last axis (float32), rounded once to
    out_dtype, as a C-contiguous array; x's rows may be strided (a slice of wider rows). None
    where the kernel does not apply."""
    gamma = np.ascontiguousarray(gamma).reshape(-1)
    rows, ldx = _rows(x)
    y = np.empty(x.shape, out_dtype)
    types = _mlir(gamma, y)
    if ldx is None or types is None or x.dtype.name not in ("bfloat16", "float16", "float32") \
            or gamma.size != x.shape[-1]:
        return None
    h = x.shape[-1]
    types = (MLIR_TYPES[x.dtype.name], *types)
    entry = jit.compiled(("rms_norm", *types), functools.partial(_rms_norm_text, *types))
    base = (x.ctypes.data, (rows - 1) * ldx + h if rows else 0)
    jit.parallel(rows, lambda r0, r1: jit.invoke(entry, (base, gamma, y), (h, ldx, r0, r1), (eps,)), x.size)
    return y


def _rows(x: np.ndarray):
    """(rows, row stride in elements) of x viewed as (rows, last dim), its last axis
    contiguous; (0, None) when its rows do not lie at one stride."""
    if x.ndim == 0 or x.shape[-1] == 0:
        return 0, None
    rows = x.size // x.shape[-1]
    if x.shape[-1] > 1 and x.strides[-1] != x.itemsize:
        return rows, None
    try:
        flat = x.reshape(rows, x.shape[-1])            # a view when the leading axes merge
    except ValueError:
        return rows, None
    if not np.shares_memory(flat, x) or flat.strides[0] % x.itemsize or flat.strides[0] < 0:
        return rows, None
    return rows, flat.strides[0] // x.itemsize if rows > 1 else x.shape[-1]


# --- elementwise: x op y, y the same shape or one value per row -----------------------------------

_BINARY = {"add": "arith.addf", "mul": "arith.mulf", "div": "arith.divf"}


def _binary_text(op, per_row, xt, yt, zt) -> str:
    """z[r, h] = x[r, h] op y[r, h] (y[r] when per_row), rows [r0, r1) of width H."""
    t = Text()
    t("%xo = arith.muli %r, %H : index")
    if per_row:
        t(f"%ys = memref.load %y[%r] : {memref(yt)}")
        ys = "%ys" if yt == "f32" else t.let(f"arith.extf {t.let(f'arith.bitcast %ys : i16 to {yt}')} : {yt} to f32")
        t(f"%yv = vector.broadcast {ys} : f32 to {VF}")

    def body(t, h, mask):
        i = t.let(f"arith.addi %xo, {h} : index")
        x = t.load("%x", i, xt, mask)
        y = "%yv" if per_row else t.load("%y", i, yt, mask)
        t.store(t.let(f"{_BINARY[op]} {x}, {y} : {VF}"), "%z", i, zt, mask)
    _row_loop(t, "%H", body)
    return (f"func.func @kernel(%x: {memref(xt)}, %y: {memref(yt)}, %z: {memref(zt)}, %H: index, %r0: index, "
            f"%r1: index) attributes {{llvm.emit_c_interface}} {{\n{_HEAD}\n{_tail('%H')}\n"
            "  scf.for %r = %r0 to %r1 step %c1 {\n" + t.text(4) + "\n  }\n  return\n}")


def binary(op: str, x: np.ndarray, y: np.ndarray, out_dtype) -> np.ndarray | None:
    """x op y (add, mul, div) in float32, rounded once to out_dtype, for y of x's shape or
    x's shape with a last dim of 1 (one value per row); None otherwise."""
    if x.ndim == 0 or y.shape not in (x.shape, x.shape[:-1] + (1,)):
        return None
    z = np.empty(x.shape, out_dtype)
    types = _mlir(x, y, z)
    if types is None:
        return None
    h = x.shape[-1]
    rows = x.size // h if h else 0
    per_row = y.shape != x.shape or h == 1
    entry = jit.compiled(("binary", op, per_row, *types), functools.partial(_binary_text, op, per_row, *types))
    jit.parallel(rows, lambda r0, r1: jit.invoke(entry, (x, y, z), (h, r0, r1)), x.size)
    return z


# --- SwiGLU ------------------------------------------------------------------------------------

def _swiglu_text(xt, yt) -> str:
    """y[r, h] = a * sigmoid(a) * b, a = x[r, h], b = x[r, I + h], sigmoid(a) = 1 / (1 + exp(-a))."""
    t = Text()
    t("%xo = arith.muli %r, %I2 : index")
    t("%yo = arith.muli %r, %I : index")
    t("%bo = arith.addi %xo, %I : index")
    one = t.splat(1.0)

    def body(t, h, mask):
        a = t.load("%x", t.let(f"arith.addi %xo, {h} : index"), xt, mask)
        b = t.load("%x", t.let(f"arith.addi %bo, {h} : index"), xt, mask)
        e = t.exp(t.let(f"arith.negf {a} : {VF}"))
        s = t.let(f"arith.divf {one}, {t.let(f'arith.addf {one}, {e} : {VF}')} : {VF}")
        y = t.let(f"arith.mulf {t.let(f'arith.mulf {a}, {s} : {VF}')}, {b} : {VF}")
        t.store(y, "%y", t.let(f"arith.addi %yo, {h} : index"), yt, mask)
    _row_loop(t, "%I", body)
    return (f"func.func @kernel(%x: {memref(xt)}, %y: {memref(yt)}, %I: index, %r0: index, %r1: index) "
            f"attributes {{llvm.emit_c_interface}} {{\n{_HEAD}\n{_tail('%I')}\n"
            "  %c2 = arith.constant 2 : index\n  %I2 = arith.muli %I, %c2 : index\n"
            "  scf.for %r = %r0 to %r1 step %c1 {\n" + t.text(4) + "\n  }\n  return\n}")


def swiglu(x: np.ndarray, out_dtype) -> np.ndarray | None:
    """SwiGLU over the last axis (its first half gated by the second), float32, rounded once."""
    if x.ndim == 0 or x.shape[-1] % 2:
        return None
    i = x.shape[-1] // 2
    y = np.empty(x.shape[:-1] + (i,), out_dtype)
    types = _mlir(x, y)
    if types is None:
        return None
    rows = y.size // i if i else 0
    entry = jit.compiled(("swiglu", *types), functools.partial(_swiglu_text, *types))
    jit.parallel(rows, lambda r0, r1: jit.invoke(entry, (x, y), (i, r0, r1)), x.size * 8)
    return y


# --- MoE: the weighted sum of each token's expert rows, plus the shared experts and the residual ---

def _finalize_text(k, has1, has2, et, st, x1t, x2t, ot) -> str:
    """out[t] = sum_j scales[t, j] * ex[row[t * k + j]] (j in order), + x1[t], + x2[t]."""
    t = Text()
    t("%to = arith.muli %r, %H : index")
    t("%ko = arith.muli %r, %ck : index")
    rows, weights = [], []
    for j in range(k):
        t(f"%cj{j} = arith.constant {j} : index")
        idx = t.let(f"arith.addi %ko, %cj{j} : index")
        row = t.let(f"memref.load %rows[{idx}] : memref<?xi64>")
        rows.append(t.let(f"arith.muli {t.let(f'arith.index_cast {row} : i64 to index')}, %H : index"))
        sc = t.let(f"memref.load %scales[{idx}] : {memref(st)}")
        if st != "f32":
            sc = t.let(f"arith.extf {t.let(f'arith.bitcast {sc} : i16 to {st}')} : {st} to f32")
        weights.append(t.let(f"vector.broadcast {sc} : f32 to {VF}"))

    def body(t, h, mask):
        acc = None
        for row, w in zip(rows, weights):
            v = t.load("%ex", t.let(f"arith.addi {row}, {h} : index"), et, mask)
            acc = t.let(f"arith.mulf {w}, {v} : {VF}") if acc is None else t.let(f"vector.fma {w}, {v}, {acc} : {VF}")
        i = t.let(f"arith.addi %to, {h} : index")
        if has1:
            acc = t.let(f"arith.addf {acc}, {t.load('%x1', i, x1t, mask)} : {VF}")
        if has2:
            acc = t.let(f"arith.addf {acc}, {t.load('%x2', i, x2t, mask)} : {VF}")
        t.store(acc, "%out", i, ot, mask)
    _row_loop(t, "%H", body)
    return (f"func.func @kernel(%ex: {memref(et)}, %rows: memref<?xi64>, %scales: {memref(st)}, "
            f"%x1: {memref(x1t)}, %x2: {memref(x2t)}, %out: {memref(ot)}, %H: index, %r0: index, %r1: index) "
            f"attributes {{llvm.emit_c_interface}} {{\n{_HEAD}\n{_tail('%H')}\n  %ck = arith.constant {k} : index\n"
            "  scf.for %r = %r0 to %r1 step %c1 {\n" + t.text(4) + "\n  }\n  return\n}")


def moe_finalize(expanded_x, rows, scales, x1, x2, out_dtype) -> np.ndarray | None:
    """out[t] = sum_j scales[t, j] * expanded_x[rows[t, j]] (+ x1[t]) (+ x2[t]) in float32,
    rounded once; rows (T, k) int64 indices of expanded_x's rows (checked by the caller)."""
    tokens, k = scales.shape
    h = expanded_x.shape[-1]
    out = np.empty((tokens, h), out_dtype)
    present = [a for a in (x1, x2) if a is not None]
    types = _mlir(expanded_x, scales, *present, out)
    if types is None or k > 16 or any(a.shape != out.shape for a in present):
        return None
    et, st, *xt, ot = types
    x1t = xt.pop(0) if x1 is not None else "f32"
    x2t = xt.pop(0) if x2 is not None else "f32"
    rows = np.ascontiguousarray(rows, np.int64)
    dummy = np.zeros(1, np.float32)
    entry = jit.compiled(("moe_finalize", k, x1 is not None, x2 is not None, et, st, x1t, x2t, ot),
                         functools.partial(_finalize_text, k, x1 is not None, x2 is not None, et, st, x1t, x2t, ot))
    arrays = (expanded_x, rows, scales, dummy if x1 is None else x1, dummy if x2 is None else x2, out)
    jit.parallel(tokens, lambda r0, r1: jit.invoke(entry, arrays, (h, r0, r1)), out.size * (k + 2))
    return out

"""raise-quant: written-out int8 quantization -> mla.dynamic_quant, mla.quantize, mla.quant_matmul.

PyTorch code that runs a w8a8 linear without torch_npu writes npu_dynamic_quant, npu_quantize
and npu_quant_matmul out (frontend/aten.py converts each ATen op on its own):

    dynamic quant    z = x32 [* smooth]                          x32 = extf(x) or x, float32
                     scale = amax(|z|, last axis) / 127
                     y = fptosi(min(max(roundeven(z / scale), lo), 127))      lo = -128 or -127
                     -> y, scale' = mla.dynamic_quant(x, smooth_scales = smooth), scale = view(scale')
    static quant     y = fptosi(min(max(roundeven(x32 * scale), -128), 127))
                     -> mla.quantize(x, scale)              (npu_quantize: the scale multiplies)
    quant matmul     sitofp(matmul(extsi(x8), extsi(w8))) * x_scale * w_scale      [-> truncf]
                     -> mla.quant_matmul(x8, w8, x_scale, w_scale)        (w8: w with extsi taken
                        off, through a transpose; a trailing truncf becomes its result type)

Each is a declarative pattern (passes/pattern.py) of the form torch_npu documents and the CPU
kernels compute, in that order: the row maximum divided by 127, z divided by the scale, ties to
even (npu_dynamic_quant); float32 x times the scale, ties to even, saturated to [-128, 127]
(npu_quantize, numerics.md 6); the exact int32 sum converted to float32, times the per-token
scale, then the per-channel one (numerics.md 7). The raised ops therefore compute what the written-out
form computes, bit for bit, except on an all-zero row: 0/0 makes the written-out form's values
undefined, mla.dynamic_quant gives scale 0 and zeros. fuse-prolog (FQ scenarios) and the
lowering then see the ops a hand-built w8a8 graph has (models/deepseek.py).

A match is raised only if its intermediate values have no other users (Match.escapes) and the
raised op passes its own verifier; otherwise the written-out form stays and runs as written.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from ..dialect.dialect import attributes_of
from ..dialect.primitive import DynamicQuant, Quantize, QuantMatmul, Transpose
from ..dialect.types import TensorInfo
from .pattern import Pattern, match
from .raise_primitives import producer, splat, trailing_cast
from .registry import UNCHANGED, ModulePass, register_pass
from .rewrite import DECLINED, Builder, info, insertion_point, legality, replace, rewrite_anchors


def _second_is(*values):
    """The op's second operand is a splat constant of one of `values`."""
    return lambda op: splat(op.operands[1]) in values


def _result_is(dtype):
    return lambda op: info(op.results[0]).dtype == dtype


# --- the patterns ----------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def dynamic_quant_pattern(smooth: bool) -> Pattern:
    p = Pattern("mla.dynamic_quant" + (" smooth" if smooth else ""), root="to_int8")
    x = p.input("x")
    f32 = _result_is("f32")          # the kernel's arithmetic: every step float32
    z = p.op("mla.mul", x=x, y=p.input("smooth_scales"), where=f32, name="smooth") if smooth else x
    row_max = p.op("mla.amax", x=p.op("math.absf", z), where=f32)
    scale = p.op("mla.div", x=row_max, y=p.input("c127"), where=lambda op: f32(op) and _second_is(127.0)(op),
                 name="scale")
    ratio = p.op("mla.div", x=z, y=scale, where=f32)
    low = p.op("arith.maximumf", p.op("math.roundeven", ratio), p.input("lo"), where=_second_is(-128.0, -127.0))
    high = p.op("arith.minimumf", low, p.input("hi"), where=_second_is(127.0))
    y = p.op("arith.fptosi", high, where=_result_is("i8"), name="to_int8")
    p.output("y", y)
    p.output("scale", scale)
    return p


@functools.lru_cache(maxsize=None)
def quantize_pattern() -> Pattern:
    p = Pattern("mla.quantize", root="to_int8")
    scaled = p.op("mla.mul", x=p.input("x"), y=p.input("scale"), where=_result_is("f32"))
    low = p.op("arith.maximumf", p.op("math.roundeven", scaled), p.input("lo"), where=_second_is(-128.0))
    high = p.op("arith.minimumf", low, p.input("hi"), where=_second_is(127.0))
    p.output("y", p.op("arith.fptosi", high, where=_result_is("i8"), name="to_int8"))
    return p


@functools.lru_cache(maxsize=None)
def quant_matmul_pattern(cast_first: bool) -> Pattern:
    """cast_first: the weight widened, then transposed (w.to(int32).t()); else the reverse."""
    p = Pattern("mla.quant_matmul", root="dequant")
    w32 = p.op("arith.extsi", p.input("w"), name="w32")
    if cast_first:
        w32 = p.op("mla.transpose", x=w32, name="wt")
    acc = p.op("mla.matmul", x=p.op("arith.extsi", p.input("x"), name="x32"), w=w32, name="acc")
    f32 = _result_is("f32")
    per_token = p.op("mla.mul", x=p.op("arith.sitofp", acc, where=f32), y=p.input("x_scale"), where=f32)
    p.output("y", p.op("mla.mul", x=per_token, y=p.input("w_scale"), name="dequant"))
    return p


# --- the rewrites ------------------------------------------------------------------------------------

def _raise_dynamic_quant(m) -> bool:
    z = m.op("to_int8")
    smooth = m.value("smooth_scales") if "smooth_scales" in m.pattern.inputs else None
    x, cast = _widened_by_the_match(m, m.value("x"))
    t = info(x)
    operands = {"x": t} | ({"smooth_scales": info(smooth)} if smooth is not None else {})
    results = {"y": TensorInfo(t.shape, "i8"), "scale": TensorInfo(t.shape[:-1], "f32")}
    if legality(DynamicQuant, operands, {"rounding": "half_even"}, results):
        return False
    ip = insertion_point([x] + ([smooth] if smooth is not None else []), m)
    if ip is None:
        return False
    build = Builder(ip, z.location)
    dq = build.op(DynamicQuant, {"x": x, "smooth_scales": smooth}, {"rounding": "half_even"},
                  [results["y"], results["scale"]])
    replace(m, {"y": dq.results[0], "scale": dq.results[1]}, build)
    if cast is not None and not list(cast.results[0].uses):
        cast.erase()
    return True


def _widened_by_the_match(m, x):
    """x's float source when x = extf(source) is read only inside the match (the kernels widen
    their input themselves), else x; and the cast to erase after the rewrite (or None)."""
    cast = producer(x, "arith.extf")
    if cast is not None and all(u.owner.operation in m.operations for u in x.uses):
        return cast.operands[0], cast
    return x, None


def _raise_quantize(m) -> bool:
    x, cast = _widened_by_the_match(m, m.value("x"))
    scale = m.value("scale")
    t = info(x)
    if legality(Quantize, {"x": t, "scale": info(scale)}, {}, {"y": TensorInfo(t.shape, "i8")}):
        return False
    ip = insertion_point([x, scale], m)
    if ip is None:
        return False
    build = Builder(ip, m.op("to_int8").location)
    y = build.op(Quantize, {"x": x, "scale": scale}, {}, [TensorInfo(t.shape, "i8")]).result
    replace(m, {"y": y}, build)
    if cast is not None and not list(cast.results[0].uses):
        cast.erase()
    return True


def _raise_quant_matmul(m) -> bool:
    x8, w8 = m.value("x"), m.value("w")
    x_scale, w_scale = m.value("x_scale"), m.value("w_scale")
    if info(x8).dtype != "i8" or info(w8).dtype != "i8":
        return False
    # The written form broadcasts x_scale against the (..., N) product: it scales per token only
    # when it is (..., 1). A (T,) scale would scale the columns (T == N), which QMM-006 takes
    # for a per-token one.
    acc = info(m.op("acc").results[0])
    if info(x_scale).rank != acc.rank or info(x_scale).shape[-1] != 1:
        return False
    y = m.output("y")
    out = info(y)
    truncf = trailing_cast(y)
    if truncf is not None:          # the kernel rounds its float32 value once, to this type
        out = info(truncf.results[0])
    transposed = "wt" in m.pattern_ops
    wt = TensorInfo(info(m.op("acc").operands[1]).shape, "i8")          # (K, N), as the product reads it
    operands = {"x": info(x8), "w": wt, "x_scale": info(x_scale), "w_scale": info(w_scale)}
    if out.dtype not in ("bf16", "f16", "f32") or legality(QuantMatmul, operands, {}, {"y": out}):
        return False
    ip = insertion_point([x8, w8, x_scale, w_scale], m)
    if ip is None:
        return False
    build = Builder(ip, m.op("dequant").location)
    if transposed:                  # the int8 weight transposed as its int32 widening was
        w8 = build.op(Transpose, {"x": w8}, {"permutation": list(attributes_of(m.op("wt"))["permutation"])}, [wt]).result
    qmm = build.op(QuantMatmul, {"x": x8, "w": w8, "x_scale": x_scale, "w_scale": w_scale}, {}, [out]).result
    if truncf is not None:
        truncf.results[0].replace_all_uses_with(qmm)
        truncf.erase()
    replace(m, {} if truncf is not None else {"y": qmm}, build)
    return True


@register_pass
@dataclass
class RaiseQuant(ModulePass):
    name = "raise-quant"
    summary = "Make mla.dynamic_quant, mla.quantize and mla.quant_matmul of written-out int8 quantization"

    def apply(self, module, inputs):
        changed = False
        for pattern, anchor_name, rewrite in (
                (dynamic_quant_pattern(True), "arith.fptosi", _raise_dynamic_quant),
                (dynamic_quant_pattern(False), "arith.fptosi", _raise_dynamic_quant),
                (quantize_pattern(), "arith.fptosi", _raise_quantize),
                (quant_matmul_pattern(False), "mla.mul", _raise_quant_matmul),
                (quant_matmul_pattern(True), "mla.mul", _raise_quant_matmul)):
            def find(anchor, pattern=pattern):
                m = match(pattern, anchor)
                return None if m is None or m.escapes else (m, m)
            changed = rewrite_anchors(module, (anchor_name,), find, lambda m, rewrite=rewrite: rewrite(m) or DECLINED,
                                      pass_name=self.name, log=inputs.log) or changed
        return None if changed else UNCHANGED

"""Primitive (pre-fusion) ops of the mla dialect: the pieces unfused MLA code is written in.

Each op mirrors a torch_npu primitive that DeepSeek-style attention calls today, and each is
declared once here; its CPU kernel is in runtime/kernels/primitive.py and the fusion passes
(passes/fuse_prolog.py, passes/fuse_attention.py) recognise graphs of them. Slices, reshapes
and concatenations are upstream `tensor` ops; casts are upstream `arith.truncf`/`arith.extf`;
weights are upstream `ml_program` globals. Guide: docs/dialect.md ("Primitive ops").

    op                    torch_npu / torch                      rule IDs
    mla.rms_norm          npu_rms_norm                           RMS-
    mla.matmul            torch.matmul(x, w), w (K, N); int32 too MM-
    mla.head_matmul       einsum("...hk,hkn->...hn")             HMM-
    mla.quant_matmul      npu_quant_matmul(pertoken_scale=)      QMM-
    mla.rope              npu_interleave_rope / rotate-half      ROPE-
    mla.dynamic_quant     npu_dynamic_quant(smooth_scales=)      DQ-
    mla.quantize          npu_quantize (static, symmetric)       QNT-
    mla.scatter_cache     npu_scatter_pa_kv_cache (one cache)    SC-
    mla.gather            index_select / embedding rows          GTH-
    mla.format_cast       npu_format_cast                        FC-
    mla.transpose         permute                                TR-
    mla.add/mul/div       torch add/mul/div (broadcasting)       EW-
    mla.mean, mla.rsqrt   torch.mean(x, -1, True), torch.rsqrt    MEAN-, RSQ-
    mla.amax              torch.amax(x, -1, True)                AMAX-
    mla.paged_attention   _npu_paged_attention(_mla), GQA        PA-
    mla.attention         scaled_dot_product_attention           ATT-
    mla.causal_mask       triu(ones(S, S), 1)                    CM-
    mla.nz_cache_view     (a PA_NZ cache seen as FRACTAL_NZ)     NZV-

Float arithmetic is float32 and each op rounds once, to its declared result type: the result
types of a graph are its rounding points (spec/numerics.md, "MLA prolog" 2 and 7).
"""
from __future__ import annotations

import itertools

from .dialect import MLA
from mlir import ir

from .opdef import Attribute, OpDef, f64, i1, operand, optional, string
from .rules import DATAFLOW, RuleSet, dim, shape_text
from .types import FRACTAL_NZ, ND, TensorInfo, numpy_dtype

FLOAT_TYPES = ("bf16", "f16", "f32")
INDEX_TYPES = ("i32", "i64")
CACHE_MODES = ("PA_BSND", "PA_NZ")


# --- shared checks ---------------------------------------------------------------------------

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
    """(the op, its cache_mode) when `value` is a paged cache written in place by an mla op
    (mla.scatter_cache, or the kv/kr cache results of mla.prolog/prolog_v2); else None."""
    owner = value.owner if isinstance(value, ir.OpResult) else None
    if owner is None or not (owner.name == "mla.scatter_cache" or owner.name in (
            "mla.prolog", "mla.prolog_v2") and value.result_number in (2, 3)):
        return None
    attr = owner.attributes["cache_mode"] if "cache_mode" in owner.attributes else None
    if attr is not None and not isinstance(attr, ir.StringAttr):
        return None         # an attribute of the wrong kind: the writer's own rules report it
    # value_bytes: `.value` cannot convert a string that is not UTF-8 (ARG-006 at the writer)
    return owner, bytes(attr.value_bytes).decode("utf-8", "replace") if attr is not None else "PA_BSND"


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


# --- mla.rms_norm ----------------------------------------------------------------------------
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
    if differs(op.gamma.shape, (s.H,)):
        return f"expected shape ({s.H},) (the last dimension of x), got {op.gamma.shape}"


@rule("RMS-004", "gamma")
def gamma_dtype(op, s):
    if op.gamma.dtype not in FLOAT_TYPES:
        return f"expected element type bf16, f16 or f32, got {op.gamma.dtype}"


rule("RMS-007", "gamma")(nd_only("gamma"))   # x may be FRACTAL_NZ (normalised row by row)


@rule("RMS-005", "epsilon")
def epsilon_positive(op, s):
    if not op.epsilon > 0:
        return f"must be > 0, got {op.epsilon}"
    if op.epsilon == float("inf"):       # every output would be 0
        return f"must be finite, got {op.epsilon}"


@rule("RMS-006", "y")
def result_type(op, s):
    if differs(op.y.shape, op.x.shape) or op.y.format != op.x.format:
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


# --- mla.matmul --------------------------------------------------------------------------------
# y[..., n] = sum_k x[..., k] w[k, n]: a linear layer with its weight as (in, out) = (K, N), i.e.
# nn.Linear.weight.T. w may be FRACTAL_NZ (a packed weight). float32 accumulation, one rounding.
# i32 x i32 -> i32 (torch.matmul of int32 tensors: exact sums, wrapping modulo 2^32): the integer
# product of a written-out w8a8 linear, which raise-quant makes an mla.quant_matmul of.

matmul_rules = RuleSet()
rule = matmul_rules.rule
rule("MM-001", "x")(rank_at_least("x", 1))
rule("MM-002", "x")(dtype_in("x", FLOAT_TYPES + ("i32",)))
rule("MM-003", "w")(rank_is("w", 2, " (K, N): the weight as (in, out)"))
rule("MM-004", "w")(same_dtype("w", "x"))


@rule("MM-005", "w")
def matmul_inner(op, s):
    if differs((op.w.shape[0],), (op.x.shape[-1],)):
        return f"expected K = {op.x.shape[-1]} rows (the last dimension of x), got {op.w}"


rule("MM-006", "x")(nd_only("x"))


@rule("MM-007", "y")
def matmul_result(op, s):
    integer = op.x.dtype == "i32"
    return result_is("y", lambda op, s: op.x.shape[:-1] + op.w.shape[1:],
                     ("i32",) if integer else FLOAT_TYPES)(op, s)


Matmul = MLA.add(OpDef(
    "mla.matmul",
    operands=[operand("x"), operand("w")],
    results=["y"],
    rules=matmul_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape[:-1] + op.w.shape[1:], op.x.dtype)},
    summary="x @ w with w (K, N), float32 accumulation, result rounded to its type",
))


# --- mla.head_matmul ---------------------------------------------------------------------------
# y[..., h, n] = sum_k x[..., h, k] w[h, k, n]: one matrix per head, the absorbed W_uk / W_uv
# products of MLA (DeepSeek: einsum("bshd,hdc->bshc")).

head_matmul_rules = RuleSet()
rule = head_matmul_rules.rule
rule("HMM-001", "x")(rank_at_least("x", 2, " (..., heads, K)"))
rule("HMM-002", "x")(dtype_in("x", FLOAT_TYPES))
rule("HMM-003", "w")(rank_is("w", 3, " (heads, K, N)"))
rule("HMM-004", "w")(same_dtype("w", "x"))


@rule("HMM-005", "w")
def head_matmul_dims(op, s):
    if differs(op.w.shape[:2], op.x.shape[-2:]):
        return (f"expected (heads, K) = {shape_text(op.x.shape[-2:])} (the last two dimensions "
                f"of x), got {op.w}")


rule("HMM-006", "x")(nd_only("x"))
rule("HMM-006", "w")(nd_only("w"))
rule("HMM-007", "y")(result_is("y", lambda op, s: op.x.shape[:-1] + op.w.shape[2:], FLOAT_TYPES))

HeadMatmul = MLA.add(OpDef(
    "mla.head_matmul",
    operands=[operand("x"), operand("w")],
    results=["y"],
    rules=head_matmul_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape[:-1] + op.w.shape[2:], op.x.dtype)},
    summary="per-head x[..., h, :] @ w[h], float32 accumulation, result rounded to its type",
))


# --- mla.quant_matmul --------------------------------------------------------------------------
# y[..., n] = float(sum_k x[..., k] w[k, n]) * x_scale[...] * w_scale[n]: int8 x int8 with exact
# int32 accumulation, dequantized per token and per channel (numerics.md 7), one rounding.

quant_matmul_rules = RuleSet()
rule = quant_matmul_rules.rule
rule("QMM-001", "x")(rank_at_least("x", 1))
rule("QMM-002", "x")(dtype_in("x", ("i8",)))
rule("QMM-003", "w")(rank_is("w", 2, " (K, N): the weight as (in, out)"))
rule("QMM-004", "w")(dtype_in("w", ("i8",)))


@rule("QMM-005", "w")
def quant_matmul_inner(op, s):
    if differs((op.w.shape[0],), (op.x.shape[-1],)):
        return f"expected K = {op.x.shape[-1]} rows (the last dimension of x), got {op.w}"


@rule("QMM-006", "x_scale")
def quant_matmul_x_scale(op, s):
    tokens = op.x.shape[:-1]
    if op.x_scale.dtype != "f32" or differs(op.x_scale.shape, tokens) and \
            differs(op.x_scale.shape, tokens + (1,)):
        return (f"expected a per-token f32 scale of shape {shape_text(tokens)} or "
                f"{shape_text(tokens + (1,))}, got {op.x_scale}")


@rule("QMM-007", "w_scale")
def quant_matmul_w_scale(op, s):
    n = op.w.shape[1]
    if op.w_scale.dtype != "f32" or differs(op.w_scale.shape, (n,)) and differs(op.w_scale.shape, (1, n)):
        return f"expected a per-channel f32 scale of shape ({n},) or (1, {n}), got {op.w_scale}"


rule("QMM-008", "x")(nd_only("x"))
rule("QMM-008", "x_scale")(nd_only("x_scale"))
rule("QMM-008", "w_scale")(nd_only("w_scale"))
rule("QMM-009", "y")(result_is("y", lambda op, s: op.x.shape[:-1] + op.w.shape[1:], FLOAT_TYPES))

QuantMatmul = MLA.add(OpDef(
    "mla.quant_matmul",
    operands=[operand("x"), operand("w"), operand("x_scale"), operand("w_scale")],
    results=["y"],
    rules=quant_matmul_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape[:-1] + op.w.shape[1:], "f32")},
    summary="int8 x @ int8 w, exact int32 sums dequantized per token x per channel",
))


# --- mla.rope ----------------------------------------------------------------------------------
# mode "interleave" (npu_interleave_rope; DeepSeek): de-interleave x's pairs, then
#   out = xd * cos + rotate_half(xd) * sin   -- the output stays de-interleaved (numerics.md 4).
# mode "half" (rotate_half RoPE, npu_rotary_mul): out = x * cos + rotate_half(x) * sin.
# cos, sin broadcast against x (NumPy rules). float32, one rounding.

ROPE_MODES = ("interleave", "half")
rope_rules = RuleSet()
rule = rope_rules.rule
rule("ROPE-001", "x")(dtype_in("x", FLOAT_TYPES))


@rule("ROPE-002", "x")
def rope_even(op, s):
    if op.x.rank < 1 or op.x.shape[-1] is not None and op.x.shape[-1] % 2:
        return f"expected rank >= 1 and an even last dimension (pairs of features), got {op.x}"


rule("ROPE-003", "cos")(dtype_in("cos", FLOAT_TYPES))
rule("ROPE-003", "sin")(dtype_in("sin", FLOAT_TYPES))


@rule("ROPE-004", "cos")
def rope_tables_broadcast(op, s):
    if differs(op.cos.shape, op.sin.shape) or op.cos.dtype != op.sin.dtype:
        return f"expected the type of sin ({op.sin}), got {op.cos}"
    if op.cos.rank < 1 or differs(op.cos.shape[-1:], op.x.shape[-1:]) or not broadcasts_to(op.cos.shape, op.x.shape):
        return (f"expected a shape that broadcasts to x {shape_text(op.x.shape)} with the same "
                f"last dimension, got {shape_text(op.cos.shape)}")


@rule("ROPE-005", "mode")
def rope_mode(op, s):
    if op.mode not in ROPE_MODES:
        return f"expected \"interleave\" or \"half\", got {op.mode!r}"


for _name in ("x", "cos", "sin"):
    rule("ROPE-006", _name)(nd_only(_name))
rule("ROPE-007", "y")(result_is("y", lambda op, s: op.x.shape, FLOAT_TYPES))

Rope = MLA.add(OpDef(
    "mla.rope",
    operands=[operand("x"), operand("cos"), operand("sin")],
    attributes=[string("mode", default="interleave")],
    results=["y"],
    rules=rope_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape, op.x.dtype)},
    summary="rotary position embedding (interleaved pairs, de-interleaved output; or rotate-half)",
))


# --- mla.dynamic_quant -------------------------------------------------------------------------
# Per row over the last axis: z = x * smooth (smooth optional), scale = max|z| / 127,
#   rounding "half_even" (npu_dynamic_quant): y = rint(z / scale)
#   rounding "half_away" (the MLA prolog's query quant, numerics.md 9): y = round(z * 127 / max|z|)
# A zero row gives scale 0 and y 0. y is i8 (x's shape), scale f32 (x's shape without the last).

DQ_ROUNDING = ("half_even", "half_away")
dynamic_quant_rules = RuleSet()
rule = dynamic_quant_rules.rule
rule("DQ-001", "x")(rank_at_least("x", 1))
rule("DQ-002", "x")(dtype_in("x", FLOAT_TYPES))


@rule("DQ-003", "smooth_scales")
def dq_smooth(op, s):
    h = op.x.shape[-1]
    if op.smooth_scales is not None and (op.smooth_scales.dtype not in FLOAT_TYPES or (
            differs(op.smooth_scales.shape, (h,)) and differs(op.smooth_scales.shape, (1, h)))):
        return f"expected a float tensor of shape ({h},) or (1, {h}) (one factor per column), got {op.smooth_scales}"


@rule("DQ-004", "rounding")
def dq_rounding(op, s):
    if op.rounding not in DQ_ROUNDING:
        return f"expected \"half_even\" or \"half_away\", got {op.rounding!r}"


rule("DQ-005", "x")(nd_only("x"))
rule("DQ-005", "smooth_scales")(nd_only("smooth_scales"))
rule("DQ-006", "y")(result_is("y", lambda op, s: op.x.shape, ("i8",)))
rule("DQ-007", "scale")(result_is("scale", lambda op, s: op.x.shape[:-1], ("f32",)))

DynamicQuant = MLA.add(OpDef(
    "mla.dynamic_quant",
    operands=[operand("x"), optional("smooth_scales")],
    attributes=[string("rounding", default="half_even")],
    results=["y", "scale"],
    rules=dynamic_quant_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape, "i8"),
                                 "scale": TensorInfo(op.x.shape[:-1], "f32")},
    summary="symmetric per-row int8 quantization with a computed scale (max|x| / 127)",
))


# --- mla.quantize ------------------------------------------------------------------------------
# y = saturate_int8(rint(x * scale)): static symmetric quantization, the scale multiplies
# (numerics.md 6). scale broadcasts against x: per tensor (1,) or per channel (..., H).

quantize_rules = RuleSet()
rule = quantize_rules.rule
rule("QNT-001", "x")(dtype_in("x", FLOAT_TYPES))
rule("QNT-002", "scale")(dtype_in("scale", ("f32",)))


@rule("QNT-003", "scale")
def quantize_scale_broadcast(op, s):
    if not broadcasts_to(op.scale.shape, op.x.shape):
        return f"expected a shape that broadcasts to x {shape_text(op.x.shape)}, got {shape_text(op.scale.shape)}"


rule("QNT-004", "x")(nd_only("x"))
rule("QNT-004", "scale")(nd_only("scale"))
rule("QNT-005", "y")(result_is("y", lambda op, s: op.x.shape, ("i8",)))

Quantize = MLA.add(OpDef(
    "mla.quantize",
    operands=[operand("x"), operand("scale")],
    results=["y"],
    rules=quantize_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape, "i8")},
    summary="static symmetric int8 quantization: saturate(rint(x * scale))",
))


# --- elementwise: mla.add, mla.mul, mla.div ----------------------------------------------------
# NumPy broadcasting, float32 arithmetic, one rounding to the result type.

def _elementwise(name, formula):
    rules = RuleSet()
    rules.rule("EW-001", "x")(dtype_in("x", FLOAT_TYPES))
    rules.rule("EW-001", "y")(dtype_in("y", FLOAT_TYPES))

    @rules.rule("EW-002", "y")
    def operands_broadcast(op, s):
        if broadcast(op.x.shape, op.y.shape) is None:
            return f"expected a shape that broadcasts with x {shape_text(op.x.shape)}, got {shape_text(op.y.shape)}"

    rules.rule("EW-003", "x")(nd_only("x"))
    rules.rule("EW-003", "y")(nd_only("y"))
    rules.rule("EW-004", "z")(result_is("z", lambda op, s: broadcast(op.x.shape, op.y.shape), FLOAT_TYPES))
    return MLA.add(OpDef(
        name, operands=[operand("x"), operand("y")], results=["z"], rules=rules,
        infer_results=lambda op, s: {"z": TensorInfo(broadcast(op.x.shape, op.y.shape), op.x.dtype)},
        summary=f"{formula} with NumPy broadcasting, float32 arithmetic, one rounding"))


Add = _elementwise("mla.add", "x + y")
Mul = _elementwise("mla.mul", "x * y")
Div = _elementwise("mla.div", "x / y")


# --- mla.mean, mla.rsqrt, mla.amax ------------------------------------------------------------
# The two pieces of a written-out RmsNorm (Hugging Face's DeepseekV3RMSNorm: x * rsqrt(mean(x^2) +
# eps)) that are not elementwise products: imported PyTorch code holds them until raise-rms-norm
# makes one mla.rms_norm of the whole (passes/raise_primitives.py). float32, one rounding.
#   mla.mean   y = mean(x, last axis, keepdim): (..., H) -> (..., 1)       torch.mean(x, -1, True)
#   mla.rsqrt  y = 1 / sqrt(x)                                             torch.rsqrt
#   mla.amax   y = max(x, last axis, keepdim): (..., H) -> (..., 1)        torch.amax(x, -1, True)
# mla.amax is the row maximum of a written-out dynamic quant (max |x| / 127), until raise-quant
# makes one mla.dynamic_quant of it (passes/raise_quant.py); exact, rounded only to its type.

def _last_axis_reduction(name, prefix, summary):
    rules = RuleSet()
    rules.rule(f"{prefix}-001", "x")(rank_at_least("x", 1, " (the reduced axis is the last one)"))
    rules.rule(f"{prefix}-002", "x")(dtype_in("x", FLOAT_TYPES))
    rules.rule(f"{prefix}-003", "x")(nd_only("x"))
    rules.rule(f"{prefix}-004", "y")(result_is("y", lambda op, s: op.x.shape[:-1] + (1,), FLOAT_TYPES))
    return MLA.add(OpDef(
        name, operands=[operand("x")], results=["y"], rules=rules,
        infer_results=lambda op, s: {"y": TensorInfo(op.x.shape[:-1] + (1,), op.x.dtype)},
        summary=summary))


Mean = _last_axis_reduction("mla.mean", "MEAN",
                            "mean over the last axis, kept as a dimension of 1, float32 sum, one rounding")
Amax = _last_axis_reduction("mla.amax", "AMAX", "maximum over the last axis, kept as a dimension of 1")

rsqrt_rules = RuleSet()
rsqrt_rules.rule("RSQ-001", "x")(dtype_in("x", FLOAT_TYPES))
rsqrt_rules.rule("RSQ-002", "x")(nd_only("x"))
rsqrt_rules.rule("RSQ-003", "y")(result_is("y", lambda op, s: op.x.shape, FLOAT_TYPES))

Rsqrt = MLA.add(OpDef(
    "mla.rsqrt",
    operands=[operand("x")],
    results=["y"],
    rules=rsqrt_rules,
    infer_results=lambda op, s: {"y": TensorInfo(op.x.shape, op.x.dtype)},
    summary="1 / sqrt(x) elementwise, float32, one rounding",
))


# --- mla.scatter_cache -------------------------------------------------------------------------
# cache[slot_mapping[i]] = update[i] for a paged cache (BlockNum, BlockSize, Nkv, H), slot
# p = block * BlockSize + offset (numerics.md 5): PA_BSND row-major blocks, PA_NZ blocks stored
# as [Nkv*H / C0, BlockSize, C0]. A negative slot skips its row; of duplicate slots the last
# row wins. In place: the result is the updated cache.

scatter_rules = RuleSet()
rule = scatter_rules.rule
rule("SC-001", "cache")(rank_is("cache", 4, " (BlockNum, BlockSize, Nkv, H)"))
rule("SC-002", "cache")(dtype_in("cache", ("bf16", "f16", "i8")))
rule("SC-003", "cache")(nd_only("cache"))
rule("SC-004", "slot_mapping")(dtype_in("slot_mapping", INDEX_TYPES))
rule("SC-003", "slot_mapping")(nd_only("slot_mapping"))


@rule("SC-005", "update")
def scatter_update_shape(op, s):
    expected = op.slot_mapping.shape + op.cache.shape[2:]
    if differs(op.update.shape, expected) or op.update.format != ND:
        return f"expected shape slot_mapping + (Nkv, H) = {shape_text(expected)}, got {op.update}"


rule("SC-006", "update")(same_dtype("update", "cache"))


@rule("SC-007", "cache_mode")
def scatter_cache_mode(op, s):
    if op.cache_mode not in CACHE_MODES:
        return f"expected \"PA_BSND\" or \"PA_NZ\", got {op.cache_mode!r}"


rule("SC-008", "cache")(pa_nz_blocks("cache"))


rule("SC-009", "cache_out")(result_is("cache_out", lambda op, s: op.cache.shape, dtype_of=lambda op: op.cache.dtype))


@rule("SC-010", "slot_mapping", kind="runtime")
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


# --- mla.gather ----------------------------------------------------------------------------------
# out[i...] = table[indices[i...]]: rows of a table (the rope cos/sin tables by position).

gather_rules = RuleSet()
rule = gather_rules.rule
rule("GTH-001", "table")(rank_at_least("table", 1))
rule("GTH-002", "table")(nd_only("table"))
rule("GTH-002", "indices")(nd_only("indices"))
rule("GTH-003", "indices")(dtype_in("indices", INDEX_TYPES))
rule("GTH-004", "out")(result_is("out", lambda op, s: op.indices.shape + op.table.shape[1:],
                                 dtype_of=lambda op: op.table.dtype))


@rule("GTH-005", "indices", kind="runtime")
def gather_in_range(op, s):
    rows = op.table.shape[0]
    values = op.indices.value
    if values.size and (values.min() < 0 or values.max() >= rows):
        bad = int(values.min()) if values.min() < 0 else int(values.max())
        return f"value {bad} is outside [0, {rows}) (the rows of table)"


Gather = MLA.add(OpDef(
    "mla.gather",
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
rule = format_cast_rules.rule
rule("FC-003", "x")(dtype_in("x", ("bf16", "f16", "f32", "i8")))   # the types with a fractal width


@rule("FC-001", "y")
def format_cast_type(op, s):
    if differs(op.y.shape, op.x.shape) or op.y.dtype != op.x.dtype:
        return f"expected the shape and element type of x {op.x}, got {op.y}"


@rule("FC-002", "y")
def format_cast_rank(op, s):
    if FRACTAL_NZ in (op.x.format, op.y.format) and op.x.rank < 2:
        return f"FRACTAL_NZ needs rank >= 2 (the last two dimensions form the matrix), got {op.x}"

FormatCast = MLA.add(OpDef(
    "mla.format_cast",
    operands=[operand("x")],
    results=["y"],
    rules=format_cast_rules,
    summary="the same tensor in the storage format of the result type (ND <-> FRACTAL_NZ)",
))


# --- mla.transpose -------------------------------------------------------------------------------

transpose_rules = RuleSet()
rule = transpose_rules.rule
rule("TR-001", "x")(nd_only("x"))


@rule("TR-002", "permutation")
def transpose_permutation(op, s):
    if sorted(op.permutation) != list(range(op.x.rank)):
        return f"expected a permutation of 0..{op.x.rank - 1}, got {list(op.permutation)}"


rule("TR-003", "y")(result_is("y", lambda op, s: tuple(op.x.shape[p] for p in op.permutation),
                              dtype_of=lambda op: op.x.dtype))

Transpose = MLA.add(OpDef(
    "mla.transpose",
    operands=[operand("x")],
    attributes=[Attribute("permutation", "i64_array")],   # required
    results=["y"],
    rules=transpose_rules,
    infer_results=lambda op, s: {"y": TensorInfo(tuple(op.x.shape[p] for p in op.permutation), op.x.dtype)},
    summary="permute the axes (y.shape[i] = x.shape[permutation[i]])",
))


# --- mla.paged_attention -------------------------------------------------------------------------
# Attention of query (B, S, N, D) over paged caches (BlockNum, BlockSize, Nkv, D): batch b's keys
# are the first seq_lengths[b] slots of its blocks block_table[b, :]; query row s sits at
# position seq_lengths[b] - S + s and sees keys up to it (causal when S > 1). GQA: head n reads kv
# head n // (N / Nkv). With query_rope/key_rope_cache the scores add the rope part (MLA):
#   scores = scale * (q . k + q_rope . k_rope);  out = softmax(scores) . v
# float32 scores and softmax; the probabilities are rounded to the values' type before P.V (the
# FIA kernels' order; int8 caches are dequantized: to the result type); the result is rounded to
# its type. value may be key's very cache (MLA: v = the latent cache, Dv = D). cache_mode tells
# how the cache memory is laid out (PA_NZ: numerics.md 5; a cache is read in the mode its writer
# used, PA-019).
# int8 (the MLA prolog's FQ-KVQ outputs): an i8 query with dequant_scale_query (B, S, N, 1) and
# i8 key/value caches with the per-tensor key_dequant_scale d_k give
#   scores = scale * dequant_scale_query * d_k * (q . k + q_rope . k_rope),  v = v_int8 * d_k
# -- the rope part shares the dequantization factor, which is why the prolog rescales
# query_rope by quant_scale_ckv / dequant_scale_q_nope in FQ-KVQ.

paged_rules = RuleSet()
rule = paged_rules.rule
rule("PA-001", "query")(rank_is("query", 4, " (B, S, N, D)"))
rule("PA-002", "query")(dtype_in("query", ("bf16", "f16", "i8")))
for _name in ("key_cache", "value_cache", "key_rope_cache"):
    rule("PA-003", _name)(rank_is(_name, 4, " (BlockNum, BlockSize, Nkv, D)"))
# A PA_NZ cache too is an ND tensor: its blocks hold NZ-ordered bytes (cache_mode says so).
for _name in ("query", "key_cache", "value_cache", "block_table", "seq_lengths", "query_rope",
              "key_rope_cache", "dequant_scale_query", "key_dequant_scale"):
    rule("PA-005", _name)(nd_only(_name))
rule("PA-004", "key_cache")(same_dtype("key_cache", "query"))
rule("PA-004", "value_cache")(same_dtype("value_cache", "query"))


@rule("PA-006", "key_cache")
def paged_key_dims(op, s):
    if differs(op.key_cache.shape[3:], op.query.shape[3:]):
        return f"expected head size D = {op.query.shape[3]} (query's), got {op.key_cache}"
    n, nkv = dim(op.query, 2), dim(op.key_cache, 2)
    if nkv == 0 or n % nkv:
        return f"expected Nkv dividing the {n} query heads (GQA), got Nkv = {nkv}"


@rule("PA-007", "value_cache")
def paged_value_dims(op, s):
    if differs(op.value_cache.shape[:3], op.key_cache.shape[:3]):
        return f"expected (BlockNum, BlockSize, Nkv) = {shape_text(op.key_cache.shape[:3])} (key_cache's), got {op.value_cache}"


@rule("PA-008", "query_rope")
def paged_rope_pair(op, s):
    if (op.query_rope is None) != (op.key_rope_cache is None):
        return ("given without key_rope_cache" if op.key_rope_cache is None else
                "absent while key_rope_cache is given") + \
            ": the rope parts of the query and of the keys come together"
    t = op.query_rope
    if t is not None and (t.rank != 4 or differs(t.shape[:3], op.query.shape[:3])
                          or t.dtype not in ("bf16", "f16")
                          or op.query.dtype != "i8" and t.dtype != op.query.dtype):
        return (f"expected (B, S, N, Dr) with (B, S, N) = {shape_text(op.query.shape[:3])} (query's) "
                f"and bf16 or f16 (query's type unless it is i8), got {t}")


@rule("PA-017", "key_rope_cache")
def paged_key_rope(op, s):
    t = op.key_rope_cache
    if t is None:
        return None
    expected = TensorInfo(op.key_cache.shape[:3] + op.query_rope.shape[3:], op.query_rope.dtype)
    if differs(t.shape, expected.shape) or t.dtype != expected.dtype:
        return (f"expected {expected} ((BlockNum, BlockSize, Nkv) of key_cache, Dr and element "
                f"type of query_rope), got {t}")


@rule("PA-009", "block_table")
def paged_block_table(op, s):
    t = op.block_table
    if t.rank != 2 or t.dtype != "i32" or differs(t.shape[:1], op.query.shape[:1]):
        return f"expected an i32 tensor (B, max blocks per sequence) with B = {op.query.shape[0]}, got {t}"


@rule("PA-010", "seq_lengths")
def paged_seq_lengths(op, s):
    t = op.seq_lengths
    if t.rank != 1 or t.dtype not in INDEX_TYPES or differs(t.shape, op.query.shape[:1]):
        return f"expected an i32 or i64 tensor (B,) with B = {op.query.shape[0]}, got {t}"


@rule("PA-011", "cache_mode")
def paged_cache_mode(op, s):
    if op.cache_mode not in CACHE_MODES:
        return f"expected \"PA_BSND\" or \"PA_NZ\", got {op.cache_mode!r}"


for _name in ("key_cache", "value_cache", "key_rope_cache"):
    rule("PA-018", _name)(pa_nz_blocks(_name))
    rule("PA-019", _name, kind=DATAFLOW)(read_in_written_mode(_name))


@rule("PA-015", "dequant_scale_query")
def paged_query_scale(op, s):
    t, int8 = op.dequant_scale_query, op.query.dtype == "i8"
    if int8 != (t is not None):
        return ("is required with an i8 query (its per-token-head dequantization), got none" if int8
                else f"must be absent with a {op.query.dtype} query, got {t}")
    if t is not None and (t.dtype != "f32" or differs(t.shape, op.query.shape[:3] + (1,))):
        return f"expected an f32 tensor (B, S, N, 1) = {shape_text(op.query.shape[:3] + (1,))}, got {t}"


@rule("PA-016", "key_dequant_scale")
def paged_key_scale(op, s):
    t, int8 = op.key_dequant_scale, op.key_cache.dtype == "i8"
    if int8 != (t is not None):
        return ("is required with i8 caches (their per-tensor dequantization), got none" if int8
                else f"must be absent with {op.key_cache.dtype} caches, got {t}")
    if t is not None and (t.dtype != "f32" or t.numel != 1):
        return f"expected an f32 tensor of one element, got {t}"


rule("PA-012", "attention_out")(result_is(
    "attention_out", lambda op, s: op.query.shape[:3] + op.value_cache.shape[3:], ("bf16", "f16")))


@rule("PA-013", "seq_lengths", kind="runtime")
def paged_lengths_in_range(op, s):
    lengths = op.seq_lengths.value.reshape(-1)
    capacity = op.block_table.shape[1] * op.key_cache.shape[1]
    q_seq = op.query.shape[1]
    for b, n in enumerate(lengths.tolist()):
        if not q_seq <= n <= capacity:
            return (f"value {n} of batch {b} is outside [S, max blocks * BlockSize] = "
                    f"[{q_seq}, {capacity}] (the query's tokens are the last S keys)")


@rule("PA-014", "block_table", kind="runtime")
def paged_blocks_in_range(op, s):
    block_size, blocks = op.key_cache.shape[1], op.key_cache.shape[0]
    for b, n in enumerate(op.seq_lengths.value.reshape(-1).tolist()):
        used = op.block_table.value[b, :-(-n // block_size)]
        if used.size and (used.min() < 0 or used.max() >= blocks):
            return f"row {b} uses block {int(used.min() if used.min() < 0 else used.max())} outside [0, {blocks})"


def _paged_out(op, s):
    dtype = op.query_rope.dtype if op.query.dtype == "i8" and op.query_rope is not None else (
        "bf16" if op.query.dtype == "i8" else op.query.dtype)
    return {"attention_out": TensorInfo(op.query.shape[:3] + op.value_cache.shape[3:], dtype)}


PagedAttention = MLA.add(OpDef(
    "mla.paged_attention",
    operands=[operand("query"), operand("key_cache"), operand("value_cache"),
              operand("block_table"), operand("seq_lengths"),
              optional("query_rope"), optional("key_rope_cache"),
              optional("dequant_scale_query"), optional("key_dequant_scale")],
    attributes=[f64("scale_value", default=1.0), string("cache_mode", default="PA_BSND")],
    results=["attention_out"],
    rules=paged_rules,
    infer_results=_paged_out,
    summary="causal attention over paged kv caches, GQA, with an optional rope part (MLA)",
))


# --- mla.attention -------------------------------------------------------------------------------
# Dense attention, BSND: query (B, S, N, D), key (B, Skv, Nkv, D), value (B, Skv, Nkv, Dv);
# scores = scale * q . k, plus -inf where atten_mask (S, Skv) is nonzero; with `causal` query
# row s sees keys up to Skv - S + s (the bottom-right aligned mask). Numerics as paged_attention.

attention_rules = RuleSet()
rule = attention_rules.rule
rule("ATT-001", "query")(rank_is("query", 4, " (B, S, N, D)"))
rule("ATT-002", "query")(dtype_in("query", ("bf16", "f16")))
for _name in ("key", "value"):
    rule("ATT-003", _name)(rank_is(_name, 4, " (B, Skv, Nkv, D)"))
    rule("ATT-004", _name)(same_dtype(_name, "query"))
for _name in ("query", "key", "value", "atten_mask"):
    rule("ATT-005", _name)(nd_only(_name))


@rule("ATT-006", "key")
def attention_key_dims(op, s):
    if differs(op.key.shape[:1] + op.key.shape[3:], op.query.shape[:1] + op.query.shape[3:]):
        return f"expected B and D of query ({op.query.shape[0]}, {op.query.shape[3]}), got {op.key}"
    n, nkv = dim(op.query, 2), dim(op.key, 2)
    if nkv == 0 or n % nkv:
        return f"expected Nkv dividing the {n} query heads (GQA), got Nkv = {nkv}"


@rule("ATT-007", "value")
def attention_value_dims(op, s):
    if differs(op.value.shape[:3], op.key.shape[:3]):
        return f"expected (B, Skv, Nkv) = {shape_text(op.key.shape[:3])} (key's), got {op.value}"


@rule("ATT-008", "atten_mask")
def attention_mask(op, s):
    m = op.atten_mask
    if m is not None and (m.dtype not in ("i1", "i8", "ui8") or
                          differs(m.shape, (op.query.shape[1], op.key.shape[1]))):
        return f"expected an i1/i8/ui8 tensor (S, Skv) = ({op.query.shape[1]}, {op.key.shape[1]}), got {m}"


rule("ATT-009", "attention_out")(result_is(
    "attention_out", lambda op, s: op.query.shape[:3] + op.value.shape[3:], FLOAT_TYPES))

Attention = MLA.add(OpDef(
    "mla.attention",
    operands=[operand("query"), operand("key"), operand("value"), optional("atten_mask")],
    attributes=[f64("scale_value", default=1.0), i1("causal", default=False)],
    results=["attention_out"],
    rules=attention_rules,
    infer_results=lambda op, s: {"attention_out": TensorInfo(
        op.query.shape[:3] + op.value.shape[3:], op.query.dtype)},
    summary="dense scaled dot-product attention (BSND), GQA, optional mask or causal",
))


# --- mla.causal_mask -----------------------------------------------------------------------------
# The (S, S) mask with 1 strictly above the diagonal (masked) and 0 elsewhere: the 2048 x 2048
# template FIA's sparse_mode 2/3 take.

causal_mask_rules = RuleSet()


@causal_mask_rules.rule("CM-001", "mask")
def causal_mask_type(op, s):
    m = op.mask
    if m.rank != 2 or m.shape[0] != m.shape[1] or None in m.shape or m.dtype not in ("i1", "i8", "ui8") \
            or m.format != ND:
        return f"expected a static square ND i1, i8 or ui8 tensor (S, S), got {m}"


CausalMask = MLA.add(OpDef(
    "mla.causal_mask",
    operands=[],
    results=["mask"],
    rules=causal_mask_rules,
    summary="triu(ones(S, S), 1): 1 marks a masked (future) position",
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


view_rule("NZV-004", "cache")(dtype_in("cache", ("bf16", "f16", "i8")))   # the cache types


@view_rule("NZV-002", "cache")
def cache_tiles(op, s):
    problem = nz_block_tiles(op.cache)
    return None if problem is None else f"expected {problem}"


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

# Ops without operand reads or writes beyond their results: a dead one may be erased (passes/cleanup.py).
PURE = ("mla.rms_norm", "mla.mean", "mla.amax", "mla.rsqrt", "mla.matmul", "mla.head_matmul", "mla.quant_matmul", "mla.rope",
        "mla.dynamic_quant", "mla.quantize", "mla.add", "mla.mul", "mla.div", "mla.gather",
        "mla.format_cast", "mla.transpose", "mla.paged_attention", "mla.attention",
        "mla.causal_mask", "mla.nz_cache_view")

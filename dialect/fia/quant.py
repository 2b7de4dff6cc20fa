"""FIA rules 6.J: INT8 full quant, post-quant and the output dtype."""
from __future__ import annotations

from .common import FLOATS, QUANT_OPERANDS, FiaRules, is_int4, one_of
from .pse_mask import int8_out, per_channel_int8_out

rules = FiaRules()


# =============================================================================================
# 6.J INT8 full quant, post-quant, output dtype
# =============================================================================================

def _per_tensor_scale(t, allowed):
    if t.dtype not in allowed:
        return f"expected element type {one_of(allowed)}, got {t.dtype}"
    if t.rank != 1 or t.numel != 1:
        return f"expected one element of rank 1 (per-tensor), got {t}"


@rules.rule("FIA-101", "dequant_scale1")
def dequant_scale1_kind(op, s):
    if op.dequant_scale1 is not None:
        return _per_tensor_scale(op.dequant_scale1, ("ui64", "f32"))


@rules.rule("FIA-102", "quant_scale1")
def quant_scale1_kind(op, s):
    if op.quant_scale1 is not None:
        return _per_tensor_scale(op.quant_scale1, ("f32",))


@rules.rule("FIA-103", "dequant_scale2")
def dequant_scale2_kind(op, s):
    if op.dequant_scale2 is not None:
        return _per_tensor_scale(op.dequant_scale2, ("ui64", "f32"))


@rules.rule("FIA-104", "quant_scale2")
def quant_scale2_dtype(op, s):
    if op.quant_scale2 is not None and op.quant_scale2.dtype not in ("f32", "bf16"):
        return f"expected element type f32 or bf16, got {op.quant_scale2.dtype}"


@rules.rule("FIA-105", "quant_scale2")
def quant_scale2_bf16(op, s):
    if op.quant_scale2 is not None and op.quant_scale2.dtype == "bf16" and op.query.dtype != "bf16":
        return f"a bf16 quant_scale2 needs a bf16 query, got {op.query.dtype}"


@rules.rule("FIA-106", "quant_offset2")
def quant_offset2_needs_scale(op, s):
    if op.quant_offset2 is not None and op.quant_scale2 is None:
        return "needs quant_scale2, got none"


@rules.rule("FIA-107", "quant_offset2")
def quant_offset2_like_scale(op, s):
    qo, qs = op.quant_offset2, op.quant_scale2
    if qo is not None and (qo.dtype != qs.dtype or qo.shape != qs.shape):
        return f"expected the type of quant_scale2 {qs}, got {qo}"


@rules.rule("FIA-108", "quant_scale2")
def quant_scale2_elements(op, s):
    qs = op.quant_scale2
    if qs is not None and qs.numel not in (1, s.N * s.Dv):
        return (f"expected 1 element (per-tensor) or N*D = {s.N * s.Dv} (per-channel), "
                f"got {qs.numel} in {qs}")


@rules.rule("FIA-113", "query", branch="prompt", mla=False)
def paged_no_int8_query(op, s):
    if s.paged and op.query.dtype == "i8":
        return "an i8 query (full quant) is not supported with page attention"


@rules.rule("FIA-091", ("dequant_scale1", "quant_scale1", "dequant_scale2", "quant_scale2"), mla=False)
def full_quant_int8_out(op, s, name):
    if op.query.dtype == "i8" and getattr(op, name) is None and int8_out(op):
        return "required for an int8 query with int8 output (full quant), got none"


@rules.rule("FIA-092", ("dequant_scale1", "quant_scale1", "dequant_scale2"), mla=False)
def full_quant_f16_out(op, s, name):
    if op.query.dtype == "i8" and getattr(op, name) is None and op.attention_out.dtype == "f16":
        return "required for an int8 query with f16 output (full quant), got none"


@rules.rule("FIA-093", "quant_scale2", mla=False)
def full_quant_f16_out_no_post_quant(op, s):
    if op.query.dtype == "i8" and op.quant_scale2 is not None and op.attention_out.dtype == "f16":
        return "not allowed for an int8 query with f16 output: the output is not quantized"


@rules.rule("FIA-094", "quant_scale2")
def post_quant_needs_scale(op, s):
    if op.query.dtype in FLOATS and int8_out(op) and op.quant_scale2 is None:
        return f"required for int8 output of a {op.query.dtype} query, got none"


@rules.rule("FIA-095", ("dequant_scale1", "quant_scale1", "dequant_scale2"))
def post_quant_no_full_quant(op, s, name):
    if op.query.dtype in FLOATS and getattr(op, name) is not None and int8_out(op):
        return f"not allowed for a {op.query.dtype} query with int8 output (post-quant only)"


@rules.rule("FIA-096", QUANT_OPERANDS)
def float_no_quant(op, s, name):
    if getattr(op, name) is None or op.query.dtype not in FLOATS:
        return None
    if op.attention_out.dtype in FLOATS:
        return (f"not allowed: a {op.query.dtype} query with {op.attention_out.dtype} output "
                f"uses no quantization")


@rules.rule("FIA-097", "attention_out", mla=False)
def int8_query_out(op, s):
    if op.query.dtype == "i8" and op.attention_out.dtype not in ("i8", "f16"):
        return f"expected i8 or f16 for an i8 query, got {op.attention_out.dtype}"


@rules.rule("FIA-098", "attention_out")
def float_query_out(op, s):
    q = op.query.dtype
    if q in FLOATS and op.attention_out.dtype not in (q, "i8"):
        return f"expected {q} or i8 for a {q} query, got {op.attention_out.dtype}"


@rules.rule("FIA-099", "key")
def query_key_dtypes(op, s):
    """An i8 query takes an i8 key; a float query a key of its own dtype, or an integer one
    that antiquant dequantizes (register S41: no mixed f16/bf16, tables 4.2 P12, 4.3 I12)."""
    q, k = op.query.dtype, op.key[0].dtype
    if q == "i8" and k != "i8":
        return f"expected i8 for an i8 query, got {k}"
    if q in FLOATS and k in FLOATS and k != q:
        return f"expected the query's element type {q} (or an integer key with antiquant), got {k}"


@rules.rule("FIA-100", "query", branch="incre", mla=False)
def incre_not_all_int8(op, s):
    if op.query.dtype == op.key[0].dtype == op.value[0].dtype == "i8":
        return "int8 query, key and value together are not supported with Q_S = 1"


@rules.rule("FIA-109", "quant_scale2", branch="prompt")
def per_channel_no_left_padding(op, s):
    if per_channel_int8_out(op) and s.left_pad:
        return "per-channel int8 output quantization does not support left padding"


@rules.rule("FIA-110", "softmax_lse_flag", branch="prompt")
def per_channel_no_lse(op, s):
    if per_channel_int8_out(op) and op.softmax_lse_flag:
        return "must be false with per-channel int8 output quantization (no Ring Attention)"


@rules.rule("FIA-112", "quant_scale2")
def int4_no_post_quant(op, s):
    """Named after the parameter the caller passes: quant_scale2 asks for the int8 output
    (FIA-094, before this rule, requires it for any int8 output of a float query)."""
    if is_int4(op.key[0]) and int8_out(op):
        return (f"int8 output (post-quant) is not supported with an {op.key[0].dtype} (INT4) "
                f"key")

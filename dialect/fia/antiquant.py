"""FIA rules 6.K/6.L: KV antiquant, combined and separate key/value parameters."""
from __future__ import annotations

import numpy as np

from ..rules import RUNTIME
from .common import ANTIQUANT_OPERANDS, FLOATS, INT4, SCALE_TYPES, FiaRules, dims, is_int4, paired, partner, present

presence_rules = FiaRules()
combined_rules = FiaRules()
separate_rules = FiaRules()


# =============================================================================================
# 6.L / 6.K which antiquant parameters are present, and for which key
# =============================================================================================

@presence_rules.rule("FIA-128", ("key_antiquant_scale", "value_antiquant_scale"), mla=False)
def separate_scales_paired(op, s, name):
    return paired(op, name)


@presence_rules.rule("FIA-129", ("key_antiquant_offset", "value_antiquant_offset"), mla=False)
def separate_offsets_paired(op, s, name):
    return paired(op, name)


@presence_rules.rule("FIA-130", "key_antiquant_offset", mla=False)
def separate_offset_needs_scale(op, s):
    if op.key_antiquant_offset is not None and op.key_antiquant_scale is None:
        return "needs key_antiquant_scale, got none"


@presence_rules.rule("FIA-131", "key_antiquant_offset", mla=False)
def key_offset_like_scale(op, s):
    off, sc = op.key_antiquant_offset, op.key_antiquant_scale
    if off is not None and (off.shape != sc.shape or off.dtype != sc.dtype):
        return f"expected the type of key_antiquant_scale {sc}, got {off}"


@presence_rules.rule("FIA-132", "value_antiquant_offset", mla=False)
def value_offset_like_scale(op, s):
    off, sc = op.value_antiquant_offset, op.value_antiquant_scale
    if off is not None and (off.shape != sc.shape or off.dtype != sc.dtype):
        return f"expected the type of value_antiquant_scale {sc}, got {off}"


@presence_rules.rule("FIA-133", ANTIQUANT_OPERANDS[2:], mla=False)
def separate_dtypes(op, s, name):
    t = getattr(op, name)
    if t is not None and t.dtype not in SCALE_TYPES:
        return f"expected element type f16, bf16 or f32, got {t.dtype}"


@presence_rules.rule("FIA-134", "key_antiquant_scale", mla=False)
def separate_integer_key(op, s):
    if s.separate and op.key[0].dtype not in ("i8",) + INT4:
        return f"separate antiquant parameters need an i8 or INT4 key, got {op.key[0].dtype}"


@presence_rules.rule("FIA-127", "key", mla=False)
def float_key_no_antiquant(op, s):
    if op.key[0].dtype in FLOATS and present(op, *ANTIQUANT_OPERANDS):
        return (f"a {op.key[0].dtype} key takes no antiquant parameters, got "
                f"{', '.join(present(op, *ANTIQUANT_OPERANDS))}")


@presence_rules.rule("FIA-156", "key_antiquant_scale", branch="incre", mla=False)
def incre_int4_separate(op, s):
    if is_int4(op.key[0]) and not s.separate:
        return (f"an INT4 ({op.key[0].dtype}) key needs the separate key/value antiquant "
                f"parameters, got none")


# =============================================================================================
# 6.K combined antiquant (antiquant_scale / antiquant_offset / antiquant_mode)
# =============================================================================================

@combined_rules.rule("FIA-121", "antiquant_mode", branch="incre")
def antiquant_mode_range(op, s):
    if op.antiquant_mode not in (0, 1):
        return f"expected 0 (per-channel/per-tensor) or 1 (per-token), got {op.antiquant_mode}"


@combined_rules.rule("FIA-114", "antiquant_scale")
def combined_int8_key(op, s):
    if s.combined and op.key[0].dtype != "i8":
        return f"combined antiquant parameters apply to an i8 key only, got {op.key[0].dtype}"


@combined_rules.rule("FIA-115", "antiquant_offset")
def combined_offset_needs_scale(op, s):
    if s.combined and op.antiquant_offset is not None and op.antiquant_scale is None:
        return "needs antiquant_scale, got none"


@combined_rules.rule("FIA-126", "antiquant_scale")
def integer_key_needs_antiquant(op, s):
    """An INT8 (Rec. S49: or INT4) key with a float query is dequantized by some parameters."""
    k = op.key[0].dtype
    if k in ("i8",) + INT4 and op.query.dtype in FLOATS and not (
            op.antiquant_scale is not None or s.separate and op.value_antiquant_scale is not None):
        return (f"an {k} key with a {op.query.dtype} query needs antiquant_scale or "
                f"key_antiquant_scale and value_antiquant_scale, got none")


@combined_rules.rule("FIA-116", "antiquant_offset")
def combined_offset_like_scale(op, s):
    off, sc = op.antiquant_offset, op.antiquant_scale
    if s.combined and off is not None and (off.shape != sc.shape or off.dtype != sc.dtype):
        return f"expected the type of antiquant_scale {sc}, got {off}"


@combined_rules.rule("FIA-122", "antiquant_scale", branch="incre")
def incre_combined_dtype(op, s):
    if s.combined and op.antiquant_scale.dtype not in SCALE_TYPES:
        return f"expected element type f16, bf16 or f32, got {op.antiquant_scale.dtype}"


@combined_rules.rule("FIA-123", "antiquant_scale", branch="prompt")
def prompt_combined_dtype(op, s):
    if s.combined and op.antiquant_scale.dtype != "f16":
        return f"expected element type f16 with Q_S > 1, got {op.antiquant_scale.dtype}"


def _combined_kind(op, s):
    """per-tensor (2), per-channel (2, H) (2, N, D) (2, N, 1, D), per-token (2, B, S')."""
    shape = op.antiquant_scale.shape
    if shape == (2,):
        return "per-tensor"
    per_token_mode = s.incre and op.antiquant_mode == 1
    if shape in ((2, s.H_kv), (2, s.KV_N, s.D), (2, s.KV_N, 1, s.D)) and not per_token_mode:
        return "per-channel"
    if len(shape) == 3 and shape[:2] == (2, s.B):
        return "per-token"
    return None


@combined_rules.rule("FIA-117", "antiquant_scale")
def combined_shape(op, s):
    if not s.combined:
        return None
    kind = _combined_kind(op, s)
    kv_n, d = s.KV_N, s.D
    channel = f"(2), (2, {s.H_kv}), (2, {kv_n}, {d}), (2, {kv_n}, 1, {d})"
    if s.incre and kind is None:
        return f"expected {channel} or (2, B = {s.B}, S'), got {op.antiquant_scale}"
    if not s.incre and kind != "per-channel" and kind != "per-tensor":
        return (f"expected {channel} with Q_S > 1 (per-token needs f32, the prompt branch "
                f"takes f16), got {op.antiquant_scale}")


@combined_rules.rule("FIA-118", "antiquant_scale", branch="incre")
def incre_combined_channel(op, s):
    if not s.combined or _combined_kind(op, s) not in ("per-channel", "per-tensor"):
        return None
    if op.antiquant_scale.dtype != op.query.dtype or op.antiquant_mode != 0:
        return (f"a per-channel/per-tensor scale has the query's element type {op.query.dtype} "
                f"and antiquant_mode 0, got {op.antiquant_scale.dtype} and {op.antiquant_mode}")


@combined_rules.rule("FIA-119", "antiquant_scale", branch="incre")
def incre_combined_token(op, s):
    if not s.combined or _combined_kind(op, s) != "per-token":
        return None
    if op.antiquant_scale.dtype != "f32" or op.antiquant_mode != 1:
        return (f"a per-token scale (2, B, S') is f32 with antiquant_mode 1, got "
                f"{op.antiquant_scale.dtype} and {op.antiquant_mode}")


def _token_length_need(op, s):
    return s.max_blocks * op.block_size if s.paged else s.KV_S


@combined_rules.rule("FIA-120", "antiquant_scale", branch="incre")
def incre_combined_token_length(op, s):
    if not s.combined or _combined_kind(op, s) != "per-token":
        return None
    need = _token_length_need(op, s)
    if op.antiquant_scale.shape[2] < need:
        what = "maxBlockNumPerSeq*block_size" if s.paged else "KV_S"
        return f"expected S' >= {what} ({need}), got {op.antiquant_scale}"


@combined_rules.rule("FIA-124", "antiquant_scale", branch="prompt")
def prompt_combined_types(op, s):
    if s.combined and (op.query.dtype != "f16" or op.key[0].dtype != "i8"):
        return (f"combined antiquant with Q_S > 1 dequantizes an i8 key for an f16 query, got "
                f"{op.query.dtype} query and {op.key[0].dtype} key")


@combined_rules.rule("FIA-229", "antiquant_scale", branch="prompt", kind=RUNTIME, severity="warning")
def combined_precision_advice(op, s):
    """High performance is exact only while |key| * |antiquant_scale| < 1 (L874)."""
    if not s.combined or op.antiquant_scale is None or op.inner_precise % 2 == 0:
        return None
    if op.antiquant_scale.value is None or op.key[0].value is None:
        return None
    peak = max(float(np.max(np.abs(np.asarray(t.value, np.float32)))) for t in op.key + op.value)
    scale = float(np.max(np.abs(np.asarray(op.antiquant_scale.value, np.float32))))
    if peak * scale >= 1:
        return (f"|key/value| * |antiquant_scale| reaches {peak * scale:g} >= 1: the high "
                f"precision mode (inner_precise {op.inner_precise - 1}) keeps the accuracy")


# =============================================================================================
# 6.L separate key/value antiquant: modes and shapes
# =============================================================================================

MODES = ("key_antiquant_mode", "value_antiquant_mode")
SEPARATE_SCALES = ("key_antiquant_scale", "value_antiquant_scale")


@separate_rules.rule("FIA-160", MODES, mla=False)
def no_token_group_mode(op, s, name):
    if s.separate and getattr(op, name) == 6:
        return "6 (per-token-group) is not supported"


@separate_rules.rule("FIA-135", "value_antiquant_mode", branch="incre", mla=False)
def incre_modes_agree(op, s):
    km, vm = op.key_antiquant_mode, op.value_antiquant_mode
    if s.separate and km != vm and (km, vm) != (0, 1):
        return f"expected key_antiquant_mode ({km}), or 1 with key mode 0, got {vm}"


@separate_rules.rule("FIA-136", "value_antiquant_mode", branch="prompt", mla=False)
def prompt_modes_equal(op, s):
    if s.separate and op.key_antiquant_mode != op.value_antiquant_mode:
        return (f"expected key_antiquant_mode ({op.key_antiquant_mode}) with Q_S > 1, "
                f"got {op.value_antiquant_mode}")


@separate_rules.rule("FIA-137", MODES, branch="prompt", mla=False)
def prompt_mode_range(op, s, name):
    if s.separate and getattr(op, name) not in (0, 1):
        return f"expected 0 (per-channel) or 1 (per-token) with Q_S > 1, got {getattr(op, name)}"


@separate_rules.rule("FIA-138", MODES, branch="incre", mla=False)
def incre_mode_range(op, s, name):
    if s.separate and getattr(op, name) not in range(6):
        return f"expected 0..5 with Q_S = 1, got {getattr(op, name)}"


def _same_shape_as_key(op, name):
    k, v = getattr(op, partner(name)), getattr(op, name)
    if k is not None and v is not None and k.shape != v.shape:
        return f"expected the shape of {partner(name)} {dims(k.shape)}, got {v}"


@separate_rules.rule("FIA-140", ("value_antiquant_scale", "value_antiquant_offset"), branch="prompt", mla=False)
def prompt_separate_same_shapes(op, s, name):
    return _same_shape_as_key(op, name)


@separate_rules.rule("FIA-141", ("value_antiquant_scale", "value_antiquant_offset"), branch="incre", mla=False)
def incre_separate_same_shapes(op, s, name):
    if (op.key_antiquant_mode, op.value_antiquant_mode) != (0, 1):
        return _same_shape_as_key(op, name)


def _channel_shapes(s, lead):
    """Per-channel scale shapes: prompt (KV_N, D), (KV_N, 1, D), (H); incre with a leading 1."""
    forms = [(s.KV_N, s.D), (s.KV_N, 1, s.D), (s.H_kv,)]
    return [lead + f for f in forms]


@separate_rules.rule("FIA-144", "query", branch="prompt", mla=False)
def prompt_separate_short_query(op, s):
    if s.separate and s.Q_S > 16:
        return f"separate key/value antiquant needs Q_S <= 16, got {s.Q_S}"


@separate_rules.rule("FIA-145", "key_antiquant_scale", branch="prompt", mla=False)
def prompt_separate_types(op, s):
    if not s.separate:
        return None
    types = (op.query.dtype, op.key[0].dtype, op.value[0].dtype, op.attention_out.dtype)
    if types != ("bf16", "i8", "i8", "bf16"):
        return (f"separate antiquant with Q_S > 1 needs a bf16 query, i8 key/value and bf16 "
                f"output, got {', '.join(types)}")


@separate_rules.rule("FIA-146", "key_antiquant_scale", branch="prompt", mla=False)
def prompt_separate_exclusions(op, s):
    if not s.separate:
        return None
    for feature, on in (("page attention", s.paged), ("left padding", s.left_pad),
                        ("a tensor list", s.is_list)):
        if on:
            return f"separate key/value antiquant with Q_S > 1 does not support {feature}"


@separate_rules.rule("FIA-142", SEPARATE_SCALES, branch="prompt", mla=False)
def prompt_separate_token(op, s, name):
    t = getattr(op, name)
    if not s.separate or op.key_antiquant_mode != 1:
        return None
    if t.dtype != "f32" or t.rank != 2 or t.shape[0] != s.B or t.shape[1] < s.KV_S:
        return f"per-token (mode 1) expects f32 (B = {s.B}, S' >= KV_S = {s.KV_S}), got {t}"


@separate_rules.rule("FIA-143", SEPARATE_SCALES, branch="prompt", mla=False)
def prompt_separate_channel(op, s, name):
    t = getattr(op, name)
    if not s.separate or op.key_antiquant_mode != 0:
        return None
    forms = _channel_shapes(s, ())
    if t.dtype != "bf16" or t.shape not in forms:
        return f"per-channel (mode 0) expects bf16 {', '.join(map(dims, forms))}, got {t}"


@separate_rules.rule("FIA-157", "key_antiquant_mode", branch="incre", mla=False)
def incre_int4_modes(op, s):
    if not is_int4(op.key[0]) or not s.separate:
        return None
    km, vm = op.key_antiquant_mode, op.value_antiquant_mode
    per_tensor = km == 0 and op.key_antiquant_scale.shape == (1,)
    if (km, vm) != (0, 1) and (km not in (0, 1, 3) or per_tensor):
        mode = "0 per-tensor" if per_tensor else str(km)
        return (f"an INT4 key supports per-channel (0), per-token (1), per-token+per-head (3) "
                f"and key 0 + value 1, got mode {mode}")


def _incre_mode(op, s, name):
    """The separate antiquant mode of scale `name`; None outside the key-0 value-1 combination
    (FIA-154 checks that one) or without separate scales."""
    modes = (op.key_antiquant_mode, op.value_antiquant_mode)
    if not s.separate or modes == (0, 1):
        return None
    return modes[0] if name.startswith("key") else modes[1]


@separate_rules.rule("FIA-147", SEPARATE_SCALES, branch="incre", mla=False)
def incre_per_tensor(op, s, name):
    t = getattr(op, name)
    if _incre_mode(op, s, name) != 0 or t.shape != (1,):
        return None
    if t.dtype != op.query.dtype or op.key[0].dtype != "i8":
        return (f"per-tensor (1) needs the query's element type {op.query.dtype} and an i8 key, "
                f"got {t.dtype} with an {op.key[0].dtype} key")


def _channel_check(op, s, t):
    forms = _channel_shapes(s, (1,))
    if t.shape not in forms or t.dtype != op.query.dtype:
        return f"per-channel expects {op.query.dtype} {', '.join(map(dims, forms))}, got {t}"


@separate_rules.rule("FIA-148", SEPARATE_SCALES, branch="incre", mla=False)
def incre_per_channel(op, s, name):
    t = getattr(op, name)
    if _incre_mode(op, s, name) == 0 and t.shape != (1,):
        return _channel_check(op, s, t)


def _token_check(op, s, t):
    if t.dtype != "f32" or t.rank != 3 or t.shape[:2] != (1, s.B):
        return f"per-token expects f32 (1, B = {s.B}, S'), got {t}"


@separate_rules.rule("FIA-149", SEPARATE_SCALES, branch="incre", mla=False)
def incre_per_token(op, s, name):
    if _incre_mode(op, s, name) == 1:
        return _token_check(op, s, getattr(op, name))


@separate_rules.rule("FIA-150", SEPARATE_SCALES, branch="incre", mla=False)
def incre_per_tensor_head(op, s, name):
    t = getattr(op, name)
    if _incre_mode(op, s, name) != 2:
        return None
    if t.shape != (s.KV_N,) or t.dtype != op.query.dtype or op.key[0].dtype != "i8":
        return (f"per-tensor+per-head (mode 2) expects {op.query.dtype} (KV_N = {s.KV_N}) and "
                f"an i8 key, got {t} with an {op.key[0].dtype} key")


@separate_rules.rule("FIA-151", SEPARATE_SCALES, branch="incre", mla=False)
def incre_per_token_head(op, s, name):
    t = getattr(op, name)
    if _incre_mode(op, s, name) != 3:
        return None
    if t.dtype != "f32" or t.rank != 3 or t.shape[:2] != (s.B, s.KV_N):
        return f"per-token+per-head (mode 3) expects f32 (B = {s.B}, KV_N = {s.KV_N}, S'), got {t}"


def _paged_scale_check(op, s, t, mode, want, what):
    if not s.paged or op.key[0].dtype != "i8":
        return (f"mode {mode} (scales managed by page attention) needs a block table and an i8 "
                f"key, got {'an' if s.paged else 'no'} block table and an {op.key[0].dtype} key")
    if t.dtype != "f32" or t.shape != want:
        return f"mode {mode} expects f32 {what} = {dims(want)}, got {t}"


@separate_rules.rule("FIA-152", SEPARATE_SCALES, branch="incre", mla=False)
def incre_paged_token(op, s, name):
    if _incre_mode(op, s, name) == 4:
        want = (op.key[0].shape[0], op.block_size)
        return _paged_scale_check(op, s, getattr(op, name), 4, want, "(block_num, block_size)")


@separate_rules.rule("FIA-153", SEPARATE_SCALES, branch="incre", mla=False)
def incre_paged_token_head(op, s, name):
    if _incre_mode(op, s, name) == 5:
        want = (op.key[0].shape[0], s.KV_N, op.block_size)
        return _paged_scale_check(op, s, getattr(op, name), 5, want,
                                  "(block_num, KV_N, block_size)")


@separate_rules.rule("FIA-154", SEPARATE_SCALES, branch="incre", mla=False)
def incre_key_channel_value_token(op, s, name):
    """key per-channel (mode 0) with value per-token (mode 1)."""
    if not s.separate or (op.key_antiquant_mode, op.value_antiquant_mode) != (0, 1):
        return None
    check = _channel_check if name.startswith("key") else _token_check
    return check(op, s, getattr(op, name))


@separate_rules.rule("FIA-155", "query", branch="incre", mla=False)
def incre_key_channel_value_token_f16(op, s):
    if not s.separate or (op.key_antiquant_mode, op.value_antiquant_mode) != (0, 1):
        return None
    if op.key[0].dtype == "i8" and (op.query.dtype, op.attention_out.dtype) != ("f16", "f16"):
        return (f"key mode 0 with value mode 1 on an i8 key needs an f16 query and f16 output, "
                f"got {op.query.dtype} and {op.attention_out.dtype}")


@separate_rules.rule("FIA-158", SEPARATE_SCALES, branch="incre", mla=False)
def incre_token_length(op, s, name):
    """Per-token scales (mode 1, mode 3, the value side of key 0 + value 1) cover KV."""
    if not s.separate:
        return None
    mode = op.key_antiquant_mode if name.startswith("key") else op.value_antiquant_mode
    t, need = getattr(op, name), _token_length_need(op, s)
    if mode in (1, 3) and t.shape[2] < need:
        what = "maxBlockNumPerSeq*block_size" if s.paged else "KV_S"
        return f"expected S' >= {what} ({need}), got {t}"

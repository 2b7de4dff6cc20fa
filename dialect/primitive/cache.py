"""Primitive ops: mla.scatter_cache, mla.kv_rmsnorm_rope_cache."""
from __future__ import annotations

from ..opdef import OpDef, f64, i1, operand, optional, string
from ..registry import MLA
from ..rules import RuleSet, dim, shape_text
from ..types import ND, TensorInfo
from .checks import CACHE_MODES, INDEX_TYPES, differs, dtype_in, nd_only, pa_nz_blocks, rank_is, result_is, same_dtype

# --- mla.scatter_cache -------------------------------------------------------------------------
# cache[slot_mapping[i]] = update[i] for a paged cache (BlockNum, BlockSize, Nkv, H), slot
# p = block * BlockSize + offset (numerics.md 5): PA_BSND row-major blocks, PA_NZ blocks stored
# as [Nkv*H / C0, BlockSize, C0]. A negative slot skips its row; of duplicate slots the last
# row wins. In place: the result is the updated cache.

scatter_rules = RuleSet()
scatter_rules.rule("SC-001", "cache")(rank_is("cache", 4, " (BlockNum, BlockSize, Nkv, H)"))
scatter_rules.rule("SC-002", "cache")(dtype_in("cache", ("bf16", "f16", "i8")))
scatter_rules.rule("SC-003", "cache")(nd_only("cache"))
scatter_rules.rule("SC-004", "slot_mapping")(dtype_in("slot_mapping", INDEX_TYPES))
scatter_rules.rule("SC-003", "slot_mapping")(nd_only("slot_mapping"))


@scatter_rules.rule("SC-005", "update")
def scatter_update_shape(op, s):
    expected = op.slot_mapping.shape + op.cache.shape[2:]
    if differs(op.update.shape, expected) or op.update.format != ND:
        return f"expected shape slot_mapping + (Nkv, H) = {shape_text(expected)}, got {op.update}"


scatter_rules.rule("SC-006", "update")(same_dtype("update", "cache"))


@scatter_rules.rule("SC-007", "cache_mode")
def scatter_cache_mode(op, s):
    if op.cache_mode not in CACHE_MODES:
        return f"expected \"PA_BSND\" or \"PA_NZ\", got {op.cache_mode!r}"


scatter_rules.rule("SC-008", "cache")(pa_nz_blocks("cache"))


scatter_rules.rule("SC-009", "cache_out")(result_is("cache_out", lambda op, s: op.cache.shape, dtype_of=lambda op: op.cache.dtype))


@scatter_rules.rule("SC-010", "slot_mapping", kind="runtime")
def scatter_slots_in_range(op, s):
    capacity = op.cache.shape[0] * op.cache.shape[1]
    slots = op.slot_mapping.value.reshape(-1)
    if slots.size and slots.max() >= capacity:
        return (f"value {int(slots.max())} is outside [0, BlockNum*BlockSize) = [0, {capacity}) "
                "(negative values skip a row)")


ScatterCache = MLA.add(OpDef(
    "mla.scatter_cache",
    traits=(),
    operands=[operand("cache"), operand("slot_mapping"), operand("update")],
    attributes=[string("cache_mode", default="PA_BSND")],
    results=["cache_out"],
    rules=scatter_rules,
    inplace={"cache_out": "cache"},
    infer_results=lambda op, s: {"cache_out": op.cache},
    summary="write rows into a paged cache at slots (in place; negative slots skip)",
))


# --- mla.kv_rmsnorm_rope_cache -----------------------------------------------------------------
# kv (B, 1, S, Dv + Dk) -> c_kv = RmsNorm(kv[..., :Dv]) * gamma, k_rope = interleaved RoPE of
# kv[..., Dv:] (de-interleaved output, as mla.rope "interleave"), float32 arithmetic; both written
# into paged caches at the token slots `index` (in place): rounded to the cache type, or
# quantized saturate(rint(x * scale)) into an int8 cache (its scale given). PA / PA_BNSD:
# (BlockNum, BlockSize, 1, D) row-major; PA_NZ: each block [D/C0, BlockSize, C0] (C0 = 32 bytes /
# element size: 16 for bf16/f16, 32 for int8). is_output_kv: k_embed_out / y_out are the
# unquantized k_rope / c_kv in kv's type; otherwise the device leaves them unwritten (zeros here).
# Sources: torch_npu-npu_kv_rmsnorm_rope_cache.md (DeepSeek only: Dv 512, Dk 64, kv
# (B, 1, S, 576); "Norm", PA_BLK_*, offsets and the v form are not modelled: KVR-006, KVR-009,
# KVR-015 in ascend_mla.ops),
# ops-nn kv_rms_norm_rope_cache README (each scale exactly when its cache is int8: a kRope or
# ckv scale alone is allowed, as vLLM-Ascend's A5 path passes c_kv_scale alone) and
# op-plugin KvRmsNormRopeCacheNpuOpApi.cpp (the two kv outputs are allocated (B, 1, S, Dk) and
# (B, 1, S, Dv) whatever is_output_kv).

KV_RMS, KV_ROPE = 512, 64
KVR_TYPES = ("bf16", "f16")
KVR_CACHE_MODES = ("PA", "PA_BNSD", "PA_NZ")
CACHES = {"k_cache": ("k_rope_scale", KV_ROPE), "ckv_cache": ("c_kv_scale", KV_RMS)}

kvr_rules = RuleSet()


@kvr_rules.rule("KVR-001", "kv")
def kvr_kv_shape(op, s):
    if op.kv.rank != 4 or differs(op.kv.shape[1::2], (1, KV_RMS + KV_ROPE)):
        return (f"expected (B, 1, S, {KV_RMS + KV_ROPE}) (one kv head: the RmsNorm part "
                f"{KV_RMS} then the RoPE part {KV_ROPE}), got {op.kv}")


kvr_rules.rule("KVR-002", "kv")(dtype_in("kv", KVR_TYPES))


@kvr_rules.rule("KVR-003", "gamma")
def kvr_gamma(op, s):
    if differs(op.gamma.shape, (KV_RMS,)) or op.gamma.dtype != op.kv.dtype:
        return f"expected ({KV_RMS},) of {op.kv.dtype} (kv's type), got {op.gamma}"


def _kvr_table(name):
    def check(op, s):
        t, want = getattr(op, name), op.kv.shape[:3] + (KV_ROPE,)
        if differs(t.shape, want) or t.dtype != op.kv.dtype:
            return f"expected {shape_text(want)} of {op.kv.dtype} (B, 1, S, {KV_ROPE}), got {t}"
    return check


kvr_rules.rule("KVR-004", "cos")(_kvr_table("cos"))
kvr_rules.rule("KVR-004", "sin")(_kvr_table("sin"))


@kvr_rules.rule("KVR-005", "index")
def kvr_index(op, s):
    b, seq = op.kv.shape[0], op.kv.shape[2]
    want = (None if None in (b, seq) else b * seq,)
    if op.index.dtype != "i64" or differs(op.index.shape, want):
        return f"expected an i64 tensor {shape_text(want)} (one slot per token, B*S), got {op.index}"


@kvr_rules.rule("KVR-006", "cache_mode")
def kvr_cache_mode(op, s):
    if op.cache_mode not in KVR_CACHE_MODES:
        return (f"expected \"PA\", \"PA_BNSD\" or \"PA_NZ\" (\"Norm\" and the PA_BLK modes are not "
                f"modelled), got {op.cache_mode!r}")


def _kvr_cache(name):
    def check(op, s):
        cache, (scale_name, width) = getattr(op, name), CACHES[name]
        k = op.k_cache
        if cache.rank != 4 or differs(cache.shape, k.shape[:2] + (1, width)):
            return (f"expected (BlockNum, BlockSize, 1, {width}) (the k_cache's blocks), got {cache}")
        want = "i8" if getattr(op, scale_name) is not None else op.kv.dtype
        if cache.dtype != want:
            why = f"{scale_name} is given" if want == "i8" else f"kv's type without {scale_name}"
            return f"expected element type {want} ({why}), got {cache.dtype}"
    return check


kvr_rules.rule("KVR-007", "k_cache")(_kvr_cache("k_cache"))
kvr_rules.rule("KVR-007", "ckv_cache")(_kvr_cache("ckv_cache"))


def _kvr_scale(name, width):
    def check(op, s):
        t = getattr(op, name)
        if t is not None and (t.dtype != "f32" or differs(t.shape, (width,))):
            return f"expected an f32 tensor ({width},) (one factor per channel), got {t}"
    return check


kvr_rules.rule("KVR-008", "k_rope_scale")(_kvr_scale("k_rope_scale", KV_ROPE))
kvr_rules.rule("KVR-008", "c_kv_scale")(_kvr_scale("c_kv_scale", KV_RMS))


def _kvr_no_offset(name):
    def check(op, s):
        if getattr(op, name) is not None:
            return "asymmetric quantization is not supported (the documents: \"暂不支持配置\")"
    return check


kvr_rules.rule("KVR-009", "k_rope_offset")(_kvr_no_offset("k_rope_offset"))
kvr_rules.rule("KVR-009", "c_kv_offset")(_kvr_no_offset("c_kv_offset"))


@kvr_rules.rule("KVR-010", "k_cache")
def kvr_blocks(op, s):
    blocks, block_size = dim(op.k_cache, 0), dim(op.k_cache, 1)     # hold until shapes are known
    batch, seq = dim(op.kv, 0), dim(op.kv, 2)
    if block_size < 1 or blocks < -(-seq // block_size) * batch:
        return (f"expected BlockNum >= ceil(S/BlockSize) * B = ceil({seq}/{block_size}) * {batch}, "
                f"got {op.k_cache}")
    for name in CACHES:
        cache = getattr(op, name)
        itemsize = 1 if cache.dtype == "i8" else 2
        if (block_size * itemsize) % 32:
            return (f"expected a BlockSize of a multiple of 32 bytes ({32 // itemsize} elements "
                    f"of {cache.dtype}), got {block_size}")


for _name in ("kv", "gamma", "cos", "sin", "index", "k_cache", "ckv_cache"):
    kvr_rules.rule("KVR-011", _name)(nd_only(_name))


@kvr_rules.rule("KVR-012", "index", kind="runtime")
def kvr_slots_in_range(op, s):
    capacity = op.k_cache.shape[0] * op.k_cache.shape[1]
    slots = op.index.value.reshape(-1)
    bad = slots[(slots < -1) | (slots >= capacity)]
    if bad.size:
        return f"value {int(bad[0])} is outside [-1, BlockNum*BlockSize) = [-1, {capacity})"


@kvr_rules.rule("KVR-013", "index", kind="runtime", severity="warning")
def kvr_unique_slots(op, s):
    slots = op.index.value.reshape(-1)
    slots = slots[slots >= 0]
    if slots.size != len(set(slots.tolist())):
        return "repeated slots: the device's result is undefined (the last token wins here)"


def _kvr_outputs(op, s):
    lead = op.kv.shape[:3]
    return {"k_cache_out": op.k_cache, "ckv_cache_out": op.ckv_cache,
            "k_embed_out": TensorInfo(lead + (KV_ROPE,), op.kv.dtype),
            "y_out": TensorInfo(lead + (KV_RMS,), op.kv.dtype)}


kvr_rules.rule("KVR-014", "k_embed_out")(result_is("k_embed_out", lambda op, s: op.kv.shape[:3] + (KV_ROPE,),
                                         dtype_of=lambda op: op.kv.dtype))
kvr_rules.rule("KVR-014", "y_out")(result_is("y_out", lambda op, s: op.kv.shape[:3] + (KV_RMS,),
                                   dtype_of=lambda op: op.kv.dtype))

KvRmsNormRopeCache = MLA.add(OpDef(
    "mla.kv_rmsnorm_rope_cache",
    traits=(),
    operands=[operand("kv"), operand("gamma"), operand("cos"), operand("sin"), operand("index"),
              operand("k_cache"), operand("ckv_cache"), optional("k_rope_scale"),
              optional("c_kv_scale"), optional("k_rope_offset"), optional("c_kv_offset")],
    attributes=[f64("epsilon", default=1e-5), string("cache_mode", default="Norm"),
                i1("is_output_kv", default=False)],
    results=["k_cache_out", "ckv_cache_out", "k_embed_out", "y_out"],
    rules=kvr_rules,
    inplace={"k_cache_out": "k_cache", "ckv_cache_out": "ckv_cache"},
    infer_results=_kvr_outputs,
    summary="RmsNorm of the latent part and interleaved RoPE of the rope part of kv, written "
            "into two paged caches (in place)",
))

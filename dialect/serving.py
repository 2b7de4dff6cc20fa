"""The ops serving engines call around MLA decode (vLLM-Ascend's `mla_v1.py`): two primitives of
their own, and the torch_npu call rules (profile "PT") of the primitives that already mirror
their torch_npu functions. Kernels: runtime/kernels/serving.py; lowerings:
lowering/serving.py; eager calls: ascend_mla.ops; guide: docs/attention.md "Serving clients".

    op / profile                  torch_npu                                   rule IDs
    mla.kv_rmsnorm_rope_cache     npu_kv_rmsnorm_rope_cache (PA, PA_NZ)       KVR-
    mla.transpose_batchmatmul     npu_transpose_batchmatmul                   TBMM-
    mla.rope, profile PT          npu_interleave_rope                         ROPE-008..010
    mla.dynamic_quant, profile PT npu_dynamic_quant (int8, per token)         DQ-008..009

Sources (NON-SEED, read in Chinese): op-plugin docs/zh/custom_APIs/torch_npu/
torch_npu-npu_<name>.md, the aclnn documents of hicann ops-nn (norm/kv_rms_norm_rope_cache) and
ops-transformer (TransposeBatchMatMul), and op-plugin's op_plugin/ops/opapi/*.cpp (which
aclnn call each makes, the output shapes it allocates).
"""
from __future__ import annotations

from .dialect import MLA
from .opdef import OpDef, f64, i1, i64, i64_array, operand, optional, string
from .primitive import DynamicQuant, Rope, dtype_in, nd_only, rank_is, result_is, same_dtype
from .rules import RuleSet, shape_text
from .types import TensorInfo

PT = "PT"
HALF_TYPES = ("bf16", "f16")


# --- mla.kv_rmsnorm_rope_cache -----------------------------------------------------------------
# kv (B, 1, S, Dv + Dk) -> c_kv = RmsNorm(kv[..., :Dv]) * gamma, k_rope = interleaved RoPE of
# kv[..., Dv:] (de-interleaved output, as mla.rope "interleave"), float32 arithmetic; both written
# into paged caches at the token slots `index` (in place): rounded to the cache type, or
# quantized saturate(rint(x * scale)) into an int8 cache (its scale given). PA / PA_BNSD:
# (BlockNum, BlockSize, 1, D) row-major; PA_NZ: each block [D/C0, BlockSize, C0] (C0 = 32 bytes /
# element size: 16 for bf16/f16, 32 for int8). is_output_kv: k_embed_out / y_out are the
# unquantized k_rope / c_kv in kv's type; otherwise the device leaves them unwritten (zeros here).
# Sources: torch_npu-npu_kv_rmsnorm_rope_cache.md (DeepSeek only: Dv 512, Dk 64, kv
# (B, 1, S, 576); "Norm", PA_BLK_* and the v / offsets forms are not modelled: KVR-006, KVR-010),
# ops-nn kv_rms_norm_rope_cache README (each scale exactly when its cache is int8: a kRope or
# ckv scale alone is allowed, as vLLM-Ascend's A5 path passes c_kv_scale alone) and
# op-plugin KvRmsNormRopeCacheNpuOpApi.cpp (the two kv outputs are allocated (B, 1, S, Dk) and
# (B, 1, S, Dv) whatever is_output_kv).

KV_RMS, KV_ROPE = 512, 64
KVR_CACHE_MODES = ("PA", "PA_BNSD", "PA_NZ")
CACHES = {"k_cache": ("k_rope_scale", KV_ROPE), "ckv_cache": ("c_kv_scale", KV_RMS)}

kvr_rules = RuleSet()
rule = kvr_rules.rule


@rule("KVR-001", "kv")
def kvr_kv_shape(op, s):
    if op.kv.rank != 4 or op.kv.shape[1] != 1 or op.kv.shape[3] != KV_RMS + KV_ROPE:
        return (f"expected (B, 1, S, {KV_RMS + KV_ROPE}) (one kv head: the RmsNorm part "
                f"{KV_RMS} then the RoPE part {KV_ROPE}), got {op.kv}")


rule("KVR-002", "kv")(dtype_in("kv", HALF_TYPES))


@rule("KVR-003", "gamma")
def kvr_gamma(op, s):
    if op.gamma.shape != (KV_RMS,) or op.gamma.dtype != op.kv.dtype:
        return f"expected ({KV_RMS},) of {op.kv.dtype} (kv's type), got {op.gamma}"


def _kvr_table(name):
    def check(op, s):
        t, want = getattr(op, name), op.kv.shape[:3] + (KV_ROPE,)
        if t.shape != want or t.dtype != op.kv.dtype:
            return f"expected {shape_text(want)} of {op.kv.dtype} (B, 1, S, {KV_ROPE}), got {t}"
    return check


rule("KVR-004", "cos")(_kvr_table("cos"))
rule("KVR-004", "sin")(_kvr_table("sin"))


@rule("KVR-005", "index")
def kvr_index(op, s):
    want = (op.kv.shape[0] * op.kv.shape[2],)
    if op.index.dtype != "i64" or op.index.shape != want:
        return f"expected an i64 tensor {shape_text(want)} (one slot per token, B*S), got {op.index}"


@rule("KVR-006", "cache_mode")
def kvr_cache_mode(op, s):
    if op.cache_mode not in KVR_CACHE_MODES:
        return (f"expected \"PA\", \"PA_BNSD\" or \"PA_NZ\" (\"Norm\" and the PA_BLK modes are not "
                f"modelled), got {op.cache_mode!r}")


def _kvr_cache(name):
    def check(op, s):
        cache, (scale_name, width) = getattr(op, name), CACHES[name]
        k = op.k_cache
        if cache.rank != 4 or cache.shape[2] != 1 or cache.shape[3] != width \
                or cache.shape[:2] != k.shape[:2]:
            return (f"expected (BlockNum, BlockSize, 1, {width}) (the k_cache's blocks), got {cache}")
        want = "i8" if getattr(op, scale_name) is not None else op.kv.dtype
        if cache.dtype != want:
            why = f"{scale_name} is given" if want == "i8" else f"kv's type without {scale_name}"
            return f"expected element type {want} ({why}), got {cache.dtype}"
    return check


rule("KVR-007", "k_cache")(_kvr_cache("k_cache"))
rule("KVR-007", "ckv_cache")(_kvr_cache("ckv_cache"))


def _kvr_scale(name, width):
    def check(op, s):
        t = getattr(op, name)
        if t is not None and (t.dtype != "f32" or t.shape != (width,)):
            return f"expected an f32 tensor ({width},) (one factor per channel), got {t}"
    return check


rule("KVR-008", "k_rope_scale")(_kvr_scale("k_rope_scale", KV_ROPE))
rule("KVR-008", "c_kv_scale")(_kvr_scale("c_kv_scale", KV_RMS))


def _kvr_no_offset(name):
    def check(op, s):
        if getattr(op, name) is not None:
            return "asymmetric quantization is not supported (the documents: \"暂不支持配置\")"
    return check


rule("KVR-009", "k_rope_offset")(_kvr_no_offset("k_rope_offset"))
rule("KVR-009", "c_kv_offset")(_kvr_no_offset("c_kv_offset"))


@rule("KVR-010", "k_cache")
def kvr_blocks(op, s):
    blocks, block_size = op.k_cache.shape[:2]
    batch, seq = op.kv.shape[0], op.kv.shape[2]
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
    rule("KVR-011", _name)(nd_only(_name))


@rule("KVR-012", "index", kind="runtime")
def kvr_slots_in_range(op, s):
    capacity = op.k_cache.shape[0] * op.k_cache.shape[1]
    slots = op.index.value.reshape(-1)
    bad = slots[(slots < -1) | (slots >= capacity)]
    if bad.size:
        return f"value {int(bad[0])} is outside [-1, BlockNum*BlockSize) = [-1, {capacity})"


@rule("KVR-013", "index", kind="runtime", severity="warning")
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


rule("KVR-014", "k_embed_out")(result_is("k_embed_out", lambda op, s: op.kv.shape[:3] + (KV_ROPE,),
                                         dtype_of=lambda op: op.kv.dtype))
rule("KVR-014", "y_out")(result_is("y_out", lambda op, s: op.kv.shape[:3] + (KV_RMS,),
                                   dtype_of=lambda op: op.kv.dtype))

KvRmsNormRopeCache = MLA.add(OpDef(
    "mla.kv_rmsnorm_rope_cache",
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


# --- mla.transpose_batchmatmul -------------------------------------------------------------------
# y = (x^perm_x1 @ w)^perm_y: a batched product over the batch axis 0 of x^perm_x1 (B, M, K) and
# w (B, K, N), float32 sums, one rounding, output (M, B, N) -- perm_y is [1, 0, 2], the only
# value documented. perm_x1 [0, 1, 2] reads x as (B, M, K), [1, 0, 2] as (M, B, K) (vLLM-Ascend:
# the attention output (N, B, 512) times W_uv (N, 512, 128) -> (B, N, 128)). Sources:
# torch_npu-npu_transpose_batchmatmul.md (perm_x2 only [0, 1, 2], perm_y only [1, 0, 2], K and N
# multiples of 16, bias "not supported yet"), TransposeBatchMatMulKernelNpuOpApi.cpp (output
# (M, B, N), with batch_split_factor f > 1 (f, M, B*N/f); aclnnTransposeBatchMatMul). The int8
# output of `scale` is not modelled (ascend_mla.ops refuses it, TBMM-009).

TBMM_TYPES = ("bf16", "f16", "f32")
tbmm_rules = RuleSet()
rule = tbmm_rules.rule
rule("TBMM-001", "x")(rank_is("x", 3, " (B, M, K) or (M, B, K)"))
rule("TBMM-002", "x")(dtype_in("x", TBMM_TYPES))
rule("TBMM-001", "w")(rank_is("w", 3, " (B, K, N)"))
rule("TBMM-002", "w")(same_dtype("w", "x"))


@rule("TBMM-003", "perm_x1")
def tbmm_perm_x1(op, s):
    if list(op.perm_x1) not in ([0, 1, 2], [1, 0, 2]):
        return f"expected [0, 1, 2] or [1, 0, 2], got {list(op.perm_x1)}"


@rule("TBMM-003", "perm_x2")
def tbmm_perm_x2(op, s):
    if list(op.perm_x2) != [0, 1, 2]:
        return f"expected [0, 1, 2] (the only value documented), got {list(op.perm_x2)}"


@rule("TBMM-003", "perm_y")
def tbmm_perm_y(op, s):
    if list(op.perm_y) != [1, 0, 2]:
        return f"expected [1, 0, 2] (the only value documented), got {list(op.perm_y)}"


def _bmk(op):
    """x read as (B, M, K) through perm_x1."""
    x = op.x.shape
    return (x[1], x[0], x[2]) if list(op.perm_x1) == [1, 0, 2] else x


@rule("TBMM-004", "w")
def tbmm_dims(op, s):
    b, _, k = _bmk(op)
    if op.w.shape[:2] != (b, k):
        return (f"expected (B, K) = ({b}, {k}) (x's batch and reduce dims through perm_x1), "
                f"got {op.w}")


@rule("TBMM-005", "w")
def tbmm_alignment(op, s):
    k, n = op.w.shape[1:]
    if k % 16 or n % 16:
        return f"expected K and N multiples of 16, got K = {k}, N = {n}"


rule("TBMM-006", "x")(nd_only("x"))
rule("TBMM-006", "w")(nd_only("w"))


@rule("TBMM-007", "batch_split_factor")
def tbmm_split(op, s):
    n, f = op.w.shape[2], op.batch_split_factor
    if not 1 <= f <= n or n % f:
        return f"expected a divisor of N = {n} in [1, {n}], got {f}"


def _tbmm_shape(op, s):
    """(M, B, N); split: (factor, M, B*N / factor), the (M, B*N) rows cut in `factor` column
    blocks stacked in front (op-plugin's test golden: reshape (M, factor, -1), transpose)."""
    b, m, _ = _bmk(op)
    n, f = op.w.shape[2], op.batch_split_factor
    return (m, b, n) if f == 1 else (f, m, b * n // f)


rule("TBMM-008", "y")(result_is("y", _tbmm_shape, TBMM_TYPES))

TransposeBatchMatmul = MLA.add(OpDef(
    "mla.transpose_batchmatmul",
    operands=[operand("x"), operand("w")],
    attributes=[i64_array("perm_x1", default=(0, 1, 2)), i64_array("perm_x2", default=(0, 1, 2)),
                i64_array("perm_y", default=(1, 0, 2)), i64("batch_split_factor", default=1)],
    results=["y"],
    rules=tbmm_rules,
    infer_results=lambda op, s: {"y": TensorInfo(_tbmm_shape(op, s), op.x.dtype)},
    summary="batched x @ w over the batch axis, x read through perm_x1, output (M, B, N)",
))


# --- torch_npu call rules of primitives that mirror a serving call ------------------------------
# npu_interleave_rope (torch_npu-npu_interleave_rope.md): x (B, N, S, 64) f16/bf16, cos/sin
# (B, 1, S or 1, 64) of x's type.

@Rope.rules.rule("ROPE-008", "x", profiles=PT)
def interleave_rope_x(op, s):
    if op.x.rank != 4 or op.x.shape[-1] != KV_ROPE or op.x.dtype not in HALF_TYPES:
        return f"expected a (B, N, S, {KV_ROPE}) f16 or bf16 tensor (torch_npu), got {op.x}"


@Rope.rules.rule("ROPE-009", "cos", profiles=PT)
def interleave_rope_tables(op, s):
    b, _, seq, d = op.x.shape
    t = op.cos
    if t.rank != 4 or t.shape[0] != b or t.shape[1] != 1 or t.shape[2] not in (1, seq) \
            or t.shape[3] != d or t.dtype != op.x.dtype:
        return f"expected ({b}, 1, 1 or {seq}, {d}) of {op.x.dtype} (torch_npu), got {t}"


@Rope.rules.rule("ROPE-010", "mode", profiles=PT)
def interleave_rope_mode(op, s):
    if op.mode != "interleave":
        return f"npu_interleave_rope computes mode \"interleave\", got {op.mode!r}"


# npu_dynamic_quant (torch_npu-npu_dynamic_quant.md): x f16/bf16 of rank > 1; smooth_scales a 1-D
# tensor of x's last dim, f16/bf16. (group_index, int4 and the other quant modes: ascend_mla.ops
# refuses them, DQ-010.)

@DynamicQuant.rules.rule("DQ-008", "x", profiles=PT)
def torch_dynamic_quant_x(op, s):
    if op.x.rank < 2 or op.x.dtype not in HALF_TYPES:
        return f"expected an f16 or bf16 tensor of rank > 1 (torch_npu), got {op.x}"


@DynamicQuant.rules.rule("DQ-009", "smooth_scales", profiles=PT)
def torch_dynamic_quant_smooth(op, s):
    t = op.smooth_scales
    if t is not None and (t.shape != op.x.shape[-1:] or t.dtype not in HALF_TYPES):
        return (f"expected a 1-D f16 or bf16 tensor ({op.x.shape[-1]},) (torch_npu, without "
                f"group_index), got {t}")

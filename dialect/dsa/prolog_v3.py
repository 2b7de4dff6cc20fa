"""`mla.prolog_v3` (aclnnMlaPrologV3WeightNz, torch_npu.npu_mla_prolog_v3): mla.prolog_v2 plus
what DeepSeek Sparse Attention needs (docs/dsa.md; kernel: runtime/kernels/dsa_prolog.py):

    c_q  = qc_qr_scale * RmsNorm(x @ W_dq)            -> query_norm (the indexer's query latent)
    query = (c_q @ W_uq_qr)[nope] @ W_uk;  query_rope = RoPE((c_q @ W_uq_qr)[rope])
    c_kv = kc_scale * RmsNorm((x @ W_dkv_kr)[:512]);  k_rope = RoPE((x @ W_dkv_kr)[512:])
    c_kv, k_rope -> the caches (in place), per cache_mode and kv_cache_quant_mode

    "mla.prolog_v3"(token_x, weight_dq, weight_uq_qr, weight_uk, weight_dkv_kr, rmsnorm_gamma_cq,
                    rmsnorm_gamma_ckv, rope_sin, rope_cos, kv_cache, kr_cache, [cache_index],
                    [dequant_scale_x], [dequant_scale_w_dq], [dequant_scale_w_uq_qr],
                    [dequant_scale_w_dkv_kr], [quant_scale_ckv], [quant_scale_ckr],
                    [smooth_scales_cq], [actual_seq_len], [k_nope_clip_alpha])
        {[rmsnorm_epsilon_cq], [rmsnorm_epsilon_ckv], [cache_mode = "PA_BSND"],
         [query_norm_flag = false], [weight_quant_mode = 0], [kv_cache_quant_mode = 0],
         [query_quant_mode = 0], [ckvkr_repo_mode = 0], [quant_scale_repo_mode = 0],
         [tile_size = 128], [qc_qr_scale = 1.0], [kc_scale = 1.0], [*_dtype]}
        -> (query, query_rope, dequant_scale_q_nope, query_norm, dequant_scale_q_norm,
            kv_cache_out, kr_cache_out)

The first five results are torch_npu's; the caches follow, as npu_mla_prolog_v3_functional
returns them (value semantics in IR, the caller's buffers at run time). An output the call does
not produce is an empty (0,) tensor: dequant_scale_q_nope outside query_quant_mode 1,
query_norm without query_norm_flag, dequant_scale_q_norm without the flag or with
weight_quant_mode 0.

Scenarios (weight_quant_mode, kv_cache_quant_mode, query_quant_mode), PV3-14: (0,0,0); (1,0,0),
(1,2,0), (1,3,0); (2,0,0), (2,1,1), (2,3,0). Weight modes 3/4/5 (mxfp8, fp8, hifloat8) are Ascend
950's and rejected on Atlas A2/A3 (PV3-15). kv_cache_quant_mode 3 is the per-tile packed row:
kv_cache (.., 656) int8 = [512 int8 | 64 bf16 rope | 4 fp32 scales] with ckvkr_repo_mode =
quant_scale_repo_mode = 1 and an empty kr_cache.

Rule IDs: PV3-01 .. PV3-20 as the DSA reference numbers them; PV3-21 .. PV3-24 what its
tables state outside the list (attribute values, the scenario's dtypes, scale shapes, the
results); PV3-X01 (cache_index addresses the cache) is not in the sources: the spec says the
values are not checked, and the CPU runtime must not write outside the caller's buffer.

Profiles (the sources disagree between releases):
  PV3       the aclnn document (0dd10d2d, the newest; IR's default);
  PT        the eager call (torch_npu's document): PV3-20 on top;
  PV3-2511  the 2025-11 text: He in {6144, 7168, 7680}, Hcq 1536, D 128, S <= 16,
            T <= 1048576, BlockSize 16 or 128, every quant mode 0.
"""
from __future__ import annotations

import math

import numpy as np

from ..opdef import OpDef, f64, i1, i64, operand, optional, string
from ..prolog import logical_weight_shape, weight_text
from ..registry import MLA
from ..rules import RuleSet, dim, shape_text, waive
from ..types import FRACTAL_NZ, ND, TensorInfo
from . import common as C

V3, PT, V3_2511 = "PV3", "PT", "PV3-2511"
NEWEST = (V3, PT)
HE = (1024, 2048, 3072, 4096, 5120, 6144, 7168, 7680, 8192)
HE_2511 = (6144, 7168, 7680)
HCQ, HCQ_2511 = (1536, 2048), (1536,)
HEADS = (1, 2, 4, 8, 16, 32, 64, 128)
HEAD_DIMS, HEAD_DIMS_2511 = (128, 192), (128,)
HCKV, DR, NKV = 512, 64, 1
D_TILE_PACKED = 656
MAX_B, MAX_S_2511, MAX_T_2511 = 65536, 16, 1048576
CACHE_MODES = ("PA_BSND", "PA_NZ", "PA_BLK_BSND", "PA_BLK_NZ", "BSND", "TND")
PAGED_SLOTS = ("PA_BSND", "PA_NZ")          # cache_index: one slot per token
PAGED_BLOCKS = ("PA_BLK_BSND", "PA_BLK_NZ")  # cache_index: one block id per BlockSize tokens
UNPAGED = ("BSND", "TND")
SCENARIOS = {(0, 0, 0), (1, 0, 0), (1, 2, 0), (1, 3, 0), (2, 0, 0), (2, 1, 1), (2, 3, 0)}
SCENARIOS_950 = {(w, k, q) for w in (3, 4, 5) for (k, q) in ((0, 0), (1, 1), (3, 0))}

REQUIRED = ("token_x", "weight_dq", "weight_uq_qr", "weight_uk", "weight_dkv_kr", "rmsnorm_gamma_cq",
            "rmsnorm_gamma_ckv", "rope_sin", "rope_cos", "kv_cache", "kr_cache")
OPTIONAL = ("cache_index", "dequant_scale_x", "dequant_scale_w_dq", "dequant_scale_w_uq_qr",
            "dequant_scale_w_dkv_kr", "quant_scale_ckv", "quant_scale_ckr", "smooth_scales_cq",
            "actual_seq_len", "k_nope_clip_alpha")
NZ_WEIGHTS = ("weight_dq", "weight_uq_qr", "weight_dkv_kr")
DTYPE_ATTRIBUTES = ("token_x_dtype", "weight_dq_dtype", "weight_uq_qr_dtype", "weight_dkv_kr_dtype",
                    "kv_cache_dtype")

rules = RuleSet()
rule = rules.rule


# --- symbols -----------------------------------------------------------------------------------

def _t_eff(op, s):
    return s.T if s.merged else s.B * s.S


SYMBOLS = {
    "merged": lambda op, s: op.token_x.rank == 2,
    "T": lambda op, s: dim(op.token_x, 0),
    "B": lambda op, s: dim(op.token_x, 0),
    "S": lambda op, s: dim(op.token_x, 1),
    "T_eff": _t_eff,
    "tokens": lambda op, s: op.token_x.shape[:-1],
    "He": lambda op, s: dim(op.token_x, -1),
    "Hcq": lambda op, s: logical_weight_shape(op.weight_dq)[1],
    "N": lambda op, s: dim(op.weight_uk, 0),
    "D": lambda op, s: dim(op.weight_uk, 1),
    "Hckv": lambda op, s: dim(op.weight_uk, 2),
    "Dr": lambda op, s: dim(op.rope_sin, -1),
    "paged": lambda op, s: op.cache_mode.startswith("PA_"),
    "BlockNum": lambda op, s: dim(op.kv_cache, 0),
    "BlockSize": lambda op, s: dim(op.kv_cache, 1),
    "Nkv": lambda op, s: dim(op.kv_cache, -2),
    "Dtile": lambda op, s: dim(op.kv_cache, -1),
    "scenario": lambda op, s: (op.weight_quant_mode, op.kv_cache_quant_mode, op.query_quant_mode),
    "wq": lambda op, s: op.weight_quant_mode,
    "kvq": lambda op, s: op.kv_cache_quant_mode,
}


def _tokens_text(s) -> str:
    return "(T" if s.merged else "(B, S"


# --- presence (eager calls) ---------------------------------------------------------------------
C.required_rule(rules, "PV3-20", REQUIRED)


# --- attribute values (§6.4) --------------------------------------------------------------------

@rule("PV3-21", "cache_mode")
def cache_mode(op, s):
    if op.cache_mode not in CACHE_MODES:
        return f"expected {C.one_of(CACHE_MODES)}, got {op.cache_mode!r}"


for _name, _values in (("weight_quant_mode", range(6)), ("kv_cache_quant_mode", range(4)),
                       ("query_quant_mode", range(2)), ("ckvkr_repo_mode", range(2)),
                       ("quant_scale_repo_mode", range(2))):
    @rule("PV3-21", _name)
    def mode_value(op, s, _name=_name, _values=tuple(_values)):
        if getattr(op, _name) not in _values:
            return f"expected one of {C.one_of(_values)}, got {getattr(op, _name)}"


@rule("PV3-21", "tile_size")
def tile_size_value(op, s):
    if op.kv_cache_quant_mode == 3 and op.tile_size != 128:
        return f"expected 128 with kv_cache_quant_mode 3 (four tiles of the 512-value latent), got {op.tile_size}"


@rule("PV3-14", "kv_cache_quant_mode")
def scenario(op, s):
    if s.scenario not in SCENARIOS | SCENARIOS_950:
        listed = ", ".join(str(t) for t in sorted(SCENARIOS))
        return (f"(weight_quant_mode, kv_cache_quant_mode, query_quant_mode) = {s.scenario} is not a "
                f"supported scenario ({listed}; and Ascend 950's weight modes 3, 4, 5)")


@rule("PV3-15", "weight_quant_mode")
def no_950_weight_modes(op, s):
    if op.weight_quant_mode in (3, 4, 5):
        return (f"weight modes 3, 4, 5 (mxfp8, fp8, hifloat8) are Ascend 950 only (Atlas A2/A3: 0, 1, "
                f"2), got {op.weight_quant_mode}")


for _name in DTYPE_ATTRIBUTES:
    @rule("PV3-15", _name)
    def no_hifloat8(op, s, _name=_name):
        if getattr(op, _name) is not None:
            return (f"must be absent on Atlas A2/A3 (it names a hifloat8 tensor travelling as uint8, "
                    f"Ascend 950), got {getattr(op, _name)}")


@rule("PV3-14", "query_quant_mode", profiles=V3_2511)
def all_modes_reserved_2511(op, s):
    """The 2025-11 text: every quant mode is reserved (0)."""
    if s.scenario != (0, 0, 0):
        return f"expected every quant mode 0 (reserved in the 2025-11 document), got {s.scenario}"


@rule("PV3-12", "ckvkr_repo_mode")
def repo_modes(op, s):
    packed = op.kv_cache_quant_mode == 3
    modes = (op.ckvkr_repo_mode, op.quant_scale_repo_mode)
    if packed and modes != (1, 1):
        return f"expected ckvkr_repo_mode = quant_scale_repo_mode = 1 with kv_cache_quant_mode 3, got {modes}"
    if not packed and modes != (0, 0):
        return f"expected ckvkr_repo_mode = quant_scale_repo_mode = 0 unless kv_cache_quant_mode is 3, got {modes}"


@rule("PV3-12", "cache_mode")
def packed_cache_modes(op, s):
    if op.kv_cache_quant_mode == 3 and op.cache_mode not in ("PA_BSND", "BSND", "TND"):
        return f"expected PA_BSND, BSND or TND with kv_cache_quant_mode 3, got {op.cache_mode!r}"


# --- ranks and formats --------------------------------------------------------------------------

@rule("PV3-20", "token_x")
def token_x_rank(op, s):
    if op.token_x.rank not in (2, 3):
        return f"expected rank 2 (T, He) or 3 (B, S, He), got {op.token_x}"


@rule("PV3-11", "token_x")
def token_x_for_cache_mode(op, s):
    if op.cache_mode == "BSND" and s.merged:
        return f"expected a 3-D token_x (B, S, He) with cache_mode BSND, got {op.token_x}"
    if op.cache_mode == "TND" and not s.merged:
        return f"expected a 2-D token_x (T, He) with cache_mode TND, got {op.token_x}"


@rule("PV3-20", "weight_uk")
def weight_uk_rank(op, s):
    if op.weight_uk.rank != 3:
        return f"expected rank 3 (N, D, Hckv), got {op.weight_uk}"


for _name in ("rope_sin", "rope_cos"):
    @rule("PV3-20", _name)
    def rope_rank(op, s, _name=_name):
        if getattr(op, _name).rank != op.token_x.rank:
            return f"expected token_x's rank ({op.token_x.rank}), got {getattr(op, _name)}"


for _name in NZ_WEIGHTS:
    @rule("PV3-17", _name)
    def nz_weight(op, s, _name=_name):
        t = getattr(op, _name)
        if t.format != FRACTAL_NZ:
            return (f"expected format FRACTAL_NZ (#mla.format<\"FRACTAL_NZ\">; eager: "
                    f"format_cast(w, 29)), got {t.format}")
        if t.rank not in (2, 4):
            return f"expected a 2-D weight (or its 4-D NZ storage shape), got {t}"

C.nd_rule(rules, "PV3-17", ("token_x", "weight_uk", "rmsnorm_gamma_cq", "rmsnorm_gamma_ckv",
                            "rope_sin", "rope_cos", "kv_cache", "kr_cache") + OPTIONAL)


# --- the dimensions ---------------------------------------------------------------------------

@rule("PV3-01", "token_x")
def batch_range(op, s):
    if not s.merged and not 0 <= s.B <= MAX_B:
        return f"expected B in [0, {MAX_B}], got {s.B}"


@rule("PV3-01", "token_x", profiles=V3_2511)
def tokens_2511(op, s):
    """The 2025-11 text: S in [0, 16], T <= 1048576."""
    if not s.merged and s.S > MAX_S_2511:
        return f"expected S <= {MAX_S_2511} (2025-11 document), got {s.S}"
    if s.merged and s.T > MAX_T_2511:
        return f"expected T <= {MAX_T_2511} (2025-11 document), got {s.T}"


@rule("PV3-02", "token_x", profiles=NEWEST)
def he_value(op, s):
    if s.He not in HE:
        return f"expected He (last dimension) in {{{', '.join(map(str, HE))}}}, got {s.He}"


@rule("PV3-02", "token_x", profiles=V3_2511)
def he_value_2511(op, s):
    """The 2025-11 text: He in {6144, 7168, 7680}."""
    if s.He not in HE_2511:
        return f"expected He in {{{', '.join(map(str, HE_2511))}}} (2025-11 document), got {s.He}"


@rule("PV3-03", "weight_dq", profiles=NEWEST)
def hcq_value(op, s):
    if s.Hcq not in HCQ:
        return f"expected Hcq (columns) in {{1536, 2048}}, got {s.Hcq} ({weight_text(op.weight_dq)})"


@rule("PV3-03", "weight_dq", profiles=V3_2511)
def hcq_value_2511(op, s):
    """The 2025-11 text: Hcq 1536."""
    if s.Hcq not in HCQ_2511:
        return f"expected Hcq = 1536 (2025-11 document), got {s.Hcq}"


@rule("PV3-04", "weight_uk")
def heads(op, s):
    if s.N not in HEADS:
        return f"expected N (dimension 0) in {{{', '.join(map(str, HEADS))}}}, got {s.N}"


@rule("PV3-06", "weight_uk", profiles=NEWEST)
def head_dim(op, s):
    if s.D not in HEAD_DIMS:
        return f"expected D (dimension 1) in {{128, 192}}, got {s.D}"


@rule("PV3-06", "weight_uk", profiles=V3_2511)
def head_dim_2511(op, s):
    """The 2025-11 text: D 128."""
    if s.D != 128:
        return f"expected D = 128 (2025-11 document), got {s.D}"


@rule("PV3-05", "weight_uk")
def hckv_value(op, s):
    if s.Hckv != HCKV:
        return f"expected Hckv = {HCKV} (dimension 2), got {s.Hckv}"


@rule("PV3-05", "rope_sin")
def dr_value(op, s):
    if s.Dr != DR:
        return f"expected Dr = {DR} (last dimension), got {s.Dr}"


@rule("PV3-05", "kv_cache")
def nkv_value(op, s):
    if op.kv_cache.rank < 3 or s.Nkv != NKV:
        return f"expected Nkv = 1 (dimension -2), got {op.kv_cache}"


@rule("PV3-08", "kv_cache")
def dtile_value(op, s):
    expected = D_TILE_PACKED if op.kv_cache_quant_mode == 3 else HCKV
    if s.Dtile != expected:
        why = "the packed per-tile row" if expected == D_TILE_PACKED else "the latent"
        return f"expected Dtile = {expected} ({why}; last dimension), got {s.Dtile}"


def _cache_shape(op, s, width) -> tuple:
    if s.paged:
        return (s.BlockNum, s.BlockSize, NKV, width)
    return (*s.tokens, NKV, width)


def _cache_form(op) -> str:
    return {"BSND": "(B, S, Nkv, {})", "TND": "(T, Nkv, {})"}.get(op.cache_mode, "(BlockNum, BlockSize, Nkv, {})")


@rule("PV3-10", "kv_cache")
def kv_cache_shape(op, s):
    if s.paged:
        if op.kv_cache.rank != 4:
            return f"expected {_cache_form(op).format('Dtile')}, got {op.kv_cache}"
        return None
    expected = _cache_shape(op, s, s.Dtile)
    if C.differs(op.kv_cache.shape, expected):
        return f"expected {_cache_form(op).format('Dtile')} = {shape_text(expected)}, got {op.kv_cache}"


@rule("PV3-13", "kr_cache")
def kr_cache_shape(op, s):
    if op.ckvkr_repo_mode == 1:
        if not op.kr_cache.is_empty:
            return f"expected an empty tensor with ckvkr_repo_mode 1 (the rope travels in kv_cache's rows), got {op.kr_cache}"
        return None
    expected = _cache_shape(op, s, DR)
    if C.differs(op.kr_cache.shape, expected):
        return f"expected {_cache_form(op).format('Dr')} = {shape_text(expected)}, got {op.kr_cache}"


@rule("PV3-07", "kv_cache", profiles=NEWEST)
def block_size(op, s):
    if s.paged and not (16 <= s.BlockSize <= 1024 and s.BlockSize % 16 == 0):
        return f"expected BlockSize (dimension 1) a multiple of 16 in [16, 1024], got {s.BlockSize}"


@rule("PV3-07", "kv_cache", profiles=V3_2511)
def block_size_2511(op, s):
    """The 2025-11 text: BlockSize 16 or 128."""
    if s.paged and s.BlockSize not in (16, 128):
        return f"expected BlockSize 16 or 128 (2025-11 document), got {s.BlockSize}"


@rule("PV3-09", "kv_cache")
def block_num(op, s):
    if not s.paged or s.BlockNum == 0:
        return None
    if op.cache_mode in PAGED_SLOTS:
        needed = math.ceil(s.T_eff / s.BlockSize)
        formula = "ceil(B*S / BlockSize)" if not s.merged else "ceil(T / BlockSize)"
    elif s.merged:
        return None                      # sum(ceil(S_i / BlockSize)): actual_seq_len's values
    else:
        needed = s.B * math.ceil(s.S / s.BlockSize)
        formula = "B*ceil(S / BlockSize)"
    if s.BlockNum < needed:
        return f"expected BlockNum >= {formula} = {needed}, got {s.BlockNum}"


@rule("PV3-16", "kv_cache")
def zero_only_token_dims(op, s):
    for name in ("weight_dq", "weight_uq_qr", "weight_uk", "weight_dkv_kr", "rmsnorm_gamma_cq",
                 "rmsnorm_gamma_ckv"):
        t = getattr(op, name)
        if t.is_empty:
            return f"only B, S, T and BlockNum may be 0: {name} is {t}"
    if op.token_x.shape[-1] == 0 or (s.paged and 0 in op.kv_cache.shape[1:]):
        return f"only B, S, T and BlockNum may be 0, got token_x {op.token_x}, kv_cache {op.kv_cache}"


@rule("PV3-10", "rope_sin")
def rope_sin_shape(op, s):
    return _token_shaped(op, s, "rope_sin", (DR,), "Dr)")


@rule("PV3-10", "rope_cos")
def rope_cos_shape(op, s):
    return _token_shaped(op, s, "rope_cos", (DR,), "Dr)")


def _token_shaped(op, s, name, tail, tail_text):
    t = getattr(op, name)
    expected = (*s.tokens, *tail)
    if C.differs(t.shape, expected):
        return f"expected {_tokens_text(s)}, {tail_text} = {shape_text(expected)}, got {t}"


def _weight_rule(name, expected_of, text):
    @rule("PV3-10", name)
    def weight_shape(op, s):
        shape = logical_weight_shape(getattr(op, name))
        expected = expected_of(s)
        if C.differs(shape, expected):
            return f"expected {text} = {shape_text(expected)}, got {weight_text(getattr(op, name))}"


_weight_rule("weight_dq", lambda s: (s.He, s.Hcq), "(He, Hcq)")
_weight_rule("weight_uq_qr", lambda s: (s.Hcq, s.N * (s.D + s.Dr)), "(Hcq, N*(D+Dr))")
_weight_rule("weight_dkv_kr", lambda s: (s.He, s.Hckv + s.Dr), "(He, Hckv+Dr)")


@rule("PV3-10", "rmsnorm_gamma_cq")
def gamma_cq(op, s):
    if C.differs(op.rmsnorm_gamma_cq.shape, (s.Hcq,)):
        return f"expected (Hcq,) = ({s.Hcq},), got {op.rmsnorm_gamma_cq}"


@rule("PV3-10", "rmsnorm_gamma_ckv")
def gamma_ckv(op, s):
    if C.differs(op.rmsnorm_gamma_ckv.shape, (s.Hckv,)):
        return f"expected (Hckv,) = ({s.Hckv},), got {op.rmsnorm_gamma_ckv}"


@rule("PV3-10", "cache_index")
def cache_index_shape(op, s):
    t = op.cache_index
    if op.cache_mode in UNPAGED:
        if t is not None:
            return f"must be absent with cache_mode {op.cache_mode} (tokens go to their own rows), got {t}"
        return None
    if t is None:
        return None                        # optional: no cache written
    if t.dtype != "i64":
        return f"expected element type i64, got {t.dtype}"
    if op.cache_mode in PAGED_SLOTS:
        expected = tuple(s.tokens)
        if C.differs(t.shape, expected):
            return f"expected one slot per token {_tokens_text(s)}) = {shape_text(expected)}, got {t}"
    elif not s.merged:
        expected = (s.B, math.ceil(s.S / s.BlockSize))
        if C.differs(t.shape, expected):
            return f"expected one block id per BlockSize tokens (B, ceil(S / BlockSize)) = {shape_text(expected)}, got {t}"
    elif t.rank != 1:
        return f"expected a 1-D tensor of block ids (sum(ceil(S_i / BlockSize)),), got {t}"


@rule("PV3-10", "actual_seq_len")
def actual_seq_len(op, s):
    t = op.actual_seq_len
    if op.cache_mode in PAGED_BLOCKS and s.merged:
        if t is None:
            return "is required with a 2-D token_x and cache_mode PA_BLK_* (the sequences' cumulative lengths), got none"
        if t.rank != 1 or t.dtype != "i32":
            return f"expected a 1-D i32 tensor (B,), got {t}"
    elif t is not None:
        return f"must be absent unless token_x is 2-D and cache_mode is PA_BLK_*, got {t}"


# --- the scenario's dtypes and scales ------------------------------------------------------------

def _wants(op, name) -> tuple:
    """The element types an operand may have in this scenario (§6.3 on A2/A3)."""
    wq, kvq = op.weight_quant_mode, op.kv_cache_quant_mode
    table = {
        "token_x": ("i8",) if wq == 2 else ("bf16",),
        "weight_dq": ("i8",) if wq == 2 else ("bf16",),
        "weight_dkv_kr": ("i8",) if wq == 2 else ("bf16",),
        "weight_uq_qr": ("i8",) if wq in (1, 2) else ("bf16",),
        "weight_uk": ("bf16",), "rmsnorm_gamma_cq": ("bf16",), "rmsnorm_gamma_ckv": ("bf16",),
        "rope_sin": ("bf16",), "rope_cos": ("bf16",),
        "kv_cache": ("bf16",) if kvq == 0 else ("i8",),
        "kr_cache": ("i8",) if kvq == 2 else ("bf16",),
    }
    return table[name]


for _name in REQUIRED:
    @rule("PV3-22", _name)
    def scenario_dtype(op, s, _name=_name):
        t = getattr(op, _name)
        if _name == "kr_cache" and op.ckvkr_repo_mode == 1:
            return None                    # the empty placeholder: any type
        wanted = _wants(op, _name)
        if t.dtype not in wanted:
            return (f"expected element type {C.one_of(wanted)} in scenario (weight_quant_mode, "
                    f"kv_cache_quant_mode) = ({op.weight_quant_mode}, {op.kv_cache_quant_mode}), got {t.dtype}")


def _scale_spec(op, s, name):
    """(expected shape or None when the scenario takes no such operand, the reason)."""
    wq, kvq = op.weight_quant_mode, op.kv_cache_quant_mode
    specs = {
        "dequant_scale_x": ((s.T_eff, 1), wq == 2, "weight_quant_mode 2"),
        "dequant_scale_w_dq": ((1, s.Hcq), wq == 2, "weight_quant_mode 2"),
        "dequant_scale_w_uq_qr": ((1, s.N * (s.D + s.Dr)), wq in (1, 2), "weight_quant_mode 1 or 2"),
        "dequant_scale_w_dkv_kr": ((1, s.Hckv + s.Dr), wq == 2, "weight_quant_mode 2"),
        "quant_scale_ckv": ((1,) if kvq == 1 else (1, s.Hckv), kvq in (1, 2), "kv_cache_quant_mode 1 or 2"),
        "quant_scale_ckr": ((1, s.Dr), kvq == 2, "kv_cache_quant_mode 2"),
        "smooth_scales_cq": ((1, s.Hcq), wq in (1, 2), "weight_quant_mode 1 or 2"),
        "k_nope_clip_alpha": ((1,), wq in (1, 2) and kvq == 3, "(weight_quant_mode 1 or 2, kv_cache_quant_mode 3)"),
    }
    return specs[name]


_OPTIONAL_SCALES = ("smooth_scales_cq", "k_nope_clip_alpha")
for _name in ("dequant_scale_x", "dequant_scale_w_dq", "dequant_scale_w_uq_qr", "dequant_scale_w_dkv_kr",
              "quant_scale_ckv", "quant_scale_ckr", "smooth_scales_cq", "k_nope_clip_alpha"):
    @rule("PV3-23", _name)
    def scale_operand(op, s, _name=_name):
        t = getattr(op, _name)
        shape, used, when = _scale_spec(op, s, _name)
        if not used:
            if t is not None:
                return f"must be absent outside {when}, got {t}"
            return None
        if t is None:
            return None if _name in _OPTIONAL_SCALES else f"is required in {when}, got none"
        if t.dtype != "f32" or C.differs(t.shape, shape):
            return f"expected an f32 tensor {shape_text(shape)}, got {t}"


# --- results (§6.5) -----------------------------------------------------------------------------

def _result_infos(op, s) -> dict:
    tokens, n = op.token_x.shape[:-1], op.weight_uk.shape[0]
    hckv, hcq = op.weight_uk.shape[2], logical_weight_shape(op.weight_dq)[1]
    t_eff = None if None in tokens else math.prod(tokens)
    qq = op.query_quant_mode == 1
    flag, wq = op.query_norm_flag, op.weight_quant_mode
    kv, kr = op.kv_cache, op.kr_cache
    return {
        "query": TensorInfo((*tokens, n, hckv), "i8" if qq else "bf16"),
        "query_rope": TensorInfo((*tokens, n, op.rope_sin.shape[-1]), "bf16"),
        "dequant_scale_q_nope": TensorInfo((t_eff, n, 1) if qq else (0,), "f32"),
        "query_norm": TensorInfo((*tokens, hcq) if flag else (0,), "i8" if flag and wq in (1, 2) else "bf16"),
        "dequant_scale_q_norm": TensorInfo((t_eff, 1) if flag and wq != 0 else (0,), "f32"),
        "kv_cache_out": TensorInfo(kv.shape, kv.dtype, kv.format),
        "kr_cache_out": TensorInfo(kr.shape, kr.dtype, kr.format),
    }


for _name in ("query", "query_rope", "dequant_scale_q_nope", "query_norm", "dequant_scale_q_norm",
              "kv_cache_out", "kr_cache_out"):
    @rule("PV3-24", _name)
    def result_type(op, s, _name=_name):
        expected = _result_infos(op, s)[_name]
        t = getattr(op, _name)
        if t.dtype != expected.dtype or t.format != ND or C.differs(t.shape, expected.shape):
            return f"expected {expected}, got {t}"


# --- call-time rules ------------------------------------------------------------------------------

@rule("PV3-18", "actual_seq_len", kind="runtime")
def actual_seq_len_total(op, s):
    t = op.actual_seq_len
    if t is None or t.value is None:
        return None
    values = np.asarray(t.value).reshape(-1).astype(np.int64)
    if values.size and (np.any(np.diff(values) < 0) or values[0] < 0):
        return f"expected cumulative lengths (non-decreasing, >= 0), got {values.tolist()}"
    if values.size and values[-1] != s.T:
        return f"expected a last value equal to T = {s.T}, got {int(values[-1])}"


@rule("PV3-09", "kv_cache", kind="runtime")
def block_num_merged(op, s):
    t = op.actual_seq_len
    if op.cache_mode not in PAGED_BLOCKS or not s.merged or t is None or t.value is None or s.BlockNum == 0:
        return None
    lengths = np.diff(np.concatenate([[0], np.asarray(t.value).reshape(-1).astype(np.int64)]))
    needed = int(sum(math.ceil(n / s.BlockSize) for n in lengths.tolist()))
    if s.BlockNum < needed:
        return f"expected BlockNum >= sum(ceil(S_i / BlockSize)) = {needed}, got {s.BlockNum}"


@rule("PV3-X01", "cache_index", kind="runtime")
def cache_index_in_range(op, s):
    """cache_index addresses the cache: a slot < BlockNum*BlockSize (PA_BSND / PA_NZ) or a block
    id < BlockNum (PA_BLK_*); negative values skip (not in the sources, which leave the values
    unchecked: the CPU runtime must not write past the caller's buffer)."""
    t = op.cache_index
    if t is None or t.value is None or not s.paged or s.BlockNum == 0 or s.T_eff == 0:
        return None
    values = np.asarray(t.value).reshape(-1)
    bound = s.BlockNum * s.BlockSize if op.cache_mode in PAGED_SLOTS else s.BlockNum
    if values.size and values.max() >= bound:
        at = int(np.argmax(values >= bound))
        what = "BlockNum*BlockSize" if op.cache_mode in PAGED_SLOTS else "BlockNum"
        return f"expected values < {what} = {bound} (negative values skip), got {int(values[at])} at {at}"


for _name in ("token_x", "weight_uk", "rope_sin", "rope_cos", "cache_index", "dequant_scale_x"):
    C.contiguous_rule(rules, "PV3-17", (_name,))


for _name in ("kv_cache", "kr_cache"):
    @rule("PV3-17", _name, kind="runtime")
    def cache_axis0_only(op, s, _name=_name):
        """The caches may be strided in axis 0 only; the CPU runtime writes them in place, so a
        read-only array is rejected too."""
        data = getattr(op, _name).value
        if not isinstance(data, np.ndarray) or data.size == 0:
            return None
        if not data.flags.writeable:
            return "expected a writeable array: the cache is updated in place, got a read-only one"
        if not data.flags.c_contiguous and not (data.shape[0] and data[0:1].flags.c_contiguous
                                                and op.cache_mode not in ("PA_NZ", "PA_BLK_NZ")):
            return f"expected a contiguous tensor (or strided in axis 0 only; NZ caches contiguous), got strides {data.strides}"


waive("PV3-19", "determinism is a runtime switch of the device (aclrtCtxSetSysParamOpt), not a "
                "constraint on a call; the CPU kernel is deterministic")


PrologV3 = MLA.add(OpDef(
    "mla.prolog_v3",
    traits=(),
    operands=[operand(n) for n in REQUIRED] + [optional(n) for n in OPTIONAL],
    attributes=[f64("rmsnorm_epsilon_cq", default=1e-5), f64("rmsnorm_epsilon_ckv", default=1e-5),
                string("cache_mode", default="PA_BSND"), i1("query_norm_flag", default=False),
                i64("weight_quant_mode", default=0), i64("kv_cache_quant_mode", default=0),
                i64("query_quant_mode", default=0), i64("ckvkr_repo_mode", default=0),
                i64("quant_scale_repo_mode", default=0), i64("tile_size", default=128),
                f64("qc_qr_scale", default=1.0), f64("kc_scale", default=1.0),
                *[i64(n, default=None) for n in DTYPE_ATTRIBUTES]],
    results=["query", "query_rope", "dequant_scale_q_nope", "query_norm", "dequant_scale_q_norm",
             "kv_cache_out", "kr_cache_out"],
    rules=rules,
    symbols=SYMBOLS,
    infer_results=_result_infos,
    profiles=(V3, PT, V3_2511),
    inplace={"kv_cache_out": "kv_cache", "kr_cache_out": "kr_cache"},
    summary="MLA pre-processing V3 (aclnnMlaPrologV3WeightNz): prolog_v2 plus query_norm for the "
            "DSA indexer, scale corrections, the per-tile packed int8 cache",
))

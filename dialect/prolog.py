"""`mla.prolog` (aclnnMlaProlog, seed 001) and `mla.prolog_v2` (aclnnMlaPrologV2WeightNz, seed
000; torch_npu.npu_mla_prolog_v2, seed 002): the MLA pre-processing of one layer. Catalog:
the prolog/NSA constraint catalog; rules in docs/rules.md Part A, checklist D1. Kernel: runtime/kernels/prolog.py.

    "mla.prolog"(token_x, weight_dq, weight_uq_qr, weight_uk, weight_dkv_kr, rmsnorm_gamma_cq,
                 rmsnorm_gamma_ckv, rope_sin, rope_cos, cache_index, kv_cache, kr_cache,
                 [dequant_scale_x], [dequant_scale_w_dq], [dequant_scale_w_uq_qr],
                 [dequant_scale_w_dkv_kr], [quant_scale_ckv], [quant_scale_ckr], [smooth_scales_cq])
        {[rmsnorm_epsilon_cq = 1e-5], [rmsnorm_epsilon_ckv = 1e-5], [cache_mode = "PA_BSND"]}
        -> (query, query_rope, kv_cache_out, kr_cache_out)
    "mla.prolog_v2"(same operands and attributes)
        -> (query, query_rope, kv_cache_out, kr_cache_out, dequant_scale_q_nope)

Both ops share one rule set; a profile selects the document a rule comes from:
  V1   mla.prolog in IR: the aclnnMlaProlog document (NQ, PQ-KVNQ, PQ-KVQ).
  V1E  the eager ascend_mla.ops.npu_mla_prolog: the same document (the seeds hold no torch_npu
       page for it), with weights given as NZ tensors of logical shape (see 1).
  V2   mla.prolog_v2 in IR: the aclnnMlaPrologV2WeightNz document (all five scenarios).
  PT   the eager npu_mla_prolog_v2: torch_npu's document, whose ranges are narrower: He = 7168
       only, N >= 8, B, S, T >= 1, BlockNum >= 1, no empty tensor (MLA-091 ... MLA-107, MLA-185).

Symbols: He, Hcq = 1536, N, D = 128, Dr = 64, Hckv = 512, Nkv = 1, BlockNum, BlockSize; tokens
are (T,) when token_x is 2-D ("BS-merged") and (B, S) when it is 3-D; T_eff = T or B*S.

Choices, and resolutions of what the seeds leave open (catalog A11, A12):
 1. FRACTAL_NZ weights (weight_dq, weight_uq_qr, weight_dkv_kr) carry `#mla.format<"FRACTAL_NZ">`
    on their logical 2-D shape, e.g. tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>. IR also
    accepts the 4-D storage shape the aclnn examples pass (A9.1), with the same encoding:
    (w / C0, h / 16, 16, C0), C0 = 32 bytes / element size (16 for bf16, 32 for i8); the logical
    (h, w) is then (dim1 * 16, dim0 * C0) (`logical_weight_shape`). Eager calls take NZTensors,
    whose .shape is logical, so there a weight must be 2-D (V1E, PT).
 2. Symbol binding (A6.1, with other defining tensors where the suggested one would make a shape
    rule check nothing): He from token_x, Hcq from weight_dq's columns, N and D from weight_uk,
    Dr from rope_sin, Hckv from weight_dkv_kr's columns minus Dr, BlockNum, BlockSize, Nkv from
    kv_cache. Every other occurrence is checked against them.
 3. The scenario comes from dtypes (A5.6): token_x i8 -> full quant (FQ), else weight_uq_qr i8 ->
    partial quant (PQ), else NQ; kv_cache i8 -> "KVQ". Every other dtype and every optional
    operand must then match that scenario's column of the seed tables.
 4. Scale operands a scenario marks "need not be assigned" (无需赋值) must be absent (strict, M16).
    In FQ-KVQ quant_scale_ckr must be absent: the table and the V2 example win over the sentence
    "量化输出时必传 ... quantScaleCkrOptional", which is read as PQ-KVQ only (A5.5).
 5. mla.prolog_v2 always has the dequant_scale_q_nope result: (T_eff, N, 1) f32 in FQ-KVQ, (1,)
    f32 otherwise. In FQ-KVNQ the V2 document's text gives (T, N, 1) ("全量化场景下") and its
    table nothing ("无需赋值"), so IR may declare either form there (the kernel then returns
    zeros); torch_npu's text says (T, N, 1) only in FQ-KVQ. The V2 parameter table's "[T]或
    [B, S]" is a seed error (A6.2). mla.prolog has no such result (MLA-020).
 6. Empty tensors: B, S, T and BlockNum may be 0 in V1 and V2 (V1 only has the parameter-level
    sentences, which say the same); every other dimension must be non-zero. query/query_rope are
    empty exactly when T_eff = 0 ("不支持空Tensor" read as "unless T_eff = 0", A11.8).
    dequant_scale_x is token-shaped, so it may be (0, 1). PT allows no empty tensor.
 7. cache_mode absent means "PA_BSND" (M17, MLA-032). The epsilons may be any number (M18); no
    warning for values other than the recommended 1e-5 (DeepSeek-V3 itself uses 1e-6).
 8. cache_index is checked at call time (M11): a value >= BlockNum * BlockSize rejects the call
    before anything is written, a negative value skips its token; nothing is checked when
    BlockNum = 0 or T_eff = 0 (the caches are not updated then, A7). Duplicate slots give a
    warning (MLA-191; the highest token wins on the CPU, hardware order is unspecified).
 9. dequant_scale_x must be contiguous in V2 (MLA-064): IR values have no strides, so the eager
    call checks its array at call time. The PT document says nothing and accepts any layout.
10. A rule that needs a dynamic (`?`) dimension holds until the shape is known (an eager call
    always has static shapes).
11. MLA-X01 (not a seed rule): with cache_mode "PA_NZ" a cache array's memory is read as NZ
    blocks (docs/api.md 1), so a strided view is rejected at call time, before either cache is written.
12. MLA-X02 (not a seed rule): the caches are updated in place, so a read-only array (a
    np.load(mmap_mode="r") cache, a frozen constant) is rejected at call time, before either
    cache is written (the kernel would write kv_cache, then fail on kr_cache).
"""
from __future__ import annotations

import math

import numpy as np

from .opdef import OpDef, f64, operand, optional, string
from .registry import MLA
from .rules import ARGUMENT, RuleSet, dim, shape_text, waive
from .types import FRACTAL_NZ, ND, TensorInfo, numpy_dtype

# --- profiles ------------------------------------------------------------------------------
V1, V1E, V2, PT = "V1", "V1E", "V2", "PT"
ACLNN = (V1, V1E, V2)           # the two aclnn documents
V1_DOC = (V1, V1E)
V2_DOC = (V2, PT)               # the ops with five paths (full quant, dequant_scale_q_nope)
IR = (V1, V2)                   # IR accepts the 4-D NZ storage shape of a weight
EAGER = (V1E, PT)

# --- fixed values of the symbols (catalog A2.1) --------------------------------------------
HE_ACLNN, HE_PT = (7168, 7680), (7168,)
HCQ, HCKV, D, DR, NKV = 1536, 512, 128, 64, 1
N_ACLNN, N_PT = (1, 2, 4, 8, 16, 32, 64, 128), (8, 16, 32, 64, 128)
BLOCK_SIZES = (16, 128)
MAX_B, MAX_S, MAX_T = 65536, 16, 1048576
CACHE_MODES = ("PA_BSND", "PA_NZ")

REQUIRED = ("token_x", "weight_dq", "weight_uq_qr", "weight_uk", "weight_dkv_kr",
            "rmsnorm_gamma_cq", "rmsnorm_gamma_ckv", "rope_sin", "rope_cos", "cache_index",
            "kv_cache", "kr_cache")
SCALES = ("dequant_scale_x", "dequant_scale_w_dq", "dequant_scale_w_uq_qr",
          "dequant_scale_w_dkv_kr", "quant_scale_ckv", "quant_scale_ckr", "smooth_scales_cq")
NZ_WEIGHTS = ("weight_dq", "weight_uq_qr", "weight_dkv_kr")
ND_OPERANDS = tuple(n for n in REQUIRED if n not in NZ_WEIGHTS) + SCALES
NQ, PQ_KVNQ, PQ_KVQ, FQ_KVNQ, FQ_KVQ = "NQ", "PQ-KVNQ", "PQ-KVQ", "FQ-KVNQ", "FQ-KVQ"

rules = RuleSet()


rule = rules.rule


def differs(shape, expected) -> bool:
    """True when a known dimension of `shape` differs from `expected` (or the ranks differ)."""
    return len(shape) != len(expected) or any(a is not None and a != e for a, e in zip(shape, expected))


def expect_shape(tensor: TensorInfo, expected, names: str):
    if differs(tensor.shape, expected):
        return f"expected shape {names} = {shape_text(expected)}, got {shape_text(tensor.shape)}"


def fractal_width(dtype: str) -> int:
    """C0: one FRACTAL_NZ row is 32 bytes (16 bf16 or 32 int8 elements)."""
    return 32 // numpy_dtype(dtype).itemsize


def logical_weight_shape(weight: TensorInfo) -> tuple:
    """(rows, columns) of an NZ weight given by its logical 2-D shape or its 4-D storage shape."""
    if weight.rank == 4:
        return (dim(weight, 1) * 16, dim(weight, 0) * fractal_width(weight.dtype))
    return (dim(weight, 0), dim(weight, 1))


def nz_storage_shape(rows: int, cols: int, dtype: str) -> tuple:
    c0 = fractal_width(dtype)
    return (cols // c0, rows // 16, 16, c0)


def weight_text(weight: TensorInfo) -> str:
    """A weight's shape as a message shows it: the 4-D storage form also names its logical shape."""
    if weight.rank == 4:
        return f"storage {shape_text(weight.shape)} = logical {shape_text(logical_weight_shape(weight))}"
    return shape_text(weight.shape)


# --- symbols -------------------------------------------------------------------------------

def _scenario(op, s) -> str:
    """A5.6: the quant scenario from the dtypes of token_x, weight_uq_qr and kv_cache."""
    kv_quant = op.kv_cache.dtype == "i8"
    if op.token_x.dtype == "i8":
        return FQ_KVQ if kv_quant else FQ_KVNQ
    if op.weight_uq_qr.dtype == "i8":
        return PQ_KVQ if kv_quant else PQ_KVNQ
    return NQ


def _t_eff(op, s) -> int:
    return s.T if s.merged else s.B * s.S


SYMBOLS = {
    "merged": lambda op, s: op.token_x.rank == 2,           # BS-merged: token_x is (T, He)
    "tokens": lambda op, s: tuple(dim(op.token_x, i) for i in range(op.token_x.rank - 1)),
    "T": lambda op, s: dim(op.token_x, 0),
    "B": lambda op, s: dim(op.token_x, 0),
    "S": lambda op, s: dim(op.token_x, 1),
    "T_eff": _t_eff,
    "He": lambda op, s: dim(op.token_x, -1),
    "Hcq": lambda op, s: logical_weight_shape(op.weight_dq)[1],
    "N": lambda op, s: dim(op.weight_uk, 0),
    "D": lambda op, s: dim(op.weight_uk, 1),
    "Dr": lambda op, s: dim(op.rope_sin, -1),
    "Hckv": lambda op, s: logical_weight_shape(op.weight_dkv_kr)[1] - s.Dr,
    "BlockNum": lambda op, s: dim(op.kv_cache, 0),
    "BlockSize": lambda op, s: dim(op.kv_cache, 1),
    "Nkv": lambda op, s: dim(op.kv_cache, 2),
    "scenario": _scenario,
}


def token_names(s) -> str:
    return "T" if s.merged else "B, S"


# --- pointers / presence -------------------------------------------------------------------
# In IR the twelve inputs always exist (IRDL); an eager call may still pass None.

def _required(name):
    def check(op, s):
        if getattr(op, name) is None:
            return "is required, got None"
    return check


for _id, _name in zip(("MLA-001", "MLA-002", "MLA-003", "MLA-004", "MLA-005", "MLA-006",
                       "MLA-007", "MLA-008", "MLA-009", "MLA-010", "MLA-011", "MLA-012"), REQUIRED):
    rule(_id, _name, profiles=ACLNN, kind=ARGUMENT)(_required(_name))
    rule("MLA-016", _name, profiles=PT, kind=ARGUMENT)(_required(_name))

waive("MLA-013", "query is a result of the op: IRDL fixes the results and an eager call "
                 "allocates it, so there is no null output tensor")
waive("MLA-014", "query_rope is a result of the op: IRDL fixes the results and an eager call "
                 "allocates it, so there is no null output tensor")
waive("MLA-015", "workspaceSize/executor are aclnn call plumbing, not IR operands or attributes")


def _absent_in_v1(name):
    def check(op, s):
        if getattr(op, name) is not None:
            return f"must be absent: aclnnMlaProlog requires a null pointer, got {getattr(op, name)}"
    return check


rule("MLA-017", "dequant_scale_x", profiles=V1_DOC)(_absent_in_v1("dequant_scale_x"))
rule("MLA-018", "dequant_scale_w_dq", profiles=V1_DOC)(_absent_in_v1("dequant_scale_w_dq"))
rule("MLA-019", "dequant_scale_w_dkv_kr", profiles=V1_DOC)(_absent_in_v1("dequant_scale_w_dkv_kr"))

waive("MLA-020", "structural: mla.prolog is declared with exactly four results (no "
                 "dequant_scale_q_nope), so IRDL rejects a fifth one and the eager call returns four")
waive("MLA-021", "structural: mla.prolog_v2 is declared with the five results in torch_npu's "
                 "order, which IRDL enforces and the eager call returns")

# --- host scalars and strings --------------------------------------------------------------


@rule("MLA-030", "cache_mode")
def cache_mode_value(op, s):
    if op.cache_mode not in CACHE_MODES:
        return f"expected \"PA_BSND\" or \"PA_NZ\", got {op.cache_mode!r}"


waive("MLA-031", "structural: the epsilons are f64 attributes; IR of another attribute kind and "
                 "an eager value that is not a number are rejected before the rules run "
                 "(opdef snapshot / eager._host_parameters); no value range is imposed (M18)")
waive("MLA-032", "an absent cache_mode attribute (or cache_mode=None in an eager call) is the "
                 "default \"PA_BSND\" (catalog M17); IR has no null string to reject")

# --- ranks ---------------------------------------------------------------------------------


@rule("MLA-040", "token_x")
def token_x_rank(op, s):
    if op.token_x.rank not in (2, 3):
        return f"expected rank 2 (T, He) or 3 (B, S, He), got rank {op.token_x.rank}"


def _rank_like_token_x(name, offset, layout):
    def check(op, s):
        expected = op.token_x.rank + offset
        got = getattr(op, name).rank
        if got != expected:
            x_rank = op.token_x.rank
            return f"expected rank {expected} {layout[x_rank]} since token_x has rank {x_rank}, got rank {got}"
    return check


rule("MLA-041", "rope_sin")(_rank_like_token_x("rope_sin", 0, {2: "(T, Dr)", 3: "(B, S, Dr)"}))
rule("MLA-042", "rope_cos")(_rank_like_token_x("rope_cos", 0, {2: "(T, Dr)", 3: "(B, S, Dr)"}))
rule("MLA-043", "cache_index")(_rank_like_token_x("cache_index", -1, {2: "(T)", 3: "(B, S)"}))
rule("MLA-044", "query")(_rank_like_token_x("query", 1, {2: "(T, N, Hckv)", 3: "(B, S, N, Hckv)"}))
rule("MLA-045", "query_rope")(_rank_like_token_x("query_rope", 1, {2: "(T, N, Dr)", 3: "(B, S, N, Dr)"}))


def _rank(name, rank, dims):
    def check(op, s):
        tensor = getattr(op, name)
        if tensor is not None and tensor.rank != rank:
            return f"expected rank {rank} {dims}, got rank {tensor.rank}"
    return check


rule("MLA-046", "weight_uk")(_rank("weight_uk", 3, "(N, D, Hckv)"))
rule("MLA-047", "rmsnorm_gamma_cq")(_rank("rmsnorm_gamma_cq", 1, "(Hcq)"))
rule("MLA-048", "rmsnorm_gamma_ckv")(_rank("rmsnorm_gamma_ckv", 1, "(Hckv)"))
rule("MLA-049", "kv_cache")(_rank("kv_cache", 4, "(BlockNum, BlockSize, Nkv, Hckv)"))
rule("MLA-050", "kr_cache")(_rank("kr_cache", 4, "(BlockNum, BlockSize, Nkv, Dr)"))

_WEIGHT_DIMS = {"weight_dq": "(He, Hcq)", "weight_uq_qr": "(Hcq, N*(D+Dr))",
                "weight_dkv_kr": "(He, Hckv+Dr)"}


def _weight_rank_ir(name):
    def check(op, s):
        rank = getattr(op, name).rank
        if rank not in (2, 4):
            return (f"expected rank 2 {_WEIGHT_DIMS[name]} or the 4-D FRACTAL_NZ storage shape, "
                    f"got rank {rank}")
    return check


def _weight_rank_eager(name):
    def check(op, s):
        rank = getattr(op, name).rank
        if rank != 2:
            return (f"expected a 2-D NZ tensor {_WEIGHT_DIMS[name]} "
                    f"(format_cast(w, 29) keeps the logical shape), got rank {rank}")
    return check


for _id, _name in zip(("MLA-051", "MLA-052", "MLA-053"), NZ_WEIGHTS):
    rule(_id, _name, profiles=IR)(_weight_rank_ir(_name))
    rule(_id, _name, profiles=EAGER)(_weight_rank_eager(_name))

for _name in SCALES:
    rule("MLA-054", _name)(_rank(_name, 2, "(T_eff, 1)" if _name == "dequant_scale_x" else "(1, ...)"))

# --- formats -------------------------------------------------------------------------------


def _nz_format(name):
    def check(op, s):
        fmt = getattr(op, name).format
        if fmt != FRACTAL_NZ:
            return (f"expected format FRACTAL_NZ (#mla.format<\"FRACTAL_NZ\">; eager: "
                    f"format_cast(w, 29)), got {fmt}")
    return check


for _id, _name in zip(("MLA-060", "MLA-061", "MLA-062"), NZ_WEIGHTS):
    rule(_id, _name)(_nz_format(_name))


def _nd_format(name):
    def check(op, s):
        tensor = getattr(op, name)
        if tensor is not None and tensor.format != ND:
            return f"expected format ND, got {tensor.format}"
    return check


for _name in ND_OPERANDS + ("query", "query_rope"):
    rule("MLA-063", _name)(_nd_format(_name))
rule("MLA-063", "dequant_scale_q_nope", profiles=V2_DOC)(_nd_format("dequant_scale_q_nope"))

# --- FRACTAL_NZ storage shapes (the 4-D form): 16-row fractals of C0 elements ---------------


def _nz_storage(name):
    def check(op, s):
        weight = getattr(op, name)
        if weight.rank != 4 or weight.dtype not in ("bf16", "i8"):
            return None
        c0 = fractal_width(weight.dtype)
        if differs(weight.shape[2:], (16, c0)):
            return (f"expected a FRACTAL_NZ storage shape (columns/{c0}, rows/16, 16, {c0}) for "
                    f"{weight.dtype}, got {shape_text(weight.shape)}")
    return check


for _id, _name in zip(("MLA-140", "MLA-141", "MLA-142"), NZ_WEIGHTS):
    rule(_id, _name, profiles=IR)(_nz_storage(_name))

# --- dtypes --------------------------------------------------------------------------------


def _dtype(name, allowed):
    def check(op, s):
        tensor = getattr(op, name)
        if tensor is not None and tensor.dtype not in allowed:
            return f"expected element type {' or '.join(allowed)}, got {tensor.dtype}"
    return check


for _id, _name, _allowed in (
        ("MLA-070", "token_x", ("bf16", "i8")),
        ("MLA-071", "weight_dq", ("bf16", "i8")),
        ("MLA-072", "weight_uq_qr", ("bf16", "i8")),
        ("MLA-073", "weight_uk", ("bf16",)),
        ("MLA-074", "weight_dkv_kr", ("bf16", "i8")),
        ("MLA-075", "rmsnorm_gamma_cq", ("bf16",)),
        ("MLA-076", "rmsnorm_gamma_ckv", ("bf16",)),
        ("MLA-077", "rope_sin", ("bf16",)),
        ("MLA-078", "rope_cos", ("bf16",)),
        ("MLA-079", "cache_index", ("i64",)),
        ("MLA-080", "kv_cache", ("bf16", "i8")),
        ("MLA-081", "kr_cache", ("bf16", "i8"))):
    rule(_id, _name)(_dtype(_name, _allowed))
for _name in SCALES:
    rule("MLA-082", _name)(_dtype(_name, ("f32",)))
rule("MLA-083", "query")(_dtype("query", ("bf16", "i8")))
rule("MLA-084", "query_rope")(_dtype("query_rope", ("bf16",)))
rule("MLA-085", "dequant_scale_q_nope", profiles=V2_DOC)(_dtype("dequant_scale_q_nope", ("f32",)))

# --- empty tensors (the fixed-size operands) -----------------------------------------------


def _not_empty(name):
    def check(op, s):
        tensor = getattr(op, name)
        if tensor is not None and tensor.is_empty:
            return f"must not be empty, got shape {shape_text(tensor.shape)}"
    return check


for _name in NZ_WEIGHTS + ("weight_uk", "rmsnorm_gamma_cq", "rmsnorm_gamma_ckv"):
    rule("MLA-180", _name)(_not_empty(_name))
for _name in SCALES[1:]:      # dequant_scale_x is token-shaped (T_eff, 1): see MLA-182
    rule("MLA-181", _name)(_not_empty(_name))

# The dimensions that may be 0 in V1/V2: the token dims (B, S, T) and BlockNum.
_ZERO_ALLOWED = {"token_x": "B, S or T", "rope_sin": "B, S or T", "rope_cos": "B, S or T",
                 "cache_index": "B, S or T", "dequant_scale_x": "T_eff",
                 "kv_cache": "BlockNum", "kr_cache": "BlockNum"}


def _zero_only_in_variable_dims(name):
    def check(op, s):
        tensor = getattr(op, name)
        if tensor is None:
            return None
        if name in ("token_x", "rope_sin", "rope_cos"):
            fixed = tensor.shape[-1:]
        elif name == "cache_index":
            fixed = ()
        else:                      # dequant_scale_x (T_eff, 1); caches (BlockNum, ...)
            fixed = tensor.shape[1:]
        if 0 in fixed:
            return f"only {_ZERO_ALLOWED[name]} may be 0, got shape {shape_text(tensor.shape)}"
    return check


for _name in _ZERO_ALLOWED:
    rule("MLA-182", _name, profiles=ACLNN)(_zero_only_in_variable_dims(_name))


@rule("MLA-143", "weight_dq")
def weight_dq_fractal_multiple(op, s):
    return _fractal_multiple(op.weight_dq)


@rule("MLA-143", "weight_uq_qr")
def weight_uq_qr_fractal_multiple(op, s):
    return _fractal_multiple(op.weight_uq_qr)


@rule("MLA-143", "weight_dkv_kr")
def weight_dkv_kr_fractal_multiple(op, s):
    return _fractal_multiple(op.weight_dkv_kr)


def _fractal_multiple(weight):
    rows, cols = logical_weight_shape(weight)
    c0 = fractal_width(weight.dtype)
    if rows % 16 or cols % c0:
        return (f"expected a whole number of {16}x{c0} {weight.dtype} fractals (rows % 16 == 0, "
                f"columns % {c0} == 0), got {shape_text((rows, cols))}")


# --- symbol values (A2.1) --------------------------------------------------------------------

def _one_of(allowed) -> str:
    return ", ".join(str(v) for v in allowed)


@rule("MLA-090", "token_x", profiles=ACLNN)
def he_aclnn(op, s):
    if s.He not in HE_ACLNN:
        return f"expected He (last dimension) in {{{_one_of(HE_ACLNN)}}}, got {s.He}"


@rule("MLA-091", "token_x", profiles=PT)
def he_torch_npu(op, s):
    if s.He not in HE_PT:
        return f"expected He (last dimension) = 7168 (torch_npu supports only 7168), got {s.He}"


@rule("MLA-092", "weight_dq")
def hcq_value(op, s):
    if s.Hcq != HCQ:
        return (f"expected Hcq = {HCQ} columns, got {s.Hcq} "
                f"(shape {weight_text(op.weight_dq)})")


@rule("MLA-093", "weight_uk", profiles=ACLNN)
def n_aclnn(op, s):
    if s.N not in N_ACLNN:
        return f"expected N (dimension 0) in {{{_one_of(N_ACLNN)}}}, got {s.N}"


@rule("MLA-094", "weight_uk", profiles=PT)
def n_torch_npu(op, s):
    if s.N not in N_PT:
        return f"expected N (dimension 0) in {{{_one_of(N_PT)}}} (torch_npu), got {s.N}"


@rule("MLA-096", "weight_uk")
def d_value(op, s):
    if s.D != D:
        return f"expected D (dimension 1) = {D}, got {s.D}"


@rule("MLA-097", "rope_sin")
def dr_value(op, s):
    if s.Dr != DR:
        return f"expected Dr (last dimension) = {DR}, got {s.Dr}"


@rule("MLA-095", "weight_dkv_kr")
def hckv_value(op, s):
    if s.Hckv != HCKV:
        return (f"expected Hckv + Dr = {HCKV} + {DR} = {HCKV + DR} columns, got "
                f"{s.Hckv + s.Dr} (shape {weight_text(op.weight_dkv_kr)})")


@rule("MLA-098", "kv_cache")
def nkv_value(op, s):
    if s.Nkv != NKV:
        return f"expected Nkv (dimension 2) = {NKV}, got {s.Nkv}"


@rule("MLA-099", "kv_cache")
def block_size_value(op, s):
    if s.BlockSize not in BLOCK_SIZES:
        return f"expected BlockSize (dimension 1) = 16 or 128, got {s.BlockSize}"


def _token_range(symbol, low, high, merged):
    axis = 1 if symbol == "S" else 0
    def check(op, s):
        if s.merged != merged:
            return None
        value = getattr(s, symbol)
        if not low <= value <= high:
            return f"expected {symbol} (dimension {axis}) in [{low}, {high}], got {value}"
    return check


rule("MLA-100", "token_x", profiles=ACLNN)(_token_range("B", 0, MAX_B, merged=False))
rule("MLA-101", "token_x", profiles=PT)(_token_range("B", 1, MAX_B, merged=False))
rule("MLA-102", "token_x", profiles=ACLNN)(_token_range("S", 0, MAX_S, merged=False))
rule("MLA-103", "token_x", profiles=PT)(_token_range("S", 1, MAX_S, merged=False))
rule("MLA-104", "token_x", profiles=ACLNN)(_token_range("T", 0, MAX_T, merged=True))
rule("MLA-105", "token_x", profiles=PT)(_token_range("T", 1, MAX_T, merged=True))

waive("MLA-106", "BlockNum >= 0 always holds: a static tensor dimension is never negative, and "
                 "BlockNum = 0 is accepted (positive tests in prolog.mlir / prolog_v2.mlir)")


@rule("MLA-107", "kv_cache", profiles=PT)
def block_num_torch_npu(op, s):
    if s.BlockNum < 1:
        return f"expected BlockNum (dimension 0) >= 1 (torch_npu has no empty cache), got {s.BlockNum}"


# --- torch_npu: no empty tensor at all -------------------------------------------------------

for _name in REQUIRED + SCALES + ("query", "query_rope", "dequant_scale_q_nope"):
    rule("MLA-185", _name, profiles=PT)(_not_empty(_name))

# --- shapes ----------------------------------------------------------------------------------


def _token_shaped(name, tail, tail_names):
    def check(op, s):
        tail_values = tuple(getattr(s, t) if isinstance(t, str) else t for t in tail)
        return expect_shape(getattr(op, name), s.tokens + tail_values,
                            f"({token_names(s)}{tail_names})")
    return check


rule("MLA-110", "rope_sin")(_token_shaped("rope_sin", ("Dr",), ", Dr"))
rule("MLA-111", "rope_cos")(_token_shaped("rope_cos", ("Dr",), ", Dr"))
rule("MLA-112", "cache_index")(_token_shaped("cache_index", (), ""))


def _weight_shape(name, rows, cols, names):
    def check(op, s):
        weight = getattr(op, name)
        expected = (getattr(s, rows), cols(s))
        if logical_weight_shape(weight) != expected:
            wanted = shape_text(expected)
            if weight.rank == 4:
                wanted += f", i.e. storage {shape_text(nz_storage_shape(*expected, weight.dtype))}"
            return f"expected logical shape {names} = {wanted}, got {weight_text(weight)}"
    return check


rule("MLA-115", "weight_dq")(_weight_shape("weight_dq", "He", lambda s: s.Hcq, "(He, Hcq)"))
rule("MLA-116", "weight_uq_qr")(_weight_shape(
    "weight_uq_qr", "Hcq", lambda s: s.N * (s.D + s.Dr), "(Hcq, N*(D+Dr))"))


@rule("MLA-117", "weight_uk")
def weight_uk_shape(op, s):
    return expect_shape(op.weight_uk, (s.N, s.D, s.Hckv), "(N, D, Hckv)")


rule("MLA-118", "weight_dkv_kr")(_weight_shape(
    "weight_dkv_kr", "He", lambda s: s.Hckv + s.Dr, "(He, Hckv+Dr)"))


@rule("MLA-119", "rmsnorm_gamma_cq")
def gamma_cq_shape(op, s):
    return expect_shape(op.rmsnorm_gamma_cq, (s.Hcq,), "(Hcq)")


@rule("MLA-120", "rmsnorm_gamma_ckv")
def gamma_ckv_shape(op, s):
    return expect_shape(op.rmsnorm_gamma_ckv, (s.Hckv,), "(Hckv)")


@rule("MLA-121", "kv_cache")
def kv_cache_shape(op, s):
    return expect_shape(op.kv_cache, (s.BlockNum, s.BlockSize, s.Nkv, s.Hckv),
                        "(BlockNum, BlockSize, Nkv, Hckv)")


@rule("MLA-122", "kr_cache")
def kr_cache_shape(op, s):
    return expect_shape(op.kr_cache, (s.BlockNum, s.BlockSize, s.Nkv, s.Dr),
                        "(BlockNum, BlockSize, Nkv, Dr) with kv_cache's BlockNum, BlockSize, Nkv")


def _scale_shape(name, expected, names):
    def check(op, s):
        tensor = getattr(op, name)
        if tensor is not None:
            return expect_shape(tensor, expected(s), names(s) if callable(names) else names)
    return check


rule("MLA-123", "dequant_scale_x", profiles=V2_DOC)(_scale_shape(
    "dequant_scale_x", lambda s: (s.T_eff, 1), lambda s: "(T, 1)" if s.merged else "(B*S, 1)"))
rule("MLA-124", "dequant_scale_w_dq", profiles=V2_DOC)(_scale_shape(
    "dequant_scale_w_dq", lambda s: (1, s.Hcq), "(1, Hcq)"))
rule("MLA-125", "dequant_scale_w_uq_qr")(_scale_shape(
    "dequant_scale_w_uq_qr", lambda s: (1, s.N * (s.D + s.Dr)), "(1, N*(D+Dr))"))
rule("MLA-126", "dequant_scale_w_dkv_kr", profiles=V2_DOC)(_scale_shape(
    "dequant_scale_w_dkv_kr", lambda s: (1, s.Hckv + s.Dr), "(1, Hckv+Dr)"))
rule("MLA-127", "quant_scale_ckv")(_scale_shape("quant_scale_ckv", lambda s: (1, s.Hckv), "(1, Hckv)"))
rule("MLA-128", "quant_scale_ckr")(_scale_shape("quant_scale_ckr", lambda s: (1, s.Dr), "(1, Dr)"))
rule("MLA-129", "smooth_scales_cq")(_scale_shape("smooth_scales_cq", lambda s: (1, s.Hcq), "(1, Hcq)"))

# --- scenario consistency (A5.2-A5.6) ----------------------------------------------------------


def _dtype_is(name, wanted, why):
    def check(op, s):
        got = getattr(op, name).dtype
        if got != wanted:
            return f"expected element type {wanted} {why}, got {got}"
    return check


rule("MLA-150", "token_x", profiles=V1_DOC)(_dtype_is(
    "token_x", "bf16", "(mla.prolog has no full-quant scenario)"))
rule("MLA-151", "weight_dq", profiles=V1_DOC)(_dtype_is(
    "weight_dq", "bf16", "(mla.prolog has no full-quant scenario)"))
rule("MLA-151", "weight_dkv_kr", profiles=V1_DOC)(_dtype_is(
    "weight_dkv_kr", "bf16", "(mla.prolog has no full-quant scenario)"))
rule("MLA-152", "query", profiles=V1_DOC)(_dtype_is(
    "query", "bf16", "(mla.prolog never quantizes the query)"))


def _like_token_x(name):
    def check(op, s):
        got, x = getattr(op, name).dtype, op.token_x.dtype
        if got != x:
            return (f"expected the element type of token_x ({x}): token_x, weight_dq and "
                    f"weight_dkv_kr are all bf16 or all i8 (full quant), got {got}")
    return check


rule("MLA-153", "weight_dq")(_like_token_x("weight_dq"))
rule("MLA-153", "weight_dkv_kr")(_like_token_x("weight_dkv_kr"))


@rule("MLA-154", "weight_uq_qr", profiles=V2_DOC)
def uq_qr_int8_in_full_quant(op, s):
    if op.token_x.dtype == "i8" and op.weight_uq_qr.dtype != "i8":
        return f"expected element type i8 since token_x is i8 (full quant), got {op.weight_uq_qr.dtype}"


def _absent_when_uq_qr_bf16(name):
    def check(op, s):
        if op.weight_uq_qr.dtype == "bf16" and getattr(op, name) is not None:
            return ("must be absent when weight_uq_qr is bf16 (non-quant: a null pointer), "
                    f"got {getattr(op, name)}")
    return check


for _id, _name in (("MLA-155", "dequant_scale_w_uq_qr"), ("MLA-156", "quant_scale_ckv"),
                   ("MLA-157", "quant_scale_ckr"), ("MLA-158", "smooth_scales_cq")):
    rule(_id, _name)(_absent_when_uq_qr_bf16(_name))


@rule("MLA-175", "kr_cache")
def kr_int8_needs_kv_int8(op, s):
    if op.kv_cache.dtype == "bf16" and op.kr_cache.dtype == "i8":
        return "expected element type bf16 since kv_cache is bf16 (no scenario quantizes only kr), got i8"


def _bf16_in(scenarios, name, why="in scenario {scenario}"):
    def check(op, s):
        got = getattr(op, name).dtype
        if s.scenario in scenarios and got != "bf16":
            return f"expected element type bf16 {why.format(scenario=s.scenario)}, got {got}"
    return check


for _name in ("kv_cache", "kr_cache", "query"):
    rule("MLA-159", _name)(_bf16_in((NQ,), _name, "in the non-quant scenario (weight_uq_qr bf16)"))


def _absent_unless_full_quant(name):
    def check(op, s):
        if s.scenario in (NQ, PQ_KVNQ, PQ_KVQ) and getattr(op, name) is not None:
            return (f"must be absent in scenario {s.scenario} (token_x bf16: no dequantization), "
                    f"got {getattr(op, name)}")
    return check


for _name in ("dequant_scale_x", "dequant_scale_w_dq", "dequant_scale_w_dkv_kr"):
    rule("MLA-160", _name, profiles=V2_DOC)(_absent_unless_full_quant(_name))


@rule("MLA-161", "dequant_scale_w_uq_qr")
def uq_qr_scale_given(op, s):
    if op.weight_uq_qr.dtype == "i8" and op.dequant_scale_w_uq_qr is None:
        return "is required when weight_uq_qr is i8, got none"


rule("MLA-162", "query")(_bf16_in((PQ_KVNQ, PQ_KVQ), "query"))


@rule("MLA-163", "kr_cache")
def pq_cache_pair(op, s):
    if s.scenario in (PQ_KVNQ, PQ_KVQ) and op.kr_cache.dtype != op.kv_cache.dtype:
        return (f"expected the element type of kv_cache ({op.kv_cache.dtype}) in partial quant: "
                f"both caches bf16 or both i8, got {op.kr_cache.dtype}")


def _required_in(scenarios, name, why):
    def check(op, s):
        if s.scenario in scenarios and getattr(op, name) is None:
            return f"is required in scenario {s.scenario} ({why}), got none"
    return check


def _absent_in(scenarios, name):
    def check(op, s):
        if s.scenario in scenarios and getattr(op, name) is not None:
            return f"must be absent in scenario {s.scenario}, got {getattr(op, name)}"
    return check


rule("MLA-164", "quant_scale_ckv")(_required_in((PQ_KVQ,), "quant_scale_ckv", "quantized kv cache"))
rule("MLA-164", "quant_scale_ckr")(_required_in((PQ_KVQ,), "quant_scale_ckr", "quantized kr cache"))
rule("MLA-165", "quant_scale_ckv")(_absent_in((PQ_KVNQ,), "quant_scale_ckv"))
rule("MLA-165", "quant_scale_ckr")(_absent_in((PQ_KVNQ,), "quant_scale_ckr"))

for _name in ("dequant_scale_x", "dequant_scale_w_dq", "dequant_scale_w_dkv_kr", "dequant_scale_w_uq_qr"):
    rule("MLA-166", _name, profiles=V2_DOC)(_required_in((FQ_KVNQ, FQ_KVQ), _name, "full quant"))


rule("MLA-167", "kr_cache", profiles=V2_DOC)(_bf16_in(
    (FQ_KVNQ, FQ_KVQ), "kr_cache", "in full quant (the kr cache is never quantized there)"))
rule("MLA-168", "query", profiles=V2_DOC)(_bf16_in((FQ_KVNQ,), "query"))


@rule("MLA-169", "query", profiles=V2_DOC)
def fq_kvq_query_int8(op, s):
    if s.scenario == FQ_KVQ and op.query.dtype != "i8":
        return (f"expected element type i8 in scenario {FQ_KVQ} (dynamic per-token-head quant), "
                f"got {op.query.dtype}")


rule("MLA-170", "quant_scale_ckv", profiles=V2_DOC)(_absent_in((FQ_KVNQ,), "quant_scale_ckv"))
rule("MLA-170", "quant_scale_ckr", profiles=V2_DOC)(_absent_in((FQ_KVNQ,), "quant_scale_ckr"))
rule("MLA-171", "quant_scale_ckv", profiles=V2_DOC)(_required_in(
    (FQ_KVQ,), "quant_scale_ckv", "per-tensor kv cache quant"))
rule("MLA-172", "quant_scale_ckr", profiles=V2_DOC)(_absent_in((FQ_KVQ,), "quant_scale_ckr"))

waive("MLA-173", "dequant_scale_q_nope is a result of mla.prolog_v2 that always exists (IRDL "
                 "fixes five results; the eager call allocates it), so it cannot be null in FQ-KVQ")
waive("MLA-174", "a permission, not a constraint: outside FQ-KVQ the always-present "
                 "dequant_scale_q_nope result is the (1,) f32 placeholder (MLA-131, MLA-132)")

# --- results -------------------------------------------------------------------------------


def _result_empty(name):
    def check(op, s):
        tensor = getattr(op, name)
        if tensor.is_empty and s.T_eff != 0:
            return (f"must not be empty unless T_eff = 0, got "
                    f"{shape_text(tensor.shape)} with T_eff = {s.T_eff}")
    return check


rule("MLA-183", "query", profiles=ACLNN)(_result_empty("query"))
rule("MLA-183", "query_rope", profiles=ACLNN)(_result_empty("query_rope"))


@rule("MLA-113", "query")
def query_shape(op, s):
    return expect_shape(op.query, s.tokens + (s.N, s.Hckv), f"({token_names(s)}, N, Hckv)")


@rule("MLA-114", "query_rope")
def query_rope_shape(op, s):
    return expect_shape(op.query_rope, s.tokens + (s.N, s.Dr), f"({token_names(s)}, N, Dr)")


def _q_nope_scale_rank(per_token_head_in_fq_kvnq):
    def check(op, s):
        got = op.dequant_scale_q_nope.rank
        if s.scenario == FQ_KVQ:
            expected, what = (3,), "rank 3 (T_eff, N, 1) in FQ-KVQ"
        elif s.scenario == FQ_KVNQ and per_token_head_in_fq_kvnq:
            expected, what = (1, 3), f"rank 1 (1) or 3 (T_eff, N, 1) in scenario {s.scenario}"
        else:
            expected, what = (1,), f"rank 1 (1) in scenario {s.scenario}"
        if got not in expected:
            return f"expected {what}, got rank {got}"
    return check


# The V2 text gives (T, N, 1) "全量化场景下" (full quant), its table and torch_npu only in FQ-KVQ:
# V2 takes both forms in FQ-KVNQ (choice 5), torch_npu the (1) placeholder.
rule("MLA-055", "dequant_scale_q_nope", profiles=V2)(_q_nope_scale_rank(True))
rule("MLA-055", "dequant_scale_q_nope", profiles=PT)(_q_nope_scale_rank(False))


@rule("MLA-184", "dequant_scale_q_nope", profiles=V2)
def dequant_scale_q_nope_not_empty(op, s):
    scale = op.dequant_scale_q_nope
    if scale.is_empty and not (scale.rank == 3 and s.T_eff == 0):
        return (f"must not be empty unless T_eff = 0 in its (T_eff, N, 1) form, got "
                f"{shape_text(scale.shape)}")


@rule("MLA-130", "dequant_scale_q_nope", profiles=V2_DOC)
def dequant_scale_q_nope_per_token_head(op, s):
    # MLA-055 allows rank 3 only in full quant (FQ-KVQ; FQ-KVNQ in V2)
    if op.dequant_scale_q_nope.rank == 3:
        names = "(T, N, 1)" if s.merged else "(B*S, N, 1)"
        return expect_shape(op.dequant_scale_q_nope, (s.T_eff, s.N, 1), names)


def _placeholder_scale(op, s):
    scale = op.dequant_scale_q_nope
    if scale.rank == 1 and differs(scale.shape, (1,)):
        return f"expected shape (1) outside FQ-KVQ (scenario {s.scenario}), got {shape_text(scale.shape)}"


rule("MLA-131", "dequant_scale_q_nope", profiles=V2)(_placeholder_scale)
rule("MLA-132", "dequant_scale_q_nope", profiles=PT)(_placeholder_scale)


def _same_type_as(result, operand):
    def check(op, s):
        out, given = getattr(op, result), getattr(op, operand)
        if (out.shape, out.dtype, out.format) != (given.shape, given.dtype, given.format):
            return f"expected the type of {operand} ({given}): the cache is updated in place, got {out}"
    return check


rule("MLA-195", "kv_cache_out")(_same_type_as("kv_cache_out", "kv_cache"))
rule("MLA-195", "kr_cache_out")(_same_type_as("kr_cache_out", "kr_cache"))

# --- runtime checks and advisories -------------------------------------------------------------


@rule("MLA-064", "dequant_scale_x", profiles=V2, kind="runtime")
def dequant_scale_x_contiguous(op, s):
    scale = op.dequant_scale_x
    if scale is not None and scale.value is not None and not scale.value.flags.c_contiguous:
        return f"must be contiguous, got an array with strides {scale.value.strides}"


@rule("MLA-190", "cache_index", kind="runtime")
def cache_index_in_range(op, s):
    slots = op.cache_index.value
    capacity = s.BlockNum * s.BlockSize
    if slots is None or slots.size == 0 or capacity == 0:
        return None            # T_eff = 0 or BlockNum = 0: the caches are not updated (A7)
    outside = np.argwhere(slots >= capacity)
    if len(outside):
        position = tuple(int(i) for i in outside[0])
        return (f"expected values < BlockNum*BlockSize = {capacity} (negative values skip a "
                f"token), got {int(slots[position])} at {position}")


def _nz_cache_contiguous(name):
    # Not a seed rule: a CPU-runtime one (choice 11). It must run before the kernel, which
    # writes kv_cache before kr_cache.
    def check(op, s):
        cache = getattr(op, name).value
        if op.cache_mode == "PA_NZ" and cache is not None and not cache.flags.c_contiguous:
            return (f"a PA_NZ cache must be C-contiguous (its memory holds the blocks in NZ "
                    f"order), got an array with strides {cache.strides}")
    return check


rule("MLA-X01", "kv_cache", kind="runtime")(_nz_cache_contiguous("kv_cache"))
rule("MLA-X01", "kr_cache", kind="runtime")(_nz_cache_contiguous("kr_cache"))


def _cache_writeable(name):
    # Not a seed rule: the CPU runtime writes the caller's arrays (choice 12).
    def check(op, s):
        cache = getattr(op, name).value
        if isinstance(cache, np.ndarray) and not cache.flags.writeable and s.BlockNum * s.T_eff:
            return "expected a writeable array: the cache is updated in place, got a read-only one"
    return check


rule("MLA-X02", "kv_cache", kind="runtime")(_cache_writeable("kv_cache"))
rule("MLA-X02", "kr_cache", kind="runtime")(_cache_writeable("kr_cache"))


@rule("MLA-191", "cache_index", kind="runtime", severity="warning")
def cache_index_distinct(op, s):
    slots = op.cache_index.value
    if slots is None or s.BlockNum == 0:
        return None
    slot_values, writers = np.unique(slots[slots >= 0], return_counts=True)
    if (writers > 1).any():
        first = int(np.argmax(writers > 1))
        return (f"slot {int(slot_values[first])} is written by {int(writers[first])} tokens: the "
                f"cache keeps one of them (the last on the CPU, unspecified on the NPU)")


waive("MLA-192", "BlockNum = ceil(B*Skv/BlockSize) involves Skv, which is not an operand: "
                 "nothing to check")
waive("MLA-193", "kernel behaviour, not a constraint: with BlockNum = 0 or T_eff = 0 the caches "
                 "are left untouched (asserted by test/python/test_prolog_eager.py)")
waive("MLA-194", "the seed recommends 1e-05 only when the user has no value of their own; a "
                 "given epsilon is deliberate (DeepSeek-V3 uses 1e-6), so there is nothing to warn "
                 "about, and the default 1e-05 implements the recommendation")


# --- result types ----------------------------------------------------------------------------

def _infer_common(op, s) -> dict:
    # Raw dims (None stays dynamic): the rules have checked everything these read.
    tokens = op.token_x.shape[:-1]
    n, hckv = op.weight_uk.shape[0], op.weight_uk.shape[2]
    dr = op.rope_sin.shape[-1]
    query_dtype = "i8" if s.scenario == FQ_KVQ else "bf16"
    kv, kr = op.kv_cache, op.kr_cache
    return {"query": TensorInfo((*tokens, n, hckv), query_dtype),
            "query_rope": TensorInfo((*tokens, n, dr), "bf16"),
            "kv_cache_out": TensorInfo(kv.shape, kv.dtype, kv.format),
            "kr_cache_out": TensorInfo(kr.shape, kr.dtype, kr.format)}


def infer_prolog(op, s) -> dict:
    return _infer_common(op, s)


def infer_prolog_v2(op, s) -> dict:
    results = _infer_common(op, s)
    if s.scenario == FQ_KVQ:
        tokens = op.token_x.shape[:-1]
        t_eff = None if None in tokens else math.prod(tokens)
        results["dequant_scale_q_nope"] = TensorInfo((t_eff, op.weight_uk.shape[0], 1), "f32")
    else:
        results["dequant_scale_q_nope"] = TensorInfo((1,), "f32")
    return results


# --- the ops -----------------------------------------------------------------------------------

OPERANDS = [operand(n) for n in REQUIRED] + [optional(n) for n in SCALES]
ATTRIBUTES = [f64("rmsnorm_epsilon_cq", default=1e-5), f64("rmsnorm_epsilon_ckv", default=1e-5),
              string("cache_mode", default="PA_BSND")]
CACHES_IN_PLACE = {"kv_cache_out": "kv_cache", "kr_cache_out": "kr_cache"}

Prolog = MLA.add(OpDef(
    "mla.prolog",
    traits=(),
    operands=OPERANDS,
    attributes=ATTRIBUTES,
    results=["query", "query_rope", "kv_cache_out", "kr_cache_out"],
    rules=rules,
    symbols=SYMBOLS,
    infer_results=infer_prolog,
    profiles=(V1, V1E),
    inplace=CACHES_IN_PLACE,
    summary="MLA pre-processing (aclnnMlaProlog): query, query_rope, paged kv/kr cache update",
))

PrologV2 = MLA.add(OpDef(
    "mla.prolog_v2",
    traits=(),
    operands=OPERANDS,
    attributes=ATTRIBUTES,
    results=["query", "query_rope", "kv_cache_out", "kr_cache_out", "dequant_scale_q_nope"],
    rules=rules,
    symbols=SYMBOLS,
    infer_results=infer_prolog_v2,
    profiles=(V2, PT),
    inplace=CACHES_IN_PLACE,
    summary="MLA pre-processing (aclnnMlaPrologV2WeightNz): mla.prolog plus the full-quant "
            "scenarios and the query's dynamic-quant scale",
))

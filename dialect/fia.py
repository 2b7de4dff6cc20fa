"""`mla.fused_infer_attention_score`: aclnnFusedInferAttentionScoreV2, plus its MLA mode.

    attention_out = softmax((Q.K^T [* dequant_scale1] + pse_shift) * scale_value, masked) . V

Branches (seed L11): Q_S == 1 is the incre (IncreFlashAttention) branch, every other Q_S the
prompt (PromptFlashAttention) branch. MLA mode (query_rope / key_rope given; the later FIA API's
extension, spec/numerics.md "FIA in MLA mode") adds q_rope . k_rope^T to the scores.

Operands, in aclnn V2 order (API.md section 2): query, key (variadic: the aclTensorList), value
(variadic), the 18 optional tensors, then query_rope, key_rope. The host arrays
actual_seq_lengths, actual_seq_lengths_kv and actual_shared_prefix_len are optional
`array<i64>` attributes, so their "(H)" rules are static. Results: attention_out, softmax_lse.

Rule IDs. The catalog (spec/fused_infer_attention_score_v2.md, section 6) numbers its checklist
1..234 globally across 6.A-6.R; checklist item n is `FIA-<n>` with three digits (FIA-001 ..
FIA-234). Items that are not checks (IGNORED parameters, FALLBACKs, SEMANTIC statements the
kernel implements, pure advisories, a null output pointer SSA cannot express) are `waive`d at
the end of this module with their reason. The constraints of the MLA mode are `FIA-MLA-<n>`.
`FIA-STATIC` (not from the checklist) requires static shapes: the seed's rules are about sizes.

Rules run in dependency order, not in checklist order (ranks before shapes, page attention's
cache form before the head dims, parameter presence before dtype combinations), and a few are
ordered so that every rule can be reached (e.g. FIA-087 before FIA-083, FIA-106 before
FIA-091, FIA-156 before FIA-114/126, FIA-178 before FIA-113). Two items can never fail once
the rules before them hold and are waived as implied: FIA-111 (by FIA-051) and FIA-168 (by
FIA-035 and FIA-040). A rule about several operands (e.g. key and value) is registered once per
operand, so the diagnostic names the one at fault. All A2-scoped rules apply to every product
(register S1: A3 inherits A2).

IR limit: IRDL gives all values of a variadic operand one type, so a tensor list in IR (and in
an eager call, which is verified as a one-op module) has elements of one shape: per-batch S
differing between elements (section 1.11) cannot be expressed yet.

Documented choices (register section 9 "Recommended" unless said otherwise):
  - S2 TND, TND_NTD and NTD_TND are accepted, NOT the Recommended rejection: the seed uses TND
    in its text (L797 lse [T, N, 1], L880/L954 page attention), torch_npu's own tests call the
    three (prefill with cumulative actual_seq_lengths) and serving engines use TND. Semantics
    and rules (FIA-TND-1..13) follow the later FIA documents and the device's tiling (section
    "TND layouts" below): query (T, N, D) (NTD_TND (N, T, D)), cumulative actual lengths, B =
    their count, Q_S = the longest batch (incre when 1, register S60), value D may differ from
    key D. The prolog's query (T, N, 512) / query_rope (T, N, 64) enter as they are (TND), or as
    BSND (B, S, N, 512) with T = B*S, a reshape with no data movement.
  - S7/S65 mask and pse_shift dims may exceed the required size (padding); the listed mask forms
    are exhaustive. S64: the incre mask has a batch dim B (no broadcast 1).
  - S16 negative actual_seq_lengths(_kv)/actual_shared_prefix_len are rejected.
  - S17 query_padding_size / kv_padding_size have shape (1).
  - S20 prompt D alignment: the strict variant FIA-051 (so FIA-052 can never fail: waived).
  - S22 incre block_size in 1..512. S23 BnBsH: KV_N*D <= 65535. S24 BNSD_BSND is BNSD under PA.
  - S26/S27 tensor list KV: KV_S of mask/pse sizing is the largest element's S.
  - S28 the prefix exclusions (page attention, left padding, tensor list) apply to incre too.
  - S32 softmax_lse_flag true needs the softmax_lse result: it always exists (FIA-213 waived).
    With the flag false, softmax_lse is tensor<1xf32> (FIA-216): SSA has no caller-provided lse
    buffer, so the result is the seed's "shape {1} filled with 0" of a null softmaxLse.
  - S37 a per-tensor quant_scale2 has one element (any shape). S38 per-channel INT8 output needs
    D % 32 == 0. S39 "Ring Attention" = softmax_lse_flag.
  - S40/S41 the output dtype: int8 when quant_scale2 is given, else float16 for an int8 query,
    else the query dtype; infer_results derives it the same way (so in an eager call the output
    dtype is never a free choice). S41 also: an i8 query takes an i8 key, a float query a float
    key of its own dtype (no f16/bf16 mix) or an integer key (FIA-099).
  - S44 per-token antiquant scales have S' >= KV_S (page attention: >= maxBlockNumPerSeq *
    block_size). S45/S46 modes 3 and 4: (B, KV_N, S') and (block_num, block_size), float32.
    S48 modes 4/5 need page attention. S47 mode 6 is rejected (FIA-160).
  - S49 an int8/int4 key with a float query needs antiquant parameters (FIA-126, extended from
    int8 to int4), and antiquant parameters need an integer key (FIA-127). S51: when
    key/value_antiquant_scale are given the combined antiquant_scale/offset are not verified.
  - S55 INT4 K/V in the prompt branch: rejected through FIA-126/FIA-114/FIA-145.
  - S57 FP8/FP4 K/V (representable as f8E5M2, f8E4M3FN, f4E2M1FN) pass FIA-006 and are rejected
    by FIA-008; HIFLOAT8 and FLOAT4_E1M2 have no MLIR element type.
  - Combined antiquant_scale of rank 3 is (2, KV_N, D) per-channel or (2, B, S') per-token; in
    incre antiquant_mode tells them apart (1 = per-token), in prompt the per-token form is not
    allowed (its FLOAT32 dtype contradicts FIA-123's FLOAT16).
  - FIA-050 (KV_S <= 20M) and FIA-069/071/072 (KV_S lower bounds) apply without page
    attention; under page attention FIA-070/078 bound the same dims by maxBlockNumPerSeq*bs.
    FIA-078 is about full masks (incre, prompt sparse 0/1), not the 2048x2048 template.
  - FIA-072 (incre mask) and FIA-069 in incre count a shared prefix: S2' >= P + KV_S (the mask
    and pse columns run over [prefix ; KV], section 1.6). In prompt FIA-069/071 check KV_S and
    FIA-212/079 add P.
  - FIA-032 (key/value shapes equal) applies without page attention, FIA-175 with it.
  - FIA-121 (incre antiquant_mode in {0, 1}) applies whether or not antiquant is used.
  - Contiguity (FIA-014) has no IR meaning: a call-time rule on the eager arrays.

MLA mode (query_rope and key_rope given). The numerics.md constraints, plus the structure the
mode defines, are FIA-MLA-1, 3..19: query (.., D = 512) f16/bf16 with query_rope (.., 64) of the
same layout (FIA-MLA-2, "a float query", retired when the full-quant mode came: FIA-005 now
says all there is to say about the query's type); key = value = the paged latent cache
(KV_N = 1, D = 512; may be the same SSA value), key_rope the paged rope cache (D = 64); N in
{1, 2, 4, .., 128}; Q_S in 1..16; page attention with block_size 16 or 128; sparse_mode 0
without a mask when Q_S = 1, sparse_mode 3 with the 2048x2048 mask when Q_S > 1; no pse_shift,
left padding or quantization but the full-quant mode below. In that mode FIA-028 (G <= 64) and
FIA-166 (prompt block_size 128..512) give way to FIA-MLA-8/-12, the incre sparse_mode matters
(the seed: sparse_mode is ignored "when Q_S is 1 and there is no rope input", L727), and
FIA-231's BnNBsD advice is not given.
Paged caches accepted in MLA mode, exactly what mla.prolog_v2 writes:
  - PA_BSND: (block_num, block_size, 1, D) ND (the "BnBsND" form, BnBsH memory), or the
    (block_num, block_size, D) BnBsH reshape of it;
  - PA_NZ: `#mla.format<"FRACTAL_NZ">` on key/value/key_rope, logical (block_num, block_size,
    KV_N*D) (each block's (block_size, H) matrix in NZ: [H/16, block_size, 16] per block, the
    prolog's PA_NZ memory) or BnNBsD (block_num, KV_N, block_size, D). The prolog's
    (block_num, block_size, 1, H) PA_NZ cache (ND-typed, cache_mode "PA_NZ") holds the bytes of
    the (block_num, block_size, H) NZ tensor: collapsing it and putting the NZ encoding on it
    moves no data. In an eager call it is passed as an NZTensor over the same array (the
    `ascend_mla.nz_cache_view`; docs/attention.md).
V2 mode stays as the seed writes it: ND caches of rank 3 (BnBsH) or BnNBsD.

MLA full-quant mode (an i8 query in MLA mode; FIA-MLAQ-1..9, the sources at the rules): the
i8 query with dequant_scale_query (the query's shape without D), the i8 latent cache in
FRACTAL_NZ with block_size 128 and per-tensor f32 (1,) key/value scales in key_antiquant_scale /
value_antiquant_scale (modes 0), bf16 rope parts, bf16 output, query_quant_mode 3, no
softmax_lse. Not in the seed, which has no rope: an extension like the MLA mode, rejecting
nothing the seed allows. The seed's int8 and antiquant rules (FIA-091..093, 097, 100, 113,
127..160, 178) are about V2's modes and run outside MLA mode only; in MLA mode FIA-MLA-18 and
the FIA-MLAQ rules say which quantization parameters exist.
"""
from __future__ import annotations

import math

import numpy as np

from mlir import ir

from .dialect import MLA
from .primitive import cache_writer
from .opdef import OpDef, f64, i1, i64, i64_array, operand, optional, string, variadic
from .rules import ARGUMENT, DATAFLOW, RUNTIME, STATIC, DynamicDim, RuleSet, dim, waive
from .types import FRACTAL_NZ, TensorInfo

OP_NAME = "mla.fused_infer_attention_score"

LAYOUTS = ("BSH", "BSND", "BNSD", "BNSD_BSND", "TND", "TND_NTD", "NTD_TND")
# Variable-length layouts: the batches' tokens packed along T, cumulative actual lengths
# (seed L797, L880, L954 name TND; the later FIA documents define it, see the TND rules).
TND_LAYOUTS = ("TND", "TND_NTD", "NTD_TND")
TND_MAX_T = 1048576             # T <= 1M (FIA V3/V4 documents; PFA tiling TLIMIT)
TND_MAX_BATCH = 4096            # at most 4096 actual lengths (MAX_VAR_LEN_SEQ_LEN)
# non-MLA TND: (query/key D, value D) the PromptFlashAttention TND path computes
TND_HEAD_DIMS = ((64, 64), (128, 128), (192, 128), (192, 192))
FLOATS = ("f16", "bf16")
QUERY_TYPES = ("f16", "bf16", "i8")
KV_TYPES = ("f16", "bf16", "i8", "i4", "i32", "f8E5M2", "f8E4M3FN", "f4E2M1FN")  # seed L131
KV_TYPES_A2 = ("f16", "bf16", "i8", "i4", "i32")                                # seed L673
INT4 = ("i4", "i32")            # native INT4, or 8 INT4 packed in an INT32 (seed L947)
OUT_TYPES = ("f16", "bf16", "i8")
MASK_TYPES = ("i1", "i8", "ui8")
SCALE_TYPES = ("f16", "bf16", "f32")
S_LIMIT = 20971520              # 20M, seed L810
COMPRESSED_MASK = 2048          # sparse_mode 2/3/4 template, seed L872
MLA_HEADS = (1, 2, 4, 8, 16, 32, 64, 128)
MLA_BLOCK_SIZES = (16, 128)
MLA_D, MLA_ROPE_D = 512, 64
# B*N*Q_S*KV_S*D of the smallest shape in the seed's AI Core timeout table (L810-864)
TIMEOUT_WORK = 20 * 2097152 * 2097152 * 256

OPTIONAL_TENSORS = (
    "pse_shift", "atten_mask", "dequant_scale1", "quant_scale1", "dequant_scale2",
    "quant_scale2", "quant_offset2", "antiquant_scale", "antiquant_offset", "block_table",
    "query_padding_size", "kv_padding_size", "key_antiquant_scale", "key_antiquant_offset",
    "value_antiquant_scale", "value_antiquant_offset", "key_shared_prefix",
    "value_shared_prefix")
QUANT_OPERANDS = ("dequant_scale1", "quant_scale1", "dequant_scale2", "quant_scale2",
                  "quant_offset2")
ANTIQUANT_OPERANDS = ("antiquant_scale", "antiquant_offset", "key_antiquant_scale",
                      "key_antiquant_offset", "value_antiquant_scale", "value_antiquant_offset")

rules = RuleSet()


# Profiles: IR is verified as the aclnn V2 operator; the torch_npu-style eager calls of
# ascend_mla.ops add the rules about the caller's arrays (strides), which IR values do not have.
V2, PT = "V2", "PT"


def rule(rule_id, params, *, branch=None, mla=None, tnd=None, kind=STATIC, severity="error",
         profiles=None):
    """A rule that only runs in one branch ("prompt" / "incre"), mode (mla True / False) or
    layout family (tnd True: TND, TND_NTD, NTD_TND; False: the others).

    `params` is a parameter name, or a tuple of names for a rule about several operands: the
    check then runs once per name, as check(op, s, name), so a diagnostic names the operand at
    fault.
    """
    names = (params,) if isinstance(params, str) else tuple(params)

    def add(check):
        for name in names:
            def guarded(op, s, name=name):
                if branch == "prompt" and s.incre or branch == "incre" and not s.incre:
                    return None
                if mla is not None and s.mla != mla:
                    return None
                if tnd is not None and s.tnd != tnd:
                    return None
                return check(op, s) if isinstance(params, str) else check(op, s, name)
            guarded.__name__, guarded.__doc__ = check.__name__, check.__doc__
            rules.rule(rule_id, name, kind=kind, severity=severity, profiles=profiles)(guarded)
        return check
    return add


# --- small helpers ---------------------------------------------------------------------------

def dims(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ")"


def one_of(values) -> str:
    values = [str(v) for v in values]
    return ", ".join(values[:-1]) + " or " + values[-1] if len(values) > 1 else values[0]


def seq_axis(layout) -> int:
    """The S axis of a query-like (and non-paged key-like) tensor; T in the TND layouts."""
    return {"BSH": 1, "BSND": 1, "TND": 0, "TND_NTD": 0, "NTD_TND": 1}.get(layout, 2)


def heads_axis(layout) -> int:
    """The N axis of a query-like (and non-paged key-like) tensor (not BSH)."""
    return {"BSND": 2, "TND": 1, "TND_NTD": 1, "NTD_TND": 0}.get(layout, 1)


def logical_last(t: TensorInfo) -> int:
    """The last dim in elements: an INT32 K/V packs 8 INT4 values (seed L948)."""
    return t.shape[-1] * 8 if t.dtype == "i32" else t.shape[-1]


def is_int4(t) -> bool:
    return t is not None and t.dtype in INT4


def present(op, *names):
    return [n for n in names if op.present(n)]


def _partner(name):
    """key_x <-> value_x."""
    if name.startswith("key_"):
        return "value_" + name[len("key_"):]
    return "key_" + name[len("value_"):]


def _paired(op, name):
    """Both null or both non-null (L933, L975; prefixes L921)."""
    other = _partner(name)
    if getattr(op, name) is None and getattr(op, other) is not None:
        return f"required with {other} (both or neither), got none"


# --- symbols (bound once per verification) --------------------------------------------------

def _head_dim(op, s, t):
    """Logical head dim of a key-like tensor (key, value, key_rope, prefix)."""
    if t.rank == 3 and (s.paged or op.input_layout == "BSH"):
        return logical_last(t) // s.KV_N
    return logical_last(t)


def _cache_form(op, s):
    """The paged cache layout from the key's rank and dims (seed L880, L954)."""
    k = op.key[0]
    if k.rank == 3:
        return "BnBsH"
    if k.rank == 4:
        if k.shape[1] == s.KV_N and k.shape[2] == op.block_size:
            return "BnNBsD"
        if s.mla and k.shape[1] == op.block_size and k.shape[2] == s.KV_N:
            return "BnBsND"   # the prolog's PA_BSND cache: BnBsH memory with N split out
    return None


MAX_BATCH = 65536     # FIA-043/044: the seed's B limit


def _rows(batch: int) -> int:
    """B for a per-batch-row list. Past the limit the lists are not built (2^31 Python ints
    would take minutes and gigabytes before FIA-043/044 refuse B): the rules reading them
    hold, and the limit rule reports."""
    if batch > MAX_BATCH:
        raise DynamicDim()
    return batch


def _per_batch(values, batch):
    """An actual length array's value per batch row: length 1 broadcasts, else the first B."""
    if values is None:
        return None
    values = [int(v) for v in values[:_rows(batch)]]
    return values * batch if len(values) == 1 else values


def _kv_lengths(op, s):
    """Physical KV_S per batch row without page attention (a tensor list: each element's S;
    TND: each batch's span of the packed T_kv)."""
    if s.tnd:
        return s.askv
    axis = seq_axis(op.input_layout)
    if s.is_list:
        return [dim(t, axis) for t in op.key]
    return [dim(op.key[0], axis)] * _rows(s.B)


def _prefix_length(op, s):
    if op.key_shared_prefix is None:
        return 0
    if op.actual_shared_prefix_len is not None:
        return int(op.actual_shared_prefix_len[0])
    return op.key_shared_prefix.shape[seq_axis(op.input_layout)]


def _max_blocks(op, s):
    """maxBlockNumPerSeq = ceil(max_b askv[b] / block_size) (seed L888)."""
    if not s.paged or s.askv is None or op.block_size <= 0:
        return None
    return -(-max(s.askv, default=0) // op.block_size)


def _spans(cumulative):
    """Per-batch lengths of cumulative ends [e0, e1, ...]: e0, e1 - e0, ..."""
    ends = [int(v) for v in cumulative]
    return [e - b for b, e in zip([0] + ends[:-1], ends)]


def _tnd_kv_lengths(op, s):
    """TND: cumulative ends of the packed key/value, or per-batch lengths under page attention
    (the cache is not packed: FIA V3/V4 "actualSeqLengthsKv ... each batch's actual length")."""
    values = op.actual_seq_lengths_kv
    return [int(v) for v in values] if s.paged else _spans(values)


SYMBOLS = {
    "tnd": lambda op, s: op.input_layout in TND_LAYOUTS,
    # TND: B is the number of actual lengths, T the packed token axis
    "B": lambda op, s: len(op.actual_seq_lengths) if s.tnd else op.query.shape[0],
    "T": lambda op, s: op.query.shape[seq_axis(op.input_layout)],
    "Q_S": lambda op, s: (max(s.asl, default=0) if s.tnd
                          else op.query.shape[seq_axis(op.input_layout)]),
    "N": lambda op, s: op.num_heads,
    "KV_N": lambda op, s: op.num_key_value_heads or op.num_heads,
    "G": lambda op, s: s.N // s.KV_N,
    "D": lambda op, s: (op.query.shape[2] // s.N if op.input_layout == "BSH"
                        else op.query.shape[-1]),
    "H_kv": lambda op, s: s.KV_N * s.D,
    "Dk": lambda op, s: _head_dim(op, s, op.key[0]),
    "Dv": lambda op, s: _head_dim(op, s, op.value[0]),
    "incre": lambda op, s: s.Q_S == 1,
    "paged": lambda op, s: op.block_table is not None,
    "mla": lambda op, s: op.query_rope is not None or op.key_rope is not None,
    # the MLA full-quant mode (aclnn V4, torch_npu v2): an int8 query over int8 latent caches
    "mla_quant": lambda op, s: s.mla and op.query.dtype == "i8",
    "is_list": lambda op, s: len(op.key) > 1,
    "cache_form": _cache_form,
    "kv_lengths": _kv_lengths,
    "KV_S": lambda op, s: max(s.kv_lengths, default=0),
    # per-batch actual lengths (TND: from the cumulative ends)
    "asl": lambda op, s: (_spans(op.actual_seq_lengths) if s.tnd
                          else _per_batch(op.actual_seq_lengths, s.B)),
    "askv": lambda op, s: (_tnd_kv_lengths(op, s) if s.tnd
                           else _per_batch(op.actual_seq_lengths_kv, s.B)),
    # lengths with their defaults (the shape's S), for the interception rules
    "q_lengths": lambda op, s: s.asl if s.asl is not None else [s.Q_S] * _rows(s.B),
    "kv_valid": lambda op, s: s.askv if s.askv is not None else s.kv_lengths,
    "P": _prefix_length,
    "max_blocks": _max_blocks,
    # query left padding exists in the prompt branch only: with Q_S == 1 query_padding_size
    # and actual_seq_lengths are both ignored (L290, L688)
    "q_left_pad": lambda op, s: (not s.incre and op.query_padding_size is not None
                                 and op.present("actual_seq_lengths")),
    "kv_left_pad": lambda op, s: (op.kv_padding_size is not None
                                  and op.present("actual_seq_lengths_kv")),
    "left_pad": lambda op, s: s.q_left_pad or s.kv_left_pad,
    "separate": lambda op, s: op.key_antiquant_scale is not None,
    # the combined (legacy) antiquant parameters count only without separate ones (L936, S51)
    "combined": lambda op, s: (not s.separate and (op.antiquant_scale is not None
                                                   or op.antiquant_offset is not None)),
}


# =============================================================================================
# 6.A presence, dtype sets, formats
# =============================================================================================

@rule("FIA-001", "query", kind=ARGUMENT)
def query_present(op, s):
    if op.query is None:
        return "required operand is absent (null)"


@rule("FIA-002", "key")
def key_present(op, s):
    if not op.key:
        return "expected a tensor list with at least one tensor, got none (null)"


@rule("FIA-003", "value")
def value_present(op, s):
    if not op.value:
        return "expected a tensor list with at least one tensor, got none (null)"


@rule("FIA-005", "query")
def query_dtype(op, s):
    if op.query.dtype not in QUERY_TYPES:
        return f"expected element type {one_of(QUERY_TYPES)}, got {op.query.dtype}"


def element(i, tensors) -> str:
    """Which tensor of a tensor list a message is about (nothing for a single tensor)."""
    return f" (element {i})" if len(tensors) > 1 else ""


def _list_dtype(tensors, allowed):
    for i, t in enumerate(tensors):
        if t.dtype not in allowed:
            return f"expected element type {one_of(allowed)}, got {t.dtype}{element(i, tensors)}"


@rule("FIA-006", "key")
def key_dtype(op, s):
    return _list_dtype(op.key, KV_TYPES)


@rule("FIA-007", "value")
def value_dtype(op, s):
    return _list_dtype(op.value, KV_TYPES)


@rule("FIA-008", ("key", "value"))
def kv_dtype_a2(op, s, name):
    """A2: key/value are FLOAT16, BFLOAT16, INT8 or INT4(INT32) (L673)."""
    return _list_dtype(getattr(op, name), KV_TYPES_A2)


@rule("FIA-009", "value")
def kv_one_dtype(op, s):
    dtypes = {t.dtype for t in op.key + op.value}
    if len(dtypes) > 1:
        return f"expected key and value tensors of one element type, got {sorted(dtypes)}"


@rule("FIA-035", "value")
def list_lengths(op, s):
    if len(op.key) != len(op.value):
        return f"expected as many tensors as key ({len(op.key)}), got {len(op.value)}"


@rule("FIA-010", "attention_out")
def out_dtype(op, s):
    if op.attention_out.dtype not in OUT_TYPES:
        return f"expected element type {one_of(OUT_TYPES)}, got {op.attention_out.dtype}"


@rule("FIA-011", ("query", "key", "value", "attention_out"))
def main_formats(op, s, name):
    """ND only; in MLA mode a paged latent cache may be FRACTAL_NZ (the prolog's PA_NZ)."""
    value = getattr(op, name)
    if name in ("key", "value"):
        if s.mla and s.paged:
            return None
        if any(t.is_nz for t in value):
            return ("expected format ND (FRACTAL_NZ only for the paged cache of the MLA mode), "
                    "got FRACTAL_NZ")
    elif value.is_nz:
        return "expected format ND, got FRACTAL_NZ"


@rule("FIA-012", "pse_shift")
def pse_kind(op, s):
    pse = op.pse_shift
    if pse is None:
        return None
    if pse.dtype not in FLOATS:
        return f"expected element type f16 or bf16, got {pse.dtype}"
    if pse.is_nz:
        return "expected format ND, got FRACTAL_NZ"
    if pse.rank != 4:
        return f"expected rank 4, got {pse}"


@rule("FIA-013", "atten_mask")
def mask_kind(op, s):
    mask = op.atten_mask
    if mask is None:
        return None
    if mask.dtype not in MASK_TYPES:
        return f"expected element type {one_of(MASK_TYPES)}, got {mask.dtype}"
    if mask.is_nz:
        return "expected format ND, got FRACTAL_NZ"
    if mask.rank not in (2, 3, 4):
        return f"expected rank 2, 3 or 4, got {mask}"


@rule("FIA-015", OPTIONAL_TENSORS + ("query_rope", "dequant_scale_query"))
def optional_formats(op, s, name):
    """Every optional tensor is ND (parameter table); key_rope follows key (FIA-MLA-7)."""
    t = getattr(op, name)
    if t is not None and t.is_nz:
        return "expected format ND, got FRACTAL_NZ"


@rule("FIA-014", ("query", "key", "value", "pse_shift", "atten_mask"), kind=RUNTIME,
      profiles=PT)
def contiguous(op, s, name):
    """The seed's parameter table marks these tensors "non-contiguous: x" (L124, L134, L144,
    L155, L166). IR values have no strides (a compiled program's intermediates are the
    runtime's business), so this is a call-time rule of the eager calls on the caller's arrays."""
    value = getattr(op, name)
    tensors = value if isinstance(value, list) else [value]
    for i, t in enumerate(tensors):
        data = None if t is None else t.value
        if isinstance(data, np.ndarray) and not data.flags.c_contiguous:
            return (f"expected a contiguous tensor, got a strided view{element(i, tensors)} "
                    f"(the operator does not support non-contiguous tensors)")


@rule("FIA-STATIC", ("query", "key", "value") + OPTIONAL_TENSORS
      + ("query_rope", "key_rope", "dequant_scale_query"))
def static_shapes(op, s, name):
    """Every operand has a static shape: the seed's rules are about sizes. The one exception is
    the S axis of a tensor list's elements: IRDL gives every value of a variadic operand one
    type, so a list whose elements differ in S (section 1.11) has a dynamic S in IR; the
    rules that need each S hold until the values are known (eager calls and the interpreter
    check them with the actual shapes)."""
    value = getattr(op, name)
    is_list = isinstance(value, list) and len(value) > 1
    for t in value if isinstance(value, list) else [value]:
        if t is None:
            continue
        dynamic = [i for i, d in enumerate(t.shape) if d is None]
        if is_list and dynamic == [seq_axis(op.input_layout)]:
            continue
        if dynamic:
            return f"expected a static shape, got {t}"


@rule("FIA-MLA-20", ("key", "value", "key_rope"), mla=True, kind=DATAFLOW)
def cache_read_in_its_written_layout(op, s, name):
    """A paged cache is read in the layout its producer wrote: mla.prolog(_v2) in PA_NZ mode
    writes NZ-ordered blocks into an ND-typed tensor, which attention must read through
    mla.nz_cache_view (and a PA_BSND cache must not be viewed as NZ). Without this check the
    program would verify and silently read the bytes in the wrong order."""
    values = getattr(op, name)
    for value in values if isinstance(values, list) else [values]:
        source, mode, viewed = _cache_producer(value)
        if source is None:
            continue
        if mode == "PA_NZ" and not viewed:
            return (f"this is a PA_NZ cache written by '{source.name}' (NZ-ordered blocks); read it "
                    f"through 'mla.nz_cache_view' to get the FRACTAL_NZ tensor attention expects")
        if mode == "PA_BSND" and viewed:
            return (f"'mla.nz_cache_view' of a PA_BSND cache written by '{source.name}': its blocks "
                    f"are row-major, not NZ")


def _cache_producer(value):
    """(the op that wrote this paged cache in place -- mla.prolog/prolog_v2 or
    mla.scatter_cache --, its cache_mode, whether it went through mla.nz_cache_view), or
    (None, None, False)."""
    viewed = False
    owner = value.owner if isinstance(value, ir.OpResult) else None
    if owner is not None and owner.name == "mla.nz_cache_view":
        viewed = True
        value = owner.operands[0]
    writer = cache_writer(value)
    return (*writer, viewed) if writer is not None else (None, None, False)


# =============================================================================================
# MLA mode: presence and dtypes
# =============================================================================================

@rule("FIA-MLA-1", ("query_rope", "key_rope"))
def rope_pair(op, s, name):
    """query_rope and key_rope: both (MLA mode) or neither."""
    other = "key_rope" if name == "query_rope" else "query_rope"
    if getattr(op, name) is None and getattr(op, other) is not None:
        return f"required with {other} (the MLA mode needs both), got none"


@rule("FIA-MLA-3", "key", mla=True)
def mla_key_dtype(op, s):
    if op.key[0].dtype != op.query.dtype:
        return (f"expected the query's element type {op.query.dtype} (float: the latent cache is "
                f"not quantized; i8: the full-quant mode quantizes both), got {op.key[0].dtype}")


@rule("FIA-MLA-11", "block_table", mla=True)
def mla_paged(op, s):
    if op.block_table is None:
        return "expected a block table: page attention is mandatory in MLA mode, got none"


@rule("FIA-MLA-16", "pse_shift", mla=True)
def mla_no_pse(op, s):
    if op.pse_shift is not None:
        return "not supported in MLA mode"


@rule("FIA-MLA-17", ("query_padding_size", "kv_padding_size"), mla=True)
def mla_no_left_padding(op, s, name):
    if op.present(name):
        return "left padding is not supported in MLA mode"


@rule("FIA-MLA-18", QUANT_OPERANDS + ANTIQUANT_OPERANDS, mla=True)
def mla_no_quant(op, s, name):
    """No quantization in MLA mode but the full-quant mode, whose key/value dequant scales are
    key_antiquant_scale / value_antiquant_scale (FIA-MLAQ-3)."""
    if not op.present(name):
        return None
    if not s.mla_quant:
        return "quantization is not supported in MLA mode (with a float query)"
    if name not in ("key_antiquant_scale", "value_antiquant_scale"):
        return ("not supported in the MLA full-quant mode (its scales are dequant_scale_query, "
                "key_antiquant_scale and value_antiquant_scale)")


# --- MLA full-quant mode --------------------------------------------------------------------
# An int8 query (.., 512) with its per-(token, head) dequant scale, int8 latent caches in NZ with
# per-tensor key/value dequant scales, bf16 rope parts, bf16 output. Not in the seed (V2 has
# neither rope nor dequant_scale_query): an extension from the later documents, as the MLA mode
# itself. Sources: torch_npu npu_fused_infer_attention_score_v2 (op-plugin
# docs/zh/custom_APIs/torch_npu/torch_npu-npu_fused_infer_attention_score_v2.md, "MLA场景约束":
# query/key/value int8, query_rope/key_rope bf16, output bf16; dequant_scale_query/key/value
# all given, float32; query_quant_mode 3 (per-token per-head), key/value modes per-tensor; no
# offsets or post-quant; NZ caches [blockNum, KV_N, D/32, blockSize, 32]) and
# aclnnFusedInferAttentionScoreV4 (ops-transformer attention/fused_infer_attention_score/docs,
# the MLA table's 全量化 rows: key/value/key_rope five-dimensional (NZ) only, blockSize 128,
# page attention required, no SoftMaxLse). Shapes of the scales: the device's tiling checks
# (incre_flash_attention_tiling.cpp CheckQueryQuantParam4FullQuant / CheckKVQuantParam4FullQuant:
# dequant_scale_query is the query's shape without D -- (B, S, N) for BSH --, key/value (1,)).

def _query_scale_shape(op, s):
    """dequant_scale_query: one scale per token and head, the query's shape without D."""
    q = op.query.shape
    return (q[0], q[1], s.N) if op.input_layout == "BSH" else q[:-1]


@rule("FIA-MLAQ-1", "dequant_scale_query")
def mla_query_scale(op, s):
    t = op.dequant_scale_query
    if (t is not None) != s.mla_quant:
        return ("required for an i8 query in MLA mode (its per-token per-head dequant scale), "
                "got none" if t is None else
                "only for an i8 query in MLA mode (the MLA full-quant mode), got one")
    want = None if t is None else _query_scale_shape(op, s)
    if t is not None and (t.dtype != "f32" or t.shape != want):
        return f"expected an f32 tensor {dims(want)} (the query's shape without D), got {t}"


@rule("FIA-MLAQ-2", "query_quant_mode")
def mla_query_quant_mode(op, s):
    want = 3 if s.mla_quant else 0
    if op.query_quant_mode != want:
        return (f"expected {want} (3: per-token per-head, the MLA full-quant mode's only mode; "
                f"0 otherwise), got {op.query_quant_mode}")


@rule("FIA-MLAQ-3", ("key_antiquant_scale", "value_antiquant_scale"), mla=True)
def mla_kv_scales(op, s, name):
    if not s.mla_quant:
        return None
    t = getattr(op, name)
    if t is None or t.dtype != "f32" or t.shape != (1,):
        return (f"expected an f32 tensor (1,) (the per-tensor dequant scale of the int8 latent "
                f"cache, MLA full-quant mode), got {t if t is not None else 'none'}")


@rule("FIA-MLAQ-4", ("key_antiquant_mode", "value_antiquant_mode"), mla=True)
def mla_kv_quant_modes(op, s, name):
    if s.mla_quant and getattr(op, name) != 0:
        return f"expected 0 (per-tensor) in the MLA full-quant mode, got {getattr(op, name)}"


@rule("FIA-MLAQ-5", "key", mla=True)
def mla_quant_nz(op, s):
    if s.mla_quant and not op.key[0].is_nz:
        return (f"expected a FRACTAL_NZ latent cache in the MLA full-quant mode (the int8 "
                f"[blockNum, 1, D/32, blockSize, 32] form), got {op.key[0]}")


@rule("FIA-MLAQ-6", "block_size", mla=True)
def mla_quant_block_size(op, s):
    if s.mla_quant and op.block_size != 128:
        return f"expected 128 in the MLA full-quant mode, got {op.block_size}"


@rule("FIA-MLAQ-7", "input_layout", mla=True)
def mla_quant_layout(op, s):
    if s.mla_quant and op.input_layout in ("BNSD", "BNSD_BSND"):
        return (f"BNSD layouts are not supported in the MLA full-quant mode (NZ caches), got "
                f"{op.input_layout!r}")


@rule("FIA-MLAQ-8", "softmax_lse_flag", mla=True)
def mla_quant_no_lse(op, s):
    if s.mla_quant and op.softmax_lse_flag:
        return "softmax_lse is not supported in the MLA full-quant mode"


@rule("FIA-MLAQ-9", "attention_out", mla=True)
def mla_quant_out(op, s):
    if s.mla_quant and op.attention_out.dtype != "bf16":
        return f"expected bf16 in the MLA full-quant mode, got {op.attention_out.dtype}"


# =============================================================================================
# 6.B layout, heads
# =============================================================================================

@rule("FIA-017", "input_layout")
def layout_supported(op, s):
    if op.input_layout not in LAYOUTS:
        return f"expected one of {', '.join(LAYOUTS)}, got {op.input_layout!r}"


@rule("FIA-TND-1", ("actual_seq_lengths", "actual_seq_lengths_kv"), tnd=True)
def tnd_lengths_given(op, s, name):
    if getattr(op, name) is None:
        return (f"required with input_layout {op.input_layout!r} (it gives the batches: each "
                f"batch's end in the packed T), got none")


@rule("FIA-019", "query")
def query_rank(op, s):
    want = 3 if op.input_layout in ("BSH",) + TND_LAYOUTS else 4
    if op.query.rank != want:
        return f"expected rank {want} for input_layout {op.input_layout!r}, got {op.query}"


def _cumulative_ends(values, total, what):
    """Cumulative ends of packed batches: 1..4096 values, non-decreasing, >= 0, the last one the
    packed axis' length (reading a RuntimeList holds the rule until run time)."""
    values = [int(v) for v in values]
    if not 1 <= len(values) <= TND_MAX_BATCH:
        return f"expected 1 to {TND_MAX_BATCH} values (one per batch), got {len(values)}"
    if values[0] < 0 or any(b < a for a, b in zip(values, values[1:])):
        return (f"expected non-decreasing values >= 0 (each batch's end in {what}, "
                f"cumulative), got {values}")
    if values[-1] != total:
        return f"expected the last value to be {what} = {total}, got {values[-1]}"


@rule("FIA-TND-2", "actual_seq_lengths", tnd=True)
def tnd_query_ends(op, s):
    return _cumulative_ends(op.actual_seq_lengths, s.T, "the query's T")


@rule("FIA-TND-3", "num_heads", tnd=True)
def tnd_heads(op, s):
    axis = heads_axis(op.input_layout)
    if op.query.shape[axis] != op.num_heads:
        return f"expected the N axis of query ({op.query.shape[axis]}), got {op.num_heads}"


@rule("FIA-018", "input_layout")
def bnsd_bsnd_prompt_only(op, s):
    if op.input_layout == "BNSD_BSND" and s.Q_S <= 1:
        return f"'BNSD_BSND' needs Q_S > 1 (the prompt branch), got Q_S = {s.Q_S}"


@rule("FIA-022", "num_heads")
def heads_positive(op, s):
    if op.num_heads < 1:
        return f"expected >= 1, got {op.num_heads}"


@rule("FIA-026", "num_key_value_heads")
def kv_heads_non_negative(op, s):
    if op.num_key_value_heads < 0:
        return f"expected >= 0 (0 means num_heads), got {op.num_key_value_heads}"


@rule("FIA-023", "num_heads")
def heads_bnsd(op, s):
    if op.input_layout in ("BNSD", "BNSD_BSND") and op.query.shape[1] != op.num_heads:
        return f"expected the N axis of query ({op.query.shape[1]}), got {op.num_heads}"


@rule("FIA-024", "num_heads")
def heads_bsnd(op, s):
    if op.input_layout == "BSND" and op.query.shape[2] != op.num_heads:
        return f"expected the N axis of query ({op.query.shape[2]}), got {op.num_heads}"


@rule("FIA-025", "num_heads")
def heads_divide_hidden(op, s):
    if op.input_layout == "BSH" and op.query.shape[2] % op.num_heads:
        return f"expected a divisor of the query's H ({op.query.shape[2]}), got {op.num_heads}"


@rule("FIA-027", "num_key_value_heads")
def heads_multiple_of_kv_heads(op, s):
    if s.N % s.KV_N:
        return f"expected a divisor of num_heads ({s.N}), got {s.KV_N}"


@rule("FIA-028", "num_key_value_heads", mla=False)
def group_at_most_64(op, s):
    if s.G > 64:
        return f"num_heads / num_key_value_heads must be <= 64, got {s.N} / {s.KV_N} = {s.G}"


@rule("FIA-020", "attention_out")
def out_rank(op, s):
    if op.attention_out.rank != op.query.rank:
        return f"expected the rank of query ({op.query.rank}), got {op.attention_out}"


@rule("FIA-021", ("key", "value"))
def kv_rank(op, s, name):
    if s.paged:
        return None
    for t in getattr(op, name):
        if t.rank != op.query.rank:
            return f"expected the rank of query ({op.query.rank}) without page attention, got {t}"


# =============================================================================================
# TND layouts: the packed key/value, excluded features, head dims, masks
# =============================================================================================
# The V2 seed names TND in its softmax_lse shape (L797) and page-attention rules (L880, L954)
# but lists four layouts (L719); what TND means comes from the later FIA documents
# (aclnnFusedInferAttentionScoreV3/V4, torch_npu's npu_fused_infer_attention_score(_v2)) and the
# device's tiling checks (PromptFlashAttention CheckInputShapeWhenLayoutIsTND /
# CheckActSeqWhenLayoutIsTND, FIA CheckLseShape): query (T, N, D) (NTD_TND: (N, T, D)),
# key/value (T_kv, KV_N, D) or a paged cache, actual_seq_lengths(_kv) the cumulative ends of
# each batch (per-batch lengths for a paged cache), output (T, N, Dv) (TND_NTD: (N, T, Dv)).

@rule("FIA-TND-4", ("query", "key"), tnd=True)
def tnd_token_limit(op, s, name):
    """T <= 1M for the query, and for a packed (not paged) key."""
    if name == "key" and s.paged:
        return None
    tokens = getattr(op, name)
    tokens = tokens[0] if isinstance(tokens, list) else tokens
    t = dim(tokens, seq_axis(op.input_layout))
    if t > TND_MAX_T:
        return f"expected T <= {TND_MAX_T} with input_layout {op.input_layout!r}, got {t}"


TND_EXCLUDED = (("query_padding_size", "left padding"), ("kv_padding_size", "left padding"),
                ("pse_shift", "pse_shift"), ("key_shared_prefix", "a shared prefix")) + tuple(
    (name, "quantization") for name in QUANT_OPERANDS + ANTIQUANT_OPERANDS)


@rule("FIA-TND-5", ("key",) + tuple(name for name, _ in TND_EXCLUDED), tnd=True)
def tnd_excluded_features(op, s, name):
    """Not with TND (FIA V3/V4: no left padding, tensor list, pse, prefix, antiquant, full
    quant, post-quant)."""
    if name == "key":
        if s.is_list:
            return f"a tensor list is not supported with input_layout {op.input_layout!r}"
        return None
    if op.present(name):
        feature = dict(TND_EXCLUDED)[name]
        return f"{feature} is not supported with input_layout {op.input_layout!r}"


@rule("FIA-TND-6", "actual_seq_lengths_kv", tnd=True)
def tnd_kv_ends(op, s):
    values = [int(v) for v in op.actual_seq_lengths_kv]
    if len(values) != s.B:
        return (f"expected B = {s.B} values (as many as actual_seq_lengths), got "
                f"{len(values)}")
    if s.paged:
        if min(values) < 0:
            return f"expected per-batch lengths >= 0 with page attention, got {values}"
        return None
    return _cumulative_ends(values, dim(op.key[0], seq_axis(op.input_layout)), "the key's T")


@rule("FIA-TND-7", "input_layout", tnd=True)
def tnd_layout_in_mode(op, s):
    """MLA (query D 512) takes TND and TND_NTD; without rope the PFA path takes TND and
    NTD_TND."""
    allowed = ("TND", "TND_NTD") if s.mla else ("TND", "NTD_TND")
    if op.input_layout not in allowed:
        mode = "in MLA mode" if s.mla else "without query_rope/key_rope"
        return f"expected {one_of(allowed)} {mode}, got {op.input_layout!r}"


@rule("FIA-TND-8", "query", tnd=True, mla=False)
def tnd_bf16(op, s):
    if op.query.dtype != "bf16":
        return (f"expected element type bf16 with input_layout {op.input_layout!r} "
                f"(without query_rope/key_rope), got {op.query.dtype}")


@rule("FIA-TND-9", "value", tnd=True, mla=False)
def tnd_head_dims(op, s):
    dims_ = (s.Dk, s.Dv)
    if dims_ not in TND_HEAD_DIMS:
        return (f"expected (key D, value D) in {', '.join(map(str, TND_HEAD_DIMS))} with "
                f"input_layout {op.input_layout!r}, got {dims_}")
    if s.Dv == 192 and s.G > 1:
        return f"value D 192 needs num_heads == num_key_value_heads, got G = {s.G}"
    if s.Dv == 192 and op.input_layout == "NTD_TND":
        return "value D 192 is not supported with input_layout 'NTD_TND'"


@rule("FIA-TND-10", "softmax_lse_flag", tnd=True, mla=True)
def tnd_mla_no_lse(op, s):
    if op.softmax_lse_flag:
        return f"softmax_lse is not supported in MLA mode with input_layout {op.input_layout!r}"


# =============================================================================================
# 6.C tensor list (non-contiguous KV)
# =============================================================================================

@rule("FIA-036", "key")
def list_length_is_batch(op, s):
    if s.is_list and len(op.key) != s.B:
        return f"expected one tensor per batch ({s.B}) in a tensor list, got {len(op.key)}"


@rule("FIA-037", ("key", "value"))
def list_batch_one(op, s, name):
    if not s.is_list:
        return None
    for i, t in enumerate(getattr(op, name)):
        if t.shape[0] != 1:
            return f"expected batch 1 in a tensor list, got {t}{element(i, op.key)}"


def head_axes(t, layout):
    """The dims of a key-like tensor other than B and S: (N, D), or (H,) for BSH."""
    axis = seq_axis(layout)
    return tuple(d for i, d in enumerate(t.shape) if i not in (0, axis))


@rule("FIA-038", ("key", "value"))
def list_same_heads(op, s, name):
    """N and D (BSH: H) are equal across the tensor list."""
    if not s.is_list:
        return None
    first = head_axes(op.key[0], op.input_layout)
    for i, t in enumerate(getattr(op, name)):
        if head_axes(t, op.input_layout) != first:
            return (f"expected the N and D (BSH: H) of key[0] {dims(first)} in every element, "
                    f"got {t} (element {i})")


@rule("FIA-039", "key")
def list_batch_limit(op, s):
    if s.is_list and s.B > 256:
        return f"a tensor list allows B <= 256, got {s.B}"


@rule("FIA-040", "block_table")
def list_not_paged(op, s):
    if s.is_list and s.paged:
        return "page attention is not supported with a key tensor list"


@rule("FIA-041", "key_shared_prefix")
def list_no_prefix(op, s):
    if s.is_list and op.key_shared_prefix is not None:
        return "a shared prefix is not supported with a key tensor list"


@rule("FIA-042", "key_antiquant_scale", branch="prompt")
def list_no_separate_antiquant(op, s):
    if s.is_list and op.key_antiquant_scale is not None:
        return "separate key/value antiquant is not supported with a key tensor list"


# =============================================================================================
# 6.E actual_seq_lengths / actual_seq_lengths_kv
# =============================================================================================

def _length_count(values, batch):
    if values is not None and not (len(values) == 1 or len(values) >= batch):
        return f"expected 1 or at least B = {batch} values, got {len(values)}"


@rule("FIA-055", "actual_seq_lengths", branch="prompt", tnd=False)
def q_lengths_count(op, s):
    return _length_count(op.actual_seq_lengths, s.B)


@rule("FIA-057", "actual_seq_lengths", branch="prompt", tnd=False)
def q_lengths_non_negative(op, s):
    if s.asl is not None and min(s.asl, default=0) < 0:
        return f"expected values >= 0, got {s.asl}"


@rule("FIA-056", "actual_seq_lengths", branch="prompt", tnd=False)
def q_lengths_bound(op, s):
    if s.asl is not None and max(s.asl, default=0) > s.Q_S:
        return f"expected values <= Q_S = {s.Q_S}, got {s.asl}"


@rule("FIA-059", "actual_seq_lengths_kv", tnd=False)
def kv_lengths_count(op, s):
    return _length_count(op.actual_seq_lengths_kv, s.B)


@rule("FIA-061", "actual_seq_lengths_kv", tnd=False)
def kv_lengths_non_negative(op, s):
    if s.askv is not None and min(s.askv, default=0) < 0:
        return f"expected values >= 0, got {s.askv}"


@rule("FIA-060", "actual_seq_lengths_kv", tnd=False)
def kv_lengths_bound(op, s):
    if s.paged or s.askv is None:
        return None
    for b, (n, limit) in enumerate(zip(s.askv, s.kv_lengths)):
        if n > limit:
            return f"batch {b}: expected <= the key's S ({limit}), got {n}"


# =============================================================================================
# 6.M page attention: the block table and the cache form (before the head-dim rules)
# =============================================================================================

@rule("FIA-161", "block_table")
def block_table_dtype(op, s):
    if s.paged and op.block_table.dtype != "i32":
        return f"expected element type i32, got {op.block_table.dtype}"


@rule("FIA-162", "block_table")
def block_table_rank(op, s):
    if s.paged and op.block_table.rank != 2:
        return f"expected rank 2 (B, maxBlockNumPerSeq), got {op.block_table}"


@rule("FIA-163", "block_table")
def block_table_batch(op, s):
    if s.paged and op.block_table.shape[0] != s.B:
        return f"expected dim 0 = B ({s.B}), got {op.block_table}"


@rule("FIA-165", "actual_seq_lengths_kv")
def paged_needs_kv_lengths(op, s):
    if s.paged and op.actual_seq_lengths_kv is None:
        return "required with page attention (block_table), got none"


@rule("FIA-166", "block_size", mla=False)
def prompt_block_size(op, s):
    """Also for TND without rope when Q_S = 1: the device runs TND on the prompt path."""
    if s.incre and not s.tnd:
        return None
    bs = op.block_size
    if s.paged and not (128 <= bs <= 512 and bs % 128 == 0):
        return f"expected a multiple of 128 in [128, 512] with page attention, got {bs}"


@rule("FIA-167", "block_size", branch="incre")
def incre_block_size(op, s):
    if s.tnd and not s.mla:
        return None
    if s.paged and not 1 <= op.block_size <= 512:
        return f"expected 1..512 with page attention, got {op.block_size}"


@rule("FIA-MLA-12", "block_size", mla=True)
def mla_block_size(op, s):
    if op.block_size not in MLA_BLOCK_SIZES:
        return f"expected 16 or 128 in MLA mode, got {op.block_size}"


@rule("FIA-169", "key")
def paged_cache_rank(op, s):
    if s.paged and op.key[0].rank not in (3, 4):
        return (f"expected a paged cache of rank 3 (BnBsH) or 4 (BnNBsD), got {op.key[0]}")


@rule("FIA-170", "key")
def paged_bnbsh(op, s):
    k = op.key[0]
    if not s.paged or k.rank != 3:
        return None
    if k.shape[1] != op.block_size or logical_last(k) != s.H_kv:
        return (f"expected BnBsH (block_num, {op.block_size}, KV_N*D = {s.KV_N}*{s.D}), "
                f"got {k}")


@rule("FIA-171", "key")
def paged_bnnbsd(op, s):
    k = op.key[0]
    if not s.paged or k.rank != 4:
        return None
    if s.cache_form is None or logical_last(k) != s.D:
        also = (f" or, in MLA mode, (block_num, {op.block_size}, {s.KV_N}, {s.D})"
                if s.mla else "")
        return (f"expected BnNBsD (block_num, KV_N = {s.KV_N}, block_size = {op.block_size}, "
                f"D = {s.D}){also}, got {k}")


@rule("FIA-172", "key")
def paged_layout_form(op, s):
    """Query layout BSH/BSND: the cache is BnBsH only (L880, L954)."""
    if s.paged and op.input_layout in ("BSH", "BSND") and s.cache_form == "BnNBsD":
        return (f"input_layout {op.input_layout!r} allows the BnBsH cache only, got BnNBsD "
                f"{op.key[0]}")


@rule("FIA-173", "key")
def paged_bnbsh_width(op, s):
    if s.paged and s.cache_form in ("BnBsH", "BnBsND") and s.H_kv > 65535:
        return f"a BnBsH cache needs KV_N*D <= 65535, got {s.KV_N}*{s.D} = {s.H_kv}"


def _kv_shape_mismatch(op, k, v):
    """Key and value have one shape; in TND the value's head dim may differ (e.g. key D 192,
    value D 128: FIA-TND-9), so there the last dim is not compared."""
    if op.input_layout in TND_LAYOUTS:
        same = k.shape[:-1] == v.shape[:-1]
        what = "the shape of key except its last dim"
    else:
        same = k.shape == v.shape
        what = "the shape of key"
    if not same:
        return f"expected {what} {dims(k.shape)}, got {v}"


@rule("FIA-175", "value")
def paged_same_shape(op, s):
    if s.paged:
        return _kv_shape_mismatch(op, op.key[0], op.value[0])


@rule("FIA-MLA-19", "key", mla=True)
def mla_nz_form(op, s):
    """A FRACTAL_NZ (PA_NZ) cache holds each block's (block_size, D) matrices in NZ."""
    if op.key[0].is_nz and s.cache_form == "BnBsND":
        return (f"a FRACTAL_NZ paged cache is (block_num, block_size, KV_N*D) or "
                f"(block_num, KV_N, block_size, D), got {op.key[0]}")


@rule("FIA-164", "block_table")
def block_table_width(op, s):
    if s.paged and op.block_table.shape[1] < s.max_blocks:
        return (f"expected dim 1 >= maxBlockNumPerSeq = "
                f"ceil({max(s.askv, default=0)}/{op.block_size}) "
                f"= {s.max_blocks}, got {op.block_table}")


@rule("FIA-174", "key")
def paged_block_count(op, s):
    if not s.paged:
        return None
    needed = sum(-(-n // op.block_size) for n in s.askv)
    if op.key[0].shape[0] < needed:
        return (f"expected block_num >= the blocks of actual_seq_lengths_kv "
                f"(sum of ceil(askv[b]/{op.block_size}) = {needed}), got {op.key[0]}")


@rule("FIA-176", "block_table", branch="prompt")
def paged_no_left_padding(op, s):
    if s.paged and s.left_pad:
        return "page attention does not support left padding (query_padding_size / kv_padding_size)"


@rule("FIA-177", "key_shared_prefix")
def paged_no_prefix(op, s):
    if s.paged and op.key_shared_prefix is not None:
        return "a shared prefix is not supported with page attention"


@rule("FIA-178", "key", branch="prompt", mla=False)
def prompt_paged_dtypes(op, s):
    k = op.key[0].dtype
    if s.paged and not (k in FLOATS or k == "i8" and op.query.dtype in FLOATS):
        return (f"page attention with Q_S > 1 needs an f16/bf16 key, or i8 with an f16/bf16 "
                f"query, got {k} with {op.query.dtype}")


# =============================================================================================
# 6.B key/value shapes
# =============================================================================================

@rule("FIA-029", "num_key_value_heads")
def kv_heads_match_n_axis(op, s):
    if s.paged or op.input_layout == "BSH":
        return None
    axis = heads_axis(op.input_layout)
    for name in ("key", "value"):
        for i, t in enumerate(getattr(op, name)):
            if t.shape[axis] != s.KV_N:
                return f"expected the N axis of {name}[{i}] ({t.shape[axis]}), got {s.KV_N}"


@rule("FIA-030", ("key", "value"))
def bsh_kv_hidden(op, s, name):
    if s.paged or op.input_layout != "BSH":
        return None
    for t in getattr(op, name):
        if logical_last(t) != s.H_kv:
            return f"expected H = KV_N*D = {s.KV_N}*{s.D} = {s.H_kv}, got {t}"


@rule("FIA-031", "key")
def key_head_dim(op, s):
    if s.Dk != s.D:
        return f"expected the head dim D of query ({s.D}), got {s.Dk} in {op.key[0]}"


@rule("FIA-032", "value")
def kv_same_shape(op, s):
    if s.paged:
        return None
    for i, (k, v) in enumerate(zip(op.key, op.value)):
        mismatch = _kv_shape_mismatch(op, k, v)
        if mismatch:
            return mismatch + element(i, op.key)


@rule("FIA-034", "key")
def key_batch(op, s):
    if not s.paged and not s.is_list and not s.tnd and op.key[0].shape[0] != s.B:
        return f"expected batch B = {s.B} (the query's), got {op.key[0]}"


def _out_shape(op, s):
    if s.tnd:
        t, n, dv = s.T, s.N, s.Dv
        return (n, t, dv) if op.input_layout == "TND_NTD" else (t, n, dv)
    b, q_s, n, dv = s.B, s.Q_S, s.N, s.Dv
    return {"BSH": (b, q_s, n * dv), "BSND": (b, q_s, n, dv), "BNSD": (b, n, q_s, dv),
            "BNSD_BSND": (b, q_s, n, dv)}[op.input_layout]


@rule("FIA-033", "attention_out")
def out_shape(op, s):
    want = _out_shape(op, s)
    if op.attention_out.shape != want:
        order = {"BNSD_BSND": ", BSND order", "TND_NTD": ", NTD order",
                 "NTD_TND": ", TND order"}.get(op.input_layout, "")
        return (f"expected {dims(want)} (query shape with the value's D{order}), "
                f"got {op.attention_out}")


# =============================================================================================
# MLA mode: shapes
# =============================================================================================

@rule("FIA-MLA-4", "query", mla=True)
def mla_query_dim(op, s):
    if s.D != MLA_D:
        return f"expected head dim {MLA_D} (the latent dim) in MLA mode, got {s.D}"


def _with_head_dim(op, s, t, d, kv):
    """The shape of `t` with its head dim replaced by d (heads: KV_N for key-like tensors)."""
    heads = s.KV_N if kv else s.N
    if t.rank == 3 and (kv and s.paged or op.input_layout == "BSH"):
        return t.shape[:2] + (heads * d,)
    return t.shape[:-1] + (d,)


@rule("FIA-MLA-5", "query_rope", mla=True)
def mla_query_rope(op, s):
    qr = op.query_rope
    want = _with_head_dim(op, s, op.query, MLA_ROPE_D, kv=False)
    dtype = "bf16" if s.mla_quant else op.query.dtype
    if qr.dtype != dtype or qr.shape != want:
        return (f"expected {dims(want)} of {dtype} (the query's layout with head dim "
                f"{MLA_ROPE_D}), got {qr}")


@rule("FIA-MLA-6", "value", mla=True)
def mla_value_is_latent(op, s):
    if op.value[0].format != op.key[0].format:
        return (f"expected the latent cache of key (format {op.key[0].format}), "
                f"got {op.value[0]}")


@rule("FIA-MLA-7", "key_rope", mla=True)
def mla_key_rope(op, s):
    kr, k = op.key_rope, op.key[0]
    want = _with_head_dim(op, s, k, MLA_ROPE_D, kv=True)
    dtype = "bf16" if s.mla_quant else k.dtype          # full quant: an int8 cache, bf16 rope
    if kr.dtype != dtype or kr.format != k.format or kr.shape != want:
        fmt = f", {FRACTAL_NZ}" if k.is_nz else ""
        return (f"expected the rope cache {dims(want)} of {dtype}{fmt} (the key cache with "
                f"head dim {MLA_ROPE_D}), got {kr}")


@rule("FIA-MLA-8", "num_heads", mla=True)
def mla_heads(op, s):
    if op.num_heads not in MLA_HEADS:
        return f"expected one of {', '.join(map(str, MLA_HEADS))} in MLA mode, got {op.num_heads}"


@rule("FIA-MLA-9", "query", mla=True)
def mla_query_seq(op, s):
    if not 1 <= s.Q_S <= 16:
        return f"expected Q_S in 1..16 in MLA mode, got {s.Q_S}"


@rule("FIA-MLA-10", "num_key_value_heads", mla=True)
def mla_single_kv_head(op, s):
    if s.KV_N != 1:
        return f"expected 1 (one latent kv head) in MLA mode, got {s.KV_N}"


@rule("FIA-MLA-13", "sparse_mode", branch="incre", mla=True, tnd=False)
def mla_incre_sparse(op, s):
    if op.sparse_mode != 0:
        return f"expected 0 in MLA mode with Q_S = 1, got {op.sparse_mode}"


@rule("FIA-MLA-14", "atten_mask", branch="incre", mla=True, tnd=False)
def mla_incre_no_mask(op, s):
    if op.atten_mask is not None:
        return "expected none in MLA mode with Q_S = 1 (sparse_mode 0 without a mask)"


@rule("FIA-MLA-15", "sparse_mode", branch="prompt", mla=True, tnd=False)
def mla_prompt_causal(op, s):
    if op.sparse_mode != 3:
        return (f"expected 3 (rightDownCausal with the 2048x2048 mask) in MLA mode with "
                f"Q_S > 1, got {op.sparse_mode}")


# =============================================================================================
# 6.D size limits
# =============================================================================================

@rule("FIA-043", "query", branch="prompt")
def prompt_batch_limit(op, s):
    if s.B > MAX_BATCH:
        return f"expected B <= {MAX_BATCH}, got {s.B}"


@rule("FIA-044", "query", branch="incre")
def incre_batch_limit(op, s):
    if s.B > MAX_BATCH:
        return f"expected B <= {MAX_BATCH}, got {s.B}"


@rule("FIA-045", "num_heads", branch="prompt")
def prompt_heads_limit(op, s):
    if s.N > 256:
        return f"expected N <= 256, got {s.N}"


@rule("FIA-046", "num_heads", branch="incre")
def incre_heads_limit(op, s):
    if s.N > 256:
        return f"expected N <= 256, got {s.N}"


@rule("FIA-047", "query", branch="prompt")
def prompt_head_dim_limit(op, s):
    if s.D > 512:
        return f"expected head dim D <= 512, got {s.D}"


@rule("FIA-048", "query", branch="incre")
def incre_head_dim_limit(op, s):
    if s.D > 512:
        return f"expected head dim D <= 512, got {s.D}"


@rule("FIA-049", "query", branch="prompt")
def prompt_query_seq_limit(op, s):
    if s.Q_S > S_LIMIT:
        return f"expected Q_S <= {S_LIMIT} (20M), got {s.Q_S}"


@rule("FIA-050", "key", branch="prompt")
def prompt_kv_seq_limit(op, s):
    if not s.paged and s.KV_S > S_LIMIT:
        return f"expected KV_S <= {S_LIMIT} (20M), got {s.KV_S}"


@rule("FIA-051", "query", branch="prompt")
def prompt_head_dim_alignment(op, s):
    """A2: INT8 anywhere: D % 32; INT4 anywhere: D % 64; all FP16/BF16: D % 16 (L866)."""
    dtypes = {op.query.dtype, op.key[0].dtype, op.value[0].dtype, op.attention_out.dtype}
    if dtypes & set(INT4):
        align, why = 64, "INT4"
    elif "i8" in dtypes:
        align, why = 32, "INT8"
    else:
        align, why = 16, "FLOAT16/BFLOAT16"
    if s.D % align:
        return f"expected head dim D % {align} == 0 ({why} in query/key/value/out), got {s.D}"


@rule("FIA-053", "num_heads", branch="prompt", mla=False, severity="warning")
def prompt_hidden_advice(op, s):
    if op.input_layout in ("BSH", "BSND") and s.N * s.D >= 65535:
        return f"N*D < 65535 is recommended for {op.input_layout}, got {s.N}*{s.D} = {s.N * s.D}"


@rule("FIA-054", "key", branch="incre")
def incre_int4_alignment(op, s):
    if is_int4(op.key[0]) and s.D % 64:
        packed = " (INT32-packed: stored D % 8 == 0)" if op.key[0].dtype == "i32" else ""
        return f"an INT4 key needs head dim D % 64 == 0{packed}, got D = {s.D}"


# =============================================================================================
# 6.P softmax_lse (result types, used by every later configuration)
# =============================================================================================

@rule("FIA-214", "softmax_lse")
def lse_dtype(op, s):
    if op.softmax_lse_flag and op.softmax_lse.dtype != "f32":
        return f"expected element type f32 with softmax_lse_flag, got {op.softmax_lse.dtype}"


def _lse_shape(op, s):
    """[B, N, Q_S, 1]; [T, N, 1] for the TND layouts (seed L797)."""
    return (s.T, s.N, 1) if s.tnd else (s.B, s.N, s.Q_S, 1)


@rule("FIA-215", "softmax_lse")
def lse_shape(op, s):
    want = _lse_shape(op, s)
    if op.softmax_lse_flag and op.softmax_lse.shape != want:
        what = "[T, N, 1]" if s.tnd else "[B, N, Q_S, 1]"
        return f"expected {what} = {dims(want)} with softmax_lse_flag, got {op.softmax_lse}"


@rule("FIA-216", "softmax_lse")
def lse_placeholder(op, s):
    """softmax_lse_flag false: the seed returns "a {1} tensor of 0" (L798)."""
    if not op.softmax_lse_flag and (op.softmax_lse.shape != (1,) or op.softmax_lse.dtype != "f32"):
        return f"expected tensor<1xf32> without softmax_lse_flag, got {op.softmax_lse}"


# =============================================================================================
# 6.O shared prefix
# =============================================================================================

PREFIXES = ("key_shared_prefix", "value_shared_prefix")


@rule("FIA-198", PREFIXES)
def prefix_paired(op, s, name):
    return _paired(op, name)


@rule("FIA-201", PREFIXES)
def prefix_dtype(op, s, name):
    allowed = ("f16", "bf16", "i8") + (INT4 if s.incre else ())   # incre INT4: L948
    t = getattr(op, name)
    if t is not None and t.dtype not in allowed:
        return f"expected element type {one_of(allowed)}, got {t.dtype}"


@rule("FIA-199", PREFIXES)
def prefix_rank(op, s, name):
    t = getattr(op, name)
    if t is not None and t.rank != op.key[0].rank:
        return f"expected the rank of key ({op.key[0].rank}), got {t}"


@rule("FIA-200", PREFIXES)
def prefix_same_dtype(op, s, name):
    t = getattr(op, name)
    if t is not None and t.dtype != op.key[0].dtype:
        return f"expected the key's element type {op.key[0].dtype}, got {t.dtype}"


@rule("FIA-202", PREFIXES)
def prefix_batch_one(op, s, name):
    t = getattr(op, name)
    if t is not None and t.shape[0] != 1:
        return f"expected batch 1, got {t}"


def _prefix_heads(op, name, layouts):
    t = getattr(op, name)
    if t is None or op.input_layout not in layouts:
        return None
    want = head_axes(op.key[0], op.input_layout)
    if head_axes(t, op.input_layout) != want:
        what = "H" if op.input_layout == "BSH" else "N and D"
        return f"expected the {what} of key {dims(want)}, got {t}"


@rule("FIA-203", PREFIXES)
def prefix_heads(op, s, name):
    return _prefix_heads(op, name, ("BSND", "BNSD", "BNSD_BSND"))


@rule("FIA-204", PREFIXES)
def prefix_hidden(op, s, name):
    return _prefix_heads(op, name, ("BSH",))


@rule("FIA-205", "value_shared_prefix")
def prefix_same_length(op, s):
    kp, vp = op.key_shared_prefix, op.value_shared_prefix
    axis = seq_axis(op.input_layout)
    if kp is not None and vp.shape[axis] != kp.shape[axis]:
        return f"expected the S of key_shared_prefix ({kp.shape[axis]}), got {vp}"


@rule("FIA-209", "actual_shared_prefix_len", severity="warning")
def prefix_length_without_prefix(op, s):
    """A DERIVED item (not in the seed). The device reads actualSharedPrefixLen only when the
    prefix tensors exist (PromptFlashAttention tiling: isKVHasPrefix guards it) and CANN's ATK
    case list for aclnnFusedInferAttentionScoreV2 passes it without them in all 201 cases:
    accepted and ignored, with this warning. FIA-206/207/208 check it only with a prefix."""
    if op.actual_shared_prefix_len is not None and op.key_shared_prefix is None:
        return ("ignored without key_shared_prefix and value_shared_prefix (there is no shared "
                "prefix to shorten)")


def _prefix_length(op):
    """actual_shared_prefix_len when it has an effect (a prefix is given), else None."""
    return None if op.key_shared_prefix is None else op.actual_shared_prefix_len


@rule("FIA-206", "actual_shared_prefix_len")
def prefix_length_count(op, s):
    lengths = _prefix_length(op)
    if lengths is not None and len(lengths) != 1:
        return f"expected exactly 1 value, got {len(lengths)}"


@rule("FIA-208", "actual_shared_prefix_len")
def prefix_length_non_negative(op, s):
    lengths = _prefix_length(op)
    if lengths is not None and lengths[0] < 0:
        return f"expected a value >= 0, got {lengths[0]}"


@rule("FIA-207", "actual_shared_prefix_len")
def prefix_length_bound(op, s):
    if _prefix_length(op) is None:
        return None
    limit = op.key_shared_prefix.shape[seq_axis(op.input_layout)]
    if op.actual_shared_prefix_len[0] > limit:
        return f"expected a value <= the prefix S ({limit}), got {op.actual_shared_prefix_len[0]}"


@rule("FIA-210", "key_shared_prefix", branch="prompt")
def prefix_total_length(op, s):
    kp = op.key_shared_prefix
    if kp is None or s.paged:
        return None
    total = kp.shape[seq_axis(op.input_layout)] + s.KV_S
    if total > S_LIMIT:
        return f"prefix S + KV_S must be <= {S_LIMIT} (20M), got {total}"


@rule("FIA-211", "key_shared_prefix", branch="prompt")
def prefix_not_all_int8(op, s):
    all_int8 = op.query.dtype == op.key[0].dtype == op.value[0].dtype == "i8"
    if op.key_shared_prefix is not None and all_int8:
        return "a shared prefix is not supported with int8 query, key and value"


@rule("FIA-197", "key_shared_prefix")
def left_padding_no_prefix(op, s):
    if s.left_pad and op.key_shared_prefix is not None:
        return "a shared prefix is not supported with left padding"


# =============================================================================================
# 6.F pse_shift
# =============================================================================================

@rule("FIA-062", "pse_shift", branch="prompt")
def prompt_pse_f16(op, s):
    pse = op.pse_shift
    if pse is not None and pse.dtype == "f16" and op.query.dtype not in ("f16", "i8"):
        return f"an f16 pse_shift needs an f16 or i8 query, got {op.query.dtype}"


@rule("FIA-063", "pse_shift", branch="prompt")
def prompt_pse_bf16(op, s):
    if op.pse_shift is not None and op.pse_shift.dtype == "bf16" and op.query.dtype != "bf16":
        return f"a bf16 pse_shift needs a bf16 query, got {op.query.dtype}"


@rule("FIA-064", "pse_shift", branch="incre")
def incre_pse_dtype(op, s):
    if op.pse_shift is not None and op.pse_shift.dtype != op.query.dtype:
        return f"expected the query's element type {op.query.dtype}, got {op.pse_shift.dtype}"


@rule("FIA-065", "pse_shift")
def pse_batch(op, s):
    if op.pse_shift is not None and op.pse_shift.shape[0] not in (1, s.B):
        return f"expected dim 0 = 1 or B ({s.B}), got {op.pse_shift}"


@rule("FIA-066", "pse_shift")
def pse_heads(op, s):
    if op.pse_shift is not None and op.pse_shift.shape[1] != s.N:
        return f"expected dim 1 = N ({s.N}), got {op.pse_shift}"


@rule("FIA-067", "pse_shift", branch="prompt")
def prompt_pse_rows(op, s):
    if op.pse_shift is not None and op.pse_shift.shape[2] < s.Q_S:
        return f"expected dim 2 >= Q_S ({s.Q_S}), got {op.pse_shift}"


@rule("FIA-068", "pse_shift", branch="incre")
def incre_pse_rows(op, s):
    if op.pse_shift is not None and op.pse_shift.shape[2] != 1:
        return f"expected dim 2 = 1 (Q_S), got {op.pse_shift}"


@rule("FIA-069", "pse_shift")
def pse_columns(op, s):
    if op.pse_shift is None or s.paged:
        return None
    need = s.KV_S + (s.P if s.incre else 0)
    if op.pse_shift.shape[3] < need:
        what = "P + KV_S" if s.incre and s.P else "KV_S"
        return f"expected dim 3 >= {what} ({need}), got {op.pse_shift}"


@rule("FIA-070", "pse_shift")
def paged_pse_columns(op, s):
    if op.pse_shift is None or s.max_blocks is None:
        return None
    need = s.max_blocks * op.block_size
    if op.pse_shift.shape[3] < need:
        return f"expected dim 3 >= maxBlockNumPerSeq*block_size ({need}), got {op.pse_shift}"


@rule("FIA-212", "pse_shift", branch="prompt")
def prefix_pse_columns(op, s):
    if op.pse_shift is None or op.key_shared_prefix is None or s.paged:
        return None
    if op.pse_shift.shape[3] < s.P + s.KV_S:
        return (f"expected dim 3 >= P + KV_S ({s.P} + {s.KV_S}) with a shared prefix, "
                f"got {op.pse_shift}")


@rule("FIA-230", "pse_shift", severity="warning")
def pse_alignment_advice(op, s):
    pse = op.pse_shift
    if pse is not None and pse.shape[3] * 2 % 32:
        return f"padding dim 3 to 32 bytes (a multiple of 16) is recommended, got {pse}"


# =============================================================================================
# 6.G atten_mask, 6.H sparse_mode / pre_tokens / next_tokens
# =============================================================================================

@rule("FIA-TND-11", "sparse_mode", tnd=True)
def tnd_sparse_mode(op, s):
    """TND: 0 without a mask, 3 (rightDownCausal) or 4 (band) with the 2048x2048 mask; the MLA
    mode takes 0 and 3 (numerics.md) and band needs value D 64 or 128 (PFA TND tiling)."""
    allowed = (0, 3) if s.mla else (0, 3, 4)
    if op.sparse_mode not in allowed:
        return (f"expected {one_of(allowed)} with input_layout {op.input_layout!r}, got "
                f"{op.sparse_mode}")
    if op.sparse_mode == 4 and s.Dv not in (64, 128):
        return f"sparse_mode 4 with input_layout {op.input_layout!r} needs value D 64 or 128, got {s.Dv}"


@rule("FIA-TND-12", "atten_mask", tnd=True)
def tnd_no_mask_in_mode_0(op, s):
    if op.sparse_mode == 0 and op.atten_mask is not None:
        return (f"not supported with sparse_mode 0 and input_layout {op.input_layout!r} "
                f"(3 or 4 take the 2048x2048 mask)")


@rule("FIA-TND-13", "actual_seq_lengths", tnd=True)
def tnd_causal_lengths(op, s):
    """rightDownCausal per batch: a batch's query tokens are the last of its keys."""
    if op.sparse_mode != 3:
        return None
    for b, (q, kv) in enumerate(zip(s.asl, s.askv)):
        if q > kv:
            return (f"batch {b}: sparse_mode 3 needs at most as many query tokens as keys, got "
                    f"{q} > {kv}")


@rule("FIA-080", "sparse_mode", branch="prompt", tnd=False)
def prompt_sparse_mode(op, s):
    if op.sparse_mode not in range(5):
        return (f"expected 0..4 (5 prefix, 6 global, 7 dilated, 8 block_local are not "
                f"supported), got {op.sparse_mode}")


@rule("FIA-074", "atten_mask", branch="prompt", tnd=False)
def all_mask_needs_mask(op, s):
    if op.sparse_mode == 1 and op.atten_mask is None:
        return "required with sparse_mode 1 (allMask), got none"


@rule("FIA-075", "atten_mask")
def compressed_mask_present(op, s):
    if s.incre and not s.tnd:             # the prompt branch, and TND whatever its Q_S
        return None
    if op.sparse_mode in (2, 3, 4) and op.atten_mask is None:
        return f"required (the 2048x2048 mask) with sparse_mode {op.sparse_mode}, got none"


@rule("FIA-076", "atten_mask")
def compressed_mask_shape(op, s):
    if s.incre and not s.tnd:
        return None
    mask = op.atten_mask
    if op.sparse_mode not in (2, 3, 4) or mask is None:
        return None
    square = (COMPRESSED_MASK, COMPRESSED_MASK)
    if mask.shape not in (square, (1,) + square, (1, 1) + square):
        return (f"expected (2048, 2048), (1, 2048, 2048) or (1, 1, 2048, 2048) with "
                f"sparse_mode {op.sparse_mode}, got {mask}")


@rule("FIA-071", "atten_mask", branch="prompt", tnd=False)
def prompt_mask_shape(op, s):
    """(S1', S2'), (B|1, S1', S2') or (B|1, 1, S1', S2'), S1' >= Q_S, S2' >= KV_S (L682)."""
    mask = op.atten_mask
    if op.sparse_mode not in (0, 1) or mask is None:
        return None
    lead = mask.shape[:-2]
    forms_ok = (lead == () or lead[0] in (1, s.B) and lead[1:] in ((), (1,)))
    rows, cols = mask.shape[-2:]
    if not forms_ok or rows < s.Q_S or (not s.paged and cols < s.KV_S):
        kv = "KV_S" if s.paged else f"KV_S = {s.KV_S}"
        return (f"expected (S1', S2'), (B|1, S1', S2') or (B|1, 1, S1', S2') with "
                f"S1' >= Q_S = {s.Q_S}, S2' >= {kv} (B = {s.B}), got {mask}")


@rule("FIA-072", "atten_mask", branch="incre", tnd=False)
def incre_mask_shape(op, s):
    """(B, S2'), (B, 1, S2') or (B, 1, 1, S2'), S2' >= KV_S (L683)."""
    mask = op.atten_mask
    if mask is None:
        return None
    need = None if s.paged else s.KV_S + s.P
    forms_ok = mask.shape[0] == s.B and all(d == 1 for d in mask.shape[1:-1])
    if not forms_ok or (need is not None and mask.shape[-1] < need):
        bound = f" with S2' >= {'P + ' if s.P else ''}KV_S = {need}" if need is not None else ""
        return f"expected (B, S2'), (B, 1, S2') or (B, 1, 1, S2') with B = {s.B}{bound}, got {mask}"


@rule("FIA-078", "atten_mask", tnd=False)
def paged_mask_columns(op, s):
    mask = op.atten_mask
    full_mask = s.incre or op.sparse_mode in (0, 1)
    if mask is None or s.max_blocks is None or not full_mask:
        return None
    need = s.max_blocks * op.block_size
    if mask.shape[-1] < need:
        return f"expected last dim >= maxBlockNumPerSeq*block_size ({need}), got {mask}"


@rule("FIA-079", "atten_mask", branch="prompt", tnd=False)
def prefix_mask_columns(op, s):
    mask = op.atten_mask
    if mask is None or op.key_shared_prefix is None or op.sparse_mode not in (0, 1) or s.paged:
        return None
    if mask.shape[-1] < s.P + s.KV_S:
        return f"expected last dim >= P + KV_S ({s.P} + {s.KV_S}) with a shared prefix, got {mask}"


@rule("FIA-073", "atten_mask", kind=RUNTIME)
def mask_values_binary(op, s):
    mask = op.atten_mask
    if mask is None or mask.dtype == "i1" or mask.value is None:
        return None
    bad = np.asarray(mask.value)
    bad = bad[(bad != 0) & (bad != 1)]
    if bad.size:
        return f"an {mask.dtype} mask must hold only 0 and 1, got the value {bad.flat[0]}"


@rule("FIA-077", "atten_mask", kind=RUNTIME)
def compressed_mask_is_causal(op, s):
    if s.incre and not s.tnd:
        return None
    mask = op.atten_mask
    if op.sparse_mode not in (2, 3, 4) or mask is None or mask.value is None:
        return None
    template = np.triu(np.ones((COMPRESSED_MASK,) * 2, bool), 1)
    got = np.asarray(mask.value).reshape(COMPRESSED_MASK, COMPRESSED_MASK) != 0
    if not np.array_equal(got, template):
        r, c = np.argwhere(got != template)[0]
        return (f"the 2048x2048 mask must be lower triangular (1 exactly where column > row), "
                f"got {int(got[r, c])} at ({r}, {c})")


def _int8_out(op):
    return op.attention_out.dtype == "i8"


def _per_channel_int8_out(op):
    """INT8 output quantized per channel (quant_scale2 of more than one element, L906)."""
    return op.quant_scale2 is not None and op.quant_scale2.numel > 1 and _int8_out(op)


# Interception of INT8 output with quant_offset2 (L913-918): a band row would be empty.
@rule("FIA-084", "next_tokens", branch="prompt")
def intercept_mode0_next(op, s):
    if (op.quant_offset2 is not None and op.sparse_mode == 0 and op.atten_mask is not None
            and _int8_out(op) and op.next_tokens < 0):
        return (f"expected >= 0 with int8 output, quant_offset2, sparse_mode 0 and a mask, "
                f"got {op.next_tokens}")


@rule("FIA-085", "pre_tokens", branch="prompt")
def intercept_mode0_pre(op, s):
    if not (op.quant_offset2 is not None and op.sparse_mode == 0 and op.atten_mask is not None
            and _int8_out(op)):
        return None
    for b, (q, kv) in enumerate(zip(s.q_lengths, s.kv_valid)):
        if q - kv - s.P - op.pre_tokens > 0:
            return (f"batch {b}: actual_seq_lengths - actual_seq_lengths_kv - prefix - "
                    f"pre_tokens = {q} - {kv} - {s.P} - {op.pre_tokens} > 0 leaves rows empty "
                    f"(int8 output with quant_offset2, sparse_mode 0)")


@rule("FIA-086", "actual_seq_lengths_kv", branch="prompt")
def intercept_mode3(op, s):
    if not (op.quant_offset2 is not None and op.sparse_mode == 3 and _int8_out(op)):
        return None
    for b, (q, kv) in enumerate(zip(s.q_lengths, s.kv_valid)):
        if kv + s.P - q < 0:
            return (f"batch {b}: actual_seq_lengths_kv + prefix - actual_seq_lengths = "
                    f"{kv} + {s.P} - {q} < 0 leaves rows empty (int8 output with "
                    f"quant_offset2, sparse_mode 3)")


@rule("FIA-087", "pre_tokens", branch="prompt")
def intercept_mode4_pre(op, s):
    if (op.quant_offset2 is not None and op.sparse_mode == 4 and _int8_out(op)
            and op.pre_tokens < 0):
        return (f"expected >= 0 with int8 output, quant_offset2 and sparse_mode 4, "
                f"got {op.pre_tokens}")


@rule("FIA-088", "next_tokens", branch="prompt")
def intercept_mode4_next(op, s):
    if not (op.quant_offset2 is not None and op.sparse_mode == 4 and _int8_out(op)):
        return None
    for b, (q, kv) in enumerate(zip(s.q_lengths, s.kv_valid)):
        if op.next_tokens + kv + s.P - q < 0:
            return (f"batch {b}: next_tokens + actual_seq_lengths_kv + prefix - "
                    f"actual_seq_lengths = {op.next_tokens} + {kv} + {s.P} - {q} < 0 leaves "
                    f"rows empty (int8 output with quant_offset2, sparse_mode 4)")


@rule("FIA-083", ("pre_tokens", "next_tokens"), branch="prompt")
def int8_band_tokens(op, s, name):
    tokens = getattr(op, name)
    if op.sparse_mode == 4 and _int8_out(op) and tokens < 0:
        return f"expected >= 0 with int8 output and sparse_mode 4 (band), got {tokens}"


# =============================================================================================
# 6.I inner_precise, 6.R scale_value
# =============================================================================================

@rule("FIA-090", "inner_precise")
def inner_precise_range(op, s):
    if op.inner_precise not in range(4):
        return f"expected 0, 1, 2 or 3, got {op.inner_precise}"


@rule("FIA-234", "scale_value")
def scale_finite(op, s):
    if not math.isfinite(op.scale_value):
        return f"expected a finite value, got {op.scale_value}"


# =============================================================================================
# 6.J INT8 full quant, post-quant, output dtype
# =============================================================================================

def _per_tensor_scale(t, allowed):
    if t.dtype not in allowed:
        return f"expected element type {one_of(allowed)}, got {t.dtype}"
    if t.rank != 1 or t.numel != 1:
        return f"expected one element of rank 1 (per-tensor), got {t}"


@rule("FIA-101", "dequant_scale1")
def dequant_scale1_kind(op, s):
    if op.dequant_scale1 is not None:
        return _per_tensor_scale(op.dequant_scale1, ("ui64", "f32"))


@rule("FIA-102", "quant_scale1")
def quant_scale1_kind(op, s):
    if op.quant_scale1 is not None:
        return _per_tensor_scale(op.quant_scale1, ("f32",))


@rule("FIA-103", "dequant_scale2")
def dequant_scale2_kind(op, s):
    if op.dequant_scale2 is not None:
        return _per_tensor_scale(op.dequant_scale2, ("ui64", "f32"))


@rule("FIA-104", "quant_scale2")
def quant_scale2_dtype(op, s):
    if op.quant_scale2 is not None and op.quant_scale2.dtype not in ("f32", "bf16"):
        return f"expected element type f32 or bf16, got {op.quant_scale2.dtype}"


@rule("FIA-105", "quant_scale2")
def quant_scale2_bf16(op, s):
    if op.quant_scale2 is not None and op.quant_scale2.dtype == "bf16" and op.query.dtype != "bf16":
        return f"a bf16 quant_scale2 needs a bf16 query, got {op.query.dtype}"


@rule("FIA-106", "quant_offset2")
def quant_offset2_needs_scale(op, s):
    if op.quant_offset2 is not None and op.quant_scale2 is None:
        return "needs quant_scale2, got none"


@rule("FIA-107", "quant_offset2")
def quant_offset2_like_scale(op, s):
    qo, qs = op.quant_offset2, op.quant_scale2
    if qo is not None and (qo.dtype != qs.dtype or qo.shape != qs.shape):
        return f"expected the type of quant_scale2 {qs}, got {qo}"


@rule("FIA-108", "quant_scale2")
def quant_scale2_elements(op, s):
    qs = op.quant_scale2
    if qs is not None and qs.numel not in (1, s.N * s.Dv):
        return (f"expected 1 element (per-tensor) or N*D = {s.N * s.Dv} (per-channel), "
                f"got {qs.numel} in {qs}")


@rule("FIA-113", "query", branch="prompt", mla=False)
def paged_no_int8_query(op, s):
    if s.paged and op.query.dtype == "i8":
        return "an i8 query (full quant) is not supported with page attention"


@rule("FIA-091", ("dequant_scale1", "quant_scale1", "dequant_scale2", "quant_scale2"), mla=False)
def full_quant_int8_out(op, s, name):
    if op.query.dtype == "i8" and getattr(op, name) is None and _int8_out(op):
        return "required for an int8 query with int8 output (full quant), got none"


@rule("FIA-092", ("dequant_scale1", "quant_scale1", "dequant_scale2"), mla=False)
def full_quant_f16_out(op, s, name):
    if op.query.dtype == "i8" and getattr(op, name) is None and op.attention_out.dtype == "f16":
        return "required for an int8 query with f16 output (full quant), got none"


@rule("FIA-093", "quant_scale2", mla=False)
def full_quant_f16_out_no_post_quant(op, s):
    if op.query.dtype == "i8" and op.quant_scale2 is not None and op.attention_out.dtype == "f16":
        return "not allowed for an int8 query with f16 output: the output is not quantized"


@rule("FIA-094", "quant_scale2")
def post_quant_needs_scale(op, s):
    if op.query.dtype in FLOATS and _int8_out(op) and op.quant_scale2 is None:
        return f"required for int8 output of a {op.query.dtype} query, got none"


@rule("FIA-095", ("dequant_scale1", "quant_scale1", "dequant_scale2"))
def post_quant_no_full_quant(op, s, name):
    if op.query.dtype in FLOATS and getattr(op, name) is not None and _int8_out(op):
        return f"not allowed for a {op.query.dtype} query with int8 output (post-quant only)"


@rule("FIA-096", QUANT_OPERANDS)
def float_no_quant(op, s, name):
    if getattr(op, name) is None or op.query.dtype not in FLOATS:
        return None
    if op.attention_out.dtype in FLOATS:
        return (f"not allowed: a {op.query.dtype} query with {op.attention_out.dtype} output "
                f"uses no quantization")


@rule("FIA-097", "attention_out", mla=False)
def int8_query_out(op, s):
    if op.query.dtype == "i8" and op.attention_out.dtype not in ("i8", "f16"):
        return f"expected i8 or f16 for an i8 query, got {op.attention_out.dtype}"


@rule("FIA-098", "attention_out")
def float_query_out(op, s):
    q = op.query.dtype
    if q in FLOATS and op.attention_out.dtype not in (q, "i8"):
        return f"expected {q} or i8 for a {q} query, got {op.attention_out.dtype}"


@rule("FIA-099", "key")
def query_key_dtypes(op, s):
    """An i8 query takes an i8 key; a float query a key of its own dtype, or an integer one
    that antiquant dequantizes (register S41: no mixed f16/bf16, tables 4.2 P12, 4.3 I12)."""
    q, k = op.query.dtype, op.key[0].dtype
    if q == "i8" and k != "i8":
        return f"expected i8 for an i8 query, got {k}"
    if q in FLOATS and k in FLOATS and k != q:
        return f"expected the query's element type {q} (or an integer key with antiquant), got {k}"


@rule("FIA-100", "query", branch="incre", mla=False)
def incre_not_all_int8(op, s):
    if op.query.dtype == op.key[0].dtype == op.value[0].dtype == "i8":
        return "int8 query, key and value together are not supported with Q_S = 1"


@rule("FIA-109", "quant_scale2", branch="prompt")
def per_channel_no_left_padding(op, s):
    if _per_channel_int8_out(op) and s.left_pad:
        return "per-channel int8 output quantization does not support left padding"


@rule("FIA-110", "softmax_lse_flag", branch="prompt")
def per_channel_no_lse(op, s):
    if _per_channel_int8_out(op) and op.softmax_lse_flag:
        return "must be false with per-channel int8 output quantization (no Ring Attention)"


@rule("FIA-112", "quant_scale2")
def int4_no_post_quant(op, s):
    """Named after the parameter the caller passes: quant_scale2 asks for the int8 output
    (FIA-094, before this rule, requires it for any int8 output of a float query)."""
    if is_int4(op.key[0]) and _int8_out(op):
        return (f"int8 output (post-quant) is not supported with an {op.key[0].dtype} (INT4) "
                f"key")


# =============================================================================================
# 6.N left padding with an INT4 key (before the antiquant rules, which reject INT4 in prompt)
# =============================================================================================

@rule("FIA-188", "query_padding_size", branch="prompt")
def prompt_query_padding_int4(op, s):
    if s.q_left_pad and op.query.dtype in FLOATS and is_int4(op.key[0]):
        return "query left padding is not supported with a float query and an INT4 key"


@rule("FIA-189", "kv_padding_size", branch="prompt")
def prompt_kv_padding_int4(op, s):
    if s.kv_left_pad and op.query.dtype in FLOATS and is_int4(op.key[0]):
        return "kv left padding is not supported with a float query and an INT4 key"


@rule("FIA-194", "kv_padding_size", branch="incre")
def incre_kv_padding_int4(op, s):
    """Active kv left padding only: with page attention or a tensor list it falls back (L969)."""
    active = s.kv_left_pad and not s.paged and not s.is_list
    if active and op.query.dtype in FLOATS and is_int4(op.key[0]):
        return "kv left padding is not supported with a float query and an INT4 key"


# =============================================================================================
# 6.L / 6.K which antiquant parameters are present, and for which key
# =============================================================================================

@rule("FIA-128", ("key_antiquant_scale", "value_antiquant_scale"), mla=False)
def separate_scales_paired(op, s, name):
    return _paired(op, name)


@rule("FIA-129", ("key_antiquant_offset", "value_antiquant_offset"), mla=False)
def separate_offsets_paired(op, s, name):
    return _paired(op, name)


@rule("FIA-130", "key_antiquant_offset", mla=False)
def separate_offset_needs_scale(op, s):
    if op.key_antiquant_offset is not None and op.key_antiquant_scale is None:
        return "needs key_antiquant_scale, got none"


@rule("FIA-131", "key_antiquant_offset", mla=False)
def key_offset_like_scale(op, s):
    off, sc = op.key_antiquant_offset, op.key_antiquant_scale
    if off is not None and (off.shape != sc.shape or off.dtype != sc.dtype):
        return f"expected the type of key_antiquant_scale {sc}, got {off}"


@rule("FIA-132", "value_antiquant_offset", mla=False)
def value_offset_like_scale(op, s):
    off, sc = op.value_antiquant_offset, op.value_antiquant_scale
    if off is not None and (off.shape != sc.shape or off.dtype != sc.dtype):
        return f"expected the type of value_antiquant_scale {sc}, got {off}"


@rule("FIA-133", ANTIQUANT_OPERANDS[2:], mla=False)
def separate_dtypes(op, s, name):
    t = getattr(op, name)
    if t is not None and t.dtype not in SCALE_TYPES:
        return f"expected element type f16, bf16 or f32, got {t.dtype}"


@rule("FIA-134", "key_antiquant_scale", mla=False)
def separate_integer_key(op, s):
    if s.separate and op.key[0].dtype not in ("i8",) + INT4:
        return f"separate antiquant parameters need an i8 or INT4 key, got {op.key[0].dtype}"


@rule("FIA-127", "key", mla=False)
def float_key_no_antiquant(op, s):
    if op.key[0].dtype in FLOATS and present(op, *ANTIQUANT_OPERANDS):
        return (f"a {op.key[0].dtype} key takes no antiquant parameters, got "
                f"{', '.join(present(op, *ANTIQUANT_OPERANDS))}")


@rule("FIA-156", "key_antiquant_scale", branch="incre", mla=False)
def incre_int4_separate(op, s):
    if is_int4(op.key[0]) and not s.separate:
        return (f"an INT4 ({op.key[0].dtype}) key needs the separate key/value antiquant "
                f"parameters, got none")


# =============================================================================================
# 6.K combined antiquant (antiquant_scale / antiquant_offset / antiquant_mode)
# =============================================================================================

@rule("FIA-121", "antiquant_mode", branch="incre")
def antiquant_mode_range(op, s):
    if op.antiquant_mode not in (0, 1):
        return f"expected 0 (per-channel/per-tensor) or 1 (per-token), got {op.antiquant_mode}"


@rule("FIA-114", "antiquant_scale")
def combined_int8_key(op, s):
    if s.combined and op.key[0].dtype != "i8":
        return f"combined antiquant parameters apply to an i8 key only, got {op.key[0].dtype}"


@rule("FIA-115", "antiquant_offset")
def combined_offset_needs_scale(op, s):
    if s.combined and op.antiquant_offset is not None and op.antiquant_scale is None:
        return "needs antiquant_scale, got none"


@rule("FIA-126", "antiquant_scale")
def integer_key_needs_antiquant(op, s):
    """An INT8 (Rec. S49: or INT4) key with a float query is dequantized by some parameters."""
    k = op.key[0].dtype
    if k in ("i8",) + INT4 and op.query.dtype in FLOATS and not (
            op.antiquant_scale is not None or s.separate and op.value_antiquant_scale is not None):
        return (f"an {k} key with a {op.query.dtype} query needs antiquant_scale or "
                f"key_antiquant_scale and value_antiquant_scale, got none")


@rule("FIA-116", "antiquant_offset")
def combined_offset_like_scale(op, s):
    off, sc = op.antiquant_offset, op.antiquant_scale
    if s.combined and off is not None and (off.shape != sc.shape or off.dtype != sc.dtype):
        return f"expected the type of antiquant_scale {sc}, got {off}"


@rule("FIA-122", "antiquant_scale", branch="incre")
def incre_combined_dtype(op, s):
    if s.combined and op.antiquant_scale.dtype not in SCALE_TYPES:
        return f"expected element type f16, bf16 or f32, got {op.antiquant_scale.dtype}"


@rule("FIA-123", "antiquant_scale", branch="prompt")
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


@rule("FIA-117", "antiquant_scale")
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


@rule("FIA-118", "antiquant_scale", branch="incre")
def incre_combined_channel(op, s):
    if not s.combined or _combined_kind(op, s) not in ("per-channel", "per-tensor"):
        return None
    if op.antiquant_scale.dtype != op.query.dtype or op.antiquant_mode != 0:
        return (f"a per-channel/per-tensor scale has the query's element type {op.query.dtype} "
                f"and antiquant_mode 0, got {op.antiquant_scale.dtype} and {op.antiquant_mode}")


@rule("FIA-119", "antiquant_scale", branch="incre")
def incre_combined_token(op, s):
    if not s.combined or _combined_kind(op, s) != "per-token":
        return None
    if op.antiquant_scale.dtype != "f32" or op.antiquant_mode != 1:
        return (f"a per-token scale (2, B, S') is f32 with antiquant_mode 1, got "
                f"{op.antiquant_scale.dtype} and {op.antiquant_mode}")


def _token_length_need(op, s):
    return s.max_blocks * op.block_size if s.paged else s.KV_S


@rule("FIA-120", "antiquant_scale", branch="incre")
def incre_combined_token_length(op, s):
    if not s.combined or _combined_kind(op, s) != "per-token":
        return None
    need = _token_length_need(op, s)
    if op.antiquant_scale.shape[2] < need:
        what = "maxBlockNumPerSeq*block_size" if s.paged else "KV_S"
        return f"expected S' >= {what} ({need}), got {op.antiquant_scale}"


@rule("FIA-124", "antiquant_scale", branch="prompt")
def prompt_combined_types(op, s):
    if s.combined and (op.query.dtype != "f16" or op.key[0].dtype != "i8"):
        return (f"combined antiquant with Q_S > 1 dequantizes an i8 key for an f16 query, got "
                f"{op.query.dtype} query and {op.key[0].dtype} key")


@rule("FIA-229", "antiquant_scale", branch="prompt", kind=RUNTIME, severity="warning")
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


@rule("FIA-160", MODES, mla=False)
def no_token_group_mode(op, s, name):
    if s.separate and getattr(op, name) == 6:
        return "6 (per-token-group) is not supported"


@rule("FIA-135", "value_antiquant_mode", branch="incre", mla=False)
def incre_modes_agree(op, s):
    km, vm = op.key_antiquant_mode, op.value_antiquant_mode
    if s.separate and km != vm and (km, vm) != (0, 1):
        return f"expected key_antiquant_mode ({km}), or 1 with key mode 0, got {vm}"


@rule("FIA-136", "value_antiquant_mode", branch="prompt", mla=False)
def prompt_modes_equal(op, s):
    if s.separate and op.key_antiquant_mode != op.value_antiquant_mode:
        return (f"expected key_antiquant_mode ({op.key_antiquant_mode}) with Q_S > 1, "
                f"got {op.value_antiquant_mode}")


@rule("FIA-137", MODES, branch="prompt", mla=False)
def prompt_mode_range(op, s, name):
    if s.separate and getattr(op, name) not in (0, 1):
        return f"expected 0 (per-channel) or 1 (per-token) with Q_S > 1, got {getattr(op, name)}"


@rule("FIA-138", MODES, branch="incre", mla=False)
def incre_mode_range(op, s, name):
    if s.separate and getattr(op, name) not in range(6):
        return f"expected 0..5 with Q_S = 1, got {getattr(op, name)}"


def _same_shape_as_key(op, name):
    k, v = getattr(op, _partner(name)), getattr(op, name)
    if k is not None and v is not None and k.shape != v.shape:
        return f"expected the shape of {_partner(name)} {dims(k.shape)}, got {v}"


@rule("FIA-140", ("value_antiquant_scale", "value_antiquant_offset"), branch="prompt", mla=False)
def prompt_separate_same_shapes(op, s, name):
    return _same_shape_as_key(op, name)


@rule("FIA-141", ("value_antiquant_scale", "value_antiquant_offset"), branch="incre", mla=False)
def incre_separate_same_shapes(op, s, name):
    if (op.key_antiquant_mode, op.value_antiquant_mode) != (0, 1):
        return _same_shape_as_key(op, name)


def _channel_shapes(s, lead):
    """Per-channel scale shapes: prompt (KV_N, D), (KV_N, 1, D), (H); incre with a leading 1."""
    forms = [(s.KV_N, s.D), (s.KV_N, 1, s.D), (s.H_kv,)]
    return [lead + f for f in forms]


@rule("FIA-144", "query", branch="prompt", mla=False)
def prompt_separate_short_query(op, s):
    if s.separate and s.Q_S > 16:
        return f"separate key/value antiquant needs Q_S <= 16, got {s.Q_S}"


@rule("FIA-145", "key_antiquant_scale", branch="prompt", mla=False)
def prompt_separate_types(op, s):
    if not s.separate:
        return None
    types = (op.query.dtype, op.key[0].dtype, op.value[0].dtype, op.attention_out.dtype)
    if types != ("bf16", "i8", "i8", "bf16"):
        return (f"separate antiquant with Q_S > 1 needs a bf16 query, i8 key/value and bf16 "
                f"output, got {', '.join(types)}")


@rule("FIA-146", "key_antiquant_scale", branch="prompt", mla=False)
def prompt_separate_exclusions(op, s):
    if not s.separate:
        return None
    for feature, on in (("page attention", s.paged), ("left padding", s.left_pad),
                        ("a tensor list", s.is_list)):
        if on:
            return f"separate key/value antiquant with Q_S > 1 does not support {feature}"


@rule("FIA-142", SEPARATE_SCALES, branch="prompt", mla=False)
def prompt_separate_token(op, s, name):
    t = getattr(op, name)
    if not s.separate or op.key_antiquant_mode != 1:
        return None
    if t.dtype != "f32" or t.rank != 2 or t.shape[0] != s.B or t.shape[1] < s.KV_S:
        return f"per-token (mode 1) expects f32 (B = {s.B}, S' >= KV_S = {s.KV_S}), got {t}"


@rule("FIA-143", SEPARATE_SCALES, branch="prompt", mla=False)
def prompt_separate_channel(op, s, name):
    t = getattr(op, name)
    if not s.separate or op.key_antiquant_mode != 0:
        return None
    forms = _channel_shapes(s, ())
    if t.dtype != "bf16" or t.shape not in forms:
        return f"per-channel (mode 0) expects bf16 {', '.join(map(dims, forms))}, got {t}"


@rule("FIA-157", "key_antiquant_mode", branch="incre", mla=False)
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


@rule("FIA-147", SEPARATE_SCALES, branch="incre", mla=False)
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


@rule("FIA-148", SEPARATE_SCALES, branch="incre", mla=False)
def incre_per_channel(op, s, name):
    t = getattr(op, name)
    if _incre_mode(op, s, name) == 0 and t.shape != (1,):
        return _channel_check(op, s, t)


def _token_check(op, s, t):
    if t.dtype != "f32" or t.rank != 3 or t.shape[:2] != (1, s.B):
        return f"per-token expects f32 (1, B = {s.B}, S'), got {t}"


@rule("FIA-149", SEPARATE_SCALES, branch="incre", mla=False)
def incre_per_token(op, s, name):
    if _incre_mode(op, s, name) == 1:
        return _token_check(op, s, getattr(op, name))


@rule("FIA-150", SEPARATE_SCALES, branch="incre", mla=False)
def incre_per_tensor_head(op, s, name):
    t = getattr(op, name)
    if _incre_mode(op, s, name) != 2:
        return None
    if t.shape != (s.KV_N,) or t.dtype != op.query.dtype or op.key[0].dtype != "i8":
        return (f"per-tensor+per-head (mode 2) expects {op.query.dtype} (KV_N = {s.KV_N}) and "
                f"an i8 key, got {t} with an {op.key[0].dtype} key")


@rule("FIA-151", SEPARATE_SCALES, branch="incre", mla=False)
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


@rule("FIA-152", SEPARATE_SCALES, branch="incre", mla=False)
def incre_paged_token(op, s, name):
    if _incre_mode(op, s, name) == 4:
        want = (op.key[0].shape[0], op.block_size)
        return _paged_scale_check(op, s, getattr(op, name), 4, want, "(block_num, block_size)")


@rule("FIA-153", SEPARATE_SCALES, branch="incre", mla=False)
def incre_paged_token_head(op, s, name):
    if _incre_mode(op, s, name) == 5:
        want = (op.key[0].shape[0], s.KV_N, op.block_size)
        return _paged_scale_check(op, s, getattr(op, name), 5, want,
                                  "(block_num, KV_N, block_size)")


@rule("FIA-154", SEPARATE_SCALES, branch="incre", mla=False)
def incre_key_channel_value_token(op, s, name):
    """key per-channel (mode 0) with value per-token (mode 1)."""
    if not s.separate or (op.key_antiquant_mode, op.value_antiquant_mode) != (0, 1):
        return None
    check = _channel_check if name.startswith("key") else _token_check
    return check(op, s, getattr(op, name))


@rule("FIA-155", "query", branch="incre", mla=False)
def incre_key_channel_value_token_f16(op, s):
    if not s.separate or (op.key_antiquant_mode, op.value_antiquant_mode) != (0, 1):
        return None
    if op.key[0].dtype == "i8" and (op.query.dtype, op.attention_out.dtype) != ("f16", "f16"):
        return (f"key mode 0 with value mode 1 on an i8 key needs an f16 query and f16 output, "
                f"got {op.query.dtype} and {op.attention_out.dtype}")


@rule("FIA-158", SEPARATE_SCALES, branch="incre", mla=False)
def incre_token_length(op, s, name):
    """Per-token scales (mode 1, mode 3, the value side of key 0 + value 1) cover KV."""
    if not s.separate:
        return None
    mode = op.key_antiquant_mode if name.startswith("key") else op.value_antiquant_mode
    t, need = getattr(op, name), _token_length_need(op, s)
    if mode in (1, 3) and t.shape[2] < need:
        what = "maxBlockNumPerSeq*block_size" if s.paged else "KV_S"
        return f"expected S' >= {what} ({need}), got {t}"


# =============================================================================================
# 6.M page attention: INT4 keys, block ids, advice
# =============================================================================================

@rule("FIA-179", "key", branch="incre")
def incre_paged_no_int4(op, s):
    if s.paged and op.query.dtype in FLOATS and is_int4(op.key[0]):
        return (f"page attention does not support an INT4 ({op.key[0].dtype}) key with a "
                f"{op.query.dtype} query")


@rule("FIA-180", "block_table", kind=RUNTIME)
def block_ids_in_range(op, s):
    if not s.paged or op.block_table.value is None:
        return None
    table, blocks = np.asarray(op.block_table.value), op.key[0].shape[0]
    for b, n in enumerate(s.askv):
        used = table[b, :-(-n // op.block_size)]
        bad = used[(used < 0) | (used >= blocks)]
        if bad.size:
            return f"batch {b}: block id {int(bad[0])} is outside the cache's {blocks} blocks"


@rule("FIA-231", "key", branch="incre", mla=False, tnd=False, severity="warning")
def incre_paged_form_advice(op, s):
    if s.paged and s.cache_form == "BnBsH":
        return "the BnNBsD cache (block_num, KV_N, block_size, D) is usually faster than BnBsH"


# =============================================================================================
# 6.N left padding
# =============================================================================================

def _padding_kind(t):
    if t is not None and (t.dtype != "i64" or t.shape != (1,)):
        return f"expected tensor<1xi64>, got {t}"


@rule("FIA-183", "query_padding_size")
def query_padding_kind(op, s):
    return _padding_kind(op.query_padding_size)


@rule("FIA-184", "kv_padding_size")
def kv_padding_kind(op, s):
    return _padding_kind(op.kv_padding_size)


@rule("FIA-190", "query_padding_size", branch="prompt", kind=RUNTIME)
def query_padding_in_range(op, s):
    if not s.q_left_pad or op.query_padding_size.value is None:
        return None
    pad = max(int(np.asarray(op.query_padding_size.value).reshape(-1)[0]), 0)
    for b, n in enumerate(s.asl):
        if s.Q_S - pad - n < 0:
            return (f"batch {b}: the query start Q_S - padding - actual_seq_lengths = "
                    f"{s.Q_S} - {pad} - {n} is below 0")


@rule("FIA-191", "kv_padding_size", branch="prompt", kind=RUNTIME)
def kv_padding_in_range(op, s):
    if not s.kv_left_pad or op.kv_padding_size.value is None:
        return None
    pad = max(int(np.asarray(op.kv_padding_size.value).reshape(-1)[0]), 0)
    for b, (n, limit) in enumerate(zip(s.askv, s.kv_lengths)):
        if limit - pad - n < 0:
            return (f"batch {b}: the key/value start KV_S - padding - actual_seq_lengths_kv = "
                    f"{limit} - {pad} - {n} is below 0")


# =============================================================================================
# 6.R advisories
# =============================================================================================

@rule("FIA-232", "query", branch="prompt", severity="warning")
def timeout_advice(op, s):
    if s.paged:
        return None
    work = s.B * s.N * s.Q_S * s.KV_S * s.D
    if work >= TIMEOUT_WORK:
        return (f"B*N*Q_S*KV_S*D = {work} is as large as the seed's AI Core timeout cases "
                f"(timeout or trap error); splitting S is recommended")


# =============================================================================================
# checklist items that are not checks
# =============================================================================================

waive("FIA-004", "attention_out is the op's first result: it always exists (an IR result, the "
      "eager call's return value); a null output pointer cannot be expressed")
waive("FIA-016", "semantic: an INT32 key/value packs 8 INT4 values, so the logical last dim is 8x "
      "the stored one; every head-dim rule uses it through logical_last() (see FIA-054)")
waive("FIA-052", "the lenient B <= 128 reading of L806 is replaced by the strict FIA-051 "
      "(register S20): with D aligned as FIA-051 demands, L806's condition never holds")
waive("FIA-058", "IGNORED: actual_seq_lengths has no effect when Q_S == 1, so no value is "
      "rejected (FIA-055/056/057 run in the prompt branch only)")
waive("FIA-081", "IGNORED: sparse_mode has no effect when Q_S == 1 without rope inputs (L727); "
      "in MLA mode FIA-MLA-13 requires 0")
waive("FIA-082", "IGNORED: pre_tokens and next_tokens have no effect when Q_S == 1")
waive("FIA-089", "no condition: with int8 output and quant_offset2, sparse_mode 1 and 2 are never "
      "intercepted (L916)")
waive("FIA-125", "IGNORED: antiquant_mode has no effect when Q_S > 1 (FIA-121 is incre-only)")
waive("FIA-139", "IGNORED: without key/value_antiquant_scale the antiquant modes are not read "
      "(every 6.L rule is guarded by the presence of key_antiquant_scale)")
waive("FIA-159", "semantic: with separate key/value antiquant scales the combined "
      "antiquant_scale/offset are ignored (symbol `combined` guards FIA-114..124)")
waive("FIA-111", "implied by FIA-051 (strict variant): in the prompt branch an int8 output "
      "already requires D % 32 == 0, whatever quant_scale2's granularity")
waive("FIA-168", "implied by FIA-035 (key and value lists have one length) and FIA-040 (a tensor "
      "list excludes page attention), which run first")
waive("FIA-181", "IGNORED: block_size has no effect without block_table (FIA-166/167 need it)")
waive("FIA-182", "semantic: under page attention the cache form comes from the key's rank "
      "(symbol `cache_form`), not from input_layout")
waive("FIA-185", "IGNORED: query_padding_size has no effect when Q_S == 1")
waive("FIA-186", "FALLBACK: query_padding_size without actual_seq_lengths means right padding "
      "(symbol `q_left_pad`); nothing is rejected")
waive("FIA-187", "FALLBACK: kv_padding_size without actual_seq_lengths_kv means right padding "
      "(symbol `kv_left_pad`); nothing is rejected")
waive("FIA-192", "semantic: a negative padding size counts as 0 (the kernel, and FIA-190/191)")
waive("FIA-193", "FALLBACK: incre kv left padding with page attention or a tensor list means "
      "right padding (the kernel); nothing is rejected")
waive("FIA-195", "semantic: an incre kv left-padding window below 0 gives a zero output row "
      "(the kernel)")
waive("FIA-196", "UB without a checkable condition: whether a mask hides the padding is the "
      "caller's intent, not a property of the values")
waive("FIA-213", "softmax_lse is the op's second result: it always exists (see FIA-214/215)")
waive("FIA-217", "semantic: an empty query returns at once (the kernel); the op's types are still "
      "verified")
waive("FIA-218", "semantic: empty key/value (S2 = 0) give a zero output (the kernel)")
waive("FIA-219", "semantic: sparse_mode 0 without a mask or with left padding ignores "
      "pre/next_tokens (the kernel)")
waive("FIA-220", "semantic: sparse_mode 1/2/3 set pre/next_tokens internally (the kernel)")
waive("FIA-221", "semantic: an f16 query with pse_shift runs in high precision; the CPU "
      "interpreter always computes in float32")
waive("FIA-222", "semantic: invalid-row correction; the interpreter zeroes rows without an "
      "unmasked key for every inner_precise (register S13/S15)")
waive("FIA-223", "semantic: a null antiquant offset means symmetric dequantization (the kernel)")
waive("FIA-224", "semantic: a null quant_offset2 means offset 0 (the kernel)")
waive("FIA-225", "semantic: num_key_value_heads 0 means num_heads (symbol KV_N)")
waive("FIA-226", "semantic: null actual lengths mean the shape's S; length 1 broadcasts; the "
      "first B values are used (symbols asl/askv)")
waive("FIA-227", "semantic: a null actual_shared_prefix_len means the whole prefix (symbol P)")
waive("FIA-228", "semantic: the softmax_lse formula (the kernel)")
waive("FIA-233", "advisory about CANN and PyTorch package versions: no IR or eager condition")


# =============================================================================================
# the op
# =============================================================================================

def infer_results(op, s):
    """attention_out: the query's shape with the value's D; int8 with quant_scale2, float16 for
    an int8 query, else the query's dtype (S40/S41). softmax_lse: (B, N, Q_S, 1) ((T, N, 1) for
    TND) f32 with the flag, else tensor<1xf32>."""
    if op.quant_scale2 is not None:
        dtype = "i8"
    elif s.mla_quant:
        dtype = "bf16"
    else:
        dtype = "f16" if op.query.dtype == "i8" else op.query.dtype
    lse = _lse_shape(op, s) if op.softmax_lse_flag else (1,)
    return {"attention_out": TensorInfo(_out_shape(op, s), dtype),
            "softmax_lse": TensorInfo(lse, "f32")}


FusedInferAttentionScore = MLA.add(OpDef(
    OP_NAME,
    operands=[operand("query"), variadic("key"), variadic("value"),
              *[optional(name) for name in OPTIONAL_TENSORS],
              optional("query_rope"), optional("key_rope"), optional("dequant_scale_query")],
    attributes=[
        # The tensor forms (operands actual_seq_qlen / actual_seq_kvlen, after key_rope) carry
        # the same lists as host i64 tensors read at call time: a compiled decode step takes
        # each step's lengths without recompiling. torch_npu 2.14 spells the lists so.
        i64_array("actual_seq_lengths", operand="actual_seq_qlen"),
        i64_array("actual_seq_lengths_kv", operand="actual_seq_kvlen"),
        i64_array("actual_shared_prefix_len"),
        i64("num_heads", default=1), f64("scale_value", default=1.0),
        i64("pre_tokens", default=2147483647), i64("next_tokens", default=2147483647),
        string("input_layout", default="BSH"), i64("num_key_value_heads", default=0),
        i64("sparse_mode", default=0), i64("inner_precise", default=0),
        i64("block_size", default=0), i64("antiquant_mode", default=0),
        i1("softmax_lse_flag", default=False), i64("key_antiquant_mode", default=0),
        i64("value_antiquant_mode", default=0), i64("query_quant_mode", default=0)],
    results=["attention_out", "softmax_lse"],
    rules=rules,
    symbols=SYMBOLS,
    infer_results=infer_results,
    profiles=(V2, PT),
    summary="FlashAttention for inference (aclnnFusedInferAttentionScoreV2), with the MLA mode",
))

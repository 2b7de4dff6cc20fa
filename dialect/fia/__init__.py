"""`mla.fused_infer_attention_score`: aclnnFusedInferAttentionScoreV2, plus its MLA mode.

    attention_out = softmax((Q.K^T [* dequant_scale1] + pse_shift) * scale_value, masked) . V

Branches (seed L11): Q_S == 1 is the incre (IncreFlashAttention) branch, every other Q_S the
prompt (PromptFlashAttention) branch. MLA mode (query_rope / key_rope given; the later FIA API's
extension, docs/numerics.md "FusedInferAttentionScore in MLA mode") adds q_rope . k_rope^T to the scores.

Operands, in aclnn V2 order (docs/api.md, the eager ops): query, key (variadic: the aclTensorList), value
(variadic), the 18 optional tensors, then query_rope, key_rope. The host arrays
actual_seq_lengths, actual_seq_lengths_kv and actual_shared_prefix_len are optional
`array<i64>` attributes, so their "(H)" rules are static. Results: attention_out, softmax_lse.

Rule IDs. The constraint catalog (docs/rules.md lists every rule generated from here) numbers its checklist
1..234 globally across 6.A-6.R; checklist item n is `FIA-<n>` with three digits (FIA-001 ..
FIA-234). Items that are not checks (IGNORED parameters, FALLBACKs, SEMANTIC statements the
kernel implements, pure advisories, a null output pointer SSA cannot express) are `waive`d in
waivers.py with their reason. The constraints of the MLA mode are `FIA-MLA-<n>`.
`FIA-STATIC` (not from the checklist) requires static shapes: the seed's rules are about sizes.

The rules live in one module per topic (operands, layout, tnd, kv_list, lengths, paging, mla,
limits, prefix, pse_mask, quant, antiquant, padding), each in sections (FiaRules); `rules`
below lists the sections in the order they run: dependency order, not checklist order (ranks
before shapes, page attention's cache form before the head dims, parameter presence before
dtype combinations), and a few are ordered so that every rule can be reached (e.g. FIA-087 before FIA-083, FIA-106 before
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
    tnd.py): query (T, N, D) (NTD_TND (N, T, D)), cumulative actual lengths, B =
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

from ..opdef import OpDef, f64, i1, i64, i64_array, operand, optional, string, variadic
from ..registry import MLA
from ..rules import RuleSet
from ..traits import PURE
from ..types import TensorInfo
from . import (
    antiquant,
    kv_list,
    layout,
    lengths,
    limits,
    mla,
    operands,
    padding,
    paging,
    prefix,
    pse_mask,
    quant,
    tnd,
    waivers,  # noqa: F401  (the checklist items that are not checks)
)
from .common import OP_NAME, OPTIONAL_TENSORS, PT, V2
from .layout import expected_lse_shape, expected_out_shape
from .symbols import SYMBOLS

# Every FIA rule, in the order they run (dependency order; see the docstring).
rules = RuleSet([
    *operands.rules,
    *mla.operand_rules,
    *mla.quant_rules,
    *layout.head_rules,
    *tnd.rules,
    *kv_list.rules,
    *lengths.rules,
    *paging.cache_rules,
    *layout.kv_shape_rules,
    *mla.shape_rules,
    *limits.size_rules,
    *layout.lse_rules,
    *prefix.rules,
    *pse_mask.pse_rules,
    *pse_mask.mask_rules,
    *limits.scalar_rules,
    *quant.rules,
    *padding.int4_rules,
    *antiquant.presence_rules,
    *antiquant.combined_rules,
    *antiquant.separate_rules,
    *paging.block_id_rules,
    *padding.left_rules,
    *limits.advisory_rules,
])


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
    lse = expected_lse_shape(op, s) if op.softmax_lse_flag else (1,)
    return {"attention_out": TensorInfo(expected_out_shape(op, s), dtype),
            "softmax_lse": TensorInfo(lse, "f32")}


FusedInferAttentionScore = MLA.add(OpDef(
    OP_NAME,
    traits=(PURE,),
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

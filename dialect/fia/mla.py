"""FIA rules of the MLA mode (FIA-MLA-*) and its full-quant mode (FIA-MLAQ-*)."""
from __future__ import annotations

from ..types import FRACTAL_NZ
from .common import (
    ANTIQUANT_OPERANDS,
    LATENT,
    MLA_D,
    MLA_HEADS,
    MLA_PREFILL_D,
    MLA_ROPE_D,
    QUANT_OPERANDS,
    FiaRules,
    dims,
)

operand_rules = FiaRules()
quant_rules = FiaRules()
shape_rules = FiaRules()


# =============================================================================================
# MLA mode: presence and dtypes
# =============================================================================================

@operand_rules.rule("FIA-MLA-1", ("query_rope", "key_rope"))
def rope_pair(op, s, name):
    """query_rope and key_rope: both (MLA mode) or neither."""
    other = "key_rope" if name == "query_rope" else "query_rope"
    if getattr(op, name) is None and getattr(op, other) is not None:
        return f"required with {other} (the MLA mode needs both), got none"


@operand_rules.rule("FIA-MLA-3", "key", mla=True)
def mla_key_dtype(op, s):
    if op.key[0].dtype != op.query.dtype:
        return (f"expected the query's element type {op.query.dtype} (float: the latent cache is "
                f"not quantized; i8: the full-quant mode quantizes both), got {op.key[0].dtype}")


@operand_rules.rule("FIA-MLA-11", "block_table", mla=LATENT)
def mla_paged(op, s):
    """The absorbed mode (query D 512) reads the latent cache through page attention. With
    query D 128 (prefill: per-head keys with a rope part, MLA_PREFILL_D) the keys may be dense:
    torch_npu's npu_fused_infer_attention_score document ("MLA约束", D = 128: the TND/NTD_TND
    constraints, page attention optional) and vLLM-Ascend's prefill
    (npu_fused_infer_attention_score(q (T, N, 128), k, v, query_rope, key_rope, TND,
    sparse_mode 3) without a block table) take them so."""
    if op.block_table is None:
        return "expected a block table: page attention is mandatory in MLA mode, got none"


@operand_rules.rule("FIA-MLA-16", "pse_shift", mla=True)
def mla_no_pse(op, s):
    if op.pse_shift is not None:
        return "not supported in MLA mode"


@operand_rules.rule("FIA-MLA-17", ("query_padding_size", "kv_padding_size"), mla=True)
def mla_no_left_padding(op, s, name):
    if op.present(name):
        return "left padding is not supported in MLA mode"


@operand_rules.rule("FIA-MLA-18", QUANT_OPERANDS + ANTIQUANT_OPERANDS, mla=True)
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


@quant_rules.rule("FIA-MLAQ-1", "dequant_scale_query")
def mla_query_scale(op, s):
    t = op.dequant_scale_query
    if (t is not None) != s.mla_quant:
        return ("required for an i8 query in MLA mode (its per-token per-head dequant scale), "
                "got none" if t is None else
                "only for an i8 query in MLA mode (the MLA full-quant mode), got one")
    want = None if t is None else _query_scale_shape(op, s)
    if t is not None and (t.dtype != "f32" or t.shape != want):
        return f"expected an f32 tensor {dims(want)} (the query's shape without D), got {t}"


@quant_rules.rule("FIA-MLAQ-2", "query_quant_mode")
def mla_query_quant_mode(op, s):
    want = 3 if s.mla_quant else 0
    if op.query_quant_mode != want:
        return (f"expected {want} (3: per-token per-head, the MLA full-quant mode's only mode; "
                f"0 otherwise), got {op.query_quant_mode}")


@quant_rules.rule("FIA-MLAQ-3", ("key_antiquant_scale", "value_antiquant_scale"), mla=True)
def mla_kv_scales(op, s, name):
    if not s.mla_quant:
        return None
    t = getattr(op, name)
    if t is None or t.dtype != "f32" or t.shape != (1,):
        return (f"expected an f32 tensor (1,) (the per-tensor dequant scale of the int8 latent "
                f"cache, MLA full-quant mode), got {t if t is not None else 'none'}")


@quant_rules.rule("FIA-MLAQ-4", ("key_antiquant_mode", "value_antiquant_mode"), mla=True)
def mla_kv_quant_modes(op, s, name):
    if s.mla_quant and getattr(op, name) != 0:
        return f"expected 0 (per-tensor) in the MLA full-quant mode, got {getattr(op, name)}"


@quant_rules.rule("FIA-MLAQ-5", "key", mla=True)
def mla_quant_nz(op, s):
    if s.mla_quant and not op.key[0].is_nz:
        return (f"expected a FRACTAL_NZ latent cache in the MLA full-quant mode (the int8 "
                f"[blockNum, 1, D/32, blockSize, 32] form), got {op.key[0]}")


@quant_rules.rule("FIA-MLAQ-6", "block_size", mla=True)
def mla_quant_block_size(op, s):
    if s.mla_quant and op.block_size != 128:
        return f"expected 128 in the MLA full-quant mode, got {op.block_size}"


@quant_rules.rule("FIA-MLAQ-7", "input_layout", mla=True)
def mla_quant_layout(op, s):
    if s.mla_quant and op.input_layout in ("BNSD", "BNSD_BSND", "BNSD_NBSD"):
        return (f"BNSD layouts are not supported in the MLA full-quant mode (NZ caches), got "
                f"{op.input_layout!r}")


@quant_rules.rule("FIA-MLAQ-8", "softmax_lse_flag", mla=True)
def mla_quant_no_lse(op, s):
    if s.mla_quant and op.softmax_lse_flag:
        return "softmax_lse is not supported in the MLA full-quant mode"


@quant_rules.rule("FIA-MLAQ-9", "attention_out", mla=True)
def mla_quant_out(op, s):
    if s.mla_quant and op.attention_out.dtype != "bf16":
        return f"expected bf16 in the MLA full-quant mode, got {op.attention_out.dtype}"


# =============================================================================================
# MLA mode: shapes
# =============================================================================================

@shape_rules.rule("FIA-MLA-4", "query", mla=True)
def mla_query_dim(op, s):
    """512 (the latent dim, the absorbed decode) or 128 (prefill over per-head keys: torch_npu
    "MLA约束", query D only 512 or 128)."""
    if s.D not in (MLA_D, MLA_PREFILL_D):
        return (f"expected head dim {MLA_D} (the latent dim) or {MLA_PREFILL_D} (per-head keys, "
                f"prefill) in MLA mode, got {s.D}")
    if s.D == MLA_PREFILL_D and op.query.dtype == "i8":
        return f"the MLA full-quant mode (an i8 query) needs head dim {MLA_D}, got {s.D}"


@shape_rules.rule("FIA-MLA-21", "value", mla=True)
def mla_prefill_value_dim(op, s):
    """Query D 128 with a rope part: query, key and value D all 128 (torch_npu v2 document, TND
    with query_rope/key_rope: "要求Q_D、K_D、V_D等于128")."""
    if s.D == MLA_PREFILL_D and s.Dv != MLA_PREFILL_D:
        return (f"expected value head dim {MLA_PREFILL_D} (query D {MLA_PREFILL_D} with a rope "
                f"part), got {s.Dv} in {op.value[0]}")


def _with_head_dim(op, s, t, d, kv):
    """The shape of `t` with its head dim replaced by d (heads: KV_N for key-like tensors)."""
    heads = s.KV_N if kv else s.N
    if t.rank == 3 and (kv and s.paged or op.input_layout == "BSH"):
        return t.shape[:2] + (heads * d,)
    return t.shape[:-1] + (d,)


@shape_rules.rule("FIA-MLA-5", "query_rope", mla=True)
def mla_query_rope(op, s):
    qr = op.query_rope
    want = _with_head_dim(op, s, op.query, MLA_ROPE_D, kv=False)
    dtype = "bf16" if s.mla_quant else op.query.dtype
    if qr.dtype != dtype or qr.shape != want:
        return (f"expected {dims(want)} of {dtype} (the query's layout with head dim "
                f"{MLA_ROPE_D}), got {qr}")


@shape_rules.rule("FIA-MLA-6", "value", mla=True)
def mla_value_is_latent(op, s):
    if op.value[0].format != op.key[0].format:
        return (f"expected the latent cache of key (format {op.key[0].format}), "
                f"got {op.value[0]}")


@shape_rules.rule("FIA-MLA-7", "key_rope", mla=True)
def mla_key_rope(op, s):
    kr, k = op.key_rope, op.key[0]
    want = _with_head_dim(op, s, k, MLA_ROPE_D, kv=True)
    dtype = "bf16" if s.mla_quant else k.dtype          # full quant: an int8 cache, bf16 rope
    if kr.dtype != dtype or kr.format != k.format or kr.shape != want:
        fmt = f", {FRACTAL_NZ}" if k.is_nz else ""
        return (f"expected the rope cache {dims(want)} of {dtype}{fmt} (the key cache with "
                f"head dim {MLA_ROPE_D}), got {kr}")


@shape_rules.rule("FIA-MLA-8", "num_heads", mla=LATENT)
def mla_heads(op, s):
    if op.num_heads not in MLA_HEADS:
        return f"expected one of {', '.join(map(str, MLA_HEADS))} in MLA mode, got {op.num_heads}"


@shape_rules.rule("FIA-MLA-9", "query", mla=LATENT)
def mla_query_seq(op, s):
    if not 1 <= s.Q_S <= 16:
        return f"expected Q_S in 1..16 in MLA mode, got {s.Q_S}"


@shape_rules.rule("FIA-MLA-10", "num_key_value_heads", mla=LATENT)
def mla_single_kv_head(op, s):
    if s.KV_N != 1:
        return f"expected 1 (one latent kv head) in MLA mode, got {s.KV_N}"


@shape_rules.rule("FIA-MLA-13", "sparse_mode", branch="incre", mla=LATENT, tnd=False)
def mla_incre_sparse(op, s):
    if op.sparse_mode != 0:
        return f"expected 0 in MLA mode with Q_S = 1, got {op.sparse_mode}"


@shape_rules.rule("FIA-MLA-14", "atten_mask", branch="incre", mla=LATENT, tnd=False)
def mla_incre_no_mask(op, s):
    if op.atten_mask is not None:
        return "expected none in MLA mode with Q_S = 1 (sparse_mode 0 without a mask)"


@shape_rules.rule("FIA-MLA-15", "sparse_mode", branch="prompt", mla=LATENT, tnd=False)
def mla_prompt_causal(op, s):
    if op.sparse_mode != 3:
        return (f"expected 3 (rightDownCausal with the 2048x2048 mask) in MLA mode with "
                f"Q_S > 1, got {op.sparse_mode}")

"""FIA rules 6.M: page attention (block table, cache forms, block ids)."""
from __future__ import annotations

import numpy as np

from ..rules import RUNTIME
from .common import FLOATS, LATENT, MLA_BLOCK_SIZES, TND_LAYOUTS, FiaRules, dims, is_int4, logical_last

cache_rules = FiaRules()
block_id_rules = FiaRules()


# =============================================================================================
# 6.M page attention: the block table and the cache form (before the head-dim rules)
# =============================================================================================

@cache_rules.rule("FIA-161", "block_table")
def block_table_dtype(op, s):
    if s.paged and op.block_table.dtype != "i32":
        return f"expected element type i32, got {op.block_table.dtype}"


@cache_rules.rule("FIA-162", "block_table")
def block_table_rank(op, s):
    if s.paged and op.block_table.rank != 2:
        return f"expected rank 2 (B, maxBlockNumPerSeq), got {op.block_table}"


@cache_rules.rule("FIA-163", "block_table")
def block_table_batch(op, s):
    if s.paged and op.block_table.shape[0] != s.B:
        return f"expected dim 0 = B ({s.B}), got {op.block_table}"


@cache_rules.rule("FIA-165", "actual_seq_lengths_kv")
def paged_needs_kv_lengths(op, s):
    if s.paged and op.actual_seq_lengths_kv is None:
        return "required with page attention (block_table), got none"


@cache_rules.rule("FIA-166", "block_size", mla=False)
def prompt_block_size(op, s):
    """Also for TND without rope when Q_S = 1: the device runs TND on the prompt path."""
    if s.incre and not s.tnd:
        return None
    bs = op.block_size
    if s.paged and not (128 <= bs <= 512 and bs % 128 == 0):
        return f"expected a multiple of 128 in [128, 512] with page attention, got {bs}"


@cache_rules.rule("FIA-167", "block_size", branch="incre")
def incre_block_size(op, s):
    if s.tnd and not s.mla:
        return None
    if s.paged and not 1 <= op.block_size <= 512:
        return f"expected 1..512 with page attention, got {op.block_size}"


@cache_rules.rule("FIA-MLA-12", "block_size", mla=LATENT)
def mla_block_size(op, s):
    if op.block_size not in MLA_BLOCK_SIZES:
        return f"expected 16 or 128 in MLA mode, got {op.block_size}"


@cache_rules.rule("FIA-169", "key")
def paged_cache_rank(op, s):
    """An NZ cache in the 5-D form torch_npu documents, (block_num, KV_N, D/C0, block_size,
    C0), is a view of the FRACTAL_NZ (block_num, block_size, KV_N*D) tensor's bytes: the eager
    calls take it so (ascend_mla/ops.py `_nz_cache_views`); in IR it is that tensor
    (mla.nz_cache_view)."""
    if s.paged and op.key[0].rank not in (3, 4):
        return (f"expected a paged cache of rank 3 (BnBsH) or 4 (BnNBsD; an eager call also "
                f"takes an NZ cache as the contiguous 5-D view (block_num, KV_N, D/C0, "
                f"block_size, C0), C0 = 32 bytes / element size), got {op.key[0]}")


@cache_rules.rule("FIA-170", "key")
def paged_bnbsh(op, s):
    k = op.key[0]
    if not s.paged or k.rank != 3:
        return None
    if k.shape[1] != op.block_size or logical_last(k) != s.H_kv:
        return (f"expected BnBsH (block_num, {op.block_size}, KV_N*D = {s.KV_N}*{s.D}), "
                f"got {k}")


@cache_rules.rule("FIA-171", "key")
def paged_bnnbsd(op, s):
    k = op.key[0]
    if not s.paged or k.rank != 4:
        return None
    if s.cache_form is None or logical_last(k) != s.D:
        also = (f" or, in MLA mode, (block_num, {op.block_size}, {s.KV_N}, {s.D})"
                if s.mla else "")
        return (f"expected BnNBsD (block_num, KV_N = {s.KV_N}, block_size = {op.block_size}, "
                f"D = {s.D}){also}, got {k}")


@cache_rules.rule("FIA-172", "key")
def paged_layout_form(op, s):
    """Query layout BSH/BSND (BSND_NBSD too: a BSND input): the cache is BnBsH only (L880,
    L954)."""
    if s.paged and op.input_layout in ("BSH", "BSND", "BSND_NBSD") and s.cache_form == "BnNBsD":
        return (f"input_layout {op.input_layout!r} allows the BnBsH cache only, got BnNBsD "
                f"{op.key[0]}")


@cache_rules.rule("FIA-173", "key")
def paged_bnbsh_width(op, s):
    if s.paged and s.cache_form in ("BnBsH", "BnBsND") and s.H_kv > 65535:
        return f"a BnBsH cache needs KV_N*D <= 65535, got {s.KV_N}*{s.D} = {s.H_kv}"


def kv_shape_mismatch(op, k, v):
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


@cache_rules.rule("FIA-175", "value")
def paged_same_shape(op, s):
    if s.paged:
        return kv_shape_mismatch(op, op.key[0], op.value[0])


@cache_rules.rule("FIA-MLA-19", "key", mla=True)
def mla_nz_form(op, s):
    """A FRACTAL_NZ (PA_NZ) cache holds each block's (block_size, D) matrices in NZ."""
    if op.key[0].is_nz and s.cache_form == "BnBsND":
        return (f"a FRACTAL_NZ paged cache is (block_num, block_size, KV_N*D) or "
                f"(block_num, KV_N, block_size, D), got {op.key[0]}")


@cache_rules.rule("FIA-164", "block_table")
def block_table_width(op, s):
    if s.paged and op.block_table.shape[1] < s.max_blocks:
        return (f"expected dim 1 >= maxBlockNumPerSeq = "
                f"ceil({max(s.askv, default=0)}/{op.block_size}) "
                f"= {s.max_blocks}, got {op.block_table}")


@cache_rules.rule("FIA-174", "key")
def paged_block_count(op, s):
    if not s.paged:
        return None
    needed = sum(-(-n // op.block_size) for n in s.askv)
    if op.key[0].shape[0] < needed:
        return (f"expected block_num >= the blocks of actual_seq_lengths_kv "
                f"(sum of ceil(askv[b]/{op.block_size}) = {needed}), got {op.key[0]}")


@cache_rules.rule("FIA-176", "block_table", branch="prompt")
def paged_no_left_padding(op, s):
    if s.paged and s.left_pad:
        return "page attention does not support left padding (query_padding_size / kv_padding_size)"


@cache_rules.rule("FIA-177", "key_shared_prefix")
def paged_no_prefix(op, s):
    if s.paged and op.key_shared_prefix is not None:
        return "a shared prefix is not supported with page attention"


@cache_rules.rule("FIA-178", "key", branch="prompt", mla=False)
def prompt_paged_dtypes(op, s):
    k = op.key[0].dtype
    if s.paged and not (k in FLOATS or k == "i8" and op.query.dtype in FLOATS):
        return (f"page attention with Q_S > 1 needs an f16/bf16 key, or i8 with an f16/bf16 "
                f"query, got {k} with {op.query.dtype}")


# =============================================================================================
# 6.M page attention: INT4 keys, block ids, advice
# =============================================================================================

@block_id_rules.rule("FIA-179", "key", branch="incre")
def incre_paged_no_int4(op, s):
    if s.paged and op.query.dtype in FLOATS and is_int4(op.key[0]):
        return (f"page attention does not support an INT4 ({op.key[0].dtype}) key with a "
                f"{op.query.dtype} query")


@block_id_rules.rule("FIA-180", "block_table", kind=RUNTIME)
def block_ids_in_range(op, s):
    if not s.paged or op.block_table.value is None:
        return None
    table, blocks = np.asarray(op.block_table.value), op.key[0].shape[0]
    for b, n in enumerate(s.askv):
        used = table[b, :-(-n // op.block_size)]
        bad = used[(used < 0) | (used >= blocks)]
        if bad.size:
            return f"batch {b}: block id {int(bad[0])} is outside the cache's {blocks} blocks"


@block_id_rules.rule("FIA-231", "key", branch="incre", mla=False, tnd=False, severity="warning")
def incre_paged_form_advice(op, s):
    if s.paged and s.cache_form == "BnBsH":
        return "the BnNBsD cache (block_num, KV_N, block_size, D) is usually faster than BnBsH"

"""FIA rules 6.F (pse_shift) and 6.G/6.H (atten_mask, sparse_mode, pre/next_tokens)."""
from __future__ import annotations

import numpy as np

from ..rules import RUNTIME
from .common import COMPRESSED_MASK, FiaRules, one_of

pse_rules = FiaRules()
mask_rules = FiaRules()


# =============================================================================================
# 6.F pse_shift
# =============================================================================================

@pse_rules.rule("FIA-062", "pse_shift", branch="prompt")
def prompt_pse_f16(op, s):
    pse = op.pse_shift
    if pse is not None and pse.dtype == "f16" and op.query.dtype not in ("f16", "i8"):
        return f"an f16 pse_shift needs an f16 or i8 query, got {op.query.dtype}"


@pse_rules.rule("FIA-063", "pse_shift", branch="prompt")
def prompt_pse_bf16(op, s):
    if op.pse_shift is not None and op.pse_shift.dtype == "bf16" and op.query.dtype != "bf16":
        return f"a bf16 pse_shift needs a bf16 query, got {op.query.dtype}"


@pse_rules.rule("FIA-064", "pse_shift", branch="incre")
def incre_pse_dtype(op, s):
    if op.pse_shift is not None and op.pse_shift.dtype != op.query.dtype:
        return f"expected the query's element type {op.query.dtype}, got {op.pse_shift.dtype}"


@pse_rules.rule("FIA-065", "pse_shift")
def pse_batch(op, s):
    if op.pse_shift is not None and op.pse_shift.shape[0] not in (1, s.B):
        return f"expected dim 0 = 1 or B ({s.B}), got {op.pse_shift}"


@pse_rules.rule("FIA-066", "pse_shift")
def pse_heads(op, s):
    if op.pse_shift is not None and op.pse_shift.shape[1] != s.N:
        return f"expected dim 1 = N ({s.N}), got {op.pse_shift}"


@pse_rules.rule("FIA-067", "pse_shift", branch="prompt")
def prompt_pse_rows(op, s):
    if op.pse_shift is not None and op.pse_shift.shape[2] < s.Q_S:
        return f"expected dim 2 >= Q_S ({s.Q_S}), got {op.pse_shift}"


@pse_rules.rule("FIA-068", "pse_shift", branch="incre")
def incre_pse_rows(op, s):
    if op.pse_shift is not None and op.pse_shift.shape[2] != 1:
        return f"expected dim 2 = 1 (Q_S), got {op.pse_shift}"


@pse_rules.rule("FIA-069", "pse_shift")
def pse_columns(op, s):
    if op.pse_shift is None or s.paged:
        return None
    need = s.KV_S + (s.P if s.incre else 0)
    if op.pse_shift.shape[3] < need:
        what = "P + KV_S" if s.incre and s.P else "KV_S"
        return f"expected dim 3 >= {what} ({need}), got {op.pse_shift}"


@pse_rules.rule("FIA-070", "pse_shift")
def paged_pse_columns(op, s):
    if op.pse_shift is None or s.max_blocks is None:
        return None
    need = s.max_blocks * op.block_size
    if op.pse_shift.shape[3] < need:
        return f"expected dim 3 >= maxBlockNumPerSeq*block_size ({need}), got {op.pse_shift}"


@pse_rules.rule("FIA-212", "pse_shift", branch="prompt")
def prefix_pse_columns(op, s):
    if op.pse_shift is None or op.key_shared_prefix is None or s.paged:
        return None
    if op.pse_shift.shape[3] < s.P + s.KV_S:
        return (f"expected dim 3 >= P + KV_S ({s.P} + {s.KV_S}) with a shared prefix, "
                f"got {op.pse_shift}")


@pse_rules.rule("FIA-230", "pse_shift", severity="warning")
def pse_alignment_advice(op, s):
    pse = op.pse_shift
    if pse is not None and pse.shape[3] * 2 % 32:
        return f"padding dim 3 to 32 bytes (a multiple of 16) is recommended, got {pse}"


# =============================================================================================
# 6.G atten_mask, 6.H sparse_mode / pre_tokens / next_tokens
# =============================================================================================

@mask_rules.rule("FIA-TND-11", "sparse_mode", tnd=True)
def tnd_sparse_mode(op, s):
    """TND: 0 without a mask, 3 (rightDownCausal) or 4 (band) with the 2048x2048 mask; the MLA
    mode takes 0 and 3 (numerics.md) and band needs value D 64 or 128 (PFA TND tiling)."""
    allowed = (0, 3) if s.mla else (0, 3, 4)
    if op.sparse_mode not in allowed:
        return (f"expected {one_of(allowed)} with input_layout {op.input_layout!r}, got "
                f"{op.sparse_mode}")
    if op.sparse_mode == 4 and s.Dv not in (64, 128):
        return f"sparse_mode 4 with input_layout {op.input_layout!r} needs value D 64 or 128, got {s.Dv}"


@mask_rules.rule("FIA-TND-12", "atten_mask", tnd=True)
def tnd_no_mask_in_mode_0(op, s):
    if op.sparse_mode == 0 and op.atten_mask is not None:
        return (f"not supported with sparse_mode 0 and input_layout {op.input_layout!r} "
                f"(3 or 4 take the 2048x2048 mask)")


@mask_rules.rule("FIA-TND-13", "actual_seq_lengths", tnd=True)
def tnd_causal_lengths(op, s):
    """rightDownCausal per batch: a batch's query tokens are the last of its keys."""
    if op.sparse_mode != 3:
        return None
    for b, (q, kv) in enumerate(zip(s.asl, s.askv)):
        if q > kv:
            return (f"batch {b}: sparse_mode 3 needs at most as many query tokens as keys, got "
                    f"{q} > {kv}")


@mask_rules.rule("FIA-080", "sparse_mode", branch="prompt", tnd=False)
def prompt_sparse_mode(op, s):
    if op.sparse_mode not in range(5):
        return (f"expected 0..4 (5 prefix, 6 global, 7 dilated, 8 block_local are not "
                f"supported), got {op.sparse_mode}")


@mask_rules.rule("FIA-074", "atten_mask", branch="prompt", tnd=False)
def all_mask_needs_mask(op, s):
    if op.sparse_mode == 1 and op.atten_mask is None:
        return "required with sparse_mode 1 (allMask), got none"


@mask_rules.rule("FIA-075", "atten_mask")
def compressed_mask_present(op, s):
    if s.incre and not s.tnd:             # the prompt branch, and TND whatever its Q_S
        return None
    if op.sparse_mode in (2, 3, 4) and op.atten_mask is None:
        return f"required (the 2048x2048 mask) with sparse_mode {op.sparse_mode}, got none"


@mask_rules.rule("FIA-076", "atten_mask")
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


@mask_rules.rule("FIA-071", "atten_mask", branch="prompt", tnd=False)
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


@mask_rules.rule("FIA-072", "atten_mask", branch="incre", tnd=False)
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


@mask_rules.rule("FIA-078", "atten_mask", tnd=False)
def paged_mask_columns(op, s):
    mask = op.atten_mask
    full_mask = s.incre or op.sparse_mode in (0, 1)
    if mask is None or s.max_blocks is None or not full_mask:
        return None
    need = s.max_blocks * op.block_size
    if mask.shape[-1] < need:
        return f"expected last dim >= maxBlockNumPerSeq*block_size ({need}), got {mask}"


@mask_rules.rule("FIA-079", "atten_mask", branch="prompt", tnd=False)
def prefix_mask_columns(op, s):
    mask = op.atten_mask
    if mask is None or op.key_shared_prefix is None or op.sparse_mode not in (0, 1) or s.paged:
        return None
    if mask.shape[-1] < s.P + s.KV_S:
        return f"expected last dim >= P + KV_S ({s.P} + {s.KV_S}) with a shared prefix, got {mask}"


@mask_rules.rule("FIA-073", "atten_mask", kind=RUNTIME)
def mask_values_binary(op, s):
    mask = op.atten_mask
    if mask is None or mask.dtype == "i1" or mask.value is None:
        return None
    bad = np.asarray(mask.value)
    bad = bad[(bad != 0) & (bad != 1)]
    if bad.size:
        return f"an {mask.dtype} mask must hold only 0 and 1, got the value {bad.flat[0]}"


@mask_rules.rule("FIA-077", "atten_mask", kind=RUNTIME)
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


def int8_out(op):
    return op.attention_out.dtype == "i8"


def per_channel_int8_out(op):
    """INT8 output quantized per channel (quant_scale2 of more than one element, L906)."""
    return op.quant_scale2 is not None and op.quant_scale2.numel > 1 and int8_out(op)


# Interception of INT8 output with quant_offset2 (L913-918): a band row would be empty.
@mask_rules.rule("FIA-084", "next_tokens", branch="prompt")
def intercept_mode0_next(op, s):
    if (op.quant_offset2 is not None and op.sparse_mode == 0 and op.atten_mask is not None
            and int8_out(op) and op.next_tokens < 0):
        return (f"expected >= 0 with int8 output, quant_offset2, sparse_mode 0 and a mask, "
                f"got {op.next_tokens}")


@mask_rules.rule("FIA-085", "pre_tokens", branch="prompt")
def intercept_mode0_pre(op, s):
    if not (op.quant_offset2 is not None and op.sparse_mode == 0 and op.atten_mask is not None
            and int8_out(op)):
        return None
    for b, (q, kv) in enumerate(zip(s.q_lengths, s.kv_valid)):
        if q - kv - s.P - op.pre_tokens > 0:
            return (f"batch {b}: actual_seq_lengths - actual_seq_lengths_kv - prefix - "
                    f"pre_tokens = {q} - {kv} - {s.P} - {op.pre_tokens} > 0 leaves rows empty "
                    f"(int8 output with quant_offset2, sparse_mode 0)")


@mask_rules.rule("FIA-086", "actual_seq_lengths_kv", branch="prompt")
def intercept_mode3(op, s):
    if not (op.quant_offset2 is not None and op.sparse_mode == 3 and int8_out(op)):
        return None
    for b, (q, kv) in enumerate(zip(s.q_lengths, s.kv_valid)):
        if kv + s.P - q < 0:
            return (f"batch {b}: actual_seq_lengths_kv + prefix - actual_seq_lengths = "
                    f"{kv} + {s.P} - {q} < 0 leaves rows empty (int8 output with "
                    f"quant_offset2, sparse_mode 3)")


@mask_rules.rule("FIA-087", "pre_tokens", branch="prompt")
def intercept_mode4_pre(op, s):
    if (op.quant_offset2 is not None and op.sparse_mode == 4 and int8_out(op)
            and op.pre_tokens < 0):
        return (f"expected >= 0 with int8 output, quant_offset2 and sparse_mode 4, "
                f"got {op.pre_tokens}")


@mask_rules.rule("FIA-088", "next_tokens", branch="prompt")
def intercept_mode4_next(op, s):
    if not (op.quant_offset2 is not None and op.sparse_mode == 4 and int8_out(op)):
        return None
    for b, (q, kv) in enumerate(zip(s.q_lengths, s.kv_valid)):
        if op.next_tokens + kv + s.P - q < 0:
            return (f"batch {b}: next_tokens + actual_seq_lengths_kv + prefix - "
                    f"actual_seq_lengths = {op.next_tokens} + {kv} + {s.P} - {q} < 0 leaves "
                    f"rows empty (int8 output with quant_offset2, sparse_mode 4)")


@mask_rules.rule("FIA-083", ("pre_tokens", "next_tokens"), branch="prompt")
def int8_band_tokens(op, s, name):
    tokens = getattr(op, name)
    if op.sparse_mode == 4 and int8_out(op) and tokens < 0:
        return f"expected >= 0 with int8 output and sparse_mode 4 (band), got {tokens}"

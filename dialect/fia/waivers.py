"""FIA checklist items that are not checks, each with its reason (dialect.rules.waive)."""
from __future__ import annotations

from ..rules import waive

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

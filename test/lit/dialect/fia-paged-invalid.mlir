// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.fused_infer_attention_score, one split per static rule of the catalog's
// section 6 (the FIA constraint catalog; rules in docs/rules.md) or of the MLA mode:
// page attention (6.M) and the left-padding operands (6.N).
// Each split changes one thing of a valid op; the runtime and eager-only rules are in
// test/python/test_fia_eager.py.

// FIA-161 [both] (S) blockTable — non-null ⇒ dtype INT32 → REJECT (L281)
func.func @block_table_dtype(%query: tensor<2x1x256xbf16>, %key: tensor<6x16x128xbf16>, %value: tensor<6x16x128xbf16>, %block_table: tensor<2x3xi64>) {
  // expected-error @+1 {{block_table: expected element type i32, got i64 [FIA-161]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<6x16x128xbf16>, tensor<6x16x128xbf16>, tensor<2x3xi64>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-162 [both] (S) blockTable — non-null ⇒ rank == 2 → REJECT (L888, L959)
func.func @block_table_rank(%query: tensor<2x1x256xbf16>, %key: tensor<6x16x128xbf16>, %value: tensor<6x16x128xbf16>, %block_table: tensor<6xi32>) {
  // expected-error @+1 {{block_table: expected rank 2 (B, maxBlockNumPerSeq), got tensor<6xi32> [FIA-162]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<6x16x128xbf16>, tensor<6x16x128xbf16>, tensor<6xi32>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-163 [both] (S) blockTable, query — shape[0] == B → REJECT (L888, L959)
func.func @block_table_batch(%query: tensor<2x1x256xbf16>, %key: tensor<6x16x128xbf16>, %value: tensor<6x16x128xbf16>, %block_table: tensor<3x3xi32>) {
  // expected-error @+1 {{block_table: expected dim 0 = B (2), got tensor<3x3xi32> [FIA-163]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<6x16x128xbf16>, tensor<6x16x128xbf16>, tensor<3x3xi32>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-165 [both] (S) blockTable, actualSeqLengthsKv — PA ⇒ actualSeqLengthsKv non-null → REJECT
//   (L887, L958)
func.func @paged_without_kv_lengths(%query: tensor<2x1x256xbf16>, %key: tensor<6x16x128xbf16>, %value: tensor<6x16x128xbf16>, %block_table: tensor<2x3xi32>) {
  // expected-error @+1 {{actual_seq_lengths_kv: required with page attention (block_table), got none [FIA-165]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {num_heads = 4 : i64, num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<6x16x128xbf16>, tensor<6x16x128xbf16>, tensor<2x3xi32>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-166 [prompt] (S) blockSize — PA ⇒ 128 ≤ blockSize ≤ 512 ∧ blockSize % 128 == 0 → REJECT
//   (L879)
func.func @prompt_block_size(%query: tensor<1x4x2x64xbf16>, %key: tensor<4x64x128xbf16>, %value: tensor<4x64x128xbf16>, %block_table: tensor<1x3xi32>) {
  // expected-error @+1 {{block_size: expected a multiple of 128 in [128, 512] with page attention, got 64 [FIA-166]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths_kv = array<i64: 130>, num_heads = 2 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, block_size = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xbf16>, tensor<4x64x128xbf16>, tensor<4x64x128xbf16>, tensor<1x3xi32>) -> (tensor<1x4x2x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-167 [incre] (S) blockSize — PA ⇒ blockSize ≠ 0 ∧ blockSize ≤ 512 (Rec.: ≥ 1) → REJECT (L953)
func.func @incre_block_size_zero(%query: tensor<2x1x256xbf16>, %key: tensor<6x16x128xbf16>, %value: tensor<6x16x128xbf16>, %block_table: tensor<2x3xi32>) {
  // expected-error @+1 {{block_size: expected 1..512 with page attention, got 0 [FIA-167]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, block_size = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<6x16x128xbf16>, tensor<6x16x128xbf16>, tensor<2x3xi32>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-169 [both] (S) key — PA ⇒ rank ∈ {3 (BnBsH), 4 (BnNBsD)} → REJECT (L880, L954)
func.func @paged_cache_rank(%query: tensor<2x1x256xbf16>, %key: tensor<96x128xbf16>, %value: tensor<96x128xbf16>, %block_table: tensor<2x3xi32>) {
  // expected-error @+1 {{key: expected a paged cache of rank 3 (BnBsH) or 4 (BnNBsD), got tensor<96x128xbf16> [FIA-169]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<96x128xbf16>, tensor<96x128xbf16>, tensor<2x3xi32>) -> (tensor<2x1x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-170 [both] (S) key, blockSize — PA ∧ rank 3 ⇒ shape[1] == blockSize ∧ logical shape[2] ==
//   KV_N·D → REJECT (DERIVED L880)
func.func @paged_bnbsh_block(%query: tensor<2x1x256xbf16>, %key: tensor<6x32x128xbf16>, %value: tensor<6x32x128xbf16>, %block_table: tensor<2x3xi32>) {
  // expected-error @+1 {{key: expected BnBsH (block_num, 16, KV_N*D = 2*64), got tensor<6x32x128xbf16> [FIA-170]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<6x32x128xbf16>, tensor<6x32x128xbf16>, tensor<2x3xi32>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-171 [both] (S) key, blockSize — PA ∧ rank 4 ⇒ shape[1] == KV_N ∧ shape[2] == blockSize ∧
//   logical shape[3] == D → REJECT (DERIVED L880, L723)
func.func @paged_bnnbsd_heads(%query: tensor<2x4x1x64xbf16>, %key: tensor<6x3x16x64xbf16>, %value: tensor<6x3x16x64xbf16>, %block_table: tensor<2x3xi32>) {
  // expected-error @+1 {{key: expected BnNBsD (block_num, KV_N = 2, block_size = 16, D = 64), got tensor<6x3x16x64xbf16> [FIA-171]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, input_layout = "BNSD", num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x4x1x64xbf16>, tensor<6x3x16x64xbf16>, tensor<6x3x16x64xbf16>, tensor<2x3xi32>) -> (tensor<2x4x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-172 [both] (S) inputLayout, key — PA ∧ inputLayout ∈ {BSH, BSND} ⇒ key rank == 3 (BnBsH
//   only) → REJECT (L880, L954)
func.func @paged_bsnd_with_bnnbsd(%query: tensor<2x1x4x64xbf16>, %key: tensor<6x2x16x64xbf16>, %value: tensor<6x2x16x64xbf16>, %block_table: tensor<2x3xi32>) {
  // expected-error @+1 {{key: input_layout 'BSND' allows the BnBsH cache only, got BnNBsD tensor<6x2x16x64xbf16> [FIA-172]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<6x2x16x64xbf16>, tensor<6x2x16x64xbf16>, tensor<2x3xi32>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-173 [both] (S) key, KV_N, D — PA ∧ rank 3 (BnBsH) ⇒ KV_N·D ≤ 65535 (incre text says "64k";
//   Rec. 65535) → REJECT (L880, L956)
func.func @paged_bnbsh_too_wide(%query: tensor<1x1x65536xbf16>, %key: tensor<2x16x65536xbf16>, %value: tensor<2x16x65536xbf16>, %block_table: tensor<1x2xi32>) {
  // expected-error @+1 {{key: a BnBsH cache needs KV_N*D <= 65535, got 128*512 = 65536 [FIA-173]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths_kv = array<i64: 20>, num_heads = 128 : i64, num_key_value_heads = 128 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x1x65536xbf16>, tensor<2x16x65536xbf16>, tensor<2x16x65536xbf16>, tensor<1x2xi32>) -> (tensor<1x1x65536xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-175 [both] (S) key, value — PA ⇒ key.shape == value.shape → REJECT (L880, L954)
func.func @paged_value_shape(%query: tensor<2x1x256xbf16>, %key: tensor<6x16x128xbf16>, %value: tensor<7x16x128xbf16>, %block_table: tensor<2x3xi32>) {
  // expected-error @+1 {{value: expected the shape of key (6, 16, 128), got tensor<7x16x128xbf16> [FIA-175]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<6x16x128xbf16>, tensor<7x16x128xbf16>, tensor<2x3xi32>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-164 [both] (H) blockTable, actualSeqLengthsKv, blockSize — shape[1] ≥ maxBlockNumPerSeq =
//   ceil(max_b askv[b] / blockSize) → REJECT (L888, L959)
func.func @block_table_too_narrow(%query: tensor<2x1x256xbf16>, %key: tensor<6x16x128xbf16>, %value: tensor<6x16x128xbf16>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{block_table: expected dim 1 >= maxBlockNumPerSeq = ceil(40/16) = 3, got tensor<2x2xi32> [FIA-164]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<6x16x128xbf16>, tensor<6x16x128xbf16>, tensor<2x2xi32>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-174 [both] (H) key, actualSeqLengthsKv, blockSize — PA ⇒ nb = key.shape[0] ≥ Σ_b
//   ceil(askv[b] / blockSize) → REJECT (L880, L954)
func.func @too_few_blocks(%query: tensor<2x1x256xbf16>, %key: tensor<3x16x128xbf16>, %value: tensor<3x16x128xbf16>, %block_table: tensor<2x3xi32>) {
  // expected-error @+1 {{key: expected block_num >= the blocks of actual_seq_lengths_kv (sum of ceil(askv[b]/16) = 4), got tensor<3x16x128xbf16> [FIA-174]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<3x16x128xbf16>, tensor<3x16x128xbf16>, tensor<2x3xi32>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-176 [prompt] (S) blockTable, queryPaddingSize, kvPaddingSize — PA ⇒ no query/kv left padding
//   active → REJECT (L886, L897, L904)
func.func @prompt_paged_left_padding(%query: tensor<1x4x2x64xbf16>, %key: tensor<2x128x128xbf16>, %value: tensor<2x128x128xbf16>, %block_table: tensor<1x2xi32>, %query_padding_size: tensor<1xi64>) {
  // expected-error @+1 {{block_table: page attention does not support left padding (query_padding_size / kv_padding_size) [FIA-176]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table, %query_padding_size) {actual_seq_lengths = array<i64: 3>, actual_seq_lengths_kv = array<i64: 130>, num_heads = 2 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xbf16>, tensor<2x128x128xbf16>, tensor<2x128x128xbf16>, tensor<1x2xi32>, tensor<1xi64>) -> (tensor<1x4x2x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-177 [both] (S) blockTable, keySharedPrefix — PA ⇒ no prefix → REJECT (L926; incre Rec.)
func.func @paged_with_prefix(%query: tensor<2x1x256xbf16>, %key: tensor<6x16x128xbf16>, %value: tensor<6x16x128xbf16>, %block_table: tensor<2x3xi32>, %key_shared_prefix: tensor<1x4x128xbf16>, %value_shared_prefix: tensor<1x4x128xbf16>) {
  // expected-error @+1 {{key_shared_prefix: a shared prefix is not supported with page attention [FIA-177]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table, %key_shared_prefix, %value_shared_prefix) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<6x16x128xbf16>, tensor<6x16x128xbf16>, tensor<2x3xi32>, tensor<1x4x128xbf16>, tensor<1x4x128xbf16>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-178 [prompt] A2 (S) blockTable, key, query — PA ⇒ key ∈ {FLOAT16, BFLOAT16} ∨ (key INT8 ∧
//   query ∈ {FLOAT16, BFLOAT16}) → REJECT (L878, L882)
func.func @prompt_paged_all_int8(%query: tensor<1x4x2x64xi8>, %key: tensor<2x128x128xi8>, %value: tensor<2x128x128xi8>, %dequant_scale1: tensor<1xf32>, %quant_scale1: tensor<1xf32>, %dequant_scale2: tensor<1xf32>, %block_table: tensor<1x2xi32>) {
  // expected-error @+1 {{key: page attention with Q_S > 1 needs an f16/bf16 key, or i8 with an f16/bf16 query, got i8 with i8 [FIA-178]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %dequant_scale1, %quant_scale1, %dequant_scale2, %block_table) {actual_seq_lengths_kv = array<i64: 130>, num_heads = 2 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xi8>, tensor<2x128x128xi8>, tensor<2x128x128xi8>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1x2xi32>) -> (tensor<1x4x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-179 [incre] (S) blockTable, query, key — PA ⇒ ¬(query ∈ {FLOAT16, BFLOAT16} ∧ key
//   INT4/packed INT32) → REJECT (L957)
func.func @incre_paged_int4(%query: tensor<2x1x4x64xbf16>, %key: tensor<6x16x16xi32>, %value: tensor<6x16x16xi32>, %block_table: tensor<2x3xi32>, %key_antiquant_scale: tensor<1x2x64xbf16>, %value_antiquant_scale: tensor<1x2x64xbf16>) {
  // expected-error @+1 {{key: page attention does not support an INT4 (i32) key with a bf16 query [FIA-179]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table, %key_antiquant_scale, %value_antiquant_scale) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<6x16x16xi32>, tensor<6x16x16xi32>, tensor<2x3xi32>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-183 [both] (S) queryPaddingSize — non-null ⇒ dtype INT64 ∧ rank 1 (Rec. shape [1]) → REJECT
//   (L292-294)
func.func @query_padding_shape(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %query_padding_size: tensor<2xi64>) {
  // expected-error @+1 {{query_padding_size: expected tensor<1xi64>, got tensor<2xi64> [FIA-183]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %query_padding_size) {actual_seq_lengths = array<i64: 4>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2xi64>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-184 [both] (S) kvPaddingSize — non-null ⇒ dtype INT64 ∧ rank 1 (Rec. shape [1]) → REJECT
//   (L303-305)
func.func @kv_padding_dtype(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %kv_padding_size: tensor<1xi32>) {
  // expected-error @+1 {{kv_padding_size: expected tensor<1xi64>, got tensor<1xi32> [FIA-184]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %kv_padding_size) {actual_seq_lengths_kv = array<i64: 4>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1xi32>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

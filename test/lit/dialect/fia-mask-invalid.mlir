// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.fused_infer_attention_score, one split per static rule of the catalog's
// section 6 (the FIA constraint catalog; rules in docs/rules.md) or of the MLA mode:
// pse_shift (6.F), atten_mask (6.G), sparse_mode and the INT8-output
// interception rules (6.H).
// Each split changes one thing of a valid op; the runtime and eager-only rules are in
// test/python/test_fia_eager.py.

// FIA-062 [prompt] (S) pseShift, query — pse FLOAT16 ⇒ query ∈ {FLOAT16, INT8} → REJECT (L677,
//   L910)
func.func @prompt_pse_f16_bf16_query(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %pse_shift: tensor<2x4x8x16xf16>) {
  // expected-error @+1 {{pse_shift: an f16 pse_shift needs an f16 or i8 query, got bf16 [FIA-062]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %pse_shift) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x4x8x16xf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-063 [prompt] (S) pseShift, query — pse BFLOAT16 ⇒ query == BFLOAT16 → REJECT (L677)
func.func @prompt_pse_bf16_f16_query(%query: tensor<2x8x4x64xf16>, %key: tensor<2x16x2x64xf16>, %value: tensor<2x16x2x64xf16>, %pse_shift: tensor<2x4x8x16xbf16>) {
  // expected-error @+1 {{pse_shift: a bf16 pse_shift needs a bf16 query, got f16 [FIA-063]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %pse_shift) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xf16>, tensor<2x16x2x64xf16>, tensor<2x16x2x64xf16>, tensor<2x4x8x16xbf16>) -> (tensor<2x8x4x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-064 [incre] (S) pseShift, query — pse dtype == query dtype → REJECT (L678, L972)
func.func @incre_pse_dtype(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %pse_shift: tensor<2x4x1x16xf16>) {
  // expected-error @+1 {{pse_shift: expected the query's element type bf16, got f16 [FIA-064]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %pse_shift) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x4x1x16xf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-065 [both] (S) pseShift — shape[0] ∈ {1, B} → REJECT (L677, L678)
func.func @pse_batch(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %pse_shift: tensor<3x4x1x16xbf16>) {
  // expected-error @+1 {{pse_shift: expected dim 0 = 1 or B (2), got tensor<3x4x1x16xbf16> [FIA-065]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %pse_shift) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<3x4x1x16xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-066 [both] (S) pseShift — shape[1] == N (numHeads) → REJECT (L677, L678)
func.func @pse_heads(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %pse_shift: tensor<2x2x1x16xbf16>) {
  // expected-error @+1 {{pse_shift: expected dim 1 = N (4), got tensor<2x2x1x16xbf16> [FIA-066]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %pse_shift) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x2x1x16xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-067 [prompt] (S) pseShift — shape[2] ≥ Q_S → REJECT (L912)
func.func @prompt_pse_rows(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %pse_shift: tensor<2x4x4x16xbf16>) {
  // expected-error @+1 {{pse_shift: expected dim 2 >= Q_S (8), got tensor<2x4x4x16xbf16> [FIA-067]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %pse_shift) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x4x4x16xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-068 [incre] (S) pseShift — shape[2] == 1 → REJECT (L678)
func.func @incre_pse_rows(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %pse_shift: tensor<2x4x2x16xbf16>) {
  // expected-error @+1 {{pse_shift: expected dim 2 = 1 (Q_S), got tensor<2x4x2x16xbf16> [FIA-068]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %pse_shift) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x4x2x16xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-069 [both] (S/H) pseShift — shape[3] ≥ KV_S (tensorlist: max_b KV_S_b) + P → REJECT (L912;
//   incre DERIVED L678)
func.func @pse_columns(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %pse_shift: tensor<2x4x1x8xbf16>) {
  // expected-error @+1 {{pse_shift: expected dim 3 >= KV_S (16), got tensor<2x4x1x8xbf16> [FIA-069]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %pse_shift) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x4x1x8xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-070 [both] (H) pseShift, blockTable — PA ⇒ shape[3] ≥ maxBlockNumPerSeq·blockSize → REJECT
//   (L891, L962)
func.func @paged_pse_columns(%query: tensor<2x1x256xbf16>, %key: tensor<6x16x128xbf16>, %value: tensor<6x16x128xbf16>, %pse_shift: tensor<2x4x1x32xbf16>, %block_table: tensor<2x3xi32>) {
  // expected-error @+1 {{pse_shift: expected dim 3 >= maxBlockNumPerSeq*block_size (48), got tensor<2x4x1x32xbf16> [FIA-070]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %pse_shift, %block_table) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<6x16x128xbf16>, tensor<6x16x128xbf16>, tensor<2x4x1x32xbf16>, tensor<2x3xi32>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-212 [prompt] (S) keySharedPrefix, pseShift — prefix ∧ pse ⇒ pse.shape[3] ≥ P + KV_S → REJECT
//   (L912)
func.func @prefix_pse_columns(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %pse_shift: tensor<2x4x8x16xbf16>, %key_shared_prefix: tensor<1x4x2x64xbf16>, %value_shared_prefix: tensor<1x4x2x64xbf16>) {
  // expected-error @+1 {{pse_shift: expected dim 3 >= P + KV_S (4 + 16) with a shared prefix, got tensor<2x4x8x16xbf16> [FIA-212]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %pse_shift, %key_shared_prefix, %value_shared_prefix) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x4x8x16xbf16>, tensor<1x4x2x64xbf16>, tensor<1x4x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-080 [prompt] (S) sparseMode — ∈ {0,1,2,3,4} (5 prefix, 6 global, 7 dilated, 8 block_local
//   unsupported) → REJECT (L733, L869)
func.func @prompt_sparse_mode_5(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{sparse_mode: expected 0..4 (5 prefix, 6 global, 7 dilated, 8 block_local are not supported), got 5 [FIA-080]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, sparse_mode = 5 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-074 [prompt] (S) attenMask, sparseMode — sparseMode == 1 ⇒ mask non-null → REJECT (L729)
func.func @all_mask_without_mask(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{atten_mask: required with sparse_mode 1 (allMask), got none [FIA-074]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, sparse_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-075 [prompt] (S) attenMask, sparseMode — sparseMode ∈ {2,3,4} ⇒ mask non-null → REJECT
//   (L872)
func.func @causal_without_mask(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{atten_mask: required (the 2048x2048 mask) with sparse_mode 3, got none [FIA-075]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-076 [prompt] (S) attenMask, sparseMode — sparseMode ∈ {2,3,4} ⇒ mask.shape ∈ {(2048,2048),
//   (1,2048,2048), (1,1,2048,2048)} → REJECT (L872)
func.func @causal_mask_not_2048(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %atten_mask: tensor<1024x1024xi8>) {
  // expected-error @+1 {{atten_mask: expected (2048, 2048), (1, 2048, 2048) or (1, 1, 2048, 2048) with sparse_mode 3, got tensor<1024x1024xi8> [FIA-076]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1024x1024xi8>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-071 [prompt] (S) attenMask — sparseMode ∈ {0,1} ⇒ shape ∈ {(S1',S2'), (B,S1',S2'),
//   (1,S1',S2'), (B,1,S1',S2'), (1,1,S1',S2')} with S1' ≥ Q_S ∧ S2' ≥ KV_S → REJECT (L682, L684)
func.func @prompt_mask_too_narrow(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %atten_mask: tensor<8x8xi1>) {
  // expected-error @+1 {{atten_mask: expected (S1', S2'), (B|1, S1', S2') or (B|1, 1, S1', S2') with S1' >= Q_S = 8, S2' >= KV_S = 16 (B = 2), got tensor<8x8xi1> [FIA-071]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<8x8xi1>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-072 [incre] (S) attenMask — shape ∈ {(B,S2'), (B,1,S2'), (B,1,1,S2')} with S2' ≥ KV_S →
//   REJECT (L683, L684)
func.func @incre_mask_batch(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %atten_mask: tensor<1x16xi1>) {
  // expected-error @+1 {{atten_mask: expected (B, S2'), (B, 1, S2') or (B, 1, 1, S2') with B = 2 with S2' >= KV_S = 16, got tensor<1x16xi1> [FIA-072]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1x16xi1>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-078 [both] (H) attenMask, blockTable — PA ⇒ mask.shape[-1] ≥ maxBlockNumPerSeq·blockSize →
//   REJECT (L890, L961)
func.func @paged_mask_columns(%query: tensor<2x1x256xbf16>, %key: tensor<6x16x128xbf16>, %value: tensor<6x16x128xbf16>, %atten_mask: tensor<2x1x1x32xi1>, %block_table: tensor<2x3xi32>) {
  // expected-error @+1 {{atten_mask: expected last dim >= maxBlockNumPerSeq*block_size (48), got tensor<2x1x1x32xi1> [FIA-078]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask, %block_table) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<6x16x128xbf16>, tensor<6x16x128xbf16>, tensor<2x1x1x32xi1>, tensor<2x3xi32>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-079 [prompt] (S/H) attenMask, keySharedPrefix — prefix ∧ sparseMode ∈ {0,1} ∧ mask ⇒
//   mask.shape[-1] ≥ P + KV_S → REJECT (L927)
func.func @prefix_mask_columns(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %atten_mask: tensor<2x8x16xi8>, %key_shared_prefix: tensor<1x4x2x64xbf16>, %value_shared_prefix: tensor<1x4x2x64xbf16>) {
  // expected-error @+1 {{atten_mask: expected last dim >= P + KV_S (4 + 16) with a shared prefix, got tensor<2x8x16xi8> [FIA-079]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask, %key_shared_prefix, %value_shared_prefix) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x8x16xi8>, tensor<1x4x2x64xbf16>, tensor<1x4x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-084 [prompt] (S) outI8, quantOffset2, sparseMode, attenMask, nextTokens — outI8 ∧
//   quantOffset2 ≠ null ∧ sparseMode == 0 ∧ mask ≠ null ⇒ nextTokens ≥ 0 → REJECT ("拦截") (L915)
func.func @int8_out_mode0_negative_next(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %atten_mask: tensor<8x16xi1>, %quant_scale2: tensor<1xf32>, %quant_offset2: tensor<1xf32>) {
  // expected-error @+1 {{next_tokens: expected >= 0 with int8 output, quant_offset2, sparse_mode 0 and a mask, got -1 [FIA-084]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask, %quant_scale2, %quant_offset2) {num_heads = 4 : i64, next_tokens = -1 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<8x16xi1>, tensor<1xf32>, tensor<1xf32>) -> (tensor<2x8x4x64xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-085 [prompt] (H) outI8, quantOffset2, sparseMode, attenMask, asl, askv, P, preTokens — outI8
//   ∧ quantOffset2 ≠ null ∧ sparseMode == 0 ∧ mask ≠ null ⇒ ∀b: asl[b] − askv[b] − P − preTokens ≤
//   0 → REJECT (L915)
func.func @int8_out_mode0_empty_rows(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %atten_mask: tensor<8x16xi1>, %quant_scale2: tensor<1xf32>, %quant_offset2: tensor<1xf32>) {
  // expected-error @+1 {{pre_tokens: batch 0: actual_seq_lengths - actual_seq_lengths_kv - prefix - pre_tokens = 8 - 16 - 0 - -9 > 0 leaves rows empty (int8 output with quant_offset2, sparse_mode 0) [FIA-085]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask, %quant_scale2, %quant_offset2) {num_heads = 4 : i64, pre_tokens = -9 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<8x16xi1>, tensor<1xf32>, tensor<1xf32>) -> (tensor<2x8x4x64xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-086 [prompt] (H) outI8, quantOffset2, sparseMode, asl, askv, P — outI8 ∧ quantOffset2 ≠ null
//   ∧ sparseMode == 3 ⇒ ∀b: askv[b] + P − asl[b] ≥ 0 → REJECT (L917)
func.func @int8_out_mode3_empty_rows(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %atten_mask: tensor<2048x2048xi8>, %quant_scale2: tensor<1xf32>, %quant_offset2: tensor<1xf32>) {
  // expected-error @+1 {{actual_seq_lengths_kv: batch 0: actual_seq_lengths_kv + prefix - actual_seq_lengths = 4 + 0 - 8 < 0 leaves rows empty (int8 output with quant_offset2, sparse_mode 3) [FIA-086]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask, %quant_scale2, %quant_offset2) {actual_seq_lengths_kv = array<i64: 4>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2048x2048xi8>, tensor<1xf32>, tensor<1xf32>) -> (tensor<2x8x4x64xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-087 [prompt] (S) outI8, quantOffset2, sparseMode, preTokens — outI8 ∧ quantOffset2 ≠ null ∧
//   sparseMode == 4 ⇒ preTokens ≥ 0 → REJECT (L918)
func.func @int8_out_mode4_negative_pre(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %atten_mask: tensor<2048x2048xi8>, %quant_scale2: tensor<1xf32>, %quant_offset2: tensor<1xf32>) {
  // expected-error @+1 {{pre_tokens: expected >= 0 with int8 output, quant_offset2 and sparse_mode 4, got -1 [FIA-087]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask, %quant_scale2, %quant_offset2) {num_heads = 4 : i64, pre_tokens = -1 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, sparse_mode = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2048x2048xi8>, tensor<1xf32>, tensor<1xf32>) -> (tensor<2x8x4x64xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-088 [prompt] (H) outI8, quantOffset2, sparseMode, nextTokens, asl, askv, P — outI8 ∧
//   quantOffset2 ≠ null ∧ sparseMode == 4 ⇒ ∀b: nextTokens + askv[b] + P − asl[b] ≥ 0 → REJECT
//   (L918)
func.func @int8_out_mode4_empty_rows(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %atten_mask: tensor<2048x2048xi8>, %quant_scale2: tensor<1xf32>, %quant_offset2: tensor<1xf32>) {
  // expected-error @+1 {{next_tokens: batch 0: next_tokens + actual_seq_lengths_kv + prefix - actual_seq_lengths = 0 + 4 + 0 - 8 < 0 leaves rows empty (int8 output with quant_offset2, sparse_mode 4) [FIA-088]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask, %quant_scale2, %quant_offset2) {actual_seq_lengths_kv = array<i64: 4>, num_heads = 4 : i64, next_tokens = 0 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, sparse_mode = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2048x2048xi8>, tensor<1xf32>, tensor<1xf32>) -> (tensor<2x8x4x64xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-083 [prompt] (S) attentionOut, sparseMode, preTokens, nextTokens — outI8 ∧ sparseMode == 4 ⇒
//   preTokens ≥ 0 ∧ nextTokens ≥ 0 → REJECT (L907)
func.func @int8_out_band_negative_next(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %atten_mask: tensor<2048x2048xi8>, %quant_scale2: tensor<1xf32>) {
  // expected-error @+1 {{next_tokens: expected >= 0 with int8 output and sparse_mode 4 (band), got -1 [FIA-083]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask, %quant_scale2) {num_heads = 4 : i64, next_tokens = -1 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, sparse_mode = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2048x2048xi8>, tensor<1xf32>) -> (tensor<2x8x4x64xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-083 again: a negative pre_tokens (without quant_offset2, so FIA-087 does not apply).
func.func @int8_out_band_negative_pre(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %atten_mask: tensor<2048x2048xi8>, %quant_scale2: tensor<1xf32>) {
  // expected-error @+1 {{pre_tokens: expected >= 0 with int8 output and sparse_mode 4 (band), got -2 [FIA-083]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask, %quant_scale2) {num_heads = 4 : i64, pre_tokens = -2 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, sparse_mode = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2048x2048xi8>, tensor<1xf32>) -> (tensor<2x8x4x64xi8>, tensor<1xf32>)
  return
}

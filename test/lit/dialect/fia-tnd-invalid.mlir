// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.fused_infer_attention_score in the TND layouts: one split per rule (FIA-TND-n, and the
// catalog rules whose TND reading differs). The rules and their sources: dialect/fia/tnd.py.

// FIA-TND-1: actual_seq_lengths and actual_seq_lengths_kv are required: they give the batches
func.func @tnd_without_lengths(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>) {
  // expected-error @+1 {{actual_seq_lengths: required with input_layout 'TND' (it gives the batches: each batch's end in the packed T), got none [FIA-TND-1]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>) -> (tensor<7x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-1: the same for actual_seq_lengths_kv
func.func @tnd_kv_lengths_missing(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>) {
  // expected-error @+1 {{actual_seq_lengths_kv: required with input_layout 'TND' (it gives the batches: each batch's end in the packed T), got none [FIA-TND-1]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 3, 7>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>) -> (tensor<7x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-019: TND query is (T, N, D): rank 3
func.func @tnd_query_rank(%query: tensor<1x7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>) {
  // expected-error @+1 {{query: expected rank 3 for input_layout 'TND', got tensor<1x7x4x192xbf16> [FIA-019]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>) -> (tensor<7x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-2: cumulative ends never decrease
func.func @tnd_ends_decrease(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>) {
  // expected-error @+1 {{actual_seq_lengths: expected non-decreasing values >= 0 (each batch's end in the query's T, cumulative), got [3, 2, 7] [FIA-TND-2]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 2, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>) -> (tensor<7x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-2: the last end is T
func.func @tnd_last_end_not_t(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>) {
  // expected-error @+1 {{actual_seq_lengths: expected the last value to be the query's T = 7, got 6 [FIA-TND-2]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 3, 6>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>) -> (tensor<7x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-3: num_heads is the query's N axis (dim 1 in TND)
func.func @tnd_heads(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>) {
  // expected-error @+1 {{num_heads: expected the N axis of query (4), got 2 [FIA-TND-3]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 2 : i64, num_key_value_heads = 1 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>) -> (tensor<7x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-4: T <= 1048576
func.func @tnd_too_many_tokens(%query: tensor<1048577x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>) {
  // expected-error @+1 {{query: expected T <= 1048576 with input_layout 'TND', got 1048577 [FIA-TND-4]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 3, 1048577>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1048577x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>) -> (tensor<1048577x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-6: as many kv ends as query ends
func.func @tnd_kv_count(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>) {
  // expected-error @+1 {{actual_seq_lengths_kv: expected B = 3 values (as many as actual_seq_lengths), got 2 [FIA-TND-6]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>) -> (tensor<7x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-6: the last kv end is the key's T
func.func @tnd_kv_last_end(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>) {
  // expected-error @+1 {{actual_seq_lengths_kv: expected the last value to be the key's T = 9, got 8 [FIA-TND-6]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 8>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>) -> (tensor<7x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-5: no pse_shift (nor left padding, prefix, tensor list, quantization)
func.func @tnd_pse(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>, %pse_shift: tensor<3x4x4x9xbf16>) {
  // expected-error @+1 {{pse_shift: pse_shift is not supported with input_layout 'TND' [FIA-TND-5]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %pse_shift) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>, tensor<3x4x4x9xbf16>) -> (tensor<7x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-5: no post-quant
func.func @tnd_post_quant(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>, %quant_scale2: tensor<1xf32>) {
  // expected-error @+1 {{quant_scale2: quantization is not supported with input_layout 'TND' [FIA-TND-5]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %quant_scale2) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>, tensor<1xf32>) -> (tensor<7x4x128xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-7: TND_NTD is the MLA mode's (query D 512)
func.func @tnd_ntd_without_rope(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>) {
  // expected-error @+1 {{input_layout: expected TND or NTD_TND without query_rope/key_rope, got 'TND_NTD' [FIA-TND-7]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND_NTD", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>) -> (tensor<4x7x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-7: NTD_TND is not the MLA mode's
func.func @ntd_tnd_mla(%query: tensor<8x5x512xbf16>, %key: tensor<6x16x512xbf16>, %value: tensor<6x16x512xbf16>, %block_table: tensor<2x3xi32>, %query_rope: tensor<8x5x64xbf16>, %key_rope: tensor<6x16x64xbf16>) {
  // expected-error @+1 {{input_layout: expected TND or TND_NTD in MLA mode with query D 512, got 'NTD_TND' [FIA-TND-7]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table, %query_rope, %key_rope) {actual_seq_lengths = array<i64: 2, 5>, actual_seq_lengths_kv = array<i64: 37, 20>, num_heads = 8 : i64, num_key_value_heads = 1 : i64, input_layout = "NTD_TND", block_size = 16 : i64, sparse_mode = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<8x5x512xbf16>, tensor<6x16x512xbf16>, tensor<6x16x512xbf16>, tensor<2x3xi32>, tensor<8x5x64xbf16>, tensor<6x16x64xbf16>) -> (tensor<5x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-8: without rope the TND path computes f16 or bf16 (an int8 query is V2's full quant)
func.func @tnd_int8(%query: tensor<7x4x192xi8>, %key: tensor<9x2x192xi8>, %value: tensor<9x2x128xi8>) {
  // expected-error @+1 {{query: expected element type f16 or bf16 with input_layout 'TND' (without query_rope/key_rope), got i8 [FIA-TND-8]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xi8>, tensor<9x2x192xi8>, tensor<9x2x128xi8>) -> (tensor<7x4x128xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-9: (key D, value D) is (64, 64), (128, 128), (192, 128) or (192, 192)
func.func @tnd_head_dims(%query: tensor<7x4x96xbf16>, %key: tensor<9x2x96xbf16>, %value: tensor<9x2x96xbf16>) {
  // expected-error @+1 {{value: expected (key D, value D) in (64, 64), (128, 128), (192, 128), (192, 192) with input_layout 'TND', got (96, 96) [FIA-TND-9]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x96xbf16>, tensor<9x2x96xbf16>, tensor<9x2x96xbf16>) -> (tensor<7x4x96xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-9: value D 192 only without GQA
func.func @tnd_value_192_gqa(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x192xbf16>) {
  // expected-error @+1 {{value: value D 192 needs num_heads == num_key_value_heads, got G = 2 [FIA-TND-9]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x192xbf16>) -> (tensor<7x4x192xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-10: no softmax_lse in MLA mode with TND
func.func @tnd_mla_lse(%query: tensor<5x8x512xbf16>, %key: tensor<6x16x512xbf16>, %value: tensor<6x16x512xbf16>, %atten_mask: tensor<2048x2048xi8>, %block_table: tensor<2x3xi32>, %query_rope: tensor<5x8x64xbf16>, %key_rope: tensor<6x16x64xbf16>) {
  // expected-error @+1 {{softmax_lse_flag: softmax_lse is not supported in MLA mode with input_layout 'TND' [FIA-TND-10]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask, %block_table, %query_rope, %key_rope) {actual_seq_lengths = array<i64: 2, 5>, actual_seq_lengths_kv = array<i64: 37, 20>, num_heads = 8 : i64, num_key_value_heads = 1 : i64, input_layout = "TND", block_size = 16 : i64, sparse_mode = 3 : i64, softmax_lse_flag = true, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<5x8x512xbf16>, tensor<6x16x512xbf16>, tensor<6x16x512xbf16>, tensor<2048x2048xi8>, tensor<2x3xi32>, tensor<5x8x64xbf16>, tensor<6x16x64xbf16>) -> (tensor<5x8x512xbf16>, tensor<5x8x1xf32>)
  return
}

// -----

// FIA-TND-11: sparse_mode 0, 3 or 4
func.func @tnd_sparse_1(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>, %atten_mask: tensor<2048x2048xi8>) {
  // expected-error @+1 {{sparse_mode: expected 0, 3 or 4 with input_layout 'TND', got 1 [FIA-TND-11]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", sparse_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>, tensor<2048x2048xi8>) -> (tensor<7x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-11: band (4) needs value D 64 or 128
func.func @tnd_band_value_192(%query: tensor<7x2x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x192xbf16>, %atten_mask: tensor<2048x2048xi8>) {
  // expected-error @+1 {{sparse_mode: sparse_mode 4 with input_layout 'TND' needs value D 64 or 128, got 192 [FIA-TND-11]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 2 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", sparse_mode = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x2x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x192xbf16>, tensor<2048x2048xi8>) -> (tensor<7x2x192xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-12: sparse_mode 0 takes no mask
func.func @tnd_mask_in_mode_0(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>, %atten_mask: tensor<2048x2048xi8>) {
  // expected-error @+1 {{atten_mask: not supported with sparse_mode 0 and input_layout 'TND' (3 or 4 take the 2048x2048 mask) [FIA-TND-12]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>, tensor<2048x2048xi8>) -> (tensor<7x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-TND-13: rightDownCausal: at most as many query tokens as keys per batch
func.func @tnd_causal_more_queries_than_keys(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>, %atten_mask: tensor<2048x2048xi8>) {
  // expected-error @+1 {{actual_seq_lengths: batch 0: sparse_mode 3 needs at most as many query tokens as keys, got 3 > 2 [FIA-TND-13]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 2, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>, tensor<2048x2048xi8>) -> (tensor<7x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-075: sparse_mode 3 takes the 2048x2048 mask, also in TND
func.func @tnd_causal_mask_missing(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>) {
  // expected-error @+1 {{atten_mask: required (the 2048x2048 mask) with sparse_mode 3, got none [FIA-075]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>) -> (tensor<7x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-029: the key's N axis (dim 1 in TND) is num_key_value_heads
func.func @tnd_kv_heads_mismatch(%query: tensor<7x4x192xbf16>, %key: tensor<9x1x192xbf16>, %value: tensor<9x1x128xbf16>) {
  // expected-error @+1 {{num_key_value_heads: expected the N axis of key[0] (1), got 2 [FIA-029]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x1x192xbf16>, tensor<9x1x128xbf16>) -> (tensor<7x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-032: key and value have one T and N (their D may differ)
func.func @tnd_value_tokens(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<8x2x128xbf16>) {
  // expected-error @+1 {{value: expected the shape of key except its last dim (9, 2, 192), got tensor<8x2x128xbf16> [FIA-032]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<8x2x128xbf16>) -> (tensor<7x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-215: softmax_lse is (T, N, 1)
func.func @tnd_lse_shape(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>) {
  // expected-error @+1 {{softmax_lse: expected [T, N, 1] = (7, 4, 1) with softmax_lse_flag, got tensor<3x4x3x1xf32> [FIA-215]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", softmax_lse_flag = true, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>) -> (tensor<7x4x128xbf16>, tensor<3x4x3x1xf32>)
  return
}

// -----

// FIA-033: TND_NTD writes (N, T, Dv)
func.func @tnd_ntd_out_shape(%query: tensor<5x8x512xbf16>, %key: tensor<6x16x512xbf16>, %value: tensor<6x16x512xbf16>, %atten_mask: tensor<2048x2048xi8>, %block_table: tensor<2x3xi32>, %query_rope: tensor<5x8x64xbf16>, %key_rope: tensor<6x16x64xbf16>) {
  // expected-error @+1 {{attention_out: expected (8, 5, 512) (query shape with the value's D, NTD order), got tensor<5x8x512xbf16> [FIA-033]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask, %block_table, %query_rope, %key_rope) {actual_seq_lengths = array<i64: 2, 5>, actual_seq_lengths_kv = array<i64: 37, 20>, num_heads = 8 : i64, num_key_value_heads = 1 : i64, input_layout = "TND_NTD", block_size = 16 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<5x8x512xbf16>, tensor<6x16x512xbf16>, tensor<6x16x512xbf16>, tensor<2048x2048xi8>, tensor<2x3xi32>, tensor<5x8x64xbf16>, tensor<6x16x64xbf16>) -> (tensor<5x8x512xbf16>, tensor<1xf32>)
  return
}

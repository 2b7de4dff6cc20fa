// RUN: mla-opt %s --split-input-file | FileCheck %s
// mla.fused_infer_attention_score in the TND layouts (TND, TND_NTD, NTD_TND): the batches' tokens
// packed along T, actual_seq_lengths / actual_seq_lengths_kv their cumulative ends (per-batch
// lengths for a paged cache). Rules: dialect/fia/tnd.py; docs/attention.md.

// TND prefill without rope (the DeepSeek non-absorbed form: key D 192, value D 128), GQA 4/2,
// three batches of 3, 0 and 4 query tokens over 4, 1 and 4 keys (cumulative ends), softmax_lse
// (T, N, 1).
// CHECK-LABEL: func.func @tnd_prefill
// CHECK-SAME: -> (tensor<7x4x128xbf16>, tensor<7x4x1xf32>)
// CHECK: actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>
// CHECK-SAME: input_layout = "TND"
func.func @tnd_prefill(%query: tensor<7x4x192xbf16>, %key: tensor<9x2x192xbf16>, %value: tensor<9x2x128xbf16>) -> (tensor<7x4x128xbf16>, tensor<7x4x1xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 3, 3, 7>, actual_seq_lengths_kv = array<i64: 4, 5, 9>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, input_layout = "TND", scale_value = 0.0722 : f64, softmax_lse_flag = true, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<7x4x192xbf16>, tensor<9x2x192xbf16>, tensor<9x2x128xbf16>) -> (tensor<7x4x128xbf16>, tensor<7x4x1xf32>)
  return %out, %lse : tensor<7x4x128xbf16>, tensor<7x4x1xf32>
}

// -----

// NTD_TND: query (N, T, D), key/value (N, T_kv, D), output TND; rightDownCausal with the
// 2048x2048 mask (each batch's query tokens are its last keys).
// CHECK-LABEL: func.func @ntd_tnd_causal
// CHECK-SAME: -> (tensor<7x4x128xbf16>, tensor<1xf32>)
func.func @ntd_tnd_causal(%query: tensor<4x7x128xbf16>, %key: tensor<4x12x128xbf16>, %value: tensor<4x12x128xbf16>, %atten_mask: tensor<2048x2048xi8>) -> (tensor<7x4x128xbf16>, tensor<1xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask) {actual_seq_lengths = array<i64: 3, 7>, actual_seq_lengths_kv = array<i64: 5, 12>, num_heads = 4 : i64, input_layout = "NTD_TND", sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x7x128xbf16>, tensor<4x12x128xbf16>, tensor<4x12x128xbf16>, tensor<2048x2048xi8>) -> (tensor<7x4x128xbf16>, tensor<1xf32>)
  return %out, %lse : tensor<7x4x128xbf16>, tensor<1xf32>
}

// -----

// MLA mode in TND: 2 and 3 query tokens (MTP) per batch over a paged latent cache whose lengths
// are per batch (37, 20), not cumulative; sparse_mode 3 with the 2048x2048 mask.
// CHECK-LABEL: func.func @tnd_mla_mtp
// CHECK-SAME: -> (tensor<5x8x512xbf16>, tensor<1xf32>)
func.func @tnd_mla_mtp(%query: tensor<5x8x512xbf16>, %key: tensor<6x16x512xbf16>, %value: tensor<6x16x512xbf16>, %atten_mask: tensor<2048x2048xi8>, %block_table: tensor<2x3xi32>, %query_rope: tensor<5x8x64xbf16>, %key_rope: tensor<6x16x64xbf16>) -> (tensor<5x8x512xbf16>, tensor<1xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask, %block_table, %query_rope, %key_rope) {actual_seq_lengths = array<i64: 2, 5>, actual_seq_lengths_kv = array<i64: 37, 20>, num_heads = 8 : i64, num_key_value_heads = 1 : i64, input_layout = "TND", block_size = 16 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<5x8x512xbf16>, tensor<6x16x512xbf16>, tensor<6x16x512xbf16>, tensor<2048x2048xi8>, tensor<2x3xi32>, tensor<5x8x64xbf16>, tensor<6x16x64xbf16>) -> (tensor<5x8x512xbf16>, tensor<1xf32>)
  return %out, %lse : tensor<5x8x512xbf16>, tensor<1xf32>
}

// -----

// TND_NTD in MLA mode, decode (one token per batch, sparse_mode 0, no mask), the prolog's
// PA_BSND caches: the output is (N, T, 512).
// CHECK-LABEL: func.func @tnd_ntd_mla_decode
// CHECK-SAME: -> (tensor<8x2x512xbf16>, tensor<1xf32>)
func.func @tnd_ntd_mla_decode(%query: tensor<2x8x512xbf16>, %key: tensor<6x16x1x512xbf16>, %value: tensor<6x16x1x512xbf16>, %block_table: tensor<2x3xi32>, %query_rope: tensor<2x8x64xbf16>, %key_rope: tensor<6x16x1x64xbf16>) -> (tensor<8x2x512xbf16>, tensor<1xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table, %query_rope, %key_rope) {actual_seq_lengths = array<i64: 1, 2>, actual_seq_lengths_kv = array<i64: 37, 20>, num_heads = 8 : i64, num_key_value_heads = 1 : i64, input_layout = "TND_NTD", block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x8x512xbf16>, tensor<6x16x1x512xbf16>, tensor<6x16x1x512xbf16>, tensor<2x3xi32>, tensor<2x8x64xbf16>, tensor<6x16x1x64xbf16>) -> (tensor<8x2x512xbf16>, tensor<1xf32>)
  return %out, %lse : tensor<8x2x512xbf16>, tensor<1xf32>
}

// -----

// TND without rope over a paged BnBsH cache, one query token per batch: key D 192, value D 128
// (the value cache's rows are narrower than the key cache's), block_size 128.
// CHECK-LABEL: func.func @tnd_paged_decode
// CHECK-SAME: -> (tensor<3x16x128xbf16>, tensor<1xf32>)
func.func @tnd_paged_decode(%query: tensor<3x16x192xbf16>, %key: tensor<4x128x192xbf16>, %value: tensor<4x128x128xbf16>, %block_table: tensor<3x2xi32>) -> (tensor<3x16x128xbf16>, tensor<1xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths = array<i64: 1, 2, 3>, actual_seq_lengths_kv = array<i64: 100, 5, 60>, num_heads = 16 : i64, num_key_value_heads = 1 : i64, input_layout = "TND", block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<3x16x192xbf16>, tensor<4x128x192xbf16>, tensor<4x128x128xbf16>, tensor<3x2xi32>) -> (tensor<3x16x128xbf16>, tensor<1xf32>)
  return %out, %lse : tensor<3x16x128xbf16>, tensor<1xf32>
}

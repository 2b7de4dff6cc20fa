// RUN: mla-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// mla.fused_infer_attention_score: one valid op per configuration class (branch, layout,
// tensor list, page attention cache form, quantization scenario, antiquant mode, prefix, left
// padding, MLA mode with the caches mla.prolog_v2 writes). Each verifies and round-trips.

// The seed's call example (L1080-1145): incre, BNSD, f16, MHA.
// CHECK-LABEL: func.func @seed_example_incre_bnsd(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2)
// CHECK-SAME: -> (tensor<1x2x1x128xf16>, tensor<1xf32>)
func.func @seed_example_incre_bnsd(%query: tensor<1x2x1x128xf16>, %key: tensor<1x2x512x128xf16>, %value: tensor<1x2x512x128xf16>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 2 : i64, scale_value = 0.08838834764831845 : f64, pre_tokens = 65535 : i64, next_tokens = 65535 : i64, input_layout = "BNSD", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x2x1x128xf16>, tensor<1x2x512x128xf16>, tensor<1x2x512x128xf16>) -> (tensor<1x2x1x128xf16>, tensor<1xf32>)
  return
}

// -----

// incre, BSH, bf16, GQA (G = 4), bool mask (B, 1, 1, KV_S), actual_seq_lengths_kv, softmax_lse.
// CHECK-LABEL: func.func @incre_bsh_gqa_mask_lse(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3)
// CHECK-SAME: -> (tensor<2x1x512xbf16>, tensor<2x8x1x1xf32>)
func.func @incre_bsh_gqa_mask_lse(%query: tensor<2x1x512xbf16>, %key: tensor<2x64x128xbf16>, %value: tensor<2x64x128xbf16>, %atten_mask: tensor<2x1x1x64xi1>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask) {actual_seq_lengths_kv = array<i64: 64, 17>, num_heads = 8 : i64, scale_value = 0.125 : f64, num_key_value_heads = 2 : i64, softmax_lse_flag = true, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x512xbf16>, tensor<2x64x128xbf16>, tensor<2x64x128xbf16>, tensor<2x1x1x64xi1>) -> (tensor<2x1x512xbf16>, tensor<2x8x1x1xf32>)
  return
}

// -----

// incre, BSND, f16, pse_shift (1, N, 1, KV_S') padded to 32 bytes.
// CHECK-LABEL: func.func @incre_bsnd_pse(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3)
// CHECK-SAME: -> (tensor<2x1x4x64xf16>, tensor<1xf32>)
func.func @incre_bsnd_pse(%query: tensor<2x1x4x64xf16>, %key: tensor<2x40x4x64xf16>, %value: tensor<2x40x4x64xf16>, %pse_shift: tensor<1x4x1x48xf16>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %pse_shift) {num_heads = 4 : i64, input_layout = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xf16>, tensor<2x40x4x64xf16>, tensor<2x40x4x64xf16>, tensor<1x4x1x48xf16>) -> (tensor<2x1x4x64xf16>, tensor<1xf32>)
  return
}

// -----

// prompt, BSND, bf16, sparse_mode 0 with an int8 mask (B, 1, S1', S2') and a band,
// actual_seq_lengths.
// CHECK-LABEL: func.func @prompt_bsnd_mask_band(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3)
// CHECK-SAME: -> (tensor<2x16x4x64xbf16>, tensor<1xf32>)
func.func @prompt_bsnd_mask_band(%query: tensor<2x16x4x64xbf16>, %key: tensor<2x32x4x64xbf16>, %value: tensor<2x32x4x64xbf16>, %atten_mask: tensor<2x1x16x32xi8>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask) {actual_seq_lengths = array<i64: 16, 9>, actual_seq_lengths_kv = array<i64: 32>, num_heads = 4 : i64, pre_tokens = 8 : i64, next_tokens = 0 : i64, input_layout = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x16x4x64xbf16>, tensor<2x32x4x64xbf16>, tensor<2x32x4x64xbf16>, tensor<2x1x16x32xi8>) -> (tensor<2x16x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// prompt, BNSD_BSND (BSND output), f16, sparse_mode 3 with the 2048x2048 mask, softmax_lse.
// CHECK-LABEL: func.func @prompt_bnsd_bsnd_causal_lse(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3)
// CHECK-SAME: -> (tensor<1x8x2x128xf16>, tensor<1x2x8x1xf32>)
func.func @prompt_bnsd_bsnd_causal_lse(%query: tensor<1x2x8x128xf16>, %key: tensor<1x2x24x128xf16>, %value: tensor<1x2x24x128xf16>, %atten_mask: tensor<2048x2048xi8>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask) {num_heads = 2 : i64, input_layout = "BNSD_BSND", sparse_mode = 3 : i64, softmax_lse_flag = true, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x2x8x128xf16>, tensor<1x2x24x128xf16>, tensor<1x2x24x128xf16>, tensor<2048x2048xi8>) -> (tensor<1x8x2x128xf16>, tensor<1x2x8x1xf32>)
  return
}

// -----

// prompt, BSH, bf16, sparse_mode 4 (band) with the (1, 1, 2048, 2048) bool mask.
// CHECK-LABEL: func.func @prompt_bsh_band_mode4(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3)
// CHECK-SAME: -> (tensor<1x8x256xbf16>, tensor<1xf32>)
func.func @prompt_bsh_band_mode4(%query: tensor<1x8x256xbf16>, %key: tensor<1x8x256xbf16>, %value: tensor<1x8x256xbf16>, %atten_mask: tensor<1x1x2048x2048xi1>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask) {num_heads = 4 : i64, pre_tokens = 2 : i64, next_tokens = 1 : i64, sparse_mode = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x8x256xbf16>, tensor<1x8x256xbf16>, tensor<1x8x256xbf16>, tensor<1x1x2048x2048xi1>) -> (tensor<1x8x256xbf16>, tensor<1xf32>)
  return
}

// -----

// prompt, BNSD, f16, sparse_mode 1 with a full (S1, S2) mask.
// CHECK-LABEL: func.func @prompt_all_mask_mode1(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3)
// CHECK-SAME: -> (tensor<1x2x4x64xf16>, tensor<1xf32>)
func.func @prompt_all_mask_mode1(%query: tensor<1x2x4x64xf16>, %key: tensor<1x2x6x64xf16>, %value: tensor<1x2x6x64xf16>, %atten_mask: tensor<4x6xui8>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask) {num_heads = 2 : i64, input_layout = "BNSD", sparse_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x2x4x64xf16>, tensor<1x2x6x64xf16>, tensor<1x2x6x64xf16>, tensor<4x6xui8>) -> (tensor<1x2x4x64xf16>, tensor<1xf32>)
  return
}

// -----

// incre, BSND, tensor list: one key/value tensor of batch 1 per batch row.
// CHECK-LABEL: func.func @incre_tensor_list(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6)
// CHECK-SAME: -> (tensor<3x1x2x32xbf16>, tensor<1xf32>)
func.func @incre_tensor_list(%query: tensor<3x1x2x32xbf16>, %key0: tensor<1x9x2x32xbf16>, %key1: tensor<1x9x2x32xbf16>, %key2: tensor<1x9x2x32xbf16>, %value0: tensor<1x9x2x32xbf16>, %value1: tensor<1x9x2x32xbf16>, %value2: tensor<1x9x2x32xbf16>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key0, %key1, %key2, %value0, %value1, %value2) {num_heads = 2 : i64, input_layout = "BSND", operandSegmentSizes = array<i32: 1, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<3x1x2x32xbf16>, tensor<1x9x2x32xbf16>, tensor<1x9x2x32xbf16>, tensor<1x9x2x32xbf16>, tensor<1x9x2x32xbf16>, tensor<1x9x2x32xbf16>, tensor<1x9x2x32xbf16>) -> (tensor<3x1x2x32xbf16>, tensor<1xf32>)
  return
}

// -----

// incre, BSH, page attention with a BnBsH cache (block_num, block_size, KV_N*D).
// CHECK-LABEL: func.func @incre_paged_bnbsh(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3)
// CHECK-SAME: -> (tensor<2x1x256xbf16>, tensor<1xf32>)
func.func @incre_paged_bnbsh(%query: tensor<2x1x256xbf16>, %key: tensor<6x16x128xbf16>, %value: tensor<6x16x128xbf16>, %block_table: tensor<2x3xi32>) {
  // expected-warning @+1 {{key: the BnNBsD cache (block_num, KV_N, block_size, D) is usually faster than BnBsH [FIA-231]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<6x16x128xbf16>, tensor<6x16x128xbf16>, tensor<2x3xi32>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// incre, BNSD, page attention with a BnNBsD cache (block_num, KV_N, block_size, D), mask (B, 1, 1,
// S).
// CHECK-LABEL: func.func @incre_paged_bnnbsd(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<2x4x1x64xf16>, tensor<1xf32>)
func.func @incre_paged_bnnbsd(%query: tensor<2x4x1x64xf16>, %key: tensor<4x2x128x64xf16>, %value: tensor<4x2x128x64xf16>, %atten_mask: tensor<2x1x1x256xi1>, %block_table: tensor<2x2xi32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask, %block_table) {actual_seq_lengths_kv = array<i64: 200, 3>, num_heads = 4 : i64, input_layout = "BNSD", num_key_value_heads = 2 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x4x1x64xf16>, tensor<4x2x128x64xf16>, tensor<4x2x128x64xf16>, tensor<2x1x1x256xi1>, tensor<2x2xi32>) -> (tensor<2x4x1x64xf16>, tensor<1xf32>)
  return
}

// -----

// prompt, BSND, page attention (block_size 128, BnBsH), sparse_mode 3.
// CHECK-LABEL: func.func @prompt_paged_bsnd(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<1x4x2x64xbf16>, tensor<1xf32>)
func.func @prompt_paged_bsnd(%query: tensor<1x4x2x64xbf16>, %key: tensor<2x128x128xbf16>, %value: tensor<2x128x128xbf16>, %atten_mask: tensor<2048x2048xi8>, %block_table: tensor<1x2xi32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask, %block_table) {actual_seq_lengths_kv = array<i64: 130>, num_heads = 2 : i64, input_layout = "BSND", sparse_mode = 3 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xbf16>, tensor<2x128x128xbf16>, tensor<2x128x128xbf16>, tensor<2048x2048xi8>, tensor<1x2xi32>) -> (tensor<1x4x2x64xbf16>, tensor<1xf32>)
  return
}

// -----

// prompt, full quant: int8 query/key/value to int8 output (uint64 dequant scales, per-tensor post-
// quant with offset).
// CHECK-LABEL: func.func @prompt_full_quant_int8_out(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7)
// CHECK-SAME: -> (tensor<1x4x2x64xi8>, tensor<1xf32>)
func.func @prompt_full_quant_int8_out(%query: tensor<1x4x2x64xi8>, %key: tensor<1x8x2x64xi8>, %value: tensor<1x8x2x64xi8>, %dequant_scale1: tensor<1xui64>, %quant_scale1: tensor<1xf32>, %dequant_scale2: tensor<1xf32>, %quant_scale2: tensor<1xf32>, %quant_offset2: tensor<1xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %dequant_scale1, %quant_scale1, %dequant_scale2, %quant_scale2, %quant_offset2) {num_heads = 2 : i64, input_layout = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1xui64>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<1x4x2x64xi8>, tensor<1xf32>)
  return
}

// -----

// prompt, full quant: int8 query/key/value to f16 output.
// CHECK-LABEL: func.func @prompt_full_quant_f16_out(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5)
// CHECK-SAME: -> (tensor<1x4x2x64xf16>, tensor<1xf32>)
func.func @prompt_full_quant_f16_out(%query: tensor<1x4x2x64xi8>, %key: tensor<1x8x2x64xi8>, %value: tensor<1x8x2x64xi8>, %dequant_scale1: tensor<1xf32>, %quant_scale1: tensor<1xf32>, %dequant_scale2: tensor<1xui64>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %dequant_scale1, %quant_scale1, %dequant_scale2) {num_heads = 2 : i64, input_layout = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1xf32>, tensor<1xf32>, tensor<1xui64>) -> (tensor<1x4x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// incre, bf16 query to int8 output, per-channel bf16 quant_scale2/quant_offset2 (N*D elements).
// CHECK-LABEL: func.func @incre_post_quant_per_channel(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<2x1x4x32xi8>, tensor<1xf32>)
func.func @incre_post_quant_per_channel(%query: tensor<2x1x4x32xbf16>, %key: tensor<2x16x4x32xbf16>, %value: tensor<2x16x4x32xbf16>, %quant_scale2: tensor<4x32xbf16>, %quant_offset2: tensor<4x32xbf16>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %quant_scale2, %quant_offset2) {num_heads = 4 : i64, input_layout = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x32xbf16>, tensor<2x16x4x32xbf16>, tensor<2x16x4x32xbf16>, tensor<4x32xbf16>, tensor<4x32xbf16>) -> (tensor<2x1x4x32xi8>, tensor<1xf32>)
  return
}

// -----

// incre, f16 query, int8 key/value, combined per-channel antiquant (2, KV_N, 1, D) with offset.
// CHECK-LABEL: func.func @incre_antiquant_combined_channel(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<1x1x256xf16>, tensor<1xf32>)
func.func @incre_antiquant_combined_channel(%query: tensor<1x1x256xf16>, %key: tensor<1x32x128xi8>, %value: tensor<1x32x128xi8>, %antiquant_scale: tensor<2x2x1x64xf16>, %antiquant_offset: tensor<2x2x1x64xf16>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %antiquant_scale, %antiquant_offset) {num_heads = 4 : i64, num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x1x256xf16>, tensor<1x32x128xi8>, tensor<1x32x128xi8>, tensor<2x2x1x64xf16>, tensor<2x2x1x64xf16>) -> (tensor<1x1x256xf16>, tensor<1xf32>)
  return
}

// -----

// incre, bf16 query, int8 key/value, combined per-token antiquant (2, B, S') f32, antiquant_mode
// 1.
// CHECK-LABEL: func.func @incre_antiquant_combined_token(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3)
// CHECK-SAME: -> (tensor<2x1x128xbf16>, tensor<1xf32>)
func.func @incre_antiquant_combined_token(%query: tensor<2x1x128xbf16>, %key: tensor<2x32x128xi8>, %value: tensor<2x32x128xi8>, %antiquant_scale: tensor<2x2x32xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %antiquant_scale) {num_heads = 2 : i64, antiquant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x128xbf16>, tensor<2x32x128xi8>, tensor<2x32x128xi8>, tensor<2x2x32xf32>) -> (tensor<2x1x128xbf16>, tensor<1xf32>)
  return
}

// -----

// prompt, f16 query, int8 key/value, combined per-tensor antiquant (2) f16.
// CHECK-LABEL: func.func @prompt_antiquant_combined(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3)
// CHECK-SAME: -> (tensor<1x4x128xf16>, tensor<1xf32>)
func.func @prompt_antiquant_combined(%query: tensor<1x4x128xf16>, %key: tensor<1x16x128xi8>, %value: tensor<1x16x128xi8>, %antiquant_scale: tensor<2xf16>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %antiquant_scale) {num_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x128xf16>, tensor<1x16x128xi8>, tensor<1x16x128xi8>, tensor<2xf16>) -> (tensor<1x4x128xf16>, tensor<1xf32>)
  return
}

// -----

// incre, separate key/value antiquant, mode 0 per-channel (1, KV_N, D) bf16 with offsets.
// CHECK-LABEL: func.func @incre_separate_per_channel(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6)
// CHECK-SAME: -> (tensor<1x1x2x64xbf16>, tensor<1xf32>)
func.func @incre_separate_per_channel(%query: tensor<1x1x2x64xbf16>, %key: tensor<1x16x2x64xi8>, %value: tensor<1x16x2x64xi8>, %key_antiquant_scale: tensor<1x2x64xbf16>, %key_antiquant_offset: tensor<1x2x64xbf16>, %value_antiquant_scale: tensor<1x2x64xbf16>, %value_antiquant_offset: tensor<1x2x64xbf16>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %key_antiquant_offset, %value_antiquant_scale, %value_antiquant_offset) {num_heads = 2 : i64, input_layout = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x1x2x64xbf16>, tensor<1x16x2x64xi8>, tensor<1x16x2x64xi8>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>) -> (tensor<1x1x2x64xbf16>, tensor<1xf32>)
  return
}

// -----

// incre, separate antiquant mode 0 per-tensor (1) f16.
// CHECK-LABEL: func.func @incre_separate_per_tensor(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<1x1x2x64xf16>, tensor<1xf32>)
func.func @incre_separate_per_tensor(%query: tensor<1x1x2x64xf16>, %key: tensor<1x16x2x64xi8>, %value: tensor<1x16x2x64xi8>, %key_antiquant_scale: tensor<1xf16>, %value_antiquant_scale: tensor<1xf16>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 2 : i64, input_layout = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x1x2x64xf16>, tensor<1x16x2x64xi8>, tensor<1x16x2x64xi8>, tensor<1xf16>, tensor<1xf16>) -> (tensor<1x1x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// incre, separate antiquant mode 1 per-token (1, B, S') f32.
// CHECK-LABEL: func.func @incre_separate_per_token(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<2x1x2x64xbf16>, tensor<1xf32>)
func.func @incre_separate_per_token(%query: tensor<2x1x2x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<1x2x16xf32>, %value_antiquant_scale: tensor<1x2x16xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 2 : i64, input_layout = "BSND", key_antiquant_mode = 1 : i64, value_antiquant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x2x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1x2x16xf32>, tensor<1x2x16xf32>) -> (tensor<2x1x2x64xbf16>, tensor<1xf32>)
  return
}

// -----

// incre, separate antiquant mode 2 per-tensor+per-head (KV_N).
// CHECK-LABEL: func.func @incre_separate_per_tensor_head(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<1x1x4x64xbf16>, tensor<1xf32>)
func.func @incre_separate_per_tensor_head(%query: tensor<1x1x4x64xbf16>, %key: tensor<1x16x2x64xi8>, %value: tensor<1x16x2x64xi8>, %key_antiquant_scale: tensor<2xbf16>, %value_antiquant_scale: tensor<2xbf16>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, key_antiquant_mode = 2 : i64, value_antiquant_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x1x4x64xbf16>, tensor<1x16x2x64xi8>, tensor<1x16x2x64xi8>, tensor<2xbf16>, tensor<2xbf16>) -> (tensor<1x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// incre, separate antiquant mode 3 per-token+per-head (B, KV_N, S') f32.
// CHECK-LABEL: func.func @incre_separate_per_token_head(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
func.func @incre_separate_per_token_head(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<2x2x16xf32>, %value_antiquant_scale: tensor<2x2x16xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, key_antiquant_mode = 3 : i64, value_antiquant_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2x2x16xf32>, tensor<2x2x16xf32>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// incre, separate antiquant mode 4: per-token scales managed by page attention (block_num,
// block_size).
// CHECK-LABEL: func.func @incre_separate_paged_token(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5)
// CHECK-SAME: -> (tensor<1x1x128xf16>, tensor<1xf32>)
func.func @incre_separate_paged_token(%query: tensor<1x1x128xf16>, %key: tensor<3x16x128xi8>, %value: tensor<3x16x128xi8>, %block_table: tensor<1x3xi32>, %key_antiquant_scale: tensor<3x16xf32>, %value_antiquant_scale: tensor<3x16xf32>) {
  // expected-warning @+1 {{key: the BnNBsD cache (block_num, KV_N, block_size, D) is usually faster than BnBsH [FIA-231]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table, %key_antiquant_scale, %value_antiquant_scale) {actual_seq_lengths_kv = array<i64: 33>, num_heads = 2 : i64, block_size = 16 : i64, key_antiquant_mode = 4 : i64, value_antiquant_mode = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x1x128xf16>, tensor<3x16x128xi8>, tensor<3x16x128xi8>, tensor<1x3xi32>, tensor<3x16xf32>, tensor<3x16xf32>) -> (tensor<1x1x128xf16>, tensor<1xf32>)
  return
}

// -----

// incre, separate antiquant mode 5: per-token+per-head scales managed by page attention
// (block_num, KV_N, block_size).
// CHECK-LABEL: func.func @incre_separate_paged_token_head(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5)
// CHECK-SAME: -> (tensor<1x2x1x64xf16>, tensor<1xf32>)
func.func @incre_separate_paged_token_head(%query: tensor<1x2x1x64xf16>, %key: tensor<3x2x16x64xi8>, %value: tensor<3x2x16x64xi8>, %block_table: tensor<1x3xi32>, %key_antiquant_scale: tensor<3x2x16xf32>, %value_antiquant_scale: tensor<3x2x16xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table, %key_antiquant_scale, %value_antiquant_scale) {actual_seq_lengths_kv = array<i64: 33>, num_heads = 2 : i64, input_layout = "BNSD", block_size = 16 : i64, key_antiquant_mode = 5 : i64, value_antiquant_mode = 5 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x2x1x64xf16>, tensor<3x2x16x64xi8>, tensor<3x2x16x64xi8>, tensor<1x3xi32>, tensor<3x2x16xf32>, tensor<3x2x16xf32>) -> (tensor<1x2x1x64xf16>, tensor<1xf32>)
  return
}

// -----

// incre, key per-channel (mode 0) with value per-token (mode 1), f16 query and output.
// CHECK-LABEL: func.func @incre_separate_key_channel_value_token(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<2x1x2x64xf16>, tensor<1xf32>)
func.func @incre_separate_key_channel_value_token(%query: tensor<2x1x2x64xf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<1x128xf16>, %value_antiquant_scale: tensor<1x2x16xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 2 : i64, input_layout = "BSND", key_antiquant_mode = 0 : i64, value_antiquant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x2x64xf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1x128xf16>, tensor<1x2x16xf32>) -> (tensor<2x1x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// incre, INT4 key/value packed in INT32 (stored D 8 = logical 64), separate per-channel antiquant.
// CHECK-LABEL: func.func @incre_int4_packed(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<1x1x2x64xbf16>, tensor<1xf32>)
func.func @incre_int4_packed(%query: tensor<1x1x2x64xbf16>, %key: tensor<1x16x2x8xi32>, %value: tensor<1x16x2x8xi32>, %key_antiquant_scale: tensor<1x2x1x64xbf16>, %value_antiquant_scale: tensor<1x2x1x64xbf16>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 2 : i64, input_layout = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x1x2x64xbf16>, tensor<1x16x2x8xi32>, tensor<1x16x2x8xi32>, tensor<1x2x1x64xbf16>, tensor<1x2x1x64xbf16>) -> (tensor<1x1x2x64xbf16>, tensor<1xf32>)
  return
}

// -----

// prompt, bf16 query, int8 key/value, separate per-channel antiquant (KV_N, D) bf16, Q_S <= 16.
// CHECK-LABEL: func.func @prompt_separate_per_channel(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<1x4x2x64xbf16>, tensor<1xf32>)
func.func @prompt_separate_per_channel(%query: tensor<1x4x2x64xbf16>, %key: tensor<1x16x2x64xi8>, %value: tensor<1x16x2x64xi8>, %key_antiquant_scale: tensor<2x64xbf16>, %value_antiquant_scale: tensor<2x64xbf16>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 2 : i64, input_layout = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xbf16>, tensor<1x16x2x64xi8>, tensor<1x16x2x64xi8>, tensor<2x64xbf16>, tensor<2x64xbf16>) -> (tensor<1x4x2x64xbf16>, tensor<1xf32>)
  return
}

// -----

// prompt, separate per-token antiquant (B, S') f32.
// CHECK-LABEL: func.func @prompt_separate_per_token(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<2x4x2x64xbf16>, tensor<1xf32>)
func.func @prompt_separate_per_token(%query: tensor<2x4x2x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<2x16xf32>, %value_antiquant_scale: tensor<2x16xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 2 : i64, input_layout = "BSND", key_antiquant_mode = 1 : i64, value_antiquant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x4x2x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2x16xf32>, tensor<2x16xf32>) -> (tensor<2x4x2x64xbf16>, tensor<1xf32>)
  return
}

// -----

// prompt, BSND, shared prefix (1, Sp, KV_N, D) with actual_shared_prefix_len, mask covering P +
// KV_S.
// CHECK-LABEL: func.func @prompt_shared_prefix(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5)
// CHECK-SAME: -> (tensor<2x4x2x64xf16>, tensor<1xf32>)
func.func @prompt_shared_prefix(%query: tensor<2x4x2x64xf16>, %key: tensor<2x8x2x64xf16>, %value: tensor<2x8x2x64xf16>, %atten_mask: tensor<2x4x16xi1>, %key_shared_prefix: tensor<1x8x2x64xf16>, %value_shared_prefix: tensor<1x8x2x64xf16>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask, %key_shared_prefix, %value_shared_prefix) {actual_shared_prefix_len = array<i64: 6>, num_heads = 2 : i64, input_layout = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x4x2x64xf16>, tensor<2x8x2x64xf16>, tensor<2x8x2x64xf16>, tensor<2x4x16xi1>, tensor<1x8x2x64xf16>, tensor<1x8x2x64xf16>) -> (tensor<2x4x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// incre, BSH, shared prefix (1, Sp, H_kv) used whole.
// CHECK-LABEL: func.func @incre_shared_prefix_bsh(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<2x1x128xbf16>, tensor<1xf32>)
func.func @incre_shared_prefix_bsh(%query: tensor<2x1x128xbf16>, %key: tensor<2x8x128xbf16>, %value: tensor<2x8x128xbf16>, %key_shared_prefix: tensor<1x5x128xbf16>, %value_shared_prefix: tensor<1x5x128xbf16>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_shared_prefix, %value_shared_prefix) {num_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x1x128xbf16>, tensor<2x8x128xbf16>, tensor<2x8x128xbf16>, tensor<1x5x128xbf16>, tensor<1x5x128xbf16>) -> (tensor<2x1x128xbf16>, tensor<1xf32>)
  return
}

// -----

// incre, shared prefix with query_padding_size and actual_seq_lengths: with Q_S = 1 both are
// ignored (L290, L688), so there is no query left padding for FIA-197 to exclude.
// CHECK-LABEL: func.func @incre_shared_prefix_ignored_query_padding(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5)
// CHECK-SAME: -> (tensor<2x1x128xbf16>, tensor<1xf32>)
func.func @incre_shared_prefix_ignored_query_padding(%query: tensor<2x1x128xbf16>, %key: tensor<2x8x128xbf16>, %value: tensor<2x8x128xbf16>, %query_padding_size: tensor<1xi64>, %key_shared_prefix: tensor<1x5x128xbf16>, %value_shared_prefix: tensor<1x5x128xbf16>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %query_padding_size, %key_shared_prefix, %value_shared_prefix) {actual_seq_lengths = array<i64: 1>, num_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x1x128xbf16>, tensor<2x8x128xbf16>, tensor<2x8x128xbf16>, tensor<1xi64>, tensor<1x5x128xbf16>, tensor<1x5x128xbf16>) -> (tensor<2x1x128xbf16>, tensor<1xf32>)
  return
}

// -----

// prompt, query and kv left padding (tensor<1xi64> sizes with the actual lengths).
// CHECK-LABEL: func.func @prompt_left_padding(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<2x8x2x64xf16>, tensor<1xf32>)
func.func @prompt_left_padding(%query: tensor<2x8x2x64xf16>, %key: tensor<2x16x2x64xf16>, %value: tensor<2x16x2x64xf16>, %query_padding_size: tensor<1xi64>, %kv_padding_size: tensor<1xi64>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %query_padding_size, %kv_padding_size) {actual_seq_lengths = array<i64: 5, 3>, actual_seq_lengths_kv = array<i64: 10, 12>, num_heads = 2 : i64, input_layout = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x2x64xf16>, tensor<2x16x2x64xf16>, tensor<2x16x2x64xf16>, tensor<1xi64>, tensor<1xi64>) -> (tensor<2x8x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// MLA mode, decode (Q_S = 1): the prolog's query (T, N, 512) as BSND (B, 1, N, 512), the PA_BSND
// latent cache (block_num, block_size, 1, 512) as key and value (the same value), the rope cache
// as key_rope.
// CHECK-LABEL: func.func @mla_decode_pa_bsnd(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<4x1x128x512xbf16>, tensor<4x128x1x1xf32>)
func.func @mla_decode_pa_bsnd(%query: tensor<4x1x128x512xbf16>, %key: tensor<8x128x1x512xbf16>, %block_table: tensor<4x2xi32>, %query_rope: tensor<4x1x128x64xbf16>, %key_rope: tensor<8x128x1x64xbf16>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 200, 1, 128, 70>, num_heads = 128 : i64, scale_value = 0.07216878364870322 : f64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, softmax_lse_flag = true, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<4x1x128x512xbf16>, tensor<8x128x1x512xbf16>, tensor<8x128x1x512xbf16>, tensor<4x2xi32>, tensor<4x1x128x64xbf16>, tensor<8x128x1x64xbf16>) -> (tensor<4x1x128x512xbf16>, tensor<4x128x1x1xf32>)
  return
}

// -----

// MLA mode, MTP (Q_S = 2): sparse_mode 3 with the 2048x2048 mask, block_size 16, BnBsH caches
// (block_num, 16, 512).
// CHECK-LABEL: func.func @mla_mtp_bnbsh(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg1, %arg2, %arg3, %arg4, %arg5)
// CHECK-SAME: -> (tensor<2x2x16x512xf16>, tensor<1xf32>)
func.func @mla_mtp_bnbsh(%query: tensor<2x2x16x512xf16>, %key: tensor<10x16x512xf16>, %atten_mask: tensor<2048x2048xi8>, %block_table: tensor<2x5xi32>, %query_rope: tensor<2x2x16x64xf16>, %key_rope: tensor<10x16x64xf16>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %atten_mask, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 70, 33>, num_heads = 16 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, sparse_mode = 3 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x2x16x512xf16>, tensor<10x16x512xf16>, tensor<10x16x512xf16>, tensor<2048x2048xi8>, tensor<2x5xi32>, tensor<2x2x16x64xf16>, tensor<10x16x64xf16>) -> (tensor<2x2x16x512xf16>, tensor<1xf32>)
  return
}

// -----

// MLA mode, decode with the PA_NZ caches: FRACTAL_NZ (block_num, block_size, 512) and (block_num,
// block_size, 64), query BSH.
// CHECK-LABEL: func.func @mla_decode_pa_nz(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<2x1x16384xbf16>, tensor<1xf32>)
func.func @mla_decode_pa_nz(%query: tensor<2x1x16384xbf16>, %key: tensor<4x128x512xbf16, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %query_rope: tensor<2x1x2048xbf16>, %key_rope: tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 129, 5>, num_heads = 32 : i64, num_key_value_heads = 1 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x16384xbf16>, tensor<4x128x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x128x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<2x1x2048xbf16>, tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>) -> (tensor<2x1x16384xbf16>, tensor<1xf32>)
  return
}

// -----

// MLA mode, decode, BNSD query, FRACTAL_NZ BnNBsD caches (block_num, 1, block_size, D).
// CHECK-LABEL: func.func @mla_decode_bnnbsd_nz(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5)
// CHECK-SAME: -> (tensor<1x8x1x512xbf16>, tensor<1xf32>)
func.func @mla_decode_bnnbsd_nz(%query: tensor<1x8x1x512xbf16>, %key: tensor<2x1x16x512xbf16, #mla.format<"FRACTAL_NZ">>, %value: tensor<2x1x16x512xbf16, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<1x2xi32>, %query_rope: tensor<1x8x1x64xbf16>, %key_rope: tensor<2x1x16x64xbf16, #mla.format<"FRACTAL_NZ">>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 20>, num_heads = 8 : i64, input_layout = "BNSD", num_key_value_heads = 1 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<1x8x1x512xbf16>, tensor<2x1x16x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x1x16x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x2xi32>, tensor<1x8x1x64xbf16>, tensor<2x1x16x64xbf16, #mla.format<"FRACTAL_NZ">>) -> (tensor<1x8x1x512xbf16>, tensor<1xf32>)
  return
}

// -----

// prompt, BSND, f16, sparse_mode 2 (leftUpCausal) with the (1, 2048, 2048) mask.
// CHECK-LABEL: func.func @prompt_sparse2_left_up_causal(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3)
// CHECK-SAME: -> (tensor<2x6x2x64xf16>, tensor<1xf32>)
func.func @prompt_sparse2_left_up_causal(%query: tensor<2x6x2x64xf16>, %key: tensor<2x6x2x64xf16>, %value: tensor<2x6x2x64xf16>, %atten_mask: tensor<1x2048x2048xui8>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask) {num_heads = 2 : i64, input_layout = "BSND", sparse_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x6x2x64xf16>, tensor<2x6x2x64xf16>, tensor<2x6x2x64xf16>, tensor<1x2048x2048xui8>) -> (tensor<2x6x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// prompt, full quant with an f16 pse_shift (B, N, Q_S', KV_S') and an int8 query.
// CHECK-LABEL: func.func @prompt_pse_int8_query(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6)
// CHECK-SAME: -> (tensor<2x4x2x64xf16>, tensor<1xf32>)
func.func @prompt_pse_int8_query(%query: tensor<2x4x2x64xi8>, %key: tensor<2x8x2x64xi8>, %value: tensor<2x8x2x64xi8>, %pse_shift: tensor<2x2x4x16xf16>, %dequant_scale1: tensor<1xf32>, %quant_scale1: tensor<1xf32>, %dequant_scale2: tensor<1xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %pse_shift, %dequant_scale1, %quant_scale1, %dequant_scale2) {num_heads = 2 : i64, input_layout = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x4x2x64xi8>, tensor<2x8x2x64xi8>, tensor<2x8x2x64xi8>, tensor<2x2x4x16xf16>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<2x4x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// prompt, BSH, f16 query to int8 output, per-tensor f32 quant_scale2 and quant_offset2.
// CHECK-LABEL: func.func @prompt_post_quant_per_tensor_bsh(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<1x4x128xi8>, tensor<1xf32>)
func.func @prompt_post_quant_per_tensor_bsh(%query: tensor<1x4x128xf16>, %key: tensor<1x8x128xf16>, %value: tensor<1x8x128xf16>, %quant_scale2: tensor<1xf32>, %quant_offset2: tensor<1xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %quant_scale2, %quant_offset2) {num_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x128xf16>, tensor<1x8x128xf16>, tensor<1x8x128xf16>, tensor<1xf32>, tensor<1xf32>) -> (tensor<1x4x128xi8>, tensor<1xf32>)
  return
}

// -----

// incre, native INT4 (i4) key/value, separate per-token+per-head antiquant (mode 3).
// CHECK-LABEL: func.func @incre_int4_native_per_token_head(
// CHECK: "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: -> (tensor<2x1x2x64xf16>, tensor<1xf32>)
func.func @incre_int4_native_per_token_head(%query: tensor<2x1x2x64xf16>, %key: tensor<2x16x2x64xi4>, %value: tensor<2x16x2x64xi4>, %key_antiquant_scale: tensor<2x2x16xf32>, %value_antiquant_scale: tensor<2x2x16xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 2 : i64, input_layout = "BSND", key_antiquant_mode = 3 : i64, value_antiquant_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x2x64xf16>, tensor<2x16x2x64xi4>, tensor<2x16x2x64xi4>, tensor<2x2x16xf32>, tensor<2x2x16xf32>) -> (tensor<2x1x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// MLA full-quant mode, decode: i8 query (BSND) with its per-(token, head) scale (B, S, N), i8
// FRACTAL_NZ latent cache with per-tensor key/value scales, bf16 rope parts, bf16 output.
// CHECK-LABEL: func.func @mla_full_quant(
// CHECK: query_quant_mode = 3
// CHECK-SAME: -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
func.func @mla_full_quant(%query: tensor<2x1x8x512xi8>, %key: tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %kscale: tensor<1xf32>, %vscale: tensor<1xf32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, %qscale: tensor<2x1x8xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %kscale, %vscale, %query_rope, %key_rope, %qscale) {actual_seq_lengths_kv = array<i64: 129, 5>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, query_quant_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xi8>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<1xf32>, tensor<1xf32>, tensor<2x1x8x64xbf16>, tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x1x8xf32>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// MLA full-quant mode, MTP (Q_S = 2): sparse_mode 3 with the 2048x2048 mask, BSH query.
// CHECK-LABEL: func.func @mla_full_quant_mtp(
// CHECK: "mla.fused_infer_attention_score"
// CHECK-SAME: sparse_mode = 3
// CHECK-SAME: -> (tensor<2x2x4096xbf16>, tensor<1xf32>)
func.func @mla_full_quant_mtp(%query: tensor<2x2x4096xi8>, %key: tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, %mask: tensor<2048x2048xi8>, %block_table: tensor<2x2xi32>, %kscale: tensor<1xf32>, %vscale: tensor<1xf32>, %query_rope: tensor<2x2x512xbf16>, %key_rope: tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, %qscale: tensor<2x2x8xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %mask, %block_table, %kscale, %vscale, %query_rope, %key_rope, %qscale) {actual_seq_lengths_kv = array<i64: 129, 5>, num_heads = 8 : i64, num_key_value_heads = 1 : i64, sparse_mode = 3 : i64, block_size = 128 : i64, query_quant_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0>} : (tensor<2x2x4096xi8>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<2048x2048xi8>, tensor<2x2xi32>, tensor<1xf32>, tensor<1xf32>, tensor<2x2x512xbf16>, tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x2x8xf32>) -> (tensor<2x2x4096xbf16>, tensor<1xf32>)
  return
}

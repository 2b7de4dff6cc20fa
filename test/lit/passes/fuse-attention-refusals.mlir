// RUN: mla-opt %s --split-input-file --fuse-attention --verify-diagnostics | FileCheck %s

// Where FIA would reject the call, the primitive stays, with a remark naming FIA's rule.

// MLA mode with 3 query heads.
// CHECK-LABEL: func.func @three_heads
// CHECK: "mla.paged_attention"
func.func @three_heads(
    %q: tensor<2x1x3x512xbf16> {mla.name = "q"},
    %kv_cache: tensor<6x16x1x512xbf16> {mla.name = "kv_cache"},
    %block_table: tensor<2x3xi32> {mla.name = "block_table"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"},
    %q_rope: tensor<2x1x3x64xbf16> {mla.name = "q_rope"},
    %kr_cache: tensor<6x16x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<2x1x3x512xbf16>) {
  // expected-remark @+1 {{[FIA-MLA-8]}}
  %paged_attention = "mla.paged_attention"(%q, %kv_cache, %kv_cache, %block_table, %seq_lengths, %q_rope, %kr_cache) {scale_value = 0.1 : f64, cache_mode = "PA_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x3x512xbf16>, tensor<6x16x1x512xbf16>, tensor<6x16x1x512xbf16>, tensor<2x3xi32>, tensor<2xi64>, tensor<2x1x3x64xbf16>, tensor<6x16x1x64xbf16>) -> (tensor<2x1x3x512xbf16>)
  return %paged_attention : tensor<2x1x3x512xbf16>
}

// -----

// MLA mode with block size 64.
// CHECK-LABEL: func.func @block_size_64
// CHECK: "mla.paged_attention"
func.func @block_size_64(
    %q: tensor<2x1x8x512xbf16> {mla.name = "q"},
    %kv_cache: tensor<3x64x1x512xbf16> {mla.name = "kv_cache"},
    %block_table: tensor<2x3xi32> {mla.name = "block_table"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"},
    %q_rope: tensor<2x1x8x64xbf16> {mla.name = "q_rope"},
    %kr_cache: tensor<3x64x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<2x1x8x512xbf16>) {
  // expected-remark @+1 {{[FIA-MLA-12]}}
  %paged_attention = "mla.paged_attention"(%q, %kv_cache, %kv_cache, %block_table, %seq_lengths, %q_rope, %kr_cache) {scale_value = 0.1 : f64, cache_mode = "PA_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<3x64x1x512xbf16>, tensor<3x64x1x512xbf16>, tensor<2x3xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<3x64x1x64xbf16>) -> (tensor<2x1x8x512xbf16>)
  return %paged_attention : tensor<2x1x8x512xbf16>
}

// -----

// A dense attention with both a mask and causal.
// CHECK-LABEL: func.func @mask_and_causal
// CHECK: "mla.attention"
func.func @mask_and_causal(
    %q: tensor<2x4x8x64xbf16> {mla.name = "q"},
    %k: tensor<2x4x2x64xbf16> {mla.name = "k"},
    %v: tensor<2x4x2x64xbf16> {mla.name = "v"},
    %mask: tensor<4x4xi8> {mla.name = "mask"})
    -> (tensor<2x4x8x64xbf16>) {
  // expected-remark @+1 {{a dense attention with both a mask and causal has no single FIA sparse mode [FUSE-001]}}
  %attention = "mla.attention"(%q, %k, %v, %mask) {scale_value = 0.125 : f64, causal = true, operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<2x4x8x64xbf16>, tensor<2x4x2x64xbf16>, tensor<2x4x2x64xbf16>, tensor<4x4xi8>) -> (tensor<2x4x8x64xbf16>)
  return %attention : tensor<2x4x8x64xbf16>
}

// -----

// An int8 query and latent cache over PA_BSND caches: FIA's MLA full-quant mode reads NZ ones.
// CHECK-LABEL: func.func @mla_full_quant_bsnd
// CHECK: "mla.paged_attention"
// CHECK-NOT: "mla.fused_infer_attention_score"
func.func @mla_full_quant_bsnd(
    %q: tensor<2x1x8x512xi8> {mla.name = "q"},
    %kv_cache: tensor<4x128x1x512xi8> {mla.name = "kv_cache"},
    %block_table: tensor<2x2xi32> {mla.name = "block_table"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"},
    %q_rope: tensor<2x1x8x64xbf16> {mla.name = "q_rope"},
    %kr_cache: tensor<4x128x1x64xbf16> {mla.name = "kr_cache"},
    %q_scale: tensor<2x1x8x1xf32> {mla.name = "q_scale"},
    %kv_scale: tensor<1xf32> {mla.name = "kv_scale"})
    -> (tensor<2x1x8x512xbf16>) {
  // expected-remark @+1 {{key: expected a FRACTAL_NZ latent cache in the MLA full-quant mode (the int8 [blockNum, 1, D/32, blockSize, 32] form), got tensor<4x128x1x512xi8> [FIA-MLAQ-5]}}
  %paged_attention = "mla.paged_attention"(%q, %kv_cache, %kv_cache, %block_table, %seq_lengths, %q_rope, %kr_cache, %q_scale, %kv_scale) {scale_value = 0.1 : f64, cache_mode = "PA_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<2x1x8x512xi8>, tensor<4x128x1x512xi8>, tensor<4x128x1x512xi8>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<4x128x1x64xbf16>, tensor<2x1x8x1xf32>, tensor<1xf32>) -> (tensor<2x1x8x512xbf16>)
  return %paged_attention : tensor<2x1x8x512xbf16>
}

// -----

// PA_NZ caches with block size 16: the MLA full-quant mode takes 128.
// CHECK-LABEL: func.func @mla_full_quant_block_16
// CHECK: "mla.paged_attention"
// CHECK-NOT: "mla.fused_infer_attention_score"
func.func @mla_full_quant_block_16(
    %q: tensor<2x1x8x512xi8> {mla.name = "q"},
    %kv_cache: tensor<16x16x1x512xi8> {mla.name = "kv_cache"},
    %block_table: tensor<2x8xi32> {mla.name = "block_table"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"},
    %q_rope: tensor<2x1x8x64xbf16> {mla.name = "q_rope"},
    %kr_cache: tensor<16x16x1x64xbf16> {mla.name = "kr_cache"},
    %q_scale: tensor<2x1x8x1xf32> {mla.name = "q_scale"},
    %kv_scale: tensor<1xf32> {mla.name = "kv_scale"})
    -> (tensor<2x1x8x512xbf16>) {
  // expected-remark @+1 {{block_size: expected 128 in the MLA full-quant mode, got 16 [FIA-MLAQ-6]}}
  %paged_attention = "mla.paged_attention"(%q, %kv_cache, %kv_cache, %block_table, %seq_lengths, %q_rope, %kr_cache, %q_scale, %kv_scale) {scale_value = 0.1 : f64, cache_mode = "PA_NZ", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<2x1x8x512xi8>, tensor<16x16x1x512xi8>, tensor<16x16x1x512xi8>, tensor<2x8xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<16x16x1x64xbf16>, tensor<2x1x8x1xf32>, tensor<1xf32>) -> (tensor<2x1x8x512xbf16>)
  return %paged_attention : tensor<2x1x8x512xbf16>
}

// -----

// An int8 query without a rope part: FIA's per-token-head query dequantization is the MLA
// full-quant mode's only.
// CHECK-LABEL: func.func @int8_without_rope
// CHECK: "mla.paged_attention"
func.func @int8_without_rope(
    %q: tensor<2x1x8x512xi8> {mla.name = "q"},
    %kv_cache: tensor<4x128x1x512xi8> {mla.name = "kv_cache"},
    %block_table: tensor<2x2xi32> {mla.name = "block_table"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"},
    %q_scale: tensor<2x1x8x1xf32> {mla.name = "q_scale"},
    %kv_scale: tensor<1xf32> {mla.name = "kv_scale"})
    -> (tensor<2x1x8x512xbf16>) {
  // expected-remark @+1 {{an int8 query without a rope part: FIA dequantizes a query per token and head only in MLA mode (the full-quant mode) [FIA-MLAQ-1]}}
  %paged_attention = "mla.paged_attention"(%q, %kv_cache, %kv_cache, %block_table, %seq_lengths, %q_scale, %kv_scale) {scale_value = 0.1 : f64, cache_mode = "PA_NZ", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 1, 1>} : (tensor<2x1x8x512xi8>, tensor<4x128x1x512xi8>, tensor<4x128x1x512xi8>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x1xf32>, tensor<1xf32>) -> (tensor<2x1x8x512xbf16>)
  return %paged_attention : tensor<2x1x8x512xbf16>
}

// -----

// A dynamic dimension in the rope cache (the compile() fuzzer: a TypeError from flattening it).
// CHECK-LABEL: func.func @dynamic_rope_cache
// CHECK: "mla.paged_attention"
func.func @dynamic_rope_cache(
    %q: tensor<2x1x8x512xbf16> {mla.name = "q"},
    %kv_cache: tensor<6x16x1x512xbf16> {mla.name = "kv_cache"},
    %block_table: tensor<2x3xi32> {mla.name = "block_table"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"},
    %q_rope: tensor<2x1x8x64xbf16> {mla.name = "q_rope"},
    %kr_cache: tensor<6x16x1x?xbf16> {mla.name = "kr_cache"})
    -> (tensor<2x1x8x512xbf16>) {
  // expected-remark @+1 {{dynamic shapes: FIA takes static ones}}
  %paged_attention = "mla.paged_attention"(%q, %kv_cache, %kv_cache, %block_table, %seq_lengths, %q_rope, %kr_cache) {scale_value = 0.1 : f64, cache_mode = "PA_NZ", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<6x16x1x512xbf16>, tensor<6x16x1x512xbf16>, tensor<2x3xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<6x16x1x?xbf16>) -> (tensor<2x1x8x512xbf16>)
  return %paged_attention : tensor<2x1x8x512xbf16>
}

// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid mla.paged_attention ops, one configuration per split.

// MLA decode: one latent cache as key and value, the rope part, PA_NZ
// CHECK-LABEL: func.func @mla_decode
// CHECK: %0 = "mla.paged_attention"(%arg0, %arg1, %arg1, %arg2, %arg3, %arg4, %arg5) {cache_mode = "PA_NZ", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>, scale_value = 6.250000e-02 : f64} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
func.func @mla_decode(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>) {
  %0 = "mla.paged_attention"(%query, %key_cache, %key_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {scale_value = 0.0625 : f64, cache_mode = "PA_NZ", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// GQA (8 query heads over 2 kv heads), 3 query tokens (causal), f16, Dv != D
// CHECK-LABEL: func.func @gqa_causal
// CHECK: %0 = "mla.paged_attention"(%arg0, %arg1, %arg2, %arg3, %arg4) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<1x3x8x64xf16>, tensor<4x16x2x64xf16>, tensor<4x16x2x32xf16>, tensor<1x4xi32>, tensor<1xi32>) -> tensor<1x3x8x32xf16>
func.func @gqa_causal(%query: tensor<1x3x8x64xf16>, %key_cache: tensor<4x16x2x64xf16>, %value_cache: tensor<4x16x2x32xf16>, %block_table: tensor<1x4xi32>, %seq_lengths: tensor<1xi32>) {
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<1x3x8x64xf16>, tensor<4x16x2x64xf16>, tensor<4x16x2x32xf16>, tensor<1x4xi32>, tensor<1xi32>) -> tensor<1x3x8x32xf16>
  return
}

// -----

// int8 query and caches with their dequantization scales (the prolog's FQ-KVQ outputs)
// CHECK-LABEL: func.func @int8
// CHECK: %0 = "mla.paged_attention"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<2x1x8x512xi8>, tensor<5x16x1x512xi8>, tensor<5x16x1x512xi8>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>, tensor<2x1x8x1xf32>, tensor<1xf32>) -> tensor<2x1x8x512xbf16>
func.func @int8(%query: tensor<2x1x8x512xi8>, %key_cache: tensor<5x16x1x512xi8>, %value_cache: tensor<5x16x1x512xi8>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>, %dequant_scale_query: tensor<2x1x8x1xf32>, %key_dequant_scale: tensor<1xf32>) {
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache, %dequant_scale_query, %key_dequant_scale) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<2x1x8x512xi8>, tensor<5x16x1x512xi8>, tensor<5x16x1x512xi8>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>, tensor<2x1x8x1xf32>, tensor<1xf32>) -> tensor<2x1x8x512xbf16>
  return
}

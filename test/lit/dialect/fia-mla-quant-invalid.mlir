// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.fused_infer_attention_score, the MLA full-quant mode (FIA-MLAQ-*): an i8 query with
// dequant_scale_query, i8 FRACTAL_NZ latent caches with per-tensor key/value dequant scales,
// bf16 rope parts and output. Each split changes one thing of the valid op in fia.mlir.

// FIA-MLAQ-1 dequant_scale_query is required with an i8 query in MLA mode
func.func @no_query_scale(%query: tensor<2x1x8x512xi8>, %key: tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %kscale: tensor<1xf32>, %vscale: tensor<1xf32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{dequant_scale_query: required for an i8 query in MLA mode (its per-token per-head dequant scale), got none [FIA-MLAQ-1]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %kscale, %vscale, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 129, 5>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, query_quant_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x8x512xi8>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<1xf32>, tensor<1xf32>, tensor<2x1x8x64xbf16>, tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLAQ-1 dequant_scale_query is the query's shape without D
func.func @query_scale_shape(%query: tensor<2x1x8x512xi8>, %key: tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %kscale: tensor<1xf32>, %vscale: tensor<1xf32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, %qscale: tensor<2x1x8x1xf32>) {
  // expected-error @+1 {{dequant_scale_query: expected an f32 tensor (2, 1, 8) (the query's shape without D), got tensor<2x1x8x1xf32> [FIA-MLAQ-1]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %kscale, %vscale, %query_rope, %key_rope, %qscale) {actual_seq_lengths_kv = array<i64: 129, 5>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, query_quant_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xi8>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<1xf32>, tensor<1xf32>, tensor<2x1x8x64xbf16>, tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x1x8x1xf32>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLAQ-2 query_quant_mode is 3 (per-token per-head) in the full-quant mode
func.func @query_quant_mode(%query: tensor<2x1x8x512xi8>, %key: tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %kscale: tensor<1xf32>, %vscale: tensor<1xf32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, %qscale: tensor<2x1x8xf32>) {
  // expected-error @+1 {{query_quant_mode: expected 3 (3: per-token per-head, the MLA full-quant mode's only mode; 0 otherwise), got 1 [FIA-MLAQ-2]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %kscale, %vscale, %query_rope, %key_rope, %qscale) {actual_seq_lengths_kv = array<i64: 129, 5>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, query_quant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xi8>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<1xf32>, tensor<1xf32>, tensor<2x1x8x64xbf16>, tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x1x8xf32>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLAQ-3 the key/value dequant scales are per tensor, f32 (1,)
func.func @key_scale_shape(%query: tensor<2x1x8x512xi8>, %key: tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %kscale: tensor<512xf32>, %vscale: tensor<1xf32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, %qscale: tensor<2x1x8xf32>) {
  // expected-error @+1 {{key_antiquant_scale: expected an f32 tensor (1,) (the per-tensor dequant scale of the int8 latent cache, MLA full-quant mode), got tensor<512xf32> [FIA-MLAQ-3]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %kscale, %vscale, %query_rope, %key_rope, %qscale) {actual_seq_lengths_kv = array<i64: 129, 5>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, query_quant_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xi8>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<512xf32>, tensor<1xf32>, tensor<2x1x8x64xbf16>, tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x1x8xf32>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLAQ-3 the value dequant scale is required
func.func @no_value_scale(%query: tensor<2x1x8x512xi8>, %key: tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %kscale: tensor<1xf32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, %qscale: tensor<2x1x8xf32>) {
  // expected-error @+1 {{value_antiquant_scale: expected an f32 tensor (1,) (the per-tensor dequant scale of the int8 latent cache, MLA full-quant mode), got none [FIA-MLAQ-3]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %kscale, %query_rope, %key_rope, %qscale) {actual_seq_lengths_kv = array<i64: 129, 5>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, query_quant_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xi8>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<1xf32>, tensor<2x1x8x64xbf16>, tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x1x8xf32>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLAQ-4 the key/value quant modes are per-tensor (0)
func.func @key_quant_mode(%query: tensor<2x1x8x512xi8>, %key: tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %kscale: tensor<1xf32>, %vscale: tensor<1xf32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, %qscale: tensor<2x1x8xf32>) {
  // expected-error @+1 {{key_antiquant_mode: expected 0 (per-tensor) in the MLA full-quant mode, got 1 [FIA-MLAQ-4]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %kscale, %vscale, %query_rope, %key_rope, %qscale) {actual_seq_lengths_kv = array<i64: 129, 5>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, query_quant_mode = 3 : i64, key_antiquant_mode = 1 : i64, value_antiquant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xi8>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<1xf32>, tensor<1xf32>, tensor<2x1x8x64xbf16>, tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x1x8xf32>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLAQ-5 the int8 latent cache is FRACTAL_NZ
func.func @nd_cache(%query: tensor<2x1x8x512xi8>, %key: tensor<4x128x512xi8>, %block_table: tensor<2x2xi32>, %kscale: tensor<1xf32>, %vscale: tensor<1xf32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x64xbf16>, %qscale: tensor<2x1x8xf32>) {
  // expected-error @+1 {{key: expected a FRACTAL_NZ latent cache in the MLA full-quant mode (the int8 [blockNum, 1, D/32, blockSize, 32] form), got tensor<4x128x512xi8> [FIA-MLAQ-5]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %kscale, %vscale, %query_rope, %key_rope, %qscale) {actual_seq_lengths_kv = array<i64: 129, 5>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, query_quant_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xi8>, tensor<4x128x512xi8>, tensor<4x128x512xi8>, tensor<2x2xi32>, tensor<1xf32>, tensor<1xf32>, tensor<2x1x8x64xbf16>, tensor<4x128x64xbf16>, tensor<2x1x8xf32>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLAQ-6 block_size 128
func.func @block_size_16(%query: tensor<2x1x8x512xi8>, %key: tensor<32x16x512xi8, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %kscale: tensor<1xf32>, %vscale: tensor<1xf32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<32x16x64xbf16, #mla.format<"FRACTAL_NZ">>, %qscale: tensor<2x1x8xf32>) {
  // expected-error @+1 {{block_size: expected 128 in the MLA full-quant mode, got 16 [FIA-MLAQ-6]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %kscale, %vscale, %query_rope, %key_rope, %qscale) {actual_seq_lengths_kv = array<i64: 16, 5>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 16 : i64, query_quant_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xi8>, tensor<32x16x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x16x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<1xf32>, tensor<1xf32>, tensor<2x1x8x64xbf16>, tensor<32x16x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x1x8xf32>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLAQ-7 no BNSD layout in the full-quant mode
func.func @bnsd(%query: tensor<2x8x1x512xi8>, %key: tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %kscale: tensor<1xf32>, %vscale: tensor<1xf32>, %query_rope: tensor<2x8x1x64xbf16>, %key_rope: tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, %qscale: tensor<2x8x1xf32>) {
  // expected-error @+1 {{input_layout: BNSD layouts are not supported in the MLA full-quant mode (NZ caches), got 'BNSD' [FIA-MLAQ-7]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %kscale, %vscale, %query_rope, %key_rope, %qscale) {actual_seq_lengths_kv = array<i64: 129, 5>, num_heads = 8 : i64, input_layout = "BNSD", num_key_value_heads = 1 : i64, block_size = 128 : i64, query_quant_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0>} : (tensor<2x8x1x512xi8>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<1xf32>, tensor<1xf32>, tensor<2x8x1x64xbf16>, tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x8x1xf32>) -> (tensor<2x8x1x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLAQ-8 no softmax_lse in the full-quant mode
func.func @lse(%query: tensor<2x1x8x512xi8>, %key: tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %kscale: tensor<1xf32>, %vscale: tensor<1xf32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, %qscale: tensor<2x1x8xf32>) {
  // expected-error @+1 {{softmax_lse_flag: softmax_lse is not supported in the MLA full-quant mode [FIA-MLAQ-8]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %kscale, %vscale, %query_rope, %key_rope, %qscale) {actual_seq_lengths_kv = array<i64: 129, 5>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, query_quant_mode = 3 : i64, softmax_lse_flag = true, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xi8>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<1xf32>, tensor<1xf32>, tensor<2x1x8x64xbf16>, tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x1x8xf32>) -> (tensor<2x1x8x512xbf16>, tensor<2x8x1x1xf32>)
  return
}

// -----

// FIA-MLAQ-9 the output is bf16
func.func @f16_out(%query: tensor<2x1x8x512xi8>, %key: tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %kscale: tensor<1xf32>, %vscale: tensor<1xf32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, %qscale: tensor<2x1x8xf32>) {
  // expected-error @+1 {{attention_out: expected bf16 in the MLA full-quant mode, got f16 [FIA-MLAQ-9]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %kscale, %vscale, %query_rope, %key_rope, %qscale) {actual_seq_lengths_kv = array<i64: 129, 5>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, query_quant_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xi8>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<1xf32>, tensor<1xf32>, tensor<2x1x8x64xbf16>, tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x1x8xf32>) -> (tensor<2x1x8x512xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-5 the rope parts are bf16 in the full-quant mode
func.func @f16_rope(%query: tensor<2x1x8x512xi8>, %key: tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %kscale: tensor<1xf32>, %vscale: tensor<1xf32>, %query_rope: tensor<2x1x8x64xf16>, %key_rope: tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, %qscale: tensor<2x1x8xf32>) {
  // expected-error @+1 {{query_rope: expected (2, 1, 8, 64) of bf16 (the query's layout with head dim 64), got tensor<2x1x8x64xf16> [FIA-MLA-5]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %kscale, %vscale, %query_rope, %key_rope, %qscale) {actual_seq_lengths_kv = array<i64: 129, 5>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, query_quant_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xi8>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<1xf32>, tensor<1xf32>, tensor<2x1x8x64xf16>, tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x1x8xf32>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLAQ-1 dequant_scale_query only with an i8 query
func.func @scale_with_float_query(%query: tensor<2x1x8x512xbf16>, %key: tensor<4x128x512xbf16, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, %qscale: tensor<2x1x8xf32>) {
  // expected-error @+1 {{dequant_scale_query: only for an i8 query in MLA mode (the MLA full-quant mode), got one [FIA-MLAQ-1]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope, %key_rope, %qscale) {actual_seq_lengths_kv = array<i64: 129, 5>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<4x128x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x128x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x1x8xf32>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

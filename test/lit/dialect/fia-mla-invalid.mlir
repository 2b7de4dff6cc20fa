// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.fused_infer_attention_score, one split per static rule of the catalog's
// section 6 (the FIA constraint catalog; rules in docs/rules.md) or of the MLA mode:
// the MLA mode (query_rope/key_rope; docs/numerics.md "FIA in MLA mode").
// Each split changes one thing of a valid op; the runtime and eager-only rules are in
// test/python/test_fia_eager.py.

// FIA-MLA-1 query_rope and key_rope: both (MLA mode) or neither
func.func @query_rope_without_key_rope(%query: tensor<2x1x8x512xbf16>, %key: tensor<4x128x1x512xbf16>, %block_table: tensor<2x2xi32>, %query_rope: tensor<2x1x8x64xbf16>) {
  // expected-error @+1 {{key_rope: required with query_rope (the MLA mode needs both), got none [FIA-MLA-1]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<2x2xi32>, tensor<2x1x8x64xbf16>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-3 MLA mode: an i8 query (the full-quant mode) needs the i8 latent cache
func.func @int8_query(%query: tensor<2x1x8x512xi8>, %key: tensor<4x128x1x512xbf16>, %block_table: tensor<2x2xi32>, %query_rope: tensor<2x1x8x64xi8>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{key: expected the query's element type i8 (float: the latent cache is not quantized; i8: the full-quant mode quantizes both), got bf16 [FIA-MLA-3]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x8x512xi8>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<2x2xi32>, tensor<2x1x8x64xi8>, tensor<4x128x1x64xbf16>) -> (tensor<2x1x8x512xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-3 MLA mode: the latent cache (key) has the query's dtype
func.func @key_dtype(%query: tensor<2x1x8x512xbf16>, %key: tensor<4x128x1x512xf16>, %block_table: tensor<2x2xi32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x1x64xf16>) {
  // expected-error @+1 {{key: expected the query's element type bf16 (float: the latent cache is not quantized; i8: the full-quant mode quantizes both), got f16 [FIA-MLA-3]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<4x128x1x512xf16>, tensor<4x128x1x512xf16>, tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x128x1x64xf16>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-11 MLA mode: page attention is mandatory
func.func @without_block_table(%query: tensor<2x1x8x512xbf16>, %key: tensor<4x128x1x512xbf16>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{block_table: expected a block table: page attention is mandatory in MLA mode, got none [FIA-MLA-11]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<2x1x8x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-16 MLA mode: no pse_shift
func.func @with_pse(%query: tensor<2x1x8x512xbf16>, %key: tensor<4x128x1x512xbf16>, %pse_shift: tensor<2x8x1x256xbf16>, %block_table: tensor<2x2xi32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{pse_shift: not supported in MLA mode [FIA-MLA-16]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %pse_shift, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<2x8x1x256xbf16>, tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-17 MLA mode: no left padding
func.func @with_kv_padding(%query: tensor<2x1x8x512xbf16>, %key: tensor<4x128x1x512xbf16>, %block_table: tensor<2x2xi32>, %kv_padding_size: tensor<1xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{kv_padding_size: left padding is not supported in MLA mode [FIA-MLA-17]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %kv_padding_size, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<2x2xi32>, tensor<1xi64>, tensor<2x1x8x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-18 MLA mode: no quantization parameters
func.func @with_post_quant(%query: tensor<2x1x8x512xbf16>, %key: tensor<4x128x1x512xbf16>, %quant_scale2: tensor<1xf32>, %block_table: tensor<2x2xi32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{quant_scale2: quantization is not supported in MLA mode (with a float query) [FIA-MLA-18]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %quant_scale2, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<1xf32>, tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<2x1x8x512xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-12 MLA mode: block size 16 or 128
func.func @block_size_64(%query: tensor<2x1x8x512xbf16>, %key: tensor<6x64x1x512xbf16>, %block_table: tensor<2x3xi32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<6x64x1x64xbf16>) {
  // expected-error @+1 {{block_size: expected 16 or 128 in MLA mode, got 64 [FIA-MLA-12]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<6x64x1x512xbf16>, tensor<6x64x1x512xbf16>, tensor<2x3xi32>, tensor<2x1x8x64xbf16>, tensor<6x64x1x64xbf16>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-19 MLA mode: a FRACTAL_NZ cache is (block_num, block_size, KV_N*D) or BnNBsD
func.func @nz_cache_bnbsnd(%query: tensor<2x1x8x512xbf16>, %key: tensor<4x128x1x512xbf16, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x1x64xbf16, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{key: a FRACTAL_NZ paged cache is (block_num, block_size, KV_N*D) or (block_num, KV_N, block_size, D), got tensor<4x128x1x512xbf16, FRACTAL_NZ> [FIA-MLA-19]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<4x128x1x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x128x1x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x128x1x64xbf16, #mla.format<"FRACTAL_NZ">>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-4 MLA mode: query head dim D = 512 (the latent dim)
func.func @query_head_dim(%query: tensor<2x1x8x256xbf16>, %key: tensor<4x128x1x256xbf16>, %block_table: tensor<2x2xi32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{query: expected head dim 512 (the latent dim) in MLA mode, got 256 [FIA-MLA-4]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x8x256xbf16>, tensor<4x128x1x256xbf16>, tensor<4x128x1x256xbf16>, tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<2x1x8x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-5 MLA mode: query_rope = the query's shape with D = 64, same dtype, ND
func.func @query_rope_dim(%query: tensor<2x1x8x512xbf16>, %key: tensor<4x128x1x512xbf16>, %block_table: tensor<2x2xi32>, %query_rope: tensor<2x1x8x32xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{query_rope: expected (2, 1, 8, 64) of bf16 (the query's layout with head dim 64), got tensor<2x1x8x32xbf16> [FIA-MLA-5]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<2x2xi32>, tensor<2x1x8x32xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-6 MLA mode: value is the latent cache of key (same type, format included)
func.func @value_format(%query: tensor<2x1x8x512xbf16>, %key: tensor<4x128x512xbf16, #mla.format<"FRACTAL_NZ">>, %value: tensor<4x128x512xbf16>, %block_table: tensor<2x2xi32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{value: expected the latent cache of key (format FRACTAL_NZ), got tensor<4x128x512xbf16> [FIA-MLA-6]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<4x128x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x128x512xbf16>, tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-7 MLA mode: key_rope = the key cache with D = 64, same dtype and format
func.func @key_rope_shape(%query: tensor<2x1x8x512xbf16>, %key: tensor<4x128x1x512xbf16>, %block_table: tensor<2x2xi32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x1x32xbf16>) {
  // expected-error @+1 {{key_rope: expected the rope cache (4, 128, 1, 64) of bf16 (the key cache with head dim 64), got tensor<4x128x1x32xbf16> [FIA-MLA-7]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x128x1x32xbf16>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-8 MLA mode: N in {1, 2, 4, ..., 128}
func.func @heads_not_power_of_two(%query: tensor<2x1x6x512xbf16>, %key: tensor<4x128x1x512xbf16>, %block_table: tensor<2x2xi32>, %query_rope: tensor<2x1x6x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{num_heads: expected one of 1, 2, 4, 8, 16, 32, 64, 128 in MLA mode, got 6 [FIA-MLA-8]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 6 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x6x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<2x2xi32>, tensor<2x1x6x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<2x1x6x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-9 MLA mode: Q_S in 1..16
func.func @query_seq_17(%query: tensor<1x17x8x512xbf16>, %key: tensor<4x16x512xbf16>, %atten_mask: tensor<2048x2048xi8>, %block_table: tensor<1x4xi32>, %query_rope: tensor<1x17x8x64xbf16>, %key_rope: tensor<4x16x64xbf16>) {
  // expected-error @+1 {{query: expected Q_S in 1..16 in MLA mode, got 17 [FIA-MLA-9]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %atten_mask, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 50>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, sparse_mode = 3 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<1x17x8x512xbf16>, tensor<4x16x512xbf16>, tensor<4x16x512xbf16>, tensor<2048x2048xi8>, tensor<1x4xi32>, tensor<1x17x8x64xbf16>, tensor<4x16x64xbf16>) -> (tensor<1x17x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-10 MLA mode: key N = 1
func.func @two_kv_heads(%query: tensor<2x1x8x512xbf16>, %key: tensor<4x128x2x512xbf16>, %block_table: tensor<2x2xi32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x2x64xbf16>) {
  // expected-error @+1 {{num_key_value_heads: expected 1 (one latent kv head) in MLA mode, got 2 [FIA-MLA-10]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<4x128x2x512xbf16>, tensor<4x128x2x512xbf16>, tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x128x2x64xbf16>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-13 MLA mode, Q_S = 1: sparse_mode 0
func.func @incre_sparse_mode(%query: tensor<2x1x8x512xbf16>, %key: tensor<4x128x1x512xbf16>, %block_table: tensor<2x2xi32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{sparse_mode: expected 0 in MLA mode with Q_S = 1, got 3 [FIA-MLA-13]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, sparse_mode = 3 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-14 MLA mode, Q_S = 1: no mask
func.func @incre_mask(%query: tensor<2x1x8x512xbf16>, %key: tensor<4x128x1x512xbf16>, %atten_mask: tensor<2x1x1x256xi1>, %block_table: tensor<2x2xi32>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{atten_mask: expected none in MLA mode with Q_S = 1 (sparse_mode 0 without a mask) [FIA-MLA-14]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %atten_mask, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 130, 9>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<2x1x1x256xi1>, tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-MLA-15 MLA mode, Q_S > 1: sparse_mode 3 (with the 2048x2048 mask)
func.func @prompt_sparse_mode_0(%query: tensor<1x2x8x512xbf16>, %key: tensor<4x16x512xbf16>, %block_table: tensor<1x4xi32>, %query_rope: tensor<1x2x8x64xbf16>, %key_rope: tensor<4x16x64xbf16>) {
  // expected-error @+1 {{sparse_mode: expected 3 (rightDownCausal with the 2048x2048 mask) in MLA mode with Q_S > 1, got 0 [FIA-MLA-15]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 50>, num_heads = 8 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, sparse_mode = 0 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<1x2x8x512xbf16>, tensor<4x16x512xbf16>, tensor<4x16x512xbf16>, tensor<1x4xi32>, tensor<1x2x8x64xbf16>, tensor<4x16x64xbf16>) -> (tensor<1x2x8x512xbf16>, tensor<1xf32>)
  return
}

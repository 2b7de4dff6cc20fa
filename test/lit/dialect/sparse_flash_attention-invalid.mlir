// RUN: mla-opt %s --split-input-file --verify-diagnostics
// One split per static rule of mla.sparse_flash_attention (the DSA reference's SFA-01 .. SFA-17):
// each mutates one thing of a valid op, vLLM-Ascend's form (TND query of 4 tokens in 2 batches,
// 64 heads of 512 + 64, PA_BSND latent and rope caches of 4 blocks of 128, value = key,
// sparse_size 2048, sparse_mode 3, attention_mode 2) or the BSND form (B 2, S1 3, S2 40, 16
// heads, f16, softmax lse). Ascend 950's rules (sinks, sparse_block_size 1, N1 1..128) are in
// sparse_flash_attention-profiles-invalid.mlir; the rules on tensor data (index rows, lengths,
// block table, contiguity) in test/python/test_dsa_eager.py.

// -----

// SFA-05: layout_query in {BSND, TND}
func.func @layout_q(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{layout_query: expected BSND or TND, got 'BNSD' [SFA-05]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "BNSD", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-05: layout_kv in {TND, BSND, PA_BSND}
func.func @layout_kv(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{layout_kv: expected PA_BSND, BSND or TND, got 'PA_NZ' [SFA-05]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_NZ", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-05: TND query with a BSND kv
func.func @layout_mix(%query: tensor<4x64x512xbf16>, %key: tensor<2x256x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<2x256x1x64xbf16>) {
  // expected-error @+1 {{layout_kv: expected layout_kv = layout_query ('TND') without page attention (PA_BSND), got 'BSND' [SFA-05]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<2x256x1x512xbf16>, tensor<2x256x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<2x256x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-05: a TND query is 3-D
func.func @q_rank(%query: tensor<2x2x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{query: expected rank 3 (T1, N1, D) for layout_query TND, got tensor<2x2x64x512xbf16> [SFA-05]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<2x2x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<2x2x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-05: a PA_BSND key is 4-D
func.func @k_rank(%query: tensor<4x64x512xbf16>, %key: tensor<512x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{key: expected rank 4 (block_count, block_size, N2, D) for layout_kv PA_BSND, got tensor<512x1x512xbf16> [SFA-05]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<512x1x512xbf16>, tensor<512x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-X01: ND
func.func @q_nz(%query: tensor<4x64x512xbf16, #mla.format<"FRACTAL_NZ">>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{query: expected format ND, got tensor<4x64x512xbf16, FRACTAL_NZ> [SFA-X01]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-X01: ND
func.func @k_nz(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16, #mla.format<"FRACTAL_NZ">>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{key: expected format ND, got tensor<4x128x1x512xbf16, FRACTAL_NZ> [SFA-X01]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x128x1x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-X01: ND
func.func @v_nz(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %value: tensor<4x128x1x512xbf16, #mla.format<"FRACTAL_NZ">>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{value: expected format ND, got tensor<4x128x1x512xbf16, FRACTAL_NZ> [SFA-X01]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %value, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-X01: ND
func.func @i_nz(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{sparse_indices: expected format ND, got tensor<4x1x2048xi32, FRACTAL_NZ> [SFA-X01]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-X01: ND
func.func @bt_nz(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32, #mla.format<"FRACTAL_NZ">>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{block_table: expected format ND, got tensor<2x2xi32, FRACTAL_NZ> [SFA-X01]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32, #mla.format<"FRACTAL_NZ">>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-X01: ND
func.func @aq_nz(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32, #mla.format<"FRACTAL_NZ">>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{actual_seq_lengths_query: expected format ND, got tensor<2xi32, FRACTAL_NZ> [SFA-X01]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32, #mla.format<"FRACTAL_NZ">>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-X01: ND
func.func @ak_nz(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32, #mla.format<"FRACTAL_NZ">>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{actual_seq_lengths_kv: expected format ND, got tensor<2xi32, FRACTAL_NZ> [SFA-X01]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32, #mla.format<"FRACTAL_NZ">>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-X01: ND
func.func @qr_nz(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16, #mla.format<"FRACTAL_NZ">>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{query_rope: expected format ND, got tensor<4x64x64xbf16, FRACTAL_NZ> [SFA-X01]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-X01: ND
func.func @kr_nz(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{key_rope: expected format ND, got tensor<4x128x1x64xbf16, FRACTAL_NZ> [SFA-X01]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16, #mla.format<"FRACTAL_NZ">>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-X01: ND
func.func @sinks_nz(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>, %sinks: tensor<64xf32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{sinks: expected format ND, got tensor<64xf32, FRACTAL_NZ> [SFA-X01]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope, %sinks) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>, tensor<64xf32, #mla.format<"FRACTAL_NZ">>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-01: attention_mode 2 only
func.func @mode0(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{attention_mode: expected 2 (MLA absorb: value = the latent key; the only mode), got 0 [SFA-01]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-01: MLA needs query_rope and key_rope
func.func @no_rope(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{query_rope: query_rope and key_rope are required with attention_mode 2 (MLA), got no query_rope [SFA-01]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-02: query f16 or bf16
func.func @q_f32(%query: tensor<4x64x512xf32>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{query: expected element type f16 or bf16, got f32 [SFA-02]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xf32>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xf32>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-02: key of the query's type
func.func @k_f16(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{key: expected the element type of query (bf16), got f16 [SFA-02]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xf16>, tensor<4x128x1x512xf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-02: value of the query's type
func.func @v_f16(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %value: tensor<4x128x1x512xf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{value: expected the element type of query (bf16), got f16 [SFA-02]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %value, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-02: query_rope of the query's type
func.func @qr_f16(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{query_rope: expected the element type of query (bf16), got f16 [SFA-02]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-02: key_rope of the query's type
func.func @kr_f16(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xf16>) {
  // expected-error @+1 {{key_rope: expected the element type of query (bf16), got f16 [SFA-02]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-03: query D = 512
func.func @q_d(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{query: expected head dim D = 512 (the latent; last dimension), got 576 [SFA-03]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-03: key D = 512
func.func @k_d(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x576xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{key: expected head dim D = 512 (the latent; last dimension), got 576 [SFA-03]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x576xbf16>, tensor<4x128x1x576xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-03: value has the key's shape
func.func @v_shape(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %value: tensor<8x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{value: expected the key's shape tensor<4x128x1x512xbf16> (value is the latent key), got tensor<8x128x1x512xbf16> [SFA-03]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %value, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<8x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-03: query_rope Dr = 64
func.func @qr_d(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x32xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{query_rope: expected Dr = 64 (last dimension), got tensor<4x64x32xbf16> [SFA-03]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x32xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-11: query_rope has the query's rank and shape
func.func @qr_shape(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x32x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{query_rope: expected query's rank and shape with D = 64: (4, 64, 64), got tensor<4x32x64xbf16> [SFA-11]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x32x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-03: key_rope Dr = 64
func.func @kr_d(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x128xbf16>) {
  // expected-error @+1 {{key_rope: expected Dr = 64 (last dimension), got tensor<4x128x1x128xbf16> [SFA-03]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x128xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-X02: key_rope has the key's shape
func.func @kr_shape(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x64x1x64xbf16>) {
  // expected-error @+1 {{key_rope: expected key's rank and shape with D = 64: (4, 128, 1, 64), got tensor<4x64x1x64xbf16> [SFA-X02]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x64x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-04: N2 = 1
func.func @kv_heads(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x2x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x2x64xbf16>) {
  // expected-error @+1 {{key: expected N2 = 1 kv head (dimension -2), got 2 [SFA-04]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x2x512xbf16>, tensor<4x128x2x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x2x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-04: A2/A3: N1 a power of 2 up to 128
func.func @q_heads(%query: tensor<4x48x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x48x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{query: expected N1 in {1, 2, 4, 8, 16, 32, 64, 128} (Atlas A2/A3), got 48 [SFA-04]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x48x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x48x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x48x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-12: no empty query
func.func @q_empty(%query: tensor<0x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<0x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<0x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{query: expected no empty dimension, got tensor<0x64x512xbf16> [SFA-12]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<0x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<0x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<0x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<0x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-06: block_size a multiple of 16 in (0, 1024]
func.func @block_size(%query: tensor<4x64x512xbf16>, %key: tensor<4x100x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x100x1x64xbf16>) {
  // expected-error @+1 {{key: expected a block_size (dimension 1) that is a multiple of 16 in (0, 1024], got 100 [SFA-06]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x100x1x512xbf16>, tensor<4x100x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x100x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-06: sparse_block_size divides block_size
func.func @sbs_divides(%query: tensor<4x64x512xbf16>, %key: tensor<4x48x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x48x1x64xbf16>) {
  // expected-error @+1 {{sparse_block_size: expected a divisor of block_size (48) under page attention, got 32 [SFA-06]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, sparse_block_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x48x1x512xbf16>, tensor<4x48x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x48x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-07: A2/A3: a power of 2 in [1, 128]
func.func @sbs(%query: tensor<4x64x512xbf16>, %key: tensor<4x256x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x256x1x64xbf16>) {
  // expected-error @+1 {{sparse_block_size: expected a power of 2 in [1, 128] (Atlas A2/A3), got 256 [SFA-07]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, sparse_block_size = 256 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x256x1x512xbf16>, tensor<4x256x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x256x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-09: TND needs actual_seq_lengths_query
func.func @no_aq(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{actual_seq_lengths_query: is required with layout_query TND (cumulative token counts), got none [SFA-09]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-09: PA_BSND needs actual_seq_lengths_kv
func.func @no_ak(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{actual_seq_lengths_kv: is required with layout_kv PA_BSND (per-batch lengths), got none [SFA-09]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-06: PA_BSND needs block_table
func.func @no_bt(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{block_table: is required with layout_kv PA_BSND, got none [SFA-06]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-09: BSND key batch = query batch
func.func @k_batch(%query: tensor<2x3x16x512xf16>, %key: tensor<3x40x1x512xf16>, %sparse_indices: tensor<2x3x1x32xi32>, %query_rope: tensor<2x3x16x64xf16>, %key_rope: tensor<3x40x1x64xf16>) {
  // expected-error @+1 {{key: expected batch B = 2 (query dimension 0) in dimension 0, got tensor<3x40x1x512xf16> [SFA-09]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %query_rope, %key_rope) {scale_value = 0.0416 : f64, attention_mode = 2 : i64, return_softmax_lse = true, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 1, 1, 0>} : (tensor<2x3x16x512xf16>, tensor<3x40x1x512xf16>, tensor<3x40x1x512xf16>, tensor<2x3x1x32xi32>, tensor<2x3x16x64xf16>, tensor<3x40x1x64xf16>) -> (tensor<2x3x16x512xf16>, tensor<2x1x3x16xf32>, tensor<2x1x3x16xf32>)
  return
}

// -----

// SFA-10: sparse_indices (T1, N2, sparse_size)
func.func @idx_shape(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x2x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{sparse_indices: expected (T1, N2, sparse_size) with T1 of the query and N2 = 1, got tensor<4x2x2048xi32> [SFA-10]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x2x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-08: sparse_mode 0 or 3
func.func @mode4(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{sparse_mode: expected 0 (no mask) or 3 (right-down causal), got 4 [SFA-08]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 4 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-08: pre_tokens = 2^63-1
func.func @pre(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{pre_tokens: expected 9223372036854775807 (no band), got 1 [SFA-08]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, pre_tokens = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-08: next_tokens = 2^63-1
func.func @next(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{next_tokens: expected 9223372036854775807 (no band), got 1 [SFA-08]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, next_tokens = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-13: no lse with PA_BSND
func.func @lse_paged(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{return_softmax_lse: must be false with layout_kv PA_BSND (a training-only output) [SFA-13]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, return_softmax_lse = true, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<1x4x64xf32>, tensor<1x4x64xf32>)
  return
}

// -----

// SFA-14: A2/A3: no sinks
func.func @sinks(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>, %sinks: tensor<64xf32>) {
  // expected-error @+1 {{sinks: must be absent on Atlas A2/A3 (Ascend 950 only; verify with profile ASCEND950), got tensor<64xf32> [SFA-14]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope, %sinks) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>, tensor<64xf32>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-16: attention_out: the query's type and shape
func.func @out(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{attention_out: expected a bf16 tensor of the query's shape (4, 64, 512), got tensor<4x64x512xf32> [SFA-16]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xf32>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-17: softmax_max (0,) without lse
func.func @lse_max(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{softmax_max: expected an f32 tensor (0,) without return_softmax_lse = (0), got tensor<1x4x64xf32> [SFA-17]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<1x4x64xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-17: softmax_sum (B, N2, S1, G) with lse
func.func @lse_sum(%query: tensor<2x3x16x512xf16>, %key: tensor<2x40x1x512xf16>, %sparse_indices: tensor<2x3x1x32xi32>, %query_rope: tensor<2x3x16x64xf16>, %key_rope: tensor<2x40x1x64xf16>) {
  // expected-error @+1 {{softmax_sum: expected an f32 tensor (B, N2, S1, G) = (2, 1, 3, 16), got tensor<2x1x3x8xf32> [SFA-17]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %query_rope, %key_rope) {scale_value = 0.0416 : f64, attention_mode = 2 : i64, return_softmax_lse = true, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 1, 1, 0>} : (tensor<2x3x16x512xf16>, tensor<2x40x1x512xf16>, tensor<2x40x1x512xf16>, tensor<2x3x1x32xi32>, tensor<2x3x16x64xf16>, tensor<2x40x1x64xf16>) -> (tensor<2x3x16x512xf16>, tensor<2x1x3x16xf32>, tensor<2x1x3x8xf32>)
  return
}

// -----

// SFA-09: lengths are i32 (B,)
func.func @ak_i64(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi64>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{actual_seq_lengths_kv: expected a 1-D i32 ND tensor (B,), got tensor<2xi64> [SFA-09]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi64>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-06: block_table rows = B
func.func @bt_rows(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<1x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{block_table: expected B = 2 rows, got 1 [SFA-06]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<1x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// -----

// SFA-10: sparse_indices i32
func.func @idx_i64(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi64>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
  // expected-error @+1 {{sparse_indices: expected element type i32, got i64 [SFA-10]}}
  %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi64>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return
}

// RUN: mla-opt %s --split-input-file --verify-diagnostics
// One split per static rule of mla.kv_quant_sparse_flash_attention (the DSA reference's KQSFA-01
// .. KQSFA-14 and the sparse attention's layout/paging/length/index rules it shares, KQSFA-01):
// each mutates one thing of vLLM-Ascend's C8 form (TND query of 4 tokens, 64 heads of 576, a
// PA_BSND cache of 4 blocks of 128 packed 656-byte int8 rows as key and value). Ascend 950's
// rules are in kv_quant_sparse_flash_attention-profiles-invalid.mlir, the data rules in
// test/python/test_dsa_eager.py.

// -----

// SFA-05: layout_query in {BSND, TND}
func.func @layout_q(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{layout_query: expected BSND or TND, got 'NTD' [SFA-05]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "NTD", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-05: layout_kv in {TND, BSND, PA_BSND}
func.func @layout_kv(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{layout_kv: expected PA_BSND, BSND or TND, got 'BNSD' [SFA-05]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "BNSD", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-05: a TND query is 3-D
func.func @q_rank(%query: tensor<4x64x1x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{query: expected rank 3 (T1, N1, D) for layout_query TND, got tensor<4x64x1x576xbf16> [SFA-05]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x1x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x1x512xbf16>)
  return
}

// -----

// SFA-05: a PA_BSND key is 4-D
func.func @k_rank(%query: tensor<4x64x576xbf16>, %key: tensor<512x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{key: expected rank 4 (block_count, block_size, N2, D) for layout_kv PA_BSND, got tensor<512x1x656xi8> [SFA-05]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<512x1x656xi8>, tensor<512x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-X01: ND
func.func @q_nz(%query: tensor<4x64x576xbf16, #mla.format<"FRACTAL_NZ">>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{query: expected format ND, got tensor<4x64x576xbf16, FRACTAL_NZ> [SFA-X01]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-X01: ND
func.func @k_nz(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8, #mla.format<"FRACTAL_NZ">>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{key: expected format ND, got tensor<4x128x1x656xi8, FRACTAL_NZ> [SFA-X01]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x128x1x656xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-X01: ND
func.func @v_nz(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %value: tensor<4x128x1x656xi8, #mla.format<"FRACTAL_NZ">>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{value: expected format ND, got tensor<4x128x1x656xi8, FRACTAL_NZ> [SFA-X01]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %value, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-X01: ND
func.func @i_nz(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{sparse_indices: expected format ND, got tensor<4x1x2048xi32, FRACTAL_NZ> [SFA-X01]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-X01: ND
func.func @bt_nz(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32, #mla.format<"FRACTAL_NZ">>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{block_table: expected format ND, got tensor<2x2xi32, FRACTAL_NZ> [SFA-X01]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32, #mla.format<"FRACTAL_NZ">>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-X01: ND
func.func @aq_nz(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32, #mla.format<"FRACTAL_NZ">>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{actual_seq_lengths_query: expected format ND, got tensor<2xi32, FRACTAL_NZ> [SFA-X01]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32, #mla.format<"FRACTAL_NZ">>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-X01: ND
func.func @ak_nz(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{actual_seq_lengths_kv: expected format ND, got tensor<2xi32, FRACTAL_NZ> [SFA-X01]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32, #mla.format<"FRACTAL_NZ">>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// KQSFA-07: query bf16 or f16
func.func @q_f32(%query: tensor<4x64x576xf32>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{query: expected element type f16 or bf16, got f32 [KQSFA-07]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xf32>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xf32>)
  return
}

// -----

// KQSFA-04: A2/A3: int8 rows
func.func @k_f8(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xf8E4M3FN>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{key: expected element type i8 (the packed int8 rows; Atlas A2/A3), got f8E4M3FN [KQSFA-04]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xf8E4M3FN>, tensor<4x128x1x656xf8E4M3FN>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// KQSFA-07: value is the key
func.func @v_other(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %value: tensor<4x128x1x656xui8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{value: expected the key's type tensor<4x128x1x656xi8> (value is the same packed cache), got tensor<4x128x1x656xui8> [KQSFA-07]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %value, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xui8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// KQSFA-02: query D = 576
func.func @q_d(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{query: expected D = 576 ([q_nope 512 | q_rope 64]; last dimension), got 512 [KQSFA-02]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x448xbf16>)
  return
}

// -----

// KQSFA-02: key D = 656
func.func @k_d(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x512xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{key: expected D = 656 bytes (512 int8 values, 64 bf16 rope values, 4 fp32 scales; last dimension), got 512 [KQSFA-02]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x512xi8>, tensor<4x128x1x512xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// KQSFA-07: KV_N = 1
func.func @kv_heads(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x2x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{key: expected KV_N = 1 (dimension -2), got 2 [KQSFA-07]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x2x656xi8>, tensor<4x128x2x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// KQSFA-04: A2/A3: Q_N not 48
func.func @q_48(%query: tensor<4x48x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{query: expected Q_N in {1, 2, 4, 8, 16, 32, 64, 128} (Atlas A2/A3: no 48), got 48 [KQSFA-04]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x48x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x48x512xbf16>)
  return
}

// -----

// SFA-12: no empty query
func.func @q_empty(%query: tensor<0x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<0x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{query: expected no empty dimension, got tensor<0x64x576xbf16> [SFA-12]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<0x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<0x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<0x64x512xbf16>)
  return
}

// -----

// KQSFA-08: key_quant_mode 2
func.func @kqm(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{key_quant_mode: expected 2 (per token, tile of 128), got 0 [KQSFA-08]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 0 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// KQSFA-08: value_quant_mode 2
func.func @vqm(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{value_quant_mode: expected 2 (per token, tile of 128), got 1 [KQSFA-08]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 1 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// KQSFA-09: reserved
func.func @kds(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %key_dequant_scale: tensor<1xf32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{key_dequant_scale: reserved: must be absent (the scales travel in the packed rows), got tensor<1xf32> [KQSFA-09]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %key_dequant_scale, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<1xf32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// KQSFA-09: reserved
func.func @vds(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %value_dequant_scale: tensor<1xf32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{value_dequant_scale: reserved: must be absent (the scales travel in the packed rows), got tensor<1xf32> [KQSFA-09]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %value_dequant_scale, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<1xf32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// KQSFA-10: attention_mode 2
func.func @am(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{attention_mode: expected 2 (MLA absorb: value = the latent key; the only mode), got 0 [KQSFA-10]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// KQSFA-11: quant_scale_repo_mode 1
func.func @repo(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{quant_scale_repo_mode: expected 1 (the scales stored in the rows), got 0 [KQSFA-11]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, quant_scale_repo_mode = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// KQSFA-11: tile_size 128
func.func @tile(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{tile_size: expected 128, got 64 [KQSFA-11]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, tile_size = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// KQSFA-11: rope_head_dim 64
func.func @rope_dim(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{rope_head_dim: expected 64, got 128 [KQSFA-11]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, rope_head_dim = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x448xbf16>)
  return
}

// -----

// SFA-06: block_size a multiple of 16 in (0, 1024]
func.func @block(%query: tensor<4x64x576xbf16>, %key: tensor<4x8x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{key: expected a block_size (dimension 1) that is a multiple of 16 in (0, 1024], got 8 [SFA-06]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x8x1x656xi8>, tensor<4x8x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-06: sparse_block_size divides block_size
func.func @sbs_div(%query: tensor<4x64x576xbf16>, %key: tensor<4x48x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{sparse_block_size: expected a divisor of block_size (48) under page attention, got 32 [SFA-06]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, sparse_block_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x48x1x656xi8>, tensor<4x48x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// KQSFA-12: A2/A3: a power of 2 in [1, 16]
func.func @sbs(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{sparse_block_size: expected a power of 2 in [1, 16] (Atlas A2/A3), got 32 [KQSFA-12]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, sparse_block_size = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-09: TND needs actual_seq_lengths_query
func.func @no_aq(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{actual_seq_lengths_query: is required with layout_query TND (cumulative token counts), got none [SFA-09]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 0, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-09: PA_BSND needs actual_seq_lengths_kv
func.func @no_ak(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>) {
  // expected-error @+1 {{actual_seq_lengths_kv: is required with layout_kv PA_BSND (per-batch lengths), got none [SFA-09]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 0, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-06: PA_BSND needs block_table
func.func @no_bt(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{block_table: is required with layout_kv PA_BSND, got none [SFA-06]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-09: BSND key batch = query batch
func.func @k_batch(%query: tensor<2x3x16x576xbf16>, %key: tensor<1x40x1x656xi8>, %sparse_indices: tensor<2x3x1x32xi32>) {
  // expected-error @+1 {{key: expected batch B = 2 (query dimension 0) in dimension 0, got tensor<1x40x1x656xi8> [SFA-09]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<2x3x16x576xbf16>, tensor<1x40x1x656xi8>, tensor<1x40x1x656xi8>, tensor<2x3x1x32xi32>) -> (tensor<2x3x16x512xbf16>)
  return
}

// -----

// KQSFA-13: key_dtype and value_dtype agree
func.func @vdt(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{value_dtype: expected key_dtype (None) and value_dtype to agree, got 2 [KQSFA-13]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, value_dtype = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// KQSFA-04: A2/A3: no hifloat8
func.func @kdt(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{key_dtype: must be absent on Atlas A2/A3 (it names hifloat8 rows travelling as int8, an Ascend 950 form), got 290 [KQSFA-04]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, key_dtype = 290 : i64, value_dtype = 290 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-10: sparse_indices (T1, N2, sparse_size)
func.func @idx(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{sparse_indices: expected (T1, N2, sparse_size) with T1 of the query and N2 = 1, got tensor<4x2048xi32> [SFA-10]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-08: sparse_mode 0 or 3
func.func @mode(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{sparse_mode: expected 0 (no mask) or 3 (right-down causal), got 1 [SFA-08]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 1 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-08: pre_tokens = 2^63-1
func.func @pre(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{pre_tokens: expected 9223372036854775807 (no band), got 0 [SFA-08]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, pre_tokens = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// SFA-08: next_tokens = 2^63-1
func.func @next(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{next_tokens: expected 9223372036854775807 (no band), got 0 [SFA-08]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, next_tokens = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// KQSFA-04: A2/A3: no sinks
func.func @sinks(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %sinks: tensor<64xf32>) {
  // expected-error @+1 {{sinks: must be absent on Atlas A2/A3 (Ascend 950 only), got tensor<64xf32> [KQSFA-04]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %sinks) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 1>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<64xf32>) -> (tensor<4x64x512xbf16>)
  return
}

// -----

// KQSFA-14: attention_out (T1, Q_N, 512)
func.func @out(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
  // expected-error @+1 {{attention_out: expected a bf16 tensor of the query's shape with D = 576 - rope_head_dim = (4, 64, 512), got tensor<4x64x576xbf16> [KQSFA-14]}}
  %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x576xbf16>)
  return
}

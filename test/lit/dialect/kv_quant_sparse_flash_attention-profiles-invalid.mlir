// RUN: mla-opt %s --split-input-file --verify-diagnostics
// The ASCEND950 profile of mla.kv_quant_sparse_flash_attention (module attribute mla.profile): float8 rows, Q_N 48, sinks,
// sparse_block_size 1, hifloat8 rows with sparse_size 2048.

// -----

// KQSFA-04: Ascend 950: int8 or float8_e4m3fn rows
module attributes {mla.profile = "ASCEND950"} {
  func.func @k_bf16(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
    // expected-error @+1 {{key: expected element type i8 or f8E4M3FN, got bf16 [KQSFA-04]}}
    %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xbf16>, tensor<4x128x1x656xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
    return
  }
}

// -----

// KQSFA-07: Ascend 950: Q_N in {1, 2, 4, .., 48, 64, 128}
module attributes {mla.profile = "ASCEND950"} {
  func.func @q_24(%query: tensor<4x24x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
    // expected-error @+1 {{query: expected Q_N in {1, 2, 4, 8, 16, 32, 48, 64, 128}, got 24 [KQSFA-07]}}
    %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x24x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x24x512xbf16>)
    return
  }
}

// -----

// KQSFA-12: Ascend 950: sparse_block_size 1
module attributes {mla.profile = "ASCEND950"} {
  func.func @sbs(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
    // expected-error @+1 {{sparse_block_size: expected 1 (Ascend 950), got 4 [KQSFA-12]}}
    %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, sparse_block_size = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
    return
  }
}

// -----

// KQSFA-06: hifloat8 rows: sparse_size 2048
module attributes {mla.profile = "ASCEND950"} {
  func.func @hif8(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x1024xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>) {
    // expected-error @+1 {{sparse_indices: expected sparse_size 2048 with hifloat8 rows (key_dtype), got 1024 [KQSFA-06]}}
    %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, key_dtype = 290 : i64, value_dtype = 290 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x1024xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x64x512xbf16>)
    return
  }
}

// -----

// KQSFA-04: Ascend 950: sinks f32 (Q_N,)
module attributes {mla.profile = "ASCEND950"} {
  func.func @sinks(%query: tensor<4x64x576xbf16>, %key: tensor<4x128x1x656xi8>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %sinks: tensor<64xbf16>) {
    // expected-error @+1 {{sinks: expected an f32 tensor (Q_N,) = (64,), got tensor<64xbf16> [KQSFA-04]}}
    %0 = "mla.kv_quant_sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %sinks) {scale_value = 0.0416 : f64, key_quant_mode = 2 : i64, value_quant_mode = 2 : i64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 1>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<64xbf16>) -> (tensor<4x64x512xbf16>)
    return
  }
}

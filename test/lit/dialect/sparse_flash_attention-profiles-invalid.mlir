// RUN: mla-opt %s --split-input-file --verify-diagnostics
// The ASCEND950 profile of mla.sparse_flash_attention (module attribute mla.profile) (sinks allowed, sparse_block_size 1, N1 in
// 1..128): each op here is valid under IR's default profile (Atlas A2/A3) except where the
// profile narrows it, and the sinks shape is checked only where sinks exist.

// -----

// SFA-04: Ascend 950: N1 in [1, 128]
module attributes {mla.profile = "ASCEND950"} {
  func.func @heads_256(%query: tensor<4x256x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x256x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
    // expected-error @+1 {{query: expected N1 in [1, 128] (Ascend 950), got 256 [SFA-04]}}
    %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x256x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x256x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x256x512xbf16>, tensor<0xf32>, tensor<0xf32>)
    return
  }
}

// -----

// SFA-07: Ascend 950: sparse_block_size 1
module attributes {mla.profile = "ASCEND950"} {
  func.func @sbs_2(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>) {
    // expected-error @+1 {{sparse_block_size: expected 1 (Ascend 950), got 2 [SFA-07]}}
    %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, sparse_block_size = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
    return
  }
}

// -----

// SFA-14: Ascend 950: sinks f32 (N1,)
module attributes {mla.profile = "ASCEND950"} {
  func.func @sinks_shape(%query: tensor<4x64x512xbf16>, %key: tensor<4x128x1x512xbf16>, %sparse_indices: tensor<4x1x2048xi32>, %block_table: tensor<2x2xi32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_kv: tensor<2xi32>, %query_rope: tensor<4x64x64xbf16>, %key_rope: tensor<4x128x1x64xbf16>, %sinks: tensor<32xf32>) {
    // expected-error @+1 {{sinks: expected an f32 tensor (N1,) = (64,), got tensor<32xf32> [SFA-14]}}
    %0:3 = "mla.sparse_flash_attention"(%query, %key, %key, %sparse_indices, %block_table, %actual_seq_lengths_query, %actual_seq_lengths_kv, %query_rope, %key_rope, %sinks) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64, attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>, tensor<32xf32>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
    return
  }
}

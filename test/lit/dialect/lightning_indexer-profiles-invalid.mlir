// RUN: mla-opt %s --split-input-file --verify-diagnostics
// The CANN2512 profile of mla.lightning_indexer (module attribute mla.profile): the 2025-12 tiling code and README, narrower
// than the 2026 documents (IR's default, under which each op here is valid): weights of the
// query's type, N1 = 64, sparse_count <= 2048. Last, the PT profile (the eager calls'): no empty query.

// -----

// LI-02: CANN 2025-12: no f32 weights
module attributes {mla.profile = "CANN2512"} {
  func.func @weights_f32(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xf32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
    // expected-error @+1 {{weights: expected the element type of query (bf16) (CANN 2025-12: no f32 weights), got f32 [LI-02]}}
    %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
    return
  }
}

// -----

// LI-05: CANN 2025-12: N1 = 64
module attributes {mla.profile = "CANN2512"} {
  func.func @heads_32(%query: tensor<4x32x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x32xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
    // expected-error @+1 {{query: expected N1 = 64 query heads (CANN 2025-12), got 32 [LI-05]}}
    %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x32x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x32xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
    return
  }
}

// -----

// LI-11: CANN 2025-12: sparse_count <= 2048
module attributes {mla.profile = "CANN2512"} {
  func.func @count_4096(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
    // expected-error @+1 {{sparse_count: expected a value in [1, 2048] (CANN 2025-12), got 4096 [LI-11]}}
    %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 4096 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x4096xi32>, tensor<0xbf16>)
    return
  }
}

// -----

// LI-17: the eager profile (torch_npu's wrapper): no empty query
module attributes {mla.profile = "PT"} {
  func.func @empty_query(%query: tensor<0x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<0x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
    // expected-error @+1 {{query: expected no empty dimension, got tensor<0x64x128xbf16> [LI-17]}}
    %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<0x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<0x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<0x1x2048xi32>, tensor<0xbf16>)
    return
  }
}

// RUN: mla-opt %s --split-input-file --verify-diagnostics
// One split per static rule of mla.lightning_indexer (docs/rules.md; the DSA reference's LI-01 ..
// LI-20): each mutates one thing of a valid op, vLLM-Ascend's form (TND query of 4 tokens in 2
// batches, 64 heads of 128, a PA_BSND key of 4 blocks of 128, sparse_count 2048, sparse_mode 3)
// or the BSND form (B 2, S1 3, S2 40, 8 heads, f16, f32 weights). The profile rules
// (CANN2512, PT) are in lightning_indexer-profiles-invalid.mlir and the eager tests; the rules on
// tensor data (lengths, block table, contiguity) in test/python/test_dsa_eager.py.

// -----

// LI-07: layout_query in {BSND, TND}
func.func @layout_bnsd(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{layout_query: expected BSND or TND, got 'BNSD' [LI-07]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "BNSD", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x64x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-07: layout_key in {PA_BSND, BSND, TND}
func.func @layout_key_bad(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{layout_key: expected PA_BSND, BSND or TND, got 'PA_NZ' [LI-07]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_NZ", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-07: without page attention layout_key = layout_query
func.func @layout_mix(%query: tensor<2x3x8x128xf16>, %key: tensor<40x1x128xf16>, %weights: tensor<2x3x8xf32>) {
  // expected-error @+1 {{layout_key: expected layout_key = layout_query ('BSND') without page attention (PA_BSND), got 'TND' [LI-07]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights) {sparse_count = 16 : i64, layout_key = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>} : (tensor<2x3x8x128xf16>, tensor<40x1x128xf16>, tensor<2x3x8xf32>) -> (tensor<2x3x1x16xi32>, tensor<0xf16>)
  return
}

// -----

// LI-07: a TND query is 3-D
func.func @query_rank(%query: tensor<2x2x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{query: expected rank 3 (T1, N1, D) for layout_query TND, got tensor<2x2x64x128xbf16> [LI-07]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<2x2x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<2x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-07: a PA_BSND key is 4-D
func.func @key_rank(%query: tensor<4x64x128xbf16>, %key: tensor<512x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{key: expected rank 4 (block_count, block_size, N2, D) for layout_key PA_BSND, got tensor<512x1x128xbf16> [LI-07]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<512x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-X01: ND query
func.func @query_nz(%query: tensor<4x64x128xbf16, #mla.format<"FRACTAL_NZ">>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{query: expected format ND, got tensor<4x64x128xbf16, FRACTAL_NZ> [LI-X01]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-X01: ND key
func.func @key_nz(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16, #mla.format<"FRACTAL_NZ">>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{key: expected format ND, got tensor<4x128x1x128xbf16, FRACTAL_NZ> [LI-X01]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-X01: ND weights
func.func @weights_nz(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16, #mla.format<"FRACTAL_NZ">>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{weights: expected format ND, got tensor<4x64xbf16, FRACTAL_NZ> [LI-X01]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-X01: ND lengths
func.func @aq_nz(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32, #mla.format<"FRACTAL_NZ">>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{actual_seq_lengths_query: expected format ND, got tensor<2xi32, FRACTAL_NZ> [LI-X01]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32, #mla.format<"FRACTAL_NZ">>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-X01: ND lengths
func.func @ak_nz(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{actual_seq_lengths_key: expected format ND, got tensor<2xi32, FRACTAL_NZ> [LI-X01]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-X01: ND block table
func.func @bt_nz(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{block_table: expected format ND, got tensor<2x2xi32, FRACTAL_NZ> [LI-X01]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32, #mla.format<"FRACTAL_NZ">>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-01: query f16 or bf16
func.func @query_f32(%query: tensor<4x64x128xf32>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xf32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{query: expected element type f16 or bf16, got f32 [LI-01]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xf32>, tensor<4x128x1x128xbf16>, tensor<4x64xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xf32>)
  return
}

// -----

// LI-01: key of the query's type
func.func @key_f16(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{key: expected the element type of query (bf16), got f16 [LI-01]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-02: weights of the query's type or f32
func.func @weights_f16(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{weights: expected the element type of query (bf16) or f32, got f16 [LI-02]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-03: query D = 128
func.func @query_d(%query: tensor<4x64x64xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{query: expected head dim D = 128 (last dimension), got 64 [LI-03]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x64xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-03: key D = 128
func.func @key_d(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x64xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{key: expected head dim D = 128 (last dimension), got 64 [LI-03]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x64xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-04: N2 = 1
func.func @key_heads(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x2x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{key: expected N2 = 1 key head (dimension -2), got 2 [LI-04]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x2x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x2x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-05: N1 <= 64
func.func @query_heads(%query: tensor<4x128x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x128xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{query: expected N1 in [1, 64] query heads (dimension -2), got 128 [LI-05]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x128x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x128xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-06: block_size a multiple of 16
func.func @block_size(%query: tensor<4x64x128xbf16>, %key: tensor<4x120x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{key: expected a block_size (dimension 1) that is a multiple of 16 in (0, 1024], got 120 [LI-06]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x120x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-08: TND needs actual_seq_lengths_query
func.func @no_aq(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{actual_seq_lengths_query: is required with layout_query TND (cumulative token counts), got none [LI-08]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-09: PA_BSND needs actual_seq_lengths_key
func.func @no_ak(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{actual_seq_lengths_key: is required with layout_key PA_BSND (per-batch lengths), got none [LI-09]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-10: PA_BSND needs block_table
func.func @no_bt(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>) {
  // expected-error @+1 {{block_table: is required with layout_key PA_BSND, got none [LI-10]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-15: BSND key batch = query batch
func.func @key_batch(%query: tensor<2x3x8x128xf16>, %key: tensor<3x40x1x128xf16>, %weights: tensor<2x3x8xf32>) {
  // expected-error @+1 {{key: expected batch B = 2 (query dimension 0) in dimension 0, got tensor<3x40x1x128xf16> [LI-15]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights) {sparse_count = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>} : (tensor<2x3x8x128xf16>, tensor<3x40x1x128xf16>, tensor<2x3x8xf32>) -> (tensor<2x3x1x16xi32>, tensor<0xf16>)
  return
}

// -----

// LI-15: weights (B, S1, N1)
func.func @weights_shape(%query: tensor<2x3x8x128xf16>, %key: tensor<2x40x1x128xf16>, %weights: tensor<2x3x4xf32>) {
  // expected-error @+1 {{weights: expected the query's (B, S1, N1) = (2, 3, 8), got tensor<2x3x4xf32> [LI-15]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights) {sparse_count = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>} : (tensor<2x3x8x128xf16>, tensor<2x40x1x128xf16>, tensor<2x3x4xf32>) -> (tensor<2x3x1x16xi32>, tensor<0xf16>)
  return
}

// -----

// LI-11: sparse_count in [1, 2048] or 3072 .. 8192
func.func @sparse_count(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{sparse_count: expected a value in [1, 2048] or one of 3072, 4096, 5120, 6144, 7168 or 8192, got 2500 [LI-11]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2500 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2500xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-12: sparse_mode 0 or 3
func.func @sparse_mode(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{sparse_mode: expected 0 (no mask) or 3 (right-down causal), got 2 [LI-12]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-13: pre_tokens = 2^63-1
func.func @pre_tokens(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{pre_tokens: expected 9223372036854775807 (no band), got 2048 [LI-13]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, pre_tokens = 2048 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-13: next_tokens = 2^63-1
func.func @next_tokens(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{next_tokens: expected 9223372036854775807 (no band), got 0 [LI-13]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, next_tokens = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-14: no return_value with PA_BSND
func.func @return_value(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{return_value: must be false with layout_key PA_BSND (the values are a training-only output) [LI-14]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, return_value = true, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<4x1x2048xbf16>)
  return
}

// -----

// LI-19: sparse_indices i32 (T1, N2, sparse_count)
func.func @indices_type(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{sparse_indices: expected an i32 tensor (T1, N2, sparse_count) = (4, 1, 2048), got tensor<4x1x1024xi32> [LI-19]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x1024xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-20: sparse_values (0,) without return_value
func.func @values_type(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{sparse_values: expected a bf16 tensor (the query's type), an empty (0,) tensor without return_value = (0), got tensor<4x1x2048xbf16> [LI-20]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<4x1x2048xbf16>)
  return
}

// -----

// LI-08: lengths are i32
func.func @aq_i64(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi64>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{actual_seq_lengths_query: expected a 1-D i32 ND tensor (B,), got tensor<2xi64> [LI-08]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi64>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-09: lengths are i32
func.func @ak_i64(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi64>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{actual_seq_lengths_key: expected a 1-D i32 ND tensor (B,), got tensor<2xi64> [LI-09]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi64>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-10: block_table rows = B
func.func @bt_rows(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xbf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<3x2xi32>) {
  // expected-error @+1 {{block_table: expected B = 2 rows, got 3 [LI-10]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<3x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return
}

// -----

// LI-10: no block_table without page attention
func.func @bt_unpaged(%query: tensor<2x3x8x128xf16>, %key: tensor<2x40x1x128xf16>, %weights: tensor<2x3x8xf32>, %block_table: tensor<2x1xi32>) {
  // expected-error @+1 {{block_table: must be absent without page attention (layout_key BSND), got tensor<2x1xi32> [LI-10]}}
  %0:2 = "mla.lightning_indexer"(%query, %key, %weights, %block_table) {sparse_count = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1>} : (tensor<2x3x8x128xf16>, tensor<2x40x1x128xf16>, tensor<2x3x8xf32>, tensor<2x1xi32>) -> (tensor<2x3x1x16xi32>, tensor<0xf16>)
  return
}

// RUN: mla-opt %s --split-input-file --verify-diagnostics
// One split per static rule of mla.quant_lightning_indexer (the DSA reference's QLI-01 .. QLI-09
// and the indexer's layout/length/mode rules it shares, QLI-04): each mutates one thing of
// vLLM-Ascend's "LI C8" form (TND int8 query of 4 tokens, 64 heads of 128, a PA_BSND int8 key of
// 4 blocks of 128 with its fp16 scale cache, fp16 weights). The rules on tensor data are in
// test/python/test_dsa_eager.py.

// -----

// LI-07: layout_query in {BSND, TND}
func.func @layout_bnsd(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{layout_query: expected BSND or TND, got 'BNSD' [LI-07]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "BNSD", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x64x1x2048xi32>)
  return
}

// -----

// LI-07: layout_key in {PA_BSND, BSND, TND}
func.func @layout_key_bad(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{layout_key: expected PA_BSND, BSND or TND, got 'BNSD' [LI-07]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "BNSD", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// LI-07: a TND query is 3-D
func.func @query_rank(%query: tensor<2x2x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{query: expected rank 3 (T1, N1, D) for layout_query TND, got tensor<2x2x64x128xi8> [LI-07]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<2x2x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<2x1x2048xi32>)
  return
}

// -----

// LI-07: a PA_BSND key is 4-D
func.func @key_rank(%query: tensor<4x64x128xi8>, %key: tensor<512x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{key: expected rank 4 (block_count, block_size, N2, D) for layout_key PA_BSND, got tensor<512x1x128xi8> [LI-07]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<512x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// LI-X01: ND
func.func @query_nz(%query: tensor<4x64x128xi8, #mla.format<"FRACTAL_NZ">>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{query: expected format ND, got tensor<4x64x128xi8, FRACTAL_NZ> [LI-X01]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// LI-X01: ND
func.func @key_nz(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8, #mla.format<"FRACTAL_NZ">>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{key: expected format ND, got tensor<4x128x1x128xi8, FRACTAL_NZ> [LI-X01]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8, #mla.format<"FRACTAL_NZ">>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// LI-X01: ND
func.func @w_nz(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16, #mla.format<"FRACTAL_NZ">>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{weights: expected format ND, got tensor<4x64xf16, FRACTAL_NZ> [LI-X01]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16, #mla.format<"FRACTAL_NZ">>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// LI-X01: ND
func.func @aq_nz(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32, #mla.format<"FRACTAL_NZ">>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{actual_seq_lengths_query: expected format ND, got tensor<2xi32, FRACTAL_NZ> [LI-X01]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32, #mla.format<"FRACTAL_NZ">>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// LI-X01: ND
func.func @ak_nz(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{actual_seq_lengths_key: expected format ND, got tensor<2xi32, FRACTAL_NZ> [LI-X01]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// LI-X01: ND
func.func @bt_nz(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{block_table: expected format ND, got tensor<2x2xi32, FRACTAL_NZ> [LI-X01]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32, #mla.format<"FRACTAL_NZ">>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// LI-X01: ND
func.func @qs_nz(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16, #mla.format<"FRACTAL_NZ">>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{query_dequant_scale: expected format ND, got tensor<4x64xf16, FRACTAL_NZ> [LI-X01]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16, #mla.format<"FRACTAL_NZ">>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// LI-X01: ND
func.func @ks_nz(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16, #mla.format<"FRACTAL_NZ">>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{key_dequant_scale: expected format ND, got tensor<4x128x1xf16, FRACTAL_NZ> [LI-X01]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16, #mla.format<"FRACTAL_NZ">>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// QLI-01: A2/A3: int8 query
func.func @query_bf16(%query: tensor<4x64x128xbf16>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{query: expected element type i8 (Atlas A2/A3), got bf16 [QLI-01]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// QLI-01: key of the query's type
func.func @key_bf16(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xbf16>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{key: expected the element type of query (i8), got bf16 [QLI-01]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xbf16>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// QLI-01: A2/A3: fp16 weights
func.func @w_bf16(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xbf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{weights: expected element type f16, got bf16 [QLI-01]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xbf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// QLI-01: A2/A3: fp16 scales
func.func @qs_f32(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf32>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{query_dequant_scale: expected element type f16, got f32 [QLI-01]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf32>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// QLI-01: A2/A3: fp16 scales
func.func @ks_f32(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf32>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{key_dequant_scale: expected element type f16, got f32 [QLI-01]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// QLI-05: query_quant_mode 0
func.func @qmode(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{query_quant_mode: expected 0 (per token and head), got 1 [QLI-05]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 1 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// QLI-05: key_quant_mode 0
func.func @kmode(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{key_quant_mode: expected 0 (per token and head), got 2 [QLI-05]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 2 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// QLI-08: no hifloat8 on A2/A3
func.func @qdtype(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{query_dtype: must be absent on Atlas A2/A3 (it names hifloat8 travelling as uint8, an Ascend 950 form), got 290 [QLI-08]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, query_dtype = 290 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// QLI-08: no hifloat8 on A2/A3
func.func @kdtype(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{key_dtype: must be absent on Atlas A2/A3 (it names hifloat8 travelling as uint8, an Ascend 950 form), got 290 [QLI-08]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, key_dtype = 290 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// QLI-06: N1 in [1, 64] heads of 128
func.func @q_heads(%query: tensor<4x96x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x96xf16>, %query_dequant_scale: tensor<4x96xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{query: expected N1 in [1, 64] heads of D = 128, got tensor<4x96x128xi8> [QLI-06]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x96x128xi8>, tensor<4x128x1x128xi8>, tensor<4x96xf16>, tensor<4x96xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// QLI-06: N2 = 1 head of 128
func.func @k_d(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x64xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{key: expected N2 = 1 head of D = 128 (the last two dimensions), got tensor<4x128x1x64xi8> [QLI-06]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x64xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// LI-06: block_size a multiple of 16 in (0, 1024]
func.func @block_2048(%query: tensor<4x64x128xi8>, %key: tensor<4x2048x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x2048x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{key: expected a block_size (dimension 1) that is a multiple of 16 in (0, 1024], got 2048 [LI-06]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x2048x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x2048x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// LI-08: TND needs actual_seq_lengths_query
func.func @no_aq(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{actual_seq_lengths_query: is required with layout_query TND (cumulative token counts), got none [LI-08]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// LI-09: PA_BSND needs actual_seq_lengths_key
func.func @no_ak(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{actual_seq_lengths_key: is required with layout_key PA_BSND (per-batch lengths), got none [LI-09]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// LI-10: PA_BSND needs block_table
func.func @no_bt(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>) {
  // expected-error @+1 {{block_table: is required with layout_key PA_BSND, got none [LI-10]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// QLI-06: BSND key batch = query batch
func.func @key_batch(%query: tensor<2x3x8x128xi8>, %key: tensor<3x40x1x128xi8>, %weights: tensor<2x3x8xf16>, %query_dequant_scale: tensor<2x3x8xf16>, %key_dequant_scale: tensor<3x40x1xf16>) {
  // expected-error @+1 {{key: expected batch B = 2 (query dimension 0) in dimension 0, got tensor<3x40x1x128xi8> [QLI-06]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, sparse_count = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<2x3x8x128xi8>, tensor<3x40x1x128xi8>, tensor<2x3x8xf16>, tensor<2x3x8xf16>, tensor<3x40x1xf16>) -> (tensor<2x3x1x16xi32>)
  return
}

// -----

// QLI-06: weights (T1, N1)
func.func @w_shape(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x32xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{weights: expected the query's (T1, N1) = (4, 64), got tensor<4x32xf16> [QLI-06]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x32xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// QLI-06: query scale (T1, N1)
func.func @qs_shape(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64x1xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{query_dequant_scale: expected the query's (T1, N1) = (4, 64), got tensor<4x64x1xf16> [QLI-06]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64x1xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// QLI-06: key scale (block_count, block_size, N2)
func.func @ks_shape(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{key_dequant_scale: expected the key's shape without D = (4, 128, 1), got tensor<4x128xf16> [QLI-06]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// QLI-07: sparse_count in [1, 2048]
func.func @count(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{sparse_count: expected a value in [1, 2048], got 4096 [QLI-07]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 4096 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x4096xi32>)
  return
}

// -----

// LI-12: sparse_mode 0 or 3
func.func @mode(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{sparse_mode: expected 0 (no mask) or 3 (right-down causal), got 1 [LI-12]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// LI-13: pre_tokens = 2^63-1
func.func @pre(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{pre_tokens: expected 9223372036854775807 (no band), got 65536 [LI-13]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, pre_tokens = 65536 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// LI-13: next_tokens = 2^63-1
func.func @next(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{next_tokens: expected 9223372036854775807 (no band), got 65536 [LI-13]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, next_tokens = 65536 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>)
  return
}

// -----

// QLI-09: sparse_indices i32 (T1, N2, sparse_count)
func.func @indices(%query: tensor<4x64x128xi8>, %key: tensor<4x128x1x128xi8>, %weights: tensor<4x64xf16>, %query_dequant_scale: tensor<4x64xf16>, %key_dequant_scale: tensor<4x128x1xf16>, %actual_seq_lengths_query: tensor<2xi32>, %actual_seq_lengths_key: tensor<2xi32>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{sparse_indices: expected an i32 tensor (T1, N2, sparse_count) = (4, 1, 2048), got tensor<4x1x2048xi64> [QLI-09]}}
  %0 = "mla.quant_lightning_indexer"(%query, %key, %weights, %query_dequant_scale, %key_dequant_scale, %actual_seq_lengths_query, %actual_seq_lengths_key, %block_table) {query_quant_mode = 0 : i64, key_quant_mode = 0 : i64, layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi64>)
  return
}

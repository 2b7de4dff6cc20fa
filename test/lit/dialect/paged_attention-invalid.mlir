// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.paged_attention: one split per failing rule (PA-001, PA-002, PA-003, PA-004, PA-005, PA-006, PA-007, PA-008, PA-009, PA-010, PA-011, PA-012, PA-015, PA-016, PA-017, PA-018, PA-019), each op otherwise valid.

// query is (B, S, N, D)
func.func @query_rank(%query: tensor<2x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>) {
  // expected-error @+1 {{query: expected rank 4 (B, S, N, D), got tensor<2x8x512xbf16> [PA-001]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// query is bf16, f16 or int8
func.func @query_dtype(%query: tensor<2x1x8x512xf32>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>) {
  // expected-error @+1 {{query: expected element type bf16, f16 or i8, got f32 [PA-002]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xf32>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// the caches are (BlockNum, BlockSize, Nkv, D)
func.func @key_rank(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<80x1x512xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>) {
  // expected-error @+1 {{key_cache: expected rank 4 (BlockNum, BlockSize, Nkv, D), got tensor<80x1x512xbf16> [PA-003]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<80x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// the rope cache too
func.func @key_rope_rank(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<80x1x64xbf16>) {
  // expected-error @+1 {{key_rope_cache: expected rank 4 (BlockNum, BlockSize, Nkv, D), got tensor<80x1x64xbf16> [PA-003]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<80x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// the caches have the query's type
func.func @value_dtype(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<5x16x1x512xf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>) {
  // expected-error @+1 {{value_cache: expected the element type of query (bf16), got f16 [PA-004]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// a PA_NZ cache is an ND tensor (cache_mode = "PA_NZ" says how its blocks are laid out)
func.func @key_nz(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16, #mla.format<"FRACTAL_NZ">>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>) {
  // expected-error @+1 {{key_cache: expected an ND tensor, got tensor<5x16x1x512xbf16, FRACTAL_NZ> [PA-005]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// the keys have the query's head size
func.func @key_head_size(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x256xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>) {
  // expected-error @+1 {{key_cache: expected head size D = 512 (query's), got tensor<5x16x1x256xbf16> [PA-006]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x256xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// 3 kv heads cannot serve 8 query heads
func.func @gqa(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x3x512xbf16>, %value_cache: tensor<5x16x3x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x3x64xbf16>) {
  // expected-error @+1 {{key_cache: expected Nkv dividing the 8 query heads (GQA), got Nkv = 3 [PA-006]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x3x512xbf16>, tensor<5x16x3x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x3x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// value_cache pages as key_cache does
func.func @value_blocks(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<4x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>) {
  // expected-error @+1 {{value_cache: expected (BlockNum, BlockSize, Nkv) = (5, 16, 1) (key_cache's), got tensor<4x16x1x512xbf16> [PA-007]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<4x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// query_rope without key_rope_cache
func.func @rope_alone(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>) {
  // expected-error @+1 {{query_rope: given without key_rope_cache: the rope parts of the query and of the keys come together [PA-008]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// key_rope_cache without query_rope
func.func @key_rope_alone(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %key_rope_cache: tensor<5x16x1x64xbf16>) {
  // expected-error @+1 {{query_rope: absent while key_rope_cache is given: the rope parts of the query and of the keys come together [PA-008]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// query_rope is (B, S, N, Dr)
func.func @rope_rank(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>) {
  // expected-error @+1 {{query_rope: expected (B, S, N, Dr) with (B, S, N) = (2, 1, 8) (query's) and bf16 or f16 (query's type unless it is i8), got tensor<2x8x64xbf16> [PA-008]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// query_rope has the query's type
func.func @rope_dtype(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xf16>, %key_rope_cache: tensor<5x16x1x64xf16>) {
  // expected-error @+1 {{query_rope: expected (B, S, N, Dr) with (B, S, N) = (2, 1, 8) (query's) and bf16 or f16 (query's type unless it is i8), got tensor<2x1x8x64xf16> [PA-008]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xf16>, tensor<5x16x1x64xf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// key_rope_cache has query_rope's Dr
func.func @key_rope_width(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x32xbf16>) {
  // expected-error @+1 {{key_rope_cache: expected tensor<5x16x1x64xbf16> ((BlockNum, BlockSize, Nkv) of key_cache, Dr and element type of query_rope), got tensor<5x16x1x32xbf16> [PA-017]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x32xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// key_rope_cache pages as key_cache does
func.func @key_rope_blocks(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x128x1x64xbf16>) {
  // expected-error @+1 {{key_rope_cache: expected tensor<5x16x1x64xbf16> ((BlockNum, BlockSize, Nkv) of key_cache, Dr and element type of query_rope), got tensor<5x128x1x64xbf16> [PA-017]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x128x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// block_table is i32
func.func @block_table_dtype(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi64>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>) {
  // expected-error @+1 {{block_table: expected an i32 tensor (B, max blocks per sequence) with B = 2, got tensor<2x2xi64> [PA-009]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi64>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// one length per batch row
func.func @seq_lengths_batch(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<3xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>) {
  // expected-error @+1 {{seq_lengths: expected an i32 or i64 tensor (B,) with B = 2, got tensor<3xi64> [PA-010]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<3xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// cache_mode is PA_BSND or PA_NZ
func.func @cache_mode(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>) {
  // expected-error @+1 {{cache_mode: expected "PA_BSND" or "PA_NZ", got 'NZ' [PA-011]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {cache_mode = "NZ", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// PA_NZ blocks are whole 16-row fractals
func.func @nz_block_size(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<10x8x1x512xbf16>, %value_cache: tensor<10x8x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<10x8x1x64xbf16>) {
  // expected-error @+1 {{key_cache: PA_NZ needs BlockSize % 16 == 0 and Nkv*H % 16 == 0 (whole 16x16 fractals), got BlockSize 8, Nkv*H 512 [PA-018]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {cache_mode = "PA_NZ", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<10x8x1x512xbf16>, tensor<10x8x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<10x8x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// an int8 query needs its dequantization scales
func.func @i8_query_scale(%query: tensor<2x1x8x512xi8>, %key_cache: tensor<5x16x1x512xi8>, %value_cache: tensor<5x16x1x512xi8>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>, %key_dequant_scale: tensor<1xf32>) {
  // expected-error @+1 {{dequant_scale_query: is required with an i8 query (its per-token-head dequantization), got none [PA-015]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache, %key_dequant_scale) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<2x1x8x512xi8>, tensor<5x16x1x512xi8>, tensor<5x16x1x512xi8>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>, tensor<1xf32>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// a float query has none
func.func @float_query_scale(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>, %dequant_scale_query: tensor<2x1x8x1xf32>) {
  // expected-error @+1 {{dequant_scale_query: must be absent with a bf16 query, got tensor<2x1x8x1xf32> [PA-015]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache, %dequant_scale_query) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>, tensor<2x1x8x1xf32>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// one scale per token and head
func.func @i8_query_scale_shape(%query: tensor<2x1x8x512xi8>, %key_cache: tensor<5x16x1x512xi8>, %value_cache: tensor<5x16x1x512xi8>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>, %dequant_scale_query: tensor<2x1x8xf32>, %key_dequant_scale: tensor<1xf32>) {
  // expected-error @+1 {{dequant_scale_query: expected an f32 tensor (B, S, N, 1) = (2, 1, 8, 1), got tensor<2x1x8xf32> [PA-015]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache, %dequant_scale_query, %key_dequant_scale) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<2x1x8x512xi8>, tensor<5x16x1x512xi8>, tensor<5x16x1x512xi8>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>, tensor<2x1x8xf32>, tensor<1xf32>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// int8 caches need their per-tensor dequantization scale
func.func @i8_key_scale(%query: tensor<2x1x8x512xi8>, %key_cache: tensor<5x16x1x512xi8>, %value_cache: tensor<5x16x1x512xi8>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>, %dequant_scale_query: tensor<2x1x8x1xf32>) {
  // expected-error @+1 {{key_dequant_scale: is required with i8 caches (their per-tensor dequantization), got none [PA-016]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache, %dequant_scale_query) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<2x1x8x512xi8>, tensor<5x16x1x512xi8>, tensor<5x16x1x512xi8>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>, tensor<2x1x8x1xf32>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// the kv dequantization scale is per tensor
func.func @i8_key_scale_shape(%query: tensor<2x1x8x512xi8>, %key_cache: tensor<5x16x1x512xi8>, %value_cache: tensor<5x16x1x512xi8>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>, %dequant_scale_query: tensor<2x1x8x1xf32>, %key_dequant_scale: tensor<512xf32>) {
  // expected-error @+1 {{key_dequant_scale: expected an f32 tensor of one element, got tensor<512xf32> [PA-016]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache, %dequant_scale_query, %key_dequant_scale) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<2x1x8x512xi8>, tensor<5x16x1x512xi8>, tensor<5x16x1x512xi8>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>, tensor<2x1x8x1xf32>, tensor<512xf32>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// the output is (B, S, N, Dv)
func.func @out_shape(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>) {
  // expected-error @+1 {{attention_out: expected tensor<2x1x8x512xbf16>, got tensor<2x1x8x576xbf16> [PA-012]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x576xbf16>
  return
}

// -----

// the output is bf16 or f16
func.func @out_dtype(%query: tensor<2x1x8x512xbf16>, %key_cache: tensor<5x16x1x512xbf16>, %value_cache: tensor<5x16x1x512xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>, %query_rope: tensor<2x1x8x64xbf16>, %key_rope_cache: tensor<5x16x1x64xbf16>) {
  // expected-error @+1 {{attention_out: expected element type bf16 or f16, got f32 [PA-012]}}
  %0 = "mla.paged_attention"(%query, %key_cache, %value_cache, %block_table, %seq_lengths, %query_rope, %key_rope_cache) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xf32>
  return
}

// -----

// A cache is read in the cache_mode its writer used: PA_NZ blocks read as PA_BSND rows would
// verify and read the bytes in the wrong order (PA-019, a dataflow rule).
func.func @written_nz_read_bsnd(%query: tensor<2x1x8x512xbf16>, %cache: tensor<5x16x1x512xbf16>,
    %slots: tensor<2x1xi64>, %rows: tensor<2x1x1x512xbf16>, %block_table: tensor<2x2xi32>,
    %seq_lengths: tensor<2xi64>) {
  %kv = "mla.scatter_cache"(%cache, %slots, %rows) {cache_mode = "PA_NZ"}
      : (tensor<5x16x1x512xbf16>, tensor<2x1xi64>, tensor<2x1x1x512xbf16>) -> tensor<5x16x1x512xbf16>
  // expected-error @+1 {{key_cache: written by 'mla.scatter_cache' in cache_mode PA_NZ, read here as PA_BSND [PA-019]}}
  %0 = "mla.paged_attention"(%query, %kv, %kv, %block_table, %seq_lengths)
      {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>}
      : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>,
         tensor<2xi64>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

func.func @written_bsnd_read_nz(%query: tensor<2x1x8x512xbf16>, %kv: tensor<5x16x1x512xbf16>,
    %kr_cache: tensor<5x16x1x64xbf16>, %slots: tensor<2x1xi64>, %rows: tensor<2x1x1x64xbf16>,
    %query_rope: tensor<2x1x8x64xbf16>, %block_table: tensor<2x2xi32>, %seq_lengths: tensor<2xi64>) {
  %kr = "mla.scatter_cache"(%kr_cache, %slots, %rows)
      : (tensor<5x16x1x64xbf16>, tensor<2x1xi64>, tensor<2x1x1x64xbf16>) -> tensor<5x16x1x64xbf16>
  // expected-error @+1 {{key_rope_cache: written by 'mla.scatter_cache' in cache_mode PA_BSND, read here as PA_NZ [PA-019]}}
  %0 = "mla.paged_attention"(%query, %kv, %kv, %block_table, %seq_lengths, %query_rope, %kr)
      {cache_mode = "PA_NZ", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>}
      : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>,
         tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

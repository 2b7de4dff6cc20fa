// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.scatter_cache: one split per failing rule (SC-001, SC-002, SC-003, SC-004, SC-005, SC-006, SC-007, SC-008, SC-009), each op otherwise valid.

// the cache is (BlockNum, BlockSize, Nkv, H)
func.func @cache_rank(%cache: tensor<64x1x64xbf16>, %slot_mapping: tensor<2x3xi64>, %update: tensor<2x3x1x64xbf16>) {
  // expected-error @+1 {{cache: expected rank 4 (BlockNum, BlockSize, Nkv, H), got tensor<64x1x64xbf16> [SC-001]}}
  %0 = "mla.scatter_cache"(%cache, %slot_mapping, %update) : (tensor<64x1x64xbf16>, tensor<2x3xi64>, tensor<2x3x1x64xbf16>) -> tensor<64x1x64xbf16>
  return
}

// -----

// caches are bf16, f16 or int8
func.func @cache_dtype(%cache: tensor<4x16x1x64xf32>, %slot_mapping: tensor<2x3xi64>, %update: tensor<2x3x1x64xf32>) {
  // expected-error @+1 {{cache: expected element type bf16, f16 or i8, got f32 [SC-002]}}
  %0 = "mla.scatter_cache"(%cache, %slot_mapping, %update) : (tensor<4x16x1x64xf32>, tensor<2x3xi64>, tensor<2x3x1x64xf32>) -> tensor<4x16x1x64xf32>
  return
}

// -----

// a PA_NZ cache is an ND tensor holding NZ-ordered blocks (cache_mode says so)
func.func @cache_nz(%cache: tensor<4x16x1x64xbf16, #mla.format<"FRACTAL_NZ">>, %slot_mapping: tensor<2x3xi64>, %update: tensor<2x3x1x64xbf16>) {
  // expected-error @+1 {{cache: expected an ND tensor, got tensor<4x16x1x64xbf16, FRACTAL_NZ> [SC-003]}}
  %0 = "mla.scatter_cache"(%cache, %slot_mapping, %update) : (tensor<4x16x1x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x3xi64>, tensor<2x3x1x64xbf16>) -> tensor<4x16x1x64xbf16, #mla.format<"FRACTAL_NZ">>
  return
}

// -----

// slots are integers
func.func @slots_float(%cache: tensor<4x16x1x64xbf16>, %slot_mapping: tensor<2x3xf32>, %update: tensor<2x3x1x64xbf16>) {
  // expected-error @+1 {{slot_mapping: expected element type i32 or i64, got f32 [SC-004]}}
  %0 = "mla.scatter_cache"(%cache, %slot_mapping, %update) : (tensor<4x16x1x64xbf16>, tensor<2x3xf32>, tensor<2x3x1x64xbf16>) -> tensor<4x16x1x64xbf16>
  return
}

// -----

// slot_mapping is ND
func.func @slots_nz(%cache: tensor<4x16x1x64xbf16>, %slot_mapping: tensor<16x16xi32, #mla.format<"FRACTAL_NZ">>, %update: tensor<16x16x1x64xbf16>) {
  // expected-error @+1 {{slot_mapping: expected an ND tensor, got tensor<16x16xi32, FRACTAL_NZ> [SC-003]}}
  %0 = "mla.scatter_cache"(%cache, %slot_mapping, %update) : (tensor<4x16x1x64xbf16>, tensor<16x16xi32, #mla.format<"FRACTAL_NZ">>, tensor<16x16x1x64xbf16>) -> tensor<4x16x1x64xbf16>
  return
}

// -----

// one (Nkv, H) row per slot
func.func @update_shape(%cache: tensor<4x16x1x64xbf16>, %slot_mapping: tensor<2x3xi64>, %update: tensor<2x3x1x32xbf16>) {
  // expected-error @+1 {{update: expected shape slot_mapping + (Nkv, H) = (2, 3, 1, 64), got tensor<2x3x1x32xbf16> [SC-005]}}
  %0 = "mla.scatter_cache"(%cache, %slot_mapping, %update) : (tensor<4x16x1x64xbf16>, tensor<2x3xi64>, tensor<2x3x1x32xbf16>) -> tensor<4x16x1x64xbf16>
  return
}

// -----

// one row per slot: 6 slots, 3 rows
func.func @update_rows(%cache: tensor<4x16x1x64xbf16>, %slot_mapping: tensor<2x3xi64>, %update: tensor<3x1x64xbf16>) {
  // expected-error @+1 {{update: expected shape slot_mapping + (Nkv, H) = (2, 3, 1, 64), got tensor<3x1x64xbf16> [SC-005]}}
  %0 = "mla.scatter_cache"(%cache, %slot_mapping, %update) : (tensor<4x16x1x64xbf16>, tensor<2x3xi64>, tensor<3x1x64xbf16>) -> tensor<4x16x1x64xbf16>
  return
}

// -----

// the rows have the cache's type (quantize them first)
func.func @update_dtype(%cache: tensor<4x16x1x64xbf16>, %slot_mapping: tensor<2x3xi64>, %update: tensor<2x3x1x64xf32>) {
  // expected-error @+1 {{update: expected the element type of cache (bf16), got f32 [SC-006]}}
  %0 = "mla.scatter_cache"(%cache, %slot_mapping, %update) : (tensor<4x16x1x64xbf16>, tensor<2x3xi64>, tensor<2x3x1x64xf32>) -> tensor<4x16x1x64xbf16>
  return
}

// -----

// cache_mode is PA_BSND or PA_NZ
func.func @cache_mode(%cache: tensor<4x16x1x64xbf16>, %slot_mapping: tensor<2x3xi64>, %update: tensor<2x3x1x64xbf16>) {
  // expected-error @+1 {{cache_mode: expected "PA_BSND" or "PA_NZ", got 'BSND' [SC-007]}}
  %0 = "mla.scatter_cache"(%cache, %slot_mapping, %update) {cache_mode = "BSND"} : (tensor<4x16x1x64xbf16>, tensor<2x3xi64>, tensor<2x3x1x64xbf16>) -> tensor<4x16x1x64xbf16>
  return
}

// -----

// PA_NZ blocks are whole 16-row fractals
func.func @nz_block_size(%cache: tensor<4x8x1x64xbf16>, %slot_mapping: tensor<2x3xi64>, %update: tensor<2x3x1x64xbf16>) {
  // expected-error @+1 {{cache: PA_NZ needs BlockSize % 16 == 0 and Nkv*H % 16 == 0 (whole 16x16 fractals), got BlockSize 8, Nkv*H 64 [SC-008]}}
  %0 = "mla.scatter_cache"(%cache, %slot_mapping, %update) {cache_mode = "PA_NZ"} : (tensor<4x8x1x64xbf16>, tensor<2x3xi64>, tensor<2x3x1x64xbf16>) -> tensor<4x8x1x64xbf16>
  return
}

// -----

// int8 PA_NZ rows are whole 32-byte fractal rows
func.func @nz_width(%cache: tensor<4x16x1x48xi8>, %slot_mapping: tensor<2x3xi64>, %update: tensor<2x3x1x48xi8>) {
  // expected-error @+1 {{cache: PA_NZ needs BlockSize % 16 == 0 and Nkv*H % 32 == 0 (whole 16x32 fractals), got BlockSize 16, Nkv*H 48 [SC-008]}}
  %0 = "mla.scatter_cache"(%cache, %slot_mapping, %update) {cache_mode = "PA_NZ"} : (tensor<4x16x1x48xi8>, tensor<2x3xi64>, tensor<2x3x1x48xi8>) -> tensor<4x16x1x48xi8>
  return
}

// -----

// the result is the updated cache
func.func @cache_out(%cache: tensor<4x16x1x64xbf16>, %slot_mapping: tensor<2x3xi64>, %update: tensor<2x3x1x64xbf16>) {
  // expected-error @+1 {{cache_out: expected element type bf16, got f16 [SC-009]}}
  %0 = "mla.scatter_cache"(%cache, %slot_mapping, %update) : (tensor<4x16x1x64xbf16>, tensor<2x3xi64>, tensor<2x3x1x64xbf16>) -> tensor<4x16x1x64xf16>
  return
}

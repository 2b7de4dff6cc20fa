// RUN: mla-opt %s --split-input-file --verify-diagnostics
// The serving primitives' rules (dialect/primitive/cache.py, matmul.py), one split per rule. The data rules
// (KVR-012, KVR-013) and the torch_npu-call rules (ROPE-008..010, DQ-008..010, FC-004,
// KVR-015, TBMM-009) are tested in test/python/test_serving_ops.py.

// KVR-001: kv is (B, 1, S, 576)
func.func @kvr_001_440(%kv: tensor<16x1x1x512xbf16>, %gamma: tensor<512xbf16>, %cos: tensor<16x1x1x64xbf16>, %sin: tensor<16x1x1x64xbf16>, %index: tensor<16xi64>, %k_cache: tensor<40x128x1x64xbf16>, %ckv_cache: tensor<40x128x1x512xbf16>) {
  // expected-error @+1 {{kv: expected (B, 1, S, 576) (one kv head: the RmsNorm part 512 then the RoPE part 64), got tensor<16x1x1x512xbf16> [KVR-001]}}
  %a, %b, %c, %d = "mla.kv_rmsnorm_rope_cache"(%kv, %gamma, %cos, %sin, %index, %k_cache, %ckv_cache) {cache_mode = "PA", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<16x1x1x512xbf16>, tensor<512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>) -> (tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return
}

// -----

// KVR-002: kv is bf16 or f16
func.func @kvr_002_352(%kv: tensor<16x1x1x576xf32>, %gamma: tensor<512xf32>, %cos: tensor<16x1x1x64xf32>, %sin: tensor<16x1x1x64xf32>, %index: tensor<16xi64>, %k_cache: tensor<40x128x1x64xf32>, %ckv_cache: tensor<40x128x1x512xf32>) {
  // expected-error @+1 {{kv: expected element type bf16 or f16, got f32 [KVR-002]}}
  %a, %b, %c, %d = "mla.kv_rmsnorm_rope_cache"(%kv, %gamma, %cos, %sin, %index, %k_cache, %ckv_cache) {cache_mode = "PA", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<16x1x1x576xf32>, tensor<512xf32>, tensor<16x1x1x64xf32>, tensor<16x1x1x64xf32>, tensor<16xi64>, tensor<40x128x1x64xf32>, tensor<40x128x1x512xf32>) -> (tensor<40x128x1x64xf32>, tensor<40x128x1x512xf32>, tensor<16x1x1x64xf32>, tensor<16x1x1x512xf32>)
  return
}

// -----

// KVR-003: gamma (512) of kv's type
func.func @kvr_003_453(%kv: tensor<16x1x1x576xbf16>, %gamma: tensor<576xbf16>, %cos: tensor<16x1x1x64xbf16>, %sin: tensor<16x1x1x64xbf16>, %index: tensor<16xi64>, %k_cache: tensor<40x128x1x64xbf16>, %ckv_cache: tensor<40x128x1x512xbf16>) {
  // expected-error @+1 {{gamma: expected (512,) of bf16 (kv's type), got tensor<576xbf16> [KVR-003]}}
  %a, %b, %c, %d = "mla.kv_rmsnorm_rope_cache"(%kv, %gamma, %cos, %sin, %index, %k_cache, %ckv_cache) {cache_mode = "PA", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<16x1x1x576xbf16>, tensor<576xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>) -> (tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return
}

// -----

// KVR-004: cos/sin (B, 1, S, 64)
func.func @kvr_004_274(%kv: tensor<16x1x1x576xbf16>, %gamma: tensor<512xbf16>, %cos: tensor<16x8x1x64xbf16>, %sin: tensor<16x1x1x64xbf16>, %index: tensor<16xi64>, %k_cache: tensor<40x128x1x64xbf16>, %ckv_cache: tensor<40x128x1x512xbf16>) {
  // expected-error @+1 {{cos: expected (16, 1, 1, 64) of bf16 (B, 1, S, 64), got tensor<16x8x1x64xbf16> [KVR-004]}}
  %a, %b, %c, %d = "mla.kv_rmsnorm_rope_cache"(%kv, %gamma, %cos, %sin, %index, %k_cache, %ckv_cache) {cache_mode = "PA", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<16x1x1x576xbf16>, tensor<512xbf16>, tensor<16x8x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>) -> (tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return
}

// -----

// KVR-005: index: i64 (B*S)
func.func @kvr_005_2(%kv: tensor<16x1x1x576xbf16>, %gamma: tensor<512xbf16>, %cos: tensor<16x1x1x64xbf16>, %sin: tensor<16x1x1x64xbf16>, %index: tensor<16xi32>, %k_cache: tensor<40x128x1x64xbf16>, %ckv_cache: tensor<40x128x1x512xbf16>) {
  // expected-error @+1 {{index: expected an i64 tensor (16) (one slot per token, B*S), got tensor<16xi32> [KVR-005]}}
  %a, %b, %c, %d = "mla.kv_rmsnorm_rope_cache"(%kv, %gamma, %cos, %sin, %index, %k_cache, %ckv_cache) {cache_mode = "PA", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<16x1x1x576xbf16>, tensor<512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi32>, tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>) -> (tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return
}

// -----

// KVR-006: cache modes PA, PA_BNSD, PA_NZ
func.func @kvr_006_955(%kv: tensor<16x1x1x576xbf16>, %gamma: tensor<512xbf16>, %cos: tensor<16x1x1x64xbf16>, %sin: tensor<16x1x1x64xbf16>, %index: tensor<16xi64>, %k_cache: tensor<40x128x1x64xbf16>, %ckv_cache: tensor<40x128x1x512xbf16>) {
  // expected-error @+1 {{cache_mode: expected "PA", "PA_BNSD" or "PA_NZ" ("Norm" and the PA_BLK modes are not modelled), got 'Norm' [KVR-006]}}
  %a, %b, %c, %d = "mla.kv_rmsnorm_rope_cache"(%kv, %gamma, %cos, %sin, %index, %k_cache, %ckv_cache) {cache_mode = "Norm", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<16x1x1x576xbf16>, tensor<512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>) -> (tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return
}

// -----

// KVR-007: the caches (BlockNum, BlockSize, 1, D)
func.func @kvr_007_496(%kv: tensor<16x1x1x576xbf16>, %gamma: tensor<512xbf16>, %cos: tensor<16x1x1x64xbf16>, %sin: tensor<16x1x1x64xbf16>, %index: tensor<16xi64>, %k_cache: tensor<40x128x1x64xbf16>, %ckv_cache: tensor<40x64x1x512xbf16>) {
  // expected-error @+1 {{ckv_cache: expected (BlockNum, BlockSize, 1, 512) (the k_cache's blocks), got tensor<40x64x1x512xbf16> [KVR-007]}}
  %a, %b, %c, %d = "mla.kv_rmsnorm_rope_cache"(%kv, %gamma, %cos, %sin, %index, %k_cache, %ckv_cache) {cache_mode = "PA", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<16x1x1x576xbf16>, tensor<512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<40x128x1x64xbf16>, tensor<40x64x1x512xbf16>) -> (tensor<40x128x1x64xbf16>, tensor<40x64x1x512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return
}

// -----

// KVR-007: an int8 cache takes its scale
func.func @kvr_007_631(%kv: tensor<16x1x1x576xbf16>, %gamma: tensor<512xbf16>, %cos: tensor<16x1x1x64xbf16>, %sin: tensor<16x1x1x64xbf16>, %index: tensor<16xi64>, %k_cache: tensor<40x128x1x64xbf16>, %ckv_cache: tensor<40x128x1x512xi8>) {
  // expected-error @+1 {{ckv_cache: expected element type bf16 (kv's type without c_kv_scale), got i8 [KVR-007]}}
  %a, %b, %c, %d = "mla.kv_rmsnorm_rope_cache"(%kv, %gamma, %cos, %sin, %index, %k_cache, %ckv_cache) {cache_mode = "PA", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<16x1x1x576xbf16>, tensor<512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<40x128x1x64xbf16>, tensor<40x128x1x512xi8>) -> (tensor<40x128x1x64xbf16>, tensor<40x128x1x512xi8>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return
}

// -----

// KVR-008: scales: f32 per channel
func.func @kvr_008_961(%kv: tensor<16x1x1x576xbf16>, %gamma: tensor<512xbf16>, %cos: tensor<16x1x1x64xbf16>, %sin: tensor<16x1x1x64xbf16>, %index: tensor<16xi64>, %k_cache: tensor<40x128x1x64xbf16>, %ckv_cache: tensor<40x128x1x512xi8>, %c_kv_scale: tensor<1xf32>) {
  // expected-error @+1 {{c_kv_scale: expected an f32 tensor (512,) (one factor per channel), got tensor<1xf32> [KVR-008]}}
  %a, %b, %c, %d = "mla.kv_rmsnorm_rope_cache"(%kv, %gamma, %cos, %sin, %index, %k_cache, %ckv_cache, %c_kv_scale) {cache_mode = "PA", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0>} : (tensor<16x1x1x576xbf16>, tensor<512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<40x128x1x64xbf16>, tensor<40x128x1x512xi8>, tensor<1xf32>) -> (tensor<40x128x1x64xbf16>, tensor<40x128x1x512xi8>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return
}

// -----

// KVR-009: no offsets
func.func @kvr_009_640(%kv: tensor<16x1x1x576xbf16>, %gamma: tensor<512xbf16>, %cos: tensor<16x1x1x64xbf16>, %sin: tensor<16x1x1x64xbf16>, %index: tensor<16xi64>, %k_cache: tensor<40x128x1x64xbf16>, %ckv_cache: tensor<40x128x1x512xi8>, %c_kv_scale: tensor<512xf32>, %c_kv_offset: tensor<512xf32>) {
  // expected-error @+1 {{c_kv_offset: asymmetric quantization is not supported (the documents: "暂不支持配置") [KVR-009]}}
  %a, %b, %c, %d = "mla.kv_rmsnorm_rope_cache"(%kv, %gamma, %cos, %sin, %index, %k_cache, %ckv_cache, %c_kv_scale, %c_kv_offset) {cache_mode = "PA", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1>} : (tensor<16x1x1x576xbf16>, tensor<512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<40x128x1x64xbf16>, tensor<40x128x1x512xi8>, tensor<512xf32>, tensor<512xf32>) -> (tensor<40x128x1x64xbf16>, tensor<40x128x1x512xi8>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return
}

// -----

// KVR-010: enough blocks for the tokens
func.func @kvr_010_742(%kv: tensor<16x1x1x576xbf16>, %gamma: tensor<512xbf16>, %cos: tensor<16x1x1x64xbf16>, %sin: tensor<16x1x1x64xbf16>, %index: tensor<16xi64>, %k_cache: tensor<8x128x1x64xbf16>, %ckv_cache: tensor<8x128x1x512xbf16>) {
  // expected-error @+1 {{k_cache: expected BlockNum >= ceil(S/BlockSize) * B = ceil(1/128) * 16, got tensor<8x128x1x64xbf16> [KVR-010]}}
  %a, %b, %c, %d = "mla.kv_rmsnorm_rope_cache"(%kv, %gamma, %cos, %sin, %index, %k_cache, %ckv_cache) {cache_mode = "PA", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<16x1x1x576xbf16>, tensor<512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<8x128x1x64xbf16>, tensor<8x128x1x512xbf16>) -> (tensor<8x128x1x64xbf16>, tensor<8x128x1x512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return
}

// -----

// KVR-010: BlockSize a multiple of 32 bytes
func.func @kvr_010_608(%kv: tensor<16x1x1x576xbf16>, %gamma: tensor<512xbf16>, %cos: tensor<16x1x1x64xbf16>, %sin: tensor<16x1x1x64xbf16>, %index: tensor<16xi64>, %k_cache: tensor<40x8x1x64xbf16>, %ckv_cache: tensor<40x8x1x512xbf16>) {
  // expected-error @+1 {{k_cache: expected a BlockSize of a multiple of 32 bytes (16 elements of bf16), got 8 [KVR-010]}}
  %a, %b, %c, %d = "mla.kv_rmsnorm_rope_cache"(%kv, %gamma, %cos, %sin, %index, %k_cache, %ckv_cache) {cache_mode = "PA", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<16x1x1x576xbf16>, tensor<512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<40x8x1x64xbf16>, tensor<40x8x1x512xbf16>) -> (tensor<40x8x1x64xbf16>, tensor<40x8x1x512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return
}

// -----

// KVR-014: k_embed_out (B, 1, S, 64) of kv's type
func.func @kvr_014_613(%kv: tensor<16x1x1x576xbf16>, %gamma: tensor<512xbf16>, %cos: tensor<16x1x1x64xbf16>, %sin: tensor<16x1x1x64xbf16>, %index: tensor<16xi64>, %k_cache: tensor<40x128x1x64xbf16>, %ckv_cache: tensor<40x128x1x512xbf16>) {
  // expected-error @+1 {{k_embed_out: expected element type bf16, got f32 [KVR-014]}}
  %a, %b, %c, %d = "mla.kv_rmsnorm_rope_cache"(%kv, %gamma, %cos, %sin, %index, %k_cache, %ckv_cache) {cache_mode = "PA", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<16x1x1x576xbf16>, tensor<512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>) -> (tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>, tensor<16x1x1x64xf32>, tensor<16x1x1x512xbf16>)
  return
}

// -----

// KVR-011: ND only
func.func @kvr_011_148(%kv: tensor<16x1x1x576xbf16>, %gamma: tensor<512xbf16>, %cos: tensor<16x1x1x64xbf16>, %sin: tensor<16x1x1x64xbf16>, %index: tensor<16xi64>, %k_cache: tensor<40x128x1x64xbf16, #mla.format<"FRACTAL_NZ">>, %ckv_cache: tensor<40x128x1x512xbf16>) {
  // expected-error @+1 {{k_cache: expected an ND tensor, got tensor<40x128x1x64xbf16, FRACTAL_NZ> [KVR-011]}}
  %a, %b, %c, %d = "mla.kv_rmsnorm_rope_cache"(%kv, %gamma, %cos, %sin, %index, %k_cache, %ckv_cache) {cache_mode = "PA", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<16x1x1x576xbf16>, tensor<512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<40x128x1x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<40x128x1x512xbf16>) -> (tensor<40x128x1x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<40x128x1x512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return
}

// -----

// TBMM-001: x is 3-D
func.func @tbmm_001_530(%x: tensor<128x512xbf16>, %w: tensor<8x512x128xbf16>) {
  // expected-error @+1 {{x: expected rank 3 (B, M, K) or (M, B, K), got tensor<128x512xbf16> [TBMM-001]}}
  %y = "mla.transpose_batchmatmul"(%x, %w) : (tensor<128x512xbf16>, tensor<8x512x128xbf16>) -> tensor<16x8x128xbf16>
  return
}

// -----

// TBMM-002: float x
func.func @tbmm_002_130(%x: tensor<8x16x512xi8>, %w: tensor<8x512x128xi8>) {
  // expected-error @+1 {{x: expected element type bf16, f16 or f32, got i8 [TBMM-002]}}
  %y = "mla.transpose_batchmatmul"(%x, %w) : (tensor<8x16x512xi8>, tensor<8x512x128xi8>) -> tensor<16x8x128xi8>
  return
}

// -----

// TBMM-002: w of x's type
func.func @tbmm_002_978(%x: tensor<8x16x512xbf16>, %w: tensor<8x512x128xf16>) {
  // expected-error @+1 {{w: expected the element type of x (bf16), got f16 [TBMM-002]}}
  %y = "mla.transpose_batchmatmul"(%x, %w) : (tensor<8x16x512xbf16>, tensor<8x512x128xf16>) -> tensor<16x8x128xbf16>
  return
}

// -----

// TBMM-003: perm_x1 [0, 1, 2] or [1, 0, 2]
func.func @tbmm_003_168(%x: tensor<8x16x512xbf16>, %w: tensor<8x512x128xbf16>) {
  // expected-error @+1 {{perm_x1: expected [0, 1, 2] or [1, 0, 2], got [0, 2, 1] [TBMM-003]}}
  %y = "mla.transpose_batchmatmul"(%x, %w) {perm_x1 = array<i64: 0, 2, 1>} : (tensor<8x16x512xbf16>, tensor<8x512x128xbf16>) -> tensor<16x8x128xbf16>
  return
}

// -----

// TBMM-003: perm_x2 [0, 1, 2]
func.func @tbmm_003_667(%x: tensor<8x16x512xbf16>, %w: tensor<8x512x128xbf16>) {
  // expected-error @+1 {{perm_x2: expected [0, 1, 2] (the only value documented), got [1, 0, 2] [TBMM-003]}}
  %y = "mla.transpose_batchmatmul"(%x, %w) {perm_x2 = array<i64: 1, 0, 2>} : (tensor<8x16x512xbf16>, tensor<8x512x128xbf16>) -> tensor<16x8x128xbf16>
  return
}

// -----

// TBMM-003: perm_y [1, 0, 2]
func.func @tbmm_003_422(%x: tensor<8x16x512xbf16>, %w: tensor<8x512x128xbf16>) {
  // expected-error @+1 {{perm_y: expected [1, 0, 2] (the only value documented), got [0, 1, 2] [TBMM-003]}}
  %y = "mla.transpose_batchmatmul"(%x, %w) {perm_y = array<i64: 0, 1, 2>} : (tensor<8x16x512xbf16>, tensor<8x512x128xbf16>) -> tensor<16x8x128xbf16>
  return
}

// -----

// TBMM-004: w's batch and K are x's
func.func @tbmm_004_570(%x: tensor<8x16x512xbf16>, %w: tensor<8x256x128xbf16>) {
  // expected-error @+1 {{w: expected (B, K) = (8, 512) (x's batch and reduce dims through perm_x1), got tensor<8x256x128xbf16> [TBMM-004]}}
  %y = "mla.transpose_batchmatmul"(%x, %w) : (tensor<8x16x512xbf16>, tensor<8x256x128xbf16>) -> tensor<16x8x128xbf16>
  return
}

// -----

// TBMM-005: K and N multiples of 16
func.func @tbmm_005_356(%x: tensor<8x16x512xbf16>, %w: tensor<8x512x120xbf16>) {
  // expected-error @+1 {{w: expected K and N multiples of 16, got K = 512, N = 120 [TBMM-005]}}
  %y = "mla.transpose_batchmatmul"(%x, %w) : (tensor<8x16x512xbf16>, tensor<8x512x120xbf16>) -> tensor<16x8x120xbf16>
  return
}

// -----

// TBMM-007: batch_split_factor divides N
func.func @tbmm_007_216(%x: tensor<8x16x512xbf16>, %w: tensor<8x512x128xbf16>) {
  // expected-error @+1 {{batch_split_factor: expected a divisor of N = 128 in [1, 128], got 3 [TBMM-007]}}
  %y = "mla.transpose_batchmatmul"(%x, %w) {batch_split_factor = 3 : i64} : (tensor<8x16x512xbf16>, tensor<8x512x128xbf16>) -> tensor<16x8x128xbf16>
  return
}

// -----

// TBMM-008: y (M, B, N)
func.func @tbmm_008_523(%x: tensor<16x8x512xbf16>, %w: tensor<8x512x128xbf16>) {
  // expected-error @+1 {{y: expected tensor<16x8x128xbf16>, got tensor<8x16x128xbf16> [TBMM-008]}}
  %y = "mla.transpose_batchmatmul"(%x, %w) {perm_x1 = array<i64: 1, 0, 2>} : (tensor<16x8x512xbf16>, tensor<8x512x128xbf16>) -> tensor<8x16x128xbf16>
  return
}

// -----

// TBMM-006: ND only
func.func @tbmm_006_148(%x: tensor<8x16x512xbf16, #mla.format<"FRACTAL_NZ">>, %w: tensor<8x512x128xbf16>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<8x16x512xbf16, FRACTAL_NZ> [TBMM-006]}}
  %y = "mla.transpose_batchmatmul"(%x, %w) : (tensor<8x16x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<8x512x128xbf16>) -> tensor<16x8x128xbf16>
  return
}

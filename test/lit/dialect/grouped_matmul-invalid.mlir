// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.grouped_matmul: one split per failing rule (GMM-001 to GMM-007, GMM-009 to GMM-011), each op otherwise valid.

// x is (rows, K)
func.func @gmm_001(%x: tensor<2x4x8xbf16>, %w: tensor<2x8x3xbf16>, %c: tensor<2xi64>) {
  // expected-error @+1 {{x: expected rank 2 (rows, K), got tensor<2x4x8xbf16> [GMM-001]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<2x4x8xbf16>, tensor<2x8x3xbf16>, tensor<2xi64>) -> tensor<8x3xbf16>
  return
}

// -----

// x is float or i8
func.func @gmm_002(%x: tensor<4x8xi32>, %w: tensor<2x8x3xi32>, %c: tensor<2xi64>) {
  // expected-error @+1 {{x: expected element type bf16, f16, f32 or i8, got i32 [GMM-002]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<4x8xi32>, tensor<2x8x3xi32>, tensor<2xi64>) -> tensor<4x3xbf16>
  return
}

// -----

// x is ND
func.func @gmm_003(%x: tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>, %w: tensor<2x32x3xbf16>, %c: tensor<2xi64>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<16x32xbf16, FRACTAL_NZ> [GMM-003]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x32x3xbf16>, tensor<2xi64>) -> tensor<16x3xbf16>
  return
}

// -----

// w is (groups, K, N)
func.func @gmm_004(%x: tensor<4x8xbf16>, %w: tensor<8x3xbf16>, %c: tensor<2xi64>) {
  // expected-error @+1 {{w: expected rank 3 (groups, K, N), got tensor<8x3xbf16> [GMM-004]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<4x8xbf16>, tensor<8x3xbf16>, tensor<2xi64>) -> tensor<4x3xbf16>
  return
}

// -----

// w has x's K
func.func @gmm_005(%x: tensor<4x8xbf16>, %w: tensor<2x6x3xbf16>, %c: tensor<2xi64>) {
  // expected-error @+1 {{w: expected K = 8 (the columns of x) as dimension 1, got tensor<2x6x3xbf16> [GMM-005]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<4x8xbf16>, tensor<2x6x3xbf16>, tensor<2xi64>) -> tensor<4x3xbf16>
  return
}

// -----

// group_list is one i64 count per group
func.func @gmm_006(%x: tensor<4x8xbf16>, %w: tensor<2x8x3xbf16>, %c: tensor<2xi32>) {
  // expected-error @+1 {{group_list: expected an i64 tensor of shape (2,) (one count per group), got tensor<2xi32> [GMM-006]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<4x8xbf16>, tensor<2x8x3xbf16>, tensor<2xi32>) -> tensor<4x3xbf16>
  return
}

// -----

// y is (rows, N)
func.func @gmm_007(%x: tensor<4x8xbf16>, %w: tensor<2x8x3xbf16>, %c: tensor<2xi64>) {
  // expected-error @+1 {{y: expected tensor<4x3xbf16>, got tensor<4x8xbf16> [GMM-007]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<4x8xbf16>, tensor<2x8x3xbf16>, tensor<2xi64>) -> tensor<4x8xbf16>
  return
}

// -----

// i8 x needs the weight scale
func.func @gmm_009_missing(%x: tensor<4x8xi8>, %w: tensor<2x8x3xi8>, %c: tensor<2xi64>, %t: tensor<4xf32>) {
  // expected-error @+1 {{scale: missing: i8 x needs each group's per-channel weight scale (groups, N) [GMM-009]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c, %t) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>} : (tensor<4x8xi8>, tensor<2x8x3xi8>, tensor<2xi64>, tensor<4xf32>) -> tensor<4x3xbf16>
  return
}

// -----

// the weight scale is (groups, N), bf16 for a bf16 y
func.func @gmm_009_shape(%x: tensor<4x8xi8>, %w: tensor<2x8x3xi8>, %c: tensor<2xi64>, %s: tensor<2x3xf32>, %t: tensor<4xf32>) {
  // expected-error @+1 {{scale: expected an ND bf16 tensor of shape (2, 3) (one factor per group and output column; bf16 for a bf16 y), got tensor<2x3xf32> [GMM-009]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c, %s, %t) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<4x8xi8>, tensor<2x8x3xi8>, tensor<2xi64>, tensor<2x3xf32>, tensor<4xf32>) -> tensor<4x3xbf16>
  return
}

// -----

// a float x takes no scale
func.func @gmm_009_float(%x: tensor<4x8xbf16>, %w: tensor<2x8x3xbf16>, %c: tensor<2xi64>, %s: tensor<2x3xbf16>) {
  // expected-error @+1 {{scale: given with bf16 x: only the int8 form (i8 x and w) dequantizes [GMM-009]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c, %s) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>} : (tensor<4x8xbf16>, tensor<2x8x3xbf16>, tensor<2xi64>, tensor<2x3xbf16>) -> tensor<4x3xbf16>
  return
}

// -----

// i8 x needs its per-row scale
func.func @gmm_010_missing(%x: tensor<4x8xi8>, %w: tensor<2x8x3xi8>, %c: tensor<2xi64>, %s: tensor<2x3xbf16>) {
  // expected-error @+1 {{per_token_scale: missing: i8 x needs the per-row scale of its quantization (rows,) [GMM-010]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c, %s) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>} : (tensor<4x8xi8>, tensor<2x8x3xi8>, tensor<2xi64>, tensor<2x3xbf16>) -> tensor<4x3xbf16>
  return
}

// -----

// the per-row scale is (rows,) f32
func.func @gmm_010_shape(%x: tensor<4x8xi8>, %w: tensor<2x8x3xi8>, %c: tensor<2xi64>, %s: tensor<2x3xbf16>, %t: tensor<4x1xf32>) {
  // expected-error @+1 {{per_token_scale: expected an ND f32 tensor of shape (4,) (one factor per row of x), got tensor<4x1xf32> [GMM-010]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c, %s, %t) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<4x8xi8>, tensor<2x8x3xi8>, tensor<2xi64>, tensor<2x3xbf16>, tensor<4x1xf32>) -> tensor<4x3xbf16>
  return
}

// -----

// a float x takes no per-row scale
func.func @gmm_010_float(%x: tensor<4x8xf32>, %w: tensor<2x8x3xf32>, %c: tensor<2xi64>, %t: tensor<4xf32>) {
  // expected-error @+1 {{per_token_scale: given with f32 x: only the int8 form (i8 x and w) dequantizes [GMM-010]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c, %t) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>} : (tensor<4x8xf32>, tensor<2x8x3xf32>, tensor<2xi64>, tensor<4xf32>) -> tensor<4x3xf32>
  return
}

// -----

// the int8 form's y is bf16 or f16
func.func @gmm_011(%x: tensor<4x8xi8>, %w: tensor<2x8x3xi8>, %c: tensor<2xi64>, %s: tensor<2x3xbf16>, %t: tensor<4xf32>) {
  // expected-error @+1 {{y: expected element type bf16 or f16 for i8 x (the dequantized product), got f32 [GMM-011]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c, %s, %t) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<4x8xi8>, tensor<2x8x3xi8>, tensor<2xi64>, tensor<2x3xbf16>, tensor<4xf32>) -> tensor<4x3xf32>
  return
}

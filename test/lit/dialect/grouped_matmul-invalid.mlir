// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.grouped_matmul: one split per failing rule (GMM-001, GMM-002, GMM-003, GMM-004, GMM-005, GMM-006, GMM-007), each op otherwise valid.

// x is (rows, K)
func.func @gmm_001(%x: tensor<2x4x8xbf16>, %w: tensor<2x8x3xbf16>, %c: tensor<2xi64>) {
  // expected-error @+1 {{x: expected rank 2 (rows, K), got tensor<2x4x8xbf16> [GMM-001]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c) : (tensor<2x4x8xbf16>, tensor<2x8x3xbf16>, tensor<2xi64>) -> tensor<8x3xbf16>
  return
}

// -----

// x is float
func.func @gmm_002(%x: tensor<4x8xi8>, %w: tensor<2x8x3xi8>, %c: tensor<2xi64>) {
  // expected-error @+1 {{x: expected element type bf16, f16 or f32, got i8 [GMM-002]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c) : (tensor<4x8xi8>, tensor<2x8x3xi8>, tensor<2xi64>) -> tensor<4x3xi8>
  return
}

// -----

// x is ND
func.func @gmm_003(%x: tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>, %w: tensor<2x32x3xbf16>, %c: tensor<2xi64>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<16x32xbf16, FRACTAL_NZ> [GMM-003]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c) : (tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x32x3xbf16>, tensor<2xi64>) -> tensor<16x3xbf16>
  return
}

// -----

// w is (groups, K, N)
func.func @gmm_004(%x: tensor<4x8xbf16>, %w: tensor<8x3xbf16>, %c: tensor<2xi64>) {
  // expected-error @+1 {{w: expected rank 3 (groups, K, N), got tensor<8x3xbf16> [GMM-004]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c) : (tensor<4x8xbf16>, tensor<8x3xbf16>, tensor<2xi64>) -> tensor<4x3xbf16>
  return
}

// -----

// w has x's K
func.func @gmm_005(%x: tensor<4x8xbf16>, %w: tensor<2x6x3xbf16>, %c: tensor<2xi64>) {
  // expected-error @+1 {{w: expected K = 8 (the columns of x) as dimension 1, got tensor<2x6x3xbf16> [GMM-005]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c) : (tensor<4x8xbf16>, tensor<2x6x3xbf16>, tensor<2xi64>) -> tensor<4x3xbf16>
  return
}

// -----

// group_list is one i64 count per group
func.func @gmm_006(%x: tensor<4x8xbf16>, %w: tensor<2x8x3xbf16>, %c: tensor<2xi32>) {
  // expected-error @+1 {{group_list: expected an i64 tensor of shape (2,) (one count per group), got tensor<2xi32> [GMM-006]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c) : (tensor<4x8xbf16>, tensor<2x8x3xbf16>, tensor<2xi32>) -> tensor<4x3xbf16>
  return
}

// -----

// y is (rows, N)
func.func @gmm_007(%x: tensor<4x8xbf16>, %w: tensor<2x8x3xbf16>, %c: tensor<2xi64>) {
  // expected-error @+1 {{y: expected tensor<4x3xbf16>, got tensor<4x8xbf16> [GMM-007]}}
  %0 = "mla.grouped_matmul"(%x, %w, %c) : (tensor<4x8xbf16>, tensor<2x8x3xbf16>, tensor<2xi64>) -> tensor<4x8xbf16>
  return
}

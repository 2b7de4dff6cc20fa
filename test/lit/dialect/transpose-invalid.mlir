// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.transpose: one split per failing rule (TR-001, TR-002, TR-003), each op otherwise valid.

// x is ND
func.func @x_nz(%x: tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<16x32xbf16, FRACTAL_NZ> [TR-001]}}
  %0 = "mla.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>) -> tensor<32x16xbf16>
  return
}

// -----

// a permutation names every axis once
func.func @repeated(%x: tensor<2x3x4xbf16>) {
  // expected-error @+1 {{permutation: expected a permutation of 0..2, got [0, 0, 1] [TR-002]}}
  %0 = "mla.transpose"(%x) {permutation = array<i64: 0, 0, 1>} : (tensor<2x3x4xbf16>) -> tensor<2x2x3xbf16>
  return
}

// -----

// one entry per axis
func.func @short(%x: tensor<2x3x4xbf16>) {
  // expected-error @+1 {{permutation: expected a permutation of 0..2, got [1, 0] [TR-002]}}
  %0 = "mla.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3x4xbf16>) -> tensor<3x2x4xbf16>
  return
}

// -----

// y.shape[i] = x.shape[permutation[i]]
func.func @y_shape(%x: tensor<2x3x4xbf16>) {
  // expected-error @+1 {{y: expected tensor<4x2x3xbf16>, got tensor<4x3x2xbf16> [TR-003]}}
  %0 = "mla.transpose"(%x) {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xbf16>) -> tensor<4x3x2xbf16>
  return
}

// -----

// a transpose keeps the element type
func.func @y_dtype(%x: tensor<2x3x4xbf16>) {
  // expected-error @+1 {{y: expected element type bf16, got f32 [TR-003]}}
  %0 = "mla.transpose"(%x) {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xbf16>) -> tensor<4x2x3xf32>
  return
}

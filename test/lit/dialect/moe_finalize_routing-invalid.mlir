// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.moe_finalize_routing: one split per failing rule (MFR-001, MFR-002, MFR-003, MFR-004, MFR-005, MFR-006, MFR-007, MFR-008), each op otherwise valid.

// expanded_x is (tokens*k, hidden)
func.func @mfr_001(%e: tensor<8xbf16>, %r: tensor<8xi32>, %s: tensor<4x2xf32>) {
  // expected-error @+1 {{expanded_x: expected rank 2 (tokens*k, hidden), got tensor<8xbf16> [MFR-001]}}
  %0 = "mla.moe_finalize_routing"(%e, %r, %s) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<8xbf16>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x1xbf16>
  return
}

// -----

// expanded_x is float
func.func @mfr_002(%e: tensor<8x16xi32>, %r: tensor<8xi32>, %s: tensor<4x2xf32>) {
  // expected-error @+1 {{expanded_x: expected element type bf16, f16 or f32, got i32 [MFR-002]}}
  %0 = "mla.moe_finalize_routing"(%e, %r, %s) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<8x16xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x16xi32>
  return
}

// -----

// scales is (tokens, k)
func.func @mfr_003(%e: tensor<8x16xbf16>, %r: tensor<8xi32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{scales: expected rank 2 (tokens, k), got tensor<8xf32> [MFR-003]}}
  %0 = "mla.moe_finalize_routing"(%e, %r, %s) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<8x16xbf16>, tensor<8xi32>, tensor<8xf32>) -> tensor<8x16xbf16>
  return
}

// -----

// scales are float
func.func @mfr_004(%e: tensor<8x16xbf16>, %r: tensor<8xi32>, %s: tensor<4x2xi32>) {
  // expected-error @+1 {{scales: expected element type bf16, f16 or f32, got i32 [MFR-004]}}
  %0 = "mla.moe_finalize_routing"(%e, %r, %s) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<8x16xbf16>, tensor<8xi32>, tensor<4x2xi32>) -> tensor<4x16xbf16>
  return
}

// -----

// expanded_row_idx has tokens*k i32 entries
func.func @mfr_005(%e: tensor<8x16xbf16>, %r: tensor<6xi32>, %s: tensor<4x2xf32>) {
  // expected-error @+1 {{expanded_row_idx: expected an i32 tensor of shape (8,) (tokens*k of scales), got tensor<6xi32> [MFR-005]}}
  %0 = "mla.moe_finalize_routing"(%e, %r, %s) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<8x16xbf16>, tensor<6xi32>, tensor<4x2xf32>) -> tensor<4x16xbf16>
  return
}

// -----

// x1 is (tokens, hidden) of expanded_x's type
func.func @mfr_006(%e: tensor<8x16xbf16>, %r: tensor<8xi32>, %s: tensor<4x2xf32>, %x1: tensor<4x16xf32>) {
  // expected-error @+1 {{x1: expected (4, 16) of element type bf16 (tokens, hidden), got tensor<4x16xf32> [MFR-006]}}
  %0 = "mla.moe_finalize_routing"(%e, %r, %s, %x1) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>} : (tensor<8x16xbf16>, tensor<8xi32>, tensor<4x2xf32>, tensor<4x16xf32>) -> tensor<4x16xbf16>
  return
}

// -----

// x2 comes with x1
func.func @mfr_007(%e: tensor<8x16xbf16>, %r: tensor<8xi32>, %s: tensor<4x2xf32>, %x2: tensor<4x16xbf16>) {
  // expected-error @+1 {{x2: x2 without x1 (the kernel reads x2 only after x1) [MFR-007]}}
  %0 = "mla.moe_finalize_routing"(%e, %r, %s, %x2) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>} : (tensor<8x16xbf16>, tensor<8xi32>, tensor<4x2xf32>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
  return
}

// -----

// out is (tokens, hidden) of expanded_x's type
func.func @mfr_008(%e: tensor<8x16xbf16>, %r: tensor<8xi32>, %s: tensor<4x2xf32>) {
  // expected-error @+1 {{out: expected element type bf16, got f32 [MFR-008]}}
  %0 = "mla.moe_finalize_routing"(%e, %r, %s) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<8x16xbf16>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x16xf32>
  return
}

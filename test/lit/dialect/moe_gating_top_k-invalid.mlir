// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.moe_gating_top_k: one split per failing rule (MGT-001, MGT-002, MGT-003, MGT-004, MGT-005, MGT-006, MGT-007, MGT-008, MGT-009, MGT-010, MGT-011, MGT-012, MGT-013), each op otherwise valid.

// x is (tokens, experts)
func.func @mgt_001(%x: tensor<2x4x16xf32>) {
  // expected-error @+1 {{x: expected rank 2 (tokens, experts), got tensor<2x4x16xf32> [MGT-001]}}
  %0:2 = "mla.moe_gating_top_k"(%x) {k = 2 : i64, operandSegmentSizes = array<i32: 1, 0>} : (tensor<2x4x16xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
  return
}

// -----

// x is float
func.func @mgt_002(%x: tensor<4x16xi32>) {
  // expected-error @+1 {{x: expected element type bf16, f16 or f32, got i32 [MGT-002]}}
  %0:2 = "mla.moe_gating_top_k"(%x) {k = 2 : i64, operandSegmentSizes = array<i32: 1, 0>} : (tensor<4x16xi32>) -> (tensor<4x2xi32>, tensor<4x2xi32>)
  return
}

// -----

// x is ND
func.func @mgt_003(%x: tensor<16x16xf32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<16x16xf32, FRACTAL_NZ> [MGT-003]}}
  %0:2 = "mla.moe_gating_top_k"(%x) {k = 2 : i64, operandSegmentSizes = array<i32: 1, 0>} : (tensor<16x16xf32, #mla.format<"FRACTAL_NZ">>) -> (tensor<16x2xf32>, tensor<16x2xi32>)
  return
}

// -----

// the bias is one f32 per expert
func.func @mgt_004(%x: tensor<4x16xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{bias: expected an f32 tensor of shape (16,) (one per expert), got tensor<8xf32> [MGT-004]}}
  %0:2 = "mla.moe_gating_top_k"(%x, %b) {k = 2 : i64, operandSegmentSizes = array<i32: 1, 1>} : (tensor<4x16xf32>, tensor<8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>)
  return
}

// -----

// group_count divides the experts
func.func @mgt_005(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{group_count: expected a divisor of the 16 experts, got 3 [MGT-005]}}
  %0:2 = "mla.moe_gating_top_k"(%x) {k = 2 : i64, group_count = 3 : i64, operandSegmentSizes = array<i32: 1, 0>} : (tensor<4x16xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>)
  return
}

// -----

// k_group is at most group_count
func.func @mgt_006(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{k_group: expected 1 <= k_group <= group_count (4), got 5 [MGT-006]}}
  %0:2 = "mla.moe_gating_top_k"(%x) {k = 2 : i64, group_count = 4 : i64, k_group = 5 : i64, operandSegmentSizes = array<i32: 1, 0>} : (tensor<4x16xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>)
  return
}

// -----

// k experts fit in the kept groups
func.func @mgt_007(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{k: expected 1 <= k <= k_group * experts per group (4: the experts of the kept groups), got 5 [MGT-007]}}
  %0:2 = "mla.moe_gating_top_k"(%x) {k = 5 : i64, group_count = 4 : i64, k_group = 1 : i64, operandSegmentSizes = array<i32: 1, 0>} : (tensor<4x16xf32>) -> (tensor<4x5xf32>, tensor<4x5xi32>)
  return
}

// -----

// norm_type is softmax or sigmoid
func.func @mgt_008(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{norm_type: expected 0 (softmax) or 1 (sigmoid), got 2 [MGT-008]}}
  %0:2 = "mla.moe_gating_top_k"(%x) {k = 2 : i64, norm_type = 2 : i64, operandSegmentSizes = array<i32: 1, 0>} : (tensor<4x16xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>)
  return
}

// -----

// the top-2 group score needs two experts per group
func.func @mgt_009(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{group_select_mode: the sum of the top 2 needs >= 2 experts per group, got 1 [MGT-009]}}
  %0:2 = "mla.moe_gating_top_k"(%x) {k = 2 : i64, group_count = 16 : i64, k_group = 4 : i64, group_select_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 0>} : (tensor<4x16xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>)
  return
}

// -----

// renorm is 0 or 1
func.func @mgt_010(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{renorm: expected 0 or 1, got 3 [MGT-010]}}
  %0:2 = "mla.moe_gating_top_k"(%x) {k = 2 : i64, renorm = 3 : i64, operandSegmentSizes = array<i32: 1, 0>} : (tensor<4x16xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>)
  return
}

// -----

// eps is not negative
func.func @mgt_011(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{eps: must be >= 0, got -1.0 [MGT-011]}}
  %0:2 = "mla.moe_gating_top_k"(%x) {k = 2 : i64, eps = -1.0 : f64, operandSegmentSizes = array<i32: 1, 0>} : (tensor<4x16xf32>) -> (tensor<4x2xf32>, tensor<4x2xi32>)
  return
}

// -----

// y is (tokens, k)
func.func @mgt_012(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{y: expected tensor<4x2xf32>, got tensor<4x3xf32> [MGT-012]}}
  %0:2 = "mla.moe_gating_top_k"(%x) {k = 2 : i64, operandSegmentSizes = array<i32: 1, 0>} : (tensor<4x16xf32>) -> (tensor<4x3xf32>, tensor<4x2xi32>)
  return
}

// -----

// the expert ids are i32
func.func @mgt_013(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{expert_idx: expected element type i32, got i64 [MGT-013]}}
  %0:2 = "mla.moe_gating_top_k"(%x) {k = 2 : i64, operandSegmentSizes = array<i32: 1, 0>} : (tensor<4x16xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  return
}

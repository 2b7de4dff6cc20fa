// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.moe_init_routing: one split per failing rule (MIR-001, MIR-002, MIR-003, MIR-004, MIR-005, MIR-006, MIR-007, MIR-008, MIR-009), each op otherwise valid.

// x is (tokens, hidden)
func.func @mir_001(%x: tensor<4xbf16>, %i: tensor<4x2xi32>) {
  // expected-error @+1 {{x: expected rank 2 (tokens, hidden), got tensor<4xbf16> [MIR-001]}}
  %0:3 = "mla.moe_init_routing"(%x, %i) {expert_num = 8 : i64} : (tensor<4xbf16>, tensor<4x2xi32>) -> (tensor<8x1xbf16>, tensor<8xi32>, tensor<8xi64>)
  return
}

// -----

// x is float
func.func @mir_002(%x: tensor<4x8xi8>, %i: tensor<4x2xi32>) {
  // expected-error @+1 {{x: expected element type bf16, f16 or f32, got i8 [MIR-002]}}
  %0:3 = "mla.moe_init_routing"(%x, %i) {expert_num = 8 : i64} : (tensor<4x8xi8>, tensor<4x2xi32>) -> (tensor<8x8xi8>, tensor<8xi32>, tensor<8xi64>)
  return
}

// -----

// expert_idx is (tokens, k)
func.func @mir_003(%x: tensor<4x8xbf16>, %i: tensor<8xi32>) {
  // expected-error @+1 {{expert_idx: expected rank 2 (tokens, k), got tensor<8xi32> [MIR-003]}}
  %0:3 = "mla.moe_init_routing"(%x, %i) {expert_num = 8 : i64} : (tensor<4x8xbf16>, tensor<8xi32>) -> (tensor<8x8xbf16>, tensor<8xi32>, tensor<8xi64>)
  return
}

// -----

// expert_idx is i32
func.func @mir_004(%x: tensor<4x8xbf16>, %i: tensor<4x2xi64>) {
  // expected-error @+1 {{expert_idx: expected element type i32, got i64 [MIR-004]}}
  %0:3 = "mla.moe_init_routing"(%x, %i) {expert_num = 8 : i64} : (tensor<4x8xbf16>, tensor<4x2xi64>) -> (tensor<8x8xbf16>, tensor<8xi32>, tensor<8xi64>)
  return
}

// -----

// one row of expert ids per token
func.func @mir_005(%x: tensor<4x8xbf16>, %i: tensor<3x2xi32>) {
  // expected-error @+1 {{expert_idx: expected 4 rows (the tokens of x), got tensor<3x2xi32> [MIR-005]}}
  %0:3 = "mla.moe_init_routing"(%x, %i) {expert_num = 8 : i64} : (tensor<4x8xbf16>, tensor<3x2xi32>) -> (tensor<6x8xbf16>, tensor<6xi32>, tensor<8xi64>)
  return
}

// -----

// at least one expert
func.func @mir_006(%x: tensor<4x8xbf16>, %i: tensor<4x2xi32>) {
  // expected-error @+1 {{expert_num: must be >= 1, got 0 [MIR-006]}}
  %0:3 = "mla.moe_init_routing"(%x, %i) {expert_num = 0 : i64} : (tensor<4x8xbf16>, tensor<4x2xi32>) -> (tensor<8x8xbf16>, tensor<8xi32>, tensor<0xi64>)
  return
}

// -----

// expanded_x holds tokens*k rows of x
func.func @mir_007(%x: tensor<4x8xbf16>, %i: tensor<4x2xi32>) {
  // expected-error @+1 {{expanded_x: expected tensor<8x8xbf16>, got tensor<4x8xbf16> [MIR-007]}}
  %0:3 = "mla.moe_init_routing"(%x, %i) {expert_num = 8 : i64} : (tensor<4x8xbf16>, tensor<4x2xi32>) -> (tensor<4x8xbf16>, tensor<8xi32>, tensor<8xi64>)
  return
}

// -----

// expanded_row_idx is tokens*k i32
func.func @mir_008(%x: tensor<4x8xbf16>, %i: tensor<4x2xi32>) {
  // expected-error @+1 {{expanded_row_idx: expected element type i32, got i64 [MIR-008]}}
  %0:3 = "mla.moe_init_routing"(%x, %i) {expert_num = 8 : i64} : (tensor<4x8xbf16>, tensor<4x2xi32>) -> (tensor<8x8xbf16>, tensor<8xi64>, tensor<8xi64>)
  return
}

// -----

// expert_tokens is one i64 count per expert
func.func @mir_009(%x: tensor<4x8xbf16>, %i: tensor<4x2xi32>) {
  // expected-error @+1 {{expert_tokens: expected tensor<8xi64>, got tensor<4xi64> [MIR-009]}}
  %0:3 = "mla.moe_init_routing"(%x, %i) {expert_num = 8 : i64} : (tensor<4x8xbf16>, tensor<4x2xi32>) -> (tensor<8x8xbf16>, tensor<8xi32>, tensor<4xi64>)
  return
}

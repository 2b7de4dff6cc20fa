// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.swiglu: one split per failing rule (SWI-001, SWI-002, SWI-003, SWI-004, SWI-005), each op otherwise valid.

// x is a float tensor
func.func @swi_001(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{x: expected element type bf16, f16 or f32, got i32 [SWI-001]}}
  %0 = "mla.swiglu"(%x) : (tensor<4x8xi32>) -> tensor<4x4xi32>
  return
}

// -----

// x is ND
func.func @swi_002(%x: tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<16x32xbf16, FRACTAL_NZ> [SWI-002]}}
  %0 = "mla.swiglu"(%x) : (tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>) -> tensor<16x16xbf16>
  return
}

// -----

// dim is an axis of x
func.func @swi_003(%x: tensor<4x8xbf16>) {
  // expected-error @+1 {{dim: expected an axis of x in [-2, 2), got 2 [SWI-003]}}
  %0 = "mla.swiglu"(%x) {dim = 2 : i64} : (tensor<4x8xbf16>) -> tensor<4x4xbf16>
  return
}

// -----

// x splits in two halves along dim
func.func @swi_004(%x: tensor<4x7xbf16>) {
  // expected-error @+1 {{x: expected an even size along dim -1 (two halves), got tensor<4x7xbf16> [SWI-004]}}
  %0 = "mla.swiglu"(%x) : (tensor<4x7xbf16>) -> tensor<4x3xbf16>
  return
}

// -----

// y is x with dim halved
func.func @swi_005(%x: tensor<4x8xbf16>) {
  // expected-error @+1 {{y: expected tensor<4x4xbf16>, got tensor<4x8xbf16> [SWI-005]}}
  %0 = "mla.swiglu"(%x) : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
  return
}

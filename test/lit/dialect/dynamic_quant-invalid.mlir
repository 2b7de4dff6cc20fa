// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.dynamic_quant: one split per failing rule (DQ-001, DQ-002, DQ-003, DQ-004, DQ-005, DQ-006, DQ-007), each op otherwise valid.

// x has no row
func.func @x_rank(%x: tensor<bf16>) {
  // expected-error @+1 {{x: expected rank >= 1, got tensor<bf16> [DQ-001]}}
  %y, %scale = "mla.dynamic_quant"(%x) : (tensor<bf16>) -> (tensor<i8>, tensor<f32>)
  return
}

// -----

// x is a float
func.func @x_int(%x: tensor<2x3x16xi32>) {
  // expected-error @+1 {{x: expected element type bf16, f16 or f32, got i32 [DQ-002]}}
  %y, %scale = "mla.dynamic_quant"(%x) : (tensor<2x3x16xi32>) -> (tensor<2x3x16xi8>, tensor<2x3xf32>)
  return
}

// -----

// one smooth factor per column
func.func @smooth_shape(%x: tensor<2x3x16xbf16>, %smooth_scales: tensor<8xf32>) {
  // expected-error @+1 {{smooth_scales: expected a float tensor of shape (16,) or (1, 16) (one factor per column), got tensor<8xf32> [DQ-003]}}
  %y, %scale = "mla.dynamic_quant"(%x, %smooth_scales) {operandSegmentSizes = array<i32: 1, 1>} : (tensor<2x3x16xbf16>, tensor<8xf32>) -> (tensor<2x3x16xi8>, tensor<2x3xf32>)
  return
}

// -----

// the smooth factors are floats
func.func @smooth_dtype(%x: tensor<2x3x16xbf16>, %smooth_scales: tensor<1x16xi32>) {
  // expected-error @+1 {{smooth_scales: expected a float tensor of shape (16,) or (1, 16) (one factor per column), got tensor<1x16xi32> [DQ-003]}}
  %y, %scale = "mla.dynamic_quant"(%x, %smooth_scales) {operandSegmentSizes = array<i32: 1, 1>} : (tensor<2x3x16xbf16>, tensor<1x16xi32>) -> (tensor<2x3x16xi8>, tensor<2x3xf32>)
  return
}

// -----

// rounding is half_even or half_away
func.func @rounding(%x: tensor<2x3x16xbf16>) {
  // expected-error @+1 {{rounding: expected "half_even" or "half_away", got 'half_up' [DQ-004]}}
  %y, %scale = "mla.dynamic_quant"(%x) {rounding = "half_up"} : (tensor<2x3x16xbf16>) -> (tensor<2x3x16xi8>, tensor<2x3xf32>)
  return
}

// -----

// x is ND
func.func @x_nz(%x: tensor<2x3x16xbf16, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<2x3x16xbf16, FRACTAL_NZ> [DQ-005]}}
  %y, %scale = "mla.dynamic_quant"(%x) : (tensor<2x3x16xbf16, #mla.format<"FRACTAL_NZ">>) -> (tensor<2x3x16xi8>, tensor<2x3xf32>)
  return
}

// -----

// smooth_scales is ND
func.func @smooth_nz(%x: tensor<2x3x16xbf16>, %smooth_scales: tensor<1x16xf32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{smooth_scales: expected an ND tensor, got tensor<1x16xf32, FRACTAL_NZ> [DQ-005]}}
  %y, %scale = "mla.dynamic_quant"(%x, %smooth_scales) {operandSegmentSizes = array<i32: 1, 1>} : (tensor<2x3x16xbf16>, tensor<1x16xf32, #mla.format<"FRACTAL_NZ">>) -> (tensor<2x3x16xi8>, tensor<2x3xf32>)
  return
}

// -----

// y is int8
func.func @y_dtype(%x: tensor<2x3x16xbf16>) {
  // expected-error @+1 {{y: expected element type i8, got i32 [DQ-006]}}
  %y, %scale = "mla.dynamic_quant"(%x) : (tensor<2x3x16xbf16>) -> (tensor<2x3x16xi32>, tensor<2x3xf32>)
  return
}

// -----

// one scale per row: x.shape[:-1]
func.func @scale_shape(%x: tensor<2x3x16xbf16>) {
  // expected-error @+1 {{scale: expected tensor<2x3xf32>, got tensor<2x3x1xf32> [DQ-007]}}
  %y, %scale = "mla.dynamic_quant"(%x) : (tensor<2x3x16xbf16>) -> (tensor<2x3x16xi8>, tensor<2x3x1xf32>)
  return
}

// -----

// operandSegmentSizes, when given, describes the operands (IRDL ignores it on an op with one
// optional operand; the verifier reads it): here it calls the one operand smooth_scales.
func.func @segment_sizes(%x: tensor<2x16xbf16>) {
  // expected-error @+1 {{operandSegmentSizes: expected array<i32> with one size per declared operand (2: 1 for a required one, 0 or 1 for an optional one) adding up to the 1 operands, got array<i32: 0, 1>}}
  %y, %scale = "mla.dynamic_quant"(%x) {operandSegmentSizes = array<i32: 0, 1>} : (tensor<2x16xbf16>) -> (tensor<2x16xi8>, tensor<2xf32>)
  return
}

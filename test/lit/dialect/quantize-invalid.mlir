// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.quantize: one split per failing rule (QNT-001, QNT-002, QNT-003, QNT-004, QNT-005), each op otherwise valid.

// x is a float
func.func @x_int(%x: tensor<2x3x16xi32>, %scale: tensor<16xf32>) {
  // expected-error @+1 {{x: expected element type bf16, f16 or f32, got i32 [QNT-001]}}
  %0 = "mla.quantize"(%x, %scale) : (tensor<2x3x16xi32>, tensor<16xf32>) -> tensor<2x3x16xi8>
  return
}

// -----

// the scale is f32
func.func @scale_dtype(%x: tensor<2x3x16xf32>, %scale: tensor<16xbf16>) {
  // expected-error @+1 {{scale: expected element type f32, got bf16 [QNT-002]}}
  %0 = "mla.quantize"(%x, %scale) : (tensor<2x3x16xf32>, tensor<16xbf16>) -> tensor<2x3x16xi8>
  return
}

// -----

// the scale broadcasts to x
func.func @scale_shape(%x: tensor<2x3x16xf32>, %scale: tensor<8xf32>) {
  // expected-error @+1 {{scale: expected a shape that broadcasts to x (2, 3, 16), got (8) [QNT-003]}}
  %0 = "mla.quantize"(%x, %scale) : (tensor<2x3x16xf32>, tensor<8xf32>) -> tensor<2x3x16xi8>
  return
}

// -----

// a scale of higher rank than x does not broadcast to it
func.func @scale_rank(%x: tensor<2x3x16xf32>, %scale: tensor<1x1x1x16xf32>) {
  // expected-error @+1 {{scale: expected a shape that broadcasts to x (2, 3, 16), got (1, 1, 1, 16) [QNT-003]}}
  %0 = "mla.quantize"(%x, %scale) : (tensor<2x3x16xf32>, tensor<1x1x1x16xf32>) -> tensor<2x3x16xi8>
  return
}

// -----

// the scale is ND
func.func @scale_nz(%x: tensor<2x3x16xf32>, %scale: tensor<1x16xf32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{scale: expected an ND tensor, got tensor<1x16xf32, FRACTAL_NZ> [QNT-004]}}
  %0 = "mla.quantize"(%x, %scale) : (tensor<2x3x16xf32>, tensor<1x16xf32, #mla.format<"FRACTAL_NZ">>) -> tensor<2x3x16xi8>
  return
}

// -----

// y is int8
func.func @y_dtype(%x: tensor<2x3x16xf32>, %scale: tensor<16xf32>) {
  // expected-error @+1 {{y: expected element type i8, got i32 [QNT-005]}}
  %0 = "mla.quantize"(%x, %scale) : (tensor<2x3x16xf32>, tensor<16xf32>) -> tensor<2x3x16xi32>
  return
}

// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.quant_matmul: one split per failing rule (QMM-001, QMM-002, QMM-003, QMM-004, QMM-005, QMM-006, QMM-007, QMM-008, QMM-009), each op otherwise valid.

// x has no feature axis
func.func @x_rank(%x: tensor<i8>, %w: tensor<16x32xi8>, %x_scale: tensor<f32>, %w_scale: tensor<32xf32>) {
  // expected-error @+1 {{x: expected rank >= 1, got tensor<i8> [QMM-001]}}
  %0 = "mla.quant_matmul"(%x, %w, %x_scale, %w_scale) : (tensor<i8>, tensor<16x32xi8>, tensor<f32>, tensor<32xf32>) -> tensor<32xbf16>
  return
}

// -----

// x is int8
func.func @x_float(%x: tensor<2x3x16xbf16>, %w: tensor<16x32xi8>, %x_scale: tensor<2x3xf32>, %w_scale: tensor<32xf32>) {
  // expected-error @+1 {{x: expected element type i8, got bf16 [QMM-002]}}
  %0 = "mla.quant_matmul"(%x, %w, %x_scale, %w_scale) : (tensor<2x3x16xbf16>, tensor<16x32xi8>, tensor<2x3xf32>, tensor<32xf32>) -> tensor<2x3x32xbf16>
  return
}

// -----

// w is (K, N)
func.func @w_rank(%x: tensor<2x3x16xi8>, %w: tensor<1x16x32xi8>, %x_scale: tensor<2x3xf32>, %w_scale: tensor<32xf32>) {
  // expected-error @+1 {{w: expected rank 2 (K, N): the weight as (in, out), got tensor<1x16x32xi8> [QMM-003]}}
  %0 = "mla.quant_matmul"(%x, %w, %x_scale, %w_scale) : (tensor<2x3x16xi8>, tensor<1x16x32xi8>, tensor<2x3xf32>, tensor<32xf32>) -> tensor<2x3x32xbf16>
  return
}

// -----

// w is int8
func.func @w_float(%x: tensor<2x3x16xi8>, %w: tensor<16x32xbf16>, %x_scale: tensor<2x3xf32>, %w_scale: tensor<32xf32>) {
  // expected-error @+1 {{w: expected element type i8, got bf16 [QMM-004]}}
  %0 = "mla.quant_matmul"(%x, %w, %x_scale, %w_scale) : (tensor<2x3x16xi8>, tensor<16x32xbf16>, tensor<2x3xf32>, tensor<32xf32>) -> tensor<2x3x32xbf16>
  return
}

// -----

// w has K = 8 rows, x has 16 features
func.func @w_rows(%x: tensor<2x3x16xi8>, %w: tensor<8x32xi8>, %x_scale: tensor<2x3xf32>, %w_scale: tensor<32xf32>) {
  // expected-error @+1 {{w: expected K = 16 rows (the last dimension of x), got tensor<8x32xi8> [QMM-005]}}
  %0 = "mla.quant_matmul"(%x, %w, %x_scale, %w_scale) : (tensor<2x3x16xi8>, tensor<8x32xi8>, tensor<2x3xf32>, tensor<32xf32>) -> tensor<2x3x32xbf16>
  return
}

// -----

// one scale per token (2, 3), not (3, 2)
func.func @x_scale_shape(%x: tensor<2x3x16xi8>, %w: tensor<16x32xi8>, %x_scale: tensor<3x2xf32>, %w_scale: tensor<32xf32>) {
  // expected-error @+1 {{x_scale: expected a per-token f32 scale of shape (2, 3) or (2, 3, 1), got tensor<3x2xf32> [QMM-006]}}
  %0 = "mla.quant_matmul"(%x, %w, %x_scale, %w_scale) : (tensor<2x3x16xi8>, tensor<16x32xi8>, tensor<3x2xf32>, tensor<32xf32>) -> tensor<2x3x32xbf16>
  return
}

// -----

// the scales are f32
func.func @x_scale_dtype(%x: tensor<2x3x16xi8>, %w: tensor<16x32xi8>, %x_scale: tensor<2x3x1xbf16>, %w_scale: tensor<32xf32>) {
  // expected-error @+1 {{x_scale: expected a per-token f32 scale of shape (2, 3) or (2, 3, 1), got tensor<2x3x1xbf16> [QMM-006]}}
  %0 = "mla.quant_matmul"(%x, %w, %x_scale, %w_scale) : (tensor<2x3x16xi8>, tensor<16x32xi8>, tensor<2x3x1xbf16>, tensor<32xf32>) -> tensor<2x3x32xbf16>
  return
}

// -----

// one scale per output channel
func.func @w_scale_shape(%x: tensor<2x3x16xi8>, %w: tensor<16x32xi8>, %x_scale: tensor<2x3xf32>, %w_scale: tensor<16xf32>) {
  // expected-error @+1 {{w_scale: expected a per-channel f32 scale of shape (32,) or (1, 32), got tensor<16xf32> [QMM-007]}}
  %0 = "mla.quant_matmul"(%x, %w, %x_scale, %w_scale) : (tensor<2x3x16xi8>, tensor<16x32xi8>, tensor<2x3xf32>, tensor<16xf32>) -> tensor<2x3x32xbf16>
  return
}

// -----

// x is ND
func.func @x_nz(%x: tensor<2x3x16xi8, #mla.format<"FRACTAL_NZ">>, %w: tensor<16x32xi8>, %x_scale: tensor<2x3xf32>, %w_scale: tensor<32xf32>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<2x3x16xi8, FRACTAL_NZ> [QMM-008]}}
  %0 = "mla.quant_matmul"(%x, %w, %x_scale, %w_scale) : (tensor<2x3x16xi8, #mla.format<"FRACTAL_NZ">>, tensor<16x32xi8>, tensor<2x3xf32>, tensor<32xf32>) -> tensor<2x3x32xbf16>
  return
}

// -----

// the scales are ND
func.func @x_scale_nz(%x: tensor<2x3x16xi8>, %w: tensor<16x32xi8>, %x_scale: tensor<2x3xf32, #mla.format<"FRACTAL_NZ">>, %w_scale: tensor<32xf32>) {
  // expected-error @+1 {{x_scale: expected an ND tensor, got tensor<2x3xf32, FRACTAL_NZ> [QMM-008]}}
  %0 = "mla.quant_matmul"(%x, %w, %x_scale, %w_scale) : (tensor<2x3x16xi8>, tensor<16x32xi8>, tensor<2x3xf32, #mla.format<"FRACTAL_NZ">>, tensor<32xf32>) -> tensor<2x3x32xbf16>
  return
}

// -----

// y is a float (the dequantized product)
func.func @y_dtype(%x: tensor<2x3x16xi8>, %w: tensor<16x32xi8>, %x_scale: tensor<2x3xf32>, %w_scale: tensor<32xf32>) {
  // expected-error @+1 {{y: expected element type bf16, f16 or f32, got i32 [QMM-009]}}
  %0 = "mla.quant_matmul"(%x, %w, %x_scale, %w_scale) : (tensor<2x3x16xi8>, tensor<16x32xi8>, tensor<2x3xf32>, tensor<32xf32>) -> tensor<2x3x32xi32>
  return
}

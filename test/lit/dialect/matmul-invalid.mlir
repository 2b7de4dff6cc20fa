// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.matmul: one split per failing rule (MM-001, MM-002, MM-003, MM-004, MM-005, MM-006, MM-007), each op otherwise valid.

// x has no feature axis
func.func @x_rank(%x: tensor<bf16>, %w: tensor<16x32xbf16>) {
  // expected-error @+1 {{x: expected rank >= 1, got tensor<bf16> [MM-001]}}
  %0 = "mla.matmul"(%x, %w) : (tensor<bf16>, tensor<16x32xbf16>) -> tensor<32xbf16>
  return
}

// -----

// an int8 x belongs to mla.quant_matmul (int32 is torch.matmul of int32 tensors)
func.func @x_int(%x: tensor<4x16xi8>, %w: tensor<16x32xi8>) {
  // expected-error @+1 {{x: expected element type bf16, f16, f32 or i32, got i8 [MM-002]}}
  %0 = "mla.matmul"(%x, %w) : (tensor<4x16xi8>, tensor<16x32xi8>) -> tensor<4x32xbf16>
  return
}

// -----

// a per-head weight belongs to mla.head_matmul
func.func @w_rank(%x: tensor<4x16xbf16>, %w: tensor<2x16x32xbf16>) {
  // expected-error @+1 {{w: expected rank 2 (K, N): the weight as (in, out), got tensor<2x16x32xbf16> [MM-003]}}
  %0 = "mla.matmul"(%x, %w) : (tensor<4x16xbf16>, tensor<2x16x32xbf16>) -> tensor<4x32xbf16>
  return
}

// -----

// x and w have one element type
func.func @w_dtype(%x: tensor<4x16xbf16>, %w: tensor<16x32xf16>) {
  // expected-error @+1 {{w: expected the element type of x (bf16), got f16 [MM-004]}}
  %0 = "mla.matmul"(%x, %w) : (tensor<4x16xbf16>, tensor<16x32xf16>) -> tensor<4x32xbf16>
  return
}

// -----

// w has K = 8 rows, x has 16 features
func.func @w_rows(%x: tensor<4x16xbf16>, %w: tensor<8x32xbf16>) {
  // expected-error @+1 {{w: expected K = 16 rows (the last dimension of x), got tensor<8x32xbf16> [MM-005]}}
  %0 = "mla.matmul"(%x, %w) : (tensor<4x16xbf16>, tensor<8x32xbf16>) -> tensor<4x32xbf16>
  return
}

// -----

// only the weight may be FRACTAL_NZ
func.func @x_nz(%x: tensor<4x16xbf16, #mla.format<"FRACTAL_NZ">>, %w: tensor<16x32xbf16>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<4x16xbf16, FRACTAL_NZ> [MM-006]}}
  %0 = "mla.matmul"(%x, %w) : (tensor<4x16xbf16, #mla.format<"FRACTAL_NZ">>, tensor<16x32xbf16>) -> tensor<4x32xbf16>
  return
}

// -----

// y is x.shape[:-1] + (N,)
func.func @y_shape(%x: tensor<4x16xbf16>, %w: tensor<16x32xbf16>) {
  // expected-error @+1 {{y: expected tensor<4x32xbf16>, got tensor<4x16xbf16> [MM-007]}}
  %0 = "mla.matmul"(%x, %w) : (tensor<4x16xbf16>, tensor<16x32xbf16>) -> tensor<4x16xbf16>
  return
}

// -----

// y is a float
func.func @y_dtype(%x: tensor<4x16xbf16>, %w: tensor<16x32xbf16>) {
  // expected-error @+1 {{y: expected element type bf16, f16 or f32, got i32 [MM-007]}}
  %0 = "mla.matmul"(%x, %w) : (tensor<4x16xbf16>, tensor<16x32xbf16>) -> tensor<4x32xi32>
  return
}

// -----

// an integer product is an integer
func.func @y_int_dtype(%x: tensor<4x16xi32>, %w: tensor<16x32xi32>) {
  // expected-error @+1 {{y: expected element type i32, got f32 [MM-007]}}
  %0 = "mla.matmul"(%x, %w) : (tensor<4x16xi32>, tensor<16x32xi32>) -> tensor<4x32xf32>
  return
}

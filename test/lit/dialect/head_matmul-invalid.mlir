// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.head_matmul: one split per failing rule (HMM-001, HMM-002, HMM-003, HMM-004, HMM-005, HMM-006, HMM-007), each op otherwise valid.

// x needs (heads, K)
func.func @x_rank(%x: tensor<16xbf16>, %w: tensor<4x16x8xbf16>) {
  // expected-error @+1 {{x: expected rank >= 2 (..., heads, K), got tensor<16xbf16> [HMM-001]}}
  %0 = "mla.head_matmul"(%x, %w) : (tensor<16xbf16>, tensor<4x16x8xbf16>) -> tensor<8xbf16>
  return
}

// -----

// x is a float
func.func @x_int(%x: tensor<2x4x16xi32>, %w: tensor<4x16x8xi32>) {
  // expected-error @+1 {{x: expected element type bf16, f16 or f32, got i32 [HMM-002]}}
  %0 = "mla.head_matmul"(%x, %w) : (tensor<2x4x16xi32>, tensor<4x16x8xi32>) -> tensor<2x4x8xbf16>
  return
}

// -----

// w is one (K, N) matrix per head
func.func @w_rank(%x: tensor<2x4x16xbf16>, %w: tensor<16x8xbf16>) {
  // expected-error @+1 {{w: expected rank 3 (heads, K, N), got tensor<16x8xbf16> [HMM-003]}}
  %0 = "mla.head_matmul"(%x, %w) : (tensor<2x4x16xbf16>, tensor<16x8xbf16>) -> tensor<2x4x8xbf16>
  return
}

// -----

// x and w have one element type
func.func @w_dtype(%x: tensor<2x4x16xbf16>, %w: tensor<4x16x8xf32>) {
  // expected-error @+1 {{w: expected the element type of x (bf16), got f32 [HMM-004]}}
  %0 = "mla.head_matmul"(%x, %w) : (tensor<2x4x16xbf16>, tensor<4x16x8xf32>) -> tensor<2x4x8xbf16>
  return
}

// -----

// w has 2 heads, x has 4
func.func @w_heads(%x: tensor<2x4x16xbf16>, %w: tensor<2x16x8xbf16>) {
  // expected-error @+1 {{w: expected (heads, K) = (4, 16) (the last two dimensions of x), got tensor<2x16x8xbf16> [HMM-005]}}
  %0 = "mla.head_matmul"(%x, %w) : (tensor<2x4x16xbf16>, tensor<2x16x8xbf16>) -> tensor<2x4x8xbf16>
  return
}

// -----

// w's K is 8, x's is 16
func.func @w_k(%x: tensor<2x4x16xbf16>, %w: tensor<4x8x8xbf16>) {
  // expected-error @+1 {{w: expected (heads, K) = (4, 16) (the last two dimensions of x), got tensor<4x8x8xbf16> [HMM-005]}}
  %0 = "mla.head_matmul"(%x, %w) : (tensor<2x4x16xbf16>, tensor<4x8x8xbf16>) -> tensor<2x4x8xbf16>
  return
}

// -----

// x is ND
func.func @x_nz(%x: tensor<2x4x16xbf16, #mla.format<"FRACTAL_NZ">>, %w: tensor<4x16x8xbf16>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<2x4x16xbf16, FRACTAL_NZ> [HMM-006]}}
  %0 = "mla.head_matmul"(%x, %w) : (tensor<2x4x16xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x16x8xbf16>) -> tensor<2x4x8xbf16>
  return
}

// -----

// w is ND (one matrix per head, not a packed weight)
func.func @w_nz(%x: tensor<2x4x16xbf16>, %w: tensor<4x16x8xbf16, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{w: expected an ND tensor, got tensor<4x16x8xbf16, FRACTAL_NZ> [HMM-006]}}
  %0 = "mla.head_matmul"(%x, %w) : (tensor<2x4x16xbf16>, tensor<4x16x8xbf16, #mla.format<"FRACTAL_NZ">>) -> tensor<2x4x8xbf16>
  return
}

// -----

// y is (..., heads, N)
func.func @y_shape(%x: tensor<2x4x16xbf16>, %w: tensor<4x16x8xbf16>) {
  // expected-error @+1 {{y: expected tensor<2x4x8xbf16>, got tensor<2x8xbf16> [HMM-007]}}
  %0 = "mla.head_matmul"(%x, %w) : (tensor<2x4x16xbf16>, tensor<4x16x8xbf16>) -> tensor<2x8xbf16>
  return
}

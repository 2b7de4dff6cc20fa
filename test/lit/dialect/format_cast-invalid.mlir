// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.format_cast: one split per failing rule (FC-001, FC-002, FC-003), each op otherwise valid.

// i32 has no fractal layout here
func.func @x_int(%x: tensor<16x32xi32>) {
  // expected-error @+1 {{x: expected element type bf16, f16, f32 or i8, got i32 [FC-003]}}
  %0 = "mla.format_cast"(%x) : (tensor<16x32xi32>) -> tensor<16x32xi32, #mla.format<"FRACTAL_NZ">>
  return
}

// -----

// the logical shape stays
func.func @y_shape(%x: tensor<16x32xbf16>) {
  // expected-error @+1 {{y: expected the shape and element type of x tensor<16x32xbf16>, got tensor<32x16xbf16, FRACTAL_NZ> [FC-001]}}
  %0 = "mla.format_cast"(%x) : (tensor<16x32xbf16>) -> tensor<32x16xbf16, #mla.format<"FRACTAL_NZ">>
  return
}

// -----

// the element type stays (a cast is arith.truncf/extf)
func.func @y_dtype(%x: tensor<16x32xbf16>) {
  // expected-error @+1 {{y: expected the shape and element type of x tensor<16x32xbf16>, got tensor<16x32xf32, FRACTAL_NZ> [FC-001]}}
  %0 = "mla.format_cast"(%x) : (tensor<16x32xbf16>) -> tensor<16x32xf32, #mla.format<"FRACTAL_NZ">>
  return
}

// -----

// FRACTAL_NZ needs a matrix
func.func @rank1(%x: tensor<32xbf16>) {
  // expected-error @+1 {{y: FRACTAL_NZ needs rank >= 2 (the last two dimensions form the matrix), got tensor<32xbf16> [FC-002]}}
  %0 = "mla.format_cast"(%x) : (tensor<32xbf16>) -> tensor<32xbf16, #mla.format<"FRACTAL_NZ">>
  return
}

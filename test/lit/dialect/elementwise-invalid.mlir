// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.add, mla.mul, mla.div: one split per failing rule (EW-001 .. EW-006).

// x is a float (mla.div has no integer form)
func.func @x_int(%x: tensor<2x16xi32>, %y: tensor<16xf32>) {
  // expected-error @+1 {{x: expected element type bf16, f16 or f32, got i32 [EW-001]}}
  %0 = "mla.div"(%x, %y) : (tensor<2x16xi32>, tensor<16xf32>) -> tensor<2x16xf32>
  return
}

// -----

// y is a float, or i32 / i64 (mla.add and mla.mul)
func.func @y_int(%x: tensor<2x16xbf16>, %y: tensor<16xi8>) {
  // expected-error @+1 {{y: expected element type bf16, f16, f32, i32 or i64, got i8 [EW-001]}}
  %0 = "mla.mul"(%x, %y) : (tensor<2x16xbf16>, tensor<16xi8>) -> tensor<2x16xbf16>
  return
}

// -----

// (2, 16) and (3, 1) do not broadcast
func.func @no_broadcast(%x: tensor<2x16xf32>, %y: tensor<3x1xf32>) {
  // expected-error @+1 {{y: expected a shape that broadcasts with x (2, 16), got (3, 1) [EW-002]}}
  %0 = "mla.div"(%x, %y) : (tensor<2x16xf32>, tensor<3x1xf32>) -> tensor<2x16xf32>
  return
}

// -----

// the operands are ND
func.func @x_nz(%x: tensor<16x16xbf16, #mla.format<"FRACTAL_NZ">>, %y: tensor<16x16xbf16>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<16x16xbf16, FRACTAL_NZ> [EW-003]}}
  %0 = "mla.add"(%x, %y) : (tensor<16x16xbf16, #mla.format<"FRACTAL_NZ">>, tensor<16x16xbf16>) -> tensor<16x16xbf16>
  return
}

// -----

// z has the broadcast shape
func.func @z_shape(%x: tensor<2x1xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{z: expected tensor<2x3xf32>, got tensor<2x1xf32> [EW-004]}}
  %0 = "mla.mul"(%x, %y) : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x1xf32>
  return
}

// -----

// z is a float
func.func @z_dtype(%x: tensor<2x3xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{z: expected element type bf16, f16 or f32, got i32 [EW-004]}}
  %0 = "mla.div"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi32>
  return
}

// -----

// integer operands have one type (no promotion: the importer widens with arith.extsi first)
func.func @mixed_ints(%x: tensor<4xi64>, %y: tensor<4xi32>) {
  // expected-error @+1 {{y: expected i64 (integer operands have one type), got i32 [EW-005]}}
  %0 = "mla.add"(%x, %y) : (tensor<4xi64>, tensor<4xi32>) -> tensor<4xi64>
  return
}

// -----

// an integer sum stays an integer of its operands' type
func.func @int_to_float(%x: tensor<4xi64>, %y: tensor<i64>) {
  // expected-error @+1 {{z: expected i64 (integer arithmetic stays in its type, float arithmetic in floats), got f32 [EW-006]}}
  %0 = "mla.mul"(%x, %y) : (tensor<4xi64>, tensor<i64>) -> tensor<4xf32>
  return
}

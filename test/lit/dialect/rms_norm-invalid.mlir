// RUN: mla-opt %s --split-input-file --verify-diagnostics

func.func @rank0(%x: tensor<f32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{x: expected a tensor of rank >= 1 (the normalised axis is the last one) [RMS-001]}}
  %0 = "mla.rms_norm"(%x, %g) : (tensor<f32>, tensor<1xf32>) -> tensor<f32>
  return
}

// -----

func.func @int_x(%x: tensor<4x8xi8>, %g: tensor<8xf32>) {
  // expected-error @+1 {{x: expected element type bf16, f16 or f32, got i8 [RMS-002]}}
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x8xi8>, tensor<8xf32>) -> tensor<4x8xi8>
  return
}

// -----

func.func @gamma_length(%x: tensor<4x8xf32>, %g: tensor<4x8xf32>) {
  // expected-error @+1 {{gamma: expected shape (8,) (the last dimension of x), got (4, 8) [RMS-003]}}
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @gamma_type(%x: tensor<4x8xf32>, %g: tensor<8xi32>) {
  // expected-error @+1 {{gamma: expected element type bf16, f16 or f32, got i32 [RMS-004]}}
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x8xf32>, tensor<8xi32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @epsilon(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{epsilon: must be > 0, got -0.5 [RMS-005]}}
  %0 = "mla.rms_norm"(%x, %g) {epsilon = -0.5 : f64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @result_shape(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{y: expected the shape of x tensor<4x8xf32>, got tensor<8x4xf32> [RMS-006]}}
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @result_type(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{y: expected element type bf16, f16 or f32, got i8 [RMS-006]}}
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi8>
  return
}

// -----

func.func @wrong_attr_kind(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{epsilon: expected an f64 float attribute, got 1 : i64}}
  %0 = "mla.rms_norm"(%x, %g) {epsilon = 1 : i64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// gamma is a plain vector (a rank-1 type cannot be FRACTAL_NZ data; x may be NZ).
func.func @gamma_rank1_nz(%x: tensor<4x16xf32>, %g: tensor<16xf32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{gamma: expected an ND tensor, got tensor<16xf32, FRACTAL_NZ> [RMS-007]}}
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x16xf32>, tensor<16xf32, #mla.format<"FRACTAL_NZ">>) -> tensor<4x16xf32>
  return
}

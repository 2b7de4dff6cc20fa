// RUN: mla-opt %s --split-input-file --verify-diagnostics

func.func @rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'mla.mean' op x: expected rank >= 1 (the reduced axis is the last one), got tensor<f32> [MEAN-001]}}
  %0 = "mla.mean"(%x) : (tensor<f32>) -> tensor<1xf32>
  return
}

// -----

func.func @int(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{'mla.mean' op x: expected element type bf16, f16 or f32, got i32 [MEAN-002]}}
  %0 = "mla.mean"(%x) : (tensor<4x8xi32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @nz(%x: tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{'mla.mean' op x: expected an ND tensor, got tensor<16x32xbf16, FRACTAL_NZ> [MEAN-003]}}
  %0 = "mla.mean"(%x) : (tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>) -> tensor<16x1xbf16>
  return
}

// -----

func.func @not_kept(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mla.mean' op y: expected tensor<4x1xf32>, got tensor<4xf32> [MEAN-004]}}
  %0 = "mla.mean"(%x) : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @rsqrt_int(%x: tensor<4xi64>) {
  // expected-error @+1 {{'mla.rsqrt' op x: expected element type bf16, f16 or f32, got i64 [RSQ-001]}}
  %0 = "mla.rsqrt"(%x) : (tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @rsqrt_nz(%x: tensor<16x32xf32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{'mla.rsqrt' op x: expected an ND tensor, got tensor<16x32xf32, FRACTAL_NZ> [RSQ-002]}}
  %0 = "mla.rsqrt"(%x) : (tensor<16x32xf32, #mla.format<"FRACTAL_NZ">>) -> tensor<16x32xf32>
  return
}

// -----

func.func @rsqrt_shape(%x: tensor<4x1xf32>) {
  // expected-error @+1 {{'mla.rsqrt' op y: expected tensor<4x1xf32>, got tensor<4xf32> [RSQ-003]}}
  %0 = "mla.rsqrt"(%x) : (tensor<4x1xf32>) -> tensor<4xf32>
  return
}

// RUN: mla-opt %s --split-input-file --verify-diagnostics

func.func @rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'mla.amax' op x: expected rank >= 1 (the reduced axis is the last one), got tensor<f32> [AMAX-001]}}
  %0 = "mla.amax"(%x) : (tensor<f32>) -> tensor<1xf32>
  return
}

// -----

func.func @int(%x: tensor<4x8xi8>) {
  // expected-error @+1 {{'mla.amax' op x: expected element type bf16, f16 or f32, got i8 [AMAX-002]}}
  %0 = "mla.amax"(%x) : (tensor<4x8xi8>) -> tensor<4x1xi8>
  return
}

// -----

func.func @nz(%x: tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{'mla.amax' op x: expected an ND tensor, got tensor<16x32xbf16, FRACTAL_NZ> [AMAX-003]}}
  %0 = "mla.amax"(%x) : (tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>) -> tensor<16x1xbf16>
  return
}

// -----

func.func @dropped_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'mla.amax' op y: expected tensor<4x1xf32>, got tensor<4xf32> [AMAX-004]}}
  %0 = "mla.amax"(%x) : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

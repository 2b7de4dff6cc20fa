// RUN: mla-opt %s --split-input-file --raise-rms-norm | FileCheck %s

// Hugging Face's DeepseekV3RMSNorm as imported: float32, rounded, times the weight.
// CHECK-LABEL: func.func @hf
// CHECK-NEXT: %[[Y:.*]] = "mla.rms_norm"(%arg0, %arg1) {epsilon = 9.9999999999999995E-7 : f64} : (tensor<2x512xbf16>, tensor<512xbf16>) -> tensor<2x512xbf16>
// CHECK-NEXT: return %[[Y]]
func.func @hf(%x: tensor<2x512xbf16>, %gamma: tensor<512xbf16>) -> tensor<2x512xbf16> {
  %x32 = arith.extf %x : tensor<2x512xbf16> to tensor<2x512xf32>
  %sq = "mla.mul"(%x32, %x32) : (tensor<2x512xf32>, tensor<2x512xf32>) -> tensor<2x512xf32>
  %mean = "mla.mean"(%sq) : (tensor<2x512xf32>) -> tensor<2x1xf32>
  %eps = arith.constant dense<1.0e-06> : tensor<f32>
  %var = "mla.add"(%mean, %eps) : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %r = "mla.rsqrt"(%var) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = "mla.mul"(%x32, %r) : (tensor<2x512xf32>, tensor<2x1xf32>) -> tensor<2x512xf32>
  %nb = arith.truncf %n : tensor<2x512xf32> to tensor<2x512xbf16>
  %y = "mla.mul"(%gamma, %nb) : (tensor<512xbf16>, tensor<2x512xbf16>) -> tensor<2x512xbf16>
  return %y : tensor<2x512xbf16>
}

// -----

// float32 in and out, sums and products in the other order, no weight: gamma = ones.
// CHECK-LABEL: func.func @f32_no_weight
// CHECK: %[[ONES:.*]] = arith.constant dense<1.000000e+00> : tensor<64xf32>
// CHECK-NEXT: "mla.rms_norm"(%arg0, %[[ONES]]) : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
// CHECK-NOT: mla.rsqrt
func.func @f32_no_weight(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %sq = "mla.mul"(%x, %x) : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %mean = "mla.mean"(%sq) : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %eps = arith.constant dense<1.0e-05> : tensor<f32>
  %var = "mla.add"(%eps, %mean) : (tensor<f32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %r = "mla.rsqrt"(%var) : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %y = "mla.mul"(%r, %x) : (tensor<4x1xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// -----

// The normalisation factor is used elsewhere too: left as it is.
// CHECK-LABEL: func.func @shared
// CHECK-NOT: mla.rms_norm
// CHECK: mla.rsqrt
func.func @shared(%x: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x1xf32>) {
  %sq = "mla.mul"(%x, %x) : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %mean = "mla.mean"(%sq) : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %eps = arith.constant dense<1.0e-05> : tensor<f32>
  %var = "mla.add"(%mean, %eps) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = "mla.rsqrt"(%var) : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %y = "mla.mul"(%x, %r) : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  return %y, %mean : tensor<4x64xf32>, tensor<4x1xf32>
}

// -----

// float32 x, float32 result times a bf16 weight, then rounded to bf16 once (the w8a8 module's
// kv_a_layernorm before the cache): the cast is the raised op's result type.
// CHECK-LABEL: func.func @f32_then_bf16
// CHECK-NEXT: %[[Y:.*]] = "mla.rms_norm"(%arg0, %arg1) {epsilon = 9.9999999999999995E-7 : f64} : (tensor<2x512xf32>, tensor<512xbf16>) -> tensor<2x512xbf16>
// CHECK-NEXT: return %[[Y]]
func.func @f32_then_bf16(%x: tensor<2x512xf32>, %gamma: tensor<512xbf16>) -> tensor<2x512xbf16> {
  %sq = "mla.mul"(%x, %x) : (tensor<2x512xf32>, tensor<2x512xf32>) -> tensor<2x512xf32>
  %mean = "mla.mean"(%sq) : (tensor<2x512xf32>) -> tensor<2x1xf32>
  %eps = arith.constant dense<1.0e-06> : tensor<f32>
  %var = "mla.add"(%mean, %eps) : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %r = "mla.rsqrt"(%var) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = "mla.mul"(%x, %r) : (tensor<2x512xf32>, tensor<2x1xf32>) -> tensor<2x512xf32>
  %y = "mla.mul"(%gamma, %n) : (tensor<512xbf16>, tensor<2x512xf32>) -> tensor<2x512xf32>
  %yb = arith.truncf %y : tensor<2x512xf32> to tensor<2x512xbf16>
  return %yb : tensor<2x512xbf16>
}

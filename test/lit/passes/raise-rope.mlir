// RUN: mla-opt %s --split-input-file --raise-rope | FileCheck %s

// Hugging Face's rope_interleave: pairs de-interleaved by view/transpose/view, then rotate-half.
// CHECK-LABEL: func.func @interleave
// CHECK-NEXT: %[[Y:.*]] = "mla.rope"(%arg0, %arg1, %arg2) : (tensor<2x4x8xbf16>, tensor<2x1x8xbf16>, tensor<2x1x8xbf16>) -> tensor<2x4x8xbf16>
// CHECK-NEXT: return %[[Y]]
func.func @interleave(%x: tensor<2x4x8xbf16>, %cos: tensor<2x1x8xbf16>, %sin: tensor<2x1x8xbf16>) -> tensor<2x4x8xbf16> {
  %pairs = tensor.expand_shape %x [[0], [1], [2, 3]] output_shape [2, 4, 4, 2] : tensor<2x4x8xbf16> into tensor<2x4x4x2xbf16>
  %t = "mla.transpose"(%pairs) {permutation = array<i64: 0, 1, 3, 2>} : (tensor<2x4x4x2xbf16>) -> tensor<2x4x2x4xbf16>
  %xd = tensor.collapse_shape %t [[0], [1], [2, 3]] : tensor<2x4x2x4xbf16> into tensor<2x4x8xbf16>
  %a = "mla.mul"(%xd, %cos) : (tensor<2x4x8xbf16>, tensor<2x1x8xbf16>) -> tensor<2x4x8xbf16>
  %lo = tensor.extract_slice %xd[0, 0, 0] [2, 4, 4] [1, 1, 1] : tensor<2x4x8xbf16> to tensor<2x4x4xbf16>
  %hi = tensor.extract_slice %xd[0, 0, 4] [2, 4, 4] [1, 1, 1] : tensor<2x4x8xbf16> to tensor<2x4x4xbf16>
  %m1 = arith.constant dense<-1.0> : tensor<bf16>
  %neg = "mla.mul"(%hi, %m1) : (tensor<2x4x4xbf16>, tensor<bf16>) -> tensor<2x4x4xbf16>
  %rot = tensor.concat dim(2) %neg, %lo : (tensor<2x4x4xbf16>, tensor<2x4x4xbf16>) -> tensor<2x4x8xbf16>
  %b = "mla.mul"(%rot, %sin) : (tensor<2x4x8xbf16>, tensor<2x1x8xbf16>) -> tensor<2x4x8xbf16>
  %y = "mla.add"(%a, %b) : (tensor<2x4x8xbf16>, tensor<2x4x8xbf16>) -> tensor<2x4x8xbf16>
  return %y : tensor<2x4x8xbf16>
}

// -----

// Plain rotate-half (Llama): mode "half", products and the sum in the other order.
// CHECK-LABEL: func.func @half
// CHECK-NEXT: "mla.rope"(%arg0, %arg1, %arg2) {mode = "half"} : (tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
func.func @half(%x: tensor<3x8xf32>, %cos: tensor<3x8xf32>, %sin: tensor<3x8xf32>) -> tensor<3x8xf32> {
  %a = "mla.mul"(%cos, %x) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
  %lo = tensor.extract_slice %x[0, 0] [3, 4] [1, 1] : tensor<3x8xf32> to tensor<3x4xf32>
  %hi = tensor.extract_slice %x[0, 4] [3, 4] [1, 1] : tensor<3x8xf32> to tensor<3x4xf32>
  %m1 = arith.constant dense<-1.0> : tensor<f32>
  %neg = "mla.mul"(%m1, %hi) : (tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %rot = tensor.concat dim(1) %neg, %lo : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x8xf32>
  %b = "mla.mul"(%sin, %rot) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
  %y = "mla.add"(%b, %a) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}

// -----

// DeepSeek's complex form, (x0 + i x1)(c + i s) on (..., k, 2) pairs: mla.rope of x as (..., 2k)
// with the tables [c, c], [s, s], its de-interleaved output put back into pairs.
// CHECK-LABEL: func.func @complex
// CHECK: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0], [1, 2]] : tensor<3x4x2xf32> into tensor<3x8xf32>
// CHECK: %[[C:.*]] = tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x8xf32>
// CHECK: %[[S:.*]] = tensor.concat dim(1)
// CHECK: %[[R:.*]] = "mla.rope"(%[[X]], %[[C]], %[[S]]) : (tensor<3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
// CHECK: %[[H:.*]] = tensor.expand_shape %[[R]] {{\[\[}}0], [1, 2]] output_shape [3, 2, 4]
// CHECK: %[[P:.*]] = "mla.transpose"(%[[H]]) {permutation = array<i64: 0, 2, 1>} : (tensor<3x2x4xf32>) -> tensor<3x4x2xf32>
// CHECK: return %[[P]]
// CHECK-NOT: mla.add
func.func @complex(%x: tensor<3x4x2xf32>, %f: tensor<3x4x2xf32>) -> tensor<3x4x2xf32> {
  %a = tensor.extract_slice %x[0, 0, 0] [3, 4, 1] [1, 1, 1] : tensor<3x4x2xf32> to tensor<3x4x1xf32>
  %b = tensor.extract_slice %x[0, 0, 1] [3, 4, 1] [1, 1, 1] : tensor<3x4x2xf32> to tensor<3x4x1xf32>
  %c = tensor.extract_slice %f[0, 0, 0] [3, 4, 1] [1, 1, 1] : tensor<3x4x2xf32> to tensor<3x4x1xf32>
  %s = tensor.extract_slice %f[0, 0, 1] [3, 4, 1] [1, 1, 1] : tensor<3x4x2xf32> to tensor<3x4x1xf32>
  %ac = "mla.mul"(%a, %c) : (tensor<3x4x1xf32>, tensor<3x4x1xf32>) -> tensor<3x4x1xf32>
  %bs = "mla.mul"(%b, %s) : (tensor<3x4x1xf32>, tensor<3x4x1xf32>) -> tensor<3x4x1xf32>
  %m1 = arith.constant dense<-1.0> : tensor<f32>
  %nbs = "mla.mul"(%bs, %m1) : (tensor<3x4x1xf32>, tensor<f32>) -> tensor<3x4x1xf32>
  %re = "mla.add"(%ac, %nbs) : (tensor<3x4x1xf32>, tensor<3x4x1xf32>) -> tensor<3x4x1xf32>
  %as = "mla.mul"(%a, %s) : (tensor<3x4x1xf32>, tensor<3x4x1xf32>) -> tensor<3x4x1xf32>
  %bc = "mla.mul"(%b, %c) : (tensor<3x4x1xf32>, tensor<3x4x1xf32>) -> tensor<3x4x1xf32>
  %im = "mla.add"(%as, %bc) : (tensor<3x4x1xf32>, tensor<3x4x1xf32>) -> tensor<3x4x1xf32>
  %y = tensor.concat dim(2) %re, %im : (tensor<3x4x1xf32>, tensor<3x4x1xf32>) -> tensor<3x4x2xf32>
  return %y : tensor<3x4x2xf32>
}

// -----

// A sum that is not a RoPE (the rotated half is not negated): left as it is.
// CHECK-LABEL: func.func @not_rope
// CHECK-NOT: mla.rope
func.func @not_rope(%x: tensor<3x8xf32>, %cos: tensor<3x8xf32>, %sin: tensor<3x8xf32>) -> tensor<3x8xf32> {
  %a = "mla.mul"(%x, %cos) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
  %lo = tensor.extract_slice %x[0, 0] [3, 4] [1, 1] : tensor<3x8xf32> to tensor<3x4xf32>
  %hi = tensor.extract_slice %x[0, 4] [3, 4] [1, 1] : tensor<3x8xf32> to tensor<3x4xf32>
  %rot = tensor.concat dim(1) %hi, %lo : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x8xf32>
  %b = "mla.mul"(%rot, %sin) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
  %y = "mla.add"(%a, %b) : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}

// -----

// float32 x and float32 arithmetic, the result rounded to bf16 once (the w8a8 module's RoPE of
// a float32 projection): the cast is the raised op's result type, the same one rounding.
// CHECK-LABEL: func.func @f32_then_bf16
// CHECK-NEXT: %[[Y:.*]] = "mla.rope"(%arg0, %arg1, %arg2) {mode = "half"} : (tensor<2x8xf32>, tensor<2x8xbf16>, tensor<2x8xbf16>) -> tensor<2x8xbf16>
// CHECK-NEXT: return %[[Y]]
func.func @f32_then_bf16(%x: tensor<2x8xf32>, %cos: tensor<2x8xbf16>, %sin: tensor<2x8xbf16>) -> tensor<2x8xbf16> {
  %a = "mla.mul"(%x, %cos) : (tensor<2x8xf32>, tensor<2x8xbf16>) -> tensor<2x8xf32>
  %lo = tensor.extract_slice %x[0, 0] [2, 4] [1, 1] : tensor<2x8xf32> to tensor<2x4xf32>
  %hi = tensor.extract_slice %x[0, 4] [2, 4] [1, 1] : tensor<2x8xf32> to tensor<2x4xf32>
  %m1 = arith.constant dense<-1.0> : tensor<f32>
  %neg = "mla.mul"(%hi, %m1) : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %rot = tensor.concat dim(1) %neg, %lo : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  %b = "mla.mul"(%rot, %sin) : (tensor<2x8xf32>, tensor<2x8xbf16>) -> tensor<2x8xf32>
  %y = "mla.add"(%a, %b) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %yb = arith.truncf %y : tensor<2x8xf32> to tensor<2x8xbf16>
  return %yb : tensor<2x8xbf16>
}

// RUN: mla-opt %s | FileCheck %s
// RUN: mla-opt --emit-irdl > %t.irdl && %mlir_opt %s --irdl-file=%t.irdl | FileCheck %s

// The two non-elementwise pieces of a written-out RmsNorm, as imported PyTorch code holds them.
// CHECK-LABEL: func.func @pieces
// CHECK: "mla.mean"(%{{.*}}) : (tensor<2x1x512xf32>) -> tensor<2x1x1xf32>
// CHECK: "mla.rsqrt"(%{{.*}}) : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
// CHECK: "mla.mean"(%{{.*}}) : (tensor<8xbf16>) -> tensor<1xf32>
// CHECK: "mla.amax"(%{{.*}}) : (tensor<2x1x512xf32>) -> tensor<2x1x1xf32>
// CHECK: "mla.matmul"(%{{.*}}, %{{.*}}) : (tensor<2x16xi32>, tensor<16x4xi32>) -> tensor<2x4xi32>
func.func @pieces(%x: tensor<2x1x512xf32>, %v: tensor<8xbf16>, %a: tensor<2x16xi32>, %b: tensor<16x4xi32>) {
  %0 = "mla.mean"(%x) : (tensor<2x1x512xf32>) -> tensor<2x1x1xf32>
  %1 = "mla.rsqrt"(%0) : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %2 = "mla.mean"(%v) : (tensor<8xbf16>) -> tensor<1xf32>
  // the pieces of a written-out dynamic quant and int8 product (raise-quant)
  %3 = "mla.amax"(%x) : (tensor<2x1x512xf32>) -> tensor<2x1x1xf32>
  %4 = "mla.matmul"(%a, %b) : (tensor<2x16xi32>, tensor<16x4xi32>) -> tensor<2x4xi32>
  return
}

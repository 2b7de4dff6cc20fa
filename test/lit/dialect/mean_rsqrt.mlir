// RUN: mla-opt %s | FileCheck %s
// RUN: mla-opt --emit-irdl > %t.irdl && %mlir_opt %s --irdl-file=%t.irdl | FileCheck %s

// The two non-elementwise pieces of a written-out RmsNorm, as imported PyTorch code holds them.
// CHECK-LABEL: func.func @pieces
// CHECK: "mla.mean"(%{{.*}}) : (tensor<2x1x512xf32>) -> tensor<2x1x1xf32>
// CHECK: "mla.rsqrt"(%{{.*}}) : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
// CHECK: "mla.mean"(%{{.*}}) : (tensor<8xbf16>) -> tensor<1xf32>
func.func @pieces(%x: tensor<2x1x512xf32>, %v: tensor<8xbf16>) {
  %0 = "mla.mean"(%x) : (tensor<2x1x512xf32>) -> tensor<2x1x1xf32>
  %1 = "mla.rsqrt"(%0) : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %2 = "mla.mean"(%v) : (tensor<8xbf16>) -> tensor<1xf32>
  return
}

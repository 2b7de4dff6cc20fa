// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid mla.quantize ops, one configuration per split.

// a (1, 1) and an (H) scale
// CHECK-LABEL: func.func @per_tensor_and_per_channel
// CHECK: %0 = "mla.quantize"(%arg0, %arg1) : (tensor<2x3x512xf32>, tensor<1x1xf32>) -> tensor<2x3x512xi8>
// CHECK: %1 = "mla.quantize"(%arg2, %arg3) : (tensor<2x3x512xbf16>, tensor<512xf32>) -> tensor<2x3x512xi8>
func.func @per_tensor_and_per_channel(%x: tensor<2x3x512xf32>, %scale: tensor<1x1xf32>, %x1: tensor<2x3x512xbf16>, %scale1: tensor<512xf32>) {
  %0 = "mla.quantize"(%x, %scale) : (tensor<2x3x512xf32>, tensor<1x1xf32>) -> tensor<2x3x512xi8>
  %1 = "mla.quantize"(%x1, %scale1) : (tensor<2x3x512xbf16>, tensor<512xf32>) -> tensor<2x3x512xi8>
  return
}

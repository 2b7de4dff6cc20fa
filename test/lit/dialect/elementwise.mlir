// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid mla.add, mla.div, mla.mul ops, one configuration per split.

// NumPy broadcasting, mixed float types, each op rounds once to its result type
// CHECK-LABEL: func.func @broadcasting
// CHECK: %0 = "mla.add"(%arg0, %arg1) : (tensor<2x3x16xbf16>, tensor<16xbf16>) -> tensor<2x3x16xbf16>
// CHECK: %1 = "mla.mul"(%arg2, %arg3) : (tensor<2x1x8x64xbf16>, tensor<2x1x8x1xf32>) -> tensor<2x1x8x64xbf16>
// CHECK: %2 = "mla.div"(%arg4, %arg5) : (tensor<1x1xf32>, tensor<2x1x8x1xf32>) -> tensor<2x1x8x1xf32>
func.func @broadcasting(%x: tensor<2x3x16xbf16>, %y: tensor<16xbf16>, %x1: tensor<2x1x8x64xbf16>, %y1: tensor<2x1x8x1xf32>, %x2: tensor<1x1xf32>, %y2: tensor<2x1x8x1xf32>) {
  %0 = "mla.add"(%x, %y) : (tensor<2x3x16xbf16>, tensor<16xbf16>) -> tensor<2x3x16xbf16>
  %1 = "mla.mul"(%x1, %y1) : (tensor<2x1x8x64xbf16>, tensor<2x1x8x1xf32>) -> tensor<2x1x8x64xbf16>
  %2 = "mla.div"(%x2, %y2) : (tensor<1x1xf32>, tensor<2x1x8x1xf32>) -> tensor<2x1x8x1xf32>
  return
}

// -----

// a dynamic dimension broadcast against a static one
// CHECK-LABEL: func.func @dynamic
// CHECK: %0 = "mla.add"(%arg0, %arg1) : (tensor<?x16xf16>, tensor<1x16xf16>) -> tensor<?x16xf16>
func.func @dynamic(%x: tensor<?x16xf16>, %y: tensor<1x16xf16>) {
  %0 = "mla.add"(%x, %y) : (tensor<?x16xf16>, tensor<1x16xf16>) -> tensor<?x16xf16>
  return
}

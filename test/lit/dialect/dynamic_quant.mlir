// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid mla.dynamic_quant ops, one configuration per split.

// npu_dynamic_quant: per-token scales, round half to even (the default)
// CHECK-LABEL: func.func @half_even
// CHECK: %0:2 = "mla.dynamic_quant"(%arg0) : (tensor<2x3x16xbf16>) -> (tensor<2x3x16xi8>, tensor<2x3xf32>)
func.func @half_even(%x: tensor<2x3x16xbf16>) {
  %y, %scale = "mla.dynamic_quant"(%x) : (tensor<2x3x16xbf16>) -> (tensor<2x3x16xi8>, tensor<2x3xf32>)
  return
}

// -----

// smooth scales (one per column), the prolog's query quant rounding
// CHECK-LABEL: func.func @smooth_half_away
// CHECK: %0:2 = "mla.dynamic_quant"(%arg0, %arg1) {operandSegmentSizes = array<i32: 1, 1>, rounding = "half_away"} : (tensor<4x16xf32>, tensor<1x16xf32>) -> (tensor<4x16xi8>, tensor<4xf32>)
func.func @smooth_half_away(%x: tensor<4x16xf32>, %smooth_scales: tensor<1x16xf32>) {
  %y, %scale = "mla.dynamic_quant"(%x, %smooth_scales) {rounding = "half_away", operandSegmentSizes = array<i32: 1, 1>} : (tensor<4x16xf32>, tensor<1x16xf32>) -> (tensor<4x16xi8>, tensor<4xf32>)
  return
}

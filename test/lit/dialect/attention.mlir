// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid mla.attention ops, one configuration per split.

// dense BSND attention, GQA, an explicit mask
// CHECK-LABEL: func.func @masked_gqa
// CHECK: %0 = "mla.attention"(%arg0, %arg1, %arg2, %arg3) {operandSegmentSizes = array<i32: 1, 1, 1, 1>, scale_value = 1.250000e-01 : f64} : (tensor<2x3x8x64xbf16>, tensor<2x5x2x64xbf16>, tensor<2x5x2x32xbf16>, tensor<3x5xi1>) -> tensor<2x3x8x32xbf16>
func.func @masked_gqa(%query: tensor<2x3x8x64xbf16>, %key: tensor<2x5x2x64xbf16>, %value: tensor<2x5x2x32xbf16>, %atten_mask: tensor<3x5xi1>) {
  %0 = "mla.attention"(%query, %key, %value, %atten_mask) {scale_value = 0.125 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<2x3x8x64xbf16>, tensor<2x5x2x64xbf16>, tensor<2x5x2x32xbf16>, tensor<3x5xi1>) -> tensor<2x3x8x32xbf16>
  return
}

// -----

// causal (bottom-right aligned), no mask operand, an f32 result
// CHECK-LABEL: func.func @causal
// CHECK: %0 = "mla.attention"(%arg0, %arg1, %arg2) {causal = true} : (tensor<1x4x2x16xf16>, tensor<1x6x2x16xf16>, tensor<1x6x2x16xf16>) -> tensor<1x4x2x16xf32>
func.func @causal(%query: tensor<1x4x2x16xf16>, %key: tensor<1x6x2x16xf16>, %value: tensor<1x6x2x16xf16>) {
  %0 = "mla.attention"(%query, %key, %value) {causal = true} : (tensor<1x4x2x16xf16>, tensor<1x6x2x16xf16>, tensor<1x6x2x16xf16>) -> tensor<1x4x2x16xf32>
  return
}

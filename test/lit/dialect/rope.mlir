// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid mla.rope ops, one configuration per split.

// DeepSeek's interleaved RoPE (the default mode), tables broadcast over the heads
// CHECK-LABEL: func.func @interleave
// CHECK: %0 = "mla.rope"(%arg0, %arg1, %arg2) : (tensor<2x1x8x64xbf16>, tensor<2x1x1x64xbf16>, tensor<2x1x1x64xbf16>) -> tensor<2x1x8x64xbf16>
func.func @interleave(%x: tensor<2x1x8x64xbf16>, %cos: tensor<2x1x1x64xbf16>, %sin: tensor<2x1x1x64xbf16>) {
  %0 = "mla.rope"(%x, %cos, %sin) : (tensor<2x1x8x64xbf16>, tensor<2x1x1x64xbf16>, tensor<2x1x1x64xbf16>) -> tensor<2x1x8x64xbf16>
  return
}

// -----

// rotate-half RoPE, one table row for every token, an f32 result
// CHECK-LABEL: func.func @half
// CHECK: %0 = "mla.rope"(%arg0, %arg1, %arg2) {mode = "half"} : (tensor<3x64xf16>, tensor<64xf32>, tensor<64xf32>) -> tensor<3x64xf32>
func.func @half(%x: tensor<3x64xf16>, %cos: tensor<64xf32>, %sin: tensor<64xf32>) {
  %0 = "mla.rope"(%x, %cos, %sin) {mode = "half"} : (tensor<3x64xf16>, tensor<64xf32>, tensor<64xf32>) -> tensor<3x64xf32>
  return
}

// -----

// a dynamic token count
// CHECK-LABEL: func.func @dynamic
// CHECK: %0 = "mla.rope"(%arg0, %arg1, %arg2) {mode = "interleave"} : (tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<?x64xbf16>) -> tensor<?x64xbf16>
func.func @dynamic(%x: tensor<?x64xbf16>, %cos: tensor<?x64xbf16>, %sin: tensor<?x64xbf16>) {
  %0 = "mla.rope"(%x, %cos, %sin) {mode = "interleave"} : (tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<?x64xbf16>) -> tensor<?x64xbf16>
  return
}

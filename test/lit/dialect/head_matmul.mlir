// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid mla.head_matmul ops, one configuration per split.

// DeepSeek's absorbed W_uk: (B, S, N, 128) x (N, 128, 512)
// CHECK-LABEL: func.func @absorbed_w_uk
// CHECK: %0 = "mla.head_matmul"(%arg0, %arg1) : (tensor<2x1x8x128xbf16>, tensor<8x128x512xbf16>) -> tensor<2x1x8x512xbf16>
func.func @absorbed_w_uk(%x: tensor<2x1x8x128xbf16>, %w: tensor<8x128x512xbf16>) {
  %0 = "mla.head_matmul"(%x, %w) : (tensor<2x1x8x128xbf16>, tensor<8x128x512xbf16>) -> tensor<2x1x8x512xbf16>
  return
}

// -----

// an f32 result, a dynamic batch
// CHECK-LABEL: func.func @f32_result_dynamic_batch
// CHECK: %0 = "mla.head_matmul"(%arg0, %arg1) : (tensor<?x4x16xf16>, tensor<4x16x8xf16>) -> tensor<?x4x8xf32>
func.func @f32_result_dynamic_batch(%x: tensor<?x4x16xf16>, %w: tensor<4x16x8xf16>) {
  %0 = "mla.head_matmul"(%x, %w) : (tensor<?x4x16xf16>, tensor<4x16x8xf16>) -> tensor<?x4x8xf32>
  return
}

// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid mla.quant_matmul ops, one configuration per split.

// x_scale (T) or (T, 1), w_scale (N) or (1, N), any float result
// CHECK-LABEL: func.func @per_token_scales
// CHECK: %0 = "mla.quant_matmul"(%arg0, %arg1, %arg2, %arg3) : (tensor<2x3x16xi8>, tensor<16x32xi8>, tensor<2x3xf32>, tensor<32xf32>) -> tensor<2x3x32xbf16>
// CHECK: %1 = "mla.quant_matmul"(%arg4, %arg5, %arg6, %arg7) : (tensor<4x16xi8>, tensor<16x32xi8>, tensor<4x1xf32>, tensor<1x32xf32>) -> tensor<4x32xf32>
func.func @per_token_scales(%x: tensor<2x3x16xi8>, %w: tensor<16x32xi8>, %x_scale: tensor<2x3xf32>, %w_scale: tensor<32xf32>, %x1: tensor<4x16xi8>, %w1: tensor<16x32xi8>, %x_scale1: tensor<4x1xf32>, %w_scale1: tensor<1x32xf32>) {
  %0 = "mla.quant_matmul"(%x, %w, %x_scale, %w_scale) : (tensor<2x3x16xi8>, tensor<16x32xi8>, tensor<2x3xf32>, tensor<32xf32>) -> tensor<2x3x32xbf16>
  %1 = "mla.quant_matmul"(%x1, %w1, %x_scale1, %w_scale1) : (tensor<4x16xi8>, tensor<16x32xi8>, tensor<4x1xf32>, tensor<1x32xf32>) -> tensor<4x32xf32>
  return
}

// -----

// a packed int8 weight
// CHECK-LABEL: func.func @nz_weight
// CHECK: %0 = "mla.quant_matmul"(%arg0, %arg1, %arg2, %arg3) : (tensor<4x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<4xf32>, tensor<1536xf32>) -> tensor<4x1536xf16>
func.func @nz_weight(%x: tensor<4x7168xi8>, %w: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %x_scale: tensor<4xf32>, %w_scale: tensor<1536xf32>) {
  %0 = "mla.quant_matmul"(%x, %w, %x_scale, %w_scale) : (tensor<4x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<4xf32>, tensor<1536xf32>) -> tensor<4x1536xf16>
  return
}

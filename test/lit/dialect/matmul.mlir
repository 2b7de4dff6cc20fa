// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid mla.matmul ops, one configuration per split.

// bf16 x bf16, the result rounded once to bf16; rank-1 and rank-3 x
// CHECK-LABEL: func.func @bf16_rounds_once
// CHECK: %0 = "mla.matmul"(%arg0, %arg1) : (tensor<4x16xbf16>, tensor<16x32xbf16>) -> tensor<4x32xbf16>
// CHECK: %1 = "mla.matmul"(%arg2, %arg3) : (tensor<16xbf16>, tensor<16x32xbf16>) -> tensor<32xbf16>
// CHECK: %2 = "mla.matmul"(%arg4, %arg5) : (tensor<2x3x16xf16>, tensor<16x32xf16>) -> tensor<2x3x32xf32>
func.func @bf16_rounds_once(%x: tensor<4x16xbf16>, %w: tensor<16x32xbf16>, %x1: tensor<16xbf16>, %w1: tensor<16x32xbf16>, %x2: tensor<2x3x16xf16>, %w2: tensor<16x32xf16>) {
  %0 = "mla.matmul"(%x, %w) : (tensor<4x16xbf16>, tensor<16x32xbf16>) -> tensor<4x32xbf16>
  %1 = "mla.matmul"(%x1, %w1) : (tensor<16xbf16>, tensor<16x32xbf16>) -> tensor<32xbf16>
  %2 = "mla.matmul"(%x2, %w2) : (tensor<2x3x16xf16>, tensor<16x32xf16>) -> tensor<2x3x32xf32>
  return
}

// -----

// a packed (FRACTAL_NZ) weight, as select-layout makes it
// CHECK-LABEL: func.func @nz_weight
// CHECK: %0 = "mla.matmul"(%arg0, %arg1) : (tensor<4x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>) -> tensor<4x1536xbf16>
func.func @nz_weight(%x: tensor<4x7168xbf16>, %w: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>) {
  %0 = "mla.matmul"(%x, %w) : (tensor<4x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>) -> tensor<4x1536xbf16>
  return
}

// -----

// a dynamic token count
// CHECK-LABEL: func.func @dynamic_tokens
// CHECK: %0 = "mla.matmul"(%arg0, %arg1) : (tensor<?x16xbf16>, tensor<16x32xbf16>) -> tensor<?x32xbf16>
func.func @dynamic_tokens(%x: tensor<?x16xbf16>, %w: tensor<16x32xbf16>) {
  %0 = "mla.matmul"(%x, %w) : (tensor<?x16xbf16>, tensor<16x32xbf16>) -> tensor<?x32xbf16>
  return
}

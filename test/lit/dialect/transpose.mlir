// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid mla.transpose ops, one configuration per split.

// an (out, in) checkpoint weight as (in, out); a 3-D permutation
// CHECK-LABEL: func.func @linear_weight
// CHECK: %0 = "mla.transpose"(%arg0) {permutation = array<i64: 1, 0>} : (tensor<1536x7168xbf16>) -> tensor<7168x1536xbf16>
// CHECK: %1 = "mla.transpose"(%arg1) {permutation = array<i64: 0, 2, 1>} : (tensor<8x128x512xbf16>) -> tensor<8x512x128xbf16>
func.func @linear_weight(%x: tensor<1536x7168xbf16>, %x1: tensor<8x128x512xbf16>) {
  %0 = "mla.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<1536x7168xbf16>) -> tensor<7168x1536xbf16>
  %1 = "mla.transpose"(%x1) {permutation = array<i64: 0, 2, 1>} : (tensor<8x128x512xbf16>) -> tensor<8x512x128xbf16>
  return
}

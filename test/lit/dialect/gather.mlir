// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid mla.gather ops, one configuration per split.

// rows of the cos table at the tokens' positions
// CHECK-LABEL: func.func @rope_tables
// CHECK: %0 = "mla.gather"(%arg0, %arg1) : (tensor<4096x64xbf16>, tensor<2x1xi64>) -> tensor<2x1x64xbf16>
// CHECK: %1 = "mla.gather"(%arg2, %arg3) : (tensor<16xf32>, tensor<3xi32>) -> tensor<3xf32>
func.func @rope_tables(%table: tensor<4096x64xbf16>, %indices: tensor<2x1xi64>, %table1: tensor<16xf32>, %indices1: tensor<3xi32>) {
  %0 = "mla.gather"(%table, %indices) : (tensor<4096x64xbf16>, tensor<2x1xi64>) -> tensor<2x1x64xbf16>
  %1 = "mla.gather"(%table1, %indices1) : (tensor<16xf32>, tensor<3xi32>) -> tensor<3xf32>
  return
}

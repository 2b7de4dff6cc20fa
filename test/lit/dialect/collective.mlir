// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid collectives, one configuration per split.

// the row-parallel o_proj's partial sums of two ranks, summed (the defaults: sum over "tp")
// CHECK-LABEL: func.func @o_proj_sum
// CHECK: %0 = "mla.all_reduce"(%arg0) {world_size = 2 : i64} : (tensor<2x1x7168xbf16>) -> tensor<2x1x7168xbf16>
// CHECK: %1 = "mla.all_reduce"(%arg1) {group = "tp", reduction = "sum", world_size = 16 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @o_proj_sum(%x: tensor<2x1x7168xbf16>, %y: tensor<4x8xf32>) {
  %0 = "mla.all_reduce"(%x) {world_size = 2 : i64} : (tensor<2x1x7168xbf16>) -> tensor<2x1x7168xbf16>
  %1 = "mla.all_reduce"(%y) {world_size = 16 : i64, reduction = "sum", group = "tp"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// vocab-parallel logits gathered along the last axis; a world of one gathers nothing
// CHECK-LABEL: func.func @logits
// CHECK: %0 = "mla.all_gather"(%arg0) {dim = -1 : i64, world_size = 4 : i64} : (tensor<2x1x1000xf32>) -> tensor<2x1x4000xf32>
// CHECK: %1 = "mla.all_gather"(%arg1) {dim = 0 : i64, world_size = 1 : i64} : (tensor<3xi32>) -> tensor<3xi32>
func.func @logits(%x: tensor<2x1x1000xf32>, %i: tensor<3xi32>) {
  %0 = "mla.all_gather"(%x) {world_size = 4 : i64, dim = -1 : i64} : (tensor<2x1x1000xf32>) -> tensor<2x1x4000xf32>
  %1 = "mla.all_gather"(%i) {world_size = 1 : i64, dim = 0 : i64} : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid mla.scatter_cache ops, one configuration per split.

// PA_BSND (the default), i64 slots (B, S)
// CHECK-LABEL: func.func @pa_bsnd
// CHECK: %0 = "mla.scatter_cache"(%arg0, %arg1, %arg2) : (tensor<4x128x1x512xbf16>, tensor<2x1xi64>, tensor<2x1x1x512xbf16>) -> tensor<4x128x1x512xbf16>
func.func @pa_bsnd(%cache: tensor<4x128x1x512xbf16>, %slot_mapping: tensor<2x1xi64>, %update: tensor<2x1x1x512xbf16>) {
  %0 = "mla.scatter_cache"(%cache, %slot_mapping, %update) : (tensor<4x128x1x512xbf16>, tensor<2x1xi64>, tensor<2x1x1x512xbf16>) -> tensor<4x128x1x512xbf16>
  return
}

// -----

// PA_NZ int8 cache, i32 slots (T), two kv heads
// CHECK-LABEL: func.func @pa_nz_int8
// CHECK: %0 = "mla.scatter_cache"(%arg0, %arg1, %arg2) {cache_mode = "PA_NZ"} : (tensor<4x16x2x64xi8>, tensor<3xi32>, tensor<3x2x64xi8>) -> tensor<4x16x2x64xi8>
func.func @pa_nz_int8(%cache: tensor<4x16x2x64xi8>, %slot_mapping: tensor<3xi32>, %update: tensor<3x2x64xi8>) {
  %0 = "mla.scatter_cache"(%cache, %slot_mapping, %update) {cache_mode = "PA_NZ"} : (tensor<4x16x2x64xi8>, tensor<3xi32>, tensor<3x2x64xi8>) -> tensor<4x16x2x64xi8>
  return
}

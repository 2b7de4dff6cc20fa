// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid mla.format_cast ops, one configuration per split.

// ND -> FRACTAL_NZ -> ND, bf16 and int8
// CHECK-LABEL: func.func @nd_to_nz_and_back
// CHECK: %0 = "mla.format_cast"(%arg0) : (tensor<7168x1536xbf16>) -> tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>
// CHECK: %1 = "mla.format_cast"(%arg1) : (tensor<2x16x32xi8, #mla.format<"FRACTAL_NZ">>) -> tensor<2x16x32xi8>
func.func @nd_to_nz_and_back(%x: tensor<7168x1536xbf16>, %x1: tensor<2x16x32xi8, #mla.format<"FRACTAL_NZ">>) {
  %0 = "mla.format_cast"(%x) : (tensor<7168x1536xbf16>) -> tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>
  %1 = "mla.format_cast"(%x1) : (tensor<2x16x32xi8, #mla.format<"FRACTAL_NZ">>) -> tensor<2x16x32xi8>
  return
}

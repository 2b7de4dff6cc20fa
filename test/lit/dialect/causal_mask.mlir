// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid mla.causal_mask ops, one configuration per split.

// FIA's 2048 x 2048 causal template, and a small i1 one
// CHECK-LABEL: func.func @template
// CHECK: %0 = "mla.causal_mask"() : () -> tensor<2048x2048xi8>
// CHECK: %1 = "mla.causal_mask"() : () -> tensor<4x4xi1>
func.func @template() {
  %0 = "mla.causal_mask"() : () -> tensor<2048x2048xi8>
  %1 = "mla.causal_mask"() : () -> tensor<4x4xi1>
  return
}

// RUN: not mla-opt %s --split-input-file 2>&1 | FileCheck %s

// Dense arrays MLIR or its Python bindings cannot read are refused with a diagnostic, not an
// abort (array<index>: an assertion in the parser) or a traceback (array<ui64> on an mla op:
// the bindings cannot cast it). mla-opt goes on to the next split.

// CHECK: unreadable-arrays.mlir:[[# @LINE + 1]]:32: error: a dense array of index elements (array<index: ...>): its elements need a bit width
func.func @f() attributes {a = array<index: 1>} {
  return
}

// -----

// CHECK: [[# @LINE + 2]]:8: error: 'mla.transpose' op permutation: expected an array<i64: ...> attribute, got array<ui64: 1, 0> [ARG-007]
func.func @g(%x: tensor<4x8xbf16>) -> tensor<8x4xbf16> {
  %t = "mla.transpose"(%x) {permutation = array<ui64: 1, 0>} : (tensor<4x8xbf16>) -> tensor<8x4xbf16>
  return %t : tensor<8x4xbf16>
}
// CHECK-NOT: Traceback

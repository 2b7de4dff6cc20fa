// A syntax error is a diagnostic at its position, never a Python traceback; exit status 1.
// RUN: not mla-opt %s 2>&1 | FileCheck %s
// An op of the dialect used with the wrong number of operands is caught by its IRDL definition.
// RUN: not mla-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=SPLIT

// CHECK: parse-error.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error:
// CHECK-NOT: Traceback
// SPLIT: parse-error.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error:
func.func @f(%x: tensor<4x8xbf16>) {
  %0 = "mla.rms_norm"(%x : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
  return
}

// -----

// SPLIT: parse-error.mlir:[[# @LINE + 2]]:8: error: {{.*}}expects exactly 2 operands, but got 1
func.func @g(%x: tensor<4x8xbf16>) {
  %0 = "mla.rms_norm"(%x) : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
  return
}

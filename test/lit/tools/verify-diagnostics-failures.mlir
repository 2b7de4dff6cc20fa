// A missing diagnostic, an unexpected one and a wrong message all fail (exit 1), with messages
// that point at the annotation or the diagnostic.
// RUN: not mla-opt %s --split-input-file --verify-diagnostics 2> %t.err
// RUN: FileCheck %s < %t.err

// CHECK-DAG: verify-diagnostics-failures.mlir:[[# @LINE + 2]]:6: error: expected error "this is never produced" was not produced
func.func @missing(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{this is never produced}}
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// CHECK-DAG: verify-diagnostics-failures.mlir:[[# @LINE + 2]]:8: error: unexpected error: 'mla.rms_norm' op gamma: expected shape (8,)
func.func @unexpected(%x: tensor<4x8xf32>, %g: tensor<5xf32>) {
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x8xf32>, tensor<5xf32>) -> tensor<4x8xf32>
  return
}

// -----

// CHECK-DAG: verify-diagnostics-failures.mlir:[[# @LINE + 4]]:8: error: unexpected error: 'mla.rms_norm' op gamma
// CHECK-DAG: verify-diagnostics-failures.mlir:[[# @LINE + 2]]:6: error: expected error "wrong text" was not produced
func.func @wrong_text(%x: tensor<4x8xf32>, %g: tensor<5xf32>) {
  // expected-error @+1 {{wrong text}}
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x8xf32>, tensor<5xf32>) -> tensor<4x8xf32>
  return
}

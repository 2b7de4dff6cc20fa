// RUN: mla-opt %s --split-input-file --verify-diagnostics
// Every designator form of upstream's --verify-diagnostics (test/python/
// test_verify_diagnostics_upstream.py compares the details with upstream mlir-opt).

func.func @same_line(%x: tensor<4x8xf32>, %g: tensor<7xf32>) {
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x8xf32>, tensor<7xf32>) -> tensor<4x8xf32> // expected-error {{gamma: expected shape (8,)}}
  return
}

// -----

func.func @plus(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+2 {{epsilon: must be > 0, got -1.0 [RMS-005]}}
  // a comment line between annotation and op
  %0 = "mla.rms_norm"(%x, %g) {epsilon = -1.0 : f64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @minus_above(%x: tensor<4x8xi32>, %g: tensor<8xf32>) {
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x8xi32>, tensor<8xf32>) -> tensor<4x8xi32>
  // expected-error @-1 {{x: expected element type bf16, f16 or f32, got i32 [RMS-002]}}
  %1 = "mla.rms_norm"(%x, %g) : (tensor<4x8xi32>, tensor<8xf32>) -> tensor<4x8xi32>
  // expected-error @above {{[RMS-002]}}
  return
}

// -----

func.func @below(%x: tensor<4x8xf32>, %g: tensor<8xi8>) {
  // expected-error @below {{gamma: expected element type}}
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x8xf32>, tensor<8xi8>) -> tensor<4x8xf32>
  // expected-error-re @below {{gamma: expected element type {{.*}}, got i{{[0-9]+}} [RMS-004]}}
  %1 = "mla.rms_norm"(%x, %g) : (tensor<4x8xf32>, tensor<8xi8>) -> tensor<4x8xf32>
  return
}

// -----

// Two diagnostics on one line (two ops on it): one annotation per line, as upstream reads them.
func.func @two(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+2 {{y: expected the shape of x}}
  // expected-error @+1 {{epsilon: must be > 0}}
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x9xf32> %1 = "mla.rms_norm"(%x, %g) {epsilon = 0.0 : f64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// Parse errors are diagnostics too.
func.func @parse(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{custom op 'not_an_op' is unknown}}
  not_an_op
  return
}

// -----

// Notes are diagnostics of their own, at their own location.
// expected-note @+1 {{see existing symbol definition here}}
func.func @twice() {
  return
}
// expected-error @+1 {{redefinition of symbol named 'twice'}}
func.func @twice() {
  return
}

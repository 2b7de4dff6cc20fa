// RUN: mla-opt %s --cleanup | FileCheck %s

// cleanup erases unused side-effect-free ops and the private globals no symbol refers to; it
// keeps public globals, globals other ops refer to (not only global_load_const), and function
// declarations.

// CHECK: ml_program.global private mutable @state
// CHECK: ml_program.global public @exported
// CHECK-NOT: @unused
ml_program.global private mutable @state(dense<0.0> : tensor<4xf32>) : tensor<4xf32>
ml_program.global public @exported(#ml_program.extern : tensor<4xf32>) : tensor<4xf32>
ml_program.global private @unused(#ml_program.extern : tensor<4xf32>) : tensor<4xf32>

// CHECK: func.func private @declaration
func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>

// CHECK-LABEL: func.func @f
// CHECK-NEXT:    %[[S:.*]] = ml_program.global_load @state
// CHECK-NEXT:    return %[[S]]
func.func @f(%x: tensor<4x8xbf16>) -> tensor<4xf32> {
  %s = ml_program.global_load @state : tensor<4xf32>
  %t = "mla.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<4x8xbf16>) -> tensor<8x4xbf16>
  %v = tensor.collapse_shape %t [[0, 1]] : tensor<8x4xbf16> into tensor<32xbf16>
  return %s : tensor<4xf32>
}

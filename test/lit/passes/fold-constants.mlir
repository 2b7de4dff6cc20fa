// RUN: mla-opt %s --split-input-file --fold-constants | FileCheck %s
// RUN: mla-opt %s --split-input-file --fold-constants --cleanup | FileCheck %s --check-prefix=CLEAN

// fold-constants evaluates, once, each value computed from constants only that an op which is
// not constant reads, and replaces it by a new global holding it. mla-opt hands the pass the
// globals' initial values as the weights and the runtime's op evaluator (the API layer's
// wiring); the folded global gets its value as its initializer in the printed IR.

// A weight transposed to (in, out) for the matmul: w.T is computed here, at compile time.
// CHECK-LABEL: ml_program.global private @w.T(dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>) : tensor<3x2xf32>
// CHECK-LABEL: func.func @transposed_weight
// CHECK: %[[WT:.*]] = ml_program.global_load_const @w.T : tensor<3x2xf32>
// CHECK: "mla.matmul"(%arg0, %[[WT]])
// The transpose no one reads any more goes with cleanup, and the original weight with it.
// CLEAN-NOT: @w(
// CLEAN-LABEL: func.func @transposed_weight
// CLEAN-NOT: mla.transpose
// CLEAN: "mla.matmul"
ml_program.global private @w(dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
func.func @transposed_weight(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = ml_program.global_load_const @w : tensor<2x3xf32>
  %wt = "mla.transpose"(%w) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %y = "mla.matmul"(%x, %wt) : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// An extern weight has no value here (a compiled program binds it): nothing to evaluate, the
// IR is left as it is.
// CHECK-LABEL: func.func @extern_weight
// CHECK: %[[W:.*]] = ml_program.global_load_const @v
// CHECK: "mla.transpose"(%[[W]])
// CHECK-NOT: @v.T
ml_program.global private @v(#ml_program.extern : tensor<2x3xf32>) : tensor<2x3xf32>
func.func @extern_weight(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = ml_program.global_load_const @v : tensor<2x3xf32>
  %wt = "mla.transpose"(%w) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %y = "mla.matmul"(%x, %wt) : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// A cache the function makes itself (zeros padded to whole pages by a concat: what the PyTorch
// importer writes for a cache transformers allocates inside the graph) is written in place: it
// is state, computed at run time into a buffer of its own, not folded into a read-only global
// that every call would share.
// CHECK-LABEL: func.func @written_in_place
// CHECK-NOT: global_load_const
// CHECK: %[[PAD:.*]] = tensor.concat
// CHECK: %[[PAGED:.*]] = tensor.expand_shape %[[PAD]]
// CHECK: "mla.scatter_cache"(%[[PAGED]],
func.func @written_in_place(%slots: tensor<2x1xi64>, %rows: tensor<2x1x1x512xbf16>) -> tensor<2x16x1x512xbf16> {
  %z = arith.constant dense<0.0> : tensor<2x13x512xbf16>
  %pad = arith.constant dense<0.0> : tensor<2x3x512xbf16>
  %p = tensor.concat dim(1) %z, %pad : (tensor<2x13x512xbf16>, tensor<2x3x512xbf16>) -> tensor<2x16x512xbf16>
  %paged = tensor.expand_shape %p [[0], [1], [2, 3]] output_shape [2, 16, 1, 512] : tensor<2x16x512xbf16> into tensor<2x16x1x512xbf16>
  %c = "mla.scatter_cache"(%paged, %slots, %rows) : (tensor<2x16x1x512xbf16>, tensor<2x1xi64>, tensor<2x1x1x512xbf16>) -> tensor<2x16x1x512xbf16>
  return %c : tensor<2x16x1x512xbf16>
}

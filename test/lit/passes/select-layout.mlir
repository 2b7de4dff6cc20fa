// RUN: mla-opt %s --split-input-file --select-layout | FileCheck %s
// RUN: mla-opt %s --split-input-file --select-layout=matmul-nz=false | FileCheck %s --check-prefix=ND

// select-layout reads the constant weight of an unfused matmul as FRACTAL_NZ (an mla.format_cast
// that fold-constants packs once), unless matmul-nz=false.
// CHECK-LABEL: func.func @constant_weight
// CHECK: %[[W:.*]] = ml_program.global_load_const @w
// CHECK: %[[NZ:.*]] = "mla.format_cast"(%[[W]]) : (tensor<64x32xbf16>) -> tensor<64x32xbf16, #mla.format<"FRACTAL_NZ">>
// CHECK: "mla.matmul"(%arg0, %[[NZ]])
// ND-LABEL: func.func @constant_weight
// ND-NOT: mla.format_cast
// ND: "mla.matmul"(%arg0, %{{.*}}) : (tensor<4x64xbf16>, tensor<64x32xbf16>)
ml_program.global private @w(#ml_program.extern : tensor<64x32xbf16>) : tensor<64x32xbf16>
func.func @constant_weight(%x: tensor<4x64xbf16>) -> tensor<4x32xbf16> {
  %w = ml_program.global_load_const @w : tensor<64x32xbf16>
  %y = "mla.matmul"(%x, %w) : (tensor<4x64xbf16>, tensor<64x32xbf16>) -> tensor<4x32xbf16>
  return %y : tensor<4x32xbf16>
}

// -----

// A weight that is an argument is not a constant: it stays ND.
// CHECK-LABEL: func.func @argument_weight
// CHECK-NOT: mla.format_cast
// CHECK: "mla.matmul"(%arg0, %arg1)
func.func @argument_weight(%x: tensor<4x64xbf16>, %w: tensor<64x32xbf16>) -> tensor<4x32xbf16> {
  %y = "mla.matmul"(%x, %w) : (tensor<4x64xbf16>, tensor<64x32xbf16>) -> tensor<4x32xbf16>
  return %y : tensor<4x32xbf16>
}

// -----

// Casts that cancel disappear: ND -> NZ -> ND is the value itself, a cast to its own format too
// (the inner cast, read by no one now, is cleanup's).
// CHECK-LABEL: func.func @casts_that_cancel
// CHECK: return %arg0, %arg0
func.func @casts_that_cancel(%x: tensor<64x32xbf16>) -> (tensor<64x32xbf16>, tensor<64x32xbf16>) {
  %nz = "mla.format_cast"(%x) : (tensor<64x32xbf16>) -> tensor<64x32xbf16, #mla.format<"FRACTAL_NZ">>
  %nd = "mla.format_cast"(%nz) : (tensor<64x32xbf16, #mla.format<"FRACTAL_NZ">>) -> tensor<64x32xbf16>
  %same = "mla.format_cast"(%x) : (tensor<64x32xbf16>) -> tensor<64x32xbf16>
  return %nd, %same : tensor<64x32xbf16>, tensor<64x32xbf16>
}

// RUN: mla-opt %s | FileCheck %s
// Printing what mla-opt parsed and parsing it again gives the same IR.
// RUN: mla-opt %s | mla-opt | FileCheck %s
// Reading from stdin with `-`.
// RUN: cat %s | mla-opt - | FileCheck %s
// The generic form of every op.
// RUN: mla-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @norm
// CHECK-SAME: tensor<4x8xbf16, #mla.format<"FRACTAL_NZ">>
// CHECK: "mla.rms_norm"(%arg0, %arg1) {epsilon = 2.500000e-01 : f64}
// CHECK: return
// GENERIC: "func.func"()
// GENERIC: "mla.rms_norm"
// GENERIC: "func.return"
func.func @norm(%x: tensor<4x8xbf16, #mla.format<"FRACTAL_NZ">>, %g: tensor<8xbf16>) -> tensor<4x8xbf16, #mla.format<"FRACTAL_NZ">> {
  %0 = "mla.rms_norm"(%x, %g) {epsilon = 0.25 : f64} : (tensor<4x8xbf16, #mla.format<"FRACTAL_NZ">>, tensor<8xbf16>) -> tensor<4x8xbf16, #mla.format<"FRACTAL_NZ">>
  return %0 : tensor<4x8xbf16, #mla.format<"FRACTAL_NZ">>
}

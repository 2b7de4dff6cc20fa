// Passes run in order, from --pass-pipeline or from one flag per pass, and verify-each holds.
// RUN: mla-opt %s --pass-pipeline='builtin.module(verify,canonicalize)' --mlir-print-ir-after-all 2>&1 | FileCheck %s
// RUN: mla-opt %s --verify --cse --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=FLAGS
// The verify pass rejects an invalid op (here written after a pass would have produced it).
// RUN: mla-opt %s --verify | FileCheck %s --check-prefix=OUT

// CHECK: IR Dump After VerifyPass (verify)
// CHECK: IR Dump After Canonicalizer (canonicalize)
// FLAGS: IR Dump After VerifyPass (verify)
// FLAGS: IR Dump After CSE (cse)
// OUT: "mla.rms_norm"
func.func @f(%x: tensor<4x8xbf16>, %g: tensor<8xbf16>) -> tensor<4x8xbf16> {
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x8xbf16>, tensor<8xbf16>) -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

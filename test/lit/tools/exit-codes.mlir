// An invalid op: exit status 1, and the diagnostic names the real file, line and column.
// RUN: not mla-opt %s 2>&1 | FileCheck %s
// A file that does not exist is an error, not a traceback.
// RUN: not mla-opt %s.does-not-exist 2>&1 | FileCheck %s --check-prefix=NOFILE
// An unknown pass is an error, not a traceback.
// RUN: not mla-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=NOPASS
// Bad options of a registered pass too.
// RUN: not mla-opt %s --pass-pipeline='builtin.module(verify{bogus=1})' 2>&1 | FileCheck %s --check-prefix=BADOPT

// CHECK: exit-codes.mlir:[[# @LINE + 4]]:8: error: 'mla.rms_norm' op gamma: expected shape (8,) (the last dimension of x), got (3,) [RMS-003]
// CHECK-NOT: Traceback
// NOFILE: mla-opt: error: cannot read {{.*}}does-not-exist
func.func @f(%x: tensor<4x8xbf16>, %g: tensor<3xbf16>) {
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x8xbf16>, tensor<3xbf16>) -> tensor<4x8xbf16>
  return
}
// NOPASS: error
// NOPASS-NOT: Traceback
// BADOPT: mla-opt: error: pass verify: unknown option(s) ['bogus']

// mla-run executes a function (lowered, on the CPU backend) with seeded random inputs, and saves the
// outputs; the same seed gives the same outputs.
// RUN: mla-run %s --seed 3 -o %t.a.npz | FileCheck %s
// RUN: mla-run %s --seed 3 -o %t.b.npz
// RUN: %python -c "import numpy as np, sys; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); sys.exit(0 if (a['out0'].view('u2') == b['out0'].view('u2')).all() else 1)" %t.a.npz %t.b.npz
// Inputs from an .npz round-trip: feeding the saved output back in as x works.
// RUN: %python -c "import numpy as np, sys; o = np.load(sys.argv[1])['out0']; np.savez(sys.argv[2], o, np.ones(64, o.dtype))" %t.a.npz %t.in.npz
// RUN: mla-run %s --inputs %t.in.npz | FileCheck %s
// Errors are diagnostics, not tracebacks.
// RUN: not mla-run %s --function nope 2>&1 | FileCheck %s --check-prefix=NOFN

// CHECK: output 0: (2, 64) bfloat16
// NOFN: mla-run: error: no function @nope in the module
func.func @norm(%x: tensor<2x64xbf16>, %g: tensor<64xbf16>) -> tensor<2x64xbf16> {
  %0 = "mla.rms_norm"(%x, %g) : (tensor<2x64xbf16>, tensor<64xbf16>) -> tensor<2x64xbf16>
  return %0 : tensor<2x64xbf16>
}

// The prolog with its weights given in the 4-D FRACTAL_NZ storage form (the aclnnMlaProlog
// example): random inputs are the physical fractal data, and the executor accepts them.
// RUN: mla-run %S/../dialect/prolog.mlir --function nq_c1 | FileCheck %s --check-prefix=C1
// C1: output 0: (8, 1, 32, 512) bfloat16
// C1: output 3: (16, 128, 1, 64) bfloat16

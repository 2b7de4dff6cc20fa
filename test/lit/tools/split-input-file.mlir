// RUN: mla-opt %s --split-input-file | FileCheck %s
// Without the flag the whole file is one module: the second @f is a redefinition.
// RUN: not mla-opt %s 2>&1 | FileCheck %s --check-prefix=WHOLE

// CHECK: func.func @f(%arg0: tensor<2x16xf32>)
// CHECK: // -----
// CHECK: func.func @f(%arg0: tensor<3x16xf32>)
func.func @f(%x: tensor<2x16xf32>) {
  return
}

// -----

// WHOLE: split-input-file.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: redefinition of symbol named 'f'
func.func @f(%x: tensor<3x16xf32>) {
  return
}

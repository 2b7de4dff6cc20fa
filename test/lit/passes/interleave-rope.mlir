// RUN: mla-opt %s --split-input-file --interleave-rope | FileCheck %s

// The query: per head (2 heads of 12 columns) the last 4 are rotated with rotate-half. The
// weight's rope columns of each head are interleaved ([a0 a1 b0 b1] -> [a0 b0 a1 b1]: a
// (2, 2) transpose), the nope columns stay, and the RoPE becomes the interleaved one.
// CHECK-LABEL: func.func @query
// CHECK: %[[W:.*]] = ml_program.global_load_const @w
// CHECK-NEXT: %[[G:.*]] = tensor.expand_shape %[[W]] {{\[}}[0], [1, 2]] output_shape [16, 2, 12]
// CHECK-NEXT: %[[NOPE:.*]] = tensor.extract_slice %[[G]][0, 0, 0] [16, 2, 8] [1, 1, 1]
// CHECK-NEXT: %[[PE:.*]] = tensor.extract_slice %[[G]][0, 0, 8] [16, 2, 4] [1, 1, 1]
// CHECK-NEXT: %[[AB:.*]] = tensor.expand_shape %[[PE]] {{\[}}[0], [1], [2, 3]] output_shape [16, 2, 2, 2]
// CHECK-NEXT: %[[T:.*]] = "mla.transpose"(%[[AB]]) {permutation = array<i64: 0, 1, 3, 2>}
// CHECK-NEXT: %[[PAIRS:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0], [1], [2, 3]]
// CHECK-NEXT: %[[CAT:.*]] = tensor.concat dim(2) %[[NOPE]], %[[PAIRS]]
// CHECK-NEXT: %[[W2:.*]] = tensor.collapse_shape %[[CAT]] {{\[}}[0], [1, 2]] : tensor<16x2x12xbf16> into tensor<16x24xbf16>
// CHECK-NEXT: "mla.matmul"(%arg0, %[[W2]])
// CHECK: %[[Y:.*]] = "mla.rope"(%{{.*}}, %arg1, %arg2) : (tensor<2x2x4xbf16>
// CHECK-NOT: mode
// CHECK: return %{{.*}}, %[[Y]]
ml_program.global private @w(#ml_program.extern : tensor<16x24xbf16>) : tensor<16x24xbf16>
func.func @query(%x: tensor<2x16xbf16>, %cos: tensor<2x1x4xbf16>, %sin: tensor<2x1x4xbf16>) -> (tensor<2x2x8xbf16>, tensor<2x2x4xbf16>) {
  %w = ml_program.global_load_const @w : tensor<16x24xbf16>
  %q = "mla.matmul"(%x, %w) : (tensor<2x16xbf16>, tensor<16x24xbf16>) -> tensor<2x24xbf16>
  %heads = tensor.expand_shape %q [[0], [1, 2]] output_shape [2, 2, 12] : tensor<2x24xbf16> into tensor<2x2x12xbf16>
  %nope = tensor.extract_slice %heads[0, 0, 0] [2, 2, 8] [1, 1, 1] : tensor<2x2x12xbf16> to tensor<2x2x8xbf16>
  %pe = tensor.extract_slice %heads[0, 0, 8] [2, 2, 4] [1, 1, 1] : tensor<2x2x12xbf16> to tensor<2x2x4xbf16>
  %y = "mla.rope"(%pe, %cos, %sin) {mode = "half"} : (tensor<2x2x4xbf16>, tensor<2x1x4xbf16>, tensor<2x1x4xbf16>) -> tensor<2x2x4xbf16>
  return %nope, %y : tensor<2x2x8xbf16>, tensor<2x2x4xbf16>
}

// -----

// The key (one group): an int8 projection's per-channel scale is reordered with its weight.
// CHECK-LABEL: func.func @key
// CHECK-COUNT-2: "mla.transpose"
// CHECK: "mla.quant_matmul"
// CHECK: "mla.rope"(%{{.*}}, %arg2, %arg3) : (tensor<2x4xf32>
ml_program.global private @w(#ml_program.extern : tensor<16x12xi8>) : tensor<16x12xi8>
ml_program.global private @s(#ml_program.extern : tensor<12xf32>) : tensor<12xf32>
func.func @key(%x: tensor<2x16xi8>, %xs: tensor<2xf32>, %cos: tensor<2x4xbf16>, %sin: tensor<2x4xbf16>) -> (tensor<2x8xf32>, tensor<2x4xbf16>) {
  %w = ml_program.global_load_const @w : tensor<16x12xi8>
  %s = ml_program.global_load_const @s : tensor<12xf32>
  %kv = "mla.quant_matmul"(%x, %w, %xs, %s) : (tensor<2x16xi8>, tensor<16x12xi8>, tensor<2xf32>, tensor<12xf32>) -> tensor<2x12xf32>
  %c = tensor.extract_slice %kv[0, 0] [2, 8] [1, 1] : tensor<2x12xf32> to tensor<2x8xf32>
  %pe = tensor.extract_slice %kv[0, 8] [2, 4] [1, 1] : tensor<2x12xf32> to tensor<2x4xf32>
  %y = "mla.rope"(%pe, %cos, %sin) {mode = "half"} : (tensor<2x4xf32>, tensor<2x4xbf16>, tensor<2x4xbf16>) -> tensor<2x4xbf16>
  return %c, %y : tensor<2x8xf32>, tensor<2x4xbf16>
}

// -----

// A weight that is not a constant cannot be reordered at compile time: unchanged.
// CHECK-LABEL: func.func @runtime_weight
// CHECK-NOT: mla.transpose
// CHECK: "mla.rope"(%{{.*}}) {mode = "half"}
func.func @runtime_weight(%x: tensor<2x16xbf16>, %w: tensor<16x4xbf16>, %cos: tensor<2x4xbf16>, %sin: tensor<2x4xbf16>) -> tensor<2x4xbf16> {
  %k = "mla.matmul"(%x, %w) : (tensor<2x16xbf16>, tensor<16x4xbf16>) -> tensor<2x4xbf16>
  %pe = tensor.extract_slice %k[0, 0] [2, 4] [1, 1] : tensor<2x4xbf16> to tensor<2x4xbf16>
  %y = "mla.rope"(%pe, %cos, %sin) {mode = "half"} : (tensor<2x4xbf16>, tensor<2x4xbf16>, tensor<2x4xbf16>) -> tensor<2x4xbf16>
  return %y : tensor<2x4xbf16>
}

// -----

// Another reader of the rope columns (the whole product is returned) would see them moved:
// unchanged.
// CHECK-LABEL: func.func @shared_columns
// CHECK-NOT: mla.transpose
// CHECK: "mla.rope"(%{{.*}}) {mode = "half"}
ml_program.global private @w(#ml_program.extern : tensor<16x12xbf16>) : tensor<16x12xbf16>
func.func @shared_columns(%x: tensor<2x16xbf16>, %cos: tensor<2x4xbf16>, %sin: tensor<2x4xbf16>) -> (tensor<2x12xbf16>, tensor<2x4xbf16>) {
  %w = ml_program.global_load_const @w : tensor<16x12xbf16>
  %kv = "mla.matmul"(%x, %w) : (tensor<2x16xbf16>, tensor<16x12xbf16>) -> tensor<2x12xbf16>
  %pe = tensor.extract_slice %kv[0, 8] [2, 4] [1, 1] : tensor<2x12xbf16> to tensor<2x4xbf16>
  %y = "mla.rope"(%pe, %cos, %sin) {mode = "half"} : (tensor<2x4xbf16>, tensor<2x4xbf16>, tensor<2x4xbf16>) -> tensor<2x4xbf16>
  return %kv, %y : tensor<2x12xbf16>, tensor<2x4xbf16>
}

// RUN: mla-opt %s --absorb-kv --cleanup | FileCheck %s

// absorb-kv: naive MLA attention (Hugging Face DeepseekV3Attention: k_nope and v per token and
// head from kv_b_proj, keys = [k_nope, k_rope over the heads], a per-head K/V cache) over K/V
// caches that are the module's own buffers (mla.buffer) -> the absorbed form over two latent
// caches the program owns (new arguments marked mla.state): the latent and rope rows stored at
// the same slots, query = q_nope @ W_uk, attention with the rope part, output @ W_uv. W_uk and
// W_uv are slices of the transposed kv_b_proj weight (constants). The K/V caches are no longer
// written: the function returns them as they came. Small sizes: N = 2, D = Dv = 4, Dr = 2,
// Hckv = 8, B = 2, L = 16 (one block of 16 per batch row).
// CHECK-LABEL: func.func @naive
// CHECK-SAME: %arg8: tensor<2x16x1x8xbf16> {mla.name = "layers.0.self_attn.kv_latent", mla.state}
// CHECK-SAME: %arg9: tensor<2x16x1x2xbf16> {mla.name = "layers.0.self_attn.kr_latent", mla.state}
// CHECK-NOT: tensor.concat
// CHECK:     %[[KV:.*]] = "mla.scatter_cache"(%arg8, %arg6, %arg2)
// CHECK:     %[[KR:.*]] = "mla.scatter_cache"(%arg9, %arg6, %arg3)
// CHECK:     %[[W:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xbf16> into tensor<8x2x8xbf16>
// CHECK:     %[[WK:.*]] = tensor.extract_slice %[[W]][0, 0, 0] [8, 2, 4] [1, 1, 1]
// CHECK:     %[[WUK:.*]] = "mla.transpose"(%[[WK]]) {permutation = array<i64: 1, 2, 0>} : (tensor<8x2x4xbf16>) -> tensor<2x4x8xbf16>
// CHECK:     %[[WV:.*]] = tensor.extract_slice %[[W]][0, 0, 4] [8, 2, 4] [1, 1, 1]
// CHECK:     %[[WUV:.*]] = "mla.transpose"(%[[WV]]) {permutation = array<i64: 1, 0, 2>} : (tensor<8x2x4xbf16>) -> tensor<2x8x4xbf16>
// CHECK:     %[[Q:.*]] = "mla.head_matmul"(%arg4, %[[WUK]]) : (tensor<2x1x2x4xbf16>, tensor<2x4x8xbf16>) -> tensor<2x1x2x8xbf16>
// CHECK:     %[[T:.*]] = arith.constant dense<{{\[\[}}0], [1]]> : tensor<2x1xi32>
// CHECK:     %[[L:.*]] = "mla.paged_attention"(%[[Q]], %[[KV]], %[[KV]], %[[T]], %arg7, %arg5, %[[KR]])
// CHECK-SAME: scale_value = 5.000000e-01
// CHECK:     %[[O:.*]] = "mla.head_matmul"(%[[L]], %[[WUV]]) : (tensor<2x1x2x8xbf16>, tensor<2x8x4xbf16>) -> tensor<2x1x2x4xbf16>
// CHECK-NOT: mla.matmul
// CHECK:     return %arg0, %arg1, %[[O]]
ml_program.global private @"kv_b_proj.weight"(#ml_program.extern : tensor<16x8xbf16>) : tensor<16x8xbf16>
func.func @naive(
    %k_cache: tensor<2x16x2x6xbf16> {mla.buffer, mla.name = "layers.0.self_attn.k_cache"},
    %v_cache: tensor<2x16x2x4xbf16> {mla.buffer, mla.name = "layers.0.self_attn.v_cache"},
    %c_kv: tensor<2x1x8xbf16> {mla.name = "c_kv"},
    %k_rope: tensor<2x1x2xbf16> {mla.name = "k_rope"},
    %q_nope: tensor<2x1x2x4xbf16> {mla.name = "q_nope"},
    %q_rope: tensor<2x1x2x2xbf16> {mla.name = "q_rope"},
    %rows: tensor<2xi64> {mla.name = "cache_rows"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"})
    -> (tensor<2x16x2x6xbf16>, tensor<2x16x2x4xbf16>, tensor<2x1x2x4xbf16>) {
  %w = ml_program.global_load_const @"kv_b_proj.weight" : tensor<16x8xbf16>
  %wt = "mla.transpose"(%w) {permutation = array<i64: 1, 0>} : (tensor<16x8xbf16>) -> tensor<8x16xbf16>
  %kv = "mla.matmul"(%c_kv, %wt) : (tensor<2x1x8xbf16>, tensor<8x16xbf16>) -> tensor<2x1x16xbf16>
  %heads = tensor.expand_shape %kv [[0], [1], [2, 3]] output_shape [2, 1, 2, 8] : tensor<2x1x16xbf16> into tensor<2x1x2x8xbf16>
  %k_nope = tensor.extract_slice %heads[0, 0, 0, 0] [2, 1, 2, 4] [1, 1, 1, 1] : tensor<2x1x2x8xbf16> to tensor<2x1x2x4xbf16>
  %v = tensor.extract_slice %heads[0, 0, 0, 4] [2, 1, 2, 4] [1, 1, 1, 1] : tensor<2x1x2x8xbf16> to tensor<2x1x2x4xbf16>
  %k_rope1 = tensor.expand_shape %k_rope [[0], [1], [2, 3]] output_shape [2, 1, 1, 2] : tensor<2x1x2xbf16> into tensor<2x1x1x2xbf16>
  %k_rope_heads = tensor.concat dim(2) %k_rope1, %k_rope1 : (tensor<2x1x1x2xbf16>, tensor<2x1x1x2xbf16>) -> tensor<2x1x2x2xbf16>
  %key = tensor.concat dim(3) %k_nope, %k_rope_heads : (tensor<2x1x2x4xbf16>, tensor<2x1x2x2xbf16>) -> tensor<2x1x2x6xbf16>
  %query = tensor.concat dim(3) %q_nope, %q_rope : (tensor<2x1x2x4xbf16>, tensor<2x1x2x2xbf16>) -> tensor<2x1x2x6xbf16>
  %key_rows = tensor.collapse_shape %key [[0, 1], [2], [3]] : tensor<2x1x2x6xbf16> into tensor<2x2x6xbf16>
  %k_store = "mla.scatter_cache"(%k_cache, %rows, %key_rows) : (tensor<2x16x2x6xbf16>, tensor<2xi64>, tensor<2x2x6xbf16>) -> tensor<2x16x2x6xbf16>
  %v_rows = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x1x2x4xbf16> into tensor<2x2x4xbf16>
  %v_store = "mla.scatter_cache"(%v_cache, %rows, %v_rows) : (tensor<2x16x2x4xbf16>, tensor<2xi64>, tensor<2x2x4xbf16>) -> tensor<2x16x2x4xbf16>
  %table = arith.constant dense<[[0], [1]]> : tensor<2x1xi32>
  %o = "mla.paged_attention"(%query, %k_store, %v_store, %table, %seq_lengths) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>, scale_value = 0.5 : f64} : (tensor<2x1x2x6xbf16>, tensor<2x16x2x6xbf16>, tensor<2x16x2x4xbf16>, tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x1x2x4xbf16>
  return %k_store, %v_store, %o : tensor<2x16x2x6xbf16>, tensor<2x16x2x4xbf16>, tensor<2x1x2x4xbf16>
}

// RUN: mla-opt %s | FileCheck %s
// RUN: mla-opt %s --lower-to-aclnn | FileCheck %s --check-prefix=LOWER
// RUN: mla-translate --emit-cpp %s --function kv_decode | FileCheck %s --check-prefix=CPP
// RUN: mla-translate --emit-cpp %s --function v_up_proj | FileCheck %s --check-prefix=CPPB
// The serving primitives (dialect/primitive/cache.py, matmul.py) with vLLM-Ascend's DeepSeek-V3 tp-16 decode shapes
// (N = 8, batch 16, block 128), their aclnn calls and their C++.

// The kv path: kv_a_proj_with_mqa's (16, 576) viewed (B, 1, S, 576), written into the PA caches.
// CHECK-LABEL: func.func @kv_decode
// CHECK: "mla.kv_rmsnorm_rope_cache"
// LOWER-LABEL: func.func @kv_decode
// LOWER: callee = "aclnnKvRmsNormRopeCacheGetWorkspaceSize"
// LOWER: callee = "aclnnKvRmsNormRopeCache"
// LOWER: return %arg5, %arg6
// CPP: aclnnKvRmsNormRopeCacheGetWorkspaceSize(
// CPP: aclnnKvRmsNormRopeCache(
func.func @kv_decode(%kv: tensor<16x1x1x576xbf16>, %gamma: tensor<512xbf16>, %cos: tensor<16x1x1x64xbf16>, %sin: tensor<16x1x1x64xbf16>, %index: tensor<16xi64>, %k_cache: tensor<40x128x1x64xbf16>, %ckv_cache: tensor<40x128x1x512xbf16>) -> (tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>) {
  %k, %ckv, %k_embed, %y = "mla.kv_rmsnorm_rope_cache"(%kv, %gamma, %cos, %sin, %index, %k_cache, %ckv_cache) {cache_mode = "PA", epsilon = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<16x1x1x576xbf16>, tensor<512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>) -> (tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return %k, %ckv : tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>
}


// The A5 W8A8C8 form: an int8 latent cache in PA_NZ with its per-channel scale, the rope cache bf16.
// CHECK-LABEL: func.func @kv_decode_int8_nz
// LOWER-LABEL: func.func @kv_decode_int8_nz
// LOWER: callee = "aclnnKvRmsNormRopeCache"
func.func @kv_decode_int8_nz(%kv: tensor<16x1x1x576xbf16>, %gamma: tensor<512xbf16>, %cos: tensor<16x1x1x64xbf16>, %sin: tensor<16x1x1x64xbf16>, %index: tensor<16xi64>, %k_cache: tensor<40x128x1x64xbf16>, %ckv_cache: tensor<40x128x1x512xi8>, %scale: tensor<512xf32>) -> (tensor<40x128x1x64xbf16>, tensor<40x128x1x512xi8>) {
  %k, %ckv, %k_embed, %y = "mla.kv_rmsnorm_rope_cache"(%kv, %gamma, %cos, %sin, %index, %k_cache, %ckv_cache, %scale) {cache_mode = "PA_NZ", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0>} : (tensor<16x1x1x576xbf16>, tensor<512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<40x128x1x64xbf16>, tensor<40x128x1x512xi8>, tensor<512xf32>) -> (tensor<40x128x1x64xbf16>, tensor<40x128x1x512xi8>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return %k, %ckv : tensor<40x128x1x64xbf16>, tensor<40x128x1x512xi8>
}


// W_uv: the attention output (N, B, 512) times W_uv (N, 512, 128) -> (B, N, 128).
// CHECK-LABEL: func.func @v_up_proj
// CHECK: "mla.transpose_batchmatmul"
// LOWER-LABEL: func.func @v_up_proj
// LOWER: callee = "aclnnTransposeBatchMatMulGetWorkspaceSize"
// CPPB: aclnnTransposeBatchMatMulGetWorkspaceSize(
// CPPB: aclnnTransposeBatchMatMul(
func.func @v_up_proj(%x: tensor<8x16x512xbf16>, %w: tensor<8x512x128xbf16>) -> tensor<16x8x128xbf16> {
  %y = "mla.transpose_batchmatmul"(%x, %w) {perm_y = array<i64: 1, 0, 2>} : (tensor<8x16x512xbf16>, tensor<8x512x128xbf16>) -> tensor<16x8x128xbf16>
  return %y : tensor<16x8x128xbf16>
}

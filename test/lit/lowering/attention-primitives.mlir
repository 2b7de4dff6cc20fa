// lower-to-aclnn of the attention primitives: aclnnFusedInferAttentionScoreV4, the call of
// torch_npu.npu_fused_infer_attention_score_v2 (evidence in lowering/attention.py).
// RUN: mla-opt %s --split-input-file --lower-to-aclnn | FileCheck %s

// MLA decode over one latent cache: FIA V4, the cache as key and value (4-D, as the MLA layout
// takes it), the kv lengths read on the host at run time, no mask (one query row).
// CHECK-LABEL: func.func @paged_mla
// CHECK:      %[[OUT:.*]] = "aclnn.alloc"() : () -> tensor<2x1x8x512xbf16>
// CHECK:      %[[LENGTHS:.*]] = "aclnn.read_int_array"(%arg3) : (tensor<2xi64>) -> !aclnn.int_array
// CHECK:      %[[NULL:.*]] = "aclnn.null"()
// CHECK:      %[[K:.*]] = "aclnn.create_tensor_list"(%arg1)
// CHECK:      %[[V:.*]] = "aclnn.create_tensor_list"(%arg1)
// CHECK:      %[[HEADS:.*]] = arith.constant 8 : i64
// CHECK:      %[[SCALE:.*]] = arith.constant 1.250000e-01 : f64
// CHECK:      %[[BSND:.*]] = "aclnn.string"() {value = "BSND"}
// CHECK:      %[[NKV:.*]] = arith.constant 1 : i64
// CHECK:      %[[SPARSE:.*]] = arith.constant 0 : i64
// CHECK:      "aclnn.fused_infer_attention_score_v4_get_workspace_size"(%arg0, %[[K]], %[[V]], %[[NULL]], %[[NULL]], %[[NULL]], %[[LENGTHS]],
// CHECK-SAME:   %arg2, {{.*}} %arg4, %arg5, %[[NULL]], %[[NULL]], %[[HEADS]], %[[SCALE]], {{.*}} %[[BSND]], %[[NKV]], %[[SPARSE]], {{.*}} %[[OUT]], %[[NULL]]) {callee = "aclnnFusedInferAttentionScoreV4GetWorkspaceSize"}
// CHECK:      "aclnn.launch"({{.*}}) {callee = "aclnnFusedInferAttentionScoreV4"}
func.func @paged_mla(%q: tensor<2x1x8x512xbf16>, %kv: tensor<5x16x1x512xbf16>, %table: tensor<2x2xi32>, %lengths: tensor<2xi64>, %qr: tensor<2x1x8x64xbf16>, %kr: tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16> {
  %o = "mla.paged_attention"(%q, %kv, %kv, %table, %lengths, %qr, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>, scale_value = 0.125 : f64} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  return %o : tensor<2x1x8x512xbf16>
}

// -----

// PA_NZ caches as the FRACTAL_NZ views of their bytes; three query rows: sparse_mode 3 with the
// 2048 x 2048 causal template (aclnnInplaceOne, aclnnTriu).
// CHECK-LABEL: func.func @paged_mla_nz_causal
// CHECK:      %[[KV:.*]] = "aclnn.view"(%arg1) {{.*}} -> tensor<5x16x512xbf16, #mla.format<"FRACTAL_NZ">>
// CHECK:      %[[ONES:.*]] = "aclnn.alloc"() : () -> tensor<2048x2048xi8>
// CHECK:      %[[MASK:.*]] = "aclnn.alloc"() : () -> tensor<2048x2048xi8>
// CHECK:      "aclnn.inplace_one_get_workspace_size"(%[[ONES]])
// CHECK:      "aclnn.triu_get_workspace_size"(%[[ONES]], %{{.*}}, %[[MASK]])
// CHECK:      %[[KR:.*]] = "aclnn.view"(%arg5) {{.*}} -> tensor<5x16x64xbf16, #mla.format<"FRACTAL_NZ">>
// CHECK:      %[[K:.*]] = "aclnn.create_tensor_list"(%[[KV]])
// CHECK:      %[[CAUSAL:.*]] = arith.constant 3 : i64
// CHECK:      "aclnn.fused_infer_attention_score_v4_get_workspace_size"(%arg0, %[[K]], %{{.*}}, %{{.*}}, %[[MASK]], {{.*}} %arg4, %[[KR]], {{.*}} %[[CAUSAL]], {{.*}}) {callee = "aclnnFusedInferAttentionScoreV4GetWorkspaceSize"}
func.func @paged_mla_nz_causal(%q: tensor<2x3x8x512xbf16>, %kv: tensor<5x16x1x512xbf16>, %table: tensor<2x2xi32>, %lengths: tensor<2xi32>, %qr: tensor<2x3x8x64xbf16>, %kr: tensor<5x16x1x64xbf16>) -> tensor<2x3x8x512xbf16> {
  %o = "mla.paged_attention"(%q, %kv, %kv, %table, %lengths, %qr, %kr) {cache_mode = "PA_NZ", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>, scale_value = 0.125 : f64} : (tensor<2x3x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi32>, tensor<2x3x8x64xbf16>, tensor<5x16x1x64xbf16>) -> tensor<2x3x8x512xbf16>
  return %o : tensor<2x3x8x512xbf16>
}

// -----

// GQA paged attention without a rope part: caches as (BlockNum, BlockSize, Nkv*D).
// CHECK-LABEL: func.func @paged_gqa
// CHECK:      %[[K:.*]] = "aclnn.view"(%arg1) {{.*}} -> tensor<6x16x256xf16>
// CHECK:      %[[V:.*]] = "aclnn.view"(%arg2) {{.*}} -> tensor<6x16x256xf16>
// CHECK:      %[[NKV:.*]] = arith.constant 2 : i64
// CHECK:      "aclnn.fused_infer_attention_score_v4_get_workspace_size"({{.*}} %[[NKV]], {{.*}}) {callee = "aclnnFusedInferAttentionScoreV4GetWorkspaceSize"}
func.func @paged_gqa(%q: tensor<2x1x8x128xf16>, %k: tensor<6x16x2x128xf16>, %v: tensor<6x16x2x128xf16>, %table: tensor<2x3xi32>, %lengths: tensor<2xi64>) -> tensor<2x1x8x128xf16> {
  %o = "mla.paged_attention"(%q, %k, %v, %table, %lengths) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<2x1x8x128xf16>, tensor<6x16x2x128xf16>, tensor<6x16x2x128xf16>, tensor<2x3xi32>, tensor<2xi64>) -> tensor<2x1x8x128xf16>
  return %o : tensor<2x1x8x128xf16>
}

// -----

// int8 query and caches: dequantScaleQuery with queryQuantMode 3, the kv scale as key and value
// antiquant scales; not the documented full-quant form (the primitive's scales, ND caches and
// numerics), so the call carries mla.numerics: the CPU runs it, the NPU backend refuses it.
// CHECK-LABEL: func.func @paged_mla_int8
// CHECK:      %[[MODE3:.*]] = arith.constant 3 : i64
// CHECK:      "aclnn.fused_infer_attention_score_v4_get_workspace_size"(%arg0, {{.*}}, %arg2, {{.*}}, %arg7, %{{.*}}, %arg7, {{.*}}, %arg4, %arg5, %{{.*}}, %arg6, {{.*}}, %[[MODE3]], %{{.*}}, %{{.*}}) {callee = "aclnnFusedInferAttentionScoreV4GetWorkspaceSize", mla.numerics = "mla.paged_attention"}
func.func @paged_mla_int8(%q: tensor<2x1x8x512xi8>, %kv: tensor<5x16x1x512xi8>, %table: tensor<2x2xi32>, %lengths: tensor<2xi64>, %qr: tensor<2x1x8x64xbf16>, %kr: tensor<5x16x1x64xbf16>, %qs: tensor<2x1x8x1xf32>, %ks: tensor<1x1xf32>) -> tensor<2x1x8x512xbf16> {
  %o = "mla.paged_attention"(%q, %kv, %kv, %table, %lengths, %qr, %kr, %qs, %ks) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>, scale_value = 0.125 : f64} : (tensor<2x1x8x512xi8>, tensor<5x16x1x512xi8>, tensor<5x16x1x512xi8>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>, tensor<2x1x8x1xf32>, tensor<1x1xf32>) -> tensor<2x1x8x512xbf16>
  return %o : tensor<2x1x8x512xbf16>
}

// -----

// Dense causal attention: key/value as they are, sparse_mode 3 with the template.
// CHECK-LABEL: func.func @dense_causal
// CHECK:      "aclnn.triu_get_workspace_size"
// CHECK:      %[[K:.*]] = "aclnn.create_tensor_list"(%arg1) : (tensor<2x7x2x64xbf16>)
// CHECK:      "aclnn.fused_infer_attention_score_v4_get_workspace_size"(%arg0, %[[K]], {{.*}}) {callee = "aclnnFusedInferAttentionScoreV4GetWorkspaceSize"}
func.func @dense_causal(%q: tensor<2x5x8x64xbf16>, %k: tensor<2x7x2x64xbf16>, %v: tensor<2x7x2x64xbf16>) -> tensor<2x5x8x64xbf16> {
  %o = "mla.attention"(%q, %k, %v) {causal = true, operandSegmentSizes = array<i32: 1, 1, 1, 0>, scale_value = 0.125 : f64} : (tensor<2x5x8x64xbf16>, tensor<2x7x2x64xbf16>, tensor<2x7x2x64xbf16>) -> tensor<2x5x8x64xbf16>
  return %o : tensor<2x5x8x64xbf16>
}

// -----

// A mask and causal: one mask, atten_mask OR triu(ones(5, 7), 7 - 5 + 1), sparse_mode 0.
// CHECK-LABEL: func.func @dense_masked_causal
// CHECK:      %[[ONES:.*]] = "aclnn.alloc"() : () -> tensor<5x7xi8>
// CHECK:      %[[CAUSAL:.*]] = "aclnn.alloc"() : () -> tensor<5x7xi8>
// CHECK:      %[[BOTH:.*]] = "aclnn.alloc"() : () -> tensor<5x7xi8>
// CHECK:      %[[DIAGONAL:.*]] = arith.constant 3 : i64
// CHECK:      "aclnn.triu_get_workspace_size"(%[[ONES]], %[[DIAGONAL]], %[[CAUSAL]])
// CHECK:      "aclnn.logical_or_get_workspace_size"(%arg3, %[[CAUSAL]], %[[BOTH]]) {callee = "aclnnLogicalOrGetWorkspaceSize"}
// CHECK:      "aclnn.fused_infer_attention_score_v4_get_workspace_size"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %[[BOTH]], {{.*}}) {callee = "aclnnFusedInferAttentionScoreV4GetWorkspaceSize"}
func.func @dense_masked_causal(%q: tensor<2x5x8x64xbf16>, %k: tensor<2x7x2x64xbf16>, %v: tensor<2x7x2x64xbf16>, %m: tensor<5x7xi8>) -> tensor<2x5x8x64xbf16> {
  %o = "mla.attention"(%q, %k, %v, %m) {causal = true, operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<2x5x8x64xbf16>, tensor<2x7x2x64xbf16>, tensor<2x7x2x64xbf16>, tensor<5x7xi8>) -> tensor<2x5x8x64xbf16>
  return %o : tensor<2x5x8x64xbf16>
}

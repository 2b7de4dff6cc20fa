// FusedInferAttentionScore: V2 as seed 004 documents; its MLA mode (query_rope/key_rope) is V3, the MLA full-quant mode
// (dequant_scale_query) V4; NsaCompressAttentionInfer as seed 003.
// RUN: mla-opt %S/../dialect/fia.mlir --split-input-file --lower-to-aclnn | FileCheck %s --check-prefix=FIA
// RUN: mla-opt %S/../dialect/mla-chain.mlir --split-input-file --lower-to-aclnn | FileCheck %s --check-prefix=MLA
// RUN: mla-opt %S/../dialect/nsa.mlir --split-input-file --lower-to-aclnn | FileCheck %s --check-prefix=NSA
// RUN: mla-opt %S/../dialect/fia.mlir --split-input-file --lower-to-aclnn | FileCheck %s --check-prefix=MLAQ

// FIA:      %[[K:.*]] = "aclnn.create_tensor_list"(%arg1) : (tensor<{{.*}}>) -> !aclnn.tensor_list
// FIA:      %[[V:.*]] = "aclnn.create_tensor_list"(%arg2)
// FIA:      %[[NULL:.*]] = "aclnn.null"()
// FIA:      %[[LAYOUT:.*]] = "aclnn.string"() {value = "BNSD"}
// FIA:      %[[OUT:.*]] = "aclnn.alloc"()
// FIA:      "aclnn.fused_infer_attention_score_v2_get_workspace_size"(%arg0, %[[K]], %[[V]], %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], {{.*}}, %[[LAYOUT]], {{.*}}, %[[OUT]], %[[NULL]]) {callee = "aclnnFusedInferAttentionScoreV2GetWorkspaceSize"}
// FIA:      "aclnn.launch"({{.*}}) {callee = "aclnnFusedInferAttentionScoreV2"}

// MLA-LABEL: func.func @pa_nz
// MLA:      %[[KV:.*]] = "aclnn.view"(%arg10) {offset = 0 : i64, strides = array<i64: 8192, 512, 1>} : (tensor<4x16x1x512xbf16>) -> tensor<4x16x512xbf16, #mla.format<"FRACTAL_NZ">>
// MLA:      %[[KR:.*]] = "aclnn.view"(%arg11)
// MLA:      "aclnn.create_tensor_list"(%[[KV]])
// MLA:      %[[LENS:.*]] = "aclnn.create_int_array"() {value = array<i64: 20, 9>} : () -> !aclnn.int_array
// MLA:      "aclnn.fused_infer_attention_score_v3_get_workspace_size"({{.*}}, %[[LENS]], {{.*}}, %[[KR]], {{.*}}) {callee = "aclnnFusedInferAttentionScoreV3GetWorkspaceSize"}
// MLA:      "aclnn.launch"({{.*}}) {callee = "aclnnFusedInferAttentionScoreV3"}

// NSA:      "aclnn.nsa_compress_attention_infer_get_workspace_size"(%arg0, %arg1, %arg2, %{{.*}}, %arg3, {{.*}}) {callee = "aclnnNsaCompressAttentionInferGetWorkspaceSize"}
// NSA-SAME:   !aclnn.cstring, i64, i64, tensor<{{.*}}>, tensor<{{.*}}xi32>) -> (i64, !aclnn.executor)
// NSA:      "aclnn.launch"({{.*}}) {callee = "aclnnNsaCompressAttentionInfer"}

// The MLA full-quant mode: V4 with dequantScaleQueryOptional (the op's (B, S, N) scale, after
// keyRopeAntiquantScaleOptional: nullptr) and queryQuantMode 3; key/value scales as the
// key/value antiquant scales.
// MLAQ-LABEL: func.func @mla_full_quant
// MLAQ:      %[[NULL:.*]] = "aclnn.null"()
// MLAQ:      %[[MODE:.*]] = arith.constant 3 : i64
// MLAQ:      "aclnn.fused_infer_attention_score_v4_get_workspace_size"(%arg0, {{.*}}, %arg2, %[[NULL]], %[[NULL]], %arg3, %[[NULL]], %arg4, %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %arg5, %arg6, %[[NULL]], %arg7, {{.*}}, %[[MODE]], %{{.*}}, %[[NULL]]) {callee = "aclnnFusedInferAttentionScoreV4GetWorkspaceSize"}
// MLAQ:      "aclnn.launch"({{.*}}) {callee = "aclnnFusedInferAttentionScoreV4"}

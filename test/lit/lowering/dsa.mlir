// The DSA ops lowered to their aclnn two-phase calls, in the documented argument order:
// tensors (absent optional ones nullptr), host parameters, outputs (the (0,) outputs torch_npu
// allocates: passed as they are for the indexer and the attention; nullptr for prolog V3's
// optional outputs the call does not produce), the caches by reference.
// RUN: mla-opt %S/../dialect/dsa.mlir --split-input-file --lower-to-aclnn | FileCheck %s
// RUN: mla-opt %S/../dialect/dsa.mlir --split-input-file --lower-to-aclnn | mla-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @li_vllm
// CHECK:      %[[TND:.*]] = "aclnn.string"() {value = "TND"}
// CHECK:      %[[PA:.*]] = "aclnn.string"() {value = "PA_BSND"}
// CHECK:      %[[K:.*]] = arith.constant 2048 : i64
// CHECK:      %[[IDX:.*]] = "aclnn.alloc"() : () -> tensor<4x1x2048xi32>
// CHECK:      %[[VAL:.*]] = "aclnn.alloc"() : () -> tensor<0xbf16>
// CHECK:      "aclnn.lightning_indexer_get_workspace_size"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %[[TND]], %[[PA]], %[[K]], %{{.*}}, %{{.*}}, %{{.*}}, %false, %[[IDX]], %[[VAL]]) {callee = "aclnnLightningIndexerGetWorkspaceSize"}
// CHECK:      "aclnn.launch"({{.*}}) {callee = "aclnnLightningIndexer"}
// CHECK:      return %[[IDX]]

// CHECK-LABEL: func.func @li_bsnd_values
// CHECK:      %[[NULL:.*]] = "aclnn.null"()
// CHECK:      "aclnn.lightning_indexer_get_workspace_size"(%arg0, %arg1, %arg2, %[[NULL]], %[[NULL]], %[[NULL]], {{.*}}, %true, %{{.*}}, %{{.*}}) {callee = "aclnnLightningIndexerGetWorkspaceSize"}

// CHECK-LABEL: func.func @li_dynamic
// CHECK:      "aclnn.alloc"() : () -> tensor<?x1x2048xi32>

// CHECK-LABEL: func.func @qli_vllm
// CHECK:      "aclnn.quant_lightning_indexer_get_workspace_size"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, {{.*}}) {callee = "aclnnQuantLightningIndexerGetWorkspaceSize"}
// CHECK-SAME: (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>, i64, i64, !aclnn.cstring, !aclnn.cstring, i64, i64, i64, i64, tensor<4x1x2048xi32>)
// CHECK:      "aclnn.launch"({{.*}}) {callee = "aclnnQuantLightningIndexer"}

// value is the key's very buffer; query_rope/key_rope after the lengths; no sinks: V1.
// CHECK-LABEL: func.func @sfa_vllm
// CHECK:      "aclnn.sparse_flash_attention_get_workspace_size"(%arg0, %arg1, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, {{.*}}) {callee = "aclnnSparseFlashAttentionGetWorkspaceSize"}
// CHECK-SAME: f64, i64, !aclnn.cstring, !aclnn.cstring, i64, i64, i64, i64, i1, tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
// CHECK:      "aclnn.launch"({{.*}}) {callee = "aclnnSparseFlashAttention"}

// CHECK-LABEL: func.func @sfa_bsnd_lse
// CHECK:      "aclnn.sparse_flash_attention_get_workspace_size"(%arg0, %arg1, %arg1, %arg2, %[[NULL:[0-9]+]], %[[NULL]], %[[NULL]], %arg3, %arg4,
// CHECK-SAME: tensor<2x3x16x512xf16>, tensor<2x1x3x16xf32>, tensor<2x1x3x16xf32>)

// sinks: aclnnSparseFlashAttentionV2, sinksOptional after keyRopeOptional.
// CHECK-LABEL: func.func @sfa_sinks_950
// CHECK:      "aclnn.sparse_flash_attention_v2_get_workspace_size"(%arg0, %arg1, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, {{.*}}) {callee = "aclnnSparseFlashAttentionV2GetWorkspaceSize"}
// CHECK:      "aclnn.launch"({{.*}}) {callee = "aclnnSparseFlashAttentionV2"}

// CHECK-LABEL: func.func @kqsfa_vllm
// CHECK:      %[[NULL:.*]] = "aclnn.null"()
// CHECK:      "aclnn.kv_quant_sparse_flash_attention_get_workspace_size"(%arg0, %arg1, %arg1, %arg2, %[[NULL]], %[[NULL]], %arg3, %arg4, %arg5, {{.*}}) {callee = "aclnnKvQuantSparseFlashAttentionGetWorkspaceSize"}
// CHECK-SAME: f64, i64, i64, i64, !aclnn.cstring, !aclnn.cstring, i64, i64, i64, i64, i64, i64, i64, tensor<4x64x512xbf16>)

// query_norm requested: queryNormOutOptional is a buffer, the two scales nullptr.
// CHECK-LABEL: func.func @pv3_query_norm
// CHECK:      %[[NULL:.*]] = "aclnn.null"()
// CHECK:      %[[QN:.*]] = "aclnn.alloc"() : () -> tensor<4x1536xbf16>
// CHECK:      "aclnn.mla_prolog_v3_weight_nz_get_workspace_size"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], {{.*}}, %{{.*}}, %{{.*}}, %[[NULL]], %[[QN]], %[[NULL]]) {callee = "aclnnMlaPrologV3WeightNzGetWorkspaceSize"}
// CHECK:      "aclnn.launch"({{.*}}) {callee = "aclnnMlaPrologV3WeightNz"}
// CHECK:      return %[[QN]]

// The packed cache: dequantScaleWUqQr and kNopeClipAlpha given, the int8 query_norm and its scale.
// CHECK-LABEL: func.func @pv3_c8
// CHECK:      "aclnn.mla_prolog_v3_weight_nz_get_workspace_size"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %[[NULL:[0-9]+]], %[[NULL]], %arg12, %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %arg13,
// CHECK-SAME: tensor<4x1536xi8>, tensor<4x1xf32>) -> (i64, !aclnn.executor)

// No query_norm: all three optional outputs nullptr; the caches' results are the caches.
// CHECK-LABEL: func.func @pv3_bsnd
// CHECK:      "aclnn.mla_prolog_v3_weight_nz_get_workspace_size"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %[[NULL:[0-9]+]],
// CHECK-SAME: tensor<2x2x16x512xbf16>, tensor<2x2x16x64xbf16>, !aclnn.nullptr, !aclnn.nullptr, !aclnn.nullptr) -> (i64, !aclnn.executor)
// CHECK-NOT:  "mla.

// The seed examples' argument order: 12 tensors (caches by reference), 7 optional scales
// (nullptr when absent), 2 epsilons, the cache mode, the outputs.
// RUN: mla-opt %S/../dialect/prolog.mlir --split-input-file --lower-to-aclnn | FileCheck %s --check-prefix=V1
// RUN: mla-opt %S/../dialect/prolog_v2.mlir --split-input-file --lower-to-aclnn | FileCheck %s --check-prefix=V2

// V1-LABEL: func.func @nq_c1
// V1:      %[[NULL:.*]] = "aclnn.null"() : () -> !aclnn.nullptr
// V1:      %[[MODE:.*]] = "aclnn.string"() {value = "PA_BSND"} : () -> !aclnn.cstring
// V1:      %[[Q:.*]] = "aclnn.alloc"() : () -> tensor<8x1x32x512xbf16>
// V1:      %[[QR:.*]] = "aclnn.alloc"() : () -> tensor<8x1x32x64xbf16>
// V1:      "aclnn.mla_prolog_get_workspace_size"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %{{.*}}, %{{.*}}, %[[MODE]], %[[Q]], %[[QR]]) {callee = "aclnnMlaPrologGetWorkspaceSize"}
// V1-SAME:   tensor<96x448x16x16xbf16, #mla.format<"FRACTAL_NZ">>
// V1:      "aclnn.launch"({{.*}}) {callee = "aclnnMlaProlog"}
// V1:      return %[[Q]], %[[QR]], %arg10, %arg11

// V2-LABEL: func.func
// V2:      %[[Q:.*]] = "aclnn.alloc"()
// V2:      %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<1xf32>
// V2:      "aclnn.mla_prolog_v2_weight_nz_get_workspace_size"({{.*}}, %[[Q]], %{{.*}}, %{{.*}}) {callee = "aclnnMlaPrologV2WeightNzGetWorkspaceSize"}
// V2-SAME:   !aclnn.nullptr) -> (i64, !aclnn.executor)
// V2:      "aclnn.launch"({{.*}}) {callee = "aclnnMlaPrologV2WeightNz"}
// V2:      return %[[Q]], %{{.*}}, %arg10, %arg11, %[[ZERO]]
// V2-NOT:  "mla.

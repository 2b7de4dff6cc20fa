// RUN: mla-opt %s --lower-to-aclnn | FileCheck %s
// mla.rms_norm -> aclnnRmsNorm(x, gamma, epsilon, yOut, rstdOut): rstd is a scratch buffer.

// CHECK-LABEL: func.func @norm
// CHECK:      %[[S:.*]] = "aclnn.current_stream"()
// CHECK:      %[[EPS:.*]] = arith.constant 9.99{{.*}}E-7 : f64
// CHECK:      %[[Y:.*]] = "aclnn.alloc"() : () -> tensor<8x7168xbf16>
// CHECK:      %[[R:.*]] = "aclnn.alloc"() : () -> tensor<8x1xf32>
// CHECK:      %[[P:.*]]:2 = "aclnn.rms_norm_get_workspace_size"(%arg0, %arg1, %[[EPS]], %[[Y]], %[[R]]) {callee = "aclnnRmsNormGetWorkspaceSize"}
// CHECK-SAME:   -> (i64, !aclnn.executor)
// CHECK:      %[[W:.*]] = "aclnn.workspace"(%[[P]]#0) : (i64) -> tensor<?xi8>
// CHECK:      "aclnn.launch"(%[[W]], %[[P]]#0, %[[P]]#1, %[[S]]) {callee = "aclnnRmsNorm"}
// CHECK:      "aclnn.synchronize"(%[[S]])
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT:  mla.
func.func @norm(%x: tensor<8x7168xbf16>, %gamma: tensor<7168xbf16>) -> tensor<8x7168xbf16> {
  %y = "mla.rms_norm"(%x, %gamma) {epsilon = 1.0e-06 : f64} : (tensor<8x7168xbf16>, tensor<7168xbf16>) -> tensor<8x7168xbf16>
  return %y : tensor<8x7168xbf16>
}

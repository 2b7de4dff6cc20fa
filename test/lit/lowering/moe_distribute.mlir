// lower-to-aclnn of the MoE exchange: aclnnMoeDistributeDispatchV2 / CombineV2, two-phase calls,
// one operand per C argument of the documented prototypes (lowering/moe_distribute.py). groupEp
// and epRankId are read from the EP communicator at run time (one program text for every rank).
// RUN: mla-opt %s --split-input-file --lower-to-aclnn | FileCheck %s
// The lowered IR parses and verifies again.
// RUN: mla-opt %s --split-input-file --lower-to-aclnn | mla-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @moe
// CHECK:      %[[STREAM:.*]] = "aclnn.current_stream"()
// the communicator once per function, its name and this rank's id
// CHECK:      %[[COMM:.*]] = "aclnn.hccl_communicator"() {group = "ep", world_size = 2 : i64} : () -> !aclnn.hccl_comm
// CHECK-NEXT: %[[NAME:.*]] = "aclnn.hccl_comm_name"(%[[COMM]]) : (!aclnn.hccl_comm) -> !aclnn.cstring
// CHECK-NEXT: %[[RANK:.*]] = "aclnn.hccl_comm_rank"(%[[COMM]]) : (!aclnn.hccl_comm) -> i64
// CHECK:      %[[NULL:.*]] = "aclnn.null"()
// CHECK-DAG:  %[[EP:.*]] = arith.constant 2 : i64
// CHECK-DAG:  %[[E:.*]] = arith.constant 8 : i64
// the seven outputs: expandX, dynamicScales, assistInfoForCombine, expertTokenNums, epRecvCounts,
// tpRecvCounts (a scratch element: no TP group), expandScales
// CHECK:      %[[EX:.*]] = "aclnn.alloc"() : () -> tensor<16x7168xbf16>
// CHECK-NEXT: %[[DS:.*]] = "aclnn.alloc"() : () -> tensor<16xf32>
// CHECK-NEXT: %[[AI:.*]] = "aclnn.alloc"() : () -> tensor<2048xi32>
// CHECK-NEXT: %[[TN:.*]] = "aclnn.alloc"() : () -> tensor<4xi64>
// CHECK-NEXT: %[[RC:.*]] = "aclnn.alloc"() : () -> tensor<8xi32>
// CHECK-NEXT: %[[TP:.*]] = "aclnn.alloc"() : () -> tensor<1xi32>
// CHECK-NEXT: %[[ES:.*]] = "aclnn.alloc"() : () -> tensor<16xf32>
// CHECK-NEXT: %[[D:.*]]:2 = "aclnn.moe_distribute_dispatch_v2_get_workspace_size"(%arg0, %arg1, %[[NULL]], %[[NULL]], %[[NULL]], %[[NAME]], %[[EP]], %[[RANK]], %[[E]], {{.*}}, %[[EX]], %[[DS]], %[[AI]], %[[TN]], %[[RC]], %[[TP]], %[[ES]]) {callee = "aclnnMoeDistributeDispatchV2GetWorkspaceSize"}
// CHECK:      "aclnn.launch"({{.*}}, %[[D]]#0, %[[D]]#1, %[[STREAM]]) {callee = "aclnnMoeDistributeDispatchV2"}
// combine: the experts' rows (here dispatch's own, unchanged), the pair's assist info and counts,
// the routing weights, the shared experts' rows; the same communicator's name and rank
// CHECK:      %[[X:.*]] = "aclnn.alloc"() : () -> tensor<4x7168xbf16>
// CHECK-NEXT: %[[C:.*]]:2 = "aclnn.moe_distribute_combine_v2_get_workspace_size"(%[[EX]], %arg1, %[[AI]], %[[RC]], %arg2, {{.*}}, %arg3, %[[NAME]], {{.*}}, %[[RANK]], {{.*}}, %[[X]]) {callee = "aclnnMoeDistributeCombineV2GetWorkspaceSize"}
// CHECK:      "aclnn.launch"({{.*}}, %[[C]]#0, %[[C]]#1, %[[STREAM]]) {callee = "aclnnMoeDistributeCombineV2"}
// CHECK:      return %[[X]]
func.func @moe(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>, %w: tensor<4x2xf32>, %shared: tensor<4x7168xbf16>) -> tensor<4x7168xbf16> {
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  %y = "mla.moe_distribute_combine"(%r#0, %ids, %r#2, %r#4, %w, %shared) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 1>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>, tensor<4x7168xbf16>) -> tensor<4x7168xbf16>
  return %y : tensor<4x7168xbf16>
}

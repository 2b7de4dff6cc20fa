// lower-to-aclnn of the collectives: HCCL's one-phase calls on the stream, one operand per C
// argument of HcclAllReduce / HcclAllGather (lowering/collective.py).
// RUN: mla-opt %s --split-input-file --lower-to-aclnn | FileCheck %s
// The lowered IR parses and verifies again.
// RUN: mla-opt %s --split-input-file --lower-to-aclnn | mla-opt --split-input-file | FileCheck %s

// o_proj's partial sums over 2 ranks: sendBuf = x, recvBuf = a new buffer, count = 2*1*7168
// CHECK-LABEL: func.func @o_proj_sum
// CHECK:      %[[STREAM:.*]] = "aclnn.current_stream"()
// CHECK:      %[[RECV:.*]] = "aclnn.alloc"() : () -> tensor<2x1x7168xbf16>
// CHECK:      %[[SUM:.*]] = "aclnn.hccl_reduce_op"() {op = "sum"} : () -> !aclnn.reduce_op
// CHECK:      %[[COUNT:.*]] = arith.constant 14336 : i64
// CHECK:      %[[DTYPE:.*]] = "aclnn.dtype"() {type = bf16} : () -> !aclnn.data_type
// CHECK:      %[[COMM:.*]] = "aclnn.hccl_communicator"() {group = "tp", world_size = 2 : i64} : () -> !aclnn.hccl_comm
// CHECK:      "aclnn.hccl_all_reduce"(%arg0, %[[RECV]], %[[COUNT]], %[[DTYPE]], %[[SUM]], %[[COMM]], %[[STREAM]]) {callee = "HcclAllReduce"}
// CHECK:      return %[[RECV]]
func.func @o_proj_sum(%x: tensor<2x1x7168xbf16>) -> tensor<2x1x7168xbf16> {
  %0 = "mla.all_reduce"(%x) {world_size = 2 : i64} : (tensor<2x1x7168xbf16>) -> tensor<2x1x7168xbf16>
  return %0 : tensor<2x1x7168xbf16>
}

// -----

// a strided view is sent as a contiguous copy
// CHECK-LABEL: func.func @strided
// CHECK:      %[[VIEW:.*]] = "aclnn.view"(%arg0) {offset = 0 : i64, strides = array<i64: 16, 1>} : (tensor<4x16xf32>) -> tensor<4x8xf32>
// CHECK:      %[[COPY:.*]] = "aclnn.alloc"() : () -> tensor<4x8xf32>
// CHECK:      "aclnn.launch"({{.*}}) {callee = "aclnnInplaceCopy"}
// CHECK:      "aclnn.hccl_all_reduce"(%[[COPY]], {{.*}}) {callee = "HcclAllReduce"}
func.func @strided(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %half = tensor.extract_slice %x[0, 0] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  %0 = "mla.all_reduce"(%half) {world_size = 2 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// vocab-parallel logits: HCCL gathers the ranks one after the other (4, 2, 1, 1000); the rank
// axis moved next to the last one (a strided view), copied, and read as (2, 1, 4000)
// CHECK-LABEL: func.func @logits
// CHECK:      %[[RECV:.*]] = "aclnn.alloc"() : () -> tensor<4x2x1x1000xf32>
// CHECK:      %[[COUNT:.*]] = arith.constant 2000 : i64
// CHECK:      "aclnn.hccl_all_gather"(%arg0, %[[RECV]], %[[COUNT]], {{.*}}) {callee = "HcclAllGather"}
// CHECK:      %[[MOVED:.*]] = "aclnn.view"(%[[RECV]]) {offset = 0 : i64, strides = array<i64: 1000, 1000, 2000, 1>} : (tensor<4x2x1x1000xf32>) -> tensor<2x1x4x1000xf32>
// CHECK:      "aclnn.launch"({{.*}}) {callee = "aclnnInplaceCopy"}
// CHECK:      "aclnn.view"({{.*}}) {offset = 0 : i64, strides = array<i64: 4000, 4000, 1>} : (tensor<2x1x4x1000xf32>) -> tensor<2x1x4000xf32>
func.func @logits(%x: tensor<2x1x1000xf32>) -> tensor<2x1x4000xf32> {
  %0 = "mla.all_gather"(%x) {world_size = 4 : i64, dim = -1 : i64} : (tensor<2x1x1000xf32>) -> tensor<2x1x4000xf32>
  return %0 : tensor<2x1x4000xf32>
}

// -----

// gathered along rows (dim 0): HCCL's own layout is the result, no copy
// CHECK-LABEL: func.func @rows
// CHECK:      %[[RECV:.*]] = "aclnn.alloc"() : () -> tensor<8x3xi32>
// CHECK:      "aclnn.hccl_all_gather"(%arg0, %[[RECV]], {{.*}}) {callee = "HcclAllGather"}
// CHECK-NOT:  aclnnInplaceCopy
// CHECK:      return %[[RECV]]
func.func @rows(%x: tensor<4x3xi32>) -> tensor<8x3xi32> {
  %0 = "mla.all_gather"(%x) {world_size = 2 : i64, dim = 0 : i64} : (tensor<4x3xi32>) -> tensor<8x3xi32>
  return %0 : tensor<8x3xi32>
}

// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid MoE exchanges, one configuration per split.

// DeepSeek-V3's MoE layer over 2 EP ranks (Atlas A3): 4 tokens, 8 of 256 experts each; every
// rank holds 128 experts, so A = 4 * 2 * min(128, 8) = 64 rows; the shared experts computed on
// every rank and added by the combine
// CHECK-LABEL: func.func @deepseek_v3
// CHECK: %0:6 = "mla.moe_distribute_dispatch"(%arg0, %arg1) {ep_world_size = 2 : i64, moe_expert_num = 256 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}
// CHECK-SAME: -> (tensor<64x7168xbf16>, tensor<64xf32>, tensor<8192xi32>, tensor<128xi64>, tensor<256xi32>, tensor<64xf32>)
// CHECK: %1 = "mla.moe_distribute_combine"(%0#0, %arg1, %0#2, %0#4, %arg2, %arg3) {ep_world_size = 2 : i64, moe_expert_num = 256 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 1>}
func.func @deepseek_v3(%x: tensor<4x7168xbf16>, %ids: tensor<4x8xi32>, %w: tensor<4x8xf32>, %shared: tensor<4x7168xbf16>) -> tensor<4x7168xbf16> {
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 256 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x8xi32>) -> (tensor<64x7168xbf16>, tensor<64xf32>, tensor<8192xi32>, tensor<128xi64>, tensor<256xi32>, tensor<64xf32>)
  %y = "mla.moe_distribute_combine"(%r#0, %ids, %r#2, %r#4, %w, %shared) {ep_world_size = 2 : i64, moe_expert_num = 256 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 1>} : (tensor<64x7168xbf16>, tensor<4x8xi32>, tensor<8192xi32>, tensor<256xi32>, tensor<4x8xf32>, tensor<4x7168xbf16>) -> tensor<4x7168xbf16>
  return %y : tensor<4x7168xbf16>
}

// -----

// ranks with different token counts in a step (a decode rank beside a prefill one): global_bs =
// the largest BS * ep_world_size sizes A for every rank; int8 rows with a dynamic scale each
// (quant_mode 2) and the counts as prefix sums
// CHECK-LABEL: func.func @uneven
// CHECK: "mla.moe_distribute_dispatch"(%arg0, %arg1) {ep_world_size = 4 : i64, expert_token_nums_type = 0 : i64, global_bs = 64 : i64, moe_expert_num = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, quant_mode = 2 : i64}
// CHECK-SAME: -> (tensor<128x7168xi8>, tensor<128xf32>, tensor<16384xi32>, tensor<4xi64>, tensor<16xi32>, tensor<128xf32>)
func.func @uneven(%x: tensor<1x7168xbf16>, %ids: tensor<1x2xi32>) {
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 4 : i64, moe_expert_num = 16 : i64, global_bs = 64 : i64, quant_mode = 2 : i64, expert_token_nums_type = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<1x7168xbf16>, tensor<1x2xi32>) -> (tensor<128x7168xi8>, tensor<128xf32>, tensor<16384xi32>, tensor<4xi64>, tensor<16xi32>, tensor<128xf32>)
  return
}

// -----

// Atlas A2 (fullmesh): the routing weights travel with the rows (expert_scales -> expand_scales),
// which its combine takes back
// CHECK-LABEL: func.func @atlas_a2
// CHECK: "mla.moe_distribute_combine"(%0#0, %arg1, %0#2, %0#4, %arg2, %0#5) {ep_world_size = 8 : i64, moe_expert_num = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1, 0>, product = "A2"}
func.func @atlas_a2(%x: tensor<2x4096xf16>, %ids: tensor<2x6xi32>, %w: tensor<2x6xf32>) {
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids, %w) {ep_world_size = 8 : i64, moe_expert_num = 64 : i64, product = "A2", operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>} : (tensor<2x4096xf16>, tensor<2x6xi32>, tensor<2x6xf32>) -> (tensor<96x4096xf16>, tensor<96xf32>, tensor<12288xi32>, tensor<8xi64>, tensor<64xi32>, tensor<96xf32>)
  %y = "mla.moe_distribute_combine"(%r#0, %ids, %r#2, %r#4, %w, %r#5) {ep_world_size = 8 : i64, moe_expert_num = 64 : i64, product = "A2", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1, 0>} : (tensor<96x4096xf16>, tensor<2x6xi32>, tensor<12288xi32>, tensor<64xi32>, tensor<2x6xf32>, tensor<96xf32>) -> tensor<2x4096xf16>
  return
}

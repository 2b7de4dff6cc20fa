// RUN: mla-opt %s | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s | mla-opt | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s | FileCheck %s
// Valid decoder ops: the MoE pieces of one DeepSeek-V3 layer (router, routing, experts, combine).

// CHECK-LABEL: func.func @moe
// CHECK: %0:2 = "mla.moe_gating_top_k"(%arg1, %arg2)
// CHECK-SAME: -> (tensor<4x4xf32>, tensor<4x4xi32>)
// CHECK: %1:3 = "mla.moe_init_routing"(%arg0, %0#1) {expert_num = 16 : i64} : (tensor<4x64xbf16>, tensor<4x4xi32>) -> (tensor<16x64xbf16>, tensor<16xi32>, tensor<16xi64>)
// CHECK: %2 = "mla.grouped_matmul"(%1#0, %arg3, %1#2) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<16x64xbf16>, tensor<16x64x64xbf16>, tensor<16xi64>) -> tensor<16x64xbf16>
// CHECK: %3 = "mla.swiglu"(%2) : (tensor<16x64xbf16>) -> tensor<16x32xbf16>
// CHECK: %4 = "mla.grouped_matmul"(%3, %arg4, %1#2)
// CHECK: %5 = "mla.moe_finalize_routing"(%4, %1#1, %0#0, %arg5, %arg0)
func.func @moe(%x: tensor<4x64xbf16>, %logits: tensor<4x16xf32>, %bias: tensor<16xf32>, %w1: tensor<16x64x64xbf16>, %w2: tensor<16x32x64xbf16>, %shared: tensor<4x64xbf16>) {
  %y, %idx = "mla.moe_gating_top_k"(%logits, %bias) {k = 4 : i64, k_group = 2 : i64, group_count = 4 : i64, group_select_mode = 1 : i64, norm_type = 1 : i64, routed_scaling_factor = 2.5 : f64, operandSegmentSizes = array<i32: 1, 1>} : (tensor<4x16xf32>, tensor<16xf32>) -> (tensor<4x4xf32>, tensor<4x4xi32>)
  %rows, %row_idx, %counts = "mla.moe_init_routing"(%x, %idx) {expert_num = 16 : i64} : (tensor<4x64xbf16>, tensor<4x4xi32>) -> (tensor<16x64xbf16>, tensor<16xi32>, tensor<16xi64>)
  %gu = "mla.grouped_matmul"(%rows, %w1, %counts) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<16x64xbf16>, tensor<16x64x64xbf16>, tensor<16xi64>) -> tensor<16x64xbf16>
  %act = "mla.swiglu"(%gu) : (tensor<16x64xbf16>) -> tensor<16x32xbf16>
  %down = "mla.grouped_matmul"(%act, %w2, %counts) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<16x32xbf16>, tensor<16x32x64xbf16>, tensor<16xi64>) -> tensor<16x64xbf16>
  %out = "mla.moe_finalize_routing"(%down, %row_idx, %y, %shared, %x) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<16x64xbf16>, tensor<16xi32>, tensor<4x4xf32>, tensor<4x64xbf16>, tensor<4x64xbf16>) -> tensor<4x64xbf16>
  return
}

// The int8 form (w8a8 experts): i8 rows and weights, the bf16 per-channel scales of each
// expert, the rows' f32 scales from mla.dynamic_quant; bf16 out.
// CHECK-LABEL: func.func @moe_int8
// CHECK: %0:2 = "mla.dynamic_quant"(%arg0)
// CHECK: %1 = "mla.grouped_matmul"(%0#0, %arg1, %arg3, %arg2, %0#1) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<16x64xi8>, tensor<16x64x64xi8>, tensor<16xi64>, tensor<16x64xbf16>, tensor<16xf32>) -> tensor<16x64xbf16>
func.func @moe_int8(%rows: tensor<16x64xbf16>, %w: tensor<16x64x64xi8>, %scale: tensor<16x64xbf16>, %counts: tensor<16xi64>) {
  %q, %qs = "mla.dynamic_quant"(%rows) {operandSegmentSizes = array<i32: 1, 0>} : (tensor<16x64xbf16>) -> (tensor<16x64xi8>, tensor<16xf32>)
  %y = "mla.grouped_matmul"(%q, %w, %counts, %scale, %qs) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>} : (tensor<16x64xi8>, tensor<16x64x64xi8>, tensor<16xi64>, tensor<16x64xbf16>, tensor<16xf32>) -> tensor<16x64xbf16>
  return
}

// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.moe_distribute_dispatch and mla.moe_distribute_combine: one split per failing rule, each op
// otherwise valid (2 ranks, 8 experts, 4 tokens of H = 7168 with 2 experts each: A = 4 * 2 * 2 = 16
// rows). The rules are the documents' (docs/moe_distribute.md); the runtime rules (MDD-029/030,
// MDC-027/028) read data: test_moe_distribute.py.

// x is (BS, H)
func.func @x_rank(%x: tensor<4x7168x1xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{x: expected rank 2 (BS, H), got tensor<4x7168x1xbf16> [MDD-001]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168x1xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// the rows are bf16 or f16
func.func @x_type(%x: tensor<4x7168xf32>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{x: expected element type bf16 or f16, got f32 [MDD-002]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xf32>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// an ND tensor
func.func @x_nz(%x: tensor<4x7168xbf16, #mla.format<"FRACTAL_NZ">>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<4x7168xbf16, FRACTAL_NZ> [MDD-003]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// expert_ids has a row per token
func.func @ids_rows(%x: tensor<4x7168xbf16>, %ids: tensor<3x2xi32>) {
  // expected-error @+1 {{expert_ids: expected an ND i32 tensor (BS, K) with BS = 4 (the tokens), got tensor<3x2xi32> [MDD-004]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<3x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// a product the documents describe
func.func @product(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{product: expected "A3" (Atlas A3) or "A2" (Atlas A2), got 'A5' [MDD-005]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, product = "A5", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// the EP communicator
func.func @group(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{group: expected 'ep' (the EP communicator a program may use), got 'tp' [MDD-006]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, group = "tp", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// a comm_alg Atlas A3's dispatch lists
func.func @comm_alg(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{comm_alg: expected one of '', 'fullmesh_v1', 'fullmesh_v2', 'hierarchy' on Atlas A3, got 'fullmesh' [MDD-007]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, comm_alg = "fullmesh", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// Atlas A3: 2 to 768 ranks
func.func @ep_size(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{ep_world_size: expected an EP group of 2 to 768 ranks, got 1 [MDD-008]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 1 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// shared-expert ranks: fewer than the EP group
func.func @shared_ranks(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{shared_expert_rank_num: expected [0, ep_world_size) = [0, 2), got 2 [MDD-009]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, shared_expert_rank_num = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// without shared-expert ranks, at most one shared expert
func.func @shared_num(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{shared_expert_num: expected 0 or 1 without shared-expert ranks (shared_expert_rank_num 0), got 2 [MDD-010]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, shared_expert_num = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// the shared-expert ranks come first (0)
func.func @shard_type(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{expert_shard_type: expected 0 (the shared-expert ranks first), got 1 [MDD-011]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, expert_shard_type = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// the experts split evenly over the MoE-expert ranks
func.func @experts(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{moe_expert_num: expected a multiple of the MoE-expert ranks (ep_world_size - shared_expert_rank_num = 2), got 9 [MDD-012]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 9 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// a TP group of 2 needs one expert per rank
func.func @tp(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{tp_world_size: a TP group of 2 needs one expert per rank, got 4 [MDD-013]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, tp_world_size = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// at most 16 experts per token
func.func @k(%x: tensor<4x7168xbf16>, %ids: tensor<4x17xi32>) {
  // expected-error @+1 {{expert_ids: expected 0 < K <= 16 and K <= moe_expert_num (32) experts per token, got K = 17 [MDD-014]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 32 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x17xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// Atlas A3: at most 512 tokens per rank
func.func @bs(%x: tensor<513x7168xbf16>, %ids: tensor<513x2xi32>) {
  // expected-error @+1 {{x: expected 0 < BS <= 512 tokens on this rank (Atlas A3, comm_alg ''), got 513 [MDD-015]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<513x7168xbf16>, tensor<513x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// Atlas A3: H in [1024, 8192]
func.func @hidden(%x: tensor<4x512xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{x: expected a hidden size H in [1024, 8192] on Atlas A3, got 512 [MDD-016]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x512xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// quant_mode 0 or 2
func.func @quant(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{quant_mode: expected 0 (no quantization) or 2 (int8, a dynamic scale per row), got 1 [MDD-017]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, quant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// the smoothing scales only with quant_mode 2
func.func @scales(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>, %scales: tensor<8x7168xf32>) {
  // expected-error @+1 {{scales: given with quant_mode 0: the smoothing scales are only read by the quantization (quant_mode 2) [MDD-018]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids, %scales) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>, tensor<8x7168xf32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// x_active_mask is (BS,) or (BS, K) bool
func.func @mask(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>, %mask: tensor<4x3xi1>) {
  // expected-error @+1 {{x_active_mask: expected an ND i1 tensor of shape (4) or (4, 2), got tensor<4x3xi1> [MDD-019]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids, %mask) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>, tensor<4x3xi1>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// Atlas A3 carries no routing weights outside comm_alg hierarchy
func.func @expert_scales(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>, %es: tensor<4x2xf32>) {
  // expected-error @+1 {{expert_scales: not taken on Atlas A3 with comm_alg '' (only "hierarchy" carries the weights) [MDD-020]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids, %es) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>} : (tensor<4x7168xbf16>, tensor<4x2xi32>, tensor<4x2xf32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// global_bs is max BS * ep_world_size
func.func @global_bs(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{global_bs: expected at least BS * ep_world_size = 8 (this rank's 4 tokens), got 6 [MDD-021]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, global_bs = 6 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// expert_token_nums_type 0 or 1
func.func @counts_type(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{expert_token_nums_type: expected 0 (prefix sums) or 1 (counts), got 2 [MDD-022]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, expert_token_nums_type = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// expand_x is (A, H) with A = BS * ep * min(L, K)
func.func @expand_x(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{expand_x: expected tensor<16x7168xbf16>, got tensor<8x7168xbf16> [MDD-023]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<8x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// dynamic_scales (A,)
func.func @dynamic_scales(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{dynamic_scales: expected tensor<16xf32>, got tensor<8xf32> [MDD-024]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<8xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// assist_info_for_combine (A * 128,)
func.func @assist(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{assist_info_for_combine: expected tensor<2048xi32>, got tensor<16xi32> [MDD-025]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<16xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// expert_token_nums (L,) i64
func.func @token_nums(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{expert_token_nums: expected tensor<4xi64>, got tensor<4xi32> [MDD-026]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi32>, tensor<8xi32>, tensor<16xf32>)
  return
}

// -----

// ep_recv_counts (ep * L,)
func.func @recv_counts(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{ep_recv_counts: expected tensor<8xi32>, got tensor<4xi32> [MDD-027]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<4xi32>, tensor<16xf32>)
  return
}

// -----

// expand_scales (A,)
func.func @expand_scales(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  // expected-error @+1 {{expand_scales: expected tensor<16xf32>, got tensor<4xf32> [MDD-028]}}
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<4xf32>)
  return
}

// -----

// expand_x is (A, H)
func.func @c_rank(%ex: tensor<16x7168x1xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{expand_x: expected rank 2 (A, H), got tensor<16x7168x1xbf16> [MDC-001]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168x1xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// bf16 or f16 rows
func.func @c_type(%ex: tensor<16x7168xf32>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{expand_x: expected element type bf16 or f16, got f32 [MDC-002]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xf32>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xf32>
  return
}

// -----

// an ND tensor
func.func @c_nz(%ex: tensor<16x7168xbf16, #mla.format<"FRACTAL_NZ">>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{expand_x: expected an ND tensor, got tensor<16x7168xbf16, FRACTAL_NZ> [MDC-003]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// expert_ids (BS, K) i32
func.func @c_ids(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi64>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{expert_ids: expected an ND i32 tensor (BS, K), got tensor<4x2xi64> [MDC-004]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi64>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// a product
func.func @c_product(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{product: expected "A3" (Atlas A3) or "A2" (Atlas A2), got 'A1' [MDC-005]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, product = "A1", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// the EP communicator
func.func @c_group(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{group: expected 'ep' (the EP communicator a program may use), got 'ep0' [MDC-006]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, group = "ep0", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// Atlas A3's combine lists "" and hierarchy
func.func @c_comm_alg(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{comm_alg: expected one of '', 'hierarchy' on Atlas A3, got 'fullmesh_v1' [MDC-007]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, comm_alg = "fullmesh_v1", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// Atlas A2's EP sizes
func.func @c_ep_size(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{ep_world_size: expected one of 2, 3, 4, 5, 6, 7, 8, 16, 32, 64, 128, 256 on Atlas A2 (comm_alg ''), got 10 [MDC-008]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 10 : i64, moe_expert_num = 8 : i64, product = "A2", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// Atlas A2 has no shared-expert ranks
func.func @c_shared_ranks(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{shared_expert_rank_num: Atlas A2 has no shared-expert ranks: expected 0, got 1 [MDC-009]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, product = "A2", shared_expert_rank_num = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// shared experts per rank count
func.func @c_shared_num(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{shared_expert_num: expected [0, 4], got 5 [MDC-010]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, shared_expert_num = 5 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// shard type 0
func.func @c_shard(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{expert_shard_type: expected 0 (the shared-expert ranks first), got 2 [MDC-011]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, expert_shard_type = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// Atlas A2: at most 24 experts per rank
func.func @c_experts(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{moe_expert_num: Atlas A2 holds at most 24 experts per rank (outside comm_alg "hierarchy"), got 32 [MDC-012]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 64 : i64, product = "A2", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// Atlas A2 has no TP group
func.func @c_tp(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{tp_world_size: Atlas A2 has no TP group in the exchange: expected 0, got 2 [MDC-013]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, product = "A2", tp_world_size = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// K <= moe_expert_num
func.func @c_k(%ex: tensor<16x7168xbf16>, %ids: tensor<4x3xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x3xf32>) {
  // expected-error @+1 {{expert_ids: expected 0 < K <= 16 and K <= moe_expert_num (2) experts per token, got K = 3 [MDC-014]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x3xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x3xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// Atlas A2 fullmesh: at most 256 tokens
func.func @c_bs(%ex: tensor<16x7168xbf16>, %ids: tensor<300x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<300x2xf32>) {
  // expected-error @+1 {{expert_ids: expected 0 < BS <= 256 tokens on this rank (Atlas A2, comm_alg ''), got 300 [MDC-015]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, product = "A2", global_bs = 1024 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<300x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<300x2xf32>) -> tensor<300x7168xbf16>
  return
}

// -----

// Atlas A2: H a multiple of 32
func.func @c_hidden(%ex: tensor<16x1000xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{expand_x: expected a hidden size H in (0, 7168], a multiple of 32, on Atlas A2, got 1000 [MDC-016]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, product = "A2", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x1000xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x1000xbf16>
  return
}

// -----

// global_bs covers this rank's tokens
func.func @c_global_bs(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{global_bs: expected at least BS * ep_world_size = 8 (this rank's 4 tokens), got 4 [MDC-017]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, global_bs = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// expand_x has A rows
func.func @c_rows(%ex: tensor<12x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{expand_x: expected max(tp_world_size, 1) * A = 16 rows (A = (global_bs or BS * ep_world_size) * min(experts per rank, K)), got tensor<12x7168xbf16> [MDC-018]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<12x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// assist_info_for_combine (A * 128,)
func.func @c_assist(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2047xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{assist_info_for_combine: expected an ND i32 tensor (2048) (A * 128: dispatch's assist_info_for_combine), got tensor<2047xi32> [MDC-019]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2047xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// ep_send_counts (ep * L,)
func.func @c_send_counts(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi64>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{ep_send_counts: expected an ND i32 tensor (8) (dispatch's ep_recv_counts), got tensor<8xi64> [MDC-020]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi64>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// expert_scales (BS, K) f32
func.func @c_scales(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xbf16>) {
  // expected-error @+1 {{expert_scales: expected an ND f32 tensor (4, 2) (each token's K routing weights), got tensor<4x2xbf16> [MDC-021]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xbf16>) -> tensor<4x7168xbf16>
  return
}

// -----

// x_active_mask bool
func.func @c_mask(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>, %mask: tensor<4xi8>) {
  // expected-error @+1 {{x_active_mask: expected an ND i1 tensor of shape (4) or (4, 2), got tensor<4xi8> [MDC-022]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w, %mask) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>, tensor<4xi8>) -> tensor<4x7168xbf16>
  return
}

// -----

// Atlas A2's combine takes expand_scales
func.func @c_expand_scales(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{expand_scales: missing: Atlas A2's combine takes dispatch's expand_scales (A,) [MDC-023]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, product = "A2", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// shared_expert_x (BS, H) of expand_x's type
func.func @c_shared_x(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>, %shared: tensor<4x7168xf16>) {
  // expected-error @+1 {{shared_expert_x: expected an ND bf16 tensor (4, 7168) (or 3-D with the first two dimensions' product 4), got tensor<4x7168xf16> [MDC-024]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w, %shared) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 1>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>, tensor<4x7168xf16>) -> tensor<4x7168xbf16>
  return
}

// -----

// comm_quant_mode 0 or 2
func.func @c_comm_quant(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{comm_quant_mode: expected 0 (no quantization) or 2 (int8 in transit), got 1 [MDC-025]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, comm_quant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// x (BS, H)
func.func @c_result(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{x: expected tensor<4x7168xbf16>, got tensor<4x7168xf16> [MDC-026]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xf16>
  return
}

// -----

// every MoE exchange of a program uses the same global_bs (and group, sizes, comm_alg...)
func.func @layers(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>) {
  %a:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  // expected-error @+1 {{group: global_bs 16 differs from the 0 of an earlier 'mla.moe_distribute_dispatch' (every MoE exchange of a program uses the same group, ep_world_size, moe_expert_num, tp_world_size, expert_shard_type, shared_expert_num, shared_expert_rank_num, global_bs, comm_alg, product) [MDD-031]}}
  %b:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, global_bs = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<32x7168xbf16>, tensor<32xf32>, tensor<4096xi32>, tensor<4xi64>, tensor<8xi32>, tensor<32xf32>)
  return
}

// -----

// combine takes its pair's assist_info_for_combine: a result of the dispatch, not another value
func.func @unpaired(%ex: tensor<16x7168xbf16>, %ids: tensor<4x2xi32>, %ai: tensor<2048xi32>, %rc: tensor<8xi32>, %w: tensor<4x2xf32>) {
  // expected-error @+1 {{assist_info_for_combine: expected result #2 of an 'mla.moe_distribute_dispatch' (the pair's own), got another value [MDC-029]}}
  %y = "mla.moe_distribute_combine"(%ex, %ids, %ai, %rc, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// ... of the same expert_ids
func.func @other_ids(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>, %ids2: tensor<4x2xi32>, %w: tensor<4x2xf32>) {
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  // expected-error @+1 {{assist_info_for_combine: comes from a dispatch of other expert_ids than this combine's [MDC-029]}}
  %y = "mla.moe_distribute_combine"(%r#0, %ids2, %r#2, %r#4, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

// -----

// ... and the same attributes
func.func @other_alg(%x: tensor<4x7168xbf16>, %ids: tensor<4x2xi32>, %w: tensor<4x2xf32>) {
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, comm_alg = "fullmesh_v1", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<4x2xi32>) -> (tensor<16x7168xbf16>, tensor<16xf32>, tensor<2048xi32>, tensor<4xi64>, tensor<8xi32>, tensor<16xf32>)
  // expected-error @+1 {{assist_info_for_combine: comes from a dispatch whose comm_alg is 'fullmesh_v1', here '' [MDC-029]}}
  %y = "mla.moe_distribute_combine"(%r#0, %ids, %r#2, %r#4, %w) {ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0>} : (tensor<16x7168xbf16>, tensor<4x2xi32>, tensor<2048xi32>, tensor<8xi32>, tensor<4x2xf32>) -> tensor<4x7168xbf16>
  return
}

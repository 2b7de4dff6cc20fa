// RUN: mla-opt %s --split-input-file --absorb-kv --verify-diagnostics | FileCheck %s

// absorb-kv leaves the naive attention as it is, with a remark naming why, where the rewrite
// would change what the program computes or shows.

// The K/V caches are the caller's (function inputs, not module buffers): it may read them.
// CHECK-LABEL: func.func @caller_caches
// CHECK-NOT: mla.state
// CHECK: "mla.paged_attention"
ml_program.global private @"kv_b_proj.weight"(#ml_program.extern : tensor<16x8xbf16>) : tensor<16x8xbf16>
func.func @caller_caches(
    %k_cache: tensor<2x16x2x6xbf16> {mla.name = "past_key"},
    %v_cache: tensor<2x16x2x4xbf16> {mla.name = "past_value"},
    %c_kv: tensor<2x1x8xbf16> {mla.name = "c_kv"},
    %k_rope: tensor<2x1x2xbf16> {mla.name = "k_rope"},
    %q_nope: tensor<2x1x2x4xbf16> {mla.name = "q_nope"},
    %q_rope: tensor<2x1x2x2xbf16> {mla.name = "q_rope"},
    %rows: tensor<2xi64> {mla.name = "cache_rows"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"})
    -> (tensor<2x16x2x6xbf16>, tensor<2x16x2x4xbf16>, tensor<2x1x2x4xbf16>) {
  %w = ml_program.global_load_const @"kv_b_proj.weight" : tensor<16x8xbf16>
  %wt = "mla.transpose"(%w) {permutation = array<i64: 1, 0>} : (tensor<16x8xbf16>) -> tensor<8x16xbf16>
  %kv = "mla.matmul"(%c_kv, %wt) : (tensor<2x1x8xbf16>, tensor<8x16xbf16>) -> tensor<2x1x16xbf16>
  %heads = tensor.expand_shape %kv [[0], [1], [2, 3]] output_shape [2, 1, 2, 8] : tensor<2x1x16xbf16> into tensor<2x1x2x8xbf16>
  %k_nope = tensor.extract_slice %heads[0, 0, 0, 0] [2, 1, 2, 4] [1, 1, 1, 1] : tensor<2x1x2x8xbf16> to tensor<2x1x2x4xbf16>
  %v = tensor.extract_slice %heads[0, 0, 0, 4] [2, 1, 2, 4] [1, 1, 1, 1] : tensor<2x1x2x8xbf16> to tensor<2x1x2x4xbf16>
  %k_rope1 = tensor.expand_shape %k_rope [[0], [1], [2, 3]] output_shape [2, 1, 1, 2] : tensor<2x1x2xbf16> into tensor<2x1x1x2xbf16>
  %k_rope_heads = tensor.concat dim(2) %k_rope1, %k_rope1 : (tensor<2x1x1x2xbf16>, tensor<2x1x1x2xbf16>) -> tensor<2x1x2x2xbf16>
  %key = tensor.concat dim(3) %k_nope, %k_rope_heads : (tensor<2x1x2x4xbf16>, tensor<2x1x2x2xbf16>) -> tensor<2x1x2x6xbf16>
  %query = tensor.concat dim(3) %q_nope, %q_rope : (tensor<2x1x2x4xbf16>, tensor<2x1x2x2xbf16>) -> tensor<2x1x2x6xbf16>
  %key_rows = tensor.collapse_shape %key [[0, 1], [2], [3]] : tensor<2x1x2x6xbf16> into tensor<2x2x6xbf16>
  %k_store = "mla.scatter_cache"(%k_cache, %rows, %key_rows) : (tensor<2x16x2x6xbf16>, tensor<2xi64>, tensor<2x2x6xbf16>) -> tensor<2x16x2x6xbf16>
  %v_rows = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x1x2x4xbf16> into tensor<2x2x4xbf16>
  %v_store = "mla.scatter_cache"(%v_cache, %rows, %v_rows) : (tensor<2x16x2x4xbf16>, tensor<2xi64>, tensor<2x2x4xbf16>) -> tensor<2x16x2x4xbf16>
  %table = arith.constant dense<[[0], [1]]> : tensor<2x1xi32>
  // expected-remark @+1 {{the K cache "past_key" is not a buffer of the module (an input of the program, or computed in it): its users may read it, so it cannot be replaced by a latent cache [ABSORB-001]}}
  %o = "mla.paged_attention"(%query, %k_store, %v_store, %table, %seq_lengths) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>, scale_value = 0.5 : f64} : (tensor<2x1x2x6xbf16>, tensor<2x16x2x6xbf16>, tensor<2x16x2x4xbf16>, tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x1x2x4xbf16>
  return %k_store, %v_store, %o : tensor<2x16x2x6xbf16>, tensor<2x16x2x4xbf16>, tensor<2x1x2x4xbf16>
}

// -----

// A cache length (20) that neither block size of the fused ops (128, 16) divides.
// CHECK-LABEL: func.func @length_20
// CHECK-NOT: mla.state
// CHECK: "mla.paged_attention"
ml_program.global private @"kv_b_proj.weight"(#ml_program.extern : tensor<16x8xbf16>) : tensor<16x8xbf16>
func.func @length_20(
    %k_cache: tensor<2x20x2x6xbf16> {mla.buffer, mla.name = "layers.0.self_attn.k_cache"},
    %v_cache: tensor<2x20x2x4xbf16> {mla.buffer, mla.name = "layers.0.self_attn.v_cache"},
    %c_kv: tensor<2x1x8xbf16> {mla.name = "c_kv"},
    %k_rope: tensor<2x1x2xbf16> {mla.name = "k_rope"},
    %q_nope: tensor<2x1x2x4xbf16> {mla.name = "q_nope"},
    %q_rope: tensor<2x1x2x2xbf16> {mla.name = "q_rope"},
    %rows: tensor<2xi64> {mla.name = "cache_rows"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"})
    -> (tensor<2x20x2x6xbf16>, tensor<2x20x2x4xbf16>, tensor<2x1x2x4xbf16>) {
  %w = ml_program.global_load_const @"kv_b_proj.weight" : tensor<16x8xbf16>
  %wt = "mla.transpose"(%w) {permutation = array<i64: 1, 0>} : (tensor<16x8xbf16>) -> tensor<8x16xbf16>
  %kv = "mla.matmul"(%c_kv, %wt) : (tensor<2x1x8xbf16>, tensor<8x16xbf16>) -> tensor<2x1x16xbf16>
  %heads = tensor.expand_shape %kv [[0], [1], [2, 3]] output_shape [2, 1, 2, 8] : tensor<2x1x16xbf16> into tensor<2x1x2x8xbf16>
  %k_nope = tensor.extract_slice %heads[0, 0, 0, 0] [2, 1, 2, 4] [1, 1, 1, 1] : tensor<2x1x2x8xbf16> to tensor<2x1x2x4xbf16>
  %v = tensor.extract_slice %heads[0, 0, 0, 4] [2, 1, 2, 4] [1, 1, 1, 1] : tensor<2x1x2x8xbf16> to tensor<2x1x2x4xbf16>
  %k_rope1 = tensor.expand_shape %k_rope [[0], [1], [2, 3]] output_shape [2, 1, 1, 2] : tensor<2x1x2xbf16> into tensor<2x1x1x2xbf16>
  %k_rope_heads = tensor.concat dim(2) %k_rope1, %k_rope1 : (tensor<2x1x1x2xbf16>, tensor<2x1x1x2xbf16>) -> tensor<2x1x2x2xbf16>
  %key = tensor.concat dim(3) %k_nope, %k_rope_heads : (tensor<2x1x2x4xbf16>, tensor<2x1x2x2xbf16>) -> tensor<2x1x2x6xbf16>
  %query = tensor.concat dim(3) %q_nope, %q_rope : (tensor<2x1x2x4xbf16>, tensor<2x1x2x2xbf16>) -> tensor<2x1x2x6xbf16>
  %key_rows = tensor.collapse_shape %key [[0, 1], [2], [3]] : tensor<2x1x2x6xbf16> into tensor<2x2x6xbf16>
  %k_store = "mla.scatter_cache"(%k_cache, %rows, %key_rows) : (tensor<2x20x2x6xbf16>, tensor<2xi64>, tensor<2x2x6xbf16>) -> tensor<2x20x2x6xbf16>
  %v_rows = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x1x2x4xbf16> into tensor<2x2x4xbf16>
  %v_store = "mla.scatter_cache"(%v_cache, %rows, %v_rows) : (tensor<2x20x2x4xbf16>, tensor<2xi64>, tensor<2x2x4xbf16>) -> tensor<2x20x2x4xbf16>
  %table = arith.constant dense<[[0], [1]]> : tensor<2x1xi32>
  // expected-remark @+1 {{[ABSORB-002]}}
  %o = "mla.paged_attention"(%query, %k_store, %v_store, %table, %seq_lengths) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>, scale_value = 0.5 : f64} : (tensor<2x1x2x6xbf16>, tensor<2x20x2x6xbf16>, tensor<2x20x2x4xbf16>, tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x1x2x4xbf16>
  return %k_store, %v_store, %o : tensor<2x20x2x6xbf16>, tensor<2x20x2x4xbf16>, tensor<2x1x2x4xbf16>
}

// -----

// The keys are also a result of the function: the rewrite would not compute them.
// CHECK-LABEL: func.func @keys_used
// CHECK-NOT: mla.state
// CHECK: "mla.paged_attention"
ml_program.global private @"kv_b_proj.weight"(#ml_program.extern : tensor<16x8xbf16>) : tensor<16x8xbf16>
func.func @keys_used(
    %k_cache: tensor<2x16x2x6xbf16> {mla.buffer, mla.name = "layers.0.self_attn.k_cache"},
    %v_cache: tensor<2x16x2x4xbf16> {mla.buffer, mla.name = "layers.0.self_attn.v_cache"},
    %c_kv: tensor<2x1x8xbf16> {mla.name = "c_kv"},
    %k_rope: tensor<2x1x2xbf16> {mla.name = "k_rope"},
    %q_nope: tensor<2x1x2x4xbf16> {mla.name = "q_nope"},
    %q_rope: tensor<2x1x2x2xbf16> {mla.name = "q_rope"},
    %rows: tensor<2xi64> {mla.name = "cache_rows"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"})
    -> (tensor<2x16x2x6xbf16>, tensor<2x16x2x4xbf16>, tensor<2x1x2x4xbf16>, tensor<2x1x2x6xbf16>) {
  %w = ml_program.global_load_const @"kv_b_proj.weight" : tensor<16x8xbf16>
  %wt = "mla.transpose"(%w) {permutation = array<i64: 1, 0>} : (tensor<16x8xbf16>) -> tensor<8x16xbf16>
  %kv = "mla.matmul"(%c_kv, %wt) : (tensor<2x1x8xbf16>, tensor<8x16xbf16>) -> tensor<2x1x16xbf16>
  %heads = tensor.expand_shape %kv [[0], [1], [2, 3]] output_shape [2, 1, 2, 8] : tensor<2x1x16xbf16> into tensor<2x1x2x8xbf16>
  %k_nope = tensor.extract_slice %heads[0, 0, 0, 0] [2, 1, 2, 4] [1, 1, 1, 1] : tensor<2x1x2x8xbf16> to tensor<2x1x2x4xbf16>
  %v = tensor.extract_slice %heads[0, 0, 0, 4] [2, 1, 2, 4] [1, 1, 1, 1] : tensor<2x1x2x8xbf16> to tensor<2x1x2x4xbf16>
  %k_rope1 = tensor.expand_shape %k_rope [[0], [1], [2, 3]] output_shape [2, 1, 1, 2] : tensor<2x1x2xbf16> into tensor<2x1x1x2xbf16>
  %k_rope_heads = tensor.concat dim(2) %k_rope1, %k_rope1 : (tensor<2x1x1x2xbf16>, tensor<2x1x1x2xbf16>) -> tensor<2x1x2x2xbf16>
  %key = tensor.concat dim(3) %k_nope, %k_rope_heads : (tensor<2x1x2x4xbf16>, tensor<2x1x2x2xbf16>) -> tensor<2x1x2x6xbf16>
  %query = tensor.concat dim(3) %q_nope, %q_rope : (tensor<2x1x2x4xbf16>, tensor<2x1x2x2xbf16>) -> tensor<2x1x2x6xbf16>
  %key_rows = tensor.collapse_shape %key [[0, 1], [2], [3]] : tensor<2x1x2x6xbf16> into tensor<2x2x6xbf16>
  %k_store = "mla.scatter_cache"(%k_cache, %rows, %key_rows) : (tensor<2x16x2x6xbf16>, tensor<2xi64>, tensor<2x2x6xbf16>) -> tensor<2x16x2x6xbf16>
  %v_rows = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x1x2x4xbf16> into tensor<2x2x4xbf16>
  %v_store = "mla.scatter_cache"(%v_cache, %rows, %v_rows) : (tensor<2x16x2x4xbf16>, tensor<2xi64>, tensor<2x2x4xbf16>) -> tensor<2x16x2x4xbf16>
  %table = arith.constant dense<[[0], [1]]> : tensor<2x1xi32>
  // expected-remark @+1 {{intermediate results (tensor.concat) also feed ops outside the naive attention [FUSE-003]}}
  %o = "mla.paged_attention"(%query, %k_store, %v_store, %table, %seq_lengths) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>, scale_value = 0.5 : f64} : (tensor<2x1x2x6xbf16>, tensor<2x16x2x6xbf16>, tensor<2x16x2x4xbf16>, tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x1x2x4xbf16>
  return %k_store, %v_store, %o, %key : tensor<2x16x2x6xbf16>, tensor<2x16x2x4xbf16>, tensor<2x1x2x4xbf16>, tensor<2x1x2x6xbf16>
}

// -----

// Keys and values in f16 from a bf16 latent and weight: the absorbed products would mix types.
// CHECK-LABEL: func.func @mixed_types
// CHECK-NOT: mla.state
// CHECK: "mla.paged_attention"
ml_program.global private @"kv_b_proj.weight"(#ml_program.extern : tensor<16x8xbf16>) : tensor<16x8xbf16>
func.func @mixed_types(
    %k_cache: tensor<2x16x2x6xf16> {mla.buffer, mla.name = "layers.0.self_attn.k_cache"},
    %v_cache: tensor<2x16x2x4xf16> {mla.buffer, mla.name = "layers.0.self_attn.v_cache"},
    %c_kv: tensor<2x1x8xbf16> {mla.name = "c_kv"},
    %k_rope: tensor<2x1x2xf16> {mla.name = "k_rope"},
    %q_nope: tensor<2x1x2x4xf16> {mla.name = "q_nope"},
    %q_rope: tensor<2x1x2x2xf16> {mla.name = "q_rope"},
    %rows: tensor<2xi64> {mla.name = "cache_rows"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"})
    -> (tensor<2x16x2x6xf16>, tensor<2x16x2x4xf16>, tensor<2x1x2x4xf16>) {
  %w = ml_program.global_load_const @"kv_b_proj.weight" : tensor<16x8xbf16>
  %wt = "mla.transpose"(%w) {permutation = array<i64: 1, 0>} : (tensor<16x8xbf16>) -> tensor<8x16xbf16>
  %kv = "mla.matmul"(%c_kv, %wt) : (tensor<2x1x8xbf16>, tensor<8x16xbf16>) -> tensor<2x1x16xf16>
  %heads = tensor.expand_shape %kv [[0], [1], [2, 3]] output_shape [2, 1, 2, 8] : tensor<2x1x16xf16> into tensor<2x1x2x8xf16>
  %k_nope = tensor.extract_slice %heads[0, 0, 0, 0] [2, 1, 2, 4] [1, 1, 1, 1] : tensor<2x1x2x8xf16> to tensor<2x1x2x4xf16>
  %v = tensor.extract_slice %heads[0, 0, 0, 4] [2, 1, 2, 4] [1, 1, 1, 1] : tensor<2x1x2x8xf16> to tensor<2x1x2x4xf16>
  %k_rope1 = tensor.expand_shape %k_rope [[0], [1], [2, 3]] output_shape [2, 1, 1, 2] : tensor<2x1x2xf16> into tensor<2x1x1x2xf16>
  %k_rope_heads = tensor.concat dim(2) %k_rope1, %k_rope1 : (tensor<2x1x1x2xf16>, tensor<2x1x1x2xf16>) -> tensor<2x1x2x2xf16>
  %key = tensor.concat dim(3) %k_nope, %k_rope_heads : (tensor<2x1x2x4xf16>, tensor<2x1x2x2xf16>) -> tensor<2x1x2x6xf16>
  %query = tensor.concat dim(3) %q_nope, %q_rope : (tensor<2x1x2x4xf16>, tensor<2x1x2x2xf16>) -> tensor<2x1x2x6xf16>
  %key_rows = tensor.collapse_shape %key [[0, 1], [2], [3]] : tensor<2x1x2x6xf16> into tensor<2x2x6xf16>
  %k_store = "mla.scatter_cache"(%k_cache, %rows, %key_rows) : (tensor<2x16x2x6xf16>, tensor<2xi64>, tensor<2x2x6xf16>) -> tensor<2x16x2x6xf16>
  %v_rows = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x1x2x4xf16> into tensor<2x2x4xf16>
  %v_store = "mla.scatter_cache"(%v_cache, %rows, %v_rows) : (tensor<2x16x2x4xf16>, tensor<2xi64>, tensor<2x2x4xf16>) -> tensor<2x16x2x4xf16>
  %table = arith.constant dense<[[0], [1]]> : tensor<2x1xi32>
  // expected-remark @+1 {{the absorbed form computes in one element type (bf16 or f16), the graph has q_nope f16, q_rope f16, c_kv bf16, k_rope f16, weight_kv_b bf16, k_cache f16 [FUSE-001]}}
  %o = "mla.paged_attention"(%query, %k_store, %v_store, %table, %seq_lengths) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>, scale_value = 0.5 : f64} : (tensor<2x1x2x6xf16>, tensor<2x16x2x6xf16>, tensor<2x16x2x4xf16>, tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x1x2x4xf16>
  return %k_store, %v_store, %o : tensor<2x16x2x6xf16>, tensor<2x16x2x4xf16>, tensor<2x1x2x4xf16>
}

// -----

// k_nope and v overlap (columns [0, 4) and [2, 8) of each head's 8): not a split of W_kvb into
// W_uk and W_uv (the rewrite would reshape W_kvb to (8, 2, 10)).
// CHECK-LABEL: func.func @overlapping_halves
// CHECK-NOT: mla.state
// CHECK: "mla.paged_attention"
ml_program.global private @"kv_b_proj.weight"(#ml_program.extern : tensor<16x8xbf16>) : tensor<16x8xbf16>
func.func @overlapping_halves(
    %k_cache: tensor<2x16x2x6xbf16> {mla.buffer, mla.name = "layers.0.self_attn.k_cache"},
    %v_cache: tensor<2x16x2x6xbf16> {mla.buffer, mla.name = "layers.0.self_attn.v_cache"},
    %c_kv: tensor<2x1x8xbf16> {mla.name = "c_kv"},
    %k_rope: tensor<2x1x2xbf16> {mla.name = "k_rope"},
    %q_nope: tensor<2x1x2x4xbf16> {mla.name = "q_nope"},
    %q_rope: tensor<2x1x2x2xbf16> {mla.name = "q_rope"},
    %rows: tensor<2xi64> {mla.name = "cache_rows"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"})
    -> (tensor<2x16x2x6xbf16>, tensor<2x16x2x6xbf16>, tensor<2x1x2x6xbf16>) {
  %w = ml_program.global_load_const @"kv_b_proj.weight" : tensor<16x8xbf16>
  %wt = "mla.transpose"(%w) {permutation = array<i64: 1, 0>} : (tensor<16x8xbf16>) -> tensor<8x16xbf16>
  %kv = "mla.matmul"(%c_kv, %wt) : (tensor<2x1x8xbf16>, tensor<8x16xbf16>) -> tensor<2x1x16xbf16>
  %heads = tensor.expand_shape %kv [[0], [1], [2, 3]] output_shape [2, 1, 2, 8] : tensor<2x1x16xbf16> into tensor<2x1x2x8xbf16>
  %k_nope = tensor.extract_slice %heads[0, 0, 0, 0] [2, 1, 2, 4] [1, 1, 1, 1] : tensor<2x1x2x8xbf16> to tensor<2x1x2x4xbf16>
  %v = tensor.extract_slice %heads[0, 0, 0, 2] [2, 1, 2, 6] [1, 1, 1, 1] : tensor<2x1x2x8xbf16> to tensor<2x1x2x6xbf16>
  %k_rope1 = tensor.expand_shape %k_rope [[0], [1], [2, 3]] output_shape [2, 1, 1, 2] : tensor<2x1x2xbf16> into tensor<2x1x1x2xbf16>
  %k_rope_heads = tensor.concat dim(2) %k_rope1, %k_rope1 : (tensor<2x1x1x2xbf16>, tensor<2x1x1x2xbf16>) -> tensor<2x1x2x2xbf16>
  %key = tensor.concat dim(3) %k_nope, %k_rope_heads : (tensor<2x1x2x4xbf16>, tensor<2x1x2x2xbf16>) -> tensor<2x1x2x6xbf16>
  %query = tensor.concat dim(3) %q_nope, %q_rope : (tensor<2x1x2x4xbf16>, tensor<2x1x2x2xbf16>) -> tensor<2x1x2x6xbf16>
  %key_rows = tensor.collapse_shape %key [[0, 1], [2], [3]] : tensor<2x1x2x6xbf16> into tensor<2x2x6xbf16>
  %k_store = "mla.scatter_cache"(%k_cache, %rows, %key_rows) : (tensor<2x16x2x6xbf16>, tensor<2xi64>, tensor<2x2x6xbf16>) -> tensor<2x16x2x6xbf16>
  %v_rows = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x1x2x6xbf16> into tensor<2x2x6xbf16>
  %v_store = "mla.scatter_cache"(%v_cache, %rows, %v_rows) : (tensor<2x16x2x6xbf16>, tensor<2xi64>, tensor<2x2x6xbf16>) -> tensor<2x16x2x6xbf16>
  %table = arith.constant dense<[[0], [1]]> : tensor<2x1xi32>
  // expected-remark @+1 {{k_nope and v are not the per-head halves of c_kv @ W_kvb viewed (..., N, D + Dv) [FUSE-001]}}
  %o = "mla.paged_attention"(%query, %k_store, %v_store, %table, %seq_lengths) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>, scale_value = 0.5 : f64} : (tensor<2x1x2x6xbf16>, tensor<2x16x2x6xbf16>, tensor<2x16x2x6xbf16>, tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x1x2x6xbf16>
  return %k_store, %v_store, %o : tensor<2x16x2x6xbf16>, tensor<2x16x2x6xbf16>, tensor<2x1x2x6xbf16>
}

// -----

// The rope row viewed (B, S, Dr, 1) and copied along the last axis: head h's rope part is
// k_rope[h] repeated, not k_rope (N = Dr = 2 gives the shapes of the real copy).
// CHECK-LABEL: func.func @rope_over_the_wrong_axis
// CHECK-NOT: mla.state
// CHECK: "mla.paged_attention"
ml_program.global private @"kv_b_proj.weight"(#ml_program.extern : tensor<16x8xbf16>) : tensor<16x8xbf16>
func.func @rope_over_the_wrong_axis(
    %k_cache: tensor<2x16x2x6xbf16> {mla.buffer, mla.name = "layers.0.self_attn.k_cache"},
    %v_cache: tensor<2x16x2x4xbf16> {mla.buffer, mla.name = "layers.0.self_attn.v_cache"},
    %c_kv: tensor<2x1x8xbf16> {mla.name = "c_kv"},
    %k_rope: tensor<2x1x2xbf16> {mla.name = "k_rope"},
    %q_nope: tensor<2x1x2x4xbf16> {mla.name = "q_nope"},
    %q_rope: tensor<2x1x2x2xbf16> {mla.name = "q_rope"},
    %rows: tensor<2xi64> {mla.name = "cache_rows"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"})
    -> (tensor<2x16x2x6xbf16>, tensor<2x16x2x4xbf16>, tensor<2x1x2x4xbf16>) {
  %w = ml_program.global_load_const @"kv_b_proj.weight" : tensor<16x8xbf16>
  %wt = "mla.transpose"(%w) {permutation = array<i64: 1, 0>} : (tensor<16x8xbf16>) -> tensor<8x16xbf16>
  %kv = "mla.matmul"(%c_kv, %wt) : (tensor<2x1x8xbf16>, tensor<8x16xbf16>) -> tensor<2x1x16xbf16>
  %heads = tensor.expand_shape %kv [[0], [1], [2, 3]] output_shape [2, 1, 2, 8] : tensor<2x1x16xbf16> into tensor<2x1x2x8xbf16>
  %k_nope = tensor.extract_slice %heads[0, 0, 0, 0] [2, 1, 2, 4] [1, 1, 1, 1] : tensor<2x1x2x8xbf16> to tensor<2x1x2x4xbf16>
  %v = tensor.extract_slice %heads[0, 0, 0, 4] [2, 1, 2, 4] [1, 1, 1, 1] : tensor<2x1x2x8xbf16> to tensor<2x1x2x4xbf16>
  %k_rope1 = tensor.expand_shape %k_rope [[0], [1], [2, 3]] output_shape [2, 1, 2, 1] : tensor<2x1x2xbf16> into tensor<2x1x2x1xbf16>
  %k_rope_heads = tensor.concat dim(3) %k_rope1, %k_rope1 : (tensor<2x1x2x1xbf16>, tensor<2x1x2x1xbf16>) -> tensor<2x1x2x2xbf16>
  %key = tensor.concat dim(3) %k_nope, %k_rope_heads : (tensor<2x1x2x4xbf16>, tensor<2x1x2x2xbf16>) -> tensor<2x1x2x6xbf16>
  %query = tensor.concat dim(3) %q_nope, %q_rope : (tensor<2x1x2x4xbf16>, tensor<2x1x2x2xbf16>) -> tensor<2x1x2x6xbf16>
  %key_rows = tensor.collapse_shape %key [[0, 1], [2], [3]] : tensor<2x1x2x6xbf16> into tensor<2x2x6xbf16>
  %k_store = "mla.scatter_cache"(%k_cache, %rows, %key_rows) : (tensor<2x16x2x6xbf16>, tensor<2xi64>, tensor<2x2x6xbf16>) -> tensor<2x16x2x6xbf16>
  %v_rows = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x1x2x4xbf16> into tensor<2x2x4xbf16>
  %v_store = "mla.scatter_cache"(%v_cache, %rows, %v_rows) : (tensor<2x16x2x4xbf16>, tensor<2xi64>, tensor<2x2x4xbf16>) -> tensor<2x16x2x4xbf16>
  %table = arith.constant dense<[[0], [1]]> : tensor<2x1xi32>
  // expected-remark @+1 {{the keys are not (k_nope, k_rope of each token over the heads) [FUSE-001]}}
  %o = "mla.paged_attention"(%query, %k_store, %v_store, %table, %seq_lengths) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>, scale_value = 0.5 : f64} : (tensor<2x1x2x6xbf16>, tensor<2x16x2x6xbf16>, tensor<2x16x2x4xbf16>, tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x1x2x4xbf16>
  return %k_store, %v_store, %o : tensor<2x16x2x6xbf16>, tensor<2x16x2x4xbf16>, tensor<2x1x2x4xbf16>
}

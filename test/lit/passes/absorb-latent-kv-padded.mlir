// RUN: mla-opt %s --raise-rms-norm --raise-rope --absorb-latent-kv --cleanup | FileCheck %s

// absorb-latent-kv over a static cache whose length no block size divides (13), as the importer
// writes transformers 5.24's DeepseekV3Attention (compile_module of the attention; N = 2,
// D = Dv = 16, Dr = 8, Hckv = 32, B = 1, S = 1, L = 13): each cache (1, 1, 13, H) is copied into
// whole 16-row pages (concat with 3 zero rows), written there (mla.scatter_cache at slot
// b * 16 + position), and its first 13 rows are sliced back as the cache's new value. The
// absorbed attention reads the padded pages themselves (one block of 16, block table [[0]]);
// the lengths (at most 13) never reach the padding.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: tensor<1x1x13x32xbf16> {mla.buffer, mla.name = "cache.layers.0.keys"}
// CHECK: %[[PADDED:.*]] = tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<1x13x32xbf16>, tensor<1x3x32xbf16>) -> tensor<1x16x32xbf16>
// CHECK: %[[PADDED_R:.*]] = tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<1x13x8xbf16>, tensor<1x3x8xbf16>) -> tensor<1x16x8xbf16>
// CHECK: %[[KV:.*]] = "mla.scatter_cache"(%{{.*}}, %[[SLOTS:.*]], %{{.*}}) : (tensor<1x16x1x32xbf16>, tensor<1xi64>, tensor<1x1x32xbf16>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0] [1, 13, 32] [1, 1, 1] : tensor<1x16x32xbf16> to tensor<1x13x32xbf16>
// CHECK: %[[KR:.*]] = "mla.scatter_cache"(%{{.*}}, %[[SLOTS]], %{{.*}}) : (tensor<1x16x1x8xbf16>, tensor<1xi64>, tensor<1x1x8xbf16>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0] [1, 13, 8] [1, 1, 1] : tensor<1x16x8xbf16> to tensor<1x13x8xbf16>
// CHECK: %[[Q:.*]] = "mla.head_matmul"
// CHECK: %[[TABLE:.*]] = arith.constant dense<0> : tensor<1x1xi32>
// CHECK: %[[ATT:.*]] = "mla.paged_attention"(%[[Q]], %[[KV]], %[[KV]], %[[TABLE]], %{{.*}}, %{{.*}}, %[[KR]])
// CHECK: "mla.head_matmul"(%[[ATT]], %{{.*}}) : (tensor<1x1x2x32xbf16>, tensor<2x32x16xbf16>) -> tensor<1x1x2x16xbf16>
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<i64>, tensor<1x1x13x32xbf16>, tensor<1x1x13x8xbf16>, tensor<1x1x64xbf16>
ml_program.global private @"inner.q_a_proj.weight"(#ml_program.extern : tensor<48x64xbf16>) : tensor<48x64xbf16>
ml_program.global private @"inner.q_a_layernorm.weight"(#ml_program.extern : tensor<48xbf16>) : tensor<48xbf16>
ml_program.global private @"inner.q_b_proj.weight"(#ml_program.extern : tensor<48x48xbf16>) : tensor<48x48xbf16>
ml_program.global private @"inner.kv_a_proj_with_mqa.weight"(#ml_program.extern : tensor<40x64xbf16>) : tensor<40x64xbf16>
ml_program.global private @"inner.kv_a_layernorm.weight"(#ml_program.extern : tensor<32xbf16>) : tensor<32xbf16>
ml_program.global private @"inner.kv_b_proj.weight"(#ml_program.extern : tensor<64x32xbf16>) : tensor<64x32xbf16>
ml_program.global private @"inner.o_proj.weight"(#ml_program.extern : tensor<64x32xbf16>) : tensor<64x32xbf16>
func.func @forward(
    %cache_layers_0_cumulative_length: tensor<i64> {mla.name = "cache.layers.0.cumulative_length", mla.buffer},
    %cache_layers_0_keys: tensor<1x1x13x32xbf16> {mla.name = "cache.layers.0.keys", mla.buffer},
    %cache_layers_0_values: tensor<1x1x13x8xbf16> {mla.name = "cache.layers.0.values", mla.buffer},
    %args_0: tensor<1x1x64xbf16> {mla.name = "args_0"},
    %args_1_0: tensor<1x1x8xbf16> {mla.name = "args_1_0"},
    %args_1_1: tensor<1x1x8xbf16> {mla.name = "args_1_1"},
    %args_2: tensor<1x1x1x13xi1> {mla.name = "args_2"},
    %args_2_lengths: tensor<1xi32> {mla.name = "args_2.lengths"})
    -> (tensor<i64>, tensor<1x1x13x32xbf16>, tensor<1x1x13x8xbf16>, tensor<1x1x64xbf16>) {
  %inner_q_a_proj_weight = ml_program.global_load_const @"inner.q_a_proj.weight" : tensor<48x64xbf16>
  %inner_q_a_layernorm_weight = ml_program.global_load_const @"inner.q_a_layernorm.weight" : tensor<48xbf16>
  %inner_q_b_proj_weight = ml_program.global_load_const @"inner.q_b_proj.weight" : tensor<48x48xbf16>
  %inner_kv_a_proj_with_mqa_weight = ml_program.global_load_const @"inner.kv_a_proj_with_mqa.weight" : tensor<40x64xbf16>
  %inner_kv_a_layernorm_weight = ml_program.global_load_const @"inner.kv_a_layernorm.weight" : tensor<32xbf16>
  %inner_kv_b_proj_weight = ml_program.global_load_const @"inner.kv_b_proj.weight" : tensor<64x32xbf16>
  %inner_o_proj_weight = ml_program.global_load_const @"inner.o_proj.weight" : tensor<64x32xbf16>
  %linear_wt = "mla.transpose"(%inner_q_a_proj_weight) {permutation = array<i64: 1, 0>} : (tensor<48x64xbf16>) -> (tensor<64x48xbf16>)
  %linear = "mla.matmul"(%args_0, %linear_wt) : (tensor<1x1x64xbf16>, tensor<64x48xbf16>) -> (tensor<1x1x48xbf16>)
  %_to_copy = arith.extf %linear : tensor<1x1x48xbf16> to tensor<1x1x48xf32>
  %pow_1 = "mla.mul"(%_to_copy, %_to_copy) : (tensor<1x1x48xf32>, tensor<1x1x48xf32>) -> (tensor<1x1x48xf32>)
  %mean = "mla.mean"(%pow_1) : (tensor<1x1x48xf32>) -> (tensor<1x1x1xf32>)
  %cst = arith.constant dense<1.0e-06> : tensor<f32>
  %add = "mla.add"(%mean, %cst) : (tensor<1x1x1xf32>, tensor<f32>) -> (tensor<1x1x1xf32>)
  %rsqrt = "mla.rsqrt"(%add) : (tensor<1x1x1xf32>) -> (tensor<1x1x1xf32>)
  %mul = "mla.mul"(%_to_copy, %rsqrt) : (tensor<1x1x48xf32>, tensor<1x1x1xf32>) -> (tensor<1x1x48xf32>)
  %_to_copy_1 = arith.truncf %mul : tensor<1x1x48xf32> to tensor<1x1x48xbf16>
  %mul_1 = "mla.mul"(%inner_q_a_layernorm_weight, %_to_copy_1) : (tensor<48xbf16>, tensor<1x1x48xbf16>) -> (tensor<1x1x48xbf16>)
  %linear_1_wt = "mla.transpose"(%inner_q_b_proj_weight) {permutation = array<i64: 1, 0>} : (tensor<48x48xbf16>) -> (tensor<48x48xbf16>)
  %linear_1 = "mla.matmul"(%mul_1, %linear_1_wt) : (tensor<1x1x48xbf16>, tensor<48x48xbf16>) -> (tensor<1x1x48xbf16>)
  %view = tensor.expand_shape %linear_1 [[0], [1], [2, 3]] output_shape [1, 1, 2, 24] : tensor<1x1x48xbf16> into tensor<1x1x2x24xbf16>
  %transpose = "mla.transpose"(%view) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x1x2x24xbf16>) -> (tensor<1x2x1x24xbf16>)
  %split_with_sizes_0 = tensor.extract_slice %transpose[0, 0, 0, 0] [1, 2, 1, 16] [1, 1, 1, 1] : tensor<1x2x1x24xbf16> to tensor<1x2x1x16xbf16>
  %split_with_sizes_1 = tensor.extract_slice %transpose[0, 0, 0, 16] [1, 2, 1, 8] [1, 1, 1, 1] : tensor<1x2x1x24xbf16> to tensor<1x2x1x8xbf16>
  %linear_2_wt = "mla.transpose"(%inner_kv_a_proj_with_mqa_weight) {permutation = array<i64: 1, 0>} : (tensor<40x64xbf16>) -> (tensor<64x40xbf16>)
  %linear_2 = "mla.matmul"(%args_0, %linear_2_wt) : (tensor<1x1x64xbf16>, tensor<64x40xbf16>) -> (tensor<1x1x40xbf16>)
  %split_with_sizes_1_0 = tensor.extract_slice %linear_2[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x40xbf16> to tensor<1x1x32xbf16>
  %split_with_sizes_1_1 = tensor.extract_slice %linear_2[0, 0, 32] [1, 1, 8] [1, 1, 1] : tensor<1x1x40xbf16> to tensor<1x1x8xbf16>
  %_to_copy_2 = arith.extf %split_with_sizes_1_0 : tensor<1x1x32xbf16> to tensor<1x1x32xf32>
  %pow_2 = "mla.mul"(%_to_copy_2, %_to_copy_2) : (tensor<1x1x32xf32>, tensor<1x1x32xf32>) -> (tensor<1x1x32xf32>)
  %mean_1 = "mla.mean"(%pow_2) : (tensor<1x1x32xf32>) -> (tensor<1x1x1xf32>)
  %cst_1 = arith.constant dense<1.0e-06> : tensor<f32>
  %add_1 = "mla.add"(%mean_1, %cst_1) : (tensor<1x1x1xf32>, tensor<f32>) -> (tensor<1x1x1xf32>)
  %rsqrt_1 = "mla.rsqrt"(%add_1) : (tensor<1x1x1xf32>) -> (tensor<1x1x1xf32>)
  %mul_2 = "mla.mul"(%_to_copy_2, %rsqrt_1) : (tensor<1x1x32xf32>, tensor<1x1x1xf32>) -> (tensor<1x1x32xf32>)
  %_to_copy_3 = arith.truncf %mul_2 : tensor<1x1x32xf32> to tensor<1x1x32xbf16>
  %mul_3 = "mla.mul"(%inner_kv_a_layernorm_weight, %_to_copy_3) : (tensor<32xbf16>, tensor<1x1x32xbf16>) -> (tensor<1x1x32xbf16>)
  %view_2 = tensor.expand_shape %split_with_sizes_1_1 [[0], [1], [2, 3]] output_shape [1, 1, 1, 8] : tensor<1x1x8xbf16> into tensor<1x1x1x8xbf16>
  %slice_1 = tensor.extract_slice %args_1_0[0, 0, 0] [1, 1, 4] [1, 1, 1] : tensor<1x1x8xbf16> to tensor<1x1x4xbf16>
  %unsqueeze = tensor.expand_shape %slice_1 [[0], [1], [2, 3]] output_shape [1, 1, 1, 4] : tensor<1x1x4xbf16> into tensor<1x1x1x4xbf16>
  %slice_2 = tensor.extract_slice %args_1_1[0, 0, 0] [1, 1, 4] [1, 1, 1] : tensor<1x1x8xbf16> to tensor<1x1x4xbf16>
  %unsqueeze_1 = tensor.expand_shape %slice_2 [[0], [1], [2, 3]] output_shape [1, 1, 1, 4] : tensor<1x1x4xbf16> into tensor<1x1x1x4xbf16>
  %slice_3 = tensor.extract_slice %split_with_sizes_1[0, 0, 0, 0] [1, 2, 1, 4] [1, 1, 1, 2] : tensor<1x2x1x8xbf16> to tensor<1x2x1x4xbf16>
  %slice_4 = tensor.extract_slice %split_with_sizes_1[0, 0, 0, 1] [1, 2, 1, 4] [1, 1, 1, 2] : tensor<1x2x1x8xbf16> to tensor<1x2x1x4xbf16>
  %slice_5 = tensor.extract_slice %view_2[0, 0, 0, 0] [1, 1, 1, 4] [1, 1, 1, 2] : tensor<1x1x1x8xbf16> to tensor<1x1x1x4xbf16>
  %slice_6 = tensor.extract_slice %view_2[0, 0, 0, 1] [1, 1, 1, 4] [1, 1, 1, 2] : tensor<1x1x1x8xbf16> to tensor<1x1x1x4xbf16>
  %mul_4 = "mla.mul"(%slice_3, %unsqueeze) : (tensor<1x2x1x4xbf16>, tensor<1x1x1x4xbf16>) -> (tensor<1x2x1x4xbf16>)
  %mul_5 = "mla.mul"(%slice_4, %unsqueeze_1) : (tensor<1x2x1x4xbf16>, tensor<1x1x1x4xbf16>) -> (tensor<1x2x1x4xbf16>)
  %cst_2 = arith.constant dense<-1.0> : tensor<bf16>
  %sub_neg = "mla.mul"(%mul_5, %cst_2) : (tensor<1x2x1x4xbf16>, tensor<bf16>) -> (tensor<1x2x1x4xbf16>)
  %sub = "mla.add"(%mul_4, %sub_neg) : (tensor<1x2x1x4xbf16>, tensor<1x2x1x4xbf16>) -> (tensor<1x2x1x4xbf16>)
  %mul_6 = "mla.mul"(%slice_4, %unsqueeze) : (tensor<1x2x1x4xbf16>, tensor<1x1x1x4xbf16>) -> (tensor<1x2x1x4xbf16>)
  %mul_7 = "mla.mul"(%slice_3, %unsqueeze_1) : (tensor<1x2x1x4xbf16>, tensor<1x1x1x4xbf16>) -> (tensor<1x2x1x4xbf16>)
  %add_2 = "mla.add"(%mul_6, %mul_7) : (tensor<1x2x1x4xbf16>, tensor<1x2x1x4xbf16>) -> (tensor<1x2x1x4xbf16>)
  %cat = tensor.concat dim(3) %sub, %add_2 : (tensor<1x2x1x4xbf16>, tensor<1x2x1x4xbf16>) -> tensor<1x2x1x8xbf16>
  %mul_8 = "mla.mul"(%slice_5, %unsqueeze) : (tensor<1x1x1x4xbf16>, tensor<1x1x1x4xbf16>) -> (tensor<1x1x1x4xbf16>)
  %mul_9 = "mla.mul"(%slice_6, %unsqueeze_1) : (tensor<1x1x1x4xbf16>, tensor<1x1x1x4xbf16>) -> (tensor<1x1x1x4xbf16>)
  %cst_3 = arith.constant dense<-1.0> : tensor<bf16>
  %sub_1_neg = "mla.mul"(%mul_9, %cst_3) : (tensor<1x1x1x4xbf16>, tensor<bf16>) -> (tensor<1x1x1x4xbf16>)
  %sub_1 = "mla.add"(%mul_8, %sub_1_neg) : (tensor<1x1x1x4xbf16>, tensor<1x1x1x4xbf16>) -> (tensor<1x1x1x4xbf16>)
  %mul_10 = "mla.mul"(%slice_6, %unsqueeze) : (tensor<1x1x1x4xbf16>, tensor<1x1x1x4xbf16>) -> (tensor<1x1x1x4xbf16>)
  %mul_11 = "mla.mul"(%slice_5, %unsqueeze_1) : (tensor<1x1x1x4xbf16>, tensor<1x1x1x4xbf16>) -> (tensor<1x1x1x4xbf16>)
  %add_3 = "mla.add"(%mul_10, %mul_11) : (tensor<1x1x1x4xbf16>, tensor<1x1x1x4xbf16>) -> (tensor<1x1x1x4xbf16>)
  %cat_1 = tensor.concat dim(3) %sub_1, %add_3 : (tensor<1x1x1x4xbf16>, tensor<1x1x1x4xbf16>) -> tensor<1x1x1x8xbf16>
  %arange = arith.constant dense<[0]> : tensor<1xi64>
  %add_4 = "mla.add"(%arange, %cache_layers_0_cumulative_length) : (tensor<1xi64>, tensor<i64>) -> (tensor<1xi64>)
  %cst_4 = arith.constant dense<1> : tensor<i64>
  %add_5 = "mla.add"(%cache_layers_0_cumulative_length, %cst_4) : (tensor<i64>, tensor<i64>) -> (tensor<i64>)
  %index_copy_rows = tensor.collapse_shape %cache_layers_0_keys [[0], [1, 2], [3]] : tensor<1x1x13x32xbf16> into tensor<1x13x32xbf16>
  %index_copy_pad = arith.constant dense<0.0> : tensor<1x3x32xbf16>
  %index_copy_padded = tensor.concat dim(1) %index_copy_rows, %index_copy_pad : (tensor<1x13x32xbf16>, tensor<1x3x32xbf16>) -> tensor<1x16x32xbf16>
  %index_copy_paged = tensor.expand_shape %index_copy_padded [[0], [1], [2, 3]] output_shape [1, 16, 1, 32] : tensor<1x16x32xbf16> into tensor<1x16x1x32xbf16>
  %index_copy_rows_1 = arith.constant dense<[[0], [1], [2], [3], [4], [5], [6], [7], [8], [9], [10], [11], [12]]> : tensor<13x1xi64>
  %index_copy_picked = "mla.gather"(%index_copy_rows_1, %add_4) : (tensor<13x1xi64>, tensor<1xi64>) -> (tensor<1x1xi64>)
  %index_copy_by_batch = "mla.transpose"(%index_copy_picked) {permutation = array<i64: 1, 0>} : (tensor<1x1xi64>) -> (tensor<1x1xi64>)
  %index_copy_slots = tensor.collapse_shape %index_copy_by_batch [[0, 1]] : tensor<1x1xi64> into tensor<1xi64>
  %index_copy = "mla.scatter_cache"(%index_copy_paged, %index_copy_slots, %mul_3) : (tensor<1x16x1x32xbf16>, tensor<1xi64>, tensor<1x1x32xbf16>) -> (tensor<1x16x1x32xbf16>)
  %index_copy_written = tensor.collapse_shape %index_copy [[0], [1], [2, 3]] : tensor<1x16x1x32xbf16> into tensor<1x16x32xbf16>
  %index_copy_unpadded = tensor.extract_slice %index_copy_written[0, 0, 0] [1, 13, 32] [1, 1, 1] : tensor<1x16x32xbf16> to tensor<1x13x32xbf16>
  %index_copy_view = tensor.expand_shape %index_copy_unpadded [[0], [1, 2], [3]] output_shape [1, 1, 13, 32] : tensor<1x13x32xbf16> into tensor<1x1x13x32xbf16>
  %index_copy_1_rows = tensor.collapse_shape %cache_layers_0_values [[0], [1, 2], [3]] : tensor<1x1x13x8xbf16> into tensor<1x13x8xbf16>
  %index_copy_1_pad = arith.constant dense<0.0> : tensor<1x3x8xbf16>
  %index_copy_1_padded = tensor.concat dim(1) %index_copy_1_rows, %index_copy_1_pad : (tensor<1x13x8xbf16>, tensor<1x3x8xbf16>) -> tensor<1x16x8xbf16>
  %index_copy_1_paged = tensor.expand_shape %index_copy_1_padded [[0], [1], [2, 3]] output_shape [1, 16, 1, 8] : tensor<1x16x8xbf16> into tensor<1x16x1x8xbf16>
  %index_copy_1_update = tensor.collapse_shape %cat_1 [[0], [1], [2, 3]] : tensor<1x1x1x8xbf16> into tensor<1x1x8xbf16>
  %index_copy_1 = "mla.scatter_cache"(%index_copy_1_paged, %index_copy_slots, %index_copy_1_update) : (tensor<1x16x1x8xbf16>, tensor<1xi64>, tensor<1x1x8xbf16>) -> (tensor<1x16x1x8xbf16>)
  %index_copy_1_written = tensor.collapse_shape %index_copy_1 [[0], [1], [2, 3]] : tensor<1x16x1x8xbf16> into tensor<1x16x8xbf16>
  %index_copy_1_unpadded = tensor.extract_slice %index_copy_1_written[0, 0, 0] [1, 13, 8] [1, 1, 1] : tensor<1x16x8xbf16> to tensor<1x13x8xbf16>
  %index_copy_1_view = tensor.expand_shape %index_copy_1_unpadded [[0], [1, 2], [3]] output_shape [1, 1, 13, 8] : tensor<1x13x8xbf16> into tensor<1x1x13x8xbf16>
  %cat_2 = tensor.concat dim(3) %split_with_sizes_0, %cat : (tensor<1x2x1x16xbf16>, tensor<1x2x1x8xbf16>) -> tensor<1x2x1x24xbf16>
  %linear_3_wt = "mla.transpose"(%inner_kv_b_proj_weight) {permutation = array<i64: 1, 0>} : (tensor<64x32xbf16>) -> (tensor<32x64xbf16>)
  %linear_3 = "mla.matmul"(%index_copy_view, %linear_3_wt) : (tensor<1x1x13x32xbf16>, tensor<32x64xbf16>) -> (tensor<1x1x13x64xbf16>)
  %view_3_flat = tensor.collapse_shape %linear_3 [[0, 1, 2, 3]] : tensor<1x1x13x64xbf16> into tensor<832xbf16>
  %view_3_1 = tensor.expand_shape %view_3_flat [[0, 1, 2, 3]] output_shape [1, 13, 2, 32] : tensor<832xbf16> into tensor<1x13x2x32xbf16>
  %transpose_1 = "mla.transpose"(%view_3_1) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x13x2x32xbf16>) -> (tensor<1x2x13x32xbf16>)
  %split_with_sizes_2_0 = tensor.extract_slice %transpose_1[0, 0, 0, 0] [1, 2, 13, 16] [1, 1, 1, 1] : tensor<1x2x13x32xbf16> to tensor<1x2x13x16xbf16>
  %split_with_sizes_2_1 = tensor.extract_slice %transpose_1[0, 0, 0, 16] [1, 2, 13, 16] [1, 1, 1, 1] : tensor<1x2x13x32xbf16> to tensor<1x2x13x16xbf16>
  %expand_1_1 = tensor.concat dim(1) %index_copy_1_view, %index_copy_1_view : (tensor<1x1x13x8xbf16>, tensor<1x1x13x8xbf16>) -> tensor<1x2x13x8xbf16>
  %slice_scatter_1 = tensor.concat dim(3) %split_with_sizes_2_0, %expand_1_1 : (tensor<1x2x13x16xbf16>, tensor<1x2x13x8xbf16>) -> tensor<1x2x13x24xbf16>
  %scaled_dot_product_attention_q = "mla.transpose"(%cat_2) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x1x24xbf16>) -> (tensor<1x1x2x24xbf16>)
  %scaled_dot_product_attention_k = "mla.transpose"(%slice_scatter_1) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x13x24xbf16>) -> (tensor<1x13x2x24xbf16>)
  %scaled_dot_product_attention_v = "mla.transpose"(%split_with_sizes_2_1) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x13x16xbf16>) -> (tensor<1x13x2x16xbf16>)
  %scaled_dot_product_attention_blocks = arith.constant dense<[[0]]> : tensor<1x1xi32>
  %scaled_dot_product_attention = "mla.paged_attention"(%scaled_dot_product_attention_q, %scaled_dot_product_attention_k, %scaled_dot_product_attention_v, %scaled_dot_product_attention_blocks, %args_2_lengths) {scale_value = 0.2041241452319315 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<1x1x2x24xbf16>, tensor<1x13x2x24xbf16>, tensor<1x13x2x16xbf16>, tensor<1x1xi32>, tensor<1xi32>) -> (tensor<1x1x2x16xbf16>)
  %scaled_dot_product_attention_bnsd = "mla.transpose"(%scaled_dot_product_attention) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x1x2x16xbf16>) -> (tensor<1x2x1x16xbf16>)
  %transpose_2 = "mla.transpose"(%scaled_dot_product_attention_bnsd) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x1x16xbf16>) -> (tensor<1x1x2x16xbf16>)
  %view_5 = tensor.collapse_shape %transpose_2 [[0], [1], [2, 3]] : tensor<1x1x2x16xbf16> into tensor<1x1x32xbf16>
  %linear_4_wt = "mla.transpose"(%inner_o_proj_weight) {permutation = array<i64: 1, 0>} : (tensor<64x32xbf16>) -> (tensor<32x64xbf16>)
  %linear_4 = "mla.matmul"(%view_5, %linear_4_wt) : (tensor<1x1x32xbf16>, tensor<32x64xbf16>) -> (tensor<1x1x64xbf16>)
  return %add_5, %index_copy_view, %index_copy_1_view, %linear_4 : tensor<i64>, tensor<1x1x13x32xbf16>, tensor<1x1x13x8xbf16>, tensor<1x1x64xbf16>
}


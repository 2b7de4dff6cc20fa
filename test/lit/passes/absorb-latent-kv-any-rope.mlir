// RUN: mla-opt %s --raise-rms-norm --raise-rope --absorb-latent-kv --cleanup | FileCheck %s

// absorb-latent-kv on transformers 5.24's DeepseekV2Attention (compile_module of the attention;
// no q_lora, N = 2, D = Dv = 16, Dr = 8, Hckv = 32, B = 1, S = 1, L = 16): DeepSeek-V2's RoPE is
// complex (view_as_complex(x) * freqs_cis, carried as (..., 2) float pairs; raise-rope makes it
// mla.rope over the pairs with the pairs put back interleaved), not the interleaved mla.rope of
// the query's slice that mla.prolog_v2 computes. q_pe . k_pe is the same whatever rotated them,
// so the attention is absorbed all the same, reading the rotated query (BNSD -> BSND) and the
// rope cache as the model wrote them: FIA can fuse it, the prolog cannot (MLA-009).
// CHECK-LABEL: func.func @forward
// CHECK: %[[KV:.*]] = "mla.scatter_cache"(%{{.*}}, %[[SLOTS:.*]], %{{.*}}) : (tensor<1x16x1x32xbf16>, tensor<1xi64>, tensor<1x1x32xbf16>)
// CHECK: %[[KR:.*]] = "mla.scatter_cache"(%{{.*}}, %[[SLOTS]], %{{.*}}) : (tensor<1x16x1x8xbf16>, tensor<1xi64>, tensor<1x1x8xbf16>)
// CHECK: %[[QNOPE:.*]] = "mla.transpose"(%{{.*}}) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x1x16xbf16>) -> tensor<1x1x2x16xbf16>
// CHECK: %[[QROPE:.*]] = "mla.transpose"(%{{.*}}) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x1x8xbf16>) -> tensor<1x1x2x8xbf16>
// CHECK: %[[Q:.*]] = "mla.head_matmul"(%[[QNOPE]], %{{.*}}) : (tensor<1x1x2x16xbf16>, tensor<2x16x32xbf16>) -> tensor<1x1x2x32xbf16>
// CHECK: %[[ATT:.*]] = "mla.paged_attention"(%[[Q]], %[[KV]], %[[KV]], %{{.*}}, %{{.*}}, %[[QROPE]], %[[KR]])
// CHECK: "mla.head_matmul"(%[[ATT]], %{{.*}}) : (tensor<1x1x2x32xbf16>, tensor<2x32x16xbf16>) -> tensor<1x1x2x16xbf16>
// CHECK-NOT: tensor<1x16x2x24xbf16>
// CHECK: return
ml_program.global private @"inner.attention.q_proj.weight"(#ml_program.extern : tensor<48x64xbf16>) : tensor<48x64xbf16>
ml_program.global private @"inner.attention.kv_a_proj_with_mqa.weight"(#ml_program.extern : tensor<40x64xbf16>) : tensor<40x64xbf16>
ml_program.global private @"inner.attention.kv_a_layernorm.weight"(#ml_program.extern : tensor<32xbf16>) : tensor<32xbf16>
ml_program.global private @"inner.attention.kv_b_proj.weight"(#ml_program.extern : tensor<64x32xbf16>) : tensor<64x32xbf16>
ml_program.global private @"inner.attention.o_proj.weight"(#ml_program.extern : tensor<64x32xbf16>) : tensor<64x32xbf16>
func.func @forward(
    %cache_layers_0_cumulative_length: tensor<i64> {mla.name = "cache.layers.0.cumulative_length", mla.buffer},
    %cache_layers_0_keys: tensor<1x1x16x32xbf16> {mla.name = "cache.layers.0.keys", mla.buffer},
    %cache_layers_0_values: tensor<1x1x16x8xbf16> {mla.name = "cache.layers.0.values", mla.buffer},
    %args_0: tensor<1x1x64xbf16> {mla.name = "args_0"},
    %args_1: tensor<1x1x1x16xi1> {mla.name = "args_1"},
    %args_2: tensor<1x1x4x2xf32> {mla.name = "args_2"},
    %args_1_lengths: tensor<1xi32> {mla.name = "args_1.lengths"})
    -> (tensor<i64>, tensor<1x1x16x32xbf16>, tensor<1x1x16x8xbf16>, tensor<1x1x64xbf16>) {
  %inner_attention_q_proj_weight = ml_program.global_load_const @"inner.attention.q_proj.weight" : tensor<48x64xbf16>
  %inner_attention_kv_a_proj_with_mqa_weight = ml_program.global_load_const @"inner.attention.kv_a_proj_with_mqa.weight" : tensor<40x64xbf16>
  %inner_attention_kv_a_layernorm_weight = ml_program.global_load_const @"inner.attention.kv_a_layernorm.weight" : tensor<32xbf16>
  %inner_attention_kv_b_proj_weight = ml_program.global_load_const @"inner.attention.kv_b_proj.weight" : tensor<64x32xbf16>
  %inner_attention_o_proj_weight = ml_program.global_load_const @"inner.attention.o_proj.weight" : tensor<64x32xbf16>
  %linear_wt = "mla.transpose"(%inner_attention_q_proj_weight) {permutation = array<i64: 1, 0>} : (tensor<48x64xbf16>) -> (tensor<64x48xbf16>)
  %linear = "mla.matmul"(%args_0, %linear_wt) : (tensor<1x1x64xbf16>, tensor<64x48xbf16>) -> (tensor<1x1x48xbf16>)
  %view = tensor.expand_shape %linear [[0], [1], [2, 3]] output_shape [1, 1, 2, 24] : tensor<1x1x48xbf16> into tensor<1x1x2x24xbf16>
  %transpose = "mla.transpose"(%view) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x1x2x24xbf16>) -> (tensor<1x2x1x24xbf16>)
  %split_with_sizes_0 = tensor.extract_slice %transpose[0, 0, 0, 0] [1, 2, 1, 16] [1, 1, 1, 1] : tensor<1x2x1x24xbf16> to tensor<1x2x1x16xbf16>
  %split_with_sizes_1 = tensor.extract_slice %transpose[0, 0, 0, 16] [1, 2, 1, 8] [1, 1, 1, 1] : tensor<1x2x1x24xbf16> to tensor<1x2x1x8xbf16>
  %linear_1_wt = "mla.transpose"(%inner_attention_kv_a_proj_with_mqa_weight) {permutation = array<i64: 1, 0>} : (tensor<40x64xbf16>) -> (tensor<64x40xbf16>)
  %linear_1 = "mla.matmul"(%args_0, %linear_1_wt) : (tensor<1x1x64xbf16>, tensor<64x40xbf16>) -> (tensor<1x1x40xbf16>)
  %split_with_sizes_1_0 = tensor.extract_slice %linear_1[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x40xbf16> to tensor<1x1x32xbf16>
  %split_with_sizes_1_1 = tensor.extract_slice %linear_1[0, 0, 32] [1, 1, 8] [1, 1, 1] : tensor<1x1x40xbf16> to tensor<1x1x8xbf16>
  %_to_copy = arith.extf %split_with_sizes_1_0 : tensor<1x1x32xbf16> to tensor<1x1x32xf32>
  %pow_1 = "mla.mul"(%_to_copy, %_to_copy) : (tensor<1x1x32xf32>, tensor<1x1x32xf32>) -> (tensor<1x1x32xf32>)
  %mean = "mla.mean"(%pow_1) : (tensor<1x1x32xf32>) -> (tensor<1x1x1xf32>)
  %cst = arith.constant dense<1.0e-06> : tensor<f32>
  %add = "mla.add"(%mean, %cst) : (tensor<1x1x1xf32>, tensor<f32>) -> (tensor<1x1x1xf32>)
  %rsqrt = "mla.rsqrt"(%add) : (tensor<1x1x1xf32>) -> (tensor<1x1x1xf32>)
  %mul = "mla.mul"(%_to_copy, %rsqrt) : (tensor<1x1x32xf32>, tensor<1x1x1xf32>) -> (tensor<1x1x32xf32>)
  %_to_copy_1 = arith.truncf %mul : tensor<1x1x32xf32> to tensor<1x1x32xbf16>
  %mul_1 = "mla.mul"(%inner_attention_kv_a_layernorm_weight, %_to_copy_1) : (tensor<32xbf16>, tensor<1x1x32xbf16>) -> (tensor<1x1x32xbf16>)
  %view_2 = tensor.expand_shape %split_with_sizes_1_1 [[0], [1], [2, 3]] output_shape [1, 1, 1, 8] : tensor<1x1x8xbf16> into tensor<1x1x1x8xbf16>
  %_to_copy_2 = arith.extf %split_with_sizes_1 : tensor<1x2x1x8xbf16> to tensor<1x2x1x8xf32>
  %view_3 = tensor.expand_shape %_to_copy_2 [[0], [1], [2], [3, 4]] output_shape [1, 2, 1, 4, 2] : tensor<1x2x1x8xf32> into tensor<1x2x1x4x2xf32>
  %_to_copy_3 = arith.extf %view_2 : tensor<1x1x1x8xbf16> to tensor<1x1x1x8xf32>
  %view_4 = tensor.expand_shape %_to_copy_3 [[0], [1], [2], [3, 4]] output_shape [1, 1, 1, 4, 2] : tensor<1x1x1x8xf32> into tensor<1x1x1x4x2xf32>
  %unsqueeze = tensor.expand_shape %args_2 [[0], [1], [2, 3], [4]] output_shape [1, 1, 1, 4, 2] : tensor<1x1x4x2xf32> into tensor<1x1x1x4x2xf32>
  %mul_2_xre = tensor.extract_slice %view_3[0, 0, 0, 0, 0] [1, 2, 1, 4, 1] [1, 1, 1, 1, 1] : tensor<1x2x1x4x2xf32> to tensor<1x2x1x4x1xf32>
  %mul_2_xim = tensor.extract_slice %view_3[0, 0, 0, 0, 1] [1, 2, 1, 4, 1] [1, 1, 1, 1, 1] : tensor<1x2x1x4x2xf32> to tensor<1x2x1x4x1xf32>
  %mul_2_yre = tensor.extract_slice %unsqueeze[0, 0, 0, 0, 0] [1, 1, 1, 4, 1] [1, 1, 1, 1, 1] : tensor<1x1x1x4x2xf32> to tensor<1x1x1x4x1xf32>
  %mul_2_yim = tensor.extract_slice %unsqueeze[0, 0, 0, 0, 1] [1, 1, 1, 4, 1] [1, 1, 1, 1, 1] : tensor<1x1x1x4x2xf32> to tensor<1x1x1x4x1xf32>
  %mul_2_bd = "mla.mul"(%mul_2_xim, %mul_2_yim) : (tensor<1x2x1x4x1xf32>, tensor<1x1x1x4x1xf32>) -> (tensor<1x2x1x4x1xf32>)
  %mul_2_ac = "mla.mul"(%mul_2_xre, %mul_2_yre) : (tensor<1x2x1x4x1xf32>, tensor<1x1x1x4x1xf32>) -> (tensor<1x2x1x4x1xf32>)
  %cst_1 = arith.constant dense<-1.0> : tensor<f32>
  %mul_2_neg_bd = "mla.mul"(%mul_2_bd, %cst_1) : (tensor<1x2x1x4x1xf32>, tensor<f32>) -> (tensor<1x2x1x4x1xf32>)
  %mul_2_re = "mla.add"(%mul_2_ac, %mul_2_neg_bd) : (tensor<1x2x1x4x1xf32>, tensor<1x2x1x4x1xf32>) -> (tensor<1x2x1x4x1xf32>)
  %mul_2_ad = "mla.mul"(%mul_2_xre, %mul_2_yim) : (tensor<1x2x1x4x1xf32>, tensor<1x1x1x4x1xf32>) -> (tensor<1x2x1x4x1xf32>)
  %mul_2_bc = "mla.mul"(%mul_2_xim, %mul_2_yre) : (tensor<1x2x1x4x1xf32>, tensor<1x1x1x4x1xf32>) -> (tensor<1x2x1x4x1xf32>)
  %mul_2_im = "mla.add"(%mul_2_ad, %mul_2_bc) : (tensor<1x2x1x4x1xf32>, tensor<1x2x1x4x1xf32>) -> (tensor<1x2x1x4x1xf32>)
  %mul_2 = tensor.concat dim(4) %mul_2_re, %mul_2_im : (tensor<1x2x1x4x1xf32>, tensor<1x2x1x4x1xf32>) -> tensor<1x2x1x4x2xf32>
  %view_5 = tensor.collapse_shape %mul_2 [[0], [1], [2], [3, 4]] : tensor<1x2x1x4x2xf32> into tensor<1x2x1x8xf32>
  %type_as = arith.truncf %view_5 : tensor<1x2x1x8xf32> to tensor<1x2x1x8xbf16>
  %mul_3_xre = tensor.extract_slice %view_4[0, 0, 0, 0, 0] [1, 1, 1, 4, 1] [1, 1, 1, 1, 1] : tensor<1x1x1x4x2xf32> to tensor<1x1x1x4x1xf32>
  %mul_3_xim = tensor.extract_slice %view_4[0, 0, 0, 0, 1] [1, 1, 1, 4, 1] [1, 1, 1, 1, 1] : tensor<1x1x1x4x2xf32> to tensor<1x1x1x4x1xf32>
  %mul_3_yre = tensor.extract_slice %unsqueeze[0, 0, 0, 0, 0] [1, 1, 1, 4, 1] [1, 1, 1, 1, 1] : tensor<1x1x1x4x2xf32> to tensor<1x1x1x4x1xf32>
  %mul_3_yim = tensor.extract_slice %unsqueeze[0, 0, 0, 0, 1] [1, 1, 1, 4, 1] [1, 1, 1, 1, 1] : tensor<1x1x1x4x2xf32> to tensor<1x1x1x4x1xf32>
  %mul_3_bd = "mla.mul"(%mul_3_xim, %mul_3_yim) : (tensor<1x1x1x4x1xf32>, tensor<1x1x1x4x1xf32>) -> (tensor<1x1x1x4x1xf32>)
  %mul_3_ac = "mla.mul"(%mul_3_xre, %mul_3_yre) : (tensor<1x1x1x4x1xf32>, tensor<1x1x1x4x1xf32>) -> (tensor<1x1x1x4x1xf32>)
  %cst_2 = arith.constant dense<-1.0> : tensor<f32>
  %mul_3_neg_bd = "mla.mul"(%mul_3_bd, %cst_2) : (tensor<1x1x1x4x1xf32>, tensor<f32>) -> (tensor<1x1x1x4x1xf32>)
  %mul_3_re = "mla.add"(%mul_3_ac, %mul_3_neg_bd) : (tensor<1x1x1x4x1xf32>, tensor<1x1x1x4x1xf32>) -> (tensor<1x1x1x4x1xf32>)
  %mul_3_ad = "mla.mul"(%mul_3_xre, %mul_3_yim) : (tensor<1x1x1x4x1xf32>, tensor<1x1x1x4x1xf32>) -> (tensor<1x1x1x4x1xf32>)
  %mul_3_bc = "mla.mul"(%mul_3_xim, %mul_3_yre) : (tensor<1x1x1x4x1xf32>, tensor<1x1x1x4x1xf32>) -> (tensor<1x1x1x4x1xf32>)
  %mul_3_im = "mla.add"(%mul_3_ad, %mul_3_bc) : (tensor<1x1x1x4x1xf32>, tensor<1x1x1x4x1xf32>) -> (tensor<1x1x1x4x1xf32>)
  %mul_3 = tensor.concat dim(4) %mul_3_re, %mul_3_im : (tensor<1x1x1x4x1xf32>, tensor<1x1x1x4x1xf32>) -> tensor<1x1x1x4x2xf32>
  %view_6 = tensor.collapse_shape %mul_3 [[0], [1], [2], [3, 4]] : tensor<1x1x1x4x2xf32> into tensor<1x1x1x8xf32>
  %type_as_1 = arith.truncf %view_6 : tensor<1x1x1x8xf32> to tensor<1x1x1x8xbf16>
  %arange = arith.constant dense<[0]> : tensor<1xi64>
  %add_1 = "mla.add"(%arange, %cache_layers_0_cumulative_length) : (tensor<1xi64>, tensor<i64>) -> (tensor<1xi64>)
  %cst_3 = arith.constant dense<1> : tensor<i64>
  %add_2 = "mla.add"(%cache_layers_0_cumulative_length, %cst_3) : (tensor<i64>, tensor<i64>) -> (tensor<i64>)
  %index_copy_paged_flat = tensor.collapse_shape %cache_layers_0_keys [[0, 1, 2, 3]] : tensor<1x1x16x32xbf16> into tensor<512xbf16>
  %index_copy_paged_1 = tensor.expand_shape %index_copy_paged_flat [[0, 1, 2, 3]] output_shape [1, 16, 1, 32] : tensor<512xbf16> into tensor<1x16x1x32xbf16>
  %index_copy_rows = arith.constant dense<[[0], [1], [2], [3], [4], [5], [6], [7], [8], [9], [10], [11], [12], [13], [14], [15]]> : tensor<16x1xi64>
  %index_copy_picked = "mla.gather"(%index_copy_rows, %add_1) : (tensor<16x1xi64>, tensor<1xi64>) -> (tensor<1x1xi64>)
  %index_copy_by_batch = "mla.transpose"(%index_copy_picked) {permutation = array<i64: 1, 0>} : (tensor<1x1xi64>) -> (tensor<1x1xi64>)
  %index_copy_slots = tensor.collapse_shape %index_copy_by_batch [[0, 1]] : tensor<1x1xi64> into tensor<1xi64>
  %index_copy = "mla.scatter_cache"(%index_copy_paged_1, %index_copy_slots, %mul_1) : (tensor<1x16x1x32xbf16>, tensor<1xi64>, tensor<1x1x32xbf16>) -> (tensor<1x16x1x32xbf16>)
  %index_copy_view_flat = tensor.collapse_shape %index_copy [[0, 1, 2, 3]] : tensor<1x16x1x32xbf16> into tensor<512xbf16>
  %index_copy_view_1 = tensor.expand_shape %index_copy_view_flat [[0, 1, 2, 3]] output_shape [1, 1, 16, 32] : tensor<512xbf16> into tensor<1x1x16x32xbf16>
  %index_copy_1_paged_flat = tensor.collapse_shape %cache_layers_0_values [[0, 1, 2, 3]] : tensor<1x1x16x8xbf16> into tensor<128xbf16>
  %index_copy_1_paged_1 = tensor.expand_shape %index_copy_1_paged_flat [[0, 1, 2, 3]] output_shape [1, 16, 1, 8] : tensor<128xbf16> into tensor<1x16x1x8xbf16>
  %index_copy_1_update = tensor.collapse_shape %type_as_1 [[0], [1], [2, 3]] : tensor<1x1x1x8xbf16> into tensor<1x1x8xbf16>
  %index_copy_1 = "mla.scatter_cache"(%index_copy_1_paged_1, %index_copy_slots, %index_copy_1_update) : (tensor<1x16x1x8xbf16>, tensor<1xi64>, tensor<1x1x8xbf16>) -> (tensor<1x16x1x8xbf16>)
  %index_copy_1_view_flat = tensor.collapse_shape %index_copy_1 [[0, 1, 2, 3]] : tensor<1x16x1x8xbf16> into tensor<128xbf16>
  %index_copy_1_view_1 = tensor.expand_shape %index_copy_1_view_flat [[0, 1, 2, 3]] output_shape [1, 1, 16, 8] : tensor<128xbf16> into tensor<1x1x16x8xbf16>
  %cat = tensor.concat dim(3) %split_with_sizes_0, %type_as : (tensor<1x2x1x16xbf16>, tensor<1x2x1x8xbf16>) -> tensor<1x2x1x24xbf16>
  %linear_2_wt = "mla.transpose"(%inner_attention_kv_b_proj_weight) {permutation = array<i64: 1, 0>} : (tensor<64x32xbf16>) -> (tensor<32x64xbf16>)
  %linear_2 = "mla.matmul"(%index_copy_view_1, %linear_2_wt) : (tensor<1x1x16x32xbf16>, tensor<32x64xbf16>) -> (tensor<1x1x16x64xbf16>)
  %view_7_flat = tensor.collapse_shape %linear_2 [[0, 1, 2, 3]] : tensor<1x1x16x64xbf16> into tensor<1024xbf16>
  %view_7_1 = tensor.expand_shape %view_7_flat [[0, 1, 2, 3]] output_shape [1, 16, 2, 32] : tensor<1024xbf16> into tensor<1x16x2x32xbf16>
  %transpose_1 = "mla.transpose"(%view_7_1) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x16x2x32xbf16>) -> (tensor<1x2x16x32xbf16>)
  %split_with_sizes_2_0 = tensor.extract_slice %transpose_1[0, 0, 0, 0] [1, 2, 16, 16] [1, 1, 1, 1] : tensor<1x2x16x32xbf16> to tensor<1x2x16x16xbf16>
  %split_with_sizes_2_1 = tensor.extract_slice %transpose_1[0, 0, 0, 16] [1, 2, 16, 16] [1, 1, 1, 1] : tensor<1x2x16x32xbf16> to tensor<1x2x16x16xbf16>
  %expand_1_1 = tensor.concat dim(1) %index_copy_1_view_1, %index_copy_1_view_1 : (tensor<1x1x16x8xbf16>, tensor<1x1x16x8xbf16>) -> tensor<1x2x16x8xbf16>
  %slice_scatter_1 = tensor.concat dim(3) %split_with_sizes_2_0, %expand_1_1 : (tensor<1x2x16x16xbf16>, tensor<1x2x16x8xbf16>) -> tensor<1x2x16x24xbf16>
  %scaled_dot_product_attention_q = "mla.transpose"(%cat) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x1x24xbf16>) -> (tensor<1x1x2x24xbf16>)
  %scaled_dot_product_attention_k = "mla.transpose"(%slice_scatter_1) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x16x24xbf16>) -> (tensor<1x16x2x24xbf16>)
  %scaled_dot_product_attention_v = "mla.transpose"(%split_with_sizes_2_1) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x16x16xbf16>) -> (tensor<1x16x2x16xbf16>)
  %scaled_dot_product_attention_blocks = arith.constant dense<[[0]]> : tensor<1x1xi32>
  %scaled_dot_product_attention = "mla.paged_attention"(%scaled_dot_product_attention_q, %scaled_dot_product_attention_k, %scaled_dot_product_attention_v, %scaled_dot_product_attention_blocks, %args_1_lengths) {scale_value = 0.2041241452319315 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<1x1x2x24xbf16>, tensor<1x16x2x24xbf16>, tensor<1x16x2x16xbf16>, tensor<1x1xi32>, tensor<1xi32>) -> (tensor<1x1x2x16xbf16>)
  %scaled_dot_product_attention_bnsd = "mla.transpose"(%scaled_dot_product_attention) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x1x2x16xbf16>) -> (tensor<1x2x1x16xbf16>)
  %transpose_2 = "mla.transpose"(%scaled_dot_product_attention_bnsd) {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2x1x16xbf16>) -> (tensor<1x1x2x16xbf16>)
  %view_9 = tensor.collapse_shape %transpose_2 [[0], [1], [2, 3]] : tensor<1x1x2x16xbf16> into tensor<1x1x32xbf16>
  %linear_3_wt = "mla.transpose"(%inner_attention_o_proj_weight) {permutation = array<i64: 1, 0>} : (tensor<64x32xbf16>) -> (tensor<32x64xbf16>)
  %linear_3 = "mla.matmul"(%view_9, %linear_3_wt) : (tensor<1x1x32xbf16>, tensor<32x64xbf16>) -> (tensor<1x1x64xbf16>)
  return %add_2, %index_copy_view_1, %index_copy_1_view_1, %linear_3 : tensor<i64>, tensor<1x1x16x32xbf16>, tensor<1x1x16x8xbf16>, tensor<1x1x64xbf16>
}


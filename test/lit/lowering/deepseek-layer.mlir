// A whole DeepSeek-V3 attention layer (models.deepseek.build("deepseek-v3", tp=16, batch=2,
// block_size=16).module), lowered unfused and after the default pipeline: the kernel calls in
// program order; the caches (kv_cache.0 = %arg5, kr_cache.0 = %arg6) are passed by reference,
// written in place (the prolog's kvCacheRef/krCacheRef, or one ScatterPaKvCache per cache) and
// returned as the arguments themselves; the kv lengths (seq_lengths = %arg4) are read on the
// host at run time for FIA. Without bound weights fold-constants has nothing to evaluate, so the
// weight transposes and NZ casts stay as calls here; ascend_mla.compile with the weights packs
// them once, at compile time.
// RUN: mla-opt %s --lower-to-aclnn | FileCheck %s --check-prefix=UNFUSED
// RUN: mla-opt %s --pass-pipeline=default --lower-to-aclnn | FileCheck %s --check-prefix=FUSED
// UNFUSED-LABEL: func.func @forward
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnEmbedding"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnEmbedding"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnRmsNorm"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnPermute"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnMatmul"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnRmsNorm"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnPermute"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnMatmul"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnMatmul"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnInplaceCopy"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnInterleaveRope"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnPermute"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnMatmul"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnRmsNorm"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnInplaceCopy"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnInterleaveRope"}
// UNFUSED:       "aclnn.scatter_pa_kv_cache_get_workspace_size"(%{{.*}}, %arg5, %{{.*}})
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnScatterPaKvCache"}
// UNFUSED:       "aclnn.scatter_pa_kv_cache_get_workspace_size"(%{{.*}}, %arg6, %{{.*}})
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnScatterPaKvCache"}
// UNFUSED:       "aclnn.read_int_array"(%arg4)
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnFusedInferAttentionScoreV4"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnPermute"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnMatmul"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnPermute"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnMatmul"}
// UNFUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnAdd"}
// UNFUSED-NOT:   "aclnn.launch"
// UNFUSED:       "aclnn.synchronize"
// UNFUSED-NEXT:  return %{{.*}}, %arg5, %arg6 :
// UNFUSED-NOT:   "mla.

// FUSED-LABEL: func.func @forward
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnEmbedding"}
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnEmbedding"}
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnRmsNorm"}
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnPermute"}
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnPermute"}
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnPermute"}
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnNpuFormatCast"}
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnNpuFormatCast"}
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnNpuFormatCast"}
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnInplaceCopy"}
// FUSED:       "aclnn.mla_prolog_v2_weight_nz_get_workspace_size"({{.*}}, %arg2, %arg5, %arg6,
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnMlaPrologV2WeightNz"}
// FUSED:       "aclnn.read_int_array"(%arg4)
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnFusedInferAttentionScoreV3"}
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnPermute"}
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnMatmul"}
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnPermute"}
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnNpuFormatCast"}
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnMatmulWeightNz"}
// FUSED:       "aclnn.launch"({{.*}}) {callee = "aclnnAdd"}
// FUSED-NOT:   "aclnn.launch"
// FUSED:       "aclnn.synchronize"
// FUSED-NEXT:  return %{{.*}}, %arg5, %arg6 :
// FUSED-NOT:   "mla.

ml_program.global private @"model.rotary_emb.cos_cached"(#ml_program.extern : tensor<32x64xbf16>) : tensor<32x64xbf16>
ml_program.global private @"model.rotary_emb.sin_cached"(#ml_program.extern : tensor<32x64xbf16>) : tensor<32x64xbf16>
ml_program.global private @"model.layers.0.input_layernorm.weight"(#ml_program.extern : tensor<7168xbf16>) : tensor<7168xbf16>
ml_program.global private @"model.layers.0.self_attn.q_a_proj.weight"(#ml_program.extern : tensor<1536x7168xbf16>) : tensor<1536x7168xbf16>
ml_program.global private @"model.layers.0.self_attn.q_a_layernorm.weight"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"model.layers.0.self_attn.q_b_proj.weight"(#ml_program.extern : tensor<1536x1536xbf16>) : tensor<1536x1536xbf16>
ml_program.global private @"model.layers.0.self_attn.kv_b_proj.weight"(#ml_program.extern : tensor<2048x512xbf16>) : tensor<2048x512xbf16>
ml_program.global private @"model.layers.0.self_attn.kv_a_proj_with_mqa.weight"(#ml_program.extern : tensor<576x7168xbf16>) : tensor<576x7168xbf16>
ml_program.global private @"model.layers.0.self_attn.kv_a_layernorm.weight"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
ml_program.global private @"model.layers.0.self_attn.o_proj.weight"(#ml_program.extern : tensor<7168x1024xbf16>) : tensor<7168x1024xbf16>
func.func @forward(
    %hidden_states: tensor<2x1x7168xbf16> {mla.name = "hidden_states"},
    %positions: tensor<2x1xi64> {mla.name = "positions"},
    %slot_mapping: tensor<2x1xi64> {mla.name = "slot_mapping"},
    %block_table: tensor<2x2xi32> {mla.name = "block_table"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"},
    %kv_cache_0: tensor<5x16x1x512xbf16> {mla.name = "kv_cache.0"},
    %kr_cache_0: tensor<5x16x1x64xbf16> {mla.name = "kr_cache.0"})
    -> (tensor<2x1x7168xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x64xbf16>) {
  %cos_cached = ml_program.global_load_const @"model.rotary_emb.cos_cached" : tensor<32x64xbf16>
  %cos = "mla.gather"(%cos_cached, %positions) : (tensor<32x64xbf16>, tensor<2x1xi64>) -> (tensor<2x1x64xbf16>)
  %sin_cached = ml_program.global_load_const @"model.rotary_emb.sin_cached" : tensor<32x64xbf16>
  %sin = "mla.gather"(%sin_cached, %positions) : (tensor<32x64xbf16>, tensor<2x1xi64>) -> (tensor<2x1x64xbf16>)
  %cos_heads = tensor.expand_shape %cos [[0], [1], [2, 3]] output_shape [2, 1, 1, 64] : tensor<2x1x64xbf16> into tensor<2x1x1x64xbf16>
  %sin_heads = tensor.expand_shape %sin [[0], [1], [2, 3]] output_shape [2, 1, 1, 64] : tensor<2x1x64xbf16> into tensor<2x1x1x64xbf16>
  %v0_input_layernorm_weight = ml_program.global_load_const @"model.layers.0.input_layernorm.weight" : tensor<7168xbf16>
  %l0_x = "mla.rms_norm"(%hidden_states, %v0_input_layernorm_weight) {epsilon = 1.0e-06 : f64} : (tensor<2x1x7168xbf16>, tensor<7168xbf16>) -> (tensor<2x1x7168xbf16>)
  %v0_self_attn_q_a_proj_weight = ml_program.global_load_const @"model.layers.0.self_attn.q_a_proj.weight" : tensor<1536x7168xbf16>
  %l0_q_a_wt = "mla.transpose"(%v0_self_attn_q_a_proj_weight) {permutation = array<i64: 1, 0>} : (tensor<1536x7168xbf16>) -> (tensor<7168x1536xbf16>)
  %l0_q_a = "mla.matmul"(%l0_x, %l0_q_a_wt) : (tensor<2x1x7168xbf16>, tensor<7168x1536xbf16>) -> (tensor<2x1x1536xbf16>)
  %v0_self_attn_q_a_layernorm_weight = ml_program.global_load_const @"model.layers.0.self_attn.q_a_layernorm.weight" : tensor<1536xbf16>
  %l0_c_q = "mla.rms_norm"(%l0_q_a, %v0_self_attn_q_a_layernorm_weight) {epsilon = 1.0e-06 : f64} : (tensor<2x1x1536xbf16>, tensor<1536xbf16>) -> (tensor<2x1x1536xbf16>)
  %v0_self_attn_q_b_proj_weight = ml_program.global_load_const @"model.layers.0.self_attn.q_b_proj.weight" : tensor<1536x1536xbf16>
  %l0_q_wt = "mla.transpose"(%v0_self_attn_q_b_proj_weight) {permutation = array<i64: 1, 0>} : (tensor<1536x1536xbf16>) -> (tensor<1536x1536xbf16>)
  %l0_q = "mla.matmul"(%l0_c_q, %l0_q_wt) : (tensor<2x1x1536xbf16>, tensor<1536x1536xbf16>) -> (tensor<2x1x1536xbf16>)
  %l0_q_heads = tensor.expand_shape %l0_q [[0], [1], [2, 3]] output_shape [2, 1, 8, 192] : tensor<2x1x1536xbf16> into tensor<2x1x8x192xbf16>
  %l0_q_nope = tensor.extract_slice %l0_q_heads[0, 0, 0, 0] [2, 1, 8, 128] [1, 1, 1, 1] : tensor<2x1x8x192xbf16> to tensor<2x1x8x128xbf16>
  %v0_self_attn_kv_b_proj_weight = ml_program.global_load_const @"model.layers.0.self_attn.kv_b_proj.weight" : tensor<2048x512xbf16>
  %l0_kv_b = tensor.expand_shape %v0_self_attn_kv_b_proj_weight [[0, 1], [2]] output_shape [8, 256, 512] : tensor<2048x512xbf16> into tensor<8x256x512xbf16>
  %l0_w_uk = tensor.extract_slice %l0_kv_b[0, 0, 0] [8, 128, 512] [1, 1, 1] : tensor<8x256x512xbf16> to tensor<8x128x512xbf16>
  %l0_query = "mla.head_matmul"(%l0_q_nope, %l0_w_uk) : (tensor<2x1x8x128xbf16>, tensor<8x128x512xbf16>) -> (tensor<2x1x8x512xbf16>)
  %l0_q_pe = tensor.extract_slice %l0_q_heads[0, 0, 0, 128] [2, 1, 8, 64] [1, 1, 1, 1] : tensor<2x1x8x192xbf16> to tensor<2x1x8x64xbf16>
  %l0_query_rope = "mla.rope"(%l0_q_pe, %cos_heads, %sin_heads) : (tensor<2x1x8x64xbf16>, tensor<2x1x1x64xbf16>, tensor<2x1x1x64xbf16>) -> (tensor<2x1x8x64xbf16>)
  %v0_self_attn_kv_a_proj_with_mqa_weight = ml_program.global_load_const @"model.layers.0.self_attn.kv_a_proj_with_mqa.weight" : tensor<576x7168xbf16>
  %l0_kv_wt = "mla.transpose"(%v0_self_attn_kv_a_proj_with_mqa_weight) {permutation = array<i64: 1, 0>} : (tensor<576x7168xbf16>) -> (tensor<7168x576xbf16>)
  %l0_kv = "mla.matmul"(%l0_x, %l0_kv_wt) : (tensor<2x1x7168xbf16>, tensor<7168x576xbf16>) -> (tensor<2x1x576xbf16>)
  %l0_c_kv = tensor.extract_slice %l0_kv[0, 0, 0] [2, 1, 512] [1, 1, 1] : tensor<2x1x576xbf16> to tensor<2x1x512xbf16>
  %l0_k_pe = tensor.extract_slice %l0_kv[0, 0, 512] [2, 1, 64] [1, 1, 1] : tensor<2x1x576xbf16> to tensor<2x1x64xbf16>
  %v0_self_attn_kv_a_layernorm_weight = ml_program.global_load_const @"model.layers.0.self_attn.kv_a_layernorm.weight" : tensor<512xbf16>
  %l0_kv_norm = "mla.rms_norm"(%l0_c_kv, %v0_self_attn_kv_a_layernorm_weight) {epsilon = 1.0e-06 : f64} : (tensor<2x1x512xbf16>, tensor<512xbf16>) -> (tensor<2x1x512xbf16>)
  %l0_k_rope = "mla.rope"(%l0_k_pe, %cos, %sin) : (tensor<2x1x64xbf16>, tensor<2x1x64xbf16>, tensor<2x1x64xbf16>) -> (tensor<2x1x64xbf16>)
  %l0_kv_rows = tensor.expand_shape %l0_kv_norm [[0], [1], [2, 3]] output_shape [2, 1, 1, 512] : tensor<2x1x512xbf16> into tensor<2x1x1x512xbf16>
  %l0_kv_cache = "mla.scatter_cache"(%kv_cache_0, %slot_mapping, %l0_kv_rows) {cache_mode = "PA_BSND"} : (tensor<5x16x1x512xbf16>, tensor<2x1xi64>, tensor<2x1x1x512xbf16>) -> (tensor<5x16x1x512xbf16>)
  %l0_kr_rows = tensor.expand_shape %l0_k_rope [[0], [1], [2, 3]] output_shape [2, 1, 1, 64] : tensor<2x1x64xbf16> into tensor<2x1x1x64xbf16>
  %l0_kr_cache = "mla.scatter_cache"(%kr_cache_0, %slot_mapping, %l0_kr_rows) {cache_mode = "PA_BSND"} : (tensor<5x16x1x64xbf16>, tensor<2x1xi64>, tensor<2x1x1x64xbf16>) -> (tensor<5x16x1x64xbf16>)
  %l0_latent = "mla.paged_attention"(%l0_query, %l0_kv_cache, %l0_kv_cache, %block_table, %seq_lengths, %l0_query_rope, %l0_kr_cache) {scale_value = 0.1352337788608801 : f64, cache_mode = "PA_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x512xbf16>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<5x16x1x64xbf16>) -> (tensor<2x1x8x512xbf16>)
  %l0_w_uv_t = tensor.extract_slice %l0_kv_b[0, 128, 0] [8, 128, 512] [1, 1, 1] : tensor<8x256x512xbf16> to tensor<8x128x512xbf16>
  %l0_w_uv = "mla.transpose"(%l0_w_uv_t) {permutation = array<i64: 0, 2, 1>} : (tensor<8x128x512xbf16>) -> (tensor<8x512x128xbf16>)
  %l0_o_heads = "mla.head_matmul"(%l0_latent, %l0_w_uv) : (tensor<2x1x8x512xbf16>, tensor<8x512x128xbf16>) -> (tensor<2x1x8x128xbf16>)
  %l0_o_flat = tensor.collapse_shape %l0_o_heads [[0], [1], [2, 3]] : tensor<2x1x8x128xbf16> into tensor<2x1x1024xbf16>
  %v0_self_attn_o_proj_weight = ml_program.global_load_const @"model.layers.0.self_attn.o_proj.weight" : tensor<7168x1024xbf16>
  %l0_o_wt = "mla.transpose"(%v0_self_attn_o_proj_weight) {permutation = array<i64: 1, 0>} : (tensor<7168x1024xbf16>) -> (tensor<1024x7168xbf16>)
  %l0_o = "mla.matmul"(%l0_o_flat, %l0_o_wt) : (tensor<2x1x1024xbf16>, tensor<1024x7168xbf16>) -> (tensor<2x1x7168xbf16>)
  %l0_h = "mla.add"(%hidden_states, %l0_o) : (tensor<2x1x7168xbf16>, tensor<2x1x7168xbf16>) -> (tensor<2x1x7168xbf16>)
  return %l0_h, %l0_kv_cache, %l0_kr_cache : tensor<2x1x7168xbf16>, tensor<5x16x1x512xbf16>, tensor<5x16x1x64xbf16>
}

// RUN: mla-opt %s --split-input-file --fuse-prolog --cleanup | FileCheck %s
// RUN: mla-opt %s --split-input-file --fuse-prolog --verify-diagnostics
// A serving engine's unfused bf16 decode chain (vLLM-Ascend mla_v1.py, DeepSeek-V3 tp 16: N = 8,
// batch 16, block 128), written with its own torch_npu ops as primitives: q_a_proj, q_a_layernorm,
// q_b_proj, W_uk by npu_transpose_batchmatmul (vLLM's bmm between two transposes),
// npu_interleave_rope on the (B, N, 1, 64) q_pe, and kv_a_proj_with_mqa into
// npu_kv_rmsnorm_rope_cache. fuse-prolog makes it one mla.prolog_v2 (PA is the prolog's
// PA_BSND, PA_NZ its PA_NZ); the same refusal rules apply.

// CHECK-LABEL: func.func @vllm_bf16_decode
// CHECK-COUNT-3: "mla.format_cast"
// CHECK:         %[[P:.*]]:5 = "mla.prolog_v2"(%arg0, %{{.*}}, %{{.*}}, %w_uk, %{{.*}}, %q_a_layernorm, %kv_a_layernorm, %{{.*}}, %{{.*}}, %arg3, %arg4, %arg5)
// CHECK-NOT:     cache_mode
// CHECK-SAME:    rmsnorm_epsilon_ckv = 9.99
// CHECK-NOT:     "mla.{{matmul|transpose_batchmatmul|rope|rms_norm|kv_rmsnorm_rope_cache}}"
ml_program.global private @"q_a_proj"(#ml_program.extern : tensor<7168x1536xbf16>) : tensor<7168x1536xbf16>
ml_program.global private @"q_a_layernorm"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"q_b_proj"(#ml_program.extern : tensor<1536x1536xbf16>) : tensor<1536x1536xbf16>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<8x128x512xbf16>) : tensor<8x128x512xbf16>
ml_program.global private @"kv_a_proj_with_mqa"(#ml_program.extern : tensor<7168x576xbf16>) : tensor<7168x576xbf16>
ml_program.global private @"kv_a_layernorm"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
func.func @vllm_bf16_decode(
    %x: tensor<16x7168xbf16> {mla.name = "hidden_states"},
    %cos: tensor<16x1x1x64xbf16> {mla.name = "cos"},
    %sin: tensor<16x1x1x64xbf16> {mla.name = "sin"},
    %slots: tensor<16xi64> {mla.name = "slot_mapping"},
    %ckv_cache: tensor<40x128x1x512xbf16> {mla.name = "kv_cache_0"},
    %k_cache: tensor<40x128x1x64xbf16> {mla.name = "kv_cache_1"})
    -> (tensor<16x8x512xbf16>, tensor<16x8x64xbf16>, tensor<40x128x1x512xbf16>, tensor<40x128x1x64xbf16>) {
  %w_qa = ml_program.global_load_const @"q_a_proj" : tensor<7168x1536xbf16>
  %q_c0 = "mla.matmul"(%x, %w_qa) : (tensor<16x7168xbf16>, tensor<7168x1536xbf16>) -> tensor<16x1536xbf16>
  %gamma_cq = ml_program.global_load_const @"q_a_layernorm" : tensor<1536xbf16>
  %q_c = "mla.rms_norm"(%q_c0, %gamma_cq) : (tensor<16x1536xbf16>, tensor<1536xbf16>) -> tensor<16x1536xbf16>
  %w_qb = ml_program.global_load_const @"q_b_proj" : tensor<1536x1536xbf16>
  %q = "mla.matmul"(%q_c, %w_qb) : (tensor<16x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<16x1536xbf16>
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [16, 8, 192] : tensor<16x1536xbf16> into tensor<16x8x192xbf16>
  %q_nope = tensor.extract_slice %q3[0, 0, 0] [16, 8, 128] [1, 1, 1] : tensor<16x8x192xbf16> to tensor<16x8x128xbf16>
  %w_uk = ml_program.global_load_const @"w_uk" : tensor<8x128x512xbf16>
  %ql_nope = "mla.transpose_batchmatmul"(%q_nope, %w_uk) {perm_x1 = array<i64: 1, 0, 2>} : (tensor<16x8x128xbf16>, tensor<8x128x512xbf16>) -> tensor<16x8x512xbf16>
  %q_pe = tensor.extract_slice %q3[0, 0, 128] [16, 8, 64] [1, 1, 1] : tensor<16x8x192xbf16> to tensor<16x8x64xbf16>
  %q_pe4 = tensor.expand_shape %q_pe [[0], [1], [2, 3]] output_shape [16, 8, 1, 64] : tensor<16x8x64xbf16> into tensor<16x8x1x64xbf16>
  %q_rot4 = "mla.rope"(%q_pe4, %cos, %sin) : (tensor<16x8x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>) -> tensor<16x8x1x64xbf16>
  %q_rot = tensor.collapse_shape %q_rot4 [[0], [1], [2, 3]] : tensor<16x8x1x64xbf16> into tensor<16x8x64xbf16>
  %w_kva = ml_program.global_load_const @"kv_a_proj_with_mqa" : tensor<7168x576xbf16>
  %kv = "mla.matmul"(%x, %w_kva) : (tensor<16x7168xbf16>, tensor<7168x576xbf16>) -> tensor<16x576xbf16>
  %kv4 = tensor.expand_shape %kv [[0, 1, 2], [3]] output_shape [16, 1, 1, 576] : tensor<16x576xbf16> into tensor<16x1x1x576xbf16>
  %gamma_ckv = ml_program.global_load_const @"kv_a_layernorm" : tensor<512xbf16>
  %k_new, %ckv_new, %k_embed, %y = "mla.kv_rmsnorm_rope_cache"(%kv4, %gamma_ckv, %cos, %sin, %slots, %k_cache, %ckv_cache) {cache_mode = "PA", epsilon = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<16x1x1x576xbf16>, tensor<512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>) -> (tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return %ql_nope, %q_rot, %ckv_new, %k_new : tensor<16x8x512xbf16>, tensor<16x8x64xbf16>, tensor<40x128x1x512xbf16>, tensor<40x128x1x64xbf16>
}

// -----

// The KV-NZ deployment: the caches in PA_NZ, the prolog's PA_NZ.
// CHECK-LABEL: func.func @vllm_bf16_decode_kv_nz
// CHECK:         "mla.prolog_v2"
// CHECK-SAME:    cache_mode = "PA_NZ"
ml_program.global private @"q_a_proj"(#ml_program.extern : tensor<7168x1536xbf16>) : tensor<7168x1536xbf16>
ml_program.global private @"q_a_layernorm"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"q_b_proj"(#ml_program.extern : tensor<1536x1536xbf16>) : tensor<1536x1536xbf16>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<8x128x512xbf16>) : tensor<8x128x512xbf16>
ml_program.global private @"kv_a_proj_with_mqa"(#ml_program.extern : tensor<7168x576xbf16>) : tensor<7168x576xbf16>
ml_program.global private @"kv_a_layernorm"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
func.func @vllm_bf16_decode_kv_nz(
    %x: tensor<16x7168xbf16> {mla.name = "hidden_states"},
    %cos: tensor<16x1x1x64xbf16> {mla.name = "cos"},
    %sin: tensor<16x1x1x64xbf16> {mla.name = "sin"},
    %slots: tensor<16xi64> {mla.name = "slot_mapping"},
    %ckv_cache: tensor<40x128x1x512xbf16> {mla.name = "kv_cache_0"},
    %k_cache: tensor<40x128x1x64xbf16> {mla.name = "kv_cache_1"})
    -> (tensor<16x8x512xbf16>, tensor<16x8x64xbf16>, tensor<40x128x1x512xbf16>, tensor<40x128x1x64xbf16>) {
  %w_qa = ml_program.global_load_const @"q_a_proj" : tensor<7168x1536xbf16>
  %q_c0 = "mla.matmul"(%x, %w_qa) : (tensor<16x7168xbf16>, tensor<7168x1536xbf16>) -> tensor<16x1536xbf16>
  %gamma_cq = ml_program.global_load_const @"q_a_layernorm" : tensor<1536xbf16>
  %q_c = "mla.rms_norm"(%q_c0, %gamma_cq) : (tensor<16x1536xbf16>, tensor<1536xbf16>) -> tensor<16x1536xbf16>
  %w_qb = ml_program.global_load_const @"q_b_proj" : tensor<1536x1536xbf16>
  %q = "mla.matmul"(%q_c, %w_qb) : (tensor<16x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<16x1536xbf16>
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [16, 8, 192] : tensor<16x1536xbf16> into tensor<16x8x192xbf16>
  %q_nope = tensor.extract_slice %q3[0, 0, 0] [16, 8, 128] [1, 1, 1] : tensor<16x8x192xbf16> to tensor<16x8x128xbf16>
  %w_uk = ml_program.global_load_const @"w_uk" : tensor<8x128x512xbf16>
  %ql_nope = "mla.transpose_batchmatmul"(%q_nope, %w_uk) {perm_x1 = array<i64: 1, 0, 2>} : (tensor<16x8x128xbf16>, tensor<8x128x512xbf16>) -> tensor<16x8x512xbf16>
  %q_pe = tensor.extract_slice %q3[0, 0, 128] [16, 8, 64] [1, 1, 1] : tensor<16x8x192xbf16> to tensor<16x8x64xbf16>
  %q_pe4 = tensor.expand_shape %q_pe [[0], [1], [2, 3]] output_shape [16, 8, 1, 64] : tensor<16x8x64xbf16> into tensor<16x8x1x64xbf16>
  %q_rot4 = "mla.rope"(%q_pe4, %cos, %sin) : (tensor<16x8x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>) -> tensor<16x8x1x64xbf16>
  %q_rot = tensor.collapse_shape %q_rot4 [[0], [1], [2, 3]] : tensor<16x8x1x64xbf16> into tensor<16x8x64xbf16>
  %w_kva = ml_program.global_load_const @"kv_a_proj_with_mqa" : tensor<7168x576xbf16>
  %kv = "mla.matmul"(%x, %w_kva) : (tensor<16x7168xbf16>, tensor<7168x576xbf16>) -> tensor<16x576xbf16>
  %kv4 = tensor.expand_shape %kv [[0, 1, 2], [3]] output_shape [16, 1, 1, 576] : tensor<16x576xbf16> into tensor<16x1x1x576xbf16>
  %gamma_ckv = ml_program.global_load_const @"kv_a_layernorm" : tensor<512xbf16>
  %k_new, %ckv_new, %k_embed, %y = "mla.kv_rmsnorm_rope_cache"(%kv4, %gamma_ckv, %cos, %sin, %slots, %k_cache, %ckv_cache) {cache_mode = "PA_NZ", epsilon = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<16x1x1x576xbf16>, tensor<512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>) -> (tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return %ql_nope, %q_rot, %ckv_new, %k_new : tensor<16x8x512xbf16>, tensor<16x8x64xbf16>, tensor<40x128x1x512xbf16>, tensor<40x128x1x64xbf16>
}

// -----

// The same refusal rules: 3 heads are not mla.prolog_v2's (its N), the chain stays as it is.
// CHECK-LABEL: func.func @vllm_heads_refused
// CHECK-NOT:     "mla.prolog_v2"
// CHECK:         "mla.kv_rmsnorm_rope_cache"
ml_program.global private @"q_a_proj"(#ml_program.extern : tensor<7168x1536xbf16>) : tensor<7168x1536xbf16>
ml_program.global private @"q_a_layernorm"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"q_b_proj"(#ml_program.extern : tensor<1536x576xbf16>) : tensor<1536x576xbf16>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<3x128x512xbf16>) : tensor<3x128x512xbf16>
ml_program.global private @"kv_a_proj_with_mqa"(#ml_program.extern : tensor<7168x576xbf16>) : tensor<7168x576xbf16>
ml_program.global private @"kv_a_layernorm"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
func.func @vllm_heads_refused(
    %x: tensor<16x7168xbf16> {mla.name = "hidden_states"},
    %cos: tensor<16x1x1x64xbf16> {mla.name = "cos"},
    %sin: tensor<16x1x1x64xbf16> {mla.name = "sin"},
    %slots: tensor<16xi64> {mla.name = "slot_mapping"},
    %ckv_cache: tensor<40x128x1x512xbf16> {mla.name = "kv_cache_0"},
    %k_cache: tensor<40x128x1x64xbf16> {mla.name = "kv_cache_1"})
    -> (tensor<16x3x512xbf16>, tensor<16x3x64xbf16>, tensor<40x128x1x512xbf16>, tensor<40x128x1x64xbf16>) {
  %w_qa = ml_program.global_load_const @"q_a_proj" : tensor<7168x1536xbf16>
  %q_c0 = "mla.matmul"(%x, %w_qa) : (tensor<16x7168xbf16>, tensor<7168x1536xbf16>) -> tensor<16x1536xbf16>
  %gamma_cq = ml_program.global_load_const @"q_a_layernorm" : tensor<1536xbf16>
  %q_c = "mla.rms_norm"(%q_c0, %gamma_cq) : (tensor<16x1536xbf16>, tensor<1536xbf16>) -> tensor<16x1536xbf16>
  %w_qb = ml_program.global_load_const @"q_b_proj" : tensor<1536x576xbf16>
  %q = "mla.matmul"(%q_c, %w_qb) : (tensor<16x1536xbf16>, tensor<1536x576xbf16>) -> tensor<16x576xbf16>
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [16, 3, 192] : tensor<16x576xbf16> into tensor<16x3x192xbf16>
  %q_nope = tensor.extract_slice %q3[0, 0, 0] [16, 3, 128] [1, 1, 1] : tensor<16x3x192xbf16> to tensor<16x3x128xbf16>
  %w_uk = ml_program.global_load_const @"w_uk" : tensor<3x128x512xbf16>
  %ql_nope = "mla.transpose_batchmatmul"(%q_nope, %w_uk) {perm_x1 = array<i64: 1, 0, 2>} : (tensor<16x3x128xbf16>, tensor<3x128x512xbf16>) -> tensor<16x3x512xbf16>
  %q_pe = tensor.extract_slice %q3[0, 0, 128] [16, 3, 64] [1, 1, 1] : tensor<16x3x192xbf16> to tensor<16x3x64xbf16>
  %q_pe4 = tensor.expand_shape %q_pe [[0], [1], [2, 3]] output_shape [16, 3, 1, 64] : tensor<16x3x64xbf16> into tensor<16x3x1x64xbf16>
  %q_rot4 = "mla.rope"(%q_pe4, %cos, %sin) : (tensor<16x3x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>) -> tensor<16x3x1x64xbf16>
  %q_rot = tensor.collapse_shape %q_rot4 [[0], [1], [2, 3]] : tensor<16x3x1x64xbf16> into tensor<16x3x64xbf16>
  %w_kva = ml_program.global_load_const @"kv_a_proj_with_mqa" : tensor<7168x576xbf16>
  %kv = "mla.matmul"(%x, %w_kva) : (tensor<16x7168xbf16>, tensor<7168x576xbf16>) -> tensor<16x576xbf16>
  %kv4 = tensor.expand_shape %kv [[0, 1, 2], [3]] output_shape [16, 1, 1, 576] : tensor<16x576xbf16> into tensor<16x1x1x576xbf16>
  %gamma_ckv = ml_program.global_load_const @"kv_a_layernorm" : tensor<512xbf16>
  // expected-remark @+1 {{fuse-prolog: not fused: 'mla.prolog_v2' op weight_uk: expected N (dimension 0) in {1, 2, 4, 8, 16, 32, 64, 128}, got 3 [MLA-093]}}
  %k_new, %ckv_new, %k_embed, %y = "mla.kv_rmsnorm_rope_cache"(%kv4, %gamma_ckv, %cos, %sin, %slots, %k_cache, %ckv_cache) {cache_mode = "PA", epsilon = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<16x1x1x576xbf16>, tensor<512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x64xbf16>, tensor<16xi64>, tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>) -> (tensor<40x128x1x64xbf16>, tensor<40x128x1x512xbf16>, tensor<16x1x1x64xbf16>, tensor<16x1x1x512xbf16>)
  return %ql_nope, %q_rot, %ckv_new, %k_new : tensor<16x3x512xbf16>, tensor<16x3x64xbf16>, tensor<40x128x1x512xbf16>, tensor<40x128x1x64xbf16>
}

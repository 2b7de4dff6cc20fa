// One MLA decode step as IR: mla.prolog_v2 writes the paged caches, attention (FIA in MLA mode)
// reads them. With cache_mode = "PA_NZ" the caches hold NZ-ordered blocks in an ND-typed tensor,
// and attention reads them through mla.nz_cache_view (no data moves).
// test/python/test_mla_chain.py runs both splits and checks they give the same attention.
// RUN: mla-opt %s --split-input-file | FileCheck %s
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @pa_bsnd
// CHECK: "mla.prolog_v2"
// CHECK-NOT: mla.nz_cache_view
// CHECK: "mla.fused_infer_attention_score"
func.func @pa_bsnd(
    %x: tensor<2x1x7168xbf16>,
    %w_dq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>,
    %w_uq_qr: tensor<1536x1536xbf16, #mla.format<"FRACTAL_NZ">>,
    %w_uk: tensor<8x128x512xbf16>,
    %w_dkv_kr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>,
    %gamma_cq: tensor<1536xbf16>, %gamma_ckv: tensor<512xbf16>,
    %sin: tensor<2x1x64xbf16>, %cos: tensor<2x1x64xbf16>,
    %slots: tensor<2x1xi64>,
    %kv_cache: tensor<4x16x1x512xbf16>, %kr_cache: tensor<4x16x1x64xbf16>,
    %block_table: tensor<2x2xi32>)
    -> (tensor<2x1x8x512xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>) {
  %q, %q_rope, %kv, %kr, %dq = "mla.prolog_v2"(%x, %w_dq, %w_uq_qr, %w_uk, %w_dkv_kr, %gamma_cq, %gamma_ckv,
        %sin, %cos, %slots, %kv_cache, %kr_cache)
      {rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64,
       operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>}
      : (tensor<2x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>,
         tensor<1536x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<8x128x512xbf16>,
         tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>,
         tensor<2x1x64xbf16>, tensor<2x1x64xbf16>, tensor<2x1xi64>,
         tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>)
      -> (tensor<2x1x8x512xbf16>, tensor<2x1x8x64xbf16>, tensor<4x16x1x512xbf16>,
          tensor<4x16x1x64xbf16>, tensor<1xf32>)
  // key = value = the latent cache; key_rope = the rope cache (the MLA mode of FIA).
  %out, %lse = "mla.fused_infer_attention_score"(%q, %kv, %kv, %block_table, %q_rope, %kr)
      {num_heads = 8 : i64, num_key_value_heads = 1 : i64, scale_value = 0.07 : f64,
       input_layout = "BSND", block_size = 16 : i64, actual_seq_lengths_kv = array<i64: 20, 9>,
       operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>}
      : (tensor<2x1x8x512xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x512xbf16>,
         tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x16x1x64xbf16>)
      -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return %out, %kv, %kr : tensor<2x1x8x512xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>
}
// -----

// CHECK-LABEL: func.func @pa_nz
// CHECK: "mla.prolog_v2"{{.*}}cache_mode = "PA_NZ"
// CHECK: %[[KV:.*]] = "mla.nz_cache_view"(%{{.*}}) : (tensor<4x16x1x512xbf16>) -> tensor<4x16x512xbf16, #mla.format<"FRACTAL_NZ">>
// CHECK: %[[KR:.*]] = "mla.nz_cache_view"
// CHECK: "mla.fused_infer_attention_score"(%{{.*}}, %[[KV]], %[[KV]], %{{.*}}, %{{.*}}, %[[KR]])
func.func @pa_nz(
    %x: tensor<2x1x7168xbf16>,
    %w_dq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>,
    %w_uq_qr: tensor<1536x1536xbf16, #mla.format<"FRACTAL_NZ">>,
    %w_uk: tensor<8x128x512xbf16>,
    %w_dkv_kr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>,
    %gamma_cq: tensor<1536xbf16>, %gamma_ckv: tensor<512xbf16>,
    %sin: tensor<2x1x64xbf16>, %cos: tensor<2x1x64xbf16>,
    %slots: tensor<2x1xi64>,
    %kv_cache: tensor<4x16x1x512xbf16>, %kr_cache: tensor<4x16x1x64xbf16>,
    %block_table: tensor<2x2xi32>)
    -> (tensor<2x1x8x512xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>) {
  %q, %q_rope, %kv, %kr, %dq = "mla.prolog_v2"(%x, %w_dq, %w_uq_qr, %w_uk, %w_dkv_kr, %gamma_cq, %gamma_ckv,
        %sin, %cos, %slots, %kv_cache, %kr_cache)
      {rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, cache_mode = "PA_NZ",
       operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>}
      : (tensor<2x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>,
         tensor<1536x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<8x128x512xbf16>,
         tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>,
         tensor<2x1x64xbf16>, tensor<2x1x64xbf16>, tensor<2x1xi64>,
         tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>)
      -> (tensor<2x1x8x512xbf16>, tensor<2x1x8x64xbf16>, tensor<4x16x1x512xbf16>,
          tensor<4x16x1x64xbf16>, tensor<1xf32>)
  // key = value = the latent cache; key_rope = the rope cache (the MLA mode of FIA).
  %kv_nz = "mla.nz_cache_view"(%kv) : (tensor<4x16x1x512xbf16>) -> tensor<4x16x512xbf16, #mla.format<"FRACTAL_NZ">>
  %kr_nz = "mla.nz_cache_view"(%kr) : (tensor<4x16x1x64xbf16>) -> tensor<4x16x64xbf16, #mla.format<"FRACTAL_NZ">>
  %out, %lse = "mla.fused_infer_attention_score"(%q, %kv_nz, %kv_nz, %block_table, %q_rope, %kr_nz)
      {num_heads = 8 : i64, num_key_value_heads = 1 : i64, scale_value = 0.07 : f64,
       input_layout = "BSND", block_size = 16 : i64, actual_seq_lengths_kv = array<i64: 20, 9>,
       operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>}
      : (tensor<2x1x8x512xbf16>, tensor<4x16x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x16x512xbf16, #mla.format<"FRACTAL_NZ">>,
         tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x16x64xbf16, #mla.format<"FRACTAL_NZ">>)
      -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return %out, %kv, %kr : tensor<2x1x8x512xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>
}
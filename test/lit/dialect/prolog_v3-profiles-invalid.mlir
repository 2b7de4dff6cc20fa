// RUN: mla-opt %s --split-input-file --verify-diagnostics
// The PV3-2511 profile of mla.prolog_v3 (module attribute mla.profile): the 2025-11 document,
// narrower than the newest one (under which each op here is valid): every quant mode 0, S <= 16,
// He in {6144, 7168, 7680}, Hcq 1536, D 128, BlockSize 16 or 128.

// -----

// PV3-14: 2025-11: every quant mode reserved
module attributes {mla.profile = "PV3-2511"} {
  func.func @pc_2511(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xi8>, %cache_index: tensor<4xi64>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %quant_scale_ckv: tensor<1x512xf32>, %quant_scale_ckr: tensor<1x64xf32>) {
    // expected-error @+1 {{query_quant_mode: expected every quant mode 0 (reserved in the 2025-11 document), got (1, 2, 0) [PV3-14]}}
    %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_w_uq_qr, %quant_scale_ckv, %quant_scale_ckr) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 1 : i64, kv_cache_quant_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xi8>, tensor<4xi64>, tensor<1x192xf32>, tensor<1x512xf32>, tensor<1x64xf32>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xi8>)
    return
  }
}

// -----

// PV3-01: 2025-11: S <= 16
module attributes {mla.profile = "PV3-2511"} {
  func.func @s32(%token_x: tensor<2x32x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<2x32x64xbf16>, %rope_cos: tensor<2x32x64xbf16>, %kv_cache: tensor<2x32x1x512xbf16>, %kr_cache: tensor<2x32x1x64xbf16>) {
    // expected-error @+1 {{token_x: expected S <= 16 (2025-11 document), got 32 [PV3-01]}}
    %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, cache_mode = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x32x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<2x32x64xbf16>, tensor<2x32x64xbf16>, tensor<2x32x1x512xbf16>, tensor<2x32x1x64xbf16>) -> (tensor<2x32x1x512xbf16>, tensor<2x32x1x64xbf16>, tensor<0xf32>, tensor<2x32x1536xbf16>, tensor<0xf32>, tensor<2x32x1x512xbf16>, tensor<2x32x1x64xbf16>)
    return
  }
}

// -----

// PV3-02: 2025-11: He in {6144, 7168, 7680}
module attributes {mla.profile = "PV3-2511"} {
  func.func @he_1024(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
    // expected-error @+1 {{token_x: expected He in {6144, 7168, 7680} (2025-11 document), got 1024 [PV3-02]}}
    %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
    return
  }
}

// -----

// PV3-03: 2025-11: Hcq 1536
module attributes {mla.profile = "PV3-2511"} {
  func.func @hcq_2048(%token_x: tensor<4x7168xbf16>, %weight_dq: tensor<7168x2048xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<2048x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<2048xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
    // expected-error @+1 {{weight_dq: expected Hcq = 1536 (2025-11 document), got 2048 [PV3-03]}}
    %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<7168x2048xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2048x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2048xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x2048xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
    return
  }
}

// -----

// PV3-06: 2025-11: D 128
module attributes {mla.profile = "PV3-2511"} {
  func.func @d_192(%token_x: tensor<4x7168xbf16>, %weight_dq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x256xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x192x512xbf16>, %weight_dkv_kr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
    // expected-error @+1 {{weight_uk: expected D = 128 (2025-11 document), got 192 [PV3-06]}}
    %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x256xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x192x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
    return
  }
}

// -----

// PV3-07: 2025-11: BlockSize 16 or 128
module attributes {mla.profile = "PV3-2511"} {
  func.func @bs_32(%token_x: tensor<4x7168xbf16>, %weight_dq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x32x1x512xbf16>, %kr_cache: tensor<2x32x1x64xbf16>, %cache_index: tensor<4xi64>) {
    // expected-error @+1 {{kv_cache: expected BlockSize 16 or 128 (2025-11 document), got 32 [PV3-07]}}
    %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x32x1x512xbf16>, tensor<2x32x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x32x1x512xbf16>, tensor<2x32x1x64xbf16>)
    return
  }
}

// RUN: mla-opt %s --split-input-file --verify-diagnostics
// One split per static rule of mla.prolog_v3 (the DSA reference's PV3-01 .. PV3-24): each mutates
// one thing of a valid op: BS-merged tokens (T 4, He 1024, Hcq 1536, one head of 128 + 64) into
// PA_BSND caches of 2 blocks of 16 with query_norm (scenario (0, 0, 0)), or one of the quantized
// scenarios (2, 1, 1), (1, 2, 0), (1, 3, 0) (vLLM-Ascend's C8: the packed 656-byte rows), or the
// unmerged BSND / PA_BLK_BSND cache modes. The 2025-11 profile is in
// prolog_v3-profiles-invalid.mlir; the argument and data rules (PV3-20 presence, PV3-17
// contiguity, PV3-18, PV3-X01, PV3-09 with actual_seq_len) in test/python/test_dsa_eager.py.

// -----

// PV3-21: cache_mode in the six modes
func.func @cache_mode(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{cache_mode: expected PA_BSND, PA_NZ, PA_BLK_BSND, PA_BLK_NZ, BSND or TND, got 'NZ' [PV3-21]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, cache_mode = "NZ", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-21: weight_quant_mode 0 .. 5
func.func @wq6(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_quant_mode: expected one of 0, 1, 2, 3, 4 or 5, got 6 [PV3-21]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 6 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<4x1xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-21: kv_cache_quant_mode 0 .. 3
func.func @kvq4(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{kv_cache_quant_mode: expected one of 0, 1, 2 or 3, got 4 [PV3-21]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, kv_cache_quant_mode = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-21: query_quant_mode 0 or 1
func.func @qq2(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{query_quant_mode: expected one of 0 or 1, got 2 [PV3-21]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, query_quant_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-21: ckvkr_repo_mode 0 or 1
func.func @repo2(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{ckvkr_repo_mode: expected one of 0 or 1, got 2 [PV3-21]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, ckvkr_repo_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-21: quant_scale_repo_mode 0 or 1
func.func @srepo2(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{quant_scale_repo_mode: expected one of 0 or 1, got 3 [PV3-21]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, quant_scale_repo_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-21: tile_size 128 with the packed cache
func.func @tile64(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x656xi8>, %kr_cache: tensor<0xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %k_nope_clip_alpha: tensor<1xf32>) {
  // expected-error @+1 {{tile_size: expected 128 with kv_cache_quant_mode 3 (four tiles of the 512-value latent), got 64 [PV3-21]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_w_uq_qr, %k_nope_clip_alpha) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 1 : i64, kv_cache_quant_mode = 3 : i64, ckvkr_repo_mode = 1 : i64, quant_scale_repo_mode = 1 : i64, tile_size = 64 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x656xi8>, tensor<0xbf16>, tensor<4xi64>, tensor<1x192xf32>, tensor<1xf32>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x656xi8>, tensor<0xbf16>)
  return
}

// -----

// PV3-14: a supported (wq, kvq, qq) scenario
func.func @scenario(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{kv_cache_quant_mode: (weight_quant_mode, kv_cache_quant_mode, query_quant_mode) = (0, 1, 0) is not a supported scenario ((0, 0, 0), (1, 0, 0), (1, 2, 0), (1, 3, 0), (2, 0, 0), (2, 1, 1), (2, 3, 0); and Ascend 950's weight modes 3, 4, 5) [PV3-14]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, kv_cache_quant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-15: A2/A3: no weight modes 3, 4, 5
func.func @wq4(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_quant_mode: weight modes 3, 4, 5 (mxfp8, fp8, hifloat8) are Ascend 950 only (Atlas A2/A3: 0, 1, 2), got 4 [PV3-15]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<4x1xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-15: A2/A3: no hifloat8
func.func @dt1(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{token_x_dtype: must be absent on Atlas A2/A3 (it names a hifloat8 tensor travelling as uint8, Ascend 950), got 290 [PV3-15]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, token_x_dtype = 290 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-15: A2/A3: no hifloat8
func.func @dt2(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_dq_dtype: must be absent on Atlas A2/A3 (it names a hifloat8 tensor travelling as uint8, Ascend 950), got 290 [PV3-15]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_dq_dtype = 290 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-15: A2/A3: no hifloat8
func.func @dt3(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_uq_qr_dtype: must be absent on Atlas A2/A3 (it names a hifloat8 tensor travelling as uint8, Ascend 950), got 290 [PV3-15]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_uq_qr_dtype = 290 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-15: A2/A3: no hifloat8
func.func @dt4(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_dkv_kr_dtype: must be absent on Atlas A2/A3 (it names a hifloat8 tensor travelling as uint8, Ascend 950), got 290 [PV3-15]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_dkv_kr_dtype = 290 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-15: A2/A3: no hifloat8
func.func @dt5(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{kv_cache_dtype: must be absent on Atlas A2/A3 (it names a hifloat8 tensor travelling as uint8, Ascend 950), got 290 [PV3-15]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, kv_cache_dtype = 290 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-12: repo modes 1 only with the packed cache
func.func @repo_nq(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{ckvkr_repo_mode: expected ckvkr_repo_mode = quant_scale_repo_mode = 0 unless kv_cache_quant_mode is 3, got (1, 0) [PV3-12]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, ckvkr_repo_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-12: the packed cache in PA_BSND, BSND or TND
func.func @tile_nz(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x656xi8>, %kr_cache: tensor<0xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %k_nope_clip_alpha: tensor<1xf32>) {
  // expected-error @+1 {{cache_mode: expected PA_BSND, BSND or TND with kv_cache_quant_mode 3, got 'PA_NZ' [PV3-12]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_w_uq_qr, %k_nope_clip_alpha) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 1 : i64, kv_cache_quant_mode = 3 : i64, ckvkr_repo_mode = 1 : i64, quant_scale_repo_mode = 1 : i64, cache_mode = "PA_NZ", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x656xi8>, tensor<0xbf16>, tensor<4xi64>, tensor<1x192xf32>, tensor<1xf32>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x656xi8>, tensor<0xbf16>)
  return
}

// -----

// PV3-20: token_x 2-D or 3-D
func.func @x_rank(%token_x: tensor<1x2x2x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{token_x: expected rank 2 (T, He) or 3 (B, S, He), got tensor<1x2x2x1024xbf16> [PV3-20]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x2x2x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<1x2x2x1x512xbf16>, tensor<1x2x2x1x64xbf16>, tensor<0xf32>, tensor<1x2x2x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-11: cache_mode TND needs a 2-D token_x
func.func @tnd_3d(%token_x: tensor<2x2x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<2x2x64xbf16>, %rope_cos: tensor<2x2x64xbf16>, %kv_cache: tensor<2x2x1x512xbf16>, %kr_cache: tensor<2x2x1x64xbf16>) {
  // expected-error @+1 {{token_x: expected a 2-D token_x (T, He) with cache_mode TND, got tensor<2x2x1024xbf16> [PV3-11]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, cache_mode = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x2x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<2x2x64xbf16>, tensor<2x2x64xbf16>, tensor<2x2x1x512xbf16>, tensor<2x2x1x64xbf16>) -> (tensor<2x2x1x512xbf16>, tensor<2x2x1x64xbf16>, tensor<0xf32>, tensor<2x2x1536xbf16>, tensor<0xf32>, tensor<2x2x1x512xbf16>, tensor<2x2x1x64xbf16>)
  return
}

// -----

// PV3-20: weight_uk 3-D
func.func @uk_rank(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_uk: expected rank 3 (N, D, Hckv), got tensor<128x512xbf16> [PV3-20]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-20: rope_sin of token_x's rank
func.func @sin_rank(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x1x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{rope_sin: expected token_x's rank (2), got tensor<4x1x64xbf16> [PV3-20]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x1x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-20: rope_cos of token_x's rank
func.func @cos_rank(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x1x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{rope_cos: expected token_x's rank (2), got tensor<4x1x64xbf16> [PV3-20]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x1x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: FRACTAL_NZ weight
func.func @wdq_nd(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_dq: expected format FRACTAL_NZ (#mla.format<"FRACTAL_NZ">; eager: format_cast(w, 29)), got ND [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: FRACTAL_NZ weight
func.func @wuq_nd(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_uq_qr: expected format FRACTAL_NZ (#mla.format<"FRACTAL_NZ">; eager: format_cast(w, 29)), got ND [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: FRACTAL_NZ weight
func.func @wdkv_nd(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_dkv_kr: expected format FRACTAL_NZ (#mla.format<"FRACTAL_NZ">; eager: format_cast(w, 29)), got ND [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: ND
func.func @token_x_nz(%token_x: tensor<4x1024xbf16, #mla.format<"FRACTAL_NZ">>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{token_x: expected format ND, got tensor<4x1024xbf16, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: ND
func.func @weight_uk_nz(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16, #mla.format<"FRACTAL_NZ">>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_uk: expected format ND, got tensor<1x128x512xbf16, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: ND
func.func @rmsnorm_gamma_cq_nz(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{rmsnorm_gamma_cq: expected format ND, got tensor<1536xbf16, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: ND
func.func @rmsnorm_gamma_ckv_nz(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16, #mla.format<"FRACTAL_NZ">>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{rmsnorm_gamma_ckv: expected format ND, got tensor<512xbf16, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: ND
func.func @rope_sin_nz(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16, #mla.format<"FRACTAL_NZ">>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{rope_sin: expected format ND, got tensor<4x64xbf16, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: ND
func.func @rope_cos_nz(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16, #mla.format<"FRACTAL_NZ">>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{rope_cos: expected format ND, got tensor<4x64xbf16, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: ND
func.func @kv_cache_nz(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16, #mla.format<"FRACTAL_NZ">>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{kv_cache: expected format ND, got tensor<2x16x1x512xbf16, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: ND
func.func @kr_cache_nz(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16, #mla.format<"FRACTAL_NZ">>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{kr_cache: expected format ND, got tensor<2x16x1x64xbf16, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16, #mla.format<"FRACTAL_NZ">>)
  return
}

// -----

// PV3-17: ND
func.func @cache_index_nz(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{cache_index: expected format ND, got tensor<4xi64, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64, #mla.format<"FRACTAL_NZ">>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: ND
func.func @dequant_scale_x_nz(%token_x: tensor<4x1024xi8>, %weight_dq: tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_x: tensor<4x1xf32, #mla.format<"FRACTAL_NZ">>, %dequant_scale_w_dq: tensor<1x1536xf32>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %dequant_scale_w_dkv_kr: tensor<1x576xf32>, %quant_scale_ckv: tensor<1xf32>) {
  // expected-error @+1 {{dequant_scale_x: expected format ND, got tensor<4x1xf32, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_x, %dequant_scale_w_dq, %dequant_scale_w_uq_qr, %dequant_scale_w_dkv_kr, %quant_scale_ckv) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 2 : i64, kv_cache_quant_mode = 1 : i64, query_quant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<4x1024xi8>, tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>, tensor<4xi64>, tensor<4x1xf32, #mla.format<"FRACTAL_NZ">>, tensor<1x1536xf32>, tensor<1x192xf32>, tensor<1x576xf32>, tensor<1xf32>) -> (tensor<4x1x512xi8>, tensor<4x1x64xbf16>, tensor<4x1x1xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: ND
func.func @dequant_scale_w_dq_nz(%token_x: tensor<4x1024xi8>, %weight_dq: tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_x: tensor<4x1xf32>, %dequant_scale_w_dq: tensor<1x1536xf32, #mla.format<"FRACTAL_NZ">>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %dequant_scale_w_dkv_kr: tensor<1x576xf32>, %quant_scale_ckv: tensor<1xf32>) {
  // expected-error @+1 {{dequant_scale_w_dq: expected format ND, got tensor<1x1536xf32, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_x, %dequant_scale_w_dq, %dequant_scale_w_uq_qr, %dequant_scale_w_dkv_kr, %quant_scale_ckv) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 2 : i64, kv_cache_quant_mode = 1 : i64, query_quant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<4x1024xi8>, tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>, tensor<4xi64>, tensor<4x1xf32>, tensor<1x1536xf32, #mla.format<"FRACTAL_NZ">>, tensor<1x192xf32>, tensor<1x576xf32>, tensor<1xf32>) -> (tensor<4x1x512xi8>, tensor<4x1x64xbf16>, tensor<4x1x1xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: ND
func.func @dequant_scale_w_uq_qr_nz(%token_x: tensor<4x1024xi8>, %weight_dq: tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_x: tensor<4x1xf32>, %dequant_scale_w_dq: tensor<1x1536xf32>, %dequant_scale_w_uq_qr: tensor<1x192xf32, #mla.format<"FRACTAL_NZ">>, %dequant_scale_w_dkv_kr: tensor<1x576xf32>, %quant_scale_ckv: tensor<1xf32>) {
  // expected-error @+1 {{dequant_scale_w_uq_qr: expected format ND, got tensor<1x192xf32, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_x, %dequant_scale_w_dq, %dequant_scale_w_uq_qr, %dequant_scale_w_dkv_kr, %quant_scale_ckv) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 2 : i64, kv_cache_quant_mode = 1 : i64, query_quant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<4x1024xi8>, tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>, tensor<4xi64>, tensor<4x1xf32>, tensor<1x1536xf32>, tensor<1x192xf32, #mla.format<"FRACTAL_NZ">>, tensor<1x576xf32>, tensor<1xf32>) -> (tensor<4x1x512xi8>, tensor<4x1x64xbf16>, tensor<4x1x1xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: ND
func.func @dequant_scale_w_dkv_kr_nz(%token_x: tensor<4x1024xi8>, %weight_dq: tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_x: tensor<4x1xf32>, %dequant_scale_w_dq: tensor<1x1536xf32>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %dequant_scale_w_dkv_kr: tensor<1x576xf32, #mla.format<"FRACTAL_NZ">>, %quant_scale_ckv: tensor<1xf32>) {
  // expected-error @+1 {{dequant_scale_w_dkv_kr: expected format ND, got tensor<1x576xf32, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_x, %dequant_scale_w_dq, %dequant_scale_w_uq_qr, %dequant_scale_w_dkv_kr, %quant_scale_ckv) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 2 : i64, kv_cache_quant_mode = 1 : i64, query_quant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<4x1024xi8>, tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>, tensor<4xi64>, tensor<4x1xf32>, tensor<1x1536xf32>, tensor<1x192xf32>, tensor<1x576xf32, #mla.format<"FRACTAL_NZ">>, tensor<1xf32>) -> (tensor<4x1x512xi8>, tensor<4x1x64xbf16>, tensor<4x1x1xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: ND
func.func @quant_scale_ckv_nz(%token_x: tensor<4x1024xi8>, %weight_dq: tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_x: tensor<4x1xf32>, %dequant_scale_w_dq: tensor<1x1536xf32>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %dequant_scale_w_dkv_kr: tensor<1x576xf32>, %quant_scale_ckv: tensor<1xf32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{quant_scale_ckv: expected format ND, got tensor<1xf32, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_x, %dequant_scale_w_dq, %dequant_scale_w_uq_qr, %dequant_scale_w_dkv_kr, %quant_scale_ckv) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 2 : i64, kv_cache_quant_mode = 1 : i64, query_quant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<4x1024xi8>, tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>, tensor<4xi64>, tensor<4x1xf32>, tensor<1x1536xf32>, tensor<1x192xf32>, tensor<1x576xf32>, tensor<1xf32, #mla.format<"FRACTAL_NZ">>) -> (tensor<4x1x512xi8>, tensor<4x1x64xbf16>, tensor<4x1x1xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: ND
func.func @ckr_nz(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xi8>, %cache_index: tensor<4xi64>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %quant_scale_ckv: tensor<1x512xf32>, %quant_scale_ckr: tensor<1x64xf32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{quant_scale_ckr: expected format ND, got tensor<1x64xf32, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_w_uq_qr, %quant_scale_ckv, %quant_scale_ckr) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 1 : i64, kv_cache_quant_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xi8>, tensor<4xi64>, tensor<1x192xf32>, tensor<1x512xf32>, tensor<1x64xf32, #mla.format<"FRACTAL_NZ">>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xi8>)
  return
}

// -----

// PV3-17: ND
func.func @smooth_nz(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xi8>, %cache_index: tensor<4xi64>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %quant_scale_ckv: tensor<1x512xf32>, %quant_scale_ckr: tensor<1x64xf32>, %smooth_scales_cq: tensor<1x1536xf32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{smooth_scales_cq: expected format ND, got tensor<1x1536xf32, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_w_uq_qr, %quant_scale_ckv, %quant_scale_ckr, %smooth_scales_cq) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 1 : i64, kv_cache_quant_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xi8>, tensor<4xi64>, tensor<1x192xf32>, tensor<1x512xf32>, tensor<1x64xf32>, tensor<1x1536xf32, #mla.format<"FRACTAL_NZ">>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xi8>)
  return
}

// -----

// PV3-17: ND
func.func @asl_nz(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<2xi64>, %actual_seq_len: tensor<2xi32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{actual_seq_len: expected format ND, got tensor<2xi32, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %actual_seq_len) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, cache_mode = "PA_BLK_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<2xi64>, tensor<2xi32, #mla.format<"FRACTAL_NZ">>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-17: ND
func.func @clip_nz(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x656xi8>, %kr_cache: tensor<0xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %k_nope_clip_alpha: tensor<1xf32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{k_nope_clip_alpha: expected format ND, got tensor<1xf32, FRACTAL_NZ> [PV3-17]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_w_uq_qr, %k_nope_clip_alpha) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 1 : i64, kv_cache_quant_mode = 3 : i64, ckvkr_repo_mode = 1 : i64, quant_scale_repo_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x656xi8>, tensor<0xbf16>, tensor<4xi64>, tensor<1x192xf32>, tensor<1xf32, #mla.format<"FRACTAL_NZ">>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x656xi8>, tensor<0xbf16>)
  return
}

// -----

// PV3-01: B <= 65536
func.func @batch(%token_x: tensor<65537x1x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<65537x1x64xbf16>, %rope_cos: tensor<65537x1x64xbf16>, %kv_cache: tensor<2x2x1x512xbf16>, %kr_cache: tensor<2x2x1x64xbf16>) {
  // expected-error @+1 {{token_x: expected B in [0, 65536], got 65537 [PV3-01]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, cache_mode = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<65537x1x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<65537x1x64xbf16>, tensor<65537x1x64xbf16>, tensor<2x2x1x512xbf16>, tensor<2x2x1x64xbf16>) -> (tensor<65537x1x1x512xbf16>, tensor<65537x1x1x64xbf16>, tensor<0xf32>, tensor<65537x1x1536xbf16>, tensor<0xf32>, tensor<2x2x1x512xbf16>, tensor<2x2x1x64xbf16>)
  return
}

// -----

// PV3-02: He in the listed sizes
func.func @he(%token_x: tensor<4x1536xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{token_x: expected He (last dimension) in {1024, 2048, 3072, 4096, 5120, 6144, 7168, 7680, 8192}, got 1536 [PV3-02]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1536xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-03: Hcq 1536 or 2048
func.func @hcq(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1024xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_dq: expected Hcq (columns) in {1536, 2048}, got 1024 ((1024, 1024)) [PV3-03]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1024xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1024xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-04: N in {1, 2, 4, .., 128}
func.func @heads(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<3x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_uk: expected N (dimension 0) in {1, 2, 4, 8, 16, 32, 64, 128}, got 3 [PV3-04]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<3x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x3x512xbf16>, tensor<4x3x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-06: D 128 or 192
func.func @d(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x64x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_uk: expected D (dimension 1) in {128, 192}, got 64 [PV3-06]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x64x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-05: Hckv 512
func.func @hckv(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x256xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_uk: expected Hckv = 512 (dimension 2), got 256 [PV3-05]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x256xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x256xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-05: Dr 64
func.func @dr(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x32xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{rope_sin: expected Dr = 64 (last dimension), got 32 [PV3-05]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x32xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x32xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-05: Nkv 1
func.func @nkv(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x2x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{kv_cache: expected Nkv = 1 (dimension -2), got tensor<2x16x2x512xbf16> [PV3-05]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x2x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x2x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-08: Dtile 656 with kv_cache_quant_mode 3
func.func @dtile(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<0xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %k_nope_clip_alpha: tensor<1xf32>) {
  // expected-error @+1 {{kv_cache: expected Dtile = 656 (the packed per-tile row; last dimension), got 512 [PV3-08]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_w_uq_qr, %k_nope_clip_alpha) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 1 : i64, kv_cache_quant_mode = 3 : i64, ckvkr_repo_mode = 1 : i64, quant_scale_repo_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<0xbf16>, tensor<4xi64>, tensor<1x192xf32>, tensor<1xf32>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<0xbf16>)
  return
}

// -----

// PV3-10: BSND cache (B, S, Nkv, Dtile)
func.func @kv_bsnd(%token_x: tensor<2x2x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<2x2x64xbf16>, %rope_cos: tensor<2x2x64xbf16>, %kv_cache: tensor<2x3x1x512xbf16>, %kr_cache: tensor<2x2x1x64xbf16>) {
  // expected-error @+1 {{kv_cache: expected (B, S, Nkv, Dtile) = (2, 2, 1, 512), got tensor<2x3x1x512xbf16> [PV3-10]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, cache_mode = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x2x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<2x2x64xbf16>, tensor<2x2x64xbf16>, tensor<2x3x1x512xbf16>, tensor<2x2x1x64xbf16>) -> (tensor<2x2x1x512xbf16>, tensor<2x2x1x64xbf16>, tensor<0xf32>, tensor<2x2x1536xbf16>, tensor<0xf32>, tensor<2x3x1x512xbf16>, tensor<2x2x1x64xbf16>)
  return
}

// -----

// PV3-13: kr_cache empty with ckvkr_repo_mode 1
func.func @kr_full(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x656xi8>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %k_nope_clip_alpha: tensor<1xf32>) {
  // expected-error @+1 {{kr_cache: expected an empty tensor with ckvkr_repo_mode 1 (the rope travels in kv_cache's rows), got tensor<2x16x1x64xbf16> [PV3-13]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_w_uq_qr, %k_nope_clip_alpha) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 1 : i64, kv_cache_quant_mode = 3 : i64, ckvkr_repo_mode = 1 : i64, quant_scale_repo_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x656xi8>, tensor<2x16x1x64xbf16>, tensor<4xi64>, tensor<1x192xf32>, tensor<1xf32>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x656xi8>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-07: BlockSize a multiple of 16 in [16, 1024]
func.func @bs(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x24x1x512xbf16>, %kr_cache: tensor<2x24x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{kv_cache: expected BlockSize (dimension 1) a multiple of 16 in [16, 1024], got 24 [PV3-07]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x24x1x512xbf16>, tensor<2x24x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x24x1x512xbf16>, tensor<2x24x1x64xbf16>)
  return
}

// -----

// PV3-09: BlockNum >= ceil(T / BlockSize)
func.func @blocks(%token_x: tensor<20x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<20x64xbf16>, %rope_cos: tensor<20x64xbf16>, %kv_cache: tensor<1x16x1x512xbf16>, %kr_cache: tensor<1x16x1x64xbf16>, %cache_index: tensor<20xi64>) {
  // expected-error @+1 {{kv_cache: expected BlockNum >= ceil(T / BlockSize) = 2, got 1 [PV3-09]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<20x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<20x64xbf16>, tensor<20x64xbf16>, tensor<1x16x1x512xbf16>, tensor<1x16x1x64xbf16>, tensor<20xi64>) -> (tensor<20x1x512xbf16>, tensor<20x1x64xbf16>, tensor<0xf32>, tensor<20x1536xbf16>, tensor<0xf32>, tensor<1x16x1x512xbf16>, tensor<1x16x1x64xbf16>)
  return
}

// -----

// PV3-16: only B, S, T, BlockNum may be 0
func.func @empty_weight(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x0xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{kv_cache: only B, S, T and BlockNum may be 0: weight_uq_qr is tensor<1536x0xbf16, FRACTAL_NZ> [PV3-16]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x0xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-10: rope_sin (T, Dr)
func.func @sin_shape(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<3x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{rope_sin: expected (T, Dr) = (4, 64), got tensor<3x64xbf16> [PV3-10]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<3x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-10: rope_cos (T, Dr)
func.func @cos_shape(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<5x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{rope_cos: expected (T, Dr) = (4, 64), got tensor<5x64xbf16> [PV3-10]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<5x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-10: weight_dq (He, Hcq)
func.func @wdq_shape(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<2048x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_dq: expected (He, Hcq) = (1024, 1536), got (2048, 1536) [PV3-10]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<2048x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-10: weight_uq_qr (Hcq, N*(D+Dr))
func.func @wuq_shape(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x256xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_uq_qr: expected (Hcq, N*(D+Dr)) = (1536, 192), got (1536, 256) [PV3-10]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x256xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-10: weight_dkv_kr (He, Hckv+Dr)
func.func @wdkv_shape(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x512xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_dkv_kr: expected (He, Hckv+Dr) = (1024, 576), got (1024, 512) [PV3-10]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-10: gamma (Hcq,)
func.func @gq(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<2048xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{rmsnorm_gamma_cq: expected (Hcq,) = (1536,), got tensor<2048xbf16> [PV3-10]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2048xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-10: gamma (Hckv,)
func.func @gkv(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<256xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{rmsnorm_gamma_ckv: expected (Hckv,) = (512,), got tensor<256xbf16> [PV3-10]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<256xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-10: cache_index one slot per token
func.func @ci(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<2x2xi64>) {
  // expected-error @+1 {{cache_index: expected one slot per token (T) = (4), got tensor<2x2xi64> [PV3-10]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<2x2xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-10: actual_seq_len only with merged tokens and PA_BLK_*
func.func @asl(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>, %actual_seq_len: tensor<2xi32>) {
  // expected-error @+1 {{actual_seq_len: must be absent unless token_x is 2-D and cache_mode is PA_BLK_*, got tensor<2xi32> [PV3-10]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %actual_seq_len) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>, tensor<2xi32>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-22: bf16 token_x outside weight_quant_mode 2
func.func @x_i8(%token_x: tensor<4x1024xi8>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{token_x: expected element type bf16 in scenario (weight_quant_mode, kv_cache_quant_mode) = (0, 0), got i8 [PV3-22]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xi8>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-22: int8 weight_dq in weight_quant_mode 2
func.func @wdq_bf16(%token_x: tensor<4x1024xi8>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_x: tensor<4x1xf32>, %dequant_scale_w_dq: tensor<1x1536xf32>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %dequant_scale_w_dkv_kr: tensor<1x576xf32>, %quant_scale_ckv: tensor<1xf32>) {
  // expected-error @+1 {{weight_dq: expected element type i8 in scenario (weight_quant_mode, kv_cache_quant_mode) = (2, 1), got bf16 [PV3-22]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_x, %dequant_scale_w_dq, %dequant_scale_w_uq_qr, %dequant_scale_w_dkv_kr, %quant_scale_ckv) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 2 : i64, kv_cache_quant_mode = 1 : i64, query_quant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<4x1024xi8>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>, tensor<4xi64>, tensor<4x1xf32>, tensor<1x1536xf32>, tensor<1x192xf32>, tensor<1x576xf32>, tensor<1xf32>) -> (tensor<4x1x512xi8>, tensor<4x1x64xbf16>, tensor<4x1x1xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-22: int8 weight_uq_qr in weight_quant_mode 1
func.func @wuq_bf16(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xi8>, %cache_index: tensor<4xi64>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %quant_scale_ckv: tensor<1x512xf32>, %quant_scale_ckr: tensor<1x64xf32>) {
  // expected-error @+1 {{weight_uq_qr: expected element type i8 in scenario (weight_quant_mode, kv_cache_quant_mode) = (1, 2), got bf16 [PV3-22]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_w_uq_qr, %quant_scale_ckv, %quant_scale_ckr) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 1 : i64, kv_cache_quant_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xi8>, tensor<4xi64>, tensor<1x192xf32>, tensor<1x512xf32>, tensor<1x64xf32>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xi8>)
  return
}

// -----

// PV3-22: bf16 weight_uk
func.func @wuk_f16(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{weight_uk: expected element type bf16 in scenario (weight_quant_mode, kv_cache_quant_mode) = (0, 0), got f16 [PV3-22]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-22: int8 weight_dkv_kr in weight_quant_mode 2
func.func @wdkv_bf16(%token_x: tensor<4x1024xi8>, %weight_dq: tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_x: tensor<4x1xf32>, %dequant_scale_w_dq: tensor<1x1536xf32>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %dequant_scale_w_dkv_kr: tensor<1x576xf32>, %quant_scale_ckv: tensor<1xf32>) {
  // expected-error @+1 {{weight_dkv_kr: expected element type i8 in scenario (weight_quant_mode, kv_cache_quant_mode) = (2, 1), got bf16 [PV3-22]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_x, %dequant_scale_w_dq, %dequant_scale_w_uq_qr, %dequant_scale_w_dkv_kr, %quant_scale_ckv) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 2 : i64, kv_cache_quant_mode = 1 : i64, query_quant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<4x1024xi8>, tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>, tensor<4xi64>, tensor<4x1xf32>, tensor<1x1536xf32>, tensor<1x192xf32>, tensor<1x576xf32>, tensor<1xf32>) -> (tensor<4x1x512xi8>, tensor<4x1x64xbf16>, tensor<4x1x1xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-22: bf16 gamma
func.func @gq_f32(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xf32>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{rmsnorm_gamma_cq: expected element type bf16 in scenario (weight_quant_mode, kv_cache_quant_mode) = (0, 0), got f32 [PV3-22]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xf32>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-22: bf16 gamma
func.func @gkv_f32(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xf32>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{rmsnorm_gamma_ckv: expected element type bf16 in scenario (weight_quant_mode, kv_cache_quant_mode) = (0, 0), got f32 [PV3-22]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xf32>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-22: bf16 rope tables
func.func @sin_f32(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xf32>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{rope_sin: expected element type bf16 in scenario (weight_quant_mode, kv_cache_quant_mode) = (0, 0), got f32 [PV3-22]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xf32>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-22: bf16 rope tables
func.func @cos_f16(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{rope_cos: expected element type bf16 in scenario (weight_quant_mode, kv_cache_quant_mode) = (0, 0), got f16 [PV3-22]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-22: int8 kv_cache with a quantized cache
func.func @kv_bf16(%token_x: tensor<4x1024xi8>, %weight_dq: tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_x: tensor<4x1xf32>, %dequant_scale_w_dq: tensor<1x1536xf32>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %dequant_scale_w_dkv_kr: tensor<1x576xf32>, %quant_scale_ckv: tensor<1xf32>) {
  // expected-error @+1 {{kv_cache: expected element type i8 in scenario (weight_quant_mode, kv_cache_quant_mode) = (2, 1), got bf16 [PV3-22]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_x, %dequant_scale_w_dq, %dequant_scale_w_uq_qr, %dequant_scale_w_dkv_kr, %quant_scale_ckv) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 2 : i64, kv_cache_quant_mode = 1 : i64, query_quant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<4x1024xi8>, tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>, tensor<4x1xf32>, tensor<1x1536xf32>, tensor<1x192xf32>, tensor<1x576xf32>, tensor<1xf32>) -> (tensor<4x1x512xi8>, tensor<4x1x64xbf16>, tensor<4x1x1xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-22: int8 kr_cache per channel
func.func @kr_bf16(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %quant_scale_ckv: tensor<1x512xf32>, %quant_scale_ckr: tensor<1x64xf32>) {
  // expected-error @+1 {{kr_cache: expected element type i8 in scenario (weight_quant_mode, kv_cache_quant_mode) = (1, 2), got bf16 [PV3-22]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_w_uq_qr, %quant_scale_ckv, %quant_scale_ckr) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 1 : i64, kv_cache_quant_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>, tensor<4xi64>, tensor<1x192xf32>, tensor<1x512xf32>, tensor<1x64xf32>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-23: dequant_scale_x only in weight_quant_mode 2
func.func @dsx(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_x: tensor<4x1xf32>) {
  // expected-error @+1 {{dequant_scale_x: must be absent outside weight_quant_mode 2, got tensor<4x1xf32> [PV3-23]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_x) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>, tensor<4x1xf32>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-23: (1, Hcq) f32
func.func @dsdq(%token_x: tensor<4x1024xi8>, %weight_dq: tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_x: tensor<4x1xf32>, %dequant_scale_w_dq: tensor<1536xf32>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %dequant_scale_w_dkv_kr: tensor<1x576xf32>, %quant_scale_ckv: tensor<1xf32>) {
  // expected-error @+1 {{dequant_scale_w_dq: expected an f32 tensor (1, 1536), got tensor<1536xf32> [PV3-23]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_x, %dequant_scale_w_dq, %dequant_scale_w_uq_qr, %dequant_scale_w_dkv_kr, %quant_scale_ckv) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 2 : i64, kv_cache_quant_mode = 1 : i64, query_quant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<4x1024xi8>, tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>, tensor<4xi64>, tensor<4x1xf32>, tensor<1536xf32>, tensor<1x192xf32>, tensor<1x576xf32>, tensor<1xf32>) -> (tensor<4x1x512xi8>, tensor<4x1x64xbf16>, tensor<4x1x1xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-23: required in weight_quant_mode 1 or 2
func.func @dsuq(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xi8>, %cache_index: tensor<4xi64>, %quant_scale_ckv: tensor<1x512xf32>, %quant_scale_ckr: tensor<1x64xf32>) {
  // expected-error @+1 {{dequant_scale_w_uq_qr: is required in weight_quant_mode 1 or 2, got none [PV3-23]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %quant_scale_ckv, %quant_scale_ckr) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 1 : i64, kv_cache_quant_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xi8>, tensor<4xi64>, tensor<1x512xf32>, tensor<1x64xf32>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xi8>)
  return
}

// -----

// PV3-23: (1, Hckv+Dr) f32
func.func @dsdkv(%token_x: tensor<4x1024xi8>, %weight_dq: tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_x: tensor<4x1xf32>, %dequant_scale_w_dq: tensor<1x1536xf32>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %dequant_scale_w_dkv_kr: tensor<1x576xf16>, %quant_scale_ckv: tensor<1xf32>) {
  // expected-error @+1 {{dequant_scale_w_dkv_kr: expected an f32 tensor (1, 576), got tensor<1x576xf16> [PV3-23]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_x, %dequant_scale_w_dq, %dequant_scale_w_uq_qr, %dequant_scale_w_dkv_kr, %quant_scale_ckv) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 2 : i64, kv_cache_quant_mode = 1 : i64, query_quant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<4x1024xi8>, tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>, tensor<4xi64>, tensor<4x1xf32>, tensor<1x1536xf32>, tensor<1x192xf32>, tensor<1x576xf16>, tensor<1xf32>) -> (tensor<4x1x512xi8>, tensor<4x1x64xbf16>, tensor<4x1x1xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-23: (1,) with kv per tensor
func.func @qsckv(%token_x: tensor<4x1024xi8>, %weight_dq: tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>, %dequant_scale_x: tensor<4x1xf32>, %dequant_scale_w_dq: tensor<1x1536xf32>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %dequant_scale_w_dkv_kr: tensor<1x576xf32>, %quant_scale_ckv: tensor<1x512xf32>) {
  // expected-error @+1 {{quant_scale_ckv: expected an f32 tensor (1), got tensor<1x512xf32> [PV3-23]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_x, %dequant_scale_w_dq, %dequant_scale_w_uq_qr, %dequant_scale_w_dkv_kr, %quant_scale_ckv) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 2 : i64, kv_cache_quant_mode = 1 : i64, query_quant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<4x1024xi8>, tensor<1024x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>, tensor<4xi64>, tensor<4x1xf32>, tensor<1x1536xf32>, tensor<1x192xf32>, tensor<1x576xf32>, tensor<1x512xf32>) -> (tensor<4x1x512xi8>, tensor<4x1x64xbf16>, tensor<4x1x1xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-23: (1, Dr) with kv per channel
func.func @qsckr(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xi8>, %cache_index: tensor<4xi64>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %quant_scale_ckv: tensor<1x512xf32>) {
  // expected-error @+1 {{quant_scale_ckr: is required in kv_cache_quant_mode 2, got none [PV3-23]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_w_uq_qr, %quant_scale_ckv) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 1 : i64, kv_cache_quant_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xi8>, tensor<4xi64>, tensor<1x192xf32>, tensor<1x512xf32>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xi8>)
  return
}

// -----

// PV3-23: only in weight_quant_mode 1 or 2
func.func @smooth(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>, %smooth_scales_cq: tensor<1x1536xf32>) {
  // expected-error @+1 {{smooth_scales_cq: must be absent outside weight_quant_mode 1 or 2, got tensor<1x1536xf32> [PV3-23]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %smooth_scales_cq) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>, tensor<1x1536xf32>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-23: only with the packed cache
func.func @clip(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xi8>, %cache_index: tensor<4xi64>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %quant_scale_ckv: tensor<1x512xf32>, %quant_scale_ckr: tensor<1x64xf32>, %k_nope_clip_alpha: tensor<1xf32>) {
  // expected-error @+1 {{k_nope_clip_alpha: must be absent outside (weight_quant_mode 1 or 2, kv_cache_quant_mode 3), got tensor<1xf32> [PV3-23]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_w_uq_qr, %quant_scale_ckv, %quant_scale_ckr, %k_nope_clip_alpha) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 1 : i64, kv_cache_quant_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xi8>, tensor<4xi64>, tensor<1x192xf32>, tensor<1x512xf32>, tensor<1x64xf32>, tensor<1xf32>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xi8>)
  return
}

// -----

// PV3-24: query (T, N, Hckv) bf16
func.func @query(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{query: expected tensor<4x1x512xbf16>, got tensor<4x1x512xi8> [PV3-24]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xi8>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-24: query_rope (T, N, Dr) bf16
func.func @query_rope(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{query_rope: expected tensor<4x1x64xbf16>, got tensor<4x64xbf16> [PV3-24]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-24: (0,) outside query_quant_mode 1
func.func @dsqn(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{dequant_scale_q_nope: expected tensor<0xf32>, got tensor<4x1x1xf32> [PV3-24]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<4x1x1xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-24: query_norm (T, Hcq)
func.func @qn(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{query_norm: expected tensor<4x1536xbf16>, got tensor<0xbf16> [PV3-24]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<0xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-24: (T, 1) with an int8 query_norm
func.func @dsqnorm(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xi8>, %kr_cache: tensor<2x16x1x64xi8>, %cache_index: tensor<4xi64>, %dequant_scale_w_uq_qr: tensor<1x192xf32>, %quant_scale_ckv: tensor<1x512xf32>, %quant_scale_ckr: tensor<1x64xf32>) {
  // expected-error @+1 {{dequant_scale_q_norm: expected tensor<4x1xf32>, got tensor<0xf32> [PV3-24]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index, %dequant_scale_w_uq_qr, %quant_scale_ckv, %quant_scale_ckr) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, weight_quant_mode = 1 : i64, kv_cache_quant_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xi8, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xi8>, tensor<4xi64>, tensor<1x192xf32>, tensor<1x512xf32>, tensor<1x64xf32>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xi8>, tensor<0xf32>, tensor<2x16x1x512xi8>, tensor<2x16x1x64xi8>)
  return
}

// -----

// PV3-24: the updated kv_cache
func.func @kvo(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{kv_cache_out: expected tensor<2x16x1x512xbf16>, got tensor<2x16x1x512xf16> [PV3-24]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xf16>, tensor<2x16x1x64xbf16>)
  return
}

// -----

// PV3-24: the updated kr_cache
func.func @kro(%token_x: tensor<4x1024xbf16>, %weight_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uq_qr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %weight_uk: tensor<1x128x512xbf16>, %weight_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, %rmsnorm_gamma_cq: tensor<1536xbf16>, %rmsnorm_gamma_ckv: tensor<512xbf16>, %rope_sin: tensor<4x64xbf16>, %rope_cos: tensor<4x64xbf16>, %kv_cache: tensor<2x16x1x512xbf16>, %kr_cache: tensor<2x16x1x64xbf16>, %cache_index: tensor<4xi64>) {
  // expected-error @+1 {{kr_cache_out: expected tensor<2x16x1x64xbf16>, got tensor<2x16x64xbf16> [PV3-24]}}
  %0:7 = "mla.prolog_v3"(%token_x, %weight_dq, %weight_uq_qr, %weight_uk, %weight_dkv_kr, %rmsnorm_gamma_cq, %rmsnorm_gamma_ckv, %rope_sin, %rope_cos, %kv_cache, %kr_cache, %cache_index) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<4xi64>) -> (tensor<4x1x512xbf16>, tensor<4x1x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<2x16x1x512xbf16>, tensor<2x16x64xbf16>)
  return
}

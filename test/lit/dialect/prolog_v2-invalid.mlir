// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.prolog_v2 (aclnnMlaPrologV2WeightNz): one split per static rule of checklist D1 that the V2
// profile checks (the prolog/NSA constraint catalog; rules in docs/rules.md Part D). Each op is a valid baseline with one defect:
// C1's shapes (B=8, S=1, He=7168, N=32, BlockNum=16, BlockSize=128) in the scenario the split names.
// Eager-only rules (PT, V1E) and the runtime rules are in test/python/test_prolog_eager.py.

// NQ: cache_mode must be PA_BSND or PA_NZ (case-sensitive)
func.func @cache_mode(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{cache_mode: expected "PA_BSND" or "PA_NZ", got 'PA_ND' [MLA-030]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>, cache_mode = "PA_ND"} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @cache_mode_case(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{cache_mode: expected "PA_BSND" or "PA_NZ", got 'pa_bsnd' [MLA-030]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>, cache_mode = "pa_bsnd"} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ: MLA-031: the epsilons are doubles; in IR the attribute kind is checked before the rules
func.func @epsilon_integer(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{rmsnorm_epsilon_cq: expected an f64 float attribute, got 1 : i64}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>, rmsnorm_epsilon_cq = 1 : i64} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @token_x_rank4(%x: tensor<8x1x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{token_x: expected rank 2 (T, He) or 3 (B, S, He), got rank 4 [MLA-040]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @rope_sin_rank(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{rope_sin: expected rank 3 (B, S, Dr) since token_x has rank 3, got rank 2 [MLA-041]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @rope_cos_rank(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{rope_cos: expected rank 3 (B, S, Dr) since token_x has rank 3, got rank 2 [MLA-042]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @cache_index_rank(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{cache_index: expected rank 2 (B, S) since token_x has rank 3, got rank 1 [MLA-043]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @query_rank(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{query: expected rank 4 (B, S, N, Hckv) since token_x has rank 3, got rank 3 [MLA-044]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @query_rope_rank(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{query_rope: expected rank 4 (B, S, N, Dr) since token_x has rank 3, got rank 3 [MLA-045]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_uk_rank(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x65536xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_uk: expected rank 3 (N, D, Hckv), got rank 2 [MLA-046]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x65536xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @gamma_cq_rank(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1x1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{rmsnorm_gamma_cq: expected rank 1 (Hcq), got rank 2 [MLA-047]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @gamma_ckv_rank(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<1x512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{rmsnorm_gamma_ckv: expected rank 1 (Hckv), got rank 2 [MLA-048]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<1x512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @kv_cache_rank(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{kv_cache: expected rank 4 (BlockNum, BlockSize, Nkv, Hckv), got rank 3 [MLA-049]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @kr_cache_rank(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x64xbf16>) {
  // expected-error @+1 {{kr_cache: expected rank 4 (BlockNum, BlockSize, Nkv, Dr), got rank 3 [MLA-050]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_dq_rank(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536x1xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_dq: expected rank 2 (He, Hcq) or the 4-D FRACTAL_NZ storage shape, got rank 3 [MLA-051]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536x1xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_uq_qr_rank(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144x1xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_uq_qr: expected rank 2 (Hcq, N*(D+Dr)) or the 4-D FRACTAL_NZ storage shape, got rank 3 [MLA-052]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144x1xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_dkv_kr_rank(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576x1xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_dkv_kr: expected rank 2 (He, Hckv+Dr) or the 4-D FRACTAL_NZ storage shape, got rank 3 [MLA-053]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576x1xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FQ-KVQ
func.func @scale_rank(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_w_dq: expected rank 2 (1, ...), got rank 1 [MLA-054]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
  return
}

// -----

// FQ-KVQ
func.func @dequant_scale_q_nope_rank(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_q_nope: expected rank 3 (T_eff, N, 1) in FQ-KVQ, got rank 2 [MLA-055]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32xf32>)
  return
}

// -----

// NQ
func.func @weight_dq_nd(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_dq: expected format FRACTAL_NZ (#mla.format<"FRACTAL_NZ">; eager: format_cast(w, 29)), got ND [MLA-060]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_uq_qr_nd(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_uq_qr: expected format FRACTAL_NZ (#mla.format<"FRACTAL_NZ">; eager: format_cast(w, 29)), got ND [MLA-061]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_dkv_kr_nd(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_dkv_kr: expected format FRACTAL_NZ (#mla.format<"FRACTAL_NZ">; eager: format_cast(w, 29)), got ND [MLA-062]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_uk_nz(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16, #mla.format<"FRACTAL_NZ">>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_uk: expected format ND, got FRACTAL_NZ [MLA-063]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ: PA_NZ is a cache_mode, not a tensor format
func.func @kv_cache_nz(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16, #mla.format<"FRACTAL_NZ">>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{kv_cache: expected format ND, got FRACTAL_NZ [MLA-063]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @dequant_scale_q_nope_nz(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{dequant_scale_q_nope: expected format ND, got FRACTAL_NZ [MLA-063]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x1xf32, #mla.format<"FRACTAL_NZ">>)
  return
}

// -----

// NQ
func.func @token_x_f16(%x: tensor<8x1x7168xf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{token_x: expected element type bf16 or i8, got f16 [MLA-070]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_dq_f16(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_dq: expected element type bf16 or i8, got f16 [MLA-071]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_uq_qr_f16(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_uq_qr: expected element type bf16 or i8, got f16 [MLA-072]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_uk_i8(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xi8>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_uk: expected element type bf16, got i8 [MLA-073]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xi8>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_dkv_kr_f16(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_dkv_kr: expected element type bf16 or i8, got f16 [MLA-074]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @gamma_cq_f32(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xf32>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{rmsnorm_gamma_cq: expected element type bf16, got f32 [MLA-075]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xf32>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @gamma_ckv_f32(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xf32>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{rmsnorm_gamma_ckv: expected element type bf16, got f32 [MLA-076]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xf32>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @rope_sin_f16(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{rope_sin: expected element type bf16, got f16 [MLA-077]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @rope_cos_f16(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{rope_cos: expected element type bf16, got f16 [MLA-078]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @cache_index_i32(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi32>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{cache_index: expected element type i64, got i32 [MLA-079]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi32>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @kv_cache_f16(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{kv_cache: expected element type bf16 or i8, got f16 [MLA-080]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @kr_cache_f16(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xf16>) {
  // expected-error @+1 {{kr_cache: expected element type bf16 or i8, got f16 [MLA-081]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xf16>, tensor<1xf32>)
  return
}

// -----

// PQ-KVQ
func.func @scale_bf16(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xi8>, %dswuqqr: tensor<1x6144xf32>, %qsckv: tensor<1x512xbf16>, %qsckr: tensor<1x64xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{quant_scale_ckv: expected element type f32, got bf16 [MLA-082]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %qsckv, %qsckr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1x6144xf32>, tensor<1x512xbf16>, tensor<1x64xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @query_f16(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{query: expected element type bf16 or i8, got f16 [MLA-083]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @query_rope_i8(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{query_rope: expected element type bf16, got i8 [MLA-084]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xi8>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @dequant_scale_q_nope_bf16(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{dequant_scale_q_nope: expected element type f32, got bf16 [MLA-085]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xbf16>)
  return
}

// -----

// NQ, He 6144
func.func @he_6144(%x: tensor<8x1x6144xbf16>, %wdq: tensor<6144x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<6144x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{token_x: expected He (last dimension) in {7168, 7680}, got 6144 [MLA-090]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x6144xbf16>, tensor<6144x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<6144x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_dq_hcq(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1024xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_dq: expected Hcq = 1536 columns, got 1024 (shape (7168, 1024)) [MLA-092]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1024xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ, N 3
func.func @n_3(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x576xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<3x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_uk: expected N (dimension 0) in {1, 2, 4, 8, 16, 32, 64, 128}, got 3 [MLA-093]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<3x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x3x512xbf16>, tensor<8x1x3x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ, N 256
func.func @n_256(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x49152xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<256x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_uk: expected N (dimension 0) in {1, 2, 4, 8, 16, 32, 64, 128}, got 256 [MLA-093]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x49152xbf16, #mla.format<"FRACTAL_NZ">>, tensor<256x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x256x512xbf16>, tensor<8x1x256x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @hckv(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x512xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_dkv_kr: expected Hckv + Dr = 512 + 64 = 576 columns, got 512 (shape (7168, 512)) [MLA-095]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @d_64(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x64x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_uk: expected D (dimension 1) = 128, got 64 [MLA-096]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x64x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @dr_32(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x32xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{rope_sin: expected Dr (last dimension) = 64, got 32 [MLA-097]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x32xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @nkv_2(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x2x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{kv_cache: expected Nkv (dimension 2) = 1, got 2 [MLA-098]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x2x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x2x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ, block (16, 64)
func.func @block_size_64(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x64x1x512xbf16>, %kr: tensor<16x64x1x64xbf16>) {
  // expected-error @+1 {{kv_cache: expected BlockSize (dimension 1) = 16 or 128, got 64 [MLA-099]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x64x1x512xbf16>, tensor<16x64x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x64x1x512xbf16>, tensor<16x64x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ, tokens 65537x1
func.func @b_65537(%x: tensor<65537x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<65537x1x64xbf16>, %cos: tensor<65537x1x64xbf16>, %idx: tensor<65537x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{token_x: expected B (dimension 0) in [0, 65536], got 65537 [MLA-100]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<65537x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<65537x1x64xbf16>, tensor<65537x1x64xbf16>, tensor<65537x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<65537x1x32x512xbf16>, tensor<65537x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ, tokens 1x17
func.func @s_17(%x: tensor<1x17x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<1x17x64xbf16>, %cos: tensor<1x17x64xbf16>, %idx: tensor<1x17xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{token_x: expected S (dimension 1) in [0, 16], got 17 [MLA-102]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x17x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<1x17x64xbf16>, tensor<1x17x64xbf16>, tensor<1x17xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<1x17x32x512xbf16>, tensor<1x17x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ, tokens 1048577
func.func @t_1048577(%x: tensor<1048577x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<1048577x64xbf16>, %cos: tensor<1048577x64xbf16>, %idx: tensor<1048577xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{token_x: expected T (dimension 0) in [0, 1048576], got 1048577 [MLA-104]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1048577x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<1048577x64xbf16>, tensor<1048577x64xbf16>, tensor<1048577xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<1048577x32x512xbf16>, tensor<1048577x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @rope_sin_tokens(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x2x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{rope_sin: expected shape (B, S, Dr) = (8, 1, 64), got (8, 2, 64) [MLA-110]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x2x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @rope_cos_dr(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x32xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{rope_cos: expected shape (B, S, Dr) = (8, 1, 64), got (8, 1, 32) [MLA-111]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x32xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @cache_index_tokens(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x2xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{cache_index: expected shape (B, S) = (8, 1), got (8, 2) [MLA-112]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x2xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @query_heads(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{query: expected shape (B, S, N, Hckv) = (8, 1, 32, 512), got (8, 1, 16, 512) [MLA-113]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x16x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @query_rope_dim(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{query_rope: expected shape (B, S, N, Dr) = (8, 1, 32, 64), got (8, 1, 32, 128) [MLA-114]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x128xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_dq_he(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7680x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_dq: expected logical shape (He, Hcq) = (7168, 1536), got (7680, 1536) [MLA-115]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7680x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_uq_qr_cols(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6000xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_uq_qr: expected logical shape (Hcq, N*(D+Dr)) = (1536, 6144), got (1536, 6000) [MLA-116]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6000xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_uk_hckv(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x256xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_uk: expected shape (N, D, Hckv) = (32, 128, 512), got (32, 128, 256) [MLA-117]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x256xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_dkv_kr_he(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7680x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_dkv_kr: expected logical shape (He, Hckv+Dr) = (7168, 576), got (7680, 576) [MLA-118]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7680x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @gamma_cq_len(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1535xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{rmsnorm_gamma_cq: expected shape (Hcq) = (1536), got (1535) [MLA-119]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1535xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @gamma_ckv_len(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<576xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{rmsnorm_gamma_ckv: expected shape (Hckv) = (512), got (576) [MLA-120]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<576xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @kv_cache_hckv(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x576xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{kv_cache: expected shape (BlockNum, BlockSize, Nkv, Hckv) = (16, 128, 1, 512), got (16, 128, 1, 576) [MLA-121]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x576xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x576xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @kr_cache_blocks(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<15x128x1x64xbf16>) {
  // expected-error @+1 {{kr_cache: expected shape (BlockNum, BlockSize, Nkv, Dr) with kv_cache's BlockNum, BlockSize, Nkv = (16, 128, 1, 64), got (15, 128, 1, 64) [MLA-122]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<15x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<15x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FQ-KVQ
func.func @dequant_scale_x_shape(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x2xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_x: expected shape (B*S, 1) = (8, 1), got (8, 2) [MLA-123]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x2xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
  return
}

// -----

// FQ-KVQ, tokens 8
func.func @dequant_scale_x_merged(%x: tensor<8x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x64xbf16>, %cos: tensor<8x64xbf16>, %idx: tensor<8xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<1x8xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_x: expected shape (T, 1) = (8, 1), got (1, 8) [MLA-123]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<8x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<1x8xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x32x512xi8>, tensor<8x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
  return
}

// -----

// FQ-KVQ
func.func @dequant_scale_w_dq_shape(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1536x1xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_w_dq: expected shape (1, Hcq) = (1, 1536), got (1536, 1) [MLA-124]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1536x1xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
  return
}

// -----

// PQ-KVNQ
func.func @dequant_scale_w_uq_qr_shape(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dswuqqr: tensor<1x6143xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_w_uq_qr: expected shape (1, N*(D+Dr)) = (1, 6144), got (1, 6143) [MLA-125]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x6143xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FQ-KVQ
func.func @dequant_scale_w_dkv_kr_shape(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x512xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_w_dkv_kr: expected shape (1, Hckv+Dr) = (1, 576), got (1, 512) [MLA-126]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x512xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
  return
}

// -----

// PQ-KVQ
func.func @quant_scale_ckv_shape(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xi8>, %dswuqqr: tensor<1x6144xf32>, %qsckv: tensor<1x1xf32>, %qsckr: tensor<1x64xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{quant_scale_ckv: expected shape (1, Hckv) = (1, 512), got (1, 1) [MLA-127]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %qsckv, %qsckr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1x6144xf32>, tensor<1x1xf32>, tensor<1x64xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1xf32>)
  return
}

// -----

// PQ-KVQ
func.func @quant_scale_ckr_shape(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xi8>, %dswuqqr: tensor<1x6144xf32>, %qsckv: tensor<1x512xf32>, %qsckr: tensor<1x32xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{quant_scale_ckr: expected shape (1, Dr) = (1, 64), got (1, 32) [MLA-128]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %qsckv, %qsckr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1x6144xf32>, tensor<1x512xf32>, tensor<1x32xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1xf32>)
  return
}

// -----

// PQ-KVNQ
func.func @smooth_scales_cq_shape(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dswuqqr: tensor<1x6144xf32>, %smooth: tensor<1x1535xf32>) {
  // expected-error @+1 {{smooth_scales_cq: expected shape (1, Hcq) = (1, 1536), got (1, 1535) [MLA-129]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x6144xf32>, tensor<1x1535xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FQ-KVQ
func.func @dequant_scale_q_nope_heads(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_q_nope: expected shape (B*S, N, 1) = (8, 32, 1), got (8, 16, 1) [MLA-130]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x16x1xf32>)
  return
}

// -----

// FQ-KVQ: the not-merged FQ-KVQ scale is (B*S, N, 1), 3-D
func.func @dequant_scale_q_nope_4d(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_q_nope: expected rank 3 (T_eff, N, 1) in FQ-KVQ, got rank 4 [MLA-055]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x1x32x1xf32>)
  return
}

// -----

// NQ
func.func @dequant_scale_q_nope_placeholder(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{dequant_scale_q_nope: expected shape (1) outside FQ-KVQ (scenario NQ), got (2) [MLA-131]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<2xf32>)
  return
}

// -----

// FQ-KVNQ: the (1) placeholder or the (B*S, N, 1) form of full quant
func.func @dequant_scale_q_nope_fq_kvnq_rank2(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_q_nope: expected rank 1 (1) or 3 (T_eff, N, 1) in scenario FQ-KVNQ, got rank 2 [MLA-055]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x32xf32>)
  return
}

// -----

// FQ-KVNQ: the (B*S, N, 1) form has the query's head count
func.func @dequant_scale_q_nope_fq_kvnq_heads(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_q_nope: expected shape (B*S, N, 1) = (8, 32, 1), got (8, 16, 1) [MLA-130]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x16x1xf32>)
  return
}

// -----

// NQ: outside FQ-KVQ the scale is the (1) placeholder
func.func @dequant_scale_q_nope_nq_3d(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{dequant_scale_q_nope: expected rank 1 (1) in scenario NQ, got rank 3 [MLA-055]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
  return
}

// -----

// NQ: the 4-D FRACTAL_NZ storage shape: bf16 fractals are 16 x 16
func.func @weight_dq_storage_bf16(%x: tensor<8x1x7168xbf16>, %wdq: tensor<48x448x16x32xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_dq: expected a FRACTAL_NZ storage shape (columns/16, rows/16, 16, 16) for bf16, got (48, 448, 16, 32) [MLA-140]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<48x448x16x32xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// PQ-KVNQ: int8 fractals are 16 x 32
func.func @weight_uq_qr_storage_i8(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<384x96x16x16xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dswuqqr: tensor<1x6144xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{weight_uq_qr: expected a FRACTAL_NZ storage shape (columns/32, rows/16, 16, 32) for i8, got (384, 96, 16, 16) [MLA-141]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<384x96x16x16xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x6144xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FQ-KVNQ
func.func @weight_dkv_kr_storage_i8(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<18x448x16x16xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{weight_dkv_kr: expected a FRACTAL_NZ storage shape (columns/32, rows/16, 16, 32) for i8, got (18, 448, 16, 16) [MLA-142]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<18x448x16x16xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FQ-KVNQ: a well-formed storage shape of the wrong logical shape
func.func @weight_dkv_kr_storage_rows(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<18x480x16x32xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{weight_dkv_kr: expected logical shape (He, Hckv+Dr) = (7168, 576), i.e. storage (18, 448, 16, 32), got storage (18, 480, 16, 32) = logical (7680, 576) [MLA-118]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<18x480x16x32xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_dq_fractal_cols(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1537xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_dq: expected a whole number of 16x16 bf16 fractals (rows % 16 == 0, columns % 16 == 0), got (7168, 1537) [MLA-143]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1537xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// PQ-KVNQ
func.func @weight_uq_qr_fractal_i8(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6160xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dswuqqr: tensor<1x6144xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{weight_uq_qr: expected a whole number of 16x32 i8 fractals (rows % 16 == 0, columns % 32 == 0), got (1536, 6160) [MLA-143]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6160xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x6144xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FQ-KVQ
func.func @fq_weight_dq_bf16(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{weight_dq: expected the element type of token_x (i8): token_x, weight_dq and weight_dkv_kr are all bf16 or all i8 (full quant), got bf16 [MLA-153]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
  return
}

// -----

// FQ-KVQ
func.func @fq_weight_dkv_kr_bf16(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{weight_dkv_kr: expected the element type of token_x (i8): token_x, weight_dq and weight_dkv_kr are all bf16 or all i8 (full quant), got bf16 [MLA-153]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
  return
}

// -----

// FQ-KVNQ
func.func @fq_weight_uq_qr_bf16(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswdkvkr: tensor<1x576xf32>) {
  // expected-error @+1 {{weight_uq_qr: expected element type i8 since token_x is i8 (full quant), got bf16 [MLA-154]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswdkvkr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x576xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @nq_dequant_scale_w_uq_qr(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dswuqqr: tensor<1x6144xf32>) {
  // expected-error @+1 {{dequant_scale_w_uq_qr: must be absent when weight_uq_qr is bf16 (non-quant: a null pointer), got tensor<1x6144xf32> [MLA-155]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x6144xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @nq_quant_scale_ckv(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %qsckv: tensor<1x512xf32>) {
  // expected-error @+1 {{quant_scale_ckv: must be absent when weight_uq_qr is bf16 (non-quant: a null pointer), got tensor<1x512xf32> [MLA-156]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %qsckv) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x512xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @nq_quant_scale_ckr(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %qsckr: tensor<1x64xf32>) {
  // expected-error @+1 {{quant_scale_ckr: must be absent when weight_uq_qr is bf16 (non-quant: a null pointer), got tensor<1x64xf32> [MLA-157]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %qsckr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x64xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @nq_smooth(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{smooth_scales_cq: must be absent when weight_uq_qr is bf16 (non-quant: a null pointer), got tensor<1x1536xf32> [MLA-158]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @nq_int8_caches(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xi8>) {
  // expected-error @+1 {{kv_cache: expected element type bf16 in the non-quant scenario (weight_uq_qr bf16), got i8 [MLA-159]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @nq_int8_query(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{query: expected element type bf16 in the non-quant scenario (weight_uq_qr bf16), got i8 [MLA-159]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// PQ-KVNQ
func.func @pq_dequant_scale_x(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswuqqr: tensor<1x6144xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_x: must be absent in scenario PQ-KVNQ (token_x bf16: no dequantization), got tensor<8x1xf32> [MLA-160]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswuqqr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x6144xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// PQ-KVQ
func.func @pq_dequant_scale_w_dkv_kr(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xi8>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %qsckr: tensor<1x64xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_w_dkv_kr: must be absent in scenario PQ-KVQ (token_x bf16: no dequantization), got tensor<1x576xf32> [MLA-160]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %dswdkvkr, %qsckv, %qsckr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x64xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1xf32>)
  return
}

// -----

// PQ-KVNQ
func.func @pq_no_dequant_scale_w_uq_qr(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_w_uq_qr: is required when weight_uq_qr is i8, got none [MLA-161]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// PQ-KVNQ
func.func @pq_int8_query(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dswuqqr: tensor<1x6144xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{query: expected element type bf16 in scenario PQ-KVNQ, got i8 [MLA-162]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x6144xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// PQ-KVQ
func.func @pq_mixed_caches(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dswuqqr: tensor<1x6144xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{kr_cache: expected the element type of kv_cache (i8) in partial quant: both caches bf16 or both i8, got bf16 [MLA-163]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 0, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<1x6144xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// PQ-KVQ
func.func @pq_kvq_no_quant_scale_ckr(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xi8>, %dswuqqr: tensor<1x6144xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{quant_scale_ckr: is required in scenario PQ-KVQ (quantized kr cache), got none [MLA-164]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 0, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1x6144xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1xf32>)
  return
}

// -----

// PQ-KVNQ
func.func @pq_kvnq_quant_scale_ckv(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dswuqqr: tensor<1x6144xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{quant_scale_ckv: must be absent in scenario PQ-KVNQ, got tensor<1x512xf32> [MLA-165]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 0, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x6144xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FQ-KVQ
func.func @fq_no_dequant_scale_x(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_x: is required in scenario FQ-KVQ (full quant), got none [MLA-166]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
  return
}

// -----

// FQ-KVQ
func.func @fq_int8_kr_cache(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xi8>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{kr_cache: expected element type bf16 in full quant (the kr cache is never quantized there), got i8 [MLA-167]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<8x32x1xf32>)
  return
}

// -----

// FQ-KVNQ
func.func @fq_kvnq_int8_query(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{query: expected element type bf16 in scenario FQ-KVNQ, got i8 [MLA-168]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FQ-KVQ
func.func @fq_kvq_bf16_query(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{query: expected element type i8 in scenario FQ-KVQ (dynamic per-token-head quant), got bf16 [MLA-169]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
  return
}

// -----

// FQ-KVNQ
func.func @fq_kvnq_quant_scale_ckv(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{quant_scale_ckv: must be absent in scenario FQ-KVNQ, got tensor<1x512xf32> [MLA-170]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FQ-KVQ
func.func @fq_kvq_no_quant_scale_ckv(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{quant_scale_ckv: is required in scenario FQ-KVQ (per-tensor kv cache quant), got none [MLA-171]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
  return
}

// -----

// FQ-KVQ: the V2 example passes nullptr: the table wins over 'quantized output requires quantScaleCkr'
func.func @fq_kvq_quant_scale_ckr(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %qsckr: tensor<1x64xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{quant_scale_ckr: must be absent in scenario FQ-KVQ, got tensor<1x64xf32> [MLA-172]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %qsckr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x64xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
  return
}

// -----

// NQ
func.func @bf16_kv_int8_kr(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xi8>) {
  // expected-error @+1 {{kr_cache: expected element type bf16 since kv_cache is bf16 (no scenario quantizes only kr), got i8 [MLA-175]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xi8>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xi8>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @weight_uk_empty(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<0x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_uk: must not be empty, got shape (0, 128, 512) [MLA-180]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<0x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// PQ-KVNQ
func.func @scale_empty(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dswuqqr: tensor<1x0xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_w_uq_qr: must not be empty, got shape (1, 0) [MLA-181]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x0xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ: Nkv is tied to the hyper-parameter N: never 0
func.func @kv_cache_nkv_0(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x0x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{kv_cache: only BlockNum may be 0, got shape (16, 128, 0, 512) [MLA-182]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x0x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x0x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @token_x_he_0(%x: tensor<8x1x0xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{token_x: only B, S or T may be 0, got shape (8, 1, 0) [MLA-182]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x0xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @query_empty(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{query: must not be empty unless T_eff = 0, got (8, 1, 0, 512) with T_eff = 8 [MLA-183]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x0x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FQ-KVQ
func.func @dequant_scale_q_nope_empty(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_q_nope: must not be empty unless T_eff = 0 in its (T_eff, N, 1) form, got (0, 32, 1) [MLA-184]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<0x32x1xf32>)
  return
}

// -----

// NQ
func.func @kv_cache_out_type(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{kv_cache_out: expected the type of kv_cache (tensor<16x128x1x512xbf16>): the cache is updated in place, got tensor<16x128x1x512xi8> [MLA-195]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// NQ
func.func @kr_cache_out_type(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{kr_cache_out: expected the type of kr_cache (tensor<16x128x1x64xbf16>): the cache is updated in place, got tensor<16x128x1x32xbf16> [MLA-195]}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x32xbf16>, tensor<1xf32>)
  return
}


// -----

// MLA-021, MLA-173 (waived: structural): mla.prolog_v2 always has its five results, so
// dequant_scale_q_nope exists in every scenario.
func.func @v2_four_results(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{expects exactly 5 results, but got 4}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return
}

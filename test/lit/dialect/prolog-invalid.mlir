// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.prolog (aclnnMlaProlog): the rules only V1 has (no full quant, no dequant_scale_q_nope) and a
// sample of the shared rules on the four-result op. The shared rules are all exercised on
// mla.prolog_v2 in prolog_v2-invalid.mlir. Baseline: C1 (B=8, S=1, He=7168, N=32, 16 x 128 blocks).

// NQ
func.func @v1_dequant_scale_x(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>) {
  // expected-error @+1 {{dequant_scale_x: must be absent: aclnnMlaProlog requires a null pointer, got tensor<8x1xf32> [MLA-017]}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return
}

// -----

// NQ
func.func @v1_dequant_scale_w_dq(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dswdq: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_w_dq: must be absent: aclnnMlaProlog requires a null pointer, got tensor<1x1536xf32> [MLA-018]}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswdq) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return
}

// -----

// NQ
func.func @v1_dequant_scale_w_dkv_kr(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dswdkvkr: tensor<1x576xf32>) {
  // expected-error @+1 {{dequant_scale_w_dkv_kr: must be absent: aclnnMlaProlog requires a null pointer, got tensor<1x576xf32> [MLA-019]}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswdkvkr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x576xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return
}

// -----

// FQ-KVNQ: full quant needs dequant_scale_x, which V1 forbids; without the scales:
func.func @v1_int8_token_x(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{dequant_scale_x: must be absent: aclnnMlaProlog requires a null pointer, got tensor<8x1xf32> [MLA-017]}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return
}

// -----

// FQ-KVNQ
func.func @v1_int8_token_x_no_scales(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dswuqqr: tensor<1x6144xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{token_x: expected element type bf16 (mla.prolog has no full-quant scenario), got i8 [MLA-150]}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x6144xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return
}

// -----

// NQ
func.func @v1_int8_weight_dq(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_dq: expected element type bf16 (mla.prolog has no full-quant scenario), got i8 [MLA-151]}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return
}

// -----

// NQ
func.func @v1_int8_weight_dkv_kr(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_dkv_kr: expected element type bf16 (mla.prolog has no full-quant scenario), got i8 [MLA-151]}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return
}

// -----

// PQ-KVNQ
func.func @v1_int8_query(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dswuqqr: tensor<1x6144xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{query: expected element type bf16 (mla.prolog never quantizes the query), got i8 [MLA-152]}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x6144xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return
}

// -----

// NQ, N 3
func.func @v1_n_3(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x576xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<3x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_uk: expected N (dimension 0) in {1, 2, 4, 8, 16, 32, 64, 128}, got 3 [MLA-093]}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<3x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x3x512xbf16>, tensor<8x1x3x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return
}

// -----

// NQ
func.func @v1_he_7168_storage_wrong(%x: tensor<8x1x7168xbf16>, %wdq: tensor<96x480x16x16xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{weight_dq: expected logical shape (He, Hcq) = (7168, 1536), i.e. storage (96, 448, 16, 16), got storage (96, 480, 16, 16) = logical (7680, 1536) [MLA-115]}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<96x480x16x16xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return
}

// -----

// NQ, tokens 8
func.func @v1_query_merged_rank(%x: tensor<8x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x64xbf16>, %cos: tensor<8x64xbf16>, %idx: tensor<8xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{query: expected rank 3 (T, N, Hckv) since token_x has rank 2, got rank 4 [MLA-044]}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return
}

// -----

// NQ, tokens 65537x1
func.func @v1_b_65537(%x: tensor<65537x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<65537x1x64xbf16>, %cos: tensor<65537x1x64xbf16>, %idx: tensor<65537x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{token_x: expected B (dimension 0) in [0, 65536], got 65537 [MLA-100]}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<65537x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<65537x1x64xbf16>, tensor<65537x1x64xbf16>, tensor<65537x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<65537x1x32x512xbf16>, tensor<65537x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return
}

// -----

// PQ-KVQ
func.func @v1_kv_cache_out(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xi8>, %dswuqqr: tensor<1x6144xf32>, %qsckv: tensor<1x512xf32>, %qsckr: tensor<1x64xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{kv_cache_out: expected the type of kv_cache (tensor<16x128x1x512xi8>): the cache is updated in place, got tensor<16x128x1x512xbf16> [MLA-195]}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %qsckv, %qsckr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1x6144xf32>, tensor<1x512xf32>, tensor<1x64xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xi8>)
  return
}

// -----

// PQ-KVQ
func.func @v1_pq_no_scale(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xi8>, %dswuqqr: tensor<1x6144xf32>, %qsckr: tensor<1x64xf32>, %smooth: tensor<1x1536xf32>) {
  // expected-error @+1 {{quant_scale_ckv: is required in scenario PQ-KVQ (quantized kv cache), got none [MLA-164]}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %qsckr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 1, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1x6144xf32>, tensor<1x64xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>)
  return
}

// -----

// NQ, tokens 8
func.func @v1_query_empty(%x: tensor<8x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x64xbf16>, %cos: tensor<8x64xbf16>, %idx: tensor<8xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{query_rope: must not be empty unless T_eff = 0, got (8, 32, 0) with T_eff = 8 [MLA-183]}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x32x512xbf16>, tensor<8x32x0xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return
}


// -----

// MLA-020 (waived: structural): mla.prolog has four results, no dequant_scale_q_nope.
func.func @v1_five_results(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) {
  // expected-error @+1 {{expects exactly 4 results, but got 5}}
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// MLA-001 ... MLA-012 in IR: a required operand cannot be left out (IRDL); the rules themselves
// speak for eager calls given None (test_prolog_eager.py).
func.func @v1_no_kr_cache(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>) {
  // expected-error @+1 {{element 11 in 'operandSegmentSizes' attribute must be equal to 1}}
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return
}

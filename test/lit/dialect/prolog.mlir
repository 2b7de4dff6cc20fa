// RUN: mla-opt %s --split-input-file | FileCheck %s
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// mla.prolog (aclnnMlaProlog): one valid configuration per split, each scenario (NQ, PQ-KVNQ,
// PQ-KVQ), both token layouts, both cache modes, both NZ weight forms, the empty cases.

// NQ, the aclnnMlaProlog example (C1): the weights as the 4-D FRACTAL_NZ storage shapes it passes
// CHECK-LABEL: func.func @nq_c1(
// CHECK: %{{.*}}:4 = "mla.prolog"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11)
// CHECK-SAME: cache_mode = "PA_BSND"
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>
// CHECK-SAME: rmsnorm_epsilon_ckv = 1.000000e-05 : f64
// CHECK-SAME: rmsnorm_epsilon_cq = 1.000000e-05 : f64
// CHECK-SAME: -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
func.func @nq_c1(%x: tensor<8x1x7168xbf16>, %wdq: tensor<96x448x16x16xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<384x96x16x16xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<36x448x16x16xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) {
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>, rmsnorm_epsilon_cq = 1.000000e-05 : f64, rmsnorm_epsilon_ckv = 1.000000e-05 : f64, cache_mode = "PA_BSND"} : (tensor<8x1x7168xbf16>, tensor<96x448x16x16xbf16, #mla.format<"FRACTAL_NZ">>, tensor<384x96x16x16xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<36x448x16x16xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return %q, %qr, %kv_out, %kr_out : tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>
}

// -----

// NQ, BS-merged (T = 8), He = 7680, N = 1: logical 2-D NZ weights
// CHECK-LABEL: func.func @nq_merged_he7680_n1(
// CHECK: %{{.*}}:4 = "mla.prolog"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>
// CHECK-SAME: -> (tensor<8x1x512xbf16>, tensor<8x1x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
func.func @nq_merged_he7680_n1(%x: tensor<8x7680xbf16>, %wdq: tensor<7680x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<1x128x512xbf16>, %wdkvkr: tensor<7680x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x64xbf16>, %cos: tensor<8x64xbf16>, %idx: tensor<8xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) -> (tensor<8x1x512xbf16>, tensor<8x1x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) {
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x7680xbf16>, tensor<7680x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<7680x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x64xbf16>, tensor<8x64xbf16>, tensor<8xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<8x1x512xbf16>, tensor<8x1x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return %q, %qr, %kv_out, %kr_out : tensor<8x1x512xbf16>, tensor<8x1x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>
}

// -----

// NQ, N = 128, BlockSize = 16, epsilon 1e-6
// CHECK-LABEL: func.func @nq_n128_block16(
// CHECK: %{{.*}}:4 = "mla.prolog"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>
// CHECK-SAME: rmsnorm_epsilon_cq = 9.9999999999999995E-7 : f64
// CHECK-SAME: -> (tensor<8x1x128x512xbf16>, tensor<8x1x128x64xbf16>, tensor<64x16x1x512xbf16>, tensor<64x16x1x64xbf16>)
func.func @nq_n128_block16(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x24576xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<128x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<64x16x1x512xbf16>, %kr: tensor<64x16x1x64xbf16>) -> (tensor<8x1x128x512xbf16>, tensor<8x1x128x64xbf16>, tensor<64x16x1x512xbf16>, tensor<64x16x1x64xbf16>) {
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>, rmsnorm_epsilon_cq = 9.9999999999999995E-7 : f64} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x24576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<128x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<64x16x1x512xbf16>, tensor<64x16x1x64xbf16>) -> (tensor<8x1x128x512xbf16>, tensor<8x1x128x64xbf16>, tensor<64x16x1x512xbf16>, tensor<64x16x1x64xbf16>)
  return %q, %qr, %kv_out, %kr_out : tensor<8x1x128x512xbf16>, tensor<8x1x128x64xbf16>, tensor<64x16x1x512xbf16>, tensor<64x16x1x64xbf16>
}

// -----

// PQ-KVNQ (weight_uq_qr i8) with smooth_scales_cq
// CHECK-LABEL: func.func @pq_kvnq(
// CHECK: %{{.*}}:4 = "mla.prolog"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg13)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1>
// CHECK-SAME: -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
func.func @pq_kvnq(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dswuqqr: tensor<1x6144xf32>, %smooth: tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) {
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x6144xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return %q, %qr, %kv_out, %kr_out : tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>
}

// -----

// PQ-KVNQ without smooth_scales_cq (optional), weight_uq_qr as int8 storage
// CHECK-LABEL: func.func @pq_kvnq_no_smooth(
// CHECK: %{{.*}}:4 = "mla.prolog"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0>
// CHECK-SAME: -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
func.func @pq_kvnq_no_smooth(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<192x96x16x32xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dswuqqr: tensor<1x6144xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) {
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<192x96x16x32xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x6144xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return %q, %qr, %kv_out, %kr_out : tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>
}

// -----

// PQ-KVQ (int8 caches, per-channel scales), cache_mode PA_NZ
// CHECK-LABEL: func.func @pq_kvq_pa_nz(
// CHECK: %{{.*}}:4 = "mla.prolog"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg13, %arg14, %arg15)
// CHECK-SAME: cache_mode = "PA_NZ"
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1>
// CHECK-SAME: -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>)
func.func @pq_kvq_pa_nz(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xi8>, %dswuqqr: tensor<1x6144xf32>, %qsckv: tensor<1x512xf32>, %qsckr: tensor<1x64xf32>, %smooth: tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>) {
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %qsckv, %qsckr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1>, cache_mode = "PA_NZ"} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1x6144xf32>, tensor<1x512xf32>, tensor<1x64xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>)
  return %q, %qr, %kv_out, %kr_out : tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>
}

// -----

// B = 0 (empty token tensors and outputs) and BlockNum = 0 (Skv = 0)
// CHECK-LABEL: func.func @empty_batch(
// CHECK: %{{.*}}:4 = "mla.prolog"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>
// CHECK-SAME: -> (tensor<0x1x32x512xbf16>, tensor<0x1x32x64xbf16>, tensor<0x128x1x512xbf16>, tensor<0x128x1x64xbf16>)
func.func @empty_batch(%x: tensor<0x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<0x1x64xbf16>, %cos: tensor<0x1x64xbf16>, %idx: tensor<0x1xi64>, %kv: tensor<0x128x1x512xbf16>, %kr: tensor<0x128x1x64xbf16>) -> (tensor<0x1x32x512xbf16>, tensor<0x1x32x64xbf16>, tensor<0x128x1x512xbf16>, tensor<0x128x1x64xbf16>) {
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<0x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<0x1x64xbf16>, tensor<0x1x64xbf16>, tensor<0x1xi64>, tensor<0x128x1x512xbf16>, tensor<0x128x1x64xbf16>) -> (tensor<0x1x32x512xbf16>, tensor<0x1x32x64xbf16>, tensor<0x128x1x512xbf16>, tensor<0x128x1x64xbf16>)
  return %q, %qr, %kv_out, %kr_out : tensor<0x1x32x512xbf16>, tensor<0x1x32x64xbf16>, tensor<0x128x1x512xbf16>, tensor<0x128x1x64xbf16>
}

// -----

// T = 0 with a non-empty cache (not updated)
// CHECK-LABEL: func.func @empty_merged(
// CHECK: %{{.*}}:4 = "mla.prolog"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>
// CHECK-SAME: -> (tensor<0x32x512xbf16>, tensor<0x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
func.func @empty_merged(%x: tensor<0x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<0x64xbf16>, %cos: tensor<0x64xbf16>, %idx: tensor<0xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) -> (tensor<0x32x512xbf16>, tensor<0x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) {
  %q, %qr, %kv_out, %kr_out = "mla.prolog"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<0x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<0x64xbf16>, tensor<0x64xbf16>, tensor<0xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<0x32x512xbf16>, tensor<0x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>)
  return %q, %qr, %kv_out, %kr_out : tensor<0x32x512xbf16>, tensor<0x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>
}

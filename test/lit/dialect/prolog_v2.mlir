// RUN: mla-opt %s --split-input-file | FileCheck %s
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// mla.prolog_v2 (aclnnMlaPrologV2WeightNz): one valid configuration per split, each of the five
// scenarios, both token layouts, both cache modes, both NZ weight forms, the empty cases.

// NQ, the torch_npu example (C3): B = 8, S = 2, 64 blocks of 128
// CHECK-LABEL: func.func @nq_c3(
// CHECK: %{{.*}}:5 = "mla.prolog_v2"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>
// CHECK-SAME: -> (tensor<8x2x32x512xbf16>, tensor<8x2x32x64xbf16>, tensor<64x128x1x512xbf16>, tensor<64x128x1x64xbf16>, tensor<1xf32>)
func.func @nq_c3(%x: tensor<8x2x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x2x64xbf16>, %cos: tensor<8x2x64xbf16>, %idx: tensor<8x2xi64>, %kv: tensor<64x128x1x512xbf16>, %kr: tensor<64x128x1x64xbf16>) -> (tensor<8x2x32x512xbf16>, tensor<8x2x32x64xbf16>, tensor<64x128x1x512xbf16>, tensor<64x128x1x64xbf16>, tensor<1xf32>) {
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x2x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x2x64xbf16>, tensor<8x2x64xbf16>, tensor<8x2xi64>, tensor<64x128x1x512xbf16>, tensor<64x128x1x64xbf16>) -> (tensor<8x2x32x512xbf16>, tensor<8x2x32x64xbf16>, tensor<64x128x1x512xbf16>, tensor<64x128x1x64xbf16>, tensor<1xf32>)
  return %q, %qr, %kv_out, %kr_out, %dsq : tensor<8x2x32x512xbf16>, tensor<8x2x32x64xbf16>, tensor<64x128x1x512xbf16>, tensor<64x128x1x64xbf16>, tensor<1xf32>
}

// -----

// PQ-KVNQ, BS-merged (T = 5)
// CHECK-LABEL: func.func @pq_kvnq_merged(
// CHECK: %{{.*}}:5 = "mla.prolog_v2"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg13)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1>
// CHECK-SAME: -> (tensor<5x32x512xbf16>, tensor<5x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
func.func @pq_kvnq_merged(%x: tensor<5x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<5x64xbf16>, %cos: tensor<5x64xbf16>, %idx: tensor<5xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dswuqqr: tensor<1x6144xf32>, %smooth: tensor<1x1536xf32>) -> (tensor<5x32x512xbf16>, tensor<5x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>) {
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1>} : (tensor<5x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<5x64xbf16>, tensor<5x64xbf16>, tensor<5xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1x6144xf32>, tensor<1x1536xf32>) -> (tensor<5x32x512xbf16>, tensor<5x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return %q, %qr, %kv_out, %kr_out, %dsq : tensor<5x32x512xbf16>, tensor<5x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>
}

// -----

// PQ-KVQ, cache_mode PA_NZ
// CHECK-LABEL: func.func @pq_kvq_pa_nz(
// CHECK: %{{.*}}:5 = "mla.prolog_v2"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg13, %arg14, %arg15)
// CHECK-SAME: cache_mode = "PA_NZ"
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1>
// CHECK-SAME: -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1xf32>)
func.func @pq_kvq_pa_nz(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xi8>, %dswuqqr: tensor<1x6144xf32>, %qsckv: tensor<1x512xf32>, %qsckr: tensor<1x64xf32>, %smooth: tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1xf32>) {
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dswuqqr, %qsckv, %qsckr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1>, cache_mode = "PA_NZ"} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1x6144xf32>, tensor<1x512xf32>, tensor<1x64xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1xf32>)
  return %q, %qr, %kv_out, %kr_out, %dsq : tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xi8>, tensor<1xf32>
}

// -----

// FQ-KVNQ: int8 token_x and weights; query bf16, dequant_scale_q_nope the (1) placeholder
// CHECK-LABEL: func.func @fq_kvnq(
// CHECK: %{{.*}}:5 = "mla.prolog_v2"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg13, %arg14, %arg15, %arg16)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1>
// CHECK-SAME: -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
func.func @fq_kvnq(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %smooth: tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>) {
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return %q, %qr, %kv_out, %kr_out, %dsq : tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>
}

// -----

// FQ-KVNQ with dequant_scale_q_nope (B*S, N, 1): the V2 text gives that shape in full quant
// ("全量化场景下"), the table only "need not be assigned"
// CHECK-LABEL: func.func @fq_kvnq_per_token_head_scale(
// CHECK: %{{.*}}:5 = "mla.prolog_v2"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg13, %arg14, %arg15, %arg16)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1>
// CHECK-SAME: -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
func.func @fq_kvnq_per_token_head_scale(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %smooth: tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>) {
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
  return %q, %qr, %kv_out, %kr_out, %dsq : tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>
}

// -----

// FQ-KVQ, the aclnnMlaPrologV2WeightNz example (C2): int8 NZ storage shapes, no quant_scale_ckr
// CHECK-LABEL: func.func @fq_kvq_c2(
// CHECK: %{{.*}}:5 = "mla.prolog_v2"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg13, %arg14, %arg15, %arg16, %arg17)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>
// CHECK-SAME: -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
func.func @fq_kvq_c2(%x: tensor<8x1x7168xi8>, %wdq: tensor<48x448x16x32xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<192x96x16x32xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<18x448x16x32xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>) {
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<8x1x7168xi8>, tensor<48x448x16x32xi8, #mla.format<"FRACTAL_NZ">>, tensor<192x96x16x32xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<18x448x16x32xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
  return %q, %qr, %kv_out, %kr_out, %dsq : tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>
}

// -----

// FQ-KVQ, BS-merged: dequant_scale_q_nope (T, N, 1), dequant_scale_x (T, 1)
// CHECK-LABEL: func.func @fq_kvq_merged(
// CHECK: %{{.*}}:5 = "mla.prolog_v2"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg13, %arg14, %arg15, %arg16, %arg17)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>
// CHECK-SAME: -> (tensor<3x128x512xi8>, tensor<3x128x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<3x128x1xf32>)
func.func @fq_kvq_merged(%x: tensor<3x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x24576xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<128x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<3x64xbf16>, %cos: tensor<3x64xbf16>, %idx: tensor<3xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<3x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x24576xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) -> (tensor<3x128x512xi8>, tensor<3x128x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<3x128x1xf32>) {
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<3x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x24576xi8, #mla.format<"FRACTAL_NZ">>, tensor<128x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<3x64xbf16>, tensor<3x64xbf16>, tensor<3xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<3x1xf32>, tensor<1x1536xf32>, tensor<1x24576xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<3x128x512xi8>, tensor<3x128x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<3x128x1xf32>)
  return %q, %qr, %kv_out, %kr_out, %dsq : tensor<3x128x512xi8>, tensor<3x128x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<3x128x1xf32>
}

// -----

// FQ-KVQ without the optional smooth_scales_cq
// CHECK-LABEL: func.func @fq_kvq_no_smooth(
// CHECK: %{{.*}}:5 = "mla.prolog_v2"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg13, %arg14, %arg15, %arg16)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0>
// CHECK-SAME: -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
func.func @fq_kvq_no_smooth(%x: tensor<8x1x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<8x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>) {
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<8x1x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>) -> (tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>)
  return %q, %qr, %kv_out, %kr_out, %dsq : tensor<8x1x32x512xi8>, tensor<8x1x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<8x32x1xf32>
}

// -----

// FQ-KVQ with T = 0: every token-shaped tensor is empty, dequant_scale_q_nope (0, N, 1)
// CHECK-LABEL: func.func @fq_kvq_empty(
// CHECK: %{{.*}}:5 = "mla.prolog_v2"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg13, %arg14, %arg15, %arg16, %arg17)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>
// CHECK-SAME: -> (tensor<0x32x512xi8>, tensor<0x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<0x32x1xf32>)
func.func @fq_kvq_empty(%x: tensor<0x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<0x64xbf16>, %cos: tensor<0x64xbf16>, %idx: tensor<0xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<0x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) -> (tensor<0x32x512xi8>, tensor<0x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<0x32x1xf32>) {
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<0x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<0x64xbf16>, tensor<0x64xbf16>, tensor<0xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<0x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<0x32x512xi8>, tensor<0x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<0x32x1xf32>)
  return %q, %qr, %kv_out, %kr_out, %dsq : tensor<0x32x512xi8>, tensor<0x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<0x32x1xf32>
}

// -----

// NQ with BlockNum = 0 (Skv = 0): queries computed, caches empty
// CHECK-LABEL: func.func @nq_no_cache(
// CHECK: %{{.*}}:5 = "mla.prolog_v2"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>
// CHECK-SAME: -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<0x16x1x512xbf16>, tensor<0x16x1x64xbf16>, tensor<1xf32>)
func.func @nq_no_cache(%x: tensor<8x1x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<8x1x64xbf16>, %cos: tensor<8x1x64xbf16>, %idx: tensor<8x1xi64>, %kv: tensor<0x16x1x512xbf16>, %kr: tensor<0x16x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<0x16x1x512xbf16>, tensor<0x16x1x64xbf16>, tensor<1xf32>) {
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<8x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xbf16, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<8x1x64xbf16>, tensor<8x1x64xbf16>, tensor<8x1xi64>, tensor<0x16x1x512xbf16>, tensor<0x16x1x64xbf16>) -> (tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<0x16x1x512xbf16>, tensor<0x16x1x64xbf16>, tensor<1xf32>)
  return %q, %qr, %kv_out, %kr_out, %dsq : tensor<8x1x32x512xbf16>, tensor<8x1x32x64xbf16>, tensor<0x16x1x512xbf16>, tensor<0x16x1x64xbf16>, tensor<1xf32>
}

// -----

// FQ-KVQ with a dynamic token count: rules that need T hold until it is known
// CHECK-LABEL: func.func @fq_kvq_dynamic_tokens(
// CHECK: %{{.*}}:5 = "mla.prolog_v2"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg13, %arg14, %arg15, %arg16, %arg17)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>
// CHECK-SAME: -> (tensor<?x32x512xi8>, tensor<?x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<?x32x1xf32>)
func.func @fq_kvq_dynamic_tokens(%x: tensor<?x7168xi8>, %wdq: tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<32x128x512xbf16>, %wdkvkr: tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<?x64xbf16>, %cos: tensor<?x64xbf16>, %idx: tensor<?xi64>, %kv: tensor<16x128x1x512xi8>, %kr: tensor<16x128x1x64xbf16>, %dsx: tensor<?x1xf32>, %dswdq: tensor<1x1536xf32>, %dswuqqr: tensor<1x6144xf32>, %dswdkvkr: tensor<1x576xf32>, %qsckv: tensor<1x512xf32>, %smooth: tensor<1x1536xf32>) -> (tensor<?x32x512xi8>, tensor<?x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<?x32x1xf32>) {
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr, %dsx, %dswdq, %dswuqqr, %dswdkvkr, %qsckv, %smooth) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1>} : (tensor<?x7168xi8>, tensor<7168x1536xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536x6144xi8, #mla.format<"FRACTAL_NZ">>, tensor<32x128x512xbf16>, tensor<7168x576xi8, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<?xi64>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<?x1xf32>, tensor<1x1536xf32>, tensor<1x6144xf32>, tensor<1x576xf32>, tensor<1x512xf32>, tensor<1x1536xf32>) -> (tensor<?x32x512xi8>, tensor<?x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<?x32x1xf32>)
  return %q, %qr, %kv_out, %kr_out, %dsq : tensor<?x32x512xi8>, tensor<?x32x64xbf16>, tensor<16x128x1x512xi8>, tensor<16x128x1x64xbf16>, tensor<?x32x1xf32>
}

// -----

// NQ, He = 7680, N = 1, S = 16 (the aclnn ranges)
// CHECK-LABEL: func.func @nq_he7680_n1(
// CHECK: %{{.*}}:5 = "mla.prolog_v2"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11)
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>
// CHECK-SAME: -> (tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
func.func @nq_he7680_n1(%x: tensor<2x16x7680xbf16>, %wdq: tensor<7680x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuqqr: tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<1x128x512xbf16>, %wdkvkr: tensor<7680x576xbf16, #mla.format<"FRACTAL_NZ">>, %gcq: tensor<1536xbf16>, %gckv: tensor<512xbf16>, %sin: tensor<2x16x64xbf16>, %cos: tensor<2x16x64xbf16>, %idx: tensor<2x16xi64>, %kv: tensor<16x128x1x512xbf16>, %kr: tensor<16x128x1x64xbf16>) -> (tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>) {
  %q, %qr, %kv_out, %kr_out, %dsq = "mla.prolog_v2"(%x, %wdq, %wuqqr, %wuk, %wdkvkr, %gcq, %gckv, %sin, %cos, %idx, %kv, %kr) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x16x7680xbf16>, tensor<7680x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x192xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1x128x512xbf16>, tensor<7680x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<2x16x64xbf16>, tensor<2x16x64xbf16>, tensor<2x16xi64>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>) -> (tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>)
  return %q, %qr, %kv_out, %kr_out, %dsq : tensor<2x16x1x512xbf16>, tensor<2x16x1x64xbf16>, tensor<16x128x1x512xbf16>, tensor<16x128x1x64xbf16>, tensor<1xf32>
}

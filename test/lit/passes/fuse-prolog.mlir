// RUN: mla-opt %s --split-input-file --fuse-prolog --cleanup | FileCheck %s
// RUN: mla-opt %s --split-input-file --pass-pipeline='builtin.module(fuse-prolog{v1=true},cleanup)' | FileCheck %s --check-prefix=V1

// fuse-prolog turns the MLA pre-processing graph of primitive ops into one mla.prolog_v2, its
// weights read as FRACTAL_NZ through mla.format_cast. The match is structural: any value names,
// any op order (here the key path comes first), the token layout (T,) or (B, S), and the
// scenario from the dtypes.


// CHECK-LABEL: func.func @prolog_nq_any_order
// CHECK-COUNT-3: "mla.format_cast"
// CHECK:         %[[P:.*]]:5 = "mla.prolog_v2"(%arg0, %{{.*}}, %{{.*}}, %w_uk, %{{.*}}, %gamma_cq, %gamma_ckv, %arg2, %arg1, %arg3, %arg4, %arg5)
// CHECK-NOT:     "mla.{{matmul|head_matmul|rope|rms_norm|scatter_cache}}"
// CHECK:         return %[[P]]#0, %[[P]]#1, %[[P]]#2, %[[P]]#3
// V1-LABEL: func.func @prolog_nq_any_order
// V1:         "mla.prolog"(
// V1-NOT:     "mla.prolog_v2"
ml_program.global private @"w_dq"(#ml_program.extern : tensor<7168x1536xbf16>) : tensor<7168x1536xbf16>
ml_program.global private @"gamma_cq"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"w_uq_qr"(#ml_program.extern : tensor<1536x384xbf16>) : tensor<1536x384xbf16>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<2x128x512xbf16>) : tensor<2x128x512xbf16>
ml_program.global private @"w_dkv_kr"(#ml_program.extern : tensor<7168x576xbf16>) : tensor<7168x576xbf16>
ml_program.global private @"gamma_ckv"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
func.func @prolog_nq_any_order(
    %x: tensor<2x7168xbf16> {mla.name = "x"},
    %cos: tensor<2x64xbf16> {mla.name = "cos"},
    %sin: tensor<2x64xbf16> {mla.name = "sin"},
    %slots: tensor<2xi64> {mla.name = "slots"},
    %kv_cache: tensor<4x16x1x512xbf16> {mla.name = "kv_cache"},
    %kr_cache: tensor<4x16x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>) {
  %w_dkv_kr = ml_program.global_load_const @"w_dkv_kr" : tensor<7168x576xbf16>
  %kv_down = "mla.matmul"(%x, %w_dkv_kr) : (tensor<2x7168xbf16>, tensor<7168x576xbf16>) -> (tensor<2x576xbf16>)
  %slice_2 = tensor.extract_slice %kv_down[0, 0] [2, 512] [1, 1] : tensor<2x576xbf16> to tensor<2x512xbf16>
  %slice_3 = tensor.extract_slice %kv_down[0, 512] [2, 64] [1, 1] : tensor<2x576xbf16> to tensor<2x64xbf16>
  %gamma_ckv = ml_program.global_load_const @"gamma_ckv" : tensor<512xbf16>
  %kv_normed = "mla.rms_norm"(%slice_2, %gamma_ckv) : (tensor<2x512xbf16>, tensor<512xbf16>) -> (tensor<2x512xbf16>)
  %k_rot = "mla.rope"(%slice_3, %cos, %sin) : (tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>) -> (tensor<2x64xbf16>)
  %view_3 = tensor.expand_shape %kv_normed [[0], [1, 2]] output_shape [2, 1, 512] : tensor<2x512xbf16> into tensor<2x1x512xbf16>
  %kv_new = "mla.scatter_cache"(%kv_cache, %slots, %view_3) {cache_mode = "PA_BSND"} : (tensor<4x16x1x512xbf16>, tensor<2xi64>, tensor<2x1x512xbf16>) -> (tensor<4x16x1x512xbf16>)
  %view_4 = tensor.expand_shape %k_rot [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %kr_new = "mla.scatter_cache"(%kr_cache, %slots, %view_4) {cache_mode = "PA_BSND"} : (tensor<4x16x1x64xbf16>, tensor<2xi64>, tensor<2x1x64xbf16>) -> (tensor<4x16x1x64xbf16>)
  %w_dq = ml_program.global_load_const @"w_dq" : tensor<7168x1536xbf16>
  %q_down = "mla.matmul"(%x, %w_dq) : (tensor<2x7168xbf16>, tensor<7168x1536xbf16>) -> (tensor<2x1536xbf16>)
  %gamma_cq = ml_program.global_load_const @"gamma_cq" : tensor<1536xbf16>
  %cq = "mla.rms_norm"(%q_down, %gamma_cq) : (tensor<2x1536xbf16>, tensor<1536xbf16>) -> (tensor<2x1536xbf16>)
  %w_uq_qr = ml_program.global_load_const @"w_uq_qr" : tensor<1536x384xbf16>
  %q_up = "mla.matmul"(%cq, %w_uq_qr) : (tensor<2x1536xbf16>, tensor<1536x384xbf16>) -> (tensor<2x384xbf16>)
  %view = tensor.expand_shape %q_up [[0], [1, 2]] output_shape [2, 2, 192] : tensor<2x384xbf16> into tensor<2x2x192xbf16>
  %slice = tensor.extract_slice %view[0, 0, 0] [2, 2, 128] [1, 1, 1] : tensor<2x2x192xbf16> to tensor<2x2x128xbf16>
  %w_uk = ml_program.global_load_const @"w_uk" : tensor<2x128x512xbf16>
  %absorbed = "mla.head_matmul"(%slice, %w_uk) : (tensor<2x2x128xbf16>, tensor<2x128x512xbf16>) -> (tensor<2x2x512xbf16>)
  %slice_1 = tensor.extract_slice %view[0, 0, 128] [2, 2, 64] [1, 1, 1] : tensor<2x2x192xbf16> to tensor<2x2x64xbf16>
  %view_1 = tensor.expand_shape %cos [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %view_2 = tensor.expand_shape %sin [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %q_rot = "mla.rope"(%slice_1, %view_1, %view_2) : (tensor<2x2x64xbf16>, tensor<2x1x64xbf16>, tensor<2x1x64xbf16>) -> (tensor<2x2x64xbf16>)

  return %absorbed, %q_rot, %kv_new, %kr_new : tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>
}

// -----

// CHECK-LABEL: func.func @prolog_pq_kvnq
// CHECK:  %[[P:.*]]:5 = "mla.prolog_v2"(
// CHECK-NOT: "mla.{{matmul|quant_matmul|dynamic_quant|quantize|head_matmul|rope|rms_norm|scatter_cache|div|mul}}"
// V1-LABEL: func.func @prolog_pq_kvnq
// V1:  "mla.prolog"(
ml_program.global private @"w_dq"(#ml_program.extern : tensor<7168x1536xbf16>) : tensor<7168x1536xbf16>
ml_program.global private @"gamma_cq"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"w_uq_qr"(#ml_program.extern : tensor<1536x384xi8>) : tensor<1536x384xi8>
ml_program.global private @"w_uq_qr_scale"(#ml_program.extern : tensor<384xf32>) : tensor<384xf32>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<2x128x512xbf16>) : tensor<2x128x512xbf16>
ml_program.global private @"w_dkv_kr"(#ml_program.extern : tensor<7168x576xbf16>) : tensor<7168x576xbf16>
ml_program.global private @"gamma_ckv"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
func.func @prolog_pq_kvnq(
    %x: tensor<1x2x7168xbf16> {mla.name = "x"},
    %cos: tensor<1x2x64xbf16> {mla.name = "cos"},
    %sin: tensor<1x2x64xbf16> {mla.name = "sin"},
    %slots: tensor<1x2xi64> {mla.name = "slots"},
    %kv_cache: tensor<4x16x1x512xbf16> {mla.name = "kv_cache"},
    %kr_cache: tensor<4x16x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<1x2x2x512xbf16>, tensor<1x2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>) {
  %w_dq = ml_program.global_load_const @"w_dq" : tensor<7168x1536xbf16>
  %matmul = "mla.matmul"(%x, %w_dq) : (tensor<1x2x7168xbf16>, tensor<7168x1536xbf16>) -> (tensor<1x2x1536xbf16>)
  %gamma_cq = ml_program.global_load_const @"gamma_cq" : tensor<1536xbf16>
  %rms_norm = "mla.rms_norm"(%matmul, %gamma_cq) : (tensor<1x2x1536xbf16>, tensor<1536xbf16>) -> (tensor<1x2x1536xf32>)
  %dynamic_quant_y, %dynamic_quant_scale = "mla.dynamic_quant"(%rms_norm) {operandSegmentSizes = array<i32: 1, 0>} : (tensor<1x2x1536xf32>) -> (tensor<1x2x1536xi8>, tensor<1x2xf32>)
  %w_uq_qr = ml_program.global_load_const @"w_uq_qr" : tensor<1536x384xi8>
  %w_uq_qr_scale = ml_program.global_load_const @"w_uq_qr_scale" : tensor<384xf32>
  %quant_matmul = "mla.quant_matmul"(%dynamic_quant_y, %w_uq_qr, %dynamic_quant_scale, %w_uq_qr_scale) : (tensor<1x2x1536xi8>, tensor<1536x384xi8>, tensor<1x2xf32>, tensor<384xf32>) -> (tensor<1x2x384xf32>)
  %view = tensor.expand_shape %quant_matmul [[0], [1], [2, 3]] output_shape [1, 2, 2, 192] : tensor<1x2x384xf32> into tensor<1x2x2x192xf32>
  %slice = tensor.extract_slice %view[0, 0, 0, 0] [1, 2, 2, 128] [1, 1, 1, 1] : tensor<1x2x2x192xf32> to tensor<1x2x2x128xf32>
  %cast = arith.truncf %slice : tensor<1x2x2x128xf32> to tensor<1x2x2x128xbf16>
  %w_uk = ml_program.global_load_const @"w_uk" : tensor<2x128x512xbf16>
  %head_matmul = "mla.head_matmul"(%cast, %w_uk) : (tensor<1x2x2x128xbf16>, tensor<2x128x512xbf16>) -> (tensor<1x2x2x512xbf16>)
  %slice_1 = tensor.extract_slice %view[0, 0, 0, 128] [1, 2, 2, 64] [1, 1, 1, 1] : tensor<1x2x2x192xf32> to tensor<1x2x2x64xf32>
  %view_1 = tensor.expand_shape %cos [[0], [1], [2, 3]] output_shape [1, 2, 1, 64] : tensor<1x2x64xbf16> into tensor<1x2x1x64xbf16>
  %view_2 = tensor.expand_shape %sin [[0], [1], [2, 3]] output_shape [1, 2, 1, 64] : tensor<1x2x64xbf16> into tensor<1x2x1x64xbf16>
  %rope = "mla.rope"(%slice_1, %view_1, %view_2) : (tensor<1x2x2x64xf32>, tensor<1x2x1x64xbf16>, tensor<1x2x1x64xbf16>) -> (tensor<1x2x2x64xbf16>)
  %w_dkv_kr = ml_program.global_load_const @"w_dkv_kr" : tensor<7168x576xbf16>
  %matmul_1 = "mla.matmul"(%x, %w_dkv_kr) : (tensor<1x2x7168xbf16>, tensor<7168x576xbf16>) -> (tensor<1x2x576xbf16>)
  %slice_2 = tensor.extract_slice %matmul_1[0, 0, 0] [1, 2, 512] [1, 1, 1] : tensor<1x2x576xbf16> to tensor<1x2x512xbf16>
  %slice_3 = tensor.extract_slice %matmul_1[0, 0, 512] [1, 2, 64] [1, 1, 1] : tensor<1x2x576xbf16> to tensor<1x2x64xbf16>
  %gamma_ckv = ml_program.global_load_const @"gamma_ckv" : tensor<512xbf16>
  %rms_norm_1 = "mla.rms_norm"(%slice_2, %gamma_ckv) : (tensor<1x2x512xbf16>, tensor<512xbf16>) -> (tensor<1x2x512xbf16>)
  %rope_1 = "mla.rope"(%slice_3, %cos, %sin) : (tensor<1x2x64xbf16>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>) -> (tensor<1x2x64xbf16>)
  %view_3 = tensor.expand_shape %rms_norm_1 [[0], [1], [2, 3]] output_shape [1, 2, 1, 512] : tensor<1x2x512xbf16> into tensor<1x2x1x512xbf16>
  %scatter_cache = "mla.scatter_cache"(%kv_cache, %slots, %view_3) {cache_mode = "PA_BSND"} : (tensor<4x16x1x512xbf16>, tensor<1x2xi64>, tensor<1x2x1x512xbf16>) -> (tensor<4x16x1x512xbf16>)
  %view_4 = tensor.expand_shape %rope_1 [[0], [1], [2, 3]] output_shape [1, 2, 1, 64] : tensor<1x2x64xbf16> into tensor<1x2x1x64xbf16>
  %scatter_cache_1 = "mla.scatter_cache"(%kr_cache, %slots, %view_4) {cache_mode = "PA_BSND"} : (tensor<4x16x1x64xbf16>, tensor<1x2xi64>, tensor<1x2x1x64xbf16>) -> (tensor<4x16x1x64xbf16>)
  return %head_matmul, %rope, %scatter_cache, %scatter_cache_1 : tensor<1x2x2x512xbf16>, tensor<1x2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>
}


// -----

// CHECK-LABEL: func.func @prolog_pq_kvq
// CHECK:  %[[P:.*]]:5 = "mla.prolog_v2"(
// CHECK-SAME: cache_mode = "PA_NZ"
// CHECK-NOT: "mla.{{matmul|quant_matmul|dynamic_quant|quantize|head_matmul|rope|rms_norm|scatter_cache|div|mul}}"
// V1-LABEL: func.func @prolog_pq_kvq
// V1:  "mla.prolog"(
ml_program.global private @"w_dq"(#ml_program.extern : tensor<7168x1536xbf16>) : tensor<7168x1536xbf16>
ml_program.global private @"gamma_cq"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"w_uq_qr"(#ml_program.extern : tensor<1536x384xi8>) : tensor<1536x384xi8>
ml_program.global private @"w_uq_qr_scale"(#ml_program.extern : tensor<384xf32>) : tensor<384xf32>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<2x128x512xbf16>) : tensor<2x128x512xbf16>
ml_program.global private @"w_dkv_kr"(#ml_program.extern : tensor<7168x576xbf16>) : tensor<7168x576xbf16>
ml_program.global private @"gamma_ckv"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
ml_program.global private @"qs_ckv"(#ml_program.extern : tensor<1x512xf32>) : tensor<1x512xf32>
ml_program.global private @"qs_ckr"(#ml_program.extern : tensor<1x64xf32>) : tensor<1x64xf32>
func.func @prolog_pq_kvq(
    %x: tensor<1x2x7168xbf16> {mla.name = "x"},
    %cos: tensor<1x2x64xbf16> {mla.name = "cos"},
    %sin: tensor<1x2x64xbf16> {mla.name = "sin"},
    %slots: tensor<1x2xi64> {mla.name = "slots"},
    %kv_cache: tensor<4x16x1x512xi8> {mla.name = "kv_cache"},
    %kr_cache: tensor<4x16x1x64xi8> {mla.name = "kr_cache"})
    -> (tensor<1x2x2x512xbf16>, tensor<1x2x2x64xbf16>, tensor<4x16x1x512xi8>, tensor<4x16x1x64xi8>) {
  %w_dq = ml_program.global_load_const @"w_dq" : tensor<7168x1536xbf16>
  %matmul = "mla.matmul"(%x, %w_dq) : (tensor<1x2x7168xbf16>, tensor<7168x1536xbf16>) -> (tensor<1x2x1536xbf16>)
  %gamma_cq = ml_program.global_load_const @"gamma_cq" : tensor<1536xbf16>
  %rms_norm = "mla.rms_norm"(%matmul, %gamma_cq) : (tensor<1x2x1536xbf16>, tensor<1536xbf16>) -> (tensor<1x2x1536xf32>)
  %dynamic_quant_y, %dynamic_quant_scale = "mla.dynamic_quant"(%rms_norm) {operandSegmentSizes = array<i32: 1, 0>} : (tensor<1x2x1536xf32>) -> (tensor<1x2x1536xi8>, tensor<1x2xf32>)
  %w_uq_qr = ml_program.global_load_const @"w_uq_qr" : tensor<1536x384xi8>
  %w_uq_qr_scale = ml_program.global_load_const @"w_uq_qr_scale" : tensor<384xf32>
  %quant_matmul = "mla.quant_matmul"(%dynamic_quant_y, %w_uq_qr, %dynamic_quant_scale, %w_uq_qr_scale) : (tensor<1x2x1536xi8>, tensor<1536x384xi8>, tensor<1x2xf32>, tensor<384xf32>) -> (tensor<1x2x384xf32>)
  %view = tensor.expand_shape %quant_matmul [[0], [1], [2, 3]] output_shape [1, 2, 2, 192] : tensor<1x2x384xf32> into tensor<1x2x2x192xf32>
  %slice = tensor.extract_slice %view[0, 0, 0, 0] [1, 2, 2, 128] [1, 1, 1, 1] : tensor<1x2x2x192xf32> to tensor<1x2x2x128xf32>
  %cast = arith.truncf %slice : tensor<1x2x2x128xf32> to tensor<1x2x2x128xbf16>
  %w_uk = ml_program.global_load_const @"w_uk" : tensor<2x128x512xbf16>
  %head_matmul = "mla.head_matmul"(%cast, %w_uk) : (tensor<1x2x2x128xbf16>, tensor<2x128x512xbf16>) -> (tensor<1x2x2x512xbf16>)
  %slice_1 = tensor.extract_slice %view[0, 0, 0, 128] [1, 2, 2, 64] [1, 1, 1, 1] : tensor<1x2x2x192xf32> to tensor<1x2x2x64xf32>
  %view_1 = tensor.expand_shape %cos [[0], [1], [2, 3]] output_shape [1, 2, 1, 64] : tensor<1x2x64xbf16> into tensor<1x2x1x64xbf16>
  %view_2 = tensor.expand_shape %sin [[0], [1], [2, 3]] output_shape [1, 2, 1, 64] : tensor<1x2x64xbf16> into tensor<1x2x1x64xbf16>
  %rope = "mla.rope"(%slice_1, %view_1, %view_2) : (tensor<1x2x2x64xf32>, tensor<1x2x1x64xbf16>, tensor<1x2x1x64xbf16>) -> (tensor<1x2x2x64xbf16>)
  %w_dkv_kr = ml_program.global_load_const @"w_dkv_kr" : tensor<7168x576xbf16>
  %matmul_1 = "mla.matmul"(%x, %w_dkv_kr) : (tensor<1x2x7168xbf16>, tensor<7168x576xbf16>) -> (tensor<1x2x576xbf16>)
  %slice_2 = tensor.extract_slice %matmul_1[0, 0, 0] [1, 2, 512] [1, 1, 1] : tensor<1x2x576xbf16> to tensor<1x2x512xbf16>
  %slice_3 = tensor.extract_slice %matmul_1[0, 0, 512] [1, 2, 64] [1, 1, 1] : tensor<1x2x576xbf16> to tensor<1x2x64xbf16>
  %gamma_ckv = ml_program.global_load_const @"gamma_ckv" : tensor<512xbf16>
  %rms_norm_1 = "mla.rms_norm"(%slice_2, %gamma_ckv) : (tensor<1x2x512xbf16>, tensor<512xbf16>) -> (tensor<1x2x512xf32>)
  %rope_1 = "mla.rope"(%slice_3, %cos, %sin) : (tensor<1x2x64xbf16>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>) -> (tensor<1x2x64xbf16>)
  %qs_ckv = ml_program.global_load_const @"qs_ckv" : tensor<1x512xf32>
  %quantize = "mla.quantize"(%rms_norm_1, %qs_ckv) : (tensor<1x2x512xf32>, tensor<1x512xf32>) -> (tensor<1x2x512xi8>)
  %qs_ckr = ml_program.global_load_const @"qs_ckr" : tensor<1x64xf32>
  %quantize_1 = "mla.quantize"(%rope_1, %qs_ckr) : (tensor<1x2x64xbf16>, tensor<1x64xf32>) -> (tensor<1x2x64xi8>)
  %view_3 = tensor.expand_shape %quantize [[0], [1], [2, 3]] output_shape [1, 2, 1, 512] : tensor<1x2x512xi8> into tensor<1x2x1x512xi8>
  %scatter_cache = "mla.scatter_cache"(%kv_cache, %slots, %view_3) {cache_mode = "PA_NZ"} : (tensor<4x16x1x512xi8>, tensor<1x2xi64>, tensor<1x2x1x512xi8>) -> (tensor<4x16x1x512xi8>)
  %view_4 = tensor.expand_shape %quantize_1 [[0], [1], [2, 3]] output_shape [1, 2, 1, 64] : tensor<1x2x64xi8> into tensor<1x2x1x64xi8>
  %scatter_cache_1 = "mla.scatter_cache"(%kr_cache, %slots, %view_4) {cache_mode = "PA_NZ"} : (tensor<4x16x1x64xi8>, tensor<1x2xi64>, tensor<1x2x1x64xi8>) -> (tensor<4x16x1x64xi8>)
  return %head_matmul, %rope, %scatter_cache, %scatter_cache_1 : tensor<1x2x2x512xbf16>, tensor<1x2x2x64xbf16>, tensor<4x16x1x512xi8>, tensor<4x16x1x64xi8>
}


// -----

// CHECK-LABEL: func.func @prolog_fq_kvnq
// CHECK:  %[[S:.*]] = tensor.collapse_shape %arg6
// CHECK:  %[[XS:.*]] = tensor.expand_shape %[[S]]
// CHECK:  %[[P:.*]]:5 = "mla.prolog_v2"(
// CHECK-NOT: "mla.{{matmul|quant_matmul|dynamic_quant|quantize|head_matmul|rope|rms_norm|scatter_cache|div|mul}}"
// V1-LABEL: func.func @prolog_fq_kvnq
// V1:  "mla.prolog_v2"(
ml_program.global private @"w_dq"(#ml_program.extern : tensor<7168x1536xi8>) : tensor<7168x1536xi8>
ml_program.global private @"w_dq_scale"(#ml_program.extern : tensor<1536xf32>) : tensor<1536xf32>
ml_program.global private @"gamma_cq"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"w_uq_qr"(#ml_program.extern : tensor<1536x384xi8>) : tensor<1536x384xi8>
ml_program.global private @"w_uq_qr_scale"(#ml_program.extern : tensor<384xf32>) : tensor<384xf32>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<2x128x512xbf16>) : tensor<2x128x512xbf16>
ml_program.global private @"w_dkv_kr"(#ml_program.extern : tensor<7168x576xi8>) : tensor<7168x576xi8>
ml_program.global private @"w_dkv_kr_scale"(#ml_program.extern : tensor<576xf32>) : tensor<576xf32>
ml_program.global private @"gamma_ckv"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
func.func @prolog_fq_kvnq(
    %x: tensor<1x2x7168xi8> {mla.name = "x"},
    %cos: tensor<1x2x64xbf16> {mla.name = "cos"},
    %sin: tensor<1x2x64xbf16> {mla.name = "sin"},
    %slots: tensor<1x2xi64> {mla.name = "slots"},
    %kv_cache: tensor<4x16x1x512xbf16> {mla.name = "kv_cache"},
    %kr_cache: tensor<4x16x1x64xbf16> {mla.name = "kr_cache"},
    %x_scale: tensor<1x2xf32> {mla.name = "x_scale"})
    -> (tensor<1x2x2x512xbf16>, tensor<1x2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>) {
  %w_dq = ml_program.global_load_const @"w_dq" : tensor<7168x1536xi8>
  %w_dq_scale = ml_program.global_load_const @"w_dq_scale" : tensor<1536xf32>
  %quant_matmul = "mla.quant_matmul"(%x, %w_dq, %x_scale, %w_dq_scale) : (tensor<1x2x7168xi8>, tensor<7168x1536xi8>, tensor<1x2xf32>, tensor<1536xf32>) -> (tensor<1x2x1536xf32>)
  %gamma_cq = ml_program.global_load_const @"gamma_cq" : tensor<1536xbf16>
  %rms_norm = "mla.rms_norm"(%quant_matmul, %gamma_cq) : (tensor<1x2x1536xf32>, tensor<1536xbf16>) -> (tensor<1x2x1536xf32>)
  %dynamic_quant_y, %dynamic_quant_scale = "mla.dynamic_quant"(%rms_norm) {operandSegmentSizes = array<i32: 1, 0>} : (tensor<1x2x1536xf32>) -> (tensor<1x2x1536xi8>, tensor<1x2xf32>)
  %w_uq_qr = ml_program.global_load_const @"w_uq_qr" : tensor<1536x384xi8>
  %w_uq_qr_scale = ml_program.global_load_const @"w_uq_qr_scale" : tensor<384xf32>
  %quant_matmul_1 = "mla.quant_matmul"(%dynamic_quant_y, %w_uq_qr, %dynamic_quant_scale, %w_uq_qr_scale) : (tensor<1x2x1536xi8>, tensor<1536x384xi8>, tensor<1x2xf32>, tensor<384xf32>) -> (tensor<1x2x384xf32>)
  %view = tensor.expand_shape %quant_matmul_1 [[0], [1], [2, 3]] output_shape [1, 2, 2, 192] : tensor<1x2x384xf32> into tensor<1x2x2x192xf32>
  %slice = tensor.extract_slice %view[0, 0, 0, 0] [1, 2, 2, 128] [1, 1, 1, 1] : tensor<1x2x2x192xf32> to tensor<1x2x2x128xf32>
  %cast = arith.truncf %slice : tensor<1x2x2x128xf32> to tensor<1x2x2x128xbf16>
  %w_uk = ml_program.global_load_const @"w_uk" : tensor<2x128x512xbf16>
  %head_matmul = "mla.head_matmul"(%cast, %w_uk) : (tensor<1x2x2x128xbf16>, tensor<2x128x512xbf16>) -> (tensor<1x2x2x512xbf16>)
  %slice_1 = tensor.extract_slice %view[0, 0, 0, 128] [1, 2, 2, 64] [1, 1, 1, 1] : tensor<1x2x2x192xf32> to tensor<1x2x2x64xf32>
  %view_1 = tensor.expand_shape %cos [[0], [1], [2, 3]] output_shape [1, 2, 1, 64] : tensor<1x2x64xbf16> into tensor<1x2x1x64xbf16>
  %view_2 = tensor.expand_shape %sin [[0], [1], [2, 3]] output_shape [1, 2, 1, 64] : tensor<1x2x64xbf16> into tensor<1x2x1x64xbf16>
  %rope = "mla.rope"(%slice_1, %view_1, %view_2) : (tensor<1x2x2x64xf32>, tensor<1x2x1x64xbf16>, tensor<1x2x1x64xbf16>) -> (tensor<1x2x2x64xbf16>)
  %w_dkv_kr = ml_program.global_load_const @"w_dkv_kr" : tensor<7168x576xi8>
  %w_dkv_kr_scale = ml_program.global_load_const @"w_dkv_kr_scale" : tensor<576xf32>
  %quant_matmul_2 = "mla.quant_matmul"(%x, %w_dkv_kr, %x_scale, %w_dkv_kr_scale) : (tensor<1x2x7168xi8>, tensor<7168x576xi8>, tensor<1x2xf32>, tensor<576xf32>) -> (tensor<1x2x576xf32>)
  %slice_2 = tensor.extract_slice %quant_matmul_2[0, 0, 0] [1, 2, 512] [1, 1, 1] : tensor<1x2x576xf32> to tensor<1x2x512xf32>
  %slice_3 = tensor.extract_slice %quant_matmul_2[0, 0, 512] [1, 2, 64] [1, 1, 1] : tensor<1x2x576xf32> to tensor<1x2x64xf32>
  %gamma_ckv = ml_program.global_load_const @"gamma_ckv" : tensor<512xbf16>
  %rms_norm_1 = "mla.rms_norm"(%slice_2, %gamma_ckv) : (tensor<1x2x512xf32>, tensor<512xbf16>) -> (tensor<1x2x512xbf16>)
  %rope_1 = "mla.rope"(%slice_3, %cos, %sin) : (tensor<1x2x64xf32>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>) -> (tensor<1x2x64xbf16>)
  %view_3 = tensor.expand_shape %rms_norm_1 [[0], [1], [2, 3]] output_shape [1, 2, 1, 512] : tensor<1x2x512xbf16> into tensor<1x2x1x512xbf16>
  %scatter_cache = "mla.scatter_cache"(%kv_cache, %slots, %view_3) {cache_mode = "PA_BSND"} : (tensor<4x16x1x512xbf16>, tensor<1x2xi64>, tensor<1x2x1x512xbf16>) -> (tensor<4x16x1x512xbf16>)
  %view_4 = tensor.expand_shape %rope_1 [[0], [1], [2, 3]] output_shape [1, 2, 1, 64] : tensor<1x2x64xbf16> into tensor<1x2x1x64xbf16>
  %scatter_cache_1 = "mla.scatter_cache"(%kr_cache, %slots, %view_4) {cache_mode = "PA_BSND"} : (tensor<4x16x1x64xbf16>, tensor<1x2xi64>, tensor<1x2x1x64xbf16>) -> (tensor<4x16x1x64xbf16>)
  return %head_matmul, %rope, %scatter_cache, %scatter_cache_1 : tensor<1x2x2x512xbf16>, tensor<1x2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>
}


// -----

// CHECK-LABEL: func.func @prolog_fq_kvq
// CHECK:  %[[S:.*]] = tensor.collapse_shape %arg6
// CHECK:  %[[XS:.*]] = tensor.expand_shape %[[S]]
// CHECK:  %[[P:.*]]:5 = "mla.prolog_v2"(
// CHECK-NOT: "mla.{{matmul|quant_matmul|dynamic_quant|quantize|head_matmul|rope|rms_norm|scatter_cache|div|mul}}"
// CHECK:  %[[Q:.*]] = tensor.collapse_shape %[[P]]#4
// CHECK:  tensor.expand_shape %[[Q]]
// V1-LABEL: func.func @prolog_fq_kvq
// V1:  "mla.prolog_v2"(
ml_program.global private @"w_dq"(#ml_program.extern : tensor<7168x1536xi8>) : tensor<7168x1536xi8>
ml_program.global private @"w_dq_scale"(#ml_program.extern : tensor<1536xf32>) : tensor<1536xf32>
ml_program.global private @"gamma_cq"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"w_uq_qr"(#ml_program.extern : tensor<1536x384xi8>) : tensor<1536x384xi8>
ml_program.global private @"w_uq_qr_scale"(#ml_program.extern : tensor<384xf32>) : tensor<384xf32>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<2x128x512xbf16>) : tensor<2x128x512xbf16>
ml_program.global private @"w_dkv_kr"(#ml_program.extern : tensor<7168x576xi8>) : tensor<7168x576xi8>
ml_program.global private @"w_dkv_kr_scale"(#ml_program.extern : tensor<576xf32>) : tensor<576xf32>
ml_program.global private @"gamma_ckv"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
ml_program.global private @"qs_ckv"(#ml_program.extern : tensor<1x512xf32>) : tensor<1x512xf32>
func.func @prolog_fq_kvq(
    %x: tensor<1x2x7168xi8> {mla.name = "x"},
    %cos: tensor<1x2x64xbf16> {mla.name = "cos"},
    %sin: tensor<1x2x64xbf16> {mla.name = "sin"},
    %slots: tensor<1x2xi64> {mla.name = "slots"},
    %kv_cache: tensor<4x16x1x512xi8> {mla.name = "kv_cache"},
    %kr_cache: tensor<4x16x1x64xbf16> {mla.name = "kr_cache"},
    %x_scale: tensor<1x2xf32> {mla.name = "x_scale"})
    -> (tensor<1x2x2x512xi8>, tensor<1x2x2x64xbf16>, tensor<4x16x1x512xi8>, tensor<4x16x1x64xbf16>, tensor<1x2x2xf32>) {
  %w_dq = ml_program.global_load_const @"w_dq" : tensor<7168x1536xi8>
  %w_dq_scale = ml_program.global_load_const @"w_dq_scale" : tensor<1536xf32>
  %quant_matmul = "mla.quant_matmul"(%x, %w_dq, %x_scale, %w_dq_scale) : (tensor<1x2x7168xi8>, tensor<7168x1536xi8>, tensor<1x2xf32>, tensor<1536xf32>) -> (tensor<1x2x1536xf32>)
  %gamma_cq = ml_program.global_load_const @"gamma_cq" : tensor<1536xbf16>
  %rms_norm = "mla.rms_norm"(%quant_matmul, %gamma_cq) : (tensor<1x2x1536xf32>, tensor<1536xbf16>) -> (tensor<1x2x1536xf32>)
  %dynamic_quant_y, %dynamic_quant_scale = "mla.dynamic_quant"(%rms_norm) {operandSegmentSizes = array<i32: 1, 0>} : (tensor<1x2x1536xf32>) -> (tensor<1x2x1536xi8>, tensor<1x2xf32>)
  %w_uq_qr = ml_program.global_load_const @"w_uq_qr" : tensor<1536x384xi8>
  %w_uq_qr_scale = ml_program.global_load_const @"w_uq_qr_scale" : tensor<384xf32>
  %quant_matmul_1 = "mla.quant_matmul"(%dynamic_quant_y, %w_uq_qr, %dynamic_quant_scale, %w_uq_qr_scale) : (tensor<1x2x1536xi8>, tensor<1536x384xi8>, tensor<1x2xf32>, tensor<384xf32>) -> (tensor<1x2x384xf32>)
  %view = tensor.expand_shape %quant_matmul_1 [[0], [1], [2, 3]] output_shape [1, 2, 2, 192] : tensor<1x2x384xf32> into tensor<1x2x2x192xf32>
  %slice = tensor.extract_slice %view[0, 0, 0, 0] [1, 2, 2, 128] [1, 1, 1, 1] : tensor<1x2x2x192xf32> to tensor<1x2x2x128xf32>
  %cast = arith.truncf %slice : tensor<1x2x2x128xf32> to tensor<1x2x2x128xbf16>
  %w_uk = ml_program.global_load_const @"w_uk" : tensor<2x128x512xbf16>
  %head_matmul = "mla.head_matmul"(%cast, %w_uk) : (tensor<1x2x2x128xbf16>, tensor<2x128x512xbf16>) -> (tensor<1x2x2x512xbf16>)
  %slice_1 = tensor.extract_slice %view[0, 0, 0, 128] [1, 2, 2, 64] [1, 1, 1, 1] : tensor<1x2x2x192xf32> to tensor<1x2x2x64xf32>
  %view_1 = tensor.expand_shape %cos [[0], [1], [2, 3]] output_shape [1, 2, 1, 64] : tensor<1x2x64xbf16> into tensor<1x2x1x64xbf16>
  %view_2 = tensor.expand_shape %sin [[0], [1], [2, 3]] output_shape [1, 2, 1, 64] : tensor<1x2x64xbf16> into tensor<1x2x1x64xbf16>
  %rope = "mla.rope"(%slice_1, %view_1, %view_2) : (tensor<1x2x2x64xf32>, tensor<1x2x1x64xbf16>, tensor<1x2x1x64xbf16>) -> (tensor<1x2x2x64xbf16>)
  %w_dkv_kr = ml_program.global_load_const @"w_dkv_kr" : tensor<7168x576xi8>
  %w_dkv_kr_scale = ml_program.global_load_const @"w_dkv_kr_scale" : tensor<576xf32>
  %quant_matmul_2 = "mla.quant_matmul"(%x, %w_dkv_kr, %x_scale, %w_dkv_kr_scale) : (tensor<1x2x7168xi8>, tensor<7168x576xi8>, tensor<1x2xf32>, tensor<576xf32>) -> (tensor<1x2x576xf32>)
  %slice_2 = tensor.extract_slice %quant_matmul_2[0, 0, 0] [1, 2, 512] [1, 1, 1] : tensor<1x2x576xf32> to tensor<1x2x512xf32>
  %slice_3 = tensor.extract_slice %quant_matmul_2[0, 0, 512] [1, 2, 64] [1, 1, 1] : tensor<1x2x576xf32> to tensor<1x2x64xf32>
  %gamma_ckv = ml_program.global_load_const @"gamma_ckv" : tensor<512xbf16>
  %rms_norm_1 = "mla.rms_norm"(%slice_2, %gamma_ckv) : (tensor<1x2x512xf32>, tensor<512xbf16>) -> (tensor<1x2x512xf32>)
  %rope_1 = "mla.rope"(%slice_3, %cos, %sin) : (tensor<1x2x64xf32>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>) -> (tensor<1x2x64xbf16>)
  %qs_ckv = ml_program.global_load_const @"qs_ckv" : tensor<1x512xf32>
  %slice_4 = tensor.extract_slice %qs_ckv[0, 0] [1, 1] [1, 1] : tensor<1x512xf32> to tensor<1x1xf32>
  %quantize = "mla.quantize"(%rms_norm_1, %slice_4) : (tensor<1x2x512xf32>, tensor<1x1xf32>) -> (tensor<1x2x512xi8>)
  %dynamic_quant_y_1, %dynamic_quant_scale_1 = "mla.dynamic_quant"(%head_matmul) {rounding = "half_away", operandSegmentSizes = array<i32: 1, 0>} : (tensor<1x2x2x512xbf16>) -> (tensor<1x2x2x512xi8>, tensor<1x2x2xf32>)
  %view_3 = tensor.expand_shape %dynamic_quant_scale_1 [[0], [1], [2, 3]] output_shape [1, 2, 2, 1] : tensor<1x2x2xf32> into tensor<1x2x2x1xf32>
  %div = "mla.div"(%slice_4, %view_3) : (tensor<1x1xf32>, tensor<1x2x2x1xf32>) -> (tensor<1x2x2x1xf32>)
  %mul = "mla.mul"(%rope, %div) : (tensor<1x2x2x64xbf16>, tensor<1x2x2x1xf32>) -> (tensor<1x2x2x64xbf16>)
  %view_4 = tensor.expand_shape %quantize [[0], [1], [2, 3]] output_shape [1, 2, 1, 512] : tensor<1x2x512xi8> into tensor<1x2x1x512xi8>
  %scatter_cache = "mla.scatter_cache"(%kv_cache, %slots, %view_4) {cache_mode = "PA_BSND"} : (tensor<4x16x1x512xi8>, tensor<1x2xi64>, tensor<1x2x1x512xi8>) -> (tensor<4x16x1x512xi8>)
  %view_5 = tensor.expand_shape %rope_1 [[0], [1], [2, 3]] output_shape [1, 2, 1, 64] : tensor<1x2x64xbf16> into tensor<1x2x1x64xbf16>
  %scatter_cache_1 = "mla.scatter_cache"(%kr_cache, %slots, %view_5) {cache_mode = "PA_BSND"} : (tensor<4x16x1x64xbf16>, tensor<1x2xi64>, tensor<1x2x1x64xbf16>) -> (tensor<4x16x1x64xbf16>)
  return %dynamic_quant_y_1, %mul, %scatter_cache, %scatter_cache_1, %dynamic_quant_scale_1 : tensor<1x2x2x512xi8>, tensor<1x2x2x64xbf16>, tensor<4x16x1x512xi8>, tensor<4x16x1x64xbf16>, tensor<1x2x2xf32>
}

// -----

// An op reads the old kv cache between the projections and the store: the fused op, which
// writes the cache in place, goes after it (INP-001 keeps the reader before the write).
// CHECK-LABEL: func.func @old_cache_read_first
// CHECK: "mla.nz_cache_view"(%arg4)
// CHECK: "mla.prolog_v2"
ml_program.global private @"w_dq"(#ml_program.extern : tensor<7168x1536xbf16>) : tensor<7168x1536xbf16>
ml_program.global private @"gamma_cq"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"w_uq_qr"(#ml_program.extern : tensor<1536x384xbf16>) : tensor<1536x384xbf16>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<2x128x512xbf16>) : tensor<2x128x512xbf16>
ml_program.global private @"w_dkv_kr"(#ml_program.extern : tensor<7168x576xbf16>) : tensor<7168x576xbf16>
ml_program.global private @"gamma_ckv"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
func.func @old_cache_read_first(
    %x: tensor<2x7168xbf16> {mla.name = "x"},
    %cos: tensor<2x64xbf16> {mla.name = "cos"},
    %sin: tensor<2x64xbf16> {mla.name = "sin"},
    %slots: tensor<2xi64> {mla.name = "slots"},
    %kv_cache: tensor<4x16x1x512xbf16> {mla.name = "kv_cache"},
    %kr_cache: tensor<4x16x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>, tensor<4x16x512xbf16, #mla.format<"FRACTAL_NZ">>) {
  %w_dq = ml_program.global_load_const @"w_dq" : tensor<7168x1536xbf16>
  %matmul = "mla.matmul"(%x, %w_dq) : (tensor<2x7168xbf16>, tensor<7168x1536xbf16>) -> (tensor<2x1536xbf16>)
  %gamma_cq = ml_program.global_load_const @"gamma_cq" : tensor<1536xbf16>
  %rms_norm = "mla.rms_norm"(%matmul, %gamma_cq) : (tensor<2x1536xbf16>, tensor<1536xbf16>) -> (tensor<2x1536xbf16>)
  %w_uq_qr = ml_program.global_load_const @"w_uq_qr" : tensor<1536x384xbf16>
  %matmul_1 = "mla.matmul"(%rms_norm, %w_uq_qr) : (tensor<2x1536xbf16>, tensor<1536x384xbf16>) -> (tensor<2x384xbf16>)
  %view = tensor.expand_shape %matmul_1 [[0], [1, 2]] output_shape [2, 2, 192] : tensor<2x384xbf16> into tensor<2x2x192xbf16>
  %slice = tensor.extract_slice %view[0, 0, 0] [2, 2, 128] [1, 1, 1] : tensor<2x2x192xbf16> to tensor<2x2x128xbf16>
  %w_uk = ml_program.global_load_const @"w_uk" : tensor<2x128x512xbf16>
  %head_matmul = "mla.head_matmul"(%slice, %w_uk) : (tensor<2x2x128xbf16>, tensor<2x128x512xbf16>) -> (tensor<2x2x512xbf16>)
  %slice_1 = tensor.extract_slice %view[0, 0, 128] [2, 2, 64] [1, 1, 1] : tensor<2x2x192xbf16> to tensor<2x2x64xbf16>
  %view_1 = tensor.expand_shape %cos [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %view_2 = tensor.expand_shape %sin [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %rope = "mla.rope"(%slice_1, %view_1, %view_2) : (tensor<2x2x64xbf16>, tensor<2x1x64xbf16>, tensor<2x1x64xbf16>) -> (tensor<2x2x64xbf16>)
  %w_dkv_kr = ml_program.global_load_const @"w_dkv_kr" : tensor<7168x576xbf16>
  %matmul_2 = "mla.matmul"(%x, %w_dkv_kr) : (tensor<2x7168xbf16>, tensor<7168x576xbf16>) -> (tensor<2x576xbf16>)
  %slice_2 = tensor.extract_slice %matmul_2[0, 0] [2, 512] [1, 1] : tensor<2x576xbf16> to tensor<2x512xbf16>
  %slice_3 = tensor.extract_slice %matmul_2[0, 512] [2, 64] [1, 1] : tensor<2x576xbf16> to tensor<2x64xbf16>
  %gamma_ckv = ml_program.global_load_const @"gamma_ckv" : tensor<512xbf16>
  %rms_norm_1 = "mla.rms_norm"(%slice_2, %gamma_ckv) : (tensor<2x512xbf16>, tensor<512xbf16>) -> (tensor<2x512xbf16>)
  %rope_1 = "mla.rope"(%slice_3, %cos, %sin) : (tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>) -> (tensor<2x64xbf16>)
  %view_3 = tensor.expand_shape %rms_norm_1 [[0], [1, 2]] output_shape [2, 1, 512] : tensor<2x512xbf16> into tensor<2x1x512xbf16>
  %peek = "mla.nz_cache_view"(%kv_cache) : (tensor<4x16x1x512xbf16>) -> tensor<4x16x512xbf16, #mla.format<"FRACTAL_NZ">>
  %scatter_cache = "mla.scatter_cache"(%kv_cache, %slots, %view_3) {cache_mode = "PA_BSND"} : (tensor<4x16x1x512xbf16>, tensor<2xi64>, tensor<2x1x512xbf16>) -> (tensor<4x16x1x512xbf16>)
  %view_4 = tensor.expand_shape %rope_1 [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %scatter_cache_1 = "mla.scatter_cache"(%kr_cache, %slots, %view_4) {cache_mode = "PA_BSND"} : (tensor<4x16x1x64xbf16>, tensor<2xi64>, tensor<2x1x64xbf16>) -> (tensor<4x16x1x64xbf16>)
  return %head_matmul, %rope, %scatter_cache, %scatter_cache_1, %peek : tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>, tensor<4x16x512xbf16, #mla.format<"FRACTAL_NZ">>
}


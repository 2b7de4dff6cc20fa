// RUN: mla-opt %s --split-input-file --fuse-prolog --verify-diagnostics | FileCheck %s

// Where a documented constraint of mla.prolog_v2 would fail, fuse-prolog leaves the graph as it
// is and says why in a remark at the kv cache store (the root of the match), naming the rule the
// verifier would report. Never a half-fused graph: every primitive op stays.

// He = 5120 (DeepSeek-V2): the aclnn operator takes 7168 or 7680
// CHECK-LABEL: func.func @he_5120
// CHECK-NOT: mla.prolog
// CHECK: "mla.scatter_cache"
ml_program.global private @"w_dq"(#ml_program.extern : tensor<5120x1536xbf16>) : tensor<5120x1536xbf16>
ml_program.global private @"gamma_cq"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"w_uq_qr"(#ml_program.extern : tensor<1536x384xbf16>) : tensor<1536x384xbf16>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<2x128x512xbf16>) : tensor<2x128x512xbf16>
ml_program.global private @"w_dkv_kr"(#ml_program.extern : tensor<5120x576xbf16>) : tensor<5120x576xbf16>
ml_program.global private @"gamma_ckv"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
func.func @he_5120(
    %x: tensor<2x5120xbf16> {mla.name = "x"},
    %cos: tensor<2x64xbf16> {mla.name = "cos"},
    %sin: tensor<2x64xbf16> {mla.name = "sin"},
    %slots: tensor<2xi64> {mla.name = "slots"},
    %kv_cache: tensor<4x16x1x512xbf16> {mla.name = "kv_cache"},
    %kr_cache: tensor<4x16x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>) {
  %w_dq = ml_program.global_load_const @"w_dq" : tensor<5120x1536xbf16>
  %matmul = "mla.matmul"(%x, %w_dq) : (tensor<2x5120xbf16>, tensor<5120x1536xbf16>) -> (tensor<2x1536xbf16>)
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
  %w_dkv_kr = ml_program.global_load_const @"w_dkv_kr" : tensor<5120x576xbf16>
  %matmul_2 = "mla.matmul"(%x, %w_dkv_kr) : (tensor<2x5120xbf16>, tensor<5120x576xbf16>) -> (tensor<2x576xbf16>)
  %slice_2 = tensor.extract_slice %matmul_2[0, 0] [2, 512] [1, 1] : tensor<2x576xbf16> to tensor<2x512xbf16>
  %slice_3 = tensor.extract_slice %matmul_2[0, 512] [2, 64] [1, 1] : tensor<2x576xbf16> to tensor<2x64xbf16>
  %gamma_ckv = ml_program.global_load_const @"gamma_ckv" : tensor<512xbf16>
  %rms_norm_1 = "mla.rms_norm"(%slice_2, %gamma_ckv) : (tensor<2x512xbf16>, tensor<512xbf16>) -> (tensor<2x512xbf16>)
  %rope_1 = "mla.rope"(%slice_3, %cos, %sin) : (tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>) -> (tensor<2x64xbf16>)
  %view_3 = tensor.expand_shape %rms_norm_1 [[0], [1, 2]] output_shape [2, 1, 512] : tensor<2x512xbf16> into tensor<2x1x512xbf16>
  // expected-remark @+1 {{fuse-prolog: not fused: 'mla.prolog_v2' op token_x: expected He (last dimension) in {7168, 7680}, got 5120 [MLA-090]}}
  %scatter_cache = "mla.scatter_cache"(%kv_cache, %slots, %view_3) {cache_mode = "PA_BSND"} : (tensor<4x16x1x512xbf16>, tensor<2xi64>, tensor<2x1x512xbf16>) -> (tensor<4x16x1x512xbf16>)
  %view_4 = tensor.expand_shape %rope_1 [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %scatter_cache_1 = "mla.scatter_cache"(%kr_cache, %slots, %view_4) {cache_mode = "PA_BSND"} : (tensor<4x16x1x64xbf16>, tensor<2xi64>, tensor<2x1x64xbf16>) -> (tensor<4x16x1x64xbf16>)
  return %head_matmul, %rope, %scatter_cache, %scatter_cache_1 : tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>
}


// -----

// N = 3 query heads
// CHECK-LABEL: func.func @three_heads
// CHECK-NOT: mla.prolog
// CHECK: "mla.scatter_cache"
ml_program.global private @"w_dq"(#ml_program.extern : tensor<7168x1536xbf16>) : tensor<7168x1536xbf16>
ml_program.global private @"gamma_cq"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"w_uq_qr"(#ml_program.extern : tensor<1536x576xbf16>) : tensor<1536x576xbf16>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<3x128x512xbf16>) : tensor<3x128x512xbf16>
ml_program.global private @"w_dkv_kr"(#ml_program.extern : tensor<7168x576xbf16>) : tensor<7168x576xbf16>
ml_program.global private @"gamma_ckv"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
func.func @three_heads(
    %x: tensor<2x7168xbf16> {mla.name = "x"},
    %cos: tensor<2x64xbf16> {mla.name = "cos"},
    %sin: tensor<2x64xbf16> {mla.name = "sin"},
    %slots: tensor<2xi64> {mla.name = "slots"},
    %kv_cache: tensor<4x16x1x512xbf16> {mla.name = "kv_cache"},
    %kr_cache: tensor<4x16x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<2x3x512xbf16>, tensor<2x3x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>) {
  %w_dq = ml_program.global_load_const @"w_dq" : tensor<7168x1536xbf16>
  %matmul = "mla.matmul"(%x, %w_dq) : (tensor<2x7168xbf16>, tensor<7168x1536xbf16>) -> (tensor<2x1536xbf16>)
  %gamma_cq = ml_program.global_load_const @"gamma_cq" : tensor<1536xbf16>
  %rms_norm = "mla.rms_norm"(%matmul, %gamma_cq) : (tensor<2x1536xbf16>, tensor<1536xbf16>) -> (tensor<2x1536xbf16>)
  %w_uq_qr = ml_program.global_load_const @"w_uq_qr" : tensor<1536x576xbf16>
  %matmul_1 = "mla.matmul"(%rms_norm, %w_uq_qr) : (tensor<2x1536xbf16>, tensor<1536x576xbf16>) -> (tensor<2x576xbf16>)
  %view = tensor.expand_shape %matmul_1 [[0], [1, 2]] output_shape [2, 3, 192] : tensor<2x576xbf16> into tensor<2x3x192xbf16>
  %slice = tensor.extract_slice %view[0, 0, 0] [2, 3, 128] [1, 1, 1] : tensor<2x3x192xbf16> to tensor<2x3x128xbf16>
  %w_uk = ml_program.global_load_const @"w_uk" : tensor<3x128x512xbf16>
  %head_matmul = "mla.head_matmul"(%slice, %w_uk) : (tensor<2x3x128xbf16>, tensor<3x128x512xbf16>) -> (tensor<2x3x512xbf16>)
  %slice_1 = tensor.extract_slice %view[0, 0, 128] [2, 3, 64] [1, 1, 1] : tensor<2x3x192xbf16> to tensor<2x3x64xbf16>
  %view_1 = tensor.expand_shape %cos [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %view_2 = tensor.expand_shape %sin [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %rope = "mla.rope"(%slice_1, %view_1, %view_2) : (tensor<2x3x64xbf16>, tensor<2x1x64xbf16>, tensor<2x1x64xbf16>) -> (tensor<2x3x64xbf16>)
  %w_dkv_kr = ml_program.global_load_const @"w_dkv_kr" : tensor<7168x576xbf16>
  %matmul_2 = "mla.matmul"(%x, %w_dkv_kr) : (tensor<2x7168xbf16>, tensor<7168x576xbf16>) -> (tensor<2x576xbf16>)
  %slice_2 = tensor.extract_slice %matmul_2[0, 0] [2, 512] [1, 1] : tensor<2x576xbf16> to tensor<2x512xbf16>
  %slice_3 = tensor.extract_slice %matmul_2[0, 512] [2, 64] [1, 1] : tensor<2x576xbf16> to tensor<2x64xbf16>
  %gamma_ckv = ml_program.global_load_const @"gamma_ckv" : tensor<512xbf16>
  %rms_norm_1 = "mla.rms_norm"(%slice_2, %gamma_ckv) : (tensor<2x512xbf16>, tensor<512xbf16>) -> (tensor<2x512xbf16>)
  %rope_1 = "mla.rope"(%slice_3, %cos, %sin) : (tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>) -> (tensor<2x64xbf16>)
  %view_3 = tensor.expand_shape %rms_norm_1 [[0], [1, 2]] output_shape [2, 1, 512] : tensor<2x512xbf16> into tensor<2x1x512xbf16>
  // expected-remark @+1 {{[MLA-093]}}
  %scatter_cache = "mla.scatter_cache"(%kv_cache, %slots, %view_3) {cache_mode = "PA_BSND"} : (tensor<4x16x1x512xbf16>, tensor<2xi64>, tensor<2x1x512xbf16>) -> (tensor<4x16x1x512xbf16>)
  %view_4 = tensor.expand_shape %rope_1 [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %scatter_cache_1 = "mla.scatter_cache"(%kr_cache, %slots, %view_4) {cache_mode = "PA_BSND"} : (tensor<4x16x1x64xbf16>, tensor<2xi64>, tensor<2x1x64xbf16>) -> (tensor<4x16x1x64xbf16>)
  return %head_matmul, %rope, %scatter_cache, %scatter_cache_1 : tensor<2x3x512xbf16>, tensor<2x3x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>
}


// -----

// Hcq = 1024 (a q_lora_rank other than 1536)
// CHECK-LABEL: func.func @hcq_1024
// CHECK-NOT: mla.prolog
// CHECK: "mla.scatter_cache"
ml_program.global private @"w_dq"(#ml_program.extern : tensor<7168x1024xbf16>) : tensor<7168x1024xbf16>
ml_program.global private @"gamma_cq"(#ml_program.extern : tensor<1024xbf16>) : tensor<1024xbf16>
ml_program.global private @"w_uq_qr"(#ml_program.extern : tensor<1024x384xbf16>) : tensor<1024x384xbf16>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<2x128x512xbf16>) : tensor<2x128x512xbf16>
ml_program.global private @"w_dkv_kr"(#ml_program.extern : tensor<7168x576xbf16>) : tensor<7168x576xbf16>
ml_program.global private @"gamma_ckv"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
func.func @hcq_1024(
    %x: tensor<2x7168xbf16> {mla.name = "x"},
    %cos: tensor<2x64xbf16> {mla.name = "cos"},
    %sin: tensor<2x64xbf16> {mla.name = "sin"},
    %slots: tensor<2xi64> {mla.name = "slots"},
    %kv_cache: tensor<4x16x1x512xbf16> {mla.name = "kv_cache"},
    %kr_cache: tensor<4x16x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>) {
  %w_dq = ml_program.global_load_const @"w_dq" : tensor<7168x1024xbf16>
  %matmul = "mla.matmul"(%x, %w_dq) : (tensor<2x7168xbf16>, tensor<7168x1024xbf16>) -> (tensor<2x1024xbf16>)
  %gamma_cq = ml_program.global_load_const @"gamma_cq" : tensor<1024xbf16>
  %rms_norm = "mla.rms_norm"(%matmul, %gamma_cq) : (tensor<2x1024xbf16>, tensor<1024xbf16>) -> (tensor<2x1024xbf16>)
  %w_uq_qr = ml_program.global_load_const @"w_uq_qr" : tensor<1024x384xbf16>
  %matmul_1 = "mla.matmul"(%rms_norm, %w_uq_qr) : (tensor<2x1024xbf16>, tensor<1024x384xbf16>) -> (tensor<2x384xbf16>)
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
  // expected-remark @+1 {{[MLA-092]}}
  %scatter_cache = "mla.scatter_cache"(%kv_cache, %slots, %view_3) {cache_mode = "PA_BSND"} : (tensor<4x16x1x512xbf16>, tensor<2xi64>, tensor<2x1x512xbf16>) -> (tensor<4x16x1x512xbf16>)
  %view_4 = tensor.expand_shape %rope_1 [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %scatter_cache_1 = "mla.scatter_cache"(%kr_cache, %slots, %view_4) {cache_mode = "PA_BSND"} : (tensor<4x16x1x64xbf16>, tensor<2xi64>, tensor<2x1x64xbf16>) -> (tensor<4x16x1x64xbf16>)
  return %head_matmul, %rope, %scatter_cache, %scatter_cache_1 : tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>
}


// -----

// BlockSize 64
// CHECK-LABEL: func.func @block_size_64
// CHECK-NOT: mla.prolog
// CHECK: "mla.scatter_cache"
ml_program.global private @"w_dq"(#ml_program.extern : tensor<7168x1536xbf16>) : tensor<7168x1536xbf16>
ml_program.global private @"gamma_cq"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"w_uq_qr"(#ml_program.extern : tensor<1536x384xbf16>) : tensor<1536x384xbf16>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<2x128x512xbf16>) : tensor<2x128x512xbf16>
ml_program.global private @"w_dkv_kr"(#ml_program.extern : tensor<7168x576xbf16>) : tensor<7168x576xbf16>
ml_program.global private @"gamma_ckv"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
func.func @block_size_64(
    %x: tensor<2x7168xbf16> {mla.name = "x"},
    %cos: tensor<2x64xbf16> {mla.name = "cos"},
    %sin: tensor<2x64xbf16> {mla.name = "sin"},
    %slots: tensor<2xi64> {mla.name = "slots"},
    %kv_cache: tensor<4x64x1x512xbf16> {mla.name = "kv_cache"},
    %kr_cache: tensor<4x64x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<4x64x1x512xbf16>, tensor<4x64x1x64xbf16>) {
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
  // expected-remark @+1 {{[MLA-099]}}
  %scatter_cache = "mla.scatter_cache"(%kv_cache, %slots, %view_3) {cache_mode = "PA_BSND"} : (tensor<4x64x1x512xbf16>, tensor<2xi64>, tensor<2x1x512xbf16>) -> (tensor<4x64x1x512xbf16>)
  %view_4 = tensor.expand_shape %rope_1 [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %scatter_cache_1 = "mla.scatter_cache"(%kr_cache, %slots, %view_4) {cache_mode = "PA_BSND"} : (tensor<4x64x1x64xbf16>, tensor<2xi64>, tensor<2x1x64xbf16>) -> (tensor<4x64x1x64xbf16>)
  return %head_matmul, %rope, %scatter_cache, %scatter_cache_1 : tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<4x64x1x512xbf16>, tensor<4x64x1x64xbf16>
}


// -----

// The query's RmsNorm result is also used (DeepSeek Sparse Attention's indexer reads it): not a
// refusal any more, mla.prolog_v3 gives it as query_norm (c_q rounded to bf16, the same value).
// CHECK-LABEL: func.func @c_q_escapes
// CHECK: %[[V3:.*]]:7 = "mla.prolog_v3"
// CHECK-SAME: query_norm_flag = true
// CHECK: return {{.*}}, %[[V3]]#3 : {{.*}}, tensor<2x1536xbf16>
ml_program.global private @"w_dq"(#ml_program.extern : tensor<7168x1536xbf16>) : tensor<7168x1536xbf16>
ml_program.global private @"gamma_cq"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"w_uq_qr"(#ml_program.extern : tensor<1536x384xbf16>) : tensor<1536x384xbf16>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<2x128x512xbf16>) : tensor<2x128x512xbf16>
ml_program.global private @"w_dkv_kr"(#ml_program.extern : tensor<7168x576xbf16>) : tensor<7168x576xbf16>
ml_program.global private @"gamma_ckv"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
func.func @c_q_escapes(
    %x: tensor<2x7168xbf16> {mla.name = "x"},
    %cos: tensor<2x64xbf16> {mla.name = "cos"},
    %sin: tensor<2x64xbf16> {mla.name = "sin"},
    %slots: tensor<2xi64> {mla.name = "slots"},
    %kv_cache: tensor<4x16x1x512xbf16> {mla.name = "kv_cache"},
    %kr_cache: tensor<4x16x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>, tensor<2x1536xbf16>) {
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
  %scatter_cache = "mla.scatter_cache"(%kv_cache, %slots, %view_3) {cache_mode = "PA_BSND"} : (tensor<4x16x1x512xbf16>, tensor<2xi64>, tensor<2x1x512xbf16>) -> (tensor<4x16x1x512xbf16>)
  %view_4 = tensor.expand_shape %rope_1 [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %scatter_cache_1 = "mla.scatter_cache"(%kr_cache, %slots, %view_4) {cache_mode = "PA_BSND"} : (tensor<4x16x1x64xbf16>, tensor<2xi64>, tensor<2x1x64xbf16>) -> (tensor<4x16x1x64xbf16>)
  return %head_matmul, %rope, %scatter_cache, %scatter_cache_1, %rms_norm : tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>, tensor<2x1536xbf16>
}


// -----

// No RmsNorm between the query's projections (DeepSeek-V2-Lite has no q_a_layernorm).
// CHECK-LABEL: func.func @no_query_lora
// CHECK-NOT: mla.prolog
ml_program.global private @"w_dq"(#ml_program.extern : tensor<7168x1536xbf16>) : tensor<7168x1536xbf16>
ml_program.global private @"w_uq_qr"(#ml_program.extern : tensor<1536x384xbf16>) : tensor<1536x384xbf16>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<2x128x512xbf16>) : tensor<2x128x512xbf16>
ml_program.global private @"w_dkv_kr"(#ml_program.extern : tensor<7168x576xbf16>) : tensor<7168x576xbf16>
ml_program.global private @"gamma_ckv"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
func.func @no_query_lora(
    %x: tensor<2x7168xbf16> {mla.name = "x"},
    %cos: tensor<2x64xbf16> {mla.name = "cos"},
    %sin: tensor<2x64xbf16> {mla.name = "sin"},
    %slots: tensor<2xi64> {mla.name = "slots"},
    %kv_cache: tensor<4x16x1x512xbf16> {mla.name = "kv_cache"},
    %kr_cache: tensor<4x16x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>) {
  %w_dq = ml_program.global_load_const @"w_dq" : tensor<7168x1536xbf16>
  %matmul = "mla.matmul"(%x, %w_dq) : (tensor<2x7168xbf16>, tensor<7168x1536xbf16>) -> (tensor<2x1536xbf16>)
  %w_uq_qr = ml_program.global_load_const @"w_uq_qr" : tensor<1536x384xbf16>
  %matmul_1 = "mla.matmul"(%matmul, %w_uq_qr) : (tensor<2x1536xbf16>, tensor<1536x384xbf16>) -> (tensor<2x384xbf16>)
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
  // expected-remark @+1 {{the key path of MLA is here but not the RmsNorm of the query down-projection; mla.prolog_v2 needs it [MLA-006]}}
  %scatter_cache = "mla.scatter_cache"(%kv_cache, %slots, %view_3) {cache_mode = "PA_BSND"} : (tensor<4x16x1x512xbf16>, tensor<2xi64>, tensor<2x1x512xbf16>) -> (tensor<4x16x1x512xbf16>)
  %view_4 = tensor.expand_shape %rope_1 [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %scatter_cache_1 = "mla.scatter_cache"(%kr_cache, %slots, %view_4) {cache_mode = "PA_BSND"} : (tensor<4x16x1x64xbf16>, tensor<2xi64>, tensor<2x1x64xbf16>) -> (tensor<4x16x1x64xbf16>)
  return %head_matmul, %rope, %scatter_cache, %scatter_cache_1 : tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>
}

// -----

// The graph rounds c_q to bf16 before its dynamic quant; mla.prolog_v2 (PQ) quantizes the
// float32 RmsNorm result (numerics.md 8): not the same computation.
// CHECK-LABEL: func.func @c_q_rounded_to_bf16
// CHECK-NOT: mla.prolog
ml_program.global private @"w_dq"(#ml_program.extern : tensor<7168x1536xbf16>) : tensor<7168x1536xbf16>
ml_program.global private @"gamma_cq"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"w_uq_qr"(#ml_program.extern : tensor<1536x384xi8>) : tensor<1536x384xi8>
ml_program.global private @"w_uq_qr_scale"(#ml_program.extern : tensor<384xf32>) : tensor<384xf32>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<2x128x512xbf16>) : tensor<2x128x512xbf16>
ml_program.global private @"w_dkv_kr"(#ml_program.extern : tensor<7168x576xbf16>) : tensor<7168x576xbf16>
ml_program.global private @"gamma_ckv"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
func.func @c_q_rounded_to_bf16(
    %x: tensor<2x7168xbf16> {mla.name = "x"},
    %cos: tensor<2x64xbf16> {mla.name = "cos"},
    %sin: tensor<2x64xbf16> {mla.name = "sin"},
    %slots: tensor<2xi64> {mla.name = "slots"},
    %kv_cache: tensor<4x16x1x512xbf16> {mla.name = "kv_cache"},
    %kr_cache: tensor<4x16x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>) {
  %w_dq = ml_program.global_load_const @"w_dq" : tensor<7168x1536xbf16>
  %matmul = "mla.matmul"(%x, %w_dq) : (tensor<2x7168xbf16>, tensor<7168x1536xbf16>) -> (tensor<2x1536xbf16>)
  %gamma_cq = ml_program.global_load_const @"gamma_cq" : tensor<1536xbf16>
  %rms_norm = "mla.rms_norm"(%matmul, %gamma_cq) : (tensor<2x1536xbf16>, tensor<1536xbf16>) -> (tensor<2x1536xbf16>)
  %dynamic_quant_y, %dynamic_quant_scale = "mla.dynamic_quant"(%rms_norm) {operandSegmentSizes = array<i32: 1, 0>} : (tensor<2x1536xbf16>) -> (tensor<2x1536xi8>, tensor<2xf32>)
  %w_uq_qr = ml_program.global_load_const @"w_uq_qr" : tensor<1536x384xi8>
  %w_uq_qr_scale = ml_program.global_load_const @"w_uq_qr_scale" : tensor<384xf32>
  %quant_matmul = "mla.quant_matmul"(%dynamic_quant_y, %w_uq_qr, %dynamic_quant_scale, %w_uq_qr_scale) : (tensor<2x1536xi8>, tensor<1536x384xi8>, tensor<2xf32>, tensor<384xf32>) -> (tensor<2x384xf32>)
  %view = tensor.expand_shape %quant_matmul [[0], [1, 2]] output_shape [2, 2, 192] : tensor<2x384xf32> into tensor<2x2x192xf32>
  %slice = tensor.extract_slice %view[0, 0, 0] [2, 2, 128] [1, 1, 1] : tensor<2x2x192xf32> to tensor<2x2x128xf32>
  %cast = arith.truncf %slice : tensor<2x2x128xf32> to tensor<2x2x128xbf16>
  %w_uk = ml_program.global_load_const @"w_uk" : tensor<2x128x512xbf16>
  %head_matmul = "mla.head_matmul"(%cast, %w_uk) : (tensor<2x2x128xbf16>, tensor<2x128x512xbf16>) -> (tensor<2x2x512xbf16>)
  %slice_1 = tensor.extract_slice %view[0, 0, 128] [2, 2, 64] [1, 1, 1] : tensor<2x2x192xf32> to tensor<2x2x64xf32>
  %view_1 = tensor.expand_shape %cos [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %view_2 = tensor.expand_shape %sin [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %rope = "mla.rope"(%slice_1, %view_1, %view_2) : (tensor<2x2x64xf32>, tensor<2x1x64xbf16>, tensor<2x1x64xbf16>) -> (tensor<2x2x64xbf16>)
  %w_dkv_kr = ml_program.global_load_const @"w_dkv_kr" : tensor<7168x576xbf16>
  %matmul_1 = "mla.matmul"(%x, %w_dkv_kr) : (tensor<2x7168xbf16>, tensor<7168x576xbf16>) -> (tensor<2x576xbf16>)
  %slice_2 = tensor.extract_slice %matmul_1[0, 0] [2, 512] [1, 1] : tensor<2x576xbf16> to tensor<2x512xbf16>
  %slice_3 = tensor.extract_slice %matmul_1[0, 512] [2, 64] [1, 1] : tensor<2x576xbf16> to tensor<2x64xbf16>
  %gamma_ckv = ml_program.global_load_const @"gamma_ckv" : tensor<512xbf16>
  %rms_norm_1 = "mla.rms_norm"(%slice_2, %gamma_ckv) : (tensor<2x512xbf16>, tensor<512xbf16>) -> (tensor<2x512xbf16>)
  %rope_1 = "mla.rope"(%slice_3, %cos, %sin) : (tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<2x64xbf16>) -> (tensor<2x64xbf16>)
  %view_3 = tensor.expand_shape %rms_norm_1 [[0], [1, 2]] output_shape [2, 1, 512] : tensor<2x512xbf16> into tensor<2x1x512xbf16>
  // expected-remark @+1 {{not fused: the graph rounds norm_cq to bf16 where mla.prolog_v2 (PQ-KVNQ) keeps f32 (docs/numerics.md, MLA prolog 2, 7, 8) [FUSE-001]}}
  %scatter_cache = "mla.scatter_cache"(%kv_cache, %slots, %view_3) {cache_mode = "PA_BSND"} : (tensor<4x16x1x512xbf16>, tensor<2xi64>, tensor<2x1x512xbf16>) -> (tensor<4x16x1x512xbf16>)
  %view_4 = tensor.expand_shape %rope_1 [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %scatter_cache_1 = "mla.scatter_cache"(%kr_cache, %slots, %view_4) {cache_mode = "PA_BSND"} : (tensor<4x16x1x64xbf16>, tensor<2xi64>, tensor<2x1x64xbf16>) -> (tensor<4x16x1x64xbf16>)
  return %head_matmul, %rope, %scatter_cache, %scatter_cache_1 : tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>
}


// -----

// One kr scale per token (64, 1) where mla.prolog_v2 takes one per channel (1, Dr): same size,
// another computation.
// CHECK-LABEL: func.func @per_token_kr_scale
// CHECK-NOT: mla.prolog
ml_program.global private @"w_dq"(#ml_program.extern : tensor<7168x1536xbf16>) : tensor<7168x1536xbf16>
ml_program.global private @"gamma_cq"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"w_uq_qr"(#ml_program.extern : tensor<1536x384xi8>) : tensor<1536x384xi8>
ml_program.global private @"w_uq_qr_scale"(#ml_program.extern : tensor<384xf32>) : tensor<384xf32>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<2x128x512xbf16>) : tensor<2x128x512xbf16>
ml_program.global private @"w_dkv_kr"(#ml_program.extern : tensor<7168x576xbf16>) : tensor<7168x576xbf16>
ml_program.global private @"gamma_ckv"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
ml_program.global private @"qs_ckv"(#ml_program.extern : tensor<1x512xf32>) : tensor<1x512xf32>
ml_program.global private @"qs_ckr"(#ml_program.extern : tensor<64x1xf32>) : tensor<64x1xf32>
func.func @per_token_kr_scale(
    %x: tensor<64x7168xbf16> {mla.name = "x"},
    %cos: tensor<64x64xbf16> {mla.name = "cos"},
    %sin: tensor<64x64xbf16> {mla.name = "sin"},
    %slots: tensor<64xi64> {mla.name = "slots"},
    %kv_cache: tensor<4x16x1x512xi8> {mla.name = "kv_cache"},
    %kr_cache: tensor<4x16x1x64xi8> {mla.name = "kr_cache"})
    -> (tensor<64x2x512xbf16>, tensor<64x2x64xbf16>, tensor<4x16x1x512xi8>, tensor<4x16x1x64xi8>) {
  %w_dq = ml_program.global_load_const @"w_dq" : tensor<7168x1536xbf16>
  %matmul = "mla.matmul"(%x, %w_dq) : (tensor<64x7168xbf16>, tensor<7168x1536xbf16>) -> (tensor<64x1536xbf16>)
  %gamma_cq = ml_program.global_load_const @"gamma_cq" : tensor<1536xbf16>
  %rms_norm = "mla.rms_norm"(%matmul, %gamma_cq) : (tensor<64x1536xbf16>, tensor<1536xbf16>) -> (tensor<64x1536xf32>)
  %dynamic_quant_y, %dynamic_quant_scale = "mla.dynamic_quant"(%rms_norm) {operandSegmentSizes = array<i32: 1, 0>} : (tensor<64x1536xf32>) -> (tensor<64x1536xi8>, tensor<64xf32>)
  %w_uq_qr = ml_program.global_load_const @"w_uq_qr" : tensor<1536x384xi8>
  %w_uq_qr_scale = ml_program.global_load_const @"w_uq_qr_scale" : tensor<384xf32>
  %quant_matmul = "mla.quant_matmul"(%dynamic_quant_y, %w_uq_qr, %dynamic_quant_scale, %w_uq_qr_scale) : (tensor<64x1536xi8>, tensor<1536x384xi8>, tensor<64xf32>, tensor<384xf32>) -> (tensor<64x384xf32>)
  %view = tensor.expand_shape %quant_matmul [[0], [1, 2]] output_shape [64, 2, 192] : tensor<64x384xf32> into tensor<64x2x192xf32>
  %slice = tensor.extract_slice %view[0, 0, 0] [64, 2, 128] [1, 1, 1] : tensor<64x2x192xf32> to tensor<64x2x128xf32>
  %cast = arith.truncf %slice : tensor<64x2x128xf32> to tensor<64x2x128xbf16>
  %w_uk = ml_program.global_load_const @"w_uk" : tensor<2x128x512xbf16>
  %head_matmul = "mla.head_matmul"(%cast, %w_uk) : (tensor<64x2x128xbf16>, tensor<2x128x512xbf16>) -> (tensor<64x2x512xbf16>)
  %slice_1 = tensor.extract_slice %view[0, 0, 128] [64, 2, 64] [1, 1, 1] : tensor<64x2x192xf32> to tensor<64x2x64xf32>
  %view_1 = tensor.expand_shape %cos [[0], [1, 2]] output_shape [64, 1, 64] : tensor<64x64xbf16> into tensor<64x1x64xbf16>
  %view_2 = tensor.expand_shape %sin [[0], [1, 2]] output_shape [64, 1, 64] : tensor<64x64xbf16> into tensor<64x1x64xbf16>
  %rope = "mla.rope"(%slice_1, %view_1, %view_2) : (tensor<64x2x64xf32>, tensor<64x1x64xbf16>, tensor<64x1x64xbf16>) -> (tensor<64x2x64xbf16>)
  %w_dkv_kr = ml_program.global_load_const @"w_dkv_kr" : tensor<7168x576xbf16>
  %matmul_1 = "mla.matmul"(%x, %w_dkv_kr) : (tensor<64x7168xbf16>, tensor<7168x576xbf16>) -> (tensor<64x576xbf16>)
  %slice_2 = tensor.extract_slice %matmul_1[0, 0] [64, 512] [1, 1] : tensor<64x576xbf16> to tensor<64x512xbf16>
  %slice_3 = tensor.extract_slice %matmul_1[0, 512] [64, 64] [1, 1] : tensor<64x576xbf16> to tensor<64x64xbf16>
  %gamma_ckv = ml_program.global_load_const @"gamma_ckv" : tensor<512xbf16>
  %rms_norm_1 = "mla.rms_norm"(%slice_2, %gamma_ckv) : (tensor<64x512xbf16>, tensor<512xbf16>) -> (tensor<64x512xf32>)
  %rope_1 = "mla.rope"(%slice_3, %cos, %sin) : (tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>) -> (tensor<64x64xbf16>)
  %qs_ckv = ml_program.global_load_const @"qs_ckv" : tensor<1x512xf32>
  %quantize = "mla.quantize"(%rms_norm_1, %qs_ckv) : (tensor<64x512xf32>, tensor<1x512xf32>) -> (tensor<64x512xi8>)
  %qs_ckr = ml_program.global_load_const @"qs_ckr" : tensor<64x1xf32>
  %quantize_1 = "mla.quantize"(%rope_1, %qs_ckr) : (tensor<64x64xbf16>, tensor<64x1xf32>) -> (tensor<64x64xi8>)
  %view_3 = tensor.expand_shape %quantize [[0], [1, 2]] output_shape [64, 1, 512] : tensor<64x512xi8> into tensor<64x1x512xi8>
  // expected-remark @+1 {{not fused: the kr cache's quant scale (64, 1) is not one factor per channel [FUSE-001]}}
  %scatter_cache = "mla.scatter_cache"(%kv_cache, %slots, %view_3) {cache_mode = "PA_BSND"} : (tensor<4x16x1x512xi8>, tensor<64xi64>, tensor<64x1x512xi8>) -> (tensor<4x16x1x512xi8>)
  %view_4 = tensor.expand_shape %quantize_1 [[0], [1, 2]] output_shape [64, 1, 64] : tensor<64x64xi8> into tensor<64x1x64xi8>
  %scatter_cache_1 = "mla.scatter_cache"(%kr_cache, %slots, %view_4) {cache_mode = "PA_BSND"} : (tensor<4x16x1x64xi8>, tensor<64xi64>, tensor<64x1x64xi8>) -> (tensor<4x16x1x64xi8>)
  return %head_matmul, %rope, %scatter_cache, %scatter_cache_1 : tensor<64x2x512xbf16>, tensor<64x2x64xbf16>, tensor<4x16x1x512xi8>, tensor<4x16x1x64xi8>
}


// RUN: mla-opt %s --fuse-prolog --verify-diagnostics | FileCheck %s

// Caches whose block count is dynamic (?x16x1x512): the MLA pre-processing graph is all there,
// but mla.prolog_v2's rules and its aclnn call take static shapes. fuse-prolog refuses with a
// remark naming FUSE-004 at the kv cache store and leaves every primitive op as it is (it once
// dropped this refusal and failed with a Python TypeError while building the fused op).

// CHECK-LABEL: func.func @dynamic_caches
// CHECK-NOT: mla.prolog
// CHECK: "mla.scatter_cache"
// CHECK: "mla.scatter_cache"
ml_program.global private @"w_dq"(#ml_program.extern : tensor<7168x1536xbf16>) : tensor<7168x1536xbf16>
ml_program.global private @"gamma_cq"(#ml_program.extern : tensor<1536xbf16>) : tensor<1536xbf16>
ml_program.global private @"w_uq_qr"(#ml_program.extern : tensor<1536x384xbf16>) : tensor<1536x384xbf16>
ml_program.global private @"w_uk"(#ml_program.extern : tensor<2x128x512xbf16>) : tensor<2x128x512xbf16>
ml_program.global private @"w_dkv_kr"(#ml_program.extern : tensor<7168x576xbf16>) : tensor<7168x576xbf16>
ml_program.global private @"gamma_ckv"(#ml_program.extern : tensor<512xbf16>) : tensor<512xbf16>
func.func @dynamic_caches(
    %x: tensor<2x7168xbf16> {mla.name = "x"},
    %cos: tensor<2x64xbf16> {mla.name = "cos"},
    %sin: tensor<2x64xbf16> {mla.name = "sin"},
    %slots: tensor<2xi64> {mla.name = "slots"},
    %kv_cache: tensor<?x16x1x512xbf16> {mla.name = "kv_cache"},
    %kr_cache: tensor<?x16x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<?x16x1x512xbf16>, tensor<?x16x1x64xbf16>) {
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
  // expected-remark @+1 {{fuse-prolog: not fused: dynamic shapes: mla.prolog_v2's rules and call take static ones [FUSE-004]}}
  %scatter_cache = "mla.scatter_cache"(%kv_cache, %slots, %view_3) {cache_mode = "PA_BSND"} : (tensor<?x16x1x512xbf16>, tensor<2xi64>, tensor<2x1x512xbf16>) -> (tensor<?x16x1x512xbf16>)
  %view_4 = tensor.expand_shape %rope_1 [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xbf16> into tensor<2x1x64xbf16>
  %scatter_cache_1 = "mla.scatter_cache"(%kr_cache, %slots, %view_4) {cache_mode = "PA_BSND"} : (tensor<?x16x1x64xbf16>, tensor<2xi64>, tensor<2x1x64xbf16>) -> (tensor<?x16x1x64xbf16>)
  return %head_matmul, %rope, %scatter_cache, %scatter_cache_1 : tensor<2x2x512xbf16>, tensor<2x2x64xbf16>, tensor<?x16x1x512xbf16>, tensor<?x16x1x64xbf16>
}

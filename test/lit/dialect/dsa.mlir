// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid DeepSeek Sparse Attention ops, one configuration per split: the forms vLLM-Ascend calls
// (TND queries with cumulative lengths, PA_BSND caches of block 128, sparse_count 2048,
// sparse_mode 3, attention_mode 2), the BSND forms with defaulted attributes, the quantized
// variants, prolog_v3's scenarios, a profile given as a module attribute, dynamic dimensions.

// The indexer as vLLM-Ascend calls it: 4 tokens of 2 batches, 64 heads of 128, 4 blocks of 128.
// CHECK-LABEL: func.func @li_vllm
// CHECK: "mla.lightning_indexer"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5) {layout_key = "PA_BSND", layout_query = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>, sparse_count = 2048 : i64, sparse_mode = 3 : i64}
// CHECK-SAME: -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
func.func @li_vllm(%q: tensor<4x64x128xbf16>, %k: tensor<4x128x1x128xbf16>, %w: tensor<4x64xbf16>, %aq: tensor<2xi32>, %ak: tensor<2xi32>, %bt: tensor<2x2xi32>) -> tensor<4x1x2048xi32> {
  %0:2 = "mla.lightning_indexer"(%q, %k, %w, %aq, %ak, %bt) {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048, sparse_mode = 3, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<4x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<4x1x2048xi32>, tensor<0xbf16>)
  return %0#0 : tensor<4x1x2048xi32>
}

// -----

// BSND query and key, fp32 weights, sparse_mode 0, the values returned, sparse_count 4096 (2026).
// CHECK-LABEL: func.func @li_bsnd_values
// CHECK: "mla.lightning_indexer"(%arg0, %arg1, %arg2) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>, return_value = true, sparse_count = 4096 : i64, sparse_mode = 0 : i64}
// CHECK-SAME: -> (tensor<2x3x1x4096xi32>, tensor<2x3x1x4096xf16>)
func.func @li_bsnd_values(%q: tensor<2x3x8x128xf16>, %k: tensor<2x5000x1x128xf16>, %w: tensor<2x3x8xf32>) -> (tensor<2x3x1x4096xi32>, tensor<2x3x1x4096xf16>) {
  %0:2 = "mla.lightning_indexer"(%q, %k, %w) {sparse_count = 4096, sparse_mode = 0, return_value = true, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>} : (tensor<2x3x8x128xf16>, tensor<2x5000x1x128xf16>, tensor<2x3x8xf32>) -> (tensor<2x3x1x4096xi32>, tensor<2x3x1x4096xf16>)
  return %0#0, %0#1 : tensor<2x3x1x4096xi32>, tensor<2x3x1x4096xf16>
}

// -----

// Dynamic token count: the rules that read it hold until it is known.
// CHECK-LABEL: func.func @li_dynamic
// CHECK: -> (tensor<?x1x2048xi32>, tensor<0xbf16>)
func.func @li_dynamic(%q: tensor<?x64x128xbf16>, %k: tensor<4x128x1x128xbf16>, %w: tensor<?x64xbf16>, %aq: tensor<2xi32>, %ak: tensor<2xi32>, %bt: tensor<2x2xi32>) -> tensor<?x1x2048xi32> {
  %0:2 = "mla.lightning_indexer"(%q, %k, %w, %aq, %ak, %bt) {layout_query = "TND", layout_key = "PA_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>} : (tensor<?x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<?x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<?x1x2048xi32>, tensor<0xbf16>)
  return %0#0 : tensor<?x1x2048xi32>
}

// -----

// The quantized indexer ("LI C8"): int8 q/k, fp16 weights and scales, the key scale cache.
// CHECK-LABEL: func.func @qli_vllm
// CHECK: "mla.quant_lightning_indexer"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7) {key_quant_mode = 0 : i64, layout_key = "PA_BSND", layout_query = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>, query_quant_mode = 0 : i64}
// CHECK-SAME: -> tensor<4x1x2048xi32>
func.func @qli_vllm(%q: tensor<4x64x128xi8>, %k: tensor<4x128x1x128xi8>, %w: tensor<4x64xf16>, %qs: tensor<4x64xf16>, %ks: tensor<4x128x1xf16>, %aq: tensor<2xi32>, %ak: tensor<2xi32>, %bt: tensor<2x2xi32>) -> tensor<4x1x2048xi32> {
  %0 = "mla.quant_lightning_indexer"(%q, %k, %w, %qs, %ks, %aq, %ak, %bt) {query_quant_mode = 0, key_quant_mode = 0, layout_query = "TND", layout_key = "PA_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x64x128xi8>, tensor<4x128x1x128xi8>, tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x128x1xf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<4x1x2048xi32>
  return %0 : tensor<4x1x2048xi32>
}

// -----

// Sparse flash attention as vLLM-Ascend calls it: value is the key (one SSA value).
// CHECK-LABEL: func.func @sfa_vllm
// CHECK: "mla.sparse_flash_attention"(%arg0, %arg1, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7) {attention_mode = 2 : i64, layout_kv = "PA_BSND", layout_query = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>, scale_value = 4.160000e-02 : f64, sparse_mode = 3 : i64}
// CHECK-SAME: -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
func.func @sfa_vllm(%q: tensor<4x64x512xbf16>, %k: tensor<4x128x1x512xbf16>, %idx: tensor<4x1x2048xi32>, %bt: tensor<2x2xi32>, %aq: tensor<2xi32>, %ak: tensor<2xi32>, %qr: tensor<4x64x64xbf16>, %kr: tensor<4x128x1x64xbf16>) -> tensor<4x64x512xbf16> {
  %0:3 = "mla.sparse_flash_attention"(%q, %k, %k, %idx, %bt, %aq, %ak, %qr, %kr) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3, attention_mode = 2, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>} : (tensor<4x64x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x64x64xbf16>, tensor<4x128x1x64xbf16>) -> (tensor<4x64x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return %0#0 : tensor<4x64x512xbf16>
}

// -----

// BSND with softmax lse (B, N2, S1, G) and sparse blocks of 4.
// CHECK-LABEL: func.func @sfa_bsnd_lse
// CHECK: "mla.sparse_flash_attention"(%arg0, %arg1, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: return_softmax_lse = true, scale_value = 1.250000e-01 : f64, sparse_block_size = 4 : i64
// CHECK-SAME: -> (tensor<2x3x16x512xf16>, tensor<2x1x3x16xf32>, tensor<2x1x3x16xf32>)
func.func @sfa_bsnd_lse(%q: tensor<2x3x16x512xf16>, %k: tensor<2x40x1x512xf16>, %idx: tensor<2x3x1x8xi32>, %qr: tensor<2x3x16x64xf16>, %kr: tensor<2x40x1x64xf16>) -> (tensor<2x3x16x512xf16>, tensor<2x1x3x16xf32>, tensor<2x1x3x16xf32>) {
  %0:3 = "mla.sparse_flash_attention"(%q, %k, %k, %idx, %qr, %kr) {scale_value = 0.125 : f64, sparse_block_size = 4, attention_mode = 2, return_softmax_lse = true, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 1, 1, 0>} : (tensor<2x3x16x512xf16>, tensor<2x40x1x512xf16>, tensor<2x40x1x512xf16>, tensor<2x3x1x8xi32>, tensor<2x3x16x64xf16>, tensor<2x40x1x64xf16>) -> (tensor<2x3x16x512xf16>, tensor<2x1x3x16xf32>, tensor<2x1x3x16xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3x16x512xf16>, tensor<2x1x3x16xf32>, tensor<2x1x3x16xf32>
}

// -----

// V2's sinks on Ascend 950: the module names the product's profile.
// CHECK: module attributes {mla.profile = "ASCEND950"}
// CHECK-LABEL: func.func @sfa_sinks_950
// CHECK: "mla.sparse_flash_attention"(%arg0, %arg1, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8)
module attributes {mla.profile = "ASCEND950"} {
  func.func @sfa_sinks_950(%q: tensor<4x24x512xbf16>, %k: tensor<4x128x1x512xbf16>, %idx: tensor<4x1x2048xi32>, %bt: tensor<2x2xi32>, %aq: tensor<2xi32>, %ak: tensor<2xi32>, %qr: tensor<4x24x64xbf16>, %kr: tensor<4x128x1x64xbf16>, %sinks: tensor<24xf32>) -> tensor<4x24x512xbf16> {
    %0:3 = "mla.sparse_flash_attention"(%q, %k, %k, %idx, %bt, %aq, %ak, %qr, %kr, %sinks) {scale_value = 0.0416 : f64, layout_query = "TND", layout_kv = "PA_BSND", attention_mode = 2, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<4x24x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<4x24x64xbf16>, tensor<4x128x1x64xbf16>, tensor<24xf32>) -> (tensor<4x24x512xbf16>, tensor<0xf32>, tensor<0xf32>)
    return %0#0 : tensor<4x24x512xbf16>
  }
}

// -----

// The KV-quantized sparse attention over packed 656-byte rows (vLLM-Ascend's C8 call).
// CHECK-LABEL: func.func @kqsfa_vllm
// CHECK: "mla.kv_quant_sparse_flash_attention"(%arg0, %arg1, %arg1, %arg2, %arg3, %arg4, %arg5)
// CHECK-SAME: -> tensor<4x64x512xbf16>
func.func @kqsfa_vllm(%q: tensor<4x64x576xbf16>, %k: tensor<4x128x1x656xi8>, %idx: tensor<4x1x2048xi32>, %bt: tensor<2x2xi32>, %aq: tensor<2xi32>, %ak: tensor<2xi32>) -> tensor<4x64x512xbf16> {
  %0 = "mla.kv_quant_sparse_flash_attention"(%q, %k, %k, %idx, %bt, %aq, %ak) {scale_value = 0.0416 : f64, key_quant_mode = 2, value_quant_mode = 2, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3, attention_mode = 2, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 1, 1, 1, 0>} : (tensor<4x64x576xbf16>, tensor<4x128x1x656xi8>, tensor<4x128x1x656xi8>, tensor<4x1x2048xi32>, tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<4x64x512xbf16>
  return %0 : tensor<4x64x512xbf16>
}

// -----

// prolog_v3 with query_norm: DeepSeek-V3's dims, 16 heads (tp 8), BS-merged tokens, PA_BSND.
// CHECK-LABEL: func.func @pv3_query_norm
// CHECK: %{{.*}}:7 = "mla.prolog_v3"
// CHECK-SAME: query_norm_flag = true
// CHECK-SAME: -> (tensor<4x16x512xbf16>, tensor<4x16x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<4x128x1x512xbf16>, tensor<4x128x1x64xbf16>)
func.func @pv3_query_norm(%x: tensor<4x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuq: tensor<1536x3072xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<16x128x512xbf16>, %wdkv: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gq: tensor<1536xbf16>, %gkv: tensor<512xbf16>, %sin: tensor<4x64xbf16>, %cos: tensor<4x64xbf16>, %kv: tensor<4x128x1x512xbf16>, %kr: tensor<4x128x1x64xbf16>, %ci: tensor<4xi64>) -> tensor<4x1536xbf16> {
  %0:7 = "mla.prolog_v3"(%x, %wdq, %wuq, %wuk, %wdkv, %gq, %gkv, %sin, %cos, %kv, %kr, %ci) {query_norm_flag = true, rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, operandSegmentSizes = array<i32: 1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0>} : (tensor<4x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x3072xbf16, #mla.format<"FRACTAL_NZ">>, tensor<16x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x64xbf16>, tensor<4xi64>) -> (tensor<4x16x512xbf16>, tensor<4x16x64xbf16>, tensor<0xf32>, tensor<4x1536xbf16>, tensor<0xf32>, tensor<4x128x1x512xbf16>, tensor<4x128x1x64xbf16>)
  return %0#3 : tensor<4x1536xbf16>
}

// -----

// prolog_v3 with the per-tile packed cache (1, 3, 0): int8 W_uq_qr, 656-byte rows, an empty
// kr_cache, k_nope_clip_alpha; query_norm int8 with its per-token scale.
// CHECK-LABEL: func.func @pv3_c8
// CHECK: %{{.*}}:7 = "mla.prolog_v3"
// CHECK-SAME: ckvkr_repo_mode = 1 : i64, kv_cache_quant_mode = 3 : i64
// CHECK-SAME: quant_scale_repo_mode = 1 : i64, query_norm_flag = true, weight_quant_mode = 1 : i64
// CHECK-SAME: -> (tensor<4x16x512xbf16>, tensor<4x16x64xbf16>, tensor<0xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<4x128x1x656xi8>, tensor<0xbf16>)
func.func @pv3_c8(%x: tensor<4x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuq: tensor<1536x3072xi8, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<16x128x512xbf16>, %wdkv: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gq: tensor<1536xbf16>, %gkv: tensor<512xbf16>, %sin: tensor<4x64xbf16>, %cos: tensor<4x64xbf16>, %kv: tensor<4x128x1x656xi8>, %kr: tensor<0xbf16>, %ci: tensor<4xi64>, %suq: tensor<1x3072xf32>, %clip: tensor<1xf32>) -> tensor<4x1536xi8> {
  %0:7 = "mla.prolog_v3"(%x, %wdq, %wuq, %wuk, %wdkv, %gq, %gkv, %sin, %cos, %kv, %kr, %ci, %suq, %clip) {query_norm_flag = true, weight_quant_mode = 1, kv_cache_quant_mode = 3, ckvkr_repo_mode = 1, quant_scale_repo_mode = 1, operandSegmentSizes = array<i32: 1,1,1,1,1,1,1,1,1,1,1,1,0,0,1,0,0,0,0,0,1>} : (tensor<4x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x3072xi8, #mla.format<"FRACTAL_NZ">>, tensor<16x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<4x128x1x656xi8>, tensor<0xbf16>, tensor<4xi64>, tensor<1x3072xf32>, tensor<1xf32>) -> (tensor<4x16x512xbf16>, tensor<4x16x64xbf16>, tensor<0xf32>, tensor<4x1536xi8>, tensor<4x1xf32>, tensor<4x128x1x656xi8>, tensor<0xbf16>)
  return %0#3 : tensor<4x1536xi8>
}

// -----

// prolog_v3 unmerged into BSND caches (no cache_index), without query_norm.
// CHECK-LABEL: func.func @pv3_bsnd
// CHECK: cache_mode = "BSND"
// CHECK-SAME: -> (tensor<2x2x16x512xbf16>, tensor<2x2x16x64xbf16>, tensor<0xf32>, tensor<0xbf16>, tensor<0xf32>, tensor<2x2x1x512xbf16>, tensor<2x2x1x64xbf16>)
func.func @pv3_bsnd(%x: tensor<2x2x7168xbf16>, %wdq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, %wuq: tensor<1536x3072xbf16, #mla.format<"FRACTAL_NZ">>, %wuk: tensor<16x128x512xbf16>, %wdkv: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, %gq: tensor<1536xbf16>, %gkv: tensor<512xbf16>, %sin: tensor<2x2x64xbf16>, %cos: tensor<2x2x64xbf16>, %kv: tensor<2x2x1x512xbf16>, %kr: tensor<2x2x1x64xbf16>) -> tensor<2x2x16x512xbf16> {
  %0:7 = "mla.prolog_v3"(%x, %wdq, %wuq, %wuk, %wdkv, %gq, %gkv, %sin, %cos, %kv, %kr) {cache_mode = "BSND", operandSegmentSizes = array<i32: 1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0>} : (tensor<2x2x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536x3072xbf16, #mla.format<"FRACTAL_NZ">>, tensor<16x128x512xbf16>, tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>, tensor<2x2x64xbf16>, tensor<2x2x64xbf16>, tensor<2x2x1x512xbf16>, tensor<2x2x1x64xbf16>) -> (tensor<2x2x16x512xbf16>, tensor<2x2x16x64xbf16>, tensor<0xf32>, tensor<0xbf16>, tensor<0xf32>, tensor<2x2x1x512xbf16>, tensor<2x2x1x64xbf16>)
  return %0#0 : tensor<2x2x16x512xbf16>
}

// RUN: mla-opt %s --split-input-file --fuse-attention --cleanup | FileCheck %s

// fuse-attention: attention primitives -> mla.fused_infer_attention_score. Paged attention over
// the latent cache with a rope part is FIA's MLA mode (key = value = the latent cache); the kv
// lengths become the host-tensor operand actual_seq_kvlen (the last operand segment); more
// than one query row is causal: sparse_mode 3 with the 2048 x 2048 mask template.
// CHECK-LABEL: func.func @mla_decode
// CHECK:  %[[O:.*]]:2 = "mla.fused_infer_attention_score"(%arg0, %arg1, %arg1, %arg2, %arg4, %arg5, %arg3)
// CHECK-SAME: block_size = 16 : i64, input_layout = "BSND", num_heads = 8 : i64, num_key_value_heads = 1 : i64
// CHECK-SAME: 1, 1, 0, 0, 1>
// CHECK-NOT: sparse_mode
// CHECK:  return %[[O]]#0
func.func @mla_decode(
    %q: tensor<2x1x8x512xbf16> {mla.name = "q"},
    %kv_cache: tensor<6x16x1x512xbf16> {mla.name = "kv_cache"},
    %block_table: tensor<2x3xi32> {mla.name = "block_table"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"},
    %q_rope: tensor<2x1x8x64xbf16> {mla.name = "q_rope"},
    %kr_cache: tensor<6x16x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<2x1x8x512xbf16>) {
  %paged_attention = "mla.paged_attention"(%q, %kv_cache, %kv_cache, %block_table, %seq_lengths, %q_rope, %kr_cache) {scale_value = 0.1 : f64, cache_mode = "PA_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x1x8x512xbf16>, tensor<6x16x1x512xbf16>, tensor<6x16x1x512xbf16>, tensor<2x3xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<6x16x1x64xbf16>) -> (tensor<2x1x8x512xbf16>)
  return %paged_attention : tensor<2x1x8x512xbf16>
}

// -----

// A PA_NZ cache is read as the FRACTAL_NZ tensor its memory is (mla.nz_cache_view).
// CHECK-LABEL: func.func @mla_mtp_nz
// CHECK:  %[[KV:.*]] = "mla.nz_cache_view"(%arg1) {{.*}} -> tensor<6x16x512xbf16, #mla.format<"FRACTAL_NZ">>
// CHECK:  %[[KR:.*]] = "mla.nz_cache_view"(%arg5)
// CHECK:  %[[M:.*]] = "mla.causal_mask"() : () -> tensor<2048x2048xi8>
// CHECK:  "mla.fused_infer_attention_score"(%arg0, %[[KV]], %[[KV]], %[[M]], %arg2, %arg4, %[[KR]], %arg3)
// CHECK-SAME: sparse_mode = 3 : i64
func.func @mla_mtp_nz(
    %q: tensor<2x4x8x512xbf16> {mla.name = "q"},
    %kv_cache: tensor<6x16x1x512xbf16> {mla.name = "kv_cache"},
    %block_table: tensor<2x3xi32> {mla.name = "block_table"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"},
    %q_rope: tensor<2x4x8x64xbf16> {mla.name = "q_rope"},
    %kr_cache: tensor<6x16x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<2x4x8x512xbf16>) {
  %paged_attention = "mla.paged_attention"(%q, %kv_cache, %kv_cache, %block_table, %seq_lengths, %q_rope, %kr_cache) {scale_value = 0.1 : f64, cache_mode = "PA_NZ", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<2x4x8x512xbf16>, tensor<6x16x1x512xbf16>, tensor<6x16x1x512xbf16>, tensor<2x3xi32>, tensor<2xi64>, tensor<2x4x8x64xbf16>, tensor<6x16x1x64xbf16>) -> (tensor<2x4x8x512xbf16>)
  return %paged_attention : tensor<2x4x8x512xbf16>
}

// -----

// Without a rope part: FIA page attention over (BlockNum, BlockSize, Nkv*D) caches.
// CHECK-LABEL: func.func @gqa_paged
// CHECK:  %[[K:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0], [1], [2, 3]] : tensor<6x16x2x128xbf16> into tensor<6x16x256xbf16>
// CHECK:  %[[V:.*]] = tensor.collapse_shape %arg2
// CHECK:  "mla.fused_infer_attention_score"(%arg0, %[[K]], %[[V]], %arg3, %arg4)
// CHECK-SAME: num_key_value_heads = 2 : i64
func.func @gqa_paged(
    %q: tensor<2x1x8x128xbf16> {mla.name = "q"},
    %k_cache: tensor<6x16x2x128xbf16> {mla.name = "k_cache"},
    %v_cache: tensor<6x16x2x128xbf16> {mla.name = "v_cache"},
    %block_table: tensor<2x3xi32> {mla.name = "block_table"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"})
    -> (tensor<2x1x8x128xbf16>) {
  %paged_attention = "mla.paged_attention"(%q, %k_cache, %v_cache, %block_table, %seq_lengths) {scale_value = 0.1 : f64, cache_mode = "PA_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>} : (tensor<2x1x8x128xbf16>, tensor<6x16x2x128xbf16>, tensor<6x16x2x128xbf16>, tensor<2x3xi32>, tensor<2xi64>) -> (tensor<2x1x8x128xbf16>)
  return %paged_attention : tensor<2x1x8x128xbf16>
}

// -----

// CHECK-LABEL: func.func @dense_causal
// CHECK:  %[[M:.*]] = "mla.causal_mask"()
// CHECK:  "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %[[M]])
// CHECK-SAME: sparse_mode = 3
func.func @dense_causal(
    %q: tensor<2x4x8x64xbf16> {mla.name = "q"},
    %k: tensor<2x4x2x64xbf16> {mla.name = "k"},
    %v: tensor<2x4x2x64xbf16> {mla.name = "v"})
    -> (tensor<2x4x8x64xbf16>) {
  %attention = "mla.attention"(%q, %k, %v) {scale_value = 0.125 : f64, causal = true, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4x8x64xbf16>, tensor<2x4x2x64xbf16>, tensor<2x4x2x64xbf16>) -> (tensor<2x4x8x64xbf16>)
  return %attention : tensor<2x4x8x64xbf16>
}

// -----

// CHECK-LABEL: func.func @dense_mask
// CHECK:  "mla.fused_infer_attention_score"(%arg0, %arg1, %arg2, %arg3)
// CHECK-NOT: sparse_mode
func.func @dense_mask(
    %q: tensor<2x4x8x64xbf16> {mla.name = "q"},
    %k: tensor<2x4x2x64xbf16> {mla.name = "k"},
    %v: tensor<2x4x2x64xbf16> {mla.name = "v"},
    %mask: tensor<4x4xi8> {mla.name = "mask"})
    -> (tensor<2x4x8x64xbf16>) {
  %attention = "mla.attention"(%q, %k, %v, %mask) {scale_value = 0.125 : f64, causal = false, operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<2x4x8x64xbf16>, tensor<2x4x2x64xbf16>, tensor<2x4x2x64xbf16>, tensor<4x4xi8>) -> (tensor<2x4x8x64xbf16>)
  return %attention : tensor<2x4x8x64xbf16>
}

// -----

// An int8 query and latent cache (mla.prolog_v2's FQ-KVQ outputs) over PA_NZ caches with block
// size 128: FIA's MLA full-quant mode. The (B, S, N, 1) query scale becomes the op's (B, S, N)
// dequant_scale_query, the one-element kv scale the (1,) key and value antiquant scales (one
// reshape for both), query_quant_mode 3.
// CHECK-LABEL: func.func @mla_full_quant
// CHECK:  %[[KV:.*]] = "mla.nz_cache_view"(%arg1) {{.*}} -> tensor<4x128x512xi8, #mla.format<"FRACTAL_NZ">>
// CHECK:  %[[KR:.*]] = "mla.nz_cache_view"(%arg5) {{.*}} -> tensor<4x128x64xbf16, #mla.format<"FRACTAL_NZ">>
// CHECK:  %[[QS:.*]] = tensor.collapse_shape %arg6 {{\[\[}}0], [1], [2, 3]] : tensor<2x1x8x1xf32> into tensor<2x1x8xf32>
// CHECK:  %[[KS:.*]] = tensor.collapse_shape %arg7 {{\[\[}}0, 1]] : tensor<1x1xf32> into tensor<1xf32>
// CHECK:  %[[O:.*]]:2 = "mla.fused_infer_attention_score"(%arg0, %[[KV]], %[[KV]], %arg2, %[[KS]], %[[KS]], %arg4, %[[KR]], %[[QS]], %arg3)
// CHECK-SAME: block_size = 128 : i64, input_layout = "BSND", num_heads = 8 : i64, num_key_value_heads = 1 : i64
// CHECK-SAME: query_quant_mode = 3 : i64
// CHECK-NOT: sparse_mode
// CHECK-SAME: -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
// CHECK:  return %[[O]]#0
func.func @mla_full_quant(
    %q: tensor<2x1x8x512xi8> {mla.name = "q"},
    %kv_cache: tensor<4x128x1x512xi8> {mla.name = "kv_cache"},
    %block_table: tensor<2x2xi32> {mla.name = "block_table"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"},
    %q_rope: tensor<2x1x8x64xbf16> {mla.name = "q_rope"},
    %kr_cache: tensor<4x128x1x64xbf16> {mla.name = "kr_cache"},
    %q_scale: tensor<2x1x8x1xf32> {mla.name = "q_scale"},
    %kv_scale: tensor<1x1xf32> {mla.name = "kv_scale"})
    -> (tensor<2x1x8x512xbf16>) {
  %paged_attention = "mla.paged_attention"(%q, %kv_cache, %kv_cache, %block_table, %seq_lengths, %q_rope, %kr_cache, %q_scale, %kv_scale) {scale_value = 0.1 : f64, cache_mode = "PA_NZ", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<2x1x8x512xi8>, tensor<4x128x1x512xi8>, tensor<4x128x1x512xi8>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<4x128x1x64xbf16>, tensor<2x1x8x1xf32>, tensor<1x1xf32>) -> (tensor<2x1x8x512xbf16>)
  return %paged_attention : tensor<2x1x8x512xbf16>
}

// -----

// A scalar kv scale (the primitive takes any one-element tensor) is expanded to (1,).
// CHECK-LABEL: func.func @mla_full_quant_scalar_scale
// CHECK:  %[[KS:.*]] = tensor.expand_shape %arg7 [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK:  "mla.fused_infer_attention_score"({{.*}}, %[[KS]], %[[KS]],
func.func @mla_full_quant_scalar_scale(
    %q: tensor<2x1x8x512xi8> {mla.name = "q"},
    %kv_cache: tensor<4x128x1x512xi8> {mla.name = "kv_cache"},
    %block_table: tensor<2x2xi32> {mla.name = "block_table"},
    %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"},
    %q_rope: tensor<2x1x8x64xbf16> {mla.name = "q_rope"},
    %kr_cache: tensor<4x128x1x64xbf16> {mla.name = "kr_cache"},
    %q_scale: tensor<2x1x8x1xf32> {mla.name = "q_scale"},
    %kv_scale: tensor<f32> {mla.name = "kv_scale"})
    -> (tensor<2x1x8x512xbf16>) {
  %paged_attention = "mla.paged_attention"(%q, %kv_cache, %kv_cache, %block_table, %seq_lengths, %q_rope, %kr_cache, %q_scale, %kv_scale) {scale_value = 0.1 : f64, cache_mode = "PA_NZ", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>} : (tensor<2x1x8x512xi8>, tensor<4x128x1x512xi8>, tensor<4x128x1x512xi8>, tensor<2x2xi32>, tensor<2xi64>, tensor<2x1x8x64xbf16>, tensor<4x128x1x64xbf16>, tensor<2x1x8x1xf32>, tensor<f32>) -> (tensor<2x1x8x512xbf16>)
  return %paged_attention : tensor<2x1x8x512xbf16>
}

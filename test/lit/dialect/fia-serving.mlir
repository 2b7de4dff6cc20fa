// RUN: mla-opt %s --split-input-file | FileCheck %s
// RUN: mla-opt %s --split-input-file --lower-to-aclnn | FileCheck %s --check-prefix=LOWER
// mla.fused_infer_attention_score as serving engines call it (vLLM-Ascend's MLA backend): the NBSD
// outputs, NZ caches, the MLA prefill without page attention, float16 TND page attention.
// docs/attention.md "Serving clients".

// The real layouts reach the kernel calls (V3 in MLA mode, V4 for the full-quant mode):
// LOWER: aclnn.string"() {value = "BNSD_NBSD"}
// LOWER: callee = "aclnnFusedInferAttentionScoreV3GetWorkspaceSize"
// LOWER: aclnn.string"() {value = "BSND_NBSD"}
// LOWER: callee = "aclnnFusedInferAttentionScoreV3GetWorkspaceSize"
// LOWER: aclnn.string"() {value = "BSND_NBSD"}
// LOWER: callee = "aclnnFusedInferAttentionScoreV4GetWorkspaceSize"
// LOWER: aclnn.string"() {value = "TND"}
// LOWER: callee = "aclnnFusedInferAttentionScoreV3GetWorkspaceSize"
// LOWER: callee = "aclnnFusedInferAttentionScoreV2GetWorkspaceSize"
// vLLM-Ascend's bf16 decode (DeepSeek-V3 tp 16: N = 8, batch 16, block 128): BNSD query,
// BnNBsD latent caches, output NBSD (N, B, 1, 512) for W_uv's batched product.
// CHECK-LABEL: func.func @bnsd_nbsd_decode
// CHECK-SAME: -> (tensor<8x16x1x512xbf16>, tensor<1xf32>)
func.func @bnsd_nbsd_decode(%query: tensor<16x8x1x512xbf16>, %key: tensor<40x1x128x512xbf16>, %block_table: tensor<16x2xi32>, %query_rope: tensor<16x8x1x64xbf16>, %key_rope: tensor<40x1x128x64xbf16>) -> (tensor<8x16x1x512xbf16>, tensor<1xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 100, 107, 114, 121, 128, 135, 142, 149, 156, 163, 170, 177, 184, 191, 198, 205>, num_heads = 8 : i64, num_key_value_heads = 1 : i64, input_layout = "BNSD_NBSD", block_size = 128 : i64, scale_value = 0.072 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<16x8x1x512xbf16>, tensor<40x1x128x512xbf16>, tensor<40x1x128x512xbf16>, tensor<16x2xi32>, tensor<16x8x1x64xbf16>, tensor<40x1x128x64xbf16>) -> (tensor<8x16x1x512xbf16>, tensor<1xf32>)
  return %out, %lse : tensor<8x16x1x512xbf16>, tensor<1xf32>
}

// -----

// vLLM-Ascend's decode with the KV-NZ cache: BSND query, the FRACTAL_NZ latent caches (its 5-D
// (blocks, 1, D/16, 128, 16) views are their bytes), output NBSD.
// CHECK-LABEL: func.func @bsnd_nbsd_nz_decode
// CHECK-SAME: -> (tensor<8x16x1x512xbf16>, tensor<1xf32>)
func.func @bsnd_nbsd_nz_decode(%query: tensor<16x1x8x512xbf16>, %key: tensor<40x128x512xbf16, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<16x2xi32>, %query_rope: tensor<16x1x8x64xbf16>, %key_rope: tensor<40x128x64xbf16, #mla.format<"FRACTAL_NZ">>) -> (tensor<8x16x1x512xbf16>, tensor<1xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %query_rope, %key_rope) {actual_seq_lengths_kv = array<i64: 100, 107, 114, 121, 128, 135, 142, 149, 156, 163, 170, 177, 184, 191, 198, 205>, num_heads = 8 : i64, num_key_value_heads = 1 : i64, input_layout = "BSND_NBSD", block_size = 128 : i64, scale_value = 0.072 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<16x1x8x512xbf16>, tensor<40x128x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<40x128x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<16x2xi32>, tensor<16x1x8x64xbf16>, tensor<40x128x64xbf16, #mla.format<"FRACTAL_NZ">>) -> (tensor<8x16x1x512xbf16>, tensor<1xf32>)
  return %out, %lse : tensor<8x16x1x512xbf16>, tensor<1xf32>
}

// -----

// vLLM-Ascend's W8A8C8 decode: the MLA full-quant mode with BSND_NBSD (per-token-head query
// scale (B, 1, N), per-tensor kv scales).
// CHECK-LABEL: func.func @bsnd_nbsd_full_quant
// CHECK-SAME: -> (tensor<8x16x1x512xbf16>, tensor<1xf32>)
func.func @bsnd_nbsd_full_quant(%query: tensor<16x1x8x512xi8>, %key: tensor<40x128x512xi8, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<16x2xi32>, %kv_scale: tensor<1xf32>, %query_rope: tensor<16x1x8x64xbf16>, %key_rope: tensor<40x128x64xbf16, #mla.format<"FRACTAL_NZ">>, %dsq: tensor<16x1x8xf32>) -> (tensor<8x16x1x512xbf16>, tensor<1xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %key, %block_table, %kv_scale, %kv_scale, %query_rope, %key_rope, %dsq) {actual_seq_lengths_kv = array<i64: 100, 107, 114, 121, 128, 135, 142, 149, 156, 163, 170, 177, 184, 191, 198, 205>, num_heads = 8 : i64, num_key_value_heads = 1 : i64, input_layout = "BSND_NBSD", block_size = 128 : i64, query_quant_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0>} : (tensor<16x1x8x512xi8>, tensor<40x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<40x128x512xi8, #mla.format<"FRACTAL_NZ">>, tensor<16x2xi32>, tensor<1xf32>, tensor<1xf32>, tensor<16x1x8x64xbf16>, tensor<40x128x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<16x1x8xf32>) -> (tensor<8x16x1x512xbf16>, tensor<1xf32>)
  return %out, %lse : tensor<8x16x1x512xbf16>, tensor<1xf32>
}

// -----

// vLLM-Ascend's prefill: MLA with query D 128 (per-head keys and a rope part), TND, no page
// attention, causal (sparse_mode 3 with the 2048 x 2048 mask), with softmax_lse.
// CHECK-LABEL: func.func @tnd_mla_prefill
// CHECK-SAME: -> (tensor<20x8x128xbf16>, tensor<20x8x1xf32>)
func.func @tnd_mla_prefill(%query: tensor<20x8x128xbf16>, %key: tensor<20x8x128xbf16>, %value: tensor<20x8x128xbf16>, %atten_mask: tensor<2048x2048xi8>, %query_rope: tensor<20x8x64xbf16>, %key_rope: tensor<20x8x64xbf16>) -> (tensor<20x8x128xbf16>, tensor<20x8x1xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask, %query_rope, %key_rope) {actual_seq_lengths = array<i64: 5, 12, 20>, actual_seq_lengths_kv = array<i64: 5, 12, 20>, num_heads = 8 : i64, num_key_value_heads = 8 : i64, input_layout = "TND", sparse_mode = 3 : i64, softmax_lse_flag = true, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>} : (tensor<20x8x128xbf16>, tensor<20x8x128xbf16>, tensor<20x8x128xbf16>, tensor<2048x2048xi8>, tensor<20x8x64xbf16>, tensor<20x8x64xbf16>) -> (tensor<20x8x128xbf16>, tensor<20x8x1xf32>)
  return %out, %lse : tensor<20x8x128xbf16>, tensor<20x8x1xf32>
}

// -----

// torch_npu's own device test test_npu_infer_attention_score_PA: float16 TND page attention, key
// D 192, value D 128, 16 heads over one kv head (FIA-TND-8 takes f16 and bf16).
// CHECK-LABEL: func.func @tnd_f16_paged
// CHECK-SAME: -> (tensor<1x16x128xf16>, tensor<1xf32>)
func.func @tnd_f16_paged(%query: tensor<1x16x192xf16>, %key: tensor<1x128x192xf16>, %value: tensor<1x128x128xf16>, %block_table: tensor<1x32xi32>) -> (tensor<1x16x128xf16>, tensor<1xf32>) {
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths = array<i64: 1>, actual_seq_lengths_kv = array<i64: 69>, num_heads = 16 : i64, num_key_value_heads = 1 : i64, input_layout = "TND", block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x16x192xf16>, tensor<1x128x192xf16>, tensor<1x128x128xf16>, tensor<1x32xi32>) -> (tensor<1x16x128xf16>, tensor<1xf32>)
  return %out, %lse : tensor<1x16x128xf16>, tensor<1xf32>
}

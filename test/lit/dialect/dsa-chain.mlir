// One DeepSeek-V3.2 decode step of the attention as vLLM-Ascend runs it, as IR: mla.prolog_v3
// writes the latent and rope caches and gives query_norm (the indexer's query latent); the
// lightning indexer picks each token's top-k over the indexer key cache; sparse flash attention
// reads the selected latent rows. TND tokens of two sequences (one decode token each), PA_BSND
// caches of block 128, cumulative query lengths, per-batch kv lengths. The indexer's query and
// weights (wq_b and weights_proj of query_norm / x, not fused) come in as arguments.
// test/python/test_dsa_lowering.py runs it on the NPU backend's test double and as C++.
// RUN: mla-opt %s | FileCheck %s
// RUN: mla-opt %s --lower-to-aclnn | FileCheck %s --check-prefix=LOWERED

// CHECK-LABEL: func.func @dsa_decode
// CHECK: "mla.prolog_v3"
// CHECK: "mla.lightning_indexer"
// CHECK: "mla.sparse_flash_attention"
// LOWERED: callee = "aclnnMlaPrologV3WeightNz"
// LOWERED: callee = "aclnnLightningIndexer"
// LOWERED: callee = "aclnnSparseFlashAttention"
func.func @dsa_decode(
    %x: tensor<2x1024xbf16> {mla.name = "x"},
    %w_dq: tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">> {mla.name = "w_dq"},
    %w_uq_qr: tensor<1536x1536xbf16, #mla.format<"FRACTAL_NZ">> {mla.name = "w_uq_qr"},
    %w_uk: tensor<8x128x512xbf16> {mla.name = "w_uk"},
    %w_dkv_kr: tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">> {mla.name = "w_dkv_kr"},
    %gamma_cq: tensor<1536xbf16> {mla.name = "gamma_cq"}, %gamma_ckv: tensor<512xbf16> {mla.name = "gamma_ckv"},
    %sin: tensor<2x64xbf16> {mla.name = "sin"}, %cos: tensor<2x64xbf16> {mla.name = "cos"},
    %kv_cache: tensor<4x128x1x512xbf16> {mla.name = "kv_cache"},
    %kr_cache: tensor<4x128x1x64xbf16> {mla.name = "kr_cache"},
    %slots: tensor<2xi64> {mla.name = "slots"},
    %index_query: tensor<2x64x128xbf16> {mla.name = "index_query"},
    %index_cache: tensor<4x128x1x128xbf16> {mla.name = "index_cache"},
    %index_weights: tensor<2x64xbf16> {mla.name = "index_weights"},
    %query_ends: tensor<2xi32> {mla.name = "query_ends"},
    %kv_lengths: tensor<2xi32> {mla.name = "kv_lengths"},
    %block_table: tensor<2x2xi32> {mla.name = "block_table"})
    -> (tensor<2x8x512xbf16>, tensor<2x1536xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x64xbf16>) {
  %q, %q_rope, %dq, %qn, %dqn, %kv, %kr = "mla.prolog_v3"(%x, %w_dq, %w_uq_qr, %w_uk, %w_dkv_kr, %gamma_cq,
        %gamma_ckv, %sin, %cos, %kv_cache, %kr_cache, %slots)
      {rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, query_norm_flag = true,
       operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0>}
      : (tensor<2x1024xbf16>, tensor<1024x1536xbf16, #mla.format<"FRACTAL_NZ">>,
         tensor<1536x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<8x128x512xbf16>,
         tensor<1024x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>,
         tensor<2x64xbf16>, tensor<2x64xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x64xbf16>, tensor<2xi64>)
      -> (tensor<2x8x512xbf16>, tensor<2x8x64xbf16>, tensor<0xf32>, tensor<2x1536xbf16>, tensor<0xf32>,
          tensor<4x128x1x512xbf16>, tensor<4x128x1x64xbf16>)
  %idx, %vals = "mla.lightning_indexer"(%index_query, %index_cache, %index_weights, %query_ends, %kv_lengths, %block_table)
      {layout_query = "TND", layout_key = "PA_BSND", sparse_count = 2048 : i64, sparse_mode = 3 : i64,
       operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1>}
      : (tensor<2x64x128xbf16>, tensor<4x128x1x128xbf16>, tensor<2x64xbf16>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>)
      -> (tensor<2x1x2048xi32>, tensor<0xbf16>)
  %out, %smax, %ssum = "mla.sparse_flash_attention"(%q, %kv, %kv, %idx, %block_table, %query_ends, %kv_lengths, %q_rope, %kr)
      {scale_value = 0.0721 : f64, layout_query = "TND", layout_kv = "PA_BSND", sparse_mode = 3 : i64,
       attention_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 0>}
      : (tensor<2x8x512xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x512xbf16>, tensor<2x1x2048xi32>,
         tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x8x64xbf16>, tensor<4x128x1x64xbf16>)
      -> (tensor<2x8x512xbf16>, tensor<0xf32>, tensor<0xf32>)
  return %out, %qn, %kv, %kr : tensor<2x8x512xbf16>, tensor<2x1536xbf16>, tensor<4x128x1x512xbf16>, tensor<4x128x1x64xbf16>
}

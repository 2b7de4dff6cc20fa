// The attention of one DeepSeek-V3 decode step after the prolog, as unfused code writes it
// (tp 16: 8 heads; batch 2; paged latent caches, 16-token blocks): attention over the latent
// cache with its rope part, the absorbed value projection W_uv per head, then o_proj.
ml_program.global private @w_uv(#ml_program.extern : tensor<8x512x128xbf16>) : tensor<8x512x128xbf16>
ml_program.global private @o_proj(#ml_program.extern : tensor<1024x7168xbf16>) : tensor<1024x7168xbf16>

func.func @attend(%query: tensor<2x1x8x512xbf16> {mla.name = "query"},
                  %query_rope: tensor<2x1x8x64xbf16> {mla.name = "query_rope"},
                  %kv_cache: tensor<6x16x1x512xbf16> {mla.name = "kv_cache"},
                  %kr_cache: tensor<6x16x1x64xbf16> {mla.name = "kr_cache"},
                  %block_table: tensor<2x3xi32> {mla.name = "block_table"},
                  %seq_lengths: tensor<2xi64> {mla.name = "seq_lengths"}) -> tensor<2x1x7168xbf16> {
  %o = "mla.paged_attention"(%query, %kv_cache, %kv_cache, %block_table, %seq_lengths, %query_rope, %kr_cache)
      {scale_value = 0.1352 : f64, cache_mode = "PA_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0>}
      : (tensor<2x1x8x512xbf16>, tensor<6x16x1x512xbf16>, tensor<6x16x1x512xbf16>, tensor<2x3xi32>, tensor<2xi64>,
         tensor<2x1x8x64xbf16>, tensor<6x16x1x64xbf16>) -> tensor<2x1x8x512xbf16>
  %w_uv = ml_program.global_load_const @w_uv : tensor<8x512x128xbf16>
  %v = "mla.head_matmul"(%o, %w_uv) : (tensor<2x1x8x512xbf16>, tensor<8x512x128xbf16>) -> tensor<2x1x8x128xbf16>
  %heads = tensor.collapse_shape %v [[0], [1], [2, 3]] : tensor<2x1x8x128xbf16> into tensor<2x1x1024xbf16>
  %w_o = ml_program.global_load_const @o_proj : tensor<1024x7168xbf16>
  %out = "mla.matmul"(%heads, %w_o) : (tensor<2x1x1024xbf16>, tensor<1024x7168xbf16>) -> tensor<2x1x7168xbf16>
  return %out : tensor<2x1x7168xbf16>
}

// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.fused_infer_attention_score: the advisory rules (6.D, 6.F, 6.M, 6.R) that the seed's
// wording makes detectable are warnings; the op stays valid.

// FIA-053 [prompt] (S) numHeads, D, layout — layout ∈ {BSH, BSND} ⇒ N·D < 65535 → ADVISORY (warn)
//   (L808)
func.func @prompt_wide_hidden(%query: tensor<1x8x256x256xbf16>, %key: tensor<1x16x4x256xbf16>, %value: tensor<1x16x4x256xbf16>) {
  // expected-warning @+1 {{num_heads: N*D < 65535 is recommended for BSND, got 256*256 = 65536 [FIA-053]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 256 : i64, input_layout = "BSND", num_key_value_heads = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x8x256x256xbf16>, tensor<1x16x4x256xbf16>, tensor<1x16x4x256xbf16>) -> (tensor<1x8x256x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-230 [both] (—) pseShift — pad a non-32-byte-aligned KV_S to 32 bytes (any fill) for
//   performance → ADVISORY (L677-678)
func.func @pse_not_32_byte_aligned(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %pse_shift: tensor<2x4x1x40xbf16>) {
  // expected-warning @+1 {{pse_shift: padding dim 3 to 32 bytes (a multiple of 16) is recommended, got tensor<2x4x1x40xbf16> [FIA-230]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %pse_shift) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x4x1x40xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-231 [incre] (—) key (PA) — prefer BnNBsD over BnBsH for performance → ADVISORY (L955)
func.func @incre_paged_bnbsh(%query: tensor<2x1x256xbf16>, %key: tensor<6x16x128xbf16>, %value: tensor<6x16x128xbf16>, %block_table: tensor<2x3xi32>) {
  // expected-warning @+1 {{key: the BnNBsD cache (block_num, KV_N, block_size, D) is usually faster than BnBsH [FIA-231]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<6x16x128xbf16>, tensor<6x16x128xbf16>, tensor<2x3xi32>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-232 [prompt] (—) B, N, S, D — very large B·N·S·D may hit an AI Core timeout; split S →
//   ADVISORY (L810-864)
func.func @timeout_sized(%query: tensor<1x2097152x20x256xbf16>, %key: tensor<1x2097152x20x256xbf16>, %value: tensor<1x2097152x20x256xbf16>) {
  // expected-warning @+1 {{query: B*N*Q_S*KV_S*D = 22517998136852480 is as large as the seed's AI Core timeout cases (timeout or trap error); splitting S is recommended [FIA-232]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 20 : i64, input_layout = "BSND", num_key_value_heads = 20 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x2097152x20x256xbf16>, tensor<1x2097152x20x256xbf16>, tensor<1x2097152x20x256xbf16>) -> (tensor<1x2097152x20x256xbf16>, tensor<1xf32>)
  return
}

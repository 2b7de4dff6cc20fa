// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.fused_infer_attention_score, one split per static rule of the catalog's
// section 6 (the FIA constraint catalog; rules in docs/rules.md) or of the MLA mode:
// the shared prefix (6.O).
// Each split changes one thing of a valid op; the runtime and eager-only rules are in
// test/python/test_fia_eager.py.

// FIA-198 [both] (S) keySharedPrefix, valueSharedPrefix — both null or both non-null → REJECT
//   (L921, L992)
func.func @prefix_key_alone(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %key_shared_prefix: tensor<1x4x2x64xbf16>) {
  // expected-error @+1 {{value_shared_prefix: required with key_shared_prefix (both or neither), got none [FIA-198]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_shared_prefix) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1x4x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-201 [both] (S) keySharedPrefix — dtype ∈ {FLOAT16, BFLOAT16, INT8} (incre INT4-packed: Rec.
//   allow per L948) → REJECT (L362, L374)
func.func @prefix_dtype(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %key_shared_prefix: tensor<1x4x2x64xf32>, %value_shared_prefix: tensor<1x4x2x64xf32>) {
  // expected-error @+1 {{key_shared_prefix: expected element type f16, bf16 or i8, got f32 [FIA-201]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_shared_prefix, %value_shared_prefix) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1x4x2x64xf32>, tensor<1x4x2x64xf32>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-199 [both] (S) keySharedPrefix, valueSharedPrefix, key, value — prefix ⇒ rank(kP) ==
//   rank(vP) == rank(key) == rank(value) → REJECT (L922, L993)
func.func @prefix_rank(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %key_shared_prefix: tensor<1x4x128xbf16>, %value_shared_prefix: tensor<1x4x128xbf16>) {
  // expected-error @+1 {{key_shared_prefix: expected the rank of key (4), got tensor<1x4x128xbf16> [FIA-199]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_shared_prefix, %value_shared_prefix) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1x4x128xbf16>, tensor<1x4x128xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-200 [both] (S) keySharedPrefix, valueSharedPrefix, key — prefix ⇒ dtype(kP) == dtype(vP) ==
//   dtype(key) == dtype(value) → REJECT (L922, L993)
func.func @prefix_dtype_vs_key(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %key_shared_prefix: tensor<1x4x2x64xf16>, %value_shared_prefix: tensor<1x4x2x64xf16>) {
  // expected-error @+1 {{key_shared_prefix: expected the key's element type bf16, got f16 [FIA-200]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_shared_prefix, %value_shared_prefix) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1x4x2x64xf16>, tensor<1x4x2x64xf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-202 [both] (S) keySharedPrefix, valueSharedPrefix — batch dim (dim 0) == 1 → REJECT (L923,
//   L994)
func.func @prefix_batch(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %key_shared_prefix: tensor<2x4x2x64xbf16>, %value_shared_prefix: tensor<2x4x2x64xbf16>) {
  // expected-error @+1 {{key_shared_prefix: expected batch 1, got tensor<2x4x2x64xbf16> [FIA-202]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_shared_prefix, %value_shared_prefix) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x4x2x64xbf16>, tensor<2x4x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-203 [both] (S) keySharedPrefix, key — layout ∈ {BNSD, BSND, BNSD_BSND} ⇒ N and D axes equal
//   key's → REJECT (L923, L994)
func.func @prefix_heads(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %key_shared_prefix: tensor<1x4x1x64xbf16>, %value_shared_prefix: tensor<1x4x1x64xbf16>) {
  // expected-error @+1 {{key_shared_prefix: expected the N and D of key (2, 64), got tensor<1x4x1x64xbf16> [FIA-203]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_shared_prefix, %value_shared_prefix) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1x4x1x64xbf16>, tensor<1x4x1x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-204 [both] (S) keySharedPrefix, key — layout BSH ⇒ H (dim 2) equal key's → REJECT (L923,
//   L994)
func.func @prefix_hidden_bsh(%query: tensor<2x8x256xbf16>, %key: tensor<2x16x128xbf16>, %value: tensor<2x16x128xbf16>, %key_shared_prefix: tensor<1x4x64xbf16>, %value_shared_prefix: tensor<1x4x64xbf16>) {
  // expected-error @+1 {{key_shared_prefix: expected the H of key (128), got tensor<1x4x64xbf16> [FIA-204]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_shared_prefix, %value_shared_prefix) {num_heads = 4 : i64, num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x8x256xbf16>, tensor<2x16x128xbf16>, tensor<2x16x128xbf16>, tensor<1x4x64xbf16>, tensor<1x4x64xbf16>) -> (tensor<2x8x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-205 [both] (S) keySharedPrefix, valueSharedPrefix — S axis equal → REJECT (L923, L994)
func.func @prefix_lengths_differ(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %key_shared_prefix: tensor<1x4x2x64xbf16>, %value_shared_prefix: tensor<1x5x2x64xbf16>) {
  // expected-error @+1 {{value_shared_prefix: expected the S of key_shared_prefix (4), got tensor<1x5x2x64xbf16> [FIA-205]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_shared_prefix, %value_shared_prefix) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1x4x2x64xbf16>, tensor<1x5x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-209 [both] (S) actualSharedPrefixLen, keySharedPrefix — non-null ⇒ prefix non-null → REJECT
//   (DERIVED). The device ignores the length without a prefix (and CANN's own case list passes
//   it so): a warning, the op stays valid, and FIA-206/208 do not look at the ignored value.
func.func @prefix_length_without_prefix(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-warning @+1 {{actual_shared_prefix_len: ignored without key_shared_prefix and value_shared_prefix (there is no shared prefix to shorten) [FIA-209]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_shared_prefix_len = array<i64: -2, 7>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-206 [both] (S/H) actualSharedPrefixLen — non-null ⇒ length == 1 → REJECT (L924, L995)
func.func @prefix_length_count(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %key_shared_prefix: tensor<1x4x2x64xbf16>, %value_shared_prefix: tensor<1x4x2x64xbf16>) {
  // expected-error @+1 {{actual_shared_prefix_len: expected exactly 1 value, got 2 [FIA-206]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_shared_prefix, %value_shared_prefix) {actual_shared_prefix_len = array<i64: 2, 2>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1x4x2x64xbf16>, tensor<1x4x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-208 [both] (H) actualSharedPrefixLen — value ≥ 0 → REJECT (Rec.; SEED SILENT)
func.func @prefix_length_negative(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %key_shared_prefix: tensor<1x4x2x64xbf16>, %value_shared_prefix: tensor<1x4x2x64xbf16>) {
  // expected-error @+1 {{actual_shared_prefix_len: expected a value >= 0, got -1 [FIA-208]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_shared_prefix, %value_shared_prefix) {actual_shared_prefix_len = array<i64: -1>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1x4x2x64xbf16>, tensor<1x4x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-207 [both] (H) actualSharedPrefixLen, keySharedPrefix — value ≤ prefix S → REJECT (L717,
//   L924, L995)
func.func @prefix_length_bound(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %key_shared_prefix: tensor<1x4x2x64xbf16>, %value_shared_prefix: tensor<1x4x2x64xbf16>) {
  // expected-error @+1 {{actual_shared_prefix_len: expected a value <= the prefix S (4), got 5 [FIA-207]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_shared_prefix, %value_shared_prefix) {actual_shared_prefix_len = array<i64: 5>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1x4x2x64xbf16>, tensor<1x4x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-210 [prompt] (S) keySharedPrefix, key — prefix S + KV_S ≤ 20971520 → REJECT (L925, L996)
func.func @prefix_total_length(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %key_shared_prefix: tensor<1x20971510x2x64xbf16>, %value_shared_prefix: tensor<1x20971510x2x64xbf16>) {
  // expected-error @+1 {{key_shared_prefix: prefix S + KV_S must be <= 20971520 (20M), got 20971526 [FIA-210]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_shared_prefix, %value_shared_prefix) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1x20971510x2x64xbf16>, tensor<1x20971510x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-211 [prompt] (S) keySharedPrefix, query, key, value — prefix ⇒ ¬(query INT8 ∧ key INT8 ∧
//   value INT8) → REJECT (L928)
func.func @prefix_all_int8(%query: tensor<1x4x2x64xi8>, %key: tensor<1x8x2x64xi8>, %value: tensor<1x8x2x64xi8>, %dequant_scale1: tensor<1xf32>, %quant_scale1: tensor<1xf32>, %dequant_scale2: tensor<1xf32>, %key_shared_prefix: tensor<1x4x2x64xi8>, %value_shared_prefix: tensor<1x4x2x64xi8>) {
  // expected-error @+1 {{key_shared_prefix: a shared prefix is not supported with int8 query, key and value [FIA-211]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %dequant_scale1, %quant_scale1, %dequant_scale2, %key_shared_prefix, %value_shared_prefix) {num_heads = 2 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1x4x2x64xi8>, tensor<1x4x2x64xi8>) -> (tensor<1x4x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-197 [both] (S) padding, keySharedPrefix — left padding active ⇒ no prefix → REJECT (L926;
//   incre Rec.)
func.func @prefix_with_left_padding(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %kv_padding_size: tensor<1xi64>, %key_shared_prefix: tensor<1x4x2x64xbf16>, %value_shared_prefix: tensor<1x4x2x64xbf16>) {
  // expected-error @+1 {{key_shared_prefix: a shared prefix is not supported with left padding [FIA-197]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %kv_padding_size, %key_shared_prefix, %value_shared_prefix) {actual_seq_lengths_kv = array<i64: 8>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1xi64>, tensor<1x4x2x64xbf16>, tensor<1x4x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

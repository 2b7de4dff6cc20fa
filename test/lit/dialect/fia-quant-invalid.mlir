// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.fused_infer_attention_score, one split per static rule of the catalog's
// section 6 (the FIA constraint catalog; rules in docs/rules.md) or of the MLA mode:
// full quant, post-quant and the output dtype (6.J), combined antiquant (6.K),
// separate key/value antiquant (6.L), INT4 keys with left padding (6.N).
// Each split changes one thing of a valid op; the runtime and eager-only rules are in
// test/python/test_fia_eager.py.

// FIA-101 [both] (S) deqScale1 — dtype ∈ {UINT64, FLOAT32} ∧ rank 1 ∧ numel == 1 (per-tensor) →
//   REJECT (L198-200)
func.func @dequant_scale1_dtype(%query: tensor<1x4x2x64xi8>, %key: tensor<1x8x2x64xi8>, %value: tensor<1x8x2x64xi8>, %dequant_scale1: tensor<1xf16>, %quant_scale1: tensor<1xf32>, %dequant_scale2: tensor<1xf32>) {
  // expected-error @+1 {{dequant_scale1: expected element type ui64 or f32, got f16 [FIA-101]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %dequant_scale1, %quant_scale1, %dequant_scale2) {num_heads = 2 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1xf16>, tensor<1xf32>, tensor<1xf32>) -> (tensor<1x4x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-102 [both] (S) quantScale1 — dtype FLOAT32 ∧ rank 1 ∧ numel == 1 → REJECT (L210-212)
func.func @quant_scale1_dtype(%query: tensor<1x4x2x64xi8>, %key: tensor<1x8x2x64xi8>, %value: tensor<1x8x2x64xi8>, %dequant_scale1: tensor<1xf32>, %quant_scale1: tensor<1xf16>, %dequant_scale2: tensor<1xf32>) {
  // expected-error @+1 {{quant_scale1: expected element type f32, got f16 [FIA-102]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %dequant_scale1, %quant_scale1, %dequant_scale2) {num_heads = 2 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1xf32>, tensor<1xf16>, tensor<1xf32>) -> (tensor<1x4x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-103 [both] (S) deqScale2 — dtype ∈ {UINT64, FLOAT32} ∧ rank 1 ∧ numel == 1 → REJECT
//   (L222-224)
func.func @dequant_scale2_per_tensor(%query: tensor<1x4x2x64xi8>, %key: tensor<1x8x2x64xi8>, %value: tensor<1x8x2x64xi8>, %dequant_scale1: tensor<1xf32>, %quant_scale1: tensor<1xf32>, %dequant_scale2: tensor<2xf32>) {
  // expected-error @+1 {{dequant_scale2: expected one element of rank 1 (per-tensor), got tensor<2xf32> [FIA-103]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %dequant_scale1, %quant_scale1, %dequant_scale2) {num_heads = 2 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1xf32>, tensor<1xf32>, tensor<2xf32>) -> (tensor<1x4x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-104 [both] (S) quantScale2 — dtype ∈ {FLOAT32, BFLOAT16} → REJECT (L234, L697)
func.func @quant_scale2_dtype(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %quant_scale2: tensor<1xf16>) {
  // expected-error @+1 {{quant_scale2: expected element type f32 or bf16, got f16 [FIA-104]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %quant_scale2) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1xf16>) -> (tensor<2x8x4x64xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-105 [both] (S) quantScale2, query — quantScale2 BFLOAT16 ⇒ query BFLOAT16 → REJECT (L697)
func.func @quant_scale2_bf16_f16_query(%query: tensor<2x8x4x64xf16>, %key: tensor<2x16x2x64xf16>, %value: tensor<2x16x2x64xf16>, %quant_scale2: tensor<1xbf16>) {
  // expected-error @+1 {{quant_scale2: a bf16 quant_scale2 needs a bf16 query, got f16 [FIA-105]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %quant_scale2) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xf16>, tensor<2x16x2x64xf16>, tensor<2x16x2x64xf16>, tensor<1xbf16>) -> (tensor<2x8x4x64xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-106 [both] (S) quantOffset2, quantScale2 — quantOffset2 non-null ⇒ quantScale2 non-null →
//   REJECT (DERIVED L694-697)
func.func @quant_offset2_without_scale(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %quant_offset2: tensor<1xf32>) {
  // expected-error @+1 {{quant_offset2: needs quant_scale2, got none [FIA-106]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %quant_offset2) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1xf32>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-107 [both] (S) quantOffset2, quantScale2 — quantOffset2 non-null ⇒ dtype and shape equal to
//   quantScale2 → REJECT (L697)
func.func @quant_offset2_shape(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %quant_scale2: tensor<1xf32>, %quant_offset2: tensor<1x1xf32>) {
  // expected-error @+1 {{quant_offset2: expected the type of quant_scale2 tensor<1xf32>, got tensor<1x1xf32> [FIA-107]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %quant_scale2, %quant_offset2) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1xf32>, tensor<1x1xf32>) -> (tensor<2x8x4x64xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-108 [both] (S) quantScale2 — numel ∈ {1 (per-tensor, Rec.), N·D (per-channel; = H for BSH
//   output)} → REJECT (L697)
func.func @quant_scale2_elements(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %quant_scale2: tensor<3xf32>) {
  // expected-error @+1 {{quant_scale2: expected 1 element (per-tensor) or N*D = 256 (per-channel), got 3 in tensor<3xf32> [FIA-108]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %quant_scale2) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<3xf32>) -> (tensor<2x8x4x64xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-113 [prompt] (S) blockTable, query — PA ⇒ query ≠ INT8 → REJECT (L885)
func.func @paged_int8_query(%query: tensor<1x4x2x64xi8>, %key: tensor<2x128x128xbf16>, %value: tensor<2x128x128xbf16>, %dequant_scale1: tensor<1xf32>, %quant_scale1: tensor<1xf32>, %dequant_scale2: tensor<1xf32>, %block_table: tensor<1x2xi32>) {
  // expected-error @+1 {{query: an i8 query (full quant) is not supported with page attention [FIA-113]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %dequant_scale1, %quant_scale1, %dequant_scale2, %block_table) {actual_seq_lengths_kv = array<i64: 130>, num_heads = 2 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, block_size = 128 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xi8>, tensor<2x128x128xbf16>, tensor<2x128x128xbf16>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1x2xi32>) -> (tensor<1x4x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-091 [both] (S) qI8, outI8, deqScale1, quantScale1, deqScale2, quantScale2 — qI8 ∧ outI8 ⇒
//   all four non-null → REJECT (L694)
func.func @full_quant_int8_out_missing(%query: tensor<1x4x2x64xi8>, %key: tensor<1x8x2x64xi8>, %value: tensor<1x8x2x64xi8>, %dequant_scale1: tensor<1xf32>, %dequant_scale2: tensor<1xf32>, %quant_scale2: tensor<1xf32>) {
  // expected-error @+1 {{quant_scale1: required for an int8 query with int8 output (full quant), got none [FIA-091]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %dequant_scale1, %dequant_scale2, %quant_scale2) {num_heads = 2 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<1x4x2x64xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-092 [both] (S) qI8, out, deqScale1, quantScale1, deqScale2 — qI8 ∧ out FLOAT16 ⇒ all three
//   non-null → REJECT (L695)
func.func @full_quant_f16_out_missing(%query: tensor<1x4x2x64xi8>, %key: tensor<1x8x2x64xi8>, %value: tensor<1x8x2x64xi8>, %dequant_scale1: tensor<1xf32>, %quant_scale1: tensor<1xf32>) {
  // expected-error @+1 {{dequant_scale2: required for an int8 query with f16 output (full quant), got none [FIA-092]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %dequant_scale1, %quant_scale1) {num_heads = 2 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1xf32>, tensor<1xf32>) -> (tensor<1x4x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-093 [both] (S) qI8, out, quantScale2, quantOffset2 — qI8 ∧ out FLOAT16 ⇒ quantScale2 == null
//   ∧ quantOffset2 == null → REJECT (L695)
func.func @full_quant_f16_out_post_quant(%query: tensor<1x4x2x64xi8>, %key: tensor<1x8x2x64xi8>, %value: tensor<1x8x2x64xi8>, %dequant_scale1: tensor<1xf32>, %quant_scale1: tensor<1xf32>, %dequant_scale2: tensor<1xf32>, %quant_scale2: tensor<1xf32>) {
  // expected-error @+1 {{quant_scale2: not allowed for an int8 query with f16 output: the output is not quantized [FIA-093]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %dequant_scale1, %quant_scale1, %dequant_scale2, %quant_scale2) {num_heads = 2 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<1x4x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-094 [both] (S) query, outI8, quantScale2 — query ∈ {FLOAT16, BFLOAT16} ∧ outI8 ⇒ quantScale2
//   non-null → REJECT (L696)
func.func @post_quant_without_scale(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{quant_scale2: required for int8 output of a bf16 query, got none [FIA-094]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x8x4x64xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-095 [both] (S) query, outI8, deqScale1, quantScale1, deqScale2 — query ∈ {FLOAT16, BFLOAT16}
//   ∧ outI8 ⇒ all three null → REJECT (L696)
func.func @post_quant_with_full_quant(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %dequant_scale1: tensor<1xf32>, %quant_scale2: tensor<1xf32>) {
  // expected-error @+1 {{dequant_scale1: not allowed for a bf16 query with int8 output (post-quant only) [FIA-095]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %dequant_scale1, %quant_scale2) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1xf32>, tensor<1xf32>) -> (tensor<2x8x4x64xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-096 [both] (S) query, out, quant params — query ∈ {FLOAT16, BFLOAT16} ∧ out ∈ {FLOAT16,
//   BFLOAT16} ⇒ deqScale1, quantScale1, deqScale2, quantScale2, quantOffset2 all null → REJECT
//   (Rec.; SEED SILENT)
func.func @float_with_quant(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %dequant_scale1: tensor<1xf32>) {
  // expected-error @+1 {{dequant_scale1: not allowed: a bf16 query with bf16 output uses no quantization [FIA-096]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %dequant_scale1) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1xf32>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-097 [both] (S) query, attentionOut — qI8 ⇒ out ∈ {INT8, FLOAT16} → REJECT (Rec.; L694-695
//   list only these)
func.func @int8_query_bf16_out(%query: tensor<1x4x2x64xi8>, %key: tensor<1x8x2x64xi8>, %value: tensor<1x8x2x64xi8>, %dequant_scale1: tensor<1xf32>, %quant_scale1: tensor<1xf32>, %dequant_scale2: tensor<1xf32>) {
  // expected-error @+1 {{attention_out: expected i8 or f16 for an i8 query, got bf16 [FIA-097]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %dequant_scale1, %quant_scale1, %dequant_scale2) {num_heads = 2 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<1x4x2x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-098 [both] (S) query, attentionOut — query FLOAT16 ⇒ out ∈ {FLOAT16, INT8}; query BFLOAT16 ⇒
//   out ∈ {BFLOAT16, INT8} → REJECT (Rec.; SEED SILENT)
func.func @f16_query_bf16_out(%query: tensor<2x8x4x64xf16>, %key: tensor<2x16x2x64xf16>, %value: tensor<2x16x2x64xf16>) {
  // expected-error @+1 {{attention_out: expected f16 or i8 for a f16 query, got bf16 [FIA-098]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xf16>, tensor<2x16x2x64xf16>, tensor<2x16x2x64xf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-099 [both] (S) query, key — qI8 ⇒ key/value INT8 → REJECT (Rec.; DERIVED)
func.func @int8_query_f16_key(%query: tensor<1x4x2x64xi8>, %key: tensor<1x8x2x64xf16>, %value: tensor<1x8x2x64xf16>, %dequant_scale1: tensor<1xf32>, %quant_scale1: tensor<1xf32>, %dequant_scale2: tensor<1xf32>) {
  // expected-error @+1 {{key: expected i8 for an i8 query, got f16 [FIA-099]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %dequant_scale1, %quant_scale1, %dequant_scale2) {num_heads = 2 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x4x2x64xi8>, tensor<1x8x2x64xf16>, tensor<1x8x2x64xf16>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<1x4x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-099 also (register S41, tables 4.2 P12 / 4.3 I12): a float query's float key has the
// query's element type, no f16/bf16 mix.
func.func @f16_query_bf16_key(%query: tensor<2x1x4x64xf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{key: expected the query's element type f16 (or an integer key with antiquant), got bf16 [FIA-099]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-100 [incre] (S) query, key, value — ¬(query INT8 ∧ key INT8 ∧ value INT8) → REJECT (L946)
func.func @incre_all_int8(%query: tensor<1x1x2x64xi8>, %key: tensor<1x8x2x64xi8>, %value: tensor<1x8x2x64xi8>, %dequant_scale1: tensor<1xf32>, %quant_scale1: tensor<1xf32>, %dequant_scale2: tensor<1xf32>) {
  // expected-error @+1 {{query: int8 query, key and value together are not supported with Q_S = 1 [FIA-100]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %dequant_scale1, %quant_scale1, %dequant_scale2) {num_heads = 2 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x1x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1x8x2x64xi8>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<1x1x2x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-109 [prompt] (S) outI8, quantScale2, padding — outI8 ∧ numel(quantScale2) > 1 ⇒ no left
//   padding active (query or kv) → REJECT (L906)
func.func @per_channel_with_left_padding(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %quant_scale2: tensor<256xf32>, %query_padding_size: tensor<1xi64>) {
  // expected-error @+1 {{quant_scale2: per-channel int8 output quantization does not support left padding [FIA-109]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %quant_scale2, %query_padding_size) {actual_seq_lengths = array<i64: 8>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<256xf32>, tensor<1xi64>) -> (tensor<2x8x4x64xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-110 [prompt] (S) outI8, quantScale2, softmaxLseFlag — outI8 ∧ numel(quantScale2) > 1 ⇒
//   softmaxLseFlag == false ("Ring Attention") → REJECT (L906; Rec. reading)
func.func @per_channel_with_lse(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %quant_scale2: tensor<4x64xf32>) {
  // expected-error @+1 {{softmax_lse_flag: must be false with per-channel int8 output quantization (no Ring Attention) [FIA-110]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %quant_scale2) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, softmax_lse_flag = true, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<4x64xf32>) -> (tensor<2x8x4x64xi8>, tensor<2x4x8x1xf32>)
  return
}

// -----

// FIA-112 [both] (S) key, attentionOut — key INT4/packed INT32 ⇒ out ≠ INT8 (no post-quant) →
//   REJECT (L990)
func.func @int4_with_post_quant(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x8xi32>, %value: tensor<2x16x2x8xi32>, %quant_scale2: tensor<1xf32>, %key_antiquant_scale: tensor<1x2x64xbf16>, %value_antiquant_scale: tensor<1x2x64xbf16>) {
  // expected-error @+1 {{quant_scale2: int8 output (post-quant) is not supported with an i32 (INT4) key [FIA-112]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %quant_scale2, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x8xi32>, tensor<2x16x2x8xi32>, tensor<1xf32>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>) -> (tensor<2x1x4x64xi8>, tensor<1xf32>)
  return
}

// -----

// FIA-188 [prompt] (S) query, key, queryPaddingSize — query left padding active ⇒ ¬(query ∈
//   {FLOAT16, BFLOAT16} ∧ key INT4) → REJECT (L898)
func.func @prompt_query_left_padding_int4(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x8xi32>, %value: tensor<2x16x2x8xi32>, %query_padding_size: tensor<1xi64>) {
  // expected-error @+1 {{query_padding_size: query left padding is not supported with a float query and an INT4 key [FIA-188]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %query_padding_size) {actual_seq_lengths = array<i64: 4>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x8xi32>, tensor<2x16x2x8xi32>, tensor<1xi64>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-189 [prompt] (S) query, key, kvPaddingSize — kv left padding active ⇒ ¬(query ∈ {FLOAT16,
//   BFLOAT16} ∧ key INT4) → REJECT (L905)
func.func @prompt_kv_left_padding_int4(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x8xi32>, %value: tensor<2x16x2x8xi32>, %kv_padding_size: tensor<1xi64>) {
  // expected-error @+1 {{kv_padding_size: kv left padding is not supported with a float query and an INT4 key [FIA-189]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %kv_padding_size) {actual_seq_lengths_kv = array<i64: 4>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x8xi32>, tensor<2x16x2x8xi32>, tensor<1xi64>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-194 [incre] A2 (S) query, key, kvPaddingSize — kv left padding active ⇒ ¬(query ∈ {FLOAT16,
//   BFLOAT16} ∧ key INT4) → REJECT (L965)
func.func @incre_kv_left_padding_int4(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x8xi32>, %value: tensor<2x16x2x8xi32>, %kv_padding_size: tensor<1xi64>, %key_antiquant_scale: tensor<1x2x64xbf16>, %value_antiquant_scale: tensor<1x2x64xbf16>) {
  // expected-error @+1 {{kv_padding_size: kv left padding is not supported with a float query and an INT4 key [FIA-194]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %kv_padding_size, %key_antiquant_scale, %value_antiquant_scale) {actual_seq_lengths_kv = array<i64: 4>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x8xi32>, tensor<2x16x2x8xi32>, tensor<1xi64>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-128 [both] (S) keyAntiquantScale, valueAntiquantScale — both null or both non-null → REJECT
//   (L933, L975)
func.func @key_scale_alone(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<1x2x64xbf16>) {
  // expected-error @+1 {{value_antiquant_scale: required with key_antiquant_scale (both or neither), got none [FIA-128]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-129 [both] (S) keyAntiquantOffset, valueAntiquantOffset — both null or both non-null →
//   REJECT (L933, L975)
func.func @key_offset_alone(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<1x2x64xbf16>, %key_antiquant_offset: tensor<1x2x64xbf16>, %value_antiquant_scale: tensor<1x2x64xbf16>) {
  // expected-error @+1 {{value_antiquant_offset: required with key_antiquant_offset (both or neither), got none [FIA-129]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %key_antiquant_offset, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-130 [both] (S) keyAntiquantOffset, keyAntiquantScale — offset non-null ⇒ scale non-null →
//   REJECT (DERIVED)
func.func @offsets_without_scales(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %antiquant_scale: tensor<2x2x64xbf16>, %key_antiquant_offset: tensor<1x2x64xbf16>, %value_antiquant_offset: tensor<1x2x64xbf16>) {
  // expected-error @+1 {{key_antiquant_offset: needs key_antiquant_scale, got none [FIA-130]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %antiquant_scale, %key_antiquant_offset, %value_antiquant_offset) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2x2x64xbf16>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-131 [both] (S) keyAntiquantOffset, keyAntiquantScale — offset non-null ⇒ same dtype and
//   shape as scale → REJECT (L323, L709)
func.func @key_offset_shape(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<1x2x64xbf16>, %key_antiquant_offset: tensor<1x128xbf16>, %value_antiquant_scale: tensor<1x2x64xbf16>, %value_antiquant_offset: tensor<1x2x64xbf16>) {
  // expected-error @+1 {{key_antiquant_offset: expected the type of key_antiquant_scale tensor<1x2x64xbf16>, got tensor<1x128xbf16> [FIA-131]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %key_antiquant_offset, %value_antiquant_scale, %value_antiquant_offset) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1x2x64xbf16>, tensor<1x128xbf16>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-132 [both] (S) valueAntiquantOffset, valueAntiquantScale — offset non-null ⇒ same dtype and
//   shape as scale → REJECT (DERIVED by symmetry with L709)
func.func @value_offset_dtype(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<1x2x64xbf16>, %key_antiquant_offset: tensor<1x2x64xbf16>, %value_antiquant_scale: tensor<1x2x64xbf16>, %value_antiquant_offset: tensor<1x2x64xf16>) {
  // expected-error @+1 {{value_antiquant_offset: expected the type of value_antiquant_scale tensor<1x2x64xbf16>, got tensor<1x2x64xf16> [FIA-132]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %key_antiquant_offset, %value_antiquant_scale, %value_antiquant_offset) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>, tensor<1x2x64xf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-133 [both] (S) key/valueAntiquantScale/Offset — dtype ∈ {FLOAT16, BFLOAT16, FLOAT32} →
//   REJECT (L314, L326, L338, L350)
func.func @separate_scale_dtype(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<1x2x64xi32>, %value_antiquant_scale: tensor<1x2x64xi32>) {
  // expected-error @+1 {{key_antiquant_scale: expected element type f16, bf16 or f32, got i32 [FIA-133]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1x2x64xi32>, tensor<1x2x64xi32>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-134 [both] (S) separate params, key — separate scales non-null ⇒ key dtype ∈ {INT8,
//   INT4/packed INT32} → REJECT (DERIVED L935-938, L978-989)
func.func @separate_with_float_key(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %key_antiquant_scale: tensor<1x2x64xbf16>, %value_antiquant_scale: tensor<1x2x64xbf16>) {
  // expected-error @+1 {{key_antiquant_scale: separate antiquant parameters need an i8 or INT4 key, got bf16 [FIA-134]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-127 [both] (S) key, antiquant params — key ∈ {FLOAT16, BFLOAT16} ⇒ all antiquant operands
//   null → REJECT (Rec.; SEED SILENT)
func.func @combined_with_float_key(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %antiquant_scale: tensor<2x2x64xbf16>) {
  // expected-error @+1 {{key: a bf16 key takes no antiquant parameters, got antiquant_scale [FIA-127]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-156 [incre] (S) key, key/valueAntiquantScale — key INT4 ⇒ separate scales non-null (combined
//   params alone are not accepted) → REJECT (L985)
func.func @incre_int4_without_separate(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x8xi32>, %value: tensor<2x16x2x8xi32>) {
  // expected-error @+1 {{key_antiquant_scale: an INT4 (i32) key needs the separate key/value antiquant parameters, got none [FIA-156]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x8xi32>, tensor<2x16x2x8xi32>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-121 [incre] (S) antiquantMode — ∈ {0,1} → EXEC-ABNORMAL→REJECT (L493)
func.func @incre_antiquant_mode_range(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{antiquant_mode: expected 0 (per-channel/per-tensor) or 1 (per-token), got 2 [FIA-121]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, antiquant_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-114 [both] (S) antiquantScale/Offset, key — either non-null ⇒ key dtype == INT8 → REJECT
//   (L701)
func.func @combined_with_int4_key(%query: tensor<2x8x4x64xf16>, %key: tensor<2x16x2x8xi32>, %value: tensor<2x16x2x8xi32>, %antiquant_scale: tensor<2xf16>) {
  // expected-error @+1 {{antiquant_scale: combined antiquant parameters apply to an i8 key only, got i32 [FIA-114]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xf16>, tensor<2x16x2x8xi32>, tensor<2x16x2x8xi32>, tensor<2xf16>) -> (tensor<2x8x4x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-126 [both] (S) key, query, antiquant params — key INT8 ∧ query ∈ {FLOAT16, BFLOAT16} ⇒
//   antiquantScale non-null ∨ (keyAntiquantScale ∧ valueAntiquantScale non-null) → REJECT (Rec.;
//   SEED SILENT)
func.func @int8_key_without_antiquant(%query: tensor<2x1x4x64xf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>) {
  // expected-error @+1 {{antiquant_scale: an i8 key with a f16 query needs antiquant_scale or key_antiquant_scale and value_antiquant_scale, got none [FIA-126]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>) -> (tensor<2x1x4x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-115 [both] (S) antiquantOffset, antiquantScale — offset non-null ⇒ scale non-null → REJECT
//   (L705)
func.func @combined_offset_without_scale(%query: tensor<2x1x4x64xf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %antiquant_offset: tensor<2xf16>) {
  // expected-error @+1 {{antiquant_offset: needs antiquant_scale, got none [FIA-115]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %antiquant_offset) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2xf16>) -> (tensor<2x1x4x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-116 [both] (S) antiquantOffset, antiquantScale — offset non-null ⇒ offset.shape ==
//   scale.shape ∧ offset.dtype == scale.dtype → REJECT (L268; dtype DERIVED)
func.func @combined_offset_shape(%query: tensor<2x1x4x64xf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %antiquant_scale: tensor<2xf16>, %antiquant_offset: tensor<2x1xf16>) {
  // expected-error @+1 {{antiquant_offset: expected the type of antiquant_scale tensor<2xf16>, got tensor<2x1xf16> [FIA-116]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %antiquant_scale, %antiquant_offset) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2xf16>, tensor<2x1xf16>) -> (tensor<2x1x4x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-122 [incre] A2 (S) antiquantScale — dtype ∈ {FLOAT16, BFLOAT16, FLOAT32} → REJECT (L707)
func.func @incre_combined_dtype(%query: tensor<2x1x4x64xf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %antiquant_scale: tensor<2xi32>) {
  // expected-error @+1 {{antiquant_scale: expected element type f16, bf16 or f32, got i32 [FIA-122]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2xi32>) -> (tensor<2x1x4x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-123 [prompt] A2 (S) antiquantScale — dtype == FLOAT16 → REJECT (L707)
func.func @prompt_combined_dtype(%query: tensor<2x8x4x64xf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %antiquant_scale: tensor<2xf32>) {
  // expected-error @+1 {{antiquant_scale: expected element type f16 with Q_S > 1, got f32 [FIA-123]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2xf32>) -> (tensor<2x8x4x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-117 [both] (S) antiquantScale — shape ∈ {(2), (2,H_kv), (2,KV_N,D), (2,KV_N,1,D), (2,B,S')}
//   → REJECT (L702-704)
func.func @incre_combined_shape(%query: tensor<2x1x4x64xf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %antiquant_scale: tensor<3xf16>) {
  // expected-error @+1 {{antiquant_scale: expected (2), (2, 128), (2, 2, 64), (2, 2, 1, 64) or (2, B = 2, S'), got tensor<3xf16> [FIA-117]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<3xf16>) -> (tensor<2x1x4x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-118 [incre] (S) antiquantScale, antiquantMode, query — per-channel/per-tensor shape ⇒ dtype
//   == query dtype ∧ antiquantMode == 0 → REJECT (L702-703)
func.func @incre_combined_channel_dtype(%query: tensor<2x1x4x64xf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %antiquant_scale: tensor<2x128xf32>) {
  // expected-error @+1 {{antiquant_scale: a per-channel/per-tensor scale has the query's element type f16 and antiquant_mode 0, got f32 and 0 [FIA-118]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2x128xf32>) -> (tensor<2x1x4x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-119 [incre] (S) antiquantScale, antiquantMode — shape (2,B,S') ⇒ dtype FLOAT32 ∧
//   antiquantMode == 1 → REJECT (L704)
func.func @incre_combined_token_dtype(%query: tensor<2x1x4x64xf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %antiquant_scale: tensor<2x2x16xf16>) {
  // expected-error @+1 {{antiquant_scale: a per-token scale (2, B, S') is f32 with antiquant_mode 1, got f16 and 1 [FIA-119]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, antiquant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2x2x16xf16>) -> (tensor<2x1x4x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-120 [incre] (S/H) antiquantScale, blockTable — per-token ⇒ S' ≥ maxBlockNumPerSeq·blockSize
//   (PA) / S' ≥ KV_S (non-PA, Rec.) → REJECT (L963)
func.func @incre_combined_token_length(%query: tensor<2x1x4x64xf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %antiquant_scale: tensor<2x2x8xf32>) {
  // expected-error @+1 {{antiquant_scale: expected S' >= KV_S (16), got tensor<2x2x8xf32> [FIA-120]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, antiquant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2x2x8xf32>) -> (tensor<2x1x4x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-124 [prompt] (S) antiquantScale, query, key — combined antiquant in effect (no separate
//   scales) ⇒ query FLOAT16 ∧ key INT8 → REJECT (L874)
func.func @prompt_combined_bf16_query(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %antiquant_scale: tensor<2xf16>) {
  // expected-error @+1 {{antiquant_scale: combined antiquant with Q_S > 1 dequantizes an i8 key for an f16 query, got bf16 query and i8 key [FIA-124]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2xf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-160 [both] (S) keyAntiquantMode, valueAntiquantMode — value 6 (per-token-group) ⇒ REJECT (A2
//   disallows it; semantics SEED SILENT) (L784-785)
func.func @token_group_mode(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<1x2x64xbf16>, %value_antiquant_scale: tensor<1x2x64xbf16>) {
  // expected-error @+1 {{key_antiquant_mode: 6 (per-token-group) is not supported [FIA-160]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, key_antiquant_mode = 6 : i64, value_antiquant_mode = 6 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-135 [incre] (S) keyAntiquantMode, valueAntiquantMode — equal, or (key == 0 ∧ value == 1) →
//   REJECT (L777, L790, L974)
func.func @incre_modes_disagree(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<1x2x64xbf16>, %value_antiquant_scale: tensor<1x2x64xbf16>) {
  // expected-error @+1 {{value_antiquant_mode: expected key_antiquant_mode (1), or 1 with key mode 0, got 0 [FIA-135]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, key_antiquant_mode = 1 : i64, value_antiquant_mode = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-136 [prompt] (S) keyAntiquantMode, valueAntiquantMode — strictly equal → REJECT (L932)
func.func @prompt_modes_disagree(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<2x64xbf16>, %value_antiquant_scale: tensor<2x64xbf16>) {
  // expected-error @+1 {{value_antiquant_mode: expected key_antiquant_mode (0) with Q_S > 1, got 1 [FIA-136]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, key_antiquant_mode = 0 : i64, value_antiquant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2x64xbf16>, tensor<2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-137 [prompt] A2 (S) keyAntiquantMode, valueAntiquantMode — each ∈ {0,1} → EXEC-
//   ABNORMAL→REJECT (L785, L791)
func.func @prompt_mode_range(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<2x64xbf16>, %value_antiquant_scale: tensor<2x64xbf16>) {
  // expected-error @+1 {{key_antiquant_mode: expected 0 (per-channel) or 1 (per-token) with Q_S > 1, got 2 [FIA-137]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, key_antiquant_mode = 2 : i64, value_antiquant_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2x64xbf16>, tensor<2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-138 [incre] A2 (S) keyAntiquantMode, valueAntiquantMode — each ∈ {0,1,2,3,4,5} → EXEC-
//   ABNORMAL→REJECT (L785, L791)
func.func @incre_mode_range(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<1x2x64xbf16>, %value_antiquant_scale: tensor<1x2x64xbf16>) {
  // expected-error @+1 {{key_antiquant_mode: expected 0..5 with Q_S = 1, got 7 [FIA-138]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, key_antiquant_mode = 7 : i64, value_antiquant_mode = 7 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1x2x64xbf16>, tensor<1x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-140 [prompt] (S) key/valueAntiquantScale/Offset — non-null ⇒ key scale shape == value scale
//   shape; key offset shape == value offset shape → REJECT (L934)
func.func @prompt_scale_shapes_differ(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<2x64xbf16>, %value_antiquant_scale: tensor<128xbf16>) {
  // expected-error @+1 {{value_antiquant_scale: expected the shape of key_antiquant_scale (2, 64), got tensor<128xbf16> [FIA-140]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2x64xbf16>, tensor<128xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-141 [incre] (S) key/valueAntiquantScale/Offset — non-null ∧ ¬(kMode == 0 ∧ vMode == 1) ⇒
//   key/value scale shapes equal; offset shapes equal → REJECT (L976)
func.func @incre_scale_shapes_differ(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<1x2x64xbf16>, %value_antiquant_scale: tensor<1x128xbf16>) {
  // expected-error @+1 {{value_antiquant_scale: expected the shape of key_antiquant_scale (1, 2, 64), got tensor<1x128xbf16> [FIA-141]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1x2x64xbf16>, tensor<1x128xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-144 [prompt] A2 (S) keyAntiquantScale, query — non-null ⇒ Q_S ≤ 16 → REJECT (L937)
func.func @prompt_separate_long_query(%query: tensor<2x32x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<2x64xbf16>, %value_antiquant_scale: tensor<2x64xbf16>) {
  // expected-error @+1 {{query: separate key/value antiquant needs Q_S <= 16, got 32 [FIA-144]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x32x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2x64xbf16>, tensor<2x64xbf16>) -> (tensor<2x32x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-145 [prompt] A2 (S) keyAntiquantScale, query, key, value, attentionOut — non-null ⇒ query
//   BFLOAT16 ∧ key/value INT8 ∧ out BFLOAT16 → REJECT (L938)
func.func @prompt_separate_f16_query(%query: tensor<2x8x4x64xf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<2x64xbf16>, %value_antiquant_scale: tensor<2x64xbf16>) {
  // expected-error @+1 {{key_antiquant_scale: separate antiquant with Q_S > 1 needs a bf16 query, i8 key/value and bf16 output, got f16, i8, i8, f16 [FIA-145]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2x64xbf16>, tensor<2x64xbf16>) -> (tensor<2x8x4x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-146 [prompt] A2 (S) keyAntiquantScale, key, padding, blockTable — non-null ⇒ len(key) == 1 ∧
//   no left padding active ∧ blockTable == null → REJECT (L939)
func.func @prompt_separate_left_padding(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %kv_padding_size: tensor<1xi64>, %key_antiquant_scale: tensor<2x64xbf16>, %value_antiquant_scale: tensor<2x64xbf16>) {
  // expected-error @+1 {{key_antiquant_scale: separate key/value antiquant with Q_S > 1 does not support left padding [FIA-146]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %kv_padding_size, %key_antiquant_scale, %value_antiquant_scale) {actual_seq_lengths_kv = array<i64: 8>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1xi64>, tensor<2x64xbf16>, tensor<2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-142 [prompt] A2 (S) key/valueAntiquantScale — mode 1 ⇒ shape == (B, S') ∧ dtype FLOAT32 →
//   REJECT (L935)
func.func @prompt_per_token_dtype(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<2x16xbf16>, %value_antiquant_scale: tensor<2x16xbf16>) {
  // expected-error @+1 {{key_antiquant_scale: per-token (mode 1) expects f32 (B = 2, S' >= KV_S = 16), got tensor<2x16xbf16> [FIA-142]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, key_antiquant_mode = 1 : i64, value_antiquant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2x16xbf16>, tensor<2x16xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-143 [prompt] A2 (S) key/valueAntiquantScale — mode 0 ⇒ shape ∈ {(KV_N, D), (KV_N, 1, D),
//   (H_kv)} ∧ dtype BFLOAT16 → REJECT (L935)
func.func @prompt_per_channel_dtype(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<2x64xf16>, %value_antiquant_scale: tensor<2x64xf16>) {
  // expected-error @+1 {{key_antiquant_scale: per-channel (mode 0) expects bf16 (2, 64), (2, 1, 64), (128), got tensor<2x64xf16> [FIA-143]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2x64xf16>, tensor<2x64xf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-157 [incre] (S) key, modes — key INT4 ⇒ mode ∈ {0 per-channel (not shape (1)), 1, 3,
//   (k0,v1)} → REJECT (L985-989)
func.func @incre_int4_mode_2(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x8xi32>, %value: tensor<2x16x2x8xi32>, %key_antiquant_scale: tensor<2xbf16>, %value_antiquant_scale: tensor<2xbf16>) {
  // expected-error @+1 {{key_antiquant_mode: an INT4 key supports per-channel (0), per-token (1), per-token+per-head (3) and key 0 + value 1, got mode 2 [FIA-157]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, key_antiquant_mode = 2 : i64, value_antiquant_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x8xi32>, tensor<2x16x2x8xi32>, tensor<2xbf16>, tensor<2xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-147 [incre] A2 (S) key/valueAntiquantScale, query, key — mode 0 with shape (1) (per-tensor)
//   ⇒ dtype == query dtype ∧ key INT8 → REJECT (L979)
func.func @incre_per_tensor_dtype(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<1xf32>, %value_antiquant_scale: tensor<1xf32>) {
  // expected-error @+1 {{key_antiquant_scale: per-tensor (1) needs the query's element type bf16 and an i8 key, got f32 with an i8 key [FIA-147]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1xf32>, tensor<1xf32>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-148 [incre] A2 (S) key/valueAntiquantScale, query, key — mode 0 per-channel ⇒ shape ∈
//   {(1,KV_N,1,D), (1,KV_N,D), (1,H_kv)} ∧ dtype == query dtype ∧ key ∈ {INT8, INT4} → REJECT
//   (L978)
func.func @incre_per_channel_shape(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<2x64xbf16>, %value_antiquant_scale: tensor<2x64xbf16>) {
  // expected-error @+1 {{key_antiquant_scale: per-channel expects bf16 (1, 2, 64), (1, 2, 1, 64), (1, 128), got tensor<2x64xbf16> [FIA-148]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2x64xbf16>, tensor<2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-149 [incre] A2 (S) key/valueAntiquantScale, key — mode 1 ⇒ shape == (1, B, S') ∧ dtype
//   FLOAT32 ∧ key ∈ {INT8, INT4} → REJECT (L980)
func.func @incre_per_token_shape(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<2x16xf32>, %value_antiquant_scale: tensor<2x16xf32>) {
  // expected-error @+1 {{key_antiquant_scale: per-token expects f32 (1, B = 2, S'), got tensor<2x16xf32> [FIA-149]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, key_antiquant_mode = 1 : i64, value_antiquant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2x16xf32>, tensor<2x16xf32>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-150 [incre] A2 (S) key/valueAntiquantScale, query, key — mode 2 ⇒ shape == (KV_N) ∧ dtype ==
//   query dtype ∧ key INT8 → REJECT (L981)
func.func @incre_per_tensor_head_shape(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<4xbf16>, %value_antiquant_scale: tensor<4xbf16>) {
  // expected-error @+1 {{key_antiquant_scale: per-tensor+per-head (mode 2) expects bf16 (KV_N = 2) and an i8 key, got tensor<4xbf16> with an i8 key [FIA-150]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, key_antiquant_mode = 2 : i64, value_antiquant_mode = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<4xbf16>, tensor<4xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-151 [incre] A2 (S) key/valueAntiquantScale, key — mode 3 ⇒ key ∈ {INT8, INT4}; shape (B,
//   KV_N, S') ∧ dtype FLOAT32 (Rec.; shape SEED SILENT) → REJECT (L977, L988)
func.func @incre_per_token_head_shape(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<1x2x16xf32>, %value_antiquant_scale: tensor<1x2x16xf32>) {
  // expected-error @+1 {{key_antiquant_scale: per-token+per-head (mode 3) expects f32 (B = 2, KV_N = 2, S'), got tensor<1x2x16xf32> [FIA-151]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, key_antiquant_mode = 3 : i64, value_antiquant_mode = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1x2x16xf32>, tensor<1x2x16xf32>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-152 [incre] A2 (S) key/valueAntiquantScale, key, blockTable — mode 4 ⇒ PA (Rec.) ∧ key INT8
//   (Rec.) ∧ shape (nb, bs) ∧ dtype FLOAT32 (Rec.; SEED SILENT) → REJECT (L977)
func.func @incre_mode4_without_paging(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<2x16xf32>, %value_antiquant_scale: tensor<2x16xf32>) {
  // expected-error @+1 {{key_antiquant_scale: mode 4 (scales managed by page attention) needs a block table and an i8 key, got no block table and an i8 key [FIA-152]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, key_antiquant_mode = 4 : i64, value_antiquant_mode = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<2x16xf32>, tensor<2x16xf32>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-153 [incre] A2 (S) key/valueAntiquantScale, key, blockTable — mode 5 ⇒ shape == (nb, KV_N,
//   bs) ∧ dtype FLOAT32 ∧ key INT8 ∧ PA (Rec.) → REJECT (L983)
func.func @incre_mode5_shape(%query: tensor<2x1x256xbf16>, %key: tensor<6x16x128xi8>, %value: tensor<6x16x128xi8>, %block_table: tensor<2x3xi32>, %key_antiquant_scale: tensor<6x16xf32>, %value_antiquant_scale: tensor<6x16xf32>) {
  // expected-error @+1 {{key_antiquant_scale: mode 5 expects f32 (block_num, KV_N, block_size) = (6, 2, 16), got tensor<6x16xf32> [FIA-153]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %block_table, %key_antiquant_scale, %value_antiquant_scale) {actual_seq_lengths_kv = array<i64: 40, 7>, num_heads = 4 : i64, num_key_value_heads = 2 : i64, block_size = 16 : i64, key_antiquant_mode = 5 : i64, value_antiquant_mode = 5 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<6x16x128xi8>, tensor<6x16x128xi8>, tensor<2x3xi32>, tensor<6x16xf32>, tensor<6x16xf32>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-154 [incre] A2 (S) key/valueAntiquant*, query — (kMode 0, vMode 1) ⇒ key params: per-channel
//   shapes with dtype == query dtype; value params: shape (1,B,S') FLOAT32; key ∈ {INT8, INT4} →
//   REJECT (L982)
func.func @incre_key_channel_value_token_dtype(%query: tensor<2x1x4x64xf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<1x128xf16>, %value_antiquant_scale: tensor<1x2x16xf16>) {
  // expected-error @+1 {{value_antiquant_scale: per-token expects f32 (1, B = 2, S'), got tensor<1x2x16xf16> [FIA-154]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, key_antiquant_mode = 0 : i64, value_antiquant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1x128xf16>, tensor<1x2x16xf16>) -> (tensor<2x1x4x64xf16>, tensor<1xf32>)
  return
}

// -----

// FIA-155 [incre] A2 (S) key, query, attentionOut — (kMode 0, vMode 1) ∧ key INT8 ⇒ query FLOAT16
//   ∧ out FLOAT16 → REJECT (L982)
func.func @incre_key_channel_value_token_bf16(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<1x128xbf16>, %value_antiquant_scale: tensor<1x2x16xf32>) {
  // expected-error @+1 {{query: key mode 0 with value mode 1 on an i8 key needs an f16 query and f16 output, got bf16 and bf16 [FIA-155]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, key_antiquant_mode = 0 : i64, value_antiquant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1x128xbf16>, tensor<1x2x16xf32>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-158 [incre] (S/H) per-token scales, blockTable — per-token-type params (mode 1, value side
//   of (0,1), mode 3): PA ⇒ S' ≥ maxBlockNumPerSeq·blockSize; non-PA ⇒ S' ≥ KV_S (Rec.) → REJECT
//   (L963)
func.func @incre_per_token_length(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xi8>, %value: tensor<2x16x2x64xi8>, %key_antiquant_scale: tensor<1x2x8xf32>, %value_antiquant_scale: tensor<1x2x8xf32>) {
  // expected-error @+1 {{key_antiquant_scale: expected S' >= KV_S (16), got tensor<1x2x8xf32> [FIA-158]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, key_antiquant_mode = 1 : i64, value_antiquant_mode = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xi8>, tensor<2x16x2x64xi8>, tensor<1x2x8xf32>, tensor<1x2x8xf32>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.fused_infer_attention_score, one split per static rule of the catalog's
// section 6 (the FIA constraint catalog; rules in docs/rules.md) or of the MLA mode:
// presence, dtypes and formats (6.A), layout and heads (6.B), tensor lists (6.C),
// size limits (6.D), actual lengths (6.E), softmax_lse (6.P), inner_precise and scale_value.
// Each split changes one thing of a valid op; the runtime and eager-only rules are in
// test/python/test_fia_eager.py.

// FIA-002 [both] (S) key — non-null tensorlist with ≥ 1 element → REJECT 161001 (L601)
func.func @key_absent(%query: tensor<2x1x4x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{key: expected a tensor list with at least one tensor, got none (null) [FIA-002]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-003 [both] (S) value — non-null tensorlist with ≥ 1 element → REJECT 161001 (L601)
func.func @value_absent(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{value: expected a tensor list with at least one tensor, got none (null) [FIA-003]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-005 [both] (S) query — dtype ∈ {FLOAT16, BFLOAT16, INT8} → REJECT 161002 (L121, L606)
func.func @query_f32(%query: tensor<2x1x4x64xf32>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{query: expected element type f16, bf16 or i8, got f32 [FIA-005]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xf32>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xf32>, tensor<1xf32>)
  return
}

// -----

// FIA-006 [both] (S) key[i] — dtype ∈ {FLOAT16, BFLOAT16, INT8, INT4, INT32(packed INT4),
//   HIFLOAT8, FLOAT8_E5M2, FLOAT8_E4M3FN, FLOAT4_E1M2, FLOAT4_E2M1} → REJECT 161002 (L131, L606)
func.func @key_f32(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xf32>, %value: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{key: expected element type f16, bf16, i8, i4, i32, f8E5M2, f8E4M3FN or f4E2M1FN, got f32 [FIA-006]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xf32>, tensor<2x16x2x64xf32>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-007 [both] (S) value[i] — dtype in the same set as key → REJECT 161002 (L141, L606)
func.func @value_f32(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xf32>) {
  // expected-error @+1 {{value: expected element type f16, bf16, i8, i4, i32, f8E5M2, f8E4M3FN or f4E2M1FN, got f32 [FIA-007]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xf32>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-008 [both] A2 (S) key, value — dtype ∈ {FLOAT16, BFLOAT16, INT8, INT4/INT32-packed} → REJECT
//   (L673)
func.func @key_fp8_on_a2(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xf8E5M2>, %value: tensor<2x16x2x64xf8E5M2>) {
  // expected-error @+1 {{key: expected element type f16, bf16, i8, i4 or i32, got f8E5M2 [FIA-008]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xf8E5M2>, tensor<2x16x2x64xf8E5M2>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-009 [both] (S) key[*], value[*] — all list elements of key and value share one dtype →
//   REJECT (DERIVED: single "kv_dtype", L701)
func.func @key_value_dtypes_differ(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xf16>) {
  // expected-error @+1 {{value: expected key and value tensors of one element type, got ['bf16', 'f16'] [FIA-009]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-035 [both] (S) key, value — len(key) == len(value) → REJECT (DERIVED L669)
func.func @list_lengths_differ(%query: tensor<2x1x4x64xbf16>, %key0: tensor<1x16x2x64xbf16>, %key1: tensor<1x16x2x64xbf16>, %value: tensor<1x16x2x64xbf16>) {
  // expected-error @+1 {{value: expected as many tensors as key (2), got 1 [FIA-035]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key0, %key1, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-010 [both] (S) attentionOut — dtype ∈ {FLOAT16, BFLOAT16, INT8} → REJECT 161002 (L540, L606)
func.func @out_f32(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{attention_out: expected element type f16, bf16 or i8, got f32 [FIA-010]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xf32>, tensor<1xf32>)
  return
}

// -----

// FIA-011 [both] (S) query, key[i], value[i], attentionOut — format ND → REJECT 161002 (L122,
//   L606)
func.func @key_nz_outside_mla(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16, #mla.format<"FRACTAL_NZ">>, %value: tensor<2x16x2x64xbf16, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{key: expected format ND (FRACTAL_NZ only for the paged cache of the MLA mode), got FRACTAL_NZ [FIA-011]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x16x2x64xbf16, #mla.format<"FRACTAL_NZ">>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-012 [both] (S) pseShift — if present: dtype ∈ {FLOAT16, BFLOAT16} ∧ format ND ∧ rank == 4 →
//   REJECT 161002 (L152-154, L606)
func.func @pse_f32(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %pse_shift: tensor<2x4x1x16xf32>) {
  // expected-error @+1 {{pse_shift: expected element type f16 or bf16, got f32 [FIA-012]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %pse_shift) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x4x1x16xf32>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-013 [both] (S) attenMask — if present: dtype ∈ {BOOL, INT8, UINT8} ∧ format ND ∧ rank ∈
//   {2,3,4} → REJECT 161002 (L163-165, L606)
func.func @mask_f16(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %atten_mask: tensor<2x16xf16>) {
  // expected-error @+1 {{atten_mask: expected element type i1, i8 or ui8, got f16 [FIA-013]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %atten_mask) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16xf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-015 [both] (S) all optional tensor operands — format ND → REJECT (parameter table)
func.func @optional_operand_nz(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>, %kv_padding_size: tensor<1xi64, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{kv_padding_size: expected format ND, got FRACTAL_NZ [FIA-015]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value, %kv_padding_size) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<1xi64, #mla.format<"FRACTAL_NZ">>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-STATIC every operand has a static shape (the seed's rules are about sizes)
func.func @dynamic_shape(%query: tensor<2x?x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{query: expected a static shape, got tensor<2x?x4x64xbf16> [FIA-STATIC]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x?x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-017 [both] (S) inputLayout — ∈ {"BSH","BSND","BNSD","BNSD_BSND"} (TND/NTD_TND only as an
//   opt-in extension) → REJECT (L719). TND, TND_NTD and NTD_TND are accepted (test/lit/dialect/
//   fia-tnd*.mlir); other layouts of the later API (BSH_NBSD, NTD ...) are not.
func.func @layout_unsupported(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{input_layout: expected one of BSH, BSND, BNSD, BNSD_BSND, TND, TND_NTD, NTD_TND, got 'BSND_NBSD' [FIA-017]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND_NBSD", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-019 [both] (S) query — rank == 3 if BSH, else rank == 4 → REJECT (L123, L719)
func.func @bsh_query_rank4(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{query: expected rank 3 for input_layout 'BSH', got tensor<2x1x4x64xbf16> [FIA-019]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-018 [prompt] (S) inputLayout, query — inputLayout == "BNSD_BSND" ⇒ Q_S > 1 → REJECT (L719)
func.func @bnsd_bsnd_incre(%query: tensor<2x4x1x64xbf16>, %key: tensor<2x2x16x64xbf16>, %value: tensor<2x2x16x64xbf16>) {
  // expected-error @+1 {{input_layout: 'BNSD_BSND' needs Q_S > 1 (the prompt branch), got Q_S = 1 [FIA-018]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BNSD_BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x4x1x64xbf16>, tensor<2x2x16x64xbf16>, tensor<2x2x16x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-022 [both] (S) numHeads — ≥ 1 → REJECT (DERIVED)
func.func @zero_heads(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{num_heads: expected >= 1, got 0 [FIA-022]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 0 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-026 [both] (S) numKeyValueHeads — ≥ 0 → REJECT (DERIVED; 0 means = numHeads, L449)
func.func @negative_kv_heads(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{num_key_value_heads: expected >= 0 (0 means num_heads), got -1 [FIA-026]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = -1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-023 [both] (S) numHeads, query — layout ∈ {BNSD, BNSD_BSND} ⇒ numHeads == query.shape[1] →
//   EXEC-ABNORMAL→REJECT (L395)
func.func @bnsd_heads_mismatch(%query: tensor<2x4x1x64xbf16>, %key: tensor<2x2x16x64xbf16>, %value: tensor<2x2x16x64xbf16>) {
  // expected-error @+1 {{num_heads: expected the N axis of query (4), got 2 [FIA-023]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 2 : i64, input_layout = "BNSD", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x4x1x64xbf16>, tensor<2x2x16x64xbf16>, tensor<2x2x16x64xbf16>) -> (tensor<2x4x1x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-024 [both] (S) numHeads, query — layout BSND ⇒ numHeads == query.shape[2] → REJECT (DERIVED
//   L395)
func.func @bsnd_heads_mismatch(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{num_heads: expected the N axis of query (4), got 2 [FIA-024]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 2 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-025 [both] (S) numHeads, query — layout BSH ⇒ query.shape[2] % numHeads == 0 (D :=
//   shape[2]/numHeads) → REJECT (L721)
func.func @bsh_heads_not_dividing(%query: tensor<2x1x256xbf16>, %key: tensor<2x16x128xbf16>, %value: tensor<2x16x128xbf16>) {
  // expected-error @+1 {{num_heads: expected a divisor of the query's H (256), got 3 [FIA-025]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 3 : i64, num_key_value_heads = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<2x16x128xbf16>, tensor<2x16x128xbf16>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-027 [both] (S) numHeads, numKeyValueHeads — numHeads % KV_N == 0 → REJECT (L723)
func.func @kv_heads_not_dividing(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{num_key_value_heads: expected a divisor of num_heads (4), got 3 [FIA-027]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-028 [both] (S) numHeads, numKeyValueHeads — numHeads / KV_N ≤ 64 → REJECT (L723)
func.func @group_above_64(%query: tensor<1x1x128x64xbf16>, %key: tensor<1x16x1x64xbf16>, %value: tensor<1x16x1x64xbf16>) {
  // expected-error @+1 {{num_key_value_heads: num_heads / num_key_value_heads must be <= 64, got 128 / 1 = 128 [FIA-028]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 128 : i64, input_layout = "BSND", num_key_value_heads = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x1x128x64xbf16>, tensor<1x16x1x64xbf16>, tensor<1x16x1x64xbf16>) -> (tensor<1x1x128x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-020 [both] (S) attentionOut — rank == query rank → REJECT (L539, L542)
func.func @out_rank(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{attention_out: expected the rank of query (4), got tensor<2x1x256xbf16> [FIA-020]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x256xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-021 [both] (S) key[i], value[i] — not PA ⇒ rank == query rank → REJECT (DERIVED L719)
func.func @key_rank_without_paging(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x128xbf16>, %value: tensor<2x16x128xbf16>) {
  // expected-error @+1 {{key: expected the rank of query (4) without page attention, got tensor<2x16x128xbf16> [FIA-021]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x128xbf16>, tensor<2x16x128xbf16>) -> (tensor<2x1x4x128xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-029 [both] (S) numKeyValueHeads, key[i], value[i] — not PA ∧ layout BSND ⇒ shape[2] == KV_N;
//   not PA ∧ layout ∈ {BNSD, BNSD_BSND} ⇒ shape[1] == KV_N → EXEC-ABNORMAL→REJECT (L723)
func.func @kv_heads_vs_key_n_axis(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x4x64xbf16>, %value: tensor<2x16x4x64xbf16>) {
  // expected-error @+1 {{num_key_value_heads: expected the N axis of key[0] (4), got 2 [FIA-029]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x4x64xbf16>, tensor<2x16x4x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-030 [both] (S) key[i], value[i] — not PA ∧ layout BSH ⇒ logical shape[2] == KV_N·D → REJECT
//   (DERIVED L721)
func.func @bsh_key_hidden(%query: tensor<2x1x256xbf16>, %key: tensor<2x16x96xbf16>, %value: tensor<2x16x96xbf16>) {
  // expected-error @+1 {{key: expected H = KV_N*D = 2*64 = 128, got tensor<2x16x96xbf16> [FIA-030]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x256xbf16>, tensor<2x16x96xbf16>, tensor<2x16x96xbf16>) -> (tensor<2x1x192xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-031 [both] (S) query, key — logical head dim of key == D of query → REJECT (DERIVED: Q·Kᵀ)
func.func @key_head_dim(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x32xbf16>, %value: tensor<2x16x2x32xbf16>) {
  // expected-error @+1 {{key: expected the head dim D of query (64), got 32 in tensor<2x16x2x32xbf16> [FIA-031]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x32xbf16>, tensor<2x16x2x32xbf16>) -> (tensor<2x1x4x32xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-032 [both] (S) key[i], value[i] — key[i].shape == value[i].shape for every i → REJECT (L669)
func.func @value_shape(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x15x2x64xbf16>) {
  // expected-error @+1 {{value: expected the shape of key (2, 16, 2, 64), got tensor<2x15x2x64xbf16> [FIA-032]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x15x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-034 [both] (S) key[0] — not PA ∧ len(key) == 1 ⇒ key[0].shape[0] == B → REJECT (DERIVED)
func.func @key_batch(%query: tensor<2x1x4x64xbf16>, %key: tensor<3x16x2x64xbf16>, %value: tensor<3x16x2x64xbf16>) {
  // expected-error @+1 {{key: expected batch B = 2 (the query's), got tensor<3x16x2x64xbf16> [FIA-034]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<3x16x2x64xbf16>, tensor<3x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-033 [both] (S) attentionOut — shape == query shape with D := logical value D; BNSD_BSND ⇒
//   [B, Q_S, N, D]; BSH ⇒ [B, Q_S, N·D] → REJECT (L539, L719)
func.func @out_shape(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{attention_out: expected (2, 1, 4, 64) (query shape with the value's D), got tensor<2x1x4x32xbf16> [FIA-033]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x32xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-036 [both] (S) key, query — len(key) > 1 ⇒ len(key) == B → REJECT (L669)
func.func @list_length_vs_batch(%query: tensor<2x1x4x64xbf16>, %key0: tensor<1x16x2x64xbf16>, %key1: tensor<1x16x2x64xbf16>, %key2: tensor<1x16x2x64xbf16>, %value0: tensor<1x16x2x64xbf16>, %value1: tensor<1x16x2x64xbf16>, %value2: tensor<1x16x2x64xbf16>) {
  // expected-error @+1 {{key: expected one tensor per batch (2) in a tensor list, got 3 [FIA-036]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key0, %key1, %key2, %value0, %value1, %value2) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-037 [both] (S) key[i], value[i] — len(key) > 1 ⇒ batch dim (dim 0) == 1 for every element →
//   REJECT (L669)
func.func @list_element_batch(%query: tensor<2x1x4x64xbf16>, %key0: tensor<2x16x2x64xbf16>, %key1: tensor<2x16x2x64xbf16>, %value0: tensor<2x16x2x64xbf16>, %value1: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{key: expected batch 1 in a tensor list, got tensor<2x16x2x64xbf16> (element 0) [FIA-037]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key0, %key1, %value0, %value1) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-040 [both] (S) key, blockTable — len(key) > 1 ⇒ blockTable == null → REJECT (L886, L957)
func.func @list_with_block_table(%query: tensor<2x1x4x64xbf16>, %key0: tensor<1x16x2x64xbf16>, %key1: tensor<1x16x2x64xbf16>, %value0: tensor<1x16x2x64xbf16>, %value1: tensor<1x16x2x64xbf16>, %block_table: tensor<2x1xi32>) {
  // expected-error @+1 {{block_table: page attention is not supported with a key tensor list [FIA-040]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key0, %key1, %value0, %value1, %block_table) {actual_seq_lengths_kv = array<i64: 16>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, block_size = 16 : i64, operandSegmentSizes = array<i32: 1, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>, tensor<2x1xi32>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-041 [both] (S) key, keySharedPrefix — len(key) > 1 ⇒ no prefix → REJECT (L926; incre Rec.)
func.func @list_with_prefix(%query: tensor<2x1x4x64xbf16>, %key0: tensor<1x16x2x64xbf16>, %key1: tensor<1x16x2x64xbf16>, %value0: tensor<1x16x2x64xbf16>, %value1: tensor<1x16x2x64xbf16>, %key_shared_prefix: tensor<1x4x2x64xbf16>, %value_shared_prefix: tensor<1x4x2x64xbf16>) {
  // expected-error @+1 {{key_shared_prefix: a shared prefix is not supported with a key tensor list [FIA-041]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key0, %key1, %value0, %value1, %key_shared_prefix, %value_shared_prefix) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x4x2x64xbf16>, tensor<1x4x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-042 [prompt] (S) key, keyAntiquantScale — len(key) > 1 ⇒ separate antiquant scales null →
//   REJECT (L939)
func.func @prompt_list_separate_antiquant(%query: tensor<2x8x4x64xbf16>, %key0: tensor<1x16x2x64xi8>, %key1: tensor<1x16x2x64xi8>, %value0: tensor<1x16x2x64xi8>, %value1: tensor<1x16x2x64xi8>, %key_antiquant_scale: tensor<2x64xbf16>, %value_antiquant_scale: tensor<2x64xbf16>) {
  // expected-error @+1 {{key_antiquant_scale: separate key/value antiquant is not supported with a key tensor list [FIA-042]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key0, %key1, %value0, %value1, %key_antiquant_scale, %value_antiquant_scale) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<1x16x2x64xi8>, tensor<1x16x2x64xi8>, tensor<1x16x2x64xi8>, tensor<1x16x2x64xi8>, tensor<2x64xbf16>, tensor<2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-055 [prompt] (S/H) actualSeqLengths — non-null ⇒ length == 1 ∨ length ≥ B → REJECT (L688)
func.func @q_lengths_count(%query: tensor<3x8x4x64xbf16>, %key: tensor<3x16x2x64xbf16>, %value: tensor<3x16x2x64xbf16>) {
  // expected-error @+1 {{actual_seq_lengths: expected 1 or at least B = 3 values, got 2 [FIA-055]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 8, 8>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<3x8x4x64xbf16>, tensor<3x16x2x64xbf16>, tensor<3x16x2x64xbf16>) -> (tensor<3x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-057 [prompt] (H) actualSeqLengths — ∀b: asl[b] ≥ 0 → REJECT (Rec.; SEED SILENT)
func.func @q_lengths_negative(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{actual_seq_lengths: expected values >= 0, got [-1, -1] [FIA-057]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: -1>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-056 [prompt] (H) actualSeqLengths — ∀b: asl[b] ≤ Q_S → REJECT (L688)
func.func @q_lengths_above_q_s(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{actual_seq_lengths: expected values <= Q_S = 8, got [9, 2] [FIA-056]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths = array<i64: 9, 2>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-059 [both] (S/H) actualSeqLengthsKv — non-null ⇒ length == 1 ∨ length ≥ B → REJECT (L184,
//   L690)
func.func @kv_lengths_count(%query: tensor<3x1x4x64xbf16>, %key: tensor<3x16x2x64xbf16>, %value: tensor<3x16x2x64xbf16>) {
  // expected-error @+1 {{actual_seq_lengths_kv: expected 1 or at least B = 3 values, got 2 [FIA-059]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths_kv = array<i64: 8, 8>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<3x1x4x64xbf16>, tensor<3x16x2x64xbf16>, tensor<3x16x2x64xbf16>) -> (tensor<3x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-061 [both] (H) actualSeqLengthsKv — ∀b: askv[b] ≥ 0 → REJECT (Rec.; SEED SILENT)
func.func @kv_lengths_negative(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{actual_seq_lengths_kv: expected values >= 0, got [3, -2] [FIA-061]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths_kv = array<i64: 3, -2>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-060 [both] (H) actualSeqLengthsKv — not PA ⇒ ∀b: askv[b] ≤ KV_S_b (tensorlist: S of element
//   b) → REJECT (L184, L690)
func.func @kv_lengths_above_kv_s(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{actual_seq_lengths_kv: batch 0: expected <= the key's S (16), got 17 [FIA-060]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {actual_seq_lengths_kv = array<i64: 17>, num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-043 [prompt] (S) query — B ≤ 65536 → REJECT (L804)
func.func @prompt_batch_limit(%query: tensor<65537x8x4x64xbf16>, %key: tensor<65537x16x2x64xbf16>, %value: tensor<65537x16x2x64xbf16>) {
  // expected-error @+1 {{query: expected B <= 65536, got 65537 [FIA-043]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<65537x8x4x64xbf16>, tensor<65537x16x2x64xbf16>, tensor<65537x16x2x64xbf16>) -> (tensor<65537x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-044 [incre] (S) query — B ≤ 65536 → REJECT (L945)
func.func @incre_batch_limit(%query: tensor<65537x1x4x64xbf16>, %key: tensor<65537x16x2x64xbf16>, %value: tensor<65537x16x2x64xbf16>) {
  // expected-error @+1 {{query: expected B <= 65536, got 65537 [FIA-044]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<65537x1x4x64xbf16>, tensor<65537x16x2x64xbf16>, tensor<65537x16x2x64xbf16>) -> (tensor<65537x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-045 [prompt] (S) numHeads — N ≤ 256 → REJECT (L808)
func.func @prompt_heads_limit(%query: tensor<1x8x512x64xbf16>, %key: tensor<1x16x8x64xbf16>, %value: tensor<1x16x8x64xbf16>) {
  // expected-error @+1 {{num_heads: expected N <= 256, got 512 [FIA-045]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 512 : i64, input_layout = "BSND", num_key_value_heads = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x8x512x64xbf16>, tensor<1x16x8x64xbf16>, tensor<1x16x8x64xbf16>) -> (tensor<1x8x512x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-046 [incre] (S) numHeads — N ≤ 256 → REJECT (L945)
func.func @incre_heads_limit(%query: tensor<1x1x512x64xbf16>, %key: tensor<1x16x8x64xbf16>, %value: tensor<1x16x8x64xbf16>) {
  // expected-error @+1 {{num_heads: expected N <= 256, got 512 [FIA-046]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 512 : i64, input_layout = "BSND", num_key_value_heads = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x1x512x64xbf16>, tensor<1x16x8x64xbf16>, tensor<1x16x8x64xbf16>) -> (tensor<1x1x512x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-047 [prompt] (S) D — D ≤ 512 → REJECT (L808)
func.func @prompt_head_dim_limit(%query: tensor<2x8x4x576xbf16>, %key: tensor<2x16x2x576xbf16>, %value: tensor<2x16x2x576xbf16>) {
  // expected-error @+1 {{query: expected head dim D <= 512, got 576 [FIA-047]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x576xbf16>, tensor<2x16x2x576xbf16>, tensor<2x16x2x576xbf16>) -> (tensor<2x8x4x576xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-048 [incre] (S) D — D ≤ 512 → REJECT (L945)
func.func @incre_head_dim_limit(%query: tensor<2x1x4x576xbf16>, %key: tensor<2x16x2x576xbf16>, %value: tensor<2x16x2x576xbf16>) {
  // expected-error @+1 {{query: expected head dim D <= 512, got 576 [FIA-048]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x576xbf16>, tensor<2x16x2x576xbf16>, tensor<2x16x2x576xbf16>) -> (tensor<2x1x4x576xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-049 [prompt] (S) query — Q_S ≤ 20971520 → REJECT (L810)
func.func @prompt_query_seq_limit(%query: tensor<1x20971521x4x64xbf16>, %key: tensor<1x16x2x64xbf16>, %value: tensor<1x16x2x64xbf16>) {
  // expected-error @+1 {{query: expected Q_S <= 20971520 (20M), got 20971521 [FIA-049]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<1x20971521x4x64xbf16>, tensor<1x16x2x64xbf16>, tensor<1x16x2x64xbf16>) -> (tensor<1x20971521x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-050 [prompt] (S) key[i] — KV_S (each list element) ≤ 20971520 → REJECT (L810)
func.func @prompt_kv_seq_limit(%query: tensor<2x8x4x64xbf16>, %key: tensor<2x20971521x2x64xbf16>, %value: tensor<2x20971521x2x64xbf16>) {
  // expected-error @+1 {{key: expected KV_S <= 20971520 (20M), got 20971521 [FIA-050]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x64xbf16>, tensor<2x20971521x2x64xbf16>, tensor<2x20971521x2x64xbf16>) -> (tensor<2x8x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-051 [prompt] A2 (S) D, dtypes — STRICT variant (⚠ choose this OR the next rule; Rec.
//   STRICT): any of query/key/value/out INT8 ⇒ D % 32 == 0; any INT4 ⇒ D % 64 == 0; all FP16/BF16
//   ⇒ D % 16 == 0 → REJECT (L866)
func.func @prompt_head_dim_alignment(%query: tensor<2x8x4x72xbf16>, %key: tensor<2x16x2x72xbf16>, %value: tensor<2x16x2x72xbf16>) {
  // expected-error @+1 {{query: expected head dim D % 16 == 0 (FLOAT16/BFLOAT16 in query/key/value/out), got 72 [FIA-051]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x8x4x72xbf16>, tensor<2x16x2x72xbf16>, tensor<2x16x2x72xbf16>) -> (tensor<2x8x4x72xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-054 [incre] A2 (S) key, value — dtype INT4 ⇒ logical D % 64 == 0; packed INT32 ⇒ stored last
//   dim % 8 == 0 → REJECT (L950)
func.func @incre_int4_alignment(%query: tensor<2x1x4x72xbf16>, %key: tensor<2x16x2x9xi32>, %value: tensor<2x16x2x9xi32>) {
  // expected-error @+1 {{key: an INT4 key needs head dim D % 64 == 0 (INT32-packed: stored D % 8 == 0), got D = 72 [FIA-054]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x72xbf16>, tensor<2x16x2x9xi32>, tensor<2x16x2x9xi32>) -> (tensor<2x1x4x72xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-214 [both] (S) softmaxLse — flag ⇒ dtype FLOAT32 → REJECT (L550)
func.func @lse_dtype(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{softmax_lse: expected element type f32 with softmax_lse_flag, got f16 [FIA-214]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, softmax_lse_flag = true, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<2x4x1x1xf16>)
  return
}

// -----

// FIA-215 [both] (S) softmaxLse — flag ⇒ shape == [B, N, Q_S, 1] (TND/NTD_TND extension: [T, N,
//   1]) → REJECT (L797)
func.func @lse_shape(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{softmax_lse: expected [B, N, Q_S, 1] = (2, 4, 1, 1) with softmax_lse_flag, got tensor<2x1x4x1xf32> [FIA-215]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, softmax_lse_flag = true, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<2x1x4x1xf32>)
  return
}

// -----

// FIA-216 [both] (—) softmaxLse — ¬flag ⇒ no shape check; a non-null tensor is returned unchanged;
//   null ⇒ a [1] zero tensor → SEMANTIC (L798)
func.func @lse_without_flag(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{softmax_lse: expected tensor<1xf32> without softmax_lse_flag, got tensor<2x4x1x1xf32> [FIA-216]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<2x4x1x1xf32>)
  return
}

// -----

// FIA-090 [both] (S) innerPrecise — ∈ {0,1,2,3} → REJECT (L737; values outside: SEED SILENT, Rec.
//   REJECT)
func.func @inner_precise_range(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{inner_precise: expected 0, 1, 2 or 3, got 4 [FIA-090]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, input_layout = "BSND", num_key_value_heads = 2 : i64, inner_precise = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

// -----

// FIA-234 [both] (S) scaleValue — finite → REJECT (Rec.; SEED SILENT; L404-406)
func.func @scale_infinite(%query: tensor<2x1x4x64xbf16>, %key: tensor<2x16x2x64xbf16>, %value: tensor<2x16x2x64xbf16>) {
  // expected-error @+1 {{scale_value: expected a finite value, got inf [FIA-234]}}
  %out, %lse = "mla.fused_infer_attention_score"(%query, %key, %value) {num_heads = 4 : i64, scale_value = 0x7FF0000000000000 : f64, input_layout = "BSND", num_key_value_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x4x64xbf16>, tensor<2x16x2x64xbf16>, tensor<2x16x2x64xbf16>) -> (tensor<2x1x4x64xbf16>, tensor<1xf32>)
  return
}

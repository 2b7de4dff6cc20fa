// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.attention: one split per failing rule (ATT-001, ATT-002, ATT-003, ATT-004, ATT-005, ATT-006, ATT-007, ATT-008, ATT-009), each op otherwise valid.

// query is (B, S, N, D)
func.func @query_rank(%query: tensor<6x8x64xbf16>, %key: tensor<2x5x2x64xbf16>, %value: tensor<2x5x2x32xbf16>) {
  // expected-error @+1 {{query: expected rank 4 (B, S, N, D), got tensor<6x8x64xbf16> [ATT-001]}}
  %0 = "mla.attention"(%query, %key, %value) : (tensor<6x8x64xbf16>, tensor<2x5x2x64xbf16>, tensor<2x5x2x32xbf16>) -> tensor<2x3x8x32xbf16>
  return
}

// -----

// query is bf16 or f16
func.func @query_dtype(%query: tensor<2x3x8x64xf32>, %key: tensor<2x5x2x64xf32>, %value: tensor<2x5x2x32xf32>) {
  // expected-error @+1 {{query: expected element type bf16 or f16, got f32 [ATT-002]}}
  %0 = "mla.attention"(%query, %key, %value) : (tensor<2x3x8x64xf32>, tensor<2x5x2x64xf32>, tensor<2x5x2x32xf32>) -> tensor<2x3x8x32xbf16>
  return
}

// -----

// value is (B, Skv, Nkv, Dv)
func.func @value_rank(%query: tensor<2x3x8x64xbf16>, %key: tensor<2x5x2x64xbf16>, %value: tensor<10x2x32xbf16>) {
  // expected-error @+1 {{value: expected rank 4 (B, Skv, Nkv, D), got tensor<10x2x32xbf16> [ATT-003]}}
  %0 = "mla.attention"(%query, %key, %value) : (tensor<2x3x8x64xbf16>, tensor<2x5x2x64xbf16>, tensor<10x2x32xbf16>) -> tensor<2x3x8x32xbf16>
  return
}

// -----

// key has the query's type
func.func @key_dtype(%query: tensor<2x3x8x64xbf16>, %key: tensor<2x5x2x64xf16>, %value: tensor<2x5x2x32xbf16>) {
  // expected-error @+1 {{key: expected the element type of query (bf16), got f16 [ATT-004]}}
  %0 = "mla.attention"(%query, %key, %value) : (tensor<2x3x8x64xbf16>, tensor<2x5x2x64xf16>, tensor<2x5x2x32xbf16>) -> tensor<2x3x8x32xbf16>
  return
}

// -----

// the operands are ND
func.func @query_nz(%query: tensor<2x3x8x64xbf16, #mla.format<"FRACTAL_NZ">>, %key: tensor<2x5x2x64xbf16>, %value: tensor<2x5x2x32xbf16>) {
  // expected-error @+1 {{query: expected an ND tensor, got tensor<2x3x8x64xbf16, FRACTAL_NZ> [ATT-005]}}
  %0 = "mla.attention"(%query, %key, %value) : (tensor<2x3x8x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x5x2x64xbf16>, tensor<2x5x2x32xbf16>) -> tensor<2x3x8x32xbf16>
  return
}

// -----

// the mask is ND
func.func @mask_nz(%query: tensor<2x3x8x64xbf16>, %key: tensor<2x5x2x64xbf16>, %value: tensor<2x5x2x32xbf16>, %atten_mask: tensor<3x5xi8, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{atten_mask: expected an ND tensor, got tensor<3x5xi8, FRACTAL_NZ> [ATT-005]}}
  %0 = "mla.attention"(%query, %key, %value, %atten_mask) {operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<2x3x8x64xbf16>, tensor<2x5x2x64xbf16>, tensor<2x5x2x32xbf16>, tensor<3x5xi8, #mla.format<"FRACTAL_NZ">>) -> tensor<2x3x8x32xbf16>
  return
}

// -----

// key has the query's batch
func.func @key_batch(%query: tensor<2x3x8x64xbf16>, %key: tensor<1x5x2x64xbf16>, %value: tensor<2x5x2x32xbf16>) {
  // expected-error @+1 {{key: expected B and D of query (2, 64), got tensor<1x5x2x64xbf16> [ATT-006]}}
  %0 = "mla.attention"(%query, %key, %value) : (tensor<2x3x8x64xbf16>, tensor<1x5x2x64xbf16>, tensor<2x5x2x32xbf16>) -> tensor<2x3x8x32xbf16>
  return
}

// -----

// 3 kv heads cannot serve 8 query heads
func.func @gqa(%query: tensor<2x3x8x64xbf16>, %key: tensor<2x5x3x64xbf16>, %value: tensor<2x5x3x32xbf16>) {
  // expected-error @+1 {{key: expected Nkv dividing the 8 query heads (GQA), got Nkv = 3 [ATT-006]}}
  %0 = "mla.attention"(%query, %key, %value) : (tensor<2x3x8x64xbf16>, tensor<2x5x3x64xbf16>, tensor<2x5x3x32xbf16>) -> tensor<2x3x8x32xbf16>
  return
}

// -----

// value has key's Skv
func.func @value_length(%query: tensor<2x3x8x64xbf16>, %key: tensor<2x5x2x64xbf16>, %value: tensor<2x4x2x32xbf16>) {
  // expected-error @+1 {{value: expected (B, Skv, Nkv) = (2, 5, 2) (key's), got tensor<2x4x2x32xbf16> [ATT-007]}}
  %0 = "mla.attention"(%query, %key, %value) : (tensor<2x3x8x64xbf16>, tensor<2x5x2x64xbf16>, tensor<2x4x2x32xbf16>) -> tensor<2x3x8x32xbf16>
  return
}

// -----

// the mask is (S, Skv)
func.func @mask_shape(%query: tensor<2x3x8x64xbf16>, %key: tensor<2x5x2x64xbf16>, %value: tensor<2x5x2x32xbf16>, %atten_mask: tensor<5x3xi1>) {
  // expected-error @+1 {{atten_mask: expected an i1/i8/ui8 tensor (S, Skv) = (3, 5), got tensor<5x3xi1> [ATT-008]}}
  %0 = "mla.attention"(%query, %key, %value, %atten_mask) {operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<2x3x8x64xbf16>, tensor<2x5x2x64xbf16>, tensor<2x5x2x32xbf16>, tensor<5x3xi1>) -> tensor<2x3x8x32xbf16>
  return
}

// -----

// the mask is boolean or 8-bit
func.func @mask_dtype(%query: tensor<2x3x8x64xbf16>, %key: tensor<2x5x2x64xbf16>, %value: tensor<2x5x2x32xbf16>, %atten_mask: tensor<3x5xf32>) {
  // expected-error @+1 {{atten_mask: expected an i1/i8/ui8 tensor (S, Skv) = (3, 5), got tensor<3x5xf32> [ATT-008]}}
  %0 = "mla.attention"(%query, %key, %value, %atten_mask) {operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<2x3x8x64xbf16>, tensor<2x5x2x64xbf16>, tensor<2x5x2x32xbf16>, tensor<3x5xf32>) -> tensor<2x3x8x32xbf16>
  return
}

// -----

// the output is (B, S, N, Dv)
func.func @out_shape(%query: tensor<2x3x8x64xbf16>, %key: tensor<2x5x2x64xbf16>, %value: tensor<2x5x2x32xbf16>) {
  // expected-error @+1 {{attention_out: expected tensor<2x3x8x32xbf16>, got tensor<2x3x8x64xbf16> [ATT-009]}}
  %0 = "mla.attention"(%query, %key, %value) : (tensor<2x3x8x64xbf16>, tensor<2x5x2x64xbf16>, tensor<2x5x2x32xbf16>) -> tensor<2x3x8x64xbf16>
  return
}

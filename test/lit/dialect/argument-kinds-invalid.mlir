// RUN: mla-opt %s --split-input-file --verify-diagnostics
// Attributes and operands of the wrong kind, in IR: the argument-kind rules every op shares
// (ARG-nnn, docs/errors.md). IRDL checks the kinds of required attributes itself; these are
// the defaulted ones and the tensor types only the Python verifier can read.

func.func @f64_given_an_integer(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{epsilon: expected an f64 float attribute, got 1 : i64 [ARG-004]}}
  %0 = "mla.rms_norm"(%x, %g) {epsilon = 1 : i64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @foreign_encoding(%x: tensor<4x8xf32, "NZ">, %g: tensor<8xf32>) {
  // expected-error-re @+1 {{x: unsupported tensor encoding "NZ" (expected {{.*}}) [ARG-002]}}
  %0 = "mla.rms_norm"(%x, %g) : (tensor<4x8xf32, "NZ">, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @i64_given_a_float(%q: tensor<2x1x512xbf16>, %k: tensor<2x64x512xbf16>) {
  // expected-error @+1 {{num_heads: expected an i64 integer attribute, got 4.000000e+00 : f64 [ARG-003]}}
  %out, %lse = "mla.fused_infer_attention_score"(%q, %k, %k) {num_heads = 4.0 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x512xbf16>, tensor<2x64x512xbf16>, tensor<2x64x512xbf16>) -> (tensor<2x1x512xbf16>, tensor<1xf32>)
  return
}

// -----

func.func @i1_given_an_integer(%q: tensor<2x1x512xbf16>, %k: tensor<2x64x512xbf16>) {
  // expected-error @+1 {{softmax_lse_flag: expected a boolean (i1) attribute, got 1 : i64 [ARG-005]}}
  %out, %lse = "mla.fused_infer_attention_score"(%q, %k, %k) {softmax_lse_flag = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x512xbf16>, tensor<2x64x512xbf16>, tensor<2x64x512xbf16>) -> (tensor<2x1x512xbf16>, tensor<1xf32>)
  return
}

// -----

func.func @string_not_utf8(%q: tensor<2x1x512xbf16>, %k: tensor<2x64x512xbf16>) {
  // expected-error @+1 {{input_layout: expected a UTF-8 string, got "\FF" [ARG-006]}}
  %out, %lse = "mla.fused_infer_attention_score"(%q, %k, %k) {input_layout = "\FF", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x512xbf16>, tensor<2x64x512xbf16>, tensor<2x64x512xbf16>) -> (tensor<2x1x512xbf16>, tensor<1xf32>)
  return
}

// -----

func.func @list_given_an_array_attribute(%q: tensor<2x1x512xbf16>, %k: tensor<2x64x512xbf16>) {
  // expected-error @+1 {{actual_seq_lengths_kv: expected an array<i64: ...> attribute, got [1, 2] [ARG-007]}}
  %out, %lse = "mla.fused_infer_attention_score"(%q, %k, %k) {actual_seq_lengths_kv = [1, 2], operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x512xbf16>, tensor<2x64x512xbf16>, tensor<2x64x512xbf16>) -> (tensor<2x1x512xbf16>, tensor<1xf32>)
  return
}

// -----

// The attention reading this cache asks its producer how it was written (FIA-MLA-20): an
// unreadable cache_mode is the producer's error only.
func.func @pa_nz(
    %x: tensor<2x1x7168xbf16>,
    %w_dq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>,
    %w_uq_qr: tensor<1536x1536xbf16, #mla.format<"FRACTAL_NZ">>,
    %w_uk: tensor<8x128x512xbf16>,
    %w_dkv_kr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>,
    %gamma_cq: tensor<1536xbf16>, %gamma_ckv: tensor<512xbf16>,
    %sin: tensor<2x1x64xbf16>, %cos: tensor<2x1x64xbf16>,
    %slots: tensor<2x1xi64>,
    %kv_cache: tensor<4x16x1x512xbf16>, %kr_cache: tensor<4x16x1x64xbf16>,
    %block_table: tensor<2x2xi32>)
    -> (tensor<2x1x8x512xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>) {
  // expected-error @below {{cache_mode: expected a UTF-8 string, got "\FF" [ARG-006]}}
  %q, %q_rope, %kv, %kr, %dq = "mla.prolog_v2"(%x, %w_dq, %w_uq_qr, %w_uk, %w_dkv_kr, %gamma_cq, %gamma_ckv,
        %sin, %cos, %slots, %kv_cache, %kr_cache)
      {rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, cache_mode = "\FF",
       operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>}
      : (tensor<2x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>,
         tensor<1536x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<8x128x512xbf16>,
         tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>,
         tensor<2x1x64xbf16>, tensor<2x1x64xbf16>, tensor<2x1xi64>,
         tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>)
      -> (tensor<2x1x8x512xbf16>, tensor<2x1x8x64xbf16>, tensor<4x16x1x512xbf16>,
          tensor<4x16x1x64xbf16>, tensor<1xf32>)
  // key = value = the latent cache; key_rope = the rope cache (the MLA mode of FIA).
  %kv_nz = "mla.nz_cache_view"(%kv) : (tensor<4x16x1x512xbf16>) -> tensor<4x16x512xbf16, #mla.format<"FRACTAL_NZ">>
  %kr_nz = "mla.nz_cache_view"(%kr) : (tensor<4x16x1x64xbf16>) -> tensor<4x16x64xbf16, #mla.format<"FRACTAL_NZ">>
  %out, %lse = "mla.fused_infer_attention_score"(%q, %kv_nz, %kv_nz, %block_table, %q_rope, %kr_nz)
      {num_heads = 8 : i64, num_key_value_heads = 1 : i64, scale_value = 0.07 : f64,
       input_layout = "BSND", block_size = 16 : i64, actual_seq_lengths_kv = array<i64: 20, 9>,
       operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>}
      : (tensor<2x1x8x512xbf16>, tensor<4x16x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x16x512xbf16, #mla.format<"FRACTAL_NZ">>,
         tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x16x64xbf16, #mla.format<"FRACTAL_NZ">>)
      -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return %out, %kv, %kr : tensor<2x1x8x512xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>
}

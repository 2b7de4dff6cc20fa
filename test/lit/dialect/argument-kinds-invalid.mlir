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
  %out, %lse = "mla.fused_infer_attention_score"(%q, %k, %k) {num_heads = 4.0 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x512xbf16>, tensor<2x64x512xbf16>, tensor<2x64x512xbf16>) -> (tensor<2x1x512xbf16>, tensor<1xf32>)
  return
}

// -----

func.func @i1_given_an_integer(%q: tensor<2x1x512xbf16>, %k: tensor<2x64x512xbf16>) {
  // expected-error @+1 {{softmax_lse_flag: expected a boolean (i1) attribute, got 1 : i64 [ARG-005]}}
  %out, %lse = "mla.fused_infer_attention_score"(%q, %k, %k) {softmax_lse_flag = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x512xbf16>, tensor<2x64x512xbf16>, tensor<2x64x512xbf16>) -> (tensor<2x1x512xbf16>, tensor<1xf32>)
  return
}

// -----

func.func @string_not_utf8(%q: tensor<2x1x512xbf16>, %k: tensor<2x64x512xbf16>) {
  // expected-error @+1 {{input_layout: expected a UTF-8 string, got "\FF" [ARG-006]}}
  %out, %lse = "mla.fused_infer_attention_score"(%q, %k, %k) {input_layout = "\FF", operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x512xbf16>, tensor<2x64x512xbf16>, tensor<2x64x512xbf16>) -> (tensor<2x1x512xbf16>, tensor<1xf32>)
  return
}

// -----

func.func @list_given_an_array_attribute(%q: tensor<2x1x512xbf16>, %k: tensor<2x64x512xbf16>) {
  // expected-error @+1 {{actual_seq_lengths_kv: expected an array<i64: ...> attribute, got [1, 2] [ARG-007]}}
  %out, %lse = "mla.fused_infer_attention_score"(%q, %k, %k) {actual_seq_lengths_kv = [1, 2], operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x1x512xbf16>, tensor<2x64x512xbf16>, tensor<2x64x512xbf16>) -> (tensor<2x1x512xbf16>, tensor<1xf32>)
  return
}

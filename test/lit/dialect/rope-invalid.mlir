// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.rope: one split per failing rule (ROPE-001, ROPE-002, ROPE-003, ROPE-004, ROPE-005, ROPE-006, ROPE-007), each op otherwise valid.

// x is a float
func.func @x_int(%x: tensor<2x3x4x64xi8>, %cos: tensor<2x3x1x64xbf16>, %sin: tensor<2x3x1x64xbf16>) {
  // expected-error @+1 {{x: expected element type bf16, f16 or f32, got i8 [ROPE-001]}}
  %0 = "mla.rope"(%x, %cos, %sin) : (tensor<2x3x4x64xi8>, tensor<2x3x1x64xbf16>, tensor<2x3x1x64xbf16>) -> tensor<2x3x4x64xbf16>
  return
}

// -----

// the features are pairs
func.func @x_odd(%x: tensor<2x3x4x63xbf16>, %cos: tensor<2x3x1x64xbf16>, %sin: tensor<2x3x1x64xbf16>) {
  // expected-error @+1 {{x: expected rank >= 1 and an even last dimension (pairs of features), got tensor<2x3x4x63xbf16> [ROPE-002]}}
  %0 = "mla.rope"(%x, %cos, %sin) : (tensor<2x3x4x63xbf16>, tensor<2x3x1x64xbf16>, tensor<2x3x1x64xbf16>) -> tensor<2x3x4x63xbf16>
  return
}

// -----

// x has no feature axis
func.func @x_rank(%x: tensor<bf16>, %cos: tensor<2x3x1x64xbf16>, %sin: tensor<2x3x1x64xbf16>) {
  // expected-error @+1 {{x: expected rank >= 1 and an even last dimension (pairs of features), got tensor<bf16> [ROPE-002]}}
  %0 = "mla.rope"(%x, %cos, %sin) : (tensor<bf16>, tensor<2x3x1x64xbf16>, tensor<2x3x1x64xbf16>) -> tensor<bf16>
  return
}

// -----

// the tables are floats
func.func @sin_int(%x: tensor<2x3x4x64xbf16>, %cos: tensor<2x3x1x64xbf16>, %sin: tensor<2x3x1x64xi8>) {
  // expected-error @+1 {{sin: expected element type bf16, f16 or f32, got i8 [ROPE-003]}}
  %0 = "mla.rope"(%x, %cos, %sin) : (tensor<2x3x4x64xbf16>, tensor<2x3x1x64xbf16>, tensor<2x3x1x64xi8>) -> tensor<2x3x4x64xbf16>
  return
}

// -----

// cos and sin have one type
func.func @cos_sin_differ(%x: tensor<2x3x4x64xbf16>, %cos: tensor<3x1x64xbf16>, %sin: tensor<2x3x1x64xbf16>) {
  // expected-error @+1 {{cos: expected the type of sin (tensor<2x3x1x64xbf16>), got tensor<3x1x64xbf16> [ROPE-004]}}
  %0 = "mla.rope"(%x, %cos, %sin) : (tensor<2x3x4x64xbf16>, tensor<3x1x64xbf16>, tensor<2x3x1x64xbf16>) -> tensor<2x3x4x64xbf16>
  return
}

// -----

// the tables are full-width rows (concat(freqs, freqs))
func.func @cos_width(%x: tensor<2x3x4x64xbf16>, %cos: tensor<2x3x1x32xbf16>, %sin: tensor<2x3x1x32xbf16>) {
  // expected-error @+1 {{cos: expected a shape that broadcasts to x (2, 3, 4, 64) with the same last dimension, got (2, 3, 1, 32) [ROPE-004]}}
  %0 = "mla.rope"(%x, %cos, %sin) : (tensor<2x3x4x64xbf16>, tensor<2x3x1x32xbf16>, tensor<2x3x1x32xbf16>) -> tensor<2x3x4x64xbf16>
  return
}

// -----

// the tables broadcast to x
func.func @cos_broadcast(%x: tensor<2x3x4x64xbf16>, %cos: tensor<2x2x1x64xbf16>, %sin: tensor<2x2x1x64xbf16>) {
  // expected-error @+1 {{cos: expected a shape that broadcasts to x (2, 3, 4, 64) with the same last dimension, got (2, 2, 1, 64) [ROPE-004]}}
  %0 = "mla.rope"(%x, %cos, %sin) : (tensor<2x3x4x64xbf16>, tensor<2x2x1x64xbf16>, tensor<2x2x1x64xbf16>) -> tensor<2x3x4x64xbf16>
  return
}

// -----

// mode is interleave or half
func.func @mode(%x: tensor<2x3x4x64xbf16>, %cos: tensor<2x3x1x64xbf16>, %sin: tensor<2x3x1x64xbf16>) {
  // expected-error @+1 {{mode: expected "interleave" or "half", got 'neox' [ROPE-005]}}
  %0 = "mla.rope"(%x, %cos, %sin) {mode = "neox"} : (tensor<2x3x4x64xbf16>, tensor<2x3x1x64xbf16>, tensor<2x3x1x64xbf16>) -> tensor<2x3x4x64xbf16>
  return
}

// -----

// the tables are ND
func.func @cos_nz(%x: tensor<2x3x4x64xbf16>, %cos: tensor<2x3x1x64xbf16, #mla.format<"FRACTAL_NZ">>, %sin: tensor<2x3x1x64xbf16, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{cos: expected an ND tensor, got tensor<2x3x1x64xbf16, FRACTAL_NZ> [ROPE-006]}}
  %0 = "mla.rope"(%x, %cos, %sin) : (tensor<2x3x4x64xbf16>, tensor<2x3x1x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x3x1x64xbf16, #mla.format<"FRACTAL_NZ">>) -> tensor<2x3x4x64xbf16>
  return
}

// -----

// y has x's shape
func.func @y_shape(%x: tensor<2x3x4x64xbf16>, %cos: tensor<2x3x1x64xbf16>, %sin: tensor<2x3x1x64xbf16>) {
  // expected-error @+1 {{y: expected tensor<2x3x4x64xbf16>, got tensor<2x3x4x32xbf16> [ROPE-007]}}
  %0 = "mla.rope"(%x, %cos, %sin) : (tensor<2x3x4x64xbf16>, tensor<2x3x1x64xbf16>, tensor<2x3x1x64xbf16>) -> tensor<2x3x4x32xbf16>
  return
}

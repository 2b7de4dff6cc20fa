// RUN: mla-opt %s --split-input-file --verify-diagnostics
// One split per static rule of the DSA indexer's primitive ops (dialect/primitive/indexer.py:
// mla.layer_norm, relu, batch_matmul, paged_gather, length_mask, masked_fill, top_k, index_mask)
// and mla.masked_paged_attention's mask of unselected keys (its other rules are paged attention's:
// paged_attention-invalid.mlir); each mutates one thing of a valid op. The
// data rules (PG-005, IM-004) are in test/python/test_dsa_primitives.py.

// -----

// LN-001: x float, rank >= 1
func.func @ln_int(%x: tensor<2x3x128xi32>, %gamma: tensor<128xbf16>, %beta: tensor<128xbf16>) {
  // expected-error @+1 {{x: expected element type bf16, f16 or f32, got i32 [LN-001]}}
  %0 = "mla.layer_norm"(%x, %gamma, %beta) {epsilon = 1.0e-06 : f64} : (tensor<2x3x128xi32>, tensor<128xbf16>, tensor<128xbf16>) -> (tensor<2x3x128xi32>)
  return
}

// -----

// LN-002: gamma (H,)
func.func @ln_gamma(%x: tensor<2x3x128xbf16>, %gamma: tensor<64xbf16>, %beta: tensor<128xbf16>) {
  // expected-error @+1 {{gamma: expected a float tensor (128,) (the last dimension of x), got tensor<64xbf16> [LN-002]}}
  %0 = "mla.layer_norm"(%x, %gamma, %beta) {epsilon = 1.0e-06 : f64} : (tensor<2x3x128xbf16>, tensor<64xbf16>, tensor<128xbf16>) -> (tensor<2x3x128xbf16>)
  return
}

// -----

// LN-002: beta (H,)
func.func @ln_beta(%x: tensor<2x3x128xbf16>, %gamma: tensor<128xbf16>, %beta: tensor<128xi8>) {
  // expected-error @+1 {{beta: expected a float tensor (128,) (the last dimension of x), got tensor<128xi8> [LN-002]}}
  %0 = "mla.layer_norm"(%x, %gamma, %beta) {epsilon = 1.0e-06 : f64} : (tensor<2x3x128xbf16>, tensor<128xbf16>, tensor<128xi8>) -> (tensor<2x3x128xbf16>)
  return
}

// -----

// LN-003: ND
func.func @ln_nz(%x: tensor<2x16x128xbf16, #mla.format<"FRACTAL_NZ">>, %gamma: tensor<128xbf16>, %beta: tensor<128xbf16>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<2x16x128xbf16, FRACTAL_NZ> [LN-003]}}
  %0 = "mla.layer_norm"(%x, %gamma, %beta) {epsilon = 1.0e-06 : f64} : (tensor<2x16x128xbf16, #mla.format<"FRACTAL_NZ">>, tensor<128xbf16>, tensor<128xbf16>) -> (tensor<2x16x128xbf16>)
  return
}

// -----

// LN-003: ND
func.func @ln_g_nz(%x: tensor<2x3x128xbf16>, %gamma: tensor<128xbf16, #mla.format<"FRACTAL_NZ">>, %beta: tensor<128xbf16>) {
  // expected-error @+1 {{gamma: expected an ND tensor, got tensor<128xbf16, FRACTAL_NZ> [LN-003]}}
  %0 = "mla.layer_norm"(%x, %gamma, %beta) {epsilon = 1.0e-06 : f64} : (tensor<2x3x128xbf16>, tensor<128xbf16, #mla.format<"FRACTAL_NZ">>, tensor<128xbf16>) -> (tensor<2x3x128xbf16>)
  return
}

// -----

// LN-003: ND
func.func @ln_b_nz(%x: tensor<2x3x128xbf16>, %gamma: tensor<128xbf16>, %beta: tensor<128xbf16, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{beta: expected an ND tensor, got tensor<128xbf16, FRACTAL_NZ> [LN-003]}}
  %0 = "mla.layer_norm"(%x, %gamma, %beta) {epsilon = 1.0e-06 : f64} : (tensor<2x3x128xbf16>, tensor<128xbf16>, tensor<128xbf16, #mla.format<"FRACTAL_NZ">>) -> (tensor<2x3x128xbf16>)
  return
}

// -----

// LN-004: epsilon > 0
func.func @ln_eps(%x: tensor<2x3x128xbf16>, %gamma: tensor<128xbf16>, %beta: tensor<128xbf16>) {
  // expected-error @+1 {{epsilon: must be a finite number > 0, got 0.0 [LN-004]}}
  %0 = "mla.layer_norm"(%x, %gamma, %beta) {epsilon = 0.0 : f64} : (tensor<2x3x128xbf16>, tensor<128xbf16>, tensor<128xbf16>) -> (tensor<2x3x128xbf16>)
  return
}

// -----

// LN-005: y: x's shape
func.func @ln_y(%x: tensor<2x3x128xbf16>, %gamma: tensor<128xbf16>, %beta: tensor<128xbf16>) {
  // expected-error @+1 {{y: expected tensor<2x3x128xbf16>, got tensor<2x3x64xbf16> [LN-005]}}
  %0 = "mla.layer_norm"(%x, %gamma, %beta) {epsilon = 1.0e-06 : f64} : (tensor<2x3x128xbf16>, tensor<128xbf16>, tensor<128xbf16>) -> (tensor<2x3x64xbf16>)
  return
}

// -----

// RELU-001: float
func.func @relu_int(%x: tensor<4x8xi64>) {
  // expected-error @+1 {{x: expected element type bf16, f16 or f32, got i64 [RELU-001]}}
  %0 = "mla.relu"(%x) {} : (tensor<4x8xi64>) -> (tensor<4x8xi64>)
  return
}

// -----

// RELU-002: ND
func.func @relu_nz(%x: tensor<16x16xf32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<16x16xf32, FRACTAL_NZ> [RELU-002]}}
  %0 = "mla.relu"(%x) {} : (tensor<16x16xf32, #mla.format<"FRACTAL_NZ">>) -> (tensor<16x16xf32>)
  return
}

// -----

// RELU-003: y: x's shape
func.func @relu_y(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{y: expected tensor<4x8xf32>, got tensor<4x9xf32> [RELU-003]}}
  %0 = "mla.relu"(%x) {} : (tensor<4x8xf32>) -> (tensor<4x9xf32>)
  return
}

// -----

// BMM-001: rank >= 3
func.func @bmm_rank(%x: tensor<3x8xf32>, %y: tensor<2x8x5xf32>) {
  // expected-error @+1 {{x: expected rank >= 3 (..., M, K), got tensor<3x8xf32> [BMM-001]}}
  %0 = "mla.batch_matmul"(%x, %y) {} : (tensor<3x8xf32>, tensor<2x8x5xf32>) -> (tensor<3x5xf32>)
  return
}

// -----

// BMM-001: rank >= 3
func.func @bmm_rank_y(%x: tensor<2x3x8xf32>, %y: tensor<8x5xf32>) {
  // expected-error @+1 {{y: expected rank >= 3 (..., K, N), got tensor<8x5xf32> [BMM-001]}}
  %0 = "mla.batch_matmul"(%x, %y) {} : (tensor<2x3x8xf32>, tensor<8x5xf32>) -> (tensor<2x3x5xf32>)
  return
}

// -----

// BMM-002: float
func.func @bmm_int(%x: tensor<2x3x8xi8>, %y: tensor<2x8x5xi8>) {
  // expected-error @+1 {{x: expected element type bf16, f16 or f32, got i8 [BMM-002]}}
  %0 = "mla.batch_matmul"(%x, %y) {} : (tensor<2x3x8xi8>, tensor<2x8x5xi8>) -> (tensor<2x3x5xi8>)
  return
}

// -----

// BMM-002: y of x's type
func.func @bmm_mix(%x: tensor<2x3x8xf32>, %y: tensor<2x8x5xbf16>) {
  // expected-error @+1 {{y: expected the element type of x (f32), got bf16 [BMM-002]}}
  %0 = "mla.batch_matmul"(%x, %y) {} : (tensor<2x3x8xf32>, tensor<2x8x5xbf16>) -> (tensor<2x3x5xf32>)
  return
}

// -----

// BMM-003: y (..., K, N) with x's batch
func.func @bmm_k(%x: tensor<2x3x8xf32>, %y: tensor<2x7x5xf32>) {
  // expected-error @+1 {{y: expected x's batch dimensions (2) and K = 8: (2, 8, 5), got tensor<2x7x5xf32> [BMM-003]}}
  %0 = "mla.batch_matmul"(%x, %y) {} : (tensor<2x3x8xf32>, tensor<2x7x5xf32>) -> (tensor<2x3x5xf32>)
  return
}

// -----

// BMM-004: ND
func.func @bmm_nz(%x: tensor<2x16x16xf32, #mla.format<"FRACTAL_NZ">>, %y: tensor<2x16x5xf32>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<2x16x16xf32, FRACTAL_NZ> [BMM-004]}}
  %0 = "mla.batch_matmul"(%x, %y) {} : (tensor<2x16x16xf32, #mla.format<"FRACTAL_NZ">>, tensor<2x16x5xf32>) -> (tensor<2x16x5xf32>)
  return
}

// -----

// BMM-004: ND
func.func @bmm_nz_y(%x: tensor<2x3x8xf32>, %y: tensor<2x8x16xf32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{y: expected an ND tensor, got tensor<2x8x16xf32, FRACTAL_NZ> [BMM-004]}}
  %0 = "mla.batch_matmul"(%x, %y) {} : (tensor<2x3x8xf32>, tensor<2x8x16xf32, #mla.format<"FRACTAL_NZ">>) -> (tensor<2x3x16xf32>)
  return
}

// -----

// BMM-005: z (..., M, N)
func.func @bmm_z(%x: tensor<2x3x8xf32>, %y: tensor<2x8x5xf32>) {
  // expected-error @+1 {{z: expected tensor<2x3x5xf32>, got tensor<2x3x8xf32> [BMM-005]}}
  %0 = "mla.batch_matmul"(%x, %y) {} : (tensor<2x3x8xf32>, tensor<2x8x5xf32>) -> (tensor<2x3x8xf32>)
  return
}

// -----

// PG-001: rank 4
func.func @pg_rank(%cache: tensor<4x16x128xbf16>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{cache: expected rank 4 (BlockNum, BlockSize, Nkv, D), got tensor<4x16x128xbf16> [PG-001]}}
  %0 = "mla.paged_gather"(%cache, %block_table) {} : (tensor<4x16x128xbf16>, tensor<2x2xi32>) -> (tensor<2x32x128xbf16>)
  return
}

// -----

// PG-002: rank 2
func.func @pg_bt_rank(%cache: tensor<4x16x1x128xbf16>, %block_table: tensor<4xi32>) {
  // expected-error @+1 {{block_table: expected rank 2 (B, blocks per sequence), got tensor<4xi32> [PG-002]}}
  %0 = "mla.paged_gather"(%cache, %block_table) {} : (tensor<4x16x1x128xbf16>, tensor<4xi32>) -> (tensor<2x32x1x128xbf16>)
  return
}

// -----

// PG-002: i32
func.func @pg_bt_i64(%cache: tensor<4x16x1x128xbf16>, %block_table: tensor<2x2xi64>) {
  // expected-error @+1 {{block_table: expected element type i32, got i64 [PG-002]}}
  %0 = "mla.paged_gather"(%cache, %block_table) {} : (tensor<4x16x1x128xbf16>, tensor<2x2xi64>) -> (tensor<2x32x1x128xbf16>)
  return
}

// -----

// PG-003: ND
func.func @pg_nz(%cache: tensor<4x16x1x128xbf16, #mla.format<"FRACTAL_NZ">>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{cache: expected an ND tensor, got tensor<4x16x1x128xbf16, FRACTAL_NZ> [PG-003]}}
  %0 = "mla.paged_gather"(%cache, %block_table) {} : (tensor<4x16x1x128xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x2xi32>) -> (tensor<2x32x1x128xbf16>)
  return
}

// -----

// PG-003: ND
func.func @pg_bt_nz(%cache: tensor<4x16x1x128xbf16>, %block_table: tensor<2x2xi32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{block_table: expected an ND tensor, got tensor<2x2xi32, FRACTAL_NZ> [PG-003]}}
  %0 = "mla.paged_gather"(%cache, %block_table) {} : (tensor<4x16x1x128xbf16>, tensor<2x2xi32, #mla.format<"FRACTAL_NZ">>) -> (tensor<2x32x1x128xbf16>)
  return
}

// -----

// PG-004: y (B, M*BlockSize, Nkv, D)
func.func @pg_y(%cache: tensor<4x16x1x128xbf16>, %block_table: tensor<2x2xi32>) {
  // expected-error @+1 {{y: expected tensor<2x32x1x128xbf16>, got tensor<2x16x1x128xbf16> [PG-004]}}
  %0 = "mla.paged_gather"(%cache, %block_table) {} : (tensor<4x16x1x128xbf16>, tensor<2x2xi32>) -> (tensor<2x16x1x128xbf16>)
  return
}

// -----

// LM-001: 1-D integers
func.func @lm_f32(%seq_lengths: tensor<2xf32>) {
  // expected-error @+1 {{seq_lengths: expected a 1-D i32 or i64 tensor (B,), got tensor<2xf32> [LM-001]}}
  %0 = "mla.length_mask"(%seq_lengths) {} : (tensor<2xf32>) -> (tensor<2x3x64xi1>)
  return
}

// -----

// LM-002: ND
func.func @lm_nz(%seq_lengths: tensor<2xi64, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{seq_lengths: expected an ND tensor, got tensor<2xi64, FRACTAL_NZ> [LM-002]}}
  %0 = "mla.length_mask"(%seq_lengths) {} : (tensor<2xi64, #mla.format<"FRACTAL_NZ">>) -> (tensor<2x3x64xi1>)
  return
}

// -----

// LM-003: i1 (B, S, T)
func.func @lm_mask(%seq_lengths: tensor<2xi64>) {
  // expected-error @+1 {{mask: expected an i1 tensor (B, S, T) with B = 2 and static S, T, got tensor<3x3x64xi1> [LM-003]}}
  %0 = "mla.length_mask"(%seq_lengths) {} : (tensor<2xi64>) -> (tensor<3x3x64xi1>)
  return
}

// -----

// MF-001: float
func.func @mf_int(%x: tensor<2x3x64xi32>, %mask: tensor<2x3x64xi1>) {
  // expected-error @+1 {{x: expected element type bf16, f16 or f32, got i32 [MF-001]}}
  %0 = "mla.masked_fill"(%x, %mask) {value = -10000.0 : f64} : (tensor<2x3x64xi32>, tensor<2x3x64xi1>) -> (tensor<2x3x64xi32>)
  return
}

// -----

// MF-002: i1 broadcasting to x
func.func @mf_mask(%x: tensor<2x3x64xf32>, %mask: tensor<2x3x64xi8>) {
  // expected-error @+1 {{mask: expected an i1 tensor that broadcasts to x (2, 3, 64), got tensor<2x3x64xi8> [MF-002]}}
  %0 = "mla.masked_fill"(%x, %mask) {value = -10000.0 : f64} : (tensor<2x3x64xf32>, tensor<2x3x64xi8>) -> (tensor<2x3x64xf32>)
  return
}

// -----

// MF-003: ND
func.func @mf_nz(%x: tensor<2x16x64xf32, #mla.format<"FRACTAL_NZ">>, %mask: tensor<2x16x64xi1>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<2x16x64xf32, FRACTAL_NZ> [MF-003]}}
  %0 = "mla.masked_fill"(%x, %mask) {value = -10000.0 : f64} : (tensor<2x16x64xf32, #mla.format<"FRACTAL_NZ">>, tensor<2x16x64xi1>) -> (tensor<2x16x64xf32>)
  return
}

// -----

// MF-003: ND
func.func @mf_mask_nz(%x: tensor<2x3x64xf32>, %mask: tensor<2x3x64xi1, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{mask: expected an ND tensor, got tensor<2x3x64xi1, FRACTAL_NZ> [MF-003]}}
  %0 = "mla.masked_fill"(%x, %mask) {value = -10000.0 : f64} : (tensor<2x3x64xf32>, tensor<2x3x64xi1, #mla.format<"FRACTAL_NZ">>) -> (tensor<2x3x64xf32>)
  return
}

// -----

// MF-004: y: x's type
func.func @mf_y(%x: tensor<2x3x64xf32>, %mask: tensor<2x3x64xi1>) {
  // expected-error @+1 {{y: expected element type f32, got bf16 [MF-004]}}
  %0 = "mla.masked_fill"(%x, %mask) {value = -10000.0 : f64} : (tensor<2x3x64xf32>, tensor<2x3x64xi1>) -> (tensor<2x3x64xbf16>)
  return
}

// -----

// TK-001: float
func.func @tk_int(%x: tensor<2x3x64xi32>) {
  // expected-error @+1 {{x: expected element type bf16, f16 or f32, got i32 [TK-001]}}
  %0:2 = "mla.top_k"(%x) {k = 16 : i64} : (tensor<2x3x64xi32>) -> (tensor<2x3x16xi32>, tensor<2x3x16xi64>)
  return
}

// -----

// TK-002: ND
func.func @tk_nz(%x: tensor<2x16x64xf32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{x: expected an ND tensor, got tensor<2x16x64xf32, FRACTAL_NZ> [TK-002]}}
  %0:2 = "mla.top_k"(%x) {k = 16 : i64} : (tensor<2x16x64xf32, #mla.format<"FRACTAL_NZ">>) -> (tensor<2x16x16xf32>, tensor<2x16x16xi64>)
  return
}

// -----

// TK-003: 1 <= k <= T
func.func @tk_k(%x: tensor<2x3x64xf32>) {
  // expected-error @+1 {{k: expected 1 <= k <= 64 (the last dimension of x), got 65 [TK-003]}}
  %0:2 = "mla.top_k"(%x) {k = 65 : i64} : (tensor<2x3x64xf32>) -> (tensor<2x3x65xf32>, tensor<2x3x65xi64>)
  return
}

// -----

// TK-004: values (..., k)
func.func @tk_values(%x: tensor<2x3x64xf32>) {
  // expected-error @+1 {{values: expected tensor<2x3x16xf32>, got tensor<2x3x8xf32> [TK-004]}}
  %0:2 = "mla.top_k"(%x) {k = 16 : i64} : (tensor<2x3x64xf32>) -> (tensor<2x3x8xf32>, tensor<2x3x16xi64>)
  return
}

// -----

// TK-004: indices i64
func.func @tk_indices(%x: tensor<2x3x64xf32>) {
  // expected-error @+1 {{indices: expected element type i64, got i32 [TK-004]}}
  %0:2 = "mla.top_k"(%x) {k = 16 : i64} : (tensor<2x3x64xf32>) -> (tensor<2x3x16xf32>, tensor<2x3x16xi32>)
  return
}

// -----

// IM-001: integers
func.func @im_f32(%indices: tensor<2x3x16xf32>) {
  // expected-error @+1 {{indices: expected element type i32 or i64, got f32 [IM-001]}}
  %0 = "mla.index_mask"(%indices) {} : (tensor<2x3x16xf32>) -> (tensor<2x3x64xi1>)
  return
}

// -----

// IM-002: ND
func.func @im_nz(%indices: tensor<2x16x16xi64, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{indices: expected an ND tensor, got tensor<2x16x16xi64, FRACTAL_NZ> [IM-002]}}
  %0 = "mla.index_mask"(%indices) {} : (tensor<2x16x16xi64, #mla.format<"FRACTAL_NZ">>) -> (tensor<2x16x64xi1>)
  return
}

// -----

// IM-003: i1 with indices' leading shape
func.func @im_mask(%indices: tensor<2x3x16xi64>) {
  // expected-error @+1 {{mask: expected an i1 tensor of indices' shape with a static last dimension T, got tensor<2x4x64xi1> [IM-003]}}
  %0 = "mla.index_mask"(%indices) {} : (tensor<2x3x16xi64>) -> (tensor<2x4x64xi1>)
  return
}

// -----

// PA-020: atten_mask i1 (B, S, blocks * BlockSize)
func.func @pa_mask(%query: tensor<1x2x8x512xbf16>, %key_cache: tensor<3x128x1x512xbf16>, %block_table: tensor<1x2xi32>, %seq_lengths: tensor<1xi64>, %atten_mask: tensor<1x2x128xi1>, %query_rope: tensor<1x2x8x64xbf16>, %key_rope_cache: tensor<3x128x1x64xbf16>) {
  // expected-error @+1 {{atten_mask: expected an i1 tensor (B, S, blocks per sequence * BlockSize) = (1, 2, 256) (True: a key the attention does not read), got tensor<1x2x128xi1> [PA-020]}}
  %0 = "mla.masked_paged_attention"(%query, %key_cache, %key_cache, %block_table, %seq_lengths, %atten_mask, %query_rope, %key_rope_cache) {scale_value = 0.07 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<1x2x8x512xbf16>, tensor<3x128x1x512xbf16>, tensor<3x128x1x512xbf16>, tensor<1x2xi32>, tensor<1xi64>, tensor<1x2x128xi1>, tensor<1x2x8x64xbf16>, tensor<3x128x1x64xbf16>) -> (tensor<1x2x8x512xbf16>)
  return
}

// -----

// PA-005: ND
func.func @pa_mask_nz(%query: tensor<1x2x8x512xbf16>, %key_cache: tensor<3x128x1x512xbf16>, %block_table: tensor<1x2xi32>, %seq_lengths: tensor<1xi64>, %atten_mask: tensor<1x2x256xi1, #mla.format<"FRACTAL_NZ">>, %query_rope: tensor<1x2x8x64xbf16>, %key_rope_cache: tensor<3x128x1x64xbf16>) {
  // expected-error @+1 {{atten_mask: expected an ND tensor, got tensor<1x2x256xi1, FRACTAL_NZ> [PA-005]}}
  %0 = "mla.masked_paged_attention"(%query, %key_cache, %key_cache, %block_table, %seq_lengths, %atten_mask, %query_rope, %key_rope_cache) {scale_value = 0.07 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<1x2x8x512xbf16>, tensor<3x128x1x512xbf16>, tensor<3x128x1x512xbf16>, tensor<1x2xi32>, tensor<1xi64>, tensor<1x2x256xi1, #mla.format<"FRACTAL_NZ">>, tensor<1x2x8x64xbf16>, tensor<3x128x1x64xbf16>) -> (tensor<1x2x8x512xbf16>)
  return
}

// RUN: mla-opt %s --split-input-file --verify-diagnostics
// One split per static rule of checklist D2 (the prolog/NSA constraint catalog; rules in docs/rules.md); each mutates one
// thing of a valid TND op (B = 2, N1 = 8, N2 = 2, D1 = 32, D2 = 16, 8 blocks of 16,
// l = 32, d = 16, l' = 32, K = 4, L = [40, 50]). The eager-only rules (NSA-001..003,
// NSA-016, NSA-019, NSA-059) are in test/python/test_nsa_eager.py.

// NSA-004: blockTableOptional: 当前算子只支持paged attention，该参数必须传入
func.func @no_block_table(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>) {
  // expected-error @+1 {{block_table: is required (the operator supports paged attention only), got none [NSA-004]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-005: actualCmpKvSeqLenOptional: 该参数必须传入
func.func @no_cmp_lengths(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{actual_cmp_seq_kvlen: is required (the operator supports paged attention only), got none [NSA-005]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-018: query: 数据格式支持ND
func.func @query_nz(%q: tensor<2x8x32xbf16, #mla.format<"FRACTAL_NZ">>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{query: expected format ND, got FRACTAL_NZ [NSA-018]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16, #mla.format<"FRACTAL_NZ">>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-018: key: 数据格式支持ND
func.func @key_nz(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16, #mla.format<"FRACTAL_NZ">>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{key: expected format ND, got FRACTAL_NZ [NSA-018]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-010: query: FLOAT16, BFLOAT16
func.func @query_f32(%q: tensor<2x8x32xf32>, %k: tensor<8x16x64xf32>, %v: tensor<8x16x32xf32>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{query: expected element type f16 or bf16, got f32 [NSA-010]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xf32>, tensor<8x16x64xf32>, tensor<8x16x32xf32>, tensor<2x4xi32>) -> (tensor<2x8x16xf32>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-011: query, key, value 数据类型完全相同
func.func @key_dtype(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{key: expected the element type of query (bf16), got f16 [NSA-011]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-012: query, key, value 数据类型完全相同
func.func @value_dtype(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{value: expected the element type of query (bf16), got f16 [NSA-012]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-013: blockTableOptional: INT32
func.func @block_table_i64(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi64>) {
  // expected-error @+1 {{block_table: expected element type i32, got i64 [NSA-013]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi64>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-020: layoutOptional: 当前支持取值 TND 和 BSND
func.func @layout_bnsd(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{layout: expected "TND" or "BSND", got "BNSD" [NSA-020]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, layout = "BNSD", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-021: TND query is 3-D
func.func @tnd_rank4(%q: tensor<2x1x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{query: expected a 3-D tensor (T, N1, D1) for layout TND, got rank 4 [NSA-021]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, layout = "TND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x1x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-022: BSND query is 4-D
func.func @bsnd_rank3(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{query: expected a 4-D tensor (B, S1, N1, D1) for layout BSND, got rank 3 [NSA-022]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, layout = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-023: key: 支持输入的维度是3维
func.func @key_rank4(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x2x32xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{key: expected a 3-D paged tensor (blockNum, blockSize, N2*D1), got rank 4 [NSA-023]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x2x32xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-024: value: 支持输入的维度是3维
func.func @value_rank4(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x2x16xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{value: expected a 3-D paged tensor (blockNum, blockSize, N2*D2), got rank 4 [NSA-024]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x2x16xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-025: blockTableOptional (B, maxBlockPerQuery)
func.func @block_table_rank1(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<8xi32>) {
  // expected-error @+1 {{block_table: expected a 2-D tensor (B, maxBlockPerQuery), got rank 1 [NSA-025]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<8xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-030: numKeyValueHeads = 0 (the REG_OP default) divides by zero
func.func @kv_heads_zero(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{key_value_head_num: expected at least 1, got 0 [NSA-030]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 0, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-030: numHeads >= 1
func.func @heads_zero(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{head_num: expected at least 1, got 0 [NSA-030]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 0, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-031: query中的N和numHeads值相等
func.func @query_heads(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{query: expected the N axis to equal head_num (16), got 8 [NSA-031]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 16, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-032: numHeads是numKeyValueHeads的倍数
func.func @heads_not_multiple(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x96xbf16>, %v: tensor<8x16x48xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{head_num: expected a multiple of key_value_head_num (3), got 8 [NSA-032]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 3, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x96xbf16>, tensor<8x16x48xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-033: group <= 128
func.func @group_256(%q: tensor<2x256x32xbf16>, %k: tensor<8x16x32xbf16>, %v: tensor<8x16x16xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{head_num: expected a group size head_num / key_value_head_num <= 128, got 256 [NSA-033]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 256, key_value_head_num = 1, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x256x32xbf16>, tensor<8x16x32xbf16>, tensor<8x16x16xbf16>, tensor<2x4xi32>) -> (tensor<2x256x16xbf16>, tensor<2x1x4xi32>)
  return
}

// -----

// NSA-034: 128是group的整数倍
func.func @group_48(%q: tensor<2x48x32xbf16>, %k: tensor<8x16x32xbf16>, %v: tensor<8x16x16xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{head_num: expected a group size head_num / key_value_head_num that divides 128, got 48 [NSA-034]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 48, key_value_head_num = 1, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x48x32xbf16>, tensor<8x16x32xbf16>, tensor<8x16x16xbf16>, tensor<2x4xi32>) -> (tensor<2x48x16xbf16>, tensor<2x1x4xi32>)
  return
}

// -----

// NSA-035: key的N和numKeyValueHeads值相等
func.func @key_not_split(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x65xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{key: expected the last dimension (N2*D1) to be a multiple of key_value_head_num (2), got 65 [NSA-035]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x65xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-036: value的N和numKeyValueHeads值相等
func.func @value_not_split(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x33xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{value: expected the last dimension (N2*D2) to be a multiple of key_value_head_num (2), got 33 [NSA-036]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x33xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-037: query中的D和key的D(H/numKeyValueHeads)值相等
func.func @key_head_dim(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x48xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{key: expected last dimension / key_value_head_num to equal the query head dim 32, got 48 / 2 = 24 [NSA-037]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x48xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-039: query与Key的D轴小于等于192
func.func @d1_256(%q: tensor<2x8x256xbf16>, %k: tensor<8x16x512xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{query: expected a head dim D1 <= 192, got 256 [NSA-039]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x256xbf16>, tensor<8x16x512xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-040: value的D轴小于等于128
func.func @d2_160(%q: tensor<2x8x192xbf16>, %k: tensor<8x16x384xbf16>, %v: tensor<8x16x320xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{value: expected a head dim D2 = last dimension / key_value_head_num <= 128, got 160 [NSA-040]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x192xbf16>, tensor<8x16x384xbf16>, tensor<8x16x320xbf16>, tensor<2x4xi32>) -> (tensor<2x8x160xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-041: query与Key的D轴大于等于value的D轴
func.func @d2_above_d1(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x128xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{value: expected a head dim D2 <= the query/key head dim D1 (32), got 64 [NSA-041]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x128xbf16>, tensor<2x4xi32>) -> (tensor<2x8x64xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-056: blockSize小于等于128
func.func @page_block_256(%q: tensor<2x8x32xbf16>, %k: tensor<8x256x64xbf16>, %v: tensor<8x256x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{page_block_size: expected a value in [1, 128], got 256 [NSA-056]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 256, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x256x64xbf16>, tensor<8x256x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-057: blockSize是16的整数倍
func.func @page_block_24(%q: tensor<2x8x32xbf16>, %k: tensor<8x24x64xbf16>, %v: tensor<8x24x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{page_block_size: expected a multiple of 16, got 24 [NSA-057]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 24, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x24x64xbf16>, tensor<8x24x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-053: key中的numBlocks和value中的numBlocks值相等
func.func @block_counts(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<7x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{value: expected as many blocks as key (dimension 0 = 8), got 7 [NSA-053]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<7x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-054: key、value中的blockSize相等
func.func @block_sizes(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x32x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{value: expected the block size of key (dimension 1 = 16), got 32 [NSA-054]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x32x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-055: blockSize和pageBlockSize值相等
func.func @page_block_size(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{page_block_size: expected the block size of key and value (dimension 1 = 16), got 32 [NSA-055]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 32, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-050: query中的B是[1, 10000]区间内的整数
func.func @batch_10001(%q: tensor<10001x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{query: expected a batch B in [1, 10000], got B = 10001 (query dimension 0) [NSA-050]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<10001x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<10001x8x16xbf16>, tensor<10001x2x4xi32>)
  return
}

// -----

// NSA-050: query中的B是[1, 10000]区间内的整数
func.func @batch_0(%q: tensor<0x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{query: expected a batch B in [1, 10000], got B = 0 (query dimension 0) [NSA-050]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<0x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<0x8x16xbf16>, tensor<0x2x4xi32>)
  return
}

// -----

// NSA-051: query中的B与blockTable中的B相等
func.func @block_table_rows(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<3x4xi32>) {
  // expected-error @+1 {{block_table: expected B = 2 rows (the batch of query), got 3 [NSA-051]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<3x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-052: query中的B与actualCmpKvSeqLenOptional数组的长度相等
func.func @cmp_lengths_count(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{actual_cmp_seq_kvlen: expected B = 2 values (one per batch), got 3 [NSA-052]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50, 60>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-052: B >= 1, so an empty actual_cmp_seq_kvlen is wrong even while B is dynamic
func.func @cmp_lengths_empty_dynamic_batch(%q: tensor<?x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<?x4xi32>) {
  // expected-error @+1 {{actual_cmp_seq_kvlen: expected B >= 1 values (one per batch), got none [NSA-052]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<?x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<?x4xi32>) -> (tensor<?x8x16xbf16>, tensor<?x2x4xi32>)
  return
}

// -----

// NSA-060: 仅支持query的S轴小于等于4
func.func @bsnd_s5(%q: tensor<2x5x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{query: expected an S axis (Q_S) <= 4, got 5 [NSA-060]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, layout = "BSND", actual_sel_seq_kvlen = array<i64: 656, 816>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x5x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x5x8x16xbf16>, tensor<2x5x2x4xi32>)
  return
}

// -----

// NSA-061: actualQSeqLenOptional: 长度必须为B
func.func @q_lengths_count(%q: tensor<2x4x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{actual_seq_qlen: expected B = 2 values (one per batch), got 3 [NSA-061]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, layout = "BSND", actual_seq_qlen = array<i64: 1, 1, 1>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x4x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x4x8x16xbf16>, tensor<2x4x2x4xi32>)
  return
}

// -----

// NSA-061: B >= 1, so an empty actual_seq_qlen is wrong even while B is dynamic
func.func @q_lengths_empty_dynamic_batch(%q: tensor<?x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<?x4xi32>) {
  // expected-error @+1 {{actual_seq_qlen: expected B >= 1 values (one per batch), got none [NSA-061]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, actual_seq_qlen = array<i64>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<?x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<?x4xi32>) -> (tensor<?x8x16xbf16>, tensor<?x2x4xi32>)
  return
}

// -----

// NSA-062: Q_S <= 4
func.func @q_length_5(%q: tensor<7x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{actual_seq_qlen: expected values in [1, 4] (Q_S <= 4), got 5 for batch 1 [NSA-062]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, actual_seq_qlen = array<i64: 2, 5>, actual_sel_seq_kvlen = array<i64: 656, 816>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<7x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<7x8x16xbf16>, tensor<7x2x4xi32>)
  return
}

// -----

// NSA-062: BSND: actualQSeqLen is the actual length of the S axis
func.func @q_length_above_s1(%q: tensor<2x2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{actual_seq_qlen: expected values in [1, 2] (Q_S <= 4 and <= the query S axis), got 3 for batch 1 [NSA-062]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, layout = "BSND", actual_seq_qlen = array<i64: 2, 3>, actual_sel_seq_kvlen = array<i64: 656, 816>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x2x8x16xbf16>, tensor<2x2x2x4xi32>)
  return
}

// -----

// NSA-062: Q_S <= 4 holds while the BSND S axis is dynamic
func.func @q_length_5_dynamic_s1(%q: tensor<2x?x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{actual_seq_qlen: expected values in [1, 4] (Q_S <= 4), got 5 for batch 0 [NSA-062]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, layout = "BSND", actual_seq_qlen = array<i64: 5, 1>, actual_sel_seq_kvlen = array<i64: 656, 816>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x?x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x?x8x16xbf16>, tensor<2x?x2x4xi32>)
  return
}

// -----

// NSA-062: actual query lengths are >= 1 (SEED SILENT)
func.func @q_length_0(%q: tensor<1x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{actual_seq_qlen: expected values in [1, 4] (Q_S <= 4), got 0 for batch 1 [NSA-062]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, actual_seq_qlen = array<i64: 1, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<1x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<1x8x16xbf16>, tensor<1x2x4xi32>)
  return
}

// -----

// NSA-066: TND: T = sum(actual_seq_qlen)
func.func @tnd_token_count(%q: tensor<4x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{query: expected T = sum(actual_seq_qlen) = 5 rows for layout TND, got 4 [NSA-066]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, actual_seq_qlen = array<i64: 2, 3>, actual_sel_seq_kvlen = array<i64: 656, 816>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<4x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<4x8x16xbf16>, tensor<4x2x4xi32>)
  return
}

// -----

// NSA-009: actualSelKvSeqLenOptional: 在Q_S大于1的情况下必须传入
func.func @no_sel_lengths_bsnd(%q: tensor<2x2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{actual_sel_seq_kvlen: is required when Q_S > 1, got none (Q_S = 2) [NSA-009]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, layout = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x2x8x16xbf16>, tensor<2x2x2x4xi32>)
  return
}

// -----

// NSA-009: actualSelKvSeqLenOptional: 在Q_S大于1的情况下必须传入
func.func @no_sel_lengths_tnd(%q: tensor<3x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{actual_sel_seq_kvlen: is required when Q_S > 1, got none (Q_S = 2) [NSA-009]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, actual_seq_qlen = array<i64: 1, 2>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<3x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<3x8x16xbf16>, tensor<3x2x4xi32>)
  return
}

// -----

// NSA-063: actualSelKvSeqLenOptional: 长度必须为B
func.func @sel_lengths_count(%q: tensor<2x2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{actual_sel_seq_kvlen: expected B = 2 values when Q_S > 1, got 1 [NSA-063]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, layout = "BSND", actual_sel_seq_kvlen = array<i64: 640>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x2x8x16xbf16>, tensor<2x2x2x4xi32>)
  return
}

// -----

// NSA-063: B >= 1, so an empty actual_sel_seq_kvlen is wrong even while B is dynamic
func.func @sel_lengths_empty_dynamic_batch(%q: tensor<?x2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<?x4xi32>) {
  // expected-error @+1 {{actual_sel_seq_kvlen: expected B >= 1 values when Q_S > 1, got none [NSA-063]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, layout = "BSND", actual_sel_seq_kvlen = array<i64>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<?x2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<?x4xi32>) -> (tensor<?x2x8x16xbf16>, tensor<?x2x2x4xi32>)
  return
}

// -----

// NSA-064: 仅支持key/value的S轴小于等于8192
func.func @cmp_length_8193(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x513xi32>) {
  // expected-error @+1 {{actual_cmp_seq_kvlen: expected values <= 8192, got 8193 for batch 1 [NSA-064]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 8193>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x513xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-065: compressed lengths are >= 1 (SEED SILENT)
func.func @cmp_length_0(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{actual_cmp_seq_kvlen: expected values >= 1, got 0 for batch 0 [NSA-065]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 0, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-058: maxBlockPerQuery: 最长的keyValueSeqLen需要占用的block数量
func.func @block_table_narrow(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x3xi32>) {
  // expected-error @+1 {{block_table: expected at least ceil(max(actual_cmp_seq_kvlen) / page_block_size) = 4 columns, got 3 [NSA-058]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x3xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-070: compressBlockSize取值16、32、48、64、80、96、112、128
func.func @compress_block_24(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{compress_block_size: expected one of 16, 32, 48, 64, 80, 96, 112, 128, got 24 [NSA-070]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 24, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-071: compressBlockStride取值16、32、48、64
func.func @compress_stride_80(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{compress_stride: expected one of 16, 32, 48, 64, got 80 [NSA-071]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 96, select_block_count = 4, page_block_size = 16, compress_block_size = 96, compress_stride = 80, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-071: compressBlockStride = 0 (the REG_OP default) with Q_S > 1 is reported, not divided by
// (the NSA-X01 warning divides by compress_stride and runs after this rule)
func.func @compress_stride_0_several_tokens(%q: tensor<2x2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{compress_stride: expected one of 16, 32, 48, 64, got 0 [NSA-071]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 0, actual_cmp_seq_kvlen = array<i64: 40, 50>, layout = "BSND", actual_sel_seq_kvlen = array<i64: 656, 816>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x2x8x16xbf16>, tensor<2x2x2x4xi32>)
  return
}

// -----

// NSA-072: selectBlockSize取值16、32、48、64、80、96、112、128
func.func @select_block_8(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{select_block_size: expected one of 16, 32, 48, 64, 80, 96, 112, 128, got 8 [NSA-072]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 8, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-073: compressBlockSize大于等于compressBlockStride
func.func @window_below_stride(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{compress_block_size: expected at least compress_stride (32), got 16 [NSA-073]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 16, compress_stride = 32, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-074: selectBlockSize大于等于compressBlockSize
func.func @select_below_window(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{select_block_size: expected at least compress_block_size (64), got 32 [NSA-074]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 64, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-075: selectBlockSize是compressBlockStride的整数倍
func.func @select_not_multiple(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{select_block_size: expected a multiple of compress_stride (32), got 48 [NSA-075]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 48, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 32, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-078: selectBlockCount >= 1 (SEED SILENT)
func.func @select_count_0(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{select_block_count: expected at least 1, got 0 [NSA-078]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 0, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x0xi32>)
  return
}

// -----

// NSA-076: NoCmpKvSeqlenCeil / selectBlockSize <= 4096
func.func @select_blocks_8192(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x512xi32>) {
  // expected-error @+1 {{actual_cmp_seq_kvlen: expected at most 4096 selection blocks per batch, got ceil(((L - 1) * compress_stride + compress_block_size) / select_block_size) = ceil((8191 * 64 + 64) / 64) = 8192 for batch 0 [NSA-076]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 64, select_block_count = 4, page_block_size = 16, compress_block_size = 64, compress_stride = 64, actual_cmp_seq_kvlen = array<i64: 8192, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x512xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-077: selectBlockCount <= NoCmpKvSeqlenCeil / selectBlockSize (seed L163): the exact
// quotient 656 / 32 = 20.5, so K = 21 (the ceiling, which the device's tiling accepts) is rejected
func.func @select_count_21(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{select_block_count: expected at most NoCmpKvSeqlenCeil / select_block_size of every batch, ((L - 1) * compress_stride + compress_block_size) / select_block_size = (39 * 16 + 32) / 32 = 20.5 for batch 0, got 21 [NSA-077]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 21, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x21xi32>)
  return
}

// -----

// NSA-014: output: FLOAT16、BFLOAT16 (either, whatever the query is: see nsa.mlir @output_f16)
func.func @output_f32(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{output: expected element type f16 or bf16, got f32 [NSA-014]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xf32>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-015: topKOutput: INT32 (REG_OP's topkIndicesOut is FLOAT16/BFLOAT16)
func.func @topk_f16(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{topk_indices: expected element type i32, got f16 [NSA-015]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xf16>)
  return
}

// -----

// NSA-018: output: 数据格式支持ND
func.func @output_nz(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{output: expected format ND, got FRACTAL_NZ [NSA-018]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-026: rank(output) == rank(query)
func.func @output_rank(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{output: expected the rank of query (3), got 4 [NSA-026]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x1x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-027: rank(topKOutput) == rank(query)
func.func @topk_rank(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{topk_indices: expected the rank of query (3), got 4 [NSA-027]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x1x2x4xi32>)
  return
}

// -----

// NSA-038: value的D和output的D值相等
func.func @output_head_dim(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{output: expected the head dim D2 = value last dimension / key_value_head_num = 16, got 32 [NSA-038]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x32xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-080: TND output (T, N1, D2)
func.func @output_shape_tnd(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{output: expected (T, N1, D2) = (2, 8, 16), got (3, 8, 16) [NSA-080]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<3x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-081: BSND output (B, S1, N1, D2)
func.func @output_shape_bsnd(%q: tensor<2x1x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{output: expected (B, S1, N1, D2) = (2, 1, 8, 16), got (2, 2, 8, 16) [NSA-081]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, layout = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x1x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x2x8x16xbf16>, tensor<2x1x2x4xi32>)
  return
}

// -----

// NSA-082: TND topK (T, N2, K)
func.func @topk_shape_tnd(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{topk_indices: expected (T, N2, select_block_count) = (2, 2, 4), got (2, 8, 4) [NSA-082]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x8x4xi32>)
  return
}

// -----

// NSA-083: BSND topK (B, S1, N2, K) (SEED SILENT)
func.func @topk_shape_bsnd(%q: tensor<2x1x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-error @+1 {{topk_indices: expected (B, S1, N2, select_block_count) = (2, 1, 2, 4), got (2, 1, 8, 4) [NSA-083]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, layout = "BSND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x1x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x1x8x16xbf16>, tensor<2x1x8x4xi32>)
  return
}

// -----

// NSA-017: (warnings from here on: the op stays valid) attentionMask dtype: REG_OP BOOL, aclnn silent
func.func @mask_f16(%q: tensor<3x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %mask: tensor<3x64xf16>, %bt: tensor<2x4xi32>) {
  // expected-warning @+1 {{atten_mask: element type f16 accepted (the aclnn interface states none), but the graph prototype (REG_OP) declares i1 [NSA-017]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %mask, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, actual_seq_qlen = array<i64: 1, 2>, actual_sel_seq_kvlen = array<i64: 656, 816>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0>} : (tensor<3x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<3x64xf16>, tensor<2x4xi32>) -> (tensor<3x8x16xbf16>, tensor<3x2x4xi32>)
  return
}

// -----

// NSA-017: topKMask dtype: REG_OP BOOL, aclnn silent
func.func @topk_mask_f16(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>, %tkm: tensor<2x4xf16>) {
  // expected-warning @+2 {{topk_mask: element type f16 accepted (the aclnn interface states none), but the graph prototype (REG_OP) declares i1 [NSA-017]}}
  // expected-warning @+1 {{topk_mask: reserved by the operator and ignored [NSA-090]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt, %tkm) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>, tensor<2x4xf16>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-090: topKMaskOptional: 预留参数，暂未使用
func.func @topk_mask_reserved(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>, %tkm: tensor<2x4xi1>) {
  // expected-warning @+1 {{topk_mask: reserved by the operator and ignored [NSA-090]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt, %tkm) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>, tensor<2x4xi1>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-090: sparseMode: 预留参数，暂未使用
func.func @sparse_mode_reserved(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-warning @+1 {{sparse_mode: reserved by the operator and ignored (got 1) [NSA-090]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, sparse_mode = 1, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-091: attention掩码矩阵仅在Q_S大于1的情况下生效
func.func @mask_one_token(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %mask: tensor<2x64xi1>, %bt: tensor<2x4xi32>) {
  // expected-warning @+1 {{atten_mask: has no effect when Q_S = 1 (one query token per batch) [NSA-091]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %mask, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x64xi1>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return
}

// -----

// NSA-X01 (warning; NON-SEED EVIDENCE): with Q_S > 1 the device needs
// L_b == (actual_sel_seq_kvlen[b] - l) // d + 1 and otherwise falls back to one query token.
func.func @sel_lengths_inconsistent(%q: tensor<2x2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) {
  // expected-warning @+1 {{actual_sel_seq_kvlen: batch 1: actual_cmp_seq_kvlen 50 != (actual_sel_seq_kvlen - compress_block_size) // compress_stride + 1 = 49; the device then falls back to single-token mode [NSA-X01]}}
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>, layout = "BSND", actual_sel_seq_kvlen = array<i64: 656, 800>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>} : (tensor<2x2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x2x8x16xbf16>, tensor<2x2x2x4xi32>)
  return
}

// RUN: mla-opt %s --split-input-file | FileCheck %s
// Printing and parsing again gives the same IR.
// RUN: mla-opt %s --split-input-file | mla-opt --split-input-file | FileCheck %s
// Upstream mlir-opt, given the IRDL that mla-opt prints, reads the same ops.
// RUN: mla-opt --emit-irdl -o %t.irdl.mlir
// RUN: %mlir_opt --irdl-file=%t.irdl.mlir %s --split-input-file | FileCheck %s
// Valid mla.nsa_compress_attention_infer ops, one configuration class per split: both layouts,
// one and several query tokens per batch, f16 and bf16, absent optional operands and defaulted
// attributes, dynamic dimensions.

// The seed's example (catalog C4): TND, one token per batch (T = B = 20), f16, N1 = 64,
// N2 = 4 (G = 16), D1 = 192, D2 = 128, 640 blocks of 128, L = 4096, l = 32, d = 16, l' = 64, K = 16.
// CHECK-LABEL: func.func @seed_example_tnd
// CHECK: "mla.nsa_compress_attention_infer"(%arg0, %arg1, %arg2, %arg3)
// CHECK-SAME: actual_cmp_seq_kvlen = array<i64: 4096, 4096,
// CHECK-SAME: compress_block_size = 32 : i64, compress_stride = 16 : i64, head_num = 64 : i64, key_value_head_num = 4 : i64, layout = "TND"
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, page_block_size = 128 : i64, scale_value = 0.088387{{[0-9]+}} : f64, select_block_count = 16 : i64, select_block_size = 64 : i64, sparse_mode = 0 : i64
// CHECK-SAME: -> (tensor<20x64x128xf16>, tensor<20x4x16xi32>)
func.func @seed_example_tnd(%q: tensor<20x64x192xf16>, %k: tensor<640x128x768xf16>, %v: tensor<640x128x512xf16>, %bt: tensor<20x32xi32>) -> (tensor<20x64x128xf16>, tensor<20x4x16xi32>) {
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, scale_value = 0.088388 : f64, head_num = 64, key_value_head_num = 4, select_block_size = 64, select_block_count = 16, page_block_size = 128, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096>, layout = "TND", sparse_mode = 0} : (tensor<20x64x192xf16>, tensor<640x128x768xf16>, tensor<640x128x512xf16>, tensor<20x32xi32>) -> (tensor<20x64x128xf16>, tensor<20x4x16xi32>)
  return %0#0, %0#1 : tensor<20x64x128xf16>, tensor<20x4x16xi32>
}

// -----

// TND with several tokens per batch: T = sum(actual_seq_qlen) = 2 + 1 + 4 = 7 rows, B = 3 (the
// block_table rows), bf16, G = 16, layout and sparse_mode left at their defaults. Q_S = 4 > 1, so
// actual_sel_seq_kvlen is given and the attention mask takes effect. select_block_count = 15:
// batch 2 has (29 * 32 + 64) / 64 = 15.5 selection blocks' worth of keys (NSA-077).
// CHECK-LABEL: func.func @tnd_several_tokens
// CHECK: "mla.nsa_compress_attention_infer"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: actual_cmp_seq_kvlen = array<i64: 100, 256, 30>
// CHECK-SAME: actual_sel_seq_kvlen = array<i64: 3232, 8224, 992>, actual_seq_qlen = array<i64: 2, 1, 4>
// CHECK-NOT: layout
// CHECK-SAME: operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0>
// CHECK-NOT: sparse_mode
// CHECK-SAME: -> (tensor<7x16x128xbf16>, tensor<7x1x15xi32>)
func.func @tnd_several_tokens(%q: tensor<7x16x192xbf16>, %k: tensor<12x64x192xbf16>, %v: tensor<12x64x128xbf16>, %mask: tensor<7x256xi1>, %bt: tensor<3x4xi32>) -> (tensor<7x16x128xbf16>, tensor<7x1x15xi32>) {
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %mask, %bt) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0>, scale_value = 0.0721 : f64, head_num = 16, key_value_head_num = 1, select_block_size = 64, select_block_count = 15, page_block_size = 64, compress_block_size = 64, compress_stride = 32, actual_seq_qlen = array<i64: 2, 1, 4>, actual_cmp_seq_kvlen = array<i64: 100, 256, 30>, actual_sel_seq_kvlen = array<i64: 3232, 8224, 992>} : (tensor<7x16x192xbf16>, tensor<12x64x192xbf16>, tensor<12x64x128xbf16>, tensor<7x256xi1>, tensor<3x4xi32>) -> (tensor<7x16x128xbf16>, tensor<7x1x15xi32>)
  return %0#0, %0#1 : tensor<7x16x128xbf16>, tensor<7x1x15xi32>
}

// -----

// BSND with one token per batch (S1 = 1): output (B, S1, N1, D2), topk_indices (B, S1, N2, K).
// CHECK-LABEL: func.func @bsnd_one_token
// CHECK: "mla.nsa_compress_attention_infer"(%arg0, %arg1, %arg2, %arg3)
// CHECK-SAME: layout = "BSND"
// CHECK-SAME: -> (tensor<4x1x32x128xbf16>, tensor<4x1x2x8xi32>)
func.func @bsnd_one_token(%q: tensor<4x1x32x128xbf16>, %k: tensor<16x128x256xbf16>, %v: tensor<16x128x256xbf16>, %bt: tensor<4x4xi32>) -> (tensor<4x1x32x128xbf16>, tensor<4x1x2x8xi32>) {
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, scale_value = 0.0884 : f64, head_num = 32, key_value_head_num = 2, select_block_size = 32, select_block_count = 8, page_block_size = 128, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 512, 512, 300, 64>, layout = "BSND"} : (tensor<4x1x32x128xbf16>, tensor<16x128x256xbf16>, tensor<16x128x256xbf16>, tensor<4x4xi32>) -> (tensor<4x1x32x128xbf16>, tensor<4x1x2x8xi32>)
  return %0#0, %0#1 : tensor<4x1x32x128xbf16>, tensor<4x1x2x8xi32>
}

// -----

// BSND with several tokens per batch (S1 = 4, actual_seq_qlen = [4, 3]), f16, G = 128, the
// largest windows (l = l' = 128, d = 64), an attention mask.
// CHECK-LABEL: func.func @bsnd_several_tokens
// CHECK: "mla.nsa_compress_attention_infer"(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-SAME: actual_sel_seq_kvlen = array<i64: 8256, 6464>, actual_seq_qlen = array<i64: 4, 3>
// CHECK-SAME: layout = "BSND"
// CHECK-SAME: -> (tensor<2x4x128x64xf16>, tensor<2x4x1x32xi32>)
func.func @bsnd_several_tokens(%q: tensor<2x4x128x64xf16>, %k: tensor<8x32x64xf16>, %v: tensor<8x32x64xf16>, %mask: tensor<2x4x128xi1>, %bt: tensor<2x4xi32>) -> (tensor<2x4x128x64xf16>, tensor<2x4x1x32xi32>) {
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %mask, %bt) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0>, scale_value = 0.125 : f64, head_num = 128, key_value_head_num = 1, select_block_size = 128, select_block_count = 32, page_block_size = 32, compress_block_size = 128, compress_stride = 64, actual_seq_qlen = array<i64: 4, 3>, actual_cmp_seq_kvlen = array<i64: 128, 100>, actual_sel_seq_kvlen = array<i64: 8256, 6464>, layout = "BSND"} : (tensor<2x4x128x64xf16>, tensor<8x32x64xf16>, tensor<8x32x64xf16>, tensor<2x4x128xi1>, tensor<2x4xi32>) -> (tensor<2x4x128x64xf16>, tensor<2x4x1x32xi32>)
  return %0#0, %0#1 : tensor<2x4x128x64xf16>, tensor<2x4x1x32xi32>
}

// -----

// Dynamic dimensions: the rules that need them (here the batch B) wait until the shapes are
// known; everything else is checked.
// CHECK-LABEL: func.func @dynamic_tokens
// CHECK: "mla.nsa_compress_attention_infer"(%arg0, %arg1, %arg2, %arg3)
// CHECK-SAME: (tensor<?x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<?x4xi32>) -> (tensor<?x8x16xbf16>, tensor<?x2x4xi32>)
func.func @dynamic_tokens(%q: tensor<?x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<?x4xi32>) -> (tensor<?x8x16xbf16>, tensor<?x2x4xi32>) {
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>} : (tensor<?x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<?x4xi32>) -> (tensor<?x8x16xbf16>, tensor<?x2x4xi32>)
  return %0#0, %0#1 : tensor<?x8x16xbf16>, tensor<?x2x4xi32>
}

// -----

// The valid op that every split of nsa-invalid.mlir mutates.
// CHECK-LABEL: func.func @invalid_base
// CHECK: "mla.nsa_compress_attention_infer"(%arg0, %arg1, %arg2, %arg3)
// CHECK-SAME: -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
func.func @invalid_base(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>) {
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xbf16>, tensor<2x2x4xi32>)
  return %0#0, %0#1 : tensor<2x8x16xbf16>, tensor<2x2x4xi32>
}

// -----

// The output may be FLOAT16 or BFLOAT16 whatever the query is (NSA-014; the catalog's
// "output = query dtype" is NON-SEED EVIDENCE and does not reject IR).
// CHECK-LABEL: func.func @output_f16
// CHECK-SAME: -> (tensor<2x8x16xf16>, tensor<2x2x4xi32>)
func.func @output_f16(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) -> (tensor<2x8x16xf16>, tensor<2x2x4xi32>) {
  %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xf16>, tensor<2x2x4xi32>)
  return %0#0, %0#1 : tensor<2x8x16xf16>, tensor<2x2x4xi32>
}

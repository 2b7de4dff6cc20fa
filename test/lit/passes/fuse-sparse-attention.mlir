// RUN: mla-opt %s --split-input-file --fuse-sparse-attention --verify-diagnostics | FileCheck %s
// fuse-sparse-attention: DeepSeek Sparse Attention as transformers' DeepseekV32Indexer writes it
// (the indexer's query and head weights, its paged key cache gathered, relu(q.k^T * d^-0.5), the
// weighted head sum, the causal mask, top-k, the attention's mask of unselected keys) becomes
// mla.lightning_indexer + mla.sparse_flash_attention. Two MTP rows of one sequence, 64 indexer
// heads of 128, 8 attention heads, 2 blocks of 128 per sequence, top-256.

// CHECK-LABEL: func.func @dsa_layer
// The score scale d^-0.5 moves onto the head weights (positive: the selection is the same).
// CHECK:      %[[W:.*]] = "mla.mul"(%arg1, %{{.*}}) : (tensor<1x2x64xf32>, tensor<1xf32>) -> tensor<1x2x64xf32>
// CHECK:      %[[LEN:.*]] = arith.trunci %arg4 : tensor<1xi64> to tensor<1xi32>
// CHECK:      %[[IDX:.*]]:2 = "mla.lightning_indexer"(%arg0, %arg2, %[[W]], %[[LEN]], %arg3) {layout_key = "PA_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1>, sparse_count = 256 : i64}
// CHECK-SAME: -> (tensor<1x2x1x256xi32>, tensor<0xbf16>)
// CHECK:      %[[OUT:.*]]:3 = "mla.sparse_flash_attention"(%arg5, %arg7, %arg7, %[[IDX]]#0, %arg3, %[[LEN]], %arg6, %arg8)
// CHECK-SAME: attention_mode = 2 : i64, layout_kv = "PA_BSND"
// CHECK-SAME: -> (tensor<1x2x8x512xbf16>, tensor<0xf32>, tensor<0xf32>)
// CHECK:      return %[[OUT]]#0
// CHECK-NOT:  mla.top_k
// CHECK-NOT:  mla.masked_paged_attention

// -----

func.func @dsa_layer(
    %iq: tensor<1x2x64x128xbf16> {mla.name = "index_query"},
    %iw: tensor<1x2x64xf32> {mla.name = "index_weights"},
    %ic: tensor<3x128x1x128xbf16> {mla.name = "index_cache"},
    %bt: tensor<1x2xi32> {mla.name = "block_table"},
    %len: tensor<1xi64> {mla.name = "seq_lengths"},
    %q: tensor<1x2x8x512xbf16> {mla.name = "query"},
    %qr: tensor<1x2x8x64xbf16> {mla.name = "query_rope"},
    %kv: tensor<3x128x1x512xbf16> {mla.name = "kv_cache"},
    %kr: tensor<3x128x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<1x2x8x512xbf16>) {
  %keys = "mla.paged_gather"(%ic, %bt) : (tensor<3x128x1x128xbf16>, tensor<1x2xi32>) -> tensor<1x256x1x128xbf16>
  %k3 = tensor.collapse_shape %keys [[0], [1], [2, 3]] : tensor<1x256x1x128xbf16> into tensor<1x256x128xbf16>
  %kt = "mla.transpose"(%k3) {permutation = array<i64: 0, 2, 1>} : (tensor<1x256x128xbf16>) -> tensor<1x128x256xbf16>
  %ktf = arith.extf %kt : tensor<1x128x256xbf16> to tensor<1x128x256xf32>
  %q3 = tensor.collapse_shape %iq [[0], [1, 2], [3]] : tensor<1x2x64x128xbf16> into tensor<1x128x128xbf16>
  %qf = arith.extf %q3 : tensor<1x128x128xbf16> to tensor<1x128x128xf32>
  %scores = "mla.batch_matmul"(%qf, %ktf) : (tensor<1x128x128xf32>, tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
  %scale = arith.constant dense<0.08838834764831845> : tensor<1xf32>
  %scaled = "mla.mul"(%scores, %scale) : (tensor<1x128x256xf32>, tensor<1xf32>) -> tensor<1x128x256xf32>
  %relu = "mla.relu"(%scaled) : (tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
  %r2 = tensor.collapse_shape %relu [[0, 1], [2]] : tensor<1x128x256xf32> into tensor<128x256xf32>
  %r3 = tensor.expand_shape %r2 [[0, 1], [2]] output_shape [2, 64, 256] : tensor<128x256xf32> into tensor<2x64x256xf32>
  %w2 = tensor.collapse_shape %iw [[0, 1], [2]] : tensor<1x2x64xf32> into tensor<2x64xf32>
  %w3 = tensor.expand_shape %w2 [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xf32> into tensor<2x1x64xf32>
  %index = "mla.batch_matmul"(%w3, %r3) : (tensor<2x1x64xf32>, tensor<2x64x256xf32>) -> tensor<2x1x256xf32>
  %i2 = tensor.collapse_shape %index [[0], [1, 2]] : tensor<2x1x256xf32> into tensor<2x256xf32>
  %i3 = tensor.expand_shape %i2 [[0, 1], [2]] output_shape [1, 2, 256] : tensor<2x256xf32> into tensor<1x2x256xf32>
  %causal = "mla.length_mask"(%len) : (tensor<1xi64>) -> tensor<1x2x256xi1>
  %masked = "mla.masked_fill"(%i3, %causal) {value = 0xFFF0000000000000 : f64} : (tensor<1x2x256xf32>, tensor<1x2x256xi1>) -> tensor<1x2x256xf32>
  %values, %indices = "mla.top_k"(%masked) {k = 256 : i64} : (tensor<1x2x256xf32>) -> (tensor<1x2x256xf32>, tensor<1x2x256xi64>)
  %selection = "mla.index_mask"(%indices) : (tensor<1x2x256xi64>) -> tensor<1x2x256xi1>
  %out = "mla.masked_paged_attention"(%q, %kv, %kv, %bt, %len, %selection, %qr, %kr) {scale_value = 0.08838834764831845 : f64, cache_mode = "PA_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<1x2x8x512xbf16>, tensor<3x128x1x512xbf16>, tensor<3x128x1x512xbf16>, tensor<1x2xi32>, tensor<1xi64>, tensor<1x2x256xi1>, tensor<1x2x8x64xbf16>, tensor<3x128x1x64xbf16>) -> tensor<1x2x8x512xbf16>
  return %out : tensor<1x2x8x512xbf16>
}

// -----

// Refusals: the graph stays, a remark names the rule the fused operator would break.

// 128 indexer heads: the lightning indexer takes N1 <= 64 (LI-05).
// CHECK-LABEL: func.func @index_heads_128
// CHECK: "mla.top_k"
// CHECK: "mla.masked_paged_attention"

// -----

func.func @index_heads_128(
    %iq: tensor<1x2x128x128xbf16> {mla.name = "index_query"},
    %iw: tensor<1x2x128xf32> {mla.name = "index_weights"},
    %ic: tensor<3x128x1x128xbf16> {mla.name = "index_cache"},
    %bt: tensor<1x2xi32> {mla.name = "block_table"},
    %len: tensor<1xi64> {mla.name = "seq_lengths"},
    %q: tensor<1x2x8x512xbf16> {mla.name = "query"},
    %qr: tensor<1x2x8x64xbf16> {mla.name = "query_rope"},
    %kv: tensor<3x128x1x512xbf16> {mla.name = "kv_cache"},
    %kr: tensor<3x128x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<1x2x8x512xbf16>) {
  %keys = "mla.paged_gather"(%ic, %bt) : (tensor<3x128x1x128xbf16>, tensor<1x2xi32>) -> tensor<1x256x1x128xbf16>
  %k3 = tensor.collapse_shape %keys [[0], [1], [2, 3]] : tensor<1x256x1x128xbf16> into tensor<1x256x128xbf16>
  %kt = "mla.transpose"(%k3) {permutation = array<i64: 0, 2, 1>} : (tensor<1x256x128xbf16>) -> tensor<1x128x256xbf16>
  %ktf = arith.extf %kt : tensor<1x128x256xbf16> to tensor<1x128x256xf32>
  %q3 = tensor.collapse_shape %iq [[0], [1, 2], [3]] : tensor<1x2x128x128xbf16> into tensor<1x256x128xbf16>
  %qf = arith.extf %q3 : tensor<1x256x128xbf16> to tensor<1x256x128xf32>
  %scores = "mla.batch_matmul"(%qf, %ktf) : (tensor<1x256x128xf32>, tensor<1x128x256xf32>) -> tensor<1x256x256xf32>
  %scale = arith.constant dense<0.08838834764831845> : tensor<1xf32>
  %scaled = "mla.mul"(%scores, %scale) : (tensor<1x256x256xf32>, tensor<1xf32>) -> tensor<1x256x256xf32>
  %relu = "mla.relu"(%scaled) : (tensor<1x256x256xf32>) -> tensor<1x256x256xf32>
  %r2 = tensor.collapse_shape %relu [[0, 1], [2]] : tensor<1x256x256xf32> into tensor<256x256xf32>
  %r3 = tensor.expand_shape %r2 [[0, 1], [2]] output_shape [2, 128, 256] : tensor<256x256xf32> into tensor<2x128x256xf32>
  %w2 = tensor.collapse_shape %iw [[0, 1], [2]] : tensor<1x2x128xf32> into tensor<2x128xf32>
  %w3 = tensor.expand_shape %w2 [[0], [1, 2]] output_shape [2, 1, 128] : tensor<2x128xf32> into tensor<2x1x128xf32>
  %index = "mla.batch_matmul"(%w3, %r3) : (tensor<2x1x128xf32>, tensor<2x128x256xf32>) -> tensor<2x1x256xf32>
  %i2 = tensor.collapse_shape %index [[0], [1, 2]] : tensor<2x1x256xf32> into tensor<2x256xf32>
  %i3 = tensor.expand_shape %i2 [[0, 1], [2]] output_shape [1, 2, 256] : tensor<2x256xf32> into tensor<1x2x256xf32>
  %causal = "mla.length_mask"(%len) : (tensor<1xi64>) -> tensor<1x2x256xi1>
  %masked = "mla.masked_fill"(%i3, %causal) {value = 0xFFF0000000000000 : f64} : (tensor<1x2x256xf32>, tensor<1x2x256xi1>) -> tensor<1x2x256xf32>
  %values, %indices = "mla.top_k"(%masked) {k = 256 : i64} : (tensor<1x2x256xf32>) -> (tensor<1x2x256xf32>, tensor<1x2x256xi64>)
  %selection = "mla.index_mask"(%indices) : (tensor<1x2x256xi64>) -> tensor<1x2x256xi1>
  // expected-remark @+1 {{[LI-05]}}
  %out = "mla.masked_paged_attention"(%q, %kv, %kv, %bt, %len, %selection, %qr, %kr) {scale_value = 0.08838834764831845 : f64, cache_mode = "PA_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<1x2x8x512xbf16>, tensor<3x128x1x512xbf16>, tensor<3x128x1x512xbf16>, tensor<1x2xi32>, tensor<1xi64>, tensor<1x2x256xi1>, tensor<1x2x8x64xbf16>, tensor<3x128x1x64xbf16>) -> tensor<1x2x8x512xbf16>
  return %out : tensor<1x2x8x512xbf16>
}

// -----

// 6 attention heads: sparse flash attention takes a power of 2 (SFA-04).
// CHECK-LABEL: func.func @attention_heads_6
// CHECK: "mla.masked_paged_attention"

// -----

func.func @attention_heads_6(
    %iq: tensor<1x2x64x128xbf16> {mla.name = "index_query"},
    %iw: tensor<1x2x64xf32> {mla.name = "index_weights"},
    %ic: tensor<3x128x1x128xbf16> {mla.name = "index_cache"},
    %bt: tensor<1x2xi32> {mla.name = "block_table"},
    %len: tensor<1xi64> {mla.name = "seq_lengths"},
    %q: tensor<1x2x6x512xbf16> {mla.name = "query"},
    %qr: tensor<1x2x6x64xbf16> {mla.name = "query_rope"},
    %kv: tensor<3x128x1x512xbf16> {mla.name = "kv_cache"},
    %kr: tensor<3x128x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<1x2x6x512xbf16>) {
  %keys = "mla.paged_gather"(%ic, %bt) : (tensor<3x128x1x128xbf16>, tensor<1x2xi32>) -> tensor<1x256x1x128xbf16>
  %k3 = tensor.collapse_shape %keys [[0], [1], [2, 3]] : tensor<1x256x1x128xbf16> into tensor<1x256x128xbf16>
  %kt = "mla.transpose"(%k3) {permutation = array<i64: 0, 2, 1>} : (tensor<1x256x128xbf16>) -> tensor<1x128x256xbf16>
  %ktf = arith.extf %kt : tensor<1x128x256xbf16> to tensor<1x128x256xf32>
  %q3 = tensor.collapse_shape %iq [[0], [1, 2], [3]] : tensor<1x2x64x128xbf16> into tensor<1x128x128xbf16>
  %qf = arith.extf %q3 : tensor<1x128x128xbf16> to tensor<1x128x128xf32>
  %scores = "mla.batch_matmul"(%qf, %ktf) : (tensor<1x128x128xf32>, tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
  %scale = arith.constant dense<0.08838834764831845> : tensor<1xf32>
  %scaled = "mla.mul"(%scores, %scale) : (tensor<1x128x256xf32>, tensor<1xf32>) -> tensor<1x128x256xf32>
  %relu = "mla.relu"(%scaled) : (tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
  %r2 = tensor.collapse_shape %relu [[0, 1], [2]] : tensor<1x128x256xf32> into tensor<128x256xf32>
  %r3 = tensor.expand_shape %r2 [[0, 1], [2]] output_shape [2, 64, 256] : tensor<128x256xf32> into tensor<2x64x256xf32>
  %w2 = tensor.collapse_shape %iw [[0, 1], [2]] : tensor<1x2x64xf32> into tensor<2x64xf32>
  %w3 = tensor.expand_shape %w2 [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xf32> into tensor<2x1x64xf32>
  %index = "mla.batch_matmul"(%w3, %r3) : (tensor<2x1x64xf32>, tensor<2x64x256xf32>) -> tensor<2x1x256xf32>
  %i2 = tensor.collapse_shape %index [[0], [1, 2]] : tensor<2x1x256xf32> into tensor<2x256xf32>
  %i3 = tensor.expand_shape %i2 [[0, 1], [2]] output_shape [1, 2, 256] : tensor<2x256xf32> into tensor<1x2x256xf32>
  %causal = "mla.length_mask"(%len) : (tensor<1xi64>) -> tensor<1x2x256xi1>
  %masked = "mla.masked_fill"(%i3, %causal) {value = 0xFFF0000000000000 : f64} : (tensor<1x2x256xf32>, tensor<1x2x256xi1>) -> tensor<1x2x256xf32>
  %values, %indices = "mla.top_k"(%masked) {k = 256 : i64} : (tensor<1x2x256xf32>) -> (tensor<1x2x256xf32>, tensor<1x2x256xi64>)
  %selection = "mla.index_mask"(%indices) : (tensor<1x2x256xi64>) -> tensor<1x2x256xi1>
  // expected-remark @+1 {{[SFA-04]}}
  %out = "mla.masked_paged_attention"(%q, %kv, %kv, %bt, %len, %selection, %qr, %kr) {scale_value = 0.08838834764831845 : f64, cache_mode = "PA_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<1x2x6x512xbf16>, tensor<3x128x1x512xbf16>, tensor<3x128x1x512xbf16>, tensor<1x2xi32>, tensor<1xi64>, tensor<1x2x256xi1>, tensor<1x2x6x64xbf16>, tensor<3x128x1x64xbf16>) -> tensor<1x2x6x512xbf16>
  return %out : tensor<1x2x6x512xbf16>
}

// -----

// The top-k values are used beyond the selection: the indexer does not produce them.
// CHECK-LABEL: func.func @values_escape
// CHECK: "mla.top_k"

// -----

func.func @values_escape(
    %iq: tensor<1x2x64x128xbf16> {mla.name = "index_query"},
    %iw: tensor<1x2x64xf32> {mla.name = "index_weights"},
    %ic: tensor<3x128x1x128xbf16> {mla.name = "index_cache"},
    %bt: tensor<1x2xi32> {mla.name = "block_table"},
    %len: tensor<1xi64> {mla.name = "seq_lengths"},
    %q: tensor<1x2x8x512xbf16> {mla.name = "query"},
    %qr: tensor<1x2x8x64xbf16> {mla.name = "query_rope"},
    %kv: tensor<3x128x1x512xbf16> {mla.name = "kv_cache"},
    %kr: tensor<3x128x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<1x2x8x512xbf16>, tensor<1x2x256xf32>) {
  %keys = "mla.paged_gather"(%ic, %bt) : (tensor<3x128x1x128xbf16>, tensor<1x2xi32>) -> tensor<1x256x1x128xbf16>
  %k3 = tensor.collapse_shape %keys [[0], [1], [2, 3]] : tensor<1x256x1x128xbf16> into tensor<1x256x128xbf16>
  %kt = "mla.transpose"(%k3) {permutation = array<i64: 0, 2, 1>} : (tensor<1x256x128xbf16>) -> tensor<1x128x256xbf16>
  %ktf = arith.extf %kt : tensor<1x128x256xbf16> to tensor<1x128x256xf32>
  %q3 = tensor.collapse_shape %iq [[0], [1, 2], [3]] : tensor<1x2x64x128xbf16> into tensor<1x128x128xbf16>
  %qf = arith.extf %q3 : tensor<1x128x128xbf16> to tensor<1x128x128xf32>
  %scores = "mla.batch_matmul"(%qf, %ktf) : (tensor<1x128x128xf32>, tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
  %scale = arith.constant dense<0.08838834764831845> : tensor<1xf32>
  %scaled = "mla.mul"(%scores, %scale) : (tensor<1x128x256xf32>, tensor<1xf32>) -> tensor<1x128x256xf32>
  %relu = "mla.relu"(%scaled) : (tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
  %r2 = tensor.collapse_shape %relu [[0, 1], [2]] : tensor<1x128x256xf32> into tensor<128x256xf32>
  %r3 = tensor.expand_shape %r2 [[0, 1], [2]] output_shape [2, 64, 256] : tensor<128x256xf32> into tensor<2x64x256xf32>
  %w2 = tensor.collapse_shape %iw [[0, 1], [2]] : tensor<1x2x64xf32> into tensor<2x64xf32>
  %w3 = tensor.expand_shape %w2 [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xf32> into tensor<2x1x64xf32>
  %index = "mla.batch_matmul"(%w3, %r3) : (tensor<2x1x64xf32>, tensor<2x64x256xf32>) -> tensor<2x1x256xf32>
  %i2 = tensor.collapse_shape %index [[0], [1, 2]] : tensor<2x1x256xf32> into tensor<2x256xf32>
  %i3 = tensor.expand_shape %i2 [[0, 1], [2]] output_shape [1, 2, 256] : tensor<2x256xf32> into tensor<1x2x256xf32>
  %causal = "mla.length_mask"(%len) : (tensor<1xi64>) -> tensor<1x2x256xi1>
  %masked = "mla.masked_fill"(%i3, %causal) {value = 0xFFF0000000000000 : f64} : (tensor<1x2x256xf32>, tensor<1x2x256xi1>) -> tensor<1x2x256xf32>
  %values, %indices = "mla.top_k"(%masked) {k = 256 : i64} : (tensor<1x2x256xf32>) -> (tensor<1x2x256xf32>, tensor<1x2x256xi64>)
  %selection = "mla.index_mask"(%indices) : (tensor<1x2x256xi64>) -> tensor<1x2x256xi1>
  // expected-remark @+1 {{intermediate results (mla.top_k) also feed ops outside the subgraph: the fused operators do not produce them [FUSE-003]}}
  %out = "mla.masked_paged_attention"(%q, %kv, %kv, %bt, %len, %selection, %qr, %kr) {scale_value = 0.08838834764831845 : f64, cache_mode = "PA_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<1x2x8x512xbf16>, tensor<3x128x1x512xbf16>, tensor<3x128x1x512xbf16>, tensor<1x2xi32>, tensor<1xi64>, tensor<1x2x256xi1>, tensor<1x2x8x64xbf16>, tensor<3x128x1x64xbf16>) -> tensor<1x2x8x512xbf16>
  return %out, %values : tensor<1x2x8x512xbf16>, tensor<1x2x256xf32>
}

// -----

// A negative score scale would flip the ReLU's sign: it cannot move onto the weights.
// CHECK-LABEL: func.func @negative_scale
// CHECK: "mla.relu"

// -----

func.func @negative_scale(
    %iq: tensor<1x2x64x128xbf16> {mla.name = "index_query"},
    %iw: tensor<1x2x64xf32> {mla.name = "index_weights"},
    %ic: tensor<3x128x1x128xbf16> {mla.name = "index_cache"},
    %bt: tensor<1x2xi32> {mla.name = "block_table"},
    %len: tensor<1xi64> {mla.name = "seq_lengths"},
    %q: tensor<1x2x8x512xbf16> {mla.name = "query"},
    %qr: tensor<1x2x8x64xbf16> {mla.name = "query_rope"},
    %kv: tensor<3x128x1x512xbf16> {mla.name = "kv_cache"},
    %kr: tensor<3x128x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<1x2x8x512xbf16>) {
  %keys = "mla.paged_gather"(%ic, %bt) : (tensor<3x128x1x128xbf16>, tensor<1x2xi32>) -> tensor<1x256x1x128xbf16>
  %k3 = tensor.collapse_shape %keys [[0], [1], [2, 3]] : tensor<1x256x1x128xbf16> into tensor<1x256x128xbf16>
  %kt = "mla.transpose"(%k3) {permutation = array<i64: 0, 2, 1>} : (tensor<1x256x128xbf16>) -> tensor<1x128x256xbf16>
  %ktf = arith.extf %kt : tensor<1x128x256xbf16> to tensor<1x128x256xf32>
  %q3 = tensor.collapse_shape %iq [[0], [1, 2], [3]] : tensor<1x2x64x128xbf16> into tensor<1x128x128xbf16>
  %qf = arith.extf %q3 : tensor<1x128x128xbf16> to tensor<1x128x128xf32>
  %scores = "mla.batch_matmul"(%qf, %ktf) : (tensor<1x128x128xf32>, tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
  %scale = arith.constant dense<-0.08838834764831845> : tensor<1xf32>
  %scaled = "mla.mul"(%scores, %scale) : (tensor<1x128x256xf32>, tensor<1xf32>) -> tensor<1x128x256xf32>
  %relu = "mla.relu"(%scaled) : (tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
  %r2 = tensor.collapse_shape %relu [[0, 1], [2]] : tensor<1x128x256xf32> into tensor<128x256xf32>
  %r3 = tensor.expand_shape %r2 [[0, 1], [2]] output_shape [2, 64, 256] : tensor<128x256xf32> into tensor<2x64x256xf32>
  %w2 = tensor.collapse_shape %iw [[0, 1], [2]] : tensor<1x2x64xf32> into tensor<2x64xf32>
  %w3 = tensor.expand_shape %w2 [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xf32> into tensor<2x1x64xf32>
  %index = "mla.batch_matmul"(%w3, %r3) : (tensor<2x1x64xf32>, tensor<2x64x256xf32>) -> tensor<2x1x256xf32>
  %i2 = tensor.collapse_shape %index [[0], [1, 2]] : tensor<2x1x256xf32> into tensor<2x256xf32>
  %i3 = tensor.expand_shape %i2 [[0, 1], [2]] output_shape [1, 2, 256] : tensor<2x256xf32> into tensor<1x2x256xf32>
  %causal = "mla.length_mask"(%len) : (tensor<1xi64>) -> tensor<1x2x256xi1>
  %masked = "mla.masked_fill"(%i3, %causal) {value = 0xFFF0000000000000 : f64} : (tensor<1x2x256xf32>, tensor<1x2x256xi1>) -> tensor<1x2x256xf32>
  %values, %indices = "mla.top_k"(%masked) {k = 256 : i64} : (tensor<1x2x256xf32>) -> (tensor<1x2x256xf32>, tensor<1x2x256xi64>)
  %selection = "mla.index_mask"(%indices) : (tensor<1x2x256xi64>) -> tensor<1x2x256xi1>
  // expected-remark @+1 {{the scores' scale is not one positive constant: it cannot move to the weights [FUSE-001]}}
  %out = "mla.masked_paged_attention"(%q, %kv, %kv, %bt, %len, %selection, %qr, %kr) {scale_value = 0.08838834764831845 : f64, cache_mode = "PA_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<1x2x8x512xbf16>, tensor<3x128x1x512xbf16>, tensor<3x128x1x512xbf16>, tensor<1x2xi32>, tensor<1xi64>, tensor<1x2x256xi1>, tensor<1x2x8x64xbf16>, tensor<3x128x1x64xbf16>) -> tensor<1x2x8x512xbf16>
  return %out : tensor<1x2x8x512xbf16>
}

// -----

// A causal mask that fills a finite value is not the indexer's visibility rule.
// CHECK-LABEL: func.func @finite_fill
// CHECK: "mla.masked_fill"

// -----

func.func @finite_fill(
    %iq: tensor<1x2x64x128xbf16> {mla.name = "index_query"},
    %iw: tensor<1x2x64xf32> {mla.name = "index_weights"},
    %ic: tensor<3x128x1x128xbf16> {mla.name = "index_cache"},
    %bt: tensor<1x2xi32> {mla.name = "block_table"},
    %len: tensor<1xi64> {mla.name = "seq_lengths"},
    %q: tensor<1x2x8x512xbf16> {mla.name = "query"},
    %qr: tensor<1x2x8x64xbf16> {mla.name = "query_rope"},
    %kv: tensor<3x128x1x512xbf16> {mla.name = "kv_cache"},
    %kr: tensor<3x128x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<1x2x8x512xbf16>) {
  %keys = "mla.paged_gather"(%ic, %bt) : (tensor<3x128x1x128xbf16>, tensor<1x2xi32>) -> tensor<1x256x1x128xbf16>
  %k3 = tensor.collapse_shape %keys [[0], [1], [2, 3]] : tensor<1x256x1x128xbf16> into tensor<1x256x128xbf16>
  %kt = "mla.transpose"(%k3) {permutation = array<i64: 0, 2, 1>} : (tensor<1x256x128xbf16>) -> tensor<1x128x256xbf16>
  %ktf = arith.extf %kt : tensor<1x128x256xbf16> to tensor<1x128x256xf32>
  %q3 = tensor.collapse_shape %iq [[0], [1, 2], [3]] : tensor<1x2x64x128xbf16> into tensor<1x128x128xbf16>
  %qf = arith.extf %q3 : tensor<1x128x128xbf16> to tensor<1x128x128xf32>
  %scores = "mla.batch_matmul"(%qf, %ktf) : (tensor<1x128x128xf32>, tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
  %scale = arith.constant dense<0.08838834764831845> : tensor<1xf32>
  %scaled = "mla.mul"(%scores, %scale) : (tensor<1x128x256xf32>, tensor<1xf32>) -> tensor<1x128x256xf32>
  %relu = "mla.relu"(%scaled) : (tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
  %r2 = tensor.collapse_shape %relu [[0, 1], [2]] : tensor<1x128x256xf32> into tensor<128x256xf32>
  %r3 = tensor.expand_shape %r2 [[0, 1], [2]] output_shape [2, 64, 256] : tensor<128x256xf32> into tensor<2x64x256xf32>
  %w2 = tensor.collapse_shape %iw [[0, 1], [2]] : tensor<1x2x64xf32> into tensor<2x64xf32>
  %w3 = tensor.expand_shape %w2 [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xf32> into tensor<2x1x64xf32>
  %index = "mla.batch_matmul"(%w3, %r3) : (tensor<2x1x64xf32>, tensor<2x64x256xf32>) -> tensor<2x1x256xf32>
  %i2 = tensor.collapse_shape %index [[0], [1, 2]] : tensor<2x1x256xf32> into tensor<2x256xf32>
  %i3 = tensor.expand_shape %i2 [[0, 1], [2]] output_shape [1, 2, 256] : tensor<2x256xf32> into tensor<1x2x256xf32>
  %causal = "mla.length_mask"(%len) : (tensor<1xi64>) -> tensor<1x2x256xi1>
  %masked = "mla.masked_fill"(%i3, %causal) {value = -1.0e+04 : f64} : (tensor<1x2x256xf32>, tensor<1x2x256xi1>) -> tensor<1x2x256xf32>
  %values, %indices = "mla.top_k"(%masked) {k = 256 : i64} : (tensor<1x2x256xf32>) -> (tensor<1x2x256xf32>, tensor<1x2x256xi64>)
  %selection = "mla.index_mask"(%indices) : (tensor<1x2x256xi64>) -> tensor<1x2x256xi1>
  // expected-remark @+1 {{the causal mask does not fill -inf [FUSE-001]}}
  %out = "mla.masked_paged_attention"(%q, %kv, %kv, %bt, %len, %selection, %qr, %kr) {scale_value = 0.08838834764831845 : f64, cache_mode = "PA_BSND", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<1x2x8x512xbf16>, tensor<3x128x1x512xbf16>, tensor<3x128x1x512xbf16>, tensor<1x2xi32>, tensor<1xi64>, tensor<1x2x256xi1>, tensor<1x2x8x64xbf16>, tensor<3x128x1x64xbf16>) -> tensor<1x2x8x512xbf16>
  return %out : tensor<1x2x8x512xbf16>
}

// -----

// A PA_NZ latent cache: sparse flash attention reads PA_BSND caches.
// CHECK-LABEL: func.func @pa_nz
// CHECK: "mla.masked_paged_attention"

// -----

func.func @pa_nz(
    %iq: tensor<1x2x64x128xbf16> {mla.name = "index_query"},
    %iw: tensor<1x2x64xf32> {mla.name = "index_weights"},
    %ic: tensor<3x128x1x128xbf16> {mla.name = "index_cache"},
    %bt: tensor<1x2xi32> {mla.name = "block_table"},
    %len: tensor<1xi64> {mla.name = "seq_lengths"},
    %q: tensor<1x2x8x512xbf16> {mla.name = "query"},
    %qr: tensor<1x2x8x64xbf16> {mla.name = "query_rope"},
    %kv: tensor<3x128x1x512xbf16> {mla.name = "kv_cache"},
    %kr: tensor<3x128x1x64xbf16> {mla.name = "kr_cache"})
    -> (tensor<1x2x8x512xbf16>) {
  %keys = "mla.paged_gather"(%ic, %bt) : (tensor<3x128x1x128xbf16>, tensor<1x2xi32>) -> tensor<1x256x1x128xbf16>
  %k3 = tensor.collapse_shape %keys [[0], [1], [2, 3]] : tensor<1x256x1x128xbf16> into tensor<1x256x128xbf16>
  %kt = "mla.transpose"(%k3) {permutation = array<i64: 0, 2, 1>} : (tensor<1x256x128xbf16>) -> tensor<1x128x256xbf16>
  %ktf = arith.extf %kt : tensor<1x128x256xbf16> to tensor<1x128x256xf32>
  %q3 = tensor.collapse_shape %iq [[0], [1, 2], [3]] : tensor<1x2x64x128xbf16> into tensor<1x128x128xbf16>
  %qf = arith.extf %q3 : tensor<1x128x128xbf16> to tensor<1x128x128xf32>
  %scores = "mla.batch_matmul"(%qf, %ktf) : (tensor<1x128x128xf32>, tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
  %scale = arith.constant dense<0.08838834764831845> : tensor<1xf32>
  %scaled = "mla.mul"(%scores, %scale) : (tensor<1x128x256xf32>, tensor<1xf32>) -> tensor<1x128x256xf32>
  %relu = "mla.relu"(%scaled) : (tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
  %r2 = tensor.collapse_shape %relu [[0, 1], [2]] : tensor<1x128x256xf32> into tensor<128x256xf32>
  %r3 = tensor.expand_shape %r2 [[0, 1], [2]] output_shape [2, 64, 256] : tensor<128x256xf32> into tensor<2x64x256xf32>
  %w2 = tensor.collapse_shape %iw [[0, 1], [2]] : tensor<1x2x64xf32> into tensor<2x64xf32>
  %w3 = tensor.expand_shape %w2 [[0], [1, 2]] output_shape [2, 1, 64] : tensor<2x64xf32> into tensor<2x1x64xf32>
  %index = "mla.batch_matmul"(%w3, %r3) : (tensor<2x1x64xf32>, tensor<2x64x256xf32>) -> tensor<2x1x256xf32>
  %i2 = tensor.collapse_shape %index [[0], [1, 2]] : tensor<2x1x256xf32> into tensor<2x256xf32>
  %i3 = tensor.expand_shape %i2 [[0, 1], [2]] output_shape [1, 2, 256] : tensor<2x256xf32> into tensor<1x2x256xf32>
  %causal = "mla.length_mask"(%len) : (tensor<1xi64>) -> tensor<1x2x256xi1>
  %masked = "mla.masked_fill"(%i3, %causal) {value = 0xFFF0000000000000 : f64} : (tensor<1x2x256xf32>, tensor<1x2x256xi1>) -> tensor<1x2x256xf32>
  %values, %indices = "mla.top_k"(%masked) {k = 256 : i64} : (tensor<1x2x256xf32>) -> (tensor<1x2x256xf32>, tensor<1x2x256xi64>)
  %selection = "mla.index_mask"(%indices) : (tensor<1x2x256xi64>) -> tensor<1x2x256xi1>
  // expected-remark @+1 {{[SFA-05]}}
  %out = "mla.masked_paged_attention"(%q, %kv, %kv, %bt, %len, %selection, %qr, %kr) {scale_value = 0.08838834764831845 : f64, cache_mode = "PA_NZ", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 0, 0>} : (tensor<1x2x8x512xbf16>, tensor<3x128x1x512xbf16>, tensor<3x128x1x512xbf16>, tensor<1x2xi32>, tensor<1xi64>, tensor<1x2x256xi1>, tensor<1x2x8x64xbf16>, tensor<3x128x1x64xbf16>) -> tensor<1x2x8x512xbf16>
  return %out : tensor<1x2x8x512xbf16>
}
// lower-to-aclnn of the primitive ops: each to the standard aclnn kernel torch_npu calls for
// it (evidence in lowering/primitive.py), with views of its operands where the kernel takes
// another shape.
// RUN: mla-opt %s --split-input-file --lower-to-aclnn | FileCheck %s

// mla.matmul -> aclnnMatmul(self, mat2, out, cubeMathType): x as the (T, K) matrix, a view.
// CHECK-LABEL: func.func @matmul
// CHECK:      %[[OUT:.*]] = "aclnn.alloc"() : () -> tensor<2x32xbf16>
// CHECK:      %[[X:.*]] = "aclnn.view"(%arg0) {offset = 0 : i64, strides = array<i64: 64, 1>} : (tensor<2x1x64xbf16>) -> tensor<2x64xbf16>
// CHECK:      %[[KEEP:.*]] = arith.constant 0 : i8
// CHECK:      %[[P:.*]]:2 = "aclnn.matmul_get_workspace_size"(%[[X]], %arg1, %[[OUT]], %[[KEEP]]) {callee = "aclnnMatmulGetWorkspaceSize"}
// CHECK:      "aclnn.launch"({{.*}}, %[[P]]#0, %[[P]]#1, {{.*}}) {callee = "aclnnMatmul"}
// CHECK:      %[[Y:.*]] = "aclnn.view"(%[[OUT]]) {{.*}} -> tensor<2x1x32xbf16>
// CHECK:      return %[[Y]]
func.func @matmul(%x: tensor<2x1x64xbf16>, %w: tensor<64x32xbf16>) -> tensor<2x1x32xbf16> {
  %y = "mla.matmul"(%x, %w) : (tensor<2x1x64xbf16>, tensor<64x32xbf16>) -> tensor<2x1x32xbf16>
  return %y : tensor<2x1x32xbf16>
}

// -----

// A FRACTAL_NZ weight: aclnnMatmulWeightNz (op-plugin: is_nd_nz_format).
// CHECK-LABEL: func.func @matmul_nz
// CHECK:      "aclnn.matmul_weight_nz_get_workspace_size"(%arg0, %arg1, %{{.*}}, %{{.*}}) {callee = "aclnnMatmulWeightNzGetWorkspaceSize"}
// CHECK-SAME:   tensor<64x32xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x32xf32>, i8
// CHECK:      "aclnn.launch"({{.*}}) {callee = "aclnnMatmulWeightNz"}
func.func @matmul_nz(%x: tensor<2x64xbf16>, %w: tensor<64x32xbf16, #mla.format<"FRACTAL_NZ">>) -> tensor<2x32xf32> {
  %y = "mla.matmul"(%x, %w) : (tensor<2x64xbf16>, tensor<64x32xbf16, #mla.format<"FRACTAL_NZ">>) -> tensor<2x32xf32>
  return %y : tensor<2x32xf32>
}

// -----

// Per-head products: aclnnMatmul broadcasting (..., H, 1, K) @ (H, K, N); no copy.
// CHECK-LABEL: func.func @head_matmul
// CHECK:      %[[OUT:.*]] = "aclnn.alloc"() : () -> tensor<2x1x8x1x512xbf16>
// CHECK:      %[[X:.*]] = "aclnn.view"(%arg0) {offset = 0 : i64, strides = array<i64: 1024, 1024, 128, 128, 1>} : (tensor<2x1x8x128xbf16>) -> tensor<2x1x8x1x128xbf16>
// CHECK:      "aclnn.matmul_get_workspace_size"(%[[X]], %arg1, %[[OUT]], %{{.*}}) {callee = "aclnnMatmulGetWorkspaceSize"}
// CHECK:      %[[Y:.*]] = "aclnn.view"(%[[OUT]]) {{.*}} -> tensor<2x1x8x512xbf16>
// CHECK:      return %[[Y]]
func.func @head_matmul(%x: tensor<2x1x8x128xbf16>, %w: tensor<8x128x512xbf16>) -> tensor<2x1x8x512xbf16> {
  %y = "mla.head_matmul"(%x, %w) : (tensor<2x1x8x128xbf16>, tensor<8x128x512xbf16>) -> tensor<2x1x8x512xbf16>
  return %y : tensor<2x1x8x512xbf16>
}

// -----

// Per-token x per-channel: aclnnQuantMatmulV4(x1, x2, scale, offset, pertokenScale, bias, transposeX1, transposeX2, out).
// CHECK-LABEL: func.func @quant_matmul
// CHECK:      %[[OUT:.*]] = "aclnn.alloc"() : () -> tensor<2x32xbf16>
// CHECK:      %[[X:.*]] = "aclnn.view"(%arg0) {{.*}} -> tensor<2x64xi8>
// CHECK:      %[[XS:.*]] = "aclnn.view"(%arg2) {{.*}} -> tensor<2xf32>
// CHECK:      %[[NULL:.*]] = "aclnn.null"()
// CHECK:      %[[F:.*]] = arith.constant false
// CHECK:      "aclnn.quant_matmul_v4_get_workspace_size"(%[[X]], %arg1, %arg3, %[[NULL]], %[[XS]], %[[NULL]], %[[F]], %[[F]], %[[OUT]]) {callee = "aclnnQuantMatmulV4GetWorkspaceSize"}
// CHECK:      "aclnn.launch"({{.*}}) {callee = "aclnnQuantMatmulV4"}
func.func @quant_matmul(%x: tensor<2x1x64xi8>, %w: tensor<64x32xi8>, %xs: tensor<2x1xf32>, %ws: tensor<32xf32>) -> tensor<2x1x32xbf16> {
  %y = "mla.quant_matmul"(%x, %w, %xs, %ws) : (tensor<2x1x64xi8>, tensor<64x32xi8>, tensor<2x1xf32>, tensor<32xf32>) -> tensor<2x1x32xbf16>
  return %y : tensor<2x1x32xbf16>
}

// -----

// A FRACTAL_NZ int8 weight: aclnnQuantMatmulWeightNz(x1, x2, x1Scale, x2Scale, yScale, x1Offset, x2Offset, yOffset, bias, transposeX1, transposeX2, groupSize, out).
// CHECK-LABEL: func.func @quant_matmul_nz
// CHECK:      %[[WS:.*]] = "aclnn.view"(%arg3) {{.*}} -> tensor<32xf32>
// CHECK:      %[[NULL:.*]] = "aclnn.null"()
// CHECK:      "aclnn.quant_matmul_weight_nz_get_workspace_size"(%arg0, %arg1, %arg2, %[[WS]], %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {callee = "aclnnQuantMatmulWeightNzGetWorkspaceSize"}
func.func @quant_matmul_nz(%x: tensor<4x64xi8>, %w: tensor<64x32xi8, #mla.format<"FRACTAL_NZ">>, %xs: tensor<4xf32>, %ws: tensor<1x32xf32>) -> tensor<4x32xbf16> {
  %y = "mla.quant_matmul"(%x, %w, %xs, %ws) : (tensor<4x64xi8>, tensor<64x32xi8, #mla.format<"FRACTAL_NZ">>, tensor<4xf32>, tensor<1x32xf32>) -> tensor<4x32xbf16>
  return %y : tensor<4x32xbf16>
}

// -----

// Interleaved RoPE: aclnnInterleaveRope(x, cos, sin, out) over x (B, N, S, D), cos/sin (B, 1, S, D):
// (2, 3, 8, 64) with tables (2, 3, 1, 64) is read as (6, 8, 1, 64) and (6, 1, 1, 64).
// CHECK-LABEL: func.func @rope
// CHECK:      %[[X:.*]] = "aclnn.view"(%arg0) {{.*}} -> tensor<6x8x1x64xbf16>
// CHECK:      %[[C:.*]] = "aclnn.view"(%arg1) {{.*}} -> tensor<6x1x1x64xbf16>
// CHECK:      %[[S:.*]] = "aclnn.view"(%arg2) {{.*}} -> tensor<6x1x1x64xbf16>
// CHECK:      %[[OUT:.*]] = "aclnn.alloc"() : () -> tensor<6x8x1x64xbf16>
// CHECK:      "aclnn.interleave_rope_get_workspace_size"(%[[X]], %[[C]], %[[S]], %[[OUT]]) {callee = "aclnnInterleaveRopeGetWorkspaceSize"}
// CHECK:      "aclnn.launch"({{.*}}) {callee = "aclnnInterleaveRope"}
func.func @rope(%q: tensor<2x3x8x64xbf16>, %cos: tensor<2x3x1x64xbf16>, %sin: tensor<2x3x1x64xbf16>) -> tensor<2x3x8x64xbf16> {
  %y = "mla.rope"(%q, %cos, %sin) : (tensor<2x3x8x64xbf16>, tensor<2x3x1x64xbf16>, tensor<2x3x1x64xbf16>) -> tensor<2x3x8x64xbf16>
  return %y : tensor<2x3x8x64xbf16>
}

// -----

// Rotate-half RoPE: aclnnRotaryPositionEmbedding(x, cos, sin, mode = 0, out).
// CHECK-LABEL: func.func @rope_half
// CHECK:      %[[MODE:.*]] = arith.constant 0 : i64
// CHECK:      "aclnn.rotary_position_embedding_get_workspace_size"(%{{.*}}, %{{.*}}, %{{.*}}, %[[MODE]], %{{.*}}) {callee = "aclnnRotaryPositionEmbeddingGetWorkspaceSize"}
func.func @rope_half(%k: tensor<4x64xf16>, %cos: tensor<4x64xf16>, %sin: tensor<4x64xf16>) -> tensor<4x64xf16> {
  %y = "mla.rope"(%k, %cos, %sin) {mode = "half"} : (tensor<4x64xf16>, tensor<4x64xf16>, tensor<4x64xf16>) -> tensor<4x64xf16>
  return %y : tensor<4x64xf16>
}

// -----

// aclnnDynamicQuant(x, smoothScalesOptional, yOut, scaleOut).
// CHECK-LABEL: func.func @dynamic_quant
// CHECK:      %[[Y:.*]] = "aclnn.alloc"() : () -> tensor<2x1x64xi8>
// CHECK:      %[[S:.*]] = "aclnn.alloc"() : () -> tensor<2x1xf32>
// CHECK:      "aclnn.dynamic_quant_get_workspace_size"(%arg0, %arg1, %[[Y]], %[[S]]) {callee = "aclnnDynamicQuantGetWorkspaceSize"}
// CHECK-NOT:  mla.rounding
// CHECK:      return %[[Y]], %[[S]]
func.func @dynamic_quant(%x: tensor<2x1x64xbf16>, %smooth: tensor<64xf32>) -> (tensor<2x1x64xi8>, tensor<2x1xf32>) {
  %y:2 = "mla.dynamic_quant"(%x, %smooth) {operandSegmentSizes = array<i32: 1, 1>} : (tensor<2x1x64xbf16>, tensor<64xf32>) -> (tensor<2x1x64xi8>, tensor<2x1xf32>)
  return %y#0, %y#1 : tensor<2x1x64xi8>, tensor<2x1xf32>
}

// -----

// The prolog's query quant has no standalone kernel: the call records the op's rounding
// (the CPU backend honours it, the NPU backend refuses the call).
// CHECK-LABEL: func.func @dynamic_quant_half_away
// CHECK:      "aclnn.dynamic_quant_get_workspace_size"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}) {callee = "aclnnDynamicQuantGetWorkspaceSize", mla.rounding = "half_away"}
func.func @dynamic_quant_half_away(%x: tensor<2x64xbf16>) -> (tensor<2x64xi8>, tensor<2xf32>) {
  %y:2 = "mla.dynamic_quant"(%x) {operandSegmentSizes = array<i32: 1, 0>, rounding = "half_away"} : (tensor<2x64xbf16>) -> (tensor<2x64xi8>, tensor<2xf32>)
  return %y#0, %y#1 : tensor<2x64xi8>, tensor<2xf32>
}

// -----

// Static int8 quant: aclnnAscendQuantV3(x, scale, offset, sqrtMode, roundMode, dstType = INT8, axis = -1, y).
// CHECK-LABEL: func.func @quantize
// CHECK:      %[[SCALE:.*]] = "aclnn.view"(%arg1) {{.*}} : (tensor<1x1xf32>) -> tensor<1xf32>
// CHECK:      %[[NULL:.*]] = "aclnn.null"()
// CHECK:      %[[F:.*]] = arith.constant false
// CHECK:      %[[ROUND:.*]] = "aclnn.string"() {value = "round"}
// CHECK:      %[[INT8:.*]] = arith.constant 2 : i32
// CHECK:      %[[AXIS:.*]] = arith.constant -1 : i32
// CHECK:      %[[Y:.*]] = "aclnn.alloc"() : () -> tensor<2x1x512xi8>
// CHECK:      "aclnn.ascend_quant_v3_get_workspace_size"(%arg0, %[[SCALE]], %[[NULL]], %[[F]], %[[ROUND]], %[[INT8]], %[[AXIS]], %[[Y]]) {callee = "aclnnAscendQuantV3GetWorkspaceSize"}
func.func @quantize(%x: tensor<2x1x512xf32>, %s: tensor<1x1xf32>) -> tensor<2x1x512xi8> {
  %y = "mla.quantize"(%x, %s) : (tensor<2x1x512xf32>, tensor<1x1xf32>) -> tensor<2x1x512xi8>
  return %y : tensor<2x1x512xi8>
}

// -----

// aclnnAdd(self, other, alpha = 1.0f, out), aclnnMul, aclnnDiv: broadcasting, mixed types.
// CHECK-LABEL: func.func @elementwise
// CHECK:      %[[ALPHA:.*]] = "aclnn.create_scalar"() {value = 1.000000e+00 : f32} : () -> !aclnn.scalar
// CHECK:      "aclnn.add_get_workspace_size"(%arg0, %arg0, %[[ALPHA]], %{{.*}}) {callee = "aclnnAddGetWorkspaceSize"}
// CHECK:      "aclnn.mul_get_workspace_size"(%arg0, %arg1, %{{.*}}) {callee = "aclnnMulGetWorkspaceSize"}
// CHECK-SAME:   (tensor<2x8x64xbf16>, tensor<2x8x1xf32>, tensor<2x8x64xbf16>)
// CHECK:      "aclnn.div_get_workspace_size"(%arg0, %arg1, %{{.*}}) {callee = "aclnnDivGetWorkspaceSize"}
// CHECK-SAME:   (tensor<2x8x64xbf16>, tensor<2x8x1xf32>, tensor<2x8x64xf32>)
func.func @elementwise(%x: tensor<2x8x64xbf16>, %y: tensor<2x8x1xf32>) -> (tensor<2x8x64xbf16>, tensor<2x8x64xbf16>, tensor<2x8x64xf32>) {
  %a = "mla.add"(%x, %x) : (tensor<2x8x64xbf16>, tensor<2x8x64xbf16>) -> tensor<2x8x64xbf16>
  %m = "mla.mul"(%x, %y) : (tensor<2x8x64xbf16>, tensor<2x8x1xf32>) -> tensor<2x8x64xbf16>
  %d = "mla.div"(%x, %y) : (tensor<2x8x64xbf16>, tensor<2x8x1xf32>) -> tensor<2x8x64xf32>
  return %a, %m, %d : tensor<2x8x64xbf16>, tensor<2x8x64xbf16>, tensor<2x8x64xf32>
}

// -----

// One paged cache: aclnnScatterPaKvCache(key, keyCacheRef, slotMapping, value, valueCacheRef, ...,
// cacheMode, scatterMode, strides, offsets), value and valueCacheRef 0-dimensional, the cache in place.
// CHECK-LABEL: func.func @scatter_cache
// CHECK:      %[[EMPTY:.*]] = "aclnn.alloc"() : () -> tensor<bf16>
// CHECK:      %[[KEY:.*]] = "aclnn.view"(%arg2) {{.*}} -> tensor<2x1x512xbf16>
// CHECK:      %[[SLOTS:.*]] = "aclnn.view"(%arg1) {{.*}} -> tensor<2xi64>
// CHECK:      %[[NULL:.*]] = "aclnn.null"()
// CHECK:      %[[NORM:.*]] = "aclnn.string"() {value = "Norm"}
// CHECK:      %[[NONE:.*]] = "aclnn.string"() {value = "None"}
// CHECK:      "aclnn.scatter_pa_kv_cache_get_workspace_size"(%[[KEY]], %arg0, %[[SLOTS]], %[[EMPTY]], %[[EMPTY]], %[[NULL]], %[[NULL]], %[[NULL]], %[[NORM]], %[[NONE]], %[[NULL]], %[[NULL]]) {callee = "aclnnScatterPaKvCacheGetWorkspaceSize"}
// CHECK:      return %arg0
func.func @scatter_cache(%cache: tensor<5x16x1x512xbf16>, %slots: tensor<2x1xi64>, %rows: tensor<2x1x1x512xbf16>) -> tensor<5x16x1x512xbf16> {
  %c = "mla.scatter_cache"(%cache, %slots, %rows) : (tensor<5x16x1x512xbf16>, tensor<2x1xi64>, tensor<2x1x1x512xbf16>) -> tensor<5x16x1x512xbf16>
  return %c : tensor<5x16x1x512xbf16>
}

// -----

// PA_NZ: keyCacheRef is the cache's bytes as (BlockNum, Nkv*H/16, BlockSize, 16).
// CHECK-LABEL: func.func @scatter_cache_nz
// CHECK:      %[[REF:.*]] = "aclnn.view"(%arg0) {offset = 0 : i64, strides = array<i64: 1024, 256, 16, 1>} : (tensor<5x16x1x64xbf16>) -> tensor<5x4x16x16xbf16>
// CHECK:      %[[MODE:.*]] = "aclnn.string"() {value = "PA_NZ"}
// CHECK:      "aclnn.scatter_pa_kv_cache_get_workspace_size"(%arg2, %[[REF]], %arg1, {{.*}}, %[[MODE]], {{.*}}) {callee = "aclnnScatterPaKvCacheGetWorkspaceSize"}
func.func @scatter_cache_nz(%cache: tensor<5x16x1x64xbf16>, %slots: tensor<2xi32>, %rows: tensor<2x1x64xbf16>) -> tensor<5x16x1x64xbf16> {
  %c = "mla.scatter_cache"(%cache, %slots, %rows) {cache_mode = "PA_NZ"} : (tensor<5x16x1x64xbf16>, tensor<2xi32>, tensor<2x1x64xbf16>) -> tensor<5x16x1x64xbf16>
  return %c : tensor<5x16x1x64xbf16>
}

// -----

// Rows of a table: aclnnEmbedding(weight, indices, out).
// CHECK-LABEL: func.func @gather
// CHECK:      %[[OUT:.*]] = "aclnn.alloc"() : () -> tensor<2x1x64xbf16>
// CHECK:      "aclnn.embedding_get_workspace_size"(%arg0, %arg1, %[[OUT]]) {callee = "aclnnEmbeddingGetWorkspaceSize"}
func.func @gather(%table: tensor<32x64xbf16>, %positions: tensor<2x1xi64>) -> tensor<2x1x64xbf16> {
  %y = "mla.gather"(%table, %positions) : (tensor<32x64xbf16>, tensor<2x1xi64>) -> tensor<2x1x64xbf16>
  return %y : tensor<2x1x64xbf16>
}

// -----

// ND -> FRACTAL_NZ: aclnnNpuFormatCast(srcTensor, dstTensor).
// CHECK-LABEL: func.func @format_cast
// CHECK:      %[[NZ:.*]] = "aclnn.alloc"() : () -> tensor<64x32xbf16, #mla.format<"FRACTAL_NZ">>
// CHECK:      "aclnn.npu_format_cast_get_workspace_size"(%arg0, %[[NZ]]) {callee = "aclnnNpuFormatCastGetWorkspaceSize"}
func.func @format_cast(%w: tensor<64x32xbf16>) -> tensor<64x32xbf16, #mla.format<"FRACTAL_NZ">> {
  %y = "mla.format_cast"(%w) : (tensor<64x32xbf16>) -> tensor<64x32xbf16, #mla.format<"FRACTAL_NZ">>
  return %y : tensor<64x32xbf16, #mla.format<"FRACTAL_NZ">>
}

// -----

// aclnnPermute(self, dims, out): dims a host list.
// CHECK-LABEL: func.func @transpose
// CHECK:      %[[DIMS:.*]] = "aclnn.create_int_array"() {value = array<i64: 1, 0>}
// CHECK:      "aclnn.permute_get_workspace_size"(%arg0, %[[DIMS]], %{{.*}}) {callee = "aclnnPermuteGetWorkspaceSize"}
func.func @transpose(%w: tensor<32x64xbf16>) -> tensor<64x32xbf16> {
  %y = "mla.transpose"(%w) {permutation = array<i64: 1, 0>} : (tensor<32x64xbf16>) -> tensor<64x32xbf16>
  return %y : tensor<64x32xbf16>
}

// -----

// triu(ones(S, S), 1): aclnnInplaceOne, then aclnnTriu(self, diagonal = 1, out).
// CHECK-LABEL: func.func @causal_mask
// CHECK:      %[[ONES:.*]] = "aclnn.alloc"() : () -> tensor<8x8xi8>
// CHECK:      "aclnn.inplace_one_get_workspace_size"(%[[ONES]]) {callee = "aclnnInplaceOneGetWorkspaceSize"}
// CHECK:      %[[MASK:.*]] = "aclnn.alloc"() : () -> tensor<8x8xi8>
// CHECK:      %[[ONE:.*]] = arith.constant 1 : i64
// CHECK:      "aclnn.triu_get_workspace_size"(%[[ONES]], %[[ONE]], %[[MASK]]) {callee = "aclnnTriuGetWorkspaceSize"}
// CHECK:      return %[[MASK]]
func.func @causal_mask() -> tensor<8x8xi8> {
  %m = "mla.causal_mask"() : () -> tensor<8x8xi8>
  return %m : tensor<8x8xi8>
}

// -----

// The pieces of a written-out RmsNorm: aclnnMean(self, dim = [-1], keepDim, dtype, out), aclnnRsqrt(self, out).
// CHECK-LABEL: func.func @mean_rsqrt
// CHECK-DAG:  %[[M:.*]] = "aclnn.alloc"() : () -> tensor<2x1x1xf32>
// CHECK-DAG:  %[[DIM:.*]] = "aclnn.create_int_array"() {value = array<i64: -1>}
// CHECK-DAG:  %[[KEEP:.*]] = arith.constant true
// CHECK-DAG:  %[[F32:.*]] = "aclnn.dtype"() {type = f32}
// CHECK:      "aclnn.mean_get_workspace_size"(%arg0, %[[DIM]], %[[KEEP]], %[[F32]], %[[M]]) {callee = "aclnnMeanGetWorkspaceSize"}
// CHECK:      "aclnn.rsqrt_get_workspace_size"(%[[M]], %{{.*}}) {callee = "aclnnRsqrtGetWorkspaceSize"}
func.func @mean_rsqrt(%x: tensor<2x1x64xbf16>) -> (tensor<2x1x1xf32>, tensor<2x1x1xf32>) {
  %m = "mla.mean"(%x) : (tensor<2x1x64xbf16>) -> tensor<2x1x1xf32>
  %r = "mla.rsqrt"(%m) : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  return %m, %r : tensor<2x1x1xf32>, tensor<2x1x1xf32>
}

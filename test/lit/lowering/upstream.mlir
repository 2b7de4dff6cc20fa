// lower-to-aclnn of the upstream ops in mla programs: views, copies, casts, concatenation,
// constants.
// RUN: mla-opt %s --split-input-file --lower-to-aclnn | FileCheck %s

// Reshapes and slices are views of the same buffer: element offsets and strides, no kernel.
// The two strided slices are returned, so they leave the device as contiguous copies.
// CHECK-LABEL: func.func @views
// CHECK:      %[[NOPE:.*]] = "aclnn.view"(%arg0) {offset = 0 : i64, strides = array<i64: 1536, 1536, 192, 1>} : (tensor<2x1x1536xbf16>) -> tensor<2x1x8x128xbf16>
// CHECK:      %[[PE:.*]] = "aclnn.view"(%arg0) {offset = 128 : i64, strides = array<i64: 1536, 1536, 192, 1>} : (tensor<2x1x1536xbf16>) -> tensor<2x1x8x64xbf16>
// CHECK-NOT:  "aclnn.view"
// CHECK:      %[[A:.*]] = "aclnn.alloc"() : () -> tensor<2x1x8x128xbf16>
// CHECK:      "aclnn.inplace_copy_get_workspace_size"(%[[A]], %[[NOPE]]) {callee = "aclnnInplaceCopyGetWorkspaceSize"}
// CHECK:      %[[B:.*]] = "aclnn.alloc"() : () -> tensor<2x1x8x64xbf16>
// CHECK:      "aclnn.inplace_copy_get_workspace_size"(%[[B]], %[[PE]])
// CHECK:      return %[[A]], %[[B]]
func.func @views(%q: tensor<2x1x1536xbf16>) -> (tensor<2x1x8x128xbf16>, tensor<2x1x8x64xbf16>) {
  %heads = tensor.expand_shape %q [[0], [1], [2, 3]] output_shape [2, 1, 8, 192] : tensor<2x1x1536xbf16> into tensor<2x1x8x192xbf16>
  %nope = tensor.extract_slice %heads[0, 0, 0, 0] [2, 1, 8, 128] [1, 1, 1, 1] : tensor<2x1x8x192xbf16> to tensor<2x1x8x128xbf16>
  %pe = tensor.extract_slice %heads[0, 0, 0, 128] [2, 1, 8, 64] [1, 1, 1, 1] : tensor<2x1x8x192xbf16> to tensor<2x1x8x64xbf16>
  return %nope, %pe : tensor<2x1x8x128xbf16>, tensor<2x1x8x64xbf16>
}

// -----

// A reshape no strides can express (merging a strided slice's dims): a contiguous copy first.
// CHECK-LABEL: func.func @reshape_of_a_slice
// CHECK:      %[[S:.*]] = "aclnn.view"(%arg0) {offset = 0 : i64, strides = array<i64: 1536, 192, 1>} : (tensor<2x8x192xbf16>) -> tensor<2x8x128xbf16>
// CHECK:      %[[COPY:.*]] = "aclnn.alloc"() : () -> tensor<2x8x128xbf16>
// CHECK:      "aclnn.inplace_copy_get_workspace_size"(%[[COPY]], %[[S]])
// CHECK:      %[[R:.*]] = "aclnn.view"(%[[COPY]]) {offset = 0 : i64, strides = array<i64: 1024, 1>} : (tensor<2x8x128xbf16>) -> tensor<2x1024xbf16>
// CHECK:      return %[[R]]
func.func @reshape_of_a_slice(%x: tensor<2x8x192xbf16>) -> tensor<2x1024xbf16> {
  %s = tensor.extract_slice %x[0, 0, 0] [2, 8, 128] [1, 1, 1] : tensor<2x8x192xbf16> to tensor<2x8x128xbf16>
  %c = tensor.collapse_shape %s [[0], [1, 2]] : tensor<2x8x128xbf16> into tensor<2x1024xbf16>
  return %c : tensor<2x1024xbf16>
}

// -----

// arith.truncf/extf -> aclnnCast(self, dtype, out); tensor.concat -> aclnnCat(tensors, dim, out)
// (a list of differently shaped tensors is built by appending).
// CHECK-LABEL: func.func @casts_and_concat
// CHECK:      %[[T:.*]] = "aclnn.alloc"() : () -> tensor<2x64xbf16>
// CHECK:      %[[BF16:.*]] = "aclnn.dtype"() {type = bf16} : () -> !aclnn.data_type
// CHECK:      "aclnn.cast_get_workspace_size"(%arg0, %[[BF16]], %[[T]]) {callee = "aclnnCastGetWorkspaceSize"}
// CHECK:      %[[C:.*]] = "aclnn.alloc"() : () -> tensor<2x96xbf16>
// CHECK:      %[[L1:.*]] = "aclnn.create_tensor_list"(%[[T]])
// CHECK:      %[[L2:.*]] = "aclnn.tensor_list_append"(%[[L1]], %arg1)
// CHECK:      %[[DIM:.*]] = arith.constant 1 : i64
// CHECK:      "aclnn.cat_get_workspace_size"(%[[L2]], %[[DIM]], %[[C]]) {callee = "aclnnCatGetWorkspaceSize"}
// CHECK:      %[[F32:.*]] = "aclnn.dtype"() {type = f32}
// CHECK:      "aclnn.cast_get_workspace_size"(%arg1, %[[F32]], %{{.*}})
func.func @casts_and_concat(%x: tensor<2x64xf32>, %y: tensor<2x32xbf16>) -> (tensor<2x96xbf16>, tensor<2x32xf32>) {
  %t = arith.truncf %x : tensor<2x64xf32> to tensor<2x64xbf16>
  %c = tensor.concat dim(1) %t, %y : (tensor<2x64xbf16>, tensor<2x32xbf16>) -> tensor<2x96xbf16>
  %e = arith.extf %y : tensor<2x32xbf16> to tensor<2x32xf32>
  return %c, %e : tensor<2x96xbf16>, tensor<2x32xf32>
}

// -----

// Weights (ml_program globals) and arith.constant tensors stay: device-resident constants the
// executor uploads once per program.
// CHECK-LABEL: func.func @constants
// CHECK:      %[[W:.*]] = ml_program.global_load_const @w : tensor<64x32xbf16>
// CHECK:      "aclnn.matmul_get_workspace_size"(%arg0, %[[W]], {{.*}})
// CHECK:      %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<2x64xbf16>
// CHECK:      "aclnn.add_get_workspace_size"(%arg0, %[[ONE]], {{.*}})
ml_program.global private @w(#ml_program.extern : tensor<64x32xbf16>) : tensor<64x32xbf16>
func.func @constants(%x: tensor<2x64xbf16>) -> (tensor<2x32xbf16>, tensor<2x64xbf16>) {
  %w = ml_program.global_load_const @w : tensor<64x32xbf16>
  %y = "mla.matmul"(%x, %w) : (tensor<2x64xbf16>, tensor<64x32xbf16>) -> tensor<2x32xbf16>
  %one = arith.constant dense<1.0> : tensor<2x64xbf16>
  %z = "mla.add"(%x, %one) : (tensor<2x64xbf16>, tensor<2x64xbf16>) -> tensor<2x64xbf16>
  return %y, %z : tensor<2x32xbf16>, tensor<2x64xbf16>
}

// -----

// A dynamic quant and int8 product written out (what raise-quant leaves when it does not
// match): math.absf -> aclnnAbs, mla.amax -> aclnnAmax(self, dim = [-1], keepDim, out),
// math.roundeven -> aclnnRound, arith.maximumf/minimumf -> aclnnMaximum/aclnnMinimum,
// arith.fptosi/extsi/sitofp -> aclnnCast, the int32 mla.matmul -> aclnnMatmul.
// CHECK-LABEL: func.func @written_out_quant
// CHECK:      %[[A:.*]] = "aclnn.alloc"() : () -> tensor<4x64xf32>
// CHECK:      "aclnn.abs_get_workspace_size"(%arg0, %[[A]]) {callee = "aclnnAbsGetWorkspaceSize"}
// CHECK:      %[[DIM:.*]] = "aclnn.create_int_array"() {value = array<i64: -1>}
// CHECK:      %[[KEEP:.*]] = arith.constant true
// CHECK:      %[[M:.*]] = "aclnn.alloc"() : () -> tensor<4x1xf32>
// CHECK:      "aclnn.amax_get_workspace_size"(%[[A]], %[[DIM]], %[[KEEP]], %[[M]]) {callee = "aclnnAmaxGetWorkspaceSize"}
// CHECK:      "aclnn.round_get_workspace_size"
// CHECK:      "aclnn.maximum_get_workspace_size"
// CHECK:      "aclnn.minimum_get_workspace_size"
// CHECK:      %[[Y:.*]] = "aclnn.alloc"() : () -> tensor<4x64xi8>
// CHECK:      %[[I8:.*]] = "aclnn.dtype"() {type = i8}
// CHECK:      "aclnn.cast_get_workspace_size"(%{{.*}}, %[[I8]], %[[Y]]) {callee = "aclnnCastGetWorkspaceSize"}
// CHECK:      "aclnn.matmul_get_workspace_size"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {callee = "aclnnMatmulGetWorkspaceSize"} : (tensor<4x64xi32>, tensor<64x32xi32>, tensor<4x32xi32>, i8)
// CHECK:      %[[F32:.*]] = "aclnn.dtype"() {type = f32}
// CHECK:      "aclnn.cast_get_workspace_size"(%{{.*}}, %[[F32]], %{{.*}}) {callee = "aclnnCastGetWorkspaceSize"} : (tensor<4x32xi32>
func.func @written_out_quant(%x: tensor<4x64xf32>, %w: tensor<64x32xi8>) -> (tensor<4x64xi8>, tensor<4x32xf32>) {
  %a = math.absf %x : tensor<4x64xf32>
  %m = "mla.amax"(%a) : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %c127 = arith.constant dense<127.0> : tensor<f32>
  %scale = "mla.div"(%m, %c127) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %ratio = "mla.div"(%x, %scale) : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %r = math.roundeven %ratio : tensor<4x64xf32>
  %lo = arith.constant dense<-128.0> : tensor<4x64xf32>
  %hi = arith.constant dense<127.0> : tensor<4x64xf32>
  %c1 = arith.maximumf %r, %lo : tensor<4x64xf32>
  %c2 = arith.minimumf %c1, %hi : tensor<4x64xf32>
  %y = arith.fptosi %c2 : tensor<4x64xf32> to tensor<4x64xi8>
  %x32 = arith.extsi %y : tensor<4x64xi8> to tensor<4x64xi32>
  %w32 = arith.extsi %w : tensor<64x32xi8> to tensor<64x32xi32>
  %acc = "mla.matmul"(%x32, %w32) : (tensor<4x64xi32>, tensor<64x32xi32>) -> tensor<4x32xi32>
  %f = arith.sitofp %acc : tensor<4x32xi32> to tensor<4x32xf32>
  return %y, %f : tensor<4x64xi8>, tensor<4x32xf32>
}

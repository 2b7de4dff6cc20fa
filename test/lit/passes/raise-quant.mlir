// RUN: mla-opt %s --split-input-file --raise-quant | FileCheck %s

// npu_dynamic_quant written out, as the importer writes x.float(), abs().amax(-1, keepdim=True) / 127,
// round(x / scale).clamp(-128, 127).to(int8): one mla.dynamic_quant of the bf16 x (it widens x
// itself), its (2, 4) scale viewed as the (2, 4, 1) one the user reads.
// CHECK-LABEL: func.func @dynamic_quant
// CHECK-NEXT:  %[[Q:.*]]:2 = "mla.dynamic_quant"(%arg0) {operandSegmentSizes = array<i32: 1, 0>} : (tensor<2x4x64xbf16>) -> (tensor<2x4x64xi8>, tensor<2x4xf32>)
// CHECK-NEXT:  %[[S:.*]] = tensor.expand_shape %[[Q]]#1 {{\[}}[0], [1, 2]] output_shape [2, 4, 1] : tensor<2x4xf32> into tensor<2x4x1xf32>
// CHECK-NOT:   math.
// CHECK-NOT:   mla.amax
// CHECK:       return %[[Q]]#0, %[[S]]
func.func @dynamic_quant(%x: tensor<2x4x64xbf16>) -> (tensor<2x4x64xi8>, tensor<2x4x1xf32>) {
  %z = arith.extf %x : tensor<2x4x64xbf16> to tensor<2x4x64xf32>
  %a = math.absf %z : tensor<2x4x64xf32>
  %m = "mla.amax"(%a) : (tensor<2x4x64xf32>) -> tensor<2x4x1xf32>
  %c127 = arith.constant dense<127.0> : tensor<f32>
  %scale = "mla.div"(%m, %c127) : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %ratio = "mla.div"(%z, %scale) : (tensor<2x4x64xf32>, tensor<2x4x1xf32>) -> tensor<2x4x64xf32>
  %r = math.roundeven %ratio : tensor<2x4x64xf32>
  %lo = arith.constant dense<-128.0> : tensor<2x4x64xf32>
  %hi = arith.constant dense<127.0> : tensor<2x4x64xf32>
  %c1 = arith.maximumf %r, %lo : tensor<2x4x64xf32>
  %c2 = arith.minimumf %c1, %hi : tensor<2x4x64xf32>
  %y = arith.fptosi %c2 : tensor<2x4x64xf32> to tensor<2x4x64xi8>
  return %y, %scale : tensor<2x4x64xi8>, tensor<2x4x1xf32>
}

// -----

// float32 x with smooth scales (npu_dynamic_quant(x, smooth_scales=s): z = x * s first), clamped
// to [-127, 127]; then the int8 product dequantized per token and per channel, rounded to bf16:
// one mla.quant_matmul with the weight as the product read it (transposed, then widened) and
// the cast's type. The weight's (N, 1) scale is read as (N,) (a view).
// CHECK-LABEL: func.func @smooth_then_matmul
// CHECK:       %[[Q:.*]]:2 = "mla.dynamic_quant"(%arg0, %arg1) {operandSegmentSizes = array<i32: 1, 1>} : (tensor<4x64xf32>, tensor<64xf32>) -> (tensor<4x64xi8>, tensor<4xf32>)
// CHECK:       %[[S:.*]] = tensor.expand_shape %[[Q]]#1
// CHECK:       %[[WT:.*]] = "mla.transpose"(%arg2) {permutation = array<i64: 1, 0>} : (tensor<32x64xi8>) -> tensor<64x32xi8>
// CHECK:       %[[Y:.*]] = "mla.quant_matmul"(%[[Q]]#0, %[[WT]], %[[S]], %{{.*}}) : (tensor<4x64xi8>, tensor<64x32xi8>, tensor<4x1xf32>, tensor<32xf32>) -> tensor<4x32xbf16>
// CHECK-NOT:   arith.
// CHECK:       return %[[Y]] : tensor<4x32xbf16>
func.func @smooth_then_matmul(%x: tensor<4x64xf32>, %smooth: tensor<64xf32>, %w: tensor<32x64xi8>,
                              %w_scale: tensor<32x1xf32>) -> tensor<4x32xbf16> {
  %z = "mla.mul"(%x, %smooth) : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  %a = math.absf %z : tensor<4x64xf32>
  %m = "mla.amax"(%a) : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %c127 = arith.constant dense<127.0> : tensor<f32>
  %scale = "mla.div"(%m, %c127) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %ratio = "mla.div"(%z, %scale) : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %r = math.roundeven %ratio : tensor<4x64xf32>
  %lo = arith.constant dense<-127.0> : tensor<4x64xf32>
  %hi = arith.constant dense<127.0> : tensor<4x64xf32>
  %c1 = arith.maximumf %r, %lo : tensor<4x64xf32>
  %c2 = arith.minimumf %c1, %hi : tensor<4x64xf32>
  %xq = arith.fptosi %c2 : tensor<4x64xf32> to tensor<4x64xi8>
  %x32 = arith.extsi %xq : tensor<4x64xi8> to tensor<4x64xi32>
  %w32 = arith.extsi %w : tensor<32x64xi8> to tensor<32x64xi32>
  %wt = "mla.transpose"(%w32) {permutation = array<i64: 1, 0>} : (tensor<32x64xi32>) -> tensor<64x32xi32>
  %acc = "mla.matmul"(%x32, %wt) : (tensor<4x64xi32>, tensor<64x32xi32>) -> tensor<4x32xi32>
  %f = arith.sitofp %acc : tensor<4x32xi32> to tensor<4x32xf32>
  %ws = tensor.collapse_shape %w_scale [[0, 1]] : tensor<32x1xf32> into tensor<32xf32>
  %p = "mla.mul"(%f, %scale) : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
  %y = "mla.mul"(%p, %ws) : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %yb = arith.truncf %y : tensor<4x32xf32> to tensor<4x32xbf16>
  return %yb : tensor<4x32xbf16>
}

// -----

// A scale of max / 100 (not int8's 127): not npu_dynamic_quant, left as written.
// CHECK-LABEL: func.func @scale_not_127
// CHECK-NOT:   mla.dynamic_quant
// CHECK:       mla.amax
func.func @scale_not_127(%x: tensor<4x64xf32>) -> tensor<4x64xi8> {
  %a = math.absf %x : tensor<4x64xf32>
  %m = "mla.amax"(%a) : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %c100 = arith.constant dense<100.0> : tensor<f32>
  %scale = "mla.div"(%m, %c100) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %ratio = "mla.div"(%x, %scale) : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %r = math.roundeven %ratio : tensor<4x64xf32>
  %lo = arith.constant dense<-128.0> : tensor<4x64xf32>
  %hi = arith.constant dense<127.0> : tensor<4x64xf32>
  %c1 = arith.maximumf %r, %lo : tensor<4x64xf32>
  %c2 = arith.minimumf %c1, %hi : tensor<4x64xf32>
  %y = arith.fptosi %c2 : tensor<4x64xf32> to tensor<4x64xi8>
  return %y : tensor<4x64xi8>
}

// -----

// The rounded values are read before the clamp too: raising would leave them without their
// producer (an escape), so the quant stays written out.
// CHECK-LABEL: func.func @escape
// CHECK-NOT:   mla.dynamic_quant
// CHECK:       math.roundeven
func.func @escape(%x: tensor<4x64xf32>) -> (tensor<4x64xi8>, tensor<4x64xf32>) {
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
  return %y, %r : tensor<4x64xi8>, tensor<4x64xf32>
}

// -----

// The per-channel scale first, then the per-token one: another float32 rounding than the
// kernel's (numerics.md 7); the pattern binds the scales by position and mla.quant_matmul's
// rules refuse them (QMM-006: a (32,) per-token scale), so the product stays as written.
// CHECK-LABEL: func.func @channel_scale_first
// CHECK-NOT:   mla.quant_matmul
// CHECK:       "mla.matmul"
func.func @channel_scale_first(%xq: tensor<4x64xi8>, %w: tensor<64x32xi8>, %xs: tensor<4x1xf32>, %ws: tensor<32xf32>)
    -> tensor<4x32xf32> {
  %x32 = arith.extsi %xq : tensor<4x64xi8> to tensor<4x64xi32>
  %w32 = arith.extsi %w : tensor<64x32xi8> to tensor<64x32xi32>
  %acc = "mla.matmul"(%x32, %w32) : (tensor<4x64xi32>, tensor<64x32xi32>) -> tensor<4x32xi32>
  %f = arith.sitofp %acc : tensor<4x32xi32> to tensor<4x32xf32>
  %p = "mla.mul"(%f, %ws) : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %o = "mla.mul"(%p, %xs) : (tensor<4x32xf32>, tensor<4x1xf32>) -> tensor<4x32xf32>
  return %o : tensor<4x32xf32>
}

// -----

// The ratio rounded to bf16 before it is rounded to an integer: not npu_dynamic_quant's
// float32 arithmetic, left as written.
// CHECK-LABEL: func.func @bf16_ratio
// CHECK-NOT:   mla.dynamic_quant
// CHECK:       math.roundeven
func.func @bf16_ratio(%x: tensor<4x64xf32>) -> tensor<4x64xi8> {
  %a = math.absf %x : tensor<4x64xf32>
  %m = "mla.amax"(%a) : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %c127 = arith.constant dense<127.0> : tensor<f32>
  %scale = "mla.div"(%m, %c127) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %ratio = "mla.div"(%x, %scale) : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xbf16>
  %r = math.roundeven %ratio : tensor<4x64xbf16>
  %lo = arith.constant dense<-128.0> : tensor<4x64xbf16>
  %hi = arith.constant dense<127.0> : tensor<4x64xbf16>
  %c1 = arith.maximumf %r, %lo : tensor<4x64xbf16>
  %c2 = arith.minimumf %c1, %hi : tensor<4x64xbf16>
  %y = arith.fptosi %c2 : tensor<4x64xbf16> to tensor<4x64xi8>
  return %y : tensor<4x64xi8>
}

// -----

// npu_quantize written out: a bf16 x widened, times a per-channel scale, rounded, saturated to
// [-128, 127]: one mla.quantize of the bf16 x (it widens x itself).
// CHECK-LABEL: func.func @static_quant
// CHECK-NEXT:  %[[Y:.*]] = "mla.quantize"(%arg0, %arg1) : (tensor<4x64xbf16>, tensor<64xf32>) -> tensor<4x64xi8>
// CHECK-NOT:   math.
// CHECK-NOT:   "mla.mul"
// CHECK:       return %[[Y]]
func.func @static_quant(%x: tensor<4x64xbf16>, %scale: tensor<64xf32>) -> tensor<4x64xi8> {
  %z = arith.extf %x : tensor<4x64xbf16> to tensor<4x64xf32>
  %s = "mla.mul"(%z, %scale) : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  %r = math.roundeven %s : tensor<4x64xf32>
  %lo = arith.constant dense<-128.0> : tensor<4x64xf32>
  %hi = arith.constant dense<127.0> : tensor<4x64xf32>
  %c1 = arith.maximumf %r, %lo : tensor<4x64xf32>
  %c2 = arith.minimumf %c1, %hi : tensor<4x64xf32>
  %y = arith.fptosi %c2 : tensor<4x64xf32> to tensor<4x64xi8>
  return %y : tensor<4x64xi8>
}

// -----

// Saturated to [-127, 127]: npu_quantize saturates to -128, so another op; left as written.
// CHECK-LABEL: func.func @static_quant_symmetric_bounds
// CHECK-NOT:   mla.quantize
// CHECK:       arith.maximumf
func.func @static_quant_symmetric_bounds(%x: tensor<4x64xf32>, %scale: tensor<64xf32>) -> tensor<4x64xi8> {
  %s = "mla.mul"(%x, %scale) : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  %r = math.roundeven %s : tensor<4x64xf32>
  %lo = arith.constant dense<-127.0> : tensor<4x64xf32>
  %hi = arith.constant dense<127.0> : tensor<4x64xf32>
  %c1 = arith.maximumf %r, %lo : tensor<4x64xf32>
  %c2 = arith.minimumf %c1, %hi : tensor<4x64xf32>
  %y = arith.fptosi %c2 : tensor<4x64xf32> to tensor<4x64xi8>
  return %y : tensor<4x64xi8>
}

// -----

// A (4,) scale on the (4, 4) product: broadcast along the last axis, it scales the columns, not
// the tokens (mla.quant_matmul would read the same shape as per token, QMM-006): left as written.
// CHECK-LABEL: func.func @column_scale_as_token_shape
// CHECK-NOT:   mla.quant_matmul
// CHECK:       "mla.matmul"
func.func @column_scale_as_token_shape(%xq: tensor<4x64xi8>, %w: tensor<64x4xi8>, %xs: tensor<4xf32>,
                                       %ws: tensor<4xf32>) -> tensor<4x4xf32> {
  %x32 = arith.extsi %xq : tensor<4x64xi8> to tensor<4x64xi32>
  %w32 = arith.extsi %w : tensor<64x4xi8> to tensor<64x4xi32>
  %acc = "mla.matmul"(%x32, %w32) : (tensor<4x64xi32>, tensor<64x4xi32>) -> tensor<4x4xi32>
  %f = arith.sitofp %acc : tensor<4x4xi32> to tensor<4x4xf32>
  %p = "mla.mul"(%f, %xs) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %o = "mla.mul"(%p, %ws) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  return %o : tensor<4x4xf32>
}

// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.all_reduce and mla.all_gather: one split per failing rule, each op otherwise valid.

// HCCL sends the integer and float types it documents
func.func @reduce_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{x: expected element type bf16, f16, f32, i8, i32, i64 (HCCL's), got i1 [AR-001]}}
  %0 = "mla.all_reduce"(%x) {world_size = 2 : i64} : (tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

// one contiguous ND buffer
func.func @reduce_nz(%x: tensor<32x32xbf16, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{x: expected an ND tensor (a contiguous buffer is what HCCL sends), got tensor<32x32xbf16, FRACTAL_NZ> [AR-002]}}
  %0 = "mla.all_reduce"(%x) {world_size = 2 : i64} : (tensor<32x32xbf16, #mla.format<"FRACTAL_NZ">>) -> tensor<32x32xbf16, #mla.format<"FRACTAL_NZ">>
  return
}

// -----

// every rank sends the same count: a static shape
func.func @reduce_dynamic(%x: tensor<?x8xbf16>) {
  // expected-error @+1 {{x: expected a static shape (every rank sends the same count), got tensor<?x8xbf16> [AR-002]}}
  %0 = "mla.all_reduce"(%x) {world_size = 2 : i64} : (tensor<?x8xbf16>) -> tensor<?x8xbf16>
  return
}

// -----

// at least one rank
func.func @reduce_no_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{world_size: expected a number of ranks >= 1, got 0 [AR-003]}}
  %0 = "mla.all_reduce"(%x) {world_size = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// a communicator the programs know
func.func @reduce_group(%x: tensor<4xf32>) {
  // expected-error @+1 {{group: expected one of 'tp' (the communicators a program may use), got 'dp' [AR-004]}}
  %0 = "mla.all_reduce"(%x) {world_size = 2 : i64, group = "dp"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// a communicator name is an identifier
func.func @reduce_group_name(%x: tensor<4xf32>) {
  // expected-error @+1 {{group: expected a communicator name (letters, digits, _), got 'tp 0' [AR-004]}}
  %0 = "mla.all_reduce"(%x) {world_size = 2 : i64, group = "tp 0"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// the sum is the reduction tensor parallelism needs
func.func @reduce_max(%x: tensor<4xf32>) {
  // expected-error @+1 {{reduction: expected 'sum', got 'max' [AR-005]}}
  %0 = "mla.all_reduce"(%x) {world_size = 2 : i64, reduction = "max"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// the sum has x's type
func.func @reduce_result(%x: tensor<4xbf16>) {
  // expected-error @+1 {{y: expected the type of x tensor<4xbf16>, got tensor<4xf32> [AR-006]}}
  %0 = "mla.all_reduce"(%x) {world_size = 2 : i64} : (tensor<4xbf16>) -> tensor<4xf32>
  return
}

// -----

func.func @gather_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{x: expected element type bf16, f16, f32, i8, i32, i64 (HCCL's), got i1 [AG-001]}}
  %0 = "mla.all_gather"(%x) {world_size = 2 : i64, dim = 0 : i64} : (tensor<4xi1>) -> tensor<8xi1>
  return
}

// -----

func.func @gather_dynamic(%x: tensor<?x8xbf16>) {
  // expected-error @+1 {{x: expected a static shape (every rank sends the same count), got tensor<?x8xbf16> [AG-002]}}
  %0 = "mla.all_gather"(%x) {world_size = 2 : i64, dim = 1 : i64} : (tensor<?x8xbf16>) -> tensor<?x16xbf16>
  return
}

// -----

func.func @gather_no_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{world_size: expected a number of ranks >= 1, got -2 [AG-003]}}
  %0 = "mla.all_gather"(%x) {world_size = -2 : i64, dim = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @gather_group(%x: tensor<4xf32>) {
  // expected-error @+1 {{group: expected a communicator name (letters, digits, _), got '' [AG-004]}}
  %0 = "mla.all_gather"(%x) {world_size = 2 : i64, dim = 0 : i64, group = ""} : (tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

// the gathered axis is one of x's
func.func @gather_axis(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{dim: expected an axis of x in [-2, 2), got 2 [AG-005]}}
  %0 = "mla.all_gather"(%x) {world_size = 2 : i64, dim = 2 : i64} : (tensor<2x4xf32>) -> tensor<2x8xf32>
  return
}

// -----

// world_size times x's axis: the gathered axis is divided evenly over the ranks
func.func @gather_result(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{y: expected tensor<2x8xf32> (x's dim 1 times world_size 2), got tensor<2x6xf32> [AG-006]}}
  %0 = "mla.all_gather"(%x) {world_size = 2 : i64, dim = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x6xf32>
  return
}

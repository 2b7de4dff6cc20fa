// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.gather: one split per failing rule (GTH-001, GTH-002, GTH-003, GTH-004), each op otherwise valid.

// the table has rows
func.func @table_rank(%table: tensor<bf16>, %indices: tensor<2x3xi64>) {
  // expected-error @+1 {{table: expected rank >= 1, got tensor<bf16> [GTH-001]}}
  %0 = "mla.gather"(%table, %indices) : (tensor<bf16>, tensor<2x3xi64>) -> tensor<2x3xbf16>
  return
}

// -----

// the table is ND
func.func @table_nz(%table: tensor<128x64xbf16, #mla.format<"FRACTAL_NZ">>, %indices: tensor<2x3xi64>) {
  // expected-error @+1 {{table: expected an ND tensor, got tensor<128x64xbf16, FRACTAL_NZ> [GTH-002]}}
  %0 = "mla.gather"(%table, %indices) : (tensor<128x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<2x3xi64>) -> tensor<2x3x64xbf16>
  return
}

// -----

// the indices are ND
func.func @indices_nz(%table: tensor<128x64xbf16>, %indices: tensor<16x16xi32, #mla.format<"FRACTAL_NZ">>) {
  // expected-error @+1 {{indices: expected an ND tensor, got tensor<16x16xi32, FRACTAL_NZ> [GTH-002]}}
  %0 = "mla.gather"(%table, %indices) : (tensor<128x64xbf16>, tensor<16x16xi32, #mla.format<"FRACTAL_NZ">>) -> tensor<16x16x64xbf16>
  return
}

// -----

// the indices are i32 or i64
func.func @indices_float(%table: tensor<128x64xbf16>, %indices: tensor<2x3xf32>) {
  // expected-error @+1 {{indices: expected element type i32 or i64, got f32 [GTH-003]}}
  %0 = "mla.gather"(%table, %indices) : (tensor<128x64xbf16>, tensor<2x3xf32>) -> tensor<2x3x64xbf16>
  return
}

// -----

// out is indices.shape + table.shape[1:]
func.func @out_shape(%table: tensor<128x64xbf16>, %indices: tensor<2x3xi64>) {
  // expected-error @+1 {{out: expected tensor<2x3x64xbf16>, got tensor<6x64xbf16> [GTH-004]}}
  %0 = "mla.gather"(%table, %indices) : (tensor<128x64xbf16>, tensor<2x3xi64>) -> tensor<6x64xbf16>
  return
}

// -----

// out has the table's type
func.func @out_dtype(%table: tensor<128x64xbf16>, %indices: tensor<2x3xi64>) {
  // expected-error @+1 {{out: expected element type bf16, got f32 [GTH-004]}}
  %0 = "mla.gather"(%table, %indices) : (tensor<128x64xbf16>, tensor<2x3xi64>) -> tensor<2x3x64xf32>
  return
}

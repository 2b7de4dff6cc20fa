// RUN: mla-opt %s --split-input-file --verify-diagnostics

// INP-001: an operand an op updates in place (a paged cache) has no other use after the op. At
// run time the op writes the caller's buffer, so a later reader of the old value would see the
// new contents; reading it before the update, or reading the op's result, is fine.

func.func @read_after_scatter(%cache: tensor<4x16x1x64xbf16>, %slots: tensor<2xi64>, %rows: tensor<2x1x64xbf16>) -> tensor<4x16x64xbf16, #mla.format<"FRACTAL_NZ">> {
  // expected-error @+1 {{cache: is updated in place by this op, but 'mla.nz_cache_view' also uses it after (at line 10, column 10): that use would see the update; use the op's result, or read the old value before it [INP-001]}}
  %new = "mla.scatter_cache"(%cache, %slots, %rows) {cache_mode = "PA_NZ"} : (tensor<4x16x1x64xbf16>, tensor<2xi64>, tensor<2x1x64xbf16>) -> tensor<4x16x1x64xbf16>
  %old = "mla.nz_cache_view"(%cache) : (tensor<4x16x1x64xbf16>) -> tensor<4x16x64xbf16, #mla.format<"FRACTAL_NZ">>
  return %old : tensor<4x16x64xbf16, #mla.format<"FRACTAL_NZ">>
}

// -----

// Reading the old value before the update, and the new one after it, is valid.
func.func @read_before_and_after(%cache: tensor<4x16x1x64xbf16>, %slots: tensor<2xi64>, %rows: tensor<2x1x64xbf16>) -> (tensor<4x16x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x16x64xbf16, #mla.format<"FRACTAL_NZ">>) {
  %old = "mla.nz_cache_view"(%cache) : (tensor<4x16x1x64xbf16>) -> tensor<4x16x64xbf16, #mla.format<"FRACTAL_NZ">>
  %new = "mla.scatter_cache"(%cache, %slots, %rows) {cache_mode = "PA_NZ"} : (tensor<4x16x1x64xbf16>, tensor<2xi64>, tensor<2x1x64xbf16>) -> tensor<4x16x1x64xbf16>
  %view = "mla.nz_cache_view"(%new) : (tensor<4x16x1x64xbf16>) -> tensor<4x16x64xbf16, #mla.format<"FRACTAL_NZ">>
  return %old, %view : tensor<4x16x64xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x16x64xbf16, #mla.format<"FRACTAL_NZ">>
}

// -----

// Two updates of one cache value: the second would overwrite what the first's readers see.
func.func @two_writers(%cache: tensor<4x16x1x64xbf16>, %slots: tensor<2xi64>, %rows: tensor<2x1x64xbf16>) -> (tensor<4x16x1x64xbf16>, tensor<4x16x1x64xbf16>) {
  // expected-error @+1 {{cache: is updated in place by this op, but 'mla.scatter_cache' also uses it after (at line 30, column 8)}}
  %a = "mla.scatter_cache"(%cache, %slots, %rows) : (tensor<4x16x1x64xbf16>, tensor<2xi64>, tensor<2x1x64xbf16>) -> tensor<4x16x1x64xbf16>
  %b = "mla.scatter_cache"(%cache, %slots, %rows) : (tensor<4x16x1x64xbf16>, tensor<2xi64>, tensor<2x1x64xbf16>) -> tensor<4x16x1x64xbf16>
  return %a, %b : tensor<4x16x1x64xbf16>, tensor<4x16x1x64xbf16>
}

// RUN: mla-opt %s --split-input-file --verify-diagnostics
// Attention must read a paged cache in the layout its producer wrote (FIA-MLA-20, a dataflow
// rule), and mla.nz_cache_view's own rules (NZV-001..004).

func.func @pa_nz_read_as_rows(
    %x: tensor<2x1x7168xbf16>,
    %w_dq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>,
    %w_uq_qr: tensor<1536x1536xbf16, #mla.format<"FRACTAL_NZ">>,
    %w_uk: tensor<8x128x512xbf16>,
    %w_dkv_kr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>,
    %gamma_cq: tensor<1536xbf16>, %gamma_ckv: tensor<512xbf16>,
    %sin: tensor<2x1x64xbf16>, %cos: tensor<2x1x64xbf16>,
    %slots: tensor<2x1xi64>,
    %kv_cache: tensor<4x16x1x512xbf16>, %kr_cache: tensor<4x16x1x64xbf16>,
    %block_table: tensor<2x2xi32>)
    -> (tensor<2x1x8x512xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>) {
  %q, %q_rope, %kv, %kr, %dq = "mla.prolog_v2"(%x, %w_dq, %w_uq_qr, %w_uk, %w_dkv_kr, %gamma_cq, %gamma_ckv,
        %sin, %cos, %slots, %kv_cache, %kr_cache)
      {rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64, cache_mode = "PA_NZ",
       operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>}
      : (tensor<2x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>,
         tensor<1536x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<8x128x512xbf16>,
         tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>,
         tensor<2x1x64xbf16>, tensor<2x1x64xbf16>, tensor<2x1xi64>,
         tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>)
      -> (tensor<2x1x8x512xbf16>, tensor<2x1x8x64xbf16>, tensor<4x16x1x512xbf16>,
          tensor<4x16x1x64xbf16>, tensor<1xf32>)
  // expected-error @+1 {{key: this is a PA_NZ cache written by 'mla.prolog_v2' (NZ-ordered blocks); read it through 'mla.nz_cache_view' to get the FRACTAL_NZ tensor attention expects [FIA-MLA-20]}}
  %out, %lse = "mla.fused_infer_attention_score"(%q, %kv, %kv, %block_table, %q_rope, %kr)
      {num_heads = 8 : i64, num_key_value_heads = 1 : i64, scale_value = 0.07 : f64,
       input_layout = "BSND", block_size = 16 : i64, actual_seq_lengths_kv = array<i64: 20, 9>,
       operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>}
      : (tensor<2x1x8x512xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x512xbf16>,
         tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x16x1x64xbf16>)
      -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return %out, %kv, %kr : tensor<2x1x8x512xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>
}
// -----

func.func @pa_bsnd_read_as_nz(
    %x: tensor<2x1x7168xbf16>,
    %w_dq: tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>,
    %w_uq_qr: tensor<1536x1536xbf16, #mla.format<"FRACTAL_NZ">>,
    %w_uk: tensor<8x128x512xbf16>,
    %w_dkv_kr: tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>,
    %gamma_cq: tensor<1536xbf16>, %gamma_ckv: tensor<512xbf16>,
    %sin: tensor<2x1x64xbf16>, %cos: tensor<2x1x64xbf16>,
    %slots: tensor<2x1xi64>,
    %kv_cache: tensor<4x16x1x512xbf16>, %kr_cache: tensor<4x16x1x64xbf16>,
    %block_table: tensor<2x2xi32>)
    -> (tensor<2x1x8x512xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>) {
  %q, %q_rope, %kv, %kr, %dq = "mla.prolog_v2"(%x, %w_dq, %w_uq_qr, %w_uk, %w_dkv_kr, %gamma_cq, %gamma_ckv,
        %sin, %cos, %slots, %kv_cache, %kr_cache)
      {rmsnorm_epsilon_cq = 1.0e-06 : f64, rmsnorm_epsilon_ckv = 1.0e-06 : f64,
       operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>}
      : (tensor<2x1x7168xbf16>, tensor<7168x1536xbf16, #mla.format<"FRACTAL_NZ">>,
         tensor<1536x1536xbf16, #mla.format<"FRACTAL_NZ">>, tensor<8x128x512xbf16>,
         tensor<7168x576xbf16, #mla.format<"FRACTAL_NZ">>, tensor<1536xbf16>, tensor<512xbf16>,
         tensor<2x1x64xbf16>, tensor<2x1x64xbf16>, tensor<2x1xi64>,
         tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>)
      -> (tensor<2x1x8x512xbf16>, tensor<2x1x8x64xbf16>, tensor<4x16x1x512xbf16>,
          tensor<4x16x1x64xbf16>, tensor<1xf32>)
  // key = value = the latent cache; key_rope = the rope cache (the MLA mode of FIA).
  %kv_nz = "mla.nz_cache_view"(%kv) : (tensor<4x16x1x512xbf16>) -> tensor<4x16x512xbf16, #mla.format<"FRACTAL_NZ">>
  %kr_nz = "mla.nz_cache_view"(%kr) : (tensor<4x16x1x64xbf16>) -> tensor<4x16x64xbf16, #mla.format<"FRACTAL_NZ">>
  // expected-error @+1 {{key: 'mla.nz_cache_view' of a PA_BSND cache written by 'mla.prolog_v2': its blocks are row-major, not NZ [FIA-MLA-20]}}
  %out, %lse = "mla.fused_infer_attention_score"(%q, %kv_nz, %kv_nz, %block_table, %q_rope, %kr_nz)
      {num_heads = 8 : i64, num_key_value_heads = 1 : i64, scale_value = 0.07 : f64,
       input_layout = "BSND", block_size = 16 : i64, actual_seq_lengths_kv = array<i64: 20, 9>,
       operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>}
      : (tensor<2x1x8x512xbf16>, tensor<4x16x512xbf16, #mla.format<"FRACTAL_NZ">>, tensor<4x16x512xbf16, #mla.format<"FRACTAL_NZ">>,
         tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x16x64xbf16, #mla.format<"FRACTAL_NZ">>)
      -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return %out, %kv, %kr : tensor<2x1x8x512xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x64xbf16>
}
// -----

func.func @view_of_a_3d_cache(%c: tensor<4x16x512xbf16>) {
  // expected-error @+1 {{cache: expected an ND paged cache (BlockNum, BlockSize, Nkv, H), got tensor<4x16x512xbf16> [NZV-001]}}
  %0 = "mla.nz_cache_view"(%c) : (tensor<4x16x512xbf16>) -> tensor<4x16x512xbf16, #mla.format<"FRACTAL_NZ">>
  return
}

// -----

// The view is the FRACTAL_NZ form of a cache: bf16, f16 or int8 (C0 = 32 bytes / element).
func.func @view_of_an_f32_cache(%c: tensor<4x16x1x512xf32>) {
  // expected-error @+1 {{cache: expected element type bf16, f16 or i8, got f32 [NZV-004]}}
  %0 = "mla.nz_cache_view"(%c) : (tensor<4x16x1x512xf32>) -> tensor<4x16x512xf32, #mla.format<"FRACTAL_NZ">>
  return
}

// -----

func.func @view_of_a_partial_fractal(%c: tensor<4x8x1x512xbf16>) {
  // expected-error @+1 {{cache: expected BlockSize % 16 == 0 and Nkv*H % 16 == 0 (whole 16x16 fractals), got BlockSize 8, Nkv*H 512 [NZV-002]}}
  %0 = "mla.nz_cache_view"(%c) : (tensor<4x8x1x512xbf16>) -> tensor<4x8x512xbf16, #mla.format<"FRACTAL_NZ">>
  return
}

// -----

func.func @view_of_int8_needs_32_wide_fractals(%c: tensor<4x16x1x48xi8>) {
  // expected-error @+1 {{cache: expected BlockSize % 16 == 0 and Nkv*H % 32 == 0 (whole 16x32 fractals), got BlockSize 16, Nkv*H 48 [NZV-002]}}
  %0 = "mla.nz_cache_view"(%c) : (tensor<4x16x1x48xi8>) -> tensor<4x16x48xi8, #mla.format<"FRACTAL_NZ">>
  return
}

// -----

func.func @view_without_the_encoding(%c: tensor<4x16x1x512xbf16>) {
  // expected-error @+1 {{view: expected tensor<4x16x512xbf16, FRACTAL_NZ>, got tensor<4x16x512xbf16> [NZV-003]}}
  %0 = "mla.nz_cache_view"(%c) : (tensor<4x16x1x512xbf16>) -> tensor<4x16x512xbf16>
  return
}

// -----

// A PA_NZ cache written by the primitive mla.scatter_cache (an unfused graph) is NZ-ordered as
// well: FIA reads it through mla.nz_cache_view.
func.func @scatter_pa_nz_read_as_rows(
    %q: tensor<2x1x8x512xbf16>, %q_rope: tensor<2x1x8x64xbf16>,
    %kv_rows: tensor<2x1x1x512xbf16>, %kr_rows: tensor<2x1x1x64xbf16>, %slots: tensor<2x1xi64>,
    %kv_cache: tensor<4x16x1x512xbf16>, %kr_cache: tensor<4x16x1x64xbf16>,
    %block_table: tensor<2x2xi32>) -> tensor<2x1x8x512xbf16> {
  %kv = "mla.scatter_cache"(%kv_cache, %slots, %kv_rows) {cache_mode = "PA_NZ"}
      : (tensor<4x16x1x512xbf16>, tensor<2x1xi64>, tensor<2x1x1x512xbf16>) -> tensor<4x16x1x512xbf16>
  %kr = "mla.scatter_cache"(%kr_cache, %slots, %kr_rows) {cache_mode = "PA_NZ"}
      : (tensor<4x16x1x64xbf16>, tensor<2x1xi64>, tensor<2x1x1x64xbf16>) -> tensor<4x16x1x64xbf16>
  // expected-error @+1 {{key: this is a PA_NZ cache written by 'mla.scatter_cache' (NZ-ordered blocks); read it through 'mla.nz_cache_view' to get the FRACTAL_NZ tensor attention expects [FIA-MLA-20]}}
  %out, %lse = "mla.fused_infer_attention_score"(%q, %kv, %kv, %block_table, %q_rope, %kr)
      {num_heads = 8 : i64, num_key_value_heads = 1 : i64, scale_value = 0.07 : f64,
       input_layout = "BSND", block_size = 16 : i64, actual_seq_lengths_kv = array<i64: 20, 9>,
       operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0>}
      : (tensor<2x1x8x512xbf16>, tensor<4x16x1x512xbf16>, tensor<4x16x1x512xbf16>,
         tensor<2x2xi32>, tensor<2x1x8x64xbf16>, tensor<4x16x1x64xbf16>)
      -> (tensor<2x1x8x512xbf16>, tensor<1xf32>)
  return %out : tensor<2x1x8x512xbf16>
}

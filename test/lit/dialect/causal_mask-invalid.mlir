// RUN: mla-opt %s --split-input-file --verify-diagnostics
// mla.causal_mask: one split per failing rule (CM-001), each op otherwise valid.

// the mask is (S, S)
func.func @not_square() {
  // expected-error @+1 {{mask: expected a static square ND i1, i8 or ui8 tensor (S, S), got tensor<16x8xi8> [CM-001]}}
  %0 = "mla.causal_mask"() : () -> tensor<16x8xi8>
  return
}

// -----

// its size is static
func.func @dynamic() {
  // expected-error @+1 {{mask: expected a static square ND i1, i8 or ui8 tensor (S, S), got tensor<?x?xi1> [CM-001]}}
  %0 = "mla.causal_mask"() : () -> tensor<?x?xi1>
  return
}

// -----

// the mask is boolean or 8-bit
func.func @float() {
  // expected-error @+1 {{mask: expected a static square ND i1, i8 or ui8 tensor (S, S), got tensor<16x16xf32> [CM-001]}}
  %0 = "mla.causal_mask"() : () -> tensor<16x16xf32>
  return
}

// -----

// the mask is ND
func.func @nz() {
  // expected-error @+1 {{mask: expected a static square ND i1, i8 or ui8 tensor (S, S), got tensor<16x16xi8, FRACTAL_NZ> [CM-001]}}
  %0 = "mla.causal_mask"() : () -> tensor<16x16xi8, #mla.format<"FRACTAL_NZ">>
  return
}

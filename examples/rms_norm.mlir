// The smallest real program: one RmsNorm over a DeepSeek hidden state.
func.func @norm(%x: tensor<8x7168xbf16>, %gamma: tensor<7168xbf16>) -> tensor<8x7168xbf16> {
  %y = "mla.rms_norm"(%x, %gamma) {epsilon = 1.0e-06 : f64} : (tensor<8x7168xbf16>, tensor<7168xbf16>) -> tensor<8x7168xbf16>
  return %y : tensor<8x7168xbf16>
}

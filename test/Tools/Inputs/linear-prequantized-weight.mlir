// An MXFP8 Linear forward whose weight the caller quantized with compact
// scales (te-compile-swizzle-scales.mlir).
func.func @fprop(%x: tensor<128x256xbf16>, %w: !teq.proto<384x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>) -> tensor<128x384xbf16> {
  %y = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<128x384xbf16> {
    %out = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<128x256xbf16>, !teq.proto<384x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise> -> tensor<128x384xbf16>
    teq.yield %out : tensor<128x384xbf16>
  }
  return %y : tensor<128x384xbf16>
}

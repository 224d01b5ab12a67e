// A module an embedding compiler might hand over: upstream `quant` types
// (an int8 model's weights, kept by the host compiler) beside a teq Linear
// (FP8 current scaling) that TEQ lowers and compiles.
module attributes {teq.target = #teq.target<sm_90>} {
  // The host compiler's own int8 world: left alone by TEQ.
  func.func private @int8_matmul(tensor<64x128x!quant.uniform<i8:f32, 0.0625:-3>>,
                                 tensor<256x128x!quant.uniform<i8<-127:127>:f32, 0.125>>)
      -> tensor<64x256xf32>

  func.func @fc1(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16> {
      %out, %saved_x, %saved_w = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}

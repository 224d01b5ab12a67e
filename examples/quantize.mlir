// Quantization as a compiled program: te-compile turns each function into an
// entry point of a native artifact (a shared library with PTX embedded), and
// te-run runs it on the GPU and checks every output buffer against the CPU
// reference, bit for bit.
//
//   build/bin/te-compile examples/quantize.mlir -o quantize.so
//   build/bin/te-run quantize.so --check --bench
module attributes {teq.target = #teq.target<sm_90>} {
  // Current scaling (TE's Float8CurrentScalingQuantizer): amax over the whole
  // tensor, scale = 448 / amax, E4M3 data. On Hopper the columnwise usage is a
  // physically transposed copy, written in the same pass.
  func.func @current_scaling(%x: tensor<4096x4096xbf16>)
      -> !teq.proto<4096x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %q = teq.quantize %x : tensor<4096x4096xbf16>
        -> !teq.proto<4096x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<4096x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }

  // Delayed scaling (TE's Float8Quantizer): the recipe state is explicit. The
  // stored scale quantizes; max|x| is recorded into the amax history, which
  // comes back updated.
  func.func @delayed_scaling(%x: tensor<4096x4096xbf16>, %scale: tensor<1xf32>,
                             %amax_history: tensor<1024xf32>)
      -> (!teq.proto<4096x4096xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>,
          tensor<1024xf32>) {
    %q, %history = teq.quantize %x state(%scale, %amax_history : tensor<1xf32>, tensor<1024xf32>)
        : tensor<4096x4096xbf16>
        -> !teq.proto<4096x4096xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>,
           tensor<1024xf32>
    return %q, %history : !teq.proto<4096x4096xbf16, #teq.float8_quantizer<f8E4M3FN>, rowwise|columnwise>,
                          tensor<1024xf32>
  }
}

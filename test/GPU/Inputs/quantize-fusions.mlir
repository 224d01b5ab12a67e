// The fusions into per-tensor FP8 quantizations (QuantizeFusion.h).
// bias-grad: bias gradients summed by the transposing cast of the same
// tensor (TE's bgrad + quantize): current scaling E5M2 on bf16, f16 and f32
// gradients, delayed scaling, one shape of many tiles and one above 4M
// elements, and a tensor both quantized and summed twice.
// amax: current-scaling quantizations of activations and their gradients
// whose scale the elementwise kernel computes: GELU forward (both usages,
// and one of 8M elements over the kernel's whole grid), GELU backward with
// its bias gradient (both fusions), SwiGLU backward (the amax over both
// halves of [da | db]), tanh rowwise only, and a LayerNorm's and an
// RMSNorm's y (TE's FUSED_NORM_AMAX_FP8).
// test/GPU/quantize-fusions.test checks every quantized output bit for bit
// and every bias gradient against float64 column sums.
#e5 = #teq.float8_current_scaling_quantizer<f8E5M2>
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @current_bf16_256x384(%dy: tensor<256x384xbf16>) -> (tensor<384xbf16>, !teq.proto<256x384xbf16, #e5, rowwise|columnwise>) {
    %b = teq.bias_grad %dy : tensor<256x384xbf16> -> tensor<384xbf16>
    %q = teq.quantize %dy : tensor<256x384xbf16> -> !teq.proto<256x384xbf16, #e5, rowwise|columnwise>
    return %b, %q : tensor<384xbf16>, !teq.proto<256x384xbf16, #e5, rowwise|columnwise>
  }
  func.func @current_f16_128x64(%dy: tensor<128x64xf16>) -> (!teq.proto<128x64xf16, #e5, rowwise|columnwise>, tensor<64xf16>) {
    %q = teq.quantize %dy : tensor<128x64xf16> -> !teq.proto<128x64xf16, #e5, rowwise|columnwise>
    %b = teq.bias_grad %dy : tensor<128x64xf16> -> tensor<64xf16>
    return %q, %b : !teq.proto<128x64xf16, #e5, rowwise|columnwise>, tensor<64xf16>
  }
  func.func @current_f32_192x128(%dy: tensor<192x128xf32>) -> (tensor<128xf32>, !teq.proto<192x128xf32, #e5, rowwise|columnwise>) {
    %b = teq.bias_grad %dy : tensor<192x128xf32> -> tensor<128xf32>
    %q = teq.quantize %dy : tensor<192x128xf32> -> !teq.proto<192x128xf32, #e5, rowwise|columnwise>
    return %b, %q : tensor<128xf32>, !teq.proto<192x128xf32, #e5, rowwise|columnwise>
  }
  func.func @current_bf16_4096x1280(%dy: tensor<4096x1280xbf16>) -> (tensor<1280xbf16>, !teq.proto<4096x1280xbf16, #e5, rowwise|columnwise>) {
    %b = teq.bias_grad %dy : tensor<4096x1280xbf16> -> tensor<1280xbf16>
    %q = teq.quantize %dy : tensor<4096x1280xbf16> -> !teq.proto<4096x1280xbf16, #e5, rowwise|columnwise>
    return %b, %q : tensor<1280xbf16>, !teq.proto<4096x1280xbf16, #e5, rowwise|columnwise>
  }
  func.func @delayed_bf16_128x256(%dy: tensor<128x256xbf16>, %scale: tensor<1xf32>, %history: tensor<16xf32>) -> (tensor<256xbf16>, !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>) {
    %b = teq.bias_grad %dy : tensor<128x256xbf16> -> tensor<256xbf16>
    %q, %h = teq.quantize %dy state(%scale, %history : tensor<1xf32>, tensor<16xf32>) : tensor<128x256xbf16> -> !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
    return %b, %q, %h : tensor<256xbf16>, !teq.proto<128x256xbf16, #teq.float8_quantizer<f8E5M2>, rowwise|columnwise>, tensor<16xf32>
  }
  // Two bias gradients of one tensor: the first is summed by the cast, the
  // second runs both passes.
  func.func @twice_128x128(%dy: tensor<128x128xbf16>) -> (tensor<128xbf16>, tensor<128xbf16>, !teq.proto<128x128xbf16, #e5, rowwise|columnwise>) {
    %b = teq.bias_grad %dy : tensor<128x128xbf16> -> tensor<128xbf16>
    %c = teq.bias_grad %dy : tensor<128x128xbf16> -> tensor<128xbf16>
    %q = teq.quantize %dy : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #e5, rowwise|columnwise>
    return %b, %c, %q : tensor<128xbf16>, tensor<128xbf16>, !teq.proto<128x128xbf16, #e5, rowwise|columnwise>
  }
  func.func @amax_gelu_256x384(%h: tensor<256x384xbf16>) -> !teq.proto<256x384xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %a = teq.activation gelu %h : tensor<256x384xbf16> -> tensor<256x384xbf16>
    %q = teq.quantize %a : tensor<256x384xbf16> -> !teq.proto<256x384xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<256x384xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @amax_gelu_2048x4096(%h: tensor<2048x4096xbf16>) -> !teq.proto<2048x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> {
    %a = teq.activation gelu %h : tensor<2048x4096xbf16> -> tensor<2048x4096xbf16>
    %q = teq.quantize %a : tensor<2048x4096xbf16> -> !teq.proto<2048x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q : !teq.proto<2048x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
  }
  func.func @amax_dgelu_bgrad_256x512(%dy: tensor<256x512xbf16>, %h: tensor<256x512xbf16>) -> (!teq.proto<256x512xbf16, #e5, rowwise|columnwise>, tensor<512xbf16>) {
    %dh = teq.activation_backward gelu %dy, %h : tensor<256x512xbf16>, tensor<256x512xbf16>
    %q = teq.quantize %dh : tensor<256x512xbf16> -> !teq.proto<256x512xbf16, #e5, rowwise|columnwise>
    %b = teq.bias_grad %dh : tensor<256x512xbf16> -> tensor<512xbf16>
    return %q, %b : !teq.proto<256x512xbf16, #e5, rowwise|columnwise>, tensor<512xbf16>
  }
  func.func @amax_dswiglu_128x512(%dy: tensor<128x256xbf16>, %x: tensor<128x512xbf16>) -> !teq.proto<128x512xbf16, #e5, rowwise|columnwise> {
    %dx = teq.activation_backward swiglu %dy, %x : tensor<128x256xbf16>, tensor<128x512xbf16>
    %q = teq.quantize %dx : tensor<128x512xbf16> -> !teq.proto<128x512xbf16, #e5, rowwise|columnwise>
    return %q : !teq.proto<128x512xbf16, #e5, rowwise|columnwise>
  }
  func.func @amax_tanh_64x128(%h: tensor<64x128xbf16>) -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> {
    %a = math.tanh %h : tensor<64x128xbf16>
    %q = teq.quantize %a : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    return %q : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  }
  func.func @amax_layer_norm_256x1024(%x: tensor<256x1024xbf16>, %g: tensor<1024xbf16>, %b: tensor<1024xbf16>) -> (!teq.proto<256x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<256xf32>, tensor<256xf32>) {
    %y, %mean, %rstd = teq.layer_norm %x, %g, %b
        : (tensor<256x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>)
        -> (tensor<256x1024xbf16>, tensor<256xf32>, tensor<256xf32>)
    %q = teq.quantize %y : tensor<256x1024xbf16> -> !teq.proto<256x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
    return %q, %mean, %rstd : !teq.proto<256x1024xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>, tensor<256xf32>, tensor<256xf32>
  }
  func.func @amax_rms_norm_128x4096(%x: tensor<128x4096xbf16>, %g: tensor<4096xbf16>) -> (!teq.proto<128x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, tensor<128xf32>) {
    %y, %rstd = teq.rms_norm %x, %g
        : (tensor<128x4096xbf16>, tensor<4096xbf16>) -> (tensor<128x4096xbf16>, tensor<128xf32>)
    %q = teq.quantize %y : tensor<128x4096xbf16> -> !teq.proto<128x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    return %q, %rstd : !teq.proto<128x4096xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, tensor<128xf32>
  }
}

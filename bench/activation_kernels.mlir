// Activation kernels at [8192, 16384] bf16, for their bandwidth against the
// copy ceiling (te-run .artifacts/activation_kernels.so --bench): GELU and
// SwiGLU (input [8192, 16384], output [8192, 8192]), forward and backward.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @gelu_forward(%x: tensor<8192x16384xbf16>) -> (tensor<8192x16384xbf16>) {
    %y = teq.activation gelu %x : tensor<8192x16384xbf16> -> tensor<8192x16384xbf16>
    return %y : tensor<8192x16384xbf16>
  }
  func.func @gelu_backward(%dy: tensor<8192x16384xbf16>, %x: tensor<8192x16384xbf16>) -> (tensor<8192x16384xbf16>) {
    %dx = teq.activation_backward gelu %dy, %x : tensor<8192x16384xbf16>, tensor<8192x16384xbf16>
    return %dx : tensor<8192x16384xbf16>
  }
  func.func @swiglu_forward(%x: tensor<8192x16384xbf16>) -> (tensor<8192x8192xbf16>) {
    %y = teq.activation swiglu %x : tensor<8192x16384xbf16> -> tensor<8192x8192xbf16>
    return %y : tensor<8192x8192xbf16>
  }
  func.func @swiglu_backward(%dy: tensor<8192x8192xbf16>, %x: tensor<8192x16384xbf16>) -> (tensor<8192x16384xbf16>) {
    %dx = teq.activation_backward swiglu %dy, %x : tensor<8192x8192xbf16>, tensor<8192x16384xbf16>
    return %dx : tensor<8192x16384xbf16>
  }
}

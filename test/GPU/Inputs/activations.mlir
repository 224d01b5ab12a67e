// Every activation kind forward and backward, bf16 and f32, for te-run
// --check (test/GPU/activations.test): teq-decompose-activations' TE
// formulas fused into one elementwise kernel each, against te-run's float64
// recomputation of every op the decomposition emits. The gated kinds read
// the halves of [M, 2n] in place and store [da | db] into one buffer.
// 33 x 14 (gated: n = 7) leaves the 16-byte vector path (rows of 7 are
// not vectors) and runs every element one at a time.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @gelu_bf16(%x: tensor<256x512xbf16>, %dy: tensor<256x512xbf16>) -> (tensor<256x512xbf16>, tensor<256x512xbf16>) {
    %y = teq.activation gelu %x : tensor<256x512xbf16> -> tensor<256x512xbf16>
    %dx = teq.activation_backward gelu %dy, %x : tensor<256x512xbf16>, tensor<256x512xbf16>
    return %y, %dx : tensor<256x512xbf16>, tensor<256x512xbf16>
  }
  func.func @gelu_erf_bf16(%x: tensor<256x512xbf16>, %dy: tensor<256x512xbf16>) -> (tensor<256x512xbf16>, tensor<256x512xbf16>) {
    %y = teq.activation gelu_erf %x : tensor<256x512xbf16> -> tensor<256x512xbf16>
    %dx = teq.activation_backward gelu_erf %dy, %x : tensor<256x512xbf16>, tensor<256x512xbf16>
    return %y, %dx : tensor<256x512xbf16>, tensor<256x512xbf16>
  }
  func.func @qgelu_bf16(%x: tensor<256x512xbf16>, %dy: tensor<256x512xbf16>) -> (tensor<256x512xbf16>, tensor<256x512xbf16>) {
    %y = teq.activation qgelu %x : tensor<256x512xbf16> -> tensor<256x512xbf16>
    %dx = teq.activation_backward qgelu %dy, %x : tensor<256x512xbf16>, tensor<256x512xbf16>
    return %y, %dx : tensor<256x512xbf16>, tensor<256x512xbf16>
  }
  func.func @silu_bf16(%x: tensor<256x512xbf16>, %dy: tensor<256x512xbf16>) -> (tensor<256x512xbf16>, tensor<256x512xbf16>) {
    %y = teq.activation silu %x : tensor<256x512xbf16> -> tensor<256x512xbf16>
    %dx = teq.activation_backward silu %dy, %x : tensor<256x512xbf16>, tensor<256x512xbf16>
    return %y, %dx : tensor<256x512xbf16>, tensor<256x512xbf16>
  }
  func.func @relu_bf16(%x: tensor<256x512xbf16>, %dy: tensor<256x512xbf16>) -> (tensor<256x512xbf16>, tensor<256x512xbf16>) {
    %y = teq.activation relu %x : tensor<256x512xbf16> -> tensor<256x512xbf16>
    %dx = teq.activation_backward relu %dy, %x : tensor<256x512xbf16>, tensor<256x512xbf16>
    return %y, %dx : tensor<256x512xbf16>, tensor<256x512xbf16>
  }
  func.func @srelu_bf16(%x: tensor<256x512xbf16>, %dy: tensor<256x512xbf16>) -> (tensor<256x512xbf16>, tensor<256x512xbf16>) {
    %y = teq.activation srelu %x : tensor<256x512xbf16> -> tensor<256x512xbf16>
    %dx = teq.activation_backward srelu %dy, %x : tensor<256x512xbf16>, tensor<256x512xbf16>
    return %y, %dx : tensor<256x512xbf16>, tensor<256x512xbf16>
  }
  func.func @tanh_bf16(%x: tensor<256x512xbf16>, %dy: tensor<256x512xbf16>) -> (tensor<256x512xbf16>, tensor<256x512xbf16>) {
    %y = teq.activation tanh %x : tensor<256x512xbf16> -> tensor<256x512xbf16>
    %dx = teq.activation_backward tanh %dy, %x : tensor<256x512xbf16>, tensor<256x512xbf16>
    return %y, %dx : tensor<256x512xbf16>, tensor<256x512xbf16>
  }
  func.func @sigmoid_bf16(%x: tensor<256x512xbf16>, %dy: tensor<256x512xbf16>) -> (tensor<256x512xbf16>, tensor<256x512xbf16>) {
    %y = teq.activation sigmoid %x : tensor<256x512xbf16> -> tensor<256x512xbf16>
    %dx = teq.activation_backward sigmoid %dy, %x : tensor<256x512xbf16>, tensor<256x512xbf16>
    return %y, %dx : tensor<256x512xbf16>, tensor<256x512xbf16>
  }
  func.func @geglu_bf16(%x: tensor<256x512xbf16>, %dy: tensor<256x256xbf16>) -> (tensor<256x256xbf16>, tensor<256x512xbf16>) {
    %y = teq.activation geglu %x : tensor<256x512xbf16> -> tensor<256x256xbf16>
    %dx = teq.activation_backward geglu %dy, %x : tensor<256x256xbf16>, tensor<256x512xbf16>
    return %y, %dx : tensor<256x256xbf16>, tensor<256x512xbf16>
  }
  func.func @qgeglu_bf16(%x: tensor<256x512xbf16>, %dy: tensor<256x256xbf16>) -> (tensor<256x256xbf16>, tensor<256x512xbf16>) {
    %y = teq.activation qgeglu %x : tensor<256x512xbf16> -> tensor<256x256xbf16>
    %dx = teq.activation_backward qgeglu %dy, %x : tensor<256x256xbf16>, tensor<256x512xbf16>
    return %y, %dx : tensor<256x256xbf16>, tensor<256x512xbf16>
  }
  func.func @reglu_bf16(%x: tensor<256x512xbf16>, %dy: tensor<256x256xbf16>) -> (tensor<256x256xbf16>, tensor<256x512xbf16>) {
    %y = teq.activation reglu %x : tensor<256x512xbf16> -> tensor<256x256xbf16>
    %dx = teq.activation_backward reglu %dy, %x : tensor<256x256xbf16>, tensor<256x512xbf16>
    return %y, %dx : tensor<256x256xbf16>, tensor<256x512xbf16>
  }
  func.func @sreglu_bf16(%x: tensor<256x512xbf16>, %dy: tensor<256x256xbf16>) -> (tensor<256x256xbf16>, tensor<256x512xbf16>) {
    %y = teq.activation sreglu %x : tensor<256x512xbf16> -> tensor<256x256xbf16>
    %dx = teq.activation_backward sreglu %dy, %x : tensor<256x256xbf16>, tensor<256x512xbf16>
    return %y, %dx : tensor<256x256xbf16>, tensor<256x512xbf16>
  }
  func.func @swiglu_bf16(%x: tensor<256x512xbf16>, %dy: tensor<256x256xbf16>) -> (tensor<256x256xbf16>, tensor<256x512xbf16>) {
    %y = teq.activation swiglu %x : tensor<256x512xbf16> -> tensor<256x256xbf16>
    %dx = teq.activation_backward swiglu %dy, %x : tensor<256x256xbf16>, tensor<256x512xbf16>
    return %y, %dx : tensor<256x256xbf16>, tensor<256x512xbf16>
  }
  func.func @glu_bf16(%x: tensor<256x512xbf16>, %dy: tensor<256x256xbf16>) -> (tensor<256x256xbf16>, tensor<256x512xbf16>) {
    %y = teq.activation glu %x : tensor<256x512xbf16> -> tensor<256x256xbf16>
    %dx = teq.activation_backward glu %dy, %x : tensor<256x256xbf16>, tensor<256x512xbf16>
    return %y, %dx : tensor<256x256xbf16>, tensor<256x512xbf16>
  }
  func.func @gelu_f32(%x: tensor<256x512xf32>, %dy: tensor<256x512xf32>) -> (tensor<256x512xf32>, tensor<256x512xf32>) {
    %y = teq.activation gelu %x : tensor<256x512xf32> -> tensor<256x512xf32>
    %dx = teq.activation_backward gelu %dy, %x : tensor<256x512xf32>, tensor<256x512xf32>
    return %y, %dx : tensor<256x512xf32>, tensor<256x512xf32>
  }
  func.func @gelu_erf_f32(%x: tensor<256x512xf32>, %dy: tensor<256x512xf32>) -> (tensor<256x512xf32>, tensor<256x512xf32>) {
    %y = teq.activation gelu_erf %x : tensor<256x512xf32> -> tensor<256x512xf32>
    %dx = teq.activation_backward gelu_erf %dy, %x : tensor<256x512xf32>, tensor<256x512xf32>
    return %y, %dx : tensor<256x512xf32>, tensor<256x512xf32>
  }
  func.func @qgelu_f32(%x: tensor<256x512xf32>, %dy: tensor<256x512xf32>) -> (tensor<256x512xf32>, tensor<256x512xf32>) {
    %y = teq.activation qgelu %x : tensor<256x512xf32> -> tensor<256x512xf32>
    %dx = teq.activation_backward qgelu %dy, %x : tensor<256x512xf32>, tensor<256x512xf32>
    return %y, %dx : tensor<256x512xf32>, tensor<256x512xf32>
  }
  func.func @silu_f32(%x: tensor<256x512xf32>, %dy: tensor<256x512xf32>) -> (tensor<256x512xf32>, tensor<256x512xf32>) {
    %y = teq.activation silu %x : tensor<256x512xf32> -> tensor<256x512xf32>
    %dx = teq.activation_backward silu %dy, %x : tensor<256x512xf32>, tensor<256x512xf32>
    return %y, %dx : tensor<256x512xf32>, tensor<256x512xf32>
  }
  func.func @relu_f32(%x: tensor<256x512xf32>, %dy: tensor<256x512xf32>) -> (tensor<256x512xf32>, tensor<256x512xf32>) {
    %y = teq.activation relu %x : tensor<256x512xf32> -> tensor<256x512xf32>
    %dx = teq.activation_backward relu %dy, %x : tensor<256x512xf32>, tensor<256x512xf32>
    return %y, %dx : tensor<256x512xf32>, tensor<256x512xf32>
  }
  func.func @srelu_f32(%x: tensor<256x512xf32>, %dy: tensor<256x512xf32>) -> (tensor<256x512xf32>, tensor<256x512xf32>) {
    %y = teq.activation srelu %x : tensor<256x512xf32> -> tensor<256x512xf32>
    %dx = teq.activation_backward srelu %dy, %x : tensor<256x512xf32>, tensor<256x512xf32>
    return %y, %dx : tensor<256x512xf32>, tensor<256x512xf32>
  }
  func.func @tanh_f32(%x: tensor<256x512xf32>, %dy: tensor<256x512xf32>) -> (tensor<256x512xf32>, tensor<256x512xf32>) {
    %y = teq.activation tanh %x : tensor<256x512xf32> -> tensor<256x512xf32>
    %dx = teq.activation_backward tanh %dy, %x : tensor<256x512xf32>, tensor<256x512xf32>
    return %y, %dx : tensor<256x512xf32>, tensor<256x512xf32>
  }
  func.func @sigmoid_f32(%x: tensor<256x512xf32>, %dy: tensor<256x512xf32>) -> (tensor<256x512xf32>, tensor<256x512xf32>) {
    %y = teq.activation sigmoid %x : tensor<256x512xf32> -> tensor<256x512xf32>
    %dx = teq.activation_backward sigmoid %dy, %x : tensor<256x512xf32>, tensor<256x512xf32>
    return %y, %dx : tensor<256x512xf32>, tensor<256x512xf32>
  }
  func.func @geglu_f32(%x: tensor<256x512xf32>, %dy: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x512xf32>) {
    %y = teq.activation geglu %x : tensor<256x512xf32> -> tensor<256x256xf32>
    %dx = teq.activation_backward geglu %dy, %x : tensor<256x256xf32>, tensor<256x512xf32>
    return %y, %dx : tensor<256x256xf32>, tensor<256x512xf32>
  }
  func.func @qgeglu_f32(%x: tensor<256x512xf32>, %dy: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x512xf32>) {
    %y = teq.activation qgeglu %x : tensor<256x512xf32> -> tensor<256x256xf32>
    %dx = teq.activation_backward qgeglu %dy, %x : tensor<256x256xf32>, tensor<256x512xf32>
    return %y, %dx : tensor<256x256xf32>, tensor<256x512xf32>
  }
  func.func @reglu_f32(%x: tensor<256x512xf32>, %dy: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x512xf32>) {
    %y = teq.activation reglu %x : tensor<256x512xf32> -> tensor<256x256xf32>
    %dx = teq.activation_backward reglu %dy, %x : tensor<256x256xf32>, tensor<256x512xf32>
    return %y, %dx : tensor<256x256xf32>, tensor<256x512xf32>
  }
  func.func @sreglu_f32(%x: tensor<256x512xf32>, %dy: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x512xf32>) {
    %y = teq.activation sreglu %x : tensor<256x512xf32> -> tensor<256x256xf32>
    %dx = teq.activation_backward sreglu %dy, %x : tensor<256x256xf32>, tensor<256x512xf32>
    return %y, %dx : tensor<256x256xf32>, tensor<256x512xf32>
  }
  func.func @swiglu_f32(%x: tensor<256x512xf32>, %dy: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x512xf32>) {
    %y = teq.activation swiglu %x : tensor<256x512xf32> -> tensor<256x256xf32>
    %dx = teq.activation_backward swiglu %dy, %x : tensor<256x256xf32>, tensor<256x512xf32>
    return %y, %dx : tensor<256x256xf32>, tensor<256x512xf32>
  }
  func.func @glu_f32(%x: tensor<256x512xf32>, %dy: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x512xf32>) {
    %y = teq.activation glu %x : tensor<256x512xf32> -> tensor<256x256xf32>
    %dx = teq.activation_backward glu %dy, %x : tensor<256x256xf32>, tensor<256x512xf32>
    return %y, %dx : tensor<256x256xf32>, tensor<256x512xf32>
  }
  func.func @swiglu_ragged(%x: tensor<33x14xbf16>, %dy: tensor<33x7xbf16>) -> (tensor<33x7xbf16>, tensor<33x14xbf16>) {
    %y = teq.activation swiglu %x : tensor<33x14xbf16> -> tensor<33x7xbf16>
    %dx = teq.activation_backward swiglu %dy, %x : tensor<33x7xbf16>, tensor<33x14xbf16>
    return %y, %dx : tensor<33x7xbf16>, tensor<33x14xbf16>
  }
  func.func @gelu_ragged(%x: tensor<33x14xbf16>, %dy: tensor<33x14xbf16>) -> (tensor<33x14xbf16>, tensor<33x14xbf16>) {
    %y = teq.activation gelu %x : tensor<33x14xbf16> -> tensor<33x14xbf16>
    %dx = teq.activation_backward gelu %dy, %x : tensor<33x14xbf16>, tensor<33x14xbf16>
    return %y, %dx : tensor<33x14xbf16>, tensor<33x14xbf16>
  }
}

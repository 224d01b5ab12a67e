// A Linear whose quantized tensor has a dynamic dimension or more than 2^63
// elements is refused with a diagnostic. Found by the fuzzer
// (test/Fuzz/teq-fuzz.py): TE's shape rules multiplied the dimensions, which
// overflowed (undefined behaviour, an abort under UBSan) for `?` (a huge
// negative number to MLIR) and for huge shapes.
// RUN: te-opt %s -split-input-file -verify-diagnostics --teq-check-recipe-support

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @dynamic(%x: tensor<?x64x256xbf16>, %w: tensor<128x256xbf16>) -> tensor<?x64x128xbf16> {
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<?x64x128xbf16> {
      // expected-error @+1 {{Linear under Float8CurrentScaling: input with dims=[?, 64, 256]: a quantized tensor needs a static shape; dynamic dimensions are not supported}}
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<?x64x256xbf16>, tensor<128x256xbf16> -> tensor<?x64x128xbf16>
      teq.yield %o : tensor<?x64x128xbf16>
    }
    return %y : tensor<?x64x128xbf16>
  }
}

// -----

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @huge(%x: tensor<4294967296x4294967296x64xbf16>, %w: tensor<128x64xbf16>) -> tensor<4294967296x4294967296x128xbf16> {
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<4294967296x4294967296x128xbf16> {
      // expected-error @+1 {{Linear "fc1" under Float8CurrentScaling: input with dims=[4294967296, 4294967296, 64]: the tensor has more than 2^63 elements}}
      %o = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<4294967296x4294967296x64xbf16>, tensor<128x64xbf16> -> tensor<4294967296x4294967296x128xbf16>
      teq.yield %o : tensor<4294967296x4294967296x128xbf16>
    }
    return %y : tensor<4294967296x4294967296x128xbf16>
  }
}

// -----

module attributes {teq.target = #teq.target<sm_100>} {
  func.func @dynamic_backward(%dy: tensor<?x128xbf16>, %x: tensor<?x256xbf16>, %w: tensor<128x256xbf16>) -> tensor<?x256xbf16> {
    %y = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<?x256xbf16> {
      // expected-error @+1 {{Linear under MXFP8BlockScaling: grad_output with dims=[?, 128]: a quantized tensor needs a static shape; dynamic dimensions are not supported}}
      %dx = teq.linear_backward %dy, %x, %w config(#teq.linear<requires_wgrad = false>) : tensor<?x128xbf16>, tensor<?x256xbf16>, tensor<128x256xbf16> dgrad(tensor<?x256xbf16>)
      teq.yield %dx : tensor<?x256xbf16>
    }
    return %y : tensor<?x256xbf16>
  }
}

// GEMMs whose operands cuBLASLt does not take as written compile as TE runs
// them (teq-legalize-gemm-operands, te-semantics.md §6.1, §6.2): a Linear on
// f32 activations with a bias under FP8 gets the bias cast to bf16 (was an
// internal error: "cannot take an f32 bias"), and a teq.gemm given MXFP8
// operands with compact scales swizzles them first (was refused: "both
// operands need scale_layout = gemm_swizzled").
// RUN: split-file %s %t
// RUN: te-compile %t/f32-bias.mlir --emit=manifest | FileCheck %s --check-prefix=BIAS
// RUN: te-compile %t/f32-bias.mlir -o %t/f32-bias.so
// RUN: te-compile %t/mxfp8-compact.mlir --emit=manifest | FileCheck %s --check-prefix=MX
// RUN: te-compile %t/mxfp8-compact.mlir -o %t/mxfp8-compact.so

//--- f32-bias.mlir
// The cast is a temporary the GEMM's bias epilogue reads (bf16); the GEMM
// writes f32.
// BIAS: "bias": "[[CAST:t[0-9]+]]",
// BIAS: "inputs": [
// BIAS-NEXT: "b"
// BIAS-NEXT: ],
// BIAS-NEXT: "op": "arith.truncf"
// BIAS-NEXT: },
// BIAS-NEXT: "kind": "temporary",
// BIAS-NEXT: "name": "[[CAST]]",
// BIAS: "dtype": "bf16",
// BIAS: "bias_type": "bf16",
// BIAS: "d_type": "f32",
// BIAS-NEXT: "epilogue": "bias",
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @fc(%x: tensor<64x128xf32> {teq.name = "x"}, %w: tensor<256x128xf32> {teq.name = "w"}, %b: tensor<256xf32> {teq.name = "b"}) -> tensor<64x256xf32> {
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xf32> {
      %out, %sx, %sw = teq.linear_forward %x, %w bias(%b : tensor<256xf32>) config(#teq.linear<name = "fc", bias = true>)
          : tensor<64x128xf32>, tensor<256x128xf32> -> tensor<64x256xf32>
            saved_input(tensor<64x128xf32>) saved_weight(tensor<256x128xf32>)
      teq.yield %out : tensor<64x256xf32>
    }
    return %y : tensor<64x256xf32>
  }
}

//--- mxfp8-compact.mlir
// The GEMM reads A through a swizzle of its compact scales.
// MX: "a": "[[SWIZZLED:t[0-9]+]]",
// MX-NEXT: "b": "b",
// MX-NEXT: "gemm": 0,
// MX: "computed_by": {
// MX-NEXT: "input": "a",
// MX-NEXT: "op": "swizzle_scales"
// MX-NEXT: },
// MX-NEXT: "kind": "temporary",
// MX-NEXT: "name": "[[SWIZZLED]]",
module attributes {teq.target = #teq.target<sm_100a>} {
  func.func @f(%a: !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise> {teq.name = "a"}, %b: !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled> {teq.name = "b"}) -> tensor<64x64xbf16> {
    %y = teq.gemm TN %a, %b : !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x64xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise, gemm_swizzled> -> tensor<64x64xbf16>
    return %y : tensor<64x64xbf16>
  }
}

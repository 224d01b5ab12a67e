// The manifest's "role"/"of" (docs/Artifact.md): from teq.role/teq.role_of
// where the function has them (what the Python builder writes), else
// derived from what the IR shows (delayed-scaling state, its updates, a
// GEMM's main_grad accumulator and its result); nothing else gets a role.
// (An entry's "name" follows its "args": the JSON keys are sorted.)
// RUN: split-file %s %t
// RUN: te-compile %t/explicit.mlir --emit=manifest | FileCheck %s --check-prefix=EXPLICIT
// RUN: te-compile %t/derived.mlir --emit=manifest | FileCheck %s --check-prefix=DERIVED

//--- explicit.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @step(%x: tensor<64x128xbf16> {teq.name = "x", teq.role = "input"},
                  %w: tensor<256x128xbf16> {teq.name = "w", teq.role = "parameter"},
                  %dy: tensor<64x256xbf16> {teq.name = "dy", teq.role = "grad_output", teq.role_of = "y"})
      -> (tensor<64x256xbf16> {teq.name = "y", teq.role = "output"},
          tensor<256x128xbf16> {teq.name = "dw", teq.role = "grad", teq.role_of = "w"}) {
    %y, %dw = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<64x256xbf16>, tensor<256x128xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<requires_dgrad = false, name = "fc">)
          : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
            wgrad(tensor<256x128xbf16>)
      teq.yield %out, %gw : tensor<64x256xbf16>, tensor<256x128xbf16>
    }
    return %y, %dw : tensor<64x256xbf16>, tensor<256x128xbf16>
  }
  // One role given: the others stay without one (none is derived).
  func.func @partial(%s: tensor<3xf32> {teq.role = "state"}, %h: tensor<16x3xf32>)
      -> (tensor<3xf32>, tensor<16x3xf32>) {
    %s1, %h1 = teq.delayed_scaling_update %s, %h {fp8_dtype = f8E4M3FN, margin = 0 : i64, amax_compute_algo = #teq.amax_compute_algo<max>} : tensor<3xf32>, tensor<16x3xf32>
    return %s1, %h1 : tensor<3xf32>, tensor<16x3xf32>
  }
}
// EXPLICIT:       "name": "x",
// EXPLICIT-NEXT:  "role": "input",
// EXPLICIT:       "name": "w",
// EXPLICIT-NEXT:  "role": "parameter",
// EXPLICIT:       "name": "dy",
// EXPLICIT-NEXT:  "of": "y",
// EXPLICIT-NEXT:  "role": "grad_output",
// EXPLICIT:       "name": "y",
// EXPLICIT-NEXT:  "role": "output",
// EXPLICIT:       "name": "dw",
// EXPLICIT-NEXT:  "of": "w",
// EXPLICIT-NEXT:  "role": "grad",
// EXPLICIT:       "name": "step"
// EXPLICIT:       "name": "arg0",
// EXPLICIT-NEXT:  "role": "state",
// EXPLICIT:       "name": "arg1",
// EXPLICIT-NEXT:  "tensor": {
// EXPLICIT:       "name": "result0",
// EXPLICIT-NEXT:  "tensor": {
// EXPLICIT:       "name": "result1",
// EXPLICIT-NEXT:  "tensor": {
// EXPLICIT:       "name": "partial"

//--- derived.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @update(%s: tensor<3xf32> {teq.name = "s"}, %h: tensor<16x3xf32> {teq.name = "h"})
      -> (tensor<3xf32>, tensor<16x3xf32>) {
    %s1, %h1 = teq.delayed_scaling_update %s, %h {fp8_dtype = f8E4M3FN, margin = 0 : i64, amax_compute_algo = #teq.amax_compute_algo<max>} : tensor<3xf32>, tensor<16x3xf32>
    return %s1, %h1 : tensor<3xf32>, tensor<16x3xf32>
  }
  func.func @forward(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %s: tensor<3xf32>, %h: tensor<16x3xf32>)
      -> (tensor<64x256xbf16>, tensor<16x3xf32>) {
    %y, %h1 = teq.autocast recipe(#teq.delayed_scaling<amax_history_len = 16>)
        -> tensor<64x256xbf16>, tensor<16x3xf32> {
      %out, %hh = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<16x3xf32>) config(#teq.linear<name = "fc">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            updated_amax_history(tensor<16x3xf32>)
      teq.yield %out, %hh : tensor<64x256xbf16>, tensor<16x3xf32>
    }
    return %y, %h1 : tensor<64x256xbf16>, tensor<16x3xf32>
  }
  func.func @wgrad(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %mg: tensor<256x128xf32>)
      -> tensor<256x128xf32> {
    %dw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<256x128xf32> {
      %out, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<fuse_wgrad_accumulation = true, requires_dgrad = false, name = "fc">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gw = teq.linear_backward %dy, %sx, %sw main_grad(%mg : tensor<256x128xf32>) config(#teq.linear<fuse_wgrad_accumulation = true, requires_dgrad = false, name = "fc">)
          : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
            wgrad(tensor<256x128xf32>)
      teq.yield %gw : tensor<256x128xf32>
    }
    return %dw : tensor<256x128xf32>
  }
}
// DERIVED:       "name": "s",
// DERIVED-NEXT:  "role": "state",
// DERIVED:       "name": "h",
// DERIVED-NEXT:  "role": "state",
// DERIVED:       "name": "result0",
// DERIVED-NEXT:  "of": "s",
// DERIVED-NEXT:  "role": "state_update",
// DERIVED:       "name": "result1",
// DERIVED-NEXT:  "of": "h",
// DERIVED-NEXT:  "role": "state_update",
// DERIVED:       "name": "update"
// DERIVED:       "name": "arg0",
// DERIVED-NEXT:  "tensor": {
// DERIVED:       "name": "arg1",
// DERIVED-NEXT:  "tensor": {
// DERIVED:       "name": "arg2",
// DERIVED-NEXT:  "role": "state",
// DERIVED:       "name": "arg3",
// DERIVED-NEXT:  "role": "state",
// DERIVED:       "name": "result0",
// DERIVED-NEXT:  "tensor": {
// DERIVED:       "name": "result1",
// DERIVED-NEXT:  "of": "arg3",
// DERIVED-NEXT:  "role": "state_update",
// DERIVED:       "name": "forward"
// DERIVED:       "name": "arg3",
// DERIVED-NEXT:  "role": "main_grad",
// DERIVED:       "name": "result0",
// DERIVED-NEXT:  "role": "main_grad",
// DERIVED:       "name": "wgrad"

// Entry arguments and results named by teq.name (what the Python builder
// writes) are named so in the manifest, and in what computes them.
// RUN: split-file %s %t
// RUN: te-compile %t/named.mlir --emit=manifest | FileCheck %s
// RUN: not te-compile %t/duplicate.mlir --emit=manifest 2>&1 | FileCheck %s --check-prefix=DUP
// RUN: te-opt %t/bad-name.mlir -split-input-file -verify-diagnostics

//--- named.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @fc1(%x: tensor<64x128xbf16> {teq.name = "x"}, %w: tensor<256x128xbf16> {teq.name = "fc1.weight"})
      -> (tensor<64x256xbf16> {teq.name = "y"}) {
    %y = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16> {
      %out = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
      teq.yield %out : tensor<64x256xbf16>
    }
    return %y : tensor<64x256xbf16>
  }
}
// CHECK-LABEL: "entries": [
// CHECK: "name": "x"
// CHECK: "name": "fc1.weight"
// CHECK: "computed_by": {
// CHECK: "name": "y"
// CHECK: "input": "x"
// CHECK: "input": "fc1.weight"

//--- duplicate.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f(%x: tensor<64x128xbf16> {teq.name = "x"}) -> (tensor<64x128xbf16> {teq.name = "x"}) {
    %y = math.tanh %x : tensor<64x128xbf16>
    return %y : tensor<64x128xbf16>
  }
}
// DUP: duplicate.mlir:2:3: error: two arguments or results are named 'x'

//--- bad-name.mlir
// expected-error @+1 {{'teq.name' of argument 0 must be a non-empty string other than t<N>}}
func.func private @temporary(tensor<4xf32> {teq.name = "t3"})

// -----

// expected-error @+1 {{'teq.name' of result 0 must be a non-empty string}}
func.func private @empty() -> (tensor<4xf32> {teq.name = ""})

// -----

// expected-error @+1 {{unknown teq attribute 'teq.nme' on argument 0; teq knows 'teq.name'}}
func.func private @typo(tensor<4xf32> {teq.nme = "x"})

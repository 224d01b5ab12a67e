// Found by the fuzzer under the sanitizers (test/Fuzz/teq-fuzz.py, seed
// asan-20251126, program 1432): teq-decompose-linear, run without
// teq-check-recipe-support (which refuses it), built !teq.proto types with a
// dynamic dimension and a shape check multiplied it (signed overflow). The
// pass now refuses a Linear with a dynamic dimension.
// RUN: not te-opt %s --teq-resolve-autocast --teq-decompose-linear -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: 'teq.linear_forward' op has a dynamic dimension; Linears are decomposed for static shapes only
// CHECK-NOT: -9223372036854775808

module attributes {teq.target = #teq.target<sm_100>} {
  func.func @f(%x: tensor<2x?x256xbf16>, %w: tensor<128x256xbf16>) -> tensor<2x?x128xbf16> {
    %y = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<2x?x128xbf16> {
      %o = teq.linear_forward %x, %w config(#teq.linear<>) : tensor<2x?x256xbf16>, tensor<128x256xbf16> -> tensor<2x?x128xbf16>
      teq.yield %o : tensor<2x?x128xbf16>
    }
    return %y : tensor<2x?x128xbf16>
  }
}

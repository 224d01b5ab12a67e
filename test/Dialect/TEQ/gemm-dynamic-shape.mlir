// Found by the fuzzer (test/Fuzz/teq-fuzz.py): teq.gemm's verifier flattened
// a dynamic dimension into m/n/k (an overflow; nonsense checked). GEMMs are
// planned with static m, n and k: the verifier requires static shapes.
// RUN: not te-opt %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: 'teq.gemm' op needs static shapes (GEMMs are planned at compile time)

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @g(%a: tensor<128x64xbf16>, %b: tensor<?x32x64xbf16>) -> tensor<?x32x128xbf16> {
    %d = teq.gemm TN %a, %b : tensor<128x64xbf16>, tensor<?x32x64xbf16> -> tensor<?x32x128xbf16>
    return %d : tensor<?x32x128xbf16>
  }
}

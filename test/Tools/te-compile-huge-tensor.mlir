// Found by the fuzzer (test/Fuzz/teq-fuzz.py): an entry tensor past 2^63
// elements or bytes overflowed the size computation (undefined behaviour, an
// abort under UBSan). Sizes are checked first, against the runtime's 2^48-byte
// limit on a buffer.
// RUN: split-file %s %t
// RUN: not te-compile %t/elements.mlir --emit=manifest -o /dev/null 2>&1 | FileCheck %s
// RUN: not te-compile %t/bytes.mlir --emit=manifest -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: {{.*}} is too large: entry buffers are limited to 2^48 bytes

//--- elements.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @e(%x: tensor<4294967296x4294967296xbf16>) -> tensor<4294967296x4294967296xbf16> {
    return %x : tensor<4294967296x4294967296xbf16>
  }
}

//--- bytes.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @e(%x: tensor<9223372036854775807xbf16>) -> tensor<9223372036854775807xbf16> {
    %d = math.tanh %x : tensor<9223372036854775807xbf16>
    return %d : tensor<9223372036854775807xbf16>
  }
}

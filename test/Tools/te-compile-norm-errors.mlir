// RUN: split-file %s %t
// RUN: not te-compile %t/too-wide.mlir --emit=mlir 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: not te-compile %t/no-rows.mlir --emit=mlir 2>&1 | FileCheck %s --check-prefix=ROWS

// The norm kernels keep a thread's share of a row in registers: a row
// longer than 65536 elements is refused by name.
// WIDE: too-wide.mlir:{{[0-9]+}}:17: error: 'teq.rms_norm' op normalises 131072 elements per row; the GPU kernels take at most 65536 (each thread keeps its share of a row in registers)

// No rows: refused (an empty tensor) before any kernel is sized.
// ROWS: no-rows.mlir:{{[0-9]+}}:{{[0-9]+}}: error: empty tensors have no GPU lowering, got 'tensor<0x64xbf16>'

//--- too-wide.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f(%x: tensor<2x131072xbf16>, %g: tensor<131072xbf16>) -> tensor<2x131072xbf16> {
    %y, %rstd = teq.rms_norm %x, %g : (tensor<2x131072xbf16>, tensor<131072xbf16>) -> (tensor<2x131072xbf16>, tensor<2xf32>)
    return %y : tensor<2x131072xbf16>
  }
}

//--- no-rows.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @f(%x: tensor<0x64xbf16>, %g: tensor<64xbf16>) -> tensor<0x64xbf16> {
    %y, %mean, %rstd = teq.layer_norm %x, %g : (tensor<0x64xbf16>, tensor<64xbf16>) -> (tensor<0x64xbf16>, tensor<0xf32>, tensor<0xf32>)
    return %y : tensor<0x64xbf16>
  }
}

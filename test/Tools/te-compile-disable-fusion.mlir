// te-compile --disable-fusion leaves a fusion across ops out, to measure it
// against the unfused form; an unknown name is an error listing the known.
// RUN: te-compile %s --emit=manifest -o - | FileCheck %s --check-prefix=FUSED
// RUN: te-compile %s --emit=manifest --disable-fusion=residual-add -o - | FileCheck %s --check-prefix=UNFUSED
// RUN: not te-compile %s --emit=manifest --disable-fusion=residual-add,bogus -o - 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: te-compile %s --emit=manifest -o - | FileCheck %s --check-prefix=NORM-FUSED
// RUN: te-compile %s --emit=manifest --disable-fusion=norm-add -o - | FileCheck %s --check-prefix=NORM-UNFUSED
// The lowering's fusions go to convert-teq-to-gpu (bias-grad-fusion.mlir and
// amax-fusion.mlir test them): their kernels appear and disappear.
// RUN: te-compile %S/../GPU/Inputs/quantize-fusions.mlir --emit=mlir -o - | FileCheck %s --check-prefix=LOWER-FUSED
// RUN: te-compile %S/../GPU/Inputs/quantize-fusions.mlir --emit=mlir --disable-fusion=bias-grad,amax -o - | FileCheck %s --check-prefix=LOWER-UNFUSED
// LOWER-FUSED-LABEL: func.func @amax_dgelu_bgrad_256x512(
// LOWER-FUSED-NOT: _amax
// LOWER-FUSED-NOT: _bgrad_partial
// LOWER-FUSED: _bgrad_final
// LOWER-UNFUSED-LABEL: func.func @amax_dgelu_bgrad_256x512(
// LOWER-UNFUSED: _amax
// LOWER-UNFUSED: _bgrad_partial

// FUSED: "accumulate": "arg2"
// FUSED-NOT: "op": "arith.addf"
// UNFUSED: "op": "arith.addf"
// UNFUSED-NOT: "accumulate": "arg2"
// ERR: error: unknown fusion 'bogus' to disable (known: residual-add

// norm-add: the residual gradient added to RMSNorm's dx by its kernel (the
// backward's `add`), else an arith.addf after it.
// NORM-FUSED: "add": "arg4"
// NORM-FUSED-NOT: "op": "arith.addf"
// NORM-UNFUSED-NOT: "add": "arg4"
// NORM-UNFUSED: "op": "arith.addf"

#q = #teq.float8_current_scaling_quantizer<f8E4M3FN>
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @residual(%w: tensor<256x128xbf16>, %x: tensor<64x128xbf16>, %r: tensor<64x256xbf16>) -> tensor<64x256xbf16> {
    %wq = teq.quantize %w : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #q, rowwise>
    %xq = teq.quantize %x : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #q, rowwise>
    %y = teq.gemm TN %wq, %xq {use_split_accumulator = false} : !teq.proto<256x128xbf16, #q, rowwise>, !teq.proto<64x128xbf16, #q, rowwise> -> tensor<64x256xbf16>
    %h = arith.addf %y, %r : tensor<64x256xbf16>
    return %h : tensor<64x256xbf16>
  }
  func.func @norm_backward(%dy: tensor<64x256xbf16>, %x: tensor<64x256xbf16>, %rstd: tensor<64xf32>,
                           %g: tensor<256xbf16>, %go: tensor<64x256xbf16>)
      -> (tensor<64x256xbf16>, tensor<256xbf16>) {
    %dx, %dg = teq.rms_norm_backward %dy, %x, %rstd, %g
        : (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64xf32>, tensor<256xbf16>)
        -> (tensor<64x256xbf16>, tensor<256xbf16>)
    %gx = arith.addf %go, %dx : tensor<64x256xbf16>
    return %gx, %dg : tensor<64x256xbf16>, tensor<256xbf16>
  }
}

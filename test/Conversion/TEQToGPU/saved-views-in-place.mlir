// A training forward returns its saved quantized copies as usage views of
// the quantizations it runs (x's columnwise copy for wgrad, w's for
// dgrad). Each quantization writes the view's buffers straight into the
// result's (placed there at offset 0; the manifest says the result is
// computed by the quantization, and the temporary's buffers live in the
// output), so no copy kernel runs at the end of the entry; its other
// buffers (the rowwise data the fprop GEMM reads) stay in the workspace. A
// view of an argument (the weight-cache forward's cached weight) is still
// copied.
// RUN: te-compile %s --emit=mlir | FileCheck %s --check-prefix=MLIR
// RUN: te-compile %s --emit=manifest | FileCheck %s --check-prefix=MANIFEST

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @fwd(%x: tensor<64x128xbf16> {teq.name = "x", teq.role = "input"},
                 %w: tensor<256x128xbf16> {teq.name = "w", teq.role = "parameter"})
      -> (tensor<64x256xbf16> {teq.name = "y", teq.role = "output"},
          tensor<64x128xbf16> {teq.name = "saved_x", teq.role = "saved"},
          tensor<256x128xbf16> {teq.name = "saved_w", teq.role = "saved"})
      attributes {teq.weight_cache} {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// MLIR-LABEL: func.func @fwd(
// MLIR-NOT: _copy
// MLIR: call @teqGemm
// MLIR-NOT: _copy
// MLIR-LABEL: func.func @fwd_cached(
// MLIR: call @teqGemm
// MLIR-COUNT-2: launch_func async [%{{.*}}] @teq_kernels::@c{{[0-9]+}}_copy
// MLIR-NOT: _copy
// MLIR-LABEL: func.func private @teqGemm

// (Keys are sorted: an entry's args come before its name.)
// MANIFEST: "input": "x",
// MANIFEST-NEXT: "op": "quantize"
// MANIFEST: "name": "saved_x",
// MANIFEST: "input": "w",
// MANIFEST-NEXT: "op": "quantize"
// MANIFEST: "name": "saved_w",
// MANIFEST: "name": "fwd",
// MANIFEST: "temporaries": [
// MANIFEST: "name": "t0",
// MANIFEST: "placement": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "in": "workspace",
// MANIFEST: "buffer": 0,
// MANIFEST-NEXT: "in": "output",
// MANIFEST-NEXT: "offset": 0,
// MANIFEST-NEXT: "output": "saved_x"
// MANIFEST: "name": "fwd_weights",
// MANIFEST: "input": "view(w.quantized)",
// MANIFEST-NEXT: "op": "copy"
// MANIFEST: "name": "saved_w",
// MANIFEST: "name": "fwd_cached",

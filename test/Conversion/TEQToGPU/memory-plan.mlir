// Where a Linear forward + backward keeps its temporaries (MemoryPlan.h):
// a result buffer holds nothing until the op that writes it, so an FP8 copy
// whose last reader runs before that op lives in the result's bytes; the
// rest go to the workspace. Per-tensor FP8 on sm_90, ops in the order
// teq-decompose-linear makes them: quantize x (data, transpose), quantize w
// (data), fprop -> result0, quantize w (transpose), quantize dy (data,
// transpose), dgrad -> result1, wgrad -> result2; the wgrad may run first
// where that needs fewer bytes.
// RUN: te-compile %s --emit=manifest | FileCheck %s --enable-var-scope --check-prefix=MANIFEST
// RUN: te-compile %s --emit=mlir | FileCheck %s --enable-var-scope --check-prefix=MLIR
// RUN: te-compile %s -o %t.so
// RUN: te-run --list %t.so | FileCheck %s --check-prefix=LIST

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @square(%x: tensor<256x256xbf16>, %w: tensor<256x256xbf16>, %dy: tensor<256x256xbf16>) -> (tensor<256x256xbf16>, tensor<256x256xbf16>, tensor<256x256xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<256x256xbf16>, tensor<256x256xbf16>, tensor<256x256xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<256x256xbf16>, tensor<256x256xbf16> -> tensor<256x256xbf16> saved_input(tensor<256x256xbf16>) saved_weight(tensor<256x256xbf16>)
      %gx, %gw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc">)
          : tensor<256x256xbf16>, tensor<256x256xbf16>, tensor<256x256xbf16> dgrad(tensor<256x256xbf16>) wgrad(tensor<256x256xbf16>)
      teq.yield %out, %gx, %gw : tensor<256x256xbf16>, tensor<256x256xbf16>, tensor<256x256xbf16>
    }
    return %y, %dx, %dw : tensor<256x256xbf16>, tensor<256x256xbf16>, tensor<256x256xbf16>
  }
  func.func @tall(%x: tensor<1024x256xbf16>, %w: tensor<256x256xbf16>, %dy: tensor<1024x256xbf16>) -> (tensor<1024x256xbf16>, tensor<1024x256xbf16>, tensor<256x256xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<1024x256xbf16>, tensor<1024x256xbf16>, tensor<256x256xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<name = "fc">)
          : tensor<1024x256xbf16>, tensor<256x256xbf16> -> tensor<1024x256xbf16> saved_input(tensor<1024x256xbf16>) saved_weight(tensor<256x256xbf16>)
      %gx, %gw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc">)
          : tensor<1024x256xbf16>, tensor<1024x256xbf16>, tensor<256x256xbf16> dgrad(tensor<1024x256xbf16>) wgrad(tensor<256x256xbf16>)
      teq.yield %out, %gx, %gw : tensor<1024x256xbf16>, tensor<1024x256xbf16>, tensor<256x256xbf16>
    }
    return %y, %dx, %dw : tensor<1024x256xbf16>, tensor<1024x256xbf16>, tensor<256x256xbf16>
  }
}

// @square (every tensor 128 KiB, every FP8 copy 64 KiB): x's and w's data
// die at the fprop and live in dx (result1), written at the dgrad; w's
// transpose and dy's data die at the dgrad and live in dw (result2),
// written at the wgrad. Only what the wgrad reads (x's and dy's transposes)
// and the scales need the workspace: 128 KiB + 3 x 256 B, where it was
// 256 KiB + 3 x 256 B. Swapping the GEMMs would save nothing: the dgrad
// stays first.
// MANIFEST-LABEL: "name": "square",
// MANIFEST: "name": "t0",
// MANIFEST-NEXT: "placement": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "buffer": 0,
// MANIFEST-NEXT: "in": "output",
// MANIFEST-NEXT: "offset": 0,
// MANIFEST-NEXT: "output": "result1"
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "in": "workspace",
// MANIFEST-NEXT: "offset": [[XT:[0-9]+]]
// MANIFEST: "name": "t1",
// MANIFEST-NEXT: "placement": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "buffer": 0,
// MANIFEST-NEXT: "in": "output",
// MANIFEST-NEXT: "offset": 65536,
// MANIFEST-NEXT: "output": "result1"
// MANIFEST: "name": "t2",
// MANIFEST-NEXT: "placement": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "buffer": 0,
// MANIFEST-NEXT: "in": "output",
// MANIFEST-NEXT: "offset": [[WT:[0-9]+]],
// MANIFEST-NEXT: "output": "result2"
// MANIFEST: "name": "t3",
// MANIFEST-NEXT: "placement": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "buffer": 0,
// MANIFEST-NEXT: "in": "output",
// MANIFEST-NOT: "offset": [[WT]],
// MANIFEST-NEXT: "offset": {{[0-9]+}},
// MANIFEST-NEXT: "output": "result2"
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "in": "workspace",
// MANIFEST-NOT: "offset": [[XT]]
// MANIFEST-NEXT: "offset": {{[0-9]+}}
// MANIFEST: "workspace_bytes": 131840

// @tall (x, y, dx, dy 512 KiB; w, dw 128 KiB): dw is too small for x's
// copies, so the wgrad runs first and leaves dx unwritten until the end: x's
// data dies at the fprop and its transpose at the wgrad, both in dx, and
// dy's transpose takes the place of x's data there. What the dgrad reads
// (w's transpose, dy's data: 64 + 256 KiB) and the scales is all the
// workspace holds (it was 1 MiB + 3 x 256 B with every temporary there; in
// dgrad-first order x's and dy's transposes and dy's data, 768 KiB, would
// not fit any result).
// MANIFEST-LABEL: "name": "tall",
// MANIFEST: "name": "t0",
// MANIFEST-NEXT: "placement": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "buffer": 0,
// MANIFEST-NEXT: "in": "output",
// MANIFEST-NEXT: "offset": [[XD:[0-9]+]],
// MANIFEST-NEXT: "output": "result1"
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "buffer": 0,
// MANIFEST-NEXT: "in": "output",
// MANIFEST-NEXT: "offset": {{[0-9]+}},
// MANIFEST-NEXT: "output": "result1"
// MANIFEST: "name": "t1",
// MANIFEST-NEXT: "placement": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "buffer": 0,
// MANIFEST-NEXT: "in": "output",
// MANIFEST-NEXT: "offset": 0,
// MANIFEST-NEXT: "output": "result2"
// MANIFEST: "name": "t2",
// MANIFEST-NEXT: "placement": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "in": "workspace",
// MANIFEST: "name": "t3",
// MANIFEST-NEXT: "placement": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "in": "workspace",
// MANIFEST-NEXT: "offset": {{[0-9]+}}
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "buffer": 0,
// MANIFEST-NEXT: "in": "output",
// MANIFEST-NEXT: "offset": [[XD]],
// MANIFEST-NEXT: "output": "result1"
// MANIFEST: "workspace_bytes": 328448
// The GEMMs in the order they run.
// MANIFEST: "name": "square:fprop0",
// MANIFEST: "name": "square:dgrad1",
// MANIFEST: "name": "tall:fprop0",
// MANIFEST: "name": "tall:wgrad1",
// MANIFEST: "name": "tall:dgrad2",

// The entry takes a hosting result's bytes as i8; the result and the
// temporaries are views of them.
// MLIR-LABEL: func.func @tall(
// MLIR-SAME: %{{[^:]*}}: memref<262144xbf16>, %{{[^:]*}}: memref<65536xbf16>, %{{[^:]*}}: memref<262144xbf16>, %{{[^:]*}}: memref<262144xbf16>, %[[DX:[^:]*]]: memref<524288xi8>, %[[DW:[^:]*]]: memref<131072xi8>, %[[WS:[^:]*]]: memref<328448xi8>)
// MLIR: memref.view %[[DX]][%{{.*}}][] : memref<524288xi8> to memref<262144xbf16>
// MLIR: memref.view %[[DW]][%{{.*}}][] : memref<131072xi8> to memref<65536xbf16>
// MLIR: memref.view %[[DX]][%{{.*}}][] : memref<524288xi8> to memref<262144xi8>
// MLIR: memref.view %[[DX]][%{{.*}}][] : memref<524288xi8> to memref<262144xi8>
// MLIR: memref.view %[[WS]][%{{.*}}][] : memref<328448xi8> to memref<1xf32>

// te-run --list says where each buffer of a temporary lives.
// LIST-LABEL: entry tall
// LIST: temporary t0
// LIST-NEXT: data {{.*}} 262144 bytes  in output 'result1' buffer 0 +0
// LIST-NEXT: transpose {{.*}} 262144 bytes  in output 'result1' buffer 0 +262144
// LIST-NEXT: scale_inv {{.*}} 4 bytes  in the workspace +{{[0-9]+}}

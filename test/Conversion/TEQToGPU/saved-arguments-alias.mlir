// A result that is one of the entry's arguments returned as is (a
// LayerNorm's saved input x and weight g, which its backward reads) is that
// argument: it gets no buffers, no copy kernel runs, and the manifest says
// "alias_of" (version 2), so the caller's value is the argument it passed.
// Returned twice, or as an output of its own, it is the same. A usage view
// of an argument (saved-views-in-place.mlir) and a computed value returned
// twice are still copied.
// RUN: te-compile %s --emit=mlir | FileCheck %s --check-prefix=MLIR
// RUN: te-compile %s --emit=manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: %if teq-runtime %{ te-compile %s -o %t.so %}
// RUN: %if teq-runtime %{ te-run --list %t.so | FileCheck %s --check-prefix=LIST %}

module attributes {teq.target = #teq.target<sm_90>} {
  func.func @ln_fwd(%x: tensor<256x1024xbf16> {teq.name = "x", teq.role = "input"},
                    %g: tensor<1024xbf16> {teq.name = "g", teq.role = "parameter"},
                    %b: tensor<1024xbf16> {teq.name = "b", teq.role = "parameter"})
      -> (tensor<256x1024xbf16> {teq.name = "y", teq.role = "output"},
          tensor<256x1024xbf16> {teq.name = "saved_x", teq.role = "saved", teq.role_of = "x"},
          tensor<256xf32> {teq.name = "mean", teq.role = "saved"},
          tensor<256xf32> {teq.name = "rstd", teq.role = "saved"},
          tensor<1024xbf16> {teq.name = "saved_g", teq.role = "saved", teq.role_of = "g"}) {
    %y, %mean, %rstd = teq.layer_norm %x, %g, %b
        : (tensor<256x1024xbf16>, tensor<1024xbf16>, tensor<1024xbf16>)
        -> (tensor<256x1024xbf16>, tensor<256xf32>, tensor<256xf32>)
    return %y, %x, %mean, %rstd, %g
        : tensor<256x1024xbf16>, tensor<256x1024xbf16>, tensor<256xf32>, tensor<256xf32>, tensor<1024xbf16>
  }

  func.func @twice(%x: tensor<64x128xbf16>)
      -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>) {
    %y = arith.addf %x, %x : tensor<64x128xbf16>
    return %x, %x, %y, %y : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>
  }
}

// The lowered entries take x, g, b and y, mean, rstd: nothing for saved_x
// and saved_g, and nothing copies them.
// MLIR-LABEL: func.func @ln_fwd(
// MLIR-SAME: %{{[^:]*}}: memref<262144xbf16>, %{{[^:]*}}: memref<1024xbf16>, %{{[^:]*}}: memref<1024xbf16>, %{{[^:]*}}: memref<262144xbf16>, %{{[^:]*}}: memref<256xf32>, %{{[^:]*}}: memref<256xf32>) attributes {teq.entry}
// MLIR-NOT: _copy
// MLIR: @teq_kernels::@n{{[0-9]+}}_layer_norm
// MLIR-NOT: _copy
// MLIR: return
// The second entry takes x, and y once per return: y's second return is
// the one copy.
// MLIR-LABEL: func.func @twice(
// MLIR-SAME: %{{[^:]*}}: memref<8192xbf16>, %{{[^:]*}}: memref<8192xbf16>, %{{[^:]*}}: memref<8192xbf16>) attributes {teq.entry}
// MLIR-COUNT-1: _copy
// MLIR-NOT: _copy
// MLIR: return

// (Keys are sorted: an argument's alias_of comes first, an entry's args
// before its name.)
// MANIFEST: "name": "y",
// MANIFEST: "alias_of": "x",
// MANIFEST-NEXT: "kind": "output",
// MANIFEST-NEXT: "name": "saved_x",
// MANIFEST-NEXT: "of": "x",
// MANIFEST-NEXT: "role": "saved",
// MANIFEST-NEXT: "tensor": {
// MANIFEST: "name": "rstd",
// MANIFEST: "alias_of": "g",
// MANIFEST-NEXT: "kind": "output",
// MANIFEST-NEXT: "name": "saved_g",
// MANIFEST: "name": "ln_fwd",
// MANIFEST: "alias_of": "arg0",
// MANIFEST-NEXT: "kind": "output",
// MANIFEST-NEXT: "name": "result0",
// MANIFEST: "alias_of": "arg0",
// MANIFEST-NEXT: "kind": "output",
// MANIFEST-NEXT: "name": "result1",
// MANIFEST: "op": "arith.addf"
// MANIFEST: "name": "result2",
// MANIFEST: "input": "result2",
// MANIFEST-NEXT: "op": "copy"
// MANIFEST: "name": "result3",
// MANIFEST: "name": "twice",
// MANIFEST: "version": 2

// te-run lists an alias with no buffers (the call takes none for it).
// LIST: entry ln_fwd (symbol teq_entry_ln_fwd): 6 buffers
// LIST: output saved_x      tensor bf16[256,1024]  no buffers  = argument 'x' itself (alias_of)
// LIST: output saved_g      tensor bf16[1024]  no buffers  = argument 'g' itself (alias_of)
// LIST: entry twice (symbol teq_entry_twice): 3 buffers
// LIST-NEXT: input  arg0
// LIST-NEXT: output result0      tensor bf16[64,128]  no buffers  = argument 'arg0' itself (alias_of)

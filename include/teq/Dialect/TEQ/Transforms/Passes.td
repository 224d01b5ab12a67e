//===- Passes.td - Passes over the teq dialect ------------*- tablegen -*-===//

#ifndef TEQ_DIALECT_TEQ_TRANSFORMS_PASSES_TD
#define TEQ_DIALECT_TEQ_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PrintBufferLayouts : Pass<"teq-print-buffer-layouts", "ModuleOp"> {
  let summary = "print the inner buffers of every quantized tensor type";
  let description = [{
    For every distinct `!teq.proto` type used by an op or block argument of
    the module, prints the buffers it has on the module's `#teq.target`
    (te-semantics.md §4): name, storage shape, valid region, encoding,
    transposition, scale layout and size. The IR is not changed.

    Input:
    ```mlir
    module attributes {teq.target = #teq.target<sm_90>} {
      func.func @f(%x: !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>) { return }
    }
    ```
    Output (stdout):
    ```
    !teq.proto<300x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise> on sm_90: 3 buffers, 84224 bytes
      rowwise_data          e4m3 [300, 256]
      rowwise_scale_inv     e8m0 [384, 8]  valid [300, 8]  compact
    ```
    A module without `teq.target` is an error: layouts depend on the GPU.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "print for this target (e.g. sm_100) instead of the module's">
  ];
}

#endif // TEQ_DIALECT_TEQ_TRANSFORMS_PASSES_TD

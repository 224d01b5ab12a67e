// teq-dedupe-saved-tensors: each tensor kept between forward and backward is
// kept at most once. A saved slot that aliases a forward input is dropped
// (backward reads the original value); a stateless quantized weight is not
// saved but rebuilt by a teq.quantize right before backward; a stateful
// (delayed-scaling) weight stays saved; Linears sharing an input save its
// quantized copy once; in the pair-of-functions form, forward results that are
// the function's own arguments leave the signature.

// RUN: te-opt %s -split-input-file --teq-resolve-autocast --teq-infer-prototypes --teq-dedupe-saved-tensors | FileCheck %s --implicit-check-not=teq.autocast
// RUN: te-opt %s -split-input-file --teq-resolve-autocast --teq-infer-prototypes --teq-dedupe-saved-tensors=print-saved-memory | FileCheck %s --check-prefix=MEM

// A high-precision Linear (enabled(false)): both saved slots alias the
// forward's operands; the forward returns only its output and backward reads
// %x and %w.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @high_precision(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast enabled(false) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @high_precision(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-NOT: !teq.proto
// CHECK-NOT: teq.quantize
// CHECK: %[[Y:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W]]
// CHECK-SAME: recipe = "high_precision"
// CHECK-SAME: : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>{{$}}
// CHECK-NOT: teq.quantize
// CHECK: %[[DX:[a-z0-9_]+]], %[[DW:[a-z0-9_]+]] = teq.linear_backward %[[DY]], %[[X]], %[[W]]
// CHECK-SAME: : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad
// CHECK: return %[[Y]], %[[DX]], %[[DW]]

// -----

// Float8CurrentScaling: the quantized input stays saved (columnwise); the
// weight quantizer is stateless, so the weight is not saved: a teq.quantize
// of %w to the same columnwise prototype appears right before backward.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @current_weight(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @current_weight(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK-NOT: teq.quantize
// CHECK: %{{.*}}, %[[SX:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W]]
// CHECK-SAME: recipe = "Float8CurrentScaling"
// CHECK-SAME: -> tensor<64x256xbf16> saved_input(!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// CHECK-NEXT: %[[QW:[a-z0-9_]+]] = teq.quantize %[[W]] {teq.recompute} : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// CHECK-NEXT: teq.linear_backward %[[DY]], %[[SX]], %[[QW]]
// CHECK-SAME: : tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise> dgrad

// -----

// DelayedScaling: the weight's quantizer is stateful (its scale comes from
// the forward's amax history), so the quantized weight stays saved and no
// teq.quantize is inserted.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @delayed_weight(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>, %s: tensor<3xf32>, %h: tensor<1024x3xf32>, %bs: tensor<2xf32>, %bh: tensor<1024x2xf32>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<1024x3xf32>, tensor<1024x2xf32>) {
    %y, %sx, %sw, %h1 = teq.autocast recipe(#teq.delayed_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<1024x3xf32> {
      %out, %a, %b, %hh = teq.linear_forward %x, %w state(%s, %h : tensor<3xf32>, tensor<1024x3xf32>) config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>) updated_amax_history(tensor<1024x3xf32>)
      teq.yield %out, %a, %b, %hh : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<1024x3xf32>
    }
    %dx, %dw, %bh1 = teq.linear_backward %dy, %sx, %sw state(%bs, %bh : tensor<2xf32>, tensor<1024x2xf32>) config(#teq.linear<name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) updated_amax_history(tensor<1024x2xf32>)
    return %y, %dx, %dw, %h1, %bh1 : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<1024x3xf32>, tensor<1024x2xf32>
  }
}

// CHECK-LABEL: func.func @delayed_weight(
// CHECK-NOT: teq.quantize
// CHECK: %{{.*}}, %[[SX:[a-z0-9_]+]], %[[SW:[a-z0-9_]+]], %{{.*}} = teq.linear_forward
// CHECK-SAME: recipe = "DelayedScaling"
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>)
// CHECK-SAME: saved_weight(!teq.proto<256x128xbf16, #teq.float8_quantizer<f8E4M3FN>, columnwise>)
// CHECK-SAME: updated_amax_history(tensor<1024x3xf32>)
// CHECK-NOT: teq.quantize
// CHECK: teq.linear_backward %{{.*}}, %[[SX]], %[[SW]] state(

// -----

// save_original_input: the saved input is the bf16 forward input, which
// backward now reads directly; the current-scaling weight is rebuilt.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @save_original(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<save_original_input = true, name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    %dx, %dw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<save_original_input = true, name = "fc1">) : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @save_original(
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// CHECK: %[[Y:[a-z0-9_]+]] = teq.linear_forward %[[X]], %[[W]]
// CHECK-SAME: : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>{{$}}
// CHECK-NEXT: %[[QW:[a-z0-9_]+]] = teq.quantize %[[W]] {teq.recompute} : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// CHECK-NEXT: teq.linear_backward %[[DY]], %[[X]], %[[QW]]
// CHECK-SAME: : tensor<64x256xbf16>, tensor<64x128xbf16>, !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise> dgrad

// -----

// Pair of functions, quantized (MXFP8 on sm_100): the saved results are
// quantized tensors, not arguments: the signature keeps them and no
// teq.saved_from_args is recorded.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @fwd_q(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %sx, %sw = teq.autocast recipe(#teq.mxfp8_block_scaling<>) -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %a, %b = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      teq.yield %out, %a, %b : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %sx, %sw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}

// CHECK-LABEL: func.func @fwd_q(
// CHECK-SAME: -> (tensor<64x256xbf16>, !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>, !teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>) {
// CHECK-NOT: teq.quantize
// CHECK: teq.linear_forward
// CHECK-SAME: saved_input(!teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>) saved_weight(!teq.proto<256x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>){{$}}

// -----

// print-saved-memory on a two-Linear MLP under Float8CurrentScaling, sm_90.
// On Hopper a per-tensor FP8 tensor used columnwise keeps only the
// transposed copy: K*M bytes (uint8) plus a 4-byte fp32 scale_inv
// (te-semantics.md §4.1). Saved tensors before dedupe:
//   fc1 input  64x128  -> 128*64  + 4 =  8196
//   fc1 weight 512x128 -> 128*512 + 4 = 65540
//   fc2 input  64x512  -> 512*64  + 4 = 32772
//   fc2 weight 128x512 -> 512*128 + 4 = 65540
//   total 4 tensors, 172048 bytes.
// After dedupe both weights are rebuilt (teq.quantize) in backward: the two
// inputs remain, 8196 + 32772 = 40968 bytes.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @mlp(%x: tensor<64x128xbf16>, %w1: tensor<512x128xbf16>, %w2: tensor<128x512xbf16>, %dy: tensor<64x128xbf16>) -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>) {
    %y, %s1x, %s1w, %h, %s2x, %s2w = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>, tensor<64x512xbf16>, tensor<64x512xbf16>, tensor<128x512xbf16> {
      %a, %ax, %aw = teq.linear_forward %x, %w1 config(#teq.linear<name = "fc1">) : tensor<64x128xbf16>, tensor<512x128xbf16> -> tensor<64x512xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<512x128xbf16>)
      %g = math.tanh %a : tensor<64x512xbf16>
      %b, %bx, %bw = teq.linear_forward %g, %w2 config(#teq.linear<name = "fc2">) : tensor<64x512xbf16>, tensor<128x512xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x512xbf16>) saved_weight(tensor<128x512xbf16>)
      teq.yield %b, %ax, %aw, %g, %bx, %bw : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>, tensor<64x512xbf16>, tensor<64x512xbf16>, tensor<128x512xbf16>
    }
    %dg, %dw2 = teq.linear_backward %dy, %s2x, %s2w config(#teq.linear<name = "fc2">) : tensor<64x128xbf16>, tensor<64x512xbf16>, tensor<128x512xbf16> dgrad(tensor<64x512xbf16>) wgrad(tensor<128x512xbf16>)
    %dx, %dw1 = teq.linear_backward %dg, %s1x, %s1w config(#teq.linear<name = "fc1">) : tensor<64x512xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<512x128xbf16>)
    return %y, %dx, %dw1, %dw2 : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>
  }
}

// MEM-LABEL: saved memory of @mlp on sm_90:
// MEM-NEXT: {{^}}  before dedupe: 4 tensors, 172048 bytes (Float8CurrentScaling: 172048){{$}}
// MEM-NEXT: {{^}}  after dedupe: 2 tensors, 40968 bytes (Float8CurrentScaling: 40968){{$}}
// MEM-NEXT: module attributes {teq.target = #teq.target<sm_90>} {
// MEM-NEXT: func.func @mlp(

// CHECK-LABEL: func.func @mlp(
// CHECK-COUNT-2: teq.quantize
// CHECK-NOT: teq.quantize
// CHECK: return

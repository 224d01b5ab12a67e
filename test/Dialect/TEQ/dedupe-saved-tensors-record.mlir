// teq-dedupe-saved-tensors=record-saved-memory: the print-saved-memory
// report as a function attribute (what the Python package reads).
// RUN: te-opt %s --teq-frontend="record-saved-memory=true" | FileCheck %s

// The MLP of examples/mlp.mlir: the input (8196 B) and tanh output (32772 B)
// quantized columnwise are saved; the weights' columnwise copies (65540 B
// each) are recomputed in backward by dedupe.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @mlp(%x: tensor<64x128xbf16>, %w1: tensor<512x128xbf16>, %w2: tensor<128x512xbf16>,
                 %dy: tensor<64x128xbf16>, %dh: tensor<64x512xbf16>)
      -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>) {
    %y, %dx, %dw1, %dw2 = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16> {
      %h, %s1x, %s1w = teq.linear_forward %x, %w1 config(#teq.linear<name = "fc1">)
          : tensor<64x128xbf16>, tensor<512x128xbf16> -> tensor<64x512xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<512x128xbf16>)
      %a = math.tanh %h : tensor<64x512xbf16>
      %out, %s2x, %s2w = teq.linear_forward %a, %w2 config(#teq.linear<name = "fc2">)
          : tensor<64x512xbf16>, tensor<128x512xbf16> -> tensor<64x128xbf16>
            saved_input(tensor<64x512xbf16>) saved_weight(tensor<128x512xbf16>)
      %da, %g2 = teq.linear_backward %dy, %s2x, %s2w config(#teq.linear<name = "fc2">)
          : tensor<64x128xbf16>, tensor<64x512xbf16>, tensor<128x512xbf16>
            dgrad(tensor<64x512xbf16>) wgrad(tensor<128x512xbf16>)
      %gx, %g1 = teq.linear_backward %dh, %s1x, %s1w config(#teq.linear<name = "fc1">)
          : tensor<64x512xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<512x128xbf16>)
      teq.yield %out, %gx, %g1, %g2
          : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>
    }
    return %y, %dx, %dw1, %dw2
        : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<512x128xbf16>, tensor<128x512xbf16>
  }
}

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: attributes {teq.saved_memory = {
// CHECK-SAME: after = {bytes = 40968 : i64, per_recipe = {Float8CurrentScaling = 40968 : i64}, tensors = 2 : i64},
// CHECK-SAME: before = {bytes = 172048 : i64, per_recipe = {Float8CurrentScaling = 172048 : i64}, tensors = 4 : i64}}}


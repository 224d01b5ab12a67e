// The examples in examples/ compile with teq-frontend for Hopper and
// Blackwell: they name no #teq.target, and their recipes (Float8CurrentScaling,
// Float8BlockScaling with defaults, a custom current-scaling recipe) run on
// both. qkv.mlir is covered by examples-pipeline-qkv.mlir.

// RUN: te-opt %teq_src_root/examples/linear.mlir --teq-frontend="target=sm_90 print-saved-memory=true" | FileCheck %s --check-prefixes=LIN,LIN90 --implicit-check-not=teq.autocast
// RUN: te-opt %teq_src_root/examples/linear.mlir --teq-frontend="target=sm_100 print-saved-memory=true" | FileCheck %s --check-prefixes=LIN,LIN100 --implicit-check-not=teq.autocast
// RUN: te-opt %teq_src_root/examples/mlp.mlir --teq-frontend="target=sm_90 print-saved-memory=true" | FileCheck %s --check-prefixes=MLP,MLP90 --implicit-check-not=teq.autocast
// RUN: te-opt %teq_src_root/examples/mlp.mlir --teq-frontend="target=sm_100 print-saved-memory=true" | FileCheck %s --check-prefixes=MLP,MLP100 --implicit-check-not=teq.autocast

// linear.mlir. sm_90 report: input 64x128 FP8 columnwise = transposed copy
// 8192 + 4-byte scale_inv = 8196; weight 256x128 = 32768 + 4 = 32772; after
// dedupe the weight is re-quantized in backward.
// LIN90: saved memory of @linear on sm_90:
// LIN90-NEXT: before dedupe: 2 tensors, 40968 bytes (Float8CurrentScaling: 40968)
// LIN90-NEXT: after dedupe: 1 tensors, 8196 bytes (Float8CurrentScaling: 8196)
// LIN90: saved memory of @linear_block on sm_90:
// LIN100: saved memory of @linear on sm_100:
// LIN100: saved memory of @linear_block on sm_100:
// LIN90: module attributes {teq.target = #teq.target<sm_90>}
// LIN100: module attributes {teq.target = #teq.target<sm_100>}
// LIN-LABEL: func.func @linear(
// LIN: teq.linear_forward
// LIN-SAME: recipe = "Float8CurrentScaling", input = #teq.float8_current_scaling_quantizer<f8E4M3FN>, weight = #teq.float8_current_scaling_quantizer<f8E4M3FN>, output = #teq.float8_current_scaling_quantizer<f8E4M3FN>, grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>, grad_input = #teq.float8_current_scaling_quantizer<f8E5M2>
// LIN-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// LIN-NEXT: teq.quantize %{{.*}} : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// LIN-NEXT: teq.linear_backward
// LIN-LABEL: func.func @linear_block(
// LIN: teq.linear_forward
// LIN-SAME: recipe = "Float8BlockScaling"
// LIN-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>){{$}}
// LIN-NEXT: teq.quantize %{{.*}} : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
// LIN-NEXT: teq.linear_backward

// mlp.mlir: the report shows fewer bytes after dedupe (both weights are
// re-quantized): 8196 + 65540 + 32772 + 65540 = 172048 -> 8196 + 32772.
// MLP90: saved memory of @mlp on sm_90:
// MLP100: saved memory of @mlp on sm_100:
// MLP-NEXT: before dedupe: 4 tensors, 172048 bytes (Float8CurrentScaling: 172048)
// MLP-NEXT: after dedupe: 2 tensors, 40968 bytes (Float8CurrentScaling: 40968)
// MLP: saved memory of @mlp_custom on
// MLP-NEXT: before dedupe: 2 tensors, 40968 bytes (CustomRecipe: 32772, Float8CurrentScaling: 8196)
// MLP-LABEL: func.func @mlp(
// MLP: teq.linear_forward {{.*}}config(#teq.linear<name = "fc1">)
// MLP-SAME: saved_input(!teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// MLP-NEXT: math.tanh
// MLP-NEXT: teq.linear_forward {{.*}}config(#teq.linear<name = "fc2">)
// MLP-SAME: saved_input(!teq.proto<64x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>){{$}}
// MLP-COUNT-2: teq.quantize
// MLP-LABEL: func.func @mlp_custom(
// MLP: teq.linear_forward {{.*}}config(#teq.linear<name = "fc1">) {quantization = #teq.linear_quantization<recipe = "Float8CurrentScaling"
// MLP: teq.linear_forward {{.*}}config(#teq.linear<name = "fc2">) {quantization = #teq.linear_quantization<recipe = "CustomRecipe"
// MLP-SAME: grad_output = #teq.float8_current_scaling_quantizer<f8E5M2>

// The teq-lower-to-gemm pipeline (teq-frontend, then teq-decompose-linear,
// teq-quantize-cse and canonicalize) on the examples in examples/, which
// name no #teq.target: target= sets it. Each example has a Linear, an MLP
// and a QKV projection under Float8CurrentScaling, Float8BlockScaling and a
// custom recipe nested in another recipe's region, compiled for sm_90 and
// sm_100. No Linear op or autocast region is left.
//
// GEMM kinds and layouts (te-semantics.md §6.1, §6.3): fprop is TN, dgrad
// NN, wgrad NT. Per-tensor FP8 runs dgrad and wgrad physically TN on sm_90
// and as NN / NT on sm_100; block FP8 is physically TN on both. A GEMM
// attribute dictionary ending right after physical_layout has split
// accumulation on (the default is not printed).
//
// Canonicalization removes GEMMs whose results are unused: the examples that
// take a gradient as an argument instead of computing it (@mlp's dh, @qkv's
// wgrads) lose those GEMMs.

// RUN: te-opt %teq_src_root/examples/linear.mlir --teq-lower-to-gemm="target=sm_90 print-saved-memory=true" | FileCheck %s --check-prefixes=LIN,LIN90 --implicit-check-not=teq.linear_forward --implicit-check-not=teq.linear_backward --implicit-check-not=teq.autocast
// RUN: te-opt %teq_src_root/examples/linear.mlir --teq-lower-to-gemm="target=sm_100 print-saved-memory=true" | FileCheck %s --check-prefixes=LIN,LIN100 --implicit-check-not=teq.linear_forward --implicit-check-not=teq.linear_backward --implicit-check-not=teq.autocast
// RUN: te-opt %teq_src_root/examples/mlp.mlir --teq-lower-to-gemm="target=sm_90 print-saved-memory=true" | FileCheck %s --check-prefixes=MLP,MLP90 --implicit-check-not=teq.linear_forward --implicit-check-not=teq.linear_backward --implicit-check-not=teq.autocast
// RUN: te-opt %teq_src_root/examples/mlp.mlir --teq-lower-to-gemm="target=sm_100 print-saved-memory=true" | FileCheck %s --check-prefixes=MLP,MLP100 --implicit-check-not=teq.linear_forward --implicit-check-not=teq.linear_backward --implicit-check-not=teq.autocast
// RUN: te-opt %teq_src_root/examples/qkv.mlir --teq-lower-to-gemm="target=sm_90 print-saved-memory=true" | FileCheck %s --check-prefixes=QKV,QKV90 --implicit-check-not=teq.linear_forward --implicit-check-not=teq.linear_backward --implicit-check-not=teq.autocast
// RUN: te-opt %teq_src_root/examples/qkv.mlir --teq-lower-to-gemm="target=sm_100 print-saved-memory=true" | FileCheck %s --check-prefixes=QKV,QKV100 --implicit-check-not=teq.linear_forward --implicit-check-not=teq.linear_backward --implicit-check-not=teq.autocast

//===----------------------------------------------------------------------===//
// linear.mlir
//===----------------------------------------------------------------------===//

// Saved memory (printed by teq-dedupe-saved-tensors, inside the pipeline):
// per-tensor FP8 columnwise x 64x128 = 8192 + 4 (scale_inv) = 8196 and w
// 256x128 = 32772; block FP8 x (1x128 blocks) = 8192 + 512 B of scales =
// 8704 and w (128x128 blocks) = 32768 + 16 = 32784. After dedupe only x is
// kept: the weight is re-quantized in backward.
// LIN90: saved memory of @linear on sm_90:
// LIN100: saved memory of @linear on sm_100:
// LIN-NEXT: {{^}}  before dedupe: 2 tensors, 40968 bytes (Float8CurrentScaling: 40968){{$}}
// LIN-NEXT: {{^}}  after dedupe: 1 tensors, 8196 bytes (Float8CurrentScaling: 8196){{$}}
// LIN-NEXT: saved memory of @linear_block on
// LIN-NEXT: {{^}}  before dedupe: 2 tensors, 41488 bytes (Float8BlockScaling: 41488){{$}}
// LIN-NEXT: {{^}}  after dedupe: 1 tensors, 8704 bytes (Float8BlockScaling: 8704){{$}}
// The custom recipe of @linear_custom gives per-tensor current scaling.
// LIN-NEXT: saved memory of @linear_custom on
// LIN-NEXT: {{^}}  before dedupe: 2 tensors, 40968 bytes (CustomRecipe: 40968){{$}}
// LIN-NEXT: {{^}}  after dedupe: 1 tensors, 8196 bytes (CustomRecipe: 8196){{$}}
// LIN90-NEXT: module attributes {teq.target = #teq.target<sm_90>} {
// LIN100-NEXT: module attributes {teq.target = #teq.target<sm_100>} {

// Float8CurrentScaling. x is quantized once with both usages (fprop reads
// rowwise, wgrad the columnwise saved copy); w rowwise for fprop and
// re-quantized columnwise (teq.recompute) for dgrad; dy E5M2 with both usages.
// LIN-LABEL: func.func @linear(
// LIN-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// LIN-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// LIN-NEXT: %[[WQ:[a-z0-9_]+]] = teq.quantize %[[W]] : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// LIN-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[WQ]], %[[XQ]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false} : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> tensor<64x256xbf16>
// LIN-NEXT: %[[SX:[a-z0-9_]+]] = teq.update_usage %[[XQ]] : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// LIN-NEXT: %[[WC:[a-z0-9_]+]] = teq.quantize %[[W]] {teq.recompute} : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// LIN-NEXT: %[[DYQ:[a-z0-9_]+]] = teq.quantize %[[DY]] : tensor<64x256xbf16> -> !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
// LIN90-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[WC]], %[[DYQ]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<TN>} : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> -> tensor<64x128xbf16>
// LIN90-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT %[[SX]], %[[DYQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> -> tensor<256x128xbf16>
// LIN100-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[WC]], %[[DYQ]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<NN>} : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> -> tensor<64x128xbf16>
// LIN100-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT %[[SX]], %[[DYQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<NT>} : !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise> -> tensor<256x128xbf16>
// LIN-NEXT: return %[[Y]], %[[DX]], %[[DW]] : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>

// Float8BlockScaling: 1x128 blocks for x and dy, 128x128 for w; every GEMM
// physically TN with split accumulation, on both targets.
// LIN-LABEL: func.func @linear_block(
// LIN-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// LIN-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// LIN-NEXT: %[[WQ:[a-z0-9_]+]] = teq.quantize %[[W]] : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>
// LIN-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[WQ]], %[[XQ]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>} :
// LIN-NEXT: %[[SX:[a-z0-9_]+]] = teq.update_usage %[[XQ]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
// LIN-NEXT: %[[WC:[a-z0-9_]+]] = teq.quantize %[[W]] {teq.recompute} : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
// LIN-NEXT: %[[DYQ:[a-z0-9_]+]] = teq.quantize %[[DY]] : tensor<64x256xbf16> -> !teq.proto<64x256xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// LIN-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[WC]], %[[DYQ]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<TN>} :
// LIN-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT %[[SX]], %[[DYQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} :
// LIN-NEXT: return %[[Y]], %[[DX]], %[[DW]] :

// Nested custom recipe inside a Float8BlockScaling region: forward and
// backward both run under the custom recipe (per-tensor current scaling,
// E5M2 grad_output); nothing is block-quantized, and the layouts are those
// of per-tensor FP8 on each target.
// LIN-LABEL: func.func @linear_custom(
// LIN-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W:[a-z0-9_]+]]: tensor<256x128xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x256xbf16>)
// LIN-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// LIN-NEXT: %[[WQ:[a-z0-9_]+]] = teq.quantize %[[W]] : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// LIN-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[WQ]], %[[XQ]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false} :
// LIN-NEXT: %[[SX:[a-z0-9_]+]] = teq.update_usage %[[XQ]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// LIN-NEXT: %[[WC:[a-z0-9_]+]] = teq.quantize %[[W]] {teq.recompute} : tensor<256x128xbf16> -> !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// LIN-NEXT: %[[DYQ:[a-z0-9_]+]] = teq.quantize %[[DY]] : tensor<64x256xbf16> -> !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
// LIN90-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[WC]], %[[DYQ]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<TN>} :
// LIN90-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT %[[SX]], %[[DYQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} :
// LIN100-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[WC]], %[[DYQ]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<NN>} :
// LIN100-NEXT: %[[DW:[a-z0-9_]+]] = teq.gemm NT %[[SX]], %[[DYQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<NT>} :
// LIN-NEXT: return %[[Y]], %[[DX]], %[[DW]] :

//===----------------------------------------------------------------------===//
// mlp.mlir
//===----------------------------------------------------------------------===//

// Dedupe keeps fewer bytes: both weights are re-quantized in backward, so
// only the two inputs stay (fc1 64x128 and fc2 64x512 columnwise).
// Current scaling: 8196 + 65540 + 32772 + 65540 = 172048 -> 8196 + 32772.
// Block scaling: x 8704, w1 512x128 65536 + 16, fc2 input 32768 + 2048,
// w2 128x512 65536 + 64 = 174672 -> 8704 + 34816.
// MLP90: saved memory of @mlp on sm_90:
// MLP100: saved memory of @mlp on sm_100:
// MLP-NEXT: {{^}}  before dedupe: 4 tensors, 172048 bytes (Float8CurrentScaling: 172048){{$}}
// MLP-NEXT: {{^}}  after dedupe: 2 tensors, 40968 bytes (Float8CurrentScaling: 40968){{$}}
// MLP-NEXT: saved memory of @mlp_custom on
// MLP-NEXT: {{^}}  before dedupe: 2 tensors, 40968 bytes (CustomRecipe: 32772, Float8CurrentScaling: 8196){{$}}
// MLP-NEXT: {{^}}  after dedupe: 2 tensors, 40968 bytes (CustomRecipe: 32772, Float8CurrentScaling: 8196){{$}}
// MLP-NEXT: saved memory of @mlp_block on
// MLP-NEXT: {{^}}  before dedupe: 4 tensors, 174672 bytes (Float8BlockScaling: 174672){{$}}
// MLP-NEXT: {{^}}  after dedupe: 2 tensors, 43520 bytes (Float8BlockScaling: 43520){{$}}

// fc1 -> tanh -> fc2. fc2's dgrad is dead (the caller passes dh) and is
// removed; fc2's wgrad, fc1's dgrad and wgrad remain, so dy is quantized
// columnwise only (canonicalization drops the usage no GEMM reads). Each
// activation is quantized once.
// MLP-LABEL: func.func @mlp(
// MLP-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W1:[a-z0-9_]+]]: tensor<512x128xbf16>, %[[W2:[a-z0-9_]+]]: tensor<128x512xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[DH:[a-z0-9_]+]]: tensor<64x512xbf16>)
// MLP-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// MLP-NEXT: %[[W1Q:[a-z0-9_]+]] = teq.quantize %[[W1]] : tensor<512x128xbf16> -> !teq.proto<512x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// MLP-NEXT: %[[H:[a-z0-9_]+]] = teq.gemm TN %[[W1Q]], %[[XQ]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false} : {{.*}} -> tensor<64x512xbf16>
// MLP-NEXT: %[[S1X:[a-z0-9_]+]] = teq.update_usage %[[XQ]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// MLP-NEXT: %[[A:[a-z0-9_]+]] = math.tanh %[[H]] : tensor<64x512xbf16>
// MLP-NEXT: %[[AQ:[a-z0-9_]+]] = teq.quantize %[[A]] : tensor<64x512xbf16> -> !teq.proto<64x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// MLP-NEXT: %[[W2Q:[a-z0-9_]+]] = teq.quantize %[[W2]] : tensor<128x512xbf16> -> !teq.proto<128x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// MLP-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[W2Q]], %[[AQ]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false} : {{.*}} -> tensor<64x128xbf16>
// MLP-NEXT: %[[S2X:[a-z0-9_]+]] = teq.update_usage %[[AQ]] : {{.*}} -> !teq.proto<64x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// MLP-NEXT: %[[DYQ:[a-z0-9_]+]] = teq.quantize %[[DY]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, columnwise>
// MLP90-NEXT: %[[DW2:[a-z0-9_]+]] = teq.gemm NT %[[S2X]], %[[DYQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} : {{.*}} -> tensor<128x512xbf16>
// MLP100-NEXT: %[[DW2:[a-z0-9_]+]] = teq.gemm NT %[[S2X]], %[[DYQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<NT>} : {{.*}} -> tensor<128x512xbf16>
// MLP-NEXT: %[[W1C:[a-z0-9_]+]] = teq.quantize %[[W1]] {teq.recompute} : tensor<512x128xbf16> -> !teq.proto<512x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// MLP-NEXT: %[[DHQ:[a-z0-9_]+]] = teq.quantize %[[DH]] : tensor<64x512xbf16> -> !teq.proto<64x512xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise|columnwise>
// MLP90-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[W1C]], %[[DHQ]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<TN>} : {{.*}} -> tensor<64x128xbf16>
// MLP90-NEXT: %[[DW1:[a-z0-9_]+]] = teq.gemm NT %[[S1X]], %[[DHQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} : {{.*}} -> tensor<512x128xbf16>
// MLP100-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[W1C]], %[[DHQ]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<NN>} : {{.*}} -> tensor<64x128xbf16>
// MLP100-NEXT: %[[DW1:[a-z0-9_]+]] = teq.gemm NT %[[S1X]], %[[DHQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<NT>} : {{.*}} -> tensor<512x128xbf16>
// MLP-NEXT: return %[[Y]], %[[DX]], %[[DW1]], %[[DW2]] :

// Nested custom recipe (forward only): fc1 under the outer current scaling,
// fc2 under the inner custom recipe; the saved inputs leave the function as
// their columnwise quantized copies.
// MLP-LABEL: func.func @mlp_custom(
// MLP-SAME: -> (tensor<64x128xbf16>, !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>)
// MLP-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %{{[a-z0-9_]+}} : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// MLP-NEXT: teq.quantize
// MLP-NEXT: teq.gemm TN %{{[a-z0-9_]+}}, %[[XQ]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false}
// MLP-NEXT: %[[S1:[a-z0-9_]+]] = teq.update_usage %[[XQ]]
// MLP-NEXT: math.tanh
// MLP-NEXT: %[[AQ:[a-z0-9_]+]] = teq.quantize %{{[a-z0-9_]+}} : tensor<64x512xbf16> -> !teq.proto<64x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>
// MLP-NEXT: teq.quantize
// MLP-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %{{[a-z0-9_]+}}, %[[AQ]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false}
// MLP-NEXT: %[[S2:[a-z0-9_]+]] = teq.update_usage %[[AQ]]
// MLP-NEXT: return %[[Y]], %[[S1]], %[[S2]] :

// Float8BlockScaling for the whole MLP, the same structure; every GEMM TN with
// split accumulation on both targets.
// MLP-LABEL: func.func @mlp_block(
// MLP-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[W1:[a-z0-9_]+]]: tensor<512x128xbf16>, %[[W2:[a-z0-9_]+]]: tensor<128x512xbf16>, %[[DY:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[DH:[a-z0-9_]+]]: tensor<64x512xbf16>)
// MLP-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// MLP-NEXT: %[[W1Q:[a-z0-9_]+]] = teq.quantize %[[W1]] : tensor<512x128xbf16> -> !teq.proto<512x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>
// MLP-NEXT: %[[H:[a-z0-9_]+]] = teq.gemm TN %[[W1Q]], %[[XQ]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>} :
// MLP-NEXT: %[[S1X:[a-z0-9_]+]] = teq.update_usage %[[XQ]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
// MLP-NEXT: %[[A:[a-z0-9_]+]] = math.tanh %[[H]] : tensor<64x512xbf16>
// MLP-NEXT: %[[AQ:[a-z0-9_]+]] = teq.quantize %[[A]] : tensor<64x512xbf16> -> !teq.proto<64x512xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// MLP-NEXT: %[[W2Q:[a-z0-9_]+]] = teq.quantize %[[W2]] : tensor<128x512xbf16> -> !teq.proto<128x512xbf16, #teq.float8_block_quantizer<f8E4M3FN>, rowwise>
// MLP-NEXT: %[[Y:[a-z0-9_]+]] = teq.gemm TN %[[W2Q]], %[[AQ]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>} :
// MLP-NEXT: %[[S2X:[a-z0-9_]+]] = teq.update_usage %[[AQ]] : {{.*}} -> !teq.proto<64x512xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
// MLP-NEXT: %[[DYQ:[a-z0-9_]+]] = teq.quantize %[[DY]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
// MLP-NEXT: %[[DW2:[a-z0-9_]+]] = teq.gemm NT %[[S2X]], %[[DYQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} :
// MLP-NEXT: %[[W1C:[a-z0-9_]+]] = teq.quantize %[[W1]] {teq.recompute} : tensor<512x128xbf16> -> !teq.proto<512x128xbf16, #teq.float8_block_quantizer<f8E4M3FN>, columnwise>
// MLP-NEXT: %[[DHQ:[a-z0-9_]+]] = teq.quantize %[[DH]] : tensor<64x512xbf16> -> !teq.proto<64x512xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// MLP-NEXT: %[[DX:[a-z0-9_]+]] = teq.gemm NN %[[W1C]], %[[DHQ]] {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<TN>} :
// MLP-NEXT: %[[DW1:[a-z0-9_]+]] = teq.gemm NT %[[S1X]], %[[DHQ]] {kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} :
// MLP-NEXT: return %[[Y]], %[[DX]], %[[DW1]], %[[DW2]] :

//===----------------------------------------------------------------------===//
// qkv.mlir
//===----------------------------------------------------------------------===//

// QKV90: saved memory of @qkv on sm_90:
// QKV100: saved memory of @qkv on sm_100:
// QKV-NEXT: {{^}}  before dedupe: 6 tensors, 73752 bytes (Float8CurrentScaling: 73752){{$}}
// QKV-NEXT: {{^}}  after dedupe: 1 tensors, 8196 bytes (Float8CurrentScaling: 8196){{$}}
// QKV-NEXT: saved memory of @qkv_block on
// QKV-NEXT: {{^}}  before dedupe: 3 tensors, 26112 bytes (Float8BlockScaling: 26112){{$}}
// QKV-NEXT: {{^}}  after dedupe: 1 tensors, 8704 bytes (Float8BlockScaling: 8704){{$}}
// 3 x-copies of 8704 and three 128x128 2D-block weights (16384 + 16).
// QKV-NEXT: saved memory of @qkv_custom on
// QKV-NEXT: {{^}}  before dedupe: 6 tensors, 75312 bytes (CustomRecipe: 75312){{$}}
// QKV-NEXT: {{^}}  after dedupe: 1 tensors, 8704 bytes (CustomRecipe: 8704){{$}}

// Acceptance criterion: the input shared by Q, K and V is quantized exactly
// once; all three fprop GEMMs read that quantization. The wgrads are not
// returned by the example and are removed, so no GEMM reads x's columnwise
// copy and canonicalization drops it (rowwise only; the usage views become
// x's quantization itself). Each dgrad reads its weight re-quantized
// columnwise (teq.recompute).
// QKV-LABEL: func.func @qkv(
// QKV-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>, %[[WQ:[a-z0-9_]+]]: tensor<128x128xbf16>, %[[WK:[a-z0-9_]+]]: tensor<128x128xbf16>, %[[WV:[a-z0-9_]+]]: tensor<128x128xbf16>,
// QKV-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
// QKV-NOT: teq.quantize %[[X]] :
// QKV: teq.gemm TN %{{[a-z0-9_]+}}, %[[XQ]] {kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>, use_split_accumulator = false}
// QKV-NOT: teq.quantize %[[X]] :
// QKV: teq.gemm TN %{{[a-z0-9_]+}}, %[[XQ]] {kind = #teq.gemm_kind<fprop>
// QKV-NOT: teq.quantize %[[X]] :
// QKV: teq.gemm TN %{{[a-z0-9_]+}}, %[[XQ]] {kind = #teq.gemm_kind<fprop>
// QKV-NOT: teq.quantize %[[X]] :
// QKV: teq.quantize %[[WV]] {teq.recompute} : tensor<128x128xbf16> -> !teq.proto<128x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>
// QKV90: teq.gemm NN {{.*}}{kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<TN>}
// QKV100: teq.gemm NN {{.*}}{kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<NN>}
// QKV-NOT: teq.quantize %[[X]] :
// QKV-NOT: wgrad
// QKV: return

// Block scaling, forward only: x quantized once, its columnwise copy returned
// three times.
// QKV-LABEL: func.func @qkv_block(
// QKV-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>,
// QKV-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// QKV-NOT: teq.quantize %[[X]] :
// QKV: %[[SX:[a-z0-9_]+]] = teq.update_usage %[[XQ]] : {{.*}} -> !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>
// QKV-NOT: teq.quantize %[[X]] :
// QKV: return {{.*}}, %[[SX]], %[[SX]], %[[SX]] :

// Nested custom recipe (block quantizers as rules) inside a current-scaling
// region: x is quantized once (1x128 blocks, both usages); the backward ops,
// in the outer region, still use the custom recipe's quantizers (dy in 1x128
// blocks, no per-tensor FP8 anywhere). All GEMMs TN with split accumulation;
// the three wgrads share x's columnwise copy.
// QKV-LABEL: func.func @qkv_custom(
// QKV-SAME: %[[X:[a-z0-9_]+]]: tensor<64x128xbf16>,
// QKV-NOT: float8_current_scaling
// QKV-NOT: use_split_accumulator
// QKV-NEXT: %[[XQ:[a-z0-9_]+]] = teq.quantize %[[X]] : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// QKV-COUNT-3: teq.gemm TN {{.*}}{kind = #teq.gemm_kind<fprop>, physical_layout = #teq.gemm_layout<TN>} :
// QKV-NOT: float8_current_scaling
// QKV-NOT: use_split_accumulator
// QKV-NOT: teq.quantize %[[X]] :
// The three dgrads are summed through the GEMMs' C inputs
// (teq-fuse-residual-adds): each after the first accumulates the one before.
// QKV: teq.quantize %{{[a-z0-9_]+}} : tensor<64x128xbf16> -> !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, rowwise|columnwise>
// QKV-NEXT: teq.gemm NT %[[SX:[a-z0-9_]+]], {{.*}}{kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} : !teq.proto<64x128xbf16, #teq.float8_block_quantizer<f8E4M3FN, block_scaling_dim = 1>, columnwise>,
// QKV: %[[D1:[a-z0-9_]+]] = teq.gemm NN {{.*}}{kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<TN>} :
// QKV-NEXT: teq.gemm NT %[[SX]], {{.*}}{kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} :
// QKV-NOT: float8_current_scaling
// QKV-NOT: use_split_accumulator
// QKV-NOT: teq.quantize %[[X]] :
// QKV: teq.gemm NT %[[SX]], {{.*}}{kind = #teq.gemm_kind<wgrad>, physical_layout = #teq.gemm_layout<TN>} :
// QKV-NEXT: %[[D2:[a-z0-9_]+]] = teq.gemm NN {{.*}} accumulate(%[[D1]] : tensor<64x128xbf16>) {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<TN>} :
// QKV-NEXT: teq.gemm NN {{.*}} accumulate(%[[D2]] : tensor<64x128xbf16>) {kind = #teq.gemm_kind<dgrad>, physical_layout = #teq.gemm_layout<TN>} :
// QKV-NOT: arith.addf
// QKV: return

// convert-teq-to-gpu lowers teq.gemm to teqGemm runtime calls and describes
// each GEMM for cuBLASLt in the manifest (te-semantics.md §6.2-6.4).
// RUN: split-file %s %t
// RUN: te-compile %t/hopper.mlir --emit=manifest | FileCheck %s --check-prefix=HOPPER
// RUN: te-compile %t/hopper.mlir --emit=mlir | FileCheck %s --check-prefix=HOPPER-IR
// RUN: te-compile %t/block.mlir --emit=manifest | FileCheck %s --check-prefix=BLOCK
// RUN: te-compile %t/blackwell.mlir --emit=manifest | FileCheck %s --check-prefix=SM100
// RUN: te-compile %t/blackwell.mlir --emit=mlir | FileCheck %s --check-prefix=SM100-IR
// RUN: te-compile %t/high-precision.mlir --emit=manifest | FileCheck %s --check-prefix=HP
// RUN: te-compile %t/hopper.mlir -o %t/hopper.so && nm -D %t/hopper.so | FileCheck %s --check-prefix=LIB
// --gemm-algos records te-run's algorithm choice in the artifact:
// RUN: te-compile %t/hopper.mlir --gemm-algos=%t/pins.json --emit=manifest | FileCheck %s --check-prefix=PIN
// RUN: not te-compile %t/hopper.mlir --gemm-algos=%t/pins-other.json --emit=manifest 2>&1 | FileCheck %s --check-prefix=PIN-OTHER
// RUN: not te-compile %t/hopper.mlir --gemm-algos=%t/pins-unknown.json --emit=manifest 2>&1 | FileCheck %s --check-prefix=PIN-UNKNOWN
// Two GEMMs of one problem (two Linears of one shape) keep their own ids and
// names and share one plan; pinning one of them by name splits the plan:
// RUN: te-compile %t/twins.mlir --emit=manifest | FileCheck %s --check-prefix=TWINS
// RUN: te-compile %t/twins.mlir --gemm-algos=%t/pins-twin.json --emit=manifest | FileCheck %s --check-prefix=TWIN-PIN

// PIN-LABEL: "gemms": [
// PIN-NOT: "algo"
// PIN: "name": "linear:fprop0"
// PIN: "algo": {
// PIN-NEXT: "cluster_shape": 9,
// PIN-NEXT: "custom": 3,
// PIN-NEXT: "id": 66,
// PIN: "name": "linear:dgrad1"
// PIN-NOT: "algo"
// PIN: "name": "linear:wgrad2"
// PIN-OTHER: hopper.mlir:{{[0-9]+}}:{{[0-9]+}}: error: --gemm-algos {{.*}}pins-other.json: GEMM 'linear:dgrad1' has m = 128 here but 4096 in the file (pinned for another program?)
// PIN-UNKNOWN: hopper.mlir:{{[0-9]+}}:{{[0-9]+}}: error: --gemm-algos {{.*}}pins-unknown.json: GEMM 'linear:fprop9' is not in this program

//--- pins.json
{"gemms": [{"id": 1, "name": "linear:dgrad1", "m": 128, "n": 64, "k": 256,
            "algo": {"id": 66, "tile": 10, "stages": 36, "splitk": 1, "custom": 3, "cluster_shape": 9}}]}
//--- pins-other.json
{"gemms": [{"name": "linear:dgrad1", "m": 4096, "n": 64, "k": 256, "algo": {"id": 66}}]}
//--- pins-unknown.json
{"gemms": [{"name": "linear:fprop9", "algo": {"id": 66}}]}
//--- pins-twin.json
{"gemms": [{"name": "twins:fprop1", "algo": {"id": 66}}]}

//--- twins.mlir
// TWINS-LABEL: "gemms": [
// TWINS: "id": 0,
// TWINS: "name": "twins:fprop0",
// TWINS-NOT: "shares_plan_of"
// TWINS: "id": 1,
// TWINS: "name": "twins:fprop1",
// TWINS-NEXT: "shares_plan_of": 0,
// TWIN-PIN-LABEL: "gemms": [
// TWIN-PIN: "name": "twins:fprop0",
// TWIN-PIN-NOT: "algo"
// TWIN-PIN: "algo": {
// TWIN-PIN: "name": "twins:fprop1",
// TWIN-PIN-NOT: "shares_plan_of"
// TWIN-PIN: ]
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @twins(%x: tensor<64x128xbf16>, %w1: tensor<128x128xbf16>, %w2: tensor<128x128xbf16>)
      -> (tensor<64x128xbf16>, tensor<64x128xbf16>) {
    %y1, %y2 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x128xbf16>, tensor<64x128xbf16> {
      %a = teq.linear_forward %x, %w1 config(#teq.linear<name = "fc1">)
          : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16>
      %b = teq.linear_forward %x, %w2 config(#teq.linear<name = "fc2">)
          : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xbf16>
      teq.yield %a, %b : tensor<64x128xbf16>, tensor<64x128xbf16>
    }
    return %y1, %y2 : tensor<64x128xbf16>, tensor<64x128xbf16>
  }
}


//--- hopper.mlir
// Per-tensor FP8 on Hopper: every GEMM runs TN on the transposed copies;
// fprop uses fast accumulation, dgrad/wgrad split accumulation, E4M3 x E5M2.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @linear(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %b: tensor<256xbf16>, %dy: tensor<64x256xbf16>)
      -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>) {
    %y, %dx, %dw, %db = teq.autocast recipe(#teq.float8_current_scaling<>)
        -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w bias(%b : tensor<256xbf16>) config(#teq.linear<bias = true, name = "fc1">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %sx, %sw config(#teq.linear<bias = true, name = "fc1">)
          : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) dbias(tensor<256xbf16>)
      teq.yield %out, %gx, %gw, %gb : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>
    }
    return %y, %dx, %dw, %db : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>
  }
}

// The entry's temporaries share one workspace; bias_grad gets a result.
// HOPPER: "op": "gemm"
// HOPPER: "op": "bias_grad"
// HOPPER: "temporaries": [
// HOPPER: "workspace_bytes": {{[0-9]+}}
// HOPPER-LABEL: "gemms": [
// HOPPER: "a_scale_mode": "scalar_f32",
// HOPPER-NEXT: "a_type": "e4m3",
// HOPPER-NEXT: "accumulate": false,
// HOPPER-NEXT: "alpha": "host",
// HOPPER-NEXT: "b_scale_mode": "scalar_f32",
// HOPPER-NEXT: "b_type": "e4m3",
// HOPPER-NEXT: "bias_type": "bf16",
// HOPPER-NEXT: "compute_type": "32f",
// HOPPER-NEXT: "d_type": "bf16",
// HOPPER-NEXT: "epilogue": "bias",
// HOPPER-NEXT: "fast_accum": true,
// HOPPER-NEXT: "id": 0,
// HOPPER-NEXT: "k": 128,
// HOPPER-NEXT: "lda": 128,
// HOPPER-NEXT: "ldb": 128,
// HOPPER-NEXT: "ldd": 256,
// HOPPER-NEXT: "m": 256,
// HOPPER-NEXT: "n": 64,
// HOPPER-NEXT: "name": "linear:fprop0",
// HOPPER-NEXT: "transa": true,
// HOPPER-NEXT: "transb": false
// HOPPER: "b_type": "e5m2",
// HOPPER: "epilogue": "default",
// HOPPER-NEXT: "fast_accum": false,
// HOPPER-NEXT: "id": 1,
// HOPPER-NEXT: "k": 256,
// HOPPER-NEXT: "lda": 256,
// HOPPER-NEXT: "ldb": 256,
// HOPPER-NEXT: "ldd": 128,
// HOPPER-NEXT: "m": 128,
// HOPPER-NEXT: "n": 64,
// HOPPER-NEXT: "name": "linear:dgrad1",
// HOPPER-NEXT: "transa": true,
// HOPPER-NEXT: "transb": false
// HOPPER: "id": 2,
// HOPPER-NEXT: "k": 64,
// HOPPER-NEXT: "lda": 64,
// HOPPER-NEXT: "ldb": 64,
// HOPPER-NEXT: "ldd": 128,
// HOPPER-NEXT: "m": 128,
// HOPPER-NEXT: "n": 256,
// HOPPER-NEXT: "name": "linear:wgrad2",
// HOPPER-NEXT: "transa": true,
// HOPPER-NEXT: "transb": false

// The entry takes the workspace last; temporaries are views into it; each
// GEMM is one call with its manifest id, in program order after the kernels
// that produce its operands.
// HOPPER-IR-LABEL: func.func @linear(
// HOPPER-IR-SAME: %[[WS:[a-z0-9_]+]]: memref<{{[0-9]+}}xi8>) attributes {teq.entry}
// HOPPER-IR: memref.view %[[WS]]
// HOPPER-IR: gpu.launch_func async {{.*}} @teq_kernels::@q{{[0-9]+}}_cast
// HOPPER-IR: call @teqGemm(%{{.*}}) : (i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
// dy's transposing cast sums the bias gradient's tiles (QuantizeFusion.h):
// only the final pass follows it.
// HOPPER-IR-NOT: bgrad_partial
// HOPPER-IR: gpu.launch_func async {{.*}} @teq_kernels::@b{{[0-9]+}}_bgrad_final
// HOPPER-IR: call @teqGemm(
// HOPPER-IR: call @teqGemm(
// HOPPER-IR: func.func private @teqGemm(i64, i64, i64, i64, i64, i64, i64, i64, i64)

// LIB: U teqGemm

//--- block.mlir
// Block FP8 on Hopper: TN, 1D (vec128) or 2D (blk128x128) fp32 scales,
// split accumulation everywhere.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @linear(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %dy: tensor<64x256xbf16>)
      -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>) {
    %y, %dx, %dw = teq.autocast recipe(#teq.float8_block_scaling<>)
        -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w config(#teq.linear<name = "fc1">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw = teq.linear_backward %dy, %sx, %sw config(#teq.linear<name = "fc1">)
          : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %out, %gx, %gw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
    }
    return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
  }
}
// BLOCK-LABEL: "gemms": [
// BLOCK: "a_scale_mode": "blk128x128_f32",
// BLOCK: "b_scale_mode": "vec128_f32",
// BLOCK: "fast_accum": false,
// BLOCK: "name": "linear:fprop0",
// BLOCK: "a_scale_mode": "blk128x128_f32",
// BLOCK: "b_scale_mode": "vec128_f32",
// BLOCK: "name": "linear:dgrad1",
// BLOCK: "a_scale_mode": "vec128_f32",
// BLOCK: "b_scale_mode": "vec128_f32",
// BLOCK: "name": "linear:wgrad2",

//--- blackwell.mlir
// sm_100: per-tensor FP8 keeps the logical layouts (one data buffer serves
// both usages); MXFP8 reads columnwise copies with ld = m / n and E8M0
// scales; NVFP4 runs TN with E4M3 block scales and a device alpha computed
// from the two global amaxes.
module attributes {teq.target = #teq.target<sm_100>} {
  func.func @dgrad_fp8(%w: !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>,
                       %dy: !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise>) -> tensor<64x128xbf16> {
    %dx = teq.gemm NN %w, %dy : !teq.proto<256x128xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, columnwise>, !teq.proto<64x256xbf16, #teq.float8_current_scaling_quantizer<f8E5M2>, rowwise> -> tensor<64x128xbf16>
    return %dx : tensor<64x128xbf16>
  }
  func.func @wgrad_mxfp8(%x: !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>,
                         %dy: !teq.proto<64x256xbf16, #teq.mxfp8_quantizer<f8E5M2>, columnwise, gemm_swizzled>) -> tensor<256x128xbf16> {
    %dw = teq.gemm NT %x, %dy : !teq.proto<64x128xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, columnwise, gemm_swizzled>, !teq.proto<64x256xbf16, #teq.mxfp8_quantizer<f8E5M2>, columnwise, gemm_swizzled> -> tensor<256x128xbf16>
    return %dw : tensor<256x128xbf16>
  }
  func.func @fprop_nvfp4(%w: !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>,
                         %x: !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>) -> tensor<64x256xbf16> {
    %y = teq.gemm TN %w, %x : !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>, !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled> -> tensor<64x256xbf16>
    return %y : tensor<64x256xbf16>
  }
}
// SM100-LABEL: "gemms": [
// SM100: "a_type": "e4m3",
// SM100: "b_type": "e5m2",
// SM100: "lda": 128,
// SM100-NEXT: "ldb": 256,
// SM100: "name": "dgrad_fp8:gemm0",
// SM100-NEXT: "transa": false,
// SM100-NEXT: "transb": false
// SM100: "a_scale_mode": "vec32_ue8m0",
// SM100: "b_scale_mode": "vec32_ue8m0",
// SM100: "lda": 128,
// SM100-NEXT: "ldb": 256,
// SM100: "name": "wgrad_mxfp8:gemm0",
// SM100-NEXT: "transa": false,
// SM100-NEXT: "transb": true
// SM100: "a_scale_mode": "vec16_ue4m3",
// SM100-NEXT: "a_type": "e2m1",
// SM100: "alpha": "device",
// SM100: "fast_accum": false,
// SM100: "name": "fprop_nvfp4:gemm0",
// SM100-NEXT: "transa": true,
// SM100-NEXT: "transb": false

// SM100-IR: gpu.func @g{{[0-9]+}}_alpha(
// SM100-IR: arith.constant 0x4ADC8000 : f32
// SM100-IR-LABEL: func.func @fprop_nvfp4(
// SM100-IR: gpu.launch_func async {{.*}} @teq_kernels::@g{{[0-9]+}}_alpha
// SM100-IR: call @teqGemm(

//--- high-precision.mlir
// Autocast disabled: bf16 operands as given, leading dimension = the stored
// row length; dbias through the wgrad GEMM's BGRADB epilogue.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @linear(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %b: tensor<256xbf16>, %dy: tensor<64x256xbf16>)
      -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>) {
    %y, %dx, %dw, %db = teq.autocast enabled(false)
        -> tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16> {
      %out, %sx, %sw = teq.linear_forward %x, %w bias(%b : tensor<256xbf16>) config(#teq.linear<bias = true, name = "fc1">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16>
            saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %gx, %gw, %gb = teq.linear_backward %dy, %sx, %sw config(#teq.linear<bias = true, name = "fc1">)
          : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>
            dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>) dbias(tensor<256xbf16>)
      teq.yield %out, %gx, %gw, %gb : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>
    }
    return %y, %dx, %dw, %db : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256xbf16>
  }
}
// HP-NOT: "workspace_bytes"
// HP: "output": "dbias"
// HP-LABEL: "gemms": [
// HP: "a_scale_mode": "none",
// HP-NEXT: "a_type": "bf16",
// HP: "epilogue": "bias",
// HP: "lda": 128,
// HP-NEXT: "ldb": 128,
// HP: "name": "linear:fprop0",
// HP-NEXT: "transa": true,
// HP-NEXT: "transb": false
// HP: "name": "linear:dgrad1",
// HP-NEXT: "transa": false,
// HP-NEXT: "transb": false
// HP: "epilogue": "bgradb",
// HP: "name": "linear:wgrad2",
// HP-NEXT: "transa": false,
// HP-NEXT: "transb": true

// Elementwise arith/math ops on tensors as convert-teq-to-gpu fuses them
// (ElementwiseFusion.h, Kernels/Elementwise): one kernel per cluster, each
// op computed in f32 and rounded to its result type (truncf, then extf for
// the ops reading it) as the unfused kernels' stores and loads did, 16-byte
// vectors where every buffer is aligned; only values read outside the
// cluster are stored; splat constants are scalars of the kernel. (OUT: with
// the amax fusion off, so that @quantized reuses @returned's kernel;
// amax-fusion.mlir tests it.)
// RUN: split-file --leading-lines %s %t
// RUN: te-opt %t/chain.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=CHAIN
// RUN: te-opt %t/gelu.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=GELU
// RUN: te-compile %t/gelu.mlir --emit=manifest | FileCheck %s --check-prefix=GELU-MANIFEST
// RUN: te-opt %t/outputs.mlir --convert-teq-to-gpu="disabled-fusions=amax" | FileCheck %s --check-prefix=OUT
// RUN: te-compile %t/outputs.mlir --emit=manifest | FileCheck %s --check-prefix=OUT-MANIFEST
// RUN: te-compile %t/mlp.mlir --emit=mlir | FileCheck %s --check-prefix=MLP
// RUN: te-compile %t/contract.mlir --emit=ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: te-opt %t/constants.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=CONST
// RUN: te-compile %t/constants.mlir --emit=manifest | FileCheck %s --check-prefix=CONST-MANIFEST
// RUN: not te-opt %t/errors.mlir --convert-teq-to-gpu --split-input-file 2>&1 | FileCheck %s --check-prefix=ERR

//--- chain.mlir
// tanh's backward, dh = da - (da * a) * a: three ops, one kernel reading da
// and a once and writing dh; the intermediates have no buffer (no
// workspace). The same chain in a second entry launches the same kernel.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @tanh_backward(%da: tensor<64x512xbf16>, %a: tensor<64x512xbf16>) -> tensor<64x512xbf16> {
    %p = arith.mulf %da, %a : tensor<64x512xbf16>
    %q = arith.mulf %p, %a : tensor<64x512xbf16>
    %dh = arith.subf %da, %q : tensor<64x512xbf16>
    return %dh : tensor<64x512xbf16>
  }
  func.func @tanh_backward_again(%da: tensor<64x512xbf16>, %a: tensor<64x512xbf16>) -> tensor<64x512xbf16> {
    %p = arith.mulf %da, %a : tensor<64x512xbf16>
    %q = arith.mulf %p, %a : tensor<64x512xbf16>
    %dh = arith.subf %da, %q : tensor<64x512xbf16>
    return %dh : tensor<64x512xbf16>
  }
}

// CHAIN-LABEL: gpu.func @e0_mulf_mulf_subf(
// CHAIN-SAME: %[[DA:[^:]*]]: memref<32768xbf16>, %[[A:[^:]*]]: memref<32768xbf16>, %[[DH:[^:]*]]: memref<32768xbf16>)
// The vector path only where every buffer is 16-byte aligned.
// CHAIN: memref.extract_aligned_pointer_as_index %[[DA]]
// CHAIN: memref.extract_aligned_pointer_as_index %[[A]]
// CHAIN: memref.extract_aligned_pointer_as_index %[[DH]]
// CHAIN: scf.if
// CHAIN: scf.for
// CHAIN-NEXT: %[[VDA:.*]] = vector.load %[[DA]]{{.*}} vector<8xbf16>
// CHAIN-NEXT: %[[VA:.*]] = vector.load %[[A]]{{.*}} vector<8xbf16>
// CHAIN-NEXT: %[[FDA:.*]] = arith.extf %[[VDA]] : vector<8xbf16> to vector<8xf32>
// CHAIN-NEXT: %[[FA:.*]] = arith.extf %[[VA]] : vector<8xbf16> to vector<8xf32>
// p = da * a, rounded to bf16 and widened again for q.
// CHAIN-NEXT: %[[P:.*]] = arith.mulf %[[FDA]], %[[FA]] : vector<8xf32>
// CHAIN-NEXT: %[[PB:.*]] = arith.truncf %[[P]] : vector<8xf32> to vector<8xbf16>
// CHAIN-NEXT: %[[PF:.*]] = arith.extf %[[PB]] : vector<8xbf16> to vector<8xf32>
// CHAIN-NEXT: %[[Q:.*]] = arith.mulf %[[PF]], %[[FA]] : vector<8xf32>
// CHAIN-NEXT: %[[QB:.*]] = arith.truncf %[[Q]] : vector<8xf32> to vector<8xbf16>
// CHAIN-NEXT: %[[QF:.*]] = arith.extf %[[QB]] : vector<8xbf16> to vector<8xf32>
// CHAIN-NEXT: %[[D:.*]] = arith.subf %[[FDA]], %[[QF]] : vector<8xf32>
// CHAIN-NEXT: %[[DB:.*]] = arith.truncf %[[D]] : vector<8xf32> to vector<8xbf16>
// CHAIN-NEXT: vector.store %[[DB]], %[[DH]]
// The rest (all of it where a buffer is misaligned), one element at a time.
// CHAIN: scf.for
// CHAIN-NEXT: memref.load %[[DA]]
// CHAIN-NEXT: memref.load %[[A]]
// CHAIN: arith.mulf {{.*}} : f32
// CHAIN-NEXT: arith.truncf {{.*}} : f32 to bf16
// CHAIN-NEXT: arith.extf {{.*}} : bf16 to f32
// CHAIN-NEXT: arith.mulf {{.*}} : f32
// CHAIN: arith.subf {{.*}} : f32
// CHAIN-NEXT: %[[SB:.*]] = arith.truncf {{.*}} : f32 to bf16
// CHAIN-NEXT: memref.store %[[SB]], %[[DH]]
// CHAIN-NOT: gpu.func
// One launch per entry, no workspace: da, a, dh only.
// CHAIN-LABEL: func.func @tanh_backward(
// CHAIN-SAME: %{{[^:]*}}: memref<32768xbf16>, %{{[^:]*}}: memref<32768xbf16>, %{{[^:]*}}: memref<32768xbf16>) attributes
// CHAIN-NOT: memref.view
// CHAIN: gpu.launch_func async {{.*}} @teq_kernels::@e0_mulf_mulf_subf
// CHAIN-NOT: gpu.launch_func
// CHAIN-LABEL: func.func @tanh_backward_again(
// CHAIN: gpu.launch_func async {{.*}} @teq_kernels::@e0_mulf_mulf_subf
// CHAIN-NOT: gpu.launch_func

//--- gelu.mlir
// GELU (tanh approximation) on bf16 tensors with splat constants: one kernel
// over h; each constant is a scalar of it (its bf16 value, exactly, in f32),
// with no buffer.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @gelu(%h: tensor<64x512xbf16>) -> tensor<64x512xbf16> {
    %half = arith.constant dense<0.5> : tensor<64x512xbf16>
    %one = arith.constant dense<1.0> : tensor<64x512xbf16>
    %k0 = arith.constant dense<0.7978845608> : tensor<64x512xbf16>
    %k1 = arith.constant dense<0.044715> : tensor<64x512xbf16>
    %h2 = arith.mulf %h, %h : tensor<64x512xbf16>
    %h3 = arith.mulf %h2, %h : tensor<64x512xbf16>
    %c = arith.mulf %k1, %h3 : tensor<64x512xbf16>
    %s = arith.addf %h, %c : tensor<64x512xbf16>
    %u = arith.mulf %k0, %s : tensor<64x512xbf16>
    %t = math.tanh %u : tensor<64x512xbf16>
    %t1 = arith.addf %one, %t : tensor<64x512xbf16>
    %ht = arith.mulf %h, %t1 : tensor<64x512xbf16>
    %a = arith.mulf %half, %ht : tensor<64x512xbf16>
    return %a : tensor<64x512xbf16>
  }
}

// GELU-LABEL: gpu.func @e0_fused9(
// GELU-SAME: %{{[^:]*}}: memref<32768xbf16>, %[[A:[^:]*]]: memref<32768xbf16>)
// GELU: scf.for
// k1 = 0.044715 in bf16, a scalar of the kernel (splatted over the vector).
// GELU: arith.constant dense<0.0446777344> : vector<8xf32>
// GELU: arith.mulf
// GELU: arith.constant dense<7.968750e-01> : vector<8xf32>
// tanh as its polynomial, in f32 (its fmas exact, without libdevice).
// GELU: llvm.intr.fma
// GELU: arith.divf
// GELU: arith.constant dense<1.000000e+00> : vector<8xf32>
// GELU: arith.constant dense<5.000000e-01> : vector<8xf32>
// GELU: %[[R:.*]] = arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// GELU-NEXT: vector.store %[[R]], %[[A]]
// GELU-NOT: math.tanh
// GELU-LABEL: func.func @gelu(
// GELU-SAME: %{{[^:]*}}: memref<32768xbf16>, %{{[^:]*}}: memref<32768xbf16>) attributes
// GELU-NOT: memref.view
// GELU: gpu.launch_func async {{.*}} @teq_kernels::@e0_fused9
// GELU-NOT: gpu.launch_func

// The constants and intermediates are temporaries te-run --check recomputes
// (constants by value), held in registers: no workspace.
// GELU-MANIFEST-NOT: "workspace_bytes"
// GELU-MANIFEST: "temporaries": [
// GELU-MANIFEST-NEXT: {
// GELU-MANIFEST-NEXT: "computed_by": {
// GELU-MANIFEST-NEXT: "op": "constant",
// GELU-MANIFEST-NEXT: "value": 0.5
// GELU-MANIFEST-NEXT: },
// GELU-MANIFEST-NEXT: "in_registers": true,
// GELU-MANIFEST-NEXT: "kind": "temporary",
// GELU-MANIFEST-NEXT: "name": "t0",
// GELU-MANIFEST: "value": 1
// GELU-MANIFEST: "value": 0.796875
// GELU-MANIFEST: "value": 0.044677734375
// GELU-MANIFEST: "op": "math.tanh"
// GELU-MANIFEST-NEXT: },
// GELU-MANIFEST-NEXT: "in_registers": true,

//--- outputs.mlir
// Which results a cluster stores.
module attributes {teq.target = #teq.target<sm_90>} {
  // An intermediate that is returned: stored into its result buffer by the
  // one kernel.
  func.func @returned(%h: tensor<64x512xbf16>) -> (tensor<64x512xbf16>, tensor<64x512xbf16>) {
    %a = math.tanh %h : tensor<64x512xbf16>
    %b = arith.mulf %a, %a : tensor<64x512xbf16>
    return %a, %b : tensor<64x512xbf16>, tensor<64x512xbf16>
  }
  // A cluster value a quantize reads after the cluster: stored in the
  // workspace by the same kernel (the one above), then quantized.
  func.func @quantized(%h: tensor<64x512xbf16>) -> (tensor<64x512xbf16>, !teq.proto<64x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>) {
    %a = math.tanh %h : tensor<64x512xbf16>
    %b = arith.mulf %a, %a : tensor<64x512xbf16>
    %q = teq.quantize %a : tensor<64x512xbf16> -> !teq.proto<64x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    return %b, %q : tensor<64x512xbf16>, !teq.proto<64x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  }
  // The quantize reads %a before %tt: %tt cannot join the first cluster
  // (its kernel would run after the quantize). The f32 tanh %t that %tt
  // reads is recomputed from h in the second kernel rather than stored:
  // the workspace holds only %a.
  func.func @recomputed(%h: tensor<64x512xbf16>) -> (!teq.proto<64x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, tensor<64x512xbf16>) {
    %e = arith.extf %h : tensor<64x512xbf16> to tensor<64x512xf32>
    %t = math.tanh %e : tensor<64x512xf32>
    %a = arith.truncf %t : tensor<64x512xf32> to tensor<64x512xbf16>
    %q = teq.quantize %a : tensor<64x512xbf16> -> !teq.proto<64x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    %tt = arith.mulf %t, %t : tensor<64x512xf32>
    %d = arith.truncf %tt : tensor<64x512xf32> to tensor<64x512xbf16>
    return %q, %d : !teq.proto<64x512xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>, tensor<64x512xbf16>
  }
}

// OUT-LABEL: gpu.func @e0_tanh_mulf(
// OUT-SAME: %[[H:[^:]*]]: memref<32768xbf16>, %[[A:[^:]*]]: memref<32768xbf16>, %[[B:[^:]*]]: memref<32768xbf16>)
// OUT: scf.for
// OUT: %[[AB:.*]] = arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// OUT-NEXT: %[[AF:.*]] = arith.extf %[[AB]]
// OUT-NEXT: %[[BF:.*]] = arith.mulf %[[AF]], %[[AF]] : vector<8xf32>
// OUT-NEXT: %[[BB:.*]] = arith.truncf %[[BF]]
// OUT-NEXT: vector.store %[[AB]], %[[A]]
// OUT-NEXT: vector.store %[[BB]], %[[B]]
// OUT-LABEL: gpu.func @e2_extf_tanh_truncf(
// OUT-SAME: %{{[^:]*}}: memref<32768xbf16>, %{{[^:]*}}: memref<32768xbf16>)
// The second kernel of @recomputed reads h only and computes tanh again.
// OUT-LABEL: gpu.func @e3_extf_tanh_mulf_truncf(
// OUT-SAME: %{{[^:]*}}: memref<32768xbf16>, %{{[^:]*}}: memref<32768xbf16>)
// OUT: llvm.intr.fma
// OUT-LABEL: func.func @returned(
// OUT-SAME: %[[RH:[^:]*]]: memref<32768xbf16>, %[[RA:[^:]*]]: memref<32768xbf16>, %[[RB:[^:]*]]: memref<32768xbf16>) attributes
// OUT-NEXT: gpu.wait async
// OUT: gpu.launch_func async {{.*}} @teq_kernels::@e0_tanh_mulf {{.*}} args(%[[RH]] : memref<32768xbf16>, %[[RA]] : memref<32768xbf16>, %[[RB]] : memref<32768xbf16>)
// OUT-NOT: gpu.launch_func
// OUT-LABEL: func.func @quantized(
// OUT-SAME: %[[QH:[^:]*]]: memref<32768xbf16>, %[[QB:[^:]*]]: memref<32768xbf16>, %{{[^:]*}}: memref<32768xi8>, %{{[^:]*}}: memref<1xf32>, %[[QW:[^:]*]]: memref<65536xi8>)
// OUT: %[[QA:.*]] = memref.view %[[QW]]
// OUT: gpu.launch_func async {{.*}} @teq_kernels::@e0_tanh_mulf {{.*}} args(%[[QH]] : memref<32768xbf16>, %[[QA]] : memref<32768xbf16>, %[[QB]] : memref<32768xbf16>)
// OUT: gpu.launch_func async {{.*}} @teq_kernels::@q1_amax {{.*}} args(%[[QA]] : memref<32768xbf16>)
// OUT: gpu.launch_func async {{.*}} @teq_kernels::@q1_cast
// %a dies at the quantization, before the last kernel writes the result %d:
// it lives in %d's bytes (the entry takes them as i8), and there is no
// workspace.
// OUT-LABEL: func.func @recomputed(
// OUT-SAME: %[[CH:[^:]*]]: memref<32768xbf16>, %{{[^:]*}}: memref<32768xi8>, %{{[^:]*}}: memref<1xf32>, %[[CDB:[^:]*]]: memref<65536xi8>)
// OUT: %[[CD:.*]] = memref.view %[[CDB]][%{{.*}}][] : memref<65536xi8> to memref<32768xbf16>
// OUT: %[[CA:.*]] = memref.view %[[CDB]][%{{.*}}][] : memref<65536xi8> to memref<32768xbf16>
// OUT-NOT: memref.view
// OUT: gpu.launch_func async {{.*}} @teq_kernels::@e2_extf_tanh_truncf {{.*}} args(%[[CH]] : memref<32768xbf16>, %[[CA]] : memref<32768xbf16>)
// OUT: gpu.launch_func async {{.*}} @teq_kernels::@q1_amax
// OUT: gpu.launch_func async {{.*}} @teq_kernels::@q1_cast
// OUT: gpu.launch_func async {{.*}} @teq_kernels::@e3_extf_tanh_mulf_truncf {{.*}} args(%[[CH]] : memref<32768xbf16>, %[[CD]] : memref<32768xbf16>)

// @recomputed: the f32 values live in registers; %a (t2) in the bytes of
// result1 (%d), not yet written while %a lives.
// OUT-MANIFEST: "name": "recomputed",
// OUT-MANIFEST: "temporaries": [
// OUT-MANIFEST: "op": "arith.extf"
// OUT-MANIFEST-NEXT: },
// OUT-MANIFEST-NEXT: "in_registers": true,
// OUT-MANIFEST-NEXT: "kind": "temporary",
// OUT-MANIFEST-NEXT: "name": "t0",
// OUT-MANIFEST: "op": "math.tanh"
// OUT-MANIFEST-NEXT: },
// OUT-MANIFEST-NEXT: "in_registers": true,
// OUT-MANIFEST-NEXT: "kind": "temporary",
// OUT-MANIFEST-NEXT: "name": "t1",
// OUT-MANIFEST: "op": "arith.truncf"
// OUT-MANIFEST-NEXT: },
// OUT-MANIFEST-NEXT: "kind": "temporary",
// OUT-MANIFEST-NEXT: "name": "t2",
// OUT-MANIFEST-NEXT: "placement": [
// OUT-MANIFEST-NEXT: {
// OUT-MANIFEST-NEXT: "buffer": 0,
// OUT-MANIFEST-NEXT: "in": "output",
// OUT-MANIFEST-NEXT: "offset": 0,
// OUT-MANIFEST-NEXT: "output": "result1"
// The workspace holds only the quantization's [scale, scale_inv], which the
// first kernel computes with %a (amax-fusion.mlir).
// OUT-MANIFEST: "workspace_bytes": 256

//--- mlp.mlir
// fc1 -> tanh -> fc2, forward and backward, through te-compile's pipeline:
// the tanh is one kernel, its backward another (it was three).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @mlp(%x: tensor<64x128xbf16>, %w1: tensor<256x128xbf16>, %w2: tensor<128x256xbf16>, %dy: tensor<64x128xbf16>)
      -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<128x256xbf16>) {
    %r0, %r1, %r2, %r3 = teq.autocast recipe(#teq.float8_current_scaling<>) -> tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<128x256xbf16> {
      %h, %s1x, %s1w = teq.linear_forward %x, %w1 config(#teq.linear<name = "fc1">)
          : tensor<64x128xbf16>, tensor<256x128xbf16> -> tensor<64x256xbf16> saved_input(tensor<64x128xbf16>) saved_weight(tensor<256x128xbf16>)
      %a = math.tanh %h : tensor<64x256xbf16>
      %o, %s2x, %s2w = teq.linear_forward %a, %w2 config(#teq.linear<name = "fc2">)
          : tensor<64x256xbf16>, tensor<128x256xbf16> -> tensor<64x128xbf16> saved_input(tensor<64x256xbf16>) saved_weight(tensor<128x256xbf16>)
      %da, %gw2 = teq.linear_backward %dy, %s2x, %s2w config(#teq.linear<name = "fc2">)
          : tensor<64x128xbf16>, tensor<64x256xbf16>, tensor<128x256xbf16> dgrad(tensor<64x256xbf16>) wgrad(tensor<128x256xbf16>)
      %p = arith.mulf %da, %a : tensor<64x256xbf16>
      %q = arith.mulf %p, %a : tensor<64x256xbf16>
      %dh = arith.subf %da, %q : tensor<64x256xbf16>
      %gx, %gw1 = teq.linear_backward %dh, %s1x, %s1w config(#teq.linear<name = "fc1">)
          : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16> dgrad(tensor<64x128xbf16>) wgrad(tensor<256x128xbf16>)
      teq.yield %o, %gx, %gw1, %gw2 : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<128x256xbf16>
    }
    return %r0, %r1, %r2, %r3 : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<128x256xbf16>
  }
}

// MLP-LABEL: func.func @mlp(
// MLP: gpu.launch_func async {{.*}} @teq_kernels::@[[TANH:e[0-9]+_tanh]] blocks
// MLP: call @teqGemm
// MLP: call @teqGemm
// MLP: gpu.launch_func async {{.*}} @teq_kernels::@[[BWD:e[0-9]+_mulf_mulf_subf]] blocks
// MLP-NOT: @teq_kernels::@e{{[0-9]+}}_
// MLP: call @teqGemm

//--- contract.mlir
// An f32 product and sum in one kernel stay two roundings, as in two
// kernels: the PTX says .rn (which ptxas does not fuse), no fma; also when
// the ops allow contraction (fast-math flags are dropped in fused kernels).
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @muladd(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>, %z: tensor<64x64xf32>) -> tensor<64x64xf32> {
    %m = arith.mulf %x, %y : tensor<64x64xf32>
    %s = arith.addf %m, %z : tensor<64x64xf32>
    return %s : tensor<64x64xf32>
  }
  func.func @muladd_contract(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>, %z: tensor<64x64xf32>) -> tensor<64x64xf32> {
    %m = arith.mulf %x, %y fastmath<contract> : tensor<64x64xf32>
    %s = arith.addf %m, %z fastmath<fast> : tensor<64x64xf32>
    return %s : tensor<64x64xf32>
  }
}

// PTX-LABEL: .entry e0_mulf_addf(
// PTX-NOT: fma
// PTX: mul.rn.f32
// PTX-NOT: fma
// PTX: add.rn.f32
// PTX-NOT: fma
// PTX: ret;
// Without its flags the contracting pair is the same kernel, emitted once.
// PTX-NOT: .entry

//--- constants.mlir
// A splat constant that is stored (returned, or read by a quantization) is
// filled into its buffer by a kernel of its own; elementwise ops still read
// it as a scalar. (Refused before: "a tensor constant lowers only as an
// operand of elementwise arith/math ops"; also what a returned arith op that
// the canonicalizer folds into a constant became.)
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @returned_constant(%x: tensor<64x64xbf16>) -> (tensor<64x64xbf16>, tensor<64x64xbf16>) {
    %c = arith.constant dense<1.5> : tensor<64x64xbf16>
    %y = arith.mulf %x, %c : tensor<64x64xbf16>
    return %c, %y : tensor<64x64xbf16>, tensor<64x64xbf16>
  }
  func.func @quantized_constant() -> !teq.proto<64x64xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise> {
    %c = arith.constant dense<1.0> : tensor<64x64xbf16>
    %q = teq.quantize %c : tensor<64x64xbf16> -> !teq.proto<64x64xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
    return %q : !teq.proto<64x64xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise>
  }
  // arith.mulf of two constants folds into one (canonicalizer), which is
  // returned: it compiles like a returned constant.
  func.func @folded(%x: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
    %a = arith.constant dense<2.0> : tensor<64x64xbf16>
    %b = arith.constant dense<3.0> : tensor<64x64xbf16>
    %y = arith.mulf %a, %b : tensor<64x64xbf16>
    return %y : tensor<64x64xbf16>
  }
}
// CONST-LABEL: gpu.func @e0_constant(
// CONST-SAME: %[[FILLED:[^:]*]]: memref<4096xbf16>)
// CONST: %[[V:.*]] = arith.constant dense<1.500000e+00> : vector<8xf32>
// CONST-NEXT: %[[B:.*]] = arith.truncf %[[V]] : vector<8xf32> to vector<8xbf16>
// CONST-NEXT: vector.store %[[B]], %[[FILLED]]
// The product reads the constant as a scalar, not from the filled buffer.
// CONST-LABEL: gpu.func @e1_mulf(
// CONST-SAME: %{{[^:]*}}: memref<4096xbf16>, %{{[^:]*}}: memref<4096xbf16>)
// CONST: arith.constant dense<1.500000e+00> : vector<8xf32>
// CONST-LABEL: gpu.func @e2_constant(
// CONST: func.func @returned_constant(
// CONST: gpu.launch_func async [%{{.*}}] @teq_kernels::@e0_constant
// CONST: gpu.launch_func async [%{{.*}}] @teq_kernels::@e1_mulf
// CONST: func.func @quantized_constant(
// CONST: gpu.launch_func async [%{{.*}}] @teq_kernels::@e2_constant
// CONST: gpu.launch_func async [%{{.*}}] @teq_kernels::@q{{[0-9]+}}_amax
// The manifest: a stored constant is computed by "constant" (te-run --check
// compares every byte with its value).
// CONST-MANIFEST: "op": "constant",
// CONST-MANIFEST-NEXT: "value": 1.5
// CONST-MANIFEST: "op": "constant",
// CONST-MANIFEST-NEXT: "value": 1
// CONST-MANIFEST: "op": "constant",
// CONST-MANIFEST-NEXT: "value": 6

//--- errors.mlir
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @not_splat(%x: tensor<2x2xbf16>) -> tensor<2x2xbf16> {
    // ERR: errors.mlir:[[# @LINE + 1]]:10: error: 'arith.constant' op is a tensor constant that is not a splat of a bf16, f16 or f32 value; only splats lower (into the elementwise kernels that read them): pass other constant tensors as entry arguments
    %c = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xbf16>
    %y = arith.addf %x, %c : tensor<2x2xbf16>
    return %y : tensor<2x2xbf16>
  }
}
// -----
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @infinite(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
    // ERR: errors.mlir:[[# @LINE + 1]]:10: error: 'arith.constant' op is a splat of a non-finite value, which has no GPU lowering yet (the manifest describes constants by a finite value)
    %c = arith.constant dense<0x7F800000> : tensor<64x64xf32>
    %y = arith.minimumf %x, %c : tensor<64x64xf32>
    return %y : tensor<64x64xf32>
  }
}

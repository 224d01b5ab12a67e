// The NVFP4 GEMM's alpha (te-semantics.md §6.2) as convert-teq-to-gpu emits
// it (Kernels/NVFP4Amax, emitNVFP4GemmAlpha): the operands' global scales
// fold into alpha = amax_A * amax_B / (6 * 6 * 448 * 448), computed on the
// device by one thread of one block into the op's scratch just before the
// teqGemm call that reads it (its last argument). Two GEMMs of the same
// problem share the one alpha kernel and the one GEMM plan, each with its
// own operands' amaxes and its own alpha scalar; each GEMM keeps its own id
// and name in the manifest, the second naming the first's plan
// ("shares_plan_of").
// RUN: te-opt %s --convert-teq-to-gpu | FileCheck %s
// RUN: te-compile %s --emit=manifest | FileCheck %s --check-prefix=MANIFEST

module attributes {teq.target = #teq.target<sm_100>} {
  func.func @two(%w: !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise, gemm_swizzled>, %x: !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>, %x2: !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled>) -> (tensor<64x256xbf16>, tensor<64x256xbf16>) {
    %y = teq.gemm TN %w, %x {kind = #teq.gemm_kind<fprop>} : !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise, gemm_swizzled>, !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled> -> tensor<64x256xbf16>
    %z = teq.gemm TN %w, %x2 {kind = #teq.gemm_kind<fprop>} : !teq.proto<256x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN, with_2d_quantization = true>, rowwise, gemm_swizzled>, !teq.proto<64x128xbf16, #teq.nvfp4_quantizer<f4E2M1FN>, rowwise, gemm_swizzled> -> tensor<64x256xbf16>
    return %y, %z : tensor<64x256xbf16>, tensor<64x256xbf16>
  }
}

// One kernel: thread 0 reads both amaxes, multiplies, divides by
// 6 * 6 * 448 * 448 = 7225344 (0x4ADC8000), stores alpha.
// CHECK-LABEL: gpu.module @teq_kernels [#nvvm.target<chip = "sm_100"
// CHECK-NEXT: gpu.func @g0_alpha(%[[A:[^:]*]]: memref<1xf32>, %[[B:[^:]*]]: memref<1xf32>, %[[ALPHA:[^:]*]]: memref<1xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[T:.*]] = gpu.thread_id  x
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %[[C0]] : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: %[[AA:.*]] = memref.load %[[A]][%[[C0]]] : memref<1xf32>
// CHECK-NEXT: %[[AB:.*]] = memref.load %[[B]][%[[C0]]] : memref<1xf32>
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[AA]], %[[AB]] : f32
// CHECK-NEXT: %[[D:.*]] = arith.constant 0x4ADC8000 : f32
// CHECK-NEXT: %[[R:.*]] = arith.divf %[[P]], %[[D]] : f32
// CHECK-NEXT: memref.store %[[R]], %[[ALPHA]][%[[C0]]] : memref<1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
// CHECK-NEXT: }
// CHECK-NEXT: }

// Buffers: W's data, scales, amax; x's; x2's; result 0; result 1 (as bytes:
// it hosts the first GEMM's alpha until the second GEMM writes it); the
// workspace (the second alpha).
// CHECK-LABEL: func.func @two(
// CHECK-SAME: %[[WD:[^:]*]]: memref<16384xi8>, %[[WS:[^:]*]]: memref<2048xi8>, %[[WAMAX:[^:]*]]: memref<1xf32>,
// CHECK-SAME: %[[XD:[^:]*]]: memref<4096xi8>, %[[XS:[^:]*]]: memref<1024xi8>, %[[XAMAX:[^:]*]]: memref<1xf32>,
// CHECK-SAME: %[[X2D:[^:]*]]: memref<4096xi8>, %[[X2S:[^:]*]]: memref<1024xi8>, %[[X2AMAX:[^:]*]]: memref<1xf32>,
// CHECK-SAME: %[[Y:[^:]*]]: memref<16384xbf16>, %[[ZB:[^:]*]]: memref<32768xi8>, %[[WORK:[^:]*]]: memref<256xi8>) attributes {teq.entry}
// CHECK-DAG: %[[Z:.*]] = memref.view %[[ZB]][%{{.*}}][] : memref<32768xi8> to memref<16384xbf16>
// CHECK-DAG: %[[ALPHA0:.*]] = memref.view %[[ZB]][%{{.*}}][] : memref<32768xi8> to memref<1xf32>
// CHECK-DAG: %[[ALPHA1:.*]] = memref.view %[[WORK]][%{{.*}}][] : memref<256xi8> to memref<1xf32>
// One block of 256 threads; then the GEMM (plan 0) with alpha's pointer last.
// CHECK: gpu.launch_func async [%{{.*}}] @teq_kernels::@g0_alpha blocks in (%c1{{[_0-9]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}}) threads in (%c256, %c1{{[_0-9]*}}, %c1{{[_0-9]*}})  args(%[[WAMAX]] : memref<1xf32>, %[[XAMAX]] : memref<1xf32>, %[[ALPHA0]] : memref<1xf32>)
// CHECK-NOT: gpu.launch_func
// CHECK: memref.extract_aligned_pointer_as_index %[[WD]]
// CHECK: memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK: %[[P0:.*]] = memref.extract_aligned_pointer_as_index %[[ALPHA0]]
// CHECK-NEXT: %[[I0:.*]] = arith.index_cast %[[P0]] : index to i64
// CHECK-NEXT: call @teqGemm(%c0_i64, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[I0]]) : (i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
// The second GEMM: the same kernel, x2's amax, its own alpha, its own id.
// CHECK-NOT: call
// CHECK: gpu.launch_func async [%{{.*}}] @teq_kernels::@g0_alpha blocks in (%c1{{[_0-9]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}}) threads in (%c256{{[_0-9]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}})  args(%[[WAMAX]] : memref<1xf32>, %[[X2AMAX]] : memref<1xf32>, %[[ALPHA1]] : memref<1xf32>)
// CHECK-NEXT: %[[ID1:.*]] = arith.constant 1 : i64
// CHECK: memref.extract_aligned_pointer_as_index %[[X2D]]
// CHECK: memref.extract_aligned_pointer_as_index %[[Z]]
// CHECK: %[[P1:.*]] = memref.extract_aligned_pointer_as_index %[[ALPHA1]]
// CHECK-NEXT: %[[I1:.*]] = arith.index_cast %[[P1]] : index to i64
// CHECK-NEXT: call @teqGemm(%[[ID1]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[I1]])
// CHECK-NOT: gpu.launch_func
// CHECK: func.func private @teqGemm(i64, i64, i64, i64, i64, i64, i64, i64, i64)

// MANIFEST: "gemms": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "a_scale_mode": "vec16_ue4m3",
// MANIFEST-NEXT: "a_type": "e2m1",
// MANIFEST-NEXT: "accumulate": false,
// MANIFEST-NEXT: "alpha": "device",
// MANIFEST: "id": 0,
// MANIFEST: "name": "two:fprop0",
// MANIFEST-NOT: "shares_plan_of"
// MANIFEST: }
// MANIFEST-NEXT: {
// MANIFEST: "id": 1,
// MANIFEST: "name": "two:fprop1",
// MANIFEST: "shares_plan_of": 0,
// MANIFEST: }
// MANIFEST-NEXT: ],

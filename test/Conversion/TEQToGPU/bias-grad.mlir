// teq.bias_grad (TE's dbias: the column sums of grad_output) as
// convert-teq-to-gpu emits it (Kernels/BiasGrad): two kernels through the
// op's scratch, row chunks' partial sums into an f32 [chunks x cols] buffer,
// then each column's partials added in chunk order (the same bits every
// run); the grids, the chunk count and rows per chunk, the f32 accumulation
// and the casts; two identical ops share one pair of kernels.
// RUN: split-file %s %t
// RUN: te-opt %t/bf16-shared.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=BF16
// RUN: te-opt %t/f32.mlir --convert-teq-to-gpu | FileCheck %s --check-prefix=F32

//--- bf16-shared.mlir
// 100x300 bf16: 2 column blocks of 256, chunks = clamp(ceil(528 / 2), 1,
// min(100, 64)) = 64 of ceil(100 / 64) = 2 rows; the scratch is 64 x 300 f32.
// The two ops are the same problem: one b0 pair, launched twice, each time
// on its own op's scratch and writing its own result.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @bgrad(%dy: tensor<100x300xbf16>) -> (tensor<300xbf16>, tensor<300xbf16>) {
    %b = teq.bias_grad %dy : tensor<100x300xbf16> -> tensor<300xbf16>
    %c = teq.bias_grad %dy : tensor<100x300xbf16> -> tensor<300xbf16>
    return %b, %c : tensor<300xbf16>, tensor<300xbf16>
  }
}

// BF16: computed_by\22:{\22input\22:\22arg0\22,\22op\22:\22bias_grad\22}
// BF16-SAME: workspace_bytes\22:76800}

// Pass 1: block (x, y), thread t: column x * 256 + t, rows [2y, min(2y + 2,
// 100)), summed in f32, stored at partials[y * 300 + column].
// BF16-LABEL: gpu.func @b0_bgrad_partial(
// BF16-SAME: %[[DY:[^:]*]]: memref<30000xbf16>, %[[PART:[^:]*]]: memref<19200xf32>) kernel
// BF16-SAME: known_block_size = array<i32: 256, 1, 1>
// BF16-DAG: %[[C100:.*]] = arith.constant 100 : index
// BF16-DAG: %[[C300:.*]] = arith.constant 300 : index
// BF16-DAG: %[[C2:.*]] = arith.constant 2 : index
// BF16-DAG: %[[TX:.*]] = gpu.thread_id  x
// BF16-DAG: %[[BX:.*]] = gpu.block_id  x
// BF16-DAG: %[[BY:.*]] = gpu.block_id  y
// BF16: %[[FIRST:.*]] = arith.muli %[[BX]], %c256 : index
// BF16-NEXT: %[[COL:.*]] = arith.addi %[[FIRST]], %[[TX]] : index
// BF16-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[COL]], %[[C300]] : index
// BF16-NEXT: scf.if %[[IN]] {
// BF16-NEXT: %[[BEGIN:.*]] = arith.muli %[[BY]], %[[C2]] : index
// BF16-NEXT: %[[NEXT:.*]] = arith.addi %[[BEGIN]], %[[C2]] : index
// BF16-NEXT: %[[END:.*]] = arith.minui %[[NEXT]], %[[C100]] : index
// BF16-NEXT: %[[SUM:.*]] = scf.for %[[R:.*]] = %[[BEGIN]] to %[[END]] step %c1 iter_args(%[[ACC:.*]] = %cst) -> (f32) {
// BF16-NEXT: %[[ROW:.*]] = arith.muli %[[R]], %[[C300]] : index
// BF16-NEXT: %[[AT:.*]] = arith.addi %[[ROW]], %[[COL]] : index
// BF16-NEXT: %[[V:.*]] = memref.load %[[DY]][%[[AT]]] : memref<30000xbf16>
// BF16-NEXT: %[[VF:.*]] = arith.extf %[[V]] : bf16 to f32
// BF16-NEXT: %[[ADD:.*]] = arith.addf %[[ACC]], %[[VF]] : f32
// BF16-NEXT: scf.yield %[[ADD]] : f32
// BF16-NEXT: }
// BF16-NEXT: %[[CHUNK:.*]] = arith.muli %[[BY]], %[[C300]] : index
// BF16-NEXT: %[[PAT:.*]] = arith.addi %[[CHUNK]], %[[COL]] : index
// BF16-NEXT: memref.store %[[SUM]], %[[PART]][%[[PAT]]] : memref<19200xf32>
// BF16-NEXT: }
// BF16-NEXT: gpu.return

// Pass 2: one thread a column adds partials 0..63 in order (eight loads in
// flight, then their adds in chunk order; no rest here), then one rounding
// to bf16.
// BF16-LABEL: gpu.func @b0_bgrad_final(
// BF16-SAME: %[[FPART:[^:]*]]: memref<19200xf32>, %[[BIAS:[^:]*]]: memref<300xbf16>) kernel
// BF16-SAME: known_block_size = array<i32: 256, 1, 1>
// BF16-DAG: %[[FC0:.*]] = arith.constant 0 : index
// BF16-DAG: %[[FC300:.*]] = arith.constant 300 : index
// BF16: %[[FCOL:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// BF16-NEXT: %[[FIN:.*]] = arith.cmpi ult, %[[FCOL]], %[[FC300]] : index
// BF16-NEXT: scf.if %[[FIN]] {
// BF16: %[[HEAD:.*]] = scf.for %[[C:.*]] = %[[FC0]] to %c64{{[_0-9]*}} step %c8 iter_args(%[[FACC:.*]] = %cst) -> (f32) {
// BF16-COUNT-8: memref.load %[[FPART]]
// BF16-NEXT: %[[A0:.*]] = arith.addf %[[FACC]], %{{.*}} : f32
// BF16-NEXT: %[[A1:.*]] = arith.addf %[[A0]], %{{.*}} : f32
// BF16-COUNT-6: arith.addf
// BF16: scf.yield
// BF16: %[[TOTAL:.*]] = scf.for %{{.*}} = %c64{{[_0-9]*}} to %c64{{[_0-9]*}} step %c1{{[_0-9]*}} iter_args(%{{.*}} = %[[HEAD]]) -> (f32) {
// BF16: %[[T:.*]] = arith.truncf %[[TOTAL]] : f32 to bf16
// BF16-NEXT: memref.store %[[T]], %[[BIAS]][%[[FCOL]]] : memref<300xbf16>
// BF16-NOT: gpu.func

// Grids (2, 64) then (2, 1), 256 threads; partial then final, per op.
// BF16-LABEL: func.func @bgrad(
// BF16-SAME: %[[X:[^:]*]]: memref<30000xbf16>, %[[B0:[^:]*]]: memref<300xbf16>, %[[B1:[^:]*]]: memref<300xbf16>, %[[WS:[^:]*]]: memref<76800xi8>) attributes {teq.entry}
// BF16: %[[S0:.*]] = memref.view %[[WS]][%{{.*}}][] : memref<76800xi8> to memref<19200xf32>
// BF16: %[[S1:.*]] = memref.view %[[WS]][%{{.*}}][] : memref<76800xi8> to memref<19200xf32>
// BF16: gpu.launch_func async [%{{.*}}] @teq_kernels::@b0_bgrad_partial blocks in (%c2, %c64, %c1{{[_0-9]*}}) threads in (%c256, %c1{{[_0-9]*}}, %c1{{[_0-9]*}})  args(%[[X]] : memref<30000xbf16>, %[[S0]] : memref<19200xf32>)
// BF16: gpu.launch_func async [%{{.*}}] @teq_kernels::@b0_bgrad_final blocks in (%c2{{[_0-9]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}}) threads in (%c256{{[_0-9]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}})  args(%[[S0]] : memref<19200xf32>, %[[B0]] : memref<300xbf16>)
// BF16: gpu.launch_func async [%{{.*}}] @teq_kernels::@b0_bgrad_partial blocks in (%c2{{[_0-9]*}}, %c64{{[_0-9]*}}, %c1{{[_0-9]*}})
// BF16-SAME: args(%[[X]] : memref<30000xbf16>, %[[S1]] : memref<19200xf32>)
// BF16: gpu.launch_func async [%{{.*}}] @teq_kernels::@b0_bgrad_final
// BF16-SAME: args(%[[S1]] : memref<19200xf32>, %[[B1]] : memref<300xbf16>)
// BF16-NOT: gpu.launch_func

//--- f32.mlir
// 1024x4096 f32: 16 column blocks, chunks = ceil(528 / 16) = 33 of
// ceil(1024 / 33) = 32 rows; no extf, no truncf.
module attributes {teq.target = #teq.target<sm_90>} {
  func.func @bgrad_f32(%dy: tensor<1024x4096xf32>) -> tensor<4096xf32> {
    %b = teq.bias_grad %dy : tensor<1024x4096xf32> -> tensor<4096xf32>
    return %b : tensor<4096xf32>
  }
}

// F32-LABEL: gpu.func @b0_bgrad_partial(
// F32-SAME: memref<4194304xf32>, %{{[^:]*}}: memref<135168xf32>)
// F32-DAG: %[[C32:.*]] = arith.constant 32 : index
// F32-DAG: %[[C1024:.*]] = arith.constant 1024 : index
// F32: %[[BEGIN:.*]] = arith.muli %{{.*}}, %[[C32]] : index
// F32-NEXT: %[[NEXT:.*]] = arith.addi %[[BEGIN]], %[[C32]] : index
// F32-NEXT: arith.minui %[[NEXT]], %[[C1024]] : index
// F32-NOT: arith.extf
// F32: memref.store {{.*}} : memref<135168xf32>
// F32-LABEL: gpu.func @b0_bgrad_final(
// F32-SAME: memref<135168xf32>, %[[BIAS:[^:]*]]: memref<4096xf32>)
// F32: scf.for %{{.*}} = %c0 to %c32 step %c8
// F32: scf.for %{{.*}} = %c32{{[_0-9]*}} to %c33 step
// F32-NOT: arith.truncf
// F32: memref.store %{{.*}}, %[[BIAS]]
// F32-LABEL: func.func @bgrad_f32(
// F32: gpu.launch_func async {{.*}} @teq_kernels::@b0_bgrad_partial blocks in (%c16, %c33, %c1{{[_0-9]*}}) threads in (%c256,
// F32: gpu.launch_func async {{.*}} @teq_kernels::@b0_bgrad_final blocks in (%c16{{[_0-9]*}}, %c1{{[_0-9]*}}, %c1{{[_0-9]*}}) threads in (%c256

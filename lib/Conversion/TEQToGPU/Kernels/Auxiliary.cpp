//===- Auxiliary.cpp - Kernels that move bytes: copies, slices, swizzles -===//

#include "Auxiliary.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::teq::kernels;

namespace {
constexpr int64_t kBlock = 256;
} // namespace

KernelLaunch mlir::teq::kernels::emitScaleSwizzle(
    ImplicitLocOpBuilder &b, gpu::GPUModuleOp module, StringRef name,
    const ScaleSwizzleSpec &spec, Value compact, Value swizzled) {
  const int64_t bytes = spec.rows * spec.cols;
  KernelLaunch launch;
  launch.kernel = name.str();
  launch.blockX = kBlock;
  launch.gridX = blocksFor(bytes, kBlock);
  launch.args = {compact, swizzled};

  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel = createKernel(b, module, name, launch.args, kBlock);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  Value src = body->getArgument(0), dst = body->getArgument(1);
  // One byte per thread, read in order (coalesced); the writes scatter
  // within 512-byte tiles.
  GridStride stride = gridStride1D(b, kBlock);
  Value end = arith::ConstantIndexOp::create(b, bytes);
  Value cols = arith::ConstantIndexOp::create(b, spec.cols);
  auto loop = scf::ForOp::create(b, stride.start, end, stride.step);
  b.setInsertionPointToStart(loop.getBody());
  Value at = loop.getInductionVar();
  Value i = arith::DivUIOp::create(b, at, cols);
  Value j = arith::RemUIOp::create(b, at, cols);
  Value to = spec.transposed
                 ? gemmSwizzledScaleIndex(b, j, i, spec.rows / 4)
                 : gemmSwizzledScaleIndex(b, i, j, spec.cols / 4);
  Value scale = memref::LoadOp::create(b, src, ValueRange{at});
  memref::StoreOp::create(b, scale, dst, ValueRange{to});
  b.setInsertionPointToEnd(body);
  gpu::ReturnOp::create(b);
  return launch;
}

KernelLaunch mlir::teq::kernels::emitSlice(ImplicitLocOpBuilder &b,
                                           gpu::GPUModuleOp module,
                                           StringRef name,
                                           const SliceSpec &spec, Value full,
                                           Value part) {
  const int64_t elements = cast<MemRefType>(part.getType()).getNumElements();
  KernelLaunch launch;
  launch.kernel = name.str();
  launch.blockX = kBlock;
  launch.gridX = blocksFor(elements, kBlock, /*maxBlocks=*/1024);
  launch.args = {full, part};

  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel = createKernel(b, module, name, launch.args, kBlock);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  Value fullArg = body->getArgument(0), partArg = body->getArgument(1);
  GridStride stride = gridStride1D(b, kBlock);
  Value end = constantIndex(b, elements);
  forLoop(b, stride.start, end, stride.step, [&](Value i) {
    // Element i of the slice (row-major over `sizes`) is element
    //   sum_d (offsets[d] + idx_d * strides[d]) * fullStride[d]
    // of the full tensor; dimensions peel off from the innermost.
    Value rest = i;
    Value at = constantIndex(b, 0);
    int64_t fullStride = 1;
    for (size_t d = spec.sizes.size(); d-- > 0;) {
      Value size = constantIndex(b, spec.sizes[d]);
      Value idx = arith::RemUIOp::create(b, rest, size);
      rest = arith::DivUIOp::create(b, rest, size);
      Value strided =
          arith::MulIOp::create(b, idx, constantIndex(b, spec.strides[d]));
      Value coordinate =
          arith::AddIOp::create(b, strided, constantIndex(b, spec.offsets[d]));
      Value term =
          arith::MulIOp::create(b, coordinate, constantIndex(b, fullStride));
      at = arith::AddIOp::create(b, at, term);
      fullStride *= spec.fullShape[d];
    }
    if (spec.scatter) {
      Value v = memref::LoadOp::create(b, partArg, ValueRange{i});
      memref::StoreOp::create(b, v, fullArg, ValueRange{at});
    } else {
      Value v = memref::LoadOp::create(b, fullArg, ValueRange{at});
      memref::StoreOp::create(b, v, partArg, ValueRange{i});
    }
  });
  gpu::ReturnOp::create(b);
  return launch;
}

KernelLaunch mlir::teq::kernels::emitTranspose(ImplicitLocOpBuilder &b,
                                               gpu::GPUModuleOp module,
                                               StringRef name, Value source,
                                               Value dest, int64_t rows,
                                               int64_t cols) {
  const int64_t elements = rows * cols;
  KernelLaunch launch;
  launch.kernel = name.str();
  launch.blockX = kBlock;
  launch.gridX = blocksFor(elements, kBlock, /*maxBlocks=*/1024);
  launch.args = {source, dest};

  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel = createKernel(b, module, name, launch.args, kBlock);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  GridStride stride = gridStride1D(b, kBlock);
  Value end = arith::ConstantIndexOp::create(b, elements);
  auto loop = scf::ForOp::create(b, stride.start, end, stride.step);
  b.setInsertionPointToStart(loop.getBody());
  // Consecutive threads read consecutive elements of a source row.
  Value at = loop.getInductionVar();
  Value colsValue = arith::ConstantIndexOp::create(b, cols);
  Value rowsValue = arith::ConstantIndexOp::create(b, rows);
  Value row = arith::DivUIOp::create(b, at, colsValue);
  Value col = arith::RemUIOp::create(b, at, colsValue);
  Value to = arith::AddIOp::create(
      b, arith::MulIOp::create(b, col, rowsValue), row);
  Value v = memref::LoadOp::create(b, body->getArgument(0), ValueRange{at});
  memref::StoreOp::create(b, v, body->getArgument(1), ValueRange{to});
  b.setInsertionPointToEnd(body);
  gpu::ReturnOp::create(b);
  return launch;
}

KernelLaunch mlir::teq::kernels::emitCopy(ImplicitLocOpBuilder &b,
                                          gpu::GPUModuleOp module,
                                          StringRef name, Value source,
                                          Value dest) {
  const int64_t elements = cast<MemRefType>(dest.getType()).getNumElements();
  KernelLaunch launch;
  launch.kernel = name.str();
  launch.blockX = kBlock;
  launch.gridX = blocksFor(elements, kBlock, /*maxBlocks=*/1024);
  launch.args = {source, dest};

  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel = createKernel(b, module, name, launch.args, kBlock);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  GridStride stride = gridStride1D(b, kBlock);
  Value end = arith::ConstantIndexOp::create(b, elements);
  auto loop = scf::ForOp::create(b, stride.start, end, stride.step);
  b.setInsertionPointToStart(loop.getBody());
  Value at = loop.getInductionVar();
  Value v = memref::LoadOp::create(b, body->getArgument(0), ValueRange{at});
  memref::StoreOp::create(b, v, body->getArgument(1), ValueRange{at});
  b.setInsertionPointToEnd(body);
  gpu::ReturnOp::create(b);
  return launch;
}

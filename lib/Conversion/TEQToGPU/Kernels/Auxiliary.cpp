//===- Auxiliary.cpp - Kernels that move bytes: copies, scale swizzles ----===//

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

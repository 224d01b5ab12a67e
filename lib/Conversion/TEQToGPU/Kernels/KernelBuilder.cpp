//===- KernelBuilder.cpp - Shared pieces of the kernel emitters -----------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::teq::kernels;

gpu::GPUFuncOp mlir::teq::kernels::createKernel(ImplicitLocOpBuilder &b,
                                                gpu::GPUModuleOp module,
                                                StringRef name,
                                                ValueRange args,
                                                int64_t blockX) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  auto kernel = gpu::GPUFuncOp::create(
      b, name, b.getFunctionType(TypeRange(args), {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(blockX), 1, 1}));
  return kernel;
}

GridStride mlir::teq::kernels::gridStride1D(ImplicitLocOpBuilder &b,
                                            int64_t blockX) {
  Value block = arith::ConstantIndexOp::create(b, blockX);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(b, gpu::Dimension::x);
  Value start = arith::AddIOp::create(
      b, arith::MulIOp::create(b, bid, block), tid);
  Value step = arith::MulIOp::create(b, grid, block);
  return {start, step};
}

int64_t mlir::teq::kernels::blocksFor(int64_t n, int64_t blockX,
                                      int64_t maxBlocks) {
  return std::clamp<int64_t>((n + blockX - 1) / blockX, 1, maxBlocks);
}

Value mlir::teq::kernels::gemmSwizzledScaleIndex(ImplicitLocOpBuilder &b,
                                                 Value i, Value j,
                                                 int64_t numTilesX) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, v);
  };
  // tile = (i / 128) * numTilesX + j / 4; the byte is at
  // tile * 512 + (i % 32) * 16 + ((i % 128) / 32) * 4 + j % 4.
  Value tile = arith::AddIOp::create(
      b, arith::MulIOp::create(b, arith::DivUIOp::create(b, i, c(128)),
                               c(numTilesX)),
      arith::DivUIOp::create(b, j, c(4)));
  Value rowInBand = arith::MulIOp::create(
      b, arith::RemUIOp::create(b, i, c(32)), c(16));
  Value quarter = arith::MulIOp::create(
      b, arith::DivUIOp::create(b, arith::RemUIOp::create(b, i, c(128)), c(32)),
      c(4));
  Value column = arith::RemUIOp::create(b, j, c(4));
  Value offset = arith::AddIOp::create(
      b, arith::AddIOp::create(b, rowInBand, quarter), column);
  return arith::AddIOp::create(b, arith::MulIOp::create(b, tile, c(512)),
                               offset);
}

//===- KernelBuilder.cpp - Shared pieces of the kernel emitters -----------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::teq::kernels;

InputType mlir::teq::kernels::inputTypeOf(Type element) {
  if (element.isF32())
    return InputType::F32;
  if (element.isF16())
    return InputType::F16;
  return InputType::BF16;
}

int64_t mlir::teq::kernels::bytesOf(InputType type) {
  return type == InputType::F32 ? 4 : 2;
}

Type mlir::teq::kernels::elementTypeOf(Builder &b, InputType type) {
  switch (type) {
  case InputType::F32:
    return b.getF32Type();
  case InputType::BF16:
    return b.getBF16Type();
  case InputType::F16:
    return b.getF16Type();
  }
  return b.getBF16Type();
}

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
  // tile = (i / 128) * numTilesX + j / 4; the byte is at
  // tile * 512 + (i % 32) * 16 + ((i % 128) / 32) * 4 + j % 4.
  // One op a statement: the order of the ops is the order of the PTX.
  Value band = arith::DivUIOp::create(b, i, constantIndex(b, 128));
  Value bandStart = arith::MulIOp::create(b, band, constantIndex(b, numTilesX));
  Value tileColumn = arith::DivUIOp::create(b, j, constantIndex(b, 4));
  Value tile = arith::AddIOp::create(b, bandStart, tileColumn);
  Value tileStart = arith::MulIOp::create(b, tile, constantIndex(b, 512));
  Value row32 = arith::RemUIOp::create(b, i, constantIndex(b, 32));
  Value rowOffset = arith::MulIOp::create(b, row32, constantIndex(b, 16));
  Value row128 = arith::RemUIOp::create(b, i, constantIndex(b, 128));
  Value quarter = arith::DivUIOp::create(b, row128, constantIndex(b, 32));
  Value quarterOffset = arith::MulIOp::create(b, quarter, constantIndex(b, 4));
  Value column = arith::RemUIOp::create(b, j, constantIndex(b, 4));
  Value sum0 = arith::AddIOp::create(b, tileStart, rowOffset);
  Value sum1 = arith::AddIOp::create(b, sum0, quarterOffset);
  return arith::AddIOp::create(b, sum1, column);
}

Value mlir::teq::kernels::scaleOffset(ImplicitLocOpBuilder &b, Value i,
                                      Value j, bool swizzled, int64_t cols,
                                      int64_t numTilesX) {
  if (swizzled)
    return gemmSwizzledScaleIndex(b, i, j, numTilesX);
  Value rowStart = arith::MulIOp::create(b, i, constantIndex(b, cols));
  return arith::AddIOp::create(b, rowStart, j);
}

Value mlir::teq::kernels::constantIndex(ImplicitLocOpBuilder &b,
                                        int64_t value) {
  return arith::ConstantIndexOp::create(b, value);
}

Value mlir::teq::kernels::constantI32(ImplicitLocOpBuilder &b, int32_t value) {
  return arith::ConstantIntOp::create(b, b.getI32Type(), value);
}

Value mlir::teq::kernels::constantF32(ImplicitLocOpBuilder &b, float value) {
  return arith::ConstantOp::create(b, b.getF32FloatAttr(value));
}

Value mlir::teq::kernels::addWorkgroupBuffer(gpu::GPUFuncOp kernel,
                                             Type element, int64_t size) {
  auto space = gpu::AddressSpaceAttr::get(kernel.getContext(),
                                          gpu::AddressSpace::Workgroup);
  return kernel.addWorkgroupAttribution(
      MemRefType::get({size}, element, MemRefLayoutAttrInterface(), space),
      kernel.getLoc());
}

memref::GlobalOp mlir::teq::kernels::addDeviceGlobal(
    ImplicitLocOpBuilder &b, gpu::GPUModuleOp module, StringRef name,
    Type element, int64_t size, bool zeroInit) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Global);
  auto type = MemRefType::get({size}, element, MemRefLayoutAttrInterface(),
                              space);
  Attribute init;
  if (zeroInit)
    init = DenseElementsAttr::get(
        RankedTensorType::get({size}, element),
        isa<FloatType>(element) ? Attribute(b.getFloatAttr(element, 0.0))
                                : Attribute(b.getIntegerAttr(element, 0)));
  return memref::GlobalOp::create(b, name, b.getStringAttr("private"), type,
                                  init, /*constant=*/false,
                                  /*alignment=*/IntegerAttr());
}

Value mlir::teq::kernels::getDeviceGlobal(ImplicitLocOpBuilder &b,
                                          memref::GlobalOp global) {
  return memref::GetGlobalOp::create(b, global.getType(), global.getSymName());
}

Value mlir::teq::kernels::loadVector(ImplicitLocOpBuilder &b, VectorType type,
                                     Value memref, Value offset) {
  return vector::LoadOp::create(b, type, memref, ValueRange{offset},
                                /*nontemporal=*/false, llvm::Align(16));
}

void mlir::teq::kernels::storeVector(ImplicitLocOpBuilder &b, Value vector,
                                     Value memref, Value offset) {
  vector::StoreOp::create(b, vector, memref, ValueRange{offset},
                          /*nontemporal=*/false, llvm::Align(16));
}

namespace {
/// Builds `body` at the end of `block` (before a terminator the op's
/// builder added) and ends the block with scf.yield of what it returns,
/// unless it already has one.
void buildYieldingBlock(ImplicitLocOpBuilder &b, Block *block,
                        llvm::function_ref<SmallVector<Value>()> body) {
  OpBuilder::InsertionGuard guard(b);
  bool terminated = !block->empty() && isa<scf::YieldOp>(block->back());
  if (terminated)
    b.setInsertionPoint(&block->back());
  else
    b.setInsertionPointToEnd(block);
  SmallVector<Value> results = body();
  if (!terminated)
    scf::YieldOp::create(b, results);
}
} // namespace

void mlir::teq::kernels::ifThen(ImplicitLocOpBuilder &b, Value cond,
                                llvm::function_ref<void()> then) {
  auto op = scf::IfOp::create(b, TypeRange{}, cond, /*withElseRegion=*/false);
  buildYieldingBlock(b, op.thenBlock(), [&] {
    then();
    return SmallVector<Value>{};
  });
}

void mlir::teq::kernels::ifThenElse(ImplicitLocOpBuilder &b, Value cond,
                                    llvm::function_ref<void()> then,
                                    llvm::function_ref<void()> otherwise) {
  auto op = scf::IfOp::create(b, TypeRange{}, cond, /*withElseRegion=*/true);
  buildYieldingBlock(b, op.thenBlock(), [&] {
    then();
    return SmallVector<Value>{};
  });
  buildYieldingBlock(b, op.elseBlock(), [&] {
    otherwise();
    return SmallVector<Value>{};
  });
}

Value mlir::teq::kernels::ifThenElse(ImplicitLocOpBuilder &b, Type type,
                                     Value cond,
                                     llvm::function_ref<Value()> then,
                                     llvm::function_ref<Value()> otherwise) {
  auto op = scf::IfOp::create(b, TypeRange{type}, cond,
                              /*withElseRegion=*/true);
  buildYieldingBlock(b, op.thenBlock(),
                     [&] { return SmallVector<Value>{then()}; });
  buildYieldingBlock(b, op.elseBlock(),
                     [&] { return SmallVector<Value>{otherwise()}; });
  return op.getResult(0);
}

void mlir::teq::kernels::forLoop(ImplicitLocOpBuilder &b, Value lb, Value ub,
                                 Value step,
                                 llvm::function_ref<void(Value iv)> body) {
  auto loop = scf::ForOp::create(b, lb, ub, step);
  buildYieldingBlock(b, loop.getBody(), [&] {
    body(loop.getInductionVar());
    return SmallVector<Value>{};
  });
}

Value mlir::teq::kernels::forLoop(
    ImplicitLocOpBuilder &b, Value lb, Value ub, Value step, Value init,
    llvm::function_ref<Value(Value iv, Value carried)> body) {
  auto loop = scf::ForOp::create(b, lb, ub, step, ValueRange{init});
  buildYieldingBlock(b, loop.getBody(), [&] {
    return SmallVector<Value>{
        body(loop.getInductionVar(), loop.getRegionIterArg(0))};
  });
  return loop.getResult(0);
}

Value mlir::teq::kernels::warpMax(ImplicitLocOpBuilder &b, Value value) {
  // Each step folds the lanes `offset` apart: after five, every lane holds
  // the warp's maximum.
  for (int32_t offset = 16; offset >= 1; offset /= 2) {
    auto shuffle = gpu::ShuffleOp::create(b, value, offset, /*width=*/32,
                                          gpu::ShuffleMode::XOR);
    value = arith::MaxNumFOp::create(b, value, shuffle.getShuffleResult());
  }
  return value;
}

void mlir::teq::kernels::warpMaxToShared(ImplicitLocOpBuilder &b, Value value,
                                         Value tid, Value shared) {
  Value max = warpMax(b, value);
  Value warpSize = constantIndex(b, 32);
  Value lane = arith::RemUIOp::create(b, tid, warpSize);
  Value warp = arith::DivUIOp::create(b, tid, warpSize);
  Value lane0 = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane,
                                      constantIndex(b, 0));
  ifThen(b, lane0,
         [&] { memref::StoreOp::create(b, max, shared, ValueRange{warp}); });
  gpu::BarrierOp::create(b);
}

Value mlir::teq::kernels::sharedMax(ImplicitLocOpBuilder &b, Value shared,
                                    int64_t count) {
  return forLoop(b, constantIndex(b, 0), constantIndex(b, count),
                 constantIndex(b, 1), constantF32(b, 0.0f),
                 [&](Value j, Value max) -> Value {
                   Value slot =
                       memref::LoadOp::create(b, shared, ValueRange{j});
                   return arith::MaxNumFOp::create(b, max, slot);
                 });
}

void mlir::teq::kernels::blockMaxOnThread0(
    ImplicitLocOpBuilder &b, Value value, Value tid, Value shared,
    int64_t blockX, llvm::function_ref<void(Value max)> onThread0) {
  warpMaxToShared(b, value, tid, shared);
  Value thread0 = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid,
                                        constantIndex(b, 0));
  ifThen(b, thread0, [&] { onThread0(sharedMax(b, shared, blockX / 32)); });
}

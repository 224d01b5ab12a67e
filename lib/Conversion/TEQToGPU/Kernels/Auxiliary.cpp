//===- Auxiliary.cpp - Kernels that move bytes: copies, slices, swizzles -===//

#include "Auxiliary.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::teq::kernels;

namespace {
constexpr int64_t kBlock = 256;

/// Kernel `<prefix><suffix>` over `args` whose threads take elements
/// [0, elements) in a grid-stride loop, one element an iteration:
/// `element(i, arguments)` builds the loop body. Every kernel of this file
/// moves bytes this way.
KernelGroup emitPerElement(
    const EmitContext &ctx, llvm::StringLiteral suffix, ValueRange args,
    int64_t elements, int64_t maxBlocks,
    llvm::function_ref<void(Value i, Block::BlockArgListType arguments)>
        element) {
  ImplicitLocOpBuilder &b = ctx.b;
  KernelLaunch launch = ctx.launchOf(suffix);
  launch.blockX = kBlock;
  launch.gridX = blocksFor(elements, kBlock, maxBlocks);
  launch.args.assign(args.begin(), args.end());

  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel =
      createKernel(b, ctx.module, launch.kernel, launch.args, kBlock);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  GridStride stride = gridStride1D(b, kBlock);
  Value end = constantIndex(b, elements);
  forLoop(b, stride.start, end, stride.step,
          [&](Value i) { element(i, body->getArguments()); });
  gpu::ReturnOp::create(b);
  return {launch};
}
} // namespace

KernelGroup
mlir::teq::kernels::emitScaleSwizzle(const EmitContext &ctx,
                                     const ScaleSwizzleSpec &spec,
                                     const ScaleSwizzleBuffers &buffers) {
  ImplicitLocOpBuilder &b = ctx.b;
  // One byte per thread, read in order (coalesced); the writes scatter
  // within 512-byte tiles.
  return emitPerElement(
      ctx, "_swizzle", {buffers.compact, buffers.swizzled},
      spec.rows * spec.cols,
      /*maxBlocks=*/4096, [&](Value at, Block::BlockArgListType args) {
        Value cols = constantIndex(b, spec.cols);
        Value i = arith::DivUIOp::create(b, at, cols);
        Value j = arith::RemUIOp::create(b, at, cols);
        Value to = spec.transposed
                       ? gemmSwizzledScaleIndex(b, j, i, spec.rows / 4)
                       : gemmSwizzledScaleIndex(b, i, j, spec.cols / 4);
        Value scale = memref::LoadOp::create(b, args[0], ValueRange{at});
        memref::StoreOp::create(b, scale, args[1], ValueRange{to});
      });
}

KernelGroup mlir::teq::kernels::emitSlice(const EmitContext &ctx,
                                          const SliceSpec &spec,
                                          const SliceBuffers &buffers) {
  ImplicitLocOpBuilder &b = ctx.b;
  const int64_t elements =
      cast<MemRefType>(buffers.part.getType()).getNumElements();
  return emitPerElement(
      ctx,
      spec.scatter ? llvm::StringLiteral("_insert_slice")
                   : llvm::StringLiteral("_extract_slice"),
      {buffers.full, buffers.part}, elements, /*maxBlocks=*/1024,
      [&](Value i, Block::BlockArgListType args) {
        Value fullArg = args[0], partArg = args[1];
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
          Value coordinate = arith::AddIOp::create(
              b, strided, constantIndex(b, spec.offsets[d]));
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
}

KernelGroup mlir::teq::kernels::emitTranspose(const EmitContext &ctx,
                                              const TransposeSpec &spec,
                                              const TransposeBuffers &buffers) {
  ImplicitLocOpBuilder &b = ctx.b;
  const int64_t rows = spec.rows, cols = spec.cols;
  return emitPerElement(
      ctx, "_transpose", {buffers.source, buffers.dest}, rows * cols,
      /*maxBlocks=*/1024,
      [&](Value at, Block::BlockArgListType args) {
        // Consecutive threads read consecutive elements of a source row.
        Value colsValue = constantIndex(b, cols);
        Value rowsValue = constantIndex(b, rows);
        Value row = arith::DivUIOp::create(b, at, colsValue);
        Value col = arith::RemUIOp::create(b, at, colsValue);
        Value colStart = arith::MulIOp::create(b, col, rowsValue);
        Value to = arith::AddIOp::create(b, colStart, row);
        Value v = memref::LoadOp::create(b, args[0], ValueRange{at});
        memref::StoreOp::create(b, v, args[1], ValueRange{to});
      });
}

KernelGroup mlir::teq::kernels::emitCopy(const EmitContext &ctx,
                                         const CopyBuffers &buffers) {
  ImplicitLocOpBuilder &b = ctx.b;
  const int64_t elements =
      cast<MemRefType>(buffers.dest.getType()).getNumElements();
  return emitPerElement(
      ctx, "_copy", {buffers.source, buffers.dest}, elements,
      /*maxBlocks=*/1024,
      [&](Value at, Block::BlockArgListType args) {
        Value v = memref::LoadOp::create(b, args[0], ValueRange{at});
        memref::StoreOp::create(b, v, args[1], ValueRange{at});
      });
}

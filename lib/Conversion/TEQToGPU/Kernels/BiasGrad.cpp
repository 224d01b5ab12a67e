//===- BiasGrad.cpp - Column sums of a gradient (teq.bias_grad) -----------===//

#include "BiasGrad.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::teq::kernels;

int64_t mlir::teq::kernels::biasGradChunks(const BiasGradSpec &spec) {
  // Enough blocks to fill the GPU (~4 per SM on 132 SMs) without making the
  // ordered second pass long.
  int64_t columnBlocks = (spec.cols + kBlockSize - 1) / kBlockSize;
  int64_t chunks = (528 + columnBlocks - 1) / columnBlocks;
  return std::clamp<int64_t>(chunks, 1, std::min<int64_t>(spec.rows, 64));
}

namespace {

/// This thread's column, blockIdx.x * 256 + threadIdx.x.
Value columnOfThread(ImplicitLocOpBuilder &b, Value tid, Value bx) {
  Value first = arith::MulIOp::create(b, bx, constantIndex(b, kBlockSize));
  return arith::AddIOp::create(b, first, tid);
}

/// Pass 1: block (x, y) sums rows [y*R, min(M, (y+1)*R)) of its 256 columns.
void buildPartialSums(ImplicitLocOpBuilder &b, gpu::GPUFuncOp kernel,
                      const BiasGradSpec &spec, int64_t rowsPerChunk) {
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  Value gradient = body->getArgument(0), partials = body->getArgument(1);
  Value c1 = constantIndex(b, 1);
  Value rows = constantIndex(b, spec.rows);
  Value cols = constantIndex(b, spec.cols);
  Value chunkRows = constantIndex(b, rowsPerChunk);
  Value zero = constantF32(b, 0.0f);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value bx = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value by = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  Value col = columnOfThread(b, tid, bx);
  Value inside = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, col, cols);
  ifThen(b, inside, [&] {
    Value begin = arith::MulIOp::create(b, by, chunkRows);
    Value end = arith::MinUIOp::create(
        b, arith::AddIOp::create(b, begin, chunkRows).getResult(), rows);
    Value sum = forLoop(b, begin, end, c1, zero, [&](Value r, Value acc) {
      Value rowStart = arith::MulIOp::create(b, r, cols);
      Value at = arith::AddIOp::create(b, rowStart, col);
      Value v = memref::LoadOp::create(b, gradient, ValueRange{at});
      if (v.getType() != b.getF32Type())
        v = arith::ExtFOp::create(b, b.getF32Type(), v);
      return arith::AddFOp::create(b, acc, v).getResult();
    });
    Value chunkStart = arith::MulIOp::create(b, by, cols);
    Value at = arith::AddIOp::create(b, chunkStart, col);
    memref::StoreOp::create(b, sum, partials, ValueRange{at});
  });
  gpu::ReturnOp::create(b);
}

/// Pass 2: each thread adds its column's partials in chunk order.
void buildFinalSums(ImplicitLocOpBuilder &b, gpu::GPUFuncOp kernel,
                    const BiasGradSpec &spec, int64_t chunks) {
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  Value partials = body->getArgument(0), bias = body->getArgument(1);
  Value c0 = constantIndex(b, 0);
  Value c1 = constantIndex(b, 1);
  Value cols = constantIndex(b, spec.cols);
  Value chunkCount = constantIndex(b, chunks);
  Value zero = constantF32(b, 0.0f);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value bx = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value col = columnOfThread(b, tid, bx);
  Value inside = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, col, cols);
  ifThen(b, inside, [&] {
    auto partialAt = [&](Value c) -> Value {
      Value at = arith::AddIOp::create(b, arith::MulIOp::create(b, c, cols), col);
      return memref::LoadOp::create(b, partials, ValueRange{at});
    };
    // Eight loads in flight, then their adds in chunk order (the order of
    // one serial loop: the same bits), then the rest one at a time.
    constexpr int64_t kInFlight = 8;
    const int64_t grouped = chunks / kInFlight * kInFlight;
    Value head = forLoop(
        b, c0, constantIndex(b, grouped), constantIndex(b, kInFlight), zero,
        [&](Value c, Value acc) {
          SmallVector<Value> loaded;
          for (int64_t i = 0; i < kInFlight; ++i)
            loaded.push_back(partialAt(
                arith::AddIOp::create(b, c, constantIndex(b, i))));
          for (Value p : loaded)
            acc = arith::AddFOp::create(b, acc, p);
          return acc;
        });
    Value total = forLoop(b, constantIndex(b, grouped), chunkCount, c1, head,
                          [&](Value c, Value acc) {
                            return arith::AddFOp::create(b, acc, partialAt(c))
                                .getResult();
                          });
    Type out = elementTypeOf(b, spec.output);
    if (out != total.getType())
      total = arith::TruncFOp::create(b, out, total);
    memref::StoreOp::create(b, total, bias, ValueRange{col});
  });
  gpu::ReturnOp::create(b);
}

} // namespace

KernelLaunch mlir::teq::kernels::emitBiasGradFinal(
    const EmitContext &ctx, const BiasGradSpec &spec, int64_t chunks,
    Value partials, Value bias) {
  ImplicitLocOpBuilder &b = ctx.b;
  KernelLaunch final = ctx.launchOf("_bgrad_final");
  final.gridX = (spec.cols + kBlockSize - 1) / kBlockSize;
  final.blockX = kBlockSize;
  final.args = {partials, bias};
  OpBuilder::InsertionGuard guard(b);
  buildFinalSums(b,
                 createKernel(b, ctx.module, final.kernel, final.args, kBlockSize),
                 spec, chunks);
  return final;
}

KernelGroup mlir::teq::kernels::emitBiasGrad(const EmitContext &ctx,
                                             const BiasGradSpec &spec,
                                             const BiasGradBuffers &buffers) {
  ImplicitLocOpBuilder &b = ctx.b;
  int64_t chunks = biasGradChunks(spec);
  int64_t rowsPerChunk = (spec.rows + chunks - 1) / chunks;
  int64_t columnBlocks = (spec.cols + kBlockSize - 1) / kBlockSize;

  KernelLaunch partial = ctx.launchOf("_bgrad_partial");
  partial.gridX = columnBlocks;
  partial.gridY = chunks;
  partial.blockX = kBlockSize;
  partial.args = {buffers.gradient, buffers.partials};

  {
    OpBuilder::InsertionGuard guard(b);
    buildPartialSums(
        b, createKernel(b, ctx.module, partial.kernel, partial.args, kBlockSize),
        spec, rowsPerChunk);
  }
  return {partial,
          emitBiasGradFinal(ctx, spec, chunks, buffers.partials, buffers.bias)};
}

//===- BlockFP8.cpp - FP8 block scaling (1x128, 128x128) ------------------===//

#include "BlockFP8.h"

#include "Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::teq::kernels;

namespace {

/// The input type's largest finite value: value_for_inf of §5.3.
float maxFiniteOf(InputType t) {
  switch (t) {
  case InputType::F32:
    return 3.40282347e38f;
  case InputType::BF16:
    return 3.38953139e38f; // 0x7F7F0000
  case InputType::F16:
    return 65504.0f;
  }
  return 3.40282347e38f;
}

} // namespace

KernelGroup mlir::teq::kernels::emitBlockFP8(const EmitContext &ctx,
                                         const BlockFP8Spec &spec,
                                         const TileBuffers &buffers) {
  ImplicitLocOpBuilder &b = ctx.b;
  assert(spec.rowwise == static_cast<bool>(buffers.rowData) &&
         spec.columnwise == static_cast<bool>(buffers.colData) &&
         "the buffers are those of the spec's usages");
  const int64_t m = spec.rows, k = spec.cols;
  const int64_t kBlocks = (k + 127) / 128, mBlocks = (m + 127) / 128;
  const float fp8Max = fp8MaxOf(spec.e5m2);
  const float valueForInf = maxFiniteOf(spec.input);
  auto scaleOf = [&](Value amax) {
    return computeScaleFromAmax(b, amax, fp8Max, spec.epsilon, spec.forcePow2,
                                valueForInf);
  };
  auto c = [&](int64_t v) { return constantIndex(b, v); };
  using arith::CmpIPredicate;
  auto cmp = [&](CmpIPredicate p, Value lhs, Value rhs) -> Value {
    return arith::CmpIOp::create(b, p, lhs, rhs);
  };

  // bf16 tiles fit 80 registers (tile data as raw bits; 64 for 2D): three
  // (four) blocks per SM instead of two.
  int64_t minBlocks = spec.input != InputType::BF16 ? 0 : spec.twoD ? 4 : 3;
  TileKernel kernel = createTileKernel(b, ctx.module, ctx.symbol("_block"),
                                       buffers, m, k, minBlocks);
  OpBuilder::InsertionGuard guard(b);
  Type f32 = b.getF32Type();
  Value warpAmaxes, colPartials, colScales, stage;
  if (spec.twoD) {
    warpAmaxes = addTileWorkgroupBuffer(kernel.func, f32, 8);
  } else if (spec.columnwise) {
    colPartials = addTileWorkgroupBuffer(kernel.func, f32, 1024);
    colScales = addTileWorkgroupBuffer(kernel.func, f32, 128);
  }
  if (spec.columnwise)
    stage = addTileWorkgroupBuffer(kernel.func, b.getI8Type(), 16384);
  Block *body = &kernel.func.getBody().front();
  b.setInsertionPointToStart(body);
  auto [x, rowData, rowScale, colData, colScale] =
      tileKernelArgs(body, spec.rowwise, spec.columnwise);

  // Layout: the input is read once into registers; rowwise data goes
  // straight from registers to global memory; the columnwise copy is
  // quantized in registers, then transposed through the byte tile.
  RegisterTile tile = loadRegisterTile(b, x, m, k, spec.input);
  // 16-byte stores of rowwise bytes need K % 16 == 0 (aligned rows).
  Value vectorRows =
      arith::ConstantIntOp::create(b, b.getI1Type(), k % 16 == 0);
  // Scales of padding rows / columns (te-semantics.md §4.3) are zero.
  Value zero = constantF32(b, 0.0f);
  // Per row step, the bytes of the 2D tile or of the columnwise copy.
  std::array<Value, kTileRowSteps> quantized;

  if (spec.twoD) {
    Value thread0 = cmp(CmpIPredicate::eq, tile.threadId, c(0));
    // The tile amax: thread, warp (shuffles), block (8 warp maxima).
    for (int p = 0; p < kTileRowSteps; ++p)
      accumulateColumnMax(b, tile, p);
    Value threadMax = vector::ReductionOp::create(
        b, vector::CombiningKind::MAXNUMF, tile.columnMax);
    Value warpMax = xorShuffleMax(b, threadMax, {1, 2, 4, 8, 16});
    Value lane0 = cmp(CmpIPredicate::eq, tile.lane, c(0));
    ifThen(b, lane0, [&] {
      memref::StoreOp::create(b, warpMax, warpAmaxes, ValueRange{tile.warp});
    });
    gpu::BarrierOp::create(b);
    Value maxima = loadVector(b, VectorType::get({8}, f32), warpAmaxes, c(0));
    Value amax =
        vector::ReductionOp::create(b, vector::CombiningKind::MAXNUMF, maxima);
    ScaleFromAmax s = scaleOf(amax);
    Value scale = vector::BroadcastOp::create(
        b, VectorType::get({kTileThreadColumns}, f32), s.scale);
    for (int p = 0; p < kTileRowSteps; ++p) {
      Value scaled = arith::MulFOp::create(b, tileRowValues(b, tile, p), scale);
      quantized[p] = packFP8(b, scaled, spec.e5m2);
    }
    // Thread 0 writes the tile's scale; the last tile of a band also the
    // band's padding scales.
    auto storeScale = [&](Value scales, int64_t scaleCols, Value band,
                          Value block, int64_t blocks) {
      ifThen(b, thread0, [&] {
        Value bandStart = arith::MulIOp::create(b, band, c(scaleCols));
        Value at = arith::AddIOp::create(b, bandStart, block);
        memref::StoreOp::create(b, s.scaleInv, scales, ValueRange{at});
        Value last = cmp(CmpIPredicate::eq, block, c(blocks - 1));
        ifThen(b, last, [&] {
          forLoop(b, c(blocks), c((blocks + 3) / 4 * 4), c(1), [&](Value pad) {
            Value padAt = arith::AddIOp::create(b, bandStart, pad);
            memref::StoreOp::create(b, zero, scales, ValueRange{padAt});
          });
        });
      });
    };
    if (spec.rowwise) {
      for (int p = 0; p < kTileRowSteps; ++p)
        storeTileRow(b, tile, p, quantized[p], rowData, vectorRows);
      storeScale(rowScale, spec.rowScaleCols, tile.blockY, tile.blockX,
                 kBlocks);
    }
    if (spec.columnwise)
      storeScale(colScale, spec.colScaleCols, tile.blockX, tile.blockY,
                 mBlocks);
  } else {
    Value rowScaleStart;
    if (spec.rowwise)
      rowScaleStart =
          arith::MulIOp::create(b, tile.blockX, c(spec.rowScaleCols));
    // Before the barrier: the column maxima first, with each row step's
    // 1x128 block amax (a row's 8 chunks are lanes 8q..8q+7 of one warp),
    // then the rowwise data (which widens the raw bits again), one row step
    // at a time each.
    SmallVector<Value, kTileRowSteps> rowAmax;
    for (int p = 0; p < kTileRowSteps; ++p) {
      accumulateColumnMax(b, tile, p);
      if (!spec.rowwise)
        continue;
      Value magnitude = math::AbsFOp::create(b, tile.values[p]);
      Value chunkMax = vector::ReductionOp::create(
          b, vector::CombiningKind::MAXNUMF, magnitude);
      rowAmax.push_back(xorShuffleMax(b, chunkMax, {1, 2, 4}));
    }
    if (spec.columnwise)
      storeColumnPartials(b, tile, colPartials);
    if (spec.rowwise) {
      // Each of a row's 8 lanes computes the scale of row step chunk % 4
      // (one scale a lane, not one a row step: two IEEE divisions each),
      // and the lanes exchange them by xor shuffles: lane l holds step
      // (chunk ^ d) % 4 after the shuffle by d.
      Value step = arith::RemUIOp::create(b, tile.chunk, c(kTileRowSteps));
      Value ownAmax = rowAmax[kTileRowSteps - 1];
      for (int p = kTileRowSteps - 2; p >= 0; --p)
        ownAmax = arith::SelectOp::create(b, cmp(CmpIPredicate::eq, step, c(p)),
                                          rowAmax[p], ownAmax);
      ScaleFromAmax own = scaleOf(ownAmax);
      // scales[d]: the scale of row step step ^ d.
      SmallVector<Value, kTileRowSteps> exchanged{own.scale};
      for (int32_t d = 1; d < kTileRowSteps; ++d)
        exchanged.push_back(
            gpu::ShuffleOp::create(b, own.scale, d, /*width=*/32,
                                   gpu::ShuffleMode::XOR)
                .getShuffleResult());
      for (int p = 0; p < kTileRowSteps; ++p) {
        // Step p's scale came with the shuffle by d = step ^ p.
        Value which = arith::XOrIOp::create(b, step, c(p));
        Value scaleP = exchanged[kTileRowSteps - 1];
        for (int d = kTileRowSteps - 2; d >= 0; --d)
          scaleP = arith::SelectOp::create(
              b, cmp(CmpIPredicate::eq, which, c(d)), exchanged[d], scaleP);
        Value values = tileRowValues(b, tile, p, TileWidening::ZeroExtend);
        Value scale = vector::BroadcastOp::create(
            b, VectorType::get({kTileThreadColumns}, f32), scaleP);
        Value scaled = arith::MulFOp::create(b, values, scale);
        Value bytes = packFP8(b, scaled, spec.e5m2);
        storeTileRow(b, tile, p, bytes, rowData, vectorRows);
      }
      // Lanes with chunk < 4 write the scale_inv of their row step's row
      // (zero in the padding rows).
      Value paddedRows = c((m + 3) / 4 * 4);
      Value stepRow0 = arith::MulIOp::create(b, step, c(4));
      Value stepRow = arith::AddIOp::create(b, tile.rowBase, stepRow0);
      Value globalRow = arith::AddIOp::create(b, tile.tileRow0, stepRow);
      Value at = arith::AddIOp::create(b, rowScaleStart, globalRow);
      Value writer = cmp(CmpIPredicate::ult, tile.chunk, c(kTileRowSteps));
      Value inside = cmp(CmpIPredicate::ult, globalRow, c(m));
      ifThen(b, arith::AndIOp::create(b, writer, inside), [&] {
        memref::StoreOp::create(b, own.scaleInv, rowScale, ValueRange{at});
      });
      Value pastRows = cmp(CmpIPredicate::uge, globalRow, c(m));
      Value inPadded = cmp(CmpIPredicate::ult, globalRow, paddedRows);
      Value padding = arith::AndIOp::create(
          b, arith::AndIOp::create(b, pastRows, inPadded), writer);
      ifThen(b, padding, [&] {
        memref::StoreOp::create(b, zero, rowScale, ValueRange{at});
      });
    }
    if (spec.columnwise) {
      // 128x1 blocks: the warps' column partials reduced by one thread per
      // column, which computes the column's scale once.
      gpu::BarrierOp::create(b);
      Value columnThread = cmp(CmpIPredicate::ult, tile.threadId, c(128));
      ifThen(b, columnThread, [&] {
        Value amax = forLoop(
            b, c(0), c(8), c(1), constantF32(b, 0.0f),
            [&](Value w, Value max) -> Value {
              Value warpSlots = arith::MulIOp::create(b, w, c(128));
              Value at = arith::AddIOp::create(b, warpSlots, tile.threadId);
              Value partial =
                  memref::LoadOp::create(b, colPartials, ValueRange{at});
              return arith::MaxNumFOp::create(b, max, partial);
            });
        ScaleFromAmax s = scaleOf(amax);
        memref::StoreOp::create(b, s.scale, colScales,
                                ValueRange{tile.threadId});
        Value col = arith::AddIOp::create(b, tile.tileCol0, tile.threadId);
        Value inside = cmp(CmpIPredicate::ult, col, c(k));
        Value bandStart =
            arith::MulIOp::create(b, tile.blockY, c(spec.colScaleCols));
        Value at = arith::AddIOp::create(b, bandStart, col);
        ifThen(b, inside, [&] {
          memref::StoreOp::create(b, s.scaleInv, colScale, ValueRange{at});
        });
        Value pastCols = cmp(CmpIPredicate::uge, col, c(k));
        Value inPadded = cmp(CmpIPredicate::ult, col, c((k + 3) / 4 * 4));
        ifThen(b, arith::AndIOp::create(b, pastCols, inPadded), [&] {
          memref::StoreOp::create(b, zero, colScale, ValueRange{at});
        });
      });
      gpu::BarrierOp::create(b);
      Value scales = loadVector(b, VectorType::get({kTileThreadColumns}, f32),
                                colScales, tile.chunkCol);
      for (int p = 0; p < kTileRowSteps; ++p) {
        Value scaled =
            arith::MulFOp::create(b, tileRowValues(b, tile, p), scales);
        quantized[p] = packFP8(b, scaled, spec.e5m2);
      }
    }
  }

  if (spec.columnwise)
    storeTransposedTile(b, tile, quantized, stage, colData);
  gpu::ReturnOp::create(b);
  kernel.launch.stage = "_block";
  return {kernel.launch};
}

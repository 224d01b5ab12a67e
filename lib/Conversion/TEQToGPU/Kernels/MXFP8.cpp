//===- MXFP8.cpp - MXFP8: FP8 with E8M0 block exponents -------------------===//

#include "MXFP8.h"

#include "Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::teq::kernels;

namespace {

//===----------------------------------------------------------------------===//
// E8M0 (te-semantics.md §5.4)
//===----------------------------------------------------------------------===//

/// A block's E8M0 exponent (biased, i32 in [0, 255]) and the f32
/// multiplier 2^(127 - e) its elements are scaled by.
struct E8M0Scale {
  Value exponent, multiplier;
};

constexpr int32_t kE8M0Max = 254; // 0xFE = 2^127; +inf saturates to it
constexpr int32_t kE8M0NaN = 255; // 0xFF
constexpr int32_t kMantissaBits = 23;

/// The exponent TE's float_to_e8m0 gives `v` (f32, non-negative): the
/// power of two at or above it. `hardware`: Blackwell's cvt.rp.satfinite.
/// ue8m0x2, which TE's software path emulates bit for bit: NaN -> 0xFF,
/// +inf -> 0xFE, 0 -> 0, else the exponent field, plus one where the
/// mantissa is non-zero, unless that would pass 0xFE or v is a subnormal
/// at most 2^-127 (which rounds to exponent 0).
Value floatToE8M0(ImplicitLocOpBuilder &b, Value v, bool hardware) {
  using arith::CmpIPredicate;
  Value byteMask = constantI32(b, 0xFF);
  if (hardware) {
    Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
        b, b.getI16Type(), v, v, NVVM::FPRoundingMode::RP,
        NVVM::SaturationMode::SATFINITE, /*relu=*/false,
        b.getType<Float8E8M0FNUType>());
    Value wide = arith::ExtUIOp::create(b, b.getI32Type(), pair);
    return arith::AndIOp::create(b, wide, byteMask);
  }
  Value shift = constantI32(b, kMantissaBits);
  Value maxCode = constantI32(b, kE8M0Max);
  Value bits = arith::BitcastOp::create(b, b.getI32Type(), v);
  Value zero = constantI32(b, 0), one = constantI32(b, 1);
  Value exponent = arith::AndIOp::create(
      b, arith::ShRUIOp::create(b, bits, shift), byteMask);
  Value mantissa = arith::AndIOp::create(b, bits, constantI32(b, 0x7FFFFF));
  Value inexact = arith::CmpIOp::create(b, CmpIPredicate::ugt, mantissa, zero);
  Value belowMax =
      arith::CmpIOp::create(b, CmpIPredicate::ne, exponent, maxCode);
  Value roundsUp = arith::AndIOp::create(b, inexact, belowMax);
  Value subnormal = arith::CmpIOp::create(b, CmpIPredicate::eq, exponent, zero);
  Value atMostHalf = arith::CmpIOp::create(b, CmpIPredicate::ule, mantissa,
                                           constantI32(b, 0x400000));
  Value tinySubnormal = arith::AndIOp::create(b, subnormal, atMostHalf);
  Value notTiny = arith::XOrIOp::create(
      b, tinySubnormal, arith::ConstantIntOp::create(b, b.getI1Type(), 1));
  Value increment = arith::AndIOp::create(b, roundsUp, notTiny);
  Value rounded = arith::AddIOp::create(
      b, exponent, arith::SelectOp::create(b, increment, one, zero));
  using arith::CmpFPredicate;
  Value isNaN = arith::CmpFOp::create(b, CmpFPredicate::UNO, v, v);
  Value isInf =
      arith::CmpFOp::create(b, CmpFPredicate::OEQ, v, constantF32(b, INFINITY));
  Value isZero =
      arith::CmpFOp::create(b, CmpFPredicate::OEQ, v, constantF32(b, 0.0f));
  Value e = arith::SelectOp::create(b, isZero, zero, rounded);
  e = arith::SelectOp::create(b, isInf, maxCode, e);
  return arith::SelectOp::create(b, isNaN, byteMask, e);
}

/// TE's exp2f_rcp(e) = 2^(127 - e) from its bits: (254 - e) << 23, but
/// 2^-127 (a subnormal) for e = 254 and NaN for e = 255.
Value exp2fRcp(ImplicitLocOpBuilder &b, Value e) {
  using arith::CmpIPredicate;
  Value maxCode = constantI32(b, kE8M0Max);
  Value nanCode = constantI32(b, kE8M0NaN);
  Value bits = arith::ShLIOp::create(b, arith::SubIOp::create(b, maxCode, e),
                                     constantI32(b, kMantissaBits));
  Value isMax = arith::CmpIOp::create(b, CmpIPredicate::eq, e, maxCode);
  Value isNaN = arith::CmpIOp::create(b, CmpIPredicate::eq, e, nanCode);
  bits = arith::SelectOp::create(b, isMax, constantI32(b, 0x400000), bits);
  bits = arith::SelectOp::create(b, isNaN, constantI32(b, 0x7FC00000), bits);
  return arith::BitcastOp::create(b, b.getF32Type(), bits);
}

/// The E8M0 scale of a block with max|x| `amax` (f32): float_to_e8m0(amax *
/// max_norm_rcp), max_norm_rcp = (float)(1 / fp8_max).
E8M0Scale e8m0FromAmax(ImplicitLocOpBuilder &b, Value amax, bool e5m2,
                       bool hardware) {
  float maxNormRcp = static_cast<float>(1.0 / fp8MaxOf(e5m2));
  Value v = arith::MulFOp::create(b, amax, constantF32(b, maxNormRcp));
  Value e = floatToE8M0(b, v, hardware);
  return {e, exp2fRcp(b, e)};
}

} // namespace

KernelGroup mlir::teq::kernels::emitMXFP8(const EmitContext &ctx,
                                         const MXFP8Spec &spec,
                                         const TileBuffers &buffers) {
  ImplicitLocOpBuilder &b = ctx.b;
  assert(spec.rowwise == static_cast<bool>(buffers.rowData) &&
         spec.columnwise == static_cast<bool>(buffers.colData) &&
         "the buffers are those of the spec's usages");
  const int64_t m = spec.rows, k = spec.cols;
  auto c = [&](int64_t v) { return constantIndex(b, v); };
  using arith::CmpIPredicate;
  auto cmp = [&](CmpIPredicate p, Value lhs, Value rhs) -> Value {
    return arith::CmpIOp::create(b, p, lhs, rhs);
  };
  auto e8m0 = [&](Value amax) {
    return e8m0FromAmax(b, amax, spec.e5m2, spec.hardwareConversions);
  };

  // bf16 tiles fit 80 registers (tile data as raw bits): three blocks (768
  // threads) per SM instead of two.
  TileKernel kernel =
      createTileKernel(b, ctx.module, ctx.symbol("_mxfp8"), buffers, m, k,
                       spec.input == InputType::BF16 ? 3 : 0);
  OpBuilder::InsertionGuard guard(b);
  Type f32 = b.getF32Type();
  Value tileAmaxes, colPartials, colMultipliers;
  if (spec.twoD) {
    tileAmaxes = addTileWorkgroupBuffer(kernel.func, f32, 32);
  } else if (spec.columnwise) {
    colPartials = addTileWorkgroupBuffer(kernel.func, f32, 1024);
    colMultipliers = addTileWorkgroupBuffer(kernel.func, f32, 512);
  }
  Block *body = &kernel.func.getBody().front();
  b.setInsertionPointToStart(body);
  auto [x, rowData, rowScale, colData, colScale] =
      tileKernelArgs(body, spec.rowwise, spec.columnwise);

  // Layout: the input is read once into registers (warp w owns tile rows
  // 16w..16w+15, so its rows' 32-row group is w / 2); both copies ([M, K])
  // are written from registers with 16-byte stores. 1x32 blocks are two
  // neighbouring lanes (shuffle xor 1); 32x1 blocks the 16 rows of a warp
  // (shuffles xor 8, 16) and its partner warp w ^ 1 (workgroup memory);
  // 32x32 tiles both.
  RegisterTile tile = loadRegisterTile(b, x, m, k, spec.input);
  Value vectorOut = arith::ConstantIntOp::create(b, b.getI1Type(), k % 16 == 0);
  Value zeroByte = arith::ConstantIntOp::create(b, b.getI8Type(), 0);
  Value evenChunk, chunkStartsInside, group, evenWarp, partner;
  if (spec.twoD || spec.rowwise)
    evenChunk = cmp(CmpIPredicate::eq,
                    arith::RemUIOp::create(b, tile.chunk, c(2)), c(0));
  if (spec.rowwise)
    chunkStartsInside = cmp(CmpIPredicate::ult, tile.globalCol, c(k));
  if (spec.columnwise)
    group = arith::DivUIOp::create(b, tile.warp, c(2));
  if (spec.columnwise && spec.twoD)
    evenWarp = cmp(CmpIPredicate::eq,
                   arith::RemUIOp::create(b, tile.warp, c(2)), c(0));
  if (spec.twoD)
    partner = arith::XOrIOp::create(b, tile.warp, c(1));

  // The columnwise scale byte of tensor column `col` and the 32-row group
  // from tensor row `row0`: S[row0 / 32][col] compact, or the swizzle with
  // the column as the row index (as the reference lays it out); zero in
  // the padding (`inside` false).
  auto storeColScale = [&](Value exponent, Value row0, Value col,
                           Value inside) {
    Value group32 = arith::DivUIOp::create(b, row0, c(32));
    Value at = spec.swizzled ? scaleOffset(b, col, group32, /*swizzled=*/true,
                                           0, spec.colScaleRows / 4)
                             : scaleOffset(b, group32, col, /*swizzled=*/false,
                                           spec.colScaleCols, 0);
    Value byte = arith::TruncIOp::create(b, b.getI8Type(), exponent);
    byte = arith::SelectOp::create(b, inside, byte, zeroByte);
    memref::StoreOp::create(b, byte, colScale, ValueRange{at});
  };

  E8M0Scale tileScale;
  std::array<Value, kTileRowSteps> tileBytes;
  if (spec.twoD) {
    // The 32x32 tile amax: thread (4 rows x 16 columns), lane pair (xor 1),
    // the warp's 16 rows (xor 8, 16), then the partner warp.
    for (int p = 0; p < kTileRowSteps; ++p)
      accumulateColumnMax(b, tile, p);
    Value threadMax = vector::ReductionOp::create(
        b, vector::CombiningKind::MAXNUMF, tile.columnMax);
    Value warpMax = xorShuffleMax(b, threadMax, {1, 8, 16});
    // Slot (warp, 32-column group): 4 a warp.
    Value chunkPair = arith::DivUIOp::create(b, tile.chunk, c(2));
    Value slot = arith::AddIOp::create(
        b, arith::MulIOp::create(b, tile.warp, c(4)), chunkPair);
    Value writes = arith::AndIOp::create(b, tile.chunkWriter, evenChunk);
    ifThen(b, writes, [&] {
      memref::StoreOp::create(b, warpMax, tileAmaxes, ValueRange{slot});
    });
    gpu::BarrierOp::create(b);
    Value partnerSlot = arith::AddIOp::create(
        b, arith::MulIOp::create(b, partner, c(4)), chunkPair);
    Value partnerMax =
        memref::LoadOp::create(b, tileAmaxes, ValueRange{partnerSlot});
    tileScale = e8m0(arith::MaxNumFOp::create(b, warpMax, partnerMax));
    Value multiplier = vector::BroadcastOp::create(
        b, VectorType::get({kTileThreadColumns}, f32), tileScale.multiplier);
    for (int p = 0; p < kTileRowSteps; ++p) {
      Value scaled =
          arith::MulFOp::create(b, tileRowValues(b, tile, p), multiplier);
      tileBytes[p] = packFP8(b, scaled, spec.e5m2);
    }
  } else {
    // Before the barrier: the column maxima first, then the rowwise data
    // (which widens the raw bits again), one row step at a time each.
    for (int p = 0; p < kTileRowSteps; ++p)
      accumulateColumnMax(b, tile, p);
    if (spec.columnwise)
      storeColumnPartials(b, tile, colPartials);
  }

  if (spec.rowwise) {
    for (int p = 0; p < kTileRowSteps; ++p) {
      Value bytes = tileBytes[p], exponent = tileScale.exponent;
      if (!spec.twoD) {
        Value values = tileRowValues(b, tile, p, TileWidening::ZeroExtend);
        Value magnitude = math::AbsFOp::create(b, values);
        Value chunkMax = vector::ReductionOp::create(
            b, vector::CombiningKind::MAXNUMF, magnitude);
        E8M0Scale s = e8m0(xorShuffleMax(b, chunkMax, {1}));
        Value multiplier = vector::BroadcastOp::create(
            b, VectorType::get({kTileThreadColumns}, f32), s.multiplier);
        Value scaled = arith::MulFOp::create(b, values, multiplier);
        bytes = packFP8(b, scaled, spec.e5m2);
        exponent = s.exponent;
      }
      storeTileRow(b, tile, p, bytes, rowData, vectorOut);
      // Every even lane writes its row's scale byte (zero in the padding).
      Value inside =
          arith::AndIOp::create(b, tile.rowInside[p], chunkStartsInside);
      ifThen(b, evenChunk, [&] {
        Value block = arith::DivUIOp::create(b, tile.globalCol, c(32));
        Value at = scaleOffset(b, tile.globalRow[p], block, spec.swizzled,
                               spec.rowScaleCols, spec.rowScaleCols / 4);
        Value byte = arith::TruncIOp::create(b, b.getI8Type(), exponent);
        byte = arith::SelectOp::create(b, inside, byte, zeroByte);
        memref::StoreOp::create(b, byte, rowScale, ValueRange{at});
      });
    }
  }

  if (spec.columnwise && spec.twoD) {
    for (int p = 0; p < kTileRowSteps; ++p)
      storeTileRow(b, tile, p, tileBytes[p], colData, vectorOut);
    // Lanes 0..7 of even warps write their chunk's column scales for the
    // warp pair's 32 rows.
    Value writes = arith::AndIOp::create(b, tile.chunkWriter, evenWarp);
    ifThen(b, writes, [&] {
      Value row0 = arith::AddIOp::create(
          b, tile.tileRow0, arith::MulIOp::create(b, group, c(32)));
      Value rowInside = cmp(CmpIPredicate::ult, row0, c(m));
      forLoop(b, c(0), c(kTileThreadColumns), c(1), [&](Value e) {
        Value col = arith::AddIOp::create(b, tile.globalCol, e);
        Value colInside = cmp(CmpIPredicate::ult, col, c(k));
        storeColScale(tileScale.exponent, row0, col,
                      arith::AndIOp::create(b, colInside, rowInside));
      });
    });
  } else if (spec.columnwise) {
    gpu::BarrierOp::create(b);
    // Exponent and multiplier of each (32-row group, column): two a thread.
    forLoop(b, c(0), c(2), c(1), [&](Value round) {
      Value index = arith::AddIOp::create(
          b, tile.threadId, arith::MulIOp::create(b, round, c(kBlockSize)));
      Value rowGroup = arith::DivUIOp::create(b, index, c(128));
      Value tileCol = arith::RemUIOp::create(b, index, c(128));
      // The group's two warps' partials.
      Value firstWarp = arith::AddIOp::create(
          b, arith::MulIOp::create(b, rowGroup, c(256)), tileCol);
      Value secondWarp = arith::AddIOp::create(b, firstWarp, c(128));
      Value firstMax =
          memref::LoadOp::create(b, colPartials, ValueRange{firstWarp});
      Value secondMax =
          memref::LoadOp::create(b, colPartials, ValueRange{secondWarp});
      E8M0Scale s = e8m0(arith::MaxNumFOp::create(b, firstMax, secondMax));
      memref::StoreOp::create(b, s.multiplier, colMultipliers,
                              ValueRange{index});
      Value col = arith::AddIOp::create(b, tile.tileCol0, tileCol);
      Value row0 = arith::AddIOp::create(
          b, tile.tileRow0, arith::MulIOp::create(b, rowGroup, c(32)));
      Value colInside = cmp(CmpIPredicate::ult, col, c(k));
      Value rowInside = cmp(CmpIPredicate::ult, row0, c(m));
      storeColScale(s.exponent, row0, col,
                    arith::AndIOp::create(b, colInside, rowInside));
    });
    gpu::BarrierOp::create(b);
    Value groupStart = arith::MulIOp::create(b, group, c(128));
    Value at = arith::AddIOp::create(b, groupStart, tile.chunkCol);
    Value multipliers = loadVector(
        b, VectorType::get({kTileThreadColumns}, f32), colMultipliers, at);
    for (int p = 0; p < kTileRowSteps; ++p) {
      Value scaled =
          arith::MulFOp::create(b, tileRowValues(b, tile, p), multipliers);
      Value bytes = packFP8(b, scaled, spec.e5m2);
      storeTileRow(b, tile, p, bytes, colData, vectorOut);
    }
  }
  gpu::ReturnOp::create(b);
  kernel.launch.stage = "_mxfp8";
  return {kernel.launch};
}

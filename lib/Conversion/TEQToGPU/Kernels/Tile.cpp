//===- Tile.cpp - The register-resident 128x128 tile kernels --------------===//

#include "Tile.h"
#include "Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::teq::kernels;

namespace {

constexpr int64_t kTile = 128;
constexpr int64_t kWarp = 32;
/// Chunks (16 columns) per tile row: the lanes sharing a row.
constexpr int64_t kRowChunks = kTile / kTileThreadColumns;

Value constantBool(ImplicitLocOpBuilder &b, bool value) {
  return arith::ConstantIntOp::create(b, b.getI1Type(), value);
}

Value splat(ImplicitLocOpBuilder &b, VectorType type, Attribute element) {
  return arith::ConstantOp::create(b, DenseElementsAttr::get(type, element));
}

/// `scf.if cond -> types` with each branch's yielded values from its
/// builder; `b` continues after the op.
ValueRange
ifThenElseValues(ImplicitLocOpBuilder &b, TypeRange types, Value cond,
                 llvm::function_ref<SmallVector<Value>()> then,
                 llvm::function_ref<SmallVector<Value>()> otherwise) {
  auto op = scf::IfOp::create(b, types, cond, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(op.thenBlock());
  scf::YieldOp::create(b, then());
  b.setInsertionPointToEnd(op.elseBlock());
  scf::YieldOp::create(b, otherwise());
  return op.getResults();
}

Value cmpIndex(ImplicitLocOpBuilder &b, arith::CmpIPredicate predicate,
               Value lhs, Value rhs) {
  return arith::CmpIOp::create(b, predicate, lhs, rhs);
}

} // namespace

SmallVector<Value> TileBuffers::arguments() const {
  SmallVector<Value> args{input};
  if (rowData)
    args.append({rowData, rowScale});
  if (colData)
    args.append({colData, colScale});
  return args;
}

TileKernel mlir::teq::kernels::createTileKernel(ImplicitLocOpBuilder &b,
                                                gpu::GPUModuleOp module,
                                                StringRef name,
                                                const TileBuffers &buffers,
                                                int64_t rows, int64_t cols,
                                                int64_t minBlocksPerSM) {
  TileKernel kernel;
  kernel.launch.kernel = name.str();
  kernel.launch.gridX = (cols + kTile - 1) / kTile;
  kernel.launch.gridY = (rows + kTile - 1) / kTile;
  kernel.launch.blockX = kBlockSize;
  kernel.launch.args = buffers.arguments();
  kernel.func = createKernel(b, module, name, kernel.launch.args, kBlockSize);
  if (minBlocksPerSM > 0)
    kernel.func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                         b.getI32IntegerAttr(minBlocksPerSM));
  return kernel;
}

Value mlir::teq::kernels::addTileWorkgroupBuffer(gpu::GPUFuncOp kernel,
                                                 Type element, int64_t size) {
  Value buffer = addWorkgroupBuffer(kernel, element, size);
  // 16-byte vector accesses.
  kernel.setWorkgroupAttributionAttr(
      kernel.getNumWorkgroupAttributions() - 1,
      LLVM::LLVMDialect::getAlignAttrName(),
      IntegerAttr::get(IntegerType::get(kernel.getContext(), 64), 16));
  return buffer;
}

RegisterTile mlir::teq::kernels::loadRegisterTile(ImplicitLocOpBuilder &b,
                                                  Value x, int64_t rows,
                                                  int64_t cols,
                                                  InputType input) {
  auto c = [&](int64_t v) { return constantIndex(b, v); };
  RegisterTile t;
  t.input = input;
  t.rows = rows;
  t.cols = cols;
  t.threadId = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  t.blockX = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  t.blockY = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  t.tileCol0 = arith::MulIOp::create(b, t.blockX, c(kTile));
  t.tileRow0 = arith::MulIOp::create(b, t.blockY, c(kTile));
  t.lane = arith::RemUIOp::create(b, t.threadId, c(kWarp));
  t.warp = arith::DivUIOp::create(b, t.threadId, c(kWarp));
  t.chunk = arith::RemUIOp::create(b, t.lane, c(kRowChunks));
  Value rowInWarp = arith::DivUIOp::create(b, t.lane, c(kRowChunks));
  t.chunkCol = arith::MulIOp::create(b, t.chunk, c(kTileThreadColumns));
  t.globalCol = arith::AddIOp::create(b, t.tileCol0, t.chunkCol);
  Value chunkEnd = arith::AddIOp::create(b, t.globalCol, c(kTileThreadColumns));
  t.chunkInside = cmpIndex(b, arith::CmpIPredicate::ule, chunkEnd, c(cols));
  // The vector loads (16-byte aligned) need aligned row starts: K % 8 == 0
  // gives that for every input type.
  Value vectorInput = constantBool(b, cols % 8 == 0);
  Value warpRow0 = arith::MulIOp::create(b, t.warp, c(16));
  t.rowBase = arith::AddIOp::create(b, warpRow0, rowInWarp);
  t.chunkWriter = cmpIndex(b, arith::CmpIPredicate::ult, t.lane, c(kRowChunks));
  t.firstChunk = cmpIndex(b, arith::CmpIPredicate::eq, t.chunk, c(0));
  t.warpSlots = arith::MulIOp::create(b, t.warp, c(kTile));

  for (int p = 0; p < kTileRowSteps; ++p) {
    t.row[p] = arith::AddIOp::create(b, t.rowBase, c(4 * p));
    t.globalRow[p] = arith::AddIOp::create(b, t.tileRow0, t.row[p]);
    t.rowInside[p] =
        cmpIndex(b, arith::CmpIPredicate::ult, t.globalRow[p], c(rows));
    t.rowStart[p] = arith::MulIOp::create(b, t.globalRow[p], c(cols));
    t.offset[p] = arith::AddIOp::create(b, t.rowStart[p], t.globalCol);
  }
  // Row step 3 is the last: inside the tensor, all four are.
  Value whole = arith::AndIOp::create(b, t.rowInside[3], t.chunkInside);
  Value fast = arith::AndIOp::create(b, whole, vectorInput);

  Type element = elementTypeOf(b, input);
  Type f32 = b.getF32Type();
  auto chunkType = VectorType::get({kTileThreadColumns}, element);
  auto valuesType = VectorType::get({kTileThreadColumns}, f32);
  auto loadChunks = [&] {
    SmallVector<Value> loaded;
    for (int p = 0; p < kTileRowSteps; ++p)
      loaded.push_back(loadVector(b, chunkType, x, t.offset[p]));
    return loaded;
  };
  // Element by element, bounds-checked: `read` turns a loaded element into
  // a lane, `outside` is the lane outside the tensor.
  auto loadElements = [&](int p, VectorType type, Type laneType,
                          llvm::function_ref<Value(Value)> read,
                          llvm::function_ref<Value()> outside) {
    return forLoop(
        b, c(0), c(kTileThreadColumns), c(1),
        splat(b, type, b.getZeroAttr(laneType)),
        [&](Value e, Value lanes) -> Value {
          Value col = arith::AddIOp::create(b, t.globalCol, e);
          Value colInside =
              cmpIndex(b, arith::CmpIPredicate::ult, col, c(cols));
          Value ok = arith::AndIOp::create(b, t.rowInside[p], colInside);
          Value lane = ifThenElse(
              b, laneType, ok,
              [&] {
                Value at = arith::AddIOp::create(b, t.rowStart[p], col);
                return read(memref::LoadOp::create(b, x, ValueRange{at}));
              },
              outside);
          return vector::InsertOp::create(b, lane, lanes, OpFoldResult(e));
        });
  };

  if (t.keepsRawBits()) {
    auto rawType = VectorType::get({8}, b.getI32Type());
    auto bitsType = VectorType::get({kTileThreadColumns}, b.getI16Type());
    ValueRange raw = ifThenElseValues(
        b, SmallVector<Type>(kTileRowSteps, rawType), fast,
        [&] {
          SmallVector<Value> raw;
          for (Value chunk : loadChunks())
            raw.push_back(vector::BitCastOp::create(b, rawType, chunk));
          return raw;
        },
        [&] {
          SmallVector<Value> raw;
          for (int p = 0; p < kTileRowSteps; ++p) {
            Value bits = loadElements(
                p, bitsType, b.getI16Type(),
                [&](Value v) -> Value {
                  return arith::BitcastOp::create(b, b.getI16Type(), v);
                },
                [&]() -> Value {
                  return arith::ConstantIntOp::create(b, b.getI16Type(), 0);
                });
            raw.push_back(vector::BitCastOp::create(b, rawType, bits));
          }
          return raw;
        });
    llvm::copy(raw, t.raw.begin());
    return t;
  }

  auto widen = [&](Value v) { return extendToF32(b, v); };
  ValueRange values = ifThenElseValues(
      b, SmallVector<Type>(kTileRowSteps, valuesType), fast,
      [&] {
        SmallVector<Value> loaded = loadChunks(), values;
        for (Value chunk : loaded)
          values.push_back(widen(chunk));
        return values;
      },
      [&] {
        SmallVector<Value> values;
        for (int p = 0; p < kTileRowSteps; ++p)
          values.push_back(
              loadElements(p, valuesType, f32, widen,
                           [&]() -> Value { return constantF32(b, 0.0f); }));
        return values;
      });
  llvm::copy(values, t.values.begin());
  return t;
}

namespace {
/// max(a, b) ignoring NaN as llvm.intr.maxnum: NVPTX's max.f32, one
/// instruction an element, where arith.maxnumf becomes a compare, a NaN
/// test and selects (LibdeviceFree). The same value for the magnitudes and
/// maxima the tile kernels take it of (never -0; only two NaNs differ, in
/// the payload of the NaN max.f32 returns, and a NaN amax is a special case
/// whatever its payload).
Value nativeMaxNum(ImplicitLocOpBuilder &b, Value lhs, Value rhs) {
  return LLVM::MaxNumOp::create(b, lhs, rhs);
}
} // namespace

void mlir::teq::kernels::accumulateColumnMax(ImplicitLocOpBuilder &b,
                                             RegisterTile &tile, int step) {
  auto valuesType = VectorType::get({kTileThreadColumns}, b.getF32Type());
  if (tile.keepsRawBits()) {
    // fpext: a form LLVM does not merge with tileRowValues' shifts after
    // the barriers.
    Value bits = vector::BitCastOp::create(
        b, VectorType::get({kTileThreadColumns}, b.getBF16Type()),
        tile.raw[step]);
    tile.values[step] = arith::ExtFOp::create(b, valuesType, bits);
  }
  Value magnitude = math::AbsFOp::create(b, tile.values[step]);
  Value before = step == 0 ? splat(b, valuesType, b.getF32FloatAttr(0.0f))
                           : tile.columnMax;
  tile.columnMax = nativeMaxNum(b, before, magnitude);
}

Value mlir::teq::kernels::tileRowValues(ImplicitLocOpBuilder &b,
                                        const RegisterTile &tile, int step,
                                        TileWidening form) {
  if (!tile.keepsRawBits())
    return tile.values[step];
  // bf16 -> f32 is the 16-bit pattern shifted into the upper half.
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  Value raw = tile.raw[step];
  if (form == TileWidening::ZeroExtend) {
    auto halves = VectorType::get({kTileThreadColumns}, b.getI16Type());
    auto words = VectorType::get({kTileThreadColumns}, i32);
    Value bits = vector::BitCastOp::create(b, halves, raw);
    Value wide = arith::ExtUIOp::create(b, words, bits);
    Value shifted = arith::ShLIOp::create(
        b, wide, splat(b, words, b.getI32IntegerAttr(16)));
    return arith::BitcastOp::create(
        b, VectorType::get({kTileThreadColumns}, f32), shifted);
  }
  auto words = VectorType::get({8}, i32);
  auto floats = VectorType::get({8}, f32);
  Value low =
      arith::ShLIOp::create(b, raw, splat(b, words, b.getI32IntegerAttr(16)));
  Value high = arith::AndIOp::create(
      b, raw, splat(b, words, b.getI32IntegerAttr(-65536)));
  Value lowValues = arith::BitcastOp::create(b, floats, low);
  Value highValues = arith::BitcastOp::create(b, floats, high);
  // Word w holds lanes 2w (low half) and 2w + 1 (high half).
  return vector::ShuffleOp::create(
      b, lowValues, highValues,
      ArrayRef<int64_t>{0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15});
}

void mlir::teq::kernels::storeTileRow(ImplicitLocOpBuilder &b,
                                      const RegisterTile &tile, int step,
                                      Value bytes, Value dest, Value vectorOK) {
  auto c = [&](int64_t v) { return constantIndex(b, v); };
  Value whole =
      arith::AndIOp::create(b, tile.rowInside[step], tile.chunkInside);
  Value fast = arith::AndIOp::create(b, whole, vectorOK);
  ifThenElse(
      b, fast, [&] { storeVector(b, bytes, dest, tile.offset[step]); },
      [&] {
        ifThen(b, tile.rowInside[step], [&] {
          forLoop(b, c(0), c(kTileThreadColumns), c(1), [&](Value e) {
            Value col = arith::AddIOp::create(b, tile.globalCol, e);
            Value inside =
                cmpIndex(b, arith::CmpIPredicate::ult, col, c(tile.cols));
            ifThen(b, inside, [&] {
              Value byte = vector::ExtractOp::create(b, bytes, OpFoldResult(e));
              Value at = arith::AddIOp::create(b, tile.rowStart[step], col);
              memref::StoreOp::create(b, byte, dest, ValueRange{at});
            });
          });
        });
      });
}

Value mlir::teq::kernels::xorShuffleMax(ImplicitLocOpBuilder &b, Value value,
                                        ArrayRef<int32_t> offsets) {
  for (int32_t offset : offsets) {
    auto shuffle = gpu::ShuffleOp::create(b, value, offset, /*width=*/kWarp,
                                          gpu::ShuffleMode::XOR);
    value = nativeMaxNum(b, value, shuffle.getShuffleResult());
  }
  return value;
}

void mlir::teq::kernels::storeColumnPartials(ImplicitLocOpBuilder &b,
                                             const RegisterTile &tile,
                                             Value partials) {
  // Lanes 8 and 16 apart hold the same columns of the warp's other rows.
  // Constant positions keep the vector in registers (a dynamic index would
  // spill it to local memory).
  SmallVector<Value> maxima;
  for (int64_t e = 0; e < kTileThreadColumns; ++e) {
    Value lane = vector::ExtractOp::create(b, tile.columnMax, e);
    maxima.push_back(xorShuffleMax(b, lane, {8, 16}));
  }
  ifThen(b, tile.chunkWriter, [&] {
    for (int64_t e = 0; e < kTileThreadColumns; ++e) {
      Value col = arith::AddIOp::create(b, tile.chunkCol, constantIndex(b, e));
      Value slot = arith::AddIOp::create(b, tile.warpSlots, col);
      memref::StoreOp::create(b, maxima[e], partials, ValueRange{slot});
    }
  });
}

void mlir::teq::kernels::storeTransposedTile(ImplicitLocOpBuilder &b,
                                             const RegisterTile &tile,
                                             ArrayRef<Value> bytes, Value stage,
                                             Value dest) {
  auto c = [&](int64_t v) { return constantIndex(b, v); };
  // Stage: tile row r's chunk j goes to chunk j ^ (r / 16) (r / 16 is the
  // warp).
  Value swizzled = arith::XOrIOp::create(b, tile.chunk, tile.warp);
  Value swizzledCol = arith::MulIOp::create(b, swizzled, c(kTileThreadColumns));
  for (int p = 0; p < kTileRowSteps; ++p) {
    Value rowAt = arith::MulIOp::create(b, tile.row[p], c(kTile));
    Value at = arith::AddIOp::create(b, rowAt, swizzledCol);
    storeVector(b, bytes[p], stage, at);
  }
  gpu::BarrierOp::create(b);

  // 1024 runs of 16 bytes (output row kt, tile rows 16q..16q+15), 8
  // threads (a quarter warp) per output row, four rounds.
  Value vectorOut = constantBool(b, tile.rows % 16 == 0);
  forLoop(b, c(0), c(4), c(1), [&](Value round) {
    Value roundStart = arith::MulIOp::create(b, round, c(kBlockSize));
    Value run = arith::AddIOp::create(b, roundStart, tile.threadId);
    Value tileCol = arith::DivUIOp::create(b, run, c(kRowChunks));
    Value rowChunk = arith::RemUIOp::create(b, run, c(kRowChunks));
    Value runRow0 = arith::MulIOp::create(b, rowChunk, c(16));
    // The column's chunk and position in it, and where the staging put
    // that chunk in rows 16q.. (warp q).
    Value colChunk = arith::DivUIOp::create(b, tileCol, c(16));
    Value colInChunk = arith::RemUIOp::create(b, tileCol, c(16));
    Value stagedChunk = arith::XOrIOp::create(b, colChunk, rowChunk);
    Value stagedCol0 = arith::MulIOp::create(b, stagedChunk, c(16));
    Value stagedCol = arith::AddIOp::create(b, stagedCol0, colInChunk);
    Value runStart0 = arith::MulIOp::create(b, runRow0, c(kTile));
    Value runStart = arith::AddIOp::create(b, runStart0, stagedCol);
    SmallVector<Value> column;
    for (int64_t e = 0; e < 16; ++e) {
      Value at = arith::AddIOp::create(b, runStart, c(e * kTile));
      column.push_back(memref::LoadOp::create(b, stage, ValueRange{at}));
    }
    Value run16 = vector::FromElementsOp::create(
        b, VectorType::get({16}, b.getI8Type()), column);

    Value outRow = arith::AddIOp::create(b, tile.tileCol0, tileCol);
    Value outRowInside =
        cmpIndex(b, arith::CmpIPredicate::ult, outRow, c(tile.cols));
    Value outCol = arith::AddIOp::create(b, tile.tileRow0, runRow0);
    Value outEnd = arith::AddIOp::create(b, outCol, c(16));
    Value fullRun =
        cmpIndex(b, arith::CmpIPredicate::ule, outEnd, c(tile.rows));
    Value whole = arith::AndIOp::create(b, outRowInside, fullRun);
    Value fast = arith::AndIOp::create(b, whole, vectorOut);
    Value outRowStart = arith::MulIOp::create(b, outRow, c(tile.rows));
    Value outAt = arith::AddIOp::create(b, outRowStart, outCol);
    ifThenElse(
        b, fast, [&] { storeVector(b, run16, dest, outAt); },
        [&] {
          ifThen(b, outRowInside, [&] {
            forLoop(b, c(0), c(16), c(1), [&](Value e) {
              Value col = arith::AddIOp::create(b, outCol, e);
              Value inside =
                  cmpIndex(b, arith::CmpIPredicate::ult, col, c(tile.rows));
              ifThen(b, inside, [&] {
                Value byte =
                    vector::ExtractOp::create(b, run16, OpFoldResult(e));
                Value at = arith::AddIOp::create(b, outRowStart, col);
                memref::StoreOp::create(b, byte, dest, ValueRange{at});
              });
            });
          });
        });
  });
}

TileKernelArgs mlir::teq::kernels::tileKernelArgs(Block *body, bool rowwise,
                                                  bool columnwise) {
  TileKernelArgs args;
  unsigned next = 0;
  args.x = body->getArgument(next++);
  if (rowwise) {
    args.rowData = body->getArgument(next++);
    args.rowScale = body->getArgument(next++);
  }
  if (columnwise) {
    args.colData = body->getArgument(next++);
    args.colScale = body->getArgument(next++);
  }
  return args;
}

//===- NVFP4.cpp - The kernels of an NVFP4 quantization -------------------===//
//
// One file (~900 lines) on purpose: it is one kernel's emitter
// (DataKernelEmitter), whose staging, block quantization and staged writes
// share its members; the amax passes and GEMM alpha are NVFP4Amax.cpp.
//
// The data kernel: one 64x64 tile of x a block (the grid visited in
// reverse: the amax pass left the end of x in L2). The block stages the
// tile in workgroup memory with 16-byte loads (zeros outside x; with 2D
// scaling also the max |x| of each thread's 16 elements, the 16x16 tiles'
// row partials); after one barrier each thread quantizes one rowwise 1x16
// block (tile row tid / 4, block tid % 4: the 16 values it staged, still
// in registers) and one columnwise 16x1 block (tile column tid % 64, block
// tid / 64: consecutive threads read consecutive shared addresses), 8 data
// bytes a block. On whole tiles scales and columnwise bytes go through
// workgroup memory and out as whole words; 2D on whole tiles computes each
// code once. Round-to-nearest blocks without NaN take a fast path.
// bench/RESULTS.md has the measured steps.
//
//===----------------------------------------------------------------------===//

#include "NVFP4.h"

#include "FP4Numerics.h"
#include "NVFP4Amax.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>
#include <optional>

using namespace mlir;
using namespace mlir::teq::kernels;

namespace {

using arith::CmpFPredicate;
using arith::CmpIPredicate;

/// Side of the square tile of the data kernel (one a block).
constexpr int64_t kTile = 64;
/// Elements of a scaling block.
constexpr int64_t kBlock = 16;

/// Whether the data kernel stages its scales and columnwise data in
/// workgroup memory and writes them after the quantization as whole 4-byte
/// scale words and 16-byte data runs (tiles are then whole: a tile row's
/// four block scales are one aligned word in either layout). Byte-wide
/// scale stores and 8-byte columnwise stores 32 rows apart made L2 the
/// busiest unit of the kernel.
bool stagesWrites(const NVFP4Spec &spec) {
  return spec.rows % kTile == 0 && spec.cols % kTile == 0;
}

/// Whether the 2D data kernel computes each element's E2M1 code once: with
/// 16x16 blocks and no RHT both copies scale an element by its tile's one
/// scale (S_enc too: both come from the plain amax), so the columnwise
/// nibbles are the rowwise ones transposed. Round to nearest only
/// (stochastic rounding draws other random bits for each copy), software
/// conversions, both copies, whole tiles. The tile scales are computed once
/// a 16x16 tile; the rowwise phase leaves every code in workgroup memory,
/// from which the columnwise phase packs its bytes.
bool sharesCodes2D(const NVFP4Spec &spec) {
  return spec.twoD && !spec.stochastic && !spec.hardwareConversions &&
         spec.rowwise && spec.columnwise && stagesWrites(spec);
}

Value vectorLoad(ImplicitLocOpBuilder &b, VectorType type, Value memref,
                 Value offset) {
  return vector::LoadOp::create(b, type, memref, ValueRange{offset});
}

void vectorStore(ImplicitLocOpBuilder &b, Value vector, Value memref,
                 Value offset, int64_t alignment) {
  vector::StoreOp::create(b, vector, memref, ValueRange{offset},
                          /*nontemporal=*/false, llvm::Align(alignment));
}

/// One copy (rowwise: x; columnwise: x^T) as the data kernel writes it.
struct Copy {
  bool columnwise = false;
  Value data, scale;     ///< The kernel's arguments.
  Value scaleStage;      ///< Workgroup scale bytes of the tile (staged).
  int64_t rowLength = 0; ///< Elements of a copy row: K, or M columnwise.
  int64_t scaleCols = 0;
};

/// The thread's 16-element block of a copy and where it lives.
struct BlockPlace {
  Value row;                     ///< Copy row.
  Value start;                   ///< First element in the copy row.
  Value index;                   ///< Block index in the copy row.
  Value tileRow;                 ///< Copy row within the tile.
  Value tileStart;               ///< First element within the tile's copy row.
  Value tileBlock;               ///< Block index within the tile's copy row.
  Value tileRow16, tileColumn16; ///< Its 16x16 tile within the 64x64 one.
};

/// The block's 16 values (f32) and magnitudes, and the magnitudes as a
/// vector<16xf32>.
struct BlockValues {
  SmallVector<Value, 16> values, magnitudes;
  Value magnitudeVector;
};

/// A block's E4M3 scale code and its encode multiplier.
struct BlockScale {
  Value code8, enc;
};

class DataKernelEmitter {
public:
  DataKernelEmitter(ImplicitLocOpBuilder &b, const NVFP4Spec &spec,
                    const NVFP4Globals &globals)
      : b(b), spec(spec), globals(globals), staged(stagesWrites(spec)),
        sharedCodes(sharesCodes2D(spec)) {}

  KernelLaunch emit(const EmitContext &ctx, const NVFP4Buffers &buffers);

private:
  void addWorkgroupBuffers(gpu::GPUFuncOp kernel);
  void stageTile();
  void loadCopyConstants();
  void reduceTileAmaxes();
  void quantizeBlock(const Copy &copy);
  void quantizeSharedCodeColumn(const Copy &copy);
  void writeStagedOutputs(const Copy *rowwise, const Copy *columnwise);

  BlockValues loadColumnBlock(const BlockPlace &place, bool withMagnitudes);
  BlockScale scaleFromTable(Value amax, Value sEnc, int copy);
  Value tileAmaxOf(const BlockPlace &place, Value &tileIndex);
  void writeBlock(const Copy &copy, const BlockPlace &place,
                  const BlockValues &block, const BlockScale &scale,
                  const OpaqueMultipliers *nanFree, const PhiloxKey *philox);

  ImplicitLocOpBuilder &b;
  const NVFP4Spec &spec;
  const NVFP4Globals &globals;
  const bool staged, sharedCodes;
  Type element;

  // Arguments.
  Value x, rngState;
  // Workgroup memory: the staged tile, 2D row partials and 16x16 tile
  // amaxes, the per-copy values thread 0 loads (S_enc at 0 and 2, the
  // opaque multipliers at 4..6), the staged scales and columnwise data, and
  // the shared 2D codes and tile scales.
  Value tile, rowPartials, tileAmaxes, copyConstants;
  Value rowScaleStage, columnScaleStage, columnDataStage;
  Value codes, tileCodes, tileEncs;

  // The block's place in the grid and the thread's staged row.
  Value tid, constants, tileK0, tileM0;
  Value stageRow, stageBlock, stageColumn, stageM, stageK;
  Value rowInRange, stageKInRange;
  Value stagedValues;
  // The thread's columnwise block: tile column, block in it, its first
  // element's (k, m).
  Value columnTileColumn, columnBlock, columnK, columnM;
  Value opaqueSixteen; ///< For quantizeSharedCodeColumn.
};

KernelLaunch DataKernelEmitter::emit(const EmitContext &ctx,
                                     const NVFP4Buffers &buffers) {
  const bool both = spec.rowwise && spec.columnwise;
  KernelLaunch launch =
      ctx.launchOf(both           ? llvm::StringLiteral("_nvfp4")
                   : spec.rowwise ? llvm::StringLiteral("_nvfp4_row")
                                  : llvm::StringLiteral("_nvfp4_col"));
  launch.gridX = std::max<int64_t>(1, (spec.cols + kTile - 1) / kTile);
  launch.gridY = std::max<int64_t>(1, (spec.rows + kTile - 1) / kTile);
  launch.blockX = kBlockSize;
  launch.dependentLaunch = spec.dependentLaunch;
  launch.args.push_back(buffers.input);
  if (spec.rowwise)
    launch.args.append({buffers.rowData, buffers.rowScale});
  if (spec.columnwise)
    launch.args.append({buffers.columnData, buffers.columnScale});
  if (spec.stochastic)
    launch.args.push_back(buffers.rngState);

  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel =
      createKernel(b, ctx.module, launch.kernel, launch.args, kBlockSize);
  // 1D round to nearest of 16-bit x on whole tiles fits 32 registers
  // without spills: eight blocks an SM, 2.5% faster than six on the H100
  // (bench/RESULTS.md). 2D needs no more than 32 anyway, and the cap made
  // it slower.
  if (!spec.stochastic && !spec.twoD && staged && spec.input != InputType::F32)
    kernel->setAttr("nvvm.maxnreg", b.getI32IntegerAttr(32));
  addWorkgroupBuffers(kernel);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  unsigned arg = 0;
  x = body->getArgument(arg++);
  element = cast<MemRefType>(x.getType()).getElementType();
  Copy rowwise, columnwise;
  if (spec.rowwise) {
    rowwise.data = body->getArgument(arg++);
    rowwise.scale = body->getArgument(arg++);
    rowwise.scaleStage = rowScaleStage;
    rowwise.rowLength = spec.cols;
    rowwise.scaleCols = spec.rowScaleCols;
  }
  if (spec.columnwise) {
    columnwise.columnwise = true;
    columnwise.data = body->getArgument(arg++);
    columnwise.scale = body->getArgument(arg++);
    columnwise.scaleStage = columnScaleStage;
    columnwise.rowLength = spec.rows;
    columnwise.scaleCols = spec.colScaleCols;
  }
  if (spec.stochastic)
    rngState = body->getArgument(arg++);

  stageTile();
  // With a dependent launch, the staging above may run while the amax pass
  // finishes; nothing the pass writes is read before this wait.
  if (spec.dependentLaunch)
    NVVM::GriddepcontrolOp::create(b, NVVM::GridDepActionKind::wait);
  loadCopyConstants();
  if (spec.twoD)
    reduceTileAmaxes();
  if (spec.rowwise) {
    Value active = arith::AndIOp::create(b, rowInRange, stageKInRange);
    ifThen(b, active, [&] { quantizeBlock(rowwise); });
  }
  if (sharedCodes) {
    // The columnwise phase reads the codes the rowwise one left.
    gpu::BarrierOp::create(b);
    Value sixteen = memref::LoadOp::create(b, copyConstants,
                                           ValueRange{constantIndex(b, 6)});
    opaqueSixteen = arith::BitcastOp::create(b, b.getI32Type(), sixteen);
  }
  if (spec.columnwise) {
    Value c64 = constantIndex(b, kTile);
    columnTileColumn = arith::RemUIOp::create(b, tid, c64);
    columnBlock = arith::DivUIOp::create(b, tid, c64);
    columnK = arith::AddIOp::create(b, tileK0, columnTileColumn);
    Value blockRow =
        arith::MulIOp::create(b, columnBlock, constantIndex(b, kBlock));
    columnM = arith::AddIOp::create(b, tileM0, blockRow);
    Value kIn = arith::CmpIOp::create(b, CmpIPredicate::ult, columnK,
                                      constantIndex(b, spec.cols));
    Value mIn = arith::CmpIOp::create(b, CmpIPredicate::ult, columnM,
                                      constantIndex(b, spec.rows));
    Value active = arith::AndIOp::create(b, kIn, mIn);
    ifThen(b, active, [&] {
      if (sharedCodes)
        quantizeSharedCodeColumn(columnwise);
      else
        quantizeBlock(columnwise);
    });
  }
  if (staged)
    writeStagedOutputs(spec.rowwise ? &rowwise : nullptr,
                       spec.columnwise ? &columnwise : nullptr);
  gpu::ReturnOp::create(b);
  return launch;
}

void DataKernelEmitter::addWorkgroupBuffers(gpu::GPUFuncOp kernel) {
  auto add = [&](Type type, int64_t size, int64_t align) {
    Value buffer = addWorkgroupBuffer(kernel, type, size);
    if (align)
      kernel.setWorkgroupAttributionAttr(
          kernel.getNumWorkgroupAttributions() - 1, "llvm.align",
          b.getI64IntegerAttr(align));
    return buffer;
  };
  Type f32 = b.getF32Type(), i8 = b.getI8Type();
  Type input = elementTypeOf(b, spec.input);
  tile = add(input, kTile * kTile, 16);
  rowPartials = add(f32, kBlockSize, 0);
  tileAmaxes = add(f32, 16, 0);
  copyConstants = add(f32, 8, 0);
  if (staged) {
    // Four scale bytes a tile row and 64 tile rows; columnwise data in
    // 40-byte rows (not 32: consecutive threads' rows then start in
    // different banks).
    rowScaleStage = add(i8, 4 * kTile, 4);
    columnScaleStage = add(i8, 4 * kTile, 4);
    columnDataStage = add(i8, 40 * kTile, 8);
  }
  if (sharedCodes) {
    codes = add(i8, kTile * kTile, 16);
    tileCodes = add(i8, 16, 0);
    tileEncs = add(f32, 16, 0);
  }
}

void DataKernelEmitter::stageTile() {
  const int64_t lastTileX =
      std::max<int64_t>(1, (spec.cols + kTile - 1) / kTile) - 1;
  const int64_t lastTileY =
      std::max<int64_t>(1, (spec.rows + kTile - 1) / kTile) - 1;
  Value c64 = constantIndex(b, kTile), c16 = constantIndex(b, kBlock);
  Value c4 = constantIndex(b, 4);
  Value rows = constantIndex(b, spec.rows), cols = constantIndex(b, spec.cols);
  tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  constants = getDeviceGlobal(b, globals.constants);
  // Tiles in reverse order: the amax pass read the end of x last, and what
  // of it is still in L2 is read first.
  Value blockX = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value blockY = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  Value tileX = arith::SubIOp::create(b, constantIndex(b, lastTileX), blockX);
  Value tileY = arith::SubIOp::create(b, constantIndex(b, lastTileY), blockY);
  tileK0 = arith::MulIOp::create(b, tileX, c64);
  tileM0 = arith::MulIOp::create(b, tileY, c64);
  // Thread tid stages 16 elements of tile row tid / 4.
  stageRow = arith::DivUIOp::create(b, tid, c4);
  stageBlock = arith::RemUIOp::create(b, tid, c4);
  stageColumn = arith::MulIOp::create(b, stageBlock, c16);
  stageM = arith::AddIOp::create(b, tileM0, stageRow);
  stageK = arith::AddIOp::create(b, tileK0, stageColumn);
  rowInRange = arith::CmpIOp::create(b, CmpIPredicate::ult, stageM, rows);
  stageKInRange = arith::CmpIOp::create(b, CmpIPredicate::ult, stageK, cols);
  Value stageEnd = arith::AddIOp::create(b, stageK, c16);
  Value wholeInK = arith::CmpIOp::create(b, CmpIPredicate::ule, stageEnd, cols);
  // K is a multiple of 16: a block is in x whole or not at all, and whole
  // blocks are 16-byte aligned vectors.
  Value whole = arith::AndIOp::create(b, rowInRange, wholeInK);
  Value rowStart = arith::MulIOp::create(b, stageM, cols);
  auto valuesType = VectorType::get({kBlock}, element);
  stagedValues = ifThenElse(
      b, valuesType, whole,
      [&]() -> Value {
        Value offset = arith::AddIOp::create(b, rowStart, stageK);
        return loadVector(b, valuesType, x, offset);
      },
      [&]() -> Value {
        // Zeros outside x.
        Value zeros = arith::ConstantOp::create(
            b, DenseElementsAttr::get(valuesType, b.getZeroAttr(element)));
        return forLoop(
            b, constantIndex(b, 0), c16, constantIndex(b, 1), zeros,
            [&](Value e, Value acc) -> Value {
              Value k = arith::AddIOp::create(b, stageK, e);
              Value kIn = arith::CmpIOp::create(b, CmpIPredicate::ult, k, cols);
              Value in = arith::AndIOp::create(b, rowInRange, kIn);
              Value v = ifThenElse(
                  b, element, in,
                  [&]() -> Value {
                    Value offset = arith::AddIOp::create(b, rowStart, k);
                    return memref::LoadOp::create(b, x, ValueRange{offset});
                  },
                  [&]() -> Value {
                    return arith::ConstantOp::create(b, b.getZeroAttr(element));
                  });
              return vector::InsertOp::create(b, v, acc, OpFoldResult(e));
            });
      });
  Value tileRowStart = arith::MulIOp::create(b, stageRow, c64);
  Value tileOffset = arith::AddIOp::create(b, tileRowStart, stageColumn);
  vector::StoreOp::create(b, stagedValues, tile, ValueRange{tileOffset});
  if (spec.twoD) {
    // The 16x16 tiles' row partials: max |x| over the thread's 16 elements
    // from 0 (a block of NaNs gives 0, as the reference's fmaxf chain).
    Value widened = stagedValues;
    if (spec.input != InputType::F32)
      widened = arith::ExtFOp::create(
          b, VectorType::get({kBlock}, b.getF32Type()), stagedValues);
    Value magnitudes = math::AbsFOp::create(b, widened);
    Value max = vector::ReductionOp::create(b, vector::CombiningKind::MAXNUMF,
                                            magnitudes, constantF32(b, 0.0f));
    memref::StoreOp::create(b, max, rowPartials, ValueRange{tid});
  }
}

void DataKernelEmitter::loadCopyConstants() {
  // Thread 0: each copy's S_enc (the amax pass left it in the constants
  // global) into copyConstants[0] (rowwise) and [2] (columnwise), and the
  // fast path's integer multipliers 2, 8, 16 as values LLVM cannot fold
  // (OpaqueMultipliers) into [4..6].
  Value first =
      arith::CmpIOp::create(b, CmpIPredicate::eq, tid, constantIndex(b, 0));
  ifThen(b, first, [&] {
    for (int copy = 0; copy < 2; ++copy) {
      if (!(copy ? spec.columnwise : spec.rowwise))
        continue;
      Value sEnc = memref::LoadOp::create(b, constants,
                                          ValueRange{constantIndex(b, copy)});
      memref::StoreOp::create(b, sEnc, copyConstants,
                              ValueRange{constantIndex(b, 2 * copy)});
    }
    for (auto [slot, value] : {std::pair{4, 2}, {5, 8}, {6, 16}}) {
      Value bits = constantI32(b, value);
      Value asFloat = arith::BitcastOp::create(b, b.getF32Type(), bits);
      memref::StoreOp::create(b, asFloat, copyConstants,
                              ValueRange{constantIndex(b, slot)});
    }
  });
  gpu::BarrierOp::create(b);
}

void DataKernelEmitter::reduceTileAmaxes() {
  // Thread t < 16: the amax of 16x16 tile (t / 4, t % 4), the max of its 16
  // row partials (NaN-ignoring max is order free, and the zeros outside
  // the tensor do not change it).
  Value c4 = constantIndex(b, 4), c16 = constantIndex(b, 16);
  Value tileThread = arith::CmpIOp::create(b, CmpIPredicate::ult, tid, c16);
  ifThen(b, tileThread, [&] {
    Value tileRow = arith::DivUIOp::create(b, tid, c4);
    Value tileColumn = arith::RemUIOp::create(b, tid, c4);
    Value row0 = arith::MulIOp::create(b, tileRow, c16);
    Value amax =
        forLoop(b, constantIndex(b, 0), c16, constantIndex(b, 1),
                constantF32(b, 0.0f), [&](Value u, Value max) -> Value {
                  Value row = arith::AddIOp::create(b, row0, u);
                  Value rowStart = arith::MulIOp::create(b, row, c4);
                  Value index = arith::AddIOp::create(b, rowStart, tileColumn);
                  Value partial =
                      memref::LoadOp::create(b, rowPartials, ValueRange{index});
                  return arith::MaxNumFOp::create(b, max, partial);
                });
    memref::StoreOp::create(b, amax, tileAmaxes, ValueRange{tid});
    if (sharedCodes) {
      // The tile's scale, once (both copies use it; S_enc is the rowwise
      // one, equal to the columnwise one here).
      Value sEnc = memref::LoadOp::create(b, copyConstants,
                                          ValueRange{constantIndex(b, 0)});
      BlockScale scale = scaleFromTable(amax, sEnc, /*copy=*/0);
      memref::StoreOp::create(b, scale.code8, tileCodes, ValueRange{tid});
      memref::StoreOp::create(b, scale.enc, tileEncs, ValueRange{tid});
    }
  });
  gpu::BarrierOp::create(b);
}

BlockScale DataKernelEmitter::scaleFromTable(Value amax, Value sEnc, int copy) {
  // The code's encode multiplier is the amax pass's (fillNVFP4Constants),
  // looked up instead of divided.
  E4M3Code code = nvfp4ScaleCode(b, amax, sEnc);
  Value codeIndex = arith::IndexCastOp::create(b, b.getIndexType(), code.code);
  Value entry = arith::AddIOp::create(
      b, codeIndex, constantIndex(b, kNVFP4EncodeTable[copy]));
  Value enc = memref::LoadOp::create(b, constants, ValueRange{entry});
  return {code.code8, enc};
}

BlockValues DataKernelEmitter::loadColumnBlock(const BlockPlace &place,
                                               bool withMagnitudes) {
  // Element e of the block is x[m0 + tileStart + e][k0 + tileRow]: tile
  // offset (tileStart + e) * 64 + tileRow. Consecutive threads read
  // consecutive shared addresses.
  BlockValues block;
  for (int i = 0; i < kBlock; ++i) {
    Value e = arith::AddIOp::create(b, place.tileStart, constantIndex(b, i));
    Value rowStart = arith::MulIOp::create(b, e, constantIndex(b, kTile));
    Value offset = arith::AddIOp::create(b, rowStart, place.tileRow);
    Value v = memref::LoadOp::create(b, tile, ValueRange{offset});
    if (!v.getType().isF32())
      v = arith::ExtFOp::create(b, b.getF32Type(), v);
    block.values.push_back(v);
    if (withMagnitudes)
      block.magnitudes.push_back(math::AbsFOp::create(b, v));
  }
  if (withMagnitudes)
    block.magnitudeVector = vector::FromElementsOp::create(
        b, VectorType::get({kBlock}, b.getF32Type()), block.magnitudes);
  return block;
}

Value DataKernelEmitter::tileAmaxOf(const BlockPlace &place, Value &tileIndex) {
  Value rowStart =
      arith::MulIOp::create(b, place.tileRow16, constantIndex(b, 4));
  tileIndex = arith::AddIOp::create(b, rowStart, place.tileColumn16);
  return memref::LoadOp::create(b, tileAmaxes, ValueRange{tileIndex});
}

void DataKernelEmitter::quantizeBlock(const Copy &copy) {
  const bool columnwise = copy.columnwise;
  const bool rht = columnwise && spec.rht;
  Value c16 = constantIndex(b, kBlock);
  BlockPlace place;
  if (columnwise) {
    // Tile column tid % 64, block tid / 64.
    place.row = columnK;
    place.start = columnM;
    place.index = arith::DivUIOp::create(b, place.start, c16);
    place.tileRow = columnTileColumn;
    place.tileStart = arith::MulIOp::create(b, columnBlock, c16);
    place.tileRow16 = columnBlock;
    place.tileColumn16 = arith::DivUIOp::create(b, columnTileColumn, c16);
    place.tileBlock = columnBlock;
  } else {
    // Tile row tid / 4, block tid % 4: the block the thread staged.
    place.row = stageM;
    place.start = stageK;
    place.index = arith::DivUIOp::create(b, stageK, c16);
    place.tileRow = stageRow;
    place.tileStart = stageColumn;
    place.tileRow16 = arith::DivUIOp::create(b, stageRow, c16);
    place.tileColumn16 = stageBlock;
    place.tileBlock = stageBlock;
  }
  std::optional<PhiloxKey> philox;
  if (spec.stochastic)
    philox = philoxKeyFromState(b, rngState, columnwise);
  Value sEnc = memref::LoadOp::create(
      b, copyConstants, ValueRange{constantIndex(b, columnwise ? 2 : 0)});

  BlockValues block;
  Value zero = constantF32(b, 0.0f);
  if (rht) {
    BlockValues loaded = loadColumnBlock(place, /*withMagnitudes=*/false);
    HadamardBlock transformed = randomHadamard16(b, loaded.values);
    block.values = transformed.values;
    block.magnitudes = transformed.magnitudes;
    block.magnitudeVector = transformed.magnitudeVector;
  } else if (!columnwise) {
    // The thread staged exactly this block: its values are still in
    // registers.
    Value widened = stagedValues;
    if (spec.input != InputType::F32)
      widened = arith::ExtFOp::create(
          b, VectorType::get({kBlock}, b.getF32Type()), stagedValues);
    for (int i = 0; i < kBlock; ++i)
      block.values.push_back(vector::ExtractOp::create(b, widened, int64_t(i)));
    block.magnitudeVector = math::AbsFOp::create(b, widened);
    for (int i = 0; i < kBlock; ++i)
      block.magnitudes.push_back(
          vector::ExtractOp::create(b, block.magnitudeVector, int64_t(i)));
  } else {
    block = loadColumnBlock(place, /*withMagnitudes=*/true);
  }

  // The block's amax (NaN-ignoring): its 16x16 tile's with 2D scaling; else
  // max(0, max |x_i|) with 0 as the reduction's accumulator (a block of
  // NaNs has amax 0, as the reference's fmaxf chain from 0; a native
  // max.f32 that ptxas keeps: test/Tools/ptxas-nan-max.mlir).
  Value tileIndex;
  auto blockAmax = [&]() -> Value {
    if (spec.twoD)
      return tileAmaxOf(place, tileIndex);
    return vector::ReductionOp::create(b, vector::CombiningKind::MAXNUMF,
                                       block.magnitudeVector, zero);
  };
  // The block's scale (computed, or with shared 2D codes the tile's).
  auto scaleOf = [&](Value amax) -> BlockScale {
    if (sharedCodes) {
      Value code8 = memref::LoadOp::create(b, tileCodes, ValueRange{tileIndex});
      Value enc = memref::LoadOp::create(b, tileEncs, ValueRange{tileIndex});
      return {code8, enc};
    }
    return scaleFromTable(amax, sEnc, columnwise);
  };
  auto opaqueMultipliers = [&]() {
    Value loaded[3];
    for (int i = 0; i < 3; ++i)
      loaded[i] = memref::LoadOp::create(b, copyConstants,
                                         ValueRange{constantIndex(b, 4 + i)});
    OpaqueMultipliers opaque;
    opaque.two = arith::BitcastOp::create(b, b.getI32Type(), loaded[0]);
    opaque.eight = arith::BitcastOp::create(b, b.getI32Type(), loaded[1]);
    opaque.sixteen = arith::BitcastOp::create(b, b.getI32Type(), loaded[2]);
    return opaque;
  };
  auto generalPath = [&] {
    BlockScale scale = scaleOf(blockAmax());
    writeBlock(copy, place, block, scale, nullptr, philox ? &*philox : nullptr);
  };

  // Round-to-nearest blocks in software take a fast path when they hold no
  // NaN (the NaN-propagating max of |x_i| tells): the sign bit is then bit
  // 3 as is. Blocks with a NaN take the general path.
  const bool fast = !spec.stochastic && !spec.hardwareConversions;
  if (!fast) {
    generalPath();
    return;
  }
  Value nanOrMax = vector::ReductionOp::create(
      b, vector::CombiningKind::MAXIMUMF, block.magnitudeVector, zero);
  if (spec.twoD) {
    // 2D: blocks without NaN take the fast path (the tile's scale).
    Value hasNaN =
        arith::CmpFOp::create(b, CmpFPredicate::UNO, nanOrMax, nanOrMax);
    ifThenElse(b, hasNaN, generalPath, [&] {
      OpaqueMultipliers opaque = opaqueMultipliers();
      BlockScale scale = scaleOf(blockAmax());
      writeBlock(copy, place, block, scale, &opaque, nullptr);
    });
    return;
  }
  // 1D: the block's scale comes from the NaN-propagating max before the
  // branch; the fast path takes the blocks without NaN whose |x_i| * enc
  // are all below 7 (RN(amax * enc) < 7 bounds every one; a NaN makes it
  // false), so that E2M1 needs no saturation and whole words are packed.
  // Others (a NaN, or a subnormal or zero scale) take the general path,
  // which computes the scale again from the NaN-ignoring amax.
  BlockScale scale = scaleFromTable(nanOrMax, sEnc, columnwise);
  Value saturation = arith::MulFOp::create(b, nanOrMax, scale.enc);
  Value belowSeven = arith::CmpFOp::create(b, CmpFPredicate::OLT, saturation,
                                           constantF32(b, 7.0f));
  ifThenElse(
      b, belowSeven,
      [&] {
        OpaqueMultipliers opaque = opaqueMultipliers();
        writeBlock(copy, place, block, scale, &opaque, nullptr);
      },
      generalPath);
}

void DataKernelEmitter::writeBlock(const Copy &copy, const BlockPlace &place,
                                   const BlockValues &block,
                                   const BlockScale &scale,
                                   const OpaqueMultipliers *nanFree,
                                   const PhiloxKey *philox) {
  const bool columnwise = copy.columnwise;
  // The scale: into the tile's scale stage (row tileRow, byte tileBlock),
  // else straight to the scale buffer.
  if (staged) {
    Value rowStart =
        arith::MulIOp::create(b, place.tileRow, constantIndex(b, 4));
    Value offset = arith::AddIOp::create(b, rowStart, place.tileBlock);
    memref::StoreOp::create(b, scale.code8, copy.scaleStage,
                            ValueRange{offset});
  } else {
    Value offset =
        scaleOffset(b, place.row, place.index, spec.swizzled, copy.scaleCols,
                    copy.scaleCols / 4);
    memref::StoreOp::create(b, scale.code8, copy.scale, ValueRange{offset});
  }
  // The block's 8 bytes in the data: copy row `row`, bytes 8 * index on (a
  // multiple of 8).
  const bool toStage = staged && columnwise;
  Value dataOffset;
  if (!toStage) {
    Value rowStart = arith::MulIOp::create(
        b, place.row, constantIndex(b, copy.rowLength / 2));
    Value blockStart =
        arith::MulIOp::create(b, place.index, constantIndex(b, 8));
    dataOffset = arith::AddIOp::create(b, rowStart, blockStart);
  }
  // Stochastic rounding: element i of the copy (row-major in the stored
  // orientation, i = row * rowLength + e) rounds with Philox word i % 4 of
  // block i / 4 (Random.h); the block starts at a multiple of 16: four
  // Philox blocks.
  SmallVector<std::array<Value, 4>, 4> randomWords;
  if (philox) {
    Value rowStart =
        arith::MulIOp::create(b, place.row, constantIndex(b, copy.rowLength));
    Value first = arith::AddIOp::create(b, rowStart, place.start);
    Value first64 = arith::IndexCastOp::create(b, b.getI64Type(), first);
    Value block0 = arith::ShRUIOp::create(
        b, first64, arith::ConstantIntOp::create(b, b.getI64Type(), 2));
    Value blocks[4] = {block0};
    for (int j = 1; j < 4; ++j)
      blocks[j] = arith::AddIOp::create(
          b, block0, arith::ConstantIntOp::create(b, b.getI64Type(), j));
    for (int j = 0; j < 4; ++j)
      randomWords.push_back(philox4x32(b, *philox, blocks[j]));
  }
  const bool wholeWords = nanFree && !spec.twoD;
  Value bytes;
  SmallVector<Value, 16> codeBytes;
  if (wholeWords) {
    bytes = e2m1PackNaNFreeBlock(b, block.magnitudes, block.values, scale.enc,
                                 *nanFree);
  } else {
    SmallVector<Value, 8> pairs;
    for (int pair = 0; pair < kBlock / 2; ++pair) {
      Value nibbles[2];
      if (philox) {
        Value scaled[2];
        for (int h = 0; h < 2; ++h)
          scaled[h] =
              arith::MulFOp::create(b, block.values[2 * pair + h], scale.enc);
        for (int h = 0; h < 2; ++h)
          nibbles[h] = e2m1StochasticNibble(
              b, scaled[h], randomWords[pair / 2][2 * (pair % 2) + h]);
      } else if (spec.hardwareConversions) {
        // Blackwell: the hardware conversion of x * enc.
        Value scaled[2];
        for (int h = 0; h < 2; ++h)
          scaled[h] =
              arith::MulFOp::create(b, block.values[2 * pair + h], scale.enc);
        for (int h = 0; h < 2; ++h)
          nibbles[h] = e2m1NibbleHardware(b, scaled[h]);
      } else {
        // Round to nearest from |x| * enc (= |x * enc|, enc being positive
        // and finite), x's sign.
        Value scaled[2];
        for (int h = 0; h < 2; ++h)
          scaled[h] = arith::MulFOp::create(b, block.magnitudes[2 * pair + h],
                                            scale.enc);
        for (int h = 0; h < 2; ++h)
          nibbles[h] =
              nanFree ? e2m1NibbleNaNFree(b, scaled[h],
                                          block.values[2 * pair + h], *nanFree)
                      : e2m1Nibble(b, scaled[h], block.values[2 * pair + h]);
      }
      // Two codes a byte, the even element in the low nibble. NaN-free
      // codes are 4 bits wide: n0 + 16 * n1 by an integer multiply-add.
      Value word;
      if (nanFree) {
        Value high = arith::MulIOp::create(b, nibbles[1], nanFree->sixteen);
        word = arith::AddIOp::create(b, nibbles[0], high);
      } else {
        Value high = arith::ShLIOp::create(b, nibbles[1], constantI32(b, 4));
        word = arith::OrIOp::create(b, nibbles[0], high);
      }
      pairs.push_back(arith::TruncIOp::create(b, b.getI8Type(), word));
      if (sharedCodes)
        for (int h = 0; h < 2; ++h)
          codeBytes.push_back(
              arith::TruncIOp::create(b, b.getI8Type(), nibbles[h]));
    }
    if (sharedCodes) {
      // Every element's code (sign and magnitude in the low byte) for the
      // columnwise phase: tile row tileRow, columns tileStart + 0..15.
      Value codeVector = vector::FromElementsOp::create(
          b, VectorType::get({kBlock}, b.getI8Type()), codeBytes);
      Value rowStart =
          arith::MulIOp::create(b, place.tileRow, constantIndex(b, kTile));
      Value offset = arith::AddIOp::create(b, rowStart, place.tileStart);
      vectorStore(b, codeVector, codes, offset, 16);
    }
    bytes = vector::FromElementsOp::create(
        b, VectorType::get({8}, b.getI8Type()), pairs);
  }
  if (toStage) {
    // Tile column tileRow's 40-byte row of the columnwise data stage.
    Value rowStart =
        arith::MulIOp::create(b, place.tileRow, constantIndex(b, 40));
    Value blockStart =
        arith::MulIOp::create(b, place.tileBlock, constantIndex(b, 8));
    Value offset = arith::AddIOp::create(b, rowStart, blockStart);
    vectorStore(b, bytes, columnDataStage, offset, 8);
    return;
  }
  vectorStore(b, bytes, copy.data, dataOffset, 8);
}

void DataKernelEmitter::quantizeSharedCodeColumn(const Copy &copy) {
  // Tile column `column`'s block `block` takes its 16x16 tile's scale code
  // and packs its 16 codes, read down the column of `codes`, two a byte.
  Value c4 = constantIndex(b, 4), c16 = constantIndex(b, 16);
  Value column = columnTileColumn, block = columnBlock;
  Value tileRowStart = arith::MulIOp::create(b, block, c4);
  Value tileColumn = arith::DivUIOp::create(b, column, c16);
  Value tileIndex = arith::AddIOp::create(b, tileRowStart, tileColumn);
  Value code8 = memref::LoadOp::create(b, tileCodes, ValueRange{tileIndex});
  Value scaleRowStart = arith::MulIOp::create(b, column, c4);
  Value scaleOffset = arith::AddIOp::create(b, scaleRowStart, block);
  memref::StoreOp::create(b, code8, copy.scaleStage, ValueRange{scaleOffset});
  Value row0 = arith::MulIOp::create(b, block, c16);
  SmallVector<Value, 16> nibbles;
  for (int i = 0; i < kBlock; ++i) {
    Value row = arith::AddIOp::create(b, row0, constantIndex(b, i));
    Value rowStart = arith::MulIOp::create(b, row, constantIndex(b, kTile));
    Value offset = arith::AddIOp::create(b, rowStart, column);
    Value code = memref::LoadOp::create(b, codes, ValueRange{offset});
    nibbles.push_back(arith::ExtUIOp::create(b, b.getI32Type(), code));
  }
  // Two codes a byte, the even row in the low nibble (codes are < 16).
  SmallVector<Value, 8> bytes;
  for (int j = 0; j < kBlock / 2; ++j) {
    Value high = arith::MulIOp::create(b, nibbles[2 * j + 1], opaqueSixteen);
    Value word = arith::AddIOp::create(b, nibbles[2 * j], high);
    bytes.push_back(arith::TruncIOp::create(b, b.getI8Type(), word));
  }
  Value byteVector = vector::FromElementsOp::create(
      b, VectorType::get({8}, b.getI8Type()), bytes);
  Value stageRowStart = arith::MulIOp::create(b, column, constantIndex(b, 40));
  Value stageBlockStart = arith::MulIOp::create(b, block, constantIndex(b, 8));
  Value stageOffset = arith::AddIOp::create(b, stageRowStart, stageBlockStart);
  vectorStore(b, byteVector, columnDataStage, stageOffset, 8);
}

void DataKernelEmitter::writeStagedOutputs(const Copy *rowwise,
                                           const Copy *columnwise) {
  // After a barrier: threads 0-63 write the rowwise scale word of tile row
  // tid, 64-127 the columnwise one of tile column tid - 64, 128-255 half a
  // tile column's 32 data bytes each (16 contiguous bytes: whole sectors).
  gpu::BarrierOp::create(b);
  Value c64 = constantIndex(b, kTile);
  auto i8x4 = VectorType::get({4}, b.getI8Type());
  // Threads first..first+63: the 4-byte scale word of copy row rowBase + t,
  // blocks from colBase / 16.
  auto writeScaleWords = [&](const Copy &copy, int64_t first, Value rowBase,
                             Value colBase) {
    Value t = arith::SubIOp::create(b, tid, constantIndex(b, first));
    Value writes = arith::CmpIOp::create(b, CmpIPredicate::ult, t, c64);
    ifThen(b, writes, [&] {
      Value stageOffset = arith::MulIOp::create(b, t, constantIndex(b, 4));
      Value word = vectorLoad(b, i8x4, copy.scaleStage, stageOffset);
      Value i = arith::AddIOp::create(b, rowBase, t);
      Value j = arith::DivUIOp::create(b, colBase, constantIndex(b, kBlock));
      Value offset = scaleOffset(b, i, j, spec.swizzled, copy.scaleCols,
                                   copy.scaleCols / 4);
      vectorStore(b, word, copy.scale, offset, 4);
    });
  };
  if (rowwise)
    writeScaleWords(*rowwise, 0, tileM0, tileK0);
  if (!columnwise)
    return;
  writeScaleWords(*columnwise, kTile, tileK0, tileM0);
  Value c2 = constantIndex(b, 2), c8 = constantIndex(b, 8);
  Value c128 = constantIndex(b, 128);
  Value dataThread = arith::CmpIOp::create(b, CmpIPredicate::uge, tid, c128);
  ifThen(b, dataThread, [&] {
    Value t = arith::SubIOp::create(b, tid, c128);
    Value column = arith::DivUIOp::create(b, t, c2);
    Value half = arith::RemUIOp::create(b, t, c2);
    Value stageRowStart =
        arith::MulIOp::create(b, column, constantIndex(b, 40));
    Value halfStart = arith::MulIOp::create(b, half, constantIndex(b, 16));
    Value stageOffset = arith::AddIOp::create(b, stageRowStart, halfStart);
    Value stageOffset8 = arith::AddIOp::create(b, stageOffset, c8);
    auto i8x8 = VectorType::get({8}, b.getI8Type());
    Value low = vectorLoad(b, i8x8, columnDataStage, stageOffset);
    Value high = vectorLoad(b, i8x8, columnDataStage, stageOffset8);
    Value k = arith::AddIOp::create(b, tileK0, column);
    Value rowStart =
        arith::MulIOp::create(b, k, constantIndex(b, spec.rows / 2));
    Value m0Bytes = arith::DivUIOp::create(b, tileM0, c2);
    Value tileStart = arith::AddIOp::create(b, rowStart, m0Bytes);
    Value offset = arith::AddIOp::create(b, tileStart, halfStart);
    Value offset8 = arith::AddIOp::create(b, offset, c8);
    vectorStore(b, low, columnwise->data, offset, 8);
    vectorStore(b, high, columnwise->data, offset8, 8);
  });
}

/// Emits kernel `<prefix><suffix>` zero-filling `buffer` (memref<S x i8>):
/// a scale buffer's padding must read as zero (te-semantics.md §4.2).
KernelLaunch emitZeroFill(const EmitContext &ctx, llvm::StringLiteral suffix,
                          Value buffer) {
  ImplicitLocOpBuilder &b = ctx.b;
  const int64_t bytes = cast<MemRefType>(buffer.getType()).getNumElements();
  KernelLaunch launch = ctx.launchOf(suffix);
  launch.gridX = blocksFor(bytes, kBlockSize, /*maxBlocks=*/1024);
  launch.blockX = kBlockSize;
  launch.args = {buffer};
  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel =
      createKernel(b, ctx.module, launch.kernel, launch.args, kBlockSize);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  GridStride stride = gridStride1D(b, kBlockSize);
  Value zero = arith::ConstantIntOp::create(b, b.getI8Type(), 0);
  forLoop(b, stride.start, constantIndex(b, bytes), stride.step, [&](Value i) {
    memref::StoreOp::create(b, zero, body->getArgument(0), ValueRange{i});
  });
  gpu::ReturnOp::create(b);
  return launch;
}

} // namespace

KernelGroup mlir::teq::kernels::emitNVFP4Quantize(
    const EmitContext &ctx, const NVFP4Spec &spec,
    const NVFP4Buffers &buffers) {
  ImplicitLocOpBuilder &b = ctx.b;
  // teq.quantize takes only shapes with M and K multiples of 16 (TE's
  // quantizers do the same): every copy row is whole blocks.
  assert(spec.rows % kBlock == 0 && spec.cols % kBlock == 0 &&
         "NVFP4 shapes are multiples of 16");
  SmallVector<KernelLaunch> launches;
  // Scale padding the data kernel does not write: rows or block columns
  // beyond the tensor's (rowwise; columnwise: of its transpose).
  auto padded = [](int64_t scaleRows, int64_t scaleCols, int64_t rows,
                   int64_t cols) {
    return scaleRows > rows || scaleCols > (cols + kBlock - 1) / kBlock;
  };
  const bool zeroRowScales =
      spec.rowwise &&
      padded(spec.rowScaleRows, spec.rowScaleCols, spec.rows, spec.cols);
  const bool zeroColumnScales =
      spec.columnwise &&
      padded(spec.colScaleRows, spec.colScaleCols, spec.cols, spec.rows);

  // The plain amax feeds the rowwise copy, and the columnwise one unless
  // that is RHT-transformed (its amax is then the transformed tensor's,
  // computed in the same read of x as the plain one).
  const bool rht = spec.columnwise && spec.rht;
  SmallVector<Value, 2> plainAmaxes;
  if (spec.rowwise)
    plainAmaxes.push_back(buffers.rowAmax);
  if (spec.columnwise && !spec.rht)
    plainAmaxes.push_back(buffers.columnAmax);
  KernelGroup ordered;
  if (!spec.rowwise && !spec.columnwise)
    return ordered;
  NVFP4Globals globals = addNVFP4Globals(b, ctx.module, ctx.prefix);
  if (rht)
    launches.push_back(emitNVFP4RhtAmaxPass(
        ctx, spec, globals, buffers.input, buffers.columnAmax,
        spec.rowwise ? buffers.rowAmax : Value()));
  else
    launches.push_back(
        emitNVFP4AmaxPass(ctx, spec, globals, buffers.input, plainAmaxes));
  launches.push_back(DataKernelEmitter(b, spec, globals).emit(ctx, buffers));
  // The zero-fills run first; their kernels follow in the module.
  if (zeroRowScales)
    ordered.push_back(emitZeroFill(ctx, "_zero_rs", buffers.rowScale));
  if (zeroColumnScales)
    ordered.push_back(emitZeroFill(ctx, "_zero_cs", buffers.columnScale));
  ordered.append(launches.begin(), launches.end());
  return ordered;
}

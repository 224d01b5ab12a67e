//===- PerTensorFP8.cpp - Per-tensor FP8 quantization kernels -------------===//

#include "PerTensorFP8.h"
#include "Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::teq::kernels;

namespace {
/// Elements a cast thread converts at a time: 16 bytes of FP8 output.
constexpr int64_t kChunk = 16;
/// Side of the transposing cast's square tile.
constexpr int64_t kTile = 64;
/// Bytes between tile rows in shared memory: 16 more than a row, so that
/// the column reads of the transpose spread over the banks.
constexpr int64_t kTileRowStride = kTile + 16;
/// Warps of a block: the slots of a block max reduction.
constexpr int64_t kWarps = kBlockSize / 32;
/// Current-scaling tensors up to this many elements have no scale kernel:
/// every cast block reduces the partials and computes the scale itself
/// (identically), saving a launch where launches dominate.
constexpr int64_t kFusedScaleMaxElements = int64_t(1) << 22;

bool fusesScale(const PerTensorFP8Spec &spec) {
  // A reduced amax comes from the group, after the amax pass.
  return !spec.delayed && !spec.reduceAmax && !spec.scaleFromProducer &&
         spec.rows * spec.cols <= kFusedScaleMaxElements;
}

/// Whether the amax pass itself computes the scale (current scaling of a
/// tensor too large for fusesScale, no amax reduction): each block folds
/// its maximum into a device global by an atomic max, and the last block
/// done computes the scale. This replaces the one-block scale kernel (its
/// launch, and the gaps before and after it: 3.6-3.8 us a call on an H200).
bool amaxPassScales(const PerTensorFP8Spec &spec) {
  return !spec.delayed && !spec.reduceAmax && !spec.scaleFromProducer &&
         !fusesScale(spec);
}

/// Blocks of the amax pass over `numElements` inputs (one partial each).
int64_t amaxGridSize(int64_t numElements, InputType input) {
  int64_t vectors = numElements / (16 / bytesOf(input));
  // Enough blocks to fill an H100 several times over, few enough partials
  // for one block to reduce.
  return blocksFor(vectors, kBlockSize, /*maxBlocks=*/1024);
}

/// Grid of the cast kernel: 64x64 tiles when transposing, else a
/// grid-stride loop over 16-element chunks.
void perTensorCastGrid(const PerTensorFP8Spec &spec, int64_t &gridX,
                       int64_t &gridY) {
  if (spec.transpose) {
    gridX = (spec.cols + kTile - 1) / kTile;
    gridY = (spec.rows + kTile - 1) / kTile;
    return;
  }
  int64_t chunks = (spec.rows * spec.cols + kChunk - 1) / kChunk;
  // 16 blocks per SM of an H100 (132 SMs); the loop strides over the rest.
  gridX = blocksFor(chunks, kBlockSize, /*maxBlocks=*/132 * 16);
  gridY = 1;
}

} // namespace

bool mlir::teq::kernels::canSumColumns(const PerTensorFP8Spec &spec) {
  // Whole tiles of whole 16-element chunks: every thread's chunk is a
  // loaded vector, so the sums need no bounds.
  return spec.transpose && spec.rows % kTile == 0 && spec.cols % kTile == 0;
}

int64_t mlir::teq::kernels::perTensorColumnSumChunks(
    const PerTensorFP8Spec &spec) {
  return spec.rows / kTile;
}

namespace {

/// Amax partials a quantization produces: one per amax block (current
/// scaling) or per cast block (delayed scaling, recorded by the cast).
int64_t amaxPartialsCount(const PerTensorFP8Spec &spec) {
  if (!spec.delayed)
    return amaxGridSize(spec.rows * spec.cols, spec.input);
  int64_t gx, gy;
  perTensorCastGrid(spec, gx, gy);
  return gx * gy;
}

Value absMax(ImplicitLocOpBuilder &b, Value max, Value value) {
  return arith::MaxNumFOp::create(b, max, math::AbsFOp::create(b, value));
}

/// max|lanes| of an f32 vector.
Value vectorAbsMax(ImplicitLocOpBuilder &b, Value values) {
  return vector::ReductionOp::create(b, vector::CombiningKind::MAXNUMF,
                                     math::AbsFOp::create(b, values));
}

/// Thread 0 of each of `grid` blocks: folds the block's `blockMax` into the
/// running maximum `acc` and counts itself done in `count` (device globals);
/// the last block done calls `onLast` with the total and resets both for
/// the next launch. Non-negative floats (never NaN: the maxima start from 0
/// and ignore NaN) order as their bit patterns, so the max of the patterns
/// is the pattern of the max: the same amax as a reduction tree.
void foldIntoLastBlock(ImplicitLocOpBuilder &b, memref::GlobalOp accGlobal,
                       memref::GlobalOp countGlobal, Value blockMax,
                       int64_t grid, llvm::function_ref<void(Value)> onLast) {
  Type i32 = b.getI32Type();
  Value zero = constantIndex(b, 0);
  Value acc = getDeviceGlobal(b, accGlobal);
  Value count = getDeviceGlobal(b, countGlobal);
  memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::maxu,
                              arith::BitcastOp::create(b, i32, blockMax), acc,
                              ValueRange{zero});
  NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
  Value done = memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addi,
                                           constantI32(b, 1), count,
                                           ValueRange{zero});
  Value last = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, done,
                                     constantI32(b, grid - 1));
  ifThen(b, last, [&] {
    NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
    // An atomic read: the other blocks' maxima, not a cached line.
    Value total = memref::AtomicRMWOp::create(
        b, arith::AtomicRMWKind::maxu, constantI32(b, 0), acc,
        ValueRange{zero});
    onLast(arith::BitcastOp::create(b, b.getF32Type(), total));
    memref::StoreOp::create(b, constantI32(b, 0), acc, ValueRange{zero});
    memref::StoreOp::create(b, constantI32(b, 0), count, ValueRange{zero});
  });
}

class PerTensorFP8Emitter {
public:
  PerTensorFP8Emitter(const EmitContext &ctx, const PerTensorFP8Spec &spec,
                      const PerTensorFP8Buffers &buffers)
      : ctx(ctx), b(ctx.b), module(ctx.module), spec(spec), buffers(buffers),
        inputType(elementTypeOf(b, spec.input)) {}

  KernelGroup emit();

private:
  KernelLaunch emitCast();
  KernelLaunch emitAmax();
  KernelLaunch emitScale();
  /// reduceAmax: the partials' max into buffers.amax (one block).
  KernelLaunch emitAmaxOut();
  KernelLaunch emitRecord();

  /// The cast's scale, each thread computing it from the partials
  /// (fusesScale); block (0, 0) thread 0 stores scale_inv.
  Value fusedScale(Value shared, Value scaleInv);
  /// The cast's transposing body: one 64x64 tile a block. `getScale` is
  /// called (once, by every thread) after the tile's vector load.
  Value castTile(Value x, Value data, Value transpose,
                 llvm::function_ref<Value()> getScale, Value tile,
                 Value columnSums, Value warpSums);
  /// columnSums: the sums of this thread's chunk column over its warp's 8
  /// tile rows into `warpSums` [warp][64] (lanes 0-3), before the barrier.
  void warpColumnSums(Value chunk, Value tid, Value warpSums);
  /// columnSums, after the barrier: threads 0-63 add the warps' sums in
  /// warp order and store the tile's row of partials.
  void storeTileColumnSums(Value tid, Value warpSums, Value columnSums,
                           Value tileRow, Value k0);
  /// The cast's elementwise body: a grid-stride loop over 16-element chunks.
  Value castElementwise(Value x, Value data, Value scale, int64_t gridX);
  /// amaxPassScales, thread 0 of each amax block: folds the block's max
  /// into the running maximum; the last block stores the scale (scale
  /// value global, `scaleInv`) and resets the globals.
  void finishScale(Value blockMax, int64_t grid, Value scaleInv);
  /// TE's scale and scale_inv from `amax`: the scale into the module
  /// global the cast reads, scale_inv into `scaleInv`.
  void storeScale(Value amax, Value scaleInv);
  /// Delayed scaling: the block's max of `amax` into partials[index].
  void recordBlockAmax(Value amax, Value tid, Value shared, Value index);
  /// The max of the partials `tid`, `tid` + 256, ... (a thread's share).
  Value threadPartialsMax(Value tid);
  /// The max of the partials, handed to `onThread0` in thread 0.
  void partialsMax(Value tid, Value shared,
                   llvm::function_ref<void(Value)> onThread0);

  gpu::GPUFuncOp newKernel(KernelLaunch &launch, llvm::StringLiteral suffix) {
    launch.kernel = ctx.symbol(suffix);
    launch.stage = suffix;
    launch.blockX = kBlockSize;
    return createKernel(b, module, launch.kernel, launch.args, kBlockSize);
  }
  Value sharedMaxSlots(gpu::GPUFuncOp kernel) {
    return addWorkgroupBuffer(kernel, b.getF32Type(), kWarps);
  }
  Value c(int64_t value) { return constantIndex(b, value); }
  VectorType vectorOf(int64_t n, Type element) {
    return VectorType::get({n}, element);
  }

  const EmitContext &ctx;
  ImplicitLocOpBuilder &b;
  gpu::GPUModuleOp module;
  const PerTensorFP8Spec &spec;
  const PerTensorFP8Buffers &buffers;
  Type inputType;
  memref::GlobalOp partials, scaleValue, amaxAcc, amaxCount;
};

KernelGroup PerTensorFP8Emitter::emit() {
  OpBuilder::InsertionGuard guard(b);
  if (spec.scaleFromProducer)
    return {emitCast()};
  if (amaxPassScales(spec)) {
    // The running maximum (the pattern of a non-negative float) and the
    // count of blocks done; the last block resets both for the next launch.
    amaxAcc = addDeviceGlobal(b, module, ctx.symbol("_amax_acc"),
                              b.getI32Type(), 1, /*zeroInit=*/true);
    amaxCount = addDeviceGlobal(b, module, ctx.symbol("_amax_count"),
                                b.getI32Type(), 1, /*zeroInit=*/true);
  } else {
    partials = addDeviceGlobal(b, module, ctx.symbol("_partials"),
                               b.getF32Type(), amaxPartialsCount(spec));
  }
  bool scaleKernel = !spec.delayed && !fusesScale(spec);
  if (scaleKernel)
    scaleValue = addDeviceGlobal(b, module, ctx.symbol("_scale_value"),
                                 b.getF32Type(), 1);
  // The kernels enter the module (and the PTX) cast first; the launches
  // follow the data.
  KernelLaunch cast = emitCast();
  if (spec.delayed)
    return {cast, emitRecord()};
  KernelLaunch amax = emitAmax();
  if (!scaleKernel || amaxPassScales(spec))
    return {amax, cast};
  if (spec.reduceAmax)
    return {amax, emitAmaxOut(), emitScale(), cast};
  return {amax, emitScale(), cast};
}

KernelLaunch PerTensorFP8Emitter::emitCast() {
  assert((spec.transpose || spec.rowwise) && "an elementwise cast writes data");
  KernelLaunch launch;
  perTensorCastGrid(spec, launch.gridX, launch.gridY);
  // After an amax pass that computes the scale: a programmatic dependent,
  // which loads its tile while the pass drains.
  launch.dependentLaunch = spec.dependentLaunch && amaxPassScales(spec);
  launch.args.push_back(buffers.input);
  if (spec.delayed)
    launch.args.push_back(buffers.scale);
  if (spec.scaleFromProducer)
    launch.args.push_back(buffers.producerScale);
  if (spec.rowwise)
    launch.args.push_back(buffers.data);
  if (spec.transpose)
    launch.args.push_back(buffers.transpose);
  if (fusesScale(spec) || spec.scaleFromProducer)
    launch.args.push_back(buffers.scaleInv);
  assert((!spec.columnSums || canSumColumns(spec)) &&
         "column sums need whole 64x64 tiles");
  if (spec.columnSums)
    launch.args.push_back(buffers.columnSums);
  gpu::GPUFuncOp kernel = newKernel(launch, "_cast");
  Value tile = spec.transpose
                   ? addWorkgroupBuffer(kernel, b.getI8Type(),
                                        kTile * kTileRowStride)
                   : Value();
  Value warpSums = spec.columnSums ? addWorkgroupBuffer(kernel, b.getF32Type(),
                                                        kWarps * kTile)
                                   : Value();
  Value shared = sharedMaxSlots(kernel);

  OpBuilder::InsertionGuard guard(b);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  unsigned next = 0;
  auto arg = [&](bool present) {
    return present ? body->getArgument(next++) : Value();
  };
  Value x = arg(true);
  Value storedScale = arg(spec.delayed);
  Value producerScale = arg(spec.scaleFromProducer);
  Value data = arg(spec.rowwise);
  Value transpose = arg(spec.transpose);
  Value scaleInv = arg(fusesScale(spec) || spec.scaleFromProducer);
  Value columnSums = arg(spec.columnSums);

  auto getScale = [&]() -> Value {
    if (spec.delayed)
      return memref::LoadOp::create(b, storedScale, ValueRange{c(0)});
    if (spec.scaleFromProducer) {
      // The producer's last block wrote [scale, scale_inv]; block (0, 0)
      // thread 0 passes scale_inv on.
      Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
      Value first = arith::AndIOp::create(
          b,
          arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, c(0)),
          arith::AndIOp::create(
              b,
              arith::CmpIOp::create(
                  b, arith::CmpIPredicate::eq,
                  gpu::BlockIdOp::create(b, gpu::Dimension::x), c(0)),
              arith::CmpIOp::create(
                  b, arith::CmpIPredicate::eq,
                  gpu::BlockIdOp::create(b, gpu::Dimension::y), c(0))));
      ifThen(b, first, [&] {
        memref::StoreOp::create(
            b, memref::LoadOp::create(b, producerScale, ValueRange{c(1)}),
            scaleInv, ValueRange{c(0)});
      });
      return memref::LoadOp::create(b, producerScale, ValueRange{c(0)});
    }
    if (fusesScale(spec))
      return fusedScale(shared, scaleInv);
    // Nothing the amax pass writes is read before this wait.
    if (launch.dependentLaunch)
      NVVM::GriddepcontrolOp::create(b, NVVM::GridDepActionKind::wait);
    return memref::LoadOp::create(b, getDeviceGlobal(b, scaleValue),
                                  ValueRange{c(0)});
  };

  // max|x| rides along with the conversion; only delayed scaling records
  // it (the rest is dead code, removed on the way to PTX).
  Value amax = spec.transpose
                   ? castTile(x, data, transpose, getScale, tile, columnSums,
                              warpSums)
                   : castElementwise(x, data, getScale(), launch.gridX);
  if (spec.delayed) {
    Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
    Value bx = gpu::BlockIdOp::create(b, gpu::Dimension::x);
    Value index = bx;
    if (spec.transpose) {
      Value by = gpu::BlockIdOp::create(b, gpu::Dimension::y);
      Value gridX = gpu::GridDimOp::create(b, gpu::Dimension::x);
      index = arith::AddIOp::create(b, arith::MulIOp::create(b, by, gridX),
                                    bx);
    }
    recordBlockAmax(amax, tid, shared, index);
  }
  gpu::ReturnOp::create(b);
  return launch;
}

Value PerTensorFP8Emitter::fusedScale(Value shared, Value scaleInv) {
  // The scale kernel's reduction tree, so the same amax in every block.
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  warpMaxToShared(b, threadPartialsMax(tid), tid, shared);
  Value amax = sharedMax(b, shared, kWarps);
  ScaleFromAmax scale = computeScaleFromAmax(
      b, amax, fp8MaxOf(spec.e5m2), spec.epsilon, spec.forcePow2,
      std::numeric_limits<float>::max());
  Value bx = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value by = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  Value sum = arith::AddIOp::create(b, arith::AddIOp::create(b, bx, by), tid);
  Value first =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, sum, c(0));
  ifThen(b, first, [&] {
    memref::StoreOp::create(b, scale.scaleInv, scaleInv, ValueRange{c(0)});
  });
  return scale.scale;
}

Value PerTensorFP8Emitter::castElementwise(Value x, Value data, Value scale,
                                           int64_t gridX) {
  const int64_t n = spec.rows * spec.cols;
  VectorType chunkType = vectorOf(kChunk, b.getF32Type());
  Value scales = vector::BroadcastOp::create(b, chunkType, scale);
  GridStride stride = gridStride1D(b, kBlockSize);
  Value chunksMax = forLoop(
      b, stride.start, c(n / kChunk), c(gridX * kBlockSize),
      constantF32(b, 0.0f), [&](Value i, Value max) -> Value {
        Value offset = arith::MulIOp::create(b, i, c(kChunk));
        Value values = extendToF32(
            b, loadVector(b, vectorOf(kChunk, inputType), x, offset));
        Value scaled = arith::MulFOp::create(b, values, scales);
        storeVector(b, packFP8(b, scaled, spec.e5m2), data, offset);
        return arith::MaxNumFOp::create(b, max, vectorAbsMax(b, values));
      });
  // The last n % 16 elements, one a thread.
  Value at = arith::AddIOp::create(b, c(n / kChunk * kChunk), stride.start);
  Value inTail =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, at, c(n));
  return ifThenElse(
      b, b.getF32Type(), inTail,
      [&]() -> Value {
        Value value = extendToF32(
            b, memref::LoadOp::create(b, x, ValueRange{at}));
        Value scaled = arith::MulFOp::create(b, value, scale);
        memref::StoreOp::create(b, convertToFP8(b, scaled, spec.e5m2), data,
                                ValueRange{at});
        return absMax(b, chunksMax, value);
      },
      [&] { return chunksMax; });
}

void PerTensorFP8Emitter::warpColumnSums(Value chunk, Value tid,
                                         Value warpSums) {
  // Lanes l, l ^ 4, l ^ 8, ... hold the same 16 columns of the warp's 8
  // rows: three butterfly steps give every one of them the same sums, in
  // the same order every run.
  SmallVector<Value> sums;
  for (int64_t j = 0; j < kChunk; ++j) {
    Value v = vector::ExtractOp::create(b, chunk, j);
    for (int32_t offset : {4, 8, 16}) {
      auto other = gpu::ShuffleOp::create(b, v, offset, /*width=*/32,
                                          gpu::ShuffleMode::XOR);
      v = arith::AddFOp::create(b, v, other.getShuffleResult());
    }
    sums.push_back(v);
  }
  Value lane = arith::RemUIOp::create(b, tid, c(32));
  Value warp = arith::DivUIOp::create(b, tid, c(32));
  Value firstRow = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, lane,
                                         c(kTile / kChunk));
  ifThen(b, firstRow, [&] {
    Value base = arith::AddIOp::create(
        b, arith::MulIOp::create(b, warp, c(kTile)),
        arith::MulIOp::create(b, lane, c(kChunk)));
    for (auto [j, sum] : llvm::enumerate(sums))
      memref::StoreOp::create(
          b, sum, warpSums,
          ValueRange{arith::AddIOp::create(b, base, c(j)).getResult()});
  });
}

void PerTensorFP8Emitter::storeTileColumnSums(Value tid, Value warpSums,
                                              Value columnSums, Value tileRow,
                                              Value k0) {
  Value mine =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, tid, c(kTile));
  ifThen(b, mine, [&] {
    Value sum = constantF32(b, 0.0f);
    for (int64_t w = 0; w < kWarps; ++w) {
      Value at = arith::AddIOp::create(b, c(w * kTile), tid);
      sum = arith::AddFOp::create(
          b, sum, memref::LoadOp::create(b, warpSums, ValueRange{at}));
    }
    Value row = arith::MulIOp::create(b, tileRow, c(spec.cols));
    Value at = arith::AddIOp::create(b, arith::AddIOp::create(b, row, k0), tid);
    memref::StoreOp::create(b, sum, columnSums, ValueRange{at});
  });
}

Value PerTensorFP8Emitter::castTile(Value x, Value data, Value transpose,
                                   llvm::function_ref<Value()> getScale,
                                   Value tile, Value columnSums,
                                   Value warpSums) {
  // Phase 1: thread t converts 16 elements of tile row t / 4 (one 16-byte
  // load where the row is aligned and complete), writes them rowwise and
  // into shared memory. Phase 2: thread t gathers 16 bytes of tile column
  // t / 4 and writes them as one row of the transposed copy.
  const int64_t m = spec.rows, k = spec.cols;
  const bool vectorIn = k % kChunk == 0;  // every chunk 16-byte aligned
  const bool vectorOut = m % kChunk == 0; // every transposed run aligned
  VectorType chunkType = vectorOf(kChunk, b.getF32Type());
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  // Tiles in reverse order: the amax pass read the end of x last, and what
  // of it is still in L2 is read first (-4 us a call at 8192x8192 bf16 on
  // an H200, bench/RESULTS.md).
  Value bx = arith::SubIOp::create(
      b, c((k + kTile - 1) / kTile - 1),
      gpu::BlockIdOp::create(b, gpu::Dimension::x));
  Value by = arith::SubIOp::create(
      b, c((m + kTile - 1) / kTile - 1),
      gpu::BlockIdOp::create(b, gpu::Dimension::y));
  Value k0 = arith::MulIOp::create(b, bx, c(kTile));
  Value m0 = arith::MulIOp::create(b, by, c(kTile));
  const int64_t threadsPerRow = kTile / kChunk;
  Value row = arith::DivUIOp::create(b, tid, c(threadsPerRow));
  Value column = arith::MulIOp::create(
      b, arith::RemUIOp::create(b, tid, c(threadsPerRow)), c(kChunk));
  Value gm = arith::AddIOp::create(b, m0, row);
  Value gk = arith::AddIOp::create(b, k0, column);
  Value tileOffset = arith::AddIOp::create(
      b, arith::MulIOp::create(b, row, c(kTileRowStride)), column);
  using arith::CmpIPredicate;
  Value rowInside = arith::CmpIOp::create(b, CmpIPredicate::ult, gm, c(m));
  Value wholeChunk = arith::CmpIOp::create(
      b, CmpIPredicate::ule, arith::AddIOp::create(b, gk, c(kChunk)), c(k));
  Value vectorOk =
      vectorIn ? arith::AndIOp::create(b, rowInside, wholeChunk).getResult()
               : arith::ConstantOp::create(b, b.getBoolAttr(false)).getResult();
  Value rowBase = arith::MulIOp::create(b, gm, c(k));
  Value offset = arith::AddIOp::create(b, rowBase, gk);
  // The chunk's load comes before the scale (which may wait for the amax
  // pass); zeros where the chunk is not a whole vector.
  VectorType loadType = vectorOf(kChunk, inputType);
  Value loaded = ifThenElse(
      b, loadType, vectorOk,
      [&]() -> Value { return loadVector(b, loadType, x, offset); },
      [&]() -> Value {
        return arith::ConstantOp::create(
            b, DenseElementsAttr::get(loadType, b.getZeroAttr(inputType)));
      });
  // The column sums read the unscaled values (zeros outside the tensor).
  if (columnSums)
    warpColumnSums(extendToF32(b, loaded), tid, warpSums);
  Value scale = getScale();
  Value scales = vector::BroadcastOp::create(b, chunkType, scale);
  Value amax = ifThenElse(
      b, b.getF32Type(), vectorOk,
      [&]() -> Value {
        Value values = extendToF32(b, loaded);
        Value scaled = arith::MulFOp::create(b, values, scales);
        Value bytes = packFP8(b, scaled, spec.e5m2);
        if (data)
          storeVector(b, bytes, data, offset);
        storeVector(b, bytes, tile, tileOffset);
        return vectorAbsMax(b, values);
      },
      [&]() -> Value {
        return forLoop(
            b, c(0), c(kChunk), c(1), constantF32(b, 0.0f),
            [&](Value e, Value max) -> Value {
              Value kk = arith::AddIOp::create(b, gk, e);
              Value inside = arith::AndIOp::create(
                  b, rowInside,
                  arith::CmpIOp::create(b, CmpIPredicate::ult, kk, c(k)));
              return ifThenElse(
                  b, b.getF32Type(), inside,
                  [&]() -> Value {
                    Value at = arith::AddIOp::create(b, rowBase, kk);
                    Value value = extendToF32(
                        b, memref::LoadOp::create(b, x, ValueRange{at}));
                    Value scaled = arith::MulFOp::create(b, value, scale);
                    Value byte = convertToFP8(b, scaled, spec.e5m2);
                    if (data)
                      memref::StoreOp::create(b, byte, data, ValueRange{at});
                    memref::StoreOp::create(
                        b, byte, tile,
                        ValueRange{arith::AddIOp::create(b, tileOffset, e)});
                    return absMax(b, max, value);
                  },
                  [&] { return max; });
            });
      });
  gpu::BarrierOp::create(b);
  if (columnSums)
    storeTileColumnSums(tid, warpSums, columnSums, by, k0);

  // Phase 2: tile column `row` (global k), 16 rows from `column` (global m).
  Value tk = arith::AddIOp::create(b, k0, row);
  Value tm = arith::AddIOp::create(b, m0, column);
  Value columnInside = arith::CmpIOp::create(b, CmpIPredicate::ult, tk, c(k));
  Value wholeRun = arith::CmpIOp::create(
      b, CmpIPredicate::ule, arith::AddIOp::create(b, tm, c(kChunk)), c(m));
  Value vectorStore =
      vectorOut
          ? arith::AndIOp::create(b, columnInside, wholeRun).getResult()
          : arith::ConstantOp::create(b, b.getBoolAttr(false)).getResult();
  Value transposedRow = arith::MulIOp::create(b, tk, c(m));
  Value transposedOffset = arith::AddIOp::create(b, transposedRow, tm);
  SmallVector<Value> bytes;
  for (int64_t j = 0; j < kChunk; ++j) {
    Value tileRow = arith::AddIOp::create(b, column, c(j));
    Value at = arith::AddIOp::create(
        b, arith::MulIOp::create(b, tileRow, c(kTileRowStride)), row);
    bytes.push_back(memref::LoadOp::create(b, tile, ValueRange{at}));
  }
  Value run = vector::FromElementsOp::create(
      b, vectorOf(kChunk, b.getI8Type()), bytes);
  ifThenElse(
      b, vectorStore, [&] { storeVector(b, run, transpose, transposedOffset); },
      [&] {
        ifThen(b, columnInside, [&] {
          forLoop(b, c(0), c(kChunk), c(1), [&](Value e) {
            Value mm = arith::AddIOp::create(b, tm, e);
            Value inside =
                arith::CmpIOp::create(b, CmpIPredicate::ult, mm, c(m));
            ifThen(b, inside, [&] {
              Value at = arith::AddIOp::create(b, transposedRow, mm);
              Value byte = vector::ExtractOp::create(b, run, OpFoldResult(e));
              memref::StoreOp::create(b, byte, transpose, ValueRange{at});
            });
          });
        });
      });
  return amax;
}

void PerTensorFP8Emitter::recordBlockAmax(Value amax, Value tid, Value shared,
                                          Value index) {
  blockMaxOnThread0(b, amax, tid, shared, kBlockSize, [&](Value max) {
    memref::StoreOp::create(b, max, getDeviceGlobal(b, partials),
                            ValueRange{index});
  });
}

KernelLaunch PerTensorFP8Emitter::emitAmax() {
  const int64_t n = spec.rows * spec.cols;
  const int64_t perVector = 16 / bytesOf(spec.input);
  const int64_t vectors = n / perVector;
  KernelLaunch launch;
  launch.gridX = amaxGridSize(n, spec.input);
  launch.args = {buffers.input};
  if (amaxPassScales(spec))
    launch.args.push_back(buffers.scaleInv);
  gpu::GPUFuncOp kernel = newKernel(launch, "_amax");
  Value shared = sharedMaxSlots(kernel);

  OpBuilder::InsertionGuard guard(b);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  Value x = body->getArgument(0);
  // With a dependent launch, the cast's blocks may start as this grid's
  // blocks leave SMs (each block lets it at its start).
  if (amaxPassScales(spec) && spec.dependentLaunch)
    NVVM::GriddepcontrolOp::create(b,
                                   NVVM::GridDepActionKind::launch_dependents);
  GridStride stride = gridStride1D(b, kBlockSize);
  const int64_t step = launch.gridX * kBlockSize;
  VectorType loadType = vectorOf(perVector, inputType);
  // Four independent 16-byte loads in flight a thread (each coalesced
  // across the warp), then the rest one at a time. The max is order free
  // (NaN-ignoring), so the grouping does not change it.
  const int64_t unrolled = vectors / (4 * step) * (4 * step);
  Value unrolledMax = forLoop(
      b, stride.start, c(unrolled), c(4 * step), constantF32(b, 0.0f),
      [&](Value i, Value max) -> Value {
        SmallVector<Value> indices{i};
        for (int u = 1; u < 4; ++u)
          indices.push_back(arith::AddIOp::create(b, indices.back(), c(step)));
        SmallVector<Value> offsets, loads, maxima;
        for (Value index : indices)
          offsets.push_back(arith::MulIOp::create(b, index, c(perVector)));
        for (Value offset : offsets)
          loads.push_back(loadVector(b, loadType, x, offset));
        for (Value &load : loads)
          load = extendToF32(b, load);
        for (Value &load : loads)
          load = math::AbsFOp::create(b, load);
        for (Value magnitudes : loads)
          maxima.push_back(vector::ReductionOp::create(
              b, vector::CombiningKind::MAXNUMF, magnitudes));
        for (Value vectorMax : maxima)
          max = arith::MaxNumFOp::create(b, max, vectorMax);
        return max;
      });
  Value vectorsMax = forLoop(
      b, arith::AddIOp::create(b, c(unrolled), stride.start), c(vectors),
      c(step), unrolledMax, [&](Value i, Value max) -> Value {
        Value offset = arith::MulIOp::create(b, i, c(perVector));
        Value values = extendToF32(b, loadVector(b, loadType, x, offset));
        return arith::MaxNumFOp::create(b, max, vectorAbsMax(b, values));
      });
  // The last n % perVector elements, one a thread of the first.
  Value inTail = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                       stride.start, c(n % perVector));
  Value amax = ifThenElse(
      b, b.getF32Type(), inTail,
      [&]() -> Value {
        Value at = arith::AddIOp::create(b, c(vectors * perVector),
                                         stride.start);
        Value value =
            extendToF32(b, memref::LoadOp::create(b, x, ValueRange{at}));
        return absMax(b, vectorsMax, value);
      },
      [&] { return vectorsMax; });
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  if (amaxPassScales(spec))
    blockMaxOnThread0(b, amax, tid, shared, kBlockSize, [&](Value max) {
      finishScale(max, launch.gridX, body->getArgument(1));
    });
  else
    recordBlockAmax(amax, tid, shared, bid);
  gpu::ReturnOp::create(b);
  return launch;
}

void PerTensorFP8Emitter::finishScale(Value blockMax, int64_t grid,
                                      Value scaleInv) {
  foldIntoLastBlock(b, amaxAcc, amaxCount, blockMax, grid,
                    [&](Value amax) { storeScale(amax, scaleInv); });
}

void PerTensorFP8Emitter::storeScale(Value amax, Value scaleInv) {
  ScaleFromAmax scale = computeScaleFromAmax(
      b, amax, fp8MaxOf(spec.e5m2), spec.epsilon, spec.forcePow2,
      std::numeric_limits<float>::max());
  memref::StoreOp::create(b, scale.scale, getDeviceGlobal(b, scaleValue),
                          ValueRange{c(0)});
  memref::StoreOp::create(b, scale.scaleInv, scaleInv, ValueRange{c(0)});
}

Value PerTensorFP8Emitter::threadPartialsMax(Value tid) {
  Value all = getDeviceGlobal(b, partials);
  return forLoop(b, tid, c(amaxPartialsCount(spec)), c(kBlockSize),
                 constantF32(b, 0.0f), [&](Value i, Value max) -> Value {
                   Value partial =
                       memref::LoadOp::create(b, all, ValueRange{i});
                   return arith::MaxNumFOp::create(b, max, partial);
                 });
}

void PerTensorFP8Emitter::partialsMax(
    Value tid, Value shared, llvm::function_ref<void(Value)> onThread0) {
  blockMaxOnThread0(b, threadPartialsMax(tid), tid, shared, kBlockSize,
                    onThread0);
}

KernelLaunch PerTensorFP8Emitter::emitScale() {
  KernelLaunch launch;
  launch.args = {buffers.scaleInv};
  if (spec.reduceAmax)
    launch.args.push_back(buffers.amax);
  gpu::GPUFuncOp kernel = newKernel(launch, "_scale");
  Value shared = sharedMaxSlots(kernel);

  OpBuilder::InsertionGuard guard(b);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  Value scaleInv = body->getArgument(0);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  auto storeScaleOf = [&](Value amax) { storeScale(amax, scaleInv); };
  if (spec.reduceAmax) {
    // The group's amax, all-reduced by the caller after emitAmaxOut.
    Value first =
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, c(0));
    ifThen(b, first, [&] {
      storeScaleOf(memref::LoadOp::create(b, body->getArgument(1),
                                        ValueRange{c(0)}));
    });
  } else {
    partialsMax(tid, shared, storeScaleOf);
  }
  gpu::ReturnOp::create(b);
  return launch;
}

KernelLaunch PerTensorFP8Emitter::emitAmaxOut() {
  KernelLaunch launch;
  launch.args = {buffers.amax};
  gpu::GPUFuncOp kernel = newKernel(launch, kPerTensorFP8AmaxOutStage);
  Value shared = sharedMaxSlots(kernel);

  OpBuilder::InsertionGuard guard(b);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  Value out = body->getArgument(0);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  partialsMax(tid, shared, [&](Value amax) {
    memref::StoreOp::create(b, amax, out, ValueRange{c(0)});
  });
  gpu::ReturnOp::create(b);
  return launch;
}

KernelLaunch PerTensorFP8Emitter::emitRecord() {
  KernelLaunch launch;
  launch.args = {buffers.scale, buffers.amaxHistory, buffers.updatedAmaxHistory,
                 buffers.scaleInv};
  gpu::GPUFuncOp kernel = newKernel(launch, "_record");
  Value shared = sharedMaxSlots(kernel);

  OpBuilder::InsertionGuard guard(b);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  Value scale = body->getArgument(0), history = body->getArgument(1),
        updated = body->getArgument(2), scaleInv = body->getArgument(3);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  // The rest of the history is copied unchanged.
  forLoop(b, tid, c(spec.historyLength), c(kBlockSize), [&](Value i) {
    Value notFirst =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ne, i, c(0));
    ifThen(b, notFirst, [&] {
      Value entry = memref::LoadOp::create(b, history, ValueRange{i});
      memref::StoreOp::create(b, entry, updated, ValueRange{i});
    });
  });
  partialsMax(tid, shared, [&](Value amax) {
    // fmaxf, like TE's atomic max into history[0].
    Value first = memref::LoadOp::create(b, history, ValueRange{c(0)});
    memref::StoreOp::create(b, arith::MaxNumFOp::create(b, first, amax),
                            updated, ValueRange{c(0)});
    Value stored = memref::LoadOp::create(b, scale, ValueRange{c(0)});
    memref::StoreOp::create(
        b, arith::DivFOp::create(b, constantF32(b, 1.0f), stored), scaleInv,
        ValueRange{c(0)});
  });
  gpu::ReturnOp::create(b);
  return launch;
}

} // namespace

KernelGroup mlir::teq::kernels::emitPerTensorFP8(
    const EmitContext &ctx, const PerTensorFP8Spec &spec,
    const PerTensorFP8Buffers &buffers) {
  return PerTensorFP8Emitter(ctx, spec, buffers).emit();
}

void mlir::teq::kernels::emitProducerAmaxToScale(const EmitContext &ctx,
                                                 const ProducerAmax &amax,
                                                 Value scaleArg,
                                                 Value threadMax, Value tid,
                                                 Value shared, int64_t blockX,
                                                 int64_t grid) {
  ImplicitLocOpBuilder &b = ctx.b;
  memref::GlobalOp accGlobal, countGlobal;
  {
    OpBuilder::InsertionGuard guard(b);
    accGlobal = addDeviceGlobal(b, ctx.module, ctx.symbol("_amax_acc"),
                                b.getI32Type(), 1, /*zeroInit=*/true);
    countGlobal = addDeviceGlobal(b, ctx.module, ctx.symbol("_amax_count"),
                                  b.getI32Type(), 1, /*zeroInit=*/true);
  }
  blockMaxOnThread0(b, threadMax, tid, shared, blockX, [&](Value blockMax) {
    foldIntoLastBlock(b, accGlobal, countGlobal, blockMax, grid,
                      [&](Value total) {
                        ScaleFromAmax scale = computeScaleFromAmax(
                            b, total, fp8MaxOf(amax.e5m2), amax.epsilon,
                            amax.forcePow2, std::numeric_limits<float>::max());
                        memref::StoreOp::create(b, scale.scale, scaleArg,
                                                ValueRange{constantIndex(b, 0)});
                        memref::StoreOp::create(b, scale.scaleInv, scaleArg,
                                                ValueRange{constantIndex(b, 1)});
                      });
  });
}

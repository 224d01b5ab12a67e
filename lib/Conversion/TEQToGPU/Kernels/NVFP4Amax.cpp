//===- NVFP4Amax.cpp - NVFP4 amaxes: the amax passes, the GEMM alpha ------===//

#include "NVFP4Amax.h"

#include "FP4Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::teq::kernels;

namespace {

using arith::CmpFPredicate;
using arith::CmpIPredicate;

/// Blocks of a grid-stride pass with one work item a thread: enough to fill
/// an H100 several times over, capped where the reduction's atomics stay
/// cheap.
int64_t passBlocks(int64_t items) {
  return std::clamp<int64_t>((items + kBlockSize - 1) / kBlockSize, 1, 1024);
}

/// With a programmatic dependent launch, each block of an amax pass first
/// lets the data kernel after it start: it then fills the SMs this grid
/// frees and stages its tiles while the pass drains.
void signalDependents(ImplicitLocOpBuilder &b, const NVFP4Spec &spec) {
  if (spec.dependentLaunch)
    NVVM::GriddepcontrolOp::create(b,
                                   NVVM::GridDepActionKind::launch_dependents);
}

/// `value` (f32, bf16 or f16, or a vector of them) widened to f32.
Value widen(ImplicitLocOpBuilder &b, Value value) {
  Type f32 = b.getF32Type();
  if (auto vector = dyn_cast<VectorType>(value.getType())) {
    if (vector.getElementType().isF32())
      return value;
    return arith::ExtFOp::create(b, vector.clone(f32), value);
  }
  return value.getType().isF32() ? value : arith::ExtFOp::create(b, f32, value);
}

/// Thread 0 of each block, after the block's reduction: folds the block's
/// maxima (`blockMaxima`[i]: f32, never NaN) into the running maxima of
/// `globals` by an atomic max of their patterns (non-negative floats order
/// as their patterns), fences, then counts the block done. The last of
/// `grid` blocks reads the maxima, stores maximum i into each of
/// `amaxBuffers`[i] and resets the globals for the next launch; this
/// replaces a one-block finishing kernel (its launch and tail).
/// For fillNVFP4Constants it leaves in `smem` the flag "last block" at
/// `slot` and, at slot + 1 and slot + 2, the maxima the rowwise and the
/// columnwise copy use (`copyMaxima`): slots the block's reduction does not
/// use.
void finishAmaxAcrossBlocks(ImplicitLocOpBuilder &b,
                            const NVFP4Globals &globals, int64_t grid,
                            ArrayRef<Value> blockMaxima,
                            ArrayRef<SmallVector<Value, 2>> amaxBuffers,
                            std::array<int, 2> copyMaxima, Value smem,
                            int64_t slot) {
  Type i32 = b.getI32Type();
  Value maxima = getDeviceGlobal(b, globals.amaxMaxima);
  Value blocksDone = getDeviceGlobal(b, globals.amaxBlocksDone);
  for (auto [i, max] : llvm::enumerate(blockMaxima)) {
    Value bits = arith::BitcastOp::create(b, i32, max);
    memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::maxu, bits, maxima,
                                ValueRange{constantIndex(b, i)});
  }
  NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
  Value done = memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addi,
                                           constantI32(b, 1), blocksDone,
                                           ValueRange{constantIndex(b, 0)});
  Value last = arith::CmpIOp::create(b, CmpIPredicate::eq, done,
                                     constantI32(b, grid - 1));
  memref::StoreOp::create(b, constantF32(b, 0.0f), smem,
                          ValueRange{constantIndex(b, slot)});
  ifThen(b, last, [&] {
    NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
    SmallVector<Value, 2> results;
    for (size_t i = 0; i < blockMaxima.size(); ++i) {
      Value index = constantIndex(b, i);
      // An atomic read: the other blocks' maxima, not a cached line.
      Value bits = memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::maxu,
                                               constantI32(b, 0), maxima,
                                               ValueRange{index});
      Value max = arith::BitcastOp::create(b, b.getF32Type(), bits);
      for (Value buffer : amaxBuffers[i])
        memref::StoreOp::create(b, max, buffer,
                                ValueRange{constantIndex(b, 0)});
      memref::StoreOp::create(b, constantI32(b, 0), maxima, ValueRange{index});
      results.push_back(max);
    }
    memref::StoreOp::create(b, constantF32(b, 1.0f), smem,
                            ValueRange{constantIndex(b, slot)});
    memref::StoreOp::create(b, results[copyMaxima[0]], smem,
                            ValueRange{constantIndex(b, slot + 1)});
    memref::StoreOp::create(b, results[copyMaxima[1]], smem,
                            ValueRange{constantIndex(b, slot + 2)});
    memref::StoreOp::create(b, constantI32(b, 0), blocksDone,
                            ValueRange{constantIndex(b, 0)});
  });
}

/// After finishAmaxAcrossBlocks, at the kernel's top level (256 threads):
/// in the last block every thread fills an entry of the constants global
/// from the amaxes thread 0 left in `smem` — thread t for the copy t / 128
/// (0 rowwise, 1 columnwise): S_enc = fminf(2688 / amax, FLT_MAX) (1 when
/// amax or S_enc is 0; te-semantics.md §5.5; thread 128c stores it) and the
/// encode multiplier of E4M3 code t % 128. The data kernel then looks them
/// up instead of dividing in every block.
void fillNVFP4Constants(ImplicitLocOpBuilder &b, const NVFP4Globals &globals,
                        Value smem, Value tid, int64_t slot) {
  gpu::BarrierOp::create(b);
  Value slotIndex = constantIndex(b, slot);
  Value flag = memref::LoadOp::create(b, smem, ValueRange{slotIndex});
  Value one = constantF32(b, 1.0f);
  Value isLast = arith::CmpFOp::create(b, CmpFPredicate::OEQ, flag, one);
  ifThen(b, isLast, [&] {
    Value constants = getDeviceGlobal(b, globals.constants);
    Value c128 = constantIndex(b, 128);
    Value copy = arith::DivUIOp::create(b, tid, c128);
    Value codeIndex = arith::RemUIOp::create(b, tid, c128);
    Value amaxSlot0 = arith::AddIOp::create(b, copy, constantIndex(b, 1));
    Value amaxSlot = arith::AddIOp::create(b, amaxSlot0, slotIndex);
    Value amax = memref::LoadOp::create(b, smem, ValueRange{amaxSlot});
    Value zero = constantF32(b, 0.0f);
    Value fltMax = constantF32(b, std::numeric_limits<float>::max());
    Value quotient = arith::DivFOp::create(b, constantF32(b, 2688.0f), amax);
    Value finite =
        arith::CmpFOp::create(b, CmpFPredicate::OLT, quotient, fltMax);
    Value bounded = arith::SelectOp::create(b, finite, quotient, fltMax);
    Value amaxZero = arith::CmpFOp::create(b, CmpFPredicate::OEQ, amax, zero);
    Value encZero = arith::CmpFOp::create(b, CmpFPredicate::OEQ, bounded, zero);
    Value special = arith::OrIOp::create(b, amaxZero, encZero);
    Value sEnc = arith::SelectOp::create(b, special, one, bounded);
    Value sDec = arith::DivFOp::create(b, one, sEnc);
    Value code64 = arith::IndexCastOp::create(b, b.getI64Type(), codeIndex);
    Value code = arith::TruncIOp::create(b, b.getI32Type(), code64);
    Value enc = nvfp4EncodeMultiplier(b, code, sDec);
    Value copyBase = arith::MulIOp::create(b, copy, c128);
    Value entry0 = arith::AddIOp::create(b, copyBase, codeIndex);
    Value entry = arith::AddIOp::create(b, entry0,
                                        constantIndex(b, kNVFP4EncodeTable[0]));
    memref::StoreOp::create(b, enc, constants, ValueRange{entry});
    Value firstOfCopy = arith::CmpIOp::create(b, CmpIPredicate::eq, codeIndex,
                                              constantIndex(b, 0));
    ifThen(b, firstOfCopy, [&] {
      memref::StoreOp::create(b, sEnc, constants, ValueRange{copy});
    });
  });
}

} // namespace

NVFP4Globals mlir::teq::kernels::addNVFP4Globals(ImplicitLocOpBuilder &b,
                                                 gpu::GPUModuleOp module,
                                                 StringRef prefix) {
  NVFP4Globals globals;
  globals.amaxMaxima = addDeviceGlobal(b, module, (prefix + "_amax_acc").str(),
                                       b.getI32Type(), 2, /*zeroInit=*/true);
  globals.amaxBlocksDone =
      addDeviceGlobal(b, module, (prefix + "_amax_count").str(), b.getI32Type(),
                      1, /*zeroInit=*/true);
  globals.constants =
      addDeviceGlobal(b, module, (prefix + "_nvfp4_consts").str(),
                      b.getF32Type(), kNVFP4ConstsSize, /*zeroInit=*/true);
  return globals;
}

//===----------------------------------------------------------------------===//
// The plain amax pass
//===----------------------------------------------------------------------===//

KernelLaunch mlir::teq::kernels::emitNVFP4AmaxPass(
    const EmitContext &ctx, const NVFP4Spec &spec, const NVFP4Globals &globals,
    Value x, ArrayRef<Value> amaxBuffers) {
  ImplicitLocOpBuilder &b = ctx.b;
  gpu::GPUModuleOp module = ctx.module;
  const int64_t elements = spec.rows * spec.cols;
  // 16-byte vectors, one a thread and iteration; the shapes NVFP4 takes
  // (multiples of 16) leave no scalar tail.
  const int64_t perVector = 16 / bytesOf(spec.input);
  assert(elements % perVector == 0 && "NVFP4 shapes are multiples of 16");
  const int64_t vectors = elements / perVector;
  const int64_t grid = passBlocks(vectors);
  const int64_t stride = grid * kBlockSize;
  // The main loop's trip: four strides a thread and iteration.
  const int64_t unrolledEnd = vectors / (4 * stride) * (4 * stride);

  KernelLaunch launch = ctx.launchOf("_amax");
  launch.gridX = grid;
  launch.blockX = kBlockSize;
  launch.args.push_back(x);
  launch.args.append(amaxBuffers.begin(), amaxBuffers.end());

  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel =
      createKernel(b, module, launch.kernel, launch.args, kBlockSize);
  // A slot per warp for the block's reduction, then the three of
  // finishAmaxAcrossBlocks.
  Value smem = addWorkgroupBuffer(kernel, b.getF32Type(), 8 + 3);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  Value input = body->getArgument(0);
  auto vectorType = VectorType::get(
      {perVector}, cast<MemRefType>(x.getType()).getElementType());
  signalDependents(b, spec);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value base = arith::MulIOp::create(b, bid, constantIndex(b, kBlockSize));
  Value start = arith::AddIOp::create(b, base, tid);
  Value strideValue = constantIndex(b, stride);
  Value perVectorValue = constantIndex(b, perVector);
  // max |v| over one loaded vector.
  auto vectorMax = [&](Value v) -> Value {
    Value magnitudes = math::AbsFOp::create(b, widen(b, v));
    return vector::ReductionOp::create(b, vector::CombiningKind::MAXNUMF,
                                       magnitudes);
  };
  // Four independent 16-byte loads in flight a thread (each coalesced
  // across the warp), then the rest one at a time. The max is order free
  // (NaN-ignoring), so the grouping does not change it.
  Value unrolledMax = forLoop(
      b, start, constantIndex(b, unrolledEnd), constantIndex(b, 4 * stride),
      constantF32(b, 0.0f), [&](Value i, Value max) -> Value {
        Value index[4] = {i};
        for (int u = 1; u < 4; ++u)
          index[u] = arith::AddIOp::create(b, index[u - 1], strideValue);
        Value offsets[4], loaded[4], widened[4], magnitudes[4], maxima[4];
        for (int u = 0; u < 4; ++u)
          offsets[u] = arith::MulIOp::create(b, index[u], perVectorValue);
        for (int u = 0; u < 4; ++u)
          loaded[u] = loadVector(b, vectorType, input, offsets[u]);
        for (int u = 0; u < 4; ++u)
          widened[u] = widen(b, loaded[u]);
        for (int u = 0; u < 4; ++u)
          magnitudes[u] = math::AbsFOp::create(b, widened[u]);
        for (int u = 0; u < 4; ++u)
          maxima[u] = vector::ReductionOp::create(
              b, vector::CombiningKind::MAXNUMF, magnitudes[u]);
        for (int u = 0; u < 4; ++u)
          max = arith::MaxNumFOp::create(b, max, maxima[u]);
        return max;
      });
  Value restStart =
      arith::AddIOp::create(b, constantIndex(b, unrolledEnd), start);
  Value threadMax =
      forLoop(b, restStart, constantIndex(b, vectors), strideValue, unrolledMax,
              [&](Value i, Value max) -> Value {
                Value offset = arith::MulIOp::create(b, i, perVectorValue);
                Value v = loadVector(b, vectorType, input, offset);
                return arith::MaxNumFOp::create(b, max, vectorMax(v));
              });
  SmallVector<SmallVector<Value, 2>, 1> buffers(1);
  buffers[0].append(body->getArguments().begin() + 1,
                    body->getArguments().begin() + launch.args.size());
  blockMaxOnThread0(b, threadMax, tid, smem, kBlockSize, [&](Value max) {
    finishAmaxAcrossBlocks(b, globals, grid, {max}, buffers, {0, 0}, smem,
                           /*slot=*/8);
  });
  fillNVFP4Constants(b, globals, smem, tid, /*slot=*/8);
  gpu::ReturnOp::create(b);
  return launch;
}

//===----------------------------------------------------------------------===//
// The RHT amax pass
//===----------------------------------------------------------------------===//

namespace {

/// The columns a thread of the RHT amax pass transforms at once: each of a
/// group's 16 rows is one 8-byte load of bf16 (RHT takes bf16 only, and K
/// is a multiple of 16).
constexpr int64_t kRhtAmaxColumns = 4;

/// A work item of the RHT amax pass: 16 rows (one Hadamard block of the
/// columnwise copy) of kRhtAmaxColumns adjacent columns, consecutive
/// threads on consecutive column groups (a warp reads 256 contiguous bytes a
/// row).
struct RhtGroupMax {
  Value transformed; ///< The group's transformed amax.
  Value plain;       ///< max(`plainSoFar`, the group's max |x|), if asked.
};

/// `unscaled`: the transforms without the 0.25 and the BF16 roundings
/// (randomHadamard16UnscaledAmax); else the exact transforms.
RhtGroupMax rhtGroupMax(ImplicitLocOpBuilder &b, Value x, Value item,
                        int64_t cols, bool unscaled, Value plainSoFar) {
  const int64_t groupsPerRow = cols / kRhtAmaxColumns;
  Value groupsPerRowValue = constantIndex(b, groupsPerRow);
  Value columnGroup = arith::RemUIOp::create(b, item, groupsPerRowValue);
  Value rowBlock = arith::DivUIOp::create(b, item, groupsPerRowValue);
  Value column =
      arith::MulIOp::create(b, columnGroup, constantIndex(b, kRhtAmaxColumns));
  Value row0 = arith::MulIOp::create(b, rowBlock, constantIndex(b, 16));
  Type element = cast<MemRefType>(x.getType()).getElementType();
  auto rowType = VectorType::get({kRhtAmaxColumns}, element);
  // 16 independent loads, then the transforms from registers.
  SmallVector<Value, 16> rows;
  for (int i = 0; i < 16; ++i) {
    Value row = arith::AddIOp::create(b, row0, constantIndex(b, i));
    Value rowStart = arith::MulIOp::create(b, row, constantIndex(b, cols));
    Value offset = arith::AddIOp::create(b, rowStart, column);
    rows.push_back(vector::LoadOp::create(b, rowType, x, ValueRange{offset},
                                          /*nontemporal=*/false,
                                          llvm::Align(2 * kRhtAmaxColumns)));
  }
  RhtGroupMax result;
  result.plain = plainSoFar;
  SmallVector<Value, kRhtAmaxColumns> columnMaxima;
  Value zero = constantF32(b, 0.0f);
  for (int64_t j = 0; j < kRhtAmaxColumns; ++j) {
    SmallVector<Value, 16> v;
    for (int i = 0; i < 16; ++i) {
      Value e = vector::ExtractOp::create(b, rows[i], j);
      v.push_back(arith::ExtFOp::create(b, b.getF32Type(), e));
    }
    if (plainSoFar) {
      // The column's max |x| into the running one right away: the widened
      // values die with the transform. The running max as the accumulator
      // makes it a native max.f32.
      SmallVector<Value, 16> magnitudes;
      for (Value e : v)
        magnitudes.push_back(math::AbsFOp::create(b, e));
      Value vector = vector::FromElementsOp::create(
          b, VectorType::get({16}, b.getF32Type()), magnitudes);
      result.plain = vector::ReductionOp::create(
          b, vector::CombiningKind::MAXNUMF, vector, result.plain);
    }
    if (unscaled) {
      columnMaxima.push_back(randomHadamard16UnscaledAmax(b, v));
      continue;
    }
    // max(0, max |t_i|) (NaN-ignoring, so in any order: a tree) with 0 as
    // the reduction's accumulator: a native max.f32 with 0, which gives 0
    // for a block of NaNs (not a compare and select after the reduction,
    // which ptxas drops; test/Tools/ptxas-nan-max.mlir).
    HadamardBlock block = randomHadamard16(b, v);
    columnMaxima.push_back(vector::ReductionOp::create(
        b, vector::CombiningKind::MAXNUMF, block.magnitudeVector, zero));
  }
  Value maxima = vector::FromElementsOp::create(
      b, VectorType::get({kRhtAmaxColumns}, b.getF32Type()), columnMaxima);
  result.transformed = vector::ReductionOp::create(
      b, vector::CombiningKind::MAXNUMF, maxima, zero);
  return result;
}

} // namespace

KernelLaunch mlir::teq::kernels::emitNVFP4RhtAmaxPass(
    const EmitContext &ctx, const NVFP4Spec &spec, const NVFP4Globals &globals,
    Value x, Value columnAmax, Value rowAmax) {
  ImplicitLocOpBuilder &b = ctx.b;
  gpu::GPUModuleOp module = ctx.module;
  assert(spec.input == InputType::BF16 && spec.cols % kRhtAmaxColumns == 0 &&
         spec.rows % 16 == 0 && "RHT takes bf16 with M, K multiples of 16");
  const bool plain = static_cast<bool>(rowAmax);
  const int64_t groups = spec.cols / kRhtAmaxColumns * (spec.rows / 16);
  const int64_t grid = passBlocks(groups);

  KernelLaunch launch = ctx.launchOf("_rht_amax");
  launch.gridX = grid;
  launch.blockX = kBlockSize;
  launch.args = {x, columnAmax};
  if (plain)
    launch.args.push_back(rowAmax);

  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel =
      createKernel(b, module, launch.kernel, launch.args, kBlockSize);
  // Warp maxima in 0..7, the plain ones in 8..15, finishAmaxAcrossBlocks'
  // three from 16.
  Value smem = addWorkgroupBuffer(kernel, b.getF32Type(), 16 + 3);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  Value input = body->getArgument(0);
  signalDependents(b, spec);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value base = arith::MulIOp::create(b, bid, constantIndex(b, kBlockSize));
  Value start = arith::AddIOp::create(b, base, tid);
  Value end = constantIndex(b, groups);
  Value stride = constantIndex(b, grid * kBlockSize);
  Value zero = constantF32(b, 0.0f);
  // The thread's groups with the unscaled transform, and their plain max
  // |x| (computed even without a rowwise copy: it bounds the unscaled one).
  auto loop = scf::ForOp::create(b, start, end, stride, ValueRange{zero, zero});
  {
    OpBuilder::InsertionGuard inLoop(b);
    b.setInsertionPointToStart(loop.getBody());
    RhtGroupMax group =
        rhtGroupMax(b, input, loop.getInductionVar(), spec.cols,
                    /*unscaled=*/true, loop.getRegionIterArg(1));
    Value max = arith::MaxNumFOp::create(b, loop.getRegionIterArg(0),
                                         group.transformed);
    scf::YieldOp::create(b, ValueRange{max, group.plain});
  }
  Value unscaledMax = loop.getResult(0), plainMax = loop.getResult(1);
  // The thread's transformed amax: from the unscaled one while the plain
  // one is below 2^123; else (huge values, an inf) the thread's groups
  // again with the exact transform.
  Value inRange = arith::CmpFOp::create(b, CmpFPredicate::OLT, plainMax,
                                        constantF32(b, 0x1p123f));
  Value threadMax = ifThenElse(
      b, b.getF32Type(), inRange,
      [&]() -> Value {
        Value scaled =
            arith::MulFOp::create(b, unscaledMax, constantF32(b, 0.25f));
        Value rounded = arith::TruncFOp::create(b, b.getBF16Type(), scaled);
        return arith::ExtFOp::create(b, b.getF32Type(), rounded);
      },
      [&]() -> Value {
        return forLoop(
            b, start, end, stride, zero, [&](Value item, Value max) -> Value {
              RhtGroupMax group = rhtGroupMax(b, input, item, spec.cols,
                                              /*unscaled=*/false, Value());
              return arith::MaxNumFOp::create(b, max, group.transformed);
            });
      });
  // The block's maxima: the transformed ones in smem[warp], the plain ones
  // in smem[8 + warp].
  Value warpSize = constantIndex(b, 32);
  Value warpTransformed = warpMax(b, threadMax);
  Value lane = arith::RemUIOp::create(b, tid, warpSize);
  Value warp = arith::DivUIOp::create(b, tid, warpSize);
  Value lane0 =
      arith::CmpIOp::create(b, CmpIPredicate::eq, lane, constantIndex(b, 0));
  ifThen(b, lane0, [&] {
    memref::StoreOp::create(b, warpTransformed, smem, ValueRange{warp});
  });
  gpu::BarrierOp::create(b);
  Value thread0 =
      arith::CmpIOp::create(b, CmpIPredicate::eq, tid, constantIndex(b, 0));
  if (plain) {
    Value warpPlain = warpMax(b, plainMax);
    ifThen(b, lane0, [&] {
      Value slot = arith::AddIOp::create(b, warp, constantIndex(b, 8));
      memref::StoreOp::create(b, warpPlain, smem, ValueRange{slot});
    });
    gpu::BarrierOp::create(b);
  }
  ifThen(b, thread0, [&] {
    SmallVector<Value, 2> maxima{sharedMax(b, smem, 8)};
    SmallVector<SmallVector<Value, 2>, 2> buffers{{body->getArgument(1)}};
    if (plain) {
      maxima.push_back(
          forLoop(b, constantIndex(b, 8), constantIndex(b, 16),
                  constantIndex(b, 1), zero, [&](Value j, Value max) -> Value {
                    Value slot = memref::LoadOp::create(b, smem, ValueRange{j});
                    return arith::MaxNumFOp::create(b, max, slot);
                  }));
      buffers.push_back({body->getArgument(2)});
    }
    // The rowwise copy takes the plain amax, the columnwise one the
    // transformed copy's.
    finishAmaxAcrossBlocks(b, globals, grid, maxima, buffers,
                           {plain ? 1 : 0, 0}, smem, /*slot=*/16);
  });
  fillNVFP4Constants(b, globals, smem, tid, /*slot=*/16);
  gpu::ReturnOp::create(b);
  return launch;
}

//===----------------------------------------------------------------------===//
// An NVFP4 GEMM's alpha, from its operands' amaxes
//===----------------------------------------------------------------------===//

KernelGroup
mlir::teq::kernels::emitNVFP4GemmAlpha(const EmitContext &ctx,
                                       const NVFP4GemmAlphaBuffers &buffers) {
  ImplicitLocOpBuilder &b = ctx.b;
  KernelLaunch launch = ctx.launchOf("_alpha");
  launch.blockX = kBlockSize;
  launch.args = {buffers.amaxA, buffers.amaxB, buffers.alpha};
  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel =
      createKernel(b, ctx.module, launch.kernel, launch.args, kBlockSize);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  // te-semantics.md §6.2: alpha' = amax_A amax_B / (6 6 448 448), on the
  // device so the GEMM never waits for the host.
  Value c0 = constantIndex(b, 0);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value first = arith::CmpIOp::create(b, CmpIPredicate::eq, tid, c0);
  ifThen(b, first, [&] {
    Value a = memref::LoadOp::create(b, body->getArgument(0), ValueRange{c0});
    Value bAmax =
        memref::LoadOp::create(b, body->getArgument(1), ValueRange{c0});
    Value product = arith::MulFOp::create(b, a, bAmax);
    Value result = arith::DivFOp::create(
        b, product, constantF32(b, 6.0f * 6.0f * 448.0f * 448.0f));
    memref::StoreOp::create(b, result, body->getArgument(2), ValueRange{c0});
  });
  gpu::ReturnOp::create(b);
  return {launch};
}

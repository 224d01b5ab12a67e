//===- Norm.cpp - LayerNorm and RMSNorm kernels ---------------------------===//

#include "Norm.h"

#include "Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::teq::kernels;

namespace {

/// SMs of an H100/H200: the backward's first level fills them.
constexpr int64_t kSMCount = 132;
constexpr int64_t kMaxThreads = 512;
constexpr int64_t kWarp = 32;
/// The finalize kernel's CTA: 8 warps, each a slice of the partial rows,
/// its lanes 32 adjacent columns (128-byte loads).
constexpr int64_t kFinalWarps = 8;
constexpr int64_t kFinalThreads = kFinalWarps * kWarp;
/// Partial rows a finalize thread loads before it adds them.
constexpr int64_t kFinalUnroll = 16;

/// Elements of one 16-byte access of x where n allows it, else 1.
int64_t vectorWidth(const NormSpec &spec) {
  int64_t width = 16 / bytesOf(spec.x);
  return spec.cols % width == 0 ? width : 1;
}

/// Threads of a row's CTA: enough for one vector each, a whole number of
/// warps, at most 512.
int64_t threadsOf(const NormSpec &spec) {
  int64_t groups = spec.cols / vectorWidth(spec);
  int64_t warps = (groups + kWarp - 1) / kWarp;
  return std::clamp<int64_t>(warps * kWarp, kWarp, kMaxThreads);
}

/// The backward's CTAs an SM: about 1024 threads in flight (two CTAs of
/// 512); fewer CTAs keep the partials (and the finalize's reads) small.
int64_t backwardCtasPerSM(const NormSpec &spec) {
  return std::max<int64_t>(1, 1024 / threadsOf(spec));
}

/// Whether the backward's thread holds at most 8 elements of a row: then it
/// fits the 64 registers of two CTAs of 512 an SM (normBackwardCtas's
/// count; more elements would spill there).
bool fitsTwoCtasAnSM(int64_t elements) { return elements <= 8; }

/// One thread's share of a row: groups of `width` contiguous elements
/// v = tid + k * threads for k < perThread (those with v < groups exist).
struct RowShare {
  int64_t width = 1, groups = 0, perThread = 0;
};

RowShare shareOf(const NormSpec &spec, int64_t width, int64_t threads) {
  RowShare share;
  share.width = width;
  share.groups = spec.cols / width;
  share.perThread = (share.groups + threads - 1) / threads;
  return share;
}

/// Whether the backward loads the next row's dy and x while it works on the
/// current one: one vector a thread (its registers twice still fit two
/// CTAs an SM). Not the one-element fallback (unaligned buffers: eight
/// scalars twice would not fit) nor wider shares.
bool prefetchesRows(const RowShare &share) {
  return share.width > 1 && share.perThread == 1;
}

/// Builds one norm kernel's body: the row share's loads and stores, the
/// block sums, the per-element arithmetic (each op rounded, no fast math:
/// y given mean and rstd is lib/Reference's normApply bit for bit).
class NormBuilder {
public:
  NormBuilder(ImplicitLocOpBuilder &b, const NormSpec &spec, int64_t threads,
              Value tid, Value shared)
      : b(b), spec(spec), threads(threads), warps(threads / kWarp), tid(tid),
        shared(shared) {}

  VectorType f32Vector(const RowShare &share) {
    return VectorType::get({share.width}, b.getF32Type());
  }
  Value splat(const RowShare &share, Value scalar) {
    return vector::BroadcastOp::create(b, f32Vector(share), scalar);
  }
  Value zeros(const RowShare &share) {
    return splat(share, constantF32(b, 0.0f));
  }

  /// Group k of this thread: whether it exists, and its first element's
  /// column.
  std::pair<Value, Value> group(const RowShare &share, int64_t k) {
    Value v = arith::AddIOp::create(b, tid, constantIndex(b, k * threads));
    Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, v,
                                        constantIndex(b, share.groups));
    Value column = arith::MulIOp::create(b, v, constantIndex(b, share.width));
    return {valid, column};
  }

  /// The group at element `offset` of `buffer` in its element type (0
  /// where the group does not exist): what the backward carries to the next
  /// row (bf16 takes half the registers of f32).
  Value loadRaw(const RowShare &share, Value buffer, Value valid,
                Value offset) {
    Type element = cast<MemRefType>(buffer.getType()).getElementType();
    auto type = VectorType::get({share.width}, element);
    return ifThenElse(
        b, type, valid,
        [&]() -> Value {
          // One element: a scalar load (loadVector claims 16-byte
          // alignment, which a single element does not have).
          if (share.width == 1)
            return vector::BroadcastOp::create(
                       b, type,
                       memref::LoadOp::create(b, buffer, ValueRange{offset}))
                .getResult();
          return loadVector(b, type, buffer, offset);
        },
        [&]() -> Value {
          return arith::ConstantOp::create(
                     b, type,
                     DenseElementsAttr::get(type, b.getZeroAttr(element)))
              .getResult();
        });
  }

  /// The group at element `offset` of `buffer` as f32 lanes (0 where the
  /// group does not exist).
  Value load(const RowShare &share, Value buffer, Value valid, Value offset) {
    return extendToF32(b, loadRaw(share, buffer, valid, offset));
  }

  /// Stores the f32 lanes rounded once to `buffer`'s element type.
  void store(const RowShare &share, Value values, Value buffer, Value valid,
             Value offset) {
    Type element = cast<MemRefType>(buffer.getType()).getElementType();
    ifThen(b, valid, [&] {
      Value out = values;
      if (!element.isF32())
        out = arith::TruncFOp::create(
            b, VectorType::get({share.width}, element), values);
      if (share.width == 1)
        memref::StoreOp::create(
            b, vector::ExtractOp::create(b, out, ArrayRef<int64_t>{0}), buffer,
            ValueRange{offset});
      else
        storeVector(b, out, buffer, offset);
    });
  }

  /// The effective weight g (gamma, + 1 with zero_centered_gamma) of group k.
  Value gammaOf(const RowShare &share, Value gamma, Value valid, Value col) {
    Value g = load(share, gamma, valid, col);
    if (spec.zeroCenteredGamma)
      g = arith::AddFOp::create(b, g, splat(share, constantF32(b, 1.0f)));
    return g;
  }

  /// `acc` plus the lanes of `lanes` (selected by `valid`, else 0) in
  /// order.
  Value addLanes(Value acc, Value lanes, Value valid, const RowShare &share) {
    Value zero = constantF32(b, 0.0f);
    for (int64_t i = 0; i < share.width; ++i) {
      Value lane = vector::ExtractOp::create(b, lanes, ArrayRef<int64_t>{i});
      if (valid)
        lane = arith::SelectOp::create(b, valid, lane, zero);
      acc = arith::AddFOp::create(b, acc, lane);
    }
    return acc;
  }

  /// The sums over the CTA of each thread's `values`, in every thread:
  /// a warp xor butterfly (every lane gets the same bits: addition
  /// commutes), lane 0 stores its warp's into shared slots [base + i *
  /// warps + w], a barrier, then each thread adds the warps' in order. The
  /// slots must not be written again before a barrier.
  SmallVector<Value> blockSums(ArrayRef<Value> values, int64_t base) {
    return blockSums(values, constantIndex(b, base));
  }
  SmallVector<Value> blockSums(ArrayRef<Value> values, Value base) {
    SmallVector<Value> warpSums;
    for (Value value : values) {
      for (int32_t offset = 16; offset >= 1; offset /= 2) {
        auto shuffle = gpu::ShuffleOp::create(b, value, offset, kWarp,
                                              gpu::ShuffleMode::XOR);
        value = arith::AddFOp::create(b, value, shuffle.getShuffleResult());
      }
      warpSums.push_back(value);
    }
    Value warpSize = constantIndex(b, kWarp);
    Value lane = arith::RemUIOp::create(b, tid, warpSize);
    Value warp = arith::DivUIOp::create(b, tid, warpSize);
    Value lane0 = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane,
                                        constantIndex(b, 0));
    ifThen(b, lane0, [&] {
      for (auto [i, sum] : llvm::enumerate(warpSums)) {
        Value slot = b.createOrFold<arith::AddIOp>(
            warp, b.createOrFold<arith::AddIOp>(
                      base, constantIndex(b, int64_t(i) * warps)));
        memref::StoreOp::create(b, sum, shared, ValueRange{slot});
      }
    });
    gpu::BarrierOp::create(b);
    SmallVector<Value> sums;
    for (size_t i = 0; i < values.size(); ++i) {
      Value sum = constantF32(b, 0.0f);
      for (int64_t w = 0; w < warps; ++w) {
        // Folds to a constant slot where `base` is one.
        Value slot = b.createOrFold<arith::AddIOp>(
            base, constantIndex(b, int64_t(i) * warps + w));
        Value s = memref::LoadOp::create(b, shared, ValueRange{slot});
        sum = arith::AddFOp::create(b, sum, s);
      }
      sums.push_back(sum);
    }
    return sums;
  }

  /// CUDA's rsqrtf: PTX rsqrt.approx.f32 through NVVM's intrinsic (no
  /// libdevice call; not correctly rounded, within 2 ulp).
  Value rsqrt(Value v) {
    return LLVM::CallIntrinsicOp::create(
               b, b.getF32Type(), b.getStringAttr("llvm.nvvm.rsqrt.approx.f"),
               ValueRange{v})
        .getResult(0);
  }

  /// Slots of shared memory the kernel's block sums use: two sums; the
  /// backward's rows alternate between two such sets.
  int64_t sharedSlots() const { return (spec.backward ? 4 : 2) * warps; }

  ImplicitLocOpBuilder &b;
  const NormSpec &spec;
  int64_t threads, warps;
  Value tid, shared;
};

/// One row per CTA: statistics, then y. `args`: x, gamma, [beta], y,
/// [mean], rstd.
Value buildForwardRow(NormBuilder &nb, const RowShare &share,
                      ArrayRef<BlockArgument> args, Value row) {
  ImplicitLocOpBuilder &b = nb.b;
  const NormSpec &spec = nb.spec;
  unsigned next = 0;
  Value x = args[next++], gamma = args[next++];
  Value beta = spec.hasBeta ? Value(args[next++]) : Value();
  Value y = args[next++];
  Value mean = spec.rms ? Value() : Value(args[next++]);
  Value rstd = args[next++];

  Value rowStart = arith::MulIOp::create(b, row, constantIndex(b, spec.cols));
  SmallVector<Value> valid, column, offset, xs;
  Value threadSum = constantF32(b, 0.0f);
  for (int64_t k = 0; k < share.perThread; ++k) {
    auto [ok, col] = nb.group(share, k);
    Value at = arith::AddIOp::create(b, rowStart, col);
    Value xk = nb.load(share, x, ok, at);
    valid.push_back(ok);
    column.push_back(col);
    offset.push_back(at);
    xs.push_back(xk);
    // Missing groups are 0: they add nothing.
    threadSum = nb.addLanes(threadSum, spec.rms
                                           ? arith::MulFOp::create(b, xk, xk)
                                           : xk,
                            Value(), share);
  }
  Value rn = constantF32(b, 1.0f / static_cast<float>(spec.cols));
  Value mu, variance;
  if (spec.rms) {
    // (sum x^2) * rn.
    variance = arith::MulFOp::create(b, nb.blockSums({threadSum}, 0)[0], rn);
  } else {
    // Two passes: mean, then the squared deviations from it.
    mu = arith::MulFOp::create(b, nb.blockSums({threadSum}, 0)[0], rn);
    Value m2 = constantF32(b, 0.0f);
    for (int64_t k = 0; k < share.perThread; ++k) {
      Value d = arith::SubFOp::create(b, xs[k], nb.splat(share, mu));
      m2 = nb.addLanes(m2, arith::MulFOp::create(b, d, d), valid[k], share);
    }
    variance =
        arith::MulFOp::create(b, nb.blockSums({m2}, nb.warps)[0], rn);
  }
  Value rs = nb.rsqrt(
      arith::AddFOp::create(b, variance, constantF32(b, spec.eps)));
  // amaxOfY: max |y| of this thread's groups as stored (0 for missing ones).
  Value threadMax = spec.amaxOfY ? constantF32(b, 0.0f) : Value();
  for (int64_t k = 0; k < share.perThread; ++k) {
    // y = g * (rs * (x - mu)) + b, each op rounded (Reference normApply).
    Value centred =
        spec.rms ? xs[k]
                 : arith::SubFOp::create(b, xs[k], nb.splat(share, mu))
                       .getResult();
    Value normed = arith::MulFOp::create(b, nb.splat(share, rs), centred);
    Value out = arith::MulFOp::create(
        b, nb.gammaOf(share, gamma, valid[k], column[k]), normed);
    if (beta)
      out = arith::AddFOp::create(b, out,
                                  nb.load(share, beta, valid[k], column[k]));
    nb.store(share, out, y, valid[k], offset[k]);
    if (threadMax) {
      Value stored = out;
      Type element = cast<MemRefType>(y.getType()).getElementType();
      if (!element.isF32())
        stored = extendToF32(
            b, arith::TruncFOp::create(
                   b, VectorType::get({share.width}, element), out));
      Value groupMax = vector::ReductionOp::create(
          b, vector::CombiningKind::MAXNUMF, math::AbsFOp::create(b, stored));
      groupMax = arith::SelectOp::create(b, valid[k], groupMax,
                                         constantF32(b, 0.0f));
      threadMax = arith::MaxNumFOp::create(b, threadMax, groupMax);
    }
  }
  Value thread0 = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, nb.tid,
                                        constantIndex(b, 0));
  ifThen(b, thread0, [&] {
    if (mean)
      memref::StoreOp::create(b, mu, mean, ValueRange{row});
    memref::StoreOp::create(b, rs, rstd, ValueRange{row});
  });
  return threadMax;
}

/// The rows of this CTA (grid-strided): dx per row, dy*y and dy summed per
/// column in registers, stored as the CTA's row of the partials. `args`:
/// dy, x, [mean], rstd, gamma, [add], dx, partials.
///
/// Memory-bound, so the loop keeps loads in flight: each iteration first
/// issues the next row's dy, x (in their own type, half the registers of
/// f32) and statistics, then works on the current row's. Its block sums
/// alternate between two sets of shared slots, so one barrier a row
/// suffices (a thread that writes a set again has passed the barrier of the
/// row between, which every thread reaches only after reading the set).
/// Each row's arithmetic is the reference's (lib/Reference/Norm.h).
void buildBackwardRows(NormBuilder &nb, const RowShare &share,
                       ArrayRef<BlockArgument> args, int64_t ctas) {
  ImplicitLocOpBuilder &b = nb.b;
  const NormSpec &spec = nb.spec;
  unsigned next = 0;
  Value dy = args[next++], x = args[next++];
  Value mean = spec.rms ? Value() : Value(args[next++]);
  Value rstd = args[next++], gamma = args[next++];
  Value add = spec.hasAdd ? Value(args[next++]) : Value();
  Value dx = args[next++];
  Value partials = args[next++];
  const int64_t sums = spec.rms ? 1 : 2;
  const int64_t groups = share.perThread;

  SmallVector<Value> valid, column, g;
  for (int64_t k = 0; k < groups; ++k) {
    auto [ok, col] = nb.group(share, k);
    valid.push_back(ok);
    column.push_back(col);
    g.push_back(nb.gammaOf(share, gamma, ok, col));
  }
  Value rows = constantIndex(b, spec.rows);
  Value cols = constantIndex(b, spec.cols);
  // A row's inputs, where `present` (0 otherwise): rstd, [mean], then dy,
  // x and [add] of each group in their element type.
  const int64_t perGroup = add ? 3 : 2;
  auto rowInputs = [&](Value row, Value present) {
    SmallVector<Value> inputs;
    Value zero = constantF32(b, 0.0f);
    for (Value stat : {rstd, mean})
      if (stat)
        inputs.push_back(ifThenElse(
            b, b.getF32Type(), present,
            [&] { return memref::LoadOp::create(b, stat, ValueRange{row}); },
            [&] { return zero; }));
    Value rowStart = arith::MulIOp::create(b, row, cols);
    for (int64_t k = 0; k < groups; ++k) {
      Value at = arith::AddIOp::create(b, rowStart, column[k]);
      Value ok = arith::AndIOp::create(b, present, valid[k]);
      inputs.push_back(nb.loadRaw(share, dy, ok, at));
      inputs.push_back(nb.loadRaw(share, x, ok, at));
      if (add)
        inputs.push_back(nb.loadRaw(share, add, ok, at));
    }
    return inputs;
  };

  const bool prefetch = prefetchesRows(share);
  Value always = arith::ConstantOp::create(b, b.getBoolAttr(true));
  // Carried: per group dgamma's partial sums, then dbeta's; the current
  // row's inputs (prefetched); the set of shared slots its block sums use.
  SmallVector<Value> init;
  for (int64_t i = 0; i < sums * groups; ++i)
    init.push_back(nb.zeros(share));
  Value cta = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  // Every CTA has a first row (ctas <= rows).
  if (prefetch)
    llvm::append_range(init, rowInputs(cta, always));
  init.push_back(constantIndex(b, 0));
  const int64_t accumulators = sums * groups;
  const int64_t statistics = mean ? 2 : 1;
  const int64_t slotSet = 2 * nb.warps;
  Value rn = constantF32(b, 1.0f / static_cast<float>(spec.cols));
  auto loop = scf::ForOp::create(b, cta, rows, constantIndex(b, ctas), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value row = loop.getInductionVar();
    auto carriedIn = loop.getRegionIterArgs();
    // The next row's loads first: in flight while this row is reduced.
    SmallVector<Value> inputs, nextInputs;
    if (prefetch) {
      Value nextRow = arith::AddIOp::create(b, row, constantIndex(b, ctas));
      Value hasNext =
          arith::CmpIOp::create(b, arith::CmpIPredicate::ult, nextRow, rows);
      nextInputs = rowInputs(nextRow, hasNext);
      llvm::append_range(inputs, carriedIn.slice(accumulators,
                                                 statistics + perGroup * groups));
    } else {
      inputs = rowInputs(row, always);
    }
    Value rs = inputs[0];
    Value mu = mean ? Value(inputs[1]) : Value();
    Value rowStart = arith::MulIOp::create(b, row, cols);
    SmallVector<Value> offset, ys, dys, dzs, carried;
    Value sumDz = constantF32(b, 0.0f), sumDzY = constantF32(b, 0.0f);
    for (int64_t k = 0; k < groups; ++k) {
      Value at = arith::AddIOp::create(b, rowStart, column[k]);
      Value dyk = extendToF32(b, inputs[statistics + perGroup * k]);
      Value xk = extendToF32(b, inputs[statistics + perGroup * k + 1]);
      Value centred =
          mu ? arith::SubFOp::create(b, xk, nb.splat(share, mu)).getResult()
             : xk;
      Value yk = arith::MulFOp::create(b, nb.splat(share, rs), centred);
      Value dzk = arith::MulFOp::create(b, g[k], dyk);
      // Missing groups have dy = 0, so dz = 0 and dz*y = 0.
      if (mu)
        sumDz = nb.addLanes(sumDz, dzk, Value(), share);
      sumDzY = nb.addLanes(sumDzY, arith::MulFOp::create(b, dzk, yk), Value(),
                           share);
      offset.push_back(at);
      ys.push_back(yk);
      dys.push_back(dyk);
      dzs.push_back(dzk);
    }
    // The column sums only need this thread's values: added before the
    // block sums, dy is dead across their barrier.
    for (int64_t k = 0; k < groups; ++k)
      carried.push_back(arith::AddFOp::create(
          b, carriedIn[k], arith::MulFOp::create(b, dys[k], ys[k])));
    if (mu)
      for (int64_t k = 0; k < groups; ++k)
        carried.push_back(
            arith::AddFOp::create(b, carriedIn[groups + k], dys[k]));
    Value slots = carriedIn.back();
    SmallVector<Value> rowSums =
        mu ? nb.blockSums({sumDz, sumDzY}, slots)
           : nb.blockSums({sumDzY}, slots);
    Value mdyy = arith::MulFOp::create(b, rowSums.back(), rn);
    Value mdy = mu ? arith::MulFOp::create(b, rowSums.front(), rn).getResult()
                   : Value();
    for (int64_t k = 0; k < groups; ++k) {
      // dx = rs * (dz - (mdyy * y + mdy)) (RMSNorm: rs * (dz - mdyy * y)),
      // plus `add` in f32 before the one rounding (TE's rmsnorm_bwd_add).
      Value inner = arith::MulFOp::create(b, nb.splat(share, mdyy), ys[k]);
      if (mdy)
        inner = arith::AddFOp::create(b, inner, nb.splat(share, mdy));
      Value dxk = arith::MulFOp::create(
          b, nb.splat(share, rs), arith::SubFOp::create(b, dzs[k], inner));
      if (add)
        dxk = arith::AddFOp::create(
            b, dxk, extendToF32(b, inputs[statistics + perGroup * k + 2]));
      nb.store(share, dxk, dx, valid[k], offset[k]);
    }
    llvm::append_range(carried, nextInputs);
    // The other set of slots: 0 <-> slotSet.
    carried.push_back(
        arith::SubIOp::create(b, constantIndex(b, slotSet), slots));
    scf::YieldOp::create(b, carried);
  }
  // Row `cta` of dgamma's partials, then of dbeta's.
  for (int64_t i = 0; i < sums; ++i) {
    Value base = arith::MulIOp::create(
        b, arith::AddIOp::create(b, cta, constantIndex(b, i * ctas)), cols);
    for (int64_t k = 0; k < groups; ++k)
      nb.store(share, loop.getResult(i * groups + k), partials, valid[k],
               arith::AddIOp::create(b, base, column[k]));
  }
}

/// Whether every memref of `args` starts 16-byte aligned.
Value allAligned(ImplicitLocOpBuilder &b, ArrayRef<BlockArgument> args) {
  Value aligned;
  for (BlockArgument buffer : args) {
    Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, buffer);
    Value misalignment =
        arith::RemUIOp::create(b, address, constantIndex(b, 16));
    Value isAligned = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                            misalignment, constantIndex(b, 0));
    aligned = aligned ? arith::AndIOp::create(b, aligned, isAligned).getResult()
                      : isAligned;
  }
  return aligned;
}

/// The kernel's body with 16-byte groups where n allows and every buffer
/// is aligned, else (the caller's buffers need not be) one element at a
/// time.
void buildRowKernel(const EmitContext &ctx, gpu::GPUFuncOp kernel,
                    const NormSpec &spec, int64_t threads, int64_t ctas) {
  ImplicitLocOpBuilder &b = ctx.b;
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  NormBuilder nb(b, spec, threads, tid, Value());
  nb.shared = addWorkgroupBuffer(kernel, b.getF32Type(), nb.sharedSlots());
  // amaxOfY: the block max's own slots (the row sums' may still be read).
  Value maxSlots = spec.amaxOfY ? addWorkgroupBuffer(kernel, b.getF32Type(),
                                                     threads / kWarp)
                                : Value();
  // The kernel's buffers (not its workgroup attribution); the scale the
  // amax goes to is the last (amaxOfY).
  ArrayRef<BlockArgument> args =
      body->getArguments().take_front(kernel.getNumArguments());
  auto build = [&](int64_t width) -> Value {
    RowShare share = shareOf(spec, width, threads);
    if (spec.backward) {
      buildBackwardRows(nb, share, args, ctas);
      return Value();
    }
    return buildForwardRow(nb, share, args,
                           gpu::BlockIdOp::create(b, gpu::Dimension::x));
  };
  int64_t width = vectorWidth(spec);
  Value threadMax;
  if (width == 1)
    threadMax = build(1);
  else if (spec.amaxOfY)
    threadMax = ifThenElse(b, b.getF32Type(), allAligned(b, args.drop_back()),
                           [&] { return build(width); },
                           [&] { return build(1); });
  else
    ifThenElse(b, allAligned(b, args), [&] { build(width); },
               [&] { build(1); });
  if (spec.amaxOfY)
    emitProducerAmaxToScale(ctx, spec.amax, args.back(), threadMax, tid,
                            maxSlots, threads, spec.rows);
  gpu::ReturnOp::create(b);
}

/// Level 2 of dgamma/dbeta: CTA (t, s) sums the partials of columns
/// [32t, 32t + 32) of sum s (dgamma, dbeta). Its warp w adds partial rows
/// [w * chunk, (w + 1) * chunk) in order, up to 16 at a time loaded before
/// they are added (rows past the slice read its last row and add 0: no
/// branches between the loads), then warp 0 adds
/// the warps' sums in warp order and rounds once: a fixed order, the same
/// bits every run. `args`: partials, dgamma, [dbeta].
void buildFinalize(ImplicitLocOpBuilder &b, gpu::GPUFuncOp kernel,
                   const NormSpec &spec, int64_t ctas) {
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  Value partials = body->getArgument(0);
  Value shared = addWorkgroupBuffer(kernel, b.getF32Type(), kFinalThreads);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value lane = arith::RemUIOp::create(b, tid, constantIndex(b, kWarp));
  Value warp = arith::DivUIOp::create(b, tid, constantIndex(b, kWarp));
  Value sum = gpu::BlockIdOp::create(b, gpu::Dimension::y);
  Value col = arith::AddIOp::create(
      b,
      arith::MulIOp::create(b, gpu::BlockIdOp::create(b, gpu::Dimension::x),
                            constantIndex(b, kWarp)),
      lane);
  Value cols = constantIndex(b, spec.cols);
  Value inside = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, col, cols);
  // Past the last column: read the last one (its sum is not stored).
  Value readCol = arith::MinUIOp::create(b, col, constantIndex(b, spec.cols - 1));
  const int64_t chunk = (ctas + kFinalWarps - 1) / kFinalWarps;
  // Up to kFinalUnroll loads in flight per step, the steps equal.
  const int64_t steps = (chunk + kFinalUnroll - 1) / kFinalUnroll;
  const int64_t unroll = (chunk + steps - 1) / steps;
  Value first = arith::AddIOp::create(
      b, arith::MulIOp::create(b, sum, constantIndex(b, ctas)),
      arith::MulIOp::create(b, warp, constantIndex(b, chunk)));
  Value end = arith::MinUIOp::create(
      b, arith::AddIOp::create(b, first, constantIndex(b, chunk)),
      arith::MulIOp::create(
          b, arith::AddIOp::create(b, sum, constantIndex(b, 1)),
          constantIndex(b, ctas)));
  Value lastRow = arith::SubIOp::create(b, end, constantIndex(b, 1));
  Value zero = constantF32(b, 0.0f);
  Value acc = forLoop(
      b, constantIndex(b, 0), constantIndex(b, steps * unroll),
      constantIndex(b, unroll), zero, [&](Value j0, Value carried) {
        SmallVector<Value> loaded, present;
        Value base = arith::AddIOp::create(b, first, j0);
        for (int64_t j = 0; j < unroll; ++j) {
          Value rowOf = arith::AddIOp::create(b, base, constantIndex(b, j));
          present.push_back(
              arith::CmpIOp::create(b, arith::CmpIPredicate::ult, rowOf, end));
          Value readRow = arith::MinUIOp::create(b, rowOf, lastRow);
          Value at = arith::AddIOp::create(
              b, arith::MulIOp::create(b, readRow, cols), readCol);
          loaded.push_back(memref::LoadOp::create(b, partials, ValueRange{at}));
        }
        for (int64_t j = 0; j < unroll; ++j)
          carried = arith::AddFOp::create(
              b, carried,
              arith::SelectOp::create(b, present[j], loaded[j], zero));
        return carried;
      });
  memref::StoreOp::create(b, acc, shared, ValueRange{tid});
  gpu::BarrierOp::create(b);
  Value warp0 = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, warp,
                                      constantIndex(b, 0));
  ifThen(b, arith::AndIOp::create(b, warp0, inside), [&] {
    Value total = zero;
    for (int64_t w = 0; w < kFinalWarps; ++w)
      total = arith::AddFOp::create(
          b, total,
          memref::LoadOp::create(
              b, shared,
              ValueRange{arith::AddIOp::create(
                  b, lane, constantIndex(b, w * kWarp))}));
    auto storeTo = [&](Value out) {
      Value value = total;
      Type element = cast<MemRefType>(out.getType()).getElementType();
      if (!element.isF32())
        value = arith::TruncFOp::create(b, element, value);
      memref::StoreOp::create(b, value, out, ValueRange{col});
    };
    // The kernel's buffers, not its workgroup attribution.
    if (kernel.getNumArguments() == 2) {
      storeTo(body->getArgument(1));
      return;
    }
    Value isDgamma = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, sum,
                                           constantIndex(b, 0));
    ifThenElse(b, isDgamma, [&] { storeTo(body->getArgument(1)); },
               [&] { storeTo(body->getArgument(2)); });
  });
  gpu::ReturnOp::create(b);
}

} // namespace

int64_t mlir::teq::kernels::normBackwardCtas(const NormSpec &spec) {
  return std::clamp<int64_t>(kSMCount * backwardCtasPerSM(spec), 1,
                             spec.rows);
}

int64_t mlir::teq::kernels::normScratchElements(const NormSpec &spec) {
  if (!spec.backward)
    return 0;
  return (spec.rms ? 1 : 2) * normBackwardCtas(spec) * spec.cols;
}

KernelGroup mlir::teq::kernels::emitNorm(const EmitContext &ctx,
                                         const NormSpec &spec,
                                         const NormBuffers &buffers) {
  ImplicitLocOpBuilder &b = ctx.b;
  const int64_t threads = threadsOf(spec);
  auto present = [](std::initializer_list<Value> values) {
    SmallVector<Value> args;
    for (Value v : values)
      if (v)
        args.push_back(v);
    return args;
  };
  OpBuilder::InsertionGuard guard(b);
  if (!spec.backward) {
    KernelLaunch launch =
        spec.rms ? ctx.launchOf("_rms_norm") : ctx.launchOf("_layer_norm");
    launch.gridX = spec.rows;
    launch.blockX = threads;
    launch.args = present({buffers.x, buffers.gamma, buffers.beta, buffers.y,
                           buffers.mean, buffers.rstd});
    if (spec.amaxOfY)
      launch.args.push_back(buffers.scale);
    buildRowKernel(
        ctx, createKernel(b, ctx.module, launch.kernel, launch.args, threads),
        spec, threads, spec.rows);
    return {launch};
  }
  const int64_t ctas = normBackwardCtas(spec);
  KernelLaunch rows =
      spec.rms ? ctx.launchOf("_rms_norm_bwd")
               : ctx.launchOf("_layer_norm_bwd");
  rows.gridX = ctas;
  rows.blockX = threads;
  rows.args = present({buffers.dy, buffers.x, buffers.mean, buffers.rstd,
                       buffers.gamma, buffers.add, buffers.dx,
                       buffers.partials});
  KernelLaunch final = ctx.launchOf("_norm_bwd_final");
  final.gridX = (spec.cols + kWarp - 1) / kWarp;
  final.gridY = buffers.dbeta ? 2 : 1;
  final.blockX = kFinalThreads;
  final.args = present({buffers.partials, buffers.dgamma, buffers.dbeta});
  gpu::GPUFuncOp rowKernel =
      createKernel(b, ctx.module, rows.kernel, rows.args, threads);
  // The CTAs normBackwardCtas counts on resident together (2 of 512
  // threads an SM: at most 64 registers). Uncapped, ptxas took 75 for
  // LayerNorm at n = 4096 (the one-element fallback's share is the larger)
  // and only one CTA of 512 fit an SM: LayerNorm's backward ran at 39% of
  // the copy bandwidth. Wider rows keep ptxas's count (they would spill).
  if (fitsTwoCtasAnSM(shareOf(spec, vectorWidth(spec), threads).perThread *
                      vectorWidth(spec)))
    rowKernel->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                       b.getI32IntegerAttr(backwardCtasPerSM(spec)));
  buildRowKernel(ctx, rowKernel, spec, threads, ctas);
  buildFinalize(
      b, createKernel(b, ctx.module, final.kernel, final.args, kFinalThreads),
      spec, ctas);
  return {rows, final};
}

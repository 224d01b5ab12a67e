//===- Norm.cpp - LayerNorm and RMSNorm kernels ---------------------------===//

#include "Norm.h"

#include "Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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
/// Threads of the finalize kernel (one column each).
constexpr int64_t kFinalThreads = 256;

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

  /// The group at element `offset` of `buffer` as f32 lanes (0 where the
  /// group does not exist).
  Value load(const RowShare &share, Value buffer, Value valid, Value offset) {
    Type element = cast<MemRefType>(buffer.getType()).getElementType();
    return ifThenElse(
        b, f32Vector(share), valid,
        [&] {
          // One element: a scalar load (loadVector claims 16-byte
          // alignment, which a single element does not have).
          if (share.width == 1)
            return splat(share, extendToF32(b, memref::LoadOp::create(
                                                   b, buffer, ValueRange{offset})));
          Value loaded = loadVector(
              b, VectorType::get({share.width}, element), buffer, offset);
          return extendToF32(b, loaded);
        },
        [&] { return zeros(share); });
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
        Value slot = arith::AddIOp::create(
            b, warp, constantIndex(b, base + int64_t(i) * warps));
        memref::StoreOp::create(b, sum, shared, ValueRange{slot});
      }
    });
    gpu::BarrierOp::create(b);
    SmallVector<Value> sums;
    for (size_t i = 0; i < values.size(); ++i) {
      Value sum = constantF32(b, 0.0f);
      for (int64_t w = 0; w < warps; ++w) {
        Value slot = constantIndex(b, base + int64_t(i) * warps + w);
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

  /// Slots of shared memory the kernel's block sums use.
  int64_t sharedSlots() const { return 2 * warps; }

  ImplicitLocOpBuilder &b;
  const NormSpec &spec;
  int64_t threads, warps;
  Value tid, shared;
};

/// One row per CTA: statistics, then y. `args`: x, gamma, [beta], y,
/// [mean], rstd.
void buildForwardRow(NormBuilder &nb, const RowShare &share,
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
  }
  Value thread0 = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, nb.tid,
                                        constantIndex(b, 0));
  ifThen(b, thread0, [&] {
    if (mean)
      memref::StoreOp::create(b, mu, mean, ValueRange{row});
    memref::StoreOp::create(b, rs, rstd, ValueRange{row});
  });
}

/// The rows of this CTA (grid-strided): dx per row, dy*y and dy summed per
/// column in registers, stored as the CTA's row of the partials. `args`:
/// dy, x, [mean], rstd, gamma, dx, partials.
void buildBackwardRows(NormBuilder &nb, const RowShare &share,
                       ArrayRef<BlockArgument> args, int64_t ctas) {
  ImplicitLocOpBuilder &b = nb.b;
  const NormSpec &spec = nb.spec;
  unsigned next = 0;
  Value dy = args[next++], x = args[next++];
  Value mean = spec.rms ? Value() : Value(args[next++]);
  Value rstd = args[next++], gamma = args[next++], dx = args[next++];
  Value partials = args[next++];
  const int64_t sums = spec.rms ? 1 : 2;

  SmallVector<Value> valid, column, g, init;
  for (int64_t k = 0; k < share.perThread; ++k) {
    auto [ok, col] = nb.group(share, k);
    valid.push_back(ok);
    column.push_back(col);
    g.push_back(nb.gammaOf(share, gamma, ok, col));
  }
  // Per group: dgamma's partial sums, then dbeta's.
  for (int64_t i = 0; i < sums * share.perThread; ++i)
    init.push_back(nb.zeros(share));
  Value cta = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value rn = constantF32(b, 1.0f / static_cast<float>(spec.cols));
  auto loop = scf::ForOp::create(b, cta, constantIndex(b, spec.rows),
                                 constantIndex(b, ctas), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value row = loop.getInductionVar();
    Value rs = memref::LoadOp::create(b, rstd, ValueRange{row});
    Value mu = mean ? Value(memref::LoadOp::create(b, mean, ValueRange{row}))
                    : Value();
    Value rowStart = arith::MulIOp::create(b, row, constantIndex(b, spec.cols));
    SmallVector<Value> offset, ys, dys, dzs;
    Value sumDz = constantF32(b, 0.0f), sumDzY = constantF32(b, 0.0f);
    for (int64_t k = 0; k < share.perThread; ++k) {
      Value at = arith::AddIOp::create(b, rowStart, column[k]);
      Value xk = nb.load(share, x, valid[k], at);
      Value dyk = nb.load(share, dy, valid[k], at);
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
    SmallVector<Value> rowSums =
        mu ? nb.blockSums({sumDz, sumDzY}, 0) : nb.blockSums({sumDzY}, 0);
    Value mdyy = arith::MulFOp::create(b, rowSums.back(), rn);
    Value mdy = mu ? arith::MulFOp::create(b, rowSums.front(), rn).getResult()
                   : Value();
    SmallVector<Value> carried;
    for (int64_t k = 0; k < share.perThread; ++k) {
      // dx = rs * (dz - (mdyy * y + mdy)) (RMSNorm: rs * (dz - mdyy * y)).
      Value inner =
          arith::MulFOp::create(b, nb.splat(share, mdyy), ys[k]);
      if (mdy)
        inner = arith::AddFOp::create(b, inner, nb.splat(share, mdy));
      Value dxk = arith::MulFOp::create(
          b, nb.splat(share, rs), arith::SubFOp::create(b, dzs[k], inner));
      nb.store(share, dxk, dx, valid[k], offset[k]);
    }
    for (int64_t k = 0; k < share.perThread; ++k)
      carried.push_back(arith::AddFOp::create(
          b, loop.getRegionIterArg(k),
          arith::MulFOp::create(b, dys[k], ys[k])));
    if (mu)
      for (int64_t k = 0; k < share.perThread; ++k)
        carried.push_back(arith::AddFOp::create(
            b, loop.getRegionIterArg(share.perThread + k), dys[k]));
    // The next row's block sums reuse the slots.
    gpu::BarrierOp::create(b);
    scf::YieldOp::create(b, carried);
  }
  // Row `cta` of dgamma's partials, then of dbeta's.
  for (int64_t i = 0; i < sums; ++i) {
    Value base = arith::MulIOp::create(
        b, arith::AddIOp::create(b, cta, constantIndex(b, i * ctas)),
        constantIndex(b, spec.cols));
    for (int64_t k = 0; k < share.perThread; ++k)
      nb.store(share, loop.getResult(i * share.perThread + k), partials,
               valid[k], arith::AddIOp::create(b, base, column[k]));
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
void buildRowKernel(ImplicitLocOpBuilder &b, gpu::GPUFuncOp kernel,
                    const NormSpec &spec, int64_t threads, int64_t ctas) {
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value shared =
      addWorkgroupBuffer(kernel, b.getF32Type(), 2 * (threads / kWarp));
  NormBuilder nb(b, spec, threads, tid, shared);
  // The kernel's buffers (not its workgroup attribution).
  ArrayRef<BlockArgument> args =
      body->getArguments().take_front(kernel.getNumArguments());
  auto build = [&](int64_t width) {
    RowShare share = shareOf(spec, width, threads);
    if (spec.backward)
      buildBackwardRows(nb, share, args, ctas);
    else
      buildForwardRow(nb, share, args,
                      gpu::BlockIdOp::create(b, gpu::Dimension::x));
  };
  int64_t width = vectorWidth(spec);
  if (width == 1)
    build(1);
  else
    ifThenElse(b, allAligned(b, args), [&] { build(width); },
               [&] { build(1); });
  gpu::ReturnOp::create(b);
}

/// Level 2 of dgamma/dbeta: each thread adds its column's partials in CTA
/// order and rounds once. `args`: partials, dgamma, [dbeta].
void buildFinalize(ImplicitLocOpBuilder &b, gpu::GPUFuncOp kernel,
                   const NormSpec &spec, int64_t ctas) {
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  Value partials = body->getArgument(0);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value bx = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value col = arith::AddIOp::create(
      b, arith::MulIOp::create(b, bx, constantIndex(b, kFinalThreads)), tid);
  Value cols = constantIndex(b, spec.cols);
  Value inside = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, col, cols);
  ifThen(b, inside, [&] {
    for (unsigned i = 1; i < body->getNumArguments(); ++i) {
      Value first = constantIndex(b, (i - 1) * ctas);
      Value total = forLoop(
          b, constantIndex(b, 0), constantIndex(b, ctas), constantIndex(b, 1),
          constantF32(b, 0.0f), [&](Value c, Value acc) {
            Value rowOf = arith::AddIOp::create(b, first, c);
            Value at = arith::AddIOp::create(
                b, arith::MulIOp::create(b, rowOf, cols), col);
            Value p = memref::LoadOp::create(b, partials, ValueRange{at});
            return arith::AddFOp::create(b, acc, p).getResult();
          });
      Value out = body->getArgument(i);
      Type element = cast<MemRefType>(out.getType()).getElementType();
      if (!element.isF32())
        total = arith::TruncFOp::create(b, element, total);
      memref::StoreOp::create(b, total, out, ValueRange{col});
    }
  });
  gpu::ReturnOp::create(b);
}

} // namespace

int64_t mlir::teq::kernels::normBackwardCtas(const NormSpec &spec) {
  // About 1024 threads per SM in flight (two CTAs of 512); fewer CTAs keep
  // the partials (and the finalize's reads) small.
  int64_t perSM = std::max<int64_t>(1, 1024 / threadsOf(spec));
  return std::clamp<int64_t>(kSMCount * perSM, 1, spec.rows);
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
    buildRowKernel(
        b, createKernel(b, ctx.module, launch.kernel, launch.args, threads),
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
                       buffers.gamma, buffers.dx, buffers.partials});
  KernelLaunch final = ctx.launchOf("_norm_bwd_final");
  final.gridX = (spec.cols + kFinalThreads - 1) / kFinalThreads;
  final.blockX = kFinalThreads;
  final.args = present({buffers.partials, buffers.dgamma, buffers.dbeta});
  buildRowKernel(
      b, createKernel(b, ctx.module, rows.kernel, rows.args, threads), spec,
      threads, ctas);
  buildFinalize(
      b, createKernel(b, ctx.module, final.kernel, final.args, kFinalThreads),
      spec, ctas);
  return {rows, final};
}

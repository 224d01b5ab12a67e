//===- DelayedScalingUpdate.cpp - TE's fused delayed-scaling update -------===//

#include "DelayedScalingUpdate.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::teq::kernels;

KernelGroup mlir::teq::kernels::emitDelayedScalingUpdate(
    const EmitContext &ctx, const DelayedScalingUpdateSpec &spec,
    const DelayedScalingUpdateBuffers &buffers) {
  ImplicitLocOpBuilder &b = ctx.b;
  // One block a slot, its threads striding over the history rows: the roll
  // is independent per row and the window maximum a block reduction, so
  // the update takes a few memory round trips instead of L dependent ones.
  KernelLaunch launch = ctx.launchOf("_update");
  launch.blockX = kBlockSize;
  launch.gridX = spec.slots;
  launch.args = {buffers.scale, buffers.history, buffers.newScale,
                 buffers.newHistory};
  if (buffers.reduced)
    launch.args.push_back(buffers.reduced);

  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel =
      createKernel(b, ctx.module, launch.kernel, launch.args, kBlockSize);
  Value warpMaxima = addWorkgroupBuffer(kernel, b.getF32Type(), kBlockSize / 32);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  Value scaleIn = body->getArgument(0), hist = body->getArgument(1);
  Value scaleOut = body->getArgument(2), histOut = body->getArgument(3);

  Value c0 = constantIndex(b, 0);
  Value c1 = constantIndex(b, 1);
  Value block = constantIndex(b, kBlockSize);
  Value slots = constantIndex(b, spec.slots);
  Value length = constantIndex(b, spec.length);
  Value zero = constantF32(b, 0.0f);
  Value inf = constantF32(b, std::numeric_limits<float>::infinity());
  Value fltMax = constantF32(b, std::numeric_limits<float>::max());
  Value scaledMax = constantF32(
      b, std::ldexp(spec.fp8Max, -static_cast<int>(spec.margin)));
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value s = gpu::BlockIdOp::create(b, gpu::Dimension::x);

  Value last = memref::LoadOp::create(b, hist, ValueRange{s});
  if (buffers.reduced) {
    Value reducedLast =
        memref::LoadOp::create(b, body->getArgument(4), ValueRange{s});
    Value reducedNonZero = arith::CmpFOp::create(
        b, arith::CmpFPredicate::UNE, reducedLast, zero);
    last = arith::SelectOp::create(b, reducedNonZero, reducedLast, last);
  }
  // NaN counts as non-zero, as in the C++ `last != 0`.
  Value lastNonZero =
      arith::CmpFOp::create(b, arith::CmpFPredicate::UNE, last, zero);
  // When `last` (row 0, the amaxes just recorded) is non-zero the history
  // rolls: row l takes row l+1, the last row takes row 0, row 0 restarts at
  // zero (TE's roll(-1) then [0] = 0). The window maximum is over every
  // row (maxnumf: NaN-ignoring, so the order of the reduction is free).
  Value threadMax = forLoop(
      b, tid, length, block, zero, [&](Value l, Value max) -> Value {
        Value next = arith::AddIOp::create(b, l, c1);
        Value inRange =
            arith::CmpIOp::create(b, arith::CmpIPredicate::ult, next, length);
        Value incoming = ifThenElse(
            b, b.getF32Type(), inRange,
            [&]() -> Value {
              Value row = arith::MulIOp::create(b, next, slots);
              Value at = arith::AddIOp::create(b, row, s);
              return memref::LoadOp::create(b, hist, ValueRange{at});
            },
            [&]() -> Value { return last; });
        Value nextMax = arith::MaxNumFOp::create(b, max, incoming);
        Value row = arith::MulIOp::create(b, l, slots);
        Value at = arith::AddIOp::create(b, row, s);
        Value old = memref::LoadOp::create(b, hist, ValueRange{at});
        Value notFirst =
            arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, l, c0);
        Value rolled = arith::SelectOp::create(b, notFirst, incoming, zero);
        Value updated = arith::SelectOp::create(b, lastNonZero, rolled, old);
        memref::StoreOp::create(b, updated, histOut, ValueRange{at});
        return nextMax;
      });
  blockMaxOnThread0(b, threadMax, tid, warpMaxima, kBlockSize,
                    [&](Value windowMax) {
    Value windowMaxOrZero =
        arith::SelectOp::create(b, lastNonZero, windowMax, zero);
    // + 0 makes -0 +0, as TE's float arithmetic does.
    Value amax = arith::AddFOp::create(
        b, spec.mostRecent ? last : windowMaxOrZero, zero);
    Value absAmax = math::AbsFOp::create(b, amax);
    Value finite =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, absAmax, inf);
    Value positive =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, amax, zero);
    Value use = arith::AndIOp::create(b, finite, positive);
    Value oldScale = memref::LoadOp::create(b, scaleIn, ValueRange{s});
    Value quotient = arith::DivFOp::create(b, scaledMax, amax);
    Value candidate = arith::SelectOp::create(b, use, quotient, oldScale);
    Value absCandidate = math::AbsFOp::create(b, candidate);
    Value isInf = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ,
                                        absCandidate, inf);
    Value next = arith::SelectOp::create(b, isInf, fltMax, candidate);
    memref::StoreOp::create(b, next, scaleOut, ValueRange{s});
  });
  gpu::ReturnOp::create(b);
  return {launch};
}

//===- QuantizedLayoutLowering.cpp - Usage views and scale swizzles -------===//
//
// Ops that change how a quantized tensor is laid out, not its values:
//   teq.update_usage   a view sharing its input's buffers of the same TE
//                      name, or, where it needs a buffer the input lacks
//                      (per-tensor FP8's transposed copy, TE makes it after
//                      an all-gather on Hopper), that buffer computed by a
//                      transpose kernel and the others copied;
//   teq.swizzle_scales compact MXFP8/NVFP4 scales moved into cuBLAS's
//                      128x4 tiles (te-semantics.md §4.2); the data and
//                      amax buffers are the input's (copied only into an
//                      entry result's buffers).
//
//===----------------------------------------------------------------------===//

#include "OpLowering.h"

#include "Lowerable.h"

#include "Kernels/Auxiliary.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;
namespace layout = ::mlir::teq::layout;

namespace {

LogicalResult checkUsageView(UpdateUsageOp view) {
  // A usage that needs a buffer the input lacks is computed only for
  // per-tensor FP8's transposed copy, from the rowwise data.
  llvm::StringSet<> held;
  TargetAttr target = TargetAttr::lookup(view);
  for (const layout::BufferDesc &d :
       view.getInput().getType().getBuffers(target))
    held.insert(d.name);
  QuantizerAttrInterface q = view.getInput().getType().getQuantizer();
  bool perTensor =
      isa<Float8CurrentScalingQuantizerAttr, Float8QuantizerAttr>(q);
  for (const layout::BufferDesc &d :
       view.getResult().getType().getBuffers(target))
    if (!held.contains(d.name) &&
        !(perTensor && d.name == "transpose" && held.contains("data")))
      return view.emitOpError("derives buffer '")
             << d.name << "' its input does not hold (" << target.getChip()
             << "); deriving a usage has no GPU lowering yet: quantize with "
                "every usage the program reads";
  return success();
}

LogicalResult checkLayoutOp(Operation &op) {
  if (auto view = dyn_cast<UpdateUsageOp>(op))
    return checkUsageView(view);
  return success();
}

/// The view's buffers are those of its input with the same TE name.
void aliasUsageView(LoweringContext &ctx, UpdateUsageOp view) {
  TensorProtoType to = view.getResult().getType();
  for (const layout::BufferDesc &desc : to.getBuffers(ctx.getTarget())) {
    Value input = ctx.namedBuffer(view.getInput(), desc.name);
    ctx.buffersOf(view.getResult()).push_back(input);
  }
}

/// The transposed copy from the rowwise data; the other buffers copied.
void lowerDerivedUsage(LoweringContext &ctx, UpdateUsageOp view) {
  Location loc = view.getLoc();
  TensorProtoType to = view.getResult().getType();
  std::vector<int64_t> shape(to.getShape().begin(), to.getShape().end());
  layout::Flat2D flat = layout::flatten2D(shape);
  llvm::StringMap<NamedBuffer> out = ctx.namedBuffers(view.getResult());
  for (const layout::BufferDesc &desc : to.getBuffers(ctx.getTarget())) {
    Value dest = out.lookup(desc.name).value;
    if (desc.name != "transpose") {
      ctx.copyBuffer(loc, ctx.namedBuffer(view.getInput(), desc.name), dest);
      continue;
    }
    kernels::TransposeBuffers buffers{
        ctx.namedBuffer(view.getInput(), "data"), dest};
    kernels::TransposeSpec spec{flat.m, flat.k};
    ctx.launchKernels(loc, KernelKind::Transpose,
                      [&](const kernels::EmitContext &ec) {
                        return kernels::emitTranspose(ec, spec, buffers);
                      });
  }
}

void lowerSwizzleScales(LoweringContext &ctx, SwizzleScalesOp op) {
  TensorProtoType to = op.getResult().getType();
  std::vector<layout::BufferDesc> descs = to.getBuffers(ctx.getTarget());
  bool mxfp8 = isa<MXFP8QuantizerAttr>(to.getQuantizer());
  SmallVector<Value> outputs(ctx.buffers(op.getResult()));
  for (auto [desc, output] : llvm::zip_equal(descs, outputs)) {
    Value input = ctx.namedBuffer(op.getInput(), desc.name);
    if (!isScaleBuffer(desc.name)) {
      if (!output) { // a temporary: the input's buffer
        output = input;
        continue;
      }
      ctx.copyBuffer(op.getLoc(), input, output);
      continue;
    }
    kernels::ScaleSwizzleSpec spec;
    spec.rows = desc.shape[0];
    spec.cols = desc.shape[1];
    spec.transposed = mxfp8 && desc.name == "columnwise_scale_inv";
    kernels::ScaleSwizzleBuffers buffers{input, output};
    ctx.launchKernels(op.getLoc(), KernelKind::ScaleSwizzle,
                      [&](const kernels::EmitContext &ec) {
                        return kernels::emitScaleSwizzle(ec, spec, buffers);
                      });
  }
  ctx.buffersOf(op.getResult()) = std::move(outputs);
}

LogicalResult lowerLayoutOp(LoweringContext &ctx, Operation &op) {
  if (auto view = dyn_cast<UpdateUsageOp>(op)) {
    if (derivesBuffers(view, ctx.getTarget()))
      lowerDerivedUsage(ctx, view);
    else
      aliasUsageView(ctx, view);
    return success();
  }
  lowerSwizzleScales(ctx, cast<SwizzleScalesOp>(op));
  return success();
}

} // namespace

const OpLowering lowering::quantizedLayoutLowering = {
    "teq.update_usage, teq.swizzle_scales",
    [](Operation &op) { return isa<UpdateUsageOp, SwizzleScalesOp>(op); },
    checkLayoutOp,
    lowerLayoutOp,
};

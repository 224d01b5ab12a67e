//===- QuantizeLowering.cpp - teq.quantize, by format ---------------------===//
//
// The quantizer picks the format's emitter: per-tensor FP8 (current and
// delayed scaling), FP8 block scaling, MXFP8 and NVFP4. Each fills its
// spec (the flattened M x K shape, types, which copies, the quantizer's
// options) and buffers (the input's and the result's, by TE name) and
// launches the group its emitter builds.
//
//===----------------------------------------------------------------------===//

#include "OpLowering.h"
#include "QuantizeFusion.h"

#include "Kernels/BlockFP8.h"
#include "Kernels/MXFP8.h"
#include "Kernels/NVFP4.h"
#include "Kernels/PerTensorFP8.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;
namespace layout = ::mlir::teq::layout;

namespace {

/// Whether the target has Blackwell's arch-specific E2M1 / UE8M0
/// conversions (cvt.rn.satfinite.e2m1x2, cvt.rp.satfinite.ue8m0x2): sm_100a
/// and later `a` targets. Elsewhere exact software conversions stand in.
bool hasBlackwellConversions(TargetAttr target) {
  return target.getSm() >= 100 && target.getSuffix() == "a";
}

/// The data and scale buffers of a block-scaled quantization (block FP8,
/// MXFP8, NVFP4) and the shapes of its scales.
struct BlockScaledOutputs {
  Value rdata, rscale, cdata, cscale;
  int64_t rowScaleRows = 0, rowScaleCols = 0;
  int64_t colScaleRows = 0, colScaleCols = 0;

  explicit BlockScaledOutputs(llvm::StringMap<NamedBuffer> &named) {
    rdata = named.lookup("rowwise_data").value;
    rscale = named.lookup("rowwise_scale_inv").value;
    cdata = named.lookup("columnwise_data").value;
    cscale = named.lookup("columnwise_scale_inv").value;
    if (rscale) {
      const layout::BufferDesc &d = named["rowwise_scale_inv"].desc;
      rowScaleRows = d.shape[0];
      rowScaleCols = d.shape[1];
    }
    if (cscale) {
      const layout::BufferDesc &d = named["columnwise_scale_inv"].desc;
      colScaleRows = d.shape[0];
      colScaleCols = d.shape[1];
    }
  }

  /// Which copies the kernel writes and the shapes of their scales.
  template <typename Spec>
  void describeInto(Spec &spec) const {
    spec.rowwise = static_cast<bool>(rdata);
    spec.columnwise = static_cast<bool>(cdata);
    spec.rowScaleRows = rowScaleRows;
    spec.rowScaleCols = rowScaleCols;
    spec.colScaleRows = colScaleRows;
    spec.colScaleCols = colScaleCols;
  }
};

/// The fields every quantize spec shares: the flattened M x K shape and the
/// input type.
template <typename Spec>
void initSpec(Spec &spec, TensorProtoType proto) {
  layout::Flat2D flat = layout::flatten2D(
      std::vector<int64_t>(proto.getShape().begin(), proto.getShape().end()));
  spec.rows = flat.m;
  spec.cols = flat.k;
  spec.input = kernels::inputTypeOf(proto.getElementType());
}

/// The copies, scale shapes and buffers of a tile kernel (block FP8,
/// MXFP8). Tile kernels write every scale byte, padding included, so their
/// outputs need no zero-fill.
template <typename Spec>
kernels::TileBuffers tileOutputs(LoweringContext &ctx, QuantizeOp op,
                                 Spec &spec) {
  llvm::StringMap<NamedBuffer> named = ctx.namedBuffers(op.getResult());
  BlockScaledOutputs outs(named);
  outs.describeInto(spec);
  return {ctx.buffer(op.getInput()), outs.rdata, outs.rscale, outs.cdata,
          outs.cscale};
}

LogicalResult lowerPerTensorFP8(LoweringContext &ctx, QuantizeOp op) {
  TensorProtoType proto = op.getResult().getType();
  kernels::PerTensorFP8Spec spec;
  initSpec(spec, proto);
  spec.e5m2 = isa<Float8E5M2Type>(proto.getQuantizer().getDataType());
  if (auto cs = dyn_cast<Float8CurrentScalingQuantizerAttr>(
          proto.getQuantizer())) {
    spec.forcePow2 = cs.getForcePow_2Scales();
    spec.epsilon = static_cast<float>(cs.getAmaxEpsilon().convertToDouble());
    spec.reduceAmax = cs.getWithAmaxReduction();
    spec.dependentLaunch = ctx.getTarget().getCaps().supportsDependentLaunch();
  } else {
    spec.delayed = true;
    spec.historyLength =
        cast<RankedTensorType>(op.getAmaxHistory().getType()).getDimSize(0);
  }
  // Which buffers exist follows the layout (data, transpose, scale_inv).
  llvm::StringMap<NamedBuffer> named = ctx.namedBuffers(op.getResult());
  kernels::PerTensorFP8Buffers buffers;
  buffers.input = ctx.buffer(op.getInput());
  buffers.data = named.lookup("data").value;
  buffers.transpose = named.lookup("transpose").value;
  buffers.scaleInv = named.lookup("scale_inv").value;
  spec.rowwise = static_cast<bool>(buffers.data);
  spec.transpose = static_cast<bool>(buffers.transpose);
  if (spec.delayed) {
    buffers.scale = ctx.buffer(op.getScale());
    buffers.amaxHistory = ctx.buffer(op.getAmaxHistory());
    if (Value updated = op.getUpdatedAmaxHistory())
      buffers.updatedAmaxHistory = ctx.buffer(updated);
  }
  // The kernel producing the input computed the scale (QuantizeFusion.h).
  if (takesProducerAmax(op)) {
    spec.scaleFromProducer = true;
    buffers.producerScale = ctx.scratch(op);
  }
  // A bias gradient of the same tensor: the transposing cast sums its
  // columns (QuantizeFusion.h); the bias_grad lowering finishes the sums.
  if (BiasGradOp biasGrad = biasGradSummedBy(op)) {
    spec.columnSums = true;
    buffers.columnSums = ctx.scratch(biasGrad);
  }
  auto emit = [&](const kernels::EmitContext &ec) {
    return kernels::emitPerTensorFP8(ec, spec, buffers);
  };
  if (!spec.reduceAmax) {
    ctx.launchKernels(op.getLoc(), KernelKind::Quantize, emit);
    return success();
  }
  // Amax reduction: the rank's amax goes to scratch, the group all-reduces
  // it (max) between the amax and the scale kernels.
  buffers.amax = ctx.scratch(op);
  ctx.launchKernels(
      op.getLoc(), KernelKind::Quantize, emit,
      {{kernels::kPerTensorFP8AmaxOutStage, [&] {
          ctx.allReduceAmax(op.getLoc(), op.getAmaxReductionGroup(),
                            buffers.amax, buffers.amax);
        }}});
  return success();
}

LogicalResult lowerBlockFP8(LoweringContext &ctx, QuantizeOp op) {
  TensorProtoType proto = op.getResult().getType();
  auto bq = cast<Float8BlockQuantizerAttr>(proto.getQuantizer());
  kernels::BlockFP8Spec spec;
  initSpec(spec, proto);
  spec.e5m2 = isa<Float8E5M2Type>(bq.getFp8Dtype());
  spec.twoD = bq.getBlockScalingDim() == 2;
  spec.forcePow2 = bq.getForcePow_2Scales();
  spec.epsilon = static_cast<float>(bq.getAmaxEpsilon().convertToDouble());
  kernels::TileBuffers buffers = tileOutputs(ctx, op, spec);
  ctx.launchKernels(op.getLoc(), KernelKind::Quantize,
                    [&](const kernels::EmitContext &ec) {
                      return kernels::emitBlockFP8(ec, spec, buffers);
                    });
  return success();
}

LogicalResult lowerMXFP8(LoweringContext &ctx, QuantizeOp op) {
  TensorProtoType proto = op.getResult().getType();
  auto mx = cast<MXFP8QuantizerAttr>(proto.getQuantizer());
  kernels::MXFP8Spec spec;
  initSpec(spec, proto);
  spec.e5m2 = isa<Float8E5M2Type>(mx.getFp8Dtype());
  spec.twoD = mx.getWith_2dQuantization();
  spec.swizzled = proto.getScaleLayout() == ScaleLayout::gemm_swizzled;
  spec.hardwareConversions = hasBlackwellConversions(ctx.getTarget());
  kernels::TileBuffers buffers = tileOutputs(ctx, op, spec);
  ctx.launchKernels(op.getLoc(), KernelKind::Quantize,
                    [&](const kernels::EmitContext &ec) {
                      return kernels::emitMXFP8(ec, spec, buffers);
                    });
  return success();
}

LogicalResult lowerNVFP4(LoweringContext &ctx, QuantizeOp op) {
  TensorProtoType proto = op.getResult().getType();
  auto nv = cast<NVFP4QuantizerAttr>(proto.getQuantizer());
  TargetAttr target = ctx.getTarget();
  kernels::NVFP4Spec spec;
  initSpec(spec, proto);
  spec.twoD = nv.getWith_2dQuantization();
  spec.swizzled = proto.getScaleLayout() == ScaleLayout::gemm_swizzled;
  spec.rht = nv.getWithRht();
  spec.hardwareConversions = hasBlackwellConversions(target);
  spec.stochastic = nv.getStochasticRounding();
  // Hopper and later: the data kernel stages its tile while the amax pass
  // drains (NVFP4Spec::dependentLaunch).
  spec.dependentLaunch = target.getCaps().supportsDependentLaunch();
  // The (seed, offset) buffer of stochastic rounding: an entry argument.
  Value rng;
  if (spec.stochastic) {
    if (!ctx.hasBuffers(op.getRngState()))
      return op.emitOpError("rng_state must be an argument of the entry "
                            "function (the kernels read its 16 bytes)");
    rng = ctx.buffer(op.getRngState());
  }
  llvm::StringMap<NamedBuffer> named = ctx.namedBuffers(op.getResult());
  BlockScaledOutputs outs(named);
  outs.describeInto(spec);
  kernels::NVFP4Buffers buffers;
  buffers.input = ctx.buffer(op.getInput());
  buffers.rowData = outs.rdata;
  buffers.rowScale = outs.rscale;
  buffers.columnData = outs.cdata;
  buffers.columnScale = outs.cscale;
  buffers.rowAmax = named.lookup("amax_rowwise").value;
  buffers.columnAmax = named.lookup("amax_columnwise").value;
  buffers.rngState = rng;
  ctx.launchKernels(op.getLoc(), KernelKind::Quantize,
                    [&](const kernels::EmitContext &ec) {
                      return kernels::emitNVFP4Quantize(ec, spec, buffers);
                    });
  return success();
}

LogicalResult lowerQuantize(LoweringContext &ctx, Operation &operation) {
  auto op = cast<QuantizeOp>(operation);
  QuantizerAttrInterface q = op.getResult().getType().getQuantizer();
  if (isa<Float8BlockQuantizerAttr>(q))
    return lowerBlockFP8(ctx, op);
  if (isa<MXFP8QuantizerAttr>(q))
    return lowerMXFP8(ctx, op);
  if (isa<NVFP4QuantizerAttr>(q))
    return lowerNVFP4(ctx, op);
  return lowerPerTensorFP8(ctx, op);
}

/// NVFP4 with round-to-nearest or stochastic rounding, 1D and 2D, and RHT
/// is lowered; the rest needs kernels of its own (te-semantics.md §5.5).
/// (with_rht without with_post_rht_amax, or on non-bf16 input, does not
/// verify.)
LogicalResult checkNVFP4(QuantizeOp op, NVFP4QuantizerAttr nv) {
  const char *missing =
      nv.getWithRht() && !nv.getWithRandomSignMask()
          ? "with_rht but not with_random_sign_mask"
      : nv.getRowScaledNvfp4()    ? "row_scaled_nvfp4"
      : nv.getNvfp4Use_4over6()   ? "nvfp4_use_4over6"
      : nv.getWithAmaxReduction() ? "with_amax_reduction"
                                  : nullptr;
  if (!missing && nv.getNvfp4E4m3Max() != 448)
    missing = "nvfp4_e4m3_max other than 448";
  TensorProtoType proto = op.getResult().getType();
  if (!missing && nv.getWithRht() && proto.hasColumnwise()) {
    int64_t m = layout::flatten2D(std::vector<int64_t>(
                                      proto.getShape().begin(),
                                      proto.getShape().end()))
                    .m;
    if (nv.getWith_2dQuantization())
      return op.emitOpError("NVFP4 RHT cannot be combined with 2D (16x16) "
                            "quantization");
    if (m % 16 != 0)
      return op.emitOpError("NVFP4 RHT transforms groups of 16 rows: M = ")
             << m << " must be a multiple of 16";
  }
  if (missing)
    return op.emitOpError("NVFP4Quantizer with ")
           << missing
           << " has no GPU lowering yet (this version lowers NVFP4 with "
              "round-to-nearest or stochastic rounding, 1D and 2D, and RHT "
              "with the post-RHT amax)";
  return success();
}

LogicalResult checkQuantize(Operation &operation) {
  auto op = cast<QuantizeOp>(operation);
  QuantizerAttrInterface q = op.getResult().getType().getQuantizer();
  if (isa<Float8QuantizerAttr>(q))
    return success(); // Its group is reduced over at the update.
  if (isa<Float8BlockQuantizerAttr, MXFP8QuantizerAttr>(q))
    return success();
  if (auto nv = dyn_cast<NVFP4QuantizerAttr>(q))
    return checkNVFP4(op, nv);
  if (!isa<Float8CurrentScalingQuantizerAttr>(q))
    return op.emitOpError("quantizing with ")
           << q.getQuantizerName()
           << " has no GPU lowering yet (this version lowers "
              "Float8CurrentScalingQuantizer, Float8Quantizer, "
              "Float8BlockQuantizer, MXFP8Quantizer and NVFP4Quantizer)";
  if (Value group = op.getAmaxReductionGroup();
      group && !isa<BlockArgument>(group))
    return op.emitOpError("needs its amax_reduction_group as an argument of "
                          "the entry function (the caller passes a "
                          "communicator per group)");
  return success();
}

} // namespace

const OpLowering lowering::quantizeLowering = {
    "teq.quantize",
    [](Operation &op) { return isa<QuantizeOp>(op); },
    checkQuantize,
    lowerQuantize,
};

//===- Lowerable.cpp - What convert-teq-to-gpu lowers ---------------------===//

#include "Lowerable.h"

#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Layout/BufferLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::teq;
namespace layout = ::mlir::teq::layout;

bool lowering::isElementwiseOnTensors(Operation &op) {
  if (!op.hasTrait<OpTrait::Elementwise>() || op.getNumResults() != 1 ||
      op.getNumRegions() != 0 ||
      !isa<arith::ArithDialect, math::MathDialect>(op.getDialect()))
    return false;
  auto resultType = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  if (!resultType)
    return false;
  auto highPrecision = [](Type t) {
    return t.isBF16() || t.isF16() || t.isF32();
  };
  if (!highPrecision(resultType.getElementType()))
    return false;
  for (Type t : op.getOperandTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || tensor.getShape() != resultType.getShape() ||
        !highPrecision(tensor.getElementType()))
      return false;
  }
  return true;
}

bool lowering::isSplatTensorConstant(Operation &op) {
  auto constant = dyn_cast<arith::ConstantOp>(op);
  if (!constant)
    return false;
  auto type = dyn_cast<RankedTensorType>(constant.getType());
  auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!type || !value || !value.isSplat())
    return false;
  Type element = type.getElementType();
  return element.isBF16() || element.isF16() || element.isF32();
}

/// A tensor constant lowers only as a splat that elementwise ops read: the
/// manifest describes it by its one value, which must be finite (JSON).
static LogicalResult checkTensorConstant(arith::ConstantOp op) {
  if (!lowering::isSplatTensorConstant(*op))
    return op.emitOpError("is a tensor constant that is not a splat of a "
                          "bf16, f16 or f32 value; only splats lower (into "
                          "the elementwise kernels that read them): pass "
                          "other constant tensors as entry arguments");
  APFloat value = cast<DenseElementsAttr>(op.getValue()).getSplatValue<APFloat>();
  if (!value.isFinite())
    return op.emitOpError("is a splat of a non-finite value, which has no "
                          "GPU lowering yet (the manifest describes constants "
                          "by a finite value)");
  for (Operation *user : op->getUsers())
    if (!lowering::isElementwiseOnTensors(*user))
      return op.emitOpError()
             << (isa<func::ReturnOp>(user)
                     ? std::string("is returned")
                     : "is read by '" + user->getName().getStringRef().str() +
                           "'")
             << ": a tensor constant lowers only as an operand of "
                "elementwise arith/math ops (it becomes a scalar in their "
                "kernel, with no buffer)";
  return success();
}

LogicalResult lowering::checkBufferShape(Type type, Location loc) {
  ArrayRef<int64_t> shape;
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    shape = tensor.getShape();
  else if (auto proto = dyn_cast<TensorProtoType>(type))
    shape = proto.getShape();
  else
    return success();
  if (ShapedType::isDynamicShape(shape))
    return emitError(loc) << "entry values need static shapes (buffers are "
                             "planned at compile time), got "
                          << type;
  constexpr int64_t kMaxBytes = int64_t(1) << 48;
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d == 0)
      return emitError(loc) << "empty tensors have no GPU lowering, got "
                            << type;
    // 4 bytes an element at most: the f32 tensors and their copies.
    if (llvm::MulOverflow(elements, d, elements) || elements > kMaxBytes / 4)
      return emitError(loc) << type << " is too large: entry buffers are "
                               "limited to 2^48 bytes";
  }
  return success();
}

LogicalResult lowering::checkCollective(Operation &op) {
  // The group is a communicator the caller passes for the entry.
  auto group = dyn_cast<BlockArgument>(op.getOperand(1));
  if (!group || !isa<func::FuncOp>(group.getOwner()->getParentOp()))
    return op.emitOpError("needs its process group as an argument of the "
                          "entry function (the caller passes a communicator "
                          "per group)");
  Type type = op.getOperand(0).getType();
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    Type element = tensor.getElementType();
    if (!element.isBF16() && !element.isF16() && !element.isF32())
      return op.emitOpError("communicates bf16, f16 or f32 tensors, got ")
             << tensor;
    return success();
  }
  // Quantized: only all-gather (the verifier), of per-tensor FP8 rowwise
  // data, as TE gathers it (te-semantics.md §7).
  auto proto = cast<TensorProtoType>(type);
  QuantizerAttrInterface q = proto.getQuantizer();
  if (!isa<Float8CurrentScalingQuantizerAttr, Float8QuantizerAttr>(q))
    return op.emitOpError("all-gather of ")
           << q.getQuantizerName()
           << " data has no GPU lowering yet (this version gathers "
              "per-tensor FP8: Float8CurrentScalingQuantizer, "
              "Float8Quantizer)";
  if (proto.hasColumnwise())
    return op.emitOpError("gathers per-tensor FP8 with a columnwise usage; "
                          "TE gathers only the rowwise data of per-tensor "
                          "FP8 (the columnwise copy is made after the "
                          "gather)");
  if (auto cs = dyn_cast<Float8CurrentScalingQuantizerAttr>(q);
      cs && !cs.getWithAmaxReduction())
    return op.emitOpError("gathers current-scaling FP8 whose quantizer has "
                          "no amax reduction: every rank's data would have "
                          "its own scale (TE reduces the amax over the group "
                          "first: with_amax_reduction = true)");
  // The gathered shards share the local scale_inv, so their scale must be
  // one over the gather's group.
  Value gathered = op.getOperand(0);
  while (auto view = gathered.getDefiningOp<UpdateUsageOp>())
    gathered = view.getInput();
  if (auto quantize = gathered.getDefiningOp<QuantizeOp>()) {
    if (isa<Float8QuantizerAttr>(q) && !quantize.getAmaxReductionGroup())
      return op.emitOpError(
          "gathers delayed-scaling FP8 quantized in this entry without an "
          "amax_reduction_group: each rank records only its own amax, so the "
          "ranks' scales part after the next update unless the update "
          "reduces the amaxes over the gather's group (name the group on the "
          "teq.quantize and pass it to teq.delayed_scaling_update)");
    // The update that keeps the scales equal is another entry of the
    // module (the group's identity across entries is the caller's): at
    // least one must reduce, or every update parts the scales.
    if (isa<Float8QuantizerAttr>(q)) {
      auto module = op.getParentOfType<ModuleOp>();
      bool reducingUpdate = false;
      module.walk([&](DelayedScalingUpdateOp update) {
        reducingUpdate |= static_cast<bool>(update.getAmaxReductionGroup());
      });
      if (!reducingUpdate)
        return op.emitOpError(
            "gathers delayed-scaling FP8, but no teq.delayed_scaling_update "
            "of this module reduces amaxes over a group: after the first "
            "update each rank's scale would be its own and the gathered "
            "shards would be decoded with the wrong one (DelayedScaling's "
            "reduce_amax under an autocast amax_reduction_group builds such "
            "an update; or quantize with current scaling)");
    }
    if (quantize.getAmaxReductionGroup() != op.getOperand(1))
      return op.emitOpError("gathers FP8 whose amax is reduced over another "
                            "process group than the gather's: the shards' "
                            "scales would differ (TE reduces the amax over "
                            "the group it gathers over)");
  }
  return success();
}

bool lowering::derivesBuffers(UpdateUsageOp view, TargetAttr target) {
  llvm::StringSet<> held;
  for (const layout::BufferDesc &d :
       view.getInput().getType().getBuffers(target))
    held.insert(d.name);
  for (const layout::BufferDesc &d :
       view.getResult().getType().getBuffers(target))
    if (!held.contains(d.name))
      return true;
  return false;
}

LogicalResult lowering::checkLowerable(Operation &op) {
  for (Type type : llvm::concat<Type>(op.getOperandTypes(), op.getResultTypes()))
    if (failed(checkBufferShape(type, op.getLoc())))
      return failure();
  if (auto view = dyn_cast<UpdateUsageOp>(op)) {
    // A view aliases its input's buffers; a usage that needs a buffer the
    // input lacks is computed: per-tensor FP8's transposed copy from the
    // rowwise data (TE does so after an all-gather on Hopper).
    llvm::StringSet<> held;
    TargetAttr target = TargetAttr::lookup(&op);
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
        return op.emitOpError("derives buffer '")
               << d.name << "' its input does not hold (" << target.getChip()
               << "); deriving a usage has no GPU lowering yet: quantize with "
                  "every usage the program reads";
  }
  if (auto update = dyn_cast<DelayedScalingUpdateOp>(op)) {
    Value group = update.getAmaxReductionGroup();
    if (group && !isa<BlockArgument>(group))
      return op.emitOpError("needs its amax_reduction_group as an argument "
                            "of the entry function (the caller passes a "
                            "communicator per group)");
    return success();
  }
  if (isa<func::ReturnOp, UpdateUsageOp,
          SwizzleScalesOp, GemmOp, BiasGradOp>(op))
    return success();
  if (isElementwiseOnTensors(op))
    return success();
  if (auto constant = dyn_cast<arith::ConstantOp>(op);
      constant && isa<RankedTensorType>(constant.getType()))
    return checkTensorConstant(constant);
  if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(op)) {
    // Delayed-scaling state slices (teq-decompose-linear).
    auto slice = cast<OffsetSizeAndStrideOpInterface>(op);
    if (!slice.getOffsets().empty() || !slice.getSizes().empty() ||
        !slice.getStrides().empty())
      return op.emitOpError("has dynamic offsets, sizes or strides; only "
                            "static slices are lowered");
    return success();
  }
  if (isa<AllGatherOp, ReduceScatterOp, AllReduceOp>(op))
    return checkCollective(op);
  auto quantize = dyn_cast<QuantizeOp>(op);
  if (!quantize)
    return op.emitOpError("has no GPU lowering yet; convert-teq-to-gpu "
                          "lowers teq.quantize, teq.update_usage, "
                          "teq.swizzle_scales, teq.gemm, teq.all_gather, "
                          "teq.reduce_scatter, teq.all_reduce, "
                          "teq.bias_grad, teq.delayed_scaling_update, "
                          "elementwise arith/math ops on bf16/f16/f32 "
                          "tensors of one shape and splat constants they "
                          "read in this version");
  QuantizerAttrInterface q = quantize.getResult().getType().getQuantizer();
  if (isa<Float8QuantizerAttr>(q))
    return success(); // Its group is reduced over at the update.
  if (isa<Float8BlockQuantizerAttr, MXFP8QuantizerAttr>(q))
    return success();
  if (auto nv = dyn_cast<NVFP4QuantizerAttr>(q)) {
    // Round-to-nearest and stochastic rounding, 1D and 2D, and RHT are
    // lowered; the rest needs kernels of its own (te-semantics.md §5.5).
    // (with_rht without with_post_rht_amax, or on non-bf16 input, does not
    // verify.)
    const char *missing =
        nv.getWithRht() && !nv.getWithRandomSignMask()
            ? "with_rht but not with_random_sign_mask"
                          : nv.getRowScaledNvfp4()     ? "row_scaled_nvfp4"
                          : nv.getNvfp4Use_4over6()    ? "nvfp4_use_4over6"
                          : nv.getWithAmaxReduction()  ? "with_amax_reduction"
                                                       : nullptr;
    if (!missing && nv.getNvfp4E4m3Max() != 448)
      missing = "nvfp4_e4m3_max other than 448";
    TensorProtoType proto = quantize.getResult().getType();
    if (!missing && nv.getWithRht() &&
        proto.hasColumnwise()) {
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
  auto cs = dyn_cast<Float8CurrentScalingQuantizerAttr>(q);
  if (!cs)
    return op.emitOpError("quantizing with ")
           << q.getQuantizerName()
           << " has no GPU lowering yet (this version lowers "
              "Float8CurrentScalingQuantizer, Float8Quantizer, "
              "Float8BlockQuantizer, MXFP8Quantizer and NVFP4Quantizer)";
  if (Value group = quantize.getAmaxReductionGroup();
      group && !isa<BlockArgument>(group))
    return op.emitOpError("needs its amax_reduction_group as an argument of "
                          "the entry function (the caller passes a "
                          "communicator per group)");
  return success();
}

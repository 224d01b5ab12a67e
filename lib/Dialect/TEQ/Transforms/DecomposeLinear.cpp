//===- DecomposeLinear.cpp - Linear into quantize + GEMM + collectives ----===//

#include "LinearTypes.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Dialect/TEQ/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::teq {
#define GEN_PASS_DEF_DECOMPOSELINEAR
#include "teq/Dialect/TEQ/Transforms/Passes.h.inc"
} // namespace mlir::teq

using namespace mlir;
using namespace mlir::teq;

namespace {

ArrayRef<int64_t> shapeOf(Type type) {
  if (auto proto = dyn_cast<TensorProtoType>(type))
    return proto.getShape();
  return cast<RankedTensorType>(type).getShape();
}

/// `type` with its leading dimension multiplied by num/den.
Type withLeadingDim(Type type, int64_t num, int64_t den) {
  SmallVector<int64_t> shape(shapeOf(type));
  shape[0] = shape[0] * num / den;
  if (auto proto = dyn_cast<TensorProtoType>(type))
    return TensorProtoType::get(proto.getContext(), shape,
                                proto.getElementType(), proto.getQuantizer(),
                                proto.getUsage(), proto.getScaleLayout());
  return RankedTensorType::get(shape,
                               cast<RankedTensorType>(type).getElementType());
}

bool hasUsage(TensorProtoType t, Usage u) {
  return (static_cast<unsigned>(t.getUsage()) & static_cast<unsigned>(u)) ==
         static_cast<unsigned>(u);
}

/// Emits the pieces of one Linear in front of it.
class LinearBuilder {
public:
  LinearBuilder(Operation *op, TargetAttr target, LinearConfigAttr config,
                LinearQuantizationAttr quantization, Value tpGroup,
                Value scale, Value history, Value rngState)
      : op(op), b(op), loc(op->getLoc()), target(target), config(config),
        quantization(quantization), tpGroup(tpGroup), scale(scale),
        history(history), rngState(rngState) {}

  /// The (possibly updated) delayed-scaling history.
  Value getHistory() const { return history; }

  /// Slot 0 (forward's input, backward's grad_output) is all-gathered over
  /// the TP group after its quantization.
  bool gathersSlot0 = false;

  /// Quantizes high-precision `value` into `type`, through delayed-scaling
  /// slot `slot` when the quantizer is stateful.
  FailureOr<Value> quantize(Value value, TensorProtoType type, int64_t slot) {
    if (!type.getQuantizer().isStateful()) {
      FailureOr<Value> rng = rngStateFor(type, slot);
      if (failed(rng))
        return failure();
      auto quantized = QuantizeOp::create(b, loc, TypeRange{type}, value,
                                          Value(), Value(), *rng,
                                          reductionGroup(type));
      // Backward quantizing what forward did not save (slot -1) rebuilds
      // it: quantize CSE must not merge it back into forward.
      if (slot < 0)
        quantized->setAttr(TEQDialect::getRecomputeAttrName(),
                           b.getUnitAttr());
      return quantized.getResult();
    }
    if (slot < 0)
      return op->emitOpError("cannot rebuild a ")
             << type.getQuantizer().getQuantizerName()
             << " tensor in backward: delayed scaling quantizes with the "
                "forward state, so forward must save it (do not use "
                "save_original_input or dedupe it away under delayed "
                "scaling)";
    if (!scale)
      return op->emitOpError("needs delayed-scaling state to quantize with ")
             << type.getQuantizer().getQuantizerName()
             << "; in backward, the quantized weight or input must be saved, "
                "not rebuilt";
    auto f32 = b.getF32Type();
    int64_t length = cast<RankedTensorType>(history.getType()).getDimSize(0);
    auto slotScale = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({1}, f32), scale,
        ArrayRef<OpFoldResult>{b.getIndexAttr(slot)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    auto historyType = RankedTensorType::get({length}, f32);
    SmallVector<OpFoldResult> offsets{b.getIndexAttr(0), b.getIndexAttr(slot)};
    SmallVector<OpFoldResult> sizes{b.getIndexAttr(length), b.getIndexAttr(1)};
    SmallVector<OpFoldResult> strides{b.getIndexAttr(1), b.getIndexAttr(1)};
    auto slotHistory = tensor::ExtractSliceOp::create(
        b, loc, historyType, history, offsets, sizes, strides);
    // A delayed-scaling tensor gathered in FP8 names the group: its scale
    // must be the same on every rank, which the update's amax reduction
    // over that group keeps (te-semantics.md §5.2, §7).
    auto quantized = QuantizeOp::create(
        b, loc, TypeRange{type, historyType}, value, slotScale.getResult(),
        slotHistory.getResult(), Value(),
        slot == 0 && gathersSlot0 ? tpGroup : Value());
    history = tensor::InsertSliceOp::create(
                  b, loc, quantized.getUpdatedAmaxHistory(), history, offsets,
                  sizes, strides)
                  .getResult();
    return quantized.getResult();
  }

  /// `value` as a quantized tensor holding at least `usage`: quantized from
  /// high precision, or a quantized operand given the usage if derivable.
  /// High precision stays as is when the recipe leaves the tensor alone.
  FailureOr<Value> asQuantized(Value value, QuantizerAttrInterface quantizer,
                               Usage usage, ScaleLayout layout, int64_t slot,
                               StringRef what) {
    if (auto proto = dyn_cast<TensorProtoType>(value.getType())) {
      if (hasUsage(proto, usage))
        return value;
      if (!isPerTensorFP8(proto.getQuantizer()) &&
          proto.getQuantizer().getLayoutFormat() !=
              ::mlir::teq::layout::Format::BlockFP8_2D)
        return op->emitOpError("the quantized ")
               << what << " lacks the " << stringifyUsage(usage)
               << " usage and " << proto.getQuantizer().getQuantizerName()
               << " cannot derive it from the other one";
      return UpdateUsageOp::create(b, loc,
                                   proto.withUsage(proto.getUsage() | usage),
                                   value)
          .getResult();
    }
    if (!quantizer)
      return value;
    return quantize(value, quantizedType(value.getType(), quantizer, usage,
                                         layout),
                    slot);
  }

  /// A backward GEMM operand under backward_override: the saved value itself
  /// (high_precision: the original tensor), or the forward's quantized copy
  /// dequantized to its high-precision dtype (dequantized), as TE does.
  Value highPrecision(Value value) {
    auto proto = dyn_cast<TensorProtoType>(value.getType());
    if (!proto)
      return value;
    return DequantizeOp::create(
               b, loc,
               RankedTensorType::get(proto.getShape(), proto.getElementType()),
               value)
        .getResult();
  }

  /// Exactly `type` from `value` (a quantized value with more usages, or one
  /// of another usage that can be derived).
  Value withType(Value value, Type type) {
    if (value.getType() == type)
      return value;
    return UpdateUsageOp::create(b, loc, type, value).getResult();
  }

  Value allGather(Value v) {
    return AllGatherOp::create(b, loc,
                               withLeadingDim(v.getType(), config.getTpSize(), 1),
                               v, tpGroup, config.getTpSize())
        .getResult();
  }
  Value reduceScatter(Value v) {
    return ReduceScatterOp::create(
               b, loc, withLeadingDim(v.getType(), 1, config.getTpSize()), v,
               tpGroup, config.getTpSize())
        .getResult();
  }
  Value allReduce(Value v) {
    return AllReduceOp::create(b, loc, v.getType(), v, tpGroup,
                               config.getTpSize())
        .getResult();
  }

  /// The layout cuBLASLt runs (te-semantics.md §6.3).
  GemmLayout physicalLayout(GemmLayout logical, Value a) const {
    auto proto = dyn_cast<TensorProtoType>(a.getType());
    if (!proto)
      return logical;
    switch (proto.getQuantizer().getLayoutFormat()) {
    case ::mlir::teq::layout::Format::PerTensorFP8:
      return target.isNonTNFP8GemmSupported() ? logical : GemmLayout::TN;
    case ::mlir::teq::layout::Format::MXFP8:
      return logical;
    default:
      return GemmLayout::TN;
    }
  }

  /// `v` with the scale layout GEMMs read: compact MXFP8/NVFP4 scales (a
  /// gathered activation, a weight quantized by the caller) are swizzled
  /// just before the GEMM, as TE's swizzle_scales_for_gemm does.
  GemmOp gemm(GemmLayout layout, Value a, Value bOperand, Type result,
              Type dbias, Value bias, Value accumulate, bool split,
              GemmKind kind) {
    MLIRContext *ctx = b.getContext();
    // Operands with compact MXFP8/NVFP4 scales are swizzled by
    // teq-legalize-gemm-operands, for every GEMM.
    return GemmOp::create(
        b, loc, result, dbias, a, bOperand, bias, accumulate, layout, split,
        GemmKindAttr::get(ctx, kind),
        GemmLayoutAttr::get(ctx, physicalLayout(layout, a)));
  }

  Operation *op;
  OpBuilder b;
  Location loc;
  TargetAttr target;
  LinearConfigAttr config;
  LinearQuantizationAttr quantization;
  Value tpGroup;

private:
  /// The TP group for quantizers that reduce their amax over it.
  Value reductionGroup(TensorProtoType type) const {
    return type.getQuantizer().hasAmaxReduction() ? tpGroup : Value();
  }

  /// The Linear's rng_state for a stochastically rounding quantizer (null
  /// for the others). One (seed, offset) is one Philox stream: two tensors
  /// quantized with it would round with the same bits, so it serves one
  /// quantization of the op.
  FailureOr<Value> rngStateFor(TensorProtoType type, int64_t slot) {
    QuantizerAttrInterface quantizer = type.getQuantizer();
    if (!quantizer.isStochastic())
      return Value();
    if (!rngState)
      return op->emitOpError("needs an rng_state to quantize ")
             << (slot < 0 ? "(rebuilding a saved tensor) " : "")
             << "with " << quantizer.getQuantizerName()
             << " with stochastic_rounding: pass rng_state(%rng : "
                "tensor<2xi64>) with the Philox seed and offset";
    if (rngUsed)
      return op->emitOpError("quantizes two tensors with stochastic "
                             "rounding but has one rng_state (one Philox "
                             "stream), so both would round with the same "
                             "random bits; round at most one tensor of a "
                             "Linear op stochastically (or save the quantized "
                             "tensor instead of rebuilding it)");
    rngUsed = true;
    return rngState;
  }

  Value scale, history;
  Value rngState;
  bool rngUsed = false;
};

/// Result type of a GEMM over `bOperand` producing `m` columns.
RankedTensorType gemmResultType(Value bOperand, int64_t m, Type element,
                                bool transb) {
  ArrayRef<int64_t> bShape = shapeOf(bOperand.getType());
  SmallVector<int64_t> shape;
  if (transb) {
    shape.push_back(bShape.back());
  } else {
    shape.append(bShape.begin(), bShape.end() - 1);
  }
  shape.push_back(m);
  return RankedTensorType::get(shape, element);
}

LogicalResult decomposeForward(LinearForwardOp op, TargetAttr target) {
  LinearConfigAttr config = op.getConfig();
  LinearQuantizationAttr q = op.getQuantizationAttr();
  LinearBuilder lb(op, target, config, q, op.getTpGroup(), op.getScale(),
                   op.getAmaxHistory(), op.getRngState());
  bool tp = config.getTpSize() > 1;
  bool sp = config.isSequenceParallel();
  ParallelMode mode = config.getParallelMode();
  QuantizerAttrInterface qx = q.getInput(), qw = q.getWeight();
  lb.gathersSlot0 = tp && sp && mode == ParallelMode::column;

  // One quantization per tensor holding every usage forward and backward
  // read; fprop reads rowwise, backward what the saved type says.
  auto unionUsage = [](Value saved, Usage fprop) {
    auto proto = saved ? dyn_cast<TensorProtoType>(saved.getType())
                       : TensorProtoType();
    return proto ? fprop | proto.getUsage() : fprop;
  };
  ScaleLayout xLayout =
      qx ? activationScaleLayout(qx, config, TensorRole::input)
         : ScaleLayout::compact;
  FailureOr<Value> xq =
      lb.asQuantized(op.getInput(), qx, unionUsage(op.getSavedInput(),
                                                   Usage::rowwise),
                     xLayout, /*slot=*/0, "input");
  FailureOr<Value> wq =
      lb.asQuantized(op.getWeight(), qw,
                     unionUsage(op.getSavedWeight(), Usage::rowwise),
                     qw ? gemmScaleLayout(qw) : ScaleLayout::compact,
                     /*slot=*/1, "weight");
  if (failed(xq) || failed(wq))
    return failure();

  Value fpropInput = *xq;
  if (tp && sp && mode == ParallelMode::column) {
    // Gather only what fprop reads (per-tensor FP8 gathers rowwise data).
    if (auto proto = dyn_cast<TensorProtoType>(fpropInput.getType()))
      fpropInput = lb.withType(fpropInput, proto.withUsage(Usage::rowwise));
    fpropInput = lb.allGather(fpropInput);
  }
  int64_t n = shapeOf(op.getWeight().getType())[0];
  Type outElement = op.getOutput().getType().getElementType();
  bool rowParallel = mode == ParallelMode::row && tp;
  Value bias = rowParallel ? Value() : op.getBias();
  Value y = lb.gemm(GemmLayout::TN, *wq, fpropInput,
                    gemmResultType(fpropInput, n, outElement, false), Type(),
                    bias, Value(), q.getFpropSplitAccumulator(),
                    GemmKind::fprop)
                .getResult();
  if (rowParallel) {
    y = sp ? lb.reduceScatter(y) : lb.allReduce(y);
    if (op.getBias())
      y = BiasAddOp::create(lb.b, lb.loc, y.getType(), y, op.getBias()).getResult();
  }
  op.getOutput().replaceAllUsesWith(y);
  // A saved slot of the high-precision type is the original value
  // (save_original_input, or high precision).
  if (Value saved = op.getSavedInput())
    saved.replaceAllUsesWith(isa<TensorProtoType>(saved.getType())
                                 ? lb.withType(*xq, saved.getType())
                                 : op.getInput());
  if (Value saved = op.getSavedWeight())
    saved.replaceAllUsesWith(isa<TensorProtoType>(saved.getType())
                                 ? lb.withType(*wq, saved.getType())
                                 : op.getWeight());
  if (Value updated = op.getUpdatedAmaxHistory())
    updated.replaceAllUsesWith(lb.getHistory());
  op.erase();
  return success();
}

LogicalResult decomposeBackward(LinearBackwardOp op, TargetAttr target) {
  LinearConfigAttr config = op.getConfig();
  LinearQuantizationAttr q = op.getQuantizationAttr();
  LinearBuilder lb(op, target, config, q, op.getTpGroup(), op.getScale(),
                   op.getAmaxHistory(), op.getRngState());
  bool tp = config.getTpSize() > 1;
  bool sp = config.isSequenceParallel();
  ParallelMode mode = config.getParallelMode();
  bool needDgrad = static_cast<bool>(op.getDgrad());
  bool needWgrad = static_cast<bool>(op.getWgrad());
  QuantizerAttrInterface qdy = q.getGradOutput();

  // grad_output: rowwise for dgrad (B of NN), columnwise for wgrad (B of NT).
  Usage dyUsage = Usage::none;
  if (needDgrad)
    dyUsage = dyUsage | Usage::rowwise;
  if (needWgrad)
    dyUsage = dyUsage | Usage::columnwise;
  Value dy = op.getGradOutput();
  bool gatherDy = tp && sp && mode == ParallelMode::row;
  lb.gathersSlot0 = gatherDy;
  Value dyq = dy;
  if (qdy && dyUsage != Usage::none) {
    ScaleLayout layout =
        activationScaleLayout(qdy, config, TensorRole::grad_output);
    // Per-tensor FP8 cannot gather its transposed copy: gather rowwise data
    // and transpose after (te-semantics.md §7).
    Usage quantizeUsage =
        gatherDy && isPerTensorFP8(qdy) ? Usage::rowwise : dyUsage;
    FailureOr<Value> quantized = lb.quantize(
        dy, quantizedType(dy.getType(), qdy, quantizeUsage, layout),
        /*slot=*/0);
    if (failed(quantized))
      return failure();
    dyq = *quantized;
  }
  if (gatherDy) {
    dyq = lb.allGather(dyq);
    if (auto proto = dyn_cast<TensorProtoType>(dyq.getType()))
      dyq = lb.withType(dyq, proto.withUsage(proto.getUsage() | dyUsage));
  }

  // backward_override: every backward GEMM in high precision (grad_output
  // is not quantized: the resolved attribute has no quantizer for it).
  bool overridden = q.getBackwardOverride() != BackwardOverride::none;

  if (needDgrad) {
    FailureOr<Value> wq =
        overridden
            ? FailureOr<Value>(lb.highPrecision(op.getWeight()))
            : lb.asQuantized(op.getWeight(), q.getWeight(), Usage::columnwise,
                             q.getWeight() ? gemmScaleLayout(q.getWeight())
                                           : ScaleLayout::compact,
                             /*slot=*/-1, "weight");
    if (failed(wq))
      return failure();
    int64_t k = shapeOf(op.getWeight().getType())[1];
    Value dgrad =
        lb.gemm(GemmLayout::NN, *wq, dyq,
                gemmResultType(dyq, k, op.getDgrad().getType().getElementType(),
                               false),
                Type(), Value(), Value(), q.getDgradSplitAccumulator(),
                GemmKind::dgrad)
            .getResult();
    if (tp && mode == ParallelMode::column)
      dgrad = sp ? lb.reduceScatter(dgrad) : lb.allReduce(dgrad);
    op.getDgrad().replaceAllUsesWith(dgrad);
  }

  if (needWgrad) {
    Value x = op.getInput();
    bool gatherX = tp && sp && mode == ParallelMode::column;
    QuantizerAttrInterface qx = overridden ? QuantizerAttrInterface()
                                           : q.getInput();
    FailureOr<Value> xq =
        overridden
            ? FailureOr<Value>(lb.highPrecision(x))
            : lb.asQuantized(
                  x, qx,
                  gatherX && qx && isPerTensorFP8(qx) ? Usage::rowwise
                                                      : Usage::columnwise,
                  qx ? activationScaleLayout(qx, config, TensorRole::input)
                     : ScaleLayout::compact,
                  /*slot=*/-1, "input");
    if (failed(xq))
      return failure();
    Value xw = *xq;
    if (gatherX) {
      xw = lb.allGather(xw);
      if (auto proto = dyn_cast<TensorProtoType>(xw.getType()))
        if (!hasUsage(proto, Usage::columnwise))
          xw = lb.withType(xw, proto.withUsage(proto.getUsage() |
                                               Usage::columnwise));
    }
    bool fusedDbias = op.getDbias() && !qdy;
    auto wgradType = cast<RankedTensorType>(op.getWgrad().getType());
    GemmOp wgrad = lb.gemm(
        GemmLayout::NT, xw, dyq, wgradType,
        fusedDbias ? op.getDbias().getType() : Type(), Value(),
        op.getMainGrad(), q.getWgradSplitAccumulator(), GemmKind::wgrad);
    op.getWgrad().replaceAllUsesWith(wgrad.getResult());
    if (Value dbias = op.getDbias()) {
      Value db;
      if (fusedDbias) {
        db = wgrad.getDbias();
      } else {
        // FP8: bgrad from the high-precision grad_output, fused with its
        // quantization by the lowering. Under row-parallel SP this is the
        // local sum, as in TE (the framework reduces sequence-parallel
        // parameter gradients).
        db = BiasGradOp::create(lb.b, lb.loc, dbias.getType(), dy).getResult();
      }
      dbias.replaceAllUsesWith(db);
    }
  }
  if (Value updated = op.getUpdatedAmaxHistory())
    updated.replaceAllUsesWith(lb.getHistory());
  op.erase();
  return success();
}

struct DecomposeLinearPass
    : public mlir::teq::impl::DecomposeLinearBase<DecomposeLinearPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetAttr target = TargetAttr::lookup(module);
    if (!target) {
      module.emitError() << "no #teq.target on the module: GEMM layouts "
                            "depend on the GPU; add attributes {teq.target "
                            "= #teq.target<sm_90>}";
      return signalPassFailure();
    }
    SmallVector<Operation *> linears;
    module.walk([&](Operation *op) {
      if (isa<LinearForwardOp, LinearBackwardOp>(op))
        linears.push_back(op);
    });
    for (Operation *op : linears) {
      if (!op->hasAttr("quantization")) {
        op->emitError() << "teq-decompose-linear needs resolved Linears: run "
                           "teq-resolve-autocast and teq-infer-prototypes "
                           "first";
        return signalPassFailure();
      }
      // Quantized tensors have static shapes (their buffers and scale
      // blocks are laid out at compile time).
      auto isDynamic = [](Type t) {
        auto shaped = dyn_cast<ShapedType>(t);
        return shaped && shaped.hasRank() && !shaped.hasStaticShape();
      };
      if (llvm::any_of(op->getOperandTypes(), isDynamic) ||
          llvm::any_of(op->getResultTypes(), isDynamic)) {
        op->emitOpError("has a dynamic dimension; Linears are decomposed "
                        "for static shapes only");
        return signalPassFailure();
      }
      LogicalResult result =
          isa<LinearForwardOp>(op)
              ? decomposeForward(cast<LinearForwardOp>(op), target)
              : decomposeBackward(cast<LinearBackwardOp>(op), target);
      if (failed(result))
        return signalPassFailure();
    }
  }
};

} // namespace

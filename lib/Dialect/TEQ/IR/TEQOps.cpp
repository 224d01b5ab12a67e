//===- TEQOps.cpp - Operations of the teq dialect -------------------------===//

#include "teq/Dialect/TEQ/IR/TEQOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"

using namespace mlir;
using namespace mlir::teq;

/// `TN` in `teq.gemm TN %a, %b`: the layout as a bare keyword.
static ParseResult parseGemmLayout(OpAsmParser &parser, GemmLayoutAttr &attr) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<GemmLayout> layout = symbolizeGemmLayout(keyword);
  if (!layout)
    return parser.emitError(loc, "unknown GEMM layout '")
           << keyword << "'; expected TN, NN, NT or TT";
  attr = GemmLayoutAttr::get(parser.getContext(), *layout);
  return success();
}

static void printGemmLayout(OpAsmPrinter &printer, Operation *,
                            GemmLayoutAttr attr) {
  printer << stringifyGemmLayout(attr.getValue());
}

#define GET_OP_CLASSES
#include "teq/Dialect/TEQ/IR/TEQOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Shape of a ranked tensor or of a quantized tensor's logical tensor.
static ArrayRef<int64_t> shapeOf(Type type) {
  if (auto proto = dyn_cast<TensorProtoType>(type))
    return proto.getShape();
  return cast<RankedTensorType>(type).getShape();
}

static Type elementTypeOf(Type type) {
  if (auto proto = dyn_cast<TensorProtoType>(type))
    return proto.getElementType();
  return cast<RankedTensorType>(type).getElementType();
}

static std::string shapeStr(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "[]";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleave(shape, os, "x");
  os << "]";
  return s;
}

static bool isHighPrecision(Type t) {
  return isa<BFloat16Type, Float16Type, Float32Type>(t);
}

/// Checks the delayed-scaling state operands of an op: `scale` is
/// tensor<`slots` x f32> (tensor<1xf32> for one quantizer), `amax_history`
/// tensor<L x slots x f32> (tensor<Lxf32> for one quantizer) and the updated
/// history has the history's type.
static LogicalResult verifyDelayedState(Operation *op, Value scale,
                                        Value history, Value updated,
                                        int64_t slots, bool singleSlot) {
  if (static_cast<bool>(scale) != static_cast<bool>(history))
    return op->emitOpError("delayed-scaling state needs both the scale and "
                           "the amax history, got only the ")
           << (scale ? "scale" : "amax history");
  if (!scale && !history) {
    if (updated)
      return op->emitOpError("returns an updated amax history but takes no "
                             "delayed-scaling state");
    return success();
  }
  auto scaleType = cast<RankedTensorType>(scale.getType());
  auto historyType = cast<RankedTensorType>(history.getType());
  if (scaleType.getShape() != ArrayRef<int64_t>{slots})
    return op->emitOpError("delayed-scaling scale must be tensor<")
           << slots << "xf32> (one per quantizer slot), got " << scaleType;
  bool historyOk =
      singleSlot ? historyType.getRank() == 1 && historyType.getDimSize(0) >= 1
                 : historyType.getRank() == 2 &&
                       historyType.getDimSize(0) >= 1 &&
                       historyType.getDimSize(1) == slots;
  if (!historyOk)
    return op->emitOpError("delayed-scaling amax history must be ")
           << (singleSlot ? "tensor<Lxf32>"
                          : "tensor<Lx" + std::to_string(slots) + "xf32>")
           << " with L = amax_history_len >= 1, got " << historyType;
  if (!updated)
    return op->emitOpError("takes delayed-scaling state but does not return "
                           "the updated amax history");
  if (updated.getType() != historyType)
    return op->emitOpError("updated amax history type ")
           << updated.getType() << " must match the amax history type "
           << historyType;
  return success();
}

/// An rng_state operand, when present, is (seed, offset): tensor<2xi64>.
static LogicalResult verifyRngStateType(Operation *op, Value rngState) {
  if (!rngState)
    return success();
  auto type = cast<RankedTensorType>(rngState.getType());
  if (type.getShape() != ArrayRef<int64_t>{2})
    return op->emitOpError("rng_state must be tensor<2xi64> (the Philox seed "
                           "and offset), got ")
           << type;
  return success();
}

//===----------------------------------------------------------------------===//
// AutocastOp
//===----------------------------------------------------------------------===//

void AutocastOp::build(OpBuilder &builder, OperationState &state,
                       TypeRange resultTypes, RecipeAttrInterface recipe,
                       bool enabled) {
  state.addTypes(resultTypes);
  if (recipe)
    state.addAttribute(getRecipeAttrName(state.name), recipe);
  state.addAttribute(getEnabledAttrName(state.name),
                     builder.getBoolAttr(enabled));
  Region *body = state.addRegion();
  body->emplaceBlock();
  if (resultTypes.empty()) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(&body->front());
    YieldOp::create(builder, state.location);
  }
}

LogicalResult AutocastOp::verify() {
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yields ")
           << yield.getValues().size() << " value(s) of types "
           << yield.getValues().getTypes() << " but the region's results are "
           << getResultTypes();
  if (getBody().front().getNumArguments() != 0)
    return emitOpError("region takes no arguments");
  return success();
}

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

std::optional<std::string>
mlir::teq::quantizableShapeError(QuantizerAttrInterface q,
                                 ArrayRef<int64_t> shape, Type element) {
  if (auto nvfp4 = dyn_cast<NVFP4QuantizerAttr>(q))
    if (nvfp4.getWithRht() && !element.isBF16()) {
      std::string message;
      llvm::raw_string_ostream os(message);
      os << "RHT is only supported for bfloat16 input (got " << element
         << "); use a bf16 tensor or disable_rht = true";
      return message;
    }
  if (ShapedType::isDynamicShape(shape))
    return std::string("quantized tensors need a static shape");
  ::mlir::teq::layout::Format format = q.getLayoutFormat();
  int64_t block = format == ::mlir::teq::layout::Format::MXFP8   ? 32
                  : format == ::mlir::teq::layout::Format::NVFP4 ? 16
                                                                  : 0;
  int64_t last = shape.empty() ? 1 : shape.back();
  int64_t leading = 1;
  for (int64_t d : shape.drop_back())
    leading *= d;
  if (block && (shape.size() < 2 || leading % block != 0 || last % block != 0))
    return (q.getQuantizerName() + " needs at least 2 dimensions with both "
            "the product of the leading dimensions (" + Twine(leading) +
            ") and the last dimension (" + Twine(last) + ") divisible by " +
            Twine(block))
        .str();
  return std::nullopt;
}

LogicalResult QuantizeOp::verify() {
  auto proto = getResult().getType();
  auto inputType = getInput().getType();
  QuantizerAttrInterface quantizer = proto.getQuantizer();
  if (inputType.getShape() != proto.getShape())
    return emitOpError("input shape ")
           << shapeStr(inputType.getShape())
           << " does not match the quantized tensor's shape "
           << shapeStr(proto.getShape());
  if (inputType.getElementType() != proto.getElementType())
    return emitOpError("input element type ")
           << inputType.getElementType()
           << " does not match the quantized tensor's logical element type "
           << proto.getElementType();
  if (auto why = quantizableShapeError(quantizer, inputType.getShape(),
                                      inputType.getElementType()))
    return emitOpError() << "cannot quantize " << inputType << ": " << *why;
  if (quantizer.isStateful() && !getScale())
    return emitOpError()
           << quantizer.getQuantizerName()
           << " is stateful (delayed scaling): pass its stored scale and "
              "amax history, e.g. `teq.quantize %x state(%scale, "
              "%amax_history : tensor<1xf32>, tensor<1024xf32>)`";
  if (!quantizer.isStateful() && getScale())
    return emitOpError() << quantizer.getQuantizerName()
                         << " has no delayed-scaling state; remove state(...)";
  if (failed(verifyDelayedState(*this, getScale(), getAmaxHistory(),
                                getUpdatedAmaxHistory(), /*slots=*/1,
                                /*singleSlot=*/true)))
    return failure();
  if (failed(verifyRngStateType(*this, getRngState())))
    return failure();
  if (quantizer.isStochastic() && !getRngState())
    return emitOpError()
           << quantizer.getQuantizerName()
           << " with stochastic_rounding draws its random bits from an "
              "explicit Philox state: pass the seed and offset, e.g. "
              "`teq.quantize %x rng_state(%rng : tensor<2xi64>)`";
  if (!quantizer.isStochastic() && getRngState())
    return emitOpError("takes an rng_state but ")
           << quantizer.getQuantizerName()
           << " does not round stochastically; remove rng_state(...)";
  if (quantizer.hasAmaxReduction() && !getAmaxReductionGroup())
    return emitOpError() << quantizer.getQuantizerName()
                         << " has with_amax_reduction = true: pass the "
                            "process group as amax_reduction_group(%group)";
  // A delayed-scaling quantizer's group is the one its update reduces over.
  if (!quantizer.hasAmaxReduction() && getAmaxReductionGroup() &&
      !isa<Float8QuantizerAttr>(quantizer))
    return emitOpError("takes an amax_reduction_group but ")
           << quantizer.getQuantizerName()
           << " does not reduce its amax; set with_amax_reduction = true";
  return success();
}

//===----------------------------------------------------------------------===//
// DequantizeOp
//===----------------------------------------------------------------------===//

LogicalResult DequantizeOp::verify() {
  auto proto = getInput().getType();
  auto resultType = getResult().getType();
  if (resultType.getShape() != proto.getShape())
    return emitOpError("result shape ")
           << shapeStr(resultType.getShape())
           << " does not match the quantized tensor's shape "
           << shapeStr(proto.getShape());
  if (!isHighPrecision(resultType.getElementType()))
    return emitOpError("dequantizes to bf16, f16 or f32, not ")
           << resultType.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// UpdateUsageOp
//===----------------------------------------------------------------------===//

LogicalResult UpdateUsageOp::verify() {
  TensorProtoType from = getInput().getType(), to = getResult().getType();
  if (from.getShape() != to.getShape() ||
      from.getElementType() != to.getElementType() ||
      from.getQuantizer() != to.getQuantizer() ||
      from.getScaleLayout() != to.getScaleLayout())
    return emitOpError("may only change the usage: ")
           << from << " and " << to << " differ in more than usage";
  Usage added = static_cast<Usage>(static_cast<unsigned>(to.getUsage()) &
                                   ~static_cast<unsigned>(from.getUsage()));
  if (added == Usage::none)
    return success();
  ::mlir::teq::layout::Format format = from.getQuantizer().getLayoutFormat();
  bool derivable = format == ::mlir::teq::layout::Format::PerTensorFP8 ||
                   format == ::mlir::teq::layout::Format::BlockFP8_2D;
  if (!derivable)
    return emitOpError("cannot add the ")
           << stringifyUsage(added) << " usage to a "
           << from.getQuantizer().getQuantizerName() << " tensor ("
           << ::mlir::teq::layout::stringifyFormat(format)
           << "): its rowwise and columnwise scales differ, so quantize the "
              "high-precision tensor with the usage you need";
  return success();
}

LogicalResult SwizzleScalesOp::verify() {
  TensorProtoType from = getInput().getType(), to = getResult().getType();
  if (from.getShape() != to.getShape() ||
      from.getElementType() != to.getElementType() ||
      from.getQuantizer() != to.getQuantizer() ||
      from.getUsage() != to.getUsage())
    return emitOpError("may only change the scale layout: ")
           << from << " and " << to << " differ in more than that";
  ::mlir::teq::layout::Format format = from.getQuantizer().getLayoutFormat();
  if (format != ::mlir::teq::layout::Format::MXFP8 &&
      format != ::mlir::teq::layout::Format::NVFP4)
    return emitOpError("swizzles MXFP8 and NVFP4 block scales only, not ")
           << from.getQuantizer().getQuantizerName() << " scales";
  if (from.getScaleLayout() != ScaleLayout::compact ||
      to.getScaleLayout() != ScaleLayout::gemm_swizzled)
    return emitOpError("takes compact scales to gemm_swizzled ones");
  return success();
}

OpFoldResult UpdateUsageOp::fold(FoldAdaptor) {
  // A view with the usages its input already has is the input.
  if (getInput().getType() == getResult().getType())
    return getInput();
  return {};
}

namespace {
/// Narrows a quantization to the usages its users read: a GEMM reads A
/// rowwise iff transposed and B rowwise iff not transposed; a usage view
/// reads what it keeps. Any other user (a return, a collective) keeps all,
/// and so does a view that derives a usage its input lacks.
struct NarrowQuantizeUsage : public OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    TensorProtoType type = op.getResult().getType();
    unsigned have = static_cast<unsigned>(type.getUsage());
    unsigned needed = 0;
    for (OpOperand &use : op.getResult().getUses()) {
      Operation *user = use.getOwner();
      if (auto gemm = dyn_cast<GemmOp>(user)) {
        bool isA = &use == &gemm.getAMutable();
        bool rowwise = isA ? gemm.isTransA() : !gemm.isTransB();
        needed |= static_cast<unsigned>(rowwise ? Usage::rowwise
                                                : Usage::columnwise);
        continue;
      }
      if (auto view = dyn_cast<UpdateUsageOp>(user)) {
        unsigned kept = static_cast<unsigned>(view.getResult().getType().getUsage());
        if (kept & ~have)
          return failure();
        needed |= kept;
        continue;
      }
      return failure();
    }
    if (needed == 0 || needed == have)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.getResult().setType(type.withUsage(static_cast<Usage>(needed)));
    });
    return success();
  }
};
} // namespace

void QuantizeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *context) {
  results.add<NarrowQuantizeUsage>(context);
}

//===----------------------------------------------------------------------===//
// Linear
//===----------------------------------------------------------------------===//

/// Output shape of a Linear given its local input and weight (§7).
FailureOr<SmallVector<int64_t>> mlir::teq::getLinearOutputShape(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> input,
    ArrayRef<int64_t> weight, LinearConfigAttr config) {
  if (input.empty())
    return emitError() << "input must have at least one dimension ([*, in])";
  if (weight.size() != 2)
    return emitError() << "weight must be [out, in], got "
           << shapeStr(weight);
  if (input.back() != weight[1])
    return emitError() << "input's last dimension "
           << input.back() << " does not match the weight's in_features "
           << weight[1] << " (input " << shapeStr(input) << ", weight "
           << shapeStr(weight) << ")";
  SmallVector<int64_t> out(input.begin(), input.end());
  out.back() = weight[0];
  if (!config.isSequenceParallel())
    return out;
  int64_t tp = config.getTpSize();
  if (input.size() < 2)
    return emitError() << "sequence parallelism splits the leading "
                          "(sequence) dimension; input "
           << shapeStr(input) << " has none";
  if (config.getParallelMode() == ParallelMode::column) {
    out[0] = input[0] * tp; // all-gather of the input along dim 0
  } else {
    if (input[0] % tp != 0)
      return emitError() << "row-parallel sequence parallelism "
                            "reduce-scatters the output's leading "
                            "dimension "
             << input[0] << " over tp_size = " << tp
             << ", which does not divide it";
    out[0] = input[0] / tp;
  }
  return out;
}

static FailureOr<SmallVector<int64_t>>
linearOutputShape(Operation *op, ArrayRef<int64_t> input,
                  ArrayRef<int64_t> weight, LinearConfigAttr config) {
  return getLinearOutputShape([op] { return op->emitOpError(); }, input,
                              weight, config);
}

static LogicalResult verifySavedSlot(Operation *op, StringRef what,
                                     Value saved, Type original) {
  if (!saved)
    return success();
  if (shapeOf(saved.getType()) != shapeOf(original))
    return op->emitOpError("saved ")
           << what << " has shape " << shapeStr(shapeOf(saved.getType()))
           << " but the " << what << " is " << shapeStr(shapeOf(original));
  if (elementTypeOf(saved.getType()) != elementTypeOf(original))
    return op->emitOpError("saved ")
           << what << " has element type " << elementTypeOf(saved.getType())
           << " but the " << what << " has " << elementTypeOf(original);
  return success();
}

static LogicalResult verifyTpGroup(Operation *op, Value group,
                                   LinearConfigAttr config) {
  if (config.getTpSize() > 1 && !group)
    return op->emitOpError("tensor-parallel Linear (tp_size = ")
           << config.getTpSize()
           << ") needs its process group: add tp_group(%group)";
  if (config.getTpSize() == 1 && group)
    return op->emitOpError("takes a tp_group but tp_size = 1");
  return success();
}

/// A Linear resolved to stateful (delayed-scaling) quantizers carries the
/// state of its slots; one resolved to stateless quantizers carries none.
static LogicalResult verifyResolvedState(Operation *op,
                                         LinearQuantizationAttr quantization,
                                         bool forward, Value scale) {
  if (!quantization)
    return success();
  bool needs = forward ? quantization.needsForwardState()
                       : quantization.needsBackwardState();
  if (needs && !scale)
    return op->emitOpError("resolved to delayed scaling (")
           << quantization.getRecipe()
           << ") but has no state: pass state(%scale, %amax_history : "
           << (forward ? "tensor<3xf32>, tensor<Lx3xf32>"
                       : "tensor<2xf32>, tensor<Lx2xf32>")
           << ")";
  if (!needs && scale)
    return op->emitOpError("takes delayed-scaling state but resolved to ")
           << quantization.getRecipe() << ", which has none";
  return success();
}

/// A Linear resolved to a quantizer that rounds stochastically takes the
/// Philox state of that quantization (rng_state); one resolved to none that
/// could does not. `rounded` are the tensors the op certainly quantizes
/// stochastically; `mayUse` says whether it may quantize one at all (a
/// backward rebuilding its input or weight).
static LogicalResult verifyResolvedRngState(Operation *op,
                                            ArrayRef<StringRef> rounded,
                                            bool mayUse, StringRef recipe,
                                            Value rng) {
  if (rounded.size() > 1)
    return op->emitOpError("rounds ")
           << rounded[0] << " and " << rounded[1]
           << " stochastically but has one rng_state (one Philox stream): "
              "both would round with the same random bits";
  if (!rounded.empty() && !rng)
    return op->emitOpError("resolved to stochastic rounding of ")
           << rounded[0] << " (" << recipe
           << ") but has no rng_state: pass rng_state(%rng : tensor<2xi64>)";
  if (!mayUse && rng)
    return op->emitOpError("takes an rng_state but resolved to ")
           << recipe << ", which rounds none of its tensors stochastically";
  return success();
}

static bool isStochastic(QuantizerAttrInterface q) {
  return q && q.isStochastic();
}

/// Linear operands and gradients are high-precision floats (or quantized).
static LogicalResult verifyFloatOperand(Operation *op, StringRef what,
                                        Type type) {
  if (isa<TensorProtoType>(type) || isHighPrecision(elementTypeOf(type)))
    return success();
  return op->emitOpError() << what << " must be bf16, f16 or f32, got "
                           << elementTypeOf(type);
}

LogicalResult LinearForwardOp::verify() {
  LinearConfigAttr config = getConfig();
  if (failed(verifyFloatOperand(*this, "input", getInput().getType())) ||
      failed(verifyFloatOperand(*this, "weight", getWeight().getType())) ||
      (getBias() &&
       failed(verifyFloatOperand(*this, "bias", getBias().getType()))))
    return failure();
  ArrayRef<int64_t> input = shapeOf(getInput().getType());
  ArrayRef<int64_t> weight = shapeOf(getWeight().getType());
  FailureOr<SmallVector<int64_t>> expected =
      linearOutputShape(*this, input, weight, config);
  if (failed(expected))
    return failure();
  if (getOutput().getType().getShape() != ArrayRef<int64_t>(*expected))
    return emitOpError("output shape ")
           << shapeStr(getOutput().getType().getShape()) << " should be "
           << shapeStr(*expected) << " for input " << shapeStr(input)
           << " and weight " << shapeStr(weight) << " ("
           << stringifyParallelMode(config.getParallelMode())
           << (config.isSequenceParallel() ? " parallel, sequence parallel"
                                           : " parallel")
           << ", tp_size = " << config.getTpSize() << ")";
  if (!isHighPrecision(getOutput().getType().getElementType()))
    return emitOpError("output must be bf16, f16 or f32, got ")
           << getOutput().getType().getElementType();
  if (config.getBias() != static_cast<bool>(getBias()))
    return emitOpError(config.getBias()
                           ? "config says bias = true but no bias is passed"
                           : "takes a bias but config says bias = false");
  if (Value bias = getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getShape() != ArrayRef<int64_t>{weight[0]})
      return emitOpError("bias must be [")
             << weight[0] << "] (the weight's out_features), got "
             << shapeStr(biasType.getShape());
  }
  if (failed(verifySavedSlot(*this, "input", getSavedInput(),
                             getInput().getType())) ||
      failed(verifySavedSlot(*this, "weight", getSavedWeight(),
                             getWeight().getType())))
    return failure();
  if (failed(verifyDelayedState(*this, getScale(), getAmaxHistory(),
                                getUpdatedAmaxHistory(), /*slots=*/3,
                                /*singleSlot=*/false)))
    return failure();
  if (failed(verifyResolvedState(*this, getQuantizationAttr(),
                                 /*forward=*/true, getScale())) ||
      failed(verifyRngStateType(*this, getRngState())))
    return failure();
  if (LinearQuantizationAttr q = getQuantizationAttr()) {
    SmallVector<StringRef> rounded;
    if (isStochastic(q.getInput()) && isa<RankedTensorType>(getInput().getType()))
      rounded.push_back("input");
    if (isStochastic(q.getWeight()) &&
        isa<RankedTensorType>(getWeight().getType()))
      rounded.push_back("weight");
    if (failed(verifyResolvedRngState(*this, rounded, !rounded.empty(),
                                      q.getRecipe(), getRngState())))
      return failure();
  }
  return verifyTpGroup(*this, getTpGroup(), config);
}

LogicalResult LinearBackwardOp::verify() {
  LinearConfigAttr config = getConfig();
  for (auto [what, value] :
       {std::pair<StringRef, Value>{"grad_output", getGradOutput()},
        {"input", getInput()},
        {"weight", getWeight()},
        {"dgrad", getDgrad()},
        {"wgrad", getWgrad()},
        {"dbias", getDbias()}})
    if (value && failed(verifyFloatOperand(*this, what, value.getType())))
      return failure();
  ArrayRef<int64_t> input = shapeOf(getInput().getType());
  ArrayRef<int64_t> weight = shapeOf(getWeight().getType());
  FailureOr<SmallVector<int64_t>> outShape =
      linearOutputShape(*this, input, weight, config);
  if (failed(outShape))
    return failure();
  auto dyType = getGradOutput().getType();
  if (dyType.getShape() != ArrayRef<int64_t>(*outShape))
    return emitOpError("grad_output shape ")
           << shapeStr(dyType.getShape())
           << " should be the forward output's shape " << shapeStr(*outShape);
  if (config.getRequiresDgrad() != static_cast<bool>(getDgrad()))
    return emitOpError(config.getRequiresDgrad()
                           ? "requires_dgrad = true but there is no dgrad "
                             "result"
                           : "has a dgrad result but requires_dgrad = false");
  if (config.getRequiresWgrad() != static_cast<bool>(getWgrad()))
    return emitOpError(config.getRequiresWgrad()
                           ? "requires_wgrad = true but there is no wgrad "
                             "result"
                           : "has a wgrad result but requires_wgrad = false");
  bool wantsDbias = config.getBias() && config.getRequiresWgrad();
  if (wantsDbias != static_cast<bool>(getDbias()))
    return emitOpError(wantsDbias ? "the Linear has a bias but there is no "
                                    "dbias result"
                                  : "has a dbias result but the Linear has no "
                                    "bias or requires_wgrad = false");
  if (Value dgrad = getDgrad()) {
    auto t = cast<RankedTensorType>(dgrad.getType());
    if (t.getShape() != input)
      return emitOpError("dgrad shape ")
             << shapeStr(t.getShape()) << " should be the input's shape "
             << shapeStr(input);
  }
  if (config.getFuseWgradAccumulation() != static_cast<bool>(getMainGrad()))
    return emitOpError(config.getFuseWgradAccumulation()
                           ? "fuse_wgrad_accumulation = true needs the fp32 "
                             "main_grad: add main_grad(%main_grad : "
                             "tensor<...xf32>)"
                           : "takes a main_grad but fuse_wgrad_accumulation "
                             "= false");
  if (Value wgrad = getWgrad()) {
    auto t = cast<RankedTensorType>(wgrad.getType());
    if (t.getShape() != weight)
      return emitOpError("wgrad shape ")
             << shapeStr(t.getShape()) << " should be the weight's shape "
             << shapeStr(weight);
    if (Value mainGrad = getMainGrad()) {
      if (mainGrad.getType() != t)
        return emitOpError("main_grad type ")
               << mainGrad.getType() << " should be " << t
               << " (wgrad accumulates into it)";
    }
  }
  if (Value dbias = getDbias()) {
    auto t = cast<RankedTensorType>(dbias.getType());
    if (t.getShape() != ArrayRef<int64_t>{weight[0]})
      return emitOpError("dbias must be [")
             << weight[0] << "], got " << shapeStr(t.getShape());
  }
  if (failed(verifyDelayedState(*this, getScale(), getAmaxHistory(),
                                getUpdatedAmaxHistory(), /*slots=*/2,
                                /*singleSlot=*/false)))
    return failure();
  if (failed(verifyResolvedState(*this, getQuantizationAttr(),
                                 /*forward=*/false, getScale())) ||
      failed(verifyRngStateType(*this, getRngState())))
    return failure();
  if (LinearQuantizationAttr q = getQuantizationAttr()) {
    SmallVector<StringRef> rounded;
    if (isStochastic(q.getGradOutput()) && (getDgrad() || getWgrad()))
      rounded.push_back("grad_output");
    // Backward may also rebuild the input or weight it is given in high
    // precision (teq-decompose-linear reports a second stochastic one).
    bool mayUse = !rounded.empty() || isStochastic(q.getInput()) ||
                  isStochastic(q.getWeight());
    if (failed(verifyResolvedRngState(*this, rounded, mayUse, q.getRecipe(),
                                      getRngState())))
      return failure();
  }
  return verifyTpGroup(*this, getTpGroup(), config);
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

/// Whether two quantized GEMM operands have compatible scaling (§6.2).
static std::optional<std::string>
checkScalingCompatible(QuantizerAttrInterface a, QuantizerAttrInterface b) {
  using ::mlir::teq::layout::Format;
  Format fa = a.getLayoutFormat(), fb = b.getLayoutFormat();
  auto isBlock = [](Format f) {
    return f == Format::BlockFP8_1D || f == Format::BlockFP8_2D;
  };
  if (isBlock(fa) && isBlock(fb)) {
    if (fa == Format::BlockFP8_2D && fb == Format::BlockFP8_2D)
      return std::string("2D by 2D block gemm not supported");
    return std::nullopt;
  }
  if (fa != fb)
    return "Inputs A and B to GEMM need to have compatible scaling modes, got " +
           std::string(::mlir::teq::layout::stringifyFormat(fa)) + " and " +
           ::mlir::teq::layout::stringifyFormat(fb);
  return std::nullopt;
}

LogicalResult GemmOp::verify() {
  Type aType = getA().getType(), bType = getB().getType();
  auto aProto = dyn_cast<TensorProtoType>(aType);
  auto bProto = dyn_cast<TensorProtoType>(bType);
  if (static_cast<bool>(aProto) != static_cast<bool>(bProto))
    return emitOpError("takes two quantized operands or two high-precision "
                       "ones, got ")
           << aType << " and " << bType;
  bool transa = isTransA(), transb = isTransB();
  ArrayRef<int64_t> aShape = shapeOf(aType), b = shapeOf(bType);
  if (aShape.empty() || b.empty())
    return emitOpError("operands must have at least one dimension");
  // cuBLASLt GEMMs are described with m, n and k at compile time.
  if (ShapedType::isDynamicShape(aShape) || ShapedType::isDynamicShape(b) ||
      ShapedType::isDynamicShape(shapeOf(getResult().getType())))
    return emitOpError("needs static shapes (GEMMs are planned at compile "
                       "time), got ")
           << aType << " and " << bType;
  // Both operands are flattened to 2-D as TE does ([prod(leading), last]).
  ::mlir::teq::layout::Flat2D aFlat = ::mlir::teq::layout::flatten2D(
      std::vector<int64_t>(aShape.begin(), aShape.end()));
  SmallVector<int64_t, 2> a{aFlat.m, aFlat.k};
  ::mlir::teq::layout::Flat2D bFlat = ::mlir::teq::layout::flatten2D(
      std::vector<int64_t>(b.begin(), b.end()));
  int64_t m = transa ? a[0] : a[1];
  int64_t k = transa ? a[1] : a[0];
  int64_t n = transb ? bFlat.k : bFlat.m;
  int64_t kb = transb ? bFlat.m : bFlat.k;
  if (k != kb)
    return emitOpError("inner dimensions differ for layout ")
           << stringifyGemmLayout(getLayout()) << ": A " << shapeStr(aShape)
           << " gives k = " << k << ", B " << shapeStr(b) << " gives k = "
           << kb;
  SmallVector<int64_t> expected;
  if (transb)
    expected.push_back(bFlat.k);
  else
    expected.append(b.begin(), b.end() - 1);
  expected.push_back(m);
  auto resultType = getResult().getType();
  if (resultType.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("result shape ")
           << shapeStr(resultType.getShape()) << " should be "
           << shapeStr(expected) << " for A " << shapeStr(aShape) << ", B "
           << shapeStr(b) << " and layout "
           << stringifyGemmLayout(getLayout());
  if (!isHighPrecision(resultType.getElementType()))
    return emitOpError("result must be bf16, f16 or f32, got ")
           << resultType.getElementType();

  if (aProto) {
    // A is read rowwise if transposed, columnwise otherwise; B the reverse.
    bool aNeedsRow = transa, bNeedsRow = !transb;
    if (!(aNeedsRow ? aProto.hasRowwise() : aProto.hasColumnwise()))
      return emitOpError("layout ")
             << stringifyGemmLayout(getLayout()) << " reads A "
             << (aNeedsRow ? "rowwise" : "columnwise")
             << ", but A only has usage " << stringifyUsage(aProto.getUsage());
    if (!(bNeedsRow ? bProto.hasRowwise() : bProto.hasColumnwise()))
      return emitOpError("layout ")
             << stringifyGemmLayout(getLayout()) << " reads B "
             << (bNeedsRow ? "rowwise" : "columnwise")
             << ", but B only has usage " << stringifyUsage(bProto.getUsage());
    QuantizerAttrInterface qa = aProto.getQuantizer(),
                           qb = bProto.getQuantizer();
    if (isa<Float8E5M2Type>(qa.getDataType()) &&
        isa<Float8E5M2Type>(qb.getDataType()))
      return emitOpError("FP8 GEMMs with both A and B in E5M2 are not "
                         "supported");
    if (auto why = checkScalingCompatible(qa, qb))
      return emitOpError() << *why;
    bool block = isa<Float8BlockQuantizerAttr>(qa);
    if (block && !getUseSplitAccumulator())
      return emitOpError("FP8 block-scaled GEMMs require "
                         "use_split_accumulator = true");
    if (block && getDbias())
      return emitOpError("FP8 block-scaled GEMMs support only the DEFAULT, "
                         "BIAS and DGELU epilogues, not BGRADB (dbias)");
    if (isa<NVFP4QuantizerAttr>(qa) && resultType.getElementType().isF16())
      return emitOpError("NVFP4 GEMMs cannot write f16 output; use bf16 or "
                         "f32");
  } else if (elementTypeOf(aType) != elementTypeOf(bType)) {
    return emitOpError("high-precision operands must have one element type, "
                       "got ")
           << elementTypeOf(aType) << " and " << elementTypeOf(bType);
  } else if (!isHighPrecision(elementTypeOf(aType))) {
    return emitOpError("high-precision operands must be bf16, f16 or f32, "
                       "got ")
           << elementTypeOf(aType);
  }

  if (Value bias = getBias()) {
    auto t = cast<RankedTensorType>(bias.getType());
    if (t.getShape() != ArrayRef<int64_t>{m})
      return emitOpError("bias must be [") << m << "], got "
                                           << shapeStr(t.getShape());
    if (!isHighPrecision(t.getElementType()))
      return emitOpError("bias must be bf16, f16 or f32, got ")
             << t.getElementType();
  }
  if (Value c = getAccumulate())
    if (c.getType() != resultType)
      return emitOpError("accumulator type ")
             << c.getType() << " must equal the result type " << resultType;
  if (Value dbias = getDbias()) {
    auto t = cast<RankedTensorType>(dbias.getType());
    if (t.getShape() != ArrayRef<int64_t>{n})
      return emitOpError("dbias (BGRADB, summed over B) must be [")
             << n << "], got " << shapeStr(t.getShape());
    if (getBias())
      return emitOpError("cannot both add a bias and compute its gradient");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Pieces of a decomposed Linear
//===----------------------------------------------------------------------===//

LogicalResult BiasGradOp::verify() {
  auto in = getInput().getType();
  auto out = getResult().getType();
  if (in.getRank() < 1)
    return emitOpError("input must have at least one dimension");
  if (out.getShape() != ArrayRef<int64_t>{in.getShape().back()})
    return emitOpError("result must be [")
           << in.getShape().back() << "] (the input's last dimension), got "
           << shapeStr(out.getShape());
  if (!isHighPrecision(in.getElementType()) ||
      out.getElementType() != in.getElementType())
    return emitOpError("input and result must share a bf16, f16 or f32 "
                       "element type");
  return success();
}

LogicalResult BiasAddOp::verify() {
  auto in = getInput().getType();
  auto bias = getBias().getType();
  if (in.getRank() < 1 ||
      bias.getShape() != ArrayRef<int64_t>{in.getShape().back()})
    return emitOpError("bias must be [last dimension of the input], got ")
           << shapeStr(bias.getShape()) << " for input "
           << shapeStr(in.getShape());
  if (!isHighPrecision(in.getElementType()) ||
      !isHighPrecision(bias.getElementType()))
    return emitOpError("operands must be bf16, f16 or f32");
  return success();
}

/// Checks a collective: same element type (and quantizer, usage, scale
/// layout for quantized tensors) and the leading dimension scaled by
/// `num`/`den`.
static LogicalResult verifyCollective(Operation *op, Type in, Type out,
                                      int64_t num, int64_t den,
                                      bool allowQuantized) {
  auto inProto = dyn_cast<TensorProtoType>(in);
  auto outProto = dyn_cast<TensorProtoType>(out);
  if (static_cast<bool>(inProto) != static_cast<bool>(outProto))
    return op->emitOpError("input and result must both be quantized or both "
                           "high precision");
  if (inProto && !allowQuantized)
    return op->emitOpError("sums high-precision tensors only; quantized "
                           "tensors cannot be reduced");
  if (inProto && (inProto.getQuantizer() != outProto.getQuantizer() ||
                  inProto.getUsage() != outProto.getUsage() ||
                  inProto.getScaleLayout() != outProto.getScaleLayout()))
    return op->emitOpError("must keep the quantizer, usage and scale layout");
  if (elementTypeOf(in) != elementTypeOf(out))
    return op->emitOpError("must keep the element type");
  ArrayRef<int64_t> a = shapeOf(in), b = shapeOf(out);
  if (a.empty() || a.size() != b.size() || a.drop_front() != b.drop_front())
    return op->emitOpError("changes only the leading dimension: ")
           << shapeStr(a) << " vs " << shapeStr(b);
  if (a[0] * num % den != 0 || a[0] * num / den != b[0])
    return op->emitOpError("leading dimension ")
           << a[0] << " should become " << a[0] * num << "/" << den
           << " over the group, got " << b[0];
  return success();
}

LogicalResult AllGatherOp::verify() {
  return verifyCollective(*this, getInput().getType(), getResult().getType(),
                          getTpSize(), 1, /*allowQuantized=*/true);
}
LogicalResult ReduceScatterOp::verify() {
  return verifyCollective(*this, getInput().getType(), getResult().getType(),
                          1, getTpSize(), /*allowQuantized=*/false);
}
LogicalResult AllReduceOp::verify() {
  return verifyCollective(*this, getInput().getType(), getResult().getType(),
                          1, 1, /*allowQuantized=*/false);
}

//===----------------------------------------------------------------------===//
// DelayedScalingUpdateOp
//===----------------------------------------------------------------------===//

LogicalResult DelayedScalingUpdateOp::verify() {
  auto scale = getScale().getType();
  auto history = getAmaxHistory().getType();
  if (scale.getRank() != 1)
    return emitOpError("scale must be tensor<S x f32>, got ") << scale;
  int64_t slots = scale.getDimSize(0);
  bool ok = (history.getRank() == 2 && history.getDimSize(1) == slots &&
             history.getDimSize(0) >= 1) ||
            (history.getRank() == 1 && slots == 1 &&
             history.getDimSize(0) >= 1);
  if (!ok)
    return emitOpError("amax history must be tensor<L x ")
           << slots << " x f32> (or tensor<L x f32> for one slot) with L >= 1, "
           << "got " << history;
  if (!isa<Float8E4M3FNType, Float8E5M2Type>(getFp8Dtype()))
    return emitOpError("fp8_dtype must be f8E4M3FN or f8E5M2, got ")
           << getFp8Dtype();
  // TE allows any margin; the scale is fp8_max * 2^-margin / amax, and
  // beyond +-100 that bound is no longer a normal float32 for E4M3 or E5M2.
  int64_t margin = getMarginAttr().getValue().getSExtValue();
  if (margin < -100 || margin > 100)
    return emitOpError("margin must be in [-100, 100] (fp8_max * 2^-margin "
                       "must stay a normal float32), got ")
           << margin;
  return success();
}

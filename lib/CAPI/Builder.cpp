//===- Builder.cpp - Writing teq programs without IR text -----------------===//

#include "teq-c/Builder.h"
#include "Status.h"
#include "teq/Artifact/Entry.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Dialect/TEQ/IR/TEQRoles.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/SetVector.h"

#include <map>

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::capi;

namespace {

struct FunctionBuilderImpl {
  func::FuncOp function;
  OpBuilder builder;
  /// Open autocast regions, innermost last.
  SmallVector<AutocastOp> openAutocasts;
  /// Every autocast built, in creation order (outer before inner).
  SmallVector<AutocastOp> autocasts;
  bool finished = false;
  /// Result roles (teq.role, teq.role_of) by result index: the results
  /// exist only once teqFunctionBuilderReturn builds them.
  std::map<intptr_t, std::pair<std::string, std::string>> resultRoles;

  explicit FunctionBuilderImpl(func::FuncOp function)
      : function(function), builder(function.getContext()) {}
  Location loc() { return function.getLoc(); }
  /// "@function/what": where a diagnostic about an op built here points.
  Location locFor(StringRef what) {
    if (what.empty())
      return loc();
    return NameLoc::get(StringAttr::get(
        function.getContext(), "@" + function.getSymName() + "/" + what));
  }
};

FunctionBuilderImpl *unwrapBuilder(TeqFunctionBuilder builder) {
  return static_cast<FunctionBuilderImpl *>(builder.ptr);
}

/// The builder, or an error status naming `function`.
FunctionBuilderImpl *usable(TeqFunctionBuilder builder, const char *function,
                            TeqStatus &error) {
  FunctionBuilderImpl *b = unwrapBuilder(builder);
  if (!b)
    error = makeError(std::string(function) + ": null builder");
  else if (b->finished)
    error = makeError(std::string(function) + ": the function @" +
                      b->function.getSymName().str() + " is finished");
  return error.ptr ? nullptr : b;
}

/// The value of an optional operand handle (null stays null).
Value optional(MlirValue value) {
  return mlirValueIsNull(value) ? Value() : unwrap(value);
}

ArrayRef<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getShape();
  if (auto proto = dyn_cast<TensorProtoType>(type))
    return proto.getShape();
  return {};
}

Type elementTypeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getElementType();
  if (auto proto = dyn_cast<TensorProtoType>(type))
    return proto.getElementType();
  return {};
}

/// `value` as a tensor or !teq.proto operand, or an error naming `what`.
TeqStatus checkTensorOperand(StringRef function, StringRef what,
                             MlirValue value, bool optional) {
  if (mlirValueIsNull(value)) {
    if (optional)
      return makeSuccess();
    return makeError((function + ": null " + what).str());
  }
  Type type = unwrap(value).getType();
  if (!isa<RankedTensorType, TensorProtoType>(type))
    return makeError((function + ": " + what +
                      " must be a ranked tensor or !teq.proto, got ")
                         .str() +
                     [&] {
                       std::string text;
                       llvm::raw_string_ostream os(text);
                       os << type;
                       return text;
                     }());
  return makeSuccess();
}

/// What both Linear builders check first: the tensor operands (`what`,
/// value, optional), the #teq.linear config and the delayed-scaling pair.
/// Returns the config, or null with `error` set.
LinearConfigAttr
checkLinearCall(StringRef fn,
                std::initializer_list<std::tuple<StringRef, MlirValue, bool>>
                    operands,
                MlirAttribute config, MlirValue scale, MlirValue amaxHistory,
                TeqStatus &error) {
  for (auto [what, value, optional] : operands) {
    error = checkTensorOperand(fn, what, value, optional);
    if (error.ptr)
      return {};
  }
  auto configAttr = dyn_cast_or_null<LinearConfigAttr>(unwrap(config));
  if (!configAttr)
    error = makeError(fn.str() + ": config must be a #teq.linear");
  else if (mlirValueIsNull(scale) != mlirValueIsNull(amaxHistory))
    error = makeError(fn.str() +
                      ": the delayed-scaling state is scale and amax history "
                      "together");
  return error.ptr ? LinearConfigAttr() : configAttr;
}

/// Verifies `op` just built; on failure erases it and returns the error.
TeqStatus verifyBuilt(Operation *op, StringRef what) {
  DiagnosticCapture capture(op->getContext());
  if (succeeded(verify(op)))
    return makeSuccess();
  TeqStatus status = capture.error(("invalid " + what).str());
  op->erase();
  return status;
}

/// Gives `autocast` a result for each value its body defines and code after
/// it uses, yielded by its teq.yield (a new op replaces it, the body moved).
void yieldEscapingValues(OpBuilder &builder, AutocastOp autocast) {
  Block &body = autocast.getBody().front();
  llvm::SetVector<Value> escaping;
  for (Operation &op : body.without_terminator())
    for (Value result : op.getResults())
      for (OpOperand &use : result.getUses())
        if (!autocast->isProperAncestor(use.getOwner()))
          escaping.insert(result);
  if (escaping.empty())
    return;
  builder.setInsertionPoint(autocast);
  SmallVector<Type> types;
  for (Value value : escaping)
    types.push_back(value.getType());
  auto replacement = AutocastOp::create(
      builder, autocast.getLoc(), types,
      autocast.getRecipe() ? cast<RecipeAttrInterface>(*autocast.getRecipe())
                           : RecipeAttrInterface(),
      autocast.getEnabled());
  replacement->setAttrs(autocast->getAttrDictionary());
  replacement.getBody().takeBody(autocast.getBody());
  Operation *yield = replacement.getBody().front().getTerminator();
  yield->setOperands(escaping.getArrayRef());
  for (auto [escaped, result] :
       llvm::zip(escaping, replacement.getResults())) {
    Value value = escaped;
    value.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !replacement->isProperAncestor(use.getOwner());
    });
  }
  autocast.erase();
}

} // namespace

TeqStatus teqFunctionBuilderCreate(MlirModule module, MlirStringRef name,
                                   intptr_t numArgs, const MlirType *argTypes,
                                   TeqFunctionBuilder *result) {
  if (!result)
    return makeError("teqFunctionBuilderCreate: null result pointer");
  result->ptr = nullptr;
  if (mlirModuleIsNull(module))
    return makeError("teqFunctionBuilderCreate: null module");
  StringRef symbol = unwrap(name);
  if (symbol.empty())
    return makeError("teqFunctionBuilderCreate: empty function name");
  if (numArgs < 0 || (numArgs > 0 && !argTypes))
    return makeError("teqFunctionBuilderCreate: no argument types");
  ModuleOp moduleOp = unwrap(module);
  if (SymbolTable::lookupSymbolIn(moduleOp, symbol))
    return makeError("teqFunctionBuilderCreate: the module already has a "
                     "symbol @" +
                     symbol.str());
  SmallVector<Type> inputs;
  for (intptr_t i = 0; i < numArgs; ++i) {
    if (mlirTypeIsNull(argTypes[i]))
      return makeError("teqFunctionBuilderCreate: argument " +
                       std::to_string(i) + " has a null type");
    inputs.push_back(unwrap(argTypes[i]));
  }
  MLIRContext *context = moduleOp.getContext();
  OpBuilder builder = OpBuilder::atBlockEnd(moduleOp.getBody());
  auto function = func::FuncOp::create(
      builder, NameLoc::get(StringAttr::get(context, symbol)), symbol,
      builder.getFunctionType(inputs, {}));
  Block *entry = function.addEntryBlock();
  auto *b = new FunctionBuilderImpl(function);
  b->builder.setInsertionPointToEnd(entry);
  result->ptr = b;
  return makeSuccess();
}

MlirValue teqFunctionBuilderGetArgument(TeqFunctionBuilder builder,
                                        intptr_t index) {
  FunctionBuilderImpl *b = unwrapBuilder(builder);
  if (!b || index < 0 ||
      index >= static_cast<intptr_t>(b->function.getNumArguments()))
    return MlirValue{nullptr};
  return wrap(b->function.getArgument(index));
}

TeqStatus teqFunctionBuilderSetArgumentName(TeqFunctionBuilder builder,
                                            intptr_t index,
                                            MlirStringRef name) {
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b =
      usable(builder, "teqFunctionBuilderSetArgumentName", error);
  if (!b)
    return error;
  if (index < 0 || index >= static_cast<intptr_t>(b->function.getNumArguments()))
    return makeError("teqFunctionBuilderSetArgumentName: argument " +
                     std::to_string(index) + " out of range");
  b->function.setArgAttr(index, TEQDialect::getNameAttrName(),
                         StringAttr::get(b->function.getContext(), unwrap(name)));
  return makeSuccess();
}

/// The error of a role (and the value it is of) that the manifest does not
/// know, or success.
static TeqStatus checkRole(const char *fn, StringRef role, StringRef of) {
  if (!artifact::isArgRole(role.str()))
    return makeError(std::string(fn) + ": unknown role '" + role.str() +
                     "' (expected " + artifact::argRoleList() + ")");
  if (!of.empty() && !artifact::argRoleTakesOf(role.str()))
    return makeError(std::string(fn) + ": role '" + role.str() +
                     "' refers to no other value (of '" + of.str() + "')");
  return makeSuccess();
}

TeqStatus teqFunctionBuilderSetArgumentRole(TeqFunctionBuilder builder,
                                            intptr_t index, MlirStringRef role,
                                            MlirStringRef of) {
  constexpr const char *fn = "teqFunctionBuilderSetArgumentRole";
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b = usable(builder, fn, error);
  if (!b)
    return error;
  if (index < 0 || index >= static_cast<intptr_t>(b->function.getNumArguments()))
    return makeError(std::string(fn) + ": argument " + std::to_string(index) +
                     " out of range");
  StringRef roleText = unwrap(role), ofText = unwrap(of);
  TeqStatus status = checkRole(fn, roleText, ofText);
  if (status.ptr)
    return status;
  MLIRContext *ctx = b->function.getContext();
  b->function.setArgAttr(index, getRoleAttrName(),
                         StringAttr::get(ctx, roleText));
  if (ofText.empty())
    b->function.removeArgAttr(index, getRoleOfAttrName());
  else
    b->function.setArgAttr(index, getRoleOfAttrName(),
                           StringAttr::get(ctx, ofText));
  return makeSuccess();
}

TeqStatus teqFunctionBuilderSetResultRole(TeqFunctionBuilder builder,
                                          intptr_t index, MlirStringRef role,
                                          MlirStringRef of) {
  constexpr const char *fn = "teqFunctionBuilderSetResultRole";
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b = usable(builder, fn, error);
  if (!b)
    return error;
  if (index < 0)
    return makeError(std::string(fn) + ": result " + std::to_string(index) +
                     " out of range");
  StringRef roleText = unwrap(role), ofText = unwrap(of);
  TeqStatus status = checkRole(fn, roleText, ofText);
  if (status.ptr)
    return status;
  b->resultRoles[index] = {roleText.str(), ofText.str()};
  return makeSuccess();
}

TeqStatus teqFunctionBuilderCacheWeights(TeqFunctionBuilder builder) {
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b =
      usable(builder, "teqFunctionBuilderCacheWeights", error);
  if (!b)
    return error;
  b->function->setAttr(TEQDialect::getWeightCacheAttrName(),
                       UnitAttr::get(b->function.getContext()));
  return makeSuccess();
}

TeqStatus teqFunctionBuilderBeginAutocast(TeqFunctionBuilder builder,
                                          MlirAttribute recipe, bool enabled) {
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b =
      usable(builder, "teqFunctionBuilderBeginAutocast", error);
  if (!b)
    return error;
  RecipeAttrInterface recipeAttr;
  if (!mlirAttributeIsNull(recipe)) {
    recipeAttr = dyn_cast<RecipeAttrInterface>(unwrap(recipe));
    if (!recipeAttr)
      return makeError("teqFunctionBuilderBeginAutocast: the recipe is not a "
                       "teq recipe attribute");
  }
  auto autocast =
      AutocastOp::create(b->builder, b->loc(), TypeRange(), recipeAttr, enabled);
  b->openAutocasts.push_back(autocast);
  b->autocasts.push_back(autocast);
  b->builder.setInsertionPoint(autocast.getBody().front().getTerminator());
  return makeSuccess();
}

TeqStatus teqFunctionBuilderEndAutocast(TeqFunctionBuilder builder) {
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b =
      usable(builder, "teqFunctionBuilderEndAutocast", error);
  if (!b)
    return error;
  if (b->openAutocasts.empty())
    return makeError("teqFunctionBuilderEndAutocast: no autocast region is "
                     "open");
  AutocastOp autocast = b->openAutocasts.pop_back_val();
  b->builder.setInsertionPointAfter(autocast);
  return makeSuccess();
}

TeqStatus teqFunctionBuilderLinearForward(
    TeqFunctionBuilder builder, MlirValue input, MlirValue weight,
    MlirValue bias, MlirValue scale, MlirValue amaxHistory, MlirValue tpGroup,
    MlirAttribute config, bool saveInput, bool saveWeight,
    TeqLinearForwardResults *results) {
  constexpr const char *fn = "teqFunctionBuilderLinearForward";
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b = usable(builder, fn, error);
  if (!b)
    return error;
  if (!results)
    return makeError(std::string(fn) + ": null results pointer");
  *results = TeqLinearForwardResults{};
  LinearConfigAttr configAttr = checkLinearCall(
      fn, {{"input", input, false}, {"weight", weight, false}, {"bias", bias, true}},
      config, scale, amaxHistory, error);
  if (!configAttr)
    return error;

  Value x = unwrap(input), w = unwrap(weight);
  DiagnosticCapture capture(b->function.getContext());
  FailureOr<SmallVector<int64_t>> shape = getLinearOutputShape(
      [&] {
        return emitError(b->locFor(configAttr.getName())) << "Linear: ";
      },
      shapeOf(x.getType()),
      shapeOf(w.getType()), configAttr);
  if (failed(shape))
    return capture.error("invalid Linear");
  Type outputType = RankedTensorType::get(*shape, elementTypeOf(x.getType()));
  Value history = optional(amaxHistory);
  auto op = LinearForwardOp::create(
      b->builder, b->locFor(configAttr.getName()), outputType,
      saveInput ? x.getType() : Type(), saveWeight ? w.getType() : Type(),
      history ? history.getType() : Type(), x, w, optional(bias),
      optional(scale), history, /*rng_state=*/Value(), optional(tpGroup),
      configAttr, /*quantization=*/LinearQuantizationAttr());
  if (TeqStatus status = verifyBuilt(op, "teq.linear_forward"); status.ptr)
    return status;
  results->output = wrap(op.getOutput());
  results->savedInput = wrap(op.getSavedInput());
  results->savedWeight = wrap(op.getSavedWeight());
  results->updatedAmaxHistory = wrap(op.getUpdatedAmaxHistory());
  return makeSuccess();
}

TeqStatus teqFunctionBuilderLinearBackward(
    TeqFunctionBuilder builder, MlirValue gradOutput, MlirValue input,
    MlirValue weight, MlirValue mainGrad, MlirValue scale,
    MlirValue amaxHistory, MlirValue tpGroup, MlirAttribute config,
    TeqLinearBackwardResults *results) {
  constexpr const char *fn = "teqFunctionBuilderLinearBackward";
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b = usable(builder, fn, error);
  if (!b)
    return error;
  if (!results)
    return makeError(std::string(fn) + ": null results pointer");
  *results = TeqLinearBackwardResults{};
  LinearConfigAttr configAttr = checkLinearCall(
      fn,
      {{"grad_output", gradOutput, false},
       {"input", input, false},
       {"weight", weight, false},
       {"main_grad", mainGrad, true}},
      config, scale, amaxHistory, error);
  if (!configAttr)
    return error;

  Value dy = unwrap(gradOutput), x = unwrap(input), w = unwrap(weight);
  Type gradElement = elementTypeOf(dy.getType());
  Value mainGradValue = optional(mainGrad);
  Type dgradType, wgradType, dbiasType;
  if (configAttr.getRequiresDgrad())
    dgradType = RankedTensorType::get(shapeOf(x.getType()), gradElement);
  if (configAttr.getRequiresWgrad())
    wgradType = mainGradValue
                    ? mainGradValue.getType()
                    : RankedTensorType::get(shapeOf(w.getType()), gradElement);
  if (configAttr.getBias() && configAttr.getRequiresWgrad() &&
      !shapeOf(w.getType()).empty())
    dbiasType =
        RankedTensorType::get({shapeOf(w.getType())[0]}, gradElement);
  Value history = optional(amaxHistory);
  auto op = LinearBackwardOp::create(
      b->builder, b->locFor(configAttr.getName()), dgradType, wgradType,
      dbiasType, history ? history.getType() : Type(), dy, x, w, mainGradValue,
      optional(scale), history, /*rng_state=*/Value(), optional(tpGroup),
      configAttr, /*quantization=*/LinearQuantizationAttr());
  if (TeqStatus status = verifyBuilt(op, "teq.linear_backward"); status.ptr)
    return status;
  results->dgrad = wrap(op.getDgrad());
  results->wgrad = wrap(op.getWgrad());
  results->dbias = wrap(op.getDbias());
  results->updatedAmaxHistory = wrap(op.getUpdatedAmaxHistory());
  return makeSuccess();
}

TeqStatus teqFunctionBuilderDelayedScalingUpdate(
    TeqFunctionBuilder builder, MlirValue scale, MlirValue amaxHistory,
    MlirValue amaxReductionGroup, MlirType fp8Dtype, int64_t margin,
    MlirStringRef amaxComputeAlgo, MlirValue *updatedScale,
    MlirValue *updatedAmaxHistory) {
  constexpr const char *fn = "teqFunctionBuilderDelayedScalingUpdate";
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b = usable(builder, fn, error);
  if (!b)
    return error;
  if (!updatedScale || !updatedAmaxHistory)
    return makeError(std::string(fn) + ": null result pointer");
  for (auto [what, value] : {std::pair<StringRef, MlirValue>{"scale", scale},
                             {"amax history", amaxHistory}})
    if (TeqStatus status = checkTensorOperand(fn, what, value, false);
        status.ptr)
      return status;
  if (mlirTypeIsNull(fp8Dtype))
    return makeError(std::string(fn) + ": null fp8 dtype");
  std::optional<AmaxComputeAlgo> algo =
      symbolizeAmaxComputeAlgo(unwrap(amaxComputeAlgo));
  if (!algo)
    return makeError(std::string(fn) + ": amax_compute_algo '" +
                     unwrap(amaxComputeAlgo).str() +
                     "' is not max or most_recent");
  Value s = unwrap(scale), h = unwrap(amaxHistory);
  MLIRContext *context = b->function.getContext();
  auto op = DelayedScalingUpdateOp::create(
      b->builder, b->loc(), s.getType(), h.getType(), s, h,
      optional(amaxReductionGroup), TypeAttr::get(unwrap(fp8Dtype)),
      IntegerAttr::get(IntegerType::get(context, 64), margin),
      AmaxComputeAlgoAttr::get(context, *algo));
  if (TeqStatus status = verifyBuilt(op, "teq.delayed_scaling_update");
      status.ptr)
    return status;
  *updatedScale = wrap(op.getUpdatedScale());
  *updatedAmaxHistory = wrap(op.getUpdatedAmaxHistory());
  return makeSuccess();
}

TeqStatus teqFunctionBuilderElementwise(TeqFunctionBuilder builder,
                                        MlirStringRef opName,
                                        intptr_t numOperands,
                                        const MlirValue *operands,
                                        MlirValue *result) {
  constexpr const char *fn = "teqFunctionBuilderElementwise";
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b = usable(builder, fn, error);
  if (!b)
    return error;
  if (!result)
    return makeError(std::string(fn) + ": null result pointer");
  *result = MlirValue{nullptr};
  StringRef name = unwrap(opName);
  MLIRContext *context = b->function.getContext();
  std::optional<RegisteredOperationName> registered =
      RegisteredOperationName::lookup(name, context);
  if (!registered || !(name.starts_with("arith.") || name.starts_with("math.")))
    return makeError(std::string(fn) + ": '" + name.str() +
                     "' is not a registered arith or math op");
  if (numOperands < 1 || !operands)
    return makeError(std::string(fn) + ": '" + name.str() +
                     "' needs operands");
  SmallVector<Value> values;
  for (intptr_t i = 0; i < numOperands; ++i) {
    if (mlirValueIsNull(operands[i]))
      return makeError(std::string(fn) + ": operand " + std::to_string(i) +
                       " of '" + name.str() + "' is null");
    values.push_back(unwrap(operands[i]));
  }
  Type type = values.front().getType();
  if (!isa<RankedTensorType>(type))
    return makeError(std::string(fn) + ": '" + name.str() +
                     "' takes ranked tensors");
  for (Value value : values)
    if (value.getType() != type)
      return makeError(std::string(fn) + ": the operands of '" + name.str() +
                       "' must have one type");
  OperationState state(b->loc(), *registered);
  state.addOperands(values);
  state.addTypes(type);
  Operation *op = b->builder.create(state);
  if (TeqStatus status = verifyBuilt(op, name); status.ptr)
    return status;
  *result = wrap(op->getResult(0));
  return makeSuccess();
}

/// The activation kind named `name`, or an error naming the kinds.
static std::optional<ActivationKind> activationKind(const char *fn,
                                                    StringRef name,
                                                    TeqStatus &error) {
  std::optional<ActivationKind> kind = symbolizeActivationKind(name);
  if (!kind) {
    std::string kinds;
    for (uint32_t i = 0; i <= getMaxEnumValForActivationKind(); ++i)
      kinds += (i ? ", " : "") +
               stringifyActivationKind(static_cast<ActivationKind>(i)).str();
    error = makeError(std::string(fn) + ": unknown activation '" + name.str() +
                      "' (expected one of " + kinds + ")");
  }
  return kind;
}

TeqStatus teqFunctionBuilderActivation(TeqFunctionBuilder builder,
                                       MlirStringRef kindName, MlirValue input,
                                       MlirValue *result) {
  constexpr const char *fn = "teqFunctionBuilderActivation";
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b = usable(builder, fn, error);
  if (!b)
    return error;
  if (!result)
    return makeError(std::string(fn) + ": null result pointer");
  *result = MlirValue{nullptr};
  std::optional<ActivationKind> kind =
      activationKind(fn, unwrap(kindName), error);
  if (!kind)
    return error;
  if (mlirValueIsNull(input))
    return makeError(std::string(fn) + ": null input");
  auto type = dyn_cast<RankedTensorType>(unwrap(input).getType());
  if (!type)
    return makeError(std::string(fn) + ": the input must be a ranked tensor");
  SmallVector<int64_t> shape(type.getShape());
  // A gated kind halves the last dimension (an odd one: the verifier says).
  if (ActivationOp::isGated(*kind) && !shape.empty() &&
      !ShapedType::isDynamic(shape.back()))
    shape.back() /= 2;
  auto op = ActivationOp::create(b->builder, b->loc(), type.clone(shape),
                                 *kind, unwrap(input));
  if (TeqStatus status = verifyBuilt(op, "teq.activation"); status.ptr)
    return status;
  *result = wrap(op.getResult());
  return makeSuccess();
}

TeqStatus teqFunctionBuilderActivationBackward(TeqFunctionBuilder builder,
                                               MlirStringRef kindName,
                                               MlirValue grad, MlirValue input,
                                               MlirValue *result) {
  constexpr const char *fn = "teqFunctionBuilderActivationBackward";
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b = usable(builder, fn, error);
  if (!b)
    return error;
  if (!result)
    return makeError(std::string(fn) + ": null result pointer");
  *result = MlirValue{nullptr};
  std::optional<ActivationKind> kind =
      activationKind(fn, unwrap(kindName), error);
  if (!kind)
    return error;
  if (mlirValueIsNull(grad) || mlirValueIsNull(input))
    return makeError(std::string(fn) + ": null grad or input");
  if (!isa<RankedTensorType>(unwrap(input).getType()) ||
      !isa<RankedTensorType>(unwrap(grad).getType()))
    return makeError(std::string(fn) + ": grad and input must be ranked "
                                       "tensors");
  auto op = ActivationBackwardOp::create(b->builder, b->loc(),
                                         unwrap(input).getType(), *kind,
                                         unwrap(grad), unwrap(input));
  if (TeqStatus status = verifyBuilt(op, "teq.activation_backward");
      status.ptr)
    return status;
  *result = wrap(op.getResult());
  return makeSuccess();
}

/// Checks the norm builders share: every `operands` entry (name, value,
/// optional) a ranked tensor or null where optional, every result pointer
/// non-null (each then set to null).
static TeqStatus
checkNormCall(StringRef fn,
              std::initializer_list<std::tuple<StringRef, MlirValue, bool>>
                  operands,
              std::initializer_list<MlirValue *> results) {
  for (MlirValue *result : results) {
    if (!result)
      return makeError((fn + ": null result pointer").str());
    *result = MlirValue{nullptr};
  }
  for (auto [name, value, optional] : operands) {
    if (mlirValueIsNull(value)) {
      if (optional)
        continue;
      return makeError((fn + ": null " + name).str());
    }
    if (!isa<RankedTensorType>(unwrap(value).getType()))
      return makeError((fn + ": " + name + " must be a ranked tensor").str());
  }
  return makeSuccess();
}

/// The f32 [M] statistics type of `x` (M the product of its leading
/// dimensions, dynamic if one is); a wrong rank is the verifier's to say.
static RankedTensorType normStatsType(Value x) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(x.getType()).getShape();
  int64_t m = 1;
  for (int64_t d : shape.empty() ? shape : shape.drop_back())
    m = ShapedType::isDynamic(d) || ShapedType::isDynamic(m)
            ? ShapedType::kDynamic
            : m * d;
  return RankedTensorType::get({m}, Float32Type::get(x.getContext()));
}

TeqStatus teqFunctionBuilderLayerNorm(TeqFunctionBuilder builder, MlirValue x,
                                      MlirValue gamma, MlirValue beta,
                                      float eps, bool zeroCenteredGamma,
                                      MlirValue *y, MlirValue *mean,
                                      MlirValue *rstd) {
  constexpr const char *fn = "teqFunctionBuilderLayerNorm";
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b = usable(builder, fn, error);
  if (!b)
    return error;
  if (TeqStatus status = checkNormCall(
          fn, {{"x", x, false}, {"gamma", gamma, false}, {"beta", beta, true}},
          {y, mean, rstd});
      status.ptr)
    return status;
  Value input = unwrap(x);
  RankedTensorType stats = normStatsType(input);
  auto op = LayerNormOp::create(b->builder, b->loc(), input.getType(), stats,
                                stats, input, unwrap(gamma), optional(beta),
                                APFloat(eps), zeroCenteredGamma);
  if (TeqStatus status = verifyBuilt(op, "teq.layer_norm"); status.ptr)
    return status;
  *y = wrap(op.getY());
  *mean = wrap(op.getMean());
  *rstd = wrap(op.getRstd());
  return makeSuccess();
}

TeqStatus teqFunctionBuilderLayerNormBackward(
    TeqFunctionBuilder builder, MlirValue dy, MlirValue x, MlirValue mean,
    MlirValue rstd, MlirValue gamma, bool zeroCenteredGamma, MlirValue *dx,
    MlirValue *dgamma, MlirValue *dbeta) {
  constexpr const char *fn = "teqFunctionBuilderLayerNormBackward";
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b = usable(builder, fn, error);
  if (!b)
    return error;
  if (TeqStatus status = checkNormCall(fn,
                                       {{"dy", dy, false},
                                        {"x", x, false},
                                        {"mean", mean, false},
                                        {"rstd", rstd, false},
                                        {"gamma", gamma, false}},
                                       {dx, dgamma, dbeta});
      status.ptr)
    return status;
  Type gammaType = unwrap(gamma).getType();
  auto op = LayerNormBackwardOp::create(
      b->builder, b->loc(), unwrap(x).getType(), gammaType, gammaType,
      unwrap(dy), unwrap(x), unwrap(mean), unwrap(rstd), unwrap(gamma),
      /*add=*/Value(), zeroCenteredGamma);
  if (TeqStatus status = verifyBuilt(op, "teq.layer_norm_backward");
      status.ptr)
    return status;
  *dx = wrap(op.getDx());
  *dgamma = wrap(op.getDgamma());
  *dbeta = wrap(op.getDbeta());
  return makeSuccess();
}

TeqStatus teqFunctionBuilderRMSNorm(TeqFunctionBuilder builder, MlirValue x,
                                    MlirValue gamma, float eps,
                                    bool zeroCenteredGamma, MlirValue *y,
                                    MlirValue *rstd) {
  constexpr const char *fn = "teqFunctionBuilderRMSNorm";
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b = usable(builder, fn, error);
  if (!b)
    return error;
  if (TeqStatus status = checkNormCall(
          fn, {{"x", x, false}, {"gamma", gamma, false}}, {y, rstd});
      status.ptr)
    return status;
  Value input = unwrap(x);
  auto op = RMSNormOp::create(b->builder, b->loc(), input.getType(),
                              normStatsType(input), input, unwrap(gamma),
                              APFloat(eps), zeroCenteredGamma);
  if (TeqStatus status = verifyBuilt(op, "teq.rms_norm"); status.ptr)
    return status;
  *y = wrap(op.getY());
  *rstd = wrap(op.getRstd());
  return makeSuccess();
}

TeqStatus teqFunctionBuilderRMSNormBackward(TeqFunctionBuilder builder,
                                            MlirValue dy, MlirValue x,
                                            MlirValue rstd, MlirValue gamma,
                                            bool zeroCenteredGamma,
                                            MlirValue *dx, MlirValue *dgamma) {
  constexpr const char *fn = "teqFunctionBuilderRMSNormBackward";
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b = usable(builder, fn, error);
  if (!b)
    return error;
  if (TeqStatus status = checkNormCall(fn,
                                       {{"dy", dy, false},
                                        {"x", x, false},
                                        {"rstd", rstd, false},
                                        {"gamma", gamma, false}},
                                       {dx, dgamma});
      status.ptr)
    return status;
  auto op = RMSNormBackwardOp::create(
      b->builder, b->loc(), unwrap(x).getType(), unwrap(gamma).getType(),
      unwrap(dy), unwrap(x), unwrap(rstd), unwrap(gamma), /*add=*/Value(),
      zeroCenteredGamma);
  if (TeqStatus status = verifyBuilt(op, "teq.rms_norm_backward"); status.ptr)
    return status;
  *dx = wrap(op.getDx());
  *dgamma = wrap(op.getDgamma());
  return makeSuccess();
}

TeqStatus teqFunctionBuilderConstant(TeqFunctionBuilder builder, MlirType type,
                                     double value, MlirValue *result) {
  constexpr const char *fn = "teqFunctionBuilderConstant";
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b = usable(builder, fn, error);
  if (!b)
    return error;
  if (!result)
    return makeError(std::string(fn) + ": null result pointer");
  auto tensorType = dyn_cast_or_null<RankedTensorType>(unwrap(type));
  if (!tensorType || !isa<FloatType>(tensorType.getElementType()))
    return makeError(std::string(fn) + ": the type must be a float tensor");
  auto attr = DenseElementsAttr::get(
      tensorType, FloatAttr::get(tensorType.getElementType(), value));
  auto op = arith::ConstantOp::create(b->builder, b->loc(), attr);
  *result = wrap(op.getResult());
  return makeSuccess();
}

TeqStatus teqFunctionBuilderReturn(TeqFunctionBuilder builder,
                                   intptr_t numValues, const MlirValue *values,
                                   const MlirStringRef *names) {
  constexpr const char *fn = "teqFunctionBuilderReturn";
  TeqStatus error = makeSuccess();
  FunctionBuilderImpl *b = usable(builder, fn, error);
  if (!b)
    return error;
  if (!b->openAutocasts.empty())
    return makeError(std::string(fn) + ": " +
                     std::to_string(b->openAutocasts.size()) +
                     " autocast region(s) still open");
  SmallVector<Value> results;
  for (intptr_t i = 0; i < numValues; ++i) {
    if (!values || mlirValueIsNull(values[i]))
      return makeError(std::string(fn) + ": value " + std::to_string(i) +
                       " is null");
    results.push_back(unwrap(values[i]));
  }
  if (!b->resultRoles.empty() && b->resultRoles.rbegin()->first >= numValues)
    return makeError(std::string(fn) + ": a role was set for result " +
                     std::to_string(b->resultRoles.rbegin()->first) +
                     ", but " + std::to_string(numValues) +
                     " value(s) are returned");
  func::ReturnOp::create(b->builder, b->loc(), results);
  SmallVector<Type> resultTypes;
  for (Value value : results)
    resultTypes.push_back(value.getType());
  b->function.setFunctionType(b->builder.getFunctionType(
      b->function.getArgumentTypes(), resultTypes));
  if (names)
    for (intptr_t i = 0; i < numValues; ++i)
      b->function.setResultAttr(
          i, TEQDialect::getNameAttrName(),
          StringAttr::get(b->function.getContext(), unwrap(names[i])));
  for (const auto &[i, role] : b->resultRoles) {
    MLIRContext *ctx = b->function.getContext();
    b->function.setResultAttr(i, getRoleAttrName(),
                              StringAttr::get(ctx, role.first));
    if (!role.second.empty())
      b->function.setResultAttr(i, getRoleOfAttrName(),
                                StringAttr::get(ctx, role.second));
  }
  // Inner regions first: their new results are what the outer ones yield.
  for (AutocastOp autocast : llvm::reverse(b->autocasts))
    yieldEscapingValues(b->builder, autocast);
  b->autocasts.clear();
  // The function has its terminator now: the builder is finished either
  // way (a failed function stays in the module for the caller to inspect
  // or erase; destroying the builder does not erase it).
  b->finished = true;
  DiagnosticCapture capture(b->function.getContext());
  if (failed(verify(b->function)))
    return capture.error("the function @" +
                         b->function.getSymName().str() + " is invalid");
  return makeSuccess();
}

void teqFunctionBuilderDestroy(TeqFunctionBuilder builder) {
  FunctionBuilderImpl *b = unwrapBuilder(builder);
  if (!b)
    return;
  if (!b->finished)
    b->function.erase();
  delete b;
}

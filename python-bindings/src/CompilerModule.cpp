//===- CompilerModule.cpp - teq._teq_compiler, on the C API ---------------===//
//
// The compiler half of the `teq` Python package: a thin layer over the C API
// (include/teq-c), as MLIR's own Python bindings sit on mlir-c. Handles are
// owned by Python objects; attributes and types cross as their text (their
// serialized form); every TeqStatus failure becomes teq.errors.CompilerError
// carrying the compiler's located diagnostics. The pure-Python modules
// (teq/compiler.py, teq/program.py, teq/recipe.py) give it TE's names.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"
#include "teq-c/Attributes.h"
#include "teq-c/Builder.h"
#include "teq-c/Compile.h"
#include "teq-c/Dialects.h"
#include "teq-c/Passes.h"
#include "teq-c/Types.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

MlirStringRef toRef(const std::string &text) {
  return mlirStringRefCreate(text.data(), text.size());
}

std::string str(MlirStringRef text) { return std::string(text.data, text.length); }

void appendString(MlirStringRef text, void *userData) {
  static_cast<std::string *>(userData)->append(text.data, text.length);
}

[[noreturn]] void raise(const std::string &message, const char *kind = "CompilerError") {
  py::object error = py::module_::import("teq.errors").attr(kind);
  PyErr_SetString(error.ptr(), message.c_str());
  throw py::error_already_set();
}

/// Raises the status's message as CompilerError (or `kind`) if it failed.
void check(TeqStatus status, const char *kind = "CompilerError") {
  if (teqStatusIsSuccess(status))
    return;
  std::string message = str(teqStatusGetMessage(status));
  teqStatusDestroy(status);
  raise(message, kind);
}

/// One MLIR context with everything TEQ registers, for the process.
MlirContext context() {
  static MlirContext ctx = [] {
    MlirDialectRegistry registry = mlirDialectRegistryCreate();
    teqRegisterAllDialects(registry);
    MlirContext created = mlirContextCreateWithRegistry(registry, false);
    mlirDialectRegistryDestroy(registry);
    mlirContextLoadAllAvailableDialects(created);
    teqRegisterAllPasses();
    return created;
  }();
  return ctx;
}

std::string printAttribute(MlirAttribute attr) {
  std::string text;
  mlirAttributePrint(attr, appendString, &text);
  return text;
}

std::string printType(MlirType type) {
  std::string text;
  mlirTypePrint(type, appendString, &text);
  return text;
}

MlirAttribute parseAttribute(const std::string &text) {
  MlirAttribute attr;
  check(teqParseAttribute(context(), toRef(text), &attr), "CompilerError");
  return attr;
}

MlirType parseType(const std::string &text) {
  MlirType type;
  check(teqParseType(context(), toRef(text), &type));
  return type;
}

MlirAttribute target(const std::string &chip, const std::string &cuda = "") {
  MlirAttribute attr;
  check(teqTargetAttrGet(context(), toRef(chip), toRef(cuda), &attr));
  return attr;
}

/// Builtin attributes as Python values: integers, floats, bools, strings,
/// arrays and dictionaries; anything else as its text.
py::object toPython(MlirAttribute attr) {
  if (mlirAttributeIsABool(attr))
    return py::bool_(mlirBoolAttrGetValue(attr));
  if (mlirAttributeIsAInteger(attr))
    return py::int_(mlirIntegerAttrGetValueInt(attr));
  if (mlirAttributeIsAFloat(attr))
    return py::float_(mlirFloatAttrGetValueDouble(attr));
  if (mlirAttributeIsAString(attr))
    return py::str(str(mlirStringAttrGetValue(attr)));
  if (mlirAttributeIsAArray(attr)) {
    py::list list;
    for (intptr_t i = 0, e = mlirArrayAttrGetNumElements(attr); i < e; ++i)
      list.append(toPython(mlirArrayAttrGetElement(attr, i)));
    return list;
  }
  if (mlirAttributeIsADictionary(attr)) {
    py::dict dict;
    for (intptr_t i = 0, e = mlirDictionaryAttrGetNumElements(attr); i < e; ++i) {
      MlirNamedAttribute named = mlirDictionaryAttrGetElement(attr, i);
      dict[py::str(str(mlirIdentifierStr(named.name)))] = toPython(named.attribute);
    }
    return dict;
  }
  return py::str(printAttribute(attr));
}

/// A module owned by Python.
class Module {
public:
  explicit Module(MlirModule module) : module_(module) {}
  ~Module() {
    if (!mlirModuleIsNull(module_))
      mlirModuleDestroy(module_);
  }
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  static std::unique_ptr<Module> parse(const std::string &text,
                                       const std::string &name) {
    MlirModule module;
    check(teqParseModule(context(), toRef(text), toRef(name), &module));
    return std::make_unique<Module>(module);
  }

  static std::unique_ptr<Module> empty(std::optional<std::string> chip,
                                       const std::string &cuda) {
    // The target first: a bad one raises before anything is owned.
    MlirAttribute targetAttr =
        chip ? target(*chip, cuda) : MlirAttribute{nullptr};
    auto module = std::make_unique<Module>(
        mlirModuleCreateEmpty(mlirLocationUnknownGet(context())));
    if (chip)
      module->setTargetAttr(targetAttr);
    return module;
  }

  /// Sets the module's #teq.target, which must agree with one it has.
  void setTarget(const std::string &chip, const std::string &cuda) {
    MlirAttribute wanted = target(chip, cuda);
    MlirAttribute existing = mlirOperationGetAttributeByName(
        mlirModuleGetOperation(module_), toRef(std::string("teq.target")));
    if (!mlirAttributeIsNull(existing) && !mlirAttributeEqual(existing, wanted))
      raise("the module targets " + printAttribute(existing) + " but " +
            printAttribute(wanted) + " was requested; remove one of them");
    setTargetAttr(wanted);
  }

  void setTargetAttr(MlirAttribute attr) {
    mlirOperationSetAttributeByName(mlirModuleGetOperation(module_),
                                    toRef(std::string("teq.target")), attr);
  }

  std::string text() const {
    std::string out;
    mlirOperationPrint(mlirModuleGetOperation(module_), appendString, &out);
    return out;
  }

  std::unique_ptr<Module> clone() const {
    MlirOperation copy = mlirOperationClone(mlirModuleGetOperation(module_));
    return std::make_unique<Module>(mlirModuleFromOperation(copy));
  }

  void runPipeline(const std::string &pipeline) {
    check(teqRunPassPipeline(module_, toRef(pipeline)));
  }

  void verify() { check(teqVerifyOperation(mlirModuleGetOperation(module_))); }

  void compile(const std::string &output, const std::string &chip,
               const std::string &emit, const std::string &deviceCode,
               bool forceIndex64, const std::string &gemmAlgos,
               const std::string &disabledFusions) {
    TeqCompileOptions options = teqCompileOptionsGetDefault();
    options.target = toRef(chip);
    options.emit = toRef(emit);
    options.deviceCode = toRef(deviceCode);
    options.forceIndex64 = forceIndex64;
    options.gemmAlgosPath = toRef(gemmAlgos);
    options.disabledFusions = toRef(disabledFusions);
    // The GIL stays held: every module shares one MLIRContext, created
    // without multithreading (its uniquers take no locks).
    check(teqCompileModule(module_, &options, toRef(output)));
  }

  /// {function: value} of the discardable attribute `name` on the module's
  /// top-level functions that have it.
  py::dict functionAttributes(const std::string &name) const {
    py::dict result;
    MlirBlock body = mlirModuleGetBody(module_);
    for (MlirOperation op = mlirBlockGetFirstOperation(body);
         !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
      MlirAttribute attr =
          mlirOperationGetAttributeByName(op, toRef(name));
      MlirAttribute symbol =
          mlirOperationGetAttributeByName(op, toRef(std::string("sym_name")));
      if (mlirAttributeIsNull(attr) || mlirAttributeIsNull(symbol))
        continue;
      result[py::str(str(mlirStringAttrGetValue(symbol)))] = toPython(attr);
    }
    return result;
  }

  MlirModule get() const { return module_; }

private:
  MlirModule module_;
};

/// An SSA value of a function being built: its handle and its type. It
/// keeps its FunctionBuilder (and through it the Module) alive: an
/// unfinished builder's function is erased with the builder.
struct Value {
  MlirValue value;
  py::object owner;
  std::string type() const { return printType(mlirValueGetType(value)); }
};

MlirValue unwrapOptional(const std::optional<Value> &value) {
  return value ? value->value : MlirValue{nullptr};
}


class FunctionBuilder {
public:
  FunctionBuilder(Module &module, const std::string &name,
                  const std::vector<std::string> &argTypes)
      : module_(module) {
    std::vector<MlirType> types;
    for (const std::string &text : argTypes)
      types.push_back(parseType(text));
    check(teqFunctionBuilderCreate(module.get(), toRef(name),
                                   static_cast<intptr_t>(types.size()),
                                   types.data(), &builder_));
    numArgs_ = types.size();
  }
  ~FunctionBuilder() { teqFunctionBuilderDestroy(builder_); }

  /// `value` owned by this builder's Python object (pybind11 finds the
  /// existing wrapper of `this`).
  Value own(MlirValue value) {
    return Value{value, py::cast(this, py::return_value_policy::reference)};
  }
  std::optional<Value> ownOptional(MlirValue value) {
    if (mlirValueIsNull(value))
      return std::nullopt;
    return own(value);
  }

  Value argument(size_t index) {
    if (index >= numArgs_)
      throw py::index_error("argument " + std::to_string(index) +
                            " out of range");
    return own(teqFunctionBuilderGetArgument(builder_, index));
  }

  void beginAutocast(const std::optional<std::string> &recipe, bool enabled) {
    MlirAttribute attr = recipe ? parseAttribute(*recipe) : MlirAttribute{nullptr};
    check(teqFunctionBuilderBeginAutocast(builder_, attr, enabled));
  }

  void endAutocast() { check(teqFunctionBuilderEndAutocast(builder_)); }

  py::tuple linearForward(const Value &input, const Value &weight,
                          const std::optional<Value> &bias,
                          const std::optional<Value> &scale,
                          const std::optional<Value> &amaxHistory,
                          const std::string &config, bool saveInput,
                          bool saveWeight, const std::optional<Value> &tpGroup) {
    TeqLinearForwardResults results;
    check(teqFunctionBuilderLinearForward(
        builder_, input.value, weight.value, unwrapOptional(bias),
        unwrapOptional(scale), unwrapOptional(amaxHistory),
        unwrapOptional(tpGroup), parseAttribute(config), saveInput, saveWeight,
        &results));
    return py::make_tuple(own(results.output), ownOptional(results.savedInput),
                          ownOptional(results.savedWeight),
                          ownOptional(results.updatedAmaxHistory));
  }

  py::tuple linearBackward(const Value &gradOutput, const Value &input,
                           const Value &weight,
                           const std::optional<Value> &mainGrad,
                           const std::optional<Value> &scale,
                           const std::optional<Value> &amaxHistory,
                           const std::string &config,
                           const std::optional<Value> &tpGroup) {
    TeqLinearBackwardResults results;
    check(teqFunctionBuilderLinearBackward(
        builder_, gradOutput.value, input.value, weight.value,
        unwrapOptional(mainGrad), unwrapOptional(scale),
        unwrapOptional(amaxHistory), unwrapOptional(tpGroup),
        parseAttribute(config), &results));
    return py::make_tuple(ownOptional(results.dgrad), ownOptional(results.wgrad),
                          ownOptional(results.dbias),
                          ownOptional(results.updatedAmaxHistory));
  }

  Value elementwise(const std::string &name, const std::vector<Value> &operands) {
    std::vector<MlirValue> values;
    for (const Value &operand : operands)
      values.push_back(operand.value);
    MlirValue result;
    check(teqFunctionBuilderElementwise(builder_, toRef(name),
                                        static_cast<intptr_t>(values.size()),
                                        values.data(), &result));
    return own(result);
  }

  /// teq.activation {kind}: TE's activation names (teqFunctionBuilderActivation).
  Value activation(const std::string &kind, const Value &input) {
    MlirValue result;
    check(teqFunctionBuilderActivation(builder_, toRef(kind), input.value,
                                       &result));
    return own(result);
  }

  /// teq.activation_backward {kind}: dx from the incoming gradient and the
  /// forward's input; the derivative is the compiler's.
  Value activationBackward(const std::string &kind, const Value &grad,
                           const Value &input) {
    MlirValue result;
    check(teqFunctionBuilderActivationBackward(builder_, toRef(kind), grad.value,
                                               input.value, &result));
    return own(result);
  }

  /// teq.layer_norm: (y, mean, rstd); bias None: no beta.
  py::tuple layerNorm(const Value &x, const Value &weight,
                      const std::optional<Value> &bias, float eps,
                      bool zeroCenteredGamma) {
    MlirValue y, mean, rstd;
    check(teqFunctionBuilderLayerNorm(builder_, x.value, weight.value,
                                      unwrapOptional(bias), eps,
                                      zeroCenteredGamma, &y, &mean, &rstd));
    return py::make_tuple(own(y), own(mean), own(rstd));
  }

  /// teq.layer_norm_backward: (dx, dweight, dbias).
  py::tuple layerNormBackward(const Value &dy, const Value &x,
                              const Value &mean, const Value &rstd,
                              const Value &weight, bool zeroCenteredGamma) {
    MlirValue dx, dweight, dbias;
    check(teqFunctionBuilderLayerNormBackward(
        builder_, dy.value, x.value, mean.value, rstd.value, weight.value,
        zeroCenteredGamma, &dx, &dweight, &dbias));
    return py::make_tuple(own(dx), own(dweight), own(dbias));
  }

  /// teq.rms_norm: (y, rstd).
  py::tuple rmsNorm(const Value &x, const Value &weight, float eps,
                    bool zeroCenteredGamma) {
    MlirValue y, rstd;
    check(teqFunctionBuilderRMSNorm(builder_, x.value, weight.value, eps,
                                    zeroCenteredGamma, &y, &rstd));
    return py::make_tuple(own(y), own(rstd));
  }

  /// teq.rms_norm_backward: (dx, dweight).
  py::tuple rmsNormBackward(const Value &dy, const Value &x, const Value &rstd,
                            const Value &weight, bool zeroCenteredGamma) {
    MlirValue dx, dweight;
    check(teqFunctionBuilderRMSNormBackward(builder_, dy.value, x.value,
                                            rstd.value, weight.value,
                                            zeroCenteredGamma, &dx, &dweight));
    return py::make_tuple(own(dx), own(dweight));
  }

  py::tuple delayedScalingUpdate(const Value &scale, const Value &history,
                                 const std::string &fp8Dtype, int64_t margin,
                                 const std::string &algo,
                                 const std::optional<Value> &group) {
    MlirValue newScale, newHistory;
    check(teqFunctionBuilderDelayedScalingUpdate(
        builder_, scale.value, history.value,
        unwrapOptional(group), parseType(fp8Dtype), margin,
        toRef(algo), &newScale, &newHistory));
    return py::make_tuple(own(newScale), own(newHistory));
  }

  Value constant(const std::string &type, double value) {
    MlirValue result;
    check(teqFunctionBuilderConstant(builder_, parseType(type), value, &result));
    return own(result);
  }

  void setArgumentName(size_t index, const std::string &name) {
    check(teqFunctionBuilderSetArgumentName(builder_, static_cast<intptr_t>(index),
                                            toRef(name)));
  }

  void setArgumentRole(size_t index, const std::string &role,
                       const std::string &of) {
    check(teqFunctionBuilderSetArgumentRole(builder_, static_cast<intptr_t>(index),
                                            toRef(role), toRef(of)));
  }

  void cacheWeights() { check(teqFunctionBuilderCacheWeights(builder_)); }

  void setResultRole(size_t index, const std::string &role, const std::string &of) {
    check(teqFunctionBuilderSetResultRole(builder_, static_cast<intptr_t>(index),
                                          toRef(role), toRef(of)));
  }

  void ret(const std::vector<Value> &values,
           const std::optional<std::vector<std::string>> &names) {
    std::vector<MlirValue> handles;
    for (const Value &value : values)
      handles.push_back(value.value);
    std::vector<MlirStringRef> refs;
    if (names) {
      if (names->size() != values.size())
        throw py::value_error("ret: " + std::to_string(names->size()) +
                              " names for " + std::to_string(values.size()) +
                              " values");
      for (const std::string &name : *names)
        refs.push_back(toRef(name));
    }
    check(teqFunctionBuilderReturn(builder_, static_cast<intptr_t>(handles.size()),
                                   handles.data(), names ? refs.data() : nullptr));
  }

private:
  Module &module_;
  TeqFunctionBuilder builder_{nullptr};
  size_t numArgs_ = 0;
};

py::list protoBuffers(const std::string &protoType, const std::string &chip) {
  MlirType type = parseType(protoType);
  if (!teqTypeIsAProto(type))
    raise("'" + protoType + "' is not a !teq.proto type", "CompilerError");
  TeqBufferLayout layout;
  check(teqProtoTypeGetBufferLayout(type, target(chip), &layout));
  std::unique_ptr<void, void (*)(void *)> owner(
      layout.ptr, [](void *ptr) { teqBufferLayoutDestroy(TeqBufferLayout{ptr}); });
  py::list buffers;
  for (intptr_t i = 0, e = teqBufferLayoutGetNumBuffers(layout); i < e; ++i) {
    TeqBufferInfo info = teqBufferLayoutGetBuffer(layout, i);
    py::dict buffer;
    buffer["name"] = str(info.name);
    buffer["dtype"] = str(info.encoding);
    buffer["shape"] = std::vector<int64_t>(info.shape, info.shape + info.rank);
    buffer["valid_shape"] =
        std::vector<int64_t>(info.validShape, info.validShape + info.rank);
    buffer["bytes"] = info.bytes;
    buffer["transposed"] = info.transposed;
    buffer["usage"] = info.usage == TeqUsageRowwise ? "rowwise" : "columnwise";
    buffer["is_scale"] = info.isScale;
    buffers.append(buffer);
  }
  return buffers;
}

py::dict protoInfo(const std::string &protoType) {
  MlirType type = parseType(protoType);
  if (!teqTypeIsAProto(type))
    raise("'" + protoType + "' is not a !teq.proto type", "CompilerError");
  py::dict info;
  std::vector<int64_t> shape;
  for (intptr_t d = 0, e = teqProtoTypeGetRank(type); d < e; ++d)
    shape.push_back(teqProtoTypeGetDimSize(type, d));
  info["shape"] = shape;
  info["dtype"] = printType(teqProtoTypeGetElementType(type));
  info["quantizer"] = printAttribute(teqProtoTypeGetQuantizer(type));
  info["usage"] = teqProtoTypeGetUsage(type);
  info["gemm_swizzled"] = teqProtoTypeIsGemmSwizzled(type);
  return info;
}

std::string protoType(const std::vector<int64_t> &shape, const std::string &dtype,
                      const std::string &quantizer, unsigned usage,
                      bool gemmSwizzled) {
  MlirType result;
  check(teqProtoTypeGet(context(), static_cast<intptr_t>(shape.size()),
                        shape.data(), parseType(dtype), parseAttribute(quantizer),
                        usage, gemmSwizzled, &result));
  return printType(result);
}

std::string protoWithUsage(const std::string &proto, unsigned usage) {
  MlirType result;
  check(teqProtoTypeWithUsage(parseType(proto), usage, &result));
  return printType(result);
}

/// A builtin attribute of teqAttributeGetParameters as a Python value: bool,
/// int, float, str (enum keywords), a type's text, a dict, a list, or a teq
/// attribute's text (a custom recipe's quantizers).
py::object parameterValue(MlirAttribute attr) {
  if (mlirAttributeIsABool(attr))
    return py::bool_(mlirBoolAttrGetValue(attr));
  if (mlirAttributeIsAInteger(attr))
    return py::int_(mlirIntegerAttrGetValueInt(attr));
  if (mlirAttributeIsAFloat(attr))
    return py::float_(mlirFloatAttrGetValueDouble(attr));
  if (mlirAttributeIsAString(attr))
    return py::str(str(mlirStringAttrGetValue(attr)));
  if (mlirAttributeIsAType(attr))
    return py::str(printType(mlirTypeAttrGetValue(attr)));
  if (mlirAttributeIsADictionary(attr)) {
    py::dict dict;
    for (intptr_t i = 0, e = mlirDictionaryAttrGetNumElements(attr); i < e; ++i) {
      MlirNamedAttribute named = mlirDictionaryAttrGetElement(attr, i);
      dict[py::str(str(mlirIdentifierStr(named.name)))] =
          parameterValue(named.attribute);
    }
    return dict;
  }
  if (mlirAttributeIsAArray(attr)) {
    py::list list;
    for (intptr_t i = 0, e = mlirArrayAttrGetNumElements(attr); i < e; ++i)
      list.append(parameterValue(mlirArrayAttrGetElement(attr, i)));
    return list;
  }
  return py::str(printAttribute(attr));
}

/// (mnemonic, {parameter: value}) of a recipe, quantizer or part of one
/// (teqAttributeGetParameters); parameters None for other attributes.
py::tuple attributeParameters(const std::string &text) {
  MlirAttribute attr = parseAttribute(text);
  MlirAttribute parameters = teqAttributeGetParameters(attr);
  return py::make_tuple(str(teqAttributeGetMnemonic(attr)),
                        mlirAttributeIsNull(parameters)
                            ? py::object(py::none())
                            : parameterValue(parameters));
}

} // namespace

PYBIND11_MODULE(_teq_compiler, m) {
  m.doc() = "TEQ's compiler, on its C API (teq-c). Use the `teq` package.";

  m.def("version", [] { return str(teqGetVersionString()); });

  m.def(
      "parse_attribute",
      [](const std::string &text) { return printAttribute(parseAttribute(text)); },
      "Parses and verifies attribute text; returns the canonical text.");
  m.def(
      "verify_attribute",
      [](const std::string &text) {
        MlirAttribute attr;
        TeqStatus status = teqParseAttribute(context(), toRef(text), &attr);
        if (teqStatusIsSuccess(status))
          return;
        // A bad field is a ValueError (TE asserts); the message drops the
        // "<text>:1:N: error: " location prefix, which is the text itself.
        std::string message = str(teqStatusGetMessage(status));
        teqStatusDestroy(status);
        size_t at = message.find(": error: ");
        if (at != std::string::npos && message.compare(0, text.size(), text) == 0)
          message = message.substr(at + 9);
        size_t newline = message.find('\n');
        if (newline != std::string::npos)
          message = message.substr(0, newline);
        throw py::value_error(message);
      },
      "Raises ValueError with the verifier's (TE's) message if the attribute "
      "text is invalid.");
  m.def("attribute_parameters", &attributeParameters,
        "(mnemonic, parameters) of a recipe, quantizer, delayed_scaling_request, "
        "quantizer_role or mm_params attribute text, by the typed C API "
        "(teqAttributeGetParameters): every field by name, defaults included; "
        "parameters None for other attributes.");
  m.def("parse_type", [](const std::string &text) { return printType(parseType(text)); });

  m.def(
      "recipe_info",
      [](const std::string &text) {
        MlirAttribute attr = parseAttribute(text);
        if (!teqAttributeIsARecipe(attr))
          raise("'" + text + "' is not a teq recipe");
        py::dict info;
        info["name"] = str(teqRecipeAttrGetName(attr));
        info["split_accumulator"] = py::make_tuple(
            teqRecipeAttrGetUseSplitAccumulator(attr, TeqGemmKindFprop),
            teqRecipeAttrGetUseSplitAccumulator(attr, TeqGemmKindDgrad),
            teqRecipeAttrGetUseSplitAccumulator(attr, TeqGemmKindWgrad));
        return info;
      });
  m.def(
      "check_recipe_support",
      [](const std::string &recipe, const std::string &chip,
         const std::string &cuda) -> std::optional<std::string> {
        bool supported = false;
        std::string reason;
        check(teqRecipeAttrCheckTargetSupport(parseAttribute(recipe),
                                              target(chip, cuda), &supported,
                                              appendString, &reason));
        if (supported)
          return std::nullopt;
        return reason;
      },
      py::arg("recipe"), py::arg("target"), py::arg("cuda") = "");
  m.def(
      "target_info",
      [](const std::string &chip, const std::string &cuda) {
        MlirAttribute attr = target(chip, cuda);
        py::dict info;
        std::string name;
        teqTargetAttrGetChip(attr, appendString, &name);
        info["chip"] = name;
        info["sm"] = teqTargetAttrGetSM(attr);
        info["suffix"] = str(teqTargetAttrGetSuffix(attr));
        info["cuda"] = str(teqTargetAttrGetCudaVersion(attr));
        info["fp8"] = teqTargetAttrSupportsFP8(attr);
        info["fp8_block_scaling"] = teqTargetAttrSupportsFP8BlockScaling(attr);
        info["mxfp8"] = teqTargetAttrSupportsMXFP8(attr);
        info["nvfp4"] = teqTargetAttrSupportsNVFP4(attr);
        info["non_tn_fp8_gemm"] = teqTargetAttrSupportsNonTNFP8Gemm(attr);
        return info;
      },
      py::arg("chip"), py::arg("cuda") = "");

  m.def("proto_type", &protoType, py::arg("shape"), py::arg("dtype"),
        py::arg("quantizer"), py::arg("usage"), py::arg("gemm_swizzled") = false);
  m.def("proto_info", &protoInfo);
  m.def("proto_with_usage", &protoWithUsage);
  m.def("proto_buffers", &protoBuffers, py::arg("proto"), py::arg("target"));

  py::class_<Module>(m, "Module")
      .def_static("parse", &Module::parse, py::arg("text"),
                  py::arg("name") = "<input>")
      .def_static("empty", &Module::empty, py::arg("target") = py::none(),
                  py::arg("cuda") = "")
      .def("set_target", &Module::setTarget, py::arg("chip"), py::arg("cuda") = "")
      .def("__str__", &Module::text)
      .def("clone", &Module::clone)
      .def("verify", &Module::verify)
      .def("run_pipeline", &Module::runPipeline, py::arg("pipeline"))
      .def("function_attributes", &Module::functionAttributes, py::arg("name"))
      .def("compile", &Module::compile, py::arg("output"),
           py::arg("target") = "", py::arg("emit") = "",
           py::arg("device_code") = "", py::arg("force_index64") = false,
           py::arg("gemm_algos") = "", py::arg("disabled_fusions") = "");

  py::class_<Value>(m, "Value").def_property_readonly("type", &Value::type);

  py::class_<FunctionBuilder>(m, "FunctionBuilder")
      .def(py::init<Module &, const std::string &, const std::vector<std::string> &>(),
           py::keep_alive<1, 2>())
      .def("argument", &FunctionBuilder::argument)
      .def("begin_autocast", &FunctionBuilder::beginAutocast)
      .def("end_autocast", &FunctionBuilder::endAutocast)
      .def("linear_forward", &FunctionBuilder::linearForward, py::arg("input"),
           py::arg("weight"), py::arg("bias"), py::arg("scale"),
           py::arg("amax_history"), py::arg("config"), py::arg("save_input"),
           py::arg("save_weight"), py::arg("tp_group") = py::none())
      .def("linear_backward", &FunctionBuilder::linearBackward,
           py::arg("grad_output"), py::arg("input"), py::arg("weight"),
           py::arg("main_grad"), py::arg("scale"), py::arg("amax_history"),
           py::arg("config"), py::arg("tp_group") = py::none())
      .def("elementwise", &FunctionBuilder::elementwise)
      .def("activation", &FunctionBuilder::activation, py::arg("kind"),
           py::arg("input"))
      .def("activation_backward", &FunctionBuilder::activationBackward,
           py::arg("kind"), py::arg("grad"), py::arg("input"))
      .def("layer_norm", &FunctionBuilder::layerNorm, py::arg("x"),
           py::arg("weight"), py::arg("bias"), py::arg("eps"),
           py::arg("zero_centered_gamma"))
      .def("layer_norm_backward", &FunctionBuilder::layerNormBackward,
           py::arg("dy"), py::arg("x"), py::arg("mean"), py::arg("rstd"),
           py::arg("weight"), py::arg("zero_centered_gamma"))
      .def("rms_norm", &FunctionBuilder::rmsNorm, py::arg("x"),
           py::arg("weight"), py::arg("eps"), py::arg("zero_centered_gamma"))
      .def("rms_norm_backward", &FunctionBuilder::rmsNormBackward,
           py::arg("dy"), py::arg("x"), py::arg("rstd"), py::arg("weight"),
           py::arg("zero_centered_gamma"))
      .def("delayed_scaling_update", &FunctionBuilder::delayedScalingUpdate,
           py::arg("scale"), py::arg("history"), py::arg("fp8_dtype"),
           py::arg("margin"), py::arg("algo"),
           py::arg("amax_reduction_group") = py::none())
      .def("constant", &FunctionBuilder::constant)
      .def("set_argument_name", &FunctionBuilder::setArgumentName)
      .def("set_argument_role", &FunctionBuilder::setArgumentRole, py::arg("index"),
           py::arg("role"), py::arg("of") = "")
      .def("set_result_role", &FunctionBuilder::setResultRole, py::arg("index"),
           py::arg("role"), py::arg("of") = "")
      .def("cache_weights", &FunctionBuilder::cacheWeights)
      .def("ret", &FunctionBuilder::ret, py::arg("values"),
           py::arg("names") = py::none());
}

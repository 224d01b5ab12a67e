//===- TEQAttrs.cpp - The teq attributes: targets, roles, Linears ---------===//
//
// The teq attributes' definitions (ODS), their shared parameter parsers and
// helpers (AttrSupport.h), the GPU target with TE's hardware checks (§2),
// quantizer roles, delayed-scaling requests and the Linear attributes.
// Recipes are in TEQRecipes.cpp, quantizers in TEQQuantizers.cpp.
//
//===----------------------------------------------------------------------===//

#include "AttrSupport.h"

#include "teq/Dialect/TEQ/IR/TEQAttrs.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Layout/Chip.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::attrs;

#include "teq/Dialect/TEQ/IR/TEQEnums.cpp.inc"
#include "teq/Dialect/TEQ/IR/TEQAttrInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "teq/Dialect/TEQ/IR/TEQAttrs.cpp.inc"

void TEQDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "teq/Dialect/TEQ/IR/TEQAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Parameter parsers
//===----------------------------------------------------------------------===//

FailureOr<bool> mlir::teq::detail::parseBoolParameter(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (succeeded(parser.parseOptionalKeyword(&keyword))) {
    if (keyword == "true")
      return true;
    if (keyword == "false")
      return false;
  }
  return parser.emitError(loc, "expected 'true' or 'false'");
}

FailureOr<llvm::APFloat>
mlir::teq::detail::parseFloatParameter(AsmParser &parser) {
  int64_t integer = 0;
  OptionalParseResult asInteger = parser.parseOptionalInteger(integer);
  if (asInteger.has_value()) {
    if (failed(*asInteger))
      return failure();
    return llvm::APFloat(static_cast<double>(integer));
  }
  double value;
  if (parser.parseFloat(value))
    return failure();
  return llvm::APFloat(value);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

double mlir::teq::getFormatMax(Type dtype) {
  if (isa<Float8E4M3FNType>(dtype))
    return 448.0;
  if (isa<Float8E5M2Type>(dtype))
    return 57344.0;
  if (isa<Float4E2M1FNType>(dtype))
    return 6.0;
  return 0.0;
}

Type mlir::teq::getRecipeFP8Type(MLIRContext *ctx, Format format,
                                 bool forward) {
  if (format == Format::E4M3 || (format == Format::HYBRID && forward))
    return Float8E4M3FNType::get(ctx);
  return Float8E5M2Type::get(ctx);
}

bool attrs::isFP8Type(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(t);
}

bool attrs::isForwardRole(TensorRole role) {
  return role == TensorRole::input || role == TensorRole::weight ||
         role == TensorRole::output;
}

/// TE asserts fp8_format != E5M2 in every recipe; E2M1 is FP4 only.
LogicalResult attrs::verifyFP8Format(function_ref<InFlightDiagnostic()> emitError,
                                       StringRef recipe, Format format,
                                       bool allowHybrid) {
  if (format == Format::E5M2)
    return emitError() << recipe << ": Pure E5M2 training is not supported.";
  if (format == Format::E2M1)
    return emitError() << recipe
                       << ": fp8_format = E2M1 is an FP4 format; use E4M3 or "
                          "HYBRID";
  if (!allowHybrid && format == Format::HYBRID)
    return emitError() << recipe << ": fp8_format must be E4M3";
  return success();
}

LogicalResult
attrs::verifyDelayedScalingFields(function_ref<InFlightDiagnostic()> emitError,
                                  StringRef recipe, Format fp8Format,
                                  int64_t margin, int64_t amaxHistoryLen) {
  if (failed(verifyFP8Format(emitError, recipe, fp8Format)))
    return failure();
  if (amaxHistoryLen < 1)
    return emitError() << recipe
                       << ": amax_history_len must be at least 1, got "
                       << amaxHistoryLen;
  // TE checks no margin (a negative one scales up); TEQ bounds it where
  // fp8_max * 2^-margin stops being a normal float32 (TE's Python would
  // compute inf or 0 scales there).
  if (margin < -100 || margin > 100)
    return emitError() << recipe
                       << ": margin must be in [-100, 100] (fp8_max * "
                          "2^-margin must stay a normal float32), got "
                       << margin;
  return success();
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

TargetAttr TargetAttr::getFromChip(function_ref<InFlightDiagnostic()> emitError,
                                   MLIRContext *context, StringRef chip,
                                   StringRef cuda) {
  // The chip-name rule the artifact manifest reads targets by too; which
  // chips teq supports is verify()'s question.
  std::optional<layout::ChipName> parsed = layout::parseChipName(chip);
  if (!parsed) {
    emitError() << "invalid GPU target '" << chip
                << "'; expected sm_<compute capability>[a|f] such as sm_90 "
                   "or sm_100a";
    return {};
  }
  return getChecked(emitError, context, static_cast<unsigned>(parsed->sm),
                    chip.take_back(parsed->suffix ? 1 : 0), cuda);
}

Attribute TargetAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef chip;
  if (parser.parseLess() || parser.parseKeyword(&chip))
    return {};
  std::string cuda = "13.0";
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("cuda") || parser.parseEqual() ||
        parser.parseString(&cuda))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return getFromChip([&] { return parser.emitError(loc); },
                     parser.getContext(), chip, cuda);
}

void TargetAttr::print(AsmPrinter &printer) const {
  printer << "<" << getChip();
  if (getCuda() != "13.0") {
    printer << ", cuda = ";
    printer.printString(getCuda());
  }
  printer << ">";
}

/// "MAJOR.MINOR" as MAJOR*10 + MINOR; the minor part is required.
static std::optional<unsigned> parseCudaVersion(StringRef cuda) {
  auto [majorStr, minorStr] = cuda.split('.');
  unsigned major, minor;
  if (majorStr.getAsInteger(10, major) || minorStr.getAsInteger(10, minor) ||
      minor > 9)
    return std::nullopt;
  return major * 10 + minor;
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 unsigned sm, StringRef suffix,
                                 StringRef cuda) {
  if (sm < 70 || sm > 130)
    return emitError() << "unsupported GPU target sm_" << sm
                       << ": teq knows sm_70 through sm_130";
  if (suffix != "" && suffix != "a" && suffix != "f")
    return emitError() << "unknown architecture suffix '" << suffix
                       << "'; expected none, 'a' or 'f'";
  if (!parseCudaVersion(cuda))
    return emitError() << "malformed CUDA version \"" << cuda
                       << "\"; expected MAJOR.MINOR such as \"12.9\"";
  if (cuda != (llvm::Twine(*parseCudaVersion(cuda) / 10) + "." +
               llvm::Twine(*parseCudaVersion(cuda) % 10))
                  .str())
    return emitError() << "write the CUDA version as \""
                       << *parseCudaVersion(cuda) / 10 << "."
                       << *parseCudaVersion(cuda) % 10 << "\", not \"" << cuda
                       << "\"";
  return success();
}

std::string TargetAttr::getChip() const {
  return ("sm_" + llvm::Twine(getSm()) + getSuffix()).str();
}

unsigned TargetAttr::getCudaVersion() const {
  return parseCudaVersion(getCuda()).value_or(0);
}

TargetAttr TargetAttr::lookup(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto target =
            op->getAttrOfType<TargetAttr>(TEQDialect::getTargetAttrName()))
      return target;
  return {};
}

// Whether a target runs a format is layout::TargetCaps' answer (through
// TargetAttr); these give TE's message for why it does not.

/// TE's check_fp8_support message, or nullopt.
std::optional<std::string> attrs::checkFP8(TargetAttr target) {
  if (target.supportsFP8())
    return std::nullopt;
  if (target.getSm() < 89)
    return std::string(
        "Device compute capability 8.9 or higher required for FP8 execution.");
  return std::string(
      "Cuda version 12.1 or higher required for FP8 execution on Ada.");
}

std::optional<std::string> attrs::checkMXFP8(TargetAttr target) {
  if (target.supportsMXFP8())
    return std::nullopt;
  if (target.getSm() >= 120)
    return std::string("MXFP8 (for all gemm layouts) is not supported on 12.0+ "
                       "architectures yet.");
  return std::string("Device compute capability 10.0 or higher required for "
                     "MXFP8 execution.");
}

std::optional<std::string> attrs::checkNVFP4(TargetAttr target) {
  if (target.supportsNVFP4())
    return std::nullopt;
  return std::string("Device compute capability 10.0 or higher required for "
                     "NVFP4 execution.");
}

std::optional<std::string> attrs::checkBlockScaling(TargetAttr target) {
  if (!target.supportsFP8BlockScaling())
    return std::string("FP8 block scaled GEMM requires compute capability 9.0 "
                       "or higher and CUDA >= 12.9.");
  return std::nullopt;
}

/// What a single quantizer needs from the hardware.
std::optional<std::string>
attrs::checkQuantizerSupport(QuantizerAttrInterface quantizer, TargetAttr target) {
  if (auto msg = checkFP8(target))
    return msg;
  switch (quantizer.getLayoutFormat()) {
  case ::mlir::teq::layout::Format::PerTensorFP8:
    return std::nullopt;
  case ::mlir::teq::layout::Format::BlockFP8_1D:
  case ::mlir::teq::layout::Format::BlockFP8_2D:
    return checkBlockScaling(target);
  case ::mlir::teq::layout::Format::MXFP8:
    return checkMXFP8(target);
  case ::mlir::teq::layout::Format::NVFP4:
    return checkNVFP4(target);
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// QuantizerRoleAttr
//===----------------------------------------------------------------------===//

Attribute QuantizerRoleAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  std::string moduleType, name;
  std::optional<TensorRole> tensorType;
  if (parser.parseLess())
    return {};
  if (failed(parser.parseOptionalGreater())) {
    llvm::StringSet<> seen;
    do {
      SMLoc keyLoc = parser.getCurrentLocation();
      StringRef key;
      if (parser.parseKeyword(&key) || parser.parseEqual())
        return {};
      if (!seen.insert(key).second) {
        parser.emitError(keyLoc, "field '") << key << "' given twice";
        return {};
      }
      if (key == "module_type") {
        if (parser.parseString(&moduleType))
          return {};
      } else if (key == "name") {
        if (parser.parseString(&name))
          return {};
      } else if (key == "tensor_type") {
        SMLoc valLoc = parser.getCurrentLocation();
        StringRef value;
        if (parser.parseKeyword(&value))
          return {};
        tensorType = symbolizeTensorRole(value);
        if (!tensorType) {
          parser.emitError(valLoc, "unknown tensor_type '")
              << value
              << "'; expected input, weight, output, grad_output or "
                 "grad_input";
          return {};
        }
      } else {
        parser.emitError(keyLoc, "unknown field '")
            << key
            << "' in #teq.quantizer_role; expected module_type, tensor_type "
               "or name";
        return {};
      }
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseGreater())
      return {};
  }
  return parser.getChecked<QuantizerRoleAttr>(loc, parser.getContext(),
                                              moduleType, tensorType, name);
}

void QuantizerRoleAttr::print(AsmPrinter &printer) const {
  printer << "<";
  llvm::ListSeparator sep;
  if (!getModuleType().empty()) {
    printer << StringRef(sep) << "module_type = ";
    printer.printString(getModuleType());
  }
  if (getTensorType())
    printer << StringRef(sep) << "tensor_type = " << stringifyTensorRole(*getTensorType());
  if (!getName().empty()) {
    printer << StringRef(sep) << "name = ";
    printer.printString(getName());
  }
  printer << ">";
}

bool QuantizerRoleAttr::matches(QuantizerRoleAttr other) const {
  if (!getModuleType().empty() && getModuleType() != other.getModuleType())
    return false;
  if (getTensorType() && getTensorType() != other.getTensorType())
    return false;
  if (!getName().empty() && getName() != other.getName())
    return false;
  return true;
}

//===----------------------------------------------------------------------===//
// DelayedScalingRequestAttr
//===----------------------------------------------------------------------===//

LogicalResult DelayedScalingRequestAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, Format fp8Format,
    int64_t margin, int64_t amaxHistoryLen, AmaxComputeAlgo, bool) {
  return verifyDelayedScalingFields(emitError, "DelayedScalingRequest",
                                    fp8Format, margin, amaxHistoryLen);
}

//===----------------------------------------------------------------------===//
// LinearConfigAttr
//===----------------------------------------------------------------------===//

LogicalResult
LinearConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError, bool,
                         ParallelMode mode, bool, int64_t tpSize,
                         bool fuseWgrad, bool, bool requiresWgrad, bool,
                         StringRef) {
  if (tpSize < 1)
    return emitError() << "#teq.linear: tp_size must be at least 1, got "
                       << tpSize;
  if (tpSize > 1 && mode == ParallelMode::none)
    return emitError() << "#teq.linear: tp_size = " << tpSize
                       << " needs parallel_mode = column or row";
  if (fuseWgrad && !requiresWgrad)
    return emitError() << "#teq.linear: fuse_wgrad_accumulation needs "
                          "requires_wgrad = true";
  return success();
}

//===----------------------------------------------------------------------===//
// LinearQuantizationAttr
//===----------------------------------------------------------------------===//

FailureOr<QuantizerAttrInterface>
mlir::teq::detail::parseQuantizerParameter(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  Attribute attr;
  if (parser.parseAttribute(attr))
    return failure();
  auto quantizer = dyn_cast<QuantizerAttrInterface>(attr);
  if (!quantizer)
    return parser.emitError(loc, "expected a quantizer attribute "
                                 "(#teq.*_quantizer<...>), got ")
           << attr;
  return quantizer;
}

LogicalResult LinearQuantizationAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, StringRef recipe,
    QuantizerAttrInterface input, QuantizerAttrInterface weight,
    QuantizerAttrInterface output, QuantizerAttrInterface gradOutput,
    QuantizerAttrInterface gradInput, bool, bool, bool,
    BackwardOverride backwardOverride) {
  if (recipe.empty())
    return emitError() << "#teq.linear_quantization needs the recipe name";
  if (backwardOverride != BackwardOverride::none && (gradOutput || gradInput))
    return emitError() << "#teq.linear_quantization: backward_override = "
                       << stringifyBackwardOverride(backwardOverride)
                       << " runs the backward in high precision; it takes no "
                          "grad_output or grad_input quantizer";
  if (backwardOverride != BackwardOverride::none && !input)
    return emitError() << "#teq.linear_quantization: backward_override needs a "
                          "quantized forward";
  if (static_cast<bool>(input) != static_cast<bool>(weight))
    return emitError() << "#teq.linear_quantization: the fprop GEMM needs "
                          "both input and weight quantized, or neither";
  if (gradOutput && !weight)
    return emitError() << "#teq.linear_quantization: a quantized grad_output "
                          "needs quantized forward tensors";
  return success();
}

QuantizerAttrInterface
LinearQuantizationAttr::getQuantizer(TensorRole role) const {
  switch (role) {
  case TensorRole::input:
    return getInput();
  case TensorRole::weight:
    return getWeight();
  case TensorRole::output:
    return getOutput();
  case TensorRole::grad_output:
    return getGradOutput();
  case TensorRole::grad_input:
    return getGradInput();
  }
  return {};
}

static bool isStateful(QuantizerAttrInterface q) { return q && q.isStateful(); }

bool LinearQuantizationAttr::needsForwardState() const {
  return isStateful(getInput()) || isStateful(getWeight()) ||
         isStateful(getOutput());
}
bool LinearQuantizationAttr::needsBackwardState() const {
  return isStateful(getGradOutput()) || isStateful(getGradInput());
}

//===- TEQAttrs.cpp - Targets, recipes, quantizers ------------------------===//
//
// Parsing, printing and verification of the teq attributes, and the recipe
// logic TE keeps in Python: which quantizer each role gets (te-semantics.md
// §1), split accumulation per GEMM (§6.4) and hardware checks (§2).
//
// One file of ~1.4k lines on purpose: ODS emits every attribute's storage
// class into this translation unit only (TEQAttrs.cpp.inc under
// GET_ATTRDEF_CLASSES; mlir-tblgen shards ops, not attributes), and the
// parsers and recipe logic that create attributes need those classes
// complete. The sections below (target, roles, recipes, quantizers, Linear
// attributes) are the file's map.
//
//===----------------------------------------------------------------------===//

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
  int64_t integer;
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

static bool isFP8Type(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(t);
}

static bool isForwardRole(TensorRole role) {
  return role == TensorRole::input || role == TensorRole::weight ||
         role == TensorRole::output;
}

/// TE asserts fp8_format != E5M2 in every recipe; E2M1 is FP4 only.
static LogicalResult verifyFP8Format(function_ref<InFlightDiagnostic()> emitError,
                                     StringRef recipe, Format format,
                                     bool allowHybrid = true) {
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
static std::optional<std::string> checkFP8(TargetAttr target) {
  if (target.supportsFP8())
    return std::nullopt;
  if (target.getSm() < 89)
    return std::string(
        "Device compute capability 8.9 or higher required for FP8 execution.");
  return std::string(
      "Cuda version 12.1 or higher required for FP8 execution on Ada.");
}

static std::optional<std::string> checkMXFP8(TargetAttr target) {
  if (target.supportsMXFP8())
    return std::nullopt;
  if (target.getSm() >= 120)
    return std::string("MXFP8 (for all gemm layouts) is not supported on 12.0+ "
                       "architectures yet.");
  return std::string("Device compute capability 10.0 or higher required for "
                     "MXFP8 execution.");
}

static std::optional<std::string> checkNVFP4(TargetAttr target) {
  if (target.supportsNVFP4())
    return std::nullopt;
  return std::string("Device compute capability 10.0 or higher required for "
                     "NVFP4 execution.");
}

static std::optional<std::string> checkBlockScaling(TargetAttr target) {
  if (!target.supportsFP8BlockScaling())
    return std::string("FP8 block scaled GEMM requires compute capability 9.0 "
                       "or higher and CUDA >= 12.9.");
  return std::nullopt;
}

/// What a single quantizer needs from the hardware.
static std::optional<std::string>
checkQuantizerSupport(QuantizerAttrInterface quantizer, TargetAttr target) {
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
  if (failed(verifyFP8Format(emitError, "DelayedScalingRequest", fp8Format)))
    return failure();
  if (amaxHistoryLen < 1)
    return emitError() << "DelayedScalingRequest: amax_history_len must be at "
                          "least 1, got "
                       << amaxHistoryLen;
  // TE checks no margin; TEQ bounds it where fp8_max * 2^-margin stops being
  // a normal float32 (TE's Python would compute inf or 0 scales there).
  if (margin < -100 || margin > 100)
    return emitError() << "DelayedScalingRequest: margin must be in [-100, "
                          "100] (fp8_max * 2^-margin must stay a normal "
                          "float32), got "
                       << margin;
  return success();
}

//===----------------------------------------------------------------------===//
// Recipes
//===----------------------------------------------------------------------===//

// DelayedScaling ------------------------------------------------------------

LogicalResult DelayedScalingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t margin,
    Format fp8Format, int64_t amaxHistoryLen, AmaxComputeAlgo, bool, bool,
    bool, BackwardOverride backwardOverride) {
  if (failed(verifyFP8Format(emitError, "DelayedScaling", fp8Format)))
    return failure();
  if (amaxHistoryLen < 1)
    return emitError() << "DelayedScaling: amax_history_len must be at least "
                          "1, got "
                       << amaxHistoryLen;
  // TE checks no margin (a negative one scales up); TEQ bounds it where
  // fp8_max * 2^-margin stops being a normal float32.
  if (margin < -100 || margin > 100)
    return emitError() << "DelayedScaling: margin must be in [-100, 100] "
                          "(fp8_max * 2^-margin must stay a normal float32), "
                          "got "
                       << margin;
  if (backwardOverride != BackwardOverride::none)
    return emitError() << "DelayedScaling: backward_override is not supported "
                          "with delayed scaling (TE asserts it is None)";
  return success();
}

StringRef DelayedScalingAttr::getRecipeName() const { return "DelayedScaling"; }

Attribute DelayedScalingAttr::getQuantizerFor(const QuantizerRoleAttr &role) const {
  bool fwd = !role.getTensorType() || isForwardRole(*role.getTensorType());
  return Float8QuantizerAttr::get(
      getContext(), getRecipeFP8Type(getContext(), getFp8Format(), fwd));
}

// Module defaults _2X_ACC_FPROP=False, _2X_ACC_DGRAD=_2X_ACC_WGRAD=True.
static bool defaultSplitAccumulator(GemmKind gemm) {
  return gemm != GemmKind::fprop;
}

bool DelayedScalingAttr::getUseSplitAccumulator(GemmKind gemm) const {
  return defaultSplitAccumulator(gemm);
}

std::optional<std::string>
DelayedScalingAttr::checkTargetSupport(const TargetAttr &target) const {
  return checkFP8(target);
}

int64_t DelayedScalingAttr::getAlignSizeForQuantization() const { return 16; }

// Float8CurrentScaling -------------------------------------------------------

LogicalResult Float8CurrentScalingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, bool, Format fp8Format,
    MMParamsAttr, MMParamsAttr, MMParamsAttr, bool, bool, BackwardOverride) {
  return verifyFP8Format(emitError, "Float8CurrentScaling", fp8Format);
}

StringRef Float8CurrentScalingAttr::getRecipeName() const {
  return "Float8CurrentScaling";
}

Attribute
Float8CurrentScalingAttr::getQuantizerFor(const QuantizerRoleAttr &role) const {
  bool fwd = !role.getTensorType() || isForwardRole(*role.getTensorType());
  return Float8CurrentScalingQuantizerAttr::get(
      getContext(), getRecipeFP8Type(getContext(), getFp8Format(), fwd),
      /*with_amax_reduction=*/false,
      /*force_pow_2_scales=*/getUsePower_2Scales(),
      /*amax_epsilon=*/llvm::APFloat(0.0));
}

bool Float8CurrentScalingAttr::getUseSplitAccumulator(GemmKind gemm) const {
  switch (gemm) {
  case GemmKind::fprop:
    return getFp8GemmFprop().getUseSplitAccumulator();
  case GemmKind::dgrad:
    return getFp8GemmDgrad().getUseSplitAccumulator();
  case GemmKind::wgrad:
    return getFp8GemmWgrad().getUseSplitAccumulator();
  }
  return true;
}

std::optional<std::string>
Float8CurrentScalingAttr::checkTargetSupport(const TargetAttr &target) const {
  return checkFP8(target);
}

int64_t Float8CurrentScalingAttr::getAlignSizeForQuantization() const {
  return 16;
}

// Float8BlockScaling ---------------------------------------------------------

LogicalResult Float8BlockScalingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, bool, Format fp8Format,
    int64_t xDim, int64_t wDim, int64_t gradDim, MMParamsAttr fprop,
    MMParamsAttr dgrad, MMParamsAttr wgrad, bool fp8Dpa, bool fp8Mha,
    BackwardOverride) {
  if (failed(verifyFP8Format(emitError, "Float8BlockScaling", fp8Format)))
    return failure();
  for (auto [name, dim] : {std::pair<StringRef, int64_t>{"x", xDim},
                           {"w", wDim},
                           {"grad", gradDim}})
    if (dim != 1 && dim != 2)
      return emitError() << "Float8BlockScaling: " << name
                         << "_block_scaling_dim must be 1 or 2, got " << dim;
  for (auto [a, b, da, db] :
       {std::tuple<StringRef, StringRef, int64_t, int64_t>{"x", "w", xDim, wDim},
        {"x", "grad", xDim, gradDim},
        {"w", "grad", wDim, gradDim}})
    if (da == 2 && db == 2)
      return emitError() << "Float8BlockScaling: 2D by 2D block gemm not "
                            "supported ("
                         << a << "_block_scaling_dim = 2 and " << b
                         << "_block_scaling_dim = 2)";
  for (auto [name, params] : {std::pair<StringRef, MMParamsAttr>{"fprop", fprop},
                              {"dgrad", dgrad},
                              {"wgrad", wgrad}})
    if (!params.getUseSplitAccumulator())
      return emitError() << "Float8BlockScaling: fp8_gemm_" << name
                         << " must use split accumulator (block-scaled GEMMs "
                            "require use_split_accumulator = true)";
  if (fp8Dpa || fp8Mha)
    return emitError() << "Float8BlockScaling: FP8 attention (fp8_dpa, "
                          "fp8_mha) is not supported with block scaling";
  return success();
}

StringRef Float8BlockScalingAttr::getRecipeName() const {
  return "Float8BlockScaling";
}

Attribute Float8BlockScalingAttr::getQuantizerFor(const QuantizerRoleAttr &role) const {
  TensorRole tensor = role.getTensorType().value_or(TensorRole::input);
  bool fwd = isForwardRole(tensor);
  int64_t dim = tensor == TensorRole::weight ? getWBlockScalingDim()
                : fwd                        ? getXBlockScalingDim()
                                             : getGradBlockScalingDim();
  return Float8BlockQuantizerAttr::get(
      getContext(), getRecipeFP8Type(getContext(), getFp8Format(), fwd), dim,
      /*force_pow_2_scales=*/!getUseF32Scales(),
      /*amax_epsilon=*/llvm::APFloat(0.0));
}

bool Float8BlockScalingAttr::getUseSplitAccumulator(GemmKind) const {
  return true; // Verified; general_gemm also forces it for block operands.
}

std::optional<std::string>
Float8BlockScalingAttr::checkTargetSupport(const TargetAttr &target) const {
  if (auto msg = checkFP8(target))
    return msg;
  if (auto msg = checkBlockScaling(target))
    return msg;
  // Blackwell runs FP8 block scaling as MXFP8 (hasBlockScaledGemms).
  if (target.getCaps().hasBlockScaledGemms() && getUseF32Scales())
    return std::string("On Blackwell and newer, the FP8 block scaling recipe "
                       "is emulated with MXFP8, which requires using power of "
                       "two scaling factors.");
  return std::nullopt;
}

int64_t Float8BlockScalingAttr::getAlignSizeForQuantization() const { return 16; }

// MXFP8BlockScaling ----------------------------------------------------------

LogicalResult MXFP8BlockScalingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t, Format fp8Format,
    bool, bool, bool, BackwardOverride) {
  return verifyFP8Format(emitError, "MXFP8BlockScaling", fp8Format);
}

StringRef MXFP8BlockScalingAttr::getRecipeName() const {
  return "MXFP8BlockScaling";
}

Attribute MXFP8BlockScalingAttr::getQuantizerFor(const QuantizerRoleAttr &role) const {
  TensorRole tensor = role.getTensorType().value_or(TensorRole::input);
  bool fwd = isForwardRole(tensor);
  // 2D blocks apply to weights of linear / grouped_linear modules only.
  StringRef module = role.getModuleType();
  bool is2D = getEnable_2dQuantization() && tensor == TensorRole::weight &&
              (module.empty() || module == "linear" ||
               module == "grouped_linear");
  return MXFP8QuantizerAttr::get(
      getContext(), getRecipeFP8Type(getContext(), getFp8Format(), fwd), is2D);
}

bool MXFP8BlockScalingAttr::getUseSplitAccumulator(GemmKind gemm) const {
  return defaultSplitAccumulator(gemm);
}

std::optional<std::string>
MXFP8BlockScalingAttr::checkTargetSupport(const TargetAttr &target) const {
  if (auto msg = checkFP8(target))
    return msg;
  return checkMXFP8(target);
}

int64_t MXFP8BlockScalingAttr::getAlignSizeForQuantization() const { return 32; }

// NVFP4BlockScaling ----------------------------------------------------------

static bool fourOverSixApplies(NVFP4FourOverSix scope, TensorRole role) {
  switch (scope) {
  case NVFP4FourOverSix::none:
    return false;
  case NVFP4FourOverSix::all:
    return true;
  case NVFP4FourOverSix::weights:
    return role == TensorRole::weight;
  case NVFP4FourOverSix::activations:
    return role != TensorRole::weight;
  }
  return false;
}

LogicalResult NVFP4BlockScalingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, bool disableRht,
    bool disableSr, bool, bool rowScaled, NVFP4FourOverSix fourOverSix,
    NVFP4FourOverSix, NVFP4ErrMode, Format fp4Format, Format fp8Format, bool,
    bool, BackwardOverride) {
  if (fp4Format != Format::E2M1)
    return emitError() << "NVFP4BlockScaling: fp4_format must be E2M1, got "
                       << stringifyFormat(fp4Format);
  if (fp8Format != Format::E4M3)
    return emitError() << "NVFP4BlockScaling: fp8_format (the block scale "
                          "format) must be E4M3, got "
                       << stringifyFormat(fp8Format);
  // Activations and gradients are the tensors that get RHT / SR.
  bool activations4over6 = fourOverSix == NVFP4FourOverSix::activations ||
                           fourOverSix == NVFP4FourOverSix::all;
  if (activations4over6 && (!disableRht || !disableSr))
    return emitError() << "NVFP4BlockScaling: nvfp4_4over6 = "
                       << stringifyNVFP4FourOverSix(fourOverSix)
                       << " cannot be combined with RHT or stochastic "
                          "rounding; set disable_rht = true and "
                          "disable_stochastic_rounding = true";
  if (rowScaled && !disableRht)
    return emitError() << "NVFP4BlockScaling: row_scaled_activation forbids "
                          "RHT; set disable_rht = true";
  return success();
}

StringRef NVFP4BlockScalingAttr::getRecipeName() const {
  return "NVFP4BlockScaling";
}

Attribute NVFP4BlockScalingAttr::getQuantizerFor(const QuantizerRoleAttr &role) const {
  TensorRole tensor = role.getTensorType().value_or(TensorRole::input);
  // QParams: fp4_quant_fwd_inp / fwd_weight / bwd_grad (te-semantics.md §1.6).
  bool rht = false, sr = false, twoD = false;
  if (tensor == TensorRole::weight) {
    twoD = !getDisable_2dQuantization();
  } else if (isForwardRole(tensor)) {
    rht = !getDisableRht();
  } else {
    rht = !getDisableRht();
    sr = !getDisableStochasticRounding();
  }
  bool rowScaled = getRowScaledActivation() && tensor == TensorRole::input;
  bool use4over6 = fourOverSixApplies(getNvfp4_4over6(), tensor);
  int64_t e4m3Max =
      use4over6 && fourOverSixApplies(getNvfp4_4over6E4m3Use_256(), tensor)
          ? 256
          : 448;
  return NVFP4QuantizerAttr::get(
      getContext(), Float4E2M1FNType::get(getContext()),
      /*with_amax_reduction=*/false, /*with_rht=*/rht,
      /*with_post_rht_amax=*/rht, /*with_2d_quantization=*/twoD,
      /*stochastic_rounding=*/sr, /*row_scaled_nvfp4=*/rowScaled,
      /*nvfp4_use_4over6=*/use4over6, /*nvfp4_e4m3_max=*/e4m3Max,
      /*nvfp4_4over6_err_mode=*/getNvfp4_4over6ErrMode(),
      /*with_random_sign_mask=*/true);
}

bool NVFP4BlockScalingAttr::getUseSplitAccumulator(GemmKind) const {
  // FAST_ACCUM is only ever set for FP8 operands; FP4 GEMMs always use 0.
  return true;
}

std::optional<std::string>
NVFP4BlockScalingAttr::checkTargetSupport(const TargetAttr &target) const {
  if (auto msg = checkFP8(target))
    return msg;
  return checkNVFP4(target);
}

int64_t NVFP4BlockScalingAttr::getAlignSizeForQuantization() const { return 128; }

// CustomRecipe ---------------------------------------------------------------

Attribute CustomRecipeAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<QuantizerRoleAttr> roles;
  SmallVector<Attribute> quantizers;
  Format fp8Format = Format::HYBRID;
  int64_t alignment = 128;
  BackwardOverride backwardOverride = BackwardOverride::none;

  auto parseRule = [&]() -> ParseResult {
    QuantizerRoleAttr role;
    Attribute quantizer;
    if (parser.parseCustomAttributeWithFallback(role) || parser.parseArrow() ||
        parser.parseAttribute(quantizer))
      return failure();
    roles.push_back(role);
    quantizers.push_back(quantizer);
    return success();
  };
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseRule,
                                     " in a custom recipe's rule list"))
    return {};
  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (!seen.insert(key).second) {
      parser.emitError(keyLoc, "field '") << key << "' given twice";
      return {};
    }
    StringRef value;
    if (key == "quantization_alignment") {
      if (parser.parseInteger(alignment))
        return {};
      continue;
    }
    if (key != "fp8_format" && key != "backward_override") {
      parser.emitError(keyLoc, "unknown field '")
          << key
          << "' in #teq.custom_recipe; expected fp8_format, "
             "quantization_alignment or backward_override";
      return {};
    }
    SMLoc valLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&value))
      return {};
    if (key == "fp8_format") {
      auto f = symbolizeFormat(value);
      if (!f) {
        parser.emitError(valLoc, "unknown format '") << value << "'";
        return {};
      }
      fp8Format = *f;
    } else {
      auto b = symbolizeBackwardOverride(value);
      if (!b) {
        parser.emitError(valLoc, "unknown backward_override '") << value << "'";
        return {};
      }
      backwardOverride = *b;
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<CustomRecipeAttr>(loc, parser.getContext(), roles,
                                             quantizers, fp8Format, alignment,
                                             backwardOverride);
}

void CustomRecipeAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(llvm::zip(getRoles(), getQuantizers()), printer,
                        [&](auto pair) {
                          printer.printStrippedAttrOrType(std::get<0>(pair));
                          printer << " -> ";
                          printer.printAttribute(std::get<1>(pair));
                        });
  printer << "]";
  if (getFp8Format() != Format::HYBRID)
    printer << ", fp8_format = " << stringifyFormat(getFp8Format());
  if (getQuantizationAlignment() != 128)
    printer << ", quantization_alignment = " << getQuantizationAlignment();
  if (getBackwardOverride() != BackwardOverride::none)
    printer << ", backward_override = "
            << stringifyBackwardOverride(getBackwardOverride());
  printer << ">";
}

LogicalResult
CustomRecipeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<QuantizerRoleAttr> roles,
                         ArrayRef<Attribute> quantizers, Format fp8Format,
                         int64_t alignment, BackwardOverride) {
  if (failed(verifyFP8Format(emitError, "CustomRecipe", fp8Format)))
    return failure();
  if (alignment <= 0)
    return emitError() << "CustomRecipe: quantization_alignment must be "
                          "greater than 0, got "
                       << alignment;
  if (roles.size() != quantizers.size())
    return emitError() << "CustomRecipe: " << roles.size() << " roles but "
                       << quantizers.size() << " quantizers";
  if (roles.empty())
    return emitError() << "CustomRecipe: the rule list is empty; map at least "
                          "one role to a quantizer";
  DelayedScalingRequestAttr firstRequest;
  for (auto [i, q] : llvm::enumerate(quantizers)) {
    if (isa<Float8QuantizerAttr>(q))
      return emitError()
             << "CustomRecipe: rule " << i
             << " gives a stateful #teq.float8_quantizer; ask for delayed "
                "scaling with #teq.delayed_scaling_request<...> instead";
    if (auto request = dyn_cast<DelayedScalingRequestAttr>(q)) {
      if (!firstRequest)
        firstRequest = request;
      else if (request != firstRequest)
        return emitError() << "CustomRecipe: all DelayedScalingRequests of "
                              "one recipe must match, but rule "
                           << i << " differs from an earlier one";
      continue;
    }
    if (!isa<QuantizerAttrInterface>(q))
      return emitError() << "CustomRecipe: rule " << i << " maps to " << q
                         << ", which is neither a quantizer nor a "
                            "#teq.delayed_scaling_request";
  }
  return success();
}

StringRef CustomRecipeAttr::getRecipeName() const { return "CustomRecipe"; }

Attribute CustomRecipeAttr::getQuantizerFor(const QuantizerRoleAttr &role) const {
  for (auto [pattern, quantizer] : llvm::zip(getRoles(), getQuantizers()))
    if (pattern.matches(role))
      return quantizer;
  return {};
}

bool CustomRecipeAttr::getUseSplitAccumulator(GemmKind gemm) const {
  return defaultSplitAccumulator(gemm);
}

std::optional<std::string>
CustomRecipeAttr::checkTargetSupport(const TargetAttr &target) const {
  if (auto msg = checkFP8(target))
    return msg;
  for (Attribute q : getQuantizers())
    if (auto quantizer = dyn_cast<QuantizerAttrInterface>(q))
      if (auto msg = checkQuantizerSupport(quantizer, target))
        return msg;
  return std::nullopt;
}

int64_t CustomRecipeAttr::getAlignSizeForQuantization() const {
  return getQuantizationAlignment();
}

//===----------------------------------------------------------------------===//
// Quantizers
//===----------------------------------------------------------------------===//

namespace {
/// One `name = value` field of a quantizer and where to put its value.
struct QuantizerField {
  StringRef name;
  std::function<ParseResult(AsmParser &)> parse;
};

QuantizerField boolField(StringRef name, bool &dst) {
  return {name, [&dst](AsmParser &p) -> ParseResult {
            FailureOr<bool> v = mlir::teq::detail::parseBoolParameter(p);
            if (failed(v))
              return failure();
            dst = *v;
            return success();
          }};
}
QuantizerField intField(StringRef name, int64_t &dst) {
  return {name, [&dst](AsmParser &p) { return p.parseInteger(dst); }};
}
QuantizerField floatField(StringRef name, double &dst) {
  return {name, [&dst](AsmParser &p) { return p.parseFloat(dst); }};
}
} // namespace

/// Why a field that TE quantizers have cannot appear in a teq quantizer.
static std::optional<StringRef> forbiddenQuantizerField(StringRef key) {
  return llvm::StringSwitch<std::optional<StringRef>>(key)
      .Cases({"amax_reduction_group", "process_group", "group"},
             StringRef("a quantizer cannot hold a process group: set "
                       "with_amax_reduction = true and pass the group to the "
                       "op that quantizes, as amax_reduction_group(%group)"))
      .Cases({"scale", "amax", "amax_history"},
             StringRef("a quantizer cannot hold a tensor: delayed-scaling "
                       "state is passed to the op that quantizes, as "
                       "state(%scale, %amax_history)"))
      .Cases({"rowwise", "columnwise", "usage"},
             StringRef("usage is part of the tensor type, not the quantizer: "
                       "write it in !teq.proto<..., rowwise|columnwise>"))
      .Case("optimize_for_gemm",
            StringRef("scale swizzling is part of the tensor type, not the "
                      "quantizer: write gemm_swizzled in !teq.proto<...>"))
      .Case("internal", StringRef("'internal' is a PyTorch storage choice "
                                  "with no meaning in teq"))
      .Case("device", StringRef("quantizers are device-independent; the GPU "
                                "is the module's #teq.target"))
      .Default(std::nullopt);
}

/// Parses `<` dtype (`,` name `=` value)* `>`.
static ParseResult parseQuantizer(AsmParser &parser, StringRef mnemonic,
                                  Type &dtype,
                                  ArrayRef<QuantizerField> fields) {
  if (parser.parseLess())
    return failure();
  SMLoc typeLoc = parser.getCurrentLocation();
  if (parser.parseOptionalType(dtype).has_value() == false) {
    return parser.emitError(typeLoc, "#teq.")
           << mnemonic
           << " expects its element type first (e.g. f8E4M3FN, f8E5M2, "
              "f4E2M1FN)";
  }
  if (!dtype)
    return failure();
  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key))
      return failure();
    if (auto why = forbiddenQuantizerField(key))
      return parser.emitError(keyLoc, *why);
    const QuantizerField *field = llvm::find_if(
        fields, [&](const QuantizerField &f) { return f.name == key; });
    if (field == fields.end()) {
      auto diag = parser.emitError(keyLoc, "unknown field '")
                  << key << "' in #teq." << mnemonic;
      if (fields.empty())
        diag << "; it has no fields besides its element type";
      else {
        diag << "; expected one of: ";
        llvm::interleaveComma(fields, diag,
                              [&](const QuantizerField &f) { diag << f.name; });
      }
      return diag;
    }
    if (!seen.insert(key).second)
      return parser.emitError(keyLoc, "field '") << key << "' given twice";
    if (parser.parseEqual() || field->parse(parser))
      return failure();
  }
  return parser.parseGreater();
}

namespace {
/// Prints `<dtype` then `, name = value` for fields that differ from their
/// default, then `>`.
class QuantizerPrinter {
public:
  QuantizerPrinter(AsmPrinter &printer, Type dtype) : printer(printer) {
    printer << "<" << dtype;
  }
  ~QuantizerPrinter() { printer << ">"; }
  QuantizerPrinter &boolean(StringRef name, bool value, bool dflt) {
    if (value != dflt)
      printer << ", " << name << " = " << (value ? "true" : "false");
    return *this;
  }
  QuantizerPrinter &integer(StringRef name, int64_t value, int64_t dflt) {
    if (value != dflt)
      printer << ", " << name << " = " << value;
    return *this;
  }
  QuantizerPrinter &real(StringRef name, double value, double dflt) {
    if (value != dflt) {
      printer << ", " << name << " = ";
      printer.printFloat(llvm::APFloat(value));
    }
    return *this;
  }
  QuantizerPrinter &keyword(StringRef name, StringRef value, StringRef dflt) {
    if (value != dflt)
      printer << ", " << name << " = " << value;
    return *this;
  }

private:
  AsmPrinter &printer;
};
} // namespace

static LogicalResult verifyFP8DType(function_ref<InFlightDiagnostic()> emitError,
                                    StringRef quantizer, Type dtype) {
  if (!isFP8Type(dtype))
    return emitError() << quantizer
                       << " quantizes to f8E4M3FN or f8E5M2, not " << dtype;
  return success();
}

/// The manifest's fp8_dtype of a verified FP8 element type.
static layout::Encoding fp8Encoding(Type dtype) {
  return isa<Float8E5M2Type>(dtype) ? layout::Encoding::E5M2
                                    : layout::Encoding::E4M3;
}

static LogicalResult verifyEpsilon(function_ref<InFlightDiagnostic()> emitError,
                                   StringRef quantizer, llvm::APFloat epsilon) {
  double eps = epsilon.convertToDouble();
  if (!std::isfinite(eps) || eps < 0.0)
    return emitError() << quantizer
                       << ": amax_epsilon must be finite and >= 0, got " << eps;
  if (epsilon.isNegative()) // -0.0 prints like 0.0 but is another attribute
    return emitError() << quantizer << ": amax_epsilon must be 0.0, not -0.0";
  return success();
}

// Float8Quantizer -------------------------------------------------------------

Attribute Float8QuantizerAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  Type dtype;
  if (parseQuantizer(parser, "float8_quantizer", dtype, {}))
    return {};
  return parser.getChecked<Float8QuantizerAttr>(loc, parser.getContext(),
                                                dtype);
}
void Float8QuantizerAttr::print(AsmPrinter &printer) const {
  QuantizerPrinter(printer, getFp8Dtype());
}
LogicalResult
Float8QuantizerAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            Type dtype) {
  return verifyFP8DType(emitError, "Float8Quantizer", dtype);
}
StringRef Float8QuantizerAttr::getQuantizerName() const {
  return "Float8Quantizer";
}
Type Float8QuantizerAttr::getDataType() const { return getFp8Dtype(); }
::mlir::teq::layout::Format Float8QuantizerAttr::getLayoutFormat() const {
  return ::mlir::teq::layout::Format::PerTensorFP8;
}
artifact::QuantizerDesc Float8QuantizerAttr::getArtifactDescription() const {
  auto q =
      artifact::QuantizerDesc::defaultFor(artifact::QuantizerKind::Float8Delayed);
  q.fp8Dtype = fp8Encoding(getFp8Dtype());
  return q;
}
bool Float8QuantizerAttr::isStateful() const { return true; }

// Float8CurrentScalingQuantizer ----------------------------------------------

Attribute Float8CurrentScalingQuantizerAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  Type dtype;
  bool reduce = false, pow2 = false;
  double eps = 0.0;
  if (parseQuantizer(parser, "float8_current_scaling_quantizer", dtype,
                     {boolField("with_amax_reduction", reduce),
                      boolField("force_pow_2_scales", pow2),
                      floatField("amax_epsilon", eps)}))
    return {};
  return parser.getChecked<Float8CurrentScalingQuantizerAttr>(
      loc, parser.getContext(), dtype, reduce, pow2, llvm::APFloat(eps));
}
void Float8CurrentScalingQuantizerAttr::print(AsmPrinter &printer) const {
  QuantizerPrinter(printer, getFp8Dtype())
      .boolean("with_amax_reduction", getWithAmaxReduction(), false)
      .boolean("force_pow_2_scales", getForcePow_2Scales(), false)
      .real("amax_epsilon", getAmaxEpsilon().convertToDouble(), 0.0);
}
LogicalResult Float8CurrentScalingQuantizerAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, Type dtype, bool, bool,
    llvm::APFloat eps) {
  if (failed(verifyFP8DType(emitError, "Float8CurrentScalingQuantizer", dtype)))
    return failure();
  return verifyEpsilon(emitError, "Float8CurrentScalingQuantizer", eps);
}
StringRef Float8CurrentScalingQuantizerAttr::getQuantizerName() const {
  return "Float8CurrentScalingQuantizer";
}
Type Float8CurrentScalingQuantizerAttr::getDataType() const {
  return getFp8Dtype();
}
::mlir::teq::layout::Format Float8CurrentScalingQuantizerAttr::getLayoutFormat() const {
  return ::mlir::teq::layout::Format::PerTensorFP8;
}
artifact::QuantizerDesc
Float8CurrentScalingQuantizerAttr::getArtifactDescription() const {
  auto q = artifact::QuantizerDesc::defaultFor(
      artifact::QuantizerKind::Float8CurrentScaling);
  q.fp8Dtype = fp8Encoding(getFp8Dtype());
  q.withAmaxReduction = getWithAmaxReduction();
  q.forcePow2Scales = getForcePow_2Scales();
  q.amaxEpsilon = getAmaxEpsilon().convertToDouble();
  return q;
}
bool Float8CurrentScalingQuantizerAttr::hasAmaxReduction() const {
  return getWithAmaxReduction();
}

// Float8BlockQuantizer --------------------------------------------------------

Attribute Float8BlockQuantizerAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  Type dtype;
  int64_t dim = 2;
  bool pow2 = true;
  double eps = 0.0;
  QuantizerField blockLen{"block_len", [](AsmParser &p) -> ParseResult {
                            return p.emitError(p.getCurrentLocation(),
                                               "block_len is fixed at 128 in "
                                               "TE's Float8BlockQuantizer");
                          }};
  if (parseQuantizer(parser, "float8_block_quantizer", dtype,
                     {intField("block_scaling_dim", dim),
                      boolField("force_pow_2_scales", pow2),
                      floatField("amax_epsilon", eps), blockLen}))
    return {};
  return parser.getChecked<Float8BlockQuantizerAttr>(loc, parser.getContext(),
                                                     dtype, dim, pow2,
                                                     llvm::APFloat(eps));
}
void Float8BlockQuantizerAttr::print(AsmPrinter &printer) const {
  QuantizerPrinter(printer, getFp8Dtype())
      .integer("block_scaling_dim", getBlockScalingDim(), 2)
      .boolean("force_pow_2_scales", getForcePow_2Scales(), true)
      .real("amax_epsilon", getAmaxEpsilon().convertToDouble(), 0.0);
}
LogicalResult Float8BlockQuantizerAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, Type dtype, int64_t dim,
    bool, llvm::APFloat eps) {
  if (failed(verifyFP8DType(emitError, "Float8BlockQuantizer", dtype)))
    return failure();
  if (dim != 1 && dim != 2)
    return emitError() << "Float8BlockQuantizer: block_scaling_dim must be 1 "
                          "(1x128 blocks) or 2 (128x128 blocks), got "
                       << dim;
  return verifyEpsilon(emitError, "Float8BlockQuantizer", eps);
}
StringRef Float8BlockQuantizerAttr::getQuantizerName() const {
  return "Float8BlockQuantizer";
}
Type Float8BlockQuantizerAttr::getDataType() const { return getFp8Dtype(); }
::mlir::teq::layout::Format Float8BlockQuantizerAttr::getLayoutFormat() const {
  return getBlockScalingDim() == 1 ? ::mlir::teq::layout::Format::BlockFP8_1D
                                   : ::mlir::teq::layout::Format::BlockFP8_2D;
}
artifact::QuantizerDesc Float8BlockQuantizerAttr::getArtifactDescription() const {
  auto q =
      artifact::QuantizerDesc::defaultFor(artifact::QuantizerKind::Float8Block);
  q.fp8Dtype = fp8Encoding(getFp8Dtype());
  q.blockScalingDim = getBlockScalingDim();
  q.forcePow2Scales = getForcePow_2Scales();
  q.amaxEpsilon = getAmaxEpsilon().convertToDouble();
  return q;
}

// MXFP8Quantizer --------------------------------------------------------------

Attribute MXFP8QuantizerAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  Type dtype;
  bool twoD = false;
  if (parseQuantizer(parser, "mxfp8_quantizer", dtype,
                     {boolField("with_2d_quantization", twoD)}))
    return {};
  return parser.getChecked<MXFP8QuantizerAttr>(loc, parser.getContext(), dtype,
                                               twoD);
}
void MXFP8QuantizerAttr::print(AsmPrinter &printer) const {
  QuantizerPrinter(printer, getFp8Dtype())
      .boolean("with_2d_quantization", getWith_2dQuantization(), false);
}
LogicalResult
MXFP8QuantizerAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           Type dtype, bool) {
  return verifyFP8DType(emitError, "MXFP8Quantizer", dtype);
}
StringRef MXFP8QuantizerAttr::getQuantizerName() const {
  return "MXFP8Quantizer";
}
Type MXFP8QuantizerAttr::getDataType() const { return getFp8Dtype(); }
::mlir::teq::layout::Format MXFP8QuantizerAttr::getLayoutFormat() const {
  return ::mlir::teq::layout::Format::MXFP8;
}
artifact::QuantizerDesc MXFP8QuantizerAttr::getArtifactDescription() const {
  auto q = artifact::QuantizerDesc::defaultFor(artifact::QuantizerKind::MXFP8);
  q.fp8Dtype = fp8Encoding(getFp8Dtype());
  q.with2DQuantization = getWith_2dQuantization();
  return q;
}

// NVFP4Quantizer --------------------------------------------------------------

Attribute NVFP4QuantizerAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  Type dtype;
  bool reduce = false, rht = false, postRht = false, twoD = false, sr = false,
       rowScaled = false, use4over6 = false, signMask = true;
  int64_t e4m3Max = 448;
  NVFP4ErrMode errMode = NVFP4ErrMode::MAE;
  QuantizerField errModeField{
      "nvfp4_4over6_err_mode", [&errMode](AsmParser &p) -> ParseResult {
        SMLoc valLoc = p.getCurrentLocation();
        StringRef value;
        if (p.parseKeyword(&value))
          return failure();
        auto mode = symbolizeNVFP4ErrMode(value);
        if (!mode)
          return p.emitError(valLoc, "unknown nvfp4_4over6_err_mode '")
                 << value << "'; expected MAE or MSE";
        errMode = *mode;
        return success();
      }};
  if (parseQuantizer(parser, "nvfp4_quantizer", dtype,
                     {boolField("with_amax_reduction", reduce),
                      boolField("with_rht", rht),
                      boolField("with_post_rht_amax", postRht),
                      boolField("with_2d_quantization", twoD),
                      boolField("stochastic_rounding", sr),
                      boolField("row_scaled_nvfp4", rowScaled),
                      boolField("nvfp4_use_4over6", use4over6),
                      intField("nvfp4_e4m3_max", e4m3Max), errModeField,
                      boolField("with_random_sign_mask", signMask)}))
    return {};
  return parser.getChecked<NVFP4QuantizerAttr>(
      loc, parser.getContext(), dtype, reduce, rht, postRht, twoD, sr,
      rowScaled, use4over6, e4m3Max, errMode, signMask);
}
void NVFP4QuantizerAttr::print(AsmPrinter &printer) const {
  QuantizerPrinter(printer, getFp4Dtype())
      .boolean("with_amax_reduction", getWithAmaxReduction(), false)
      .boolean("with_rht", getWithRht(), false)
      .boolean("with_post_rht_amax", getWithPostRhtAmax(), false)
      .boolean("with_2d_quantization", getWith_2dQuantization(), false)
      .boolean("stochastic_rounding", getStochasticRounding(), false)
      .boolean("row_scaled_nvfp4", getRowScaledNvfp4(), false)
      .boolean("nvfp4_use_4over6", getNvfp4Use_4over6(), false)
      .integer("nvfp4_e4m3_max", getNvfp4E4m3Max(), 448)
      .keyword("nvfp4_4over6_err_mode",
               stringifyNVFP4ErrMode(getNvfp4_4over6ErrMode()), "MAE")
      .boolean("with_random_sign_mask", getWithRandomSignMask(), true);
}
LogicalResult NVFP4QuantizerAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, Type dtype, bool reduce,
    bool rht, bool postRht, bool twoD, bool sr, bool rowScaled, bool use4over6,
    int64_t e4m3Max, NVFP4ErrMode, bool) {
  if (!isa<Float4E2M1FNType>(dtype))
    return emitError() << "NVFP4Quantizer quantizes to f4E2M1FN, not " << dtype;
  if (rht && !postRht)
    return emitError() << "NVFP4Quantizer: with_rht requires "
                          "with_post_rht_amax = true (only the post-RHT amax "
                          "is implemented)";
  if (!rht && postRht)
    return emitError() << "NVFP4Quantizer: with_post_rht_amax requires "
                          "with_rht = true";
  if (rowScaled && (rht || twoD || sr || reduce))
    return emitError() << "NVFP4Quantizer: row_scaled_nvfp4 cannot be "
                          "combined with with_rht, with_2d_quantization, "
                          "stochastic_rounding or with_amax_reduction";
  if (use4over6 && (rht || sr))
    return emitError() << "NVFP4Quantizer: nvfp4_use_4over6 cannot be "
                          "combined with with_rht or stochastic_rounding";
  if (e4m3Max != 448 && e4m3Max != 256)
    return emitError() << "NVFP4Quantizer: nvfp4_e4m3_max must be 448 or 256, "
                          "got "
                       << e4m3Max;
  if (e4m3Max == 256 && !use4over6)
    return emitError() << "NVFP4Quantizer: nvfp4_e4m3_max = 256 only applies "
                          "with nvfp4_use_4over6 = true";
  return success();
}
StringRef NVFP4QuantizerAttr::getQuantizerName() const {
  return "NVFP4Quantizer";
}
Type NVFP4QuantizerAttr::getDataType() const { return getFp4Dtype(); }
::mlir::teq::layout::Format NVFP4QuantizerAttr::getLayoutFormat() const {
  return ::mlir::teq::layout::Format::NVFP4;
}
artifact::QuantizerDesc NVFP4QuantizerAttr::getArtifactDescription() const {
  auto q = artifact::QuantizerDesc::defaultFor(artifact::QuantizerKind::NVFP4);
  q.withRht = getWithRht();
  q.with2DQuantization = getWith_2dQuantization();
  q.stochasticRounding = getStochasticRounding();
  q.withPostRhtAmax = getWithPostRhtAmax();
  q.withRandomSignMask = getWithRandomSignMask();
  q.nvfp4Use4over6 = getNvfp4Use_4over6();
  q.rowScaledNVFP4 = getRowScaledNvfp4();
  q.withAmaxReduction = getWithAmaxReduction();
  return q;
}
bool NVFP4QuantizerAttr::hasAmaxReduction() const {
  return getWithAmaxReduction();
}
bool NVFP4QuantizerAttr::isRowScaled() const { return getRowScaledNvfp4(); }
bool NVFP4QuantizerAttr::isStochastic() const {
  return getStochasticRounding();
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
    QuantizerAttrInterface gradInput, bool, bool, bool) {
  if (recipe.empty())
    return emitError() << "#teq.linear_quantization needs the recipe name";
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

//===- TEQQuantizers.cpp - TE's quantizers as attributes ------------------===//
//
// Parsing, printing and verification of the quantizer attributes (TE's
// fields, defaults and assertions) and their QuantizerAttrInterface: data
// type, TE's name, buffers and manifest description.
//
//===----------------------------------------------------------------------===//

#include "AttrSupport.h"

#include "teq/Dialect/TEQ/IR/TEQAttrs.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"

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


//===- TEQTypes.cpp - Quantized tensor prototypes -------------------------===//

#include "teq/Dialect/TEQ/IR/TEQTypes.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::teq;

#include "teq/Dialect/TEQ/IR/TEQTypeInterfaces.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "teq/Dialect/TEQ/IR/TEQOpsTypes.cpp.inc"

void TEQDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "teq/Dialect/TEQ/IR/TEQOpsTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// TensorProtoType
//===----------------------------------------------------------------------===//

// !teq.proto<128x256xbf16, #quantizer, rowwise|columnwise (, gemm_swizzled)?>
Type TensorProtoType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute quantizer;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma())
    return {};
  SMLoc quantizerLoc = parser.getCurrentLocation();
  if (parser.parseAttribute(quantizer))
    return {};
  auto quantizerIface = dyn_cast<QuantizerAttrInterface>(quantizer);
  if (!quantizerIface) {
    parser.emitError(quantizerLoc, "expected a quantizer attribute "
                                   "(#teq.*_quantizer<...>), got ")
        << quantizer;
    return {};
  }
  if (parser.parseComma())
    return {};
  unsigned usageBits = 0;
  do {
    SMLoc usageLoc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return {};
    std::optional<Usage> usage = symbolizeUsage(keyword);
    if (!usage || *usage == Usage::none) {
      parser.emitError(usageLoc, "unknown usage '")
          << keyword << "'; expected rowwise, columnwise or rowwise|columnwise";
      return {};
    }
    usageBits |= static_cast<unsigned>(*usage);
  } while (succeeded(parser.parseOptionalVerticalBar()));
  ScaleLayout scaleLayout = ScaleLayout::compact;
  if (succeeded(parser.parseOptionalComma())) {
    SMLoc layoutLoc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return {};
    std::optional<ScaleLayout> layout = symbolizeScaleLayout(keyword);
    if (!layout) {
      parser.emitError(layoutLoc, "unknown scale layout '")
          << keyword << "'; expected compact or gemm_swizzled";
      return {};
    }
    scaleLayout = *layout;
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<TensorProtoType>(
      loc, parser.getContext(), shape, elementType, quantizerIface,
      static_cast<Usage>(usageBits), scaleLayout);
}

void TensorProtoType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t dim : getShape())
    printer << dim << "x";
  printer << getElementType() << ", ";
  printer.printAttribute(getQuantizer());
  printer << ", " << stringifyUsage(getUsage());
  if (getScaleLayout() != ScaleLayout::compact)
    printer << ", " << stringifyScaleLayout(getScaleLayout());
  printer << ">";
}

static ::mlir::teq::layout::Encoding encodingOf(Type dtype) {
  if (isa<Float8E5M2Type>(dtype))
    return ::mlir::teq::layout::Encoding::E5M2;
  if (isa<Float4E2M1FNType>(dtype))
    return ::mlir::teq::layout::Encoding::E2M1x2;
  return ::mlir::teq::layout::Encoding::E4M3;
}

static ::mlir::teq::layout::TensorDesc
makeLayoutDesc(ArrayRef<int64_t> shape, QuantizerAttrInterface quantizer,
               Usage usage, ScaleLayout scaleLayout) {
  ::mlir::teq::layout::TensorDesc desc;
  desc.shape.assign(shape.begin(), shape.end());
  desc.format = quantizer.getLayoutFormat();
  desc.dataEncoding = encodingOf(quantizer.getDataType());
  desc.usage = static_cast<unsigned>(usage);
  desc.scaleLayout = scaleLayout == ScaleLayout::gemm_swizzled
                         ? ::mlir::teq::layout::ScaleLayout::GemmSwizzled
                         : ::mlir::teq::layout::ScaleLayout::Compact;
  desc.rowScaledNVFP4 = quantizer.isRowScaled();
  return desc;
}

LogicalResult
TensorProtoType::verify(function_ref<InFlightDiagnostic()> emitError,
                        ArrayRef<int64_t> shape, Type elementType,
                        QuantizerAttrInterface quantizer, Usage usage,
                        ScaleLayout scaleLayout) {
  if (!isa<BFloat16Type, Float16Type, Float32Type>(elementType))
    return emitError() << "a quantized tensor's logical element type must be "
                          "bf16, f16 or f32, got "
                       << elementType;
  if (!quantizer)
    return emitError() << "a quantized tensor needs a quantizer";
  if (usage == Usage::none)
    return emitError() << "a quantized tensor needs at least one usage "
                          "(rowwise or columnwise)";
  ::mlir::teq::layout::Format format = quantizer.getLayoutFormat();
  if (scaleLayout == ScaleLayout::gemm_swizzled &&
      format != ::mlir::teq::layout::Format::MXFP8 &&
      format != ::mlir::teq::layout::Format::NVFP4)
    return emitError() << "only MXFP8 and NVFP4 block scales have a "
                          "gemm_swizzled layout, not those of "
                       << quantizer.getQuantizerName();
  if (auto nvfp4 = dyn_cast<NVFP4QuantizerAttr>(quantizer))
    if (nvfp4.getWithRht() && !elementType.isBF16())
      return emitError() << "RHT is only supported for bfloat16 input, got "
                         << elementType;
  if (auto why = ::mlir::teq::layout::checkLayoutable(
          makeLayoutDesc(shape, quantizer, usage, scaleLayout)))
    return emitError() << "cannot lay out a "
                       << quantizer.getQuantizerName() << " tensor: " << *why;
  return success();
}

bool TensorProtoType::hasRowwise() const {
  return bitEnumContainsAll(getUsage(), Usage::rowwise);
}
bool TensorProtoType::hasColumnwise() const {
  return bitEnumContainsAll(getUsage(), Usage::columnwise);
}

::mlir::teq::layout::TensorDesc TensorProtoType::getLayoutDesc() const {
  return makeLayoutDesc(getShape(), getQuantizer(), getUsage(),
                        getScaleLayout());
}

QuantizerAttrInterface TensorProtoType::getQuantizerInterface() const {
  return getQuantizer();
}

std::vector<::mlir::teq::layout::BufferDesc>
TensorProtoType::getBuffers(const TargetAttr &target) const {
  return ::mlir::teq::layout::describeBuffers(getLayoutDesc(), target.getCaps());
}

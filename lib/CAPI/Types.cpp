//===- Types.cpp - Quantized tensor types in the C API --------------------===//

#include "teq-c/Types.h"
#include "Status.h"
#include "teq/Dialect/TEQ/IR/TEQAttrs.h"
#include "teq/Dialect/TEQ/IR/TEQTypes.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

#include <vector>

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::capi;

namespace {
TensorProtoType proto(MlirType type) {
  return dyn_cast_or_null<TensorProtoType>(unwrap(type));
}

/// What a TeqBufferLayout points to.
struct BufferLayoutImpl {
  std::vector<layout::BufferDesc> buffers;
};

/// TeqUsage* bits <-> teq::Usage; std::nullopt for other bits.
std::optional<Usage> toUsage(unsigned bits) {
  if (bits == 0 || (bits & ~unsigned(TeqUsageRowwise | TeqUsageColumnwise)))
    return std::nullopt;
  Usage usage = Usage::none;
  if (bits & TeqUsageRowwise)
    usage = usage | Usage::rowwise;
  if (bits & TeqUsageColumnwise)
    usage = usage | Usage::columnwise;
  return usage;
}

TeqStatus badUsage(StringRef function, unsigned usage) {
  return makeError(function.str() + ": usage " + std::to_string(usage) +
                   " is not a combination of TeqUsageRowwise (1) and "
                   "TeqUsageColumnwise (2)");
}
} // namespace

bool teqTypeIsAProto(MlirType type) { return static_cast<bool>(proto(type)); }

TeqStatus teqProtoTypeGet(MlirContext context, intptr_t rank,
                          const int64_t *shape, MlirType elementType,
                          MlirAttribute quantizerAttr, unsigned usage,
                          bool gemmSwizzled, MlirType *result) {
  if (mlirContextIsNull(context))
    return makeError("teqProtoTypeGet: null context");
  if (!result)
    return makeError("teqProtoTypeGet: null result pointer");
  *result = MlirType{nullptr};
  if (rank < 0 || (rank > 0 && !shape))
    return makeError("teqProtoTypeGet: rank " + std::to_string(rank) +
                     " with " + (shape ? "a" : "no") + " shape");
  if (mlirTypeIsNull(elementType))
    return makeError("teqProtoTypeGet: null element type");
  auto quantizer =
      dyn_cast_or_null<QuantizerAttrInterface>(unwrap(quantizerAttr));
  if (!quantizer)
    return makeError("teqProtoTypeGet: the quantizer is not a teq quantizer "
                     "attribute");
  std::optional<Usage> usageBits = toUsage(usage);
  if (!usageBits)
    return badUsage("teqProtoTypeGet", usage);
  MLIRContext *ctx = unwrap(context);
  DiagnosticCapture capture(ctx);
  TensorProtoType type = TensorProtoType::getChecked(
      [&] { return emitError(UnknownLoc::get(ctx)); }, ctx,
      ArrayRef<int64_t>(shape, rank), unwrap(elementType), quantizer,
      *usageBits,
      gemmSwizzled ? ScaleLayout::gemm_swizzled : ScaleLayout::compact);
  if (!type)
    return capture.error("invalid !teq.proto type");
  *result = wrap(type);
  return makeSuccess();
}

intptr_t teqProtoTypeGetRank(MlirType type) {
  TensorProtoType p = proto(type);
  return p ? static_cast<intptr_t>(p.getShape().size()) : 0;
}

int64_t teqProtoTypeGetDimSize(MlirType type, intptr_t dim) {
  TensorProtoType p = proto(type);
  if (!p || dim < 0 || dim >= static_cast<intptr_t>(p.getShape().size()))
    return 0;
  return p.getShape()[dim];
}

MlirType teqProtoTypeGetElementType(MlirType type) {
  TensorProtoType p = proto(type);
  return p ? wrap(p.getElementType()) : MlirType{nullptr};
}

MlirAttribute teqProtoTypeGetQuantizer(MlirType type) {
  TensorProtoType p = proto(type);
  return p ? wrap(Attribute(p.getQuantizer())) : MlirAttribute{nullptr};
}

unsigned teqProtoTypeGetUsage(MlirType type) {
  TensorProtoType p = proto(type);
  if (!p)
    return 0;
  return (p.hasRowwise() ? TeqUsageRowwise : 0) |
         (p.hasColumnwise() ? TeqUsageColumnwise : 0);
}

bool teqProtoTypeIsGemmSwizzled(MlirType type) {
  TensorProtoType p = proto(type);
  return p && p.getScaleLayout() == ScaleLayout::gemm_swizzled;
}

TeqStatus teqProtoTypeWithUsage(MlirType type, unsigned usage,
                                MlirType *result) {
  if (!result)
    return makeError("teqProtoTypeWithUsage: null result pointer");
  *result = MlirType{nullptr};
  TensorProtoType p = proto(type);
  if (!p)
    return makeError("teqProtoTypeWithUsage: not a !teq.proto type");
  std::optional<Usage> usageBits = toUsage(usage);
  if (!usageBits)
    return badUsage("teqProtoTypeWithUsage", usage);
  MLIRContext *ctx = p.getContext();
  DiagnosticCapture capture(ctx);
  TensorProtoType updated = TensorProtoType::getChecked(
      [&] { return emitError(UnknownLoc::get(ctx)); }, ctx, p.getShape(),
      p.getElementType(), p.getQuantizer(), *usageBits, p.getScaleLayout());
  if (!updated)
    return capture.error("invalid usage for this !teq.proto type");
  *result = wrap(updated);
  return makeSuccess();
}

TeqStatus teqProtoTypeGetBufferLayout(MlirType type, MlirAttribute targetAttr,
                                      TeqBufferLayout *result) {
  if (!result)
    return makeError("teqProtoTypeGetBufferLayout: null result pointer");
  *result = TeqBufferLayout{nullptr};
  TensorProtoType p = proto(type);
  if (!p)
    return makeError("teqProtoTypeGetBufferLayout: not a !teq.proto type");
  auto target = dyn_cast_or_null<TargetAttr>(unwrap(targetAttr));
  if (!target)
    return makeError("teqProtoTypeGetBufferLayout: the target is not a "
                     "#teq.target");
  // The type's verifier has checked that it can be laid out.
  result->ptr = new BufferLayoutImpl{p.getBuffers(target)};
  return makeSuccess();
}

intptr_t teqBufferLayoutGetNumBuffers(TeqBufferLayout layout) {
  auto *impl = static_cast<BufferLayoutImpl *>(layout.ptr);
  return impl ? static_cast<intptr_t>(impl->buffers.size()) : 0;
}

TeqBufferInfo teqBufferLayoutGetBuffer(TeqBufferLayout layout,
                                       intptr_t index) {
  TeqBufferInfo info = {};
  auto *impl = static_cast<BufferLayoutImpl *>(layout.ptr);
  if (!impl || index < 0 ||
      index >= static_cast<intptr_t>(impl->buffers.size()))
    return info;
  const layout::BufferDesc &buffer = impl->buffers[index];
  info.name = mlirStringRefCreate(buffer.name.data(), buffer.name.size());
  info.encoding = mlirStringRefCreateFromCString(
      layout::stringifyEncoding(buffer.encoding));
  info.rank = static_cast<intptr_t>(buffer.shape.size());
  info.shape = buffer.shape.data();
  info.validShape = buffer.validShape.data();
  info.bytes = buffer.sizeInBytes();
  info.transposed = buffer.transposed;
  info.usage = static_cast<unsigned>(buffer.usage);
  info.isScale = buffer.role == layout::BufferRole::ScaleInv;
  return info;
}

int64_t teqBufferLayoutGetTotalBytes(TeqBufferLayout layout) {
  auto *impl = static_cast<BufferLayoutImpl *>(layout.ptr);
  int64_t total = 0;
  if (impl)
    for (const layout::BufferDesc &buffer : impl->buffers)
      total += buffer.sizeInBytes();
  return total;
}

void teqBufferLayoutDestroy(TeqBufferLayout layout) {
  delete static_cast<BufferLayoutImpl *>(layout.ptr);
}

//===- TensorReader.cpp - Reading an argument's tensor or proto -----------===//
//
// An argument's "tensor", or its "proto" with its quantizer and "buffers",
// checked against the layout the layout library gives it on the target.
//
//===----------------------------------------------------------------------===//

#include "JsonFields.h"
#include "Readers.h"

#include <cmath>
#include <set>

namespace mlir::teq::artifact {

using namespace detail;

namespace {

/// Bytes of one stored element of a proto buffer encoding, or 0.
int64_t encodingBytes(std::string_view encoding) {
  using layout::Encoding;
  for (Encoding e : {Encoding::F32, Encoding::E4M3, Encoding::E5M2,
                     Encoding::E8M0, Encoding::E2M1x2})
    if (encoding == layout::stringifyEncoding(e))
      return layout::storageBytes(e);
  return 0;
}

/// The usage bits of "rowwise", "columnwise" or "rowwise|columnwise".
StatusOr<unsigned> parseUsage(const std::string &usage,
                              const std::string &path) {
  unsigned bits = 0;
  size_t start = 0;
  while (start <= usage.size()) {
    size_t end = usage.find('|', start);
    if (end == std::string::npos)
      end = usage.size();
    std::string part = usage.substr(start, end - start);
    unsigned bit = part == "rowwise"      ? layout::UsageRowwise
                   : part == "columnwise" ? layout::UsageColumnwise
                                          : 0u;
    if (bit == 0 || (bits & bit))
      return errorAt(path, "invalid usage \"" + usage +
                               "\" (expected rowwise, columnwise or "
                               "rowwise|columnwise)");
    bits |= bit;
    start = end + 1;
  }
  return bits;
}

Status parseBuffer(const JsonValue &value, const std::string &path,
                   BufferSpec &buffer) {
  if (!value.isObject())
    return typeError(path, "an object", value);
  auto name = readName(value, path, "name");
  if (!name.ok())
    return name.status();
  buffer.name = *name;
  auto encoding = readString(value, path, "encoding");
  if (!encoding.ok())
    return encoding.status();
  buffer.encoding = *encoding;
  int64_t elementBytes = encodingBytes(buffer.encoding);
  if (elementBytes == 0)
    return errorAt(child(path, "encoding"),
                   "unknown encoding \"" + buffer.encoding +
                       "\" (expected f32, e4m3, e5m2, e8m0 or e2m1x2)");
  auto shape = readShape(value, path, "shape");
  if (!shape.ok())
    return shape.status();
  buffer.shape = *shape;
  if (const JsonValue *valid = value.find("valid_shape")) {
    auto validShape = readShapeValue(*valid, child(path, "valid_shape"));
    if (!validShape.ok())
      return validShape.status();
    buffer.validShape = *validShape;
    if (buffer.validShape.size() != buffer.shape.size())
      return errorAt(child(path, "valid_shape"),
                     "rank " + std::to_string(buffer.validShape.size()) +
                         " differs from the rank " +
                         std::to_string(buffer.shape.size()) + " of \"shape\"");
    for (size_t i = 0; i < buffer.shape.size(); ++i)
      if (buffer.validShape[i] > buffer.shape[i])
        return errorAt(child(path, "valid_shape"),
                       formatShape(buffer.validShape) + " exceeds \"shape\" " +
                           formatShape(buffer.shape));
  } else {
    buffer.validShape = buffer.shape;
  }
  auto bytesValue = member(value, path, "bytes");
  if (!bytesValue.ok())
    return bytesValue.status();
  auto bytes = readInteger(**bytesValue, child(path, "bytes"));
  if (!bytes.ok())
    return bytes.status();
  auto expected = bytesOf(buffer.shape, elementBytes, child(path, "shape"));
  if (!expected.ok())
    return expected.status();
  if (*bytes != *expected)
    return errorAt(child(path, "bytes"),
                   std::to_string(*bytes) + " does not match " +
                       buffer.encoding + formatShape(buffer.shape) + " (" +
                       std::to_string(*expected) + " bytes)");
  buffer.bytes = *bytes;
  auto transposed = readOptionalBool(value, path, "transposed", false);
  if (!transposed.ok())
    return transposed.status();
  buffer.transposed = *transposed;
  auto scaleLayout = readOptionalString(value, path, "scale_layout");
  if (!scaleLayout.ok())
    return scaleLayout.status();
  buffer.scaleLayout = *scaleLayout;
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Quantizers and proto layouts
//===----------------------------------------------------------------------===//

const Choice<QuantizerKind> kQuantizerKinds[] = {
    {"float8_current_scaling", QuantizerKind::Float8CurrentScaling},
    {"float8_delayed", QuantizerKind::Float8Delayed},
    {"float8_block", QuantizerKind::Float8Block},
    {"mxfp8", QuantizerKind::MXFP8},
    {"nvfp4", QuantizerKind::NVFP4}};

/// Reads a quantizer: every field of its kind typed, the required ones
/// present, absent optional ones at their defaults (QuantizerDesc). Other
/// keys are ignored, as elsewhere in the manifest.
StatusOr<QuantizerDesc> parseQuantizer(const JsonValue &q,
                                       const std::string &path) {
  if (!q.isObject())
    return typeError(path, "an object", q);
  auto kind = readChoice(q, path, "kind", "quantizer kind", kQuantizerKinds);
  if (!kind.ok())
    return kind.status();
  QuantizerDesc desc = QuantizerDesc::defaultFor(*kind);
  enum class Type { Bool, Epsilon, Fp8, BlockDim };
  struct Field {
    const char *key;
    Type type;
    bool required;
    bool *flag = nullptr; ///< Type::Bool.
  };
  std::vector<Field> fields;
  switch (desc.kind) {
  case QuantizerKind::Float8CurrentScaling:
    fields = {{"fp8_dtype", Type::Fp8, true},
              {"with_amax_reduction", Type::Bool, false,
               &desc.withAmaxReduction},
              {"force_pow_2_scales", Type::Bool, false, &desc.forcePow2Scales},
              {"amax_epsilon", Type::Epsilon, false}};
    break;
  case QuantizerKind::Float8Delayed:
    fields = {{"fp8_dtype", Type::Fp8, true}};
    break;
  case QuantizerKind::Float8Block:
    fields = {{"fp8_dtype", Type::Fp8, true},
              {"block_scaling_dim", Type::BlockDim, true},
              {"force_pow_2_scales", Type::Bool, false, &desc.forcePow2Scales},
              {"amax_epsilon", Type::Epsilon, false}};
    break;
  case QuantizerKind::MXFP8:
    fields = {{"fp8_dtype", Type::Fp8, true},
              {"with_2d_quantization", Type::Bool, false,
               &desc.with2DQuantization}};
    break;
  case QuantizerKind::NVFP4:
    fields = {{"with_rht", Type::Bool, false, &desc.withRht},
              {"with_2d_quantization", Type::Bool, false,
               &desc.with2DQuantization},
              {"stochastic_rounding", Type::Bool, false,
               &desc.stochasticRounding},
              {"with_post_rht_amax", Type::Bool, false, &desc.withPostRhtAmax},
              {"with_random_sign_mask", Type::Bool, false,
               &desc.withRandomSignMask},
              {"nvfp4_use_4over6", Type::Bool, false, &desc.nvfp4Use4over6},
              {"row_scaled_nvfp4", Type::Bool, false, &desc.rowScaledNVFP4},
              {"with_amax_reduction", Type::Bool, false,
               &desc.withAmaxReduction}};
    break;
  }
  for (const Field &field : fields) {
    const std::string at = child(path, field.key);
    const JsonValue *value = q.find(field.key);
    if (!value) {
      if (field.required)
        return errorAt(path, "missing \"" + std::string(field.key) +
                                 "\" (a " + desc.kindName() +
                                 " quantizer needs it)");
      continue;
    }
    switch (field.type) {
    case Type::Bool:
      if (!value->isBool())
        return typeError(at, "a boolean", *value);
      *field.flag = value->asBool();
      break;
    case Type::Epsilon:
      if (!value->isNumber())
        return typeError(at, "a number", *value);
      if (!std::isfinite(value->asNumber()) || value->asNumber() < 0)
        return errorAt(at, "must be a finite number >= 0");
      desc.amaxEpsilon = value->asNumber();
      break;
    case Type::Fp8:
      if (!value->isString())
        return typeError(at, "a string", *value);
      if (value->asString() == "e4m3")
        desc.fp8Dtype = layout::Encoding::E4M3;
      else if (value->asString() == "e5m2")
        desc.fp8Dtype = layout::Encoding::E5M2;
      else
        return errorAt(at, "unknown FP8 type \"" + value->asString() +
                               "\" (expected e4m3 or e5m2)");
      break;
    case Type::BlockDim: {
      auto dim = readInteger(*value, at);
      if (!dim.ok())
        return dim.status();
      if (*dim != 1 && *dim != 2)
        return errorAt(at, "must be 1 (1x128 blocks) or 2 (128x128 blocks), "
                           "got " + std::to_string(*dim));
      desc.blockScalingDim = *dim;
      break;
    }
    }
  }
  return desc;
}

/// "'data' e4m3[128, 256] (32768 bytes)", with what else describes it.
std::string describeBuffer(const std::string &name, const std::string &encoding,
                           const std::vector<int64_t> &shape,
                           const std::vector<int64_t> &validShape,
                           int64_t bytes, bool transposed,
                           const std::string &scaleLayout) {
  std::string text = "'" + name + "' " + encoding + formatShape(shape) + " (" +
                     std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  if (validShape != shape)
    text += ", valid " + formatShape(validShape);
  if (transposed)
    text += ", transposed";
  if (!scaleLayout.empty())
    text += ", " + scaleLayout;
  return text + ")";
}

/// Checks that the buffers of a proto argument are exactly those of its
/// type on the target: what the layout library (shared with the compiler,
/// the reference and te-run) says TE allocates.
Status checkProtoBuffers(const ArgSpec &arg, const layout::TensorDesc &desc,
                         const GpuTarget &target,
                         const std::string &buffersPath) {
  std::vector<layout::BufferDesc> expected =
      layout::describeBuffers(desc, layout::TargetCaps::fromSM(target.sm));
  const std::string what = "the layout of " + arg.proto.dtype +
                           formatShape(arg.proto.shape) + " quantized by " +
                           arg.proto.quantizerKind() + " (" + arg.proto.usage +
                           ") on " + target.name;
  if (expected.size() != arg.buffers.size()) {
    std::string names;
    for (const layout::BufferDesc &buffer : expected)
      names += (names.empty() ? "" : ", ") + buffer.name;
    return errorAt(buffersPath,
                   "lists " + std::to_string(arg.buffers.size()) +
                       " buffers, but " + what + " has " +
                       std::to_string(expected.size()) + " (" + names + ")");
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    const layout::BufferDesc &want = expected[i];
    const BufferSpec &got = arg.buffers[i];
    const std::string wantLayout =
        !want.scaleLayout ? ""
        : *want.scaleLayout == layout::ScaleLayout::GemmSwizzled
            ? "gemm_swizzled"
            : "compact";
    if (got.name == want.name &&
        got.encoding == layout::stringifyEncoding(want.encoding) &&
        got.shape == want.shape && got.validShape == want.validShape &&
        got.bytes == want.sizeInBytes() && got.transposed == want.transposed &&
        got.scaleLayout == wantLayout)
      continue;
    return errorAt(element(buffersPath, i),
                   "is " +
                       describeBuffer(got.name, got.encoding, got.shape,
                                      got.validShape, got.bytes,
                                      got.transposed, got.scaleLayout) +
                       ", but " + what + " has " +
                       describeBuffer(want.name,
                                      layout::stringifyEncoding(want.encoding),
                                      want.shape, want.validShape,
                                      want.sizeInBytes(), want.transposed,
                                      wantLayout) +
                       " there");
  }
  return Status::success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Tensors and protos
//===----------------------------------------------------------------------===//

Status detail::parseTensor(const JsonValue &value, const std::string &path,
                           ArgSpec &arg) {
  if (!value.isObject())
    return typeError(path, "an object", value);
  auto dtype = readString(value, path, "dtype");
  if (!dtype.ok())
    return dtype.status();
  int64_t elementBytes = tensorDTypeBytes(*dtype);
  if (elementBytes == 0)
    return errorAt(child(path, "dtype"),
                   "unknown dtype \"" + *dtype +
                       "\" (expected f32, bf16, f16 or i64)");
  auto shape = readShape(value, path, "shape");
  if (!shape.ok())
    return shape.status();
  // The compiler passes i64 only as the 16-byte (seed, offset) rng_state
  // the NVFP4 kernels read.
  if (*dtype == "i64" && *shape != std::vector<int64_t>{2})
    return errorAt(child(path, "shape"),
                   "an i64 tensor is the (seed, offset) rng_state of "
                   "stochastic rounding, shape [2]; got " +
                       formatShape(*shape));
  auto bytes = bytesOf(*shape, elementBytes, child(path, "shape"));
  if (!bytes.ok())
    return bytes.status();
  arg.tensor.dtype = *dtype;
  arg.tensor.shape = *shape;
  BufferSpec buffer;
  buffer.name = "tensor";
  buffer.encoding = *dtype;
  buffer.shape = *shape;
  buffer.validShape = *shape;
  buffer.bytes = *bytes;
  arg.buffers = {buffer};
  return Status::success();
}

Status detail::parseProto(const JsonValue &argValue, const JsonValue &value,
                          const std::string &argPath,
                          const GpuTarget &target, ArgSpec &arg,
                          bool ownBuffers) {
  const std::string path = child(argPath, "proto");
  if (!value.isObject())
    return typeError(path, "an object", value);
  ProtoSpec &proto = arg.proto;
  auto dtype = readString(value, path, "dtype");
  if (!dtype.ok())
    return dtype.status();
  if (tensorDTypeBytes(*dtype) == 0 || *dtype == "i64")
    return errorAt(child(path, "dtype"), "unknown dtype \"" + *dtype +
                                             "\" (expected f32, bf16 or f16)");
  proto.dtype = *dtype;
  auto shape = readShape(value, path, "shape");
  if (!shape.ok())
    return shape.status();
  proto.shape = *shape;

  auto quantizerValue = member(value, path, "quantizer");
  if (!quantizerValue.ok())
    return quantizerValue.status();
  auto quantizer = parseQuantizer(**quantizerValue, child(path, "quantizer"));
  if (!quantizer.ok())
    return quantizer.status();
  proto.quantizer = *quantizer;

  auto usage = readString(value, path, "usage");
  if (!usage.ok())
    return usage.status();
  auto usageBits = parseUsage(*usage, child(path, "usage"));
  if (!usageBits.ok())
    return usageBits.status();
  proto.usage = *usage;
  auto scaleLayout = readOptionalString(value, path, "scale_layout");
  if (!scaleLayout.ok())
    return scaleLayout.status();
  if (!scaleLayout->empty() && *scaleLayout != "compact" &&
      *scaleLayout != "gemm_swizzled")
    return errorAt(child(path, "scale_layout"),
                   "unknown scale layout \"" + *scaleLayout +
                       "\" (expected compact or gemm_swizzled)");
  proto.scaleLayout = *scaleLayout;
  auto text = readOptionalString(value, path, "text");
  if (!text.ok())
    return text.status();
  proto.text = *text;
  const layout::TensorDesc desc = proto.tensorDesc();
  if (std::optional<std::string> why = layout::checkLayoutable(desc))
    return errorAt(path, "cannot be laid out: " + *why);
  if (!ownBuffers)
    return Status::success();

  // The buffers are a sibling of "proto" in the argument.
  auto buffers = member(argValue, argPath, "buffers");
  if (!buffers.ok())
    return buffers.status();
  const std::string buffersPath = child(argPath, "buffers");
  if (!(*buffers)->isArray())
    return typeError(buffersPath, "an array", **buffers);
  if ((*buffers)->asArray().empty())
    return errorAt(buffersPath, "a proto argument needs at least one buffer");
  std::set<std::string> names;
  for (size_t i = 0; i < (*buffers)->asArray().size(); ++i) {
    BufferSpec buffer;
    const std::string bufferPath = element(buffersPath, i);
    TEQ_RETURN_IF_ERROR(
        parseBuffer((*buffers)->asArray()[i], bufferPath, buffer));
    if (!names.insert(buffer.name).second)
      return errorAt(child(bufferPath, "name"),
                     "duplicate buffer name \"" + buffer.name + "\"");
    arg.buffers.push_back(std::move(buffer));
  }
  return checkProtoBuffers(arg, desc, target, buffersPath);
}

} // namespace mlir::teq::artifact

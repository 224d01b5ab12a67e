//===- Manifest.cpp - The artifact manifest, parsed and validated ---------===//

#include "teq/Runtime/Manifest.h"

#include "teq/Layout/BufferLayout.h"

#include <set>

namespace mlir::teq::runtime {

//===----------------------------------------------------------------------===//
// GpuTarget
//===----------------------------------------------------------------------===//

StatusOr<GpuTarget> GpuTarget::parse(std::string_view text) {
  auto invalid = [&]() {
    return Status::error("invalid target '" + std::string(text) +
                         "' (expected sm_<compute capability>, e.g. sm_90)");
  };
  if (text.substr(0, 3) != "sm_")
    return invalid();
  std::string_view rest = text.substr(3);
  size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9')
    ++digits;
  if (digits < 2 || digits > 4 || rest[0] == '0')
    return invalid();
  GpuTarget target;
  for (size_t i = 0; i < digits; ++i)
    target.sm = target.sm * 10 + (rest[i] - '0');
  std::string_view suffix = rest.substr(digits);
  if (suffix.size() > 1 || (suffix.size() == 1 && suffix[0] != 'a' &&
                            suffix[0] != 'f'))
    return invalid();
  target.suffix = suffix.empty() ? 0 : suffix[0];
  target.name = std::string(text);
  return target;
}

const char *stringifyDeviceCode(DeviceCodeKind kind) {
  switch (kind) {
  case DeviceCodeKind::PTX:
    return "ptx";
  case DeviceCodeKind::Cubin:
    return "cubin";
  }
  return "unknown";
}

bool isTargetCompatible(const GpuTarget &target, DeviceCodeKind code,
                        int deviceSM) {
  const int deviceMajor = deviceSM / 10, deviceMinor = deviceSM % 10;
  if (target.suffix == 'a')
    return deviceSM == target.sm;
  if (target.suffix == 'f' || code == DeviceCodeKind::Cubin)
    return deviceMajor == target.major() && deviceMinor >= target.minor();
  return deviceSM >= target.sm;
}

//===----------------------------------------------------------------------===//
// Spec helpers
//===----------------------------------------------------------------------===//

const char *stringifyArgKind(ArgKind kind) {
  switch (kind) {
  case ArgKind::Input:
    return "input";
  case ArgKind::Output:
    return "output";
  case ArgKind::InOut:
    return "inout";
  }
  return "unknown";
}

static bool hasUsagePart(const std::string &usage, std::string_view part) {
  size_t start = 0;
  while (start <= usage.size()) {
    size_t end = usage.find('|', start);
    if (end == std::string::npos)
      end = usage.size();
    if (std::string_view(usage).substr(start, end - start) == part)
      return true;
    start = end + 1;
  }
  return false;
}

bool ProtoSpec::hasRowwise() const { return hasUsagePart(usage, "rowwise"); }
bool ProtoSpec::hasColumnwise() const {
  return hasUsagePart(usage, "columnwise");
}

int64_t ArgSpec::totalBytes() const {
  int64_t total = 0;
  for (const BufferSpec &buffer : buffers)
    total += buffer.bytes;
  return total;
}

const BufferSpec &EntrySpec::buffer(size_t flatIndex) const {
  const BufferRef &ref = flatBuffers[flatIndex];
  return args[ref.arg].buffers[ref.buffer];
}

const ArgSpec *EntrySpec::findArg(std::string_view argName) const {
  for (const ArgSpec &arg : args)
    if (arg.name == argName)
      return &arg;
  return nullptr;
}

int64_t EntrySpec::bytesMoved() const {
  int64_t total = 0;
  for (const ArgSpec &arg : args) {
    int64_t bytes = arg.totalBytes();
    total += arg.kind == ArgKind::InOut ? 2 * bytes : bytes;
  }
  return total;
}

const EntrySpec *Manifest::findEntry(std::string_view name) const {
  for (const EntrySpec &entry : entries)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

int64_t tensorDTypeBytes(std::string_view dtype) {
  if (dtype == "f32")
    return 4;
  if (dtype == "bf16" || dtype == "f16")
    return 2;
  if (dtype == "i64") // The (seed, offset) of stochastic rounding.
    return 8;
  return 0;
}

/// Bytes of one stored element of a proto buffer encoding, or 0.
static int64_t encodingBytes(std::string_view encoding) {
  using layout::Encoding;
  for (Encoding e : {Encoding::F32, Encoding::E4M3, Encoding::E5M2,
                     Encoding::E8M0, Encoding::E2M1x2})
    if (encoding == layout::stringifyEncoding(e))
      return layout::storageBytes(e);
  return 0;
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

namespace {

std::string child(const std::string &path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string element(const std::string &path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

Status errorAt(const std::string &path, const std::string &message) {
  return Status::error(path.empty() ? message : path + ": " + message);
}

Status typeError(const std::string &path, const char *expected,
                 const JsonValue &value) {
  return errorAt(path, std::string("expected ") + expected + ", got " +
                           describeJsonKind(value.kind()));
}

/// The member `key` of `object` (at `path`), or an error if it is missing.
StatusOr<const JsonValue *> member(const JsonValue &object,
                                   const std::string &path,
                                   std::string_view key) {
  const JsonValue *value = object.find(key);
  if (!value)
    return errorAt(path, "missing \"" + std::string(key) + "\"");
  return value;
}

StatusOr<std::string> readString(const JsonValue &object,
                                 const std::string &path, std::string_view key,
                                 bool nonEmpty = true) {
  auto value = member(object, path, key);
  if (!value.ok())
    return value.status();
  if (!(*value)->isString())
    return typeError(child(path, key), "a string", **value);
  if (nonEmpty && (*value)->asString().empty())
    return errorAt(child(path, key), "must not be empty");
  return (*value)->asString();
}

StatusOr<std::string> readOptionalString(const JsonValue &object,
                                         const std::string &path,
                                         std::string_view key) {
  const JsonValue *value = object.find(key);
  if (!value)
    return std::string();
  if (!value->isString())
    return typeError(child(path, key), "a string", *value);
  return value->asString();
}

StatusOr<bool> readOptionalBool(const JsonValue &object,
                                const std::string &path, std::string_view key,
                                bool defaultValue) {
  const JsonValue *value = object.find(key);
  if (!value)
    return defaultValue;
  if (!value->isBool())
    return typeError(child(path, key), "a boolean", *value);
  return value->asBool();
}

StatusOr<int64_t> readInteger(const JsonValue &value, const std::string &path) {
  if (!value.isInteger())
    return typeError(path, "an integer", value);
  return value.asInteger();
}

StatusOr<std::vector<int64_t>> readShapeValue(const JsonValue &value,
                                              const std::string &path) {
  if (!value.isArray())
    return typeError(path, "an array of dimensions", value);
  std::vector<int64_t> shape;
  for (size_t i = 0; i < value.asArray().size(); ++i) {
    auto dim = readInteger(value.asArray()[i], element(path, i));
    if (!dim.ok())
      return dim.status();
    if (*dim < 0)
      return errorAt(element(path, i),
                     "negative dimension " + std::to_string(*dim));
    shape.push_back(*dim);
  }
  return shape;
}

StatusOr<std::vector<int64_t>> readShape(const JsonValue &object,
                                         const std::string &path,
                                         std::string_view key) {
  auto value = member(object, path, key);
  if (!value.ok())
    return value.status();
  return readShapeValue(**value, child(path, key));
}

/// Product of `shape` (1 for rank 0), or -1 on overflow past 2^62.
int64_t numElements(const std::vector<int64_t> &shape) {
  constexpr int64_t limit = int64_t(1) << 62;
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim != 0 && count > limit / dim)
      return -1;
    count *= dim;
  }
  return count;
}

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

Status checkUsage(const std::string &usage, const std::string &path) {
  size_t start = 0;
  bool any = false;
  while (start <= usage.size()) {
    size_t end = usage.find('|', start);
    if (end == std::string::npos)
      end = usage.size();
    std::string part = usage.substr(start, end - start);
    if (part != "rowwise" && part != "columnwise")
      return errorAt(path, "invalid usage \"" + usage +
                               "\" (expected rowwise, columnwise or "
                               "rowwise|columnwise)");
    any = true;
    start = end + 1;
  }
  if (!any)
    return errorAt(path, "empty usage");
  return Status::success();
}

Status parseBuffer(const JsonValue &value, const std::string &path,
                   BufferSpec &buffer) {
  if (!value.isObject())
    return typeError(path, "an object", value);
  auto name = readString(value, path, "name");
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
  int64_t elements = numElements(buffer.shape);
  if (elements < 0)
    return errorAt(child(path, "shape"), "too many elements");
  if (*bytes != elements * elementBytes)
    return errorAt(child(path, "bytes"),
                   std::to_string(*bytes) + " does not match " +
                       buffer.encoding + formatShape(buffer.shape) + " (" +
                       std::to_string(elements * elementBytes) + " bytes)");
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

Status parseTensor(const JsonValue &value, const std::string &path,
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
  int64_t elements = numElements(*shape);
  if (elements < 0)
    return errorAt(child(path, "shape"), "too many elements");
  arg.tensor.dtype = *dtype;
  arg.tensor.shape = *shape;
  BufferSpec buffer;
  buffer.name = "tensor";
  buffer.encoding = *dtype;
  buffer.shape = *shape;
  buffer.validShape = *shape;
  buffer.bytes = elements * elementBytes;
  arg.buffers = {buffer};
  return Status::success();
}

Status parseProto(const JsonValue &argValue, const JsonValue &value,
                  const std::string &argPath, ArgSpec &arg) {
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

  auto quantizer = member(value, path, "quantizer");
  if (!quantizer.ok())
    return quantizer.status();
  if (!(*quantizer)->isObject())
    return typeError(child(path, "quantizer"), "an object", **quantizer);
  auto kind = readString(**quantizer, child(path, "quantizer"), "kind");
  if (!kind.ok())
    return kind.status();
  proto.quantizer = **quantizer;
  proto.quantizerKind = *kind;

  auto usage = readString(value, path, "usage");
  if (!usage.ok())
    return usage.status();
  TEQ_RETURN_IF_ERROR(checkUsage(*usage, child(path, "usage")));
  proto.usage = *usage;
  auto scaleLayout = readOptionalString(value, path, "scale_layout");
  if (!scaleLayout.ok())
    return scaleLayout.status();
  proto.scaleLayout = *scaleLayout;
  auto text = readOptionalString(value, path, "text");
  if (!text.ok())
    return text.status();
  proto.text = *text;

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
  return Status::success();
}

Status parseArg(const JsonValue &value, const std::string &path, ArgSpec &arg) {
  if (!value.isObject())
    return typeError(path, "an object", value);
  auto name = readString(value, path, "name");
  if (!name.ok())
    return name.status();
  arg.name = *name;
  auto kind = readString(value, path, "kind");
  if (!kind.ok())
    return kind.status();
  if (*kind == "input")
    arg.kind = ArgKind::Input;
  else if (*kind == "output")
    arg.kind = ArgKind::Output;
  else if (*kind == "inout")
    arg.kind = ArgKind::InOut;
  else
    return errorAt(child(path, "kind"),
                   "unknown kind \"" + *kind +
                       "\" (expected input, output or inout)");

  const JsonValue *tensor = value.find("tensor");
  const JsonValue *proto = value.find("proto");
  if (tensor && proto)
    return errorAt(path, "has both \"tensor\" and \"proto\"");
  if (!tensor && !proto)
    return errorAt(path, "missing \"tensor\" or \"proto\"");
  if (tensor) {
    TEQ_RETURN_IF_ERROR(parseTensor(*tensor, child(path, "tensor"), arg));
  } else {
    arg.isProto = true;
    TEQ_RETURN_IF_ERROR(parseProto(value, *proto, path, arg));
  }

  if (const JsonValue *computedBy = value.find("computed_by")) {
    const std::string computedPath = child(path, "computed_by");
    if (!computedBy->isObject())
      return typeError(computedPath, "an object", *computedBy);
    auto op = readString(*computedBy, computedPath, "op");
    if (!op.ok())
      return op.status();
    arg.computedBy = *computedBy;
  }
  return Status::success();
}

Status parseEntry(const JsonValue &value, const std::string &path,
                  EntrySpec &entry) {
  if (!value.isObject())
    return typeError(path, "an object", value);
  auto name = readString(value, path, "name");
  if (!name.ok())
    return name.status();
  entry.name = *name;
  if (value.find("symbol")) {
    auto symbol = readString(value, path, "symbol");
    if (!symbol.ok())
      return symbol.status();
    entry.symbol = *symbol;
  } else {
    entry.symbol = "teq_entry_" + entry.name;
  }
  auto args = member(value, path, "args");
  if (!args.ok())
    return args.status();
  const std::string argsPath = child(path, "args");
  if (!(*args)->isArray())
    return typeError(argsPath, "an array", **args);
  std::set<std::string> names;
  for (size_t i = 0; i < (*args)->asArray().size(); ++i) {
    ArgSpec arg;
    const std::string argPath = element(argsPath, i);
    TEQ_RETURN_IF_ERROR(parseArg((*args)->asArray()[i], argPath, arg));
    if (!names.insert(arg.name).second)
      return errorAt(child(argPath, "name"),
                     "duplicate argument name \"" + arg.name + "\"");
    for (size_t b = 0; b < arg.buffers.size(); ++b)
      entry.flatBuffers.push_back(BufferRef{i, b});
    entry.args.push_back(std::move(arg));
  }
  return Status::success();
}

Status parseManifestValue(const JsonValue &root, Manifest &manifest) {
  const std::string path;
  if (!root.isObject())
    return typeError(path, "a JSON object", root);

  auto format = readString(root, path, "format", /*nonEmpty=*/false);
  if (!format.ok())
    return format.status();
  if (*format != "teq-artifact")
    return errorAt("format", "unknown format \"" + *format +
                                 "\" (expected \"teq-artifact\")");
  manifest.format = *format;

  auto version = member(root, path, "version");
  if (!version.ok())
    return version.status();
  auto versionNumber = readInteger(**version, "version");
  if (!versionNumber.ok())
    return versionNumber.status();
  if (*versionNumber != 1)
    return errorAt("version", "unsupported version " +
                                  std::to_string(*versionNumber) +
                                  " (this runtime reads version 1)");
  manifest.version = 1;

  auto target = readString(root, path, "target");
  if (!target.ok())
    return target.status();
  auto gpuTarget = GpuTarget::parse(*target);
  if (!gpuTarget.ok())
    return gpuTarget.status().withPrefix("target");
  manifest.target = *gpuTarget;

  auto deviceCode = readString(root, path, "device_code");
  if (!deviceCode.ok())
    return deviceCode.status();
  if (*deviceCode == "ptx")
    manifest.deviceCode = DeviceCodeKind::PTX;
  else if (*deviceCode == "cubin")
    manifest.deviceCode = DeviceCodeKind::Cubin;
  else
    return errorAt("device_code", "unknown device code \"" + *deviceCode +
                                      "\" (expected ptx or cubin)");

  auto entries = member(root, path, "entries");
  if (!entries.ok())
    return entries.status();
  if (!(*entries)->isArray())
    return typeError("entries", "an array", **entries);
  std::set<std::string> names;
  for (size_t i = 0; i < (*entries)->asArray().size(); ++i) {
    EntrySpec entry;
    const std::string entryPath = element("entries", i);
    TEQ_RETURN_IF_ERROR(
        parseEntry((*entries)->asArray()[i], entryPath, entry));
    if (!names.insert(entry.name).second)
      return errorAt(child(entryPath, "name"),
                     "duplicate entry name \"" + entry.name + "\"");
    manifest.entries.push_back(std::move(entry));
  }
  return Status::success();
}

} // namespace

StatusOr<Manifest> parseManifest(std::string_view json) {
  auto root = JsonValue::parse(json);
  if (!root.ok())
    return root.status().withPrefix("manifest");
  Manifest manifest;
  Status status = parseManifestValue(*root, manifest);
  if (!status.ok())
    return status.withPrefix("manifest");
  manifest.json = std::move(*root);
  return manifest;
}

} // namespace mlir::teq::runtime

//===- Manifest.cpp - The artifact manifest, parsed and validated ---------===//

#include "teq/Runtime/Manifest.h"

#include "teq/Layout/BufferLayout.h"

#include <algorithm>
#include <climits>
#include <cstdint>
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
  case ArgKind::Temporary:
    return "temporary";
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

int64_t Manifest::maxWorkspaceBytes() const {
  int64_t bytes = 0;
  for (const EntrySpec &entry : entries)
    bytes = std::max(bytes, entry.workspaceBytes);
  return bytes;
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
// GEMM enums
//===----------------------------------------------------------------------===//

const char *stringifyGemmType(GemmType type) {
  switch (type) {
  case GemmType::E4M3:
    return "e4m3";
  case GemmType::E5M2:
    return "e5m2";
  case GemmType::E2M1:
    return "e2m1";
  case GemmType::BF16:
    return "bf16";
  case GemmType::F16:
    return "f16";
  case GemmType::F32:
    return "f32";
  }
  return "unknown";
}

bool isFp8(GemmType type) {
  return type == GemmType::E4M3 || type == GemmType::E5M2;
}

bool isLowPrecision(GemmType type) {
  return isFp8(type) || type == GemmType::E2M1;
}

const char *stringifyGemmScaleMode(GemmScaleMode mode) {
  switch (mode) {
  case GemmScaleMode::None:
    return "none";
  case GemmScaleMode::ScalarF32:
    return "scalar_f32";
  case GemmScaleMode::Vec128F32:
    return "vec128_f32";
  case GemmScaleMode::Blk128x128F32:
    return "blk128x128_f32";
  case GemmScaleMode::Vec32UE8M0:
    return "vec32_ue8m0";
  case GemmScaleMode::Vec16UE4M3:
    return "vec16_ue4m3";
  }
  return "unknown";
}

const char *stringifyGemmEpilogue(GemmEpilogue epilogue) {
  switch (epilogue) {
  case GemmEpilogue::Default:
    return "default";
  case GemmEpilogue::Bias:
    return "bias";
  case GemmEpilogue::BGradB:
    return "bgradb";
  }
  return "unknown";
}

std::string GemmSpec::describe() const {
  return "GEMM '" + name + "' (id " + std::to_string(id) + ")";
}

std::string GemmSpec::describeProblem() const {
  return "m=" + std::to_string(m) + " n=" + std::to_string(n) +
         " k=" + std::to_string(k) + " transa=" + (transa ? "T" : "N") +
         " transb=" + (transb ? "T" : "N") + " A=" + stringifyGemmType(aType) +
         " (lda " + std::to_string(lda) + ") B=" + stringifyGemmType(bType) +
         " (ldb " + std::to_string(ldb) + ") D=" + stringifyGemmType(dType) +
         " (ldd " + std::to_string(ldd) + ")";
}

bool isNonTnFp8GemmSupported(int sm) {
  return (sm >= 100 && sm < 120) || sm >= 130;
}

Status checkGemmForDevice(const GemmSpec &gemm, int sm) {
  const bool fp8 = isFp8(gemm.aType) || isFp8(gemm.bType);
  if (fp8 && !(gemm.transa && !gemm.transb) && !isNonTnFp8GemmSupported(sm))
    return Status::error(
        gemm.describe() + ": FP8 GEMM in the " + (gemm.transa ? "T" : "N") +
        (gemm.transb ? "T" : "N") + " layout, but cuBLASLt runs FP8 GEMMs "
        "only as TN (transa=T, transb=N) on sm_" + std::to_string(sm) +
        " (non-TN FP8 needs sm_100 to sm_119 or sm_130+; the compiler must "
        "use the operands' transposed data)");
  return Status::success();
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

Status parseArg(const JsonValue &value, const std::string &path, ArgSpec &arg,
                bool temporary = false) {
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
  else if (*kind == "temporary")
    arg.kind = ArgKind::Temporary;
  else
    return errorAt(child(path, "kind"),
                   "unknown kind \"" + *kind + "\" (expected " +
                       (temporary ? "temporary" : "input, output or inout") +
                       ")");
  if (temporary != (arg.kind == ArgKind::Temporary))
    return errorAt(child(path, "kind"),
                   temporary ? "a temporary has kind \"temporary\", got \"" +
                                   *kind + "\""
                             : std::string("kind \"temporary\" is only for "
                                           "the entry's \"temporaries\""));

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
  if (const JsonValue *workspace = value.find("workspace_bytes")) {
    auto bytes = readInteger(*workspace, child(path, "workspace_bytes"));
    if (!bytes.ok())
      return bytes.status();
    if (*bytes < 0)
      return errorAt(child(path, "workspace_bytes"),
                     "negative size " + std::to_string(*bytes));
    entry.workspaceBytes = *bytes;
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
  if (const JsonValue *temporaries = value.find("temporaries")) {
    const std::string temporariesPath = child(path, "temporaries");
    if (!temporaries->isArray())
      return typeError(temporariesPath, "an array", *temporaries);
    for (size_t i = 0; i < temporaries->asArray().size(); ++i) {
      ArgSpec temporary;
      const std::string temporaryPath = element(temporariesPath, i);
      TEQ_RETURN_IF_ERROR(parseArg(temporaries->asArray()[i], temporaryPath,
                                   temporary, /*temporary=*/true));
      if (!names.insert(temporary.name).second)
        return errorAt(child(temporaryPath, "name"),
                       "duplicate name \"" + temporary.name +
                           "\" (arguments and temporaries share names)");
      entry.temporaries.push_back(std::move(temporary));
    }
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// GEMMs
//===----------------------------------------------------------------------===//

/// One choice of a string-valued enum key.
template <typename T>
struct Choice {
  const char *name;
  T value;
};

/// "a, b or c".
template <typename T, size_t N>
std::string listChoices(const Choice<T> (&choices)[N]) {
  std::string text;
  for (size_t i = 0; i < N; ++i)
    text += std::string(i == 0 ? "" : (i + 1 == N ? " or " : ", ")) +
            choices[i].name;
  return text;
}

/// The required string member `key`, one of `choices`; the error reads
/// "<path>.<key>: unknown <what> "x" (expected a, b or c)".
template <typename T, size_t N>
StatusOr<T> readChoice(const JsonValue &object, const std::string &path,
                       std::string_view key, const char *what,
                       const Choice<T> (&choices)[N]) {
  auto text = readString(object, path, key, /*nonEmpty=*/false);
  if (!text.ok())
    return text.status();
  for (const Choice<T> &choice : choices)
    if (*text == choice.name)
      return choice.value;
  return errorAt(child(path, key), std::string("unknown ") + what + " \"" +
                                       *text + "\" (expected " +
                                       listChoices(choices) + ")");
}

StatusOr<bool> readBool(const JsonValue &object, const std::string &path,
                        std::string_view key) {
  auto value = member(object, path, key);
  if (!value.ok())
    return value.status();
  if (!(*value)->isBool())
    return typeError(child(path, key), "a boolean", **value);
  return (*value)->asBool();
}

StatusOr<int64_t> readIntegerMember(const JsonValue &object,
                                    const std::string &path,
                                    std::string_view key) {
  auto value = member(object, path, key);
  if (!value.ok())
    return value.status();
  return readInteger(**value, child(path, key));
}

/// An error for the first key of `object` not in `known`.
template <size_t N>
Status checkKnownKeys(const JsonValue &object, const std::string &path,
                      const char *const (&known)[N], const char *where) {
  for (const auto &[key, value] : object.asObject()) {
    (void)value;
    bool found = false;
    for (const char *name : known)
      found = found || key == name;
    if (!found)
      return errorAt(path, "unknown key \"" + key + "\" in " + where);
  }
  return Status::success();
}

const Choice<GemmType> kOperandTypes[] = {
    {"e4m3", GemmType::E4M3}, {"e5m2", GemmType::E5M2},
    {"e2m1", GemmType::E2M1}, {"bf16", GemmType::BF16},
    {"f16", GemmType::F16},   {"f32", GemmType::F32}};
const Choice<GemmType> kOutputTypes[] = {{"bf16", GemmType::BF16},
                                         {"f16", GemmType::F16},
                                         {"f32", GemmType::F32}};
const Choice<GemmScaleMode> kScaleModes[] = {
    {"none", GemmScaleMode::None},
    {"scalar_f32", GemmScaleMode::ScalarF32},
    {"vec128_f32", GemmScaleMode::Vec128F32},
    {"blk128x128_f32", GemmScaleMode::Blk128x128F32},
    {"vec32_ue8m0", GemmScaleMode::Vec32UE8M0},
    {"vec16_ue4m3", GemmScaleMode::Vec16UE4M3}};
const Choice<GemmEpilogue> kEpilogues[] = {{"default", GemmEpilogue::Default},
                                           {"bias", GemmEpilogue::Bias},
                                           {"bgradb", GemmEpilogue::BGradB}};
const Choice<bool> kAlphaModes[] = {{"host", false}, {"device", true}};
const Choice<bool> kComputeTypes[] = {{"32f", false},
                                      {"32f_fast_tf32", true}};

const char *const kGemmKeys[] = {
    "id",         "name",         "m",           "n",          "k",
    "transa",     "transb",       "a_type",      "b_type",     "d_type",
    "lda",        "ldb",          "ldd",         "a_scale_mode",
    "b_scale_mode", "epilogue",   "bias_type",   "accumulate", "fast_accum",
    "alpha",      "compute_type", "algo"};
const char *const kAlgoKeys[] = {"id",        "tile",    "stages",
                                 "splitk",    "reduction", "swizzle",
                                 "custom",    "inner_shape",
                                 "cluster_shape"};

Status parseGemmAlgo(const JsonValue &value, const std::string &path,
                     GemmAlgoSpec &algo) {
  if (!value.isObject())
    return typeError(path, "an object", value);
  TEQ_RETURN_IF_ERROR(
      checkKnownKeys(value, path, kAlgoKeys, "a GEMM algorithm"));
  auto id = readIntegerMember(value, path, "id");
  if (!id.ok())
    return id.status();
  algo.id = *id;
  struct Field {
    const char *key;
    int64_t *field;
  } fields[] = {{"tile", &algo.tile},
                {"stages", &algo.stages},
                {"splitk", &algo.splitK},
                {"reduction", &algo.reduction},
                {"swizzle", &algo.swizzle},
                {"custom", &algo.custom},
                {"inner_shape", &algo.innerShape},
                {"cluster_shape", &algo.clusterShape}};
  for (const Field &f : fields) {
    const JsonValue *member = value.find(f.key);
    if (!member)
      continue;
    auto number = readInteger(*member, child(path, f.key));
    if (!number.ok())
      return number.status();
    if (*number < 0 || *number > INT32_MAX)
      return errorAt(child(path, f.key),
                     "out of range: " + std::to_string(*number));
    *f.field = *number;
  }
  if (algo.splitK < 1)
    return errorAt(child(path, "splitk"), "must be at least 1");
  return Status::success();
}

/// The checks of one GEMM that need no device.
Status checkGemm(const GemmSpec &g, const std::string &path) {
  auto fail = [&](const std::string &message) {
    return errorAt(path, g.describe() + ": " + message);
  };
  // Leading dimensions: the column-major rows of what is stored.
  struct Ld {
    const char *name;
    int64_t ld;
    int64_t rows;
    const char *shape;
  } lds[] = {{"lda", g.lda, g.aRows(), g.transa ? "k x m" : "m x k"},
             {"ldb", g.ldb, g.bRows(), g.transb ? "n x k" : "k x n"},
             {"ldd", g.ldd, g.m, "m x n"}};
  for (const Ld &ld : lds)
    if (ld.ld < ld.rows)
      return fail(std::string(ld.name) + " " + std::to_string(ld.ld) +
                  " is less than the " + std::to_string(ld.rows) +
                  " rows of the stored " + ld.shape + " matrix (" +
                  g.describeProblem() + ")");

  // Operand types and their scales.
  struct Operand {
    const char *name;
    GemmType type;
    GemmScaleMode mode;
    int64_t ld;
    const char *ldName;
  } operands[] = {{"A", g.aType, g.aScaleMode, g.lda, "lda"},
                  {"B", g.bType, g.bScaleMode, g.ldb, "ldb"}};
  for (const Operand &op : operands) {
    const std::string what = std::string(op.name) + " (" +
                             stringifyGemmType(op.type) + ") has scale mode " +
                             stringifyGemmScaleMode(op.mode);
    if (!isLowPrecision(op.type) && op.mode != GemmScaleMode::None)
      return fail(what + ", but a high-precision operand takes none");
    if (isFp8(op.type) && (op.mode == GemmScaleMode::None ||
                           op.mode == GemmScaleMode::Vec16UE4M3))
      return fail(what + " (FP8 takes scalar_f32, vec128_f32, "
                         "blk128x128_f32 or vec32_ue8m0)");
    if (op.type == GemmType::E2M1 && op.mode != GemmScaleMode::Vec16UE4M3)
      return fail(what + " (FP4 takes vec16_ue4m3)");
    if (isFp8(op.type) && op.ld % 16 != 0)
      return fail(std::string(op.ldName) + " " + std::to_string(op.ld) +
                  " of FP8 operand " + op.name +
                  " is not a multiple of 16: cuBLASLt FP8 GEMMs need "
                  "16-element leading dimensions (pad the operand)");
  }
  const bool aLow = isLowPrecision(g.aType), bLow = isLowPrecision(g.bType);
  if (aLow != bLow)
    return fail(std::string("A is ") + stringifyGemmType(g.aType) +
                " but B is " + stringifyGemmType(g.bType) +
                ": cuBLASLt does not mix FP8/FP4 and high-precision operands");
  if (!aLow && g.aType != g.bType)
    return fail(std::string("A is ") + stringifyGemmType(g.aType) +
                " but B is " + stringifyGemmType(g.bType) +
                ": high-precision operands must have the same type");
  if (g.aType == GemmType::E5M2 && g.bType == GemmType::E5M2)
    return fail("both A and B are e5m2: cuBLASLt has no FP8 GEMM with two "
                "E5M2 operands, and TE never asks for one (an E5M2 gradient "
                "meets an E4M3 activation or weight)");
  if (aLow && g.aScaleMode != g.bScaleMode) {
    auto isBlock = [](GemmScaleMode mode) {
      return mode == GemmScaleMode::Vec128F32 ||
             mode == GemmScaleMode::Blk128x128F32;
    };
    // TE allows 1D x 1D, 1D x 2D and 2D x 1D block scaling; otherwise the
    // modes must be equal.
    if (!isBlock(g.aScaleMode) || !isBlock(g.bScaleMode))
      return fail(std::string("A and B need compatible scaling modes, got ") +
                  stringifyGemmScaleMode(g.aScaleMode) + " and " +
                  stringifyGemmScaleMode(g.bScaleMode));
  }
  if (g.aScaleMode == GemmScaleMode::Blk128x128F32 &&
      g.bScaleMode == GemmScaleMode::Blk128x128F32)
    return fail("both A and B have 128x128 block scales (blk128x128_f32); "
                "cuBLASLt (and TE) support 1D x 1D, 1D x 2D and 2D x 1D "
                "block scaling only");
  if (g.aType == GemmType::E2M1 && g.dType == GemmType::F16)
    return fail("FP4 GEMMs cannot write f16 (TE: FP4 with FP16 output is "
                "an error); use bf16 or f32");
  if (aLow && g.epilogue == GemmEpilogue::Bias && g.biasType == GemmType::F32)
    return fail("an FP8/FP4 GEMM cannot take an f32 bias (cuBLASLt FP8 has "
                "no FP32 bias; TE casts it to bf16)");
  if (g.fastTf32 &&
      !(g.aType == GemmType::F32 && g.bType == GemmType::F32))
    return fail("compute type 32f_fast_tf32 needs f32 operands (TE uses it "
                "only when A, B and D are f32)");
  return Status::success();
}

Status parseGemm(const JsonValue &value, const std::string &path,
                 size_t index, GemmSpec &g) {
  if (!value.isObject())
    return typeError(path, "an object", value);
  TEQ_RETURN_IF_ERROR(checkKnownKeys(value, path, kGemmKeys, "a GEMM"));
  auto id = readIntegerMember(value, path, "id");
  if (!id.ok())
    return id.status();
  if (*id != static_cast<int64_t>(index))
    return errorAt(child(path, "id"),
                   "id " + std::to_string(*id) +
                       " differs from its index " + std::to_string(index) +
                       " (GEMM ids are the positions in \"gemms\")");
  g.id = *id;
  auto name = readString(value, path, "name");
  if (!name.ok())
    return name.status();
  g.name = *name;

  struct IntField {
    const char *key;
    int64_t *field;
  } dims[] = {{"m", &g.m},     {"n", &g.n},     {"k", &g.k},
              {"lda", &g.lda}, {"ldb", &g.ldb}, {"ldd", &g.ldd}};
  for (const IntField &f : dims) {
    auto number = readIntegerMember(value, path, f.key);
    if (!number.ok())
      return number.status();
    if (*number <= 0 || *number > INT32_MAX)
      return errorAt(child(path, f.key),
                     std::string(*number <= 0 ? "must be positive"
                                              : "too large for cuBLASLt") +
                         ", got " + std::to_string(*number));
    *f.field = *number;
  }
  struct BoolField {
    const char *key;
    bool *field;
  } flags[] = {{"transa", &g.transa},
               {"transb", &g.transb},
               {"accumulate", &g.accumulate},
               {"fast_accum", &g.fastAccum}};
  for (const BoolField &f : flags) {
    auto flag = readBool(value, path, f.key);
    if (!flag.ok())
      return flag.status();
    *f.field = *flag;
  }

  auto aType = readChoice(value, path, "a_type", "type", kOperandTypes);
  if (!aType.ok())
    return aType.status();
  g.aType = *aType;
  auto bType = readChoice(value, path, "b_type", "type", kOperandTypes);
  if (!bType.ok())
    return bType.status();
  g.bType = *bType;
  auto dType = readChoice(value, path, "d_type", "output type", kOutputTypes);
  if (!dType.ok())
    return dType.status();
  g.dType = *dType;
  auto aMode =
      readChoice(value, path, "a_scale_mode", "scale mode", kScaleModes);
  if (!aMode.ok())
    return aMode.status();
  g.aScaleMode = *aMode;
  auto bMode =
      readChoice(value, path, "b_scale_mode", "scale mode", kScaleModes);
  if (!bMode.ok())
    return bMode.status();
  g.bScaleMode = *bMode;
  auto epilogue = readChoice(value, path, "epilogue", "epilogue", kEpilogues);
  if (!epilogue.ok())
    return epilogue.status();
  g.epilogue = *epilogue;
  if (g.epilogue != GemmEpilogue::Default || value.find("bias_type")) {
    auto biasType =
        readChoice(value, path, "bias_type", "bias type", kOutputTypes);
    if (!biasType.ok())
      return biasType.status();
    g.biasType = *biasType;
  }
  auto alpha = readChoice(value, path, "alpha", "alpha mode", kAlphaModes);
  if (!alpha.ok())
    return alpha.status();
  g.alphaOnDevice = *alpha;
  auto compute =
      readChoice(value, path, "compute_type", "compute type", kComputeTypes);
  if (!compute.ok())
    return compute.status();
  g.fastTf32 = *compute;
  if (const JsonValue *algo = value.find("algo")) {
    g.hasAlgo = true;
    TEQ_RETURN_IF_ERROR(parseGemmAlgo(*algo, child(path, "algo"), g.algo));
  }
  return checkGemm(g, path);
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

  if (const JsonValue *kernels = root.find("dependent_launch_kernels")) {
    if (!kernels->isArray())
      return typeError("dependent_launch_kernels", "an array", *kernels);
    for (size_t i = 0; i < kernels->asArray().size(); ++i) {
      const JsonValue &kernel = kernels->asArray()[i];
      const std::string at = element("dependent_launch_kernels", i);
      if (!kernel.isString())
        return typeError(at, "a kernel name (a string)", kernel);
      if (kernel.asString().empty())
        return errorAt(at, "empty kernel name");
      manifest.dependentLaunchKernels.insert(kernel.asString());
    }
  }

  if (const JsonValue *gemms = root.find("gemms")) {
    if (!gemms->isArray())
      return typeError("gemms", "an array", *gemms);
    for (size_t i = 0; i < gemms->asArray().size(); ++i) {
      GemmSpec gemm;
      TEQ_RETURN_IF_ERROR(
          parseGemm(gemms->asArray()[i], element("gemms", i), i, gemm));
      manifest.gemms.push_back(std::move(gemm));
    }
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

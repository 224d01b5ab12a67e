//===- Manifest.cpp - The artifact manifest: types and reader -------------===//
//
// The manifest's types and parseManifest with its validation
// (ManifestWriter.cpp writes it).
//
//===----------------------------------------------------------------------===//

#include "teq/Artifact/Manifest.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace mlir::teq::artifact {

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

layout::TensorDesc ProtoSpec::tensorDesc() const {
  layout::TensorDesc desc;
  desc.shape = shape;
  desc.format = quantizer.format();
  desc.dataEncoding = quantizer.kind == QuantizerKind::NVFP4
                          ? layout::Encoding::E2M1x2
                          : quantizer.fp8Dtype;
  desc.usage = (hasRowwise() ? layout::UsageRowwise : 0u) |
               (hasColumnwise() ? layout::UsageColumnwise : 0u);
  desc.scaleLayout = scaleLayout == "gemm_swizzled"
                         ? layout::ScaleLayout::GemmSwizzled
                         : layout::ScaleLayout::Compact;
  desc.rowScaledNVFP4 = quantizer.rowScaledNVFP4;
  return desc;
}

BufferSpec BufferSpec::fromLayout(const layout::BufferDesc &desc) {
  BufferSpec buffer;
  buffer.name = desc.name;
  buffer.encoding = layout::stringifyEncoding(desc.encoding);
  buffer.shape = desc.shape;
  buffer.validShape = desc.validShape;
  buffer.bytes = desc.sizeInBytes();
  buffer.transposed = desc.transposed;
  if (desc.scaleLayout)
    buffer.scaleLayout = *desc.scaleLayout == layout::ScaleLayout::GemmSwizzled
                             ? "gemm_swizzled"
                             : "compact";
  return buffer;
}

//===----------------------------------------------------------------------===//
// computed_by
//===----------------------------------------------------------------------===//

/// The ops by name (Elementwise is any arith.* / math.* op).
static const std::pair<ComputeOp, const char *> kComputeOps[] = {
    {ComputeOp::Quantize, "quantize"},
    {ComputeOp::RecordAmax, "record_amax"},
    {ComputeOp::DelayedScalingUpdate, "delayed_scaling_update"},
    {ComputeOp::Gemm, "gemm"},
    {ComputeOp::BiasGrad, "bias_grad"},
    {ComputeOp::Copy, "copy"},
    {ComputeOp::UpdateUsage, "update_usage"},
    {ComputeOp::SwizzleScales, "swizzle_scales"},
    {ComputeOp::ExtractSlice, "tensor.extract_slice"},
    {ComputeOp::InsertSlice, "tensor.insert_slice"},
    {ComputeOp::Constant, "constant"},
    {ComputeOp::AllGather, "all_gather"},
    {ComputeOp::ReduceScatter, "reduce_scatter"},
    {ComputeOp::AllReduce, "all_reduce"}};

std::string ComputedBy::opName() const {
  if (op == ComputeOp::Elementwise)
    return elementwiseOp;
  for (const auto &[value, name] : kComputeOps)
    if (value == op)
      return name;
  return "unknown";
}

std::string ComputedBy::layoutName() const {
  return std::string(transa ? "T" : "N") + (transb ? "T" : "N");
}

std::vector<std::pair<std::string, std::string>>
ComputedBy::namedValues() const {
  std::vector<std::pair<std::string, std::string>> named;
  auto add = [&](const char *key, const std::string &name) {
    if (!name.empty())
      named.emplace_back(key, name);
  };
  add("input", input);
  for (size_t i = 0; i < inputs.size(); ++i)
    named.emplace_back("inputs[" + std::to_string(i) + "]", inputs[i]);
  add("dest", dest);
  add("scale", scale);
  add("amax_history", amaxHistory);
  add("rng_state", rngState);
  add("a", a);
  add("b", b);
  add("bias", bias);
  add("accumulate", accumulate);
  return named;
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

const ArgSpec *EntrySpec::findValue(std::string_view name) const {
  // A usage view ("view(x)") reads the buffers of what it views.
  while (name.size() > 6 && name.substr(0, 5) == "view(" && name.back() == ')')
    name = name.substr(5, name.size() - 6);
  if (const ArgSpec *arg = findArg(name))
    return arg;
  for (const ArgSpec &temporary : temporaries)
    if (temporary.name == name)
      return &temporary;
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

Status checkGemmForDevice(const GemmSpec &gemm, int sm) {
  const bool fp8 = isFp8(gemm.aType) || isFp8(gemm.bType);
  if (fp8 && !(gemm.transa && !gemm.transb) &&
      !layout::TargetCaps::fromSM(sm).nonTNFP8GemmSupported())
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

/// The most bytes a buffer, an entry's buffers together or a workspace may
/// have: 256 TiB, more than any GPU has, and far enough below 2^63 that sums
/// and products of sizes (bytesMoved(), te-run's allocations) cannot
/// overflow.
constexpr int64_t kMaxBytes = int64_t(1) << 48;

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

/// Names reach messages, dlsym and file names (te-run --outputs): no NUL or
/// other control characters.
Status checkName(const std::string &name, const std::string &path) {
  for (char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return errorAt(path, "contains a control character");
  return Status::success();
}

/// A required, non-empty name.
StatusOr<std::string> readName(const JsonValue &object, const std::string &path,
                               std::string_view key) {
  auto name = readString(object, path, key);
  if (!name.ok())
    return name.status();
  TEQ_RETURN_IF_ERROR(checkName(*name, child(path, key)));
  return name;
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
  if (value.isInteger())
    return value.asInteger();
  // Integral but past int64 (or past 2^53 written as a float): say so rather
  // than "got a number".
  if (value.isNumber() && std::isfinite(value.asNumber()) &&
      std::floor(value.asNumber()) == value.asNumber()) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.0f", value.asNumber());
    return errorAt(path, std::string("integer out of range: ") + text);
  }
  return typeError(path, "an integer", value);
}

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

/// Product of `shape` (1 for rank 0, a scalar), or -1 past 2^62.
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

/// The bytes of `shape` in elements of `elementBytes`, or an error at
/// `path` past kMaxBytes.
StatusOr<int64_t> bytesOf(const std::vector<int64_t> &shape,
                          int64_t elementBytes, const std::string &path) {
  int64_t elements = numElements(shape);
  if (elements < 0 || elements > kMaxBytes / elementBytes)
    return errorAt(path, formatShape(shape) +
                             " is too large: more than 2^48 bytes");
  return elements * elementBytes;
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

Status parseProto(const JsonValue &argValue, const JsonValue &value,
                  const std::string &argPath, const GpuTarget &target,
                  ArgSpec &arg) {
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

//===----------------------------------------------------------------------===//
// computed_by
//===----------------------------------------------------------------------===//

} // namespace

int elementwiseArity(const std::string &op) {
  for (const char *unary :
       {"arith.negf", "math.tanh", "math.exp", "math.erf", "math.absf",
        "arith.extf", "arith.truncf"})
    if (op == unary)
      return 1;
  for (const char *binary :
       {"arith.addf", "arith.subf", "arith.mulf", "arith.divf",
        "arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf"})
    if (op == binary)
      return 2;
  return 0; // Another arith/math op: te-run has no CPU version of it.
}

namespace {

/// The value name `by[key]` into `name` (left empty if absent and not
/// required).
Status readValueName(const JsonValue &by, const std::string &path,
                     const char *key, bool required, std::string &name) {
  const JsonValue *value = by.find(key);
  if (!value) {
    if (required)
      return errorAt(path, "missing \"" + std::string(key) + "\"");
    return Status::success();
  }
  const std::string at = child(path, key);
  if (!value->isString())
    return typeError(at, "the name of a value (a string)", *value);
  if (value->asString().empty())
    return errorAt(at, "must name a value");
  name = value->asString();
  return Status::success();
}

/// A parallel group's index ("group", "amax_group"): a non-negative
/// integer (ComputedByChecker checks it against the entry's groups).
Status readGroupIndex(const JsonValue &by, const std::string &path,
                      const char *key, int64_t &group) {
  auto index = readIntegerMember(by, path, key);
  if (!index.ok())
    return index.status();
  if (*index < 0)
    return errorAt(child(path, key), "must be the index of one of the "
                                     "entry's groups (>= 0)");
  group = *index;
  return Status::success();
}

/// A slice's "offsets", "sizes" and "strides": arrays of integers (their
/// rank is checked against the tensor they slice).
Status readSliceLists(const JsonValue &by, const std::string &path,
                      ComputedBy &c) {
  std::pair<const char *, std::vector<int64_t> *> lists[] = {
      {"offsets", &c.offsets}, {"sizes", &c.sizes}, {"strides", &c.strides}};
  for (auto &[key, list] : lists) {
    auto value = member(by, path, key);
    if (!value.ok())
      return value.status();
    const std::string at = child(path, key);
    if (!(*value)->isArray())
      return typeError(at, "an array of integers", **value);
    for (size_t d = 0; d < (*value)->asArray().size(); ++d) {
      auto x = readInteger((*value)->asArray()[d], element(at, d));
      if (!x.ok())
        return x.status();
      list->push_back(*x);
    }
  }
  return Status::success();
}

/// Reads a computed_by: its op and the keys that op takes, typed (the
/// values it names are checked by ComputedByChecker, which sees the whole
/// entry).
StatusOr<ComputedBy> parseComputedBy(const JsonValue &by,
                                     const std::string &path) {
  if (!by.isObject())
    return typeError(path, "an object", by);
  auto opName = readString(by, path, "op");
  if (!opName.ok())
    return opName.status();
  ComputedBy c;
  const std::string &op = *opName;
  bool known = false;
  for (const auto &[value, name] : kComputeOps)
    if (op == name) {
      c.op = value;
      known = true;
    }
  if (!known && (op.rfind("arith.", 0) == 0 || op.rfind("math.", 0) == 0)) {
    c.op = ComputeOp::Elementwise;
    c.elementwiseOp = op;
    known = true;
  }
  if (!known)
    return errorAt(child(path, "op"),
                   "unknown op \"" + op +
                       "\" (expected quantize, record_amax, "
                       "delayed_scaling_update, gemm, bias_grad, copy, "
                       "update_usage, swizzle_scales, tensor.extract_slice, "
                       "tensor.insert_slice, constant, all_gather, "
                       "reduce_scatter, all_reduce or an arith/math "
                       "elementwise op)");

  switch (c.op) {
  case ComputeOp::Quantize:
  case ComputeOp::RecordAmax:
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "input", true, c.input));
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "scale", false, c.scale));
    TEQ_RETURN_IF_ERROR(
        readValueName(by, path, "amax_history", false, c.amaxHistory));
    TEQ_RETURN_IF_ERROR(
        readValueName(by, path, "rng_state", false, c.rngState));
    if (c.op == ComputeOp::Quantize && by.find("amax_group"))
      TEQ_RETURN_IF_ERROR(readGroupIndex(by, path, "amax_group", c.group));
    return c;
  case ComputeOp::AllGather:
  case ComputeOp::ReduceScatter:
  case ComputeOp::AllReduce:
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "input", true, c.input));
    TEQ_RETURN_IF_ERROR(readGroupIndex(by, path, "group", c.group));
    return c;
  case ComputeOp::DelayedScalingUpdate: {
    static const Choice<bool> kOutputs[] = {{"scale", true},
                                            {"amax_history", false}};
    static const Choice<bool> kAlgos[] = {{"max", false},
                                          {"most_recent", true}};
    auto outputsScale = readChoice(by, path, "output", "output", kOutputs);
    if (!outputsScale.ok())
      return outputsScale.status();
    c.outputsScale = *outputsScale;
    auto mostRecent = readChoice(by, path, "amax_compute_algo",
                                 "amax_compute_algo", kAlgos);
    if (!mostRecent.ok())
      return mostRecent.status();
    c.mostRecentAmax = *mostRecent;
    auto fp8Max = member(by, path, "fp8_max");
    if (!fp8Max.ok())
      return fp8Max.status();
    if (!(*fp8Max)->isNumber())
      return typeError(child(path, "fp8_max"), "a number", **fp8Max);
    if (!std::isfinite((*fp8Max)->asNumber()) || (*fp8Max)->asNumber() <= 0)
      return errorAt(child(path, "fp8_max"), "must be a finite number > 0");
    c.fp8Max = (*fp8Max)->asNumber();
    // TEQ bounds the margin to [-100, 100], where fp8_max * 2^-margin stays
    // a normal float (the DelayedScaling recipe's verifier).
    auto margin = readIntegerMember(by, path, "margin");
    if (!margin.ok())
      return margin.status();
    if (*margin < -100 || *margin > 100)
      return errorAt(child(path, "margin"),
                     std::to_string(*margin) + " is outside [-100, 100]");
    c.margin = *margin;
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "scale", true, c.scale));
    TEQ_RETURN_IF_ERROR(
        readValueName(by, path, "amax_history", true, c.amaxHistory));
    if (by.find("amax_group"))
      TEQ_RETURN_IF_ERROR(readGroupIndex(by, path, "amax_group", c.group));
    return c;
  }
  case ComputeOp::Gemm: {
    auto id = readIntegerMember(by, path, "gemm");
    if (!id.ok())
      return id.status();
    c.gemm = *id;
    static const Choice<bool> kOutputs[] = {{"d", true}, {"dbias", false}};
    auto outputsD = readChoice(by, path, "output", "GEMM output", kOutputs);
    if (!outputsD.ok())
      return outputsD.status();
    c.outputsD = *outputsD;
    auto layoutName = readString(by, path, "layout");
    if (!layoutName.ok())
      return layoutName.status();
    if (layoutName->size() != 2 ||
        layoutName->find_first_not_of("NT") != std::string::npos)
      return errorAt(child(path, "layout"),
                     "invalid layout \"" + *layoutName +
                         "\" (expected TN, NN, NT or TT)");
    c.transa = (*layoutName)[0] == 'T';
    c.transb = (*layoutName)[1] == 'T';
    auto split = readOptionalBool(by, path, "use_split_accumulator", false);
    if (!split.ok())
      return split.status();
    c.useSplitAccumulator = *split;
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "a", true, c.a));
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "b", true, c.b));
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "bias", false, c.bias));
    TEQ_RETURN_IF_ERROR(
        readValueName(by, path, "accumulate", false, c.accumulate));
    return c;
  }
  case ComputeOp::BiasGrad:
  case ComputeOp::Copy:
  case ComputeOp::UpdateUsage:
  case ComputeOp::SwizzleScales:
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "input", true, c.input));
    return c;
  case ComputeOp::ExtractSlice:
  case ComputeOp::InsertSlice:
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "input", true, c.input));
    if (c.op == ComputeOp::InsertSlice)
      TEQ_RETURN_IF_ERROR(readValueName(by, path, "dest", true, c.dest));
    TEQ_RETURN_IF_ERROR(readSliceLists(by, path, c));
    return c;
  case ComputeOp::Constant: {
    auto value = member(by, path, "value");
    if (!value.ok())
      return value.status();
    if (!(*value)->isNumber())
      return typeError(child(path, "value"), "a number", **value);
    if (!std::isfinite((*value)->asNumber()))
      return errorAt(child(path, "value"), "must be a finite number");
    c.value = (*value)->asNumber();
    return c;
  }
  case ComputeOp::Elementwise: {
    auto inputs = member(by, path, "inputs");
    if (!inputs.ok())
      return inputs.status();
    const std::string at = child(path, "inputs");
    if (!(*inputs)->isArray() || (*inputs)->asArray().empty())
      return errorAt(at, "expected a non-empty array of value names");
    const size_t count = (*inputs)->asArray().size();
    if (int arity = elementwiseArity(op); arity && count != size_t(arity))
      return errorAt(at, op + " takes " + std::to_string(arity) +
                             " inputs, got " + std::to_string(count));
    for (size_t i = 0; i < count; ++i) {
      const JsonValue &name = (*inputs)->asArray()[i];
      if (!name.isString())
        return typeError(element(at, i), "the name of a value (a string)",
                         name);
      if (name.asString().empty())
        return errorAt(element(at, i), "must name a value");
      c.inputs.push_back(name.asString());
    }
    return c;
  }
  }
  return c;
}

//===----------------------------------------------------------------------===//
// Arguments and entries
//===----------------------------------------------------------------------===//

Status parseArg(const JsonValue &value, const std::string &path,
                const GpuTarget &target, ArgSpec &arg,
                bool temporary = false) {
  if (!value.isObject())
    return typeError(path, "an object", value);
  auto name = readName(value, path, "name");
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
    TEQ_RETURN_IF_ERROR(parseProto(value, *proto, path, target, arg));
  }

  if (const JsonValue *computedBy = value.find("computed_by")) {
    auto parsed = parseComputedBy(*computedBy, child(path, "computed_by"));
    if (!parsed.ok())
      return parsed.status();
    arg.computedBy = std::move(*parsed);
  }
  auto inRegisters = readOptionalBool(value, path, "in_registers", false);
  if (!inRegisters.ok())
    return inRegisters.status();
  arg.inRegisters = *inRegisters;
  if (arg.inRegisters && (!temporary || arg.isProto))
    return errorAt(child(path, "in_registers"),
                   "only a tensor temporary lives in registers");
  if (const JsonValue *placement = value.find("placement")) {
    // Its structure here; what it names, parseEntry checks.
    const std::string placementPath = child(path, "placement");
    if (!temporary || arg.inRegisters)
      return errorAt(placementPath, temporary
                                        ? "a temporary in registers has no "
                                          "placement"
                                        : "only a temporary has a placement");
    if (!placement->isArray())
      return typeError(placementPath, "an array", *placement);
    if (placement->asArray().size() != arg.buffers.size())
      return errorAt(placementPath,
                     "has " + std::to_string(placement->asArray().size()) +
                         " items, but the temporary has " +
                         std::to_string(arg.buffers.size()) + " buffers");
    for (size_t i = 0; i < placement->asArray().size(); ++i) {
      const JsonValue &item = placement->asArray()[i];
      const std::string itemPath = element(placementPath, i);
      if (!item.isObject())
        return typeError(itemPath, "an object", item);
      using Where = BufferPlacement::Where;
      BufferPlacement at;
      auto in = readString(item, itemPath, "in");
      if (!in.ok())
        return in.status();
      if (*in == "workspace")
        at.in = Where::Workspace;
      else if (*in == "output")
        at.in = Where::Output;
      else if (*in == "input")
        at.in = Where::Input;
      else
        return errorAt(child(itemPath, "in"),
                       "unknown place \"" + *in +
                           "\" (expected workspace, output or input)");
      if (at.in != Where::Input) {
        auto offset = readIntegerMember(item, itemPath, "offset");
        if (!offset.ok())
          return offset.status();
        if (*offset < 0 || *offset % 256 != 0)
          return errorAt(child(itemPath, "offset"),
                         "must be a multiple of 256 (>= 0), got " +
                             std::to_string(*offset));
        at.offset = *offset;
      }
      if (at.in == Where::Output) {
        auto output = readName(item, itemPath, "output");
        if (!output.ok())
          return output.status();
        at.output = *output;
        auto buffer = readIntegerMember(item, itemPath, "buffer");
        if (!buffer.ok())
          return buffer.status();
        if (*buffer < 0)
          return errorAt(child(itemPath, "buffer"), "must be >= 0");
        at.buffer = static_cast<size_t>(*buffer);
      }
      arg.placement.push_back(std::move(at));
    }
  }
  return Status::success();
}

/// A temporary's placement against its entry: each buffer inside the
/// workspace or inside a buffer of an output, or (a swizzle_scales
/// temporary's non-scale buffers) its input's.
Status checkPlacement(const EntrySpec &entry, const ArgSpec &temporary,
                      const std::vector<layout::BufferDesc> &layout,
                      const std::string &path) {
  for (size_t b = 0; b < temporary.placement.size(); ++b) {
    const BufferPlacement &at = temporary.placement[b];
    const std::string itemPath = element(child(path, "placement"), b);
    const int64_t bytes = temporary.buffers[b].bytes;
    if (at.in == BufferPlacement::Where::Input) {
      bool swizzled = temporary.computedBy &&
                      temporary.computedBy->op == ComputeOp::SwizzleScales &&
                      b < layout.size() &&
                      layout[b].role != layout::BufferRole::ScaleInv;
      if (!swizzled)
        return errorAt(itemPath, "only a swizzle_scales temporary's data "
                                 "buffers are their input's (\"in\": "
                                 "\"input\")");
      continue;
    }
    int64_t room = entry.workspaceBytes;
    std::string where = "the entry's workspace_bytes";
    if (at.in == BufferPlacement::Where::Output) {
      const ArgSpec *output = entry.findArg(at.output);
      if (!output || output->kind != ArgKind::Output)
        return errorAt(child(itemPath, "output"),
                       "'" + at.output + "' is not an output of the entry");
      if (at.buffer >= output->buffers.size())
        return errorAt(child(itemPath, "buffer"),
                       "output '" + at.output + "' has " +
                           std::to_string(output->buffers.size()) +
                           " buffers, got buffer " + std::to_string(at.buffer));
      room = output->buffers[at.buffer].bytes;
      where = "output '" + at.output + "' buffer " +
              std::to_string(at.buffer) + " ('" +
              output->buffers[at.buffer].name + "')";
    }
    if (at.offset + bytes > room)
      return errorAt(itemPath, "temporary '" + temporary.name + "' buffer " +
                                   std::to_string(b) + " (" +
                                   std::to_string(bytes) + " bytes at " +
                                   std::to_string(at.offset) +
                                   ") does not fit " + where + " (" +
                                   std::to_string(room) + " bytes)");
  }
  return Status::success();
}

Status parseEntry(const JsonValue &value, const std::string &path,
                  const GpuTarget &target, EntrySpec &entry) {
  if (!value.isObject())
    return typeError(path, "an object", value);
  auto name = readName(value, path, "name");
  if (!name.ok())
    return name.status();
  entry.name = *name;
  if (value.find("symbol")) {
    auto symbol = readName(value, path, "symbol");
    if (!symbol.ok())
      return symbol.status();
    entry.symbol = *symbol;
  } else {
    entry.symbol = "teq_entry_" + entry.name;
  }
  if (const JsonValue *workspace = value.find("workspace_bytes")) {
    const std::string at = child(path, "workspace_bytes");
    auto bytes = readInteger(*workspace, at);
    if (!bytes.ok())
      return bytes.status();
    if (*bytes < 0)
      return errorAt(at, "negative size " + std::to_string(*bytes));
    if (*bytes > kMaxBytes)
      return errorAt(at, std::to_string(*bytes) +
                             " bytes is more than a workspace can have "
                             "(2^48)");
    entry.workspaceBytes = *bytes;
  }
  if (const JsonValue *groups = value.find("groups")) {
    const std::string groupsPath = child(path, "groups");
    if (!groups->isArray())
      return typeError(groupsPath, "an array", *groups);
    for (size_t i = 0; i < groups->asArray().size(); ++i) {
      const JsonValue &item = groups->asArray()[i];
      const std::string groupPath = element(groupsPath, i);
      if (!item.isObject())
        return typeError(groupPath, "an object", item);
      GroupSpec group;
      auto groupName = readName(item, groupPath, "name");
      if (!groupName.ok())
        return groupName.status();
      group.name = *groupName;
      auto size = readIntegerMember(item, groupPath, "size");
      if (!size.ok())
        return size.status();
      // 0: any size (a group the entry only reduces amaxes over).
      if (*size < 0 || *size > (int64_t(1) << 30))
        return errorAt(child(groupPath, "size"),
                       "a group has 1 to 2^30 ranks (0: any), got " +
                           std::to_string(*size));
      group.size = *size;
      for (const GroupSpec &other : entry.groups)
        if (other.name == group.name)
          return errorAt(child(groupPath, "name"),
                         "group \"" + group.name + "\" is listed twice");
      entry.groups.push_back(std::move(group));
    }
  }
  auto args = member(value, path, "args");
  if (!args.ok())
    return args.status();
  const std::string argsPath = child(path, "args");
  if (!(*args)->isArray())
    return typeError(argsPath, "an array", **args);
  std::set<std::string> names;
  int64_t totalBytes = 0;
  for (size_t i = 0; i < (*args)->asArray().size(); ++i) {
    ArgSpec arg;
    const std::string argPath = element(argsPath, i);
    TEQ_RETURN_IF_ERROR(
        parseArg((*args)->asArray()[i], argPath, target, arg));
    if (!names.insert(arg.name).second)
      return errorAt(child(argPath, "name"),
                     "duplicate argument name \"" + arg.name + "\"");
    // Each argument is at most kMaxBytes, so the sum cannot overflow before
    // it passes the limit.
    totalBytes += arg.totalBytes();
    if (totalBytes > kMaxBytes)
      return errorAt(argsPath, "the arguments' buffers add up to more than "
                               "2^48 bytes");
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
                                   target, temporary, /*temporary=*/true));
      if (!names.insert(temporary.name).second)
        return errorAt(child(temporaryPath, "name"),
                       "duplicate name \"" + temporary.name +
                           "\" (arguments and temporaries share names)");
      // A placed temporary: each buffer where the placement says.
      if (!temporary.placement.empty()) {
        std::vector<layout::BufferDesc> layout;
        if (temporary.isProto)
          layout = layout::describeBuffers(temporary.proto.tensorDesc(),
                                           target.caps());
        TEQ_RETURN_IF_ERROR(
            checkPlacement(entry, temporary, layout, temporaryPath));
        entry.temporaries.push_back(std::move(temporary));
        continue;
      }
      // Otherwise temporaries live in the workspace (several at once, at
      // offsets the compiler chose): each one must fit it. A swizzle_scales
      // temporary owns only its scales; its other buffers are its input's.
      int64_t bytes = temporary.inRegisters ? 0 : temporary.totalBytes();
      if (temporary.isProto && temporary.computedBy &&
          temporary.computedBy->op == ComputeOp::SwizzleScales) {
        bytes = 0;
        std::vector<layout::BufferDesc> layout = layout::describeBuffers(
            temporary.proto.tensorDesc(), target.caps());
        for (size_t b = 0; b < layout.size(); ++b)
          if (layout[b].role == layout::BufferRole::ScaleInv)
            bytes += temporary.buffers[b].bytes;
      }
      if (bytes > entry.workspaceBytes)
        return errorAt(temporaryPath,
                       "temporary '" + temporary.name + "' has " +
                           std::to_string(bytes) +
                           " bytes, but the entry's workspace_bytes is " +
                           std::to_string(entry.workspaceBytes));
      entry.temporaries.push_back(std::move(temporary));
    }
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// GEMMs
//===----------------------------------------------------------------------===//

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
  auto name = readName(value, path, "name");
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


//===----------------------------------------------------------------------===//
// What computed_by names
//===----------------------------------------------------------------------===//

const std::vector<int64_t> &shapeOf(const ArgSpec &value) {
  return value.isProto ? value.proto.shape : value.tensor.shape;
}

const std::string &dtypeOf(const ArgSpec &value) {
  return value.isProto ? value.proto.dtype : value.tensor.dtype;
}

/// "'x' (bf16[128, 256])", "'q' (bf16[128, 256] quantized by mxfp8)".
std::string describeValue(const ArgSpec &value) {
  std::string text = "'" + value.name + "' (" + dtypeOf(value) +
                     formatShape(shapeOf(value));
  if (value.isProto)
    text += std::string(" quantized by ") + value.proto.quantizerKind();
  return text + ")";
}


/// Checks the computed_by of every output and temporary of one entry: the
/// values and GEMMs it names exist, have the types and shapes the op needs,
/// and no value is computed from itself. te-run --check evaluates these
/// descriptions on the CPU, so they must describe a program it can run
/// without reading out of bounds.
class ComputedByChecker {
public:
  ComputedByChecker(const Manifest &manifest, const EntrySpec &entry,
                    const std::string &entryPath)
      : manifest(manifest), entry(entry), entryPath(entryPath) {}

  Status run() {
    for (size_t i = 0; i < entry.args.size(); ++i)
      values[entry.args[i].name] = {&entry.args[i],
                                    element(child(entryPath, "args"), i)};
    for (size_t i = 0; i < entry.temporaries.size(); ++i)
      values[entry.temporaries[i].name] = {
          &entry.temporaries[i], element(child(entryPath, "temporaries"), i)};
    // In manifest order, so that the first error is the first in the file.
    for (const std::vector<ArgSpec> *list : {&entry.args, &entry.temporaries})
      for (const ArgSpec &value : *list)
        if (value.computedBy)
          TEQ_RETURN_IF_ERROR(check(value, values[value.name].path));
    return checkCycles();
  }

private:
  struct Value {
    const ArgSpec *spec = nullptr;
    std::string path;
  };

  /// The value `name` (at `key` of the computed_by at `path`) names ("x"
  /// or "view(x)"); nullptr if `name` is empty (an absent optional key:
  /// parseComputedBy checked the required ones).
  StatusOr<const ArgSpec *> reference(const ArgSpec &value,
                                      const std::string &name,
                                      const std::string &path,
                                      const char *key) {
    if (name.empty())
      return static_cast<const ArgSpec *>(nullptr);
    return resolve(value, name, child(path, key));
  }

  StatusOr<const ArgSpec *> resolve(const ArgSpec &value,
                                    const std::string &name,
                                    const std::string &at) {
    // A usage view ("view(x)") reads the buffers of what it views.
    std::string_view target = name;
    while (target.size() > 6 && target.substr(0, 5) == "view(" &&
           target.back() == ')')
      target = target.substr(5, target.size() - 6);
    auto found = values.find(std::string(target));
    if (found == values.end())
      return errorAt(at, "names '" + std::string(target) +
                             "', which is neither an argument nor a "
                             "temporary of entry '" +
                             entry.name + "'");
    const ArgSpec *named = found->second.spec;
    if (named == &value)
      return errorAt(at, "names '" + value.name + "' itself");
    dependencies[value.name].push_back(named->name);
    return named;
  }

  /// An error unless `named` is a tensor (of `dtype`, if given).
  Status needTensor(const ArgSpec &named, const std::string &at,
                    const char *dtype = nullptr) {
    if (named.isProto)
      return errorAt(at, describeValue(named) +
                             " is quantized; a tensor is needed here");
    if (dtype && named.tensor.dtype != dtype)
      return errorAt(at, describeValue(named) + " is not " + dtype);
    return Status::success();
  }

  static std::string shortest(double v) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.17g", v);
    return text;
  }

  /// Whether the finite `v` is exactly a value of `dtype` (f32, bf16, f16;
  /// other dtypes: any integer-valued v).
  static bool exactIn(const std::string &dtype, double v) {
    if (v == 0.0)
      return true;
    auto fits = [&](int mantissaBits, int minExponent, int maxExponent) {
      int exponent = 0;
      std::frexp(v, &exponent); // |v| = m * 2^exponent, m in [0.5, 1)
      if (exponent - 1 > maxExponent)
        return false;
      // The value's last significant bit: 2^(exponent - 1 - mantissaBits),
      // or the smallest subnormal's.
      int lsb = std::max(exponent - 1, minExponent) - mantissaBits;
      double scaled = std::ldexp(v, -lsb);
      return scaled == std::nearbyint(scaled);
    };
    if (dtype == "f32")
      return fits(23, -126, 127);
    if (dtype == "bf16")
      return fits(7, -126, 127);
    if (dtype == "f16")
      return fits(10, -14, 15);
    return v == std::nearbyint(v);
  }

  Status needElements(const ArgSpec &named, int64_t elements,
                      const std::string &at, const std::string &why) {
    int64_t have = numElements(shapeOf(named));
    if (have != elements)
      return errorAt(at, describeValue(named) + " has " +
                             std::to_string(have) + " elements, " + why +
                             " needs " + std::to_string(elements));
    return Status::success();
  }

  Status check(const ArgSpec &value, const std::string &valuePath) {
    const std::string path = child(valuePath, "computed_by");
    const ComputedBy &by = *value.computedBy;
    // A value in registers exists only inside a fused elementwise kernel.
    if (value.inRegisters && by.op != ComputeOp::Elementwise &&
        by.op != ComputeOp::Constant)
      return errorAt(child(valuePath, "in_registers"),
                     "a value in registers is computed inside a fused "
                     "elementwise kernel, but " + by.opName() +
                         " writes its result to memory");
    switch (by.op) {
    case ComputeOp::Quantize:
    case ComputeOp::RecordAmax:
      return checkQuantize(value, by, path, by.op == ComputeOp::RecordAmax);
    case ComputeOp::DelayedScalingUpdate:
      return checkDelayedScalingUpdate(value, by, path);
    case ComputeOp::Gemm:
      return checkGemmProduct(value, by, path);
    case ComputeOp::BiasGrad:
      return checkBiasGrad(value, by, path);
    case ComputeOp::Copy:
    case ComputeOp::UpdateUsage:
    case ComputeOp::SwizzleScales:
      return checkCopy(value, by, path);
    case ComputeOp::ExtractSlice:
    case ComputeOp::InsertSlice:
      return checkSlice(value, by, path, by.op == ComputeOp::InsertSlice);
    case ComputeOp::Elementwise:
      return checkElementwise(value, by, path);
    case ComputeOp::Constant:
      TEQ_RETURN_IF_ERROR(needTensor(value, path));
      if (!exactIn(value.tensor.dtype, by.value))
        return errorAt(child(path, "value"),
                       shortest(by.value) + " is not exactly a " +
                           value.tensor.dtype + " value (a constant is "
                           "every element, exactly)");
      return Status::success();
    case ComputeOp::AllGather:
    case ComputeOp::ReduceScatter:
    case ComputeOp::AllReduce:
      return checkCollective(value, by, path);
    }
    return Status::success();
  }

  /// The group at `key` of a computed_by is one of the entry's; returns
  /// its size.
  StatusOr<int64_t> groupSize(int64_t group, const std::string &at) {
    if (group < 0 || group >= static_cast<int64_t>(entry.groups.size()))
      return errorAt(at, "group " + std::to_string(group) +
                             " is out of range: entry '" + entry.name +
                             "' has " + std::to_string(entry.groups.size()) +
                             (entry.groups.size() == 1 ? " group" : " groups"));
    return entry.groups[group].size;
  }

  /// all_gather / reduce_scatter (dim 0 grows / shrinks by the group's
  /// size) and all_reduce (same shape); reductions of tensors only,
  /// gathers of tensors or per-tensor FP8.
  Status checkCollective(const ArgSpec &value, const ComputedBy &by,
                         const std::string &path) {
    auto size = groupSize(by.group, child(path, "group"));
    if (!size.ok())
      return size.status();
    if (*size == 0)
      return errorAt(child(path, "group"),
                     "group \"" + entry.groups[by.group].name +
                         "\" has no size (0: it only reduces amaxes), but " +
                         by.opName() + " shapes its result by it");
    auto input = reference(value, by.input, path, "input");
    if (!input.ok())
      return input.status();
    const ArgSpec &in = **input;
    const std::string at = child(path, "input");
    if (by.op != ComputeOp::AllGather || !in.isProto)
      TEQ_RETURN_IF_ERROR(needTensor(in, at));
    std::vector<int64_t> expected = shapeOf(in);
    if (by.op != ComputeOp::AllReduce) {
      if (expected.empty())
        return errorAt(at,
                       describeValue(in) + " has no dim 0 to " + by.opName());
      if (by.op == ComputeOp::AllGather)
        expected[0] *= *size;
      else if (expected[0] % *size != 0)
        return errorAt(at, describeValue(in) + ": dim 0 is not a multiple " +
                               "of the group's " + std::to_string(*size) +
                               " ranks");
      else
        expected[0] /= *size;
    }
    if (in.isProto != value.isProto || dtypeOf(in) != dtypeOf(value) ||
        shapeOf(value) != expected ||
        (value.isProto &&
         value.proto.quantizer.kind != in.proto.quantizer.kind))
      return errorAt(at, describeValue(in) + " cannot become " +
                             describeValue(value) + " by " + by.opName() +
                             " over " + std::to_string(*size) + " ranks");
    return Status::success();
  }

  Status checkQuantize(const ArgSpec &value, const ComputedBy &by,
                       const std::string &path, bool recordAmax) {
    auto input = reference(value, by.input, path, "input");
    if (!input.ok())
      return input.status();
    TEQ_RETURN_IF_ERROR(needTensor(**input, child(path, "input")));
    auto scale = reference(value, by.scale, path, "scale");
    if (!scale.ok())
      return scale.status();
    auto history =
        reference(value, by.amaxHistory, path, "amax_history");
    if (!history.ok())
      return history.status();
    if (!*scale != !*history)
      return errorAt(path, "names one of \"scale\" and \"amax_history\" "
                           "without the other");
    if (by.group >= 0) {
      auto size = groupSize(by.group, child(path, "amax_group"));
      if (!size.ok())
        return size.status();
    }
    for (auto [named, key] : {std::pair{*scale, "scale"},
                              std::pair{*history, "amax_history"}}) {
      if (!named)
        continue;
      TEQ_RETURN_IF_ERROR(needTensor(*named, child(path, key), "f32"));
      if (numElements(shapeOf(*named)) < 1)
        return errorAt(child(path, key), describeValue(*named) + " is empty");
    }
    // A per-tensor quantization has one scale (a slot of the recipe state).
    if (*scale)
      TEQ_RETURN_IF_ERROR(needElements(**scale, 1, child(path, "scale"),
                                       "the scale of a per-tensor "
                                       "quantization"));
    auto rng = reference(value, by.rngState, path, "rng_state");
    if (!rng.ok())
      return rng.status();

    if (recordAmax) {
      // history[0] = max(history[0], amax(input)): an f32 history.
      TEQ_RETURN_IF_ERROR(needTensor(value, path, "f32"));
      if (!*history)
        return errorAt(path, "missing \"amax_history\"");
      return needElements(**history, numElements(shapeOf(value)),
                          child(path, "amax_history"),
                          "'" + value.name + "'");
    }
    if (!value.isProto)
      return errorAt(path, "quantize writes a quantized tensor, but " +
                               describeValue(value) + " is not one");
    if ((*input)->tensor.dtype != value.proto.dtype ||
        (*input)->tensor.shape != value.proto.shape)
      return errorAt(child(path, "input"),
                     describeValue(**input) + " differs in dtype or shape "
                                              "from " +
                         describeValue(value));
    // Delayed scaling reads the stored scale (and records the amax);
    // stochastic rounding reads its (seed, offset).
    const QuantizerDesc &quantizer = value.proto.quantizer;
    const bool delayed = quantizer.kind == QuantizerKind::Float8Delayed;
    if (delayed != (*scale != nullptr))
      return errorAt(path, delayed ? "a float8_delayed quantization names "
                                     "its \"scale\" and \"amax_history\""
                                   : "only a float8_delayed quantization "
                                     "names a \"scale\"");
    const bool stochastic =
        quantizer.kind == QuantizerKind::NVFP4 && quantizer.stochasticRounding;
    if (stochastic != (*rng != nullptr))
      return errorAt(path, stochastic
                               ? "a stochastically rounded quantization "
                                 "names its \"rng_state\""
                               : "only a stochastically rounded NVFP4 "
                                 "quantization names an \"rng_state\"");
    if (*rng && ((*rng)->kind != ArgKind::Input ||
                 (*rng)->tensor.dtype != "i64"))
      return errorAt(child(path, "rng_state"),
                     describeValue(**rng) + " is not an i64[2] input "
                                            "argument");
    return Status::success();
  }

  Status checkDelayedScalingUpdate(const ArgSpec &value, const ComputedBy &by,
                                   const std::string &path) {
    auto scale = reference(value, by.scale, path, "scale");
    if (!scale.ok())
      return scale.status();
    auto history = reference(value, by.amaxHistory, path, "amax_history");
    if (!history.ok())
      return history.status();
    TEQ_RETURN_IF_ERROR(needTensor(**scale, child(path, "scale"), "f32"));
    TEQ_RETURN_IF_ERROR(
        needTensor(**history, child(path, "amax_history"), "f32"));
    TEQ_RETURN_IF_ERROR(needTensor(value, path, "f32"));
    if (by.group >= 0) {
      auto size = groupSize(by.group, child(path, "amax_group"));
      if (!size.ok())
        return size.status();
    }
    // One scale per slot; the history holds [length][slots].
    const int64_t slots = numElements(shapeOf(**scale));
    const int64_t entries = numElements(shapeOf(**history));
    if (slots < 1 || entries < slots || entries % slots != 0)
      return errorAt(child(path, "amax_history"),
                     describeValue(**history) + " is not a history of the " +
                         std::to_string(slots) + " slots of " +
                         describeValue(**scale));
    return needElements(value, by.outputsScale ? slots : entries, path,
                        std::string("the updated ") +
                            (by.outputsScale ? "scale" : "amax_history"));
  }

  Status checkGemmProduct(const ArgSpec &value, const ComputedBy &by,
                   const std::string &path) {
    if (by.gemm < 0 || by.gemm >= static_cast<int64_t>(manifest.gemms.size()))
      return errorAt(child(path, "gemm"),
                     "GEMM " + std::to_string(by.gemm) +
                         " does not exist (the artifact has " +
                         std::to_string(manifest.gemms.size()) +
                         (manifest.gemms.size() == 1 ? " GEMM)" : " GEMMs)"));
    const GemmSpec &gemm = manifest.gemms[static_cast<size_t>(by.gemm)];
    auto a = reference(value, by.a, path, "a");
    if (!a.ok())
      return a.status();
    auto b = reference(value, by.b, path, "b");
    if (!b.ok())
      return b.status();
    auto bias = reference(value, by.bias, path, "bias");
    if (!bias.ok())
      return bias.status();
    auto c = reference(value, by.accumulate, path, "accumulate");
    if (!c.ok())
      return c.status();
    TEQ_RETURN_IF_ERROR(needTensor(value, path));

    // TE's problem from the operands' logical shapes, flattened to 2D:
    // D [n, m] = op(B) [n, k] x op(A) [k, m].
    const bool transa = by.transa, transb = by.transb;
    const std::string layoutText = by.layoutName();
    const layout::Flat2D fa = layout::flatten2D(shapeOf(**a));
    const layout::Flat2D fb = layout::flatten2D(shapeOf(**b));
    const int64_t m = transa ? fa.m : fa.k, k = transa ? fa.k : fa.m;
    const int64_t n = transb ? fb.k : fb.m, kb = transb ? fb.m : fb.k;
    const std::string problem = "layout " + layoutText + ", A " +
                                describeValue(**a) + ", B " +
                                describeValue(**b);
    if (k != kb)
      return errorAt(path, "A and B do not multiply: A gives k = " +
                               std::to_string(k) + ", B " +
                               std::to_string(kb) + " (" + problem + ")");
    if (m != gemm.m || n != gemm.n || k != gemm.k)
      return errorAt(child(path, "gemm"),
                     "the operands make an m=" + std::to_string(m) +
                         " n=" + std::to_string(n) + " k=" +
                         std::to_string(k) + " product (" + problem +
                         "), but " + gemm.describe() + " is " +
                         gemm.describeProblem());
    for (auto [operand, type, key] :
         {std::tuple{*a, gemm.aType, "a"}, std::tuple{*b, gemm.bType, "b"}}) {
      const std::string want = stringifyGemmType(type);
      const std::string have = operand->isProto
                                   ? operand->proto.quantizer.dataTypeName()
                                   : operand->tensor.dtype;
      if (have != want)
        return errorAt(child(path, key),
                       describeValue(*operand) + " holds " + have + ", but " +
                           gemm.describe() + " reads " + want);
    }

    if (!by.outputsD) {
      // BGRADB writes the column sums of B: n elements of the bias type.
      if (gemm.epilogue != GemmEpilogue::BGradB)
        return errorAt(child(path, "output"),
                       "names the dbias of " + gemm.describe() +
                           ", whose epilogue is " +
                           stringifyGemmEpilogue(gemm.epilogue));
      TEQ_RETURN_IF_ERROR(
          needTensor(value, path, stringifyGemmType(gemm.biasType)));
      return needElements(value, n, path, "the dbias of " + gemm.describe());
    }
    TEQ_RETURN_IF_ERROR(needTensor(value, path, stringifyGemmType(gemm.dType)));
    const layout::Flat2D fd = layout::flatten2D(shapeOf(value));
    if (fd.m != n || fd.k != m)
      return errorAt(path, describeValue(value) +
                               " is not the [" + std::to_string(n) + ", " +
                               std::to_string(m) + "] D of " +
                               gemm.describe() + " (" + problem + ")");
    if ((*bias != nullptr) != (gemm.epilogue == GemmEpilogue::Bias))
      return errorAt(path, *bias ? "names a \"bias\", but " + gemm.describe() +
                                       " has no bias epilogue"
                                 : gemm.describe() + " adds a bias, but "
                                                     "computed_by names none");
    if (*bias) {
      TEQ_RETURN_IF_ERROR(needTensor(**bias, child(path, "bias"),
                                     stringifyGemmType(gemm.biasType)));
      TEQ_RETURN_IF_ERROR(needElements(**bias, m, child(path, "bias"),
                                       "the bias of " + gemm.describe()));
    }
    if ((*c != nullptr) != gemm.accumulate)
      return errorAt(path, *c ? "names \"accumulate\", but " +
                                    gemm.describe() + " does not accumulate"
                              : gemm.describe() + " accumulates, but "
                                                  "computed_by names no C");
    if (*c) {
      TEQ_RETURN_IF_ERROR(needTensor(**c, child(path, "accumulate"),
                                     stringifyGemmType(gemm.dType)));
      TEQ_RETURN_IF_ERROR(needElements(**c, n * m, child(path, "accumulate"),
                                       "the C of " + gemm.describe()));
    }
    return Status::success();
  }

  Status checkBiasGrad(const ArgSpec &value, const ComputedBy &by,
                       const std::string &path) {
    auto input = reference(value, by.input, path, "input");
    if (!input.ok())
      return input.status();
    TEQ_RETURN_IF_ERROR(needTensor(**input, child(path, "input")));
    TEQ_RETURN_IF_ERROR(needTensor(value, path));
    // The column sums of the input flattened to [M, K].
    return needElements(value, layout::flatten2D(shapeOf(**input)).k, path,
                        "the column sums of " + describeValue(**input));
  }

  /// copy, update_usage (another usage of a quantized tensor) and
  /// swizzle_scales (its scales in the GEMM's byte order): the same tensor.
  Status checkCopy(const ArgSpec &value, const ComputedBy &by,
                   const std::string &path) {
    auto input = reference(value, by.input, path, "input");
    if (!input.ok())
      return input.status();
    const bool quantized = by.op != ComputeOp::Copy;
    if ((*input)->isProto != value.isProto ||
        (quantized && !value.isProto) ||
        dtypeOf(**input) != dtypeOf(value) ||
        shapeOf(**input) != shapeOf(value) ||
        (value.isProto &&
         (*input)->proto.quantizer.kind != value.proto.quantizer.kind))
      return errorAt(child(path, "input"),
                     describeValue(**input) + " cannot become " +
                         describeValue(value) + " by " + by.opName());
    return Status::success();
  }

  /// Checks that the slice's offsets, sizes and strides have the rank of
  /// `full` and lie inside it; returns its element count.
  StatusOr<int64_t> checkSliceBounds(const ComputedBy &by,
                                     const std::string &path,
                                     const ArgSpec &full, const char *role) {
    const std::vector<int64_t> &shape = shapeOf(full);
    const std::vector<int64_t> *lists[3] = {&by.offsets, &by.sizes,
                                            &by.strides};
    const char *keys[3] = {"offsets", "sizes", "strides"};
    for (int l = 0; l < 3; ++l)
      if (lists[l]->size() != shape.size())
        return errorAt(child(path, keys[l]),
                       "has " + std::to_string(lists[l]->size()) +
                           " values for the rank-" +
                           std::to_string(shape.size()) + " " + role + " " +
                           describeValue(full));
    int64_t elements = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      const int64_t offset = by.offsets[d], size = by.sizes[d],
                    stride = by.strides[d];
      const bool inside =
          offset >= 0 && size >= 0 && stride >= 1 && offset <= shape[d] &&
          (size == 0 || (offset < shape[d] &&
                         size - 1 <= (shape[d] - 1 - offset) / stride));
      if (!inside)
        return errorAt(path, "dimension " + std::to_string(d) +
                                 " (offset " + std::to_string(offset) +
                                 ", size " + std::to_string(size) +
                                 ", stride " + std::to_string(stride) +
                                 ") is not inside the " + role + " " +
                                 describeValue(full));
      elements *= size; // At most the full tensor's count: no overflow.
    }
    return elements;
  }

  Status checkSlice(const ArgSpec &value, const ComputedBy &by,
                    const std::string &path, bool insert) {
    auto input = reference(value, by.input, path, "input");
    if (!input.ok())
      return input.status();
    TEQ_RETURN_IF_ERROR(needTensor(**input, child(path, "input")));
    TEQ_RETURN_IF_ERROR(needTensor(value, path));
    if (!insert) {
      auto elements = checkSliceBounds(by, path, **input, "input");
      if (!elements.ok())
        return elements.status();
      return needElements(value, *elements, path, "the slice");
    }
    // insert_slice: `input` goes into a copy of `dest`.
    auto dest = reference(value, by.dest, path, "dest");
    if (!dest.ok())
      return dest.status();
    TEQ_RETURN_IF_ERROR(needTensor(**dest, child(path, "dest")));
    auto elements = checkSliceBounds(by, path, **dest, "destination");
    if (!elements.ok())
      return elements.status();
    TEQ_RETURN_IF_ERROR(needElements(**input, *elements, child(path, "input"),
                                     "the slice"));
    return needElements(value, numElements(shapeOf(**dest)), path,
                        "a copy of " + describeValue(**dest));
  }

  Status checkElementwise(const ArgSpec &value, const ComputedBy &by,
                          const std::string &path) {
    TEQ_RETURN_IF_ERROR(needTensor(value, path));
    const std::string at = child(path, "inputs");
    const int64_t elements = numElements(shapeOf(value));
    for (size_t i = 0; i < by.inputs.size(); ++i) {
      auto input = resolve(value, by.inputs[i], element(at, i));
      if (!input.ok())
        return input.status();
      TEQ_RETURN_IF_ERROR(needTensor(**input, element(at, i)));
      TEQ_RETURN_IF_ERROR(needElements(**input, elements, element(at, i),
                                       "'" + value.name + "'"));
    }
    return Status::success();
  }

  /// A value computed, through others, from itself: te-run would recurse
  /// forever evaluating it.
  Status checkCycles() {
    enum class Mark { New, Active, Done };
    std::map<std::string, Mark> marks;
    std::vector<std::string> stack;
    std::function<Status(const std::string &)> visit =
        [&](const std::string &name) -> Status {
      Mark &mark = marks[name];
      if (mark == Mark::Done)
        return Status::success();
      if (mark == Mark::Active) {
        std::string cycle;
        auto first = std::find(stack.begin(), stack.end(), name);
        for (auto it = first; it != stack.end(); ++it)
          cycle += *it + " -> ";
        return errorAt(child(values[name].path, "computed_by"),
                       "'" + name + "' is computed from itself (" + cycle +
                           name + ")");
      }
      mark = Mark::Active;
      stack.push_back(name);
      for (const std::string &next : dependencies[name])
        TEQ_RETURN_IF_ERROR(visit(next));
      stack.pop_back();
      marks[name] = Mark::Done;
      return Status::success();
    };
    for (const auto &[name, value] : values)
      TEQ_RETURN_IF_ERROR(visit(name));
    return Status::success();
  }

  const Manifest &manifest;
  const EntrySpec &entry;
  std::string entryPath;
  std::map<std::string, Value> values;
  /// The values each value's computed_by names.
  std::map<std::string, std::vector<std::string>> dependencies;
};

//===----------------------------------------------------------------------===//
// The document
//===----------------------------------------------------------------------===//

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

  // GEMMs before entries: the entries' computed_by refer to them.
  if (const JsonValue *gemms = root.find("gemms")) {
    if (!gemms->isArray())
      return typeError("gemms", "an array", *gemms);
    std::set<std::string> names;
    for (size_t i = 0; i < gemms->asArray().size(); ++i) {
      GemmSpec gemm;
      const std::string gemmPath = element("gemms", i);
      TEQ_RETURN_IF_ERROR(parseGemm(gemms->asArray()[i], gemmPath, i, gemm));
      // te-compile --gemm-algos pins algorithms by GEMM name.
      if (!names.insert(gemm.name).second)
        return errorAt(child(gemmPath, "name"),
                       "duplicate GEMM name \"" + gemm.name + "\"");
      manifest.gemms.push_back(std::move(gemm));
    }
  }

  auto entries = member(root, path, "entries");
  if (!entries.ok())
    return entries.status();
  if (!(*entries)->isArray())
    return typeError("entries", "an array", **entries);
  std::set<std::string> names;
  std::map<std::string, std::string> entryOfSymbol;
  // Entries are pushed as they are read: reserve, so that the checker's
  // pointers into earlier entries stay valid (it only looks at one).
  manifest.entries.reserve((*entries)->asArray().size());
  for (size_t i = 0; i < (*entries)->asArray().size(); ++i) {
    EntrySpec entry;
    const std::string entryPath = element("entries", i);
    TEQ_RETURN_IF_ERROR(parseEntry((*entries)->asArray()[i], entryPath,
                                   manifest.target, entry));
    if (!names.insert(entry.name).second)
      return errorAt(child(entryPath, "name"),
                     "duplicate entry name \"" + entry.name + "\"");
    auto [other, fresh] = entryOfSymbol.emplace(entry.symbol, entry.name);
    if (!fresh)
      return errorAt(child(entryPath, "symbol"),
                     "'" + entry.symbol + "' is also the symbol of entry '" +
                         other->second + "'");
    TEQ_RETURN_IF_ERROR(ComputedByChecker(manifest, entry, entryPath).run());
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
      TEQ_RETURN_IF_ERROR(checkName(kernel.asString(), at));
      manifest.dependentLaunchKernels.insert(kernel.asString());
    }
  }
  return Status::success();
}

} // namespace

StatusOr<GemmAlgoSpec> parseGemmAlgo(const JsonValue &value) {
  GemmAlgoSpec algo;
  TEQ_RETURN_IF_ERROR(parseGemmAlgo(value, "algo", algo));
  return algo;
}

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

} // namespace mlir::teq::artifact

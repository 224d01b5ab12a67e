//===- Entry.cpp - An artifact's entry points and their arguments ---------===//
//
// The methods of the entry and argument specs (Entry.h); the reader is in
// Manifest.cpp and TensorReader.cpp.
//
//===----------------------------------------------------------------------===//

#include "teq/Artifact/Entry.h"

namespace mlir::teq::artifact {

namespace {
constexpr std::string_view kArgRoles[] = {
    "input", "parameter",   "output", "saved",    "state",
    "state_update", "grad_output", "grad",   "main_grad", "quantized_weight"};
} // namespace

bool isArgRole(std::string_view role) {
  for (std::string_view known : kArgRoles)
    if (role == known)
      return true;
  return false;
}

bool argRoleTakesOf(std::string_view role) {
  return role == "saved" || role == "state_update" || role == "grad_output" ||
         role == "grad" || role == "main_grad" || role == "quantized_weight";
}

const char *argRoleList() {
  return "input, parameter, output, saved, state, state_update, "
         "grad_output, grad, main_grad, quantized_weight";
}

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

int64_t tensorDTypeBytes(std::string_view dtype) {
  if (dtype == "f32")
    return 4;
  if (dtype == "bf16" || dtype == "f16")
    return 2;
  if (dtype == "i64") // The (seed, offset) of stochastic rounding.
    return 8;
  return 0;
}

} // namespace mlir::teq::artifact

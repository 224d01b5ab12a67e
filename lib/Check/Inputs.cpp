//===- Inputs.cpp - Inputs for a run of an entry --------------------------===//
//
// Seeded input generation (teq/Check/Inputs.h): a portable random stream
// per argument, the --fill edge cases, positive delayed-scaling state, and
// proto inputs quantized by the reference.
//
//===----------------------------------------------------------------------===//

#include "teq/Check/Inputs.h"

#include "ReferenceAdapter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

namespace mlir::teq::check {

using artifact::ArgKind;
using artifact::BufferSpec;
using artifact::ComputedBy;
using artifact::ComputeOp;

std::optional<Fill> parseFill(std::string_view name) {
  static const std::pair<std::string_view, Fill> kFills[] = {
      {"random", Fill::Random}, {"zeros", Fill::Zeros},
      {"huge", Fill::Huge},     {"denormal", Fill::Denormal},
      {"ties", Fill::Ties},     {"special", Fill::Special}};
  for (const auto &[text, fill] : kFills)
    if (text == name)
      return fill;
  return std::nullopt;
}

StatusOr<std::vector<std::vector<uint8_t>>>
quantizeWithReference(const Manifest &manifest, const ArgSpec &arg,
                      const std::vector<float> &values) {
  reference::Input input = reference::Input::rounded(
      referenceDType(arg.proto.dtype), arg.proto.shape, values);
  // A stochastically rounded input is valid with any random bits.
  auto quantized = quantizeArg(manifest, arg, input, std::nullopt, RngState{});
  if (!quantized.ok())
    return quantized.status();
  std::vector<std::vector<uint8_t>> buffers;
  for (auto &buffer : quantized->buffers)
    buffers.push_back(std::move(buffer.bytes));
  return buffers;
}

namespace {

/// splitmix64: a small, well-mixed, portable generator (std::normal_
/// distribution differs between standard libraries; this does not).
class Random {
public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in (0, 1].
  double uniform() {
    return (static_cast<double>(next() >> 11) + 1.0) * 0x1p-53;
  }
  /// N(0, 1), Box-Muller.
  float normal() {
    if (hasSpare_) {
      hasSpare_ = false;
      return spare_;
    }
    double radius = std::sqrt(-2.0 * std::log(uniform()));
    double angle = 2.0 * M_PI * uniform();
    spare_ = static_cast<float>(radius * std::sin(angle));
    hasSpare_ = true;
    return static_cast<float>(radius * std::cos(angle));
  }

private:
  uint64_t state_;
  bool hasSpare_ = false;
  float spare_ = 0.0f;
};

/// The seed of argument `argIndex` of entry `entryName`.
uint64_t argSeed(uint64_t seed, const std::string &entryName,
                 size_t argIndex) {
  uint64_t h = 1469598103934665603ull; // FNV-1a of the entry name
  for (char c : entryName)
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  Random mix(seed ^ h ^ (0x9E3779B97F4A7C15ull * (argIndex + 1)));
  return mix.next();
}

int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

/// Random bytes that decode to finite, non-NaN values of `encoding` (for
/// proto inputs the reference cannot quantize).
std::vector<uint8_t> randomCodes(const BufferSpec &buffer, Random &random) {
  std::vector<uint8_t> bytes(static_cast<size_t>(buffer.bytes));
  if (buffer.encoding == "f32") {
    for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
      // Positive powers of two near 1: plausible scales.
      float value = std::ldexp(1.0f, static_cast<int>(random.next() % 9) - 4);
      std::memcpy(bytes.data() + i, &value, 4);
    }
    return bytes;
  }
  for (uint8_t &byte : bytes) {
    uint8_t code = static_cast<uint8_t>(random.next());
    if (buffer.encoding == "e4m3" && (code & 0x7F) == 0x7F)
      code &= 0xFE; // not NaN
    else if (buffer.encoding == "e5m2" && (code & 0x7C) == 0x7C)
      code &= 0xFB; // not inf/NaN
    else if (buffer.encoding == "e8m0")
      code = static_cast<uint8_t>(120 + code % 15); // 2^-7 .. 2^7
    byte = code;
  }
  return bytes;
}

/// Input values for `fill` (edge cases of te-semantics.md §5 and §11). All
/// values are exact in bf16 and f16 ranges where they matter.
void fillValues(Fill fill, std::vector<float> &values, Random &random) {
  // Exact E4M3 ties at scale 1: midpoints between neighbours (RNE picks
  // the even one), including at the top of the range.
  static const float kTies[] = {1.0625f, -1.0625f, 1.1875f, 0.0068359375f,
                                3.25f,   -13.0f,   416.0f,  -0.0009765625f};
  size_t n = values.size();
  for (size_t i = 0; i < n; ++i) {
    float v = random.normal();
    if (fill == Fill::Zeros)
      v = 0.0f;
    else if (fill == Fill::Denormal)
      v = std::ldexp(v, -130); // bf16/f32 subnormal range
    else if (fill == Fill::Ties)
      v = (i % 4 == 0) ? kTies[(i / 4) % 8] : v;
    else if (fill == Fill::Special) {
      switch (i % 16) {
      case 1: v = 0.0f; break;
      case 2: v = -0.0f; break;
      case 3: v = std::ldexp(1.0f, -133); break; // smallest bf16 subnormal
      case 4: v = -std::ldexp(3.0f, -130); break;
      case 5: v = 3.3895313892515355e38f; break; // bf16 max
      case 6: v = -3.3895313892515355e38f; break;
      case 7: v = kTies[(i / 16) % 8]; break;
      case 8: v = -std::ldexp(1.0f, -12); break; // rounds to -0
      default: break;
      }
    }
    values[i] = v;
  }
  if (fill == Fill::Huge && n > 0)
    values[n / 2] = 3.3895313892515355e38f;
  if (fill == Fill::Ties && n > 0)
    values[n - 1] = 448.0f; // amax 448: scale exactly 1
  if (fill == Fill::Special && n > 0) {
    values[n / 3] = std::numeric_limits<float>::infinity();
    values[(2 * n) / 3] = std::numeric_limits<float>::quiet_NaN();
  }
}

/// Values of an entry that are delayed-scaling state, by name: "scale" or
/// "amax_history" — what some computed_by names under that key, and,
/// through the state slices teq-decompose-linear makes
/// (tensor.extract_slice / insert_slice), the arguments they come from.
std::map<std::string, std::string> stateRoles(const EntrySpec &entry) {
  std::map<std::string, std::string> roles;
  std::vector<const ArgSpec *> values;
  for (const ArgSpec &a : entry.args)
    values.push_back(&a);
  for (const ArgSpec &t : entry.temporaries)
    values.push_back(&t);
  for (const ArgSpec *v : values)
    if (v->computedBy)
      for (const auto &[key, name] : v->computedBy->namedValues())
        if (key == "scale" || key == "amax_history")
          roles.emplace(name, key);
  // Back through slices to the arguments (a fixpoint: the chains are
  // short).
  for (bool changed = true; changed;) {
    changed = false;
    for (const ArgSpec *v : values) {
      if (!v->computedBy)
        continue;
      auto role = roles.find(v->name);
      const ComputedBy &by = *v->computedBy;
      if (role != roles.end() && (by.op == ComputeOp::ExtractSlice ||
                                  by.op == ComputeOp::InsertSlice))
        for (const std::string *from : {&by.input, &by.dest})
          if (!from->empty() && roles.emplace(*from, role->second).second)
            changed = true;
    }
  }
  return roles;
}

} // namespace

HostBuffers makeInputs(const Manifest &manifest, const EntrySpec &entry,
                       const InputOptions &options) {
  HostBuffers host(entry.numBuffers());
  const std::map<std::string, std::string> roles = stateRoles(entry);
  for (size_t a = 0; a < entry.args.size(); ++a) {
    const ArgSpec &arg = entry.args[a];
    if (!arg.isRead()) {
      for (size_t b = 0; b < arg.buffers.size(); ++b)
        host[flatIndex(entry, a, b)].assign(
            static_cast<size_t>(arg.buffers[b].bytes), kUnwrittenByte);
      continue;
    }
    Random random(argSeed(options.seed, entry.name, a));
    if (!arg.isProto && arg.tensor.dtype == "i64") {
      // The rng_state of stochastic rounding: a seed and an offset, not
      // values; deterministic for a given seed.
      std::vector<uint8_t> &bytes = host[flatIndex(entry, a, 0)];
      bytes.resize(static_cast<size_t>(arg.buffers[0].bytes));
      for (size_t i = 0; i + 8 <= bytes.size(); i += 8) {
        uint64_t word = random.next();
        std::memcpy(bytes.data() + i, &word, 8);
      }
      continue;
    }
    std::vector<float> values(static_cast<size_t>(elementCount(arg.shape())));
    // Delayed-scaling state (an argument some output names as its "scale"
    // or "amax_history") holds positive values like a real recipe's.
    bool isState = arg.kind == ArgKind::InOut;
    bool isHistory = false;
    if (auto role = roles.find(arg.name); role != roles.end()) {
      isState = true;
      isHistory = role->second == "amax_history";
    }
    if (isState) {
      for (float &value : values)
        value = std::fabs(random.normal()) * 4.0f + 0.25f;
      // Edge cases of the update step: an all-zero history (no roll, the
      // scale stays) and a history holding inf and NaN.
      if (isHistory && options.fill == Fill::Zeros)
        std::fill(values.begin(), values.end(), 0.0f);
      if (isHistory && options.fill == Fill::Special && values.size() >= 3) {
        values[1] = std::numeric_limits<float>::infinity();
        values[values.size() - 1] = std::numeric_limits<float>::quiet_NaN();
      }
    } else {
      fillValues(options.fill, values, random);
    }
    if (!arg.isProto) {
      host[flatIndex(entry, a, 0)] = encodeTensor(arg.tensor.dtype, values);
      continue;
    }
    auto quantized = quantizeWithReference(manifest, arg, values);
    for (size_t b = 0; b < arg.buffers.size(); ++b)
      host[flatIndex(entry, a, b)] =
          quantized.ok() ? std::move((*quantized)[b])
                         : randomCodes(arg.buffers[b], random);
  }
  return host;
}

} // namespace mlir::teq::check

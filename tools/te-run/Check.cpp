//===- Check.cpp - te-run's comparison against the CPU reference ----------===//

#include "Check.h"

#include "teq/Layout/BufferLayout.h"
#include "teq/Reference/Numerics.h"
#include "teq/Reference/Quantize.h"

#include <cstdio>
#include <cmath>
#include <cstring>
#include <optional>

namespace mlir::teq::terun {

using runtime::BufferSpec;
using runtime::JsonValue;
using runtime::ProtoSpec;
namespace layout = mlir::teq::layout;
namespace reference = mlir::teq::reference;

size_t flatIndex(const EntrySpec &entry, size_t arg, size_t buffer) {
  size_t index = 0;
  for (size_t a = 0; a < arg; ++a)
    index += entry.args[a].buffers.size();
  return index + buffer;
}

namespace {

//===----------------------------------------------------------------------===//
// Quantizer fields -> reference descriptors
//===----------------------------------------------------------------------===//

struct QuantizerSetup {
  layout::TensorDesc desc;
  reference::QuantizeOptions options;
};

Status notAvailable(const std::string &what) {
  return Status::error("check not available for " + what);
}

StatusOr<bool> boolField(const JsonValue &quantizer, const char *key,
                         bool defaultValue) {
  const JsonValue *value = quantizer.find(key);
  if (!value)
    return defaultValue;
  if (!value->isBool())
    return Status::error(std::string("quantizer field \"") + key +
                         "\" is not a boolean");
  return value->asBool();
}

StatusOr<double> numberField(const JsonValue &quantizer, const char *key,
                             double defaultValue) {
  const JsonValue *value = quantizer.find(key);
  if (!value)
    return defaultValue;
  if (!value->isNumber())
    return Status::error(std::string("quantizer field \"") + key +
                         "\" is not a number");
  return value->asNumber();
}

StatusOr<layout::Encoding> fp8Field(const JsonValue &quantizer) {
  const JsonValue *value = quantizer.find("fp8_dtype");
  if (!value || !value->isString())
    return Status::error("quantizer has no string \"fp8_dtype\"");
  const std::string &name = value->asString();
  if (name == "e4m3" || name == "f8E4M3FN")
    return layout::Encoding::E4M3;
  if (name == "e5m2" || name == "f8E5M2")
    return layout::Encoding::E5M2;
  return Status::error("unknown fp8_dtype \"" + name + "\"");
}

StatusOr<reference::DType> referenceDType(const std::string &dtype) {
  if (dtype == "f32")
    return reference::DType::F32;
  if (dtype == "bf16")
    return reference::DType::BF16;
  if (dtype == "f16")
    return reference::DType::F16;
  return Status::error("unknown dtype \"" + dtype + "\"");
}

/// Strips a trailing "_quantizer" from the manifest's quantizer kind.
std::string normalizeKind(std::string kind) {
  const std::string suffix = "_quantizer";
  if (kind.size() > suffix.size() &&
      kind.compare(kind.size() - suffix.size(), suffix.size(), suffix) == 0)
    kind.resize(kind.size() - suffix.size());
  return kind;
}

#define TEQ_ASSIGN_OR_RETURN(lhs, expr)                                        \
  auto lhs##Or_ = (expr);                                                      \
  if (!lhs##Or_.ok())                                                          \
    return lhs##Or_.status();                                                  \
  auto lhs = *lhs##Or_;

StatusOr<QuantizerSetup> quantizerSetup(const ProtoSpec &proto) {
  QuantizerSetup setup;
  layout::TensorDesc &desc = setup.desc;
  desc.shape = proto.shape;
  desc.usage = (proto.hasRowwise() ? layout::UsageRowwise : 0u) |
               (proto.hasColumnwise() ? layout::UsageColumnwise : 0u);
  if (proto.scaleLayout.empty() || proto.scaleLayout == "compact")
    desc.scaleLayout = layout::ScaleLayout::Compact;
  else if (proto.scaleLayout == "gemm_swizzled" ||
           proto.scaleLayout == "swizzled")
    desc.scaleLayout = layout::ScaleLayout::GemmSwizzled;
  else
    return Status::error("unknown scale_layout \"" + proto.scaleLayout + "\"");

  const JsonValue &q = proto.quantizer;
  const std::string kind = normalizeKind(proto.quantizerKind);
  if (kind == "float8_current_scaling") {
    desc.format = layout::Format::PerTensorFP8;
    TEQ_ASSIGN_OR_RETURN(encoding, fp8Field(q));
    TEQ_ASSIGN_OR_RETURN(pow2, boolField(q, "force_pow_2_scales", false));
    TEQ_ASSIGN_OR_RETURN(epsilon, numberField(q, "amax_epsilon", 0.0));
    desc.dataEncoding = encoding;
    setup.options.perTensor.scaling = reference::PerTensorScaling::Current;
    setup.options.perTensor.forcePow2Scales = pow2;
    setup.options.perTensor.amaxEpsilon = static_cast<float>(epsilon);
    return setup;
  }
  if (kind == "float8_block" || kind == "float8_block_scaling") {
    TEQ_ASSIGN_OR_RETURN(encoding, fp8Field(q));
    TEQ_ASSIGN_OR_RETURN(pow2, boolField(q, "force_pow_2_scales", true));
    TEQ_ASSIGN_OR_RETURN(epsilon, numberField(q, "amax_epsilon", 0.0));
    TEQ_ASSIGN_OR_RETURN(dim, numberField(q, "block_scaling_dim", 2));
    if (dim != 1 && dim != 2)
      return Status::error("block_scaling_dim must be 1 or 2");
    desc.format =
        dim == 1 ? layout::Format::BlockFP8_1D : layout::Format::BlockFP8_2D;
    desc.dataEncoding = encoding;
    setup.options.blockFP8.forcePow2Scales = pow2;
    setup.options.blockFP8.amaxEpsilon = static_cast<float>(epsilon);
    return setup;
  }
  if (kind == "mxfp8") {
    TEQ_ASSIGN_OR_RETURN(encoding, fp8Field(q));
    TEQ_ASSIGN_OR_RETURN(twoD, boolField(q, "with_2d_quantization", false));
    desc.format = layout::Format::MXFP8;
    desc.dataEncoding = encoding;
    setup.options.mxfp8.twoD = twoD;
    return setup;
  }
  if (kind == "nvfp4") {
    TEQ_ASSIGN_OR_RETURN(rht, boolField(q, "with_rht", false));
    TEQ_ASSIGN_OR_RETURN(postRhtAmax, boolField(q, "with_post_rht_amax", false));
    TEQ_ASSIGN_OR_RETURN(twoD, boolField(q, "with_2d_quantization", false));
    TEQ_ASSIGN_OR_RETURN(sr, boolField(q, "stochastic_rounding", false));
    TEQ_ASSIGN_OR_RETURN(rowScaled, boolField(q, "row_scaled_nvfp4", false));
    TEQ_ASSIGN_OR_RETURN(fourOverSix, boolField(q, "nvfp4_use_4over6", false));
    TEQ_ASSIGN_OR_RETURN(randomSigns,
                         boolField(q, "with_random_sign_mask", true));
    if (rowScaled)
      return notAvailable("row-scaled nvfp4");
    if (fourOverSix)
      return notAvailable("nvfp4 with nvfp4_use_4over6");
    if (rht && (!postRhtAmax || !randomSigns))
      return notAvailable("nvfp4 with_rht without with_post_rht_amax and "
                          "with_random_sign_mask");
    desc.format = layout::Format::NVFP4;
    desc.dataEncoding = layout::Encoding::E2M1x2;
    setup.options.nvfp4.rht = rht;
    setup.options.nvfp4.twoD = twoD;
    // The seed and offset come from the argument computed_by names
    // "rng_state"; checkArg fills them in.
    setup.options.nvfp4.stochasticRounding = sr;
    return setup;
  }
  if (kind == "float8_delayed" || kind == "float8" ||
      kind == "float8_delayed_scaling") {
    // The stored scale comes from the argument computed_by names "scale";
    // checkArg fills it in.
    desc.format = layout::Format::PerTensorFP8;
    TEQ_ASSIGN_OR_RETURN(encoding, fp8Field(q));
    desc.dataEncoding = encoding;
    setup.options.perTensor.scaling = reference::PerTensorScaling::Delayed;
    return setup;
  }
  return notAvailable("quantizer kind \"" + proto.quantizerKind + "\"");
}

/// The reference input of tensor bytes `bytes` (dtype, shape).
StatusOr<reference::Input> makeInput(const std::string &dtype,
                                     const std::vector<int64_t> &shape,
                                     const std::vector<uint8_t> &bytes) {
  if (dtype == "f32") {
    std::vector<float> values(bytes.size() / 4);
    std::memcpy(values.data(), bytes.data(), values.size() * 4);
    return reference::Input::fromF32(shape, std::move(values));
  }
  if (dtype == "bf16" || dtype == "f16") {
    std::vector<uint16_t> bits(bytes.size() / 2);
    std::memcpy(bits.data(), bytes.data(), bits.size() * 2);
    return dtype == "bf16" ? reference::Input::fromBF16Bits(shape, bits)
                           : reference::Input::fromF16Bits(shape, bits);
  }
  return Status::error("unknown dtype \"" + dtype + "\"");
}

/// The (seed, offset) of stochastic rounding.
struct RngState {
  uint64_t seed = 0, offset = 0;
};

/// Runs the reference quantizer for proto argument `arg` and checks that its
/// buffers are the ones the manifest lists (names and sizes).
StatusOr<reference::QuantizedTensor>
quantizeArg(const Manifest &manifest, const ArgSpec &arg,
            const reference::Input &input,
            std::optional<float> storedScale = std::nullopt,
            std::optional<RngState> rng = std::nullopt) {
  auto setup = quantizerSetup(arg.proto);
  if (!setup.ok())
    return setup.status();
  if (setup->options.perTensor.scaling == reference::PerTensorScaling::Delayed) {
    if (!storedScale)
      return Status::error("delayed scaling needs computed_by \"scale\"");
    setup->options.perTensor.scale = *storedScale;
  }
  if (setup->desc.format == layout::Format::NVFP4 &&
      setup->options.nvfp4.stochasticRounding) {
    if (!rng)
      return Status::error("stochastic rounding needs computed_by "
                           "\"rng_state\" (the seed and offset)");
    setup->options.nvfp4.seed = rng->seed;
    setup->options.nvfp4.offset = rng->offset;
  }
  const layout::TargetCaps target = layout::TargetCaps::fromSM(manifest.target.sm);
  auto quantized =
      reference::quantize(input, setup->desc, target, setup->options);
  if (!quantized.ok())
    return Status::error("the reference cannot quantize argument '" + arg.name +
                         "': " + quantized.message());
  const auto &buffers = quantized->buffers;
  if (buffers.size() != arg.buffers.size())
    return Status::error(
        "layout mismatch for argument '" + arg.name + "': the manifest lists " +
        std::to_string(arg.buffers.size()) + " buffers, the reference " +
        std::to_string(buffers.size()));
  for (size_t i = 0; i < buffers.size(); ++i) {
    const BufferSpec &spec = arg.buffers[i];
    const layout::BufferDesc &desc = buffers[i].desc;
    if (spec.name != desc.name || spec.bytes != desc.sizeInBytes())
      return Status::error("layout mismatch for argument '" + arg.name +
                           "' buffer " + std::to_string(i) + ": manifest '" +
                           spec.name + "' (" + std::to_string(spec.bytes) +
                           " bytes), reference '" + desc.name + "' (" +
                           std::to_string(desc.sizeInBytes()) + " bytes)");
  }
  return std::move(*quantized);
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

std::string formatIndex(const std::vector<int64_t> &shape, int64_t linear) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    int64_t dim = shape[d] > 0 ? shape[d] : 1;
    index[d] = linear % dim;
    linear /= dim;
  }
  std::string text = "[";
  for (size_t d = 0; d < index.size(); ++d)
    text += (d ? ", " : "") + std::to_string(index[d]);
  return text + "]";
}

bool inValidRegion(const BufferSpec &spec, int64_t linear) {
  for (size_t d = spec.shape.size(); d-- > 0;) {
    int64_t dim = spec.shape[d] > 0 ? spec.shape[d] : 1;
    if (linear % dim >= spec.validShape[d])
      return false;
    linear /= dim;
  }
  return true;
}

std::string describeElement(const std::string &encoding, const uint8_t *bytes) {
  char text[96];
  if (encoding == "f32" || encoding == "bf16" || encoding == "f16") {
    float value = 0.0f;
    uint32_t bits = 0;
    if (encoding == "f32") {
      std::memcpy(&bits, bytes, 4);
      value = reference::floatFromBits(bits);
      std::snprintf(text, sizeof(text), "%.9g (0x%08x)", value, bits);
    } else {
      uint16_t half = 0;
      std::memcpy(&half, bytes, 2);
      value = encoding == "bf16" ? reference::bf16ToFloat(half)
                                 : reference::f16ToFloat(half);
      std::snprintf(text, sizeof(text), "%.6g (0x%04x)", value, half);
    }
    return text;
  }
  uint8_t code = bytes[0];
  if (encoding == "e4m3")
    std::snprintf(text, sizeof(text), "%g (0x%02x)",
                  reference::e4m3ToFloat(code), code);
  else if (encoding == "e5m2")
    std::snprintf(text, sizeof(text), "%g (0x%02x)",
                  reference::e5m2ToFloat(code), code);
  else if (encoding == "e8m0")
    std::snprintf(text, sizeof(text), "2^%d (0x%02x)", int(code) - 127, code);
  else if (encoding == "e2m1x2")
    std::snprintf(text, sizeof(text), "{%g, %g} (0x%02x)",
                  reference::e2m1ToFloat(code & 0xF),
                  reference::e2m1ToFloat(code >> 4), code);
  else
    std::snprintf(text, sizeof(text), "0x%02x", code);
  return text;
}

BufferCheck compareBuffer(const std::string &argName, const BufferSpec &spec,
                          const std::vector<uint8_t> &expected,
                          const std::vector<uint8_t> &actual) {
  BufferCheck check;
  check.arg = argName;
  check.buffer = spec.name;
  if (expected.size() != actual.size()) {
    check.ok = false;
    check.message = "size differs: expected " +
                    std::to_string(expected.size()) + " bytes, got " +
                    std::to_string(actual.size());
    return check;
  }
  int64_t elementBytes = runtime::tensorDTypeBytes(spec.encoding);
  if (elementBytes == 0)
    elementBytes = spec.encoding == "f32" ? 4 : 1;
  check.elements = static_cast<int64_t>(expected.size()) / elementBytes;
  int64_t first = -1;
  for (int64_t i = 0; i < check.elements; ++i) {
    if (std::memcmp(expected.data() + i * elementBytes,
                    actual.data() + i * elementBytes, elementBytes) == 0)
      continue;
    ++check.mismatches;
    if (!inValidRegion(spec, i))
      ++check.paddingMismatches;
    if (first < 0)
      first = i;
  }
  if (check.mismatches == 0) {
    check.message = "OK (" + std::to_string(expected.size()) + " bytes)";
    return check;
  }
  check.ok = false;
  check.message =
      std::to_string(check.mismatches) + " of " +
      std::to_string(check.elements) + " elements differ" +
      (check.paddingMismatches
           ? " (" + std::to_string(check.paddingMismatches) + " in padding)"
           : std::string()) +
      "; first at " + formatIndex(spec.shape, first) +
      (inValidRegion(spec, first) ? "" : " (padding)") + ": expected " +
      describeElement(spec.encoding, expected.data() + first * elementBytes) +
      ", got " +
      describeElement(spec.encoding, actual.data() + first * elementBytes);
  return check;
}

/// Recomputes the output `arg` (index `argIndex`) per its computed_by.
Status checkArg(const Manifest &manifest, const EntrySpec &entry,
                size_t argIndex, const HostBuffers &before,
                const HostBuffers &after, CheckReport &report) {
  const ArgSpec &arg = entry.args[argIndex];
  const std::string what = "argument '" + arg.name + "'";
  if (arg.computedBy.isNull())
    return notAvailable(what + ": the manifest has no computed_by");
  const std::string op = arg.computedBy.find("op")->asString();
  if (op != "quantize" && op != "record_amax" &&
      op != "delayed_scaling_update")
    return notAvailable("op " + op + " (" + what + ")");
  // What an operand held when this output was computed: an input's bytes,
  // or the GPU's result for an earlier output (chained steps are checked
  // one step at a time).
  auto valueBytes = [&](const ArgSpec *source) -> const std::vector<uint8_t> & {
    size_t index =
        flatIndex(entry, static_cast<size_t>(source - entry.args.data()), 0);
    return source->isRead() ? before[index] : after[index];
  };
  auto namedTensor = [&](const char *key) -> StatusOr<const ArgSpec *> {
    const JsonValue *name = arg.computedBy.find(key);
    const ArgSpec *source = name && name->isString()
                                ? entry.findArg(name->asString())
                                : nullptr;
    if (!source || source->isProto || source->tensor.dtype != "f32")
      return Status::error(what + ": computed_by \"" + key +
                           "\" must name an f32 tensor argument");
    return source;
  };
  if (op == "delayed_scaling_update") {
    auto scaleArg = namedTensor("scale");
    auto historyArg = namedTensor("amax_history");
    if (!scaleArg.ok())
      return scaleArg.status();
    if (!historyArg.ok())
      return historyArg.status();
    const JsonValue *output = arg.computedBy.find("output");
    const JsonValue *fp8Max = arg.computedBy.find("fp8_max");
    const JsonValue *margin = arg.computedBy.find("margin");
    const JsonValue *algo = arg.computedBy.find("amax_compute_algo");
    if (!output || !output->isString() || !fp8Max || !fp8Max->isNumber() ||
        !margin || !margin->isNumber() || !algo || !algo->isString())
      return Status::error(what + ": computed_by of delayed_scaling_update "
                                  "needs output, fp8_max, margin and "
                                  "amax_compute_algo");
    const std::vector<int64_t> &hshape = (*historyArg)->tensor.shape;
    int64_t slots = 1;
    for (int64_t d : (*scaleArg)->tensor.shape)
      slots *= d;
    const int64_t length = hshape.empty() ? 0 : hshape[0];
    const auto &scaleBytes = valueBytes(*scaleArg);
    const auto &historyBytes = valueBytes(*historyArg);
    std::vector<float> scales(static_cast<size_t>(slots));
    std::vector<float> history(static_cast<size_t>(slots * length));
    std::memcpy(scales.data(), scaleBytes.data(), scales.size() * 4);
    std::memcpy(history.data(), historyBytes.data(), history.size() * 4);
    for (int64_t slot = 0; slot < slots; ++slot) {
      reference::DelayedScalingState state;
      state.scale = scales[slot];
      for (int64_t l = 0; l < length; ++l)
        state.amaxHistory.push_back(history[l * slots + slot]);
      reference::updateDelayedScaling(
          state, static_cast<float>(fp8Max->asNumber()),
          static_cast<int>(margin->asNumber()),
          algo->asString() == "most_recent"
              ? reference::AmaxComputeAlgo::MostRecent
              : reference::AmaxComputeAlgo::Max);
      scales[slot] = state.scale;
      for (int64_t l = 0; l < length; ++l)
        history[l * slots + slot] = state.amaxHistory[l];
    }
    const bool isScale = output->asString() == "scale";
    std::vector<uint8_t> expected(isScale ? scales.size() * 4
                                          : history.size() * 4);
    std::memcpy(expected.data(), isScale ? static_cast<void *>(scales.data())
                                         : static_cast<void *>(history.data()),
                expected.size());
    BufferCheck check = compareBuffer(arg.name, arg.buffers[0], expected,
                                      after[flatIndex(entry, argIndex, 0)]);
    if (!check.ok)
      report.passed = false;
    report.buffers.push_back(std::move(check));
    return Status::success();
  }
  if (op == "quantize" && !arg.isProto)
    return notAvailable("op quantize into a tensor (" + what + ")");

  // A 1-element f32 input named by computed_by (the stored scale).
  auto readScalarArg = [&](const char *key) -> StatusOr<float> {
    const JsonValue *name = arg.computedBy.find(key);
    if (!name || !name->isString())
      return Status::error(what + ": computed_by has no string \"" + key +
                           "\"");
    const ArgSpec *source = entry.findArg(name->asString());
    if (!source || source->isProto || source->tensor.dtype != "f32")
      return Status::error(what + ": computed_by " + key + " '" +
                           name->asString() + "' is not an f32 tensor argument");
    const auto &bytes = valueBytes(source);
    float value;
    std::memcpy(&value, bytes.data(), 4);
    return value;
  };

  const JsonValue *inputName = arg.computedBy.find("input");
  if (!inputName || !inputName->isString())
    return Status::error(what + ": computed_by has no string \"input\"");
  const ArgSpec *input = entry.findArg(inputName->asString());
  if (!input)
    return Status::error(what + ": computed_by input '" +
                         inputName->asString() + "' is not an argument");
  if (input->isProto)
    return notAvailable(what + ": its input '" + input->name +
                        "' is not a high-precision tensor");
  if (op == "quantize" && (input->tensor.dtype != arg.proto.dtype ||
                           input->tensor.shape != arg.proto.shape))
    return Status::error(what + ": input '" + input->name +
                         "' differs in dtype or shape from the proto");

  const size_t inputIndex =
      flatIndex(entry, static_cast<size_t>(input - entry.args.data()), 0);
  (void)inputIndex;
  auto referenceInput =
      makeInput(input->tensor.dtype, input->tensor.shape, valueBytes(input));
  if (!referenceInput.ok())
    return referenceInput.status();
  if (op == "record_amax") {
    // history[0] = fmaxf(history[0], max|x|); the rest unchanged (§5.2).
    const JsonValue *historyName = arg.computedBy.find("amax_history");
    const ArgSpec *history =
        historyName && historyName->isString()
            ? entry.findArg(historyName->asString())
            : nullptr;
    if (!history || history->isProto || history->tensor.dtype != "f32" ||
        arg.isProto || arg.tensor.shape != history->tensor.shape)
      return Status::error(what + ": computed_by amax_history must name an "
                                  "f32 tensor argument of the same shape");
    reference::DelayedScalingState state;
    const auto &hbytes = valueBytes(history);
    state.amaxHistory.resize(hbytes.size() / 4);
    std::memcpy(state.amaxHistory.data(), hbytes.data(), hbytes.size());
    float amax = 0.0f;
    for (float v : referenceInput->values)
      amax = std::fmax(amax, std::fabs(v));
    reference::recordAmax(state, amax);
    std::vector<uint8_t> expected(hbytes.size());
    std::memcpy(expected.data(), state.amaxHistory.data(), expected.size());
    BufferCheck check = compareBuffer(arg.name, arg.buffers[0], expected,
                                      after[flatIndex(entry, argIndex, 0)]);
    if (!check.ok)
      report.passed = false;
    report.buffers.push_back(std::move(check));
    return Status::success();
  }
  std::optional<float> storedScale;
  if (arg.computedBy.find("scale")) {
    auto scale = readScalarArg("scale");
    if (!scale.ok())
      return scale.status();
    storedScale = *scale;
  }
  // Stochastic rounding: the (seed, offset) the GPU read, an i64[2] input.
  std::optional<RngState> rng;
  if (const JsonValue *name = arg.computedBy.find("rng_state")) {
    const ArgSpec *source =
        name->isString() ? entry.findArg(name->asString()) : nullptr;
    if (!source || source->isProto || source->tensor.dtype != "i64" ||
        source->tensor.shape != std::vector<int64_t>{2})
      return Status::error(what + ": computed_by \"rng_state\" must name an "
                                  "i64[2] tensor argument (seed, offset)");
    const auto &bytes = valueBytes(source);
    RngState state;
    std::memcpy(&state.seed, bytes.data(), 8);
    std::memcpy(&state.offset, bytes.data() + 8, 8);
    rng = state;
  }
  auto quantized =
      quantizeArg(manifest, arg, *referenceInput, storedScale, rng);
  if (!quantized.ok())
    return quantized.status().withPrefix(what);
  for (size_t b = 0; b < arg.buffers.size(); ++b) {
    BufferCheck check =
        compareBuffer(arg.name, arg.buffers[b], quantized->buffers[b].bytes,
                      after[flatIndex(entry, argIndex, b)]);
    if (!check.ok)
      report.passed = false;
    report.buffers.push_back(std::move(check));
  }
  return Status::success();
}

} // namespace

CheckReport checkOutputs(const Manifest &manifest, const EntrySpec &entry,
                         const HostBuffers &before, const HostBuffers &after) {
  CheckReport report;
  for (size_t a = 0; a < entry.args.size(); ++a) {
    if (!entry.args[a].isWritten())
      continue;
    Status status = checkArg(manifest, entry, a, before, after, report);
    if (!status.ok()) {
      report.passed = false;
      report.errors.push_back(status.message());
    }
  }
  if (report.buffers.empty() && report.errors.empty()) {
    report.passed = false;
    report.errors.push_back("entry '" + entry.name + "' has no outputs to check");
  }
  return report;
}

StatusOr<std::vector<std::vector<uint8_t>>>
quantizeWithReference(const Manifest &manifest, const ArgSpec &arg,
                      const std::vector<float> &values) {
  auto dtype = referenceDType(arg.proto.dtype);
  if (!dtype.ok())
    return dtype.status();
  reference::Input input =
      reference::Input::rounded(*dtype, arg.proto.shape, values);
  // A stochastically rounded input is valid with any random bits.
  auto quantized = quantizeArg(manifest, arg, input, std::nullopt, RngState{});
  if (!quantized.ok())
    return quantized.status();
  std::vector<std::vector<uint8_t>> buffers;
  for (auto &buffer : quantized->buffers)
    buffers.push_back(std::move(buffer.bytes));
  return buffers;
}

} // namespace mlir::teq::terun

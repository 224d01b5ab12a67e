//===- ReferenceAdapter.cpp - The manifest's values in lib/Reference's terms ===//
//
// Quantizer descriptions, tensor encodings and the reference quantizer run
// for one argument (ReferenceAdapter.h).
//
//===----------------------------------------------------------------------===//

#include "ReferenceAdapter.h"

#include "teq/Reference/Numerics.h"

#include <cassert>
#include <cstring>

namespace mlir::teq::check {

using artifact::BufferSpec;
using artifact::ProtoSpec;
using artifact::QuantizerDesc;
using artifact::QuantizerKind;

Status notAvailable(const std::string &what) {
  return Status::error("check not available for " + what);
}

StatusOr<QuantizerSetup> quantizerSetup(const ProtoSpec &proto) {
  QuantizerSetup setup;
  setup.desc = proto.tensorDesc();
  const QuantizerDesc &q = proto.quantizer;
  switch (q.kind) {
  case QuantizerKind::Float8CurrentScaling:
    setup.options.perTensor.scaling = reference::PerTensorScaling::Current;
    setup.options.perTensor.forcePow2Scales = q.forcePow2Scales;
    setup.options.perTensor.amaxEpsilon = static_cast<float>(q.amaxEpsilon);
    return setup;
  case QuantizerKind::Float8Delayed:
    // The stored scale comes from the value computed_by names "scale";
    // quantizeArg takes it.
    setup.options.perTensor.scaling = reference::PerTensorScaling::Delayed;
    return setup;
  case QuantizerKind::Float8Block:
    setup.options.blockFP8.forcePow2Scales = q.forcePow2Scales;
    setup.options.blockFP8.amaxEpsilon = static_cast<float>(q.amaxEpsilon);
    return setup;
  case QuantizerKind::MXFP8:
    setup.options.mxfp8.twoD = q.with2DQuantization;
    return setup;
  case QuantizerKind::NVFP4:
    if (q.rowScaledNVFP4)
      return notAvailable("row-scaled nvfp4");
    if (q.nvfp4Use4over6)
      return notAvailable("nvfp4 with nvfp4_use_4over6");
    if (q.withRht && (!q.withPostRhtAmax || !q.withRandomSignMask))
      return notAvailable("nvfp4 with_rht without with_post_rht_amax and "
                          "with_random_sign_mask");
    setup.options.nvfp4.rht = q.withRht;
    setup.options.nvfp4.twoD = q.with2DQuantization;
    // The seed and offset come from the argument computed_by names
    // "rng_state"; quantizeArg takes them.
    setup.options.nvfp4.stochasticRounding = q.stochasticRounding;
    return setup;
  }
  return notAvailable(std::string("quantizer kind \"") + q.kindName() + "\"");
}

reference::DType referenceDType(const std::string &dtype) {
  if (dtype == "bf16")
    return reference::DType::BF16;
  if (dtype == "f16")
    return reference::DType::F16;
  assert(dtype == "f32" && "parseManifest: a proto's dtype is f32/bf16/f16");
  return reference::DType::F32;
}

reference::Input referenceInput(const std::string &dtype,
                                const std::vector<int64_t> &shape,
                                const std::vector<uint8_t> &bytes) {
  if (dtype == "f32") {
    std::vector<float> values(bytes.size() / 4);
    std::memcpy(values.data(), bytes.data(), values.size() * 4);
    return reference::Input::fromF32(shape, std::move(values));
  }
  assert((dtype == "bf16" || dtype == "f16") &&
         "parseManifest: a quantize's input has its proto's dtype");
  std::vector<uint16_t> bits(bytes.size() / 2);
  std::memcpy(bits.data(), bytes.data(), bits.size() * 2);
  return dtype == "bf16" ? reference::Input::fromBF16Bits(shape, bits)
                         : reference::Input::fromF16Bits(shape, bits);
}

StatusOr<reference::QuantizedTensor>
quantizeArg(const Manifest &manifest, const ArgSpec &arg,
            const reference::Input &input, std::optional<float> storedScale,
            std::optional<RngState> rng, std::optional<float> reducedAmax) {
  auto setup = quantizerSetup(arg.proto);
  if (!setup.ok())
    return setup.status();
  if (reducedAmax) {
    if (arg.proto.quantizer.kind != QuantizerKind::Float8CurrentScaling)
      return notAvailable(std::string("amax reduction of quantizer kind \"") +
                          arg.proto.quantizer.kindName() + "\"");
    setup->options.perTensor.amax = *reducedAmax;
  }
  if (setup->options.perTensor.scaling ==
      reference::PerTensorScaling::Delayed) {
    // A computed_by of float8_delayed names its scale (parseManifest); an
    // input quantized for a run has none (makeInputs then writes random
    // codes).
    if (!storedScale)
      return Status::error("delayed scaling needs computed_by \"scale\"");
    setup->options.perTensor.scale = *storedScale;
  }
  if (setup->desc.format == layout::Format::NVFP4 &&
      setup->options.nvfp4.stochasticRounding) {
    assert(rng && "parseManifest: a stochastic quantize names its rng_state");
    setup->options.nvfp4.seed = rng->seed;
    setup->options.nvfp4.offset = rng->offset;
  }
  const layout::TargetCaps target =
      layout::TargetCaps::fromSM(manifest.target.sm);
  auto quantized =
      reference::quantize(input, setup->desc, target, setup->options);
  if (!quantized.ok())
    return Status::error("the reference cannot quantize argument '" + arg.name +
                         "': " + quantized.message());
  // The reference lays its buffers out as layout::describeBuffers does, and
  // parseManifest checked the argument's buffers against the same.
  assert(quantized->buffers.size() == arg.buffers.size() &&
         "parseManifest: proto buffers are their layout's");
  return std::move(*quantized);
}

std::vector<double> decodeTensor(const std::string &dtype,
                                 const std::vector<uint8_t> &bytes) {
  std::vector<double> values;
  if (dtype == "f32") {
    values.resize(bytes.size() / 4);
    for (size_t i = 0; i < values.size(); ++i) {
      uint32_t bits;
      std::memcpy(&bits, bytes.data() + 4 * i, 4);
      values[i] = reference::floatFromBits(bits);
    }
    return values;
  }
  values.resize(bytes.size() / 2);
  for (size_t i = 0; i < values.size(); ++i) {
    uint16_t half;
    std::memcpy(&half, bytes.data() + 2 * i, 2);
    values[i] = dtype == "bf16" ? reference::bf16ToFloat(half)
                                : reference::f16ToFloat(half);
  }
  return values;
}

std::vector<uint8_t> encodeTensor(const std::string &dtype,
                                  const std::vector<float> &values) {
  std::vector<uint8_t> bytes;
  if (dtype == "f32") {
    bytes.resize(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  }
  bytes.resize(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) {
    uint16_t bits = dtype == "bf16" ? reference::floatToBF16(values[i])
                                    : reference::floatToF16(values[i]);
    std::memcpy(bytes.data() + 2 * i, &bits, 2);
  }
  return bytes;
}

double roundTo(const std::string &dtype, double value) {
  float f = static_cast<float>(value);
  if (dtype == "bf16")
    return reference::bf16ToFloat(reference::floatToBF16(f));
  if (dtype == "f16")
    return reference::f16ToFloat(reference::floatToF16(f));
  return f;
}

std::pair<int64_t, int64_t> flat2D(const std::vector<int64_t> &shape) {
  layout::Flat2D f = layout::flatten2D(shape);
  return {f.m, f.k};
}

std::vector<int64_t> allRows(const std::vector<int64_t> &shape) {
  std::vector<int64_t> rows(static_cast<size_t>(flat2D(shape).first));
  for (size_t r = 0; r < rows.size(); ++r)
    rows[r] = static_cast<int64_t>(r);
  return rows;
}

} // namespace mlir::teq::check

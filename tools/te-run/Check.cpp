//===- Check.cpp - te-run's comparison against the CPU reference ----------===//

#include "Check.h"

#include "teq/Layout/BufferLayout.h"
#include "teq/Reference/Numerics.h"
#include "teq/Reference/Quantize.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

namespace mlir::teq::terun {

using runtime::BufferSpec;
using runtime::ComputedBy;
using runtime::ComputeOp;
using runtime::ProtoSpec;
using runtime::QuantizerDesc;
using runtime::QuantizerKind;
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

StatusOr<reference::DType> referenceDType(const std::string &dtype) {
  if (dtype == "f32")
    return reference::DType::F32;
  if (dtype == "bf16")
    return reference::DType::BF16;
  if (dtype == "f16")
    return reference::DType::F16;
  return Status::error("unknown dtype \"" + dtype + "\"");
}

/// The reference's description of a quantizer as the manifest gives it
/// (parseManifest checked its fields; absent ones are the contract's
/// defaults).
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
    // The stored scale comes from the argument computed_by names "scale";
    // checkArg fills it in.
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
    // "rng_state"; checkArg fills them in.
    setup.options.nvfp4.stochasticRounding = q.stochasticRounding;
    return setup;
  }
  return notAvailable(std::string("quantizer kind \"") + q.kindName() + "\"");
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
            std::optional<RngState> rng = std::nullopt,
            std::optional<float> reducedAmax = std::nullopt) {
  auto setup = quantizerSetup(arg.proto);
  if (!setup.ok())
    return setup.status();
  if (reducedAmax) {
    if (arg.proto.quantizer.kind != QuantizerKind::Float8CurrentScaling)
      return notAvailable(std::string("amax reduction of quantizer kind \"") +
                          arg.proto.quantizer.kindName() + "\"");
    setup->options.perTensor.amax = *reducedAmax;
  }
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

//===----------------------------------------------------------------------===//
// Programs: values by name, recomputed on the CPU, and GEMM outputs
//===----------------------------------------------------------------------===//

/// A value of the entry's program as the CPU reconstructs it: a
/// high-precision tensor (decoded to double) or a quantized tensor.
struct CpuValue {
  const ArgSpec *spec = nullptr;
  std::vector<double> values; ///< Tensors, row-major.
  std::optional<reference::QuantizedTensor> quantized;
  /// Bit-identical to what the GPU computed: arguments, and quantizations
  /// of exact values. CPU GEMM/elementwise results are not (accumulation
  /// order, f32 vs float64), nor is anything computed from them: their FP8
  /// codes can differ from the GPU's by one step where a value sits near a
  /// rounding boundary, so checks downstream compare with a wider limit.
  bool exact = true;
};

/// Limits of the relative Frobenius error (te-semantics.md §6.4): fp32
/// partial sums (split accumulation), the tensor cores' narrower ones (fast
/// accumulation), and operands whose FP8 codes may differ by one step.
constexpr double kSplitAccumulationLimit = 1e-3;
constexpr double kFastAccumulationLimit = 1e-2;
constexpr double kInexactOperandLimit = 2e-2;
/// Sums over ranks of exact operands (Check.h: NCCL's order and precision
/// are its own): one bf16 ulp.
constexpr double kReducedSumLimit = 1.0 / 256;

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

/// `value` rounded to `dtype` as the GPU stores it (RNE).
double roundTo(const std::string &dtype, double value) {
  float f = static_cast<float>(value);
  if (dtype == "bf16")
    return reference::bf16ToFloat(reference::floatToBF16(f));
  if (dtype == "f16")
    return reference::f16ToFloat(reference::floatToF16(f));
  return f;
}

/// [rows, cols] of a shape flattened as TE does.
std::pair<int64_t, int64_t> flat2D(const std::vector<int64_t> &shape) {
  layout::Flat2D f = layout::flatten2D(shape);
  return {f.m, f.k};
}

/// Every row index of a tensor of `shape` flattened to 2D.
std::vector<int64_t> allRows(const std::vector<int64_t> &shape) {
  std::vector<int64_t> rows(static_cast<size_t>(flat2D(shape).first));
  for (size_t r = 0; r < rows.size(); ++r)
    rows[r] = static_cast<int64_t>(r);
  return rows;
}

class ProgramEvaluator;

/// Every rank's buffers of a multi-rank run and their evaluators, made when
/// a collective or an amax reduction first needs another rank's values.
struct RankEvaluators {
  std::vector<RankBuffers> buffers;
  std::vector<std::unique_ptr<ProgramEvaluator>> evaluators;
};

class ProgramEvaluator {
public:
  ProgramEvaluator(const Manifest &manifest, const EntrySpec &entry,
                   const HostBuffers &before, const HostBuffers &after,
                   RankEvaluators *ranks = nullptr, int rank = 0)
      : manifest(manifest), entry(entry), before(before), after(after),
        ranks(ranks), rank(rank) {}

  /// The value `name` ("arg0", "result1", "t3", "view(t3)").
  StatusOr<const CpuValue *> value(const std::string &name);

  /// The value a computed_by names (parseManifest checked it exists).
  StatusOr<const CpuValue *> named(const std::string &name) {
    return value(name);
  }
  /// Recomputes the value `spec` describes from its computed_by.
  StatusOr<CpuValue> compute(const ArgSpec &spec);
  /// Checks an output by recomputing it: bit for bit when exact.
  Status checkRecomputed(const ArgSpec &arg, size_t argIndex,
                         CheckReport &report);
  /// The quantized tensor in buffers `source` of argument `arg` (#index).
  StatusOr<reference::QuantizedTensor>
  quantizedFromBytes(const ArgSpec &arg, const HostBuffers &source,
                     size_t index);
  /// Whether every value `by` names is exact (see CpuValue).
  bool namesExact(const ComputedBy &by);
  /// Compares quantized output `arg` with `expected`: bit for bit when
  /// exact, by dequantized values otherwise.
  void compareQuantized(const ArgSpec &arg, size_t argIndex,
                        const reference::QuantizedTensor &expected, bool exact,
                        CheckReport &report);
  /// Checks output `arg` computed by a GEMM.
  Status checkGemm(const ArgSpec &arg, size_t argIndex, CheckReport &report);
  /// Checks an output that is a copy or an elementwise op.
  Status checkComputed(const ArgSpec &arg, size_t argIndex,
                       CheckReport &report);
  static bool isElementwise(const std::string &op);
  /// An elementwise op's float64 values from its named inputs.
  StatusOr<std::vector<double>> elementwise(const ComputedBy &by);
  /// Checks output `arg` computed by teq.bias_grad.
  Status checkBiasGrad(const ArgSpec &arg, size_t argIndex,
                       CheckReport &report);

private:
  /// Value `name` on every rank of the group `by.group` names, in rank
  /// order; fails (not available) without the other ranks' buffers.
  StatusOr<std::vector<const CpuValue *>> onEveryRank(const ComputedBy &by,
                                                      const std::string &name,
                                                      const std::string &what);
  /// A collective's result (all_gather, reduce_scatter, all_reduce).
  StatusOr<CpuValue> collective(const ArgSpec &spec);

  /// The GEMM's float64 product (rows of D in `rows` only).
  StatusOr<std::vector<double>> gemmProduct(const ComputedBy &by,
                                            const std::vector<int64_t> &rows,
                                            int64_t &n, int64_t &m);
  StatusOr<std::vector<double>> operandMatrix(const std::string &name,
                                              bool rowwise, int64_t &rows,
                                              int64_t &cols);

  /// Compares output `arg` (rows `rows` of it, flattened to 2D) with
  /// `expected` by relative Frobenius error against `limit`.
  void compareWithReference(const ArgSpec &arg, size_t argIndex,
                            const std::vector<int64_t> &rows,
                            const std::vector<double> &expected, double limit,
                            const std::string &against, CheckReport &report);

  const Manifest &manifest;
  const EntrySpec &entry;
  const HostBuffers &before;
  const HostBuffers &after;
  RankEvaluators *ranks;
  int rank;
  std::map<std::string, CpuValue> cache;
};

StatusOr<std::vector<const CpuValue *>>
ProgramEvaluator::onEveryRank(const ComputedBy &by, const std::string &name,
                              const std::string &what) {
  const std::string group =
      by.group >= 0 && by.group < static_cast<int64_t>(entry.groups.size())
          ? "group '" + entry.groups[by.group].name + "'"
          : "group " + std::to_string(by.group);
  if (!ranks)
    return notAvailable(what + " over " + group +
                        ": it needs every rank's values (te-run --nranks)");
  const int64_t n = static_cast<int64_t>(ranks->buffers.size());
  // A group of size 0 (only amax reductions) spans whatever ranks run.
  if (by.group < 0 || by.group >= static_cast<int64_t>(entry.groups.size()) ||
      (entry.groups[by.group].size != 0 && entry.groups[by.group].size != n))
    return Status::error(
        what + " over " + group + ": the run has " + std::to_string(n) +
        " ranks, the group " +
        (by.group >= 0 && by.group < static_cast<int64_t>(entry.groups.size())
             ? std::to_string(entry.groups[by.group].size)
             : std::string("is unknown")));
  ranks->evaluators.resize(static_cast<size_t>(n));
  std::vector<const CpuValue *> values;
  for (int r = 0; r < n; ++r) {
    ProgramEvaluator *evaluator = this;
    if (r != rank) {
      auto &peer = ranks->evaluators[r];
      if (!peer)
        peer = std::make_unique<ProgramEvaluator>(
            manifest, entry, *ranks->buffers[r].before,
            *ranks->buffers[r].after, ranks, r);
      evaluator = peer.get();
    }
    auto v = evaluator->value(name);
    if (!v.ok())
      return v.status().withPrefix("rank " + std::to_string(r));
    values.push_back(*v);
  }
  return values;
}

StatusOr<CpuValue> ProgramEvaluator::collective(const ArgSpec &spec) {
  const ComputedBy &by = *spec.computedBy;
  const std::string what = "'" + spec.name + "' (" + by.opName() + ")";
  auto inputs = onEveryRank(by, by.input, what);
  if (!inputs.ok())
    return inputs.status();
  const int64_t n = static_cast<int64_t>(inputs->size());
  CpuValue v;
  v.spec = &spec;
  for (const CpuValue *in : *inputs)
    v.exact = v.exact && in->exact;
  if (by.op == ComputeOp::AllGather && spec.isProto) {
    // Per-tensor FP8: every rank's data in rank order; the other buffers
    // (scale_inv) are this rank's own.
    const CpuValue &own = *(*inputs)[rank];
    if (!own.quantized)
      return Status::error(what + ": its input is not quantized");
    auto setup = quantizerSetup(spec.proto);
    if (!setup.ok())
      return setup.status();
    reference::QuantizedTensor out;
    out.desc = setup->desc;
    out.target = own.quantized->target;
    for (const layout::BufferDesc &desc :
         layout::describeBuffers(out.desc, out.target)) {
      reference::Buffer buffer{desc, {}};
      if (desc.name == "data") {
        for (const CpuValue *in : *inputs) {
          const reference::Buffer *part =
              in->quantized ? in->quantized->find("data") : nullptr;
          if (!part)
            return Status::error(what + ": an input has no data buffer");
          buffer.bytes.insert(buffer.bytes.end(), part->bytes.begin(),
                              part->bytes.end());
        }
      } else {
        const reference::Buffer *from = own.quantized->find(desc.name);
        if (!from)
          return Status::error(what + ": its input has no buffer '" +
                               desc.name + "'");
        buffer.bytes = from->bytes;
      }
      if (buffer.bytes.size() != static_cast<size_t>(desc.sizeInBytes()))
        return Status::error(what + ": buffer '" + desc.name + "' has " +
                             std::to_string(buffer.bytes.size()) +
                             " bytes from the ranks, the layout " +
                             std::to_string(desc.sizeInBytes()));
      out.buffers.push_back(std::move(buffer));
    }
    v.quantized = std::move(out);
    return v;
  }
  for (const CpuValue *in : *inputs)
    if (in->quantized)
      return notAvailable(what + " of a quantized value");
  if (by.op == ComputeOp::AllGather) {
    for (const CpuValue *in : *inputs)
      v.values.insert(v.values.end(), in->values.begin(), in->values.end());
    return v;
  }
  // Sums, in float64 in rank order (Check.h: not NCCL's order).
  std::vector<double> sum((*inputs)[0]->values.size(), 0.0);
  for (const CpuValue *in : *inputs) {
    if (in->values.size() != sum.size())
      return Status::error(what + ": the ranks' inputs differ in size");
    for (size_t i = 0; i < sum.size(); ++i)
      sum[i] += in->values[i];
  }
  if (by.op == ComputeOp::ReduceScatter) {
    size_t block = sum.size() / static_cast<size_t>(n);
    v.values.assign(sum.begin() + rank * block,
                    sum.begin() + (rank + 1) * block);
  } else {
    v.values = std::move(sum);
  }
  v.exact = false;
  return v;
}

StatusOr<reference::QuantizedTensor>
ProgramEvaluator::quantizedFromBytes(const ArgSpec &arg,
                                     const HostBuffers &source, size_t index) {
  auto setup = quantizerSetup(arg.proto);
  if (!setup.ok())
    return setup.status().withPrefix("argument '" + arg.name + "'");
  reference::QuantizedTensor q;
  q.desc = setup->desc;
  q.target = layout::TargetCaps::fromSM(manifest.target.sm);
  std::vector<layout::BufferDesc> descs =
      layout::describeBuffers(q.desc, q.target);
  if (descs.size() != arg.buffers.size())
    return Status::error("layout mismatch for argument '" + arg.name + "'");
  for (size_t b = 0; b < descs.size(); ++b)
    q.buffers.push_back({descs[b], source[flatIndex(entry, index, b)]});
  return q;
}

StatusOr<const CpuValue *> ProgramEvaluator::value(const std::string &name) {
  // A usage view ("view(x)") reads the buffers of what it views.
  const ArgSpec *found = entry.findValue(name);
  if (!found)
    return Status::error("the program names an unknown value '" + name + "'");
  auto cached = cache.find(found->name);
  if (cached != cache.end())
    return &cached->second;
  CpuValue v;
  const ArgSpec *arg = found->kind == runtime::ArgKind::Temporary ? nullptr
                                                                  : found;
  const ArgSpec *temporary = arg ? nullptr : found;
  if (arg) {
    // Arguments: what the GPU read (inputs) or wrote (earlier outputs).
    v.spec = arg;
    size_t index = static_cast<size_t>(arg - entry.args.data());
    const HostBuffers &source = arg->isRead() ? before : after;
    if (!arg->isProto) {
      v.values = decodeTensor(arg->tensor.dtype, source[flatIndex(entry, index, 0)]);
    } else {
      auto q = quantizedFromBytes(*arg, source, index);
      if (!q.ok())
        return q.status();
      v.quantized = std::move(*q);
    }
    return &(cache[found->name] = std::move(v));
  }
  // Temporaries: recomputed from their inputs, and a tensor recomputed in
  // float64 stored in its dtype as the GPU stores it.
  auto computed = compute(*temporary);
  if (!computed.ok())
    return computed.status();
  if (!computed->quantized && !computed->exact)
    for (double &x : computed->values)
      x = roundTo(temporary->tensor.dtype, x);
  return &(cache[found->name] = std::move(*computed));
}

StatusOr<CpuValue> ProgramEvaluator::compute(const ArgSpec &spec) {
  const std::string &name = spec.name;
  CpuValue v;
  v.spec = &spec;
  if (!spec.computedBy)
    return Status::error("'" + name + "' has no computed_by");
  const ComputedBy &by = *spec.computedBy;
  if (by.op == ComputeOp::AllGather || by.op == ComputeOp::ReduceScatter ||
      by.op == ComputeOp::AllReduce)
    return collective(spec);
  if (by.op == ComputeOp::Quantize) {
    auto input = named(by.input);
    if (!input.ok())
      return input.status();
    const CpuValue &in = **input;
    if (!spec.isProto)
      return notAvailable("op quantize into a tensor ('" + name + "')");
    if (in.quantized)
      return Status::error("'" + name + "' quantizes a quantized value");
    if (in.spec->tensor.dtype != spec.proto.dtype ||
        in.spec->tensor.shape != spec.proto.shape)
      return Status::error("'" + name + "': its input '" + in.spec->name +
                           "' differs in dtype or shape from the proto");
    // An argument's bytes as the GPU read them; a recomputed value rounded
    // to the proto's dtype as the GPU stored it.
    reference::Input ri;
    if (const ArgSpec *source = entry.findArg(in.spec->name)) {
      size_t index = static_cast<size_t>(source - entry.args.data());
      auto fromBytes =
          makeInput(source->tensor.dtype, source->tensor.shape,
                    (source->isRead() ? before : after)[flatIndex(entry, index, 0)]);
      if (!fromBytes.ok())
        return fromBytes.status();
      ri = std::move(*fromBytes);
    } else {
      auto dtype = referenceDType(spec.proto.dtype);
      if (!dtype.ok())
        return dtype.status();
      std::vector<float> values(in.values.begin(), in.values.end());
      ri = reference::Input::rounded(*dtype, spec.proto.shape, values);
    }
    std::optional<float> storedScale;
    if (!by.scale.empty()) {
      auto scale = named(by.scale);
      if (!scale.ok())
        return scale.status();
      storedScale = static_cast<float>((*scale)->values.at(0));
    }
    std::optional<RngState> rng;
    if (!by.rngState.empty()) {
      const ArgSpec *source = entry.findArg(by.rngState);
      if (!source || source->tensor.dtype != "i64")
        return Status::error("'" + name + "': rng_state must name an i64[2] "
                             "argument");
      const std::vector<uint8_t> &bytes =
          before[flatIndex(entry, static_cast<size_t>(source - entry.args.data()), 0)];
      RngState state;
      std::memcpy(&state.seed, bytes.data(), 8);
      std::memcpy(&state.offset, bytes.data() + 8, 8);
      rng = state;
    }
    // With amax reduction: the max over the group of every rank's amax
    // (what the amax all-reduce leaves on each rank).
    std::optional<float> reducedAmax;
    bool exact = in.exact;
    if (by.group >= 0) {
      auto inputs =
          onEveryRank(by, by.input, "'" + name + "' (amax reduction)");
      if (!inputs.ok())
        return inputs.status();
      float amax = 0.0f;
      for (const CpuValue *x : *inputs) {
        exact = exact && x->exact;
        for (double value : x->values)
          amax = reference::amaxAccumulate(amax, static_cast<float>(value));
      }
      reducedAmax = amax;
    }
    auto q = quantizeArg(manifest, spec, ri, storedScale, rng, reducedAmax);
    if (!q.ok())
      return q.status();
    v.quantized = std::move(*q);
    v.exact = exact;
    return v;
  }
  if (by.op == ComputeOp::SwizzleScales) {
    // The input's buffers, each scale moved from its compact byte to its
    // swizzled one (padding included).
    auto input = named(by.input);
    if (!input.ok())
      return input.status();
    const CpuValue &in = **input;
    if (!spec.isProto || !in.quantized)
      return Status::error("'" + name + "': swizzle_scales takes and makes "
                           "quantized values");
    auto setup = quantizerSetup(spec.proto);
    if (!setup.ok())
      return setup.status();
    reference::QuantizedTensor out = *in.quantized;
    out.desc = setup->desc;
    out.buffers.clear();
    for (const layout::BufferDesc &desc :
         layout::describeBuffers(out.desc, in.quantized->target)) {
      const reference::Buffer *from = in.quantized->find(desc.name);
      if (!from || from->bytes.size() != static_cast<size_t>(desc.sizeInBytes()))
        return Status::error("'" + name + "': its input '" + in.spec->name +
                             "' has no buffer '" + desc.name +
                             "' of the same size");
      reference::Buffer buffer{desc, from->bytes};
      if (desc.scaleLayout)
        for (int64_t row = 0; row < desc.shape[0]; ++row)
          for (int64_t col = 0; col < desc.shape[1]; ++col)
            buffer.bytes[reference::scaleByteOffset(desc, out.desc.format, row,
                                                    col)] =
                from->bytes[reference::scaleByteOffset(from->desc,
                                                       out.desc.format, row,
                                                       col)];
      out.buffers.push_back(std::move(buffer));
    }
    v.quantized = std::move(out);
    v.exact = in.exact;
    return v;
  }
  if (by.op == ComputeOp::UpdateUsage) {
    // Another usage of the same quantized tensor: the buffers it shares
    // with its input are the input's; per-tensor FP8's transposed data is
    // the rowwise data transposed (TE's derivation after an all-gather).
    auto input = named(by.input);
    if (!input.ok())
      return input.status();
    const CpuValue &in = **input;
    if (!spec.isProto || !in.quantized)
      return Status::error("'" + name +
                           "': update_usage takes and makes "
                           "quantized values");
    auto setup = quantizerSetup(spec.proto);
    if (!setup.ok())
      return setup.status();
    reference::QuantizedTensor out = *in.quantized;
    out.desc = setup->desc;
    out.buffers.clear();
    for (const layout::BufferDesc &desc :
         layout::describeBuffers(out.desc, in.quantized->target)) {
      reference::Buffer buffer{desc, {}};
      const reference::Buffer *data = in.quantized->find("data");
      if (const reference::Buffer *same = in.quantized->find(desc.name)) {
        buffer.bytes = same->bytes;
      } else if (desc.name == "transpose" && data &&
                 data->desc.shape.size() == 2 && desc.shape.size() == 2 &&
                 desc.shape[0] == data->desc.shape[1] &&
                 desc.shape[1] == data->desc.shape[0] &&
                 data->bytes.size() ==
                     static_cast<size_t>(desc.shape[0] * desc.shape[1])) {
        const int64_t rows = data->desc.shape[0], cols = data->desc.shape[1];
        buffer.bytes.resize(data->bytes.size());
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c)
            buffer.bytes[c * rows + r] = data->bytes[r * cols + c];
      } else {
        return notAvailable("'" + name + "' (update_usage deriving buffer '" +
                            desc.name + "')");
      }
      if (buffer.bytes.size() != static_cast<size_t>(desc.sizeInBytes()))
        return Status::error("'" + name + "': buffer '" + desc.name +
                             "' differs in size from its input's");
      out.buffers.push_back(std::move(buffer));
    }
    v.quantized = std::move(out);
    v.exact = in.exact;
    return v;
  }
  if (by.op == ComputeOp::Gemm) {
    if (!by.outputsD)
      return notAvailable("'" + name + "' (a GEMM's dbias)");
    int64_t n = 0, m = 0;
    auto product = gemmProduct(by, allRows(spec.tensor.shape), n, m);
    if (!product.ok())
      return product.status();
    v.values = std::move(*product);
    v.exact = false;
    return v;
  }
  if (by.op == ComputeOp::Constant) {
    // A splat: its value is one of the dtype's, so it is exact.
    int64_t elements = 1;
    for (int64_t d : spec.tensor.shape)
      elements *= d;
    v.values.assign(static_cast<size_t>(elements),
                    roundTo(spec.tensor.dtype, by.value));
    return v;
  }
  if (by.op == ComputeOp::Elementwise && isElementwise(by.elementwiseOp)) {
    auto values = elementwise(by);
    if (!values.ok())
      return values.status().withPrefix("'" + name + "'");
    v.values = std::move(*values);
    v.exact = false;
    return v;
  }
  if (by.op == ComputeOp::ExtractSlice || by.op == ComputeOp::InsertSlice) {
    bool insert = by.op == ComputeOp::InsertSlice;
    auto source = named(by.input);
    if (!source.ok())
      return source.status();
    const std::vector<int64_t> &offsets = by.offsets, &sizes = by.sizes,
                               &strides = by.strides;
    const CpuValue *full = *source;
    if (insert) {
      auto dest = named(by.dest);
      if (!dest.ok())
        return dest.status();
      full = *dest;
    }
    const std::vector<int64_t> &fullShape = full->spec->tensor.shape;
    if (offsets.size() != fullShape.size() || sizes.size() != fullShape.size() ||
        strides.size() != fullShape.size())
      return Status::error("'" + name + "': slice rank differs from its tensor's");
    int64_t elements = 1;
    for (int64_t x : sizes)
      elements *= x;
    // Element i of the slice (row-major over sizes) in the full tensor.
    auto fullIndex = [&](int64_t i) {
      int64_t index = 0, stride = 1;
      for (size_t d = sizes.size(); d-- > 0;) {
        int64_t idx = i % sizes[d];
        i /= sizes[d];
        index += (offsets[d] + idx * strides[d]) * stride;
        stride *= fullShape[d];
      }
      return index;
    };
    if (insert) {
      v.values = full->values;
      for (int64_t i = 0; i < elements; ++i)
        v.values[fullIndex(i)] = (*source)->values[i];
    } else {
      v.values.resize(static_cast<size_t>(elements));
      for (int64_t i = 0; i < elements; ++i)
        v.values[i] = full->values[fullIndex(i)];
    }
    v.exact = full->exact && (*source)->exact;
    return v;
  }
  if (by.op == ComputeOp::RecordAmax) {
    // history[0] = fmaxf(history[0], max|x|); the rest unchanged (§5.2).
    auto input = named(by.input);
    auto history = named(by.amaxHistory);
    if (!input.ok())
      return input.status();
    if (!history.ok())
      return history.status();
    reference::DelayedScalingState state;
    for (double h : (*history)->values)
      state.amaxHistory.push_back(static_cast<float>(h));
    float amax = 0.0f;
    for (double x : (*input)->values)
      amax = std::fmax(amax, std::fabs(static_cast<float>(x)));
    reference::recordAmax(state, amax);
    v.values.assign(state.amaxHistory.begin(), state.amaxHistory.end());
    v.exact = (*input)->exact && (*history)->exact;
    return v;
  }
  if (by.op == ComputeOp::DelayedScalingUpdate) {
    auto scale = named(by.scale);
    auto history = named(by.amaxHistory);
    if (!scale.ok())
      return scale.status();
    if (!history.ok())
      return history.status();
    int64_t slots = static_cast<int64_t>((*scale)->values.size());
    int64_t length = static_cast<int64_t>((*history)->values.size()) /
                     std::max<int64_t>(slots, 1);
    std::vector<double> scales = (*scale)->values, hist = (*history)->values;
    bool exact = (*scale)->exact && (*history)->exact;
    // With an amax group: row 0 all-reduced (max) over the group's ranks.
    std::vector<std::optional<float>> reduced(static_cast<size_t>(slots));
    if (by.group >= 0) {
      auto histories = onEveryRank(by, by.amaxHistory,
                                   "'" + name + "' (amax reduction)");
      if (!histories.ok())
        return histories.status();
      for (int64_t slot = 0; slot < slots; ++slot) {
        float max = -std::numeric_limits<float>::infinity();
        for (const CpuValue *h : *histories) {
          exact = exact && h->exact;
          max = std::fmax(max, static_cast<float>(h->values[slot]));
        }
        reduced[slot] = max;
      }
    }
    for (int64_t slot = 0; slot < slots; ++slot) {
      reference::DelayedScalingState state;
      state.scale = static_cast<float>(scales[slot]);
      for (int64_t l = 0; l < length; ++l)
        state.amaxHistory.push_back(static_cast<float>(hist[l * slots + slot]));
      reference::updateDelayedScaling(
          state, static_cast<float>(by.fp8Max), static_cast<int>(by.margin),
          by.mostRecentAmax ? reference::AmaxComputeAlgo::MostRecent
                            : reference::AmaxComputeAlgo::Max,
          reduced[slot]);
      scales[slot] = state.scale;
      for (int64_t l = 0; l < length; ++l)
        hist[l * slots + slot] = state.amaxHistory[l];
    }
    v.values = by.outputsScale ? scales : hist;
    v.exact = exact;
    return v;
  }
  if (by.op == ComputeOp::BiasGrad) {
    auto input = named(by.input);
    if (!input.ok())
      return input.status();
    if ((*input)->quantized)
      return Status::error("'" + name + "': bias_grad of a quantized value");
    int64_t n = 1;
    for (int64_t d : spec.tensor.shape)
      n *= d;
    v.values.assign(static_cast<size_t>(n), 0.0);
    for (size_t i = 0; i < (*input)->values.size(); ++i)
      v.values[i % n] += (*input)->values[i];
    v.exact = false;
    return v;
  }
  return notAvailable("'" + name + "' computed by " + by.opName());
}

bool ProgramEvaluator::isElementwise(const std::string &op) {
  return artifact::elementwiseArity(op) > 0;
}

StatusOr<std::vector<double>>
ProgramEvaluator::elementwise(const ComputedBy &by) {
  const std::string &op = by.elementwiseOp;
  if (!isElementwise(op))
    return notAvailable(op);
  std::vector<const std::vector<double> *> args;
  for (const std::string &input : by.inputs) {
    auto v = value(input);
    if (!v.ok())
      return v.status();
    if ((*v)->quantized)
      return Status::error(op + " of a quantized value");
    args.push_back(&(*v)->values);
  }
  // The GPU computes in f32 from the stored inputs and rounds once.
  std::vector<double> out(args[0]->size());
  for (size_t i = 0; i < out.size(); ++i) {
    double a = (*args[0])[i];
    double b = args.size() > 1 ? (*args[1])[i] : 0.0;
    double r;
    if (op == "arith.addf") r = a + b;
    else if (op == "arith.subf") r = a - b;
    else if (op == "arith.mulf") r = a * b;
    else if (op == "arith.divf") r = a / b;
    else if (op == "arith.negf") r = -a;
    else if (op == "arith.maximumf" || op == "arith.maxnumf") r = std::fmax(a, b);
    else if (op == "arith.minimumf" || op == "arith.minnumf") r = std::fmin(a, b);
    else if (op == "math.tanh") r = std::tanh(a);
    else if (op == "math.exp") r = std::exp(a);
    else if (op == "math.erf") r = std::erf(a);
    // Rounded to the result's dtype where it is stored.
    else if (op == "arith.extf" || op == "arith.truncf") r = a;
    else r = std::fabs(a);
    out[i] = r;
  }
  return out;
}

Status ProgramEvaluator::checkComputed(const ArgSpec &arg, size_t argIndex,
                                       CheckReport &report) {
  const ComputedBy &by = *arg.computedBy;
  if (by.op == ComputeOp::Copy) {
    auto source = named(by.input);
    if (!source.ok())
      return source.status().withPrefix("argument '" + arg.name + "'");
    if ((*source)->quantized) {
      compareQuantized(arg, argIndex, *(*source)->quantized, (*source)->exact,
                       report);
      return Status::success();
    }
    std::vector<int64_t> all = allRows(arg.tensor.shape);
    compareWithReference(arg, argIndex, all, (*source)->values,
                         (*source)->exact ? kSplitAccumulationLimit
                                          : kInexactOperandLimit,
                         "its source '" + by.input + "'", report);
    return Status::success();
  }
  auto values = elementwise(by);
  if (!values.ok())
    return values.status().withPrefix("argument '" + arg.name + "'");
  std::vector<int64_t> all = allRows(arg.tensor.shape);
  compareWithReference(arg, argIndex, all, *values,
                       namesExact(by) ? kSplitAccumulationLimit
                                      : kInexactOperandLimit,
                       by.opName() + " in float64 of its inputs", report);
  return Status::success();
}

StatusOr<std::vector<double>>
ProgramEvaluator::operandMatrix(const std::string &name, bool rowwise,
                                int64_t &rows, int64_t &cols) {
  auto v = value(name);
  if (!v.ok())
    return v.status();
  const CpuValue &value = **v;
  const ArgSpec &spec = *value.spec;
  std::tie(rows, cols) =
      flat2D(spec.isProto ? spec.proto.shape : spec.tensor.shape);
  if (!value.quantized)
    return value.values;
  auto values = reference::dequantize(
      *value.quantized,
      rowwise ? layout::UsageRowwise : layout::UsageColumnwise);
  if (!values.ok())
    return Status::error("cannot dequantize '" + name + "': " +
                         values.message());
  return std::vector<double>(values->begin(), values->end());
}

StatusOr<std::vector<double>>
ProgramEvaluator::gemmProduct(const ComputedBy &by,
                              const std::vector<int64_t> &rows, int64_t &n,
                              int64_t &m) {
  const bool transa = by.transa, transb = by.transb;
  int64_t a0, a1, b0, b1;
  // TE: A is read rowwise if transposed, B columnwise if transposed.
  auto a = operandMatrix(by.a, transa, a0, a1);
  if (!a.ok())
    return a.status();
  auto b = operandMatrix(by.b, !transb, b0, b1);
  if (!b.ok())
    return b.status();
  m = transa ? a0 : a1;
  int64_t k = transa ? a1 : a0;
  n = transb ? b1 : b0;
  std::vector<double> bias, c;
  if (!by.bias.empty()) {
    auto v = value(by.bias);
    if (!v.ok())
      return v.status();
    bias = (*v)->values;
  }
  if (!by.accumulate.empty()) {
    auto v = value(by.accumulate);
    if (!v.ok())
      return v.status();
    c = (*v)->values;
  }
  // D[i][j] = sum_l opB[i][l] opA[l][j] (row-major, D is [n, m]).
  const std::vector<double> &A = *a, &B = *b;
  std::vector<double> d(rows.size() * static_cast<size_t>(m), 0.0);
  std::vector<double> bRow(static_cast<size_t>(k));
  for (size_t r = 0; r < rows.size(); ++r) {
    int64_t i = rows[r];
    for (int64_t l = 0; l < k; ++l)
      bRow[l] = transb ? B[l * b1 + i] : B[i * b1 + l];
    double *out = d.data() + r * m;
    if (transa) {
      // opA[l][j] = A[j][l]: dot products of contiguous rows.
      for (int64_t j = 0; j < m; ++j) {
        const double *aRow = A.data() + j * a1;
        double sum = 0.0;
        for (int64_t l = 0; l < k; ++l)
          sum += bRow[l] * aRow[l];
        out[j] = sum;
      }
    } else {
      for (int64_t l = 0; l < k; ++l) {
        const double *aRow = A.data() + l * a1;
        double s = bRow[l];
        for (int64_t j = 0; j < m; ++j)
          out[j] += s * aRow[j];
      }
    }
    for (int64_t j = 0; j < m; ++j) {
      if (!bias.empty())
        out[j] += bias[j];
      if (!c.empty())
        out[j] += c[i * m + j];
    }
  }
  return d;
}

Status ProgramEvaluator::checkGemm(const ArgSpec &arg, size_t argIndex,
                                   CheckReport &report) {
  const ComputedBy &by = *arg.computedBy;
  if (!by.outputsD) {
    // BGRADB: dbias[i] = sum_l opB[i][l] (B is the gradient).
    const bool transb = by.transb;
    int64_t b0, b1;
    auto b = operandMatrix(by.b, !transb, b0, b1);
    if (!b.ok())
      return b.status();
    int64_t n = transb ? b1 : b0;
    std::vector<double> sums(static_cast<size_t>(n), 0.0);
    for (int64_t r = 0; r < b0; ++r)
      for (int64_t c = 0; c < b1; ++c)
        sums[transb ? c : r] += (*b)[r * b1 + c];
    compareWithReference(arg, argIndex, {0}, sums, 1e-3,
                         "the float64 sums of the GEMM's B (BGRADB)", report);
    return Status::success();
  }
  if (arg.isProto)
    return Status::error("argument '" + arg.name + "': a GEMM writes a tensor");
  auto [rowsD, colsD] = flat2D(arg.tensor.shape);
  // Large products are checked on evenly spaced rows (about 2^31
  // multiply-adds at most), always including the first and last row.
  int64_t k = 1;
  {
    auto a = value(by.a);
    if (!a.ok())
      return a.status();
    auto [a0, a1] = flat2D((*a)->spec->shape());
    k = by.transa ? a1 : a0;
  }
  const int64_t budget = int64_t(1) << 31;
  int64_t wanted = std::max<int64_t>(
      std::min<int64_t>(rowsD, budget / std::max<int64_t>(1, colsD * k)), 16);
  std::vector<int64_t> rows;
  for (int64_t r = 0; r < std::min(wanted, rowsD); ++r)
    rows.push_back(wanted >= rowsD ? r : r * (rowsD - 1) / (wanted - 1));
  int64_t n = 0, m = 0;
  auto product = gemmProduct(by, rows, n, m);
  if (!product.ok())
    return product.status().withPrefix("argument '" + arg.name + "'");
  if (n != rowsD || m != colsD)
    return Status::error("argument '" + arg.name + "': the GEMM gives [" +
                         std::to_string(n) + ", " + std::to_string(m) +
                         "], the output is [" + std::to_string(rowsD) + ", " +
                         std::to_string(colsD) + "]");
  const bool fastAccum = !by.useSplitAccumulator;
  // te-semantics §6.4: with split accumulation the partial sums are fp32;
  // fast accumulation keeps them in the tensor cores' narrower format.
  bool exact = namesExact(by);
  double limit = !exact     ? kInexactOperandLimit
                 : fastAccum ? kFastAccumulationLimit
                             : kSplitAccumulationLimit;
  compareWithReference(
      arg, argIndex, rows, *product, limit,
      std::string("the float64 product of the dequantized operands; ") +
          (fastAccum ? "fast" : "split") + " accumulation" +
          (exact ? "" : "; operands recomputed on the CPU from a GEMM or "
                        "elementwise result, so FP8 codes may differ by one "
                        "step"),
      report);
  return Status::success();
}

bool ProgramEvaluator::namesExact(const ComputedBy &by) {
  for (const auto &[key, name] : by.namedValues()) {
    auto v = value(name);
    if (v.ok() && !(*v)->exact)
      return false;
  }
  return true;
}

void ProgramEvaluator::compareQuantized(const ArgSpec &arg, size_t argIndex,
                                        const reference::QuantizedTensor &expected,
                                        bool exact, CheckReport &report) {
  if (!exact) {
    // Recomputed from inexact values: compare what the copies represent.
    auto gpu = quantizedFromBytes(arg, after, argIndex);
    if (!gpu.ok()) {
      report.passed = false;
      report.errors.push_back(gpu.status().message());
      return;
    }
    for (layout::Usage usage : {layout::UsageRowwise, layout::UsageColumnwise}) {
      if (!(gpu->desc.usage & usage))
        continue;
      auto got = reference::dequantize(*gpu, usage);
      auto want = reference::dequantize(expected, usage);
      if (!got.ok() || !want.ok()) {
        report.passed = false;
        report.errors.push_back("argument '" + arg.name +
                                "': cannot dequantize for the check");
        return;
      }
      double num = 0, den = 0;
      for (size_t i = 0; i < got->size(); ++i) {
        double d = double((*got)[i]) - double((*want)[i]);
        num += d * d;
        den += double((*want)[i]) * (*want)[i];
      }
      double rel = std::sqrt(num / std::max(den, 1e-300));
      BufferCheck check;
      check.arg = arg.name;
      check.buffer = usage == layout::UsageRowwise ? "rowwise (dequantized)"
                                                   : "columnwise (dequantized)";
      check.elements = static_cast<int64_t>(got->size());
      check.ok = rel <= kInexactOperandLimit;
      char text[256];
      std::snprintf(text, sizeof(text),
                    "%s: rel. Frobenius error %.3g of the dequantized "
                    "values (limit %.0e; recomputed on the CPU from a GEMM "
                    "or elementwise result, not bit-identical)",
                    check.ok ? "OK" : "FAILED", rel, kInexactOperandLimit);
      check.message = text;
      if (!check.ok)
        report.passed = false;
      report.buffers.push_back(std::move(check));
    }
    return;
  }
  // Bit for bit: the output's buffers, by name.
  for (size_t b = 0; b < arg.buffers.size(); ++b) {
    const reference::Buffer *want = expected.find(arg.buffers[b].name);
    if (!want) {
      report.passed = false;
      report.errors.push_back("argument '" + arg.name + "': the reference has "
                              "no buffer '" + arg.buffers[b].name + "'");
      continue;
    }
    BufferCheck check = compareBuffer(arg.name, arg.buffers[b], want->bytes,
                                      after[flatIndex(entry, argIndex, b)]);
    if (!check.ok)
      report.passed = false;
    report.buffers.push_back(std::move(check));
  }
}

Status ProgramEvaluator::checkRecomputed(const ArgSpec &arg, size_t argIndex,
                                         CheckReport &report) {
  auto v = compute(arg);
  if (!v.ok())
    return v.status().withPrefix("argument '" + arg.name + "'");
  if (v->quantized) {
    compareQuantized(arg, argIndex, *v->quantized, v->exact, report);
    return Status::success();
  }
  if (v->exact) {
    std::vector<uint8_t> bytes;
    for (double x : v->values) {
      float f = static_cast<float>(x);
      if (arg.tensor.dtype == "f32") {
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        for (int k = 0; k < 4; ++k)
          bytes.push_back(static_cast<uint8_t>(bits >> (8 * k)));
      } else {
        uint16_t half = arg.tensor.dtype == "bf16" ? reference::floatToBF16(f)
                                                   : reference::floatToF16(f);
        bytes.push_back(static_cast<uint8_t>(half));
        bytes.push_back(static_cast<uint8_t>(half >> 8));
      }
    }
    BufferCheck check = compareBuffer(arg.name, arg.buffers[0], bytes,
                                      after[flatIndex(entry, argIndex, 0)]);
    if (!check.ok)
      report.passed = false;
    report.buffers.push_back(std::move(check));
    return Status::success();
  }
  std::vector<int64_t> all = allRows(arg.tensor.shape);
  const ComputedBy &by = *arg.computedBy;
  if ((by.op == ComputeOp::ReduceScatter || by.op == ComputeOp::AllReduce) &&
      namesExact(by)) {
    compareWithReference(arg, argIndex, all, v->values, kReducedSumLimit,
                         "the float64 sum over the ranks", report);
    return Status::success();
  }
  compareWithReference(arg, argIndex, all, v->values, kInexactOperandLimit,
                       "its float64 recomputation", report);
  return Status::success();
}

Status ProgramEvaluator::checkBiasGrad(const ArgSpec &arg, size_t argIndex,
                                       CheckReport &report) {
  auto sums = compute(arg);
  if (!sums.ok())
    return sums.status().withPrefix("argument '" + arg.name + "'");
  compareWithReference(arg, argIndex, {0}, sums->values,
                       namesExact(*arg.computedBy) ? kSplitAccumulationLimit
                                                   : kInexactOperandLimit,
                       "the float64 column sums", report);
  return Status::success();
}

void ProgramEvaluator::compareWithReference(const ArgSpec &arg,
                                            size_t argIndex,
                                            const std::vector<int64_t> &rows,
                                            const std::vector<double> &expected,
                                            double limit,
                                            const std::string &against,
                                            CheckReport &report) {
  auto [rowsD, m] = flat2D(arg.tensor.shape);
  if (arg.tensor.shape.size() == 1) {
    rowsD = 1;
    m = arg.tensor.shape[0];
  }
  std::vector<double> gpu =
      decodeTensor(arg.tensor.dtype, after[flatIndex(entry, argIndex, 0)]);
  double refNorm = 0, errExact = 0, errRounded = 0;
  int64_t nonFinite = 0;
  for (size_t r = 0; r < rows.size(); ++r)
    for (int64_t j = 0; j < m; ++j) {
      double ref = expected[r * m + j];
      double got = gpu[rows[r] * m + j];
      if (!std::isfinite(got))
        ++nonFinite;
      refNorm += ref * ref;
      errExact += (got - ref) * (got - ref);
      double rounded = roundTo(arg.tensor.dtype, ref);
      errRounded += (got - rounded) * (got - rounded);
    }
  double relExact = std::sqrt(errExact / std::max(refNorm, 1e-300));
  double relRounded = std::sqrt(errRounded / std::max(refNorm, 1e-300));
  BufferCheck check;
  check.arg = arg.name;
  check.buffer = "tensor";
  check.elements = static_cast<int64_t>(rows.size()) * m;
  check.ok = nonFinite == 0 && relRounded <= limit;
  char text[320];
  std::snprintf(text, sizeof(text),
                "%s: rel. Frobenius error %.3g vs %s, rounded to %s (%.3g "
                "unrounded; limit %.0e; %zu of %lld rows)%s",
                check.ok ? "OK" : "FAILED", relRounded, against.c_str(),
                arg.tensor.dtype.c_str(), relExact, limit, rows.size(),
                static_cast<long long>(rowsD),
                nonFinite ? "; non-finite outputs" : "");
  check.message = text;
  if (!check.ok)
    report.passed = false;
  report.buffers.push_back(std::move(check));
}

/// Recomputes the output `arg` (index `argIndex`) per its computed_by.
Status checkArg(const Manifest &manifest, const EntrySpec &entry,
                size_t argIndex, const HostBuffers &before,
                const HostBuffers &after, RankEvaluators *ranks, int rank,
                CheckReport &report) {
  const ArgSpec &arg = entry.args[argIndex];
  const std::string what = "argument '" + arg.name + "'";
  if (!arg.computedBy)
    return notAvailable(what + ": the manifest has no computed_by");
  const ComputedBy &by = *arg.computedBy;
  if (by.op == ComputeOp::Gemm) {
    ProgramEvaluator program(manifest, entry, before, after, ranks, rank);
    return program.checkGemm(arg, argIndex, report);
  }
  if (by.op == ComputeOp::BiasGrad) {
    ProgramEvaluator program(manifest, entry, before, after, ranks, rank);
    return program.checkBiasGrad(arg, argIndex, report);
  }
  if (by.op == ComputeOp::Copy ||
      (by.op == ComputeOp::Elementwise &&
       ProgramEvaluator::isElementwise(by.elementwiseOp))) {
    ProgramEvaluator program(manifest, entry, before, after, ranks, rank);
    return program.checkComputed(arg, argIndex, report);
  }
  // Quantizations, delayed-scaling steps and slices are recomputed along
  // the program from what the GPU read (inputs) and wrote (earlier outputs):
  // bit for bit where every operand is exact.
  ProgramEvaluator program(manifest, entry, before, after, ranks, rank);
  return program.checkRecomputed(arg, argIndex, report);
}

} // namespace

CheckReport checkOutputs(const Manifest &manifest, const EntrySpec &entry,
                         const HostBuffers &before, const HostBuffers &after,
                         const std::vector<RankBuffers> &ranks, int rank) {
  CheckReport report;
  std::optional<RankEvaluators> evaluators;
  if (!ranks.empty())
    evaluators.emplace(RankEvaluators{ranks, {}});
  for (size_t a = 0; a < entry.args.size(); ++a) {
    if (!entry.args[a].isWritten())
      continue;
    Status status = checkArg(manifest, entry, a, before, after,
                             evaluators ? &*evaluators : nullptr, rank, report);
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

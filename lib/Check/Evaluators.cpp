//===- Evaluators.cpp - Recomputing one value per ComputeOp ---------------===//
//
// One function per op of the contract (teq/Artifact/ComputedBy.h) that
// recomputes the value a computed_by describes, and the table (opEvaluator)
// that maps each ComputeOp to its evaluator and its output check. The
// collectives' evaluator is in Collectives.cpp.
//
// parseManifest validated every computed_by against its entry (what it
// names exists, is quantized or not as the op needs, has the op's shapes
// and dtypes; lib/Artifact/ComputedByChecker.cpp): the evaluators rely on
// that and check only what the reference can or cannot recompute.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include "teq/Reference/Numerics.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace mlir::teq::check {

StatusOr<CpuValue> evaluateQuantize(ProgramEvaluator &program,
                                    const ArgSpec &spec) {
  const ComputedBy &by = *spec.computedBy;
  const EntrySpec &entry = program.entry();
  auto input = program.value(by.input);
  if (!input.ok())
    return input.status();
  // parseManifest: a quantize writes a proto from a tensor of its dtype and
  // shape.
  const CpuValue &in = **input;
  // An argument's bytes as the GPU read them; a recomputed value rounded
  // to the proto's dtype as the GPU stored it.
  reference::Input ri;
  if (const ArgSpec *source = entry.findArg(in.spec->name)) {
    ri = referenceInput(source->tensor.dtype, source->tensor.shape,
                        program.argBytes(*source));
  } else {
    std::vector<float> values(in.values.begin(), in.values.end());
    ri = reference::Input::rounded(referenceDType(spec.proto.dtype),
                                   spec.proto.shape, values);
  }
  // float8_delayed: the stored scale (one element, parseManifest).
  std::optional<float> storedScale;
  if (!by.scale.empty()) {
    auto scale = program.value(by.scale);
    if (!scale.ok())
      return scale.status();
    storedScale = static_cast<float>((*scale)->values.at(0));
  }
  // Stochastic rounding: the (seed, offset) of an i64[2] input argument
  // (parseManifest).
  std::optional<RngState> rng;
  if (!by.rngState.empty()) {
    const std::vector<uint8_t> &bytes =
        program.argBytes(*entry.findArg(by.rngState));
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
    auto inputs = program.onEveryRank(
        by, by.input, "'" + spec.name + "' (amax reduction)");
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
  auto q = quantizeArg(program.manifest(), spec, ri, storedScale, rng,
                       reducedAmax);
  if (!q.ok())
    return q.status();
  CpuValue v;
  v.spec = &spec;
  v.quantized = std::move(*q);
  v.exact = exact;
  return v;
}

StatusOr<CpuValue> evaluateSwizzleScales(ProgramEvaluator &program,
                                         const ArgSpec &spec) {
  // The input's buffers, each scale moved from its compact byte to its
  // swizzled one (padding included). parseManifest: both are quantized, and
  // every buffer of the result is the input's, of the same size.
  auto input = program.value(spec.computedBy->input);
  if (!input.ok())
    return input.status();
  const CpuValue &in = **input;
  auto setup = quantizerSetup(spec.proto);
  if (!setup.ok())
    return setup.status();
  reference::QuantizedTensor out = *in.quantized;
  out.desc = setup->desc;
  out.buffers.clear();
  for (const layout::BufferDesc &desc :
       layout::describeBuffers(out.desc, in.quantized->target)) {
    const reference::Buffer *from = in.quantized->find(desc.name);
    assert(from && from->bytes.size() ==
                       static_cast<size_t>(desc.sizeInBytes()) &&
           "parseManifest: swizzle_scales keeps its input's buffers");
    reference::Buffer buffer{desc, from->bytes};
    if (desc.scaleLayout)
      for (int64_t row = 0; row < desc.shape[0]; ++row)
        for (int64_t col = 0; col < desc.shape[1]; ++col)
          buffer.bytes[reference::scaleByteOffset(desc, out.desc.format, row,
                                                  col)] =
              from->bytes[reference::scaleByteOffset(
                  from->desc, out.desc.format, row, col)];
    out.buffers.push_back(std::move(buffer));
  }
  CpuValue v;
  v.spec = &spec;
  v.quantized = std::move(out);
  v.exact = in.exact;
  return v;
}

StatusOr<CpuValue> evaluateUpdateUsage(ProgramEvaluator &program,
                                       const ArgSpec &spec) {
  // Another usage of the same quantized tensor: the buffers it shares with
  // its input are the input's (parseManifest: of the same size); per-tensor
  // FP8's transposed data is the rowwise data transposed (TE's derivation
  // after an all-gather).
  auto input = program.value(spec.computedBy->input);
  if (!input.ok())
    return input.status();
  const CpuValue &in = **input;
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
      return notAvailable("'" + spec.name +
                          "' (update_usage deriving buffer '" + desc.name +
                          "')");
    }
    assert(buffer.bytes.size() == static_cast<size_t>(desc.sizeInBytes()) &&
           "parseManifest: update_usage keeps the buffers both have");
    out.buffers.push_back(std::move(buffer));
  }
  CpuValue v;
  v.spec = &spec;
  v.quantized = std::move(out);
  v.exact = in.exact;
  return v;
}

StatusOr<CpuValue> evaluateGemm(ProgramEvaluator &program,
                                const ArgSpec &spec) {
  const ComputedBy &by = *spec.computedBy;
  if (!by.outputsD)
    return notAvailable("'" + spec.name + "' (a GEMM's dbias)");
  CpuValue v;
  v.spec = &spec;
  int64_t n = 0, m = 0;
  auto product = program.gemmProduct(by, allRows(spec.tensor.shape), n, m);
  if (!product.ok())
    return product.status();
  v.values = std::move(*product);
  v.exact = false;
  return v;
}

StatusOr<CpuValue> evaluateConstant(ProgramEvaluator &, const ArgSpec &spec) {
  // A splat: its value is one of the dtype's (parseManifest), so it is
  // exact.
  CpuValue v;
  v.spec = &spec;
  int64_t elements = 1;
  for (int64_t d : spec.tensor.shape)
    elements *= d;
  v.values.assign(static_cast<size_t>(elements),
                  roundTo(spec.tensor.dtype, spec.computedBy->value));
  return v;
}

StatusOr<CpuValue> evaluateElementwise(ProgramEvaluator &program,
                                       const ArgSpec &spec) {
  const ComputedBy &by = *spec.computedBy;
  // An arith/math op the contract does not define (elementwiseArity 0).
  if (artifact::elementwiseArity(by.elementwiseOp) == 0)
    return notAvailable("'" + spec.name + "' computed by " + by.opName());
  auto values = program.elementwise(by);
  if (!values.ok())
    return values.status().withPrefix("'" + spec.name + "'");
  CpuValue v;
  v.spec = &spec;
  v.values = std::move(*values);
  v.exact = false;
  return v;
}

StatusOr<CpuValue> evaluateSlice(ProgramEvaluator &program,
                                 const ArgSpec &spec) {
  const ComputedBy &by = *spec.computedBy;
  const bool insert = by.op == ComputeOp::InsertSlice;
  auto source = program.value(by.input);
  if (!source.ok())
    return source.status();
  const std::vector<int64_t> &offsets = by.offsets, &sizes = by.sizes,
                             &strides = by.strides;
  const CpuValue *full = *source;
  if (insert) {
    auto dest = program.value(by.dest);
    if (!dest.ok())
      return dest.status();
    full = *dest;
  }
  // parseManifest: offsets, sizes and strides have the full tensor's rank
  // and stay inside it.
  const std::vector<int64_t> &fullShape = full->spec->tensor.shape;
  assert(offsets.size() == fullShape.size() &&
         sizes.size() == fullShape.size() &&
         strides.size() == fullShape.size() && "checked by parseManifest");
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
  CpuValue v;
  v.spec = &spec;
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

StatusOr<CpuValue> evaluateConcat(ProgramEvaluator &program,
                                  const ArgSpec &spec) {
  // parseManifest: the inputs have the value's shape but the last dimension.
  const ComputedBy &by = *spec.computedBy;
  std::vector<const CpuValue *> parts;
  for (const std::string &input : by.inputs) {
    auto part = program.value(input);
    if (!part.ok())
      return part.status();
    parts.push_back(*part);
  }
  CpuValue v;
  v.spec = &spec;
  v.exact = true;
  const int64_t rows = parts.front()->spec->tensor.shape.empty()
                           ? 0
                           : static_cast<int64_t>(parts.front()->values.size()) /
                                 parts.front()->spec->tensor.shape.back();
  for (int64_t row = 0; row < rows; ++row)
    for (const CpuValue *part : parts) {
      const int64_t n = part->spec->tensor.shape.back();
      v.values.insert(v.values.end(), part->values.begin() + row * n,
                      part->values.begin() + (row + 1) * n);
    }
  for (const CpuValue *part : parts)
    v.exact = v.exact && part->exact;
  return v;
}

StatusOr<CpuValue> evaluateRecordAmax(ProgramEvaluator &program,
                                      const ArgSpec &spec) {
  // history[0] = fmaxf(history[0], max|x|); the rest unchanged (§5.2).
  const ComputedBy &by = *spec.computedBy;
  auto input = program.value(by.input);
  if (!input.ok())
    return input.status();
  auto history = program.value(by.amaxHistory);
  if (!history.ok())
    return history.status();
  reference::DelayedScalingState state;
  for (double h : (*history)->values)
    state.amaxHistory.push_back(static_cast<float>(h));
  float amax = 0.0f;
  for (double x : (*input)->values)
    amax = std::fmax(amax, std::fabs(static_cast<float>(x)));
  reference::recordAmax(state, amax);
  CpuValue v;
  v.spec = &spec;
  v.values.assign(state.amaxHistory.begin(), state.amaxHistory.end());
  v.exact = (*input)->exact && (*history)->exact;
  return v;
}

StatusOr<CpuValue> evaluateDelayedScalingUpdate(ProgramEvaluator &program,
                                                const ArgSpec &spec) {
  const ComputedBy &by = *spec.computedBy;
  auto scale = program.value(by.scale);
  if (!scale.ok())
    return scale.status();
  auto history = program.value(by.amaxHistory);
  if (!history.ok())
    return history.status();
  // parseManifest: one scale per slot, the history [length][slots].
  const int64_t slots = static_cast<int64_t>((*scale)->values.size());
  const int64_t length =
      static_cast<int64_t>((*history)->values.size()) / slots;
  std::vector<double> scales = (*scale)->values, hist = (*history)->values;
  bool exact = (*scale)->exact && (*history)->exact;
  // With an amax group: row 0 all-reduced (max) over the group's ranks.
  std::vector<std::optional<float>> reduced(static_cast<size_t>(slots));
  if (by.group >= 0) {
    auto histories = program.onEveryRank(
        by, by.amaxHistory, "'" + spec.name + "' (amax reduction)");
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
  CpuValue v;
  v.spec = &spec;
  v.values = by.outputsScale ? scales : hist;
  v.exact = exact;
  return v;
}

StatusOr<CpuValue> evaluateBiasGrad(ProgramEvaluator &program,
                                    const ArgSpec &spec) {
  // The column sums of the input (a tensor, parseManifest) flattened to
  // [M, K].
  auto input = program.value(spec.computedBy->input);
  if (!input.ok())
    return input.status();
  CpuValue v;
  v.spec = &spec;
  int64_t n = 1;
  for (int64_t d : spec.tensor.shape)
    n *= d;
  v.values.assign(static_cast<size_t>(n), 0.0);
  for (size_t i = 0; i < (*input)->values.size(); ++i)
    v.values[i % n] += (*input)->values[i];
  v.exact = false;
  return v;
}

StatusOr<CpuValue> evaluateDequantize(ProgramEvaluator &program,
                                      const ArgSpec &spec) {
  // The rowwise values of the quantized input (parseManifest), each the
  // f32 product of its code and its decode multiplier rounded once to the
  // result's dtype, as the kernel stores it. The rounding is done here: an
  // exact value (from arguments) is not rounded by the evaluator, and a GEMM
  // reading this temporary read the rounded values.
  auto input = program.value(spec.computedBy->input);
  if (!input.ok())
    return input.status();
  const CpuValue &in = **input;
  auto values = reference::dequantize(*in.quantized, layout::UsageRowwise);
  if (!values.ok())
    return Status::error("cannot dequantize '" + spec.computedBy->input +
                         "': " + values.message());
  CpuValue v;
  v.spec = &spec;
  v.values.reserve(values->size());
  for (float x : *values)
    v.values.push_back(roundTo(spec.tensor.dtype, x));
  v.exact = in.exact;
  return v;
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

namespace {
/// One row per ComputeOp, in the enum's order (checked below).
constexpr OpEvaluator kOpEvaluators[] = {
    {ComputeOp::Quantize, evaluateQuantize, checkRecomputed},
    {ComputeOp::RecordAmax, evaluateRecordAmax, checkRecomputed},
    {ComputeOp::DelayedScalingUpdate, evaluateDelayedScalingUpdate,
     checkRecomputed},
    {ComputeOp::Gemm, evaluateGemm, checkGemm},
    {ComputeOp::BiasGrad, evaluateBiasGrad, checkBiasGrad},
    // A copy is checked against its source; a temporary copy is never
    // written by the compiler, so it is not recomputed.
    {ComputeOp::Copy, nullptr, checkCopy},
    {ComputeOp::UpdateUsage, evaluateUpdateUsage, checkRecomputed},
    {ComputeOp::SwizzleScales, evaluateSwizzleScales, checkRecomputed},
    {ComputeOp::ExtractSlice, evaluateSlice, checkRecomputed},
    {ComputeOp::InsertSlice, evaluateSlice, checkRecomputed},
    {ComputeOp::Elementwise, evaluateElementwise, checkElementwise},
    {ComputeOp::Constant, evaluateConstant, checkRecomputed},
    {ComputeOp::AllGather, evaluateCollective, checkRecomputed},
    {ComputeOp::ReduceScatter, evaluateCollective, checkRecomputed},
    {ComputeOp::AllReduce, evaluateCollective, checkRecomputed},
    {ComputeOp::Dequantize, evaluateDequantize, checkRecomputed},
    {ComputeOp::Concat, evaluateConcat, checkRecomputed},
    {ComputeOp::LayerNorm, evaluateNorm, checkNorm},
    {ComputeOp::LayerNormBackward, evaluateNorm, checkNorm},
    {ComputeOp::RMSNorm, evaluateNorm, checkNorm},
    {ComputeOp::RMSNormBackward, evaluateNorm, checkNorm},
};

constexpr size_t kNumOps = sizeof(kOpEvaluators) / sizeof(kOpEvaluators[0]);

constexpr bool rowsInEnumOrder() {
  for (size_t i = 0; i < kNumOps; ++i)
    if (static_cast<size_t>(kOpEvaluators[i].op) != i)
      return false;
  return true;
}
static_assert(rowsInEnumOrder(), "kOpEvaluators: one row per ComputeOp, in "
                                 "the enum's order");
// RMSNormBackward is ComputedBy.h's last op: a new op needs a row here.
static_assert(kNumOps == static_cast<size_t>(ComputeOp::RMSNormBackward) + 1,
              "kOpEvaluators: a row for every ComputeOp");
} // namespace

const OpEvaluator &opEvaluator(ComputeOp op) {
  return kOpEvaluators[static_cast<size_t>(op)];
}

} // namespace mlir::teq::check

//===- NormChecks.cpp - te-run's check of LayerNorm and RMSNorm -----------===//
//
// The evaluator and output check of the norm ops of the contract
// (layer_norm, layer_norm_backward, rms_norm, rms_norm_backward) on
// lib/Reference/Norm.h. What the GPU's bits can and cannot equal:
// - y, given the mean and rstd the same op wrote (outputs of the entry):
//   the same f32 arithmetic in the same order (Reference normApply), so
//   bit for bit.
// - mean and rstd: the kernels sum a row in a tree and take CUDA's
//   rsqrt.approx (within 2 ulp), the reference sums in order and divides:
//   kNormStatsLimit, TE's own tolerance for its norm statistics.
// - y without the GPU's statistics, dx (+ its `add`, TE's rmsnorm_bwd_add,
//   in f32 before the rounding), dgamma, dbeta: row and column sums
//   in another order, then one rounding to the output's dtype:
//   kNormOutputLimit, TE's tolerance for its norm backward
//   (tests/cpp/operator/test_normalization.cu), as relative Frobenius error.
//
//===----------------------------------------------------------------------===//

#include "Compare.h"
#include "Program.h"

#include "teq/Reference/Norm.h"

namespace mlir::teq::check {

namespace {

constexpr double kNormStatsLimit = 5e-5;
constexpr double kNormOutputLimit = 5e-4;

/// Value `name` as the f32 values the kernels read (rounded to its dtype
/// where it was recomputed); empty for an absent key.
StatusOr<std::vector<float>> operand(ProgramEvaluator &program,
                                     const std::string &name, bool &exact) {
  if (name.empty())
    return std::vector<float>();
  auto value = program.value(name);
  if (!value.ok())
    return value.status();
  exact = exact && (*value)->exact;
  std::vector<float> values;
  values.reserve((*value)->values.size());
  for (double v : (*value)->values)
    values.push_back(
        static_cast<float>(roundTo((*value)->spec->tensor.dtype, v)));
  return values;
}

/// The output of the entry that the same forward op as `by` computes as
/// `output` ("mean", "rstd"), or nullptr.
const ArgSpec *sibling(const EntrySpec &entry, const ComputedBy &by,
                       const char *output) {
  for (const ArgSpec &arg : entry.args) {
    if (!arg.isWritten() || !arg.computedBy)
      continue;
    const ComputedBy &other = *arg.computedBy;
    if (other.op == by.op && other.normOutput == output && other.x == by.x &&
        other.gamma == by.gamma && other.beta == by.beta &&
        other.eps == by.eps && other.zeroCenteredGamma == by.zeroCenteredGamma)
      return &arg;
  }
  return nullptr;
}

} // namespace

StatusOr<CpuValue> evaluateNorm(ProgramEvaluator &program,
                                const ArgSpec &spec) {
  const ComputedBy &by = *spec.computedBy;
  const bool rms = by.op == ComputeOp::RMSNorm ||
                   by.op == ComputeOp::RMSNormBackward;
  const bool backward = by.op == ComputeOp::LayerNormBackward ||
                        by.op == ComputeOp::RMSNormBackward;
  bool exact = true;
  std::vector<float> in[7];
  const std::string *names[7] = {&by.x,    &by.gamma, &by.beta, &by.dy,
                                 &by.mean, &by.rstd,  &by.add};
  for (int i = 0; i < 7; ++i) {
    auto values = operand(program, *names[i], exact);
    if (!values.ok())
      return values.status();
    in[i] = std::move(*values);
  }
  const auto &[x, gamma, beta, dy, mean, rstd, add] = in;
  // parseManifest: x is [M, n] flattened, gamma [n].
  reference::NormShape shape{
      static_cast<int64_t>(x.size() / gamma.size()),
      static_cast<int64_t>(gamma.size())};
  std::vector<float> result;
  bool resultExact = false;
  if (backward) {
    reference::NormBackward b =
        rms ? reference::rmsNormBackward(shape, dy, x, rstd, gamma,
                                         by.zeroCenteredGamma, add)
            : reference::layerNormBackward(shape, dy, x, mean, rstd, gamma,
                                           by.zeroCenteredGamma, add);
    result = by.normOutput == "dx"       ? b.dx
             : by.normOutput == "dgamma" ? b.dgamma
                                         : b.dbeta;
  } else {
    const float eps = static_cast<float>(by.eps);
    const ArgSpec *gpuMean = rms ? nullptr : sibling(program.entry(), by, "mean");
    const ArgSpec *gpuRstd = sibling(program.entry(), by, "rstd");
    if (by.normOutput == "y" && gpuRstd && (rms || gpuMean)) {
      // y from the statistics the GPU wrote: the kernel's arithmetic.
      bool statsExact = true;
      auto m = operand(program, gpuMean ? gpuMean->name : "", statsExact);
      auto r = operand(program, gpuRstd->name, statsExact);
      if (!m.ok())
        return m.status();
      if (!r.ok())
        return r.status();
      result = reference::normApply(shape, x, *m, *r, gamma, beta,
                                    by.zeroCenteredGamma);
      resultExact = exact && statsExact;
    } else {
      reference::NormForward f =
          rms ? reference::rmsNormForward(shape, x, gamma, eps,
                                          by.zeroCenteredGamma)
              : reference::layerNormForward(shape, x, gamma, beta, eps,
                                            by.zeroCenteredGamma);
      result = by.normOutput == "y"      ? f.y
               : by.normOutput == "mean" ? f.mean
                                         : f.rstd;
    }
  }
  CpuValue v;
  v.spec = &spec;
  v.values.reserve(result.size());
  for (float r : result)
    v.values.push_back(roundTo(spec.tensor.dtype, r));
  v.exact = resultExact;
  return v;
}

Status checkNorm(ProgramEvaluator &program, const ArgSpec &arg,
                 size_t argIndex, CheckReport &report) {
  auto v = program.compute(arg);
  if (!v.ok())
    return v.status().withPrefix("argument '" + arg.name + "'");
  const std::vector<uint8_t> &gpu =
      program.after()[flatIndex(program.entry(), argIndex, 0)];
  BufferCheck check;
  if (v->exact) {
    std::vector<float> values(v->values.begin(), v->values.end());
    check = compareBuffer(arg.name, arg.buffers[0],
                          encodeTensor(arg.tensor.dtype, values), gpu);
  } else {
    const std::string &out = arg.computedBy->normOutput;
    const bool stats = out == "mean" || out == "rstd";
    check = compareWithReference(
        arg, gpu, allRows(arg.tensor.shape), v->values,
        stats ? kNormStatsLimit : kNormOutputLimit,
        "lib/Reference's " + arg.computedBy->opName() + " " + out +
            (stats ? " (tree sums and rsqrt.approx on the GPU: TE's "
                     "statistics tolerance)"
                   : " (sums in another order: TE's norm tolerance)"));
  }
  if (!check.ok)
    report.passed = false;
  report.buffers.push_back(std::move(check));
  return Status::success();
}

} // namespace mlir::teq::check

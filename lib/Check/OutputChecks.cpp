//===- OutputChecks.cpp - Comparing each output with its recomputation ----===//
//
// checkOutputs (teq/Check/Check.h): for every output and inout argument of
// an entry, the check its computed_by's op gets in the evaluator table
// (Program.h): bit for bit where the recomputation is exact, by relative
// error where the GPU's accumulation order or precision is its own.
//
//===----------------------------------------------------------------------===//

#include "Compare.h"
#include "Program.h"

#include "teq/Reference/Numerics.h"

#include <algorithm>

namespace mlir::teq::check {

namespace {

void add(CheckReport &report, BufferCheck check) {
  if (!check.ok)
    report.passed = false;
  report.buffers.push_back(std::move(check));
}

/// Compares quantized output `arg` with `expected`: bit for bit when exact,
/// by dequantized values otherwise.
void compareQuantized(ProgramEvaluator &program, const ArgSpec &arg,
                      size_t argIndex,
                      const reference::QuantizedTensor &expected, bool exact,
                      CheckReport &report) {
  if (!exact) {
    // Recomputed from inexact values: compare what the copies represent.
    auto gpu = program.quantizedFromBytes(arg, program.after());
    if (!gpu.ok()) {
      report.passed = false;
      report.errors.push_back(gpu.status().message());
      return;
    }
    compareDequantized(arg, *gpu, expected, kInexactOperandLimit, report);
    return;
  }
  // Bit for bit: the output's buffers, by name.
  for (size_t b = 0; b < arg.buffers.size(); ++b) {
    const reference::Buffer *want = expected.find(arg.buffers[b].name);
    if (!want) {
      report.passed = false;
      report.errors.push_back("argument '" + arg.name +
                              "': the reference has "
                              "no buffer '" +
                              arg.buffers[b].name + "'");
      continue;
    }
    add(report,
        compareBuffer(arg.name, arg.buffers[b], want->bytes,
                      program.after()[flatIndex(program.entry(), argIndex, b)]));
  }
}

/// Compares tensor output `arg` (rows `rows` of it) with `expected` by
/// relative Frobenius error.
void compareTensor(ProgramEvaluator &program, const ArgSpec &arg,
                   size_t argIndex, const std::vector<int64_t> &rows,
                   const std::vector<double> &expected, double limit,
                   const std::string &against, CheckReport &report) {
  add(report,
      compareWithReference(
          arg, program.after()[flatIndex(program.entry(), argIndex, 0)], rows,
          expected, limit, against));
}

/// Every buffer the checker reads has its size: read arguments' before the
/// run, written ones' after it.
Status checkSizes(const EntrySpec &entry, const HostBuffers &before,
                  const HostBuffers &after, const std::string &whose) {
  for (const HostBuffers *buffers : {&before, &after})
    if (buffers->size() != entry.numBuffers())
      return Status::error(whose + "entry '" + entry.name + "' has " +
                           std::to_string(entry.numBuffers()) +
                           " buffers, the run " +
                           std::to_string(buffers->size()));
  for (size_t a = 0; a < entry.args.size(); ++a) {
    const ArgSpec &arg = entry.args[a];
    for (size_t b = 0; b < arg.buffers.size(); ++b) {
      const size_t index = flatIndex(entry, a, b);
      for (const std::vector<uint8_t> *bytes :
           {arg.isRead() ? &before[index] : nullptr,
            arg.isWritten() ? &after[index] : nullptr})
        if (bytes && static_cast<int64_t>(bytes->size()) != arg.buffers[b].bytes)
          return Status::error(
              whose + "argument '" + arg.name + "' buffer '" +
              arg.buffers[b].name + "' has " + std::to_string(bytes->size()) +
              " bytes, the manifest says " +
              std::to_string(arg.buffers[b].bytes));
    }
  }
  return Status::success();
}

} // namespace

Status checkRecomputed(ProgramEvaluator &program, const ArgSpec &arg,
                       size_t argIndex, CheckReport &report) {
  auto v = program.compute(arg);
  if (!v.ok())
    return v.status().withPrefix("argument '" + arg.name + "'");
  if (v->quantized) {
    compareQuantized(program, arg, argIndex, *v->quantized, v->exact, report);
    return Status::success();
  }
  if (v->exact) {
    std::vector<float> values(v->values.begin(), v->values.end());
    add(report, compareBuffer(
                    arg.name, arg.buffers[0],
                    encodeTensor(arg.tensor.dtype, values),
                    program.after()[flatIndex(program.entry(), argIndex, 0)]));
    return Status::success();
  }
  std::vector<int64_t> all = allRows(arg.tensor.shape);
  const ComputedBy &by = *arg.computedBy;
  if ((by.op == ComputeOp::ReduceScatter || by.op == ComputeOp::AllReduce) &&
      program.namesExact(by)) {
    compareTensor(program, arg, argIndex, all, v->values, kReducedSumLimit,
                  "the float64 sum over the ranks", report);
    return Status::success();
  }
  compareTensor(program, arg, argIndex, all, v->values, kInexactOperandLimit,
                "its float64 recomputation", report);
  return Status::success();
}

Status checkGemm(ProgramEvaluator &program, const ArgSpec &arg,
                 size_t argIndex, CheckReport &report) {
  const ComputedBy &by = *arg.computedBy;
  if (!by.outputsD) {
    // BGRADB: dbias[i] = sum_l opB[i][l] (B is the gradient).
    const bool transb = by.transb;
    int64_t b0, b1;
    auto b = program.operandMatrix(by.b, !transb, b0, b1);
    if (!b.ok())
      return b.status();
    int64_t n = transb ? b1 : b0;
    std::vector<double> sums(static_cast<size_t>(n), 0.0);
    for (int64_t r = 0; r < b0; ++r)
      for (int64_t c = 0; c < b1; ++c)
        sums[transb ? c : r] += (*b)[r * b1 + c];
    compareTensor(program, arg, argIndex, {0}, sums, 1e-3,
                  "the float64 sums of the GEMM's B (BGRADB)", report);
    return Status::success();
  }
  // parseManifest: D is a tensor of the product's [n, m].
  auto [rowsD, colsD] = flat2D(arg.tensor.shape);
  // Large products are checked on evenly spaced rows (about 2^31
  // multiply-adds at most), always including the first and last row.
  int64_t k = 1;
  {
    auto a = program.value(by.a);
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
  auto product = program.gemmProduct(by, rows, n, m);
  if (!product.ok())
    return product.status().withPrefix("argument '" + arg.name + "'");
  const bool fastAccum = !by.useSplitAccumulator;
  // te-semantics §6.4: with split accumulation the partial sums are fp32;
  // fast accumulation keeps them in the tensor cores' narrower format.
  bool exact = program.namesExact(by);
  double limit = !exact     ? kInexactOperandLimit
                 : fastAccum ? kFastAccumulationLimit
                             : kSplitAccumulationLimit;
  compareTensor(
      program, arg, argIndex, rows, *product, limit,
      std::string("the float64 product of the dequantized operands; ") +
          (fastAccum ? "fast" : "split") + " accumulation" +
          (exact ? "" : "; operands recomputed on the CPU from a GEMM or "
                        "elementwise result, so FP8 codes may differ by one "
                        "step"),
      report);
  return Status::success();
}

Status checkBiasGrad(ProgramEvaluator &program, const ArgSpec &arg,
                     size_t argIndex, CheckReport &report) {
  auto sums = program.compute(arg);
  if (!sums.ok())
    return sums.status().withPrefix("argument '" + arg.name + "'");
  compareTensor(program, arg, argIndex, {0}, sums->values,
                program.namesExact(*arg.computedBy) ? kSplitAccumulationLimit
                                                    : kInexactOperandLimit,
                "the float64 column sums", report);
  return Status::success();
}

Status checkCopy(ProgramEvaluator &program, const ArgSpec &arg,
                 size_t argIndex, CheckReport &report) {
  const ComputedBy &by = *arg.computedBy;
  auto source = program.value(by.input);
  if (!source.ok())
    return source.status().withPrefix("argument '" + arg.name + "'");
  if ((*source)->quantized) {
    compareQuantized(program, arg, argIndex, *(*source)->quantized,
                     (*source)->exact, report);
    return Status::success();
  }
  compareTensor(program, arg, argIndex, allRows(arg.tensor.shape),
                (*source)->values,
                (*source)->exact ? kSplitAccumulationLimit
                                 : kInexactOperandLimit,
                "its source '" + by.input + "'", report);
  return Status::success();
}

Status checkElementwise(ProgramEvaluator &program, const ArgSpec &arg,
                        size_t argIndex, CheckReport &report) {
  const ComputedBy &by = *arg.computedBy;
  // An op the contract does not define: reported not available.
  if (artifact::elementwiseArity(by.elementwiseOp) == 0)
    return checkRecomputed(program, arg, argIndex, report);
  auto values = program.elementwise(by);
  if (!values.ok())
    return values.status().withPrefix("argument '" + arg.name + "'");
  compareTensor(program, arg, argIndex, allRows(arg.tensor.shape), *values,
                program.namesExact(by) ? kSplitAccumulationLimit
                                       : kInexactOperandLimit,
                by.opName() + " in float64 of its inputs", report);
  return Status::success();
}

CheckReport checkOutputs(const Manifest &manifest, const EntrySpec &entry,
                         const HostBuffers &before, const HostBuffers &after,
                         const std::vector<RankBuffers> &ranks, int rank) {
  CheckReport report;
  Status sizes = checkSizes(entry, before, after, "");
  for (size_t r = 0; r < ranks.size() && sizes.ok(); ++r)
    sizes = checkSizes(entry, *ranks[r].before, *ranks[r].after,
                       "rank " + std::to_string(r) + ": ");
  if (!sizes.ok()) {
    report.passed = false;
    report.errors.push_back(sizes.message());
    return report;
  }
  std::optional<RankEvaluators> evaluators;
  if (!ranks.empty())
    evaluators.emplace(RankEvaluators{ranks, {}});
  for (size_t a = 0; a < entry.args.size(); ++a) {
    const ArgSpec &arg = entry.args[a];
    if (!arg.isWritten())
      continue;
    // An alias output is its argument, which the entry does not write.
    if (arg.isAlias()) {
      report.notes.push_back("output '" + arg.name + "' is argument '" +
                             arg.aliasOf + "' itself (alias_of): not written");
      continue;
    }
    Status status = Status::success();
    if (!arg.computedBy) {
      status = notAvailable("argument '" + arg.name +
                            "': the manifest has no computed_by");
    } else {
      // Quantizations, delayed-scaling steps and slices are recomputed along
      // the program from what the GPU read (inputs) and wrote (earlier
      // outputs): bit for bit where every operand is exact.
      ProgramEvaluator program(manifest, entry, before, after,
                               evaluators ? &*evaluators : nullptr, rank);
      status = opEvaluator(arg.computedBy->op)
                   .checkOutput(program, arg, a, report);
    }
    if (!status.ok()) {
      report.passed = false;
      report.errors.push_back(status.message());
    }
  }
  if (report.buffers.empty() && report.errors.empty()) {
    report.passed = false;
    report.errors.push_back("entry '" + entry.name +
                            "' has no outputs to check");
  }
  return report;
}

} // namespace mlir::teq::check

//===- Program.h - An entry's program as the CPU recomputes it --*- C++ -*-===//
//
// Internal to TEQCheck. A ProgramEvaluator reconstructs the values of one
// rank's run of an entry by name: arguments from the bytes the GPU read or
// wrote, temporaries (and outputs) recomputed from their computed_by. Each
// ComputeOp has one entry in the evaluator table (opEvaluator): how a value
// it computes is recomputed (Evaluators.cpp) and how an output it computes
// is compared with the GPU's (OutputChecks.cpp). Adding an op to the
// contract (teq/Artifact/ComputedBy.h) means adding its row there.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CHECK_PROGRAM_H
#define TEQ_LIB_CHECK_PROGRAM_H

#include "ReferenceAdapter.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::teq::check {

using artifact::ComputedBy;
using artifact::ComputeOp;

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
      : manifest_(manifest), entry_(entry), before_(before), after_(after),
        ranks_(ranks), rank_(rank) {}

  const Manifest &manifest() const { return manifest_; }
  const EntrySpec &entry() const { return entry_; }
  /// The bytes the run wrote (outputs after it).
  const HostBuffers &after() const { return after_; }
  /// This rank's index in a multi-rank run.
  int rank() const { return rank_; }

  /// The value `name` ("arg0", "result1", "t3", "view(t3)"); parseManifest
  /// checked that what a computed_by names exists.
  StatusOr<const CpuValue *> value(const std::string &name);
  /// Recomputes the value `spec` describes from its computed_by.
  StatusOr<CpuValue> compute(const ArgSpec &spec);
  /// Bytes of buffer `buffer` of argument `arg` as the GPU saw them: before
  /// the run for what it reads, after it for what it only writes.
  const std::vector<uint8_t> &argBytes(const ArgSpec &arg,
                                       size_t buffer = 0) const;
  /// The quantized tensor in buffers `source` of argument `arg`.
  StatusOr<reference::QuantizedTensor>
  quantizedFromBytes(const ArgSpec &arg, const HostBuffers &source) const;
  /// Whether every value `by` names is exact (see CpuValue).
  bool namesExact(const ComputedBy &by);
  /// Value `name` on every rank of the group `by.group` names, in rank
  /// order; fails (not available) without the other ranks' buffers.
  StatusOr<std::vector<const CpuValue *>> onEveryRank(const ComputedBy &by,
                                                      const std::string &name,
                                                      const std::string &what);
  /// GEMM operand `name` as a row-major matrix of float64 (dequantized in
  /// the usage the GEMM reads), and its shape flattened to 2D.
  StatusOr<std::vector<double>> operandMatrix(const std::string &name,
                                              bool rowwise, int64_t &rows,
                                              int64_t &cols);
  /// The GEMM's float64 product D [n, m] (rows of D in `rows` only).
  StatusOr<std::vector<double>> gemmProduct(const ComputedBy &by,
                                            const std::vector<int64_t> &rows,
                                            int64_t &n, int64_t &m);
  /// An elementwise op's float64 values from its named inputs (an op of
  /// artifact::elementwiseArity).
  StatusOr<std::vector<double>> elementwise(const ComputedBy &by);

private:
  const Manifest &manifest_;
  const EntrySpec &entry_;
  const HostBuffers &before_;
  const HostBuffers &after_;
  RankEvaluators *ranks_;
  int rank_;
  std::map<std::string, CpuValue> cache_;
};

/// Recomputes the value `spec` describes (spec.computedBy->op is the op).
using EvaluateFn = StatusOr<CpuValue> (*)(ProgramEvaluator &program,
                                          const ArgSpec &spec);
/// Compares output `arg` (argument `argIndex`) with its recomputation.
using CheckOutputFn = Status (*)(ProgramEvaluator &program,
                                 const ArgSpec &arg, size_t argIndex,
                                 CheckReport &report);

/// What the checker does for one ComputeOp.
struct OpEvaluator {
  ComputeOp op;
  /// Recomputes a value; nullptr: not available (the checker does not
  /// recompute this op's values).
  EvaluateFn evaluate;
  /// Compares an output computed by the op.
  CheckOutputFn checkOutput;
};

/// The table's row of `op` (one per ComputeOp).
const OpEvaluator &opEvaluator(ComputeOp op);

//===----------------------------------------------------------------------===//
// The evaluators (Evaluators.cpp, Collectives.cpp)
//===----------------------------------------------------------------------===//

StatusOr<CpuValue> evaluateQuantize(ProgramEvaluator &, const ArgSpec &);
StatusOr<CpuValue> evaluateRecordAmax(ProgramEvaluator &, const ArgSpec &);
StatusOr<CpuValue> evaluateDelayedScalingUpdate(ProgramEvaluator &,
                                                const ArgSpec &);
StatusOr<CpuValue> evaluateGemm(ProgramEvaluator &, const ArgSpec &);
StatusOr<CpuValue> evaluateBiasGrad(ProgramEvaluator &, const ArgSpec &);
StatusOr<CpuValue> evaluateUpdateUsage(ProgramEvaluator &, const ArgSpec &);
StatusOr<CpuValue> evaluateSwizzleScales(ProgramEvaluator &, const ArgSpec &);
StatusOr<CpuValue> evaluateSlice(ProgramEvaluator &, const ArgSpec &);
StatusOr<CpuValue> evaluateElementwise(ProgramEvaluator &, const ArgSpec &);
StatusOr<CpuValue> evaluateConstant(ProgramEvaluator &, const ArgSpec &);
StatusOr<CpuValue> evaluateCollective(ProgramEvaluator &, const ArgSpec &);
/// The norms' results (NormChecks.cpp).
StatusOr<CpuValue> evaluateNorm(ProgramEvaluator &, const ArgSpec &);

//===----------------------------------------------------------------------===//
// The output checks (OutputChecks.cpp)
//===----------------------------------------------------------------------===//

/// Recomputes the output and compares: bit for bit when exact, else by
/// relative error (within one bf16 ulp for sums over ranks).
Status checkRecomputed(ProgramEvaluator &, const ArgSpec &, size_t,
                       CheckReport &);
/// A GEMM's D (on evenly spaced rows of large products) or its dbias.
Status checkGemm(ProgramEvaluator &, const ArgSpec &, size_t, CheckReport &);
/// The column sums of teq.bias_grad.
Status checkBiasGrad(ProgramEvaluator &, const ArgSpec &, size_t,
                     CheckReport &);
/// A norm's result: bit for bit where exact (y from the GPU's own
/// statistics), else within TE's norm tolerances (NormChecks.cpp).
Status checkNorm(ProgramEvaluator &, const ArgSpec &, size_t, CheckReport &);
/// A copy of its input (bit for bit when quantized and exact).
Status checkCopy(ProgramEvaluator &, const ArgSpec &, size_t, CheckReport &);
/// An elementwise op the contract defines, in float64 of its inputs.
Status checkElementwise(ProgramEvaluator &, const ArgSpec &, size_t,
                        CheckReport &);

} // namespace mlir::teq::check

#endif // TEQ_LIB_CHECK_PROGRAM_H

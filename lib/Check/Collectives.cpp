//===- Collectives.cpp - Recomputing all_gather, reduce_scatter, all_reduce ===//
//
// The evaluator of the collectives (Program.h): a collective's result from
// every rank's input (RankEvaluators), as NCCL computes it over a group that
// spans the run's ranks.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include <cassert>

namespace mlir::teq::check {

namespace {

/// A per-tensor FP8 all_gather: every rank's data in rank order; the other
/// buffers (scale_inv) are this rank's own. parseManifest: the input is
/// quantized like the result, whose buffers are the input's, "data" the
/// group's size times over.
StatusOr<CpuValue> gatherQuantized(ProgramEvaluator &program,
                                   const ArgSpec &spec,
                                   const std::vector<const CpuValue *> &inputs,
                                   CpuValue v) {
  const CpuValue &own = *inputs[program.rank()];
  assert(own.quantized && "parseManifest: a quantized gather's input is");
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
      for (const CpuValue *in : inputs) {
        const reference::Buffer *part = in->quantized->find("data");
        buffer.bytes.insert(buffer.bytes.end(), part->bytes.begin(),
                            part->bytes.end());
      }
    } else {
      buffer.bytes = own.quantized->find(desc.name)->bytes;
    }
    assert(buffer.bytes.size() == static_cast<size_t>(desc.sizeInBytes()) &&
           "parseManifest: the gathered buffers make the result's");
    out.buffers.push_back(std::move(buffer));
  }
  v.quantized = std::move(out);
  return v;
}

} // namespace

StatusOr<CpuValue> evaluateCollective(ProgramEvaluator &program,
                                      const ArgSpec &spec) {
  const ComputedBy &by = *spec.computedBy;
  const std::string what = "'" + spec.name + "' (" + by.opName() + ")";
  auto inputs = program.onEveryRank(by, by.input, what);
  if (!inputs.ok())
    return inputs.status();
  const int64_t n = static_cast<int64_t>(inputs->size());
  const int rank = program.rank();
  CpuValue v;
  v.spec = &spec;
  for (const CpuValue *in : *inputs)
    v.exact = v.exact && in->exact;
  if (by.op == ComputeOp::AllGather && spec.isProto)
    return gatherQuantized(program, spec, *inputs, std::move(v));
  // parseManifest: reductions take tensors, and a tensor's gather is one.
  if (by.op == ComputeOp::AllGather) {
    for (const CpuValue *in : *inputs)
      v.values.insert(v.values.end(), in->values.begin(), in->values.end());
    return v;
  }
  // Sums, in float64 in rank order (Check.h: not NCCL's order). Every rank
  // runs the same entry, with buffers of its sizes (checkOutputs).
  std::vector<double> sum((*inputs)[0]->values.size(), 0.0);
  for (const CpuValue *in : *inputs) {
    assert(in->values.size() == sum.size() && "the ranks' inputs differ");
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

} // namespace mlir::teq::check

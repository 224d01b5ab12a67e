//===- Program.cpp - An entry's program as the CPU recomputes it ----------===//
//
// ProgramEvaluator (Program.h): values by name, the dispatch to the
// evaluator table, other ranks' values, and the GEMM and elementwise
// arithmetic several evaluators and output checks share.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include <cassert>
#include <cmath>
#include <tuple>

namespace mlir::teq::check {

size_t flatIndex(const EntrySpec &entry, size_t arg, size_t buffer) {
  size_t index = 0;
  for (size_t a = 0; a < arg; ++a)
    index += entry.args[a].buffers.size();
  return index + buffer;
}

namespace {
/// The index of `arg`, an argument of `entry`.
size_t argIndexOf(const EntrySpec &entry, const ArgSpec &arg) {
  assert(&arg >= entry.args.data() &&
         &arg < entry.args.data() + entry.args.size() && "not an argument");
  return static_cast<size_t>(&arg - entry.args.data());
}
} // namespace

const std::vector<uint8_t> &ProgramEvaluator::argBytes(const ArgSpec &arg,
                                                       size_t buffer) const {
  return (arg.isRead() ? before_ : after_)[flatIndex(
      entry_, argIndexOf(entry_, arg), buffer)];
}

StatusOr<reference::QuantizedTensor>
ProgramEvaluator::quantizedFromBytes(const ArgSpec &arg,
                                     const HostBuffers &source) const {
  auto setup = quantizerSetup(arg.proto);
  if (!setup.ok())
    return setup.status().withPrefix("argument '" + arg.name + "'");
  reference::QuantizedTensor q;
  q.desc = setup->desc;
  q.target = layout::TargetCaps::fromSM(manifest_.target.sm);
  std::vector<layout::BufferDesc> descs =
      layout::describeBuffers(q.desc, q.target);
  assert(descs.size() == arg.buffers.size() &&
         "parseManifest: proto buffers are their layout's");
  const size_t index = argIndexOf(entry_, arg);
  for (size_t b = 0; b < descs.size(); ++b)
    q.buffers.push_back({descs[b], source[flatIndex(entry_, index, b)]});
  return q;
}

StatusOr<const CpuValue *> ProgramEvaluator::value(const std::string &name) {
  // A usage view ("view(x)") reads the buffers of what it views.
  const ArgSpec *found = entry_.findValue(name);
  assert(found && "parseManifest: a computed_by names values that exist");
  auto cached = cache_.find(found->name);
  if (cached != cache_.end())
    return &cached->second;
  if (found->kind != artifact::ArgKind::Temporary) {
    // Arguments: what the GPU read (inputs) or wrote (earlier outputs).
    CpuValue v;
    v.spec = found;
    if (!found->isProto) {
      v.values = decodeTensor(found->tensor.dtype, argBytes(*found));
    } else {
      auto q = quantizedFromBytes(*found, found->isRead() ? before_ : after_);
      if (!q.ok())
        return q.status();
      v.quantized = std::move(*q);
    }
    return &(cache_[found->name] = std::move(v));
  }
  // Temporaries: recomputed from their inputs, and a tensor recomputed in
  // float64 stored in its dtype as the GPU stores it.
  auto computed = compute(*found);
  if (!computed.ok())
    return computed.status();
  if (!computed->quantized && !computed->exact)
    for (double &x : computed->values)
      x = roundTo(found->tensor.dtype, x);
  return &(cache_[found->name] = std::move(*computed));
}

StatusOr<CpuValue> ProgramEvaluator::compute(const ArgSpec &spec) {
  // Outputs without one are not checked (checkOutputs); parseManifest
  // refuses a temporary without one.
  assert(spec.computedBy && "a recomputed value has a computed_by");
  const ComputedBy &by = *spec.computedBy;
  const OpEvaluator &op = opEvaluator(by.op);
  if (!op.evaluate)
    return notAvailable("'" + spec.name + "' computed by " + by.opName());
  return op.evaluate(*this, spec);
}

bool ProgramEvaluator::namesExact(const ComputedBy &by) {
  for (const auto &[key, name] : by.namedValues()) {
    auto v = value(name);
    if (v.ok() && !(*v)->exact)
      return false;
  }
  return true;
}

StatusOr<std::vector<const CpuValue *>>
ProgramEvaluator::onEveryRank(const ComputedBy &by, const std::string &name,
                              const std::string &what) {
  assert(by.group >= 0 &&
         by.group < static_cast<int64_t>(entry_.groups.size()) &&
         "parseManifest: a computed_by's group is one of the entry's");
  const artifact::GroupSpec &groupSpec = entry_.groups[by.group];
  const std::string group = "group '" + groupSpec.name + "'";
  if (!ranks_)
    return notAvailable(what + " over " + group +
                        ": it needs every rank's values (te-run --nranks)");
  const int64_t n = static_cast<int64_t>(ranks_->buffers.size());
  // A group of size 0 (only amax reductions) spans whatever ranks run.
  if (groupSpec.size != 0 && groupSpec.size != n)
    return Status::error(what + " over " + group + ": the run has " +
                         std::to_string(n) + " ranks, the group " +
                         std::to_string(groupSpec.size));
  ranks_->evaluators.resize(static_cast<size_t>(n));
  std::vector<const CpuValue *> values;
  for (int r = 0; r < n; ++r) {
    ProgramEvaluator *evaluator = this;
    if (r != rank_) {
      auto &peer = ranks_->evaluators[r];
      if (!peer)
        peer = std::make_unique<ProgramEvaluator>(
            manifest_, entry_, *ranks_->buffers[r].before,
            *ranks_->buffers[r].after, ranks_, r);
      evaluator = peer.get();
    }
    auto v = evaluator->value(name);
    if (!v.ok())
      return v.status().withPrefix("rank " + std::to_string(r));
    values.push_back(*v);
  }
  return values;
}

StatusOr<std::vector<double>>
ProgramEvaluator::operandMatrix(const std::string &name, bool rowwise,
                                int64_t &rows, int64_t &cols) {
  auto v = value(name);
  if (!v.ok())
    return v.status();
  const CpuValue &value = **v;
  std::tie(rows, cols) = flat2D(value.spec->shape());
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

StatusOr<std::vector<double>>
ProgramEvaluator::elementwise(const ComputedBy &by) {
  const std::string &op = by.elementwiseOp;
  assert(artifact::elementwiseArity(op) > 0 &&
         "the contract defines how to recompute the op");
  // parseManifest: the inputs are tensors of the result's element count.
  std::vector<const std::vector<double> *> args;
  for (const std::string &input : by.inputs) {
    auto v = value(input);
    if (!v.ok())
      return v.status();
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

} // namespace mlir::teq::check

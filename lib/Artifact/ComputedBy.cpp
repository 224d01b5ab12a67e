//===- ComputedBy.cpp - How a value of an entry is computed ---------------===//
//
// The ComputedBy methods, the contract's elementwise ops, and
// parseComputedBy, which reads one computed_by's keys (what they name is
// checked against the entry by ComputedByChecker.cpp).
//
//===----------------------------------------------------------------------===//

#include "teq/Artifact/ComputedBy.h"

#include "JsonFields.h"
#include "Readers.h"

#include <cmath>

namespace mlir::teq::artifact {

using namespace detail;

/// The ops by name (Elementwise is any arith.* / math.* op).
static const std::pair<ComputeOp, const char *> kComputeOps[] = {
    {ComputeOp::Quantize, "quantize"},
    {ComputeOp::RecordAmax, "record_amax"},
    {ComputeOp::DelayedScalingUpdate, "delayed_scaling_update"},
    {ComputeOp::Gemm, "gemm"},
    {ComputeOp::BiasGrad, "bias_grad"},
    {ComputeOp::Copy, "copy"},
    {ComputeOp::UpdateUsage, "update_usage"},
    {ComputeOp::SwizzleScales, "swizzle_scales"},
    {ComputeOp::ExtractSlice, "tensor.extract_slice"},
    {ComputeOp::InsertSlice, "tensor.insert_slice"},
    {ComputeOp::Constant, "constant"},
    {ComputeOp::AllGather, "all_gather"},
    {ComputeOp::ReduceScatter, "reduce_scatter"},
    {ComputeOp::AllReduce, "all_reduce"},
    {ComputeOp::Dequantize, "dequantize"},
    {ComputeOp::LayerNorm, "layer_norm"},
    {ComputeOp::LayerNormBackward, "layer_norm_backward"},
    {ComputeOp::RMSNorm, "rms_norm"},
    {ComputeOp::RMSNormBackward, "rms_norm_backward"},
    {ComputeOp::Concat, "tensor.concat"}};

std::string ComputedBy::opName() const {
  if (op == ComputeOp::Elementwise)
    return elementwiseOp;
  for (const auto &[value, name] : kComputeOps)
    if (value == op)
      return name;
  return "unknown";
}

std::string ComputedBy::layoutName() const {
  return std::string(transa ? "T" : "N") + (transb ? "T" : "N");
}

std::vector<std::pair<std::string, std::string>>
ComputedBy::namedValues() const {
  std::vector<std::pair<std::string, std::string>> named;
  auto add = [&](const char *key, const std::string &name) {
    if (!name.empty())
      named.emplace_back(key, name);
  };
  add("input", input);
  for (size_t i = 0; i < inputs.size(); ++i)
    named.emplace_back("inputs[" + std::to_string(i) + "]", inputs[i]);
  add("dest", dest);
  add("scale", scale);
  add("amax_history", amaxHistory);
  add("rng_state", rngState);
  add("a", a);
  add("b", b);
  add("bias", bias);
  add("accumulate", accumulate);
  add("dy", dy);
  add("x", x);
  add("mean", mean);
  add("rstd", rstd);
  add("gamma", gamma);
  add("beta", beta);
  add("add", this->add);
  return named;
}

int elementwiseArity(const std::string &op) {
  for (const char *unary :
       {"arith.negf", "math.tanh", "math.exp", "math.erf", "math.absf",
        "arith.extf", "arith.truncf"})
    if (op == unary)
      return 1;
  for (const char *binary :
       {"arith.addf", "arith.subf", "arith.mulf", "arith.divf",
        "arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf"})
    if (op == binary)
      return 2;
  return 0; // Another arith/math op: the contract does not define it.
}

namespace {

/// The value name `by[key]` into `name` (left empty if absent and not
/// required).
Status readValueName(const JsonValue &by, const std::string &path,
                     const char *key, bool required, std::string &name) {
  const JsonValue *value = by.find(key);
  if (!value) {
    if (required)
      return errorAt(path, "missing \"" + std::string(key) + "\"");
    return Status::success();
  }
  const std::string at = child(path, key);
  if (!value->isString())
    return typeError(at, "the name of a value (a string)", *value);
  if (value->asString().empty())
    return errorAt(at, "must name a value");
  name = value->asString();
  return Status::success();
}

/// A parallel group's index ("group", "amax_group"): a non-negative
/// integer (ComputedByChecker checks it against the entry's groups).
Status readGroupIndex(const JsonValue &by, const std::string &path,
                      const char *key, int64_t &group) {
  auto index = readIntegerMember(by, path, key);
  if (!index.ok())
    return index.status();
  if (*index < 0)
    return errorAt(child(path, key), "must be the index of one of the "
                                     "entry's groups (>= 0)");
  group = *index;
  return Status::success();
}

/// A slice's "offsets", "sizes" and "strides": arrays of integers (their
/// rank is checked against the tensor they slice).
Status readSliceLists(const JsonValue &by, const std::string &path,
                      ComputedBy &c) {
  std::pair<const char *, std::vector<int64_t> *> lists[] = {
      {"offsets", &c.offsets}, {"sizes", &c.sizes}, {"strides", &c.strides}};
  for (auto &[key, list] : lists) {
    auto value = member(by, path, key);
    if (!value.ok())
      return value.status();
    const std::string at = child(path, key);
    if (!(*value)->isArray())
      return typeError(at, "an array of integers", **value);
    for (size_t d = 0; d < (*value)->asArray().size(); ++d) {
      auto x = readInteger((*value)->asArray()[d], element(at, d));
      if (!x.ok())
        return x.status();
      list->push_back(*x);
    }
  }
  return Status::success();
}

/// A norm's keys (ComputedBy.h): which result, the operands its op takes,
/// eps (forwards: finite, > 0) and zero_centered_gamma (default false).
Status readNorm(const JsonValue &by, const std::string &path, ComputedBy &c) {
  const bool rms =
      c.op == ComputeOp::RMSNorm || c.op == ComputeOp::RMSNormBackward;
  const bool backward = c.op == ComputeOp::LayerNormBackward ||
                        c.op == ComputeOp::RMSNormBackward;
  static const Choice<const char *> kLayerNorm[] = {
      {"y", "y"}, {"mean", "mean"}, {"rstd", "rstd"}};
  static const Choice<const char *> kRMSNorm[] = {{"y", "y"}, {"rstd", "rstd"}};
  static const Choice<const char *> kLayerNormBackward[] = {
      {"dx", "dx"}, {"dgamma", "dgamma"}, {"dbeta", "dbeta"}};
  static const Choice<const char *> kRMSNormBackward[] = {
      {"dx", "dx"}, {"dgamma", "dgamma"}};
  const char *what = "norm output";
  auto output =
      backward ? (rms ? readChoice(by, path, "output", what, kRMSNormBackward)
                      : readChoice(by, path, "output", what,
                                   kLayerNormBackward))
               : (rms ? readChoice(by, path, "output", what, kRMSNorm)
                      : readChoice(by, path, "output", what, kLayerNorm));
  if (!output.ok())
    return output.status();
  c.normOutput = *output;
  TEQ_RETURN_IF_ERROR(readValueName(by, path, "x", true, c.x));
  TEQ_RETURN_IF_ERROR(readValueName(by, path, "gamma", true, c.gamma));
  if (backward) {
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "dy", true, c.dy));
    if (!rms)
      TEQ_RETURN_IF_ERROR(readValueName(by, path, "mean", true, c.mean));
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "rstd", true, c.rstd));
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "add", false, c.add));
    if (!c.add.empty() && c.normOutput != "dx")
      return errorAt(child(path, "add"),
                     "only a norm backward's dx has an add, not its " +
                         c.normOutput);
  } else {
    if (!rms)
      TEQ_RETURN_IF_ERROR(readValueName(by, path, "beta", false, c.beta));
    auto eps = member(by, path, "eps");
    if (!eps.ok())
      return eps.status();
    if (!(*eps)->isNumber())
      return typeError(child(path, "eps"), "a number", **eps);
    if (!std::isfinite((*eps)->asNumber()) || (*eps)->asNumber() <= 0)
      return errorAt(child(path, "eps"), "must be a finite number > 0");
    c.eps = (*eps)->asNumber();
  }
  auto centred = readOptionalBool(by, path, "zero_centered_gamma", false);
  if (!centred.ok())
    return centred.status();
  c.zeroCenteredGamma = *centred;
  return Status::success();
}

} // namespace

StatusOr<ComputedBy> detail::parseComputedBy(const JsonValue &by,
                                             const std::string &path) {
  if (!by.isObject())
    return typeError(path, "an object", by);
  auto opName = readString(by, path, "op");
  if (!opName.ok())
    return opName.status();
  ComputedBy c;
  const std::string &op = *opName;
  bool known = false;
  for (const auto &[value, name] : kComputeOps)
    if (op == name) {
      c.op = value;
      known = true;
    }
  if (!known && (op.rfind("arith.", 0) == 0 || op.rfind("math.", 0) == 0)) {
    c.op = ComputeOp::Elementwise;
    c.elementwiseOp = op;
    known = true;
  }
  if (!known)
    return errorAt(child(path, "op"),
                   "unknown op \"" + op +
                       "\" (expected quantize, record_amax, "
                       "delayed_scaling_update, gemm, bias_grad, copy, "
                       "update_usage, swizzle_scales, tensor.extract_slice, "
                       "tensor.insert_slice, tensor.concat, constant, "
                       "all_gather, "
                       "reduce_scatter, all_reduce, dequantize, "
                       "layer_norm, layer_norm_backward, rms_norm, "
                       "rms_norm_backward or an "
                       "arith/math "
                       "elementwise op)");

  switch (c.op) {
  case ComputeOp::Quantize:
  case ComputeOp::RecordAmax:
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "input", true, c.input));
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "scale", false, c.scale));
    TEQ_RETURN_IF_ERROR(
        readValueName(by, path, "amax_history", false, c.amaxHistory));
    TEQ_RETURN_IF_ERROR(
        readValueName(by, path, "rng_state", false, c.rngState));
    if (c.op == ComputeOp::Quantize && by.find("amax_group"))
      TEQ_RETURN_IF_ERROR(readGroupIndex(by, path, "amax_group", c.group));
    return c;
  case ComputeOp::AllGather:
  case ComputeOp::ReduceScatter:
  case ComputeOp::AllReduce:
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "input", true, c.input));
    TEQ_RETURN_IF_ERROR(readGroupIndex(by, path, "group", c.group));
    return c;
  case ComputeOp::DelayedScalingUpdate: {
    static const Choice<bool> kOutputs[] = {{"scale", true},
                                            {"amax_history", false}};
    static const Choice<bool> kAlgos[] = {{"max", false},
                                          {"most_recent", true}};
    auto outputsScale = readChoice(by, path, "output", "output", kOutputs);
    if (!outputsScale.ok())
      return outputsScale.status();
    c.outputsScale = *outputsScale;
    auto mostRecent = readChoice(by, path, "amax_compute_algo",
                                 "amax_compute_algo", kAlgos);
    if (!mostRecent.ok())
      return mostRecent.status();
    c.mostRecentAmax = *mostRecent;
    auto fp8Max = member(by, path, "fp8_max");
    if (!fp8Max.ok())
      return fp8Max.status();
    if (!(*fp8Max)->isNumber())
      return typeError(child(path, "fp8_max"), "a number", **fp8Max);
    if (!std::isfinite((*fp8Max)->asNumber()) || (*fp8Max)->asNumber() <= 0)
      return errorAt(child(path, "fp8_max"), "must be a finite number > 0");
    c.fp8Max = (*fp8Max)->asNumber();
    // TEQ bounds the margin to [-100, 100], where fp8_max * 2^-margin stays
    // a normal float (the DelayedScaling recipe's verifier).
    auto margin = readIntegerMember(by, path, "margin");
    if (!margin.ok())
      return margin.status();
    if (*margin < -100 || *margin > 100)
      return errorAt(child(path, "margin"),
                     std::to_string(*margin) + " is outside [-100, 100]");
    c.margin = *margin;
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "scale", true, c.scale));
    TEQ_RETURN_IF_ERROR(
        readValueName(by, path, "amax_history", true, c.amaxHistory));
    if (by.find("amax_group"))
      TEQ_RETURN_IF_ERROR(readGroupIndex(by, path, "amax_group", c.group));
    return c;
  }
  case ComputeOp::Gemm: {
    auto id = readIntegerMember(by, path, "gemm");
    if (!id.ok())
      return id.status();
    c.gemm = *id;
    static const Choice<bool> kOutputs[] = {{"d", true}, {"dbias", false}};
    auto outputsD = readChoice(by, path, "output", "GEMM output", kOutputs);
    if (!outputsD.ok())
      return outputsD.status();
    c.outputsD = *outputsD;
    auto layoutName = readString(by, path, "layout");
    if (!layoutName.ok())
      return layoutName.status();
    if (layoutName->size() != 2 ||
        layoutName->find_first_not_of("NT") != std::string::npos)
      return errorAt(child(path, "layout"),
                     "invalid layout \"" + *layoutName +
                         "\" (expected TN, NN, NT or TT)");
    c.transa = (*layoutName)[0] == 'T';
    c.transb = (*layoutName)[1] == 'T';
    auto split = readOptionalBool(by, path, "use_split_accumulator", false);
    if (!split.ok())
      return split.status();
    c.useSplitAccumulator = *split;
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "a", true, c.a));
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "b", true, c.b));
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "bias", false, c.bias));
    TEQ_RETURN_IF_ERROR(
        readValueName(by, path, "accumulate", false, c.accumulate));
    return c;
  }
  case ComputeOp::BiasGrad:
  case ComputeOp::Copy:
  case ComputeOp::UpdateUsage:
  case ComputeOp::SwizzleScales:
  case ComputeOp::Dequantize:
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "input", true, c.input));
    return c;
  case ComputeOp::LayerNorm:
  case ComputeOp::LayerNormBackward:
  case ComputeOp::RMSNorm:
  case ComputeOp::RMSNormBackward:
    TEQ_RETURN_IF_ERROR(readNorm(by, path, c));
    return c;
  case ComputeOp::ExtractSlice:
  case ComputeOp::InsertSlice:
    TEQ_RETURN_IF_ERROR(readValueName(by, path, "input", true, c.input));
    if (c.op == ComputeOp::InsertSlice)
      TEQ_RETURN_IF_ERROR(readValueName(by, path, "dest", true, c.dest));
    TEQ_RETURN_IF_ERROR(readSliceLists(by, path, c));
    return c;
  case ComputeOp::Constant: {
    auto value = member(by, path, "value");
    if (!value.ok())
      return value.status();
    if (!(*value)->isNumber())
      return typeError(child(path, "value"), "a number", **value);
    if (!std::isfinite((*value)->asNumber()))
      return errorAt(child(path, "value"), "must be a finite number");
    c.value = (*value)->asNumber();
    return c;
  }
  case ComputeOp::Concat:
  case ComputeOp::Elementwise: {
    auto inputs = member(by, path, "inputs");
    if (!inputs.ok())
      return inputs.status();
    const std::string at = child(path, "inputs");
    if (!(*inputs)->isArray() || (*inputs)->asArray().empty())
      return errorAt(at, "expected a non-empty array of value names");
    const size_t count = (*inputs)->asArray().size();
    if (int arity = elementwiseArity(op); arity && count != size_t(arity))
      return errorAt(at, op + " takes " + std::to_string(arity) +
                             " inputs, got " + std::to_string(count));
    for (size_t i = 0; i < count; ++i) {
      const JsonValue &name = (*inputs)->asArray()[i];
      if (!name.isString())
        return typeError(element(at, i), "the name of a value (a string)",
                         name);
      if (name.asString().empty())
        return errorAt(element(at, i), "must name a value");
      c.inputs.push_back(name.asString());
    }
    return c;
  }
  }
  return c;
}

} // namespace mlir::teq::artifact

//===- ManifestWriter.cpp - The artifact manifest of a lowered module -----===//

#include "ManifestWriter.h"

#include "Lowerable.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Dialect/TEQ/IR/TEQRoles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSet.h"

#include <tuple>

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;
namespace layout = ::mlir::teq::layout;

namespace {

std::string dtypeName(Type t) {
  if (t.isBF16())
    return "bf16";
  if (t.isF16())
    return "f16";
  if (t.isF32())
    return "f32";
  if (t.isInteger(64))
    return "i64";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

std::vector<int64_t> shapeOf(ArrayRef<int64_t> shape) {
  return std::vector<int64_t>(shape.begin(), shape.end());
}

/// An argument, result or temporary: its tensor, or its quantized type with
/// its buffers.
artifact::ArgSpec describeArgument(std::string name, artifact::ArgKind kind,
                                   Type type, ArrayRef<Buffer> buffers) {
  artifact::ArgSpec arg;
  arg.name = std::move(name);
  arg.kind = kind;
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    arg.tensor.dtype = dtypeName(tensor.getElementType());
    arg.tensor.shape = shapeOf(tensor.getShape());
    return arg;
  }
  auto proto = cast<TensorProtoType>(type);
  arg.isProto = true;
  arg.proto.dtype = dtypeName(proto.getElementType());
  arg.proto.shape = shapeOf(proto.getShape());
  // The quantizer attribute describes itself (QuantizerAttrInterface).
  arg.proto.quantizer = proto.getQuantizer().getArtifactDescription();
  arg.proto.usage = stringifyUsage(proto.getUsage());
  arg.proto.scaleLayout = stringifyScaleLayout(proto.getScaleLayout()).str();
  llvm::raw_string_ostream os(arg.proto.text);
  os << proto;
  for (const Buffer &b : buffers)
    arg.buffers.push_back(artifact::BufferSpec::fromLayout(*b.desc));
  return arg;
}

/// A norm's result `v` (TEQNormOps.td): which result it is, the operands
/// by name, eps and zero_centered_gamma.
void describeNorm(Operation *op, Value v, const EntryNames &nameOf,
                  artifact::ComputedBy &by) {
  using artifact::ComputeOp;
  auto name = [&](Value operand) {
    return operand ? nameOf(operand) : std::string();
  };
  // The result names of TEQNormOps.td, in result order.
  static const char *const kForward[] = {"y", "mean", "rstd"};
  static const char *const kRMSForward[] = {"y", "rstd"};
  static const char *const kBackward[] = {"dx", "dgamma", "dbeta"};
  unsigned result = cast<OpResult>(v).getResultNumber();
  by.zeroCenteredGamma = op->hasAttr("zero_centered_gamma");
  if (auto ln = dyn_cast<LayerNormOp>(op)) {
    by.op = ComputeOp::LayerNorm;
    by.normOutput = kForward[result];
    by.x = name(ln.getX());
    by.gamma = name(ln.getGamma());
    by.beta = name(ln.getBeta());
    by.eps = ln.getEps().convertToDouble();
  } else if (auto rms = dyn_cast<RMSNormOp>(op)) {
    by.op = ComputeOp::RMSNorm;
    by.normOutput = kRMSForward[result];
    by.x = name(rms.getX());
    by.gamma = name(rms.getGamma());
    by.eps = rms.getEps().convertToDouble();
  } else if (auto lnb = dyn_cast<LayerNormBackwardOp>(op)) {
    by.op = ComputeOp::LayerNormBackward;
    by.normOutput = kBackward[result];
    by.dy = name(lnb.getDy());
    by.x = name(lnb.getX());
    by.mean = name(lnb.getMean());
    by.rstd = name(lnb.getRstd());
    by.gamma = name(lnb.getGamma());
    if (result == 0 && lnb.getAdd())
      by.add = name(lnb.getAdd());
  } else {
    auto rmsb = cast<RMSNormBackwardOp>(op);
    by.op = ComputeOp::RMSNormBackward;
    by.normOutput = kBackward[result];
    by.dy = name(rmsb.getDy());
    by.x = name(rmsb.getX());
    by.rstd = name(rmsb.getRstd());
    by.gamma = name(rmsb.getGamma());
    // dx only: dgamma does not depend on it.
    if (result == 0 && rmsb.getAdd())
      by.add = name(rmsb.getAdd());
  }
}

/// How `v` is computed, naming values as `nameOf` does (te-run's --check
/// recomputes it on the CPU); nothing for a value no op of the manifest
/// computes.
std::optional<artifact::ComputedBy>
describeComputation(Value v, const EntryNames &nameOf,
                    const llvm::DenseMap<Operation *, int64_t> &gemmIds,
                    const llvm::DenseMap<Value, int64_t> &groupIndex) {
  using artifact::ComputeOp;
  artifact::ComputedBy by;
  if (isa_and_nonnull<AllGatherOp, ReduceScatterOp, AllReduceOp>(
          v.getDefiningOp())) {
    Operation *op = v.getDefiningOp();
    by.op = isa<AllGatherOp>(op)       ? ComputeOp::AllGather
            : isa<ReduceScatterOp>(op) ? ComputeOp::ReduceScatter
                                       : ComputeOp::AllReduce;
    by.input = nameOf(op->getOperand(0));
    by.group = groupIndex.lookup(op->getOperand(1));
    return by;
  }
  if (auto quantize = v.getDefiningOp<QuantizeOp>()) {
    by.op = v == quantize.getUpdatedAmaxHistory() ? ComputeOp::RecordAmax
                                                  : ComputeOp::Quantize;
    by.input = nameOf(quantize.getInput());
    if (quantize.getScale()) {
      by.scale = nameOf(quantize.getScale());
      by.amaxHistory = nameOf(quantize.getAmaxHistory());
    }
    if (Value rng = quantize.getRngState())
      by.rngState = nameOf(rng);
    // A delayed-scaling quantizer's group is reduced over at its update.
    if (Value group = quantize.getAmaxReductionGroup();
        group && quantize.getResult().getType().getQuantizer().hasAmaxReduction())
      by.group = groupIndex.lookup(group);
    return by;
  }
  if (auto update = v.getDefiningOp<DelayedScalingUpdateOp>()) {
    by.op = ComputeOp::DelayedScalingUpdate;
    by.outputsScale = v == update.getUpdatedScale();
    by.scale = nameOf(update.getScale());
    by.amaxHistory = nameOf(update.getAmaxHistory());
    by.fp8Max = getFormatMax(update.getFp8Dtype());
    by.margin = update.getMarginAttr().getValue().getSExtValue();
    by.mostRecentAmax =
        update.getAmaxComputeAlgo() == AmaxComputeAlgo::most_recent;
    if (Value group = update.getAmaxReductionGroup())
      by.group = groupIndex.lookup(group);
    return by;
  }
  if (auto biasGrad = v.getDefiningOp<BiasGradOp>()) {
    by.op = ComputeOp::BiasGrad;
    by.input = nameOf(biasGrad.getInput());
    return by;
  }
  if (Operation *op = v.getDefiningOp();
      isa_and_nonnull<LayerNormOp, LayerNormBackwardOp, RMSNormOp,
                      RMSNormBackwardOp>(op)) {
    describeNorm(op, v, nameOf, by);
    return by;
  }
  if (auto usage = v.getDefiningOp<UpdateUsageOp>()) {
    by.op = ComputeOp::UpdateUsage;
    by.input = nameOf(usage.getInput());
    return by;
  }
  if (auto dequantize = v.getDefiningOp<DequantizeOp>()) {
    by.op = ComputeOp::Dequantize;
    by.input = nameOf(dequantize.getInput());
    return by;
  }
  if (auto swizzle = v.getDefiningOp<SwizzleScalesOp>()) {
    by.op = ComputeOp::SwizzleScales;
    by.input = nameOf(swizzle.getInput());
    return by;
  }
  if (auto gemmOp = v.getDefiningOp<GemmOp>()) {
    by.op = ComputeOp::Gemm;
    by.gemm = gemmIds.lookup(gemmOp.getOperation());
    by.outputsD = v == gemmOp.getResult();
    by.transa = gemmOp.isTransA();
    by.transb = gemmOp.isTransB();
    by.a = nameOf(gemmOp.getA());
    by.b = nameOf(gemmOp.getB());
    by.useSplitAccumulator = gemmOp.getUseSplitAccumulator();
    if (Value bias = gemmOp.getBias())
      by.bias = nameOf(bias);
    if (Value c = gemmOp.getAccumulate())
      by.accumulate = nameOf(c);
    return by;
  }
  if (isa_and_nonnull<tensor::ExtractSliceOp, tensor::InsertSliceOp>(
          v.getDefiningOp())) {
    auto slice = cast<OffsetSizeAndStrideOpInterface>(v.getDefiningOp());
    by.offsets = shapeOf(slice.getStaticOffsets());
    by.sizes = shapeOf(slice.getStaticSizes());
    by.strides = shapeOf(slice.getStaticStrides());
    if (auto insert = v.getDefiningOp<tensor::InsertSliceOp>()) {
      by.op = ComputeOp::InsertSlice;
      by.input = nameOf(insert.getSource());
      by.dest = nameOf(insert.getDest());
    } else {
      by.op = ComputeOp::ExtractSlice;
      by.input = nameOf(v.getDefiningOp()->getOperand(0));
    }
    return by;
  }
  if (Operation *op = v.getDefiningOp(); op && isSplatTensorConstant(*op)) {
    by.op = ComputeOp::Constant;
    by.value = cast<DenseElementsAttr>(cast<arith::ConstantOp>(op).getValue())
                   .getSplatValue<APFloat>()
                   .convertToDouble();
    return by;
  }
  if (auto concat = v.getDefiningOp<tensor::ConcatOp>()) {
    by.op = ComputeOp::Concat;
    for (Value operand : concat.getOperands())
      by.inputs.push_back(nameOf(operand));
    return by;
  }
  if (Operation *op = v.getDefiningOp(); op && isElementwiseOnTensors(*op)) {
    by.op = ComputeOp::Elementwise;
    by.elementwiseOp = op->getName().getStringRef().str();
    for (Value operand : op->getOperands())
      by.inputs.push_back(nameOf(operand));
    return by;
  }
  return std::nullopt;
}

/// Whether any argument or result of `func` has a teq.role: then the
/// attributes say every role and none is derived.
bool hasRoleAttributes(func::FuncOp func) {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, getRoleAttrName()))
      return true;
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (func.getResultAttr(i, getRoleAttrName()))
      return true;
  return false;
}

/// The roles of a function without teq.role attributes (hand-written IR),
/// from what its lowered IR shows: delayed-scaling state is what quantizes
/// and delayed-scaling updates read as scale and amax history, a returned
/// new value of such state (an update's result, a history a quantize
/// recorded into) is a state_update of the argument it updates, and a
/// wgrad GEMM's accumulator argument and the returned GEMM result
/// accumulated into it are a main_grad. Anything else gets no role
/// (a plain input or output is not told from a parameter here).
struct DerivedRoles {
  llvm::DenseMap<unsigned, std::pair<std::string, std::string>> args;
  llvm::DenseMap<Value, std::pair<std::string, std::string>> values;
};

/// The value `v` is a slice or a new version of: a Linear's state is read
/// through slices (one slot per quantize) and recorded into by inserting
/// each quantize's history back.
Value stateRoot(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    if (auto extract = dyn_cast<tensor::ExtractSliceOp>(op))
      v = extract.getSource();
    else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
      v = insert.getDest();
    else if (auto quantize = dyn_cast<QuantizeOp>(op);
             quantize && v == quantize.getUpdatedAmaxHistory())
      v = quantize.getAmaxHistory();
    else if (auto update = dyn_cast<DelayedScalingUpdateOp>(op))
      v = v == update.getUpdatedScale() ? update.getScale()
                                        : update.getAmaxHistory();
    else
      break;
  }
  return v;
}

/// A Linear's weight-gradient GEMM: only those accumulate into a main_grad
/// (a forward GEMM accumulates a residual, teq-fuse-residual-adds).
bool isWgrad(GemmOp gemm) {
  return gemm.getKind() == GemmKind::wgrad;
}

DerivedRoles deriveRoles(func::FuncOp func, const EntryNames &names) {
  DerivedRoles roles;
  auto state = [&](Value v) {
    if (auto arg = dyn_cast_or_null<BlockArgument>(v ? stateRoot(v) : v))
      roles.args[arg.getArgNumber()] = {"state", ""};
  };
  func.walk([&](Operation *op) {
    if (auto quantize = dyn_cast<QuantizeOp>(op)) {
      state(quantize.getScale());
      state(quantize.getAmaxHistory());
    } else if (auto update = dyn_cast<DelayedScalingUpdateOp>(op)) {
      state(update.getScale());
      state(update.getAmaxHistory());
    } else if (auto gemmOp = dyn_cast<GemmOp>(op)) {
      auto arg = dyn_cast_or_null<BlockArgument>(gemmOp.getAccumulate());
      if (arg && isWgrad(gemmOp))
        roles.args[arg.getArgNumber()] = {"main_grad", ""};
    }
  });
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (Value returned : ret.getOperands()) {
    if (isa<BlockArgument>(returned))
      continue;
    // The accumulated main_grad: a GEMM's result accumulated into one.
    if (auto gemmOp = returned.getDefiningOp<GemmOp>()) {
      auto acc = dyn_cast_or_null<BlockArgument>(gemmOp.getAccumulate());
      if (acc && isWgrad(gemmOp) && returned == gemmOp.getResult()) {
        roles.values[returned] = {"main_grad", ""};
        continue;
      }
    }
    Value root = stateRoot(returned);
    auto arg = dyn_cast<BlockArgument>(root);
    if (root == returned || !arg)
      continue;
    auto it = roles.args.find(arg.getArgNumber());
    if (it != roles.args.end() && it->second.first == "state")
      roles.values[returned] = {"state_update", names(root)};
  }
  return roles;
}

/// `arg`'s role and what it is of.
void setRole(artifact::ArgSpec &arg, StringAttr role, StringAttr of) {
  if (role)
    arg.role = role.str();
  if (of)
    arg.roleOf = of.str();
}

} // namespace

//===----------------------------------------------------------------------===//
// EntryNames
//===----------------------------------------------------------------------===//

EntryNames::EntryNames(func::FuncOp func, const EntryPlan &plan)
    : func(func), plan(&plan) {
  for (auto [i, v] : llvm::enumerate(plan.temporaries))
    temporaryName[v] = "t" + std::to_string(i);
}

FailureOr<EntryNames> EntryNames::get(func::FuncOp func,
                                      const EntryPlan &plan) {
  EntryNames names(func, plan);
  llvm::StringSet<> seen;
  auto unique = [&](const std::string &name) -> LogicalResult {
    if (seen.insert(name).second)
      return success();
    return func.emitError() << "two arguments or results are named '" << name
                            << "'";
  };
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (failed(unique(names.argument(i))))
      return failure();
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (failed(unique(names.result(i))))
      return failure();
  return names;
}

std::string EntryNames::argument(unsigned i) const {
  if (auto name =
          func.getArgAttrOfType<StringAttr>(i, TEQDialect::getNameAttrName()))
    return name.str();
  return "arg" + std::to_string(i);
}

std::string EntryNames::result(unsigned i) const {
  if (auto name = func.getResultAttrOfType<StringAttr>(
          i, TEQDialect::getNameAttrName()))
    return name.str();
  return "result" + std::to_string(i);
}

std::string EntryNames::operator()(Value v) const {
  if (auto a = dyn_cast<BlockArgument>(v))
    return argument(a.getArgNumber());
  if (plan->resultIndexOf.count(v))
    return result(plan->resultIndexOf.lookup(v));
  if (temporaryName.count(v))
    return temporaryName.lookup(v);
  // A usage view is named after what it views.
  if (auto view = v.getDefiningOp<UpdateUsageOp>())
    return "view(" + (*this)(view.getInput()) + ")";
  return "?";
}

//===----------------------------------------------------------------------===//
// ManifestWriter
//===----------------------------------------------------------------------===//

int64_t ManifestWriter::addGemm(const gemm::GemmDescriptor &desc,
                                StringRef name) {
  // Every GEMM keeps its own id and name; identical problems (the same
  // Linear in every layer) share one cuBLASLt plan underneath
  // ("shares_plan_of"), so the runtime sets each up once.
  assert(!desc.spec.hasAlgo && "algorithms are pinned after lowering");
  artifact::GemmSpec gemm = desc.spec;
  gemm.id = static_cast<int64_t>(manifest.gemms.size());
  gemm.name = name.str();
  manifest.gemms.push_back(std::move(gemm));
  artifact::assignSharedPlans(manifest.gemms);
  return manifest.gemms.back().id;
}

void ManifestWriter::addDependentLaunch(StringRef kernel) {
  manifest.dependentLaunchKernels.insert(kernel.str());
}

void ManifestWriter::addEntry(func::FuncOp func, const EntryPlan &plan,
                              const EntryNames &names,
                              const DenseMap<Operation *, int64_t> &gemmIds) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  artifact::EntrySpec entry;
  entry.name = func.getSymName().str();
  entry.symbol = "teq_entry_" + entry.name;
  entry.workspaceBytes = plan.workspaceBytes;
  bool explicitRoles = hasRoleAttributes(func);
  DerivedRoles derived;
  if (!explicitRoles)
    derived = deriveRoles(func, names);
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    if (isa<ProcessGroupType>(type))
      continue;
    artifact::ArgSpec arg = describeArgument(
        names.argument(i), artifact::ArgKind::Input, type,
        plan.argumentBuffers[i]);
    if (explicitRoles) {
      setRole(arg, func.getArgAttrOfType<StringAttr>(i, getRoleAttrName()),
              func.getArgAttrOfType<StringAttr>(i, getRoleOfAttrName()));
    } else if (auto it = derived.args.find(i); it != derived.args.end()) {
      arg.role = it->second.first;
      arg.roleOf = it->second.second;
    }
    entry.args.push_back(std::move(arg));
  }
  // Process groups are no buffers: the caller passes a communicator each.
  llvm::DenseMap<Value, int64_t> groupIndex;
  for (const EntryPlan::Group &group : plan.groups) {
    groupIndex[group.arg] = static_cast<int64_t>(entry.groups.size());
    entry.groups.push_back(
        {names.argument(group.arg.getArgNumber()), group.size});
  }
  for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
    artifact::ArgSpec arg =
        describeArgument(names.result(i), artifact::ArgKind::Output, type,
                         plan.resultBuffers[i]);
    Value returned = ret.getOperand(i);
    bool copied = llvm::any_of(plan.copiedResults, [&](auto &c) {
      return c.first == static_cast<unsigned>(i);
    });
    auto forwarded = llvm::find_if(plan.forwardedResults, [&](auto &f) {
      return f.first == static_cast<unsigned>(i);
    });
    if (forwarded != plan.forwardedResults.end()) {
      // The argument itself: no buffers (planEntry gives it none), nothing
      // computes it.
      arg.aliasOf = names.argument(forwarded->second.getArgNumber());
    } else if (copied) {
      arg.computedBy.emplace();
      arg.computedBy->op = artifact::ComputeOp::Copy;
      arg.computedBy->input = names(returned);
    } else {
      // A view written in place is what its quantization computes, in the
      // view's usages.
      Value computed = returned;
      for (auto &[index, quantization] : plan.aliasedResults)
        if (index == static_cast<unsigned>(i))
          computed = quantization;
      arg.computedBy =
          describeComputation(computed, names, gemmIds, groupIndex);
    }
    if (explicitRoles) {
      setRole(arg, func.getResultAttrOfType<StringAttr>(i, getRoleAttrName()),
              func.getResultAttrOfType<StringAttr>(i, getRoleOfAttrName()));
    } else if (auto it = derived.values.find(returned);
               it != derived.values.end()) {
      arg.role = it->second.first;
      arg.roleOf = it->second.second;
    }
    entry.args.push_back(std::move(arg));
  }
  for (auto [v, buffers, places] :
       llvm::zip(plan.temporaries, plan.temporaryBuffers,
                 plan.temporaryPlacements)) {
    artifact::ArgSpec temporary = describeArgument(
        names(v), artifact::ArgKind::Temporary, v.getType(), buffers);
    temporary.computedBy = describeComputation(v, names, gemmIds, groupIndex);
    temporary.inRegisters = plan.fusion.inRegisters.contains(v);
    // Where each buffer lives: the workspace, a result not yet written, or
    // (a swizzle's data) its input's buffer.
    using Where = artifact::BufferPlacement::Where;
    if (!temporary.inRegisters)
      for (const std::optional<EntryPlan::Placement> &place : places) {
        artifact::BufferPlacement at;
        if (!place) {
          at.in = Where::Input;
        } else if (place->host < 0) {
          at.offset = place->offset;
        } else {
          const EntryPlan::Host &host = plan.hosts[place->host];
          at.in = Where::Output;
          at.output = names.result(host.result);
          at.buffer = host.buffer;
          at.offset = place->offset;
        }
        temporary.placement.push_back(std::move(at));
      }
    entry.temporaries.push_back(std::move(temporary));
  }
  manifest.entries.push_back(std::move(entry));
}

std::string ManifestWriter::render(TargetAttr target) {
  manifest.target.sm = static_cast<int>(target.getSm());
  manifest.target.name = target.getChip();
  return artifact::writeManifest(manifest);
}

//===- EntryBuffers.cpp - An entry's buffers and workspace plan -----------===//

#include "EntryBuffers.h"

#include "Kernels/BiasGrad.h"
#include "Kernels/PerTensorFP8.h"
#include "Lowerable.h"
#include "MemoryPlan.h"
#include "QuantizeFusion.h"

#include <algorithm>
#include <functional>

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;
namespace layout = ::mlir::teq::layout;

FailureOr<SmallVector<Buffer>>
lowering::buffersOf(Type type, TargetAttr target, Location loc) {
  MLIRContext *ctx = type.getContext();
  SmallVector<Buffer> buffers;
  // A process group is a communicator the caller passes, not memory.
  if (isa<ProcessGroupType>(type))
    return buffers;
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    Type element = tensor.getElementType();
    // i64 only as the (seed, offset) of stochastic rounding: a 16-byte
    // buffer the kernels read.
    bool rngState = element.isInteger(64) &&
                    tensor.getShape() == ArrayRef<int64_t>{2};
    if (!element.isBF16() && !element.isF16() && !element.isF32() &&
        !rngState)
      return emitError(loc) << "entry tensors must be bf16, f16 or f32 (or "
                               "tensor<2xi64>, the rng_state of stochastic "
                               "rounding), got "
                            << tensor;
    int64_t bytes =
        tensor.getNumElements() * element.getIntOrFloatBitWidth() / 8;
    buffers.push_back({"tensor",
                       MemRefType::get({tensor.getNumElements()}, element),
                       bytes, std::nullopt});
    return buffers;
  }
  auto proto = dyn_cast<TensorProtoType>(type);
  if (!proto)
    return emitError(loc) << "entry arguments and results must be tensors or "
                             "!teq.proto, got "
                          << type;
  for (const layout::BufferDesc &desc : proto.getBuffers(target)) {
    Type element = desc.encoding == layout::Encoding::F32
                       ? Type(Float32Type::get(ctx))
                       : Type(IntegerType::get(ctx, 8));
    buffers.push_back({desc.name,
                       MemRefType::get({desc.numElements()}, element),
                       desc.sizeInBytes(), desc});
  }
  return buffers;
}

bool lowering::isScaleBuffer(StringRef name) {
  return name == "rowwise_scale_inv" || name == "columnwise_scale_inv";
}

llvm::StringMap<NamedBuffer> lowering::buffersByName(TensorProtoType proto,
                                                     TargetAttr target,
                                                     ArrayRef<Value> buffers) {
  llvm::StringMap<NamedBuffer> named;
  for (auto [desc, value] : llvm::zip(proto.getBuffers(target), buffers))
    named[desc.name] = {value, desc};
  return named;
}

namespace {

/// The f32 partial sums of a bias gradient's first pass: one row per 64-row
/// tile where the quantization's cast sums them.
int64_t biasGradScratchElements(BiasGradOp op) {
  kernels::BiasGradSpec spec = biasGradSpec(op);
  return biasGradPartialChunks(op) * spec.cols;
}

} // namespace

int64_t lowering::biasGradPartialChunks(BiasGradOp op) {
  kernels::BiasGradSpec spec = biasGradSpec(op);
  if (!isSummedByCast(op))
    return kernels::biasGradChunks(spec);
  kernels::PerTensorFP8Spec cast;
  cast.rows = spec.rows;
  cast.cols = spec.cols;
  return kernels::perTensorColumnSumChunks(cast);
}

kernels::BiasGradSpec lowering::biasGradSpec(BiasGradOp op) {
  auto input = cast<RankedTensorType>(op.getInput().getType());
  kernels::BiasGradSpec spec;
  spec.cols = op.getResult().getType().getNumElements();
  spec.rows = input.getNumElements() / spec.cols;
  spec.input = kernels::inputTypeOf(input.getElementType());
  spec.output = kernels::inputTypeOf(op.getResult().getType().getElementType());
  return spec;
}

kernels::NormSpec lowering::normSpec(Operation *op) {
  kernels::NormSpec spec;
  spec.rms = isa<RMSNormOp, RMSNormBackwardOp>(op);
  spec.backward = isa<LayerNormBackwardOp, RMSNormBackwardOp>(op);
  // x is operand 0 of a forward, 1 of a backward (after dy); gamma is the
  // forward's operand 1 and the backward's last.
  auto x = cast<RankedTensorType>(op->getOperand(spec.backward ? 1 : 0).getType());
  Value gamma = spec.backward ? op->getOperands().back() : op->getOperand(1);
  spec.cols = x.getShape().back();
  spec.rows = x.getNumElements() / spec.cols;
  spec.x = kernels::inputTypeOf(x.getElementType());
  spec.gamma = kernels::inputTypeOf(
      cast<RankedTensorType>(gamma.getType()).getElementType());
  spec.zeroCenteredGamma = op->hasAttr("zero_centered_gamma");
  if (auto ln = dyn_cast<LayerNormOp>(op)) {
    spec.hasBeta = static_cast<bool>(ln.getBeta());
    spec.eps = ln.getEps().convertToFloat();
  } else if (auto rms = dyn_cast<RMSNormOp>(op)) {
    spec.eps = rms.getEps().convertToFloat();
  }
  return spec;
}

FailureOr<EntryPlan> lowering::planEntry(func::FuncOp func,
                                         TargetAttr target) {
  // checkEntryLowerable (OpLowering.h) has checked the entry: one block,
  // every op lowerable, every value of a static shape.
  assert(func.getBody().hasOneBlock() && "checkEntryLowerable ran first");
  Block &entryBlock = func.getBody().front();
  auto ret = cast<func::ReturnOp>(entryBlock.getTerminator());
  EntryPlan plan;

  // Groups: each process-group argument, sized by the collectives over it.
  for (BlockArgument arg : entryBlock.getArguments()) {
    if (!isa<ProcessGroupType>(arg.getType()))
      continue;
    EntryPlan::Group group{arg, 0};
    bool reducesAmax = false;
    for (Operation &op : entryBlock) {
      Operation *user = &op;
      if (!llvm::is_contained(op.getOperands(), Value(arg)))
        continue;
      int64_t size = 0;
      if (auto gather = dyn_cast<AllGatherOp>(user))
        size = gather.getTpSize();
      else if (auto scatter = dyn_cast<ReduceScatterOp>(user))
        size = scatter.getTpSize();
      else if (auto reduce = dyn_cast<AllReduceOp>(user))
        size = reduce.getTpSize();
      else {
        reducesAmax |= isa<DelayedScalingUpdateOp, QuantizeOp>(user);
        continue;
      }
      if (group.size && group.size != size)
        return user->emitOpError("has tp_size = ")
               << size << ", but an earlier collective over the same group has "
               << group.size;
      group.size = size;
    }
    // A group that only reduces amaxes, or that the entry takes without
    // using it (a program's entries take all its groups), works at any size
    // (manifest size 0).
    if (!group.size && !reducesAmax && !arg.use_empty())
      return emitError(func.getLoc())
             << "process group argument #" << arg.getArgNumber()
             << " has no collective (teq.all_gather, teq.reduce_scatter, "
                "teq.all_reduce) that gives its size (tp_size)";
    plan.groups.push_back(group);
  }
  if (llvm::any_of(ret.getOperandTypes(), llvm::IsaPred<ProcessGroupType>))
    return ret.emitOpError("cannot return a process group");

  // Returned values live in the caller's output buffers; the rest
  // (temporaries) in the workspace. A result that is an argument is that
  // argument (no buffers, no copy: a saved input costs nothing); a usage
  // view or a value returned before is a copy made at the end.
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      plan.forwardedResults.push_back({static_cast<unsigned>(i), arg});
      continue;
    }
    auto view = v.getDefiningOp<UpdateUsageOp>();
    if ((view && !derivesBuffers(view, target)) ||
        plan.resultIndexOf.count(v))
      plan.copiedResults.push_back({static_cast<unsigned>(i), v});
    else
      plan.resultIndexOf[v] = static_cast<unsigned>(i);
  }

  // A returned view of a quantization computed here writes in place: the
  // quantization's buffers of the view's names are the result's buffers
  // (same name, same layout), its other buffers stay temporaries.
  // Quantization -> (result index, the result's buffer index by name).
  DenseMap<Value, std::pair<unsigned, llvm::StringMap<unsigned>>> aliasOf;
  for (auto *it = plan.copiedResults.begin();
       it != plan.copiedResults.end();) {
    auto [i, v] = *it;
    auto view = v.getDefiningOp<UpdateUsageOp>();
    auto quantize = view ? view.getInput().getDefiningOp<QuantizeOp>()
                         : QuantizeOp();
    if (!quantize || plan.resultIndexOf.count(quantize.getResult()) ||
        aliasOf.count(quantize.getResult())) {
      ++it;
      continue;
    }
    FailureOr<SmallVector<Buffer>> viewBuffers =
        buffersOf(v.getType(), target, view.getLoc());
    FailureOr<SmallVector<Buffer>> ownBuffers =
        buffersOf(quantize.getResult().getType(), target, quantize.getLoc());
    if (failed(viewBuffers) || failed(ownBuffers))
      return failure();
    llvm::StringMap<unsigned> byName;
    bool same = true;
    for (auto [j, b] : llvm::enumerate(*viewBuffers)) {
      auto own = llvm::find_if(
          *ownBuffers, [&](const Buffer &o) { return o.name == b.name; });
      same &= own != ownBuffers->end() && own->type == b.type;
      byName[b.name] = static_cast<unsigned>(j);
    }
    if (!same) {
      ++it;
      continue;
    }
    aliasOf[quantize.getResult()] = {i, std::move(byName)};
    plan.aliasedResults.push_back({i, quantize.getResult()});
    it = plan.copiedResults.erase(it);
  }
  // The result buffer a temporary's buffer `name` is, if any.
  auto aliasedBuffer =
      [&](Value v,
          StringRef name) -> std::optional<std::pair<unsigned, unsigned>> {
    auto it = aliasOf.find(v);
    if (it == aliasOf.end())
      return std::nullopt;
    auto j = it->second.second.find(name);
    if (j == it->second.second.end())
      return std::nullopt;
    return std::make_pair(it->second.first, j->second);
  };

  // GEMMs get their cuBLASLt descriptions first, so every error surfaces
  // before any IR is built.
  for (auto gemmOp : entryBlock.getOps<GemmOp>()) {
    FailureOr<gemm::GemmDescriptor> desc = gemm::describeGemm(gemmOp, target);
    if (failed(desc))
      return failure();
    plan.gemms.push_back({gemmOp, *desc});
  }

  // Temporaries: every value computed and not returned, except usage views
  // (they alias their input's buffers). Lifetimes run to the last use,
  // through views.
  DenseMap<Operation *, int64_t> opIndex;
  for (auto [i, op] : llvm::enumerate(entryBlock.getOperations()))
    opIndex[&op] = static_cast<int64_t>(i);
  DenseMap<Operation *, const gemm::GemmDescriptor *> descOf;
  for (auto &[gemmOp, desc] : plan.gemms)
    descOf[gemmOp.getOperation()] = &desc;
  // The last op reading buffer `name` of `v`. Lifetimes are per buffer: a
  // GEMM reads only the copy its layout needs (after the fprop, x's rowwise
  // data is dead while its transpose waits for wgrad), and usage views
  // share their input's buffers of the same name.
  plan.fusion = planElementwiseFusion(entryBlock);
  std::function<int64_t(Value, StringRef)> lastUse = [&](Value v,
                                                          StringRef name) {
    int64_t last = opIndex.lookup(v.getDefiningOp());
    // Elementwise kernels run where their cluster's last op stands: they
    // store their outputs and load their inputs there.
    if (auto it = plan.fusion.clusterOf.find(v.getDefiningOp());
        it != plan.fusion.clusterOf.end())
      last = std::max(
          last, opIndex.lookup(plan.fusion.clusters[it->second].launchAt));
    if (Operation *load = plan.fusion.lastLoad.lookup(v))
      last = std::max(last, opIndex.lookup(load));
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isElementwiseOnTensors(*user))
        continue;
      auto view = dyn_cast<UpdateUsageOp>(user);
      if (view && !derivesBuffers(view, target)) {
        for (const layout::BufferDesc &d :
             view.getResult().getType().getBuffers(target))
          if (d.name == name)
            last = std::max(last, lastUse(view.getResult(), name));
        continue;
      }
      // A swizzle reads the input's scales and passes on its other buffers.
      if (auto swizzle = dyn_cast<SwizzleScalesOp>(user)) {
        last = std::max(last, opIndex.lookup(user));
        if (!isScaleBuffer(name) &&
            !plan.resultIndexOf.count(swizzle.getResult()))
          last = std::max(last, lastUse(swizzle.getResult(), name));
        continue;
      }
      auto gemmOp = dyn_cast<GemmOp>(user);
      if (gemmOp && isa<TensorProtoType>(v.getType()) &&
          (&use == &gemmOp.getAMutable() || &use == &gemmOp.getBMutable())) {
        const gemm::OperandBuffers &reads = &use == &gemmOp.getAMutable()
                                                ? descOf.lookup(user)->a
                                                : descOf.lookup(user)->b;
        if (name != reads.data && name != reads.scale && name != reads.amax)
          continue;
      }
      last = std::max(last, opIndex.lookup(user));
    }
    return last;
  };
  auto ownsBuffer = [&](Value v, const Buffer &b) {
    if (plan.fusion.inRegisters.contains(v))
      return false;
    return !v.getDefiningOp<SwizzleScalesOp>() || isScaleBuffer(b.name);
  };
  std::vector<TemporaryBuffer> intervals;
  for (Operation &op : entryBlock) {
    // A view that derives a buffer has buffers of its own.
    if (isa<func::ReturnOp>(op) ||
        (isa<UpdateUsageOp>(op) &&
         !derivesBuffers(cast<UpdateUsageOp>(op), target)))
      continue;
    for (Value result : op.getResults()) {
      if (plan.resultIndexOf.count(result))
        continue;
      FailureOr<SmallVector<Buffer>> buffers =
          buffersOf(result.getType(), target, op.getLoc());
      if (failed(buffers))
        return failure();
      for (const Buffer &b : *buffers)
        // A swizzle's temporary result owns only its scales (see lastUse);
        // a value in registers owns nothing; a buffer written into a
        // result lives there.
        if (ownsBuffer(result, b) && !aliasedBuffer(result, b.name))
          intervals.push_back(
              {b.bytes, opIndex.lookup(&op), lastUse(result, b.name), -1});
      plan.temporaries.push_back(result);
      plan.temporaryBuffers.push_back(std::move(*buffers));
    }
  }
  auto f32 = Float32Type::get(func.getContext());
  for (auto &[gemmOp, desc] : plan.gemms)
    if (desc.spec.alphaOnDevice)
      plan.scratch.push_back(
          {gemmOp.getOperation(), MemRefType::get({1}, f32), -1});
  // The amax a quantizer with amax reduction all-reduces over its group.
  // (A delayed-scaling quantize's group is reduced over at its update.)
  for (auto quantize : entryBlock.getOps<QuantizeOp>())
    if (quantize.getAmaxReductionGroup() &&
        quantize.getResult().getType().getQuantizer().hasAmaxReduction())
      plan.scratch.push_back(
          {quantize.getOperation(), MemRefType::get({1}, f32), -1});
  // [scale, scale_inv] of a quantization whose input's producer computes
  // its amax (QuantizeFusion.h): from that producer on.
  for (auto quantize : entryBlock.getOps<QuantizeOp>())
    if (takesProducerAmax(quantize))
      plan.scratch.push_back({quantize.getOperation(),
                              MemRefType::get({2}, f32), EntryPlan::Placement{},
                              quantize.getInput().getDefiningOp()});
  // The amaxes (row 0 of the history) a delayed-scaling update reduces.
  for (auto update : entryBlock.getOps<DelayedScalingUpdateOp>())
    if (update.getAmaxReductionGroup())
      plan.scratch.push_back({update.getOperation(),
                              MemRefType::get({update.getScale()
                                                   .getType()
                                                   .getDimSize(0)},
                                              f32),
                              -1});
  // (Summed by the cast before it: from that cast on.)
  for (auto biasGrad : entryBlock.getOps<BiasGradOp>())
    plan.scratch.push_back(
        {biasGrad.getOperation(),
         MemRefType::get({biasGradScratchElements(biasGrad)}, f32),
         EntryPlan::Placement{},
         isSummedByCast(biasGrad) ? biasGrad->getPrevNode() : nullptr});
  // A norm backward's dgamma/dbeta partials (Kernels/Norm.h).
  for (Operation &op : entryBlock)
    if (isa<LayerNormBackwardOp, RMSNormBackwardOp>(op))
      plan.scratch.push_back(
          {&op,
           MemRefType::get({kernels::normScratchElements(normSpec(&op))}, f32),
           -1});
  for (const EntryPlan::Scratch &s : plan.scratch) {
    int64_t at = opIndex.lookup(s.op);
    int64_t from = s.from ? opIndex.lookup(s.from) : at;
    intervals.push_back({s.type.getNumElements() * 4, from, at});
  }

  for (Type type : func.getArgumentTypes()) {
    FailureOr<SmallVector<Buffer>> buffers =
        buffersOf(type, target, func.getLoc());
    if (failed(buffers))
      return failure();
    plan.argumentBuffers.push_back(std::move(*buffers));
  }
  for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
    if (isa<BlockArgument>(ret.getOperand(i))) {
      plan.resultBuffers.emplace_back(); // forwarded: none
      continue;
    }
    FailureOr<SmallVector<Buffer>> buffers =
        buffersOf(type, target, func.getLoc());
    if (failed(buffers))
      return failure();
    plan.resultBuffers.push_back(std::move(*buffers));
  }

  // Hosts: a result buffer holds nothing until the op that writes it (its
  // defining op; the return for a copied result), so temporaries that die
  // before may use its bytes. Only data buffers the writer fills entirely
  // (a tensor, quantized data without padding): a scale buffer's padding
  // must keep what the caller gave.
  std::vector<HostBuffer> hosts;
  SmallVector<EntryPlan::Host> candidates;
  for (auto [i, buffers] : llvm::enumerate(plan.resultBuffers)) {
    Value returned = ret.getOperand(i);
    auto it = plan.resultIndexOf.find(returned);
    bool inPlace = it != plan.resultIndexOf.end() && it->second == i;
    int64_t firstWrite = inPlace ? opIndex.lookup(returned.getDefiningOp())
                                 : opIndex.lookup(ret.getOperation());
    bool aliased = llvm::any_of(plan.aliasedResults, [&](auto &a) {
      return a.first == static_cast<unsigned>(i);
    });
    for (auto [j, b] : llvm::enumerate(buffers)) {
      if (aliased || b.bytes < kWorkspaceAlignment ||
          (b.desc && (b.desc->role != layout::BufferRole::Data ||
                      b.desc->padded())))
        continue;
      candidates.push_back(
          {static_cast<unsigned>(i), static_cast<unsigned>(j)});
      hosts.push_back({b.bytes, firstWrite});
    }
  }
  plan.workspaceBytes = planWorkspace(intervals, hosts);
  // plan.hosts: the candidates that host something, in result order.
  SmallVector<int64_t> hostIndex(candidates.size(), -1);
  for (const TemporaryBuffer &t : intervals)
    if (t.host >= 0)
      hostIndex[t.host] = 0;
  for (auto [k, index] : llvm::enumerate(hostIndex))
    if (index == 0) {
      index = static_cast<int64_t>(plan.hosts.size());
      plan.hosts.push_back(candidates[k]);
    }

  // The result buffers quantizations write into: hosts of one buffer each,
  // at offset 0.
  DenseMap<std::pair<unsigned, unsigned>, int64_t> aliasHost;
  for (auto &[i, q] : plan.aliasedResults)
    for (auto &entry : aliasOf.find(q)->second.second) {
      aliasHost[{i, entry.second}] = static_cast<int64_t>(plan.hosts.size());
      plan.hosts.push_back({i, entry.second});
    }

  // Hand the places back in the order the intervals were made.
  size_t next = 0;
  auto placement = [&] {
    const TemporaryBuffer &t = intervals[next++];
    return EntryPlan::Placement{t.offset,
                                t.host < 0 ? -1 : hostIndex[t.host]};
  };
  for (auto [v, buffers] :
       llvm::zip(plan.temporaries, plan.temporaryBuffers)) {
    SmallVector<std::optional<EntryPlan::Placement>> places;
    for (const Buffer &b : buffers)
      if (!ownsBuffer(v, b))
        places.push_back(std::nullopt);
      else if (auto alias = aliasedBuffer(v, b.name))
        places.push_back(EntryPlan::Placement{0, aliasHost.lookup(*alias)});
      else
        places.push_back(placement());
    plan.temporaryPlacements.push_back(std::move(places));
  }
  for (EntryPlan::Scratch &s : plan.scratch)
    s.at = placement();
  return plan;
}

namespace {
/// Whether every operand of `op` is defined before `before` (in its block).
bool operandsDefinedBefore(Operation *op, Operation *before) {
  return llvm::all_of(op->getOperands(), [&](Value v) {
    Operation *def = v.getDefiningOp();
    return !def || def->isBeforeInBlock(before);
  });
}
} // namespace

LogicalResult lowering::orderBackwardGemms(func::FuncOp func,
                                           TargetAttr target) {
  FailureOr<EntryPlan> plan = planEntry(func, target);
  if (failed(plan))
    return failure();
  int64_t best = plan->workspaceBytes;
  Block &block = func.getBody().front();
  SmallVector<GemmOp> wgrads;
  for (auto gemmOp : block.getOps<GemmOp>())
    if (gemmOp.getKind() == GemmKind::wgrad)
      wgrads.push_back(gemmOp);
  for (GemmOp wgrad : wgrads) {
    // The dgrad of the same backward: the closest one before the wgrad
    // that reads the same output gradient.
    GemmOp dgrad;
    for (Operation *op = wgrad->getPrevNode(); op; op = op->getPrevNode()) {
      auto candidate = dyn_cast<GemmOp>(op);
      if (candidate && candidate.getKind() == GemmKind::dgrad) {
        dgrad = candidate;
        break;
      }
    }
    // Run the wgrad first where it needs nothing computed after the dgrad;
    // keep the move only where it saves workspace.
    if (!dgrad || !operandsDefinedBefore(wgrad, dgrad))
      continue;
    Operation *after = wgrad->getNextNode();
    wgrad->moveBefore(dgrad);
    FailureOr<EntryPlan> moved = planEntry(func, target);
    if (failed(moved))
      return failure();
    if (moved->workspaceBytes < best) {
      best = moved->workspaceBytes;
      continue;
    }
    wgrad->moveBefore(after);
  }
  return success();
}

//===- CollectiveLowering.cpp - TP/SP collectives to runtime calls --------===//
//
// teq.all_gather, teq.reduce_scatter and teq.all_reduce (te-semantics.md §7,
// emitted by teq-decompose-linear) become calls of the runtime's
// teqAllGather / teqReduceScatter / teqAllReduce (docs/Artifact.md,
// "Collectives"): NCCL on the entry's stream, after the kernels and GEMMs
// before them, over the communicator the caller passes for the op's group
// (the index of its !teq.process_group argument among the entry's). Their
// results are ordinary values: the caller's output buffers or temporaries
// of the workspace plan.
//
// A quantized all-gather (per-tensor FP8, rowwise: TE gathers only the
// rowwise data of per-tensor FP8) gathers the data as bytes and copies the
// other buffers (scale_inv) from the rank's own shard: every rank's scale is
// the scale of the whole tensor (TE reduces the amax over the group first).
//
//===----------------------------------------------------------------------===//

#include "OpLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;

namespace {

using artifact::CollectiveType;
using artifact::ReduceOp;

CollectiveType collectiveType(Type element) {
  if (element.isF32())
    return CollectiveType::F32;
  if (element.isBF16())
    return CollectiveType::BF16;
  return CollectiveType::F16;
}

/// The group is an entry argument; tensors are bf16, f16 or f32; a
/// quantized all-gather is per-tensor FP8, rowwise, with a scale every rank
/// shares.
LogicalResult checkCollective(Operation &op) {
  // The group is a communicator the caller passes for the entry.
  auto group = dyn_cast<BlockArgument>(op.getOperand(1));
  if (!group || !isa<func::FuncOp>(group.getOwner()->getParentOp()))
    return op.emitOpError("needs its process group as an argument of the "
                          "entry function (the caller passes a communicator "
                          "per group)");
  Type type = op.getOperand(0).getType();
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    Type element = tensor.getElementType();
    if (!element.isBF16() && !element.isF16() && !element.isF32())
      return op.emitOpError("communicates bf16, f16 or f32 tensors, got ")
             << tensor;
    return success();
  }
  // Quantized: only all-gather (the verifier), of per-tensor FP8 rowwise
  // data, as TE gathers it (te-semantics.md §7).
  auto proto = cast<TensorProtoType>(type);
  QuantizerAttrInterface q = proto.getQuantizer();
  if (!isa<Float8CurrentScalingQuantizerAttr, Float8QuantizerAttr>(q))
    return op.emitOpError("all-gather of ")
           << q.getQuantizerName()
           << " data has no GPU lowering yet (this version gathers "
              "per-tensor FP8: Float8CurrentScalingQuantizer, "
              "Float8Quantizer)";
  if (proto.hasColumnwise())
    return op.emitOpError("gathers per-tensor FP8 with a columnwise usage; "
                          "TE gathers only the rowwise data of per-tensor "
                          "FP8 (the columnwise copy is made after the "
                          "gather)");
  if (auto cs = dyn_cast<Float8CurrentScalingQuantizerAttr>(q);
      cs && !cs.getWithAmaxReduction())
    return op.emitOpError("gathers current-scaling FP8 whose quantizer has "
                          "no amax reduction: every rank's data would have "
                          "its own scale (TE reduces the amax over the group "
                          "first: with_amax_reduction = true)");
  // The gathered shards share the local scale_inv, so their scale must be
  // one over the gather's group.
  Value gathered = op.getOperand(0);
  while (auto view = gathered.getDefiningOp<UpdateUsageOp>())
    gathered = view.getInput();
  if (auto quantize = gathered.getDefiningOp<QuantizeOp>()) {
    if (isa<Float8QuantizerAttr>(q) && !quantize.getAmaxReductionGroup())
      return op.emitOpError(
          "gathers delayed-scaling FP8 quantized in this entry without an "
          "amax_reduction_group: each rank records only its own amax, so the "
          "ranks' scales part after the next update unless the update "
          "reduces the amaxes over the gather's group (name the group on the "
          "teq.quantize and pass it to teq.delayed_scaling_update)");
    // The update that keeps the scales equal is another entry of the
    // module (the group's identity across entries is the caller's): at
    // least one must reduce, or every update parts the scales.
    if (isa<Float8QuantizerAttr>(q)) {
      auto module = op.getParentOfType<ModuleOp>();
      bool reducingUpdate = false;
      module.walk([&](DelayedScalingUpdateOp update) {
        reducingUpdate |= static_cast<bool>(update.getAmaxReductionGroup());
      });
      if (!reducingUpdate)
        return op.emitOpError(
            "gathers delayed-scaling FP8, but no teq.delayed_scaling_update "
            "of this module reduces amaxes over a group: after the first "
            "update each rank's scale would be its own and the gathered "
            "shards would be decoded with the wrong one (DelayedScaling's "
            "reduce_amax under an autocast amax_reduction_group builds such "
            "an update; or quantize with current scaling)");
    }
    if (quantize.getAmaxReductionGroup() != op.getOperand(1))
      return op.emitOpError("gathers FP8 whose amax is reduced over another "
                            "process group than the gather's: the shards' "
                            "scales would differ (TE reduces the amax over "
                            "the group it gathers over)");
  }
  return success();
}

LogicalResult lowerCollective(LoweringContext &ctx, Operation &op) {
  OpBuilder &b = ctx.builder();
  Location loc = op.getLoc();
  Value input = op.getOperand(0);
  Value group = op.getOperand(1);
  Value result = op.getResult(0);
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  auto constant64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  auto constant32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  auto pointer = [&](Value memref) { return ctx.devicePointer(loc, memref); };
  Value groupIndex = constant64(ctx.groupIndex(group));

  if (auto proto = dyn_cast<TensorProtoType>(input.getType())) {
    // All-gather of per-tensor FP8 (checkCollective): the data as bytes,
    // the rest from this rank's shard.
    llvm::StringMap<NamedBuffer> in = ctx.namedBuffers(input);
    llvm::StringMap<NamedBuffer> out = ctx.namedBuffers(result);
    auto resultProto = cast<TensorProtoType>(result.getType());
    for (const layout::BufferDesc &desc :
         resultProto.getBuffers(ctx.getTarget())) {
      Value source = in.lookup(desc.name).value;
      Value dest = out.lookup(desc.name).value;
      if (desc.name == "data") {
        ctx.callRuntime(
            loc, artifact::kAllGatherFunction,
            {groupIndex, pointer(source), pointer(dest),
             constant64(in.lookup(desc.name).desc.sizeInBytes()),
             constant32(static_cast<int32_t>(CollectiveType::Bytes))});
        continue;
      }
      ctx.copyBuffer(loc, source, dest);
    }
    return success();
  }

  auto inType = cast<RankedTensorType>(input.getType());
  auto outType = cast<RankedTensorType>(result.getType());
  Value type = constant32(
      static_cast<int32_t>(collectiveType(inType.getElementType())));
  Value send = pointer(ctx.buffer(input));
  Value recv = pointer(ctx.buffer(result));
  if (isa<AllGatherOp>(op)) {
    ctx.callRuntime(loc, artifact::kAllGatherFunction,
                    {groupIndex, send, recv,
                     constant64(inType.getNumElements()), type});
    return success();
  }
  StringRef callee = isa<ReduceScatterOp>(op)
                         ? artifact::kReduceScatterFunction
                         : artifact::kAllReduceFunction;
  // reduce-scatter counts the elements each rank receives.
  ctx.callRuntime(loc, callee,
                  {groupIndex, send, recv, constant64(outType.getNumElements()),
                   type, constant32(static_cast<int32_t>(ReduceOp::Sum))});
  return success();
}

} // namespace

const OpLowering lowering::collectiveLowering = {
    "teq.all_gather, teq.reduce_scatter, teq.all_reduce",
    [](Operation &op) {
      return isa<AllGatherOp, ReduceScatterOp, AllReduceOp>(op);
    },
    checkCollective,
    lowerCollective,
};

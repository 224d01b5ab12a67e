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

#include "EntryLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

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

/// Declares the runtime function `name` taking `types` in the module, once.
void declareRuntimeFunction(func::FuncOp entry, StringRef name,
                            ArrayRef<Type> types) {
  auto module = entry->getParentOfType<ModuleOp>();
  if (module.lookupSymbol(name))
    return;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  auto decl = func::FuncOp::create(b, module.getLoc(), name,
                                   b.getFunctionType(types, {}));
  decl.setPrivate();
}

} // namespace

Value lowering::devicePointer(OpBuilder &b, Location loc, Value memref) {
  if (!memref)
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0);
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

void EntryLowering::lowerAmaxReduction(OpBuilder &b, Location loc,
                                       Value group, Value send, Value recv,
                                       int64_t count) {
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  declareRuntimeFunction(func, kAllReduceFunction,
                         {i64, i64, i64, i64, i32, i32});
  Value sendPointer = devicePointer(b, loc, send);
  Value recvPointer =
      recv == send ? sendPointer : devicePointer(b, loc, recv);
  func::CallOp::create(
      b, loc, kAllReduceFunction, TypeRange{},
      ValueRange{arith::ConstantIntOp::create(b, loc, i64,
                                              groupIndexOf.lookup(group)),
                 sendPointer, recvPointer,
                 arith::ConstantIntOp::create(b, loc, i64, count),
                 arith::ConstantIntOp::create(
                     b, loc, i32, static_cast<int32_t>(CollectiveType::F32)),
                 arith::ConstantIntOp::create(
                     b, loc, i32, static_cast<int32_t>(ReduceOp::Max))});
}

void EntryLowering::lowerCollective(OpBuilder &b, Operation &op,
                                    Value &token) {
  (void)token; // one stream: the call is ordered after earlier launches
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
  auto pointer = [&](Value memref) { return devicePointer(b, loc, memref); };
  Value groupIndex = constant64(groupIndexOf.lookup(group));

  if (auto proto = dyn_cast<TensorProtoType>(input.getType())) {
    // All-gather of per-tensor FP8 (Lowerable.cpp): the data as bytes, the
    // rest from this rank's shard.
    declareRuntimeFunction(func, kAllGatherFunction, {i64, i64, i64, i64, i32});
    llvm::StringMap<NamedBuffer> in =
        buffersByName(proto, target, buffersOfValue.lookup(input));
    TensorProtoType resultProto = cast<TensorProtoType>(result.getType());
    llvm::StringMap<NamedBuffer> out =
        buffersByName(resultProto, target, buffersOfValue.lookup(result));
    for (const layout::BufferDesc &desc : resultProto.getBuffers(target)) {
      Value source = in.lookup(desc.name).value;
      Value dest = out.lookup(desc.name).value;
      if (desc.name == "data") {
        func::CallOp::create(
            b, loc, kAllGatherFunction, TypeRange{},
            ValueRange{groupIndex, pointer(source), pointer(dest),
                       constant64(in.lookup(desc.name).desc.sizeInBytes()),
                       constant32(static_cast<int32_t>(CollectiveType::Bytes))});
        continue;
      }
      copyBuffer(b, loc, source, dest, token);
    }
    return;
  }

  auto inType = cast<RankedTensorType>(input.getType());
  auto outType = cast<RankedTensorType>(result.getType());
  Value type = constant32(
      static_cast<int32_t>(collectiveType(inType.getElementType())));
  Value send = pointer(buffersOfValue.lookup(input).front());
  Value recv = pointer(buffersOfValue.lookup(result).front());
  if (isa<AllGatherOp>(op)) {
    declareRuntimeFunction(func, kAllGatherFunction, {i64, i64, i64, i64, i32});
    func::CallOp::create(b, loc, kAllGatherFunction, TypeRange{},
                         ValueRange{groupIndex, send, recv,
                                    constant64(inType.getNumElements()), type});
    return;
  }
  StringRef callee = isa<ReduceScatterOp>(op) ? kReduceScatterFunction
                                              : kAllReduceFunction;
  declareRuntimeFunction(func, callee, {i64, i64, i64, i64, i32, i32});
  // reduce-scatter counts the elements each rank receives.
  func::CallOp::create(b, loc, callee, TypeRange{},
                       ValueRange{groupIndex, send, recv,
                                  constant64(outType.getNumElements()), type,
                                  constant32(static_cast<int32_t>(ReduceOp::Sum))});
}

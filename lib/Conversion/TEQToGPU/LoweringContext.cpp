//===- LoweringContext.cpp - What every op family's lowering shares -------===//

#include "LoweringContext.h"

#include "Kernels/Auxiliary.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;

StringRef lowering::kernelKindLetter(KernelKind kind) {
  switch (kind) {
  case KernelKind::Quantize:
    return "q";
  case KernelKind::ScalingUpdate:
    return "u";
  case KernelKind::ScaleSwizzle:
  case KernelKind::Slice:
    return "s";
  case KernelKind::Transpose:
    return "t";
  case KernelKind::Elementwise:
    return "e";
  case KernelKind::BiasGrad:
    return "b";
  case KernelKind::Copy:
    return "c";
  case KernelKind::GemmAlpha:
    return "g";
  case KernelKind::Dequantize:
    return "d";
  case KernelKind::Norm:
    return "n";
  }
  llvm_unreachable("every kernel kind has a letter");
}

ArrayRef<Value> LoweringContext::buffers(Value v) const {
  auto it = buffersOfValue.find(v);
  if (it == buffersOfValue.end())
    return {};
  return it->second;
}

llvm::StringMap<NamedBuffer> LoweringContext::namedBuffers(Value v) const {
  return buffersByName(cast<TensorProtoType>(v.getType()), target, buffers(v));
}

Value LoweringContext::namedBuffer(Value v, StringRef name) const {
  return namedBuffers(v).lookup(name).value;
}

void LoweringContext::setGemm(GemmOp op, int64_t id,
                              const gemm::GemmDescriptor &desc) {
  gemms[op.getOperation()] = {id, &desc};
}

int64_t LoweringContext::gemmId(GemmOp op) const {
  return gemms.lookup(op.getOperation()).first;
}

const gemm::GemmDescriptor &LoweringContext::gemmDescriptor(GemmOp op) const {
  return *gemms.lookup(op.getOperation()).second;
}

void LoweringContext::launchKernels(Location loc, KernelKind kind,
                                    KernelCache::Emitter emit,
                                    ArrayRef<LaunchHook> hooks) {
  ImplicitLocOpBuilder kb(loc, b);
  kernels::KernelGroup group =
      kernelCache.emit(kb, kernelKindLetter(kind), emit);
  size_t hooksRun = 0;
  for (const kernels::KernelLaunch &k : group) {
    launch(loc, k);
    for (const LaunchHook &hook : hooks)
      if (hook.after == k.stage) {
        hook.run();
        ++hooksRun;
      }
  }
  assert(hooksRun == hooks.size() &&
         "every hook names a stage of the group it runs in");
  (void)hooksRun;
}

void LoweringContext::launch(Location loc, const kernels::KernelLaunch &k) {
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value smem;
  if (k.sharedBytes > 0)
    smem = arith::ConstantIntOp::create(b, loc, b.getI32Type(), k.sharedBytes);
  // A programmatic dependent of the launch before it (NVFP4's data kernel
  // after its amax pass): the runtime launches it with the attribute.
  if (k.dependentLaunch)
    manifest.addDependentLaunch(k.kernel);
  auto symbol = SymbolRefAttr::get(
      b.getStringAttr(kKernelModule),
      {FlatSymbolRefAttr::get(b.getStringAttr(k.kernel))});
  auto op = gpu::LaunchFuncOp::create(
      b, loc, symbol, gpu::KernelDim3{c(k.gridX), c(k.gridY), c(1)},
      gpu::KernelDim3{c(k.blockX), c(1), c(1)}, smem, k.args,
      b.getType<gpu::AsyncTokenType>(), ValueRange{token});
  token = op.getAsyncToken();
}

void LoweringContext::copyBuffer(Location loc, Value source, Value dest) {
  launchKernels(loc, KernelKind::Copy,
                [&](const kernels::EmitContext &ec) {
                  return kernels::emitCopy(ec, {source, dest});
                });
}

void LoweringContext::copyInto(Location loc, Value value,
                               ArrayRef<Value> destination) {
  SmallVector<Value> sources(buffers(value));
  for (auto [source, dest] : llvm::zip(sources, destination))
    copyBuffer(loc, source, dest);
}

Value LoweringContext::devicePointer(Location loc, Value memref) {
  if (!memref)
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0);
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

void LoweringContext::callRuntime(Location loc, StringRef callee,
                                  ValueRange args) {
  auto module = entry->getParentOfType<ModuleOp>();
  if (!module.lookupSymbol(callee)) {
    OpBuilder declare(module.getBodyRegion());
    declare.setInsertionPointToEnd(module.getBody());
    auto decl = func::FuncOp::create(
        declare, module.getLoc(), callee,
        declare.getFunctionType(TypeRange(args), {}));
    decl.setPrivate();
  }
  func::CallOp::create(b, loc, callee, TypeRange{}, args);
}

void LoweringContext::allReduceAmax(Location loc, Value group, Value send,
                                    Value recv, int64_t count) {
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  Value sendPointer = devicePointer(loc, send);
  Value recvPointer = recv == send ? sendPointer : devicePointer(loc, recv);
  callRuntime(
      loc, artifact::kAllReduceFunction,
      {arith::ConstantIntOp::create(b, loc, i64, groupIndex(group)),
       sendPointer, recvPointer, arith::ConstantIntOp::create(b, loc, i64, count),
       arith::ConstantIntOp::create(
           b, loc, i32, static_cast<int32_t>(artifact::CollectiveType::F32)),
       arith::ConstantIntOp::create(
           b, loc, i32, static_cast<int32_t>(artifact::ReduceOp::Max))});
}

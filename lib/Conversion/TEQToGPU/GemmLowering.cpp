//===- GemmLowering.cpp - teq.gemm to teqGemm calls -----------------------===//
//
// A GEMM is one call of the runtime's teqGemm (docs/Artifact.md) with the
// manifest id of its cuBLASLt problem (GemmDescriptor.h) and the device
// pointers of the buffers that problem reads and writes.
//
//===----------------------------------------------------------------------===//

#include "EntryLowering.h"

#include "Kernels/NVFP4.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;

void EntryLowering::lowerGemm(OpBuilder &b, GemmOp op,
                              const gemm::GemmDescriptor &desc,
                              Value &token) {
  Location loc = op.getLoc();
  auto pointer = [&](Value memref) { return devicePointer(b, loc, memref); };
  // A quantized operand's buffer by TE name; a tensor's only buffer.
  auto operandBuffer = [&](Value operand, const std::string &bufferName) {
    if (!isa<TensorProtoType>(operand.getType()))
      return bufferName.empty() ? buffersOfValue.lookup(operand).front()
                                : Value();
    return bufferName.empty() ? Value() : namedBuffer(operand, bufferName);
  };
  auto single = [&](Value v) {
    return v ? buffersOfValue.lookup(v).front() : Value();
  };
  Value alpha;
  if (desc.spec.alphaOnDevice)
    alpha = lowerNVFP4Alpha(b, op, desc, token);
  Value bias = op.getDbias() ? single(op.getDbias()) : single(op.getBias());
  SmallVector<Value> callArgs{
      arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                   gemmIds.lookup(op.getOperation())),
      pointer(operandBuffer(op.getA(), desc.a.data)),
      pointer(operandBuffer(op.getA(), desc.a.scale)),
      pointer(operandBuffer(op.getB(), desc.b.data)),
      pointer(operandBuffer(op.getB(), desc.b.scale)),
      pointer(single(op.getAccumulate())),
      pointer(single(op.getResult())),
      pointer(bias),
      pointer(alpha)};
  // Enqueued on the runtime's stream after the kernels launched so far (the
  // launches and the GEMM share that one stream, in program order).
  func::CallOp::create(b, loc, kGemmFunction, TypeRange{}, callArgs);
}

Value EntryLowering::lowerNVFP4Alpha(OpBuilder &b, GemmOp op,
                                     const gemm::GemmDescriptor &desc,
                                     Value &token) {
  Value alpha = scratchOf.lookup(op.getOperation());
  launchKernel(
      b, op.getLoc(), "g",
      [&](ImplicitLocOpBuilder &kb, gpu::GPUModuleOp into, StringRef prefix) {
        return kernels::emitNVFP4GemmAlpha(
            kb, into, (prefix + "_alpha").str(),
            namedBuffer(op.getA(), desc.a.amax),
            namedBuffer(op.getB(), desc.b.amax), alpha);
      },
      token);
  return alpha;
}

//===- GemmLowering.cpp - teq.gemm to teqGemm calls -----------------------===//
//
// A GEMM is one call of the runtime's teqGemm (docs/Artifact.md) with the
// manifest id of its cuBLASLt problem (GemmDescriptor.h) and the device
// pointers of the buffers that problem reads and writes. An NVFP4 GEMM's
// alpha comes from its operands' amaxes, computed on the device by a small
// kernel first so the GEMM never waits for the host.
//
//===----------------------------------------------------------------------===//

#include "OpLowering.h"

#include "Kernels/NVFP4.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;

namespace {

/// Launches the kernel computing an NVFP4 GEMM's alpha into the op's
/// scratch; returns that buffer.
Value lowerNVFP4Alpha(LoweringContext &ctx, GemmOp op,
                      const gemm::GemmDescriptor &desc) {
  kernels::NVFP4GemmAlphaBuffers buffers{
      ctx.namedBuffer(op.getA(), desc.a.amax),
      ctx.namedBuffer(op.getB(), desc.b.amax), ctx.scratch(op)};
  ctx.launchKernels(op.getLoc(), KernelKind::GemmAlpha,
                    [&](const kernels::EmitContext &ec) {
                      return kernels::emitNVFP4GemmAlpha(ec, buffers);
                    });
  return buffers.alpha;
}

LogicalResult lowerGemm(LoweringContext &ctx, Operation &operation) {
  auto op = cast<GemmOp>(operation);
  const gemm::GemmDescriptor &desc = ctx.gemmDescriptor(op);
  OpBuilder &b = ctx.builder();
  Location loc = op.getLoc();
  auto pointer = [&](Value memref) { return ctx.devicePointer(loc, memref); };
  // A quantized operand's buffer by TE name; a tensor's only buffer.
  auto operandBuffer = [&](Value operand, const std::string &bufferName) {
    if (!isa<TensorProtoType>(operand.getType()))
      return bufferName.empty() ? ctx.buffer(operand) : Value();
    return bufferName.empty() ? Value() : ctx.namedBuffer(operand, bufferName);
  };
  auto single = [&](Value v) { return v ? ctx.buffer(v) : Value(); };
  Value alpha;
  if (desc.spec.alphaOnDevice)
    alpha = lowerNVFP4Alpha(ctx, op, desc);
  Value bias = op.getDbias() ? single(op.getDbias()) : single(op.getBias());
  SmallVector<Value> callArgs{
      arith::ConstantIntOp::create(b, loc, b.getI64Type(), ctx.gemmId(op)),
      pointer(operandBuffer(op.getA(), desc.a.data)),
      pointer(operandBuffer(op.getA(), desc.a.scale)),
      pointer(operandBuffer(op.getB(), desc.b.data)),
      pointer(operandBuffer(op.getB(), desc.b.scale)),
      pointer(single(op.getAccumulate())),
      pointer(single(op.getResult())),
      pointer(bias),
      pointer(alpha)};
  // Enqueued on the runtime's stream after the kernels launched so far (the
  // launches and the GEMM share that one stream, in program order). The
  // pass declares teqGemm once for the module.
  func::CallOp::create(b, loc, artifact::kGemmFunction, TypeRange{}, callArgs);
  return success();
}

} // namespace

const OpLowering lowering::gemmLowering = {
    "teq.gemm",
    [](Operation &op) { return isa<GemmOp>(op); },
    [](Operation &) { return success(); }, // the plan checks it (cuBLASLt)
    lowerGemm,
};

//===- Dequantize.cpp - Quantized values back in high precision -----------===//

#include "Dequantize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace mlir::teq::kernels;

Value mlir::teq::kernels::decodeFP8(ImplicitLocOpBuilder &b, Value code,
                                    bool e5m2) {
  Type i32 = b.getI32Type();
  const int mantissaBits = e5m2 ? 2 : 3;
  const int bias = e5m2 ? 15 : 7;
  const int exponentMask = e5m2 ? 0x1f : 0xf;
  auto c = [&](int32_t v) { return constantI32(b, v); };
  Value bits = arith::ExtUIOp::create(b, i32, code);
  Value sign = arith::ShLIOp::create(
      b, arith::ShRUIOp::create(b, bits, c(7)).getResult(), c(31));
  Value exponent = arith::AndIOp::create(
      b, arith::ShRUIOp::create(b, bits, c(mantissaBits)).getResult(),
      c(exponentMask));
  Value mantissa = arith::AndIOp::create(b, bits, c((1 << mantissaBits) - 1));
  // Normal: the exponent rebiased, the mantissa at the top of f32's.
  Value normal = arith::OrIOp::create(
      b,
      arith::ShLIOp::create(
          b, arith::AddIOp::create(b, exponent, c(127 - bias)).getResult(),
          c(23))
          .getResult(),
      arith::ShLIOp::create(b, mantissa, c(23 - mantissaBits)).getResult());
  // Subnormal (exponent 0): mantissa * 2^(1 - bias - mantissaBits), exact in
  // f32 (zero included).
  Value subnormal = arith::BitcastOp::create(
      b, i32,
      arith::MulFOp::create(
          b, arith::UIToFPOp::create(b, b.getF32Type(), mantissa),
          constantF32(b, std::ldexp(1.0f, 1 - bias - mantissaBits))));
  Value magnitude = arith::SelectOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, exponent, c(0)),
      subnormal, normal);
  // Non-finite codes: E4M3 has only NaN (S.1111.111); E5M2 has inf
  // (exponent 31, mantissa 0) and NaN.
  Value nonFinite;
  Value special;
  if (e5m2) {
    nonFinite = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, exponent,
                                      c(exponentMask));
    special = arith::SelectOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, mantissa, c(0)),
        c(0x7f800000), c(0x7fc00000));
  } else {
    nonFinite = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq,
        arith::AndIOp::create(b, bits, c(0x7f)).getResult(), c(0x7f));
    special = c(0x7fc00000);
  }
  magnitude = arith::SelectOp::create(b, nonFinite, special, magnitude);
  return arith::BitcastOp::create(
      b, b.getF32Type(), arith::OrIOp::create(b, sign, magnitude).getResult());
}

KernelGroup mlir::teq::kernels::emitDequantize(const EmitContext &ctx,
                                               const DequantizeSpec &spec,
                                               const DequantizeBuffers &buffers) {
  ImplicitLocOpBuilder &b = ctx.b;
  KernelLaunch launch = ctx.launchOf("_dequantize");
  launch.blockX = kBlockSize;
  launch.gridX = blocksFor(spec.elements, kBlockSize, /*maxBlocks=*/8 * 132);
  launch.args = {buffers.data, buffers.scaleInv, buffers.output};

  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp func =
      createKernel(b, ctx.module, launch.kernel, launch.args, kBlockSize);
  Block *body = &func.getBody().front();
  b.setInsertionPointToStart(body);
  Value data = body->getArgument(0), scaleInv = body->getArgument(1),
        output = body->getArgument(2);
  Value multiplier =
      memref::LoadOp::create(b, scaleInv, ValueRange{constantIndex(b, 0)});
  Type outputType = elementTypeOf(b, spec.output);
  GridStride stride = gridStride1D(b, kBlockSize);
  forLoop(b, stride.start, constantIndex(b, spec.elements), stride.step,
          [&](Value i) {
            Value code = memref::LoadOp::create(b, data, ValueRange{i});
            Value value = arith::MulFOp::create(
                b, decodeFP8(b, code, spec.e5m2), multiplier);
            if (outputType != b.getF32Type())
              value = arith::TruncFOp::create(b, outputType, value);
            memref::StoreOp::create(b, value, output, ValueRange{i});
          });
  gpu::ReturnOp::create(b);
  return {launch};
}

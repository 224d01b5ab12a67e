//===- Numerics.cpp - FP8 numerics of the kernel emitters -----------------===//

#include "Numerics.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::teq::kernels;

float mlir::teq::kernels::fp8MaxOf(bool e5m2) {
  return e5m2 ? 57344.0f : 448.0f;
}

Value mlir::teq::kernels::extendToF32(ImplicitLocOpBuilder &b, Value value) {
  Type type = value.getType();
  if (getElementTypeOrSelf(type).isF32())
    return value;
  Type f32 = b.getF32Type();
  if (auto vector = dyn_cast<VectorType>(type))
    f32 = vector.clone(f32);
  return arith::ExtFOp::create(b, f32, value);
}

namespace {
/// cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32: `high` lands in the upper byte.
Value convertPairToFP8(ImplicitLocOpBuilder &b, Value high, Value low,
                       bool e5m2) {
  Type fp8 = e5m2 ? Type(b.getType<Float8E5M2Type>())
                  : Type(b.getType<Float8E4M3FNType>());
  return NVVM::ConvertF32x2ToF8x2Op::create(
      b, b.getI16Type(), high, low, NVVM::FPRoundingMode::RN,
      NVVM::SaturationMode::SATFINITE, /*relu=*/false, fp8);
}
} // namespace

Value mlir::teq::kernels::packFP8(ImplicitLocOpBuilder &b, Value values,
                                  bool e5m2) {
  int64_t n = cast<VectorType>(values.getType()).getNumElements();
  // Pairs go in as (odd, even) so the bytes land little-endian.
  SmallVector<Value> pairs;
  for (int64_t j = 0; j < n; j += 2) {
    Value even = vector::ExtractOp::create(b, values, j);
    Value odd = vector::ExtractOp::create(b, values, j + 1);
    pairs.push_back(convertPairToFP8(b, odd, even, e5m2));
  }
  Value halves = vector::FromElementsOp::create(
      b, VectorType::get({n / 2}, b.getI16Type()), pairs);
  return vector::BitCastOp::create(b, VectorType::get({n}, b.getI8Type()),
                                   halves);
}

Value mlir::teq::kernels::convertToFP8(ImplicitLocOpBuilder &b, Value value,
                                       bool e5m2) {
  Value pair = convertPairToFP8(b, constantF32(b, 0.0f), value, e5m2);
  return arith::TruncIOp::create(b, b.getI8Type(), pair);
}

ScaleFromAmax mlir::teq::kernels::computeScaleFromAmax(
    ImplicitLocOpBuilder &b, Value amax, float fp8Max, float epsilon,
    bool forcePow2, float valueForInf) {
  using arith::CmpFPredicate;
  Value eps = constantF32(b, epsilon);
  Value one = constantF32(b, 1.0f);
  Value inf = constantF32(b, std::numeric_limits<float>::infinity());
  // NaN compares false here and is caught with the other special cases.
  Value below = arith::CmpFOp::create(b, CmpFPredicate::OLT, amax, eps);
  amax = arith::SelectOp::create(b, below, eps, amax);
  Value isInf = arith::CmpFOp::create(
      b, CmpFPredicate::OEQ, math::AbsFOp::create(b, amax), inf);
  Value isZero = arith::CmpFOp::create(b, CmpFPredicate::OEQ, amax,
                                       constantF32(b, 0.0f));
  Value isNaN = arith::CmpFOp::create(b, CmpFPredicate::UNO, amax, amax);
  Value special = arith::OrIOp::create(
      b, arith::OrIOp::create(b, isInf, isZero), isNaN);
  Value scale = arith::DivFOp::create(b, constantF32(b, fp8Max), amax);
  // An amax so small that the quotient overflows.
  Value overflow = arith::CmpFOp::create(b, CmpFPredicate::OEQ, scale, inf);
  scale = arith::SelectOp::create(b, overflow, constantF32(b, valueForInf),
                                  scale);
  if (forcePow2) {
    // Clearing the mantissa rounds down to a power of two.
    Value bits = arith::BitcastOp::create(b, b.getI32Type(), scale);
    Value exponent = arith::AndIOp::create(
        b, bits, constantI32(b, static_cast<int32_t>(0xFF800000u)));
    scale = arith::BitcastOp::create(b, b.getF32Type(), exponent);
  }
  scale = arith::SelectOp::create(b, special, one, scale);
  return {scale, arith::DivFOp::create(b, one, scale)};
}

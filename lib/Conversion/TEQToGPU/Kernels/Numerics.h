//===- Numerics.h - FP8 numerics of the kernel emitters --------*- C++ -*-===//
//
// The arithmetic TE's quantization kernels agree on bit for bit, as IR:
// widening the input to f32, FP8 conversion (CUDA's __nv_fp8 constructors:
// round to nearest even, saturating to the largest finite value) and
// compute_scale_from_amax (te-semantics.md §5.0, §5.1).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_NUMERICS_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_NUMERICS_H

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::teq::kernels {

/// The largest finite value of E4M3 (448) or E5M2 (57344).
float fp8MaxOf(bool e5m2);

/// `value` (f32, bf16 or f16, scalar or vector) as f32: exact.
Value extendToF32(ImplicitLocOpBuilder &b, Value value);

/// The FP8 bytes (vector<n x i8>) of the lanes of `values` (vector<n x f32>,
/// n even), rounded to nearest even and saturated to finite.
Value packFP8(ImplicitLocOpBuilder &b, Value values, bool e5m2);

/// One f32 to its FP8 byte (i8), as packFP8 rounds.
Value convertToFP8(ImplicitLocOpBuilder &b, Value value, bool e5m2);

/// compute_scale_from_amax (te-semantics.md §5.1) of the f32 `amax`: the
/// scale and its reciprocal (IEEE division, as __frcp_rn).
struct ScaleFromAmax {
  Value scale;
  Value scaleInv;
};
ScaleFromAmax computeScaleFromAmax(ImplicitLocOpBuilder &b, Value amax,
                                   float fp8Max, float epsilon, bool forcePow2,
                                   float valueForInf);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_NUMERICS_H

//===- QuantizeKernels.h - GPU kernels of teq.quantize ----------*- C++ -*-===//
//
// The device code of one quantization, as `gpu.func` kernels specialised to
// its static shape, dtype and quantizer: written in MLIR (gpu, arith, math,
// vector, memref, scf and nvvm ops) and lowered by MLIR's NVVM path like any
// other kernel. Shapes are compile-time constants, so every kernel knows
// which accesses can be 16-byte vectors and which need bounds checks.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_QUANTIZEKERNELS_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_QUANTIZEKERNELS_H

#include "Kernels/KernelBuilder.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::teq::kernels {

/// `name(full, part)` for a static tensor slice (tensor.extract_slice /
/// insert_slice of delayed-scaling state): gather copies the slice of
/// `full` into the contiguous `part`; scatter writes `part` into it.
struct SliceSpec {
  std::string name;
  std::string elementType; ///< MLIR type name, e.g. "f32".
  std::vector<int64_t> fullShape, offsets, sizes, strides;
  bool scatter = false;
};
std::string sliceKernel(const SliceSpec &spec);

/// teq.bias_grad of an M x N (flattened) gradient: `<prefix>_bgrad_partial`
/// (grid N/256 x chunks; x -> fp32 partial sums [chunks, N]) then
/// `<prefix>_bgrad_final` (grid N/256; partials -> db [N]), summing in a
/// fixed order.
struct BiasGradSpec {
  std::string prefix;
  int64_t rows = 0, cols = 0;
  InputType input = InputType::BF16;
  InputType output = InputType::BF16;
};
int64_t biasGradChunks(const BiasGradSpec &spec);
std::string biasGradKernels(const BiasGradSpec &spec);

/// `gpu.func @<name>(%scale: memref<S x f32>, %hist: memref<L*S x f32>,
/// %new_scale, %new_hist)`: TE's fused delayed-scaling update per slot
/// (te-semantics.md §5.2), one thread a slot.
std::string delayedScalingUpdateKernel(const std::string &name, int64_t slots,
                                       int64_t length, float fp8Max,
                                       int64_t margin, bool mostRecent);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_QUANTIZEKERNELS_H

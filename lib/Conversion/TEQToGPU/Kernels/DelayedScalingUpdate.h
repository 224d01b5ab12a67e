//===- DelayedScalingUpdate.h - TE's fused delayed-scaling update -*- C++ -*-===//
//
// teq.delayed_scaling_update: per quantizer slot, roll the amax history,
// take its most recent entry or its window maximum, and compute the next
// scale fp8_max * 2^-margin / amax, keeping the old scale where the amax is
// zero, negative or not finite (te-semantics.md §5.2). One block a slot.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_DELAYEDSCALINGUPDATE_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_DELAYEDSCALINGUPDATE_H

#include "KernelBuilder.h"

namespace mlir::teq::kernels {

struct DelayedScalingUpdateSpec {
  int64_t slots = 0;   ///< S: quantizers sharing the state.
  int64_t length = 0;  ///< L: amax history length ([L, S], row-major).
  float fp8Max = 0;    ///< The format's largest finite value.
  int64_t margin = 0;  ///< Bounded to [-100, 100] by the op's verifier.
  bool mostRecent = false; ///< amax_compute_algo = most_recent (else max).
};

/// `scale` memref<S x f32> and `history` memref<L*S x f32> in,
/// `newScale` and `newHistory` of the same types out. `reduced`
/// (memref<S x f32> or null) holds row 0 all-reduced over an amax reduction
/// group: a slot's most recent amax is its reduced value where that is
/// non-zero, else its row 0 (TE's amax_and_scale_update_after_reduction).
struct DelayedScalingUpdateBuffers {
  Value scale, history, reduced, newScale, newHistory;
};

/// Emits kernel `<prefix>_update` (one block a slot) and returns its launch.
KernelGroup emitDelayedScalingUpdate(const EmitContext &ctx,
                                     const DelayedScalingUpdateSpec &spec,
                                     const DelayedScalingUpdateBuffers &buffers);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_DELAYEDSCALINGUPDATE_H

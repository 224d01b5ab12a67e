//===- BiasGrad.h - Column sums of a gradient (teq.bias_grad) --*- C++ -*-===//
//
// db[n] = sum_m dy[m][n] of an M x N (flattened) gradient, in two passes so
// the result does not depend on scheduling: pass 1 sums chunks of rows into
// f32 partials [chunks, N], pass 2 adds the partials in chunk order.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_BIASGRAD_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_BIASGRAD_H

#include "KernelBuilder.h"

namespace mlir::teq::kernels {

struct BiasGradSpec {
  int64_t rows = 0, cols = 0;
  InputType input = InputType::BF16;
  InputType output = InputType::BF16;
};

/// Row chunks of pass 1: the f32 scratch `partials` holds chunks * cols.
int64_t biasGradChunks(const BiasGradSpec &spec);

/// `gradient` memref<M*N x input>, `partials` the f32 scratch of
/// biasGradChunks(spec) * N, `bias` memref<N x output>.
struct BiasGradBuffers {
  Value gradient, partials, bias;
};

/// Emits `<prefix>_bgrad_partial` (grid ceil(N/256) x chunks: `gradient`
/// -> `partials`) and `<prefix>_bgrad_final` (grid ceil(N/256): `partials`
/// -> `bias`); returns their launches in order.
KernelGroup emitBiasGrad(const EmitContext &ctx, const BiasGradSpec &spec,
                         const BiasGradBuffers &buffers);

/// Pass 2 alone, `<prefix>_bgrad_final`: the f32 `partials` [chunks, N]
/// some other kernel wrote (a quantization's cast summing its 64-row
/// tiles, PerTensorFP8Spec::columnSums) added in chunk order into `bias`.
KernelLaunch emitBiasGradFinal(const EmitContext &ctx,
                               const BiasGradSpec &spec, int64_t chunks,
                               Value partials, Value bias);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_BIASGRAD_H

//===- NVFP4Amax.h - The amax passes of NVFP4 -------------------*- C++ -*-===//
//
// The first kernel of an NVFP4 quantization: one pass over x for the global
// amax of each copy (te-semantics.md §5.5), the plain max |x| or, for a
// columnwise copy with the random Hadamard transform, the transformed
// tensor's. Its blocks finish the reduction themselves (atomic maxima, the
// last block writes the amax buffers), and the last block also fills the
// device global `@<prefix>_nvfp4_consts` the data kernel reads.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_NVFP4AMAX_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_NVFP4AMAX_H

#include "NVFP4.h"

namespace mlir::teq::kernels {

/// `@<prefix>_nvfp4_consts` (f32): S_enc of the rowwise copy [0] and of the
/// columnwise copy [1], then each copy's encode multipliers of the E4M3
/// codes 0..127 from kNVFP4EncodeTable[copy].
constexpr int64_t kNVFP4ConstsSize = 4 + 2 * 128;
constexpr int64_t kNVFP4EncodeTable[2] = {4, 4 + 128};

/// The device globals of one quantization, zero at module load. The amax
/// accumulators (two running maxima as bit patterns, and the count of
/// blocks done) are reset by the pass's last block for the next launch.
/// Entries run in order on one stream, so static device memory is the whole
/// memory plan for them.
struct NVFP4Globals {
  memref::GlobalOp amaxMaxima;     ///< `@<prefix>_amax_acc`: memref<2xi32>
  memref::GlobalOp amaxBlocksDone; ///< `@<prefix>_amax_count`: memref<1xi32>
  memref::GlobalOp constants;      ///< `@<prefix>_nvfp4_consts`
};
NVFP4Globals addNVFP4Globals(ImplicitLocOpBuilder &b, gpu::GPUModuleOp module,
                             llvm::StringRef prefix);

/// `@<prefix>_amax(%x, %amax...)`: max |x| (NaN-ignoring, like fmaxf) into
/// each of `amaxBuffers` (memref<1xf32>: the copies that use the plain
/// amax).
KernelLaunch emitNVFP4AmaxPass(const EmitContext &ctx, const NVFP4Spec &spec,
                               const NVFP4Globals &globals, Value x,
                               ArrayRef<Value> amaxBuffers);

/// `@<prefix>_rht_amax(%x, %amax_c[, %amax_r])`: the amax of the
/// RHT-transformed columnwise copy into `columnAmax` and, with `rowAmax`, in
/// the same read of x the plain max |x| into it.
KernelLaunch emitNVFP4RhtAmaxPass(const EmitContext &ctx,
                                  const NVFP4Spec &spec,
                                  const NVFP4Globals &globals, Value x,
                                  Value columnAmax, Value rowAmax);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_NVFP4AMAX_H

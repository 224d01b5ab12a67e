//===- LibdeviceFree.h - Kernels that need no CUDA toolkit ------*- C++ -*-===//
//
// convert-gpu-to-nvvm turns some math into libdevice calls (`__nv_fabsf`,
// `__nv_fmaxf`, `__nv_fmaf`), which then need the CUDA toolkit's libdevice
// at compile time (and its defaults differ from IEEE: sqrt.approx). TEQ's
// kernels need no toolkit: these patterns rewrite those ops, in every kernel
// the lowering emits, into exact equivalents first; te-compile refuses a
// kernel that still calls anything (checkKernelsCallNothing, Artifact.h).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_LIBDEVICEFREE_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_LIBDEVICEFREE_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::teq::kernels {

/// f32 (and vector-of-f32) `math.absf` -> clear the sign bit;
/// `arith.maxnumf a, b` -> `a > b || b is NaN ? a : b` (the NaN-ignoring
/// maximum), `arith.minnumf` likewise; `math.fma` -> `llvm.intr.fma`;
/// `math.floor` -> through an i32 truncation. All are exact.
void populateLibdeviceFreePatterns(RewritePatternSet &patterns);

/// Applies them to every op nested in `root` (a gpu.module), without
/// folding or reordering anything else.
void makeLibdeviceFree(Operation *root);

} // namespace mlir::teq::kernels

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_KERNELS_LIBDEVICEFREE_H

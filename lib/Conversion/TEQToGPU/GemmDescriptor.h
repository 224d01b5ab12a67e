//===- GemmDescriptor.h - teq.gemm as one cuBLASLt matmul -------*- C++ -*-===//
//
// What the runtime needs to run a teq.gemm with cuBLASLt (te-semantics.md
// §6.2-6.4): the column-major problem, the operand buffers TE's
// CanonicalizeGemmInput picks for the target (Hopper per-tensor FP8 and block
// FP8 run TN on the transposed copies), scale modes, epilogue and fast
// accumulation, as the artifact contract's GemmSpec: one entry of the
// manifest's "gemms" array (docs/Artifact.md); the host code passes the
// pointers per call.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_GEMMDESCRIPTOR_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_GEMMDESCRIPTOR_H

#include "teq/Artifact/Manifest.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"

#include <string>

namespace mlir::teq::gemm {

/// Which buffers of a quantized operand the GEMM reads, by TE's buffer name
/// (empty for a high-precision operand: its one tensor buffer).
struct OperandBuffers {
  std::string data;
  std::string scale; ///< Empty if none.
  std::string amax;  ///< NVFP4 only: the global amax folded into alpha.
};

struct GemmDescriptor {
  /// The cuBLASLt problem. Its id and name are given when the manifest
  /// records it (ManifestWriter::addGemm). alphaOnDevice: NVFP4, alpha =
  /// amax_A amax_B / (6 6 448 448).
  artifact::GemmSpec spec;
  OperandBuffers a, b;
};

/// Canonicalizes `op` for `target` as TE does, or emits an error at `op`
/// naming what cuBLASLt (or this lowering) cannot run.
FailureOr<GemmDescriptor> describeGemm(GemmOp op, TargetAttr target);

} // namespace mlir::teq::gemm

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_GEMMDESCRIPTOR_H

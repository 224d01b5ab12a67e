//===- GemmDescriptor.h - teq.gemm as one cuBLASLt matmul -------*- C++ -*-===//
//
// What the runtime needs to run a teq.gemm with cuBLASLt (te-semantics.md
// §6.2-6.4): the column-major problem, the operand buffers TE's
// CanonicalizeGemmInput picks for the target (Hopper per-tensor FP8 and block
// FP8 run TN on the transposed copies), scale modes, epilogue and fast
// accumulation. It becomes one entry of the manifest's "gemms" array
// (docs/Artifact.md); the host code passes the pointers per call.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_GEMMDESCRIPTOR_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_GEMMDESCRIPTOR_H

#include "teq/Dialect/TEQ/IR/TEQOps.h"

#include "llvm/Support/JSON.h"

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
  int64_t m = 0, n = 0, k = 0;
  bool transa = false, transb = false;
  std::string aType, bType, dType;
  int64_t lda = 0, ldb = 0, ldd = 0;
  std::string aScaleMode = "none", bScaleMode = "none";
  std::string epilogue = "default";
  std::string biasType; ///< Set unless the epilogue is "default".
  bool accumulate = false;
  bool fastAccum = false;
  bool alphaOnDevice = false; ///< NVFP4: alpha = amax_A amax_B / (6 6 448 448).
  std::string computeType = "32f";
  OperandBuffers a, b;

  /// The manifest's "gemms" entry (docs/Artifact.md).
  llvm::json::Object toJson(int64_t id, llvm::StringRef name) const;
};

/// Canonicalizes `op` for `target` as TE does, or emits an error at `op`
/// naming what cuBLASLt (or this lowering) cannot run.
FailureOr<GemmDescriptor> describeGemm(GemmOp op, TargetAttr target);

} // namespace mlir::teq::gemm

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_GEMMDESCRIPTOR_H

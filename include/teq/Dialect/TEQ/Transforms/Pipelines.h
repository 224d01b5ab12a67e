//===- Pipelines.h - Named pass pipelines of TEQ ----------------*- C++ -*-===//

#ifndef TEQ_DIALECT_TEQ_TRANSFORMS_PIPELINES_H
#define TEQ_DIALECT_TEQ_TRANSFORMS_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::teq {

struct FrontendPipelineOptions
    : public PassPipelineOptions<FrontendPipelineOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("GPU to compile for (sm_90, sm_100, ...); the module's "
                     "#teq.target when empty"),
      llvm::cl::init("")};
  PassOptions::Option<bool> printSavedMemory{
      *this, "print-saved-memory",
      llvm::cl::desc("print the bytes kept between forward and backward"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> recordSavedMemory{
      *this, "record-saved-memory",
      llvm::cl::desc("record the saved-memory report on each function "
                     "(teq.saved_memory)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> fuseResidualAdds{
      *this, "fuse-residual-adds",
      llvm::cl::desc("teq-lower-to-gemm: add residuals through the GEMMs' C "
                     "input (teq-fuse-residual-adds)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseNormBackwardAdds{
      *this, "fuse-norm-backward-adds",
      llvm::cl::desc("teq-lower-to-gemm: add residual gradients to norm "
                     "backwards' dx before its rounding "
                     "(teq-fuse-norm-backward-adds)"),
      llvm::cl::init(true)};
};

/// Autocast IR to resolved, checked Linears with quantized saved tensors:
/// set-target (if given), check-recipe-support, resolve-autocast,
/// infer-prototypes, dedupe-saved-tensors, quantize-cse.
void buildFrontendPipeline(OpPassManager &pm,
                           const FrontendPipelineOptions &options);

/// The frontend, then Linear decomposition: quantize + GEMM + collectives,
/// quantizations of one tensor merged, dead ones removed.
void buildLowerToGemmPipeline(OpPassManager &pm,
                              const FrontendPipelineOptions &options);

/// Registers `teq-frontend` and `teq-lower-to-gemm` with te-opt's registry.
void registerTEQPipelines();

} // namespace mlir::teq

#endif // TEQ_DIALECT_TEQ_TRANSFORMS_PIPELINES_H

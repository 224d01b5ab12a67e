//===- Pipelines.cpp - Named pass pipelines of TEQ ------------------------===//

#include "teq/Dialect/TEQ/Transforms/Pipelines.h"
#include "teq/Dialect/TEQ/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::teq;

void mlir::teq::buildFrontendPipeline(OpPassManager &pm,
                                      const FrontendPipelineOptions &options) {
  if (!options.target.empty())
    pm.addPass(createSetTarget(SetTargetOptions{options.target}));
  pm.addPass(createCheckRecipeSupport());
  pm.addPass(createResolveAutocast());
  pm.addPass(createInferPrototypes());
  pm.addPass(createDedupeSavedTensors(
      DedupeSavedTensorsOptions{options.printSavedMemory,
                                options.recordSavedMemory}));
  pm.addPass(createQuantizeCSE());
}

void mlir::teq::buildLowerToGemmPipeline(
    OpPassManager &pm, const FrontendPipelineOptions &options) {
  buildFrontendPipeline(pm, options);
  // Activations become arith/math ops the elementwise kernels fuse.
  pm.addPass(createDecomposeActivations());
  pm.addPass(createDecomposeLinear());
  pm.addPass(createLegalizeGemmOperands());
  pm.addPass(createQuantizeCSE());
  pm.addPass(createCanonicalizerPass());
  if (options.fuseResidualAdds)
    pm.addPass(createFuseResidualAdds());
  // A residual gradient left to add to a norm's dx (not taken by a GEMM's
  // C input above) goes into the norm's backward.
  if (options.fuseNormBackwardAdds)
    pm.addPass(createFuseNormBackwardAdds());
  // After canonicalization: the quantizations as the GEMMs read them.
  pm.addPass(createCacheWeightQuantization());
}

void mlir::teq::registerTEQPipelines() {
  PassPipelineRegistration<FrontendPipelineOptions>(
      "teq-frontend",
      "Check recipes against the target, resolve autocast regions, infer "
      "saved-tensor prototypes, dedupe saved tensors, CSE quantizations",
      buildFrontendPipeline);
  PassPipelineRegistration<FrontendPipelineOptions>(
      "teq-lower-to-gemm",
      "Autocast IR to quantize + GEMM + collectives: teq-frontend, then "
      "decompose activations and Linears, legalize GEMM operands, CSE quantizations, "
      "canonicalize, fuse residual adds into GEMMs and norm backwards, cut "
      "weight-cache entries "
      "(teq.weight_cache)",
      buildLowerToGemmPipeline);
}

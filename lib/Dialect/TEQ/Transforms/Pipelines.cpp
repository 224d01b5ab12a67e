//===- Pipelines.cpp - Named pass pipelines of TEQ ------------------------===//

#include "teq/Dialect/TEQ/Transforms/Pipelines.h"
#include "teq/Dialect/TEQ/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

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
      DedupeSavedTensorsOptions{options.printSavedMemory}));
  pm.addPass(createQuantizeCSE());
}

void mlir::teq::registerTEQPipelines() {
  PassPipelineRegistration<FrontendPipelineOptions>(
      "teq-frontend",
      "Check recipes against the target, resolve autocast regions, infer "
      "saved-tensor prototypes, dedupe saved tensors, CSE quantizations",
      buildFrontendPipeline);
}

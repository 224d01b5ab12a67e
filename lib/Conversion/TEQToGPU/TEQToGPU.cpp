//===- TEQToGPU.cpp - The convert-teq-to-gpu pass -------------------------===//
//
// The pass driver: checks the module's target, creates the kernel module
// for it, lowers each entry (EntryLowering.h) and attaches the manifest.
//
//===----------------------------------------------------------------------===//

#include "EntryLowering.h"
#include "Kernels/LibdeviceFree.h"
#include "LoweringContext.h"
#include "teq/Conversion/Passes.h"
#include "teq/Conversion/TEQToGPU/Targets.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::teq {
#define GEN_PASS_DEF_CONVERTTEQTOGPU
#include "teq/Conversion/Passes.h.inc"
} // namespace mlir::teq

using namespace mlir;
using namespace mlir::teq;

namespace {

struct ConvertTEQToGPUPass
    : public mlir::teq::impl::ConvertTEQToGPUBase<ConvertTEQToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    TargetAttr target = TargetAttr::lookup(module);
    if (!target) {
      module.emitError() << "no #teq.target on the module: kernels are "
                            "generated for one GPU; add attributes "
                            "{teq.target = #teq.target<sm_90>}";
      return signalPassFailure();
    }
    if (target.getSm() < 89) {
      module.emitError() << "FP8 kernels need sm_89 or newer, the module "
                            "targets "
                         << target.getChip();
      return signalPassFailure();
    }
    std::optional<unsigned> ptx =
        ptxVersionFor(target.getSm(), target.getSuffix());
    if (!ptx) {
      module.emitError()
          << "teq cannot generate GPU code for " << target.getChip()
          << " (LLVM's NVPTX backend has no such target); it compiles for "
          << llvm::join(codegenTargets(), ", ");
      return signalPassFailure();
    }
    std::string features = "+ptx" + std::to_string(*ptx);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(ctx));
    OpBuilder b(module.getBodyRegion());
    auto nvvmTarget = NVVM::NVVMTargetAttr::get(
        ctx, /*optLevel=*/2, /*triple=*/"nvptx64-nvidia-cuda",
        target.getChip(), features);
    auto kernelModule = gpu::GPUModuleOp::create(
        b, module.getLoc(), lowering::kKernelModule, b.getArrayAttr(ArrayRef<Attribute>{nvvmTarget}));

    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        entries.push_back(func);
    lowering::FusionOptions fusions;
    for (const std::string &name : disabledFusions) {
      if (name == "bias-grad" || name == "amax") {
        (name == "amax" ? fusions.amax : fusions.biasGrad) = false;
        continue;
      }
      module.emitError() << "convert-teq-to-gpu: unknown fusion '" << name
                         << "' in disabled-fusions (known: bias-grad, amax)";
      return signalPassFailure();
    }
    lowering::ManifestWriter manifest;
    lowering::KernelCache kernelCache(kernelModule);
    for (func::FuncOp func : entries)
      if (failed(lowering::lowerEntry(func, target, kernelCache, manifest,
                                      fusions)))
        return signalPassFailure();
    kernels::makeLibdeviceFree(kernelModule);
    if (manifest.hasGemms()) {
      b.setInsertionPointToEnd(module.getBody());
      auto decl = func::FuncOp::create(
          b, module.getLoc(), artifact::kGemmFunction,
          b.getFunctionType(SmallVector<Type>(artifact::kGemmFunctionArgs,
                                              b.getI64Type()),
                            {}));
      decl.setPrivate();
    }
    module->setAttr(TEQDialect::getManifestAttrName(),
                    b.getStringAttr(manifest.render(target)));
  }
};

} // namespace

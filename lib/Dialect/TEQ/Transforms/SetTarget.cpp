//===- SetTarget.cpp - Choose the GPU from the command line ---------------===//

#include "teq/Dialect/TEQ/IR/TEQAttrs.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Dialect/TEQ/Transforms/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::teq {
#define GEN_PASS_DEF_SETTARGET
#include "teq/Dialect/TEQ/Transforms/Passes.h.inc"
} // namespace mlir::teq

using namespace mlir;
using namespace mlir::teq;

namespace {
struct SetTargetPass : public mlir::teq::impl::SetTargetBase<SetTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (target.empty()) {
      module.emitError() << "teq-set-target needs target=<chip>, e.g. "
                            "target=sm_90";
      return signalPassFailure();
    }
    auto wanted = TargetAttr::getFromChip(
        [&] { return module.emitError() << "target=" << target << ": "; },
        module.getContext(), target);
    if (!wanted)
      return signalPassFailure();
    if (auto existing = TargetAttr::lookup(module)) {
      if (existing != wanted) {
        module.emitError() << "the module targets " << existing.getChip()
                           << " but target=" << target
                           << " was requested; remove one of them";
        return signalPassFailure();
      }
      return;
    }
    module->setAttr(TEQDialect::getTargetAttrName(), wanted);
  }
};
} // namespace

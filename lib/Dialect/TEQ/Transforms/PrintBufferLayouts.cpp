//===- PrintBufferLayouts.cpp - Show the buffers of quantized tensors -----===//

#include "teq/Dialect/TEQ/IR/TEQAttrs.h"
#include "teq/Dialect/TEQ/IR/TEQTypes.h"
#include "teq/Dialect/TEQ/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/AsmParser/AsmParser.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"

namespace mlir::teq {
#define GEN_PASS_DEF_PRINTBUFFERLAYOUTS
#include "teq/Dialect/TEQ/Transforms/Passes.h.inc"
} // namespace mlir::teq

using namespace mlir;
using namespace mlir::teq;

namespace {

std::string dims(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

void printBuffers(raw_ostream &os, TensorProtoType proto, TargetAttr target) {
  std::vector<::mlir::teq::layout::BufferDesc> buffers = proto.getBuffers(target);
  int64_t total = 0;
  for (const auto &b : buffers)
    total += b.sizeInBytes();
  os << proto << " on " << target.getChip() << ": " << buffers.size()
     << " buffers, " << total << " bytes\n";
  for (const auto &b : buffers) {
    os << "  " << llvm::left_justify(b.name, 22)
       << llvm::left_justify(::mlir::teq::layout::stringifyEncoding(b.encoding), 7)
       << dims(b.shape);
    if (b.padded())
      os << "  valid " << dims(b.validShape);
    if (b.transposed)
      os << "  transposed";
    if (b.scaleLayout)
      os << "  "
         << (*b.scaleLayout == ::mlir::teq::layout::ScaleLayout::GemmSwizzled
                 ? "gemm_swizzled"
                 : "compact");
    os << "  " << b.sizeInBytes() << " B\n";
  }
}

struct PrintBufferLayoutsPass
    : public mlir::teq::impl::PrintBufferLayoutsBase<PrintBufferLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetAttr targetAttr;
    if (!target.empty()) {
      targetAttr = dyn_cast_or_null<TargetAttr>(parseAttribute(
          "#teq.target<" + target + ">", module.getContext()));
      if (!targetAttr) {
        module.emitError() << "invalid target option '" << target
                           << "'; expected e.g. sm_90 or sm_100";
        return signalPassFailure();
      }
    } else {
      targetAttr = TargetAttr::lookup(module);
      if (!targetAttr) {
        module.emitError() << "no #teq.target on the module: buffer layouts "
                              "depend on the GPU; add attributes {teq.target "
                              "= #teq.target<sm_90>} or pass target=sm_90";
        return signalPassFailure();
      }
    }
    // Every proto type used, in first-use order.
    llvm::SetVector<TensorProtoType> protos;
    module.walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (auto p = dyn_cast<TensorProtoType>(arg.getType()))
              protos.insert(p);
      for (Type t : op->getResultTypes())
        if (auto p = dyn_cast<TensorProtoType>(t))
          protos.insert(p);
    });
    for (TensorProtoType proto : protos)
      printBuffers(llvm::outs(), proto, targetAttr);
    markAllAnalysesPreserved();
  }
};

} // namespace

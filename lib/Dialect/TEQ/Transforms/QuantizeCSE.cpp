//===- QuantizeCSE.cpp - One quantization per tensor and quantizer --------===//

#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Dialect/TEQ/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::teq {
#define GEN_PASS_DEF_QUANTIZECSE
#include "teq/Dialect/TEQ/Transforms/Passes.h.inc"
} // namespace mlir::teq

using namespace mlir;
using namespace mlir::teq;

namespace {

/// What makes two quantizations the same, apart from usage.
struct QuantizeKey {
  Operation *block; // the Block*, as an opaque pointer
  Value input, scale, history, rng, group;
  Attribute quantizer;
  ScaleLayout layout;
  Type elementType;
  bool recompute; // backward rebuilds stay apart from forward quantizations
  bool operator<(const QuantizeKey &o) const {
    auto tie = [](const QuantizeKey &k) {
      return std::make_tuple(
          k.block, k.input.getAsOpaquePointer(), k.scale.getAsOpaquePointer(),
          k.history.getAsOpaquePointer(), k.rng.getAsOpaquePointer(),
          k.group.getAsOpaquePointer(),
          k.quantizer.getAsOpaquePointer(), static_cast<int>(k.layout),
          k.elementType.getAsOpaquePointer(), k.recompute);
    };
    return tie(*this) < tie(o);
  }
};

struct QuantizeCSEPass
    : public mlir::teq::impl::QuantizeCSEBase<QuantizeCSEPass> {
  using Base::Base;

  void runOnOperation() override {
    // Group per block, in program order: merging at the first op keeps every
    // operand dominating (all members share their operands).
    std::map<QuantizeKey, SmallVector<QuantizeOp>> groups;
    SmallVector<QuantizeKey> order;
    getOperation()->walk([&](QuantizeOp op) {
      TensorProtoType type = op.getResult().getType();
      QuantizeKey key{reinterpret_cast<Operation *>(op->getBlock()),
                      op.getInput(),
                      op.getScale(),
                      op.getAmaxHistory(),
                      op.getRngState(),
                      op.getAmaxReductionGroup(),
                      type.getQuantizer(),
                      type.getScaleLayout(),
                      type.getElementType(),
                      op->hasAttr(TEQDialect::getRecomputeAttrName())};
      auto [it, inserted] = groups.try_emplace(key);
      if (inserted)
        order.push_back(key);
      it->second.push_back(op);
    });
    for (const QuantizeKey &key : order) {
      SmallVector<QuantizeOp> &ops = groups[key];
      if (ops.size() < 2)
        continue;
      llvm::sort(ops, [](QuantizeOp a, QuantizeOp b) {
        return a->isBeforeInBlock(b);
      });
      unsigned usage = 0;
      for (QuantizeOp op : ops)
        usage |= static_cast<unsigned>(op.getResult().getType().getUsage());
      QuantizeOp first = ops.front();
      auto merged = first.getResult().getType().withUsage(
          static_cast<Usage>(usage));
      OpBuilder builder(first);
      SmallVector<Type> resultTypes{merged};
      if (Value h = first.getUpdatedAmaxHistory())
        resultTypes.push_back(h.getType());
      auto combined = QuantizeOp::create(
          builder, first.getLoc(), resultTypes, first->getOperands(),
          first->getAttrs());
      // One update_usage per distinct usage, placed where it is first needed.
      llvm::DenseMap<Type, Value> byType{{merged, combined.getResult()}};
      for (QuantizeOp op : ops) {
        Value &replacement = byType[op.getResult().getType()];
        if (!replacement) {
          OpBuilder at(op);
          replacement = UpdateUsageOp::create(at, op.getLoc(),
                                              op.getResult().getType(),
                                              combined.getResult());
        }
        op.getResult().replaceAllUsesWith(replacement);
        if (Value h = op.getUpdatedAmaxHistory())
          h.replaceAllUsesWith(combined.getUpdatedAmaxHistory());
        op.erase();
      }
    }
  }
};

} // namespace

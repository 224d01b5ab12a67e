//===- Elementwise.cpp - Fused elementwise ops on tensors -----------------===//

#include "Elementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::teq::kernels;

namespace {

/// Elements a thread handles at once where every buffer is 16-byte aligned:
/// 16 bytes of a bf16/f16 buffer.
constexpr int64_t kVectorWidth = 8;

/// The value of splat constant `v`, exactly: bf16, f16 and f32 values are
/// all f32 values.
float splatValue(Value v) {
  auto constant = v.getDefiningOp<arith::ConstantOp>();
  APFloat value =
      cast<DenseElementsAttr>(constant.getValue()).getSplatValue<APFloat>();
  bool losesInfo = false;
  value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToFloat();
}

/// `element`, or a vector of it shaped like `like` (a vector).
Type shapedLike(Type like, Type element) {
  if (auto vector = dyn_cast<VectorType>(like))
    return VectorType::get(vector.getShape(), element);
  return element;
}

/// The kernel's ops on one element (or one vector of elements): `values`
/// starts with the inputs, as f32 (or vectors of f32) of type `computeType`.
class ElementComputation {
public:
  ElementComputation(ImplicitLocOpBuilder &b, Type computeType,
                     SmallVectorImpl<Operation *> &created)
      : b(b), computeType(computeType), created(created) {}

  void setInput(Value tensor, Value loaded) { stored[tensor] = loaded; }

  /// Computes `ops` in order.
  void compute(ArrayRef<Operation *> ops) {
    for (Operation *op : ops) {
      SmallVector<Value> operands;
      for (Value operand : op->getOperands())
        operands.push_back(read(operand));
      Value result;
      if (isa<arith::ConstantOp>(op)) {
        // A stored splat constant (a fill): its value, exact in its type.
        result = read(op->getResult(0));
      } else if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
        // Widening is exact; narrowing is the rounding below.
        result = operands.front();
      } else {
        OperationState state(b.getLoc(), op->getName());
        state.addOperands(operands);
        state.addTypes(computeType);
        state.addAttributes(op->getAttrs());
        Operation *scalarOp = b.create(state);
        // No fast-math in a fused kernel: contracting or reassociating
        // across ops that were separate kernels (each rounding its result)
        // would change bits.
        if (auto fastMath = dyn_cast<arith::ArithFastMathInterface>(scalarOp))
          scalarOp->setAttr(fastMath.getFastMathAttrName(),
                            arith::FastMathFlagsAttr::get(
                                b.getContext(), arith::FastMathFlags::none));
        created.push_back(scalarOp);
        result = scalarOp->getResult(0);
      }
      Type element = getElementTypeOrSelf(op->getResult(0).getType());
      if (!element.isF32()) {
        // As a kernel storing the result and the next one loading it.
        auto narrow = arith::TruncFOp::create(
            b, shapedLike(computeType, element), result);
        if (isa<arith::TruncFOp>(op))
          narrow->setAttrs(op->getAttrDictionary());
        result = narrow;
      }
      stored[op->getResult(0)] = result;
    }
  }

  /// `tensor`'s value in its element type (as stored).
  Value storedValue(Value tensor) const { return stored.lookup(tensor); }

private:
  /// `v` as f32: a splat constant, or a stored value widened (once).
  Value read(Value v) {
    if (Value w = widened.lookup(v))
      return w;
    Value w;
    if (!stored.count(v)) {
      float value = splatValue(v);
      Attribute attr = b.getF32FloatAttr(value);
      if (auto vector = dyn_cast<VectorType>(computeType))
        attr = DenseElementsAttr::get(vector, value);
      w = arith::ConstantOp::create(b, cast<TypedAttr>(attr));
    } else {
      w = stored.lookup(v);
      if (getElementTypeOrSelf(w.getType()) != b.getF32Type())
        w = arith::ExtFOp::create(b, computeType, w);
    }
    widened[v] = w;
    return w;
  }

  ImplicitLocOpBuilder &b;
  Type computeType;
  SmallVectorImpl<Operation *> &created;
  /// Values in their element types, by tensor of the entry.
  DenseMap<Value, Value> stored;
  /// The same as f32.
  DenseMap<Value, Value> widened;
};

} // namespace

std::string
mlir::teq::kernels::elementwiseKernelSuffix(ArrayRef<Operation *> ops) {
  if (ops.size() > 4)
    return "_fused" + std::to_string(ops.size());
  std::string suffix;
  for (Operation *op : ops) {
    std::string name = op->getName().stripDialect().str();
    std::replace(name.begin(), name.end(), '.', '_');
    suffix += "_" + name;
  }
  return suffix;
}

KernelGroup
mlir::teq::kernels::emitElementwise(const EmitContext &ctx,
                                    const ElementwiseSpec &spec,
                                    const ElementwiseBuffers &buffers) {
  ImplicitLocOpBuilder &b = ctx.b;
  const int64_t elements =
      cast<ShapedType>(spec.ops.front()->getResult(0).getType())
          .getNumElements();
  const int64_t vectorElements = elements / kVectorWidth * kVectorWidth;
  KernelLaunch launch;
  launch.kernel = ctx.symbol(elementwiseKernelSuffix(spec.ops));
  launch.stage = "_elementwise";
  launch.blockX = kBlockSize;
  // Up to eight blocks per SM of an H100 (16-byte accesses need many in
  // flight); the grid-stride loop covers more.
  launch.gridX = blocksFor(std::max<int64_t>(elements / kVectorWidth, 1),
                           kBlockSize, /*maxBlocks=*/8 * 132);
  llvm::append_range(launch.args, buffers.inputs);
  llvm::append_range(launch.args, buffers.outputs);

  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp func =
      createKernel(b, ctx.module, launch.kernel, launch.args, kBlockSize);
  Block *body = &func.getBody().front();
  b.setInsertionPointToStart(body);
  const size_t numInputs = spec.inputs.size();
  auto inputArgs = body->getArguments().take_front(numInputs);
  auto outputArgs = body->getArguments().drop_front(numInputs);
  Type f32 = b.getF32Type();
  SmallVector<Operation *> created;

  // Elements [i, i + width) (width 1: element i, as scalars).
  auto computeAt = [&](Value i, int64_t width) {
    Type computeType = width == 1 ? f32 : Type(VectorType::get({width}, f32));
    ElementComputation computation(b, computeType, created);
    for (auto [tensor, buffer] : llvm::zip_equal(spec.inputs, inputArgs)) {
      Type element = cast<MemRefType>(buffer.getType()).getElementType();
      Value loaded =
          width == 1
              ? Value(memref::LoadOp::create(b, buffer, ValueRange{i}))
              : loadVector(b, VectorType::get({width}, element), buffer, i);
      computation.setInput(tensor, loaded);
    }
    computation.compute(spec.ops);
    for (auto [tensor, buffer] : llvm::zip_equal(spec.outputs, outputArgs)) {
      Value value = computation.storedValue(tensor);
      if (width == 1)
        memref::StoreOp::create(b, value, buffer, ValueRange{i});
      else
        storeVector(b, value, buffer, i);
    }
  };

  GridStride stride = gridStride1D(b, kBlockSize);
  // Vectors of 16 bytes of bf16/f16 where every buffer is 16-byte aligned
  // (the caller's buffers need not be); elements past them one at a time.
  Value scalarStart = stride.start;
  if (vectorElements > 0) {
    Value aligned;
    for (BlockArgument buffer : body->getArguments()) {
      Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, buffer);
      Value misalignment =
          arith::RemUIOp::create(b, address, constantIndex(b, 16));
      Value isAligned = arith::CmpIOp::create(
          b, arith::CmpIPredicate::eq, misalignment, constantIndex(b, 0));
      aligned = aligned
                    ? arith::AndIOp::create(b, aligned, isAligned).getResult()
                    : isAligned;
    }
    ifThen(b, aligned, [&] {
      Value width = constantIndex(b, kVectorWidth);
      forLoop(b, arith::MulIOp::create(b, stride.start, width),
              constantIndex(b, vectorElements),
              arith::MulIOp::create(b, stride.step, width),
              [&](Value i) { computeAt(i, kVectorWidth); });
    });
    Value vectorDone = arith::SelectOp::create(
        b, aligned, constantIndex(b, vectorElements), constantIndex(b, 0));
    scalarStart = arith::AddIOp::create(b, vectorDone, stride.start);
  }
  forLoop(b, scalarStart, constantIndex(b, elements), stride.step,
          [&](Value i) { computeAt(i, 1); });
  gpu::ReturnOp::create(b);

  RewritePatternSet patterns(b.getContext());
  populatePolynomialApproximateTanhPattern(patterns);
  populatePolynomialApproximateErfPattern(patterns);
  (void)applyOpPatternsGreedily(created, std::move(patterns));
  return {launch};
}

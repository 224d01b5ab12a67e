//===- Elementwise.cpp - Fused elementwise ops on tensors -----------------===//

#include "Elementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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

/// The tensor whose elements a kernel of `op` indexes: its result, or a
/// concat's operand (each element stores into both halves).
RankedTensorType domainOf(Operation *op) {
  if (auto concat = dyn_cast<tensor::ConcatOp>(op))
    return cast<RankedTensorType>(concat.getOperand(0).getType());
  return cast<RankedTensorType>(op->getResult(0).getType());
}

/// Element `i` of a [..., n] view as an index into [..., full] at column
/// `offset`: row * full + offset + i % n, row = i / n.
Value columnIndex(ImplicitLocOpBuilder &b, Value i, int64_t n, int64_t full,
                  int64_t offset) {
  Value cols = arith::ConstantIndexOp::create(b, n);
  Value row = arith::DivUIOp::create(b, i, cols);
  Value col = arith::RemUIOp::create(b, i, cols);
  Value start = arith::MulIOp::create(
      b, row, arith::ConstantIndexOp::create(b, full));
  return arith::AddIOp::create(
      b, arith::AddIOp::create(b, start, col),
      arith::ConstantIndexOp::create(b, offset));
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
      // Views: a slice is loaded in place (setInput), a concat's operands
      // stored into its halves.
      if (isa<tensor::ExtractSliceOp, tensor::ConcatOp>(op))
        continue;
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
  RankedTensorType domain = domainOf(spec.ops.front());
  const int64_t elements = domain.getNumElements();
  // A vector stays within a row of every view: its last dimension is a
  // multiple of the width.
  bool rowsAlign = true;
  for (Operation *op : spec.ops)
    if (isa<tensor::ExtractSliceOp, tensor::ConcatOp>(op))
      rowsAlign &= domain.getShape().back() % kVectorWidth == 0;
  const int64_t vectorElements =
      rowsAlign ? elements / kVectorWidth * kVectorWidth : 0;
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
  if (spec.amaxOf)
    launch.args.push_back(spec.amax.scale);

  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp func =
      createKernel(b, ctx.module, launch.kernel, launch.args, kBlockSize);
  // (Before the argument ranges below: a workgroup buffer is an argument
  // of the body too.)
  Value sharedMax =
      spec.amaxOf
          ? addWorkgroupBuffer(func, b.getF32Type(), kBlockSize / 32)
          : Value();
  Block *body = &func.getBody().front();
  b.setInsertionPointToStart(body);
  const size_t numInputs = spec.inputs.size();
  auto inputArgs = body->getArguments().take_front(numInputs);
  auto outputArgs =
      body->getArguments().slice(numInputs, spec.outputs.size());
  // The tensors' buffers (not the scale the amax goes to).
  auto tensorArgs =
      body->getArguments().take_front(numInputs + spec.outputs.size());
  Type f32 = b.getF32Type();
  SmallVector<Operation *> created;

  // Elements [i, i + width) (width 1: element i, as scalars); returns the
  // max |stored value| of spec.amaxOf there (0 without it).
  auto computeAt = [&](Value i, int64_t width) -> Value {
    Type computeType = width == 1 ? f32 : Type(VectorType::get({width}, f32));
    ElementComputation computation(b, computeType, created);
    auto load = [&](Value buffer, Value at) -> Value {
      Type element = cast<MemRefType>(buffer.getType()).getElementType();
      if (width == 1)
        return memref::LoadOp::create(b, buffer, ValueRange{at});
      return loadVector(b, VectorType::get({width}, element), buffer, at);
    };
    auto store = [&](Value value, Value buffer, Value at) {
      if (width == 1)
        memref::StoreOp::create(b, value, buffer, ValueRange{at});
      else
        storeVector(b, value, buffer, at);
    };
    const int64_t n = domain.getShape().back();
    DenseMap<Value, Value> bufferOf;
    for (auto [tensor, buffer] : llvm::zip_equal(spec.inputs, inputArgs)) {
      bufferOf[tensor] = buffer;
      // A sliced [..., 2n] tensor is loaded by its slices below.
      if (cast<RankedTensorType>(tensor.getType()).getShape() ==
          domain.getShape())
        computation.setInput(tensor, load(buffer, i));
    }
    for (Operation *op : spec.ops)
      if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
        computation.setInput(
            slice.getResult(),
            load(bufferOf.lookup(slice.getSource()),
                 columnIndex(b, i, n, slice.getSourceType().getShape().back(),
                             slice.getStaticOffsets().back())));
    computation.compute(spec.ops);
    Value max = spec.amaxOf ? constantF32(b, 0.0f) : Value();
    auto foldAbsMax = [&](Value stored) {
      Value wide = stored;
      if (getElementTypeOrSelf(wide.getType()) != f32)
        wide = arith::ExtFOp::create(b, shapedLike(stored.getType(), f32),
                                     stored);
      wide = math::AbsFOp::create(b, wide);
      if (width > 1)
        wide = vector::ReductionOp::create(b, vector::CombiningKind::MAXNUMF,
                                           wide);
      max = arith::MaxNumFOp::create(b, max, wide);
    };
    for (auto [tensor, buffer] : llvm::zip_equal(spec.outputs, outputArgs)) {
      if (auto concat = tensor.getDefiningOp<tensor::ConcatOp>()) {
        for (auto [half, operand] : llvm::enumerate(concat.getOperands())) {
          store(computation.storedValue(operand), buffer,
                columnIndex(b, i, n, 2 * n, half * n));
          if (tensor == spec.amaxOf)
            foldAbsMax(computation.storedValue(operand));
        }
        continue;
      }
      store(computation.storedValue(tensor), buffer, i);
      if (tensor == spec.amaxOf)
        foldAbsMax(computation.storedValue(tensor));
    }
    return max;
  };

  GridStride stride = gridStride1D(b, kBlockSize);
  // spec.amaxOf: this thread's max |stored value|, through both loops.
  Value threadMax = spec.amaxOf ? constantF32(b, 0.0f) : Value();
  // Vectors of 16 bytes of bf16/f16 where every buffer is 16-byte aligned
  // (the caller's buffers need not be); elements past them one at a time.
  Value scalarStart = stride.start;
  if (vectorElements > 0) {
    Value aligned;
    for (BlockArgument buffer : tensorArgs) {
      Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, buffer);
      Value misalignment =
          arith::RemUIOp::create(b, address, constantIndex(b, 16));
      Value isAligned = arith::CmpIOp::create(
          b, arith::CmpIPredicate::eq, misalignment, constantIndex(b, 0));
      aligned = aligned
                    ? arith::AndIOp::create(b, aligned, isAligned).getResult()
                    : isAligned;
    }
    Value width = constantIndex(b, kVectorWidth);
    auto vectorLoop = [&](Value init) -> Value {
      Value lb = arith::MulIOp::create(b, stride.start, width);
      Value step = arith::MulIOp::create(b, stride.step, width);
      Value ub = constantIndex(b, vectorElements);
      if (!init) {
        forLoop(b, lb, ub, step, [&](Value i) { computeAt(i, kVectorWidth); });
        return Value();
      }
      return forLoop(b, lb, ub, step, init, [&](Value i, Value acc) -> Value {
        return arith::MaxNumFOp::create(b, acc, computeAt(i, kVectorWidth));
      });
    };
    if (spec.amaxOf)
      threadMax = ifThenElse(
          b, f32, aligned, [&] { return vectorLoop(threadMax); },
          [&] { return threadMax; });
    else
      ifThen(b, aligned, [&] { vectorLoop(Value()); });
    Value vectorDone = arith::SelectOp::create(
        b, aligned, constantIndex(b, vectorElements), constantIndex(b, 0));
    scalarStart = arith::AddIOp::create(b, vectorDone, stride.start);
  }
  if (spec.amaxOf) {
    threadMax = forLoop(b, scalarStart, constantIndex(b, elements),
                        stride.step, threadMax, [&](Value i, Value acc) -> Value {
                          return arith::MaxNumFOp::create(b, acc,
                                                          computeAt(i, 1));
                        });
    emitProducerAmaxToScale(ctx, spec.amax,
                            body->getArgument(numInputs + spec.outputs.size()),
                            threadMax,
                            gpu::ThreadIdOp::create(b, gpu::Dimension::x),
                            sharedMax, kBlockSize, launch.gridX);
  } else {
    forLoop(b, scalarStart, constantIndex(b, elements), stride.step,
            [&](Value i) { computeAt(i, 1); });
  }
  gpu::ReturnOp::create(b);

  RewritePatternSet patterns(b.getContext());
  populatePolynomialApproximateTanhPattern(patterns);
  populatePolynomialApproximateErfPattern(patterns);
  // exp (sigmoid) by MLIR's range reduction and polynomial, no libdevice.
  populateMathPolynomialApproximationPatterns(
      patterns, [](StringRef name) { return name == "math.exp"; });
  llvm::SmallPtrSet<Operation *, 16> formulaDivisions;
  func.walk([&](arith::DivFOp op) { formulaDivisions.insert(op); });
  (void)applyOpPatternsGreedily(created, std::move(patterns));
  // The polynomials' own ratios (tanh's p/q, q > 0 and bounded) need no
  // IEEE division: approximate functions, `afn`, lower to PTX div.approx,
  // one reciprocal and a multiply. Divisions the formulas wrote stay IEEE.
  func.walk([&](arith::DivFOp op) {
    if (!formulaDivisions.contains(op))
      op.setFastmath(arith::FastMathFlags::afn);
  });
  return {launch};
}

//===- Elementwise.cpp - Elementwise arith/math ops on tensors ------------===//

#include "Elementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::teq::kernels;

KernelLaunch mlir::teq::kernels::emitElementwise(ImplicitLocOpBuilder &b,
                                                 gpu::GPUModuleOp module,
                                                 StringRef name, Operation &op,
                                                 ValueRange operands,
                                                 Value result) {
  const int64_t elements = cast<MemRefType>(result.getType()).getNumElements();
  KernelLaunch launch;
  launch.kernel = name.str();
  launch.blockX = kBlockSize;
  // About four blocks per SM of an H100; the grid-stride loop covers more.
  launch.gridX = blocksFor(elements, kBlockSize, /*maxBlocks=*/4 * 132);
  launch.args.assign(operands.begin(), operands.end());
  launch.args.push_back(result);

  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel =
      createKernel(b, module, name, launch.args, kBlockSize);
  Block *body = &kernel.getBody().front();
  b.setInsertionPointToStart(body);
  GridStride stride = gridStride1D(b, kBlockSize);
  Value end = constantIndex(b, elements);
  Operation *scalarOp = nullptr;
  forLoop(b, stride.start, end, stride.step, [&](Value i) {
    Type f32 = b.getF32Type();
    SmallVector<Value> scalars;
    for (BlockArgument arg : body->getArguments().drop_back()) {
      Value v = memref::LoadOp::create(b, arg, ValueRange{i});
      if (v.getType() != f32)
        v = arith::ExtFOp::create(b, f32, v);
      scalars.push_back(v);
    }
    OperationState state(b.getLoc(), op.getName());
    state.addOperands(scalars);
    state.addTypes(f32);
    state.addAttributes(op.getAttrs());
    scalarOp = b.create(state);
    Value r = scalarOp->getResult(0);
    Type resultElement = cast<MemRefType>(result.getType()).getElementType();
    if (resultElement != f32)
      r = arith::TruncFOp::create(b, resultElement, r);
    memref::StoreOp::create(b, r, body->getArguments().back(), ValueRange{i});
  });
  gpu::ReturnOp::create(b);

  RewritePatternSet patterns(b.getContext());
  populatePolynomialApproximateTanhPattern(patterns);
  populatePolynomialApproximateErfPattern(patterns);
  (void)applyOpPatternsGreedily(ArrayRef<Operation *>{scalarOp},
                                std::move(patterns));
  return launch;
}

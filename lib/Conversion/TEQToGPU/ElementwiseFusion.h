//===- ElementwiseFusion.h - Elementwise ops fused in kernels ---*- C++ -*-===//
//
// Elementwise arith/math ops on same-shaped tensors (an activation, its
// gradient) are memory bound: as one kernel each, a chain of them moves every
// intermediate through DRAM twice. The fusion plan groups an entry's
// elementwise ops into clusters, one kernel each: every element loads the
// cluster's inputs once, computes its ops in registers and stores only the
// values something outside the cluster reads (returned, read by a
// non-elementwise op, or loaded by a later cluster). The other
// intermediates, and the splat constants the ops read, have no buffer.
//
// A cluster's kernel is launched where its last op stands in the entry, so
// an op joins a cluster only if nothing outside the cluster reads the
// cluster's results before that op. A value that a later cluster reads but
// no other op does may be recomputed there from the values it was computed
// from (when that loads no more bytes than the value itself), so GELU's
// backward recomputes the forward's tanh from the pre-activation rather
// than keeping it in the workspace.
//
// Fusion does not change numerics: each op still computes in f32 and rounds
// to its result's element type, as the store and load between two unfused
// kernels did (Kernels/Elementwise.h).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_ELEMENTWISEFUSION_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_ELEMENTWISEFUSION_H

#include "mlir/IR/Block.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::teq::lowering {

/// One fused elementwise kernel.
struct ElementwiseCluster {
  /// The ops it computes per element, in program order: its own ops and
  /// those of earlier clusters it recomputes rather than load their results.
  llvm::SmallVector<Operation *> ops;
  /// The stored tensors it loads, in the order its ops first read them.
  llvm::SmallVector<Value> inputs;
  /// The results of its own ops it stores, in program order.
  llvm::SmallVector<Value> outputs;
  /// Its last own op: the kernel runs where this op stands in the entry.
  Operation *launchAt = nullptr;
};

struct ElementwiseFusion {
  llvm::SmallVector<ElementwiseCluster> clusters;
  /// The cluster of each elementwise op (its own ops only).
  llvm::DenseMap<Operation *, unsigned> clusterOf;
  /// Values that live only in registers: intermediates no one loads and
  /// splat constants. They get no buffer.
  llvm::DenseSet<Value> inRegisters;
  /// For each stored value some cluster loads, the launch op of the last
  /// such cluster (its buffer must live until then).
  llvm::DenseMap<Value, Operation *> lastLoad;

  /// The cluster whose kernel is launched at `op`, or nullptr.
  const ElementwiseCluster *launchedAt(Operation *op) const;
};

/// Plans the elementwise kernels of an entry's block (checked lowerable).
ElementwiseFusion planElementwiseFusion(Block &entry);

} // namespace mlir::teq::lowering

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_ELEMENTWISEFUSION_H

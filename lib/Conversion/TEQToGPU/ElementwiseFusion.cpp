//===- ElementwiseFusion.cpp - Elementwise ops fused in kernels -----------===//

#include "ElementwiseFusion.h"

#include "Lowerable.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;

const ElementwiseCluster *ElementwiseFusion::launchedAt(Operation *op) const {
  auto it = clusterOf.find(op);
  if (it == clusterOf.end() || clusters[it->second].launchAt != op)
    return nullptr;
  return &clusters[it->second];
}

namespace {

/// The most ops a cluster recomputes to avoid loading one value.
constexpr size_t kMaxRecomputedOps = 64;

int64_t bytesOf(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  return type.getNumElements() * type.getElementTypeBitWidth() / 8;
}

class FusionPlanner {
public:
  explicit FusionPlanner(Block &block) : block(block) {
    for (auto [i, op] : llvm::enumerate(block.getOperations()))
      position[&op] = static_cast<int64_t>(i);
  }

  ElementwiseFusion run() {
    groupOps();
    chooseLoadsAndRecomputation();
    return finish();
  }

private:
  /// Ops a kernel computes per element: arith/math ops and the views it
  /// reads or writes in place (a gated activation's halves).
  bool isElementwise(Operation *op) const {
    return op && (isElementwiseOnTensors(*op) || isFusedColumnSlice(*op) ||
                  isFusedLastDimConcat(*op));
  }
  bool isConstant(Value v) const {
    Operation *def = v.getDefiningOp();
    return def && isSplatTensorConstant(*def);
  }

  /// Whether `v` must be stored whatever the clusters do: it is returned or
  /// read by an op that is not elementwise.
  bool isForced(Value v) const {
    // A concat's [..., 2n] result is not a value of its kernel's elements.
    if (Operation *def = v.getDefiningOp(); def && isFusedLastDimConcat(*def))
      return true;
    return llvm::any_of(v.getUsers(),
                        [&](Operation *user) { return !isElementwise(user); });
  }

  /// Whether a kernel computing `ops` can run where `at` stands: nothing
  /// outside `ops` reads their results before it.
  bool launchableAt(ArrayRef<Operation *> ops, Operation *at) const {
    llvm::SmallPtrSet<Operation *, 16> inside(ops.begin(), ops.end());
    for (Operation *op : ops)
      for (Operation *user : op->getUsers())
        if (!inside.contains(user) &&
            position.lookup(user) < position.lookup(at))
          return false;
    return true;
  }

  /// Forms the clusters in program order: each elementwise op joins the
  /// clusters of the elementwise ops it reads, as far as the joined cluster
  /// can still run at the op.
  void groupOps() {
    for (Operation &op : block) {
      // A splat constant that must be stored (returned, or read by an op
      // that is not elementwise) is a kernel of its own that fills its
      // buffer; elementwise ops still read it as a scalar.
      if (isSplatTensorConstant(op) && isForced(op.getResult(0))) {
        ownerOf[&op] = members.size();
        members.push_back({&op});
        continue;
      }
      if (!isElementwise(&op))
        continue;
      SmallVector<Operation *> group{&op};
      SmallVector<unsigned> joined;
      for (Value operand : op.getOperands()) {
        if (isConstant(operand))
          continue; // read as a scalar, stored or not
        // A sliced tensor is loaded in place ([..., 2n], not the slice's
        // elements); so is a concat's result.
        Operation *def = operand.getDefiningOp();
        if (isFusedColumnSlice(op) || (def && isFusedLastDimConcat(*def)))
          continue;
        auto it = ownerOf.find(operand.getDefiningOp());
        if (it == ownerOf.end() || llvm::is_contained(joined, it->second))
          continue;
        SmallVector<Operation *> candidate(group);
        llvm::append_range(candidate, members[it->second]);
        if (!launchableAt(candidate, &op))
          continue;
        group = std::move(candidate);
        joined.push_back(it->second);
      }
      for (unsigned id : joined)
        members[id].clear();
      llvm::sort(group, [&](Operation *a, Operation *b) {
        return position.lookup(a) < position.lookup(b);
      });
      unsigned id = members.size();
      for (Operation *member : group)
        ownerOf[member] = id;
      members.push_back(std::move(group));
    }
    // Clusters in launch order.
    for (SmallVector<Operation *> &ops : members)
      if (!ops.empty())
        working.push_back({ops, {}});
    llvm::sort(working, [&](const Working &a, const Working &b) {
      return position.lookup(a.own.back()) < position.lookup(b.own.back());
    });
    ownerOf.clear();
    for (auto [id, w] : llvm::enumerate(working))
      for (Operation *op : w.own)
        ownerOf[op] = id;
  }

  /// The ops of cluster `from`'s kernel that compute `v` back to values it
  /// stores or loads (the leaves), or failure past kMaxRecomputedOps.
  LogicalResult recomputation(Value v, unsigned from,
                              llvm::SetVector<Operation *> &ops,
                              llvm::SetVector<Value> &leaves) const {
    if (isConstant(v))
      return success();
    Operation *def = v.getDefiningOp();
    if (!def || !working[from].ops.contains(def) || isForced(v)) {
      leaves.insert(v);
      return success();
    }
    if (!ops.insert(def))
      return success();
    if (ops.size() > kMaxRecomputedOps)
      return failure();
    for (Value operand : def->getOperands())
      if (failed(recomputation(operand, from, ops, leaves)))
        return failure();
    return success();
  }

  /// In launch order, each cluster either loads a value of an earlier
  /// cluster or recomputes it, whichever reads fewer new bytes.
  void chooseLoadsAndRecomputation() {
    for (auto [id, cluster] : llvm::enumerate(working)) {
      cluster.ops.insert(cluster.own.begin(), cluster.own.end());
      llvm::SetVector<Value> loads;
      for (Operation *op : cluster.own)
        for (Value operand : op->getOperands()) {
          if (isConstant(operand))
            continue;
          auto owner = ownerOf.find(operand.getDefiningOp());
          if (owner != ownerOf.end() && owner->second == id)
            continue;
          // A sliced tensor is loaded in place, never recomputed (its ops
          // compute on [..., 2n], not on the slice's elements).
          if (owner == ownerOf.end() || isForced(operand) ||
              isFusedColumnSlice(*op)) {
            loads.insert(operand);
            continue;
          }
          llvm::SetVector<Operation *> ops;
          llvm::SetVector<Value> leaves;
          if (succeeded(recomputation(operand, owner->second, ops, leaves))) {
            int64_t newBytes = 0;
            for (Value leaf : leaves)
              if (!loads.contains(leaf))
                newBytes += bytesOf(leaf);
            if (newBytes <= bytesOf(operand)) {
              cluster.ops.insert(ops.begin(), ops.end());
              loads.insert(leaves.begin(), leaves.end());
              continue;
            }
          }
          loads.insert(operand);
        }
    }
  }

  ElementwiseFusion finish() {
    ElementwiseFusion fusion;
    llvm::DenseSet<Value> loaded;
    for (auto [id, w] : llvm::enumerate(working)) {
      ElementwiseCluster cluster;
      cluster.ops.assign(w.ops.begin(), w.ops.end());
      llvm::sort(cluster.ops, [&](Operation *a, Operation *b) {
        return position.lookup(a) < position.lookup(b);
      });
      cluster.launchAt = w.own.back();
      llvm::SmallPtrSet<Operation *, 16> computed(cluster.ops.begin(),
                                                  cluster.ops.end());
      llvm::SetVector<Value> inputs;
      for (Operation *op : cluster.ops)
        for (Value operand : op->getOperands())
          if (!isConstant(operand) &&
              !computed.contains(operand.getDefiningOp()))
            inputs.insert(operand);
      cluster.inputs.assign(inputs.begin(), inputs.end());
      for (Value input : cluster.inputs) {
        loaded.insert(input);
        fusion.lastLoad[input] = cluster.launchAt;
      }
      for (Operation *op : w.own)
        fusion.clusterOf[op] = id;
      fusion.clusters.push_back(std::move(cluster));
    }
    for (auto [id, w] : llvm::enumerate(working))
      for (Operation *op : w.own) {
        Value result = op->getResult(0);
        if (isForced(result) || loaded.contains(result))
          fusion.clusters[id].outputs.push_back(result);
        else
          fusion.inRegisters.insert(result);
      }
    for (Operation &op : block)
      if (isSplatTensorConstant(op) && !fusion.clusterOf.count(&op))
        fusion.inRegisters.insert(op.getResult(0));
    return fusion;
  }

  struct Working {
    SmallVector<Operation *> own;
    llvm::SetVector<Operation *> ops;
  };

  Block &block;
  llvm::DenseMap<Operation *, int64_t> position;
  /// While grouping: member lists by cluster id (empty once merged away).
  SmallVector<SmallVector<Operation *>> members;
  /// The cluster of each elementwise op.
  llvm::DenseMap<Operation *, unsigned> ownerOf;
  SmallVector<Working> working;
};

} // namespace

ElementwiseFusion lowering::planElementwiseFusion(Block &entry) {
  return FusionPlanner(entry).run();
}

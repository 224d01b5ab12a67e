//===- EntryLowering.cpp - One teq entry function to launches -------------===//

#include "EntryLowering.h"

#include "OpLowering.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <map>
#include <set>

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;

LogicalResult lowering::lowerEntry(func::FuncOp func, TargetAttr target,
                                   KernelCache &kernelCache,
                                   ManifestWriter &manifest,
                                   const FusionOptions &fusions) {
  Location loc = func.getLoc();
  if (failed(checkEntryLowerable(func)))
    return failure();
  planQuantizeFusions(func, target, fusions);
  if (failed(orderBackwardGemms(func, target)))
    return failure();
  FailureOr<EntryPlan> planned = planEntry(func, target);
  if (failed(planned))
    return failure();
  const EntryPlan &plan = *planned;
  FailureOr<EntryNames> names = EntryNames::get(func, plan);
  if (failed(names))
    return failure();
  std::string name = func.getSymName().str();
  // The lowered function takes the flat buffer list (arguments, then
  // results, then the workspace) and replaces the original under its name.
  OpBuilder b(func);
  LoweringContext ctx(func, target, plan, kernelCache, manifest, b);
  DenseMap<Operation *, int64_t> gemmIds;
  for (auto [k, gemm] : llvm::enumerate(plan.gemms)) {
    GemmOp gemmOp = gemm.first;
    std::string kindName =
        gemmOp.getKind() ? stringifyGemmKind(*gemmOp.getKind()).str() : "gemm";
    int64_t id = manifest.addGemm(gemm.second,
                                  name + ":" + kindName + std::to_string(k));
    gemmIds[gemmOp.getOperation()] = id;
    ctx.setGemm(gemmOp, id, gemm.second);
  }
  manifest.addEntry(func, plan, *names, gemmIds);
  for (auto [i, group] : llvm::enumerate(plan.groups))
    ctx.setGroupIndex(group.arg, static_cast<int64_t>(i));

  // A result buffer that hosts temporaries is taken as its bytes (i8), and
  // its value and the temporaries are views of them.
  auto i8 = IntegerType::get(func.getContext(), 8);
  std::set<std::pair<unsigned, unsigned>> hostBuffers;
  for (const EntryPlan::Host &host : plan.hosts)
    hostBuffers.insert({host.result, host.buffer});
  auto hostType = [&](const Buffer &b) {
    return MemRefType::get({b.bytes}, i8);
  };
  SmallVector<Type> memrefs;
  for (const auto &buffers : plan.argumentBuffers)
    for (const Buffer &b : buffers)
      memrefs.push_back(b.type);
  for (auto [i, buffers] : llvm::enumerate(plan.resultBuffers))
    for (auto [j, b] : llvm::enumerate(buffers))
      memrefs.push_back(hostBuffers.count({unsigned(i), unsigned(j)})
                            ? hostType(b)
                            : b.type);
  if (plan.workspaceBytes > 0)
    memrefs.push_back(MemRefType::get({plan.workspaceBytes}, i8));
  auto lowered = func::FuncOp::create(b, loc, name + ".lowered",
                                      b.getFunctionType(memrefs, {}));
  lowered->setAttr(TEQDialect::getEntryAttrName(), b.getUnitAttr());
  Block *body = lowered.addEntryBlock();
  b.setInsertionPointToStart(body);
  unsigned next = 0;
  for (auto [arg, buffers] : llvm::zip(func.getArguments(), plan.argumentBuffers))
    for (size_t j = 0; j < buffers.size(); ++j)
      ctx.buffersOf(arg).push_back(body->getArgument(next++));
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  auto viewOf = [&](Value bytes, MemRefType type, int64_t offset) -> Value {
    Value at = arith::ConstantIndexOp::create(b, loc, offset);
    return memref::ViewOp::create(b, loc, type, bytes, at, ValueRange{});
  };
  SmallVector<SmallVector<Value>> resultMemrefs;
  std::map<std::pair<unsigned, unsigned>, Value> hostBytes;
  for (auto [i, buffers] : llvm::enumerate(plan.resultBuffers)) {
    SmallVector<Value> memrefsOfResult;
    for (auto [j, buffer] : llvm::enumerate(buffers)) {
      Value arg = body->getArgument(next++);
      if (hostBuffers.count({unsigned(i), unsigned(j)})) {
        hostBytes[{unsigned(i), unsigned(j)}] = arg;
        arg = viewOf(arg, buffer.type, 0);
      }
      memrefsOfResult.push_back(arg);
    }
    Value value = ret.getOperand(i);
    auto it = plan.resultIndexOf.find(value);
    if (it != plan.resultIndexOf.end() && it->second == i)
      ctx.buffersOf(value) = memrefsOfResult;
    resultMemrefs.push_back(std::move(memrefsOfResult));
  }
  Value workspace;
  if (plan.workspaceBytes > 0)
    workspace = body->getArgument(next++);
  // A temporary's buffer: a view of the workspace or of the result buffer
  // that hosts it.
  auto view = [&](MemRefType type, const EntryPlan::Placement &at) -> Value {
    if (at.host < 0)
      return viewOf(workspace, type, at.offset);
    const EntryPlan::Host &host = plan.hosts[at.host];
    return viewOf(hostBytes.at({host.result, host.buffer}), type, at.offset);
  };
  for (auto [v, buffers, places] :
       llvm::zip(plan.temporaries, plan.temporaryBuffers,
                 plan.temporaryPlacements))
    for (auto [buffer, place] : llvm::zip(buffers, places))
      // Without a place the buffer is the input's (lowerSwizzleScales).
      ctx.buffersOf(v).push_back(place ? view(buffer.type, *place) : Value());
  for (const EntryPlan::Scratch &s : plan.scratch)
    ctx.setScratch(s.op, view(s.type, s.at));

  ctx.setToken(gpu::WaitOp::create(b, loc, b.getType<gpu::AsyncTokenType>(),
                                   ValueRange{})
                   .getAsyncToken());
  // Each op in program order, by its family (checkEntryLowerable made sure
  // every op has one).
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      continue;
    const OpLowering *family = findLowering(op);
    assert(family && "checkEntryLowerable refuses ops without a lowering");
    if (failed(family->lower(ctx, op)))
      return failure();
  }
  for (auto &[index, value] : plan.copiedResults)
    ctx.copyInto(func.getLoc(), value, resultMemrefs[index]);
  gpu::WaitOp::create(b, loc, Type(), ValueRange{ctx.getToken()});
  func::ReturnOp::create(b, loc);

  func.erase();
  lowered.setSymName(name);
  return success();
}

//===- KernelLowering.cpp - teq ops of an entry to kernel launches --------===//
//
// Each op picks its kernel family's emitter (Kernels/), describes the
// specialisation (shape, types, quantizer, target) and launches what the
// emitter returns, in program order on the entry's stream.
//
//===----------------------------------------------------------------------===//

#include "EntryLowering.h"

#include "Kernels/Auxiliary.h"
#include "Kernels/BiasGrad.h"
#include "Kernels/BlockFP8.h"
#include "Kernels/DelayedScalingUpdate.h"
#include "Kernels/Elementwise.h"
#include "Kernels/MXFP8.h"
#include "Kernels/NVFP4.h"
#include "Kernels/PerTensorFP8.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;
namespace layout = ::mlir::teq::layout;

using kernels::inputTypeOf;

namespace {

/// Whether the target has Blackwell's arch-specific E2M1 / UE8M0
/// conversions (cvt.rn.satfinite.e2m1x2, cvt.rp.satfinite.ue8m0x2): sm_100a
/// and later `a` targets. Elsewhere exact software conversions stand in.
bool hasBlackwellConversions(TargetAttr target) {
  return target.getSm() >= 100 && target.getSuffix() == "a";
}

/// The data and scale buffers of a block-scaled quantization (MXFP8, NVFP4)
/// whose scale padding must read as zero (te-semantics.md §4.2).
struct BlockScaledOutputs {
  Value rdata, rscale, cdata, cscale;
  int64_t rowScaleRows = 0, rowScaleCols = 0;
  int64_t colScaleRows = 0, colScaleCols = 0;

  explicit BlockScaledOutputs(llvm::StringMap<NamedBuffer> &named) {
    rdata = named.lookup("rowwise_data").value;
    rscale = named.lookup("rowwise_scale_inv").value;
    cdata = named.lookup("columnwise_data").value;
    cscale = named.lookup("columnwise_scale_inv").value;
    if (rscale) {
      const layout::BufferDesc &d = named["rowwise_scale_inv"].desc;
      rowScaleRows = d.shape[0];
      rowScaleCols = d.shape[1];
    }
    if (cscale) {
      const layout::BufferDesc &d = named["columnwise_scale_inv"].desc;
      colScaleRows = d.shape[0];
      colScaleCols = d.shape[1];
    }
  }

  /// Which copies the kernel writes and the shapes of their scales.
  template <typename Spec>
  void describeInto(Spec &spec) const {
    spec.rowwise = static_cast<bool>(rdata);
    spec.columnwise = static_cast<bool>(cdata);
    spec.rowScaleRows = rowScaleRows;
    spec.rowScaleCols = rowScaleCols;
    spec.colScaleRows = colScaleRows;
    spec.colScaleCols = colScaleCols;
  }

  /// The buffers of the tile kernels (block FP8, MXFP8) reading `x`.
  kernels::TileBuffers tileBuffers(Value x) const {
    return {x, rdata, rscale, cdata, cscale};
  }
};

/// The copies, scale shapes and buffers of a tile kernel (block FP8,
/// MXFP8) reading `input`. Tile kernels write every scale byte, padding
/// included, so their outputs need no zero-fill.
template <typename Spec>
kernels::TileBuffers tileOutputs(Spec &spec, TensorProtoType proto,
                                 TargetAttr target, ArrayRef<Value> outputs,
                                 Value input) {
  llvm::StringMap<NamedBuffer> named = buffersByName(proto, target, outputs);
  BlockScaledOutputs outs(named);
  outs.describeInto(spec);
  return outs.tileBuffers(input);
}

/// The fields every quantize kernel spec shares: the flattened M x K shape
/// and the input type (the name prefix comes from the kernel cache).
template <typename Spec>
void initSpec(Spec &spec, TensorProtoType proto) {
  layout::Flat2D flat = layout::flatten2D(
      std::vector<int64_t>(proto.getShape().begin(), proto.getShape().end()));
  spec.rows = flat.m;
  spec.cols = flat.k;
  spec.input = inputTypeOf(proto.getElementType());
}

/// The shape and types of a bias gradient.
} // namespace

void EntryLowering::launchGroup(OpBuilder &b, Location loc, StringRef letter,
                                GroupEmitter emit, Value &token) {
  ImplicitLocOpBuilder kb(loc, b);
  for (const kernels::KernelLaunch &k : kernelCache.emit(
           loc, letter, [&](gpu::GPUModuleOp into, StringRef prefix) {
             return emit(kb, into, prefix);
           }))
    launch(b, loc, k, token);
}

void EntryLowering::launchKernel(OpBuilder &b, Location loc, StringRef letter,
                                 KernelEmitter emit, Value &token) {
  launchGroup(
      b, loc, letter,
      [&](ImplicitLocOpBuilder &kb, gpu::GPUModuleOp into, StringRef prefix) {
        return SmallVector<kernels::KernelLaunch>{emit(kb, into, prefix)};
      },
      token);
}

LogicalResult EntryLowering::lowerQuantize(OpBuilder &b, QuantizeOp op,
                                           ArrayRef<Value> outputs,
                                           Value updatedHistory,
                                           Value &token) {
  TensorProtoType proto = op.getResult().getType();
  if (isa<Float8BlockQuantizerAttr>(proto.getQuantizer()))
    return lowerBlockQuantize(b, op, outputs, token);
  if (isa<MXFP8QuantizerAttr>(proto.getQuantizer()))
    return lowerMXFP8Quantize(b, op, outputs, token);
  if (isa<NVFP4QuantizerAttr>(proto.getQuantizer()))
    return lowerNVFP4Quantize(b, op, outputs, token);
  kernels::PerTensorFP8Spec spec;
  initSpec(spec, proto);
  spec.e5m2 = isa<Float8E5M2Type>(proto.getQuantizer().getDataType());
  if (auto cs = dyn_cast<Float8CurrentScalingQuantizerAttr>(
          proto.getQuantizer())) {
    spec.forcePow2 = cs.getForcePow_2Scales();
    spec.epsilon = static_cast<float>(cs.getAmaxEpsilon().convertToDouble());
    spec.reduceAmax = cs.getWithAmaxReduction();
  } else {
    spec.delayed = true;
    spec.historyLength =
        cast<RankedTensorType>(op.getAmaxHistory().getType()).getDimSize(0);
  }
  // Which buffers exist follows the layout (data, transpose, scale_inv).
  std::vector<layout::BufferDesc> descs = proto.getBuffers(target);
  Value data, transpose, scaleInv;
  for (auto [desc, value] : llvm::zip(descs, outputs)) {
    if (desc.name == "data")
      data = value;
    else if (desc.name == "transpose")
      transpose = value;
    else if (desc.name == "scale_inv")
      scaleInv = value;
  }
  spec.rowwise = static_cast<bool>(data);
  spec.transpose = static_cast<bool>(transpose);

  kernels::PerTensorFP8Buffers buffers;
  buffers.input = buffersOfValue.lookup(op.getInput()).front();
  buffers.data = data;
  buffers.transpose = transpose;
  buffers.scaleInv = scaleInv;
  if (spec.delayed) {
    buffers.scale = buffersOfValue.lookup(op.getScale()).front();
    buffers.amaxHistory = buffersOfValue.lookup(op.getAmaxHistory()).front();
    buffers.updatedAmaxHistory = updatedHistory;
  }
  if (!spec.reduceAmax) {
    launchGroup(b, op.getLoc(), "q",
                [&](ImplicitLocOpBuilder &kb, gpu::GPUModuleOp into,
                    StringRef prefix) {
                  spec.prefix = prefix.str();
                  return kernels::emitPerTensorFP8(kb, into, spec, buffers);
                },
                token);
    return success();
  }
  // Amax reduction: the rank's amax goes to scratch, the group all-reduces
  // it (max) between the amax and the scale kernels.
  buffers.amax = scratchOf.lookup(op.getOperation());
  ImplicitLocOpBuilder kb(op.getLoc(), b);
  SmallVector<kernels::KernelLaunch> launches = kernelCache.emit(
      op.getLoc(), "q", [&](gpu::GPUModuleOp into, StringRef prefix) {
        spec.prefix = prefix.str();
        return kernels::emitPerTensorFP8(kb, into, spec, buffers);
      });
  for (auto [i, k] : llvm::enumerate(launches)) {
    launch(b, op.getLoc(), k, token);
    if (i == 1)
      lowerAmaxReduction(b, op.getLoc(), op.getAmaxReductionGroup(),
                         buffers.amax, buffers.amax);
  }
  return success();
}

LogicalResult EntryLowering::lowerBlockQuantize(OpBuilder &b, QuantizeOp op,
                                                ArrayRef<Value> outputs,
                                                Value &token) {
  TensorProtoType proto = op.getResult().getType();
  auto bq = cast<Float8BlockQuantizerAttr>(proto.getQuantizer());
  kernels::BlockFP8Spec spec;
  initSpec(spec, proto);
  spec.e5m2 = isa<Float8E5M2Type>(bq.getFp8Dtype());
  spec.twoD = bq.getBlockScalingDim() == 2;
  spec.forcePow2 = bq.getForcePow_2Scales();
  spec.epsilon = static_cast<float>(bq.getAmaxEpsilon().convertToDouble());
  kernels::TileBuffers buffers = tileOutputs(
      spec, proto, target, outputs,
      buffersOfValue.lookup(op.getInput()).front());
  launchKernel(b, op.getLoc(), "q",
               [&](ImplicitLocOpBuilder &kb, gpu::GPUModuleOp into,
                   StringRef prefix) {
                 spec.prefix = prefix.str();
                 return kernels::emitBlockFP8(kb, into, spec, buffers);
               },
               token);
  return success();
}

LogicalResult EntryLowering::lowerMXFP8Quantize(OpBuilder &b, QuantizeOp op,
                                                ArrayRef<Value> outputs,
                                                Value &token) {
  TensorProtoType proto = op.getResult().getType();
  auto mx = cast<MXFP8QuantizerAttr>(proto.getQuantizer());
  kernels::MXFP8Spec spec;
  initSpec(spec, proto);
  spec.e5m2 = isa<Float8E5M2Type>(mx.getFp8Dtype());
  spec.twoD = mx.getWith_2dQuantization();
  spec.swizzled = proto.getScaleLayout() == ScaleLayout::gemm_swizzled;
  spec.hardwareConversions = hasBlackwellConversions(target);
  kernels::TileBuffers buffers = tileOutputs(
      spec, proto, target, outputs,
      buffersOfValue.lookup(op.getInput()).front());
  launchKernel(b, op.getLoc(), "q",
               [&](ImplicitLocOpBuilder &kb, gpu::GPUModuleOp into,
                   StringRef prefix) {
                 spec.prefix = prefix.str();
                 return kernels::emitMXFP8(kb, into, spec, buffers);
               },
               token);
  return success();
}

LogicalResult EntryLowering::lowerNVFP4Quantize(OpBuilder &b, QuantizeOp op,
                                                ArrayRef<Value> outputs,
                                                Value &token) {
  TensorProtoType proto = op.getResult().getType();
  auto nv = cast<NVFP4QuantizerAttr>(proto.getQuantizer());
  kernels::NVFP4Spec spec;
  initSpec(spec, proto);
  spec.twoD = nv.getWith_2dQuantization();
  spec.swizzled = proto.getScaleLayout() == ScaleLayout::gemm_swizzled;
  spec.rht = nv.getWithRht();
  spec.hardwareConversions = hasBlackwellConversions(target);
  spec.stochastic = nv.getStochasticRounding();
  // Hopper and later: the data kernel stages its tile while the amax pass
  // drains (NVFP4Spec::dependentLaunch).
  spec.dependentLaunch = target.getCaps().supportsDependentLaunch();
  // The (seed, offset) buffer of stochastic rounding: an entry argument.
  Value rng;
  if (spec.stochastic) {
    auto it = buffersOfValue.find(op.getRngState());
    if (it == buffersOfValue.end())
      return op.emitOpError("rng_state must be an argument of the entry "
                            "function (the kernels read its 16 bytes)");
    rng = it->second.front();
  }
  llvm::StringMap<NamedBuffer> named = buffersByName(proto, target, outputs);
  BlockScaledOutputs outs(named);
  outs.describeInto(spec);
  kernels::NVFP4Buffers buffers;
  buffers.input = buffersOfValue.lookup(op.getInput()).front();
  buffers.rowData = outs.rdata;
  buffers.rowScale = outs.rscale;
  buffers.columnData = outs.cdata;
  buffers.columnScale = outs.cscale;
  buffers.rowAmax = named.lookup("amax_rowwise").value;
  buffers.columnAmax = named.lookup("amax_columnwise").value;
  buffers.rngState = rng;
  launchGroup(b, op.getLoc(), "q",
              [&](ImplicitLocOpBuilder &kb, gpu::GPUModuleOp into,
                  StringRef prefix) {
                spec.prefix = prefix.str();
                return kernels::emitNVFP4Quantize(kb, into, spec, buffers);
              },
              token);
  return success();
}

void EntryLowering::lowerUpdate(OpBuilder &b, DelayedScalingUpdateOp op,
                                Value &token) {
  kernels::DelayedScalingUpdateSpec spec;
  spec.slots = op.getScale().getType().getDimSize(0);
  spec.length = op.getAmaxHistory().getType().getDimSize(0);
  spec.fp8Max = static_cast<float>(getFormatMax(op.getFp8Dtype()));
  spec.margin = op.getMarginAttr().getValue().getSExtValue();
  spec.mostRecent = op.getAmaxComputeAlgo() == AmaxComputeAlgo::most_recent;
  Value history = buffersOfValue.lookup(op.getAmaxHistory()).front();
  // Reduced amaxes: row 0 (the first S floats) all-reduced (max) into the
  // op's scratch, one call for every slot, as TE reduces them.
  Value reduced;
  if (Value group = op.getAmaxReductionGroup()) {
    reduced = scratchOf.lookup(op.getOperation());
    lowerAmaxReduction(b, op.getLoc(), group, history, reduced, spec.slots);
  }
  launchKernel(
      b, op.getLoc(), "u",
      [&](ImplicitLocOpBuilder &kb, gpu::GPUModuleOp into, StringRef prefix) {
        return kernels::emitDelayedScalingUpdate(
            kb, into, (prefix + "_update").str(), spec,
            buffersOfValue.lookup(op.getScale()).front(), history, reduced,
            buffersOfValue.lookup(op.getUpdatedScale()).front(),
            buffersOfValue.lookup(op.getUpdatedAmaxHistory()).front());
      },
      token);
}

void EntryLowering::lowerSwizzleScales(OpBuilder &b, SwizzleScalesOp op,
                                       Value &token) {
  TensorProtoType to = op.getResult().getType();
  SmallVector<Value> &outputs = buffersOfValue[op.getResult()];
  std::vector<layout::BufferDesc> descs = to.getBuffers(target);
  bool mxfp8 = isa<MXFP8QuantizerAttr>(to.getQuantizer());
  for (auto [desc, output] : llvm::zip_equal(descs, outputs)) {
    Value input = namedBuffer(op.getInput(), desc.name);
    if (!isScaleBuffer(desc.name)) {
      if (!output) { // a temporary: the input's buffer
        output = input;
        continue;
      }
      copyBuffer(b, op.getLoc(), input, output, token);
      continue;
    }
    kernels::ScaleSwizzleSpec spec;
    spec.rows = desc.shape[0];
    spec.cols = desc.shape[1];
    spec.transposed = mxfp8 && desc.name == "columnwise_scale_inv";
    launchKernel(
        b, op.getLoc(), "s",
        [&](ImplicitLocOpBuilder &kb, gpu::GPUModuleOp into, StringRef prefix) {
          return kernels::emitScaleSwizzle(kb, into, (prefix + "_swizzle").str(),
                                           spec, input, output);
        },
        token);
  }
}

void EntryLowering::lowerDerivedUsage(OpBuilder &b, UpdateUsageOp view,
                                      Value &token) {
  Location loc = view.getLoc();
  TensorProtoType to = view.getResult().getType();
  std::vector<int64_t> shape(to.getShape().begin(), to.getShape().end());
  layout::Flat2D flat = layout::flatten2D(shape);
  llvm::StringMap<NamedBuffer> out =
      buffersByName(to, target, buffersOfValue.lookup(view.getResult()));
  for (const layout::BufferDesc &desc : to.getBuffers(target)) {
    Value dest = out.lookup(desc.name).value;
    if (desc.name != "transpose") {
      copyBuffer(b, loc, namedBuffer(view.getInput(), desc.name), dest, token);
      continue;
    }
    Value data = namedBuffer(view.getInput(), "data");
    launchKernel(
        b, loc, "t",
        [&](ImplicitLocOpBuilder &kb, gpu::GPUModuleOp into, StringRef prefix) {
          return kernels::emitTranspose(kb, into, (prefix + "_transpose").str(),
                                        data, dest, flat.m, flat.k);
        },
        token);
  }
}

void EntryLowering::aliasUsageView(UpdateUsageOp view) {
  // The view's buffers are those of its input with the same TE name.
  TensorProtoType to = view.getResult().getType();
  for (const layout::BufferDesc &desc : to.getBuffers(target))
    buffersOfValue[view.getResult()].push_back(
        namedBuffer(view.getInput(), desc.name));
}

void EntryLowering::lowerSlice(OpBuilder &b, Operation &op, Value &token) {
  auto slice = cast<OffsetSizeAndStrideOpInterface>(op);
  auto insert = dyn_cast<tensor::InsertSliceOp>(op);
  Value full = insert ? insert.getDest() : op.getOperand(0);
  kernels::SliceSpec spec;
  spec.fullShape.assign(cast<RankedTensorType>(full.getType()).getShape());
  spec.offsets.assign(slice.getStaticOffsets());
  spec.sizes.assign(slice.getStaticSizes());
  spec.strides.assign(slice.getStaticStrides());
  spec.scatter = static_cast<bool>(insert);
  StringRef suffix = insert ? "_insert_slice" : "_extract_slice";
  Value result = buffersOfValue.lookup(op.getResult(0)).front();
  if (insert)
    copyInto(b, full, {result}, token);
  Value part = insert ? buffersOfValue.lookup(insert.getSource()).front()
                      : result;
  Value fullBuffer = insert ? result : buffersOfValue.lookup(full).front();
  launchKernel(
      b, op.getLoc(), "s",
      [&](ImplicitLocOpBuilder &kb, gpu::GPUModuleOp into, StringRef prefix) {
        return kernels::emitSlice(kb, into, (prefix + suffix).str(), spec,
                                  fullBuffer, part);
      },
      token);
}

void EntryLowering::lowerElementwise(OpBuilder &b,
                                     const ElementwiseCluster &cluster,
                                     Value &token) {
  // Nothing reads a cluster without outputs (dead code).
  if (cluster.outputs.empty())
    return;
  SmallVector<Value> inputBuffers, outputBuffers;
  for (Value input : cluster.inputs)
    inputBuffers.push_back(buffersOfValue.lookup(input).front());
  for (Value output : cluster.outputs)
    outputBuffers.push_back(buffersOfValue.lookup(output).front());
  kernels::ElementwiseKernel kernel{cluster.ops, cluster.inputs, inputBuffers,
                                    cluster.outputs, outputBuffers};
  std::string suffix = kernels::elementwiseKernelSuffix(cluster.ops);
  launchKernel(
      b, cluster.launchAt->getLoc(), "e",
      [&](ImplicitLocOpBuilder &kb, gpu::GPUModuleOp into, StringRef prefix) {
        return kernels::emitElementwise(kb, into, (prefix + suffix).str(),
                                        kernel);
      },
      token);
}

void EntryLowering::lowerBiasGrad(OpBuilder &b, BiasGradOp op,
                                  Value &token) {
  launchGroup(
      b, op.getLoc(), "b",
      [&](ImplicitLocOpBuilder &kb, gpu::GPUModuleOp into, StringRef prefix) {
        return kernels::emitBiasGrad(
            kb, into, prefix, biasGradSpec(op),
            buffersOfValue.lookup(op.getInput()).front(),
            scratchOf.lookup(op.getOperation()),
            buffersOfValue.lookup(op.getResult()).front());
      },
      token);
}

void EntryLowering::copyInto(OpBuilder &b, Value value,
                             ArrayRef<Value> destination, Value &token) {
  // Buffers pair up in layout order; a view's are a named subset of its
  // input's, in the same order.
  SmallVector<Value> sources = buffersOfValue.lookup(value);
  for (auto [source, dest] : llvm::zip(sources, destination))
    copyBuffer(b, func.getLoc(), source, dest, token);
}

void EntryLowering::copyBuffer(OpBuilder &b, Location loc, Value source,
                               Value dest, Value &token) {
  launchKernel(
      b, loc, "c",
      [&](ImplicitLocOpBuilder &kb, gpu::GPUModuleOp into, StringRef prefix) {
        return kernels::emitCopy(kb, into, (prefix + "_copy").str(), source,
                                 dest);
      },
      token);
}

void EntryLowering::launch(OpBuilder &b, Location loc,
                           const kernels::KernelLaunch &k, Value &token) {
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value smem;
  if (k.sharedBytes > 0)
    smem = arith::ConstantIntOp::create(b, loc, b.getI32Type(), k.sharedBytes);
  // A programmatic dependent of the launch before it (NVFP4's data kernel
  // after its amax pass): the runtime launches it with the attribute.
  if (k.dependentLaunch)
    manifest.addDependentLaunch(k.kernel);
  auto symbol = SymbolRefAttr::get(
      b.getStringAttr(kKernelModule),
      {FlatSymbolRefAttr::get(b.getStringAttr(k.kernel))});
  auto op = gpu::LaunchFuncOp::create(
      b, loc, symbol, gpu::KernelDim3{c(k.gridX), c(k.gridY), c(1)},
      gpu::KernelDim3{c(k.blockX), c(1), c(1)}, smem, k.args,
      b.getType<gpu::AsyncTokenType>(), ValueRange{token});
  token = op.getAsyncToken();
}

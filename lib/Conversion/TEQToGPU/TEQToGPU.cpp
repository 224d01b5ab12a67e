//===- TEQToGPU.cpp - teq entry functions to kernels + launches -----------===//

#include "GemmDescriptor.h"
#include "Kernels/Auxiliary.h"
#include "Kernels/BiasGrad.h"
#include "Kernels/BlockFP8.h"
#include "Kernels/DelayedScalingUpdate.h"
#include "Kernels/Elementwise.h"
#include "Kernels/LibdeviceFree.h"
#include "Kernels/MXFP8.h"
#include "Kernels/NVFP4.h"
#include "Kernels/PerTensorFP8.h"
#include "MemoryPlan.h"
#include "teq/Conversion/Passes.h"
#include "teq/Conversion/TEQToGPU/Targets.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <functional>

namespace mlir::teq {
#define GEN_PASS_DEF_CONVERTTEQTOGPU
#include "teq/Conversion/Passes.h.inc"
} // namespace mlir::teq

using namespace mlir;
using namespace mlir::teq;
namespace layout = ::mlir::teq::layout;

namespace {

constexpr llvm::StringLiteral kKernelModule = "teq_kernels";
/// The runtime function running one GEMM of the manifest (docs/Artifact.md).
constexpr llvm::StringLiteral kGemmFunction = "teqGemm";

/// One device buffer of an entry argument.
struct Buffer {
  std::string name;
  MemRefType type;
  int64_t bytes;
  llvm::json::Object describe;
};

std::string dtypeName(Type t) {
  if (t.isBF16())
    return "bf16";
  if (t.isF16())
    return "f16";
  if (t.isF32())
    return "f32";
  if (t.isInteger(64))
    return "i64";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

llvm::json::Array jsonShape(ArrayRef<int64_t> shape) {
  llvm::json::Array a;
  for (int64_t d : shape)
    a.push_back(d);
  return a;
}

/// The buffers of a tensor or quantized-tensor type on `target`.
FailureOr<SmallVector<Buffer>> buffersOf(Type type, TargetAttr target,
                                         Location loc) {
  MLIRContext *ctx = type.getContext();
  SmallVector<Buffer> buffers;
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    Type element = tensor.getElementType();
    // i64 only as the (seed, offset) of stochastic rounding: a 16-byte
    // buffer the kernels read.
    bool rngState = element.isInteger(64) &&
                    tensor.getShape() == ArrayRef<int64_t>{2};
    if (!element.isBF16() && !element.isF16() && !element.isF32() &&
        !rngState)
      return emitError(loc) << "entry tensors must be bf16, f16 or f32 (or "
                               "tensor<2xi64>, the rng_state of stochastic "
                               "rounding), got "
                            << tensor;
    int64_t bytes = tensor.getNumElements() * element.getIntOrFloatBitWidth() / 8;
    buffers.push_back({"tensor",
                       MemRefType::get({tensor.getNumElements()}, element),
                       bytes, {}});
    return buffers;
  }
  auto proto = dyn_cast<TensorProtoType>(type);
  if (!proto)
    return emitError(loc) << "entry arguments and results must be tensors or "
                             "!teq.proto, got "
                          << type;
  for (const layout::BufferDesc &desc : proto.getBuffers(target)) {
    Type element = desc.encoding == layout::Encoding::F32
                       ? Type(Float32Type::get(ctx))
                       : Type(IntegerType::get(ctx, 8));
    llvm::json::Object d{{"name", desc.name},
                         {"encoding", layout::stringifyEncoding(desc.encoding)},
                         {"shape", jsonShape(desc.shape)},
                         {"valid_shape", jsonShape(desc.validShape)},
                         {"bytes", desc.sizeInBytes()}};
    if (desc.transposed)
      d["transposed"] = true;
    if (desc.scaleLayout)
      d["scale_layout"] = *desc.scaleLayout == layout::ScaleLayout::GemmSwizzled
                              ? "gemm_swizzled"
                              : "compact";
    buffers.push_back({desc.name, MemRefType::get({desc.numElements()}, element),
                       desc.sizeInBytes(), std::move(d)});
  }
  return buffers;
}

llvm::json::Object describeQuantizer(QuantizerAttrInterface q) {
  auto fp8 = [](Type t) { return isa<Float8E5M2Type>(t) ? "e5m2" : "e4m3"; };
  if (auto cs = dyn_cast<Float8CurrentScalingQuantizerAttr>(q))
    return llvm::json::Object{{"kind", "float8_current_scaling"},
            {"fp8_dtype", fp8(cs.getFp8Dtype())},
            {"with_amax_reduction", cs.getWithAmaxReduction()},
            {"force_pow_2_scales", cs.getForcePow_2Scales()},
            {"amax_epsilon", cs.getAmaxEpsilon().convertToDouble()}};
  if (auto d = dyn_cast<Float8QuantizerAttr>(q))
    return llvm::json::Object{{"kind", "float8_delayed"},
                              {"fp8_dtype", fp8(d.getFp8Dtype())}};
  if (auto b = dyn_cast<Float8BlockQuantizerAttr>(q))
    return llvm::json::Object{{"kind", "float8_block"},
            {"fp8_dtype", fp8(b.getFp8Dtype())},
            {"block_scaling_dim", b.getBlockScalingDim()},
            {"force_pow_2_scales", b.getForcePow_2Scales()},
            {"amax_epsilon", b.getAmaxEpsilon().convertToDouble()}};
  if (auto mx = dyn_cast<MXFP8QuantizerAttr>(q))
    return llvm::json::Object{{"kind", "mxfp8"},
            {"fp8_dtype", fp8(mx.getFp8Dtype())},
            {"with_2d_quantization", mx.getWith_2dQuantization()}};
  auto nv = cast<NVFP4QuantizerAttr>(q);
  return llvm::json::Object{{"kind", "nvfp4"},
          {"with_rht", nv.getWithRht()},
          {"with_2d_quantization", nv.getWith_2dQuantization()},
          {"stochastic_rounding", nv.getStochasticRounding()},
          {"with_post_rht_amax", nv.getWithPostRhtAmax()},
          {"with_random_sign_mask", nv.getWithRandomSignMask()},
          {"nvfp4_use_4over6", nv.getNvfp4Use_4over6()},
          {"row_scaled_nvfp4", nv.getRowScaledNvfp4()},
          {"with_amax_reduction", nv.getWithAmaxReduction()}};
}

/// The entry argument description for the manifest.
llvm::json::Object describeArgument(StringRef name, StringRef kind, Type type,
                                    ArrayRef<Buffer> buffers) {
  llvm::json::Object arg{{"name", name.str()}, {"kind", kind.str()}};
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    arg["tensor"] = llvm::json::Object{
        {"dtype", dtypeName(tensor.getElementType())},
        {"shape", jsonShape(tensor.getShape())}};
    return arg;
  }
  auto proto = cast<TensorProtoType>(type);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << proto;
  arg["proto"] = llvm::json::Object{
      {"dtype", dtypeName(proto.getElementType())},
      {"shape", jsonShape(proto.getShape())},
      {"quantizer", describeQuantizer(proto.getQuantizer())},
      {"usage", stringifyUsage(proto.getUsage())},
      {"scale_layout", stringifyScaleLayout(proto.getScaleLayout()).str()},
      {"text", text}};
  llvm::json::Array list;
  for (const Buffer &b : buffers)
    list.push_back(llvm::json::Object(b.describe));
  arg["buffers"] = std::move(list);
  return arg;
}

kernels::InputType inputTypeOf(Type element) {
  if (element.isF32())
    return kernels::InputType::F32;
  if (element.isF16())
    return kernels::InputType::F16;
  return kernels::InputType::BF16;
}

/// An arith/math op applied elementwise to same-shaped high-precision
/// tensors (a Linear's neighbours: activations, gradient sums). It becomes
/// one kernel that computes in f32 and rounds once to the result type.
bool isElementwiseOnTensors(Operation &op) {
  if (!op.hasTrait<OpTrait::Elementwise>() || op.getNumResults() != 1 ||
      op.getNumRegions() != 0 ||
      !isa<arith::ArithDialect, math::MathDialect>(op.getDialect()))
    return false;
  auto resultType = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  if (!resultType)
    return false;
  auto highPrecision = [](Type t) {
    return t.isBF16() || t.isF16() || t.isF32();
  };
  if (!highPrecision(resultType.getElementType()))
    return false;
  for (Type t : op.getOperandTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || tensor.getShape() != resultType.getShape() ||
        !highPrecision(tensor.getElementType()))
      return false;
  }
  return true;
}

/// Whether `name` is a block-scale buffer (TE's *_scale_inv of MXFP8/NVFP4).
bool isScaleBuffer(StringRef name) {
  return name == "rowwise_scale_inv" || name == "columnwise_scale_inv";
}

/// Whether the target has Blackwell's arch-specific E2M1 / UE8M0
/// conversions (cvt.rn.satfinite.e2m1x2, cvt.rp.satfinite.ue8m0x2): sm_100a
/// and later `a` targets. Elsewhere exact software conversions stand in.
bool hasBlackwellConversions(TargetAttr target) {
  return target.getSm() >= 100 && target.getSuffix() == "a";
}

/// Entry values become buffers of a size fixed at compile time: static,
/// non-empty shapes whose bytes fit the runtime's 2^48-byte limit
/// (docs/Artifact.md), checked before any size is computed.
LogicalResult checkBufferShape(Type type, Location loc) {
  ArrayRef<int64_t> shape;
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    shape = tensor.getShape();
  else if (auto proto = dyn_cast<TensorProtoType>(type))
    shape = proto.getShape();
  else
    return success();
  if (ShapedType::isDynamicShape(shape))
    return emitError(loc) << "entry values need static shapes (buffers are "
                             "planned at compile time), got "
                          << type;
  constexpr int64_t kMaxBytes = int64_t(1) << 48;
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d == 0)
      return emitError(loc) << "empty tensors have no GPU lowering, got "
                            << type;
    // 4 bytes an element at most: the f32 tensors and their copies.
    if (llvm::MulOverflow(elements, d, elements) || elements > kMaxBytes / 4)
      return emitError(loc) << type << " is too large: entry buffers are "
                               "limited to 2^48 bytes";
  }
  return success();
}

/// The op's lowering, or an error naming what is not supported yet.
LogicalResult checkLowerable(Operation &op) {
  for (Type type : llvm::concat<Type>(op.getOperandTypes(), op.getResultTypes()))
    if (failed(checkBufferShape(type, op.getLoc())))
      return failure();
  if (auto view = dyn_cast<UpdateUsageOp>(op)) {
    // A view aliases its input's buffers; a usage that needs a buffer the
    // input lacks (a transposed copy) would need a transpose kernel.
    llvm::StringSet<> held;
    TargetAttr target = TargetAttr::lookup(&op);
    for (const layout::BufferDesc &d :
         view.getInput().getType().getBuffers(target))
      held.insert(d.name);
    for (const layout::BufferDesc &d :
         view.getResult().getType().getBuffers(target))
      if (!held.contains(d.name))
        return op.emitOpError("derives buffer '")
               << d.name << "' its input does not hold (" << target.getChip()
               << "); deriving a usage has no GPU lowering yet: quantize with "
                  "every usage the program reads";
  }
  if (isa<func::ReturnOp, DelayedScalingUpdateOp, UpdateUsageOp,
          SwizzleScalesOp, GemmOp, BiasGradOp>(op))
    return success();
  if (isElementwiseOnTensors(op))
    return success();
  if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(op)) {
    // Delayed-scaling state slices (teq-decompose-linear).
    auto slice = cast<OffsetSizeAndStrideOpInterface>(op);
    if (!slice.getOffsets().empty() || !slice.getSizes().empty() ||
        !slice.getStrides().empty())
      return op.emitOpError("has dynamic offsets, sizes or strides; only "
                            "static slices are lowered");
    return success();
  }
  auto quantize = dyn_cast<QuantizeOp>(op);
  if (!quantize)
    return op.emitOpError("has no GPU lowering yet; convert-teq-to-gpu "
                          "lowers teq.quantize, teq.update_usage, "
                          "teq.swizzle_scales, teq.gemm, "
                          "teq.bias_grad, teq.delayed_scaling_update and "
                          "elementwise arith/math ops on bf16/f16/f32 "
                          "tensors of one shape in this version");
  QuantizerAttrInterface q = quantize.getResult().getType().getQuantizer();
  if (isa<Float8QuantizerAttr>(q))
    return success();
  if (isa<Float8BlockQuantizerAttr, MXFP8QuantizerAttr>(q))
    return success();
  if (auto nv = dyn_cast<NVFP4QuantizerAttr>(q)) {
    // Round-to-nearest and stochastic rounding, 1D and 2D, and RHT are
    // lowered; the rest needs kernels of its own (te-semantics.md §5.5).
    // (with_rht without with_post_rht_amax, or on non-bf16 input, does not
    // verify.)
    const char *missing =
        nv.getWithRht() && !nv.getWithRandomSignMask()
            ? "with_rht but not with_random_sign_mask"
                          : nv.getRowScaledNvfp4()     ? "row_scaled_nvfp4"
                          : nv.getNvfp4Use_4over6()    ? "nvfp4_use_4over6"
                          : nv.getWithAmaxReduction()  ? "with_amax_reduction"
                                                       : nullptr;
    if (!missing && nv.getNvfp4E4m3Max() != 448)
      missing = "nvfp4_e4m3_max other than 448";
    TensorProtoType proto = quantize.getResult().getType();
    if (!missing && nv.getWithRht() &&
        proto.hasColumnwise()) {
      int64_t m = layout::flatten2D(std::vector<int64_t>(
                                        proto.getShape().begin(),
                                        proto.getShape().end()))
                      .m;
      if (nv.getWith_2dQuantization())
        return op.emitOpError("NVFP4 RHT cannot be combined with 2D (16x16) "
                              "quantization");
      if (m % 16 != 0)
        return op.emitOpError("NVFP4 RHT transforms groups of 16 rows: M = ")
               << m << " must be a multiple of 16";
    }
    if (missing)
      return op.emitOpError("NVFP4Quantizer with ")
             << missing
             << " has no GPU lowering yet (this version lowers NVFP4 with "
                "round-to-nearest or stochastic rounding, 1D and 2D, and RHT "
                "with the post-RHT amax)";
    return success();
  }
  auto cs = dyn_cast<Float8CurrentScalingQuantizerAttr>(q);
  if (!cs)
    return op.emitOpError("quantizing with ")
           << q.getQuantizerName()
           << " has no GPU lowering yet (this version lowers "
              "Float8CurrentScalingQuantizer, Float8Quantizer, "
              "Float8BlockQuantizer, MXFP8Quantizer and NVFP4Quantizer)";
  if (cs.getWithAmaxReduction())
    return op.emitOpError("amax reduction over a process group has no GPU "
                          "lowering yet");
  return success();
}

/// A quantization's output buffers by TE's buffer name, with their layout.
struct NamedBuffer {
  Value value;
  layout::BufferDesc desc;
};
llvm::StringMap<NamedBuffer> buffersByName(TensorProtoType proto,
                                           TargetAttr target,
                                           ArrayRef<Value> outputs) {
  llvm::StringMap<NamedBuffer> named;
  for (auto [desc, value] : llvm::zip(proto.getBuffers(target), outputs))
    named[desc.name] = {value, desc};
  return named;
}

/// The data and scale buffers of a block-scaled quantization (MXFP8, NVFP4)
/// whose scale padding must read as zero (te-semantics.md §4.2).
struct BlockScaledOutputs {
  Value rdata, rscale, cdata, cscale;
  int64_t rowScaleRows = 0, rowScaleCols = 0, rowScaleBytes = 0;
  int64_t colScaleRows = 0, colScaleCols = 0, colScaleBytes = 0;

  explicit BlockScaledOutputs(llvm::StringMap<NamedBuffer> &named) {
    rdata = named.lookup("rowwise_data").value;
    rscale = named.lookup("rowwise_scale_inv").value;
    cdata = named.lookup("columnwise_data").value;
    cscale = named.lookup("columnwise_scale_inv").value;
    if (rscale) {
      const layout::BufferDesc &d = named["rowwise_scale_inv"].desc;
      rowScaleRows = d.shape[0];
      rowScaleCols = d.shape[1];
      rowScaleBytes = d.sizeInBytes();
    }
    if (cscale) {
      const layout::BufferDesc &d = named["columnwise_scale_inv"].desc;
      colScaleRows = d.shape[0];
      colScaleCols = d.shape[1];
      colScaleBytes = d.sizeInBytes();
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

/// The shape and types of a bias gradient.
kernels::BiasGradSpec biasGradSpec(BiasGradOp op) {
  auto input = cast<RankedTensorType>(op.getInput().getType());
  kernels::BiasGradSpec spec;
  spec.cols = op.getResult().getType().getNumElements();
  spec.rows = input.getNumElements() / spec.cols;
  spec.input = inputTypeOf(input.getElementType());
  spec.output = inputTypeOf(op.getResult().getType().getElementType());
  return spec;
}

class EntryLowering {
public:
  EntryLowering(func::FuncOp func, TargetAttr target,
                gpu::GPUModuleOp kernelModule, int &kernelCounter,
                llvm::json::Array &gemms,
                llvm::json::Array &dependentLaunchKernels)
      : func(func), target(target), kernelModule(kernelModule),
        kernelCounter(kernelCounter), gemms(gemms),
        dependentLaunchKernels(dependentLaunchKernels) {}

  FailureOr<llvm::json::Object> run();

private:
  LogicalResult lowerQuantize(OpBuilder &b, QuantizeOp op,
                              ArrayRef<Value> outputs, Value updatedHistory,
                              Value &token);
  LogicalResult lowerBlockQuantize(OpBuilder &b, QuantizeOp op,
                                   ArrayRef<Value> outputs, Value &token);
  LogicalResult lowerMXFP8Quantize(OpBuilder &b, QuantizeOp op,
                                   ArrayRef<Value> outputs, Value &token);
  LogicalResult lowerNVFP4Quantize(OpBuilder &b, QuantizeOp op,
                                   ArrayRef<Value> outputs, Value &token);
  void lowerUpdate(OpBuilder &b, DelayedScalingUpdateOp op, Value &token);
  /// Copies `value`'s buffers into `destination` (a result's buffers).
  void copyInto(OpBuilder &b, Value value, ArrayRef<Value> destination,
                Value &token);
  void copyBuffer(OpBuilder &b, Location loc, Value source, Value dest,
                  Value &token);
  /// Buffer `name` (TE's) of the quantized value `v`.
  Value namedBuffer(Value v, StringRef name) {
    return buffersByName(cast<TensorProtoType>(v.getType()), target,
                         buffersOfValue.lookup(v))
        .lookup(name)
        .value;
  }
  /// A usage view shares its input's buffers of the same name.
  void aliasUsageView(UpdateUsageOp view);
  /// The swizzled scales, written by the swizzle kernel; the data and amax
  /// buffers are the input's (copied only into an entry result's buffers).
  void lowerSwizzleScales(OpBuilder &b, SwizzleScalesOp op, Value &token);
  /// Launches what a kernel emitter asked for, after `token`.
  void launch(OpBuilder &b, Location loc, const kernels::KernelLaunch &k,
              Value &token);
  /// One teqGemm call (docs/Artifact.md) on the runtime's stream.
  void lowerGemm(OpBuilder &b, GemmOp op, const gemm::GemmDescriptor &desc,
                 Value &token);
  /// extract_slice: a gather into the result; insert_slice: a copy of the
  /// destination, then a scatter of the source (both results are new
  /// buffers, so the operands stay intact).
  void lowerSlice(OpBuilder &b, Operation &op, Value &token);
  /// One grid-stride kernel applying `op` to each element in f32.
  void lowerElementwise(OpBuilder &b, Operation &op, Value &token);
  /// Column sums in two ordered passes through scratch partials.
  void lowerBiasGrad(OpBuilder &b, BiasGradOp op, Value &token);
  /// Launches the kernel computing an NVFP4 GEMM's alpha; returns its buffer.
  Value lowerNVFP4Alpha(OpBuilder &b, GemmOp op,
                        const gemm::GemmDescriptor &desc, Value &token);
  llvm::json::Object
  describeComputation(Value v, llvm::function_ref<std::string(Value)> nameOf);
  /// The fields every kernel spec shares: a fresh kernel-name prefix, the
  /// flattened M x K shape and the input type. Returns that shape.
  template <typename Spec>
  layout::Flat2D initSpec(Spec &spec, TensorProtoType proto) {
    layout::Flat2D flat = layout::flatten2D(std::vector<int64_t>(
        proto.getShape().begin(), proto.getShape().end()));
    spec.prefix = "q" + std::to_string(kernelCounter++);
    spec.rows = flat.m;
    spec.cols = flat.k;
    spec.input = inputTypeOf(proto.getElementType());
    return flat;
  }

  func::FuncOp func;
  TargetAttr target;
  gpu::GPUModuleOp kernelModule;
  int &kernelCounter;
  /// The artifact's "gemms" (ids are indices, shared by all entries).
  llvm::json::Array &gemms;
  /// The artifact's "dependent_launch_kernels": kernels the runtime launches
  /// as programmatic dependents of the kernel before them.
  llvm::json::Array &dependentLaunchKernels;
  DenseMap<Operation *, int64_t> gemmIds;
  /// Workspace scratch of one op (see run()).
  DenseMap<Operation *, Value> scratchOf;
  DenseMap<Value, SmallVector<Value>> buffersOfValue;
};

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
  llvm::StringMap<NamedBuffer> named = buffersByName(proto, target, outputs);
  // The kernel writes the scale padding itself: no zero-fill.
  BlockScaledOutputs outs(named);
  outs.describeInto(spec);
  ImplicitLocOpBuilder kb(op.getLoc(), b);
  launch(b, op.getLoc(),
         kernels::emitBlockFP8(
             kb, kernelModule, spec,
             outs.tileBuffers(buffersOfValue.lookup(op.getInput()).front())),
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
  std::string name = "u" + std::to_string(kernelCounter++) + "_update";
  ImplicitLocOpBuilder kb(op.getLoc(), b);
  launch(b, op.getLoc(),
         kernels::emitDelayedScalingUpdate(
             kb, kernelModule, name, spec,
             buffersOfValue.lookup(op.getScale()).front(),
             buffersOfValue.lookup(op.getAmaxHistory()).front(),
             buffersOfValue.lookup(op.getUpdatedScale()).front(),
             buffersOfValue.lookup(op.getUpdatedAmaxHistory()).front()),
         token);
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
  llvm::StringMap<NamedBuffer> named = buffersByName(proto, target, outputs);
  BlockScaledOutputs outs(named);
  outs.describeInto(spec);
  // The kernel writes every scale byte, padding included: no zero-fill.
  ImplicitLocOpBuilder kb(op.getLoc(), b);
  launch(b, op.getLoc(),
         kernels::emitMXFP8(
             kb, kernelModule, spec,
             outs.tileBuffers(buffersOfValue.lookup(op.getInput()).front())),
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
  spec.dependentLaunch = target.getSm() >= 90;
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
  ImplicitLocOpBuilder kb(op.getLoc(), b);
  for (const kernels::KernelLaunch &k :
       kernels::emitNVFP4Quantize(kb, kernelModule, spec, buffers)) {
    // The data kernel follows its amax pass directly on the stream.
    if (k.dependentLaunch)
      dependentLaunchKernels.push_back(k.kernel);
    launch(b, op.getLoc(), k, token);
  }
  return success();
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
  ImplicitLocOpBuilder kb(op.getLoc(), b);
  for (const kernels::KernelLaunch &k :
       kernels::emitPerTensorFP8(kb, kernelModule, spec, buffers))
    launch(b, op.getLoc(), k, token);
  return success();
}

/// The manifest's description of how `v` is computed, naming values as
/// `nameOf` does (te-run's --check recomputes it on the CPU).
llvm::json::Object EntryLowering::describeComputation(
    Value v, llvm::function_ref<std::string(Value)> nameOf) {
  if (auto quantize = v.getDefiningOp<QuantizeOp>()) {
    bool isHistory = v == quantize.getUpdatedAmaxHistory();
    llvm::json::Object by{{"op", isHistory ? "record_amax" : "quantize"},
                          {"input", nameOf(quantize.getInput())}};
    if (quantize.getScale()) {
      by["scale"] = nameOf(quantize.getScale());
      by["amax_history"] = nameOf(quantize.getAmaxHistory());
    }
    if (Value rng = quantize.getRngState())
      by["rng_state"] = nameOf(rng);
    return by;
  }
  if (auto update = v.getDefiningOp<DelayedScalingUpdateOp>())
    return llvm::json::Object{
        {"op", "delayed_scaling_update"},
        {"output", v == update.getUpdatedScale() ? "scale" : "amax_history"},
        {"scale", nameOf(update.getScale())},
        {"amax_history", nameOf(update.getAmaxHistory())},
        {"fp8_max", getFormatMax(update.getFp8Dtype())},
        {"margin", update.getMarginAttr().getValue().getSExtValue()},
        {"amax_compute_algo",
         stringifyAmaxComputeAlgo(update.getAmaxComputeAlgo()).str()}};
  if (auto biasGrad = v.getDefiningOp<BiasGradOp>())
    return llvm::json::Object{{"op", "bias_grad"},
                              {"input", nameOf(biasGrad.getInput())}};
  if (auto usage = v.getDefiningOp<UpdateUsageOp>())
    return llvm::json::Object{{"op", "update_usage"},
                              {"input", nameOf(usage.getInput())}};
  if (auto swizzle = v.getDefiningOp<SwizzleScalesOp>())
    return llvm::json::Object{{"op", "swizzle_scales"},
                              {"input", nameOf(swizzle.getInput())}};
  if (auto gemmOp = v.getDefiningOp<GemmOp>()) {
    llvm::json::Object by{
        {"op", "gemm"},
        {"gemm", gemmIds.lookup(gemmOp.getOperation())},
        {"output", v == gemmOp.getResult() ? "d" : "dbias"},
        {"layout", stringifyGemmLayout(gemmOp.getLayout()).str()},
        {"a", nameOf(gemmOp.getA())},
        {"b", nameOf(gemmOp.getB())},
        {"use_split_accumulator", gemmOp.getUseSplitAccumulator()}};
    if (Value bias = gemmOp.getBias())
      by["bias"] = nameOf(bias);
    if (Value c = gemmOp.getAccumulate())
      by["accumulate"] = nameOf(c);
    return by;
  }
  if (isa_and_nonnull<tensor::ExtractSliceOp, tensor::InsertSliceOp>(
          v.getDefiningOp())) {
    auto slice = cast<OffsetSizeAndStrideOpInterface>(v.getDefiningOp());
    auto list = [](ArrayRef<int64_t> values) {
      llvm::json::Array a;
      for (int64_t x : values)
        a.push_back(x);
      return a;
    };
    llvm::json::Object by{
        {"op", v.getDefiningOp()->getName().getStringRef().str()},
        {"offsets", list(slice.getStaticOffsets())},
        {"sizes", list(slice.getStaticSizes())},
        {"strides", list(slice.getStaticStrides())}};
    if (auto insert = v.getDefiningOp<tensor::InsertSliceOp>()) {
      by["input"] = nameOf(insert.getSource());
      by["dest"] = nameOf(insert.getDest());
    } else {
      by["input"] = nameOf(v.getDefiningOp()->getOperand(0));
    }
    return by;
  }
  if (Operation *op = v.getDefiningOp(); op && isElementwiseOnTensors(*op)) {
    llvm::json::Array inputs;
    for (Value operand : op->getOperands())
      inputs.push_back(nameOf(operand));
    return llvm::json::Object{{"op", op->getName().getStringRef().str()},
                              {"inputs", std::move(inputs)}};
  }
  return llvm::json::Object{};
}

FailureOr<llvm::json::Object> EntryLowering::run() {
  Location loc = func.getLoc();
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("entry functions must be one block");
  Block &entryBlock = func.getBody().front();
  for (BlockArgument arg : entryBlock.getArguments())
    if (failed(checkBufferShape(arg.getType(), func.getLoc())))
      return failure();
  for (Operation &op : entryBlock)
    if (failed(checkLowerable(op)))
      return failure();
  auto ret = cast<func::ReturnOp>(entryBlock.getTerminator());

  // Returned values live in the caller's output buffers; the rest
  // (temporaries) in the workspace. A result that is an argument, a usage
  // view or a value returned before is a copy made at the end.
  DenseMap<Value, unsigned> resultIndexOf;
  SmallVector<std::pair<unsigned, Value>> copiedResults;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    if (isa<BlockArgument>(v) || v.getDefiningOp<UpdateUsageOp>() ||
        resultIndexOf.count(v))
      copiedResults.push_back({static_cast<unsigned>(i), v});
    else
      resultIndexOf[v] = static_cast<unsigned>(i);
  }

  // GEMMs get artifact-wide ids and their cuBLASLt descriptions first, so
  // every error surfaces before any IR is built.
  std::vector<std::pair<GemmOp, gemm::GemmDescriptor>> gemmDescs;
  for (auto gemmOp : entryBlock.getOps<GemmOp>()) {
    FailureOr<gemm::GemmDescriptor> desc = gemm::describeGemm(gemmOp, target);
    if (failed(desc))
      return failure();
    std::string kindName =
        gemmOp.getKind() ? stringifyGemmKind(*gemmOp.getKind()).str() : "gemm";
    std::string gemmName = func.getSymName().str() + ":" + kindName +
                           std::to_string(gemmDescs.size());
    int64_t id = static_cast<int64_t>(gemms.size());
    gemmIds[gemmOp.getOperation()] = id;
    gemms.push_back(desc->toJson(id, gemmName));
    gemmDescs.push_back({gemmOp, *desc});
  }

  // Temporaries: every value computed and not returned, except usage views
  // (they alias their input's buffers). Lifetimes run to the last use,
  // through views.
  DenseMap<Operation *, int64_t> opIndex;
  for (auto [i, op] : llvm::enumerate(entryBlock.getOperations()))
    opIndex[&op] = static_cast<int64_t>(i);
  DenseMap<Operation *, const gemm::GemmDescriptor *> descOf;
  for (auto &[gemmOp, desc] : gemmDescs)
    descOf[gemmOp.getOperation()] = &desc;
  // The last op reading buffer `name` of `v`. Lifetimes are per buffer: a
  // GEMM reads only the copy its layout needs (after the fprop, x's rowwise
  // data is dead while its transpose waits for wgrad), and usage views
  // share their input's buffers of the same name.
  std::function<int64_t(Value, StringRef)> lastUse = [&](Value v,
                                                          StringRef name) {
    int64_t last = opIndex.lookup(v.getDefiningOp());
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto view = dyn_cast<UpdateUsageOp>(user)) {
        for (const layout::BufferDesc &d :
             view.getResult().getType().getBuffers(target))
          if (d.name == name)
            last = std::max(last, lastUse(view.getResult(), name));
        continue;
      }
      // A swizzle reads the input's scales and passes on its other buffers.
      if (auto swizzle = dyn_cast<SwizzleScalesOp>(user)) {
        last = std::max(last, opIndex.lookup(user));
        if (!isScaleBuffer(name) && !resultIndexOf.count(swizzle.getResult()))
          last = std::max(last, lastUse(swizzle.getResult(), name));
        continue;
      }
      auto gemmOp = dyn_cast<GemmOp>(user);
      if (gemmOp && isa<TensorProtoType>(v.getType()) &&
          (&use == &gemmOp.getAMutable() || &use == &gemmOp.getBMutable())) {
        const gemm::OperandBuffers &reads = &use == &gemmOp.getAMutable()
                                                ? descOf.lookup(user)->a
                                                : descOf.lookup(user)->b;
        if (name != reads.data && name != reads.scale && name != reads.amax)
          continue;
      }
      last = std::max(last, opIndex.lookup(user));
    }
    return last;
  };
  SmallVector<Value> temporaries;
  SmallVector<SmallVector<Buffer>> temporaryBuffers;
  std::vector<TemporaryBuffer> plan;
  // A swizzle's temporary result owns only its scales (see lastUse).
  auto aliasesInput = [&](Operation &op, const Buffer &buffer) {
    return isa<SwizzleScalesOp>(op) && !isScaleBuffer(buffer.name);
  };
  for (Operation &op : entryBlock) {
    if (isa<UpdateUsageOp, func::ReturnOp>(op))
      continue;
    for (Value result : op.getResults()) {
      if (resultIndexOf.count(result))
        continue;
      FailureOr<SmallVector<Buffer>> buffers =
          buffersOf(result.getType(), target, op.getLoc());
      if (failed(buffers))
        return failure();
      for (const Buffer &b : *buffers)
        if (!aliasesInput(op, b))
          plan.push_back(
              {b.bytes, opIndex.lookup(&op), lastUse(result, b.name), -1});
      temporaries.push_back(result);
      temporaryBuffers.push_back(std::move(*buffers));
    }
  }
  // Scratch that lives for one op: an NVFP4 GEMM's device alpha, a bias
  // gradient's partial sums.
  SmallVector<std::pair<Operation *, MemRefType>> scratch;
  auto f32 = Float32Type::get(func.getContext());
  for (auto &[gemmOp, desc] : gemmDescs)
    if (desc.alphaOnDevice)
      scratch.push_back({gemmOp.getOperation(), MemRefType::get({1}, f32)});
  for (auto biasGrad : entryBlock.getOps<BiasGradOp>())
    scratch.push_back(
        {biasGrad.getOperation(),
         MemRefType::get({kernels::biasGradChunks(biasGradSpec(biasGrad)) *
                          biasGrad.getResult().getType().getNumElements()},
                         f32)});
  for (auto &[op, type] : scratch) {
    int64_t at = opIndex.lookup(op);
    plan.push_back({type.getNumElements() * 4, at, at, -1});
  }
  int64_t workspaceBytes = planWorkspace(plan);

  DenseMap<Value, std::string> temporaryName;
  for (auto [i, v] : llvm::enumerate(temporaries))
    temporaryName[v] = "t" + std::to_string(i);
  // Arguments and results are named by their teq.name attribute (the
  // Python builder's names), else arg<i> / result<i>.
  auto argName = [&](unsigned i) -> std::string {
    if (auto name = func.getArgAttrOfType<StringAttr>(
            i, TEQDialect::getNameAttrName()))
      return name.str();
    return "arg" + std::to_string(i);
  };
  auto resultName = [&](unsigned i) -> std::string {
    if (auto name = func.getResultAttrOfType<StringAttr>(
            i, TEQDialect::getNameAttrName()))
      return name.str();
    return "result" + std::to_string(i);
  };
  {
    llvm::StringSet<> seen;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (!seen.insert(argName(i)).second)
        return func.emitError() << "two arguments or results are named '"
                                << argName(i) << "'";
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
      if (!seen.insert(resultName(i)).second)
        return func.emitError() << "two arguments or results are named '"
                                << resultName(i) << "'";
  }
  std::function<std::string(Value)> nameOf = [&](Value v) -> std::string {
    if (auto a = dyn_cast<BlockArgument>(v))
      return argName(a.getArgNumber());
    if (resultIndexOf.count(v))
      return resultName(resultIndexOf.lookup(v));
    if (temporaryName.count(v))
      return temporaryName.lookup(v);
    // A usage view is named after what it views.
    if (auto view = v.getDefiningOp<UpdateUsageOp>())
      return "view(" + nameOf(view.getInput()) + ")";
    return "?";
  };

  // Flat buffer list: arguments, then results (written by the entry), then
  // the workspace.
  SmallVector<Type> memrefs;
  SmallVector<SmallVector<Buffer>> argBuffers, resultBuffers;
  llvm::json::Array args;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    FailureOr<SmallVector<Buffer>> buffers = buffersOf(type, target, loc);
    if (failed(buffers))
      return failure();
    args.push_back(describeArgument(argName(i), "input", type, *buffers));
    for (const Buffer &b : *buffers)
      memrefs.push_back(b.type);
    argBuffers.push_back(std::move(*buffers));
  }
  for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
    FailureOr<SmallVector<Buffer>> buffers = buffersOf(type, target, loc);
    if (failed(buffers))
      return failure();
    llvm::json::Object arg =
        describeArgument(resultName(i), "output", type, *buffers);
    Value returned = ret.getOperand(i);
    bool copied = llvm::any_of(copiedResults, [&](auto &c) {
      return c.first == static_cast<unsigned>(i);
    });
    llvm::json::Object by =
        copied ? llvm::json::Object{{"op", "copy"}, {"input", nameOf(returned)}}
               : describeComputation(returned, nameOf);
    if (!by.empty())
      arg["computed_by"] = std::move(by);
    args.push_back(std::move(arg));
    for (const Buffer &b : *buffers)
      memrefs.push_back(b.type);
    resultBuffers.push_back(std::move(*buffers));
  }
  llvm::json::Array temporaryList;
  for (auto [i, v] : llvm::enumerate(temporaries)) {
    llvm::json::Object t = describeArgument(temporaryName.lookup(v),
                                            "temporary", v.getType(),
                                            temporaryBuffers[i]);
    t["computed_by"] = describeComputation(v, nameOf);
    temporaryList.push_back(std::move(t));
  }
  auto workspaceType =
      MemRefType::get({workspaceBytes}, IntegerType::get(func.getContext(), 8));
  if (workspaceBytes > 0)
    memrefs.push_back(workspaceType);

  // The lowered function replaces the original under the same name.
  OpBuilder b(func);
  std::string name = func.getSymName().str();
  auto lowered = func::FuncOp::create(
      b, loc, name + ".lowered", b.getFunctionType(memrefs, {}));
  lowered->setAttr(TEQDialect::getEntryAttrName(), b.getUnitAttr());
  Block *body = lowered.addEntryBlock();
  b.setInsertionPointToStart(body);
  unsigned next = 0;
  for (auto [arg, buffers] : llvm::zip(func.getArguments(), argBuffers))
    for (size_t j = 0; j < buffers.size(); ++j)
      buffersOfValue[arg].push_back(body->getArgument(next++));
  SmallVector<SmallVector<Value>> resultMemrefs;
  for (auto [i, buffers] : llvm::enumerate(resultBuffers)) {
    SmallVector<Value> memrefsOfResult;
    for (size_t j = 0; j < buffers.size(); ++j)
      memrefsOfResult.push_back(body->getArgument(next++));
    Value value = ret.getOperand(i);
    if (resultIndexOf.lookup(value) == i && resultIndexOf.count(value))
      buffersOfValue[value] = memrefsOfResult;
    resultMemrefs.push_back(std::move(memrefsOfResult));
  }
  if (workspaceBytes > 0) {
    Value workspace = body->getArgument(next++);
    size_t planned = 0;
    for (auto [v, buffers] : llvm::zip(temporaries, temporaryBuffers))
      for (const Buffer &buffer : buffers) {
        if (aliasesInput(*v.getDefiningOp(), buffer)) {
          buffersOfValue[v].push_back(Value()); // set by lowerSwizzleScales
          continue;
        }
        Value offset = arith::ConstantIndexOp::create(
            b, loc, plan[planned++].offset);
        buffersOfValue[v].push_back(memref::ViewOp::create(
            b, loc, buffer.type, workspace, offset, ValueRange{}));
      }
    for (auto &[op, type] : scratch) {
      Value offset =
          arith::ConstantIndexOp::create(b, loc, plan[planned++].offset);
      scratchOf[op] =
          memref::ViewOp::create(b, loc, type, workspace, offset, ValueRange{});
    }
  }

  Value token =
      gpu::WaitOp::create(b, loc, b.getType<gpu::AsyncTokenType>(), ValueRange{})
          .getAsyncToken();
  size_t gemmIndex = 0;
  for (Operation &op : entryBlock) {
    if (isa<func::ReturnOp>(op))
      continue;
    if (auto update = dyn_cast<DelayedScalingUpdateOp>(op)) {
      lowerUpdate(b, update, token);
      continue;
    }
    if (auto view = dyn_cast<UpdateUsageOp>(op)) {
      aliasUsageView(view);
      continue;
    }
    if (auto swizzle = dyn_cast<SwizzleScalesOp>(op)) {
      lowerSwizzleScales(b, swizzle, token);
      continue;
    }
    if (auto gemmOp = dyn_cast<GemmOp>(op)) {
      lowerGemm(b, gemmOp, gemmDescs[gemmIndex++].second, token);
      continue;
    }
    if (auto biasGrad = dyn_cast<BiasGradOp>(op)) {
      lowerBiasGrad(b, biasGrad, token);
      continue;
    }
    if (isElementwiseOnTensors(op)) {
      lowerElementwise(b, op, token);
      continue;
    }
    if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(op)) {
      lowerSlice(b, op, token);
      continue;
    }
    auto quantize = cast<QuantizeOp>(op);
    Value updatedHistory;
    if (Value h = quantize.getUpdatedAmaxHistory())
      updatedHistory = buffersOfValue.lookup(h).front();
    if (failed(lowerQuantize(b, quantize,
                             buffersOfValue.lookup(quantize.getResult()),
                             updatedHistory, token)))
      return failure();
  }
  for (auto &[index, value] : copiedResults)
    copyInto(b, value, resultMemrefs[index], token);
  gpu::WaitOp::create(b, loc, Type(), ValueRange{token});
  func::ReturnOp::create(b, loc);

  llvm::json::Object entry{{"name", name},
                           {"symbol", "teq_entry_" + name},
                           {"args", std::move(args)}};
  if (workspaceBytes > 0)
    entry["workspace_bytes"] = workspaceBytes;
  if (!temporaryList.empty())
    entry["temporaries"] = std::move(temporaryList);
  func.erase();
  lowered.setSymName(name);
  return entry;
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
  ImplicitLocOpBuilder kb(loc, b);
  std::string name = "c" + std::to_string(kernelCounter++) + "_copy";
  launch(b, loc, kernels::emitCopy(kb, kernelModule, name, source, dest),
         token);
}

void EntryLowering::aliasUsageView(UpdateUsageOp view) {
  // The view's buffers are those of its input with the same TE name.
  TensorProtoType to = view.getResult().getType();
  for (const layout::BufferDesc &desc : to.getBuffers(target))
    buffersOfValue[view.getResult()].push_back(
        namedBuffer(view.getInput(), desc.name));
}

void EntryLowering::lowerSwizzleScales(OpBuilder &b, SwizzleScalesOp op,
                                       Value &token) {
  TensorProtoType to = op.getResult().getType();
  SmallVector<Value> &outputs = buffersOfValue[op.getResult()];
  std::vector<layout::BufferDesc> descs = to.getBuffers(target);
  bool mxfp8 = isa<MXFP8QuantizerAttr>(to.getQuantizer());
  ImplicitLocOpBuilder kb(op.getLoc(), b);
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
    std::string name = "s" + std::to_string(kernelCounter++) + "_swizzle";
    launch(b, op.getLoc(),
           kernels::emitScaleSwizzle(kb, kernelModule, name, spec, input,
                                     output),
           token);
  }
}

void EntryLowering::launch(OpBuilder &b, Location loc,
                           const kernels::KernelLaunch &k, Value &token) {
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value smem;
  if (k.sharedBytes > 0)
    smem = arith::ConstantIntOp::create(b, loc, b.getI32Type(), k.sharedBytes);
  auto symbol = SymbolRefAttr::get(
      b.getStringAttr(kKernelModule),
      {FlatSymbolRefAttr::get(b.getStringAttr(k.kernel))});
  auto op = gpu::LaunchFuncOp::create(
      b, loc, symbol, gpu::KernelDim3{c(k.gridX), c(k.gridY), c(1)},
      gpu::KernelDim3{c(k.blockX), c(1), c(1)}, smem, k.args,
      b.getType<gpu::AsyncTokenType>(), ValueRange{token});
  token = op.getAsyncToken();
}

void EntryLowering::lowerGemm(OpBuilder &b, GemmOp op,
                              const gemm::GemmDescriptor &desc,
                              Value &token) {
  Location loc = op.getLoc();
  Value zero = arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0);
  auto pointer = [&](Value memref) -> Value {
    if (!memref)
      return zero;
    Value index =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  };
  // A quantized operand's buffer by TE name; a tensor's only buffer.
  auto operandBuffer = [&](Value operand, const std::string &bufferName) {
    if (!isa<TensorProtoType>(operand.getType()))
      return bufferName.empty() ? buffersOfValue.lookup(operand).front()
                                : Value();
    return bufferName.empty() ? Value() : namedBuffer(operand, bufferName);
  };
  auto single = [&](Value v) {
    return v ? buffersOfValue.lookup(v).front() : Value();
  };
  Value alpha;
  if (desc.alphaOnDevice)
    alpha = lowerNVFP4Alpha(b, op, desc, token);
  Value bias = op.getDbias() ? single(op.getDbias()) : single(op.getBias());
  SmallVector<Value> callArgs{
      arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                   gemmIds.lookup(op.getOperation())),
      pointer(operandBuffer(op.getA(), desc.a.data)),
      pointer(operandBuffer(op.getA(), desc.a.scale)),
      pointer(operandBuffer(op.getB(), desc.b.data)),
      pointer(operandBuffer(op.getB(), desc.b.scale)),
      pointer(single(op.getAccumulate())),
      pointer(single(op.getResult())),
      pointer(bias),
      pointer(alpha)};
  // Enqueued on the runtime's stream after the kernels launched so far (the
  // launches and the GEMM share that one stream, in program order).
  func::CallOp::create(b, loc, kGemmFunction, TypeRange{}, callArgs);
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
  std::string name = "s" + std::to_string(kernelCounter++) +
                     (insert ? "_insert_slice" : "_extract_slice");
  Value result = buffersOfValue.lookup(op.getResult(0)).front();
  if (insert)
    copyInto(b, full, {result}, token);
  Value part = insert ? buffersOfValue.lookup(insert.getSource()).front()
                      : result;
  Value fullBuffer = insert ? result : buffersOfValue.lookup(full).front();
  ImplicitLocOpBuilder kb(op.getLoc(), b);
  launch(b, op.getLoc(),
         kernels::emitSlice(kb, kernelModule, name, spec, fullBuffer, part),
         token);
}

void EntryLowering::lowerElementwise(OpBuilder &b, Operation &op,
                                     Value &token) {
  std::string name = "e" + std::to_string(kernelCounter++) + "_" +
                     op.getName().stripDialect().str();
  std::replace(name.begin(), name.end(), '.', '_');
  SmallVector<Value> operands;
  for (Value operand : op.getOperands())
    operands.push_back(buffersOfValue.lookup(operand).front());
  ImplicitLocOpBuilder kb(op.getLoc(), b);
  launch(b, op.getLoc(),
         kernels::emitElementwise(
             kb, kernelModule, name, op, operands,
             buffersOfValue.lookup(op.getResult(0)).front()),
         token);
}

void EntryLowering::lowerBiasGrad(OpBuilder &b, BiasGradOp op,
                                  Value &token) {
  std::string prefix = "b" + std::to_string(kernelCounter++);
  ImplicitLocOpBuilder kb(op.getLoc(), b);
  for (const kernels::KernelLaunch &k : kernels::emitBiasGrad(
           kb, kernelModule, prefix, biasGradSpec(op),
           buffersOfValue.lookup(op.getInput()).front(),
           scratchOf.lookup(op.getOperation()),
           buffersOfValue.lookup(op.getResult()).front()))
    launch(b, op.getLoc(), k, token);
}

Value EntryLowering::lowerNVFP4Alpha(OpBuilder &b, GemmOp op,
                                     const gemm::GemmDescriptor &desc,
                                     Value &token) {
  std::string name = "g" + std::to_string(kernelCounter++) + "_alpha";
  Value alpha = scratchOf.lookup(op.getOperation());
  ImplicitLocOpBuilder kb(op.getLoc(), b);
  launch(b, op.getLoc(),
         kernels::emitNVFP4GemmAlpha(kb, kernelModule, name,
                                     namedBuffer(op.getA(), desc.a.amax),
                                     namedBuffer(op.getB(), desc.b.amax),
                                     alpha),
         token);
  return alpha;
}

struct ConvertTEQToGPUPass
    : public mlir::teq::impl::ConvertTEQToGPUBase<ConvertTEQToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    TargetAttr target = TargetAttr::lookup(module);
    if (!target) {
      module.emitError() << "no #teq.target on the module: kernels are "
                            "generated for one GPU; add attributes "
                            "{teq.target = #teq.target<sm_90>}";
      return signalPassFailure();
    }
    if (target.getSm() < 89) {
      module.emitError() << "FP8 kernels need sm_89 or newer, the module "
                            "targets "
                         << target.getChip();
      return signalPassFailure();
    }
    std::optional<unsigned> ptx =
        ptxVersionFor(target.getSm(), target.getSuffix());
    if (!ptx) {
      module.emitError()
          << "teq cannot generate GPU code for " << target.getChip()
          << " (LLVM's NVPTX backend has no such target); it compiles for "
          << llvm::join(codegenTargets(), ", ");
      return signalPassFailure();
    }
    std::string features = "+ptx" + std::to_string(*ptx);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(ctx));
    OpBuilder b(module.getBodyRegion());
    auto nvvmTarget = NVVM::NVVMTargetAttr::get(
        ctx, /*optLevel=*/2, /*triple=*/"nvptx64-nvidia-cuda",
        target.getChip(), features);
    auto kernelModule = gpu::GPUModuleOp::create(
        b, module.getLoc(), kKernelModule, b.getArrayAttr(ArrayRef<Attribute>{nvvmTarget}));

    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        entries.push_back(func);
    llvm::json::Array entryList, gemmList, dependentLaunchList;
    int kernelCounter = 0;
    for (func::FuncOp func : entries) {
      EntryLowering lowering(func, target, kernelModule, kernelCounter,
                             gemmList, dependentLaunchList);
      FailureOr<llvm::json::Object> entry = lowering.run();
      if (failed(entry))
        return signalPassFailure();
      entryList.push_back(std::move(*entry));
    }
    kernels::makeLibdeviceFree(kernelModule);
    llvm::json::Object manifest{{"format", "teq-artifact"},
                                {"version", 1},
                                {"target", target.getChip()},
                                {"entries", std::move(entryList)}};
    if (!dependentLaunchList.empty())
      manifest["dependent_launch_kernels"] = std::move(dependentLaunchList);
    if (!gemmList.empty()) {
      manifest["gemms"] = std::move(gemmList);
      // void teqGemm(i64 id, a, a_scale, b, b_scale, c, d, bias, alpha).
      b.setInsertionPointToEnd(module.getBody());
      auto i64 = b.getI64Type();
      auto decl = func::FuncOp::create(
          b, module.getLoc(), kGemmFunction,
          b.getFunctionType(SmallVector<Type>(9, i64), {}));
      decl.setPrivate();
    }
    std::string json;
    llvm::raw_string_ostream os(json);
    os << llvm::json::Value(std::move(manifest));
    module->setAttr(TEQDialect::getManifestAttrName(), b.getStringAttr(json));
  }
};

} // namespace

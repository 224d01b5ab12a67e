//===- TEQToGPU.cpp - teq entry functions to kernels + launches -----------===//

#include "QuantizeKernels.h"
#include "teq/Conversion/Passes.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

namespace mlir::teq {
#define GEN_PASS_DEF_CONVERTTEQTOGPU
#include "teq/Conversion/Passes.h.inc"
} // namespace mlir::teq

using namespace mlir;
using namespace mlir::teq;
namespace layout = ::mlir::teq::layout;

namespace {

constexpr llvm::StringLiteral kKernelModule = "teq_kernels";

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

/// The op's lowering, or an error naming what is not supported yet.
LogicalResult checkLowerable(Operation &op) {
  if (isa<func::ReturnOp, DelayedScalingUpdateOp>(op))
    return success();
  auto quantize = dyn_cast<QuantizeOp>(op);
  if (!quantize)
    return op.emitOpError("has no GPU lowering yet; convert-teq-to-gpu "
                          "lowers teq.quantize and teq.delayed_scaling_update "
                          "in this version");
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

  /// `(%x, [%rdata, %rscale], [%cdata, %cscale])`: the tile kernels' args.
  SmallVector<Value> tileKernelArgs(Value x) const {
    SmallVector<Value> args{x};
    if (rdata)
      args.append({rdata, rscale});
    if (cdata)
      args.append({cdata, cscale});
    return args;
  }

  /// The kernels zero-filling the scale buffers, named <prefix>_zero_rs/cs.
  std::string zeroKernels(const std::string &prefix) const {
    std::string text;
    if (rscale)
      text += kernels::zeroBytesKernel(prefix + "_zero_rs", rowScaleBytes);
    if (cscale)
      text += kernels::zeroBytesKernel(prefix + "_zero_cs", colScaleBytes);
    return text;
  }
};

class EntryLowering {
public:
  EntryLowering(func::FuncOp func, TargetAttr target,
                gpu::GPUModuleOp kernelModule, int &kernelCounter)
      : func(func), target(target), kernelModule(kernelModule),
        kernelCounter(kernelCounter) {}

  FailureOr<llvm::json::Object> run();

private:
  LogicalResult emitKernels(StringRef text, Location loc);
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
  /// Launches the kernels of `BlockScaledOutputs::zeroKernels`.
  void zeroScales(OpBuilder &b, Location loc, const std::string &prefix,
                  const BlockScaledOutputs &outs, Value &token);
  /// Launches `kernel` of the kernel module asynchronously after `token`.
  void launch(OpBuilder &b, Location loc, StringRef kernel, int64_t gx,
              int64_t gy, int64_t sharedBytes, ValueRange args,
              Value &token);

  func::FuncOp func;
  TargetAttr target;
  gpu::GPUModuleOp kernelModule;
  int &kernelCounter;
  DenseMap<Value, SmallVector<Value>> buffersOfValue;
};

LogicalResult EntryLowering::emitKernels(StringRef text, Location loc) {
  MLIRContext *ctx = func.getContext();
  std::string source = "gpu.module @fragment {\n" + text.str() + "}\n";
  ParserConfig config(ctx);
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(source, config);
  if (!parsed)
    return emitError(loc) << "internal error: generated kernel text does not "
                             "parse (see the diagnostics above)";
  auto fragment = cast<gpu::GPUModuleOp>(parsed->getBody()->front());
  Block &dest = kernelModule.getBodyRegion().front();
  for (Operation &op : llvm::make_early_inc_range(fragment.getBody()->getOperations()))
    op.moveBefore(&dest, dest.end());
  return success();
}

LogicalResult EntryLowering::lowerBlockQuantize(OpBuilder &b, QuantizeOp op,
                                                ArrayRef<Value> outputs,
                                                Value &token) {
  TensorProtoType proto = op.getResult().getType();
  auto bq = cast<Float8BlockQuantizerAttr>(proto.getQuantizer());
  kernels::BlockFP8Spec spec;
  layout::Flat2D flat = initSpec(spec, proto);
  spec.e5m2 = isa<Float8E5M2Type>(bq.getFp8Dtype());
  spec.twoD = bq.getBlockScalingDim() == 2;
  spec.forcePow2 = bq.getForcePow_2Scales();
  spec.epsilon = static_cast<float>(bq.getAmaxEpsilon().convertToDouble());
  llvm::StringMap<NamedBuffer> named = buffersByName(proto, target, outputs);
  // The kernel writes the scale padding itself: no zero-fill.
  BlockScaledOutputs outs(named);
  outs.describeInto(spec);
  if (failed(emitKernels(kernels::blockFP8Kernel(spec), op.getLoc())))
    return failure();
  SmallVector<Value> args =
      outs.tileKernelArgs(buffersOfValue.lookup(op.getInput()).front());
  launch(b, op.getLoc(), spec.prefix + "_block", (flat.k + 127) / 128,
         (flat.m + 127) / 128, kernels::blockFP8SharedBytes(spec), args,
         token);
  return success();
}

void EntryLowering::launch(OpBuilder &b, Location loc, StringRef kernel,
                           int64_t gx, int64_t gy, int64_t sharedBytes,
                           ValueRange args, Value &token) {
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value smem;
  if (sharedBytes > 0)
    smem = arith::ConstantIntOp::create(b, loc, b.getI32Type(), sharedBytes);
  auto symbol = SymbolRefAttr::get(
      b.getStringAttr(kKernelModule),
      {FlatSymbolRefAttr::get(b.getStringAttr(kernel))});
  auto op = gpu::LaunchFuncOp::create(
      b, loc, symbol, gpu::KernelDim3{c(gx), c(gy), c(1)},
      gpu::KernelDim3{c(kernels::kBlockSize), c(1), c(1)}, smem, args,
      b.getType<gpu::AsyncTokenType>(), ValueRange{token});
  token = op.getAsyncToken();
}

void EntryLowering::zeroScales(OpBuilder &b, Location loc,
                               const std::string &prefix,
                               const BlockScaledOutputs &outs, Value &token) {
  auto grid = [](int64_t bytes) {
    return std::clamp<int64_t>((bytes + 255) / 256, 1, 1024);
  };
  if (outs.rscale)
    launch(b, loc, prefix + "_zero_rs", grid(outs.rowScaleBytes), 1, 0,
           {outs.rscale}, token);
  if (outs.cscale)
    launch(b, loc, prefix + "_zero_cs", grid(outs.colScaleBytes), 1, 0,
           {outs.cscale}, token);
}

void EntryLowering::lowerUpdate(OpBuilder &b, DelayedScalingUpdateOp op,
                                Value &token) {
  auto history = op.getAmaxHistory().getType();
  int64_t slots = op.getScale().getType().getDimSize(0);
  int64_t length = history.getDimSize(0);
  std::string name = "u" + std::to_string(kernelCounter++) + "_update";
  (void)emitKernels(kernels::delayedScalingUpdateKernel(
                        name, slots, length,
                        static_cast<float>(getFormatMax(op.getFp8Dtype())),
                        op.getMargin(),
                        op.getAmaxComputeAlgo() == AmaxComputeAlgo::most_recent),
                    op.getLoc());
  launch(b, op.getLoc(), name, 1, 1, 0,
         {buffersOfValue.lookup(op.getScale()).front(),
          buffersOfValue.lookup(op.getAmaxHistory()).front(),
          buffersOfValue.lookup(op.getUpdatedScale()).front(),
          buffersOfValue.lookup(op.getUpdatedAmaxHistory()).front()},
         token);
}

LogicalResult EntryLowering::lowerMXFP8Quantize(OpBuilder &b, QuantizeOp op,
                                                ArrayRef<Value> outputs,
                                                Value &token) {
  TensorProtoType proto = op.getResult().getType();
  auto mx = cast<MXFP8QuantizerAttr>(proto.getQuantizer());
  kernels::MXFP8Spec spec;
  layout::Flat2D flat = initSpec(spec, proto);
  spec.e5m2 = isa<Float8E5M2Type>(mx.getFp8Dtype());
  spec.twoD = mx.getWith_2dQuantization();
  spec.swizzled = proto.getScaleLayout() == ScaleLayout::gemm_swizzled;
  llvm::StringMap<NamedBuffer> named = buffersByName(proto, target, outputs);
  BlockScaledOutputs outs(named);
  outs.describeInto(spec);
  if (failed(emitKernels(kernels::mxfp8Kernel(spec) +
                             outs.zeroKernels(spec.prefix),
                         op.getLoc())))
    return failure();
  Location loc = op.getLoc();
  zeroScales(b, loc, spec.prefix, outs, token);
  SmallVector<Value> args =
      outs.tileKernelArgs(buffersOfValue.lookup(op.getInput()).front());
  launch(b, loc, spec.prefix + "_mxfp8", (flat.k + 127) / 128,
         (flat.m + 127) / 128,
         kernels::tileSharedBytes(spec.input), args, token);
  return success();
}

LogicalResult EntryLowering::lowerNVFP4Quantize(OpBuilder &b, QuantizeOp op,
                                                ArrayRef<Value> outputs,
                                                Value &token) {
  TensorProtoType proto = op.getResult().getType();
  auto nv = cast<NVFP4QuantizerAttr>(proto.getQuantizer());
  kernels::NVFP4Spec spec;
  layout::Flat2D flat = initSpec(spec, proto);
  spec.twoD = nv.getWith_2dQuantization();
  spec.swizzled = proto.getScaleLayout() == ScaleLayout::gemm_swizzled;
  spec.rht = nv.getWithRht();
  spec.stochastic = nv.getStochasticRounding();
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
  Value ramax = named.lookup("amax_rowwise").value;
  Value camax = named.lookup("amax_columnwise").value;
  if (failed(emitKernels(kernels::nvfp4Kernels(spec) +
                             outs.zeroKernels(spec.prefix),
                         op.getLoc())))
    return failure();
  Location loc = op.getLoc();
  zeroScales(b, loc, spec.prefix, outs, token);
  Value x = buffersOfValue.lookup(op.getInput()).front();
  // The plain amax (rowwise, and columnwise without RHT), then with RHT the
  // transformed copy's amax for the columnwise one.
  SmallVector<Value> amaxArgs;
  if (ramax)
    amaxArgs.push_back(ramax);
  if (camax && !spec.rht)
    amaxArgs.push_back(camax);
  if (!amaxArgs.empty()) {
    launch(b, loc, spec.prefix + "_amax",
           kernels::amaxGridSize(flat.m * flat.k, spec.input), 1, 0, {x},
           token);
    launch(b, loc, spec.prefix + "_nvfp4_amax", 1, 1, 0, amaxArgs, token);
  }
  if (camax && spec.rht) {
    launch(b, loc, spec.prefix + "_rht_amax", kernels::nvfp4RhtAmaxGrid(spec),
           1, 0, {x}, token);
    launch(b, loc, spec.prefix + "_rht_amax_final", 1, 1, 0, {camax}, token);
  }
  SmallVector<Value> rowArgs{x, ramax, outs.rdata, outs.rscale};
  SmallVector<Value> colArgs{x, camax, outs.cdata, outs.cscale};
  if (rng) {
    rowArgs.push_back(rng);
    colArgs.push_back(rng);
  }
  if (outs.rdata)
    launch(b, loc, spec.prefix + "_nvfp4_row", kernels::nvfp4RowGrid(spec), 1,
           0, rowArgs, token);
  if (outs.cdata)
    launch(b, loc, spec.prefix + "_nvfp4_col", kernels::nvfp4ColGrid(spec), 1,
           0, colArgs, token);
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
  layout::Flat2D flat = initSpec(spec, proto);
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

  std::string text = kernels::perTensorGlobals(spec) +
                     kernels::perTensorCastKernel(spec);
  if (spec.delayed)
    text += kernels::delayedScalingRecordKernel(spec);
  else
    text += kernels::perTensorAmaxKernel(spec) +
            kernels::currentScalingScaleKernel(spec);
  if (failed(emitKernels(text, op.getLoc())))
    return failure();

  Value x = buffersOfValue.lookup(op.getInput()).front();
  Location loc = op.getLoc();
  auto launch = [&](StringRef kernel, int64_t gx, int64_t gy,
                    ValueRange args) {
    auto c = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v).getResult();
    };
    auto symbol = SymbolRefAttr::get(
        b.getStringAttr(kKernelModule),
        {FlatSymbolRefAttr::get(b.getStringAttr(kernel))});
    auto launchOp = gpu::LaunchFuncOp::create(
        b, loc, symbol, gpu::KernelDim3{c(gx), c(gy), c(1)},
        gpu::KernelDim3{c(kernels::kBlockSize), c(1), c(1)},
        /*dynamicSharedMemorySize=*/Value(), args,
        b.getType<gpu::AsyncTokenType>(), ValueRange{token});
    token = launchOp.getAsyncToken();
  };
  int64_t gx, gy;
  kernels::perTensorCastGrid(spec, gx, gy);
  SmallVector<Value> castArgs{x};
  Value scale;
  if (spec.delayed) {
    scale = buffersOfValue.lookup(op.getScale()).front();
    castArgs.push_back(scale);
  }
  if (data)
    castArgs.push_back(data);
  if (transpose)
    castArgs.push_back(transpose);
  if (spec.delayed) {
    // One read of x: the cast records max|x|; then history[0] and scale_inv.
    launch(spec.prefix + "_cast", gx, gy, castArgs);
    Value history = buffersOfValue.lookup(op.getAmaxHistory()).front();
    launch(spec.prefix + "_record", 1, 1,
           {scale, history, updatedHistory, scaleInv});
    return success();
  }
  int64_t grid = kernels::amaxGridSize(flat.m * flat.k, spec.input);
  launch(spec.prefix + "_amax", grid, 1, {x});
  launch(spec.prefix + "_scale", 1, 1, {scaleInv});
  launch(spec.prefix + "_cast", gx, gy, castArgs);
  return success();
}

FailureOr<llvm::json::Object> EntryLowering::run() {
  Location loc = func.getLoc();
  for (Block &block : func.getBody())
    for (Operation &op : block)
      if (failed(checkLowerable(op)))
        return failure();
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("entry functions must be one block");
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());

  // Every value the entry computes lives in the caller's output buffers, so
  // each must be returned exactly once (no temporaries in this version).
  DenseMap<Value, unsigned> resultIndexOf;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    if (isa<BlockArgument>(v))
      return ret.emitOpError("returns argument #")
             << cast<BlockArgument>(v).getArgNumber()
             << "; an entry's results must be computed by it";
    if (!resultIndexOf.try_emplace(v, i).second)
      return ret.emitOpError("returns the same value twice (results ")
             << resultIndexOf[v] << " and " << i << ")";
  }
  auto nameOf = [&](Value v) -> std::string {
    if (auto a = dyn_cast<BlockArgument>(v))
      return "arg" + std::to_string(a.getArgNumber());
    return "result" + std::to_string(resultIndexOf.lookup(v));
  };

  // Flat buffer list: arguments, then results (written by the entry).
  SmallVector<Type> memrefs;
  SmallVector<SmallVector<Buffer>> argBuffers, resultBuffers;
  llvm::json::Array args;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    FailureOr<SmallVector<Buffer>> buffers = buffersOf(type, target, loc);
    if (failed(buffers))
      return failure();
    args.push_back(describeArgument("arg" + std::to_string(i), "input", type,
                                    *buffers));
    for (const Buffer &b : *buffers)
      memrefs.push_back(b.type);
    argBuffers.push_back(std::move(*buffers));
  }
  for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
    FailureOr<SmallVector<Buffer>> buffers = buffersOf(type, target, loc);
    if (failed(buffers))
      return failure();
    llvm::json::Object arg = describeArgument("result" + std::to_string(i),
                                              "output", type, *buffers);
    Value returned = ret.getOperand(i);
    if (auto quantize = returned.getDefiningOp<QuantizeOp>()) {
      bool isHistory = returned == quantize.getUpdatedAmaxHistory();
      llvm::json::Object by{{"op", isHistory ? "record_amax" : "quantize"},
                            {"input", nameOf(quantize.getInput())}};
      if (quantize.getScale()) {
        by["scale"] = nameOf(quantize.getScale());
        by["amax_history"] = nameOf(quantize.getAmaxHistory());
      }
      if (Value rng = quantize.getRngState())
        by["rng_state"] = nameOf(rng);
      arg["computed_by"] = std::move(by);
    } else if (auto update = returned.getDefiningOp<DelayedScalingUpdateOp>()) {
      arg["computed_by"] = llvm::json::Object{
          {"op", "delayed_scaling_update"},
          {"output", returned == update.getUpdatedScale() ? "scale"
                                                           : "amax_history"},
          {"scale", nameOf(update.getScale())},
          {"amax_history", nameOf(update.getAmaxHistory())},
          {"fp8_max", getFormatMax(update.getFp8Dtype())},
          {"margin", update.getMargin()},
          {"amax_compute_algo",
           stringifyAmaxComputeAlgo(update.getAmaxComputeAlgo()).str()}};
    }
    args.push_back(std::move(arg));
    for (const Buffer &b : *buffers)
      memrefs.push_back(b.type);
    resultBuffers.push_back(std::move(*buffers));
  }

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
  for (auto [value, buffers] : llvm::zip(ret.getOperands(), resultBuffers))
    for (size_t j = 0; j < buffers.size(); ++j)
      buffersOfValue[value].push_back(body->getArgument(next++));

  Value token =
      gpu::WaitOp::create(b, loc, b.getType<gpu::AsyncTokenType>(), ValueRange{})
          .getAsyncToken();
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      continue;
    for (Value result : op.getResults())
      if (!resultIndexOf.count(result))
        return op.emitOpError("result #")
               << cast<OpResult>(result).getResultNumber()
               << " must be returned by the entry function: temporaries "
                  "have no GPU lowering yet";
    if (auto update = dyn_cast<DelayedScalingUpdateOp>(op)) {
      lowerUpdate(b, update, token);
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
  gpu::WaitOp::create(b, loc, Type(), ValueRange{token});
  func::ReturnOp::create(b, loc);

  llvm::json::Object entry{{"name", name},
                           {"symbol", "teq_entry_" + name},
                           {"args", std::move(args)}};
  func.erase();
  lowered.setSymName(name);
  return entry;
}

std::string ptxFeatures(TargetAttr target) {
  if (target.getSm() >= 120)
    return "+ptx87";
  if (target.getSm() >= 100)
    return "+ptx86";
  return "+ptx80";
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
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(ctx));
    OpBuilder b(module.getBodyRegion());
    auto nvvmTarget = parseAttribute(
        ("#nvvm.target<chip = \"" + target.getChip() + "\", features = \"" +
         ptxFeatures(target) + "\">"),
        ctx);
    auto kernelModule = gpu::GPUModuleOp::create(
        b, module.getLoc(), kKernelModule, b.getArrayAttr(ArrayRef<Attribute>{nvvmTarget}));

    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        entries.push_back(func);
    llvm::json::Array entryList;
    int kernelCounter = 0;
    for (func::FuncOp func : entries) {
      EntryLowering lowering(func, target, kernelModule, kernelCounter);
      FailureOr<llvm::json::Object> entry = lowering.run();
      if (failed(entry))
        return signalPassFailure();
      entryList.push_back(std::move(*entry));
    }
    llvm::json::Object manifest{{"format", "teq-artifact"},
                                {"version", 1},
                                {"target", target.getChip()},
                                {"entries", std::move(entryList)}};
    std::string json;
    llvm::raw_string_ostream os(json);
    os << llvm::json::Value(std::move(manifest));
    module->setAttr(TEQDialect::getManifestAttrName(), b.getStringAttr(json));
  }
};

} // namespace

//===- ManifestWriter.cpp - The artifact manifest of a lowered module -----===//

#include "ManifestWriter.h"

#include "Lowerable.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::lowering;
namespace layout = ::mlir::teq::layout;

namespace {

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

llvm::json::Object describeBuffer(const layout::BufferDesc &desc) {
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
  return d;
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

/// An argument, result or temporary: its tensor, or its quantized type with
/// its buffers.
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
    list.push_back(describeBuffer(*b.desc));
  arg["buffers"] = std::move(list);
  return arg;
}

/// The manifest's description of how `v` is computed, naming values as
/// `nameOf` does (te-run's --check recomputes it on the CPU).
llvm::json::Object
describeComputation(Value v, const EntryNames &nameOf,
                    const llvm::DenseMap<Operation *, int64_t> &gemmIds) {
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

} // namespace

//===----------------------------------------------------------------------===//
// EntryNames
//===----------------------------------------------------------------------===//

EntryNames::EntryNames(func::FuncOp func, const EntryPlan &plan)
    : func(func), plan(&plan) {
  for (auto [i, v] : llvm::enumerate(plan.temporaries))
    temporaryName[v] = "t" + std::to_string(i);
}

FailureOr<EntryNames> EntryNames::get(func::FuncOp func,
                                      const EntryPlan &plan) {
  EntryNames names(func, plan);
  llvm::StringSet<> seen;
  auto unique = [&](const std::string &name) -> LogicalResult {
    if (seen.insert(name).second)
      return success();
    return func.emitError() << "two arguments or results are named '" << name
                            << "'";
  };
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (failed(unique(names.argument(i))))
      return failure();
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (failed(unique(names.result(i))))
      return failure();
  return names;
}

std::string EntryNames::argument(unsigned i) const {
  if (auto name =
          func.getArgAttrOfType<StringAttr>(i, TEQDialect::getNameAttrName()))
    return name.str();
  return "arg" + std::to_string(i);
}

std::string EntryNames::result(unsigned i) const {
  if (auto name = func.getResultAttrOfType<StringAttr>(
          i, TEQDialect::getNameAttrName()))
    return name.str();
  return "result" + std::to_string(i);
}

std::string EntryNames::operator()(Value v) const {
  if (auto a = dyn_cast<BlockArgument>(v))
    return argument(a.getArgNumber());
  if (plan->resultIndexOf.count(v))
    return result(plan->resultIndexOf.lookup(v));
  if (temporaryName.count(v))
    return temporaryName.lookup(v);
  // A usage view is named after what it views.
  if (auto view = v.getDefiningOp<UpdateUsageOp>())
    return "view(" + (*this)(view.getInput()) + ")";
  return "?";
}

//===----------------------------------------------------------------------===//
// ManifestWriter
//===----------------------------------------------------------------------===//

int64_t ManifestWriter::addGemm(const gemm::GemmDescriptor &desc,
                                StringRef name) {
  int64_t id = static_cast<int64_t>(gemms.size());
  gemms.push_back(desc.toJson(id, name));
  return id;
}

void ManifestWriter::addDependentLaunch(StringRef kernel) {
  dependentLaunchKernels.push_back(kernel.str());
}

void ManifestWriter::addEntry(func::FuncOp func, const EntryPlan &plan,
                              const EntryNames &names,
                              const DenseMap<Operation *, int64_t> &gemmIds) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  llvm::json::Array args;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (!isa<ProcessGroupType>(type))
      args.push_back(describeArgument(names.argument(i), "input", type,
                                      plan.argumentBuffers[i]));
  for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
    llvm::json::Object arg = describeArgument(names.result(i), "output", type,
                                              plan.resultBuffers[i]);
    Value returned = ret.getOperand(i);
    bool copied = llvm::any_of(plan.copiedResults, [&](auto &c) {
      return c.first == static_cast<unsigned>(i);
    });
    llvm::json::Object by =
        copied ? llvm::json::Object{{"op", "copy"}, {"input", names(returned)}}
               : describeComputation(returned, names, gemmIds);
    if (!by.empty())
      arg["computed_by"] = std::move(by);
    args.push_back(std::move(arg));
  }
  llvm::json::Array temporaries;
  for (auto [v, buffers] : llvm::zip(plan.temporaries, plan.temporaryBuffers)) {
    llvm::json::Object t =
        describeArgument(names(v), "temporary", v.getType(), buffers);
    t["computed_by"] = describeComputation(v, names, gemmIds);
    temporaries.push_back(std::move(t));
  }
  std::string name = func.getSymName().str();
  llvm::json::Object entry{{"name", name},
                           {"symbol", "teq_entry_" + name},
                           {"args", std::move(args)}};
  if (plan.workspaceBytes > 0)
    entry["workspace_bytes"] = plan.workspaceBytes;
  if (!temporaries.empty())
    entry["temporaries"] = std::move(temporaries);
  // Process groups are no buffers: the caller passes a communicator each.
  if (!plan.groups.empty()) {
    llvm::json::Array groups;
    for (const EntryPlan::Group &group : plan.groups)
      groups.push_back(llvm::json::Object{
          {"name", names.argument(group.arg.getArgNumber())},
          {"size", group.size}});
    entry["groups"] = std::move(groups);
  }
  entries.push_back(std::move(entry));
}

std::string ManifestWriter::render(TargetAttr target) {
  llvm::json::Object manifest{{"format", "teq-artifact"},
                              {"version", 1},
                              {"target", target.getChip()},
                              {"entries", std::move(entries)}};
  if (!dependentLaunchKernels.empty())
    manifest["dependent_launch_kernels"] = std::move(dependentLaunchKernels);
  if (!gemms.empty())
    manifest["gemms"] = std::move(gemms);
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::json::Value(std::move(manifest));
  return json;
}

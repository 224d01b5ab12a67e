//===- LinearTypes.cpp - Quantized types of a Linear's tensors ------------===//

#include "LinearTypes.h"

using namespace mlir;
using namespace mlir::teq;

bool mlir::teq::isPerTensorFP8(QuantizerAttrInterface q) {
  return q.getLayoutFormat() == ::mlir::teq::layout::Format::PerTensorFP8;
}

bool mlir::teq::hasGemmSwizzledScales(QuantizerAttrInterface q) {
  auto format = q.getLayoutFormat();
  return format == ::mlir::teq::layout::Format::MXFP8 ||
         format == ::mlir::teq::layout::Format::NVFP4;
}

ScaleLayout mlir::teq::gemmScaleLayout(QuantizerAttrInterface q) {
  return hasGemmSwizzledScales(q) ? ScaleLayout::gemm_swizzled
                                  : ScaleLayout::compact;
}

ScaleLayout mlir::teq::activationScaleLayout(QuantizerAttrInterface q,
                                             LinearConfigAttr config,
                                             TensorRole role) {
  if (!hasGemmSwizzledScales(q))
    return ScaleLayout::compact;
  ParallelMode gathering = role == TensorRole::input ? ParallelMode::column
                                                     : ParallelMode::row;
  if (config.isSequenceParallel() && config.getParallelMode() == gathering)
    return ScaleLayout::compact;
  return ScaleLayout::gemm_swizzled;
}

TensorProtoType mlir::teq::quantizedType(Type type, QuantizerAttrInterface q,
                                         Usage usage, ScaleLayout layout) {
  auto tensor = cast<RankedTensorType>(type);
  return TensorProtoType::get(tensor.getContext(), tensor.getShape(),
                              tensor.getElementType(), q, usage, layout);
}

Type mlir::teq::savedInputType(Type input, LinearConfigAttr config,
                               LinearQuantizationAttr quantization) {
  BackwardOverride override = quantization.getBackwardOverride();
  if (config.getSaveOriginalInput() || !quantization.getInput() ||
      override == BackwardOverride::high_precision)
    return input;
  if (override == BackwardOverride::dequantized) {
    // The forward's rowwise copy, dequantized by backward for wgrad.
    if (auto proto = dyn_cast<TensorProtoType>(input))
      return proto.withUsage(Usage::rowwise);
    QuantizerAttrInterface q = quantization.getInput();
    return quantizedType(input, q, Usage::rowwise,
                         activationScaleLayout(q, config, TensorRole::input));
  }
  bool columnSP = config.isSequenceParallel() &&
                  config.getParallelMode() == ParallelMode::column;
  if (auto proto = dyn_cast<TensorProtoType>(input)) // pre-quantized input
    return proto.withUsage(isPerTensorFP8(proto.getQuantizer()) && columnSP
                               ? Usage::rowwise
                               : Usage::columnwise);
  QuantizerAttrInterface q = quantization.getInput();
  Usage usage =
      isPerTensorFP8(q) && columnSP ? Usage::rowwise : Usage::columnwise;
  return quantizedType(input, q, usage,
                       activationScaleLayout(q, config, TensorRole::input));
}

Type mlir::teq::savedWeightType(Type weight,
                                LinearQuantizationAttr quantization) {
  BackwardOverride override = quantization.getBackwardOverride();
  if (!quantization.getWeight() || override == BackwardOverride::high_precision)
    return weight;
  // Under backward_override = dequantized, backward dequantizes the
  // forward's rowwise copy for dgrad.
  Usage usage = override == BackwardOverride::dequantized ? Usage::rowwise
                                                          : Usage::columnwise;
  if (auto proto = dyn_cast<TensorProtoType>(weight))
    return proto.withUsage(usage);
  return quantizedType(weight, quantization.getWeight(), usage,
                       gemmScaleLayout(quantization.getWeight()));
}

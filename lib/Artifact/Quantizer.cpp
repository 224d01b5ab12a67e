//===- Quantizer.cpp - A quantizer as the artifact manifest describes it --===//

#include "teq/Artifact/Quantizer.h"

namespace mlir::teq::artifact {

const char *stringifyQuantizerKind(QuantizerKind kind) {
  switch (kind) {
  case QuantizerKind::Float8CurrentScaling:
    return "float8_current_scaling";
  case QuantizerKind::Float8Delayed:
    return "float8_delayed";
  case QuantizerKind::Float8Block:
    return "float8_block";
  case QuantizerKind::MXFP8:
    return "mxfp8";
  case QuantizerKind::NVFP4:
    return "nvfp4";
  }
  return "unknown";
}

QuantizerDesc QuantizerDesc::defaultFor(QuantizerKind kind) {
  QuantizerDesc q;
  q.kind = kind;
  // TE's Float8BlockQuantizer forces power-of-two scales unless told not to.
  q.forcePow2Scales = kind == QuantizerKind::Float8Block;
  return q;
}

layout::Format QuantizerDesc::format() const {
  switch (kind) {
  case QuantizerKind::Float8CurrentScaling:
  case QuantizerKind::Float8Delayed:
    return layout::Format::PerTensorFP8;
  case QuantizerKind::Float8Block:
    return blockScalingDim == 1 ? layout::Format::BlockFP8_1D
                                : layout::Format::BlockFP8_2D;
  case QuantizerKind::MXFP8:
    return layout::Format::MXFP8;
  case QuantizerKind::NVFP4:
    return layout::Format::NVFP4;
  }
  return layout::Format::PerTensorFP8;
}

const char *QuantizerDesc::dataTypeName() const {
  if (kind == QuantizerKind::NVFP4)
    return "e2m1";
  return layout::stringifyEncoding(fp8Dtype);
}

bool QuantizerDesc::operator==(const QuantizerDesc &o) const {
  return kind == o.kind && fp8Dtype == o.fp8Dtype &&
         withAmaxReduction == o.withAmaxReduction &&
         forcePow2Scales == o.forcePow2Scales &&
         amaxEpsilon == o.amaxEpsilon &&
         blockScalingDim == o.blockScalingDim &&
         with2DQuantization == o.with2DQuantization && withRht == o.withRht &&
         stochasticRounding == o.stochasticRounding &&
         withPostRhtAmax == o.withPostRhtAmax &&
         withRandomSignMask == o.withRandomSignMask &&
         nvfp4Use4over6 == o.nvfp4Use4over6 &&
         rowScaledNVFP4 == o.rowScaledNVFP4;
}

} // namespace mlir::teq::artifact

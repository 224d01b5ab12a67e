//===- Quantizer.h - A quantizer as the manifest describes it ---*- C++ -*-===//
//
// The "quantizer" of a quantized argument in the manifest (docs/Artifact.md):
// its kind and every field of the quantizer attribute with TE's names. The
// dialect's quantizer attributes describe themselves as one
// (QuantizerAttrInterface::getArtifactDescription); the runtime and te-run
// read it from the manifest.
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_ARTIFACT_QUANTIZER_H
#define TEQ_ARTIFACT_QUANTIZER_H

#include "teq/Layout/BufferLayout.h"

#include <cstdint>

namespace mlir::teq::artifact {

/// The quantizer kinds ("kind" of a proto's "quantizer").
enum class QuantizerKind {
  Float8CurrentScaling, ///< "float8_current_scaling"
  Float8Delayed,        ///< "float8_delayed"
  Float8Block,          ///< "float8_block"
  MXFP8,                ///< "mxfp8"
  NVFP4,                ///< "nvfp4"
};
const char *stringifyQuantizerKind(QuantizerKind kind);

/// A quantizer attribute's fields with TE's names ("quantizer"). Which fields
/// a kind has, and which it requires:
///   float8_current_scaling  fp8_dtype (required), with_amax_reduction,
///                           force_pow_2_scales, amax_epsilon
///   float8_delayed          fp8_dtype (required)
///   float8_block            fp8_dtype, block_scaling_dim (both required),
///                           force_pow_2_scales, amax_epsilon
///   mxfp8                   fp8_dtype (required), with_2d_quantization
///   nvfp4                   with_rht, with_2d_quantization,
///                           stochastic_rounding, with_post_rht_amax,
///                           with_random_sign_mask, nvfp4_use_4over6,
///                           row_scaled_nvfp4, with_amax_reduction
/// An absent optional field reads as TE's default (the dialect's): below.
/// The writer writes every field of the kind.
struct QuantizerDesc {
  QuantizerKind kind = QuantizerKind::Float8CurrentScaling;
  /// "fp8_dtype": E4M3 or E5M2 (FP8 kinds).
  layout::Encoding fp8Dtype = layout::Encoding::E4M3;
  bool withAmaxReduction = false;
  /// Default false for float8_current_scaling, true for float8_block
  /// (defaultFor() sets it).
  bool forcePow2Scales = false;
  double amaxEpsilon = 0.0;
  int64_t blockScalingDim = 2; ///< 1 (1x128 blocks) or 2 (128x128).
  bool with2DQuantization = false;
  bool withRht = false;
  bool stochasticRounding = false;
  bool withPostRhtAmax = false;
  bool withRandomSignMask = true;
  bool nvfp4Use4over6 = false;
  bool rowScaledNVFP4 = false;

  /// A quantizer of `kind` with TE's default for every optional field.
  static QuantizerDesc defaultFor(QuantizerKind kind);
  /// "float8_current_scaling", ...
  const char *kindName() const { return stringifyQuantizerKind(kind); }
  /// The storage format this quantizer produces.
  layout::Format format() const;
  /// The element type of its data: "e4m3", "e5m2" or (NVFP4) "e2m1".
  const char *dataTypeName() const;

  bool operator==(const QuantizerDesc &other) const;
  bool operator!=(const QuantizerDesc &other) const {
    return !(*this == other);
  }
};

} // namespace mlir::teq::artifact

#endif // TEQ_ARTIFACT_QUANTIZER_H

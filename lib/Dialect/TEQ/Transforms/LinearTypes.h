//===- LinearTypes.h - Quantized types of a Linear's tensors ----*- C++ -*-===//
//
// Which usages and scale layouts TE gives each tensor of a Linear
// (te-semantics.md §3, §6.1, §7), shared by prototype inference and Linear
// decomposition so both agree on every type.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_DIALECT_TEQ_TRANSFORMS_LINEARTYPES_H
#define TEQ_LIB_DIALECT_TEQ_TRANSFORMS_LINEARTYPES_H

#include "teq/Dialect/TEQ/IR/TEQOps.h"

namespace mlir::teq {

bool isPerTensorFP8(QuantizerAttrInterface q);

/// Whether GEMMs read `q`'s block scales in the 128x4 GEMM swizzle (MXFP8,
/// NVFP4; te-semantics.md §4.2).
bool hasGemmSwizzledScales(QuantizerAttrInterface q);

/// The scale layout GEMMs read `q`'s tensors in: gemm_swizzled for MXFP8 and
/// NVFP4, compact otherwise. Weights the Linear quantizes itself get it
/// directly (TE swizzles them just before each GEMM; the bytes the GEMM
/// reads are the same).
ScaleLayout gemmScaleLayout(QuantizerAttrInterface q);

/// Input and grad_output quantizers emit GEMM-swizzled MXFP8/NVFP4 scales
/// (optimize_for_gemm), except where an all-gather needs compact ones:
/// column-parallel SP inputs, row-parallel SP grad_outputs.
ScaleLayout activationScaleLayout(QuantizerAttrInterface q,
                                  LinearConfigAttr config, TensorRole role);

/// The quantized type of a high-precision tensor `type`.
TensorProtoType quantizedType(Type type, QuantizerAttrInterface q,
                              Usage usage, ScaleLayout layout);

/// The type backward reads the input as: columnwise (rowwise for per-tensor
/// FP8 under column-parallel SP, to re-gather it); the input itself under
/// save_original_input, backward_override = high_precision or in high
/// precision; the forward's rowwise copy under backward_override =
/// dequantized.
Type savedInputType(Type input, LinearConfigAttr config,
                    LinearQuantizationAttr quantization);

/// The type backward reads the weight as: columnwise, for dgrad, with the
/// GEMM's scale layout; the weight itself under backward_override =
/// high_precision, its rowwise copy under dequantized.
Type savedWeightType(Type weight, LinearQuantizationAttr quantization);

} // namespace mlir::teq

#endif // TEQ_LIB_DIALECT_TEQ_TRANSFORMS_LINEARTYPES_H

//===- BufferLayout.h - Storage layout of TE's quantized formats -*- C++ -*-===//
//
// The inner buffers of a quantized tensor (TE's Float8Tensor, MXFP8Tensor,
// Float8BlockwiseQTensor, NVFP4Tensor) for a given logical shape, usage and GPU
// target: names, allocated shapes, the valid region inside them, storage and
// element encodings, transposition and scale swizzling (te-semantics.md §4).
//
// This library has no MLIR dependency: the compiler (TensorProto type), the CPU
// reference, the artifact manifest and the runtime all share one source of truth.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LAYOUT_BUFFERLAYOUT_H
#define TEQ_LAYOUT_BUFFERLAYOUT_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::teq::layout {

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t roundUp(int64_t a, int64_t b) { return ceilDiv(a, b) * b; }

/// A logical tensor of any rank is flattened to 2D: M = prod(shape[:-1]),
/// K = shape[-1]. A rank-0 tensor is 1x1; a rank-1 tensor [K] is 1xK.
struct Flat2D {
  int64_t m = 1;
  int64_t k = 1;
};
Flat2D flatten2D(const std::vector<int64_t> &shape);

/// The quantized storage formats (TE's scaling modes).
enum class Format {
  PerTensorFP8, ///< Float8Tensor: delayed and current scaling.
  BlockFP8_1D,  ///< Float8BlockwiseQTensor, 1x128 blocks.
  BlockFP8_2D,  ///< Float8BlockwiseQTensor, 128x128 blocks.
  MXFP8,        ///< MXFP8Tensor, 1x32 / 32x1 blocks, E8M0 scales (also 2D).
  NVFP4,        ///< NVFP4Tensor, 1x16 blocks (also 16x16), E4M3 scales.
};
const char *stringifyFormat(Format format);

/// Encoding of the values stored in a buffer.
enum class Encoding {
  F32,     ///< IEEE fp32.
  E4M3,    ///< FP8 E4M3 ("fn": no inf), one per byte.
  E5M2,    ///< FP8 E5M2, one per byte.
  E8M0,    ///< Unsigned power-of-two exponent, bias 127, one per byte.
  E2M1x2,  ///< Two FP4 E2M1 codes per byte: even column low nibble.
};
const char *stringifyEncoding(Encoding encoding);
/// Bytes one stored element of `encoding` occupies (E2M1x2: one byte holds two).
int64_t storageBytes(Encoding encoding);

enum Usage : unsigned {
  UsageNone = 0,
  UsageRowwise = 1,
  UsageColumnwise = 2,
  UsageBoth = 3,
};

/// Byte order inside MXFP8 / NVFP4 scale buffers.
enum class ScaleLayout {
  Compact,      ///< Row-major [rows][cols].
  GemmSwizzled, ///< cuBLAS 128x4 tiles (te-semantics.md §4.2).
};

/// What a GPU target can do, as TE derives it from the compute capability
/// (te-semantics.md §2, §4). The one definition: the dialect's #teq.target,
/// the GPU lowering, the CPU reference and the runtime all ask it.
struct TargetCaps {
  int sm = 90; ///< Compute capability as major*10 + minor (sm_90 -> 90).
  /// The CUDA version the code runs under, major*10 + minor (13.0 -> 130).
  int cudaVersion = 130;
  static TargetCaps fromSM(int sm, int cudaVersion = 130) {
    return TargetCaps{sm, cudaVersion};
  }
  /// FP8: CC >= 9.0, or 8.9 (Ada) with CUDA >= 12.1.
  bool supportsFP8() const;
  /// FP8 block scaling: CC >= 9.0 and CUDA >= 12.9.
  bool supportsFP8BlockScaling() const;
  /// MXFP8: 10.0 <= CC < 12.0.
  bool supportsMXFP8() const;
  /// NVFP4: CC >= 10.0.
  bool supportsNVFP4() const;
  /// nvte_is_non_tn_fp8_gemm_supported: SM in [100,120) or SM >= 130.
  bool nonTNFP8GemmSupported() const;
  /// cuBLASLt's block-scaled GEMMs with swizzled scales (MXFP8, NVFP4): CC
  /// >= 10.0. There TE runs FP8 block scaling as MXFP8.
  bool hasBlockScaledGemms() const;
  /// Programmatic dependent launch (griddepcontrol): CC >= 9.0.
  bool supportsDependentLaunch() const;
};

/// Everything that decides the buffers of a quantized tensor.
struct TensorDesc {
  std::vector<int64_t> shape;          ///< Logical shape.
  Format format = Format::PerTensorFP8;
  Encoding dataEncoding = Encoding::E4M3; ///< E4M3/E5M2; E2M1x2 for NVFP4.
  unsigned usage = UsageRowwise;
  ScaleLayout scaleLayout = ScaleLayout::Compact; ///< MXFP8 / NVFP4 only.
  bool rowScaledNVFP4 = false; ///< NVFP4: one fp32 amax per row.
};

enum class BufferRole { Data, ScaleInv, Amax };

/// One inner buffer of a quantized tensor.
struct BufferDesc {
  std::string name;             ///< TE's attribute name without '_'.
  BufferRole role = BufferRole::Data;
  Usage usage = UsageRowwise;   ///< The usage this buffer serves.
  std::vector<int64_t> shape;   ///< Allocated (padded) shape, row-major.
  std::vector<int64_t> validShape; ///< Region with meaningful values.
  Encoding encoding = Encoding::F32;
  bool transposed = false;      ///< Physically transposed w.r.t. [M,K].
  /// Scale byte order; only meaningful for MXFP8 / NVFP4 scale buffers.
  std::optional<ScaleLayout> scaleLayout;

  /// Stored elements: the product of `shape` (1 for rank 0). For E2M1x2 a
  /// stored element is one byte holding two FP4 codes, so this counts bytes,
  /// i.e. half the number of logical FP4 values.
  int64_t numElements() const;
  /// numElements() * storageBytes(encoding).
  int64_t sizeInBytes() const;
  bool padded() const { return shape != validShape; }
};

/// The buffers of `tensor` on `target`, in a fixed order: rowwise data,
/// rowwise scale, columnwise data, columnwise scale, then amaxes
/// (PerTensorFP8: data, transpose, scale_inv). Data buffers have
/// validShape == shape; scale buffers' validShape drops the padding. Only
/// MXFP8 / NVFP4 scale buffers carry a scaleLayout. [K, *leading] of a
/// rank-0 tensor is [] (a scalar is its own transpose); of [K] it is [K].
///
///  PerTensorFP8: data [shape] (if rowwise || non-TN), transpose
///    [K, *leading] (if columnwise && !non-TN), scale_inv f32 [1].
///  BlockFP8_1D: rowwise_data [shape], rowwise_scale_inv f32
///    [ceil(K/128), roundup(M,4)]; columnwise_data [K, *leading],
///    columnwise_scale_inv f32 [ceil(M/128), roundup(K,4)].
///  BlockFP8_2D: rowwise_scale_inv [ceil(M/128), roundup(ceil(K/128),4)];
///    columnwise_scale_inv [ceil(K/128), roundup(ceil(M/128),4)].
///  MXFP8: rowwise_data and columnwise_data [shape] (not transposed);
///    rowwise_scale_inv E8M0 [roundup(M,128), roundup(ceil(K/32),4)];
///    columnwise_scale_inv E8M0 [roundup(ceil(M/32),4), roundup(K,128)].
///  NVFP4: rowwise_data E2M1x2 [*leading, K/2]; columnwise_data [K, M/2];
///    rowwise_scale_inv E4M3 [roundup(M,128), roundup(ceil(K/16),4)];
///    columnwise_scale_inv E4M3 [roundup(K,128), roundup(ceil(M/16),4)];
///    amax_rowwise f32 [1] ([M] if row-scaled), amax_columnwise f32 [1].
///  Valid regions of the scales: BlockFP8_1D [ceil(K/128), M] /
///    [ceil(M/128), K]; BlockFP8_2D [ceil(M/128), ceil(K/128)] /
///    [ceil(K/128), ceil(M/128)]; MXFP8 [M, ceil(K/32)] / [ceil(M/32), K];
///    NVFP4 [M, ceil(K/16)] / [K, ceil(M/16)]. (TE requires the block size
///    to divide M and K for MXFP8/NVFP4; here ragged sizes round up.)
std::vector<BufferDesc> describeBuffers(const TensorDesc &tensor,
                                       const TargetCaps &target);

/// Why `tensor` cannot be laid out, or std::nullopt if it can. The message is
/// an MLIR-style diagnostic (lowercase start, no trailing period). Checked, in
/// this order: usage is non-empty and has no other bits; every dimension is
/// >= 1 (and the element count stays below 2^56); the data encoding fits the
/// format (E4M3/E5M2, or E2M1x2 for NVFP4); rowScaledNVFP4 only with NVFP4;
/// NVFP4 packs two values per byte, so K must be even for rowwise usage and M
/// for columnwise usage. Only these target-independent layout rules are
/// checked, not hardware support (§2); describeBuffers assumes they passed.
/// The scaleLayout field of non-MXFP8/NVFP4 tensors is ignored, not rejected.
std::optional<std::string> checkLayoutable(const TensorDesc &tensor);

/// Byte offset of scale S[i][j] in a GEMM-swizzled MXFP8/NVFP4 scale buffer
/// whose compact form has `numTilesX` = cols/4 tiles per 128-row band
/// (te-semantics.md §4.2: 128x4 tiles of 512 bytes):
///   ((i/128)*numTilesX + j/4)*512 + (i%32)*16 + ((i%128)/32)*4 + j%4.
/// Rowwise MXFP8 and both NVFP4 scale buffers: S = the buffer, (i, j) its
/// compact [row][col]. Columnwise MXFP8 [roundup(ceil(M/32),4),
/// roundup(K,128)] is swizzled after a logical transpose: call it with
/// i = data column k, j = row block m/32, numTilesX = ceil(M/128).
int64_t gemmSwizzledScaleIndex(int64_t i, int64_t j, int64_t numTilesX);

} // namespace mlir::teq::layout

#endif // TEQ_LAYOUT_BUFFERLAYOUT_H

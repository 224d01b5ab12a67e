/*===-- teq-c/Types.h - Quantized tensor types --------------------*- C -*-===*\
|*                                                                            *|
|* !teq.proto<shape x dtype, quantizer, usage[, scale layout]>: TE's tensor   *|
|* prototype as a type, and the inner buffers it has on a target exactly as   *|
|* TE allocates them (names, shapes, encodings, padding, transposition).      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TEQ_C_TYPES_H
#define TEQ_C_TYPES_H

#include "teq-c/Support.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Usage bits: which copies a quantized tensor holds.
enum {
  TeqUsageRowwise = 1,
  TeqUsageColumnwise = 2,
};

MLIR_CAPI_EXPORTED bool teqTypeIsAProto(MlirType type);

/// !teq.proto of logical `shape` (rank `rank`) and high-precision
/// `elementType` (bf16, f16, f32), quantized by `quantizer` with `usage`
/// (TeqUsage* bits); `gemmSwizzled` picks GEMM-swizzled MXFP8/NVFP4 scales.
/// The type's verifier runs: errors name the bad field.
MLIR_CAPI_EXPORTED TeqStatus teqProtoTypeGet(MlirContext context,
                                             intptr_t rank,
                                             const int64_t *shape,
                                             MlirType elementType,
                                             MlirAttribute quantizer,
                                             unsigned usage, bool gemmSwizzled,
                                             MlirType *result);
MLIR_CAPI_EXPORTED intptr_t teqProtoTypeGetRank(MlirType proto);
MLIR_CAPI_EXPORTED int64_t teqProtoTypeGetDimSize(MlirType proto,
                                                  intptr_t dim);
MLIR_CAPI_EXPORTED MlirType teqProtoTypeGetElementType(MlirType proto);
MLIR_CAPI_EXPORTED MlirAttribute teqProtoTypeGetQuantizer(MlirType proto);
/// TeqUsage* bits.
MLIR_CAPI_EXPORTED unsigned teqProtoTypeGetUsage(MlirType proto);
MLIR_CAPI_EXPORTED bool teqProtoTypeIsGemmSwizzled(MlirType proto);
/// The same type with other usage bits (TE's update_usage).
MLIR_CAPI_EXPORTED TeqStatus teqProtoTypeWithUsage(MlirType proto,
                                                   unsigned usage,
                                                   MlirType *result);

/// The inner buffers of a proto type on a target. Owned; destroy with
/// teqBufferLayoutDestroy.
typedef struct TeqBufferLayout {
  void *ptr;
} TeqBufferLayout;

/// One buffer; its strings and arrays live as long as the layout.
typedef struct TeqBufferInfo {
  /// TE's name: "data", "transpose", "scale_inv", "rowwise_data",
  /// "columnwise_scale_inv", "amax_rowwise", ...
  MlirStringRef name;
  /// "f32", "e4m3", "e5m2", "e8m0", "e2m1x2" (two FP4 codes a byte).
  MlirStringRef encoding;
  intptr_t rank;
  const int64_t *shape;      ///< Allocated shape, padding included.
  const int64_t *validShape; ///< The meaningful region.
  int64_t bytes;
  bool transposed;     ///< Physically transposed with respect to [M, K].
  unsigned usage;      ///< The TeqUsage* bit this buffer serves.
  bool isScale;        ///< A scale_inv buffer.
} TeqBufferInfo;

/// The buffers `proto` has on `target` (#teq.target), in TE's order. Errors
/// if the tensor cannot be laid out there (e.g. NVFP4 with an odd K).
MLIR_CAPI_EXPORTED TeqStatus teqProtoTypeGetBufferLayout(MlirType proto,
                                                         MlirAttribute target,
                                                         TeqBufferLayout *result);
MLIR_CAPI_EXPORTED intptr_t teqBufferLayoutGetNumBuffers(TeqBufferLayout layout);
/// Buffer `index` (0 <= index < count); an all-zero info out of range.
MLIR_CAPI_EXPORTED TeqBufferInfo teqBufferLayoutGetBuffer(TeqBufferLayout layout,
                                                          intptr_t index);
MLIR_CAPI_EXPORTED int64_t teqBufferLayoutGetTotalBytes(TeqBufferLayout layout);
MLIR_CAPI_EXPORTED void teqBufferLayoutDestroy(TeqBufferLayout layout);

#ifdef __cplusplus
}
#endif

#endif /* TEQ_C_TYPES_H */

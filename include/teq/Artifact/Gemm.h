//===- Gemm.h - The artifact's GEMM descriptions ----------------*- C++ -*-===//
//
// The manifest's "gemms" (docs/Artifact.md): each GEMM the artifact runs
// through the runtime's cuBLASLt (teqGemm), in cuBLAS's terms: problem,
// operand types and scale modes, epilogue, and an optional pinned
// algorithm. parseManifest checks each one as cuBLASLt and TE would (the
// checks that need no device); checkGemmForDevice adds the device's.
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_ARTIFACT_GEMM_H
#define TEQ_ARTIFACT_GEMM_H

#include "teq/Artifact/Json.h"
#include "teq/Artifact/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::teq::artifact {

/// Element types of GEMM operands (cuBLASLt's cudaDataType_t).
enum class GemmType { E4M3, E5M2, E2M1, BF16, F16, F32 };
/// "e4m3", "e5m2", "e2m1", "bf16", "f16", "f32".
const char *stringifyGemmType(GemmType type);
/// FP8 (E4M3, E5M2).
bool isFp8(GemmType type);
/// FP8 or FP4 (operands that need a scale).
bool isLowPrecision(GemmType type);

/// How an operand is scaled (CUBLASLT_MATMUL_DESC_A/B_SCALE_MODE).
enum class GemmScaleMode {
  None,          ///< High-precision operand: no scale pointer.
  ScalarF32,     ///< Per-tensor FP8: one fp32 scale_inv.
  Vec128F32,     ///< FP8 1x128 blocks (fp32 per block).
  Blk128x128F32, ///< FP8 128x128 blocks (fp32 per block).
  Vec32UE8M0,    ///< MXFP8: E8M0 per 32 elements (swizzled).
  Vec16UE4M3,    ///< NVFP4: E4M3 per 16 elements (swizzled).
};
/// "none", "scalar_f32", "vec128_f32", "blk128x128_f32", "vec32_ue8m0",
/// "vec16_ue4m3".
const char *stringifyGemmScaleMode(GemmScaleMode mode);

enum class GemmEpilogue {
  Default,
  Bias,   ///< D += bias (per row of the m dimension), bias is an input.
  BGradB, ///< dbias = column sums of B, written to the bias pointer.
};
/// "default", "bias", "bgradb".
const char *stringifyGemmEpilogue(GemmEpilogue epilogue);

/// An algorithm pinned by the manifest ("algo"): cublasLtMatmulAlgoInit with
/// `id`, then the CUBLASLT_ALGO_CONFIG_* attributes.
struct GemmAlgoSpec {
  int64_t id = 0;
  int64_t tile = 0;      ///< CUBLASLT_ALGO_CONFIG_TILE_ID.
  int64_t stages = 0;    ///< CUBLASLT_ALGO_CONFIG_STAGES_ID.
  int64_t splitK = 1;    ///< CUBLASLT_ALGO_CONFIG_SPLITK_NUM.
  int64_t reduction = 0; ///< CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME.
  int64_t swizzle = 0;   ///< CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING.
  int64_t custom = 0;    ///< CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION.
  int64_t innerShape = 0;   ///< CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID.
  int64_t clusterShape = 0; ///< CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID.
};

/// One GEMM of the artifact ("gemms"), in cuBLAS's column-major terms after
/// TE's canonicalization (te-semantics.md §6.2): D[m x n] = alpha *
/// op(A) * op(B) + beta * C, A stored k x m (transa) or m x k, B stored n x k
/// (transb) or k x n, C and D m x n with ldd. The artifact runs it with
/// teqGemm(id, ...) (teq/Runtime/Gemm.h).
struct GemmSpec {
  int64_t id = 0;
  std::string name; ///< e.g. "linear:fc1.fprop"; in every message.
  int64_t m = 0, n = 0, k = 0;
  bool transa = false, transb = false;
  GemmType aType = GemmType::BF16, bType = GemmType::BF16;
  GemmType dType = GemmType::BF16;
  int64_t lda = 0, ldb = 0, ldd = 0;
  GemmScaleMode aScaleMode = GemmScaleMode::None;
  GemmScaleMode bScaleMode = GemmScaleMode::None;
  GemmEpilogue epilogue = GemmEpilogue::Default;
  GemmType biasType = GemmType::BF16; ///< Meaningful unless Default.
  bool accumulate = false; ///< beta = 1, C read from the c pointer.
  bool fastAccum = false;  ///< CUBLASLT_MATMUL_DESC_FAST_ACCUM.
  bool alphaOnDevice = false; ///< "alpha": "device" (NVFP4).
  bool fastTf32 = false;      ///< "compute_type": "32f_fast_tf32".
  bool hasAlgo = false;       ///< "algo" given.
  GemmAlgoSpec algo;
  /// "shares_plan_of": the id of an earlier GEMM of the same problem (and
  /// algorithm) whose cuBLASLt plan this one runs, or -1. Each GEMM keeps
  /// its own id and name (messages, --gemm-algos); the runtime sets each
  /// plan up once (assignSharedPlans).
  int64_t sharesPlanOf = -1;

  /// Rows of A and B as stored (column-major).
  int64_t aRows() const { return transa ? k : m; }
  int64_t aCols() const { return transa ? m : k; }
  int64_t bRows() const { return transb ? n : k; }
  int64_t bCols() const { return transb ? k : n; }
  /// "GEMM 'linear:fc1.fprop' (id 0)".
  std::string describe() const;
  /// "m=128 n=256 k=64 transa=T transb=N A=e4m3 (lda 64) B=e4m3 (ldb 64)
  /// D=bf16 (ldd 128)".
  std::string describeProblem() const;
};

/// Whether `a` and `b` are one cuBLASLt problem run with one algorithm:
/// every field but id, name and sharesPlanOf equal.
bool sameGemmPlan(const GemmSpec &a, const GemmSpec &b);

/// Sets each GEMM's sharesPlanOf to the first earlier GEMM with the same
/// plan (sameGemmPlan) that has a plan of its own, or -1: identical
/// problems (the same Linear in every layer, a square Linear's fprop and
/// dgrad) are set up once by the runtime.
void assignSharedPlans(std::vector<GemmSpec> &gemms);

/// The checks of a GEMM that need the device: FP8 in a non-TN layout where
/// cuBLASLt has only TN (layout::TargetCaps::nonTNFP8GemmSupported). The
/// error names the GEMM.
Status checkGemmForDevice(const GemmSpec &gemm, int sm);

/// Reads a GEMM's "algo" object (as te-run --json reports them, and as
/// te-compile --gemm-algos pins them) with the manifest's rules; errors
/// name the key.
StatusOr<GemmAlgoSpec> parseGemmAlgo(const JsonValue &value);

} // namespace mlir::teq::artifact

#endif // TEQ_ARTIFACT_GEMM_H

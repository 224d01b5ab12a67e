//===- Manifest.h - The artifact manifest, parsed and validated -----*- C++ -*-===//
//
// The JSON document in an artifact's trailer (docs/Artifact.md, "The
// manifest"): target, device code kind and, per entry point, its arguments
// and the device buffers they are passed as, its temporaries and how te-run
// recomputes each value; the artifact's GEMMs.
//
// parseManifest() validates all of it (docs/Artifact.md, "What the runtime
// checks"): types, sizes (nothing past 2^48 bytes, so no size arithmetic
// overflows), quantizers, proto buffers against their layout on the target,
// and every cross reference (computed_by's values and GEMMs, with the shapes
// and types its op needs). Errors name the JSON path of what is wrong, e.g.
//   manifest: entries[0].args[1]: missing "shape"
//   manifest: entries[0].args[1].proto.shape[0]: expected an integer, got a string
//   manifest: version: unsupported version 2 (this runtime reads version 1)
//   manifest: gemms[2].a_scale_mode: unknown scale mode "x" (expected ...)
//   manifest: entries[0].args[2].computed_by.gemm: GEMM 7 does not exist
//     (the artifact has 1 GEMM)
// Unknown keys are ignored, except inside a GEMM description ("gemms"),
// where a misspelt key would silently change the math.
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_RUNTIME_MANIFEST_H
#define TEQ_RUNTIME_MANIFEST_H

#include "teq/Runtime/Export.h"
#include "teq/Runtime/Json.h"
#include "teq/Runtime/Status.h"

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::teq::runtime {

//===----------------------------------------------------------------------===//
// GPU targets
//===----------------------------------------------------------------------===//

/// A GPU target name: "sm_<cc>" with an optional suffix, e.g. sm_90, sm_90a,
/// sm_100a, sm_100f, sm_120.
struct TEQ_RUNTIME_EXPORT GpuTarget {
  int sm = 0;       ///< Compute capability major*10 + minor (sm_90 -> 90).
  char suffix = 0;  ///< 0, 'a' (architecture-specific) or 'f' (family).
  std::string name; ///< As written, e.g. "sm_90a".

  int major() const { return sm / 10; }
  int minor() const { return sm % 10; }

  /// Parses "sm_NN[a|f]"; the error reads "invalid target 'x' (expected
  /// sm_<compute capability>, e.g. sm_90)".
  static StatusOr<GpuTarget> parse(std::string_view text);
};

/// How an artifact's device code is shipped.
enum class DeviceCodeKind { PTX, Cubin };
TEQ_RUNTIME_EXPORT const char *stringifyDeviceCode(DeviceCodeKind kind);

/// Whether device code for `target` runs on a device of compute capability
/// `deviceSM` (major*10 + minor):
///  - PTX is JIT-compiled forward: deviceSM >= target.sm (sm_90 PTX runs on
///    sm_100); 'a' targets need exactly that device, 'f' targets the same
///    major with a minor >= the target's;
///  - cubin runs on the same major with a minor >= the target's; 'a' targets
///    need exactly that device.
TEQ_RUNTIME_EXPORT bool isTargetCompatible(const GpuTarget &target,
                                           DeviceCodeKind code, int deviceSM);

//===----------------------------------------------------------------------===//
// Manifest
//===----------------------------------------------------------------------===//

enum class ArgKind {
  Input,  ///< Read by the entry.
  Output, ///< Written by the entry.
  InOut,  ///< Read and updated in place (delayed-scaling scale, amax history).
  /// A value the entry computes but does not return; lives in the entry's
  /// workspace ("temporaries" only, never passed by the caller).
  Temporary,
};
TEQ_RUNTIME_EXPORT const char *stringifyArgKind(ArgKind kind);

/// One device buffer. For a `tensor` argument it is the tensor itself
/// (name "tensor", encoding = the dtype; a "buffers" list on a tensor
/// argument is ignored); for a `proto` argument one entry of its `buffers`
/// list.
struct TEQ_RUNTIME_EXPORT BufferSpec {
  std::string name;
  /// "f32", "bf16", "f16", "i64" for tensors; "f32", "e4m3", "e5m2", "e8m0",
  /// "e2m1x2" for proto buffers (layout::stringifyEncoding).
  std::string encoding;
  std::vector<int64_t> shape;      ///< Allocated shape (padding included).
  std::vector<int64_t> validShape; ///< Meaningful region; = shape if absent.
  int64_t bytes = 0;               ///< Size of the allocation.
  bool transposed = false;
  std::string scaleLayout; ///< "compact"/"gemm_swizzled" or "" if absent.
};

/// A tensor argument: high precision, or the i64 (seed, offset) rng_state
/// of stochastic rounding.
struct TEQ_RUNTIME_EXPORT TensorSpec {
  std::string dtype; ///< "f32", "bf16", "f16" or "i64".
  std::vector<int64_t> shape;
};

/// A quantized tensor argument (a TensorProto type).
struct TEQ_RUNTIME_EXPORT ProtoSpec {
  std::string dtype; ///< The high-precision type it was quantized from.
  std::vector<int64_t> shape;
  /// Every field of the quantizer attribute with TE's names; "kind" is a
  /// string (e.g. "float8_current_scaling").
  JsonValue quantizer;
  std::string quantizerKind;
  std::string usage;       ///< "rowwise", "columnwise" or "rowwise|columnwise".
  std::string scaleLayout; ///< "" if absent.
  std::string text;        ///< The MLIR type, if given.

  bool hasRowwise() const;
  bool hasColumnwise() const;
};

struct TEQ_RUNTIME_EXPORT ArgSpec {
  std::string name;
  ArgKind kind = ArgKind::Input;
  bool isProto = false;
  TensorSpec tensor; ///< If !isProto.
  ProtoSpec proto;   ///< If isProto.
  /// The device buffers of this argument, in the order they are passed.
  std::vector<BufferSpec> buffers;
  /// How te-run --check recomputes this output ({"op": ..., ...}); null if
  /// absent.
  JsonValue computedBy;

  bool isRead() const {
    return kind == ArgKind::Input || kind == ArgKind::InOut;
  }
  bool isWritten() const {
    return kind == ArgKind::Output || kind == ArgKind::InOut;
  }
  int64_t totalBytes() const;
};

/// Position of one device buffer in an entry's flat buffer list.
struct BufferRef {
  size_t arg = 0;    ///< Index into EntrySpec::args.
  size_t buffer = 0; ///< Index into ArgSpec::buffers.
};

struct TEQ_RUNTIME_EXPORT EntrySpec {
  std::string name;
  std::string symbol;
  std::vector<ArgSpec> args;
  /// The flat buffer list teq_entry_<name> takes: over args in order, each
  /// argument's buffers in order.
  std::vector<BufferRef> flatBuffers;

  /// Bytes of the entry's temporaries ("workspace_bytes", default 0). When
  /// positive, teq_entry_<name> takes one more pointer after the argument
  /// buffers: a 256-byte aligned device workspace of at least this size,
  /// owned and passed by the runtime (not counted in numBuffers()).
  int64_t workspaceBytes = 0;
  /// "temporaries": the values the entry computes in its workspace without
  /// returning them (kind Temporary), described like arguments so that
  /// te-run --check can recompute what later ops read. Not buffers of the
  /// call.
  std::vector<ArgSpec> temporaries;

  size_t numBuffers() const { return flatBuffers.size(); }
  const BufferSpec &buffer(size_t flatIndex) const;
  const ArgSpec *findArg(std::string_view argName) const;
  /// Bytes read plus bytes written by one call: every input buffer once,
  /// every output buffer once, every inout buffer twice (for GB/s).
  int64_t bytesMoved() const;
};

//===----------------------------------------------------------------------===//
// GEMMs
//===----------------------------------------------------------------------===//

/// Element types of GEMM operands (cuBLASLt's cudaDataType_t).
enum class GemmType { E4M3, E5M2, E2M1, BF16, F16, F32 };
/// "e4m3", "e5m2", "e2m1", "bf16", "f16", "f32".
TEQ_RUNTIME_EXPORT const char *stringifyGemmType(GemmType type);
/// FP8 (E4M3, E5M2).
TEQ_RUNTIME_EXPORT bool isFp8(GemmType type);
/// FP8 or FP4 (operands that need a scale).
TEQ_RUNTIME_EXPORT bool isLowPrecision(GemmType type);

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
TEQ_RUNTIME_EXPORT const char *stringifyGemmScaleMode(GemmScaleMode mode);

enum class GemmEpilogue {
  Default,
  Bias,   ///< D += bias (per row of the m dimension), bias is an input.
  BGradB, ///< dbias = column sums of B, written to the bias pointer.
};
/// "default", "bias", "bgradb".
TEQ_RUNTIME_EXPORT const char *stringifyGemmEpilogue(GemmEpilogue epilogue);

/// An algorithm pinned by the manifest ("algo"): cublasLtMatmulAlgoInit with
/// `id`, then the CUBLASLT_ALGO_CONFIG_* attributes.
struct TEQ_RUNTIME_EXPORT GemmAlgoSpec {
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
struct TEQ_RUNTIME_EXPORT GemmSpec {
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

/// Whether cuBLASLt runs FP8 GEMMs in layouts other than TN on a device of
/// compute capability `sm` (TE's nvte_is_non_tn_fp8_gemm_supported: sm_100
/// to sm_119 and sm_130 on).
TEQ_RUNTIME_EXPORT bool isNonTnFp8GemmSupported(int sm);

/// The checks of a GEMM that need the device: FP8 in a non-TN layout where
/// cuBLASLt has only TN. The error names the GEMM.
TEQ_RUNTIME_EXPORT Status checkGemmForDevice(const GemmSpec &gemm, int sm);

struct TEQ_RUNTIME_EXPORT Manifest {
  std::string format; ///< "teq-artifact".
  int version = 1;
  GpuTarget target;
  DeviceCodeKind deviceCode = DeviceCodeKind::PTX;
  std::vector<EntrySpec> entries;
  /// "gemms": GEMM i has id i.
  std::vector<GemmSpec> gemms;
  /// "dependent_launch_kernels": kernels launched as programmatic dependents
  /// of the kernel before them on the stream (CUDA's programmatic stream
  /// serialization, sm_90+): they may start while it finishes, and wait for
  /// it themselves (griddepcontrol.wait) before reading what it wrote.
  std::set<std::string> dependentLaunchKernels;
  /// The parsed document (for fields this struct does not model).
  JsonValue json;

  const EntrySpec *findEntry(std::string_view name) const;
  /// The largest workspaceBytes over the entries (0 if none has one).
  int64_t maxWorkspaceBytes() const;
};

/// Bytes of one element of a tensor dtype ("f32" 4, "bf16"/"f16" 2, "i64"
/// 8), or 0 if the dtype is not one a tensor argument may have.
TEQ_RUNTIME_EXPORT int64_t tensorDTypeBytes(std::string_view dtype);

/// Parses and validates a manifest completely (see the top of this file).
/// Errors start with "manifest: " and name the JSON path of the offending
/// value.
TEQ_RUNTIME_EXPORT StatusOr<Manifest> parseManifest(std::string_view json);

} // namespace mlir::teq::runtime

#endif // TEQ_RUNTIME_MANIFEST_H

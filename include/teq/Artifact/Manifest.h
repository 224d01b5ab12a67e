//===- Manifest.h - The artifact manifest: types, writer, reader ----*- C++ -*-===//
//
// The contract between te-compile and the runtime: the JSON document in an
// artifact's trailer (docs/Artifact.md, "The manifest"). Target, device code
// kind and, per entry point, its arguments and the device buffers they are
// passed as, its temporaries and how te-run recomputes each value
// (computed_by); the artifact's GEMMs.
//
// One definition for the three sides: the compiler fills these types and
// calls writeManifest(); the runtime reads them with parseManifest(); te-run's
// checker interprets what parseManifest() returns.
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

#ifndef TEQ_ARTIFACT_MANIFEST_H
#define TEQ_ARTIFACT_MANIFEST_H

#include "teq/Artifact/Json.h"
#include "teq/Artifact/Quantizer.h"
#include "teq/Artifact/Status.h"
#include "teq/Layout/BufferLayout.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mlir::teq::artifact {

/// The manifest version this library writes and reads ("version").
constexpr int kManifestVersion = 1;

//===----------------------------------------------------------------------===//
// GPU targets
//===----------------------------------------------------------------------===//

/// A GPU target name: "sm_<cc>" with an optional suffix, e.g. sm_90, sm_90a,
/// sm_100a, sm_100f, sm_120.
struct GpuTarget {
  int sm = 0;       ///< Compute capability major*10 + minor (sm_90 -> 90).
  char suffix = 0;  ///< 0, 'a' (architecture-specific) or 'f' (family).
  std::string name; ///< As written, e.g. "sm_90a".

  int major() const { return sm / 10; }
  int minor() const { return sm % 10; }
  /// What the target can do (the layout library's capabilities).
  layout::TargetCaps caps() const { return layout::TargetCaps::fromSM(sm); }

  /// Parses "sm_NN[a|f]"; the error reads "invalid target 'x' (expected
  /// sm_<compute capability>, e.g. sm_90)".
  static StatusOr<GpuTarget> parse(std::string_view text);
};

/// How an artifact's device code is shipped.
enum class DeviceCodeKind { PTX, Cubin };
const char *stringifyDeviceCode(DeviceCodeKind kind);

/// Whether device code for `target` runs on a device of compute capability
/// `deviceSM` (major*10 + minor):
///  - PTX is JIT-compiled forward: deviceSM >= target.sm (sm_90 PTX runs on
///    sm_100); 'a' targets need exactly that device, 'f' targets the same
///    major with a minor >= the target's;
///  - cubin runs on the same major with a minor >= the target's; 'a' targets
///    need exactly that device.
bool isTargetCompatible(const GpuTarget &target, DeviceCodeKind code,
                        int deviceSM);

//===----------------------------------------------------------------------===//
// Arguments and entries
//===----------------------------------------------------------------------===//

enum class ArgKind {
  Input,  ///< Read by the entry.
  Output, ///< Written by the entry.
  InOut,  ///< Read and updated in place (delayed-scaling scale, amax history).
  /// A value the entry computes but does not return; lives in the entry's
  /// workspace or, fused into the kernels reading it, in registers
  /// (ArgSpec::inRegisters) ("temporaries" only, never passed by the
  /// caller).
  Temporary,
};
const char *stringifyArgKind(ArgKind kind);

/// One device buffer. For a `tensor` argument it is the tensor itself
/// (name "tensor", encoding = the dtype; not written, a "buffers" list on a
/// tensor argument is ignored); for a `proto` argument one entry of its
/// `buffers` list.
struct BufferSpec {
  std::string name;
  /// "f32", "bf16", "f16", "i64" for tensors; "f32", "e4m3", "e5m2", "e8m0",
  /// "e2m1x2" for proto buffers (layout::stringifyEncoding).
  std::string encoding;
  std::vector<int64_t> shape;      ///< Allocated shape (padding included).
  std::vector<int64_t> validShape; ///< Meaningful region; = shape if absent.
  int64_t bytes = 0;               ///< Size of the allocation.
  bool transposed = false;
  std::string scaleLayout; ///< "compact"/"gemm_swizzled" or "" if absent.

  /// The buffer the layout library describes.
  static BufferSpec fromLayout(const layout::BufferDesc &desc);
};

/// Where one buffer of a temporary lives ("placement"): in the entry's
/// workspace, inside a result buffer the entry has not written yet (the
/// caller's memory, used before the op that writes the result), or, for a
/// swizzle_scales temporary's non-scale buffers, in its input's buffer.
struct BufferPlacement {
  /// "in": "workspace", "output" or "input".
  enum class Where { Workspace, Output, Input };
  Where in = Where::Workspace;
  std::string output; ///< Output: the output argument's name ("output").
  size_t buffer = 0;  ///< Output: the index of its buffer ("buffer").
  int64_t offset = 0; ///< Byte offset, a multiple of 256 (not for Input).
};

/// A tensor argument: high precision, or the i64 (seed, offset) rng_state
/// of stochastic rounding.
struct TensorSpec {
  std::string dtype; ///< "f32", "bf16", "f16" or "i64".
  std::vector<int64_t> shape;
};

/// A quantized tensor argument (a TensorProto type).
struct ProtoSpec {
  std::string dtype; ///< The high-precision type it was quantized from.
  std::vector<int64_t> shape;
  QuantizerDesc quantizer;
  std::string usage;       ///< "rowwise", "columnwise" or "rowwise|columnwise".
  std::string scaleLayout; ///< "" if absent.
  std::string text;        ///< The MLIR type, if given.

  const char *quantizerKind() const { return quantizer.kindName(); }
  bool hasRowwise() const;
  bool hasColumnwise() const;
  /// What the layout library lays out: shape, format, usage, scale layout.
  layout::TensorDesc tensorDesc() const;
};

/// The op a "computed_by" names.
enum class ComputeOp {
  Quantize,             ///< "quantize"
  RecordAmax,           ///< "record_amax"
  DelayedScalingUpdate, ///< "delayed_scaling_update"
  Gemm,                 ///< "gemm"
  BiasGrad,             ///< "bias_grad"
  Copy,                 ///< "copy"
  UpdateUsage,          ///< "update_usage"
  SwizzleScales,        ///< "swizzle_scales"
  ExtractSlice,         ///< "tensor.extract_slice"
  InsertSlice,          ///< "tensor.insert_slice"
  Elementwise,          ///< Any "arith.*" / "math.*" op, by name.
  Constant,             ///< "constant": every element is `value`.
  AllGather,            ///< "all_gather" over `group` (dim 0).
  ReduceScatter,        ///< "reduce_scatter" (sum) over `group` (dim 0).
  AllReduce,            ///< "all_reduce" (sum) over `group`.
};

/// The elementwise ops ("arith.addf", "math.tanh", ...) te-run's checker
/// evaluates on the CPU and the number of inputs each takes; 0 for any
/// other op (a computed_by may still name it: it is then not checkable).
int elementwiseArity(const std::string &op);

/// How te-run --check recomputes a value on the CPU ("computed_by"). Values
/// are named as in the entry: an argument or temporary, or "view(name)" (a
/// usage view reads the buffers of what it views). Keys by op:
///   quantize, record_amax   input; scale and amax_history (float8_delayed),
///                           rng_state (stochastic NVFP4)
///   delayed_scaling_update  output (scale | amax_history), scale,
///                           amax_history, fp8_max, margin,
///                           amax_compute_algo (max | most_recent)
///   gemm                    gemm (its id), output (d | dbias), layout (TN,
///                           NN, NT, TT), a, b, bias, accumulate,
///                           use_split_accumulator
///   bias_grad, copy, update_usage, swizzle_scales
///                           input
///   tensor.extract_slice    input, offsets, sizes, strides
///   tensor.insert_slice     input, dest, offsets, sizes, strides
///   arith.* / math.*        inputs
///   constant                value (a splat: every element, exactly, in the
///                           value's dtype)
///   all_gather, reduce_scatter, all_reduce
///                           input, group (the index of a parallel group of
///                           the entry): every rank's input gathered along
///                           dim 0 in rank order (a per-tensor FP8 input:
///                           its data; the other buffers are the rank's
///                           own), or summed (reduce_scatter: rank r keeps
///                           block r of dim 0)
///   quantize also takes amax_group: the amax is the max over that group's
///   ranks of each rank's amax (with_amax_reduction); so does
///   delayed_scaling_update: row 0 of the history is the max over the
///   group's ranks of each rank's row 0 where that max is non-zero
/// An empty name is an absent key.
struct ComputedBy {
  ComputeOp op = ComputeOp::Copy;
  std::string elementwiseOp; ///< Elementwise: "arith.addf", "math.tanh", ...
  std::string input;
  std::vector<std::string> inputs; ///< Elementwise.
  std::string dest;                ///< insert_slice.
  std::string scale, amaxHistory;
  std::string rngState;
  /// delayed_scaling_update: the updated scale, else the amax history.
  bool outputsScale = true;
  double fp8Max = 0.0;
  int64_t margin = 0;
  bool mostRecentAmax = false; ///< amax_compute_algo: most_recent, else max.
  /// gemm: the manifest's GEMM id; D, else the dbias.
  int64_t gemm = 0;
  bool outputsD = true;
  bool transa = false, transb = false; ///< TE's layout, e.g. TN.
  std::string a, b, bias, accumulate;
  bool useSplitAccumulator = false;
  std::vector<int64_t> offsets, sizes, strides; ///< Slices.
  double value = 0.0; ///< constant (finite).
  /// Collectives: the group they run over; quantize and
  /// delayed_scaling_update: the group the amax is reduced over
  /// ("amax_group"). -1: none.
  int64_t group = -1;

  /// "quantize", "gemm", "tensor.extract_slice", "arith.addf", ...
  std::string opName() const;
  /// "TN", "NN", ... (gemm).
  std::string layoutName() const;
  /// Every value it names, with the key that names it ("input",
  /// "inputs[1]", ...), in the order of the keys above.
  std::vector<std::pair<std::string, std::string>> namedValues() const;
};

struct ArgSpec {
  std::string name;
  ArgKind kind = ArgKind::Input;
  bool isProto = false;
  TensorSpec tensor; ///< If !isProto.
  ProtoSpec proto;   ///< If isProto.
  /// The device buffers of this argument, in the order they are passed.
  std::vector<BufferSpec> buffers;
  /// How te-run --check recomputes this value; absent for inputs.
  std::optional<ComputedBy> computedBy;
  /// A tensor temporary that is never stored ("in_registers": true): each
  /// kernel reading it computes it in registers (an elementwise
  /// intermediate fused into its reader, a splat constant). It takes no
  /// workspace.
  bool inRegisters = false;
  /// A temporary's "placement": one per buffer, or empty where the manifest
  /// does not say (then it lives in the workspace).
  std::vector<BufferPlacement> placement;

  bool isRead() const {
    return kind == ArgKind::Input || kind == ArgKind::InOut;
  }
  bool isWritten() const {
    return kind == ArgKind::Output || kind == ArgKind::InOut;
  }
  const std::string &dtype() const {
    return isProto ? proto.dtype : tensor.dtype;
  }
  const std::vector<int64_t> &shape() const {
    return isProto ? proto.shape : tensor.shape;
  }
  int64_t totalBytes() const;
};

/// Position of one device buffer in an entry's flat buffer list.
struct BufferRef {
  size_t arg = 0;    ///< Index into EntrySpec::args.
  size_t buffer = 0; ///< Index into ArgSpec::buffers.
};

/// A parallel group an entry communicates over ("groups"): the runtime takes
/// one NCCL communicator per group for each run (teq/Runtime/Communicator.h),
/// and the artifact's collectives name a group by its index in the list.
struct GroupSpec {
  std::string name; ///< e.g. "tp" (the entry's !teq.process_group argument).
  /// Ranks in the group (1 to 2^30); 0: any (an entry that only reduces
  /// amaxes over it).
  int64_t size = 0;
};

struct EntrySpec {
  std::string name;
  std::string symbol;
  std::vector<ArgSpec> args;
  /// "groups" (absent: none): the entry's collectives run over these, in
  /// this order.
  std::vector<GroupSpec> groups;
  /// The flat buffer list teq_entry_<name> takes: over args in order, each
  /// argument's buffers in order. Filled by the reader (writing ignores it).
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
  /// The argument or temporary `name` ("view(x)" finds x), or nullptr.
  const ArgSpec *findValue(std::string_view name) const;
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

/// The checks of a GEMM that need the device: FP8 in a non-TN layout where
/// cuBLASLt has only TN (layout::TargetCaps::nonTNFP8GemmSupported). The
/// error names the GEMM.
Status checkGemmForDevice(const GemmSpec &gemm, int sm);

//===----------------------------------------------------------------------===//
// The manifest
//===----------------------------------------------------------------------===//

struct Manifest {
  std::string format = "teq-artifact";
  int version = kManifestVersion;
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
  /// The document parseManifest() read, for keys these types do not model;
  /// not written.
  JsonValue json;

  const EntrySpec *findEntry(std::string_view name) const;
  /// The largest workspaceBytes over the entries (0 if none has one).
  int64_t maxWorkspaceBytes() const;
};

/// Bytes of one element of a tensor dtype ("f32" 4, "bf16"/"f16" 2, "i64"
/// 8), or 0 if the dtype is not one a tensor argument may have.
int64_t tensorDTypeBytes(std::string_view dtype);

//===----------------------------------------------------------------------===//
// Writer and reader
//===----------------------------------------------------------------------===//

/// The manifest as JSON (docs/Artifact.md): compact, object keys in
/// lexicographic order; optional keys only where they say something
/// (workspace_bytes > 0, temporaries, gemms and dependent_launch_kernels
/// when non-empty, a GEMM's bias_type unless its epilogue is default, algo
/// when pinned, a buffer's transposed and scale_layout when set).
std::string writeManifest(const Manifest &manifest);

/// The JSON of parts of a manifest, as writeManifest writes them (te-run
/// and the runtime's C API print them).
JsonValue toJson(const QuantizerDesc &quantizer);
JsonValue toJson(const ComputedBy &computedBy);
JsonValue toJson(const GemmSpec &gemm);
JsonValue toJson(const GemmAlgoSpec &algo);

/// Reads a GEMM's "algo" object (as te-run --json reports them, and as
/// te-compile --gemm-algos pins them) with the manifest's rules; errors
/// name the key.
StatusOr<GemmAlgoSpec> parseGemmAlgo(const JsonValue &value);

/// Parses and validates a manifest completely (see the top of this file).
/// Errors start with "manifest: " and name the JSON path of the offending
/// value.
StatusOr<Manifest> parseManifest(std::string_view json);

} // namespace mlir::teq::artifact

#endif // TEQ_ARTIFACT_MANIFEST_H

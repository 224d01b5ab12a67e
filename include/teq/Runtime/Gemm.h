//===- Gemm.h - GEMMs on cuBLASLt: plans and the teqGemm ABI --------*- C++ -*-===//
//
// An artifact's GEMMs are described in its manifest ("gemms", GemmSpec in
// Manifest.h) and run by its host code through one C function the runtime
// exports (docs/Artifact.md, "GEMMs"):
//
//   teqGemm(id, a, aScale, b, bScale, c, d, bias, alpha)
//
// Artifact::open builds one GemmPlan per GEMM: the cuBLASLt matmul
// descriptor, the four matrix layouts and the algorithm, chosen once
// (cublasLtMatmulAlgoGetHeuristic with one result, or the manifest's pinned
// "algo" checked with cublasLtMatmulAlgoCheck), so the same artifact on the
// same GPU and cuBLASLt always runs the same algorithm. A call sets only the
// pointer attributes (scales, bias) and enqueues cublasLtMatmul on the stream
// the runtime runs the entry on, with a cuBLASLt workspace of that stream's
// own (WorkspacePool.h): GEMMs on different streams or threads, of one
// artifact or several, never share one.
//
// cuBLASLt is loaded at run time (lib/Runtime/CublasLt.h); this header does
// not include cublasLt.h.
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_RUNTIME_GEMM_H
#define TEQ_RUNTIME_GEMM_H

#include "teq/Runtime/Context.h"
#include "teq/Runtime/Export.h"
#include "teq/Runtime/Json.h"
#include "teq/Runtime/Manifest.h"
#include "teq/Runtime/Status.h"
#include "teq/Runtime/WorkspacePool.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

extern "C" {

/// Runs GEMM `id` of the artifact whose entry is running on this thread:
/// D = alpha * op(A) * op(B) + beta * C (te-semantics.md §6.2), enqueued on
/// the entry's stream. Pointers are device addresses, 0 when absent:
///   aScale, bScale  the operands' scales (required unless the scale mode is
///                   "none"; ignored then)
///   c               read when "accumulate" (beta = 1; may equal d); ignored
///                   otherwise (beta = 0)
///   bias            epilogue "bias": the input bias; "bgradb": the dbias
///                   output; ignored for "default"
///   alpha           "alpha": "device": a device fp32 (NVFP4's folded global
///                   scales); ignored for "host" (alpha = 1)
/// a, b, d and (when read) c must be 256-byte aligned: the algorithm was
/// chosen for such operands. Errors are recorded like the mgpu* functions'
/// (the first one on the thread wins, nothing is printed) and name the GEMM:
///   GEMM 'linear:fc1.fprop' (id 0): cublasLtMatmul failed: CUBLAS_STATUS_...
/// Does nothing while an error is recorded or when the artifact is only being
/// inspected.
TEQ_RUNTIME_EXPORT void teqGemm(int64_t id, uint64_t a, uint64_t aScale,
                                uint64_t b, uint64_t bScale, uint64_t c,
                                uint64_t d, uint64_t bias, uint64_t alpha);

} // extern "C"

namespace mlir::teq::runtime {

/// The device pointers of one GEMM call (0 = absent), as teqGemm takes them.
struct TEQ_RUNTIME_EXPORT GemmPointers {
  DevicePtr a = 0, aScale = 0, b = 0, bScale = 0, c = 0, d = 0, bias = 0,
            alpha = 0;
};

/// The pointers `gemm` needs, checked without touching the device:
///   "GEMM 'x' (id 0): missing the scale pointer of A (e4m3, scale mode
///   scalar_f32)"
///   "GEMM 'x' (id 0): D pointer 0x7f0000000010 is not 256-byte aligned"
TEQ_RUNTIME_EXPORT Status checkGemmPointers(const GemmSpec &gemm,
                                            const GemmPointers &pointers);

/// What was chosen for one GEMM (for te-run --json and benchmarks).
struct TEQ_RUNTIME_EXPORT GemmPlanInfo {
  int64_t id = 0;
  std::string name;
  int64_t m = 0, n = 0, k = 0;
  std::string layout; ///< "TN", "NN", "NT" (transa, transb).
  std::string aType, bType, dType;
  /// The algorithm came from the manifest's "algo" (else the heuristic).
  bool pinned = false;
  /// The GEMM whose plan (descriptor, algorithm) this one runs, or -1
  /// (the manifest's "shares_plan_of").
  int64_t sharesPlanOf = -1;
  // CUBLASLT_ALGO_CONFIG_* of the algorithm.
  int algoId = 0;
  int tile = 0;
  int stages = 0;
  int splitK = 1;
  int reduction = 0;
  int swizzle = 0;
  int custom = 0;
  int innerShape = 0;
  int clusterShape = 0;
  /// Workspace the algorithm needs, and cuBLASLt's wave count estimate.
  uint64_t workspaceBytes = 0;
  float wavesCount = 0.0f;
  /// cuBLASLt that chose it, e.g. "13.1.0".
  std::string cublasLtVersion;

  /// "algo 66 tile 20 stages 31 splitk 1 reduction 0 swizzle 0 custom 0
  /// inner 0 cluster 0" (+ " (pinned)").
  std::string describeAlgorithm() const;
  /// Every field; the algorithm as an object in the manifest's "algo" form,
  /// so it can be pasted into a manifest to pin it.
  JsonValue toJson() const;
};

/// One GEMM, ready to run on one Context (see the file comment).
class TEQ_RUNTIME_EXPORT GemmPlan {
public:
  /// Checks `spec` against the device (checkGemmForDevice), gets the
  /// context's cuBLASLt handle and workspace (Context::gemmResources), builds
  /// the descriptor, layouts and algorithm. Errors name the GEMM and, where
  /// cuBLASLt refused, the problem and the status, e.g.
  ///   "GEMM 'x' (id 0): no cuBLASLt algorithm for m=... on sm_90:
  ///   cublasLtMatmulAlgoGetHeuristic: CUBLAS_STATUS_NOT_SUPPORTED (...)"
  static StatusOr<std::unique_ptr<GemmPlan>>
  create(const GemmSpec &spec, std::shared_ptr<Context> context);

  /// A plan for `spec` that runs `owner`'s descriptor and algorithm (the
  /// manifest's "shares_plan_of"): nothing is set up again, and messages
  /// and info() name `spec`. An error if the two are not one problem and
  /// algorithm (artifact::sameGemmPlan).
  static StatusOr<std::unique_ptr<GemmPlan>> sharing(const GemmSpec &spec,
                                                     const GemmPlan &owner);

  ~GemmPlan();
  GemmPlan(const GemmPlan &) = delete;
  GemmPlan &operator=(const GemmPlan &) = delete;

  const GemmSpec &spec() const;
  const GemmPlanInfo &info() const;

  /// Checks the pointers (checkGemmPointers), sets the pointer attributes and
  /// enqueues cublasLtMatmul on `stream` (a CUstream; null: the context's
  /// stream), with a cuBLASLt workspace of the context's pool taken for
  /// `stream` for this call (workspacePool()). The context must be current
  /// on the calling thread. Does not wait. Thread-safe: calls on one plan
  /// serialize only while they set its pointer attributes and enqueue, and
  /// calls on different streams run at once, each on its own workspace.
  Status run(const GemmPointers &pointers, void *stream = nullptr) const;

  /// As run(), on `workspace`: a cuBLASLt workspace of workspacePool() that
  /// the caller took for `stream` (nullptr not allowed here) and holds
  /// until this call's work is enqueued (teqGemm takes one per entry call
  /// for all of its GEMMs).
  Status runWithWorkspace(const GemmPointers &pointers, void *stream,
                          uint64_t workspace) const;

  /// The context's cuBLASLt workspaces, shared by every plan on it.
  detail::WorkspacePool &workspacePool() const;
  /// The stream run() uses for `stream` (the context's for null).
  void *streamFor(void *stream) const;

private:
  GemmPlan();
  struct Impl;
  /// This GEMM's own spec and report (its id and name).
  GemmSpec spec_;
  GemmPlanInfo info_;
  /// The cuBLASLt state, shared by the GEMMs of one plan.
  std::shared_ptr<Impl> impl_;
};

/// The GEMM plans of one artifact, indexed by GEMM id.
using GemmPlans = std::vector<std::unique_ptr<GemmPlan>>;

namespace detail {
/// While alive on a thread, teqGemm runs the plans `plans` (an artifact's,
/// made current by Entry::run around the entry call) on the stream of the
/// thread's MgpuScope. The first GEMM takes a cuBLASLt workspace from the
/// context's pool for that stream, which every GEMM of the scope uses; the
/// scope gives it back when it ends (an error doing so is recorded as the
/// entry's). Nests; null means no plans ("teqGemm called outside an
/// entry"). `streamState`, if given, is the state of `stateStream` that
/// the caller queried for its own slot (WorkspacePool::streamState), which
/// the workspace lease reuses instead of asking the driver again.
class TEQ_RUNTIME_EXPORT GemmScope {
public:
  explicit GemmScope(const GemmPlans *plans,
                     const WorkspacePool::StreamState *streamState = nullptr,
                     void *stateStream = nullptr);
  ~GemmScope();
  GemmScope(const GemmScope &) = delete;
  GemmScope &operator=(const GemmScope &) = delete;

  /// One entry call's GEMM state (on the caller's stack: no allocation per
  /// call).
  struct State {
    const GemmPlans *plans = nullptr;
    WorkspacePool::Lease lease;
    WorkspacePool *leasePool = nullptr;
    void *leaseStream = nullptr;
    const WorkspacePool::StreamState *streamState = nullptr;
    void *stateStream = nullptr;
    /// Gives the workspace back; an error is recorded as the entry's.
    void releaseWorkspace();
  };

private:
  State state_;
  State *saved_;
};

/// How many GEMMs teqGemm has enqueued on the calling thread (for
/// benchmarks: GEMMs per entry call).
TEQ_RUNTIME_EXPORT uint64_t enqueuedGemmCount();
} // namespace detail

} // namespace mlir::teq::runtime

#endif // TEQ_RUNTIME_GEMM_H

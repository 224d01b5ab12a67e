/*===-- teq-c/Runtime.h - C API of the TEQ runtime ----------------*- C -*-===*\
|*                                                                            *|
|* Loads TEQ artifacts (docs/Artifact.md), lists their entry points and runs  *|
|* them on caller-provided device pointers and CUDA streams. This is what the *|
|* Python runtime module, other languages and frameworks call. Implemented in *|
|* libteq_runtime.so over the C++ runtime (teq/Runtime/Artifact.h); no MLIR   *|
|* dependency, and no cuda.h needed to include this header (CUDA handles are  *|
|* passed as void *).                                                         *|
|*                                                                            *|
|* Handles: a TeqRtContext is one GPU (its primary CUDA context and a stream  *|
|* the runtime owns). A TeqRtArtifact is an artifact loaded on a context, or  *|
|* only its manifest (teqRtArtifactInspect: no GPU needed; listing works,     *|
|* running does not). A TeqRtEntry is borrowed from its artifact and valid    *|
|* while the artifact lives. Strings and shapes the API returns are owned by  *|
|* the handle they came from and valid while it lives.                        *|
|*                                                                            *|
|* Errors: every function that can fail returns a TeqRtStatus and writes its  *|
|* results through out-pointers (left unchanged on failure). A failure sets   *|
|* the calling thread's last error, read with teqRtGetLastError(), e.g.       *|
|*   "artifact 'x.so': cannot load: ..."                                      *|
|*   "entry 'quantize': expected 4 buffers, got 3"                            *|
|* and a success clears it. Nothing aborts or prints: null handles, null      *|
|* out-pointers, indices out of range, unknown entry names and wrong buffer   *|
|* counts are errors with messages that name the problem.                     *|
|*                                                                            *|
|* Threads: handles may be used from any thread (every call makes the         *|
|* context current on the calling thread itself), and entries may run at      *|
|* once from several threads and on several streams: each call gets its own   *|
|* workspaces and module globals (docs/Artifact.md, "Threads, streams and     *|
|* concurrent calls"). Calls on different streams that share buffers are      *|
|* ordered by the caller. Do not destroy a handle another thread is using.    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TEQ_C_RUNTIME_H
#define TEQ_C_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define TEQ_RUNTIME_CAPI_EXPORTED
#else
#define TEQ_RUNTIME_CAPI_EXPORTED __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===*
 * Status and errors
 *===----------------------------------------------------------------------===*/

/// The result of a call that can fail. Compare with TEQ_RT_SUCCESS; the
/// other values say what kind of failure it was (for mapping to exception
/// types), and teqRtGetLastError() says what failed.
typedef enum TeqRtStatus {
  TEQ_RT_SUCCESS = 0,
  /// The runtime or the device failed: loading, manifest, target, CUDA or
  /// cuBLASLt errors, pointers that are not device memory, a kernel fault,
  /// running an artifact that was only inspected.
  TEQ_RT_FAILURE = 1,
  /// The call itself is malformed: a null handle, a null out-pointer, a null
  /// string or buffer array, a wrong number of buffers.
  TEQ_RT_INVALID_ARGUMENT = 2,
  /// An index (entry, argument, buffer, GEMM) is out of range.
  TEQ_RT_OUT_OF_RANGE = 3,
  /// No entry has the given name.
  TEQ_RT_NOT_FOUND = 4
} TeqRtStatus;

/// The message of the calling thread's last failed call, or "" if the last
/// call that can fail succeeded (or none was made). Valid until the next
/// call on this thread that can fail. Never null. teqRtGetLastError, the
/// *Destroy functions and the *IsNull helpers leave it unchanged.
TEQ_RUNTIME_CAPI_EXPORTED const char *teqRtGetLastError(void);

/*===----------------------------------------------------------------------===*
 * Handles
 *===----------------------------------------------------------------------===*/

/// One GPU: the device's primary CUDA context and one stream of the runtime.
typedef struct TeqRtContext {
  void *ptr;
} TeqRtContext;

/// An artifact, loaded on a context or (teqRtArtifactInspect) only its
/// manifest.
typedef struct TeqRtArtifact {
  void *ptr;
} TeqRtArtifact;

/// One entry point of an artifact; borrowed, valid while the artifact lives.
typedef struct TeqRtEntry {
  const void *ptr;
} TeqRtEntry;

static inline bool teqRtContextIsNull(TeqRtContext context) {
  return !context.ptr;
}
static inline bool teqRtArtifactIsNull(TeqRtArtifact artifact) {
  return !artifact.ptr;
}
static inline bool teqRtEntryIsNull(TeqRtEntry entry) { return !entry.ptr; }

/*===----------------------------------------------------------------------===*
 * Context
 *===----------------------------------------------------------------------===*/

/// What the runtime knows about a context's device. Strings are owned by the
/// context.
typedef struct TeqRtDeviceInfo {
  int ordinal;
  /// e.g. "NVIDIA H100 80GB HBM3".
  const char *name;
  /// major*10 + minor (sm_90 -> 90).
  int computeCapability;
  /// "sm_90".
  const char *smName;
  int multiprocessors;
  int64_t totalMemoryBytes;
  int64_t l2CacheBytes;
  /// The CUDA driver's version, e.g. 13000 for CUDA 13.0.
  int driverVersion;
} TeqRtDeviceInfo;

/// Initializes CUDA and creates a context on device `ordinal` (its primary
/// context, made current on the calling thread, and a stream). On success
/// `*context` owns it (teqRtContextDestroy). Errors come from the driver,
/// e.g. "CUDA driver not available: cannot open libcuda.so.1 (...)",
/// "no CUDA device is present", "CUDA device 3 requested, but 1 device is
/// present".
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus teqRtContextCreate(int ordinal,
                                                         TeqRtContext *context);

/// Releases the handle (a null handle is ignored). Artifacts loaded on the
/// context keep the device alive until they are destroyed themselves.
TEQ_RUNTIME_CAPI_EXPORTED void teqRtContextDestroy(TeqRtContext context);

/// The device's name, compute capability, multiprocessors, ...
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtContextGetDeviceInfo(TeqRtContext context, TeqRtDeviceInfo *info);

/// The context's own stream (a CUstream), on which entries run when no
/// stream is given.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtContextGetStream(TeqRtContext context, void **stream);

/// Waits for everything queued on the context's own stream; a kernel fault
/// surfaces here ("stream synchronization failed: CUDA_ERROR_...").
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtContextSynchronize(TeqRtContext context);

/*===----------------------------------------------------------------------===*
 * Artifact
 *===----------------------------------------------------------------------===*/

/// Opens the artifact at `path` (a file path; a name without '/' is in the
/// current directory) on `context`: loads its device code, checks its
/// manifest and target against the device, plans its GEMMs and allocates
/// its workspace. On success `*artifact` owns it (teqRtArtifactDestroy).
/// Errors start with "artifact '<path>'", e.g.
///   "artifact 'x.so': cannot load: ..."
///   "artifact 'x.so': not a TEQ artifact (no trailer)"
///   "artifact 'x.so': checksum mismatch: ..."
///   "artifact 'x.so': manifest: entries[0].args[1]: missing \"shape\""
///   "artifact 'x.so' targets sm_100 but the device is sm_90 (NVIDIA ...)"
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus teqRtArtifactLoad(
    TeqRtContext context, const char *path, TeqRtArtifact *artifact);

/// Reads the manifest of the artifact at `path` without a GPU or a driver
/// and without loading any of its code (from the trailer, checked as
/// teqRtArtifactLoad checks it; docs/Artifact.md, "The artifact file"). The
/// artifact can be listed but not run: teqRtEntryRun returns an error
/// saying so. Errors as teqRtArtifactLoad's, less the device ones.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtArtifactInspect(const char *path, TeqRtArtifact *artifact);

/// Unloads the artifact and frees its workspace (a null handle is ignored).
/// Its entries, strings and shapes become invalid. Work the caller queued
/// must be finished first (synchronize the streams its entries ran on).
TEQ_RUNTIME_CAPI_EXPORTED void teqRtArtifactDestroy(TeqRtArtifact artifact);

/// Whether the artifact was loaded on a context (true) or only inspected.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtArtifactIsLoaded(TeqRtArtifact artifact, bool *loaded);

/// The path it was loaded or inspected from.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtArtifactGetPath(TeqRtArtifact artifact, const char **path);

/// The whole manifest as compact JSON text (docs/Artifact.md, "The
/// manifest"), including the fields this API does not model.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtArtifactGetManifestJson(TeqRtArtifact artifact, const char **json);

/// The manifest's target, e.g. "sm_90a".
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtArtifactGetTarget(TeqRtArtifact artifact, const char **target);

/// How its device code is shipped: "ptx" or "cubin".
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtArtifactGetDeviceCode(TeqRtArtifact artifact, const char **deviceCode);

TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtArtifactGetNumEntries(TeqRtArtifact artifact, size_t *numEntries);

/// Entry `index` (manifest order). TEQ_RT_OUT_OF_RANGE past the end.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtArtifactGetEntry(TeqRtArtifact artifact, size_t index, TeqRtEntry *entry);

/// The entry named `name`; TEQ_RT_NOT_FOUND with "artifact 'x.so': no entry
/// 'y' (entries: a, b)" if there is none.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus teqRtArtifactLookupEntry(
    TeqRtArtifact artifact, const char *name, TeqRtEntry *entry);

/// One GEMM of the artifact's manifest ("gemms", docs/Artifact.md), in
/// cuBLAS's column-major terms: D[m x n] = alpha * op(A) * op(B) (+ C).
/// Strings are static or owned by the artifact.
typedef struct TeqRtGemmInfo {
  int64_t id;
  /// e.g. "linear:fc1.fprop".
  const char *name;
  int64_t m, n, k;
  bool transa, transb;
  /// "e4m3", "e5m2", "e2m1", "bf16", "f16" or "f32".
  const char *aType;
  const char *bType;
  const char *dType;
  int64_t lda, ldb, ldd;
  /// "none", "scalar_f32", "vec128_f32", "blk128x128_f32", "vec32_ue8m0",
  /// "vec16_ue4m3".
  const char *aScaleMode;
  const char *bScaleMode;
  /// "default", "bias" or "bgradb".
  const char *epilogue;
  /// beta = 1: C is read.
  bool accumulate;
  bool fastAccum;
  /// The id of the earlier GEMM whose cuBLASLt plan this one runs (the
  /// same problem: the same Linear in every layer), or -1.
  int64_t sharesPlanOf;
} TeqRtGemmInfo;

TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtArtifactGetNumGemms(TeqRtArtifact artifact, size_t *numGemms);

/// GEMM `index` (= its id). TEQ_RT_OUT_OF_RANGE past the end.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus teqRtArtifactGetGemmInfo(
    TeqRtArtifact artifact, size_t index, TeqRtGemmInfo *info);

/*===----------------------------------------------------------------------===*
 * Entry: arguments, buffers, workspace
 *===----------------------------------------------------------------------===*/

/// How an entry uses an argument. Results are the OUTPUT arguments.
typedef enum TeqRtArgKind {
  TEQ_RT_ARG_INPUT = 0,  ///< Read.
  TEQ_RT_ARG_OUTPUT = 1, ///< Written.
  TEQ_RT_ARG_INOUT = 2   ///< Read and updated in place.
} TeqRtArgKind;

/// One argument of an entry: a tensor (one buffer) or a quantized tensor
/// (a proto: several buffers, e.g. data and scale_inv). Strings and the
/// shape are owned by the artifact.
typedef struct TeqRtArgInfo {
  const char *name;
  TeqRtArgKind kind;
  /// A quantized tensor (!teq.proto); otherwise a plain tensor.
  bool isProto;
  /// The tensor's dtype ("f32", "bf16", "f16", "i64"), or for a proto the
  /// high-precision dtype it was quantized from.
  const char *dtype;
  /// The logical shape (rank entries).
  size_t rank;
  const int64_t *shape;
  /// Its buffers are flat buffers firstBuffer .. firstBuffer+numBuffers-1.
  size_t numBuffers;
  size_t firstBuffer;
  /// Sum of its buffers' bytes.
  int64_t bytes;
  /// Protos: the quantizer kind (e.g. "float8_current_scaling", "mxfp8"),
  /// the usage ("rowwise", "columnwise", "rowwise|columnwise"), the scale
  /// layout ("compact", "gemm_swizzled" or "") and every quantizer field as
  /// a JSON object. Tensors: "" each.
  const char *quantizerKind;
  const char *usage;
  const char *scaleLayout;
  const char *quantizerJson;
  /// What the argument is to a training step (the manifest's "role":
  /// "input", "parameter", "output", "saved", "state", "state_update",
  /// "grad_output", "grad", "main_grad") and the value it refers to
  /// ("of"); "" each where the manifest does not say.
  const char *role;
  const char *roleOf;
  /// An output that is input argument `aliasOf` returned as is (the
  /// manifest's "alias_of"), else "". It has no buffers (numBuffers 0,
  /// bytes 0): teqRtEntryRun takes no pointer for it and the entry writes
  /// nothing; its value is the buffers the caller passed for that input.
  const char *aliasOf;
} TeqRtArgInfo;

/// One device buffer of an entry's flat buffer list (the pointers
/// teqRtEntryRun takes, in order). Strings and shapes are owned by the
/// artifact.
typedef struct TeqRtBufferInfo {
  /// The argument it belongs to, and its position among that argument's
  /// buffers.
  size_t argIndex;
  size_t bufferIndex;
  /// "tensor" for a tensor argument; a proto's buffer name ("data",
  /// "scale_inv", "columnwise_data", ...).
  const char *name;
  /// The element encoding: "f32", "bf16", "f16", "i64", "e4m3", "e5m2",
  /// "e8m0", "e2m1x2".
  const char *encoding;
  /// The allocated shape (padding included) and its meaningful region,
  /// rank entries each.
  size_t rank;
  const int64_t *shape;
  const int64_t *validShape;
  /// Bytes the pointer must have room for.
  int64_t bytes;
  /// Stored transposed (a columnwise copy).
  bool transposed;
  /// Scale buffers: "compact" or "gemm_swizzled"; otherwise "".
  const char *scaleLayout;
} TeqRtBufferInfo;

/// The entry's name (teq_entry_<name> in the library).
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus teqRtEntryGetName(TeqRtEntry entry,
                                                        const char **name);

TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus teqRtEntryGetNumArgs(TeqRtEntry entry,
                                                           size_t *numArgs);

/// Argument `index`. TEQ_RT_OUT_OF_RANGE past the end.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus teqRtEntryGetArgInfo(TeqRtEntry entry,
                                                           size_t index,
                                                           TeqRtArgInfo *info);

/// How many device pointers teqRtEntryRun takes.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtEntryGetNumBuffers(TeqRtEntry entry, size_t *numBuffers);

/// Flat buffer `index`. TEQ_RT_OUT_OF_RANGE past the end.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtEntryGetBufferInfo(TeqRtEntry entry, size_t index, TeqRtBufferInfo *info);

/// Bytes of the entry's temporaries (0 if none). The runtime allocates and
/// passes this workspace itself (one per stream running the artifact's
/// entries at once): callers never pass it.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtEntryGetWorkspaceBytes(TeqRtEntry entry, int64_t *bytes);

/*===----------------------------------------------------------------------===*
 * Parallel groups: NCCL communicators (teq/Runtime/Communicator.h)
 *===----------------------------------------------------------------------===*/

/// NCCL's ncclUniqueId: created on one rank (teqRtUniqueIdCreate) and passed
/// by the caller to every rank of the group (threads, processes or hosts).
#define TEQ_RT_UNIQUE_ID_BYTES 128
typedef struct TeqRtUniqueId {
  char internal[TEQ_RT_UNIQUE_ID_BYTES];
} TeqRtUniqueId;

/// One rank's NCCL communicator of one parallel group, on a context's GPU.
typedef struct TeqRtCommunicator {
  void *ptr;
} TeqRtCommunicator;

static inline bool teqRtCommunicatorIsNull(TeqRtCommunicator communicator) {
  return !communicator.ptr;
}

/// ncclGetUniqueId. NCCL (libnccl.so.2) is loaded on first use: from
/// $TEQ_NCCL_LIBRARY (the library or its directory) if set, else the library
/// search path (a copy already loaded, e.g. PyTorch's, included), else the
/// CUDA toolkit's directories. Errors: "NCCL not available: ...".
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus teqRtUniqueIdCreate(TeqRtUniqueId *id);

/// How teqRtCommunicatorCreateWithOptions waits for the other ranks.
typedef struct TeqRtCommunicatorOptions {
  /// Give up after this many seconds (the pending communicator is aborted);
  /// 0: wait as long as it takes. Default 0.
  double timeoutSeconds;
  /// Called on the creating thread about every millisecond while NCCL waits
  /// for the other ranks; nonzero gives up (e.g. the caller learnt that
  /// another rank failed, which would leave this one waiting forever).
  /// NULL: never. Default NULL.
  int (*shouldAbort)(void *shouldAbortData);
  void *shouldAbortData;
} TeqRtCommunicatorOptions;

/// timeoutSeconds = 0, shouldAbort = NULL.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtCommunicatorOptions
teqRtCommunicatorOptionsGetDefault(void);

/// An NCCL communicator (ncclCommInitRankConfig; NCCL 2.14 or later) on the
/// context's device: rank `rank` of `size`, from `id`; non-blocking where
/// `options` give a timeout or an abort check (each collective then costs
/// more host time), blocking otherwise.
/// Returns once every rank of the group has called it (ranks of one process
/// call it from threads of their own), or once `options` (may be NULL: the
/// defaults) say to give up. `name` (may be NULL) labels the group in
/// messages, e.g. "tp". On success `*communicator` owns it
/// (teqRtCommunicatorDestroy); on failure it is null. Errors, e.g.
/// "communicator 'tp' (rank 2 of 2): rank 2 is out of range for a group of
/// 2 ranks", "...: the unique id is empty (...)", "...:
/// ncclCommInitRankConfig failed: ncclUnhandledCudaError (...); NCCL: ...",
/// "...: initialization timed out after 30 s: not every rank of the group
/// joined (...)", "...: initialization aborted: the caller's shouldAbort
/// returned nonzero".
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus teqRtCommunicatorCreateWithOptions(
    TeqRtContext context, const TeqRtUniqueId *id, int size, int rank,
    const char *name, const TeqRtCommunicatorOptions *options,
    TeqRtCommunicator *communicator);

/// teqRtCommunicatorCreateWithOptions with the default options: waits for
/// every rank as long as it takes.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus teqRtCommunicatorCreate(
    TeqRtContext context, const TeqRtUniqueId *id, int size, int rank,
    const char *name, TeqRtCommunicator *communicator);

/// ncclCommDestroy (ncclCommAbort after an NCCL error); a null handle is
/// ignored. Work that uses it must be finished first.
TEQ_RUNTIME_CAPI_EXPORTED void
teqRtCommunicatorDestroy(TeqRtCommunicator communicator);

TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtCommunicatorGetSize(TeqRtCommunicator communicator, int *size);
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtCommunicatorGetRank(TeqRtCommunicator communicator, int *rank);
/// The ncclComm_t, for callers that include nccl.h themselves.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtCommunicatorGetNcclComm(TeqRtCommunicator communicator, void **comm);

/// ncclCommAbort: stops the communicator's collectives, so that a rank
/// waiting for a peer that failed returns (its entry's synchronization then
/// fails); later runs with it fail. Safe from another thread while an entry
/// waits on it. Idempotent.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtCommunicatorAbort(TeqRtCommunicator communicator);

/// Fails with the error NCCL found while the communicator's collectives ran
/// (ncclCommGetAsyncError), if any.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtCommunicatorCheckAsyncError(TeqRtCommunicator communicator);

/// One parallel group an entry communicates over (the manifest's "groups").
/// The name is owned by the artifact.
typedef struct TeqRtGroupInfo {
  /// e.g. "tp".
  const char *name;
  /// Ranks in the group: the size its communicator must have.
  int64_t size;
} TeqRtGroupInfo;

/// How many groups the entry communicates over (0 for a one-GPU entry).
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus teqRtEntryGetNumGroups(TeqRtEntry entry,
                                                             size_t *numGroups);

/// Group `index`. TEQ_RT_OUT_OF_RANGE past the end.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtEntryGetGroupInfo(TeqRtEntry entry, size_t index, TeqRtGroupInfo *info);

/*===----------------------------------------------------------------------===*
 * Running an entry
 *===----------------------------------------------------------------------===*/

typedef struct TeqRtRunOptions {
  /// Check every pointer before the call: device memory of the context's
  /// device, with room for the buffer's bytes. A few driver calls per
  /// buffer. Default true.
  bool validate;
  /// Wait for the entry's work on its stream to finish, so that a kernel
  /// fault is this call's error. Default false.
  bool synchronize;
  /// Run the entry as a CUDA graph, captured on the first call with these
  /// buffer addresses and replayed on later calls with the same ones (one
  /// graph launch instead of the host work of each kernel launch; results
  /// bit for bit those of a direct call). Each graph keeps workspaces of its
  /// own until the artifact is destroyed; past 16 buffer sets the entry runs
  /// directly. Refused for entries that communicate. Default false.
  bool graph;
} TeqRtRunOptions;

/// validate = true, synchronize = false, graph = false.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtRunOptions teqRtRunOptionsGetDefault(void);

/// Enqueues entry `entry` on `stream` with the device pointers `buffers`
/// (numBuffers of them, one per flat buffer, in teqRtEntryGetBufferInfo's
/// order; `buffers` may be null when there are none). The workspace is
/// passed by the runtime. `stream` is a CUstream of the context's device (in
/// its primary context, as frameworks use), or NULL for the context's own
/// stream; note that NULL does not mean CUDA's legacy default stream: pass
/// CU_STREAM_LEGACY ((void *)0x1) for that (e.g. PyTorch's default stream,
/// whose handle is 0). `options` may be NULL (teqRtRunOptionsGetDefault()).
/// Returns when the work is queued, unless options->synchronize.
///
/// Calls may run concurrently, from several threads and on several streams:
/// the runtime gives each its own workspaces and module globals; buffers
/// shared between calls on different streams are ordered by the caller.
///
/// Result buffers must be 256-byte aligned and overlap no other buffer
/// (teqRtEntryCheckBuffers); this is checked on every call, with or without
/// options->validate.
///
/// Errors, e.g.:
///   "entry 'e': expected 4 buffers, got 3" (TEQ_RT_INVALID_ARGUMENT)
///   "entry 'e': result 'dx' overlaps argument 'x'"
///   "entry 'e': pointer for argument 'x' is not device memory"
///   "entry 'e': argument 'x' buffer 0: 65536 bytes needed, 32768 given"
///   "entry 'e': kernel 'k' launch failed: CUDA_ERROR_..."
///   "entry 'e': execution failed: stream synchronization failed: ..."
///   "entry 'e': artifact 'x.so' was opened for inspection only; load it on
///   a context (teqRtArtifactLoad) to run its entries"
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus
teqRtEntryRun(TeqRtEntry entry, const uint64_t *buffers, size_t numBuffers,
              void *stream, const TeqRtRunOptions *options);

/// teqRtEntryRun for an entry that communicates: `communicators` holds one
/// communicator per group of the entry (teqRtEntryGetGroupInfo's order),
/// `numCommunicators` of them (may be NULL when 0). They are checked against
/// the groups (count, size, device) before anything runs, e.g.
///   "entry 'mlp' needs 1 communicator (group 'tp' of 2 ranks), got 0: ..."
///   "entry 'mlp': group 0 ('tp') has 2 ranks, but its communicator has 4
///   (it is rank 1 of 4)"
/// A failed collective names the group and NCCL's message:
///   "entry 'mlp': group 0 ('tp'): all-reduce (sum) on communicator 'tp'
///   (rank 0 of 2): ncclAllReduce failed: ..."
/// With options->synchronize, errors NCCL found asynchronously are reported
/// too. Every rank must run the same entries in the same order: runs that
/// share a communicator are enqueued one at a time (a run's collectives stay
/// together) and execute in the order they were enqueued, on whatever
/// streams; runs from several threads of a rank must be ordered by the
/// caller, the same way on every rank.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus teqRtEntryRunWithCommunicators(
    TeqRtEntry entry, const uint64_t *buffers, size_t numBuffers,
    const TeqRtCommunicator *communicators, size_t numCommunicators,
    void *stream, const TeqRtRunOptions *options);

/// The pointer checks of teqRtEntryRun (count, device memory, sizes, then
/// the caller's contract as teqRtEntryCheckBuffers) without running the
/// entry.
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus teqRtEntryValidate(
    TeqRtEntry entry, const uint64_t *buffers, size_t numBuffers);

/// The caller's contract on an entry's buffers, which teqRtEntryRun always
/// checks (with or without options->validate): every buffer of a result
/// (an output or inout argument) is 256-byte aligned and overlaps no other
/// buffer of the call, an input's or another result's. The entry may keep
/// temporaries in a result's bytes until it writes that result, so a result
/// sharing memory with anything else would be corrupted or corrupt it.
/// Inputs may share memory with each other. Pointer arithmetic only: works
/// on an inspected artifact's entries too. TEQ_RT_INVALID_ARGUMENT here
/// (teqRtEntryRun and teqRtEntryValidate report the same messages as
/// TEQ_RT_FAILURE, like their other pointer checks), e.g.
///   "entry 'e': result 'dx' overlaps argument 'x'"
///   "entry 'e': result 'y' buffer 1 ('transpose') overlaps result 'dw'"
///   "entry 'e': result 'dw' at 0x7f0000000010 is not 256-byte aligned"
TEQ_RUNTIME_CAPI_EXPORTED TeqRtStatus teqRtEntryCheckBuffers(
    TeqRtEntry entry, const uint64_t *buffers, size_t numBuffers);

#ifdef __cplusplus
}
#endif

#endif /* TEQ_C_RUNTIME_H */

//===- Artifact.h - Loading and calling a TEQ artifact --------------*- C++ -*-===//
//
// An artifact is a shared library written by te-compile (docs/Artifact.md):
// one teq_entry_<name>(void **buffers) per entry point and module
// constructors that load its device code through the mgpu* functions of this
// runtime when the library is opened, followed by a trailer with the
// manifest, the file's length and its checksum (teq/Runtime/ArtifactFile.h),
// which the runtime checks before it loads any code.
//
//   auto context = Context::create(0);
//   auto artifact = Artifact::open("quantize.so", *context);
//   const Entry *entry = (*artifact)->findEntry("quantize_current");
//   Status status = entry->run({x.ptr(), data.ptr(), transpose.ptr(),
//                               scaleInv.ptr()});
//
// Symbol resolution: the artifact's undefined mgpu* references must resolve
// against libteq_runtime.so, so the runtime has to be in the global symbol
// scope. That holds when the executable links libteq_runtime.so (te-run
// does); for a host loaded with RTLD_LOCAL (a Python extension module), open()
// first re-opens libteq_runtime.so with RTLD_NOLOAD | RTLD_GLOBAL, which
// promotes the already loaded runtime to the global scope. The artifact
// itself is opened RTLD_NOW | RTLD_LOCAL, so several artifacts coexist.
//
// GEMMs and temporaries: open() builds one GemmPlan per manifest GEMM (the
// algorithm is chosen there, once) and a pool of per-call state
// (WorkspacePool.h) whose slots each hold one entry workspace of the largest
// "workspace_bytes" over the entries and one instance of the kernels' module
// globals (Mgpu.h); run() takes a slot for its stream, makes the plans
// current for the artifact's teqGemm calls (which take a cuBLASLt workspace
// for that stream from the context) and passes the slot's workspace as the
// entry's last pointer. Callers pass argument buffers only, and none for an
// alias output (ArgSpec::aliasOf: an input returned as is; its value is the
// buffers passed for that input).
//
// Threads and streams: entries of one artifact (the same entry too) may run
// at once from several threads and on several streams (RunOptions::stream),
// and several artifacts and Contexts may be used at once: nothing the
// runtime keeps for a call is shared with a call that may run concurrently
// (docs/Artifact.md, "Threads, streams and concurrent calls"). Calls on one
// stream run in order; calls on different streams are ordered only by the
// caller (events), exactly as for any other work on those streams: the
// runtime orders its own state, never the caller's buffers. An Artifact (and
// its Entries) must not be destroyed while another thread is calling it.
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_RUNTIME_ARTIFACT_H
#define TEQ_RUNTIME_ARTIFACT_H

#include "teq/Runtime/Communicator.h"
#include "teq/Runtime/Context.h"
#include "teq/Runtime/DeviceBuffer.h"
#include "teq/Runtime/Export.h"
#include "teq/Runtime/Gemm.h"
#include "teq/Runtime/Manifest.h"
#include "teq/Runtime/Status.h"
#include "teq/Runtime/WorkspacePool.h"

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::teq::runtime {

class Artifact;

struct TEQ_RUNTIME_EXPORT RunOptions {
  /// Check every pointer: device memory of this context's device, with at
  /// least the buffer's bytes from the pointer to the end of its allocation.
  /// Costs a few driver calls per buffer; benchmarks validate once and then
  /// turn it off.
  bool validate = true;
  /// Wait for the entry's work to finish (so asynchronous kernel faults are
  /// reported by this call): the stream it ran on is synchronized.
  bool synchronize = false;
  /// The stream (a CUstream) to run the entry's kernels and GEMMs on; null:
  /// the context's stream. It must belong to the context's CUDA context (the
  /// device's primary context, which frameworks use too). Calls on different
  /// streams may run concurrently (each gets its own workspaces and module
  /// globals); the caller orders them where they share buffers.
  void *stream = nullptr;
  /// One communicator per parallel group of the entry (Entry::groups(), in
  /// that order; teq/Runtime/Communicator.h), on the context's device.
  /// Checked before anything runs; they must outlive the entry's work.
  std::vector<const Communicator *> communicators;
  /// Run the entry as a CUDA graph: the first call with a set of buffer
  /// addresses captures the entry's launches and GEMMs (on a private
  /// stream, nothing runs then) and instantiates them; that call and every
  /// later call with the same addresses launch the graph on `stream` (one
  /// cuGraphLaunch instead of the host work of each launch). The results
  /// are those of a direct call, bit for bit. Each graph keeps a workspace
  /// of its own (the entry's and cuBLASLt's) until the artifact is closed;
  /// past Entry::kMaxGraphs buffer sets an entry runs directly. Calls on a
  /// stream that is itself capturing (a framework's CUDA graph) run
  /// directly: the outer capture records them. Entries with collectives
  /// are refused (their communicators' work is not captured).
  bool graph = false;
};

/// Entry::checkBuffers on a manifest's entry alone (an artifact opened for
/// inspection has no Entry to run): the count, and each result buffer
/// 256-byte aligned and disjoint from every other buffer of the call.
TEQ_RUNTIME_EXPORT Status
checkBufferContract(const EntrySpec &entry,
                    const std::vector<DevicePtr> &buffers);

/// One entry point of an opened artifact. Owned by its Artifact.
class TEQ_RUNTIME_EXPORT Entry {
public:
  const EntrySpec &spec() const { return *spec_; }
  const std::string &name() const { return spec_->name; }
  size_t numBuffers() const { return spec_->numBuffers(); }
  /// The parallel groups the entry communicates over (the manifest's
  /// "groups"); RunOptions::communicators gives one communicator for each.
  const std::vector<GroupSpec> &groups() const { return spec_->groups; }

  /// Checks `buffers` (argument buffers only) against the manifest without
  /// calling the entry: each pointer with the driver, then the caller's
  /// contract (checkBuffers):
  ///   "entry 'e': expected 4 buffers, got 3"
  ///   "entry 'e': pointer for argument 'x' is not device memory"
  ///   "entry 'e': argument 'x' buffer 0: 65536 bytes needed, 32768 given"
  /// Communicators are checked by run() (checkCommunicators).
  Status validate(const std::vector<DevicePtr> &buffers) const;

  /// The caller's contract on the buffers (docs/Artifact.md, "The caller's
  /// buffers"), checked on the pointers alone (no driver call, so an
  /// inspected artifact can check too; run() always does): every buffer of a
  /// result (an output or inout argument) is 256-byte aligned and overlaps
  /// no other buffer of the call, an input's or a result's. The entry may
  /// keep temporaries in a result's bytes before it writes that result, so
  /// a result that shares memory with anything else would corrupt it.
  ///   "entry 'e': result 'dx' overlaps argument 'x'"
  ///   "entry 'e': result 'y' buffer 1 ('transpose') overlaps result 'dw'"
  ///   "entry 'e': result 'dw' at 0x7f0000000010 is not 256-byte aligned"
  /// Null pointers and empty buffers are left to validate().
  Status checkBuffers(const std::vector<DevicePtr> &buffers) const;

  /// Calls teq_entry_<name>(buffers) on options.stream (default: the
  /// context's stream): clears the thread's mgpu error state, calls, and
  /// returns what was recorded ("entry 'e': kernel 'k' launch failed:
  /// CUDA_ERROR_...", "entry 'e':
  /// GEMM 'g' (id 0): cublasLtMatmul failed: ..."). `buffers` are the
  /// argument buffers; an entry with "workspace_bytes" gets the workspace
  /// of the slot it runs in appended (Artifact::workspaces()). The
  /// artifact's GEMM plans are current on the thread during the call.
  /// Thread-safe: calls from several threads, on one stream or several, do
  /// not share any state of the runtime's (a communicator serializes its
  /// own collectives). An entry with groups needs options.communicators,
  /// checked against its groups first (checkCommunicators); its
  /// collectives run on them, and with options.synchronize NCCL's
  /// asynchronous errors are reported too.
  Status run(const std::vector<DevicePtr> &buffers,
             const RunOptions &options = {}) const;

  /// Buffer sets an entry keeps a CUDA graph for (RunOptions::graph).
  static constexpr size_t kMaxGraphs = 16;
  /// The CUDA graphs the entry holds (one per buffer set run with
  /// RunOptions::graph).
  size_t graphCount() const;

private:
  friend class Artifact;
  using EntryFunction = void (*)(void **);
  struct Graphs;
  /// Enqueues the entry on `stream` (its workspace slot, launches and GEMMs)
  /// after the checks.
  Status enqueue(const std::vector<DevicePtr> &buffers, void *stream,
                 const detail::WorkspacePool::StreamState &streamState,
                 const RunOptions &options) const;
  /// Launches the graph of `buffers` on `stream`, capturing it first if
  /// there is none; false (nothing launched) if the entry holds kMaxGraphs.
  StatusOr<bool> launchGraph(const std::vector<DevicePtr> &buffers,
                             void *stream, const RunOptions &options) const;
  /// Destroys the graphs (the context is current, their work finished).
  void destroyGraphs() const;
  /// The last buffers that met the caller's contract (checkBuffers is a
  /// function of the pointers alone, so the same pointers pass again):
  /// a call with the previous call's buffers skips the sort. Shared by the
  /// threads calling the entry, behind its own lock.
  struct CheckedBuffers {
    std::mutex mutex;
    std::vector<DevicePtr> buffers;
  };
  /// checkBuffers, remembered in checked_.
  Status checkBuffersCached(const std::vector<DevicePtr> &buffers) const;
  /// validate() with the context already current.
  Status validatePointers(const std::vector<DevicePtr> &buffers) const;

  const Artifact *artifact_ = nullptr;
  const EntrySpec *spec_ = nullptr;
  EntryFunction function_ = nullptr;
  std::unique_ptr<CheckedBuffers> checked_;
  /// Shared (not unique) so Graphs may stay incomplete here.
  std::shared_ptr<Graphs> graphs_;
};

class TEQ_RUNTIME_EXPORT Artifact {
public:
  /// Reads and checks the artifact file at `path` as inspect() does, checks
  /// that it is for this machine and its target and GEMMs against the
  /// device, and only then makes `context` current and dlopens it (running
  /// its module constructors, which load the device code), plans its GEMMs,
  /// sets up its per-call workspaces and resolves every entry's symbol.
  /// Errors start with "artifact '<path>'", e.g.
  ///   "artifact 'x.so': truncated: its TEQ note records 123456 bytes, the
  ///    file has 1000"
  ///   "artifact 'x.so': manifest: entries[0].args[1]: missing \"shape\""
  ///   "artifact 'x.so' targets sm_100 but the device is sm_90 (NVIDIA ...)"
  ///   "artifact 'x.so': loading PTX module failed: ...; PTX JIT log: ..."
  ///   "artifact 'x.so': GEMM 'g' (id 0): no cuBLASLt algorithm for ..."
  ///   "artifact 'x.so': GEMM 'g' (id 0): cuBLASLt not available: ..."
  static StatusOr<std::unique_ptr<Artifact>>
  open(const std::string &path, std::shared_ptr<Context> context);

  /// The manifest of the artifact at `path`, without a GPU or a driver and
  /// without loading any of its code (for `te-run --list`): the file is read
  /// and its trailer checked (length, format version, checksum;
  /// teq/Runtime/ArtifactFile.h), the manifest read from the trailer and
  /// validated (parseManifest), and every entry's symbol looked up in the
  /// library's dynamic symbol table. Errors start with "artifact '<path>': ",
  /// e.g. "not a TEQ artifact (no trailer)", "checksum mismatch: ...",
  /// "entry 'e': the library does not export its symbol 'teq_entry_e'".
  static StatusOr<Manifest> inspect(const std::string &path);

  ~Artifact();
  Artifact(const Artifact &) = delete;
  Artifact &operator=(const Artifact &) = delete;

  const std::string &path() const { return path_; }
  const Manifest &manifest() const { return manifest_; }
  const std::shared_ptr<Context> &context() const { return context_; }
  const std::vector<Entry> &entries() const { return entries_; }
  /// The entry `name`, or nullptr.
  const Entry *findEntry(std::string_view name) const;
  /// The entry `name`, or "artifact '<path>': no entry 'name' (entries: a, b)".
  StatusOr<const Entry *> entry(std::string_view name) const;

  /// One plan per manifest GEMM, indexed by id.
  const GemmPlans &gemmPlans() const { return gemmPlans_; }
  /// What was chosen for each GEMM (algorithm, workspace), indexed by id.
  std::vector<GemmPlanInfo> gemmPlanInfos() const;
  /// The per-call state of the entries: slots of one entry workspace each
  /// (bytes() = the largest "workspace_bytes", 0 if no entry has
  /// temporaries) and of one instance of the kernels' module globals.
  /// run() takes a slot for its stream; calls on one stream share one slot
  /// in stream order, concurrent calls get slots of their own.
  detail::WorkspacePool &workspaces() const { return *workspaces_; }

private:
  Artifact() = default;
  std::string path_;
  std::shared_ptr<Context> context_;
  void *handle_ = nullptr; ///< dlopen handle.
  Manifest manifest_;
  std::vector<Entry> entries_;
  GemmPlans gemmPlans_;
  /// After context_: destroyed (waiting for its slots' last uses) first.
  std::unique_ptr<detail::WorkspacePool> workspaces_;
};

} // namespace mlir::teq::runtime

#endif // TEQ_RUNTIME_ARTIFACT_H

//===- Artifact.cpp - Loading and calling a TEQ artifact ------------------===//

#include "teq/Runtime/Artifact.h"

#include "teq/Runtime/ArtifactFile.h"
#include "teq/Runtime/Mgpu.h"

#include "Driver.h"
#include "Internal.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <mutex>

namespace mlir::teq::runtime {

using detail::checkCU;
using detail::describeCUresult;
using detail::getDriver;
using detail::MgpuScope;

namespace {

std::string artifactPrefix(const std::string &path) {
  return "artifact '" + path + "'";
}

/// dlopen searches the library path for names without a slash; an artifact
/// path is a file path.
std::string dlopenPath(const std::string &path) {
  if (path.find('/') == std::string::npos)
    return "./" + path;
  return path;
}

/// Puts libteq_runtime.so (already loaded: this code is in it) into the
/// global symbol scope, so that the artifact's undefined mgpu* references
/// resolve even when the runtime was loaded RTLD_LOCAL (as a dependency of a
/// Python extension module). Best effort: if it fails, dlopen of the artifact
/// reports the unresolved symbol.
void promoteRuntimeToGlobalScope() {
  static std::once_flag once;
  std::call_once(once, [] {
    Dl_info info;
    if (!dladdr(reinterpret_cast<void *>(&mgpuModuleLoadJIT), &info) ||
        !info.dli_fname)
      return;
    // The handle is kept: the runtime stays loaded for the process.
    (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
    (void)dlerror();
  });
}

struct Opened {
  void *handle = nullptr;
  std::string error; ///< dlerror() if handle is null.
};

Opened openLibrary(const std::string &path) {
  promoteRuntimeToGlobalScope();
  (void)dlerror();
  Opened opened;
  opened.handle = dlopen(dlopenPath(path).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!opened.handle) {
    const char *message = dlerror();
    opened.error = message ? message : "unknown dlopen error";
    if (opened.error.find("undefined symbol: mgpu") != std::string::npos)
      opened.error += " (the artifact calls a runtime function this runtime "
                      "does not provide, or libteq_runtime.so is not in the "
                      "global symbol scope)";
  }
  return opened;
}

/// The manifest of the artifact file at `path`, read and checked without
/// loading any of its code: the file's trailer and checksum, the manifest,
/// and the entry symbols against the library's dynamic symbol table. With
/// `forLoading`, also that the library is for this machine.
StatusOr<Manifest> readArtifact(const std::string &path, bool forLoading) {
  const std::string prefix = artifactPrefix(path);
  auto bytes = readFileBytes(path);
  if (!bytes.ok())
    return bytes.status().withPrefix(prefix + ": cannot load");
  auto parts = verifyArtifactFile(*bytes);
  if (!parts.ok())
    return parts.status().withPrefix(prefix);
  auto manifest = parseManifest(parts->manifest);
  if (!manifest.ok())
    return manifest.status().withPrefix(prefix);
  if (forLoading)
    TEQ_RETURN_IF_ERROR(checkElfMachine(parts->library).withPrefix(prefix));
  auto exported = readExportedFunctions(parts->library);
  if (!exported.ok())
    return exported.status().withPrefix(prefix);
  for (const EntrySpec &entry : manifest->entries)
    if (!exported->count(entry.symbol))
      return Status::error(prefix + ": entry '" + entry.name +
                           "': the library does not export its symbol '" +
                           entry.symbol + "'");
  return manifest;
}

} // namespace

//===----------------------------------------------------------------------===//
// Artifact
//===----------------------------------------------------------------------===//

StatusOr<Manifest> Artifact::inspect(const std::string &path) {
  return readArtifact(path, /*forLoading=*/false);
}

StatusOr<std::unique_ptr<Artifact>>
Artifact::open(const std::string &path, std::shared_ptr<Context> context) {
  const std::string prefix = artifactPrefix(path);
  if (!context)
    return Status::error(prefix + ": no CUDA context given");
  // Everything that can be checked without loading code is checked before
  // dlopen: the file, its manifest and symbols, then the manifest against
  // the device (a target mismatch explains itself better than a JIT log).
  auto manifest = readArtifact(path, /*forLoading=*/true);
  if (!manifest.ok())
    return manifest.status();
  const Manifest &m = *manifest;
  const DeviceInfo &device = context->device();
  if (!isTargetCompatible(m.target, m.deviceCode, device.computeCapability)) {
    std::string why;
    if (m.target.suffix == 'a')
      why = "; architecture-specific ('a') code runs only on " +
            m.target.name.substr(0, m.target.name.size() - 1);
    else if (m.deviceCode == DeviceCodeKind::Cubin ||
             m.target.suffix == 'f')
      why = "; " + std::string(m.target.suffix == 'f' ? "family ('f') code"
                                                       : "cubin") +
            " runs only on the same major compute capability";
    return Status::error(prefix + " targets " + m.target.name +
                         " but the device is " + device.smName() + " (" +
                         device.name + ")" + why);
  }
  for (const GemmSpec &gemm : m.gemms)
    TEQ_RETURN_IF_ERROR(
        checkGemmForDevice(gemm, device.computeCapability).withPrefix(prefix));
  TEQ_RETURN_IF_ERROR(context->makeCurrent().withPrefix(prefix));

  // Module constructors run inside dlopen: they load the device code through
  // mgpuModuleLoad[JIT] and record the first failure.
  clearMgpuError();
  Opened opened;
  {
    MgpuScope scope(context->stream(), /*inspectOnly=*/false);
    opened = openLibrary(path);
  }
  Status constructorError = takeMgpuError();
  if (!opened.handle)
    return Status::error(prefix + ": cannot load: " + opened.error);

  std::unique_ptr<Artifact> artifact(new Artifact());
  artifact->path_ = path;
  artifact->context_ = context;
  artifact->handle_ = opened.handle; // closed by ~Artifact from here on
  artifact->manifest_ = std::move(*manifest);
  if (!constructorError.ok())
    return constructorError.withPrefix(prefix);

  // GEMMs: descriptors and algorithms, chosen once here so that every run
  // uses the same ones.
  const Manifest &loaded = artifact->manifest_;
  artifact->gemmPlans_.reserve(loaded.gemms.size());
  for (const GemmSpec &gemm : loaded.gemms) {
    // parseManifest: a GEMM shares the plan of an earlier one that owns it.
    auto plan =
        gemm.sharesPlanOf >= 0
            ? GemmPlan::sharing(gemm, *artifact->gemmPlans_[gemm.sharesPlanOf])
            : GemmPlan::create(gemm, context);
    if (!plan.ok())
      return plan.status().withPrefix(prefix);
    artifact->gemmPlans_.push_back(std::move(*plan));
  }
  // Per-call state: slots of the entries' workspace (the largest one) and of
  // the kernels' module globals; a call takes one for its stream, so calls
  // on other streams or threads never share them (WorkspacePool.h).
  auto workspaces = detail::WorkspacePool::create(
      detail::makeCudaWorkspaceDevice(context->cuContext()),
      static_cast<uint64_t>(std::max<int64_t>(loaded.maxWorkspaceBytes(), 0)),
      "entry workspace");
  if (!workspaces.ok())
    return workspaces.status().withPrefix(prefix);
  artifact->workspaces_ = std::move(*workspaces);

  // The symbols were found in the file's dynamic symbol table; dlsym is
  // what the loader itself resolves.
  artifact->entries_.reserve(loaded.entries.size());
  for (const EntrySpec &spec : loaded.entries) {
    (void)dlerror();
    void *symbol = dlsym(opened.handle, spec.symbol.c_str());
    if (!symbol)
      return Status::error(prefix + ": entry '" + spec.name + "': symbol '" +
                           spec.symbol + "' not found");
    Entry entry;
    entry.artifact_ = artifact.get();
    entry.spec_ = &spec;
    entry.function_ = reinterpret_cast<Entry::EntryFunction>(symbol);
    entry.checked_ = std::make_unique<Entry::CheckedBuffers>();
    entry.graphs_ = std::make_shared<Entry::Graphs>();
    artifact->entries_.push_back(std::move(entry));
  }
  return artifact;
}

Artifact::~Artifact() {
  if (!handle_)
    return;
  // Module destructors unload the device code: the context must be current
  // (and the caller's is put back after).
  detail::CurrentContextRestorer restorer;
  if (context_)
    (void)context_->makeCurrent();
  // Entries may still be running on a caller's stream (RunOptions::stream),
  // not only the context's: wait for the whole context before the device
  // code is unloaded and the workspace freed (the workspace's own release
  // waits only for the context's stream).
  if (context_) {
    auto driver = detail::getDriver();
    if (driver.ok())
      (void)(*driver)->cuCtxSynchronize();
  }
  // The graphs launch the library's kernels: gone before it is.
  for (const Entry &entry : entries_)
    entry.destroyGraphs();
  MgpuScope scope(context_ ? context_->stream() : nullptr,
                  /*inspectOnly=*/false);
  dlclose(handle_);
}

std::vector<GemmPlanInfo> Artifact::gemmPlanInfos() const {
  std::vector<GemmPlanInfo> infos;
  infos.reserve(gemmPlans_.size());
  for (const auto &plan : gemmPlans_)
    infos.push_back(plan->info());
  return infos;
}

const Entry *Artifact::findEntry(std::string_view name) const {
  for (const Entry &entry : entries_)
    if (entry.name() == name)
      return &entry;
  return nullptr;
}

StatusOr<const Entry *> Artifact::entry(std::string_view name) const {
  if (const Entry *found = findEntry(name))
    return found;
  std::string names;
  for (const Entry &entry : entries_)
    names += (names.empty() ? "" : ", ") + entry.name();
  return Status::error(artifactPrefix(path_) + ": no entry '" +
                       std::string(name) + "' (entries: " +
                       (names.empty() ? "none" : names) + ")");
}

//===----------------------------------------------------------------------===//
// Entry
//===----------------------------------------------------------------------===//

Status Entry::checkBuffers(const std::vector<DevicePtr> &buffers) const {
  return checkBufferContract(*spec_, buffers);
}

Status checkBufferContract(const EntrySpec &entry,
                           const std::vector<DevicePtr> &buffers) {
  auto prefix = [&] { return "entry '" + entry.name + "'"; };
  if (buffers.size() != entry.numBuffers())
    return Status::error(prefix() + ": expected " +
                         std::to_string(entry.numBuffers()) + " buffers, got " +
                         std::to_string(buffers.size()));
  // "result 'dx'", "argument 'x' buffer 1 ('transpose')"; a tensor's one
  // buffer is the argument itself.
  auto describe = [&](size_t i) {
    const BufferRef &ref = entry.flatBuffers[i];
    const ArgSpec &arg = entry.args[ref.arg];
    std::string text = std::string(arg.isWritten() ? "result" : "argument") +
                       " '" + arg.name + "'";
    if (arg.isProto && arg.buffers.size() > 1)
      text += " buffer " + std::to_string(ref.buffer) + " ('" +
              arg.buffers[ref.buffer].name + "')";
    return text;
  };
  auto isResult = [&](size_t i) {
    return entry.args[entry.flatBuffers[i].arg].isWritten();
  };
  auto bytesOf = [&](size_t i) {
    const BufferRef &ref = entry.flatBuffers[i];
    return static_cast<uint64_t>(entry.args[ref.arg].buffers[ref.buffer].bytes);
  };
  constexpr uint64_t kAlignment = 256;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!isResult(i) || buffers[i] == 0 || bytesOf(i) == 0)
      continue;
    if (buffers[i] % kAlignment != 0) {
      char address[32];
      std::snprintf(address, sizeof(address), "0x%llx",
                    static_cast<unsigned long long>(buffers[i]));
      return Status::error(prefix() + ": " + describe(i) + " at " + address +
                           " is not " + std::to_string(kAlignment) +
                           "-byte aligned");
    }
  }
  // Results against every other buffer (inputs may share memory), in one
  // sweep by address (calls with many buffers stay cheap): a buffer that
  // starts inside an earlier one overlaps the earlier one reaching furthest.
  struct Range {
    uint64_t begin, end;
    size_t index;
  };
  // On the stack for the usual few buffers.
  constexpr size_t kStackRanges = 32;
  Range stackRanges[kStackRanges];
  std::vector<Range> heapRanges;
  Range *ranges = stackRanges;
  if (buffers.size() > kStackRanges) {
    heapRanges.resize(buffers.size());
    ranges = heapRanges.data();
  }
  size_t numRanges = 0;
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i] != 0 && bytesOf(i) != 0)
      ranges[numRanges++] = {buffers[i], buffers[i] + bytesOf(i), i};
  std::sort(ranges, ranges + numRanges, [](const Range &a, const Range &b) {
    return a.begin != b.begin ? a.begin < b.begin : a.index < b.index;
  });
  const Range *furthest = nullptr, *furthestResult = nullptr;
  for (size_t r = 0; r < numRanges; ++r) {
    const Range &range = ranges[r];
    const bool result = isResult(range.index);
    const Range *other = result ? furthest : furthestResult;
    if (other && other->end > range.begin) {
      // "result ... overlaps ...": a result first, then by buffer order.
      size_t first = other->index, second = range.index;
      if (!isResult(first) || (isResult(second) && second < first))
        std::swap(first, second);
      return Status::error(prefix() + ": " + describe(first) + " overlaps " +
                           describe(second));
    }
    if (!furthest || range.end > furthest->end)
      furthest = &range;
    if (result && (!furthestResult || range.end > furthestResult->end))
      furthestResult = &range;
  }
  return Status::success();
}

Status Entry::checkBuffersCached(const std::vector<DevicePtr> &buffers) const {
  {
    std::lock_guard<std::mutex> lock(checked_->mutex);
    if (checked_->buffers == buffers)
      return Status::success();
  }
  TEQ_RETURN_IF_ERROR(checkBuffers(buffers));
  std::lock_guard<std::mutex> lock(checked_->mutex);
  checked_->buffers = buffers;
  return Status::success();
}

Status Entry::validate(const std::vector<DevicePtr> &buffers) const {
  if (Status current = artifact_->context()->makeCurrent(); !current.ok())
    return current.withPrefix("entry '" + spec_->name + "'");
  return validatePointers(buffers);
}

Status Entry::validatePointers(const std::vector<DevicePtr> &buffers) const {
  // Messages are built on the error path only.
  auto prefix = [&] { return "entry '" + spec_->name + "'"; };
  const std::shared_ptr<Context> &context = artifact_->context();
  auto driverOr = getDriver();
  if (!driverOr.ok())
    return driverOr.status().withPrefix(prefix());
  const detail::Driver &cu = **driverOr;

  for (size_t i = 0; i < buffers.size(); ++i) {
    const BufferRef &ref = spec_->flatBuffers[i];
    const ArgSpec &arg = spec_->args[ref.arg];
    const BufferSpec &buffer = arg.buffers[ref.buffer];
    if (buffer.bytes == 0)
      continue;
    auto pointerFor = [&] {
      const std::string bufferName =
          arg.isProto ? " buffer " + std::to_string(ref.buffer) + " ('" +
                            buffer.name + "')"
                      : std::string();
      return prefix() + ": pointer for argument '" + arg.name + "'" +
             bufferName;
    };
    const DevicePtr ptr = buffers[i];
    if (ptr == 0)
      return Status::error(pointerFor() + " is null");

    CUdeviceptr cuPtr = static_cast<CUdeviceptr>(ptr);
    unsigned int memoryType = 0;
    CUresult result = cu.cuPointerGetAttribute(
        &memoryType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, cuPtr);
    if (result != CUDA_SUCCESS ||
        (memoryType != CU_MEMORYTYPE_DEVICE &&
         memoryType != CU_MEMORYTYPE_UNIFIED))
      return Status::error(pointerFor() + " is not device memory");
    int ordinal = -1;
    result = cu.cuPointerGetAttribute(
        &ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, cuPtr);
    if (result == CUDA_SUCCESS && ordinal != context->device().ordinal)
      return Status::error(pointerFor() + " is memory of CUDA device " +
                           std::to_string(ordinal) +
                           ", but the artifact runs on device " +
                           std::to_string(context->device().ordinal));

    CUdeviceptr base = 0;
    size_t size = 0;
    result = cu.cuMemGetAddressRange(&base, &size, cuPtr);
    if (result != CUDA_SUCCESS)
      return Status::error(pointerFor() + ": cannot get its allocation: " +
                           describeCUresult(result));
    const uint64_t available = static_cast<uint64_t>(base) + size - ptr;
    if (available < static_cast<uint64_t>(buffer.bytes))
      return Status::error(prefix() + ": argument '" + arg.name + "' buffer " +
                           std::to_string(ref.buffer) +
                           (arg.isProto ? " ('" + buffer.name + "')" : "") +
                           ": " + std::to_string(buffer.bytes) +
                           " bytes needed, " + std::to_string(available) +
                           " given");
  }
  // Each pointer is what it should be; then how they lie together.
  return checkBuffersCached(buffers);
}

Status Entry::run(const std::vector<DevicePtr> &buffers,
                  const RunOptions &options) const {
  // Error messages start with the entry's name; built only on failure.
  auto prefix = [&] { return "entry '" + spec_->name + "'"; };
  auto withPrefix = [&](const Status &status) {
    return status.withPrefix(prefix());
  };
  if (buffers.size() != spec_->numBuffers())
    return Status::error(prefix() + ": expected " +
                         std::to_string(spec_->numBuffers()) + " buffers, got " +
                         std::to_string(buffers.size()));
  const std::shared_ptr<Context> &context = artifact_->context();
  // A missing or mismatched communicator is an error before anything runs
  // (a collective with the wrong group would hang or corrupt every rank).
  if (!spec_->groups.empty() || !options.communicators.empty()) {
    std::vector<const CommunicatorInfo *> infos;
    for (const Communicator *comm : options.communicators)
      infos.push_back(comm ? &comm->info() : nullptr);
    TEQ_RETURN_IF_ERROR(checkCommunicators(spec_->name, spec_->groups, infos,
                                           context->device().ordinal));
  }
  // The caller's contract always (arithmetic only, once per set of
  // pointers); the driver's view of each pointer when asked.
  if (options.validate) {
    if (Status current = context->makeCurrent(); !current.ok())
      return withPrefix(current);
    TEQ_RETURN_IF_ERROR(validatePointers(buffers));
  } else {
    TEQ_RETURN_IF_ERROR(checkBuffersCached(buffers));
    if (Status current = context->makeCurrent(); !current.ok())
      return withPrefix(current);
  }

  // The caller's stream, or the context's: the artifact's kernels get it
  // from mgpuStreamCreate, its GEMMs through the scope (teqGemm).
  void *stream = options.stream ? options.stream : context->stream();
  // The stream is queried once, for the entry's slot and the GEMMs'
  // workspace.
  auto streamState = artifact_->workspaces().streamState(stream);
  if (!streamState.ok())
    return withPrefix(streamState.status());
  bool launched = false;
  if (options.graph && !streamState->capturing) {
    if (!spec_->groups.empty())
      return Status::error(prefix() +
                           ": communicates over parallel groups and cannot run "
                           "as a CUDA graph (its collectives are not "
                           "captured); run it without the graph option");
    auto graph = launchGraph(buffers, stream, options);
    if (!graph.ok())
      return graph.status(); // with the entry's name
    launched = *graph;
  }
  if (!launched)
    TEQ_RETURN_IF_ERROR(enqueue(buffers, stream, *streamState, options));

  if (options.synchronize) {
    const std::string lastKernel = detail::lastLaunchedKernel();
    Status status =
        options.stream
            ? checkCU(getDriver().value()->cuStreamSynchronize(
                          static_cast<CUstream>(options.stream)),
                      "stream synchronization failed")
            : context->synchronize();
    // A collective that failed on the device (a peer gone, the network)
    // says so through its communicator.
    for (const Communicator *comm : options.communicators)
      if (Status nccl = comm->asyncError(); !nccl.ok())
        status = status.ok() ? nccl
                             : Status::error(status.message() + "; " +
                                             nccl.message());
    if (!status.ok())
      return Status::error(prefix() + ": execution failed: " +
                           status.message() +
                           (lastKernel.empty()
                                ? std::string()
                                : " (last kernel launched: '" + lastKernel +
                                      "')"));
  }
  return Status::success();
}

Status Entry::enqueue(const std::vector<DevicePtr> &buffers, void *stream,
                      const detail::WorkspacePool::StreamState &streamState,
                      const RunOptions &options) const {
  auto prefix = [&] { return "entry '" + spec_->name + "'"; };
  auto withPrefix = [&](const Status &status) {
    return status.withPrefix(prefix());
  };
  // This call's slot for that stream: its workspace and module globals
  // (during a capture a slot of the graph's own).
  auto slot = artifact_->workspaces().acquire(stream, streamState);
  if (!slot.ok())
    return withPrefix(slot.status());

  // The entry's pointers, on the stack for the usual few buffers. The
  // temporaries' workspace is the entry's last pointer.
  constexpr size_t kStackPointers = 32;
  void *stackPointers[kStackPointers];
  std::vector<void *> heapPointers;
  const size_t numPointers = buffers.size() + (spec_->workspaceBytes > 0);
  void **pointers = stackPointers;
  if (numPointers > kStackPointers) {
    heapPointers.resize(numPointers);
    pointers = heapPointers.data();
  }
  for (size_t i = 0; i < buffers.size(); ++i)
    pointers[i] = reinterpret_cast<void *>(static_cast<uintptr_t>(buffers[i]));
  if (spec_->workspaceBytes > 0)
    pointers[buffers.size()] =
        reinterpret_cast<void *>(static_cast<uintptr_t>(slot->ptr()));

  clearMgpuError();
  {
    MgpuScope scope(stream, /*inspectOnly=*/false,
                    &artifact_->manifest().dependentLaunchKernels, slot->key());
    detail::GemmScope gemmScope(&artifact_->gemmPlans(), &streamState,
                                stream);
    detail::CollectiveScope collectiveScope(&spec_->groups,
                                            &options.communicators);
    // No other thread enqueues collectives on these communicators until
    // the entry is enqueued: its collectives stay together, in the order
    // this thread took them, on every rank (Communicator.h, "Order").
    Communicator::RunLock runLock(options.communicators);
    function_(pointers);
  }
  Status released = slot->release(); // after the call's work, on `stream`
  if (hasMgpuError())
    return withPrefix(takeMgpuError());
  if (!released.ok())
    return withPrefix(released);

  return Status::success();
}

//===----------------------------------------------------------------------===//
// CUDA graphs (RunOptions::graph)
//===----------------------------------------------------------------------===//

struct Entry::Graphs {
  struct Graph {
    std::vector<DevicePtr> buffers;
    CUgraphExec exec = nullptr;
  };
  mutable std::mutex mutex;
  std::vector<Graph> graphs;

  CUgraphExec find(const std::vector<DevicePtr> &buffers) const {
    for (const Graph &graph : graphs)
      if (graph.buffers == buffers)
        return graph.exec;
    return nullptr;
  }
};

size_t Entry::graphCount() const {
  std::lock_guard<std::mutex> lock(graphs_->mutex);
  return graphs_->graphs.size();
}

void Entry::destroyGraphs() const {
  auto driver = getDriver();
  std::lock_guard<std::mutex> lock(graphs_->mutex);
  if (driver.ok())
    for (const Graphs::Graph &graph : graphs_->graphs)
      (void)(*driver)->cuGraphExecDestroy(graph.exec);
  graphs_->graphs.clear();
}

StatusOr<bool> Entry::launchGraph(const std::vector<DevicePtr> &buffers,
                                  void *stream,
                                  const RunOptions &options) const {
  // Errors name the entry (those of enqueue do already).
  auto checked = [&](CUresult result, const char *what) {
    return checkCU(result, what).withPrefix("entry '" + spec_->name + "'");
  };
  auto driver = getDriver();
  if (!driver.ok())
    return driver.status().withPrefix("entry '" + spec_->name + "'");
  const detail::Driver &cu = **driver;
  CUgraphExec exec = nullptr;
  {
    std::lock_guard<std::mutex> lock(graphs_->mutex);
    exec = graphs_->find(buffers);
    if (!exec && graphs_->graphs.size() >= kMaxGraphs)
      return false;
  }
  if (!exec) {
    // Captured on a private stream (a framework's default stream may be the
    // legacy one, which cannot capture), in relaxed mode: the capture loads
    // a module instance and allocates the graph's workspaces, which a
    // stricter mode forbids on this thread.
    CUstream capture = nullptr;
    TEQ_RETURN_IF_ERROR(checked(cu.cuStreamCreate(&capture, CU_STREAM_NON_BLOCKING),
                                "cannot create a stream to capture the entry "
                                "as a CUDA graph"));
    CUresult begun =
        cu.cuStreamBeginCapture(capture, CU_STREAM_CAPTURE_MODE_RELAXED);
    if (begun != CUDA_SUCCESS) {
      (void)cu.cuStreamDestroy(capture);
      return checked(begun, "cannot capture the entry as a CUDA graph");
    }
    detail::WorkspacePool::StreamState capturing;
    capturing.capturing = true;
    Status enqueued = enqueue(buffers, capture, capturing, options);
    CUgraph graph = nullptr;
    CUresult ended = cu.cuStreamEndCapture(capture, &graph);
    (void)cu.cuStreamDestroy(capture);
    if (!enqueued.ok() || ended != CUDA_SUCCESS) {
      if (graph)
        (void)cu.cuGraphDestroy(graph);
      if (!enqueued.ok())
        return enqueued;
      return checked(ended, "capturing the entry as a CUDA graph failed");
    }
    CUresult instantiated = cu.cuGraphInstantiateWithFlags(&exec, graph, 0);
    (void)cu.cuGraphDestroy(graph);
    TEQ_RETURN_IF_ERROR(checked(instantiated,
                                "cannot instantiate the entry's CUDA graph"));
    std::lock_guard<std::mutex> lock(graphs_->mutex);
    if (CUgraphExec other = graphs_->find(buffers)) {
      // Another thread captured the same buffers meanwhile: one graph.
      (void)cu.cuGraphExecDestroy(exec);
      exec = other;
    } else {
      graphs_->graphs.push_back({buffers, exec});
    }
  }
  TEQ_RETURN_IF_ERROR(checked(cu.cuGraphLaunch(exec, static_cast<CUstream>(stream)),
                              "cannot launch the entry's CUDA graph"));
  return true;
}

} // namespace mlir::teq::runtime

//===- RuntimeModule.cpp - teq._teq_runtime, the runtime in Python ---------===//
//
// The pybind11 module `teq._teq_runtime`: a thin layer over the runtime's C
// API (include/teq-c/Runtime.h; nothing else of the runtime is used) plus
// the DLPack consumer that turns framework tensors (PyTorch, CuPy, anything
// with __dlpack__ / __dlpack_device__) into the device pointers an entry
// takes, zero copy. teq/runtime.py builds the user-facing API on it.
//
//   Context(ordinal)              one GPU (teqRtContextCreate)
//   Artifact.load(ctx, path)      teqRtArtifactLoad
//   Artifact.inspect(path)        teqRtArtifactInspect (no GPU)
//   unique_id()                   teqRtUniqueIdCreate (NCCL's unique id, as
//                                 bytes to hand to every rank)
//   Communicator(ctx, id, size, rank, name, timeout, should_abort)
//                                 teqRtCommunicatorCreateWithOptions
//                                 (waits, without the GIL, until every
//                                 rank has joined, the timeout passes or
//                                 should_abort() is true)
//   Entry.run_dlpack(tensors, labels, stream, synchronize, alignment)
//                                 checks every tensor against its buffer
//                                 (device, dtype, shape, strides, bytes,
//                                 alignment), then the caller's contract
//                                 (teqRtEntryCheckBuffers: results overlap
//                                 nothing), raising ValueError that names
//                                 the buffer before anything is launched,
//                                 then teqRtEntryRun on the caller's stream;
//                                 the specs are built once per labels list,
//                                 and with producer_stream=True tensors of a
//                                 registered type are exported directly
//   register_exporter(type, fn)   a framework's direct exporter (PyTorch's
//                                 torch._C._to_dlpack: 0.3 us a tensor
//                                 against 12 us for __dlpack__(stream=))
//
//   delayed_scaling_update(history, scale, fp8_max, margin, algo)
//                                 lib/Reference's updateDelayedScaling on
//                                 host lists (no GPU): TE's update rule,
//                                 the one source Python uses for it
//
// Errors of the C API become RuntimeError (TEQ_RT_FAILURE), ValueError
// (TEQ_RT_INVALID_ARGUMENT), IndexError (TEQ_RT_OUT_OF_RANGE) and KeyError
// (TEQ_RT_NOT_FOUND) with the runtime's message.
//
// Streams: the stream is an integer CUstream handle, as frameworks give it
// (torch.cuda.current_stream().cuda_stream, cupy's Stream.ptr). 0 is CUDA's
// legacy default stream (PyTorch's default stream), which the C API spells
// CU_STREAM_LEGACY ((void *)0x1): NULL there means the context's own stream.
// None selects the context's own stream. Nothing here synchronizes unless
// asked to.
//
//===----------------------------------------------------------------------===//

#include "teq-c/Runtime.h"
#include "teq/Reference/Quantize.h"

#include "DLPack.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace py = pybind11;

namespace {

namespace dlpack = teq_python::dlpack;
using teq_python::Consumed;
using teq_python::Exporter;
using teq_python::exporterFor;
using teq_python::registerExporter;
using teq_python::dtypeMatches;
using teq_python::expectedDtype;

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

[[noreturn]] void throwStatus(TeqRtStatus status) {
  std::string message = teqRtGetLastError();
  switch (status) {
  case TEQ_RT_INVALID_ARGUMENT:
    throw py::value_error(message);
  case TEQ_RT_OUT_OF_RANGE:
    throw py::index_error(message);
  case TEQ_RT_NOT_FOUND:
    throw py::key_error(message);
  default:
    throw std::runtime_error(message);
  }
}

void check(TeqRtStatus status) {
  if (status != TEQ_RT_SUCCESS)
    throwStatus(status);
}

py::list shapeList(size_t rank, const int64_t *shape) {
  py::list list;
  for (size_t i = 0; i < rank; ++i)
    list.append(shape ? shape[i] : 0);
  return list;
}

// Messages are built without iostreams: std::ostringstream crashed in this
// module under PyTorch on the GPU machine (its locale machinery, with
// PyTorch's libraries loaded in the same process).
std::string shapeText(size_t rank, const int64_t *shape) {
  std::string text = "[";
  for (size_t i = 0; i < rank; ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

//===----------------------------------------------------------------------===//
// Handles
//===----------------------------------------------------------------------===//

class Context {
public:
  explicit Context(int ordinal) {
    check(teqRtContextCreate(ordinal, &handle_));
    ordinal_ = ordinal;
  }
  ~Context() { teqRtContextDestroy(handle_); }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  TeqRtContext handle() const { return handle_; }
  int ordinal() const { return ordinal_; }

  py::dict deviceInfo() const {
    TeqRtDeviceInfo info;
    check(teqRtContextGetDeviceInfo(handle_, &info));
    py::dict d;
    d["ordinal"] = info.ordinal;
    d["name"] = std::string(info.name ? info.name : "");
    d["compute_capability"] = info.computeCapability;
    d["sm"] = std::string(info.smName ? info.smName : "");
    d["multiprocessors"] = info.multiprocessors;
    d["total_memory_bytes"] = info.totalMemoryBytes;
    d["l2_cache_bytes"] = info.l2CacheBytes;
    d["driver_version"] = info.driverVersion;
    return d;
  }

  uint64_t stream() const {
    void *stream = nullptr;
    check(teqRtContextGetStream(handle_, &stream));
    return reinterpret_cast<uint64_t>(stream);
  }

  void synchronize() const {
    TeqRtStatus status;
    {
      py::gil_scoped_release release;
      status = teqRtContextSynchronize(handle_);
    }
    check(status);
  }

private:
  TeqRtContext handle_ = {nullptr};
  int ordinal_ = -1;
};

/// One rank's NCCL communicator of a parallel group (keeps its context).
class Communicator {
public:
  Communicator(std::shared_ptr<Context> context, const py::bytes &id,
               int size, int rank, const std::string &name, double timeout,
               py::object shouldAbort)
      : context_(std::move(context)) {
    std::string bytes = id;
    if (bytes.size() != TEQ_RT_UNIQUE_ID_BYTES)
      throw py::value_error("unique id: expected " +
                            std::to_string(TEQ_RT_UNIQUE_ID_BYTES) +
                            " bytes (from teq.runtime.unique_id()), got " +
                            std::to_string(bytes.size()));
    TeqRtUniqueId uid;
    std::memcpy(uid.internal, bytes.data(), TEQ_RT_UNIQUE_ID_BYTES);
    TeqRtCommunicatorOptions options = teqRtCommunicatorOptionsGetDefault();
    options.timeoutSeconds = timeout;
    // should_abort() is polled from the waiting thread, with the GIL taken
    // for each call; an exception it raises stops the wait and is raised
    // here.
    struct AbortCheck {
      py::object function;
      std::optional<py::error_already_set> error;
    } abortCheck{shouldAbort, std::nullopt};
    if (!shouldAbort.is_none()) {
      options.shouldAbort = [](void *data) -> int {
        auto *check = static_cast<AbortCheck *>(data);
        py::gil_scoped_acquire gil;
        try {
          return py::bool_(check->function()) ? 1 : 0;
        } catch (py::error_already_set &error) {
          check->error.emplace(std::move(error));
          return 1;
        }
      };
      options.shouldAbortData = &abortCheck;
    }
    TeqRtStatus status;
    {
      // Waits for the other ranks, which may be Python threads too.
      py::gil_scoped_release release;
      status = teqRtCommunicatorCreateWithOptions(
          context_->handle(), &uid, size, rank, name.c_str(), &options,
          &handle_);
    }
    if (abortCheck.error)
      throw std::move(*abortCheck.error);
    check(status);
  }
  ~Communicator() { teqRtCommunicatorDestroy(handle_); }
  Communicator(const Communicator &) = delete;
  Communicator &operator=(const Communicator &) = delete;

  TeqRtCommunicator handle() const { return handle_; }
  int size() const {
    int n = 0;
    check(teqRtCommunicatorGetSize(handle_, &n));
    return n;
  }
  int rank() const {
    int r = 0;
    check(teqRtCommunicatorGetRank(handle_, &r));
    return r;
  }
  uint64_t ncclComm() const {
    void *comm = nullptr;
    check(teqRtCommunicatorGetNcclComm(handle_, &comm));
    return reinterpret_cast<uint64_t>(comm);
  }
  void checkAsyncError() const {
    check(teqRtCommunicatorCheckAsyncError(handle_));
  }
  void abort() const {
    py::gil_scoped_release release;
    (void)teqRtCommunicatorAbort(handle_);
  }

private:
  std::shared_ptr<Context> context_;
  TeqRtCommunicator handle_ = {nullptr};
};

py::bytes uniqueId() {
  TeqRtUniqueId id;
  check(teqRtUniqueIdCreate(&id));
  return py::bytes(id.internal, TEQ_RT_UNIQUE_ID_BYTES);
}

using Communicators = std::vector<std::shared_ptr<Communicator>>;

class Artifact;

/// One buffer's expectations, read from the C API once per call.
struct BufferSpec {
  std::string label;
  std::string encoding;
  std::vector<int64_t> shape;
  int64_t bytes = 0;
  bool writable = false;
};

class Entry {
public:
  Entry(std::shared_ptr<Artifact> artifact, TeqRtEntry handle)
      : artifact_(std::move(artifact)), handle_(handle) {}

  std::string name() const {
    const char *name = nullptr;
    check(teqRtEntryGetName(handle_, &name));
    return name;
  }

  size_t numArgs() const {
    size_t n = 0;
    check(teqRtEntryGetNumArgs(handle_, &n));
    return n;
  }

  size_t numBuffers() const {
    size_t n = 0;
    check(teqRtEntryGetNumBuffers(handle_, &n));
    return n;
  }

  int64_t workspaceBytes() const {
    int64_t n = 0;
    check(teqRtEntryGetWorkspaceBytes(handle_, &n));
    return n;
  }

  py::dict argInfo(size_t index) const {
    TeqRtArgInfo info;
    check(teqRtEntryGetArgInfo(handle_, index, &info));
    py::dict d;
    d["index"] = index;
    d["name"] = std::string(info.name);
    d["kind"] = std::string(info.kind == TEQ_RT_ARG_INPUT    ? "input"
                            : info.kind == TEQ_RT_ARG_OUTPUT ? "output"
                                                             : "inout");
    d["is_proto"] = info.isProto;
    d["dtype"] = std::string(info.dtype);
    d["shape"] = shapeList(info.rank, info.shape);
    d["num_buffers"] = info.numBuffers;
    d["first_buffer"] = info.firstBuffer;
    d["bytes"] = info.bytes;
    d["quantizer_kind"] = std::string(info.quantizerKind);
    d["usage"] = std::string(info.usage);
    d["scale_layout"] = std::string(info.scaleLayout);
    d["quantizer_json"] = std::string(info.quantizerJson);
    d["role"] = std::string(info.role);
    d["role_of"] = std::string(info.roleOf);
    d["alias_of"] = std::string(info.aliasOf);
    return d;
  }

  py::dict bufferInfo(size_t index) const {
    TeqRtBufferInfo info;
    check(teqRtEntryGetBufferInfo(handle_, index, &info));
    py::dict d;
    d["index"] = index;
    d["arg_index"] = info.argIndex;
    d["buffer_index"] = info.bufferIndex;
    d["name"] = std::string(info.name);
    d["encoding"] = std::string(info.encoding);
    d["shape"] = shapeList(info.rank, info.shape);
    d["valid_shape"] = shapeList(info.rank, info.validShape);
    d["bytes"] = info.bytes;
    d["transposed"] = info.transposed;
    d["scale_layout"] = std::string(info.scaleLayout);
    return d;
  }

  /// The parallel groups: [{"name": "tp", "size": 2}, ...].
  py::list groups() const {
    size_t n = 0;
    check(teqRtEntryGetNumGroups(handle_, &n));
    py::list list;
    for (size_t i = 0; i < n; ++i) {
      TeqRtGroupInfo info;
      check(teqRtEntryGetGroupInfo(handle_, i, &info));
      py::dict d;
      d["name"] = std::string(info.name);
      d["size"] = info.size;
      list.append(d);
    }
    return list;
  }

  void runPointers(const std::vector<uint64_t> &pointers, py::object stream,
                   bool validate, bool synchronize,
                   const Communicators &communicators, bool graph) const;
  void validatePointers(const std::vector<uint64_t> &pointers) const {
    check(teqRtEntryValidate(handle_, pointers.data(), pointers.size()));
  }
  void runDlpack(const py::sequence &tensors, const py::sequence &labels,
                 py::object stream, int64_t alignment, bool synchronize,
                 bool dryRun, const Communicators &communicators, bool graph,
                 bool producerStream) const;

private:
  std::vector<BufferSpec> bufferSpecs(const py::sequence &labels) const;
  /// bufferSpecs(labels), built once per labels object (teq.runtime passes
  /// the same list on every call; the GIL guards the cache).
  const std::vector<BufferSpec> &cachedSpecs(const py::sequence &labels) const;

  std::shared_ptr<Artifact> artifact_;
  TeqRtEntry handle_;
  mutable py::object specsLabels_;
  mutable std::vector<BufferSpec> specs_;
};

class Artifact : public std::enable_shared_from_this<Artifact> {
public:
  Artifact(TeqRtArtifact handle, int ordinal, uint64_t contextStream)
      : handle_(handle), ordinal_(ordinal), contextStream_(contextStream) {}
  ~Artifact() { teqRtArtifactDestroy(handle_); }
  Artifact(const Artifact &) = delete;
  Artifact &operator=(const Artifact &) = delete;

  static std::shared_ptr<Artifact> load(const Context &context,
                                        const std::string &path) {
    TeqRtArtifact handle = {nullptr};
    TeqRtStatus status;
    {
      py::gil_scoped_release release;
      status = teqRtArtifactLoad(context.handle(), path.c_str(), &handle);
    }
    check(status);
    return std::make_shared<Artifact>(handle, context.ordinal(),
                                      context.stream());
  }

  static std::shared_ptr<Artifact> inspect(const std::string &path) {
    TeqRtArtifact handle = {nullptr};
    check(teqRtArtifactInspect(path.c_str(), &handle));
    return std::make_shared<Artifact>(handle, -1, 0);
  }

  TeqRtArtifact handle() const { return handle_; }
  /// The device ordinal it was loaded on; -1 if only inspected.
  int ordinal() const { return ordinal_; }
  /// The CUstream of the context it was loaded on (0 if only inspected).
  uint64_t contextStream() const { return contextStream_; }

  bool loaded() const {
    bool loaded = false;
    check(teqRtArtifactIsLoaded(handle_, &loaded));
    return loaded;
  }
  std::string path() const { return string(teqRtArtifactGetPath); }
  std::string manifestJson() const {
    return string(teqRtArtifactGetManifestJson);
  }
  std::string target() const { return string(teqRtArtifactGetTarget); }
  std::string deviceCode() const { return string(teqRtArtifactGetDeviceCode); }

  size_t numEntries() const {
    size_t n = 0;
    check(teqRtArtifactGetNumEntries(handle_, &n));
    return n;
  }

  Entry entryAt(size_t index) {
    TeqRtEntry entry = {nullptr};
    check(teqRtArtifactGetEntry(handle_, index, &entry));
    return Entry(shared_from_this(), entry);
  }

  Entry lookup(const std::string &name) {
    TeqRtEntry entry = {nullptr};
    check(teqRtArtifactLookupEntry(handle_, name.c_str(), &entry));
    return Entry(shared_from_this(), entry);
  }

  size_t numGemms() const {
    size_t n = 0;
    check(teqRtArtifactGetNumGemms(handle_, &n));
    return n;
  }

  py::dict gemmInfo(size_t index) const {
    TeqRtGemmInfo info;
    check(teqRtArtifactGetGemmInfo(handle_, index, &info));
    py::dict d;
    d["id"] = info.id;
    d["name"] = std::string(info.name);
    d["m"] = info.m;
    d["n"] = info.n;
    d["k"] = info.k;
    d["transa"] = info.transa;
    d["transb"] = info.transb;
    d["a_type"] = std::string(info.aType);
    d["b_type"] = std::string(info.bType);
    d["d_type"] = std::string(info.dType);
    d["lda"] = info.lda;
    d["ldb"] = info.ldb;
    d["ldd"] = info.ldd;
    d["a_scale_mode"] = std::string(info.aScaleMode);
    d["b_scale_mode"] = std::string(info.bScaleMode);
    d["epilogue"] = std::string(info.epilogue);
    d["accumulate"] = info.accumulate;
    d["fast_accum"] = info.fastAccum;
    // None: the GEMM has a plan of its own.
    d["shares_plan_of"] = info.sharesPlanOf < 0
                              ? py::object(py::none())
                              : py::object(py::int_(info.sharesPlanOf));
    return d;
  }

private:
  template <typename Fn> std::string string(Fn fn) const {
    const char *text = nullptr;
    check(fn(handle_, &text));
    return text ? text : "";
  }

  TeqRtArtifact handle_;
  int ordinal_;
  uint64_t contextStream_;
};

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

/// The C API's stream from a Python stream handle: None is the context's
/// own stream (NULL), 0 CUDA's legacy default stream (CU_STREAM_LEGACY).
void *cStream(const py::object &stream) {
  if (stream.is_none())
    return nullptr;
  uint64_t handle = stream.cast<uint64_t>();
  if (handle == 0)
    return reinterpret_cast<void *>(uintptr_t{1}); // CU_STREAM_LEGACY
  return reinterpret_cast<void *>(static_cast<uintptr_t>(handle));
}

void Entry::runPointers(const std::vector<uint64_t> &pointers,
                        py::object stream, bool validate, bool synchronize,
                        const Communicators &communicators, bool graph) const {
  TeqRtRunOptions options = teqRtRunOptionsGetDefault();
  options.validate = validate;
  options.synchronize = synchronize;
  options.graph = graph;
  void *s = cStream(stream);
  std::vector<TeqRtCommunicator> comms;
  for (const auto &comm : communicators)
    comms.push_back(comm ? comm->handle() : TeqRtCommunicator{nullptr});
  TeqRtStatus status;
  {
    py::gil_scoped_release release;
    status = teqRtEntryRunWithCommunicators(handle_, pointers.data(),
                                            pointers.size(), comms.data(),
                                            comms.size(), s, &options);
  }
  check(status);
}

std::vector<BufferSpec> Entry::bufferSpecs(const py::sequence &labels) const {
  size_t n = numBuffers();
  std::vector<BufferSpec> specs(n);
  for (size_t i = 0; i < n; ++i) {
    TeqRtBufferInfo buffer;
    check(teqRtEntryGetBufferInfo(handle_, i, &buffer));
    TeqRtArgInfo arg;
    check(teqRtEntryGetArgInfo(handle_, buffer.argIndex, &arg));
    BufferSpec &spec = specs[i];
    if (i < static_cast<size_t>(py::len(labels)))
      spec.label = py::str(labels[i]).cast<std::string>();
    else if (arg.isProto)
      spec.label = std::string("argument '") + arg.name + "' buffer '" +
                   buffer.name + "'";
    else
      spec.label = std::string("argument '") + arg.name + "'";
    spec.encoding = buffer.encoding;
    spec.shape.assign(buffer.shape, buffer.shape + buffer.rank);
    spec.bytes = buffer.bytes;
    spec.writable = arg.kind != TEQ_RT_ARG_INPUT;
  }
  return specs;
}

/// Checks one tensor against its buffer: its device address, or the error
/// message naming the buffer. (No exception here: the caller releases the
/// consumed tensors, whose deleters may run Python, before it raises.)
std::variant<uint64_t, std::string>
checkTensor(const dlpack::Tensor &t, const BufferSpec &spec, int ordinal,
            int64_t alignment, bool readOnly) {
  auto fail = [&](const std::string &what) -> std::variant<uint64_t, std::string> {
    return spec.label + ": " + what;
  };
  if (t.device.device_type != dlpack::kDLCUDA) {
    const char *name = dlpack::deviceTypeName(t.device.device_type);
    return fail(std::string("expected a CUDA tensor on cuda:") +
         std::to_string(ordinal) + ", got a tensor on " +
         (name ? name : "DLPack device type " +
                            std::to_string(t.device.device_type)));
  }
  if (ordinal >= 0 && t.device.device_id != ordinal)
    return fail("expected a tensor on cuda:" + std::to_string(ordinal) +
         " (the device the artifact was loaded on), got cuda:" +
         std::to_string(t.device.device_id));
  if (!dtypeMatches(spec.encoding, t.dtype))
    return fail(std::string("expected dtype ") + expectedDtype(spec.encoding) +
         " (" + spec.encoding + "), got " + dlpack::dtypeName(t.dtype));
  std::vector<int64_t> shape(t.shape, t.shape + std::max(t.ndim, 0));
  if (shape != spec.shape)
    return fail("expected shape " + shapeText(spec.shape.size(), spec.shape.data()) +
         ", got " + shapeText(shape.size(), shape.data()));
  int64_t numel = 1;
  for (int64_t d : shape)
    numel *= d;
  if (t.strides && numel > 0) {
    int64_t expected = 1;
    for (int i = t.ndim - 1; i >= 0; --i) {
      if (shape[i] != 1 && t.strides[i] != expected) {
        std::vector<int64_t> strides(t.strides, t.strides + t.ndim);
        return fail("expected a contiguous (row-major) tensor, got strides " +
             shapeText(strides.size(), strides.data()) + " for shape " +
             shapeText(shape.size(), shape.data()) +
             " (call .contiguous() first)");
      }
      expected *= shape[i];
    }
  }
  int64_t bytes = numel * ((t.dtype.bits * t.dtype.lanes + 7) / 8);
  if (bytes != spec.bytes)
    return fail("expected " + std::to_string(spec.bytes) + " bytes, got " +
         std::to_string(bytes));
  if (spec.writable && readOnly)
    return fail("the tensor is read-only, but the entry writes it");
  uint64_t address = reinterpret_cast<uint64_t>(t.data) + t.byte_offset;
  if (spec.bytes > 0 && alignment > 1 &&
      address % static_cast<uint64_t>(alignment) != 0) {
    char hex[32];
    std::snprintf(hex, sizeof(hex), "0x%llx",
                  static_cast<unsigned long long>(address));
    return fail("expected a " + std::to_string(alignment) +
                "-byte aligned address, got " + hex +
                " (a view at an offset? pass a fresh tensor or .clone())");
  }
  return address;
}

const std::vector<BufferSpec> &
Entry::cachedSpecs(const py::sequence &labels) const {
  if (!specsLabels_ || !specsLabels_.is(labels)) {
    specs_ = bufferSpecs(labels);
    specsLabels_ = labels;
  }
  return specs_;
}

void Entry::runDlpack(const py::sequence &tensors, const py::sequence &labels,
                      py::object stream, int64_t alignment, bool synchronize,
                      bool dryRun, const Communicators &communicators,
                      bool graph, bool producerStream) const {
  const std::vector<BufferSpec> &specs = cachedSpecs(labels);
  size_t n = specs.size();
  if (static_cast<size_t>(py::len(tensors)) != n)
    throw py::value_error("entry '" + name() + "': expected " +
                          std::to_string(n) + " buffers, got " +
                          std::to_string(py::len(tensors)));
  int ordinal = artifact_->ordinal();

  // The stream the producers must make the data ready on (DLPack's
  // `stream` argument: 1 is the legacy default stream, 0 is not allowed).
  py::object dlStream;
  if (stream.is_none())
    dlStream = artifact_->contextStream()
                   ? py::object(py::int_(artifact_->contextStream()))
                   : py::object(py::none());
  else {
    uint64_t handle = stream.cast<uint64_t>();
    dlStream = py::int_(handle == 0 ? uint64_t{1} : handle);
  }

  // The tensors, fetched once, and each one's direct exporter where the
  // stream allows one.
  std::vector<py::object> items(n);
  for (size_t i = 0; i < n; ++i)
    items[i] = tensors[i];
  std::vector<const Exporter *> direct(n, nullptr);
  if (producerStream)
    for (size_t i = 0; i < n; ++i)
      direct[i] = exporterFor(items[i]);

  // Devices first: nothing is exported through the protocol while a tensor
  // is on the wrong device (a direct export only reads the tensor; its
  // device is checked with the rest below).
  for (size_t i = 0; i < n; ++i) {
    if (direct[i])
      continue;
    py::handle tensor = items[i];
    if (!py::hasattr(tensor, "__dlpack__") ||
        !py::hasattr(tensor, "__dlpack_device__"))
      throw py::value_error(
          specs[i].label + ": expected a CUDA tensor (an object with "
                           "__dlpack__ and __dlpack_device__, e.g. a "
                           "torch.Tensor or cupy.ndarray), got " +
          py::str(py::type::handle_of(tensor).attr("__name__"))
              .cast<std::string>());
    py::tuple device = tensor.attr("__dlpack_device__")();
    int32_t type = device[0].cast<int32_t>();
    int32_t id = device[1].cast<int32_t>();
    if (type != dlpack::kDLCUDA) {
      const char *typeName = dlpack::deviceTypeName(type);
      throw py::value_error(
          specs[i].label + ": expected a CUDA tensor on cuda:" +
          std::to_string(std::max(ordinal, 0)) + ", got a tensor on " +
          (typeName ? typeName : "DLPack device type " + std::to_string(type)));
    }
    if (ordinal >= 0 && id != ordinal)
      throw py::value_error(specs[i].label + ": expected a tensor on cuda:" +
                            std::to_string(ordinal) +
                            " (the device the artifact was loaded on), got "
                            "cuda:" +
                            std::to_string(id));
  }

  std::vector<Consumed> consumed;
  consumed.reserve(n);
  std::vector<uint64_t> pointers(n);
  for (size_t i = 0; i < n; ++i) {
    py::object capsule;
    if (direct[i])
      capsule = direct[i]->exportFn(items[i]);
    else if (dlStream.is_none())
      capsule = items[i].attr("__dlpack__")();
    else
      capsule = items[i].attr("__dlpack__")(py::arg("stream") = dlStream);
    consumed.push_back(Consumed::take(capsule, specs[i].label));
    std::variant<uint64_t, std::string> checked =
        checkTensor(consumed.back().tensor(), specs[i], ordinal, alignment,
                    consumed.back().readOnly());
    if (auto *error = std::get_if<std::string>(&checked)) {
      std::string message = *error;
      consumed.clear(); // the producers' deleters, before Python sees the error
      capsule = py::object();
      throw py::value_error(message);
    }
    pointers[i] = std::get<uint64_t>(checked);
  }
  // The caller's contract: results overlap nothing (teqRtEntryCheckBuffers).
  if (TeqRtStatus contract =
          teqRtEntryCheckBuffers(handle_, pointers.data(), pointers.size());
      contract != TEQ_RT_SUCCESS) {
    consumed.clear(); // the producers' deleters, before Python sees the error
    throwStatus(contract);
  }
  if (dryRun)
    return; // `consumed` releases every tensor
  // No pointer validation (cuPointerGetAttribute and cuMemGetAddressRange
  // per buffer, 1-6 us a call under PyTorch): every tensor's device, dtype,
  // shape and size were checked above from its DLPack description.
  runPointers(pointers, stream, /*validate=*/false, synchronize, communicators,
              graph);
}

/// TE's delayed-scaling update of every column (quantizer slot) of an amax
/// history [L][n] and its scales [n], by lib/Reference (the rule the GPU
/// kernel is checked against). Returns the new history and scales.
std::pair<std::vector<std::vector<float>>, std::vector<float>>
delayedScalingUpdate(std::vector<std::vector<float>> history,
                     std::vector<float> scale, float fp8Max, int margin,
                     const std::string &algo) {
  namespace ref = mlir::teq::reference;
  ref::AmaxComputeAlgo computeAlgo;
  if (algo == "max")
    computeAlgo = ref::AmaxComputeAlgo::Max;
  else if (algo == "most_recent")
    computeAlgo = ref::AmaxComputeAlgo::MostRecent;
  else
    throw py::value_error("amax_compute_algo '" + algo +
                          "': only 'max' and 'most_recent' are implemented");
  if (history.empty())
    throw py::value_error("amax_history: expected at least one row");
  for (const std::vector<float> &row : history)
    if (row.size() != scale.size())
      throw py::value_error(
          "amax_history: every row must have one value per scale (" +
          std::to_string(scale.size()) + "), got a row of " +
          std::to_string(row.size()));
  for (size_t i = 0; i < scale.size(); ++i) {
    ref::DelayedScalingState state;
    state.scale = scale[i];
    state.amaxHistory.reserve(history.size());
    for (const std::vector<float> &row : history)
      state.amaxHistory.push_back(row[i]);
    ref::updateDelayedScaling(state, fp8Max, margin, computeAlgo);
    scale[i] = state.scale;
    for (size_t j = 0; j < history.size(); ++j)
      history[j][i] = state.amaxHistory[j];
  }
  return {std::move(history), std::move(scale)};
}

} // namespace

PYBIND11_MODULE(_teq_runtime, m) {
  m.doc() = "TEQ runtime (teq-c/Runtime.h) with a DLPack tensor interface";

  py::class_<Context, std::shared_ptr<Context>>(m, "Context")
      .def(py::init<int>(), py::arg("ordinal") = 0,
           "Creates a context on CUDA device `ordinal` (its primary context "
           "and a runtime stream).")
      .def_property_readonly("ordinal", &Context::ordinal)
      .def("device_info", &Context::deviceInfo)
      .def_property_readonly("stream", &Context::stream,
                             "The context's own CUstream, as an integer.")
      .def("synchronize", &Context::synchronize,
           "Waits for the context's own stream.");

  m.def("delayed_scaling_update", &delayedScalingUpdate,
        py::arg("amax_history"), py::arg("scale"), py::arg("fp8_max"),
        py::arg("margin") = 0, py::arg("amax_compute_algo") = "max",
        "TE's delayed-scaling update (lib/Reference's updateDelayedScaling) "
        "of an amax history [L][n] (lists of floats) and its n scales; "
        "returns (new_history, new_scale). No GPU.");
  m.def("unique_id", &uniqueId,
        "NCCL's unique id (ncclGetUniqueId) as 128 bytes: create it on one "
        "rank and hand it to every rank of the group.");
  py::class_<Communicator, std::shared_ptr<Communicator>>(m, "Communicator")
      .def(py::init<std::shared_ptr<Context>, const py::bytes &, int, int,
                    const std::string &, double, py::object>(),
           py::arg("context"), py::arg("unique_id"), py::arg("size"),
           py::arg("rank"), py::arg("name") = "", py::arg("timeout") = 0.0,
           py::arg("should_abort") = py::none(),
           "An NCCL communicator (ncclCommInitRankConfig) on the context's "
           "device; waits until every rank has joined, `timeout` seconds "
           "pass (0: no limit) or should_abort() returns true. Non-blocking "
           "with a timeout or should_abort (each collective then costs more "
           "host time), blocking otherwise.")
      .def_property_readonly("size", &Communicator::size)
      .def_property_readonly("rank", &Communicator::rank)
      .def_property_readonly("nccl_comm", &Communicator::ncclComm,
                             "The ncclComm_t, as an integer.")
      .def("check_async_error", &Communicator::checkAsyncError,
           "Raises NCCL's asynchronous error, if any.")
      .def("abort", &Communicator::abort,
           "ncclCommAbort: a rank waiting on a failed peer returns.");

  py::class_<Artifact, std::shared_ptr<Artifact>>(m, "Artifact")
      .def_static("load", &Artifact::load, py::arg("context"), py::arg("path"))
      .def_static("inspect", &Artifact::inspect, py::arg("path"))
      .def_property_readonly("loaded", &Artifact::loaded)
      .def_property_readonly("ordinal", &Artifact::ordinal)
      .def_property_readonly("path", &Artifact::path)
      .def_property_readonly("manifest_json", &Artifact::manifestJson)
      .def_property_readonly("target", &Artifact::target)
      .def_property_readonly("device_code", &Artifact::deviceCode)
      .def_property_readonly("num_entries", &Artifact::numEntries)
      .def("entry", &Artifact::entryAt, py::arg("index"))
      .def("lookup", &Artifact::lookup, py::arg("name"))
      .def_property_readonly("num_gemms", &Artifact::numGemms)
      .def("gemm_info", &Artifact::gemmInfo, py::arg("index"));

  py::class_<Entry>(m, "Entry")
      .def_property_readonly("name", &Entry::name)
      .def_property_readonly("num_args", &Entry::numArgs)
      .def_property_readonly("num_buffers", &Entry::numBuffers)
      .def_property_readonly("workspace_bytes", &Entry::workspaceBytes)
      .def("arg_info", &Entry::argInfo, py::arg("index"))
      .def("buffer_info", &Entry::bufferInfo, py::arg("index"))
      .def("groups", &Entry::groups)
      .def("run_pointers", &Entry::runPointers, py::arg("pointers"),
           py::arg("stream") = py::none(), py::arg("validate") = true,
           py::arg("synchronize") = false,
           py::arg("communicators") = Communicators(),
           py::arg("graph") = false,
           "Runs the entry on raw device pointers (one per buffer); graph: "
           "as a CUDA graph, captured once per set of pointers.")
      .def("validate_pointers", &Entry::validatePointers, py::arg("pointers"))
      .def("run_dlpack", &Entry::runDlpack, py::arg("tensors"),
           py::arg("labels") = py::list(), py::arg("stream") = py::none(),
           py::arg("alignment") = 256, py::arg("synchronize") = false,
           py::arg("dry_run") = false,
           py::arg("communicators") = Communicators(),
           py::arg("graph") = false, py::arg("producer_stream") = false,
           "Runs the entry on DLPack tensors, one per buffer, after checking "
           "each (ValueError naming `labels[i]`). stream: an integer "
           "CUstream (0: the legacy default stream) or None (the context's "
           "own). dry_run: check only. graph: as a CUDA graph, captured once "
           "per set of buffer addresses. producer_stream: the stream is the "
           "one the tensors' framework is working on, so tensors of a type "
           "with a registered exporter are exported directly, without the "
           "protocol's stream handshake.");
  m.def("register_exporter", &registerExporter, py::arg("type"),
        py::arg("exporter"),
        "Registers a direct DLPack exporter for tensors of `type` (and its "
        "subclasses): exporter(tensor) returns a \"dltensor\" capsule "
        "without synchronizing streams (PyTorch: torch._C._to_dlpack). Used "
        "by run_dlpack(producer_stream=True).");
}

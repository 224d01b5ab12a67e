//===- RuntimeCAPI.cpp - C API of the TEQ runtime -------------------------===//
//
// include/teq-c/Runtime.h over the C++ runtime. Handles point to the wrappers
// below; every function that can fail catches what the C++ side reports (a
// Status; exceptions only from allocation failures) and turns it into a
// TeqRtStatus and the thread's last error. Nothing escapes to the C caller.
//
//===----------------------------------------------------------------------===//

#include "teq-c/Runtime.h"

#include "teq/Runtime/Artifact.h"
#include "teq/Runtime/Communicator.h"
#include "teq/Runtime/Context.h"
#include "teq/Runtime/Manifest.h"
#include "teq/Runtime/Status.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using namespace mlir::teq::runtime;

namespace {

//===----------------------------------------------------------------------===//
// Wrappers behind the handles
//===----------------------------------------------------------------------===//

struct CContext {
  std::shared_ptr<Context> context;
  std::string smName;
};

struct CArtifact;

/// What an argument needs that the manifest does not store as is.
struct CArg {
  size_t firstBuffer = 0;
  std::string quantizerJson;
};

struct CEntry {
  const CArtifact *artifact = nullptr;
  const EntrySpec *spec = nullptr;
  /// The runnable entry; null for an inspected artifact.
  const Entry *entry = nullptr;
  std::vector<CArg> args;
};

struct CArtifact {
  std::string path;
  /// Set when loaded on a context.
  std::unique_ptr<Artifact> loaded;
  /// The manifest when only inspected.
  Manifest inspected;
  std::string manifestJson;
  std::vector<CEntry> entries;

  const Manifest &manifest() const {
    return loaded ? loaded->manifest() : inspected;
  }
};

/// Fills in what the handles need once the manifest is in its final place
/// (`artifact` is heap-allocated and never moves).
void buildEntries(CArtifact &artifact) {
  const Manifest &manifest = artifact.manifest();
  artifact.manifestJson = manifest.json.serialize();
  artifact.entries.resize(manifest.entries.size());
  for (size_t i = 0; i < manifest.entries.size(); ++i) {
    const EntrySpec &spec = manifest.entries[i];
    CEntry &entry = artifact.entries[i];
    entry.artifact = &artifact;
    entry.spec = &spec;
    if (artifact.loaded)
      entry.entry = artifact.loaded->findEntry(spec.name);
    entry.args.resize(spec.args.size());
    size_t next = 0;
    for (size_t a = 0; a < spec.args.size(); ++a) {
      entry.args[a].firstBuffer = next;
      next += spec.args[a].buffers.size();
      if (spec.args[a].isProto)
        entry.args[a].quantizerJson =
            toJson(spec.args[a].proto.quantizer).serialize();
    }
  }
}

CContext *unwrap(TeqRtContext context) {
  return static_cast<CContext *>(context.ptr);
}
CArtifact *unwrap(TeqRtArtifact artifact) {
  return static_cast<CArtifact *>(artifact.ptr);
}
const CEntry *unwrap(TeqRtEntry entry) {
  return static_cast<const CEntry *>(entry.ptr);
}
Communicator *unwrap(TeqRtCommunicator communicator) {
  return static_cast<Communicator *>(communicator.ptr);
}
TeqRtContext wrap(CContext *context) { return TeqRtContext{context}; }
TeqRtArtifact wrap(CArtifact *artifact) { return TeqRtArtifact{artifact}; }
TeqRtEntry wrap(const CEntry *entry) { return TeqRtEntry{entry}; }

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

thread_local std::string lastError;

TeqRtStatus fail(TeqRtStatus code, std::string message) {
  lastError = std::move(message);
  return code;
}

TeqRtStatus fail(const Status &status) {
  return fail(TEQ_RT_FAILURE, status.message());
}

TeqRtStatus succeed() {
  lastError.clear();
  return TEQ_RT_SUCCESS;
}

/// Runs `body(function)` (which returns a TeqRtStatus), turning an exception
/// (only std::bad_alloc is expected) into a failure: none may cross into C.
template <typename Body>
TeqRtStatus guarded(const char *function, Body &&body) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  try {
    return body(function);
  } catch (const std::exception &error) {
    try {
      return fail(TEQ_RT_FAILURE,
                  std::string(function) + ": internal error: " + error.what());
    } catch (...) {
    }
  } catch (...) {
  }
  // Not even the message could be stored.
  try {
    lastError = "internal error";
  } catch (...) {
  }
  return TEQ_RT_FAILURE;
#else
  return body(function);
#endif
}

TeqRtStatus nullHandle(const char *function, const char *what) {
  return fail(TEQ_RT_INVALID_ARGUMENT,
              std::string(function) + ": null " + what + " handle");
}

TeqRtStatus nullPointer(const char *function, const char *parameter) {
  return fail(TEQ_RT_INVALID_ARGUMENT,
              std::string(function) + ": '" + parameter + "' is null");
}

/// "<owner>: argument index 2 is out of range (it has 2 arguments)".
TeqRtStatus outOfRange(const std::string &owner, const char *what, size_t index,
                       size_t size, const char *plural) {
  return fail(TEQ_RT_OUT_OF_RANGE,
              owner + ": " + what + " index " + std::to_string(index) +
                  " is out of range (it has " + std::to_string(size) + " " +
                  (size == 1 ? std::string(what) : std::string(plural)) + ")");
}

std::string artifactName(const CArtifact &artifact) {
  return "artifact '" + artifact.path + "'";
}

std::string entryName(const CEntry &entry) {
  return "entry '" + entry.spec->name + "'";
}

// Argument checks of the API functions' bodies (lambdas of guarded(), where
// `function` is the API function's name): they return the failure.
#define TEQ_CHECK_HANDLE(handle, what)                                         \
  if (!(handle).ptr)                                                           \
    return nullHandle(function, what);
#define TEQ_CHECK_OUT(pointer)                                                 \
  if (!(pointer))                                                              \
    return nullPointer(function, #pointer);

TeqRtArgKind toArgKind(ArgKind kind) {
  switch (kind) {
  case ArgKind::Input:
    return TEQ_RT_ARG_INPUT;
  case ArgKind::Output:
    return TEQ_RT_ARG_OUTPUT;
  case ArgKind::InOut:
  case ArgKind::Temporary: // never an argument of the call
    return TEQ_RT_ARG_INOUT;
  }
  return TEQ_RT_ARG_INOUT;
}

/// The checks before running or validating: a runnable entry and a buffer
/// array that matches the manifest.
TeqRtStatus checkCall(const char *function, TeqRtEntry handle,
                      const uint64_t *buffers, size_t numBuffers) {
  if (!handle.ptr)
    return nullHandle(function, "entry");
  const CEntry &entry = *unwrap(handle);
  if (!entry.entry)
    return fail(TEQ_RT_FAILURE,
                entryName(entry) + ": " + artifactName(*entry.artifact) +
                    " was opened for inspection only; load it on a context "
                    "(teqRtArtifactLoad) to run its entries");
  if (numBuffers != entry.spec->numBuffers())
    return fail(TEQ_RT_INVALID_ARGUMENT,
                entryName(entry) + ": expected " +
                    std::to_string(entry.spec->numBuffers()) +
                    " buffers, got " + std::to_string(numBuffers));
  if (!buffers && numBuffers > 0)
    return fail(TEQ_RT_INVALID_ARGUMENT,
                std::string(function) + ": " + entryName(entry) +
                    ": 'buffers' is null but " + std::to_string(numBuffers) +
                    " buffers were announced");
  return TEQ_RT_SUCCESS;
}

} // namespace

//===----------------------------------------------------------------------===//
// Status and errors
//===----------------------------------------------------------------------===//

const char *teqRtGetLastError(void) { return lastError.c_str(); }

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

TeqRtStatus teqRtContextCreate(int ordinal, TeqRtContext *context) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_OUT(context);
    auto created = Context::create(ordinal);
    if (!created.ok())
      return fail(created.status());
    auto wrapper = std::make_unique<CContext>();
    wrapper->context = std::move(*created);
    wrapper->smName = wrapper->context->device().smName();
    *context = wrap(wrapper.release());
    return succeed();
  });
}

void teqRtContextDestroy(TeqRtContext context) { delete unwrap(context); }

TeqRtStatus teqRtContextGetDeviceInfo(TeqRtContext context,
                                      TeqRtDeviceInfo *info) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(context, "context");
    TEQ_CHECK_OUT(info);
    const CContext &c = *unwrap(context);
    const DeviceInfo &device = c.context->device();
    TeqRtDeviceInfo result;
    result.ordinal = device.ordinal;
    result.name = device.name.c_str();
    result.computeCapability = device.computeCapability;
    result.smName = c.smName.c_str();
    result.multiprocessors = device.multiprocessors;
    result.totalMemoryBytes = device.totalMemoryBytes;
    result.l2CacheBytes = device.l2CacheBytes;
    result.driverVersion = device.driverVersion;
    *info = result;
    return succeed();
  });
}

TeqRtStatus teqRtContextGetStream(TeqRtContext context, void **stream) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(context, "context");
    TEQ_CHECK_OUT(stream);
    *stream = unwrap(context)->context->stream();
    return succeed();
  });
}

TeqRtStatus teqRtContextSynchronize(TeqRtContext context) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(context, "context");
    Status status = unwrap(context)->context->synchronize();
    if (!status.ok())
      return fail(status);
    return succeed();
  });
}

//===----------------------------------------------------------------------===//
// Artifact
//===----------------------------------------------------------------------===//

TeqRtStatus teqRtArtifactLoad(TeqRtContext context, const char *path,
                              TeqRtArtifact *artifact) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(context, "context");
    TEQ_CHECK_OUT(path);
    TEQ_CHECK_OUT(artifact);
    auto opened = Artifact::open(path, unwrap(context)->context);
    if (!opened.ok())
      return fail(opened.status());
    auto wrapper = std::make_unique<CArtifact>();
    wrapper->path = path;
    wrapper->loaded = std::move(*opened);
    buildEntries(*wrapper);
    *artifact = wrap(wrapper.release());
    return succeed();
  });
}

TeqRtStatus teqRtArtifactInspect(const char *path, TeqRtArtifact *artifact) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_OUT(path);
    TEQ_CHECK_OUT(artifact);
    auto manifest = Artifact::inspect(path);
    if (!manifest.ok())
      return fail(manifest.status());
    auto wrapper = std::make_unique<CArtifact>();
    wrapper->path = path;
    wrapper->inspected = std::move(*manifest);
    buildEntries(*wrapper);
    *artifact = wrap(wrapper.release());
    return succeed();
  });
}

void teqRtArtifactDestroy(TeqRtArtifact artifact) { delete unwrap(artifact); }

TeqRtStatus teqRtArtifactIsLoaded(TeqRtArtifact artifact, bool *loaded) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(artifact, "artifact");
    TEQ_CHECK_OUT(loaded);
    *loaded = unwrap(artifact)->loaded != nullptr;
    return succeed();
  });
}

TeqRtStatus teqRtArtifactGetPath(TeqRtArtifact artifact, const char **path) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(artifact, "artifact");
    TEQ_CHECK_OUT(path);
    *path = unwrap(artifact)->path.c_str();
    return succeed();
  });
}

TeqRtStatus teqRtArtifactGetManifestJson(TeqRtArtifact artifact,
                                         const char **json) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(artifact, "artifact");
    TEQ_CHECK_OUT(json);
    *json = unwrap(artifact)->manifestJson.c_str();
    return succeed();
  });
}

TeqRtStatus teqRtArtifactGetTarget(TeqRtArtifact artifact,
                                   const char **target) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(artifact, "artifact");
    TEQ_CHECK_OUT(target);
    *target = unwrap(artifact)->manifest().target.name.c_str();
    return succeed();
  });
}

TeqRtStatus teqRtArtifactGetDeviceCode(TeqRtArtifact artifact,
                                       const char **deviceCode) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(artifact, "artifact");
    TEQ_CHECK_OUT(deviceCode);
    *deviceCode = stringifyDeviceCode(unwrap(artifact)->manifest().deviceCode);
    return succeed();
  });
}

TeqRtStatus teqRtArtifactGetNumEntries(TeqRtArtifact artifact,
                                       size_t *numEntries) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(artifact, "artifact");
    TEQ_CHECK_OUT(numEntries);
    *numEntries = unwrap(artifact)->entries.size();
    return succeed();
  });
}

TeqRtStatus teqRtArtifactGetEntry(TeqRtArtifact artifact, size_t index,
                                  TeqRtEntry *entry) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(artifact, "artifact");
    TEQ_CHECK_OUT(entry);
    const CArtifact &a = *unwrap(artifact);
    if (index >= a.entries.size())
      return outOfRange(artifactName(a), "entry", index, a.entries.size(),
                        "entries");
    *entry = wrap(&a.entries[index]);
    return succeed();
  });
}

TeqRtStatus teqRtArtifactLookupEntry(TeqRtArtifact artifact, const char *name,
                                     TeqRtEntry *entry) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(artifact, "artifact");
    TEQ_CHECK_OUT(name);
    TEQ_CHECK_OUT(entry);
    const CArtifact &a = *unwrap(artifact);
    for (const CEntry &candidate : a.entries)
      if (candidate.spec->name == name) {
        *entry = wrap(&candidate);
        return succeed();
      }
    // The C++ runtime's message (Artifact::entry), also for an artifact that
    // was only inspected.
    if (a.loaded)
      return fail(TEQ_RT_NOT_FOUND, a.loaded->entry(name).message());
    std::string names;
    for (const CEntry &candidate : a.entries)
      names += (names.empty() ? "" : ", ") + candidate.spec->name;
    return fail(TEQ_RT_NOT_FOUND,
                artifactName(a) + ": no entry '" + name +
                    "' (entries: " + (names.empty() ? "none" : names) + ")");
  });
}

TeqRtStatus teqRtArtifactGetNumGemms(TeqRtArtifact artifact, size_t *numGemms) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(artifact, "artifact");
    TEQ_CHECK_OUT(numGemms);
    *numGemms = unwrap(artifact)->manifest().gemms.size();
    return succeed();
  });
}

TeqRtStatus teqRtArtifactGetGemmInfo(TeqRtArtifact artifact, size_t index,
                                     TeqRtGemmInfo *info) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(artifact, "artifact");
    TEQ_CHECK_OUT(info);
    const CArtifact &a = *unwrap(artifact);
    const std::vector<GemmSpec> &gemms = a.manifest().gemms;
    if (index >= gemms.size())
      return outOfRange(artifactName(a), "GEMM", index, gemms.size(), "GEMMs");
    const GemmSpec &gemm = gemms[index];
    TeqRtGemmInfo result;
    result.id = gemm.id;
    result.name = gemm.name.c_str();
    result.m = gemm.m;
    result.n = gemm.n;
    result.k = gemm.k;
    result.transa = gemm.transa;
    result.transb = gemm.transb;
    result.aType = stringifyGemmType(gemm.aType);
    result.bType = stringifyGemmType(gemm.bType);
    result.dType = stringifyGemmType(gemm.dType);
    result.lda = gemm.lda;
    result.ldb = gemm.ldb;
    result.ldd = gemm.ldd;
    result.aScaleMode = stringifyGemmScaleMode(gemm.aScaleMode);
    result.bScaleMode = stringifyGemmScaleMode(gemm.bScaleMode);
    result.epilogue = stringifyGemmEpilogue(gemm.epilogue);
    result.accumulate = gemm.accumulate;
    result.fastAccum = gemm.fastAccum;
    result.sharesPlanOf = gemm.sharesPlanOf;
    *info = result;
    return succeed();
  });
}

//===----------------------------------------------------------------------===//
// Entry
//===----------------------------------------------------------------------===//

TeqRtStatus teqRtEntryGetName(TeqRtEntry entry, const char **name) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(entry, "entry");
    TEQ_CHECK_OUT(name);
    *name = unwrap(entry)->spec->name.c_str();
    return succeed();
  });
}

TeqRtStatus teqRtEntryGetNumArgs(TeqRtEntry entry, size_t *numArgs) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(entry, "entry");
    TEQ_CHECK_OUT(numArgs);
    *numArgs = unwrap(entry)->spec->args.size();
    return succeed();
  });
}

TeqRtStatus teqRtEntryGetArgInfo(TeqRtEntry entry, size_t index,
                                 TeqRtArgInfo *info) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(entry, "entry");
    TEQ_CHECK_OUT(info);
    const CEntry &e = *unwrap(entry);
    if (index >= e.spec->args.size())
      return outOfRange(entryName(e), "argument", index, e.spec->args.size(),
                        "arguments");
    const ArgSpec &arg = e.spec->args[index];
    const std::vector<int64_t> &shape =
        arg.isProto ? arg.proto.shape : arg.tensor.shape;
    TeqRtArgInfo result;
    result.name = arg.name.c_str();
    result.kind = toArgKind(arg.kind);
    result.isProto = arg.isProto;
    result.dtype =
        arg.isProto ? arg.proto.dtype.c_str() : arg.tensor.dtype.c_str();
    result.rank = shape.size();
    result.shape = shape.data();
    result.numBuffers = arg.buffers.size();
    result.firstBuffer = e.args[index].firstBuffer;
    result.bytes = arg.totalBytes();
    result.quantizerKind = arg.isProto ? arg.proto.quantizerKind() : "";
    result.usage = arg.isProto ? arg.proto.usage.c_str() : "";
    result.scaleLayout = arg.isProto ? arg.proto.scaleLayout.c_str() : "";
    result.quantizerJson = e.args[index].quantizerJson.c_str();
    result.role = arg.role.c_str();
    result.roleOf = arg.roleOf.c_str();
    result.aliasOf = arg.aliasOf.c_str();
    *info = result;
    return succeed();
  });
}

TeqRtStatus teqRtEntryGetNumBuffers(TeqRtEntry entry, size_t *numBuffers) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(entry, "entry");
    TEQ_CHECK_OUT(numBuffers);
    *numBuffers = unwrap(entry)->spec->numBuffers();
    return succeed();
  });
}

TeqRtStatus teqRtEntryGetBufferInfo(TeqRtEntry entry, size_t index,
                                    TeqRtBufferInfo *info) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(entry, "entry");
    TEQ_CHECK_OUT(info);
    const CEntry &e = *unwrap(entry);
    if (index >= e.spec->numBuffers())
      return outOfRange(entryName(e), "buffer", index, e.spec->numBuffers(),
                        "buffers");
    const BufferRef &ref = e.spec->flatBuffers[index];
    const BufferSpec &buffer = e.spec->buffer(index);
    TeqRtBufferInfo result;
    result.argIndex = ref.arg;
    result.bufferIndex = ref.buffer;
    result.name = buffer.name.c_str();
    result.encoding = buffer.encoding.c_str();
    result.rank = buffer.shape.size();
    result.shape = buffer.shape.data();
    // parseManifest makes validShape the shape's rank (= shape if absent).
    result.validShape = buffer.validShape.size() == buffer.shape.size()
                            ? buffer.validShape.data()
                            : buffer.shape.data();
    result.bytes = buffer.bytes;
    result.transposed = buffer.transposed;
    result.scaleLayout = buffer.scaleLayout.c_str();
    *info = result;
    return succeed();
  });
}

TeqRtStatus teqRtEntryGetWorkspaceBytes(TeqRtEntry entry, int64_t *bytes) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(entry, "entry");
    TEQ_CHECK_OUT(bytes);
    *bytes = unwrap(entry)->spec->workspaceBytes;
    return succeed();
  });
}

//===----------------------------------------------------------------------===//
// Parallel groups
//===----------------------------------------------------------------------===//

TeqRtStatus teqRtUniqueIdCreate(TeqRtUniqueId *id) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_OUT(id);
    auto created = Communicator::createUniqueId();
    if (!created.ok())
      return fail(created.status());
    static_assert(sizeof(id->internal) == UniqueId::kBytes,
                  "TeqRtUniqueId must hold a UniqueId");
    std::copy(created->bytes.begin(), created->bytes.end(), id->internal);
    return succeed();
  });
}

TeqRtCommunicatorOptions teqRtCommunicatorOptionsGetDefault(void) {
  TeqRtCommunicatorOptions options;
  options.timeoutSeconds = 0;
  options.shouldAbort = nullptr;
  options.shouldAbortData = nullptr;
  return options;
}

namespace {
/// teqRtCommunicatorCreate and teqRtCommunicatorCreateWithOptions.
TeqRtStatus createCommunicator(const char *name, TeqRtContext context,
                               const TeqRtUniqueId *id, int size, int rank,
                               const char *groupName,
                               const TeqRtCommunicatorOptions *options,
                               TeqRtCommunicator *communicator) {
  return guarded(name, [&](const char *function) {
    TEQ_CHECK_HANDLE(context, "context");
    TEQ_CHECK_OUT(id);
    TEQ_CHECK_OUT(communicator);
    *communicator = TeqRtCommunicator{nullptr};
    UniqueId uniqueId;
    std::copy(id->internal, id->internal + UniqueId::kBytes,
              uniqueId.bytes.begin());
    CommunicatorOptions createOptions;
    if (options) {
      createOptions.timeoutSeconds = options->timeoutSeconds;
      if (options->shouldAbort) {
        int (*shouldAbort)(void *) = options->shouldAbort;
        void *data = options->shouldAbortData;
        createOptions.shouldAbort = [shouldAbort, data] {
          return shouldAbort(data) != 0;
        };
        createOptions.abortReason =
            "the caller's shouldAbort returned nonzero";
      }
    }
    auto created =
        Communicator::create(unwrap(context)->context, uniqueId, size, rank,
                             groupName ? groupName : "", createOptions);
    if (!created.ok())
      return fail(created.status());
    *communicator = TeqRtCommunicator{created->release()};
    return succeed();
  });
}
} // namespace

TeqRtStatus teqRtCommunicatorCreateWithOptions(
    TeqRtContext context, const TeqRtUniqueId *id, int size, int rank,
    const char *name, const TeqRtCommunicatorOptions *options,
    TeqRtCommunicator *communicator) {
  return createCommunicator(__func__, context, id, size, rank, name, options,
                            communicator);
}

TeqRtStatus teqRtCommunicatorCreate(TeqRtContext context,
                                    const TeqRtUniqueId *id, int size,
                                    int rank, const char *name,
                                    TeqRtCommunicator *communicator) {
  return createCommunicator(__func__, context, id, size, rank, name, nullptr,
                            communicator);
}

void teqRtCommunicatorDestroy(TeqRtCommunicator communicator) {
  delete unwrap(communicator);
}

TeqRtStatus teqRtCommunicatorGetSize(TeqRtCommunicator communicator,
                                     int *size) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(communicator, "communicator");
    TEQ_CHECK_OUT(size);
    *size = unwrap(communicator)->size();
    return succeed();
  });
}

TeqRtStatus teqRtCommunicatorGetRank(TeqRtCommunicator communicator,
                                     int *rank) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(communicator, "communicator");
    TEQ_CHECK_OUT(rank);
    *rank = unwrap(communicator)->rank();
    return succeed();
  });
}

TeqRtStatus teqRtCommunicatorGetNcclComm(TeqRtCommunicator communicator,
                                         void **comm) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(communicator, "communicator");
    TEQ_CHECK_OUT(comm);
    *comm = unwrap(communicator)->ncclComm();
    return succeed();
  });
}

TeqRtStatus teqRtCommunicatorAbort(TeqRtCommunicator communicator) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(communicator, "communicator");
    unwrap(communicator)->abort();
    return succeed();
  });
}

TeqRtStatus teqRtCommunicatorCheckAsyncError(TeqRtCommunicator communicator) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(communicator, "communicator");
    Status status = unwrap(communicator)->asyncError();
    if (!status.ok())
      return fail(status);
    return succeed();
  });
}

TeqRtStatus teqRtEntryGetNumGroups(TeqRtEntry entry, size_t *numGroups) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(entry, "entry");
    TEQ_CHECK_OUT(numGroups);
    *numGroups = unwrap(entry)->spec->groups.size();
    return succeed();
  });
}

TeqRtStatus teqRtEntryGetGroupInfo(TeqRtEntry entry, size_t index,
                                   TeqRtGroupInfo *info) {
  return guarded(__func__, [&](const char *function) {
    TEQ_CHECK_HANDLE(entry, "entry");
    TEQ_CHECK_OUT(info);
    const CEntry &e = *unwrap(entry);
    const std::vector<GroupSpec> &groups = e.spec->groups;
    if (index >= groups.size())
      return outOfRange(entryName(e), "group", index, groups.size(), "groups");
    info->name = groups[index].name.c_str();
    info->size = groups[index].size;
    return succeed();
  });
}

//===----------------------------------------------------------------------===//
// Running an entry
//===----------------------------------------------------------------------===//

TeqRtRunOptions teqRtRunOptionsGetDefault(void) {
  TeqRtRunOptions options;
  options.validate = true;
  options.synchronize = false;
  options.graph = false;
  return options;
}

namespace {
/// teqRtEntryRun and teqRtEntryRunWithCommunicators.
TeqRtStatus runEntry(const char *function, TeqRtEntry entry,
                     const uint64_t *buffers, size_t numBuffers,
                     const TeqRtCommunicator *communicators,
                     size_t numCommunicators, void *stream,
                     const TeqRtRunOptions *options) {
  TeqRtStatus check = checkCall(function, entry, buffers, numBuffers);
  if (check != TEQ_RT_SUCCESS)
    return check;
  if (!communicators && numCommunicators > 0)
    return fail(TEQ_RT_INVALID_ARGUMENT,
                std::string(function) + ": " + entryName(*unwrap(entry)) +
                    ": 'communicators' is null but " +
                    std::to_string(numCommunicators) +
                    " communicators were announced");
  const TeqRtRunOptions given =
      options ? *options : teqRtRunOptionsGetDefault();
  RunOptions runOptions;
  runOptions.validate = given.validate;
  runOptions.synchronize = given.synchronize;
  runOptions.graph = given.graph;
  runOptions.stream = stream;
  for (size_t i = 0; i < numCommunicators; ++i)
    runOptions.communicators.push_back(unwrap(communicators[i]));
  std::vector<DevicePtr> pointers(buffers, buffers + numBuffers);
  Status status = unwrap(entry)->entry->run(pointers, runOptions);
  if (!status.ok())
    return fail(status);
  return succeed();
}
} // namespace

TeqRtStatus teqRtEntryRun(TeqRtEntry entry, const uint64_t *buffers,
                          size_t numBuffers, void *stream,
                          const TeqRtRunOptions *options) {
  return guarded(__func__, [&](const char *function) {
    return runEntry(function, entry, buffers, numBuffers, nullptr, 0, stream,
                    options);
  });
}

TeqRtStatus teqRtEntryRunWithCommunicators(
    TeqRtEntry entry, const uint64_t *buffers, size_t numBuffers,
    const TeqRtCommunicator *communicators, size_t numCommunicators,
    void *stream, const TeqRtRunOptions *options) {
  return guarded(__func__, [&](const char *function) {
    return runEntry(function, entry, buffers, numBuffers, communicators,
                    numCommunicators, stream, options);
  });
}

TeqRtStatus teqRtEntryCheckBuffers(TeqRtEntry entry, const uint64_t *buffers,
                                   size_t numBuffers) {
  return guarded(__func__, [&](const char *function) {
    if (!entry.ptr)
      return nullHandle(function, "entry");
    if (!buffers && numBuffers > 0)
      return fail(TEQ_RT_INVALID_ARGUMENT,
                  std::string(function) + ": " + entryName(*unwrap(entry)) +
                      ": 'buffers' is null but " + std::to_string(numBuffers) +
                      " buffers were announced");
    std::vector<DevicePtr> pointers(buffers, buffers + numBuffers);
    Status status = checkBufferContract(*unwrap(entry)->spec, pointers);
    if (!status.ok())
      return fail(TEQ_RT_INVALID_ARGUMENT, status.message());
    return succeed();
  });
}

TeqRtStatus teqRtEntryValidate(TeqRtEntry entry, const uint64_t *buffers,
                               size_t numBuffers) {
  return guarded(__func__, [&](const char *function) {
    TeqRtStatus check = checkCall(function, entry, buffers, numBuffers);
    if (check != TEQ_RT_SUCCESS)
      return check;
    std::vector<DevicePtr> pointers(buffers, buffers + numBuffers);
    Status status = unwrap(entry)->entry->validate(pointers);
    if (!status.ok())
      return fail(status);
    return succeed();
  });
}

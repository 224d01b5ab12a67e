//===- Manifest.h - The artifact manifest: document, writer, reader -*- C++ -*-===//
//
// The contract between te-compile and the runtime: the JSON document in an
// artifact's trailer (docs/Artifact.md, "The manifest"). Target, device code
// kind and, per entry point, its arguments and the device buffers they are
// passed as, its temporaries and how te-run recomputes each value
// (computed_by); the artifact's GEMMs.
//
// One definition for the three sides: the compiler fills these types and
// calls writeManifest(); the runtime reads them with parseManifest(); te-run's
// checker interprets what parseManifest() returns. The manifest's parts have
// their own headers, all included here: the target (Target.h), entries and
// their arguments (Entry.h), how each value is computed (ComputedBy.h), the
// GEMMs (Gemm.h), quantizers (Quantizer.h). This header holds the document
// with its one writer and one reader.
//
// parseManifest() validates all of it (docs/Artifact.md, "What the runtime
// checks"): types, sizes (nothing past 2^48 bytes, so no size arithmetic
// overflows), quantizers, proto buffers against their layout on the target,
// and every cross reference (computed_by's values and GEMMs, with the shapes
// and types its op needs). Errors name the JSON path of what is wrong, e.g.
//   manifest: entries[0].args[1]: missing "shape"
//   manifest: entries[0].args[1].proto.shape[0]: expected an integer, got a string
//   manifest: version: unsupported version 3 (this runtime reads versions 1
//     and 2)
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

#include "teq/Artifact/ComputedBy.h"
#include "teq/Artifact/Entry.h"
#include "teq/Artifact/Gemm.h"
#include "teq/Artifact/Json.h"
#include "teq/Artifact/Quantizer.h"
#include "teq/Artifact/Status.h"
#include "teq/Artifact/Target.h"

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::teq::artifact {

/// The manifest version this library writes ("version"). It reads this one
/// and version 1, which has no alias outputs ("alias_of": an output without
/// buffers of its own; a version-1 reader would expect buffers for it).
constexpr int kManifestVersion = 2;
constexpr int kMinManifestVersion = 1;

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

/// Parses and validates a manifest completely (see the top of this file).
/// Errors start with "manifest: " and name the JSON path of the offending
/// value.
StatusOr<Manifest> parseManifest(std::string_view json);

} // namespace mlir::teq::artifact

#endif // TEQ_ARTIFACT_MANIFEST_H

//===- Readers.h - The readers of the manifest's parts ----------*- C++ -*-===//
//
// What parseManifest (Manifest.cpp) calls to read and check each part of a
// manifest (an internal header of TEQArtifact, not installed). Each takes
// the JSON path of what it reads and names it in its errors (JsonFields.h).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_ARTIFACT_READERS_H
#define TEQ_LIB_ARTIFACT_READERS_H

#include "teq/Artifact/Manifest.h"

#include <cstddef>
#include <string>

namespace mlir::teq::artifact::detail {

/// An argument's "tensor" (TensorReader.cpp): its dtype and shape, and the
/// one buffer it is passed as.
Status parseTensor(const JsonValue &value, const std::string &path,
                   ArgSpec &arg);

/// An argument's "proto" `value` and the "buffers" beside it in `argValue`
/// (TensorReader.cpp): its quantizer, usage and scale layout, and buffers
/// that are exactly those of its layout on `target`; none where it has no
/// buffers of its own (`ownBuffers` false: an alias output).
Status parseProto(const JsonValue &argValue, const JsonValue &value,
                  const std::string &argPath, const GpuTarget &target,
                  ArgSpec &arg, bool ownBuffers = true);

/// Reads a computed_by (ComputedBy.cpp): its op and the keys that op takes,
/// typed (the values it names are checked by checkComputedBy, which sees
/// the whole entry).
StatusOr<ComputedBy> parseComputedBy(const JsonValue &by,
                                     const std::string &path);

/// Checks the computed_by of every output and temporary of `entry`
/// (ComputedByChecker.cpp) against the entry and the GEMMs `manifest` has
/// read so far: the values and GEMMs it names exist, have the types and
/// shapes the op needs, and no value is computed from itself. te-run
/// --check evaluates these descriptions on the CPU, so they must describe a
/// program it can run without reading out of bounds.
Status checkComputedBy(const Manifest &manifest, const EntrySpec &entry,
                       const std::string &entryPath);

/// Reads GEMM `index` of "gemms" (Gemm.cpp) and checks it as cuBLASLt and
/// TE would (the checks that need no device).
Status parseGemm(const JsonValue &value, const std::string &path,
                 size_t index, GemmSpec &g);

} // namespace mlir::teq::artifact::detail

#endif // TEQ_LIB_ARTIFACT_READERS_H

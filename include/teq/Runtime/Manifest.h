//===- Manifest.h - The artifact manifest, parsed and validated -----*- C++ -*-===//
//
// The JSON document an artifact returns from teq_artifact_manifest()
// (docs/Artifact.md, "The manifest"): target, device code kind and, per entry
// point, its arguments and the device buffers they are passed as.
//
// parseManifest() checks everything the runtime relies on and names the JSON
// path of what is wrong, e.g.
//   manifest: entries[0].args[1]: missing "shape"
//   manifest: entries[0].args[1].proto.shape[0]: expected an integer, got a string
//   manifest: version: unsupported version 2 (this runtime reads version 1)
// Unknown keys are ignored.
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

  bool isRead() const { return kind != ArgKind::Output; }
  bool isWritten() const { return kind != ArgKind::Input; }
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

  size_t numBuffers() const { return flatBuffers.size(); }
  const BufferSpec &buffer(size_t flatIndex) const;
  const ArgSpec *findArg(std::string_view argName) const;
  /// Bytes read plus bytes written by one call: every input buffer once,
  /// every output buffer once, every inout buffer twice (for GB/s).
  int64_t bytesMoved() const;
};

struct TEQ_RUNTIME_EXPORT Manifest {
  std::string format; ///< "teq-artifact".
  int version = 1;
  GpuTarget target;
  DeviceCodeKind deviceCode = DeviceCodeKind::PTX;
  std::vector<EntrySpec> entries;
  /// The parsed document (for fields this struct does not model).
  JsonValue json;

  const EntrySpec *findEntry(std::string_view name) const;
};

/// Bytes of one element of a tensor dtype ("f32" 4, "bf16"/"f16" 2, "i64"
/// 8), or 0 if the dtype is not one a tensor argument may have.
TEQ_RUNTIME_EXPORT int64_t tensorDTypeBytes(std::string_view dtype);

/// Parses and validates a manifest. Errors start with "manifest: " and name
/// the JSON path of the offending value.
TEQ_RUNTIME_EXPORT StatusOr<Manifest> parseManifest(std::string_view json);

} // namespace mlir::teq::runtime

#endif // TEQ_RUNTIME_MANIFEST_H

//===- Entry.h - An artifact's entry points and their arguments -*- C++ -*-===//
//
// The manifest's "entries" (docs/Artifact.md): per entry point its
// arguments (a high-precision tensor, or a quantized proto with its
// quantizer and device buffers), the flat buffer list teq_entry_<name>
// takes, its parallel groups, its workspace and the temporaries in it, and
// for each computed value its computed_by (ComputedBy.h).
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_ARTIFACT_ENTRY_H
#define TEQ_ARTIFACT_ENTRY_H

#include "teq/Artifact/ComputedBy.h"
#include "teq/Artifact/Quantizer.h"
#include "teq/Layout/BufferLayout.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::teq::artifact {

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

/// Whether `role` is one of the manifest's argument roles ("role"): input,
/// parameter, output, saved, state, state_update, grad_output, grad,
/// main_grad.
bool isArgRole(std::string_view role);
/// Whether an argument of `role` may name another value ("of"): the state
/// a state_update updates, the value a grad or grad_output is the gradient
/// of, the parameter of a main_grad, the forward argument a saved tensor is.
bool argRoleTakesOf(std::string_view role);
/// The roles, comma-separated, for messages.
const char *argRoleList();

/// One device buffer. For a `tensor` argument it is the tensor itself
/// (name "tensor", encoding = the dtype; not written, a "buffers" list on a
/// tensor argument is ignored); for a `proto` argument one entry of its
/// `buffers` list. An alias output (ArgSpec::aliasOf) has none.
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
  /// What the value is to a training step ("role", isArgRole), so that
  /// callers need not infer it from names; "" where the manifest does not
  /// say (older manifests, hand-written programs without a recognised
  /// shape). Never on temporaries.
  std::string role;
  /// The value `role` refers to ("of", argRoleTakesOf), or "".
  std::string roleOf;
  /// An output that is one of the entry's input arguments, returned as is
  /// ("alias_of", manifest version 2): the entry writes nothing for it, so
  /// it has no buffers of its own (`buffers` is empty, nothing in the flat
  /// buffer list); its value is that argument's, of the same type. Callers
  /// return the argument they passed (teq.runtime: the very tensor).
  std::string aliasOf;

  bool isAlias() const { return !aliasOf.empty(); }

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
  /// argument's buffers in order (an alias output has none). Filled by the
  /// reader (writing ignores it).
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

/// Bytes of one element of a tensor dtype ("f32" 4, "bf16"/"f16" 2, "i64"
/// 8), or 0 if the dtype is not one a tensor argument may have.
int64_t tensorDTypeBytes(std::string_view dtype);

} // namespace mlir::teq::artifact

#endif // TEQ_ARTIFACT_ENTRY_H

//===- EntryBuffers.h - An entry's buffers and workspace plan --*- C++ -*-===//
//
// Before an entry is lowered, each of its values gets device buffers: the
// caller's for arguments and results, the entry's workspace for temporaries
// (values computed and not returned) and per-op scratch. A temporary's
// buffers live from its defining op to the last op reading each of them
// (through usage views), and MemoryPlan.h packs them into one workspace.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_ENTRYBUFFERS_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_ENTRYBUFFERS_H

#include "ElementwiseFusion.h"
#include "GemmDescriptor.h"
#include "Kernels/BiasGrad.h"
#include "Kernels/Norm.h"
#include "teq/Dialect/TEQ/IR/TEQOps.h"
#include "teq/Layout/BufferLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::teq::lowering {

/// One device buffer of an entry value: a 1-D memref of its bytes. A
/// quantized value's buffers carry their layout (TE's name, encoding, shape).
struct Buffer {
  std::string name; ///< TE's buffer name; "tensor" for a plain tensor.
  MemRefType type;
  int64_t bytes = 0;
  std::optional<layout::BufferDesc> desc;
};

/// The buffers of a tensor or quantized-tensor type on `target`, or an error
/// at `loc` naming a type that has none.
FailureOr<llvm::SmallVector<Buffer>> buffersOf(Type type, TargetAttr target,
                                               Location loc);

/// Whether `name` is a block-scale buffer (TE's *_scale_inv of MXFP8/NVFP4).
bool isScaleBuffer(llvm::StringRef name);

/// A quantization's buffers by TE's buffer name, with their layout.
struct NamedBuffer {
  Value value;
  layout::BufferDesc desc;
};
llvm::StringMap<NamedBuffer> buffersByName(TensorProtoType proto,
                                           TargetAttr target,
                                           llvm::ArrayRef<Value> buffers);

/// Everything the lowering and the manifest need to know about where an
/// entry's values live.
struct EntryPlan {
  /// Results computed in place into the caller's output buffers, by value.
  llvm::DenseMap<Value, unsigned> resultIndexOf;
  /// Results that are one of the entry's arguments, returned as is: they
  /// get no buffers and nothing is written for them (the manifest's
  /// "alias_of"; the caller's value is the argument it passed). By result
  /// index.
  llvm::SmallVector<std::pair<unsigned, BlockArgument>> forwardedResults;
  /// Results that are a usage view or a value returned before: copied into
  /// their output buffers at the end.
  llvm::SmallVector<std::pair<unsigned, Value>> copiedResults;
  /// Results that are a usage view of a quantization computed in the entry
  /// (a Linear's saved columnwise copy): the quantization writes the view's
  /// buffers straight into the result's (placed there, offset 0), so there
  /// is no copy; by result index, the quantization's value.
  llvm::SmallVector<std::pair<unsigned, Value>> aliasedResults;
  /// The entry's GEMMs in program order, canonicalized for the target.
  std::vector<std::pair<GemmOp, gemm::GemmDescriptor>> gemms;
  llvm::SmallVector<llvm::SmallVector<Buffer>> argumentBuffers, resultBuffers;
  /// The kernels of the elementwise ops and which values they keep in
  /// registers.
  ElementwiseFusion fusion;
  /// Where a temporary's buffer or a scratch lives: at `offset` in the
  /// workspace (host < 0), or in hosts[host], a result buffer that nothing
  /// has written yet when the temporary dies (MemoryPlan.h).
  struct Placement {
    int64_t offset = 0;
    int64_t host = -1;
  };
  /// A result buffer temporaries may live in: buffer `buffer` of result
  /// `result`.
  struct Host {
    unsigned result = 0;
    unsigned buffer = 0;
  };
  llvm::SmallVector<Host> hosts;
  /// Temporaries in definition order; each buffer has a placement, or none
  /// where it aliases the input's (a swizzle passes data on) or the value
  /// lives in registers (fusion.inRegisters).
  llvm::SmallVector<Value> temporaries;
  llvm::SmallVector<llvm::SmallVector<Buffer>> temporaryBuffers;
  llvm::SmallVector<llvm::SmallVector<std::optional<Placement>>>
      temporaryPlacements;
  /// Scratch of one op: an NVFP4 GEMM's device alpha, a bias gradient's
  /// partial sums, an amax all-reduce's result. It lives for the op, or
  /// from `from` on where an earlier op fills it (a cast summing a bias
  /// gradient's columns, QuantizeFusion.h).
  struct Scratch {
    Operation *op;
    MemRefType type;
    Placement at;
    Operation *from = nullptr;
  };
  llvm::SmallVector<Scratch> scratch;
  int64_t workspaceBytes = 0;
  /// The parallel groups: the entry's !teq.process_group arguments (no
  /// buffers), in order, each with the size its collectives give it
  /// (tp_size; 0, any size, for a group that only reduces amaxes). The
  /// manifest's "groups"; the caller passes one NCCL
  /// communicator per group.
  struct Group {
    BlockArgument arg;
    int64_t size = 0;
  };
  llvm::SmallVector<Group> groups;
};

/// The bias-gradient kernel's problem for `op`: what the plan sizes its
/// scratch by and what the kernel is emitted for.
kernels::BiasGradSpec biasGradSpec(BiasGradOp op);

/// The rows of f32 partial sums `op`'s final pass adds: the bias-gradient
/// kernel's chunks, or the 64-row tiles of the cast that sums them.
int64_t biasGradPartialChunks(BiasGradOp op);

/// The norm kernels' problem for `op` (teq.layer_norm, teq.rms_norm or a
/// backward): what the plan sizes a backward's scratch by and what the
/// kernels are emitted for.
kernels::NormSpec normSpec(Operation *op);

/// Plans `func`'s buffers on `target`, or emits the error that stops it (a
/// GEMM cuBLASLt cannot run). `func` has passed checkEntryLowerable
/// (OpLowering.h).
FailureOr<EntryPlan> planEntry(func::FuncOp func, TargetAttr target);

/// Orders each Linear backward's dgrad and wgrad GEMMs (independent ops) so
/// that the entry's workspace is smallest: a GEMM that runs later leaves
/// its result's bytes free for longer, for the temporaries of the GEMM that
/// runs first. Moves an op only where every operand is defined before its
/// new place, and only where that saves bytes. Plans `func` (errors as
/// planEntry).
LogicalResult orderBackwardGemms(func::FuncOp func, TargetAttr target);

} // namespace mlir::teq::lowering

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_ENTRYBUFFERS_H

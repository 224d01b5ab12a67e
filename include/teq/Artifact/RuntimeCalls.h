//===- RuntimeCalls.h - The runtime functions compiled code calls -*- C++ -*-===//
//
// An artifact's host code calls these runtime functions (docs/Artifact.md,
// "GEMMs" and "Collectives"); convert-teq-to-gpu emits the calls and
// teq/Runtime defines them. Their names, argument counts and the codes of
// their `type` and `op` arguments live here once, for both sides.
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_ARTIFACT_RUNTIMECALLS_H
#define TEQ_ARTIFACT_RUNTIMECALLS_H

#include <cstdint>

namespace mlir::teq::artifact {

/// void teqGemm(i64 id, a, a_scale, b, b_scale, c, d, bias, alpha): one
/// GEMM of the manifest (pointers as u64, 0 for none).
inline constexpr const char *kGemmFunction = "teqGemm";
inline constexpr unsigned kGemmFunctionArgs = 9;

/// teqAllGather(i64 group, u64 send, u64 recv, i64 sendCount, i32 type),
/// teqReduceScatter / teqAllReduce(i64 group, u64 send, u64 recv,
/// i64 count, i32 type, i32 op): NCCL on the entry's stream over the
/// communicator of the entry's group `group`.
inline constexpr const char *kAllGatherFunction = "teqAllGather";
inline constexpr const char *kReduceScatterFunction = "teqReduceScatter";
inline constexpr const char *kAllReduceFunction = "teqAllReduce";

/// Element types of the collectives (the `type` argument).
enum class CollectiveType : int32_t {
  Bytes = 0, ///< Opaque bytes (all-gather of quantized data and scales).
  F32 = 1,
  BF16 = 2,
  F16 = 3,
};

/// Reductions of the collectives (the `op` argument).
enum class ReduceOp : int32_t {
  Sum = 0,
  Max = 1, ///< Amax reduction.
};

} // namespace mlir::teq::artifact

#endif // TEQ_ARTIFACT_RUNTIMECALLS_H

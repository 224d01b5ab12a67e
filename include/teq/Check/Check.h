//===- Check.h - Recompute an entry's outputs on the CPU and compare -*- C++ -*-===//
//
// TEQCheck: what `te-run --check` does, as a library. It recomputes each
// output the manifest describes with "computed_by" on the CPU
// (lib/Reference), following the entry's program (results and
// "temporaries") from the very inputs the GPU got and the outputs it wrote
// for earlier steps, and compares:
//   quantize                 bit for bit (data, scales, amaxes, padding)
//   record_amax, delayed_scaling_update, tensor.extract/insert_slice
//                            bit for bit
//   gemm (output d or dbias) relative Frobenius error against the float64
//                            product of the dequantized operands
//   bias_grad, elementwise arith/math, copy
//                            relative error / bit for bit for quantized copies
// Values recomputed from a CPU GEMM or elementwise result are not
// bit-identical to the GPU's; checks downstream of them compare by relative
// error (2e-2) and say so.
//
// The manifest is one parseManifest() returned (teq/Artifact/Manifest.h):
// the checker relies on its validation (every computed_by names values that
// exist, with the types and shapes its op needs; proto buffers are their
// layout's) and does not check those again. Quantizer kinds the reference
// recomputes:
//   float8_current_scaling  per-tensor FP8, current scaling
//   float8_delayed          per-tensor FP8 with the stored scale computed_by
//                           names under "scale"
//   float8_block            FP8 block scaling, 1x128 / 128x128
//   mxfp8                   MXFP8, 1D / 2D
//   nvfp4                   NVFP4 1D / 2D; with RHT only if the quantizer
//                           says with_post_rht_amax and with_random_sign_mask
//                           (the reference's definition); stochastic
//                           rounding with the seed and offset of the i64[2]
//                           input computed_by names "rng_state"; not
//                           row-scaled or 4over6
// Anything else is reported as "check not available for ..." and fails the
// check.
//
// Plain C++17 on TEQArtifact and TEQReference: no MLIR, no GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_CHECK_CHECK_H
#define TEQ_CHECK_CHECK_H

#include "teq/Artifact/Manifest.h"
#include "teq/Artifact/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::teq::check {

using artifact::ArgSpec;
using artifact::EntrySpec;
using artifact::Manifest;
using artifact::Status;
using artifact::StatusOr;

/// Host bytes of every buffer of one entry, indexed by flat buffer index
/// (EntrySpec::flatBuffers order).
using HostBuffers = std::vector<std::vector<uint8_t>>;

/// The flat index of buffer `buffer` of argument `arg`.
size_t flatIndex(const EntrySpec &entry, size_t arg, size_t buffer);

/// The comparison of one output buffer.
struct BufferCheck {
  std::string arg;
  std::string buffer;
  bool ok = true;
  int64_t elements = 0;          ///< Compared elements (4 bytes for f32).
  int64_t mismatches = 0;        ///< Differing elements...
  int64_t paddingMismatches = 0; ///< ...of which outside the valid region.
  std::string message; ///< "OK" or where the first difference is.
};

struct CheckReport {
  bool passed = true;
  std::vector<BufferCheck> buffers;
  /// Outputs that could not be checked, and why ("check not available for
  /// ..."); each one fails the check.
  std::vector<std::string> errors;
  /// Outputs there is nothing to compare for: an alias output is its
  /// argument, which the entry does not write ("output 'saved_x' is
  /// argument 'x' itself (alias_of): not written").
  std::vector<std::string> notes;
};

/// One rank's buffers of an entry's run (te-run --nranks).
struct RankBuffers {
  const HostBuffers *before = nullptr;
  const HostBuffers *after = nullptr;
};

/// Compares every output and inout argument of `entry` (an entry of
/// `manifest`) after a run (`after`) with the reference computed from the
/// inputs of that run (`before`, which holds the bytes uploaded for every
/// read argument). Both hold every buffer of the entry at its size; a
/// buffer of another size is reported and fails the check.
///
/// For rank `rank` of a multi-rank run, `ranks` holds every rank's buffers
/// of the same entry (ranks[rank] is `before`/`after`; every group spans
/// these ranks): values computed by collectives are recomputed from every
/// rank's values (all_gather: concatenated along dim 0 in rank order;
/// reduce_scatter / all_reduce: summed), and a quantize with an
/// "amax_group" uses the max of every rank's amax, as the amax all-reduce
/// does. Without `ranks` those values are reported as not checkable.
///
/// Sums over ranks are not bit-exact: NCCL promises neither the order of
/// the additions (ring or tree, chunked) nor their precision (a bf16 add or
/// one in f32), so the reference sums in float64, rounds once, and the
/// output compares within one bf16 ulp (relative Frobenius error 2^-8; a
/// sum of n exact operands differs from the correctly rounded one by at
/// most n - 1 roundings). Everything quantized, gathered or max-reduced is
/// compared bit for bit.
CheckReport checkOutputs(const Manifest &manifest, const EntrySpec &entry,
                         const HostBuffers &before, const HostBuffers &after,
                         const std::vector<RankBuffers> &ranks = {},
                         int rank = 0);

} // namespace mlir::teq::check

#endif // TEQ_CHECK_CHECK_H

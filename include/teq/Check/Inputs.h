//===- Inputs.h - Inputs for a run of an entry, and valid quantized ones -*- C++ -*-===//
//
// The inputs `te-run` gives an entry when none are read from files:
// deterministic for a given seed (a portable splitmix64 stream per argument,
// so every standard library makes the same bytes):
//   input tensors (f32/bf16/f16)  N(0, 1), rounded to the dtype (or the
//                                 --fill kind's edge cases)
//   delayed-scaling state         |N(0, 1)| * 4 + 0.25 (positive scales and
//   (inout tensors, and what a    amaxes; with Fill::Zeros an all-zero
//   computed_by names "scale" or  history, with Fill::Special one holding
//   "amax_history")               inf and NaN)
//   i64[2] rng_state (seed,       two 64-bit words from the stream (all 64
//   offset of stochastic rounding) bits vary; the fill is ignored)
//   proto inputs                  the values quantized by the CPU reference
//                                 (random valid codes if it cannot)
//   outputs                       kUnwrittenByte, so the checker sees bytes
//                                 the entry failed to write
//
// Plain C++17 on TEQArtifact and TEQReference: no MLIR, no GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_CHECK_INPUTS_H
#define TEQ_CHECK_INPUTS_H

#include "teq/Check/Check.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace mlir::teq::check {

/// The values of generated inputs (te-run --fill): N(0, 1), or the edge
/// cases of te-semantics.md §5 and §11.
enum class Fill {
  Random,   ///< N(0, 1).
  Zeros,    ///< All zero.
  Huge,     ///< One bf16-max value among N(0, 1).
  Denormal, ///< Only subnormal values.
  Ties,     ///< Exact FP8 rounding ties, with amax 448.
  Special,  ///< Zeros, -0, subnormals, +-max, one inf, one NaN, ties.
};

/// The fill named `name` ("random", "zeros", "huge", "denormal", "ties",
/// "special"), or none.
std::optional<Fill> parseFill(std::string_view name);

struct InputOptions {
  uint64_t seed = 0;
  Fill fill = Fill::Random;
};

/// What every buffer of an output argument holds before the run.
constexpr uint8_t kUnwrittenByte = 0xA5;

/// Host bytes for every buffer of `entry`: the read arguments' generated
/// inputs and the outputs' kUnwrittenByte fill.
HostBuffers makeInputs(const Manifest &manifest, const EntrySpec &entry,
                       const InputOptions &options);

/// The buffers of proto argument `arg` holding `values` (logical shape and
/// dtype of arg.proto, row-major, already rounded to that dtype) quantized by
/// the reference: how valid quantized inputs are made. Fails with "check
/// not available ..." for quantizers the reference cannot do.
StatusOr<std::vector<std::vector<uint8_t>>>
quantizeWithReference(const Manifest &manifest, const ArgSpec &arg,
                      const std::vector<float> &values);

} // namespace mlir::teq::check

#endif // TEQ_CHECK_INPUTS_H

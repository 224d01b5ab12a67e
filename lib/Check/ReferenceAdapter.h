//===- ReferenceAdapter.h - The manifest's values in lib/Reference's terms -*- C++ -*-===//
//
// Internal to TEQCheck: a manifest's quantizer as the reference's
// descriptor and options, tensor bytes as the reference's inputs or as
// float64 values and back, and the reference quantizer run for one
// argument. Shared by the evaluators and input generation.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CHECK_REFERENCEADAPTER_H
#define TEQ_LIB_CHECK_REFERENCEADAPTER_H

#include "teq/Check/Check.h"
#include "teq/Layout/BufferLayout.h"
#include "teq/Reference/Quantize.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::teq::check {

namespace layout = mlir::teq::layout;
namespace reference = mlir::teq::reference;

/// "check not available for <what>": what the checker cannot recompute.
Status notAvailable(const std::string &what);

/// The reference's description of a quantizer.
struct QuantizerSetup {
  layout::TensorDesc desc;
  reference::QuantizeOptions options;
};

/// The reference's description of the quantizer of proto `proto` as the
/// manifest gives it (parseManifest checked its fields; absent ones are the
/// contract's defaults); not available for what the reference cannot do.
StatusOr<QuantizerSetup> quantizerSetup(const artifact::ProtoSpec &proto);

/// The reference's dtype of a high-precision dtype ("f32", "bf16", "f16":
/// parseManifest allows no other for a proto's or a quantized input's).
reference::DType referenceDType(const std::string &dtype);

/// The reference input of tensor bytes `bytes` of `dtype` (f32, bf16, f16).
reference::Input referenceInput(const std::string &dtype,
                                const std::vector<int64_t> &shape,
                                const std::vector<uint8_t> &bytes);

/// The (seed, offset) of stochastic rounding.
struct RngState {
  uint64_t seed = 0, offset = 0;
};

/// Runs the reference quantizer for proto argument `arg`. A float8_delayed
/// quantizer needs `storedScale`, stochastic NVFP4 `rng` (parseManifest
/// guarantees their computed_by names them); `reducedAmax` replaces the
/// amax (current scaling with an amax group).
StatusOr<reference::QuantizedTensor>
quantizeArg(const Manifest &manifest, const ArgSpec &arg,
            const reference::Input &input,
            std::optional<float> storedScale = std::nullopt,
            std::optional<RngState> rng = std::nullopt,
            std::optional<float> reducedAmax = std::nullopt);

/// Tensor bytes of `dtype` (f32, bf16, f16) as float64 values.
std::vector<double> decodeTensor(const std::string &dtype,
                                 const std::vector<uint8_t> &bytes);

/// `values` as tensor bytes of `dtype` (f32, bf16, f16; rounded to nearest
/// even).
std::vector<uint8_t> encodeTensor(const std::string &dtype,
                                  const std::vector<float> &values);

/// `value` rounded to `dtype` as the GPU stores it (RNE).
double roundTo(const std::string &dtype, double value);

/// [rows, cols] of a shape flattened as TE does.
std::pair<int64_t, int64_t> flat2D(const std::vector<int64_t> &shape);

/// Every row index of a tensor of `shape` flattened to 2D.
std::vector<int64_t> allRows(const std::vector<int64_t> &shape);

} // namespace mlir::teq::check

#endif // TEQ_LIB_CHECK_REFERENCEADAPTER_H

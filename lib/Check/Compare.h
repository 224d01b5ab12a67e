//===- Compare.h - Comparing the GPU's bytes with the reference's -*- C++ -*-===//
//
// Internal to TEQCheck: the comparisons an output check reports, bit for bit
// (with the first difference described) or by relative Frobenius error.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CHECK_COMPARE_H
#define TEQ_LIB_CHECK_COMPARE_H

#include "ReferenceAdapter.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::teq::check {

/// Buffer `spec` of argument `argName`, bit for bit: elements of the
/// buffer's encoding, counting those in its padding.
BufferCheck compareBuffer(const std::string &argName,
                          const artifact::BufferSpec &spec,
                          const std::vector<uint8_t> &expected,
                          const std::vector<uint8_t> &actual);

/// Tensor output `arg` (rows `rows` of it, flattened to 2D; `gpuBytes` all
/// of it) against `expected` by relative Frobenius error after rounding to
/// the output's dtype, within `limit`; `against` says what `expected` is.
BufferCheck compareWithReference(const ArgSpec &arg,
                                 const std::vector<uint8_t> &gpuBytes,
                                 const std::vector<int64_t> &rows,
                                 const std::vector<double> &expected,
                                 double limit, const std::string &against);

/// Quantized output `arg` (`gpu`, from its bytes) against `expected`
/// recomputed from inexact values: what each usage's copy represents
/// (dequantized), within `limit`. Adds one check per usage to `report`, or
/// an error where either cannot be dequantized.
void compareDequantized(const ArgSpec &arg,
                        const reference::QuantizedTensor &gpu,
                        const reference::QuantizedTensor &expected,
                        double limit, CheckReport &report);

} // namespace mlir::teq::check

#endif // TEQ_LIB_CHECK_COMPARE_H

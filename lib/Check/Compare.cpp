//===- Compare.cpp - Comparing the GPU's bytes with the reference's -------===//
//
// Bit-for-bit buffer comparison with the first difference described in the
// buffer's encoding, and relative Frobenius errors (Compare.h).
//
//===----------------------------------------------------------------------===//

#include "Compare.h"

#include "teq/Reference/Numerics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace mlir::teq::check {

using artifact::BufferSpec;

namespace {

std::string formatIndex(const std::vector<int64_t> &shape, int64_t linear) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    int64_t dim = shape[d] > 0 ? shape[d] : 1;
    index[d] = linear % dim;
    linear /= dim;
  }
  std::string text = "[";
  for (size_t d = 0; d < index.size(); ++d)
    text += (d ? ", " : "") + std::to_string(index[d]);
  return text + "]";
}

bool inValidRegion(const BufferSpec &spec, int64_t linear) {
  for (size_t d = spec.shape.size(); d-- > 0;) {
    int64_t dim = spec.shape[d] > 0 ? spec.shape[d] : 1;
    if (linear % dim >= spec.validShape[d])
      return false;
    linear /= dim;
  }
  return true;
}

std::string describeElement(const std::string &encoding,
                            const uint8_t *bytes) {
  char text[96];
  if (encoding == "f32" || encoding == "bf16" || encoding == "f16") {
    float value = 0.0f;
    uint32_t bits = 0;
    if (encoding == "f32") {
      std::memcpy(&bits, bytes, 4);
      value = reference::floatFromBits(bits);
      std::snprintf(text, sizeof(text), "%.9g (0x%08x)", value, bits);
    } else {
      uint16_t half = 0;
      std::memcpy(&half, bytes, 2);
      value = encoding == "bf16" ? reference::bf16ToFloat(half)
                                 : reference::f16ToFloat(half);
      std::snprintf(text, sizeof(text), "%.6g (0x%04x)", value, half);
    }
    return text;
  }
  uint8_t code = bytes[0];
  if (encoding == "e4m3")
    std::snprintf(text, sizeof(text), "%g (0x%02x)",
                  reference::e4m3ToFloat(code), code);
  else if (encoding == "e5m2")
    std::snprintf(text, sizeof(text), "%g (0x%02x)",
                  reference::e5m2ToFloat(code), code);
  else if (encoding == "e8m0")
    std::snprintf(text, sizeof(text), "2^%d (0x%02x)", int(code) - 127, code);
  else if (encoding == "e2m1x2")
    std::snprintf(text, sizeof(text), "{%g, %g} (0x%02x)",
                  reference::e2m1ToFloat(code & 0xF),
                  reference::e2m1ToFloat(code >> 4), code);
  else
    std::snprintf(text, sizeof(text), "0x%02x", code);
  return text;
}

} // namespace

BufferCheck compareBuffer(const std::string &argName, const BufferSpec &spec,
                          const std::vector<uint8_t> &expected,
                          const std::vector<uint8_t> &actual) {
  BufferCheck check;
  check.arg = argName;
  check.buffer = spec.name;
  if (expected.size() != actual.size()) {
    check.ok = false;
    check.message = "size differs: expected " +
                    std::to_string(expected.size()) + " bytes, got " +
                    std::to_string(actual.size());
    return check;
  }
  int64_t elementBytes = artifact::tensorDTypeBytes(spec.encoding);
  if (elementBytes == 0)
    elementBytes = spec.encoding == "f32" ? 4 : 1;
  check.elements = static_cast<int64_t>(expected.size()) / elementBytes;
  int64_t first = -1;
  for (int64_t i = 0; i < check.elements; ++i) {
    if (std::memcmp(expected.data() + i * elementBytes,
                    actual.data() + i * elementBytes, elementBytes) == 0)
      continue;
    ++check.mismatches;
    if (!inValidRegion(spec, i))
      ++check.paddingMismatches;
    if (first < 0)
      first = i;
  }
  if (check.mismatches == 0) {
    check.message = "OK (" + std::to_string(expected.size()) + " bytes)";
    return check;
  }
  check.ok = false;
  check.message =
      std::to_string(check.mismatches) + " of " +
      std::to_string(check.elements) + " elements differ" +
      (check.paddingMismatches
           ? " (" + std::to_string(check.paddingMismatches) + " in padding)"
           : std::string()) +
      "; first at " + formatIndex(spec.shape, first) +
      (inValidRegion(spec, first) ? "" : " (padding)") + ": expected " +
      describeElement(spec.encoding, expected.data() + first * elementBytes) +
      ", got " +
      describeElement(spec.encoding, actual.data() + first * elementBytes);
  return check;
}

BufferCheck compareWithReference(const ArgSpec &arg,
                                 const std::vector<uint8_t> &gpuBytes,
                                 const std::vector<int64_t> &rows,
                                 const std::vector<double> &expected,
                                 double limit, const std::string &against) {
  auto [rowsD, m] = flat2D(arg.tensor.shape);
  if (arg.tensor.shape.size() == 1) {
    rowsD = 1;
    m = arg.tensor.shape[0];
  }
  std::vector<double> gpu = decodeTensor(arg.tensor.dtype, gpuBytes);
  double refNorm = 0, errExact = 0, errRounded = 0;
  int64_t nonFinite = 0;
  for (size_t r = 0; r < rows.size(); ++r)
    for (int64_t j = 0; j < m; ++j) {
      double ref = expected[r * m + j];
      double got = gpu[rows[r] * m + j];
      if (!std::isfinite(got))
        ++nonFinite;
      refNorm += ref * ref;
      errExact += (got - ref) * (got - ref);
      double rounded = roundTo(arg.tensor.dtype, ref);
      errRounded += (got - rounded) * (got - rounded);
    }
  double relExact = std::sqrt(errExact / std::max(refNorm, 1e-300));
  double relRounded = std::sqrt(errRounded / std::max(refNorm, 1e-300));
  BufferCheck check;
  check.arg = arg.name;
  check.buffer = "tensor";
  check.elements = static_cast<int64_t>(rows.size()) * m;
  check.ok = nonFinite == 0 && relRounded <= limit;
  char text[320];
  std::snprintf(text, sizeof(text),
                "%s: rel. Frobenius error %.3g vs %s, rounded to %s (%.3g "
                "unrounded; limit %.0e; %zu of %lld rows)%s",
                check.ok ? "OK" : "FAILED", relRounded, against.c_str(),
                arg.tensor.dtype.c_str(), relExact, limit, rows.size(),
                static_cast<long long>(rowsD),
                nonFinite ? "; non-finite outputs" : "");
  check.message = text;
  return check;
}

void compareDequantized(const ArgSpec &arg,
                        const reference::QuantizedTensor &gpu,
                        const reference::QuantizedTensor &expected,
                        double limit, CheckReport &report) {
  for (layout::Usage usage : {layout::UsageRowwise, layout::UsageColumnwise}) {
    if (!(gpu.desc.usage & usage))
      continue;
    auto got = reference::dequantize(gpu, usage);
    auto want = reference::dequantize(expected, usage);
    if (!got.ok() || !want.ok()) {
      report.passed = false;
      report.errors.push_back("argument '" + arg.name +
                              "': cannot dequantize for the check");
      return;
    }
    double num = 0, den = 0;
    for (size_t i = 0; i < got->size(); ++i) {
      double d = double((*got)[i]) - double((*want)[i]);
      num += d * d;
      den += double((*want)[i]) * (*want)[i];
    }
    double rel = std::sqrt(num / std::max(den, 1e-300));
    BufferCheck check;
    check.arg = arg.name;
    check.buffer = usage == layout::UsageRowwise ? "rowwise (dequantized)"
                                                 : "columnwise (dequantized)";
    check.elements = static_cast<int64_t>(got->size());
    check.ok = rel <= limit;
    char text[256];
    std::snprintf(text, sizeof(text),
                  "%s: rel. Frobenius error %.3g of the dequantized "
                  "values (limit %.0e; recomputed on the CPU from a GEMM "
                  "or elementwise result, not bit-identical)",
                  check.ok ? "OK" : "FAILED", rel, limit);
    check.message = text;
    if (!check.ok)
      report.passed = false;
    report.buffers.push_back(std::move(check));
  }
}

} // namespace mlir::teq::check

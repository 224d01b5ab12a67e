//===- Dequantize.cpp - fp32 values of every quantized format -------------===//
//
// The inverse mappings of Quantize.cpp (te-semantics.md §4-§5): data codes
// times the per-tensor / per-block decode multiplier, in fp32, back in the
// logical M x K orientation.
//
//===----------------------------------------------------------------------===//

#include "teq/Reference/Quantize.h"

namespace mlir::teq::reference {

using layout::Encoding;
using layout::Format;

namespace {

Result<std::vector<float>> failure(std::string message) {
  return Result<std::vector<float>>::failure(std::move(message));
}

FP8Type fp8TypeOf(Encoding encoding) {
  return encoding == Encoding::E5M2 ? FP8Type::E5M2 : FP8Type::E4M3;
}

} // namespace

Result<std::vector<float>> dequantize(const QuantizedTensor &tensor,
                                      layout::Usage usage) {
  if (usage != layout::UsageRowwise && usage != layout::UsageColumnwise)
    return failure("dequantize needs exactly one usage (rowwise or "
                   "columnwise)");
  if (!(tensor.desc.usage & usage))
    return failure(std::string("the tensor has no ") +
                   (usage == layout::UsageRowwise ? "rowwise" : "columnwise") +
                   " usage");
  const bool rowwise = usage == layout::UsageRowwise;
  const layout::Flat2D flat = layout::flatten2D(tensor.desc.shape);
  const int64_t m = flat.m, k = flat.k;
  std::vector<float> out(static_cast<size_t>(m * k));
  const Format format = tensor.desc.format;

  auto missing = [](const char *name) {
    return failure(std::string("the tensor has no ") + name + " buffer");
  };

  switch (format) {
  case Format::PerTensorFP8: {
    const FP8Type type = fp8TypeOf(tensor.desc.dataEncoding);
    const Buffer *scaleInv = tensor.find("scale_inv");
    if (!scaleInv)
      return missing("scale_inv");
    const float multiplier = scaleInv->f32(0);
    // Columnwise reads the transposed copy where one exists (TN-only
    // targets), else the same bytes as rowwise.
    const Buffer *transpose = rowwise ? nullptr : tensor.find("transpose");
    const Buffer *data = tensor.find("data");
    if (transpose) {
      for (int64_t r = 0; r < m; ++r)
        for (int64_t c = 0; c < k; ++c)
          out[r * k + c] =
              fp8ToFloat(type, transpose->bytes[c * m + r]) * multiplier;
    } else {
      if (!data)
        return missing("data");
      for (int64_t i = 0; i < m * k; ++i)
        out[i] = fp8ToFloat(type, data->bytes[i]) * multiplier;
    }
    return out;
  }

  case Format::BlockFP8_1D:
  case Format::BlockFP8_2D: {
    constexpr int64_t kBlock = 128;
    const FP8Type type = fp8TypeOf(tensor.desc.dataEncoding);
    const bool twoD = format == Format::BlockFP8_2D;
    const char *dataName = rowwise ? "rowwise_data" : "columnwise_data";
    const char *scaleName =
        rowwise ? "rowwise_scale_inv" : "columnwise_scale_inv";
    const Buffer *data = tensor.find(dataName);
    const Buffer *scales = tensor.find(scaleName);
    if (!data)
      return missing(dataName);
    if (!scales)
      return missing(scaleName);
    const int64_t ld = scales->desc.shape[1];
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t c = 0; c < k; ++c) {
        int64_t scaleIndex;
        if (rowwise)
          scaleIndex = twoD ? (r / kBlock) * ld + c / kBlock
                            : (c / kBlock) * ld + r;
        else
          scaleIndex = twoD ? (c / kBlock) * ld + r / kBlock
                            : (r / kBlock) * ld + c;
        const uint8_t q = rowwise ? data->bytes[r * k + c]
                                  : data->bytes[c * m + r];
        out[r * k + c] = fp8ToFloat(type, q) * scales->f32(scaleIndex);
      }
    }
    return out;
  }

  case Format::MXFP8: {
    constexpr int64_t kBlock = 32;
    const FP8Type type = fp8TypeOf(tensor.desc.dataEncoding);
    const char *dataName = rowwise ? "rowwise_data" : "columnwise_data";
    const char *scaleName =
        rowwise ? "rowwise_scale_inv" : "columnwise_scale_inv";
    const Buffer *data = tensor.find(dataName);
    const Buffer *scales = tensor.find(scaleName);
    if (!data)
      return missing(dataName);
    if (!scales)
      return missing(scaleName);
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t c = 0; c < k; ++c) {
        const int64_t offset =
            rowwise ? scaleByteOffset(scales->desc, format, r, c / kBlock)
                    : scaleByteOffset(scales->desc, format, r / kBlock, c);
        out[r * k + c] = fp8ToFloat(type, data->bytes[r * k + c]) *
                         e8m0ToFloat(scales->bytes[offset]);
      }
    }
    return out;
  }

  case Format::NVFP4: {
    constexpr int64_t kBlock = 16;
    const char *dataName = rowwise ? "rowwise_data" : "columnwise_data";
    const char *scaleName =
        rowwise ? "rowwise_scale_inv" : "columnwise_scale_inv";
    const char *amaxName = rowwise ? "amax_rowwise" : "amax_columnwise";
    const Buffer *data = tensor.find(dataName);
    const Buffer *scales = tensor.find(scaleName);
    const Buffer *amax = tensor.find(amaxName);
    if (!data)
      return missing(dataName);
    if (!scales)
      return missing(scaleName);
    if (!amax)
      return missing(amaxName);
    if (tensor.desc.rowScaledNVFP4)
      return failure("row-scaled NVFP4 is not supported by the reference");
    const float globalAmax = amax->f32(0);
    // The stored copy is [rows][cols]: x for rowwise, x^T for columnwise.
    const int64_t rows = rowwise ? m : k;
    const int64_t cols = rowwise ? k : m;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        const uint8_t code =
            scales->bytes[scaleByteOffset(scales->desc, format, r, c / kBlock)];
        const float value = e2m1ToFloat(data->nibble(r * cols + c)) *
                            nvfp4DecodeMultiplier(code, globalAmax);
        if (rowwise)
          out[r * k + c] = value;
        else
          out[c * k + r] = value;
      }
    }
    return out;
  }
  }
  return failure("unknown quantization format");
}

} // namespace mlir::teq::reference

//===- Quantize.cpp - CPU reference of TE's quantization formats ----------===//
//
// Implements te-semantics.md §5.1-§5.5 (with §11's kernel edge cases) over
// the buffer layouts of §4 as described by teq/Layout/BufferLayout.h.
//
//===----------------------------------------------------------------------===//

#include "teq/Reference/Quantize.h"

#include "teq/Reference/Hadamard.h"
#include "teq/Reference/Random.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

namespace mlir::teq::reference {

using layout::BufferDesc;
using layout::Encoding;
using layout::Format;
using layout::ScaleLayout;
using layout::TargetCaps;
using layout::TensorDesc;

//===----------------------------------------------------------------------===//
// Input, Buffer, QuantizedTensor
//===----------------------------------------------------------------------===//

Input Input::fromF32(std::vector<int64_t> shape, std::vector<float> values) {
  return Input{std::move(shape), DType::F32, std::move(values)};
}

Input Input::fromBF16Bits(std::vector<int64_t> shape,
                          const std::vector<uint16_t> &bits) {
  std::vector<float> values(bits.size());
  for (size_t i = 0; i < bits.size(); ++i)
    values[i] = bf16ToFloat(bits[i]);
  return Input{std::move(shape), DType::BF16, std::move(values)};
}

Input Input::fromF16Bits(std::vector<int64_t> shape,
                         const std::vector<uint16_t> &bits) {
  std::vector<float> values(bits.size());
  for (size_t i = 0; i < bits.size(); ++i)
    values[i] = f16ToFloat(bits[i]);
  return Input{std::move(shape), DType::F16, std::move(values)};
}

Input Input::rounded(DType dtype, std::vector<int64_t> shape,
                     std::vector<float> values) {
  for (float &value : values)
    value = roundTo(dtype, value);
  return Input{std::move(shape), dtype, std::move(values)};
}

float Buffer::f32(int64_t index) const {
  float value;
  std::memcpy(&value, bytes.data() + index * 4, 4);
  return value;
}

void Buffer::setF32(int64_t index, float value) {
  std::memcpy(bytes.data() + index * 4, &value, 4);
}

uint8_t Buffer::nibble(int64_t index) const {
  uint8_t byte = bytes[static_cast<size_t>(index / 2)];
  return (index % 2) ? static_cast<uint8_t>(byte >> 4)
                     : static_cast<uint8_t>(byte & 0xFu);
}

const Buffer *QuantizedTensor::find(std::string_view name) const {
  for (const Buffer &buffer : buffers)
    if (buffer.desc.name == name)
      return &buffer;
  return nullptr;
}

Buffer *QuantizedTensor::find(std::string_view name) {
  for (Buffer &buffer : buffers)
    if (buffer.desc.name == name)
      return &buffer;
  return nullptr;
}

int64_t scaleByteOffset(const BufferDesc &buffer, Format format, int64_t row,
                        int64_t col) {
  const int64_t rows = buffer.shape[0];
  const int64_t cols = buffer.shape[1];
  if (buffer.scaleLayout.value_or(ScaleLayout::Compact) == ScaleLayout::Compact)
    return row * cols + col;
  if (format == Format::MXFP8 && (buffer.usage & layout::UsageColumnwise))
    return layout::gemmSwizzledScaleIndex(col, row, rows / 4);
  return layout::gemmSwizzledScaleIndex(row, col, cols / 4);
}

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

template <typename T>
Result<T> fail(std::string message) {
  return Result<T>::failure(std::move(message));
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

/// Common checks; on success `tensor` holds zero-filled buffers.
std::optional<std::string> prepare(const Input &input, const TensorDesc &desc,
                                   const TargetCaps &target, Format expected,
                                   QuantizedTensor &tensor) {
  if (desc.format != expected)
    return std::string("expected a ") + layout::stringifyFormat(expected) +
           " tensor descriptor, got " + layout::stringifyFormat(desc.format);
  if (auto error = layout::checkLayoutable(desc))
    return error;
  if (input.shape != desc.shape)
    return "input shape " + shapeString(input.shape) +
           " does not match the tensor shape " + shapeString(desc.shape);
  int64_t elements = 1;
  for (int64_t dim : input.shape)
    elements *= dim;
  if (static_cast<int64_t>(input.values.size()) != elements)
    return "input holds " + std::to_string(input.values.size()) +
           " values but its shape " + shapeString(input.shape) + " has " +
           std::to_string(elements);

  tensor.desc = desc;
  tensor.target = target;
  tensor.buffers.clear();
  for (BufferDesc &buffer : layout::describeBuffers(desc, target)) {
    Buffer out;
    out.bytes.assign(static_cast<size_t>(buffer.sizeInBytes()), 0);
    out.desc = std::move(buffer);
    tensor.buffers.push_back(std::move(out));
  }
  return std::nullopt;
}

FP8Type fp8TypeOf(Encoding encoding) {
  return encoding == Encoding::E5M2 ? FP8Type::E5M2 : FP8Type::E4M3;
}

float amaxOf(const std::vector<float> &values) {
  float amax = 0.0f;
  for (float value : values)
    amax = amaxAccumulate(amax, value);
  return amax;
}

/// Amax of src[r][c] over rows [r0, r1) and columns [c0, c1) of a row-major
/// matrix with `cols` columns.
float amaxOfRegion(const float *src, int64_t cols, int64_t r0, int64_t r1,
                   int64_t c0, int64_t c1) {
  float amax = 0.0f;
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t c = c0; c < c1; ++c)
      amax = amaxAccumulate(amax, src[r * cols + c]);
  return amax;
}

Buffer &requireBuffer(QuantizedTensor &tensor, std::string_view name) {
  Buffer *buffer = tensor.find(name);
  // describeBuffers always creates the buffers its usage implies.
  return *buffer;
}

//===----------------------------------------------------------------------===//
// NVFP4 core: one copy (rows x cols source, blocks along its rows)
//===----------------------------------------------------------------------===//

void quantizeNVFP4Copy(const float *src, int64_t rows, int64_t cols,
                       float globalAmax, const NVFP4Options &options,
                       uint64_t rngOffset, Buffer &data, Buffer &scales) {
  constexpr int64_t kBlock = 16;
  const float sEnc = nvfp4GlobalEncodeScale(globalAmax);
  const int64_t blocksPerRow = layout::ceilDiv(cols, kBlock);

  std::vector<float> tileAmax;
  if (options.twoD) {
    const int64_t tileRows = layout::ceilDiv(rows, kBlock);
    tileAmax.resize(static_cast<size_t>(tileRows * blocksPerRow));
    for (int64_t tr = 0; tr < tileRows; ++tr)
      for (int64_t b = 0; b < blocksPerRow; ++b)
        tileAmax[tr * blocksPerRow + b] = amaxOfRegion(
            src, cols, tr * kBlock, std::min(rows, (tr + 1) * kBlock),
            b * kBlock, std::min(cols, (b + 1) * kBlock));
  }

  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t b = 0; b < blocksPerRow; ++b) {
      const int64_t c0 = b * kBlock;
      const int64_t c1 = std::min(cols, c0 + kBlock);
      const float blockAmax =
          options.twoD ? tileAmax[(r / kBlock) * blocksPerRow + b]
                       : amaxOfRegion(src, cols, r, r + 1, c0, c1);
      const uint8_t code = nvfp4BlockScale(blockAmax, sEnc);
      scales.bytes[scaleByteOffset(scales.desc, Format::NVFP4, r, b)] = code;
      const float encode = nvfp4BlockEncodeMultiplier(code, sEnc);
      for (int64_t c = c0; c < c1; ++c) {
        const int64_t index = r * cols + c;
        const float scaled = src[index] * encode;
        const uint8_t nibble =
            options.stochasticRounding
                ? floatToE2M1Stochastic(
                      scaled, philoxRandomWord(options.seed, rngOffset,
                                               static_cast<uint64_t>(index)))
                : floatToE2M1(scaled);
        uint8_t &byte = data.bytes[static_cast<size_t>(index / 2)];
        byte |= (index % 2) ? static_cast<uint8_t>(nibble << 4) : nibble;
      }
    }
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Per-tensor FP8 (§5.1, §5.2)
//===----------------------------------------------------------------------===//

Result<QuantizedTensor> quantizePerTensor(const Input &input,
                                          const TensorDesc &desc,
                                          const TargetCaps &target,
                                          const PerTensorOptions &options) {
  QuantizedTensor tensor;
  if (auto error = prepare(input, desc, target, Format::PerTensorFP8, tensor))
    return fail<QuantizedTensor>(*error);
  const FP8Type type = fp8TypeOf(desc.dataEncoding);
  const layout::Flat2D flat = layout::flatten2D(desc.shape);
  const int64_t m = flat.m, k = flat.k;

  const float inputAmax = amaxOf(input.values);
  if (options.scaling == PerTensorScaling::Current) {
    tensor.amax = options.amax.value_or(inputAmax);
    tensor.scale =
        computeScaleFromAmax(tensor.amax, fp8Max(type), options.forcePow2Scales,
                             options.amaxEpsilon, FLT_MAX);
  } else {
    tensor.amax = inputAmax;
    tensor.scale = options.scale;
  }
  const float scale = tensor.scale;

  for (Buffer &buffer : tensor.buffers) {
    if (buffer.desc.name == "data") {
      for (int64_t i = 0; i < m * k; ++i)
        buffer.bytes[i] = floatToFP8(type, input.values[i] * scale);
    } else if (buffer.desc.name == "transpose") {
      for (int64_t r = 0; r < m; ++r)
        for (int64_t c = 0; c < k; ++c)
          buffer.bytes[c * m + r] =
              floatToFP8(type, input.values[r * k + c] * scale);
    } else if (buffer.desc.name == "scale_inv") {
      buffer.setF32(0, reciprocal(scale));
    }
  }
  return tensor;
}

//===----------------------------------------------------------------------===//
// FP8 block scaling (§5.3)
//===----------------------------------------------------------------------===//

Result<QuantizedTensor> quantizeBlockFP8(const Input &input,
                                         const TensorDesc &desc,
                                         const TargetCaps &target,
                                         const BlockFP8Options &options) {
  QuantizedTensor tensor;
  const Format format = desc.format == Format::BlockFP8_2D
                            ? Format::BlockFP8_2D
                            : Format::BlockFP8_1D;
  if (auto error = prepare(input, desc, target, format, tensor))
    return fail<QuantizedTensor>(*error);
  const FP8Type type = fp8TypeOf(desc.dataEncoding);
  const layout::Flat2D flat = layout::flatten2D(desc.shape);
  const int64_t m = flat.m, k = flat.k;
  constexpr int64_t kBlock = 128;
  const float *x = input.values.data();
  const float valueForInf = maxFinite(input.dtype);
  auto blockScale = [&](float amax) {
    return computeScaleFromAmax(amax, fp8Max(type), options.forcePow2Scales,
                                options.amaxEpsilon, valueForInf);
  };
  const bool rowwise = desc.usage & layout::UsageRowwise;
  const bool columnwise = desc.usage & layout::UsageColumnwise;

  if (format == Format::BlockFP8_1D) {
    if (rowwise) {
      // 1x128 blocks along K; scale_inv[kb][m] (GEMM-ready, M-major).
      Buffer &data = requireBuffer(tensor, "rowwise_data");
      Buffer &scales = requireBuffer(tensor, "rowwise_scale_inv");
      const int64_t ld = scales.desc.shape[1];
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t kb = 0; kb * kBlock < k; ++kb) {
          const int64_t c1 = std::min(k, (kb + 1) * kBlock);
          const float scale =
              blockScale(amaxOfRegion(x, k, r, r + 1, kb * kBlock, c1));
          scales.setF32(kb * ld + r, reciprocal(scale));
          for (int64_t c = kb * kBlock; c < c1; ++c)
            data.bytes[r * k + c] = floatToFP8(type, x[r * k + c] * scale);
        }
      }
    }
    if (columnwise) {
      // x^T [K, M] with 1x128 blocks along M, quantized from x;
      // scale_inv[mb][k].
      Buffer &data = requireBuffer(tensor, "columnwise_data");
      Buffer &scales = requireBuffer(tensor, "columnwise_scale_inv");
      const int64_t ld = scales.desc.shape[1];
      for (int64_t c = 0; c < k; ++c) {
        for (int64_t mb = 0; mb * kBlock < m; ++mb) {
          const int64_t r1 = std::min(m, (mb + 1) * kBlock);
          const float scale =
              blockScale(amaxOfRegion(x, k, mb * kBlock, r1, c, c + 1));
          scales.setF32(mb * ld + c, reciprocal(scale));
          for (int64_t r = mb * kBlock; r < r1; ++r)
            data.bytes[c * m + r] = floatToFP8(type, x[r * k + c] * scale);
        }
      }
    }
    return tensor;
  }

  // 2D: 128x128 tiles; the columnwise copy is the exact transpose.
  Buffer *rowData = tensor.find("rowwise_data");
  Buffer *rowScales = tensor.find("rowwise_scale_inv");
  Buffer *colData = tensor.find("columnwise_data");
  Buffer *colScales = tensor.find("columnwise_scale_inv");
  for (int64_t mb = 0; mb * kBlock < m; ++mb) {
    for (int64_t kb = 0; kb * kBlock < k; ++kb) {
      const int64_t r0 = mb * kBlock, r1 = std::min(m, r0 + kBlock);
      const int64_t c0 = kb * kBlock, c1 = std::min(k, c0 + kBlock);
      const float scale = blockScale(amaxOfRegion(x, k, r0, r1, c0, c1));
      const float scaleInv = reciprocal(scale);
      if (rowScales)
        rowScales->setF32(mb * rowScales->desc.shape[1] + kb, scaleInv);
      if (colScales)
        colScales->setF32(kb * colScales->desc.shape[1] + mb, scaleInv);
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t c = c0; c < c1; ++c) {
          const uint8_t q = floatToFP8(type, x[r * k + c] * scale);
          if (rowData)
            rowData->bytes[r * k + c] = q;
          if (colData)
            colData->bytes[c * m + r] = q;
        }
      }
    }
  }
  return tensor;
}

//===----------------------------------------------------------------------===//
// MXFP8 (§5.4)
//===----------------------------------------------------------------------===//

Result<QuantizedTensor> quantizeMXFP8(const Input &input,
                                      const TensorDesc &desc,
                                      const TargetCaps &target,
                                      const MXFP8Options &options) {
  QuantizedTensor tensor;
  if (auto error = prepare(input, desc, target, Format::MXFP8, tensor))
    return fail<QuantizedTensor>(*error);
  const FP8Type type = fp8TypeOf(desc.dataEncoding);
  const layout::Flat2D flat = layout::flatten2D(desc.shape);
  const int64_t m = flat.m, k = flat.k;
  constexpr int64_t kBlock = 32;
  const float *x = input.values.data();
  const int64_t rowBlocks = layout::ceilDiv(m, kBlock);
  const int64_t colBlocks = layout::ceilDiv(k, kBlock);

  // 2D: one exponent per 32x32 tile, shared by both copies.
  std::vector<uint8_t> tileExponent;
  if (options.twoD) {
    tileExponent.resize(static_cast<size_t>(rowBlocks * colBlocks));
    for (int64_t mb = 0; mb < rowBlocks; ++mb)
      for (int64_t kb = 0; kb < colBlocks; ++kb)
        tileExponent[mb * colBlocks + kb] = mxfp8BlockExponent(
            amaxOfRegion(x, k, mb * kBlock, std::min(m, (mb + 1) * kBlock),
                         kb * kBlock, std::min(k, (kb + 1) * kBlock)),
            type);
  }

  if (Buffer *data = tensor.find("rowwise_data")) {
    Buffer &scales = requireBuffer(tensor, "rowwise_scale_inv");
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t kb = 0; kb < colBlocks; ++kb) {
        const int64_t c0 = kb * kBlock, c1 = std::min(k, c0 + kBlock);
        const uint8_t e =
            options.twoD
                ? tileExponent[(r / kBlock) * colBlocks + kb]
                : mxfp8BlockExponent(amaxOfRegion(x, k, r, r + 1, c0, c1),
                                     type);
        scales.bytes[scaleByteOffset(scales.desc, Format::MXFP8, r, kb)] = e;
        const float multiplier = e8m0ReciprocalScale(e);
        for (int64_t c = c0; c < c1; ++c)
          data->bytes[r * k + c] = floatToFP8(type, x[r * k + c] * multiplier);
      }
    }
  }
  if (Buffer *data = tensor.find("columnwise_data")) {
    Buffer &scales = requireBuffer(tensor, "columnwise_scale_inv");
    for (int64_t mb = 0; mb < rowBlocks; ++mb) {
      const int64_t r0 = mb * kBlock, r1 = std::min(m, r0 + kBlock);
      for (int64_t c = 0; c < k; ++c) {
        const uint8_t e =
            options.twoD
                ? tileExponent[mb * colBlocks + c / kBlock]
                : mxfp8BlockExponent(amaxOfRegion(x, k, r0, r1, c, c + 1),
                                     type);
        scales.bytes[scaleByteOffset(scales.desc, Format::MXFP8, mb, c)] = e;
        const float multiplier = e8m0ReciprocalScale(e);
        for (int64_t r = r0; r < r1; ++r)
          data->bytes[r * k + c] = floatToFP8(type, x[r * k + c] * multiplier);
      }
    }
  }
  return tensor;
}

//===----------------------------------------------------------------------===//
// NVFP4 (§5.5)
//===----------------------------------------------------------------------===//

Result<QuantizedTensor> quantizeNVFP4(const Input &input,
                                      const TensorDesc &desc,
                                      const TargetCaps &target,
                                      const NVFP4Options &options) {
  QuantizedTensor tensor;
  if (auto error = prepare(input, desc, target, Format::NVFP4, tensor))
    return fail<QuantizedTensor>(*error);
  if (desc.rowScaledNVFP4)
    return fail<QuantizedTensor>(
        "row-scaled NVFP4 is not supported by the reference quantizer");
  const layout::Flat2D flat = layout::flatten2D(desc.shape);
  const int64_t m = flat.m, k = flat.k;
  const bool rowwise = desc.usage & layout::UsageRowwise;
  const bool columnwise = desc.usage & layout::UsageColumnwise;
  if (options.rht && columnwise) {
    if (input.dtype != DType::BF16)
      return fail<QuantizedTensor>(
          std::string("RHT is only supported for bfloat16 input, not ") +
          stringifyDType(input.dtype));
    if (options.twoD)
      return fail<QuantizedTensor>(
          "RHT cannot be combined with 2D (16x16) NVFP4 quantization");
    if (m % kRHTSize != 0)
      return fail<QuantizedTensor>(
          "RHT transforms groups of 16 rows: M = " + std::to_string(m) +
          " must be a multiple of 16");
  }
  const float *x = input.values.data();

  const float amaxRowwise = options.amaxRowwise.value_or(amaxOf(input.values));

  if (rowwise) {
    quantizeNVFP4Copy(x, m, k, amaxRowwise, options, options.offset,
                      requireBuffer(tensor, "rowwise_data"),
                      requireBuffer(tensor, "rowwise_scale_inv"));
    requireBuffer(tensor, "amax_rowwise").setF32(0, amaxRowwise);
  }
  if (columnwise) {
    // x^T [K, M], RHT-transformed per 16 consecutive elements of its rows.
    std::vector<float> source(static_cast<size_t>(m * k));
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < k; ++c)
        source[c * m + r] = x[r * k + c];
    float amaxColumnwise = amaxRowwise;
    if (options.rht) {
      for (int64_t c = 0; c < k; ++c) {
        for (int64_t g = 0; g < m; g += kRHTSize) {
          std::array<float, kRHTSize> group;
          std::copy_n(source.begin() + (c * m + g), kRHTSize, group.begin());
          group = rht16(group);
          std::copy(group.begin(), group.end(), source.begin() + (c * m + g));
        }
      }
      amaxColumnwise = amaxOf(source);
    }
    if (options.amaxColumnwise)
      amaxColumnwise = *options.amaxColumnwise;
    quantizeNVFP4Copy(source.data(), k, m, amaxColumnwise, options,
                      options.offset ^ kColumnwiseStreamBit,
                      requireBuffer(tensor, "columnwise_data"),
                      requireBuffer(tensor, "columnwise_scale_inv"));
    requireBuffer(tensor, "amax_columnwise").setF32(0, amaxColumnwise);
  }
  return tensor;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

Result<QuantizedTensor> quantize(const Input &input, const TensorDesc &desc,
                                 const TargetCaps &target,
                                 const QuantizeOptions &options) {
  switch (desc.format) {
  case Format::PerTensorFP8:
    return quantizePerTensor(input, desc, target, options.perTensor);
  case Format::BlockFP8_1D:
  case Format::BlockFP8_2D:
    return quantizeBlockFP8(input, desc, target, options.blockFP8);
  case Format::MXFP8:
    return quantizeMXFP8(input, desc, target, options.mxfp8);
  case Format::NVFP4:
    return quantizeNVFP4(input, desc, target, options.nvfp4);
  }
  return fail<QuantizedTensor>("unknown quantization format");
}

//===----------------------------------------------------------------------===//
// Delayed scaling (§5.2)
//===----------------------------------------------------------------------===//

void recordAmax(DelayedScalingState &state, float amax) {
  if (!state.amaxHistory.empty())
    state.amaxHistory[0] = amaxAccumulate(state.amaxHistory[0], amax);
}

void updateDelayedScaling(DelayedScalingState &state, float fp8Max,
                          int margin, AmaxComputeAlgo algo,
                          std::optional<float> reducedAmax) {
  std::vector<float> &history = state.amaxHistory;
  if (history.empty())
    return;
  const size_t length = history.size();
  const float scaledMax = fp8Max * std::ldexp(1.0f, -margin);
  const float last =
      (reducedAmax && *reducedAmax != 0.0f) ? *reducedAmax : history[0];

  float windowMax = 0.0f;
  if (last != 0.0f) {
    std::vector<float> rolled(length);
    for (size_t i = 0; i < length; ++i) {
      const float a = i + 1 < length ? history[i + 1] : last;
      windowMax = std::fmax(windowMax, a);
      rolled[i] = i > 0 ? a : 0.0f;
    }
    history = std::move(rolled);
  }
  const float amax = algo == AmaxComputeAlgo::Max ? windowMax : last;

  float scale = (std::isfinite(amax) && amax > 0.0f) ? scaledMax / amax
                                                      : state.scale;
  if (std::isinf(scale))
    scale = FLT_MAX;
  state.scale = scale;
}

} // namespace mlir::teq::reference

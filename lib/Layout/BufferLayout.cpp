//===- BufferLayout.cpp - Storage layout of TE's quantized formats --------===//
//
// Implements te-semantics.md §4 (Float8Tensor, Float8BlockwiseQTensor,
// MXFP8Tensor, NVFP4Tensor) and §2 (non-TN FP8 GEMM support).
//
//===----------------------------------------------------------------------===//

#include "teq/Layout/BufferLayout.h"

#include <string>

namespace mlir::teq::layout {

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

Flat2D flatten2D(const std::vector<int64_t> &shape) {
  Flat2D flat;
  if (shape.empty())
    return flat; // A scalar is 1x1.
  flat.k = shape.back();
  flat.m = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i)
    flat.m *= shape[i];
  return flat;
}

namespace {

/// TE's `get_columnwise_shape`: (shape[-1], *shape[:-1]). A scalar stays a
/// scalar (Python would fail on it; the transpose of one element is itself).
std::vector<int64_t> transposedShape(const std::vector<int64_t> &shape) {
  if (shape.empty())
    return {};
  std::vector<int64_t> result;
  result.reserve(shape.size());
  result.push_back(shape.back());
  result.insert(result.end(), shape.begin(), shape.end() - 1);
  return result;
}

bool isFP8(Encoding encoding) {
  return encoding == Encoding::E4M3 || encoding == Encoding::E5M2;
}

BufferDesc makeBuffer(std::string name, BufferRole role, unsigned usage,
                      std::vector<int64_t> shape,
                      std::vector<int64_t> validShape, Encoding encoding,
                      bool transposed = false,
                      std::optional<ScaleLayout> scaleLayout = std::nullopt) {
  BufferDesc buffer;
  buffer.name = std::move(name);
  buffer.role = role;
  buffer.usage = static_cast<Usage>(usage);
  buffer.shape = std::move(shape);
  buffer.validShape = std::move(validShape);
  buffer.encoding = encoding;
  buffer.transposed = transposed;
  buffer.scaleLayout = scaleLayout;
  return buffer;
}

BufferDesc makeData(std::string name, unsigned usage,
                    const std::vector<int64_t> &shape, Encoding encoding,
                    bool transposed = false) {
  return makeBuffer(std::move(name), BufferRole::Data, usage, shape, shape,
                    encoding, transposed);
}

BufferDesc makeScale(std::string name, unsigned usage,
                     std::vector<int64_t> shape,
                     std::vector<int64_t> validShape, Encoding encoding,
                     std::optional<ScaleLayout> scaleLayout = std::nullopt) {
  return makeBuffer(std::move(name), BufferRole::ScaleInv, usage,
                    std::move(shape), std::move(validShape), encoding,
                    /*transposed=*/false, scaleLayout);
}

//===----------------------------------------------------------------------===//
// Per format (te-semantics.md §4.1-§4.4)
//===----------------------------------------------------------------------===//

/// §4.1 Float8Tensor.
void describePerTensorFP8(const TensorDesc &tensor, const TargetCaps &target,
                          std::vector<BufferDesc> &buffers) {
  const bool rowwise = tensor.usage & UsageRowwise;
  const bool columnwise = tensor.usage & UsageColumnwise;
  const bool nonTN = target.nonTNFP8GemmSupported();

  // with_data = rowwise_usage || non_tn_supported. On non-TN targets the
  // columnwise GEMM operand reads `_data` with a flipped transpose flag.
  if (rowwise || nonTN) {
    unsigned usage = (rowwise ? UsageRowwise : UsageNone) |
                     (columnwise && nonTN ? UsageColumnwise : UsageNone);
    buffers.push_back(
        makeData("data", usage, tensor.shape, tensor.dataEncoding));
  }
  // with_transpose = columnwise_usage && !non_tn_supported.
  if (columnwise && !nonTN)
    buffers.push_back(makeData("transpose", UsageColumnwise,
                               transposedShape(tensor.shape),
                               tensor.dataEncoding, /*transposed=*/true));
  // One scale_inv shared by both usages.
  buffers.push_back(makeScale("scale_inv", tensor.usage & UsageBoth, {1}, {1},
                              Encoding::F32));
}

/// §4.3 Float8BlockwiseQTensor (GEMM-ready scales, fp32).
void describeBlockFP8(const TensorDesc &tensor, bool twoD,
                      std::vector<BufferDesc> &buffers) {
  const Flat2D flat = flatten2D(tensor.shape);
  const int64_t m = flat.m, k = flat.k;
  constexpr int64_t block = 128;

  if (tensor.usage & UsageRowwise) {
    buffers.push_back(makeData("rowwise_data", UsageRowwise, tensor.shape,
                               tensor.dataEncoding));
    if (twoD)
      buffers.push_back(makeScale(
          "rowwise_scale_inv", UsageRowwise,
          {ceilDiv(m, block), roundUp(ceilDiv(k, block), 4)},
          {ceilDiv(m, block), ceilDiv(k, block)}, Encoding::F32));
    else
      buffers.push_back(makeScale("rowwise_scale_inv", UsageRowwise,
                                  {ceilDiv(k, block), roundUp(m, 4)},
                                  {ceilDiv(k, block), m}, Encoding::F32));
  }
  if (tensor.usage & UsageColumnwise) {
    buffers.push_back(makeData("columnwise_data", UsageColumnwise,
                               transposedShape(tensor.shape),
                               tensor.dataEncoding, /*transposed=*/true));
    if (twoD)
      buffers.push_back(makeScale(
          "columnwise_scale_inv", UsageColumnwise,
          {ceilDiv(k, block), roundUp(ceilDiv(m, block), 4)},
          {ceilDiv(k, block), ceilDiv(m, block)}, Encoding::F32));
    else
      buffers.push_back(makeScale("columnwise_scale_inv", UsageColumnwise,
                                  {ceilDiv(m, block), roundUp(k, 4)},
                                  {ceilDiv(m, block), k}, Encoding::F32));
  }
}

/// §4.2 MXFP8Tensor.
void describeMXFP8(const TensorDesc &tensor, std::vector<BufferDesc> &buffers) {
  const Flat2D flat = flatten2D(tensor.shape);
  const int64_t m = flat.m, k = flat.k;
  constexpr int64_t block = 32;

  if (tensor.usage & UsageRowwise) {
    buffers.push_back(makeData("rowwise_data", UsageRowwise, tensor.shape,
                               tensor.dataEncoding));
    buffers.push_back(makeScale("rowwise_scale_inv", UsageRowwise,
                                {roundUp(m, 128), roundUp(ceilDiv(k, block), 4)},
                                {m, ceilDiv(k, block)}, Encoding::E8M0,
                                tensor.scaleLayout));
  }
  if (tensor.usage & UsageColumnwise) {
    // Not transposed: same shape and row-major order as the rowwise data.
    buffers.push_back(makeData("columnwise_data", UsageColumnwise,
                               tensor.shape, tensor.dataEncoding));
    buffers.push_back(makeScale("columnwise_scale_inv", UsageColumnwise,
                                {roundUp(ceilDiv(m, block), 4), roundUp(k, 128)},
                                {ceilDiv(m, block), k}, Encoding::E8M0,
                                tensor.scaleLayout));
  }
}

/// §4.4 NVFP4Tensor.
void describeNVFP4(const TensorDesc &tensor, std::vector<BufferDesc> &buffers) {
  const Flat2D flat = flatten2D(tensor.shape);
  const int64_t m = flat.m, k = flat.k;
  constexpr int64_t block = 16;
  const bool rowwise = tensor.usage & UsageRowwise;
  const bool columnwise = tensor.usage & UsageColumnwise;

  if (rowwise) {
    // [*leading, K/2]: the innermost dimension is packed two codes per byte.
    std::vector<int64_t> shape = tensor.shape;
    if (shape.empty())
      shape.push_back(k); // Unreachable after checkLayoutable (K = 1 is odd).
    shape.back() /= 2;
    buffers.push_back(makeData("rowwise_data", UsageRowwise, shape,
                               Encoding::E2M1x2));
    buffers.push_back(makeScale("rowwise_scale_inv", UsageRowwise,
                                {roundUp(m, 128), roundUp(ceilDiv(k, block), 4)},
                                {m, ceilDiv(k, block)}, Encoding::E4M3,
                                tensor.scaleLayout));
  }
  if (columnwise) {
    // Physically transposed to [K, M], then packed along M.
    buffers.push_back(makeData("columnwise_data", UsageColumnwise,
                               {k, m / 2}, Encoding::E2M1x2,
                               /*transposed=*/true));
    buffers.push_back(makeScale("columnwise_scale_inv", UsageColumnwise,
                                {roundUp(k, 128), roundUp(ceilDiv(m, block), 4)},
                                {k, ceilDiv(m, block)}, Encoding::E4M3,
                                tensor.scaleLayout));
  }
  if (rowwise) {
    std::vector<int64_t> amaxShape{tensor.rowScaledNVFP4 ? m : 1};
    buffers.push_back(makeBuffer("amax_rowwise", BufferRole::Amax,
                                 UsageRowwise, amaxShape, amaxShape,
                                 Encoding::F32));
  }
  if (columnwise)
    buffers.push_back(makeBuffer("amax_columnwise", BufferRole::Amax,
                                 UsageColumnwise, {1}, {1}, Encoding::F32));
}

} // namespace

//===----------------------------------------------------------------------===//
// Names and sizes
//===----------------------------------------------------------------------===//

const char *stringifyFormat(Format format) {
  switch (format) {
  case Format::PerTensorFP8:
    return "per_tensor_fp8";
  case Format::BlockFP8_1D:
    return "block_fp8_1d";
  case Format::BlockFP8_2D:
    return "block_fp8_2d";
  case Format::MXFP8:
    return "mxfp8";
  case Format::NVFP4:
    return "nvfp4";
  }
  return "unknown";
}

const char *stringifyEncoding(Encoding encoding) {
  switch (encoding) {
  case Encoding::F32:
    return "f32";
  case Encoding::E4M3:
    return "e4m3";
  case Encoding::E5M2:
    return "e5m2";
  case Encoding::E8M0:
    return "e8m0";
  case Encoding::E2M1x2:
    return "e2m1x2";
  }
  return "unknown";
}

int64_t storageBytes(Encoding encoding) {
  switch (encoding) {
  case Encoding::F32:
    return 4;
  case Encoding::E4M3:
  case Encoding::E5M2:
  case Encoding::E8M0:
  case Encoding::E2M1x2: // One byte holding two FP4 codes.
    return 1;
  }
  return 1;
}

bool TargetCaps::supportsFP8() const {
  return sm >= 90 || (sm == 89 && cudaVersion >= 121);
}

bool TargetCaps::supportsFP8BlockScaling() const {
  return sm >= 90 && cudaVersion >= 129;
}

bool TargetCaps::supportsMXFP8() const { return sm >= 100 && sm < 120; }

bool TargetCaps::supportsNVFP4() const { return sm >= 100; }

bool TargetCaps::nonTNFP8GemmSupported() const {
  return (sm >= 100 && sm < 120) || sm >= 130;
}

bool TargetCaps::hasBlockScaledGemms() const { return sm >= 100; }

bool TargetCaps::supportsDependentLaunch() const { return sm >= 90; }

int64_t BufferDesc::numElements() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

int64_t BufferDesc::sizeInBytes() const {
  return numElements() * storageBytes(encoding);
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

std::vector<BufferDesc> describeBuffers(const TensorDesc &tensor,
                                        const TargetCaps &target) {
  std::vector<BufferDesc> buffers;
  switch (tensor.format) {
  case Format::PerTensorFP8:
    describePerTensorFP8(tensor, target, buffers);
    break;
  case Format::BlockFP8_1D:
    describeBlockFP8(tensor, /*twoD=*/false, buffers);
    break;
  case Format::BlockFP8_2D:
    describeBlockFP8(tensor, /*twoD=*/true, buffers);
    break;
  case Format::MXFP8:
    describeMXFP8(tensor, buffers);
    break;
  case Format::NVFP4:
    describeNVFP4(tensor, buffers);
    break;
  }
  return buffers;
}

std::optional<std::string> checkLayoutable(const TensorDesc &tensor) {
  const std::string format = stringifyFormat(tensor.format);

  if ((tensor.usage & UsageBoth) == UsageNone)
    return std::string(
        "a quantized tensor needs at least one usage (rowwise or columnwise)");
  if (tensor.usage & ~static_cast<unsigned>(UsageBoth))
    return "usage " + std::to_string(tensor.usage) +
           " has bits other than rowwise (1) and columnwise (2)";

  // Positive dimensions, and an element count (with room for the padding of
  // the scale buffers) that fits in int64_t.
  constexpr int64_t maxElements = int64_t(1) << 56;
  int64_t elements = 1;
  for (size_t i = 0; i < tensor.shape.size(); ++i) {
    int64_t dim = tensor.shape[i];
    if (dim < 1)
      return "dimension " + std::to_string(i) + " is " + std::to_string(dim) +
             "; quantized tensors need positive dimensions";
    if (dim > maxElements / elements)
      return std::string("the tensor has more than 2^56 elements");
    elements *= dim;
  }

  if (tensor.format == Format::NVFP4) {
    if (tensor.dataEncoding != Encoding::E2M1x2)
      return format + " data must be e2m1x2, not " +
             stringifyEncoding(tensor.dataEncoding);
  } else if (!isFP8(tensor.dataEncoding)) {
    return format + " data must be e4m3 or e5m2, not " +
           stringifyEncoding(tensor.dataEncoding);
  }

  if (tensor.rowScaledNVFP4 && tensor.format != Format::NVFP4)
    return "row-scaled amax is only available for nvfp4, not " + format;

  if (tensor.format == Format::NVFP4) {
    const Flat2D flat = flatten2D(tensor.shape);
    if ((tensor.usage & UsageRowwise) && flat.k % 2 != 0)
      return "NVFP4 packs two E2M1 values per byte: K = " +
             std::to_string(flat.k) + " must be even for rowwise usage";
    if ((tensor.usage & UsageColumnwise) && flat.m % 2 != 0)
      return "NVFP4 packs two E2M1 values per byte: M = " +
             std::to_string(flat.m) + " must be even for columnwise usage";
  }
  return std::nullopt;
}

int64_t gemmSwizzledScaleIndex(int64_t i, int64_t j, int64_t numTilesX) {
  const int64_t tile = (i / 128) * numTilesX + j / 4;
  const int64_t offset = (i % 32) * 16 + ((i % 128) / 32) * 4 + (j % 4);
  return tile * 512 + offset;
}

} // namespace mlir::teq::layout

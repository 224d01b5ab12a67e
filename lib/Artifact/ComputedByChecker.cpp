//===- ComputedByChecker.cpp - Checking computed_by against its entry -----===//
//
// checkComputedBy (Readers.h): every computed_by of an entry names values and
// GEMMs that exist, with the types and shapes its op needs, and no value is
// computed from itself.
//
//===----------------------------------------------------------------------===//

#include "JsonFields.h"
#include "Readers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <tuple>

namespace mlir::teq::artifact {

using namespace detail;

namespace {

const std::vector<int64_t> &shapeOf(const ArgSpec &value) {
  return value.isProto ? value.proto.shape : value.tensor.shape;
}

const std::string &dtypeOf(const ArgSpec &value) {
  return value.isProto ? value.proto.dtype : value.tensor.dtype;
}

/// The buffer of `value` named `name`, or nullptr.
const BufferSpec *findBuffer(const ArgSpec &value, const std::string &name) {
  for (const BufferSpec &buffer : value.buffers)
    if (buffer.name == name)
      return &buffer;
  return nullptr;
}

/// "no buffer 'x'" or "buffer 'x' of 128 bytes".
std::string describeBufferBytes(const BufferSpec *buffer,
                                const std::string &name) {
  if (!buffer)
    return "no buffer '" + name + "'";
  return "buffer '" + name + "' of " + std::to_string(buffer->bytes) +
         " bytes";
}

/// "'x' (bf16[128, 256])", "'q' (bf16[128, 256] quantized by mxfp8)".
std::string describeValue(const ArgSpec &value) {
  std::string text = "'" + value.name + "' (" + dtypeOf(value) +
                     formatShape(shapeOf(value));
  if (value.isProto)
    text += std::string(" quantized by ") + value.proto.quantizerKind();
  return text + ")";
}


/// Checks the computed_by of every output and temporary of one entry: the
/// values and GEMMs it names exist, have the types and shapes the op needs,
/// and no value is computed from itself. te-run --check evaluates these
/// descriptions on the CPU, so they must describe a program it can run
/// without reading out of bounds.
class ComputedByChecker {
public:
  ComputedByChecker(const Manifest &manifest, const EntrySpec &entry,
                    const std::string &entryPath)
      : manifest(manifest), entry(entry), entryPath(entryPath) {}

  Status run() {
    for (size_t i = 0; i < entry.args.size(); ++i)
      values[entry.args[i].name] = {&entry.args[i],
                                    element(child(entryPath, "args"), i)};
    for (size_t i = 0; i < entry.temporaries.size(); ++i)
      values[entry.temporaries[i].name] = {
          &entry.temporaries[i], element(child(entryPath, "temporaries"), i)};
    // In manifest order, so that the first error is the first in the file.
    for (const std::vector<ArgSpec> *list : {&entry.args, &entry.temporaries})
      for (const ArgSpec &value : *list)
        if (value.computedBy)
          TEQ_RETURN_IF_ERROR(check(value, values[value.name].path));
    return checkCycles();
  }

private:
  struct Value {
    const ArgSpec *spec = nullptr;
    std::string path;
  };

  /// The value `name` (at `key` of the computed_by at `path`) names ("x"
  /// or "view(x)"); nullptr if `name` is empty (an absent optional key:
  /// parseComputedBy checked the required ones).
  StatusOr<const ArgSpec *> reference(const ArgSpec &value,
                                      const std::string &name,
                                      const std::string &path,
                                      const char *key) {
    if (name.empty())
      return static_cast<const ArgSpec *>(nullptr);
    return resolve(value, name, child(path, key));
  }

  StatusOr<const ArgSpec *> resolve(const ArgSpec &value,
                                    const std::string &name,
                                    const std::string &at) {
    // A usage view ("view(x)") reads the buffers of what it views.
    std::string_view target = name;
    while (target.size() > 6 && target.substr(0, 5) == "view(" &&
           target.back() == ')')
      target = target.substr(5, target.size() - 6);
    auto found = values.find(std::string(target));
    if (found == values.end())
      return errorAt(at, "names '" + std::string(target) +
                             "', which is neither an argument nor a "
                             "temporary of entry '" +
                             entry.name + "'");
    const ArgSpec *named = found->second.spec;
    if (named == &value)
      return errorAt(at, "names '" + value.name + "' itself");
    // An alias has no buffers to read: its value goes by the argument's
    // name.
    if (named->isAlias())
      return errorAt(at, "names '" + named->name + "', an alias of argument '" +
                             named->aliasOf + "': name '" + named->aliasOf +
                             "'");
    dependencies[value.name].push_back(named->name);
    return named;
  }

  /// An error unless `named` is a tensor (of `dtype`, if given).
  Status needTensor(const ArgSpec &named, const std::string &at,
                    const char *dtype = nullptr) {
    if (named.isProto)
      return errorAt(at, describeValue(named) +
                             " is quantized; a tensor is needed here");
    if (dtype && named.tensor.dtype != dtype)
      return errorAt(at, describeValue(named) + " is not " + dtype);
    return Status::success();
  }

  static std::string shortest(double v) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.17g", v);
    return text;
  }

  /// Whether the finite `v` is exactly a value of `dtype` (f32, bf16, f16;
  /// other dtypes: any integer-valued v).
  static bool exactIn(const std::string &dtype, double v) {
    if (v == 0.0)
      return true;
    auto fits = [&](int mantissaBits, int minExponent, int maxExponent) {
      int exponent = 0;
      std::frexp(v, &exponent); // |v| = m * 2^exponent, m in [0.5, 1)
      if (exponent - 1 > maxExponent)
        return false;
      // The value's last significant bit: 2^(exponent - 1 - mantissaBits),
      // or the smallest subnormal's.
      int lsb = std::max(exponent - 1, minExponent) - mantissaBits;
      double scaled = std::ldexp(v, -lsb);
      return scaled == std::nearbyint(scaled);
    };
    if (dtype == "f32")
      return fits(23, -126, 127);
    if (dtype == "bf16")
      return fits(7, -126, 127);
    if (dtype == "f16")
      return fits(10, -14, 15);
    return v == std::nearbyint(v);
  }

  Status needElements(const ArgSpec &named, int64_t elements,
                      const std::string &at, const std::string &why) {
    int64_t have = numElements(shapeOf(named));
    if (have != elements)
      return errorAt(at, describeValue(named) + " has " +
                             std::to_string(have) + " elements, " + why +
                             " needs " + std::to_string(elements));
    return Status::success();
  }

  Status check(const ArgSpec &value, const std::string &valuePath) {
    const std::string path = child(valuePath, "computed_by");
    const ComputedBy &by = *value.computedBy;
    // A value in registers exists only inside a fused elementwise kernel
    // (which also loads a gated activation's halves in place).
    if (value.inRegisters && by.op != ComputeOp::Elementwise &&
        by.op != ComputeOp::Constant && by.op != ComputeOp::ExtractSlice)
      return errorAt(child(valuePath, "in_registers"),
                     "a value in registers is computed inside a fused "
                     "elementwise kernel, but " + by.opName() +
                         " writes its result to memory");
    switch (by.op) {
    case ComputeOp::Quantize:
    case ComputeOp::RecordAmax:
      return checkQuantize(value, by, path, by.op == ComputeOp::RecordAmax);
    case ComputeOp::DelayedScalingUpdate:
      return checkDelayedScalingUpdate(value, by, path);
    case ComputeOp::Gemm:
      return checkGemmProduct(value, by, path);
    case ComputeOp::BiasGrad:
      return checkBiasGrad(value, by, path);
    case ComputeOp::Dequantize:
      return checkDequantize(value, by, path);
    case ComputeOp::LayerNorm:
    case ComputeOp::LayerNormBackward:
    case ComputeOp::RMSNorm:
    case ComputeOp::RMSNormBackward:
      return checkNorm(value, by, path);
    case ComputeOp::Copy:
    case ComputeOp::UpdateUsage:
    case ComputeOp::SwizzleScales:
      return checkCopy(value, by, path);
    case ComputeOp::ExtractSlice:
    case ComputeOp::InsertSlice:
      return checkSlice(value, by, path, by.op == ComputeOp::InsertSlice);
    case ComputeOp::Elementwise:
      return checkElementwise(value, by, path);
    case ComputeOp::Concat:
      return checkConcat(value, by, path);
    case ComputeOp::Constant:
      TEQ_RETURN_IF_ERROR(needTensor(value, path));
      if (!exactIn(value.tensor.dtype, by.value))
        return errorAt(child(path, "value"),
                       shortest(by.value) + " is not exactly a " +
                           value.tensor.dtype + " value (a constant is "
                           "every element, exactly)");
      return Status::success();
    case ComputeOp::AllGather:
    case ComputeOp::ReduceScatter:
    case ComputeOp::AllReduce:
      return checkCollective(value, by, path);
    }
    return Status::success();
  }

  /// The group at `key` of a computed_by is one of the entry's; returns
  /// its size.
  StatusOr<int64_t> groupSize(int64_t group, const std::string &at) {
    if (group < 0 || group >= static_cast<int64_t>(entry.groups.size()))
      return errorAt(at, "group " + std::to_string(group) +
                             " is out of range: entry '" + entry.name +
                             "' has " + std::to_string(entry.groups.size()) +
                             (entry.groups.size() == 1 ? " group" : " groups"));
    return entry.groups[group].size;
  }

  /// all_gather / reduce_scatter (dim 0 grows / shrinks by the group's
  /// size) and all_reduce (same shape); reductions of tensors only,
  /// gathers of tensors or per-tensor FP8.
  Status checkCollective(const ArgSpec &value, const ComputedBy &by,
                         const std::string &path) {
    auto size = groupSize(by.group, child(path, "group"));
    if (!size.ok())
      return size.status();
    if (*size == 0)
      return errorAt(child(path, "group"),
                     "group \"" + entry.groups[by.group].name +
                         "\" has no size (0: it only reduces amaxes), but " +
                         by.opName() + " shapes its result by it");
    auto input = reference(value, by.input, path, "input");
    if (!input.ok())
      return input.status();
    const ArgSpec &in = **input;
    const std::string at = child(path, "input");
    if (by.op != ComputeOp::AllGather || !in.isProto)
      TEQ_RETURN_IF_ERROR(needTensor(in, at));
    std::vector<int64_t> expected = shapeOf(in);
    if (by.op != ComputeOp::AllReduce) {
      if (expected.empty())
        return errorAt(at,
                       describeValue(in) + " has no dim 0 to " + by.opName());
      if (by.op == ComputeOp::AllGather)
        expected[0] *= *size;
      else if (expected[0] % *size != 0)
        return errorAt(at, describeValue(in) + ": dim 0 is not a multiple " +
                               "of the group's " + std::to_string(*size) +
                               " ranks");
      else
        expected[0] /= *size;
    }
    if (in.isProto != value.isProto || dtypeOf(in) != dtypeOf(value) ||
        shapeOf(value) != expected ||
        (value.isProto &&
         value.proto.quantizer.kind != in.proto.quantizer.kind))
      return errorAt(at, describeValue(in) + " cannot become " +
                             describeValue(value) + " by " + by.opName() +
                             " over " + std::to_string(*size) + " ranks");
    if (!value.isProto)
      return Status::success();
    // A quantized gather (per-tensor FP8) concatenates the ranks' "data" and
    // keeps the rank's own other buffers (its scale_inv): each of the
    // result's buffers is the input's, "data" the group's size times over.
    for (const BufferSpec &buffer : value.buffers) {
      const BufferSpec *from = findBuffer(in, buffer.name);
      const int64_t times = buffer.name == "data" ? *size : 1;
      if (!from || from->bytes * times != buffer.bytes)
        return errorAt(at, describeValue(in) + " has " +
                               describeBufferBytes(from, buffer.name) +
                               ", but " + describeValue(value) + " has '" +
                               buffer.name + "' of " +
                               std::to_string(buffer.bytes) + " bytes: " +
                               by.opName() + " over " + std::to_string(*size) +
                               " ranks gathers every rank's 'data' and keeps "
                               "the rank's own other buffers");
    }
    return Status::success();
  }

  Status checkQuantize(const ArgSpec &value, const ComputedBy &by,
                       const std::string &path, bool recordAmax) {
    auto input = reference(value, by.input, path, "input");
    if (!input.ok())
      return input.status();
    TEQ_RETURN_IF_ERROR(needTensor(**input, child(path, "input")));
    auto scale = reference(value, by.scale, path, "scale");
    if (!scale.ok())
      return scale.status();
    auto history =
        reference(value, by.amaxHistory, path, "amax_history");
    if (!history.ok())
      return history.status();
    if (!*scale != !*history)
      return errorAt(path, "names one of \"scale\" and \"amax_history\" "
                           "without the other");
    if (by.group >= 0) {
      auto size = groupSize(by.group, child(path, "amax_group"));
      if (!size.ok())
        return size.status();
    }
    for (auto [named, key] : {std::pair{*scale, "scale"},
                              std::pair{*history, "amax_history"}}) {
      if (!named)
        continue;
      TEQ_RETURN_IF_ERROR(needTensor(*named, child(path, key), "f32"));
      if (numElements(shapeOf(*named)) < 1)
        return errorAt(child(path, key), describeValue(*named) + " is empty");
    }
    // A per-tensor quantization has one scale (a slot of the recipe state).
    if (*scale)
      TEQ_RETURN_IF_ERROR(needElements(**scale, 1, child(path, "scale"),
                                       "the scale of a per-tensor "
                                       "quantization"));
    auto rng = reference(value, by.rngState, path, "rng_state");
    if (!rng.ok())
      return rng.status();

    if (recordAmax) {
      // history[0] = max(history[0], amax(input)): an f32 history.
      TEQ_RETURN_IF_ERROR(needTensor(value, path, "f32"));
      if (!*history)
        return errorAt(path, "missing \"amax_history\"");
      return needElements(**history, numElements(shapeOf(value)),
                          child(path, "amax_history"),
                          "'" + value.name + "'");
    }
    if (!value.isProto)
      return errorAt(path, "quantize writes a quantized tensor, but " +
                               describeValue(value) + " is not one");
    if ((*input)->tensor.dtype != value.proto.dtype ||
        (*input)->tensor.shape != value.proto.shape)
      return errorAt(child(path, "input"),
                     describeValue(**input) + " differs in dtype or shape "
                                              "from " +
                         describeValue(value));
    // Delayed scaling reads the stored scale (and records the amax);
    // stochastic rounding reads its (seed, offset).
    const QuantizerDesc &quantizer = value.proto.quantizer;
    const bool delayed = quantizer.kind == QuantizerKind::Float8Delayed;
    if (delayed != (*scale != nullptr))
      return errorAt(path, delayed ? "a float8_delayed quantization names "
                                     "its \"scale\" and \"amax_history\""
                                   : "only a float8_delayed quantization "
                                     "names a \"scale\"");
    const bool stochastic =
        quantizer.kind == QuantizerKind::NVFP4 && quantizer.stochasticRounding;
    if (stochastic != (*rng != nullptr))
      return errorAt(path, stochastic
                               ? "a stochastically rounded quantization "
                                 "names its \"rng_state\""
                               : "only a stochastically rounded NVFP4 "
                                 "quantization names an \"rng_state\"");
    if (*rng && ((*rng)->kind != ArgKind::Input ||
                 (*rng)->tensor.dtype != "i64"))
      return errorAt(child(path, "rng_state"),
                     describeValue(**rng) + " is not an i64[2] input "
                                            "argument");
    return Status::success();
  }

  Status checkDelayedScalingUpdate(const ArgSpec &value, const ComputedBy &by,
                                   const std::string &path) {
    auto scale = reference(value, by.scale, path, "scale");
    if (!scale.ok())
      return scale.status();
    auto history = reference(value, by.amaxHistory, path, "amax_history");
    if (!history.ok())
      return history.status();
    TEQ_RETURN_IF_ERROR(needTensor(**scale, child(path, "scale"), "f32"));
    TEQ_RETURN_IF_ERROR(
        needTensor(**history, child(path, "amax_history"), "f32"));
    TEQ_RETURN_IF_ERROR(needTensor(value, path, "f32"));
    if (by.group >= 0) {
      auto size = groupSize(by.group, child(path, "amax_group"));
      if (!size.ok())
        return size.status();
    }
    // One scale per slot; the history holds [length][slots].
    const int64_t slots = numElements(shapeOf(**scale));
    const int64_t entries = numElements(shapeOf(**history));
    if (slots < 1 || entries < slots || entries % slots != 0)
      return errorAt(child(path, "amax_history"),
                     describeValue(**history) + " is not a history of the " +
                         std::to_string(slots) + " slots of " +
                         describeValue(**scale));
    return needElements(value, by.outputsScale ? slots : entries, path,
                        std::string("the updated ") +
                            (by.outputsScale ? "scale" : "amax_history"));
  }

  Status checkGemmProduct(const ArgSpec &value, const ComputedBy &by,
                   const std::string &path) {
    if (by.gemm < 0 || by.gemm >= static_cast<int64_t>(manifest.gemms.size()))
      return errorAt(child(path, "gemm"),
                     "GEMM " + std::to_string(by.gemm) +
                         " does not exist (the artifact has " +
                         std::to_string(manifest.gemms.size()) +
                         (manifest.gemms.size() == 1 ? " GEMM)" : " GEMMs)"));
    const GemmSpec &gemm = manifest.gemms[static_cast<size_t>(by.gemm)];
    auto a = reference(value, by.a, path, "a");
    if (!a.ok())
      return a.status();
    auto b = reference(value, by.b, path, "b");
    if (!b.ok())
      return b.status();
    auto bias = reference(value, by.bias, path, "bias");
    if (!bias.ok())
      return bias.status();
    auto c = reference(value, by.accumulate, path, "accumulate");
    if (!c.ok())
      return c.status();
    TEQ_RETURN_IF_ERROR(needTensor(value, path));

    // TE's problem from the operands' logical shapes, flattened to 2D:
    // D [n, m] = op(B) [n, k] x op(A) [k, m].
    const bool transa = by.transa, transb = by.transb;
    const std::string layoutText = by.layoutName();
    const layout::Flat2D fa = layout::flatten2D(shapeOf(**a));
    const layout::Flat2D fb = layout::flatten2D(shapeOf(**b));
    const int64_t m = transa ? fa.m : fa.k, k = transa ? fa.k : fa.m;
    const int64_t n = transb ? fb.k : fb.m, kb = transb ? fb.m : fb.k;
    const std::string problem = "layout " + layoutText + ", A " +
                                describeValue(**a) + ", B " +
                                describeValue(**b);
    if (k != kb)
      return errorAt(path, "A and B do not multiply: A gives k = " +
                               std::to_string(k) + ", B " +
                               std::to_string(kb) + " (" + problem + ")");
    if (m != gemm.m || n != gemm.n || k != gemm.k)
      return errorAt(child(path, "gemm"),
                     "the operands make an m=" + std::to_string(m) +
                         " n=" + std::to_string(n) + " k=" +
                         std::to_string(k) + " product (" + problem +
                         "), but " + gemm.describe() + " is " +
                         gemm.describeProblem());
    for (auto [operand, type, key] :
         {std::tuple{*a, gemm.aType, "a"}, std::tuple{*b, gemm.bType, "b"}}) {
      const std::string want = stringifyGemmType(type);
      const std::string have = operand->isProto
                                   ? operand->proto.quantizer.dataTypeName()
                                   : operand->tensor.dtype;
      if (have != want)
        return errorAt(child(path, key),
                       describeValue(*operand) + " holds " + have + ", but " +
                           gemm.describe() + " reads " + want);
    }

    if (!by.outputsD) {
      // BGRADB writes the column sums of B: n elements of the bias type.
      if (gemm.epilogue != GemmEpilogue::BGradB)
        return errorAt(child(path, "output"),
                       "names the dbias of " + gemm.describe() +
                           ", whose epilogue is " +
                           stringifyGemmEpilogue(gemm.epilogue));
      TEQ_RETURN_IF_ERROR(
          needTensor(value, path, stringifyGemmType(gemm.biasType)));
      return needElements(value, n, path, "the dbias of " + gemm.describe());
    }
    TEQ_RETURN_IF_ERROR(needTensor(value, path, stringifyGemmType(gemm.dType)));
    const layout::Flat2D fd = layout::flatten2D(shapeOf(value));
    if (fd.m != n || fd.k != m)
      return errorAt(path, describeValue(value) +
                               " is not the [" + std::to_string(n) + ", " +
                               std::to_string(m) + "] D of " +
                               gemm.describe() + " (" + problem + ")");
    if ((*bias != nullptr) != (gemm.epilogue == GemmEpilogue::Bias))
      return errorAt(path, *bias ? "names a \"bias\", but " + gemm.describe() +
                                       " has no bias epilogue"
                                 : gemm.describe() + " adds a bias, but "
                                                     "computed_by names none");
    if (*bias) {
      TEQ_RETURN_IF_ERROR(needTensor(**bias, child(path, "bias"),
                                     stringifyGemmType(gemm.biasType)));
      TEQ_RETURN_IF_ERROR(needElements(**bias, m, child(path, "bias"),
                                       "the bias of " + gemm.describe()));
    }
    if ((*c != nullptr) != gemm.accumulate)
      return errorAt(path, *c ? "names \"accumulate\", but " +
                                    gemm.describe() + " does not accumulate"
                              : gemm.describe() + " accumulates, but "
                                                  "computed_by names no C");
    if (*c) {
      TEQ_RETURN_IF_ERROR(needTensor(**c, child(path, "accumulate"),
                                     stringifyGemmType(gemm.dType)));
      TEQ_RETURN_IF_ERROR(needElements(**c, n * m, child(path, "accumulate"),
                                       "the C of " + gemm.describe()));
    }
    return Status::success();
  }

  Status checkBiasGrad(const ArgSpec &value, const ComputedBy &by,
                       const std::string &path) {
    auto input = reference(value, by.input, path, "input");
    if (!input.ok())
      return input.status();
    TEQ_RETURN_IF_ERROR(needTensor(**input, child(path, "input")));
    TEQ_RETURN_IF_ERROR(needTensor(value, path));
    // The column sums of the input flattened to [M, K].
    return needElements(value, layout::flatten2D(shapeOf(**input)).k, path,
                        "the column sums of " + describeValue(**input));
  }

  /// A norm's result: x a tensor of rank >= 2 ([M, n] flattened), dy of
  /// x's shape and dtype, gamma and beta [n] of one dtype (x's or f32),
  /// mean and rstd f32 [M]; y and dx of x's shape and dtype, mean and rstd
  /// f32 [M], dgamma and dbeta [n] of gamma's dtype.
  Status checkNorm(const ArgSpec &value, const ComputedBy &by,
                   const std::string &path) {
    auto named = [&](const std::string &name,
                     const char *key) -> StatusOr<const ArgSpec *> {
      auto found = reference(value, name, path, key);
      if (!found.ok() || !*found)
        return found;
      TEQ_RETURN_IF_ERROR(needTensor(**found, child(path, key)));
      return found;
    };
    auto x = named(by.x, "x");
    if (!x.ok())
      return x.status();
    const std::vector<int64_t> &xShape = shapeOf(**x);
    if (xShape.size() < 2 || xShape.back() < 1)
      return errorAt(child(path, "x"),
                     describeValue(**x) + " is not a norm's x (rank >= 2, "
                                          "normalised over a last dimension "
                                          ">= 1)");
    const int64_t n = xShape.back();
    const int64_t m = numElements(xShape) / n;
    const std::string &xType = dtypeOf(**x);
    auto gamma = named(by.gamma, "gamma");
    if (!gamma.ok())
      return gamma.status();
    const std::string &gammaType = dtypeOf(**gamma);
    if (shapeOf(**gamma) != std::vector<int64_t>{n} ||
        (gammaType != xType && gammaType != "f32"))
      return errorAt(child(path, "gamma"),
                     describeValue(**gamma) + " is not a norm's gamma: [" +
                         std::to_string(n) + "] of " + xType + " or f32");
    std::pair<const std::string *, const char *> operands[] = {
        {&by.beta, "beta"}, {&by.dy, "dy"}, {&by.mean, "mean"},
        {&by.rstd, "rstd"}, {&by.add, "add"}};
    for (auto [name, key] : operands) {
      auto operand = named(*name, key);
      if (!operand.ok())
        return operand.status();
      if (!*operand)
        continue;
      const std::string k = key;
      // dy and add (dx's addend) are x's shape and dtype.
      const bool rowwise = k == "dy" || k == "add";
      std::vector<int64_t> shape =
          k == "beta" ? std::vector<int64_t>{n}
          : rowwise   ? xShape
                      : std::vector<int64_t>{m};
      const std::string &dtype =
          k == "beta" ? gammaType : rowwise ? xType : "f32";
      if (dtypeOf(**operand) != dtype ||
          (rowwise ? shapeOf(**operand) != shape
                     : numElements(shapeOf(**operand)) != shape[0]))
        return errorAt(child(path, key),
                       describeValue(**operand) + " is not the norm's " + k +
                           " (" + dtype + formatShape(shape) + ")");
    }
    TEQ_RETURN_IF_ERROR(needTensor(value, path));
    const std::string &out = by.normOutput;
    const bool rows = out == "y" || out == "dx";
    const bool stats = out == "mean" || out == "rstd";
    const std::string &dtype = rows ? xType : stats ? "f32" : gammaType;
    std::vector<int64_t> shape =
        rows ? xShape : std::vector<int64_t>{stats ? m : n};
    if (dtypeOf(value) != dtype ||
        (rows ? shapeOf(value) != shape
              : numElements(shapeOf(value)) != shape[0]))
      return errorAt(path, describeValue(value) + " cannot be the " + out +
                               " of " + by.opName() + " of " +
                               describeValue(**x) + " (" + dtype +
                               formatShape(shape) + ")");
    return Status::success();
  }

  /// dequantize: a tensor of the quantized input's logical shape, from its
  /// rowwise copy.
  Status checkDequantize(const ArgSpec &value, const ComputedBy &by,
                         const std::string &path) {
    auto input = reference(value, by.input, path, "input");
    if (!input.ok())
      return input.status();
    TEQ_RETURN_IF_ERROR(needTensor(value, path));
    if (!(*input)->isProto || shapeOf(**input) != shapeOf(value) ||
        !(*input)->proto.hasRowwise())
      return errorAt(child(path, "input"),
                     describeValue(**input) + " cannot become " +
                         describeValue(value) +
                         " by dequantize (it reads a quantized tensor's "
                         "rowwise copy, of the same logical shape)");
    return Status::success();
  }

  /// copy, update_usage (another usage of a quantized tensor) and
  /// swizzle_scales (its scales in the GEMM's byte order): the same tensor.
  Status checkCopy(const ArgSpec &value, const ComputedBy &by,
                   const std::string &path) {
    auto input = reference(value, by.input, path, "input");
    if (!input.ok())
      return input.status();
    const bool quantized = by.op != ComputeOp::Copy;
    if ((*input)->isProto != value.isProto ||
        (quantized && !value.isProto) ||
        dtypeOf(**input) != dtypeOf(value) ||
        shapeOf(**input) != shapeOf(value) ||
        (value.isProto &&
         (*input)->proto.quantizer.kind != value.proto.quantizer.kind))
      return errorAt(child(path, "input"),
                     describeValue(**input) + " cannot become " +
                         describeValue(value) + " by " + by.opName());
    if (!quantized)
      return Status::success();
    // The result's buffers are the input's by name: swizzle_scales keeps
    // every one (reordering the scales' bytes), update_usage those both
    // have (it derives the others, e.g. the transpose of the data).
    for (const BufferSpec &buffer : value.buffers) {
      const BufferSpec *from = findBuffer(**input, buffer.name);
      if ((!from && by.op == ComputeOp::UpdateUsage) ||
          (from && from->bytes == buffer.bytes))
        continue;
      return errorAt(child(path, "input"),
                     describeValue(**input) + " has " +
                         describeBufferBytes(from, buffer.name) + ", but " +
                         describeValue(value) + " has '" + buffer.name +
                         "' of " + std::to_string(buffer.bytes) + " bytes: " +
                         by.opName() +
                         (by.op == ComputeOp::SwizzleScales
                              ? " takes every buffer from its input"
                              : " takes the buffers both have from its "
                                "input"));
    }
    return Status::success();
  }

  /// Checks that the slice's offsets, sizes and strides have the rank of
  /// `full` and lie inside it; returns its element count.
  StatusOr<int64_t> checkSliceBounds(const ComputedBy &by,
                                     const std::string &path,
                                     const ArgSpec &full, const char *role) {
    const std::vector<int64_t> &shape = shapeOf(full);
    const std::vector<int64_t> *lists[3] = {&by.offsets, &by.sizes,
                                            &by.strides};
    const char *keys[3] = {"offsets", "sizes", "strides"};
    for (int l = 0; l < 3; ++l)
      if (lists[l]->size() != shape.size())
        return errorAt(child(path, keys[l]),
                       "has " + std::to_string(lists[l]->size()) +
                           " values for the rank-" +
                           std::to_string(shape.size()) + " " + role + " " +
                           describeValue(full));
    int64_t elements = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      const int64_t offset = by.offsets[d], size = by.sizes[d],
                    stride = by.strides[d];
      const bool inside =
          offset >= 0 && size >= 0 && stride >= 1 && offset <= shape[d] &&
          (size == 0 || (offset < shape[d] &&
                         size - 1 <= (shape[d] - 1 - offset) / stride));
      if (!inside)
        return errorAt(path, "dimension " + std::to_string(d) +
                                 " (offset " + std::to_string(offset) +
                                 ", size " + std::to_string(size) +
                                 ", stride " + std::to_string(stride) +
                                 ") is not inside the " + role + " " +
                                 describeValue(full));
      elements *= size; // At most the full tensor's count: no overflow.
    }
    return elements;
  }

  Status checkSlice(const ArgSpec &value, const ComputedBy &by,
                    const std::string &path, bool insert) {
    auto input = reference(value, by.input, path, "input");
    if (!input.ok())
      return input.status();
    TEQ_RETURN_IF_ERROR(needTensor(**input, child(path, "input")));
    TEQ_RETURN_IF_ERROR(needTensor(value, path));
    if (!insert) {
      auto elements = checkSliceBounds(by, path, **input, "input");
      if (!elements.ok())
        return elements.status();
      return needElements(value, *elements, path, "the slice");
    }
    // insert_slice: `input` goes into a copy of `dest`.
    auto dest = reference(value, by.dest, path, "dest");
    if (!dest.ok())
      return dest.status();
    TEQ_RETURN_IF_ERROR(needTensor(**dest, child(path, "dest")));
    auto elements = checkSliceBounds(by, path, **dest, "destination");
    if (!elements.ok())
      return elements.status();
    TEQ_RETURN_IF_ERROR(needElements(**input, *elements, child(path, "input"),
                                     "the slice"));
    return needElements(value, numElements(shapeOf(**dest)), path,
                        "a copy of " + describeValue(**dest));
  }

  Status checkElementwise(const ArgSpec &value, const ComputedBy &by,
                          const std::string &path) {
    TEQ_RETURN_IF_ERROR(needTensor(value, path));
    const std::string at = child(path, "inputs");
    const int64_t elements = numElements(shapeOf(value));
    for (size_t i = 0; i < by.inputs.size(); ++i) {
      auto input = resolve(value, by.inputs[i], element(at, i));
      if (!input.ok())
        return input.status();
      TEQ_RETURN_IF_ERROR(needTensor(**input, element(at, i)));
      TEQ_RETURN_IF_ERROR(needElements(**input, elements, element(at, i),
                                       "'" + value.name + "'"));
    }
    return Status::success();
  }

  /// tensor.concat: tensors of the value's shape but the last dimension,
  /// whose last dimensions sum to the value's.
  Status checkConcat(const ArgSpec &value, const ComputedBy &by,
                     const std::string &path) {
    TEQ_RETURN_IF_ERROR(needTensor(value, path));
    const std::string at = child(path, "inputs");
    const std::vector<int64_t> &shape = shapeOf(value);
    int64_t lastDims = 0;
    for (size_t i = 0; i < by.inputs.size(); ++i) {
      auto input = resolve(value, by.inputs[i], element(at, i));
      if (!input.ok())
        return input.status();
      TEQ_RETURN_IF_ERROR(needTensor(**input, element(at, i)));
      const std::vector<int64_t> &part = shapeOf(**input);
      if (shape.empty() || part.size() != shape.size() ||
          !std::equal(part.begin(), part.end() - 1, shape.begin()))
        return errorAt(element(at, i),
                       describeValue(**input) + " must have the shape of '" +
                           value.name + "' but the last dimension");
      lastDims += part.back();
    }
    if (lastDims != shape.back())
      return errorAt(at, "the inputs' last dimensions sum to " +
                             std::to_string(lastDims) + ", not to '" +
                             value.name + "''s " + std::to_string(shape.back()));
    return Status::success();
  }

  /// A value computed, through others, from itself: te-run would recurse
  /// forever evaluating it.
  Status checkCycles() {
    enum class Mark { New, Active, Done };
    std::map<std::string, Mark> marks;
    std::vector<std::string> stack;
    std::function<Status(const std::string &)> visit =
        [&](const std::string &name) -> Status {
      Mark &mark = marks[name];
      if (mark == Mark::Done)
        return Status::success();
      if (mark == Mark::Active) {
        std::string cycle;
        auto first = std::find(stack.begin(), stack.end(), name);
        for (auto it = first; it != stack.end(); ++it)
          cycle += *it + " -> ";
        return errorAt(child(values[name].path, "computed_by"),
                       "'" + name + "' is computed from itself (" + cycle +
                           name + ")");
      }
      mark = Mark::Active;
      stack.push_back(name);
      for (const std::string &next : dependencies[name])
        TEQ_RETURN_IF_ERROR(visit(next));
      stack.pop_back();
      marks[name] = Mark::Done;
      return Status::success();
    };
    for (const auto &[name, value] : values)
      TEQ_RETURN_IF_ERROR(visit(name));
    return Status::success();
  }

  const Manifest &manifest;
  const EntrySpec &entry;
  std::string entryPath;
  std::map<std::string, Value> values;
  /// The values each value's computed_by names.
  std::map<std::string, std::vector<std::string>> dependencies;
};

} // namespace

Status detail::checkComputedBy(const Manifest &manifest, const EntrySpec &entry,
                               const std::string &entryPath) {
  return ComputedByChecker(manifest, entry, entryPath).run();
}

} // namespace mlir::teq::artifact

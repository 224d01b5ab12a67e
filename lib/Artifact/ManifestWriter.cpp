//===- ManifestWriter.cpp - The artifact manifest as JSON -----------------===//
//
// writeManifest: what te-compile embeds in every artifact. Object keys are
// written in lexicographic order (the order manifests have always had), so
// the same program gives the same bytes.
//
//===----------------------------------------------------------------------===//

#include "teq/Artifact/Manifest.h"

#include <algorithm>

namespace mlir::teq::artifact {

namespace {

JsonValue shapeJson(const std::vector<int64_t> &shape) {
  JsonValue list = JsonValue::array();
  for (int64_t dim : shape)
    list.push(dim);
  return list;
}

/// `value` with the members of every object sorted by key.
void sortKeys(JsonValue &value) {
  if (value.isArray()) {
    for (JsonValue &item : value.asArray())
      sortKeys(item);
    return;
  }
  if (!value.isObject())
    return;
  JsonValue::Object &members = value.asObject();
  std::stable_sort(members.begin(), members.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  for (auto &member : members)
    sortKeys(member.second);
}

JsonValue bufferJson(const BufferSpec &buffer) {
  JsonValue json = JsonValue::object({{"name", buffer.name},
                                      {"encoding", buffer.encoding},
                                      {"shape", shapeJson(buffer.shape)},
                                      {"valid_shape",
                                       shapeJson(buffer.validShape)},
                                      {"bytes", buffer.bytes}});
  if (buffer.transposed)
    json.set("transposed", true);
  if (!buffer.scaleLayout.empty())
    json.set("scale_layout", buffer.scaleLayout);
  return json;
}

JsonValue argJson(const ArgSpec &arg) {
  JsonValue json = JsonValue::object(
      {{"name", arg.name}, {"kind", stringifyArgKind(arg.kind)}});
  if (!arg.isProto) {
    json.set("tensor",
             JsonValue::object({{"dtype", arg.tensor.dtype},
                                {"shape", shapeJson(arg.tensor.shape)}}));
  } else {
    const ProtoSpec &proto = arg.proto;
    JsonValue protoJson =
        JsonValue::object({{"dtype", proto.dtype},
                           {"shape", shapeJson(proto.shape)},
                           {"quantizer", toJson(proto.quantizer)},
                           {"usage", proto.usage}});
    if (!proto.scaleLayout.empty())
      protoJson.set("scale_layout", proto.scaleLayout);
    if (!proto.text.empty())
      protoJson.set("text", proto.text);
    json.set("proto", std::move(protoJson));
    // An alias output has no buffers of its own.
    if (!arg.isAlias()) {
      JsonValue buffers = JsonValue::array();
      for (const BufferSpec &buffer : arg.buffers)
        buffers.push(bufferJson(buffer));
      json.set("buffers", std::move(buffers));
    }
  }
  if (arg.isAlias())
    json.set("alias_of", arg.aliasOf);
  if (arg.computedBy)
    json.set("computed_by", toJson(*arg.computedBy));
  if (arg.inRegisters)
    json.set("in_registers", true);
  if (!arg.role.empty())
    json.set("role", arg.role);
  if (!arg.roleOf.empty())
    json.set("of", arg.roleOf);
  if (!arg.placement.empty()) {
    JsonValue placement = JsonValue::array();
    using Where = BufferPlacement::Where;
    for (const BufferPlacement &at : arg.placement) {
      JsonValue item = JsonValue::object(
          {{"in", at.in == Where::Workspace ? "workspace"
                  : at.in == Where::Output  ? "output"
                                            : "input"}});
      if (at.in == Where::Output) {
        item.set("output", at.output);
        item.set("buffer", static_cast<int64_t>(at.buffer));
      }
      if (at.in != Where::Input)
        item.set("offset", at.offset);
      placement.push(std::move(item));
    }
    json.set("placement", std::move(placement));
  }
  return json;
}

JsonValue entryJson(const EntrySpec &entry) {
  JsonValue args = JsonValue::array();
  for (const ArgSpec &arg : entry.args)
    args.push(argJson(arg));
  JsonValue json = JsonValue::object({{"name", entry.name},
                                      {"symbol", entry.symbol},
                                      {"args", std::move(args)}});
  if (entry.workspaceBytes > 0)
    json.set("workspace_bytes", entry.workspaceBytes);
  if (!entry.groups.empty()) {
    JsonValue groups = JsonValue::array();
    for (const GroupSpec &group : entry.groups)
      groups.push(JsonValue::object({{"name", group.name}, {"size", group.size}}));
    json.set("groups", std::move(groups));
  }
  if (!entry.temporaries.empty()) {
    JsonValue temporaries = JsonValue::array();
    for (const ArgSpec &temporary : entry.temporaries)
      temporaries.push(argJson(temporary));
    json.set("temporaries", std::move(temporaries));
  }
  return json;
}

} // namespace

JsonValue toJson(const QuantizerDesc &q) {
  JsonValue json = JsonValue::object({{"kind", q.kindName()}});
  const char *fp8 = layout::stringifyEncoding(q.fp8Dtype);
  switch (q.kind) {
  case QuantizerKind::Float8CurrentScaling:
    json.set("fp8_dtype", fp8);
    json.set("with_amax_reduction", q.withAmaxReduction);
    json.set("force_pow_2_scales", q.forcePow2Scales);
    json.set("amax_epsilon", q.amaxEpsilon);
    break;
  case QuantizerKind::Float8Delayed:
    json.set("fp8_dtype", fp8);
    break;
  case QuantizerKind::Float8Block:
    json.set("fp8_dtype", fp8);
    json.set("block_scaling_dim", q.blockScalingDim);
    json.set("force_pow_2_scales", q.forcePow2Scales);
    json.set("amax_epsilon", q.amaxEpsilon);
    break;
  case QuantizerKind::MXFP8:
    json.set("fp8_dtype", fp8);
    json.set("with_2d_quantization", q.with2DQuantization);
    break;
  case QuantizerKind::NVFP4:
    json.set("with_rht", q.withRht);
    json.set("with_2d_quantization", q.with2DQuantization);
    json.set("stochastic_rounding", q.stochasticRounding);
    json.set("with_post_rht_amax", q.withPostRhtAmax);
    json.set("with_random_sign_mask", q.withRandomSignMask);
    json.set("nvfp4_use_4over6", q.nvfp4Use4over6);
    json.set("row_scaled_nvfp4", q.rowScaledNVFP4);
    json.set("with_amax_reduction", q.withAmaxReduction);
    break;
  }
  return json;
}

JsonValue toJson(const ComputedBy &by) {
  JsonValue json = JsonValue::object({{"op", by.opName()}});
  auto name = [&](const char *key, const std::string &value) {
    if (!value.empty())
      json.set(key, value);
  };
  auto list = [&](const char *key, const std::vector<int64_t> &values) {
    json.set(key, shapeJson(values));
  };
  switch (by.op) {
  case ComputeOp::Quantize:
  case ComputeOp::RecordAmax:
    name("input", by.input);
    name("scale", by.scale);
    name("amax_history", by.amaxHistory);
    name("rng_state", by.rngState);
    if (by.op == ComputeOp::Quantize && by.group >= 0)
      json.set("amax_group", by.group);
    break;
  case ComputeOp::AllGather:
  case ComputeOp::ReduceScatter:
  case ComputeOp::AllReduce:
    name("input", by.input);
    json.set("group", by.group);
    break;
  case ComputeOp::DelayedScalingUpdate:
    json.set("output", by.outputsScale ? "scale" : "amax_history");
    name("scale", by.scale);
    name("amax_history", by.amaxHistory);
    json.set("fp8_max", by.fp8Max);
    json.set("margin", by.margin);
    json.set("amax_compute_algo", by.mostRecentAmax ? "most_recent" : "max");
    if (by.group >= 0)
      json.set("amax_group", by.group);
    break;
  case ComputeOp::Gemm:
    json.set("gemm", by.gemm);
    json.set("output", by.outputsD ? "d" : "dbias");
    json.set("layout", by.layoutName());
    name("a", by.a);
    name("b", by.b);
    json.set("use_split_accumulator", by.useSplitAccumulator);
    name("bias", by.bias);
    name("accumulate", by.accumulate);
    break;
  case ComputeOp::BiasGrad:
  case ComputeOp::Copy:
  case ComputeOp::UpdateUsage:
  case ComputeOp::SwizzleScales:
  case ComputeOp::Dequantize:
    name("input", by.input);
    break;
  case ComputeOp::LayerNorm:
  case ComputeOp::LayerNormBackward:
  case ComputeOp::RMSNorm:
  case ComputeOp::RMSNormBackward:
    json.set("output", by.normOutput);
    name("dy", by.dy);
    name("x", by.x);
    name("mean", by.mean);
    name("rstd", by.rstd);
    name("gamma", by.gamma);
    name("beta", by.beta);
    name("add", by.add);
    if (by.op == ComputeOp::LayerNorm || by.op == ComputeOp::RMSNorm)
      json.set("eps", by.eps);
    json.set("zero_centered_gamma", by.zeroCenteredGamma);
    break;
  case ComputeOp::ExtractSlice:
  case ComputeOp::InsertSlice:
    list("offsets", by.offsets);
    list("sizes", by.sizes);
    list("strides", by.strides);
    name("input", by.input);
    name("dest", by.dest);
    break;
  case ComputeOp::Constant:
    json.set("value", by.value);
    break;
  case ComputeOp::Concat:
  case ComputeOp::Elementwise: {
    JsonValue inputs = JsonValue::array();
    for (const std::string &input : by.inputs)
      inputs.push(input);
    json.set("inputs", std::move(inputs));
    break;
  }
  }
  return json;
}

JsonValue toJson(const GemmAlgoSpec &algo) {
  return JsonValue::object({{"id", algo.id},
                            {"tile", algo.tile},
                            {"stages", algo.stages},
                            {"splitk", algo.splitK},
                            {"reduction", algo.reduction},
                            {"swizzle", algo.swizzle},
                            {"custom", algo.custom},
                            {"inner_shape", algo.innerShape},
                            {"cluster_shape", algo.clusterShape}});
}

JsonValue toJson(const GemmSpec &g) {
  JsonValue json = JsonValue::object(
      {{"id", g.id},
       {"name", g.name},
       {"m", g.m},
       {"n", g.n},
       {"k", g.k},
       {"transa", g.transa},
       {"transb", g.transb},
       {"a_type", stringifyGemmType(g.aType)},
       {"b_type", stringifyGemmType(g.bType)},
       {"d_type", stringifyGemmType(g.dType)},
       {"lda", g.lda},
       {"ldb", g.ldb},
       {"ldd", g.ldd},
       {"a_scale_mode", stringifyGemmScaleMode(g.aScaleMode)},
       {"b_scale_mode", stringifyGemmScaleMode(g.bScaleMode)},
       {"epilogue", stringifyGemmEpilogue(g.epilogue)},
       {"accumulate", g.accumulate},
       {"fast_accum", g.fastAccum},
       {"alpha", g.alphaOnDevice ? "device" : "host"},
       {"compute_type", g.fastTf32 ? "32f_fast_tf32" : "32f"}});
  if (g.epilogue != GemmEpilogue::Default)
    json.set("bias_type", stringifyGemmType(g.biasType));
  if (g.hasAlgo)
    json.set("algo", toJson(g.algo));
  if (g.sharesPlanOf >= 0)
    json.set("shares_plan_of", g.sharesPlanOf);
  return json;
}

std::string writeManifest(const Manifest &manifest) {
  JsonValue entries = JsonValue::array();
  for (const EntrySpec &entry : manifest.entries)
    entries.push(entryJson(entry));
  JsonValue json =
      JsonValue::object({{"format", manifest.format},
                         {"version", manifest.version},
                         {"target", manifest.target.name},
                         {"device_code",
                          stringifyDeviceCode(manifest.deviceCode)},
                         {"entries", std::move(entries)}});
  if (!manifest.gemms.empty()) {
    JsonValue gemms = JsonValue::array();
    for (const GemmSpec &gemm : manifest.gemms)
      gemms.push(toJson(gemm));
    json.set("gemms", std::move(gemms));
  }
  if (!manifest.dependentLaunchKernels.empty()) {
    JsonValue kernels = JsonValue::array();
    for (const std::string &kernel : manifest.dependentLaunchKernels)
      kernels.push(kernel);
    json.set("dependent_launch_kernels", std::move(kernels));
  }
  sortKeys(json);
  return json.serialize();
}

} // namespace mlir::teq::artifact

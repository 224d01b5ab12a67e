//===- ManifestTest.cpp - Manifest parsing, validation and targets --------===//

#include "teq/Runtime/Manifest.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace mlir::teq::runtime;

namespace {

/// The example of docs/Artifact.md.
const char *kExample = R"json({
  "format": "teq-artifact",
  "version": 1,
  "target": "sm_90",
  "device_code": "ptx",
  "entries": [
    {
      "name": "quantize_current",
      "symbol": "teq_entry_quantize_current",
      "args": [
        {"name": "x", "kind": "input", "tensor": {"dtype": "bf16", "shape": [128, 256]}},
        {"name": "result0", "kind": "output",
         "proto": {
           "dtype": "bf16", "shape": [128, 256],
           "quantizer": {"kind": "float8_current_scaling", "fp8_dtype": "e4m3",
                         "force_pow_2_scales": false, "amax_epsilon": 0.0},
           "usage": "rowwise|columnwise", "scale_layout": "compact",
           "text": "!teq.proto<128x256xbf16, #teq.float8_current_scaling_quantizer<f8E4M3FN>, rowwise|columnwise>"},
         "buffers": [
           {"name": "data", "encoding": "e4m3", "shape": [128, 256], "valid_shape": [128, 256], "bytes": 32768},
           {"name": "transpose", "encoding": "e4m3", "shape": [256, 128], "valid_shape": [256, 128], "bytes": 32768, "transposed": true},
           {"name": "scale_inv", "encoding": "f32", "shape": [1], "valid_shape": [1], "bytes": 4}
         ],
         "computed_by": {"op": "quantize", "input": "x"}}
      ]
    }
  ]
})json";

/// kExample with the first occurrence of `from` replaced by `to`.
std::string edited(const std::string &from, const std::string &to) {
  std::string text = kExample;
  size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos)
    text.replace(pos, from.size(), to);
  return text;
}

std::string errorOf(const std::string &text) {
  auto manifest = parseManifest(text);
  EXPECT_FALSE(manifest.ok());
  return manifest.ok() ? std::string() : manifest.message();
}

TEST(ManifestTest, ParsesTheDocumentedExample) {
  auto manifest = parseManifest(kExample);
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  EXPECT_EQ(manifest->format, "teq-artifact");
  EXPECT_EQ(manifest->version, 1);
  EXPECT_EQ(manifest->target.sm, 90);
  EXPECT_EQ(manifest->target.name, "sm_90");
  EXPECT_EQ(manifest->deviceCode, DeviceCodeKind::PTX);
  ASSERT_EQ(manifest->entries.size(), 1u);

  const EntrySpec &entry = manifest->entries[0];
  EXPECT_EQ(entry.name, "quantize_current");
  EXPECT_EQ(entry.symbol, "teq_entry_quantize_current");
  ASSERT_EQ(entry.args.size(), 2u);
  EXPECT_EQ(manifest->findEntry("quantize_current"), &entry);
  EXPECT_EQ(manifest->findEntry("nope"), nullptr);

  const ArgSpec &x = entry.args[0];
  EXPECT_EQ(x.kind, ArgKind::Input);
  EXPECT_FALSE(x.isProto);
  EXPECT_EQ(x.tensor.dtype, "bf16");
  EXPECT_EQ(x.tensor.shape, (std::vector<int64_t>{128, 256}));
  ASSERT_EQ(x.buffers.size(), 1u);
  EXPECT_EQ(x.buffers[0].bytes, 65536);
  EXPECT_TRUE(x.computedBy.isNull());

  const ArgSpec &r = entry.args[1];
  EXPECT_EQ(r.kind, ArgKind::Output);
  EXPECT_TRUE(r.isProto);
  EXPECT_EQ(r.proto.quantizerKind, "float8_current_scaling");
  EXPECT_EQ(r.proto.quantizer.find("fp8_dtype")->asString(), "e4m3");
  EXPECT_TRUE(r.proto.hasRowwise());
  EXPECT_TRUE(r.proto.hasColumnwise());
  EXPECT_EQ(r.proto.scaleLayout, "compact");
  ASSERT_EQ(r.buffers.size(), 3u);
  EXPECT_EQ(r.buffers[1].name, "transpose");
  EXPECT_TRUE(r.buffers[1].transposed);
  EXPECT_FALSE(r.buffers[0].transposed);
  EXPECT_EQ(r.buffers[2].encoding, "f32");
  EXPECT_EQ(r.computedBy.find("op")->asString(), "quantize");

  // Flat buffer list: x.data, result0.{data, transpose, scale_inv}.
  ASSERT_EQ(entry.numBuffers(), 4u);
  EXPECT_EQ(entry.flatBuffers[2].arg, 1u);
  EXPECT_EQ(entry.flatBuffers[2].buffer, 1u);
  EXPECT_EQ(entry.buffer(3).name, "scale_inv");
  EXPECT_EQ(entry.bytesMoved(), 65536 + 32768 + 32768 + 4);
}

TEST(ManifestTest, DefaultsAndUnknownKeys) {
  auto manifest = parseManifest(R"({"format": "teq-artifact", "version": 1,
    "target": "sm_100a", "device_code": "cubin", "extra": {"x": [1]},
    "entries": [{"name": "e", "args": [
      {"name": "s", "kind": "inout", "tensor": {"dtype": "f32", "shape": []},
       "note": "unknown keys are ignored"},
      {"name": "p", "kind": "output", "proto": {"dtype": "f16", "shape": [3],
        "quantizer": {"kind": "k"}, "usage": "columnwise"},
       "buffers": [{"name": "d", "encoding": "e2m1x2", "shape": [2], "bytes": 2}]}]}]})");
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  EXPECT_EQ(manifest->target.sm, 100);
  EXPECT_EQ(manifest->target.suffix, 'a');
  EXPECT_EQ(manifest->deviceCode, DeviceCodeKind::Cubin);
  const EntrySpec &entry = manifest->entries[0];
  EXPECT_EQ(entry.symbol, "teq_entry_e");
  EXPECT_EQ(entry.args[0].kind, ArgKind::InOut);
  EXPECT_EQ(entry.args[0].buffers[0].bytes, 4); // rank 0: one element
  EXPECT_FALSE(entry.args[1].proto.hasRowwise());
  EXPECT_EQ(entry.args[1].buffers[0].validShape, (std::vector<int64_t>{2}));
  EXPECT_EQ(entry.bytesMoved(), 2 * 4 + 2); // inout counts twice
}

TEST(ManifestTest, TopLevelErrors) {
  EXPECT_EQ(errorOf("[]"), "manifest: expected a JSON object, got an array");
  EXPECT_EQ(errorOf("{"),
            "manifest: invalid JSON at line 1, column 2: unexpected end of "
            "input, expected a key");
  EXPECT_EQ(errorOf(edited("\"format\": \"teq-artifact\",", "")),
            "manifest: missing \"format\"");
  EXPECT_EQ(errorOf(edited("\"teq-artifact\"", "\"onnx\"")),
            "manifest: format: unknown format \"onnx\" (expected "
            "\"teq-artifact\")");
  EXPECT_EQ(errorOf(edited("\"version\": 1", "\"version\": 2")),
            "manifest: version: unsupported version 2 (this runtime reads "
            "version 1)");
  EXPECT_EQ(errorOf(edited("\"version\": 1", "\"version\": \"1\"")),
            "manifest: version: expected an integer, got a string");
  EXPECT_EQ(errorOf(edited("\"sm_90\"", "\"hopper\"")),
            "manifest: target: invalid target 'hopper' (expected sm_<compute "
            "capability>, e.g. sm_90)");
  EXPECT_EQ(errorOf(edited("\"ptx\"", "\"spirv\"")),
            "manifest: device_code: unknown device code \"spirv\" (expected "
            "ptx or cubin)");
  EXPECT_EQ(errorOf(edited("\"entries\": [", "\"entries\": {\"a\": [")
                        .append("}")),
            "manifest: entries: expected an array, got an object");
}

TEST(ManifestTest, DependentLaunchKernels) {
  auto none = parseManifest(kExample);
  ASSERT_TRUE(none.ok()) << none.message();
  EXPECT_TRUE(none->dependentLaunchKernels.empty());
  auto some = parseManifest(edited(
      "\"device_code\": \"ptx\",",
      "\"device_code\": \"ptx\", \"dependent_launch_kernels\": "
      "[\"q0_nvfp4\", \"q1_nvfp4_row\"],"));
  ASSERT_TRUE(some.ok()) << some.message();
  EXPECT_EQ(some->dependentLaunchKernels,
            (std::set<std::string>{"q0_nvfp4", "q1_nvfp4_row"}));
  EXPECT_EQ(errorOf(edited("\"device_code\": \"ptx\",",
                           "\"device_code\": \"ptx\", "
                           "\"dependent_launch_kernels\": \"q0_nvfp4\",")),
            "manifest: dependent_launch_kernels: expected an array, got a "
            "string");
  EXPECT_EQ(errorOf(edited("\"device_code\": \"ptx\",",
                           "\"device_code\": \"ptx\", "
                           "\"dependent_launch_kernels\": [\"a\", 3],")),
            "manifest: dependent_launch_kernels[1]: expected a kernel name (a "
            "string), got a number");
  EXPECT_EQ(errorOf(edited("\"device_code\": \"ptx\",",
                           "\"device_code\": \"ptx\", "
                           "\"dependent_launch_kernels\": [\"\"],")),
            "manifest: dependent_launch_kernels[0]: empty kernel name");
}

TEST(ManifestTest, ErrorsNameTheJsonPath) {
  EXPECT_EQ(errorOf(edited("\"shape\": [128, 256]}},", "\"shap\": [128, 256]}},")),
            "manifest: entries[0].args[0].tensor: missing \"shape\"");
  EXPECT_EQ(errorOf(edited("\"dtype\": \"bf16\", \"shape\": [128, 256],",
                           "\"dtype\": \"bf16\", \"shape\": [128, \"256\"],")),
            "manifest: entries[0].args[1].proto.shape[1]: expected an integer, "
            "got a string");
  EXPECT_EQ(errorOf(edited("\"shape\": [128, 256]}}", "\"shape\": [-1, 256]}}")),
            "manifest: entries[0].args[0].tensor.shape[0]: negative dimension "
            "-1");
  EXPECT_EQ(errorOf(edited("\"kind\": \"input\"", "\"kind\": \"in\"")),
            "manifest: entries[0].args[0].kind: unknown kind \"in\" (expected "
            "input, output or inout)");
  EXPECT_EQ(errorOf(edited("\"tensor\": {", "\"proto\": {}, \"tensor\": {")),
            "manifest: entries[0].args[0]: has both \"tensor\" and \"proto\"");
  EXPECT_EQ(errorOf(edited("\"tensor\": {", "\"tensr\": {")),
            "manifest: entries[0].args[0]: missing \"tensor\" or \"proto\"");
  EXPECT_EQ(errorOf(edited("{\"dtype\": \"bf16\", \"shape\": [128, 256]}}",
                           "{\"dtype\": \"f64\", \"shape\": [128, 256]}}")),
            "manifest: entries[0].args[0].tensor.dtype: unknown dtype \"f64\" "
            "(expected f32, bf16, f16 or i64)");
  EXPECT_EQ(errorOf(edited("\"bytes\": 32768}", "\"bytes\": 32769}")),
            "manifest: entries[0].args[1].buffers[0].bytes: 32769 does not "
            "match e4m3[128, 256] (32768 bytes)");
  EXPECT_EQ(errorOf(edited("\"encoding\": \"e4m3\"", "\"encoding\": \"fp8\"")),
            "manifest: entries[0].args[1].buffers[0].encoding: unknown "
            "encoding \"fp8\" (expected f32, e4m3, e5m2, e8m0 or e2m1x2)");
  EXPECT_EQ(errorOf(edited("\"valid_shape\": [128, 256]", "\"valid_shape\": [129, 256]")),
            "manifest: entries[0].args[1].buffers[0].valid_shape: [129, 256] "
            "exceeds \"shape\" [128, 256]");
  EXPECT_EQ(errorOf(edited("\"valid_shape\": [128, 256]", "\"valid_shape\": [128]")),
            "manifest: entries[0].args[1].buffers[0].valid_shape: rank 1 "
            "differs from the rank 2 of \"shape\"");
  EXPECT_EQ(errorOf(edited("\"transposed\": true", "\"transposed\": 1")),
            "manifest: entries[0].args[1].buffers[1].transposed: expected a "
            "boolean, got a number");
  EXPECT_EQ(errorOf(edited("\"name\": \"transpose\"", "\"name\": \"data\"")),
            "manifest: entries[0].args[1].buffers[1].name: duplicate buffer "
            "name \"data\"");
  EXPECT_EQ(errorOf(edited("\"usage\": \"rowwise|columnwise\"",
                           "\"usage\": \"rowwise|both\"")),
            "manifest: entries[0].args[1].proto.usage: invalid usage "
            "\"rowwise|both\" (expected rowwise, columnwise or "
            "rowwise|columnwise)");
  EXPECT_EQ(errorOf(edited("\"quantizer\": {\"kind\": \"float8_current_scaling\",",
                           "\"quantizer\": {")),
            "manifest: entries[0].args[1].proto.quantizer: missing \"kind\"");
  EXPECT_EQ(errorOf(edited("\"buffers\": [", "\"bufs\": [")),
            "manifest: entries[0].args[1]: missing \"buffers\"");
  EXPECT_EQ(errorOf(edited("\"computed_by\": {\"op\": \"quantize\",",
                           "\"computed_by\": {")),
            "manifest: entries[0].args[1].computed_by: missing \"op\"");
  EXPECT_EQ(errorOf(edited("{\"name\": \"result0\"", "{\"name\": \"x\"")),
            "manifest: entries[0].args[1].name: duplicate argument name \"x\"");
  EXPECT_EQ(errorOf(edited("\"name\": \"quantize_current\"", "\"name\": \"\"")),
            "manifest: entries[0].name: must not be empty");
  EXPECT_EQ(errorOf(edited("\"args\": [", "\"args\": 3, \"old\": [")),
            "manifest: entries[0].args: expected an array, got a number");
}

TEST(ManifestTest, DuplicateEntries) {
  std::string text = kExample;
  size_t start = text.find("    {\n      \"name\": \"quantize_current\"");
  size_t end = text.rfind("    }\n  ]");
  ASSERT_NE(start, std::string::npos);
  std::string entry = text.substr(start, end + 5 - start);
  text.insert(end + 5, ",\n" + entry);
  EXPECT_EQ(errorOf(text),
            "manifest: entries[1].name: duplicate entry name "
            "\"quantize_current\"");
}

TEST(GpuTargetTest, Parse) {
  auto sm90 = GpuTarget::parse("sm_90");
  ASSERT_TRUE(sm90.ok());
  EXPECT_EQ(sm90->sm, 90);
  EXPECT_EQ(sm90->major(), 9);
  EXPECT_EQ(sm90->minor(), 0);
  EXPECT_EQ(sm90->suffix, 0);
  auto sm120f = GpuTarget::parse("sm_120f");
  ASSERT_TRUE(sm120f.ok());
  EXPECT_EQ(sm120f->sm, 120);
  EXPECT_EQ(sm120f->major(), 12);
  EXPECT_EQ(sm120f->suffix, 'f');
  for (const char *bad : {"", "sm_", "sm_9", "sm_090", "sm_90b", "sm_90aa",
                          "compute_90", "SM_90", "sm_12345"})
    EXPECT_FALSE(GpuTarget::parse(bad).ok()) << bad;
  EXPECT_EQ(GpuTarget::parse("sm_9x").message(),
            "invalid target 'sm_9x' (expected sm_<compute capability>, e.g. "
            "sm_90)");
}

TEST(GpuTargetTest, Compatibility) {
  auto target = [](const char *name) { return *GpuTarget::parse(name); };
  const auto ptx = DeviceCodeKind::PTX, cubin = DeviceCodeKind::Cubin;
  // PTX is JIT-compiled forward.
  EXPECT_TRUE(isTargetCompatible(target("sm_90"), ptx, 90));
  EXPECT_TRUE(isTargetCompatible(target("sm_90"), ptx, 100));
  EXPECT_TRUE(isTargetCompatible(target("sm_89"), ptx, 90));
  EXPECT_FALSE(isTargetCompatible(target("sm_100"), ptx, 90));
  // Architecture-specific code runs on that device only.
  EXPECT_TRUE(isTargetCompatible(target("sm_90a"), ptx, 90));
  EXPECT_FALSE(isTargetCompatible(target("sm_90a"), ptx, 100));
  EXPECT_FALSE(isTargetCompatible(target("sm_100a"), cubin, 103));
  // Family code: same major, minor at least the target's.
  EXPECT_TRUE(isTargetCompatible(target("sm_100f"), ptx, 103));
  EXPECT_FALSE(isTargetCompatible(target("sm_100f"), ptx, 120));
  // Cubin: same major.
  EXPECT_TRUE(isTargetCompatible(target("sm_80"), cubin, 86));
  EXPECT_FALSE(isTargetCompatible(target("sm_86"), cubin, 80));
  EXPECT_FALSE(isTargetCompatible(target("sm_90"), cubin, 100));
}

} // namespace

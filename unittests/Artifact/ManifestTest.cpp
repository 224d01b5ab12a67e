//===- ManifestTest.cpp - Manifest parsing, validation and targets --------===//

#include "teq/Artifact/Manifest.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace mlir::teq::artifact;

namespace {

/// The example of docs/Artifact.md.
const char *kExample = R"json({
  "format": "teq-artifact",
  "version": 2,
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
  EXPECT_EQ(manifest->version, 2);
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
  EXPECT_FALSE(x.computedBy.has_value());

  const ArgSpec &r = entry.args[1];
  EXPECT_EQ(r.kind, ArgKind::Output);
  EXPECT_TRUE(r.isProto);
  EXPECT_STREQ(r.proto.quantizerKind(), "float8_current_scaling");
  EXPECT_EQ(r.proto.quantizer.kind, QuantizerKind::Float8CurrentScaling);
  EXPECT_EQ(r.proto.quantizer.fp8Dtype, mlir::teq::layout::Encoding::E4M3);
  EXPECT_TRUE(r.proto.hasRowwise());
  EXPECT_TRUE(r.proto.hasColumnwise());
  EXPECT_EQ(r.proto.scaleLayout, "compact");
  ASSERT_EQ(r.buffers.size(), 3u);
  EXPECT_EQ(r.buffers[1].name, "transpose");
  EXPECT_TRUE(r.buffers[1].transposed);
  EXPECT_FALSE(r.buffers[0].transposed);
  EXPECT_EQ(r.buffers[2].encoding, "f32");
  ASSERT_TRUE(r.computedBy.has_value());
  EXPECT_EQ(r.computedBy->op, ComputeOp::Quantize);
  EXPECT_EQ(r.computedBy->input, "x");

  // Flat buffer list: x.data, result0.{data, transpose, scale_inv}.
  ASSERT_EQ(entry.numBuffers(), 4u);
  EXPECT_EQ(entry.flatBuffers[2].arg, 1u);
  EXPECT_EQ(entry.flatBuffers[2].buffer, 1u);
  EXPECT_EQ(entry.buffer(3).name, "scale_inv");
  EXPECT_EQ(entry.bytesMoved(), 65536 + 32768 + 32768 + 4);
}

TEST(ManifestTest, DefaultsAndUnknownKeys) {
  // An f16 [4, 32] NVFP4 tensor, columnwise only, on sm_100a: data [32, 2]
  // (two values a byte), swizzled-size E4M3 scales, its amax.
  auto manifest = parseManifest(R"({"format": "teq-artifact", "version": 1,
    "target": "sm_100a", "device_code": "cubin", "extra": {"x": [1]},
    "entries": [{"name": "e", "args": [
      {"name": "s", "kind": "inout", "tensor": {"dtype": "f32", "shape": []},
       "note": "unknown keys are ignored"},
      {"name": "p", "kind": "output", "proto": {"dtype": "f16", "shape": [4, 32],
        "quantizer": {"kind": "nvfp4", "future_field": 1}, "usage": "columnwise"},
       "buffers": [
         {"name": "columnwise_data", "encoding": "e2m1x2", "shape": [32, 2],
          "bytes": 64, "transposed": true},
         {"name": "columnwise_scale_inv", "encoding": "e4m3", "shape": [128, 4],
          "valid_shape": [32, 1], "bytes": 512, "scale_layout": "compact"},
         {"name": "amax_columnwise", "encoding": "f32", "shape": [1], "bytes": 4}]}]}]})");
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  EXPECT_EQ(manifest->target.sm, 100);
  EXPECT_EQ(manifest->target.suffix, 'a');
  EXPECT_EQ(manifest->deviceCode, DeviceCodeKind::Cubin);
  const EntrySpec &entry = manifest->entries[0];
  EXPECT_EQ(entry.symbol, "teq_entry_e");
  EXPECT_EQ(entry.args[0].kind, ArgKind::InOut);
  EXPECT_EQ(entry.args[0].buffers[0].bytes, 4); // rank 0: one element
  EXPECT_FALSE(entry.args[1].proto.hasRowwise());
  EXPECT_EQ(entry.args[1].buffers[0].validShape,
            (std::vector<int64_t>{32, 2}));
  EXPECT_EQ(entry.bytesMoved(), 2 * 4 + 64 + 512 + 4); // inout counts twice
}

TEST(ManifestTest, ArgumentRoles) {
  // "role"/"of" are read, written back, and optional (the example has none).
  auto manifest = parseManifest(edited(
      R"({"name": "x", "kind": "input",)",
      R"({"name": "x", "kind": "input", "role": "grad_output", "of": "y",)"));
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  const ArgSpec &x = manifest->entries[0].args[0];
  EXPECT_EQ(x.role, "grad_output");
  EXPECT_EQ(x.roleOf, "y");
  EXPECT_EQ(manifest->entries[0].args[1].role, "");
  EXPECT_EQ(manifest->entries[0].args[1].roleOf, "");
  const std::string written = writeManifest(*manifest);
  EXPECT_NE(written.find(R"("of":"y","role":"grad_output")"), std::string::npos)
      << written;
  auto again = parseManifest(written);
  ASSERT_TRUE(again.ok()) << again.message();
  EXPECT_EQ(again->entries[0].args[0].roleOf, "y");
  // Without a role nothing is written.
  auto plain = parseManifest(kExample);
  ASSERT_TRUE(plain.ok()) << plain.message();
  EXPECT_EQ(writeManifest(*plain).find(R"("role")"), std::string::npos);

  auto withRole = [](const std::string &keys) {
    return edited(R"({"name": "x", "kind": "input",)",
                  R"({"name": "x", "kind": "input", )" + keys + ",");
  };
  EXPECT_NE(errorOf(withRole(R"("role": "weight")"))
                .find("entries[0].args[0].role: unknown role \"weight\" "
                      "(expected input, parameter, output, saved, state, "
                      "state_update, grad_output, grad, main_grad, quantized_weight)"),
            std::string::npos)
      << errorOf(withRole(R"("role": "weight")"));
  EXPECT_NE(errorOf(withRole(R"("role": "")")).find("unknown role \"\""),
            std::string::npos);
  EXPECT_NE(errorOf(withRole(R"("role": 3)")).find("entries[0].args[0].role"),
            std::string::npos);
  EXPECT_NE(errorOf(withRole(R"("role": "input", "of": "y")"))
                .find("role \"input\" names no other value"),
            std::string::npos);
  EXPECT_NE(errorOf(withRole(R"("of": "y")"))
                .find("\"of\" without a \"role\""),
            std::string::npos);
  EXPECT_NE(errorOf(withRole(R"("role": "grad", "of": "")"))
                .find("entries[0].args[0].of: is empty"),
            std::string::npos);
  for (const char *role : {"input", "parameter", "output", "saved", "state",
                           "state_update", "grad_output", "grad",
                           "main_grad"}) {
    auto ok = parseManifest(withRole(std::string(R"("role": ")") + role + "\""));
    EXPECT_TRUE(ok.ok()) << role << ": " << ok.message();
  }
}

/// A training forward that saves its input x and its quantized weight q as
/// themselves: outputs with "alias_of", which have no buffers.
const char *kAliases = R"json({
  "format": "teq-artifact", "version": 2, "target": "sm_90",
  "device_code": "ptx",
  "entries": [{"name": "fwd", "args": [
    {"name": "x", "kind": "input", "tensor": {"dtype": "bf16", "shape": [64, 128]}},
    {"name": "q", "kind": "input",
     "proto": {"dtype": "bf16", "shape": [64, 128],
               "quantizer": {"kind": "float8_current_scaling", "fp8_dtype": "e4m3"},
               "usage": "rowwise", "scale_layout": "compact"},
     "buffers": [
       {"name": "data", "encoding": "e4m3", "shape": [64, 128], "bytes": 8192},
       {"name": "scale_inv", "encoding": "f32", "shape": [1], "bytes": 4}]},
    {"name": "y", "kind": "output", "tensor": {"dtype": "bf16", "shape": [64, 128]},
     "computed_by": {"op": "copy", "input": "x"}},
    {"name": "saved_x", "kind": "output", "role": "saved", "of": "x",
     "alias_of": "x", "tensor": {"dtype": "bf16", "shape": [64, 128]}},
    {"name": "saved_q", "kind": "output", "alias_of": "q",
     "proto": {"dtype": "bf16", "shape": [64, 128],
               "quantizer": {"kind": "float8_current_scaling", "fp8_dtype": "e4m3"},
               "usage": "rowwise", "scale_layout": "compact"}}]}]})json";

std::string editedAliases(const std::string &from, const std::string &to) {
  std::string text = kAliases;
  size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos)
    text.replace(pos, from.size(), to);
  return text;
}

TEST(ManifestTest, AliasOutputsHaveNoBuffers) {
  auto manifest = parseManifest(kAliases);
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  const EntrySpec &entry = manifest->entries[0];
  const ArgSpec &savedX = entry.args[3], &savedQ = entry.args[4];
  EXPECT_EQ(savedX.kind, ArgKind::Output);
  EXPECT_EQ(savedX.aliasOf, "x");
  EXPECT_TRUE(savedX.isAlias());
  EXPECT_TRUE(savedX.buffers.empty());
  EXPECT_FALSE(savedX.computedBy.has_value());
  EXPECT_EQ(savedX.tensor.shape, (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(savedQ.aliasOf, "q");
  EXPECT_TRUE(savedQ.isProto);
  EXPECT_TRUE(savedQ.buffers.empty());
  EXPECT_FALSE(entry.args[2].isAlias());
  // The call takes x, q's two buffers and y: nothing for the aliases.
  ASSERT_EQ(entry.numBuffers(), 4u);
  EXPECT_EQ(entry.flatBuffers[3].arg, 2u);
  EXPECT_EQ(entry.bytesMoved(), 16384 + 8192 + 4 + 16384);
  // Written again: no buffers, the same document.
  auto again = parseManifest(writeManifest(*manifest));
  ASSERT_TRUE(again.ok()) << again.message();
  EXPECT_EQ(writeManifest(*again), writeManifest(*manifest));
  EXPECT_EQ(again->entries[0].args[4].aliasOf, "q");
  EXPECT_EQ(writeManifest(*manifest).find("\"buffers\"", writeManifest(
                                              *manifest).find("saved_q")),
            std::string::npos);
}

TEST(ManifestTest, AliasOutputErrors) {
  EXPECT_EQ(errorOf(editedAliases(R"("alias_of": "x")", R"("alias_of": "z")")),
            "manifest: entries[0].args[3].alias_of: 'z' is not an input "
            "argument of entry 'fwd'");
  EXPECT_EQ(errorOf(editedAliases(R"("alias_of": "x")", R"("alias_of": "y")")),
            "manifest: entries[0].args[3].alias_of: 'y' is not an input "
            "argument of entry 'fwd' (it is an output)");
  EXPECT_EQ(errorOf(editedAliases(R"("alias_of": "x")", R"("alias_of": "")")),
            "manifest: entries[0].args[3].alias_of: is empty");
  EXPECT_EQ(
      errorOf(editedAliases(R"("alias_of": "x", "tensor": {"dtype": "bf16")",
                            R"("alias_of": "x", "tensor": {"dtype": "f32")")),
      "manifest: entries[0].args[3].alias_of: output 'saved_x' "
      "(f32[64, 128]) is argument 'x' (bf16[64, 128]) itself: it has its "
      "type");
  EXPECT_EQ(errorOf(editedAliases(R"("alias_of": "q")", R"("alias_of": "x")")),
            "manifest: entries[0].args[4].alias_of: output 'saved_q' (proto "
            "bf16[64, 128] float8_current_scaling rowwise compact) is "
            "argument 'x' (bf16[64, 128]) itself: it has its type");
  EXPECT_EQ(errorOf(editedAliases(R"("name": "q", "kind": "input")",
                                  R"("name": "q", "kind": "inout")")),
            "manifest: entries[0].args[4].alias_of: 'q' is not an input "
            "argument of entry 'fwd' (it is an inout)");
  EXPECT_EQ(errorOf(editedAliases(R"("role": "saved", "of": "x",)",
                                  R"("computed_by": {"op": "copy", "input": "x"},)")),
            "manifest: entries[0].args[3].computed_by: an alias output is not "
            "computed (it is argument 'x')");
  EXPECT_EQ(errorOf(editedAliases(R"("alias_of": "q",)",
                                  R"("alias_of": "q", "buffers": [],)")),
            "manifest: entries[0].args[4].buffers: an alias output has no "
            "buffers of its own (it is argument 'q')");
  EXPECT_EQ(errorOf(editedAliases(R"("name": "x", "kind": "input",)",
                                  R"("name": "x", "kind": "input", "alias_of": "q",)")),
            "manifest: entries[0].args[0].alias_of: only an output is an alias "
            "of an argument, got kind \"input\"");
  EXPECT_EQ(errorOf(editedAliases(R"("version": 2)", R"("version": 1)")),
            "manifest: entries[0].args[3].alias_of: alias outputs need "
            "manifest version 2 (a version-1 runtime would expect buffers "
            "for them)");
  // A computed_by names the argument, not its alias.
  EXPECT_EQ(errorOf(editedAliases(R"("op": "copy", "input": "x")",
                                  R"("op": "copy", "input": "saved_x")")),
            "manifest: entries[0].args[2].computed_by.input: names 'saved_x', "
            "an alias of argument 'x': name 'x'");
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
  EXPECT_EQ(errorOf(edited("\"version\": 2", "\"version\": 3")),
            "manifest: version: unsupported version 3 (this runtime reads "
            "versions 1 and 2)");
  EXPECT_EQ(errorOf(edited("\"version\": 2", "\"version\": 0")),
            "manifest: version: unsupported version 0 (this runtime reads "
            "versions 1 and 2)");
  EXPECT_EQ(errorOf(edited("\"version\": 2", "\"version\": \"2\"")),
            "manifest: version: expected an integer, got a string");
  // Version 1 (no alias outputs) still reads.
  auto v1 = parseManifest(edited("\"version\": 2", "\"version\": 1"));
  ASSERT_TRUE(v1.ok()) << v1.message();
  EXPECT_EQ(v1->version, 1);
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

//===----------------------------------------------------------------------===//
// Complete validation: quantizers, layouts, sizes, names, computed_by
//===----------------------------------------------------------------------===//

/// A small program as te-compile describes it, every computed_by op te-run
/// recomputes: a GEMM of two quantized temporaries with a bias, its dbias
/// twin, an elementwise op, a bias gradient, and a delayed-scaling step
/// (slices, quantize with the stored scale, the update).
const char *kProgram = R"json({
  "format": "teq-artifact", "version": 1, "target": "sm_90",
  "device_code": "ptx",
  "gemms": [
    {"id": 0, "name": "fc1:fprop", "m": 256, "n": 64, "k": 128,
     "transa": true, "transb": false, "a_type": "e4m3", "b_type": "e4m3",
     "d_type": "bf16", "lda": 128, "ldb": 128, "ldd": 256,
     "a_scale_mode": "scalar_f32", "b_scale_mode": "scalar_f32",
     "epilogue": "bias", "bias_type": "bf16", "accumulate": false,
     "fast_accum": true, "alpha": "host", "compute_type": "32f"},
    {"id": 1, "name": "fc1:wgrad", "m": 128, "n": 256, "k": 64,
     "transa": false, "transb": true, "a_type": "bf16", "b_type": "bf16",
     "d_type": "f32", "lda": 128, "ldb": 256, "ldd": 128,
     "a_scale_mode": "none", "b_scale_mode": "none",
     "epilogue": "bgradb", "bias_type": "bf16", "accumulate": true,
     "fast_accum": false, "alpha": "host", "compute_type": "32f"}
  ],
  "entries": [
    {"name": "fwd", "symbol": "teq_entry_fwd", "workspace_bytes": 41472,
     "args": [
       {"name": "x", "kind": "input", "tensor": {"dtype": "bf16", "shape": [64, 128]}},
       {"name": "w", "kind": "input", "tensor": {"dtype": "bf16", "shape": [256, 128]}},
       {"name": "bias", "kind": "input", "tensor": {"dtype": "bf16", "shape": [256]}},
       {"name": "y", "kind": "output", "tensor": {"dtype": "bf16", "shape": [64, 256]},
        "computed_by": {"op": "gemm", "gemm": 0, "output": "d", "layout": "TN",
                        "a": "t1", "b": "view(t0)", "bias": "bias",
                        "use_split_accumulator": false}},
       {"name": "act", "kind": "output", "tensor": {"dtype": "bf16", "shape": [64, 256]},
        "computed_by": {"op": "math.tanh", "inputs": ["y"]}},
       {"name": "dy_sum", "kind": "output", "tensor": {"dtype": "f32", "shape": [256]},
        "computed_by": {"op": "bias_grad", "input": "y"}}
     ],
     "temporaries": [
       {"name": "t0", "kind": "temporary",
        "proto": {"dtype": "bf16", "shape": [64, 128],
                  "quantizer": {"kind": "float8_current_scaling", "fp8_dtype": "e4m3",
                                "with_amax_reduction": false, "force_pow_2_scales": false,
                                "amax_epsilon": 0.0},
                  "usage": "rowwise", "scale_layout": "compact"},
        "buffers": [
          {"name": "data", "encoding": "e4m3", "shape": [64, 128], "bytes": 8192},
          {"name": "scale_inv", "encoding": "f32", "shape": [1], "bytes": 4}],
        "computed_by": {"op": "quantize", "input": "x"}},
       {"name": "t1", "kind": "temporary",
        "proto": {"dtype": "bf16", "shape": [256, 128],
                  "quantizer": {"kind": "float8_current_scaling", "fp8_dtype": "e4m3"},
                  "usage": "rowwise", "scale_layout": "compact"},
        "buffers": [
          {"name": "data", "encoding": "e4m3", "shape": [256, 128], "bytes": 32768},
          {"name": "scale_inv", "encoding": "f32", "shape": [1], "bytes": 4}],
        "computed_by": {"op": "quantize", "input": "w"}}
     ]},
    {"name": "wgrad",
     "args": [
       {"name": "x", "kind": "input", "tensor": {"dtype": "bf16", "shape": [64, 128]}},
       {"name": "dy", "kind": "input", "tensor": {"dtype": "bf16", "shape": [64, 256]}},
       {"name": "dw", "kind": "inout", "tensor": {"dtype": "f32", "shape": [256, 128]}},
       {"name": "dw_new", "kind": "output", "tensor": {"dtype": "f32", "shape": [256, 128]},
        "computed_by": {"op": "gemm", "gemm": 1, "output": "d", "layout": "NT",
                        "a": "x", "b": "dy", "accumulate": "dw"}},
       {"name": "dbias", "kind": "output", "tensor": {"dtype": "bf16", "shape": [256]},
        "computed_by": {"op": "gemm", "gemm": 1, "output": "dbias", "layout": "NT",
                        "a": "x", "b": "dy"}}
     ]},
    {"name": "delayed", "workspace_bytes": 256,
     "args": [
       {"name": "x", "kind": "input", "tensor": {"dtype": "bf16", "shape": [16, 16]}},
       {"name": "scale", "kind": "input", "tensor": {"dtype": "f32", "shape": [3]}},
       {"name": "history", "kind": "input", "tensor": {"dtype": "f32", "shape": [16, 3]}},
       {"name": "q", "kind": "output",
        "proto": {"dtype": "bf16", "shape": [16, 16],
                  "quantizer": {"kind": "float8_delayed", "fp8_dtype": "e4m3"},
                  "usage": "rowwise", "scale_layout": "compact"},
        "buffers": [
          {"name": "data", "encoding": "e4m3", "shape": [16, 16], "bytes": 256},
          {"name": "scale_inv", "encoding": "f32", "shape": [1], "bytes": 4}],
        "computed_by": {"op": "quantize", "input": "x", "scale": "s0",
                        "amax_history": "h0"}},
       {"name": "history_out", "kind": "output", "tensor": {"dtype": "f32", "shape": [16, 3]},
        "computed_by": {"op": "tensor.insert_slice", "input": "h1", "dest": "history",
                        "offsets": [0, 0], "sizes": [16, 1], "strides": [1, 1]}},
       {"name": "scale_out", "kind": "output", "tensor": {"dtype": "f32", "shape": [3]},
        "computed_by": {"op": "delayed_scaling_update", "output": "scale",
                        "scale": "scale", "amax_history": "history_out",
                        "fp8_max": 448, "margin": -3, "amax_compute_algo": "max"}}
     ],
     "temporaries": [
       {"name": "s0", "kind": "temporary", "tensor": {"dtype": "f32", "shape": [1]},
        "computed_by": {"op": "tensor.extract_slice", "input": "scale",
                        "offsets": [0], "sizes": [1], "strides": [1]}},
       {"name": "h0", "kind": "temporary", "tensor": {"dtype": "f32", "shape": [16]},
        "computed_by": {"op": "tensor.extract_slice", "input": "history",
                        "offsets": [0, 0], "sizes": [16, 1], "strides": [1, 1]}},
       {"name": "h1", "kind": "temporary", "tensor": {"dtype": "f32", "shape": [16]},
        "computed_by": {"op": "record_amax", "input": "x", "scale": "s0",
                        "amax_history": "h0"}}
     ]}
  ]
})json";

/// kProgram with the first occurrence of `from` replaced by `to`.
std::string program(const std::string &from, const std::string &to) {
  std::string text = kProgram;
  size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos)
    text.replace(pos, from.size(), to);
  return text;
}

/// parseManifest's error for kProgram with `edits` applied in turn.
std::string programError(
    std::initializer_list<std::pair<std::string, std::string>> edits) {
  std::string text = kProgram;
  for (const auto &[from, to] : edits) {
    size_t pos = text.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    if (pos != std::string::npos)
      text.replace(pos, from.size(), to);
  }
  return errorOf(text);
}

TEST(ManifestValidationTest, TheProgramIsValid) {
  auto manifest = parseManifest(kProgram);
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  EXPECT_EQ(manifest->entries.size(), 3u);
  EXPECT_EQ(manifest->gemms.size(), 2u);
  EXPECT_EQ(manifest->entries[0].temporaries.size(), 2u);
}

TEST(ManifestValidationTest, Quantizers) {
  EXPECT_EQ(programError({{"\"kind\": \"float8_current_scaling\"",
                           "\"kind\": \"fp8\""}}),
            "manifest: entries[0].temporaries[0].proto.quantizer.kind: "
            "unknown quantizer kind \"fp8\" (expected float8_current_scaling, "
            "float8_delayed, float8_block, mxfp8 or nvfp4)");
  EXPECT_EQ(programError({{"\"fp8_dtype\": \"e4m3\",", ""}}),
            "manifest: entries[0].temporaries[0].proto.quantizer: missing "
            "\"fp8_dtype\" (a float8_current_scaling quantizer needs it)");
  EXPECT_EQ(programError({{"\"fp8_dtype\": \"e4m3\"", "\"fp8_dtype\": \"e3m4\""}}),
            "manifest: entries[0].temporaries[0].proto.quantizer.fp8_dtype: "
            "unknown FP8 type \"e3m4\" (expected e4m3 or e5m2)");
  EXPECT_EQ(programError({{"\"with_amax_reduction\": false",
                           "\"with_amax_reduction\": 0"}}),
            "manifest: entries[0].temporaries[0].proto.quantizer."
            "with_amax_reduction: expected a boolean, got a number");
  EXPECT_EQ(programError({{"\"amax_epsilon\": 0.0", "\"amax_epsilon\": -1"}}),
            "manifest: entries[0].temporaries[0].proto.quantizer.amax_epsilon: "
            "must be a finite number >= 0");
  EXPECT_EQ(programError({{"\"kind\": \"float8_current_scaling\", \"fp8_dtype\": "
                           "\"e4m3\",",
                           "\"kind\": \"float8_block\", \"fp8_dtype\": \"e4m3\", "
                           "\"block_scaling_dim\": 3,"}}),
            "manifest: entries[0].temporaries[0].proto.quantizer."
            "block_scaling_dim: must be 1 (1x128 blocks) or 2 (128x128 "
            "blocks), got 3");
  EXPECT_EQ(programError({{"\"scale_layout\": \"compact\"",
                           "\"scale_layout\": \"swizzled\""}}),
            "manifest: entries[0].temporaries[0].proto.scale_layout: unknown "
            "scale layout \"swizzled\" (expected compact or gemm_swizzled)");
  EXPECT_EQ(programError({{"\"usage\": \"rowwise\"",
                           "\"usage\": \"rowwise|rowwise\""}}),
            "manifest: entries[0].temporaries[0].proto.usage: invalid usage "
            "\"rowwise|rowwise\" (expected rowwise, columnwise or "
            "rowwise|columnwise)");
}

TEST(ManifestValidationTest, ProtoBuffersAreTheLayoutOfTheirType) {
  // Columnwise too: on sm_90 a per-tensor FP8 tensor gets a transpose.
  EXPECT_EQ(programError({{"\"usage\": \"rowwise\"",
                           "\"usage\": \"rowwise|columnwise\""}}),
            "manifest: entries[0].temporaries[0].buffers: lists 2 buffers, "
            "but the layout of bf16[64, 128] quantized by "
            "float8_current_scaling (rowwise|columnwise) on sm_90 has 3 "
            "(data, transpose, scale_inv)");
  EXPECT_EQ(programError({{"{\"name\": \"data\", \"encoding\": \"e4m3\", "
                           "\"shape\": [64, 128], \"bytes\": 8192}",
                           "{\"name\": \"data\", \"encoding\": \"e5m2\", "
                           "\"shape\": [64, 128], \"bytes\": 8192}"}}),
            "manifest: entries[0].temporaries[0].buffers[0]: is 'data' "
            "e5m2[64, 128] (8192 bytes), but the layout of bf16[64, 128] "
            "quantized by float8_current_scaling (rowwise) on sm_90 has "
            "'data' e4m3[64, 128] (8192 bytes) there");
  // Rank 0 is a scalar: legal for a tensor, but the buffers of a rank-0
  // proto are those of a scalar.
  EXPECT_EQ(programError({{"\"shape\": [64, 128],\n                  "
                           "\"quantizer\"",
                           "\"shape\": [],\n                  \"quantizer\""}}),
            "manifest: entries[0].temporaries[0].buffers[0]: is 'data' "
            "e4m3[64, 128] (8192 bytes), but the layout of bf16[] quantized "
            "by float8_current_scaling (rowwise) on sm_90 has 'data' e4m3[] "
            "(1 byte) there");
  EXPECT_EQ(programError({{"\"shape\": [64, 128],\n                  "
                           "\"quantizer\"",
                           "\"shape\": [64, 0],\n                  \"quantizer\""}}),
            "manifest: entries[0].temporaries[0].proto: cannot be laid out: "
            "dimension 1 is 0; quantized tensors need positive dimensions");
}

TEST(ManifestValidationTest, SizesAndNames) {
  EXPECT_EQ(programError({{"\"workspace_bytes\": 41472",
                           "\"workspace_bytes\": 9223372036854775808"}}),
            "manifest: entries[0].workspace_bytes: integer out of range: "
            "9223372036854775808");
  EXPECT_EQ(programError({{"\"workspace_bytes\": 41472",
                           "\"workspace_bytes\": 281474976710657"}}),
            "manifest: entries[0].workspace_bytes: 281474976710657 bytes is "
            "more than a workspace can have (2^48)");
  EXPECT_EQ(programError({{"\"workspace_bytes\": 41472",
                           "\"workspace_bytes\": 32768"}}),
            "manifest: entries[0].temporaries[1]: temporary 't1' has 32772 "
            "bytes, but the entry's workspace_bytes is 32768");
  EXPECT_EQ(programError({{"\"shape\": [64, 128]}}",
                           "\"shape\": [2147483648, 2147483648]}}"}}),
            "manifest: entries[0].args[0].tensor.shape: [2147483648, "
            "2147483648] is too large: more than 2^48 bytes");
  EXPECT_EQ(programError({{"\"shape\": [64, 128]}}",
                           "\"shape\": [4611686018427387904, 4]}}"}}),
            "manifest: entries[0].args[0].tensor.shape: [4611686018427387904, "
            "4] is too large: more than 2^48 bytes");
  // Each argument fits, together they do not.
  EXPECT_EQ(programError({{"\"shape\": [64, 128]}}",
                           "\"shape\": [35184372088832, 2]}}"},
                          {"\"shape\": [256, 128]}}",
                           "\"shape\": [35184372088832, 2]}}"}}),
            "manifest: entries[0].args: the arguments' buffers add up to more "
            "than 2^48 bytes");
  EXPECT_EQ(programError({{"\"dtype\": \"f32\", \"shape\": [256]",
                           "\"dtype\": \"i64\", \"shape\": [256]"}}),
            "manifest: entries[0].args[5].tensor.shape: an i64 tensor is the "
            "(seed, offset) rng_state of stochastic rounding, shape [2]; got "
            "[256]");
  EXPECT_EQ(programError({{"\"name\": \"x\"", "\"name\": \"x\\u0000y\""}}),
            "manifest: entries[0].args[0].name: contains a control character");
  EXPECT_EQ(programError({{"\"symbol\": \"teq_entry_fwd\"",
                           "\"symbol\": \"teq_entry_wgrad\""}}),
            "manifest: entries[1].symbol: 'teq_entry_wgrad' is also the "
            "symbol of entry 'fwd'");
  EXPECT_EQ(programError({{"\"name\": \"fc1:wgrad\"", "\"name\": \"fc1:fprop\""}}),
            "manifest: gemms[1].name: duplicate GEMM name \"fc1:fprop\"");
  // A shared plan names an earlier GEMM of the same problem.
  EXPECT_EQ(programError({{"\"name\": \"fc1:wgrad\"",
                           "\"name\": \"fc1:wgrad\", \"shares_plan_of\": 1"}}),
            "manifest: gemms[1].shares_plan_of: must be the id of an earlier "
            "GEMM (0 to 0), got 1");
  std::string different =
      programError({{"\"name\": \"fc1:wgrad\"",
                     "\"name\": \"fc1:wgrad\", \"shares_plan_of\": 0"}});
  EXPECT_NE(different.find("manifest: gemms[1].shares_plan_of: GEMM "
                           "'fc1:wgrad' is not the same problem and algorithm "
                           "as GEMM 'fc1:fprop'"),
            std::string::npos)
      << different;
}

TEST(ManifestValidationTest, ComputedByNamesWhatExists) {
  EXPECT_EQ(programError({{"\"gemm\": 0", "\"gemm\": 7"}}),
            "manifest: entries[0].args[3].computed_by.gemm: GEMM 7 does not "
            "exist (the artifact has 2 GEMMs)");
  EXPECT_EQ(programError({{"\"a\": \"t1\"", "\"a\": \"t9\""}}),
            "manifest: entries[0].args[3].computed_by.a: names 't9', which "
            "is neither an argument nor a temporary of entry 'fwd'");
  EXPECT_EQ(programError({{"\"b\": \"view(t0)\"", "\"b\": \"view(x0)\""}}),
            "manifest: entries[0].args[3].computed_by.b: names 'x0', which "
            "is neither an argument nor a temporary of entry 'fwd'");
  EXPECT_EQ(programError({{"\"input\": \"x\"}}", "\"input\": \"input\"}}"}}),
            "manifest: entries[0].temporaries[0].computed_by.input: names "
            "'input', which is neither an argument nor a temporary of entry "
            "'fwd'");
  EXPECT_EQ(programError({{"\"inputs\": [\"y\"]", "\"inputs\": [\"act\"]"}}),
            "manifest: entries[0].args[4].computed_by.inputs[0]: names 'act' "
            "itself");
  EXPECT_EQ(programError({{"\"op\": \"math.tanh\"", "\"op\": \"softmax\""}}),
            "manifest: entries[0].args[4].computed_by.op: unknown op "
            "\"softmax\" (expected quantize, record_amax, "
            "delayed_scaling_update, gemm, bias_grad, copy, update_usage, "
            "swizzle_scales, tensor.extract_slice, tensor.insert_slice, "
            "tensor.concat, constant, all_gather, reduce_scatter, all_reduce, "
            "dequantize, layer_norm, layer_norm_backward, rms_norm, "
            "rms_norm_backward or an arith/math elementwise op)");
  EXPECT_EQ(programError({{"\"gemm\": 0", "\"gemm\": \"0\""}}),
            "manifest: entries[0].args[3].computed_by.gemm: expected an "
            "integer, got a string");
}

TEST(ManifestValidationTest, TemporariesAreComputed) {
  // te-run recomputes a temporary when a later value reads it.
  EXPECT_EQ(programError({{R"x("computed_by": {"op": "quantize", "input": "w"})x",
                           R"x("note": "none")x"}}),
            "manifest: entries[0].temporaries[1]: a temporary needs a "
            "\"computed_by\"");
}

TEST(ManifestValidationTest, TemporariesAreNotComputedFromThemselves) {
  // t0 from t1 from t0: te-run would recurse forever.
  EXPECT_EQ(programError({{"\"input\": \"x\"}}", "\"input\": \"t1\"}}"},
                          {"\"input\": \"w\"}}", "\"input\": \"t0\"}}"}}),
            "manifest: entries[0].temporaries[0].computed_by.input: 't1' "
            "(bf16[256, 128] quantized by float8_current_scaling) is "
            "quantized; a tensor is needed here");
  EXPECT_EQ(programError({{"\"input\": \"history\",\n                        "
                           "\"offsets\": [0, 0], \"sizes\": [16, 1], "
                           "\"strides\": [1, 1]}},\n       {\"name\": \"h1\"",
                           "\"input\": \"h1\",\n                        "
                           "\"offsets\": [0], \"sizes\": [16], "
                           "\"strides\": [1]}},\n       {\"name\": \"h1\""}}),
            "manifest: entries[2].temporaries[1].computed_by: 'h0' is "
            "computed from itself (h0 -> h1 -> h0)");
}

TEST(ManifestValidationTest, GemmsFitTheirOperands) {
  EXPECT_EQ(programError({{"\"layout\": \"TN\"", "\"layout\": \"NN\""}}),
            "manifest: entries[0].args[3].computed_by: A and B do not "
            "multiply: A gives k = 256, B 128 (layout NN, A 't1' (bf16[256, "
            "128] quantized by float8_current_scaling), B 't0' (bf16[64, "
            "128] quantized by float8_current_scaling))");
  EXPECT_EQ(programError({{"\"layout\": \"TN\"", "\"layout\": \"T\""}}),
            "manifest: entries[0].args[3].computed_by.layout: invalid layout "
            "\"T\" (expected TN, NN, NT or TT)");
  EXPECT_EQ(programError({{"\"m\": 256, \"n\": 64", "\"m\": 256, \"n\": 32"}}),
            "manifest: entries[0].args[3].computed_by.gemm: the operands make "
            "an m=256 n=64 k=128 product (layout TN, A 't1' (bf16[256, 128] "
            "quantized by float8_current_scaling), B 't0' (bf16[64, 128] "
            "quantized by float8_current_scaling)), but GEMM 'fc1:fprop' (id "
            "0) is m=256 n=32 k=128 transa=T transb=N A=e4m3 (lda 128) "
            "B=e4m3 (ldb 128) D=bf16 (ldd 256)");
  EXPECT_EQ(programError({{"\"a_type\": \"e4m3\", \"b_type\": \"e4m3\"",
                           "\"a_type\": \"e5m2\", \"b_type\": \"e4m3\""}}),
            "manifest: entries[0].args[3].computed_by.a: 't1' (bf16[256, "
            "128] quantized by float8_current_scaling) holds e4m3, but GEMM "
            "'fc1:fprop' (id 0) reads e5m2");
  EXPECT_EQ(programError({{"\"shape\": [64, 256]},\n        \"computed_by\": "
                           "{\"op\": \"gemm\"",
                           "\"shape\": [256, 64]},\n        \"computed_by\": "
                           "{\"op\": \"gemm\""}}),
            "manifest: entries[0].args[3].computed_by: 'y' (bf16[256, 64]) is "
            "not the [64, 256] D of GEMM 'fc1:fprop' (id 0) (layout TN, A "
            "'t1' (bf16[256, 128] quantized by float8_current_scaling), B "
            "'t0' (bf16[64, 128] quantized by float8_current_scaling))");
  EXPECT_EQ(programError({{"\"b\": \"view(t0)\", \"bias\": \"bias\",",
                           "\"b\": \"view(t0)\","}}),
            "manifest: entries[0].args[3].computed_by: GEMM 'fc1:fprop' (id "
            "0) adds a bias, but computed_by names none");
  EXPECT_EQ(programError({{"\"dtype\": \"bf16\", \"shape\": [256]}}",
                           "\"dtype\": \"bf16\", \"shape\": [64]}}"}}),
            "manifest: entries[0].args[3].computed_by.bias: 'bias' (bf16[64]) "
            "has 64 elements, the bias of GEMM 'fc1:fprop' (id 0) needs 256");
  EXPECT_EQ(programError({{", \"accumulate\": \"dw\"", ""}}),
            "manifest: entries[1].args[3].computed_by: GEMM 'fc1:wgrad' (id "
            "1) accumulates, but computed_by names no C");
  EXPECT_EQ(programError({{"\"epilogue\": \"bgradb\"", "\"epilogue\": \"default\""}}),
            "manifest: entries[1].args[4].computed_by.output: names the dbias "
            "of GEMM 'fc1:wgrad' (id 1), whose epilogue is default");
  EXPECT_EQ(programError({{"\"dtype\": \"bf16\", \"shape\": [256]},\n        "
                           "\"computed_by\": {\"op\": \"gemm\", \"gemm\": 1",
                           "\"dtype\": \"bf16\", \"shape\": [128]},\n        "
                           "\"computed_by\": {\"op\": \"gemm\", \"gemm\": 1"}}),
            "manifest: entries[1].args[4].computed_by: 'dbias' (bf16[128]) "
            "has 128 elements, the dbias of GEMM 'fc1:wgrad' (id 1) needs "
            "256");
}

TEST(ManifestValidationTest, OpsFitTheirValues) {
  EXPECT_EQ(programError({{"\"op\": \"math.tanh\", \"inputs\": [\"y\"]",
                           "\"op\": \"arith.addf\", \"inputs\": [\"y\"]"}}),
            "manifest: entries[0].args[4].computed_by.inputs: arith.addf "
            "takes 2 inputs, got 1");
  EXPECT_EQ(programError({{"\"inputs\": [\"y\"]", "\"inputs\": [\"bias\"]"}}),
            "manifest: entries[0].args[4].computed_by.inputs[0]: 'bias' "
            "(bf16[256]) has 256 elements, 'act' needs 16384");
  EXPECT_EQ(programError({{"\"op\": \"bias_grad\", \"input\": \"y\"",
                           "\"op\": \"bias_grad\", \"input\": \"x\""}}),
            "manifest: entries[0].args[5].computed_by: 'dy_sum' (f32[256]) "
            "has 256 elements, the column sums of 'x' (bf16[64, 128]) needs "
            "128");
  EXPECT_EQ(programError({{"\"computed_by\": {\"op\": \"quantize\", "
                           "\"input\": \"x\"}}",
                           "\"computed_by\": {\"op\": \"quantize\", "
                           "\"input\": \"w\"}}"}}),
            "manifest: entries[0].temporaries[0].computed_by.input: 'w' "
            "(bf16[256, 128]) differs in dtype or shape from 't0' (bf16[64, "
            "128] quantized by float8_current_scaling)");
  EXPECT_EQ(programError({{"\"input\": \"x\", \"scale\": \"s0\",\n",
                           "\"input\": \"x\",\n"},
                          {"\"amax_history\": \"h0\"}},",
                           "\"unused\": 0}},"}}),
            "manifest: entries[2].args[3].computed_by: a float8_delayed "
            "quantization names its \"scale\" and \"amax_history\"");
  EXPECT_EQ(programError({{"\"input\": \"x\", \"scale\": \"s0\",\n",
                           "\"input\": \"x\", \"scale\": \"history\",\n"}}),
            "manifest: entries[2].args[3].computed_by.scale: 'history' "
            "(f32[16, 3]) has 48 elements, the scale of a per-tensor "
            "quantization needs 1");
}

TEST(ManifestValidationTest, SlicesAndDelayedScaling) {
  EXPECT_EQ(programError({{"\"offsets\": [0], \"sizes\": [1]",
                           "\"offsets\": [3], \"sizes\": [1]"}}),
            "manifest: entries[2].temporaries[0].computed_by: dimension 0 "
            "(offset 3, size 1, stride 1) is not inside the input 'scale' "
            "(f32[3])");
  EXPECT_EQ(programError({{"\"offsets\": [0], \"sizes\": [1], \"strides\": [1]",
                           "\"offsets\": [0], \"sizes\": [2], \"strides\": [2]"}}),
            "manifest: entries[2].temporaries[0].computed_by: 's0' (f32[1]) "
            "has 1 elements, the slice needs 2");
  EXPECT_EQ(programError({{"\"offsets\": [0], \"sizes\": [1], \"strides\": [1]",
                           "\"offsets\": [0], \"sizes\": [1], \"strides\": [0]"}}),
            "manifest: entries[2].temporaries[0].computed_by: dimension 0 "
            "(offset 0, size 1, stride 0) is not inside the input 'scale' "
            "(f32[3])");
  EXPECT_EQ(programError({{"\"offsets\": [0], \"sizes\": [1]",
                           "\"offsets\": [0, 0], \"sizes\": [1]"}}),
            "manifest: entries[2].temporaries[0].computed_by.offsets: has 2 "
            "values for the rank-1 input 'scale' (f32[3])");
  EXPECT_EQ(programError({{"\"dest\": \"history\",\n                        "
                           "\"offsets\": [0, 0], \"sizes\": [16, 1]",
                           "\"dest\": \"history\",\n                        "
                           "\"offsets\": [0, 2], \"sizes\": [16, 2]"}}),
            "manifest: entries[2].args[4].computed_by: dimension 1 (offset 2, "
            "size 2, stride 1) is not inside the destination 'history' "
            "(f32[16, 3])");
  EXPECT_EQ(programError({{"\"margin\": -3", "\"margin\": -101"}}),
            "manifest: entries[2].args[5].computed_by.margin: -101 is outside "
            "[-100, 100]");
  EXPECT_EQ(programError({{"\"fp8_max\": 448", "\"fp8_max\": 0"}}),
            "manifest: entries[2].args[5].computed_by.fp8_max: must be a "
            "finite number > 0");
  EXPECT_EQ(programError({{"\"amax_compute_algo\": \"max\"",
                           "\"amax_compute_algo\": \"mean\""}}),
            "manifest: entries[2].args[5].computed_by.amax_compute_algo: "
            "unknown amax_compute_algo \"mean\" (expected max or "
            "most_recent)");
  EXPECT_EQ(programError({{"\"output\": \"scale\"", "\"output\": \"amax_history\""}}),
            "manifest: entries[2].args[5].computed_by: 'scale_out' (f32[3]) "
            "has 3 elements, the updated amax_history needs 48");
  EXPECT_EQ(programError({{"\"dtype\": \"f32\", \"shape\": [16, 3]}},\n       "
                           "{\"name\": \"q\"",
                           "\"dtype\": \"f32\", \"shape\": [16, 4]}},\n       "
                           "{\"name\": \"q\""}}),
            "manifest: entries[2].args[4].computed_by: 'history_out' (f32[16, "
            "3]) has 48 elements, a copy of 'history' (f32[16, 4]) needs 64");
}

/// A constant is exactly a value of its dtype; a value in registers is
/// computed inside a fused elementwise kernel.
TEST(ManifestValidationTest, ConstantsAndValuesInRegisters) {
  const std::string s0 =
      R"x("computed_by": {"op": "tensor.extract_slice", "input": "scale",
                        "offsets": [0], "sizes": [1], "strides": [1]})x";
  EXPECT_EQ(programError({{s0, R"x("computed_by": {"op": "constant", "value": 0.1})x"}}),
            "manifest: entries[2].temporaries[0].computed_by.value: "
            "0.10000000000000001 is not exactly a f32 value (a constant is "
            "every element, exactly)");
  EXPECT_EQ(parseManifest(program(s0, R"x("computed_by": {"op": "constant", "value": -0.375})x"))
                .message(),
            "");
  const std::string act = R"x("computed_by": {"op": "math.tanh", "inputs": ["y"]})x";
  // bf16 holds 8 significant bits: 1 + 2^-7, not 1 + 2^-8.
  EXPECT_EQ(parseManifest(program(act, R"x("computed_by": {"op": "constant", "value": 1.0078125})x"))
                .message(),
            "");
  EXPECT_EQ(programError({{act, R"x("computed_by": {"op": "constant", "value": 1.00390625})x"}}),
            "manifest: entries[0].args[4].computed_by.value: 1.00390625 is "
            "not exactly a bf16 value (a constant is every element, exactly)");
  EXPECT_EQ(programError({{R"x({"name": "h1", "kind": "temporary",)x",
                           R"x({"name": "h1", "kind": "temporary", "in_registers": true,)x"}}),
            "manifest: entries[2].temporaries[2].in_registers: a value in "
            "registers is computed inside a fused elementwise kernel, but "
            "record_amax writes its result to memory");
  // A slice in registers: the elementwise kernel reading it loads it in
  // place (a gated activation's half).
  EXPECT_EQ(parseManifest(program(R"x({"name": "s0", "kind": "temporary",)x",
                                  R"x({"name": "s0", "kind": "temporary", "in_registers": true,)x"))
                .message(),
            "");
}

/// Every error of the computed_by reader (parseComputedBy): the key and
/// what is wrong with it.
TEST(ManifestValidationTest, ComputedByKeysAreTyped) {
  const std::string y = "entries[0].args[3].computed_by";
  const std::string act = "entries[0].args[4].computed_by";
  const std::string update = "entries[2].args[5].computed_by";
  const std::string slice = "entries[2].temporaries[0].computed_by";
  const std::string q = "entries[0].temporaries[0].computed_by";
  struct Case {
    std::string from, to, error;
  } cases[] = {
      {R"x("computed_by": {"op": "quantize", "input": "x"})x",
       R"x("computed_by": [])x", q + ": expected an object, got an array"},
      {R"x("computed_by": {"op": "quantize", "input": "x"})x",
       R"x("computed_by": {"input": "x"})x", q + ": missing \"op\""},
      {R"x("computed_by": {"op": "quantize", "input": "x"})x",
       R"x("computed_by": {"op": 1, "input": "x"})x",
       q + ".op: expected a string, got a number"},
      {R"x("computed_by": {"op": "quantize", "input": "x"})x",
       R"x("computed_by": {"op": "", "input": "x"})x", q + ".op: must not be empty"},
      {R"x("computed_by": {"op": "quantize", "input": "x"})x",
       R"x("computed_by": {"op": "quantize"})x", q + ": missing \"input\""},
      {R"x("computed_by": {"op": "quantize", "input": "x"})x",
       R"x("computed_by": {"op": "quantize", "input": 3})x",
       q + ".input: expected the name of a value (a string), got a number"},
      {R"x("computed_by": {"op": "quantize", "input": "x"})x",
       R"x("computed_by": {"op": "quantize", "input": ""})x",
       q + ".input: must name a value"},
      {R"x("computed_by": {"op": "quantize", "input": "x"})x",
       R"x("computed_by": {"op": "quantize", "input": "x", "rng_state": false})x",
       q + ".rng_state: expected the name of a value (a string), got a "
           "boolean"},
      // gemm
      {R"x("gemm": 0, "output": "d")x", R"x("gemm": "0", "output": "d")x",
       y + ".gemm: expected an integer, got a string"},
      {R"x("gemm": 0, "output": "d")x", R"x("gemm": 0)x", y + ": missing \"output\""},
      {R"x("gemm": 0, "output": "d")x", R"x("gemm": 0, "output": "c")x",
       y + ".output: unknown GEMM output \"c\" (expected d or dbias)"},
      {R"x("output": "d", "layout": "TN")x", R"x("output": "d")x",
       y + ": missing \"layout\""},
      {R"x("output": "d", "layout": "TN")x", R"x("output": "d", "layout": "TX")x",
       y + ".layout: invalid layout \"TX\" (expected TN, NN, NT or TT)"},
      {R"x("use_split_accumulator": false)x", R"x("use_split_accumulator": 0)x",
       y + ".use_split_accumulator: expected a boolean, got a number"},
      {R"x("a": "t1", "b": "view(t0)")x", R"x("b": "view(t0)")x",
       y + ": missing \"a\""},
      {R"x("a": "t1", "b": "view(t0)")x", R"x("a": "t1")x",
       y + ": missing \"b\""},
      {R"x("bias": "bias",)x", R"x("bias": ["bias"],)x",
       y + ".bias: expected the name of a value (a string), got an array"},
      // elementwise
      {R"x("op": "math.tanh", "inputs": ["y"])x", R"x("op": "math.tanh")x",
       act + ": missing \"inputs\""},
      {R"x("op": "math.tanh", "inputs": ["y"])x",
       R"x("op": "math.tanh", "inputs": [])x",
       act + ".inputs: expected a non-empty array of value names"},
      {R"x("op": "math.tanh", "inputs": ["y"])x",
       R"x("op": "math.tanh", "inputs": ["y", "y"])x",
       act + ".inputs: math.tanh takes 1 inputs, got 2"},
      {R"x("op": "math.tanh", "inputs": ["y"])x",
       R"x("op": "math.tanh", "inputs": [7])x",
       act + ".inputs[0]: expected the name of a value (a string), got a "
             "number"},
      {R"x("op": "math.tanh", "inputs": ["y"])x",
       R"x("op": "math.tanh", "inputs": [""])x", act + ".inputs[0]: must name a value"},
      // delayed_scaling_update
      {R"x("output": "scale",)x", "", update + ": missing \"output\""},
      {R"x("output": "scale",)x", R"x("output": "history",)x",
       update + ".output: unknown output \"history\" (expected scale or "
                "amax_history)"},
      {R"x("amax_compute_algo": "max")x", R"x("amax_compute_algo": "mean")x",
       update + ".amax_compute_algo: unknown amax_compute_algo \"mean\" "
                "(expected max or most_recent)"},
      {R"x("fp8_max": 448,)x", "", update + ": missing \"fp8_max\""},
      {R"x("fp8_max": 448,)x", R"x("fp8_max": "448",)x",
       update + ".fp8_max: expected a number, got a string"},
      {R"x("fp8_max": 448,)x", R"x("fp8_max": 0,)x",
       update + ".fp8_max: must be a finite number > 0"},
      {R"x("margin": -3,)x", R"x("margin": 0.5,)x",
       update + ".margin: expected an integer, got a number"},
      {R"x("margin": -3,)x", R"x("margin": 101,)x",
       update + ".margin: 101 is outside [-100, 100]"},
      {R"x("scale": "scale", "amax_history": "history_out")x",
       R"x("amax_history": "history_out")x", update + ": missing \"scale\""},
      {R"x("scale": "scale", "amax_history": "history_out")x",
       R"x("scale": "scale")x", update + ": missing \"amax_history\""},
      // slices
      {R"x("op": "tensor.insert_slice", "input": "h1", "dest": "history",)x",
       R"x("op": "tensor.insert_slice", "input": "h1",)x",
       "entries[2].args[4].computed_by: missing \"dest\""},
      {R"x("offsets": [0], "sizes": [1], "strides": [1]}},)x",
       R"x("sizes": [1], "strides": [1]}},)x", slice + ": missing \"offsets\""},
      {R"x("offsets": [0], "sizes": [1], "strides": [1]}},)x",
       R"x("offsets": 0, "sizes": [1], "strides": [1]}},)x",
       slice + ".offsets: expected an array of integers, got a number"},
      {R"x("offsets": [0], "sizes": [1], "strides": [1]}},)x",
       R"x("offsets": [0], "sizes": ["1"], "strides": [1]}},)x",
       slice + ".sizes[0]: expected an integer, got a string"},
      {R"x("offsets": [0], "sizes": [1], "strides": [1]}},)x",
       R"x("offsets": [0], "sizes": [1], "strides": [1, 1]}},)x",
       slice + ".strides: has 2 values for the rank-1 input 'scale' (f32[3])"},
  };
  for (const Case &c : cases)
    EXPECT_EQ(programError({{c.from, c.to}}), "manifest: " + c.error)
        << c.from << " -> " << c.to;
}

/// A manifest read and written again is the same manifest: kProgram's
/// values and GEMMs survive writeManifest.
TEST(ManifestValidationTest, TheProgramRoundTrips) {
  auto read = parseManifest(kProgram);
  ASSERT_TRUE(read.ok()) << read.message();
  const std::string written = writeManifest(*read);
  auto again = parseManifest(written);
  ASSERT_TRUE(again.ok()) << again.message() << "\n" << written;
  EXPECT_EQ(writeManifest(*again), written);
  const ArgSpec *update = again->entries[2].findArg("scale_out");
  ASSERT_NE(update, nullptr);
  ASSERT_TRUE(update->computedBy.has_value());
  EXPECT_EQ(update->computedBy->margin, -3);
  EXPECT_EQ(update->computedBy->fp8Max, 448.0);
  EXPECT_EQ(update->computedBy->scale, "scale");
  EXPECT_EQ(update->computedBy->amaxHistory, "history_out");
  const ArgSpec *y = again->entries[0].findArg("y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->computedBy->layoutName(), "TN");
  EXPECT_EQ(y->computedBy->b, "view(t0)");
  EXPECT_EQ(toJson(again->gemms[1]).serialize(),
            toJson(read->gemms[1]).serialize());
}

TEST(ManifestValidationTest, TemporaryPlacement) {
  // t0 (data 8192 bytes, scale_inv 4): its data inside output y (a 32768-
  // byte tensor), its scale at the end of the workspace.
  const std::string t0 = R"x("computed_by": {"op": "quantize", "input": "x"}},)x";
  auto placed = [&](const std::string &items) {
    return std::make_pair(t0, R"x("computed_by": {"op": "quantize", "input": "x"}, "placement": [)x" +
                                  items + "]},");
  };
  const std::string inY =
      R"x({"in": "output", "output": "y", "buffer": 0, "offset": 0})x";
  const std::string scale = R"x({"in": "workspace", "offset": 41216})x";
  {
    auto [from, to] = placed(inY + ", " + scale);
    auto read = parseManifest(program(from, to));
    ASSERT_TRUE(read.ok()) << read.message();
    const ArgSpec &t = read->entries[0].temporaries[0];
    ASSERT_EQ(t.placement.size(), 2u);
    EXPECT_EQ(t.placement[0].in, BufferPlacement::Where::Output);
    EXPECT_EQ(t.placement[0].output, "y");
    EXPECT_EQ(t.placement[1].in, BufferPlacement::Where::Workspace);
    EXPECT_EQ(t.placement[1].offset, 41216);
    // Written back as read.
    const std::string written = writeManifest(*read);
    auto again = parseManifest(written);
    ASSERT_TRUE(again.ok()) << again.message();
    EXPECT_EQ(writeManifest(*again), written);
    EXPECT_EQ(again->entries[0].temporaries[0].placement[0].output, "y");
  }
  auto error = [&](const std::string &items) {
    auto [from, to] = placed(items);
    return programError({{from, to}});
  };
  const std::string at = "manifest: entries[0].temporaries[0].placement";
  EXPECT_EQ(error(inY), at + ": has 1 items, but the temporary has 2 buffers");
  EXPECT_EQ(error(R"x({"in": "output", "output": "y", "buffer": 0, "offset": 100}, )x" +
                  scale),
            at + "[0].offset: must be a multiple of 256 (>= 0), got 100");
  EXPECT_EQ(error(R"x({"in": "output", "output": "x", "buffer": 0, "offset": 0}, )x" +
                  scale),
            at + "[0].output: 'x' is not an output of the entry");
  EXPECT_EQ(error(R"x({"in": "output", "output": "y", "buffer": 1, "offset": 0}, )x" +
                  scale),
            at + "[0].buffer: output 'y' has 1 buffers, got buffer 1");
  EXPECT_EQ(error(R"x({"in": "output", "output": "y", "buffer": 0, "offset": 24832}, )x" +
                  scale),
            at + "[0]: temporary 't0' buffer 0 (8192 bytes at 24832) does not "
                 "fit output 'y' buffer 0 ('tensor') (32768 bytes)");
  EXPECT_EQ(error(inY + R"x(, {"in": "workspace", "offset": 41472})x"),
            at + "[1]: temporary 't0' buffer 1 (4 bytes at 41472) does not "
                 "fit the entry's workspace_bytes (41472 bytes)");
  EXPECT_EQ(error(inY + R"x(, {"in": "input"})x"),
            at + "[1]: only a swizzle_scales temporary's data buffers are "
                 "their input's (\"in\": \"input\")");
  EXPECT_EQ(error(inY + R"x(, {"in": "elsewhere", "offset": 0})x"),
            at + "[1].in: unknown place \"elsewhere\" (expected workspace, "
                 "output or input)");
  EXPECT_EQ(programError({{R"x("computed_by": {"op": "math.tanh", "inputs": ["y"]}})x",
                           R"x("computed_by": {"op": "math.tanh", "inputs": ["y"]}, "placement": []})x"}}),
            "manifest: entries[0].args[4].placement: only a temporary has a "
            "placement");
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
  // The chip-name rule of layout::parseChipName, which #teq.target shares:
  // 2 to 4 digits, no leading zero.
  auto sm1000a = GpuTarget::parse("sm_1000a");
  ASSERT_TRUE(sm1000a.ok());
  EXPECT_EQ(sm1000a->sm, 1000);
  EXPECT_EQ(sm1000a->suffix, 'a');
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

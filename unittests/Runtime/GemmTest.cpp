//===- GemmTest.cpp - GEMM manifests, teqGemm errors, cuBLASLt plans ------===//
//
// Without a GPU: parsing and validating "gemms" and "workspace_bytes", the
// pointer checks and teqGemm's error paths. With a GPU (skipped otherwise):
// GemmPlan run directly on device buffers against a CPU product (FP8
// per-tensor TN, bf16 NN with device alpha and accumulation, bgradb, a pinned
// algorithm), and an artifact whose entry calls teqGemm.
//
//===----------------------------------------------------------------------===//

#include "teq/Runtime/Artifact.h"
#include "teq/Runtime/DeviceBuffer.h"
#include "teq/Runtime/Gemm.h"
#include "teq/Runtime/Manifest.h"
#include "teq/Runtime/Mgpu.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace mlir::teq::runtime;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// An FP8 per-tensor fprop GEMM as the compiler describes it (TN, FP8 with
/// scalar scales, bf16 bias).
const char *kFprop = R"json({"id": 0, "name": "linear:fc1.fprop",
  "m": 64, "n": 32, "k": 128, "transa": true, "transb": false,
  "a_type": "e4m3", "b_type": "e4m3", "d_type": "bf16",
  "lda": 128, "ldb": 128, "ldd": 64,
  "a_scale_mode": "scalar_f32", "b_scale_mode": "scalar_f32",
  "epilogue": "bias", "bias_type": "bf16",
  "accumulate": false, "fast_accum": true, "alpha": "host",
  "compute_type": "32f"})json";

std::string manifestWith(const std::string &gemms,
                         const std::string &entries = "[]") {
  return R"({"format": "teq-artifact", "version": 1, "target": "sm_90",
    "device_code": "ptx", "entries": )" +
         entries + R"(, "gemms": [)" + gemms + "]}";
}

/// kFprop with the first `from` replaced by `to`.
std::string editedGemm(const std::string &from, const std::string &to) {
  std::string text = kFprop;
  size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos)
    text.replace(pos, from.size(), to);
  return text;
}

std::string errorOf(const std::string &manifest) {
  auto parsed = parseManifest(manifest);
  EXPECT_FALSE(parsed.ok());
  return parsed.ok() ? std::string() : parsed.message();
}

std::string gemmError(const std::string &from, const std::string &to) {
  return errorOf(manifestWith(editedGemm(from, to)));
}

GemmSpec parseGemm(const std::string &gemm) {
  auto manifest = parseManifest(manifestWith(gemm));
  EXPECT_TRUE(manifest.ok()) << manifest.message();
  if (!manifest.ok() || manifest->gemms.empty())
    return GemmSpec();
  return manifest->gemms[0];
}

//===----------------------------------------------------------------------===//
// Manifest
//===----------------------------------------------------------------------===//

TEST(GemmManifestTest, ParsesAGemm) {
  auto manifest = parseManifest(manifestWith(kFprop));
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  ASSERT_EQ(manifest->gemms.size(), 1u);
  const GemmSpec &g = manifest->gemms[0];
  EXPECT_EQ(g.id, 0);
  EXPECT_EQ(g.name, "linear:fc1.fprop");
  EXPECT_EQ(g.m, 64);
  EXPECT_EQ(g.n, 32);
  EXPECT_EQ(g.k, 128);
  EXPECT_TRUE(g.transa);
  EXPECT_FALSE(g.transb);
  EXPECT_EQ(g.aType, GemmType::E4M3);
  EXPECT_EQ(g.bType, GemmType::E4M3);
  EXPECT_EQ(g.dType, GemmType::BF16);
  EXPECT_EQ(g.lda, 128);
  EXPECT_EQ(g.ldb, 128);
  EXPECT_EQ(g.ldd, 64);
  EXPECT_EQ(g.aScaleMode, GemmScaleMode::ScalarF32);
  EXPECT_EQ(g.bScaleMode, GemmScaleMode::ScalarF32);
  EXPECT_EQ(g.epilogue, GemmEpilogue::Bias);
  EXPECT_EQ(g.biasType, GemmType::BF16);
  EXPECT_FALSE(g.accumulate);
  EXPECT_TRUE(g.fastAccum);
  EXPECT_FALSE(g.alphaOnDevice);
  EXPECT_FALSE(g.fastTf32);
  EXPECT_FALSE(g.hasAlgo);
  EXPECT_EQ(g.aRows(), 128);
  EXPECT_EQ(g.aCols(), 64);
  EXPECT_EQ(g.bRows(), 128);
  EXPECT_EQ(g.bCols(), 32);
  EXPECT_EQ(g.describe(), "GEMM 'linear:fc1.fprop' (id 0)");
  EXPECT_EQ(g.describeProblem(),
            "m=64 n=32 k=128 transa=T transb=N A=e4m3 (lda 128) B=e4m3 (ldb "
            "128) D=bf16 (ldd 64)");
  // No "gemms": none.
  auto none = parseManifest(R"({"format": "teq-artifact", "version": 1,
    "target": "sm_90", "device_code": "ptx", "entries": []})");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->gemms.empty());
}

TEST(GemmManifestTest, EveryKind) {
  // NVFP4: FP4 operands, device alpha; bgradb; f32 with fast TF32; pinned
  // algorithm; block-scaled FP8 1D x 2D; MXFP8.
  const std::string nvfp4 = R"({"id": 0, "name": "nvfp4", "m": 128,
    "n": 64, "k": 256, "transa": true, "transb": false, "a_type": "e2m1",
    "b_type": "e2m1", "d_type": "bf16", "lda": 256, "ldb": 256, "ldd": 128,
    "a_scale_mode": "vec16_ue4m3", "b_scale_mode": "vec16_ue4m3",
    "epilogue": "default", "accumulate": false, "fast_accum": false,
    "alpha": "device", "compute_type": "32f"})";
  const std::string wgrad = R"({"id": 1, "name": "wgrad", "m": 64, "n": 32,
    "k": 16, "transa": false, "transb": true, "a_type": "bf16",
    "b_type": "bf16", "d_type": "f32", "lda": 64, "ldb": 32, "ldd": 64,
    "a_scale_mode": "none", "b_scale_mode": "none", "epilogue": "bgradb",
    "bias_type": "bf16", "accumulate": true, "fast_accum": false,
    "alpha": "host", "compute_type": "32f"})";
  const std::string tf32 = R"({"id": 2, "name": "tf32", "m": 8, "n": 8,
    "k": 8, "transa": false, "transb": false, "a_type": "f32",
    "b_type": "f32", "d_type": "f32", "lda": 8, "ldb": 8, "ldd": 8,
    "a_scale_mode": "none", "b_scale_mode": "none", "epilogue": "default",
    "accumulate": false, "fast_accum": false, "alpha": "host",
    "compute_type": "32f_fast_tf32",
    "algo": {"id": 6, "tile": 20, "stages": 8, "splitk": 2, "reduction": 1,
             "swizzle": 1, "custom": 3, "inner_shape": 4,
             "cluster_shape": 5}})";
  const std::string block = R"({"id": 3, "name": "block", "m": 128,
    "n": 128, "k": 128, "transa": true, "transb": false, "a_type": "e4m3",
    "b_type": "e5m2", "d_type": "bf16", "lda": 128, "ldb": 128, "ldd": 128,
    "a_scale_mode": "vec128_f32", "b_scale_mode": "blk128x128_f32",
    "epilogue": "default", "accumulate": false, "fast_accum": false,
    "alpha": "host", "compute_type": "32f"})";
  const std::string mxfp8 = R"({"id": 4, "name": "mxfp8", "m": 64, "n": 64,
    "k": 64, "transa": false, "transb": false, "a_type": "e4m3",
    "b_type": "e4m3", "d_type": "f16", "lda": 64, "ldb": 64, "ldd": 64,
    "a_scale_mode": "vec32_ue8m0", "b_scale_mode": "vec32_ue8m0",
    "epilogue": "default", "accumulate": false, "fast_accum": true,
    "alpha": "host", "compute_type": "32f"})";
  auto manifest = parseManifest(manifestWith(
      nvfp4 + "," + wgrad + "," + tf32 + "," + block + "," + mxfp8));
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  ASSERT_EQ(manifest->gemms.size(), 5u);
  const GemmSpec &f4 = manifest->gemms[0];
  EXPECT_EQ(f4.aType, GemmType::E2M1);
  EXPECT_EQ(f4.aScaleMode, GemmScaleMode::Vec16UE4M3);
  EXPECT_TRUE(f4.alphaOnDevice);
  const GemmSpec &wg = manifest->gemms[1];
  EXPECT_EQ(wg.epilogue, GemmEpilogue::BGradB);
  EXPECT_TRUE(wg.accumulate);
  EXPECT_EQ(wg.dType, GemmType::F32);
  EXPECT_EQ(wg.bRows(), 32);
  const GemmSpec &t = manifest->gemms[2];
  EXPECT_TRUE(t.fastTf32);
  ASSERT_TRUE(t.hasAlgo);
  EXPECT_EQ(t.algo.id, 6);
  EXPECT_EQ(t.algo.tile, 20);
  EXPECT_EQ(t.algo.stages, 8);
  EXPECT_EQ(t.algo.splitK, 2);
  EXPECT_EQ(t.algo.reduction, 1);
  EXPECT_EQ(t.algo.swizzle, 1);
  EXPECT_EQ(t.algo.custom, 3);
  EXPECT_EQ(t.algo.innerShape, 4);
  EXPECT_EQ(t.algo.clusterShape, 5);
  EXPECT_EQ(manifest->gemms[3].bScaleMode, GemmScaleMode::Blk128x128F32);
  EXPECT_EQ(manifest->gemms[3].bType, GemmType::E5M2);
  EXPECT_EQ(manifest->gemms[4].aScaleMode, GemmScaleMode::Vec32UE8M0);
  EXPECT_EQ(manifest->gemms[4].dType, GemmType::F16);

  // Only "id" is required in "algo".
  auto minimal = parseManifest(
      manifestWith(editedGemm("\"compute_type\": \"32f\"",
                              "\"compute_type\": \"32f\", \"algo\": {\"id\": 3}")));
  ASSERT_TRUE(minimal.ok()) << minimal.message();
  EXPECT_EQ(minimal->gemms[0].algo.id, 3);
  EXPECT_EQ(minimal->gemms[0].algo.splitK, 1);
  EXPECT_EQ(minimal->gemms[0].algo.tile, 0);
}

TEST(GemmManifestTest, KeyErrors) {
  EXPECT_TRUE(parseManifest(manifestWith("")).ok()); // "gemms": [] is fine
  EXPECT_EQ(errorOf(R"({"format": "teq-artifact", "version": 1,
    "target": "sm_90", "device_code": "ptx", "entries": [], "gemms": {}})"),
            "manifest: gemms: expected an array, got an object");
  EXPECT_EQ(errorOf(manifestWith("3")),
            "manifest: gemms[0]: expected an object, got a number");
  EXPECT_EQ(gemmError("\"id\": 0", "\"id\": 1"),
            "manifest: gemms[0].id: id 1 differs from its index 0 (GEMM ids "
            "are the positions in \"gemms\")");
  EXPECT_EQ(gemmError("\"id\": 0, ", ""), "manifest: gemms[0]: missing \"id\"");
  EXPECT_EQ(gemmError("\"name\": \"linear:fc1.fprop\"", "\"name\": \"\""),
            "manifest: gemms[0].name: must not be empty");
  EXPECT_EQ(gemmError("\"fast_accum\"", "\"fast_acum\""),
            "manifest: gemms[0]: unknown key \"fast_acum\" in a GEMM");
  EXPECT_EQ(gemmError("\"m\": 64", "\"m\": 0"),
            "manifest: gemms[0].m: must be positive, got 0");
  EXPECT_EQ(gemmError("\"k\": 128", "\"k\": -128"),
            "manifest: gemms[0].k: must be positive, got -128");
  EXPECT_EQ(gemmError("\"n\": 32", "\"n\": 4294967296"),
            "manifest: gemms[0].n: too large for cuBLASLt, got 4294967296");
  EXPECT_EQ(gemmError("\"n\": 32", "\"n\": 32.5"),
            "manifest: gemms[0].n: expected an integer, got a number");
  EXPECT_EQ(gemmError("\"ldd\": 64", "\"ldd\": \"64\""),
            "manifest: gemms[0].ldd: expected an integer, got a string");
  EXPECT_EQ(gemmError("\"transa\": true", "\"transa\": \"T\""),
            "manifest: gemms[0].transa: expected a boolean, got a string");
  EXPECT_EQ(gemmError("\"accumulate\": false, ", ""),
            "manifest: gemms[0]: missing \"accumulate\"");
  EXPECT_EQ(gemmError("\"a_type\": \"e4m3\"", "\"a_type\": \"fp8\""),
            "manifest: gemms[0].a_type: unknown type \"fp8\" (expected e4m3, "
            "e5m2, e2m1, bf16, f16 or f32)");
  EXPECT_EQ(gemmError("\"d_type\": \"bf16\"", "\"d_type\": \"e4m3\""),
            "manifest: gemms[0].d_type: unknown output type \"e4m3\" "
            "(expected bf16, f16 or f32)");
  EXPECT_EQ(gemmError("\"a_scale_mode\": \"scalar_f32\"",
                      "\"a_scale_mode\": \"x\""),
            "manifest: gemms[0].a_scale_mode: unknown scale mode \"x\" "
            "(expected none, scalar_f32, vec128_f32, blk128x128_f32, "
            "vec32_ue8m0 or vec16_ue4m3)");
  EXPECT_EQ(gemmError("\"epilogue\": \"bias\"", "\"epilogue\": \"gelu\""),
            "manifest: gemms[0].epilogue: unknown epilogue \"gelu\" (expected "
            "default, bias or bgradb)");
  EXPECT_EQ(gemmError("\"bias_type\": \"bf16\",", ""),
            "manifest: gemms[0]: missing \"bias_type\"");
  EXPECT_EQ(gemmError("\"bias_type\": \"bf16\"", "\"bias_type\": \"f64\""),
            "manifest: gemms[0].bias_type: unknown bias type \"f64\" "
            "(expected bf16, f16 or f32)");
  EXPECT_EQ(gemmError("\"alpha\": \"host\"", "\"alpha\": 1.0"),
            "manifest: gemms[0].alpha: expected a string, got a number");
  EXPECT_EQ(gemmError("\"alpha\": \"host\"", "\"alpha\": \"stack\""),
            "manifest: gemms[0].alpha: unknown alpha mode \"stack\" (expected "
            "host or device)");
  EXPECT_EQ(gemmError("\"compute_type\": \"32f\"",
                      "\"compute_type\": \"16f\""),
            "manifest: gemms[0].compute_type: unknown compute type \"16f\" "
            "(expected 32f or 32f_fast_tf32)");
  // The algorithm.
  auto withAlgo = [](const std::string &algo) {
    return gemmError("\"compute_type\": \"32f\"",
                     "\"compute_type\": \"32f\", \"algo\": " + algo);
  };
  EXPECT_EQ(withAlgo("7"),
            "manifest: gemms[0].algo: expected an object, got a number");
  EXPECT_EQ(withAlgo("{\"tile\": 1}"),
            "manifest: gemms[0].algo: missing \"id\"");
  EXPECT_EQ(withAlgo("{\"id\": 1, \"tiles\": 1}"),
            "manifest: gemms[0].algo: unknown key \"tiles\" in a GEMM "
            "algorithm");
  EXPECT_EQ(withAlgo("{\"id\": 1, \"stages\": -2}"),
            "manifest: gemms[0].algo.stages: out of range: -2");
  EXPECT_EQ(withAlgo("{\"id\": 1, \"splitk\": 0}"),
            "manifest: gemms[0].algo.splitk: must be at least 1");
  EXPECT_EQ(withAlgo("{\"id\": \"a\"}"),
            "manifest: gemms[0].algo.id: expected an integer, got a string");
  // The path of a later GEMM.
  EXPECT_EQ(errorOf(manifestWith(std::string(kFprop) + ", {\"id\": 1}")),
            "manifest: gemms[1]: missing \"name\"");
}

TEST(GemmManifestTest, ValidationErrorsNameTheGemm) {
  const std::string prefix =
      "manifest: gemms[0]: GEMM 'linear:fc1.fprop' (id 0): ";
  EXPECT_EQ(gemmError("\"lda\": 128", "\"lda\": 64"),
            prefix + "lda 64 is less than the 128 rows of the stored k x m "
                     "matrix (m=64 n=32 k=128 transa=T transb=N A=e4m3 (lda "
                     "64) B=e4m3 (ldb 128) D=bf16 (ldd 64))");
  EXPECT_EQ(gemmError("\"ldd\": 64", "\"ldd\": 32"),
            prefix + "ldd 32 is less than the 64 rows of the stored m x n "
                     "matrix (m=64 n=32 k=128 transa=T transb=N A=e4m3 (lda "
                     "128) B=e4m3 (ldb 128) D=bf16 (ldd 32))");
  // Padded leading dimensions are fine.
  EXPECT_TRUE(parseManifest(manifestWith(editedGemm("\"ldb\": 128",
                                                    "\"ldb\": 144")))
                  .ok());
  EXPECT_EQ(gemmError("\"ldb\": 128", "\"ldb\": 136"),
            prefix + "ldb 136 of FP8 operand B is not a multiple of 16: "
                     "cuBLASLt FP8 GEMMs need 16-element leading dimensions "
                     "(pad the operand)");
  EXPECT_EQ(gemmError("\"b_type\": \"e4m3\"", "\"b_type\": \"bf16\""),
            prefix + "B (bf16) has scale mode scalar_f32, but a "
                     "high-precision operand takes none");
  EXPECT_EQ(gemmError("\"a_scale_mode\": \"scalar_f32\"",
                      "\"a_scale_mode\": \"none\""),
            prefix + "A (e4m3) has scale mode none (FP8 takes scalar_f32, "
                     "vec128_f32, blk128x128_f32 or vec32_ue8m0)");
  EXPECT_EQ(gemmError("\"a_type\": \"e4m3\"", "\"a_type\": \"e2m1\""),
            prefix + "A (e2m1) has scale mode scalar_f32 (FP4 takes "
                     "vec16_ue4m3)");
  std::string mixed = editedGemm("\"b_scale_mode\": \"scalar_f32\"",
                                 "\"b_scale_mode\": \"none\"");
  mixed.replace(mixed.find("\"b_type\": \"e4m3\""), 16, "\"b_type\": \"bf16\"");
  EXPECT_EQ(errorOf(manifestWith(mixed)),
            prefix + "A is e4m3 but B is bf16: cuBLASLt does not mix FP8/FP4 "
                     "and high-precision operands");
  EXPECT_EQ(gemmError("\"a_type\": \"e4m3\", \"b_type\": \"e4m3\"",
                      "\"a_type\": \"e5m2\", \"b_type\": \"e5m2\""),
            prefix + "both A and B are e5m2: cuBLASLt has no FP8 GEMM with "
                     "two E5M2 operands, and TE never asks for one (an E5M2 "
                     "gradient meets an E4M3 activation or weight)");
  EXPECT_EQ(gemmError("\"b_scale_mode\": \"scalar_f32\"",
                      "\"b_scale_mode\": \"vec32_ue8m0\""),
            prefix + "A and B need compatible scaling modes, got scalar_f32 "
                     "and vec32_ue8m0");
  EXPECT_EQ(gemmError("\"a_scale_mode\": \"scalar_f32\", \"b_scale_mode\": "
                      "\"scalar_f32\"",
                      "\"a_scale_mode\": \"blk128x128_f32\", "
                      "\"b_scale_mode\": \"blk128x128_f32\""),
            prefix + "both A and B have 128x128 block scales "
                     "(blk128x128_f32); cuBLASLt (and TE) support 1D x 1D, 1D "
                     "x 2D and 2D x 1D block scaling only");
  EXPECT_EQ(gemmError("\"bias_type\": \"bf16\"", "\"bias_type\": \"f32\""),
            prefix + "an FP8/FP4 GEMM cannot take an f32 bias (cuBLASLt FP8 "
                     "has no FP32 bias; TE casts it to bf16)");
  EXPECT_EQ(gemmError("\"compute_type\": \"32f\"",
                      "\"compute_type\": \"32f_fast_tf32\""),
            prefix + "compute type 32f_fast_tf32 needs f32 operands (TE uses "
                     "it only when A, B and D are f32)");
  // High-precision operands of different types.
  const std::string hp =
      R"({"id": 0, "name": "hp", "m": 8, "n": 8, "k": 8, "transa": false,
    "transb": false, "a_type": "bf16", "b_type": "f16", "d_type": "f32",
    "lda": 8, "ldb": 8, "ldd": 8, "a_scale_mode": "none",
    "b_scale_mode": "none", "epilogue": "default", "accumulate": false,
    "fast_accum": false, "alpha": "host", "compute_type": "32f"})";
  EXPECT_EQ(errorOf(manifestWith(hp)),
            "manifest: gemms[0]: GEMM 'hp' (id 0): A is bf16 but B is f16: "
            "high-precision operands must have the same type");
}

TEST(GemmManifestTest, DeviceChecks) {
  // TE's nvte_is_non_tn_fp8_gemm_supported.
  auto nonTN = [](int sm) {
    return mlir::teq::layout::TargetCaps::fromSM(sm).nonTNFP8GemmSupported();
  };
  EXPECT_FALSE(nonTN(89));
  EXPECT_FALSE(nonTN(90));
  EXPECT_TRUE(nonTN(100));
  EXPECT_TRUE(nonTN(103));
  EXPECT_FALSE(nonTN(120));
  EXPECT_TRUE(nonTN(130));

  GemmSpec tn = parseGemm(kFprop);
  EXPECT_TRUE(checkGemmForDevice(tn, 90).ok());
  GemmSpec nn = parseGemm(editedGemm("\"transa\": true", "\"transa\": false"));
  ASSERT_EQ(nn.name, "linear:fc1.fprop"); // lda 128 >= m 64: still valid
  EXPECT_EQ(checkGemmForDevice(nn, 90).message(),
            "GEMM 'linear:fc1.fprop' (id 0): FP8 GEMM in the NN layout, but "
            "cuBLASLt runs FP8 GEMMs only as TN (transa=T, transb=N) on sm_90 "
            "(non-TN FP8 needs sm_100 to sm_119 or sm_130+; the compiler must "
            "use the operands' transposed data)");
  EXPECT_TRUE(checkGemmForDevice(nn, 100).ok());
  EXPECT_FALSE(checkGemmForDevice(nn, 120).ok());
  // High precision runs in any layout.
  const std::string hp =
      R"({"id": 0, "name": "hp", "m": 8, "n": 8, "k": 8, "transa": false,
    "transb": true, "a_type": "bf16", "b_type": "bf16", "d_type": "bf16",
    "lda": 8, "ldb": 8, "ldd": 8, "a_scale_mode": "none",
    "b_scale_mode": "none", "epilogue": "default", "accumulate": false,
    "fast_accum": false, "alpha": "host", "compute_type": "32f"})";
  EXPECT_TRUE(checkGemmForDevice(parseGemm(hp), 90).ok());
}

TEST(GemmManifestTest, WorkspaceAndTemporaries) {
  auto manifest = parseManifest(R"({"format": "teq-artifact", "version": 1,
    "target": "sm_90", "device_code": "ptx", "entries": [
      {"name": "a", "workspace_bytes": 4096, "args": [
        {"name": "x", "kind": "input", "tensor": {"dtype": "bf16", "shape": [4]}}],
       "temporaries": [
        {"name": "t0", "kind": "temporary",
         "tensor": {"dtype": "f32", "shape": [2, 2]},
         "computed_by": {"op": "arith.negf", "inputs": ["x"]}}]},
      {"name": "b", "workspace_bytes": 100000, "args": []},
      {"name": "c", "args": []}]})");
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  const EntrySpec &a = manifest->entries[0];
  EXPECT_EQ(a.workspaceBytes, 4096);
  // The workspace is not an argument buffer.
  EXPECT_EQ(a.numBuffers(), 1u);
  ASSERT_EQ(a.temporaries.size(), 1u);
  EXPECT_EQ(a.temporaries[0].name, "t0");
  EXPECT_EQ(a.temporaries[0].kind, ArgKind::Temporary);
  EXPECT_FALSE(a.temporaries[0].isRead());
  EXPECT_FALSE(a.temporaries[0].isWritten());
  EXPECT_EQ(a.temporaries[0].buffers[0].bytes, 16);
  EXPECT_EQ(a.temporaries[0].computedBy->opName(), "arith.negf");
  EXPECT_EQ(stringifyArgKind(ArgKind::Temporary), std::string("temporary"));
  EXPECT_EQ(manifest->entries[1].workspaceBytes, 100000);
  EXPECT_EQ(manifest->entries[2].workspaceBytes, 0);
  EXPECT_EQ(manifest->maxWorkspaceBytes(), 100000);

  auto entryError = [](const std::string &entry) {
    return errorOf(R"({"format": "teq-artifact", "version": 1,
      "target": "sm_90", "device_code": "ptx", "entries": [)" +
                   entry + "]}");
  };
  EXPECT_EQ(entryError(R"({"name": "e", "workspace_bytes": -1, "args": []})"),
            "manifest: entries[0].workspace_bytes: negative size -1");
  EXPECT_EQ(
      entryError(R"({"name": "e", "workspace_bytes": "1k", "args": []})"),
      "manifest: entries[0].workspace_bytes: expected an integer, got a "
      "string");
  EXPECT_EQ(entryError(R"({"name": "e", "args": [], "temporaries": {}})"),
            "manifest: entries[0].temporaries: expected an array, got an "
            "object");
  EXPECT_EQ(entryError(R"({"name": "e", "args": [], "temporaries": [
      {"name": "t", "kind": "output", "tensor": {"dtype": "f32", "shape": [1]}}]})"),
            "manifest: entries[0].temporaries[0].kind: a temporary has kind "
            "\"temporary\", got \"output\"");
  EXPECT_EQ(entryError(R"({"name": "e", "args": [
      {"name": "t", "kind": "temporary", "tensor": {"dtype": "f32", "shape": [1]}}]})"),
            "manifest: entries[0].args[0].kind: kind \"temporary\" is only "
            "for the entry's \"temporaries\"");
  EXPECT_EQ(entryError(R"({"name": "e", "args": [
      {"name": "t", "kind": "input", "tensor": {"dtype": "f32", "shape": [1]}}],
      "temporaries": [
      {"name": "t", "kind": "temporary", "tensor": {"dtype": "f32", "shape": [1]}}]})"),
            "manifest: entries[0].temporaries[0].name: duplicate name \"t\" "
            "(arguments and temporaries share names)");
}

//===----------------------------------------------------------------------===//
// Pointers and teqGemm without a GPU
//===----------------------------------------------------------------------===//

TEST(GemmPointerTest, RequiredPointersAndAlignment) {
  GemmSpec fprop = parseGemm(kFprop);
  GemmPointers p;
  p.a = 0x10000;
  p.aScale = 0x20004;
  p.b = 0x30000;
  p.bScale = 0x40008;
  p.d = 0x50000;
  p.bias = 0x60002;
  EXPECT_TRUE(checkGemmPointers(fprop, p).ok());
  const std::string prefix = "GEMM 'linear:fc1.fprop' (id 0): ";
  auto without = [&](DevicePtr GemmPointers::*field) {
    GemmPointers q = p;
    q.*field = 0;
    return checkGemmPointers(fprop, q).message();
  };
  EXPECT_EQ(without(&GemmPointers::a), prefix + "missing the A pointer");
  EXPECT_EQ(without(&GemmPointers::b), prefix + "missing the B pointer");
  EXPECT_EQ(without(&GemmPointers::d), prefix + "missing the D pointer");
  EXPECT_EQ(without(&GemmPointers::aScale),
            prefix + "missing the scale pointer of A (e4m3, scale mode "
                     "scalar_f32)");
  EXPECT_EQ(without(&GemmPointers::bScale),
            prefix + "missing the scale pointer of B (e4m3, scale mode "
                     "scalar_f32)");
  EXPECT_EQ(without(&GemmPointers::bias),
            prefix + "missing the bias pointer (epilogue bias)");
  // C and alpha are not needed here, and ignored if given.
  EXPECT_TRUE(without(&GemmPointers::c).empty());
  GemmPointers extra = p;
  extra.c = 0x3;
  extra.alpha = 0x5;
  EXPECT_TRUE(checkGemmPointers(fprop, extra).ok());

  GemmPointers misaligned = p;
  misaligned.d = 0x50080;
  EXPECT_EQ(checkGemmPointers(fprop, misaligned).message(),
            prefix + "D pointer 0x50080 is not 256-byte aligned (the "
                     "cuBLASLt algorithm is chosen for 256-byte aligned "
                     "operands)");

  const std::string wgrad = R"({"id": 0, "name": "wgrad", "m": 64, "n": 32,
    "k": 16, "transa": false, "transb": true, "a_type": "bf16",
    "b_type": "bf16", "d_type": "f32", "lda": 64, "ldb": 32, "ldd": 64,
    "a_scale_mode": "none", "b_scale_mode": "none", "epilogue": "bgradb",
    "bias_type": "bf16", "accumulate": true, "fast_accum": false,
    "alpha": "device", "compute_type": "32f"})";
  GemmSpec accumulating = parseGemm(wgrad);
  GemmPointers q;
  q.a = 0x100;
  q.b = 0x200;
  q.d = 0x300;
  q.c = 0x300;
  q.bias = 0x400;
  q.alpha = 0x500;
  EXPECT_TRUE(checkGemmPointers(accumulating, q).ok());
  GemmPointers noC = q;
  noC.c = 0;
  EXPECT_EQ(checkGemmPointers(accumulating, noC).message(),
            "GEMM 'wgrad' (id 0): missing the C pointer (the GEMM "
            "accumulates into C)");
  GemmPointers noBias = q;
  noBias.bias = 0;
  EXPECT_EQ(checkGemmPointers(accumulating, noBias).message(),
            "GEMM 'wgrad' (id 0): missing the dbias output pointer (epilogue "
            "bgradb)");
  GemmPointers noAlpha = q;
  noAlpha.alpha = 0;
  EXPECT_EQ(checkGemmPointers(accumulating, noAlpha).message(),
            "GEMM 'wgrad' (id 0): missing the alpha pointer (alpha is a "
            "device pointer)");
  GemmPointers oddC = q;
  oddC.c = 0x310;
  EXPECT_EQ(checkGemmPointers(accumulating, oddC).message(),
            "GEMM 'wgrad' (id 0): C pointer 0x310 is not 256-byte aligned "
            "(the cuBLASLt algorithm is chosen for 256-byte aligned "
            "operands)");
}

TEST(TeqGemmTest, ErrorsWithoutAPlan) {
  clearMgpuError();
  teqGemm(0, 0x100, 0, 0x200, 0, 0, 0x300, 0, 0);
  EXPECT_EQ(takeMgpuError().message(),
            "GEMM id 0: teqGemm called with no artifact's GEMMs current on "
            "this thread (it must be called from an entry the TEQ runtime "
            "runs)");
  GemmPlans none;
  {
    detail::GemmScope scope(&none);
    teqGemm(3, 0x100, 0, 0x200, 0, 0, 0x300, 0, 0);
    EXPECT_EQ(takeMgpuError().message(),
              "GEMM id 3 is out of range: the artifact has 0 GEMMs");
    teqGemm(-1, 0, 0, 0, 0, 0, 0, 0, 0);
    EXPECT_EQ(takeMgpuError().message(),
              "GEMM id -1 is out of range: the artifact has 0 GEMMs");
    // The first error wins.
    mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr,
                     0);
    teqGemm(5, 0, 0, 0, 0, 0, 0, 0, 0);
    EXPECT_EQ(takeMgpuError().message(), "kernel launch with a null function");
    // Inspecting: nothing runs, nothing is recorded.
    {
      detail::MgpuScope inspect(nullptr, /*inspectOnly=*/true);
      teqGemm(5, 0, 0, 0, 0, 0, 0, 0, 0);
      EXPECT_FALSE(hasMgpuError());
    }
    {
      // Scopes nest.
      detail::GemmScope inner(nullptr);
      teqGemm(0, 0, 0, 0, 0, 0, 0, 0, 0);
      EXPECT_TRUE(contains(takeMgpuError().message(), "no artifact's GEMMs"));
    }
    teqGemm(1, 0, 0, 0, 0, 0, 0, 0, 0);
    EXPECT_TRUE(contains(takeMgpuError().message(), "out of range"));
  }
  EXPECT_FALSE(hasMgpuError());
}

TEST(TeqGemmTest, ExportedFromTheRuntime) {
  EXPECT_NE(dlsym(RTLD_DEFAULT, "teqGemm"), nullptr);
}

TEST(TeqGemmTest, InspectReadsTheGemmsWithoutAGpu) {
  auto manifest = Artifact::inspect(TEQ_FAKE_ARTIFACT_GEMM);
  ASSERT_TRUE(manifest.ok()) << manifest.message();
  ASSERT_EQ(manifest->gemms.size(), 1u);
  EXPECT_EQ(manifest->gemms[0].name, "fake:fprop");
  EXPECT_EQ(manifest->entries[0].workspaceBytes, 4000);
  EXPECT_EQ(manifest->entries[0].numBuffers(), 3u);
}

//===----------------------------------------------------------------------===//
// On the GPU
//===----------------------------------------------------------------------===//

std::shared_ptr<Context> contextOrSkip() {
  auto context = Context::create(0);
  if (!context.ok())
    return nullptr;
  return *context;
}

float e4m3ToFloat(uint8_t byte) {
  const int sign = byte >> 7, exponent = (byte >> 3) & 0xF, mantissa = byte & 7;
  float value = exponent == 0
                    ? std::ldexp(mantissa / 8.0f, -6)
                    : std::ldexp(1.0f + mantissa / 8.0f, exponent - 7);
  return sign ? -value : value;
}

uint16_t floatToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  // Round to nearest even (no NaNs here).
  bits += 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

float bf16ToFloat(uint16_t value) {
  uint32_t bits = static_cast<uint32_t>(value) << 16;
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

template <typename T>
StatusOr<DeviceBuffer> upload(const std::shared_ptr<Context> &context,
                              const std::vector<T> &host) {
  auto buffer = DeviceBuffer::allocate(context, host.size() * sizeof(T));
  if (!buffer.ok())
    return buffer.status();
  Status status = buffer->upload(host.data(), host.size() * sizeof(T));
  if (!status.ok())
    return status;
  return buffer;
}

template <typename T>
std::vector<T> download(const DeviceBuffer &buffer) {
  std::vector<T> host(buffer.size() / sizeof(T));
  Status status = buffer.download(host.data(), host.size() * sizeof(T));
  EXPECT_TRUE(status.ok()) << status.message();
  return host;
}

/// Small exactly representable values: every product and sum below is exact
/// in fp32, so the GPU must match the CPU after the output rounding.
std::vector<uint8_t> randomE4M3(size_t count, std::mt19937 &rng) {
  // 0, +-0.5, +-1, +-1.5, +-2, +-3.
  const uint8_t codes[] = {0x00, 0x30, 0xB0, 0x38, 0xB8, 0x3C,
                           0xBC, 0x40, 0xC0, 0x44, 0xC4};
  std::uniform_int_distribution<size_t> pick(0, sizeof(codes) - 1);
  std::vector<uint8_t> values(count);
  for (uint8_t &v : values)
    v = codes[pick(rng)];
  return values;
}

std::vector<uint16_t> randomBf16(size_t count, std::mt19937 &rng) {
  std::uniform_int_distribution<int> pick(-8, 8);
  std::vector<uint16_t> values(count);
  for (uint16_t &v : values)
    v = floatToBf16(pick(rng) * 0.25f);
  return values;
}

TEST(GemmPlanGpuTest, Fp8PerTensorTnWithBias) {
  auto context = contextOrSkip();
  if (!context)
    GTEST_SKIP() << "no CUDA device";
  if (context->device().computeCapability < 89)
    GTEST_SKIP() << "FP8 GEMMs need sm_89+";
  // Split accumulation (fast_accum off), so the sums are exact.
  GemmSpec spec =
      parseGemm(editedGemm("\"fast_accum\": true", "\"fast_accum\": false"));
  auto plan = GemmPlan::create(spec, context);
  ASSERT_TRUE(plan.ok()) << plan.message();
  const GemmPlanInfo &info = (*plan)->info();
  EXPECT_EQ(info.name, "linear:fc1.fprop");
  EXPECT_EQ(info.layout, "TN");
  EXPECT_FALSE(info.pinned);
  EXPECT_FALSE(info.cublasLtVersion.empty());
  std::printf("[ info     ] %s on %s: %s, workspace %llu, cuBLASLt %s\n",
              info.name.c_str(), context->device().name.c_str(),
              info.describeAlgorithm().c_str(),
              static_cast<unsigned long long>(info.workspaceBytes),
              info.cublasLtVersion.c_str());

  const int64_t m = spec.m, n = spec.n, k = spec.k;
  std::mt19937 rng(7);
  // A stored k x m (lda = k): row i of op(A) is contiguous.
  std::vector<uint8_t> a = randomE4M3(size_t(m * k), rng);
  std::vector<uint8_t> b = randomE4M3(size_t(n * k), rng);
  std::vector<uint16_t> bias = randomBf16(size_t(m), rng);
  const std::vector<float> aScale = {0.5f}, bScale = {4.0f};
  auto aBuf = upload(context, a), bBuf = upload(context, b);
  auto biasBuf = upload(context, bias);
  auto aScaleBuf = upload(context, aScale), bScaleBuf = upload(context, bScale);
  auto dBuf = DeviceBuffer::allocate(context, size_t(m * n) * 2);
  ASSERT_TRUE(aBuf.ok() && bBuf.ok() && biasBuf.ok() && aScaleBuf.ok() &&
              bScaleBuf.ok() && dBuf.ok());
  ASSERT_TRUE(dBuf->fill(0xFF).ok());

  GemmPointers p;
  p.a = aBuf->ptr();
  p.aScale = aScaleBuf->ptr();
  p.b = bBuf->ptr();
  p.bScale = bScaleBuf->ptr();
  p.d = dBuf->ptr();
  p.bias = biasBuf->ptr();
  Status status = (*plan)->run(p);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_TRUE(context->synchronize().ok());
  std::vector<uint16_t> d = download<uint16_t>(*dBuf);

  int mismatches = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      double sum = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        sum += double(e4m3ToFloat(a[size_t(i * k + kk)])) *
               double(e4m3ToFloat(b[size_t(j * k + kk)]));
      float expected = float(sum * aScale[0] * bScale[0]) +
                       bf16ToFloat(bias[size_t(i)]);
      float got = bf16ToFloat(d[size_t(i + j * m)]);
      float want = bf16ToFloat(floatToBf16(expected));
      if (got != want && ++mismatches <= 5)
        ADD_FAILURE() << "D(" << i << ", " << j << ") = " << got
                      << ", expected " << want << " (" << expected << ")";
    }
  EXPECT_EQ(mismatches, 0);

  // The same algorithm, pinned: same configuration, same bits.
  GemmSpec pinnedSpec = spec;
  pinnedSpec.hasAlgo = true;
  pinnedSpec.algo.id = info.algoId;
  pinnedSpec.algo.tile = info.tile;
  pinnedSpec.algo.stages = info.stages;
  pinnedSpec.algo.splitK = info.splitK;
  pinnedSpec.algo.reduction = info.reduction;
  pinnedSpec.algo.swizzle = info.swizzle;
  pinnedSpec.algo.custom = info.custom;
  pinnedSpec.algo.innerShape = info.innerShape;
  pinnedSpec.algo.clusterShape = info.clusterShape;
  auto pinned = GemmPlan::create(pinnedSpec, context);
  ASSERT_TRUE(pinned.ok()) << pinned.message();
  EXPECT_TRUE((*pinned)->info().pinned);
  EXPECT_EQ((*pinned)->info().describeAlgorithm(),
            info.describeAlgorithm() + " (pinned)");
  ASSERT_TRUE(dBuf->fill(0).ok());
  status = (*pinned)->run(p);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_TRUE(context->synchronize().ok());
  EXPECT_EQ(download<uint16_t>(*dBuf), d);

  // An algorithm id no GPU has.
  GemmSpec bogus = spec;
  bogus.hasAlgo = true;
  bogus.algo = GemmAlgoSpec();
  bogus.algo.id = 100000;
  auto refused = GemmPlan::create(bogus, context);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(contains(refused.message(),
                       "GEMM 'linear:fc1.fprop' (id 0): the manifest's "
                       "algorithm (algo 100000, "))
      << refused.message();
  std::printf("[ info     ] %s\n", refused.message().c_str());

  // Pointer errors come back from run().
  GemmPointers noScale = p;
  noScale.bScale = 0;
  EXPECT_EQ((*plan)->run(noScale).message(),
            "GEMM 'linear:fc1.fprop' (id 0): missing the scale pointer of B "
            "(e4m3, scale mode scalar_f32)");
}

TEST(GemmPlanGpuTest, BlockScaledFp8TwoDByOneD) {
  auto context = contextOrSkip();
  if (!context)
    GTEST_SKIP() << "no CUDA device";
  if (context->device().computeCapability != 90)
    GTEST_SKIP() << "cuBLASLt block-scaled FP8 runs on sm_90 only (TE "
                    "emulates it with MXFP8 on sm_100+)";
  // TE's block-scaled fprop: A (weight) with 128x128 blocks, B (input) with
  // 1x128 blocks. cuBLASLt will not even choose an algorithm without scale
  // pointers, which the plan provides placeholders for. Uniform scales, so
  // the scale layout does not matter here.
  const std::string block = R"({"id": 0, "name": "block", "m": 256,
    "n": 128, "k": 256, "transa": true, "transb": false, "a_type": "e4m3",
    "b_type": "e4m3", "d_type": "bf16", "lda": 256, "ldb": 256, "ldd": 256,
    "a_scale_mode": "blk128x128_f32", "b_scale_mode": "vec128_f32",
    "epilogue": "default", "accumulate": false, "fast_accum": false,
    "alpha": "host", "compute_type": "32f"})";
  GemmSpec spec = parseGemm(block);
  auto plan = GemmPlan::create(spec, context);
  ASSERT_TRUE(plan.ok()) << plan.message();
  std::printf("[ info     ] block FP8: %s\n",
              (*plan)->info().describeAlgorithm().c_str());
  const int64_t m = spec.m, n = spec.n, k = spec.k;
  std::mt19937 rng(13);
  std::vector<uint8_t> a = randomE4M3(size_t(m * k), rng);
  std::vector<uint8_t> b = randomE4M3(size_t(n * k), rng);
  // More scales than either layout has.
  std::vector<float> aScale(size_t(m * k / 16), 0.5f);
  std::vector<float> bScale(size_t(n * k / 16), 4.0f);
  auto aBuf = upload(context, a), bBuf = upload(context, b);
  auto aScaleBuf = upload(context, aScale), bScaleBuf = upload(context, bScale);
  auto dBuf = DeviceBuffer::allocate(context, size_t(m * n) * 2);
  ASSERT_TRUE(aBuf.ok() && bBuf.ok() && aScaleBuf.ok() && bScaleBuf.ok() &&
              dBuf.ok());
  GemmPointers p;
  p.a = aBuf->ptr();
  p.aScale = aScaleBuf->ptr();
  p.b = bBuf->ptr();
  p.bScale = bScaleBuf->ptr();
  p.d = dBuf->ptr();
  Status status = (*plan)->run(p);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_TRUE(context->synchronize().ok());
  std::vector<uint16_t> d = download<uint16_t>(*dBuf);
  int mismatches = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      double sum = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        sum += double(e4m3ToFloat(a[size_t(i * k + kk)])) *
               double(e4m3ToFloat(b[size_t(j * k + kk)]));
      float want = bf16ToFloat(floatToBf16(float(sum * 2.0)));
      float got = bf16ToFloat(d[size_t(i + j * m)]);
      if (got != want && ++mismatches <= 5)
        ADD_FAILURE() << "D(" << i << ", " << j << ") = " << got
                      << ", expected " << want;
    }
  EXPECT_EQ(mismatches, 0);
}

TEST(GemmPlanGpuTest, Bf16NnDeviceAlphaAccumulate) {
  auto context = contextOrSkip();
  if (!context)
    GTEST_SKIP() << "no CUDA device";
  // D (f32) = alpha * A B + D, A stored m x k, B stored k x n (NN).
  const std::string nn = R"({"id": 0, "name": "nn", "m": 48, "n": 40,
    "k": 64, "transa": false, "transb": false, "a_type": "bf16",
    "b_type": "bf16", "d_type": "f32", "lda": 48, "ldb": 64, "ldd": 48,
    "a_scale_mode": "none", "b_scale_mode": "none", "epilogue": "default",
    "accumulate": true, "fast_accum": false, "alpha": "device",
    "compute_type": "32f"})";
  GemmSpec spec = parseGemm(nn);
  auto plan = GemmPlan::create(spec, context);
  ASSERT_TRUE(plan.ok()) << plan.message();
  EXPECT_EQ((*plan)->info().layout, "NN");
  const int64_t m = spec.m, n = spec.n, k = spec.k;
  std::mt19937 rng(11);
  std::vector<uint16_t> a = randomBf16(size_t(m * k), rng);
  std::vector<uint16_t> b = randomBf16(size_t(k * n), rng);
  std::vector<float> d0(size_t(m * n));
  for (size_t i = 0; i < d0.size(); ++i)
    d0[i] = float(int(i % 17) - 8);
  const std::vector<float> alpha = {2.0f};
  auto aBuf = upload(context, a), bBuf = upload(context, b);
  auto dBuf = upload(context, d0), alphaBuf = upload(context, alpha);
  ASSERT_TRUE(aBuf.ok() && bBuf.ok() && dBuf.ok() && alphaBuf.ok());
  GemmPointers p;
  p.a = aBuf->ptr();
  p.b = bBuf->ptr();
  p.c = dBuf->ptr(); // in place, as TE's wgrad accumulation into main_grad
  p.d = dBuf->ptr();
  p.alpha = alphaBuf->ptr();
  Status status = (*plan)->run(p);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_TRUE(context->synchronize().ok());
  std::vector<float> d = download<float>(*dBuf);
  int mismatches = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      double sum = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        sum += double(bf16ToFloat(a[size_t(i + kk * m)])) *
               double(bf16ToFloat(b[size_t(kk + j * k)]));
      float want = float(2.0 * sum + d0[size_t(i + j * m)]);
      float got = d[size_t(i + j * m)];
      if (got != want && ++mismatches <= 5)
        ADD_FAILURE() << "D(" << i << ", " << j << ") = " << got
                      << ", expected " << want;
    }
  EXPECT_EQ(mismatches, 0);
}

TEST(GemmPlanGpuTest, Bf16WgradWithBgradb) {
  auto context = contextOrSkip();
  if (!context)
    GTEST_SKIP() << "no CUDA device";
  // TE's non-FP8 wgrad with a bias: NT, dbias = sums of op(B) over k.
  const std::string nt = R"({"id": 0, "name": "wgrad", "m": 64, "n": 32,
    "k": 128, "transa": false, "transb": true, "a_type": "bf16",
    "b_type": "bf16", "d_type": "bf16", "lda": 64, "ldb": 32, "ldd": 64,
    "a_scale_mode": "none", "b_scale_mode": "none", "epilogue": "bgradb",
    "bias_type": "bf16", "accumulate": false, "fast_accum": false,
    "alpha": "host", "compute_type": "32f"})";
  GemmSpec spec = parseGemm(nt);
  auto plan = GemmPlan::create(spec, context);
  ASSERT_TRUE(plan.ok()) << plan.message();
  const int64_t m = spec.m, n = spec.n, k = spec.k;
  std::mt19937 rng(5);
  std::vector<uint16_t> a = randomBf16(size_t(m * k), rng); // m x k
  std::vector<uint16_t> b = randomBf16(size_t(n * k), rng); // n x k
  auto aBuf = upload(context, a), bBuf = upload(context, b);
  auto dBuf = DeviceBuffer::allocate(context, size_t(m * n) * 2);
  auto dbiasBuf = DeviceBuffer::allocate(context, size_t(n) * 2);
  ASSERT_TRUE(aBuf.ok() && bBuf.ok() && dBuf.ok() && dbiasBuf.ok());
  GemmPointers p;
  p.a = aBuf->ptr();
  p.b = bBuf->ptr();
  p.d = dBuf->ptr();
  p.bias = dbiasBuf->ptr();
  Status status = (*plan)->run(p);
  if (!status.ok() || !context->synchronize().ok())
    FAIL() << status.message();
  std::vector<uint16_t> d = download<uint16_t>(*dBuf);
  std::vector<uint16_t> dbias = download<uint16_t>(*dbiasBuf);
  int mismatches = 0;
  for (int64_t j = 0; j < n; ++j) {
    double biasSum = 0;
    for (int64_t kk = 0; kk < k; ++kk)
      biasSum += bf16ToFloat(b[size_t(j + kk * n)]);
    float wantBias = bf16ToFloat(floatToBf16(float(biasSum)));
    if (bf16ToFloat(dbias[size_t(j)]) != wantBias && ++mismatches <= 5)
      ADD_FAILURE() << "dbias(" << j << ") = " << bf16ToFloat(dbias[size_t(j)])
                    << ", expected " << wantBias;
    for (int64_t i = 0; i < m; ++i) {
      double sum = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        sum += double(bf16ToFloat(a[size_t(i + kk * m)])) *
               double(bf16ToFloat(b[size_t(j + kk * n)]));
      float want = bf16ToFloat(floatToBf16(float(sum)));
      float got = bf16ToFloat(d[size_t(i + j * m)]);
      if (got != want && ++mismatches <= 5)
        ADD_FAILURE() << "D(" << i << ", " << j << ") = " << got
                      << ", expected " << want;
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(GemmPlanGpuTest, OpenRefusesNonTnFp8BeforeBlackwell) {
  auto context = contextOrSkip();
  if (!context)
    GTEST_SKIP() << "no CUDA device";
  GemmSpec nn = parseGemm(editedGemm("\"transa\": true", "\"transa\": false"));
  auto plan = GemmPlan::create(nn, context);
  if (mlir::teq::layout::TargetCaps::fromSM(
          context->device().computeCapability)
          .nonTNFP8GemmSupported())
    GTEST_SKIP() << "non-TN FP8 runs here: " << plan.message();
  EXPECT_EQ(plan.message(),
            checkGemmForDevice(nn, context->device().computeCapability)
                .message());
}

TEST(GemmPlanGpuTest, NoAlgorithmNamesTheGemmAndTheProblem) {
  auto context = contextOrSkip();
  if (!context)
    GTEST_SKIP() << "no CUDA device";
  if (context->device().computeCapability >= 100)
    GTEST_SKIP() << "MXFP8 runs here";
  // MXFP8 needs sm_100: before it, cuBLASLt has no algorithm.
  const std::string mxfp8 = R"({"id": 0, "name": "mxfp8", "m": 64, "n": 64,
    "k": 64, "transa": true, "transb": false, "a_type": "e4m3",
    "b_type": "e4m3", "d_type": "bf16", "lda": 64, "ldb": 64, "ldd": 64,
    "a_scale_mode": "vec32_ue8m0", "b_scale_mode": "vec32_ue8m0",
    "epilogue": "default", "accumulate": false, "fast_accum": false,
    "alpha": "host", "compute_type": "32f"})";
  auto plan = GemmPlan::create(parseGemm(mxfp8), context);
  ASSERT_FALSE(plan.ok());
  std::printf("[ info     ] %s\n", plan.message().c_str());
  EXPECT_TRUE(contains(plan.message(),
                       "GEMM 'mxfp8' (id 0): no cuBLASLt algorithm for m=64 "
                       "n=64 k=64 transa=T transb=N A=e4m3 (lda 64) B=e4m3 "
                       "(ldb 64) D=bf16 (ldd 64) (scale modes "
                       "vec32_ue8m0/vec32_ue8m0, epilogue default, fast_accum "
                       "0) on " +
                           context->device().smName() + " with cuBLASLt "))
      << plan.message();
  EXPECT_TRUE(contains(plan.message(), "cublasLtMatmulAlgoGetHeuristic"))
      << plan.message();
}

TEST(ArtifactGemmTest, EntriesCallTeqGemm) {
  auto context = contextOrSkip();
  if (!context)
    GTEST_SKIP() << "no CUDA device";
  const std::string path = TEQ_FAKE_ARTIFACT_GEMM;
  auto artifact = Artifact::open(path, context);
  ASSERT_TRUE(artifact.ok()) << artifact.message();
  ASSERT_EQ((*artifact)->gemmPlans().size(), 1u);
  std::vector<GemmPlanInfo> infos = (*artifact)->gemmPlanInfos();
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(infos[0].name, "fake:fprop");
  EXPECT_EQ(infos[0].toJson().find("algo")->find("id")->asInteger(),
            infos[0].algoId);
  EXPECT_GE((*artifact)->workspaces().bytes(), 4000u);
  {
    auto slot = (*artifact)->workspaces().acquire(context->stream());
    ASSERT_TRUE(slot.ok()) << slot.message();
    EXPECT_NE(slot->ptr(), 0u);
    EXPECT_EQ(slot->ptr() % 256, 0u);
  }

  const int64_t m = 32, n = 16, k = 64;
  std::mt19937 rng(3);
  std::vector<uint16_t> w = randomBf16(size_t(m * k), rng);
  std::vector<uint16_t> x = randomBf16(size_t(n * k), rng);
  auto wBuf = upload(context, w), xBuf = upload(context, x);
  auto yBuf = DeviceBuffer::allocate(context, size_t(m * n) * 2);
  ASSERT_TRUE(wBuf.ok() && xBuf.ok() && yBuf.ok());
  auto entry = (*artifact)->entry("gemm");
  ASSERT_TRUE(entry.ok());
  EXPECT_EQ((*entry)->numBuffers(), 3u);
  Status status = (*entry)->run({wBuf->ptr(), xBuf->ptr(), yBuf->ptr()},
                                RunOptions{true, true});
  ASSERT_TRUE(status.ok()) << status.message();
  std::vector<uint16_t> y = download<uint16_t>(*yBuf);
  int mismatches = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      double sum = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        sum += double(bf16ToFloat(w[size_t(i * k + kk)])) *
               double(bf16ToFloat(x[size_t(j * k + kk)]));
      float want = bf16ToFloat(floatToBf16(float(sum)));
      if (bf16ToFloat(y[size_t(i + j * m)]) != want && ++mismatches <= 5)
        ADD_FAILURE() << "y[" << j << "][" << i << "] = "
                      << bf16ToFloat(y[size_t(i + j * m)]) << ", expected "
                      << want;
    }
  EXPECT_EQ(mismatches, 0);

  auto badId = (*artifact)->entry("gemm_bad_id");
  ASSERT_TRUE(badId.ok());
  EXPECT_EQ((*badId)->run({}).message(),
            "entry 'gemm_bad_id': GEMM id 7 is out of range: the artifact has "
            "1 GEMM");
  auto noD = (*artifact)->entry("gemm_no_d");
  ASSERT_TRUE(noD.ok());
  EXPECT_EQ((*noD)->run({wBuf->ptr(), xBuf->ptr()}).message(),
            "entry 'gemm_no_d': GEMM 'fake:fprop' (id 0): missing the D "
            "pointer");
  EXPECT_FALSE(hasMgpuError());
  // Outside an entry, no plans are current.
  teqGemm(0, wBuf->ptr(), 0, xBuf->ptr(), 0, 0, yBuf->ptr(), 0, 0);
  EXPECT_TRUE(contains(takeMgpuError().message(), "no artifact's GEMMs"));
}

} // namespace

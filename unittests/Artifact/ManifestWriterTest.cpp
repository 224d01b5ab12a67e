//===- ManifestWriterTest.cpp - The manifest written and read back --------===//
//
// What the compiler builds (the contract's types) goes through
// writeManifest and comes back from parseManifest unchanged: every quantizer
// kind, every computed_by op, GEMMs with and without a pinned algorithm,
// temporaries and the workspace.
//
//===----------------------------------------------------------------------===//

#include "teq/Artifact/Manifest.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace mlir::teq::artifact;
namespace layout = mlir::teq::layout;

namespace {

GpuTarget targetOf(const std::string &name) {
  auto target = GpuTarget::parse(name);
  EXPECT_TRUE(target.ok()) << target.message();
  return target.ok() ? *target : GpuTarget();
}

ArgSpec tensorArg(const std::string &name, ArgKind kind,
                  const std::string &dtype, std::vector<int64_t> shape) {
  ArgSpec arg;
  arg.name = name;
  arg.kind = kind;
  arg.tensor = {dtype, std::move(shape)};
  return arg;
}

/// A proto argument with the buffers the layout library gives on `target`,
/// as the compiler describes one.
ArgSpec protoArg(const std::string &name, ArgKind kind, const GpuTarget &target,
                 const QuantizerDesc &quantizer, std::vector<int64_t> shape,
                 const std::string &usage,
                 const std::string &scaleLayout = "compact") {
  ArgSpec arg;
  arg.name = name;
  arg.kind = kind;
  arg.isProto = true;
  arg.proto.dtype = "bf16";
  arg.proto.shape = std::move(shape);
  arg.proto.quantizer = quantizer;
  arg.proto.usage = usage;
  arg.proto.scaleLayout = scaleLayout;
  arg.proto.text = "!teq.proto<...>";
  for (const layout::BufferDesc &desc :
       layout::describeBuffers(arg.proto.tensorDesc(), target.caps()))
    arg.buffers.push_back(BufferSpec::fromLayout(desc));
  return arg;
}

ComputedBy computed(ComputeOp op, const std::string &input = "") {
  ComputedBy by;
  by.op = op;
  by.input = input;
  return by;
}

/// A manifest for sm_100 with every quantizer kind and computed_by op.
Manifest buildManifest() {
  Manifest m;
  m.target = targetOf("sm_100a");
  m.deviceCode = DeviceCodeKind::Cubin;

  GemmSpec fprop;
  fprop.id = 0;
  fprop.name = "fwd:fprop0";
  fprop.m = 256;
  fprop.n = 64;
  fprop.k = 128;
  fprop.transa = true;
  fprop.aType = fprop.bType = GemmType::E4M3;
  fprop.lda = fprop.ldb = 128;
  fprop.ldd = 256;
  fprop.aScaleMode = fprop.bScaleMode = GemmScaleMode::ScalarF32;
  fprop.epilogue = GemmEpilogue::Bias;
  fprop.biasType = GemmType::BF16;
  fprop.fastAccum = true;
  m.gemms.push_back(fprop);
  GemmSpec wgrad;
  wgrad.id = 1;
  wgrad.name = "fwd:wgrad1";
  wgrad.m = 128;
  wgrad.n = 256;
  wgrad.k = 64;
  wgrad.transb = true;
  wgrad.dType = GemmType::F32;
  wgrad.lda = 128;
  wgrad.ldb = 256;
  wgrad.ldd = 128;
  wgrad.epilogue = GemmEpilogue::BGradB;
  wgrad.accumulate = true;
  wgrad.hasAlgo = true;
  wgrad.algo = {66, 10, 36, 2, 1, 0, 3, 0, 8};
  m.gemms.push_back(wgrad);

  EntrySpec e;
  e.name = "fwd";
  e.symbol = "teq_entry_fwd";
  e.workspaceBytes = 1 << 20;
  e.args.push_back(tensorArg("x", ArgKind::Input, "bf16", {64, 128}));
  e.args.push_back(tensorArg("w", ArgKind::Input, "bf16", {256, 128}));
  e.args.push_back(tensorArg("bias", ArgKind::Input, "bf16", {256}));
  e.args.push_back(tensorArg("rng", ArgKind::Input, "i64", {2}));
  e.args.push_back(tensorArg("scale", ArgKind::InOut, "f32", {1}));
  e.args.push_back(tensorArg("history", ArgKind::InOut, "f32", {4, 1}));
  e.args.push_back(tensorArg("dw_prev", ArgKind::Input, "f32", {256, 128}));

  ArgSpec y = tensorArg("y", ArgKind::Output, "bf16", {64, 256});
  ComputedBy gemm = computed(ComputeOp::Gemm);
  gemm.gemm = 0;
  gemm.transa = true;
  gemm.a = "t1";
  gemm.b = "view(t0)";
  gemm.bias = "bias";
  y.computedBy = gemm;
  e.args.push_back(y);
  ArgSpec act = tensorArg("act", ArgKind::Output, "bf16", {64, 256});
  ComputedBy tanh = computed(ComputeOp::Elementwise);
  tanh.elementwiseOp = "math.tanh";
  tanh.inputs = {"y"};
  act.computedBy = tanh;
  e.args.push_back(act);
  ArgSpec sum = tensorArg("sum", ArgKind::Output, "bf16", {64, 256});
  ComputedBy add = computed(ComputeOp::Elementwise);
  add.elementwiseOp = "arith.addf";
  add.inputs = {"y", "act"};
  sum.computedBy = add;
  e.args.push_back(sum);
  ArgSpec db = tensorArg("dy_sum", ArgKind::Output, "f32", {256});
  db.computedBy = computed(ComputeOp::BiasGrad, "y");
  e.args.push_back(db);
  ArgSpec xCopy = tensorArg("x_copy", ArgKind::Output, "bf16", {64, 128});
  xCopy.computedBy = computed(ComputeOp::Copy, "x");
  e.args.push_back(xCopy);

  // One output per quantizer kind, each with its non-default fields set.
  auto block = QuantizerDesc::defaultFor(QuantizerKind::Float8Block);
  block.fp8Dtype = layout::Encoding::E5M2;
  block.blockScalingDim = 1;
  block.forcePow2Scales = false;
  block.amaxEpsilon = 0.25;
  ArgSpec qBlock = protoArg("q_block", ArgKind::Output, m.target, block,
                            {256, 128}, "rowwise|columnwise");
  qBlock.computedBy = computed(ComputeOp::Quantize, "w");
  auto mx = QuantizerDesc::defaultFor(QuantizerKind::MXFP8);
  mx.with2DQuantization = true;
  ArgSpec qMx = protoArg("q_mx", ArgKind::Output, m.target, mx, {256, 128},
                         "columnwise", "gemm_swizzled");
  qMx.computedBy = computed(ComputeOp::Quantize, "w");
  auto nv = QuantizerDesc::defaultFor(QuantizerKind::NVFP4);
  nv.withRht = nv.withPostRhtAmax = nv.stochasticRounding = true;
  nv.with2DQuantization = nv.withAmaxReduction = true;
  ArgSpec qNv = protoArg("q_nv", ArgKind::Output, m.target, nv, {256, 128},
                         "rowwise");
  ComputedBy srQuantize = computed(ComputeOp::Quantize, "w");
  srQuantize.rngState = "rng";
  qNv.computedBy = srQuantize;
  ArgSpec qNvSwizzled = protoArg("q_nv_swizzled", ArgKind::Output, m.target, nv,
                                 {256, 128}, "rowwise", "gemm_swizzled");
  qNvSwizzled.computedBy = computed(ComputeOp::SwizzleScales, "q_nv");
  auto delayed = QuantizerDesc::defaultFor(QuantizerKind::Float8Delayed);
  ArgSpec qDelayed = protoArg("q_delayed", ArgKind::Output, m.target, delayed,
                              {64, 128}, "rowwise");
  ComputedBy delayedQuantize = computed(ComputeOp::Quantize, "x");
  delayedQuantize.scale = "scale";
  delayedQuantize.amaxHistory = "h0";
  qDelayed.computedBy = delayedQuantize;
  for (ArgSpec *arg : {&qBlock, &qMx, &qNv, &qNvSwizzled, &qDelayed})
    e.args.push_back(*arg);

  ArgSpec dw = tensorArg("dw", ArgKind::Output, "f32", {256, 128});
  ComputedBy wgradBy = computed(ComputeOp::Gemm);
  wgradBy.gemm = 1;
  wgradBy.transb = true;
  wgradBy.a = "x";
  wgradBy.b = "y";
  wgradBy.accumulate = "t2";
  wgradBy.useSplitAccumulator = true;
  dw.computedBy = wgradBy;
  e.args.push_back(dw);
  ArgSpec dbias = tensorArg("dbias", ArgKind::Output, "bf16", {256});
  ComputedBy dbiasBy = wgradBy;
  dbiasBy.outputsD = false;
  dbiasBy.accumulate.clear();
  dbias.computedBy = dbiasBy;
  e.args.push_back(dbias);
  ArgSpec scaleOut = tensorArg("scale_out", ArgKind::Output, "f32", {1});
  ComputedBy update = computed(ComputeOp::DelayedScalingUpdate);
  update.outputsScale = true;
  update.scale = "scale";
  update.amaxHistory = "h1";
  update.fp8Max = 448.0;
  update.margin = -3;
  update.mostRecentAmax = true;
  scaleOut.computedBy = update;
  e.args.push_back(scaleOut);

  // Temporaries: quantizations read by the GEMM, slices, record_amax.
  auto current =
      QuantizerDesc::defaultFor(QuantizerKind::Float8CurrentScaling);
  current.withAmaxReduction = current.forcePow2Scales = true;
  current.amaxEpsilon = 1e-6;
  ArgSpec t0 = protoArg("t0", ArgKind::Temporary, m.target, current,
                        {64, 128}, "rowwise|columnwise");
  t0.computedBy = computed(ComputeOp::Quantize, "x");
  ArgSpec t1 = protoArg("t1", ArgKind::Temporary, m.target, current,
                        {256, 128}, "rowwise");
  t1.computedBy = computed(ComputeOp::Quantize, "w");
  ArgSpec t2 = tensorArg("t2", ArgKind::Temporary, "f32", {256, 128});
  t2.computedBy = computed(ComputeOp::Copy, "dw_prev");
  ArgSpec h0 = tensorArg("h0", ArgKind::Temporary, "f32", {4});
  ComputedBy extract = computed(ComputeOp::ExtractSlice, "history");
  extract.offsets = {0, 0};
  extract.sizes = {4, 1};
  extract.strides = {1, 1};
  h0.computedBy = extract;
  ArgSpec h1 = tensorArg("h1", ArgKind::Temporary, "f32", {4, 1});
  ComputedBy insert = computed(ComputeOp::InsertSlice, "h2");
  insert.dest = "history";
  insert.offsets = {0, 0};
  insert.sizes = {4, 1};
  insert.strides = {1, 1};
  h1.computedBy = insert;
  ArgSpec h2 = tensorArg("h2", ArgKind::Temporary, "f32", {4});
  ComputedBy record = computed(ComputeOp::RecordAmax, "x");
  record.scale = "scale";
  record.amaxHistory = "h0";
  h2.computedBy = record;
  e.temporaries = {t0, t1, t2, h0, h1, h2};
  m.entries.push_back(e);
  m.dependentLaunchKernels = {"q1_nvfp4_data", "q0_nvfp4_data"};
  return m;
}

void expectSameBuffer(const BufferSpec &a, const BufferSpec &b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.encoding, b.encoding);
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.validShape, b.validShape);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.transposed, b.transposed);
  EXPECT_EQ(a.scaleLayout, b.scaleLayout);
}

void expectSameComputedBy(const ComputedBy &a, const ComputedBy &b) {
  EXPECT_EQ(a.opName(), b.opName());
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.namedValues(), b.namedValues());
  if (a.op == ComputeOp::Gemm) {
    EXPECT_EQ(a.gemm, b.gemm);
    EXPECT_EQ(a.outputsD, b.outputsD);
    EXPECT_EQ(a.layoutName(), b.layoutName());
    EXPECT_EQ(a.useSplitAccumulator, b.useSplitAccumulator);
  }
  if (a.op == ComputeOp::DelayedScalingUpdate) {
    EXPECT_EQ(a.outputsScale, b.outputsScale);
    EXPECT_EQ(a.fp8Max, b.fp8Max);
    EXPECT_EQ(a.margin, b.margin);
    EXPECT_EQ(a.mostRecentAmax, b.mostRecentAmax);
  }
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_EQ(a.sizes, b.sizes);
  EXPECT_EQ(a.strides, b.strides);
}

void expectSameArg(const ArgSpec &a, const ArgSpec &b) {
  SCOPED_TRACE("value '" + a.name + "'");
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.kind, b.kind);
  ASSERT_EQ(a.isProto, b.isProto);
  EXPECT_EQ(a.dtype(), b.dtype());
  EXPECT_EQ(a.shape(), b.shape());
  if (a.isProto) {
    EXPECT_EQ(a.proto.quantizer, b.proto.quantizer);
    EXPECT_EQ(a.proto.usage, b.proto.usage);
    EXPECT_EQ(a.proto.scaleLayout, b.proto.scaleLayout);
    EXPECT_EQ(a.proto.text, b.proto.text);
    ASSERT_EQ(a.buffers.size(), b.buffers.size());
    for (size_t i = 0; i < a.buffers.size(); ++i)
      expectSameBuffer(a.buffers[i], b.buffers[i]);
  }
  ASSERT_EQ(a.computedBy.has_value(), b.computedBy.has_value());
  if (a.computedBy)
    expectSameComputedBy(*a.computedBy, *b.computedBy);
}

TEST(ManifestWriterTest, RoundTripsWhatTheCompilerBuilds) {
  const Manifest built = buildManifest();
  const std::string text = writeManifest(built);
  auto read = parseManifest(text);
  ASSERT_TRUE(read.ok()) << read.message() << "\n" << text;
  EXPECT_EQ(read->target.name, "sm_100a");
  EXPECT_EQ(read->deviceCode, DeviceCodeKind::Cubin);
  EXPECT_EQ(read->dependentLaunchKernels, built.dependentLaunchKernels);
  ASSERT_EQ(read->gemms.size(), 2u);
  for (size_t g = 0; g < 2; ++g)
    EXPECT_EQ(toJson(read->gemms[g]).serialize(),
              toJson(built.gemms[g]).serialize());
  EXPECT_TRUE(read->gemms[1].hasAlgo);
  EXPECT_EQ(read->gemms[1].algo.splitK, 2);
  EXPECT_EQ(read->gemms[1].algo.clusterShape, 8);
  ASSERT_EQ(read->entries.size(), 1u);
  const EntrySpec &entry = read->entries[0];
  const EntrySpec &want = built.entries[0];
  EXPECT_EQ(entry.symbol, want.symbol);
  EXPECT_EQ(entry.workspaceBytes, want.workspaceBytes);
  ASSERT_EQ(entry.args.size(), want.args.size());
  for (size_t i = 0; i < want.args.size(); ++i)
    expectSameArg(want.args[i], entry.args[i]);
  ASSERT_EQ(entry.temporaries.size(), want.temporaries.size());
  for (size_t i = 0; i < want.temporaries.size(); ++i)
    expectSameArg(want.temporaries[i], entry.temporaries[i]);
  // Written again, the same bytes.
  EXPECT_EQ(writeManifest(*read), text);
}

TEST(ManifestWriterTest, WritesCompactJsonWithSortedKeys) {
  Manifest m;
  m.target = targetOf("sm_90");
  EntrySpec e;
  e.name = "copy";
  e.symbol = "teq_entry_copy";
  e.args.push_back(tensorArg("x", ArgKind::Input, "f32", {2}));
  ArgSpec y = tensorArg("y", ArgKind::Output, "f32", {2});
  y.computedBy = computed(ComputeOp::Copy, "x");
  e.args.push_back(y);
  m.entries.push_back(e);
  EXPECT_EQ(writeManifest(m),
            R"({"device_code":"ptx","entries":[{"args":[{"kind":"input",)"
            R"("name":"x","tensor":{"dtype":"f32","shape":[2]}},)"
            R"({"computed_by":{"input":"x","op":"copy"},"kind":"output",)"
            R"("name":"y","tensor":{"dtype":"f32","shape":[2]}}],)"
            R"("name":"copy","symbol":"teq_entry_copy"}],)"
            R"("format":"teq-artifact","target":"sm_90","version":2})");
}

TEST(ManifestWriterTest, QuantizersWriteEveryFieldOfTheirKind) {
  EXPECT_EQ(toJson(QuantizerDesc::defaultFor(QuantizerKind::Float8Delayed))
                .serialize(),
            R"({"kind":"float8_delayed","fp8_dtype":"e4m3"})");
  EXPECT_EQ(
      toJson(QuantizerDesc::defaultFor(QuantizerKind::Float8Block)).serialize(),
      R"({"kind":"float8_block","fp8_dtype":"e4m3","block_scaling_dim":2,)"
      R"("force_pow_2_scales":true,"amax_epsilon":0})");
  EXPECT_EQ(toJson(QuantizerDesc::defaultFor(QuantizerKind::NVFP4)).serialize(),
            R"({"kind":"nvfp4","with_rht":false,"with_2d_quantization":false,)"
            R"("stochastic_rounding":false,"with_post_rht_amax":false,)"
            R"("with_random_sign_mask":true,"nvfp4_use_4over6":false,)"
            R"("row_scaled_nvfp4":false,"with_amax_reduction":false})");
}

/// An absent optional quantizer field reads as TE's default, the same the
/// dialect's attributes have: force_pow_2_scales is on for float8_block and
/// off for float8_current_scaling; with_random_sign_mask is on.
TEST(ManifestWriterTest, AbsentQuantizerFieldsReadAsDefaults) {
  Manifest m = buildManifest();
  std::string text = writeManifest(m);
  auto erase = [&](const std::string &field) {
    size_t pos;
    while ((pos = text.find(field)) != std::string::npos)
      text.erase(pos, field.size());
  };
  // Leaves {"kind":"float8_block","fp8_dtype":...,"block_scaling_dim":1}
  // and the NVFP4 quantizers without with_random_sign_mask.
  erase(R"("amax_epsilon":0.25,)");
  erase(R"(,"force_pow_2_scales":false)");
  erase(R"("with_random_sign_mask":true,)");
  auto read = parseManifest(text);
  ASSERT_TRUE(read.ok()) << read.message();
  const ArgSpec *block = read->entries[0].findArg("q_block");
  ASSERT_NE(block, nullptr);
  EXPECT_TRUE(block->proto.quantizer.forcePow2Scales);
  EXPECT_EQ(block->proto.quantizer.amaxEpsilon, 0.0);
  EXPECT_EQ(block->proto.quantizer.blockScalingDim, 1);
  const ArgSpec *nv = read->entries[0].findArg("q_nv");
  ASSERT_NE(nv, nullptr);
  EXPECT_TRUE(nv->proto.quantizer.withRandomSignMask);
  EXPECT_FALSE(
      QuantizerDesc::defaultFor(QuantizerKind::Float8CurrentScaling)
          .forcePow2Scales);
}

TEST(ManifestWriterTest, ValuesAreFoundThroughViews) {
  Manifest m = buildManifest();
  const EntrySpec &e = m.entries[0];
  ASSERT_NE(e.findValue("view(view(t0))"), nullptr);
  EXPECT_EQ(e.findValue("view(t0)")->name, "t0");
  EXPECT_EQ(e.findValue("x")->kind, ArgKind::Input);
  EXPECT_EQ(e.findValue("nope"), nullptr);
}

/// A swizzle_scales temporary owns only its scales in the workspace (its
/// data and amaxes are its input's), so only they must fit workspace_bytes.
TEST(ManifestWriterTest, SwizzledTemporariesNeedRoomForTheirScalesOnly) {
  Manifest m;
  m.target = targetOf("sm_100a");
  auto mx = QuantizerDesc::defaultFor(QuantizerKind::MXFP8);
  EntrySpec e;
  e.name = "swizzle";
  e.symbol = "teq_entry_swizzle";
  e.args.push_back(protoArg("q", ArgKind::Input, m.target, mx, {256, 128},
                            "rowwise"));
  ArgSpec t = protoArg("t0", ArgKind::Temporary, m.target, mx, {256, 128},
                       "rowwise", "gemm_swizzled");
  t.computedBy = computed(ComputeOp::SwizzleScales, "q");
  int64_t scaleBytes = 0;
  for (const BufferSpec &buffer : t.buffers)
    if (buffer.name == "rowwise_scale_inv")
      scaleBytes = buffer.bytes;
  ASSERT_GT(t.totalBytes(), scaleBytes);
  e.temporaries.push_back(t);
  ArgSpec copy = protoArg("y", ArgKind::Output, m.target, mx, {256, 128},
                          "rowwise", "gemm_swizzled");
  copy.computedBy = computed(ComputeOp::Copy, "t0");
  e.args.push_back(copy);
  e.workspaceBytes = scaleBytes;
  m.entries.push_back(e);
  auto fits = parseManifest(writeManifest(m));
  EXPECT_TRUE(fits.ok()) << fits.message();

  m.entries[0].workspaceBytes = scaleBytes - 1;
  EXPECT_EQ(parseManifest(writeManifest(m)).message(),
            "manifest: entries[0].temporaries[0]: temporary 't0' has " +
                std::to_string(scaleBytes) +
                " bytes, but the entry's workspace_bytes is " +
                std::to_string(scaleBytes - 1));
}

/// swizzle_scales takes every buffer of its result from its input (te-run
/// reorders the scales' bytes), update_usage the buffers both have.
TEST(ManifestWriterTest, SwizzledAndViewedBuffersAreTheInputs) {
  Manifest m;
  m.target = targetOf("sm_100a");
  auto mx = QuantizerDesc::defaultFor(QuantizerKind::MXFP8);
  EntrySpec e;
  e.name = "swizzle";
  e.symbol = "teq_entry_swizzle";
  e.args.push_back(protoArg("q", ArgKind::Input, m.target, mx, {256, 128},
                            "rowwise"));
  ArgSpec t = protoArg("t0", ArgKind::Temporary, m.target, mx, {256, 128},
                       "rowwise|columnwise", "gemm_swizzled");
  t.computedBy = computed(ComputeOp::SwizzleScales, "q");
  e.temporaries.push_back(t);
  e.workspaceBytes = t.totalBytes();
  ArgSpec view = protoArg("y", ArgKind::Output, m.target, mx, {256, 128},
                          "columnwise", "gemm_swizzled");
  view.computedBy = computed(ComputeOp::UpdateUsage, "t0");
  e.args.push_back(view);
  m.entries.push_back(e);
  const std::string what =
      "manifest: entries[0].temporaries[0].computed_by.input: 'q' (bf16[256, "
      "128] quantized by mxfp8) has no buffer 'columnwise_data', but 't0' "
      "(bf16[256, 128] quantized by mxfp8) has 'columnwise_data' of 32768 "
      "bytes: swizzle_scales takes every buffer from its input";
  EXPECT_EQ(parseManifest(writeManifest(m)).message(), what);

  // The input has the usage: valid, and update_usage may drop buffers.
  m.entries[0].args[0] = protoArg("q", ArgKind::Input, m.target, mx,
                                  {256, 128}, "rowwise|columnwise");
  auto read = parseManifest(writeManifest(m));
  EXPECT_TRUE(read.ok()) << read.message();
}

/// Fused elementwise intermediates and splat constants are temporaries held
/// in registers ("in_registers"): described for te-run, with no workspace.
TEST(ManifestWriterTest, RegisterTemporariesAndConstants) {
  Manifest m;
  m.target = targetOf("sm_90");
  EntrySpec e;
  e.name = "gelu";
  e.symbol = "teq_entry_gelu";
  e.args.push_back(tensorArg("h", ArgKind::Input, "bf16", {64, 128}));
  ArgSpec half = tensorArg("t0", ArgKind::Temporary, "bf16", {64, 128});
  half.computedBy = computed(ComputeOp::Constant);
  half.computedBy->value = 0.5;
  half.inRegisters = true;
  ArgSpec product = tensorArg("t1", ArgKind::Temporary, "bf16", {64, 128});
  product.computedBy = computed(ComputeOp::Elementwise);
  product.computedBy->elementwiseOp = "arith.mulf";
  product.computedBy->inputs = {"h", "t0"};
  product.inRegisters = true;
  e.temporaries = {half, product};
  ArgSpec y = tensorArg("y", ArgKind::Output, "bf16", {64, 128});
  y.computedBy = computed(ComputeOp::Elementwise);
  y.computedBy->elementwiseOp = "arith.truncf";
  y.computedBy->inputs = {"t1"};
  e.args.push_back(y);
  m.entries.push_back(e);

  std::string json = writeManifest(m);
  EXPECT_NE(json.find("\"computed_by\":{\"op\":\"constant\",\"value\":0.5},"
                      "\"in_registers\":true"),
            std::string::npos)
      << json;
  auto read = parseManifest(json);
  ASSERT_TRUE(read.ok()) << read.message();
  const EntrySpec &entry = read->entries[0];
  EXPECT_EQ(entry.workspaceBytes, 0);
  ASSERT_EQ(entry.temporaries.size(), 2u);
  EXPECT_TRUE(entry.temporaries[0].inRegisters);
  EXPECT_EQ(entry.temporaries[0].computedBy->op, ComputeOp::Constant);
  EXPECT_EQ(entry.temporaries[0].computedBy->value, 0.5);
  EXPECT_EQ(entry.temporaries[0].computedBy->opName(), "constant");
  EXPECT_TRUE(entry.temporaries[1].inRegisters);
  EXPECT_FALSE(entry.args[1].inRegisters);

  // In the workspace, the same temporaries would need room.
  m.entries[0].temporaries[0].inRegisters = false;
  EXPECT_EQ(parseManifest(writeManifest(m)).message(),
            "manifest: entries[0].temporaries[0]: temporary 't0' has 16384 "
            "bytes, but the entry's workspace_bytes is 0");
  m.entries[0].temporaries[0].inRegisters = true;

  // Only tensor temporaries live in registers; a constant has a finite
  // number.
  auto edited = [&](const std::string &from, const std::string &to) {
    std::string text = json;
    size_t pos = text.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    if (pos != std::string::npos)
      text.replace(pos, from.size(), to);
    return parseManifest(text).message();
  };
  EXPECT_EQ(edited("\"kind\":\"input\"",
                   "\"in_registers\":true,\"kind\":\"input\""),
            "manifest: entries[0].args[0].in_registers: only a tensor "
            "temporary lives in registers");
  EXPECT_EQ(edited("\"value\":0.5", "\"value\":\"half\""),
            "manifest: entries[0].temporaries[0].computed_by.value: expected "
            "a number, got a string");
  EXPECT_EQ(edited("\"op\":\"constant\",\"value\":0.5", "\"op\":\"constant\""),
            "manifest: entries[0].temporaries[0].computed_by: missing "
            "\"value\"");
}

TEST(ManifestWriterTest, DeviceChecksUseTheTargetCapabilities) {
  Manifest m = buildManifest();
  GemmSpec nn = m.gemms[0];
  nn.transa = false;
  // FP8 NN: only where non-TN FP8 GEMMs run (layout::TargetCaps).
  EXPECT_TRUE(checkGemmForDevice(nn, 100).ok());
  Status hopper = checkGemmForDevice(nn, 90);
  ASSERT_FALSE(hopper.ok());
  EXPECT_EQ(hopper.message().rfind("GEMM 'fwd:fprop0' (id 0): FP8 GEMM in the "
                                   "NN layout",
                                   0),
            0u)
      << hopper.message();
  EXPECT_TRUE(checkGemmForDevice(m.gemms[0], 90).ok());
}

/// Collectives' results are computed_by the collective over a group of the
/// entry (te-run --nranks --check), and a quantize with amax reduction names
/// its group; the reader checks the group and the shapes.
TEST(ManifestWriterTest, CollectivesAndAmaxGroups) {
  Manifest m;
  m.target = targetOf("sm_90");
  EntrySpec e;
  e.name = "sp";
  e.symbol = "teq_entry_sp";
  e.groups.push_back({"tp", 2});
  e.args.push_back(tensorArg("x", ArgKind::Input, "bf16", {64, 128}));
  QuantizerDesc current =
      QuantizerDesc::defaultFor(QuantizerKind::Float8CurrentScaling);
  current.withAmaxReduction = true;
  ArgSpec shard = protoArg("t0", ArgKind::Temporary, m.target, current,
                           {64, 128}, "rowwise");
  shard.computedBy = computed(ComputeOp::Quantize, "x");
  shard.computedBy->group = 0;
  ArgSpec gathered = protoArg("full", ArgKind::Output, m.target, current,
                              {128, 128}, "rowwise");
  gathered.computedBy = computed(ComputeOp::AllGather, "t0");
  gathered.computedBy->group = 0;
  ArgSpec part = tensorArg("part", ArgKind::Output, "bf16", {32, 128});
  part.computedBy = computed(ComputeOp::ReduceScatter, "x");
  part.computedBy->group = 0;
  ArgSpec sum = tensorArg("sum", ArgKind::Output, "bf16", {64, 128});
  sum.computedBy = computed(ComputeOp::AllReduce, "x");
  sum.computedBy->group = 0;
  e.args.push_back(gathered);
  e.args.push_back(part);
  e.args.push_back(sum);
  e.temporaries.push_back(shard);
  for (const BufferSpec &b : shard.buffers)
    e.workspaceBytes += (b.bytes + 255) / 256 * 256;
  m.entries.push_back(e);

  std::string json = writeManifest(m);
  EXPECT_NE(json.find("\"computed_by\":{\"group\":0,\"input\":\"t0\","
                      "\"op\":\"all_gather\"}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"computed_by\":{\"amax_group\":0,\"input\":\"x\","
                      "\"op\":\"quantize\"}"),
            std::string::npos)
      << json;
  auto read = parseManifest(json);
  ASSERT_TRUE(read.ok()) << read.message();
  const EntrySpec &entry = read->entries[0];
  EXPECT_EQ(entry.args[1].computedBy->op, ComputeOp::AllGather);
  EXPECT_EQ(entry.args[1].computedBy->group, 0);
  EXPECT_EQ(entry.args[2].computedBy->opName(), "reduce_scatter");
  EXPECT_EQ(entry.args[3].computedBy->opName(), "all_reduce");
  EXPECT_EQ(entry.temporaries[0].computedBy->group, 0);
  EXPECT_EQ(entry.args[2].computedBy->group, 0);

  auto edited = [&](const std::string &from, const std::string &to) {
    std::string text = json;
    size_t pos = text.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    if (pos != std::string::npos)
      text.replace(pos, from.size(), to);
    return parseManifest(text).message();
  };
  EXPECT_EQ(
      edited("{\"group\":0,\"input\":\"t0\"", "{\"group\":1,\"input\":\"t0\""),
      "manifest: entries[0].args[1].computed_by.group: group 1 is out "
      "of range: entry 'sp' has 1 group");
  EXPECT_EQ(edited("\"amax_group\":0", "\"amax_group\":-1"),
            "manifest: entries[0].temporaries[0].computed_by.amax_group: must "
            "be the index of one of the entry's groups (>= 0)");
  EXPECT_EQ(edited("{\"group\":0,\"input\":\"x\",\"op\":\"reduce_scatter\"}",
                   "{\"input\":\"x\",\"op\":\"reduce_scatter\"}"),
            "manifest: entries[0].args[2].computed_by: missing \"group\"");
  // A quantized gather concatenates the ranks' data and keeps the rank's
  // own scale: a transpose cannot be gathered so.
  ArgSpec both = protoArg("t0", ArgKind::Temporary, m.target, current,
                          {64, 128}, "rowwise|columnwise");
  both.computedBy = shard.computedBy;
  ArgSpec gatheredBoth = protoArg("full", ArgKind::Output, m.target, current,
                                  {128, 128}, "rowwise|columnwise");
  gatheredBoth.computedBy = gathered.computedBy;
  Manifest twoUsages = m;
  twoUsages.entries[0].temporaries[0] = both;
  twoUsages.entries[0].args[1] = gatheredBoth;
  twoUsages.entries[0].workspaceBytes = both.totalBytes();
  EXPECT_EQ(parseManifest(writeManifest(twoUsages)).message(),
            "manifest: entries[0].args[1].computed_by.input: 't0' (bf16[64, "
            "128] quantized by float8_current_scaling) has buffer "
            "'transpose' of 8192 bytes, but 'full' (bf16[128, 128] quantized "
            "by float8_current_scaling) has 'transpose' of 16384 bytes: "
            "all_gather over 2 ranks gathers every rank's 'data' and keeps "
            "the rank's own other buffers");
  // A reduce-scatter keeps 1/size of dim 0; an all-reduce the shape.
  EXPECT_EQ(edited("{\"group\":0,\"input\":\"x\",\"op\":\"all_reduce\"}",
                   "{\"group\":0,\"input\":\"x\",\"op\":\"all_gather\"}"),
            "manifest: entries[0].args[3].computed_by.input: 'x' (bf16[64, "
            "128]) cannot become 'sum' (bf16[64, 128]) by all_gather over 2 "
            "ranks");
}

} // namespace

//===- Gemm.cpp - The artifact's GEMM descriptions ------------------------===//
//
// The GEMM enums' names, the reader of "gemms" and "algo", and the checks
// of a GEMM as cuBLASLt and TE would make them.
//
//===----------------------------------------------------------------------===//

#include "teq/Artifact/Gemm.h"

#include "JsonFields.h"
#include "Readers.h"

#include "teq/Layout/BufferLayout.h"

#include <climits>
#include <cstdint>
#include <tuple>

namespace mlir::teq::artifact {

using namespace detail;

const char *stringifyGemmType(GemmType type) {
  switch (type) {
  case GemmType::E4M3:
    return "e4m3";
  case GemmType::E5M2:
    return "e5m2";
  case GemmType::E2M1:
    return "e2m1";
  case GemmType::BF16:
    return "bf16";
  case GemmType::F16:
    return "f16";
  case GemmType::F32:
    return "f32";
  }
  return "unknown";
}

bool isFp8(GemmType type) {
  return type == GemmType::E4M3 || type == GemmType::E5M2;
}

bool isLowPrecision(GemmType type) {
  return isFp8(type) || type == GemmType::E2M1;
}

const char *stringifyGemmScaleMode(GemmScaleMode mode) {
  switch (mode) {
  case GemmScaleMode::None:
    return "none";
  case GemmScaleMode::ScalarF32:
    return "scalar_f32";
  case GemmScaleMode::Vec128F32:
    return "vec128_f32";
  case GemmScaleMode::Blk128x128F32:
    return "blk128x128_f32";
  case GemmScaleMode::Vec32UE8M0:
    return "vec32_ue8m0";
  case GemmScaleMode::Vec16UE4M3:
    return "vec16_ue4m3";
  }
  return "unknown";
}

const char *stringifyGemmEpilogue(GemmEpilogue epilogue) {
  switch (epilogue) {
  case GemmEpilogue::Default:
    return "default";
  case GemmEpilogue::Bias:
    return "bias";
  case GemmEpilogue::BGradB:
    return "bgradb";
  }
  return "unknown";
}

std::string GemmSpec::describe() const {
  return "GEMM '" + name + "' (id " + std::to_string(id) + ")";
}

std::string GemmSpec::describeProblem() const {
  return "m=" + std::to_string(m) + " n=" + std::to_string(n) +
         " k=" + std::to_string(k) + " transa=" + (transa ? "T" : "N") +
         " transb=" + (transb ? "T" : "N") + " A=" + stringifyGemmType(aType) +
         " (lda " + std::to_string(lda) + ") B=" + stringifyGemmType(bType) +
         " (ldb " + std::to_string(ldb) + ") D=" + stringifyGemmType(dType) +
         " (ldd " + std::to_string(ldd) + ")";
}

Status checkGemmForDevice(const GemmSpec &gemm, int sm) {
  const bool fp8 = isFp8(gemm.aType) || isFp8(gemm.bType);
  if (fp8 && !(gemm.transa && !gemm.transb) &&
      !layout::TargetCaps::fromSM(sm).nonTNFP8GemmSupported())
    return Status::error(
        gemm.describe() + ": FP8 GEMM in the " + (gemm.transa ? "T" : "N") +
        (gemm.transb ? "T" : "N") + " layout, but cuBLASLt runs FP8 GEMMs "
        "only as TN (transa=T, transb=N) on sm_" + std::to_string(sm) +
        " (non-TN FP8 needs sm_100 to sm_119 or sm_130+; the compiler must "
        "use the operands' transposed data)");
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Reading and checking
//===----------------------------------------------------------------------===//

namespace {

const Choice<GemmType> kOperandTypes[] = {
    {"e4m3", GemmType::E4M3}, {"e5m2", GemmType::E5M2},
    {"e2m1", GemmType::E2M1}, {"bf16", GemmType::BF16},
    {"f16", GemmType::F16},   {"f32", GemmType::F32}};
const Choice<GemmType> kOutputTypes[] = {{"bf16", GemmType::BF16},
                                         {"f16", GemmType::F16},
                                         {"f32", GemmType::F32}};
const Choice<GemmScaleMode> kScaleModes[] = {
    {"none", GemmScaleMode::None},
    {"scalar_f32", GemmScaleMode::ScalarF32},
    {"vec128_f32", GemmScaleMode::Vec128F32},
    {"blk128x128_f32", GemmScaleMode::Blk128x128F32},
    {"vec32_ue8m0", GemmScaleMode::Vec32UE8M0},
    {"vec16_ue4m3", GemmScaleMode::Vec16UE4M3}};
const Choice<GemmEpilogue> kEpilogues[] = {{"default", GemmEpilogue::Default},
                                           {"bias", GemmEpilogue::Bias},
                                           {"bgradb", GemmEpilogue::BGradB}};
const Choice<bool> kAlphaModes[] = {{"host", false}, {"device", true}};
const Choice<bool> kComputeTypes[] = {{"32f", false},
                                      {"32f_fast_tf32", true}};

const char *const kGemmKeys[] = {
    "id",         "name",         "m",           "n",          "k",
    "transa",     "transb",       "a_type",      "b_type",     "d_type",
    "lda",        "ldb",          "ldd",         "a_scale_mode",
    "b_scale_mode", "epilogue",   "bias_type",   "accumulate", "fast_accum",
    "alpha",      "compute_type", "algo",        "shares_plan_of"};
const char *const kAlgoKeys[] = {"id",        "tile",    "stages",
                                 "splitk",    "reduction", "swizzle",
                                 "custom",    "inner_shape",
                                 "cluster_shape"};

Status parseGemmAlgo(const JsonValue &value, const std::string &path,
                     GemmAlgoSpec &algo) {
  if (!value.isObject())
    return typeError(path, "an object", value);
  TEQ_RETURN_IF_ERROR(
      checkKnownKeys(value, path, kAlgoKeys, "a GEMM algorithm"));
  auto id = readIntegerMember(value, path, "id");
  if (!id.ok())
    return id.status();
  algo.id = *id;
  struct Field {
    const char *key;
    int64_t *field;
  } fields[] = {{"tile", &algo.tile},
                {"stages", &algo.stages},
                {"splitk", &algo.splitK},
                {"reduction", &algo.reduction},
                {"swizzle", &algo.swizzle},
                {"custom", &algo.custom},
                {"inner_shape", &algo.innerShape},
                {"cluster_shape", &algo.clusterShape}};
  for (const Field &f : fields) {
    const JsonValue *member = value.find(f.key);
    if (!member)
      continue;
    auto number = readInteger(*member, child(path, f.key));
    if (!number.ok())
      return number.status();
    if (*number < 0 || *number > INT32_MAX)
      return errorAt(child(path, f.key),
                     "out of range: " + std::to_string(*number));
    *f.field = *number;
  }
  if (algo.splitK < 1)
    return errorAt(child(path, "splitk"), "must be at least 1");
  return Status::success();
}

/// The checks of one GEMM that need no device.
Status checkGemm(const GemmSpec &g, const std::string &path) {
  auto fail = [&](const std::string &message) {
    return errorAt(path, g.describe() + ": " + message);
  };
  // Leading dimensions: the column-major rows of what is stored.
  struct Ld {
    const char *name;
    int64_t ld;
    int64_t rows;
    const char *shape;
  } lds[] = {{"lda", g.lda, g.aRows(), g.transa ? "k x m" : "m x k"},
             {"ldb", g.ldb, g.bRows(), g.transb ? "n x k" : "k x n"},
             {"ldd", g.ldd, g.m, "m x n"}};
  for (const Ld &ld : lds)
    if (ld.ld < ld.rows)
      return fail(std::string(ld.name) + " " + std::to_string(ld.ld) +
                  " is less than the " + std::to_string(ld.rows) +
                  " rows of the stored " + ld.shape + " matrix (" +
                  g.describeProblem() + ")");

  // Operand types and their scales.
  struct Operand {
    const char *name;
    GemmType type;
    GemmScaleMode mode;
    int64_t ld;
    const char *ldName;
  } operands[] = {{"A", g.aType, g.aScaleMode, g.lda, "lda"},
                  {"B", g.bType, g.bScaleMode, g.ldb, "ldb"}};
  for (const Operand &op : operands) {
    const std::string what = std::string(op.name) + " (" +
                             stringifyGemmType(op.type) + ") has scale mode " +
                             stringifyGemmScaleMode(op.mode);
    if (!isLowPrecision(op.type) && op.mode != GemmScaleMode::None)
      return fail(what + ", but a high-precision operand takes none");
    if (isFp8(op.type) && (op.mode == GemmScaleMode::None ||
                           op.mode == GemmScaleMode::Vec16UE4M3))
      return fail(what + " (FP8 takes scalar_f32, vec128_f32, "
                         "blk128x128_f32 or vec32_ue8m0)");
    if (op.type == GemmType::E2M1 && op.mode != GemmScaleMode::Vec16UE4M3)
      return fail(what + " (FP4 takes vec16_ue4m3)");
    if (isFp8(op.type) && op.ld % 16 != 0)
      return fail(std::string(op.ldName) + " " + std::to_string(op.ld) +
                  " of FP8 operand " + op.name +
                  " is not a multiple of 16: cuBLASLt FP8 GEMMs need "
                  "16-element leading dimensions (pad the operand)");
  }
  const bool aLow = isLowPrecision(g.aType), bLow = isLowPrecision(g.bType);
  if (aLow != bLow)
    return fail(std::string("A is ") + stringifyGemmType(g.aType) +
                " but B is " + stringifyGemmType(g.bType) +
                ": cuBLASLt does not mix FP8/FP4 and high-precision operands");
  if (!aLow && g.aType != g.bType)
    return fail(std::string("A is ") + stringifyGemmType(g.aType) +
                " but B is " + stringifyGemmType(g.bType) +
                ": high-precision operands must have the same type");
  if (g.aType == GemmType::E5M2 && g.bType == GemmType::E5M2)
    return fail("both A and B are e5m2: cuBLASLt has no FP8 GEMM with two "
                "E5M2 operands, and TE never asks for one (an E5M2 gradient "
                "meets an E4M3 activation or weight)");
  if (aLow && g.aScaleMode != g.bScaleMode) {
    auto isBlock = [](GemmScaleMode mode) {
      return mode == GemmScaleMode::Vec128F32 ||
             mode == GemmScaleMode::Blk128x128F32;
    };
    // TE allows 1D x 1D, 1D x 2D and 2D x 1D block scaling; otherwise the
    // modes must be equal.
    if (!isBlock(g.aScaleMode) || !isBlock(g.bScaleMode))
      return fail(std::string("A and B need compatible scaling modes, got ") +
                  stringifyGemmScaleMode(g.aScaleMode) + " and " +
                  stringifyGemmScaleMode(g.bScaleMode));
  }
  if (g.aScaleMode == GemmScaleMode::Blk128x128F32 &&
      g.bScaleMode == GemmScaleMode::Blk128x128F32)
    return fail("both A and B have 128x128 block scales (blk128x128_f32); "
                "cuBLASLt (and TE) support 1D x 1D, 1D x 2D and 2D x 1D "
                "block scaling only");
  if (g.aType == GemmType::E2M1 && g.dType == GemmType::F16)
    return fail("FP4 GEMMs cannot write f16 (TE: FP4 with FP16 output is "
                "an error); use bf16 or f32");
  if (aLow && g.epilogue == GemmEpilogue::Bias && g.biasType == GemmType::F32)
    return fail("an FP8/FP4 GEMM cannot take an f32 bias (cuBLASLt FP8 has "
                "no FP32 bias; TE casts it to bf16)");
  if (g.fastTf32 &&
      !(g.aType == GemmType::F32 && g.bType == GemmType::F32))
    return fail("compute type 32f_fast_tf32 needs f32 operands (TE uses it "
                "only when A, B and D are f32)");
  return Status::success();
}

} // namespace

Status detail::parseGemm(const JsonValue &value, const std::string &path,
                         size_t index, GemmSpec &g) {
  if (!value.isObject())
    return typeError(path, "an object", value);
  TEQ_RETURN_IF_ERROR(checkKnownKeys(value, path, kGemmKeys, "a GEMM"));
  auto id = readIntegerMember(value, path, "id");
  if (!id.ok())
    return id.status();
  if (*id != static_cast<int64_t>(index))
    return errorAt(child(path, "id"),
                   "id " + std::to_string(*id) +
                       " differs from its index " + std::to_string(index) +
                       " (GEMM ids are the positions in \"gemms\")");
  g.id = *id;
  auto name = readName(value, path, "name");
  if (!name.ok())
    return name.status();
  g.name = *name;

  struct IntField {
    const char *key;
    int64_t *field;
  } dims[] = {{"m", &g.m},     {"n", &g.n},     {"k", &g.k},
              {"lda", &g.lda}, {"ldb", &g.ldb}, {"ldd", &g.ldd}};
  for (const IntField &f : dims) {
    auto number = readIntegerMember(value, path, f.key);
    if (!number.ok())
      return number.status();
    if (*number <= 0 || *number > INT32_MAX)
      return errorAt(child(path, f.key),
                     std::string(*number <= 0 ? "must be positive"
                                              : "too large for cuBLASLt") +
                         ", got " + std::to_string(*number));
    *f.field = *number;
  }
  struct BoolField {
    const char *key;
    bool *field;
  } flags[] = {{"transa", &g.transa},
               {"transb", &g.transb},
               {"accumulate", &g.accumulate},
               {"fast_accum", &g.fastAccum}};
  for (const BoolField &f : flags) {
    auto flag = readBool(value, path, f.key);
    if (!flag.ok())
      return flag.status();
    *f.field = *flag;
  }

  auto aType = readChoice(value, path, "a_type", "type", kOperandTypes);
  if (!aType.ok())
    return aType.status();
  g.aType = *aType;
  auto bType = readChoice(value, path, "b_type", "type", kOperandTypes);
  if (!bType.ok())
    return bType.status();
  g.bType = *bType;
  auto dType = readChoice(value, path, "d_type", "output type", kOutputTypes);
  if (!dType.ok())
    return dType.status();
  g.dType = *dType;
  auto aMode =
      readChoice(value, path, "a_scale_mode", "scale mode", kScaleModes);
  if (!aMode.ok())
    return aMode.status();
  g.aScaleMode = *aMode;
  auto bMode =
      readChoice(value, path, "b_scale_mode", "scale mode", kScaleModes);
  if (!bMode.ok())
    return bMode.status();
  g.bScaleMode = *bMode;
  auto epilogue = readChoice(value, path, "epilogue", "epilogue", kEpilogues);
  if (!epilogue.ok())
    return epilogue.status();
  g.epilogue = *epilogue;
  if (g.epilogue != GemmEpilogue::Default || value.find("bias_type")) {
    auto biasType =
        readChoice(value, path, "bias_type", "bias type", kOutputTypes);
    if (!biasType.ok())
      return biasType.status();
    g.biasType = *biasType;
  }
  auto alpha = readChoice(value, path, "alpha", "alpha mode", kAlphaModes);
  if (!alpha.ok())
    return alpha.status();
  g.alphaOnDevice = *alpha;
  auto compute =
      readChoice(value, path, "compute_type", "compute type", kComputeTypes);
  if (!compute.ok())
    return compute.status();
  g.fastTf32 = *compute;
  if (const JsonValue *algo = value.find("algo")) {
    g.hasAlgo = true;
    TEQ_RETURN_IF_ERROR(parseGemmAlgo(*algo, child(path, "algo"), g.algo));
  }
  if (value.find("shares_plan_of")) {
    auto shared = readIntegerMember(value, path, "shares_plan_of");
    if (!shared.ok())
      return shared.status();
    // parseManifest checks that the GEMM named has the same plan.
    if (*shared < 0 || *shared >= g.id)
      return errorAt(child(path, "shares_plan_of"),
                     "must be the id of an earlier GEMM (0 to " +
                         std::to_string(g.id - 1) + "), got " +
                         std::to_string(*shared));
    g.sharesPlanOf = *shared;
  }
  return checkGemm(g, path);
}

bool sameGemmPlan(const GemmSpec &a, const GemmSpec &b) {
  auto problem = [](const GemmSpec &g) {
    return std::tie(g.m, g.n, g.k, g.transa, g.transb, g.aType, g.bType,
                    g.dType, g.lda, g.ldb, g.ldd, g.aScaleMode, g.bScaleMode,
                    g.epilogue, g.biasType, g.accumulate, g.fastAccum,
                    g.alphaOnDevice, g.fastTf32, g.hasAlgo);
  };
  auto algo = [](const GemmAlgoSpec &x) {
    return std::tie(x.id, x.tile, x.stages, x.splitK, x.reduction, x.swizzle,
                    x.custom, x.innerShape, x.clusterShape);
  };
  if (problem(a) != problem(b))
    return false;
  // The bias type means something only with a bias epilogue; compared
  // above anyway, as the writer always sets it.
  return !a.hasAlgo || algo(a.algo) == algo(b.algo);
}

void assignSharedPlans(std::vector<GemmSpec> &gemms) {
  for (size_t i = 0; i < gemms.size(); ++i) {
    gemms[i].sharesPlanOf = -1;
    for (size_t j = 0; j < i; ++j)
      if (gemms[j].sharesPlanOf < 0 && sameGemmPlan(gemms[j], gemms[i])) {
        gemms[i].sharesPlanOf = static_cast<int64_t>(j);
        break;
      }
  }
}

StatusOr<GemmAlgoSpec> parseGemmAlgo(const JsonValue &value) {
  GemmAlgoSpec algo;
  TEQ_RETURN_IF_ERROR(parseGemmAlgo(value, "algo", algo));
  return algo;
}

} // namespace mlir::teq::artifact

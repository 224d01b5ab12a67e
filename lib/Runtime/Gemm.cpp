//===- Gemm.cpp - GEMMs on cuBLASLt: plans and the teqGemm ABI ------------===//
//
// See teq/Runtime/Gemm.h and docs/Artifact.md ("GEMMs"). The descriptor
// setup follows TE's cublas_gemm (te-semantics.md §6.2): compute type 32F
// (or 32F_FAST_TF32), scale type 32F, the layouts as given (the compiler
// already canonicalized them), one heuristic result, a 256-byte aligned
// workspace of TE's size.
//
//===----------------------------------------------------------------------===//

#include "teq/Runtime/Gemm.h"

#include "teq/Runtime/WorkspacePool.h"

#include "CublasLt.h"
#include "Driver.h"
#include "Internal.h"

#include <cstdio>
#include <mutex>

namespace mlir::teq::runtime {

using detail::CublasLt;
using detail::describeCublasStatus;
using detail::getCublasLt;
using detail::getDriver;
using detail::WorkspacePool;

//===----------------------------------------------------------------------===//
// Per-context resources
//===----------------------------------------------------------------------===//

namespace detail {

struct GemmResources {
  const CublasLt *lt = nullptr;
  /// One handle for every thread and stream: cuBLASLt handles may be shared
  /// by host threads as long as nobody changes them, and this one is never
  /// changed after cublasLtCreate (cublasLtMatmul takes the stream and the
  /// workspace per call).
  cublasLtHandle_t handle = nullptr;
  /// cuBLASLt workspaces of workspaceBytes each: one per stream that runs
  /// GEMMs concurrently (WorkspacePool), since two cublasLtMatmul calls
  /// running at once must not share one.
  std::unique_ptr<WorkspacePool> workspaces;
  uint64_t workspaceBytes = 0;
  /// float[2] = {0.0f, 1.0f}: beta when alpha is a device pointer (cuBLASLt
  /// takes alpha and beta in the same pointer mode). Never written after
  /// creation, so every call may read it.
  CUdeviceptr constants = 0;

  GemmResources() = default;
  GemmResources(const GemmResources &) = delete;
  GemmResources &operator=(const GemmResources &) = delete;
  /// The context must be current and the stream idle.
  ~GemmResources() {
    // Waits for the workspaces' last uses (on any stream) first.
    workspaces.reset();
    auto driver = getDriver();
    if (driver.ok() && constants)
      (void)(*driver)->cuMemFree(constants);
    if (handle && lt)
      (void)lt->cublasLtDestroy(handle);
  }
};

void destroyGemmResources(GemmResources *resources) { delete resources; }

} // namespace detail

using detail::GemmResources;

/// TE's cuBLAS workspace (get_cublas_workspace_size_bytes): 32 MiB + 1 KiB
/// on Hopper and later (the extra KiB leaves room to align), 4 MiB before.
static uint64_t cublasWorkspaceBytes(int sm) {
  return sm >= 90 ? (uint64_t(32) << 20) + 1024 : uint64_t(4) << 20;
}

StatusOr<GemmResources *> Context::gemmResources() const {
  std::lock_guard<std::mutex> lock(gemmMutex_);
  if (gemm_)
    return gemm_;
  auto lt = getCublasLt();
  if (!lt.ok())
    return lt.status();
  TEQ_RETURN_IF_ERROR(makeCurrent());
  const detail::Driver &cu = **getDriver();

  auto resources = std::make_unique<GemmResources>();
  resources->lt = *lt;
  cublasStatus_t status = (*lt)->cublasLtCreate(&resources->handle);
  if (status != CUBLAS_STATUS_SUCCESS) {
    resources->handle = nullptr;
    return Status::error("cannot create a cuBLASLt handle: " +
                         describeCublasStatus(status));
  }
  resources->workspaceBytes = cublasWorkspaceBytes(device_.computeCapability);
  // One workspace now (so that running out of memory is open()'s error),
  // more for streams that run GEMMs at once. cuMemAlloc aligns to at least
  // 256 bytes, which TE requires of the workspace pointer.
  auto workspaces = detail::WorkspacePool::create(
      detail::makeCudaWorkspaceDevice(context_), resources->workspaceBytes,
      "cuBLASLt workspace");
  if (!workspaces.ok())
    return workspaces.status();
  resources->workspaces = std::move(*workspaces);
  const float constants[2] = {0.0f, 1.0f};
  TEQ_RETURN_IF_ERROR(detail::checkCU(
      cu.cuMemAlloc(&resources->constants, sizeof(constants)),
      "cannot allocate the GEMM constants"));
  CUstream stream = static_cast<CUstream>(stream_);
  TEQ_RETURN_IF_ERROR(detail::checkCU(
      cu.cuMemcpyHtoDAsync(resources->constants, constants, sizeof(constants),
                           stream),
      "cannot upload the GEMM constants"));
  TEQ_RETURN_IF_ERROR(detail::checkCU(cu.cuStreamSynchronize(stream),
                                      "cannot upload the GEMM constants"));
  gemm_ = resources.release();
  return gemm_;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {

cudaDataType_t cudaType(GemmType type) {
  switch (type) {
  case GemmType::E4M3:
    return CUDA_R_8F_E4M3;
  case GemmType::E5M2:
    return CUDA_R_8F_E5M2;
  case GemmType::E2M1:
    return CUDA_R_4F_E2M1;
  case GemmType::BF16:
    return CUDA_R_16BF;
  case GemmType::F16:
    return CUDA_R_16F;
  case GemmType::F32:
    return CUDA_R_32F;
  }
  return CUDA_R_32F;
}

int32_t cublasScaleMode(GemmScaleMode mode) {
  switch (mode) {
  case GemmScaleMode::None:
  case GemmScaleMode::ScalarF32:
    return CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  case GemmScaleMode::Vec128F32:
    return CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
  case GemmScaleMode::Blk128x128F32:
    return CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
  case GemmScaleMode::Vec32UE8M0:
    return CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
  case GemmScaleMode::Vec16UE4M3:
    return CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
  }
  return CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
}

uint32_t cublasEpilogue(GemmEpilogue epilogue) {
  switch (epilogue) {
  case GemmEpilogue::Default:
    return CUBLASLT_EPILOGUE_DEFAULT;
  case GemmEpilogue::Bias:
    return CUBLASLT_EPILOGUE_BIAS;
  case GemmEpilogue::BGradB:
    return CUBLASLT_EPILOGUE_BGRADB;
  }
  return CUBLASLT_EPILOGUE_DEFAULT;
}

std::string hexPointer(DevicePtr ptr) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%llx",
                static_cast<unsigned long long>(ptr));
  return text;
}

/// The alignment the algorithm is chosen for (the heuristic preferences'
/// minimum A/B/C/D alignments; also cuBLASLt's default).
constexpr uint32_t kOperandAlignment = 256;

} // namespace

//===----------------------------------------------------------------------===//
// Pointer checks
//===----------------------------------------------------------------------===//

Status checkGemmPointers(const GemmSpec &gemm, const GemmPointers &p) {
  auto missing = [&](const std::string &what) {
    return Status::error(gemm.describe() + ": missing " + what);
  };
  if (!p.a)
    return missing("the A pointer");
  if (!p.b)
    return missing("the B pointer");
  if (!p.d)
    return missing("the D pointer");
  if (gemm.aScaleMode != GemmScaleMode::None && !p.aScale)
    return missing(std::string("the scale pointer of A (") +
                   stringifyGemmType(gemm.aType) + ", scale mode " +
                   stringifyGemmScaleMode(gemm.aScaleMode) + ")");
  if (gemm.bScaleMode != GemmScaleMode::None && !p.bScale)
    return missing(std::string("the scale pointer of B (") +
                   stringifyGemmType(gemm.bType) + ", scale mode " +
                   stringifyGemmScaleMode(gemm.bScaleMode) + ")");
  if (gemm.accumulate && !p.c)
    return missing("the C pointer (the GEMM accumulates into C)");
  if (gemm.epilogue == GemmEpilogue::Bias && !p.bias)
    return missing("the bias pointer (epilogue bias)");
  if (gemm.epilogue == GemmEpilogue::BGradB && !p.bias)
    return missing("the dbias output pointer (epilogue bgradb)");
  if (gemm.alphaOnDevice && !p.alpha)
    return missing("the alpha pointer (alpha is a device pointer)");
  struct Operand {
    const char *name;
    DevicePtr ptr;
  } operands[] = {{"A", p.a},
                  {"B", p.b},
                  {"C", gemm.accumulate ? p.c : 0},
                  {"D", p.d}};
  for (const Operand &op : operands)
    if (op.ptr % kOperandAlignment != 0)
      return Status::error(gemm.describe() + ": " + op.name + " pointer " +
                           hexPointer(op.ptr) + " is not " +
                           std::to_string(kOperandAlignment) +
                           "-byte aligned (the cuBLASLt algorithm is chosen "
                           "for 256-byte aligned operands)");
  return Status::success();
}

//===----------------------------------------------------------------------===//
// GemmPlanInfo
//===----------------------------------------------------------------------===//

std::string GemmPlanInfo::describeAlgorithm() const {
  return "algo " + std::to_string(algoId) + " tile " + std::to_string(tile) +
         " stages " + std::to_string(stages) + " splitk " +
         std::to_string(splitK) + " reduction " + std::to_string(reduction) +
         " swizzle " + std::to_string(swizzle) + " custom " +
         std::to_string(custom) + " inner " + std::to_string(innerShape) +
         " cluster " + std::to_string(clusterShape) +
         (pinned ? " (pinned)" : "");
}

JsonValue GemmPlanInfo::toJson() const {
  JsonValue json = JsonValue::object();
  json.set("id", id);
  json.set("name", name);
  json.set("m", m);
  json.set("n", n);
  json.set("k", k);
  json.set("layout", layout);
  json.set("a_type", aType);
  json.set("b_type", bType);
  json.set("d_type", dType);
  json.set("pinned", pinned);
  if (sharesPlanOf >= 0)
    json.set("shares_plan_of", sharesPlanOf);
  // The manifest's "algo" form, which te-compile --gemm-algos pins.
  GemmAlgoSpec algo;
  algo.id = algoId;
  algo.tile = tile;
  algo.stages = stages;
  algo.splitK = splitK;
  algo.reduction = reduction;
  algo.swizzle = swizzle;
  algo.custom = custom;
  algo.innerShape = innerShape;
  algo.clusterShape = clusterShape;
  json.set("algo", artifact::toJson(algo));
  json.set("workspace_bytes", static_cast<int64_t>(workspaceBytes));
  json.set("waves", static_cast<double>(wavesCount));
  json.set("cublaslt_version", cublasLtVersion);
  return json;
}

//===----------------------------------------------------------------------===//
// GemmPlan
//===----------------------------------------------------------------------===//

struct GemmPlan::Impl {
  GemmSpec spec;
  GemmPlanInfo info;
  std::shared_ptr<Context> context;
  GemmResources *resources = nullptr; ///< Owned by the context.
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t aLayout = nullptr, bLayout = nullptr,
                         cLayout = nullptr, dLayout = nullptr;
  cublasLtMatmulAlgo_t algo = {};
  /// Serializes the per-call pointer attributes and the enqueue.
  std::mutex mutex;
  /// The pointer attributes the descriptor holds now (under `mutex`), so
  /// that a call with the previous call's pointers sets none; kUnset (never
  /// an aligned device address) until set.
  static constexpr DevicePtr kUnset = ~DevicePtr(0);
  DevicePtr aScale = kUnset, bScale = kUnset, bias = kUnset;

  ~Impl() {
    if (!resources)
      return;
    const CublasLt &lt = *resources->lt;
    for (cublasLtMatrixLayout_t layout : {aLayout, bLayout, cLayout, dLayout})
      if (layout)
        (void)lt.cublasLtMatrixLayoutDestroy(layout);
    if (desc)
      (void)lt.cublasLtMatmulDescDestroy(desc);
  }
};

GemmPlan::GemmPlan() : impl_(new Impl()) {}
GemmPlan::~GemmPlan() = default;

const GemmSpec &GemmPlan::spec() const { return spec_; }
const GemmPlanInfo &GemmPlan::info() const { return info_; }

StatusOr<std::unique_ptr<GemmPlan>>
GemmPlan::sharing(const GemmSpec &spec, const GemmPlan &owner) {
  if (!artifact::sameGemmPlan(spec, owner.spec()))
    return Status::error(spec.describe() + ": cannot share the plan of " +
                         owner.spec().describe() + ": " +
                         spec.describeProblem() + " vs " +
                         owner.spec().describeProblem());
  std::unique_ptr<GemmPlan> plan(new GemmPlan());
  plan->impl_ = owner.impl_;
  plan->spec_ = spec;
  plan->info_ = owner.info_;
  plan->info_.id = spec.id;
  plan->info_.name = spec.name;
  plan->info_.sharesPlanOf = owner.spec_.id;
  return plan;
}

StatusOr<std::unique_ptr<GemmPlan>>
GemmPlan::create(const GemmSpec &spec, std::shared_ptr<Context> context) {
  const std::string prefix = spec.describe();
  if (!context)
    return Status::error(prefix + ": no CUDA context given");
  const DeviceInfo &device = context->device();
  TEQ_RETURN_IF_ERROR(checkGemmForDevice(spec, device.computeCapability));
  auto resourcesOr = context->gemmResources();
  if (!resourcesOr.ok())
    return resourcesOr.status().withPrefix(prefix);
  TEQ_RETURN_IF_ERROR(context->makeCurrent().withPrefix(prefix));
  GemmResources &resources = **resourcesOr;
  const CublasLt &lt = *resources.lt;

  std::unique_ptr<GemmPlan> plan(new GemmPlan());
  Impl &impl = *plan->impl_;
  impl.spec = spec;
  impl.context = context;
  impl.resources = &resources;

  auto check = [&](cublasStatus_t status, const std::string &what) {
    if (status == CUBLAS_STATUS_SUCCESS)
      return Status::success();
    return Status::error(prefix + ": " + what + " failed: " +
                         describeCublasStatus(status));
  };

  const cublasComputeType_t computeType =
      spec.fastTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  TEQ_RETURN_IF_ERROR(
      check(lt.cublasLtMatmulDescCreate(&impl.desc, computeType, CUDA_R_32F),
            "cublasLtMatmulDescCreate"));
  auto setDesc = [&](cublasLtMatmulDescAttributes_t attribute,
                     const auto &value, const char *name) {
    return check(lt.cublasLtMatmulDescSetAttribute(impl.desc, attribute,
                                                   &value, sizeof(value)),
                 std::string("setting ") + name);
  };
  const int32_t transa = spec.transa ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int32_t transb = spec.transb ? CUBLAS_OP_T : CUBLAS_OP_N;
  TEQ_RETURN_IF_ERROR(
      setDesc(CUBLASLT_MATMUL_DESC_TRANSA, transa, "CUBLASLT_MATMUL_DESC_TRANSA"));
  TEQ_RETURN_IF_ERROR(
      setDesc(CUBLASLT_MATMUL_DESC_TRANSB, transb, "CUBLASLT_MATMUL_DESC_TRANSB"));
  const int8_t fastAccum = spec.fastAccum ? 1 : 0;
  TEQ_RETURN_IF_ERROR(setDesc(CUBLASLT_MATMUL_DESC_FAST_ACCUM, fastAccum,
                              "CUBLASLT_MATMUL_DESC_FAST_ACCUM"));
  const uint32_t epilogue = cublasEpilogue(spec.epilogue);
  TEQ_RETURN_IF_ERROR(setDesc(CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue,
                              "CUBLASLT_MATMUL_DESC_EPILOGUE"));
  if (spec.epilogue != GemmEpilogue::Default) {
    const int32_t biasType = cudaType(spec.biasType);
    TEQ_RETURN_IF_ERROR(setDesc(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, biasType,
                                "CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE"));
  }
  if (spec.aScaleMode != GemmScaleMode::None) {
    const int32_t mode = cublasScaleMode(spec.aScaleMode);
    TEQ_RETURN_IF_ERROR(setDesc(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, mode,
                                "CUBLASLT_MATMUL_DESC_A_SCALE_MODE"));
  }
  if (spec.bScaleMode != GemmScaleMode::None) {
    const int32_t mode = cublasScaleMode(spec.bScaleMode);
    TEQ_RETURN_IF_ERROR(setDesc(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, mode,
                                "CUBLASLT_MATMUL_DESC_B_SCALE_MODE"));
  }
  if (spec.alphaOnDevice) {
    const int32_t pointerMode = CUBLASLT_POINTER_MODE_DEVICE;
    TEQ_RETURN_IF_ERROR(setDesc(CUBLASLT_MATMUL_DESC_POINTER_MODE, pointerMode,
                                "CUBLASLT_MATMUL_DESC_POINTER_MODE"));
  }

  // Layouts: column-major, as stored.
  const cudaDataType_t aType = cudaType(spec.aType);
  const cudaDataType_t bType = cudaType(spec.bType);
  const cudaDataType_t dType = cudaType(spec.dType);
  TEQ_RETURN_IF_ERROR(check(
      lt.cublasLtMatrixLayoutCreate(&impl.aLayout, aType, spec.aRows(),
                                    spec.aCols(), spec.lda),
      "cublasLtMatrixLayoutCreate (A)"));
  TEQ_RETURN_IF_ERROR(check(
      lt.cublasLtMatrixLayoutCreate(&impl.bLayout, bType, spec.bRows(),
                                    spec.bCols(), spec.ldb),
      "cublasLtMatrixLayoutCreate (B)"));
  TEQ_RETURN_IF_ERROR(
      check(lt.cublasLtMatrixLayoutCreate(&impl.cLayout, dType, spec.m, spec.n,
                                          spec.ldd),
            "cublasLtMatrixLayoutCreate (C)"));
  TEQ_RETURN_IF_ERROR(
      check(lt.cublasLtMatrixLayoutCreate(&impl.dLayout, dType, spec.m, spec.n,
                                          spec.ldd),
            "cublasLtMatrixLayoutCreate (D)"));

  // cuBLASLt refuses to choose (or check) an algorithm for block-scaled
  // operands whose scale pointer is not set yet ("requires a custom pointer
  // for A scale"); per-tensor scales do not care. The real pointers are set
  // per call; until then the scale pointers point at the context's device
  // constants (valid device memory, never read before a call replaces them).
  for (auto [mode, attribute] :
       {std::pair{spec.aScaleMode, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER},
        std::pair{spec.bScaleMode, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER}}) {
    if (mode == GemmScaleMode::None)
      continue;
    const void *placeholder = reinterpret_cast<const void *>(resources.constants);
    TEQ_RETURN_IF_ERROR(setDesc(attribute, placeholder,
                                "a placeholder scale pointer"));
  }
  if (spec.epilogue != GemmEpilogue::Default) {
    const void *placeholder = reinterpret_cast<const void *>(resources.constants);
    TEQ_RETURN_IF_ERROR(setDesc(CUBLASLT_MATMUL_DESC_BIAS_POINTER, placeholder,
                                "a placeholder bias pointer"));
  }

  /// " (cuBLASLt: <its log>)" for a call that failed, if it logged why.
  auto why = [&](auto &&call) {
    std::string log = detail::captureCublasLtLog(lt, call);
    return log.empty() ? std::string() : " (cuBLASLt: " + log + ")";
  };

  const std::string where = " for " + spec.describeProblem() + " (scale modes " +
                            stringifyGemmScaleMode(spec.aScaleMode) + "/" +
                            stringifyGemmScaleMode(spec.bScaleMode) +
                            ", epilogue " + stringifyGemmEpilogue(spec.epilogue) +
                            ", fast_accum " + (spec.fastAccum ? "1" : "0") +
                            ") on " + device.smName() + " with cuBLASLt " +
                            detail::formatCublasVersion(lt.version);
  cublasLtMatmulHeuristicResult_t result = {};
  if (!spec.hasAlgo) {
    cublasLtMatmulPreference_t preference = nullptr;
    TEQ_RETURN_IF_ERROR(check(lt.cublasLtMatmulPreferenceCreate(&preference),
                              "cublasLtMatmulPreferenceCreate"));
    struct PreferenceGuard {
      const CublasLt &lt;
      cublasLtMatmulPreference_t preference;
      ~PreferenceGuard() { (void)lt.cublasLtMatmulPreferenceDestroy(preference); }
    } guard{lt, preference};
    const uint64_t maxWorkspace = resources.workspaceBytes;
    TEQ_RETURN_IF_ERROR(check(
        lt.cublasLtMatmulPreferenceSetAttribute(
            preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &maxWorkspace,
            sizeof(maxWorkspace)),
        "setting CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES"));
    // The operands' alignment: teqGemm checks that the pointers have it.
    for (cublasLtMatmulPreferenceAttributes_t attribute :
         {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
          CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
          CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
          CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES}) {
      const uint32_t alignment = kOperandAlignment;
      TEQ_RETURN_IF_ERROR(check(
          lt.cublasLtMatmulPreferenceSetAttribute(preference, attribute,
                                                  &alignment, sizeof(alignment)),
          "setting the heuristic's minimum operand alignment"));
    }
    int count = 0;
    auto heuristic = [&] {
      return lt.cublasLtMatmulAlgoGetHeuristic(
          resources.handle, impl.desc, impl.aLayout, impl.bLayout,
          impl.cLayout, impl.dLayout, preference, 1, &result, &count);
    };
    cublasStatus_t status = heuristic();
    if (status != CUBLAS_STATUS_SUCCESS)
      return Status::error(prefix + ": no cuBLASLt algorithm" + where +
                           ": cublasLtMatmulAlgoGetHeuristic returned " +
                           describeCublasStatus(status) + why(heuristic));
    if (count == 0 || result.state != CUBLAS_STATUS_SUCCESS)
      return Status::error(
          prefix + ": no cuBLASLt algorithm" + where +
          ": cublasLtMatmulAlgoGetHeuristic found none" +
          (count == 0 ? std::string()
                      : " (" + describeCublasStatus(result.state) + ")") +
          why(heuristic));
    impl.algo = result.algo;
  } else {
    const GemmAlgoSpec &pin = spec.algo;
    const std::string pinned = "the manifest's algorithm (algo " +
                               std::to_string(pin.id) + ", tile " +
                               std::to_string(pin.tile) + ", stages " +
                               std::to_string(pin.stages) + ", splitk " +
                               std::to_string(pin.splitK) + ")";
    auto init = [&] {
      return lt.cublasLtMatmulAlgoInit(resources.handle, computeType,
                                       CUDA_R_32F, aType, bType, dType, dType,
                                       static_cast<int>(pin.id), &impl.algo);
    };
    cublasStatus_t status = init();
    if (status != CUBLAS_STATUS_SUCCESS)
      return Status::error(prefix + ": " + pinned +
                           " cannot be initialized" + where +
                           ": cublasLtMatmulAlgoInit returned " +
                           describeCublasStatus(status) + why(init));
    auto setConfig = [&](cublasLtMatmulAlgoConfigAttributes_t attribute,
                         const auto &value, const char *name) {
      cublasStatus_t s = lt.cublasLtMatmulAlgoConfigSetAttribute(
          &impl.algo, attribute, &value, sizeof(value));
      if (s == CUBLAS_STATUS_SUCCESS)
        return Status::success();
      return Status::error(prefix + ": " + pinned + ": setting " + name +
                           " failed: " + describeCublasStatus(s));
    };
    const uint32_t tile = static_cast<uint32_t>(pin.tile);
    const uint32_t stages = static_cast<uint32_t>(pin.stages);
    const int32_t splitK = static_cast<int32_t>(pin.splitK);
    const uint32_t reduction = static_cast<uint32_t>(pin.reduction);
    const uint32_t swizzle = static_cast<uint32_t>(pin.swizzle);
    const uint32_t custom = static_cast<uint32_t>(pin.custom);
    const uint16_t inner = static_cast<uint16_t>(pin.innerShape);
    const uint16_t cluster = static_cast<uint16_t>(pin.clusterShape);
    TEQ_RETURN_IF_ERROR(setConfig(CUBLASLT_ALGO_CONFIG_TILE_ID, tile, "tile"));
    TEQ_RETURN_IF_ERROR(
        setConfig(CUBLASLT_ALGO_CONFIG_STAGES_ID, stages, "stages"));
    TEQ_RETURN_IF_ERROR(
        setConfig(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, splitK, "splitk"));
    TEQ_RETURN_IF_ERROR(setConfig(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME,
                                  reduction, "reduction"));
    TEQ_RETURN_IF_ERROR(
        setConfig(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, swizzle, "swizzle"));
    TEQ_RETURN_IF_ERROR(
        setConfig(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, custom, "custom"));
    TEQ_RETURN_IF_ERROR(
        setConfig(CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, inner, "inner_shape"));
    TEQ_RETURN_IF_ERROR(setConfig(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID,
                                  cluster, "cluster_shape"));
    auto checkAlgo = [&] {
      return lt.cublasLtMatmulAlgoCheck(resources.handle, impl.desc,
                                        impl.aLayout, impl.bLayout,
                                        impl.cLayout, impl.dLayout, &impl.algo,
                                        &result);
    };
    status = checkAlgo();
    if (status != CUBLAS_STATUS_SUCCESS)
      return Status::error(prefix + ": " + pinned + " is not valid" + where +
                           ": cublasLtMatmulAlgoCheck returned " +
                           describeCublasStatus(status) + why(checkAlgo));
    if (result.workspaceSize > resources.workspaceBytes)
      return Status::error(
          prefix + ": " + pinned + " needs " +
          std::to_string(result.workspaceSize) +
          " bytes of workspace, more than the runtime's " +
          std::to_string(resources.workspaceBytes));
  }

  // What was chosen, for reports.
  GemmPlanInfo &info = impl.info;
  info.id = spec.id;
  info.name = spec.name;
  info.m = spec.m;
  info.n = spec.n;
  info.k = spec.k;
  info.layout = std::string(spec.transa ? "T" : "N") + (spec.transb ? "T" : "N");
  info.aType = stringifyGemmType(spec.aType);
  info.bType = stringifyGemmType(spec.bType);
  info.dType = stringifyGemmType(spec.dType);
  info.pinned = spec.hasAlgo;
  info.workspaceBytes = result.workspaceSize;
  info.wavesCount = result.wavesCount;
  info.cublasLtVersion = detail::formatCublasVersion(lt.version);
  auto getConfig = [&](cublasLtMatmulAlgoConfigAttributes_t attribute,
                       auto &value) {
    size_t written = 0;
    if (lt.cublasLtMatmulAlgoConfigGetAttribute(&impl.algo, attribute, &value,
                                                sizeof(value), &written) !=
        CUBLAS_STATUS_SUCCESS)
      value = 0;
  };
  int32_t algoId = 0, splitK = 1;
  uint32_t tile = 0, stages = 0, reduction = 0, swizzle = 0, custom = 0;
  uint16_t inner = 0, cluster = 0;
  getConfig(CUBLASLT_ALGO_CONFIG_ID, algoId);
  getConfig(CUBLASLT_ALGO_CONFIG_TILE_ID, tile);
  getConfig(CUBLASLT_ALGO_CONFIG_STAGES_ID, stages);
  getConfig(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, splitK);
  getConfig(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, reduction);
  getConfig(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, swizzle);
  getConfig(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, custom);
  getConfig(CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, inner);
  getConfig(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, cluster);
  info.algoId = algoId;
  info.tile = static_cast<int>(tile);
  info.stages = static_cast<int>(stages);
  info.splitK = splitK;
  info.reduction = static_cast<int>(reduction);
  info.swizzle = static_cast<int>(swizzle);
  info.custom = static_cast<int>(custom);
  info.innerShape = inner;
  info.clusterShape = cluster;
  plan->spec_ = spec;
  plan->info_ = impl.info;
  return plan;
}

WorkspacePool &GemmPlan::workspacePool() const {
  return *impl_->resources->workspaces;
}

void *GemmPlan::streamFor(void *stream) const {
  return stream ? stream : impl_->context->stream();
}

Status GemmPlan::run(const GemmPointers &p, void *stream) const {
  TEQ_RETURN_IF_ERROR(checkGemmPointers(spec_, p));
  stream = streamFor(stream);
  auto lease = workspacePool().acquire(stream);
  if (!lease.ok())
    return lease.status().withPrefix(spec_.describe());
  Status status = runWithWorkspace(p, stream, lease->ptr());
  Status released = lease->release();
  if (!status.ok())
    return status;
  return released.withPrefix(spec_.describe());
}

Status GemmPlan::runWithWorkspace(const GemmPointers &p, void *stream,
                                  uint64_t workspace) const {
  Impl &impl = *impl_;
  // This GEMM's own spec: the same problem as the plan's, its own name.
  const GemmSpec &spec = spec_;
  TEQ_RETURN_IF_ERROR(checkGemmPointers(spec, p));
  const GemmResources &resources = *impl.resources;
  const CublasLt &lt = *resources.lt;
  CUstream cuStream = static_cast<CUstream>(streamFor(stream));

  // The descriptor's pointer attributes are the plan's, shared by every
  // call: set them and enqueue under the plan's lock (cublasLtMatmul reads
  // the descriptor when it enqueues).
  std::lock_guard<std::mutex> lock(impl_->mutex);
  auto setPointer = [&](cublasLtMatmulDescAttributes_t attribute,
                        DevicePtr ptr, DevicePtr &current, const char *name) {
    if (ptr == current)
      return Status::success();
    const void *value = reinterpret_cast<const void *>(ptr);
    cublasStatus_t status = lt.cublasLtMatmulDescSetAttribute(
        impl.desc, attribute, &value, sizeof(value));
    if (status == CUBLAS_STATUS_SUCCESS) {
      current = ptr;
      return Status::success();
    }
    current = Impl::kUnset;
    return Status::error(spec.describe() + ": setting " + name + " failed: " +
                         describeCublasStatus(status));
  };
  if (spec.aScaleMode != GemmScaleMode::None)
    TEQ_RETURN_IF_ERROR(setPointer(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                   p.aScale, impl.aScale,
                                   "CUBLASLT_MATMUL_DESC_A_SCALE_POINTER"));
  if (spec.bScaleMode != GemmScaleMode::None)
    TEQ_RETURN_IF_ERROR(setPointer(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                   p.bScale, impl.bScale,
                                   "CUBLASLT_MATMUL_DESC_B_SCALE_POINTER"));
  if (spec.epilogue != GemmEpilogue::Default)
    TEQ_RETURN_IF_ERROR(setPointer(CUBLASLT_MATMUL_DESC_BIAS_POINTER, p.bias,
                                   impl.bias,
                                   "CUBLASLT_MATMUL_DESC_BIAS_POINTER"));

  // alpha and beta share the pointer mode: host floats, or (alpha on the
  // device) the context's device constants for beta.
  static const float kZero = 0.0f, kOne = 1.0f;
  const void *alpha = &kOne;
  const void *beta = spec.accumulate ? &kOne : &kZero;
  if (spec.alphaOnDevice) {
    alpha = reinterpret_cast<const void *>(p.alpha);
    beta = reinterpret_cast<const void *>(resources.constants +
                                          (spec.accumulate ? 4 : 0));
  }
  // Without accumulation C is not read (beta = 0); cuBLASLt still wants a
  // pointer, and TE passes D.
  const DevicePtr c = spec.accumulate ? p.c : p.d;
  cublasStatus_t status = lt.cublasLtMatmul(
      resources.handle, impl.desc, alpha, reinterpret_cast<const void *>(p.a),
      impl.aLayout, reinterpret_cast<const void *>(p.b), impl.bLayout, beta,
      reinterpret_cast<const void *>(c), impl.cLayout,
      reinterpret_cast<void *>(p.d), impl.dLayout, &impl.algo,
      reinterpret_cast<void *>(workspace), resources.workspaceBytes,
      reinterpret_cast<cudaStream_t>(cuStream));
  if (status != CUBLAS_STATUS_SUCCESS)
    return Status::error(spec.describe() + ": cublasLtMatmul failed: " +
                         describeCublasStatus(status));
  return Status::success();
}

//===----------------------------------------------------------------------===//
// GemmScope and teqGemm
//===----------------------------------------------------------------------===//

namespace {
/// The GEMM state teqGemm uses on this thread (set by GemmScope).
thread_local detail::GemmScope::State *currentCall = nullptr;
/// GEMMs teqGemm enqueued on this thread.
thread_local uint64_t gemmsRun = 0;
} // namespace

uint64_t detail::enqueuedGemmCount() { return gemmsRun; }

namespace detail {
void GemmScope::State::releaseWorkspace() {
  Status status = lease.release();
  leasePool = nullptr;
  leaseStream = nullptr;
  if (!status.ok())
    recordMgpuError(status.message());
}

GemmScope::GemmScope(const GemmPlans *plans,
                     const WorkspacePool::StreamState *streamState,
                     void *stateStream)
    : saved_(currentCall) {
  state_.plans = plans;
  state_.streamState = streamState;
  state_.stateStream = stateStream;
  currentCall = &state_;
}

GemmScope::~GemmScope() {
  // After the entry enqueued its GEMMs: later work on the stream is ordered
  // after them.
  state_.releaseWorkspace();
  currentCall = saved_;
}
} // namespace detail

} // namespace mlir::teq::runtime

using namespace mlir::teq::runtime;

extern "C" void teqGemm(int64_t id, uint64_t a, uint64_t aScale, uint64_t b,
                        uint64_t bScale, uint64_t c, uint64_t d, uint64_t bias,
                        uint64_t alpha) {
  if (detail::skipMgpuCall())
    return;
  detail::GemmScope::State *call = currentCall;
  const GemmPlans *plans = call ? call->plans : nullptr;
  if (!plans) {
    detail::recordMgpuError(
        "GEMM id " + std::to_string(id) +
        ": teqGemm called with no artifact's GEMMs current on this thread "
        "(it must be called from an entry the TEQ runtime runs)");
    return;
  }
  if (id < 0 || id >= static_cast<int64_t>(plans->size())) {
    detail::recordMgpuError(
        "GEMM id " + std::to_string(id) + " is out of range: the artifact has " +
        std::to_string(plans->size()) +
        (plans->size() == 1 ? " GEMM" : " GEMMs"));
    return;
  }
  const GemmPlan *plan = (*plans)[static_cast<size_t>(id)].get();
  if (!plan) {
    detail::recordMgpuError("GEMM id " + std::to_string(id) +
                            " has no plan (internal error)");
    return;
  }
  GemmPointers pointers;
  pointers.a = a;
  pointers.aScale = aScale;
  pointers.b = b;
  pointers.bScale = bScale;
  pointers.c = c;
  pointers.d = d;
  pointers.bias = bias;
  pointers.alpha = alpha;
  Status status = checkGemmPointers(plan->spec(), pointers);
  if (!status.ok()) {
    detail::recordMgpuError(status.message());
    return;
  }
  // The entry's cuBLASLt workspace: taken once for the entry's stream, used
  // by each of its GEMMs in stream order.
  void *stream = plan->streamFor(detail::currentMgpuStream());
  detail::WorkspacePool *pool = &plan->workspacePool();
  if (!call->lease || call->leasePool != pool || call->leaseStream != stream) {
    call->releaseWorkspace();
    // The entry's stream was queried for the entry's own slot: no second
    // round of driver calls for the same stream.
    auto lease = call->streamState && call->stateStream == stream
                     ? pool->acquire(stream, *call->streamState)
                     : pool->acquire(stream);
    if (!lease.ok()) {
      detail::recordMgpuError(
          lease.status().withPrefix(plan->spec().describe()).message());
      return;
    }
    call->lease = std::move(*lease);
    call->leasePool = pool;
    call->leaseStream = stream;
  }
  status = plan->runWithWorkspace(pointers, stream, call->lease.ptr());
  if (!status.ok())
    detail::recordMgpuError(status.message());
  else
    ++gemmsRun;
}

//===- Compile.cpp - A teq module to an artifact, in one call -------------===//

#include "teq/Target/Compile.h"
#include "teq/Artifact/Manifest.h"
#include "teq/Conversion/Passes.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Dialect/TEQ/Transforms/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

#include <functional>

using namespace mlir;
using namespace mlir::teq;

StringRef mlir::teq::stringifyEmitKind(EmitKind kind) {
  switch (kind) {
  case EmitKind::MLIR:
    return "mlir";
  case EmitKind::Manifest:
    return "manifest";
  case EmitKind::LLVM:
    return "llvm";
  case EmitKind::PTX:
    return "ptx";
  case EmitKind::Obj:
    return "obj";
  case EmitKind::Lib:
    return "lib";
  }
  return "";
}

std::optional<EmitKind> mlir::teq::symbolizeEmitKind(StringRef text) {
  return llvm::StringSwitch<std::optional<EmitKind>>(text)
      .Case("mlir", EmitKind::MLIR)
      .Case("manifest", EmitKind::Manifest)
      .Case("llvm", EmitKind::LLVM)
      .Case("ptx", EmitKind::PTX)
      .Case("obj", EmitKind::Obj)
      .Case("lib", EmitKind::Lib)
      .Default(std::nullopt);
}

StringRef mlir::teq::stringifyDeviceCode(DeviceCode code) {
  return code == DeviceCode::PTX ? "ptx" : "cubin";
}

std::optional<DeviceCode> mlir::teq::symbolizeDeviceCode(StringRef text) {
  return llvm::StringSwitch<std::optional<DeviceCode>>(text)
      .Case("ptx", DeviceCode::PTX)
      .Case("cubin", DeviceCode::Cubin)
      .Default(std::nullopt);
}

namespace {

LogicalResult writeText(ModuleOp module, StringRef path,
                        const std::function<void(raw_ostream &)> &write) {
  std::string error;
  auto out = openOutputFile(path, &error);
  if (!out)
    return emitError(module.getLoc()) << error;
  write(out->os());
  out->os().flush();
  // A failed write (a full disk, /dev/full) is an error here, not LLVM's
  // fatal "IO failure on output stream" when the stream is destroyed.
  if (out->os().has_error()) {
    std::error_code ec = out->os().error();
    out->os().clear_error();
    return emitError(module.getLoc())
           << "cannot write '" << path << "': " << ec.message();
  }
  out->keep();
  return success();
}

/// Copies the "algo" of each GEMM in `path` (te-run --json output) into the
/// manifest's GEMM of the same name and problem, so the artifact runs that
/// algorithm on every load (docs/Artifact.md, "algo").
LogicalResult pinGemmAlgorithms(ModuleOp module, StringRef path,
                                artifact::Manifest &manifest) {
  auto error = [&](const llvm::Twine &message) {
    return emitError(module.getLoc())
           << "--gemm-algos " << path << ": " << message;
  };
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &message);
  if (!file)
    return error(message);
  auto pins = artifact::JsonValue::parse(file->getBuffer());
  if (!pins.ok())
    return error(pins.message());
  const artifact::JsonValue *pinList = pins->find("gemms");
  if (!pinList || !pinList->isArray())
    return error("no \"gemms\" array (expected `te-run --json` output)");
  if (manifest.gemms.empty())
    return error("the program has no GEMMs");
  for (const artifact::JsonValue &pin : pinList->asArray()) {
    const artifact::JsonValue *name = pin.find("name");
    const artifact::JsonValue *algoValue = pin.find("algo");
    if (!name || !name->isString() || !algoValue)
      return error("every entry of \"gemms\" needs a name and an algo");
    auto target = llvm::find_if(manifest.gemms, [&](const auto &gemm) {
      return gemm.name == name->asString();
    });
    if (target == manifest.gemms.end())
      return error("GEMM '" + name->asString() + "' is not in this program");
    for (auto [dim, value] : {std::pair{"m", target->m},
                              std::pair{"n", target->n},
                              std::pair{"k", target->k}}) {
      const artifact::JsonValue *pinned = pin.find(dim);
      if (pinned && pinned->isInteger() && pinned->asInteger() != value)
        return error("GEMM '" + name->asString() + "' has " + dim + " = " +
                     llvm::Twine(value) + " here but " +
                     llvm::Twine(pinned->asInteger()) +
                     " in the file (pinned for another program?)");
    }
    auto algo = artifact::parseGemmAlgo(*algoValue);
    if (!algo.ok())
      return error("GEMM '" + name->asString() + "': " + algo.message());
    target->hasAlgo = true;
    target->algo = *algo;
  }
  // GEMMs pinned to different algorithms no longer share a plan.
  artifact::assignSharedPlans(manifest.gemms);
  return success();
}

/// The module's manifest, read back with the runtime's reader (te-compile
/// never writes one the runtime would refuse), with the device code and the
/// GEMM algorithms `options` choose.
LogicalResult finishManifest(ModuleOp module, const CompileOptions &options) {
  auto attr =
      module->getAttrOfType<StringAttr>(TEQDialect::getManifestAttrName());
  artifact::StatusOr<artifact::Manifest> manifest =
      artifact::parseManifest(attr ? attr.getValue() : "");
  if (!manifest.ok())
    return emitError(module.getLoc())
           << "internal error: the runtime would refuse the artifact's "
              "manifest: "
           << manifest.message();
  manifest->deviceCode = options.deviceCode == DeviceCode::Cubin
                             ? artifact::DeviceCodeKind::Cubin
                             : artifact::DeviceCodeKind::PTX;
  if (!options.gemmAlgosPath.empty() &&
      failed(pinGemmAlgorithms(module, options.gemmAlgosPath, *manifest)))
    return failure();
  module->setAttr(TEQDialect::getManifestAttrName(),
                  StringAttr::get(module.getContext(),
                                  artifact::writeManifest(*manifest)));
  return success();
}

} // namespace

llvm::ArrayRef<llvm::StringLiteral> mlir::teq::fusionNames() {
  static constexpr llvm::StringLiteral names[] = {"residual-add", "bias-grad",
                                                   "amax", "norm-add"};
  return names;
}

LogicalResult mlir::teq::compileModule(ModuleOp module,
                                       const CompileOptions &options,
                                       StringRef outputPath) {
  MLIRContext *context = module.getContext();
  for (const std::string &name : options.disabledFusions)
    if (!llvm::is_contained(fusionNames(), name))
      return emitError(module.getLoc())
             << "unknown fusion '" << name << "' to disable (known: "
             << llvm::join(fusionNames(), ", ") << ")";
  auto enabled = [&](StringRef fusion) {
    return !llvm::is_contained(options.disabledFusions, fusion);
  };
  // An artifact is self-contained: a declaration would be an undefined
  // symbol when the runtime loads it (or, with types only the embedding
  // compiler knows, such as !quant.uniform, fail deep in LLVM translation).
  for (auto function : module.getOps<func::FuncOp>())
    if (function.isDeclaration())
      return function.emitError()
             << "cannot compile the declaration of @" << function.getSymName()
             << " into an artifact: artifacts do not call functions outside "
                "themselves; compile a module without it";
  PassManager teqPasses(context);
  FrontendPipelineOptions pipelineOptions;
  pipelineOptions.target = options.target;
  pipelineOptions.fuseResidualAdds = enabled("residual-add");
  pipelineOptions.fuseNormBackwardAdds = enabled("norm-add");
  buildLowerToGemmPipeline(teqPasses, pipelineOptions);
  ConvertTEQToGPUOptions conversion;
  for (const std::string &name : options.disabledFusions)
    // The rest are convert-teq-to-gpu's.
    if (name != "residual-add" && name != "norm-add")
      conversion.disabledFusions.push_back(name);
  teqPasses.addPass(createConvertTEQToGPU(conversion));
  if (failed(teqPasses.run(module)))
    return failure();
  if (failed(finishManifest(module, options)))
    return failure();
  if (options.emit == EmitKind::MLIR)
    return writeText(module, outputPath,
                     [&](raw_ostream &os) { module->print(os); });
  if (options.emit == EmitKind::Manifest) {
    auto text =
        module->getAttrOfType<StringAttr>(TEQDialect::getManifestAttrName());
    // finishManifest wrote it: it is JSON. Indented for reading.
    auto json = artifact::JsonValue::parse(text.getValue());
    if (!json.ok())
      return emitError(module.getLoc())
             << "internal error: the manifest is not JSON: " << json.message();
    return writeText(module, outputPath, [&](raw_ostream &os) {
      os << json->serialize(/*indent=*/2) << "\n";
    });
  }

  PassManager lowering(context);
  buildGPUToLLVMPipeline(lowering, options.forceIndex64
                                       ? 64
                                       : kernelIndexBitwidth(module));
  if (failed(lowering.run(module)) || failed(checkKernelsCallNothing(module)))
    return failure();
  PassManager deviceBinary(context);
  buildDeviceBinaryPipeline(deviceBinary, options.deviceCode);
  if (failed(deviceBinary.run(module)))
    return failure();
  if (options.emit == EmitKind::PTX) {
    FailureOr<std::string> ptx = getDeviceAssembly(module);
    if (failed(ptx))
      return failure();
    return writeText(module, outputPath,
                     [&](raw_ostream &os) { os << *ptx; });
  }
  std::string manifest;
  if (failed(emitArtifactABI(module, options.deviceCode, &manifest)))
    return failure();

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return emitError(module.getLoc()) << "translation to LLVM IR failed";
  if (options.emit == EmitKind::LLVM)
    return writeText(module, outputPath, [&](raw_ostream &os) {
      llvmModule->print(os, nullptr);
    });

  std::string error;
  std::string object = options.emit == EmitKind::Obj
                           ? outputPath.str()
                           : (outputPath + ".o").str();
  if (failed(emitObjectFile(*llvmModule, object, error)))
    return emitError(module.getLoc()) << error;
  if (options.emit == EmitKind::Obj)
    return success();
  LogicalResult linked = linkSharedLibrary(object, outputPath, error);
  llvm::sys::fs::remove(object);
  if (failed(linked) || failed(sealArtifact(outputPath, manifest, error)))
    return emitError(module.getLoc()) << error;
  return success();
}

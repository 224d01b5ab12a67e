//===- te-compile.cpp - Compile a teq program into a native artifact ------===//
//
//   te-compile model.mlir --target=sm_90 -o model.so
//   te-compile model.mlir --target=sm_90 --emit=ptx -o -
//
// Runs the teq pipeline (recipe checks, autocast resolution, prototypes,
// dedupe, Linear decomposition), lowers teq to GPU kernels and host launches,
// NVVM to PTX (or cubin), host code to LLVM, and links the shared library
// described in docs/Artifact.md.
//
//===----------------------------------------------------------------------===//

#include "teq/Conversion/Passes.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Dialect/TEQ/Transforms/Pipelines.h"
#include "teq/Registration.h"
#include "teq/Target/Artifact.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {
enum class Emit { MLIR, Manifest, LLVM, PTX, Obj, Lib };

llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                     llvm::cl::desc("<input .mlir>"),
                                     llvm::cl::Required);
llvm::cl::opt<std::string> outputFile("o", llvm::cl::desc("output file"),
                                      llvm::cl::value_desc("path"),
                                      llvm::cl::init(""));
llvm::cl::opt<std::string>
    target("target",
           llvm::cl::desc("GPU to compile for (sm_89, sm_90, sm_100, ...); "
                          "the module's #teq.target when not given"),
           llvm::cl::init(""));
llvm::cl::opt<Emit> emit(
    "emit", llvm::cl::desc("what to produce"), llvm::cl::init(Emit::Lib),
    llvm::cl::values(
        clEnumValN(Emit::MLIR, "mlir", "MLIR after lowering teq to GPU"),
        clEnumValN(Emit::Manifest, "manifest",
                   "the artifact's manifest (JSON, docs/Artifact.md)"),
        clEnumValN(Emit::LLVM, "llvm", "host LLVM IR (device code embedded)"),
        clEnumValN(Emit::PTX, "ptx", "device code as PTX"),
        clEnumValN(Emit::Obj, "obj", "host object file"),
        clEnumValN(Emit::Lib, "lib", "shared library (the artifact)")));
llvm::cl::opt<mlir::teq::DeviceCode> deviceCode(
    "device-code", llvm::cl::desc("device code embedded in the artifact"),
    llvm::cl::init(mlir::teq::DeviceCode::PTX),
    llvm::cl::values(
        clEnumValN(mlir::teq::DeviceCode::PTX, "ptx",
                   "PTX, JIT-compiled by the driver when loaded"),
        clEnumValN(mlir::teq::DeviceCode::Cubin, "cubin",
                   "cubin (needs ptxas at compile time)")));

enum class IndexWidth { Auto, Bits64 };
llvm::cl::opt<IndexWidth> kernelIndexWidth(
    "kernel-index-bitwidth",
    llvm::cl::desc("width of the kernels' index arithmetic"),
    llvm::cl::init(IndexWidth::Auto),
    llvm::cl::values(
        clEnumValN(IndexWidth::Auto, "auto",
                   "32 where every memref the kernels touch has at most "
                   "2^30 elements, else 64"),
        clEnumValN(IndexWidth::Bits64, "64",
                   "always 64 (to compare; 32 is only ever chosen where "
                   "safe)")));

llvm::cl::opt<std::string> gemmAlgos(
    "gemm-algos",
    llvm::cl::desc("pin each GEMM's cuBLASLt algorithm: a JSON file as "
                   "`te-run --json` prints it (its \"gemms\": name, m, n, k "
                   "and algo), recorded in the artifact's manifest"),
    llvm::cl::value_desc("file"), llvm::cl::init(""));

int fail(const llvm::Twine &message) {
  llvm::errs() << "te-compile: error: " << message << "\n";
  return 1;
}

std::string defaultOutput() {
  llvm::SmallString<128> path(inputFile == "-" ? "out" : inputFile.getValue());
  llvm::sys::path::replace_extension(path, "");
  switch (emit) {
  case Emit::MLIR:
  case Emit::Manifest:
  case Emit::LLVM:
  case Emit::PTX:
    return "-";
  case Emit::Obj:
    return (path + ".o").str();
  case Emit::Lib:
    return (path + ".so").str();
  }
  return "-";
}

LogicalResult writeText(StringRef path, const std::function<void(raw_ostream &)> &write) {
  std::string error;
  auto out = openOutputFile(path, &error);
  if (!out) {
    llvm::errs() << "te-compile: error: " << error << "\n";
    return failure();
  }
  write(out->os());
  out->keep();
  return success();
}
/// Copies the "algo" of each GEMM in `path` (te-run --json output) into the
/// manifest's GEMM of the same name and problem, so the artifact runs that
/// algorithm on every load (docs/Artifact.md, "algo").
LogicalResult pinGemmAlgorithms(ModuleOp module, StringRef path) {
  auto error = [&](const llvm::Twine &message) {
    llvm::errs() << "te-compile: error: --gemm-algos " << path << ": "
                 << message << "\n";
    return failure();
  };
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &message);
  if (!file)
    return error(message);
  llvm::Expected<llvm::json::Value> pins = llvm::json::parse(file->getBuffer());
  if (!pins)
    return error(llvm::toString(pins.takeError()));
  const llvm::json::Array *pinList =
      pins->getAsObject() ? pins->getAsObject()->getArray("gemms") : nullptr;
  if (!pinList)
    return error("no \"gemms\" array (expected `te-run --json` output)");
  auto attr = module->getAttrOfType<StringAttr>(
      mlir::teq::TEQDialect::getManifestAttrName());
  llvm::Expected<llvm::json::Value> manifest =
      llvm::json::parse(attr ? attr.getValue() : "");
  if (!manifest)
    return error("internal error: the manifest is not JSON");
  llvm::json::Array *gemms = manifest->getAsObject()->getArray("gemms");
  if (!gemms)
    return error("the program has no GEMMs");
  for (const llvm::json::Value &pinValue : *pinList) {
    const llvm::json::Object *pin = pinValue.getAsObject();
    std::optional<StringRef> name = pin ? pin->getString("name") : std::nullopt;
    const llvm::json::Object *algo = pin ? pin->getObject("algo") : nullptr;
    if (!name || !algo)
      return error("every entry of \"gemms\" needs a name and an algo");
    llvm::json::Object *target = nullptr;
    for (llvm::json::Value &g : *gemms)
      if (g.getAsObject()->getString("name") == *name)
        target = g.getAsObject();
    if (!target)
      return error("GEMM '" + *name + "' is not in this program");
    for (const char *dim : {"m", "n", "k"})
      if (pin->getInteger(dim) &&
          pin->getInteger(dim) != target->getInteger(dim))
        return error("GEMM '" + *name + "' has " + dim + " = " +
                     llvm::Twine(*target->getInteger(dim)) +
                     " here but " + llvm::Twine(*pin->getInteger(dim)) +
                     " in the file (pinned for another program?)");
    (*target)["algo"] = llvm::json::Object(*algo);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(*manifest));
  module->setAttr(mlir::teq::TEQDialect::getManifestAttrName(),
                  StringAttr::get(module.getContext(), text));
  return success();
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << mlir::teq::getVersionString() << "\n";
  });
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "te-compile: compile a teq program into a native artifact\n");
  std::string output = outputFile.empty() ? defaultOutput() : outputFile;

  DialectRegistry registry;
  mlir::teq::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputFile, &error);
  if (!input)
    return fail(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1; // the parser reported why

  PassManager teqPasses(&context);
  mlir::teq::FrontendPipelineOptions options;
  options.target = target;
  mlir::teq::buildLowerToGemmPipeline(teqPasses, options);
  teqPasses.addPass(mlir::teq::createConvertTEQToGPU());
  if (failed(teqPasses.run(*module)))
    return 1;
  if (!gemmAlgos.empty() && failed(pinGemmAlgorithms(*module, gemmAlgos)))
    return 1;
  if (emit == Emit::MLIR)
    return failed(writeText(output, [&](raw_ostream &os) { module->print(os); }));
  if (emit == Emit::Manifest) {
    auto text = (*module)->getAttrOfType<StringAttr>(
        mlir::teq::TEQDialect::getManifestAttrName());
    llvm::Expected<llvm::json::Value> json =
        llvm::json::parse(text ? text.getValue() : "");
    if (!json)
      return fail("internal error: the manifest is not JSON: " +
                  llvm::toString(json.takeError()));
    return failed(writeText(output, [&](raw_ostream &os) {
      os << llvm::formatv("{0:2}", *json) << "\n";
    }));
  }

  PassManager lowering(&context);
  mlir::teq::buildGPUToLLVMPipeline(
      lowering, deviceCode,
      kernelIndexWidth == IndexWidth::Bits64
          ? 64
          : mlir::teq::kernelIndexBitwidth(*module));
  if (failed(lowering.run(*module)))
    return 1;
  if (emit == Emit::PTX) {
    FailureOr<std::string> ptx = mlir::teq::getDeviceAssembly(*module);
    if (failed(ptx))
      return 1;
    return failed(writeText(output, [&](raw_ostream &os) { os << *ptx; }));
  }
  if (failed(mlir::teq::emitArtifactABI(*module, deviceCode)))
    return 1;

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::teq::translateToLLVMIR(*module, llvmContext);
  if (!llvmModule)
    return fail("translation to LLVM IR failed");
  if (emit == Emit::LLVM)
    return failed(
        writeText(output, [&](raw_ostream &os) { llvmModule->print(os, nullptr); }));

  std::string object = emit == Emit::Obj ? output : output + ".o";
  if (failed(mlir::teq::emitObjectFile(*llvmModule, object, error)))
    return fail(error);
  if (emit == Emit::Obj)
    return 0;
  LogicalResult linked = mlir::teq::linkSharedLibrary(object, output, error);
  llvm::sys::fs::remove(object);
  if (failed(linked))
    return fail(error);
  return 0;
}

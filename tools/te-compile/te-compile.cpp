//===- te-compile.cpp - Compile a teq program into a native artifact ------===//
//
//   te-compile model.mlir --target=sm_90 -o model.so
//   te-compile model.mlir --target=sm_90 --emit=ptx -o -
//   te-compile --list-targets
//
// A thin driver over mlir::teq::compileModule (teq/Target/Compile.h): runs
// the teq pipeline (recipe checks, autocast resolution, prototypes,
// dedupe, Linear decomposition), lowers teq to GPU kernels and host launches,
// NVVM to PTX (or cubin), host code to LLVM, and links the shared library
// described in docs/Artifact.md.
//
//===----------------------------------------------------------------------===//

#include "teq/Conversion/TEQToGPU/Targets.h"
#include "teq/Registration.h"
#include "teq/Target/Compile.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {
using Emit = mlir::teq::EmitKind;

llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                     llvm::cl::desc("<input .mlir>"));
llvm::cl::opt<bool> listTargets(
    "list-targets",
    llvm::cl::desc("print the GPUs te-compile generates code for (with "
                   "their PTX ISA versions) and exit"),
    llvm::cl::init(false));
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

llvm::cl::list<std::string> disableFusions(
    "disable-fusion",
    llvm::cl::desc("leave out a fusion across ops, to measure it against "
                   "the unfused form: residual-add, bias-grad, amax, "
                   "norm-add "
                   "(comma-separated or repeated)"),
    llvm::cl::value_desc("name"), llvm::cl::CommaSeparated);

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

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << mlir::teq::getVersionString() << "\n";
  });
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "te-compile: compile a teq program into a native artifact\n");
  if (listTargets) {
    for (const std::string &chip : mlir::teq::codegenTargets()) {
      unsigned sm = std::stoi(chip.substr(3));
      llvm::StringRef suffix = llvm::StringRef(chip).drop_while(
          [](char c) { return c != 'a' && c != 'f'; });
      unsigned ptx = *mlir::teq::ptxVersionFor(sm, suffix);
      llvm::outs() << chip << " PTX " << ptx / 10 << "." << ptx % 10 << "\n";
    }
    return 0;
  }
  if (inputFile.empty())
    return fail("no input file (te-compile <input .mlir> [options]; "
                "--help lists them)");
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

  mlir::teq::CompileOptions options;
  options.target = target;
  options.emit = emit;
  options.deviceCode = deviceCode;
  options.forceIndex64 = kernelIndexWidth == IndexWidth::Bits64;
  options.gemmAlgosPath = gemmAlgos;
  options.disabledFusions.assign(disableFusions.begin(), disableFusions.end());
  return failed(mlir::teq::compileModule(*module, options, output)) ? 1 : 0;
}

//===- embed-compile.cpp - A compiler that embeds TEQ ---------------------===//
//
// Built against the *installed* TEQ package (find_package(TEQ CONFIG),
// TEQ::Compiler), as another MLIR-based compiler would: one registry holds
// every upstream MLIR dialect (upstream `quant` included) and teq. It parses
// a module that mixes !quant.uniform types with teq ops, runs
// teq-lower-to-gemm on it, prints the result, then moves the teq functions
// into a module of their own and compiles that into an artifact.
//
//   teq-embed-compile input.mlir output.so
//
//===----------------------------------------------------------------------===//

#include "teq/Registration.h"
#include "teq/Target/Compile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: teq-embed-compile input.mlir output.so\n";
    return 2;
  }
  DialectRegistry registry;
  registerAllDialects(registry); // every upstream dialect
  teq::registerAllDialects(registry);
  teq::registerAllPasses();
  MLIRContext context(registry);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(argv[1], &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  llvm::outs() << "loaded dialects:";
  for (Dialect *dialect : context.getLoadedDialects())
    llvm::outs() << " " << dialect->getNamespace();
  llvm::outs() << "\n";

  // The pipeline by its registered name, as a host compiler's pass
  // pipeline text would name it.
  PassManager pm(&context);
  if (failed(parsePassPipeline("teq-lower-to-gemm", pm, llvm::errs())) ||
      failed(pm.run(*module)))
    return 1;
  llvm::outs() << "// after teq-lower-to-gemm\n";
  module->print(llvm::outs());
  llvm::outs() << "\n";

  // The host compiler keeps its int8 declarations; TEQ compiles the rest.
  OwningOpRef<ModuleOp> teqModule(ModuleOp::create(module->getLoc()));
  (*teqModule)->setAttrs((*module)->getAttrDictionary());
  for (auto function :
       llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    if (!function.isDeclaration())
      function->moveBefore(teqModule->getBody(),
                           teqModule->getBody()->end());

  teq::CompileOptions options;
  options.emit = teq::EmitKind::Lib;
  if (failed(teq::compileModule(*teqModule, options, argv[2])))
    return 1;
  llvm::outs() << "// compiled " << argv[2] << "\n";
  return 0;
}

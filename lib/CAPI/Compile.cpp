//===- Compile.cpp - A module to a native artifact, in the C API ----------===//

#include "teq-c/Compile.h"
#include "Status.h"
#include "teq/Target/Compile.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::capi;

TeqCompileOptions teqCompileOptionsGetDefault(void) {
  TeqCompileOptions options = {};
  options.target = mlirStringRefCreate("", 0);
  options.emit = mlirStringRefCreate("", 0);
  options.deviceCode = mlirStringRefCreate("", 0);
  options.forceIndex64 = false;
  options.gemmAlgosPath = mlirStringRefCreate("", 0);
  options.disabledFusions = mlirStringRefCreate("", 0);
  return options;
}

TeqStatus teqCompileModule(MlirModule module, const TeqCompileOptions *options,
                           MlirStringRef outputPath) {
  if (mlirModuleIsNull(module))
    return makeError("teqCompileModule: null module");
  StringRef output = unwrap(outputPath);
  if (output.empty())
    return makeError("teqCompileModule: empty output path");
  TeqCompileOptions given =
      options ? *options : teqCompileOptionsGetDefault();

  CompileOptions compileOptions;
  compileOptions.target = unwrap(given.target).str();
  if (StringRef emit = unwrap(given.emit); !emit.empty()) {
    std::optional<EmitKind> kind = symbolizeEmitKind(emit);
    if (!kind)
      return makeError("teqCompileModule: unknown emit kind '" + emit.str() +
                       "' (expected lib, obj, ptx, llvm, manifest or mlir)");
    compileOptions.emit = *kind;
  }
  if (StringRef code = unwrap(given.deviceCode); !code.empty()) {
    std::optional<DeviceCode> kind = symbolizeDeviceCode(code);
    if (!kind)
      return makeError("teqCompileModule: unknown device code '" + code.str() +
                       "' (expected ptx or cubin)");
    compileOptions.deviceCode = *kind;
  }
  compileOptions.forceIndex64 = given.forceIndex64;
  compileOptions.gemmAlgosPath = unwrap(given.gemmAlgosPath).str();
  llvm::SmallVector<StringRef> fusions;
  unwrap(given.disabledFusions)
      .split(fusions, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef fusion : fusions)
    compileOptions.disabledFusions.push_back(fusion.trim().str());

  // Lowering rewrites the module: compile a copy so the caller's module
  // stays the program it wrote.
  ModuleOp original = unwrap(module);
  OwningOpRef<ModuleOp> copy(original.clone());
  DiagnosticCapture capture(original.getContext());
  return capture.status(compileModule(*copy, compileOptions, output),
                        "compilation failed");
}

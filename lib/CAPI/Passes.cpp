//===- Passes.cpp - TEQ's passes and pipelines in the C API ---------------===//

#include "teq-c/Passes.h"
#include "Status.h"
#include "teq/Conversion/Passes.h"
#include "teq/Dialect/TEQ/Transforms/Passes.h"
#include "teq/Registration.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <mutex>

using namespace mlir;
using namespace mlir::teq;
using namespace mlir::teq::capi;

// The generated definitions call create<Pass>() and register<Pass>()
// unqualified.
#include "teq/Conversion/Passes.capi.cpp.inc"
#include "teq/Dialect/TEQ/Transforms/Passes.capi.cpp.inc"

void teqRegisterAllPasses(void) {
  static std::once_flag once;
  std::call_once(once, [] { mlir::teq::registerAllPasses(); });
}

TeqStatus teqRunPassPipeline(MlirModule module, MlirStringRef pipeline) {
  if (mlirModuleIsNull(module))
    return makeError("teqRunPassPipeline: null module");
  teqRegisterAllPasses();
  ModuleOp moduleOp = unwrap(module);
  MLIRContext *context = moduleOp.getContext();
  StringRef text = unwrap(pipeline).trim();
  if (text.empty())
    return makeError("teqRunPassPipeline: empty pipeline");

  // "builtin.module(a, b)" names the anchor the pass manager has anyway.
  StringRef elements = text;
  if (elements.consume_front("builtin.module(") &&
      !elements.consume_back(")"))
    return makeError("invalid pass pipeline '" + text.str() +
                     "': unbalanced parentheses");
  std::string parseError;
  llvm::raw_string_ostream parseErrorStream(parseError);
  PassManager pm(context);
  if (failed(parsePassPipeline(elements, pm, parseErrorStream)))
    return makeError("invalid pass pipeline '" + text.str() +
                     "': " + StringRef(parseError).trim().str());
  DiagnosticCapture capture(context);
  return capture.status(pm.run(moduleOp),
                        "pass pipeline '" + text.str() + "' failed");
}

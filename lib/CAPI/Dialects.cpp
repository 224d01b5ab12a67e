//===- Dialects.cpp - The teq dialect in the C API ------------------------===//

#include "teq-c/Dialects.h"
#include "teq/Dialect/TEQ/IR/TEQDialect.h"
#include "teq/Registration.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(TEQ, teq, mlir::teq::TEQDialect)

void teqRegisterAllDialects(MlirDialectRegistry registry) {
  if (mlirDialectRegistryIsNull(registry))
    return;
  mlir::teq::registerAllDialects(*unwrap(registry));
}

MlirStringRef teqGetVersionString(void) {
  return mlirStringRefCreateFromCString(mlir::teq::getVersionString());
}

/*===-- teq-c/Dialects.h - The teq dialect in the C API -----------*- C -*-===*\
|*                                                                            *|
|* The teq dialect handle, and one call that registers everything the TEQ     *|
|* tools register (mlir::teq::registerAllDialects: teq, the upstream          *|
|* dialects TEQ programs and lowerings use, upstream `quant` included, their  *|
|* extensions and translation interfaces) into a registry.                    *|
|*                                                                            *|
|*   MlirDialectRegistry registry = mlirDialectRegistryCreate();              *|
|*   teqRegisterAllDialects(registry);                                        *|
|*   MlirContext ctx = mlirContextCreateWithRegistry(registry, false);        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TEQ_C_DIALECTS_H
#define TEQ_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(TEQ, teq);

/// Inserts what mlir::teq::registerAllDialects inserts into `registry`.
MLIR_CAPI_EXPORTED void teqRegisterAllDialects(MlirDialectRegistry registry);

/// "teq <version> (MLIR/LLVM <version>)".
MLIR_CAPI_EXPORTED MlirStringRef teqGetVersionString(void);

#ifdef __cplusplus
}
#endif

#endif /* TEQ_C_DIALECTS_H */

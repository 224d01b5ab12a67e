/*===-- teq-c/Support.h - Status and parsing of the TEQ C API -----*- C -*-===*\
|*                                                                            *|
|* Every TEQ C API call that can fail returns a TeqStatus: success, or the    *|
|* error diagnostics the call produced, as located text                       *|
|* ("<input>:3:7: error: ..." with the source line and a caret where the      *|
|* source is known). Nothing aborts on bad input: null handles, malformed     *|
|* text and unknown names are errors with messages.                           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TEQ_C_SUPPORT_H
#define TEQ_C_SUPPORT_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Success (null ptr) or an owned error message. Destroy a failed status with
/// teqStatusDestroy (destroying a success is a no-op).
typedef struct TeqStatus {
  void *ptr;
} TeqStatus;

MLIR_CAPI_EXPORTED bool teqStatusIsSuccess(TeqStatus status);
/// The error text (every diagnostic of the failed call, notes included); an
/// empty string for success. Valid until teqStatusDestroy.
MLIR_CAPI_EXPORTED MlirStringRef teqStatusGetMessage(TeqStatus status);
MLIR_CAPI_EXPORTED void teqStatusDestroy(TeqStatus status);

/// Parses `source` as a module named `bufferName` in diagnostics (e.g. the
/// file it came from; "<input>" if empty) and verifies it. On success
/// `*result` owns the module (mlirModuleDestroy).
MLIR_CAPI_EXPORTED TeqStatus teqParseModule(MlirContext context,
                                            MlirStringRef source,
                                            MlirStringRef bufferName,
                                            MlirModule *result);

/// Parses attribute text such as "#teq.delayed_scaling<margin = 1>"; the
/// dialect's verifier runs, so TE's field checks apply.
MLIR_CAPI_EXPORTED TeqStatus teqParseAttribute(MlirContext context,
                                               MlirStringRef text,
                                               MlirAttribute *result);

/// Parses type text such as
/// "!teq.proto<128x256xbf16, #teq.mxfp8_quantizer<f8E4M3FN>, rowwise>".
MLIR_CAPI_EXPORTED TeqStatus teqParseType(MlirContext context,
                                          MlirStringRef text,
                                          MlirType *result);

/// Verifies `op` and everything nested in it.
MLIR_CAPI_EXPORTED TeqStatus teqVerifyOperation(MlirOperation op);

#ifdef __cplusplus
}
#endif

#endif /* TEQ_C_SUPPORT_H */

/*===-- teq-c/Passes.h - TEQ's passes and pipelines in the C API --*- C -*-===*\
|*                                                                            *|
|* Generated from Passes.td: mlirCreateTEQ<Pass>() / mlirRegisterTEQ<Pass>()  *|
|* for every teq pass, mlirRegisterTEQPasses(), and the same for the          *|
|* conversions (mlirCreateTEQConversionConvertTEQToGPU, ...). By hand: the    *|
|* pipelines and a call that runs a textual pipeline on a module.             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TEQ_C_PASSES_H
#define TEQ_C_PASSES_H

#include "mlir-c/Pass.h"
#include "teq-c/Support.h"

#include "teq/Conversion/Passes.capi.h.inc"
#include "teq/Dialect/TEQ/Transforms/Passes.capi.h.inc"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers what mlir::teq::registerAllPasses registers: every teq pass,
/// the pipelines `teq-frontend` and `teq-lower-to-gemm`, the conversions and
/// the generic cleanups TEQ pipelines use. Idempotent.
MLIR_CAPI_EXPORTED void teqRegisterAllPasses(void);

/// Runs a textual pass pipeline on `module` in place, e.g.
/// "teq-lower-to-gemm{target=sm_90}" or
/// "builtin.module(teq-frontend{print-saved-memory=true}, canonicalize)".
/// Registers TEQ's passes first. Errors: an unknown pass or option, and every
/// error a pass emits, with its location.
MLIR_CAPI_EXPORTED TeqStatus teqRunPassPipeline(MlirModule module,
                                                MlirStringRef pipeline);

#ifdef __cplusplus
}
#endif

#endif /* TEQ_C_PASSES_H */

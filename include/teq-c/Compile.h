/*===-- teq-c/Compile.h - A module to a native artifact -----------*- C -*-===*\
|*                                                                            *|
|* What `te-compile` does (mlir::teq::compileModule): the teq pipeline, teq   *|
|* to GPU kernels and cuBLASLt calls, PTX, host code, and the shared library  *|
|* of docs/Artifact.md, or a stage on the way.                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TEQ_C_COMPILE_H
#define TEQ_C_COMPILE_H

#include "teq-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// te-compile's options. Empty strings take the defaults.
typedef struct TeqCompileOptions {
  /// --target: "sm_90", "sm_100a", ...; empty: the module's #teq.target.
  MlirStringRef target;
  /// --emit: "lib" (default), "obj", "ptx", "llvm", "manifest", "mlir".
  MlirStringRef emit;
  /// --device-code: "ptx" (default) or "cubin" (needs ptxas).
  MlirStringRef deviceCode;
  /// --kernel-index-bitwidth=64 when true (default: 32 bits where safe).
  bool forceIndex64;
  /// --gemm-algos: a `te-run --json` file pinning the GEMM algorithms.
  MlirStringRef gemmAlgosPath;
  /// --disable-fusion: comma-separated fusion names ("residual-add",
  /// "bias-grad", "amax");
  /// empty: every fusion.
  MlirStringRef disabledFusions;
} TeqCompileOptions;

/// All defaults.
MLIR_CAPI_EXPORTED TeqCompileOptions teqCompileOptionsGetDefault(void);

/// Compiles a copy of `module` (which is left unchanged) and writes the
/// result to `outputPath` ("-": stdout for the text kinds). `options` may be
/// null (all defaults). Errors: unknown option values, the teq pipeline's
/// and the lowering's diagnostics with their locations, I/O and link errors.
MLIR_CAPI_EXPORTED TeqStatus teqCompileModule(MlirModule module,
                                              const TeqCompileOptions *options,
                                              MlirStringRef outputPath);

#ifdef __cplusplus
}
#endif

#endif /* TEQ_C_COMPILE_H */

//===- Compile.h - A teq module to an artifact, in one call ------*- C++ -*-===//
//
// What te-compile does, as a library call: the teq pipeline (recipe checks,
// autocast resolution, prototypes, dedupe, Linear decomposition), teq to GPU
// kernels and host launches, NVVM to PTX (or cubin), host code to LLVM, and
// the shared library of docs/Artifact.md, or any stage on the way
// (`EmitKind`). te-compile, the C API (teqCompileModule) and the Python
// package (teq.compile) all call compileModule, so they write the same
// artifact.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_TARGET_COMPILE_H
#define TEQ_TARGET_COMPILE_H

#include "teq/Target/Artifact.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::teq {

/// What compileModule writes.
enum class EmitKind {
  MLIR,     ///< The module after lowering teq to GPU (text).
  Manifest, ///< The artifact's manifest (JSON, docs/Artifact.md).
  LLVM,     ///< Host LLVM IR with the device code embedded (text).
  PTX,      ///< The device code as PTX (text).
  Obj,      ///< A host object file.
  Lib,      ///< The shared library: the artifact.
};

/// "mlir", "manifest", "llvm", "ptx", "obj", "lib".
StringRef stringifyEmitKind(EmitKind kind);
std::optional<EmitKind> symbolizeEmitKind(StringRef text);
/// "ptx", "cubin".
StringRef stringifyDeviceCode(DeviceCode code);
std::optional<DeviceCode> symbolizeDeviceCode(StringRef text);

struct CompileOptions {
  /// GPU to compile for (sm_89, sm_90, sm_100a, ...); empty: the module's
  /// #teq.target.
  std::string target;
  EmitKind emit = EmitKind::Lib;
  DeviceCode deviceCode = DeviceCode::PTX;
  /// Index arithmetic of the kernels: 32 bits where safe
  /// (kernelIndexBitwidth()) unless this is set, then always 64.
  bool forceIndex64 = false;
  /// A JSON file as `te-run --json` prints it: pins each GEMM's cuBLASLt
  /// algorithm in the manifest ("algo"). Empty: none.
  std::string gemmAlgosPath;
  /// Fusions across ops to leave out, by name (kFusionNames), to measure
  /// each against its unfused form.
  std::vector<std::string> disabledFusions;
};

/// The fusions CompileOptions::disabledFusions can name: "residual-add"
/// (teq-fuse-residual-adds), "bias-grad" (convert-teq-to-gpu: a bias
/// gradient summed by the transposing cast of the same tensor), "amax" (a
/// current-scaling quantization's amax computed by the elementwise kernel
/// producing its input), "norm-add" (teq-fuse-norm-backward-adds: a
/// gradient added to a norm backward's dx by its kernel).
llvm::ArrayRef<llvm::StringLiteral> fusionNames();

/// Lowers `module` in place and writes what `options.emit` asks for to
/// `outputPath` ("-" is stdout for the text kinds). Every failure is emitted
/// as an error diagnostic on the module's context (located where the IR is
/// at fault) and returned as failure(); nothing is printed otherwise.
LogicalResult compileModule(ModuleOp module, const CompileOptions &options,
                            StringRef outputPath);

} // namespace mlir::teq

#endif // TEQ_TARGET_COMPILE_H

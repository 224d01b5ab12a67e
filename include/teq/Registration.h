//===- Registration.h - Everything a TEQ tool registers ---------*- C++ -*-===//
//
// One place that says which dialects, extensions, translation interfaces and
// passes TEQ uses. te-opt, te-compile, the C API and the Python bindings all
// call these, so an embedding compiler sees exactly what the tools see.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_REGISTRATION_H
#define TEQ_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::teq {

/// The teq dialect plus the upstream dialects TEQ programs and lowerings use
/// (func, arith, tensor, scf, memref, gpu, nvvm, llvm, index, math, cf,
/// bufferization and quant), their extensions and the LLVM/GPU/NVVM
/// translation interfaces.
void registerAllDialects(mlir::DialectRegistry &registry);

/// TEQ's passes and pipelines, plus the upstream passes its pipelines use.
void registerAllPasses();

/// "teq <version> (MLIR/LLVM <version>)".
const char *getVersionString();

} // namespace mlir::teq

#endif // TEQ_REGISTRATION_H

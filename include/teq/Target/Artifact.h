//===- Artifact.h - From lowered teq IR to a native artifact ----*- C++ -*-===//
//
// The steps after `convert-teq-to-gpu` that produce the shared library of
// docs/Artifact.md: the GPU/host lowering to the LLVM dialect, the ABI
// (packed entry wrappers, the manifest getter, the TEQ note), LLVM IR, an
// object file, the link and the trailer. te-compile drives them; embedders
// can call them one by one.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_TARGET_ARTIFACT_H
#define TEQ_TARGET_ARTIFACT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::teq {

enum class DeviceCode { PTX, Cubin };

/// gpu.module kernels to NVVM, their index arithmetic `kernelIndexBitwidth`
/// bits wide (kernelIndexBitwidth()), and host code to the LLVM dialect with
/// bare-pointer memrefs. The kernels stay a gpu.module
/// (buildDeviceBinaryPipeline makes them PTX or cubin).
void buildGPUToLLVMPipeline(OpPassManager &pm,
                            unsigned kernelIndexBitwidth = 64);

/// Fails, with an error at the op that needs it, if a kernel calls a
/// function it does not define: convert-gpu-to-nvvm turns math it has no
/// instruction for (exp, sqrt, ...) into libdevice calls, which would need
/// the CUDA toolkit at compile time and bring its non-IEEE defaults
/// (sqrt.approx). TEQ's kernels call nothing (Kernels/LibdeviceFree.h).
LogicalResult checkKernelsCallNothing(ModuleOp module);

/// The kernel modules (after buildGPUToLLVMPipeline) to PTX or cubin.
void buildDeviceBinaryPipeline(OpPassManager &pm, DeviceCode deviceCode);

/// The index width the kernels of `module` can use: 32 where every memref
/// they touch has a static shape of at most 2^30 elements and every index
/// constant is below 2^30 in magnitude (their index values, sums of two
/// such included, then fit i32; kernel arguments are bare pointers, so the
/// width is not part of the launch ABI), else 64. 64-bit address arithmetic
/// takes two instructions an operation on the GPU.
unsigned kernelIndexBitwidth(ModuleOp module);

/// Adds `void teq_entry_<name>(void **buffers)` for every lowered entry,
/// `const char *teq_artifact_manifest(void)` returning the module's
/// `teq.manifest` (read back with the runtime's reader, an error if it would
/// refuse it; "device_code" set to `deviceCode`) and the TEQ note that
/// sealArtifact completes. Runs on the LLVM dialect. `manifestText`, if
/// given, receives the manifest for sealArtifact.
LogicalResult emitArtifactABI(ModuleOp module, DeviceCode deviceCode,
                              std::string *manifestText = nullptr);

/// The device code of every gpu.binary, as text (PTX) for --emit=ptx.
FailureOr<std::string> getDeviceAssembly(ModuleOp module);

/// LLVM IR of a module in the LLVM dialect (GPU binaries embedded).
std::unique_ptr<llvm::Module> translateToLLVMIR(ModuleOp module,
                                                llvm::LLVMContext &context);

/// Writes a position-independent host object file for `module`.
LogicalResult emitObjectFile(llvm::Module &module, StringRef path,
                             std::string &error);

/// Links `object` into the shared library `output` with the system C
/// compiler driver (cc, gcc or clang).
LogicalResult linkSharedLibrary(StringRef object, StringRef output,
                                std::string &error);

/// Makes the linked library at `path` an artifact the runtime opens: records
/// its length in its TEQ note and appends `manifest`, the length and a
/// checksum (the trailer, teq/Runtime/ArtifactFile.h). The runtime refuses
/// libraries without it.
LogicalResult sealArtifact(StringRef path, StringRef manifest,
                           std::string &error);

} // namespace mlir::teq

#endif // TEQ_TARGET_ARTIFACT_H

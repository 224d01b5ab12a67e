//===- EntryLowering.h - One teq entry function to launches ----*- C++ -*-===//
//
// convert-teq-to-gpu lowers each public function of the module (an entry)
// to a function of memrefs, one per buffer (docs/Artifact.md), whose body
// enqueues on one stream, in program order, the kernels the emitters of
// Kernels/ build into the module's gpu.module, the teqGemm calls of its
// GEMMs and the collectives' runtime calls. The work is split by job:
//   OpLowering        the registry of op families (legality and dispatch),
//                     each family in its <Family>Lowering.cpp
//   LoweringContext   what the families share: buffers, the stream token,
//                     the kernel cache, launches and runtime calls
//   EntryBuffers      where each value lives (caller buffers, workspace)
//   ManifestWriter    the artifact manifest
//   EntryLowering     the driver of one entry (this function).
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_ENTRYLOWERING_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_ENTRYLOWERING_H

#include "KernelCache.h"
#include "ManifestWriter.h"
#include "QuantizeFusion.h"

#include "teq/Dialect/TEQ/IR/TEQOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::teq::lowering {

/// Checks `entry`, plans the fusions `fusions` allow and its buffers,
/// replaces it by its lowered form (same name) and adds it to the manifest.
LogicalResult lowerEntry(func::FuncOp entry, TargetAttr target,
                         KernelCache &kernelCache, ManifestWriter &manifest,
                         const FusionOptions &fusions);

} // namespace mlir::teq::lowering

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_ENTRYLOWERING_H

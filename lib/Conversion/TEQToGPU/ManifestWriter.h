//===- ManifestWriter.h - The artifact manifest of a lowered module -*- C++ -*-===//
//
// The manifest (docs/Artifact.md) tells the runtime and te-run what each
// entry takes and returns, buffer by buffer, how each result and temporary
// is computed (te-run --check recomputes them), the cuBLASLt problems of its
// GEMMs and the kernels launched as programmatic dependents. The writer
// collects them as the artifact contract's types (teq/Artifact/Manifest.h)
// while entries are lowered, and the contract's writer renders the JSON.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_CONVERSION_TEQTOGPU_MANIFESTWRITER_H
#define TEQ_LIB_CONVERSION_TEQTOGPU_MANIFESTWRITER_H

#include "EntryBuffers.h"
#include "teq/Artifact/Manifest.h"

#include <functional>
#include <string>

namespace mlir::teq::lowering {

/// The names the manifest gives an entry's values: arguments and results by
/// their teq.name attribute (the Python builder's names), else arg<i> /
/// result<i>; temporaries t<i>; a usage view after what it views.
class EntryNames {
public:
  /// Fails (with an error at `func`) if two arguments or results share a name.
  static FailureOr<EntryNames> get(func::FuncOp func, const EntryPlan &plan);
  std::string operator()(Value v) const;
  std::string argument(unsigned i) const;
  std::string result(unsigned i) const;

private:
  EntryNames(func::FuncOp func, const EntryPlan &plan);
  /// Op handles are values; their accessors are not const.
  mutable func::FuncOp func;
  const EntryPlan *plan;
  llvm::DenseMap<Value, std::string> temporaryName;
};

class ManifestWriter {
public:
  /// Adds `desc` to the artifact's "gemms"; returns its id.
  int64_t addGemm(const gemm::GemmDescriptor &desc, llvm::StringRef name);
  /// Records that `kernel` runs as a programmatic dependent of the launch
  /// before it.
  void addDependentLaunch(llvm::StringRef kernel);
  /// Describes entry `func` (before it is lowered) with its plan, names and
  /// the ids of its GEMMs.
  void addEntry(func::FuncOp func, const EntryPlan &plan,
                const EntryNames &names,
                const llvm::DenseMap<Operation *, int64_t> &gemmIds);
  bool hasGemms() const { return !manifest.gemms.empty(); }
  /// The manifest JSON of the module compiled for `target`.
  std::string render(TargetAttr target);

private:
  artifact::Manifest manifest;
};

} // namespace mlir::teq::lowering

#endif // TEQ_LIB_CONVERSION_TEQTOGPU_MANIFESTWRITER_H

//===- Targets.h - The GPUs convert-teq-to-gpu generates code for -*- C++ -*-===//
//
// #teq.target accepts sm_70 through sm_130 (recipe checks answer for any of
// them, with TE's messages); code is generated for the subset LLVM's NVPTX
// backend knows, each with the PTX ISA version its instructions need.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_CONVERSION_TEQTOGPU_TARGETS_H
#define TEQ_CONVERSION_TEQTOGPU_TARGETS_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::teq {

/// The PTX ISA version (major * 10 + minor) generated for sm_<sm><suffix>,
/// or nullopt where TEQ generates no code for it: sm_89 needs 8.1 for the
/// FP8 conversions; the others take the oldest version LLVM accepts.
std::optional<unsigned> ptxVersionFor(unsigned sm, llvm::StringRef suffix);

/// Every chip (sm_89, sm_90, sm_90a, sm_100, sm_100a, ...) ptxVersionFor
/// accepts, in order.
std::vector<std::string> codegenTargets();

} // namespace mlir::teq

#endif // TEQ_CONVERSION_TEQTOGPU_TARGETS_H

//===- Targets.cpp - The GPUs convert-teq-to-gpu generates code for -------===//

#include "teq/Conversion/TEQToGPU/Targets.h"

using namespace mlir;

std::optional<unsigned> mlir::teq::ptxVersionFor(unsigned sm,
                                                 llvm::StringRef suffix) {
  // The lowest version LLVM 22's NVPTX backend accepts for the chip that
  // has what the kernels use: FP8 conversions need 8.1 on sm_89 (7.8 from
  // sm_90); family ('f') targets need 8.8.
  if (suffix != "" && suffix != "a" && suffix != "f")
    return std::nullopt;
  switch (sm) {
  case 89:
    return suffix.empty() ? std::optional<unsigned>(81) : std::nullopt;
  case 90:
    return suffix != "f" ? std::optional<unsigned>(80) : std::nullopt;
  case 100:
  case 101:
    return suffix == "f" ? 88 : 86;
  case 103:
  case 121:
    return 88;
  case 110:
    return 90;
  case 120:
    return suffix == "f" ? 88 : 87;
  default:
    return std::nullopt;
  }
}

std::vector<std::string> mlir::teq::codegenTargets() {
  std::vector<std::string> chips;
  for (unsigned sm = 70; sm <= 130; ++sm)
    for (llvm::StringRef suffix : {"", "a", "f"})
      if (ptxVersionFor(sm, suffix))
        chips.push_back("sm_" + std::to_string(sm) + suffix.str());
  return chips;
}

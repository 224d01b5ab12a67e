//===- Chip.h - GPU chip names: the one parser of sm_<cc>[a|f] --*- C++ -*-===//
//
// A GPU target is named "sm_<compute capability>" with an optional suffix:
// sm_90, sm_90a, sm_100a, sm_100f, sm_120. One parser and one rule for every
// reader of the name: the dialect's #teq.target attribute and the artifact
// manifest's "target" (artifact::GpuTarget). Which chips TEQ supports is the
// reader's question (the dialect accepts sm_70 through sm_130); this only
// says what is a chip name.
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LAYOUT_CHIP_H
#define TEQ_LAYOUT_CHIP_H

#include <optional>
#include <string_view>

namespace mlir::teq::layout {

/// A parsed chip name.
struct ChipName {
  int sm = 0;      ///< Compute capability major*10 + minor (sm_90 -> 90).
  char suffix = 0; ///< 0, 'a' (architecture-specific) or 'f' (family).
};

/// Parses "sm_" + 2 to 4 digits without a leading zero (compute
/// capabilities 1.0 through 999.9; every chip TEQ knows has 2 or 3) + an
/// optional 'a' or 'f', and nothing else; nullopt otherwise (sm_9, sm_090,
/// sm_12345, sm_90b, SM_90).
std::optional<ChipName> parseChipName(std::string_view text);

} // namespace mlir::teq::layout

#endif // TEQ_LAYOUT_CHIP_H

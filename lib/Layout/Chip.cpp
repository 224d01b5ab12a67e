//===- Chip.cpp - GPU chip names: the one parser of sm_<cc>[a|f] ----------===//
//
// parseChipName (Chip.h).
//
//===----------------------------------------------------------------------===//

#include "teq/Layout/Chip.h"

namespace mlir::teq::layout {

std::optional<ChipName> parseChipName(std::string_view text) {
  if (text.substr(0, 3) != "sm_")
    return std::nullopt;
  std::string_view rest = text.substr(3);
  size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9')
    ++digits;
  if (digits < 2 || digits > 4 || rest[0] == '0')
    return std::nullopt;
  ChipName chip;
  for (size_t i = 0; i < digits; ++i)
    chip.sm = chip.sm * 10 + (rest[i] - '0');
  std::string_view suffix = rest.substr(digits);
  if (suffix.size() > 1 ||
      (suffix.size() == 1 && suffix[0] != 'a' && suffix[0] != 'f'))
    return std::nullopt;
  chip.suffix = suffix.empty() ? 0 : suffix[0];
  return chip;
}

} // namespace mlir::teq::layout

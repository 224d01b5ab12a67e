//===- Target.cpp - The artifact's GPU target and device code -------------===//
//
// GpuTarget::parse (on the one chip-name parser, layout::parseChipName) and
// which devices run an artifact's code.
//
//===----------------------------------------------------------------------===//

#include "teq/Artifact/Target.h"

#include "teq/Layout/Chip.h"

namespace mlir::teq::artifact {

StatusOr<GpuTarget> GpuTarget::parse(std::string_view text) {
  std::optional<layout::ChipName> chip = layout::parseChipName(text);
  if (!chip)
    return Status::error("invalid target '" + std::string(text) +
                         "' (expected sm_<compute capability>, e.g. sm_90)");
  GpuTarget target;
  target.sm = chip->sm;
  target.suffix = chip->suffix;
  target.name = std::string(text);
  return target;
}

const char *stringifyDeviceCode(DeviceCodeKind kind) {
  switch (kind) {
  case DeviceCodeKind::PTX:
    return "ptx";
  case DeviceCodeKind::Cubin:
    return "cubin";
  }
  return "unknown";
}

bool isTargetCompatible(const GpuTarget &target, DeviceCodeKind code,
                        int deviceSM) {
  const int deviceMajor = deviceSM / 10, deviceMinor = deviceSM % 10;
  if (target.suffix == 'a')
    return deviceSM == target.sm;
  if (target.suffix == 'f' || code == DeviceCodeKind::Cubin)
    return deviceMajor == target.major() && deviceMinor >= target.minor();
  return deviceSM >= target.sm;
}

} // namespace mlir::teq::artifact

//===- Target.h - The artifact's GPU target and device code -----*- C++ -*-===//
//
// The manifest's "target" (a GPU chip, read with the one chip-name parser,
// layout::parseChipName) and "device_code" (PTX or cubin), and whether code
// for a target runs on a device.
//
// No MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_ARTIFACT_TARGET_H
#define TEQ_ARTIFACT_TARGET_H

#include "teq/Artifact/Status.h"
#include "teq/Layout/BufferLayout.h"

#include <string>
#include <string_view>

namespace mlir::teq::artifact {

/// A GPU target name: "sm_<cc>" with an optional suffix, e.g. sm_90, sm_90a,
/// sm_100a, sm_100f, sm_120.
struct GpuTarget {
  int sm = 0;       ///< Compute capability major*10 + minor (sm_90 -> 90).
  char suffix = 0;  ///< 0, 'a' (architecture-specific) or 'f' (family).
  std::string name; ///< As written, e.g. "sm_90a".

  int major() const { return sm / 10; }
  int minor() const { return sm % 10; }
  /// What the target can do (the layout library's capabilities).
  layout::TargetCaps caps() const { return layout::TargetCaps::fromSM(sm); }

  /// Parses a chip name by layout::parseChipName's rule ("sm_" + 2 to 4
  /// digits, no leading zero, an optional 'a' or 'f'); the error reads
  /// "invalid target 'x' (expected sm_<compute capability>, e.g. sm_90)".
  static StatusOr<GpuTarget> parse(std::string_view text);
};

/// How an artifact's device code is shipped.
enum class DeviceCodeKind { PTX, Cubin };
const char *stringifyDeviceCode(DeviceCodeKind kind);

/// Whether device code for `target` runs on a device of compute capability
/// `deviceSM` (major*10 + minor):
///  - PTX is JIT-compiled forward: deviceSM >= target.sm (sm_90 PTX runs on
///    sm_100); 'a' targets need exactly that device, 'f' targets the same
///    major with a minor >= the target's;
///  - cubin runs on the same major with a minor >= the target's; 'a' targets
///    need exactly that device.
bool isTargetCompatible(const GpuTarget &target, DeviceCodeKind code,
                        int deviceSM);

} // namespace mlir::teq::artifact

#endif // TEQ_ARTIFACT_TARGET_H

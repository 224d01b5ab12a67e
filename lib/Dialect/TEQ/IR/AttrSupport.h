//===- AttrSupport.h - What the teq attribute files share ------*- C++ -*-===//
//
// Helpers of TEQAttrs.cpp that the recipes (TEQRecipes.cpp) and quantizers
// (TEQQuantizers.cpp) use too: FP8 type and format checks with TE's
// messages, and TE's hardware checks of a format on a target (§2). Internal
// to the dialect library.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_DIALECT_TEQ_IR_ATTRSUPPORT_H
#define TEQ_LIB_DIALECT_TEQ_IR_ATTRSUPPORT_H

#include "teq/Dialect/TEQ/IR/TEQAttrs.h"

#include <optional>
#include <string>

namespace mlir::teq::attrs {

/// E4M3 or E5M2.
bool isFP8Type(Type t);
/// input, weight or output (a forward tensor).
bool isForwardRole(TensorRole role);
/// TE asserts fp8_format != E5M2 in every recipe; E2M1 is FP4 only.
LogicalResult verifyFP8Format(function_ref<InFlightDiagnostic()> emitError,
                              StringRef recipe, Format format,
                              bool allowHybrid = true);
/// The fields DelayedScaling and a delayed-scaling request share: the FP8
/// format, amax_history_len >= 1, and a margin in [-100, 100] (where
/// fp8_max * 2^-margin stays a normal float32). Messages start with
/// `recipe`.
LogicalResult
verifyDelayedScalingFields(function_ref<InFlightDiagnostic()> emitError,
                           StringRef recipe, Format fp8Format, int64_t margin,
                           int64_t amaxHistoryLen);
/// TE's message for why `target` does not run FP8 / MXFP8 / NVFP4 / FP8
/// block scaling, or none where it does.
std::optional<std::string> checkFP8(TargetAttr target);
std::optional<std::string> checkMXFP8(TargetAttr target);
std::optional<std::string> checkNVFP4(TargetAttr target);
std::optional<std::string> checkBlockScaling(TargetAttr target);
/// What a single quantizer needs from the hardware.
std::optional<std::string>
checkQuantizerSupport(QuantizerAttrInterface quantizer, TargetAttr target);

} // namespace mlir::teq::attrs

#endif // TEQ_LIB_DIALECT_TEQ_IR_ATTRSUPPORT_H

//===- Internal.h - Shared internals of lib/Runtime -------------*- C++ -*-===//

#ifndef TEQ_LIB_RUNTIME_INTERNAL_H
#define TEQ_LIB_RUNTIME_INTERNAL_H

#include <string>

namespace mlir::teq::runtime::detail {

/// The name of the last kernel launched through mgpuLaunchKernel on this
/// thread since the error state was last cleared ("" if none).
const std::string &lastLaunchedKernel();

} // namespace mlir::teq::runtime::detail

#endif // TEQ_LIB_RUNTIME_INTERNAL_H

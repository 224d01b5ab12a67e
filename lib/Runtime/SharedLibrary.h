//===- SharedLibrary.h - Opening the CUDA libraries at run time -*- C++ -*-===//
//
// The runtime loads the CUDA driver, cuBLASLt and NCCL with dlopen when it
// first needs them (no link-time dependency: a machine without a GPU still
// loads artifacts and inspects them). This is the part the three loaders
// share: where to look and opening the first candidate that opens.
//
//===----------------------------------------------------------------------===//

#ifndef TEQ_LIB_RUNTIME_SHAREDLIBRARY_H
#define TEQ_LIB_RUNTIME_SHAREDLIBRARY_H

#include <string>
#include <vector>

namespace mlir::teq::runtime::detail {

/// `soname` on the library search path, then in the CUDA toolkit's library
/// directories ($CUDA_HOME and $CUDA_PATH, then /usr/local/cuda; lib64/ and
/// lib/), since a toolkit is not always registered with ldconfig.
std::vector<std::string> cudaToolkitCandidates(const std::string &soname);

struct OpenedLibrary {
  void *handle = nullptr; ///< Null if none opened.
  std::string path;       ///< The candidate that opened.
  std::string dlError;    ///< dlerror() of the first candidate that failed.
};

/// dlopen (RTLD_NOW | RTLD_LOCAL) of the first of `candidates` that opens.
OpenedLibrary openFirst(const std::vector<std::string> &candidates);

} // namespace mlir::teq::runtime::detail

#endif // TEQ_LIB_RUNTIME_SHAREDLIBRARY_H

//===- SharedLibrary.cpp - Opening the CUDA libraries at run time ---------===//

#include "SharedLibrary.h"

#include <dlfcn.h>

#include <cstdlib>

namespace mlir::teq::runtime::detail {

std::vector<std::string> cudaToolkitCandidates(const std::string &soname) {
  std::vector<std::string> candidates = {soname};
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(variable); root && *root)
      for (const char *dir : {"/lib64/", "/lib/"})
        candidates.push_back(std::string(root) + dir + soname);
  for (const char *dir : {"/usr/local/cuda/lib64/", "/usr/local/cuda/lib/"})
    candidates.push_back(dir + soname);
  return candidates;
}

OpenedLibrary openFirst(const std::vector<std::string> &candidates) {
  OpenedLibrary opened;
  for (const std::string &candidate : candidates) {
    opened.handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (opened.handle) {
      opened.path = candidate;
      return opened;
    }
    if (const char *message = dlerror())
      if (opened.dlError.empty())
        opened.dlError = message;
  }
  return opened;
}

} // namespace mlir::teq::runtime::detail

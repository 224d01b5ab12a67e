//===- MgpuTest.cpp - The mgpu* error state -------------------------------===//
//
// Runs with or without a GPU: with no CUDA context current on the test
// thread, every call that needs CUDA records an error instead of printing or
// aborting.
//
//===----------------------------------------------------------------------===//

#include "teq/Runtime/Context.h"
#include "teq/Runtime/Mgpu.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstring>
#include <set>
#include <string>
#include <thread>

using namespace mlir::teq::runtime;

namespace {

bool startsWith(const std::string &text, const std::string &prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

TEST(MgpuTest, FirstErrorWinsAndLaterCallsDoNothing) {
  clearMgpuError();
  EXPECT_FALSE(hasMgpuError());
  char ptx[] = "not ptx";
  EXPECT_EQ(mgpuModuleLoadJIT(ptx, 2), nullptr);
  ASSERT_TRUE(hasMgpuError());
  // Later calls neither do anything nor replace the first error.
  EXPECT_EQ(mgpuModuleGetFunction(nullptr, "k"), nullptr);
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  Status status = takeMgpuError();
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(startsWith(status.message(), "loading PTX module failed: "))
      << status.message();
  // Taking the error clears it.
  EXPECT_FALSE(hasMgpuError());
  EXPECT_TRUE(takeMgpuError().ok());
}

TEST(MgpuTest, Messages) {
  clearMgpuError();
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  EXPECT_EQ(takeMgpuError().message(), "kernel launch with a null function");

  EXPECT_EQ(mgpuModuleGetFunction(nullptr, "cast_transpose_0"), nullptr);
  EXPECT_EQ(takeMgpuError().message(),
            "kernel 'cast_transpose_0': its module was not loaded");

  EXPECT_EQ(mgpuModuleLoad(nullptr, 12), nullptr);
  EXPECT_EQ(takeMgpuError().message(),
            "loading cubin module (12 bytes) failed: null image");
}

TEST(MgpuTest, UnloadAndDestroyNeverRecord) {
  clearMgpuError();
  mgpuModuleUnload(nullptr);
  mgpuStreamDestroy(nullptr);
  EXPECT_FALSE(hasMgpuError());
}

TEST(MgpuTest, ErrorStateIsPerThread) {
  clearMgpuError();
  std::thread other([] {
    mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr,
                     0);
    EXPECT_TRUE(hasMgpuError());
  });
  other.join();
  EXPECT_FALSE(hasMgpuError());
}

TEST(MgpuTest, ScopeSetsStreamAndInspectOnly) {
  clearMgpuError();
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  int fakeStream = 0;
  {
    detail::MgpuScope scope(&fakeStream, /*inspectOnly=*/true);
    EXPECT_EQ(mgpuStreamCreate(), &fakeStream);
    char ptx[] = "not ptx";
    // Inspect-only: no CUDA, no error.
    EXPECT_EQ(mgpuModuleLoadJIT(ptx, 2), nullptr);
    EXPECT_EQ(mgpuModuleGetFunction(nullptr, "k"), nullptr);
    EXPECT_FALSE(hasMgpuError());
    {
      detail::MgpuScope inner(nullptr, /*inspectOnly=*/false);
      EXPECT_EQ(mgpuStreamCreate(), nullptr);
    }
    EXPECT_EQ(mgpuStreamCreate(), &fakeStream);
  }
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
}

TEST(MgpuTest, ModuleSlotsWithoutModules) {
  clearMgpuError();
  // No module was loaded through mgpuModuleLoad[JIT]: no instances, and
  // releasing a slot that never asked for one (or slot 0) does nothing.
  EXPECT_EQ(detail::moduleInstanceCount(), 0u);
  detail::releaseModuleSlot(0);
  detail::releaseModuleSlot(12345);
  EXPECT_EQ(detail::moduleInstanceCount(), 0u);
  EXPECT_FALSE(hasMgpuError());
  // A slot in an inspect-only scope still touches nothing.
  int fakeStream = 0;
  {
    detail::MgpuScope scope(&fakeStream, /*inspectOnly=*/true, nullptr,
                            /*moduleSlot=*/7);
    EXPECT_EQ(mgpuStreamCreate(), &fakeStream);
    int notAModule = 0;
    EXPECT_EQ(mgpuModuleGetFunction(&notAModule, "k"), nullptr);
    EXPECT_FALSE(hasMgpuError());
  }
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
}

TEST(MgpuTest, LaunchDimensionsAreChecked) {
  clearMgpuError();
  // Needs a function the cache knows nothing about: any non-null pointer.
  int notAFunction = 0;
  mgpuLaunchKernel(&notAFunction, 0, 1, 1, 128, 1, 1, 0, nullptr, nullptr,
                   nullptr, 0);
  EXPECT_EQ(takeMgpuError().message(),
            "kernel '<unknown>' launch failed: grid (0, 1, 1) block (128, 1, "
            "1) has a dimension out of range");
  mgpuLaunchKernel(&notAFunction, 1, 1, 1, 128, 1, 1, -1, nullptr, nullptr,
                   nullptr, 0);
  EXPECT_EQ(takeMgpuError().message(),
            "kernel '<unknown>' launch failed: negative dynamic shared memory "
            "size -1");
}

// Two empty kernels, for the lookups below (any sm_90+ device JITs it).
char twoKernelsPtx[] = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry ka() { ret; }
.visible .entry kb() { ret; }
)";

TEST(MgpuGpuTest, LookupsByNameAddressCheckTheName) {
  auto context = Context::create(0);
  if (!context.ok())
    GTEST_SKIP() << "no CUDA device: " << context.message();
  if ((*context)->device().computeCapability < 90)
    GTEST_SKIP() << "the PTX targets sm_90";
  ASSERT_TRUE((*context)->makeCurrent().ok());
  clearMgpuError();
  void *module = mgpuModuleLoadJIT(twoKernelsPtx, 2);
  ASSERT_NE(module, nullptr) << takeMgpuError().message();
  // Kernels are cached by the address of their name: a caller that reuses
  // its buffer for another name gets the other kernel, and another address
  // of the same name the same kernel.
  char name[8];
  std::strcpy(name, "ka");
  void *a = mgpuModuleGetFunction(module, name);
  std::strcpy(name, "kb");
  void *b = mgpuModuleGetFunction(module, name);
  ASSERT_TRUE(a && b) << takeMgpuError().message();
  EXPECT_NE(a, b);
  EXPECT_EQ(mgpuModuleGetFunction(module, "ka"), a);
  EXPECT_EQ(mgpuModuleGetFunction(module, name), b);
  std::strcpy(name, "ka");
  EXPECT_EQ(mgpuModuleGetFunction(module, name), a);
  EXPECT_FALSE(hasMgpuError());

  // Launches name their kernel in errors, and launch on the scope's
  // stream, as dependents of the kernel before them when the scope's set
  // names them (decided once per set, for each kernel).
  mgpuLaunchKernel(b, 1, 0, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  EXPECT_EQ(takeMgpuError().message(),
            "kernel 'kb' launch failed: grid (1, 0, 1) block (32, 1, 1) has "
            "a dimension out of range");
  const std::set<std::string> dependents = {"kb"}, none;
  for (const std::set<std::string> *set : {&dependents, &none, &dependents}) {
    detail::MgpuScope scope((*context)->stream(), /*inspectOnly=*/false, set);
    for (void *kernel : {a, b, a, b})
      mgpuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr,
                       nullptr, 0);
    EXPECT_FALSE(hasMgpuError()) << takeMgpuError().message();
  }
  EXPECT_TRUE((*context)->synchronize().ok());
  mgpuModuleUnload(module);
}

TEST(MgpuTest, ExportedFromTheRuntime) {
  // Artifacts resolve these by name in the global scope.
  for (const char *name :
       {"mgpuModuleLoadJIT", "mgpuModuleLoad", "mgpuModuleUnload",
        "mgpuModuleGetFunction", "mgpuLaunchKernel", "mgpuStreamCreate",
        "mgpuStreamSynchronize", "mgpuStreamDestroy"})
    EXPECT_NE(dlsym(RTLD_DEFAULT, name), nullptr) << name;
}

} // namespace

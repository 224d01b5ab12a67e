//===- RuntimeCAPITest.cpp - The runtime C API under GoogleTest -----------===//
//
// The checks are C (RuntimeCAPITest.c, compiled as C99 so that it also
// proves teq-c/Runtime.h is C); each group returns its number of failed
// checks and prints one line per check. Without a GPU the device group
// checks that context creation fails with a message and skips the rest.
//
//===----------------------------------------------------------------------===//

#include "teq-c/Runtime.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>

extern "C" {
int teqRtCapiTestInspect(void);
int teqRtCapiTestErrors(void);
int teqRtCapiTestDevice(int *skipped);
}

namespace {

TEST(RuntimeCAPITest, InspectListsEntriesArgumentsBuffersAndGemms) {
  EXPECT_EQ(teqRtCapiTestInspect(), 0) << "see the FAIL lines above";
}

TEST(RuntimeCAPITest, BadCallsReturnErrorsWithMessages) {
  EXPECT_EQ(teqRtCapiTestErrors(), 0) << "see the FAIL lines above";
}

TEST(RuntimeCAPITest, LastErrorIsPerThread) {
  TeqRtArtifact artifact = {nullptr};
  ASSERT_EQ(teqRtArtifactInspect("/nonexistent/x.so", &artifact),
            TEQ_RT_FAILURE);
  std::string other;
  std::thread([&] { other = teqRtGetLastError(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_NE(std::string(teqRtGetLastError()), "");
}

TEST(RuntimeCAPITest, ContextLoadAndRunOnADevice) {
  int skipped = 0;
  EXPECT_EQ(teqRtCapiTestDevice(&skipped), 0) << "see the FAIL lines above";
  if (skipped)
    GTEST_SKIP() << "no usable CUDA device: " << teqRtGetLastError();
}

} // namespace

//===- StatusTest.cpp - Status and StatusOr -------------------------------===//

#include "teq/Runtime/Status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace mlir::teq::runtime;

namespace {

TEST(StatusTest, SuccessAndError) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_TRUE(static_cast<bool>(ok));
  EXPECT_EQ(ok.message(), "");
  EXPECT_TRUE(Status::success().ok());

  Status error = Status::error("entry 'e': expected 4 buffers, got 3");
  EXPECT_FALSE(error.ok());
  EXPECT_EQ(error.message(), "entry 'e': expected 4 buffers, got 3");
}

TEST(StatusTest, WithPrefix) {
  EXPECT_EQ(Status::error("missing \"shape\"").withPrefix("manifest").message(),
            "manifest: missing \"shape\"");
  EXPECT_TRUE(Status::success().withPrefix("manifest").ok());
}

Status failsIf(bool fail) {
  TEQ_RETURN_IF_ERROR(fail ? Status::error("inner") : Status::success());
  return Status::error("reached the end");
}

TEST(StatusTest, ReturnIfError) {
  EXPECT_EQ(failsIf(true).message(), "inner");
  EXPECT_EQ(failsIf(false).message(), "reached the end");
}

TEST(StatusOrTest, ValueAndError) {
  StatusOr<int> value = 42;
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 42);
  EXPECT_TRUE(value.status().ok());

  StatusOr<int> error = Status::error("no");
  EXPECT_FALSE(error.ok());
  EXPECT_EQ(error.message(), "no");
}

TEST(StatusOrTest, MoveOnly) {
  StatusOr<std::unique_ptr<int>> value = std::make_unique<int>(7);
  ASSERT_TRUE(value.ok());
  std::unique_ptr<int> taken = std::move(*value);
  EXPECT_EQ(*taken, 7);
}

} // namespace

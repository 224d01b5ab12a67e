//===- te-opt.cpp - Run teq pass pipelines --------------------------------===//
//
// MlirOptMain with the teq dialect, the upstream dialects TEQ uses (upstream
// quant included: both live in one context) and TEQ's passes; with the
// tests built, also TEQ's test passes (test/lib).
//
//===----------------------------------------------------------------------===//

#include "teq/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#ifdef TEQ_INCLUDE_TESTS
namespace mlir::teq::test {
void registerTestPasses();
} // namespace mlir::teq::test
#endif

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::teq::registerAllDialects(registry);
  mlir::teq::registerAllPasses();
#ifdef TEQ_INCLUDE_TESTS
  mlir::teq::test::registerTestPasses();
#endif
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << mlir::teq::getVersionString() << "\n";
  });
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "TEQ optimizer driver\n", registry));
}
